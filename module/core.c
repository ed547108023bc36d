// SPDX-License-Identifier: GPL-2.0
/*
 * pcpcache core: the per-CPU magazines, the exported allocation API and
 * reconfiguration while traffic runs.
 *
 * Locking:
 *
 * - pcpcache_cpu.lock protects that CPU's magazine: its lists, their counts
 *   and limits, and its mode. The owning CPU takes it on every allocation
 *   and free; other CPUs take it only to reconfigure or drain the
 *   magazine, so it is almost never contended. As in mm/page_alloc.c the
 *   task is pinned to its CPU while it looks up and locks its magazine
 *   (preempt_disable(), or migrate_disable() on PREEMPT_RT, where spinlock_t
 *   sleeps and must not be taken with preemption off).
 *
 * - The lock is taken with interrupts off so that a hardirq or softirq
 *   caller on the same CPU cannot interrupt a holder and spin on it. On
 *   PREEMPT_RT interrupts stay on and such callers run in threads, so, as
 *   with the page allocator itself, calls from hard interrupt context that
 *   is not threaded are not allowed there.
 *
 * - Interrupts are off only for list operations. Pages go to and come from
 *   the buddy allocator outside the lock: a drain cuts them onto a private
 *   list first, a refill fills one and splices it in afterwards, so a
 *   reconfiguration never stalls a CPU for longer than a list walk.
 *
 * - pcpcache_config_mutex serialises writers of the configuration. A new
 *   configuration is applied to one CPU at a time under that CPU's lock;
 *   each operation follows the configuration of the magazine it locked, so
 *   a CPU switched a moment later than another is never inconsistent with
 *   itself, and every CPU is switched by the time the write returns.
 *
 * - Counters are per-CPU this_cpu_add()s and need no lock (stats.h).
 */
#include <linux/cpumask.h>
#include <linux/export.h>
#include <linux/highmem.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/spinlock.h>
#include <linux/pcpcache.h>

#include "compat.h"
#include "pcpcache.h"

struct pcpcache_cpu {
	spinlock_t lock;		/* protects mag; see the top of the file */
	struct pcpcache_mag mag;
};

static DEFINE_PER_CPU_ALIGNED(struct pcpcache_cpu, pcpcache_cpus);

/* The module parameters point into it; written under the mutex only. */
struct pcpcache_config pcpcache_config = {
	.mode		= PCPCACHE_MODE_SINGLE,
	.batch		= PCPCACHE_DEFAULT_BATCH,
	.high		= PCPCACHE_DEFAULT_HIGH,
	.cold_batch	= PCPCACHE_DEFAULT_COLD_BATCH,
	.cold_high	= PCPCACHE_DEFAULT_COLD_HIGH,
};

static DEFINE_MUTEX(pcpcache_config_mutex);

/*
 * The cache holds pages any GFP_KERNEL or GFP_ATOMIC caller may be given:
 * order 0, from ZONE_NORMAL or below, not charged to a memory cgroup.
 */
#define PCPCACHE_GFP_REFUSED	(__GFP_DMA | __GFP_DMA32 | __GFP_HIGHMEM | \
				 __GFP_MOVABLE | __GFP_ACCOUNT | __GFP_COMP)

#ifndef CONFIG_PREEMPT_RT
#define pcpcache_pin()		preempt_disable()
#define pcpcache_unpin()	preempt_enable()
#else
#define pcpcache_pin()		migrate_disable()
#define pcpcache_unpin()	migrate_enable()
#endif

/* Macros rather than functions so that sparse sees each lock balanced. */
#define pcpcache_lock_local(flags)					\
({									\
	struct pcpcache_cpu *__pc;					\
									\
	pcpcache_pin();							\
	__pc = this_cpu_ptr(&pcpcache_cpus);				\
	spin_lock_irqsave(&__pc->lock, flags);				\
	__pc;								\
})

#define pcpcache_unlock_local(pc, flags)				\
do {									\
	spin_unlock_irqrestore(&(pc)->lock, flags);			\
	pcpcache_unpin();						\
} while (0)

/*
 * A lockless look at this CPU's mode, to send passthrough traffic straight
 * to the buddy allocator. A stale answer is harmless: the buddy allocator
 * is always a correct place to get a page from or give one back to, and
 * a caching mode is checked again under the lock.
 */
static bool pcpcache_passing_through(void)
{
	return this_cpu_read(pcpcache_cpus.mag.mode) ==
	       PCPCACHE_MODE_PASSTHROUGH;
}

static unsigned long pcpcache_limit(void)
{
	return pcpcache_max_per_cpu(totalram_pages(), num_possible_cpus());
}

