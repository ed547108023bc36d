// SPDX-License-Identifier: GPL-2.0
/*
 * Host test of kmodel.c, the model of Linux 6.1's per-CPU page lists.
 * Every expected number is worked out by hand from 6.1's rules (see the
 * comment at the top of kmodel.c); the arithmetic is in the comments.
 * Prints TAP; exits 1 on any failure.
 *
 *   gcc -Wall -Wextra -Werror -fsanitize=address,undefined \
 *	-o /tmp/kmodel_test kmodel_test.c kmodel.c && /tmp/kmodel_test
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "kmodel.h"

#define PLANNED		56
#define UNMOV		0
#define MOVABLE		1
#define RECLAIM		2

static int nr_run, nr_failed;

static void ok(int cond, const char *fmt, ...)
{
	va_list ap;

	nr_run++;
	if (!cond)
		nr_failed++;
	printf("%sok %d - ", cond ? "" : "not ", nr_run);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* One CPU, one zone of high 378 and batch 63 (a typical Normal zone) */
static const struct kmodel_zone normal = { "Normal", 0x100000, 0x200000,
					   378, 63 };
#define PFN	0x100000

static struct kmodel *one(unsigned int high, unsigned int batch)
{
	struct kmodel_zone z = normal;
	struct kmodel *m;

	z.high = high;
	z.batch = batch;
	m = kmodel_new(1, &z, 1);
	if (!m) {
		printf("Bail out! kmodel_new\n");
		exit(1);
	}
	return m;
}

static void test_new(void)
{
	struct kmodel_zone z = normal;

	ok(!kmodel_new(0, &normal, 1), "no CPUs: NULL");
	ok(!kmodel_new(1, &normal, 0), "no zones: NULL");
	z.batch = 0;
	ok(!kmodel_new(1, &z, 1), "batch 0: NULL");
	z = normal;
	z.end_pfn = z.start_pfn;
	ok(!kmodel_new(1, &z, 1), "empty zone: NULL");
}

static void test_refill(void)
{
	struct kmodel *m = one(378, 63);
	const struct kmodel_cpu_result *r = kmodel_cpu(m, 0);
	int i, bad = 0;

	/* Empty list: rmqueue_bulk() of batch 63, one page taken */
	bad |= kmodel_alloc(m, 0, PFN, 0, MOVABLE);
	ok(!bad && r->refills == 1 && r->refill_pages == 63 && r->hits == 0 &&
	   kmodel_parked(m) == 62,
	   "first order-0 alloc refills 63, leaves 62");

	for (i = 0; i < 62; i++)
		bad |= kmodel_alloc(m, 0, PFN + 1 + i, 0, MOVABLE);
	ok(!bad && r->hits == 62 && r->refills == 1 && kmodel_parked(m) == 0,
	   "62 following allocs hit, list empty");

	bad |= kmodel_alloc(m, 0, PFN, 0, MOVABLE);
	ok(!bad && r->refills == 2 && r->refill_pages == 126 &&
	   kmodel_parked(m) == 62 && r->allocs == 64,
	   "64th alloc refills another 63");
	ok(r->parked_peak == 63,
	   "parked_peak 63 (a refill holds batch a moment)");

	/* Lists are per migratetype: an unmovable alloc refills its own */
	bad |= kmodel_alloc(m, 0, PFN, 0, UNMOV);
	ok(!bad && r->refills == 3 &&
	   kmodel_list_len(m, 0, 0, 0, UNMOV) == 62 &&
	   kmodel_list_len(m, 0, 0, 0, MOVABLE) == 62,
	   "unmovable alloc refills the unmovable list");
	kmodel_destroy(m);
}

