// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the magazine list discipline (module/magazine.c) and
 * the configuration rules (module/policy.c), built against the kernel's
 * tools/include/linux/list.h.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "kselftest_harness.h"

#include "../magazine.h"

#define NR_PAGES 64

/* A stand-in for struct page: only the list node matters here. */
struct tpage {
	struct list_head lru;
	int id;
};

static const struct pcpcache_config defaults = {
	.mode = PCPCACHE_MODE_SINGLE,
	.batch = 4, .high = 8, .cold_batch = 2, .cold_high = 4,
	.high_min = 8, .high_max = 24,
};

static int id_of(struct list_head *node)
{
	return node ? list_entry(node, struct tpage, lru)->id : -1;
}

static int list_len(struct list_head *head)
{
	struct list_head *pos;
	int n = 0;

	list_for_each(pos, head)
		n++;
	return n;
}

/* The ids of an order-0 list of the fixture's magazine, or of any list. */
#define MAG_IDS(n)	ORDER_IDS(n, 0)
#define ORDER_IDS(n, o)	LIST_IDS(&self->mag.lists[n].pages[o])
#define CUT_IDS(o)	LIST_IDS(&self->cut.pages[o])
#define LIST_IDS(head)	ids(head, self->buf, sizeof(self->buf))

/* Write the ids of @head into @buf as "1 2 3". */
static const char *ids(struct list_head *head, char *buf, size_t size)
{
	struct tpage *p;
	size_t pos = 0;

	buf[0] = '\0';
	list_for_each_entry(p, head, lru)
		pos += snprintf(buf + pos, size - pos, "%s%d", pos ? " " : "",
				p->id);
	return buf;
}

FIXTURE(mag) {
	struct pcpcache_mag mag;
	struct tpage pages[NR_PAGES];
	struct pcpcache_cut cut;
	char buf[512];
};

FIXTURE_SETUP(mag)
{
	int i;

	mag_init(&self->mag, &defaults);
	for (i = 0; i < NR_PAGES; i++)
		self->pages[i].id = i;
	mag_cut_init(&self->cut);
}

FIXTURE_TEARDOWN(mag)
{
}

/* Put blocks [from, to) of @order without trimming. */
static void put_blocks(struct pcpcache_mag *mag, struct tpage *pages, int from,
		       int to, unsigned int order, bool cold)
{
	int i;

	for (i = from; i < to; i++)
		mag_put(mag, &pages[i].lru, order, cold);
}

static void put_range(struct pcpcache_mag *mag, struct tpage *pages, int from,
		      int to, bool cold)
{
	put_blocks(mag, pages, from, to, 0, cold);
}

/*
 * Reconfigure, then trim to the new highs in steps of at most @step blocks,
 * as the module does with the lock dropped between steps. Return: the base
 * pages moved to @cut.
 */
static int reconfigure(struct pcpcache_mag *mag,
		       const struct pcpcache_config *cfg,
		       struct pcpcache_cut *cut, unsigned int step)
{
	unsigned int nr = mag_reconfigure(mag, cfg, cut), moved;

	do {
		moved = mag_trim_excess(mag, cut, step);
		nr += moved;
	} while (moved);
	return nr;
}

/*
 * Every block is in exactly one of the magazine and @cut, none twice; the
 * counts agree with the lists; @order_of gives each id's order.
 */
static bool conserved(struct pcpcache_mag *mag, struct pcpcache_cut *cut,
		      int nr, const unsigned int *order_of)
{
	unsigned int order, base = 0, cut_base = 0;
	int seen[NR_PAGES] = { 0 };
	struct tpage *p;
	int i, total = 0;

	for (i = 0; i < PCPCACHE_NR_LISTS; i++) {
		struct pcpcache_list *list = &mag->lists[i];
		unsigned int count = 0;

		for (order = 0; order < PCPCACHE_NR_ORDERS; order++) {
			if ((int)list->nr[order] != list_len(&list->pages[order]))
				return false;
			list_for_each_entry(p, &list->pages[order], lru) {
				if ((order_of ? order_of[p->id] : 0) != order)
					return false;
				seen[p->id]++, total++;
			}
			count += list->nr[order] << order;
		}
		if (count != list->count)
			return false;
		base += count;
	}
	for (order = 0; order < PCPCACHE_NR_ORDERS; order++) {
		list_for_each_entry(p, &cut->pages[order], lru) {
			seen[p->id]++, total++;
			cut_base += 1U << order;
		}
	}
	if (cut_base != cut->count || base != mag_count(mag))
		return false;
	for (i = 0; i < nr; i++)
		if (seen[i] != 1)
			return false;
	return total == nr;
}

TEST_F(mag, single_hot_is_lifo)
{
	put_range(&self->mag, self->pages, 0, 3, false);
	EXPECT_STREQ("2 1 0", MAG_IDS(0));
	EXPECT_EQ(2, id_of(mag_take(&self->mag, 0, false)));
	EXPECT_EQ(1, id_of(mag_take(&self->mag, 0, false)));
	EXPECT_EQ(1U, self->mag.lists[PCPCACHE_LIST_HOT].count);
}

TEST_F(mag, single_cold_goes_to_tail)
{
	put_range(&self->mag, self->pages, 0, 2, false);
	put_range(&self->mag, self->pages, 2, 4, true);
	EXPECT_STREQ("1 0 2 3", MAG_IDS(0));
	/* cold takes the coldest, hot the hottest */
	EXPECT_EQ(3, id_of(mag_take(&self->mag, 0, true)));
	EXPECT_EQ(1, id_of(mag_take(&self->mag, 0, false)));
	EXPECT_EQ(0U, self->mag.lists[PCPCACHE_LIST_COLD].count);
}

TEST_F(mag, split_lists_are_separate)
{
	struct pcpcache_config cfg = defaults;

	cfg.mode = PCPCACHE_MODE_SPLIT;
	ASSERT_EQ(0U, mag_reconfigure(&self->mag, &cfg, &self->cut));
	put_range(&self->mag, self->pages, 0, 2, false);
	put_range(&self->mag, self->pages, 2, 4, true);
	EXPECT_EQ(2U, self->mag.lists[PCPCACHE_LIST_HOT].count);
	EXPECT_EQ(2U, self->mag.lists[PCPCACHE_LIST_COLD].count);
	/* each list is LIFO on its own */
	EXPECT_EQ(3, id_of(mag_take(&self->mag, 0, true)));
	EXPECT_EQ(1, id_of(mag_take(&self->mag, 0, false)));
}

/* A cold request with an empty cold list is a miss, even with hot pages. */
TEST_F(mag, split_cold_miss_never_takes_hot)
{
	struct pcpcache_config cfg = defaults;

	cfg.mode = PCPCACHE_MODE_SPLIT;
	mag_reconfigure(&self->mag, &cfg, &self->cut);
	put_range(&self->mag, self->pages, 0, 3, false);
	EXPECT_EQ(NULL, mag_take(&self->mag, 0, true));
	EXPECT_EQ(3U, self->mag.lists[PCPCACHE_LIST_HOT].count);
	put_range(&self->mag, self->pages, 3, 4, true);
	put_range(&self->mag, self->pages, 4, 5, false);
	mag_take(&self->mag, 0, false);
	mag_take(&self->mag, 0, false);
	mag_take(&self->mag, 0, false);
	mag_take(&self->mag, 0, false);
	EXPECT_EQ(NULL, mag_take(&self->mag, 0, false));
	EXPECT_EQ(3, id_of(mag_take(&self->mag, 0, true)));
}

TEST_F(mag, passthrough_caches_nothing)
{
	struct pcpcache_config cfg = defaults;

	cfg.mode = PCPCACHE_MODE_PASSTHROUGH;
	mag_reconfigure(&self->mag, &cfg, &self->cut);
	EXPECT_EQ(NULL, mag_list(&self->mag, false));
	EXPECT_EQ(NULL, mag_put(&self->mag, &self->pages[0].lru, 0, false));
	EXPECT_EQ(NULL, mag_put(&self->mag, &self->pages[0].lru, 2, true));
	EXPECT_EQ(NULL, mag_take(&self->mag, 0, false));
	EXPECT_EQ(0U, mag_count(&self->mag));
}

/* Over high, batch pages leave from the cold end, in order. */
TEST_F(mag, trim_drains_batch_from_cold_end)
{
	struct pcpcache_list *list = &self->mag.lists[PCPCACHE_LIST_HOT];

	put_range(&self->mag, self->pages, 0, 8, false);
	EXPECT_EQ(0U, mag_trim(list, 0, &self->cut));
	put_range(&self->mag, self->pages, 8, 9, false);
	EXPECT_EQ(4U, mag_trim(list, 0, &self->cut));
	EXPECT_STREQ("3 2 1 0", CUT_IDS(0));
	EXPECT_STREQ("8 7 6 5 4", LIST_IDS(&list->pages[0]));
	EXPECT_EQ(5U, list->count);
	EXPECT_TRUE(conserved(&self->mag, &self->cut, 9, NULL));
}

TEST_F(mag, refill_goes_behind_freed_pages)
{
	struct pcpcache_list *list = &self->mag.lists[PCPCACHE_LIST_HOT];
	LIST_HEAD(fresh);

	put_range(&self->mag, self->pages, 0, 1, false);
	list_add_tail(&self->pages[1].lru, &fresh);
	list_add_tail(&self->pages[2].lru, &fresh);
	mag_add_refill(list, 0, &fresh, 2);
	EXPECT_TRUE(list_empty(&fresh));
	EXPECT_STREQ("0 1 2", LIST_IDS(&list->pages[0]));
	EXPECT_EQ(3U, list->count);
}

TEST_F(mag, leaving_split_appends_cold_list)
{
	struct pcpcache_config cfg = defaults;

	cfg.mode = PCPCACHE_MODE_SPLIT;
	mag_reconfigure(&self->mag, &cfg, &self->cut);
	put_range(&self->mag, self->pages, 0, 2, false);
	put_range(&self->mag, self->pages, 2, 4, true);
	put_blocks(&self->mag, self->pages, 4, 5, 1, true);
	cfg.mode = PCPCACHE_MODE_SINGLE;
	EXPECT_EQ(0U, mag_reconfigure(&self->mag, &cfg, &self->cut));
	EXPECT_STREQ("1 0 3 2", MAG_IDS(0));
	EXPECT_STREQ("4", ORDER_IDS(PCPCACHE_LIST_HOT, 1));
	EXPECT_EQ(6U, self->mag.lists[PCPCACHE_LIST_HOT].count);
	EXPECT_EQ(0U, self->mag.lists[PCPCACHE_LIST_COLD].count);
	EXPECT_EQ(0U, self->mag.lists[PCPCACHE_LIST_COLD].nr[1]);
}

TEST_F(mag, entering_split_keeps_list_as_hot)
{
	struct pcpcache_config cfg = defaults;

	put_range(&self->mag, self->pages, 0, 3, false);
	cfg.mode = PCPCACHE_MODE_SPLIT;
	EXPECT_EQ(0U, mag_reconfigure(&self->mag, &cfg, &self->cut));
	EXPECT_EQ(3U, self->mag.lists[PCPCACHE_LIST_HOT].count);
	EXPECT_EQ(NULL, mag_take(&self->mag, 0, true));
	EXPECT_EQ(2, id_of(mag_take(&self->mag, 0, false)));
}

