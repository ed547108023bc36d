// SPDX-License-Identifier: GPL-2.0
/*
 * pcpcache_api_test: calls pcpcache's exported API from process, softirq
 * and hardirq context on every online CPU at once, for the selftest
 * api_contexts (selftests/pcpcache/). Loading runs the test for "seconds"
 * and fails with -EIO if anything went wrong; the counts it leaves in its
 * read-only parameters tell the selftest every context was exercised.
 *
 * Blocks of orders 0 to 3 are taken, order 0 mostly. Every page is filled
 * with a pattern before it is freed, so that an allocation that must come
 * back cleared (__GFP_ZERO, or any allocation under init_on_alloc or
 * init_on_free) and does not is caught. Each hard interrupt also hands a
 * block of the next order (0 to 3 in turn) to the next CPU's, which frees
 * it there: in remote and blocks mode it goes home, and comes back to the
 * allocating CPU's own allocations through its transit list.
 *
 * With nolock=1 the hard interrupt also calls the _nolock() API, hands a
 * page to the next CPU and sends that CPU an NMI, whose handler allocates
 * and frees with the _nolock() API too, and frees the page it was handed
 * with it: frees on another CPU than the one that allocated, from NMI
 * context, at any point of that CPU's own traffic.
 *
 * With nolock_frees=N it does only this instead: on each online CPU, from
 * process context, take N pages with pcpcache_alloc_page() and give them
 * all back with pcpcache_free_page_nolock(), for the selftest to find
 * every magazine within its high mark afterwards.
 *
 * With dying_frees=N and dying_cpu=C it does only this instead: take N
 * pages, and stay loaded with a kprobe on smpcfd_dying_cpu(), through
 * which CPU C, when it goes down, frees them with
 * pcpcache_free_page_nolock(), interrupts off, its irq_work about to run
 * for the last time: the frees pcpcache defers there must not be lost
 * with the CPU, nor keep the unload waiting.
 */
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/string.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <linux/llist.h>
#include <linux/pcpcache.h>

#include "../compat.h"

#include <asm/apic.h>
#include <asm/nmi.h>

/* Pages a context keeps between its runs, to free them a tick later. */
#define HELD_PER_CONTEXT	8

static unsigned int seconds = 3;
module_param(seconds, uint, 0444);
MODULE_PARM_DESC(seconds, "how long to run at load (default 3)");

static bool nolock;
module_param(nolock, bool, 0444);
MODULE_PARM_DESC(nolock, "also the _nolock() API, from hard interrupts and NMIs");

/* Results, readable in /sys/module/pcpcache_api_test/parameters/. */
static atomic_long_t process_pages, softirq_pages, hardirq_pages;
static atomic_long_t failed_allocs, dirty_pages;
static atomic_long_t nolock_hardirq_pages, nolock_nmi_pages, nolock_failed;
static atomic_long_t nmis, nmi_handed_frees;
static atomic_long_t nolock_freed;
/* hrtimer ticks on a CPU not the timer's own; CPUs whose timer never ran */
static atomic_long_t foreign_ticks, quiet_cpus;
/* blocks a hard interrupt handed to the next CPU's, to free there */
static atomic_long_t handed_blocks;

static int counter_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(kp->arg));
}

static const struct kernel_param_ops counter_ops = {
	.get = counter_get,
};

module_param_cb(process_pages, &counter_ops, &process_pages, 0444);
module_param_cb(softirq_pages, &counter_ops, &softirq_pages, 0444);
module_param_cb(hardirq_pages, &counter_ops, &hardirq_pages, 0444);
module_param_cb(failed_allocs, &counter_ops, &failed_allocs, 0444);
module_param_cb(dirty_pages, &counter_ops, &dirty_pages, 0444);
module_param_cb(nolock_hardirq_pages, &counter_ops, &nolock_hardirq_pages, 0444);
module_param_cb(nolock_nmi_pages, &counter_ops, &nolock_nmi_pages, 0444);
module_param_cb(nolock_failed, &counter_ops, &nolock_failed, 0444);
module_param_cb(nmis, &counter_ops, &nmis, 0444);
module_param_cb(nmi_handed_frees, &counter_ops, &nmi_handed_frees, 0444);
module_param_cb(foreign_ticks, &counter_ops, &foreign_ticks, 0444);
module_param_cb(quiet_cpus, &counter_ops, &quiet_cpus, 0444);
module_param_cb(nolock_freed, &counter_ops, &nolock_freed, 0444);
module_param_cb(handed_blocks, &counter_ops, &handed_blocks, 0444);