/* Give pages back to the buddy allocator in one batch. */
static void pcpcache_give_back(struct list_head *pages, unsigned int nr)
{
	if (!nr)
		return;
	put_pages_list(pages);
	pcpcache_count(PCPCACHE_BUDDY_FREE, nr);
}

/* ... counted as a drain: over high, reconfigured, drained, CPU dead */
static void pcpcache_give_back_drained(struct list_head *pages,
				       unsigned int nr)
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

	pc = pcpcache_lock_local(flags);
	list = mag_list(&pc->mag, cold);
	if (list) {
		nr_remote = pcpcache_sort_out_remote(pages, &remote);
		/* the batch may be from before a reconfiguration: cut to high */
		mag_add_refill(list, pages, nr - nr_remote);
		nr_out = mag_trim_to_high(list, &out);
	} else {
		/* switched to passthrough while we refilled */
		list_splice_init(pages, &out);
		nr_out = nr;
	}
	pcpcache_unlock_local(pc, flags);

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

/* Note on each page of a refill whether the buddy allocator cleared it. */
static void pcpcache_mark_clean(struct list_head *pages, gfp_t refill_gfp)
{
	unsigned long clean = want_init_on_alloc(refill_gfp) || want_init_on_free() ?
			      PCPCACHE_PAGE_CLEAN : 0;
	struct page *page;

	list_for_each_entry(page, pages, lru)
		set_page_private(page, clean);
}

/*
 * Take @batch pages from the buddy allocator in one go, with interrupts on,
 * keep one for the caller and cache the others.
 */
static struct page *pcpcache_refill(gfp_t gfp, bool cold, unsigned int batch)
{
	gfp_t refill_gfp = gfp & ~__GFP_ZERO;
	struct page *page;
	unsigned int nr;
	LIST_HEAD(pages);

	batch = pcpcache_inject_fault(gfp, batch);
	nr = batch ? pcpcache_bulk_alloc(refill_gfp, batch, &pages) : 0;
	if (!nr)
		return NULL;
	pcpcache_count(PCPCACHE_REFILL, 1);
	pcpcache_count(PCPCACHE_REFILL_PAGES, nr);
	pcpcache_count(PCPCACHE_BUDDY_ALLOC, nr);

	page = list_first_entry(&pages, struct page, lru);
	list_del(&page->lru);
	if (nr > 1) {
		pcpcache_mark_clean(&pages, refill_gfp);
		pcpcache_stash(&pages, nr - 1, cold);
	}

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
static void pcpcache_prep_cached(struct page *page, gfp_t gfp)
{
	bool clean = page_private(page) == PCPCACHE_PAGE_CLEAN;

	set_page_private(page, 0);
	if (clean || !(want_init_on_alloc(gfp) || want_init_on_free()))
		return;
	clear_highpage(page);
	pcpcache_count(PCPCACHE_ALLOC_ZEROED, 1);
}

struct page *pcpcache_alloc_page(gfp_t gfp, bool cold)
{
	struct pcpcache_list *list;
	struct list_head *node = NULL;
	struct pcpcache_cpu *pc;
	unsigned int batch = 0;
	unsigned long flags;
	struct page *page;

	if (WARN_ON_ONCE(gfp & PCPCACHE_GFP_REFUSED))
		return NULL;

	if (!pcpcache_passing_through()) {
		pc = pcpcache_lock_local(flags);
		list = mag_list(&pc->mag, cold);
		if (list) {
			node = mag_take(&pc->mag, cold);
			batch = list->batch;
		}
		pcpcache_unlock_local(pc, flags);
	}

