// SPDX-License-Identifier: GPL-2.0
/*
 * pcpcache magazines: the list discipline of one CPU's cached pages.
 *
 * Blocks of 2^order pages are threaded through the first page's lru; here
 * they are only list nodes, so the host unit tests can drive this file with
 * nodes of their own.
 *
 * Within a list the head is the hot end and the tail the cold end, as in
 * the kernel's own per-CPU lists: a hot free pushes at the head, a hot
 * allocation pops from the head, drains and cold allocations work from the
 * tail. In split mode (2.6.23's pcp[2]) each temperature has its own lists
 * with their own batch and high, and a list that runs empty is refilled
 * from the buddy allocator even when the other list has pages: a cold
 * request never takes a hot page (that would spend cache-warm memory on a
 * caller who said it will not touch it soon, the very thing split lists
 * exist to prevent) and a hot request never takes a cold one. That is what
 * 2.6.23 did, so measurements of split mode reproduce it.
 *
 * Each temperature keeps a list per order, 0 to 3, as the kernel does since
 * 5.13; count, batch and high are in base pages across them. A free that
 * takes the count over high gives back batch base pages, from the cold end
 * of the freed order's list first, then of the next orders in turn, as
 * free_pcppages_bulk() starts from the list that overflowed. Other cuts
 * (a lowered high, a shrink) start at the largest order: fewer blocks to
 * walk for the same pages, and whole blocks for the buddy allocator to
 * merge.
 *
 * Kept free of kernel-only calls; see magazine.h.
 */
#include "magazine.h"

static void list_set_limits(struct pcpcache_list *list, unsigned int batch,
			    unsigned int high)
{
	WRITE_ONCE(list->batch, batch);
	WRITE_ONCE(list->high, high);
}

static void list_init(struct pcpcache_list *list, unsigned int batch,
		      unsigned int high)
{
	unsigned int order;

	for (order = 0; order < PCPCACHE_NR_ORDERS; order++) {
		INIT_LIST_HEAD(&list->pages[order]);
		WRITE_ONCE(list->nr[order], 0);
	}
	WRITE_ONCE(list->count, 0);
	list_set_limits(list, batch, high);
}

/**
 * mag_init - set up an empty magazine
 * @mag: the magazine
 * @cfg: its mode and limits
 */
void mag_init(struct pcpcache_mag *mag, const struct pcpcache_config *cfg)
{
	bool barn = cfg->mode == PCPCACHE_MODE_BARN;

	WRITE_ONCE(mag->mode, cfg->mode);
	mag->high_auto = cfg->high_auto && !barn;
	mag->high_cut = false;
	mag->high_min = cfg->high_min;
	mag->high_max = cfg->high_max;
	list_init(&mag->lists[PCPCACHE_LIST_HOT], cfg->batch,
		  barn ? cfg->batch :
		  cfg->high_auto ? cfg->high_min : cfg->high);
	list_init(&mag->lists[PCPCACHE_LIST_COLD],
		  barn ? cfg->batch : cfg->cold_batch,
		  barn ? cfg->batch : cfg->cold_high);
}

/**
 * mag_cut_init - start an empty set of cut blocks
 * @cut: the set
 */
void mag_cut_init(struct pcpcache_cut *cut)
{
	unsigned int order;

	for (order = 0; order < PCPCACHE_NR_ORDERS; order++)
		INIT_LIST_HEAD(&cut->pages[order]);
	cut->count = 0;
}

/*
 * Move the @nr coldest blocks of @order of @list to @cut, walking from
 * whichever end is nearer the cut: at most @nr + 1 nodes.
 */
