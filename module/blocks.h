/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcpcache blocks (blocks mode): refills cut from large blocks the module
 * splits itself, each owned by one CPU, whose pages go home to it and back
 * to the buddy allocator as a whole block when all of them are home
 * (blocks.c).
 */
#ifndef _PCPCACHE_BLOCKS_H
#define _PCPCACHE_BLOCKS_H

#include <linux/bitmap.h>
#include <linux/bits.h>
#include <linux/list.h>
#include <linux/mm_types.h>
#include <linux/spinlock.h>

#include "magazine.h"

/* The largest block a refill takes: a pageblock on x86 (2 MiB). */
#define PCPCACHE_BLOCK_ORDER	9
#define PCPCACHE_BLOCK_PAGES	BIT(PCPCACHE_BLOCK_ORDER)

/*
 * A CPU's blocks: those partly at home (in the reserve, neither in a
 * magazine nor handed out), the one that had a page come home most
 * recently first; those wholly at home, in the order they became so; and
 * those with no page at home. A raw spinlock, taken with interrupts off by
 * any CPU, for a few bit operations at a time: a drain on any CPU sends a
 * page home here, and on PREEMPT_RT too nothing under it sleeps.
 */
struct pcpcache_reserve {
	raw_spinlock_t lock;
	struct list_head home;
	struct list_head whole;
	struct list_head out;
	unsigned int pages;	/* base pages at home, read unlocked */
};

/* The block_hold parameter's default and bound, in base pages per CPU. */
#define PCPCACHE_BLOCK_HOLD_DEFAULT	(2 * PCPCACHE_BLOCK_PAGES)
#define PCPCACHE_BLOCK_HOLD_MAX		(16 * PCPCACHE_BLOCK_PAGES)

extern unsigned int pcpcache_block_hold;
/* the "delay_block_setup" debugfs file: failure injection */
extern unsigned int pcpcache_delay_block_setup;

void pcpcache_reserve_init(struct pcpcache_reserve *r);
int pcpcache_blocks_ready(void);
void pcpcache_blocks_exit(void);
unsigned int pcpcache_blocks_refill(gfp_t gfp, unsigned int nr,
				    struct list_head *pages);
bool pcpcache_blocks_tracking(void);
bool pcpcache_blocks_return(struct page *page);
unsigned long pcpcache_blocks_release(int cpu, unsigned long nr, bool untrack);
unsigned int pcpcache_cpu_blocks(int cpu);
unsigned long pcpcache_blocks_pages(int nid);
unsigned long pcpcache_blocks_audit(int cpu, unsigned long *wrong);

#endif /* _PCPCACHE_BLOCKS_H */
