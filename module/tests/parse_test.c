// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of module/parse.c, the grammar of every value written to
 * pcpcache's files, built with ASan and UBSan.
 */
#include <errno.h>
#include <string.h>

#include "kselftest_harness.h"
#include "../parse.h"

/* pcpcache_parse_value() of a C string; the number, or -errno. */
static long long value(const char *s)
{
	unsigned int val = 12345;
	int err = pcpcache_parse_value(s, strlen(s), &val);

	return err ? err : (long long)val;
}

TEST(values_accepted)
{
	EXPECT_EQ(0, value("0"));
	EXPECT_EQ(5, value("5"));
	EXPECT_EQ(5, value("5\n"));
	EXPECT_EQ(5, value("0000000005"));
	EXPECT_EQ(4294967295LL, value("4294967295"));
	EXPECT_EQ(4294967295LL, value("4294967295\n"));
}

/* The list of the issue that asked for one grammar, and its neighbours. */
TEST(values_refused)
{
	static const char * const bad[] = {
		"", "\n", "\n\n", "+5", "-5", "-0", "+", "-", " 5", "5 ",
		"\t5", "5\t", "5\r\n", "5\n\n", "\n5", "0x10", "0X10", "010x",
		"1e3", "1.5", "5 6", "4294967296", "9999999999",
		"00000000005", "99999999999999999999", "abc", "5abc",
		"\xd9\xa5",	/* an Arabic-Indic five: digits are ASCII only */
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(-EINVAL, value(bad[i])) {
			TH_LOG("accepted bad[%u]", i);
		}
	}
}

TEST(nul_is_refused_wherever_it_is)
{
	unsigned int val = 7;

	EXPECT_EQ(-EINVAL, pcpcache_parse_value("5\0", 2, &val));
	EXPECT_EQ(-EINVAL, pcpcache_parse_value("5\0\n", 3, &val));
	EXPECT_EQ(-EINVAL, pcpcache_parse_value("\0005", 2, &val));
	EXPECT_EQ(-EINVAL, pcpcache_parse_value("5\n\0", 3, &val));
	EXPECT_EQ(7U, val);
	/* only @len bytes count: what follows is not looked at */
	EXPECT_EQ(0, pcpcache_parse_value("5\0", 1, &val));
	EXPECT_EQ(5U, val);
}

TEST(refused_number_leaves_value)
{
	unsigned int val = 42;

	EXPECT_EQ(-EINVAL, pcpcache_parse_number("4294967296", 10, &val));
	EXPECT_EQ(-EINVAL, pcpcache_parse_number("", 0, &val));
	EXPECT_EQ(-EINVAL, pcpcache_parse_number(NULL, 0, &val));
	EXPECT_EQ(42U, val);
}

TEST(split_into_words)
{
	struct pcpcache_word w[4];
	const char *s = "seq 1000 1 0\n";

	ASSERT_EQ(4, pcpcache_split(s, strlen(s), w, 4));
	EXPECT_EQ(3U, w[0].len);
	EXPECT_EQ(0, memcmp(w[0].s, "seq", 3));
	EXPECT_EQ(4U, w[1].len);
	EXPECT_EQ(0, memcmp(w[1].s, "1000", 4));
	EXPECT_EQ(1U, w[3].len);
	EXPECT_EQ('0', w[3].s[0]);
	EXPECT_EQ(1, pcpcache_split("x", 1, w, 1));
}

TEST(split_refuses_stray_blanks_and_extra_words)
{
	static const char * const bad[] = {
		"", "\n", " ", "a  b", " a b", "a b ", "a b c d e",
		"a b \x0a",	/* a space, then the newline that is dropped */
	};
	struct pcpcache_word w[4];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(-EINVAL, pcpcache_split(bad[i], strlen(bad[i]), w, 4)) {
			TH_LOG("split bad[%u]", i);
		}
	}
	/*
	 * A tab, a NUL or a newline other than the last byte is part of a
	 * word, for the word's parser to refuse.
	 */
	EXPECT_EQ(2, pcpcache_split("a\tb c", 5, w, 4));
	EXPECT_EQ(2, pcpcache_split("a b\n\n", 5, w, 4));
	EXPECT_EQ(2U, w[1].len);
	EXPECT_EQ(2, pcpcache_split("a\0 b", 4, w, 4));
}

TEST_HARNESS_MAIN
