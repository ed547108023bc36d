/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcpcache owners (remote mode): which CPU each page was cached on, and the
 * transit lists that take a page freed on another CPU home (owner.c).
 */
#ifndef _PCPCACHE_OWNER_H
#define _PCPCACHE_OWNER_H

#include <linux/compiler.h>
#include <linux/jump_label.h>
#include <linux/mm.h>

#include "magazine.h"

/*
 * One entry per page frame of the memory present when remote mode was
 * first chosen: the owning CPU + 1, 0 for none. Written by the CPU that
 * caches or hands out a page, read by the one that frees it; a stale entry
 * only sends a page to another CPU's magazine, never loses it.
 */
struct pcpcache_owners {
	u16 *cpu;
	unsigned long base;	/* the first page frame */
	unsigned long len;	/* entries */
};

extern struct pcpcache_owners pcpcache_owners;

/*
 * On from the first time the owner table exists (before remote or blocks
 * mode is first put in force) until unload: a machine that never routes a
 * free pays no test of the mode for it on the fast path.
 */
DECLARE_STATIC_KEY_FALSE(pcpcache_routing);

static __always_inline u16 *pcpcache_owner_slot(struct page *page)
{
	unsigned long i = page_to_pfn(page) - pcpcache_owners.base;
	u16 *table = READ_ONCE(pcpcache_owners.cpu);

	return likely(table && i < pcpcache_owners.len) ? &table[i] : NULL;
}

/* The CPU @page was cached on or handed out by, or -1. */
static __always_inline int pcpcache_owner(struct page *page)
{
	u16 *slot = pcpcache_owner_slot(page);

	return slot ? (int)READ_ONCE(*slot) - 1 : -1;
}

/* Note that @cpu owns @page now; a store only when it changes. */
static __always_inline void pcpcache_owner_claim(struct page *page, int cpu)
{
	u16 *slot = pcpcache_owner_slot(page);

	if (slot && READ_ONCE(*slot) != cpu + 1)
		WRITE_ONCE(*slot, cpu + 1);
}

bool pcpcache_memory_span(unsigned long *start, unsigned long *end);
int pcpcache_owners_ready(void);
void pcpcache_owners_exit(void);
/* What pcpcache_send_home() did with a block. */
enum pcpcache_sent {
	PCPCACHE_SENT_NOT,	/* not sent: the caller frees it as its own */
	PCPCACHE_SENT_HOME,	/* on its owner's transit list */
	PCPCACHE_SENT_FULL,	/* the owner has no room: the buddy allocator's */
};

enum pcpcache_sent pcpcache_send_home(struct page *page, unsigned int order,
				      int owner);
unsigned int pcpcache_transit_take(int cpu, struct pcpcache_cut *cut,
				   bool settle);
void pcpcache_transit_settle(int cpu, unsigned int nr);
unsigned int pcpcache_cpu_transit(int cpu);
unsigned long pcpcache_transit_pages(int nid);

#endif /* _PCPCACHE_OWNER_H */
