// SPDX-License-Identifier: GPL-2.0
/*
 * pcpcache core: the fast path. The exported allocation API takes pages
 * from and gives them to the magazine of the CPU it runs on; a miss
 * refills the magazine from the buddy allocator, a free over high gives a
 * batch back.
 *
 * Locking: each magazine is locked as lock.h says, by the owning CPU only
 * on this path. Interrupts are off only for list operations: pages go to
 * and come from the buddy allocator outside the lock (a drain cuts them
 * onto a private list first, a refill fills one and splices it in
 * afterwards), and no list walk under the lock is longer than
 * PCPCACHE_MAX_BATCH pages. Passthrough peeks at the mode without the
 * lock: a stale answer is harmless, the buddy allocator is always a
 * correct place to get a page from or give one back to.
 *
 * A cached page has a reference count of 0, as a page on the kernel's own
 * per-CPU lists has: speculative references (get_page_unless_zero()) fail
 * on it, and memory offlining and memory_failure() see it as free rather
 * than in use. It gets its reference back when it is handed out or given
 * back.
 *
 * Counters are per-CPU this_cpu_add()s and need no lock (stats.h).
 */
#include <linux/cpuset.h>
#include <linux/export.h>
#include <linux/highmem.h>
#include <linux/irq_work.h>
#include <linux/llist.h>
#include <linux/memcontrol.h>
#include <linux/mempolicy.h>
#include <linux/mm.h>
#include <linux/page_ref.h>
#include <linux/random.h>
#include <linux/sched/mm.h>
#include <linux/workqueue.h>
#include <linux/pcpcache.h>

#include "barn.h"
#include "blocks.h"
#include "compat.h"
#include "lock.h"
#include "owner.h"
#include "pcpcache.h"
#include "pcpcache_trace.h"

/*
 * The cache holds pages any GFP_KERNEL or GFP_ATOMIC caller may be given:
 * order 0, from ZONE_NORMAL or below, not charged to a memory cgroup.
 */
#define PCPCACHE_GFP_REFUSED	(__GFP_DMA | __GFP_DMA32 | __GFP_HIGHMEM | \
				 __GFP_MOVABLE | __GFP_ACCOUNT | __GFP_COMP)

/*
 * A lockless look at this CPU's mode, to send passthrough traffic straight
 * to the buddy allocator; a caching mode is checked again under the lock.
 */
static bool pcpcache_passing_through(void)
{
	return this_cpu_read(pcpcache_cpus.mag.mode) ==
	       PCPCACHE_MODE_PASSTHROUGH;
}

/*
 * The same look for remote and blocks modes, whose frees may go to another
 * CPU.
 */
static __always_inline bool pcpcache_routing_frees(void)
{
	return static_branch_unlikely(&pcpcache_routing) &&
	       mag_routes_frees(this_cpu_read(pcpcache_cpus.mag.mode));
}

/* ... and for blocks mode, whose refills of order 0 come from blocks */
static __always_inline bool pcpcache_cutting_blocks(void)
{
	return this_cpu_read(pcpcache_cpus.mag.mode) == PCPCACHE_MODE_BLOCKS;
}

/* Whether a magazine notes the owner of what it caches; under its lock. */
static __always_inline bool pcpcache_owner_noted(const struct pcpcache_mag *mag)
{
	return static_branch_unlikely(&pcpcache_routing) &&
	       mag_routes_frees(mag->mode);
}

/*
 * Whether blocks freed elsewhere wait on this CPU's transit list: in any
 * mode, as a free may have seen remote mode just before a switch. A hint,
 * read unpinned.
 */
static __always_inline bool pcpcache_transit_waiting(void)
{
	return static_branch_unlikely(&pcpcache_routing) &&
	       !llist_empty(&raw_cpu_ptr(&pcpcache_cpus)->transit.blocks);
}

/*
 * A page of another node than this CPU's is not cached: handing it out
 * here would give a caller remote memory. Call pinned, under the lock.
 */
static bool pcpcache_local_node(struct page *page)
{
	return page_to_nid(page) == numa_mem_id();
}

/*
 * Move the blocks that may not be cached here from @pages: those of other
 * nodes to @remote, those of CMA or isolated pageblocks to @refused; note
 * @owner, unless -1, as the owner of the others (remote mode). How many
 * moved. Called under the lock, which orders the pageblock check against a
 * drain for memory going offline.
 */
static unsigned int pcpcache_sort_out(struct list_head *pages,
				      unsigned int order, int owner,
				      struct pcpcache_cut *remote,
				      struct pcpcache_cut *refused)
{
	struct pcpcache_cut *to;
	struct page *page, *next;
	unsigned int nr = 0;

	list_for_each_entry_safe(page, next, pages, lru) {
		if (!pcpcache_local_node(page)) {
			to = remote;
		} else if (unlikely(pcpcache_page_block_refused(page))) {
			to = refused;
		} else {
			if (owner >= 0)
				pcpcache_owner_claim(page, owner);
			continue;
		}
		list_move(&page->lru, &to->pages[order]);
		to->count += 1U << order;
		nr++;
	}
	return nr;
}

/*
 * Cache the rest of a refill on the CPU we run on now, which is not
 * necessarily the one that missed, nor on the node the pages came from;
 * or blocks absorbed from its transit list, which may take the list over
 * high (@trim false) as an absorb does in van Riel's series: the next
 * local free over high trims it. Every block of @pages has no reference
 * left.
 */
static void pcpcache_stash(struct list_head *pages, unsigned int order,
			   unsigned int nr, bool cold, bool trim)
{
	enum pcpcache_drain_why why = PCPCACHE_DRAIN_HIGH;
	struct pcpcache_cut out, remote, refused;
	struct pcpcache_list *list;
	struct pcpcache_cpu *pc;
	unsigned long flags;
	int cpu;

	mag_cut_init(&out);
	mag_cut_init(&remote);
	mag_cut_init(&refused);
	pc = pcpcache_lock_this_cpu(&flags);
	if (unlikely(!pc)) {
		/* lock=trylock, and the lock is held: back they go */
		pcpcache_lock_failed();
		list_splice_init(pages, &out.pages[order]);
		out.count = nr << order;
		pcpcache_give_back(&out);
		return;
	}
	cpu = smp_processor_id();
	list = mag_list(&pc->mag, cold);
	if (list) {
		nr -= pcpcache_sort_out(pages, order,
					pcpcache_owner_noted(&pc->mag) ? cpu : -1,
					&remote, &refused);
		mag_add_refill(list, order, pages, nr);
		/*
		 * The batch may be from before a reconfiguration: cut to high,
		 * within what a refill's walk may add to the sort's.
		 */
		if (trim)
			mag_trim_refill(&pc->mag, list, &out,
					PCPCACHE_MAX_BATCH - min(nr, PCPCACHE_MAX_BATCH));
	} else {
		/* switched to passthrough while we refilled */
		list_splice_init(pages, &out.pages[order]);
		out.count = nr << order;
		why = PCPCACHE_DRAIN_RECONFIG;
	}
	pcpcache_unlock_this_cpu(pc, flags);

	pcpcache_give_back_drained(&out, cpu, why);
	pcpcache_give_back_drained(&remote, cpu, PCPCACHE_DRAIN_REMOTE);
	pcpcache_count(PCPCACHE_REFUSED_BLOCK, refused.count);
	pcpcache_give_back(&refused);
}

