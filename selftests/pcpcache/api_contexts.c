// SPDX-License-Identifier: GPL-2.0
/*
 * pcpcache's exported API from process, softirq and hardirq context on
 * every CPU at once: the test module pcpcache_api_test.ko (built from
 * module/tests/, installed next to this program) calls it for a few
 * seconds while it loads, in each mode, and once while this program
 * switches modes, changes knobs and drains under it. Afterwards the books
 * balance, nothing is held, no page asked for zeroed came back dirty, and
 * pcpcache cannot be unloaded while the test module uses it. Many _nolock()
 * frees in a row leave every magazine within its high mark.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pcpcache_harness.h"
#include "pcpcache_stress.h"
#include "pcpcache_util.h"

#define API_TEST	"pcpcache_api_test"
#define API_PARAMS	"/sys/module/" API_TEST "/parameters/"
/*
 * Seconds of traffic a case: one gives thousands of pages in every context
 * under TCG (twice as long until the suite's budget asked); the switching
 * case takes three, for its switches on the debug kernel, where each one
 * drains every CPU at a crawl; the NMI case two, for NMIs that land while
 * their CPU holds the lock (tens a run).
 */
#define API_SECONDS		1
#define API_SWITCH_SECONDS	3
#define API_NMI_SECONDS		2

FIXTURE(api) {
	char ko[PATH_MAX];
	struct pcp_stats st;
	char why[256];
};

FIXTURE_VARIANT(api) {
	const char *mode;
	bool switching;
};

FIXTURE_VARIANT_ADD(api, passthrough) { .mode = "passthrough" };
FIXTURE_VARIANT_ADD(api, single) { .mode = "single" };
FIXTURE_VARIANT_ADD(api, split) { .mode = "split" };
FIXTURE_VARIANT_ADD(api, remote) { .mode = "remote" };
FIXTURE_VARIANT_ADD(api, blocks) { .mode = "blocks" };
FIXTURE_VARIANT_ADD(api, barn) { .mode = "barn" };
FIXTURE_VARIANT_ADD(api, switching) { .mode = "single", .switching = true };

/*
 * Both fixtures' setup: the test module next to this program into @ko,
 * pcpcache loaded afresh in @mode. Skips, and fails, as the harness does.
 */
#define API_SETUP(ko, mode) do {					\
	const char *why = pcp_skip_reason();				\
	char exe[PATH_MAX], params[64];					\
	ssize_t n;							\
									\
	if (why)							\
		SKIP(return, "%s", why);				\
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);		\
	ASSERT_LT(0, n);						\
	exe[n] = '\0';							\
	snprintf(ko, sizeof(ko), "%s/" API_TEST ".ko", dirname(exe));	\
	if (!pcp_exists(ko))						\
		SKIP(return, API_TEST ".ko is not next to this program (built from module/tests/)"); \
	snprintf(params, sizeof(params), "mode=%s", mode);		\
	ASSERT_EQ(0, pcp_reload(params));				\
} while (0)

FIXTURE_SETUP(api)
{
	API_SETUP(self->ko, variant->mode);
}

FIXTURE_TEARDOWN(api)
{
	pcp_run("rmmod " API_TEST " 2>/dev/null");
	if (pcp_exists(PCP_SYSFS))
		pcp_run("rmmod pcpcache");
}

