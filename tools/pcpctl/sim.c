// SPDX-License-Identifier: GPL-2.0
/*
 * pcpctl simulate's engine: one setting over one trace.
 *
 * The module's designs run on the module's own magazine.c, as core.c
 * drives it: a hit takes from the list, a miss refills batch >> order
 * blocks (at least one), keeps one for the caller and adds the rest,
 * then cuts the list to high; a free goes on the list of the freeing CPU
 * and a list over high gives a batch back. With high=auto, a refill of
 * the hot list raises high and a tick a second of trace time decays it,
 * as request.c's work does. Blocks are list nodes of a pool: identity
 * matters only as far as the lists order them, and in remote mode for the
 * CPU that owns each (owner.c): a free elsewhere goes onto the owner's
 * transit list, within its high and a batch (beyond, to the buddy
 * allocator), and the owner's next allocation takes the list into its
 * magazine uncut.
 *
 * Blocks mode (blocks.c) is remote mode with refills of order 0 cut from
 * blocks of 512 pages, the buddy allocator always having one: each page
 * knows its block and offset, and each CPU has blocks.c's reserve, the
 * same lists in the same order, so that which page goes where, and which
 * block goes back whole, is the module's.
 *
 * Barn mode (barn.c) is magazine.c's barn rules as core.c calls them: an
 * allocation that finds the main magazine (the hot list) empty swaps in
 * the spare, else takes a full magazine from the barn, else refills main
 * as single mode does; a free that takes main over batch puts it in the
 * spare's place, or in the barn, or gives it back. The simulator has one
 * node, so one barn for every CPU, never busy; every 5 s of trace time the
 * barn is trimmed, as barn.c's work does by the clock, the magazines it
 * gives back counted on CPU 0. Its pages are parked, on no CPU's count.
 *
 * Kept free of kernel-only calls, like magazine.c: it builds against the
 * kernel's tools/include/linux/list.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "magazine.h"
#include "kmodel.h"
#include "sim.h"

struct sblock;

struct blk {
	struct list_head lru;	/* first: a node is its block */
	unsigned int owner;	/* remote: the CPU that cached or handed it out */
	struct sblock *block;	/* blocks: the block it is a page of; or NULL */
};

#define SIM_MAP_WORDS	(SIM_BLOCK_PAGES / 64)

/* blocks.c's struct pcpcache_block, with its pages */
struct sblock {
	struct list_head node;	/* on its owner's reserve, while tracked */
	struct list_head all;	/* every block alive, to free them at the end */
	unsigned int owner;	/* CPU + 1; 0: not tracked */
	unsigned int home;	/* pages at home */
	unsigned int out;	/* pages neither at home nor in the buddy allocator */
	uint64_t map[SIM_MAP_WORDS];	/* pages at home */
	struct blk page[SIM_BLOCK_PAGES];
};

/* blocks.c's struct pcpcache_reserve */
struct sreserve {
	struct list_head home;	/* partly at home, the last come home first */
	struct list_head whole;	/* wholly at home, oldest first */
	struct list_head out;	/* none at home */
	unsigned int pages;
};

/* Blocks come from chunks and go back to a free list through lru.next. */
struct pool {
	struct list_head *free;
	struct blk **chunks;
	size_t nr_chunks;
};

#define POOL_CHUNK	4096

static struct list_head *pool_get(struct pool *p)
{
	struct list_head *node = p->free;
	struct blk *chunk, **chunks;
	size_t i;

	if (!node) {
		chunk = malloc(POOL_CHUNK * sizeof(*chunk));
		chunks = realloc(p->chunks, (p->nr_chunks + 1) * sizeof(*chunks));
		if (!chunk || !chunks) {
			free(chunk);
			if (chunks)
				p->chunks = chunks;
			return NULL;
		}
		p->chunks = chunks;
		p->chunks[p->nr_chunks++] = chunk;
		for (i = 0; i < POOL_CHUNK; i++) {
			chunk[i].lru.next = p->free;
			p->free = &chunk[i].lru;
		}
		node = p->free;
	}
	p->free = node->next;
	return node;
}

static void pool_put(struct pool *p, struct list_head *node)
{
	node->next = p->free;
	p->free = node;
}

static void pool_release(struct pool *p)
{
	size_t i;

	for (i = 0; i < p->nr_chunks; i++)
		free(p->chunks[i]);
	free(p->chunks);
	memset(p, 0, sizeof(*p));
}