static void cut_tail(struct pcpcache_list *list, unsigned int order,
		     unsigned int nr, struct pcpcache_cut *cut)
{
	struct list_head *pages = &list->pages[order];
	struct list_head *last_kept = pages;
	unsigned int have = list->nr[order], i;
	struct list_head kept;

	if (!nr)
		return;
	if (nr > have)
		nr = have;
	if (nr == have) {
		list_splice_tail_init(pages, &cut->pages[order]);
	} else {
		if (nr < have - nr) {
			for (i = 0; i < nr + 1; i++)
				last_kept = last_kept->prev;
		} else {
			for (i = 0; i < have - nr; i++)
				last_kept = last_kept->next;
		}
		/* cut the kept part off, the rest goes out, then put it back */
		list_cut_position(&kept, pages, last_kept);
		list_splice_tail_init(pages, &cut->pages[order]);
		list_splice(&kept, pages);
	}
	WRITE_ONCE(list->nr[order], have - nr);
	WRITE_ONCE(list->count, list->count - (nr << order));
	cut->count += nr << order;
}

/* Where cuts start: the order that overflowed and up, or the largest down. */
#define FROM_LARGEST	PCPCACHE_NR_ORDERS

/*
 * Cut at least @want base pages (fewer if the list has fewer) from the cold
 * ends of @list's orders, starting at @first and taking the next orders up
 * in turn, or from the largest order down (FROM_LARGEST); at most @max
 * blocks. Return: the base pages cut.
 */
static unsigned int cut_pages(struct pcpcache_list *list, unsigned int first,
			      unsigned int want, unsigned int max,
			      struct pcpcache_cut *cut)
{
	unsigned int i, order, blocks, got = 0;

	for (i = 0; i < PCPCACHE_NR_ORDERS && got < want && max; i++) {
		if (first == FROM_LARGEST)
			order = PCPCACHE_NR_ORDERS - 1 - i;
		else
			order = (first + i) % PCPCACHE_NR_ORDERS;
		/* whole blocks: enough of them to reach @want */
		blocks = (want - got + (1U << order) - 1) >> order;
		if (blocks > list->nr[order])
			blocks = list->nr[order];
		if (blocks > max)
			blocks = max;
		cut_tail(list, order, blocks, cut);
		got += blocks << order;
		max -= blocks;
	}
	return got;
}

/**
 * mag_trim - drain a list that went over its high mark
 * @list: the list a block was just put on
 * @order: that block's order, where draining starts
 * @cut: where the drained blocks go, for the caller to free
 *
 * Return: the base pages moved to @cut: batch of them from the cold ends
 * once count exceeds high (a block more if a block straddles batch), else
 * none.
 */
unsigned int mag_trim(struct pcpcache_list *list, unsigned int order,
		      struct pcpcache_cut *cut)
{
	if (list->count <= list->high)
		return 0;
	return cut_pages(list, order, list->batch, list->batch, cut);
}

/**
 * mag_add_refill - cache the blocks a refill brought from the buddy allocator
 * @list: the list that ran empty
 * @order: their order
 * @pages: the blocks, emptied by the call
 * @nr: how many there are
 *
 * Fresh pages are not in any CPU cache, so they go to the cold end, behind
 * pages freed while the refill ran. The caller then calls
 * mag_trim_to_high().
 */
void mag_add_refill(struct pcpcache_list *list, unsigned int order,
		    struct list_head *pages, unsigned int nr)
{
	list_splice_tail_init(pages, &list->pages[order]);
	WRITE_ONCE(list->nr[order], list->nr[order] + nr);
	WRITE_ONCE(list->count, list->count + (nr << order));
}

/**
 * mag_trim_to_high - cut a list towards its high mark
 * @list: the list
 * @cut: where the surplus goes, coldest blocks first, largest order first
 * @max: the most blocks to move, which bounds the nodes walked
 *
 * Return: the base pages moved to @cut; the list is down to its high mark
 * when fewer than @max blocks moved.
 */
unsigned int mag_trim_to_high(struct pcpcache_list *list,
			      struct pcpcache_cut *cut, unsigned int max)
{
	if (list->count <= list->high)
		return 0;
	return cut_pages(list, FROM_LARGEST, list->count - list->high, max, cut);
}

/*
 * The (hot) list's high under a new configuration: the fixed one; or,
 * auto-tuned, where it was if it was auto-tuned already, within the new
 * range, else the range's bottom.
 */
