/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcpcache compat: the one place for differences between the kernels
 * pcpcache builds against (Debian's 6.1, 6.12, 7.2 and 7.3). Code
 * elsewhere calls the pcpcache_* names below and never tests
 * LINUX_VERSION_CODE itself.
 */
#ifndef _PCPCACHE_COMPAT_H
#define _PCPCACHE_COMPAT_H

#include <linux/atomic.h>
#include <linux/gfp.h>
#include <linux/hrtimer.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/page-isolation.h>
#include <linux/pageblock-flags.h>
#include <linux/kernfs.h>
#include <linux/kobject.h>
#include <linux/shrinker.h>
#include <linux/slab.h>
#include <linux/version.h>

/*
 * Bulk allocation onto a list: __alloc_pages_bulk() since 5.13, wrapped as
 * alloc_pages_bulk_list() through 6.12. Later kernels fill an array only
 * (7.3's alloc_pages_bulk()): taken in chunks and put on the list in order.
 */
static inline unsigned int pcpcache_bulk_alloc(gfp_t gfp, unsigned int nr,
					       struct list_head *pages)
{
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 13, 0)
	return alloc_pages_bulk_list(gfp, nr, pages);
#else
	struct page *chunk[16];
	unsigned int got = 0, want, n, i;

	while (got < nr) {
		want = min_t(unsigned int, nr - got, ARRAY_SIZE(chunk));
		memset(chunk, 0, sizeof(chunk));
		n = alloc_pages_bulk(gfp, want, chunk);
		for (i = 0; i < n; i++)
			list_add_tail(&chunk[i]->lru, pages);
		got += n;
		if (n < want)
			break;
	}
	return got;
#endif
}

/*
 * Give back a list of order-0 pages with one reference each:
 * put_pages_list() through 6.12, which 7.x no longer has; there, one by
 * one.
 */
static inline void pcpcache_put_pages_list(struct list_head *pages)
{
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 13, 0)
	put_pages_list(pages);
#else
	struct page *page, *next;

	list_for_each_entry_safe(page, next, pages, lru) {
		list_del(&page->lru);
		__free_page(page);
	}
#endif
}

/*
 * The page's flags word, as free_page_is_bad() reads it: a plain word
 * through 6.12, inside memdesc_flags_t since 6.18.
 */
static __always_inline unsigned long pcpcache_page_flags(struct page *page)
{
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 18, 0)
	return READ_ONCE(page->flags);
#else
	return READ_ONCE(page->flags.f);
#endif
}

/*
 * The first word of the page's union: compound_head through 6.12,
 * compound_info in 7.x, lru.next in both. Bit 0 marks a tail page
 * (PageTail()), bit 1 a page of the emergency reserves
 * (page_is_pfmemalloc()).
 */
static __always_inline unsigned long pcpcache_page_first_word(struct page *page)
{
	return (unsigned long)READ_ONCE(page->lru.next);
}

#ifndef CONFIG_SPARSEMEM
#error "pcpcache reads pageblock flags as SPARSEMEM lays them out"
#endif
/* Checked against 6.1, 6.12, 7.2 and 7.3. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 4, 0)
#error "check pcpcache_page_block_lookup() against this kernel's get_pfnblock_migratetype()"
#endif

/*
 * Whether @page lies in a CMA pageblock (whose pages must only serve
 * movable allocations) or an isolated one (being offlined or taken by
 * alloc_contig_range()). No kernel exports a way to read a pageblock's
 * migratetype (get_pfnblock_migratetype() is not exported in 6.1, 6.12
 * nor 7.3), so this reads the pageblock bitmap of the page's memory
 * section as that function does under SPARSEMEM: through 6.12 four bits a
 * block, isolation one of the migratetypes; in 7.x eight bits a block,
 * isolation a bit of its own (PB_migrate_isolate) beside the migratetype.
 */