static long param(const char *name)
{
	char path[128], buf[32];

	snprintf(path, sizeof(path), API_PARAMS "%s", name);
	if (pcp_read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	return atol(buf);
}

/*
 * Switch modes and knobs, drain, until @child exits; its wait status.
 * Every write must be taken; @writes counts them, @failed those refused.
 */
static int churn_until_exit(pid_t child, unsigned int *writes,
			    unsigned int *failed)
{
	static const char * const modes[] = { "passthrough", "single", "split",
					      "remote", "blocks", "barn" };
	/*
	 * each one valid with the default batch (63), and barn mode's rule
	 * with the default barn_full: none may be refused
	 */
	static const char * const highs[] = { "64", "378", "1000" };
	unsigned int i = 0;
	int status;

	while (waitpid(child, &status, WNOHANG) == 0) {
		*failed += !!pcp_write("mode", modes[i % ARRAY_SIZE(modes)]);
		*failed += !!pcp_write("high", highs[i % 3]);
		*writes += 2;
		if (i % 5 == 0) {
			*failed += !!pcp_write("drain", "1");
			(*writes)++;
		}
		usleep(20000);
		i++;
	}
	return status;
}

TEST_F(api, every_context_every_cpu)
{
	char cmd[PATH_MAX + 64];
	unsigned int writes = 0, failed = 0;
	pid_t child;
	int status;

	snprintf(cmd, sizeof(cmd), "insmod %s seconds=%d", self->ko,
		 variant->switching ? API_SWITCH_SECONDS : API_SECONDS);
	child = fork();
	ASSERT_LE(0, child);
	if (!child)
		_exit(pcp_run("%s", cmd));
	if (variant->switching)
		status = churn_until_exit(child, &writes, &failed);
	else
		ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		TH_LOG("%s failed; see dmesg", cmd);
	}

	EXPECT_LT(0, param("process_pages"));
	EXPECT_LT(0, param("softirq_pages"));
	EXPECT_LT(0, param("hardirq_pages"));
	/* each CPU's hard interrupts on that CPU, every one of them */
	EXPECT_EQ(0, param("foreign_ticks"));
	EXPECT_EQ(0, param("quiet_cpus"));
	EXPECT_EQ(0, param("dirty_pages"));
	/* blocks of every order freed on another CPU than the allocation's */
	if (pcp_nr_cpus() > 1)
		EXPECT_LT(0, param("handed_blocks"));
	TH_LOG("%ld process, %ld softirq, %ld hardirq pages, %ld failed allocations; %ld blocks handed to another CPU",
	       param("process_pages"), param("softirq_pages"),
	       param("hardirq_pages"), param("failed_allocs"),
	       param("handed_blocks"));

	ASSERT_EQ(0, pcp_read_stats(&self->st));
	EXPECT_TRUE(pcp_books_balance(&self->st, self->why, sizeof(self->why))) {
		TH_LOG("%s", self->why);
	}
	EXPECT_EQ(0, pcp_stat(&self->st, "held"));
	EXPECT_EQ(pcp_stat(&self->st, "alloc_fail"), param("failed_allocs"));
	if (variant->switching) {
		/* the modes switched under the callers, several times over */
		EXPECT_EQ(0, failed) {
			TH_LOG("%u of %u control writes refused", failed, writes);
		}
		EXPECT_LE(6, pcp_stat(&self->st, "mode_switches"));
	}

	/* a module using the API pins pcpcache */
	EXPECT_NE(0, pcp_run("rmmod pcpcache 2>/dev/null"));
	EXPECT_TRUE(pcp_exists(PCP_DIR));
	ASSERT_EQ(0, pcp_run("rmmod " API_TEST));
	EXPECT_EQ(0, pcp_run("rmmod pcpcache"));
}

/*
 * The _nolock() API from hard interrupts and NMIs on every CPU, with frees
 * of pages another CPU allocated from NMI context (nolock=1), under each
 * locking design: the books balance, nothing is held or lost, and what
 * could not be had at once is counted. lock=local has no lock to try:
 * every _nolock() allocation fails, every free is deferred.
 */
FIXTURE(nolock) {
	char ko[PATH_MAX];
	struct pcp_stats st;
	char why[256];
};

FIXTURE_VARIANT(nolock) {
	const char *mode;
};

FIXTURE_VARIANT_ADD(nolock, single) { .mode = "single" };
FIXTURE_VARIANT_ADD(nolock, remote) { .mode = "remote" };
/* a free over the batch, an allocation from an empty main: the barn's trylock */
FIXTURE_VARIANT_ADD(nolock, barn) { .mode = "barn" };

FIXTURE_SETUP(nolock)
{
	API_SETUP(self->ko, variant->mode);
}

FIXTURE_TEARDOWN(nolock)
{
	int cpu;

	/* whatever a failed test left offline */
	for (cpu = 1; cpu < sysconf(_SC_NPROCESSORS_CONF); cpu++)
		pcp_cpu_set_online(cpu, true);
	pcp_run("rmmod " API_TEST " 2>/dev/null");
	if (pcp_exists(PCP_SYSFS))
		pcp_run("rmmod pcpcache");
}

/*
 * One run of the test module's hard interrupts and NMIs, and everything
 * that must hold of each run, asserted of this run alone: what the
 * module saw, the books after it, and each call that failed in it
 * counted once in nolock_fail in it. Adds the failed calls to @failed
 * and returns the NMIs' failed trylocks of the run. An ASSERT here ends
 * the test, as in its body.
 */
