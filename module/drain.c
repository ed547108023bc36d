// SPDX-License-Identifier: GPL-2.0
/*
 * Where the pages that magazines and barns let go end up: counted by
 * why, traced, home to their blocks (blocks mode) and the rest to the
 * buddy allocator. Above blocks.c and buddy.c in the module's calls,
 * below every design that drains.
 */
#include <linux/list.h>
#include <linux/mm.h>

#include "blocks.h"
#include "pcpcache.h"
#include "pcpcache_trace.h"

/**
 * pcpcache_give_back - give the blocks of a cut back
 * @cut: the blocks, which have no reference: the frees drop the one they
 *	 get back here
 *
 * Return: the base pages the buddy allocator got, which in blocks mode
 * leaves out those that went home to their blocks (and what a block whole
 * again took with it).
 */
unsigned int pcpcache_give_back(struct pcpcache_cut *cut)
{
	struct page *page, *next;
	unsigned int freed;
	LIST_HEAD(kept);

	if (!cut->count)
		return 0;
	/*
	 * blocks mode: a page of a tracked block goes home to it instead,
	 * off the list first, as going home may give it back at once
	 */
	if (pcpcache_blocks_tracking()) {
		list_for_each_entry_safe(page, next, &cut->pages[0], lru) {
			list_del(&page->lru);
			if (pcpcache_blocks_return(page))
				cut->count--;
			else
				list_add_tail(&page->lru, &kept);
		}
		list_splice(&kept, &cut->pages[0]);
	}
	freed = cut->count;
	pcpcache_free_cut(cut);
	return freed;
}

/**
 * pcpcache_count_drained - count pages a magazine let go, with their event
 * @cpu: the CPU of the magazine
 * @nr: base pages
 * @why: why they went
 */
void pcpcache_count_drained(int cpu, unsigned int nr,
			    enum pcpcache_drain_why why)
{
	switch (why) {
	case PCPCACHE_DRAIN_SHRINKER:
		pcpcache_count(PCPCACHE_SHRINK_PAGES, nr);
		break;
	case PCPCACHE_DRAIN_REMOTE:
		pcpcache_count(PCPCACHE_REMOTE_NODE, nr);
		break;
	case PCPCACHE_DRAIN_OOM:
		pcpcache_count(PCPCACHE_OOM_PAGES, nr);
		break;
	default:
		pcpcache_count(PCPCACHE_DRAIN, 1);
		pcpcache_count(PCPCACHE_DRAIN_PAGES, nr);
	}
	trace_pcpcache_drain(cpu, nr, why);
}

/**
 * pcpcache_give_back_drained - give a cut back, counted and traced
 * @cut: the blocks
 * @cpu: the CPU whose magazine let them go
 * @why: why they went
 */
void pcpcache_give_back_drained(struct pcpcache_cut *cut, int cpu,
				enum pcpcache_drain_why why)
{
	if (!cut->count)
		return;
	pcpcache_count_drained(cpu, cut->count, why);
	pcpcache_give_back(cut);
}
