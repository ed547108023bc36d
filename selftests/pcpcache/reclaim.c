// SPDX-License-Identifier: GPL-2.0
/*
 * pcpcache gives its pages back when the kernel would: a CPU going offline
 * leaves an empty magazine that returns with the current knobs; under
 * memory pressure the shrinker drains the magazines, so that a program
 * can get memory they hold without the OOM killer; and on a NUMA machine
 * a page of another node is not cached.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pcpcache_harness.h"
#include "pcpcache_stress.h"

FIXTURE(reclaim) {
	struct pcp_stats st;
	char why[256];
	int fd;
};

FIXTURE_SETUP(reclaim)
{
	const char *why = pcp_skip_reason();

	self->fd = -1;
	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, pcp_reload(NULL));
	self->fd = pcp_open_user();
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(reclaim)
{
	if (self->fd >= 0)
		close(self->fd);
	if (pcp_exists(PCP_SYSFS))
		pcp_run("rmmod pcpcache");
}

/* Allocate @nr on every online CPU and free them there. */
static int fill(int fd, unsigned int nr)
{
	int cpu, err = 0;

	for (cpu = 0; cpu < pcp_nr_cpus() && !err; cpu++) {
		err = pcp_pin(cpu);
		if (!err)
			err = pcp_alloc(fd, nr, 0, NULL);
		if (!err)
			err = pcp_free(fd, nr, 0, NULL);
	}
	return err;
}

static long meminfo_kb(const char *key)
{
	char line[128], name[64];
	long val = -1, v;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63[^:]: %ld", name, &v) == 2 &&
		    !strcmp(name, key))
			val = v;
	fclose(f);
	return val;
}

TEST_F(reclaim, offline_cpu_is_drained_and_comes_back_current)
{
	static struct pcp_pageset sets[PCP_MAX_CPUS];
	int nr, cpu = pcp_nr_cpus() - 1;
	long count, before;

	if (cpu < 1 || pcp_cpu_set_online(cpu, true) == -ENOENT)
		SKIP(return, "needs a second CPU that can go offline");
	ASSERT_EQ(0, fill(self->fd, 300));
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
	EXPECT_EQ(100, sets[cpu].high);
	EXPECT_EQ(10, sets[cpu].batch);
	ASSERT_EQ(0, pcp_pin(cpu));
	ASSERT_EQ(0, pcp_alloc(self->fd, 5, 0, NULL));
	ASSERT_EQ(0, pcp_free(self->fd, 5, 0, NULL));
	ASSERT_EQ(0, pcp_pageset_count(cpu, &count));
	/* one refill of 10 pages, 5 of them handed out and freed again */
	EXPECT_EQ(10, count);
	ASSERT_BOOKS_BALANCE();
}

/*
 * Fill every magazine to the most the rules allow (a quarter of RAM in
 * all), then ask for more memory than is free without them.
 */
/* minutes on a debug kernel, where every page costs 50 times more */
TEST_F_TIMEOUT(reclaim, shrinker_gives_memory_back, 900)
{
	long limit, high, avail_kb, want_kb, cached_before;
	char val[32];
	pid_t child;
	int status;

	ASSERT_EQ(0, pcp_read_long("high", &high));
	limit = meminfo_kb("MemTotal") / 4 / 4 /
		sysconf(_SC_NPROCESSORS_CONF) - 126;
	ASSERT_LT(1000, limit);
	snprintf(val, sizeof(val), "%ld", limit);
	ASSERT_EQ(0, pcp_write("high", val));
	ASSERT_EQ(0, pcp_write_file(PCP_SYSFS "/parameters/user_max_pages",
				    "1000000"));
	ASSERT_EQ(0, pcp_write_file(PCP_SYSFS "/parameters/user_max_total",
				    "1000000"));
	ASSERT_EQ(0, fill(self->fd, limit));
	ASSERT_BOOKS_BALANCE();
	cached_before = pcp_stat(&self->st, "cached");
	EXPECT_LT(limit / 2 * pcp_nr_cpus(), cached_before);

	avail_kb = meminfo_kb("MemAvailable");
	want_kb = avail_kb + cached_before * 4 * 3 / 4;
	TH_LOG("MemAvailable %ld kB, cached %ld kB: asking for %ld kB",
	       avail_kb, cached_before * 4, want_kb);
	pcp_run("dmesg -c >/dev/null");

	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		size_t len = want_kb * 1024, off;
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			_exit(2);
		for (off = 0; off < len; off += 4096)
			p[off] = 1;
		_exit(0);
	}
	ASSERT_EQ(child, waitpid(child, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		TH_LOG("the program asking for memory %s %d",
		       WIFSIGNALED(status) ? "was killed by signal" : "exited",
		       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	}
	EXPECT_NE(0, pcp_run("dmesg | grep -i -E 'out of memory|oom-kill'"));

	ASSERT_BOOKS_BALANCE();
	EXPECT_LT(0, pcp_stat(&self->st, "shrink"));
	EXPECT_LT(0, pcp_stat(&self->st, "shrink_pages"));
	EXPECT_GT(cached_before / 2, pcp_stat(&self->st, "cached"));
	TH_LOG("shrinker: %lld calls gave back %lld pages; cached %ld -> %lld",
	       pcp_stat(&self->st, "shrink"), pcp_stat(&self->st, "shrink_pages"),
	       cached_before, pcp_stat(&self->st, "cached"));
}

/* The first CPU of NUMA node @node, or -1. */
static int node_cpu(int node)
{
	char path[96], buf[64];

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist",
		 node);
	if (pcp_read_file(path, buf, sizeof(buf)) <= 0 || buf[0] == '\n')
		return -1;
	return atoi(buf);
}

TEST_F(reclaim, remote_node_pages_are_not_cached)
{
	struct pcpcache_pages req;
	int a = node_cpu(0), b = node_cpu(1);
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

	/* node 0's pages freed on node 1 go back to the buddy allocator */
	ASSERT_EQ(0, pcp_pageset_count(b, &before));
	ASSERT_EQ(0, pcp_pin(b));
	ASSERT_EQ(0, pcp_free(self->fd, 500, 0, NULL));
	ASSERT_EQ(0, pcp_pageset_count(b, &after));
	EXPECT_EQ(before, after);
	ASSERT_BOOKS_BALANCE();
	EXPECT_EQ(500, pcp_stat(&self->st, "remote_node"));
}

TEST_HARNESS_MAIN
