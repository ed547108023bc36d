// SPDX-License-Identifier: GPL-2.0
/*
 * barn mode: each CPU's main magazine and its spare, each a batch of every
 * order, and each node's barn of full magazines (SLUB's sheaves and barn,
 * for pages). Asserted by counting pages, through the user file on a
 * pinned CPU:
 *
 * - the exchanges, exactly: an allocation from an empty main swaps in the
 *   spare, else takes a full magazine from the barn, else refills from the
 *   buddy allocator; a free over the batch swaps main and an empty spare,
 *   else gives main to the barn, else (the barn full) flushes it; every
 *   order; the counters, pagesets' order columns, the barn line of stats
 *   and the page audit all agree;
 * - the purger pattern (one CPU frees what another allocates): the barn
 *   carries the pages across, where single mode's lists go to the buddy
 *   allocator for nearly every page;
 * - the trim: magazines nobody took for a whole interval go back, the
 *   one in steady use stays, exactly, the test ending each interval;
 *   the timer runs it every barn_trim_ms, while the CPU that armed it
 *   cannot run (issue 50's defect 3);
 * - pagesets: main's count, the spare's and the barn's pages;
 * - barn_full: 0 to 32, and in barn mode within the bound; an unknown
 *   key (a removed knob) is refused;
 *   lowering barn_full gives back the magazines over it; a lowered batch
 *   holds for the barn's magazines too; a write lowers the barns' limit
 *   before any CPU switches, one that a SCHED_FIFO task holds included;
 * - each node's CPUs take their own node's magazines from its barn;
 * - a drain, a switch to single mode and an unload leave no barn page;
 *   the shrinker takes the barn's pages before any CPU's;
 * - CPUs going offline, every CPU of a node among them: the pages walked
 *   stay within the quarter of RAM (issue 50's defect 4).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pcpcache_harness.h"
#include "pcpcache_stress.h"

/* a magazine of order 0 in the exact cases: small, so that counts are plain */
#define BATCH		8
/* the purger pattern: a burst of frees a round, four magazines of the default batch */
#define PURGE_BURST	256
#define PURGE_ROUNDS	40
#define TRACING		"/sys/kernel/tracing"

FIXTURE(barn) {
	struct pcp_stats st;
	char why[256];
	int fd;
	int cpu;	/* where the exact cases run: the second CPU, if any */
	struct pcp_cpu_hold hold;	/* a CPU a case holds, let go here */
};

FIXTURE_SETUP(barn)
{
	const char *why = pcp_skip_reason();

	self->fd = -1;
	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, pcp_reload("mode=barn"));
	self->fd = pcp_open_user();
	ASSERT_LE(0, self->fd);
	self->cpu = pcp_nr_cpus() > 1 ? 1 : 0;
}

/* Bring every CPU that can go offline online again; the test's own */
static void cpus_back_online(void)
{
	char path[96];
	int cpu;

	for (cpu = 1; cpu < PCP_MAX_CPUS; cpu++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d", cpu);
		if (!pcp_exists(path))
			break;
		pcp_cpu_set_online(cpu, true);
	}
}

FIXTURE_TEARDOWN(barn)
{
	pcp_release_cpu(&self->hold);
	cpus_back_online();
	PCP_USER_FILE_TEARDOWN();
}

/* counter @name of self->st less that of @before */
#define DELTA(before, name)	\
	(pcp_stat(&self->st, name) - pcp_stat(before, name))

/* Read the counters into self->st (no audit: the exact cases are many). */
#define READ_STATS()	ASSERT_EQ(0, pcp_read_stats(&self->st))

/* The blocks of @order on @cpu's lists (main and spare), from pagesets. */
static long cpu_blocks(int cpu, unsigned int order)
{
	static struct pcp_pageset sets[PCP_MAX_CPUS];
	int i, nr = pcp_read_pagesets(sets, PCP_MAX_CPUS);

	for (i = 0; i < nr; i++)
		if (sets[i].cpu == cpu)
			return sets[i].order[order];
	return -1;
}

/* @nr blocks of @order allocated, or freed, on the CPU the caller is on. */
#define ALLOC(nr, order)						\
	ASSERT_EQ(0, pcp_alloc(self->fd, nr, PCPCACHE_ORDER(order), NULL))
#define FREE(nr, order)							\
	ASSERT_EQ(0, pcp_free(self->fd, nr, PCPCACHE_ORDER(order), NULL))

/*
 * With batch 8 on one CPU, each order's magazine holds b = 8 >> order
 * blocks. From empty lists and an empty barn:
 *
 *   allocate 3b    three refills of b from the buddy allocator
 *   free b + 1     main over b, the spare empty: they swap (main keeps 1)
 *   free b         main over b again: to the barn, a full magazine
 *   free b - 1     main b, spare b, barn b: all 3b cached, none given back
 *   allocate 3b    main's b; the spare swapped in; the barn's magazine
 *                  taken: no refill, the buddy allocator untouched
 *
 * Each step's counters exactly, the barn line of stats and the CPU's
 * blocks in pagesets' order columns (main and spare); the books and the
 * page audit after each order.
 */
