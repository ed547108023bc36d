// SPDX-License-Identifier: GPL-2.0
/*
 * pcpcache control: what each of pcpcache's control and status files shows
 * and what a write to it does, whichever filesystem the file is in
 * (debugfs.c, sysfs.c), so that every file reads one grammar (parse.h) and
 * obeys one set of rules (policy.h).
 *
 * A store is handed one whole write, with its length; it applies all of it
 * or, returning an error, nothing.
 */
#include <linux/cpumask.h>
#include <linux/kernel.h>
#include <linux/mm.h>

#include "barn.h"
#include "blocks.h"
#include "owner.h"
#include "pcpcache.h"

static size_t mode_show(const struct pcpcache_ctl *ctl, char *buf,
			size_t size)
{
	struct pcpcache_config cfg;

	pcpcache_get_config(&cfg);
	return pcpcache_mode_format(cfg.mode, buf, size);
}

static int mode_store(const struct pcpcache_ctl *ctl, const char *buf,
		      size_t len)
{
	int mode = pcpcache_mode_parse(buf, len);

	return mode < 0 ? mode : pcpcache_set_mode(mode);
}

static size_t knob_show(const struct pcpcache_ctl *ctl, char *buf,
			size_t size)
{
	struct pcpcache_config cfg;

	pcpcache_get_config(&cfg);
	return scnprintf(buf, size, "%u\n", *pcpcache_knob(&cfg, ctl->knob));
}

static int knob_store(const struct pcpcache_ctl *ctl, const char *buf,
		      size_t len)
{
	unsigned int val;
	int err;

	err = pcpcache_parse_value(buf, len, &val);
	return err ? err : pcpcache_set_knob(ctl->knob, val);
}

/* high's value: "auto", or the number. */
static size_t high_format(const struct pcpcache_config *cfg, char *buf,
			  size_t size)
{
	if (cfg->high_auto)
		return scnprintf(buf, size, "%s", PCPCACHE_HIGH_AUTO);
	return scnprintf(buf, size, "%u", cfg->high);
}

static size_t high_show(const struct pcpcache_ctl *ctl, char *buf,
			size_t size)
{
	struct pcpcache_config cfg;
	size_t len;

	pcpcache_get_config(&cfg);
	len = high_format(&cfg, buf, size);
	return len + scnprintf(buf + len, size - len, "\n");
}

static int high_edit(struct pcpcache_config *cfg, void *arg)
{
	const struct pcpcache_word *word = arg;

	return pcpcache_parse_high(cfg, word->s, word->len);
}

/* A number fixes high; "auto" lets each CPU's move with its traffic. */
static int high_store(const struct pcpcache_ctl *ctl, const char *buf,
		      size_t len)
{
	struct pcpcache_word word;

	if (pcpcache_split(buf, len, &word, 1) < 0)
		return -EINVAL;
	return pcpcache_edit_config(high_edit, &word);
}

/* The whole configuration on one line, to read or to set at once. */
static size_t config_show(const struct pcpcache_ctl *ctl, char *buf,
			  size_t size)
{
	struct pcpcache_config cfg;
	size_t len;

	pcpcache_get_config(&cfg);
	len = scnprintf(buf, size, "mode=%s batch=%u high=",
			pcpcache_mode_name(cfg.mode), cfg.batch);
	len += high_format(&cfg, buf + len, size - len);
	return len + scnprintf(buf + len, size - len,
			       " cold_batch=%u cold_high=%u high_min=%u high_max=%u barn_full=%u\n",
			       cfg.cold_batch, cfg.cold_high, cfg.high_min,
			       cfg.high_max, cfg.barn_full);
}

struct config_text {
	const char *buf;
	size_t len;
};

/* Parse into the copy pcpcache_edit_config() hands over; all or nothing. */
static int config_edit(struct pcpcache_config *cfg, void *arg)
{
	struct config_text *text = arg;
	struct pcpcache_config parsed = *cfg;
	int err;

	err = pcpcache_config_parse(&parsed, text->buf, text->len);
	if (!err)
		*cfg = parsed;
	return err;
}

/*
 * "key=value ..." for any of mode and the knobs: the result is checked as
 * a whole and applied at once, or nothing changes. The settings not named
 * keep the values in force when the write is applied, whoever set them.
 */
static int config_store(const struct pcpcache_ctl *ctl, const char *buf,
			size_t len)
{
	struct config_text text = { .buf = buf, .len = len };

	return pcpcache_edit_config(config_edit, &text);
}

/*
 * Bumped by every write put in force: a writer that finds it unchanged
 * after a refused write knows nobody else wrote meanwhile.
 */
static size_t generation_show(const struct pcpcache_ctl *ctl, char *buf,
			      size_t size)
{
	struct pcpcache_config cfg;

	return scnprintf(buf, size, "%lu\n", pcpcache_get_config(&cfg));
}

