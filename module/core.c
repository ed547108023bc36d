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
#include <linux/export.h>
#include <linux/highmem.h>
#include <linux/memcontrol.h>
#include <linux/mempolicy.h>
#include <linux/mm.h>
#include <linux/page_ref.h>
#include <linux/random.h>
#include <linux/sched/mm.h>
#include <linux/pcpcache.h>

#include "compat.h"
#include "lock.h"
#include "pcpcache.h"

DEFINE_PER_CPU_ALIGNED(struct pcpcache_cpu, pcpcache_cpus) = {
	.llock = INIT_LOCAL_LOCK(llock),
};

DEFINE_STATIC_KEY_FALSE(pcpcache_lock_spin);

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

/* Give pages back to the buddy allocator in one batch. */
void pcpcache_give_back(struct list_head *pages, unsigned int nr)
{
	struct page *page;

	if (!nr)
		return;
	/* cached pages have no reference: put_pages_list() drops one */
	list_for_each_entry(page, pages, lru)
		page_ref_unfreeze(page, 1);
	put_pages_list(pages);
	pcpcache_count(PCPCACHE_BUDDY_FREE, nr);
}

/* ... counted as a drain: over high, reconfigured, drained, CPU dead */
void pcpcache_give_back_drained(struct list_head *pages, unsigned int nr)
{
	if (!nr)
		return;
	pcpcache_give_back(pages, nr);
	pcpcache_count(PCPCACHE_DRAIN, 1);
	pcpcache_count(PCPCACHE_DRAIN_PAGES, nr);
}

/*
 * A page of another node than this CPU's is not cached: handing it out
 * here would give a caller remote memory. Call pinned, under the lock.
 */
static bool pcpcache_local_node(struct page *page)
{
	return page_to_nid(page) == numa_mem_id();
}

/* Move the pages of other nodes from @pages to @remote; how many. */
static unsigned int pcpcache_sort_out_remote(struct list_head *pages,
					     struct list_head *remote)
{
	struct page *page, *next;
	unsigned int nr = 0;

	list_for_each_entry_safe(page, next, pages, lru) {
		if (!pcpcache_local_node(page)) {
			list_move(&page->lru, remote);
			nr++;
		}
	}
	return nr;
}

/*
 * Cache the rest of a refill on the CPU we run on now, which is not
 * necessarily the one that missed, nor on the node the pages came from.
 * Every page of @pages has no reference left.
 */
static void pcpcache_stash(struct list_head *pages, unsigned int nr,
			   bool cold)
{
	unsigned int nr_out, nr_remote = 0;
	struct pcpcache_list *list;
	struct pcpcache_cpu *pc;
	unsigned long flags;
	LIST_HEAD(remote);
	LIST_HEAD(out);

	pc = pcpcache_lock_this_cpu(&flags);
	list = mag_list(&pc->mag, cold);
	if (list) {
		nr_remote = pcpcache_sort_out_remote(pages, &remote);
		/* the batch may be from before a reconfiguration: cut to high */
		mag_add_refill(list, pages, nr - nr_remote);
		nr_out = mag_trim_to_high(list, &out, PCPCACHE_MAX_BATCH);
	} else {
		/* switched to passthrough while we refilled */
		list_splice_init(pages, &out);
		nr_out = nr;
	}
	pcpcache_unlock_this_cpu(pc, flags);

	pcpcache_give_back_drained(&out, nr_out);
	pcpcache_give_back(&remote, nr_remote);
	pcpcache_count(PCPCACHE_REMOTE_NODE, nr_remote);
}

/*
 * Percentage of refills made to get fewer pages than asked, some none at
 * all, to test what happens when the buddy allocator runs short (Debian's
 * kernels have no fail_page_alloc). The "fault_refill" debugfs file.
 */
unsigned int pcpcache_fault_refill;

static unsigned int pcpcache_inject_fault(gfp_t gfp, unsigned int batch)
{
	unsigned int percent = READ_ONCE(pcpcache_fault_refill);

	if (likely(!percent) || get_random_u32_below(100) >= percent)
		return batch;
	/* a caller that must not fail is not made to */
	if (gfp & __GFP_NOFAIL)
		return batch;
	pcpcache_count(PCPCACHE_FAULT_INJECTED, 1);
	/* half of them get nothing, the others a random part */
	return get_random_u32_below(2) ? 0 : get_random_u32_below(batch);
}

