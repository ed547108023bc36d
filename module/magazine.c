// SPDX-License-Identifier: GPL-2.0
/*
 * pcpcache magazines: the list discipline of one CPU's cached pages.
 *
 * Pages are threaded through page->lru; here they are only list nodes, so
 * the host unit tests can drive this file with nodes of their own.
 *
 * Within a list the head is the hot end and the tail the cold end, as in
 * the kernel's own per-CPU lists: a hot free pushes at the head, a hot
 * allocation pops from the head, drains and cold allocations work from the
 * tail. In split mode (2.6.23's pcp[2]) each temperature has its own list
 * with its own batch and high, and a list that runs empty is refilled from
 * the buddy allocator even when the other list has pages: a cold request
 * never takes a hot page (that would spend cache-warm memory on a caller
 * who said it will not touch it soon, the very thing split lists exist to
 * prevent) and a hot request never takes a cold one. That is what 2.6.23
 * did, so measurements of split mode reproduce it.
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
	INIT_LIST_HEAD(&list->pages);
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
	list_init(&mag->lists[PCPCACHE_LIST_HOT], cfg->batch, cfg->high);
	list_init(&mag->lists[PCPCACHE_LIST_COLD], cfg->cold_batch, cfg->cold_high);
}

/*
 * Move the @nr coldest pages of @list to the tail of @out, walking from
 * whichever end is nearer the cut: at most @nr + 1 nodes.
 */
static void cut_tail(struct pcpcache_list *list, unsigned int nr,
		     struct list_head *out)
{
	struct list_head *last_kept = &list->pages;
	struct list_head kept;
	unsigned int i;

	if (!nr)
		return;
	if (nr >= list->count) {
		list_splice_tail_init(&list->pages, out);
		WRITE_ONCE(list->count, 0);
		return;
	}
	if (nr < list->count - nr) {
		for (i = 0; i < nr + 1; i++)
			last_kept = last_kept->prev;
	} else {
		for (i = 0; i < list->count - nr; i++)
			last_kept = last_kept->next;
	}
	/* cut the kept part off, the rest goes out, then put it back */
	list_cut_position(&kept, &list->pages, last_kept);
	list_splice_tail_init(&list->pages, out);
	list_splice(&kept, &list->pages);
	WRITE_ONCE(list->count, list->count - nr);
}

/**
 * mag_trim - drain a list that went over its high mark
 * @list: the list a page was just put on
 * @out: where the drained pages go, for the caller to free
 *
 * Return: the number of pages moved to @out: batch pages from the cold end
 * once count exceeds high, else none.
 */
unsigned int mag_trim(struct pcpcache_list *list, struct list_head *out)
{
	unsigned int nr;

	if (list->count <= list->high)
		return 0;
	nr = list->batch < list->count ? list->batch : list->count;
	cut_tail(list, nr, out);
	return nr;
}

/**
 * mag_add_refill - cache the pages a refill brought from the buddy allocator
 * @list: the list that ran empty
 * @pages: the pages, emptied by the call
 * @nr: how many there are
 *
 * Fresh pages are not in any CPU cache, so they go to the cold end, behind
 * pages freed while the refill ran. The caller then calls mag_trim().
 */
void mag_add_refill(struct pcpcache_list *list, struct list_head *pages,
		    unsigned int nr)
{
	list_splice_tail_init(pages, &list->pages);
	WRITE_ONCE(list->count, list->count + nr);
}

/**
 * mag_trim_to_high - cut a list towards its high mark
 * @list: the list
 * @out: where the surplus goes, coldest pages first
 * @max: the most pages to move, which bounds the nodes walked
 *
 * Return: the number of pages moved to @out; the list is down to its high
 * mark when that is below @max.
 */
unsigned int mag_trim_to_high(struct pcpcache_list *list,
			      struct list_head *out, unsigned int max)
{
	unsigned int nr = list->count > list->high ? list->count - list->high : 0;

