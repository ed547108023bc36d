// SPDX-License-Identifier: GPL-2.0
/*
 * pcpcache: per-CPU page magazines backed by alloc_pages(), for studying and
 * tuning per-CPU page caching on a running kernel.
 *
 * This file holds the module's life cycle and its parameters.
 *
 * Lock order, outermost first: an indented lock may be taken while one
 * above it with less indent is held, never the other way round. Each
 * file says what its own locks guard.
 *
 *   bench_mutex (bench.c): one benchmark run, which may switch modes
 *   pcpcache_config_mutex (config.c): a configuration write
 *     pcpcache_barn_trim_mutex (barn.c): the trim's timer
 *     the kernel's cpu_hotplug_lock: read for a static key (owner.c);
 *     held by the hotplug core around the CPU callbacks (reclaim.c)
 *       pcpcache_hotplug_mutex (request.c): who may run, and what CPUs
 *       coming up are given; also under the kernel's mem_hotplug_lock,
 *       in the memory notifier
 *         a magazine's lock (lock.h): its CPU's on the fast path, with
 *         none of the above; another CPU's under the hotplug mutex
 *           a barn's spinlock (barn.c): by trylock only under a
 *           magazine's; never a magazine's under it
 *           a reserve's raw spinlock (blocks.h): innermost; the page
 *           audit takes it under a magazine's
 *
 * A user file's spinlock (user.c) and a bench thread's (bench.c) are
 * taken with none of these held, and take none.
 */
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/module.h>

#include "lock.h"
#include "pcpcache.h"

static int mode_param_set(const char *val, const struct kernel_param *kp)
{
	int mode = pcpcache_mode_parse(val, strlen(val));

	if (mode < 0)
		return mode;
	*(enum pcpcache_mode *)kp->arg = mode;
	return 0;
}

static int mode_param_get(char *buffer, const struct kernel_param *kp)
{
	/* param_get callbacks are handed a PAGE_SIZE buffer */
	return pcpcache_mode_format(*(enum pcpcache_mode *)kp->arg, buffer,
				    PAGE_SIZE);
}

static const struct kernel_param_ops mode_param_ops = {
	.set	= mode_param_set,
	.get	= mode_param_get,
};

/*
 * The parameters point into the configuration in force, so that reading
 * them in /sys/module/pcpcache/parameters/ shows what was last set.
 * They are read-only there: run-time changes go through the files of
 * control.c, which check them against each other. pcpcache_core_init() checks the values
 * given at load.
 */
module_param_cb(mode, &mode_param_ops, &pcpcache_config.mode, 0444);
MODULE_PARM_DESC(mode, "caching mode: passthrough, single (default), split, remote, blocks or barn");
module_param_named(batch, pcpcache_config.batch, uint, 0444);
MODULE_PARM_DESC(batch, "pages per refill and drain of the (hot) list (default 63)");
static int high_param_set(const char *val, const struct kernel_param *kp)
{
	struct pcpcache_config *cfg = kp->arg;
	struct pcpcache_config parsed = *cfg;

	if (pcpcache_parse_high(&parsed, val, strcspn(val, "\n")))
		return -EINVAL;
	*cfg = parsed;
	return 0;
}

static int high_param_get(char *buffer, const struct kernel_param *kp)
{
	const struct pcpcache_config *cfg = kp->arg;

	if (cfg->high_auto)
		return sysfs_emit(buffer, "%s\n", PCPCACHE_HIGH_AUTO);
	return sysfs_emit(buffer, "%u\n", cfg->high);
}

static const struct kernel_param_ops high_param_ops = {
	.set	= high_param_set,
	.get	= high_param_get,
};

module_param_cb(high, &high_param_ops, &pcpcache_config, 0444);
MODULE_PARM_DESC(high, "pages the (hot) list holds before it drains (default 378), or auto");
module_param_named(cold_batch, pcpcache_config.cold_batch, uint, 0444);
MODULE_PARM_DESC(cold_batch, "pages per refill and drain of the cold list, split mode (default 31)");
module_param_named(cold_high, pcpcache_config.cold_high, uint, 0444);
MODULE_PARM_DESC(cold_high, "pages the cold list holds before it drains, split mode (default 126)");
module_param_named(high_min, pcpcache_config.high_min, uint, 0444);
MODULE_PARM_DESC(high_min, "the least an auto-tuned high goes to (default 378)");
module_param_named(high_max, pcpcache_config.high_max, uint, 0444);
MODULE_PARM_DESC(high_max, "the most an auto-tuned high goes to (default 1134)");
module_param_named(barn_full, pcpcache_config.barn_full, uint, 0444);
MODULE_PARM_DESC(barn_full, "full magazines of each order a node's barn keeps, barn mode (default 4, at most 32)");