	if (node) {
		page = list_entry(node, struct page, lru);
		pcpcache_prep_cached(page, gfp);
		pcpcache_count(PCPCACHE_ALLOC_HIT, 1);
	} else {
		if (batch)
			page = pcpcache_refill(gfp, cold, batch);
		else
			page = pcpcache_alloc_buddy(gfp);
		if (!page) {
			pcpcache_count(PCPCACHE_ALLOC_FAIL, 1);
			return NULL;
		}
		pcpcache_count(PCPCACHE_ALLOC_MISS, 1);
	}
	if (cold)
		pcpcache_count(PCPCACHE_ALLOC_COLD, 1);
	return page;
}
EXPORT_SYMBOL_GPL(pcpcache_alloc_page);

/*
 * Only a page nobody else holds a reference to, from a zone every caller
 * may be given, not from the emergency reserves (page_pool's rule) and not
 * charged to a memory cgroup can be cached.
 */
static bool pcpcache_cacheable(struct page *page)
{
	return page_ref_count(page) == 1 && page_zonenum(page) <= ZONE_NORMAL &&
	       !page_is_pfmemalloc(page) && !PageMemcgKmem(page);
}

void pcpcache_free_page(struct page *page, bool cold)
{
	bool cached = false, remote = false;
	struct pcpcache_cpu *pc;
	unsigned int nr_out = 0;
	unsigned long flags;
	LIST_HEAD(out);

	pcpcache_count(PCPCACHE_FREE, 1);
	if (cold)
		pcpcache_count(PCPCACHE_FREE_COLD, 1);

	if (!pcpcache_passing_through() && pcpcache_cacheable(page)) {
		pc = pcpcache_lock_local(flags);
		remote = !pcpcache_local_node(page);
		/* whatever the user left there, the page is not clean */
		set_page_private(page, 0);
		if (!remote)
			cached = mag_put(&pc->mag, &page->lru, cold);
		if (cached)
			nr_out = mag_trim(mag_list(&pc->mag, cold), &out);
		pcpcache_unlock_local(pc, flags);
	}

	if (!cached) {
		__free_page(page);
		pcpcache_count(PCPCACHE_BUDDY_FREE, 1);
		if (remote)
			pcpcache_count(PCPCACHE_REMOTE_NODE, 1);
		return;
	}
	pcpcache_give_back_drained(&out, nr_out);
}
EXPORT_SYMBOL_GPL(pcpcache_free_page);

/* Apply @cfg to every CPU's magazine, one CPU at a time. */
static void pcpcache_apply(const struct pcpcache_config *cfg, bool drain)
{
	unsigned int nr_out;
	unsigned long flags;
	int cpu;

	lockdep_assert_held(&pcpcache_config_mutex);

	for_each_possible_cpu(cpu) {
		struct pcpcache_cpu *pc = per_cpu_ptr(&pcpcache_cpus, cpu);
		LIST_HEAD(out);

		spin_lock_irqsave(&pc->lock, flags);
		nr_out = mag_reconfigure(&pc->mag, cfg, &out);
		if (drain)
			nr_out += mag_drain(&pc->mag, &out);
		spin_unlock_irqrestore(&pc->lock, flags);

		pcpcache_give_back_drained(&out, nr_out);
		cond_resched();
	}
}

/* Check @cfg and put it in force, or change nothing. */
static int pcpcache_commit(const struct pcpcache_config *cfg)
{
	const char *bad;

	lockdep_assert_held(&pcpcache_config_mutex);

	bad = pcpcache_config_check(cfg, pcpcache_limit());
	if (bad)
		return -EINVAL;
	if (cfg->mode != pcpcache_config.mode)
		pcpcache_count(PCPCACHE_MODE_SWITCHES, 1);
	pcpcache_config = *cfg;
	pcpcache_apply(cfg, false);
	return 0;
}

/**
 * pcpcache_set_mode - switch every CPU to another mode
 * @mode: the new mode
 *
 * Return: 0, or -EINVAL for an unknown mode.
 */
int pcpcache_set_mode(enum pcpcache_mode mode)
{
	struct pcpcache_config cfg;
	int err;

	mutex_lock(&pcpcache_config_mutex);
	cfg = pcpcache_config;
	cfg.mode = mode;
	err = pcpcache_commit(&cfg);
	mutex_unlock(&pcpcache_config_mutex);
	return err;
}

/**
 * pcpcache_set_knob - change one of batch, high, cold_batch, cold_high
 * @knob: which one
 * @value: its new value
 *
 * Return: 0, or -EINVAL when the result would break a rule of
 * pcpcache_config_check(); then nothing changed.
 */
int pcpcache_set_knob(enum pcpcache_knob knob, unsigned int value)
{
	struct pcpcache_config cfg;
	int err;

	mutex_lock(&pcpcache_config_mutex);
	cfg = pcpcache_config;
	*pcpcache_knob(&cfg, knob) = value;
	err = pcpcache_commit(&cfg);
	mutex_unlock(&pcpcache_config_mutex);
	return err;
}

/**
 * pcpcache_set_config - put a whole configuration in force at once
 * @cfg: mode and every knob
 *
 * Return: 0, or -EINVAL when @cfg breaks a rule; then nothing changed.
 */
int pcpcache_set_config(const struct pcpcache_config *cfg)
{
	int err;

	mutex_lock(&pcpcache_config_mutex);
	err = pcpcache_commit(cfg);
	mutex_unlock(&pcpcache_config_mutex);
	return err;
}

/**
 * pcpcache_get_config - the configuration in force
 * @cfg: where to copy it
 */
void pcpcache_get_config(struct pcpcache_config *cfg)
{
	mutex_lock(&pcpcache_config_mutex);
	*cfg = pcpcache_config;
	mutex_unlock(&pcpcache_config_mutex);
}

/**
 * pcpcache_drain_all - give every CPU's cached pages back
 */
void pcpcache_drain_all(void)
{
	mutex_lock(&pcpcache_config_mutex);
	pcpcache_apply(&pcpcache_config, true);
	mutex_unlock(&pcpcache_config_mutex);
}

/**
 * pcpcache_drain_cpu - give one CPU's cached pages back
 * @cpu: the CPU, which may be offline
 */
void pcpcache_drain_cpu(int cpu)
{
	struct pcpcache_cpu *pc = per_cpu_ptr(&pcpcache_cpus, cpu);
	unsigned long flags;
	unsigned int nr;
	LIST_HEAD(out);

	spin_lock_irqsave(&pc->lock, flags);
	nr = mag_drain(&pc->mag, &out);
	spin_unlock_irqrestore(&pc->lock, flags);

	pcpcache_give_back_drained(&out, nr);
}

/**
 * pcpcache_shrink - give cached pages back because the kernel needs memory
 * @nr: how many to give back at most
 *
 * Every CPU gives an equal share, coldest pages first; then, if that was
 * not enough, whichever CPUs still have pages give the rest.
 *
 * Return: the number given back.
 */
unsigned long pcpcache_shrink(unsigned long nr)
{
	unsigned long share = DIV_ROUND_UP(nr, num_possible_cpus());
	unsigned long freed = 0;
	unsigned long flags;
	unsigned int got;
	int cpu, pass;

	for (pass = 0; pass < 2 && freed < nr; pass++) {
		for_each_possible_cpu(cpu) {
			struct pcpcache_cpu *pc = per_cpu_ptr(&pcpcache_cpus, cpu);
			unsigned long want = nr - freed;
			LIST_HEAD(out);

			if (!want)
				break;
			if (!pass)
				want = min(share, want);
			spin_lock_irqsave(&pc->lock, flags);
			got = mag_shrink(&pc->mag, want, &out);
			spin_unlock_irqrestore(&pc->lock, flags);

			pcpcache_give_back(&out, got);
			freed += got;
		}
	}
	pcpcache_count(PCPCACHE_SHRINK, 1);
	pcpcache_count(PCPCACHE_SHRINK_PAGES, freed);
	return freed;
}

/**
 * pcpcache_cpu_lists - a consistent copy of one CPU's lists
 * @cpu: the CPU
 * @lists: where to copy count, batch and high of each list
 *
 * Return: the CPU's mode.
 */
enum pcpcache_mode pcpcache_cpu_lists(int cpu, struct pcpcache_list *lists)
{
	struct pcpcache_cpu *pc = per_cpu_ptr(&pcpcache_cpus, cpu);
	enum pcpcache_mode mode;
	unsigned long flags;
	int i;