static unsigned int mag_new_high(const struct pcpcache_mag *mag,
				 const struct pcpcache_config *cfg)
{
	unsigned int high = mag->lists[PCPCACHE_LIST_HOT].high;

	if (cfg->mode == PCPCACHE_MODE_BARN)
		return cfg->batch;
	if (!cfg->high_auto)
		return cfg->high;
	if (!mag->high_auto || high < cfg->high_min)
		return cfg->high_min;
	return high > cfg->high_max ? cfg->high_max : high;
}

/**
 * mag_reconfigure - switch a magazine to a new mode and new limits
 * @mag: the magazine
 * @cfg: the new configuration, already checked
 * @cut: where the pages the new configuration cannot keep go
 *
 * Passthrough keeps nothing, nor does entering remote or blocks mode from
 * another (its pages' owners were not noted, nor their blocks). Leaving
 * split or barn mode appends each order of the cold list (the spare) to
 * the cold end of that order of the one list; entering either makes the
 * one list the hot list (the main magazine). In barn mode both lists'
 * batch and high are batch, and high is not auto-tuned: a magazine's size
 * is fixed.
 * Only a drain walks a list; cutting the lists to their new high marks is
 * left to mag_trim_excess(), which bounds its walk.
 *
 * Return: the base pages moved to @cut.
 */
unsigned int mag_reconfigure(struct pcpcache_mag *mag,
			     const struct pcpcache_config *cfg,
			     struct pcpcache_cut *cut)
{
	struct pcpcache_list *hot = &mag->lists[PCPCACHE_LIST_HOT];
	struct pcpcache_list *cold = &mag->lists[PCPCACHE_LIST_COLD];
	bool barn = cfg->mode == PCPCACHE_MODE_BARN;
	unsigned int nr = 0, order;

	if (cfg->mode != PCPCACHE_MODE_SPLIT && !barn && cold->count) {
		for (order = 0; order < PCPCACHE_NR_ORDERS; order++) {
			list_splice_tail_init(&cold->pages[order], &hot->pages[order]);
			WRITE_ONCE(hot->nr[order], hot->nr[order] + cold->nr[order]);
			WRITE_ONCE(cold->nr[order], 0);
		}
		WRITE_ONCE(hot->count, hot->count + cold->count);
		WRITE_ONCE(cold->count, 0);
	}
	if (cfg->mode == PCPCACHE_MODE_PASSTHROUGH ||
	    (mag_routes_frees(cfg->mode) && mag->mode != cfg->mode))
		nr += mag_drain(mag, cut);

	/* read without the lock by the passthrough check in core.c */
	WRITE_ONCE(mag->mode, cfg->mode);
	list_set_limits(hot, cfg->batch, mag_new_high(mag, cfg));
	list_set_limits(cold, barn ? cfg->batch : cfg->cold_batch,
			barn ? cfg->batch : cfg->cold_high);
	/* auto-tuning turned on afresh starts free to grow */
	if (!mag->high_auto)
		mag->high_cut = false;
	mag->high_auto = cfg->high_auto && !barn;
	mag->high_min = cfg->high_min;
	mag->high_max = cfg->high_max;
	return nr;
}

/**
 * mag_trim_excess - cut every list towards its high mark
 * @mag: the magazine
 * @cut: where the surplus goes
 * @max: the most blocks to move, which bounds the nodes walked
 *
 * Called after mag_reconfigure() until it moves fewer than @max blocks, so
 * that a lowered high is reached in steps.
 *
 * Return: the base pages moved to @cut.
 */
unsigned int mag_trim_excess(struct pcpcache_mag *mag, struct pcpcache_cut *cut,
			     unsigned int max)
{
	unsigned int nr = 0;
	int i;

	for (i = 0; i < PCPCACHE_NR_LISTS; i++)
		nr += mag_trim_refill(mag, &mag->lists[i], cut, max);
	return nr;
}

/*
 * barn mode: cut each order of @list to a magazine's size, the coldest
 * blocks first; at most @max blocks. Return: the base pages cut.
 */
