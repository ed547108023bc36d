/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the reclaim selftests share (reclaim, shrinker, memory_offline):
 * the fixture, which loads pcpcache afresh and opens the user file. The
 * helpers that fill the magazines and ask for memory are in
 * pcpcache_util.c.
 */
#ifndef _PCPCACHE_RECLAIM_H
#define _PCPCACHE_RECLAIM_H

#include <sys/wait.h>

#include "pcpcache_harness.h"
#include "pcpcache_stress.h"

FIXTURE(reclaim) {
	struct pcp_stats st;
	char why[256];
	char boost[32];		/* watermark_boost_factor to put back */
	int fd;
};

/*
 * Single mode's one list, and split mode's two: the fills free half of
 * their pages cold there, so that the cold list meets every path too.
 * barn mode's fills (pcp_fill_to_limit()) leave every CPU's main and
 * spare full of every order, and full magazines in the barn.
 */
FIXTURE_VARIANT(reclaim) {
	const char *params;
	bool split;
	bool remote;
	bool barn;
};

FIXTURE_VARIANT_ADD(reclaim, single) { .params = "mode=single" };
FIXTURE_VARIANT_ADD(reclaim, split) { .params = "mode=split", .split = true };
FIXTURE_VARIANT_ADD(reclaim, remote) { .params = "mode=remote", .remote = true };
FIXTURE_VARIANT_ADD(reclaim, blocks) { .params = "mode=blocks", .remote = true };
FIXTURE_VARIANT_ADD(reclaim, barn) { .params = "mode=barn", .barn = true };

FIXTURE_SETUP(reclaim)
{
	const char *why = pcp_skip_reason();

	self->fd = -1;
	self->boost[0] = '\0';
	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, pcp_reload(variant->params));
	self->fd = pcp_open_user();
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(reclaim)
{
	if (self->fd >= 0) {
		close(self->fd);
		/* what the test left, the closed file's pages given back */
		EXPECT_PAGE_AUDIT();
	}
	if (self->boost[0])
		pcp_write_file(PCP_WATERMARK_BOOST, self->boost);
	if (pcp_exists(PCP_SYSFS))
		pcp_run("rmmod pcpcache");
	PCP_FAILURE_WINS_OVER_SKIP();
}

#define EXPECT_EXITED_0(status)						\
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) {	\
		TH_LOG("the program asking for memory %s %d",		\
		       WIFSIGNALED(status) ? "was killed by signal" : "exited", \
		       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status)); \
	}

#endif /* _PCPCACHE_RECLAIM_H */
