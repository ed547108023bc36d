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
 * init_on_free) and does not is caught.
 */
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/string.h>
#include <linux/timer.h>
#include <linux/pcpcache.h>

/* Pages a context keeps between its runs, to free them a tick later. */
#define HELD_PER_CONTEXT	8

static unsigned int seconds = 3;
module_param(seconds, uint, 0444);
MODULE_PARM_DESC(seconds, "how long to run at load (default 3)");

/* Results, readable in /sys/module/pcpcache_api_test/parameters/. */
static atomic_long_t process_pages, softirq_pages, hardirq_pages;
static atomic_long_t failed_allocs, dirty_pages;

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

static enum hrtimer_restart hardirq_fn(struct hrtimer *t)
{
	struct api_cpu *ac = container_of(t, struct api_cpu, hrtimer);

	exercise(&ac->hard, GFP_ATOMIC | __GFP_NOWARN, &hardirq_pages);
	if (READ_ONCE(ac->stop))
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, ns_to_ktime(500 * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

static void softirq_fn(struct timer_list *t)
{
	struct api_cpu *ac = from_timer(ac, t, timer);

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
	del_timer_sync(&ac->timer);
	/* the handlers are done: free what they held, from here */
	release(&ac->hard);
	release(&ac->soft);
}

static int start_cpu(int cpu)
{
	struct api_cpu *ac = per_cpu_ptr(&api_cpus, cpu);

	hrtimer_init(&ac->hrtimer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED);
	ac->hrtimer.function = hardirq_fn;
	timer_setup(&ac->timer, softirq_fn, TIMER_PINNED);
	ac->thread = kthread_create_on_cpu(process_fn, NULL, cpu,
					   "pcpcache_api/%u");
	if (IS_ERR(ac->thread)) {
		int err = PTR_ERR(ac->thread);

		ac->thread = NULL;
		return err;
	}
	wake_up_process(ac->thread);
	hrtimer_start(&ac->hrtimer, ns_to_ktime(500 * NSEC_PER_USEC), HRTIMER_MODE_REL_PINNED);
	/* add_timer_on() arms it on @cpu */
	ac->timer.expires = jiffies + 1;
	add_timer_on(&ac->timer, cpu);
	return 0;
}

static int __init api_test_init(void)
{
	int cpu, err = 0;

	/* no CPU may come or go while its timers and thread run */
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		err = start_cpu(cpu);
		cpumask_set_cpu(cpu, &started);
		if (err)
			break;
	}
	if (!err)
		msleep(seconds * 1000);
	for_each_cpu(cpu, &started)
		stop_cpu(cpu);
	cpus_read_unlock();

	pr_info("%ld process, %ld softirq, %ld hardirq pages; %ld failed allocations, %ld dirty zeroed pages\n",
		atomic_long_read(&process_pages),
		atomic_long_read(&softirq_pages),
		atomic_long_read(&hardirq_pages),
		atomic_long_read(&failed_allocs),
		atomic_long_read(&dirty_pages));
	if (err)
		return err;
	return atomic_long_read(&dirty_pages) ? -EIO : 0;
}

static void __exit api_test_exit(void)
{
}

module_init(api_test_init);
module_exit(api_test_exit);

MODULE_DESCRIPTION("Exercise pcpcache's API from every context");
MODULE_AUTHOR("The pcpcache developers");
MODULE_LICENSE("GPL");