static long long nolock_run(struct __test_metadata *_metadata,
			    FIXTURE_DATA(nolock) *self, const char *lock,
			    bool local, bool rt, int run, long *failed)
{
	long long fail_before, nmi_before;
	long run_failed;

	ASSERT_EQ(0, pcp_read_stats(&self->st));
	fail_before = pcp_stat(&self->st, "nolock_fail");
	nmi_before = pcp_stat(&self->st, "trylock_fail_nmi");
	ASSERT_EQ(0, pcp_run("insmod %s seconds=%d nolock=1", self->ko,
			     API_NMI_SECONDS)) {
		TH_LOG("insmod failed; see dmesg");
	}
	run_failed = param("nolock_failed");
	TH_LOG("lock %.*s, run %d: %ld hardirq, %ld NMI _nolock() pages, %ld failed; %ld NMIs, %ld handed frees",
	       (int)strcspn(lock, "\n"), lock, run,
	       param("nolock_hardirq_pages"), param("nolock_nmi_pages"),
	       run_failed, param("nmis"), param("nmi_handed_frees"));
	EXPECT_LT(0, param("nmis"));
	EXPECT_EQ(0, param("foreign_ticks"));
	EXPECT_EQ(0, param("quiet_cpus"));
	EXPECT_EQ(0, param("dirty_pages"));
	EXPECT_LT(0, param("nmi_handed_frees"));
	if (local) {
		EXPECT_EQ(0, param("nolock_hardirq_pages"));
		EXPECT_EQ(0, param("nolock_nmi_pages"));
		/* no lock to try: every call fails, in every run */
		EXPECT_LT(0, run_failed);
	} else {
		/* the hrtimer's "hard" interrupt is a softirq on PREEMPT_RT */
		EXPECT_LT(0, param("nolock_hardirq_pages"));
		/* where the lock sleeps, and NMI context is refused */
		if (rt) {
			EXPECT_EQ(0, param("nolock_nmi_pages"));
			EXPECT_LT(0, run_failed);
		} else {
			EXPECT_LT(0, param("nolock_nmi_pages"));
		}
	}
	ASSERT_EQ(0, pcp_run("rmmod " API_TEST));
	/* the deferred frees ran on their CPUs' irq_work */
	pcp_wait_books_balance(self->why, sizeof(self->why));
	ASSERT_BOOKS_BALANCE();
	EXPECT_EQ(0, pcp_stat(&self->st, "held"));
	/* every call that failed in this run counted once, in this run */
	EXPECT_EQ(run_failed, pcp_stat(&self->st, "nolock_fail") - fail_before) {
		TH_LOG("run %d: %ld calls failed, nolock_fail moved by %lld",
		       run, run_failed,
		       pcp_stat(&self->st, "nolock_fail") - fail_before);
	}
	TH_LOG("run %d: trylock failures: task %lld, softirq %lld, hardirq %lld, NMI %lld; deferred frees %lld; remote frees %lld",
	       run, pcp_stat(&self->st, "trylock_fail_task"),
	       pcp_stat(&self->st, "trylock_fail_softirq"),
	       pcp_stat(&self->st, "trylock_fail_hardirq"),
	       pcp_stat(&self->st, "trylock_fail_nmi"),
	       pcp_stat(&self->st, "nolock_deferred"),
	       pcp_stat(&self->st, "remote_frees"));
	*failed += run_failed;
	return pcp_stat(&self->st, "trylock_fail_nmi") - nmi_before;
}

