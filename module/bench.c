// SPDX-License-Identifier: GPL-2.0
/*
 * pcpcache's in-kernel benchmarks, after Christoph Lameter's page allocator
 * tests of 2007 and lib/test_vmalloc.c: kernel threads pinned to their CPUs,
 * started together, timing loops with get_cycles(). Driven through the
 * debugfs "bench" file: writing "TEST NR K FLAGS" runs a test in the mode
 * in force and returns when it is done; reading gives one line per CPU
 * that ran, "cpu ops cycles_a cycles_b".
 *
 *   seq        one CPU: NR allocations (a), then NR frees (b)
 *   pair       one CPU: NR alloc/free pairs (a)
 *   concurrent every online CPU at once: NR allocations (a), then NR frees (b)
 *   hotness    every online CPU at once: NR/K rounds of allocating K pages,
 *              writing every byte of each and freeing them (a, per page)
 *   counter    one CPU: NR counter updates (a)
 *   stats      CPU 0 sums the counters NR times (a) while the other CPUs
 *              run alloc/free pairs
 *   switch     CPU 0 switches between single and split NR times (a: the
 *              sum, b: the longest, in ns) while the other CPUs run
 *              alloc/free pairs
 *   drain      CPU 0 drains every magazine NR times (a, b as switch) while
 *              the other CPUs run alloc/free pairs
 *   shrink     CPU 0 asks the shrinker's scan for K pages of its node NR
 *              times (a, b as switch) while the other CPUs run alloc/free
 *              pairs, which refill what it takes
 *   phased     every online CPU at once: five phases of rounds of a burst
 *              (K times 1, 8, 2, 32 and 4 blocks allocated, then freed),
 *              each phase moving about NR blocks, an idle gap of 100 ms
 *              after each (a: the cycles of the allocations and frees,
 *              ops: both; b, of the first CPU only: the most pages cached
 *              in all magazines at the end of one of its rounds)
 *   purger     jemalloc's purger: every online CPU but the first allocates
 *              (a) NR blocks in all, a share each, keeping at most K
 *              allocated and not yet freed, and hands them over to the
 *              first CPU, which frees them (a) in bursts of up to 512
 *              (b, its line only: the most pages parked after a burst)
 *   exit       a process exit: every CPU but the first allocates (a) its
 *              share of NR blocks and keeps them; once all have, the first
 *              frees them all (a, b as purger); K is not used
 *
 * Pages parked are those cached or in transit between CPUs: the pages
 * taken from the buddy allocator less those given back (the module's
 * books) less those the run holds; with flag 64, those on the kernel's
 * own per-CPU lists. After the per-CPU lines, purger and exit add one,
 * "parked SAMPLES MEAN PEAK": the samples taken, after each burst, their
 * mean and their peak, in pages.
 *
 * A signal to the writer stops the run early; the write then fails with
 * EINTR.
 *
 * FLAGS: 1 allocate cold, 2 free cold, 4 "limit": instead of pcpcache, a bare
 * per-CPU list of pages with interrupts off and no counters, the floor no
 * cache can beat on this machine; 8 (switch, drain and shrink only) 50 ms
 * between calls, so that they fall at any point of another CPU's
 * schedule (a real-time task's throttling period, say) rather than all
 * just after the run's threads started; 64 "kernel": alloc_pages() and
 * __free_pages() instead of pcpcache, the kernel's own per-CPU lists (the
 * cold flags do not apply); 128 "limit-call": the limit's list behind two
 * calls of the API's shape (limit.c), what two calls add to the floor.
 * The limit flags go with neither kernel nor each other, nor with purger
 * or exit.
 *
 * Each field of a request is read as every file reads a value (parse.h):
 * one word per field, separated by single spaces, numbers in decimal.
 */
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timex.h>
#include <linux/pcpcache.h>

#include "pcpcache.h"