TEST_F(mag, passthrough_gives_everything_back)
{
	static const unsigned int order_of[8] = { 0, 0, 0, 0, 0, 3, 3, 2 };
	struct pcpcache_config cfg = defaults;

	cfg.mode = PCPCACHE_MODE_SPLIT;
	mag_reconfigure(&self->mag, &cfg, &self->cut);
	put_range(&self->mag, self->pages, 0, 5, false);
	put_blocks(&self->mag, self->pages, 5, 7, 3, true);
	put_blocks(&self->mag, self->pages, 7, 8, 2, false);
	cfg.mode = PCPCACHE_MODE_PASSTHROUGH;
	EXPECT_EQ(5U + 16 + 4, mag_reconfigure(&self->mag, &cfg, &self->cut));
	EXPECT_EQ(0U, mag_count(&self->mag));
	EXPECT_TRUE(conserved(&self->mag, &self->cut, 8, order_of));
}

/*
 * Every (count, high, step): the hottest high pages stay, in order; the
 * surplus leaves in steps of at most step pages, each step the coldest of
 * what is left, so with one step it comes out in list order.
 */
TEST_F(mag, shrinking_high_cuts_the_cold_end)
{
	static const unsigned int steps[] = { 1, 3, 7, NR_PAGES };
	struct pcpcache_config cfg = defaults;
	int count, high, i;
	unsigned int s;

	cfg.batch = 1;
	for (s = 0; s < ARRAY_SIZE(steps); s++) {
		for (count = 0; count <= 20; count++) {
			for (high = 1; high <= 21; high++) {
				int cut = count > high ? count - high : 0;
				char want[256] = "", kept[256] = "";
				size_t pos = 0, kpos = 0;

				cfg.high = NR_PAGES;
				mag_init(&self->mag, &cfg);
				mag_cut_init(&self->cut);
				put_range(&self->mag, self->pages, 0, count, false);
				cfg.high = high;
				EXPECT_EQ(cut, reconfigure(&self->mag, &cfg, &self->cut,
							   steps[s]));
				/* put at the head, so the coldest is page 0 */
				for (i = cut - 1; i >= 0; i--)
					pos += snprintf(want + pos, sizeof(want) - pos,
							"%s%d", pos ? " " : "", i);
				for (i = count - 1; i >= cut; i--)
					kpos += snprintf(kept + kpos, sizeof(kept) - kpos,
							 "%s%d", kpos ? " " : "", i);
				if (steps[s] >= (unsigned int)cut)
					EXPECT_STREQ(want, CUT_IDS(0));
				EXPECT_STREQ(kept, MAG_IDS(PCPCACHE_LIST_HOT));
				EXPECT_TRUE(conserved(&self->mag, &self->cut, count, NULL));
			}
		}
	}
}

/* Reconfiguring walks no list: a lowered high is left to the trim. */
TEST_F(mag, reconfigure_alone_keeps_the_surplus)
{
	struct pcpcache_config cfg = defaults;

	put_range(&self->mag, self->pages, 0, 8, false);
	cfg.high = 2;
	cfg.batch = 1;
	EXPECT_EQ(0U, mag_reconfigure(&self->mag, &cfg, &self->cut));
	EXPECT_EQ(8U, self->mag.lists[PCPCACHE_LIST_HOT].count);
	EXPECT_EQ(2U, self->mag.lists[PCPCACHE_LIST_HOT].high);
	EXPECT_EQ(4U, mag_trim_excess(&self->mag, &self->cut, 4));
	EXPECT_EQ(2U, mag_trim_excess(&self->mag, &self->cut, 4));
	EXPECT_EQ(0U, mag_trim_excess(&self->mag, &self->cut, 4));
	EXPECT_STREQ("7 6", MAG_IDS(PCPCACHE_LIST_HOT));
	EXPECT_TRUE(conserved(&self->mag, &self->cut, 8, NULL));
}

/* Both lists over their highs: each step moves at most step blocks each. */
TEST_F(mag, trim_excess_spans_both_lists)
{
	struct pcpcache_config cfg = defaults;

	cfg.mode = PCPCACHE_MODE_SPLIT;
	cfg.high = 16;
	cfg.cold_high = 16;
	mag_reconfigure(&self->mag, &cfg, &self->cut);
	put_range(&self->mag, self->pages, 0, 10, false);
	put_range(&self->mag, self->pages, 10, 20, true);
	cfg.high = 4;
	cfg.cold_high = 4;
	cfg.batch = 1;
	cfg.cold_batch = 1;
	EXPECT_EQ(0U, mag_reconfigure(&self->mag, &cfg, &self->cut));
	EXPECT_EQ(10U, mag_trim_excess(&self->mag, &self->cut, 5));
	EXPECT_EQ(2U, mag_trim_excess(&self->mag, &self->cut, 5));
	EXPECT_EQ(0U, mag_trim_excess(&self->mag, &self->cut, 5));
	EXPECT_EQ(4U, self->mag.lists[PCPCACHE_LIST_HOT].count);
	EXPECT_EQ(4U, self->mag.lists[PCPCACHE_LIST_COLD].count);
	EXPECT_TRUE(conserved(&self->mag, &self->cut, 20, NULL));
}

TEST_F(mag, drain_empties_both_lists)
{
	static const unsigned int order_of[8] = { 0, 0, 0, 0, 0, 0, 1, 1 };
	struct pcpcache_config cfg = defaults;

	cfg.mode = PCPCACHE_MODE_SPLIT;
	mag_reconfigure(&self->mag, &cfg, &self->cut);
	put_range(&self->mag, self->pages, 0, 3, false);
	put_range(&self->mag, self->pages, 3, 6, true);
	put_blocks(&self->mag, self->pages, 6, 8, 1, true);
	EXPECT_EQ(10U, mag_drain(&self->mag, &self->cut));
	EXPECT_EQ(0U, mag_count(&self->mag));
	EXPECT_EQ(PCPCACHE_MODE_SPLIT, self->mag.mode);
	EXPECT_TRUE(conserved(&self->mag, &self->cut, 8, order_of));
	EXPECT_EQ(0U, mag_drain(&self->mag, &self->cut));
}

/* Memory pressure takes the cold list first, then the (hot) list's tail. */
TEST_F(mag, shrink_takes_coldest_first)
{
	struct pcpcache_config cfg = defaults;

	cfg.mode = PCPCACHE_MODE_SPLIT;
	mag_reconfigure(&self->mag, &cfg, &self->cut);
	put_range(&self->mag, self->pages, 0, 4, false);
	put_range(&self->mag, self->pages, 4, 7, true);
	EXPECT_EQ(5U, mag_shrink(&self->mag, 5, &self->cut));
	EXPECT_STREQ("6 5 4 1 0", CUT_IDS(0));
	EXPECT_STREQ("3 2", MAG_IDS(PCPCACHE_LIST_HOT));
	EXPECT_EQ(2U, mag_shrink(&self->mag, 100, &self->cut));
	EXPECT_EQ(0U, mag_shrink(&self->mag, 100, &self->cut));
	EXPECT_EQ(0U, mag_count(&self->mag));
	EXPECT_TRUE(conserved(&self->mag, &self->cut, 7, NULL));
}

/* Each order has its own lists; counts and limits are in base pages. */
TEST_F(mag, orders_are_separate_lists)
{
	static const unsigned int order_of[6] = { 0, 0, 1, 1, 3, 3 };
	struct pcpcache_list *list = &self->mag.lists[PCPCACHE_LIST_HOT];

	put_blocks(&self->mag, self->pages, 0, 2, 0, false);
	put_blocks(&self->mag, self->pages, 2, 4, 1, false);
	put_blocks(&self->mag, self->pages, 4, 6, 3, false);
	EXPECT_EQ(2U + 4 + 16, list->count);
	EXPECT_EQ(2U, list->nr[1]);
	EXPECT_EQ(NULL, mag_take(&self->mag, 2, false));
	EXPECT_EQ(3, id_of(mag_take(&self->mag, 1, false)));
	EXPECT_EQ(5, id_of(mag_take(&self->mag, 3, false)));
	EXPECT_EQ(1, id_of(mag_take(&self->mag, 0, false)));
	EXPECT_EQ(1U + 2 + 8, list->count);
	EXPECT_TRUE(mag_over_high(list));
	mag_put(&self->mag, &self->pages[1].lru, 0, false);
	mag_put(&self->mag, &self->pages[3].lru, 1, false);
	mag_put(&self->mag, &self->pages[5].lru, 3, false);
	EXPECT_TRUE(conserved(&self->mag, &self->cut, 6, order_of));
}

/*
 * Over high, a free of order 1 drains batch base pages from order 1's cold
 * end first, then from the next orders in turn, whole blocks.
 */
TEST_F(mag, trim_starts_at_the_freed_order)
{
	static const unsigned int order_of[9] = { 0, 0, 0, 1, 1, 2, 2, 0, 1 };
	struct pcpcache_list *list = &self->mag.lists[PCPCACHE_LIST_HOT];

	put_blocks(&self->mag, self->pages, 0, 3, 0, false);
	put_blocks(&self->mag, self->pages, 3, 5, 1, false);
	put_blocks(&self->mag, self->pages, 5, 7, 2, false);
	/* 3 + 4 + 8 = 15 > high 8; batch 4 */
	EXPECT_EQ(4U, mag_trim(list, 1, &self->cut));
	EXPECT_STREQ("4 3", LIST_IDS(&self->cut.pages[1]));
	EXPECT_EQ(0U, list->nr[1]);
	/* from order 2 next: one block of 4 */
	EXPECT_EQ(4U, mag_trim(list, 1, &self->cut));
	EXPECT_STREQ("5", LIST_IDS(&self->cut.pages[2]));
	EXPECT_EQ(7U, list->count);
	EXPECT_EQ(0U, mag_trim(list, 1, &self->cut));
	/* a block that straddles batch goes whole */
	put_blocks(&self->mag, self->pages, 7, 8, 0, false);
	put_blocks(&self->mag, self->pages, 8, 9, 1, false);
	EXPECT_EQ(4U, mag_trim(list, 0, &self->cut));
	EXPECT_TRUE(conserved(&self->mag, &self->cut, 9, order_of));
}

/* Lowered high and shrink cut the largest order first. */
TEST_F(mag, cuts_take_the_largest_order_first)
{
	static const unsigned int order_of[6] = { 0, 0, 0, 0, 3, 2 };
	struct pcpcache_config cfg = defaults;

	cfg.high = 32;
	mag_reconfigure(&self->mag, &cfg, &self->cut);
	put_blocks(&self->mag, self->pages, 0, 4, 0, false);
	put_blocks(&self->mag, self->pages, 4, 5, 3, false);
	put_blocks(&self->mag, self->pages, 5, 6, 2, false);
	/* 16 pages; to 10: the order-3 block, 8 pages */
	cfg.high = 10;
	EXPECT_EQ(8, reconfigure(&self->mag, &cfg, &self->cut, 64));
	EXPECT_STREQ("4", LIST_IDS(&self->cut.pages[3]));
	/* shrink 5: the order-2 block, then a page */
	EXPECT_EQ(5U, mag_shrink(&self->mag, 5, &self->cut));
	EXPECT_STREQ("5", LIST_IDS(&self->cut.pages[2]));
	EXPECT_EQ(3U, mag_count(&self->mag));
	EXPECT_TRUE(conserved(&self->mag, &self->cut, 6, order_of));
}