static void test_order_batch(void)
{
	struct kmodel *m = one(378, 63);
	const struct kmodel_cpu_result *r = kmodel_cpu(m, 0);
	int bad = 0;

	/* max(63 >> 2, 2) = 15 entries of 4 pages */
	bad |= kmodel_alloc(m, 0, PFN, 2, MOVABLE);
	ok(!bad && r->refill_pages == 60 && kmodel_parked(m) == 56 &&
	   kmodel_list_len(m, 0, 0, 2, MOVABLE) == 14,
	   "order-2 refill takes 15 entries (60 pages)");
	/* max(63 >> 3, 2) = 7 entries of 8 pages */
	bad |= kmodel_alloc(m, 0, PFN, 3, RECLAIM);
	ok(!bad && r->refill_pages == 60 + 56 && kmodel_parked(m) == 56 + 48,
	   "order-3 refill takes 7 entries (56 pages)");
	kmodel_destroy(m);

	/* batch 3: max(3 >> 2, 2) = 2 entries */
	m = one(12, 3);
	r = kmodel_cpu(m, 0);
	bad |= kmodel_alloc(m, 0, PFN, 2, MOVABLE);
	ok(!bad && r->refill_pages == 8 && kmodel_parked(m) == 4,
	   "batch 3, order 2: at least 2 entries (8 pages)");
	kmodel_destroy(m);

	/* high 0, batch 1 (boot pageset, zone_pcp_disable): no storing */
	m = one(0, 1);
	r = kmodel_cpu(m, 0);
	bad |= kmodel_alloc(m, 0, PFN, 1, MOVABLE);
	ok(!bad && r->refills == 1 && r->refill_pages == 2 &&
	   kmodel_parked(m) == 0, "batch 1: refill of one entry");
	bad |= kmodel_free(m, 0, PFN, 0, MOVABLE);
	ok(!bad && r->drains == 1 && r->drain_pages == 1 &&
	   kmodel_parked(m) == 0, "high 0: each free drains itself");
	kmodel_destroy(m);
}

/*
 * Frees with no allocations between, high 378, batch 63: nr_pcp_free()
 * gives clamp(63 << ff, 63, 315), ff going up while 63 << ff < 315.
 *	free  #378: 63 << 0 =  63, ff 1, 315 left
 *	free  #441: 63 << 1 = 126, ff 2, 252 left
 *	free  #567: 63 << 2 = 252, ff 3, 126 left
 *	free  #819: 63 << 3 = 504 -> 315, ff stays 3, 63 left
 *	free #1134: 315 again
 */
static void test_free_factor(void)
{
	static const long want_at[] = { 378, 441, 567, 819, 1134 };
	static const long want_nr[] = { 63, 126, 252, 315, 315 };
	static const int want_ff[] = { 1, 2, 3, 3, 3 };
	struct kmodel *m = one(378, 63);
	const struct kmodel_cpu_result *r = kmodel_cpu(m, 0);
	uint64_t last = 0;
	int seen = 0, match = 1, bad = 0;
	long i;

	for (i = 1; i <= 1134; i++) {
		bad |= kmodel_free(m, 0, PFN, 0, MOVABLE);
		if (r->drain_pages == last)
			continue;
		if (seen >= 5 || i != want_at[seen] ||
		    (long)(r->drain_pages - last) != want_nr[seen] ||
		    kmodel_free_factor(m, 0, 0) != want_ff[seen])
			match = 0;
		last = r->drain_pages;
		seen++;
	}
	ok(!bad && match && seen == 5 && r->drains == 5,
	   "drains of 63, 126, 252, 315, 315 (free_factor 1, 2, 3, 3, 3)");
	ok(kmodel_parked(m) == 63 && r->parked_peak == 378 && r->frees == 1134,
	   "63 left, peak 378 (high, just before a drain)");

	/* rmqueue_pcplist() halves free_factor: 3 -> 1 */
	bad |= kmodel_alloc(m, 0, PFN, 0, MOVABLE);
	ok(!bad && kmodel_free_factor(m, 0, 0) == 1 && r->hits == 1,
	   "an alloc halves free_factor 3 -> 1");
	/* 62 parked: 316 frees to 378, then 63 << 1 = 126 */
	for (i = 0; i < 316; i++)
		bad |= kmodel_free(m, 0, PFN, 0, MOVABLE);
	ok(!bad && r->drains == 6 && r->drain_pages == 1071 + 126 &&
	   kmodel_free_factor(m, 0, 0) == 2 && kmodel_parked(m) == 252,
	   "next drain is 126, free_factor 2");
	kmodel_destroy(m);
}