#define BENCH_MAX_NR	65536
/* a benchmark fails an allocation rather than call the OOM killer */
#define BENCH_GFP	(GFP_KERNEL | __GFP_NORETRY | __GFP_NOWARN)
#define BENCH_COLD_ALLOC	1
#define BENCH_COLD_FREE		2
#define BENCH_LIMIT		4
/* switch, drain, shrink: a gap between calls, out of step with the host */
#define BENCH_SPACED		8
#define BENCH_SPACED_MS		50
/* FLAGS + 16 * order: blocks of that order instead of pages */
#define BENCH_ORDER_SHIFT	4
#define BENCH_ORDER_MASK	(3 << BENCH_ORDER_SHIFT)
/* alloc_pages() and __free_pages(): the kernel's own per-CPU lists */
#define BENCH_KERNEL		64
/* the limit behind two calls (limit.c) */
#define BENCH_LIMIT_CALL	128
#define BENCH_FLAGS		(BENCH_COLD_ALLOC | BENCH_COLD_FREE | BENCH_LIMIT | \
				 BENCH_SPACED | BENCH_ORDER_MASK | BENCH_KERNEL | \
				 BENCH_LIMIT_CALL)
/* purger, exit: the first CPU frees this many blocks at most per burst */
#define BENCH_PURGE_BURST	512
/* "cpu ops cycles_a cycles_b\n" with every number at its longest */
#define BENCH_LINE_MAX		72

static unsigned int bench_order(unsigned int flags)
{
	return (flags & BENCH_ORDER_MASK) >> BENCH_ORDER_SHIFT;
}

enum bench_test {
	BENCH_SEQ, BENCH_PAIR, BENCH_CONCURRENT, BENCH_HOTNESS, BENCH_COUNTER,
	BENCH_STATS, BENCH_SWITCH, BENCH_DRAIN, BENCH_SHRINK, BENCH_PHASED,
	BENCH_PURGER, BENCH_EXIT, BENCH_NR_TESTS,
};

static const char * const bench_names[BENCH_NR_TESTS] = {
	"seq", "pair", "concurrent", "hotness", "counter", "stats", "switch",
	"drain", "shrink", "phased", "purger", "exit",
};

/* phased: each phase's burst, in multiples of K, and the gap after it */
static const unsigned int bench_phase_scale[] = { 1, 8, 2, 32, 4 };
#define BENCH_PHASE_MOST	32
#define BENCH_PHASE_GAP_MS	100

/* Timed loops look at the stop flag this often, to stay cheap. */
#define BENCH_ABORT_EVERY	256

struct bench_result {
	int cpu;
	unsigned long ops;
	u64 a, b;
	/*
	 * The limit: a bare list of pages, no counters, no lock, touched with
	 * interrupts off as a per-CPU list would be. Each thread has its own,
	 * which is its CPU's as long as the CPU stays online, and stays its
	 * own if CPU hotplug moves the thread.
	 */
	struct list_head limit;
	/*
	 * purger, exit: an allocator's blocks on their way to the first
	 * CPU's thread. The allocator adds to handed under lock, then
	 * releases handed_nr; the first CPU's thread moves them to taken,
	 * its own, and counts what it freed of them in freed.
	 */
	spinlock_t lock;
	struct list_head handed, taken;
	unsigned long allocated, handed_nr, freed;
	bool done;			/* released: no more will be handed */
};

struct bench_run {
	enum bench_test test;
	unsigned int nr, k, flags;
	atomic_t waiting;		/* threads not yet at the start line */
	atomic_t running;		/* threads not finished */
	struct completion started, done;
	bool stop;			/* background pairs stop */
	unsigned int threads;		/* results in use */
	u64 parked_sum, parked_samples;	/* purger, exit: the peak is in b */
	struct bench_result *results;	/* nr_cpu_ids of them */
};

static DEFINE_MUTEX(bench_mutex);	/* one run at a time; guards last */
static struct bench_run *bench_last;
static unsigned int bench_nr_results;
static bool bench_abort;		/* the writer got a signal: stop */

static bool bench_aborted(unsigned int i)
{
	return !(i % BENCH_ABORT_EVERY) && READ_ONCE(bench_abort);
}

static DEFINE_PER_CPU_ALIGNED(unsigned long, bench_counter);

static struct page *bench_alloc(struct bench_result *r, unsigned int flags)
{
	unsigned long irqflags;
	struct page *page = NULL;

