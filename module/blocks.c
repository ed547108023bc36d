// SPDX-License-Identifier: GPL-2.0
/*
 * pcpcache blocks: blocks mode, after Johannes Weiner's "mm: page_alloc: pcp
 * buddy allocator" RFC of April 2026 (Documentation/mm/pcpcache-design.rst).
 * Remote mode's frees (owner.c), with refills of order 0 cut from one large
 * block the module takes from the buddy allocator and splits itself: order
 * 9 where there is one, else the largest order down to what the refill
 * needs. The block belongs to the CPU that took it. What the refill does
 * not use stays at home, in that CPU's reserve; a page its magazine lets go
 * goes home again, whichever CPU drains it; a block all of whose pages are
 * home goes back to the buddy allocator whole. Orders 1 to 3 refill and go
 * back as in remote mode.
 *
 * Pages at home are memory the module holds: the block_hold parameter
 * bounds them per CPU. Past it, the oldest block wholly at home goes back
 * whole; when there is none, the partly used block that had a page come
 * home least recently goes back page by page and stops being tracked: its
 * pages still in use go to the buddy allocator when they are freed. The
 * default, two blocks, leaves room for the block being cut and one that
 * fills up again while frees come home. A drain of a CPU (a write to drain,
 * a switch out of blocks mode, CPU offline, memory offline) gives all of its
 * reserve back and tracks none of its blocks any more; the shrinker and
 * the OOM notifier take the reserve after the magazine and the transit
 * list, whose pages go home first.
 *
 * One struct pcpcache_block per pageblock-sized slot of the memory present
 * when blocks mode was first chosen (96 bytes for 2 MiB), allocated then
 * and kept until unload; memory added later is refilled as in remote mode.
 * A slot is claimed by cmpxchg() of its owner to PCPCACHE_BLOCK_NEW, its
 * fields are set under the new owner's reserve lock, and only then is the
 * owner's CPU stored there, under that lock: a page that comes home reads
 * the owner unlocked, takes that owner's lock and looks again, so it sees
 * either a slot not (yet) tracked or one whose fields are set. Changed
 * only under its owner's reserve lock from then on; released, it can be
 * claimed again only once the buddy allocator hands out a block there.
 * Pages of other allocations may share the slot with its block, before,
 * during and after it: the block's bounds, not the slot, say which pages
 * may come home.
 *
 * A page at home has no reference, as a cached page has; its page->private
 * keeps its clean mark (core.c).
 */
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/page_ref.h>
#include <linux/slab.h>

#include "blocks.h"
#include "compat.h"
#include "lock.h"
#include "owner.h"
#include "pcpcache.h"

struct pcpcache_block {
	struct list_head node;	/* on its owner's reserve, while tracked */
	unsigned int owner;	/* CPU + 1; 0: not tracked; or PCPCACHE_BLOCK_NEW */
	u16 home;		/* base pages at home */
	u16 first;		/* the block's first page, from its slot's */
	u8 order;		/* the block's order */
	DECLARE_BITMAP(map, PCPCACHE_BLOCK_PAGES);	/* pages at home */
};

/*
 * The owner of a slot claimed by a CPU that is still splitting its block:
 * none of the block's pages is out yet, and its fields are not set, so a
 * page of the slot that comes home meanwhile is of another allocation and
 * goes to the buddy allocator, as for a slot nobody owns.
 */
#define PCPCACHE_BLOCK_NEW	UINT_MAX

static struct {
	struct pcpcache_block *slot;
	unsigned long base;	/* the first page frame, block-aligned */
	unsigned long len;	/* slots */
} pcpcache_blocks;

unsigned int pcpcache_block_hold = PCPCACHE_BLOCK_HOLD_DEFAULT;

static int pcpcache_block_hold_set(const char *val,
				   const struct kernel_param *kp)
{
	unsigned int hold;

	if (kstrtouint(val, 0, &hold) || hold > PCPCACHE_BLOCK_HOLD_MAX)
		return -EINVAL;
	WRITE_ONCE(pcpcache_block_hold, hold);
	return 0;
}

