// SPDX-License-Identifier: GPL-2.0
/*
 * pcpcache core: the per-CPU magazines, the exported allocation API and
 * reconfiguration while traffic runs.
 *
 * Locking:
 *
 * - pcpcache_cpu.lock, a local_lock_t, protects that CPU's magazine: its
 *   lists, their counts and limits, and its mode. Only the owning CPU ever
 *   takes it, as mm/page_alloc.c did before 6.0 (pagesets.lock): on a
 *   kernel without PREEMPT_RT it is local_irq_save() and nothing else, so
 *   an allocation or free that hits the magazine costs no atomic
 *   instruction. Interrupts are off so that a hardirq or softirq caller on
 *   the same CPU cannot run in the middle of a list operation. On
 *   PREEMPT_RT it is a per-CPU spinlock_t taken with migration disabled;
 *   interrupts stay on and such callers run in threads, so, as with the
 *   page allocator itself, calls from hard interrupt context that is not
 *   threaded are not allowed there.
 *
 * - Another CPU never touches the magazine of a CPU that is online. To
 *   reconfigure, drain or shrink it, it queues work on that CPU
 *   (pcpcache_remote_queue()), which takes the local lock there, and waits
 *   for it: the pre-6.0 drain_all_pages(). The workqueue has a rescuer,
 *   as the shrinker needs it under memory pressure, and high priority, so
 *   that a reconfiguration does not queue behind the CPU's other tasks. A
 *   CPU that is offline has no tasks: its magazine is changed directly,
 *   with CPU hotplug held off by cpus_read_lock(), or by the CPU-dead
 *   callback, which runs with hotplug's write side held.
 *
 * - Interrupts are off only for list operations. Pages go to and come from
 *   the buddy allocator outside the lock: a drain cuts them onto a private
 *   list first, a refill fills one and splices it in afterwards.
 *
 * - pcpcache_config_mutex serialises writers of the configuration, then
 *   cpus_read_lock(), then pcpcache_remote_mutex the users of the per-CPU
 *   work (reconfigurations, drains and the shrinker, which takes no
 *   hotplug lock). Each operation follows the configuration
 *   of the magazine it locked, so a CPU switched a moment later than
 *   another is never inconsistent with itself, and every CPU is switched
 *   by the time the write returns.
 *
 * - Readers of another CPU's counts (pagesets, the shrinker's count) read
 *   them without a lock, as /proc/zoneinfo reads the kernel's pcp counts:
 *   each value is one the magazine had, not a snapshot of all of them.
 *
 * - Counters are per-CPU this_cpu_add()s and need no lock (stats.h).
 */
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/export.h>
#include <linux/highmem.h>
#include <linux/local_lock.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/workqueue.h>
#include <linux/pcpcache.h>

#include "compat.h"
#include "pcpcache.h"

struct pcpcache_cpu {
	local_lock_t lock;		/* protects mag; see the top of the file */
	struct pcpcache_mag mag;
};

static DEFINE_PER_CPU_ALIGNED(struct pcpcache_cpu, pcpcache_cpus) = {
	.lock = INIT_LOCAL_LOCK(lock),
};

/*
 * What a CPU is asked to do to its own magazine: reconfigure it, then
 * drain it, or give back some pages. Written by the caller before the work
 * is queued and read by the work; shrunk the other way round.
 */
struct pcpcache_remote {
	struct work_struct work;
	const struct pcpcache_config *cfg;	/* reconfigure to this, or NULL */
	bool drain;				/* then give back every page */
	unsigned long shrink;			/* give back this many at most */
	unsigned long shrunk;			/* ... and how many that was */
};

static DEFINE_PER_CPU(struct pcpcache_remote, pcpcache_remotes);
static DEFINE_MUTEX(pcpcache_remote_mutex);	/* guards the two below */
static struct cpumask pcpcache_remote_queued;	/* CPUs whose request is out */
static struct workqueue_struct *pcpcache_wq;

/* The module parameters point into it; written under the mutex only. */
struct pcpcache_config pcpcache_config = {
	.mode		= PCPCACHE_MODE_SINGLE,
	.batch		= PCPCACHE_DEFAULT_BATCH,
	.high		= PCPCACHE_DEFAULT_HIGH,
	.cold_batch	= PCPCACHE_DEFAULT_COLD_BATCH,
	.cold_high	= PCPCACHE_DEFAULT_COLD_HIGH,
};

