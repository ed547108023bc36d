/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcpctl simulate: a trace through the module's own list discipline
 * (module/magazine.c and policy.c, compiled in) or through a model of
 * the kernel's lists (kmodel.c), one setting at a time.
 */
#ifndef _PCPCTL_SIM_H
#define _PCPCTL_SIM_H

#include <stdint.h>

#include "policy.h"
#include "trace.h"

enum sim_design {
	SIM_PASSTHROUGH = PCPCACHE_MODE_PASSTHROUGH,
	SIM_SINGLE = PCPCACHE_MODE_SINGLE,
	SIM_SPLIT = PCPCACHE_MODE_SPLIT,
	SIM_REMOTE = PCPCACHE_MODE_REMOTE,
	SIM_BLOCKS = PCPCACHE_MODE_BLOCKS,
	SIM_BARN = PCPCACHE_MODE_BARN,
	/* after every mode: replay takes a mode for a design */
	SIM_KERNEL,		/* 6.1's lists, batch and high from the trace */
	SIM_NR_DESIGNS,
};

struct sim_setting {
	enum sim_design design;
	struct pcpcache_config cfg;	/* mode ignored: design says */
	unsigned int max_order;		/* orders above go to the buddy allocator */
	unsigned int block_hold;	/* blocks: pages a CPU keeps at home, most */
	/*
	 * A free releases the newest block of its order that the allocating
	 * CPU holds, as replay's user files do, not the trace's own: which
	 * one matters to blocks mode's blocks.
	 */
	bool as_replayed;
	/*
	 * barn: no trim of the barn by trace time. replay's: the module
	 * trims by the clock, and the replay is exact only when none of its
	 * trims gave a magazine back.
	 */
	bool no_barn_trim;
};

/* Counted as the module counts them (stats_percpu): pages unless said. */
struct sim_cpu {
	uint64_t allocs, frees, hits;	/* blocks */
	uint64_t alloc_hit, alloc_miss;	/* pages */
	uint64_t refill, refill_pages;
	uint64_t drain, drain_pages;
	uint64_t buddy_alloc, buddy_free;
	uint64_t direct;		/* allocations and frees sent to the buddy allocator */
	uint64_t remote_frees;		/* remote: pages sent to their owner */
	uint64_t remote_absorbed;	/* ... taken off this CPU's transit list */
	uint64_t remote_overflow;	/* ... sent past it: the owner was full */
	uint64_t block_refills;		/* blocks: blocks taken from the buddy allocator */
	uint64_t block_whole;		/* ... given back whole */
	uint64_t block_whole_pages;	/* ... and the pages in them */
	uint64_t block_pieces;		/* pages of partly used blocks given back */
	uint64_t barn_swaps;		/* barn: main and spare changed places */
	uint64_t barn_took_full;	/* ... a full magazine taken for an empty one */
	uint64_t barn_gave_full;	/* ... a full one given for an empty one */
	uint64_t barn_flushes;		/* ... a full main given back: the barn was full */
	uint64_t barn_trimmed;		/* ... magazines the trim gave back (CPU 0's) */
	uint64_t parked_peak;		/* pages cached, in transit and at home, at once, most */
};

struct sim_result {
	unsigned int nr_cpus;
	struct sim_cpu *cpu;		/* [nr_cpus] */
	struct sim_cpu total;		/* parked_peak: of the sum */
	uint64_t ops;			/* allocations and frees */
	double parked_mean;		/* pages cached, over the events */
	uint64_t parked_peak_cpu;	/* the most one CPU had */
	uint64_t barn_peak;		/* barn: the most pages in the barn */
	double hit_rate;		/* allocations served from a list, of all */
	double trips_per_k;		/* buddy calls (refills, drains, direct) per 1000 ops */
	int pareto;			/* on the front of trips against peak */
	uint64_t skipped;		/* kernel model: events it cannot place */
};

int sim_run(const struct pcp_trace *t, const struct sim_setting *s,
	    struct sim_result *r);
void sim_result_finish(struct sim_result *r, double parked_sum);
void sim_result_release(struct sim_result *r);
const char *sim_design_name(enum sim_design d);
void sim_label(const struct sim_setting *s, char *buf, size_t size);

/* The decay tick of high=auto, as module/request.c's: every second. */
#define SIM_DECAY_USECS	1000000

/*
 * module/barn.h's PCPCACHE_BARN_TRIM_SECS (a kernel header): the trim of
 * the barn, every 5 s of trace time, as barn.c's work by the clock.
 */
#define SIM_BARN_TRIM_SECS	5
#define SIM_BARN_TRIM_USECS	(SIM_BARN_TRIM_SECS * 1000000ULL)

/* module/blocks.h's: a block's pages, and block_hold's default and most */
#define SIM_BLOCK_PAGES		512
#define SIM_BLOCK_HOLD		(2 * SIM_BLOCK_PAGES)
#define SIM_BLOCK_HOLD_MAX	(16 * SIM_BLOCK_PAGES)

#endif /* _PCPCTL_SIM_H */