/*
 * Take this CPU's transit list into its magazine, as the rest of a refill
 * is but without cutting it to high: in steps of at most PCPCACHE_MAX_BATCH
 * blocks, each walked under the lock by pcpcache_stash(). After a switch
 * to another mode they are cached there all the same, or, in passthrough,
 * given back.
 */
static noinline void pcpcache_absorb(void)
{
	int cpu = raw_smp_processor_id();
	unsigned int order, nr, taken;
	struct page *page, *next;
	struct pcpcache_cut in;
	LIST_HEAD(step);

	mag_cut_init(&in);
	taken = pcpcache_transit_take(cpu, &in, false);
	if (!taken)
		return;
	for (order = 0; order < PCPCACHE_NR_ORDERS; order++) {
		nr = 0;
		list_for_each_entry_safe(page, next, &in.pages[order], lru) {
			list_move_tail(&page->lru, &step);
			if (++nr < PCPCACHE_MAX_BATCH)
				continue;
			pcpcache_stash(&step, order, nr, false, false);
			INIT_LIST_HEAD(&step);
			nr = 0;
		}
		if (nr) {
			pcpcache_stash(&step, order, nr, false, false);
			INIT_LIST_HEAD(&step);
		}
	}
	/* counted in transit until now: pushes meanwhile saw them there */
	pcpcache_transit_settle(cpu, taken);
}

/*
 * Percentage of refills made to get fewer pages than asked, some none at
 * all, to test what happens when the buddy allocator runs short (Debian's
 * kernels have no fail_page_alloc). The "fault_refill" debugfs file.
 */
unsigned int pcpcache_fault_refill;

static unsigned int pcpcache_inject_fault(gfp_t gfp, unsigned int order,
					  unsigned int batch)
{
	unsigned int percent = READ_ONCE(pcpcache_fault_refill);

	if (likely(!percent) || get_random_u32_below(100) >= percent)
		return batch;
	/*
	 * Only what fail_page_alloc fails with its defaults: never a caller
	 * that must not fail, nor an order-0 allocation that may block and
	 * did not ask to fail early, which the page allocator retries until
	 * it gets a page or kills (a page fault's, which VM_FAULT_OOM would
	 * send round again).
	 */
	if (gfp & __GFP_NOFAIL)
		return batch;
	if (!order && (gfp & __GFP_DIRECT_RECLAIM) &&
	    !(gfp & (__GFP_NORETRY | __GFP_RETRY_MAYFAIL)))
		return batch;
	pcpcache_count(PCPCACHE_FAULT_INJECTED, 1);
	/* half of them get nothing, the others a random part */
	return get_random_u32_below(2) ? 0 : get_random_u32_below(batch);
}

/*
 * Ready the blocks of a refill for the cache: note whether the buddy
 * allocator cleared them, and drop their reference. A block someone took a
 * speculative reference to in the meantime is given back instead: the
 * last reference frees it. Return: how many are left on @pages.
 */
static unsigned int pcpcache_prep_refill(struct list_head *pages,
					 unsigned int order, unsigned int nr,
					 gfp_t refill_gfp)
{
	unsigned long clean = want_init_on_alloc(refill_gfp) || want_init_on_free() ?
			      PCPCACHE_PAGE_CLEAN : 0;
	struct page *page, *next;

	list_for_each_entry_safe(page, next, pages, lru) {
		if (unlikely(!page_ref_freeze(page, 1))) {
			list_del(&page->lru);
			__free_pages(page, order);
			pcpcache_count(PCPCACHE_BUDDY_FREE, 1U << order);
			nr--;
			continue;
		}
		set_page_private(page, clean);
	}
	return nr;
}

/*
 * Take @nr blocks of @order from the buddy allocator onto @pages, with
 * interrupts on; how many came. The first may make the buddy allocator
 * work for it as the caller's mask allows; the others are taken only if
 * they are there, as alloc_pages_bulk() does, which serves order 0.
 */
static unsigned int pcpcache_take_blocks(gfp_t gfp, unsigned int order,
					 unsigned int nr, struct list_head *pages)
{
	struct page *page;
	unsigned int got;

	if (!order)
		return pcpcache_bulk_alloc(gfp, nr, pages);
	for (got = 0; got < nr; got++) {
		page = alloc_pages(gfp, order);
		if (!page)
			break;
		list_add_tail(&page->lru, pages);
		gfp = pcpcache_gfp_opportunistic(gfp);
	}
	return got;
}

/* Clear the 2^@order pages of a block. */
static void pcpcache_clear_block(struct page *page, unsigned int order)
{
	unsigned int i;

	for (i = 0; i < 1U << order; i++)
		clear_highpage(page + i);
	pcpcache_count(PCPCACHE_ALLOC_ZEROED, 1U << order);
}

static struct page *pcpcache_alloc_buddy(gfp_t gfp, unsigned int order)
{
	struct page *page = alloc_pages(gfp, order);

	if (page)
		pcpcache_count(PCPCACHE_BUDDY_ALLOC, 1U << order);
	return page;
}

/*
 * Whether the current task may not have a page of node @nid at all: its
 * cpuset leaves the node out, or its policy binds it to other nodes. A
 * preferred or interleaving policy still falls back to any node, as the
 * page allocator does when the nodes it names run short.
 */
static bool pcpcache_node_forbidden(int nid)
{
	struct mempolicy *pol;

	if (nr_node_ids == 1 || !in_task())
		return false;
	if (!node_isset(nid, cpuset_current_mems_allowed))
		return true;
	pol = current->mempolicy;
	return pol && pol->mode == MPOL_BIND && !node_isset(nid, pol->nodes);
}

static struct page *pcpcache_refilled_from_blocks(struct page *page,
						  gfp_t gfp);