static DEFINE_MUTEX(pcpcache_config_mutex);
/* Bumped by every write put in force, under the mutex: tells writers apart. */
static unsigned long pcpcache_config_generation;

/*
 * The cache holds pages any GFP_KERNEL or GFP_ATOMIC caller may be given:
 * order 0, from ZONE_NORMAL or below, not charged to a memory cgroup.
 */
#define PCPCACHE_GFP_REFUSED	(__GFP_DMA | __GFP_DMA32 | __GFP_HIGHMEM | \
				 __GFP_MOVABLE | __GFP_ACCOUNT | __GFP_COMP)

/* This CPU's magazine; only under pcpcache_cpus.lock. */
#define pcpcache_local_mag()	this_cpu_ptr(&pcpcache_cpus.mag)

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

/* The bound on high + cold_high that pcpcache_config_check() applies. */
unsigned long pcpcache_limit(void)
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
	unsigned long flags;
	LIST_HEAD(remote);
	LIST_HEAD(out);

	local_lock_irqsave(&pcpcache_cpus.lock, flags);
	list = mag_list(pcpcache_local_mag(), cold);
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
	local_unlock_irqrestore(&pcpcache_cpus.lock, flags);

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
static noinline void pcpcache_clear_cached(struct page *page)
{
	clear_highpage(page);
	pcpcache_count(PCPCACHE_ALLOC_ZEROED, 1);
}

static void pcpcache_prep_cached(struct page *page, gfp_t gfp)
{
	bool clean = page_private(page) == PCPCACHE_PAGE_CLEAN;

	set_page_private(page, 0);
	if (unlikely(!clean && (want_init_on_alloc(gfp) || want_init_on_free())))
		pcpcache_clear_cached(page);
}

/* The batch a refill of this CPU's list for @cold takes; 0 in passthrough. */
static unsigned int pcpcache_refill_batch(bool cold)
{
	struct pcpcache_list *list;
	unsigned long flags;
	unsigned int batch;

	local_lock_irqsave(&pcpcache_cpus.lock, flags);
	list = mag_list(pcpcache_local_mag(), cold);
	batch = list ? list->batch : 0;
	local_unlock_irqrestore(&pcpcache_cpus.lock, flags);
	return batch;
}