static unsigned int nolock_frees;
module_param(nolock_frees, uint, 0444);
MODULE_PARM_DESC(nolock_frees, "only free this many pages with the _nolock() API on each CPU");

static unsigned int dying_frees;
module_param(dying_frees, uint, 0444);
MODULE_PARM_DESC(dying_frees, "only free this many pages with the _nolock() API on dying_cpu as it dies");
static int dying_cpu = -1;
module_param(dying_cpu, int, 0444);
MODULE_PARM_DESC(dying_cpu, "the CPU of dying_frees");

/* Blocks one context holds, and their orders; only that context touches it. */
struct held {
	struct page *pages[HELD_PER_CONTEXT];
	unsigned int order[HELD_PER_CONTEXT];
	unsigned int nr;
};

struct api_cpu {
	struct hrtimer hrtimer;		/* hardirq (softirq on PREEMPT_RT) */
	struct timer_list timer;	/* softirq */
	struct task_struct *thread;	/* process context */
	struct held hard, soft;
	struct held hard_nolock, nmi;	/* nolock=1 */
	struct llist_head handed;	/* pages for this CPU's NMI to free */
	struct llist_head handed_blocks; /* for this CPU's hrtimer to free */
	unsigned int hand_order;	/* of the next block it hands on */
	atomic_t nmi_asked;		/* an NMI sent to this CPU, not yet seen */
	u64 nmi_quiet_until;		/* no NMI to send it before (ktime ns) */
	unsigned int ticks;		/* of its hrtimer, for the NMIs it sends */
	unsigned long hard_ticks;	/* of its hrtimer, on this CPU */
	bool stop;
};

static DEFINE_PER_CPU(struct api_cpu, api_cpus);
static struct cpumask started;

/* Free what @held holds, filled with a pattern first. */
static void give_back(struct held *held, bool cold)
{
	unsigned int i;

	for (i = 0; i < held->nr; i++) {
		memset(page_address(held->pages[i]), 0xa5,
		       PAGE_SIZE << held->order[i]);
		if (held->order[i])
			pcpcache_free_pages(held->pages[i], held->order[i], cold);
		else
			pcpcache_free_page(held->pages[i], cold);
	}
	held->nr = 0;
}

/*
 * Take a few blocks, order 0 mostly, up to 3 now and then; check zeroing;
 * give back the ones held from before.
 */
static void exercise(struct held *held, gfp_t gfp, atomic_long_t *count)
{
	unsigned int i, order, nr = get_random_u32_below(HELD_PER_CONTEXT) + 1;
	bool cold = get_random_u32_below(2);
	struct page *page;

	give_back(held, cold);
	for (i = 0; i < nr; i++) {
		gfp_t this_gfp = gfp | (get_random_u32_below(2) ? __GFP_ZERO : 0);
		bool must_be_clear = want_init_on_alloc(this_gfp) ||
				     want_init_on_free();

		order = get_random_u32_below(4) ? 0 : get_random_u32_below(4);
		page = order ? pcpcache_alloc_pages(this_gfp, order, cold) :
			       pcpcache_alloc_page(this_gfp, cold);
		if (!page) {
			atomic_long_inc(&failed_allocs);
			continue;
		}
		if (must_be_clear &&
		    memchr_inv(page_address(page), 0, PAGE_SIZE << order))
			atomic_long_inc(&dirty_pages);
		held->order[held->nr] = order;
		held->pages[held->nr++] = page;
	}
	atomic_long_add(held->nr, count);
}