/*
 * Take @batch blocks from the buddy allocator in one go, with interrupts on,
 * keep one for the caller and cache the others. The refill never dips into
 * the emergency reserves (__GFP_NOMEMALLOC): a page from them must go back
 * to the buddy allocator when freed, and a list node overwrites the mark
 * that says so. Nor does it warn when it fails (__GFP_NOWARN): the
 * caller's own allocation follows, which warns if the caller wants it to.
 */
static struct page *pcpcache_refill(gfp_t gfp, unsigned int order, bool cold,
				    unsigned int batch)
{
	gfp_t refill_gfp = (gfp & ~__GFP_ZERO) | __GFP_NOMEMALLOC | __GFP_NOWARN;
	struct page *page;
	unsigned int nr = 0;
	bool cut = false;
	LIST_HEAD(pages);

	if (batch && !order && pcpcache_cutting_blocks()) {
		nr = pcpcache_blocks_refill(refill_gfp, batch, &pages);
		cut = nr;
	}
	if (!nr && batch) {
		nr = pcpcache_take_blocks(refill_gfp, order, batch, &pages);
		pcpcache_count(PCPCACHE_BUDDY_ALLOC, nr << order);
	}
	if (!nr)
		return NULL;
	pcpcache_count(PCPCACHE_REFILL, 1);
	pcpcache_count(PCPCACHE_REFILL_PAGES, nr << order);
	pcpcache_count(PCPCACHE_ORDER_REFILL + order, 1);
	trace_pcpcache_refill(raw_smp_processor_id(), order, batch << order,
			      nr << order, cold);

	page = list_first_entry(&pages, struct page, lru);
	list_del(&page->lru);
	if (cut) {
		/* from blocks: ready for the cache already, and maybe not clean */
		nr--;
	} else {
		nr = pcpcache_prep_refill(&pages, order, nr - 1, refill_gfp);
	}
	if (nr)
		pcpcache_stash(&pages, order, nr, cold, true);
	if (cut)
		return pcpcache_refilled_from_blocks(page, gfp);

	/*
	 * The bulk allocator falls back to one page from the page allocator
	 * without the task's policy, of any node when this one runs short: a
	 * page of a node the task is bound away from goes back, and the
	 * caller's own alloc_pages() applies its policy.
	 */
	if (unlikely(pcpcache_node_forbidden(page_to_nid(page)))) {
		__free_pages(page, order);
		pcpcache_count(PCPCACHE_BUDDY_FREE, 1U << order);
		pcpcache_count(PCPCACHE_ALLOC_POLICY, 1);
		return pcpcache_alloc_buddy(gfp, order);
	}
	/* fresh from the buddy allocator: cleared there under init_on_* */
	if ((gfp & __GFP_ZERO) && !want_init_on_alloc(refill_gfp) &&
	    !want_init_on_free())
		pcpcache_clear_block(page, order);
	return page;
}

/*
 * A cached block may still hold its last user's data: clear it whenever the
 * buddy allocator would have handed out a cleared one. A block that came
 * with a refill and was never handed out is still as the buddy allocator
 * left it, cleared under init_on_alloc or init_on_free: its page->private,
 * ours while it is cached, says so, and spares clearing it twice.
 */
static noinline void pcpcache_clear_cached(struct page *page,
					   unsigned int order)
{
	pcpcache_clear_block(page, order);
}

static __always_inline void pcpcache_prep_cached(struct page *page,
						 unsigned int order, gfp_t gfp)
{
	bool clean = page_private(page) == PCPCACHE_PAGE_CLEAN;

	set_page_private(page, 0);
	page_ref_unfreeze(page, 1);
	if (unlikely(!clean && (want_init_on_alloc(gfp) || want_init_on_free())))
		pcpcache_clear_cached(page, order);
}

/*
 * The caller's page of a refill from blocks, which is as a cached one: it
 * may have been handed out before. A task bound away from this CPU's node
 * gets one of its policy's instead; a page whose pageblock was isolated
 * since the block was split (memory going offline) goes back, as a hit
 * gives back such a cached page.
 */
static void pcpcache_drop_cached(struct page *page, unsigned int order,
				 enum pcpcache_stat why);

static struct page *pcpcache_refilled_from_blocks(struct page *page,
						  gfp_t gfp)
{
	if (unlikely(pcpcache_node_forbidden(page_to_nid(page)))) {
		pcpcache_drop_cached(page, 0, PCPCACHE_ALLOC_POLICY);
		return pcpcache_alloc_buddy(gfp, 0);
	}
	if (unlikely(pcpcache_page_block_refused(page))) {
		pcpcache_drop_cached(page, 0, PCPCACHE_REFUSED_BLOCK);
		return pcpcache_alloc_buddy(gfp, 0);
	}
	pcpcache_prep_cached(page, 0, gfp);
	return page;
}

/**
 * pcpcache_high_moved - count and trace a move of an auto-tuned high
 * @cpu: the magazine's CPU
 * @old: its high before
 * @new: and after
 * @why: PCPCACHE_HIGH_GREW, PCPCACHE_HIGH_DECAYED or PCPCACHE_HIGH_CUT
 */
void pcpcache_high_moved(int cpu, unsigned int old, unsigned int new,
			 enum pcpcache_stat why)
{
	pcpcache_count(why, 1);
	trace_pcpcache_high_change(cpu, old, new, why);
}

/*
 * The blocks of @order a refill of this CPU's list for @cold takes; 0 in
 * passthrough. A refill of the hot list raises an auto-tuned high.
 */
static unsigned int pcpcache_refill_batch(unsigned int order, bool cold)
{
	struct pcpcache_list *list;
	struct pcpcache_cpu *pc;
	unsigned long flags;
	unsigned int batch, old = 0, new = 0;
	bool grew = false;
	int cpu;

	pc = pcpcache_lock_this_cpu(&flags);
	if (unlikely(!pc)) {
		/* lock=trylock, and the lock is held: the buddy allocator */
		pcpcache_lock_failed();
		return 0;
	}
	cpu = smp_processor_id();
	list = mag_list(&pc->mag, cold);
	batch = list ? mag_batch(list->batch, order) : 0;
	if (list == &pc->mag.lists[PCPCACHE_LIST_HOT]) {
		old = list->high;
		grew = mag_high_grow(&pc->mag);
		new = list->high;
	}
	pcpcache_unlock_this_cpu(pc, flags);
	if (grew)
		pcpcache_high_moved(cpu, old, new, PCPCACHE_HIGH_GREW);
	return batch;
}

