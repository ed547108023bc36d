// SPDX-License-Identifier: GPL-2.0
/*
 * pcpcache owners: remote mode, after Rik van Riel's RFC series of May 2026
 * (Documentation/mm/pcpcache-design.rst). A page remembers the CPU whose magazine
 * it was cached in, or that handed it out; a free on another CPU pushes it
 * onto that CPU's transit list, an llist, without a lock and from any
 * context; the owner absorbs the list into its magazine at its next
 * allocation, without cutting its list to high (the next local free over
 * high does), and a drain, a reconfiguration or the shrinker gives the
 * pages on it back. A free on the owner's CPU is single mode's. One that
 * would take the owner's pages, cached and in transit, past its high and
 * a batch goes to the buddy allocator, as the owner's drain would give it
 * (remote_overflow): what a CPU parks stays bounded, and the freeing CPU,
 * which does not use it, does not park it either.
 *
 * The record is a table of one u16 per page frame (0.05% of the memory),
 * allocated when remote mode is first chosen and kept until unload. The
 * kernel has no field in struct page the module may keep while a page is
 * handed out: page->private belongs to the page's user then.
 *
 * A push happens with preemption off, and checks there that the owner is
 * online and that the page's pageblock is not isolated. CPU hotplug takes
 * a CPU down under stop_machine(), which waits for every CPU's preempt-off
 * section, before the dead CPU's magazine and transit list are emptied
 * (request.c); memory offline waits for them with synchronize_rcu() after
 * isolating its range and before draining (reclaim.c). So no page is
 * pushed onto a list nobody empties, nor kept from memory going offline.
 */
#include <linux/cpumask.h>
#include <linux/llist.h>
#include <linux/mmzone.h>
#include <linux/slab.h>

#include "compat.h"
#include "lock.h"
#include "owner.h"
#include "pcpcache.h"
#include "pcpcache_trace.h"

struct pcpcache_owners pcpcache_owners;
DEFINE_STATIC_KEY_FALSE(pcpcache_routing);

static_assert(CONFIG_NR_CPUS < U16_MAX, "an owner entry is a u16");

/**
 * pcpcache_memory_span - the page frames the online nodes span
 * @start: the first
 * @end: one past the last
 *
 * Holes included: the owner and block tables index by page frame.
 *
 * Return: false when there is none.
 */
bool pcpcache_memory_span(unsigned long *start, unsigned long *end)
{
	int nid;

	*start = ULONG_MAX;
	*end = 0;
	for_each_online_node(nid) {
		*start = min(*start, node_start_pfn(nid));
		*end = max(*end, node_end_pfn(nid));
	}
	return *end > *start;
}

/**
 * pcpcache_owners_ready - allocate the owner table, once
 *
 * Called before remote or blocks mode is first put in force: under the
 * configuration mutex, or at load. Memory added later lies beyond the
 * table: its pages have no owner and are freed as in single mode. The
 * table's first allocation turns pcpcache_routing on.
 *
 * Context: process context; sleeps, and takes cpus_read_lock() (for the
 * static key): never with it held.
 *
 * Return: 0, or -ENOMEM with nothing changed.
 */
int pcpcache_owners_ready(void)
{
	unsigned long start, end;
	u16 *table;

	if (pcpcache_owners.cpu)
		return 0;
	if (!pcpcache_memory_span(&start, &end))
		return -ENOMEM;
	table = kvcalloc(end - start, sizeof(*table), GFP_KERNEL);
	if (!table)
		return -ENOMEM;
	pcpcache_owners.base = start;
	pcpcache_owners.len = end - start;
	/* the bounds before the table, for lockless readers */
	smp_store_release(&pcpcache_owners.cpu, table);
	/* synchronous: every CPU routes frees before any mode asks it to */
	static_branch_enable(&pcpcache_routing);
	return 0;
}

/* At unload, once no page can be allocated or freed any more. */
void pcpcache_owners_exit(void)
{
	kvfree(pcpcache_owners.cpu);
	pcpcache_owners.cpu = NULL;
}