/* The magazine had nothing for us: refill it, or pass through. */
static noinline struct page *pcpcache_alloc_miss(gfp_t gfp, bool cold)
{
	unsigned int batch = pcpcache_refill_batch(cold);
	struct page *page;

	if (batch)
		page = pcpcache_refill(gfp, cold, batch);
	else
		page = pcpcache_alloc_buddy(gfp);
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
 * The fast path is kept small and free of calls: a hit costs the local
 * lock, two list pointers and two counters.
 */
struct page *pcpcache_alloc_page(gfp_t gfp, bool cold)
{
	struct list_head *node = NULL;
	unsigned long flags;
	struct page *page;

	if (WARN_ON_ONCE(gfp & PCPCACHE_GFP_REFUSED))
		return NULL;

	if (!pcpcache_passing_through()) {
		local_lock_irqsave(&pcpcache_cpus.lock, flags);
		node = mag_take(pcpcache_local_mag(), cold);
		local_unlock_irqrestore(&pcpcache_cpus.lock, flags);
	}
	if (unlikely(!node))
		return pcpcache_alloc_miss(gfp, cold);

	page = list_entry(node, struct page, lru);
	pcpcache_prep_cached(page, gfp);
	pcpcache_count(PCPCACHE_ALLOC_HIT, 1);
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

static noinline void pcpcache_free_buddy(struct page *page, bool remote)
{
	__free_page(page);
	pcpcache_count(PCPCACHE_BUDDY_FREE, 1);
	if (remote)
		pcpcache_count(PCPCACHE_REMOTE_NODE, 1);
}

/* A free took this CPU's list for @cold over high: give a batch back. */
static noinline void pcpcache_trim_local(bool cold)
{
	struct pcpcache_list *list;
	unsigned int nr = 0;
	unsigned long flags;
	LIST_HEAD(out);

	/* maybe not the CPU of the free: then its list is trimmed if need be */
	local_lock_irqsave(&pcpcache_cpus.lock, flags);
	list = mag_list(pcpcache_local_mag(), cold);
	if (list)
		nr = mag_trim(list, &out);
	local_unlock_irqrestore(&pcpcache_cpus.lock, flags);

	pcpcache_give_back_drained(&out, nr);
}

void pcpcache_free_page(struct page *page, bool cold)
{
	struct pcpcache_list *list = NULL;
	unsigned long flags;
	bool remote, over;

	pcpcache_count(PCPCACHE_FREE, 1);
	if (cold)
		pcpcache_count(PCPCACHE_FREE_COLD, 1);

	if (unlikely(pcpcache_passing_through() || !pcpcache_cacheable(page))) {
		pcpcache_free_buddy(page, false);
		return;
	}

	/* whatever the user left there, the page is not clean */
	set_page_private(page, 0);
	local_lock_irqsave(&pcpcache_cpus.lock, flags);
	remote = !pcpcache_local_node(page);
	if (likely(!remote))
		list = mag_put(pcpcache_local_mag(), &page->lru, cold);
	over = list && mag_over_high(list);
	local_unlock_irqrestore(&pcpcache_cpus.lock, flags);

	if (unlikely(!list))
		pcpcache_free_buddy(page, remote);
	else if (unlikely(over))
		pcpcache_trim_local(cold);
}
EXPORT_SYMBOL_GPL(pcpcache_free_page);

/*
 * Cut off @mag what @rm asks for: the pages a reconfiguration or drain
 * gives back go to @drained (their number is returned), those of a shrink
 * to @shrunk (rm->shrunk). The magazine's CPU's lock is held, or the CPU is
 * offline with hotplug held off.
 */
static unsigned int pcpcache_remote_cut(struct pcpcache_remote *rm,
					struct pcpcache_mag *mag,
					struct list_head *drained,
					struct list_head *shrunk)
{
	unsigned int nr = 0;

	if (rm->cfg)
		nr += mag_reconfigure(mag, rm->cfg, drained);
	if (rm->drain)
		nr += mag_drain(mag, drained);
	rm->shrunk = rm->shrink ? mag_shrink(mag, rm->shrink, shrunk) : 0;
	return nr;
}

/* Give back what pcpcache_remote_cut() cut off, with interrupts on. */
static void pcpcache_remote_give_back(struct pcpcache_remote *rm,
				      struct list_head *drained,
				      unsigned int nr_drained,
				      struct list_head *shrunk)
{
	pcpcache_give_back_drained(drained, nr_drained);
	pcpcache_give_back(shrunk, rm->shrunk);
}

/*
 * The work queued on a CPU by pcpcache_remote_queue(). It runs there while
 * the CPU is online; if the CPU goes down first, the workqueue runs it on
 * another, whose own magazine it then works on: harmless for a shrink, the
 * only request that does not hold hotplug off.
 */
static void pcpcache_remote_work(struct work_struct *work)
{
	struct pcpcache_remote *rm = container_of(work, struct pcpcache_remote, work);
	unsigned long flags;
	unsigned int nr;
	LIST_HEAD(drained);
	LIST_HEAD(shrunk);

	local_lock_irqsave(&pcpcache_cpus.lock, flags);
	nr = pcpcache_remote_cut(rm, pcpcache_local_mag(), &drained, &shrunk);
	local_unlock_irqrestore(&pcpcache_cpus.lock, flags);

	pcpcache_remote_give_back(rm, &drained, nr, &shrunk);
}

/* Carry out @rm on the magazine of @cpu, which is offline, from here. */
static void pcpcache_remote_offline(struct pcpcache_remote *rm, int cpu)
{
	unsigned int nr;
	LIST_HEAD(drained);
	LIST_HEAD(shrunk);

	nr = pcpcache_remote_cut(rm, &per_cpu_ptr(&pcpcache_cpus, cpu)->mag,
				 &drained, &shrunk);
	pcpcache_remote_give_back(rm, &drained, nr, &shrunk);
}

/*
 * Fill in @cpu's request whole, so that nothing of an earlier one (a
 * configuration on a caller's stack, a drain) is carried out again.
 */
static struct pcpcache_remote *pcpcache_remote_set(int cpu,
						   const struct pcpcache_config *cfg,
						   bool drain, unsigned long shrink)
{
	struct pcpcache_remote *rm = per_cpu_ptr(&pcpcache_remotes, cpu);

	lockdep_assert_held(&pcpcache_remote_mutex);
	rm->cfg = cfg;
	rm->drain = drain;
	rm->shrink = shrink;
	rm->shrunk = 0;
	return rm;
}

/* Have @cpu carry out its request, and note it for pcpcache_remote_wait(). */
static void pcpcache_remote_queue(int cpu)
{
	lockdep_assert_held(&pcpcache_remote_mutex);
	cpumask_set_cpu(cpu, &pcpcache_remote_queued);
	queue_work_on(cpu, pcpcache_wq, &per_cpu_ptr(&pcpcache_remotes, cpu)->work);
}

/* Wait for every request queued since pcpcache_remote_queued was cleared. */
static void pcpcache_remote_wait(void)
{
	int cpu;

	for_each_cpu(cpu, &pcpcache_remote_queued)
		flush_work(&per_cpu_ptr(&pcpcache_remotes, cpu)->work);
}

/*
 * Apply @cfg to every CPU's magazine, and drain it if @drain: online CPUs
 * do it themselves, all at once, offline ones are done here.
 */
static void pcpcache_apply(const struct pcpcache_config *cfg, bool drain)
{
	int cpu;

	lockdep_assert_held(&pcpcache_config_mutex);

	cpus_read_lock();
	mutex_lock(&pcpcache_remote_mutex);
	cpumask_clear(&pcpcache_remote_queued);
	for_each_possible_cpu(cpu) {
		struct pcpcache_remote *rm = pcpcache_remote_set(cpu, cfg, drain, 0);

		if (cpu_online(cpu))
			pcpcache_remote_queue(cpu);
		else
			pcpcache_remote_offline(rm, cpu);
	}
	pcpcache_remote_wait();
	mutex_unlock(&pcpcache_remote_mutex);
	cpus_read_unlock();
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
	pcpcache_config_generation++;
	pcpcache_apply(cfg, false);
	return 0;
}

/**
 * pcpcache_edit_config - change the configuration in force, all at once
 * @edit: called with a copy of the configuration in force to change; it
 *	  returns 0, or an error that leaves everything as it was
 * @arg: passed to @edit
 *
 * The copy, the change and the commit happen under one lock, so that two
 * writers changing different settings never undo each other.
 *
 * Return: 0, the error of @edit, or -EINVAL when the result breaks a rule
 * of pcpcache_config_check(); then nothing changed.
 */
int pcpcache_edit_config(int (*edit)(struct pcpcache_config *cfg, void *arg),
			 void *arg)
{
	struct pcpcache_config cfg;
	int err;

	mutex_lock(&pcpcache_config_mutex);
	cfg = pcpcache_config;
	err = edit(&cfg, arg);
	if (!err)
		err = pcpcache_commit(&cfg);
	mutex_unlock(&pcpcache_config_mutex);
	return err;
}

static int pcpcache_edit_mode(struct pcpcache_config *cfg, void *arg)
{
	cfg->mode = *(enum pcpcache_mode *)arg;
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
	return pcpcache_edit_config(pcpcache_edit_mode, &mode);
}

struct pcpcache_knob_value {
	enum pcpcache_knob knob;
	unsigned int value;
};

static int pcpcache_edit_knob(struct pcpcache_config *cfg, void *arg)
{
	struct pcpcache_knob_value *kv = arg;
	unsigned int *knob = pcpcache_knob(cfg, kv->knob);

	if (!knob)
		return -EINVAL;
	*knob = kv->value;
	return 0;
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
	struct pcpcache_knob_value kv = { .knob = knob, .value = value };

	return pcpcache_edit_config(pcpcache_edit_knob, &kv);
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
 *
 * Return: its generation, which every write put in force bumps: a writer
 * that finds it unchanged after a refused write knows nobody else wrote.
 */
unsigned long pcpcache_get_config(struct pcpcache_config *cfg)
{
	unsigned long generation;

	mutex_lock(&pcpcache_config_mutex);
	*cfg = pcpcache_config;
	generation = pcpcache_config_generation;
	mutex_unlock(&pcpcache_config_mutex);
	return generation;
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
 * pcpcache_drain_dead_cpu - give the cached pages of a dead CPU back
 * @cpu: the CPU, which is dead: CPU hotplug's teardown callback, with the
 *	 write side of the hotplug lock held
 *
 * Nothing can be using the magazine: its CPU runs no tasks, and
 * reconfigurations, which also touch offline magazines, hold hotplug off.
 */
void pcpcache_drain_dead_cpu(int cpu)
{
	struct pcpcache_remote rm = { .drain = true };

	pcpcache_remote_offline(&rm, cpu);
}

/*
 * Ask @cpus for up to @share pages each, all at once; how many came back.
 * A CPU that comes online meanwhile is not asked, one that goes offline
 * has had its work run on another CPU, which gave what it had.
 */
static unsigned long pcpcache_shrink_cpus(const struct cpumask *cpus,
					  unsigned long share)
{
	unsigned long freed = 0;
	int cpu;

	cpumask_clear(&pcpcache_remote_queued);
	for_each_cpu(cpu, cpus) {
		pcpcache_remote_set(cpu, NULL, false, share);
		pcpcache_remote_queue(cpu);
	}
	pcpcache_remote_wait();
	for_each_cpu(cpu, &pcpcache_remote_queued)
		freed += per_cpu_ptr(&pcpcache_remotes, cpu)->shrunk;
	return freed;
}

/**
 * pcpcache_shrink - give cached pages back because the kernel needs memory
 * @nr: how many to give back at most
 *
 * Every online CPU gives an equal share, coldest pages first; then, if
 * that was not enough, whichever CPUs still have pages give the rest, one
 * CPU at a time. Offline CPUs have nothing: they were drained when they
 * died. Hotplug is not held off, as reclaim may run inside it; see
 * pcpcache_remote_work() for a CPU that goes away meanwhile.
 *
 * Return: the number given back.
 */
unsigned long pcpcache_shrink(unsigned long nr)
{
	unsigned long share = DIV_ROUND_UP(nr, num_online_cpus());
	unsigned long freed;
	int cpu;

	/*
	 * Reclaim may wait here behind a reconfiguration or another shrink;
	 * they do not allocate, and if their work needs a new worker while
	 * kthreadd itself waits here, the workqueue's rescuer runs it. Giving
	 * up instead, as drain_all_pages() does, made concurrent reclaimers
	 * see nothing to shrink and call the OOM killer (reclaim selftest).
	 */
	mutex_lock(&pcpcache_remote_mutex);
	freed = pcpcache_shrink_cpus(cpu_online_mask, share);
	for_each_online_cpu(cpu) {
		if (freed >= nr)
			break;
		freed += pcpcache_shrink_cpus(cpumask_of(cpu), nr - freed);
	}
	mutex_unlock(&pcpcache_remote_mutex);

	pcpcache_count(PCPCACHE_SHRINK, 1);
	pcpcache_count(PCPCACHE_SHRINK_PAGES, freed);
	return freed;
}

/**
 * pcpcache_cpu_lists - count, batch and high of one CPU's lists
 * @cpu: the CPU
 * @lists: where to copy them
 *
 * Read without the CPU's lock, which only that CPU may take: each value is
 * one the magazine had, the set of them may be from either side of a
 * reconfiguration.
 *
 * Return: the CPU's mode.
 */
enum pcpcache_mode pcpcache_cpu_lists(int cpu, struct pcpcache_list *lists)
{
	struct pcpcache_mag *mag = &per_cpu_ptr(&pcpcache_cpus, cpu)->mag;
	int i;

	for (i = 0; i < PCPCACHE_NR_LISTS; i++) {
		lists[i].count = READ_ONCE(mag->lists[i].count);
		lists[i].batch = READ_ONCE(mag->lists[i].batch);
		lists[i].high = READ_ONCE(mag->lists[i].high);
	}
	return READ_ONCE(mag->mode);
}

/**
 * pcpcache_cached_pages - pages in all magazines
 *
 * Return: the sum over every possible CPU, read as pcpcache_cpu_lists().
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

	/* a rescuer, for the shrinker's work under memory pressure */
	pcpcache_wq = alloc_workqueue("pcpcache", WQ_MEM_RECLAIM | WQ_HIGHPRI, 0);
	if (!pcpcache_wq)
		return -ENOMEM;

	for_each_possible_cpu(cpu) {
		mag_init(&per_cpu_ptr(&pcpcache_cpus, cpu)->mag, cfg);
		INIT_WORK(&per_cpu_ptr(&pcpcache_remotes, cpu)->work,
			  pcpcache_remote_work);
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
	destroy_workqueue(pcpcache_wq);
}
