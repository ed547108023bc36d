// SPDX-License-Identifier: GPL-2.0
/*
 * pcpctl set: any of mode and the knobs at once, through the config file,
 * which applies all of them or none.
 *
 * Before writing anything pcpctl checks what it was given with the
 * module's own grammar and rules (module/parse.c and policy.c, compiled
 * in) against the configuration in force and the limits pcpcache
 * publishes, so that a refusal names the setting at fault without ever
 * touching the live configuration. The module has the last word: a write
 * it refuses all the same (someone changed the configuration meanwhile)
 * is explained the same way, against what is in force by then.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "policy.h"
#include "pcpctl.h"

/* mode, then the knobs in policy.h's order: bits of "given" */
#define GIVEN_MODE	(1U << PCPCACHE_NR_KNOBS)

static const char *set_help =
	"usage: pcpctl set KNOB=VALUE...\n\n"
	"Set any of mode, batch, high (a number, or auto), cold_batch,\n"
	"cold_high, high_min, high_max and barn_full at once, each at most\n"
	"once. The result is checked as a whole (1 <= batch <= high,\n"
	"1 <= cold_batch <= cold_high, batches <= 4096, 1 <= high_min <= high_max,\n"
	"high + cold_high at most max_high_sum of pcpcache's limits file, with\n"
	"high=auto high_min and high_max in high's place; barn_full <= 32, and\n"
	"in barn mode (2 + barn_full) * max(batch, 8) * 4 at most\n"
	"max_high_sum); if it breaks a rule nothing is written and the error\n"
	"names the settings at fault.\n";


/* Which setting one "KEY=VALUE" argument names: a bit of GIVEN_*, or 0. */
static unsigned int setting_bit(const char *arg)
{
	size_t klen = strcspn(arg, "=");
	int k;

	if (klen == 4 && !strncmp(arg, "mode", 4))
		return GIVEN_MODE;
	for (k = 0; k < PCPCACHE_NR_KNOBS; k++)
		if (strlen(pcpcache_knob_name(k)) == klen &&
		    !strncmp(arg, pcpcache_knob_name(k), klen))
			return 1U << k;
	return 0;
}

/*
 * Check every argument on its own and add it to @cfg and @given.
 * Return: 0, or 2 (a usage error) after naming the first bad one.
 */
static int apply_args(int argc, char **argv, struct pcpcache_config *cfg,
		      unsigned int *given)
{
	unsigned int bit;
	size_t len;
	int i;

	for (i = 1; i < argc; i++) {
		len = strlen(argv[i]);
		bit = setting_bit(argv[i]);
		/* one word each: a space would smuggle in a second setting */
		if (!bit || strpbrk(argv[i], " \t\n\r") ||
		    pcpcache_config_parse(cfg, argv[i], len)) {
			fprintf(stderr, "%s: '%.*s%s' is not KEY=VALUE: KEY mode, batch, high, cold_batch, cold_high, high_min, high_max or barn_full, VALUE a mode, auto (for high) or 1 to 10 digits; nothing changed\n",
				who, QUOTE_MAX, argv[i],
				len > QUOTE_MAX ? "..." : "");
			return 2;
		}
		if (*given & bit) {
			fprintf(stderr, "%s: %.*s is given twice; nothing changed\n",
				who, (int)strcspn(argv[i], "="), argv[i]);
			return 2;
		}
		*given |= bit;
	}
	return 0;
}

/* The configuration in force, and the bound on high + cold_high. */
static int read_state(struct pcpcache_config *cfg, unsigned long *max_sum)
{
	char buf[256], path[256];
	unsigned int seen, key;
	ssize_t n;

	memset(cfg, 0, sizeof(*cfg));
	pcp_path(path, sizeof(path), "config");
	n = pcp_read_file(path, buf, sizeof(buf));
	if (n < 0 || pcpcache_config_parse_keys(cfg, buf, n, &seen)) {
		fprintf(stderr, "%s: cannot read %s\n", who, path);
		return 1;
	}
	/* every rule is checked against every knob: all must be there */
	if (seen != PCPCACHE_ALL_KEYS) {
		for (key = 0; seen & (1U << key); key++)
			;
		fprintf(stderr, "%s: %s has no %s\n", who, path,
			key == PCPCACHE_NR_KNOBS ? "mode" : pcpcache_knob_name(key));
		return 1;
	}
	/* a pcpcache without limits leaves that rule to the module */
	*max_sum = pcp_max_high_sum() ?: ULONG_MAX;
	return 0;
}

static const char *origin(unsigned int given, unsigned int bit)
{
	return given & bit ? "given" : "in force";
}

