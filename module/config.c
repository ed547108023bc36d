// SPDX-License-Identifier: GPL-2.0
/*
 * pcpcache configuration: the mode and knobs in force, how a write is
 * checked and put in force on every CPU (request.c), and the bound on what
 * each CPU may cache.
 *
 * The bound follows the CPUs that can hold pages, the online ones, as the
 * kernel's own pcp high does since 5.14: all of them together never hold
 * more than 1/PCPCACHE_RAM_SHARE of RAM. A write that breaks it is
 * refused; when CPUs come online and the configuration in force no longer
 * fits, its highs are cut to fit, with a line in the kernel log.
 *
 * pcpcache_config_mutex serialises writers. It is held while every CPU
 * carries the write out, and by nothing reclaim or CPU hotplug waits on.
 * Readers never take it: under lock=local a write waits for every CPU, one
 * a SCHED_FIFO task holds too, and a world-readable file must not put
 * its reader in D state behind that. They copy the configuration under
 * pcpcache_config_seq instead, which a writer bumps around the copy only.
 */
#include <linux/cpumask.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/seqlock.h>
#include <linux/workqueue.h>

#include "barn.h"
#include "blocks.h"
#include "owner.h"
#include "pcpcache.h"
#include "pcpcache_trace.h"

/* The module parameters point into it; written under the mutex only. */
struct pcpcache_config pcpcache_config = {
	.mode		= PCPCACHE_MODE_SINGLE,
	.batch		= PCPCACHE_DEFAULT_BATCH,
	.high		= PCPCACHE_DEFAULT_HIGH,
	.cold_batch	= PCPCACHE_DEFAULT_COLD_BATCH,
	.cold_high	= PCPCACHE_DEFAULT_COLD_HIGH,
	.high_min	= PCPCACHE_DEFAULT_HIGH_MIN,
	.high_max	= PCPCACHE_DEFAULT_HIGH_MAX,
	.barn_full	= PCPCACHE_DEFAULT_BARN_FULL,
};

static const struct pcpcache_config pcpcache_defaults = {
	.batch		= PCPCACHE_DEFAULT_BATCH,
	.high		= PCPCACHE_DEFAULT_HIGH,
	.cold_batch	= PCPCACHE_DEFAULT_COLD_BATCH,
	.cold_high	= PCPCACHE_DEFAULT_COLD_HIGH,
	.high_min	= PCPCACHE_DEFAULT_HIGH_MIN,
	.high_max	= PCPCACHE_DEFAULT_HIGH_MAX,
	.barn_full	= PCPCACHE_DEFAULT_BARN_FULL,
};

static DEFINE_MUTEX(pcpcache_config_mutex);
/* Bumped by every write put in force, under the mutex: tells writers apart. */
static unsigned long pcpcache_config_generation;
/* Written under the mutex, around the copy of a write put in force. */
static seqcount_mutex_t pcpcache_config_seq =
	SEQCNT_MUTEX_ZERO(pcpcache_config_seq, &pcpcache_config_mutex);

/**
 * pcpcache_limit - the most pages one CPU may be allowed to cache now
 *
 * Return: the bound on high + cold_high of pcpcache_config_check().
 */
unsigned long pcpcache_limit(void)
{
	return pcpcache_max_per_cpu(totalram_pages(), num_online_cpus());
}

/*
 * The barns' limits while the CPUs switch from @old to @cfg: the lower of
 * the two, in force before the first CPU switches. A CPU gives a barn
 * magazines of its own batch, the old one's or the new one's, and only in
 * barn mode: no more than min(barn_full) of them can then break neither
 * configuration's bound (pcpcache_config_check() holds it for barn mode,
 * and a CPU of another mode gives the barns nothing), whatever the old
 * barn_full was where no barn was in use. Written after every CPU, as
 * before, the CPUs that switched first filled the barns under the old
 * limit with magazines of the new batch until the last one had switched.
 */
static void pcpcache_barns_lower(const struct pcpcache_config *old,
				 const struct pcpcache_config *cfg)
{
	struct pcpcache_config lower = *old;

	lockdep_assert_held(&pcpcache_config_mutex);

	if (cfg->barn_full >= old->barn_full)
		return;
	lower.barn_full = cfg->barn_full;
	pcpcache_barns_reconfigure(&lower);
}

/*
 * Check @cfg and put it in force, or change nothing: the lowered barn
 * limits first, then every CPU, then the barns (raised limits among it).
 */
