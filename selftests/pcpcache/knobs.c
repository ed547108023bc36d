// SPDX-License-Identifier: GPL-2.0
/*
 * The control and status files of pcpcache: permissions, the knobs and
 * their rules, the one grammar of every value written, generation and
 * limits, every mode switch with pages cached, drain, pagesets and stats,
 * each test once through debugfs and once through sysfs; then what only
 * debugfs has (one write per open file, the bench file's requests) and
 * what only sysfs has (a whole value per write, pagesets read in pieces,
 * the same text as debugfs). Each test starts from a freshly loaded module
 * with the defaults.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pcpcache_harness.h"

static const char * const knob_names[] = { "batch", "high", "cold_batch",
					   "cold_high", "barn_full" };
static const char * const mode_names[] = { "passthrough", "single", "split",
					   "remote", "blocks", "barn" };
#define MODES_DEFAULT	"passthrough [single] split remote blocks barn\n"

/* What the files say about the configuration. */
struct config {
	char mode[64];
	long knob[5];
};

static int read_config(struct config *c)
{
	char path[256];
	size_t i;
	int err;

	pcp_path(path, sizeof(path), "mode");
	if (pcp_read_file(path, c->mode, sizeof(c->mode)) < 0)
		return -1;
	for (i = 0; i < ARRAY_SIZE(knob_names); i++) {
		err = pcp_read_long(knob_names[i], &c->knob[i]);
		if (err)
			return err;
	}
	return 0;
}

static bool same_config(const struct config *a, const struct config *b)
{
	return !strcmp(a->mode, b->mode) &&
	       !memcmp(a->knob, b->knob, sizeof(a->knob));
}

/* Allocate @nr pages on every CPU and free them there: fills the caches. */
static int fill_caches(int nr)
{
	int cpu, fd, err = 0;

	fd = pcp_open_user();
	if (fd < 0)
		return fd;
	for (cpu = 0; cpu < pcp_nr_cpus() && !err; cpu++) {
		err = pcp_pin(cpu);
		if (!err)
			err = pcp_alloc(fd, nr, 0, NULL);
		if (!err)
			err = pcp_free(fd, nr / 2, 0, NULL);
		if (!err)
			err = pcp_free(fd, nr - nr / 2, PCPCACHE_COLD, NULL);
	}
	close(fd);
	return err;
}

/* Every test starts from a freshly loaded module with the defaults. */
#define SETUP_FRESH_MODULE()						\
	do {								\
		const char *why = pcp_skip_reason();			\
									\
		if (why)						\
			SKIP(return, "%s", why);			\
		ASSERT_EQ(0, pcp_reload(NULL));				\
	} while (0)

static void unload(void)
{
	pcp_dir = PCP_DIR;
	if (pcp_exists(PCP_SYSFS))
		pcp_run("rmmod pcpcache");
}

/* Each file, and its mode in debugfs and in sysfs (0: not there). */
static const struct {
	const char *name;
	mode_t debugfs, sysfs;
} files[] = {
	{ "mode", 0600, 0644 }, { "batch", 0600, 0644 },
	{ "high", 0600, 0644 }, { "cold_batch", 0600, 0644 },
	{ "cold_high", 0600, 0644 }, { "config", 0600, 0644 },
	{ "stats", 0400, 0444 }, { "stats_percpu", 0400, 0 },
	{ "pagesets", 0400, 0444 },
	{ "generation", 0400, 0444 }, { "limits", 0400, 0444 },
	{ "drain", 0200, 0200 }, { "user", 0600, 0 },
	{ "fault_refill", 0600, 0 }, { "bench", 0600, 0 },
	{ "delay_block_setup", 0600, 0 },
	{ "barn_trim", 0200, 0 }, { "barn_trim_ms", 0600, 0 },
	{ "barn_full", 0600, 0644 },
};

FIXTURE(knobs) {
	struct pcp_stats st;
	char why[256];
};

/* The files the tests read and write: debugfs's, or sysfs's. */
FIXTURE_VARIANT(knobs) {
	const char *dir;
	bool sysfs;
};

FIXTURE_VARIANT_ADD(knobs, debugfs) {
	.dir = PCP_DIR,
	.sysfs = false,
};

FIXTURE_VARIANT_ADD(knobs, sysfs) {
	.dir = PCP_SYSFS_DIR,
	.sysfs = true,
};

FIXTURE_SETUP(knobs)
{
	SETUP_FRESH_MODULE();
	pcp_dir = variant->dir;
}

FIXTURE_TEARDOWN(knobs)
{
	unload();
}

static mode_t file_mode(const FIXTURE_VARIANT(knobs) *variant, size_t i)
{
	return variant->sysfs ? files[i].sysfs : files[i].debugfs;
}

/*
 * debugfs's files are root's alone; sysfs's, like transparent_hugepage's,
 * anyone may read. The files only debugfs has are not in sysfs.
 */
