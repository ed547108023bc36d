/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcpcache locking: the seam between the three designs a magazine can be
 * protected by, chosen at load with the "lock" parameter. Only "lock this
 * CPU's magazine" (here) and "act on another CPU's magazine" (request.c)
 * differ; the fast path, the magazines and the counters are shared.
 *
 * lock=local, the kernel's design before 6.0 (pagesets.lock): a
 * local_lock_t that only the owning CPU ever takes. Without PREEMPT_RT it
 * is local_irq_save() and nothing else, so a hit costs no atomic
 * instruction. Another CPU never touches the magazine of a CPU that runs:
 * it asks that CPU to act, through work queued there (request.c).
 *
 * lock=spin, the kernel's design from 6.0 ("mm/page_alloc: protect PCP
 * lists with a spinlock"): a spinlock_t in each magazine. The owning CPU
 * pins itself and takes it with interrupts off, so that an interrupt on
 * the same CPU cannot re-enter the fast path while it holds the lock; no
 * trylock is needed for that. Any other CPU takes the same lock to drain,
 * shrink or reconfigure the magazine directly, without waiting for the
 * owner to run. The fast path pays one uncontended atomic for it.
 *
 * lock=trylock, the kernel's scheme after Vlastimil Babka's "pcp locking
 * cleanup" (February 2026): the same spinlock, which the owning CPU takes
 * by trylock only and without disabling interrupts; an interrupt that
 * finds it held, or a CPU that finds it held by a drain from another,
 * fails the trylock and is served by (or frees to) the buddy allocator,
 * counted by context (trylock_fail_*). No context ever waits for the lock
 * on its own CPU, so none can deadlock on it. Other CPUs reach the
 * magazine as under lock=spin, with interrupts off; so do the work items
 * of this CPU (pcpcache_lock_this_cpu_wait()), which only process context
 * runs and which no trylock on the CPU can interrupt while holding it.
 *
 * On PREEMPT_RT all three are a sleeping lock taken with migration
 * disabled, and interrupts stay on: callers from hard interrupt context
 * that is not threaded are not allowed there, as with the page allocator.
 */
#ifndef _PCPCACHE_LOCK_H
#define _PCPCACHE_LOCK_H

#include <linux/atomic.h>
#include <linux/jump_label.h>
#include <linux/llist.h>
#include <linux/local_lock.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/hardirq.h>
#include <linux/spinlock.h>

#include "blocks.h"
#include "magazine.h"
#include "stats.h"

/*
 * In transit (remote mode, owner.c): blocks freed on other CPUs, pushed by
 * them without a lock and taken all at once by whoever absorbs them. On a
 * cache line of its own, which the freeing CPUs write.
 */
struct pcpcache_transit {
	struct llist_head blocks;
	atomic_t pages;		/* base pages on @blocks */
} ____cacheline_aligned_in_smp;

struct pcpcache_cpu {
	local_lock_t llock;	/* lock=local: protects mag, owner only */
	spinlock_t slock;	/* lock=spin: protects mag, any CPU */
	struct pcpcache_mag mag;
	struct pcpcache_transit transit;
	struct pcpcache_reserve reserve;	/* blocks mode: its own lock */
};

DECLARE_PER_CPU_ALIGNED(struct pcpcache_cpu, pcpcache_cpus);

/*
 * Set once at load, before any magazine is used: pcpcache_lock_spin when
 * another CPU may take a magazine's spinlock (lock=spin and lock=trylock),
 * pcpcache_lock_try as well for lock=trylock.
 */
DECLARE_STATIC_KEY_FALSE(pcpcache_lock_spin);
DECLARE_STATIC_KEY_FALSE(pcpcache_lock_try);

static inline bool pcpcache_spin_design(void)
{
	return static_branch_unlikely(&pcpcache_lock_spin);
}

static inline bool pcpcache_try_design(void)
{
	return static_branch_unlikely(&pcpcache_lock_try);
}

/* Count a failed trylock by the context it failed in. */
static inline void pcpcache_count_trylock_fail(void)
{
	enum pcpcache_stat why = PCPCACHE_TRYLOCK_FAIL_TASK;

	if (in_nmi())
		why = PCPCACHE_TRYLOCK_FAIL_NMI;
	else if (in_hardirq())
		why = PCPCACHE_TRYLOCK_FAIL_HARDIRQ;
	else if (in_serving_softirq())
		why = PCPCACHE_TRYLOCK_FAIL_SOFTIRQ;
	pcpcache_count(why, 1);
}