/* high=auto: from high_min, up a batch a refill, down on decay or cut. */
TEST_F(mag, auto_high_moves_within_its_range)
{
	struct pcpcache_list *list = &self->mag.lists[PCPCACHE_LIST_HOT];
	struct pcpcache_config cfg = defaults;

	cfg.high_auto = true;
	cfg.high_min = 8;
	cfg.high_max = 18;
	mag_reconfigure(&self->mag, &cfg, &self->cut);
	EXPECT_EQ(8U, list->high);
	EXPECT_TRUE(mag_high_grow(&self->mag));
	EXPECT_TRUE(mag_high_grow(&self->mag));
	EXPECT_EQ(16U, list->high);
	EXPECT_TRUE(mag_high_grow(&self->mag));
	EXPECT_EQ(18U, list->high);
	EXPECT_FALSE(mag_high_grow(&self->mag));

	/* an idle CPU: an eighth a tick, down to high_min */
	EXPECT_TRUE(mag_high_decay(&self->mag));
	EXPECT_EQ(16U, list->high);
	EXPECT_TRUE(mag_high_decay(&self->mag));
	EXPECT_EQ(14U, list->high);
	while (mag_high_decay(&self->mag))
		;
	EXPECT_EQ(8U, list->high);

	/* a cut: high_min, and no growth until the next tick */
	EXPECT_TRUE(mag_high_grow(&self->mag));
	EXPECT_TRUE(mag_high_cut(&self->mag));
	EXPECT_EQ(8U, list->high);
	EXPECT_FALSE(mag_high_grow(&self->mag));
	EXPECT_FALSE(mag_high_decay(&self->mag));
	EXPECT_TRUE(mag_high_grow(&self->mag));
	EXPECT_EQ(12U, list->high);

	/* a narrower range keeps the high within it; a number fixes it */
	cfg.high_max = 10;
	mag_reconfigure(&self->mag, &cfg, &self->cut);
	EXPECT_EQ(10U, list->high);
	cfg.high_auto = false;
	cfg.high = 30;
	mag_reconfigure(&self->mag, &cfg, &self->cut);
	EXPECT_EQ(30U, list->high);
	EXPECT_FALSE(mag_high_grow(&self->mag));
	EXPECT_FALSE(mag_high_decay(&self->mag));
	EXPECT_FALSE(mag_high_cut(&self->mag));
	/* back to auto: from the bottom */
	cfg.high_auto = true;
	mag_reconfigure(&self->mag, &cfg, &self->cut);
	EXPECT_EQ(8U, list->high);

	/* a cut, then off and on again before a tick: free to grow at once */
	EXPECT_TRUE(mag_high_grow(&self->mag));
	EXPECT_TRUE(mag_high_cut(&self->mag));
	cfg.high_auto = false;
	mag_reconfigure(&self->mag, &cfg, &self->cut);
	cfg.high_auto = true;
	mag_reconfigure(&self->mag, &cfg, &self->cut);
	EXPECT_TRUE(mag_high_grow(&self->mag));
}

/* A busy CPU's high decays no lower than count - batch << 5. */
TEST_F(mag, auto_high_decay_spares_a_busy_cpu)
{
	struct pcpcache_list *list = &self->mag.lists[PCPCACHE_LIST_HOT];
	struct pcpcache_config cfg = defaults;

	cfg.batch = 1;
	cfg.high_auto = true;
	cfg.high_min = 2;
	cfg.high_max = 60;
	mag_reconfigure(&self->mag, &cfg, &self->cut);
	while (mag_high_grow(&self->mag))
		;
	put_range(&self->mag, self->pages, 0, 50, false);
	/* 50 - (1 << 5) = 18 < 60 - 60 / 8 = 53: the eighth wins */
	EXPECT_TRUE(mag_high_decay(&self->mag));
	EXPECT_EQ(53U, list->high);
	while (mag_high_decay(&self->mag))
		;
	/* then count - 32 = 18 holds it */
	EXPECT_EQ(18U, list->high);
}

/*
 * barn mode: two CPUs' magazines of batch 4 and their node's barn of two
 * full magazines at most, as barn.c drives magazine.c's rules.
 */
static const struct pcpcache_config barn_cfg = {
	.mode = PCPCACHE_MODE_BARN,
	.batch = 4, .high = 8, .cold_batch = 2, .cold_high = 4,
	.high_min = 8, .high_max = 24, .barn_full = 2,
};

#define BARN_CPUS	2

/* The fixture's magazines, barn and blocks, which the helpers take. */
struct barn_world {
	struct pcpcache_mag mag[BARN_CPUS];
	struct pcpcache_depot depot;
	struct tpage pages[NR_PAGES];
	unsigned int order_of[NR_PAGES];
	bool held[NR_PAGES];		/* out of the cache: the caller's */
	struct pcpcache_cut cut;
	char buf[512];
};

FIXTURE(barn) {
	struct barn_world w;
};

FIXTURE_SETUP(barn)
{
	struct barn_world *w = &self->w;
	int i;

	for (i = 0; i < BARN_CPUS; i++)
		mag_init(&w->mag[i], &barn_cfg);
	mag_depot_init(&w->depot, &barn_cfg);
	for (i = 0; i < NR_PAGES; i++) {
		w->pages[i].id = i;
		w->order_of[i] = 0;
		w->held[i] = true;
	}
	mag_cut_init(&w->cut);
}

FIXTURE_TEARDOWN(barn)
{
}

/* Say what the books found wrong; false. */
static bool wrong(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "# books: ");
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	return false;
}

#define BOOKS_MAX	2048	/* blocks the books follow, at most */

/* Note block @p of a list of @order; false if it is none of @pages or of another order. */
static bool see(struct tpage *p, unsigned int order, struct tpage *pages, int nr,
		const unsigned int *order_of, unsigned char *seen)
{
	int k = p - pages;

	if (k < 0 || k >= nr)
		return wrong("a node not of the blocks\n");
	if (order_of[k] != order)
		return wrong("block %d on a list of order %u\n", k, order);
	seen[k]++;
	return true;
}

/* The blocks on @head, at @order, into @seen; -1 if one is wrong. */
static int walk(struct list_head *head, unsigned int order, struct tpage *pages,
		int nr, const unsigned int *order_of, unsigned char *seen)
{
	struct tpage *p;
	int walked = 0;

	list_for_each_entry(p, head, lru) {
		if (!see(p, order, pages, nr, order_of, seen))
			return -1;
		walked++;
	}
	return walked;
}

/* A magazine's lists: each count equal to a walk of its lists. */
static bool mag_books(struct pcpcache_mag *mag, struct tpage *pages, int nr,
		      const unsigned int *order_of, unsigned char *seen)
{
	unsigned int order, base;
	int l, walked;

	for (l = 0; l < PCPCACHE_NR_LISTS; l++) {
		struct pcpcache_list *list = &mag->lists[l];

		base = 0;
		for (order = 0; order < PCPCACHE_NR_ORDERS; order++) {
			walked = walk(&list->pages[order], order, pages, nr,
				      order_of, seen);
			if (walked < 0)
				return false;
			if ((unsigned int)walked != list->nr[order])
				return wrong("list %d order %u: nr %u, walked %d\n",
					     l, order, list->nr[order], walked);
			base += walked << order;
		}
		if (base != list->count)
			return wrong("list %d: count %u, walked %u\n", l,
				     list->count, base);
	}
	return true;
}

/* A barn: stacks packed and within their limits, counts equal to walks. */
static bool depot_books(struct pcpcache_depot *d, struct tpage *pages, int nr,
			const unsigned int *order_of, unsigned char *seen)
{
	unsigned int order, i, base = 0;
	int walked;

	for (order = 0; order < PCPCACHE_NR_ORDERS; order++) {
		if (d->nr_full[order] > PCPCACHE_BARN_MAX ||
		    d->nr_full[order] > d->max_full)
			return wrong("order %u: %u full, at most %u\n", order,
				     d->nr_full[order], d->max_full);
		if (d->min_full[order] > d->nr_full[order])
			return wrong("order %u: min_full %u over nr_full %u\n",
				     order, d->min_full[order], d->nr_full[order]);
		for (i = 0; i < PCPCACHE_BARN_MAX; i++) {
			walked = walk(&d->full[order][i], order, pages, nr,
				      order_of, seen);
			if (walked < 0)
				return false;
			if (i >= d->nr_full[order] && walked)
				return wrong("order %u: slot %u above the stack holds %d\n",
					     order, i, walked);
			if (i < d->nr_full[order] &&
			    (unsigned int)walked != d->full_blocks[order][i])
				return wrong("order %u slot %u: %u blocks, walked %d\n",
					     order, i, d->full_blocks[order][i], walked);
			if (i < d->nr_full[order] && !walked)
				return wrong("order %u slot %u: an empty full magazine\n",
					     order, i);
			base += walked << order;
		}
	}
	if (base != d->pages || base != mag_depot_count(d))
		return wrong("barn: pages %u, count %u, walked %u\n", d->pages,
			     mag_depot_count(d), base);
	return true;
}

/*
 * The books of magazines, a barn, a cut and the blocks out of the cache
 * (@out): every block of @pages in exactly one place, at its order; every
 * count, block count and page count equal to a walk of its list; the
 * barn's stacks packed and within their limits. Says what it found wrong.
 */
static bool barn_books(struct pcpcache_mag *mags, int nr_mags,
		       struct pcpcache_depot *d, struct pcpcache_cut *cut,
		       struct tpage *pages, const unsigned int *order_of,
		       const bool *out, int nr)
{
	unsigned char seen[BOOKS_MAX] = { 0 };
	unsigned int order, base = 0;
	int m, k, walked;

	if (nr > BOOKS_MAX)
		return wrong("more than %d blocks\n", BOOKS_MAX);
	for (m = 0; m < nr_mags; m++)
		if (!mag_books(&mags[m], pages, nr, order_of, seen))
			return wrong("in magazine %d\n", m);
	if (d && !depot_books(d, pages, nr, order_of, seen))
		return false;
	for (order = 0; order < PCPCACHE_NR_ORDERS; order++) {
		walked = walk(&cut->pages[order], order, pages, nr, order_of, seen);
		if (walked < 0)
			return false;
		base += walked << order;
	}
	if (base != cut->count)
		return wrong("cut: count %u, walked %u\n", cut->count, base);
	for (k = 0; k < nr; k++)
		if (seen[k] + out[k] != 1)
			return wrong("block %d: %d times, %s\n", k, seen[k],
				     out[k] ? "out" : "not out");
	return true;
}

#define BOOKS()	barn_books(self->w.mag, BARN_CPUS, &self->w.depot, &self->w.cut, \
			   self->w.pages, self->w.order_of, self->w.held, NR_PAGES)
#define W_IDS(head)	ids(head, self->w.buf, sizeof(self->w.buf))
#define MAIN_IDS(c, o)	W_IDS(&self->w.mag[c].lists[PCPCACHE_LIST_HOT].pages[o])
#define SPARE_IDS(c, o)	W_IDS(&self->w.mag[c].lists[PCPCACHE_LIST_COLD].pages[o])
#define FULL_IDS(o, i)	W_IDS(&self->w.depot.full[o][i])
#define W_CUT_IDS(o)	W_IDS(&self->w.cut.pages[o])

/* Free blocks [from, to) of @order on @cpu as core.c does, without the barn. */
static void barn_put(struct __test_metadata *_metadata,
		     struct barn_world *w, int cpu, int from, int to,
		     unsigned int order)
{
	int i;

	for (i = from; i < to; i++) {
		ASSERT_TRUE(w->held[i]);
		w->order_of[i] = order;
		w->held[i] = false;
		mag_put(&w->mag[cpu], &w->pages[i].lru, order, false);
	}
}