TEST_F(knobs, file_modes)
{
	char path[128];
	struct stat st;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), "%s/%s", variant->dir,
			 files[i].name);
		if (!file_mode(variant, i)) {
			EXPECT_NE(0, stat(path, &st));
			EXPECT_EQ(ENOENT, errno);
			continue;
		}
		ASSERT_EQ(0, stat(path, &st)) {
			TH_LOG("%s: %s", path, strerror(errno));
		}
		EXPECT_EQ(file_mode(variant, i), st.st_mode & 0777) {
			TH_LOG("%s is %o", path, st.st_mode & 0777);
		}
		EXPECT_EQ(0U, st.st_uid);
	}
}

/* Another user may read what the mode lets it and write nothing. */
TEST_F(knobs, other_users_are_refused)
{
	pid_t child;
	int status;

	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		char path[128];
		int bad = 0, fd;
		bool may;
		size_t i, m;

		if (setgid(65534) || setuid(65534))
			_exit(100);
		for (i = 0; i < ARRAY_SIZE(files); i++) {
			if (!file_mode(variant, i))
				continue;
			for (m = 0; m < 2; m++) {
				snprintf(path, sizeof(path), "%s/%s",
					 variant->dir, files[i].name);
				may = !m && file_mode(variant, i) & 0004;
				fd = open(path, m ? O_WRONLY : O_RDONLY);
				if (may ? fd < 0 : (fd >= 0 || errno != EACCES)) {
					fprintf(stderr, "# %s opened %s by uid 65534: %s\n",
						path, m ? "for writing" : "for reading",
						fd >= 0 ? "allowed" : strerror(errno));
					bad++;
				}
				if (fd >= 0)
					close(fd);
			}
		}
		_exit(bad);
	}
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

TEST_F(knobs, defaults_are_2_6_23)
{
	struct config c;

	ASSERT_EQ(0, read_config(&c));
	EXPECT_STREQ(MODES_DEFAULT, c.mode);
	EXPECT_EQ(63, c.knob[0]);
	EXPECT_EQ(378, c.knob[1]);
	EXPECT_EQ(31, c.knob[2]);
	EXPECT_EQ(126, c.knob[3]);
	/* barn mode's: four full magazines of each order a barn */
	EXPECT_EQ(4, c.knob[4]);
}

TEST_F(knobs, writes_take_effect_everywhere)
{
	struct pcp_pageset sets[PCP_MAX_CPUS];
	char buf[64];
	long val;
	int i, nr;

	ASSERT_EQ(0, pcp_write("batch", "8\n"));
	ASSERT_EQ(0, pcp_write("high", "40"));
	/* batch <= high holds after each write, so the order matters */
	ASSERT_EQ(-EINVAL, pcp_write("cold_high", "20\n"));
	ASSERT_EQ(0, pcp_write("cold_batch", "5"));
	ASSERT_EQ(0, pcp_write("cold_high", "20\n"));
	ASSERT_EQ(0, pcp_read_long("batch", &val));
	EXPECT_EQ(8, val);
	ASSERT_EQ(0, pcp_read_long("high", &val));
	EXPECT_EQ(40, val);
	ASSERT_EQ(0, pcp_read_long("cold_batch", &val));
	EXPECT_EQ(5, val);
	ASSERT_EQ(0, pcp_read_long("cold_high", &val));
	EXPECT_EQ(20, val);
	ASSERT_LT(0, pcp_read_file(PCP_SYSFS "/parameters/high", buf,
				   sizeof(buf)));
	EXPECT_STREQ("40\n", buf);
	ASSERT_EQ(0, pcp_write("barn_full", "2\n"));
	ASSERT_EQ(0, pcp_read_long("barn_full", &val));
	EXPECT_EQ(2, val);
	ASSERT_LT(0, pcp_read_file(PCP_SYSFS "/parameters/barn_full", buf,
				   sizeof(buf)));
	EXPECT_STREQ("2\n", buf);

	ASSERT_EQ(0, pcp_write("mode", "split\n"));
	nr = pcp_read_pagesets(sets, PCP_MAX_CPUS);
	ASSERT_LE(pcp_nr_cpus(), nr);
	for (i = 0; i < nr; i++) {
		EXPECT_EQ(i, sets[i].cpu);
		EXPECT_EQ(40, sets[i].high);
		EXPECT_EQ(8, sets[i].batch);
		EXPECT_EQ(20, sets[i].cold_high);
		EXPECT_EQ(5, sets[i].cold_batch);
	}
}