/* page->private of a cached page that is still as the buddy allocator left it */
#define PCPCACHE_PAGE_CLEAN	1UL

/*
 * Ready the pages of a refill for the cache: note whether the buddy
 * allocator cleared them, and drop their reference. A page someone took a
 * speculative reference to in the meantime is given back instead: the
 * last reference frees it. Return: how many are left on @pages.
 */
static unsigned int pcpcache_prep_refill(struct list_head *pages,
					 unsigned int nr, gfp_t refill_gfp)
{
	unsigned long clean = want_init_on_alloc(refill_gfp) || want_init_on_free() ?
			      PCPCACHE_PAGE_CLEAN : 0;
	struct page *page, *next;

	list_for_each_entry_safe(page, next, pages, lru) {
		if (unlikely(!page_ref_freeze(page, 1))) {
			list_del(&page->lru);
			put_page(page);
			pcpcache_count(PCPCACHE_BUDDY_FREE, 1);
			nr--;
			continue;
		}
		set_page_private(page, clean);
	}
	return nr;
}

/*
 * Take @batch pages from the buddy allocator in one go, with interrupts on,
 * keep one for the caller and cache the others. The refill never dips into
 * the emergency reserves (__GFP_NOMEMALLOC): a page from them must go back
 * to the buddy allocator when freed, and a list node overwrites the mark
 * that says so.
 */
static struct page *pcpcache_refill(gfp_t gfp, bool cold, unsigned int batch)
{
	gfp_t refill_gfp = (gfp & ~__GFP_ZERO) | __GFP_NOMEMALLOC;
	struct page *page;
	unsigned int nr;
	LIST_HEAD(pages);

	nr = batch ? pcpcache_bulk_alloc(refill_gfp, batch, &pages) : 0;
	if (!nr)
		return NULL;
	pcpcache_count(PCPCACHE_REFILL, 1);
	pcpcache_count(PCPCACHE_REFILL_PAGES, nr);
	pcpcache_count(PCPCACHE_BUDDY_ALLOC, nr);

	page = list_first_entry(&pages, struct page, lru);
	list_del(&page->lru);
	nr = pcpcache_prep_refill(&pages, nr - 1, refill_gfp);
	if (nr)
		pcpcache_stash(&pages, nr, cold);

	/* fresh from the buddy allocator: cleared there under init_on_alloc */
	if ((gfp & __GFP_ZERO) && !want_init_on_alloc(refill_gfp)) {
		clear_highpage(page);
		pcpcache_count(PCPCACHE_ALLOC_ZEROED, 1);
	}
	return page;
}

static struct page *pcpcache_alloc_buddy(gfp_t gfp)
{
	struct page *page = alloc_page(gfp);

	if (page)
		pcpcache_count(PCPCACHE_BUDDY_ALLOC, 1);
	return page;
}

/*
 * A cached page may still hold its last user's data: clear it whenever the
 * buddy allocator would have handed out a cleared page. A page that came
 * with a refill and was never handed out is still as the buddy allocator
 * left it, cleared under init_on_alloc or init_on_free: its page->private,
 * ours while it is cached, says so, and spares clearing it twice.
 */
static noinline void pcpcache_clear_cached(struct page *page)
{
	clear_highpage(page);
	pcpcache_count(PCPCACHE_ALLOC_ZEROED, 1);
}

static void pcpcache_prep_cached(struct page *page, gfp_t gfp)
{
	bool clean = page_private(page) == PCPCACHE_PAGE_CLEAN;

	set_page_private(page, 0);
	page_ref_unfreeze(page, 1);
	if (unlikely(!clean && (want_init_on_alloc(gfp) || want_init_on_free())))
		pcpcache_clear_cached(page);
}

/* The batch a refill of this CPU's list for @cold takes; 0 in passthrough. */
static unsigned int pcpcache_refill_batch(bool cold)
{
	struct pcpcache_list *list;
	struct pcpcache_cpu *pc;
	unsigned long flags;
	unsigned int batch;

	pc = pcpcache_lock_this_cpu(&flags);
	list = mag_list(&pc->mag, cold);
	batch = list ? list->batch : 0;
	pcpcache_unlock_this_cpu(pc, flags);
	return batch;
}