/* Drains at each reaching of high; returns how many matched want[] */
static int drain_run(struct kmodel *m, const long *want, int n)
{
	const struct kmodel_cpu_result *r = kmodel_cpu(m, 0);
	uint64_t last = 0;
	int seen = 0;

	while (seen < n) {
		if (kmodel_free(m, 0, PFN, 0, MOVABLE))
			return -1;
		if (r->drain_pages == last)
			continue;
		if ((long)(r->drain_pages - last) != want[seen])
			return seen;
		last = r->drain_pages;
		seen++;
	}
	return seen;
}

/*
 * high 10000, batch 63: max_nr_free 9937. CONFIG_PCP_BATCH_SCALE_MAX 5
 * stops free_factor at 5 (2016); without it, it goes on to 8: 4032, 8064,
 * then 16128 clamped to 9937.
 */
static void test_scale_max(void)
{
	static const long capped[] = { 63, 126, 252, 504, 1008, 2016, 2016 };
	static const long free[] = { 63, 126, 252, 504, 1008, 2016, 4032,
				     8064, 9937, 9937 };
	struct kmodel *m = one(10000, 63);

	ok(drain_run(m, capped, 7) == 7 && kmodel_free_factor(m, 0, 0) == 5,
	   "scale max 5: drains stop doubling at 2016");
	kmodel_destroy(m);

	m = one(10000, 63);
	kmodel_set_scale_max(m, -1);
	ok(drain_run(m, free, 10) == 10 && kmodel_free_factor(m, 0, 0) == 8,
	   "no cap: 4032, 8064, then high - batch (9937)");
	kmodel_destroy(m);
}

static void test_free_high(void)
{
	struct kmodel *m = one(378, 63);
	const struct kmodel_cpu_result *r = kmodel_cpu(m, 0);
	int i, bad = 0;

	/* free_factor 0: an order-1 free just parks */
	bad |= kmodel_free(m, 0, PFN, 1, UNMOV);
	ok(!bad && r->drains == 0 && kmodel_parked(m) == 2,
	   "order-1 free with free_factor 0 parks");
	bad |= kmodel_alloc(m, 0, PFN, 1, UNMOV);

	/* 378 order-0 frees: drain of 63, free_factor 1, 315 left */
	for (i = 0; i < 378; i++)
		bad |= kmodel_free(m, 0, PFN, 0, MOVABLE);
	ok(!bad && r->drains == 1 && kmodel_free_factor(m, 0, 0) == 1 &&
	   kmodel_parked(m) == 315, "setup: free_factor 1, 315 parked");

	/* free_high: nr_pcp_high() 0, nr_pcp_free() all 317 */
	bad |= kmodel_free(m, 0, PFN, 1, UNMOV);
	ok(!bad && r->drains == 2 && r->drain_pages == 63 + 317 &&
	   r->free_high_drains == 1 && kmodel_parked(m) == 0,
	   "order-1 free with free_factor set drains all (317)");
	ok(kmodel_free_factor(m, 0, 0) == 1,
	   "free_high leaves free_factor alone");

	/* Order 3 too; an order-0 free with free_factor set does not */
	bad |= kmodel_free(m, 0, PFN, 0, MOVABLE);
	ok(!bad && r->drains == 2 && kmodel_parked(m) == 1,
	   "order-0 free under high: no drain");
	bad |= kmodel_free(m, 0, PFN, 3, RECLAIM);
	ok(!bad && r->drains == 3 && r->drain_pages == 380 + 9 &&
	   kmodel_parked(m) == 0, "order-3 free_high drains 9");
	kmodel_destroy(m);
}

/* A kfree is a free to the lists, counted apart from the stream's frees. */
static void test_kfree(void)
{
	struct kmodel *m = one(378, 63);
	const struct kmodel_cpu_result *r = kmodel_cpu(m, 0);
	int i, bad = 0;

	for (i = 0; i < 378; i++)
		bad |= kmodel_kfree(m, 0, PFN, 0, MOVABLE);
	ok(!bad && r->kfrees == 378 && r->frees == 0,
	   "kfree: counted in kfrees, not frees");
	ok(r->drains == 1 && r->drain_pages == 63 && kmodel_parked(m) == 315 &&
	   kmodel_free_factor(m, 0, 0) == 1,
	   "kfree: the lists and drains as for a free");
	kmodel_destroy(m);
}

