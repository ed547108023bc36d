// SPDX-License-Identifier: GPL-2.0
/*
 * pcpcache's files in /sys/kernel/debug/pcpcache/: one for each control
 * and status file of control.c, "user", the ioctls of user.c, and
 * "audit", the pages counted where they are.
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
#include <linux/stop_machine.h>
#include <linux/string.h>

#include "barn.h"
#include "blocks.h"
#include "lock.h"
#include "owner.h"
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

/*
 * The audit: every page the module keeps, counted by walking the lists it
 * is on, against the counts the module keeps of them. The counters say
 * where pages are; they change on both sides of a move in the same place,
 * so they agree with each other whatever happens to the pages. The walk
 * does not trust them: a page lost from a list, or on two, shows here.
 */
struct pcpcache_audit {
	int err;
	unsigned long walked_cached;	/* base pages on the magazines' lists */
	unsigned long cached;		/* what their counts say */
	unsigned long lists_wrong;	/* lists whose nr[] or count disagree */
	unsigned long walked_transit;	/* base pages on the transit lists */
	unsigned long transit;		/* what their counts say */
	unsigned long walked_blocks;	/* pages at home, by the blocks' maps */
	unsigned long blocks;		/* what the reserves' counts say */
	unsigned long blocks_wrong;	/* blocks that disagree with themselves */
	struct pcpcache_deferred_audit deferred; /* _nolock() frees and cuts */
	unsigned long stats[PCPCACHE_NR_STATS];
};

static void pcpcache_audit_list(struct pcpcache_audit *a,
				struct pcpcache_list *list)
{
	unsigned int order, nr, count = 0;
	struct list_head *node;

	for (order = 0; order < PCPCACHE_NR_ORDERS; order++) {
		nr = 0;
		list_for_each(node, &list->pages[order])
			nr++;
		if (nr != list->nr[order])
			a->lists_wrong++;
		count += nr << order;
	}
	if (count != list->count)
		a->lists_wrong++;
	a->walked_cached += count;
	a->cached += list->count;
}

static void pcpcache_audit_transit(struct pcpcache_audit *a, int cpu)
{
	struct pcpcache_transit *t = &per_cpu_ptr(&pcpcache_cpus, cpu)->transit;
	struct llist_node *node;
	unsigned long order;
	struct page *page;

	llist_for_each(node, t->blocks.first) {
		page = list_entry((struct list_head *)node, struct page, lru);
		order = page_private(page);
		if (order >= PCPCACHE_NR_ORDERS) {
			a->lists_wrong++;
			continue;
		}
		a->walked_transit += 1UL << order;
	}
	a->transit += atomic_read(&t->pages);
}

/* One CPU's magazine, transit list, blocks at home and deferred list. */
static void pcpcache_audit_cpu(struct pcpcache_audit *a, int cpu)
{
	struct pcpcache_cpu *pc = per_cpu_ptr(&pcpcache_cpus, cpu);
	int i;

	for (i = 0; i < PCPCACHE_NR_LISTS; i++)
		pcpcache_audit_list(a, &pc->mag.lists[i]);
	pcpcache_audit_transit(a, cpu);
	a->walked_blocks += pcpcache_blocks_audit(cpu, &a->blocks_wrong);
	a->blocks += pc->reserve.pages;
	pcpcache_deferred_audit(cpu, &a->deferred);
}

/*
 * Run by stop_machine() on one CPU while every other spins with interrupts
 * off. Outside PREEMPT_RT no task can be stopped inside a magazine's,
 * a reserve's or a list's critical section: each runs with preemption or
 * interrupts off. A _nolock() call in an NMI may still take a magazine's
 * spinlock on its CPU: each is held while its magazine is walked. On
 * PREEMPT_RT the magazines' locks sleep (local_lock_t is a spinlock_t
 * there) and a holder may have been stopped half way: both are held for
 * the walk. A lock found held fails the read with EAGAIN, and the reader
 * tries again. A page between two places (cut off a magazine and not yet
 * given back, taken off a transit list and not yet in the magazine) is in
 * neither count nor walk, or in the count and not the walk: the audit is
 * exact only when nothing is in flight, which the reader sees by reading
 * it again.
 */
static int pcpcache_audit_stopped(void *arg)
{
	struct pcpcache_audit *a = arg;
	struct pcpcache_cpu *pc;
	int cpu;

	for_each_possible_cpu(cpu) {
		pc = per_cpu_ptr(&pcpcache_cpus, cpu);
#ifdef CONFIG_PREEMPT_RT
		if (!spin_trylock(&pc->llock)) {
			a->err = -EAGAIN;
			return 0;
		}
#endif
		if (!spin_trylock(&pc->slock)) {
#ifdef CONFIG_PREEMPT_RT
			spin_unlock(&pc->llock);
#endif
			a->err = -EAGAIN;
			return 0;
		}
		pcpcache_audit_cpu(a, cpu);
		spin_unlock(&pc->slock);
#ifdef CONFIG_PREEMPT_RT
		spin_unlock(&pc->llock);
#endif
	}
	/* the barns' pages count as cached, as in the stats file */
	a->err = pcpcache_barns_audit(&a->walked_cached, &a->cached,
				      &a->lists_wrong);
	pcpcache_stats_sum(a->stats);
	return 0;
}

static int audit_show(struct seq_file *m, void *v)
{
	struct pcpcache_audit *a;
	int err;

	a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (!a)
		return -ENOMEM;
	err = stop_machine(pcpcache_audit_stopped, a, NULL);
	if (!err)
		err = a->err;
	if (!err) {
		seq_printf(m, "walked_cached %lu\ncached %lu\nlists_wrong %lu\n",
			   a->walked_cached, a->cached, a->lists_wrong);
		seq_printf(m, "walked_transit %lu\ntransit %lu\n",
			   a->walked_transit, a->transit);
		seq_printf(m, "walked_blocks %lu\nblocks %lu\nblocks_wrong %lu\n",
			   a->walked_blocks, a->blocks, a->blocks_wrong);
		seq_printf(m, "walked_deferred %lu\ndeferred %lu\ndeferred_wrong %lu\nwalked_deferred_cut %lu\n",
			   a->deferred.walked, a->deferred.counted,
			   a->deferred.wrong, a->deferred.walked_cut);
		seq_printf(m, "buddy_alloc %lu\nbuddy_free %lu\nheld %ld\n",
			   a->stats[PCPCACHE_BUDDY_ALLOC],
			   a->stats[PCPCACHE_BUDDY_FREE],
			   (long)(a->stats[PCPCACHE_ALLOC] -
				  a->stats[PCPCACHE_FREE]));
	}
	kfree(a);
	return err;
}
DEFINE_SHOW_ATTRIBUTE(audit);

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
	debugfs_create_file("audit", 0400, root, NULL, &audit_fops);
}

void pcpcache_debugfs_exit(void)
{
	debugfs_remove_recursive(pcpcache_debugfs_root);
}
