// SPDX-License-Identifier: GPL-2.0
/*
 * high=auto: each CPU's high grows with its refills up to high_max, decays
 * back to high_min when its traffic stops, drops to high_min when the
 * shrinker asks for pages, and a number written to high turns it all off.
 * The books balance throughout.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pcpcache_harness.h"

/* enough refills of the default batch (63) to reach the default high_max */
#define AUTO_PAGES	2000

FIXTURE(autohigh) {
	struct pcp_stats st;
	char why[256];
	long high_min, high_max;
	int fd;
};

FIXTURE_SETUP(autohigh)
{
	const char *why = pcp_skip_reason();

	self->fd = -1;
	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, pcp_reload(""));
	ASSERT_EQ(0, pcp_read_long("high_min", &self->high_min));
	ASSERT_EQ(0, pcp_read_long("high_max", &self->high_max));
	self->fd = pcp_open_user();
	ASSERT_LE(0, self->fd);
	/* CPU 0 is the one watched: the test's own wakeups keep it ticking */
	ASSERT_EQ(0, pcp_pin(0));
}

FIXTURE_TEARDOWN(autohigh)
{
	if (self->fd >= 0)
		close(self->fd);
	if (pcp_exists(PCP_SYSFS))
		pcp_run("rmmod pcpcache");
}

/* CPU @cpu's pageset line, or a line of -1s. */
static struct pcp_pageset pageset_of(int cpu)
{
	static struct pcp_pageset sets[PCP_MAX_CPUS];
	struct pcp_pageset none = { .cpu = -1, .count = -1, .high = -1 };
	int i, nr = pcp_read_pagesets(sets, PCP_MAX_CPUS);

	for (i = 0; i < nr; i++)
		if (sets[i].cpu == cpu)
			return sets[i];
	return none;
}

static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Allocate and free @nr pages on this CPU: refills, then a full list. */
static int traffic(int fd, unsigned int nr)
{
	return pcp_alloc(fd, nr, 0, NULL) ?: pcp_free(fd, nr, 0, NULL);
}

TEST_F(autohigh, refills_raise_high_to_high_max)
{
	struct pcp_pageset ps;
	char cfg[256];

	ASSERT_EQ(0, pcp_write("high", "auto"));
	ASSERT_LT(0, pcp_read_file(PCP_DIR "/config", cfg, sizeof(cfg)));
	EXPECT_NE(NULL, strstr(cfg, " high=auto ")) {
		TH_LOG("config: %s", cfg);
	}
	ps = pageset_of(0);
	EXPECT_EQ(self->high_min, ps.high);

	ASSERT_EQ(0, traffic(self->fd, AUTO_PAGES));
	ASSERT_BOOKS_BALANCE();
	ps = pageset_of(0);
	TH_LOG("after %d pages: high %ld (%ld..%ld), count %ld, grew %lld times",
	       AUTO_PAGES, ps.high, self->high_min, self->high_max, ps.count,
	       pcp_stat(&self->st, "high_grew"));
	EXPECT_EQ(self->high_max, ps.high);
	EXPECT_LT(0, pcp_stat(&self->st, "high_grew"));
	/* the list kept what the grown high allows, more than high_min */
	EXPECT_LT(self->high_min, ps.count);
	EXPECT_GE(ps.high, ps.count);

	/*
	 * a mode switch keeps a tuned high; turned off and on again it
	 * starts over, and the hot list of split mode tunes it the same way
	 */
	ASSERT_EQ(0, pcp_write("mode", "split"));
	EXPECT_EQ(self->high_max, pageset_of(0).high);
	ASSERT_EQ(0, pcp_write("high", "500"));
	ASSERT_EQ(0, pcp_write("high", "auto"));
	EXPECT_EQ(self->high_min, pageset_of(0).high);
	ASSERT_EQ(0, traffic(self->fd, AUTO_PAGES));
	EXPECT_EQ(self->high_max, pageset_of(0).high);
	ASSERT_BOOKS_BALANCE();
}

