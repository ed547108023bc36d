// SPDX-License-Identifier: GPL-2.0
/*
 * pcpctl's numeric options and arguments, read strictly: the whole word,
 * in range, or a one-line error that names the option and says what it
 * takes. Whole numbers follow the grammar of pcpcache's own files
 * (module/parse.c): decimal digits only, no sign, no blank, no 0x.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "pcpctl.h"

/**
 * parse_uint_arg - a whole number option
 * @what: the option, for the error ("--seconds")
 * @s: its argument
 * @min: the least it may be
 * @max: the most
 * @val: where to put it
 *
 * Return: 0, or -1 after printing why not.
 */
int parse_uint_arg(const char *what, const char *s, unsigned int min,
		   unsigned int max, unsigned int *val)
{
	unsigned int v;

	if (pcpcache_parse_number(s, strlen(s), &v) || v < min || v > max) {
		fprintf(stderr, "%s: %s takes a whole number from %u to %u, not '%s'\n",
			who, what, min, max, s);
		return -1;
	}
	*val = v;
	return 0;
}

/**
 * parse_seconds_arg - a time in seconds, with a fraction if need be
 * @what: the option or argument, for the error
 * @s: digits, then maybe a '.' and more digits ("2", "0.5")
 * @min: the least it may be
 * @max: the most
 * @val: where to put it
 *
 * No sign, exponent, "nan" or "inf", which strtod() would also take.
 *
 * Return: 0, or -1 after printing why not.
 */
int parse_seconds_arg(const char *what, const char *s, double min, double max,
		      double *val)
{
	static const char digits[] = "0123456789";
	size_t whole = strspn(s, digits), len = whole;
	double v;

	if (whole && s[len] == '.' && strchr(digits, s[len + 1]) && s[len + 1])
		len += 1 + strspn(s + len + 1, digits);
	v = whole && !s[len] ? strtod(s, NULL) : NAN;
	if (!(v >= min && v <= max)) {
		fprintf(stderr, "%s: %s takes seconds from %g to %g, like 2 or 0.5, not '%s'\n",
			who, what, min, max, s);
		return -1;
	}
	*val = v;
	return 0;
}

/* Add the number or range "N" or "N-M" of @item to @set; -1 if bad. */
static int add_range(const char *item, size_t len, unsigned int min,
		     unsigned int max, unsigned long long *set, size_t words)
{
	const char *dash = memchr(item, '-', len);
	unsigned int lo, hi;

	if (pcpcache_parse_number(item, dash ? (size_t)(dash - item) : len, &lo))
		return -1;
	hi = lo;
	if (dash && pcpcache_parse_number(dash + 1, len - (dash + 1 - item), &hi))
		return -1;
	if (lo < min || lo > hi || hi > max || hi / 64 >= words)
		return -1;
	for (; lo <= hi; lo++)
		set[lo / 64] |= 1ULL << (lo % 64);
	return 0;
}

/**
 * parse_list_arg - a list like "0-3,6", into a bitmap
 * @what: the option, for the error
 * @s: numbers, and with @ranges also "N-M", separated by commas
 * @min: the smallest number allowed
 * @max: the largest
 * @ranges: whether "N-M" is allowed
 * @set: bitmap of @words 64-bit words, cleared first
 * @words: its size
 *
 * Return: 0, or -1 after printing why not: an empty item, a range
 * without an end ("0-") or backwards ("3-1"), a number over @max.
 */
int parse_list_arg(const char *what, const char *s, unsigned int min,
		   unsigned int max, bool ranges, unsigned long long *set,
		   size_t words)
{
	const char *item = s;
	size_t len;

	memset(set, 0, words * sizeof(*set));
	for (;;) {
		len = strcspn(item, ",");
		if ((!ranges && memchr(item, '-', len)) ||
		    add_range(item, len, min, max, set, words))
			break;
		if (!item[len])
			return 0;
		item += len + 1;
	}
	fprintf(stderr, "%s: %s takes numbers from %u to %u%s, separated by commas, not '%s'\n",
		who, what, min, max, ranges ? " and ranges like 0-3" : "", s);
	return -1;
}

/*
 * getopt_long() with its own complaints off, so that every error is one
 * line in pcpctl's style: which argument, and where to read more. Options
 * may follow the operands ("watch 1 --per-cpu"), as pcpctl(8) says.
 */
int next_option(int argc, char **argv, const struct option *longopts)
{
	int opt;

	opterr = 0;
	opt = getopt_long(argc, argv, "h", longopts, NULL);
	/* optopt is a long option's value too: name those by their text */
	if (opt == '?' && optopt && optopt != '?' &&
	    strncmp(argv[optind - 1], "--", 2))
		/* a short one, maybe inside a group ("-xh"): name it alone */
		fprintf(stderr, "%s: bad option '-%c' (unknown, or its value is missing); see %s %s --help\n",
			who, optopt, prog, argv[0]);
	else if (opt == '?')
		fprintf(stderr, "%s: bad option '%s' (unknown, or its value is missing); see %s %s --help\n",
			who, argv[optind - 1], prog, argv[0]);
	return opt;
}

/* After the options: none may be left. Return: 0, or -1 after saying so. */
int no_operands(int argc, char **argv, int optind)
{
	if (optind >= argc)
		return 0;
	fprintf(stderr, "%s: unexpected argument '%s'\n", who,
		argv[optind]);
	return -1;
}