/*
 * Count a block handed out from the buddy allocator. In remote mode this
 * CPU owns it, as it owns the rest of the refill: a free elsewhere sends
 * it here.
 */
static void pcpcache_count_miss(struct page *page, unsigned int order,
				bool cold)
{
	if (pcpcache_routing_frees())
		pcpcache_owner_claim(page, raw_smp_processor_id());
	pcpcache_count(PCPCACHE_ALLOC_MISS, 1U << order);
	if (order < PCPCACHE_NR_ORDERS)
		pcpcache_count(PCPCACHE_ORDER_MISS + order, 1);
	if (cold)
		pcpcache_count(PCPCACHE_ALLOC_COLD, 1U << order);
}

/*
 * This CPU's magazine, locked, has no block of @order: in barn mode, the
 * spare or a barn's full magazine takes main's place under the same hold,
 * and a block of it is taken (NULL: none, or another mode).
 */
static noinline struct list_head *pcpcache_barn_take(struct pcpcache_mag *mag,
						     unsigned int order,
						     bool cold)
{
	if (mag->mode != PCPCACHE_MODE_BARN || !pcpcache_barn_refill(mag, order))
		return NULL;
	return mag_take(mag, order, cold);
}

/*
 * The magazine had nothing for us: refill it, or pass through; blocks
 * larger than the magazines keep come from the buddy allocator. A refill
 * that failed without the emergency reserves is followed by an allocation
 * of the caller's own, which may use them if the caller may; one that
 * fault_refill cut short is not, as the buddy allocator ran short.
 */
static noinline struct page *pcpcache_alloc_miss(gfp_t gfp, unsigned int order,
						 bool cold)
{
	unsigned int batch = 0, allowed;
	struct page *page = NULL;

	/*
	 * A caller that must not fail goes to the page allocator with its own
	 * mask: the reserves it may be given there (an OOM victim's) are
	 * what a refill, without them, would keep from it.
	 */
	if (order < PCPCACHE_NR_ORDERS && !(gfp & __GFP_NOFAIL))
		batch = pcpcache_refill_batch(order, cold);
	if (batch) {
		allowed = pcpcache_inject_fault(gfp, order, batch);
		page = pcpcache_refill(gfp, order, cold, allowed);
		if (!page && allowed == batch)
			page = pcpcache_alloc_buddy(gfp, order);
	} else {
		page = pcpcache_alloc_buddy(gfp, order);
	}
	if (!page) {
		pcpcache_count(PCPCACHE_ALLOC_FAIL, 1);
		return NULL;
	}
	pcpcache_count_miss(page, order, cold);
	return page;
}

/*
 * Whether the page allocator would give this caller a page of this CPU's
 * node, as every cached page is: not when the task's cpuset leaves the
 * node out, nor when its memory policy prefers, interleaves over or binds
 * to other nodes. Interrupts run under no task's policy.
 */
static noinline bool pcpcache_task_excludes_node(int nid)
{
	struct mempolicy *pol = current->mempolicy;

	if (!node_isset(nid, cpuset_current_mems_allowed))
		return true;
	if (!pol)
		return false;
	switch (pol->mode) {
	case MPOL_DEFAULT:
	case MPOL_LOCAL:
		return false;
	case MPOL_PREFERRED:
		return first_node(pol->nodes) != nid;
	case MPOL_BIND:
	case MPOL_PREFERRED_MANY:
		return !node_isset(nid, pol->nodes);
	default:
		/* interleaving, weighted (6.9) or not, and any mode to come */
		return true;
	}
}

static noinline bool pcpcache_task_may_use_node(void)
{
	int nid = numa_mem_id();

	if (likely(!current->mempolicy && node_isset(nid, cpuset_current_mems_allowed)))
		return true;
	return !pcpcache_task_excludes_node(nid);
}

/* Called pinned, under the lock; one test on a machine of one node. */
static __always_inline bool pcpcache_placement_allowed(void)
{
	if (nr_node_ids == 1 || !in_task())
		return true;
	return pcpcache_task_may_use_node();
}

/*
 * Send a caller the magazine must not serve to alloc_pages(), which
 * applies its memory policy; not through a refill, whose bulk allocation
 * does not.
 */
static noinline struct page *pcpcache_alloc_placed(gfp_t gfp, unsigned int order,
						   bool cold)
{
	struct page *page = pcpcache_alloc_buddy(gfp, order);

	pcpcache_count(PCPCACHE_ALLOC_POLICY, 1);
	if (!page) {
		pcpcache_count(PCPCACHE_ALLOC_FAIL, 1);
		return NULL;
	}
	pcpcache_count_miss(page, order, cold);
	return page;
}

/* lock=trylock: the lock was held; the buddy allocator serves this one. */
static noinline struct page *pcpcache_alloc_contended(gfp_t gfp,
						      unsigned int order,
						      bool cold)
{
	struct page *page = pcpcache_alloc_buddy(gfp, order);

	if (!page) {
		pcpcache_count(PCPCACHE_ALLOC_FAIL, 1);
		return NULL;
	}
	pcpcache_count_miss(page, order, cold);
	return page;
}

/*
 * A cached block that may not be handed out goes back to the buddy
 * allocator, counted in @why: one memory_failure() marked while it was
 * cached (the buddy allocator keeps a poisoned page it is given for
 * good), or one of a pageblock isolated meanwhile (memory going offline,
 * alloc_contig_range()), whose free pages must reach the isolated lists.
 */
static noinline void pcpcache_drop_cached(struct page *page,
					  unsigned int order,
					  enum pcpcache_stat why)
{
	struct pcpcache_cut cut;

	mag_cut_init(&cut);
	set_page_private(page, 0);
	list_add(&page->lru, &cut.pages[order]);
	cut.count = 1U << order;
	pcpcache_give_back(&cut);
	pcpcache_count(why, 1U << order);
}

/*
 * The rules that bind callers, in every design and mode: those of the page
 * allocator (include/linux/pcpcache.h). On PREEMPT_RT the lock sleeps, so
 * no hard interrupt context.
 */
static __always_inline void pcpcache_check_free_context(void)
{
	lockdep_assert(!IS_ENABLED(CONFIG_PREEMPT_RT) || !in_hardirq());
}

static __always_inline void pcpcache_check_context(gfp_t gfp)
{
	might_alloc(gfp);
	pcpcache_check_free_context();
}

/*
 * The fast path is kept small and free of calls: a hit costs the lock,
 * two list pointers, the page's flags (for order 0 in the cache line of
 * the list node; a block of order n reads 2^n struct pages) and a few
 * counters. Inlined into both exported functions, so that the order-0 one
 * is built for order 0.
 */