struct sim {
	const struct sim_setting *s;
	unsigned int nr_cpus;
	struct pcpcache_mag *mag;
	struct sim_cpu *cpu;
	struct pool pool;
	struct list_head **held;	/* by slot */
	struct pcpcache_cut *transit;	/* remote: by CPU, newest first */
	uint64_t in_transit;		/* all CPUs */
	struct sreserve *reserve;	/* blocks: by CPU */
	struct list_head blocks;	/* blocks: all alive */
	uint64_t at_home;		/* blocks: all CPUs */
	uint32_t *alloc_cpu;		/* as_replayed: by slot */
	struct list_head *user;		/* as_replayed: by CPU and order, newest first */
	uint64_t parked;		/* all CPUs, in transit, at home and in the barn too */
	struct pcpcache_depot *depot;	/* barn: the one node's barn */
	bool nomem;
};

static bool barn(const struct sim *sim)
{
	return sim->s->design == SIM_BARN;
}

/* Pages in the barn, 0 outside barn mode. */
static uint64_t barn_pages(const struct sim *sim)
{
	return sim->depot ? mag_depot_count(sim->depot) : 0;
}

/* barn.c's pcpcache_barn_count(): one exchange of @c's magazines */
static void barn_count(struct sim_cpu *c, enum mag_barn_done done)
{
	switch (done) {
	case MAG_BARN_SWAPPED:
		c->barn_swaps++;
		break;
	case MAG_BARN_TOOK_FULL:
		c->barn_took_full++;
		break;
	case MAG_BARN_GAVE_FULL:
		c->barn_gave_full++;
		break;
	case MAG_BARN_FLUSHED:
		c->barn_flushes++;
		break;
	default:
		break;
	}
}

static bool routes_frees(const struct sim *sim)
{
	return sim->s->design == SIM_REMOTE || sim->s->design == SIM_BLOCKS;
}

/* The lowest page at home in @b at or after @i; SIM_BLOCK_PAGES if none. */
static unsigned int next_home(const struct sblock *b, unsigned int i)
{
	uint64_t w;

	while (i < SIM_BLOCK_PAGES) {
		w = b->map[i / 64] >> (i % 64);
		if (w)
			return i + __builtin_ctzll(w);
		i = (i / 64 + 1) * 64;
	}
	return SIM_BLOCK_PAGES;
}

static void block_put(struct sblock *b)
{
	list_del(&b->all);
	free(b);
}

/* A page into the buddy allocator: a block goes once none of it is out. */
static void to_buddy(struct sim *sim, struct list_head *node)
{
	struct sblock *b = ((struct blk *)node)->block;

	if (!b) {
		pool_put(&sim->pool, node);
		return;
	}
	if (!--b->out && !b->owner)
		block_put(b);
}

/*
 * blocks.c's pcpcache_block_detach() and pcpcache_leftovers_free(): @b
 * off @r, untracked, what is at home given back, counted on @c, the CPU
 * that runs it.
 */
static void block_detach(struct sim *sim, struct sreserve *r,
			 struct sblock *b, struct sim_cpu *c)
{
	list_del(&b->node);
	r->pages -= b->home;
	sim->at_home -= b->home;
	if (b->home == SIM_BLOCK_PAGES) {
		c->block_whole++;
		c->block_whole_pages += SIM_BLOCK_PAGES;
	} else {
		c->block_pieces += b->home;
	}
	c->buddy_free += b->home;
	memset(b->map, 0, sizeof(b->map));
	b->home = 0;
	b->owner = 0;
	if (!b->out)
		block_put(b);
}

/* pcpcache_reserve_victim(): the oldest whole block, else the coldest, or NULL */
static struct sblock *reserve_victim(struct sreserve *r)
{
	if (!list_empty(&r->whole))
		return list_first_entry(&r->whole, struct sblock, node);
	if (!list_empty(&r->home))
		return list_entry(r->home.prev, struct sblock, node);
	return NULL;
}

/* pcpcache_reserve_bound() */
static void reserve_bound(struct sim *sim, struct sreserve *r,
			  struct sim_cpu *c)
{
	struct sblock *b;

	while (r->pages > sim->s->block_hold) {
		b = reserve_victim(r);
		if (!b)
			break;
		block_detach(sim, r, b, c);
	}
}