/* Allocate a block of @order on @cpu from its main magazine, or -1. */
static int barn_take(struct barn_world *w, int cpu, unsigned int order)
{
	int id = id_of(mag_take(&w->mag[cpu], order, false));

	if (id >= 0)
		w->held[id] = true;
	return id;
}

/* Cut blocks go back to the buddy allocator: the caller's again, here. */
static void barn_give_back(struct barn_world *w)
{
	struct tpage *p, *next;
	unsigned int order;

	for (order = 0; order < PCPCACHE_NR_ORDERS; order++)
		list_for_each_entry_safe(p, next, &w->cut.pages[order], lru) {
			list_del(&p->lru);
			w->held[p->id] = true;
		}
	mag_cut_init(&w->cut);
}

/* Fill @cpu's main with blocks [from, to) and let the barn rules act. */
static enum mag_barn_done barn_free_over(struct __test_metadata *_metadata,
					 struct barn_world *w, int cpu,
					 int from, int to, unsigned int order)
{
	barn_put(_metadata, w, cpu, from, to, order);
	return mag_barn_overflow(&w->mag[cpu], &w->depot, order, &w->cut);
}

/* Fixed magazines: batch and high are batch on both lists, never auto. */
TEST_F(barn, magazines_are_batch_sized)
{
	struct pcpcache_list *hot = &self->w.mag[0].lists[PCPCACHE_LIST_HOT];
	struct pcpcache_list *cold = &self->w.mag[0].lists[PCPCACHE_LIST_COLD];
	struct pcpcache_config cfg = barn_cfg;

	EXPECT_EQ(4U, hot->batch);
	EXPECT_EQ(4U, hot->high);
	EXPECT_EQ(4U, cold->batch);
	EXPECT_EQ(4U, cold->high);
	cfg.high_auto = true;
	mag_init(&self->w.mag[0], &cfg);
	EXPECT_FALSE(self->w.mag[0].high_auto);
	EXPECT_EQ(4U, hot->high);
	EXPECT_FALSE(mag_high_grow(&self->w.mag[0]));
	EXPECT_FALSE(mag_high_decay(&self->w.mag[0]));
	EXPECT_FALSE(mag_high_cut(&self->w.mag[0]));
	EXPECT_EQ(4U, hot->high);

	/* from auto-tuned single mode, and back: auto starts at high_min */
	cfg.mode = PCPCACHE_MODE_SINGLE;
	mag_init(&self->w.mag[1], &cfg);
	EXPECT_TRUE(mag_high_grow(&self->w.mag[1]));
	EXPECT_EQ(12U, self->w.mag[1].lists[PCPCACHE_LIST_HOT].high);
	cfg.mode = PCPCACHE_MODE_BARN;
	cfg.batch = 3;
	EXPECT_EQ(0U, mag_reconfigure(&self->w.mag[1], &cfg, &self->w.cut));
	EXPECT_FALSE(self->w.mag[1].high_auto);
	EXPECT_EQ(3U, self->w.mag[1].lists[PCPCACHE_LIST_HOT].high);
	EXPECT_EQ(3U, self->w.mag[1].lists[PCPCACHE_LIST_COLD].batch);
	EXPECT_EQ(3U, self->w.mag[1].lists[PCPCACHE_LIST_COLD].high);
	EXPECT_FALSE(mag_high_grow(&self->w.mag[1]));
	cfg.mode = PCPCACHE_MODE_SINGLE;
	mag_reconfigure(&self->w.mag[1], &cfg, &self->w.cut);
	EXPECT_TRUE(self->w.mag[1].high_auto);
	EXPECT_EQ(8U, self->w.mag[1].lists[PCPCACHE_LIST_HOT].high);
	EXPECT_EQ(2U, self->w.mag[1].lists[PCPCACHE_LIST_COLD].batch);
	EXPECT_EQ(4U, self->w.mag[1].lists[PCPCACHE_LIST_COLD].high);

	/* both temperatures use main; cold at its tail */
	EXPECT_EQ(hot, mag_list(&self->w.mag[0], true));
	EXPECT_EQ(hot, mag_list(&self->w.mag[0], false));
	mag_put(&self->w.mag[0], &self->w.pages[0].lru, 0, false);
	mag_put(&self->w.mag[0], &self->w.pages[1].lru, 0, true);
	mag_put(&self->w.mag[0], &self->w.pages[2].lru, 0, false);
	EXPECT_STREQ("2 0 1", MAIN_IDS(0, 0));
	EXPECT_EQ(1, id_of(mag_take(&self->w.mag[0], 0, true)));
	EXPECT_EQ(2, id_of(mag_take(&self->w.mag[0], 0, false)));
}

/*
 * A free past batch blocks: main keeps the block just freed, the rest
 * becomes the spare if it is empty, else a full magazine of the barn,
 * else (the barn full) goes back.
 */
TEST_F(barn, overflow_spare_then_barn_then_flush)
{
	struct pcpcache_list *hot = &self->w.mag[0].lists[PCPCACHE_LIST_HOT];

	barn_put(_metadata, &self->w, 0, 0, 4, 0);
	EXPECT_FALSE(mag_over_high(hot));
	EXPECT_EQ(MAG_BARN_NONE, mag_barn_overflow(&self->w.mag[0], &self->w.depot,
						   0, &self->w.cut));
	EXPECT_STREQ("3 2 1 0", MAIN_IDS(0, 0));

	barn_put(_metadata, &self->w, 0, 4, 5, 0);
	EXPECT_TRUE(mag_over_high(hot));
	EXPECT_EQ(MAG_BARN_SWAPPED, mag_barn_overflow(&self->w.mag[0], &self->w.depot,
						      0, &self->w.cut));
	EXPECT_STREQ("4", MAIN_IDS(0, 0));
	EXPECT_STREQ("3 2 1 0", SPARE_IDS(0, 0));
	EXPECT_EQ(1U, hot->count);
	EXPECT_EQ(4U, self->w.mag[0].lists[PCPCACHE_LIST_COLD].count);
	EXPECT_EQ(0U, self->w.depot.nr_full[0]);
	EXPECT_TRUE(BOOKS());

	EXPECT_EQ(MAG_BARN_GAVE_FULL, barn_free_over(_metadata, &self->w, 0, 5, 9, 0));
	EXPECT_STREQ("8", MAIN_IDS(0, 0));
	EXPECT_STREQ("7 6 5 4", FULL_IDS(0, 0));
	EXPECT_STREQ("3 2 1 0", SPARE_IDS(0, 0));
	EXPECT_EQ(1U, self->w.depot.nr_full[0]);
	EXPECT_EQ(4U, self->w.depot.full_blocks[0][0]);
	EXPECT_EQ(4U, mag_depot_count(&self->w.depot));
	EXPECT_TRUE(BOOKS());

	EXPECT_EQ(MAG_BARN_GAVE_FULL, barn_free_over(_metadata, &self->w, 0, 9, 13, 0));
	EXPECT_STREQ("11 10 9 8", FULL_IDS(0, 1));
	EXPECT_EQ(2U, self->w.depot.nr_full[0]);
	EXPECT_EQ(8U, mag_depot_count(&self->w.depot));

	/* the barn at barn_full: main's blocks but the newest go back */
	EXPECT_EQ(MAG_BARN_FLUSHED, barn_free_over(_metadata, &self->w, 0, 13, 17, 0));
	EXPECT_STREQ("16", MAIN_IDS(0, 0));
	EXPECT_STREQ("15 14 13 12", W_CUT_IDS(0));
	EXPECT_EQ(4U, self->w.cut.count);
	EXPECT_EQ(2U, self->w.depot.nr_full[0]);
	EXPECT_EQ(8U, mag_depot_count(&self->w.depot));
	EXPECT_EQ(1U + 4, mag_count(&self->w.mag[0]));
	EXPECT_TRUE(BOOKS());
}

/*
 * A main larger than a magazine (transit lists absorbed after a switch):
 * the exchange moves a magazine's size, the coldest rest goes back.
 */
TEST_F(barn, overflow_cuts_an_oversized_main_to_a_magazine)
{
	barn_put(_metadata, &self->w, 0, 0, 4, 0);
	barn_put(_metadata, &self->w, 0, 4, 5, 0);
	EXPECT_EQ(MAG_BARN_SWAPPED, mag_barn_overflow(&self->w.mag[0], &self->w.depot,
						      0, &self->w.cut));
	/* ten blocks on main at once, as an absorb leaves them */
	barn_put(_metadata, &self->w, 0, 5, 14, 0);
	EXPECT_EQ(MAG_BARN_GAVE_FULL, mag_barn_overflow(&self->w.mag[0], &self->w.depot,
							0, &self->w.cut));
	EXPECT_STREQ("13", MAIN_IDS(0, 0));
	EXPECT_STREQ("12 11 10 9", FULL_IDS(0, 0));
	EXPECT_STREQ("8 7 6 5 4", W_CUT_IDS(0));
	EXPECT_EQ(4U, self->w.depot.full_blocks[0][0]);
	EXPECT_TRUE(BOOKS());
}

/*
 * A refill, or a reconfiguration, cuts each order to a magazine's size in
 * barn mode, and leaves the other orders alone: a list over batch through
 * a mix of orders keeps them all.
 */
TEST_F(barn, refill_trim_is_per_order)
{
	struct pcpcache_mag *mag = &self->w.mag[0];
	struct pcpcache_list *hot = &mag->lists[PCPCACHE_LIST_HOT];

	/* a full magazine of order 1: two blocks, four pages, at high */
	barn_put(_metadata, &self->w, 0, 0, 2, 1);
	/* a refill of order 0 of five blocks, one more than a magazine */
	barn_put(_metadata, &self->w, 0, 2, 7, 0);
	EXPECT_EQ(9U, hot->count);
	EXPECT_TRUE(mag_over_high(hot));
	EXPECT_EQ(1U, mag_trim_refill(mag, hot, &self->w.cut, PCPCACHE_MAX_BATCH));
	EXPECT_STREQ("2", W_CUT_IDS(0));
	EXPECT_EQ(2U, hot->nr[1]);
	EXPECT_EQ(4U, hot->nr[0]);
	EXPECT_EQ(8U, hot->count);
	/* nothing more to cut, though count is over high */
	EXPECT_EQ(0U, mag_trim_refill(mag, hot, &self->w.cut, PCPCACHE_MAX_BATCH));
	EXPECT_EQ(0U, mag_trim_excess(mag, &self->w.cut, PCPCACHE_MAX_BATCH));
	EXPECT_TRUE(BOOKS());
}