static void test_round_robin(void)
{
	struct kmodel *m = one(378, 63);
	const struct kmodel_cpu_result *r = kmodel_cpu(m, 0);
	int i, bad = 0;

	/*
	 * 300 on order-0 movable, 10 order-0 unmovable, then order-1
	 * reclaimable frees: the 34th makes 378. Drain of 63 from the
	 * freed page's list (pindex 5) first: 32 entries of 2 pages take
	 * count from 63 to -1, so 64 pages go and 2 entries stay.
	 */
	kmodel_set_count(m, 0, 0, 300);
	ok(kmodel_list_len(m, 0, 0, 0, MOVABLE) == 300 &&
	   kmodel_parked(m) == 300 && r->parked_peak == 300,
	   "set_count parks on the order-0 movable list");
	for (i = 0; i < 10; i++)
		bad |= kmodel_free(m, 0, PFN, 0, UNMOV);
	for (i = 0; i < 34; i++)
		bad |= kmodel_free(m, 0, PFN, 1, RECLAIM);
	ok(!bad && r->drains == 1 && r->drain_pages == 64 &&
	   kmodel_list_len(m, 0, 0, 1, RECLAIM) == 2 &&
	   kmodel_list_len(m, 0, 0, 0, UNMOV) == 10 &&
	   kmodel_list_len(m, 0, 0, 0, MOVABLE) == 300 &&
	   kmodel_parked(m) == 314,
	   "drain starts at the freed list, overshoots to 64 pages");
	kmodel_destroy(m);

	/*
	 * 370 movable, 3 unmovable, one order-3 reclaimable free: 381.
	 * Drain 63: pindex 11 (8 pages, 55 to go), 12 and 13 empty (max
	 * shrinks), wraps to 0 (3 pages, 52 to go), then 52 from 1.
	 */
	m = one(378, 63);
	r = kmodel_cpu(m, 0);
	kmodel_set_count(m, 0, 0, 370);
	for (i = 0; i < 3; i++)
		bad |= kmodel_free(m, 0, PFN, 0, UNMOV);
	bad |= kmodel_free(m, 0, PFN, 3, RECLAIM);
	ok(!bad && r->drain_pages == 63 &&
	   kmodel_list_len(m, 0, 0, 3, RECLAIM) == 0 &&
	   kmodel_list_len(m, 0, 0, 0, UNMOV) == 0 &&
	   kmodel_list_len(m, 0, 0, 0, MOVABLE) == 318 &&
	   kmodel_parked(m) == 318,
	   "round robin wraps from the top lists to pindex 0, then 1");
	kmodel_destroy(m);
}

static void test_thp(void)
{
	struct kmodel *m = one(378, 63);
	const struct kmodel_cpu_result *r = kmodel_cpu(m, 0);
	int bad = 0;

	/* 512 >= 378: nr_pcp_free() 63 from pindex 13: the one THP goes */
	bad |= kmodel_free(m, 0, PFN, KMODEL_THP_ORDER, MOVABLE);
	ok(!bad && r->drains == 1 && r->drain_pages == 512 &&
	   kmodel_parked(m) == 0 && kmodel_free_factor(m, 0, 0) == 1 &&
	   r->thp_frees == 1 && r->frees == 0,
	   "THP free goes through the list, sets free_factor");
	/* max(63 >> 9, 2) = 2 entries: 1024 pages, 512 parked */
	bad |= kmodel_alloc(m, 0, PFN, KMODEL_THP_ORDER, UNMOV);
	ok(!bad && r->refill_pages == 1024 && kmodel_parked(m) == 512 &&
	   kmodel_list_len(m, 0, 0, KMODEL_THP_ORDER, UNMOV) == 1 &&
	   kmodel_free_factor(m, 0, 0) == 0,
	   "THP alloc refills 2 (1024 pages)");
	kmodel_set_thp(m, false);
	ok(kmodel_alloc(m, 0, PFN, KMODEL_THP_ORDER, MOVABLE) == -1 &&
	   r->thp_allocs == 1, "THP order refused with thp off");
	kmodel_destroy(m);
}