TEST_F(barn, exchanges_counted_exactly_every_order)
{
	struct pcp_stats before;
	unsigned int order;
	char name[32];
	long b, pages;

	ASSERT_EQ(0, pcp_write("config", "batch=8 high=378 barn_full=4"));
	ASSERT_EQ(0, pcp_pin(self->cpu));
	for (order = 0; order < PCP_NR_ORDERS; order++) {
		b = BATCH >> order;
		pages = b << order;
		ASSERT_EQ(0, pcp_write("drain", "1"));
		ASSERT_EQ(0, pcp_read_stats(&before));
		ASSERT_EQ(0, pcp_stat(&before, "cached"));

		ALLOC(3 * b, order);
		READ_STATS();
		snprintf(name, sizeof(name), "order%u_refill", order);
		EXPECT_EQ(3, DELTA(&before, name)) {
			TH_LOG("order %u: %s", order, name);
		}
		EXPECT_EQ(3 * pages, DELTA(&before, "buddy_alloc"));
		EXPECT_EQ(0, DELTA(&before, "barn_swaps"));
		EXPECT_EQ(0, DELTA(&before, "barn_took_full"));
		EXPECT_EQ(0, pcp_stat(&self->st, "cached"));

		FREE(b + 1, order);
		READ_STATS();
		EXPECT_EQ(1, DELTA(&before, "barn_swaps")) {
			TH_LOG("order %u: main over %ld blocks, the spare empty", order, b);
		}
		EXPECT_EQ(0, DELTA(&before, "barn_gave_full"));
		EXPECT_EQ(b + 1, cpu_blocks(self->cpu, order));

		FREE(b, order);
		READ_STATS();
		EXPECT_EQ(1, DELTA(&before, "barn_gave_full")) {
			TH_LOG("order %u: main over %ld blocks again, the spare full", order, b);
		}
		EXPECT_EQ(pages, pcp_stat(&self->st, "barn"));
		EXPECT_EQ(0, DELTA(&before, "barn_flushes"));

		if (b > 1)
			FREE(b - 1, order);
		ASSERT_BOOKS_BALANCE();
		EXPECT_EQ(3 * pages, pcp_stat(&self->st, "cached"));
		EXPECT_EQ(pages, pcp_stat(&self->st, "barn"));
		EXPECT_EQ(0, DELTA(&before, "buddy_free"));
		EXPECT_EQ(1, DELTA(&before, "barn_swaps"));
		EXPECT_EQ(1, DELTA(&before, "barn_gave_full"));
		/* main and spare: the barn's magazine is no CPU's */
		EXPECT_EQ(2 * b, cpu_blocks(self->cpu, order));

		ALLOC(3 * b, order);
		ASSERT_BOOKS_BALANCE();
		EXPECT_EQ(2, DELTA(&before, "barn_swaps"));
		EXPECT_EQ(1, DELTA(&before, "barn_took_full")) {
			TH_LOG("order %u: main and spare empty, a full magazine in the barn", order);
		}
		EXPECT_EQ(3, DELTA(&before, name));
		EXPECT_EQ(3 * pages, DELTA(&before, "buddy_alloc"));
		snprintf(name, sizeof(name), "order%u_hit", order);
		EXPECT_EQ(6 * b - 3, DELTA(&before, name));
		EXPECT_EQ(0, pcp_stat(&self->st, "cached"));
		EXPECT_EQ(0, pcp_stat(&self->st, "barn"));
		EXPECT_EQ(0, cpu_blocks(self->cpu, order));
		EXPECT_EQ(0, DELTA(&before, "barn_busy"));

		FREE(3 * b, order);
	}
}

/*
 * With barn_full 0 the barn takes nothing: the second overflow flushes
 * main to the buddy allocator (a drain of b pages), and the allocations
 * after main and spare ran empty refill.
 */
TEST_F(barn, a_full_barn_flushes_main)
{
	struct pcp_stats before;

	ASSERT_EQ(0, pcp_write("config", "batch=8 high=378 barn_full=0"));
	ASSERT_EQ(0, pcp_pin(self->cpu));
	ASSERT_EQ(0, pcp_write("drain", "1"));
	ASSERT_EQ(0, pcp_read_stats(&before));

	ALLOC(3 * BATCH, 0);
	FREE(BATCH + 1, 0);
	READ_STATS();
	EXPECT_EQ(1, DELTA(&before, "barn_swaps"));
	EXPECT_EQ(0, DELTA(&before, "barn_flushes"));
	FREE(BATCH, 0);
	ASSERT_BOOKS_BALANCE();
	EXPECT_EQ(1, DELTA(&before, "barn_flushes"));
	EXPECT_EQ(0, DELTA(&before, "barn_gave_full"));
	EXPECT_EQ(BATCH, DELTA(&before, "buddy_free"));
	EXPECT_EQ(1, DELTA(&before, "drain"));
	EXPECT_EQ(BATCH, DELTA(&before, "drain_pages"));
	EXPECT_EQ(0, pcp_stat(&self->st, "barn"));
	EXPECT_EQ(BATCH + 1, pcp_stat(&self->st, "cached"));
	FREE(BATCH - 1, 0);
	ASSERT_BOOKS_BALANCE();
	EXPECT_EQ(2 * BATCH, pcp_stat(&self->st, "cached"));

	/* main's 8, the spare's 8, then a refill: no full magazine to take */
	ALLOC(2 * BATCH + 1, 0);
	ASSERT_BOOKS_BALANCE();
	EXPECT_EQ(2, DELTA(&before, "barn_swaps"));
	EXPECT_EQ(0, DELTA(&before, "barn_took_full"));
	EXPECT_EQ(4, DELTA(&before, "refill"));
	EXPECT_EQ(4 * BATCH, DELTA(&before, "buddy_alloc"));
	EXPECT_EQ(BATCH - 1, pcp_stat(&self->st, "cached"));
	FREE(2 * BATCH + 1, 0);
}

/*
 * pagesets in barn mode: count, high and batch are the main magazine's,
 * spare the pages in the spare, barn those of the CPU's node's barn; the
 * order columns count the blocks of main and spare, which count and
 * spare add up to. After batch 8 and 4 magazines' worth freed on one CPU:
 * main 8, spare 8, one magazine of 8 in the barn (it has every CPU's
 * line of the node).
 */
TEST_F(barn, pagesets_shows_main_spare_and_barn)
{
	static struct pcp_pageset sets[PCP_MAX_CPUS];
	int i, nr;

	ASSERT_EQ(0, pcp_write("config", "batch=8 high=378 barn_full=4"));
	ASSERT_EQ(0, pcp_pin(self->cpu));
	ASSERT_EQ(0, pcp_write("drain", "1"));
	ALLOC(3 * BATCH, 0);
	FREE(3 * BATCH, 0);
	ASSERT_BOOKS_BALANCE();
	EXPECT_EQ(3 * BATCH, pcp_stat(&self->st, "cached"));
	EXPECT_EQ(BATCH, pcp_stat(&self->st, "barn"));
	nr = pcp_read_pagesets(sets, PCP_MAX_CPUS);
	ASSERT_LT(self->cpu, nr);
	for (i = 0; i < nr; i++) {
		EXPECT_EQ(BATCH, sets[i].high);
		EXPECT_EQ(BATCH, sets[i].batch);
		EXPECT_EQ(-1, sets[i].cold_count);
		EXPECT_EQ(pcp_pageset_pages(&sets[i]), sets[i].count + sets[i].spare) {
			TH_LOG("cpu %d: count %ld + spare %ld, order0 %ld",
			       sets[i].cpu, sets[i].count, sets[i].spare,
			       sets[i].order[0]);
		}
		/* its node's barn: this one, or another node's, empty */
		EXPECT_TRUE(sets[i].barn == BATCH || sets[i].barn == 0) {
			TH_LOG("cpu %d: barn %ld", sets[i].cpu, sets[i].barn);
		}
		if (sets[i].cpu != self->cpu)
			EXPECT_EQ(0, pcp_pageset_pages(&sets[i]));
	}
	EXPECT_EQ(BATCH, sets[self->cpu].count);
	EXPECT_EQ(BATCH, sets[self->cpu].spare);
	EXPECT_EQ(BATCH, sets[self->cpu].barn);
	EXPECT_EQ(2 * BATCH, sets[self->cpu].order[0]);
	/* and in single mode no such column */
	ASSERT_EQ(0, pcp_write("mode", "single"));
	ASSERT_LT(self->cpu, pcp_read_pagesets(sets, PCP_MAX_CPUS));
	EXPECT_EQ(-1, sets[self->cpu].spare);
	EXPECT_EQ(-1, sets[self->cpu].barn);
	EXPECT_EQ(2 * BATCH, sets[self->cpu].count);
}

