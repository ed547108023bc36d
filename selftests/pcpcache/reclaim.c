// SPDX-License-Identifier: GPL-2.0
/*
 * pcpcache gives its pages back when the kernel would: a CPU going offline
 * leaves an empty magazine that returns with the current knobs, and on a
 * NUMA machine a page of another node is not cached. The shrinker and
 * memory offline have programs of their own (shrinker, memory_offline),
 * so that a lane runs only the cases it exists for.
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

TEST_F(reclaim, offline_cpu_is_drained_and_comes_back_current)
{
	static struct pcp_pageset sets[PCP_MAX_CPUS];
	int nr, cpu = pcp_nr_cpus() - 1;
	long count, before;

	if (cpu < 1 || pcp_cpu_set_online(cpu, true) == -ENOENT)
		SKIP(return, "needs a second CPU that can go offline");
	ASSERT_EQ(0, pcp_fill(self->fd, 300, variant->split ? 150 : 0));
	ASSERT_EQ(0, pcp_pin(0));
	ASSERT_EQ(0, pcp_pageset_count(cpu, &before));
	ASSERT_LT(0, before);

	ASSERT_EQ(0, pcp_cpu_set_online(cpu, false));
	ASSERT_EQ(0, pcp_pageset_count(cpu, &count));
	EXPECT_EQ(0, count);
	ASSERT_BOOKS_BALANCE();
	/* knobs set while it is away reach it too */
	ASSERT_EQ(0, pcp_write("batch", "10"));
	ASSERT_EQ(0, pcp_write("high", "100"));
	ASSERT_EQ(0, pcp_cpu_set_online(cpu, true));

	nr = pcp_read_pagesets(sets, PCP_MAX_CPUS);
	ASSERT_LT(cpu, nr);
	EXPECT_EQ(0, sets[cpu].count);
	/* in barn mode a main magazine's high is its batch */
	EXPECT_EQ(variant->barn ? 10 : 100, sets[cpu].high);
	EXPECT_EQ(10, sets[cpu].batch);
	ASSERT_EQ(0, pcp_pin(cpu));
	ASSERT_EQ(0, pcp_alloc(self->fd, 5, 0, NULL));
	ASSERT_EQ(0, pcp_free(self->fd, 5, 0, NULL));
	ASSERT_EQ(0, pcp_pageset_count(cpu, &count));
	/* one refill of 10 pages, 5 of them handed out and freed again */
	EXPECT_EQ(10, count);
	ASSERT_BOOKS_BALANCE();
}

TEST_F(reclaim, remote_node_pages_are_not_cached)
{
	struct pcpcache_pages req;
	int a = pcp_node_cpu(0), b = pcp_node_cpu(1);
	long before, after;

	if (a < 0 || b < 0)
		SKIP(return, "needs CPUs on two NUMA nodes (tools/vm/run --numa 2)");

	/* refills on each node come from that node */
	ASSERT_EQ(0, pcp_pin(b));
	ASSERT_EQ(0, pcp_alloc(self->fd, 500, 0, &req));
	EXPECT_EQ(0U, req.remote);
	ASSERT_EQ(0, pcp_free(self->fd, 500, 0, NULL));
	ASSERT_EQ(0, pcp_pin(a));
	ASSERT_EQ(0, pcp_alloc(self->fd, 500, 0, &req));
	EXPECT_EQ(0U, req.remote);

	/*
	 * node 0's pages freed on node 1 go back to the buddy allocator; in
	 * remote mode, home to the node 0 CPU they came from, in transit
	 */
	ASSERT_EQ(0, pcp_pageset_count(b, &before));
	ASSERT_EQ(0, pcp_pin(b));
	ASSERT_EQ(0, pcp_free(self->fd, 500, variant->split ? PCPCACHE_COLD : 0, NULL));
	ASSERT_EQ(0, pcp_pageset_count(b, &after));
	EXPECT_EQ(before, after);
	ASSERT_BOOKS_BALANCE();
	if (variant->remote) {
		/* what the owner has no room for (high + batch) goes back */
		EXPECT_EQ(0, pcp_stat(&self->st, "remote_node"));
		EXPECT_EQ(500, pcp_stat(&self->st, "remote_frees") +
			  pcp_stat(&self->st, "remote_overflow"));
		EXPECT_EQ(pcp_stat(&self->st, "remote_frees"),
			  pcp_stat(&self->st, "transit"));
		EXPECT_LT(0, pcp_stat(&self->st, "transit"));
	} else {
		EXPECT_EQ(500, pcp_stat(&self->st, "remote_node"));
	}
}

TEST_HARNESS_MAIN