/* Every bad write fails with EINVAL and changes nothing. */
TEST_F(knobs, bad_writes_change_nothing)
{
	static const char * const bad_numbers[] = {
		"\n", "abc", "-1", "12abc", "1 2", " 5", "5 ", "5\n\n",
		"0x10", "4294967296", "99999999999999999999", "1.5", "+",
		"00000000000000000000000000000000000000005",
		"+5", "-0", "\t5", "5\t", "5\r\n", "\n5", "0X10", "1e3",
		"00000000005",
	};
	static const char * const bad_values[][2] = {
		{ "batch", "0" }, { "batch", "379" },
		{ "high", "62" }, { "high", "0" }, { "high", "4000000000" },
		{ "cold_batch", "0" }, { "cold_batch", "127" },
		{ "cold_high", "30" }, { "cold_high", "4000000000" },
		{ "mode", "\n" }, { "mode", "bogus" },
		{ "mode", "Single" }, { "mode", "single\n\n" },
		{ "mode", "single split" }, { "mode", "[single]" },
		{ "mode", " split" }, { "mode", "split\r\n" },
		{ "mode", "Remote" }, { "mode", "remote single" },
		{ "mode", "remot" }, { "mode", "remotes" },
		{ "drain", "0" }, { "drain", "2" }, { "drain", "\n" },
		{ "drain", "yes" }, { "drain", "+1" },
		{ "config", "\n" }, { "config", "batch=+8" },
		{ "config", "batch=8 " }, { "config", "batch=8\t" },
		{ "config", "mode=split\r\n" }, { "config", "batch=8 batch=8" },
		{ "config", "batch=8  high=64" }, { "config", "batch=0x8" },
		{ "fault_refill", "101" }, { "fault_refill", "+5" },
		{ "delay_block_setup", "2001" }, { "delay_block_setup", "-1" },
		{ "barn_trim", "0" }, { "barn_trim", "2" },
		{ "barn_trim_ms", "600001" }, { "barn_trim_ms", "-1" },
		{ "barn_full", "33" }, { "barn_full", "4294967296" },
		{ "config", "barn_full=33" },
		{ "config", "mode=barn barn_full=33" },
		{ "mode", "Barn" }, { "mode", "barns" }, { "mode", "bar" },
	};
	struct config before, after;
	size_t i, k;
	int err;

	ASSERT_EQ(0, read_config(&before));
	for (k = 0; k < ARRAY_SIZE(knob_names); k++) {
		for (i = 0; i < ARRAY_SIZE(bad_numbers); i++) {
			err = pcp_write(knob_names[k], bad_numbers[i]);
			EXPECT_EQ(-EINVAL, err) {
				TH_LOG("%s <- \"%s\": %s", knob_names[k],
				       bad_numbers[i], strerror(-err));
			}
			ASSERT_EQ(0, read_config(&after));
			EXPECT_TRUE(same_config(&before, &after));
		}
	}
	for (i = 0; i < ARRAY_SIZE(bad_values); i++) {
		err = pcp_write(bad_values[i][0], bad_values[i][1]);
		EXPECT_EQ(-EINVAL, err) {
			TH_LOG("%s <- \"%s\": %s", bad_values[i][0],
			       bad_values[i][1], strerror(-err));
		}
		ASSERT_EQ(0, read_config(&after));
		EXPECT_TRUE(same_config(&before, &after)) {
			TH_LOG("%s <- \"%s\" changed the configuration",
			       bad_values[i][0], bad_values[i][1]);
		}
	}
	/*
	 * root may open a read-only debugfs file for writing, but cannot
	 * write; sysfs does not let it open one
	 */
	err = variant->sysfs ? -EACCES : -EINVAL;
	EXPECT_EQ(err, pcp_write("stats", "0"));
	EXPECT_EQ(err, pcp_write("pagesets", "0"));
	EXPECT_EQ(err, pcp_write("generation", "0"));
	EXPECT_EQ(err, pcp_write("limits", "max_batch=1"));
	ASSERT_EQ(0, read_config(&after));
	EXPECT_TRUE(same_config(&before, &after));
}

/* A write of no bytes is no value, and changes nothing, in either. */
TEST_F(knobs, an_empty_write_changes_nothing)
{
	static const char * const writable[] = {
		"mode", "batch", "high", "cold_batch", "cold_high", "barn_full",
		"config", "drain",
	};
	struct config before, after;
	long gen, gen_after;
	size_t i;

	ASSERT_EQ(0, read_config(&before));
	ASSERT_EQ(0, pcp_read_long("generation", &gen));
	for (i = 0; i < ARRAY_SIZE(writable); i++) {
		EXPECT_EQ(0, pcp_write(writable[i], "")) {
			TH_LOG("%s <- \"\"", writable[i]);
		}
	}
	ASSERT_EQ(0, read_config(&after));
	EXPECT_TRUE(same_config(&before, &after));
	ASSERT_EQ(0, pcp_read_long("generation", &gen_after));
	EXPECT_EQ(gen, gen_after);
}

/*
 * What the files say, the fault_refill percentage and the trim's interval
 * included: what a refused write must leave alone.
 */
static int read_state(char *buf, size_t size)
{
	char path[256];
	size_t len;
	ssize_t n;

	pcp_path(path, sizeof(path), "config");
	n = pcp_read_file(path, buf, size);
	if (n < 0)
		return n;
	len = n;
	pcp_path(path, sizeof(path), "fault_refill");
	n = pcp_read_file(path, buf + len, size - len);
	if (n < 0)
		return n;
	len += n;
	pcp_path(path, sizeof(path), "barn_trim_ms");
	n = pcp_read_file(path, buf + len, size - len);
	return n < 0 ? n : 0;
}

/* The defaults, back in force after a write that was accepted. */
static int restore_defaults(void)
{
	return pcp_write("config", "mode=single " PCP_DEFAULT_KNOBS) ?:
	       pcp_write("fault_refill", "0");
}