/*
 * The magazine had nothing for us: refill it, or pass through. A refill
 * that failed without the emergency reserves is followed by an allocation
 * of the caller's own, which may use them if the caller may; one that
 * fault_refill cut short is not, as the buddy allocator ran short.
 */
static noinline struct page *pcpcache_alloc_miss(gfp_t gfp, bool cold)
{
	unsigned int batch = pcpcache_refill_batch(cold), allowed;
	struct page *page = NULL;

	if (batch) {
		allowed = pcpcache_inject_fault(gfp, batch);
		page = pcpcache_refill(gfp, cold, allowed);
		if (!page && allowed == batch)
			page = pcpcache_alloc_buddy(gfp);
	} else {
		page = pcpcache_alloc_buddy(gfp);
	}
	if (!page) {
		pcpcache_count(PCPCACHE_ALLOC_FAIL, 1);
		return NULL;
	}
	pcpcache_count(PCPCACHE_ALLOC_MISS, 1);
	if (cold)
		pcpcache_count(PCPCACHE_ALLOC_COLD, 1);
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

	if (!node_isset(nid, current->mems_allowed))
		return true;
	if (!pol)
		return false;
	switch (pol->mode) {
	case MPOL_PREFERRED:
		return first_node(pol->nodes) != nid;
	case MPOL_BIND:
	case MPOL_PREFERRED_MANY:
		return !node_isset(nid, pol->nodes);
	case MPOL_INTERLEAVE:
		return true;
	default:
		return false;
	}
}

/* Called pinned, under the lock; one test on a machine of one node. */
static bool pcpcache_placement_allowed(void)
{
	int nid;

	if (nr_node_ids == 1 || !in_task())
		return true;
	nid = numa_mem_id();
	if (likely(!current->mempolicy && node_isset(nid, current->mems_allowed)))
		return true;
	return !pcpcache_task_excludes_node(nid);
}

/* Send a caller the magazine must not serve to the buddy allocator. */
static noinline struct page *pcpcache_alloc_placed(gfp_t gfp, bool cold)
{
	pcpcache_count(PCPCACHE_ALLOC_POLICY, 1);
	return pcpcache_alloc_miss(gfp, cold);
}

/*
 * A page memory_failure() marked while it was cached is never handed out:
 * the buddy allocator keeps a poisoned page it is given for good.
 */
static noinline void pcpcache_drop_poisoned(struct page *page)
{
	LIST_HEAD(pages);

	set_page_private(page, 0);
	list_add(&page->lru, &pages);
	pcpcache_give_back(&pages, 1);
	pcpcache_count(PCPCACHE_REFUSED_HWPOISON, 1);
}

/*
 * The rules that bind callers, in every design and mode: those of the page
 * allocator (include/linux/pcpcache.h).
 */
static void pcpcache_check_context(gfp_t gfp)
{
	might_alloc(gfp);
	/* PREEMPT_RT: the lock sleeps, so no hard interrupt context */
	lockdep_assert(!IS_ENABLED(CONFIG_PREEMPT_RT) || !in_hardirq());
}

/*
 * The fast path is kept small and free of calls: a hit costs the lock,
 * two list pointers, the page's flags, which share its cache line, and
 * two counters.
 */
struct page *pcpcache_alloc_page(gfp_t gfp, bool cold)
{
	struct pcpcache_cpu *pc;
	struct list_head *node;
	unsigned long flags;
	struct page *page;
	bool placed;

	if (WARN_ON_ONCE(gfp & PCPCACHE_GFP_REFUSED))
		return NULL;
	pcpcache_check_context(gfp);

	for (;;) {
		if (pcpcache_passing_through())
			return pcpcache_alloc_miss(gfp, cold);
		node = NULL;
		pc = pcpcache_lock_this_cpu(&flags);
		placed = pcpcache_placement_allowed();
		if (likely(placed))
			node = mag_take(&pc->mag, cold);
		pcpcache_unlock_this_cpu(pc, flags);
		if (unlikely(!placed))
			return pcpcache_alloc_placed(gfp, cold);
		if (unlikely(!node))
			return pcpcache_alloc_miss(gfp, cold);
		page = list_entry(node, struct page, lru);
		if (likely(!PageHWPoison(page)))
			break;
		pcpcache_drop_poisoned(page);
	}

