/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcpcache: per-CPU page magazines backed by alloc_pages().
 *
 * The API for other kernel code. See Documentation/admin-guide/pcpcache.rst.
 *
 * Context: the page allocator's rules. Both functions may be called from
 * process, softirq and hard interrupt context, and with spinlocks held or
 * preemption disabled, with a gfp mask that does not sleep there
 * (GFP_ATOMIC, GFP_NOWAIT); might_alloc() checks it on every call. On
 * PREEMPT_RT the magazine lock sleeps, so, as with alloc_pages() there,
 * they may not be called from hard interrupt context that is not
 * threaded, with a raw spinlock held, or with preemption or interrupts
 * disabled; a lockdep kernel asserts the first. Never from NMI context:
 * the _nolock() calls at the end are for that.
 */
#ifndef _LINUX_PCPCACHE_H
#define _LINUX_PCPCACHE_H

#include <linux/gfp.h>
#include <linux/types.h>

struct page;

/**
 * pcpcache_alloc_page - allocate one order-0 page from this CPU's magazine
 * @gfp: as for alloc_page(); a caller in atomic context passes a mask that
 *	 does not sleep (GFP_ATOMIC, GFP_NOWAIT). Zone modifiers,
 *	 __GFP_ACCOUNT and __GFP_COMP are refused: use alloc_pages().
 * @cold: the caller will not touch the page soon (DMA target, readahead):
 *	  hand out the coldest page instead of the hottest
 *
 * The page is cleared when @gfp has __GFP_ZERO or the kernel runs with
 * init_on_alloc or init_on_free, as a page from alloc_page() would be. A
 * task whose memory policy or cpuset excludes this CPU's node gets its
 * page from alloc_page(), which honours them.
 *
 * Return: the page, or NULL when none could be had.
 */
struct page *pcpcache_alloc_page(gfp_t gfp, bool cold);

/**
 * pcpcache_free_page - free one order-0 page into this CPU's magazine
 * @page: a page from pcpcache_alloc_page() or alloc_page(), not in use
 * @cold: the page is not in this CPU's cache (it was DMAed into, or not
 *	  touched for long): put it where it is handed out last
 *
 * May be called on any CPU, in any context pcpcache_alloc_page() may be.
 * A page the buddy allocator would not put on its own per-CPU lists
 * (poisoned, from the emergency reserves, compound, of a CMA or isolated
 * pageblock, of another node) or that someone else still holds a
 * reference to goes back to the buddy allocator instead.
 */
void pcpcache_free_page(struct page *page, bool cold);

/* Orders 0 to 3 are cached, as the kernel's per-CPU lists do since 5.13. */
#define PCPCACHE_MAX_CACHED_ORDER	3

/**
 * pcpcache_alloc_pages - allocate a block of 2^@order pages
 * @gfp: as for pcpcache_alloc_page()
 * @order: as for alloc_pages(); orders above PCPCACHE_MAX_CACHED_ORDER
 *	   come from the buddy allocator
 * @cold: as for pcpcache_alloc_page()
 *
 * The block is not a compound page: free it with pcpcache_free_pages() of
 * the same order, or __free_pages().
 *
 * Return: the block's first page, or NULL when none could be had.
 */
struct page *pcpcache_alloc_pages(gfp_t gfp, unsigned int order, bool cold);

/**
 * pcpcache_free_pages - free a block of 2^@order pages into this CPU's magazine
 * @page: its first page: from pcpcache_alloc_pages() or alloc_pages() of
 *	  @order, without __GFP_COMP
 * @order: its order
 * @cold: as for pcpcache_free_page()
 *
 * As pcpcache_free_page(), for a block.
 */
void pcpcache_free_pages(struct page *page, unsigned int order, bool cold);

/**
 * pcpcache_alloc_page_nolock - an order-0 page from this CPU's magazine, if it can
 * @cold: as for pcpcache_alloc_page()
 *
 * Context: any, NMI included, as alloc_pages_nolock(): the magazine's lock
 * is only tried, and the buddy allocator never called. Under lock=local,
 * which has no lock to try, and on PREEMPT_RT in hard interrupt or NMI
 * context, where the lock sleeps, it always fails. The page is cleared
 * under init_on_alloc or init_on_free.
 *
 * Return: the page, or NULL (counted in nolock_fail) when the lock was
 * held or the magazine had none.
 */
struct page *pcpcache_alloc_page_nolock(bool cold);

/**
 * pcpcache_free_page_nolock - free an order-0 page from any context
 * @page: as for pcpcache_free_page()
 *
 * Context: any, NMI included. The page goes into this CPU's magazine (or,
 * in remote mode, to the CPU that owns it) when the magazine's lock can
 * be had at once; otherwise, and whenever pcpcache_free_page() would give
 * it to the buddy allocator, an irq_work on this CPU frees it soon after
 * (counted in nolock_deferred). It is never lost.
 */
void pcpcache_free_page_nolock(struct page *page);

#endif /* _LINUX_PCPCACHE_H */