/*
 * Every file that takes a number reads it the same way: a spelling that
 * one file takes, all take, and one that one refuses, all refuse.
 * NUMBER stands for a value each place accepts.
 */
TEST_F(knobs, one_grammar_everywhere)
{
	static const struct {
		const char *fmt;
		bool ok;
	} spellings[] = {
		{ "%u", true }, { "%u\n", true }, { "%010u", true },
		{ "0%010u", false }, { "+%u", false }, { "-%u", false },
		{ " %u", false }, { "%u ", false }, { "\t%u", false },
		{ "%u\t", false }, { "%u\r\n", false }, { "%u\n\n", false },
		{ "\n%u", false }, { "0x%u", false }, { "%u.0", false },
		{ "%ue0", false }, { "%u\v", false },
	};
	static const struct {
		const char *file;
		const char *fmt;	/* where the number goes */
		unsigned int value;
	} places[] = {
		{ "batch", "%s", 8 }, { "high", "%s", 100 },
		{ "cold_batch", "%s", 8 }, { "cold_high", "%s", 100 },
		{ "fault_refill", "%s", 8 }, { "drain", "%s", 1 },
		{ "barn_trim", "%s", 1 }, { "barn_trim_ms", "%s", 5000 },
		{ "config", "batch=%s", 8 }, { "config", "cold_high=%s", 100 },
		{ "config", "mode=split high=%s", 100 },
		{ "barn_full", "%s", 8 },
		{ "config", "mode=barn barn_full=%s", 8 },
		{ "bench", "counter 100 1 %s", 0 },
	};
	char number[64], write[128], before[256], after[256];
	size_t i, p;
	int err;

	for (i = 0; i < ARRAY_SIZE(spellings); i++) {
		for (p = 0; p < ARRAY_SIZE(places); p++) {
			snprintf(number, sizeof(number), spellings[i].fmt,
				 places[p].value);
			snprintf(write, sizeof(write), places[p].fmt, number);
			ASSERT_EQ(0, read_state(before, sizeof(before)));
			err = pcp_write(places[p].file, write);
			EXPECT_EQ(spellings[i].ok ? 0 : -EINVAL, err) {
				TH_LOG("%s <- \"%s\": %s", places[p].file, write,
				       strerror(-err));
			}
			ASSERT_EQ(0, read_state(after, sizeof(after)));
			if (err)
				EXPECT_STREQ(before, after);
			ASSERT_EQ(0, restore_defaults());
		}
	}
}

/* A NUL is part of the write like any byte, and no number ends in one. */
TEST_F(knobs, a_nul_is_refused_everywhere)
{
	static const struct {
		const char *file;
		const char *buf;
		size_t len;
	} writes[] = {
		{ "batch", "8\0", 2 }, { "batch", "8\0\n", 3 },
		{ "batch", "\0", 1 }, { "high", "100\0", 4 },
		{ "mode", "split\0", 6 }, { "mode", "split\0\n", 7 },
		{ "config", "batch=8\0", 8 }, { "drain", "1\0", 2 },
		{ "fault_refill", "5\0", 2 }, { "bench", "counter 1 1 0\0", 14 },
		{ "barn_full", "4\0", 2 }, { "mode", "barn\0", 5 },
		{ "barn_trim_ms", "200\0", 4 }, { "barn_trim", "1\0", 2 },
	};
	char before[256], after[256];
	size_t i;
	int err;

	ASSERT_EQ(0, read_state(before, sizeof(before)));
	for (i = 0; i < ARRAY_SIZE(writes); i++) {
		err = pcp_write_len(writes[i].file, writes[i].buf, writes[i].len);
		EXPECT_EQ(-EINVAL, err) {
			TH_LOG("%s <- %zu bytes ending in a NUL: %s",
			       writes[i].file, writes[i].len, strerror(-err));
		}
		ASSERT_EQ(0, read_state(after, sizeof(after)));
		EXPECT_STREQ(before, after);
	}
}

static long generation(void)
{
	long gen = -1;

	pcp_read_long("generation", &gen);
	return gen;
}

static long long mode_switches(void)
{
	struct pcp_stats st;

	return pcp_read_stats(&st) ? -1 : pcp_stat(&st, "mode_switches");
}

/*
 * Every write put in force counts once in generation; nothing else
 * counts. mode_switches counts those that changed the mode, whichever
 * file they came through.
 */
TEST_F(knobs, generation_counts_applied_writes)
{
	long long switches = mode_switches();
	long gen = generation();

	ASSERT_LE(0, gen);
	ASSERT_LE(0, switches);
	ASSERT_EQ(0, pcp_write("batch", "8"));
	EXPECT_EQ(gen + 1, generation());
	ASSERT_EQ(0, pcp_write("config", "mode=split batch=9 high=90"));
	EXPECT_EQ(gen + 2, generation());
	/* applied, if it changes nothing */
	ASSERT_EQ(0, pcp_write("mode", "split"));
	EXPECT_EQ(gen + 3, generation());
	EXPECT_EQ(-EINVAL, pcp_write("batch", "91"));
	EXPECT_EQ(-EINVAL, pcp_write("config", "batch=1 high=0"));
	EXPECT_EQ(-EINVAL, pcp_write("mode", "bogus"));
	EXPECT_EQ(0, pcp_write("drain", "1"));
	EXPECT_EQ(0, pcp_write("fault_refill", "0"));
	EXPECT_EQ(gen + 3, generation());
	/* single to split through config: one switch; split again: none */
	EXPECT_EQ(switches + 1, mode_switches());
	/*
	 * the switch benchmark: four writes (split, single, split, single,
	 * three of them switches), then the configuration back (split)
	 */
	ASSERT_EQ(0, pcp_write("bench", "switch 4 1 0"));
	EXPECT_EQ(gen + 8, generation());
	EXPECT_EQ(switches + 5, mode_switches());
}

