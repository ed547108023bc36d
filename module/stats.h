/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcpcache counters: per CPU, each CPU's block on its own cache line, summed
 * when read.
 */
#ifndef _PCPCACHE_STATS_H
#define _PCPCACHE_STATS_H

#include <linux/percpu.h>

#include "magazine.h"

/* The order is the order of /sys/kernel/debug/pcpcache/stats. */
enum pcpcache_stat {
	PCPCACHE_ALLOC,		/* pages handed out: derived, hit + miss */
	PCPCACHE_ALLOC_HIT,	/* ... taken from a magazine: derived */
	PCPCACHE_ALLOC_MISS,	/* ... taken from the buddy allocator */
	PCPCACHE_ALLOC_COLD,	/* ... asked for cold */
	PCPCACHE_ALLOC_FAIL,	/* allocations that returned NULL */
	PCPCACHE_ALLOC_ZEROED,	/* pages pcpcache cleared itself */
	PCPCACHE_FREE,		/* pages given back by users: derived, */
				/* counted only above the cached orders */
	PCPCACHE_FREE_COLD,	/* ... freed cold */
	PCPCACHE_REFILL,	/* batches taken from the buddy allocator */
	PCPCACHE_REFILL_PAGES,	/* ... and the pages in them */
	PCPCACHE_DRAIN,		/* batches given back to the buddy allocator */
	PCPCACHE_DRAIN_PAGES,	/* ... and the pages in them */
	PCPCACHE_BUDDY_ALLOC,	/* every page taken from the buddy allocator */
	PCPCACHE_BUDDY_FREE,	/* every page given back to it */
	PCPCACHE_MODE_SWITCHES,	/* writes that changed the mode: mode, config, bench */
	PCPCACHE_REMOTE_NODE,	/* pages not cached: of another node */
	PCPCACHE_SHRINK,	/* calls from the shrinker */
	PCPCACHE_SHRINK_PAGES,	/* ... and the pages they gave back */
	PCPCACHE_FAULT_INJECTED, /* refills cut short by fault_refill */
	PCPCACHE_ALLOC_POLICY,	/* sent to the buddy allocator: placement */
	PCPCACHE_REFUSED_HWPOISON,	/* pages not cached: poisoned */
	PCPCACHE_REFUSED_PFMEMALLOC,	/* ... from the emergency reserves */
	PCPCACHE_REFUSED_COMPOUND,	/* ... part of a compound page */
	PCPCACHE_REFUSED_BLOCK,	/* ... in a CMA or isolated pageblock */
	PCPCACHE_REFUSED_OTHER,	/* ... of a zone, cgroup or sharer we avoid */
	PCPCACHE_SHRINK_SKIPPED, /* CPUs a shrinker scan did not wait for */
	PCPCACHE_MEMORY_OFFLINE, /* drains because memory went offline */
	PCPCACHE_OOM,		/* calls from the OOM notifier */
	PCPCACHE_OOM_PAGES,	/* ... and the pages given back to them */
	PCPCACHE_OOM_LATE,	/* CPUs that had not answered one in time */
	PCPCACHE_HIGH_GREW,	/* an auto-tuned high grew on a refill */
	PCPCACHE_HIGH_DECAYED,	/* ... decayed on a tick */
	PCPCACHE_HIGH_CUT,	/* ... was cut for the shrinker */
	PCPCACHE_REMOTE_FREES,	/* pages freed to the CPU they were cached on */
	PCPCACHE_REMOTE_ABSORBED, /* ... taken off its transit list again */
	PCPCACHE_REMOTE_OVERFLOW, /* ... sent past it: the owner was full */
	PCPCACHE_TRYLOCK_FAIL_TASK,	/* lock=trylock: failed in process context */
	PCPCACHE_TRYLOCK_FAIL_SOFTIRQ,	/* ... in softirq context */
	PCPCACHE_TRYLOCK_FAIL_HARDIRQ,	/* ... in hard interrupt context */
	PCPCACHE_TRYLOCK_FAIL_NMI,	/* ... in NMI context */
	PCPCACHE_NOLOCK_FAIL,	/* _nolock() allocations that returned NULL */
	PCPCACHE_NOLOCK_DEFERRED, /* _nolock() frees left to an irq_work */
	PCPCACHE_BLOCK_REFILLS,	/* blocks taken whole from the buddy allocator */
	PCPCACHE_BLOCK_WHOLE,	/* ... given back whole */
	PCPCACHE_BLOCK_WHOLE_PAGES, /* ... and the pages in them */
	PCPCACHE_BLOCK_PIECES,	/* pages of partly used blocks given back */
	PCPCACHE_BARN_SWAPS,	/* barn: main and spare changed places */
	PCPCACHE_BARN_TOOK_FULL, /* ... a full magazine taken for an empty one */
	PCPCACHE_BARN_GAVE_FULL, /* ... a full one given for an empty one */
	PCPCACHE_BARN_FLUSHES,	/* ... a full main given back: the barn was full */
	PCPCACHE_BARN_BUSY,	/* ... the barn's lock was held: not used */
	PCPCACHE_BARN_TRIMMED,	/* ... magazines the trim gave back */
	/* blocks, one counter per order 0 to PCPCACHE_NR_ORDERS - 1 each */
	PCPCACHE_ORDER_HIT,		/* handed out from a magazine */
	PCPCACHE_ORDER_MISS = PCPCACHE_ORDER_HIT + PCPCACHE_NR_ORDERS,
	PCPCACHE_ORDER_FREE = PCPCACHE_ORDER_MISS + PCPCACHE_NR_ORDERS,
	PCPCACHE_ORDER_REFILL = PCPCACHE_ORDER_FREE + PCPCACHE_NR_ORDERS,
	PCPCACHE_NR_STATS = PCPCACHE_ORDER_REFILL + PCPCACHE_NR_ORDERS,
};

struct pcpcache_stats {
	unsigned long count[PCPCACHE_NR_STATS];
};

DECLARE_PER_CPU_ALIGNED(struct pcpcache_stats, pcpcache_stats);

/*
 * this_cpu_add() is safe against preemption and interrupts on its own, so
 * counting needs no lock and may happen after the magazine lock is dropped.
 */
static inline void pcpcache_count(enum pcpcache_stat item, unsigned long nr)
{
	this_cpu_add(pcpcache_stats.count[item], nr);
}

void pcpcache_stats_sum(unsigned long sum[PCPCACHE_NR_STATS]);
unsigned long pcpcache_stat_sum(enum pcpcache_stat item);
void pcpcache_note_shrink_time(s64 ns);
/* The pages the books count beside the counters (pcpcache_stats_format()). */
struct pcpcache_books {
	unsigned long cached, transit, blocks, barn, user_held;
};

unsigned long pcpcache_sum_cpus(int nid, unsigned int (*count)(int cpu));
size_t pcpcache_stats_format(char *buf, size_t size,
			     const unsigned long sum[PCPCACHE_NR_STATS],
			     const struct pcpcache_books *books);
size_t pcpcache_stats_percpu_size(void);
size_t pcpcache_stats_percpu_format(char *buf, size_t size);

#endif /* _PCPCACHE_STATS_H */
