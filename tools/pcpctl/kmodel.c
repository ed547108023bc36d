// SPDX-License-Identifier: GPL-2.0
/*
 * A model of Linux 6.1's per-CPU page lists, read from Debian's 6.1.192
 * mm/page_alloc.c. It keeps counts only: per CPU and zone, the length of
 * each of the NR_PCP_LISTS lists, pcp->count and pcp->free_factor. The
 * rules followed, each named after the kernel function it copies:
 *
 *  - pcp_allowed_order(): orders 0..PAGE_ALLOC_COSTLY_ORDER (3), and
 *    pageblock_order (9) with CONFIG_TRANSPARENT_HUGEPAGE (Debian: y;
 *    kmodel_set_thp()), use the lists; any other order goes to buddy and
 *    is refused here (-1). Order 9 is THP, and any other allocation of
 *    2 MiB (hugetlb's from buddy): 6.1 does not ask why.
 *  - order_to_pindex(): list MIGRATE_PCPTYPES * order + migratetype for
 *    orders 0..3; the THP order has lists 12 (not movable) and 13.
 *  - rmqueue_pcplist(): every allocation first halves free_factor.
 *  - __rmqueue_pcplist(): an empty list is refilled by rmqueue_bulk() with
 *    batch entries, batch = max(batch >> order, 2) when batch > 1, else 1;
 *    then the first entry is taken.
 *  - free_unref_page_commit(): the entry is added, then free_high =
 *    free_factor && 0 < order <= 3; nr_pcp_high() gives 0 for free_high or
 *    a high of 0, else high; on count >= that, free_pcppages_bulk() with
 *    nr_pcp_free(), starting at the freed page's list.
 *  - nr_pcp_free(): free_high: all of pcp->count; high < batch: 1; else
 *    clamp(batch << free_factor, batch, high - batch), free_factor going
 *    up by one while batch << free_factor < high - batch and it is under
 *    CONFIG_PCP_BATCH_SCALE_MAX.
 *  - free_pcppages_bulk(): count = min(pcp->count, count); from the given
 *    list on, round robin over the lists, skipping empty ones (and
 *    narrowing the range when an end is empty), each list emptied before
 *    the next while count > 0; count drops by 2^order per entry, so the
 *    pages given back can exceed the count asked for.
 *
 * What the model cannot know, and so leaves out:
 *  - Reclaim: ZONE_RECLAIM_ACTIVE caps high at 4 * batch while kswapd or
 *    direct reclaim runs on the zone; the model always uses high.
 *  - drain_all_pages() (direct reclaim failing, compaction, memory
 *    failure, alloc_contig_range, zone_pcp_disable at hotplug, pagetypeinfo
 *    with page_owner), drain_local_pages() (hibernation,
 *    lru_add_drain_cpu_zone), CPU hotplug: all empty lists outside the
 *    stream. Their mm_page_pcpu_drain events carry the CPU that drained,
 *    not the owner of the lists.
 *  - The vmstat timer: refresh_cpu_vm_stats() drains a batch from a CPU's
 *    lists of a zone on a remote NUMA node after 3 idle seconds; the model
 *    has no time and no nodes.
 *  - Zone exhaustion: rmqueue_bulk() is assumed to find every page asked
 *    for; the kernel's can return fewer, or none (then the allocation
 *    falls back to rmqueue_buddy or fails).
 *  - Trylock failures: pcp_spin_trylock() fails when an interrupt reenters
 *    the allocator on a CPU holding its pcp lock, or while another CPU
 *    drains the lists; the page then goes straight to or from buddy. The
 *    model treats every event as a pcp one.
 *  - CMA (Debian: CONFIG_CMA=n; with it, movable allocations without
 *    ALLOC_CMA skip the lists), isolated pageblocks (frees go straight to
 *    buddy), HIGHATOMIC/CMA pages (freed onto the movable list), pages
 *    whose pageblock changed type between allocation and free: the
 *    caller's migratetype is used both ways.
 *  - __alloc_pages_bulk() takes order-0 pages from the lists without
 *    halving free_factor and without mm_page_alloc events; it is not
 *    modelled (its refills show as mm_page_alloc_zone_locked only).
 *  - high/batch changes (percpu_pagelist_high_fraction, memory hotplug).
 *  - Where the initial count lies: kmodel_set_count() puts it all on the
 *    order-0 movable list, the commonest; free_factor starts at 0.
 *  - parked_peak follows pcp->count inside an event too, as the kernel's
 *    does: it reaches high before a drain, batch before a refill's first
 *    page is taken.
 */