/* limits says where the rules draw the line, and they draw it there. */
TEST_F(knobs, limits_are_the_rules)
{
	unsigned long max_batch, max_sum;
	char buf[128], cfg[128], path[256];

	pcp_path(path, sizeof(path), "limits");
	ASSERT_LT(0, pcp_read_file(path, buf, sizeof(buf)));
	ASSERT_EQ(2, sscanf(buf, "max_batch=%lu max_high_sum=%lu\n",
			    &max_batch, &max_sum)) {
		TH_LOG("limits: %s", buf);
	}
	EXPECT_EQ(4096UL, max_batch);
	ASSERT_LE(max_batch + 1, max_sum) {
		TH_LOG("a machine this small cannot test the bound: %s", buf);
	}

	snprintf(cfg, sizeof(cfg), "batch=%lu high=%lu", max_batch + 1,
		 max_batch + 1);
	EXPECT_EQ(-EINVAL, pcp_write("config", cfg));
	snprintf(cfg, sizeof(cfg), "batch=%lu high=%lu", max_batch, max_batch);
	EXPECT_EQ(0, pcp_write("config", cfg));

	snprintf(cfg, sizeof(cfg), "batch=1 high=%lu cold_batch=1 cold_high=1",
		 max_sum);
	EXPECT_EQ(-EINVAL, pcp_write("config", cfg));
	snprintf(cfg, sizeof(cfg), "batch=1 high=%lu cold_batch=1 cold_high=1",
		 max_sum - 1);
	EXPECT_EQ(0, pcp_write("config", cfg));
}

/*
 * barn mode adds a rule: (2 + barn_full) * max(batch, 8) * 4 <=
 * max_high_sum. A batch with which the most barn_full (32) does not fit:
 * barn_full one over the line is refused in barn mode alone, and so is a
 * switch to barn mode while it is in force; barn_full is 0 to 32 in
 * every mode. Each refused write changes nothing.
 */
TEST_F(knobs, barn_rule_is_drawn_at_the_bound)
{
	unsigned long max_sum = pcp_max_high_sum(), batch, bad_batch;
	char cfg[128], before[256], after[256], path[256];
	unsigned long full;

	ASSERT_LT(0UL, max_sum);
	batch = max_sum / PCP_BARN_PAGES(1, PCP_BARN_MAX) + 1;
	/* the most barn_full fitting with it: under 32 */
	full = max_sum / (batch * PCP_BARN_ORDERS) - 2;
	ASSERT_GT(PCP_BARN_MAX, full);
	ASSERT_LT(0UL, full);
	snprintf(cfg, sizeof(cfg), "mode=single batch=%lu high=%lu barn_full=%lu",
		 batch, batch < 378 ? 378 : batch, full + 1);
	ASSERT_EQ(0, pcp_write("config", cfg)) {
		TH_LOG("%s: the rule is barn mode's alone", cfg);
	}
	pcp_path(path, sizeof(path), "config");
	ASSERT_LT(0, pcp_read_file(path, before, sizeof(before)));
	EXPECT_EQ(-EINVAL, pcp_write("mode", "barn"));
	snprintf(cfg, sizeof(cfg), "mode=barn barn_full=%lu", full + 1);
	EXPECT_EQ(-EINVAL, pcp_write("config", cfg));
	ASSERT_LT(0, pcp_read_file(path, after, sizeof(after)));
	EXPECT_STREQ(before, after);
	snprintf(cfg, sizeof(cfg), "mode=barn barn_full=%lu", full);
	ASSERT_EQ(0, pcp_write("config", cfg));
	snprintf(cfg, sizeof(cfg), "%lu", full + 1);
	ASSERT_LT(0, pcp_read_file(path, before, sizeof(before)));
	EXPECT_EQ(-EINVAL, pcp_write("barn_full", cfg));
	/* the least batch over the line with it, within high */
	bad_batch = max_sum / PCP_BARN_PAGES(1, full) + 1;
	ASSERT_GE(378UL, bad_batch);
	snprintf(cfg, sizeof(cfg), "%lu", bad_batch);
	EXPECT_EQ(-EINVAL, pcp_write("batch", cfg));
	EXPECT_EQ(-EINVAL, pcp_write("barn_full", "33"));
	ASSERT_LT(0, pcp_read_file(path, after, sizeof(after)));
	EXPECT_STREQ(before, after);
	EXPECT_EQ(0, pcp_write("barn_full", "0"));
	snprintf(cfg, sizeof(cfg), "%lu", bad_batch);
	EXPECT_EQ(0, pcp_write("batch", cfg));
}

