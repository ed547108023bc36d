// SPDX-License-Identifier: GPL-2.0
/*
 * pcpcache barn mode: SLUB's sheaves and barn (mm/slub.c, 6.18) for
 * pages, after Bonwick and Adams's magazine depot (2001). Each CPU has a
 * main and a spare magazine (its two lists); each node a barn of full
 * magazines, which a CPU whose magazines ran empty takes one from, and
 * one whose magazines are full gives one to, so that the pages one CPU
 * frees reach those that allocate one magazine at a time without the
 * buddy allocator. magazine.c has the rules; here are the barns, their
 * lock and the trim.
 *
 * Locking: a barn's spinlock guards its magazines. A CPU whose main ran
 * empty or over takes it under its own magazine's lock, with a trylock:
 * that path runs in any context, an NMI's _nolock() call among them, and
 * an NMI that waited for a barn its own CPU holds would wait for ever. A
 * barn found busy is not waited for: the CPU goes to the buddy allocator,
 * counted in barn_busy. Everything else (the trim, a drain, the shrinker,
 * a reconfiguration) takes a barn's lock on its own, interrupts off, and
 * never takes a magazine's lock under it. Blocks are given back to the
 * buddy allocator outside both locks.
 */
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/topology.h>
#include <linux/workqueue.h>

#include "barn.h"
#include "compat.h"
#include "pcpcache_trace.h"

struct pcpcache_barn {
	spinlock_t lock;		/* guards depot: see the top of the file */
	struct pcpcache_depot depot;
};

/* One per possible node, [nr_node_ids]; set at load, freed at unload. */
static struct pcpcache_barn **pcpcache_barns;

/*
 * Memory going offline: from MEM_GOING_OFFLINE to MEM_OFFLINE or
 * MEM_CANCEL_OFFLINE no magazine goes into or out of a barn. The offline
 * drain gives the barns back and then each CPU's magazines, one CPU after
 * another (under lock=local when each runs): a CPU not drained yet must
 * not hand pages of the range to one drained already through a barn.
 * The memory notifier (reclaim.c) opens only what it closed, one offline
 * at a time: this is 0 or 1.
 */
static atomic_t pcpcache_barns_closed = ATOMIC_INIT(0);

static void pcpcache_barn_trim_work_fn(struct work_struct *work);
static DECLARE_WORK(pcpcache_barn_trim_work, pcpcache_barn_trim_work_fn);
/* Queues the work every interval; set up by pcpcache_barns_init() */
static struct hrtimer pcpcache_barn_trim_timer;
/* Whether barn mode is in force, as pcpcache_barns_reconfigure() was told */
static bool pcpcache_barn_in_force;
/* The trim's interval in milliseconds, 0 for no timer */
static unsigned int pcpcache_barn_trim_ms =
	PCPCACHE_BARN_TRIM_SECS * MSEC_PER_SEC;
/*
 * Serializes what starts and stops the timer: a new interval and a
 * reconfiguration, each changing what the other reads. The timer
 * restarts itself without it; hrtimer_cancel() waits for that.
 */
static DEFINE_MUTEX(pcpcache_barn_trim_mutex);

/* Count and trace one exchange of @cpu's magazines of @order. */
static void pcpcache_barn_count(enum mag_barn_done done, unsigned int order)
{
	static const enum pcpcache_stat stat[] = {
		[MAG_BARN_SWAPPED] = PCPCACHE_BARN_SWAPS,
		[MAG_BARN_TOOK_FULL] = PCPCACHE_BARN_TOOK_FULL,
		[MAG_BARN_GAVE_FULL] = PCPCACHE_BARN_GAVE_FULL,
		[MAG_BARN_FLUSHED] = PCPCACHE_BARN_FLUSHES,
	};

	if (done == MAG_BARN_NONE)
		return;
	pcpcache_count(stat[done], 1);
	trace_pcpcache_barn(raw_smp_processor_id(), order, done);
}

