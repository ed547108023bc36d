// SPDX-License-Identifier: GPL-2.0
/*
 * pcpcache_safety_test: hands pcpcache the pages the buddy allocator would
 * refuse to put on its own per-CPU lists, for the selftest "safety"
 * (selftests/pcpcache/). Loading runs the case named by "test" on one CPU
 * and fails with -EIO if pcpcache handed out a poisoned page, or broke
 * another holder's reference; the kernel log says why. For the others,
 * which go back to the buddy allocator and may come back from it, the
 * selftest checks pcpcache's counters: refused, and nothing cached.
 *
 *   hwpoison_cached  memory_failure() on a page cached in a magazine: the
 *                    next allocations must not hand it out
 *   hwpoison_freed   memory_failure() on a page in use, then freed into
 *                    the cache: it must not be handed out
 *   hwpoison_block   memory_failure() on the second page of a cached
 *                    order-1 block: the block must not be handed out, and
 *                    the buddy allocator must get its pages one by one
 *   pfmemalloc       a page from the emergency reserves is freed
 *   compound         an order-1 compound page is freed
 *   shared           a page someone else holds a reference to is freed:
 *                    it must still be that holder's
 *   cma              a page of the CMA area [cma_base, cma_base +
 *                    cma_pages) is freed (needs CONFIG_CMA and cma=)
 *   noreclaim        under memalloc_noreclaim_save(), with every zone at
 *                    the watermark below which only the reserves are left:
 *                    each allocation must come from the reserves, as
 *                    alloc_page() gives them, the refill before it failing
 *                    without a warning; freed, none is cached
 *
 * The poisoned pages stay poisoned: the buddy allocator keeps them for
 * good, as it keeps any page memory_failure() marked.
 */
#include <linux/completion.h>
#include <linux/gfp.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/pcpcache.h>
#include <linux/sched/mm.h>

/* Enough allocations to empty a magazine at the default high. */
#define SAFETY_SWEEP		1024

static char *test = "";
module_param(test, charp, 0444);
MODULE_PARM_DESC(test, "the case to run at load; see the top of the file");

static unsigned long cma_base, cma_pages;
module_param(cma_base, ulong, 0444);
MODULE_PARM_DESC(cma_base, "first pfn of the CMA area (the cma case)");
module_param(cma_pages, ulong, 0444);
MODULE_PARM_DESC(cma_pages, "pages in the CMA area (the cma case)");

