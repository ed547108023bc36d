// SPDX-License-Identifier: GPL-2.0
/*
 * Under memory pressure pcpcache's shrinker drains the magazines, so that
 * a program can get memory they hold without the OOM killer, also while a
 * CPU is held by a SCHED_FIFO busy loop.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pcpcache_reclaim.h"

/*
 * Fill every magazine, then ask for more memory than is free without them:
 * only the shrinker can make room, without the OOM killer.
 */
/* minutes on a debug kernel, where every page costs 50 times more */
TEST_F_TIMEOUT(reclaim, shrinker_gives_memory_back, 900)
{
	long free_kb, want_kb, cached_before, ms;
	long long mark;
	int status;

	/*
	 * Watermark boosting (oom.c says why) held back 72 MB on the debug
	 * kernel, more than the quarter of the cache left unasked
	 */
	ASSERT_LT(0, pcp_read_file(PCP_WATERMARK_BOOST, self->boost, sizeof(self->boost)));
	ASSERT_EQ(0, pcp_write_file(PCP_WATERMARK_BOOST, "0"));
	cached_before = pcp_fill_to_limit(self->fd, variant->split);
	ASSERT_LT(0, cached_before);
	ASSERT_BOOKS_BALANCE();
	EXPECT_LT(pcp_meminfo_kb("MemTotal") / 4 / 4 / 2, cached_before);

	/*
	 * what is free above the watermarks, not MemAvailable (its high
	 * watermark and guesses of reclaimable memory); page tables, 8 bytes
	 * a page, come out of the same memory
	 */
	free_kb = pcp_free_to_process_kb();
	ASSERT_LT(0, free_kb);
	want_kb = (free_kb + cached_before * 4 * 3 / 4) * 512 / 513;
	TH_LOG("free %ld kB, cached %ld kB: asking for %ld kB",
	       free_kb, cached_before * 4, want_kb);
	mark = pcp_log_mark();

	status = pcp_use_memory(want_kb, &ms);
	EXPECT_EXITED_0(status);
	EXPECT_EQ(1, pcp_log_grep(mark, "[Oo]ut of memory|oom-kill"));

	ASSERT_BOOKS_BALANCE();
	EXPECT_LT(0, pcp_stat(&self->st, "shrink"));
	EXPECT_LT(0, pcp_stat(&self->st, "shrink_pages"));
	EXPECT_GT(cached_before / 2, pcp_stat(&self->st, "cached"));
	TH_LOG("shrinker: %lld calls gave back %lld pages in %ld ms; cached %ld -> %lld; longest scan %lld us",
	       pcp_stat(&self->st, "shrink"), pcp_stat(&self->st, "shrink_pages"),
	       ms, cached_before, pcp_stat(&self->st, "cached"),
	       pcp_stat(&self->st, "shrink_longest_us"));
}

/*
 * A SCHED_FIFO busy loop on @cpu, for at most @seconds; its pid. The
 * caller leaves @cpu first.
 */
static pid_t hold_cpu(int cpu, int seconds)
{
	struct sched_param sp = { .sched_priority = 1 };
	pid_t pid;

	if (pcp_leave_cpu(cpu))
		return -1;
	pid = fork();
	if (pid)
		return pid;
	alarm(seconds);
	if (pcp_pin(cpu) || sched_setscheduler(0, SCHED_FIFO, &sp))
		_exit(1);
	for (;;)
		;
}

static long read_proc_long(const char *path)
{
	char buf[32];

	return pcp_read_file(path, buf, sizeof(buf)) > 0 ? atol(buf) : -1;
}

/*
 * A CPU held by a SCHED_FIFO busy loop (RT throttling as the kernel sets
 * it) cannot run the work that would give its pages back. Reclaim must not
 * wait for it: the memory comes from the other CPUs, without the OOM
 * killer, and no shrinker scan lasts as long as the loop holds the CPU at
 * a stretch. The time it takes is reported next to the same request with
 * pcpcache unloaded.
 */