/*
 * Write @knob @rounds times, through @file ("config" or the knob's own),
 * and read it back after each write: nobody else writes it, so it must
 * be what was written. The number of rounds that found it otherwise.
 */
static int write_and_check(const char *file, const char *knob, int rounds,
			   int base)
{
	char val[64];
	int i, lost = 0;
	long now;

	for (i = 0; i < rounds; i++) {
		if (strcmp(file, "config"))
			snprintf(val, sizeof(val), "%d", base + i % 30);
		else
			snprintf(val, sizeof(val), "%s=%d", knob, base + i % 30);
		if (pcp_write(file, val) || pcp_read_long(knob, &now))
			return rounds;
		lost += now != base + i % 30;
	}
	return lost;
}

/*
 * A config write and a knob write at the same time never undo each
 * other: each copies, changes and commits the configuration under one
 * lock, so the setting the other one names is never put back.
 */
TEST_F_TIMEOUT(knobs, config_and_knob_writes_never_undo_each_other, 300)
{
	const int rounds = 400;
	int status, lost;
	pid_t child;

	child = fork();
	ASSERT_LE(0, child);
	if (!child)
		_exit(write_and_check("config", "cold_batch", rounds, 1) ? 1 : 0);
	lost = write_and_check("batch", "batch", rounds, 1);
	ASSERT_EQ(child, waitpid(child, &status, 0));
	EXPECT_EQ(0, lost) {
		TH_LOG("batch undone in %d of %d rounds", lost, rounds);
	}
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) {
		TH_LOG("cold_batch, written through config, was undone");
	}
}

/*
 * Each of the 6 x 6 switches, with pages cached on every CPU; in barn
 * mode, each CPU's main magazine within its batch, which pagesets shows
 * as its high.
 */
/* 72 page audits, each stopping every CPU (slow under emulation) */
TEST_F_TIMEOUT(knobs, mode_switches_keep_the_books, 300)
{
	struct pcp_pageset sets[PCP_MAX_CPUS];
	long long switches = 0;
	size_t from, to, cur = 1;
	int i, nr;

	for (from = 0; from < ARRAY_SIZE(mode_names); from++) {
		for (to = 0; to < ARRAY_SIZE(mode_names); to++) {
			ASSERT_EQ(0, pcp_write("mode", mode_names[from]));
			switches += cur != from;
			ASSERT_EQ(0, fill_caches(200));
			ASSERT_BOOKS_BALANCE();
			if (from)
				EXPECT_LT(0, pcp_stat(&self->st, "cached"));
			ASSERT_EQ(0, pcp_write("mode", mode_names[to]));
			switches += from != to;
			cur = to;
			ASSERT_BOOKS_BALANCE();
			EXPECT_EQ(0, pcp_stat(&self->st, "held"));

			nr = pcp_read_pagesets(sets, PCP_MAX_CPUS);
			ASSERT_LT(0, nr);
			for (i = 0; i < nr; i++) {
				EXPECT_GE(sets[i].high, sets[i].count);
				EXPECT_GE(sets[i].cold_high, sets[i].cold_count);
				if (to == 0)
					EXPECT_EQ(0, sets[i].count);
				EXPECT_EQ(to == 2 ? 126 : -1, sets[i].cold_high);
			}
			if (to == 0)
				EXPECT_EQ(0, pcp_stat(&self->st, "cached"));
		}
	}
	/* writing the mode in force is not a switch */
	EXPECT_EQ(switches, pcp_stat(&self->st, "mode_switches"));
}

TEST_F(knobs, lower_high_gives_back_the_surplus)
{
	struct pcp_pageset sets[PCP_MAX_CPUS];
	long long before;
	int i, nr;

	ASSERT_EQ(0, fill_caches(300));
	ASSERT_BOOKS_BALANCE();
	before = pcp_stat(&self->st, "buddy_free");
	ASSERT_EQ(0, pcp_write("batch", "4"));
	ASSERT_EQ(0, pcp_write("high", "10"));
	ASSERT_BOOKS_BALANCE();
	EXPECT_LT(before, pcp_stat(&self->st, "buddy_free"));
	EXPECT_GE(10LL * pcp_nr_cpus(), pcp_stat(&self->st, "cached"));
	nr = pcp_read_pagesets(sets, PCP_MAX_CPUS);
	ASSERT_LT(0, nr);
	for (i = 0; i < nr; i++)
		EXPECT_GE(10, sets[i].count);
}