/* pcpcache_reserve_take(): up to @nr pages at home onto @pages */
static unsigned int reserve_take(struct sim *sim, struct sreserve *r,
				 unsigned int nr, struct list_head *pages)
{
	unsigned int got = 0, i;
	struct sblock *b;

	while (got < nr) {
		/* partly used blocks first, as the module takes them */
		if (!list_empty(&r->home))
			b = list_first_entry(&r->home, struct sblock, node);
		else if (!list_empty(&r->whole))
			b = list_first_entry(&r->whole, struct sblock, node);
		else
			break;
		for (i = next_home(b, 0); i < SIM_BLOCK_PAGES; i = next_home(b, i + 1)) {
			b->map[i / 64] &= ~(1ULL << (i % 64));
			list_add_tail(&b->page[i].lru, pages);
			b->home--;
			b->out++;
			if (++got == nr)
				break;
		}
		list_move(&b->node, b->home ? &r->home : &r->out);
	}
	r->pages -= got;
	sim->at_home -= got;
	return got;
}

/* pcpcache_block_new(): a block for @cpu, @nr of its pages onto @pages */
static unsigned int block_new(struct sim *sim, unsigned int cpu,
			      unsigned int nr, struct list_head *pages)
{
	struct sreserve *r = &sim->reserve[cpu];
	struct sim_cpu *c = &sim->cpu[cpu];
	unsigned int i, got = 0;
	struct sblock *b;

	b = calloc(1, sizeof(*b));
	if (!b) {
		sim->nomem = true;
		return 0;
	}
	list_add(&b->all, &sim->blocks);
	b->owner = cpu + 1;
	c->buddy_alloc += SIM_BLOCK_PAGES;
	c->block_refills++;
	for (i = 0; i < SIM_BLOCK_PAGES; i++) {
		b->page[i].block = b;
		if (got < nr) {
			list_add_tail(&b->page[i].lru, pages);
			got++;
		} else {
			b->map[i / 64] |= 1ULL << (i % 64);
			b->home++;
		}
	}
	b->out = got;
	list_add(&b->node, b->home ? &r->home : &r->out);
	r->pages += b->home;
	sim->at_home += b->home;
	reserve_bound(sim, r, c);
	return got;
}

/*
 * pcpcache_blocks_return(): whether the page @node went home to its
 * block, on @cpu: its owner's reserve, which may be another CPU's.
 */
static bool blocks_return(struct sim *sim, unsigned int cpu,
			  struct list_head *node)
{
	struct blk *p = (struct blk *)node;
	struct sblock *b = p->block;
	unsigned int i, owner;
	struct sreserve *r;

	if (!b || !b->owner)
		return false;
	owner = b->owner - 1;
	r = &sim->reserve[owner];
	i = p - b->page;
	b->map[i / 64] |= 1ULL << (i % 64);
	b->out--;
	if (++b->home == SIM_BLOCK_PAGES)
		list_move_tail(&b->node, &r->whole);
	else
		list_move(&b->node, &r->home);
	r->pages++;
	sim->at_home++;
	reserve_bound(sim, r, &sim->cpu[cpu]);
	if (mag_count(&sim->mag[owner]) + sim->transit[owner].count + r->pages >
	    sim->cpu[owner].parked_peak)
		sim->cpu[owner].parked_peak = mag_count(&sim->mag[owner]) +
					      sim->transit[owner].count + r->pages;
	return true;
}

/*
 * Give a cut's blocks back: a drain of @cpu, counted as core.c counts it;
 * in blocks mode a page of a tracked block goes home instead, in the
 * cut's order, as pcpcache_give_back() sends it.
 */
static void give_back(struct sim *sim, unsigned int cpu, struct pcpcache_cut *cut)
{
	struct sim_cpu *c = &sim->cpu[cpu];
	struct list_head *node, *next;
	unsigned int order;

	if (!cut->count)
		return;
	c->drain++;
	c->drain_pages += cut->count;
	for (order = 0; order < PCPCACHE_NR_ORDERS; order++)
		list_for_each_safe(node, next, &cut->pages[order]) {
			if (!order && blocks_return(sim, cpu, node))
				continue;
			c->buddy_free += 1U << order;
			to_buddy(sim, node);
		}
	mag_cut_init(cut);
}

static unsigned int *owner_of(struct list_head *node)
{
	return &((struct blk *)node)->owner;
}

/*
 * core.c's pcpcache_absorb(): @cpu's transit list into its magazine, in
 * steps of at most PCPCACHE_MAX_BATCH blocks, not cut to high.
 */
