// SPDX-License-Identifier: GPL-2.0
/*
 * The floor behind a call, the benchmarks' "limit-call" row: the limit's
 * bare per-CPU list of pages (interrupts off, no counters), behind two
 * calls of the API's shape in a file of their own, as bench.c calls the
 * API's in core.c. Above the limit row (the same list, inline in the
 * benchmark's loop) it is what two calls cost; below the API's hit pair,
 * what pcpcache does in them.
 *
 * Each CPU's list is filled by its benchmark thread before the start, and
 * every CPU's is emptied once all threads have ended: a thread that CPU
 * hotplug moved onto another CPU's list leaves no page behind. bench.c
 * runs one benchmark at a time.
 */
#include <linux/gfp.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/percpu.h>

#include "pcpcache.h"

static DEFINE_PER_CPU(struct list_head, pcpcache_limit_lists);

/* Every CPU's list empty, before a run's threads fill theirs. */
void pcpcache_limit_call_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		INIT_LIST_HEAD(per_cpu_ptr(&pcpcache_limit_lists, cpu));
}

/* pcpcache_alloc_pages()'s shape; @cold is not used: one end only */
struct page *pcpcache_limit_call_alloc(gfp_t gfp, unsigned int order, bool cold)
{
	struct page *page = NULL;
	struct list_head *list;
	unsigned long flags;

	local_irq_save(flags);
	list = this_cpu_ptr(&pcpcache_limit_lists);
	if (!list_empty(list)) {
		page = list_first_entry(list, struct page, lru);
		list_del(&page->lru);
	}
	local_irq_restore(flags);
	return page ? page : alloc_pages(gfp, order);
}

/* pcpcache_free_pages()'s shape */
void pcpcache_limit_call_free(struct page *page, unsigned int order, bool cold)
{
	unsigned long flags;

	local_irq_save(flags);
	list_add(&page->lru, this_cpu_ptr(&pcpcache_limit_lists));
	local_irq_restore(flags);
}

/* Every CPU's list back to the buddy allocator, with no thread running. */
void pcpcache_limit_call_empty(unsigned int order)
{
	struct page *page, *next;
	struct list_head *list;
	int cpu;

	for_each_possible_cpu(cpu) {
		list = per_cpu_ptr(&pcpcache_limit_lists, cpu);
		list_for_each_entry_safe(page, next, list, lru) {
			list_del(&page->lru);
			__free_pages(page, order);
		}
	}
}
