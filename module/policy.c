// SPDX-License-Identifier: GPL-2.0
/*
 * pcpcache policy: mode names and how they are read and written, and the
 * rules every configuration must obey.
 *
 * Kept free of kernel-only calls; see policy.h.
 */
#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/string.h>
#else
#include <errno.h>
#include <string.h>
#endif

#include "parse.h"
#include "policy.h"

static const char * const pcpcache_mode_names[PCPCACHE_NR_MODES] = {
	[PCPCACHE_MODE_PASSTHROUGH]	= "passthrough",
	[PCPCACHE_MODE_SINGLE]		= "single",
	[PCPCACHE_MODE_SPLIT]		= "split",
	[PCPCACHE_MODE_REMOTE]		= "remote",
	[PCPCACHE_MODE_BLOCKS]		= "blocks",
	[PCPCACHE_MODE_BARN]		= "barn",
};

const char *pcpcache_mode_name(enum pcpcache_mode mode)
{
	if ((unsigned int)mode >= PCPCACHE_NR_MODES)
		return NULL;
	return pcpcache_mode_names[mode];
}

/**
 * pcpcache_mode_parse - turn a mode name into a mode
 * @buf: the name, not necessarily NUL-terminated
 * @len: its length; one trailing newline (as echo writes) is ignored
 *
 * Return: the mode, or -EINVAL when @buf is not exactly one mode's name.
 */
int pcpcache_mode_parse(const char *buf, size_t len)
{
	struct pcpcache_word word = { .s = buf, .len = len };

	if (len && buf[len - 1] == '\n')
		word.len--;
	return pcpcache_word_match(&word, pcpcache_mode_names,
				   PCPCACHE_NR_MODES);
}

/**
 * pcpcache_mode_format - list every mode, the current one in brackets
 * @cur: the current mode
 * @buf: where to write, NUL-terminated, ending in a newline
 * @size: the size of @buf
 *
 * Writes "passthrough [single] split\n", the form of
 * /sys/kernel/mm/transparent_hugepage/enabled.
 *
 * Return: the length written, or 0 when @buf is too small (then @buf is
 * left an empty string if @size allows).
 */
size_t pcpcache_mode_format(enum pcpcache_mode cur, char *buf, size_t size)
{
	size_t pos = 0;
	int mode;

	for (mode = 0; mode < PCPCACHE_NR_MODES; mode++) {
		const char *name = pcpcache_mode_names[mode];
		size_t need = strlen(name) + (mode == (int)cur ? 2 : 0) + 1;

		/* the last byte left over must hold the NUL */
		if (pos + need >= size)
			goto too_small;
		if (mode == (int)cur)
			buf[pos++] = '[';
		memcpy(buf + pos, name, strlen(name));
		pos += strlen(name);
		if (mode == (int)cur)
			buf[pos++] = ']';
		buf[pos++] = mode == PCPCACHE_NR_MODES - 1 ? '\n' : ' ';
	}
	buf[pos] = '\0';
	return pos;

too_small:
	if (size)
		buf[0] = '\0';
	return 0;
}

static const char * const pcpcache_knob_names[PCPCACHE_NR_KNOBS] = {
	[PCPCACHE_KNOB_BATCH]		= "batch",
	[PCPCACHE_KNOB_HIGH]		= "high",
	[PCPCACHE_KNOB_COLD_BATCH]	= "cold_batch",
	[PCPCACHE_KNOB_COLD_HIGH]	= "cold_high",
	[PCPCACHE_KNOB_HIGH_MIN]	= "high_min",
	[PCPCACHE_KNOB_HIGH_MAX]	= "high_max",
	[PCPCACHE_KNOB_BARN_FULL]	= "barn_full",
};

const char *pcpcache_knob_name(enum pcpcache_knob knob)
{
	if ((unsigned int)knob >= PCPCACHE_NR_KNOBS)
		return NULL;
	return pcpcache_knob_names[knob];
}