static unsigned int trim_to_magazines(struct pcpcache_list *list,
				      struct pcpcache_cut *cut,
				      unsigned int max)
{
	unsigned int order, size, over, before = cut->count;

	for (order = 0; order < PCPCACHE_NR_ORDERS && max; order++) {
		size = mag_batch(list->batch, order);
		if (list->nr[order] <= size)
			continue;
		over = list->nr[order] - size;
		if (over > max)
			over = max;
		cut_tail(list, order, over, cut);
		max -= over;
	}
	return cut->count - before;
}

/**
 * mag_trim_refill - cut a list that a refill or a reconfiguration filled
 * @mag: the list's magazine
 * @list: the list
 * @cut: where the surplus goes
 * @max: the most blocks to move, which bounds the nodes walked
 *
 * Towards its high mark (mag_trim_to_high()); in barn mode, where each
 * order is a magazine of its own, each order to a magazine's size.
 *
 * Return: the base pages moved to @cut.
 */
unsigned int mag_trim_refill(struct pcpcache_mag *mag,
			     struct pcpcache_list *list,
			     struct pcpcache_cut *cut, unsigned int max)
{
	if (mag->mode == PCPCACHE_MODE_BARN)
		return trim_to_magazines(list, cut, max);
	return mag_trim_to_high(list, cut, max);
}

/**
 * mag_drain - empty a magazine
 * @mag: the magazine
 * @cut: where its blocks go, cold ends last
 *
 * Return: the base pages moved to @cut.
 */
unsigned int mag_drain(struct pcpcache_mag *mag, struct pcpcache_cut *cut)
{
	unsigned int nr = 0, order;
	int i;

	for (i = 0; i < PCPCACHE_NR_LISTS; i++) {
		struct pcpcache_list *list = &mag->lists[i];

		nr += list->count;
		for (order = 0; order < PCPCACHE_NR_ORDERS; order++)
			cut_tail(list, order, list->nr[order], cut);
	}
	return nr;
}

/**
 * mag_shrink - give up pages because memory is short
 * @mag: the magazine
 * @nr: how many base pages, which also bounds the blocks walked
 * @cut: where they go
 *
 * The cold list goes first, then the cold end of the (hot) list; within a
 * list the largest order first.
 *
 * Return: the base pages moved to @cut: @nr, or all there were, or up to
 * a block more when a block straddles @nr.
 */
unsigned int mag_shrink(struct pcpcache_mag *mag, unsigned int nr,
			struct pcpcache_cut *cut)
{
	unsigned int moved = 0;
	int i;

	for (i = PCPCACHE_NR_LISTS - 1; i >= 0 && moved < nr; i--)
		moved += cut_pages(&mag->lists[i], FROM_LARGEST, nr - moved,
				   nr - moved, cut);
	return moved;
}

/**
 * mag_high_grow - raise an auto-tuned high after a refill of the hot list
 * @mag: the magazine
 *
 * By a batch, to high_max at most; not after a cut until the next decay
 * tick.
 *
 * Return: true when the high moved.
 */
bool mag_high_grow(struct pcpcache_mag *mag)
{
	struct pcpcache_list *list = &mag->lists[PCPCACHE_LIST_HOT];
	unsigned int high = list->high + list->batch;

	if (!mag->high_auto || mag->high_cut || list->high >= mag->high_max)
		return false;
	WRITE_ONCE(list->high, high < mag->high_max ? high : mag->high_max);
	return true;
}

/**
 * mag_high_decay - lower an auto-tuned high, once a decay tick
 * @mag: the magazine
 *
 * To the highest of: count - batch << PCPCACHE_DECAY_BATCH_SCALE, high
 * less an eighth, and high_min; the caller then trims to it. A tick also
 * lets the high grow again after a cut.
 *
 * Return: true when the high moved.
 */
bool mag_high_decay(struct pcpcache_mag *mag)
{
	struct pcpcache_list *list = &mag->lists[PCPCACHE_LIST_HOT];
	unsigned long long busy = list->batch;
	unsigned int high = list->high - list->high / 8;

	busy <<= PCPCACHE_DECAY_BATCH_SCALE;
	mag->high_cut = false;
	if (!mag->high_auto)
		return false;
	if (list->count > busy && list->count - busy > high)
		high = list->count - busy;
	if (high < mag->high_min)
		high = mag->high_min;
	if (high >= list->high)
		return false;
	WRITE_ONCE(list->high, high);
	return true;
}