TEST_F_TIMEOUT(reclaim, shrinker_does_not_wait_for_a_busy_cpu, 900)
{
	long rt_us = read_proc_long("/proc/sys/kernel/sched_rt_runtime_us");
	long avail_kb, want_kb, cached, ms, ms_without;
	long long mark;
	int held = pcp_nr_cpus() - 1, status;
	char lock[16] = "";
	pid_t hog;

	if (held < 1)
		SKIP(return, "needs a second CPU to hold");
	if (getenv("PCPCACHE_SLOW_KERNEL"))
		SKIP(return, "a test of how long reclaim waits, on a kernel %s times slower (PCPCACHE_SLOW_KERNEL)",
		     getenv("PCPCACHE_SLOW_KERNEL"));
	if (rt_us <= 0)
		SKIP(return, "RT throttling is off (sched_rt_runtime_us %ld): a held CPU would never run its work", rt_us);
	pcp_read_file(PCP_DIR "/lock", lock, sizeof(lock));
	cached = pcp_fill_to_limit(self->fd, variant->split);
	ASSERT_LT(0, cached);
	avail_kb = pcp_meminfo_kb("MemAvailable");
	/*
	 * half of what the CPUs that run hold: under lock=local the held
	 * CPU's pages come back only when throttling lets it run, as the
	 * kernel's own lists did before 6.0, and on a small machine asking
	 * for them too would call the OOM killer whatever the shrinker does
	 */
	want_kb = avail_kb + cached * 4 / 2 * held / (held + 1);
	mark = pcp_log_mark();

	hog = hold_cpu(held, 300);
	ASSERT_LT(0, hog);
	usleep(200000);
	status = pcp_use_memory(want_kb, &ms);
	kill(hog, SIGKILL);
	waitpid(hog, NULL, 0);

	EXPECT_EXITED_0(status);
	EXPECT_EQ(1, pcp_log_grep(mark, "[Oo]ut of memory|oom-kill"));
	/* the held CPU answers late, once it runs */
	pcp_wait_books_balance(self->why, sizeof(self->why));
	ASSERT_BOOKS_BALANCE();
	EXPECT_LT(0, pcp_stat(&self->st, "shrink_pages"));
	ASSERT_LE(0, pcp_stat(&self->st, "shrink_longest_us"));
	/*
	 * The one duration asserted, and why it is safe on a loaded host: a
	 * scan that waited for the held CPU would last until throttling let
	 * the loop go, the rest of a sched_rt_runtime_us stretch (950 ms);
	 * one that does not wait takes microseconds to a few milliseconds,
	 * hundreds of times less, even under the emulator.
	 */
	EXPECT_GT(rt_us, pcp_stat(&self->st, "shrink_longest_us"));
	/*
	 * Whether the held CPU was asked at all (and, under lock=local,
	 * skipped) is reported, not asserted: a reclaimer takes its own
	 * CPU's pages first, kswapd too, and where those suffice nobody asks
	 * the others. A design that waits for every CPU fails the scan time
	 * above.
	 */

	/* the same request without pcpcache, for comparison */
	close(self->fd);
	self->fd = -1;
	ASSERT_EQ(0, pcp_run("rmmod pcpcache"));
	status = pcp_use_memory(want_kb, &ms_without);
	EXPECT_EXITED_0(status);
	TH_LOG("lock=%.*s, CPU %d held: %ld kB in %ld ms (%ld ms without pcpcache); %lld scans gave back %lld pages, skipped %lld CPUs, longest scan %lld us",
	       (int)strcspn(lock, "\n"), lock, held, want_kb, ms, ms_without,
	       pcp_stat(&self->st, "shrink"), pcp_stat(&self->st, "shrink_pages"),
	       pcp_stat(&self->st, "shrink_skipped"),
	       pcp_stat(&self->st, "shrink_longest_us"));
}

TEST_HARNESS_MAIN
