// SPDX-License-Identifier: GPL-2.0
/*
 * pcpcache's userspace interface: ioctls on /sys/kernel/debug/pcpcache/user
 * (include/uapi/linux/pcpcache.h) that allocate, hold and free pages on the
 * calling thread's CPU, so that tests and pcpctl can drive each CPU's
 * magazine from a thread pinned to it.
 *
 * Held pages are bounded per open file and in total, so that a test can
 * never push the machine into the OOM killer; allocations also ask for
 * __GFP_NORETRY, which fails rather than invoking it. The mappings of
 * /dev/pcpcache (fault.c) count against the same limits.
 *
 * Held pages are pinned: the core mm can neither reclaim nor migrate
 * them. They are charged where the kernel charges pinned pages (RDMA's
 * ib_umem, for one): to the opener's mm->pinned_vm, VmPin in
 * /proc/PID/status, against RLIMIT_MEMLOCK unless the caller has
 * CAP_IPC_LOCK. A memory cgroup cannot be charged from a module (6.1
 * exports no charge function), so a hold that would take the opener's
 * memcg, or one above it, past its memory.max is refused instead.
 */
#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/highmem.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/page_counter.h>
#include <linux/sched/mm.h>
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

/* The most either limit below may be set to: 16 GiB of pages. */
#define PCPCACHE_USER_MAX_LIMIT	BIT(22)

/* Pages a free takes off a file's list per hold of its lock. */
#define PCPCACHE_USER_CHUNK	4096

static int limit_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, PCPCACHE_USER_MAX_LIMIT);
}

static const struct kernel_param_ops limit_ops = {
	.set	= limit_set,
	.get	= param_get_uint,
};

static unsigned int user_max_pages = 65536;
module_param_cb(user_max_pages, &limit_ops, &user_max_pages, 0644);
MODULE_PARM_DESC(user_max_pages, "pages one open user file, or one mapping of /dev/pcpcache, may hold (default 65536, at most 4194304)");

static unsigned int user_max_total;
module_param_cb(user_max_total, &limit_ops, &user_max_total, 0644);
MODULE_PARM_DESC(user_max_total, "pages all open user files and mappings together may hold (default 0: an eighth of RAM, no more than the maximum; at most 4194304)");

/* Pages held or reserved by all open files and mappings. */
static atomic_long_t pcpcache_user_total = ATOMIC_LONG_INIT(0);

struct pcpcache_user {
	struct mm_struct *mm;		/* the opener's, charged; NULL: none */
	spinlock_t lock;		/* protects the four below */
	/* held blocks, by order, newest first */
	struct list_head pages[PCPCACHE_NR_ORDERS];
	unsigned long nr[PCPCACHE_NR_ORDERS];	/* blocks on each */
	unsigned long nr_pages;		/* base pages on all of them */
	unsigned long nr_reserved;	/* base pages being allocated or cycled */
};

static unsigned long total_limit(void)
{
	unsigned int max = READ_ONCE(user_max_total);

	/* the default never exceeds the documented maximum, on any machine */
	return max ? max : min_t(unsigned long, totalram_pages() / 8,
				 PCPCACHE_USER_MAX_LIMIT);
}

unsigned long pcpcache_user_max_pages(void)
{
	return READ_ONCE(user_max_pages);
}

/* Pages held or reserved through user files and mappings, for stats. */
unsigned long pcpcache_user_held(void)
{
	return atomic_long_read(&pcpcache_user_total);
}

/*
 * Whether @mm's memory cgroup, and every one above it, has room for its
 * usage and the @pinned pages @mm holds through pcpcache, which it is not
 * charged for.
 */
static bool memcg_has_room(struct mm_struct *mm, unsigned long pinned)
{
#ifdef CONFIG_MEMCG
	struct mem_cgroup *memcg = get_mem_cgroup_from_mm(mm), *pos;
	bool room = true;

	for (pos = memcg; pos && room; pos = parent_mem_cgroup(pos))
		room = page_counter_read(&pos->memory) + pinned <=
		       READ_ONCE(pos->memory.max);
	mem_cgroup_put(memcg);
	return room;
#else
	return true;
#endif
}