/*
 * One round of the purger pattern: CPU 1 allocates PURGE_BURST, CPU 0
 * frees them, PURGE_ROUNDS times, in the mode in force. Return: the pages
 * taken from and given back to the buddy allocator per 1000 operations.
 */
static double purger(struct __test_metadata *_metadata,
		     FIXTURE_DATA(barn) *self)
{
	struct pcp_stats before;
	long long ops, buddy;
	int round;

	ASSERT_EQ(0, pcp_write("drain", "1"));
	ASSERT_EQ(0, pcp_read_stats(&before));
	for (round = 0; round < PURGE_ROUNDS; round++) {
		ASSERT_EQ(0, pcp_pin(1));
		ALLOC(PURGE_BURST, 0);
		ASSERT_EQ(0, pcp_pin(0));
		FREE(PURGE_BURST, 0);
	}
	ASSERT_BOOKS_BALANCE();
	ops = DELTA(&before, "alloc") + DELTA(&before, "free");
	buddy = DELTA(&before, "buddy_alloc") + DELTA(&before, "buddy_free");
	EXPECT_EQ(2LL * PURGE_ROUNDS * PURGE_BURST, ops);
	return 1000.0 * buddy / ops;
}

/*
 * The purger pattern, one CPU freeing what another allocates, under the
 * default knobs: in single mode the freeing CPU's list overflows to the
 * buddy allocator and the allocating CPU's runs dry from it, nearly a
 * page each way per operation; in barn mode the freeing CPU's full mains
 * go to the barn and the allocating CPU takes them there: at least 8
 * times fewer buddy pages in the same run.
 */
TEST_F(barn, purger_pattern_goes_through_the_barn)
{
	double single, barn;
	struct pcp_stats before;

	if (pcp_nr_cpus() < 2)
		SKIP(return, "needs two CPUs, this machine has one");
	ASSERT_EQ(0, pcp_write("mode", "single"));
	single = purger(_metadata, self);
	ASSERT_EQ(0, pcp_write("mode", "barn"));
	ASSERT_EQ(0, pcp_read_stats(&before));
	barn = purger(_metadata, self);
	TH_LOG("buddy pages per 1000 operations: single %.1f, barn %.1f; barn: %lld full magazines given, %lld taken, %lld flushed, %lld trimmed, %lld busy",
	       single, barn, DELTA(&before, "barn_gave_full"),
	       DELTA(&before, "barn_took_full"), DELTA(&before, "barn_flushes"),
	       DELTA(&before, "barn_trimmed"), DELTA(&before, "barn_busy"));
	EXPECT_LT(500.0, single);
	EXPECT_LE(8 * barn, single);
	EXPECT_LT(0, DELTA(&before, "barn_took_full"));
	/* every magazine given to the barn was taken, trimmed or is there */
	EXPECT_EQ(DELTA(&before, "barn_gave_full"),
		  DELTA(&before, "barn_took_full") + DELTA(&before, "barn_trimmed") +
		  pcp_stat(&self->st, "barn") / 63);
}

/*
 * Children that wake every CPU each 50 ms, so that a timer fires on time
 * on whichever CPU it is, deferrable or not; they die with the
 * test, and do not hold @fd (the module would stay in use).
 */
static int wake_cpus(pid_t *pids, int fd)
{
	int cpu, nr = pcp_nr_cpus();

	for (cpu = 0; cpu < nr; cpu++) {
		pids[cpu] = fork();
		if (pids[cpu] < 0)
			return cpu;
		if (!pids[cpu]) {
			close(fd);
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			pcp_pin(cpu);
			for (;;)
				usleep(50000);
		}
	}
	return nr;
}

static void stop_cpus_waking(pid_t *pids, int nr)
{
	int i;

	for (i = 0; i < nr; i++) {
		if (pids[i] <= 0)
			continue;
		kill(pids[i], SIGKILL);
		waitpid(pids[i], NULL, 0);
	}
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * One cycle of the steady use: with main and spare full and the working
 * magazine in the barn, allocate 3 magazines' worth and free them again;
 * the barn goes one down (took_full) and back up (gave_full).
 */
#define CYCLE() do {							\
	ALLOC(3 * BATCH, 0);						\
	FREE(3 * BATCH, 0);						\
	cycles++;							\
} while (0)

/* One trim, now: the end of an interval the test decides */
#define TRIM()	ASSERT_EQ(0, pcp_write("barn_trim", "1"))

/* main 8, spare 8 and four full magazines in the barn, from empty */
#define FILL_FOUR() do {						\
	ASSERT_EQ(0, pcp_write("drain", "1"));				\
	ALLOC(6 * BATCH, 0);						\
	FREE(6 * BATCH, 0);						\
} while (0)

/*
 * The trim, Bonwick's working set: each trim gives back the fewest full
 * magazines the barn held since the last one, which nobody needed. The
 * test ends each interval itself (barn_trim, the timer off). Four
 * magazines in the barn, one of them taken and given back in each
 * interval: the first trim gives back nothing (the estimate starts), the
 * second the three idle ones, and then the working one stays however
 * many intervals it is used in; an interval without use, and it goes
 * too. The CPU's own two magazines stay. Exact: nothing else uses the
 * barn, so it is never busy and no page comes from the buddy allocator.
 */