/* Keep the task on its CPU, as mm/page_alloc.c's pcpu_task_pin() does. */
static __always_inline void pcpcache_pin(void)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		migrate_disable();
	else
		preempt_disable();
}

static __always_inline void pcpcache_unpin(void)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		migrate_enable();
	else
		preempt_enable();
}

/**
 * pcpcache_lock_this_cpu - lock the magazine of the CPU we run on
 * @flags: the saved interrupt state, for pcpcache_unlock_this_cpu()
 *
 * Under lock=trylock the lock may be held (see above): then nothing is
 * locked, the failure is counted and the caller goes to the buddy
 * allocator. For sparse, a failure counts as taking the lock, which the
 * caller gives up with pcpcache_lock_failed().
 *
 * Return: this CPU's magazine, locked, with the task pinned to the CPU;
 * NULL under lock=trylock when the trylock failed.
 */
static __always_inline struct pcpcache_cpu *
pcpcache_lock_this_cpu(unsigned long *flags)
{
	struct pcpcache_cpu *pc;

	if (pcpcache_try_design()) {
		pcpcache_pin();
		pc = this_cpu_ptr(&pcpcache_cpus);
		if (likely(spin_trylock(&pc->slock)))
			return pc;
		pcpcache_unpin();
		pcpcache_count_trylock_fail();
		__acquire(&pcpcache_cpus.llock);
		return NULL;
	}
	if (pcpcache_spin_design()) {
		pcpcache_pin();
		pc = this_cpu_ptr(&pcpcache_cpus);
		spin_lock_irqsave(&pc->slock, *flags);
		return pc;
	}
	local_lock_irqsave(&pcpcache_cpus.llock, *flags);
	/* for sparse: each way of locking counts once */
	__acquire(&pcpcache_cpus.llock);
	return this_cpu_ptr(&pcpcache_cpus);
}

/* After pcpcache_lock_this_cpu() returned NULL: nothing to unlock. */
static __always_inline void pcpcache_lock_failed(void)
{
	__release(&pcpcache_cpus.llock);
}

/**
 * pcpcache_lock_this_cpu_wait - as pcpcache_lock_this_cpu(), never failing
 * @flags: the saved interrupt state, for pcpcache_unlock_this_cpu()
 *
 * For process context only (work items, hotplug callbacks on the CPU):
 * under lock=trylock it waits for the lock with interrupts off, as another
 * CPU does.
 *
 * Return: this CPU's magazine, locked, with the task pinned to the CPU.
 */
static __always_inline struct pcpcache_cpu *
pcpcache_lock_this_cpu_wait(unsigned long *flags)
{
	struct pcpcache_cpu *pc;

	if (pcpcache_try_design()) {
		pcpcache_pin();
		pc = this_cpu_ptr(&pcpcache_cpus);
		spin_lock_irqsave(&pc->slock, *flags);
		return pc;
	}
	return pcpcache_lock_this_cpu(flags);
}

static __always_inline void pcpcache_unlock_this_cpu(struct pcpcache_cpu *pc,
						     unsigned long flags)
{
	if (pcpcache_try_design()) {
		spin_unlock(&pc->slock);
		pcpcache_unpin();
		return;
	}
	if (pcpcache_spin_design()) {
		spin_unlock_irqrestore(&pc->slock, flags);
		pcpcache_unpin();
		return;
	}
	__release(&pcpcache_cpus.llock);
	local_unlock_irqrestore(&pcpcache_cpus.llock, flags);
}

/* Unlock what pcpcache_lock_this_cpu_wait() locked. */
static __always_inline void pcpcache_unlock_this_cpu_wait(struct pcpcache_cpu *pc,
							  unsigned long flags)
{
	if (pcpcache_try_design()) {
		spin_unlock_irqrestore(&pc->slock, flags);
		pcpcache_unpin();
		return;
	}
	pcpcache_unlock_this_cpu(pc, flags);
}

#endif /* _PCPCACHE_LOCK_H */