/* A lowered batch: the barn's magazines larger than the new size go. */
TEST_F(barn, depot_reconfigure_cuts_magazines_of_a_larger_batch)
{
	struct pcpcache_config cfg = barn_cfg;

	barn_put(_metadata, &self->w, 0, 0, 5, 0);
	EXPECT_EQ(MAG_BARN_SWAPPED, mag_barn_overflow(&self->w.mag[0], &self->w.depot,
						      0, &self->w.cut));
	EXPECT_EQ(MAG_BARN_GAVE_FULL, barn_free_over(_metadata, &self->w, 0, 5, 9, 0));
	/* and one of order 1, of two blocks */
	barn_put(_metadata, &self->w, 1, 9, 12, 1);
	EXPECT_EQ(MAG_BARN_SWAPPED, mag_barn_overflow(&self->w.mag[1], &self->w.depot,
						      1, &self->w.cut));
	barn_put(_metadata, &self->w, 1, 12, 14, 1);
	EXPECT_EQ(MAG_BARN_GAVE_FULL, mag_barn_overflow(&self->w.mag[1], &self->w.depot,
							1, &self->w.cut));
	EXPECT_STREQ("12 11", FULL_IDS(1, 0));
	EXPECT_EQ(8U, mag_depot_count(&self->w.depot));
	/* batch 5: magazines of 5 and 2 blocks, both kept */
	cfg.batch = 5;
	cfg.high = 5;
	EXPECT_EQ(0U, mag_depot_reconfigure(&self->w.depot, &cfg, &self->w.cut));
	EXPECT_EQ(8U, mag_depot_count(&self->w.depot));
	/* batch 3: of 3 and 1; a CPU at batch 3 takes neither meanwhile */
	cfg.batch = 3;
	cfg.high = 3;
	mag_reconfigure(&self->w.mag[1], &cfg, &self->w.cut);
	mag_trim_excess(&self->w.mag[1], &self->w.cut, PCPCACHE_MAX_BATCH);
	barn_give_back(&self->w);
	while (barn_take(&self->w, 1, 0) >= 0)
		;
	EXPECT_EQ(MAG_BARN_NONE, mag_barn_refill(&self->w.mag[1], &self->w.depot, 0));
	EXPECT_EQ(8U, mag_depot_count(&self->w.depot));
	/* and the barn's reconfiguration gives both back */
	EXPECT_EQ(8U, mag_depot_reconfigure(&self->w.depot, &cfg, &self->w.cut));
	EXPECT_STREQ("7 6 5 4", W_CUT_IDS(0));
	EXPECT_STREQ("12 11", W_CUT_IDS(1));
	EXPECT_EQ(0U, self->w.depot.nr_full[0]);
	EXPECT_EQ(0U, self->w.depot.nr_full[1]);
	EXPECT_EQ(0U, mag_depot_count(&self->w.depot));
	EXPECT_TRUE(BOOKS());
}

/* No barn (none, or its lock busy): a full spare means a flush. */
TEST_F(barn, overflow_without_a_barn_flushes)
{
	barn_put(_metadata, &self->w, 1, 0, 5, 0);
	EXPECT_EQ(MAG_BARN_SWAPPED, mag_barn_overflow(&self->w.mag[1], NULL, 0,
						      &self->w.cut));
	barn_put(_metadata, &self->w, 1, 5, 9, 0);
	EXPECT_EQ(MAG_BARN_FLUSHED, mag_barn_overflow(&self->w.mag[1], NULL, 0,
						      &self->w.cut));
	EXPECT_STREQ("8", MAIN_IDS(1, 0));
	EXPECT_STREQ("7 6 5 4", W_CUT_IDS(0));
	EXPECT_STREQ("3 2 1 0", SPARE_IDS(1, 0));
	EXPECT_EQ(0U, self->w.depot.nr_full[0]);
	EXPECT_TRUE(BOOKS());
}

/* A magazine holds batch >> order blocks of each order, one at least. */
TEST_F(barn, overflow_counts_blocks_of_the_order)
{
	struct pcpcache_list *hot = &self->w.mag[0].lists[PCPCACHE_LIST_HOT];
	struct pcpcache_list *cold = &self->w.mag[0].lists[PCPCACHE_LIST_COLD];

	/* order 1: 2 blocks a magazine */
	barn_put(_metadata, &self->w, 0, 0, 2, 1);
	EXPECT_EQ(MAG_BARN_NONE, mag_barn_overflow(&self->w.mag[0], &self->w.depot,
						   1, &self->w.cut));
	EXPECT_EQ(MAG_BARN_SWAPPED, barn_free_over(_metadata, &self->w, 0, 2, 3, 1));
	EXPECT_EQ(2U, cold->nr[1]);
	EXPECT_EQ(4U, cold->count);
	EXPECT_EQ(1U, hot->nr[1]);
	EXPECT_EQ(MAG_BARN_GAVE_FULL, barn_free_over(_metadata, &self->w, 0, 3, 5, 1));
	EXPECT_EQ(2U, self->w.depot.full_blocks[1][0]);
	EXPECT_EQ(4U, mag_depot_count(&self->w.depot));

	/* order 3: one block of 8 pages, over high alone */
	barn_put(_metadata, &self->w, 0, 5, 6, 3);
	EXPECT_TRUE(mag_over_high(hot));
	EXPECT_EQ(MAG_BARN_NONE, mag_barn_overflow(&self->w.mag[0], &self->w.depot,
						   3, &self->w.cut));
	EXPECT_EQ(MAG_BARN_SWAPPED, barn_free_over(_metadata, &self->w, 0, 6, 7, 3));
	EXPECT_STREQ("5", SPARE_IDS(0, 3));
	EXPECT_STREQ("6", MAIN_IDS(0, 3));

	/* over high through other orders only: each within its size, left */
	barn_put(_metadata, &self->w, 0, 7, 10, 0);
	EXPECT_TRUE(mag_over_high(hot));
	EXPECT_EQ(MAG_BARN_NONE, mag_barn_overflow(&self->w.mag[0], &self->w.depot,
						   0, &self->w.cut));
	EXPECT_EQ(MAG_BARN_NONE, mag_barn_overflow(&self->w.mag[0], &self->w.depot,
						   1, &self->w.cut));
	EXPECT_EQ(3U + 2 + 8, hot->count);
	EXPECT_EQ(0U, self->w.cut.count);
	EXPECT_TRUE(BOOKS());
}

/* An empty main takes the spare's blocks first, LIFO as they were. */
TEST_F(barn, refill_swaps_in_the_spare)
{
	EXPECT_EQ(MAG_BARN_SWAPPED, barn_free_over(_metadata, &self->w, 0, 0, 5, 0));
	/* main has a block: nothing to do, even with a full spare */
	EXPECT_EQ(MAG_BARN_NONE, mag_barn_refill(&self->w.mag[0], &self->w.depot, 0));
	EXPECT_EQ(4, barn_take(&self->w, 0, 0));
	EXPECT_EQ(-1, barn_take(&self->w, 0, 0));
	EXPECT_EQ(MAG_BARN_SWAPPED, mag_barn_refill(&self->w.mag[0], NULL, 0));
	EXPECT_STREQ("3 2 1 0", MAIN_IDS(0, 0));
	EXPECT_STREQ("", SPARE_IDS(0, 0));
	EXPECT_EQ(4U, self->w.mag[0].lists[PCPCACHE_LIST_HOT].count);
	EXPECT_EQ(0U, self->w.mag[0].lists[PCPCACHE_LIST_COLD].count);
	EXPECT_TRUE(BOOKS());
	EXPECT_EQ(3, barn_take(&self->w, 0, 0));
	/* another order's spare is not this order's */
	EXPECT_EQ(MAG_BARN_NONE, mag_barn_refill(&self->w.mag[0], &self->w.depot, 1));
	EXPECT_TRUE(BOOKS());
}

/*
 * With main and spare empty, the newest full magazine of the barn, for
 * an empty one; none there (or no barn): the caller refills.
 */
TEST_F(barn, refill_takes_a_full_magazine)
{
	EXPECT_EQ(MAG_BARN_SWAPPED, barn_free_over(_metadata, &self->w, 0, 0, 5, 0));
	EXPECT_EQ(MAG_BARN_GAVE_FULL, barn_free_over(_metadata, &self->w, 0, 5, 9, 0));
	EXPECT_EQ(MAG_BARN_GAVE_FULL, barn_free_over(_metadata, &self->w, 0, 9, 13, 0));
	EXPECT_EQ(2U, self->w.depot.nr_full[0]);

	/* CPU 1 has nothing: no barn, nothing */
	EXPECT_EQ(MAG_BARN_NONE, mag_barn_refill(&self->w.mag[1], NULL, 0));
	EXPECT_EQ(0U, mag_count(&self->w.mag[1]));
	EXPECT_EQ(MAG_BARN_TOOK_FULL, mag_barn_refill(&self->w.mag[1], &self->w.depot, 0));
	EXPECT_STREQ("11 10 9 8", MAIN_IDS(1, 0));
	EXPECT_EQ(4U, self->w.mag[1].lists[PCPCACHE_LIST_HOT].count);
	EXPECT_EQ(1U, self->w.depot.nr_full[0]);
	EXPECT_EQ(4U, mag_depot_count(&self->w.depot));
	EXPECT_TRUE(BOOKS());
	EXPECT_EQ(11, barn_take(&self->w, 1, 0));
	EXPECT_EQ(MAG_BARN_NONE, mag_barn_refill(&self->w.mag[1], &self->w.depot, 0));
	EXPECT_EQ(10, barn_take(&self->w, 1, 0));
	EXPECT_EQ(9, barn_take(&self->w, 1, 0));
	EXPECT_EQ(8, barn_take(&self->w, 1, 0));
	EXPECT_EQ(MAG_BARN_TOOK_FULL, mag_barn_refill(&self->w.mag[1], &self->w.depot, 0));
	EXPECT_STREQ("7 6 5 4", MAIN_IDS(1, 0));
	EXPECT_EQ(0U, self->w.depot.nr_full[0]);
	EXPECT_EQ(0U, mag_depot_count(&self->w.depot));
	EXPECT_TRUE(BOOKS());
	while (barn_take(&self->w, 1, 0) >= 0)
		;
	EXPECT_EQ(MAG_BARN_NONE, mag_barn_refill(&self->w.mag[1], &self->w.depot, 0));
	/* the barn, empty, takes a full one again */
	EXPECT_EQ(MAG_BARN_GAVE_FULL, barn_free_over(_metadata, &self->w, 0, 13, 17, 0));
	EXPECT_EQ(1U, self->w.depot.nr_full[0]);
	EXPECT_TRUE(BOOKS());
}

/*
 * Bonwick's working set: a trim gives back the fewest full magazines the
 * barn held since the last trim, the oldest, and starts counting again.
 */
TEST_F(barn, trim_gives_back_the_unused_minimum)
{
	EXPECT_EQ(MAG_BARN_SWAPPED, barn_free_over(_metadata, &self->w, 0, 0, 5, 0));
	EXPECT_EQ(MAG_BARN_GAVE_FULL, barn_free_over(_metadata, &self->w, 0, 5, 9, 0));
	EXPECT_EQ(MAG_BARN_GAVE_FULL, barn_free_over(_metadata, &self->w, 0, 9, 13, 0));
	/* since the barn was set up, it had none at one point: none go */
	EXPECT_EQ(0U, mag_depot_trim(&self->w.depot, &self->w.cut));
	EXPECT_EQ(0U, self->w.cut.count);
	EXPECT_EQ(2U, self->w.depot.min_full[0]);

	/* one taken, one given: the low-water mark is 1 */
	EXPECT_EQ(MAG_BARN_TOOK_FULL, mag_barn_refill(&self->w.mag[1], &self->w.depot, 0));
	EXPECT_EQ(1U, self->w.depot.min_full[0]);
	EXPECT_EQ(MAG_BARN_GAVE_FULL, barn_free_over(_metadata, &self->w, 0, 13, 17, 0));
	EXPECT_EQ(2U, self->w.depot.nr_full[0]);
	EXPECT_EQ(1U, self->w.depot.min_full[0]);
	EXPECT_STREQ("7 6 5 4", FULL_IDS(0, 0));
	EXPECT_STREQ("15 14 13 12", FULL_IDS(0, 1));

	EXPECT_EQ(1U, mag_depot_trim(&self->w.depot, &self->w.cut));
	EXPECT_STREQ("7 6 5 4", W_CUT_IDS(0));
	EXPECT_EQ(4U, self->w.cut.count);
	EXPECT_STREQ("15 14 13 12", FULL_IDS(0, 0));
	EXPECT_STREQ("", FULL_IDS(0, 1));
	EXPECT_EQ(1U, self->w.depot.nr_full[0]);
	EXPECT_EQ(1U, self->w.depot.min_full[0]);
	EXPECT_EQ(4U, mag_depot_count(&self->w.depot));
	EXPECT_TRUE(BOOKS());
	barn_give_back(&self->w);

	/* idle since: the last one was not needed either */
	EXPECT_EQ(1U, mag_depot_trim(&self->w.depot, &self->w.cut));
	EXPECT_STREQ("15 14 13 12", W_CUT_IDS(0));
	EXPECT_EQ(0U, self->w.depot.nr_full[0]);
	EXPECT_EQ(0U, self->w.depot.min_full[0]);
	EXPECT_EQ(0U, mag_depot_count(&self->w.depot));
	EXPECT_EQ(0U, mag_depot_trim(&self->w.depot, &self->w.cut));
	EXPECT_TRUE(BOOKS());
}