/**
 * pcpcache_barn_refill - find blocks for this CPU's empty main magazine
 * @mag: this CPU's magazine, locked, in barn mode
 * @order: the order its main has none of
 *
 * The spare first, then a full magazine of this CPU's node's barn; the
 * barn is not locked when it has none to give.
 *
 * Return: true when main has blocks of @order now.
 */
bool pcpcache_barn_refill(struct pcpcache_mag *mag, unsigned int order)
{
	struct pcpcache_barn *b = pcpcache_barns[numa_mem_id()];
	enum mag_barn_done done;
	unsigned long flags;

	done = mag_barn_refill(mag, NULL, order);
	/*
	 * A peek without the lock: a stale 0 only means a refill from the
	 * buddy allocator, a stale count is read again under the lock.
	 */
	if (done == MAG_BARN_NONE && b && data_race(b->depot.nr_full[order]) &&
	    !atomic_read(&pcpcache_barns_closed)) {
		if (spin_trylock_irqsave(&b->lock, flags)) {
			done = mag_barn_refill(mag, &b->depot, order);
			spin_unlock_irqrestore(&b->lock, flags);
		} else {
			pcpcache_count(PCPCACHE_BARN_BUSY, 1);
		}
	}
	pcpcache_barn_count(done, order);
	return done != MAG_BARN_NONE;
}

/**
 * pcpcache_barn_overflow - make room in this CPU's main magazine
 * @mag: this CPU's magazine, locked, in barn mode, whose main went over
 * @order: the order of the free that took it over
 * @cut: where main's blocks go when neither spare nor barn takes them
 */
void pcpcache_barn_overflow(struct pcpcache_mag *mag, unsigned int order,
			    struct pcpcache_cut *cut)
{
	struct pcpcache_list *main_mag = &mag->lists[PCPCACHE_LIST_HOT];
	struct pcpcache_barn *b = pcpcache_barns[numa_mem_id()];
	enum mag_barn_done done;
	unsigned long flags;

	/* an empty spare takes main, and a main within its size stays */
	if (!mag->lists[PCPCACHE_LIST_COLD].nr[order] || !b ||
	    main_mag->nr[order] <= mag_batch(main_mag->batch, order) ||
	    atomic_read(&pcpcache_barns_closed)) {
		done = mag_barn_overflow(mag, NULL, order, cut);
	} else if (spin_trylock_irqsave(&b->lock, flags)) {
		done = mag_barn_overflow(mag, &b->depot, order, cut);
		spin_unlock_irqrestore(&b->lock, flags);
	} else {
		pcpcache_count(PCPCACHE_BARN_BUSY, 1);
		done = mag_barn_overflow(mag, NULL, order, cut);
	}
	pcpcache_barn_count(done, order);
}

/*
 * Do @op to the barn of node @nid (every barn for NUMA_NO_NODE) under its
 * lock, and give what it cut back after it, counted as @why. Return: the
 * base pages given back.
 */
static unsigned long pcpcache_barns_each(int nid,
					 void (*op)(struct pcpcache_depot *d,
						    struct pcpcache_cut *cut,
						    void *arg),
					 void *arg, enum pcpcache_drain_why why)
{
	unsigned long freed = 0;
	struct pcpcache_barn *b;
	struct pcpcache_cut cut;
	unsigned long flags;
	int n;

	if (!pcpcache_barns)
		return 0;
	for_each_node(n) {
		b = pcpcache_barns[n];
		if (!b || (nid != NUMA_NO_NODE && n != nid))
			continue;
		mag_cut_init(&cut);
		spin_lock_irqsave(&b->lock, flags);
		op(&b->depot, &cut, arg);
		spin_unlock_irqrestore(&b->lock, flags);
		freed += cut.count;
		pcpcache_give_back_drained(&cut, raw_smp_processor_id(), why);
	}
	return freed;
}