TEST_F(barn, trim_gives_back_what_was_not_needed)
{
	long long cycles = 0;
	struct pcp_stats before;
	int i;

	/* the timer off: the estimate starts at 0 (the drain emptied the barn) */
	ASSERT_EQ(0, pcp_write("barn_trim_ms", "0"));
	ASSERT_EQ(0, pcp_write("config", "batch=8 high=378 barn_full=4"));
	ASSERT_EQ(0, pcp_pin(self->cpu));
	FILL_FOUR();
	ASSERT_BOOKS_BALANCE();
	ASSERT_EQ(4 * BATCH, pcp_stat(&self->st, "barn"));
	ASSERT_EQ(6 * BATCH, pcp_stat(&self->st, "cached"));
	before = self->st;
	TRIM();
	READ_STATS();
	EXPECT_EQ(0, DELTA(&before, "barn_trimmed"));
	EXPECT_EQ(4 * BATCH, pcp_stat(&self->st, "barn"));

	CYCLE();
	CYCLE();
	TRIM();
	READ_STATS();
	EXPECT_EQ(3, DELTA(&before, "barn_trimmed"));
	EXPECT_EQ(3 * BATCH, DELTA(&before, "drain_pages"));
	EXPECT_EQ(BATCH, pcp_stat(&self->st, "barn"));

	/* the working magazine is needed in every interval */
	for (i = 0; i < 3; i++) {
		CYCLE();
		TRIM();
	}
	/* a trim while it is out of the barn, then one after it came back */
	ALLOC(3 * BATCH, 0);
	TRIM();
	READ_STATS();
	EXPECT_EQ(0, pcp_stat(&self->st, "barn"));
	FREE(3 * BATCH, 0);
	cycles++;
	TRIM();
	ASSERT_BOOKS_BALANCE();
	EXPECT_EQ(3, DELTA(&before, "barn_trimmed"));
	EXPECT_EQ(BATCH, pcp_stat(&self->st, "barn"));
	EXPECT_EQ(cycles, DELTA(&before, "barn_took_full"));
	EXPECT_EQ(cycles, DELTA(&before, "barn_gave_full"));
	EXPECT_EQ(0, DELTA(&before, "barn_busy"));
	EXPECT_EQ(0, DELTA(&before, "buddy_alloc"));
	EXPECT_EQ(3 * BATCH, DELTA(&before, "drain_pages"));

	/* one interval without use: it goes back too, and only the barn's */
	TRIM();
	ASSERT_BOOKS_BALANCE();
	EXPECT_EQ(4, DELTA(&before, "barn_trimmed"));
	EXPECT_EQ(0, pcp_stat(&self->st, "barn"));
	EXPECT_EQ(4 * BATCH, DELTA(&before, "drain_pages"));
	EXPECT_EQ(4 * BATCH, DELTA(&before, "buddy_free"));
	EXPECT_EQ(2 * BATCH, pcp_stat(&self->st, "cached"));
	/* and a trim more takes nothing of the CPU's own */
	TRIM();
	READ_STATS();
	EXPECT_EQ(4, DELTA(&before, "barn_trimmed"));
	EXPECT_EQ(2 * BATCH, pcp_stat(&self->st, "cached"));
}

/*
 * The timer: in barn mode it trims every barn_trim_ms (5000 at load);
 * children keep every CPU awake, for a timer made deferrable. Set outside
 * barn mode, the interval arms nothing; the switch into barn mode arms it.
 * Left alone, four magazines go back in two intervals of 200 ms, waited
 * for up to 20 s; at the default 5 s they would take 10, so they must go
 * within 8. With the timer off (0) again, a magazine given to the barn
 * stays for 5 intervals.
 */
TEST_F_TIMEOUT(barn, the_timer_trims_every_interval, 60)
{
	pid_t wakers[PCP_MAX_CPUS] = { 0 };
	struct pcp_stats before;
	double start, t;
	int nr_wakers;
	long ms;

	ASSERT_EQ(0, pcp_read_long("barn_trim_ms", &ms));
	EXPECT_EQ(5000, ms);
	ASSERT_EQ(0, pcp_write("config", "mode=single batch=8 high=378 barn_full=4"));
	ASSERT_EQ(0, pcp_write("barn_trim_ms", "200"));
	ASSERT_EQ(0, pcp_read_long("barn_trim_ms", &ms));
	EXPECT_EQ(200, ms);
	ASSERT_EQ(0, pcp_pin(self->cpu));
	nr_wakers = wake_cpus(wakers, self->fd);
	ASSERT_EQ(0, pcp_write("mode", "barn"));
	start = now_s();
	ASSERT_EQ(0, pcp_read_stats(&before));
	FILL_FOUR();
	do {
		usleep(20000);
		READ_STATS();
	} while (pcp_stat(&self->st, "barn") && now_s() - start < 20);
	t = now_s() - start;
	/* no trim under way (the write waits for it): the counters agree */
	ASSERT_EQ(0, pcp_write("barn_trim_ms", "0"));
	ASSERT_BOOKS_BALANCE();
	EXPECT_EQ(0, pcp_stat(&self->st, "barn")) {
		TH_LOG("the barn still holds %lld pages %.1f s later",
		       pcp_stat(&self->st, "barn"), t);
	}
	EXPECT_EQ(4, DELTA(&before, "barn_trimmed"));
	EXPECT_EQ(2 * BATCH, pcp_stat(&self->st, "cached"));
	EXPECT_GT(8.0, t);
	TH_LOG("four idle magazines given back by the timer in %.2f s", t);

	/* main and spare full: a magazine more, from a refill, goes to the barn */
	ALLOC(3 * BATCH, 0);
	FREE(3 * BATCH, 0);
	READ_STATS();
	ASSERT_EQ(BATCH, pcp_stat(&self->st, "barn"));
	usleep(1000000);
	stop_cpus_waking(wakers, nr_wakers);
	ASSERT_BOOKS_BALANCE();
	EXPECT_EQ(BATCH, pcp_stat(&self->st, "barn"));
	EXPECT_EQ(4, DELTA(&before, "barn_trimmed"));
}

/*
 * Issue 50's defect 3: one deferrable work trimmed every barn, bound to
 * the CPU that armed it, so a barn whose own CPUs were busy waited for
 * that CPU to run it. A CPU that sleeps is the case the issue names, but
 * it cannot be shown here: an idle vCPU of the guest takes about five
 * timer interrupts a second (/proc/interrupts' LOC), and a deferrable
 * timer is late by no more. A CPU that a SCHED_FIFO task holds (RT
 * throttling off) is the case that can: the work bound to it never runs.
 * The switch into barn mode is written from CPU @armer, which the task
 * then holds; the test, on the last CPU, fills that CPU's node's barn
 * with four magazines nobody takes. With barn_trim_ms 200 the barn must
 * be empty within 10 s, about three intervals under emulation.
 */
