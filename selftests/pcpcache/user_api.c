// SPDX-License-Identifier: GPL-2.0
/*
 * The "user" file's ioctls refuse bad requests with an error and change
 * nothing; its limits hold; PCPCACHE_IOC_CYCLE counts what it did.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "pcpcache_harness.h"
#include "pcpcache_util.h"

FIXTURE(user) {
	struct pcp_stats st;
	char why[256];
	int fd;
};

FIXTURE_VARIANT(user) {
	const char *params;
};

/* the hot list alone, and split mode's hot and cold lists */
FIXTURE_VARIANT_ADD(user, single) { .params = "mode=single" };
FIXTURE_VARIANT_ADD(user, split) { .params = "mode=split" };

FIXTURE_SETUP(user)
{
	const char *why = pcp_skip_reason();

	self->fd = -1;
	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, pcp_reload(variant->params));
	self->fd = pcp_open_user();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pcp_pin(0));
}

FIXTURE_TEARDOWN(user)
{
	if (self->fd >= 0)
		close(self->fd);
	if (pcp_exists(PCP_SYSFS))
		pcp_run("rmmod pcpcache");
}

static long long held(struct __test_metadata *_metadata, struct pcp_stats *st)
{
	char why[256];

	ASSERT_EQ(0, pcp_read_stats(st));
	EXPECT_TRUE(pcp_books_balance(st, why, sizeof(why))) {
		TH_LOG("%s", why);
	}
	return pcp_stat(st, "held");
}

TEST_F(user, bad_requests_change_nothing)
{
	struct pcpcache_pages req;

	ASSERT_EQ(0, pcp_alloc(self->fd, 10, 0, &req));
	ASSERT_EQ(10, held(_metadata, &self->st));

	EXPECT_EQ(-EINVAL, pcp_alloc(self->fd, 0, 0, NULL));
	EXPECT_EQ(-EINVAL, pcp_alloc(self->fd, 1, 2, NULL));
	EXPECT_EQ(-EINVAL, pcp_alloc(self->fd, 1, ~0U, NULL));
	EXPECT_EQ(-EINVAL, pcp_free(self->fd, 11, 0, NULL));
	EXPECT_EQ(-EINVAL, pcp_free(self->fd, ~0U, 0, NULL));
	EXPECT_EQ(-EINVAL, pcp_free(self->fd, 0, 0, NULL));
	EXPECT_EQ(-EINVAL, pcp_free(self->fd, 1, 4, NULL));
	/* orders above PCPCACHE_MAX_ORDER, and more blocks than held */
	EXPECT_EQ(-EINVAL, pcp_alloc(self->fd, 1, PCPCACHE_ORDER(4), NULL));
	EXPECT_EQ(-EINVAL, pcp_alloc(self->fd, 1, PCPCACHE_ORDER(15), NULL));
	EXPECT_EQ(-EINVAL, pcp_alloc(self->fd, 1, PCPCACHE_ORDER(16), NULL));
	EXPECT_EQ(-EINVAL, pcp_free(self->fd, 1, PCPCACHE_ORDER(1), NULL));
	EXPECT_EQ(-EINVAL, pcp_free(self->fd, 1, PCPCACHE_ORDER(4), NULL));
	EXPECT_EQ(-1, ioctl(self->fd, _IO(PCPCACHE_IOC_MAGIC, 99), 0));
	EXPECT_EQ(ENOTTY, errno);
	/* the right number with the wrong size is another command */
	EXPECT_EQ(-1, ioctl(self->fd, _IOWR(PCPCACHE_IOC_MAGIC, 1, int), &req));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(self->fd, PCPCACHE_IOC_ALLOC, NULL));
	EXPECT_EQ(EFAULT, errno);
	/* the padding must be 0, so that it can mean something later */
	memset(&req, 0, sizeof(req));
	req.count = 1;
	req.pad = 1;
	EXPECT_EQ(-1, ioctl(self->fd, PCPCACHE_IOC_ALLOC, &req));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(self->fd, PCPCACHE_IOC_FREE, &req));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(10, held(_metadata, &self->st));

	ASSERT_EQ(0, pcp_free(self->fd, 10, 0, &req));
	EXPECT_EQ(10U, req.done);
	EXPECT_EQ(0U, req.held);
	EXPECT_EQ(0, held(_metadata, &self->st));
}

TEST_F(user, per_file_limit)
{
	struct pcpcache_pages req;
	int fd2;

	ASSERT_EQ(0, pcp_write_file(PCP_SYSFS "/parameters/user_max_pages",
				    "100"));
	EXPECT_EQ(-ENOSPC, pcp_alloc(self->fd, 101, 0, NULL));
	EXPECT_EQ(0, held(_metadata, &self->st));
	ASSERT_EQ(0, pcp_alloc(self->fd, 60, 0, NULL));
	EXPECT_EQ(-ENOSPC, pcp_alloc(self->fd, 41, 0, NULL));
	ASSERT_EQ(0, pcp_alloc(self->fd, 40, 0, &req));
	EXPECT_EQ(100U, req.held);
	/* the limit is per file */
	fd2 = pcp_open_user();
	ASSERT_LE(0, fd2);
	EXPECT_EQ(0, pcp_alloc(fd2, 100, 0, NULL));
	EXPECT_EQ(200, held(_metadata, &self->st));
	close(fd2);
	EXPECT_EQ(100, held(_metadata, &self->st));
}