static void pcpcache_depot_trim(struct pcpcache_depot *d,
				struct pcpcache_cut *cut, void *arg)
{
	pcpcache_count(PCPCACHE_BARN_TRIMMED, mag_depot_trim(d, cut));
}

/*
 * Every interval while barn mode is in force: queue the trim on an
 * unbound worker, from hard interrupt context. A barn is no one CPU's,
 * so neither is its timer: not deferrable (a deferrable timer waits for
 * the CPU it sits on to wake, while other CPUs fill the barn), and not a
 * timer_list, whose callbacks run in that CPU's timer softirq. A
 * SCHED_FIFO task that never sleeps leaves that CPU's ksoftirqd, once
 * woken, never to run; up to 6.4 softirqs then wait for it (the revert
 * of "softirq: Let ksoftirqd do its job"), and on PREEMPT_RT timer
 * softirqs always run in a thread, which such a task starves (hence
 * _HARD, which PREEMPT_RT keeps in hard interrupt context). The cost is
 * a wakeup an interval on an idle machine in barn mode. It restarts
 * itself until pcpcache_barn_trim_stop(), or until it reads an interval
 * of 0, which a stop follows.
 */
static enum hrtimer_restart pcpcache_barn_trim_fire(struct hrtimer *timer)
{
	unsigned int ms = READ_ONCE(pcpcache_barn_trim_ms);

	queue_work(system_unbound_wq, &pcpcache_barn_trim_work);
	if (!ms)
		return HRTIMER_NORESTART;
	hrtimer_forward_now(timer, ms_to_ktime(ms));
	return HRTIMER_RESTART;
}

/*
 * Start the timer in barn mode with an interval, unless it runs already
 * (queued, or in its callback, which restarts it): a reconfiguration
 * does not put the next trim off.
 */
static void pcpcache_barn_trim_arm(void)
{
	unsigned int ms = READ_ONCE(pcpcache_barn_trim_ms);

	lockdep_assert_held(&pcpcache_barn_trim_mutex);
	if (ms && READ_ONCE(pcpcache_barn_in_force) &&
	    !hrtimer_active(&pcpcache_barn_trim_timer))
		hrtimer_start(&pcpcache_barn_trim_timer, ms_to_ktime(ms),
			      HRTIMER_MODE_REL_HARD);
}

/* Stop the timer and wait for the trim it queued */
static void pcpcache_barn_trim_stop(void)
{
	lockdep_assert_held(&pcpcache_barn_trim_mutex);
	hrtimer_cancel(&pcpcache_barn_trim_timer);
	cancel_work_sync(&pcpcache_barn_trim_work);
}

/**
 * pcpcache_barns_trim - give back what the barns did not need lately
 *
 * For each barn and order, the fewest full magazines it held since the
 * last trim go back. The timer's work, and debugfs's barn_trim; process
 * context.
 */
void pcpcache_barns_trim(void)
{
	pcpcache_barns_each(NUMA_NO_NODE, pcpcache_depot_trim, NULL,
			    PCPCACHE_DRAIN_TRIM);
}

/*
 * Every interval (PCPCACHE_BARN_TRIM_SECS unless barn_trim_ms says
 * otherwise) while barn mode is in force, on whichever CPU is free.
 */
static void pcpcache_barn_trim_work_fn(struct work_struct *work)
{
	pcpcache_barns_trim();
}

/**
 * pcpcache_barn_trim_interval - the trim's interval
 *
 * Return: milliseconds, 0 when no timer runs it.
 */
unsigned int pcpcache_barn_trim_interval(void)
{
	return READ_ONCE(pcpcache_barn_trim_ms);
}

/**
 * pcpcache_barn_set_trim_interval - how often the timer trims the barns
 * @ms: milliseconds, or 0 for never (a test then trims when it asks)
 *
 * In barn mode the next trim comes @ms from now; every write starts the
 * interval again.
 */
