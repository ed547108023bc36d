/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcpcache magazines: one CPU's cached pages and the rules for where a page
 * goes in and comes out. The caller provides the locking (see core.c).
 *
 * Nothing here may call into the kernel beyond <linux/list.h>: module/tests/
 * compiles magazine.c unchanged in userspace against the kernel's
 * tools/include/linux/list.h.
 */
#ifndef _PCPCACHE_MAGAZINE_H
#define _PCPCACHE_MAGAZINE_H

#include <linux/list.h>

#include "policy.h"

/* Which list a page goes to in split mode; single mode uses only the first. */
enum pcpcache_list_id {
	PCPCACHE_LIST_HOT,
	PCPCACHE_LIST_COLD,
	PCPCACHE_NR_LISTS,
};

struct pcpcache_list {
	struct list_head pages;		/* head is hot, tail is cold */
	unsigned int count;
	unsigned int batch;		/* pages per refill and per drain */
	unsigned int high;		/* drain once count exceeds this */
};

struct pcpcache_mag {
	enum pcpcache_mode mode;
	struct pcpcache_list lists[PCPCACHE_NR_LISTS];
};

void mag_init(struct pcpcache_mag *mag, const struct pcpcache_config *cfg);
struct pcpcache_list *mag_list(struct pcpcache_mag *mag, bool cold);
struct list_head *mag_take(struct pcpcache_mag *mag, bool cold);
bool mag_put(struct pcpcache_mag *mag, struct list_head *page, bool cold);
unsigned int mag_trim(struct pcpcache_list *list, struct list_head *out);
unsigned int mag_trim_to_high(struct pcpcache_list *list,
			      struct list_head *out);
void mag_add_refill(struct pcpcache_list *list, struct list_head *pages,
		    unsigned int nr);
unsigned int mag_reconfigure(struct pcpcache_mag *mag,
			     const struct pcpcache_config *cfg,
			     struct list_head *out);
unsigned int mag_drain(struct pcpcache_mag *mag, struct list_head *out);
unsigned int mag_shrink(struct pcpcache_mag *mag, unsigned long nr,
			struct list_head *out);
unsigned int mag_count(const struct pcpcache_mag *mag);

#endif /* _PCPCACHE_MAGAZINE_H */