/* the wait (90 s at most) fits inside the harness's limit for the test */
TEST_F_TIMEOUT(autohigh, idle_cpu_decays_back_to_high_min, 120)
{
	struct pcp_pageset ps;
	double t0, took;

	ASSERT_EQ(0, pcp_write("high", "auto"));
	ASSERT_EQ(0, traffic(self->fd, AUTO_PAGES));
	ASSERT_EQ(self->high_max, pageset_of(0).high);

	/* no timing asserted: the guest's clock is the emulator's */
	t0 = seconds();
	do {
		usleep(250000);
		ps = pageset_of(0);
	} while (ps.high > self->high_min && seconds() - t0 < 90);
	took = seconds() - t0;
	TH_LOG("high %ld -> %ld in %.1f s idle, count %ld", self->high_max,
	       ps.high, took, ps.count);
	EXPECT_EQ(self->high_min, ps.high);
	EXPECT_GE(self->high_min, ps.count);
	ASSERT_BOOKS_BALANCE();
	EXPECT_LT(0, pcp_stat(&self->st, "high_decayed"));
}

TEST_F(autohigh, shrinker_cuts_high_to_high_min)
{
	long long cut;

	ASSERT_EQ(0, pcp_write("high", "auto"));
	ASSERT_EQ(0, traffic(self->fd, AUTO_PAGES));
	ASSERT_EQ(self->high_max, pageset_of(0).high);
	ASSERT_EQ(0, pcp_read_stats(&self->st));
	cut = pcp_stat(&self->st, "high_cut");

	/* drop_caches runs every shrinker, pcpcache's among them */
	ASSERT_EQ(0, pcp_write_file("/proc/sys/vm/drop_caches", "2"));
	EXPECT_EQ(self->high_min, pageset_of(0).high);
	ASSERT_BOOKS_BALANCE();
	EXPECT_LT(cut, pcp_stat(&self->st, "high_cut"));
}

TEST_F(autohigh, a_number_turns_auto_off)
{
	struct pcp_pageset sets[PCP_MAX_CPUS];
	int i, nr;
	long high;

	ASSERT_EQ(0, pcp_write("high", "auto"));
	ASSERT_EQ(0, traffic(self->fd, AUTO_PAGES));
	ASSERT_EQ(0, pcp_write("high", "500"));
	ASSERT_EQ(0, pcp_read_long("high", &high));
	EXPECT_EQ(500, high);
	nr = pcp_read_pagesets(sets, PCP_MAX_CPUS);
	ASSERT_LT(0, nr);
	for (i = 0; i < nr; i++) {
		EXPECT_EQ(500, sets[i].high);
		EXPECT_GE(500, sets[i].count);
	}
	/* fixed now: more refills leave it where it is */
	ASSERT_EQ(0, traffic(self->fd, AUTO_PAGES));
	EXPECT_EQ(500, pageset_of(0).high);
	ASSERT_BOOKS_BALANCE();
}

/* Writes that break an auto-tuning rule: EINVAL, and nothing changes. */
TEST_F(autohigh, bad_settings_change_nothing)
{
	static const char * const bad[][2] = {
		{ "high", "Auto" }, { "high", "auto1" }, { "high", "auto 5" },
		{ "high_min", "0" }, { "high_max", "377" },
		{ "high_min", "1135" }, { "batch", "379" },
		{ "config", "batch=400 high=auto" },
		{ "config", "high=auto high_min=10" },
		{ "config", "high_min=2000" },
	};
	char before[256], after[256];
	unsigned int i;

	ASSERT_EQ(0, pcp_write("high", "auto"));
	ASSERT_LT(0, pcp_read_file(PCP_DIR "/config", before, sizeof(before)));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(-EINVAL, pcp_write(bad[i][0], bad[i][1])) {
			TH_LOG("%s <- \"%s\"", bad[i][0], bad[i][1]);
		}
		ASSERT_LT(0, pcp_read_file(PCP_DIR "/config", after,
					   sizeof(after)));
		EXPECT_STREQ(before, after) {
			TH_LOG("%s <- \"%s\" changed the configuration",
			       bad[i][0], bad[i][1]);
		}
	}
	/* a fixed high lets batch pass high_min; auto then refuses it */
	ASSERT_EQ(0, pcp_write("high", "500"));
	EXPECT_EQ(0, pcp_write("batch", "400"));
	EXPECT_EQ(-EINVAL, pcp_write("high", "auto"));
	EXPECT_EQ(0, pcp_write("config", "batch=63 high=auto"));
}

TEST_HARNESS_MAIN
