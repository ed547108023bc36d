/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the kselftest_harness tests of pcpcache share: a SKIP() that cannot
 * hide a failure, and the books check, for fixtures with a
 * "struct pcp_stats st" and a "char why[256]". Every harness test of
 * pcpcache includes this instead of kselftest_harness.h.
 */
#ifndef _PCPCACHE_HARNESS_H
#define _PCPCACHE_HARNESS_H

#include <libgen.h>
#include <limits.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "pcpcache_util.h"

/*
 * The harness's state: 6.1's (Debian 12's linux-source) keeps "passed"
 * and "skip"; from 6.9 on (Debian 13's 6.12, which has XFAIL_ADD) one
 * exit_code, KSFT_FAIL once a check failed.
 */
#ifdef XFAIL_ADD
#define PCP_TEST_FAILED()	(_metadata->exit_code == KSFT_FAIL)
#define PCP_TEST_SKIPPED()	(_metadata->exit_code == KSFT_SKIP)
#define PCP_MARK_SKIPPED()	(_metadata->exit_code = KSFT_SKIP)
#else
#define PCP_TEST_FAILED()	(!_metadata->passed)
#define PCP_TEST_SKIPPED()	(_metadata->skip)
#define PCP_MARK_SKIPPED()	(_metadata->skip = 1)
#endif

/*
 * The harness's SKIP() sets the test passed (6.1) or skipped (6.9 on)
 * whatever came before, so that a skip after a failed EXPECT reads "ok
 * ... # SKIP": a skip may only come before the first failed check. After
 * one, this SKIP() leaves the test failed and says why; either way it
 * then runs @statement.
 */
#undef SKIP
#define SKIP(statement, fmt, ...) do {					\
	if (PCP_TEST_FAILED()) {					\
		TH_LOG("a skip after a failed check fails: " fmt,	\
		       ##__VA_ARGS__);					\
	} else {							\
		snprintf(_metadata->results->reason,			\
			 sizeof(_metadata->results->reason),		\
			 fmt, ##__VA_ARGS__);				\
		if (TH_LOG_ENABLED)					\
			fprintf(TH_LOG_STREAM, "#      SKIP      %s\n",	\
				_metadata->results->reason);		\
		PCP_MARK_SKIPPED();					\
		_metadata->trigger = 0;					\
	}								\
	statement;							\
} while (0)

/*
 * The page audit (pcp_page_audit()): the pages on the module's lists,
 * walked, agree with its counters and with what it took from the buddy
 * allocator. After every operation that moves pages: stress, a switch, a
 * hotplug, a shrink, an OOM call, and before an unload.
 */
#define ASSERT_PAGE_AUDIT()						\
	ASSERT_TRUE(pcp_page_audit(self->why, sizeof(self->why))) {	\
		TH_LOG("%s", self->why);				\
	}

/*
 * Read the counters into self->st; the books must balance, and the page
 * audit must find the pages where the counters say they are. Each is
 * read again while it does not, the counters for up to 5 s: a give-back
 * under way when the test looks (a trim's, a shrink's, thousands of pages
 * under emulation) settles, a lost page never does.
 */
#define ASSERT_BOOKS_BALANCE()						\
	do {								\
		ASSERT_PAGE_AUDIT();					\
		ASSERT_TRUE(pcp_read_books_balanced(&self->st, self->why, \
						    sizeof(self->why), 50)) { \
			TH_LOG("%s", self->why);			\
		}							\
	} while (0)

/*
 * Last in a FIXTURE_TEARDOWN: 6.1's harness reports a test that skipped
 * as "ok # SKIP" even when a check failed after the skip (in the body, or
 * in the teardown, which runs after a skip too). A failure wins. (From
 * 6.9 on a failed check after a skip sets KSFT_FAIL over it.)
 */
#ifdef XFAIL_ADD
#define PCP_FAILURE_WINS_OVER_SKIP()	do { } while (0)
#else
#define PCP_FAILURE_WINS_OVER_SKIP()					\
	do {								\
		if (!_metadata->passed)					\
			_metadata->skip = 0;				\
	} while (0)
#endif

/* The page audit where a test goes on after a failure: in a FIXTURE_TEARDOWN. */
#define EXPECT_PAGE_AUDIT()						\
	EXPECT_TRUE(pcp_page_audit(self->why, sizeof(self->why))) {	\
		TH_LOG("%s", self->why);				\
	}

/*
 * The teardown of a fixture with a user file open in self->fd: close it,
 * audit the pages (what the test left, the closed file's given back),
 * unload the module.
 */
#define PCP_USER_FILE_TEARDOWN()					\
	do {								\
		if (self->fd >= 0) {					\
			close(self->fd);				\
			EXPECT_PAGE_AUDIT();				\
		}							\
		if (pcp_exists(PCP_SYSFS))				\
			pcp_run("rmmod pcpcache");			\
		PCP_FAILURE_WINS_OVER_SKIP();				\
	} while (0)

/*
 * Run @test of the test module pcpcache_safety_test.ko, installed next to
 * this program, with the module parameters @extra (or NULL): 0 when it
 * passed, -EOPNOTSUPP when it cannot run on this kernel (it says why in
 * the kernel log), else insmod's status. The guest's insmod (busybox) runs a module init that failed a
 * second time and says how that run went: the log after a marker of
 * @who's must have no FAILED line of the case either.
 */
static inline int pcp_run_safety_case(const char *who, const char *test,
				      const char *extra)
{
	char exe[PATH_MAX], ko[PATH_MAX + 32];
	ssize_t n;
	int status;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return -1;
	exe[n] = '\0';
	snprintf(ko, sizeof(ko), "%s/pcpcache_safety_test.ko", dirname(exe));
	if (!pcp_exists(ko))
		return -1;
	pcp_run("echo '%s: %s %d' > /dev/kmsg", who, test, getpid());
	status = pcp_run("insmod %s test=%s %s 2>/tmp/safety_case.err", ko,
			 test, extra ? extra : "");
	pcp_run("dmesg | grep '%s:' | tail -n 6", test);
	if (status && pcp_run("grep -q 'Operation not supported' /tmp/safety_case.err") == 0)
		return -EOPNOTSUPP;
	if (status == 0) {
		pcp_run("rmmod pcpcache_safety_test");
		if (pcp_run("dmesg | sed -n '/%s: %s %d$/,$p' | grep -q '%s: FAILED'",
			    who, test, getpid(), test) == 0)
			status = EIO;
	}
	return status;
}

#endif /* _PCPCACHE_HARNESS_H */