static __always_inline struct page *pcpcache_alloc(gfp_t gfp, unsigned int order,
						   bool cold)
{
	struct pcpcache_cpu *pc;
	struct list_head *node;
	unsigned long flags;
	struct page *page;
	bool placed, isolated;

	if (WARN_ON_ONCE(gfp & PCPCACHE_GFP_REFUSED))
		return NULL;
	pcpcache_check_context(gfp);
	if (unlikely(order >= PCPCACHE_NR_ORDERS))
		return pcpcache_alloc_miss(gfp, order, cold);
	if (unlikely(pcpcache_transit_waiting()))
		pcpcache_absorb();

	for (;;) {
		if (pcpcache_passing_through())
			return pcpcache_alloc_miss(gfp, order, cold);
		node = NULL;
		isolated = false;
		pc = pcpcache_lock_this_cpu(&flags);
		if (unlikely(!pc)) {
			pcpcache_lock_failed();
			return pcpcache_alloc_contended(gfp, order, cold);
		}
		placed = pcpcache_placement_allowed();
		if (likely(placed)) {
			node = mag_take(&pc->mag, order, cold);
			if (unlikely(!node))
				node = pcpcache_barn_take(&pc->mag, order, cold);
		}
		/*
		 * Under the lock, as a free checks it: from the isolation of
		 * a range until the drain that follows reaches this CPU, a
		 * page of it may still be here. One test of the zone when it
		 * has no isolated pageblock.
		 */
		if (node)
			isolated = pcpcache_page_block_refused(list_entry(node, struct page, lru));
		pcpcache_unlock_this_cpu(pc, flags);
		if (unlikely(!placed))
			return pcpcache_alloc_placed(gfp, order, cold);
		if (unlikely(!node))
			return pcpcache_alloc_miss(gfp, order, cold);
		page = list_entry(node, struct page, lru);
		if (unlikely(isolated)) {
			pcpcache_drop_cached(page, order, PCPCACHE_REFUSED_BLOCK);
			continue;
		}
		if (likely(!pcpcache_block_poisoned(page, order)))
			break;
		pcpcache_drop_cached(page, order, PCPCACHE_REFUSED_HWPOISON);
	}

	pcpcache_prep_cached(page, order, gfp);
	/* alloc_hit is derived on read, from orderN_hit */
	pcpcache_count(PCPCACHE_ORDER_HIT + order, 1);
	if (cold)
		pcpcache_count(PCPCACHE_ALLOC_COLD, 1U << order);
	return page;
}

struct page *pcpcache_alloc_pages(gfp_t gfp, unsigned int order, bool cold)
{
	return pcpcache_alloc(gfp, order, cold);
}
EXPORT_SYMBOL_GPL(pcpcache_alloc_pages);

struct page *pcpcache_alloc_page(gfp_t gfp, bool cold)
{
	return pcpcache_alloc(gfp, 0, cold);
}
EXPORT_SYMBOL_GPL(pcpcache_alloc_page);

/*
 * The rules a freed block must pass to be cached, each word they test
 * read once, as free_page_is_bad() tests PAGE_FLAGS_CHECK_AT_FREE: the
 * flags (a head, a poisoned page, the zone), compound_head, which shares
 * its word with the list node (bit 0 a tail, bit 1 a page of the emergency
 * reserves), and the memory cgroup's word. pcpcache_refusal_why() says
 * which rule a refused block broke.
 */
static __always_inline bool pcpcache_page_plain(struct page *page)
{
	/* memory_failure() may set PG_hwpoison meanwhile */
	unsigned long flags = pcpcache_page_flags(page);

	if (flags & (1UL << PG_head | __PG_HWPOISON))
		return false;
	if (((flags >> ZONES_PGSHIFT) & ZONES_MASK) > ZONE_NORMAL)
		return false;
	if (pcpcache_page_first_word(page) & 3)
		return false;
#ifdef CONFIG_MEMCG
	/* free_page_is_bad()'s rule: charged to a cgroup in any way */
	if (READ_ONCE(page->memcg_data))
		return false;
#endif
	return true;
}

/*
 * The counter of the rule a block pcpcache_page_plain() refused broke;
 * refused_other when none does any more (a page unpoisoned meanwhile), so
 * that a block is cached only when both agree.
 */
static noinline enum pcpcache_stat
pcpcache_refusal_why(struct page *page, unsigned int order)
{
	if (PageCompound(page))
		return PCPCACHE_REFUSED_COMPOUND;
	if (pcpcache_block_poisoned(page, order))
		return PCPCACHE_REFUSED_HWPOISON;
	/* page_pool's rule: a page from the emergency reserves goes back */
	if (page_is_pfmemalloc(page))
		return PCPCACHE_REFUSED_PFMEMALLOC;
	/* not from a zone every caller may be given, charged to a cgroup */
	return PCPCACHE_REFUSED_OTHER;
}

/*
 * Why a freed block may not be cached: the counter that says so, or
 * PCPCACHE_NR_STATS when it may. Read before the list node overwrites
 * page->lru, which holds the compound and pfmemalloc marks. CMA and
 * isolated pageblocks are checked under the lock (pcpcache_free()).
 */
static __always_inline enum pcpcache_stat
pcpcache_refusal(struct page *page, unsigned int order)
{
	if (likely(pcpcache_page_plain(page) &&
		   (!order || !pcpcache_block_poisoned(page, order))))
		return PCPCACHE_NR_STATS;
	return pcpcache_refusal_why(page, order);
}

static noinline void pcpcache_free_buddy(struct page *page, unsigned int order)
{
	pcpcache_free_block(page, order);
	pcpcache_count(PCPCACHE_BUDDY_FREE, 1U << order);
}

/* A compound page is freed whole by put_page(), whatever its order. */
static noinline void pcpcache_free_refused(struct page *page,
					   unsigned int order,
					   enum pcpcache_stat why)
{
	if (PageCompound(page))
		put_page(page);
	else
		pcpcache_free_block(page, order);
	pcpcache_count(PCPCACHE_BUDDY_FREE, 1U << order);
	pcpcache_count(why, 1U << order);
}

/*
 * A free took this CPU's list over high and holds its lock: cut a batch
 * off (in barn mode, exchange the main magazine) under the same hold,
 * unlock, and give back what was cut.
 */
