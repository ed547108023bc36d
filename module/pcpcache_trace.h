/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcpcache's trace events, in /sys/kernel/tracing/events/pcpcache/: where
 * pages come from the buddy allocator and go back to it, frees sent to
 * another CPU, mode switches and the shrinker's scans. None is on the path
 * of an allocation or a free that the magazine serves (a remote mode free
 * sent home is not): a disabled event costs nothing there.
 *
 * Each event fires where its counter in the stats file counts, so that
 * the events of a run add up to the counters' differences over it:
 * pcpcache_refill events to refill (their pages to refill_pages),
 * pcpcache_mode_switch to mode_switches, pcpcache_shrink to shrink, and
 * the pages of pcpcache_drain to drain_pages, shrink_pages or remote_node
 * by their why (enum pcpcache_drain_why).
 *
 * pcpcache_high_change events by their why to high_grew, high_decayed
 * and high_cut; pcpcache_barn events by what was done to barn_swaps,
 * barn_took_full, barn_gave_full and barn_flushes; the blocks of
 * pcpcache_remote_free (2^order pages each) to remote_frees.
 *
 * trace.c defines them (CREATE_TRACE_POINTS); the module is built out of
 * the kernel's tree, so define_trace.h finds this file through
 * TRACE_INCLUDE_PATH "." and the -I$(src) that Kbuild gives trace.o.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM pcpcache

#if !defined(_PCPCACHE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _PCPCACHE_TRACE_H

#include <linux/tracepoint.h>

#include "pcpcache.h"

/* The values, for tools that read the events' format files ... */
TRACE_DEFINE_ENUM(PCPCACHE_DRAIN_HIGH);
TRACE_DEFINE_ENUM(PCPCACHE_DRAIN_REQUEST);
TRACE_DEFINE_ENUM(PCPCACHE_DRAIN_RECONFIG);
TRACE_DEFINE_ENUM(PCPCACHE_DRAIN_CPU_DEAD);
TRACE_DEFINE_ENUM(PCPCACHE_DRAIN_SHRINKER);
TRACE_DEFINE_ENUM(PCPCACHE_DRAIN_REMOTE);
TRACE_DEFINE_ENUM(PCPCACHE_DRAIN_OOM);
TRACE_DEFINE_ENUM(PCPCACHE_DRAIN_TRIM);
TRACE_DEFINE_ENUM(PCPCACHE_MODE_PASSTHROUGH);
TRACE_DEFINE_ENUM(PCPCACHE_MODE_SINGLE);
TRACE_DEFINE_ENUM(PCPCACHE_MODE_SPLIT);
TRACE_DEFINE_ENUM(PCPCACHE_MODE_REMOTE);
TRACE_DEFINE_ENUM(PCPCACHE_MODE_BLOCKS);
TRACE_DEFINE_ENUM(PCPCACHE_MODE_BARN);
TRACE_DEFINE_ENUM(MAG_BARN_SWAPPED);
TRACE_DEFINE_ENUM(MAG_BARN_TOOK_FULL);
TRACE_DEFINE_ENUM(MAG_BARN_GAVE_FULL);
TRACE_DEFINE_ENUM(MAG_BARN_FLUSHED);
TRACE_DEFINE_ENUM(PCPCACHE_HIGH_GREW);
TRACE_DEFINE_ENUM(PCPCACHE_HIGH_DECAYED);
TRACE_DEFINE_ENUM(PCPCACHE_HIGH_CUT);

/* ... and their names */
#define pcpcache_show_why(why)						\
	__print_symbolic(why,						\
			 { PCPCACHE_DRAIN_HIGH, "high" },		\
			 { PCPCACHE_DRAIN_REQUEST, "request" },		\
			 { PCPCACHE_DRAIN_RECONFIG, "reconfig" },	\
			 { PCPCACHE_DRAIN_CPU_DEAD, "cpu_dead" },	\
			 { PCPCACHE_DRAIN_SHRINKER, "shrinker" },	\
			 { PCPCACHE_DRAIN_REMOTE, "remote" },		\
			 { PCPCACHE_DRAIN_OOM, "oom" },			\
			 { PCPCACHE_DRAIN_TRIM, "trim" })

#define pcpcache_show_high_why(why)					\
	__print_symbolic(why,						\
			 { PCPCACHE_HIGH_GREW, "grew" },		\
			 { PCPCACHE_HIGH_DECAYED, "decayed" },		\
			 { PCPCACHE_HIGH_CUT, "cut" })

#define pcpcache_show_mode(mode)					\
	__print_symbolic(mode,						\
			 { PCPCACHE_MODE_PASSTHROUGH, "passthrough" },	\
			 { PCPCACHE_MODE_SINGLE, "single" },		\
			 { PCPCACHE_MODE_SPLIT, "split" },		\
			 { PCPCACHE_MODE_REMOTE, "remote" },		\
			 { PCPCACHE_MODE_BLOCKS, "blocks" },		\
			 { PCPCACHE_MODE_BARN, "barn" })

#define pcpcache_show_barn(done)					\
	__print_symbolic(done,						\
			 { MAG_BARN_SWAPPED, "swapped" },		\
			 { MAG_BARN_TOOK_FULL, "took_full" },		\
			 { MAG_BARN_GAVE_FULL, "gave_full" },		\
			 { MAG_BARN_FLUSHED, "flushed" })

/*
 * A refill of blocks of @order: @pages of the @asked (base pages, 2^@order
 * a block) came from the buddy allocator for @cpu, the CPU that missed.
 */
