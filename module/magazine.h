/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcpcache magazines: one CPU's cached pages and the rules for where a page
 * goes in and comes out. The caller provides the locking (see lock.h).
 *
 * Nothing here may call into the kernel beyond <linux/list.h>: module/tests/
 * compiles magazine.c unchanged in userspace against the kernel's
 * tools/include/linux/list.h.
 */
#ifndef _PCPCACHE_MAGAZINE_H
#define _PCPCACHE_MAGAZINE_H

#include <linux/list.h>

#include "policy.h"

/*
 * Which list a page goes to in split mode; single, remote and blocks modes
 * use only the first. In barn mode the first is the main magazine, the
 * second the spare.
 */
enum pcpcache_list_id {
	PCPCACHE_LIST_HOT,
	PCPCACHE_LIST_COLD,
	PCPCACHE_NR_LISTS,
};

/*
 * Orders 0 to 3 are cached, as the kernel's per-CPU lists do since 5.13
 * (up to PAGE_ALLOC_COSTLY_ORDER); larger ones go to the buddy allocator.
 */
#define PCPCACHE_NR_ORDERS	4

/*
 * One temperature's pages, all of them in single mode: a list of blocks per
 * order, and limits in base pages across the orders, as the kernel counts
 * its pcp count and high. count, nr, batch and high are read without the
 * lock by pagesets and the shrinker's count: they are written with
 * WRITE_ONCE().
 */
struct pcpcache_list {
	struct list_head pages[PCPCACHE_NR_ORDERS];	/* head hot, tail cold */
	unsigned int nr[PCPCACHE_NR_ORDERS];		/* blocks on each */
	unsigned int count;		/* base pages on all of them */
	unsigned int batch;		/* base pages per refill and per drain */
	unsigned int high;		/* drain once count exceeds this */
};

/*
 * With high auto-tuned, the (hot) list's high moves between high_min and
 * high_max: up a batch on a refill, down an eighth a decay tick, to
 * high_min when the shrinker asks, as the kernel's since 6.7 (the "mm:
 * PCP high auto-tuning" series). It does not grow again until the next
 * decay tick after a cut, as the kernel's stops while reclaim runs.
 */
struct pcpcache_mag {
	enum pcpcache_mode mode;
	bool high_auto;
	bool high_cut;			/* cut since the last decay tick */
	unsigned int high_min, high_max;
	struct pcpcache_list lists[PCPCACHE_NR_LISTS];
};

/*
 * A decay tick never takes high below count - batch << this, so that a
 * busy CPU keeps what it uses; the kernel's CONFIG_PCP_BATCH_SCALE_MAX,
 * 5 by default.
 */
#define PCPCACHE_DECAY_BATCH_SCALE	5

/* Blocks cut off a magazine, by order, for the caller to give back. */
struct pcpcache_cut {
	struct list_head pages[PCPCACHE_NR_ORDERS];
	unsigned int count;		/* base pages */
};

void mag_init(struct pcpcache_mag *mag, const struct pcpcache_config *cfg);
void mag_cut_init(struct pcpcache_cut *cut);
unsigned int mag_trim(struct pcpcache_list *list, unsigned int order,
		      struct pcpcache_cut *cut);
unsigned int mag_trim_to_high(struct pcpcache_list *list,
			      struct pcpcache_cut *cut, unsigned int max);
void mag_add_refill(struct pcpcache_list *list, unsigned int order,
		    struct list_head *pages, unsigned int nr);
unsigned int mag_reconfigure(struct pcpcache_mag *mag,
			     const struct pcpcache_config *cfg,
			     struct pcpcache_cut *cut);
unsigned int mag_trim_excess(struct pcpcache_mag *mag, struct pcpcache_cut *cut,
			     unsigned int max);
unsigned int mag_trim_refill(struct pcpcache_mag *mag,
			     struct pcpcache_list *list,
			     struct pcpcache_cut *cut, unsigned int max);
unsigned int mag_drain(struct pcpcache_mag *mag, struct pcpcache_cut *cut);
unsigned int mag_shrink(struct pcpcache_mag *mag, unsigned int nr,
			struct pcpcache_cut *cut);
unsigned int mag_count(const struct pcpcache_mag *mag);
bool mag_high_grow(struct pcpcache_mag *mag);
bool mag_high_decay(struct pcpcache_mag *mag);
bool mag_high_cut(struct pcpcache_mag *mag);

/*
 * barn mode: a node's barn, its full magazines as SLUB's barn keeps full
 * sheaves (mm/slub.c, 6.18), here without its lock (barn.c). Each order
 * has a stack of full magazines, the oldest at the bottom, each a list of
 * the blocks a CPU's main magazine held when it was given in. An empty
 * magazine of pages holds nothing, so the barn keeps none, nor a count of
 * them. min_full is Bonwick's working-set estimate, the fewest full
 * magazines the barn had since the last trim: that many were not needed,
 * and the trim gives them back. pages is read unlocked.
 */
struct pcpcache_depot {
	struct list_head full[PCPCACHE_NR_ORDERS][PCPCACHE_BARN_MAX];
	unsigned int full_blocks[PCPCACHE_NR_ORDERS][PCPCACHE_BARN_MAX];
	unsigned int nr_full[PCPCACHE_NR_ORDERS];
	unsigned int min_full[PCPCACHE_NR_ORDERS];
	unsigned int max_full;
	unsigned int pages;
};

