// SPDX-License-Identifier: GPL-2.0
/*
 * Load and unload pcpcache: the debugfs directory comes and goes with the
 * module, module parameters are checked at load time, and the module can be
 * loaded again and again.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pcpcache_harness.h"
#include "pcpcache_stress.h"

#define DEBUGFS_DIR	PCP_DIR
#define SYSFS_MODULE	PCP_SYSFS
#define RELOAD_CYCLES	20
#define STRESS_CYCLES	3

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

FIXTURE(pcpcache) {
	char why[256];
};

FIXTURE_SETUP(pcpcache)
{
	const char *why = pcp_skip_reason();

	if (why)
		SKIP(return, "%s", why);
	if (pcp_exists(SYSFS_MODULE))
		ASSERT_EQ(0, pcp_run("rmmod pcpcache"));
}

FIXTURE_TEARDOWN(pcpcache)
{
	if (pcp_exists(SYSFS_MODULE))
		pcp_run("rmmod pcpcache");
}

TEST_F(pcpcache, debugfs_dir_follows_module)
{
	ASSERT_FALSE(pcp_exists(DEBUGFS_DIR));
	ASSERT_FALSE(pcp_exists(PCP_SYSFS_DIR));

	ASSERT_EQ(0, pcp_run("modprobe pcpcache"));
	ASSERT_TRUE(pcp_exists(SYSFS_MODULE));
	ASSERT_TRUE(is_dir(DEBUGFS_DIR)) {
		TH_LOG("%s missing after modprobe", DEBUGFS_DIR);
	}
	ASSERT_TRUE(is_dir(PCP_SYSFS_DIR)) {
		TH_LOG("%s missing after modprobe", PCP_SYSFS_DIR);
	}

	ASSERT_EQ(0, pcp_run("rmmod pcpcache"));
	ASSERT_FALSE(pcp_exists(SYSFS_MODULE));
	ASSERT_FALSE(pcp_exists(DEBUGFS_DIR)) {
		TH_LOG("%s left behind after rmmod", DEBUGFS_DIR);
	}
	ASSERT_FALSE(pcp_exists(PCP_SYSFS_DIR)) {
		TH_LOG("%s left behind after rmmod", PCP_SYSFS_DIR);
	}
}

TEST_F(pcpcache, default_mode_is_single)
{
	char buf[128];

	ASSERT_EQ(0, pcp_run("modprobe pcpcache"));
	ASSERT_LT(0, pcp_read_file(DEBUGFS_DIR "/mode", buf, sizeof(buf)));
	ASSERT_STREQ("passthrough [single] split remote blocks barn\n", buf);
}

TEST_F(pcpcache, mode_parameter_sets_mode)
{
	static const char * const expect[] = {
		"passthrough", "[passthrough] single split remote blocks barn\n",
		"single", "passthrough [single] split remote blocks barn\n",
		"split", "passthrough single [split] remote blocks barn\n",
		"remote", "passthrough single split [remote] blocks barn\n",
		"blocks", "passthrough single split remote [blocks] barn\n",
		"barn", "passthrough single split remote blocks [barn]\n",
	};
	char buf[128];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(expect); i += 2) {
		ASSERT_EQ(0, pcp_run("modprobe pcpcache mode=%s", expect[i]));
		ASSERT_LT(0, pcp_read_file(DEBUGFS_DIR "/mode", buf, sizeof(buf)));
		EXPECT_STREQ(expect[i + 1], buf);
		ASSERT_LT(0, pcp_read_file(SYSFS_MODULE "/parameters/mode", buf,
				       sizeof(buf)));
		EXPECT_STREQ(expect[i + 1], buf);
		ASSERT_EQ(0, pcp_run("rmmod pcpcache"));
	}
}

TEST_F(pcpcache, bad_mode_parameter_fails_load)
{
	static const char * const bad[] = {
		"bogus", "Single", "singlex", "sing", "\"\"", "\"single split\"",
		"Barn", "barns",
	};
	long long mark;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		mark = pcp_log_mark();
		EXPECT_NE(0, pcp_run("modprobe pcpcache mode=%s 2>/dev/null", bad[i])) {
			TH_LOG("mode=%s was accepted", bad[i]);
		}
		EXPECT_FALSE(pcp_exists(SYSFS_MODULE));
		if (pcp_exists(SYSFS_MODULE))
			pcp_run("rmmod pcpcache");
		/* the kernel names the parameter that was refused, each time */
		EXPECT_EQ(0, pcp_log_grep(mark, "invalid for parameter `mode'")) {
			TH_LOG("no message naming mode after mode=%s", bad[i]);
		}
	}
}