/* Each order's working set is its own; the trim counts magazines. */
TEST_F(barn, trim_counts_each_order)
{
	EXPECT_EQ(MAG_BARN_SWAPPED, barn_free_over(_metadata, &self->w, 0, 0, 5, 0));
	EXPECT_EQ(MAG_BARN_GAVE_FULL, barn_free_over(_metadata, &self->w, 0, 5, 9, 0));
	EXPECT_EQ(MAG_BARN_SWAPPED, barn_free_over(_metadata, &self->w, 0, 9, 12, 1));
	EXPECT_EQ(MAG_BARN_GAVE_FULL, barn_free_over(_metadata, &self->w, 0, 12, 14, 1));
	EXPECT_EQ(MAG_BARN_GAVE_FULL, barn_free_over(_metadata, &self->w, 0, 14, 16, 1));
	EXPECT_EQ(0U, mag_depot_trim(&self->w.depot, &self->w.cut));
	EXPECT_EQ(1U, self->w.depot.min_full[0]);
	EXPECT_EQ(2U, self->w.depot.min_full[1]);
	EXPECT_EQ(MAG_BARN_TOOK_FULL, mag_barn_refill(&self->w.mag[1], &self->w.depot, 1));
	/* order 0's one and order 1's older one */
	EXPECT_EQ(2U, mag_depot_trim(&self->w.depot, &self->w.cut));
	EXPECT_EQ(4U + 4, self->w.cut.count);
	EXPECT_STREQ("7 6 5 4", W_CUT_IDS(0));
	EXPECT_STREQ("12 11", W_CUT_IDS(1));
	EXPECT_EQ(0U, self->w.depot.nr_full[0]);
	EXPECT_EQ(0U, self->w.depot.nr_full[1]);
	EXPECT_STREQ("14 13", MAIN_IDS(1, 1));
	EXPECT_TRUE(BOOKS());
}

/* Wanted pages from the barn: whole magazines, largest order, oldest first. */
TEST_F(barn, depot_cut_oldest_largest_order_first)
{
	EXPECT_EQ(MAG_BARN_SWAPPED, barn_free_over(_metadata, &self->w, 0, 0, 5, 0));
	EXPECT_EQ(MAG_BARN_GAVE_FULL, barn_free_over(_metadata, &self->w, 0, 5, 9, 0));
	EXPECT_EQ(MAG_BARN_GAVE_FULL, barn_free_over(_metadata, &self->w, 0, 9, 13, 0));
	EXPECT_EQ(MAG_BARN_SWAPPED, barn_free_over(_metadata, &self->w, 1, 13, 16, 1));
	EXPECT_EQ(MAG_BARN_GAVE_FULL, barn_free_over(_metadata, &self->w, 1, 16, 18, 1));
	EXPECT_EQ(MAG_BARN_GAVE_FULL, barn_free_over(_metadata, &self->w, 1, 18, 20, 1));
	EXPECT_EQ(16U, mag_depot_count(&self->w.depot));
	EXPECT_STREQ("16 15", FULL_IDS(1, 0));
	EXPECT_STREQ("18 17", FULL_IDS(1, 1));

	EXPECT_EQ(0U, mag_depot_cut(&self->w.depot, 0, &self->w.cut));
	EXPECT_EQ(4U, mag_depot_cut(&self->w.depot, 1, &self->w.cut));
	EXPECT_STREQ("16 15", W_CUT_IDS(1));
	EXPECT_STREQ("18 17", FULL_IDS(1, 0));
	EXPECT_EQ(1U, self->w.depot.nr_full[1]);
	EXPECT_EQ(12U, mag_depot_count(&self->w.depot));
	EXPECT_TRUE(BOOKS());

	/* the last magazine may pass what is wanted */
	EXPECT_EQ(8U, mag_depot_cut(&self->w.depot, 5, &self->w.cut));
	EXPECT_STREQ("16 15 18 17", W_CUT_IDS(1));
	EXPECT_STREQ("7 6 5 4", W_CUT_IDS(0));
	EXPECT_STREQ("11 10 9 8", FULL_IDS(0, 0));
	EXPECT_EQ(0U, self->w.depot.nr_full[1]);
	EXPECT_EQ(1U, self->w.depot.nr_full[0]);
	EXPECT_EQ(4U, mag_depot_count(&self->w.depot));
	EXPECT_TRUE(BOOKS());

	EXPECT_EQ(4U, mag_depot_cut(&self->w.depot, UINT_MAX, &self->w.cut));
	EXPECT_EQ(0U, mag_depot_count(&self->w.depot));
	EXPECT_EQ(0U, mag_depot_cut(&self->w.depot, UINT_MAX, &self->w.cut));
	EXPECT_EQ(16U, self->w.cut.count);
	EXPECT_TRUE(BOOKS());
}

/* A cut takes the low-water mark down with it: no trim cuts twice. */
TEST_F(barn, depot_cut_lowers_the_working_set)
{
	EXPECT_EQ(MAG_BARN_SWAPPED, barn_free_over(_metadata, &self->w, 0, 0, 5, 0));
	EXPECT_EQ(MAG_BARN_GAVE_FULL, barn_free_over(_metadata, &self->w, 0, 5, 9, 0));
	EXPECT_EQ(MAG_BARN_GAVE_FULL, barn_free_over(_metadata, &self->w, 0, 9, 13, 0));
	EXPECT_EQ(0U, mag_depot_trim(&self->w.depot, &self->w.cut));
	EXPECT_EQ(2U, self->w.depot.min_full[0]);
	EXPECT_EQ(4U, mag_depot_cut(&self->w.depot, 4, &self->w.cut));
	EXPECT_EQ(1U, self->w.depot.min_full[0]);
	EXPECT_EQ(1U, mag_depot_trim(&self->w.depot, &self->w.cut));
	EXPECT_EQ(0U, mag_depot_count(&self->w.depot));
	EXPECT_EQ(8U, self->w.cut.count);
	EXPECT_TRUE(BOOKS());
}

/* A lowered barn_full cuts the oldest magazines over it. */
TEST_F(barn, depot_reconfigure_cuts_to_a_lowered_max)
{
	struct pcpcache_config cfg = barn_cfg;

	EXPECT_EQ(MAG_BARN_SWAPPED, barn_free_over(_metadata, &self->w, 0, 0, 5, 0));
	EXPECT_EQ(MAG_BARN_GAVE_FULL, barn_free_over(_metadata, &self->w, 0, 5, 9, 0));
	EXPECT_EQ(MAG_BARN_GAVE_FULL, barn_free_over(_metadata, &self->w, 0, 9, 13, 0));
	EXPECT_EQ(MAG_BARN_TOOK_FULL, mag_barn_refill(&self->w.mag[1], &self->w.depot, 0));
	while (barn_take(&self->w, 1, 0) >= 0)
		;
	EXPECT_EQ(MAG_BARN_TOOK_FULL, mag_barn_refill(&self->w.mag[1], &self->w.depot, 0));
	while (barn_take(&self->w, 1, 0) >= 0)
		;
	EXPECT_EQ(0U, self->w.depot.nr_full[0]);

	/* the same limits: nothing moves */
	EXPECT_EQ(0U, mag_depot_reconfigure(&self->w.depot, &cfg, &self->w.cut));
	EXPECT_EQ(2U, self->w.depot.max_full);
	EXPECT_EQ(MAG_BARN_GAVE_FULL, barn_free_over(_metadata, &self->w, 0, 13, 17, 0));
	EXPECT_EQ(MAG_BARN_GAVE_FULL, barn_free_over(_metadata, &self->w, 0, 17, 21, 0));
	EXPECT_EQ(2U, self->w.depot.nr_full[0]);

	/* raised: nothing moves */
	cfg.barn_full = 32;
	EXPECT_EQ(0U, mag_depot_reconfigure(&self->w.depot, &cfg, &self->w.cut));
	EXPECT_EQ(32U, self->w.depot.max_full);
	EXPECT_EQ(2U, self->w.depot.nr_full[0]);
	EXPECT_TRUE(BOOKS());

	cfg.barn_full = 1;
	EXPECT_EQ(4U, mag_depot_reconfigure(&self->w.depot, &cfg, &self->w.cut));
	EXPECT_STREQ("15 14 13 12", W_CUT_IDS(0));
	EXPECT_STREQ("19 18 17 16", FULL_IDS(0, 0));
	EXPECT_EQ(1U, self->w.depot.nr_full[0]);
	EXPECT_EQ(4U, mag_depot_count(&self->w.depot));
	EXPECT_TRUE(BOOKS());
	barn_give_back(&self->w);
	/* the barn now full at 1: a full main goes back */
	EXPECT_EQ(MAG_BARN_FLUSHED, barn_free_over(_metadata, &self->w, 0, 21, 25, 0));
	EXPECT_STREQ("23 22 21 20", W_CUT_IDS(0));
	EXPECT_TRUE(BOOKS());

	cfg.barn_full = 0;
	EXPECT_EQ(4U, mag_depot_reconfigure(&self->w.depot, &cfg, &self->w.cut));
	EXPECT_EQ(0U, mag_depot_count(&self->w.depot));
	EXPECT_EQ(0U, self->w.depot.min_full[0]);
	EXPECT_TRUE(BOOKS());
	/* a barn of none: every full main goes back */
	EXPECT_EQ(MAG_BARN_FLUSHED, barn_free_over(_metadata, &self->w, 0, 25, 29, 0));
	EXPECT_EQ(0U, self->w.depot.nr_full[0]);
	EXPECT_EQ(1U, self->w.mag[0].lists[PCPCACHE_LIST_HOT].count);
	EXPECT_TRUE(BOOKS());
}

/*
 * Into and out of barn mode: single's list becomes main, cut to batch by
 * the trim; leaving, the spare joins the one list's cold end, or stays as
 * split's cold list; remote and passthrough drain.
 */