	pcpcache_prep_cached(page, gfp);
	pcpcache_count(PCPCACHE_ALLOC_HIT, 1);
	if (cold)
		pcpcache_count(PCPCACHE_ALLOC_COLD, 1);
	return page;
}
EXPORT_SYMBOL_GPL(pcpcache_alloc_page);

/*
 * Why a freed page may not be cached: the counter that says so, or
 * PCPCACHE_NR_STATS when it may. Read before the list node overwrites
 * page->lru, which holds the compound and pfmemalloc marks.
 */
static enum pcpcache_stat pcpcache_refusal(struct page *page)
{
	if (unlikely(PageCompound(page)))
		return PCPCACHE_REFUSED_COMPOUND;
	if (unlikely(PageHWPoison(page)))
		return PCPCACHE_REFUSED_HWPOISON;
	/* page_pool's rule: a page from the emergency reserves goes back */
	if (unlikely(page_is_pfmemalloc(page)))
		return PCPCACHE_REFUSED_PFMEMALLOC;
	/* CMA pages serve only movable allocations, isolated ones none */
	if (unlikely(pcpcache_page_block_refused(page)))
		return PCPCACHE_REFUSED_BLOCK;
	/* not from a zone every caller may be given, or charged to a cgroup */
	if (unlikely(page_zonenum(page) > ZONE_NORMAL || PageMemcgKmem(page)))
		return PCPCACHE_REFUSED_OTHER;
	return PCPCACHE_NR_STATS;
}

static noinline void pcpcache_free_buddy(struct page *page)
{
	__free_page(page);
	pcpcache_count(PCPCACHE_BUDDY_FREE, 1);
}

/* put_page() frees a compound page whole, whatever its order */
static noinline void pcpcache_free_refused(struct page *page,
					   enum pcpcache_stat why)
{
	put_page(page);
	pcpcache_count(PCPCACHE_BUDDY_FREE, 1);
	pcpcache_count(why, 1);
}

/* A free took this CPU's list for @cold over high: give a batch back. */
static noinline void pcpcache_trim_local(bool cold)
{
	struct pcpcache_list *list;
	struct pcpcache_cpu *pc;
	unsigned int nr = 0;
	unsigned long flags;
	LIST_HEAD(out);

	/* maybe not the CPU of the free: then its list is trimmed if need be */
	pc = pcpcache_lock_this_cpu(&flags);
	list = mag_list(&pc->mag, cold);
	if (list)
		nr = mag_trim(list, &out);
	pcpcache_unlock_this_cpu(pc, flags);

	pcpcache_give_back_drained(&out, nr);
}

void pcpcache_free_page(struct page *page, bool cold)
{
	struct pcpcache_list *list = NULL;
	enum pcpcache_stat refusal;
	struct pcpcache_cpu *pc;
	unsigned long flags;
	bool remote, over;

	pcpcache_count(PCPCACHE_FREE, 1);
	if (cold)
		pcpcache_count(PCPCACHE_FREE_COLD, 1);

	if (unlikely(pcpcache_passing_through())) {
		pcpcache_free_buddy(page);
		return;
	}
	refusal = pcpcache_refusal(page);
	if (unlikely(refusal != PCPCACHE_NR_STATS)) {
		pcpcache_free_refused(page, refusal);
		return;
	}
	/* another holder of a reference frees the page when it lets go */
	if (unlikely(!page_ref_freeze(page, 1))) {
		pcpcache_free_refused(page, PCPCACHE_REFUSED_OTHER);
		return;
	}

	/* whatever the user left there, the page is not clean */
	set_page_private(page, 0);
	pc = pcpcache_lock_this_cpu(&flags);
	remote = !pcpcache_local_node(page);
	if (likely(!remote))
		list = mag_put(&pc->mag, &page->lru, cold);
	over = list && mag_over_high(list);
	pcpcache_unlock_this_cpu(pc, flags);

	if (unlikely(!list)) {
		page_ref_unfreeze(page, 1);
		pcpcache_free_buddy(page);
		if (remote)
			pcpcache_count(PCPCACHE_REMOTE_NODE, 1);
	} else if (unlikely(over)) {
		pcpcache_trim_local(cold);
	}
}
EXPORT_SYMBOL_GPL(pcpcache_free_page);