/*
 * Charge @nr pages to @mm's pinned_vm, as the file comment says.
 * Return: 0, or -ENOMEM (RLIMIT_MEMLOCK, memory.max).
 */
static int pin_charge(struct mm_struct *mm, unsigned long nr)
{
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	s64 pinned;

	if (!mm)
		return 0;
	/* add first, so that racing charges cannot both get in */
	pinned = atomic64_add_return(nr, &mm->pinned_vm);
	if ((pinned > limit && !capable(CAP_IPC_LOCK)) ||
	    !memcg_has_room(mm, pinned)) {
		atomic64_sub(nr, &mm->pinned_vm);
		return -ENOMEM;
	}
	return 0;
}

/*
 * Reserve room for @nr pages in the total and charge them to @mm (the
 * opener's, or NULL). Return: 0, -ENOSPC (the total) or -ENOMEM (the
 * opener's limits).
 */
int pcpcache_user_charge(struct mm_struct *mm, unsigned long nr)
{
	int err;

	/* add first, so that racing reservations cannot both get in */
	if (atomic_long_add_return(nr, &pcpcache_user_total) > total_limit()) {
		atomic_long_sub(nr, &pcpcache_user_total);
		return -ENOSPC;
	}
	err = pin_charge(mm, nr);
	if (err)
		atomic_long_sub(nr, &pcpcache_user_total);
	return err;
}

/* Give back what pcpcache_user_charge() took; any context. */
void pcpcache_user_uncharge(struct mm_struct *mm, unsigned long nr)
{
	atomic_long_sub(nr, &pcpcache_user_total);
	if (mm)
		atomic64_sub(nr, &mm->pinned_vm);
}

static void unreserve(struct pcpcache_user *user, unsigned long nr)
{
	spin_lock(&user->lock);
	user->nr_reserved -= nr;
	spin_unlock(&user->lock);
	pcpcache_user_uncharge(user->mm, nr);
}

/* Reserve room for @nr base pages in @user and in the total, or fail. */
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

	err = pcpcache_user_charge(user->mm, nr);
	if (err) {
		spin_lock(&user->lock);
		user->nr_reserved -= nr;
		spin_unlock(&user->lock);
	}
	return err;
}

/*
 * Turn a reservation of @nr blocks of @order into @nr_held held blocks on
 * @pages and drop the rest. Return: the base pages @user holds now.
 */
static unsigned long settle(struct pcpcache_user *user, unsigned int order,
			    unsigned long nr, struct list_head *pages,
			    unsigned long nr_held)
{
	unsigned long held;

	spin_lock(&user->lock);
	list_splice(pages, &user->pages[order]);
	user->nr[order] += nr_held;
	user->nr_pages += nr_held << order;
	user->nr_reserved -= nr << order;
	held = user->nr_pages;
	spin_unlock(&user->lock);

	pcpcache_user_uncharge(user->mm, (nr - nr_held) << order);
	return held;
}

/* As /dev/pcpcache: holding pages is a privilege, whatever the mode. */
static int user_open(struct inode *inode, struct file *file)
{
	struct pcpcache_user *user;
	unsigned int order;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	user = kzalloc(sizeof(*user), GFP_KERNEL);
	if (!user)
		return -ENOMEM;
	spin_lock_init(&user->lock);
	for (order = 0; order < PCPCACHE_NR_ORDERS; order++)
		INIT_LIST_HEAD(&user->pages[order]);
	/* charged to the opener, whoever holds the file later */
	user->mm = current->mm;
	if (user->mm)
		mmgrab(user->mm);
	file->private_data = user;
	return 0;
}

