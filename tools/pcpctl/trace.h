/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcpctl's page allocation traces: the format that record writes and
 * simulate and replay read (Documentation/mm/pcpcache-replay.rst).
 *
 * A file is a header, the zones the recording saw, their per-CPU list
 * counts when it began, then fixed-size events, all little-endian. A file
 * is consistent by construction: every free is of a page allocated before
 * it in the file and not freed since, at the order it was allocated. What
 * a recording of the kernel had that breaks this (frees of pages allocated
 * before it began), or that no per-CPU list holds (orders 4 to 8, above 9),
 * is dropped on the way in and counted in the header, never silently.
 *
 * Version 2 keeps order 9 (pageblock_order on x86-64: THP), which 6.1's
 * per-CPU lists hold; version 1, still read, held orders 0 to 3 only.
 * pcpcache's magazines hold orders 0 to 3 (PCP_TRACE_MAX_ORDER): the
 * simulator sends order 9 straight to the buddy allocator, and replay
 * leaves it out.
 */
#ifndef _PCPCTL_TRACE_H
#define _PCPCTL_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define PCP_TRACE_MAGIC		"PCPTRACE"
#define PCP_TRACE_VERSION	3
/* the oldest version read: 1, without order 9 */
#define PCP_TRACE_VERSION_MIN	1
#define PCP_TRACE_MAX_CPUS	1024
#define PCP_TRACE_MAX_ZONES	16
/* the orders pcpcache caches (PAGE_ALLOC_COSTLY_ORDER): the simulator's, replay's */
#define PCP_TRACE_MAX_ORDER	3
/* and pageblock_order on x86-64, the THP order of 6.1's lists: version 2 */
#define PCP_TRACE_THP_ORDER	9
/* 2^28 events, 4 GiB of them: more is a broken header, not a recording */
#define PCP_TRACE_MAX_EVENTS	(1ULL << 28)

enum pcp_trace_op {
	PCP_EV_ALLOC = 1,	/* kmem:mm_page_alloc */
	PCP_EV_FREE,		/* kmem:mm_page_free */
	PCP_EV_KREFILL,		/* mm_page_alloc_zone_locked, percpu_refill=1 */
	PCP_EV_KDRAIN,		/* mm_page_pcpu_drain */
	/* (version 3) mm_page_free of a page allocated before the recording */
	PCP_EV_KFREE,
	PCP_EV_NR_OPS,
};

/*
 * A kfree's migratetype: mm_page_free has none, and with no allocation in
 * the trace the list it went to is unknown; movable, the commonest.
 */
#define PCP_TRACE_KFREE_MT	1

/* Header flags */
#define PCP_TRACE_KERNEL_LISTS	(1U << 0)	/* the two kernel list events were on */
#define PCP_TRACE_LISTS_EMPTIED	(1U << 1)	/* record --empty-lists emptied them first */
#define PCP_TRACE_FLAGS		(PCP_TRACE_KERNEL_LISTS | PCP_TRACE_LISTS_EMPTIED)

struct pcp_trace_header {
	char magic[8];
	uint32_t version;
	uint32_t nr_cpus;	/* 1 + the highest CPU of an event */
	uint64_t nr_events;
	uint64_t lost;		/* events the kernel's ring buffer lost */
	uint64_t unmatched;	/* frees (or allocations) dropped to stay consistent */
	uint64_t beyond;	/* events of orders 4-8 and above 9 (v1: above 3), dropped */
	uint32_t nr_zones;
	uint32_t flags;
	uint64_t reserved;	/* 0 */
};

struct pcp_trace_zone {
	char name[16];		/* NUL-terminated */
	uint64_t start_pfn, end_pfn;	/* [start, end) */
	uint32_t high, batch;	/* the zone's pagesets, of CPU 0 */
};

/*
 * bits of pcp_trace_event.bits: the order's two low bits in 0-1, its two
 * high bits in 6-7 (version 2; 0 in version 1), so that order 9 is
 * 0x81 and a version 1 event reads the same in version 2
 */
#define PCP_EV_ORDER_MASK	0x03
#define PCP_EV_COLD		0x04
#define PCP_EV_MT_SHIFT		3
#define PCP_EV_MT_MASK		0x38
#define PCP_EV_ORDER_HI_SHIFT	6
#define PCP_EV_ORDER_HI_MASK	0xc0

struct pcp_trace_event {
	uint64_t pfn;
	uint32_t usecs;		/* since the previous event, saturating */
	uint16_t cpu;
	uint8_t op;		/* enum pcp_trace_op */
	uint8_t bits;		/* order, cold, migratetype */
};

static inline unsigned int pcp_ev_order(const struct pcp_trace_event *e)
{
	return (e->bits & PCP_EV_ORDER_MASK) |
	       (e->bits & PCP_EV_ORDER_HI_MASK) >> (PCP_EV_ORDER_HI_SHIFT - 2);
}