static const struct kernel_param_ops pcpcache_block_hold_ops = {
	.set = pcpcache_block_hold_set,
	.get = param_get_uint,
};
module_param_cb(block_hold, &pcpcache_block_hold_ops, &pcpcache_block_hold, 0644);
MODULE_PARM_DESC(block_hold,
		 "blocks mode: most pages a CPU keeps at home in its blocks (0-8192, default 1024)");

void pcpcache_reserve_init(struct pcpcache_reserve *r)
{
	raw_spin_lock_init(&r->lock);
	INIT_LIST_HEAD(&r->home);
	INIT_LIST_HEAD(&r->whole);
	INIT_LIST_HEAD(&r->out);
	r->pages = 0;
}

/**
 * pcpcache_blocks_ready - allocate the block table, once
 *
 * Called under the configuration mutex before blocks mode is put in force.
 *
 * Return: 0, or -ENOMEM with nothing changed.
 */
int pcpcache_blocks_ready(void)
{
	unsigned long start, end;
	struct pcpcache_block *table;

	if (pcpcache_blocks.slot)
		return 0;
	if (!pcpcache_memory_span(&start, &end))
		return -ENOMEM;
	start = ALIGN_DOWN(start, PCPCACHE_BLOCK_PAGES);
	end = ALIGN(end, PCPCACHE_BLOCK_PAGES);
	table = kvcalloc((end - start) >> PCPCACHE_BLOCK_ORDER, sizeof(*table),
			 GFP_KERNEL);
	if (!table)
		return -ENOMEM;
	pcpcache_blocks.base = start;
	pcpcache_blocks.len = (end - start) >> PCPCACHE_BLOCK_ORDER;
	/* the bounds before the table, for lockless readers */
	smp_store_release(&pcpcache_blocks.slot, table);
	return 0;
}

/* Whether blocks mode was ever chosen: only then may a page be of a block. */
bool pcpcache_blocks_tracking(void)
{
	return READ_ONCE(pcpcache_blocks.slot);
}

/* The slot of page frame @pfn, or NULL outside the table. */
static struct pcpcache_block *pcpcache_block_slot(unsigned long pfn)
{
	/* pairs with the store in pcpcache_blocks_ready(): bounds first */
	struct pcpcache_block *table = smp_load_acquire(&pcpcache_blocks.slot);
	unsigned long i = (pfn - pcpcache_blocks.base) >> PCPCACHE_BLOCK_ORDER;

	return table && i < pcpcache_blocks.len ? &table[i] : NULL;
}

static unsigned long pcpcache_block_pfn(const struct pcpcache_block *b)
{
	return pcpcache_blocks.base +
	       ((unsigned long)(b - pcpcache_blocks.slot) << PCPCACHE_BLOCK_ORDER) +
	       b->first;
}

static struct pcpcache_reserve *pcpcache_reserve(int cpu)
{
	return &per_cpu_ptr(&pcpcache_cpus, cpu)->reserve;
}

/* What a detached block leaves to give back, outside the reserve's lock. */
struct pcpcache_leftovers {
	struct list_head whole;		/* blocks, their order in ->private */
	struct pcpcache_cut pieces;	/* pages of partly used blocks */
};

static void pcpcache_leftovers_init(struct pcpcache_leftovers *l)
{
	INIT_LIST_HEAD(&l->whole);
	mag_cut_init(&l->pieces);
}

/*
 * Take @b off its owner's reserve and stop tracking it: its pages at home
 * go to @l, as the block when all of them are. Under the reserve's lock.
 */
static void pcpcache_block_detach(struct pcpcache_reserve *r,
				  struct pcpcache_block *b,
				  struct pcpcache_leftovers *l)
{
	struct page *first = pfn_to_page(pcpcache_block_pfn(b));
	unsigned int i, size = 1U << b->order;