/**
 * mag_high_cut - drop an auto-tuned high to high_min: memory is short
 * @mag: the magazine
 *
 * Return: true when the high moved.
 */
bool mag_high_cut(struct pcpcache_mag *mag)
{
	struct pcpcache_list *list = &mag->lists[PCPCACHE_LIST_HOT];

	if (!mag->high_auto)
		return false;
	mag->high_cut = true;
	if (list->high == mag->high_min)
		return false;
	WRITE_ONCE(list->high, mag->high_min);
	return true;
}

/**
 * mag_count - pages cached in a magazine
 * @mag: the magazine
 *
 * Return: the base pages on all its lists.
 */
unsigned int mag_count(const struct pcpcache_mag *mag)
{
	return mag->lists[PCPCACHE_LIST_HOT].count + mag->lists[PCPCACHE_LIST_COLD].count;
}

/*
 * barn mode. A CPU's main magazine is its hot list, its spare the cold
 * list, each holding up to mag_batch(batch, order) blocks of each order.
 * An allocation that finds main empty takes the spare if it has blocks,
 * else a full magazine from the barn for its empty one, else the caller
 * refills main from the buddy allocator. A free that takes main over its
 * size puts main in the spare's place if the spare is empty, else gives
 * it to the barn for an empty one, else (the barn is full) cuts it for
 * the caller to give back: the order of SLUB's sheaves (mm/slub.c:
 * alloc_from_pcs(), free_to_pcs()).
 */

/**
 * mag_depot_init - set up an empty barn
 * @d: the barn's magazines
 * @cfg: its limits
 */
void mag_depot_init(struct pcpcache_depot *d, const struct pcpcache_config *cfg)
{
	unsigned int order, i;

	for (order = 0; order < PCPCACHE_NR_ORDERS; order++) {
		for (i = 0; i < PCPCACHE_BARN_MAX; i++) {
			INIT_LIST_HEAD(&d->full[order][i]);
			d->full_blocks[order][i] = 0;
		}
		d->nr_full[order] = 0;
		d->min_full[order] = 0;
	}
	WRITE_ONCE(d->pages, 0);
	d->max_full = cfg->barn_full;
}

/* Give the @nr oldest full magazines of @order to @cut; the base pages. */
static unsigned int depot_cut_oldest(struct pcpcache_depot *d,
				     unsigned int order, unsigned int nr,
				     struct pcpcache_cut *cut)
{
	unsigned int i, pages = 0;

	if (nr > d->nr_full[order])
		nr = d->nr_full[order];
	if (!nr)
		return 0;
	for (i = 0; i < nr; i++) {
		list_splice_tail_init(&d->full[order][i], &cut->pages[order]);
		pages += d->full_blocks[order][i] << order;
	}
	for (i = nr; i < d->nr_full[order]; i++) {
		list_splice_init(&d->full[order][i], &d->full[order][i - nr]);
		d->full_blocks[order][i - nr] = d->full_blocks[order][i];
	}
	d->nr_full[order] -= nr;
	if (d->min_full[order] > d->nr_full[order])
		d->min_full[order] = d->nr_full[order];
	cut->count += pages;
	WRITE_ONCE(d->pages, d->pages - pages);
	return pages;
}

/*
 * Give the full magazines of @order larger than @size blocks to @cut (a
 * lowered batch), keeping the others in their order. Return: base pages.
 */
static unsigned int depot_cut_larger(struct pcpcache_depot *d,
				     unsigned int order, unsigned int size,
				     struct pcpcache_cut *cut)
{
	unsigned int i, kept = 0, pages = 0;

	for (i = 0; i < d->nr_full[order]; i++) {
		if (d->full_blocks[order][i] > size) {
			list_splice_tail_init(&d->full[order][i],
					      &cut->pages[order]);
			pages += d->full_blocks[order][i] << order;
			continue;
		}
		if (i != kept) {
			list_splice_init(&d->full[order][i], &d->full[order][kept]);
			d->full_blocks[order][kept] = d->full_blocks[order][i];
		}
		kept++;
	}
	d->nr_full[order] = kept;
	if (d->min_full[order] > kept)
		d->min_full[order] = kept;
	cut->count += pages;
	WRITE_ONCE(d->pages, d->pages - pages);
	return pages;
}