TEST_F_TIMEOUT(barn, the_trim_runs_while_the_arming_cpu_cannot, 60)
{
	int busy = pcp_nr_cpus() - 1, armer = busy > 1 ? 1 : 0;
	struct pcp_stats before;
	double start, t;

	if (busy < 1)
		SKIP(return, "needs two CPUs, this machine has one");
	ASSERT_EQ(0, pcp_write("barn_trim_ms", "0"));
	ASSERT_EQ(0, pcp_write("config", "mode=single batch=8 high=378 barn_full=4"));
	ASSERT_EQ(0, pcp_write("drain", "1"));
	ASSERT_EQ(0, pcp_write("barn_trim_ms", "200"));
	ASSERT_EQ(0, pcp_pin(armer));
	ASSERT_EQ(0, pcp_write("mode", "barn"));
	ASSERT_EQ(0, pcp_pin(busy));
	ASSERT_EQ(0, pcp_hold_cpu(armer, &self->hold));
	ASSERT_EQ(0, pcp_read_stats(&before));
	/* main 8, spare 8 and four full magazines in the barn */
	ALLOC(6 * BATCH, 0);
	FREE(6 * BATCH, 0);
	READ_STATS();
	start = now_s();
	EXPECT_EQ(4 * BATCH, pcp_stat(&self->st, "barn"));
	do {
		usleep(20000);
		READ_STATS();
	} while (pcp_stat(&self->st, "barn") && now_s() - start < 10);
	t = now_s() - start;
	pcp_release_cpu(&self->hold);
	ASSERT_EQ(0, pcp_write("barn_trim_ms", "0"));
	TH_LOG("CPU %d armed the trim and was held, CPU %d filled its barn: %lld pages there %.2f s later, %lld magazines trimmed",
	       armer, busy, pcp_stat(&self->st, "barn"), t,
	       DELTA(&before, "barn_trimmed"));
	EXPECT_EQ(0, pcp_stat(&self->st, "barn"));
	EXPECT_EQ(4, DELTA(&before, "barn_trimmed"));
	ASSERT_BOOKS_BALANCE();
	EXPECT_EQ(2 * BATCH, pcp_stat(&self->st, "cached"));
}

/*
 * The pages the audit walks (every CPU stopped): cached, in transit and at
 * home, the barns' among them; -1 when it cannot be read.
 */
static long long audit_walked(void)
{
	struct pcp_stats st;
	int i, err = -EAGAIN;

	for (i = 0; i < 10 && err == -EAGAIN; i++) {
		err = pcp_read_named("audit", &st);
		if (err == -EAGAIN)
			usleep(100000);
	}
	if (err)
		return -1;
	return pcp_stat(&st, "walked_cached") + pcp_stat(&st, "walked_transit") +
	       pcp_stat(&st, "walked_blocks");
}

/*
 * Issue 50's defect 4: a CPU going offline gave back its main and spare,
 * but not its node's barn when it was the node's last CPU, and the
 * bound's share per CPU grows as CPUs go: a write then let the CPUs left
 * fill their own share on top of the orphaned barn. Every CPU and every
 * barn filled to the bound (pcp_fill_to_limit()); every CPU but CPU 0
 * taken offline, which with two nodes takes one node's every CPU; the
 * barn line then holds CPU 0's node's barn alone, and everything filled
 * again to the bound of one CPU, the whole quarter of RAM: the pages the
 * audit walks are within it. The timer is off, as with barn_trim_ms 0,
 * where nothing else gave the orphan back.
 */
TEST_F_TIMEOUT(barn, losing_cpus_and_nodes_keeps_the_bound, 300)
{
	static struct pcp_pageset sets[PCP_MAX_CPUS];
	int cpu, nr = pcp_nr_cpus(), nodes = pcp_nr_cpu_nodes();
	unsigned long quarter;
	long long walked;
	long filled;

	if (nr < 2 || !pcp_exists("/sys/devices/system/cpu/cpu1/online"))
		SKIP(return, "needs a second CPU that can go offline");
	ASSERT_EQ(0, pcp_write("barn_trim_ms", "0"));
	ASSERT_EQ(0, pcp_pin(0));
	filled = pcp_fill_to_limit(self->fd, false);
	ASSERT_LT(0, filled);
	READ_STATS();
	TH_LOG("%d CPUs, %d nodes: %ld pages cached, %lld of them in the barns",
	       nr, nodes, filled, pcp_stat(&self->st, "barn"));
	for (cpu = nr - 1; cpu > 0; cpu--)
		ASSERT_EQ(0, pcp_cpu_set_online(cpu, false)) {
			TH_LOG("cpu%d offline", cpu);
		}
	ASSERT_EQ(1, pcp_nr_cpus());
	ASSERT_BOOKS_BALANCE();
	ASSERT_LE(1, pcp_read_pagesets(sets, PCP_MAX_CPUS));
	ASSERT_EQ(0, sets[0].cpu);
	EXPECT_EQ(sets[0].barn, pcp_stat(&self->st, "barn")) {
		TH_LOG("the barns hold %lld pages, CPU 0's node's %ld: a barn without CPUs kept its pages",
		       pcp_stat(&self->st, "barn"), sets[0].barn);
	}

	/* one CPU online: its bound is the whole quarter */
	quarter = pcp_max_high_sum();
	ASSERT_LT(0UL, quarter);
	filled = pcp_fill_to_limit(self->fd, false);
	ASSERT_LT(0, filled);
	walked = audit_walked();
	ASSERT_LE(0, walked);
	TH_LOG("one CPU online: %ld pages cached, %lld walked, the quarter of RAM %lu",
	       filled, walked, quarter);
	EXPECT_GE((long long)quarter, walked);
	cpus_back_online();
	ASSERT_EQ(nr, pcp_nr_cpus());
	ASSERT_BOOKS_BALANCE();
}

/* The configuration as the config file says it; -1 when unreadable. */
static int read_config(char *buf, size_t size)
{
	char path[256];

	pcp_path(path, sizeof(path), "config");
	return pcp_read_file(path, buf, size) > 0 ? 0 : -1;
}