	list_del(&b->node);
	WRITE_ONCE(r->pages, r->pages - b->home);
	if (b->home == size) {
		set_page_private(first, b->order);
		list_add_tail(&first->lru, &l->whole);
	} else {
		for_each_set_bit(i, b->map, size)
			list_add_tail(&(first + i)->lru, &l->pieces.pages[0]);
		l->pieces.count += b->home;
	}
	bitmap_zero(b->map, size);
	b->home = 0;
	/* last: from here on the slot may be claimed again */
	smp_store_release(&b->owner, 0);
}

/*
 * Under the reserve's lock: the block to give back first, or NULL. The
 * oldest whole one, which goes back whole; else the partly used one that
 * had a page come home least recently, the least likely to be whole soon.
 */
static struct pcpcache_block *pcpcache_reserve_victim(struct pcpcache_reserve *r)
{
	if (!list_empty(&r->whole))
		return list_first_entry(&r->whole, struct pcpcache_block, node);
	if (!list_empty(&r->home))
		return list_last_entry(&r->home, struct pcpcache_block, node);
	return NULL;
}

/* Under the reserve's lock: give blocks back until it is within block_hold. */
static void pcpcache_reserve_bound(struct pcpcache_reserve *r,
				   struct pcpcache_leftovers *l)
{
	struct pcpcache_block *b;

	while (r->pages > READ_ONCE(pcpcache_block_hold)) {
		b = pcpcache_reserve_victim(r);
		if (!b)
			break;
		pcpcache_block_detach(r, b, l);
	}
}

/* Give back what detached blocks left, counted; outside the lock. */
static unsigned long pcpcache_leftovers_free(struct pcpcache_leftovers *l)
{
	unsigned long nr = l->pieces.count;
	unsigned int order, i;
	struct page *page, *next;

	list_for_each_entry_safe(page, next, &l->whole, lru) {
		order = page_private(page);
		list_del(&page->lru);
		for (i = 0; i < 1U << order; i++)
			set_page_private(page + i, 0);
		page_ref_unfreeze(page, 1);
		pcpcache_free_block(page, order);
		pcpcache_count(PCPCACHE_BLOCK_WHOLE, 1);
		pcpcache_count(PCPCACHE_BLOCK_WHOLE_PAGES, 1U << order);
		pcpcache_count(PCPCACHE_BUDDY_FREE, 1U << order);
		nr += 1U << order;
	}
	if (l->pieces.count) {
		pcpcache_count(PCPCACHE_BLOCK_PIECES, l->pieces.count);
		/* not tracked any more: these go to the buddy allocator */
		pcpcache_free_cut(&l->pieces);
	}
	return nr;
}

/*
 * Take up to @nr pages at home in @r's blocks onto @pages. Pages at home
 * have no reference, so memory_failure() marks one and leaves it there:
 * checked here, as the buddy allocator checks a page it hands out, and
 * left out of the block (never whole again), for the buddy allocator to
 * keep for good.
 */
static unsigned int pcpcache_reserve_take(struct pcpcache_reserve *r,
					  unsigned int nr,
					  struct list_head *pages)
{
	struct pcpcache_leftovers l;
	struct pcpcache_block *b;
	struct pcpcache_cut poisoned;
	unsigned int got = 0, taken = 0, i;
	unsigned long flags;
	struct page *first;

	if (!READ_ONCE(r->pages))
		return 0;
	pcpcache_leftovers_init(&l);
	mag_cut_init(&poisoned);
	raw_spin_lock_irqsave(&r->lock, flags);
	while (got < nr) {
		/* partly used blocks first: whole ones may go back whole */
		b = list_first_entry_or_null(&r->home, struct pcpcache_block, node);
		if (!b)
			b = list_first_entry_or_null(&r->whole, struct pcpcache_block,
						     node);
		if (!b)
			break;
		first = pfn_to_page(pcpcache_block_pfn(b));
		/*
		 * Its pageblock isolated for memory going offline: none of
		 * it is handed out, all of it goes (a drain follows anyway)
		 */
		if (unlikely(pcpcache_page_block_refused(first))) {
			pcpcache_block_detach(r, b, &l);
			continue;
		}
		for_each_set_bit(i, b->map, 1U << b->order) {
			__clear_bit(i, b->map);
			b->home--;
			taken++;
			if (unlikely(PageHWPoison(first + i))) {
				list_add_tail(&(first + i)->lru,
					      &poisoned.pages[0]);
				poisoned.count++;
				continue;
			}
			list_add_tail(&(first + i)->lru, pages);
			if (++got == nr)
				break;
		}
		list_move(&b->node, b->home ? &r->home : &r->out);
	}
	WRITE_ONCE(r->pages, r->pages - taken);
	raw_spin_unlock_irqrestore(&r->lock, flags);
	pcpcache_leftovers_free(&l);
	if (unlikely(poisoned.count)) {
		pcpcache_count(PCPCACHE_REFUSED_HWPOISON, poisoned.count);
		/* poisoned: not home again, to the buddy allocator for good */
		pcpcache_free_cut(&poisoned);
	}
	return got;
}