static void release(struct held *held)
{
	give_back(held, false);
}

/*
 * How many pages a _nolock() round takes: not from get_random_*(), whose
 * lock NMI context may not take; from a counter of the rounds instead.
 */
static DEFINE_PER_CPU(unsigned int, nolock_rounds);

/* The _nolock() API: free what @held holds, then take a few pages. */
static void exercise_nolock(struct held *held, atomic_long_t *count)
{
	unsigned int i, nr = this_cpu_inc_return(nolock_rounds) % HELD_PER_CONTEXT + 1;
	bool clear = want_init_on_alloc(GFP_NOWAIT) || want_init_on_free();
	struct page *page;

	for (i = 0; i < held->nr; i++) {
		memset(page_address(held->pages[i]), 0xa5, PAGE_SIZE);
		pcpcache_free_page_nolock(held->pages[i]);
	}
	held->nr = 0;
	for (i = 0; i < nr; i++) {
		page = pcpcache_alloc_page_nolock(false);
		if (!page) {
			atomic_long_inc(&nolock_failed);
			continue;
		}
		if (clear && memchr_inv(page_address(page), 0, PAGE_SIZE))
			atomic_long_inc(&dirty_pages);
		held->order[held->nr] = 0;
		held->pages[held->nr++] = page;
	}
	atomic_long_add(held->nr, count);
}

/* Free what was handed to this CPU's NMI, with @free. */
static void free_handed(struct api_cpu *ac, void (*free)(struct page *page))
{
	struct llist_node *node, *next;

	llist_for_each_safe(node, next, llist_del_all(&ac->handed)) {
		free(list_entry((struct list_head *)node, struct page, lru));
		atomic_long_inc(&nmi_handed_frees);
	}
}

static void free_page_hot(struct page *page)
{
	pcpcache_free_page(page, false);
}

static int nmi_fn(unsigned int type, struct pt_regs *regs)
{
	struct api_cpu *ac = this_cpu_ptr(&api_cpus);
	u64 start = ktime_get_mono_fast_ns(), now;

	/* ours, if one was sent: not someone else's NMI */
	if (atomic_dec_if_positive(&ac->nmi_asked) < 0)
		return NMI_DONE;
	atomic_long_inc(&nmis);
	if (READ_ONCE(ac->stop))
		return NMI_HANDLED;
	exercise_nolock(&ac->nmi, &nolock_nmi_pages);
	free_handed(ac, pcpcache_free_page_nolock);
	/*
	 * As the hrtimer's ticks: at least four times this NMI's work before
	 * the next. On the debug kernel an NMI takes milliseconds, and one
	 * every fourth tick of the sender's kept this CPU in NMIs.
	 */
	now = ktime_get_mono_fast_ns();
	WRITE_ONCE(ac->nmi_quiet_until, now + 4 * (now - start));
	return NMI_HANDLED;
}

/*
 * Hand a page of this hard interrupt's (from the API every design serves
 * here) to @cpu's NMI, which frees it with the _nolock() API, and send it
 * one every NMI_EVERY ticks, unless one is still on its way: on a debug
 * kernel under TCG an NMI takes milliseconds, and one every tick from
 * every CPU kept a CPU in NMIs for good (an RCU stall in the debug lane).
 */
#define NMI_EVERY	4

static void hand_to_nmi(struct api_cpu *ac, int cpu)
{
	struct api_cpu *next = per_cpu_ptr(&api_cpus, cpu);
	struct page *page = pcpcache_alloc_page(GFP_ATOMIC | __GFP_NOWARN, false);

	if (page)
		llist_add((struct llist_node *)&page->lru, &next->handed);
	else
		atomic_long_inc(&failed_allocs);
	if (++ac->ticks % NMI_EVERY)
		return;
	if (ktime_get_mono_fast_ns() < READ_ONCE(next->nmi_quiet_until))
		return;
	if (atomic_cmpxchg(&next->nmi_asked, 0, 1) == 0)
		apic->send_IPI_mask(cpumask_of(cpu), NMI_VECTOR);
}

