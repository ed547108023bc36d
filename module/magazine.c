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
	WRITE_ONCE(mag->mode, cfg->mode);
	mag->high_auto = cfg->high_auto;
	mag->high_cut = false;
	mag->high_min = cfg->high_min;
	mag->high_max = cfg->high_max;
	list_init(&mag->lists[PCPCACHE_LIST_HOT], cfg->batch,
		  cfg->high_auto ? cfg->high_min : cfg->high);
	list_init(&mag->lists[PCPCACHE_LIST_COLD], cfg->cold_batch, cfg->cold_high);
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
 * split mode appends each order of the cold list to the cold end of that
 * order of the one list; entering it makes the one list the hot list.
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
	unsigned int nr = 0, order;

	if (cfg->mode != PCPCACHE_MODE_SPLIT && cold->count) {
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
	list_set_limits(cold, cfg->cold_batch, cfg->cold_high);
	/* auto-tuning turned on afresh starts free to grow */
	if (!mag->high_auto)
		mag->high_cut = false;
	mag->high_auto = cfg->high_auto;
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
		nr += mag_trim_to_high(&mag->lists[i], cut, max);
	return nr;
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