#include <stdlib.h>
#include <string.h>

#include "kmodel.h"

#define NR_LOWORDER_LISTS	(KMODEL_NR_MIGRATETYPES * KMODEL_NR_ORDERS)
#define NR_LISTS		(NR_LOWORDER_LISTS + 2)
#define MIGRATE_MOVABLE		1

struct kmodel_pcp {
	long count;			/* pages, as pcp->count */
	int free_factor;
	unsigned long lists[NR_LISTS];	/* entries on each list */
};

struct kmodel {
	unsigned int nr_cpus, nr_zones;
	int scale_max;			/* -1: no cap */
	bool thp;
	struct kmodel_zone *zones;
	struct kmodel_pcp *pcps;	/* [cpu * nr_zones + zone] */
	unsigned long *parked;		/* per CPU, all its zones */
	struct kmodel_cpu_result *res;
};

struct kmodel *kmodel_new(unsigned int nr_cpus, const struct kmodel_zone *zones,
			  unsigned int nr_zones)
{
	struct kmodel *m;
	unsigned int i;

	if (!nr_cpus || !nr_zones || !zones)
		return NULL;
	for (i = 0; i < nr_zones; i++)
		if (zones[i].start_pfn >= zones[i].end_pfn || !zones[i].batch)
			return NULL;

	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->nr_cpus = nr_cpus;
	m->nr_zones = nr_zones;
	m->scale_max = KMODEL_SCALE_MAX;
	m->thp = true;
	m->zones = calloc(nr_zones, sizeof(*m->zones));
	m->pcps = calloc((size_t)nr_cpus * nr_zones, sizeof(*m->pcps));
	m->parked = calloc(nr_cpus, sizeof(*m->parked));
	m->res = calloc(nr_cpus, sizeof(*m->res));
	if (!m->zones || !m->pcps || !m->parked || !m->res) {
		kmodel_destroy(m);
		return NULL;
	}
	memcpy(m->zones, zones, nr_zones * sizeof(*zones));
	return m;
}

void kmodel_destroy(struct kmodel *m)
{
	if (!m)
		return;
	free(m->zones);
	free(m->pcps);
	free(m->parked);
	free(m->res);
	free(m);
}

static struct kmodel_pcp *pcp_of(const struct kmodel *m, unsigned int cpu,
				 unsigned int zone)
{
	return &m->pcps[(size_t)cpu * m->nr_zones + zone];
}

static void note_parked(struct kmodel *m, unsigned int cpu, long delta)
{
	m->parked[cpu] += delta;
	if (m->parked[cpu] > m->res[cpu].parked_peak)
		m->res[cpu].parked_peak = m->parked[cpu];
}

void kmodel_set_count(struct kmodel *m, unsigned int cpu, unsigned int zone,
		      unsigned int count)
{
	struct kmodel_pcp *pcp;

	if (cpu >= m->nr_cpus || zone >= m->nr_zones)
		return;
	pcp = pcp_of(m, cpu, zone);
	m->parked[cpu] -= pcp->count;
	memset(pcp->lists, 0, sizeof(pcp->lists));
	pcp->lists[MIGRATE_MOVABLE] = count;
	pcp->count = count;
	note_parked(m, cpu, count);
}

void kmodel_set_scale_max(struct kmodel *m, int scale_max)
{
	m->scale_max = scale_max < 0 ? -1 : scale_max;
}

void kmodel_set_thp(struct kmodel *m, bool thp)
{
	m->thp = thp;
}