static int pcpcache_commit(const struct pcpcache_config *cfg)
{
	struct pcpcache_config prev;
	u64 start;

	lockdep_assert_held(&pcpcache_config_mutex);

	if (pcpcache_config_check(cfg, pcpcache_limit()))
		return -EINVAL;
	if (mag_routes_frees(cfg->mode) && pcpcache_owners_ready())
		return -ENOMEM;
	if (cfg->mode == PCPCACHE_MODE_BLOCKS && pcpcache_blocks_ready())
		return -ENOMEM;
	prev = pcpcache_config;
	write_seqcount_begin(&pcpcache_config_seq);
	pcpcache_config = *cfg;
	pcpcache_config_generation++;
	write_seqcount_end(&pcpcache_config_seq);
	start = ktime_get_ns();
	pcpcache_barns_lower(&prev, cfg);
	pcpcache_request_all(cfg, false);
	pcpcache_barns_reconfigure(cfg);
	if (cfg->mode != prev.mode) {
		pcpcache_count(PCPCACHE_MODE_SWITCHES, 1);
		trace_pcpcache_mode_switch(prev.mode, cfg->mode,
					   ktime_get_ns() - start);
	}
	return 0;
}

/**
 * pcpcache_edit_config - change the configuration in force, all at once
 * @edit: called with a copy of the configuration in force to change; it
 *	  returns 0, or an error that leaves everything as it was
 * @arg: passed to @edit
 *
 * The copy, the change and the commit happen under one lock, so that two
 * writers changing different settings never undo each other.
 *
 * Return: 0, the error of @edit, or -EINVAL when the result breaks a rule
 * of pcpcache_config_check(); then nothing changed.
 */
int pcpcache_edit_config(int (*edit)(struct pcpcache_config *cfg, void *arg),
			 void *arg)
{
	struct pcpcache_config cfg;
	int err;

	mutex_lock(&pcpcache_config_mutex);
	cfg = pcpcache_config;
	err = edit(&cfg, arg);
	if (!err)
		err = pcpcache_commit(&cfg);
	mutex_unlock(&pcpcache_config_mutex);
	return err;
}

static int pcpcache_edit_mode(struct pcpcache_config *cfg, void *arg)
{
	cfg->mode = *(enum pcpcache_mode *)arg;
	return 0;
}

/**
 * pcpcache_set_mode - switch every CPU to another mode
 * @mode: the new mode
 *
 * Return: 0, -EINVAL for an unknown mode, or -ENOMEM when remote mode
 * cannot have its owner table.
 */
int pcpcache_set_mode(enum pcpcache_mode mode)
{
	return pcpcache_edit_config(pcpcache_edit_mode, &mode);
}

struct pcpcache_knob_value {
	enum pcpcache_knob knob;
	unsigned int value;
};

static int pcpcache_edit_knob(struct pcpcache_config *cfg, void *arg)
{
	struct pcpcache_knob_value *kv = arg;
	unsigned int *knob = pcpcache_knob(cfg, kv->knob);

	if (!knob)
		return -EINVAL;
	*knob = kv->value;
	/* a number for high fixes it, however it is written */
	if (kv->knob == PCPCACHE_KNOB_HIGH)
		cfg->high_auto = false;
	return 0;
}

/**
 * pcpcache_set_knob - change one of the numeric knobs
 * @knob: which one
 * @value: its new value
 *
 * Return: 0, or -EINVAL when the result would break a rule of
 * pcpcache_config_check(); then nothing changed.
 */
int pcpcache_set_knob(enum pcpcache_knob knob, unsigned int value)
{
	struct pcpcache_knob_value kv = { .knob = knob, .value = value };

	return pcpcache_edit_config(pcpcache_edit_knob, &kv);
}

/**
 * pcpcache_set_config - put a whole configuration in force at once
 * @cfg: mode and every knob
 *
 * Return: 0, or -EINVAL when @cfg breaks a rule, -ENOMEM when remote mode
 * cannot have its owner table; then nothing changed.
 */
int pcpcache_set_config(const struct pcpcache_config *cfg)
{
	int err;

	mutex_lock(&pcpcache_config_mutex);
	err = pcpcache_commit(cfg);
	mutex_unlock(&pcpcache_config_mutex);
	return err;
}

/**
 * pcpcache_get_config - the configuration in force
 * @cfg: where to copy it
 *
 * A consistent copy, taken without the configuration mutex: a reader
 * does not wait for a write that waits for every CPU.
 *
 * Return: its generation, which every write put in force bumps: a writer
 * that finds it unchanged after a refused write knows nobody else wrote.
 */
unsigned long pcpcache_get_config(struct pcpcache_config *cfg)
{
	unsigned long generation;
	unsigned int seq;

	do {
		seq = read_seqcount_begin(&pcpcache_config_seq);
		*cfg = pcpcache_config;
		generation = pcpcache_config_generation;
	} while (read_seqcount_retry(&pcpcache_config_seq, seq));
	return generation;
}

/**
 * pcpcache_drain_all - give every CPU's cached pages back, and the barns'
 */
void pcpcache_drain_all(void)
{
	mutex_lock(&pcpcache_config_mutex);
	pcpcache_request_all(&pcpcache_config, true);
	pcpcache_barns_give_back(NUMA_NO_NODE, ULONG_MAX, PCPCACHE_DRAIN_REQUEST);
	mutex_unlock(&pcpcache_config_mutex);
}

