// SPDX-License-Identifier: GPL-2.0
/*
 * pcpcache's way back to the buddy allocator: a block, or a cut of a
 * magazine's blocks, with the reference each gets back on the way. The
 * lowest layer of the module's calls: it calls none of its other files
 * but the counters.
 */
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/page_ref.h>

#include "compat.h"
#include "pcpcache.h"

/*
 * Free a block of @order, with its one reference, to the buddy allocator.
 * The buddy allocator keeps a poisoned page for good only when it is freed
 * alone (free_pages_prepare()): a block with one is split first. A compound
 * page, which split_page() must never see (a passthrough or order >= 4
 * free, where the refusal checks are not made), is freed whole, as the
 * kernel frees one.
 */
void pcpcache_free_block(struct page *page, unsigned int order)
{
	unsigned int i;

	if (order && !PageCompound(page) &&
	    unlikely(pcpcache_block_poisoned(page, order))) {
		split_page(page, order);
		for (i = 0; i < 1U << order; i++)
			__free_page(page + i);
		return;
	}
	__free_pages(page, order);
}

/**
 * pcpcache_free_cut - give the blocks of a cut to the buddy allocator
 * @cut: the blocks, which have no reference
 *
 * Order 0 in one batch, larger orders block by block; counted in
 * buddy_free. Blocks mode's pages go home to their blocks first, in
 * pcpcache_give_back(): this is what is left.
 */
void pcpcache_free_cut(struct pcpcache_cut *cut)
{
	struct page *page, *next;
	unsigned int order;

	if (!cut->count)
		return;
	list_for_each_entry(page, &cut->pages[0], lru) {
		set_page_private(page, 0);
		page_ref_unfreeze(page, 1);
	}
	pcpcache_put_pages_list(&cut->pages[0]);
	for (order = 1; order < PCPCACHE_NR_ORDERS; order++) {
		list_for_each_entry_safe(page, next, &cut->pages[order], lru) {
			list_del(&page->lru);
			set_page_private(page, 0);
			page_ref_unfreeze(page, 1);
			pcpcache_free_block(page, order);
		}
	}
	pcpcache_count(PCPCACHE_BUDDY_FREE, cut->count);
	cut->count = 0;
}