/*
 * Milliseconds a new block's setup waits between its split and its
 * publishing, when the refill may sleep: failure injection (the
 * "delay_block_setup" debugfs file), for the preemption a refill can take
 * there on a preemptible kernel, which tests cannot time.
 */
unsigned int pcpcache_delay_block_setup;

static void pcpcache_delay_setup(gfp_t gfp)
{
	unsigned int ms = READ_ONCE(pcpcache_delay_block_setup);

	if (unlikely(ms) && gfpflags_allow_blocking(gfp))
		msleep(ms);
}

/*
 * Take a new block for @cpu from its node, split it, put @nr pages of it on
 * @pages and the rest at home. The largest order first, without reclaim;
 * the smallest that holds @nr with the refill's own mask, without reclaim
 * either when that order is a costly one.
 */
static unsigned int pcpcache_block_new(int cpu, gfp_t gfp, unsigned int nr,
				       struct list_head *pages)
{
	unsigned int need = min_t(unsigned int, order_base_2(nr),
				  PCPCACHE_BLOCK_ORDER);
	unsigned long clean = want_init_on_alloc(gfp) || want_init_on_free() ?
			      PCPCACHE_PAGE_CLEAN : 0;
	struct pcpcache_reserve *r = pcpcache_reserve(cpu);
	unsigned int order, i, got = 0, home = 0;
	struct pcpcache_leftovers l;
	struct pcpcache_block *b;
	struct page *page = NULL;
	unsigned long flags, pfn;
	gfp_t try;

	for (order = PCPCACHE_BLOCK_ORDER;; order--) {
		try = gfp | __GFP_THISNODE | __GFP_NOWARN;
		/*
		 * The larger orders are opportunistic, as slub's first try in
		 * allocate_slab() is: no reclaim, no kswapd or kcompactd woken
		 * at that order, no reserves (__GFP_HIGH). The smallest too
		 * when it is a costly order: a caller of order 0 pays no
		 * direct compaction for a block; when there is none, the
		 * refill is remote mode's, of order 0 with the caller's mask.
		 */
		if (order > need)
			try = (try & ~(__GFP_RECLAIM | __GFP_HIGH)) | __GFP_NORETRY;
		else if (order > PAGE_ALLOC_COSTLY_ORDER)
			try = (try & ~__GFP_RECLAIM) | __GFP_NORETRY;
		page = alloc_pages_node(cpu_to_mem(cpu), try, order);
		if (page || order == need)
			break;
	}
	if (!page)
		return 0;
	pfn = page_to_pfn(page);
	b = pcpcache_block_slot(pfn);
	/*
	 * beyond the table, or its slot has a smaller block already; claimed
	 * as being set up, which no page coming home takes for an owner
	 */
	if (!b || cmpxchg(&b->owner, 0, PCPCACHE_BLOCK_NEW)) {
		__free_pages(page, order);
		return 0;
	}
	pcpcache_count(PCPCACHE_BUDDY_ALLOC, 1U << order);
	pcpcache_count(PCPCACHE_BLOCK_REFILLS, 1);
	split_page(page, order);
	for (i = 0; i < 1U << order; i++) {
		/* a speculative reference meanwhile: its holder frees it */
		if (unlikely(!page_ref_freeze(page + i, 1))) {
			put_page(page + i);
			pcpcache_count(PCPCACHE_BUDDY_FREE, 1);
			continue;
		}
		set_page_private(page + i, clean);
		if (got < nr) {
			list_add_tail(&page[i].lru, pages);
			got++;
		} else {
			__set_bit(i, b->map);
			home++;
		}
	}