	spin_lock_irqsave(&pc->lock, flags);
	for (i = 0; i < PCPCACHE_NR_LISTS; i++) {
		lists[i].count = pc->mag.lists[i].count;
		lists[i].batch = pc->mag.lists[i].batch;
		lists[i].high = pc->mag.lists[i].high;
	}
	mode = pc->mag.mode;
	spin_unlock_irqrestore(&pc->lock, flags);
	return mode;
}

/**
 * pcpcache_cached_pages - pages in all magazines
 *
 * Return: the sum over every possible CPU, each read under its lock.
 */
unsigned long pcpcache_cached_pages(void)
{
	struct pcpcache_list lists[PCPCACHE_NR_LISTS];
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		pcpcache_cpu_lists(cpu, lists);
		sum += lists[PCPCACHE_LIST_HOT].count + lists[PCPCACHE_LIST_COLD].count;
	}
	return sum;
}

/**
 * pcpcache_core_init - check the load-time configuration, set up magazines
 *
 * Return: 0, or -EINVAL with the offending module parameter named in the
 * kernel log.
 */
int pcpcache_core_init(void)
{
	const struct pcpcache_config *cfg = &pcpcache_config;
	unsigned long limit = pcpcache_limit();
	const char *bad;
	int cpu;

	bad = pcpcache_config_check(cfg, limit);
	if (bad) {
		pr_err("invalid parameter %s: batch=%u high=%u cold_batch=%u cold_high=%u; need 1 <= batch <= high, 1 <= cold_batch <= cold_high, batches <= %u, high + cold_high <= %lu\n",
		       bad, cfg->batch, cfg->high, cfg->cold_batch,
		       cfg->cold_high, PCPCACHE_MAX_BATCH, limit);
		return -EINVAL;
	}

	for_each_possible_cpu(cpu) {
		struct pcpcache_cpu *pc = per_cpu_ptr(&pcpcache_cpus, cpu);

		spin_lock_init(&pc->lock);
		mag_init(&pc->mag, cfg);
	}
	return 0;
}

/**
 * pcpcache_core_exit - give every cached page back
 *
 * Nobody can allocate or free any more: users of the exported API and
 * open files hold a reference on the module.
 */
void pcpcache_core_exit(void)
{
	pcpcache_drain_all();
}