TRACE_EVENT(pcpcache_refill,
	    TP_PROTO(int cpu, unsigned int order, unsigned int asked,
		     unsigned int pages, bool cold),
	    TP_ARGS(cpu, order, asked, pages, cold),
	    TP_STRUCT__entry(__field(int, cpu)
			     __field(unsigned int, order)
			     __field(unsigned int, asked)
			     __field(unsigned int, pages)
			     __field(bool, cold)),
	    TP_fast_assign(__entry->cpu = cpu;
			   __entry->order = order;
			   __entry->asked = asked;
			   __entry->pages = pages;
			   __entry->cold = cold;),
	    TP_printk("cpu=%d order=%u asked=%u pages=%u cold=%d",
		      __entry->cpu, __entry->order, __entry->asked,
		      __entry->pages, __entry->cold)
);

/*
 * @pages went back to the buddy allocator from the magazine of @cpu, or,
 * for why=remote, were not cached on @cpu. The CPU that gives them back
 * may be another (lock=spin, CPU hotplug, the shrinker).
 */
TRACE_EVENT(pcpcache_drain,
	    TP_PROTO(int cpu, unsigned int pages, enum pcpcache_drain_why why),
	    TP_ARGS(cpu, pages, why),
	    TP_STRUCT__entry(__field(int, cpu)
			     __field(unsigned int, pages)
			     __field(int, why)),
	    TP_fast_assign(__entry->cpu = cpu;
			   __entry->pages = pages;
			   __entry->why = why;),
	    TP_printk("cpu=%d pages=%u why=%s", __entry->cpu, __entry->pages,
		      pcpcache_show_why(__entry->why))
);

/*
 * remote mode: a block of @order freed on @cpu went onto the transit list
 * of @owner, the CPU it was cached on.
 */
TRACE_EVENT(pcpcache_remote_free,
	    TP_PROTO(int cpu, int owner, unsigned int order),
	    TP_ARGS(cpu, owner, order),
	    TP_STRUCT__entry(__field(int, cpu)
			     __field(int, owner)
			     __field(unsigned int, order)),
	    TP_fast_assign(__entry->cpu = cpu;
			   __entry->owner = owner;
			   __entry->order = order;),
	    TP_printk("cpu=%d owner=%d order=%u", __entry->cpu,
		      __entry->owner, __entry->order)
);

/* Every CPU switched from mode @old to @new, which took @ns. */
TRACE_EVENT(pcpcache_mode_switch,
	    TP_PROTO(enum pcpcache_mode old, enum pcpcache_mode new, u64 ns),
	    TP_ARGS(old, new, ns),
	    TP_STRUCT__entry(__field(int, old)
			     __field(int, new)
			     __field(u64, ns)),
	    TP_fast_assign(__entry->old = old;
			   __entry->new = new;
			   __entry->ns = ns;),
	    TP_printk("old=%s new=%s ns=%llu", pcpcache_show_mode(__entry->old),
		      pcpcache_show_mode(__entry->new), __entry->ns)
);

/*
 * A scan of the shrinker: @asked pages of node @nid wanted, @freed given
 * back by its end, in @ns. Under lock=local, CPUs that answer late give
 * back more afterwards, traced as pcpcache_drain why=shrinker.
 */
TRACE_EVENT(pcpcache_shrink,
	    TP_PROTO(int nid, unsigned long asked, unsigned long freed, u64 ns),
	    TP_ARGS(nid, asked, freed, ns),
	    TP_STRUCT__entry(__field(int, nid)
			     __field(unsigned long, asked)
			     __field(unsigned long, freed)
			     __field(u64, ns)),
	    TP_fast_assign(__entry->nid = nid;
			   __entry->asked = asked;
			   __entry->freed = freed;
			   __entry->ns = ns;),
	    TP_printk("nid=%d asked=%lu freed=%lu ns=%llu", __entry->nid,
		      __entry->asked, __entry->freed, __entry->ns)
);

/*
 * The auto-tuned high of @cpu's (hot) list moved from @old to @new: it
 * grew on a refill, decayed on a tick or was cut for the shrinker.
 */
TRACE_EVENT(pcpcache_high_change,
	    TP_PROTO(int cpu, unsigned int old, unsigned int new,
		     enum pcpcache_stat why),
	    TP_ARGS(cpu, old, new, why),
	    TP_STRUCT__entry(__field(int, cpu)
			     __field(unsigned int, old)
			     __field(unsigned int, new)
			     __field(int, why)),
	    TP_fast_assign(__entry->cpu = cpu;
			   __entry->old = old;
			   __entry->new = new;
			   __entry->why = why;),
	    TP_printk("cpu=%d old=%u new=%u why=%s", __entry->cpu,
		      __entry->old, __entry->new,
		      pcpcache_show_high_why(__entry->why))
);

/*
 * barn mode: @cpu's magazines of @order were exchanged: main and spare
 * swapped, a full magazine taken from or given to the barn, or main
 * flushed to the buddy allocator (its pages also in a pcpcache_drain).
 */
TRACE_EVENT(pcpcache_barn,
	    TP_PROTO(int cpu, unsigned int order, enum mag_barn_done done),
	    TP_ARGS(cpu, order, done),
	    TP_STRUCT__entry(__field(int, cpu)
			     __field(unsigned int, order)
			     __field(int, done)),
	    TP_fast_assign(__entry->cpu = cpu;
			   __entry->order = order;
			   __entry->done = done;),
	    TP_printk("cpu=%d order=%u done=%s", __entry->cpu, __entry->order,
		      pcpcache_show_barn(__entry->done))
);

#endif /* _PCPCACHE_TRACE_H */

/* Outside the guard: define_trace.h reads this file again. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE pcpcache_trace
#include <trace/define_trace.h>
