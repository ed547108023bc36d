// SPDX-License-Identifier: GPL-2.0
/*
 * pcpcache's userspace interface: ioctls on /sys/kernel/debug/pcpcache/user
 * (include/uapi/linux/pcpcache.h) that allocate, hold and free pages on the
 * calling thread's CPU, so that tests and pcpctl can drive each CPU's
 * magazine from a thread pinned to it.
 *
 * Held pages are bounded per open file and in total, so that a test can
 * never push the machine into the OOM killer; allocations also ask for
 * __GFP_NORETRY, which fails rather than invoking it.
 */
#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/fs.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/pcpcache.h>
#include <uapi/linux/pcpcache.h>

#include "pcpcache.h"

#define PCPCACHE_USER_GFP	(GFP_KERNEL | __GFP_NORETRY | __GFP_NOWARN)

/* The most rounds one PCPCACHE_IOC_CYCLE may ask for. */
#define PCPCACHE_MAX_CYCLES	BIT(24)

static unsigned int user_max_pages = 65536;
module_param(user_max_pages, uint, 0644);
MODULE_PARM_DESC(user_max_pages, "pages one open user file may hold (default 65536)");

static unsigned int user_max_total;
module_param(user_max_total, uint, 0644);
MODULE_PARM_DESC(user_max_total, "pages all open user files together may hold (default 0: an eighth of RAM)");

/* Pages held or reserved by all open files. */
static atomic_long_t pcpcache_user_total = ATOMIC_LONG_INIT(0);

struct pcpcache_user {
	spinlock_t lock;		/* protects the three below */
	struct list_head pages;		/* held pages, newest first */
	unsigned long nr_pages;		/* on @pages */
	unsigned long nr_reserved;	/* being allocated or cycled */
};

static unsigned long total_limit(void)
{
	unsigned int max = READ_ONCE(user_max_total);

	return max ? max : totalram_pages() / 8;
}

static void unreserve(struct pcpcache_user *user, unsigned long nr)
{
	spin_lock(&user->lock);
	user->nr_reserved -= nr;
	spin_unlock(&user->lock);
	atomic_long_sub(nr, &pcpcache_user_total);
}

/* Reserve room for @nr pages in @user and in the total, or fail. */
static int reserve(struct pcpcache_user *user, unsigned long nr)
{
	int err = 0;

	spin_lock(&user->lock);
	if (user->nr_pages + user->nr_reserved + nr > READ_ONCE(user_max_pages))
		err = -ENOSPC;
	else
		user->nr_reserved += nr;
	spin_unlock(&user->lock);
	if (err)
		return err;

	/* add first, so that racing reservations cannot both get in */
	if (atomic_long_add_return(nr, &pcpcache_user_total) > total_limit()) {
		unreserve(user, nr);
		return -ENOSPC;
	}
	return 0;
}

/*
 * Turn a reservation of @nr into @nr_held held @pages and drop the rest.
 * Return: the pages @user holds now.
 */
static unsigned long settle(struct pcpcache_user *user, unsigned long nr,
			    struct list_head *pages, unsigned long nr_held)
{
	unsigned long held;

	spin_lock(&user->lock);
	list_splice(pages, &user->pages);
	user->nr_pages += nr_held;
	user->nr_reserved -= nr;
	held = user->nr_pages;
	spin_unlock(&user->lock);

	atomic_long_sub(nr - nr_held, &pcpcache_user_total);
	return held;
}

static int user_open(struct inode *inode, struct file *file)
{
	struct pcpcache_user *user = kzalloc(sizeof(*user), GFP_KERNEL);

	if (!user)
		return -ENOMEM;
	spin_lock_init(&user->lock);
	INIT_LIST_HEAD(&user->pages);
	file->private_data = user;
	return 0;
}

static void free_list(struct list_head *pages, bool cold)
{
	struct page *page, *next;

	list_for_each_entry_safe(page, next, pages, lru) {
		list_del(&page->lru);
		pcpcache_free_page(page, cold);
		cond_resched();
	}
}

static int user_release(struct inode *inode, struct file *file)
{
	struct pcpcache_user *user = file->private_data;

	/* the last reference is gone: no ioctl can be running */
	free_list(&user->pages, false);
	atomic_long_sub(user->nr_pages, &pcpcache_user_total);
	kfree(user);
	return 0;
}

static int user_alloc(struct pcpcache_user *user, struct pcpcache_pages *req)
{
	bool cold = req->flags & PCPCACHE_COLD;
	struct page *page;
	LIST_HEAD(pages);
	int err;

	err = reserve(user, req->count);
	if (err)
		return err;

	while (req->done < req->count) {
		page = pcpcache_alloc_page(PCPCACHE_USER_GFP, cold);
		if (!page)
			break;
		list_add(&page->lru, &pages);
		req->done++;
		if (page_to_nid(page) != cpu_to_mem(req->cpu))
			req->remote++;
		if (fatal_signal_pending(current))
			break;
		cond_resched();
	}
	req->held = settle(user, req->count, &pages, req->done);
	return req->done ? 0 : -ENOMEM;
}