TEST_F(barn, mode_changes_keep_every_block)
{
	struct pcpcache_config cfg = barn_cfg, single = barn_cfg;
	struct pcpcache_mag *mag = &self->w.mag[0];
	int i;

	single.mode = PCPCACHE_MODE_SINGLE;
	mag_init(mag, &single);
	barn_put(_metadata, &self->w, 0, 0, 7, 0);
	EXPECT_EQ(3, reconfigure(mag, &cfg, &self->w.cut, 2));
	EXPECT_STREQ("6 5 4 3", MAIN_IDS(0, 0));
	/* in steps of 2, each the coldest left */
	EXPECT_STREQ("1 0 2", W_CUT_IDS(0));
	EXPECT_TRUE(BOOKS());
	barn_give_back(&self->w);

	EXPECT_EQ(MAG_BARN_SWAPPED, barn_free_over(_metadata, &self->w, 0, 7, 8, 0));
	EXPECT_STREQ("7", MAIN_IDS(0, 0));
	EXPECT_STREQ("6 5 4 3", SPARE_IDS(0, 0));
	EXPECT_EQ(0, reconfigure(mag, &single, &self->w.cut, 64));
	EXPECT_STREQ("7 6 5 4 3", MAIN_IDS(0, 0));
	EXPECT_EQ(0U, mag->lists[PCPCACHE_LIST_COLD].count);
	EXPECT_TRUE(BOOKS());

	/* to barn and on to split: the spare is split's cold list */
	EXPECT_EQ(1, reconfigure(mag, &cfg, &self->w.cut, 64));
	barn_give_back(&self->w);
	EXPECT_EQ(MAG_BARN_SWAPPED, barn_free_over(_metadata, &self->w, 0, 8, 9, 0));
	single.mode = PCPCACHE_MODE_SPLIT;
	EXPECT_EQ(0, reconfigure(mag, &single, &self->w.cut, 64));
	EXPECT_STREQ("8", MAIN_IDS(0, 0));
	EXPECT_STREQ("7 6 5 4", SPARE_IDS(0, 0));
	EXPECT_EQ(4U, mag->lists[PCPCACHE_LIST_COLD].high);
	EXPECT_EQ(2U, mag->lists[PCPCACHE_LIST_COLD].batch);
	/* and split to barn keeps the cold list as the spare */
	EXPECT_EQ(0, reconfigure(mag, &cfg, &self->w.cut, 64));
	EXPECT_STREQ("7 6 5 4", SPARE_IDS(0, 0));
	EXPECT_TRUE(BOOKS());

	/* remote and passthrough keep nothing */
	for (i = 0; i < 2; i++) {
		single.mode = i ? PCPCACHE_MODE_PASSTHROUGH : PCPCACHE_MODE_REMOTE;
		EXPECT_EQ(5, reconfigure(mag, &single, &self->w.cut, 64));
		EXPECT_EQ(0U, mag_count(mag));
		EXPECT_TRUE(BOOKS());
		barn_give_back(&self->w);
		EXPECT_EQ(0, reconfigure(mag, &cfg, &self->w.cut, 64));
		if (!i)
			EXPECT_EQ(MAG_BARN_SWAPPED,
				  barn_free_over(_metadata, &self->w, 0, 4, 9, 0));
	}
}