/*
 * barn_full takes 0 to 32 in every mode: 33 is refused (EINVAL) with
 * nothing changed, not even the generation; so is barn_empty, a key no
 * more (its count of empty magazines decided nothing). In barn mode
 * barn_full is also bounded by (2 + barn_full) * batch * 4 <= the
 * per-CPU bound (limits' max_high_sum), a batch raised too.
 */
TEST_F(barn, knobs_within_their_rules)
{
	unsigned long max_sum = pcp_max_high_sum(), batch, full;
	char before[256], after[256], val[96];
	long gen, gen_after;

	ASSERT_LT(0UL, max_sum);
	ASSERT_EQ(0, read_config(before, sizeof(before)));
	ASSERT_EQ(0, pcp_read_long("generation", &gen));
	EXPECT_EQ(-EINVAL, pcp_write("barn_full", "33"));
	EXPECT_EQ(-EINVAL, pcp_write("config", "barn_full=33"));
	EXPECT_EQ(-EINVAL, pcp_write("config", "barn_empty=4"));
	ASSERT_EQ(0, read_config(after, sizeof(after)));
	EXPECT_STREQ(before, after);
	ASSERT_EQ(0, pcp_read_long("generation", &gen_after));
	EXPECT_EQ(gen, gen_after);
	EXPECT_EQ(0, pcp_write("barn_full", "0"));

	/* a batch with which 32 full magazines do not fit the bound */
	batch = max_sum / PCP_BARN_PAGES(1, PCP_BARN_MAX) + 1;
	full = max_sum / (batch * PCP_BARN_ORDERS) - 2;
	ASSERT_GT(PCP_BARN_MAX, full);
	snprintf(val, sizeof(val), "batch=%lu high=%lu barn_full=%lu", batch,
		 batch < 378 ? 378 : batch, full);
	ASSERT_EQ(0, pcp_write("config", val));
	ASSERT_EQ(0, read_config(before, sizeof(before)));
	snprintf(val, sizeof(val), "%lu", full + 1);
	EXPECT_EQ(-EINVAL, pcp_write("barn_full", val)) {
		TH_LOG("barn_full %s with batch %lu: (2 + %s) * %lu * 4 > %lu",
		       val, batch, val, batch, max_sum);
	}
	EXPECT_EQ(-EINVAL, pcp_write("barn_full", "32"));
	ASSERT_EQ(0, read_config(after, sizeof(after)));
	EXPECT_STREQ(before, after);
	/* the same in single mode is no barn's business */
	ASSERT_EQ(0, pcp_write("mode", "single"));
	EXPECT_EQ(0, pcp_write("barn_full", "32"));
	/* ... until it switches back */
	EXPECT_EQ(-EINVAL, pcp_write("mode", "barn"));
	ASSERT_EQ(0, read_config(after, sizeof(after)));
	EXPECT_TRUE(strstr(after, "mode=single") && strstr(after, " barn_full=32\n")) {
		TH_LOG("config: %s", after);
	}
}

/*
 * Fill the barn with @nr full magazines of batch pages (order 0) from
 * @cpu, whose main and spare it leaves full too.
 */
#define FILL_BARN(cpu, nr, batch) do {					\
	ASSERT_EQ(0, pcp_pin(cpu));					\
	ALLOC((2 + (nr)) * (batch), 0);					\
	FREE((2 + (nr)) * (batch), 0);					\
} while (0)

/*
 * A lowered batch is in force at once, for the barn's magazines too: a
 * CPU's main and spare are cut to the new batch, and a magazine filled
 * under the old one is not handed to a CPU whole (given back or cut to
 * the new size). With batch 63, four full magazines in the barn and main
 * and spare full on one CPU; batch 10; another CPU allocates one page and
 * frees it: its main holds 10 at most, the refill's or a magazine cut to
 * 10, never the old magazine's 63.
 */
TEST_F(barn, a_lowered_batch_holds_for_the_barns_magazines)
{
	static struct pcp_pageset sets[PCP_MAX_CPUS];
	int other = self->cpu ? 0 : 1;

	if (pcp_nr_cpus() < 2)
		SKIP(return, "needs two CPUs, this machine has one");
	ASSERT_EQ(0, pcp_write("config", "batch=63 high=378 barn_full=4"));
	ASSERT_EQ(0, pcp_write("drain", "1"));
	FILL_BARN(self->cpu, 4, 63);
	ASSERT_BOOKS_BALANCE();
	ASSERT_EQ(4 * 63, pcp_stat(&self->st, "barn"));
	ASSERT_EQ(0, pcp_write("batch", "10"));
	ASSERT_BOOKS_BALANCE();
	ASSERT_LT(self->cpu, pcp_read_pagesets(sets, PCP_MAX_CPUS));
	EXPECT_GE(10, sets[self->cpu].count);
	EXPECT_GE(10, sets[self->cpu].spare);
	ASSERT_EQ(0, pcp_pin(other));
	ALLOC(1, 0);
	ASSERT_BOOKS_BALANCE();
	ASSERT_LT(other, pcp_read_pagesets(sets, PCP_MAX_CPUS));
	EXPECT_GE(10, sets[other].count) {
		TH_LOG("cpu %d: main holds %ld pages with batch 10 after one allocation (barn %lld pages, %lld magazines taken)",
		       other, sets[other].count, pcp_stat(&self->st, "barn"),
		       pcp_stat(&self->st, "barn_took_full"));
	}
	FREE(1, 0);
	ASSERT_BOOKS_BALANCE();
	ASSERT_LT(other, pcp_read_pagesets(sets, PCP_MAX_CPUS));
	EXPECT_GE(10, sets[other].count);
	EXPECT_GE(10, sets[other].spare);
}

/*
 * Lowering barn_full gives back at once the full magazines over it, the
 * oldest; raising it takes none back. 0 empties the barn.
 */