static int user_free(struct pcpcache_user *user, struct pcpcache_pages *req)
{
	bool cold = req->flags & PCPCACHE_COLD;
	struct list_head *last;
	LIST_HEAD(pages);
	unsigned long i;

	spin_lock(&user->lock);
	if (req->count > user->nr_pages) {
		spin_unlock(&user->lock);
		return -EINVAL;
	}
	/* the newest pages: the ones most likely still in this CPU's cache */
	last = &user->pages;
	for (i = 0; i < req->count; i++)
		last = last->next;
	list_cut_position(&pages, &user->pages, last);
	user->nr_pages -= req->count;
	req->held = user->nr_pages;
	spin_unlock(&user->lock);

	free_list(&pages, cold);
	atomic_long_sub(req->count, &pcpcache_user_total);
	req->done = req->count;
	return 0;
}

static long user_pages_ioctl(struct pcpcache_user *user, unsigned int cmd,
			     void __user *argp)
{
	struct pcpcache_pages req;
	int err;

	if (copy_from_user(&req, argp, sizeof(req)))
		return -EFAULT;
	/* pad may mean something one day: only 0 means nothing now */
	if (!req.count || req.flags & ~PCPCACHE_COLD || req.pad)
		return -EINVAL;
	req.cpu = raw_smp_processor_id();
	req.done = 0;
	req.remote = 0;
	req.pad = 0;

	if (cmd == PCPCACHE_IOC_ALLOC)
		err = user_alloc(user, &req);
	else
		err = user_free(user, &req);
	if (err)
		return err;
	return copy_to_user(argp, &req, sizeof(req)) ? -EFAULT : 0;
}

/* One round: allocate @req->batch pages, touch them if asked, free them. */
static void cycle_once(struct pcpcache_cycle *req, unsigned int round)
{
	bool cold_free = req->flags & PCPCACHE_CYCLE_COLD_FREE;
	bool cold = req->flags & PCPCACHE_CYCLE_COLD_ALLOC;
	unsigned int i, nr = 0;
	struct page *page;
	LIST_HEAD(pages);

	for (i = 0; i < req->batch; i++) {
		page = pcpcache_alloc_page(PCPCACHE_USER_GFP, cold);
		if (!page) {
			req->failures++;
			continue;
		}
		if (req->flags & PCPCACHE_CYCLE_TOUCH)
			memset(page_address(page), round, PAGE_SIZE);
		list_add(&page->lru, &pages);
		nr++;
	}
	free_list(&pages, cold_free);
	req->allocs += nr;
	req->frees += nr;
}

static long user_cycle_ioctl(struct pcpcache_user *user, void __user *argp)
{
	struct pcpcache_cycle req;
	unsigned int round;
	int err;

	if (copy_from_user(&req, argp, sizeof(req)))
		return -EFAULT;
	if (!req.cycles || req.cycles > PCPCACHE_MAX_CYCLES || !req.batch ||
	    req.flags & ~(PCPCACHE_CYCLE_COLD_ALLOC | PCPCACHE_CYCLE_COLD_FREE |
			  PCPCACHE_CYCLE_TOUCH) || req.pad || req.pad2)
		return -EINVAL;

	err = reserve(user, req.batch);
	if (err)
		return err;

	req.cpu = raw_smp_processor_id();
	req.allocs = 0;
	req.frees = 0;
	req.failures = 0;
	req.pad2 = 0;
	for (round = 0; round < req.cycles; round++) {
		cycle_once(&req, round);
		if (fatal_signal_pending(current))
			break;
		cond_resched();
	}
	unreserve(user, req.batch);
	return copy_to_user(argp, &req, sizeof(req)) ? -EFAULT : 0;
}

static long user_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct pcpcache_user *user = file->private_data;
	void __user *argp = (void __user *)arg;

	switch (cmd) {
	case PCPCACHE_IOC_ALLOC:
	case PCPCACHE_IOC_FREE:
		return user_pages_ioctl(user, cmd, argp);
	case PCPCACHE_IOC_CYCLE:
		return user_cycle_ioctl(user, argp);
	default:
		return -ENOTTY;
	}
}

const struct file_operations pcpcache_user_fops = {
	.owner		= THIS_MODULE,
	.open		= user_open,
	.release	= user_release,
	/* debugfs's proxy passes no compat_ioctl on 6.1: 64-bit callers only */
	.unlocked_ioctl	= user_ioctl,
	.llseek		= noop_llseek,
};