static void sim_absorb(struct sim *sim, unsigned int cpu)
{
	struct pcpcache_cut *t = &sim->transit[cpu];
	struct pcpcache_list *list = mag_list(&sim->mag[cpu], false);
	struct list_head *node, *next;
	unsigned int order, nr;
	LIST_HEAD(step);

	if (!t->count)
		return;
	sim->cpu[cpu].remote_absorbed += t->count;
	sim->in_transit -= t->count;
	for (order = 0; order < PCPCACHE_NR_ORDERS; order++) {
		nr = 0;
		list_for_each_safe(node, next, &t->pages[order]) {
			list_del(node);
			list_add_tail(node, &step);
			if (++nr < PCPCACHE_MAX_BATCH)
				continue;
			mag_add_refill(list, order, &step, nr);
			INIT_LIST_HEAD(&step);
			nr = 0;
		}
		if (nr) {
			mag_add_refill(list, order, &step, nr);
			INIT_LIST_HEAD(&step);
		}
	}
	mag_cut_init(t);
}

/*
 * owner.c's pcpcache_send_home(): whether @node went to its owner, or,
 * the owner being full, to the buddy allocator.
 */
static bool sim_send_home(struct sim *sim, unsigned int cpu,
			  struct list_head *node, unsigned int order)
{
	unsigned int owner = *owner_of(node), pages = 1U << order;
	const struct pcpcache_list *list;
	struct pcpcache_cut *t;

	if (!routes_frees(sim) || owner == cpu || owner >= sim->nr_cpus)
		return false;
	t = &sim->transit[owner];
	list = &sim->mag[owner].lists[PCPCACHE_LIST_HOT];
	if (t->count + list->count + pages > list->high + list->batch) {
		/* core.c's pcpcache_free_overflow(): home, or to the buddy allocator */
		sim->cpu[cpu].remote_overflow += pages;
		if (!order && blocks_return(sim, cpu, node))
			return true;
		sim->cpu[cpu].buddy_free += pages;
		sim->cpu[cpu].direct++;
		to_buddy(sim, node);
		return true;
	}
	list_add(node, &t->pages[order]);
	t->count += pages;
	sim->in_transit += pages;
	sim->cpu[cpu].remote_frees += pages;
	if (mag_count(&sim->mag[owner]) + t->count > sim->cpu[owner].parked_peak)
		sim->cpu[owner].parked_peak = mag_count(&sim->mag[owner]) + t->count;
	return true;
}

static struct list_head *sim_refill(struct sim *sim, unsigned int cpu,
				    unsigned int order, bool cold)
{
	struct pcpcache_mag *mag = &sim->mag[cpu];
	struct pcpcache_list *list = mag_list(mag, cold);
	struct sim_cpu *c = &sim->cpu[cpu];
	struct list_head *mine, *node;
	unsigned int batch, nr;
	struct pcpcache_cut cut;
	LIST_HEAD(pages);

	batch = mag_batch(list->batch, order);
	if (list == &mag->lists[PCPCACHE_LIST_HOT])
		mag_high_grow(mag);
	if (sim->s->design == SIM_BLOCKS && !order) {
		/* pcpcache_blocks_refill(): at home first, then a new block */
		nr = reserve_take(sim, &sim->reserve[cpu], batch, &pages);
		if (nr < batch)
			nr += block_new(sim, cpu, batch - nr, &pages);
		if (!nr)
			return NULL;
	} else {
		for (nr = 0; nr < batch; nr++) {
			node = pool_get(&sim->pool);
			if (!node)
				break;
			((struct blk *)node)->block = NULL;
			list_add_tail(node, &pages);
		}
		if (nr < batch) {
			sim->nomem = true;
			return NULL;
		}
		c->buddy_alloc += batch << order;
	}
	c->refill++;
	c->refill_pages += nr << order;
	list_for_each(node, &pages)
		*owner_of(node) = cpu;
	mine = pages.next;
	list_del(mine);
	nr--;
	if (nr) {
		mag_cut_init(&cut);
		mag_add_refill(list, order, &pages, nr);
		mag_trim_refill(&sim->mag[cpu], list, &cut, PCPCACHE_MAX_BATCH -
				(nr < PCPCACHE_MAX_BATCH ? nr : PCPCACHE_MAX_BATCH));
		give_back(sim, cpu, &cut);
	}
	return mine;
}