TEST_F(nolock, from_hardirq_and_nmi_nothing_lost)
{
	char path[256], lock[32] = "";
	long long nmi_fails = 0;
	struct utsname u;
	bool local, rt;
	long failed = 0;
	int run;

	pcp_path(path, sizeof(path), "lock");
	ASSERT_LT(0, pcp_read_file(path, lock, sizeof(lock)));
	local = !strncmp(lock, "local", 5);
	ASSERT_EQ(0, uname(&u));
	rt = strstr(u.version, "PREEMPT_RT");
	/*
	 * An NMI that lands while its CPU holds the lock fails the trylock and
	 * is counted as an NMI's failure, and its _nolock() call fails (17 to
	 * 110 a run, in eight runs on Debian's kernel and the debug kernel).
	 * Where little holds the lock, none may land in it: a run of 17 NMIs
	 * on a debug kernel slowed by a busy host, and remote mode on the
	 * debug kernel, whose frees mostly go home without it (0 in two runs
	 * of 123 and 130 NMIs). So it runs again, up to four times, until an
	 * NMI's trylock and a _nolock() call have failed; no lock to try
	 * under local or on PREEMPT_RT, where every such call fails. That
	 * both happened is the one thing asserted over the runs: everything
	 * else, each run's failed calls counted in nolock_fail among it, is
	 * asserted of each run, the retries' as the first's, and a run that
	 * fails it fails the case whatever the others do.
	 */
	for (run = 1; run <= 5; run++) {
		nmi_fails += nolock_run(_metadata, self, lock, local, rt, run,
					&failed);
		/* a run that failed fails the case: no more runs */
		if (PCP_TEST_FAILED())
			return;
		if (local || rt || (nmi_fails && failed))
			break;
		TH_LOG("no NMI failed its trylock, or no call failed, in %d run%s%s",
		       run, run > 1 ? "s" : "", run < 5 ? ": again" : "");
	}
	EXPECT_LT(0, failed);
	if (!local && !rt)
		EXPECT_LT(0, nmi_fails);
	/* no lock to try: the handed pages went home (remote) or were deferred */
	if (local)
		EXPECT_LT(0, pcp_stat(&self->st, "nolock_deferred") +
			  pcp_stat(&self->st, "remote_frees"));
	if (!strcmp(variant->mode, "remote") && !local && pcp_nr_cpus() > 1)
		EXPECT_LT(0, pcp_stat(&self->st, "remote_frees"));
	EXPECT_EQ(0, pcp_run("rmmod pcpcache"));
}

/* _nolock() frees per CPU: more than five times the default high (378). */
#define NOLOCK_FREES	2000

/*
 * How many CPUs' lists are over their high marks, or cache anything while
 * offline (@offline, or -1), each logged; -1 when pagesets cannot be read.
 * The pages cached in all go to @cached. In barn mode (@barn) a CPU's
 * spare, which only the order columns show, holds a batch at most too.
 */
static int cpus_over_high(int offline, bool barn, long *cached)
{
	static struct pcp_pageset sets[PCP_MAX_CPUS];
	int i, over = 0, nr = pcp_read_pagesets(sets, PCP_MAX_CPUS);
	long cold, pages, most;

	if (nr <= 0)
		return -1;
	*cached = 0;
	for (i = 0; i < nr; i++) {
		cold = sets[i].cold_count > 0 ? sets[i].cold_count : 0;
		pages = pcp_pageset_pages(&sets[i]);
		most = sets[i].high + (sets[i].cold_high > 0 ? sets[i].cold_high : 0) +
		       (barn ? sets[i].batch : 0);
		*cached += pages;
		if (sets[i].count <= sets[i].high && (sets[i].cold_high < 0 || cold <= sets[i].cold_high) &&
		    pages <= most && (sets[i].cpu != offline || !pages))
			continue;
		printf("# cpu%d%s caches %ld (high %ld) and %ld cold (cold_high %ld) pages, %ld in all\n",
		       sets[i].cpu, sets[i].cpu == offline ? " (offline)" : "",
		       sets[i].count, sets[i].high, cold, sets[i].cold_high, pages);
		/* a test ends with _exit(): nothing buffered would show */
		fflush(stdout);
		over++;
	}
	return over;
}

/* _nolock() frees on a CPU as it dies */
#define DYING_FREES	64

/*
 * Issue 40's defect 6: frees that pcpcache_free_page_nolock() leaves to
 * the irq_work of a CPU going down, made by the test module as the CPU
 * runs smpcfd_dying_cpu() (dying_frees=N: interrupts off, its irq_work
 * about to run for the last time). On PREEMPT_RT an irq_work not marked
 * hard runs in a thread that was parked by then: the pages stayed on the
 * dead CPU's list and rmmod waited in irq_work_sync() for good. With the
 * CPU still down, nothing may be left on a deferred list (the audit
 * walks them), the books must balance with nothing held, and both
 * modules must unload.
 */