/* The configuration in force, cut to the bound if CPUs came online. */
static void pcpcache_fit_to_cpus(struct work_struct *work)
{
	struct pcpcache_config cfg;
	unsigned long limit;

	mutex_lock(&pcpcache_config_mutex);
	cfg = pcpcache_config;
	limit = pcpcache_limit();
	if (pcpcache_config_fit(&cfg, limit) && !pcpcache_commit(&cfg))
		pr_info("%u CPUs online: high %u, cold_high %u, batch %u, cold_batch %u, high_min %u, high_max %u, barn_full %u fit %lu pages per CPU\n",
			num_online_cpus(), cfg.high, cfg.cold_high, cfg.batch,
			cfg.cold_batch, cfg.high_min, cfg.high_max,
			cfg.barn_full, limit);
	mutex_unlock(&pcpcache_config_mutex);
}

static DECLARE_WORK(pcpcache_fit_work, pcpcache_fit_to_cpus);

/**
 * pcpcache_config_cpus_changed - a CPU came online: the bound shrank
 *
 * Called from CPU hotplug, which must not wait for the CPUs to carry a new
 * configuration out: the check runs from a work item.
 */
void pcpcache_config_cpus_changed(void)
{
	schedule_work(&pcpcache_fit_work);
}

/* Whether the knobs are the defaults: none was given at load. */
static bool pcpcache_knobs_default(const struct pcpcache_config *cfg)
{
	return cfg->batch == pcpcache_defaults.batch &&
	       cfg->high == pcpcache_defaults.high &&
	       cfg->cold_batch == pcpcache_defaults.cold_batch &&
	       cfg->cold_high == pcpcache_defaults.cold_high &&
	       cfg->high_min == pcpcache_defaults.high_min &&
	       cfg->high_max == pcpcache_defaults.high_max &&
	       cfg->barn_full == pcpcache_defaults.barn_full;
}

/**
 * pcpcache_config_init - check the load-time configuration
 *
 * Default knobs that do not fit this machine are cut to fit, with a line
 * in the kernel log; knobs given at load that break a rule fail the load.
 *
 * Return: 0, or -EINVAL with the offending module parameter named in the
 * kernel log.
 */
int pcpcache_config_init(void)
{
	struct pcpcache_config *cfg = &pcpcache_config;
	unsigned long limit = pcpcache_limit();
	const char *bad;

	bad = pcpcache_config_check(cfg, limit);
	if (bad && pcpcache_knobs_default(cfg) && pcpcache_config_fit(cfg, limit)) {
		pr_info("the default high and cold_high do not fit %lu pages per CPU (a quarter of RAM over %u online CPUs): high %u, cold_high %u, batch %u, cold_batch %u, high_min %u, high_max %u\n",
			limit, num_online_cpus(), cfg->high, cfg->cold_high,
			cfg->batch, cfg->cold_batch, cfg->high_min,
			cfg->high_max);
		bad = pcpcache_config_check(cfg, limit);
	}
	if (bad) {
		pr_err("invalid parameter %s: batch=%u high=%u%s cold_batch=%u cold_high=%u high_min=%u high_max=%u barn_full=%u; need 1 <= batch <= high, 1 <= cold_batch <= cold_high, batches <= %u, high + cold_high <= %lu, 1 <= high_min <= high_max (under auto, high_min and high_max take high's place), barn_full <= %u, and in barn mode (2 + barn_full) * max(batch, 8) * %u <= %lu\n",
		       bad, cfg->batch, cfg->high,
		       cfg->high_auto ? " (auto)" : "", cfg->cold_batch,
		       cfg->cold_high, cfg->high_min, cfg->high_max,
		       cfg->barn_full,
		       PCPCACHE_MAX_BATCH, limit, PCPCACHE_BARN_MAX,
		       PCPCACHE_NR_BARN_ORDERS, limit);
		return -EINVAL;
	}
	if (mag_routes_frees(cfg->mode) && pcpcache_owners_ready()) {
		pr_err("no memory for remote mode's owner table\n");
		return -ENOMEM;
	}
	if (cfg->mode == PCPCACHE_MODE_BLOCKS && pcpcache_blocks_ready()) {
		pr_err("no memory for blocks mode's block table\n");
		return -ENOMEM;
	}
	if (pcpcache_barns_init(cfg)) {
		pr_err("no memory for the barns\n");
		pcpcache_blocks_exit();
		pcpcache_owners_exit();
		return -ENOMEM;
	}
	return 0;
}

/**
 * pcpcache_config_exit - let no check of the bound run any more
 */
void pcpcache_config_exit(void)
{
	cancel_work_sync(&pcpcache_fit_work);
	pcpcache_barns_exit();
	pcpcache_blocks_exit();
	pcpcache_owners_exit();
}