static bool cached_order(const struct sim *sim, unsigned int order)
{
	return sim->s->design != SIM_PASSTHROUGH && order <= sim->s->max_order;
}

static void sim_alloc(struct sim *sim, const struct pcp_trace_event *e,
		      uint32_t slot)
{
	unsigned int order = pcp_ev_order(e), pages = 1U << order;
	struct sim_cpu *c = &sim->cpu[e->cpu];
	struct list_head *node = NULL;

	c->allocs++;
	if (routes_frees(sim) && order < PCPCACHE_NR_ORDERS)
		sim_absorb(sim, e->cpu);
	if (cached_order(sim, order))
		node = mag_take(&sim->mag[e->cpu], order, pcp_ev_cold(e));
	/* core.c's pcpcache_barn_exchanged(), then the take again */
	if (!node && barn(sim) && cached_order(sim, order)) {
		enum mag_barn_done done = mag_barn_refill(&sim->mag[e->cpu],
							  sim->depot, order);

		barn_count(c, done);
		if (done != MAG_BARN_NONE)
			node = mag_take(&sim->mag[e->cpu], order, pcp_ev_cold(e));
	}
	if (node) {
		c->hits++;
		c->alloc_hit += pages;
	} else {
		c->alloc_miss += pages;
		if (cached_order(sim, order)) {
			node = sim_refill(sim, e->cpu, order, pcp_ev_cold(e));
		} else {
			c->buddy_alloc += pages;
			c->direct++;
			node = pool_get(&sim->pool);
			if (node) {
				*owner_of(node) = e->cpu;
				((struct blk *)node)->block = NULL;
			}
		}
		if (!node)
			sim->nomem = true;
	}
	/* as replayed: orders above the cached ones are never replayed */
	if (!sim->s->as_replayed || order >= PCPCACHE_NR_ORDERS) {
		sim->held[slot] = node;
	} else if (node) {
		sim->alloc_cpu[slot] = e->cpu;
		list_add(node, &sim->user[e->cpu * PCPCACHE_NR_ORDERS + order]);
	}
}

/*
 * The block a free releases: the trace's own, or as replayed, the newest
 * one of its order that the allocating CPU's user file holds.
 */
static struct list_head *sim_freed(struct sim *sim, unsigned int order,
				   uint32_t slot)
{
	struct list_head *node = sim->held[slot], *user;

	if (!sim->s->as_replayed || order >= PCPCACHE_NR_ORDERS) {
		sim->held[slot] = NULL;
		return node;
	}
	user = &sim->user[sim->alloc_cpu[slot] * PCPCACHE_NR_ORDERS + order];
	if (list_empty(user))
		return NULL;
	node = user->next;
	list_del(node);
	return node;
}

static void sim_free(struct sim *sim, const struct pcp_trace_event *e,
		     uint32_t slot)
{
	unsigned int order = pcp_ev_order(e);
	struct pcpcache_mag *mag = &sim->mag[e->cpu];
	struct sim_cpu *c = &sim->cpu[e->cpu];
	struct list_head *node = sim_freed(sim, order, slot);
	struct pcpcache_list *list;
	struct pcpcache_cut cut;

	c->frees++;
	if (!node)
		return;
	if (!cached_order(sim, order)) {
		c->buddy_free += 1U << order;
		c->direct++;
		to_buddy(sim, node);
		return;
	}
	if (sim_send_home(sim, e->cpu, node, order))
		return;
	*owner_of(node) = e->cpu;
	list = mag_put(mag, node, order, pcp_ev_cold(e));
	if (mag_over_high(list)) {
		mag_cut_init(&cut);
		/* core.c's pcpcache_trim_local(): in barn mode, an exchange */
		if (barn(sim))
			barn_count(c, mag_barn_overflow(mag, sim->depot, order, &cut));
		else
			mag_trim(list, order, &cut);
		give_back(sim, e->cpu, &cut);
	}
}

/*
 * barn.c's trim work: what the barn did not need since the last trim goes
 * back, counted on CPU 0 (the module's on the CPU the work ran on).
 */
static void sim_barn_trim(struct sim *sim)
{
	struct pcpcache_cut cut;

	sim->parked -= barn_pages(sim);
	mag_cut_init(&cut);
	sim->cpu[0].barn_trimmed += mag_depot_trim(sim->depot, &cut);
	give_back(sim, 0, &cut);
	sim->parked += barn_pages(sim);
}