	if (flags & BENCH_KERNEL)
		return alloc_pages(BENCH_GFP, bench_order(flags));
	if (flags & BENCH_LIMIT_CALL)
		return pcpcache_limit_call_alloc(BENCH_GFP, bench_order(flags),
						 flags & BENCH_COLD_ALLOC);
	if (!(flags & BENCH_LIMIT))
		return pcpcache_alloc_pages(BENCH_GFP, bench_order(flags),
					    flags & BENCH_COLD_ALLOC);
	local_irq_save(irqflags);
	if (!list_empty(&r->limit)) {
		page = list_first_entry(&r->limit, struct page, lru);
		list_del(&page->lru);
	}
	local_irq_restore(irqflags);
	return page ? page : alloc_pages(BENCH_GFP, bench_order(flags));
}

static void bench_free(struct bench_result *r, struct page *page,
		       unsigned int flags)
{
	unsigned long irqflags;

	if (flags & BENCH_KERNEL) {
		__free_pages(page, bench_order(flags));
		return;
	}
	if (flags & BENCH_LIMIT_CALL) {
		pcpcache_limit_call_free(page, bench_order(flags),
					 flags & BENCH_COLD_FREE);
		return;
	}
	if (!(flags & BENCH_LIMIT)) {
		pcpcache_free_pages(page, bench_order(flags),
				    flags & BENCH_COLD_FREE);
		return;
	}
	local_irq_save(irqflags);
	list_add(&page->lru, &r->limit);
	local_irq_restore(irqflags);
}

/*
 * Give the limit list nr blocks before timing, and take them back after;
 * limit-call's, this CPU's in limit.c, every CPU's emptied at the end.
 */
static void bench_limit_fill(struct bench_result *r, unsigned int nr,
			     unsigned int flags)
{
	unsigned int order = bench_order(flags);
	struct page *page;

	INIT_LIST_HEAD(&r->limit);
	while (nr--) {
		page = alloc_pages(BENCH_GFP, order);
		if (!page)
			break;
		if (flags & BENCH_LIMIT_CALL)
			pcpcache_limit_call_free(page, order, false);
		else
			list_add(&page->lru, &r->limit);
	}
}

static void bench_limit_empty(struct bench_result *r, unsigned int order)
{
	struct page *page, *next;

	list_for_each_entry_safe(page, next, &r->limit, lru) {
		list_del(&page->lru);
		__free_pages(page, order);
	}
}