static inline bool pcpcache_page_block_lookup(struct page *page)
{
	unsigned long pfn, bitidx, word, bits;

	pfn = page_to_pfn(page);
	bitidx = ((pfn & (PAGES_PER_SECTION - 1)) >> pageblock_order) *
		 NR_PAGEBLOCK_BITS;
	word = READ_ONCE(section_to_usemap(__pfn_to_section(pfn))[bitidx / BITS_PER_LONG]);
	bits = word >> (bitidx % BITS_PER_LONG);
#ifdef PAGEBLOCK_MIGRATETYPE_MASK
	static_assert(NR_PAGEBLOCK_BITS == 8, "8 bits a pageblock, as read here");
	if (bits & PAGEBLOCK_ISO_MASK)
		return true;
	return is_migrate_cma(bits & PAGEBLOCK_MIGRATETYPE_MASK);
#else
	static_assert(NR_PAGEBLOCK_BITS == 4, "4 bits a pageblock, as read here");
	bits &= MIGRATETYPE_MASK;
	return is_migrate_cma(bits) || is_migrate_isolate(bits);
#endif
}

/* Whether @zone has an isolated pageblock: zone->lock's count, read racily. */
static __always_inline bool pcpcache_zone_isolating(struct zone *zone)
{
#ifdef PAGEBLOCK_MIGRATETYPE_MASK
#ifdef CONFIG_MEMORY_ISOLATION
	return READ_ONCE(zone->nr_isolate_pageblock);
#else
	return false;
#endif
#else
	return has_isolate_pageblock(zone);
#endif
}

/*
 * Inline on the fast path: one test of the zone when it has no such block,
 * the lookup apart, where the compiler keeps it out of the way.
 */
static __always_inline bool pcpcache_page_block_refused(struct page *page)
{
	struct zone *zone = page_zone(page);

	if (likely(!pcpcache_zone_isolating(zone) && !zone_cma_pages(zone)))
		return false;
	return pcpcache_page_block_lookup(page);
}

/*
 * sysfs's binary attributes: 7.x's groups and callbacks take them const,
 * 6.12's do not.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 16, 0)
#define pcpcache_bin_attr_const const
#else
#define pcpcache_bin_attr_const
#endif

/*
 * The mask for the blocks a refill takes beyond the caller's: only what
 * the buddy allocator has at hand, without reclaim, the reserves or a
 * promise not to fail. __GFP_ATOMIC, a claim on the reserves, went away
 * in 6.3.
 */
static inline gfp_t pcpcache_gfp_opportunistic(gfp_t gfp)
{
	gfp &= ~(__GFP_DIRECT_RECLAIM | __GFP_HIGH | __GFP_NOFAIL | __GFP_MEMALLOC);
#ifdef __GFP_ATOMIC
	gfp &= ~__GFP_ATOMIC;
#endif
	return gfp | __GFP_NOWARN | __GFP_NORETRY;
}

/*
 * Shrinkers: 6.7 replaced register_shrinker() on a caller's struct with
 * shrinker_alloc() and shrinker_register(). pcpcache's is NUMA aware.
 */
static inline struct shrinker *
pcpcache_shrinker_create(const char *name, long batch,
			 unsigned long (*count)(struct shrinker *,
						struct shrink_control *),
			 unsigned long (*scan)(struct shrinker *,
					       struct shrink_control *))
{
	struct shrinker *shrinker;

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
	shrinker = shrinker_alloc(SHRINKER_NUMA_AWARE, "%s", name);
	if (!shrinker)
		return NULL;
	shrinker->count_objects = count;
	shrinker->scan_objects = scan;
	shrinker->batch = batch;
	shrinker_register(shrinker);
#else
	shrinker = kzalloc(sizeof(*shrinker), GFP_KERNEL);
	if (!shrinker)
		return NULL;
	shrinker->count_objects = count;
	shrinker->scan_objects = scan;
	shrinker->seeks = DEFAULT_SEEKS;
	shrinker->batch = batch;
	shrinker->flags = SHRINKER_NUMA_AWARE;
	if (register_shrinker(shrinker, "%s", name)) {
		kfree(shrinker);
		return NULL;
	}
#endif
	return shrinker;
}