/* Each locking design loads and says which it is; a bad one fails the load. */
TEST_F(pcpcache, lock_parameter_sets_design)
{
	static const char * const good[] = { "local", "spin", "trylock" };
	static const char * const bad[] = {
		"bogus", "Spin", "try", "trylocks", "\"\"", "\"spin local\"",
	};
	char buf[64], want[64];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(good); i++) {
		ASSERT_EQ(0, pcp_run("modprobe pcpcache lock=%s", good[i]));
		snprintf(want, sizeof(want), "%s\n", good[i]);
		ASSERT_LT(0, pcp_read_file(DEBUGFS_DIR "/lock", buf, sizeof(buf)));
		EXPECT_STREQ(want, buf);
		ASSERT_LT(0, pcp_read_file(SYSFS_MODULE "/parameters/lock", buf,
					   sizeof(buf)));
		EXPECT_STREQ(want, buf);
		ASSERT_EQ(0, pcp_run("rmmod pcpcache"));
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_NE(0, pcp_run("modprobe pcpcache lock=%s 2>/dev/null", bad[i])) {
			TH_LOG("lock=%s was accepted", bad[i]);
		}
		EXPECT_FALSE(pcp_exists(SYSFS_MODULE));
		if (pcp_exists(SYSFS_MODULE))
			pcp_run("rmmod pcpcache");
	}
}

TEST_F(pcpcache, knob_parameters_set_knobs)
{
	static const char * const knobs[] = { "batch", "high", "cold_batch",
					      "cold_high", "barn_full" };
	static const long want[] = { 8, 64, 4, 16, 7 };
	char path[128], buf[64];
	long val;
	size_t i;

	ASSERT_EQ(0, pcp_run("modprobe pcpcache batch=8 high=64 cold_batch=4 cold_high=16 barn_full=7"));
	for (i = 0; i < ARRAY_SIZE(knobs); i++) {
		ASSERT_EQ(0, pcp_read_long(knobs[i], &val));
		EXPECT_EQ(want[i], val) {
			TH_LOG("%s", knobs[i]);
		}
		snprintf(path, sizeof(path), SYSFS_MODULE "/parameters/%s",
			 knobs[i]);
		ASSERT_LT(0, pcp_read_file(path, buf, sizeof(buf)));
		EXPECT_EQ(want[i], atol(buf));
	}
}

/* Each bad value fails the load and the kernel log names the parameter. */
TEST_F_TIMEOUT(pcpcache, bad_knob_parameters_fail_load, 300)
{
	static const char * const bad[][2] = {
		{ "batch=0", "batch" },
		{ "batch=abc", "batch" },
		{ "batch=-1", "batch" },
		{ "batch=379", "batch" },
		{ "high=62", "high=62" },
		{ "high=4294967296", "high" },
		{ "cold_batch=0", "cold_batch" },
		{ "cold_batch=127", "cold_batch" },
		{ "high=4000000000", "high" },
		{ "cold_high=4000000000", "cold_high" },
		{ "batch=8x", "batch" },
		{ "barn_full=33", "barn_full" },
		{ "barn_full=-1", "barn_full" },
		/* barn mode's rule: 34 * 4096 * 4 is more than any bound here */
		{ "mode=barn batch=4096 high=4096 barn_full=32", "barn_full" },
	};
	long long mark;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		mark = pcp_log_mark();
		EXPECT_NE(0, pcp_run("modprobe pcpcache %s 2>/dev/null", bad[i][0])) {
			TH_LOG("%s was accepted", bad[i][0]);
		}
		EXPECT_FALSE(pcp_exists(SYSFS_MODULE));
		if (pcp_exists(SYSFS_MODULE))
			pcp_run("rmmod pcpcache");
		EXPECT_EQ(0, pcp_log_grep(mark, "pcpcache.*%s", bad[i][1])) {
			TH_LOG("no message naming %s after %s", bad[i][1],
			       bad[i][0]);
		}
	}
}

