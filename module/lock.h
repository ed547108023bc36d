/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcpcache locking: the seam between the two designs a magazine can be
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
 * On PREEMPT_RT both are a sleeping spinlock_t taken with migration
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
#include <linux/spinlock.h>

#include "magazine.h"

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
};

DECLARE_PER_CPU_ALIGNED(struct pcpcache_cpu, pcpcache_cpus);

/* Set once at load, before any magazine is used, when lock=spin. */
DECLARE_STATIC_KEY_FALSE(pcpcache_lock_spin);

static inline bool pcpcache_spin_design(void)
{
	return static_branch_unlikely(&pcpcache_lock_spin);
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
 * Return: this CPU's magazine, locked, with the task pinned to the CPU.
 */
static __always_inline struct pcpcache_cpu *
pcpcache_lock_this_cpu(unsigned long *flags)
{
	struct pcpcache_cpu *pc;

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

static __always_inline void pcpcache_unlock_this_cpu(struct pcpcache_cpu *pc,
						     unsigned long flags)
{
	if (pcpcache_spin_design()) {
		spin_unlock_irqrestore(&pc->slock, flags);
		pcpcache_unpin();
		return;
	}
	__release(&pcpcache_cpus.llock);
	local_unlock_irqrestore(&pcpcache_cpus.llock, flags);
}

#endif /* _PCPCACHE_LOCK_H */