static noinline void pcpcache_trim_and_unlock(struct pcpcache_cpu *pc,
					      unsigned long flags,
					      struct pcpcache_list *list,
					      unsigned int order)
	__releases(&pcpcache_cpus.llock)
{
	int cpu = smp_processor_id();
	struct pcpcache_cut out;

	mag_cut_init(&out);
	if (pc->mag.mode == PCPCACHE_MODE_BARN)
		pcpcache_barn_overflow(&pc->mag, order, &out);
	else
		mag_trim(list, order, &out);
	pcpcache_unlock_this_cpu(pc, flags);

	pcpcache_give_back_drained(&out, cpu, PCPCACHE_DRAIN_HIGH);
}

/* A freed block of another node than this CPU's was not cached. */
static noinline void pcpcache_freed_remote(unsigned int order)
{
	pcpcache_count_drained(raw_smp_processor_id(), 1U << order,
			       PCPCACHE_DRAIN_REMOTE);
}

/*
 * remote mode: send a block another CPU owns home. Preemption stays off
 * from the look at the owner to the push (owner.c says why).
 */
static __always_inline enum pcpcache_sent
pcpcache_free_to_owner(struct page *page, unsigned int order)
{
	enum pcpcache_sent sent = PCPCACHE_SENT_NOT;
	int owner;

	preempt_disable();
	owner = pcpcache_owner(page);
	if (owner >= 0 && owner != smp_processor_id())
		sent = pcpcache_send_home(page, order, owner);
	preempt_enable();
	return sent;
}

/*
 * Its owner had no room: where the owner's drain would send it, home to
 * its block (blocks mode) or to the buddy allocator.
 */
static noinline void pcpcache_free_overflow(struct page *page,
					    unsigned int order)
{
	pcpcache_count(PCPCACHE_REMOTE_OVERFLOW, 1U << order);
	if (!order && pcpcache_blocks_return(page))
		return;
	page_ref_unfreeze(page, 1);
	pcpcache_free_buddy(page, order);
}

static __always_inline void pcpcache_free(struct page *page, unsigned int order,
					  bool cold)
{
	struct pcpcache_list *list = NULL;
	enum pcpcache_stat refusal;
	bool remote, block;
	struct pcpcache_cpu *pc;
	unsigned long flags;

	pcpcache_check_free_context();
	if (cold)
		pcpcache_count(PCPCACHE_FREE_COLD, 1U << order);
	/* free is derived on read: orderN_free, and here what is larger */
	if (unlikely(order >= PCPCACHE_NR_ORDERS)) {
		pcpcache_count(PCPCACHE_FREE, 1U << order);
		pcpcache_free_buddy(page, order);
		return;
	}
	pcpcache_count(PCPCACHE_ORDER_FREE + order, 1);

	if (unlikely(pcpcache_passing_through())) {
		pcpcache_free_buddy(page, order);
		return;
	}
	refusal = pcpcache_refusal(page, order);
	if (unlikely(refusal != PCPCACHE_NR_STATS)) {
		pcpcache_free_refused(page, order, refusal);
		return;
	}
	/* another holder of a reference frees the page when it lets go */
	if (unlikely(!page_ref_freeze(page, 1))) {
		/* none at all: freed twice, maybe cached already */
		if (WARN_ON_ONCE(!page_ref_count(page)))
			return;
		pcpcache_free_refused(page, order, PCPCACHE_REFUSED_OTHER);
		return;
	}

	/* whatever the user left there, the block is not clean */
	set_page_private(page, 0);
	if (unlikely(pcpcache_routing_frees())) {
		switch (pcpcache_free_to_owner(page, order)) {
		case PCPCACHE_SENT_HOME:
			return;
		case PCPCACHE_SENT_FULL:
			pcpcache_free_overflow(page, order);
			return;
		default:
			break;
		}
	}
	pc = pcpcache_lock_this_cpu(&flags);
	if (unlikely(!pc)) {
		/* lock=trylock, and the lock is held: to the buddy allocator */
		pcpcache_lock_failed();
		page_ref_unfreeze(page, 1);
		pcpcache_free_buddy(page, order);
		return;
	}
	remote = !pcpcache_local_node(page);
	/* under the lock, which orders it against a drain for offlining */
	block = !remote && pcpcache_page_block_refused(page);
	if (likely(!remote && !block))
		list = mag_put(&pc->mag, &page->lru, order, cold);
	if (list && pcpcache_owner_noted(&pc->mag))
		pcpcache_owner_claim(page, smp_processor_id());
	if (unlikely(list && mag_over_high(list))) {
		/* lock=trylock saved no interrupt state: pass none */
		pcpcache_trim_and_unlock(pc, pcpcache_try_design() ? 0 : flags,
					 list, order);
		return;
	}
	pcpcache_unlock_this_cpu(pc, flags);

	if (unlikely(!list)) {
		page_ref_unfreeze(page, 1);
		pcpcache_free_buddy(page, order);
		if (remote)
			pcpcache_freed_remote(order);
		if (block)
			pcpcache_count(PCPCACHE_REFUSED_BLOCK, 1U << order);
	}
}

void pcpcache_free_pages(struct page *page, unsigned int order, bool cold)
{
	pcpcache_free(page, order, cold);
}
EXPORT_SYMBOL_GPL(pcpcache_free_pages);

void pcpcache_free_page(struct page *page, bool cold)
{
	pcpcache_free(page, 0, cold);
}
EXPORT_SYMBOL_GPL(pcpcache_free_page);

/*
 * The _nolock() calls: this CPU's magazine by trylock only, from any
 * context, NMI included, as alloc_pages_nolock() and free_pages_nolock()
 * (6.15, 6.16) take the kernel's lists. Never the buddy allocator, which
 * NMI context may not call: an allocation the magazine cannot serve
 * fails, and a free it cannot take is left to an irq_work on this CPU,
 * which frees it as pcpcache_free_page() would (counted in
 * nolock_deferred). A free that takes the list over high cuts a batch off
 * under the lock it holds, as pcpcache_free() does, and leaves the batch
 * to the same irq_work to give back: however many such frees come in a
 * row, the magazine stays within high. Under lock=local there is no lock to try: every
 * allocation fails and every free is left to the irq_work. On
 * PREEMPT_RT, where the lock sleeps, hard interrupt and NMI context are
 * refused the same way, as the kernel's calls refuse them.
 *
 * On PREEMPT_RT an irq_work not marked hard runs in the CPU's irq_work
 * thread, which is parked before the CPU dies: one queued late would
 * never run, and irq_work_sync() at unload would wait for it for good. So
 * there the irq_work is a hard one, run by a dying CPU too, and only
 * queues a work item (whose lock may sleep) that does the freeing; a
 * work item of a CPU gone down runs on another. Whatever is still on a
 * dead CPU's list, pcpcache_cpu_dead() frees.
 */