	if (nr > max)
		nr = max;
	cut_tail(list, nr, out);
	return nr;
}

/**
 * mag_reconfigure - switch a magazine to a new mode and new limits
 * @mag: the magazine
 * @cfg: the new configuration, already checked
 * @out: where the pages the new configuration cannot keep go
 *
 * Passthrough keeps nothing. Leaving split mode appends the cold list to
 * the cold end of the one list; entering it makes the one list the hot
 * list. None of that walks a list; cutting the lists to their new high
 * marks is left to mag_trim_excess(), which bounds its walk.
 *
 * Return: the number of pages moved to @out.
 */
unsigned int mag_reconfigure(struct pcpcache_mag *mag,
			     const struct pcpcache_config *cfg,
			     struct list_head *out)
{
	struct pcpcache_list *hot = &mag->lists[PCPCACHE_LIST_HOT];
	struct pcpcache_list *cold = &mag->lists[PCPCACHE_LIST_COLD];
	unsigned int nr = 0;

	if (cfg->mode != PCPCACHE_MODE_SPLIT && cold->count) {
		list_splice_tail_init(&cold->pages, &hot->pages);
		WRITE_ONCE(hot->count, hot->count + cold->count);
		WRITE_ONCE(cold->count, 0);
	}
	if (cfg->mode == PCPCACHE_MODE_PASSTHROUGH)
		nr += mag_drain(mag, out);

	/* read without the lock by the passthrough check in core.c */
	WRITE_ONCE(mag->mode, cfg->mode);
	list_set_limits(hot, cfg->batch, cfg->high);
	list_set_limits(cold, cfg->cold_batch, cfg->cold_high);
	return nr;
}

/**
 * mag_trim_excess - cut every list towards its high mark
 * @mag: the magazine
 * @out: where the surplus goes, coldest pages first
 * @max: the most pages to move, which bounds the nodes walked
 *
 * Called after mag_reconfigure() until it returns 0, so that a lowered
 * high is reached in steps of at most @max pages.
 *
 * Return: the number of pages moved to @out.
 */
unsigned int mag_trim_excess(struct pcpcache_mag *mag, struct list_head *out,
			     unsigned int max)
{
	unsigned int nr = 0;
	int i;

	for (i = 0; i < PCPCACHE_NR_LISTS && nr < max; i++)
		nr += mag_trim_to_high(&mag->lists[i], out, max - nr);
	return nr;
}

/**
 * mag_drain - empty a magazine
 * @mag: the magazine
 * @out: where its pages go, cold ends last
 *
 * Return: the number of pages moved to @out.
 */
unsigned int mag_drain(struct pcpcache_mag *mag, struct list_head *out)
{
	unsigned int nr = 0;
	int i;

	for (i = 0; i < PCPCACHE_NR_LISTS; i++) {
		nr += mag->lists[i].count;
		cut_tail(&mag->lists[i], mag->lists[i].count, out);
	}
	return nr;
}

/**
 * mag_shrink - give up pages because memory is short
 * @mag: the magazine
 * @nr: how many at most
 * @out: where they go
 *
 * The cold list goes first, then the cold end of the (hot) list.
 *
 * Return: the number of pages moved to @out.
 */
unsigned int mag_shrink(struct pcpcache_mag *mag, unsigned long nr,
			struct list_head *out)
{
	unsigned int moved = 0, take;
	int i;

	for (i = PCPCACHE_NR_LISTS - 1; i >= 0 && moved < nr; i--) {
		struct pcpcache_list *list = &mag->lists[i];

		take = nr - moved < list->count ? nr - moved : list->count;
		cut_tail(list, take, out);
		moved += take;
	}
	return moved;
}

/**
 * mag_count - pages cached in a magazine
 * @mag: the magazine
 *
 * Return: the pages on all its lists.
 */
unsigned int mag_count(const struct pcpcache_mag *mag)
{
	return mag->lists[PCPCACHE_LIST_HOT].count + mag->lists[PCPCACHE_LIST_COLD].count;
}