void pcpcache_barn_set_trim_interval(unsigned int ms)
{
	mutex_lock(&pcpcache_barn_trim_mutex);
	WRITE_ONCE(pcpcache_barn_trim_ms, ms);
	pcpcache_barn_trim_stop();
	pcpcache_barn_trim_arm();
	mutex_unlock(&pcpcache_barn_trim_mutex);
}

/* @arg: the base pages still wanted, less those this barn gives */
static void pcpcache_depot_give(struct pcpcache_depot *d,
				struct pcpcache_cut *cut, void *arg)
{
	unsigned long *want = arg;

	if (*want)
		*want -= min(*want, (unsigned long)mag_depot_cut(d,
				min(*want, (unsigned long)UINT_MAX), cut));
}

/**
 * pcpcache_barns_give_back - give a node's barn's pages back
 * @nid: the node, or NUMA_NO_NODE for every one
 * @nr: base pages wanted; whole magazines go, ULONG_MAX for all
 * @why: counted and traced as
 *
 * Return: the base pages given back.
 */
unsigned long pcpcache_barns_give_back(int nid, unsigned long nr,
				       enum pcpcache_drain_why why)
{
	return pcpcache_barns_each(nid, pcpcache_depot_give, &nr, why);
}

static void pcpcache_depot_reconfigure(struct pcpcache_depot *d,
				       struct pcpcache_cut *cut, void *arg)
{
	const struct pcpcache_config *cfg = arg;

	if (cfg->mode != PCPCACHE_MODE_BARN)
		mag_depot_cut(d, UINT_MAX, cut);
	mag_depot_reconfigure(d, cfg, cut);
}

/**
 * pcpcache_barns_reconfigure - put a new configuration in force in the barns
 * @cfg: the configuration, in force on every CPU already; or, before they
 *	 switch, the one they leave with the lower barn limits of both
 *	 (config.c)
 *
 * Outside barn mode no CPU gives a barn anything any more: what is left
 * goes back. In it, the magazines over a lowered limit, or larger than a
 * lowered batch makes them, go back, and the trim runs. The limits are
 * set in every mode, for the next switch. Process context.
 */
void pcpcache_barns_reconfigure(const struct pcpcache_config *cfg)
{
	mutex_lock(&pcpcache_barn_trim_mutex);
	WRITE_ONCE(pcpcache_barn_in_force, cfg->mode == PCPCACHE_MODE_BARN);
	pcpcache_barns_each(NUMA_NO_NODE, pcpcache_depot_reconfigure,
			    (void *)cfg, PCPCACHE_DRAIN_RECONFIG);
	if (cfg->mode == PCPCACHE_MODE_BARN)
		pcpcache_barn_trim_arm();
	else
		pcpcache_barn_trim_stop();
	mutex_unlock(&pcpcache_barn_trim_mutex);
}

/**
 * pcpcache_barns_close - no exchange with a barn until pcpcache_barns_open()
 *
 * For memory going offline, before its drain; each is paired with one
 * pcpcache_barns_open(), which the caller makes only after it. The caller
 * then waits for an RCU grace period, which exchanges under way (with
 * interrupts or preemption off, under a magazine's lock) end within.
 */
void pcpcache_barns_close(void)
{
	atomic_inc(&pcpcache_barns_closed);
}

/**
 * pcpcache_barns_open - exchanges with the barns again
 */
void pcpcache_barns_open(void)
{
	/* an open without its close would close the barns for good */
	WARN_ON_ONCE(atomic_dec_return(&pcpcache_barns_closed) < 0);
}

/**
 * pcpcache_barn_pages - the pages in a node's barn, or in all
 * @nid: the node, or NUMA_NO_NODE
 *
 * Return: the base pages, read without the barns' locks.
 */
unsigned long pcpcache_barn_pages(int nid)
{
	unsigned long sum = 0;
	int n;

	if (!pcpcache_barns)
		return 0;
	for_each_node(n)
		if (pcpcache_barns[n] && (nid == NUMA_NO_NODE || n == nid))
			sum += READ_ONCE(pcpcache_barns[n]->depot.pages);
	return sum;
}