#define THP	KMODEL_THP_ORDER

/*
 * Order 9 at the recorded DMA32's high 6926 and batch 63 (max_nr_free
 * 6863): 13 THPs are 6656 pages, under high; the 14th makes 7168.
 */
static void test_thp_count(void)
{
	struct kmodel *m = one(6926, 63);
	const struct kmodel_cpu_result *r = kmodel_cpu(m, 0);
	int i, bad = 0;

	for (i = 0; i < 13; i++)
		bad |= kmodel_free(m, 0, PFN, THP, MOVABLE);
	ok(!bad && r->drains == 0 && kmodel_parked(m) == 13 * 512 &&
	   kmodel_list_len(m, 0, 0, THP, MOVABLE) == 13 && r->thp_frees == 13,
	   "13 THP frees park 6656 pages (pcp->count counts 512 each), no drain");
	/* 7168 >= 6926: nr_pcp_free() 63 << 0 = 63, ff 1; one entry from 13 */
	bad |= kmodel_free(m, 0, PFN, THP, MOVABLE);
	ok(!bad && r->drains == 1 && r->drain_pages == 512 &&
	   kmodel_parked(m) == 6656 && kmodel_free_factor(m, 0, 0) == 1 &&
	   r->parked_peak == 7168,
	   "the 14th (7168 >= high): a drain of 63 asked, one THP (512) given back");
	/* again: 63 << 1 = 126, ff 2; 126 - 512 < 0 after one entry */
	bad |= kmodel_free(m, 0, PFN, THP, MOVABLE);
	ok(!bad && r->drains == 2 && r->drain_pages == 1024 &&
	   kmodel_free_factor(m, 0, 0) == 2 && r->free_high_drains == 0,
	   "the 15th: 126 asked, one THP again, free_factor 2");
	/*
	 * free_high is for orders 1 to 3 only: a THP free with free_factor 2
	 * drains nr_pcp_free() 63 << 2 = 252 (ff 3) from list 12, one THP,
	 * not all 7168
	 */
	bad |= kmodel_free(m, 0, PFN, THP, UNMOV);
	ok(!bad && r->drains == 3 && r->drain_pages == 1536 &&
	   r->free_high_drains == 0 && kmodel_parked(m) == 6656 &&
	   kmodel_list_len(m, 0, 0, THP, UNMOV) == 0 &&
	   kmodel_list_len(m, 0, 0, THP, MOVABLE) == 13 &&
	   kmodel_free_factor(m, 0, 0) == 3,
	   "no free_high for a THP free: 252 asked, the unmovable THP goes, 13 stay");
	/* rmqueue_pcplist() halves free_factor for order 9 too: 3 -> 1 */
	bad |= kmodel_alloc(m, 0, PFN, THP, MOVABLE);
	ok(!bad && r->hits == 1 && r->refills == 0 && r->thp_allocs == 1 &&
	   r->allocs == 0 && kmodel_free_factor(m, 0, 0) == 1 &&
	   kmodel_parked(m) == 6144,
	   "a THP alloc hits the movable THP list, halves free_factor 3 -> 1");
	kmodel_destroy(m);
}