struct pcpcache_deferred {
	struct llist_head pages;	/* through page->lru, as transit's */
	atomic_t nr;			/* base pages on @pages: the audit's */
	struct irq_work work;
	struct work_struct rt_work;	/* PREEMPT_RT: what work queues */
	int cpu;
};

static DEFINE_PER_CPU(struct pcpcache_deferred, pcpcache_deferred);

/*
 * Each deferred page carries in page->private what to do with it: the
 * counter of the refusal pcpcache_refusal() found before the list node
 * overwrote page->lru (its compound and pfmemalloc marks), or
 * PCPCACHE_NR_STATS for a page pcpcache_free() may take as any other; or,
 * from PCPCACHE_DEFERRED_CUT up, a block of order (that - it) cut off the
 * magazine over high, without a reference, counted as drained when given
 * back.
 */
#define PCPCACHE_DEFERRED_CUT	(PCPCACHE_NR_STATS + 1)

/* Free what @d holds, in the irq_work of @cpu, whose magazine cut it. */
static void pcpcache_deferred_run(struct pcpcache_deferred *d, int cpu)
{
	struct llist_node *node, *next;
	struct pcpcache_cut cut;
	unsigned int taken = 0;
	unsigned long why;
	struct page *page;

	mag_cut_init(&cut);
	llist_for_each_safe(node, next, llist_del_all(&d->pages)) {
		page = list_entry((struct list_head *)node, struct page, lru);
		why = page_private(page);
		set_page_private(page, 0);
		if (why >= PCPCACHE_DEFERRED_CUT) {
			why -= PCPCACHE_DEFERRED_CUT;
			list_add_tail(&page->lru, &cut.pages[why]);
			cut.count += 1U << why;
			taken += 1U << why;
			continue;
		}
		taken++;
		if (why == PCPCACHE_NR_STATS) {
			pcpcache_free(page, 0, false);
			continue;
		}
		pcpcache_count(PCPCACHE_ORDER_FREE, 1);
		pcpcache_free_refused(page, 0, why);
	}
	/* off the list and on their way: the audit reads again meanwhile */
	atomic_sub(taken, &d->nr);
	pcpcache_give_back_drained(&cut, cpu, PCPCACHE_DRAIN_HIGH);
}

static void pcpcache_deferred_work(struct irq_work *work)
{
	struct pcpcache_deferred *d = container_of(work, struct pcpcache_deferred,
						   work);

	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		queue_work_on(d->cpu, pcpcache_system_percpu_wq, &d->rt_work);
	else
		pcpcache_deferred_run(d, d->cpu);
}

static void pcpcache_deferred_rt_work(struct work_struct *work)
{
	struct pcpcache_deferred *d = container_of(work, struct pcpcache_deferred,
						   rt_work);

	pcpcache_deferred_run(d, d->cpu);
}

/* A page a _nolock() free cannot take now, with its reference: later. */
static void pcpcache_defer_free(struct page *page, enum pcpcache_stat why)
{
	struct pcpcache_deferred *d;

	set_page_private(page, why);
	/* the list and the work of one CPU, whoever calls */
	preempt_disable();
	d = this_cpu_ptr(&pcpcache_deferred);
	atomic_inc(&d->nr);
	llist_add((struct llist_node *)&page->lru, &d->pages);
	irq_work_queue(&d->work);
	preempt_enable();
	pcpcache_count(PCPCACHE_NOLOCK_DEFERRED, 1);
}

/*
 * What a _nolock() free cut off this CPU's magazine, over high: for the
 * irq_work to give back. Called pinned, under the magazine's lock, which
 * keeps the work this CPU's.
 */
static void pcpcache_defer_cut(struct pcpcache_cut *cut)
{
	struct pcpcache_deferred *d = this_cpu_ptr(&pcpcache_deferred);
	struct page *page, *next;
	unsigned int order;

	for (order = 0; order < PCPCACHE_NR_ORDERS; order++) {
		list_for_each_entry_safe(page, next, &cut->pages[order], lru) {
			set_page_private(page, PCPCACHE_DEFERRED_CUT + order);
			atomic_add(1 << order, &d->nr);
			llist_add((struct llist_node *)&page->lru, &d->pages);
		}
	}
	irq_work_queue(&d->work);
}

/* At load, before any page can be freed. */
void pcpcache_deferred_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct pcpcache_deferred *d = per_cpu_ptr(&pcpcache_deferred, cpu);

		init_llist_head(&d->pages);
		atomic_set(&d->nr, 0);
		if (IS_ENABLED(CONFIG_PREEMPT_RT))
			d->work = IRQ_WORK_INIT_HARD(pcpcache_deferred_work);
		else
			init_irq_work(&d->work, pcpcache_deferred_work);
		INIT_WORK(&d->rt_work, pcpcache_deferred_rt_work);
		d->cpu = cpu;
	}
}

/* Every CPU's deferred frees done: at unload, before the last drain. */
void pcpcache_deferred_sync(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct pcpcache_deferred *d = per_cpu_ptr(&pcpcache_deferred, cpu);

		irq_work_sync(&d->work);
		if (IS_ENABLED(CONFIG_PREEMPT_RT))
			flush_work(&d->rt_work);
	}
}

/* What was left to a CPU that died since: freed here, by the caller. */
void pcpcache_deferred_dead(int cpu)
{
	pcpcache_deferred_run(per_cpu_ptr(&pcpcache_deferred, cpu), cpu);
}

/**
 * pcpcache_deferred_audit - walk @cpu's deferred list, every CPU stopped
 * @cpu: the CPU
 * @a: what was found, added to: base pages walked (@a->walked), those of
 *     them cut off a magazine (@a->walked_cut: neither cached nor held,
 *     not yet given back; the rest are frees, still held), what the
 *     list's count says (@a->counted), and the lists whose walk and count
 *     differ (@a->wrong)
 *
 * A page off the list but not yet freed, a page put on another CPU's list
 * than the one that counted it, or a list its irq_work did not empty
 * makes this CPU's walk and count differ, even where the sums over every
 * CPU agree; the audit's reader reads again while a page is in flight,
 * and a list that lost or kept a page never settles.
 */