/* xorshift32: the same traffic every run */
static unsigned int barn_rand(unsigned int *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

#define RAND_PAGES	2048
#define RAND_CPUS	4

/*
 * Random traffic on four CPUs and a barn, as core.c and barn.c drive the
 * rules: an allocation takes from main, else the spare or a full
 * magazine, else a refill of batch >> order blocks from the buddy
 * allocator, cut to high; a free past high exchanges main; the barn's
 * lock sometimes busy; trims, shrinks and new limits now and then. The
 * books, by walking every list, after every step.
 */
TEST(barn_random_traffic_keeps_the_books)
{
	struct pcpcache_config cfg = barn_cfg;
	struct pcpcache_mag mags[RAND_CPUS];
	struct pcpcache_depot depot;
	struct pcpcache_cut cut;
	struct list_head buddy[PCPCACHE_NR_ORDERS];
	struct tpage *pages = calloc(RAND_PAGES, sizeof(*pages));
	unsigned int *order_of = calloc(RAND_PAGES, sizeof(*order_of));
	bool *held = calloc(RAND_PAGES, sizeof(*held));
	bool *out = calloc(RAND_PAGES, sizeof(*out));
	int *mine = calloc(RAND_PAGES, sizeof(*mine)), nr_mine = 0;
	unsigned int seed = 2026, step, order, i, n, r;
	unsigned long long done[MAG_BARN_FLUSHED + 1] = { 0 };
	struct tpage *p, *next;
	int cpu, k;

	ASSERT_TRUE(pages && order_of && held && out && mine);
	cfg.batch = 8;
	cfg.barn_full = 3;
	for (order = 0; order < PCPCACHE_NR_ORDERS; order++)
		INIT_LIST_HEAD(&buddy[order]);
	/* a quarter of the blocks of each order, in the buddy allocator */
	for (k = 0; k < RAND_PAGES; k++) {
		pages[k].id = k;
		order_of[k] = k % PCPCACHE_NR_ORDERS;
		list_add_tail(&pages[k].lru, &buddy[order_of[k]]);
	}
	for (cpu = 0; cpu < RAND_CPUS; cpu++)
		mag_init(&mags[cpu], &cfg);
	mag_depot_init(&depot, &cfg);
	mag_cut_init(&cut);

	for (step = 0; step < 40000; step++) {
		struct pcpcache_depot *d = barn_rand(&seed) % 8 ? &depot : NULL;
		enum mag_barn_done what = MAG_BARN_NONE;
		struct pcpcache_mag *mag;
		struct list_head *node;
		LIST_HEAD(refill);

		r = barn_rand(&seed) % 1000;
		cpu = barn_rand(&seed) % RAND_CPUS;
		mag = &mags[cpu];
		order = barn_rand(&seed) % 8;
		order = order < 5 ? 0 : order - 4;
		if (r < 480) {
			/* an allocation */
			node = mag_take(mag, order, r & 1);
			if (!node) {
				what = mag_barn_refill(mag, d, order);
				done[what]++;
				if (what != MAG_BARN_NONE) {
					node = mag_take(mag, order, r & 1);
					ASSERT_NE(NULL, node);
				}
			}
			if (!node) {
				/* mag_batch() blocks: one out, the rest cached */
				n = mag_batch(mag->lists[PCPCACHE_LIST_HOT].batch, order);
				for (i = 0; i < n && !list_empty(&buddy[order]); i++)
					list_move_tail(buddy[order].next, &refill);
				if (!i)
					continue;
				node = refill.next;
				list_del(node);
				if (i > 1) {
					mag_add_refill(mag_list(mag, r & 1), order,
						       &refill, i - 1);
					mag_trim_to_high(mag_list(mag, r & 1), &cut,
							 PCPCACHE_MAX_BATCH);
				}
			}
			k = id_of(node);
			held[k] = true;
			mine[nr_mine++] = k;
		} else if (r < 960) {
			/* a free of a random block held, on this CPU */
			struct pcpcache_list *list;

			if (!nr_mine)
				continue;
			i = barn_rand(&seed) % nr_mine;
			k = mine[i];
			mine[i] = mine[--nr_mine];
			held[k] = false;
			list = mag_put(mag, &pages[k].lru, order_of[k], r & 1);
			if (mag_over_high(list)) {
				what = mag_barn_overflow(mag, d, order_of[k], &cut);
				done[what]++;
			}
			/* within its size: each order's blocks on main and spare */
			for (order = 0; order < PCPCACHE_NR_ORDERS; order++) {
				ASSERT_GE(mag_batch(8, order),
					  mag->lists[PCPCACHE_LIST_HOT].nr[order]);
				ASSERT_GE(mag_batch(8, order),
					  mag->lists[PCPCACHE_LIST_COLD].nr[order]);
			}
		} else if (r < 975) {
			mag_depot_trim(&depot, &cut);
		} else if (r < 985) {
			mag_depot_cut(&depot, barn_rand(&seed) % 64, &cut);
		} else if (r < 990) {
			mag_shrink(mag, barn_rand(&seed) % 16, &cut);
		} else {
			/* barn_full changed under it */
			cfg.barn_full = barn_rand(&seed) % 5;
			mag_depot_reconfigure(&depot, &cfg, &cut);
			ASSERT_EQ(cfg.barn_full, depot.max_full);
		}
		/* out of the cache: the callers' and the buddy allocator's */
		memcpy(out, held, RAND_PAGES * sizeof(*out));
		for (order = 0; order < PCPCACHE_NR_ORDERS; order++)
			list_for_each_entry(p, &buddy[order], lru)
				out[p->id] = true;
		if (!barn_books(mags, RAND_CPUS, &depot, &cut, pages, order_of,
				out, RAND_PAGES)) {
			TH_LOG("step %u", step);
			ASSERT_TRUE(false);
		}
		/* what the cut holds goes back to the buddy allocator */
		for (order = 0; order < PCPCACHE_NR_ORDERS; order++)
			list_for_each_entry_safe(p, next, &cut.pages[order], lru)
				list_move_tail(&p->lru, &buddy[order]);
		mag_cut_init(&cut);
		/* the buddy allocator's and the callers' blocks, counted */
		n = 0;
		for (order = 0; order < PCPCACHE_NR_ORDERS; order++)
			list_for_each_entry(p, &buddy[order], lru)
				n++;
		for (k = 0, i = 0; k < RAND_PAGES; k++)
			i += held[k];
		ASSERT_EQ((unsigned int)nr_mine, i);
		i += n;
		for (cpu = 0; cpu < RAND_CPUS; cpu++)
			for (order = 0; order < PCPCACHE_NR_ORDERS; order++)
				i += mags[cpu].lists[0].nr[order] +
				     mags[cpu].lists[1].nr[order];
		for (order = 0; order < PCPCACHE_NR_ORDERS; order++)
			for (k = 0; k < (int)depot.nr_full[order]; k++)
				i += depot.full_blocks[order][k];
		ASSERT_EQ((unsigned int)RAND_PAGES, i) {
			TH_LOG("step %u", step);
		}
	}
	/* every exchange happened */
	for (i = MAG_BARN_SWAPPED; i <= MAG_BARN_FLUSHED; i++)
		EXPECT_LT(100ULL, done[i]) {
			TH_LOG("exchange %u: %llu times", i, done[i]);
		}
	free(pages);
	free(order_of);
	free(held);
	free(out);
	free(mine);
}

TEST(batch_scales_down_by_order)
{
	EXPECT_EQ(63U, mag_batch(63, 0));
	EXPECT_EQ(31U, mag_batch(63, 1));
	EXPECT_EQ(7U, mag_batch(63, 3));
	EXPECT_EQ(1U, mag_batch(4, 3));
	EXPECT_EQ(1U, mag_batch(1, 3));
}

/*
 * The fields in order: mode, batch, high, cold_batch, cold_high, high_min,
 * high_max, barn_full, high_auto.
 */
TEST(config_rules)
{
	const struct {
		struct pcpcache_config cfg;
		unsigned long max;
		const char *bad;
	} cases[] = {
		{ { 1, 63, 378, 31, 126, 1, 1 }, 504, NULL },
		{ { 1, 63, 378, 31, 126, 1, 1 }, 503, "high" },
		{ { 1, 1, 1, 1, 1, 1, 1 }, 2, NULL },
		{ { 2, 1, 1, 1, 1, 1, 1 }, 2, NULL },
		{ { 0, 1, 1, 1, 1, 1, 1 }, 2, NULL },
		{ { 4, 1, 1, 1, 1, 1, 1 }, 2, NULL },
		{ { 6, 1, 1, 1, 1, 1, 1 }, 2, "mode" },
		{ { -1, 1, 1, 1, 1, 1, 1 }, 2, "mode" },
		{ { 1, 0, 8, 1, 1, 1, 1 }, 100, "batch" },
		{ { 1, 9, 8, 1, 1, 1, 1 }, 100, "batch" },
		{ { 1, 8, 8, 0, 4, 1, 1 }, 100, "cold_batch" },
		{ { 1, 8, 8, 5, 4, 1, 1 }, 100, "cold_batch" },
		{ { 1, 8, 8, 4, 96, 1, 1 }, 100, "cold_high" },
		{ { 1, 8, 8, 4, 92, 1, 1 }, 100, NULL },
		{ { 1, 4096, 8192, 4096, 4096, 1, 1 }, 100000, NULL },
		{ { 1, 4097, 8192, 1, 1, 1, 1 }, 100000, "batch" },
		{ { 1, 1, 8192, 4097, 8192, 1, 1 }, 100000, "cold_batch" },
		{ { 1, 1, UINT_MAX, 1, UINT_MAX, 1, 1 }, ULONG_MAX, NULL },
		{ { 1, 1, UINT_MAX, 1, UINT_MAX, 1, 1 }, 2UL * UINT_MAX - 1, "high" },
		/* high_min <= high_max always; auto: batch <= high_min ... */
		{ { 1, 63, 378, 31, 126, 10, 9 }, 100000, "high_min" },
		{ { 1, 63, 378, 31, 126, 0, 9 }, 100000, "high_min" },
		{ { 1, 63, 1, 31, 126, 62, 1000, 0, true }, 100000, "batch" },
		{ { 1, 63, 1, 31, 126, 63, 1000, 0, true }, 100000, NULL },
		/* ... and high_max + cold_high within the bound */
		{ { 1, 63, 1, 31, 126, 378, 1134, 0, true }, 1260, NULL },
		{ { 1, 63, 1, 31, 126, 378, 1134, 0, true }, 1259, "high_max" },
		{ { 1, 63, 99999, 31, 126, 378, 1134, 0, true }, 1260, NULL },
		/* barn_full at most 32, in every mode */
		{ { 1, 63, 378, 31, 126, 1, 1, 32 }, 504, NULL },
		{ { 1, 63, 378, 31, 126, 1, 1, 33 }, 504, "barn_full" },
		{ { 0, 63, 378, 31, 126, 1, 1, UINT_MAX }, ULONG_MAX, "barn_full" },
		/*
		 * barn mode: (2 + barn_full) * max(batch, 8) * 4 within the
		 * bound: a magazine of batch 1 still holds an order-3 block
		 */
		{ { 5, 1, 1, 1, 1, 1, 1 }, 2, "barn_full" },
		{ { 5, 1, 1, 1, 1, 1, 1 }, 64, NULL },
		{ { 5, 1, 1, 1, 1, 1, 1 }, 63, "barn_full" },
		{ { 5, 1, 1, 1, 1, 1, 1, 32 }, 1088, NULL },
		{ { 5, 1, 1, 1, 1, 1, 1, 32 }, 1087, "barn_full" },
		{ { 5, 63, 378, 31, 126, 1, 1, 4 }, 1512, NULL },
		{ { 5, 63, 378, 31, 126, 1, 1, 4 }, 1511, "barn_full" },
		{ { 1, 63, 378, 31, 126, 1, 1, 4 }, 504, NULL },
		{ { 5, 63, 378, 31, 126, 1, 1, 0 }, 504, NULL },
		{ { 5, 63, 378, 31, 126, 1, 1, 1 }, 504, "barn_full" },
		/* the other rules first */
		{ { 5, 63, 378, 31, 126, 1, 1, 4 }, 503, "high" },
		{ { 5, 0, 378, 31, 126, 1, 1, 4 }, 1512, "batch" },
		{ { 5, 63, 1, 31, 126, 62, 1000, 4, true }, 100000, "batch" },
		{ { 5, 63, 378, 31, 126, 1, 1, 33 }, 100, "high" },
		{ { 5, 63, 378, 31, 126, 1, 1, 33 }, 100000, "barn_full" },
		/* neither in barn_pages' 64 bits nor in the bound do they wrap */
		{ { 5, 4096, 4096, 1, 1, 1, 1, 32 }, 557056, NULL },
		{ { 5, 4096, 4096, 1, 1, 1, 1, 32 }, 557055, "barn_full" },
		{ { 5, 4096, UINT_MAX, 1, 1, 1, 1, 32 }, ULONG_MAX, NULL },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *want = cases[i].bad;
		const char *bad = pcpcache_config_check(&cases[i].cfg,
							cases[i].max);
		bool ok = want ? bad && !strcmp(want, bad) : !bad;

		EXPECT_TRUE(ok) {
			TH_LOG("case %u: want %s, got %s", i,
			       want ? want : "NULL", bad ? bad : "NULL");
		}
	}
}

/*
 * Cut to a bound: the proportion kept, each high at least 1; in barn
 * mode barn_full down until the barn fits, then batch.
 */
TEST(config_fit)
{
	const struct {
		struct pcpcache_config cfg, want;
		unsigned long max;
		bool changed;
	} cases[] = {
		{ { 1, 63, 378, 31, 126, 1, 1 }, { 1, 63, 378, 31, 126, 1, 1 }, 504, false },
		{ { 1, 63, 378, 31, 126, 1, 1 }, { 1, 63, 345, 31, 116, 1, 1 }, 461, true },
		{ { 1, 63, 378, 31, 126, 1, 1 }, { 1, 63, 96, 31, 32, 1, 1 }, 128, true },
		{ { 1, 63, 378, 31, 126, 1, 1 }, { 1, 1, 1, 1, 1, 1, 1 }, 2, true },
		{ { 1, 63, 378, 31, 126, 1, 1 }, { 1, 63, 378, 31, 126, 1, 1 }, 1, false },
		{ { 2, 10, 10, 1, 1000, 1, 1 }, { 2, 1, 1, 1, 99, 1, 1 }, 100, true },
		{ { 0, 4, UINT_MAX, 4, UINT_MAX, 1, 1 }, { 0, 4, 500, 4, 500, 1, 1 }, 1000, true },
		/* auto: high_max takes high's place, high_min and batch follow */
		{ { 1, 63, 378, 31, 126, 378, 1134, 0, true },
		  { 1, 63, 378, 31, 121, 378, 1087, 0, true }, 1208, true },
		{ { 1, 63, 378, 31, 126, 378, 1134, 0, true },
		  { 1, 9, 378, 1, 1, 9, 9, 0, true }, 10, true },
		/* barn's knobs are left alone outside barn mode */
		{ { 1, 63, 378, 31, 126, 1, 1, 32 },
		  { 1, 63, 378, 31, 126, 1, 1, 32 }, 504, false },
		{ { 4, 63, 378, 31, 126, 1, 1, 32 },
		  { 4, 63, 96, 31, 32, 1, 1, 32 }, 128, true },
		/* barn mode: (2 + barn_full) * 63 * 4 within the bound */
		{ { 5, 63, 378, 31, 126, 1, 1, 4 },
		  { 5, 63, 378, 31, 126, 1, 1, 4 }, 1512, false },
		{ { 5, 63, 378, 31, 126, 1, 1, 4 },
		  { 5, 63, 378, 31, 126, 1, 1, 3 }, 1511, true },
		{ { 5, 63, 378, 31, 126, 1, 1, 4 },
		  { 5, 63, 378, 31, 126, 1, 1, 1 }, 1000, true },
		{ { 5, 63, 378, 31, 126, 1, 1, 4 },
		  { 5, 63, 378, 31, 126, 1, 1, 0 }, 504, true },
		/* the highs first, then barn_full to none, then batch */
		{ { 5, 63, 378, 31, 126, 1, 1, 4 },
		  { 5, 50, 300, 31, 100, 1, 1, 0 }, 400, true },
		{ { 5, 63, 378, 31, 126, 1, 1, 4 },
		  { 5, 8, 48, 16, 16, 1, 1, 0 }, 64, true },
		/* below two magazines of 8 pages of each order: no fit */
		{ { 5, 63, 378, 31, 126, 1, 1, 4 },
		  { 5, 1, 6, 2, 2, 1, 1, 0 }, 8, false },
		{ { 5, 4096, 8192, 1, 8192, 1, 1, 32 },
		  { 5, 4096, 8192, 1, 8192, 1, 1, 30 }, 524288, true },
		{ { 5, 63, 378, 31, 126, 378, 1134, 4, true },
		  { 5, 63, 378, 31, 126, 378, 1134, 3, true }, 1260, true },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct pcpcache_config cfg = cases[i].cfg;
		const struct pcpcache_config *want = &cases[i].want;

		EXPECT_EQ(cases[i].changed, pcpcache_config_fit(&cfg, cases[i].max)) {
			TH_LOG("case %u", i);
		}
		EXPECT_TRUE(pcpcache_config_same(&cfg, want)) {
			TH_LOG("case %u: got %u %u %u %u %u %u %u", i, cfg.batch,
			       cfg.high, cfg.cold_batch, cfg.cold_high,
			       cfg.high_min, cfg.high_max, cfg.barn_full);
		}
		if (cases[i].changed)
			EXPECT_EQ(NULL, pcpcache_config_check(&cfg, cases[i].max)) {
				TH_LOG("case %u", i);
			}
	}
}

TEST(defaults_mirror_2_6_23)
{
	EXPECT_EQ(63, PCPCACHE_DEFAULT_BATCH);
	EXPECT_EQ(378, PCPCACHE_DEFAULT_HIGH);
	EXPECT_EQ(31, PCPCACHE_DEFAULT_COLD_BATCH);
	EXPECT_EQ(126, PCPCACHE_DEFAULT_COLD_HIGH);
}

TEST(max_per_cpu)
{
	EXPECT_EQ(0UL, pcpcache_max_per_cpu(262144, 0));
	/* 1 GiB, 4 CPUs: a quarter of RAM is 65536 pages, 16384 each */
	EXPECT_EQ(16384UL, pcpcache_max_per_cpu(262144, 4));
	EXPECT_EQ(0UL, pcpcache_max_per_cpu(3, 1));
}

TEST(knobs)
{
	struct pcpcache_config cfg = { 1, 10, 20, 30, 40, 50, 60, 70 };
	const char * const names[] = { "batch", "high", "cold_batch",
				       "cold_high", "high_min", "high_max",
				       "barn_full" };
	int k;

	ASSERT_EQ(ARRAY_SIZE(names), PCPCACHE_NR_KNOBS);
	for (k = 0; k < PCPCACHE_NR_KNOBS; k++) {
		EXPECT_STREQ(names[k], pcpcache_knob_name(k));
		EXPECT_EQ((unsigned int)(10 * (k + 1)), *pcpcache_knob(&cfg, k));
	}
	EXPECT_EQ(NULL, pcpcache_knob_name(PCPCACHE_NR_KNOBS));
	EXPECT_EQ(NULL, pcpcache_knob(&cfg, PCPCACHE_NR_KNOBS));
}

TEST(barn_defaults)
{
	EXPECT_EQ(32, PCPCACHE_BARN_MAX);
	EXPECT_EQ(4, PCPCACHE_DEFAULT_BARN_FULL);
	EXPECT_EQ(PCPCACHE_NR_ORDERS, PCPCACHE_NR_BARN_ORDERS);
	/* the defaults fit a 1 GiB machine of 4 CPUs: 16384 pages each */
	EXPECT_EQ(NULL, pcpcache_config_check(&(struct pcpcache_config){
		PCPCACHE_MODE_BARN, PCPCACHE_DEFAULT_BATCH, PCPCACHE_DEFAULT_HIGH,
		PCPCACHE_DEFAULT_COLD_BATCH, PCPCACHE_DEFAULT_COLD_HIGH,
		PCPCACHE_DEFAULT_HIGH_MIN, PCPCACHE_DEFAULT_HIGH_MAX,
		PCPCACHE_DEFAULT_BARN_FULL },
		pcpcache_max_per_cpu(262144, 4)));
}

TEST_HARNESS_MAIN