/* What pcpcache_config_check() needs, so that a tool can check first. */
static size_t limits_show(const struct pcpcache_ctl *ctl, char *buf,
			  size_t size)
{
	return scnprintf(buf, size, "max_batch=%u max_high_sum=%lu\n",
			 PCPCACHE_MAX_BATCH, pcpcache_limit());
}

static size_t stats_show(const struct pcpcache_ctl *ctl, char *buf,
			 size_t size)
{
	unsigned long sum[PCPCACHE_NR_STATS];
	struct pcpcache_books books;

	/* the counters first, as the books were always read */
	pcpcache_stats_sum(sum);
	books.cached = pcpcache_cached_pages(NUMA_NO_NODE);
	books.transit = pcpcache_transit_pages(NUMA_NO_NODE);
	books.blocks = pcpcache_blocks_pages(NUMA_NO_NODE);
	books.barn = pcpcache_barn_pages(NUMA_NO_NODE);
	books.user_held = pcpcache_user_held();
	return pcpcache_stats_format(buf, size, sum, &books);
}

static size_t stats_percpu_show(const struct pcpcache_ctl *ctl, char *buf,
				size_t size)
{
	return pcpcache_stats_percpu_format(buf, size);
}

/*
 * The longest line of pagesets: nine unsigned ints and the blocks of
 * each order, with their spaces.
 */
#define PAGESETS_LINE_MAX	(10 * 11 + PCPCACHE_NR_ORDERS * 11)

static size_t pagesets_size(void)
{
	return (num_possible_cpus() + 1) * PAGESETS_LINE_MAX;
}

/*
 * Like the pagesets of /proc/zoneinfo: one line per possible CPU, then the
 * blocks of each order it caches, on both lists; in remote and blocks
 * modes, the pages in transit to it; in blocks mode, those at home in its
 * blocks; in barn mode, count, high and batch are the main magazine's,
 * then the pages in its spare and in its node's barn.
 */
static size_t pagesets_show(const struct pcpcache_ctl *ctl, char *buf,
			    size_t size)
{
	struct pcpcache_list lists[PCPCACHE_NR_LISTS];
	const struct pcpcache_list *hot = &lists[PCPCACHE_LIST_HOT];
	const struct pcpcache_list *cold = &lists[PCPCACHE_LIST_COLD];
	struct pcpcache_config cfg;
	unsigned int order;
	size_t len;
	bool split, remote, blocks, barn;
	int cpu;

	pcpcache_get_config(&cfg);
	split = cfg.mode == PCPCACHE_MODE_SPLIT;
	remote = mag_routes_frees(cfg.mode);
	blocks = cfg.mode == PCPCACHE_MODE_BLOCKS;
	barn = cfg.mode == PCPCACHE_MODE_BARN;
	len = scnprintf(buf, size, "%5s %7s %7s %7s", "cpu", "count", "high",
			"batch");
	if (split)
		len += scnprintf(buf + len, size - len, " %10s %10s %10s",
				 "cold_count", "cold_high", "cold_batch");
	for (order = 0; order < PCPCACHE_NR_ORDERS; order++)
		len += scnprintf(buf + len, size - len, " %5s%u", "order", order);
	if (remote)
		len += scnprintf(buf + len, size - len, " %10s", "transit");
	if (blocks)
		len += scnprintf(buf + len, size - len, " %10s", "blocks");
	if (barn)
		len += scnprintf(buf + len, size - len, " %10s %10s", "spare",
				 "barn");
	len += scnprintf(buf + len, size - len, "\n");

	for_each_possible_cpu(cpu) {
		pcpcache_cpu_lists(cpu, lists);
		len += scnprintf(buf + len, size - len, "%5d %7u %7u %7u", cpu,
				 hot->count, hot->high, hot->batch);
		if (split)
			len += scnprintf(buf + len, size - len,
					 " %10u %10u %10u", cold->count,
					 cold->high, cold->batch);
		for (order = 0; order < PCPCACHE_NR_ORDERS; order++)
			len += scnprintf(buf + len, size - len, " %6u",
					 hot->nr[order] + cold->nr[order]);
		if (remote)
			len += scnprintf(buf + len, size - len, " %10u",
					 pcpcache_cpu_transit(cpu));
		if (blocks)
			len += scnprintf(buf + len, size - len, " %10u",
					 pcpcache_cpu_blocks(cpu));
		if (barn)
			len += scnprintf(buf + len, size - len, " %10u %10lu",
					 cold->count,
					 pcpcache_barn_pages(cpu_to_mem(cpu)));
		len += scnprintf(buf + len, size - len, "\n");
	}
	return len;
}

/* The locking design chosen at load (lock.h). */
static size_t lock_show(const struct pcpcache_ctl *ctl, char *buf,
			size_t size)
{
	return scnprintf(buf, size, "%s\n", pcpcache_lock_name());
}

/* A write of one number from @min to @max into @val, or -EINVAL. */
static int store_number(const char *buf, size_t len, unsigned int min,
			unsigned int max, unsigned int *val)
{
	int err = pcpcache_parse_value(buf, len, val);

	if (err)
		return err;
	return *val < min || *val > max ? -EINVAL : 0;
}