void pcpcache_deferred_audit(int cpu, struct pcpcache_deferred_audit *a)
{
	struct pcpcache_deferred *d = per_cpu_ptr(&pcpcache_deferred, cpu);
	struct llist_node *node;
	unsigned long why, nr = 0;
	struct page *page;

	llist_for_each(node, d->pages.first) {
		page = list_entry((struct list_head *)node, struct page, lru);
		why = page_private(page);
		if (why >= PCPCACHE_DEFERRED_CUT) {
			nr += 1UL << (why - PCPCACHE_DEFERRED_CUT);
			a->walked_cut += 1UL << (why - PCPCACHE_DEFERRED_CUT);
		} else {
			nr++;
		}
	}
	a->walked += nr;
	a->counted += atomic_read(&d->nr);
	if (nr != atomic_read(&d->nr))
		a->wrong++;
}

/*
 * This CPU's magazine by trylock, in any context; NULL when not, counted
 * as pcpcache_lock_this_cpu() counts it. Under lock=spin, an interrupt on
 * this CPU waits for the lock: interrupts stay off while it is held.
 */
static __always_inline struct pcpcache_cpu *
pcpcache_trylock_any(unsigned long *flags)
{
	bool irqs = !pcpcache_try_design() && !IS_ENABLED(CONFIG_PREEMPT_RT);
	struct pcpcache_cpu *pc;

	if (!pcpcache_spin_design() ||
	    (IS_ENABLED(CONFIG_PREEMPT_RT) && (in_nmi() || in_hardirq())))
		goto fail;
	/* pinned outside the interrupts off, so that unpinning may preempt */
	pcpcache_pin();
	if (irqs)
		local_irq_save(*flags);
	pc = this_cpu_ptr(&pcpcache_cpus);
	if (likely(spin_trylock(&pc->slock)))
		return pc;
	if (irqs)
		local_irq_restore(*flags);
	pcpcache_unpin();
	pcpcache_count_trylock_fail();
fail:
	/* for sparse, as pcpcache_lock_this_cpu() */
	__acquire(&pcpcache_cpus.llock);
	return NULL;
}

static __always_inline void pcpcache_untrylock_any(struct pcpcache_cpu *pc,
						   unsigned long flags)
{
	spin_unlock(&pc->slock);
	if (!pcpcache_try_design() && !IS_ENABLED(CONFIG_PREEMPT_RT))
		local_irq_restore(flags);
	pcpcache_unpin();
}

struct page *pcpcache_alloc_page_nolock(bool cold)
{
	struct list_head *node = NULL;
	struct pcpcache_cpu *pc;
	struct page *page = NULL;
	unsigned long flags;

	pc = pcpcache_trylock_any(&flags);
	if (!pc) {
		pcpcache_lock_failed();
		goto fail;
	}
	if (pcpcache_placement_allowed()) {
		node = mag_take(&pc->mag, 0, cold);
		/* the barn's lock is a trylock: any context may exchange */
		if (!node && pc->mag.mode == PCPCACHE_MODE_BARN &&
		    pcpcache_barn_refill(&pc->mag, 0))
			node = mag_take(&pc->mag, 0, cold);
	}
	if (node) {
		page = list_entry(node, struct page, lru);
		/*
		 * not to be handed out, nor given back here: the next normal
		 * call does; at the other end, where the next like this one
		 * does not look
		 */
		if (unlikely(pcpcache_page_block_refused(page) ||
			     PageHWPoison(page))) {
			mag_put(&pc->mag, node, 0, !cold);
			page = NULL;
		}
	}
	pcpcache_untrylock_any(pc, flags);
	if (!page)
		goto fail;
	pcpcache_prep_cached(page, 0, GFP_NOWAIT);
	pcpcache_count(PCPCACHE_ORDER_HIT, 1);
	if (cold)
		pcpcache_count(PCPCACHE_ALLOC_COLD, 1);
	return page;
fail:
	pcpcache_count(PCPCACHE_NOLOCK_FAIL, 1);
	return NULL;
}
EXPORT_SYMBOL_GPL(pcpcache_alloc_page_nolock);

void pcpcache_free_page_nolock(struct page *page)
{
	struct pcpcache_list *list = NULL;
	enum pcpcache_stat refusal;
	struct pcpcache_cpu *pc;
	struct pcpcache_cut out;
	unsigned long flags;

	/* what pcpcache_free() would give to the buddy allocator: later */
	refusal = pcpcache_refusal(page, 0);
	if (unlikely(refusal != PCPCACHE_NR_STATS)) {
		pcpcache_defer_free(page, refusal);
		return;
	}
	if (pcpcache_passing_through()) {
		pcpcache_defer_free(page, PCPCACHE_NR_STATS);
		return;
	}
	if (unlikely(!page_ref_freeze(page, 1))) {
		/* none at all: freed twice, maybe cached already */
		if (WARN_ON_ONCE(!page_ref_count(page)))
			return;
		pcpcache_defer_free(page, PCPCACHE_REFUSED_OTHER);
		return;
	}
	set_page_private(page, 0);
	if (pcpcache_routing_frees()) {
		switch (pcpcache_free_to_owner(page, 0)) {
		case PCPCACHE_SENT_HOME:
			goto freed;
		case PCPCACHE_SENT_FULL:
			/* the buddy allocator, later: not from here */
			page_ref_unfreeze(page, 1);
			pcpcache_defer_free(page, PCPCACHE_NR_STATS);
			return;
		default:
			break;
		}
	}
	pc = pcpcache_trylock_any(&flags);
	if (!pc) {
		pcpcache_lock_failed();
		page_ref_unfreeze(page, 1);
		pcpcache_defer_free(page, PCPCACHE_NR_STATS);
		return;
	}
	if (likely(pcpcache_local_node(page) &&
		   !pcpcache_page_block_refused(page)))
		list = mag_put(&pc->mag, &page->lru, 0, false);
	if (list && pcpcache_owner_noted(&pc->mag))
		pcpcache_owner_claim(page, smp_processor_id());
	/*
	 * Over high: a batch off now, as pcpcache_trim_and_unlock() cuts it, but
	 * given back by the irq_work, as the buddy allocator may not be
	 * called from here. A walk of at most a batch, as a trim's.
	 */
	if (list && unlikely(mag_over_high(list))) {
		mag_cut_init(&out);
		if (pc->mag.mode == PCPCACHE_MODE_BARN)
			pcpcache_barn_overflow(&pc->mag, 0, &out);
		else
			mag_trim(list, 0, &out);
		if (out.count)
			pcpcache_defer_cut(&out);
	}
	pcpcache_untrylock_any(pc, flags);
	if (!list) {
		page_ref_unfreeze(page, 1);
		pcpcache_defer_free(page, PCPCACHE_NR_STATS);
		return;
	}
freed:
	pcpcache_count(PCPCACHE_ORDER_FREE, 1);
}
EXPORT_SYMBOL_GPL(pcpcache_free_page_nolock);