/* order_to_pindex(), or -1 where the kernel would not use the lists */
static int pindex_of(const struct kmodel *m, unsigned int order,
		     unsigned int migratetype)
{
	if (migratetype >= KMODEL_NR_MIGRATETYPES)
		return -1;
	if (order < KMODEL_NR_ORDERS)
		return KMODEL_NR_MIGRATETYPES * order + migratetype;
	if (order == KMODEL_THP_ORDER && m->thp)
		return NR_LOWORDER_LISTS + (migratetype == MIGRATE_MOVABLE);
	return -1;
}

static unsigned int pindex_order(int pindex)
{
	if (pindex >= NR_LOWORDER_LISTS)
		return KMODEL_THP_ORDER;
	return pindex / KMODEL_NR_MIGRATETYPES;
}

static int zone_of(const struct kmodel *m, uint64_t pfn)
{
	unsigned int i;

	for (i = 0; i < m->nr_zones; i++)
		if (pfn >= m->zones[i].start_pfn && pfn < m->zones[i].end_pfn)
			return i;
	return -1;
}

/* Checks shared by alloc and free; the list index, or -1 */
static int lookup(const struct kmodel *m, unsigned int cpu, uint64_t pfn,
		  unsigned int order, unsigned int migratetype, int *zone)
{
	if (!m || cpu >= m->nr_cpus)
		return -1;
	*zone = zone_of(m, pfn);
	if (*zone < 0)
		return -1;
	return pindex_of(m, order, migratetype);
}

int kmodel_alloc(struct kmodel *m, unsigned int cpu, uint64_t pfn,
		 unsigned int order, unsigned int migratetype)
{
	struct kmodel_cpu_result *r;
	struct kmodel_pcp *pcp;
	int zone, pindex;
	long nr;

	pindex = lookup(m, cpu, pfn, order, migratetype, &zone);
	if (pindex < 0)
		return -1;
	nr = 1L << order;
	pcp = pcp_of(m, cpu, zone);
	r = &m->res[cpu];
	if (order < KMODEL_NR_ORDERS)
		r->allocs++;
	else
		r->thp_allocs++;

	/* rmqueue_pcplist(): allocating shrinks the next batch free */
	pcp->free_factor >>= 1;

	if (!pcp->lists[pindex]) {
		/* __rmqueue_pcplist(); batch 1 marks a pageset not to fill */
		long batch = m->zones[zone].batch;

		if (batch > 1) {
			batch >>= order;
			if (batch < 2)
				batch = 2;
		}
		pcp->lists[pindex] += batch;
		pcp->count += batch * nr;
		r->refills++;
		r->refill_pages += batch * nr;
		note_parked(m, cpu, batch * nr);
	} else {
		r->hits++;
	}
	pcp->lists[pindex]--;
	pcp->count -= nr;
	note_parked(m, cpu, -nr);
	return 0;
}

/* nr_pcp_free() */
static long nr_pcp_free(const struct kmodel *m, struct kmodel_pcp *pcp,
			long high, long batch, bool free_high)
{
	long min_nr_free, max_nr_free;

	if (free_high)
		return pcp->count;
	/* PCP disabled or boot pageset */
	if (high < batch)
		return 1;

	min_nr_free = batch;
	max_nr_free = high - batch;

	/* Doubles with each batch free that no allocation came between */
	batch <<= pcp->free_factor;
	if (batch < max_nr_free &&
	    (m->scale_max < 0 || pcp->free_factor < m->scale_max))
		pcp->free_factor++;

	/* 6.1's __clamp(), which checks hi first should lo exceed it */
	if (batch >= max_nr_free)
		return max_nr_free;
	if (batch <= min_nr_free)
		return min_nr_free;
	return batch;
}

