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

/*
 * Shrinkers: 6.7 replaced register_shrinker() on a caller's struct with
 * shrinker_alloc() and shrinker_register().
 */
static inline struct shrinker *
pcpcache_shrinker_create(const char *name,
			 unsigned long (*count)(struct shrinker *,
						struct shrink_control *),
			 unsigned long (*scan)(struct shrinker *,
					       struct shrink_control *))
{
	struct shrinker *shrinker;

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
	shrinker = shrinker_alloc(0, "%s", name);
	if (!shrinker)
		return NULL;
	shrinker->count_objects = count;
	shrinker->scan_objects = scan;
	shrinker_register(shrinker);
#else
	shrinker = kzalloc(sizeof(*shrinker), GFP_KERNEL);
	if (!shrinker)
		return NULL;
	shrinker->count_objects = count;
	shrinker->scan_objects = scan;
	shrinker->seeks = DEFAULT_SEEKS;
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