/**
 * mag_depot_reconfigure - put a barn's new limits in force
 * @d: the barn's magazines
 * @cfg: the new configuration, already checked
 * @cut: where the full magazines over the new limit go, oldest first, and
 *	 those larger than a magazine of the new batch
 *
 * Return: the base pages moved to @cut.
 */
unsigned int mag_depot_reconfigure(struct pcpcache_depot *d,
				   const struct pcpcache_config *cfg,
				   struct pcpcache_cut *cut)
{
	unsigned int order, nr = 0;

	d->max_full = cfg->barn_full;
	for (order = 0; order < PCPCACHE_NR_ORDERS; order++) {
		nr += depot_cut_larger(d, order, mag_batch(cfg->batch, order),
				       cut);
		if (d->nr_full[order] > d->max_full)
			nr += depot_cut_oldest(d, order,
					       d->nr_full[order] - d->max_full,
					       cut);
	}
	return nr;
}

/**
 * mag_depot_cut - give a barn's full magazines up, oldest first
 * @d: the barn's magazines
 * @want: base pages wanted; whole magazines go, the last may pass it
 * @cut: where they go
 *
 * Largest order first, as mag_shrink() starts, for the same reason.
 *
 * Return: the base pages moved to @cut.
 */
unsigned int mag_depot_cut(struct pcpcache_depot *d, unsigned int want,
			   struct pcpcache_cut *cut)
{
	unsigned int order = PCPCACHE_NR_ORDERS, got = 0;

	while (order-- && got < want)
		while (d->nr_full[order] && got < want)
			got += depot_cut_oldest(d, order, 1, cut);
	return got;
}

/**
 * mag_depot_trim - give back what a barn did not need since the last trim
 * @d: the barn's magazines
 * @cut: where they go
 *
 * Bonwick and Adams's working-set estimate: the fewest full magazines of
 * an order the barn had since the last trim were not used, and go, the
 * oldest; the estimate starts again from what is left.
 *
 * Return: the magazines moved to @cut.
 */
unsigned int mag_depot_trim(struct pcpcache_depot *d, struct pcpcache_cut *cut)
{
	unsigned int order, nr = 0, unused;

	for (order = 0; order < PCPCACHE_NR_ORDERS; order++) {
		unused = d->min_full[order];
		if (unused) {
			depot_cut_oldest(d, order, unused, cut);
			nr += unused;
		}
		d->min_full[order] = d->nr_full[order];
	}
	return nr;
}

/**
 * mag_depot_count - pages in a barn
 * @d: the barn's magazines
 *
 * Return: the base pages in its full magazines.
 */
unsigned int mag_depot_count(const struct pcpcache_depot *d)
{
	return d->pages;
}

/* Swap the blocks of @order of two lists. */
static void list_swap_order(struct pcpcache_list *a, struct pcpcache_list *b,
			    unsigned int order)
{
	unsigned int nr = a->nr[order];
	LIST_HEAD(tmp);

	list_splice_init(&a->pages[order], &tmp);
	list_splice_init(&b->pages[order], &a->pages[order]);
	list_splice_init(&tmp, &b->pages[order]);
	WRITE_ONCE(a->count, a->count - (nr << order) + (b->nr[order] << order));
	WRITE_ONCE(b->count, b->count - (b->nr[order] << order) + (nr << order));
	WRITE_ONCE(a->nr[order], b->nr[order]);
	WRITE_ONCE(b->nr[order], nr);
}

/**
 * mag_barn_refill - find blocks for a main magazine that ran empty
 * @mag: the magazine, in barn mode
 * @d: its node's barn, locked; NULL when the barn may not be used now
 * @order: the order main has none of
 *
 * Return: MAG_BARN_SWAPPED or MAG_BARN_TOOK_FULL when main now has blocks
 * of @order, MAG_BARN_NONE when the caller must refill it.
 */