/* nr allocations then nr frees; the cycles of each phase. */
static void bench_alloc_then_free(struct bench_run *run, struct bench_result *r)
{
	struct page **pages;
	unsigned int i, got = 0;
	cycles_t t0, t1, t2;

	pages = kvmalloc_array(run->nr, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return;
	t0 = get_cycles();
	for (i = 0; i < run->nr && !bench_aborted(i); i++) {
		pages[got] = bench_alloc(r, run->flags);
		if (pages[got])
			got++;
	}
	t1 = get_cycles();
	for (i = 0; i < got; i++)
		bench_free(r, pages[i], run->flags);
	t2 = get_cycles();
	kvfree(pages);
	r->ops = got;
	r->a = t1 - t0;
	r->b = t2 - t1;
}

static void bench_pairs(struct bench_run *run, struct bench_result *r)
{
	struct page *page;
	unsigned int i;
	cycles_t t0;

	t0 = get_cycles();
	for (i = 0; i < run->nr && !bench_aborted(i); i++) {
		page = bench_alloc(r, run->flags);
		if (page)
			bench_free(r, page, run->flags);
	}
	r->a = get_cycles() - t0;
	r->ops = i;
}

/* Gorman's create/delete, in pages: allocate k, write them, free them. */
static void bench_hotness(struct bench_run *run, struct bench_result *r)
{
	unsigned int rounds = max(run->nr / run->k, 1U), i, j, got;
	struct page **pages;
	cycles_t t0;

	pages = kvmalloc_array(run->k, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return;
	t0 = get_cycles();
	for (i = 0; i < rounds && !READ_ONCE(bench_abort); i++) {
		for (got = 0, j = 0; j < run->k; j++) {
			pages[got] = bench_alloc(r, run->flags);
			if (pages[got])
				memset(page_address(pages[got++]), i,
				       PAGE_SIZE << bench_order(run->flags));
		}
		for (j = 0; j < got; j++)
			bench_free(r, pages[j], run->flags);
		r->ops += got;
	}
	r->a = get_cycles() - t0;
	kvfree(pages);
}

/* High and low traffic in turn, for a high that follows it (high=auto). */
static void bench_phased(struct bench_run *run, struct bench_result *r)
{
	unsigned int p, i, j, got, burst, rounds;
	struct page **pages;
	cycles_t t0;

	pages = kvmalloc_array(run->k * BENCH_PHASE_MOST, sizeof(*pages),
			       GFP_KERNEL);
	if (!pages)
		return;
	for (p = 0; p < ARRAY_SIZE(bench_phase_scale); p++) {
		burst = run->k * bench_phase_scale[p];
		rounds = max(run->nr / burst, 1U);
		for (i = 0; i < rounds && !READ_ONCE(bench_abort); i++) {
			t0 = get_cycles();
			for (got = 0, j = 0; j < burst; j++) {
				pages[got] = bench_alloc(r, run->flags);
				if (pages[got])
					got++;
			}
			for (j = 0; j < got; j++)
				bench_free(r, pages[j], run->flags);
			r->a += get_cycles() - t0;
			r->ops += 2 * got;
			if (r == &run->results[0])
				r->b = max_t(u64, r->b,
					     pcpcache_cached_pages(NUMA_NO_NODE));
		}
		if (READ_ONCE(bench_abort))
			break;
		msleep(BENCH_PHASE_GAP_MS);
	}
	kvfree(pages);
}

/* purger, exit: allocator @r's share of NR; the first thread frees. */
static unsigned long bench_share(const struct bench_run *run,
				 const struct bench_result *r)
{
	unsigned int i = r - run->results - 1, n = run->threads - 1;

	return run->nr / n + (i < run->nr % n);
}

/* Pages on the kernel's own per-CPU lists, every zone and CPU. */
static unsigned long bench_kernel_parked(void)
{
	unsigned long sum = 0;
	struct zone *zone;
	int nid, cpu;

	for_each_online_node(nid) {
		for (zone = NODE_DATA(nid)->node_zones;
		     zone < NODE_DATA(nid)->node_zones + MAX_NR_ZONES; zone++) {
			if (!populated_zone(zone))
				continue;
			for_each_online_cpu(cpu)
				sum += READ_ONCE(per_cpu_ptr(zone->per_cpu_pageset,
							     cpu)->count);
		}
	}
	return sum;
}

/*
 * Pages parked: the module's books less what the run holds, or the
 * kernel's lists. Read racily, so a few pages off: never below 0.
 */
static u64 bench_parked(const struct bench_run *run)
{
	long held = 0, parked;
	unsigned int i;

	if (run->flags & BENCH_KERNEL)
		return bench_kernel_parked();
	for (i = 1; i < run->threads; i++)
		held += READ_ONCE(run->results[i].allocated) -
			run->results[i].freed;
	parked = pcpcache_stat_sum(PCPCACHE_BUDDY_ALLOC) -
		 pcpcache_stat_sum(PCPCACHE_BUDDY_FREE) -
		 (held << bench_order(run->flags));
	return max(parked, 0L);
}

/*
 * An allocator: bursts of allocations up to K blocks not yet freed (exit:
 * the whole share), each handed over whole, so one lock round trip a burst.
 */
static void bench_keep(struct bench_run *run, struct bench_result *r)
{
	unsigned long share = bench_share(run, r), keep, want;
	struct page *page = NULL;
	LIST_HEAD(burst);
	cycles_t t0;

	keep = run->test == BENCH_EXIT ? share : run->k;
	while (r->allocated < share && !READ_ONCE(bench_abort)) {
		if (r->allocated - READ_ONCE(r->freed) >= keep) {
			cond_resched();
			cpu_relax();
			continue;
		}
		want = min(keep - (r->allocated - READ_ONCE(r->freed)),
			   share - r->allocated);
		t0 = get_cycles();
		while (want--) {
			page = bench_alloc(r, run->flags);
			if (!page)
				break;
			list_add_tail(&page->lru, &burst);
			/* counted at once: the purger's books subtract it */
			WRITE_ONCE(r->allocated, r->allocated + 1);
		}
		r->a += get_cycles() - t0;
		spin_lock(&r->lock);
		list_splice_tail_init(&burst, &r->handed);
		spin_unlock(&r->lock);
		/* pairs with bench_purge(): what it counts is on the list */
		smp_store_release(&r->handed_nr, r->allocated);
		if (!page)
			break;
	}
	r->ops = r->allocated;
	/* after the last hand-over, which bench_purge() then sees */
	smp_store_release(&r->done, true);
}

/* Free @want blocks of the allocators' taken lists, timed, into @r. */
static void bench_purge_burst(struct bench_run *run, struct bench_result *r,
			      unsigned long want)
{
	unsigned long n;
	struct page *page;
	unsigned int i;
	cycles_t t0;
	u64 parked;

	t0 = get_cycles();
	for (i = 1; i < run->threads && want; i++) {
		struct bench_result *h = &run->results[i];

		for (n = 0; n < want && !list_empty(&h->taken); n++) {
			page = list_first_entry(&h->taken, struct page, lru);
			list_del(&page->lru);
			bench_free(r, page, run->flags);
		}
		WRITE_ONCE(h->freed, h->freed + n);
		want -= n;
		r->ops += n;
	}
	r->a += get_cycles() - t0;
	parked = bench_parked(run);
	r->b = max(r->b, parked);
	run->parked_sum += parked;
	run->parked_samples++;
}

/*
 * The first CPU: frees what the allocators hand over, in bursts of 512,
 * or fewer when every allocator waits for it or is done; exit waits for
 * all to be done. On an abort it still frees everything handed over.
 */
static void bench_purge(struct bench_run *run, struct bench_result *r)
{
	unsigned long ready, out;
	bool done, stuck;
	unsigned int i;

	for (;;) {
		done = true;
		stuck = true;
		ready = 0;
		for (i = 1; i < run->threads; i++) {
			struct bench_result *h = &run->results[i];
			/* pair with bench_keep(): done, then all handed over */
			bool d = smp_load_acquire(&h->done);

			/* ... and at least this many are on h->handed */
			out = smp_load_acquire(&h->handed_nr) - h->freed;
			done &= d;
			stuck &= d || out >= run->k;
			ready += out;
		}
		if (done && !ready)
			break;
		if (run->test == BENCH_EXIT ? !done :
		    ready < BENCH_PURGE_BURST && !(stuck && ready)) {
			cond_resched();
			cpu_relax();
			continue;
		}
		for (i = 1; i < run->threads; i++) {
			struct bench_result *h = &run->results[i];

			spin_lock(&h->lock);
			list_splice_tail_init(&h->handed, &h->taken);
			spin_unlock(&h->lock);
		}
		bench_purge_burst(run, r, min_t(unsigned long, ready,
						BENCH_PURGE_BURST));
	}
}

static void bench_counter_updates(struct bench_run *run,
				  struct bench_result *r)
{
	unsigned int i;
	cycles_t t0;

	t0 = get_cycles();
	for (i = 0; i < run->nr; i++)
		this_cpu_add(bench_counter, 1);
	r->a = get_cycles() - t0;
	r->ops = run->nr;
}

static void bench_stats_reads(struct bench_run *run, struct bench_result *r)
{
	unsigned long sum[PCPCACHE_NR_STATS];
	unsigned int i;
	cycles_t t0;

	t0 = get_cycles();
	for (i = 0; i < run->nr; i++)
		pcpcache_stats_sum(sum);
	r->a = get_cycles() - t0;
	r->ops = run->nr;
}

/* Time one call of each kind the latency tests make, in ns. */
static u64 bench_latency_once(struct bench_run *run, unsigned int i)
{
	u64 t0 = ktime_get_ns();

	switch (run->test) {
	case BENCH_SWITCH:
		pcpcache_set_mode(i & 1 ? PCPCACHE_MODE_SINGLE :
				  PCPCACHE_MODE_SPLIT);
		break;
	case BENCH_DRAIN:
		pcpcache_drain_all();
		break;
	default:
		pcpcache_shrink(numa_mem_id(), run->k);
		break;
	}
	return ktime_get_ns() - t0;
}

/* switch, drain, shrink: the sum and the longest of NR calls. */
static void bench_latencies(struct bench_run *run, struct bench_result *r)
{
	struct pcpcache_config saved;
	unsigned int i;
	u64 dt;

	pcpcache_get_config(&saved);
	for (i = 0; i < run->nr && !READ_ONCE(bench_abort); i++) {
		if (i && run->flags & BENCH_SPACED)
			msleep(BENCH_SPACED_MS);
		dt = bench_latency_once(run, i);
		r->b = max(r->b, dt);
		r->a += dt;
	}
	r->ops = i;
	if (run->test == BENCH_SWITCH)
		pcpcache_set_config(&saved);
}

/* The tests where CPU 0 measures and the others make traffic. */
static bool bench_background(enum bench_test test)
{
	return test == BENCH_STATS || test == BENCH_SWITCH ||
	       test == BENCH_DRAIN || test == BENCH_SHRINK;
}

static bool bench_all_cpus(enum bench_test test)
{
	return test == BENCH_CONCURRENT || test == BENCH_HOTNESS ||
	       test == BENCH_PHASED || test == BENCH_PURGER ||
	       test == BENCH_EXIT || bench_background(test);
}

/*
 * The most pages one thread of @run holds at once, and so what the limit's
 * list is given: pairs, measured or in the background, hold one.
 */
static unsigned int bench_thread_pages(const struct bench_run *run)
{
	switch (run->test) {
	case BENCH_SEQ:
	case BENCH_CONCURRENT:
		return run->nr;
	case BENCH_HOTNESS:
		return run->k;
	case BENCH_PHASED:
		return run->k * BENCH_PHASE_MOST;
	case BENCH_COUNTER:
		return 0;
	default:
		return 1;
	}
}

static int bench_thread(void *data)
{
	struct bench_result *r = data;
	struct bench_run *run = bench_last;
	bool limit = run->flags & (BENCH_LIMIT | BENCH_LIMIT_CALL);

	if (limit)
		bench_limit_fill(r, bench_thread_pages(run), run->flags);
	if (atomic_dec_and_test(&run->waiting))
		complete_all(&run->started);
	wait_for_completion(&run->started);

	/* the first thread measures, whichever CPU it is on */
	if (bench_background(run->test) && r != &run->results[0]) {
		struct bench_run pair = { .nr = 64, .flags = run->flags };

		while (!READ_ONCE(run->stop) && !READ_ONCE(bench_abort)) {
			bench_pairs(&pair, r);
			cond_resched();
		}
		/* the traffic is no measurement: it reports nothing */
		r->ops = 0;
		r->a = 0;
	} else {
		switch (run->test) {
		case BENCH_SEQ:
		case BENCH_CONCURRENT:
			bench_alloc_then_free(run, r);
			break;
		case BENCH_PAIR:
			bench_pairs(run, r);
			break;
		case BENCH_HOTNESS:
			bench_hotness(run, r);
			break;
		case BENCH_PHASED:
			bench_phased(run, r);
			break;
		case BENCH_PURGER:
		case BENCH_EXIT:
			if (r == &run->results[0])
				bench_purge(run, r);
			else
				bench_keep(run, r);
			break;
		case BENCH_COUNTER:
			bench_counter_updates(run, r);
			break;
		case BENCH_STATS:
			bench_stats_reads(run, r);
			break;
		case BENCH_SWITCH:
		case BENCH_DRAIN:
		case BENCH_SHRINK:
			bench_latencies(run, r);
			break;
		default:
			break;
		}
		if (bench_background(run->test))
			WRITE_ONCE(run->stop, true);
	}

	if (limit)
		bench_limit_empty(r, bench_order(run->flags));
	if (atomic_dec_and_test(&run->running))
		complete(&run->done);
	/* wait to be stopped, so that kthread_stop() never races our exit */
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

/* The most base pages a run holds at once, all its threads together. */
static unsigned long bench_pages_held(const struct bench_run *run)
{
	/* the allocators all together: K each, or NR in all */
	if (run->test == BENCH_PURGER)
		return ((unsigned long)run->k << bench_order(run->flags)) *
		       (num_online_cpus() - 1);
	if (run->test == BENCH_EXIT)
		return (unsigned long)run->nr << bench_order(run->flags);
	return ((unsigned long)bench_thread_pages(run) << bench_order(run->flags)) *
	       (bench_all_cpus(run->test) ? num_online_cpus() : 1);
}

/*
 * How long the threads have to reach the start line, holding the CPU
 * hotplug lock: a CPU that runs nothing else (a SCHED_FIFO task there,
 * RT throttling off) must not keep a CPU hotplug writer waiting, and
 * every new reader of the lock behind it, for longer.
 */
#define BENCH_START_WAIT	(5 * HZ)

static void bench_free_run(struct bench_run *run)
{
	if (run)
		kfree(run->results);
	kfree(run);
}

static int bench_start(struct bench_run *run)
{
	struct task_struct **threads;
	unsigned int n = 0, i;
	int cpu, err = 0;

	threads = kcalloc(nr_cpu_ids, sizeof(*threads), GFP_KERNEL);
	if (!threads)
		return -ENOMEM;
	if (run->flags & BENCH_LIMIT_CALL)
		pcpcache_limit_call_init();
	/*
	 * CPUs stay online until every thread is at the start line on its
	 * own. Not longer: the switch test reconfigures, which takes this
	 * lock again in another task, and would wait behind a CPU hotplug
	 * writer that waits for us.
	 */
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		if (!bench_all_cpus(run->test) && n)
			break;
		run->results[n].cpu = cpu;
		n++;
	}
	run->threads = n;
	atomic_set(&run->waiting, n);
	atomic_set(&run->running, n);
	for (i = 0; i < n; i++) {
		threads[i] = kthread_create_on_cpu(bench_thread, &run->results[i],
						   run->results[i].cpu,
						   "pcpcache_bench/%u");
		if (IS_ERR(threads[i])) {
			err = PTR_ERR(threads[i]);
			break;
		}
	}
	if (err) {
		/* never woken: kthread_stop() makes them exit unrun */
		while (i--)
			kthread_stop(threads[i]);
		cpus_read_unlock();
	} else {
		for (i = 0; i < n; i++)
			wake_up_process(threads[i]);
		if (!wait_for_completion_timeout(&run->started, BENCH_START_WAIT)) {
			/* refused: the threads that wait start, see it, and end */
			WRITE_ONCE(bench_abort, true);
			complete_all(&run->started);
			err = -EAGAIN;
		}
		cpus_read_unlock();
		/* a signal (^C) stops the threads at their next look */
		if (err) {
			/* outside the hotplug lock: the late thread ends when it runs */
			wait_for_completion(&run->done);
		} else if (wait_for_completion_interruptible(&run->done)) {
			WRITE_ONCE(bench_abort, true);
			wait_for_completion(&run->done);
			err = -EINTR;
		}
		for (i = 0; i < n; i++)
			kthread_stop(threads[i]);
		if (run->flags & BENCH_LIMIT_CALL)
			pcpcache_limit_call_empty(bench_order(run->flags));
		bench_nr_results = err ? 0 : n;
	}
	kfree(threads);
	return err;
}

/* "TEST NR K FLAGS" into @run, or -EINVAL. */
static int bench_parse(const char *buf, size_t len, struct bench_run *run)
{
	struct pcpcache_word words[4];
	int test;

	if (pcpcache_split(buf, len, words, ARRAY_SIZE(words)) != 4)
		return -EINVAL;
	test = pcpcache_word_match(&words[0], bench_names, BENCH_NR_TESTS);
	if (test < 0 ||
	    pcpcache_parse_number(words[1].s, words[1].len, &run->nr) ||
	    pcpcache_parse_number(words[2].s, words[2].len, &run->k) ||
	    pcpcache_parse_number(words[3].s, words[3].len, &run->flags))
		return -EINVAL;
	/* K is pages per scan for shrink, blocks at most NR for the others */
	if (!run->nr || run->nr > BENCH_MAX_NR || !run->k ||
	    run->k > BENCH_MAX_NR || (test != BENCH_SHRINK && run->k > run->nr) ||
	    (test == BENCH_PHASED && run->k > BENCH_MAX_NR / BENCH_PHASE_MOST) ||
	    (run->flags & BENCH_SPACED && test != BENCH_SWITCH &&
	     test != BENCH_DRAIN && test != BENCH_SHRINK) ||
	    (run->flags & (BENCH_LIMIT | BENCH_LIMIT_CALL) &&
	     (run->flags & BENCH_KERNEL || test == BENCH_PURGER ||
	      test == BENCH_EXIT)) ||
	    ((run->flags & BENCH_LIMIT) && (run->flags & BENCH_LIMIT_CALL)) ||
	    run->flags & ~BENCH_FLAGS)
		return -EINVAL;
	run->test = test;
	return 0;
}

/**
 * pcpcache_bench_store - run the benchmark a write asks for
 * @ctl: the bench file
 * @buf: "TEST NR K FLAGS", one trailing newline allowed
 * @len: the length of @buf
 *
 * Return: 0 once the run is over and its results can be read, -EINVAL for
 * a request that is not one (purger and exit need two online CPUs), -E2BIG
 * for one whose threads would hold more than an eighth of RAM at once, or
 * the error that stopped the run.
 */
int pcpcache_bench_store(const struct pcpcache_ctl *ctl, const char *buf,
			 size_t len)
{
	struct bench_run *run;
	unsigned int i;
	int err;

	run = kzalloc(sizeof(*run), GFP_KERNEL);
	if (!run)
		return -ENOMEM;
	err = bench_parse(buf, len, run);
	if (!err && (run->test == BENCH_PURGER || run->test == BENCH_EXIT) &&
	    num_online_cpus() < 2)
		err = -EINVAL;
	if (!err && bench_pages_held(run) > totalram_pages() / 8)
		err = -E2BIG;
	if (!err) {
		run->results = kcalloc(nr_cpu_ids, sizeof(*run->results),
				       GFP_KERNEL);
		if (!run->results)
			err = -ENOMEM;
	}
	for (i = 0; !err && i < nr_cpu_ids; i++) {
		spin_lock_init(&run->results[i].lock);
		INIT_LIST_HEAD(&run->results[i].handed);
		INIT_LIST_HEAD(&run->results[i].taken);
	}
	if (err) {
		bench_free_run(run);
		return err;
	}
	init_completion(&run->started);
	init_completion(&run->done);

	if (mutex_lock_interruptible(&bench_mutex)) {
		bench_free_run(run);
		return -EINTR;
	}
	bench_free_run(bench_last);
	bench_last = run;
	bench_nr_results = 0;
	WRITE_ONCE(bench_abort, false);
	err = bench_start(run);
	mutex_unlock(&bench_mutex);
	return err;
}

size_t pcpcache_bench_size(void)
{
	/* and the purger's and exit's "parked" line */
	return (nr_cpu_ids + 1) * BENCH_LINE_MAX + 1;
}

/*
 * One line per CPU of the last run: "cpu ops cycles_a cycles_b"; then,
 * after purger and exit, "parked SAMPLES MEAN PEAK".
 */
size_t pcpcache_bench_show(const struct pcpcache_ctl *ctl, char *buf,
			   size_t size)
{
	size_t len = 0;
	unsigned int i;

	buf[0] = '\0';
	mutex_lock(&bench_mutex);
	for (i = 0; i < bench_nr_results; i++) {
		struct bench_result *r = &bench_last->results[i];

		len += scnprintf(buf + len, size - len, "%d %lu %llu %llu\n",
				 r->cpu, r->ops, r->a, r->b);
	}
	if (bench_nr_results && (bench_last->test == BENCH_PURGER ||
				 bench_last->test == BENCH_EXIT)) {
		struct bench_run *run = bench_last;

		len += scnprintf(buf + len, size - len, "parked %llu %llu %llu\n",
				 run->parked_samples,
				 run->parked_samples ?
				 div64_u64(run->parked_sum, run->parked_samples) : 0,
				 run->results[0].b);
	}
	mutex_unlock(&bench_mutex);
	return len;
}

void pcpcache_bench_exit(void)
{
	bench_free_run(bench_last);
	bench_last = NULL;
}
