/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A model of Linux 6.1's per-CPU page lists (struct per_cpu_pages in
 * mm/page_alloc.c), counts only, for pcpctl simulate: it replays a
 * recorded allocation stream and predicts how many pages the kernel's
 * own lists took from (rmqueue_bulk) and gave back to (free_pcppages_bulk)
 * the zones. What it cannot know is listed at the top of kmodel.c.
 */
#ifndef _PCPCTL_KMODEL_H
#define _PCPCTL_KMODEL_H

#include <stdbool.h>
#include <stdint.h>

/* unmovable, movable, reclaimable: the pcp types, in enum migratetype order */
#define KMODEL_NR_MIGRATETYPES	3
/* 0..PAGE_ALLOC_COSTLY_ORDER */
#define KMODEL_NR_ORDERS	4
/*
 * pageblock_order on x86-64 (4 KiB pages, HUGETLB_PAGE_SIZE_VARIABLE=n).
 * With CONFIG_TRANSPARENT_HUGEPAGE (Debian: y) 6.1 keeps such pages (THP,
 * 2 MiB hugetlb pages given back to buddy) on two more pcp lists, and they
 * count in pcp->count and free_factor like any other.
 */
#define KMODEL_THP_ORDER	9
/* Debian 6.1.y's CONFIG_PCP_BATCH_SCALE_MAX (a backport from 6.7) */
#define KMODEL_SCALE_MAX	5

struct kmodel_zone {
	char name[16];
	uint64_t start_pfn, end_pfn;	/* [start, end) */
	unsigned int high, batch;	/* from /proc/zoneinfo's pagesets */
};

struct kmodel_cpu_result {
	/* events seen, of order <= 3 and of KMODEL_THP_ORDER */
	uint64_t allocs, frees;
	uint64_t thp_allocs, thp_frees;
	/* of order <= 3, frees of pages allocated before the recording */
	uint64_t kfrees;
	/* allocations served from a non-empty list */
	uint64_t hits;
	/* rmqueue_bulk calls for the lists, pages they took */
	uint64_t refills, refill_pages;
	/* free_pcppages_bulk calls that gave pages back, and those pages */
	uint64_t drains, drain_pages;
	/* of drains, those of free_high (all of pcp->count) */
	uint64_t free_high_drains;
	/* most pages on this CPU's lists (all zones) at once */
	uint64_t parked_peak;
};

struct kmodel;

/*
 * NULL for no CPUs, no zones, an empty zone or a batch of 0 (the kernel's
 * is at least 1), or no memory. Every list starts empty, free_factor 0.
 */
struct kmodel *kmodel_new(unsigned int nr_cpus, const struct kmodel_zone *zones,
			  unsigned int nr_zones);
void kmodel_destroy(struct kmodel *m);

/*
 * Initial pages on a CPU's lists of a zone (zoneinfo's "count:" when
 * recording began). They all go on the order-0 movable list: the count
 * does not say how they are spread. Replaces what the lists held.
 */
void kmodel_set_count(struct kmodel *m, unsigned int cpu, unsigned int zone,
		      unsigned int count);
/*
 * Cap on free_factor: CONFIG_PCP_BATCH_SCALE_MAX (default KMODEL_SCALE_MAX)
 * or -1 for 6.1 kernels without the backport, where only high - batch
 * bounds the doubling.
 */
void kmodel_set_scale_max(struct kmodel *m, int scale_max);
/* Whether order KMODEL_THP_ORDER is a pcp order (default true) */
void kmodel_set_thp(struct kmodel *m, bool thp);

/*
 * Return 0, or -1 for a cpu/order/migratetype out of range or a pfn in no
 * zone (nothing counted then). migratetype is the one the page was
 * allocated with; a free passes it again (the kernel reads the
 * pageblock's, normally the same).
 */
int kmodel_alloc(struct kmodel *m, unsigned int cpu, uint64_t pfn,
		 unsigned int order, unsigned int migratetype);
int kmodel_free(struct kmodel *m, unsigned int cpu, uint64_t pfn,
		unsigned int order, unsigned int migratetype);
/*
 * The same for a page allocated before the recording (a trace's kfree):
 * counted in kfrees, not frees, which count the recorded stream's own.
 */
int kmodel_kfree(struct kmodel *m, unsigned int cpu, uint64_t pfn,
		 unsigned int order, unsigned int migratetype);

unsigned long kmodel_parked(const struct kmodel *m);	/* all CPUs, now */
unsigned long kmodel_cpu_parked(const struct kmodel *m, unsigned int cpu);
/* Entries (blocks of 2^order pages) on one list; 0 if out of range */
unsigned long kmodel_list_len(const struct kmodel *m, unsigned int cpu,
			      unsigned int zone, unsigned int order,
			      unsigned int migratetype);
/* pcp->free_factor of a CPU's lists of a zone; -1 if out of range */
int kmodel_free_factor(const struct kmodel *m, unsigned int cpu,
		       unsigned int zone);
/* NULL if cpu is out of range */
const struct kmodel_cpu_result *kmodel_cpu(const struct kmodel *m,
					   unsigned int cpu);

#endif /* _PCPCTL_KMODEL_H */