/**
 * pcpcache_knob - where a knob lives in a configuration
 * @cfg: the configuration
 * @knob: the knob
 *
 * Return: a pointer to its value in @cfg, or NULL for an unknown knob.
 */
unsigned int *pcpcache_knob(struct pcpcache_config *cfg,
			    enum pcpcache_knob knob)
{
	switch (knob) {
	case PCPCACHE_KNOB_BATCH:
		return &cfg->batch;
	case PCPCACHE_KNOB_HIGH:
		return &cfg->high;
	case PCPCACHE_KNOB_COLD_BATCH:
		return &cfg->cold_batch;
	case PCPCACHE_KNOB_COLD_HIGH:
		return &cfg->cold_high;
	case PCPCACHE_KNOB_HIGH_MIN:
		return &cfg->high_min;
	case PCPCACHE_KNOB_HIGH_MAX:
		return &cfg->high_max;
	case PCPCACHE_KNOB_BARN_FULL:
		return &cfg->barn_full;
	default:
		return NULL;
	}
}

/**
 * pcpcache_max_per_cpu - the most pages one CPU may be allowed to cache
 * @ram_pages: the machine's RAM in pages
 * @nr_cpus: CPUs that can hold pages: the online ones
 *
 * Return: the bound on high + cold_high that keeps the cache of all CPUs
 * together within 1/PCPCACHE_RAM_SHARE of RAM.
 */
unsigned long pcpcache_max_per_cpu(unsigned long ram_pages,
				   unsigned int nr_cpus)
{
	if (!nr_cpus)
		return 0;
	return ram_pages / PCPCACHE_RAM_SHARE / nr_cpus;
}

/* The least and the most a CPU's high may be: high, or auto's range. */
static unsigned int low_high(const struct pcpcache_config *cfg)
{
	return cfg->high_auto ? cfg->high_min : cfg->high;
}

static unsigned int top_high(const struct pcpcache_config *cfg)
{
	return cfg->high_auto ? cfg->high_max : cfg->high;
}

/*
 * barn mode: a CPU's main and spare and @full magazines of a barn. A
 * magazine holds batch >> order blocks of each of the four orders, at
 * least one (mag_batch()): at most batch pages of each, and never more
 * than an order-3 block's 8.
 */
static unsigned long long barn_pages(const struct pcpcache_config *cfg,
				     unsigned int full)
{
	unsigned long long magazine = cfg->batch > 8 ? cfg->batch : 8;

	return (2ULL + full) * magazine * PCPCACHE_NR_BARN_ORDERS;
}

/**
 * pcpcache_config_check - check a configuration against the rules
 * @cfg: the configuration
 * @max_per_cpu: the bound from pcpcache_max_per_cpu()
 *
 * The rules: a known mode, 1 <= batch <= high, 1 <= cold_batch <= cold_high,
 * both batches at most PCPCACHE_MAX_BATCH, high + cold_high <=
 * @max_per_cpu, and 1 <= high_min <= high_max. With high_auto, high_min
 * takes high's place in the first rule and high_max in the sum. They hold
 * in every mode, so a mode switch never needs a knob to change; so does
 * barn_full <= PCPCACHE_BARN_MAX. barn mode alone adds one: a CPU's main
 * and spare and its share of a barn, (2 + barn_full) magazines of at
 * most max(batch, 8) pages of each of 4 orders, within @max_per_cpu (a
 * barn has CPUs of its own node only, so there are no more barns in use
 * than CPUs; a node's barn goes back with its last CPU,
 * pcpcache_cpu_dead(), so none holds pages for CPUs gone).
 *
 * Return: NULL when @cfg obeys them, else the name of the first setting
 * found at fault (for a sum too large, the larger of the two highs).
 */