	pcpcache_delay_setup(gfp);

	pcpcache_leftovers_init(&l);
	raw_spin_lock_irqsave(&r->lock, flags);
	b->order = order;
	b->first = pfn & (PCPCACHE_BLOCK_PAGES - 1);
	b->home = home;
	list_add(&b->node, home ? &r->home : &r->out);
	WRITE_ONCE(r->pages, r->pages + home);
	/*
	 * last, under the lock: a return that reads this owner takes the
	 * lock after us and finds the fields above set
	 */
	WRITE_ONCE(b->owner, cpu + 1);
	/*
	 * The CPU went down or left blocks mode while we split: its drain
	 * has been, or is waiting for this lock, and takes what is here;
	 * nothing may be kept after it. Nor after memory going offline
	 * isolated the block's pageblock while we split: our frozen pages
	 * looked free to the isolation, and the notifier's drain ran before
	 * the block was on a list; kept, they would fail every one of
	 * offline_pages()'s retries. The isolation was set before that drain
	 * took this lock, so it is seen here.
	 */
	if (unlikely(!cpu_online(cpu) ||
		     READ_ONCE(per_cpu_ptr(&pcpcache_cpus, cpu)->mag.mode) !=
		     PCPCACHE_MODE_BLOCKS ||
		     pcpcache_page_block_refused(page)))
		pcpcache_block_detach(r, b, &l);
	else
		pcpcache_reserve_bound(r, &l);
	raw_spin_unlock_irqrestore(&r->lock, flags);
	pcpcache_leftovers_free(&l);
	return got;
}

/**
 * pcpcache_blocks_refill - refill pages of order 0 from this CPU's blocks
 * @gfp: the refill's mask
 * @nr: how many
 * @pages: where they go, without a reference, their page->private set
 *
 * From the blocks at home first, then from a new block. Called with
 * interrupts on, as a refill is: the CPU we run on may change meanwhile,
 * which only makes another CPU the owner of the new block.
 *
 * Return: how many are on @pages; 0 when the buddy allocator had no block
 * for us (the caller refills as remote mode does).
 */
unsigned int pcpcache_blocks_refill(gfp_t gfp, unsigned int nr,
				    struct list_head *pages)
{
	int cpu = raw_smp_processor_id();
	unsigned int got;

	got = pcpcache_reserve_take(pcpcache_reserve(cpu), nr, pages);
	if (got < nr)
		got += pcpcache_block_new(cpu, gfp, nr - got, pages);
	return got;
}

/**
 * pcpcache_blocks_return - send a page of order 0 home to its block
 * @page: the page, without a reference
 *
 * From any CPU but in NMI, with or without a magazine's lock: the one
 * taken here is the owner's reserve's, which nothing inside holds.
 *
 * Return: true when it is home; false when it is not of a tracked block,
 * or its pageblock is isolated, or it is poisoned: the caller gives it to
 * the buddy allocator.
 */