/*
 * Hand a block of the next order to @cpu's hard interrupt, which frees it
 * there: a free on another CPU than the allocation's, of every order. The
 * block's order rides in page->private, ours while it is handed out.
 */
static void hand_block(struct api_cpu *ac, int cpu)
{
	unsigned int order = ac->hand_order++ % 4;
	struct page *page;

	page = order ? pcpcache_alloc_pages(GFP_ATOMIC | __GFP_NOWARN, order, false) :
		       pcpcache_alloc_page(GFP_ATOMIC | __GFP_NOWARN, false);
	if (!page) {
		atomic_long_inc(&failed_allocs);
		return;
	}
	memset(page_address(page), 0xa5, PAGE_SIZE << order);
	set_page_private(page, order);
	llist_add((struct llist_node *)&page->lru,
		  &per_cpu_ptr(&api_cpus, cpu)->handed_blocks);
	atomic_long_inc(&handed_blocks);
}

/* Free the blocks handed to @ac's CPU. */
static void free_handed_blocks(struct api_cpu *ac)
{
	struct llist_node *node, *next;
	unsigned int order;
	struct page *page;

	llist_for_each_safe(node, next, llist_del_all(&ac->handed_blocks)) {
		page = list_entry((struct list_head *)node, struct page, lru);
		order = page_private(page);
		set_page_private(page, 0);
		pcpcache_free_pages(page, order, false);
	}
}

/*
 * The hrtimer's period after a tick's work, and at least four times what
 * that work took, so that a CPU spends at most a fifth of its time there:
 * under TCG a tick's pages (up to eight, of order up to 3, filled and
 * checked byte by byte) can outlast 500 us, and a timer forwarded by less
 * is due again as it returns, so that its CPU never left hard interrupts
 * (an RCU stall in the stock lane too, once each CPU had its own timer).
 */
#define HARDIRQ_PERIOD_NS	(500 * NSEC_PER_USEC)

static enum hrtimer_restart hardirq_fn(struct hrtimer *t)
{
	struct api_cpu *ac = container_of(t, struct api_cpu, hrtimer);
	u64 start = ktime_get_ns(), now;

	if (ac == this_cpu_ptr(&api_cpus))
		ac->hard_ticks++;
	else
		atomic_long_inc(&foreign_ticks);
	exercise(&ac->hard, GFP_ATOMIC | __GFP_NOWARN, &hardirq_pages);
	free_handed_blocks(ac);
	if (cpumask_weight(&started) > 1)
		hand_block(ac, pcpcache_cpumask_next_wrap(smp_processor_id(), &started));
	if (nolock) {
		exercise_nolock(&ac->hard_nolock, &nolock_hardirq_pages);
		hand_to_nmi(ac, pcpcache_cpumask_next_wrap(smp_processor_id(), &started));
	}
	if (READ_ONCE(ac->stop))
		return HRTIMER_NORESTART;
	/* from now, not from when it was due: a late tick must not bunch up */
	now = ktime_get_ns();
	hrtimer_set_expires(t, ns_to_ktime(now + max_t(u64, HARDIRQ_PERIOD_NS,
						       4 * (now - start))));
	return HRTIMER_RESTART;
}

static void softirq_fn(struct timer_list *t)
{
	struct api_cpu *ac = pcpcache_from_timer(ac, t, timer);

	exercise(&ac->soft, GFP_ATOMIC | __GFP_NOWARN, &softirq_pages);
	if (!READ_ONCE(ac->stop))
		mod_timer(&ac->timer, jiffies + 1);
}

static int process_fn(void *data)
{
	struct held held = { };

	while (!kthread_should_stop()) {
		exercise(&held, GFP_KERNEL, &process_pages);
		cond_resched();
	}
	release(&held);
	return 0;
}

