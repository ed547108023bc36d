// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of module/policy.c, built with ASan and UBSan.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kselftest_harness.h"
#include "../policy.h"

static int parse(const char *s)
{
	return pcpcache_mode_parse(s, strlen(s));
}

TEST(parse_accepts_each_name)
{
	EXPECT_EQ(PCPCACHE_MODE_PASSTHROUGH, parse("passthrough"));
	EXPECT_EQ(PCPCACHE_MODE_SINGLE, parse("single"));
	EXPECT_EQ(PCPCACHE_MODE_SPLIT, parse("split"));
	EXPECT_EQ(PCPCACHE_MODE_REMOTE, parse("remote"));
	EXPECT_EQ(PCPCACHE_MODE_BLOCKS, parse("blocks"));
	EXPECT_EQ(PCPCACHE_MODE_BARN, parse("barn"));
}

TEST(parse_ignores_one_trailing_newline)
{
	EXPECT_EQ(PCPCACHE_MODE_SPLIT, parse("split\n"));
	EXPECT_EQ(-EINVAL, parse("split\n\n"));
}

TEST(parse_rejects_everything_else)
{
	static const char * const bad[] = {
		"", "\n", "s", "singl", "singlex", "Single", " single",
		"single ", "single\nsplit", "passthrough single", "split\r\n",
		"bar", "barns", "Barn", "barn\n\n", "barn_full",
	};
	size_t i;

	/* braces: the harness's log block would bind outside the loop */
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(-EINVAL, parse(bad[i])) {
			TH_LOG("accepted bad[%zu]", i);
		}
	}
}

TEST(parse_uses_only_len_bytes)
{
	/* debugfs hands over a buffer that need not be NUL-terminated */
	EXPECT_EQ(PCPCACHE_MODE_SINGLE, pcpcache_mode_parse("singleXYZ", 6));
	EXPECT_EQ(-EINVAL, pcpcache_mode_parse("single", 5));
	EXPECT_EQ(-EINVAL, pcpcache_mode_parse(NULL, 0));
}

TEST(format_brackets_current_mode)
{
	char buf[64];

	EXPECT_EQ(46, pcpcache_mode_format(PCPCACHE_MODE_PASSTHROUGH, buf, sizeof(buf)));
	EXPECT_STREQ("[passthrough] single split remote blocks barn\n", buf);
	pcpcache_mode_format(PCPCACHE_MODE_SINGLE, buf, sizeof(buf));
	EXPECT_STREQ("passthrough [single] split remote blocks barn\n", buf);
	pcpcache_mode_format(PCPCACHE_MODE_SPLIT, buf, sizeof(buf));
	EXPECT_STREQ("passthrough single [split] remote blocks barn\n", buf);
	pcpcache_mode_format(PCPCACHE_MODE_REMOTE, buf, sizeof(buf));
	EXPECT_STREQ("passthrough single split [remote] blocks barn\n", buf);
	pcpcache_mode_format(PCPCACHE_MODE_BLOCKS, buf, sizeof(buf));
	EXPECT_STREQ("passthrough single split remote [blocks] barn\n", buf);
	EXPECT_EQ(46, pcpcache_mode_format(PCPCACHE_MODE_BARN, buf, sizeof(buf)));
	EXPECT_STREQ("passthrough single split remote blocks [barn]\n", buf);
}

TEST(format_round_trips_through_parse)
{
	char buf[64], name[32];
	int mode;

	for (mode = 0; mode < PCPCACHE_NR_MODES; mode++) {
		char *open, *close;

		pcpcache_mode_format(mode, buf, sizeof(buf));
		open = strchr(buf, '[');
		close = strchr(buf, ']');
		ASSERT_NE(NULL, open);
		ASSERT_NE(NULL, close);
		memcpy(name, open + 1, close - open - 1);
		name[close - open - 1] = '\0';
		EXPECT_EQ(mode, parse(name));
		EXPECT_STREQ(pcpcache_mode_name(mode), name);
	}
}