static inline void pcpcache_shrinker_destroy(struct shrinker *shrinker)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
	shrinker_free(shrinker);
#else
	unregister_shrinker(shrinker);
	kfree(shrinker);
#endif
}

/* 6.3 made vma->vm_flags read-only, written through vm_flags_set(). */
static inline void pcpcache_vm_flags_set(struct vm_area_struct *vma,
					 vm_flags_t flags)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_set(vma, flags);
#else
	vma->vm_flags |= flags;
#endif
}

/*
 * /sys/kernel/mm, for the sysfs files: mm_kobj, which 6.6 stopped
 * exporting ("mm: no need to export mm_kobj"). From then on it is found by
 * name under /sys/kernel: sysfs keeps a kobject as the private data of its
 * directory's kernfs node. Returns it with a reference taken, or NULL.
 */
static inline struct kobject *pcpcache_mm_kobj_get(void)
{
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 6, 0)
	return kobject_get(mm_kobj);
#else
	struct kernfs_node *kn = kernfs_find_and_get(kernel_kobj->sd, "mm");
	struct kobject *kobj = NULL;

	if (kn) {
		kobj = kobject_get(kn->priv);
		kernfs_put(kn);
	}
	return kobj;
#endif
}

/*
 * Per-CPU workqueues: 6.17 asks for WQ_PERCPU (a workqueue without it or
 * WQ_UNBOUND is warned about, then made per-CPU) and renamed system_wq
 * system_percpu_wq; before, per-CPU was what no flag meant.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 17, 0)
#define PCPCACHE_WQ_PERCPU		WQ_PERCPU
#define pcpcache_system_percpu_wq	system_percpu_wq
#else
#define PCPCACHE_WQ_PERCPU		0
#define pcpcache_system_percpu_wq	system_wq
#endif

/*
 * For the test modules (module/tests/): the timer and cpumask calls 7.x
 * renamed, and driver-movable pages, which 7.x keeps for its own page
 * types (set_movable_ops() is not exported).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 15, 0)
#define pcpcache_cpumask_next_wrap(n, mask)	cpumask_next_wrap(n, mask)
#else
#define pcpcache_cpumask_next_wrap(n, mask)	cpumask_next_wrap(n, mask, -1, false)
#endif

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 16, 0)
#define pcpcache_from_timer(var, timer, field)	timer_container_of(var, timer, field)
#else
#define pcpcache_from_timer(var, timer, field)	from_timer(var, timer, field)
#endif

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#define pcpcache_timer_delete_sync(timer)	timer_delete_sync(timer)
#else
#define pcpcache_timer_delete_sync(timer)	del_timer_sync(timer)
#endif

static inline void
pcpcache_hrtimer_setup(struct hrtimer *timer,
		       enum hrtimer_restart (*fn)(struct hrtimer *),
		       clockid_t clock, enum hrtimer_mode mode)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
	hrtimer_setup(timer, fn, clock, mode);
#else
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
#endif
}

/*
 * The page allocator's entry, which every allocation passes with its order
 * as argument 1, for a kprobe: renamed for memory allocation profiling in
 * 6.10, and called through its frozen-page core since 6.14.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 14, 0)
#define PCPCACHE_ALLOC_PAGES_SYMBOL	"__alloc_frozen_pages_noprof"
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define PCPCACHE_ALLOC_PAGES_SYMBOL	"__alloc_pages_noprof"
#else
#define PCPCACHE_ALLOC_PAGES_SYMBOL	"__alloc_pages"
#endif

/* Whether a module can mark a page movable with operations of its own. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 13, 0)
#define PCPCACHE_MODULE_MOVABLE_OPS 1
#endif

#endif /* _PCPCACHE_COMPAT_H */
