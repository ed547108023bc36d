// SPDX-License-Identifier: GPL-2.0
/*
 * Bursts of allocations and frees through the "user" file in each mode,
 * from every CPU and across CPUs: the counters add up and the books
 * balance (buddy_alloc - buddy_free == cached + held).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pcpcache_harness.h"

#define BURST	300

FIXTURE(burst) {
	struct pcp_stats st;
	char why[256];
	int fd;
};

FIXTURE_VARIANT(burst) {
	const char *mode;
	bool caches;
};

FIXTURE_VARIANT_ADD(burst, passthrough) { .mode = "passthrough" };
FIXTURE_VARIANT_ADD(burst, single) { .mode = "single", .caches = true };
FIXTURE_VARIANT_ADD(burst, split) { .mode = "split", .caches = true };

FIXTURE_SETUP(burst)
{
	const char *why = pcp_skip_reason();
	char params[64];

	self->fd = -1;
	if (why)
		SKIP(return, "%s", why);
	snprintf(params, sizeof(params), "mode=%s", variant->mode);
	ASSERT_EQ(0, pcp_reload(params));
	self->fd = pcp_open_user();
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(burst)
{
	if (self->fd >= 0)
		close(self->fd);
	if (pcp_exists(PCP_SYSFS))
		pcp_run("rmmod pcpcache");
}

/* On each CPU: allocate hot and cold, free hot and cold, twice. */
TEST_F(burst, every_cpu)
{
	struct pcpcache_pages req;
	int cpu, round, nr = pcp_nr_cpus();
	long long want_cold = 0;

	for (round = 0; round < 2; round++) {
		for (cpu = 0; cpu < nr; cpu++) {
			ASSERT_EQ(0, pcp_pin(cpu));
			ASSERT_EQ(0, pcp_alloc(self->fd, BURST, 0, &req));
			EXPECT_EQ(BURST, req.done);
			EXPECT_EQ(cpu, req.cpu);
			ASSERT_EQ(0, pcp_alloc(self->fd, BURST, PCPCACHE_COLD,
					       &req));
			EXPECT_EQ(2 * BURST, req.held);
			ASSERT_BOOKS_BALANCE();
			EXPECT_EQ(2 * BURST, pcp_stat(&self->st, "held"));
			ASSERT_EQ(0, pcp_free(self->fd, BURST, 0, &req));
			ASSERT_EQ(0, pcp_free(self->fd, BURST, PCPCACHE_COLD,
					      &req));
			EXPECT_EQ(0, req.held);
			want_cold += BURST;
			ASSERT_BOOKS_BALANCE();
		}
	}
	EXPECT_EQ(0, pcp_stat(&self->st, "held"));
	EXPECT_EQ(4LL * BURST * nr, pcp_stat(&self->st, "alloc"));
	EXPECT_EQ(4LL * BURST * nr, pcp_stat(&self->st, "free"));
	EXPECT_EQ(want_cold, pcp_stat(&self->st, "alloc_cold"));
	EXPECT_EQ(want_cold, pcp_stat(&self->st, "free_cold"));
	EXPECT_EQ(0, pcp_stat(&self->st, "alloc_fail"));
	if (variant->caches) {
		/* the second round finds the first round's pages */
		EXPECT_LT(0, pcp_stat(&self->st, "alloc_hit"));
		EXPECT_LT(0, pcp_stat(&self->st, "refill"));
		EXPECT_LT(0, pcp_stat(&self->st, "cached"));
		EXPECT_EQ(pcp_stat(&self->st, "refill_pages"),
			  pcp_stat(&self->st, "buddy_alloc"));
		EXPECT_EQ(pcp_stat(&self->st, "drain_pages"),
			  pcp_stat(&self->st, "buddy_free"));
	} else {
		EXPECT_EQ(0, pcp_stat(&self->st, "alloc_hit"));
		EXPECT_EQ(0, pcp_stat(&self->st, "refill"));
		EXPECT_EQ(0, pcp_stat(&self->st, "drain"));
		EXPECT_EQ(0, pcp_stat(&self->st, "cached"));
		EXPECT_EQ(4LL * BURST * nr, pcp_stat(&self->st, "buddy_alloc"));
	}
	ASSERT_EQ(0, pcp_write("drain", "1"));
	ASSERT_BOOKS_BALANCE();
	EXPECT_EQ(0, pcp_stat(&self->st, "cached"));
	EXPECT_EQ(pcp_stat(&self->st, "buddy_alloc"),
		  pcp_stat(&self->st, "buddy_free"));
}

/* Pages allocated on one CPU and freed on the next, through one file. */
TEST_F(burst, cross_cpu_frees)
{
	struct pcp_pageset sets[PCP_MAX_CPUS];
	int cpu, nr = pcp_nr_cpus();

	if (nr < 2)
		SKIP(return, "needs two CPUs, this machine has one");
	for (cpu = 0; cpu < nr; cpu++) {
		ASSERT_EQ(0, pcp_pin(cpu));
		ASSERT_EQ(0, pcp_alloc(self->fd, BURST, 0, NULL));
		ASSERT_EQ(0, pcp_pin((cpu + 1) % nr));
		ASSERT_EQ(0, pcp_free(self->fd, BURST, cpu & 1, NULL));
		ASSERT_BOOKS_BALANCE();
	}
	EXPECT_EQ(0, pcp_stat(&self->st, "held"));
	ASSERT_LT(0, pcp_read_pagesets(sets, PCP_MAX_CPUS));
	for (cpu = 0; cpu < nr && variant->caches; cpu++)
		EXPECT_LE(0, sets[cpu].count);
}

/* Closing the file gives back everything it held. */
TEST_F(burst, close_frees_held_pages)
{
	int cpu;

	for (cpu = 0; cpu < pcp_nr_cpus(); cpu++) {
		ASSERT_EQ(0, pcp_pin(cpu));
		ASSERT_EQ(0, pcp_alloc(self->fd, BURST, cpu & 1, NULL));
	}
	ASSERT_BOOKS_BALANCE();
	EXPECT_EQ(BURST * pcp_nr_cpus(), pcp_stat(&self->st, "held"));
	close(self->fd);
	self->fd = -1;
	ASSERT_BOOKS_BALANCE();
	EXPECT_EQ(0, pcp_stat(&self->st, "held"));
}

TEST_HARNESS_MAIN