/* request.c's decay work on every CPU: decay, then trim to the new high. */
static void sim_tick(struct sim *sim, unsigned int nr_cpus)
{
	struct pcpcache_cut cut;
	unsigned int cpu;

	/* pages a trim sends home are parked still: at home */
	sim->parked -= sim->at_home;
	for (cpu = 0; cpu < nr_cpus; cpu++) {
		sim->parked -= mag_count(&sim->mag[cpu]);
		mag_high_decay(&sim->mag[cpu]);
		mag_cut_init(&cut);
		while (mag_trim_excess(&sim->mag[cpu], &cut, PCPCACHE_MAX_BATCH))
			give_back(sim, cpu, &cut);
		sim->parked += mag_count(&sim->mag[cpu]);
	}
	sim->parked += sim->at_home;
}

/* The totals, rates and means of @r's CPUs; @parked_sum over the events. */
void sim_result_finish(struct sim_result *r, double parked_sum)
{
	unsigned int cpu;
	struct sim_cpu *t = &r->total;
	uint64_t peak = t->parked_peak;

	memset(t, 0, sizeof(*t));
	t->parked_peak = peak;
	for (cpu = 0; cpu < r->nr_cpus; cpu++) {
		const struct sim_cpu *c = &r->cpu[cpu];

		t->allocs += c->allocs;
		t->frees += c->frees;
		t->hits += c->hits;
		t->alloc_hit += c->alloc_hit;
		t->alloc_miss += c->alloc_miss;
		t->refill += c->refill;
		t->refill_pages += c->refill_pages;
		t->drain += c->drain;
		t->drain_pages += c->drain_pages;
		t->buddy_alloc += c->buddy_alloc;
		t->buddy_free += c->buddy_free;
		t->direct += c->direct;
		t->remote_frees += c->remote_frees;
		t->remote_absorbed += c->remote_absorbed;
		t->remote_overflow += c->remote_overflow;
		t->block_refills += c->block_refills;
		t->block_whole += c->block_whole;
		t->block_whole_pages += c->block_whole_pages;
		t->block_pieces += c->block_pieces;
		t->barn_swaps += c->barn_swaps;
		t->barn_took_full += c->barn_took_full;
		t->barn_gave_full += c->barn_gave_full;
		t->barn_flushes += c->barn_flushes;
		t->barn_trimmed += c->barn_trimmed;
		if (c->parked_peak > r->parked_peak_cpu)
			r->parked_peak_cpu = c->parked_peak;
	}
	r->ops = t->allocs + t->frees;
	r->hit_rate = t->allocs ? (double)t->hits / t->allocs : 0;
	r->trips_per_k = r->ops ? 1000.0 * (t->refill + t->drain + t->direct) / r->ops : 0;
	r->parked_mean = r->ops ? parked_sum / r->ops : 0;
}

static int run_module_design(const struct pcp_trace *t, const struct sim_setting *s,
			     struct sim_result *r)
{
	struct pcpcache_config cfg = s->cfg;
	struct sim sim = { .s = s, .cpu = r->cpu };
	unsigned int cpu, n = t->h.nr_cpus, k;
	size_t slots = t->nr_slots ? t->nr_slots : 1;
	struct sblock *b, *next;
	uint64_t before, after;
	uint64_t i, now = 0, next_tick = SIM_DECAY_USECS;
	uint64_t next_trim = SIM_BARN_TRIM_USECS;
	bool ticking = s->cfg.high_auto;
	double parked_sum = 0;
	int err = 0;

