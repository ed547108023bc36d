// SPDX-License-Identifier: GPL-2.0
/*
 * The bound on what each CPU may cache (a quarter of RAM over the online
 * CPUs) follows the online CPUs, not the possible ones: a cloud guest with
 * 128 possible CPUs and 4 online must load with the defaults and take a
 * high for 4. Its own program, so that the 128-possible-CPU lane runs
 * only it and load_unload.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "pcpcache_harness.h"
#include "pcpcache_stress.h"

FIXTURE(bound) {
	struct pcp_stats st;
	char why[256];
};

FIXTURE_SETUP(bound)
{
	const char *why = pcp_skip_reason();

	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, pcp_reload(NULL));
}

FIXTURE_TEARDOWN(bound)
{
	if (pcp_exists(PCP_SYSFS))
		pcp_run("rmmod pcpcache");
}

/*
 * A quarter of RAM over the online CPUs: with one CPU offline a larger
 * high fits, and when it comes back the configuration is cut to fit.
 */
TEST_F(bound, follows_online_cpus)
{
	int n = pcp_nr_cpus(), cpu = n - 1, i;
	long ram = pcp_meminfo_kb("MemTotal") / 4, high, cold_high;
	long long mark;
	char cfg[96];

	if (cpu < 1 || pcp_cpu_set_online(cpu, true) == -ENOENT)
		SKIP(return, "needs a second CPU that can go offline");
	ASSERT_EQ(0, pcp_pin(0));
	ASSERT_EQ(0, pcp_read_long("cold_high", &cold_high));
	high = ram / 4 / (n - 1) - cold_high;
	snprintf(cfg, sizeof(cfg), "high=%ld", high);
	/* too much for n CPUs ... */
	EXPECT_NE(0, pcp_write("config", cfg));
	/* ... fine for n - 1 */
	ASSERT_EQ(0, pcp_cpu_set_online(cpu, false));
	EXPECT_EQ(0, pcp_write("config", cfg));
	mark = pcp_log_mark();
	ASSERT_EQ(0, pcp_cpu_set_online(cpu, true));

	/* cut to fit, by work queued when the CPU came online */
	for (i = 0; i < 300; i++) {
		ASSERT_EQ(0, pcp_read_long("high", &high));
		ASSERT_EQ(0, pcp_read_long("cold_high", &cold_high));
		if (high + cold_high <= ram / 4 / n)
			break;
		usleep(100000);
	}
	EXPECT_GE(ram / 4 / n, high + cold_high) {
		TH_LOG("high %ld + cold_high %ld > %ld with %d CPUs", high,
		       cold_high, ram / 4 / n, n);
	}
	EXPECT_EQ(0, pcp_log_grep(mark, "pcpcache: %d CPUs online: high", n));
	ASSERT_BOOKS_BALANCE();
}

TEST_HARNESS_MAIN