/* Writing 1 drains; any other number is refused. */
static int drain_store(const struct pcpcache_ctl *ctl, const char *buf,
		       size_t len)
{
	unsigned int val;
	int err;

	err = store_number(buf, len, 1, 1, &val);
	if (!err)
		pcpcache_drain_all();
	return err;
}

/* "1": the barns' trim, now (for tests; in any mode) */
static int barn_trim_store(const struct pcpcache_ctl *ctl, const char *buf,
			   size_t len)
{
	unsigned int val;
	int err;

	err = store_number(buf, len, 1, 1, &val);
	if (!err)
		pcpcache_barns_trim();
	return err;
}

static size_t barn_trim_ms_show(const struct pcpcache_ctl *ctl, char *buf,
				size_t size)
{
	return scnprintf(buf, size, "%u\n", pcpcache_barn_trim_interval());
}

/* Milliseconds between the timer's trims: 0 (no timer) to 600000. */
static int barn_trim_ms_store(const struct pcpcache_ctl *ctl,
			      const char *buf, size_t len)
{
	unsigned int val;
	int err;

	err = store_number(buf, len, 0, 600000, &val);
	if (!err)
		pcpcache_barn_set_trim_interval(val);
	return err;
}

static size_t fault_refill_show(const struct pcpcache_ctl *ctl, char *buf,
				size_t size)
{
	return scnprintf(buf, size, "%u\n", READ_ONCE(pcpcache_fault_refill));
}

/* A percentage: 0 (the default) to 100. */
static int fault_refill_store(const struct pcpcache_ctl *ctl, const char *buf,
			      size_t len)
{
	unsigned int val;
	int err;

	err = store_number(buf, len, 0, 100, &val);
	if (!err)
		WRITE_ONCE(pcpcache_fault_refill, val);
	return err;
}

static size_t delay_block_setup_show(const struct pcpcache_ctl *ctl,
				     char *buf, size_t size)
{
	return scnprintf(buf, size, "%u\n",
			 READ_ONCE(pcpcache_delay_block_setup));
}

/* Milliseconds: 0 (the default) to 2000. */
static int delay_block_setup_store(const struct pcpcache_ctl *ctl,
				   const char *buf, size_t len)
{
	unsigned int val;
	int err;

	err = store_number(buf, len, 0, 2000, &val);
	if (!err)
		WRITE_ONCE(pcpcache_delay_block_setup, val);
	return err;
}

#define PCPCACHE_CTL_KNOB(_name, _knob)					\
	{ .name = _name, .show = knob_show, .store = knob_store,	\
	  .knob = _knob }

const struct pcpcache_ctl pcpcache_ctls[] = {
	{ .name = "mode", .show = mode_show, .store = mode_store },
	PCPCACHE_CTL_KNOB("batch", PCPCACHE_KNOB_BATCH),
	{ .name = "high", .show = high_show, .store = high_store },
	PCPCACHE_CTL_KNOB("cold_batch", PCPCACHE_KNOB_COLD_BATCH),
	PCPCACHE_CTL_KNOB("cold_high", PCPCACHE_KNOB_COLD_HIGH),
	PCPCACHE_CTL_KNOB("high_min", PCPCACHE_KNOB_HIGH_MIN),
	PCPCACHE_CTL_KNOB("high_max", PCPCACHE_KNOB_HIGH_MAX),
	PCPCACHE_CTL_KNOB("barn_full", PCPCACHE_KNOB_BARN_FULL),
	{ .name = "config", .show = config_show, .store = config_store },
	{ .name = "generation", .show = generation_show },
	{ .name = "limits", .show = limits_show },
	{ .name = "stats", .show = stats_show },
	/*
	 * Not in sysfs: a binary attribute makes its text again for each
	 * read() of a page, and a table longer than one would be torn.
	 */
	{ .name = "stats_percpu", .show = stats_percpu_show,
	  .size = pcpcache_stats_percpu_size, .debugfs_only = true },
	{ .name = "pagesets", .show = pagesets_show, .size = pagesets_size },
	{ .name = "lock", .show = lock_show },
	{ .name = "drain", .store = drain_store },
	{ .name = "fault_refill", .show = fault_refill_show,
	  .store = fault_refill_store, .debugfs_only = true },
	{ .name = "delay_block_setup", .show = delay_block_setup_show,
	  .store = delay_block_setup_store, .debugfs_only = true },
	{ .name = "barn_trim", .store = barn_trim_store, .debugfs_only = true },
	{ .name = "barn_trim_ms", .show = barn_trim_ms_show,
	  .store = barn_trim_ms_store, .debugfs_only = true },
	{ .name = "bench", .show = pcpcache_bench_show,
	  .store = pcpcache_bench_store, .size = pcpcache_bench_size,
	  .debugfs_only = true },
};

const unsigned int pcpcache_nr_ctls = ARRAY_SIZE(pcpcache_ctls);