/* order_to_pindex(): unmovable and reclaimable THPs share list 12 */
static void test_thp_lists(void)
{
	struct kmodel *m = one(6926, 63);
	const struct kmodel_cpu_result *r = kmodel_cpu(m, 0);
	int bad = 0;

	bad |= kmodel_free(m, 0, PFN, THP, UNMOV);
	ok(!bad && kmodel_list_len(m, 0, 0, THP, RECLAIM) == 1 &&
	   kmodel_list_len(m, 0, 0, THP, UNMOV) == 1 &&
	   kmodel_list_len(m, 0, 0, THP, MOVABLE) == 0,
	   "an unmovable THP is on the one list of the other types (12)");
	bad |= kmodel_alloc(m, 0, PFN, THP, RECLAIM);
	ok(!bad && r->hits == 1 && r->refills == 0 && kmodel_parked(m) == 0,
	   "a reclaimable THP alloc takes it: a hit");
	/* list 13 empty: max(63 >> 9, 2) = 2 entries, 1024 pages */
	bad |= kmodel_alloc(m, 0, PFN, THP, MOVABLE);
	ok(!bad && r->refills == 1 && r->refill_pages == 1024 &&
	   kmodel_parked(m) == 512 && r->parked_peak == 1024,
	   "a movable THP alloc refills its own list with 2 (1024 pages)");
	kmodel_destroy(m);

	/*
	 * Boot pageset (high 0, batch 1): rmqueue_bulk() of 1 entry; a free:
	 * nr_pcp_high() 0, nr_pcp_free() 1 (high < batch), one entry of 512
	 */
	m = one(0, 1);
	r = kmodel_cpu(m, 0);
	bad |= kmodel_alloc(m, 0, PFN, THP, MOVABLE);
	ok(!bad && r->refill_pages == 512 && kmodel_parked(m) == 0,
	   "batch 1: a THP refill of one entry (512 pages)");
	bad |= kmodel_free(m, 0, PFN, THP, MOVABLE);
	ok(!bad && r->drains == 1 && r->drain_pages == 512 && kmodel_parked(m) == 0,
	   "high 0: each THP free drains itself, 512 pages for 1 asked");
	kmodel_destroy(m);
}

/*
 * An order-1 free_high drains all of pcp->count, THPs too. High 6926:
 * 13 movable THPs (6656) and 270 order-0 movable frees reach 6926: a
 * drain of 63 from list 1, free_factor 1, 6863 left (207 on list 1).
 * Then an unmovable order-1 free (list 3): 6865, free_high, all of it:
 * list 3 (2), 4..12 empty, 13 (13 x 512 = 6656), wrap to 0 (empty, min
 * 1), list 1 (207): 6865.
 */
static void test_thp_free_high(void)
{
	struct kmodel *m = one(6926, 63);
	const struct kmodel_cpu_result *r = kmodel_cpu(m, 0);
	int i, bad = 0;

	for (i = 0; i < 13; i++)
		bad |= kmodel_free(m, 0, PFN, THP, MOVABLE);
	for (i = 0; i < 269; i++)
		bad |= kmodel_free(m, 0, PFN, 0, MOVABLE);
	ok(!bad && r->drains == 0 && kmodel_parked(m) == 6925,
	   "13 THPs and 269 pages: 6925, under high");
	bad |= kmodel_free(m, 0, PFN, 0, MOVABLE);
	ok(!bad && r->drains == 1 && r->drain_pages == 63 &&
	   kmodel_list_len(m, 0, 0, 0, MOVABLE) == 207 &&
	   kmodel_list_len(m, 0, 0, THP, MOVABLE) == 13 &&
	   kmodel_free_factor(m, 0, 0) == 1,
	   "the 270th page reaches 6926: 63 order-0 pages go, the THPs stay");
	bad |= kmodel_free(m, 0, PFN, 1, UNMOV);
	ok(!bad && r->drains == 2 && r->drain_pages == 63 + 6865 &&
	   r->free_high_drains == 1 && kmodel_parked(m) == 0 &&
	   kmodel_list_len(m, 0, 0, THP, MOVABLE) == 0,
	   "an order-1 free_high then drains all 6865, the 13 THPs with it");
	kmodel_destroy(m);
}

/*
 * The round robin reaches the THP lists from a low order: high 1000,
 * batch 63. One movable THP (512), 487 order-0 movable (999), then an
 * order-3 reclaimable free with free_factor 0 (no free_high): 1007 >=
 * 1000, nr_pcp_free() 63. From list 11: one entry (8 pages), 55 to go;
 * 12 empty; 13: one THP, 512 pages, count -457: 520 given back, 487 stay.
 */