static void free_list(struct list_head *pages, unsigned int order, bool cold)
{
	struct page *page, *next;

	list_for_each_entry_safe(page, next, pages, lru) {
		list_del(&page->lru);
		pcpcache_free_pages(page, order, cold);
		cond_resched();
	}
}

static int user_release(struct inode *inode, struct file *file)
{
	struct pcpcache_user *user = file->private_data;
	unsigned int order;

	/* the last reference is gone: no ioctl can be running */
	for (order = 0; order < PCPCACHE_NR_ORDERS; order++)
		free_list(&user->pages[order], order, false);
	pcpcache_user_uncharge(user->mm, user->nr_pages);
	if (user->mm)
		mmdrop(user->mm);
	kfree(user);
	return 0;
}

/* The order a request's flags name; PCPCACHE_NR_ORDERS when none valid. */
static unsigned int flags_order(__u32 flags)
{
	unsigned int order = (flags & PCPCACHE_ORDER_MASK) >> PCPCACHE_ORDER_SHIFT;

	if (order > PCPCACHE_MAX_ORDER || order >= PCPCACHE_NR_ORDERS)
		return PCPCACHE_NR_ORDERS;
	return order;
}

/*
 * Allocate up to req->count blocks; a signal stops it early. Return: 0
 * when any block was allocated, -EINTR when a signal came first, else
 * -ENOMEM.
 */
static int user_alloc(struct pcpcache_user *user, struct pcpcache_pages *req,
		      unsigned int order)
{
	bool cold = req->flags & PCPCACHE_COLD;
	struct page *page;
	LIST_HEAD(pages);
	int err;

	err = reserve(user, (unsigned long)req->count << order);
	if (err)
		return err;

	while (req->done < req->count) {
		if (signal_pending(current)) {
			err = -EINTR;
			break;
		}
		page = pcpcache_alloc_pages(PCPCACHE_USER_GFP, order, cold);
		if (!page) {
			err = -ENOMEM;
			break;
		}
		list_add(&page->lru, &pages);
		req->done++;
		if (page_to_nid(page) != cpu_to_mem(req->cpu))
			req->remote++;
		cond_resched();
	}
	req->held = settle(user, order, req->count, &pages, req->done);
	return req->done ? 0 : err;
}

/* Take up to @nr of the newest blocks of @order off @user onto @pages. */
static unsigned int take_pages(struct pcpcache_user *user, unsigned int order,
			       unsigned int nr, struct list_head *pages)
{
	struct list_head *head = &user->pages[order], *last;
	unsigned int i;

	spin_lock(&user->lock);
	last = head;
	for (i = 0; i < nr && last->next != head; i++)
		last = last->next;
	list_cut_position(pages, head, last);
	spin_unlock(&user->lock);
	return i;
}

/*
 * Free req->count blocks of @order, the newest: the ones most likely still
 * in this CPU's cache. They are claimed at once, then taken off the list a
 * chunk at a time, so that the file's lock is never held for long.
 */
static int user_free(struct pcpcache_user *user, struct pcpcache_pages *req,
		     unsigned int order)
{
	bool cold = req->flags & PCPCACHE_COLD;
	unsigned int left = req->count, nr;
	LIST_HEAD(pages);

	spin_lock(&user->lock);
	if (req->count > user->nr[order]) {
		spin_unlock(&user->lock);
		return -EINVAL;
	}
	user->nr[order] -= req->count;
	user->nr_pages -= (unsigned long)req->count << order;
	req->held = user->nr_pages;
	spin_unlock(&user->lock);

	/* the claimed blocks are on the list: frees by others claim theirs */
	while (left) {
		nr = take_pages(user, order,
				min_t(unsigned int, left, PCPCACHE_USER_CHUNK),
				&pages);
		if (WARN_ON_ONCE(!nr))
			break;
		free_list(&pages, order, cold);
		left -= nr;
	}
	pcpcache_user_uncharge(user->mm, (unsigned long)req->count << order);
	req->done = req->count;
	return 0;
}

