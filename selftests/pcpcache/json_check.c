// SPDX-License-Identifier: GPL-2.0
/*
 * json_check: exit 0 when stdin is one JSON value (RFC 8259) and nothing
 * else but whitespace, else print where it stops being one and exit 1.
 * The guest of the selftests has no python or jq; pcpctl.sh pipes
 * pcpctl's --json output through this.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INPUT	(16 << 20)
#define MAX_DEPTH	64

static const char *in, *pos, *why;

static bool fail(const char *what)
{
	if (!why)
		why = what;
	return false;
}

static void skip_blanks(void)
{
	while (*pos == ' ' || *pos == '\t' || *pos == '\n' || *pos == '\r')
		pos++;
}

static bool digits(void)
{
	const char *start = pos;

	while (*pos >= '0' && *pos <= '9')
		pos++;
	return pos > start;
}

/* -? (0 | [1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)? */
static bool number(void)
{
	if (*pos == '-')
		pos++;
	if (*pos == '0')
		pos++;
	else if (!(*pos >= '1' && *pos <= '9') || !digits())
		return fail("a number");
	if (*pos == '.') {
		pos++;
		if (!digits())
			return fail("digits after '.'");
	}
	if (*pos == 'e' || *pos == 'E') {
		pos++;
		if (*pos == '+' || *pos == '-')
			pos++;
		if (!digits())
			return fail("digits of an exponent");
	}
	return true;
}

static bool string(void)
{
	int i;

	if (*pos++ != '"')
		return fail("a string");
	for (;;) {
		unsigned char c = *pos++;

		if (c == '"')
			return true;
		if (c < 0x20)
			return fail("no control character or end inside a string");
		if (c != '\\')
			continue;
		c = *pos++;
		if (c == 'u') {
			for (i = 0; i < 4; i++, pos++)
				if (!strchr("0123456789abcdefABCDEF", *pos) || !*pos)
					return fail("four hex digits after \\u");
		} else if (!c || !strchr("\"\\/bfnrt", c)) {
			return fail("a known escape");
		}
	}
}

static bool value(int depth);

/* Members or elements up to @close, each @key-ed in an object. */
static bool items(char close, bool key, int depth)
{
	pos++;
	skip_blanks();
	if (*pos == close) {
		pos++;
		return true;
	}
	for (;;) {
		skip_blanks();
		if (key) {
			if (!string())
				return false;
			skip_blanks();
			if (*pos++ != ':')
				return fail("':' after a key");
		}
		if (!value(depth + 1))
			return false;
		skip_blanks();
		if (*pos == close) {
			pos++;
			return true;
		}
		if (*pos++ != ',')
			return fail(key ? "',' or '}'" : "',' or ']'");
	}
}

static bool literal(const char *word)
{
	size_t len = strlen(word);

	if (strncmp(pos, word, len))
		return fail("a value");
	pos += len;
	return true;
}

static bool value(int depth)
{
	if (depth > MAX_DEPTH)
		return fail("less nesting");
	skip_blanks();
	switch (*pos) {
	case '{':
		return items('}', true, depth);
	case '[':
		return items(']', false, depth);
	case '"':
		return string();
	case 't':
		return literal("true");
	case 'f':
		return literal("false");
	case 'n':
		return literal("null");
	default:
		return number();
	}
}

int main(void)
{
	static char buf[MAX_INPUT + 1];
	size_t len = fread(buf, 1, MAX_INPUT, stdin);

	buf[len] = '\0';
	in = pos = buf;
	if (strlen(buf) != len) {
		fprintf(stderr, "json_check: a NUL at byte %zu\n", strlen(buf));
		return 1;
	}
	if (value(0)) {
		skip_blanks();
		if (!*pos)
			return 0;
		fail("the end after one value");
	}
	fprintf(stderr, "json_check: not JSON at byte %td: expected %s, found \"%.20s\"\n",
		pos - in, why, pos);
	return 1;
}