TEST_F(knobs, drain_empties_every_cpu)
{
	struct pcp_pageset sets[PCP_MAX_CPUS];
	struct config c;
	int i, nr;

	ASSERT_EQ(0, fill_caches(100));
	ASSERT_BOOKS_BALANCE();
	ASSERT_LT(0, pcp_stat(&self->st, "cached"));
	ASSERT_EQ(0, pcp_write("drain", "1\n"));
	ASSERT_BOOKS_BALANCE();
	EXPECT_EQ(0, pcp_stat(&self->st, "cached"));
	EXPECT_EQ(pcp_stat(&self->st, "buddy_alloc"),
		  pcp_stat(&self->st, "buddy_free"));
	nr = pcp_read_pagesets(sets, PCP_MAX_CPUS);
	ASSERT_LT(0, nr);
	for (i = 0; i < nr; i++)
		EXPECT_EQ(0, sets[i].count);
	/* the mode and the knobs stay */
	ASSERT_EQ(0, read_config(&c));
	EXPECT_STREQ(MODES_DEFAULT, c.mode);
	EXPECT_EQ(378, c.knob[1]);
}

TEST_F(knobs, pagesets_lists_every_cpu)
{
	struct pcp_pageset sets[PCP_MAX_CPUS];
	int i, nr;

	nr = pcp_read_pagesets(sets, PCP_MAX_CPUS);
	ASSERT_LE(pcp_nr_cpus(), nr);
	for (i = 0; i < nr; i++) {
		EXPECT_EQ(i, sets[i].cpu);
		EXPECT_EQ(0, sets[i].count);
		EXPECT_EQ(378, sets[i].high);
		EXPECT_EQ(63, sets[i].batch);
		EXPECT_EQ(-1, sets[i].cold_high);
	}
}

TEST_F(knobs, stats_has_every_counter)
{
	static const char * const names[] = {
		"alloc", "alloc_hit", "alloc_miss", "alloc_cold", "alloc_fail",
		"free", "free_cold", "refill", "refill_pages", "drain",
		"drain_pages", "buddy_alloc", "buddy_free", "cached", "held",
		"mode_switches", "alloc_zeroed", "remote_node", "shrink",
		"shrink_pages", "fault_injected", "oom", "oom_pages", "oom_late",
		"remote_frees", "remote_absorbed", "remote_overflow", "transit",
		"barn_swaps", "barn_took_full", "barn_gave_full", "barn_flushes",
		"barn_busy", "barn_trimmed", "barn",
	};
	size_t i;

	ASSERT_EQ(0, pcp_read_stats(&self->st));
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		const char *name = names[i];

		EXPECT_EQ(0, pcp_stat(&self->st, name)) {
			TH_LOG("%s missing or not 0 after load", name);
		}
	}
}

FIXTURE(debugfs) {
};

FIXTURE_SETUP(debugfs)
{
	SETUP_FRESH_MODULE();
}

FIXTURE_TEARDOWN(debugfs)
{
	unload();
}

/*
 * A write carries a whole value at the start of the file: a second write
 * on the same open file is at another position and is refused, not taken
 * for a new value.
 */
TEST_F(debugfs, a_write_after_a_write_is_refused)
{
	long val;
	int fd;

	fd = open(PCP_DIR "/batch", O_WRONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(1, write(fd, "3", 1));
	EXPECT_EQ(-1, write(fd, "78", 2));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, pcp_read_long("batch", &val));
	EXPECT_EQ(3, val);
	/* back at the start, a write is a value again */
	EXPECT_EQ(0, lseek(fd, 0, SEEK_SET));
	EXPECT_EQ(2, write(fd, "40", 2));
	/* a file that can be read is a seq_file, which has no pwrite() */
	EXPECT_EQ(-1, pwrite(fd, "5", 1, 0));
	EXPECT_EQ(ESPIPE, errno);
	ASSERT_EQ(0, pcp_read_long("batch", &val));
	EXPECT_EQ(40, val);
	close(fd);

	/* a refused write leaves the position where it was */
	fd = open(PCP_DIR "/config", O_WRONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, write(fd, "high=1", 6));
	EXPECT_EQ(7, write(fd, "high=64", 7));
	EXPECT_EQ(-1, write(fd, "batch=8", 7));
	EXPECT_EQ(EINVAL, errno);
	close(fd);
	ASSERT_EQ(0, pcp_read_long("high", &val));
	EXPECT_EQ(64, val);
	ASSERT_EQ(0, pcp_read_long("batch", &val));
	EXPECT_EQ(40, val);

	fd = open(PCP_DIR "/drain", O_WRONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(1, write(fd, "1", 1));
	EXPECT_EQ(-1, write(fd, "1", 1));
	EXPECT_EQ(EINVAL, errno);
	close(fd);
}

/* Pages at once, all threads together, that the bench file refuses. */
static unsigned long long bench_max_pages(void)
{
	long kb = pcp_meminfo_kb("MemTotal");

	return kb > 0 ? kb / (sysconf(_SC_PAGESIZE) / 1024) / 8 : 0;
}

/*
 * The bench file reads each field of "TEST NR K FLAGS" as the other files
 * read a value: nothing wraps around and nothing trails. A refused
 * request leaves the last results as they were.
 */
TEST_F(debugfs, bench_requests_parse_strictly)
{
	static const char * const bad[] = {
		"seq 4294967297 1 0", "seq 4294967296 1 0", "seq 1 1 0 junk",
		"seq 1 1 0 0", "seq  1 1 0", " seq 1 1 0", "seq 1 1 0 ",
		"seq 1 1 0\n\n", "seq +1 1 0", "seq 1 +1 0", "seq 1 1 +0",
		"seq 0x10 1 0", "seq -1 1 0", "seq 1.0 1 0", "Seq 1 1 0",
		"seq\t1 1 0", "seq 1 1", "seq", "\n", "bogus 1 1 0",
		"seq 0 1 0", "seq 65537 1 0", "hotness 4 8 0", "seq 1 0 0",
		"seq 1 1 8", "seq 1 1 0\r\n", "seq 00000000001 1 0",
	};
	char before[4096], after[4096], req[64];
	unsigned long long max = bench_max_pages();
	size_t i;
	int err;

	ASSERT_EQ(0, pcp_write("bench", "counter 0000000100 1 0\n"));
	ASSERT_LT(0, pcp_read_file(PCP_DIR "/bench", before, sizeof(before)));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		err = pcp_write("bench", bad[i]);
		EXPECT_EQ(-EINVAL, err) {
			TH_LOG("bench <- \"%s\": %s", bad[i],
			       err ? strerror(-err) : "accepted");
		}
	}
	ASSERT_LT(0, pcp_read_file(PCP_DIR "/bench", after, sizeof(after)));
	EXPECT_STREQ(before, after);

	/* too big for the machine is another error, E2BIG */
	snprintf(req, sizeof(req), "concurrent 65536 1 0");
	if (65536ULL * pcp_nr_cpus() > max) {
		EXPECT_EQ(-E2BIG, pcp_write("bench", req));
	} else {
		TH_LOG("%s fits %llu pages: E2BIG not tried", req, max);
	}
	/* the limit's list holds no more than the test does: a page */
	EXPECT_EQ(0, pcp_write("bench", "pair 65536 1 4"));
}