TEST_F(user, total_limit)
{
	int fd2;

	ASSERT_EQ(0, pcp_write_file(PCP_SYSFS "/parameters/user_max_total",
				    "150"));
	ASSERT_EQ(0, pcp_alloc(self->fd, 100, 0, NULL));
	fd2 = pcp_open_user();
	ASSERT_LE(0, fd2);
	EXPECT_EQ(-ENOSPC, pcp_alloc(fd2, 51, 0, NULL));
	EXPECT_EQ(0, pcp_alloc(fd2, 50, 0, NULL));
	close(fd2);
	EXPECT_EQ(0, pcp_alloc(self->fd, 50, 0, NULL));
	EXPECT_EQ(150, held(_metadata, &self->st));
}

TEST_F(user, cycle_counts)
{
	struct pcpcache_cycle req;

	memset(&req, 0, sizeof(req));
	req.cycles = 100;
	req.batch = 70;
	req.flags = PCPCACHE_CYCLE_TOUCH | PCPCACHE_CYCLE_COLD_FREE;
	ASSERT_EQ(0, ioctl(self->fd, PCPCACHE_IOC_CYCLE, &req));
	EXPECT_EQ(7000ULL, req.allocs);
	EXPECT_EQ(7000ULL, req.frees);
	EXPECT_EQ(0ULL, req.failures);
	EXPECT_EQ(0, req.cpu);
	EXPECT_EQ(0, held(_metadata, &self->st));
	EXPECT_EQ(7000, pcp_stat(&self->st, "free_cold"));
	EXPECT_LT(6000, pcp_stat(&self->st, "alloc_hit"));
}

/*
 * A recycled page is cleared when the buddy allocator would have cleared a
 * fresh one. The user file asks without __GFP_ZERO, so under Debian's
 * default init_on_alloc=1 every hit on a page a user had is cleared (a
 * refilled page never handed out is still clear and is not), and with
 * init_on_alloc=0 on the command line none is: the hit path then costs no
 * clearing.
 */
TEST_F(user, hits_are_cleared_only_under_init_on_alloc)
{
	struct pcpcache_cycle req = { .cycles = 50, .batch = 64 };
	bool init_on_alloc;
	char cmdline[4096];

	ASSERT_LT(0, pcp_read_file("/proc/cmdline", cmdline, sizeof(cmdline)));
	init_on_alloc = !strstr(cmdline, "init_on_alloc=0");
	ASSERT_EQ(0, ioctl(self->fd, PCPCACHE_IOC_CYCLE, &req));
	ASSERT_EQ(0, held(_metadata, &self->st));
	ASSERT_LT(0, pcp_stat(&self->st, "alloc_hit"));
	if (init_on_alloc) {
		/* 50 rounds of the same 64 pages: 49 of them on used pages */
		EXPECT_LE(49 * 64, pcp_stat(&self->st, "alloc_zeroed"));
		EXPECT_GE(pcp_stat(&self->st, "alloc_hit"),
			  pcp_stat(&self->st, "alloc_zeroed"));
	} else {
		EXPECT_EQ(0, pcp_stat(&self->st, "alloc_zeroed"));
	}
	TH_LOG("init_on_alloc %s: %lld hits, %lld pages cleared",
	       init_on_alloc ? "on" : "off", pcp_stat(&self->st, "alloc_hit"),
	       pcp_stat(&self->st, "alloc_zeroed"));
}

TEST_F(user, bad_cycles_change_nothing)
{
	static const struct pcpcache_cycle bad[] = {
		{ .cycles = 0, .batch = 1 },
		{ .cycles = 1, .batch = 0 },
		{ .cycles = 1, .batch = 1, .flags = 8 },
		{ .cycles = 1, .batch = 1, .flags = PCPCACHE_ORDER(4) },
		{ .cycles = 1, .batch = 1, .pad = 1 },
		{ .cycles = 1, .batch = 1, .pad2 = 1 },
		{ .cycles = (1U << 24) + 1, .batch = 1 },
		{ .cycles = 1, .batch = 65537 },
	};
	struct pcpcache_cycle req;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		req = bad[i];
		EXPECT_EQ(-1, ioctl(self->fd, PCPCACHE_IOC_CYCLE, &req));
		EXPECT_TRUE(errno == EINVAL || errno == ENOSPC) {
			TH_LOG("case %zu: %s", i, strerror(errno));
		}
	}
	ASSERT_EQ(0, pcp_read_stats(&self->st));
	EXPECT_EQ(0, pcp_stat(&self->st, "alloc"));
}

TEST_HARNESS_MAIN