TEST(format_never_overflows)
{
	char buf[64];
	size_t full = strlen("passthrough [single] split remote blocks barn\n");
	size_t size;

	/* every size short of the whole line plus its NUL is refused */
	for (size = 0; size <= full; size++) {
		memset(buf, 'x', sizeof(buf));
		EXPECT_EQ(0, pcpcache_mode_format(PCPCACHE_MODE_SINGLE, buf, size));
		if (size)
			EXPECT_EQ('\0', buf[0]);
		EXPECT_EQ('x', buf[size]);
	}
	EXPECT_EQ(full, pcpcache_mode_format(PCPCACHE_MODE_SINGLE, buf, full + 1));
}

TEST(name_of_unknown_mode_is_null)
{
	EXPECT_EQ(NULL, pcpcache_mode_name(PCPCACHE_NR_MODES));
	EXPECT_EQ(NULL, pcpcache_mode_name((enum pcpcache_mode)-1));
}

/*
 * The fields in order: mode, batch, high, cold_batch, cold_high, high_min,
 * high_max, barn_full, high_auto; the defaults' barn_full 4.
 */
static const struct pcpcache_config defaults = {
	1, 63, 378, 31, 126, 378, 1134, 4
};

/* "key=value ..." settings: all of them apply, or parsing fails. */
TEST(config_parse)
{
	static const struct {
		const char *in;
		int err;
		struct pcpcache_config want;
	} cases[] = {
		{ "batch=8", 0, { 1, 8, 378, 31, 126, 378, 1134, 4 } },
		{ "batch=8 high=64\n", 0, { 1, 8, 64, 31, 126, 378, 1134, 4 } },
		{ "mode=split cold_batch=1 cold_high=2", 0,
		  { 2, 63, 378, 1, 2, 378, 1134, 4 } },
		{ "high=4294967295", 0,
		  { 1, 63, 4294967295U, 31, 126, 378, 1134, 4 } },
		{ "", -EINVAL }, { "\n", -EINVAL }, { "batch", -EINVAL },
		{ "batch=", -EINVAL }, { "batch=-1", -EINVAL },
		{ "batch=1x", -EINVAL }, { "batch=4294967296", -EINVAL },
		{ "batch=1  high=2", -EINVAL }, { " batch=1", -EINVAL },
		{ "batch=1 ", -EINVAL }, { "batch=1 batch=2", -EINVAL },
		{ "mode=bogus", -EINVAL }, { "mode=", -EINVAL },
		{ "mode=single mode=split", -EINVAL }, { "bogus=1", -EINVAL },
		{ "Batch=1", -EINVAL }, { "batch=1\n\n", -EINVAL },
		/* numbers as every file reads them (parse.h) */
		{ "batch=0000000008", 0, { 1, 8, 378, 31, 126, 378, 1134, 4 } },
		{ "batch=00000000008", -EINVAL }, { "batch=+8", -EINVAL },
		{ "batch=0x10", -EINVAL }, { "batch=8\t", -EINVAL },
		{ "batch=\t8", -EINVAL }, { "mode=split\n\n", -EINVAL },
		{ "mode=split\r\n", -EINVAL },
		{ "batch=1 mode=single high=2 cold_batch=1 cold_high=2 batch=3",
		  -EINVAL },
		/* high=auto, and its range */
		{ "high=auto", 0, { 1, 63, 378, 31, 126, 378, 1134, 4, true } },
		{ "high=auto high_min=100 high_max=200\n", 0,
		  { 1, 63, 378, 31, 126, 100, 200, 4, true } },
		{ "high=Auto", -EINVAL }, { "high=auto1", -EINVAL },
		{ "high= auto", -EINVAL }, { "high=auto high=5", -EINVAL },
		{ "high_min=-1", -EINVAL }, { "high_max=", -EINVAL },
		/* barn mode and its knobs; their bounds are the rules' */
		{ "mode=barn", 0, { PCPCACHE_MODE_BARN, 63, 378, 31, 126, 378, 1134, 4 } },
		{ "mode=barn barn_full=8\n", 0,
		  { PCPCACHE_MODE_BARN, 63, 378, 31, 126, 378, 1134, 8 } },
		{ "barn_full=0 batch=8", 0,
		  { 1, 8, 378, 31, 126, 378, 1134, 0 } },
		{ "barn_full=4294967295", 0,
		  { 1, 63, 378, 31, 126, 378, 1134, 4294967295U } },
		{ "barn_full=", -EINVAL }, { "barn_full=-1", -EINVAL },
		{ "barn_full=auto", -EINVAL }, { "barn_full=4294967296", -EINVAL },
		{ "barn_full=1 barn_full=2", -EINVAL }, { "Barn_full=1", -EINVAL },
		{ "barn=1", -EINVAL }, { "barn_ful=1", -EINVAL },
		{ "mode=Barn", -EINVAL }, { "mode=barn mode=barn", -EINVAL },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct pcpcache_config cfg = defaults;
		int err = pcpcache_config_parse(&cfg, cases[i].in,
						strlen(cases[i].in));

		EXPECT_EQ(cases[i].err, err) {
			TH_LOG("\"%s\"", cases[i].in);
		}
		if (!cases[i].err)
			EXPECT_TRUE(pcpcache_config_same(&cases[i].want, &cfg)) {
				TH_LOG("\"%s\"", cases[i].in);
			}
	}
}

