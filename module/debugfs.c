// SPDX-License-Identifier: GPL-2.0
/*
 * pcpcache's control and status files in /sys/kernel/debug/pcpcache/.
 *
 * As in mm/kfence/core.c, the return values of the debugfs calls are not
 * checked: a missing debugfs must not stop the cache from working.
 * Every file is for root only.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "pcpcache.h"

static struct dentry *pcpcache_debugfs_root;

static int mode_show(struct seq_file *m, void *v)
{
	char buf[64];

	pcpcache_mode_format(pcpcache_mode, buf, sizeof(buf));
	seq_puts(m, buf);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(mode);

void pcpcache_debugfs_init(void)
{
	pcpcache_debugfs_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("mode", 0400, pcpcache_debugfs_root, NULL,
			    &mode_fops);
}

void pcpcache_debugfs_exit(void)
{
	debugfs_remove_recursive(pcpcache_debugfs_root);
}