	cfg.mode = (enum pcpcache_mode)s->design;
	sim.nr_cpus = n;
	sim.mag = calloc(n, sizeof(*sim.mag));
	sim.transit = calloc(n, sizeof(*sim.transit));
	sim.held = calloc(slots, sizeof(*sim.held));
	sim.reserve = calloc(n, sizeof(*sim.reserve));
	sim.alloc_cpu = calloc(slots, sizeof(*sim.alloc_cpu));
	sim.user = calloc(n * PCPCACHE_NR_ORDERS, sizeof(*sim.user));
	if (s->design == SIM_BARN)
		sim.depot = malloc(sizeof(*sim.depot));
	INIT_LIST_HEAD(&sim.blocks);
	if (!sim.mag || !sim.transit || !sim.held || !sim.reserve ||
	    !sim.alloc_cpu || !sim.user || (s->design == SIM_BARN && !sim.depot)) {
		err = -1;
		goto out;
	}
	if (sim.depot)
		mag_depot_init(sim.depot, &cfg);
	for (cpu = 0; cpu < n; cpu++) {
		mag_init(&sim.mag[cpu], &cfg);
		mag_cut_init(&sim.transit[cpu]);
		INIT_LIST_HEAD(&sim.reserve[cpu].home);
		INIT_LIST_HEAD(&sim.reserve[cpu].whole);
		INIT_LIST_HEAD(&sim.reserve[cpu].out);
		for (k = 0; k < PCPCACHE_NR_ORDERS; k++)
			INIT_LIST_HEAD(&sim.user[cpu * PCPCACHE_NR_ORDERS + k]);
	}
	for (i = 0; i < t->h.nr_events && !sim.nomem; i++) {
		const struct pcp_trace_event *e = &t->ev[i];

		now += e->usecs;
		/*
		 * request.c's decay work; in barn mode, whose magazines are
		 * not auto-tuned, it runs once and is not armed again
		 */
		for (; ticking && now >= next_tick; next_tick += SIM_DECAY_USECS) {
			sim_tick(&sim, n);
			ticking = s->design != SIM_BARN;
		}
		if (sim.depot && !s->no_barn_trim) {
			for (; now >= next_trim; next_trim += SIM_BARN_TRIM_USECS)
				sim_barn_trim(&sim);
		}
		if (e->op != PCP_EV_ALLOC && e->op != PCP_EV_FREE)
			continue;
		before = mag_count(&sim.mag[e->cpu]) + sim.in_transit + sim.at_home +
			 barn_pages(&sim);
		if (e->op == PCP_EV_ALLOC)
			sim_alloc(&sim, e, t->slot[i]);
		else
			sim_free(&sim, e, t->slot[i]);
		after = mag_count(&sim.mag[e->cpu]) + sim.in_transit + sim.at_home +
			barn_pages(&sim);
		if (barn_pages(&sim) > r->barn_peak)
			r->barn_peak = barn_pages(&sim);
		sim.parked = sim.parked + after - before;
		after = mag_count(&sim.mag[e->cpu]) + sim.transit[e->cpu].count +
			sim.reserve[e->cpu].pages;
		if (after > r->cpu[e->cpu].parked_peak)
			r->cpu[e->cpu].parked_peak = after;
		if (sim.parked > r->total.parked_peak)
			r->total.parked_peak = sim.parked;
		parked_sum += sim.parked;
	}
	if (sim.nomem)
		err = -1;
	sim_result_finish(r, parked_sum);
out:
	free(sim.mag);
	free(sim.transit);
	free(sim.held);
	free(sim.reserve);
	free(sim.alloc_cpu);
	free(sim.user);
	free(sim.depot);
	list_for_each_entry_safe(b, next, &sim.blocks, all)
		free(b);
	pool_release(&sim.pool);
	return err;
}