/**
 * pcpcache_barns_audit - count the pages in every barn by walking them
 * @walked: the base pages found on the magazines' lists, added to
 * @counted: what the barns' counts say, added to
 * @wrong: magazines whose count disagrees with their list, added to
 *
 * For the audit (debugfs.c), with every CPU stopped.
 *
 * Return: 0, or -EAGAIN when a barn was found locked.
 */
int pcpcache_barns_audit(unsigned long *walked, unsigned long *counted,
			 unsigned long *wrong)
{
	struct pcpcache_depot *d;
	struct pcpcache_barn *b;
	unsigned int order, i, nr;
	struct list_head *node;
	int nid;

	for_each_node(nid) {
		b = pcpcache_barns[nid];
		if (!b)
			continue;
		if (!spin_trylock(&b->lock))
			return -EAGAIN;
		d = &b->depot;
		for (order = 0; order < PCPCACHE_NR_ORDERS; order++) {
			for (i = 0; i < d->nr_full[order]; i++) {
				nr = 0;
				list_for_each(node, &d->full[order][i])
					nr++;
				if (nr != d->full_blocks[order][i])
					(*wrong)++;
				*walked += (unsigned long)nr << order;
			}
			for (; i < PCPCACHE_BARN_MAX; i++)
				if (!list_empty(&d->full[order][i]))
					(*wrong)++;
		}
		*counted += d->pages;
		spin_unlock(&b->lock);
	}
	return 0;
}

/**
 * pcpcache_barns_init - give every possible node an empty barn
 * @cfg: the configuration at load, checked
 *
 * Return: 0, or -ENOMEM.
 */
int pcpcache_barns_init(const struct pcpcache_config *cfg)
{
	struct pcpcache_barn *b;
	int nid;

	BUILD_BUG_ON(PCPCACHE_NR_BARN_ORDERS != PCPCACHE_NR_ORDERS);
	pcpcache_hrtimer_setup(&pcpcache_barn_trim_timer,
			       pcpcache_barn_trim_fire, CLOCK_MONOTONIC,
			       HRTIMER_MODE_REL_HARD);
	pcpcache_barns = kcalloc(nr_node_ids, sizeof(*pcpcache_barns),
				 GFP_KERNEL);
	if (!pcpcache_barns)
		return -ENOMEM;
	for_each_node(nid) {
		b = kzalloc_node(sizeof(*b), GFP_KERNEL, nid);
		if (!b) {
			pcpcache_barns_exit();
			return -ENOMEM;
		}
		spin_lock_init(&b->lock);
		mag_depot_init(&b->depot, cfg);
		pcpcache_barns[nid] = b;
	}
	mutex_lock(&pcpcache_barn_trim_mutex);
	pcpcache_barn_in_force = cfg->mode == PCPCACHE_MODE_BARN;
	pcpcache_barn_trim_arm();
	mutex_unlock(&pcpcache_barn_trim_mutex);
	return 0;
}

/**
 * pcpcache_barns_exit - free the barns, after the last drain
 *
 * Nothing is in a barn by then, or it goes back here.
 */
void pcpcache_barns_exit(void)
{
	int nid;

	/* NULL: pcpcache_barns_init() did not run, or found no memory */
	if (!pcpcache_barns)
		return;
	mutex_lock(&pcpcache_barn_trim_mutex);
	pcpcache_barn_trim_stop();
	mutex_unlock(&pcpcache_barn_trim_mutex);
	pcpcache_barns_give_back(NUMA_NO_NODE, ULONG_MAX,
				 PCPCACHE_DRAIN_REQUEST);
	for_each_node(nid)
		kfree(pcpcache_barns[nid]);
	kfree(pcpcache_barns);
	pcpcache_barns = NULL;
}