/* What mag_barn_refill() and mag_barn_overflow() did. */
enum mag_barn_done {
	MAG_BARN_NONE,		/* nothing: the barn had none, or no room */
	MAG_BARN_SWAPPED,	/* main and spare changed places */
	MAG_BARN_TOOK_FULL,	/* a full magazine for the empty main */
	MAG_BARN_GAVE_FULL,	/* the full main for an empty magazine */
	MAG_BARN_FLUSHED,	/* the full main cut, the barn had no room */
};

void mag_depot_init(struct pcpcache_depot *d, const struct pcpcache_config *cfg);
unsigned int mag_depot_reconfigure(struct pcpcache_depot *d,
				   const struct pcpcache_config *cfg,
				   struct pcpcache_cut *cut);
unsigned int mag_depot_cut(struct pcpcache_depot *d, unsigned int want,
			   struct pcpcache_cut *cut);
unsigned int mag_depot_trim(struct pcpcache_depot *d, struct pcpcache_cut *cut);
unsigned int mag_depot_count(const struct pcpcache_depot *d);
enum mag_barn_done mag_barn_refill(struct pcpcache_mag *mag,
				   struct pcpcache_depot *d, unsigned int order);
enum mag_barn_done mag_barn_overflow(struct pcpcache_mag *mag,
				     struct pcpcache_depot *d,
				     unsigned int order,
				     struct pcpcache_cut *cut);

/* The modes whose frees go to the CPU that owns the page (owner.c). */
static inline bool mag_routes_frees(enum pcpcache_mode mode)
{
	return mode == PCPCACHE_MODE_REMOTE || mode == PCPCACHE_MODE_BLOCKS;
}

/**
 * mag_batch - the blocks of one order a refill takes
 * @batch: the list's batch, in base pages
 * @order: the order
 *
 * batch >> order, at least one block, as the kernel scales its pcp batch.
 *
 * Return: the number of blocks.
 */
static inline unsigned int mag_batch(unsigned int batch, unsigned int order)
{
	return batch >> order ? batch >> order : 1;
}

/*
 * The operations of every allocation and free are inline: they run with
 * interrupts off on the fast path, where a call is a measurable share.
 */

/**
 * mag_list - the list a page of the given temperature goes to or comes from
 * @mag: the magazine
 * @cold: the caller's hint
 *
 * Return: the list, or NULL in passthrough mode, which caches nothing.
 */
static inline struct pcpcache_list *mag_list(struct pcpcache_mag *mag, bool cold)
{
	/* every mode but these two has one list, or a main magazine */
	if (unlikely(mag->mode == PCPCACHE_MODE_PASSTHROUGH))
		return NULL;
	if (mag->mode == PCPCACHE_MODE_SPLIT && cold)
		return &mag->lists[PCPCACHE_LIST_COLD];
	return &mag->lists[PCPCACHE_LIST_HOT];
}

/* Only one list keeps both temperatures, cold at the tail. */
static inline bool mag_from_tail(const struct pcpcache_mag *mag, bool cold)
{
	return cold && mag->mode != PCPCACHE_MODE_SPLIT;
}

/**
 * mag_take - take a block for an allocation
 * @mag: the magazine
 * @order: its order, below PCPCACHE_NR_ORDERS
 * @cold: the caller's hint
 *
 * Return: the block's node, unlinked, or NULL when the list it would come
 * from has none of @order (the caller refills it) or in passthrough mode.
 */
static inline struct list_head *mag_take(struct pcpcache_mag *mag,
					 unsigned int order, bool cold)
{
	struct pcpcache_list *list = mag_list(mag, cold);
	struct list_head *node;

	if (!list || !list->nr[order])
		return NULL;
	node = mag_from_tail(mag, cold) ? list->pages[order].prev :
					  list->pages[order].next;
	list_del(node);
	WRITE_ONCE(list->nr[order], list->nr[order] - 1);
	WRITE_ONCE(list->count, list->count - (1U << order));
	return node;
}

/**
 * mag_put - cache a freed block
 * @mag: the magazine
 * @page: the block's node
 * @order: its order, below PCPCACHE_NR_ORDERS
 * @cold: the caller's hint
 *
 * The caller then calls mag_trim() on the list if mag_over_high() says so.
 *
 * Return: the list @page went on, or NULL in passthrough mode, where @page
 * is left to the caller.
 */
static inline struct pcpcache_list *mag_put(struct pcpcache_mag *mag,
					    struct list_head *page,
					    unsigned int order, bool cold)
{
	struct pcpcache_list *list = mag_list(mag, cold);

	if (!list)
		return NULL;
	if (mag_from_tail(mag, cold))
		list_add_tail(page, &list->pages[order]);
	else
		list_add(page, &list->pages[order]);
	WRITE_ONCE(list->nr[order], list->nr[order] + 1);
	WRITE_ONCE(list->count, list->count + (1U << order));
	return list;
}

/**
 * mag_over_high - whether a list went over its high mark
 * @list: the list
 *
 * In barn mode the main magazine's high is its batch: over it, a free
 * goes to mag_barn_overflow().
 *
 * Return: true when mag_trim() has pages to give back.
 */
static inline bool mag_over_high(const struct pcpcache_list *list)
{
	return list->count > list->high;
}

#endif /* _PCPCACHE_MAGAZINE_H */