TEST_F(nolock, frees_on_a_dying_cpu_given_back)
{
	int cpu = pcp_nr_cpus() - 1, rc;
	char path[256], lock[32] = "";
	long long deferred;

	if (cpu < 1)
		SKIP(return, "needs two CPUs");
	pcp_path(path, sizeof(path), "lock");
	ASSERT_LT(0, pcp_read_file(path, lock, sizeof(lock)));
	ASSERT_EQ(0, pcp_read_stats(&self->st));
	deferred = pcp_stat(&self->st, "nolock_deferred");
	rc = pcp_run("insmod %s dying_frees=%d dying_cpu=%d", self->ko,
		     DYING_FREES, cpu);
	/* no kprobes: the debug kernel is built without them */
	if (rc == EOPNOTSUPP)
		SKIP(return, "the test module cannot probe smpcfd_dying_cpu() here (see dmesg)");
	ASSERT_EQ(0, rc) {
		TH_LOG("insmod failed; see dmesg");
	}
	ASSERT_EQ(0, pcp_cpu_set_online(cpu, false));
	EXPECT_EQ(DYING_FREES, param("nolock_freed"));
	/* a deferred page is held until its free runs */
	pcp_wait_books_balance(self->why, sizeof(self->why));
	ASSERT_BOOKS_BALANCE();
	EXPECT_EQ(0, pcp_stat(&self->st, "held"));
	deferred = pcp_stat(&self->st, "nolock_deferred") - deferred;
	TH_LOG("lock %.*s: %lld of %d frees on the dying CPU deferred",
	       (int)strcspn(lock, "\n"), lock, deferred, DYING_FREES);
	/*
	 * no lock to try: every one of them was left to the irq_work (in
	 * remote mode they go home to the CPU that took them instead)
	 */
	if (!strncmp(lock, "local", 5) && strcmp(variant->mode, "remote"))
		EXPECT_EQ(DYING_FREES, deferred);
	ASSERT_EQ(0, pcp_run("rmmod " API_TEST));
	/* with the CPU down: the deferred frees are done, nothing waits */
	EXPECT_EQ(0, pcp_run("rmmod pcpcache"));
	ASSERT_EQ(0, pcp_cpu_set_online(cpu, true));
}

/*
 * Many _nolock() frees in a row from process context (nolock_frees=N) are
 * trimmed as many ordinary frees are: every magazine ends within its high
 * mark, once with the last CPU offline and once after it came back. Under
 * lock=local every one of them is deferred to the irq_work, which frees it
 * as an ordinary free would.
 */
TEST_F(nolock, frees_trimmed_to_high)
{
	int cpu = pcp_nr_cpus() - 1, round, over, err;
	char path[256], lock[32] = "";
	bool offline = false;
	long cached = 0;

	pcp_path(path, sizeof(path), "lock");
	ASSERT_LT(0, pcp_read_file(path, lock, sizeof(lock)));
	if (cpu >= 1) {
		err = pcp_cpu_set_online(cpu, false);
		ASSERT_TRUE(!err || err == -ENOENT) {
			TH_LOG("cpu%d offline: %s", cpu, strerror(-err));
		}
		offline = !err;
	}
	if (!offline)
		TH_LOG("no CPU to take offline: all of them online only");
	for (round = 0; round < 1 + offline; round++) {
		ASSERT_EQ(0, pcp_run("insmod %s nolock_frees=%d", self->ko,
				     NOLOCK_FREES)) {
			TH_LOG("insmod failed; see dmesg");
		}
		EXPECT_EQ((long)NOLOCK_FREES * pcp_nr_cpus(), param("nolock_freed"));
		ASSERT_EQ(0, pcp_run("rmmod " API_TEST));
		/* what was deferred went through its CPU's irq_work */
		pcp_wait_books_balance(self->why, sizeof(self->why));
		ASSERT_BOOKS_BALANCE();
		EXPECT_EQ(0, pcp_stat(&self->st, "held"));
		over = cpus_over_high(offline && !round ? cpu : -1,
				      !strcmp(variant->mode, "barn"), &cached);
		EXPECT_EQ(0, over) {
			TH_LOG("lock %.*s, cpu%d %s: %d CPUs over high after %d _nolock() frees each",
			       (int)strcspn(lock, "\n"), lock, cpu,
			       round ? "back online" : "offline", over, NOLOCK_FREES);
		}
		/* they were cached, up to high, not all given back */
		EXPECT_LT(0, cached);
		if (offline && !round)
			ASSERT_EQ(0, pcp_cpu_set_online(cpu, true));
	}
	TH_LOG("lock %.*s: %lld _nolock() frees deferred, %lld pages drained over high",
	       (int)strcspn(lock, "\n"), lock,
	       pcp_stat(&self->st, "nolock_deferred"),
	       pcp_stat(&self->st, "drain_pages"));
	EXPECT_EQ(0, pcp_run("rmmod pcpcache"));
}

