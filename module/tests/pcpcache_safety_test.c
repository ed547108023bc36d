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
 *   hwpoison_home    blocks mode (the caller loads pcpcache so):
 *                    memory_failure() on the first page a first refill of
 *                    "refill" pages (this CPU's batch) left at home in
 *                    its block, the caller's page of the next refill: the
 *                    next allocations must not hand it out
 *   hwpoison_barn    barn mode, batch "refill" (the caller loads pcpcache
 *                    so): 3 * refill pages allocated and freed leave main
 *                    and the spare full and one full magazine in the
 *                    barn; memory_failure() on each of that magazine's
 *                    pages: the next allocations, which take it from the
 *                    barn, must hand none of them out
 *   pfmemalloc       a page from the emergency reserves is freed
 *   compound         an order-1 compound page is freed
 *   shared           a page someone else holds a reference to is freed:
 *                    it must still be that holder's
 *   cma              a page of the CMA area [cma_base, cma_base +
 *                    cma_pages) is freed (needs CONFIG_CMA and cma=)
 *   movable          a page of ZONE_MOVABLE is freed (needs one:
 *                    movablecore= at boot)
 *   memcg_kmem       a page charged to the loading task's memory cgroup
 *                    (__GFP_ACCOUNT) is freed: run in the caller's context,
 *                    which the selftest puts in a cgroup of its own
 *   noreclaim        under memalloc_noreclaim_save(), with every zone at
 *                    the watermark below which only the reserves are left
 *                    and every other CPU stopped (GFP_NOWAIT callers):
 *                    each allocation must come from the reserves, as
 *                    alloc_page() gives them, the refill before it failing
 *                    without a warning; freed, none is cached
 *
 *   blocks_setup_race  blocks mode (the caller loads pcpcache so), memory
 *                    fragmented so that a refill gets a block below order
 *                    9: while another CPU is held inside split_page() of a
 *                    new block (a kprobe), a page of the same pageblock
 *                    that is not the block's is freed and trimmed here, so
 *                    that it goes home while the slot is being set up; it
 *                    must go to the buddy allocator, and no page may be
 *                    handed out twice by that CPU afterwards
 *   blocks_gfp       blocks mode, every free block of order 6 or more
 *                    broken (a page kept in each 32): the refills of order
 *                    0 of this CPU, which try orders 9 to 6 for a block
 *                    and fail, must wake no kswapd at an order above 0,
 *                    compact nothing and reclaim nothing directly
 *   blocks_offline_race  blocks mode, pcpcache's delay_block_setup set
 *                    (the caller does both), memory block
 *                    "offline_block" online in ZONE_NORMAL: with every
 *                    other free pageblock taken, a refill on another CPU
 *                    splits a block of it and waits before putting it on
 *                    its lists; meanwhile a thread here takes that memory
 *                    offline. The write must end, done or EBUSY (the
 *                    kernel's own pages may keep it online), within
 *                    OFFLINE_RACE_WAIT_S: a block kept after the
 *                    isolation holds offline_pages() retrying until a
 *                    signal (killed here, the case failed)
 *   movable_offline_race  memory block "offline_block" online in
 *                    ZONE_NORMAL: pages of it marked movable, as zsmalloc
 *                    marks its own, which keep no pageblock from being
 *                    isolated, are freed through pcpcache while a thread
 *                    here takes that memory offline. Their pageblocks are
 *                    isolated: they must go to the buddy allocator, and
 *                    the write end within OFFLINE_RACE_WAIT_S; cached,
 *                    they held offline_pages() retrying until a signal
 *   offline_refused  memory block "offline_block" online: a memory
 *                    notifier ahead of pcpcache's refuses its going
 *                    offline, so that pcpcache's sees MEM_CANCEL_OFFLINE
 *                    alone; the write must fail with EBUSY, refused by
 *                    that notifier. The caller then checks that barn
 *                    mode still exchanges magazines with its barns
 *
 * The poisoned pages stay poisoned: the buddy allocator keeps them for
 * good, as it keeps any page memory_failure() marked.
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/memcontrol.h>
#include <linux/memory.h>
#include <linux/migrate.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/notifier.h>
#include <linux/page_ref.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/stop_machine.h>
#include <linux/string.h>
#include <linux/pcpcache.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>

#include "../blocks.h"
#include "../compat.h"

/* Enough allocations to empty a magazine at the default high. */
#define SAFETY_SWEEP		1024

static char *test = "";
module_param(test, charp, 0444);
MODULE_PARM_DESC(test, "the case to run at load; see the top of the file");

static unsigned int refill;
module_param(refill, uint, 0444);
MODULE_PARM_DESC(refill, "the pages a refill takes on CPU 0 (the hwpoison_home and hwpoison_barn cases)");

static int offline_block = -1;
module_param(offline_block, int, 0444);
MODULE_PARM_DESC(offline_block, "the memory block taken offline (the *_offline_race cases)");
static unsigned long offline_pfn, offline_nr;
module_param(offline_pfn, ulong, 0444);
MODULE_PARM_DESC(offline_pfn, "its first pfn");
module_param(offline_nr, ulong, 0444);
MODULE_PARM_DESC(offline_nr, "its pages");

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

/*
 * Main's and the spare's 2b pages are handed out first, and are pages 0 to
 * b - 1 and 2b to 3b - 1, none of those the barn's magazine has. Freed
 * again, they fill main and the spare to b each, and the barn is not
 * touched.
 */
static int barn_holds_the_rest(struct page **pages, unsigned int b)
{
	struct page **got;
	unsigned int i, j;
	int err = 0;

	got = kcalloc(2 * b, sizeof(*got), GFP_KERNEL);
	if (!got)
		return -ENOMEM;
	for (i = 0; i < 2 * b; i++) {
		got[i] = pcpcache_alloc_page(GFP_KERNEL, false);
		if (!got[i]) {
			err = -ENOMEM;
			break;
		}
		for (j = 0; j < 3 * b && pages[j] != got[i]; j++)
			;
		if (j >= b && j < 2 * b) {
			pr_err("main or the spare held page %u, not the barn\n", j);
			err = -EIO;
		} else if (j == 3 * b) {
			pr_err("allocation %u of main's and the spare's came from elsewhere\n",
			       i + 1);
			err = -EIO;
		}
	}
	while (i--)
		pcpcache_free_page(got[i], false);
	kfree(got);
	return err;
}

/*
 * From empty lists and an empty barn, with a batch of b = refill: three
 * refills of b, then the frees in order. The (b + 1)th finds main full and
 * swaps it with the empty spare (pages 0 to b - 1); the (2b + 1)th finds
 * main full again and gives it, pages b to 2b - 1, to the barn; the rest
 * fill main. Those b pages are poisoned in the barn, and the sweep takes
 * main, the spare, then the barn's magazine.
 */
static int test_hwpoison_barn(void)
{
	unsigned int i, nr = 3 * refill;
	struct page **pages;
	int err = 0;

	if (!refill || refill > SAFETY_SWEEP / 4)
		return -EINVAL;
	pages = kcalloc(nr, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		pages[i] = pcpcache_alloc_page(GFP_KERNEL, false);
		if (!pages[i]) {
			err = -ENOMEM;
			break;
		}
	}
	nr = i;
	for (i = 0; i < nr; i++)
		pcpcache_free_page(pages[i], false);
	if (!err)
		err = barn_holds_the_rest(pages, refill);
	for (i = refill; !err && i < 2 * refill; i++)
		err = poison(pages[i]);
	for (i = refill; !err && i < 2 * refill; i++) {
		if (handed_out(pages[i])) {
			pr_err("page %u of %u, poisoned in the barn, was handed out\n",
			       i - refill + 1, refill);
			err = -EIO;
		}
	}
	kfree(pages);
	return err;
}

/*
 * A first refill in blocks mode takes a block of order 9 on a machine that
 * has one (the selftest runs this after a reload): its first page is the
 * caller's, the next refill - 1 go to the magazine and the rest stay at
 * home, where the next refill, once the magazine is empty, takes the
 * first for its caller.
 */
static int test_hwpoison_home(void)
{
	struct page *page, *home;
	int err;

	if (!refill || refill >= PCPCACHE_BLOCK_PAGES) {
		pr_err("hwpoison_home: refill=%u: give the batch of CPU 0\n", refill);
		return -EINVAL;
	}
	page = pcpcache_alloc_page(GFP_KERNEL, false);
	if (!page)
		return -ENOMEM;
	/* blocks are 2 MiB whatever the pageblock (order 10 on the debug kernel) */
	if (page_to_pfn(page) & (PCPCACHE_BLOCK_PAGES - 1)) {
		pr_err("hwpoison_home: the refill's first page, pfn %#lx, does not start a block: no free block of order %u\n",
		       page_to_pfn(page), PCPCACHE_BLOCK_ORDER);
		pcpcache_free_page(page, false);
		return -EIO;
	}
	home = page + refill;
	err = poison(home);
	if (!err && handed_out(home)) {
		pr_err("a page poisoned while at home in its block was handed out\n");
		err = -EIO;
	}
	pcpcache_free_page(page, false);
	return err;
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
	pcpcache_put_pages_list(&others);
	if (!page) {
		pr_err("no movable allocation came from the CMA area\n");
		return -EIO;
	}
	pcpcache_free_page(page, false);
	return 0;
}

/*
 * Movable allocations come from ZONE_MOVABLE first, where there is one:
 * free the first that does. A page there must stay movable for hot-remove,
 * so pcpcache may not keep it.
 */
static int test_movable(void)
{
	struct page *page = NULL;
	LIST_HEAD(others);
	int i, nid;

	/*
	 * node by node: movablecore= may give ZONE_MOVABLE to some nodes
	 * only, and this CPU's node's other zones would come first
	 */
	for_each_online_node(nid) {
		for (i = 0; i < 65536 && !page; i++) {
			struct page *p = alloc_pages_node(nid, GFP_HIGHUSER_MOVABLE |
							  __GFP_THISNODE |
							  __GFP_NOWARN, 0);

			if (!p)
				break;
			if (page_zonenum(p) == ZONE_MOVABLE)
				page = p;
			else
				list_add(&p->lru, &others);
		}
		pcpcache_put_pages_list(&others);
		if (page)
			break;
	}
	if (!page) {
		pr_info("no movable allocation came from ZONE_MOVABLE (movablecore=)\n");
		return -EOPNOTSUPP;
	}
	pcpcache_free_page(page, false);
	return 0;
}

/*
 * Charged to the memory cgroup of the task that loads this module: a
 * cached page would keep the charge, and go to another cgroup's task.
 */
static int test_memcg_kmem(void)
{
	struct page *page = alloc_page(GFP_KERNEL_ACCOUNT);

	if (!page)
		return -ENOMEM;
	if (!PageMemcgKmem(page)) {
		pr_info("memcg_kmem: the page is not charged (the loading task in the root cgroup, or no kmem accounting)\n");
		__free_page(page);
		return -EOPNOTSUPP;
	}
	pcpcache_free_page(page, false);
	return 0;
}

/* Allocations the noreclaim case makes, each a refill that cannot be had. */
#define NORECLAIM_ALLOCS	64
/* Left above the high watermarks for the others until every CPU stops. */
#define NORECLAIM_LEFT		(16UL << (20 - PAGE_SHIFT))
/* How a refill takes pages, and never blocking: no reclaim, no compaction. */
#define NORECLAIM_TAKE		(GFP_NOWAIT | __GFP_NOMEMALLOC | __GFP_NOWARN)

struct noreclaim_run {
	struct page *pages[NORECLAIM_ALLOCS];
	struct list_head most, rest;	/* blocks taken before and in the stop */
	unsigned long taken;
	unsigned int nr, reserve;
};

/* The pages a GFP_KERNEL allocation can have above the high watermarks. */
static unsigned long noreclaim_above_high(void)
{
	unsigned long above = 0, free, mark;
	struct zone *zone;
	int nid, i;

	for_each_online_node(nid) {
		for (i = 0; i <= ZONE_NORMAL; i++) {
			zone = &NODE_DATA(nid)->node_zones[i];
			if (!populated_zone(zone))
				continue;
			free = zone_page_state(zone, NR_FREE_PAGES);
			mark = high_wmark_pages(zone) +
			       zone->lowmem_reserve[ZONE_NORMAL];
			above += free > mark ? free - mark : 0;
		}
	}
	return above;
}

/*
 * Take blocks of @order and below onto @blocks with @gfp until none comes,
 * or, with @keep, while that many pages stay above the high watermarks.
 */
static void noreclaim_take(struct noreclaim_run *run, struct list_head *blocks,
			   gfp_t gfp, unsigned int order, unsigned long keep)
{
	struct page *page;

	for (;;) {
		page = NULL;
		if (!keep || noreclaim_above_high() > keep + (1UL << order))
			page = alloc_pages(gfp, order);
		if (!page) {
			if (!order)
				return;
			order--;
			continue;
		}
		set_page_private(page, order);
		list_add(&page->lru, blocks);
		run->taken += 1UL << order;
	}
}

static void noreclaim_give_back(struct list_head *blocks)
{
	struct page *page, *next;
	unsigned int order;

	list_for_each_entry_safe(page, next, blocks, lru) {
		list_del(&page->lru);
		order = page_private(page);
		set_page_private(page, 0);
		__free_pages(page, order);
	}
}

/*
 * As reclaim's own callers run (PF_MEMALLOC), after taking the rest of the
 * pages above the watermarks the way a refill asks (no reserves, no
 * reclaim, no warning): the refills fail, and must say nothing, the
 * caller's own allocations come from the reserves. What was taken here is
 * given back before returning. Nothing here may block: it runs with every
 * other CPU stopped.
 */
static int noreclaim_run(void *data)
{
	struct noreclaim_run *run = data;
	struct page *page;
	unsigned int flags, i;

	flags = memalloc_noreclaim_save();
	for (run->nr = 0; run->nr < NORECLAIM_ALLOCS; run->nr++) {
		/*
		 * Again before each: on PREEMPT_RT the other CPUs run on
		 * and free pages meanwhile (7.3-rt's decay of its per-CPU
		 * lists gave every allocation a page above the watermarks)
		 */
		noreclaim_take(run, &run->rest, NORECLAIM_TAKE, pageblock_order, 0);
		page = pcpcache_alloc_pages(GFP_NOWAIT, 0, false);
		if (!page)
			break;
		run->pages[run->nr] = page;
		run->reserve += page_is_pfmemalloc(page);
	}
	memalloc_noreclaim_restore(flags);
	for (i = 0; i < run->nr; i++)
		pcpcache_free_pages(run->pages[i], 0, false);
	noreclaim_give_back(&run->rest);
	return 0;
}

/*
 * While no page is left above the watermarks, every other allocation
 * fails as well: a GFP_KERNEL one in another task, finding nothing to
 * reclaim in a guest without swap, invokes the OOM killer at once (seen
 * in vm-numa2 killing the selftest's runner). So most of the memory is
 * taken first, leaving the others NORECLAIM_LEFT above the high
 * watermarks, and the rest under stop_machine(), where no other task or
 * interrupt can ask for a page. PREEMPT_RT's zone lock sleeps, which
 * stop_machine() forbids: there it runs as it is, briefly.
 */
static int test_noreclaim(void)
{
	struct noreclaim_run *run = kzalloc(sizeof(*run), GFP_KERNEL);
	unsigned int nr, reserve;
	unsigned long most;
	ktime_t start;
	int err;

	if (!run)
		return -ENOMEM;
	INIT_LIST_HEAD(&run->most);
	INIT_LIST_HEAD(&run->rest);
	noreclaim_take(run, &run->most, NORECLAIM_TAKE, pageblock_order,
		       NORECLAIM_LEFT);
	most = run->taken;
	start = ktime_get();
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		err = noreclaim_run(run);
	else
		err = stop_machine(noreclaim_run, run, NULL);
	nr = run->nr;
	reserve = run->reserve;
	pr_info("noreclaim: took %lu pages, %lu of them in %lld us%s; %u of %u allocations, %u from the reserves\n",
		run->taken, run->taken - most,
		ktime_us_delta(ktime_get(), start),
		IS_ENABLED(CONFIG_PREEMPT_RT) ? "" : " with every other CPU stopped",
		nr, NORECLAIM_ALLOCS, reserve);
	noreclaim_give_back(&run->most);
	kfree(run);
	if (err)
		return err;
	if (nr < NORECLAIM_ALLOCS || reserve < nr) {
		pr_err("an allocation under memalloc_noreclaim_save() %s\n",
		       nr < NORECLAIM_ALLOCS ? "failed" : "did not come from the reserves");
		return -EIO;
	}
	return 0;
}

/*
 * blocks_setup_race. A block of blocks mode is at most a pageblock, whose
 * slot (module/blocks.c) is claimed before the block is split. Here every
 * free pageblock is broken: its first page kept (marked by RACE_MARK in
 * page->private), the rest freed, so that a refill gets a block of order 8
 * at most, and the first page of its pageblock is ours. The refilling
 * thread is held in split_page() (a kprobe, which sees the block) while
 * this one frees that first page into its magazine and trims it: the page
 * reaches pcpcache_blocks_return() while the slot is being set up.
 */
#define RACE_MARK		0x7ace5afeUL
#define RACE_ALLOCS		8192	/* the refilling CPU's, at most */
#define RACE_POOL		4096	/* pages freed here to trim the magazine */
#define RACE_HOLD_MS		2000	/* the most the window is held open */
#define RACE_BLOCK_PAGES	512	/* module/blocks.h */

static struct {
	struct task_struct *refiller;
	struct page *victim;	/* the first page of the slot being set up */
	atomic_t armed;		/* hold the next split_page() of a block of ours */
	atomic_t open;		/* the refiller is held */
	atomic_t returned;	/* the victim reached pcpcache_blocks_return() */
	atomic_t done;		/* the victim was freed and trimmed: let go */
	atomic_t timed_out;
	unsigned int order;
} race;

static bool race_ours(struct page *page)
{
	return page_ref_count(page) == 1 && page_private(page) == RACE_MARK;
}

/* split_page(page, order) */
static int race_split_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct page *page = (struct page *)regs_get_kernel_argument(regs, 0);
	unsigned long base;
	int ms;

	if (current != race.refiller || !atomic_read(&race.armed))
		return 0;
	base = ALIGN_DOWN(page_to_pfn(page), RACE_BLOCK_PAGES);
	if (base == page_to_pfn(page) || !race_ours(pfn_to_page(base)))
		return 0;
	atomic_set(&race.armed, 0);
	race.victim = pfn_to_page(base);
	race.order = regs_get_kernel_argument(regs, 1);
	atomic_set(&race.open, 1);
	/* interrupts are off here: a bounded wait */
	for (ms = 0; !atomic_read(&race.done); ms++) {
		if (ms == RACE_HOLD_MS) {
			atomic_set(&race.timed_out, 1);
			break;
		}
		mdelay(1);
	}
	return 0;
}

static int race_return_pre(struct kprobe *kp, struct pt_regs *regs)
{
	if (race.victim &&
	    (struct page *)regs_get_kernel_argument(regs, 0) == race.victim)
		atomic_set(&race.returned, 1);
	return 0;
}

static struct kprobe race_split_kp = {
	.symbol_name = "split_page",
	.pre_handler = race_split_pre,
};

static struct kprobe race_return_kp = {
	.symbol_name = "pcpcache_blocks_return",
	.pre_handler = race_return_pre,
};

struct race_refill {
	struct page **pages;
	int nr;
	struct completion done;
};

/* On the other CPU: allocate until a refill was held, or RACE_ALLOCS. */
static int race_refiller(void *data)
{
	struct race_refill *rr = data;

	while (rr->nr < RACE_ALLOCS && !atomic_read(&race.open)) {
		rr->pages[rr->nr] = pcpcache_alloc_page(GFP_KERNEL, false);
		if (!rr->pages[rr->nr])
			break;
		rr->nr++;
	}
	/* then empty what it keeps: a page at home twice is handed out twice */
	while (rr->nr < RACE_ALLOCS) {
		rr->pages[rr->nr] = pcpcache_alloc_page(GFP_KERNEL, false);
		if (!rr->pages[rr->nr])
			break;
		rr->nr++;
	}
	complete(&rr->done);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static int race_cmp(const void *a, const void *b)
{
	unsigned long x = (unsigned long)*(struct page * const *)a;
	unsigned long y = (unsigned long)*(struct page * const *)b;

	return x < y ? -1 : x > y;
}

/* Break every free pageblock, keeping its first page: onto @kept. */
static unsigned long race_fragment(struct list_head *kept)
{
	gfp_t gfp = (GFP_KERNEL & ~__GFP_RECLAIM) | __GFP_NOWARN;
	unsigned int order = ilog2(RACE_BLOCK_PAGES), k, j;
	unsigned long nr = 0;
	struct page *page;

	while ((page = alloc_pages(gfp, order))) {
		split_page(page, order);
		/* the rest as blocks of order 0 to 8, each one reference */
		for (k = 0; k < order; k++) {
			for (j = 1; j < 1U << k; j++)
				page_ref_freeze(page + (1U << k) + j, 1);
			__free_pages(page + (1U << k), k);
		}
		set_page_private(page, RACE_MARK);
		list_add(&page->lru, kept);
		nr++;
		/*
		 * all free memory, cleared under init_on_alloc: longer than
		 * the soft lockup watchdog allows under TCG (6.12, 26 s)
		 */
		cond_resched();
	}
	return nr;
}

/* An online CPU other than the caller's, or -EOPNOTSUPP, logged for @what. */
static int other_online_cpu(const char *what)
{
	int self = raw_smp_processor_id();
	int cpu = cpumask_next(self, cpu_online_mask);

	if (cpu >= nr_cpu_ids)
		cpu = cpumask_first(cpu_online_mask);
	if (cpu == self) {
		pr_info("%s needs two online CPUs\n", what);
		return -EOPNOTSUPP;
	}
	return cpu;
}

static int test_blocks_setup_race(void)
{
	struct race_refill rr = { };
	struct page **pool, *page, *next;
	struct task_struct *t;
	unsigned long broken;
	int cpu, i, npool = 0, dup = 0, err = 0;
	LIST_HEAD(kept);

	cpu = other_online_cpu("blocks_setup_race");
	if (cpu < 0)
		return cpu;
	rr.pages = kvcalloc(RACE_ALLOCS, sizeof(*rr.pages), GFP_KERNEL);
	pool = kvcalloc(RACE_POOL, sizeof(*pool), GFP_KERNEL);
	if (!rr.pages || !pool) {
		err = -ENOMEM;
		goto out_free;
	}
	for (npool = 0; npool < RACE_POOL; npool++) {
		pool[npool] = alloc_page(GFP_KERNEL);
		if (!pool[npool])
			break;
	}
	init_completion(&rr.done);
	memset(&race, 0, sizeof(race));
	t = kthread_create_on_cpu(race_refiller, &rr, cpu, "pcpcache_race/%u");
	if (IS_ERR(t)) {
		err = PTR_ERR(t);
		goto out_free;
	}
	race.refiller = t;
	err = register_kprobe(&race_split_kp);
	if (err)
		goto out_stop;
	err = register_kprobe(&race_return_kp);
	if (err)
		goto out_split;
	broken = race_fragment(&kept);
	atomic_set(&race.armed, 1);
	wake_up_process(t);

	/* wait for the window: the refiller runs with interrupts off in it */
	while (!atomic_read(&race.open) && !completion_done(&rr.done))
		cond_resched();
	if (!atomic_read(&race.open)) {
		pr_err("blocks_setup_race: %d allocations on CPU %d, %lu pageblocks broken, and no refill from one of them\n",
		       rr.nr, cpu, broken);
		err = -EIO;
		goto out_wait;
	}
	/* at the cold end, trimmed first: then over high until it is */
	set_page_private(race.victim, 0);
	list_del(&race.victim->lru);
	pcpcache_free_page(race.victim, true);
	for (i = 0; i < npool && !atomic_read(&race.returned); i++) {
		pcpcache_free_page(pool[i], false);
		pool[i] = NULL;
	}
	atomic_set(&race.done, 1);
	pr_info("blocks_setup_race: CPU %d held in split_page() of an order-%u block, pfn %#lx freed and trimmed on CPU %d after %d more frees (%lu pageblocks broken)\n",
		cpu, race.order, page_to_pfn(race.victim), smp_processor_id(),
		i, broken);
	if (!atomic_read(&race.returned)) {
		pr_err("blocks_setup_race: the page did not go home within %d frees\n",
		       i);
		err = -EIO;
	}
	if (atomic_read(&race.timed_out)) {
		pr_err("blocks_setup_race: the window closed before the page went home\n");
		err = -EIO;
	}
out_wait:
	wait_for_completion(&rr.done);
	unregister_kprobe(&race_return_kp);
out_split:
	unregister_kprobe(&race_split_kp);
out_stop:
	kthread_stop(t);
	/* every page the refiller holds, once */
	sort(rr.pages, rr.nr, sizeof(*rr.pages), race_cmp, NULL);
	for (i = 1; i < rr.nr; i++) {
		if (rr.pages[i] == rr.pages[i - 1]) {
			pr_err("blocks_setup_race: pfn %#lx handed out twice\n",
			       page_to_pfn(rr.pages[i]));
			dup++;
		}
	}
	if (dup)
		err = -EIO;
	for (i = 0; i < rr.nr; i++)
		if (i == 0 || rr.pages[i] != rr.pages[i - 1])
			pcpcache_free_page(rr.pages[i], false);
	list_for_each_entry_safe(page, next, &kept, lru) {
		list_del(&page->lru);
		set_page_private(page, 0);
		__free_page(page);
	}
out_free:
	for (i = 0; i < npool; i++)
		if (pool[i])
			__free_page(pool[i]);
	kvfree(pool);
	kvfree(rr.pages);
	return err;
}

/*
 * blocks_gfp. Kprobes count what the refills of this thread ask of the
 * page allocator: the allocations of order 6 or more (the block tries, so
 * that the case cannot pass without making them), kswapd woken at an
 * order above 0, direct compaction and direct reclaim.
 */
#define GFP_CASE_ALLOCS		256
#define GFP_CASE_KEEP_SHIFT	5	/* a page kept in each 32: order 4 at most free */

static struct {
	struct task_struct *task;
	atomic_t large, wakes, compactions, reclaims;
} gfpc;

static int gfpc_alloc_pre(struct kprobe *kp, struct pt_regs *regs)
{
	if (current == gfpc.task && regs_get_kernel_argument(regs, 1) >= 6)
		atomic_inc(&gfpc.large);
	return 0;
}

static int gfpc_wake_pre(struct kprobe *kp, struct pt_regs *regs)
{
	if (current == gfpc.task && (int)regs_get_kernel_argument(regs, 2) > 0)
		atomic_inc(&gfpc.wakes);
	return 0;
}

static int gfpc_compact_pre(struct kprobe *kp, struct pt_regs *regs)
{
	if (current == gfpc.task)
		atomic_inc(&gfpc.compactions);
	return 0;
}

static int gfpc_reclaim_pre(struct kprobe *kp, struct pt_regs *regs)
{
	if (current == gfpc.task)
		atomic_inc(&gfpc.reclaims);
	return 0;
}

static struct kprobe gfpc_kps[] = {
	{ .symbol_name = PCPCACHE_ALLOC_PAGES_SYMBOL, .pre_handler = gfpc_alloc_pre },
	{ .symbol_name = "wakeup_kswapd", .pre_handler = gfpc_wake_pre },
	{ .symbol_name = "try_to_compact_pages", .pre_handler = gfpc_compact_pre },
	{ .symbol_name = "try_to_free_pages", .pre_handler = gfpc_reclaim_pre },
};

/* Break every free block of order 6 or more, keeping a page in each 32. */
static unsigned long gfpc_fragment(struct list_head *kept)
{
	gfp_t gfp = (GFP_KERNEL & ~__GFP_RECLAIM) | __GFP_NOWARN;
	unsigned int order, k, j, c;
	unsigned long nr = 0;
	struct page *page, *chunk;

	for (order = pageblock_order; order >= 6; order--) {
		while ((page = alloc_pages(gfp, order))) {
			split_page(page, order);
			for (c = 0; c < 1U << (order - GFP_CASE_KEEP_SHIFT); c++) {
				chunk = page + (c << GFP_CASE_KEEP_SHIFT);
				for (k = 0; k < GFP_CASE_KEEP_SHIFT; k++) {
					for (j = 1; j < 1U << k; j++)
						page_ref_freeze(chunk + (1U << k) + j, 1);
					__free_pages(chunk + (1U << k), k);
				}
				list_add(&chunk->lru, kept);
				nr++;
			}
		}
	}
	return nr;
}

static int test_blocks_gfp(void)
{
	struct page **pages, *page, *next;
	unsigned long kept_nr;
	int i, nr = 0, err;
	LIST_HEAD(kept);

	pages = kcalloc(GFP_CASE_ALLOCS, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return -ENOMEM;
	memset(&gfpc, 0, sizeof(gfpc));
	kept_nr = gfpc_fragment(&kept);
	gfpc.task = current;
	for (i = 0; i < ARRAY_SIZE(gfpc_kps); i++) {
		err = register_kprobe(&gfpc_kps[i]);
		if (err) {
			pr_err("blocks_gfp: no kprobe on %s (%d)\n",
			       gfpc_kps[i].symbol_name, err);
			while (i--)
				unregister_kprobe(&gfpc_kps[i]);
			goto out;
		}
	}
	for (nr = 0; nr < GFP_CASE_ALLOCS; nr++) {
		pages[nr] = pcpcache_alloc_page(GFP_KERNEL, false);
		if (!pages[nr])
			break;
	}
	for (i = ARRAY_SIZE(gfpc_kps) - 1; i >= 0; i--)
		unregister_kprobe(&gfpc_kps[i]);
	pr_info("blocks_gfp: %lu pages kept, %d allocations: %d of order 6 or more, %d kswapd wake-ups above order 0, %d direct compactions, %d direct reclaims\n",
		kept_nr, nr, atomic_read(&gfpc.large), atomic_read(&gfpc.wakes),
		atomic_read(&gfpc.compactions), atomic_read(&gfpc.reclaims));
	err = 0;
	if (nr < GFP_CASE_ALLOCS || !atomic_read(&gfpc.large)) {
		pr_err("blocks_gfp: the refills did not try a block (or failed)\n");
		err = -EIO;
	}
	if (atomic_read(&gfpc.wakes) || atomic_read(&gfpc.compactions) ||
	    atomic_read(&gfpc.reclaims)) {
		pr_err("blocks_gfp: a refill of order 0 woke kswapd for a block, or compacted or reclaimed\n");
		err = -EIO;
	}
out:
	while (nr--)
		pcpcache_free_page(pages[nr], false);
	list_for_each_entry_safe(page, next, &kept, lru) {
		list_del(&page->lru);
		__free_page(page);
	}
	kfree(pages);
	return err;
}

/*
 * blocks_offline_race. Every free pageblock outside memory block
 * offline_block is taken, so that a refill of blocks mode on another CPU
 * splits a block of it; pcpcache's delay_block_setup holds that refill,
 * sleeping, between the split and the lists, while a thread here writes
 * "offline" to the block's state: the isolation finds the block's frozen
 * pages free, and the notifier's drain runs before the block is on a
 * list. When the refill goes on, the block must go back, and the write
 * end.
 */
#define OFFLINE_RACE_WAIT_S	30
#define OFFLINE_RACE_ORDER	9	/* PCPCACHE_BLOCK_ORDER */
#define OFFLINE_RACE_ALLOCS	4096

static struct {
	struct completion fragmented, refilled, offlined;
	struct list_head kept;	/* the pageblocks taken, outside the block */
	unsigned long kept_nr, inside;
	struct page **pages;	/* the refiller's */
	int nr;
	struct task_struct *refiller;
	unsigned long split_pfn; /* the block its refill split */
	unsigned int split_order;
	ssize_t written;	/* the offline write's result */
} orace;

/* split_page(page, order): the refiller's block */
static int orace_split_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct page *page = (struct page *)regs_get_kernel_argument(regs, 0);

	if (current == orace.refiller && !orace.split_pfn) {
		orace.split_order = regs_get_kernel_argument(regs, 1);
		WRITE_ONCE(orace.split_pfn, page_to_pfn(page));
	}
	return 0;
}

static struct kprobe orace_split_kp = {
	.symbol_name = "split_page",
	.pre_handler = orace_split_pre,
};

static bool orace_inside(struct page *page)
{
	unsigned long pfn = page_to_pfn(page);

	return pfn >= offline_pfn && pfn < offline_pfn + offline_nr;
}

/*
 * On the other CPU: take every free pageblock but the block's, then
 * allocate until a refill split a block (of what is left), up to
 * OFFLINE_RACE_ALLOCS.
 */
static int orace_refiller(void *data)
{
	gfp_t gfp = (GFP_KERNEL & ~__GFP_RECLAIM) | __GFP_NOWARN;
	struct page *page, *next;
	LIST_HEAD(ours);

	while ((page = alloc_pages(gfp, OFFLINE_RACE_ORDER))) {
		if (orace_inside(page)) {
			list_add(&page->lru, &ours);
			orace.inside++;
		} else {
			list_add(&page->lru, &orace.kept);
			orace.kept_nr++;
		}
	}
	list_for_each_entry_safe(page, next, &ours, lru) {
		list_del(&page->lru);
		__free_pages(page, OFFLINE_RACE_ORDER);
	}
	complete(&orace.fragmented);
	while (orace.inside && !READ_ONCE(orace.split_pfn) &&
	       orace.nr < OFFLINE_RACE_ALLOCS) {
		orace.pages[orace.nr] = pcpcache_alloc_page(GFP_KERNEL, false);
		if (!orace.pages[orace.nr])
			break;
		orace.nr++;
	}
	complete(&orace.refilled);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

/* Write "offline" to the block's state, as a user would: the result. */
/*
 * The block's state file, opened by the loading task: on 7.3 a kernel
 * thread's path walk finds no /sys (ENOENT), its root not being the
 * loader's, and the cases run in kernel threads.
 */
static struct file *offline_file;

static int offline_file_open(void)
{
	char path[64];
	struct file *f;

	if (offline_block < 0)
		return 0;
	snprintf(path, sizeof(path), "/sys/devices/system/memory/memory%d/state",
		 offline_block);
	f = filp_open(path, O_WRONLY, 0);
	if (IS_ERR(f)) {
		pr_err("%s: %ld\n", path, PTR_ERR(f));
		return PTR_ERR(f);
	}
	offline_file = f;
	return 0;
}

/*
 * Write "offline" to the block's state. With the device hotplug lock
 * busy, the store asks for the syscall to be restarted (-ERESTARTNOINTR,
 * lock_device_hotplug_sysfs(), a signal pending flagged): a kernel_write()
 * is no syscall, so it is written again here, until a fatal signal. Only
 * kernel threads write (no case that offlines runs in the loading task),
 * and they take no signal but the SIGKILL that ends a retry: the flag
 * can go with flush_signals().
 */
static ssize_t offline_write(void)
{
	ssize_t written;
	loff_t pos;

	if (!offline_file)
		return -EINVAL;
	for (;;) {
		pos = 0;
		written = kernel_write(offline_file, "offline", 7, &pos);
		if (written != -ERESTARTNOINTR)
			return written;
		if (fatal_signal_pending(current))
			return -EINTR;
		flush_signals(current);
	}
}

/* offline_write() in a thread of its own; killable. */
static int orace_offliner(void *data)
{
	allow_signal(SIGKILL);
	orace.written = offline_write();
	complete(&orace.offlined);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static int test_blocks_offline_race(void)
{
	struct task_struct *refiller, *offliner = NULL;
	struct page *page, *next;
	int cpu, i, err = 0;

	if (offline_block < 0 || !offline_nr)
		return -EINVAL;
	cpu = other_online_cpu("blocks_offline_race");
	if (cpu < 0)
		return cpu;
	memset(&orace, 0, sizeof(orace));
	orace.pages = kvcalloc(OFFLINE_RACE_ALLOCS, sizeof(*orace.pages),
			       GFP_KERNEL);
	if (!orace.pages)
		return -ENOMEM;
	init_completion(&orace.fragmented);
	init_completion(&orace.refilled);
	init_completion(&orace.offlined);
	INIT_LIST_HEAD(&orace.kept);
	refiller = kthread_create_on_cpu(orace_refiller, NULL, cpu,
					 "pcpcache_orace/%u");
	if (IS_ERR(refiller)) {
		kvfree(orace.pages);
		return PTR_ERR(refiller);
	}
	orace.refiller = refiller;
	err = register_kprobe(&orace_split_kp);
	if (err) {
		kthread_stop(refiller);
		kvfree(orace.pages);
		return err;
	}
	wake_up_process(refiller);
	wait_for_completion(&orace.fragmented);
	/* inside the refill's delay (1500 ms), after its split */
	msleep(300);
	if (orace.inside)
		offliner = kthread_run(orace_offliner, NULL, "pcpcache_offline");
	if (IS_ERR(offliner)) {
		err = PTR_ERR(offliner);
		offliner = NULL;
	} else if (offliner &&
		   !wait_for_completion_timeout(&orace.offlined,
						OFFLINE_RACE_WAIT_S * HZ)) {
		pr_err("blocks_offline_race: memory%d was still going offline after %d s\n",
		       offline_block, OFFLINE_RACE_WAIT_S);
		err = -EIO;
		/* offline_pages() gives up on a fatal signal */
		send_sig(SIGKILL, offliner, 1);
		wait_for_completion(&orace.offlined);
	}
	wait_for_completion(&orace.refilled);
	unregister_kprobe(&orace_split_kp);
	kthread_stop(refiller);
	if (offliner)
		kthread_stop(offliner);
	pr_info("blocks_offline_race: %lu pageblocks kept, %lu free in memory%d; after %d allocations on CPU %d a refill split an order-%u block at pfn %#lx; the offline write returned %zd\n",
		orace.kept_nr, orace.inside, offline_block, orace.nr, cpu,
		orace.split_order, orace.split_pfn, orace.written);
	if (!orace.inside) {
		pr_err("blocks_offline_race: no free pageblock in memory%d\n",
		       offline_block);
		err = -EIO;
	} else if (!orace.split_pfn ||
		   !orace_inside(pfn_to_page(orace.split_pfn))) {
		/* a pageblock freed meanwhile elsewhere: nothing told */
		pr_info("blocks_offline_race: the refill split no block of memory%d: inconclusive\n",
			offline_block);
	} else if (!err && orace.written != 7 && orace.written != -EBUSY) {
		pr_err("blocks_offline_race: the offline write failed: %zd\n",
		       orace.written);
		err = -EIO;
	}
	for (i = 0; i < orace.nr; i++)
		pcpcache_free_page(orace.pages[i], false);
	kvfree(orace.pages);
	list_for_each_entry_safe(page, next, &orace.kept, lru) {
		list_del(&page->lru);
		__free_pages(page, OFFLINE_RACE_ORDER);
	}
	return err;
}

#ifdef PCPCACHE_MODULE_MOVABLE_OPS
/* The pages of movable_offline_race: marked movable, never isolated. */
#define MRACE_PAGES	64

/* In use: offline_pages() passes them by and tries again. */
static bool mrace_isolate(struct page *page, isolate_mode_t mode)
{
	return false;
}

static int mrace_migrate(struct page *dst, struct page *src,
			 enum migrate_mode mode)
{
	return -EAGAIN;
}

static void mrace_putback(struct page *page)
{
}

static const struct movable_operations mrace_mops = {
	.isolate_page = mrace_isolate,
	.migrate_page = mrace_migrate,
	.putback_page = mrace_putback,
};

/*
 * An order-9 block of the memory block, the rest of the buddy allocator's
 * free pageblocks given back at once; NULL when it has none there.
 */
static struct page *mrace_block_inside(void)
{
	gfp_t gfp = (GFP_KERNEL & ~__GFP_RECLAIM) | __GFP_NOWARN;
	struct page *page, *next, *block = NULL;
	LIST_HEAD(taken);

	while (!block && (page = alloc_pages(gfp, OFFLINE_RACE_ORDER))) {
		if (orace_inside(page))
			block = page;
		else
			list_add(&page->lru, &taken);
	}
	list_for_each_entry_safe(page, next, &taken, lru) {
		list_del(&page->lru);
		__free_pages(page, OFFLINE_RACE_ORDER);
	}
	return block;
}

/* Unmark the pages and free them through pcpcache, as their driver would. */
static void mrace_free(struct page *block)
{
	int i;

	for (i = 0; i < MRACE_PAGES; i++) {
		lock_page(block + i);
		__ClearPageMovable(block + i);
		unlock_page(block + i);
		block[i].mapping = NULL;
		pcpcache_free_page(block + i, false);
	}
}

static int test_movable_offline_race(void)
{
	struct task_struct *offliner;
	struct page *block;
	int i;

	if (offline_block < 0 || !offline_nr)
		return -EINVAL;
	memset(&orace, 0, sizeof(orace));
	init_completion(&orace.offlined);
	block = mrace_block_inside();
	if (!block) {
		pr_err("movable_offline_race: no free pageblock in memory%d\n",
		       offline_block);
		return -EIO;
	}
	split_page(block, OFFLINE_RACE_ORDER);
	for (i = MRACE_PAGES; i < 1 << OFFLINE_RACE_ORDER; i++)
		__free_page(block + i);
	for (i = 0; i < MRACE_PAGES; i++) {
		lock_page(block + i);
		__SetPageMovable(block + i, &mrace_mops);
		unlock_page(block + i);
	}
	offliner = kthread_run(orace_offliner, NULL, "pcpcache_offline");
	if (IS_ERR(offliner)) {
		mrace_free(block);
		return PTR_ERR(offliner);
	}
	/* isolated, drained, and retrying on the pages in use */
	msleep(1000);
	if (completion_done(&orace.offlined))
		pr_info("movable_offline_race: the offline write returned %zd before the frees: inconclusive\n",
			orace.written);
	mrace_free(block);
	if (!wait_for_completion_timeout(&orace.offlined,
					 OFFLINE_RACE_WAIT_S * HZ)) {
		pr_err("movable_offline_race: memory%d was still going offline %d s after its pages were freed\n",
		       offline_block, OFFLINE_RACE_WAIT_S);
		/* offline_pages() gives up on a fatal signal */
		send_sig(SIGKILL, offliner, 1);
		wait_for_completion(&orace.offlined);
		kthread_stop(offliner);
		return -EIO;
	}
	kthread_stop(offliner);
	pr_info("movable_offline_race: %d movable pages of memory%d freed during its offline; the write returned %zd\n",
		MRACE_PAGES, offline_block, orace.written);
	if (orace.written != 7 && orace.written != -EBUSY) {
		pr_err("movable_offline_race: the offline write failed: %zd\n",
		       orace.written);
		return -EIO;
	}
	return 0;
}
#else
/*
 * 7.x keeps driver-movable pages for its own page types (offline and
 * zsmalloc pages, whose operations set_movable_ops() registers, not
 * exported): a module cannot make pages offlining must wait for.
 */
static int test_movable_offline_race(void)
{
	pr_info("movable_offline_race: this kernel lets no module mark pages movable\n");
	return -EOPNOTSUPP;
}
#endif

/*
 * offline_refused: what each memory notifier sees of an offline that one
 * ahead of pcpcache's refuses. The chain stops at the refusal, and
 * offline_pages() sends MEM_CANCEL_OFFLINE to every notifier: pcpcache's
 * sees the end of an offline whose beginning it never saw.
 */
static struct {
	unsigned int refused, cancelled;
} refuse;

static int refuse_callback(struct notifier_block *nb, unsigned long action,
			   void *arg)
{
	switch (action) {
	case MEM_GOING_OFFLINE:
		refuse.refused++;
		return notifier_from_errno(-EBUSY);
	case MEM_CANCEL_OFFLINE:
		refuse.cancelled++;
		break;
	}
	return NOTIFY_OK;
}

/*
 * Ahead of pcpcache's notifier (priority 0), as virtio-mem's is: above
 * every priority of 6.1's and 7.3's memory.h below KSM's (100), whose
 * names differ between them (6.1's IPC_CALLBACK_PRI, 10, is gone).
 */
static struct notifier_block refuse_nb = {
	.notifier_call = refuse_callback,
	.priority = 11,
};

static int test_offline_refused(void)
{
	ssize_t written;
	int err;

	if (offline_block < 0)
		return -EINVAL;
	memset(&refuse, 0, sizeof(refuse));
	err = register_memory_notifier(&refuse_nb);
	if (err)
		return err;
	written = offline_write();
	unregister_memory_notifier(&refuse_nb);
	pr_info("offline_refused: memory%d: the offline write returned %zd; %u refused, %u cancelled\n",
		offline_block, written, refuse.refused, refuse.cancelled);
	if (written != -EBUSY || refuse.refused != 1 || refuse.cancelled != 1) {
		pr_err("offline_refused: memory%d was not refused once by the notifier alone\n",
		       offline_block);
		return -EIO;
	}
	return 0;
}

static const struct {
	const char *name;
	int (*run)(void);
	/* in the loading task, not on CPU 0 in a kthread of no cgroup */
	bool in_caller;
} cases[] = {
	{ "hwpoison_cached", test_hwpoison_cached },
	{ "hwpoison_freed", test_hwpoison_freed },
	{ "hwpoison_block", test_hwpoison_block },
	{ "hwpoison_home", test_hwpoison_home },
	{ "hwpoison_barn", test_hwpoison_barn },
	{ "pfmemalloc", test_pfmemalloc },
	{ "compound", test_compound },
	{ "shared", test_shared },
	{ "cma", test_cma },
	{ "movable", test_movable },
	{ "memcg_kmem", test_memcg_kmem, true },
	{ "noreclaim", test_noreclaim },
	{ "blocks_setup_race", test_blocks_setup_race },
	{ "blocks_gfp", test_blocks_gfp },
	{ "blocks_offline_race", test_blocks_offline_race },
	{ "movable_offline_race", test_movable_offline_race },
	{ "offline_refused", test_offline_refused },
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
	bool in_caller = false;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		if (!strcmp(test, cases[i].name)) {
			sr.run = cases[i].run;
			in_caller = cases[i].in_caller;
		}
	}
	if (!sr.run) {
		pr_err("unknown test '%s'\n", test);
		return -EINVAL;
	}
	sr.result = offline_file_open();
	if (sr.result)
		goto out;
	if (in_caller) {
		sr.result = sr.run();
		goto out;
	}
	init_completion(&sr.done);
	t = kthread_create_on_cpu(safety_thread, &sr, 0, "pcpcache_safety/%u");
	if (IS_ERR(t)) {
		sr.result = PTR_ERR(t);
		goto out;
	}
	wake_up_process(t);
	wait_for_completion(&sr.done);
	kthread_stop(t);
out:
	if (offline_file)
		filp_close(offline_file, NULL);
	offline_file = NULL;
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