bool pcpcache_blocks_return(struct page *page)
{
	unsigned long pfn = page_to_pfn(page), off, flags;
	struct pcpcache_leftovers l;
	struct pcpcache_reserve *r;
	struct pcpcache_block *b;
	unsigned int owner;
	bool home = false;

	b = pcpcache_block_slot(pfn);
	if (!b || in_nmi())
		return false;
	owner = READ_ONCE(b->owner);
	/* not tracked, or not yet: none of the block's pages is out */
	if (!owner || owner == PCPCACHE_BLOCK_NEW)
		return false;
	pcpcache_leftovers_init(&l);
	r = pcpcache_reserve(owner - 1);
	raw_spin_lock_irqsave(&r->lock, flags);
	off = pfn - pcpcache_block_pfn(b);
	if (b->owner == owner && off < 1U << b->order &&
	    !test_bit(off, b->map) && !PageHWPoison(page) &&
	    !pcpcache_page_block_refused(page)) {
		__set_bit(off, b->map);
		/* the most recently used first; whole ones in the order they became so */
		if (++b->home == 1U << b->order)
			list_move_tail(&b->node, &r->whole);
		else
			list_move(&b->node, &r->home);
		WRITE_ONCE(r->pages, r->pages + 1);
		pcpcache_reserve_bound(r, &l);
		home = true;
	}
	raw_spin_unlock_irqrestore(&r->lock, flags);
	pcpcache_leftovers_free(&l);
	return home;
}

/**
 * pcpcache_blocks_release - give back what a CPU keeps at home
 * @cpu: the CPU
 * @nr: about how many pages: a block more at most; ULONG_MAX for all
 * @untrack: stop tracking every block of @cpu too (a drain): then nothing
 *	     of it is home again
 *
 * A block at a time under the lock, fullest first.
 *
 * Return: the pages given back.
 */
unsigned long pcpcache_blocks_release(int cpu, unsigned long nr, bool untrack)
{
	struct pcpcache_reserve *r = pcpcache_reserve(cpu);
	struct pcpcache_leftovers l;
	struct pcpcache_block *b;
	unsigned long freed = 0;
	unsigned long flags;

	if (!pcpcache_blocks_tracking())
		return 0;
	while (freed < nr) {
		pcpcache_leftovers_init(&l);
		raw_spin_lock_irqsave(&r->lock, flags);
		b = pcpcache_reserve_victim(r);
		if (!b && untrack && !list_empty(&r->out))
			b = list_first_entry(&r->out, struct pcpcache_block, node);
		if (b)
			pcpcache_block_detach(r, b, &l);
		raw_spin_unlock_irqrestore(&r->lock, flags);
		if (!b)
			break;
		freed += pcpcache_leftovers_free(&l);
	}
	return freed;
}

/* The pages at home in @cpu's blocks, read without the lock. */
unsigned int pcpcache_cpu_blocks(int cpu)
{
	return READ_ONCE(pcpcache_reserve(cpu)->pages);
}

/* The pages at home in the blocks of a node's CPUs, or of all. */
unsigned long pcpcache_blocks_pages(int nid)
{
	return pcpcache_sum_cpus(nid, pcpcache_cpu_blocks);
}

/**
 * pcpcache_blocks_audit - count the pages at home in a CPU's blocks
 * @cpu: the CPU
 * @wrong: add the blocks that disagree with their own count, their owner
 *	   or the list they are on
 *
 * For the audit (debugfs.c), with every CPU stopped: bit by bit, not from
 * the counts.
 *
 * Return: the pages at home.
 */
unsigned long pcpcache_blocks_audit(int cpu, unsigned long *wrong)
{
	struct pcpcache_reserve *r = pcpcache_reserve(cpu);
	struct list_head *heads[] = { &r->home, &r->whole, &r->out };
	unsigned long nr = 0;
	struct pcpcache_block *b;
	unsigned int i, w, list;

	raw_spin_lock(&r->lock);
	for (i = 0; i < ARRAY_SIZE(heads); i++)
		list_for_each_entry(b, heads[i], node) {
			w = bitmap_weight(b->map, PCPCACHE_BLOCK_PAGES);
			/* the list it belongs on: index into heads[] */
			list = !w ? 2 : w == 1U << b->order ? 1 : 0;
			if (w != b->home || b->owner != cpu + 1 || list != i)
				(*wrong)++;
			nr += w;
		}
	raw_spin_unlock(&r->lock);
	return nr;
}

/* At unload, once no page can be allocated or freed any more. */
void pcpcache_blocks_exit(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		pcpcache_blocks_release(cpu, ULONG_MAX, true);
	kvfree(pcpcache_blocks.slot);
	pcpcache_blocks.slot = NULL;
}
