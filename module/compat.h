/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcpcache compat: the one place for differences between the kernels
 * pcpcache builds against (Debian's 6.1 and 6.12). Code elsewhere calls the
 * pcpcache_* names below and never tests LINUX_VERSION_CODE itself.
 */
#ifndef _PCPCACHE_COMPAT_H
#define _PCPCACHE_COMPAT_H

#include <linux/atomic.h>
#include <linux/gfp.h>
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
 * alloc_pages_bulk_list() through 6.12 at least.
 */
static inline unsigned int pcpcache_bulk_alloc(gfp_t gfp, unsigned int nr,
					       struct list_head *pages)
{
	return alloc_pages_bulk_list(gfp, nr, pages);
}

#ifndef CONFIG_SPARSEMEM
#error "pcpcache reads pageblock flags as SPARSEMEM lays them out"
#endif
/* Checked against 6.1 and 6.12; later kernels change the pageblock bits. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#error "check pcpcache_page_block_lookup() against this kernel's get_pfnblock_flags_mask()"
#endif
static_assert(NR_PAGEBLOCK_BITS == 4, "pcpcache_page_block_lookup() reads 4 bits a block");

/*
 * Whether @page lies in a CMA pageblock (whose pages must only serve
 * movable allocations) or an isolated one (being offlined or taken by
 * alloc_contig_range()). No kernel exports a way to read a pageblock's
 * migratetype (get_pfnblock_flags_mask() is not exported in 6.1 nor 6.12),
 * so this reads the pageblock bitmap of the page's memory section as that
 * function does under SPARSEMEM. Called by pcpcache_page_block_refused()
 * only in zones that have such blocks.
 */
static inline bool pcpcache_page_block_lookup(struct page *page)
{
	unsigned long pfn, bitidx, word;
	int migratetype;

	pfn = page_to_pfn(page);
	bitidx = ((pfn & (PAGES_PER_SECTION - 1)) >> pageblock_order) *
		 NR_PAGEBLOCK_BITS;
	word = READ_ONCE(section_to_usemap(__pfn_to_section(pfn))[bitidx / BITS_PER_LONG]);
	migratetype = (word >> (bitidx % BITS_PER_LONG)) & MIGRATETYPE_MASK;
	return is_migrate_cma(migratetype) || is_migrate_isolate(migratetype);
}

/*
 * Inline on the fast path: one test of the zone when it has no such block,
 * the lookup apart, where the compiler keeps it out of the way.
 */
static __always_inline bool pcpcache_page_block_refused(struct page *page)
{
	struct zone *zone = page_zone(page);

	if (likely(!has_isolate_pageblock(zone) && !zone_cma_pages(zone)))
		return false;
	return pcpcache_page_block_lookup(page);
}

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

#endif /* _PCPCACHE_COMPAT_H */