#ifdef PCPCACHE_TEST_HOOKS
/*
 * Built in only for the debug lane (PCPCACHE_TEST_HOOKS=y): fail the load
 * at step N of pcpcache_init(), to test that every step before it is
 * undone.
 */
static unsigned int fail_init_step;
module_param(fail_init_step, uint, 0400);
MODULE_PARM_DESC(fail_init_step, "tests only: fail init step N (1-5) with -ENOMEM");

static int pcpcache_init_step(unsigned int step)
{
	return step == fail_init_step ? -ENOMEM : 0;
}
#else
static int pcpcache_init_step(unsigned int step)
{
	return 0;
}
#endif

static int __init pcpcache_init(void)
{
	int err;

	/* before any magazine is used: the fast path branches on it */
	pcpcache_lock_init();
	pcpcache_deferred_init();
	err = pcpcache_init_step(1) ?: pcpcache_config_init();
	if (err)
		return err;
	err = pcpcache_init_step(2) ?: pcpcache_request_init(&pcpcache_config);
	if (err)
		goto config_only_exit;
	err = pcpcache_init_step(3) ?: pcpcache_reclaim_init();
	if (err)
		goto config_exit;
	/*
	 * What a user can open comes last: a failed init frees the module
	 * whatever files are open. sysfs's files are drained when removed
	 * (kernfs); /dev/pcpcache and debugfs's user file are not, so the
	 * device is the last step that can fail, and debugfs, which cannot,
	 * follows it. Nothing can be cached before then.
	 */
	err = pcpcache_init_step(4) ?: pcpcache_sysfs_init();
	if (err)
		goto reclaim_exit;
	err = pcpcache_init_step(5) ?: pcpcache_fault_init();
	if (err)
		goto sysfs_exit;
	pcpcache_debugfs_init();
	pr_info("loaded, mode %s, lock %s\n",
		pcpcache_mode_name(pcpcache_config.mode), pcpcache_lock_name());
	return 0;

sysfs_exit:
	pcpcache_sysfs_exit();
reclaim_exit:
	pcpcache_reclaim_exit();
	pcpcache_hotplug_exit();
	/* the online callbacks may have queued a check of the bound */
config_exit:
	pcpcache_config_exit();
	pcpcache_request_exit();
	return err;
	/* the barns and their trim, the tables of remote and blocks modes */
config_only_exit:
	pcpcache_config_exit();
	return err;
}

/*
 * Nobody holds a page any more (open files, mappings of /dev/pcpcache and
 * API users pin the module), so once the magazines are drained every page
 * taken must be back.
 */
static void __exit pcpcache_exit(void)
{
	unsigned long sum[PCPCACHE_NR_STATS];
	long missing;

	pcpcache_fault_exit();
	pcpcache_debugfs_exit();
	pcpcache_sysfs_exit();
	pcpcache_bench_exit();
	pcpcache_reclaim_exit();
	/* the _nolock() frees left to irq_work first, then the last drain */
	pcpcache_deferred_sync();
	/* with CPU hotplug still followed: a CPU that dies is emptied too */
	pcpcache_drain_all();
	pcpcache_hotplug_exit();
	pcpcache_config_exit();
	pcpcache_request_exit();

	pcpcache_stats_sum(sum);
	/*
	 * held is 0 unless the API was handed pages from alloc_page(), which
	 * count as freed to the buddy allocator but were never taken from it.
	 */
	missing = sum[PCPCACHE_BUDDY_ALLOC] - sum[PCPCACHE_BUDDY_FREE] -
		  (sum[PCPCACHE_ALLOC] - sum[PCPCACHE_FREE]);
	if (missing)
		pr_err("unloaded with %ld pages not given back (buddy_alloc %lu, buddy_free %lu)\n",
		       missing, sum[PCPCACHE_BUDDY_ALLOC],
		       sum[PCPCACHE_BUDDY_FREE]);
	else
		pr_info("unloaded; buddy_alloc %lu == buddy_free %lu\n",
			sum[PCPCACHE_BUDDY_ALLOC], sum[PCPCACHE_BUDDY_FREE]);
}

module_init(pcpcache_init);
module_exit(pcpcache_exit);

MODULE_DESCRIPTION("Per-CPU page magazines for studying per-CPU page caching");
MODULE_AUTHOR("The pcpcache developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(PCPCACHE_VERSION);