/* Say which rule @cfg breaks, pcpcache_config_check()'s @bad, and why. */
static void explain(const char *bad, const struct pcpcache_config *cfg,
		    unsigned int given, unsigned long max_sum)
{
	enum pcpcache_knob b = PCPCACHE_KNOB_BATCH, h = PCPCACHE_KNOB_HIGH;
	struct pcpcache_config c = *cfg;

	if (!strcmp(bad, "barn_full") && c.barn_full > PCPCACHE_BARN_MAX) {
		b = PCPCACHE_KNOB_BARN_FULL;
		fprintf(stderr, "%s: %s=%u (%s) breaks %s <= %u; nothing changed\n",
			who, bad, *pcpcache_knob(&c, b), origin(given, 1U << b),
			bad, PCPCACHE_BARN_MAX);
		return;
	}
	if (!strcmp(bad, "barn_full")) {
		/* policy.c's barn rule: a CPU's main, spare and share of a barn */
		fprintf(stderr, "%s: in barn mode (%s), (2 + barn_full=%u (%s)) * batch=%u (%s) * %d = %llu is over %lu, the most this machine allows (max_high_sum in limits); nothing changed\n",
			who, origin(given, GIVEN_MODE), c.barn_full,
			origin(given, 1U << PCPCACHE_KNOB_BARN_FULL), c.batch,
			origin(given, 1U << PCPCACHE_KNOB_BATCH),
			PCPCACHE_NR_BARN_ORDERS,
			(2ULL + c.barn_full) * c.batch * PCPCACHE_NR_BARN_ORDERS,
			max_sum);
		return;
	}
	if (!strcmp(bad, "high_min")) {
		fprintf(stderr, "%s: high_min=%u (%s) with high_max=%u (%s) breaks 1 <= high_min <= high_max; nothing changed\n",
			who, c.high_min, origin(given, 1U << PCPCACHE_KNOB_HIGH_MIN),
			c.high_max, origin(given, 1U << PCPCACHE_KNOB_HIGH_MAX));
		return;
	}
	if (!strcmp(bad, "cold_batch")) {
		b = PCPCACHE_KNOB_COLD_BATCH;
		h = PCPCACHE_KNOB_COLD_HIGH;
	} else if (c.high_auto) {
		/* auto-tuned, high never goes below high_min */
		h = PCPCACHE_KNOB_HIGH_MIN;
	}
	if (!strcmp(bad, "batch") || !strcmp(bad, "cold_batch")) {
		fprintf(stderr, "%s: %s=%u (%s) with %s=%u (%s) breaks 1 <= %s <= %s, %s <= %u; nothing changed\n",
			who, pcpcache_knob_name(b), *pcpcache_knob(&c, b),
			origin(given, 1U << b), pcpcache_knob_name(h),
			*pcpcache_knob(&c, h), origin(given, 1U << h),
			pcpcache_knob_name(b), pcpcache_knob_name(h),
			pcpcache_knob_name(b), PCPCACHE_MAX_BATCH);
		return;
	}
	h = c.high_auto ? PCPCACHE_KNOB_HIGH_MAX : PCPCACHE_KNOB_HIGH;
	fprintf(stderr, "%s: %s=%u (%s) + cold_high=%u (%s) is over %lu, the most this machine allows (max_high_sum in limits); nothing changed\n",
		who, pcpcache_knob_name(h), *pcpcache_knob(&c, h),
		origin(given, 1U << h), c.cold_high,
		origin(given, 1U << PCPCACHE_KNOB_COLD_HIGH), max_sum);
}

/* The arguments as one line for the config file; they are short words. */
static int join(int argc, char **argv, char *line, size_t size)
{
	size_t pos = 0;
	int i, n;

	line[0] = '\0';
	for (i = 1; i < argc; i++) {
		n = snprintf(line + pos, size - pos, "%s%s", i > 1 ? " " : "",
			     argv[i]);
		if (n < 0 || (size_t)n >= size - pos)
			return -1;
		pos += n;
	}
	return 0;
}

/* Check with the module's rules, then write all at once. */
int cmd_set(int argc, char **argv)
{
	struct pcpcache_config cfg;
	unsigned int given = 0;
	unsigned long max_sum;
	const char *bad;
	char line[256];
	int err;

	if (wants_help(argc, argv, set_help))
		return 0;
	if (argc < 2) {
		fprintf(stderr, "%s: usage: %s set KNOB=VALUE...\n", who, prog);
		return 2;
	}
	/* the words alone first, on a scratch configuration: a usage error */
	memset(&cfg, 0, sizeof(cfg));
	err = apply_args(argc, argv, &cfg, &given);
	if (err)
		return err;
	given = 0;
	if (need_writable() || read_state(&cfg, &max_sum) ||
	    apply_args(argc, argv, &cfg, &given))
		return 1;
	bad = pcpcache_config_check(&cfg, max_sum);
	if (bad) {
		explain(bad, &cfg, given, max_sum);
		return 1;
	}
	/* at most one of each setting, each checked: it fits */
	if (join(argc, argv, line, sizeof(line)))
		return 1;
	err = pcp_write("config", line);
	if (!err)
		return 0;
	if (err != -EINVAL) {
		fprintf(stderr, "%s: %s\n", who, strerror(-err));
		return 1;
	}
	/* it was fine a moment ago: someone else wrote in between */
	fprintf(stderr, "%s: set %s: refused by pcpcache; the configuration changed meanwhile\n",
		who, line);
	given = 0;
	if (!read_state(&cfg, &max_sum) && !apply_args(argc, argv, &cfg, &given)) {
		bad = pcpcache_config_check(&cfg, max_sum);
		if (bad)
			explain(bad, &cfg, given, max_sum);
	}
	return 1;
}