const char *pcpcache_config_check(const struct pcpcache_config *cfg,
				  unsigned long max_per_cpu)
{
	const char *high = cfg->high_auto ? "high_max" : "high";

	if ((unsigned int)cfg->mode >= PCPCACHE_NR_MODES)
		return "mode";
	if (cfg->high_min < 1 || cfg->high_min > cfg->high_max)
		return "high_min";
	if (cfg->batch < 1 || cfg->batch > low_high(cfg) ||
	    cfg->batch > PCPCACHE_MAX_BATCH)
		return "batch";
	if (cfg->cold_batch < 1 || cfg->cold_batch > cfg->cold_high ||
	    cfg->cold_batch > PCPCACHE_MAX_BATCH)
		return "cold_batch";
	/* in 64 bits, where two unsigned ints cannot overflow */
	if ((unsigned long long)top_high(cfg) + cfg->cold_high > max_per_cpu)
		return top_high(cfg) >= cfg->cold_high ? high : "cold_high";
	if (cfg->barn_full > PCPCACHE_BARN_MAX)
		return "barn_full";
	if (cfg->mode == PCPCACHE_MODE_BARN &&
	    barn_pages(cfg, cfg->barn_full) > max_per_cpu)
		return "barn_full";
	return NULL;
}

/* pcpcache_config_fit()'s cut of the highs; whether it cut them. */
static bool fit_highs(struct pcpcache_config *cfg, unsigned long long total,
		      unsigned long max_per_cpu)
{
	unsigned long long high;

	if (total <= max_per_cpu || max_per_cpu < 2)
		return false;
	high = top_high(cfg) * (unsigned long long)max_per_cpu / total;
	if (high < 1)
		high = 1;
	if (high > max_per_cpu - 1)
		high = max_per_cpu - 1;
	if (cfg->high_auto)
		cfg->high_max = high;
	else
		cfg->high = high;
	if (cfg->high_min > cfg->high_max)
		cfg->high_min = cfg->high_max;
	cfg->cold_high = max_per_cpu - high;
	if (cfg->batch > low_high(cfg))
		cfg->batch = low_high(cfg);
	if (cfg->cold_batch > cfg->cold_high)
		cfg->cold_batch = cfg->cold_high;
	return true;
}

/**
 * pcpcache_config_fit - cut a configuration's highs down to a bound
 * @cfg: the configuration, changed in place
 * @max_per_cpu: the bound on high + cold_high
 *
 * high (high_max under high_auto) and cold_high keep their proportion,
 * each at least 1; a high_min above the new high_max, and a batch above
 * its new high (or high_min), are cut to it.
 *
 * In barn mode, barn_full is then cut until the barn fits, and batch
 * too if even none does.
 *
 * Return: true when @cfg was changed and now fits; false when it fitted
 * already, or cannot fit (a bound below 2; in barn mode, below the 64
 * pages of two magazines of 8 pages of each order).
 */
bool pcpcache_config_fit(struct pcpcache_config *cfg,
			 unsigned long max_per_cpu)
{
	unsigned long long total = (unsigned long long)top_high(cfg) + cfg->cold_high;
	bool cut = fit_highs(cfg, total, max_per_cpu);

	if (cfg->mode != PCPCACHE_MODE_BARN ||
	    barn_pages(cfg, cfg->barn_full) <= max_per_cpu)
		return cut;
	while (cfg->barn_full && barn_pages(cfg, cfg->barn_full) > max_per_cpu)
		cfg->barn_full--;
	while (cfg->batch > 1 && barn_pages(cfg, 0) > max_per_cpu)
		cfg->batch--;
	/* two magazines of 8 pages of each order, 64, at the least */
	return barn_pages(cfg, 0) <= max_per_cpu;
}

/**
 * pcpcache_parse_high - apply a value written for high to a configuration
 * @cfg: the configuration to change
 * @s: "auto", or a number (parse.h), not NUL-terminated
 * @len: its length
 *
 * "auto" turns auto-tuning on; a number sets high and turns it off.
 *
 * Return: 0, or -EINVAL with @cfg unchanged.
 */