/*
 * lock=trylock is trylock: a hard interrupt that comes in while the CPU's
 * own thread holds its magazine's lock (the test module's hrtimers, which
 * call the API on every CPU while that CPU's thread calls it; in two
 * seconds under TCG thousands of them come in there) must fail its
 * trylock, counted in trylock_fail_hardirq, and be served by the buddy allocator,
 * with nothing lost. Under lock=spin and lock=local the thread holds the
 * lock with interrupts off: nothing fails, and the ordinary API (no
 * _nolock() call here) counts no trylock failure at all.
 */
FIXTURE(contend) {
	char ko[PATH_MAX];
	struct pcp_stats st;
	char why[256];
};

FIXTURE_VARIANT(contend) {
	const char *mode;
};

FIXTURE_VARIANT_ADD(contend, single) { .mode = "single" };
FIXTURE_VARIANT_ADD(contend, remote) { .mode = "remote" };
FIXTURE_VARIANT_ADD(contend, barn) { .mode = "barn" };

FIXTURE_SETUP(contend)
{
	API_SETUP(self->ko, variant->mode);
}

FIXTURE_TEARDOWN(contend)
{
	pcp_run("rmmod " API_TEST " 2>/dev/null");
	if (pcp_exists(PCP_SYSFS))
		pcp_run("rmmod pcpcache");
}

TEST_F(contend, hardirq_in_the_lock_fails_trylock_under_trylock)
{
	long long task, soft, hard, nmi;
	char path[256], lock[32] = "";
	struct utsname u;
	bool trylock;

	/*
	 * Here, not in the setup: 6.1's harness runs a test whose setup
	 * skipped. Its hrtimers' calls are not in hard interrupt context on
	 * PREEMPT_RT.
	 */
	ASSERT_EQ(0, uname(&u));
	if (strstr(u.version, "PREEMPT_RT"))
		SKIP(return, "hard interrupts may not call the API on PREEMPT_RT");
	pcp_path(path, sizeof(path), "lock");
	ASSERT_LT(0, pcp_read_file(path, lock, sizeof(lock)));
	trylock = !strncmp(lock, "trylock", 7);
	ASSERT_EQ(0, pcp_run("insmod %s seconds=%d", self->ko, API_SECONDS)) {
		TH_LOG("insmod failed; see dmesg");
	}
	EXPECT_EQ(0, param("dirty_pages"));
	ASSERT_EQ(0, pcp_read_stats(&self->st));
	task = pcp_stat(&self->st, "trylock_fail_task");
	soft = pcp_stat(&self->st, "trylock_fail_softirq");
	hard = pcp_stat(&self->st, "trylock_fail_hardirq");
	nmi = pcp_stat(&self->st, "trylock_fail_nmi");
	TH_LOG("lock %.*s: %ld hardirq pages; trylock failures: task %lld, softirq %lld, hardirq %lld, NMI %lld",
	       (int)strcspn(lock, "\n"), lock, param("hardirq_pages"), task,
	       soft, hard, nmi);
	if (trylock) {
		/* hrtimers that came in while their CPU's thread held the lock */
		EXPECT_LT(0, hard);
	} else {
		EXPECT_EQ(0, task + soft + hard + nmi);
	}
	/* nothing lost: what failed went to the buddy allocator, and back */
	EXPECT_TRUE(pcp_books_balance(&self->st, self->why, sizeof(self->why))) {
		TH_LOG("%s", self->why);
	}
	EXPECT_EQ(0, pcp_stat(&self->st, "held"));
	EXPECT_EQ(pcp_stat(&self->st, "alloc_fail"), param("failed_allocs"));
	ASSERT_EQ(0, pcp_run("rmmod " API_TEST));
	EXPECT_EQ(0, pcp_run("rmmod pcpcache"));
}

TEST_HARNESS_MAIN