/* pcpcache_config_same() compares every field, the barn's knobs too. */
TEST(config_same_sees_every_field)
{
	const struct pcpcache_config a = defaults;
	struct pcpcache_config b;
	int k;

	b = a;
	EXPECT_TRUE(pcpcache_config_same(&a, &b));
	for (k = 0; k < PCPCACHE_NR_KNOBS; k++) {
		b = a;
		(*pcpcache_knob(&b, k))++;
		EXPECT_FALSE(pcpcache_config_same(&a, &b)) {
			TH_LOG("knob %s", pcpcache_knob_name(k));
		}
	}
	b = a;
	b.mode = PCPCACHE_MODE_BARN;
	EXPECT_FALSE(pcpcache_config_same(&a, &b));
	b = a;
	b.high_auto = true;
	EXPECT_FALSE(pcpcache_config_same(&a, &b));
}

/* Which keys a configuration gave: the config file lists every one. */
TEST(config_parse_keys)
{
	/* every key but barn_full, then every key */
	const char *old =
		"mode=barn batch=1 high=2 cold_batch=1 cold_high=2 high_min=2 high_max=3";
	struct pcpcache_config cfg = defaults, before;
	unsigned int seen;
	char all[128];

	snprintf(all, sizeof(all), "%s barn_full=5", old);
	EXPECT_EQ(0, pcpcache_config_parse_keys(&cfg, all, strlen(all), &seen));
	EXPECT_EQ(PCPCACHE_ALL_KEYS, seen);
	EXPECT_EQ(PCPCACHE_MODE_BARN, cfg.mode);
	EXPECT_EQ(5U, cfg.barn_full);
	EXPECT_EQ(0, pcpcache_config_parse_keys(&cfg, "batch=8 mode=split", 18, &seen));
	EXPECT_EQ(1U << PCPCACHE_KNOB_BATCH | 1U << PCPCACHE_NR_KNOBS, seen);
	EXPECT_EQ(0, pcpcache_config_parse_keys(&cfg, "barn_full=1", 11, &seen));
	EXPECT_EQ(1U << PCPCACHE_KNOB_BARN_FULL, seen);
	/* barn_empty, a knob no more, is an unknown key: nothing changes */
	before = cfg;
	EXPECT_EQ(-EINVAL, pcpcache_config_parse_keys(&cfg, "barn_empty=1", 12, &seen));
	EXPECT_TRUE(pcpcache_config_same(&before, &cfg));
	EXPECT_EQ(-EINVAL, pcpcache_config_parse_keys(&cfg, "batch=8 batch=9", 15, &seen));
	/* the line the config file writes, without barn_full, lacks keys */
	EXPECT_EQ(0, pcpcache_config_parse_keys(&cfg, old, strlen(old), &seen));
	EXPECT_NE(PCPCACHE_ALL_KEYS, seen);
}

/* A write may carry bytes after a NUL; they are part of it, and refused. */
TEST(config_parse_refuses_a_nul)
{
	struct pcpcache_config cfg = defaults;

	EXPECT_EQ(-EINVAL, pcpcache_config_parse(&cfg, "batch=8\0", 8));
	EXPECT_EQ(-EINVAL, pcpcache_config_parse(&cfg, "batch=8\0\n", 9));
	EXPECT_EQ(-EINVAL, pcpcache_config_parse(&cfg, "mode=split\0", 11));
	EXPECT_EQ(0, pcpcache_config_parse(&cfg, "batch=8\0", 7));
	EXPECT_EQ(8U, cfg.batch);
}

TEST_HARNESS_MAIN
