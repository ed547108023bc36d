// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the magazine list discipline (module/magazine.c) and
 * the configuration rules (module/policy.c), built against the kernel's
 * tools/include/linux/list.h.
 */
#include <limits.h>
#include <stdio.h>

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

TEST(batch_scales_down_by_order)
{
	EXPECT_EQ(63U, mag_batch(63, 0));
	EXPECT_EQ(31U, mag_batch(63, 1));
	EXPECT_EQ(7U, mag_batch(63, 3));
	EXPECT_EQ(1U, mag_batch(4, 3));
	EXPECT_EQ(1U, mag_batch(1, 3));
}

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
		{ { 5, 1, 1, 1, 1, 1, 1 }, 2, "mode" },
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
		{ { 1, 63, 1, 31, 126, 62, 1000, true }, 100000, "batch" },
		{ { 1, 63, 1, 31, 126, 63, 1000, true }, 100000, NULL },
		/* ... and high_max + cold_high within the bound */
		{ { 1, 63, 1, 31, 126, 378, 1134, true }, 1260, NULL },
		{ { 1, 63, 1, 31, 126, 378, 1134, true }, 1259, "high_max" },
		{ { 1, 63, 99999, 31, 126, 378, 1134, true }, 1260, NULL },
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

/* Cut to a bound: the proportion kept, each high at least 1. */
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
		{ { 1, 63, 378, 31, 126, 378, 1134, true },
		  { 1, 63, 378, 31, 121, 378, 1087, true }, 1208, true },
		{ { 1, 63, 378, 31, 126, 378, 1134, true },
		  { 1, 9, 378, 1, 1, 9, 9, true }, 10, true },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct pcpcache_config cfg = cases[i].cfg;
		const struct pcpcache_config *want = &cases[i].want;

		EXPECT_EQ(cases[i].changed, pcpcache_config_fit(&cfg, cases[i].max));
		EXPECT_TRUE(pcpcache_config_same(&cfg, want)) {
			TH_LOG("case %u: got %u %u %u %u", i, cfg.batch,
			       cfg.high, cfg.cold_batch, cfg.cold_high);
		}
		if (cases[i].changed)
			EXPECT_EQ(NULL, pcpcache_config_check(&cfg, cases[i].max));
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
	struct pcpcache_config cfg = { 1, 10, 20, 30, 40, 50, 60 };
	const char * const names[] = { "batch", "high", "cold_batch",
				       "cold_high", "high_min", "high_max" };
	int k;

	for (k = 0; k < PCPCACHE_NR_KNOBS; k++) {
		EXPECT_STREQ(names[k], pcpcache_knob_name(k));
		EXPECT_EQ((unsigned int)(10 * (k + 1)), *pcpcache_knob(&cfg, k));
	}
	EXPECT_EQ(NULL, pcpcache_knob_name(PCPCACHE_NR_KNOBS));
	EXPECT_EQ(NULL, pcpcache_knob(&cfg, PCPCACHE_NR_KNOBS));
}

TEST_HARNESS_MAIN