/* free_pcppages_bulk(): the pages given back */
static long free_pcppages_bulk(struct kmodel_pcp *pcp, long count, int pindex)
{
	int min_pindex = 0, max_pindex = NR_LISTS - 1;
	long freed = 0;

	if (count > pcp->count)
		count = pcp->count;

	/* The requested list is drained first */
	pindex--;
	while (count > 0) {
		long nr, take;

		/* Round robin; pcp->count > 0 keeps a list non-empty */
		for (;;) {
			if (++pindex > max_pindex)
				pindex = min_pindex;
			if (pcp->lists[pindex])
				break;
			if (pindex == max_pindex)
				max_pindex--;
			if (pindex == min_pindex)
				min_pindex++;
		}

		/* entry by entry while count > 0, as the kernel's loop, at once */
		nr = 1L << pindex_order(pindex);
		take = (count + nr - 1) / nr;
		if ((unsigned long)take > pcp->lists[pindex])
			take = pcp->lists[pindex];
		pcp->lists[pindex] -= take;
		count -= take * nr;
		pcp->count -= take * nr;
		freed += take * nr;
	}
	return freed;
}

static int model_free(struct kmodel *m, unsigned int cpu, uint64_t pfn,
		      unsigned int order, unsigned int migratetype, bool kfree)
{
	struct kmodel_cpu_result *r;
	struct kmodel_pcp *pcp;
	int zone, pindex;
	long nr, high;
	bool free_high;

	pindex = lookup(m, cpu, pfn, order, migratetype, &zone);
	if (pindex < 0)
		return -1;
	nr = 1L << order;
	pcp = pcp_of(m, cpu, zone);
	r = &m->res[cpu];
	if (order >= KMODEL_NR_ORDERS)
		r->thp_frees++;
	else if (kfree)
		r->kfrees++;
	else
		r->frees++;

	/* free_unref_page_commit() */
	pcp->lists[pindex]++;
	pcp->count += nr;
	note_parked(m, cpu, nr);

	/*
	 * High orders other than THP fragment the zone: while frees outrun
	 * allocations (free_factor set), one empties the whole pcp.
	 */
	free_high = pcp->free_factor && order && order < KMODEL_NR_ORDERS;

	/* nr_pcp_high(), less ZONE_RECLAIM_ACTIVE (no reclaim modelled) */
	high = m->zones[zone].high;
	if (!high || free_high)
		high = 0;

	if (pcp->count >= high) {
		long batch = m->zones[zone].batch;
		long want = nr_pcp_free(m, pcp, high, batch, free_high);
		long freed = free_pcppages_bulk(pcp, want, pindex);

		if (freed) {
			r->drains++;
			r->drain_pages += freed;
			if (free_high)
				r->free_high_drains++;
			note_parked(m, cpu, -freed);
		}
	}
	return 0;
}

int kmodel_free(struct kmodel *m, unsigned int cpu, uint64_t pfn,
		unsigned int order, unsigned int migratetype)
{
	return model_free(m, cpu, pfn, order, migratetype, false);
}

int kmodel_kfree(struct kmodel *m, unsigned int cpu, uint64_t pfn,
		 unsigned int order, unsigned int migratetype)
{
	return model_free(m, cpu, pfn, order, migratetype, true);
}

unsigned long kmodel_parked(const struct kmodel *m)
{
	unsigned long sum = 0;
	unsigned int cpu;

	for (cpu = 0; cpu < m->nr_cpus; cpu++)
		sum += m->parked[cpu];
	return sum;
}

unsigned long kmodel_cpu_parked(const struct kmodel *m, unsigned int cpu)
{
	return cpu < m->nr_cpus ? m->parked[cpu] : 0;
}

unsigned long kmodel_list_len(const struct kmodel *m, unsigned int cpu,
			      unsigned int zone, unsigned int order,
			      unsigned int migratetype)
{
	int pindex;

	if (cpu >= m->nr_cpus || zone >= m->nr_zones)
		return 0;
	pindex = pindex_of(m, order, migratetype);
	if (pindex < 0)
		return 0;
	return pcp_of(m, cpu, zone)->lists[pindex];
}

int kmodel_free_factor(const struct kmodel *m, unsigned int cpu,
		       unsigned int zone)
{
	if (cpu >= m->nr_cpus || zone >= m->nr_zones)
		return -1;
	return pcp_of(m, cpu, zone)->free_factor;
}

const struct kmodel_cpu_result *kmodel_cpu(const struct kmodel *m,
					   unsigned int cpu)
{
	return cpu < m->nr_cpus ? &m->res[cpu] : NULL;
}