static long user_pages_ioctl(struct pcpcache_user *user, unsigned int cmd,
			     void __user *argp)
{
	struct pcpcache_pages req;
	unsigned int order;
	int err;

	if (copy_from_user(&req, argp, sizeof(req)))
		return -EFAULT;
	order = flags_order(req.flags);
	/* pad may mean something one day: only 0 means nothing now */
	if (!req.count || order == PCPCACHE_NR_ORDERS ||
	    req.flags & ~(PCPCACHE_COLD | PCPCACHE_ORDER_MASK) || req.pad)
		return -EINVAL;
	req.cpu = raw_smp_processor_id();
	req.done = 0;
	req.remote = 0;
	req.pad = 0;

	if (cmd == PCPCACHE_IOC_ALLOC)
		err = user_alloc(user, &req, order);
	else
		err = user_free(user, &req, order);
	if (err)
		return err;
	return copy_to_user(argp, &req, sizeof(req)) ? -EFAULT : 0;
}

/*
 * One round: allocate @req->batch blocks, touch them if asked, free them. A
 * signal cuts the round short; what was allocated is freed all the same.
 */
static void cycle_once(struct pcpcache_cycle *req, unsigned int order,
		       unsigned int round)
{
	bool cold_free = req->flags & PCPCACHE_CYCLE_COLD_FREE;
	bool cold = req->flags & PCPCACHE_CYCLE_COLD_ALLOC;
	unsigned int i, j, nr = 0;
	struct page *page;
	LIST_HEAD(pages);

	for (i = 0; i < req->batch && !signal_pending(current); i++) {
		page = pcpcache_alloc_pages(PCPCACHE_USER_GFP, order, cold);
		if (!page) {
			req->failures++;
			continue;
		}
		if (req->flags & PCPCACHE_CYCLE_TOUCH)
			for (j = 0; j < 1U << order; j++)
				memset(page_address(page + j), round, PAGE_SIZE);
		list_add(&page->lru, &pages);
		nr++;
		cond_resched();
	}
	free_list(&pages, order, cold_free);
	req->allocs += nr;
	req->frees += nr;
}

static long user_cycle_ioctl(struct pcpcache_user *user, void __user *argp)
{
	struct pcpcache_cycle req;
	unsigned int round, order;
	int err;

	if (copy_from_user(&req, argp, sizeof(req)))
		return -EFAULT;
	order = flags_order(req.flags);
	if (!req.cycles || req.cycles > PCPCACHE_MAX_CYCLES || !req.batch ||
	    order == PCPCACHE_NR_ORDERS ||
	    req.flags & ~(PCPCACHE_CYCLE_COLD_ALLOC | PCPCACHE_CYCLE_COLD_FREE |
			  PCPCACHE_CYCLE_TOUCH | PCPCACHE_ORDER_MASK) || req.pad ||
	    req.pad2)
		return -EINVAL;

	err = reserve(user, (unsigned long)req.batch << order);
	if (err)
		return err;

	req.cpu = raw_smp_processor_id();
	req.allocs = 0;
	req.frees = 0;
	req.failures = 0;
	req.pad2 = 0;
	for (round = 0; round < req.cycles; round++) {
		if (signal_pending(current))
			break;
		cycle_once(&req, order, round);
		cond_resched();
	}
	unreserve(user, (unsigned long)req.batch << order);
	/* a signal before any block was allocated: nothing was done */
	if (!req.allocs && signal_pending(current))
		return -EINTR;
	return copy_to_user(argp, &req, sizeof(req)) ? -EFAULT : 0;
}

static long user_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct pcpcache_user *user = file->private_data;
	void __user *argp = (void __user *)arg;

	/*
	 * What is held is charged to the opener and checked against its
	 * limits: only the opener's process may take more (a child given
	 * the file, or the opener after exec, may free).
	 */
	if ((cmd == PCPCACHE_IOC_ALLOC || cmd == PCPCACHE_IOC_CYCLE) &&
	    current->mm != user->mm)
		return -EPERM;

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