TEST_F(barn, lowering_barn_full_gives_back_the_excess)
{
	struct pcp_stats before;

	ASSERT_EQ(0, pcp_write("config", "batch=8 high=378 barn_full=4"));
	ASSERT_EQ(0, pcp_write("drain", "1"));
	FILL_BARN(self->cpu, 4, BATCH);
	ASSERT_BOOKS_BALANCE();
	ASSERT_EQ(4 * BATCH, pcp_stat(&self->st, "barn"));
	before = self->st;
	ASSERT_EQ(0, pcp_write("barn_full", "1"));
	ASSERT_BOOKS_BALANCE();
	EXPECT_EQ(BATCH, pcp_stat(&self->st, "barn"));
	EXPECT_EQ(3 * BATCH, DELTA(&before, "buddy_free"));
	EXPECT_EQ(3 * BATCH, DELTA(&before, "drain_pages"));
	EXPECT_EQ(3 * BATCH, pcp_stat(&before, "cached") - pcp_stat(&self->st, "cached"));
	ASSERT_EQ(0, pcp_write("barn_full", "4"));
	ASSERT_BOOKS_BALANCE();
	EXPECT_EQ(BATCH, pcp_stat(&self->st, "barn"));
	ASSERT_EQ(0, pcp_write("barn_full", "0"));
	ASSERT_BOOKS_BALANCE();
	EXPECT_EQ(0, pcp_stat(&self->st, "barn"));
	EXPECT_EQ(2 * BATCH, pcp_stat(&self->st, "cached"));
}

/*
 * Issue 50's defect 2: a write puts its lower barn limits in force before
 * any CPU switches to the rest of it. Written the other way round, the
 * CPUs that switched first filled the barns under the old barn_full,
 * with magazines of the new batch, until the last CPU had switched:
 * under lock=local, one that a SCHED_FIFO task holds (RT throttling off)
 * switches when the task lets it. From single mode with barn_full 32
 * (no barn's business there), "mode=barn barn_full=0" is written while
 * the last CPU is held; meanwhile CPU 0, switched, frees (2 + 32)
 * magazines: its barn must hold no page, as barn_full 0 says.
 */
TEST_F_TIMEOUT(barn, a_write_lowers_the_barns_before_any_cpu_switches, 120)
{
	int held = pcp_nr_cpus() - 1, status = -1, waited;
	char config[256] = "";
	long long barn, gave;
	struct pcp_stats before;
	bool waiting;
	pid_t writer;

	if (!pcp_lock_is("local"))
		SKIP(return, "a write waits for a held CPU only under lock=local");
	if (held < 2)
		SKIP(return, "needs three CPUs");
	ASSERT_EQ(0, pcp_write("config", "mode=single batch=64 high=384 barn_full=32"));
	ASSERT_EQ(0, pcp_write("drain", "1"));
	ASSERT_EQ(0, pcp_read_stats(&before));
	ASSERT_EQ(0, pcp_hold_cpu(held, &self->hold));
	writer = fork();
	if (!writer) {
		pcp_pin(1);
		_exit(pcp_write("config", "mode=barn barn_full=0") ? 1 : 0);
	}
	/* the write is in force, and CPU 0 has switched, within 5 s */
	for (waited = 0; writer > 0 && waited < 50; waited++) {
		if (!read_config(config, sizeof(config)) &&
		    strstr(config, "mode=barn"))
			break;
		usleep(100000);
	}
	usleep(500000);
	FILL_BARN(0, PCP_BARN_MAX, 64);
	ASSERT_EQ(0, pcp_read_stats(&self->st));
	barn = pcp_stat(&self->st, "barn");
	gave = DELTA(&before, "barn_gave_full");
	waiting = writer > 0 && waitpid(writer, &status, WNOHANG) == 0;
	pcp_release_cpu(&self->hold);
	if (waiting)
		waitpid(writer, &status, 0);
	ASSERT_LT(0, writer);
	TH_LOG("during the write, CPU %d held: the barn held %lld pages, %lld full magazines given, %lld mains flushed",
	       held, barn, gave, DELTA(&before, "barn_flushes"));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) {
		TH_LOG("the write of mode=barn barn_full=0: status %#x", status);
	}
	EXPECT_TRUE(waiting) {
		TH_LOG("the write did not wait for CPU %d, held: nothing is told", held);
	}
	EXPECT_EQ(0, barn);
	ASSERT_BOOKS_BALANCE();
	EXPECT_EQ(0, pcp_stat(&self->st, "barn"));
}

/*
 * Full magazines in every node's barn and pages on every CPU, the books
 * balanced: each node's first CPU fills its barn, the others flush.
 */
#define FILL_EVERYWHERE() do {						\
	int c_, barns_ = pcp_nr_cpu_nodes();				\
									\
	for (c_ = 0; c_ < pcp_nr_cpus(); c_++)				\
		FILL_BARN(c_, 4, BATCH);				\
	ASSERT_BOOKS_BALANCE();						\
	ASSERT_EQ(4LL * BATCH * barns_, pcp_stat(&self->st, "barn"));	\
	ASSERT_LT(4LL * BATCH * barns_, pcp_stat(&self->st, "cached"));	\
} while (0)

/*
 * The node of what a CPU takes from a barn: from empty lists and barns,
 * each node's first CPU in turn allocates six magazines' worth and frees
 * them (main, spare and four full magazines given to its node's barn),
 * then allocates them again (main, spare, and the four taken back from the
 * barn). Every page of both allocations must be of its node (the remote
 * count of the call): a barn of another node would have handed it the
 * magazines an earlier node's CPU left there. One node: the same counts.
 */
TEST_F(barn, each_node_takes_its_own_barns_magazines)
{
	struct pcpcache_pages req = { 0 };
	struct pcp_stats before;
	int n, c, nodes = 0;

	ASSERT_EQ(0, pcp_write("config", "batch=8 high=378 barn_full=4"));
	/* no trim gives a node's magazines back while the next node runs */
	ASSERT_EQ(0, pcp_write("barn_trim_ms", "0"));
	ASSERT_EQ(0, pcp_write("drain", "1"));
	for (n = 0; n < PCP_MAX_CPUS && nodes < pcp_nr_cpu_nodes(); n++) {
		c = pcp_node_cpu(n);
		if (c < 0)
			continue;
		nodes++;
		ASSERT_EQ(0, pcp_pin(c));
		ASSERT_EQ(0, pcp_alloc(self->fd, 6 * BATCH, PCPCACHE_ORDER(0), &req));
		EXPECT_EQ(0U, req.remote) {
			TH_LOG("node %d's CPU %d: %u of %d pages of another node, lists empty",
			       n, c, req.remote, 6 * BATCH);
		}
		FREE(6 * BATCH, 0);
		ASSERT_EQ(0, pcp_read_stats(&before));
		ASSERT_EQ(0, pcp_alloc(self->fd, 6 * BATCH, PCPCACHE_ORDER(0), &req));
		EXPECT_EQ(0U, req.remote) {
			TH_LOG("node %d's CPU %d: %u of %d pages of another node, its barn full",
			       n, c, req.remote, 6 * BATCH);
		}
		READ_STATS();
		EXPECT_EQ(4, DELTA(&before, "barn_took_full"));
		FREE(6 * BATCH, 0);
	}
	ASSERT_BOOKS_BALANCE();
	EXPECT_EQ(4LL * BATCH * nodes, pcp_stat(&self->st, "barn"));
}

