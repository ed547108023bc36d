// SPDX-License-Identifier: GPL-2.0
/*
 * pcpcache's control and status files in /sys/kernel/debug/pcpcache/.
 *
 * As in mm/kfence/core.c, the return values of the debugfs calls are not
 * checked: a missing debugfs must not stop the cache from working.
 * Every file is for root only. A write carries one whole value at offset
 * 0 (a trailing newline allowed); anything else fails with -EINVAL and
 * changes nothing.
 */
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "pcpcache.h"

/* Longer than any mode name or any number a knob accepts. */
#define PCPCACHE_WRITE_MAX	32

static struct dentry *pcpcache_debugfs_root;

/* Copy a whole value written at offset 0 into @buf, NUL-terminated. */
static int read_value(const char __user *ubuf, size_t count, loff_t *ppos,
		      char *buf)
{
	if (*ppos || !count || count >= PCPCACHE_WRITE_MAX)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	return 0;
}

/*
 * A decimal number, with one trailing newline at most. One too large for
 * an unsigned int is as invalid as any other (kstrtouint says -ERANGE).
 */
static int read_number(const char __user *ubuf, size_t count, loff_t *ppos,
		       unsigned int *val)
{
	char buf[PCPCACHE_WRITE_MAX];
	int err;

	err = read_value(ubuf, count, ppos, buf);
	if (err)
		return err;
	return kstrtouint(buf, 10, val) ? -EINVAL : 0;
}

static int mode_show(struct seq_file *m, void *v)
{
	struct pcpcache_config cfg;
	char buf[64];

	pcpcache_get_config(&cfg);
	pcpcache_mode_format(cfg.mode, buf, sizeof(buf));
	seq_puts(m, buf);
	return 0;
}

static int mode_open(struct inode *inode, struct file *file)
{
	return single_open(file, mode_show, NULL);
}

static ssize_t mode_write(struct file *file, const char __user *ubuf,
			  size_t count, loff_t *ppos)
{
	char buf[PCPCACHE_WRITE_MAX];
	int mode, err;

	err = read_value(ubuf, count, ppos, buf);
	if (err)
		return err;
	mode = pcpcache_mode_parse(buf, count);
	if (mode < 0)
		return mode;
	err = pcpcache_set_mode(mode);
	return err ? err : count;
}