/**
 * pcpcache_send_home - push a freed block onto its owner's transit list
 * @page: the block, with no reference left
 * @order: its order, below PCPCACHE_NR_ORDERS
 * @owner: the CPU it belongs to, not the one we run on
 *
 * Called with preemption off (see the top of this file). Safe in any
 * context: nothing here takes a lock.
 *
 * Return: PCPCACHE_SENT_HOME when it went; PCPCACHE_SENT_FULL when the
 * owner's cached pages and those in transit would pass its high and a
 * batch (the caller gives it to the buddy allocator, as the owner's drain
 * would); PCPCACHE_SENT_NOT when the caller keeps it: the owner is
 * offline, or the block's pageblock is isolated or CMA.
 */
enum pcpcache_sent pcpcache_send_home(struct page *page, unsigned int order,
				      int owner)
{
	struct pcpcache_transit *t;
	struct pcpcache_list *list;
	struct pcpcache_cpu *pc;

	if (owner >= nr_cpu_ids || !cpu_online(owner) ||
	    pcpcache_page_block_refused(page))
		return PCPCACHE_SENT_NOT;
	pc = per_cpu_ptr(&pcpcache_cpus, owner);
	t = &pc->transit;
	list = &pc->mag.lists[PCPCACHE_LIST_HOT];
	/* the owner's pages, cached and coming, stay within high and a batch */
	if (atomic_read(&t->pages) + READ_ONCE(list->count) + (1U << order) >
	    READ_ONCE(list->high) + READ_ONCE(list->batch))
		return PCPCACHE_SENT_FULL;
	/* the order rides along; a transit block is never clean */
	set_page_private(page, order);
	/* counted first, so that an absorber never takes more than counted */
	atomic_add(1U << order, &t->pages);
	llist_add((struct llist_node *)&page->lru, &t->blocks);
	pcpcache_count(PCPCACHE_REMOTE_FREES, 1U << order);
	trace_pcpcache_remote_free(smp_processor_id(), owner, order);
	return PCPCACHE_SENT_HOME;
}

/**
 * pcpcache_transit_take - take everything on a CPU's transit list
 * @cpu: the CPU
 * @cut: where the blocks go, by order, newest first
 * @settle: no longer count them in transit; else pcpcache_transit_settle()
 *	    does, once they are in the magazine, so that pushes meanwhile
 *	    find the owner's room as it is (an absorb)
 *
 * From any CPU: llist_del_all() may race with pushes and other takers.
 * Walks the list, so call it without a magazine's lock.
 *
 * Return: the base pages taken.
 */
unsigned int pcpcache_transit_take(int cpu, struct pcpcache_cut *cut,
				   bool settle)
{
	struct pcpcache_transit *t = &per_cpu_ptr(&pcpcache_cpus, cpu)->transit;
	struct llist_node *node, *next;
	unsigned int nr = 0, order;
	struct page *page;

	if (llist_empty(&t->blocks))
		return 0;
	node = llist_del_all(&t->blocks);
	llist_for_each_safe(node, next, node) {
		page = list_entry((struct list_head *)node, struct page, lru);
		order = page_private(page);
		set_page_private(page, 0);
		list_add_tail(&page->lru, &cut->pages[order]);
		nr += 1U << order;
	}
	cut->count += nr;
	if (settle)
		pcpcache_transit_settle(cpu, nr);
	return nr;
}

/* @nr pages taken from @cpu's transit list are where they go now. */
void pcpcache_transit_settle(int cpu, unsigned int nr)
{
	atomic_sub(nr, &per_cpu_ptr(&pcpcache_cpus, cpu)->transit.pages);
	pcpcache_count(PCPCACHE_REMOTE_ABSORBED, nr);
}

/* The base pages on @cpu's transit list, read without taking it. */
unsigned int pcpcache_cpu_transit(int cpu)
{
	return max(atomic_read(&per_cpu_ptr(&pcpcache_cpus, cpu)->transit.pages), 0);
}

/* The pages in transit to the CPUs of a node, or of all. */
unsigned long pcpcache_transit_pages(int nid)
{
	return pcpcache_sum_cpus(nid, pcpcache_cpu_transit);
}
