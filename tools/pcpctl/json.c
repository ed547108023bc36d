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

/* @s as a JSON string. */
void json_quote(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
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

void json_bool(struct json *j, const char *key, bool val)
{
	json_key(j, key);
	fputs(val ? "true" : "false", j->f);
}