/* Stress, fill every CPU's magazine, unload: every page comes back. */
TEST_F(pcpcache, unload_after_stress_gives_pages_back)
{
	struct pcp_stress_opts opts = { .seconds = 2, .seed = 1 };
	static struct pcp_stress_result res;
	long long before, after, cached;
	struct pcp_stats st;
	int i, cpu, fd;

	before = pcp_buddy_free_pages();
	ASSERT_LT(0, before);
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(opts.cpus), &opts.cpus));
	for (i = 0; i < STRESS_CYCLES; i++) {
		ASSERT_EQ(0, pcp_run("modprobe pcpcache high=2000"));
		opts.seed = i + 1;
		ASSERT_EQ(0, pcp_stress_run(&opts, &res)) {
			TH_LOG("%s", res.failure);
		}
		fd = pcp_open_user();
		ASSERT_LE(0, fd);
		for (cpu = 0; cpu < pcp_nr_cpus(); cpu++) {
			ASSERT_EQ(0, pcp_pin(cpu));
			ASSERT_EQ(0, pcp_alloc(fd, 1900, 0, NULL));
			ASSERT_EQ(0, pcp_free(fd, 1900, 0, NULL));
		}
		close(fd);
		ASSERT_EQ(0, pcp_read_stats(&st));
		cached = pcp_stat(&st, "cached");
		EXPECT_LT(1000LL * pcp_nr_cpus(), cached);
		ASSERT_PAGE_AUDIT();
		ASSERT_EQ(0, pcp_run("rmmod pcpcache"));
	}
	after = pcp_buddy_free_pages();
	EXPECT_GE(PCP_FREE_PAGES_TOLERANCE, llabs(after - before)) {
		TH_LOG("free pages before %lld, after %lld; %lld were cached at the last rmmod",
		       before, after, cached);
	}
}

/* rmmod says the books closed: every page taken was given back */
TEST_F(pcpcache, unload_reports_balanced_books)
{
	long long mark;
	int fd, cpu;

	ASSERT_EQ(0, pcp_run("modprobe pcpcache"));
	fd = pcp_open_user();
	ASSERT_LE(0, fd);
	for (cpu = 0; cpu < pcp_nr_cpus(); cpu++) {
		ASSERT_EQ(0, pcp_pin(cpu));
		ASSERT_EQ(0, pcp_alloc(fd, 200, 0, NULL));
		ASSERT_EQ(0, pcp_free(fd, 100, PCPCACHE_COLD, NULL));
	}
	close(fd);
	ASSERT_PAGE_AUDIT();
	mark = pcp_log_mark();
	ASSERT_EQ(0, pcp_run("rmmod pcpcache"));
	EXPECT_EQ(0, pcp_log_grep(mark, "pcpcache: unloaded; buddy_alloc ([1-9][0-9]*) == buddy_free \\1$")) {
		pcp_log_grep(mark, "pcpcache");
	}
}

/* A file holding pages pins the module; nothing is freed under it. */
TEST_F(pcpcache, unload_refused_while_pages_held)
{
	struct pcp_stats st;
	int fd;

	ASSERT_EQ(0, pcp_run("modprobe pcpcache"));
	fd = pcp_open_user();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pcp_alloc(fd, 100, 0, NULL));
	EXPECT_NE(0, pcp_run("rmmod pcpcache 2>/dev/null"));
	ASSERT_TRUE(pcp_exists(DEBUGFS_DIR));
	ASSERT_EQ(0, pcp_read_stats(&st));
	EXPECT_EQ(100, pcp_stat(&st, "held"));
	close(fd);
	EXPECT_EQ(0, pcp_run("rmmod pcpcache"));
}

/* Options in /etc/modprobe.d/ reach the module parameters. */
TEST_F(pcpcache, modprobe_d_options_apply)
{
	const char *conf = "/etc/modprobe.d/pcpcache-selftest.conf";
	char buf[128];
	long val;

	ASSERT_EQ(0, pcp_run("mkdir -p /etc/modprobe.d && echo 'options pcpcache mode=split batch=31 high=186' > %s",
			     conf));
	EXPECT_EQ(0, pcp_run("modprobe pcpcache"));
	unlink(conf);
	ASSERT_TRUE(pcp_exists(SYSFS_MODULE));
	ASSERT_LT(0, pcp_read_file(DEBUGFS_DIR "/mode", buf, sizeof(buf)));
	EXPECT_STREQ("passthrough single [split] remote blocks barn\n", buf);
	ASSERT_EQ(0, pcp_read_long("batch", &val));
	EXPECT_EQ(31, val);
	ASSERT_EQ(0, pcp_read_long("high", &val));
	EXPECT_EQ(186, val);
}

TEST_F_TIMEOUT(pcpcache, reload_cycles, 300)
{
	int i;

	for (i = 0; i < RELOAD_CYCLES; i++) {
		ASSERT_EQ(0, pcp_run("modprobe pcpcache")) {
			TH_LOG("load %d failed", i);
		}
		ASSERT_TRUE(is_dir(DEBUGFS_DIR));
		ASSERT_EQ(0, pcp_run("rmmod pcpcache")) {
			TH_LOG("unload %d failed", i);
		}
		ASSERT_FALSE(pcp_exists(DEBUGFS_DIR));
	}
}

TEST_HARNESS_MAIN
