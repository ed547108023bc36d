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
	PCP_USER_FILE_TEARDOWN();
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

/*
 * Pages allocated on one CPU and freed on the next, through one file: the
 * next CPU caches them, on the list the free asked for (split mode's cold
 * list for a cold free), within its high; passthrough caches nothing, nor
 * does a CPU of another node than the pages': a magazine holds its own
 * node's pages, and the others go back to the buddy allocator.
 */
TEST_F(burst, cross_cpu_frees)
{
	struct pcp_pageset sets[PCP_MAX_CPUS];
	int cpu, next, cold, nr = pcp_nr_cpus();
	bool split = !strcmp(variant->mode, "split"), remote;

	if (nr < 2)
		SKIP(return, "needs two CPUs, this machine has one");
	for (cpu = 0; cpu < nr; cpu++) {
		next = (cpu + 1) % nr;
		cold = cpu & 1;
		ASSERT_EQ(0, pcp_write("drain", "1"));
		ASSERT_EQ(0, pcp_pin(cpu));
		ASSERT_EQ(0, pcp_alloc(self->fd, BURST, 0, NULL));
		ASSERT_EQ(0, pcp_pin(next));
		ASSERT_EQ(0, pcp_free(self->fd, BURST, cold ? PCPCACHE_COLD : 0, NULL));
		ASSERT_BOOKS_BALANCE();
		ASSERT_LT(next, pcp_read_pagesets(sets, PCP_MAX_CPUS));
		ASSERT_EQ(next, sets[next].cpu);
		/* the pages are of the allocating CPU's node */
		remote = pcp_cpu_node(cpu) != pcp_cpu_node(next);
		if (!variant->caches || remote) {
			EXPECT_EQ(0, sets[next].count);
			if (split)
				EXPECT_EQ(0, sets[next].cold_count);
			continue;
		}
		if (split && cold) {
			EXPECT_EQ(0, sets[next].count);
			EXPECT_LT(0, sets[next].cold_count);
			EXPECT_GE(sets[next].cold_high, sets[next].cold_count);
		} else {
			EXPECT_LT(0, sets[next].count) {
				TH_LOG("CPU %d cached none of the %d pages freed on it",
				       next, BURST);
			}
			EXPECT_GE(sets[next].high, sets[next].count);
			if (split)
				EXPECT_EQ(0, sets[next].cold_count);
		}
	}
	EXPECT_EQ(0, pcp_stat(&self->st, "held"));
}

/*
 * Blocks of every order on every CPU: counted per order and in base pages,
 * cached on their own lists (the order columns of pagesets add up to the
 * counts), and given back whole.
 */
TEST_F(burst, every_order)
{
	static struct pcp_pageset sets[PCP_MAX_CPUS];
	long long blocks = 0, pages = 0, hits = 0;
	unsigned int order, round;
	int cpu, nr = pcp_nr_cpus();
	char name[32];
	long base;

	for (order = 0; order < PCP_NR_ORDERS; order++) {
		for (cpu = 0; cpu < nr; cpu++) {
			ASSERT_EQ(0, pcp_pin(cpu));
			for (round = 0; round < 2; round++) {
				ASSERT_EQ(0, pcp_alloc(self->fd, 40,
						       PCPCACHE_ORDER(order), NULL));
				ASSERT_EQ(0, pcp_free(self->fd, 40,
						      PCPCACHE_ORDER(order), NULL));
			}
		}
		ASSERT_BOOKS_BALANCE();
		snprintf(name, sizeof(name), "order%u_free", order);
		EXPECT_EQ(80LL * nr, pcp_stat(&self->st, name));
		snprintf(name, sizeof(name), "order%u_hit", order);
		hits += pcp_stat(&self->st, name);
		blocks += 80LL * nr;
		pages += (80LL * nr) << order;
	}
	EXPECT_EQ(pages, pcp_stat(&self->st, "alloc"));
	EXPECT_EQ(pages, pcp_stat(&self->st, "free"));
	if (variant->caches) {
		EXPECT_LT(0, hits);
	} else {
		EXPECT_EQ(0, hits);
	}

	nr = pcp_read_pagesets(sets, PCP_MAX_CPUS);
	ASSERT_LT(0, nr);
	for (cpu = 0; cpu < nr; cpu++) {
		for (base = 0, order = 0; order < PCP_NR_ORDERS; order++)
			base += sets[cpu].order[order] << order;
		EXPECT_EQ(sets[cpu].count + (sets[cpu].cold_count > 0 ?
					     sets[cpu].cold_count : 0), base);
	}
	ASSERT_EQ(0, pcp_write("drain", "1"));
	ASSERT_BOOKS_BALANCE();
	EXPECT_EQ(0, pcp_stat(&self->st, "cached"));
	TH_LOG("%lld blocks, %lld pages of orders 0 to 3; %lld hits", blocks,
	       pages, hits);
}

/* Closing the file gives back everything it held. */
TEST_F(burst, close_frees_held_pages)
{
	long long want = 0;
	int cpu;

	for (cpu = 0; cpu < pcp_nr_cpus(); cpu++) {
		ASSERT_EQ(0, pcp_pin(cpu));
		ASSERT_EQ(0, pcp_alloc(self->fd, BURST, cpu & 1, NULL));
		/* and blocks of another order on each CPU */
		ASSERT_EQ(0, pcp_alloc(self->fd, 10, PCPCACHE_ORDER(cpu % 4), NULL));
		want += BURST + (10 << (cpu % 4));
	}
	ASSERT_BOOKS_BALANCE();
	EXPECT_EQ(want, pcp_stat(&self->st, "held"));
	close(self->fd);
	self->fd = -1;
	ASSERT_BOOKS_BALANCE();
	EXPECT_EQ(0, pcp_stat(&self->st, "held"));
}

TEST_HARNESS_MAIN
