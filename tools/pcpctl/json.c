// SPDX-License-Identifier: GPL-2.0
/*
 * A small JSON writer for pcpctl's --json output: commas where they
 * belong, strings escaped, numbers finite or null, one value per line.
 */
#include <math.h>
#include <stdio.h>

#include "pcpctl.h"

void json_open(struct json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->first[0] = true;
}

/* The separator, indentation and key before a value. */
static void json_key(struct json *j, const char *key)
{
	if (!j->first[j->depth])
		fputc(',', j->f);
	if (j->depth)
		fputc('\n', j->f);
	fprintf(j->f, "%*s", 2 * j->depth, "");
	j->first[j->depth] = false;
	if (key) {
		json_quote(j->f, key);
		fputs(": ", j->f);
	}
}

/*
 * The length of the well-formed UTF-8 sequence at @s (RFC 3629: no
 * overlong forms, no surrogates, nothing past U+10FFFF), or 0.
 */
static int utf8_len(const unsigned char *s)
{
	int len, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	for (i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
		return 0;
	return len;
}

/* @s as a JSON string; a byte that is not UTF-8 becomes U+FFFD. */
void json_quote(FILE *f, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	int len;

	fputc('"', f);
	while (*u) {
		if (*u == '"' || *u == '\\') {
			fprintf(f, "\\%c", *u++);
		} else if (*u < 0x20 || *u == 0x7f) {
			fprintf(f, "\\u%04x", *u++);
		} else if (*u < 0x80) {
			fputc(*u++, f);
		} else if ((len = utf8_len(u))) {
			fwrite(u, 1, len, f);
			u += len;
		} else {
			fputs("\\ufffd", f);
			u++;
		}
	}
	fputc('"', f);
}

/* Open an object ('{') or an array ('['), named @key inside an object. */
void json_begin(struct json *j, const char *key, char bracket)
{
	json_key(j, key);
	fputc(bracket, j->f);
	if (j->depth + 1 < JSON_MAX_DEPTH)
		j->depth++;
	j->first[j->depth] = true;
}

void json_end(struct json *j, char bracket)
{
	bool empty = j->first[j->depth];

	if (j->depth)
		j->depth--;
	if (!empty)
		fprintf(j->f, "\n%*s", 2 * j->depth, "");
	fputc(bracket, j->f);
	if (!j->depth)
		fputc('\n', j->f);
}

void json_str(struct json *j, const char *key, const char *val)
{
	json_key(j, key);
	json_quote(j->f, val);
}

/* NaN and the infinities, which JSON has not, are null. */
void json_num(struct json *j, const char *key, double val)
{
	json_key(j, key);
	if (isfinite(val))
		fprintf(j->f, "%.10g", val);
	else
		fputs("null", j->f);
}

void json_int(struct json *j, const char *key, long long val)
{
	json_key(j, key);
	fprintf(j->f, "%lld", val);
}

void json_uint(struct json *j, const char *key, unsigned long long val)
{
	json_key(j, key);
	fprintf(j->f, "%llu", val);
}

void json_bool(struct json *j, const char *key, bool val)
{
	json_key(j, key);
	fputs(val ? "true" : "false", j->f);
}