/* Whether @bad comes back from up to SAFETY_SWEEP allocations of @order. */
static bool handed_out_order(struct page *bad, unsigned int order)
{
	struct page **pages;
	bool found = false;
	int i, nr = 0;

	pages = kcalloc(SAFETY_SWEEP, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return true;
	for (i = 0; i < SAFETY_SWEEP >> order; i++) {
		pages[nr] = pcpcache_alloc_pages(GFP_KERNEL, order, false);
		if (!pages[nr])
			break;
		found |= pages[nr++] == bad;
	}
	while (nr--)
		pcpcache_free_pages(pages[nr], order, false);
	kfree(pages);
	return found;
}

static bool handed_out(struct page *bad)
{
	return handed_out_order(bad, 0);
}

static int poison(struct page *page)
{
	if (!IS_ENABLED(CONFIG_MEMORY_FAILURE)) {
		pr_info("no CONFIG_MEMORY_FAILURE: memory_failure() is not there\n");
		return -EOPNOTSUPP;
	}
	/* a kernel page is marked and left alone: the result says so */
	memory_failure(page_to_pfn(page), 0);
	if (!PageHWPoison(page)) {
		pr_err("memory_failure() did not mark pfn %#lx\n", page_to_pfn(page));
		return -EIO;
	}
	return 0;
}

static int test_hwpoison_cached(void)
{
	struct page *page = pcpcache_alloc_page(GFP_KERNEL, false);
	int err;

	if (!page)
		return -ENOMEM;
	/* at the hot end of this CPU's magazine: the next to be handed out */
	pcpcache_free_page(page, false);
	err = poison(page);
	if (err)
		return err;
	if (handed_out(page)) {
		pr_err("a page poisoned while cached was handed out\n");
		return -EIO;
	}
	return 0;
}

static int test_hwpoison_freed(void)
{
	struct page *page = pcpcache_alloc_page(GFP_KERNEL, false);
	int err;

	if (!page)
		return -ENOMEM;
	err = poison(page);
	if (err) {
		pcpcache_free_page(page, false);
		return err;
	}
	pcpcache_free_page(page, false);
	if (handed_out(page)) {
		pr_err("a poisoned page freed into the cache was handed out\n");
		return -EIO;
	}
	return 0;
}

static int test_hwpoison_block(void)
{
	struct page *page = pcpcache_alloc_pages(GFP_KERNEL, 1, false);
	int err;

	if (!page)
		return -ENOMEM;
	pcpcache_free_pages(page, 1, false);
	err = poison(page + 1);
	if (err)
		return err;
	if (handed_out_order(page, 1)) {
		pr_err("an order-1 block with a poisoned page was handed out\n");
		return -EIO;
	}
	return 0;
}

static int test_pfmemalloc(void)
{
	struct page *page = alloc_page(GFP_KERNEL);

	if (!page)
		return -ENOMEM;
	/* as the page allocator marks a page from the reserves */
	set_page_pfmemalloc(page);
	pcpcache_free_page(page, false);
	return 0;
}

static int test_compound(void)
{
	struct page *page = alloc_pages(GFP_KERNEL | __GFP_COMP, 1);

	if (!page)
		return -ENOMEM;
	pcpcache_free_page(page, false);
	return 0;
}

static int test_shared(void)
{
	struct page *page = alloc_page(GFP_KERNEL);
	int err = 0;

	if (!page)
		return -ENOMEM;
	get_page(page);
	pcpcache_free_page(page, false);
	if (page_ref_count(page) != 1) {
		pr_err("the other holder's reference is gone: count %d\n",
		       page_ref_count(page));
		err = -EIO;
	}
	put_page(page);
	return err;
}

static bool in_cma(struct page *page)
{
	unsigned long pfn = page_to_pfn(page);

	return pfn >= cma_base && pfn < cma_base + cma_pages;
}

/* Movable allocations may come from CMA: free the first that does. */
static int test_cma(void)
{
	struct page *page = NULL;
	LIST_HEAD(others);
	int i;

	if (!IS_ENABLED(CONFIG_CMA) || !cma_pages) {
		pr_info("no CMA area given (CONFIG_CMA, cma=, cma_base, cma_pages)\n");
		return -EOPNOTSUPP;
	}
	for (i = 0; i < 65536 && !page; i++) {
		struct page *p = alloc_page(GFP_HIGHUSER_MOVABLE | __GFP_NOWARN);

		if (!p)
			break;
		if (in_cma(p))
			page = p;
		else
			list_add(&p->lru, &others);
	}
	put_pages_list(&others);
	if (!page) {
		pr_err("no movable allocation came from the CMA area\n");
		return -EIO;
	}
	pcpcache_free_page(page, false);
	return 0;
}

/* Allocations the noreclaim case makes, each a refill that cannot be had. */
#define NORECLAIM_ALLOCS	64

/*
 * As reclaim's own callers run (PF_MEMALLOC), after taking every page above
 * the watermarks the way a refill asks (no reserves, no reclaim, no
 * warning): the refills fail, and must say nothing, the caller's own
 * allocations come from the reserves. Everything is given back before
 * returning, so that the machine spends as little time there as it can.
 */
static int test_noreclaim(void)
{
	gfp_t take = GFP_KERNEL | __GFP_NOMEMALLOC | __GFP_NOWARN | __GFP_NORETRY;
	struct page *pages[NORECLAIM_ALLOCS], *page, *next;
	unsigned int flags, i, nr, reserve = 0, order = pageblock_order;
	unsigned long taken = 0;
	LIST_HEAD(taken_blocks);

	flags = memalloc_noreclaim_save();
	/*
	 * in blocks as large as come, smaller ones after, so that the time
	 * others' allocations fail too (at the min watermark) stays short
	 */
	for (;;) {
		page = alloc_pages(take, order);
		if (!page) {
			if (!order)
				break;
			order--;
			continue;
		}
		set_page_private(page, order);
		list_add(&page->lru, &taken_blocks);
		taken += 1UL << order;
	}
	for (nr = 0; nr < NORECLAIM_ALLOCS; nr++) {
		pages[nr] = pcpcache_alloc_pages(GFP_KERNEL, 0, false);
		if (!pages[nr])
			break;
		reserve += page_is_pfmemalloc(pages[nr]);
	}
	memalloc_noreclaim_restore(flags);
	for (i = 0; i < nr; i++)
		pcpcache_free_pages(pages[i], 0, false);
	list_for_each_entry_safe(page, next, &taken_blocks, lru) {
		list_del(&page->lru);
		order = page_private(page);
		set_page_private(page, 0);
		__free_pages(page, order);
	}
	pr_info("noreclaim: took %lu pages; %u of %u allocations, %u from the reserves\n",
		taken, nr, NORECLAIM_ALLOCS, reserve);
	if (nr < NORECLAIM_ALLOCS || reserve < nr) {
		pr_err("an allocation under memalloc_noreclaim_save() %s\n",
		       nr < NORECLAIM_ALLOCS ? "failed" : "did not come from the reserves");
		return -EIO;
	}
	return 0;
}

static const struct {
	const char *name;
	int (*run)(void);
} cases[] = {
	{ "hwpoison_cached", test_hwpoison_cached },
	{ "hwpoison_freed", test_hwpoison_freed },
	{ "hwpoison_block", test_hwpoison_block },
	{ "pfmemalloc", test_pfmemalloc },
	{ "compound", test_compound },
	{ "shared", test_shared },
	{ "cma", test_cma },
	{ "noreclaim", test_noreclaim },
};

struct safety_run {
	int (*run)(void);
	int result;
	struct completion done;
};

/* On one CPU, so that a freed page is the next one that CPU hands out. */
static int safety_thread(void *data)
{
	struct safety_run *sr = data;

	sr->result = sr->run();
	complete(&sr->done);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static int __init safety_test_init(void)
{
	struct safety_run sr = { };
	struct task_struct *t;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		if (!strcmp(test, cases[i].name))
			sr.run = cases[i].run;
	if (!sr.run) {
		pr_err("unknown test '%s'\n", test);
		return -EINVAL;
	}
	init_completion(&sr.done);
	t = kthread_create_on_cpu(safety_thread, &sr, 0, "pcpcache_safety/%u");
	if (IS_ERR(t))
		return PTR_ERR(t);
	wake_up_process(t);
	wait_for_completion(&sr.done);
	kthread_stop(t);
	pr_info("%s: %s (%d)\n", test, sr.result ? "FAILED" : "passed", sr.result);
	return sr.result;
}

static void __exit safety_test_exit(void)
{
}

module_init(safety_test_init);
module_exit(safety_test_exit);

MODULE_DESCRIPTION("Hand pcpcache pages the buddy allocator would not cache");
MODULE_AUTHOR("The pcpcache developers");
MODULE_LICENSE("GPL");