static void stop_cpu(int cpu)
{
	struct api_cpu *ac = per_cpu_ptr(&api_cpus, cpu);

	WRITE_ONCE(ac->stop, true);
	if (ac->thread)
		kthread_stop(ac->thread);
	hrtimer_cancel(&ac->hrtimer);
	pcpcache_timer_delete_sync(&ac->timer);
	if (!ac->hard_ticks)
		atomic_long_inc(&quiet_cpus);
	/* the handlers are done: free what they held, from here */
	release(&ac->hard);
	release(&ac->soft);
}

/* Once no timer sends NMIs any more: what the NMIs held or were handed. */
static void release_nmi(int cpu)
{
	struct api_cpu *ac = per_cpu_ptr(&api_cpus, cpu);

	release(&ac->hard_nolock);
	release(&ac->nmi);
	free_handed(ac, free_page_hot);
}

/*
 * Arm the hrtimer of @info, this CPU's: hrtimer_start() pins a timer to
 * the CPU that calls it, not to the one it is for. Armed from the loading
 * CPU, every CPU's timer ran there, none elsewhere, and on the debug
 * kernel that CPU spent all its time in them (an RCU stall in the debug
 * lane, insmod on it never reaching its msleep()).
 */
static void arm_hrtimer(void *info)
{
	struct api_cpu *ac = info;

	hrtimer_start(&ac->hrtimer, ns_to_ktime(HARDIRQ_PERIOD_NS),
		      HRTIMER_MODE_REL_PINNED);
}

static int start_cpu(int cpu)
{
	struct api_cpu *ac = per_cpu_ptr(&api_cpus, cpu);

	pcpcache_hrtimer_setup(&ac->hrtimer, hardirq_fn, CLOCK_MONOTONIC,
			       HRTIMER_MODE_REL_PINNED);
	timer_setup(&ac->timer, softirq_fn, TIMER_PINNED);
	ac->thread = kthread_create_on_cpu(process_fn, NULL, cpu,
					   "pcpcache_api/%u");
	if (IS_ERR(ac->thread)) {
		int err = PTR_ERR(ac->thread);

		ac->thread = NULL;
		return err;
	}
	wake_up_process(ac->thread);
	smp_call_function_single(cpu, arm_hrtimer, ac, true);
	/* add_timer_on() arms it on @cpu */
	ac->timer.expires = jiffies + 1;
	add_timer_on(&ac->timer, cpu);
	return 0;
}

/*
 * On the CPU of the work item that runs it: take nolock_frees pages, then
 * free them all with pcpcache_free_page_nolock(). Return: how many.
 */
static long free_nolock_fn(void *arg)
{
	struct page *page, *next;
	LIST_HEAD(pages);
	long nr = 0;

	while (nr < nolock_frees) {
		page = pcpcache_alloc_page(GFP_KERNEL | __GFP_NOWARN, false);
		if (!page)
			break;
		list_add(&page->lru, &pages);
		nr++;
	}
	list_for_each_entry_safe(page, next, &pages, lru) {
		list_del(&page->lru);
		pcpcache_free_page_nolock(page);
	}
	return nr;
}

/* dying_frees=N: the pages, and whether the dying CPU freed them */
static LIST_HEAD(dying_pages);
static atomic_t dying_done;

/* smpcfd_dying_cpu(cpu), on the CPU going down, interrupts off */
static int dying_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct page *page, *next;

	if (smp_processor_id() != dying_cpu || atomic_xchg(&dying_done, 1))
		return 0;
	list_for_each_entry_safe(page, next, &dying_pages, lru) {
		list_del(&page->lru);
		pcpcache_free_page_nolock(page);
		atomic_long_inc(&nolock_freed);
	}
	return 0;
}

static struct kprobe dying_kp = {
	.symbol_name = "smpcfd_dying_cpu",
	.pre_handler = dying_pre,
};

/* What the dying CPU did not free (it never went down): back now. */
static void free_dying_pages(void)
{
	struct page *page, *next;

	list_for_each_entry_safe(page, next, &dying_pages, lru) {
		list_del(&page->lru);
		pcpcache_free_page(page, false);
	}
}

