// SPDX-License-Identifier: GPL-2.0
/*
 * pcpcache's files in /sys/kernel/debug/pcpcache/: one for each control
 * and status file of control.c, and "user", the ioctls of user.c.
 *
 * As in mm/kfence/core.c, the return values of the debugfs calls are not
 * checked: a missing debugfs must not stop the cache from working.
 * Every file is for root only.
 *
 * A write carries one whole value (parse.h) at the start of the file. A
 * write at another position fails with EINVAL, and one that succeeds moves
 * the position past what it wrote, as in a file: a second write() on the
 * same open file is refused rather than taken for a new value. echo and
 * pcpctl open the file for each value. A write that fails changes
 * nothing, the position included; one of no bytes changes nothing and
 * succeeds, as in sysfs.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "pcpcache.h"

static struct dentry *pcpcache_debugfs_root;

static int ctl_show(struct seq_file *m, void *v)
{
	const struct pcpcache_ctl *ctl = m->private;
	size_t size = ctl->size ? ctl->size() : PAGE_SIZE;
	char *buf;

	buf = kvmalloc(size, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	seq_write(m, buf, ctl->show(ctl, buf, size));
	kvfree(buf);
	return 0;
}

static int ctl_open(struct inode *inode, struct file *file)
{
	return single_open(file, ctl_show, inode->i_private);
}

static ssize_t ctl_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	const struct pcpcache_ctl *ctl = file_inode(file)->i_private;
	char *buf;
	int err;

	if (!ctl->store || *ppos || count > PCPCACHE_WRITE_MAX)
		return -EINVAL;
	if (!count)
		return 0;
	buf = memdup_user(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	err = ctl->store(ctl, buf, count);
	kfree(buf);
	if (err)
		return err;
	*ppos += count;
	return count;
}

static const struct file_operations ctl_fops = {
	.owner		= THIS_MODULE,
	.open		= ctl_open,
	.read		= seq_read,
	.write		= ctl_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/* A file that can only be written has no text for a seq_file to hold. */
static const struct file_operations ctl_write_only_fops = {
	.owner		= THIS_MODULE,
	.write		= ctl_write,
	.llseek		= default_llseek,
};

void pcpcache_debugfs_init(void)
{
	const struct pcpcache_ctl *ctl;
	struct dentry *root;
	umode_t mode;
	unsigned int i;

	root = debugfs_create_dir(KBUILD_MODNAME, NULL);
	pcpcache_debugfs_root = root;

	for (i = 0; i < pcpcache_nr_ctls; i++) {
		ctl = &pcpcache_ctls[i];
		mode = (ctl->show ? 0400 : 0) | (ctl->store ? 0200 : 0);
		debugfs_create_file(ctl->name, mode, root, (void *)ctl,
				    ctl->show ? &ctl_fops : &ctl_write_only_fops);
	}
	debugfs_create_file("user", 0600, root, NULL, &pcpcache_user_fops);
}

void pcpcache_debugfs_exit(void)
{
	debugfs_remove_recursive(pcpcache_debugfs_root);
}
