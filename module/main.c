// SPDX-License-Identifier: GPL-2.0
/*
 * pcpcache: per-CPU page magazines backed by alloc_pages(), for studying and
 * tuning per-CPU page caching on a running kernel.
 *
 * This file holds the module's life cycle and its parameters.
 */
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/module.h>

#include "pcpcache.h"

/* 2.6.24 made one list with hot pages at the head the kernel's default. */
enum pcpcache_mode pcpcache_mode = PCPCACHE_MODE_SINGLE;

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

module_param_cb(mode, &mode_param_ops, &pcpcache_mode, 0444);
MODULE_PARM_DESC(mode, "caching mode at load: passthrough, single (default) or split");

static int __init pcpcache_init(void)
{
	pcpcache_debugfs_init();
	pr_info("loaded, mode %s\n", pcpcache_mode_name(pcpcache_mode));
	return 0;
}

static void __exit pcpcache_exit(void)
{
	pcpcache_debugfs_exit();
	pr_info("unloaded\n");
}

module_init(pcpcache_init);
module_exit(pcpcache_exit);

MODULE_DESCRIPTION("Per-CPU page magazines for studying per-CPU page caching");
MODULE_AUTHOR("The pcpcache developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(PCPCACHE_VERSION);