int pcpcache_parse_high(struct pcpcache_config *cfg, const char *s, size_t len)
{
	unsigned int high;

	if (len == strlen(PCPCACHE_HIGH_AUTO) &&
	    !memcmp(s, PCPCACHE_HIGH_AUTO, len)) {
		cfg->high_auto = true;
		return 0;
	}
	if (pcpcache_parse_number(s, len, &high))
		return -EINVAL;
	cfg->high = high;
	cfg->high_auto = false;
	return 0;
}

/* Apply one "key=value" word to @cfg; which key (knob, or NR_KNOBS for mode). */
static int parse_setting(struct pcpcache_config *cfg,
			 const struct pcpcache_word *word)
{
	const char *eq = memchr(word->s, '=', word->len);
	struct pcpcache_word key, val;
	int k, mode;

	if (!eq)
		return -EINVAL;
	key.s = word->s;
	key.len = eq - word->s;
	val.s = eq + 1;
	val.len = word->len - key.len - 1;
	if (key.len == 4 && !memcmp(key.s, "mode", 4)) {
		mode = pcpcache_word_match(&val, pcpcache_mode_names,
					   PCPCACHE_NR_MODES);
		if (mode < 0)
			return mode;
		cfg->mode = mode;
		return PCPCACHE_NR_KNOBS;
	}
	k = pcpcache_word_match(&key, pcpcache_knob_names, PCPCACHE_NR_KNOBS);
	if (k < 0)
		return -EINVAL;
	if (k == PCPCACHE_KNOB_HIGH)
		return pcpcache_parse_high(cfg, val.s, val.len) ? -EINVAL : k;
	if (pcpcache_parse_number(val.s, val.len, pcpcache_knob(cfg, k)))
		return -EINVAL;
	return k;
}

/**
 * pcpcache_config_parse - apply "key=value ..." to a configuration
 * @cfg: the configuration to change
 * @buf: settings separated by single spaces, one trailing newline allowed;
 *	 keys mode, batch, high (a number or "auto"), cold_batch, cold_high,
 *	 high_min, high_max, each at most once, numbers as parse.h says
 * @len: the length of @buf
 *
 * Nothing is checked against the rules here: see pcpcache_config_check().
 *
 * Return: 0, or -EINVAL for an unknown or repeated key, a bad value, stray
 * spaces or no setting at all; @cfg may then be partly changed, so parse
 * into a copy.
 */
int pcpcache_config_parse(struct pcpcache_config *cfg, const char *buf,
			  size_t len)
{
	unsigned int seen;

	return pcpcache_config_parse_keys(cfg, buf, len, &seen);
}

/**
 * pcpcache_config_parse_keys - pcpcache_config_parse(), saying which keys
 * it was given
 * @cfg: the configuration to change
 * @buf: as pcpcache_config_parse() takes it
 * @len: the length of @buf
 * @seen: set to bit PCPCACHE_KNOB_* of each knob given, bit
 *	  PCPCACHE_NR_KNOBS for mode; PCPCACHE_ALL_KEYS when all were
 *
 * For a reader of the config file, which lists every key: one that lacks a
 * key would leave that field as it was.
 *
 * Return: as pcpcache_config_parse().
 */
int pcpcache_config_parse_keys(struct pcpcache_config *cfg, const char *buf,
			       size_t len, unsigned int *seen)
{
	/* more words than keys would repeat one: pcpcache_split() refuses */
	struct pcpcache_word words[PCPCACHE_NR_KNOBS + 1];
	int nr, i, key;

	*seen = 0;
	nr = pcpcache_split(buf, len, words, PCPCACHE_NR_KNOBS + 1);
	if (nr < 0)
		return nr;
	for (i = 0; i < nr; i++) {
		key = parse_setting(cfg, &words[i]);
		if (key < 0 || *seen & (1U << key))
			return -EINVAL;
		*seen |= 1U << key;
	}
	return 0;
}