static int run_kernel_model(const struct pcp_trace *t, struct sim_result *r)
{
	struct kmodel_zone zones[PCP_TRACE_MAX_ZONES];
	unsigned int z, cpu, nz = t->h.nr_zones;
	const struct kmodel_cpu_result *k;
	struct kmodel *m;
	uint64_t i;
	double parked_sum = 0;
	int err;

	if (!nz)
		return -1;
	for (z = 0; z < nz; z++) {
		memset(&zones[z], 0, sizeof(zones[z]));
		snprintf(zones[z].name, sizeof(zones[z].name), "%s", t->zones[z].name);
		zones[z].start_pfn = t->zones[z].start_pfn;
		zones[z].end_pfn = t->zones[z].end_pfn;
		zones[z].high = t->zones[z].high;
		/* a zone without pages has the boot pageset's batch of 1 */
		zones[z].batch = t->zones[z].batch ? t->zones[z].batch : 1;
	}
	m = kmodel_new(t->h.nr_cpus, zones, nz);
	if (!m)
		return -1;
	/*
	 * The counts the recording began with say how many pages, not of
	 * which type and order. Where record --empty-lists emptied the lists
	 * first they are the few refilled since, and counting them (on the
	 * movable order-0 list) brings the model's pcp->count, and so its
	 * drains, in step with the kernel's. Otherwise the lists start empty:
	 * thousands of pages of unknown types, all put on one list, made every
	 * standard workload's prediction worse
	 * (Documentation/mm/pcpcache-replay.rst).
	 */
	if (t->h.flags & PCP_TRACE_LISTS_EMPTIED)
		for (cpu = 0; cpu < t->h.nr_cpus; cpu++)
			for (z = 0; z < nz; z++)
				kmodel_set_count(m, cpu, z, t->counts[cpu * nz + z]);
	for (i = 0; i < t->h.nr_events; i++) {
		const struct pcp_trace_event *e = &t->ev[i];

		err = 0;
		if (e->op == PCP_EV_ALLOC)
			err = kmodel_alloc(m, e->cpu, e->pfn, pcp_ev_order(e), pcp_ev_mt(e));
		else if (e->op == PCP_EV_FREE)
			err = kmodel_free(m, e->cpu, e->pfn, pcp_ev_order(e), pcp_ev_mt(e));
		else if (e->op == PCP_EV_KFREE)
			err = kmodel_kfree(m, e->cpu, e->pfn, pcp_ev_order(e), pcp_ev_mt(e));
		else
			continue;
		if (err) {
			r->skipped++;
			continue;
		}
		parked_sum += kmodel_parked(m);
		if (kmodel_parked(m) > r->total.parked_peak)
			r->total.parked_peak = kmodel_parked(m);
	}
	for (cpu = 0; cpu < t->h.nr_cpus; cpu++) {
		k = kmodel_cpu(m, cpu);
		r->cpu[cpu].allocs = k->allocs;
		/* per 1000 of the operations the designs see: not the kfrees */
		r->cpu[cpu].frees = k->frees;
		r->cpu[cpu].hits = k->hits;
		r->cpu[cpu].refill = k->refills;
		r->cpu[cpu].refill_pages = k->refill_pages;
		r->cpu[cpu].drain = k->drains;
		r->cpu[cpu].drain_pages = k->drain_pages;
		r->cpu[cpu].buddy_alloc = k->refill_pages;
		r->cpu[cpu].buddy_free = k->drain_pages;
		r->cpu[cpu].parked_peak = k->parked_peak;
	}
	kmodel_destroy(m);
	sim_result_finish(r, parked_sum);
	return 0;
}

int sim_run(const struct pcp_trace *t, const struct sim_setting *s,
	    struct sim_result *r)
{
	memset(r, 0, sizeof(*r));
	r->nr_cpus = t->h.nr_cpus;
	r->cpu = calloc(r->nr_cpus, sizeof(*r->cpu));
	if (!r->cpu)
		return -1;
	if (s->design == SIM_KERNEL)
		return run_kernel_model(t, r);
	return run_module_design(t, s, r);
}

void sim_result_release(struct sim_result *r)
{
	free(r->cpu);
	r->cpu = NULL;
}

/* a design for every mode, and replay's mode is its design */
_Static_assert((int)SIM_KERNEL == (int)PCPCACHE_NR_MODES, "a design per mode");

const char *sim_design_name(enum sim_design d)
{
	return d == SIM_KERNEL ? "kernel" : pcpcache_mode_name((enum pcpcache_mode)d);
}

void sim_label(const struct sim_setting *s, char *buf, size_t size)
{
	const struct pcpcache_config *c = &s->cfg;

	switch (s->design) {
	case SIM_PASSTHROUGH:
	case SIM_KERNEL:
		snprintf(buf, size, "%s", sim_design_name(s->design));
		break;
	case SIM_BARN:
		/* high is not used: a magazine holds batch pages */
		snprintf(buf, size, "%s batch=%u barn_full=%u",
			 sim_design_name(s->design), c->batch, c->barn_full);
		break;
	default:
		if (c->high_auto)
			snprintf(buf, size, "%s batch=%u high=auto(%u-%u)",
				 sim_design_name(s->design), c->batch, c->high_min,
				 c->high_max);
		else
			snprintf(buf, size, "%s batch=%u high=%u",
				 sim_design_name(s->design), c->batch, c->high);
	}
	if (s->max_order < PCP_TRACE_MAX_ORDER && s->design != SIM_KERNEL &&
	    s->design != SIM_PASSTHROUGH) {
		size_t len = strlen(buf);

		snprintf(buf + len, size - len, " orders=0-%u", s->max_order);
	}
	if (s->design == SIM_BLOCKS && s->block_hold != SIM_BLOCK_HOLD) {
		size_t len = strlen(buf);

		snprintf(buf + len, size - len, " block_hold=%u", s->block_hold);
	}
}