/* The bits of an order a trace holds */
static inline unsigned int pcp_ev_order_bits(unsigned int order)
{
	return (order & PCP_EV_ORDER_MASK) |
	       (order >> 2) << PCP_EV_ORDER_HI_SHIFT;
}

/* An order a trace of @version holds: 0 to 3, and in version 2 order 9 */
static inline bool pcp_trace_order_ok(unsigned int version, unsigned int order)
{
	return order <= PCP_TRACE_MAX_ORDER ||
	       (version >= 2 && order == PCP_TRACE_THP_ORDER);
}

static inline bool pcp_ev_cold(const struct pcp_trace_event *e)
{
	return e->bits & PCP_EV_COLD;
}

static inline unsigned int pcp_ev_mt(const struct pcp_trace_event *e)
{
	return (e->bits & PCP_EV_MT_MASK) >> PCP_EV_MT_SHIFT;
}

/* A trace in memory, checked. */
struct pcp_trace {
	struct pcp_trace_header h;
	struct pcp_trace_zone zones[PCP_TRACE_MAX_ZONES];
	uint32_t *counts;		/* [cpu * nr_zones + zone] at the start */
	struct pcp_trace_event *ev;
	/*
	 * For each allocation and free, the page's slot: a small number
	 * reused once it is freed, so that a simulation keeps its pages in
	 * an array rather than a table of pfns.
	 */
	uint32_t *slot;
	uint32_t nr_slots;
	uint64_t nr_allocs, nr_frees;
	uint64_t nr_thp;		/* of those, of PCP_TRACE_THP_ORDER */
	uint64_t nr_kfrees;		/* PCP_EV_KFREE events */
};

/*
 * Building a trace from a recording: events go in as the kernel gave
 * them and come out consistent (see above). Memory: the events, and a
 * table of the pages allocated and not yet freed.
 */
struct pcp_trace_writer;

struct pcp_trace_writer *pcp_tw_new(void);
int pcp_tw_zone(struct pcp_trace_writer *w, const struct pcp_trace_zone *z);
void pcp_tw_set_zone(struct pcp_trace_writer *w, unsigned int zone,
		     const struct pcp_trace_zone *z);
void pcp_tw_set_flags(struct pcp_trace_writer *w, uint32_t flags);
void pcp_tw_stream_only(struct pcp_trace_writer *w);
void pcp_tw_max_events(struct pcp_trace_writer *w, uint64_t max);
uint64_t pcp_tw_over(const struct pcp_trace_writer *w);
int pcp_tw_count(struct pcp_trace_writer *w, unsigned int cpu,
		 unsigned int zone, uint32_t count);
/* @usecs: absolute time of the event, for the deltas */
int pcp_tw_event(struct pcp_trace_writer *w, uint64_t usecs, unsigned int cpu,
		 enum pcp_trace_op op, uint64_t pfn, unsigned int order,
		 unsigned int mt, bool cold);
void pcp_tw_lost(struct pcp_trace_writer *w, uint64_t nr);
const struct pcp_trace_header *pcp_tw_header(const struct pcp_trace_writer *w);
const struct pcp_trace_zone *pcp_tw_zone_of(const struct pcp_trace_writer *w,
					    unsigned int zone);
uint32_t pcp_tw_count_of(const struct pcp_trace_writer *w, unsigned int cpu,
			 unsigned int zone);
int pcp_tw_finish(struct pcp_trace_writer *w, struct pcp_trace *t);
void pcp_tw_destroy(struct pcp_trace_writer *w);

/* One line of `perf script` or of tracefs's trace, into @w. */
enum pcp_line {
	PCP_LINE_EVENT,
	PCP_LINE_SKIPPED,	/* a comment, a failed allocation */
	PCP_LINE_BAD,		/* pcp_trace_error says why */
};

enum pcp_line pcp_parse_kernel_line(struct pcp_trace_writer *w, char *line);

/* The text dump: written by pcp_trace_dump(), read back strictly. */
int pcp_trace_dump(const struct pcp_trace *t, FILE *f);
int pcp_trace_read_text(FILE *f, const char *name, struct pcp_trace *t);

int pcp_trace_write(const struct pcp_trace *t, const char *path);
int pcp_trace_load(const char *path, struct pcp_trace *t);
void pcp_trace_release(struct pcp_trace *t);
/*
 * Leave out every event (of any op) of an order above @max_order, its
 * time added to the next event's, and check the trace again. Return: how
 * many, or -1 (out of memory) with pcp_trace_error saying so.
 */
int64_t pcp_trace_drop_orders_above(struct pcp_trace *t, unsigned int max_order);
/* What the header's beyond counts: "above order 3" in version 1, else 4-8, >9 */
const char *pcp_trace_beyond_what(const struct pcp_trace_header *h);
const char *pcp_trace_op_name(unsigned int op);

/* Why the last call above failed: one line, no newline. */
extern char pcp_trace_error[256];

#endif /* _PCPCTL_TRACE_H */