/*
 * A drain empties the barns with the CPUs; a switch to single mode gives
 * back what the barns hold and keeps main and spare as single's one list;
 * an unload gives every page back, the barns' too. The page audit walks
 * the barns, and agrees.
 */
TEST_F(barn, drain_switch_and_unload_leave_no_barn_page)
{
	long long mark;

	ASSERT_EQ(0, pcp_write("config", "batch=8 high=378 barn_full=4"));
	FILL_EVERYWHERE();
	ASSERT_EQ(0, pcp_write("drain", "1"));
	ASSERT_BOOKS_BALANCE();
	EXPECT_EQ(0, pcp_stat(&self->st, "barn"));
	EXPECT_EQ(0, pcp_stat(&self->st, "cached"));
	EXPECT_EQ(pcp_stat(&self->st, "buddy_alloc"), pcp_stat(&self->st, "buddy_free"));

	FILL_EVERYWHERE();
	ASSERT_EQ(0, pcp_write("mode", "single"));
	ASSERT_BOOKS_BALANCE();
	EXPECT_EQ(0, pcp_stat(&self->st, "barn"));
	/* each CPU's main and spare, single's list now, within high */
	EXPECT_EQ(2LL * BATCH * pcp_nr_cpus(), pcp_stat(&self->st, "cached"));
	ASSERT_EQ(0, pcp_write("mode", "barn"));
	ASSERT_BOOKS_BALANCE();

	FILL_EVERYWHERE();
	close(self->fd);
	self->fd = -1;
	ASSERT_PAGE_AUDIT();
	mark = pcp_log_mark();
	ASSERT_EQ(0, pcp_run("rmmod pcpcache"));
	EXPECT_EQ(0, pcp_log_grep(mark, "pcpcache: unloaded; buddy_alloc ([1-9][0-9]*) == buddy_free \\1$")) {
		pcp_log_grep(mark, "pcpcache");
	}
}

/* Write @val to tracefs's @file; 0 or -errno. */
static int trace_write(const char *file, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), TRACING "/%s", file);
	return pcp_write_file(path, val);
}

/*
 * The shrinker takes the barns' magazines before any CPU's pages: no CPU
 * uses them. More than a scan's 1024 pages in the barn, filled from CPU
 * 1, and pages on CPU 1's lists; drop_caches from CPU 0, whose lists are
 * empty. In the trace, the first scan (pcpcache_shrink) is preceded only
 * by drains of the calling CPU (the barn's are traced there) that add up
 * to what it freed, at least what it asked: CPU 1's lists were not
 * touched. The whole scan then empties everything; the books and the
 * audit balance.
 */
TEST_F(barn, the_shrinker_takes_the_barn_first)
{
	unsigned long asked = 0, freed = 0, sum = 0;
	int cpu, pages, other = 0, shrinks = 0;
	char line[512], why[32], *p;
	long long barn;
	long mine;
	FILE *f;

	if (pcp_nr_cpus() < 2)
		SKIP(return, "needs two CPUs, this machine has one");
	if (!pcp_exists(TRACING "/events"))
		mount("nodev", TRACING, "tracefs", 0, NULL);
	if (!pcp_exists(TRACING "/events/pcpcache/pcpcache_shrink"))
		SKIP(return, "no tracefs at " TRACING ", or no pcpcache events");
	/* 20 magazines of 63 in the barn: (2 + 20) * 63 * 4 within any bound here */
	ASSERT_EQ(0, pcp_write("config", "batch=63 high=378 barn_full=20"));
	ASSERT_EQ(0, pcp_write("drain", "1"));
	FILL_BARN(1, 20, 63);
	ASSERT_EQ(0, pcp_pin(0));
	ASSERT_BOOKS_BALANCE();
	barn = pcp_stat(&self->st, "barn");
	ASSERT_EQ(20 * 63, barn);
	ASSERT_EQ(0, pcp_pageset_count(0, &mine));
	ASSERT_EQ(0, mine);

	ASSERT_EQ(0, trace_write("tracing_on", "0"));
	ASSERT_EQ(0, trace_write("trace", ""));
	ASSERT_EQ(0, trace_write("events/pcpcache/pcpcache_drain/enable", "1"));
	ASSERT_EQ(0, trace_write("events/pcpcache/pcpcache_shrink/enable", "1"));
	ASSERT_EQ(0, trace_write("tracing_on", "1"));
	ASSERT_EQ(0, pcp_write_file("/proc/sys/vm/drop_caches", "2"));
	trace_write("tracing_on", "0");
	trace_write("events/pcpcache/enable", "0");

	f = fopen(TRACING "/trace", "r");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f) && !shrinks) {
		if (line[0] == '#')
			continue;
		p = strstr(line, "pcpcache_drain: ");
		if (p && sscanf(p, "pcpcache_drain: cpu=%d pages=%d why=%31s",
				&cpu, &pages, why) == 3 && !strcmp(why, "shrinker")) {
			if (cpu == 0)
				sum += pages;
			else
				other += pages;
		}
		p = strstr(line, "pcpcache_shrink: ");
		if (p && sscanf(p, "pcpcache_shrink: nid=%*d asked=%lu freed=%lu",
				&asked, &freed) == 2)
			shrinks++;
	}
	fclose(f);
	trace_write("trace", "");
	ASSERT_EQ(1, shrinks);
	TH_LOG("first scan: asked %lu, freed %lu; before it %lu pages from the barn, %d from CPUs' lists; the barn held %lld",
	       asked, freed, sum, other, barn);
	EXPECT_EQ(0, other);
	EXPECT_EQ(sum, freed);
	EXPECT_LE(asked, freed);
	/* whole magazines, the fewest that make up what was asked */
	EXPECT_EQ(0UL, freed % 63);
	EXPECT_GT(asked + 63, freed);

	pcp_wait_books_balance(self->why, sizeof(self->why));
	ASSERT_BOOKS_BALANCE();
	EXPECT_EQ(0, pcp_stat(&self->st, "barn"));
	EXPECT_EQ(0, pcp_stat(&self->st, "cached"));
}

TEST_HARNESS_MAIN
