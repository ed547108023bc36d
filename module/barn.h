/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcpcache barn mode: each node's barn of full magazines, and the
 * exchanges of a CPU's main and spare magazines with it (barn.c; the
 * rules are magazine.c's).
 */
#ifndef _PCPCACHE_BARN_H
#define _PCPCACHE_BARN_H

#include "pcpcache.h"

/*
 * How often a barn gives back the magazines it did not need: Bonwick's
 * 15 s, shortened (debugfs's barn_trim_ms changes it, for tests).
 */
#define PCPCACHE_BARN_TRIM_SECS	5

int pcpcache_barns_init(const struct pcpcache_config *cfg);
void pcpcache_barns_exit(void);
void pcpcache_barns_reconfigure(const struct pcpcache_config *cfg);
void pcpcache_barns_trim(void);
unsigned int pcpcache_barn_trim_interval(void);
void pcpcache_barn_set_trim_interval(unsigned int ms);
unsigned long pcpcache_barns_give_back(int nid, unsigned long nr,
				       enum pcpcache_drain_why why);
unsigned long pcpcache_barn_pages(int nid);
void pcpcache_barns_close(void);
void pcpcache_barns_open(void);
int pcpcache_barns_audit(unsigned long *walked, unsigned long *counted,
			 unsigned long *wrong);
bool pcpcache_barn_refill(struct pcpcache_mag *mag, unsigned int order);
void pcpcache_barn_overflow(struct pcpcache_mag *mag, unsigned int order,
			    struct pcpcache_cut *cut);

#endif /* _PCPCACHE_BARN_H */