static int free_nolock_when_dying(void)
{
	struct page *page;
	unsigned int i;
	int err;

	if (dying_cpu < 0 || dying_cpu >= nr_cpu_ids)
		return -EINVAL;
	for (i = 0; i < dying_frees; i++) {
		page = pcpcache_alloc_page(GFP_KERNEL | __GFP_NOWARN, false);
		if (!page)
			break;
		list_add(&page->lru, &dying_pages);
	}
	err = register_kprobe(&dying_kp);
	if (err) {
		pr_err("no kprobe on smpcfd_dying_cpu: %d\n", err);
		free_dying_pages();
	}
	return err;
}

/* nolock_frees=N: free_nolock_fn() on every online CPU, one at a time. */
static int free_nolock_every_cpu(void)
{
	int cpu;

	cpus_read_lock();
	for_each_online_cpu(cpu)
		atomic_long_add(work_on_cpu(cpu, free_nolock_fn, NULL),
				&nolock_freed);
	cpus_read_unlock();
	pr_info("nolock: %ld pages freed on %u CPUs\n",
		atomic_long_read(&nolock_freed), num_online_cpus());
	return 0;
}

static int __init api_test_init(void)
{
	int cpu, err = 0;

	if (nolock_frees)
		return free_nolock_every_cpu();
	if (dying_frees)
		return free_nolock_when_dying();

	if (nolock) {
		err = register_nmi_handler(NMI_LOCAL, nmi_fn, 0, "pcpcache_api_test");
		if (err)
			return err;
	}
	/* no CPU may come or go while its timers and thread run */
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		/*
		 * Before its hrtimer is armed: hardirq_fn() finds the next CPU
		 * in @started, and cpumask_next_wrap() never returns on an empty
		 * mask (a first tick during start_cpu() on the loading CPU hung
		 * there, an RCU stall in the debug lane).
		 */
		cpumask_set_cpu(cpu, &started);
		err = start_cpu(cpu);
		if (err)
			break;
	}
	if (!err)
		msleep(seconds * 1000);
	for_each_cpu(cpu, &started)
		stop_cpu(cpu);
	/* every hrtimer is done: what they handed on and was not freed */
	for_each_cpu(cpu, &started)
		free_handed_blocks(per_cpu_ptr(&api_cpus, cpu));
	if (nolock) {
		/* an NMI sent before the last timer stopped has arrived by now */
		msleep(20);
		unregister_nmi_handler(NMI_LOCAL, "pcpcache_api_test");
		for_each_cpu(cpu, &started)
			release_nmi(cpu);
	}
	cpus_read_unlock();

	pr_info("%ld process, %ld softirq, %ld hardirq pages; %ld failed allocations, %ld dirty zeroed pages; %ld hrtimer ticks off their CPU, %ld CPUs without one\n",
		atomic_long_read(&process_pages),
		atomic_long_read(&softirq_pages),
		atomic_long_read(&hardirq_pages),
		atomic_long_read(&failed_allocs),
		atomic_long_read(&dirty_pages),
		atomic_long_read(&foreign_ticks),
		atomic_long_read(&quiet_cpus));
	if (nolock)
		pr_info("nolock: %ld hardirq, %ld NMI pages, %ld failed; %ld NMIs, %ld pages handed to them\n",
			atomic_long_read(&nolock_hardirq_pages),
			atomic_long_read(&nolock_nmi_pages),
			atomic_long_read(&nolock_failed),
			atomic_long_read(&nmis),
			atomic_long_read(&nmi_handed_frees));
	if (err)
		return err;
	return atomic_long_read(&dirty_pages) ? -EIO : 0;
}

static void __exit api_test_exit(void)
{
	if (dying_frees) {
		unregister_kprobe(&dying_kp);
		free_dying_pages();
	}
}

module_init(api_test_init);
module_exit(api_test_exit);

MODULE_DESCRIPTION("Exercise pcpcache's API from every context");
MODULE_AUTHOR("The pcpcache developers");
MODULE_LICENSE("GPL");