static const struct file_operations mode_fops = {
	.owner		= THIS_MODULE,
	.open		= mode_open,
	.read		= seq_read,
	.write		= mode_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/* The knob files; each file's private data points at its entry. */
static const enum pcpcache_knob pcpcache_knobs[PCPCACHE_NR_KNOBS] = {
	PCPCACHE_KNOB_BATCH, PCPCACHE_KNOB_HIGH,
	PCPCACHE_KNOB_COLD_BATCH, PCPCACHE_KNOB_COLD_HIGH,
};

static int knob_show(struct seq_file *m, void *v)
{
	const enum pcpcache_knob *knob = m->private;
	struct pcpcache_config cfg;

	pcpcache_get_config(&cfg);
	seq_printf(m, "%u\n", *pcpcache_knob(&cfg, *knob));
	return 0;
}

static int knob_open(struct inode *inode, struct file *file)
{
	return single_open(file, knob_show, inode->i_private);
}

static ssize_t knob_write(struct file *file, const char __user *ubuf,
			  size_t count, loff_t *ppos)
{
	const enum pcpcache_knob *knob = file_inode(file)->i_private;
	unsigned int val;
	int err;

	err = read_number(ubuf, count, ppos, &val);
	if (err)
		return err;
	err = pcpcache_set_knob(*knob, val);
	return err ? err : count;
}

static const struct file_operations knob_fops = {
	.owner		= THIS_MODULE,
	.open		= knob_open,
	.read		= seq_read,
	.write		= knob_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/* The whole configuration on one line, to read or to set at once. */
static int config_show(struct seq_file *m, void *v)
{
	struct pcpcache_config cfg;

	pcpcache_get_config(&cfg);
	seq_printf(m, "mode=%s batch=%u high=%u cold_batch=%u cold_high=%u\n",
		   pcpcache_mode_name(cfg.mode), cfg.batch, cfg.high,
		   cfg.cold_batch, cfg.cold_high);
	return 0;
}

static int config_open(struct inode *inode, struct file *file)
{
	return single_open(file, config_show, NULL);
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
static ssize_t config_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	struct config_text text;
	char *buf;
	int err;

	if (*ppos || !count || count > PAGE_SIZE)
		return -EINVAL;
	buf = memdup_user(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	text.buf = buf;
	text.len = count;
	err = pcpcache_edit_config(config_edit, &text);
	kfree(buf);
	return err ? err : count;
}

static const struct file_operations config_fops = {
	.owner		= THIS_MODULE,
	.open		= config_open,
	.read		= seq_read,
	.write		= config_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static int lock_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%s\n", pcpcache_lock_name());
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(lock);

static int stats_show(struct seq_file *m, void *v)
{
	pcpcache_stats_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

/*
 * Like the pagesets of /proc/zoneinfo: one line per possible CPU, then the
 * blocks of each order it caches, on both lists.
 */
static int pagesets_show(struct seq_file *m, void *v)
{
	struct pcpcache_list lists[PCPCACHE_NR_LISTS];
	const struct pcpcache_list *hot = &lists[PCPCACHE_LIST_HOT];
	const struct pcpcache_list *cold = &lists[PCPCACHE_LIST_COLD];
	struct pcpcache_config cfg;
	unsigned int order;
	bool split;
	int cpu;

	pcpcache_get_config(&cfg);
	split = cfg.mode == PCPCACHE_MODE_SPLIT;
	seq_printf(m, "%5s %7s %7s %7s", "cpu", "count", "high", "batch");
	if (split)
		seq_printf(m, " %10s %10s %10s", "cold_count", "cold_high",
			   "cold_batch");
	for (order = 0; order < PCPCACHE_NR_ORDERS; order++)
		seq_printf(m, " %5s%u", "order", order);
	seq_putc(m, '\n');

	for_each_possible_cpu(cpu) {
		pcpcache_cpu_lists(cpu, lists);
		seq_printf(m, "%5d %7u %7u %7u", cpu, hot->count, hot->high,
			   hot->batch);
		if (split)
			seq_printf(m, " %10u %10u %10u", cold->count,
				   cold->high, cold->batch);
		for (order = 0; order < PCPCACHE_NR_ORDERS; order++)
			seq_printf(m, " %6u", hot->nr[order] + cold->nr[order]);
		seq_putc(m, '\n');
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pagesets);

static ssize_t drain_write(struct file *file, const char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	unsigned int val;
	int err;

	err = read_number(ubuf, count, ppos, &val);
	if (err)
		return err;
	if (val != 1)
		return -EINVAL;
	pcpcache_drain_all();
	return count;
}

static int fault_refill_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%u\n", READ_ONCE(pcpcache_fault_refill));
	return 0;
}

static int fault_refill_open(struct inode *inode, struct file *file)
{
	return single_open(file, fault_refill_show, NULL);
}

/* A percentage: 0 (the default) to 100. */
static ssize_t fault_refill_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	unsigned int val;
	int err;

	err = read_number(ubuf, count, ppos, &val);
	if (err)
		return err;
	if (val > 100)
		return -EINVAL;
	WRITE_ONCE(pcpcache_fault_refill, val);
	return count;
}

static const struct file_operations fault_refill_fops = {
	.owner		= THIS_MODULE,
	.open		= fault_refill_open,
	.read		= seq_read,
	.write		= fault_refill_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static const struct file_operations drain_fops = {
	.owner		= THIS_MODULE,
	.write		= drain_write,
	.llseek		= noop_llseek,
};

void pcpcache_debugfs_init(void)
{
	struct dentry *root;
	int i;

	root = debugfs_create_dir(KBUILD_MODNAME, NULL);
	pcpcache_debugfs_root = root;

	debugfs_create_file("mode", 0600, root, NULL, &mode_fops);
	for (i = 0; i < PCPCACHE_NR_KNOBS; i++)
		debugfs_create_file(pcpcache_knob_name(i), 0600, root,
				    (void *)&pcpcache_knobs[i], &knob_fops);
	debugfs_create_file("stats", 0400, root, NULL, &stats_fops);
	debugfs_create_file("pagesets", 0400, root, NULL, &pagesets_fops);
	debugfs_create_file("drain", 0200, root, NULL, &drain_fops);
	debugfs_create_file("user", 0600, root, NULL, &pcpcache_user_fops);
	debugfs_create_file("fault_refill", 0600, root, NULL,
			    &fault_refill_fops);
	debugfs_create_file("config", 0600, root, NULL, &config_fops);
	debugfs_create_file("bench", 0600, root, NULL, &pcpcache_bench_fops);
	debugfs_create_file("lock", 0400, root, NULL, &lock_fops);
}

void pcpcache_debugfs_exit(void)
{
	debugfs_remove_recursive(pcpcache_debugfs_root);
}
