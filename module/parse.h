/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcpcache parse: the one grammar of every value written to pcpcache's
 * files, in debugfs and in sysfs alike.
 *
 * A write holds one value and may end in one newline. A value is one or
 * more words separated by single spaces. A number is one to
 * PCPCACHE_NUMBER_DIGITS decimal digits and nothing else: no sign, no
 * blank, no base prefix, no NUL.
 *
 * Plain C like policy.c: module/tests/ and pcpctl compile it unchanged.
 */
#ifndef _PCPCACHE_PARSE_H
#define _PCPCACHE_PARSE_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stddef.h>
#endif

/* As many digits as UINT_MAX has: longer is refused, leading zeros or not. */
#define PCPCACHE_NUMBER_DIGITS	10

/* One word of a write; not NUL-terminated. */
struct pcpcache_word {
	const char *s;
	size_t len;
};

int pcpcache_split(const char *buf, size_t len, struct pcpcache_word *words,
		   unsigned int max);
int pcpcache_parse_number(const char *s, size_t len, unsigned int *val);
int pcpcache_parse_value(const char *buf, size_t len, unsigned int *val);
int pcpcache_word_match(const struct pcpcache_word *word,
			const char * const *names, unsigned int nr);

#endif /* _PCPCACHE_PARSE_H */
