/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcpcache compat: the one place for differences between the kernels
 * pcpcache builds against (Debian's 6.1 and 6.12). Code elsewhere calls the
 * pcpcache_* names below and never tests LINUX_VERSION_CODE itself.
 */
#ifndef _PCPCACHE_COMPAT_H
#define _PCPCACHE_COMPAT_H

#include <linux/gfp.h>

/*
 * Bulk allocation onto a list: __alloc_pages_bulk() since 5.13, wrapped as
 * alloc_pages_bulk_list() through 6.12 at least.
 */
static inline unsigned int pcpcache_bulk_alloc(gfp_t gfp, unsigned int nr,
					       struct list_head *pages)
{
	return alloc_pages_bulk_list(gfp, nr, pages);
}

#endif /* _PCPCACHE_COMPAT_H */