FIXTURE(sysfs) {
};

FIXTURE_SETUP(sysfs)
{
	SETUP_FRESH_MODULE();
}

FIXTURE_TEARDOWN(sysfs)
{
	unload();
}

/*
 * sysfs hands a store no file offset: every write() is a whole value,
 * the second on an open file as much as the first.
 */
TEST_F(sysfs, every_write_is_a_value)
{
	long val;
	int fd;

	pcp_dir = PCP_SYSFS_DIR;
	fd = open(PCP_SYSFS_DIR "/batch", O_WRONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(1, write(fd, "3", 1));
	EXPECT_EQ(2, write(fd, "78", 2));
	EXPECT_EQ(-1, write(fd, "379", 3));
	EXPECT_EQ(EINVAL, errno);
	close(fd);
	ASSERT_EQ(0, pcp_read_long("batch", &val));
	EXPECT_EQ(78, val);
}

/* What one file says, read whole, through debugfs or sysfs. */
static ssize_t read_in(const char *dir, const char *file, char *buf,
		       size_t size)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return pcp_read_file(path, buf, size);
}

/* Both interfaces show the same state, whichever of them changed it. */
TEST_F(sysfs, same_text_as_debugfs)
{
	static const char * const shared[] = {
		"mode", "batch", "high", "cold_batch", "cold_high", "barn_full",
		"config", "generation", "limits", "stats", "pagesets",
	};
	static char in_debugfs[65536], in_sysfs[65536];
	size_t i, round;

	ASSERT_EQ(0, fill_caches(100));
	for (round = 0; round < 3; round++) {
		for (i = 0; i < ARRAY_SIZE(shared); i++) {
			ASSERT_LT(0, read_in(PCP_DIR, shared[i], in_debugfs,
					     sizeof(in_debugfs)));
			ASSERT_LT(0, read_in(PCP_SYSFS_DIR, shared[i], in_sysfs,
					     sizeof(in_sysfs)));
			EXPECT_STREQ(in_debugfs, in_sysfs) {
				TH_LOG("%s differs after round %zu", shared[i],
				       round);
			}
		}
		if (round == 0)
			ASSERT_EQ(0, pcp_write_file(PCP_SYSFS_DIR "/config",
						    "mode=split batch=8 high=64"));
		if (round == 1)
			ASSERT_EQ(0, pcp_write_file(PCP_DIR "/mode", "passthrough"));
	}
}

/*
 * pagesets, a binary attribute, reads the same in any piece size; its
 * length is not bound to a page.
 */
TEST_F(sysfs, pagesets_reads_in_pieces)
{
	static char whole[65536], pieces[65536];
	size_t len = 0;
	ssize_t n;
	int fd;

	ASSERT_EQ(0, fill_caches(100));
	ASSERT_EQ(0, pcp_write_file(PCP_SYSFS_DIR "/mode", "split"));
	ASSERT_LT(0, read_in(PCP_SYSFS_DIR, "pagesets", whole, sizeof(whole)));
	fd = open(PCP_SYSFS_DIR "/pagesets", O_RDONLY);
	ASSERT_LE(0, fd);
	while ((n = read(fd, pieces + len, 7)) > 0)
		len += n;
	close(fd);
	ASSERT_EQ(0, n);
	pieces[len] = '\0';
	EXPECT_STREQ(whole, pieces);
	EXPECT_EQ(0, strncmp(whole, "  cpu   count    high   batch cold_count", 40));
}

TEST_HARNESS_MAIN