static void test_thp_round_robin(void)
{
	struct kmodel *m = one(1000, 63);
	const struct kmodel_cpu_result *r = kmodel_cpu(m, 0);
	int i, bad = 0;

	bad |= kmodel_free(m, 0, PFN, THP, MOVABLE);
	for (i = 0; i < 487; i++)
		bad |= kmodel_free(m, 0, PFN, 0, MOVABLE);
	bad |= kmodel_free(m, 0, PFN, 3, RECLAIM);
	ok(!bad && r->drains == 1 && r->drain_pages == 520 &&
	   kmodel_parked(m) == 487 && r->free_high_drains == 0 &&
	   kmodel_list_len(m, 0, 0, THP, MOVABLE) == 0 &&
	   kmodel_list_len(m, 0, 0, 0, MOVABLE) == 487,
	   "from list 11 the round robin takes the THP of list 13: 520 pages for 63");
	kmodel_destroy(m);
}

static void test_bad_input(void)
{
	static const struct kmodel_zone two[] = {
		{ "DMA32", 0x1000, 0x100000, 378, 63 },
		{ "Normal", 0x100000, 0x200000, 1000, 31 },
	};
	struct kmodel *m = kmodel_new(2, two, 2);
	const struct kmodel_cpu_result *r0, *r1;
	int bad = 0;

	if (!m) {
		printf("Bail out! kmodel_new\n");
		exit(1);
	}
	r0 = kmodel_cpu(m, 0);
	r1 = kmodel_cpu(m, 1);
	ok(kmodel_alloc(m, 2, 0x1000, 0, MOVABLE) == -1 &&
	   kmodel_free(m, 2, 0x1000, 0, MOVABLE) == -1, "cpu 2 of 2: -1");
	ok(kmodel_alloc(m, 0, 0x1000, 4, MOVABLE) == -1 &&
	   kmodel_free(m, 0, 0x1000, 10, MOVABLE) == -1 &&
	   kmodel_free(m, 0, 0x1000, 200, MOVABLE) == -1, "order 4, 10: -1");
	ok(kmodel_alloc(m, 0, 0x1000, 0, 3) == -1 &&
	   kmodel_free(m, 0, 0x1000, 0, 3) == -1, "migratetype 3: -1");
	ok(kmodel_alloc(m, 0, 0xfff, 0, MOVABLE) == -1 &&
	   kmodel_free(m, 0, 0x200000, 0, MOVABLE) == -1,
	   "pfn in no zone: -1");
	ok(!kmodel_cpu(m, 2) && kmodel_free_factor(m, 0, 2) == -1 &&
	   kmodel_cpu_parked(m, 2) == 0, "accessors out of range");
	ok(r0->allocs == 0 && r0->frees == 0 && kmodel_parked(m) == 0,
	   "nothing counted for refused events");

	/* Zone from the pfn, lists per CPU */
	bad |= kmodel_alloc(m, 1, 0x100000, 0, MOVABLE);
	bad |= kmodel_alloc(m, 0, 0xfffff, 0, MOVABLE);
	ok(!bad && r1->refill_pages == 31 && kmodel_cpu_parked(m, 1) == 30 &&
	   r0->refill_pages == 63 && kmodel_cpu_parked(m, 0) == 62,
	   "each CPU and zone its own lists and batch");
	kmodel_set_count(m, 0, 1, 100);
	kmodel_set_count(m, 1, 1, 5);
	ok(kmodel_cpu_parked(m, 0) == 162 && kmodel_cpu_parked(m, 1) == 5 &&
	   kmodel_parked(m) == 167, "set_count replaces, parked sums");
	kmodel_destroy(m);
}

int main(void)
{
	printf("1..%d\n", PLANNED);
	test_new();
	test_refill();
	test_order_batch();
	test_free_factor();
	test_scale_max();
	test_free_high();
	test_kfree();
	test_round_robin();
	test_thp();
	test_thp_count();
	test_thp_lists();
	test_thp_free_high();
	test_thp_round_robin();
	test_bad_input();
	if (nr_run != PLANNED) {
		printf("# planned %d, ran %d\n", PLANNED, nr_run);
		return 1;
	}
	return nr_failed ? 1 : 0;
}
