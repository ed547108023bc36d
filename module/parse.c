// SPDX-License-Identifier: GPL-2.0
/*
 * pcpcache parse: split a write into words and read numbers, the same way
 * for every file. See parse.h for the grammar.
 *
 * Kept free of kernel-only calls, like policy.c.
 */
#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/string.h>
#else
#include <errno.h>
#include <string.h>
#endif

#include "parse.h"

/**
 * pcpcache_split - split a write into words
 * @buf: what was written, not necessarily NUL-terminated
 * @len: its length; one trailing newline (as echo writes) is dropped
 * @words: where to put the words
 * @max: the most words the caller takes
 *
 * Return: the number of words, at least 1, or -EINVAL for an empty write,
 * an empty word (a leading, trailing or second space) or more than @max
 * words.
 */
int pcpcache_split(const char *buf, size_t len, struct pcpcache_word *words,
		   unsigned int max)
{
	unsigned int nr = 0;
	size_t start = 0, end;

	if (len && buf[len - 1] == '\n')
		len--;
	for (;;) {
		for (end = start; end < len && buf[end] != ' '; end++)
			;
		if (end == start || nr == max)
			return -EINVAL;
		words[nr].s = buf + start;
		words[nr].len = end - start;
		nr++;
		if (end == len)
			return nr;
		start = end + 1;
	}
}

/**
 * pcpcache_parse_number - read one number
 * @s: its digits, not necessarily NUL-terminated
 * @len: how many; all must be digits
 * @val: where to put the number
 *
 * Return: 0, or -EINVAL when @s is not 1 to PCPCACHE_NUMBER_DIGITS decimal
 * digits or does not fit an unsigned int; then @val is unchanged.
 */
int pcpcache_parse_number(const char *s, size_t len, unsigned int *val)
{
	unsigned long long v = 0;
	size_t i;

	if (!len || len > PCPCACHE_NUMBER_DIGITS)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (s[i] - '0');
	}
	/* ten digits fit in 64 bits: the only overflow is past UINT_MAX */
	if (v > 0xffffffffULL)
		return -EINVAL;
	*val = v;
	return 0;
}

/**
 * pcpcache_parse_value - read a write that holds one number
 * @buf: what was written
 * @len: its length, one trailing newline included
 * @val: where to put the number
 *
 * Return: 0, or -EINVAL (then @val is unchanged).
 */
int pcpcache_parse_value(const char *buf, size_t len, unsigned int *val)
{
	struct pcpcache_word word;
	int nr = pcpcache_split(buf, len, &word, 1);

	if (nr < 0)
		return nr;
	return pcpcache_parse_number(word.s, word.len, val);
}

/**
 * pcpcache_word_match - which of @names a word is
 * @word: the word
 * @names: the names it may be
 * @nr: how many there are
 *
 * Return: the index of the name @word is exactly, or -EINVAL.
 */
int pcpcache_word_match(const struct pcpcache_word *word,
			const char * const *names, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		if (strlen(names[i]) == word->len &&
		    !memcmp(names[i], word->s, word->len))
			return i;
	return -EINVAL;
}