enum mag_barn_done mag_barn_refill(struct pcpcache_mag *mag,
				   struct pcpcache_depot *d, unsigned int order)
{
	struct pcpcache_list *mainm = &mag->lists[PCPCACHE_LIST_HOT];
	struct pcpcache_list *spare = &mag->lists[PCPCACHE_LIST_COLD];
	unsigned int i, nr;

	if (mainm->nr[order])
		return MAG_BARN_NONE;
	if (spare->nr[order]) {
		list_swap_order(mainm, spare, order);
		return MAG_BARN_SWAPPED;
	}
	if (!d || !d->nr_full[order])
		return MAG_BARN_NONE;
	/* one of a batch since lowered: the reconfiguration gives it back */
	if (d->full_blocks[order][d->nr_full[order] - 1] >
	    mag_batch(mainm->batch, order))
		return MAG_BARN_NONE;
	i = --d->nr_full[order];
	nr = d->full_blocks[order][i];
	list_splice_init(&d->full[order][i], &mainm->pages[order]);
	WRITE_ONCE(mainm->nr[order], nr);
	WRITE_ONCE(mainm->count, mainm->count + (nr << order));
	WRITE_ONCE(d->pages, d->pages - (nr << order));
	if (d->min_full[order] > d->nr_full[order])
		d->min_full[order] = d->nr_full[order];
	return MAG_BARN_TOOK_FULL;
}

/**
 * mag_barn_overflow - make room in a main magazine a free filled
 * @mag: the magazine, in barn mode
 * @d: its node's barn, locked; NULL when the barn may not be used now
 * @order: the order of the free
 * @cut: where main's blocks go when they can go nowhere else
 *
 * Called when main went over its high, its batch: main keeps the block
 * at its head, the rest (a magazine's size; any more, as transit lists
 * absorbed after a switch may bring, go to @cut) become the spare, or a
 * full magazine of the barn, or go to @cut. Main over batch in other orders only (a mix of
 * orders) is left alone: each order's magazine is within its size.
 *
 * Return: what was done.
 */
enum mag_barn_done mag_barn_overflow(struct pcpcache_mag *mag,
				     struct pcpcache_depot *d,
				     unsigned int order,
				     struct pcpcache_cut *cut)
{
	struct pcpcache_list *mainm = &mag->lists[PCPCACHE_LIST_HOT];
	struct pcpcache_list *spare = &mag->lists[PCPCACHE_LIST_COLD];
	enum mag_barn_done done;
	struct list_head *node;
	unsigned int i, nr;

	if (mainm->nr[order] <= mag_batch(mainm->batch, order))
		return MAG_BARN_NONE;
	node = mainm->pages[order].next;
	list_del(node);
	WRITE_ONCE(mainm->nr[order], mainm->nr[order] - 1);
	WRITE_ONCE(mainm->count, mainm->count - (1U << order));
	/* a magazine is never more than its size: the rest goes (absorbs) */
	if (mainm->nr[order] > mag_batch(mainm->batch, order))
		cut_tail(mainm, order, mainm->nr[order] -
			 mag_batch(mainm->batch, order), cut);
	nr = mainm->nr[order];

	if (!spare->nr[order]) {
		list_swap_order(mainm, spare, order);
		done = MAG_BARN_SWAPPED;
	} else if (d && d->nr_full[order] < d->max_full) {
		i = d->nr_full[order]++;
		list_splice_init(&mainm->pages[order], &d->full[order][i]);
		d->full_blocks[order][i] = nr;
		WRITE_ONCE(d->pages, d->pages + (nr << order));
		WRITE_ONCE(mainm->nr[order], 0);
		WRITE_ONCE(mainm->count, mainm->count - (nr << order));
		done = MAG_BARN_GAVE_FULL;
	} else {
		cut_tail(mainm, order, nr, cut);
		done = MAG_BARN_FLUSHED;
	}
	list_add(node, &mainm->pages[order]);
	WRITE_ONCE(mainm->nr[order], mainm->nr[order] + 1);
	WRITE_ONCE(mainm->count, mainm->count + (1U << order));
	return done;
}
