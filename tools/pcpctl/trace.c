// SPDX-License-Identifier: GPL-2.0
/*
 * pcpctl's page allocation traces (trace.h): building one from the kernel's
 * trace lines, checking one, writing and reading the file and its text.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace.h"

char pcp_trace_error[256];

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(pcp_trace_error, sizeof(pcp_trace_error), fmt, ap);
	va_end(ap);
	return -1;
}

static const char * const op_names[PCP_EV_NR_OPS] = {
	[PCP_EV_ALLOC] = "alloc",
	[PCP_EV_FREE] = "free",
	[PCP_EV_KREFILL] = "krefill",
	[PCP_EV_KDRAIN] = "kdrain",
	[PCP_EV_KFREE] = "kfree",
};

const char *pcp_trace_op_name(unsigned int op)
{
	return op && op < PCP_EV_NR_OPS ? op_names[op] : "?";
}

/*
 * A table of pages by pfn: linear probing, deletion by shifting back, so
 * that it never fills with tombstones however long the recording.
 */
struct page_entry {
	uint64_t pfn;		/* + 1: 0 is an empty entry */
	uint32_t slot;
	uint8_t order, mt, live;
};

struct page_table {
	struct page_entry *e;
	size_t size, used;	/* size: a power of two */
};

static size_t pt_hash(uint64_t pfn, size_t size)
{
	return (size_t)((pfn * 0x9e3779b97f4a7c15ULL) >> 17) & (size - 1);
}

static struct page_entry *pt_find(struct page_table *t, uint64_t pfn)
{
	size_t i;

	if (!t->size)
		return NULL;
	for (i = pt_hash(pfn, t->size); t->e[i].pfn; i = (i + 1) & (t->size - 1))
		if (t->e[i].pfn == pfn + 1)
			return &t->e[i];
	return NULL;
}

static int pt_grow(struct page_table *t)
{
	struct page_table n = { .size = t->size ? 2 * t->size : 1024 };
	size_t i, j;

	n.e = calloc(n.size, sizeof(*n.e));
	if (!n.e)
		return fail("out of memory for a table of %zu pages", n.size);
	for (i = 0; i < t->size; i++) {
		if (!t->e[i].pfn)
			continue;
		for (j = pt_hash(t->e[i].pfn - 1, n.size); n.e[j].pfn;
		     j = (j + 1) & (n.size - 1))
			;
		n.e[j] = t->e[i];
	}
	n.used = t->used;
	free(t->e);
	*t = n;
	return 0;
}

static struct page_entry *pt_insert(struct page_table *t, uint64_t pfn)
{
	size_t i;

	if (2 * (t->used + 1) > t->size && pt_grow(t))
		return NULL;
	for (i = pt_hash(pfn, t->size); t->e[i].pfn; i = (i + 1) & (t->size - 1))
		;
	memset(&t->e[i], 0, sizeof(t->e[i]));
	t->e[i].pfn = pfn + 1;
	t->used++;
	return &t->e[i];
}

static void pt_delete(struct page_table *t, struct page_entry *del)
{
	size_t i = del - t->e, j = i, want;

	t->e[i].pfn = 0;
	t->used--;
	for (;;) {
		j = (j + 1) & (t->size - 1);
		if (!t->e[j].pfn)
			return;
		want = pt_hash(t->e[j].pfn - 1, t->size);
		/* leave it unless its home is cyclically outside (i, j] */
		if (i <= j ? (i < want && want <= j) : (i < want || want <= j))
			continue;
		t->e[i] = t->e[j];
		t->e[j].pfn = 0;
		i = j;
	}
}

static void pt_release(struct page_table *t)
{
	free(t->e);
	memset(t, 0, sizeof(*t));
}

struct pcp_trace_writer {
	struct pcp_trace_header h;
	struct pcp_trace_zone zones[PCP_TRACE_MAX_ZONES];
	uint32_t counts[PCP_TRACE_MAX_CPUS][PCP_TRACE_MAX_ZONES];
	struct pcp_trace_event *ev;
	size_t cap;
	uint64_t last_us;
	bool started;
	bool strict;		/* a dump: drop nothing, trace_check() judges */
	unsigned int in_version;	/* a dump's: the orders it may hold */
	bool stream_only;	/* the kernel's list events left out */
	uint64_t max_events;	/* a recording keeps no more: memory is bounded */
	uint64_t over;		/* events past max_events, counted as lost */
	struct page_table live;
	/*
	 * Pages refilled into the kernel's lists since the recording began
	 * and not since allocated or drained: one freed with no allocation
	 * was taken without an mm_page_alloc event (__alloc_pages_bulk(),
	 * vmalloc's), not before the recording.
	 */
	struct page_table refilled;
};

struct pcp_trace_writer *pcp_tw_new(void)
{
	struct pcp_trace_writer *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	memcpy(w->h.magic, PCP_TRACE_MAGIC, sizeof(w->h.magic));
	w->h.version = PCP_TRACE_VERSION;
	w->in_version = PCP_TRACE_VERSION;
	return w;
}

/* The zone's number, or -1 when there are too many. */
int pcp_tw_zone(struct pcp_trace_writer *w, const struct pcp_trace_zone *z)
{
	if (w->h.nr_zones == PCP_TRACE_MAX_ZONES)
		return -1;
	w->zones[w->h.nr_zones] = *z;
	return w->h.nr_zones++;
}

void pcp_tw_set_zone(struct pcp_trace_writer *w, unsigned int zone,
		     const struct pcp_trace_zone *z)
{
	if (zone < w->h.nr_zones)
		w->zones[zone] = *z;
}

void pcp_tw_max_events(struct pcp_trace_writer *w, uint64_t max)
{
	w->max_events = max;
}

uint64_t pcp_tw_over(const struct pcp_trace_writer *w)
{
	return w->over;
}

void pcp_tw_stream_only(struct pcp_trace_writer *w)
{
	w->stream_only = true;
}

void pcp_tw_set_flags(struct pcp_trace_writer *w, uint32_t flags)
{
	w->h.flags |= flags;
}

int pcp_tw_count(struct pcp_trace_writer *w, unsigned int cpu,
		 unsigned int zone, uint32_t count)
{
	if (cpu >= PCP_TRACE_MAX_CPUS || zone >= w->h.nr_zones)
		return fail("count of CPU %u, zone %u: no such CPU or zone", cpu, zone);
	w->counts[cpu][zone] = count;
	if (cpu >= w->h.nr_cpus)
		w->h.nr_cpus = cpu + 1;
	return 0;
}

void pcp_tw_lost(struct pcp_trace_writer *w, uint64_t nr)
{
	w->h.lost += nr;
}

const struct pcp_trace_header *pcp_tw_header(const struct pcp_trace_writer *w)
{
	return &w->h;
}

/* Zone @zone as given so far, or NULL. */
const struct pcp_trace_zone *pcp_tw_zone_of(const struct pcp_trace_writer *w,
					    unsigned int zone)
{
	return zone < w->h.nr_zones ? &w->zones[zone] : NULL;
}

/* CPU @cpu's count in zone @zone as given so far (0 if none). */
uint32_t pcp_tw_count_of(const struct pcp_trace_writer *w, unsigned int cpu,
			 unsigned int zone)
{
	if (cpu >= PCP_TRACE_MAX_CPUS || zone >= w->h.nr_zones)
		return 0;
	return w->counts[cpu][zone];
}

static int tw_append(struct pcp_trace_writer *w, const struct pcp_trace_event *e)
{
	struct pcp_trace_event *n;

	if (w->h.nr_events >= PCP_TRACE_MAX_EVENTS)
		return fail("more than %llu events", PCP_TRACE_MAX_EVENTS);
	if (w->h.nr_events == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 65536;
		n = realloc(w->ev, w->cap * sizeof(*n));
		if (!n)
			return fail("out of memory for %zu events", w->cap);
		w->ev = n;
	}
	w->ev[w->h.nr_events++] = *e;
	return 0;
}

int pcp_tw_event(struct pcp_trace_writer *w, uint64_t usecs, unsigned int cpu,
		 enum pcp_trace_op op, uint64_t pfn, unsigned int order,
		 unsigned int mt, bool cold)
{
	struct pcp_trace_event e = { .pfn = pfn, .cpu = cpu, .op = op };
	struct page_entry *p;
	uint64_t delta;

	if (cpu >= PCP_TRACE_MAX_CPUS)
		return fail("CPU %u: pcpctl traces at most %d CPUs", cpu,
			    PCP_TRACE_MAX_CPUS);
	if (!op || op >= PCP_EV_NR_OPS || mt > PCP_EV_MT_MASK >> PCP_EV_MT_SHIFT)
		return fail("an event of op %u, migratetype %u", op, mt);
	if (pfn == UINT64_MAX)
		return fail("pfn 0x%" PRIx64 ": no page has it", pfn);
	if (w->stream_only && op != PCP_EV_ALLOC && op != PCP_EV_FREE)
		return 0;
	/* full: the rest is lost, and said to be; what is kept stays consistent */
	if (w->max_events && w->h.nr_events >= w->max_events) {
		w->over++;
		w->h.lost++;
		return 0;
	}
	/* on no per-CPU list of 6.1's: orders 4 to 8, above 9 */
	if (!pcp_trace_order_ok(w->in_version, order)) {
		if (w->strict && w->in_version < 2)
			return fail("order %u: a version 1 trace holds orders 0 to %d",
				    order, PCP_TRACE_MAX_ORDER);
		if (w->strict)
			return fail("order %u: a trace holds orders 0 to %d and %d", order,
				    PCP_TRACE_MAX_ORDER, PCP_TRACE_THP_ORDER);
		w->h.beyond++;
		return 0;
	}
	if (op == PCP_EV_KFREE && w->in_version < 3)
		return fail("kfree: an operation of version 3");
	if (w->strict) {
		/* as given */
	} else if (op == PCP_EV_ALLOC) {
		p = pt_find(&w->refilled, pfn);
		if (p)
			pt_delete(&w->refilled, p);
		/* its free was not seen: keep the first allocation */
		if (pt_find(&w->live, pfn)) {
			w->h.unmatched++;
			return 0;
		}
		p = pt_insert(&w->live, pfn);
		if (!p)
			return -1;
		p->order = order;
		p->mt = mt;
	} else if (op == PCP_EV_FREE) {
		p = pt_find(&w->live, pfn);
		/*
		 * Allocated before the recording: no stream has its allocation,
		 * but the kernel's lists took it, and their model wants it. A
		 * page refilled during the recording was allocated in it, by
		 * the bulk allocator, unseen: its free is dropped as before.
		 */
		if (!p && !w->stream_only && !pt_find(&w->refilled, pfn)) {
			e.op = PCP_EV_KFREE;
			mt = PCP_TRACE_KFREE_MT;
			goto append;
		}
		/* allocated unseen, or as a larger block */
		if (!p || p->order != order) {
			/* the block is gone, whatever its pieces: forget it */
			if (p)
				pt_delete(&w->live, p);
			p = pt_find(&w->refilled, pfn);
			if (p)
				pt_delete(&w->refilled, p);
			w->h.unmatched++;
			return 0;
		}
		mt = p->mt;
		pt_delete(&w->live, p);
	} else {
		/* a recording made elsewhere had the kernel's list events on */
		w->h.flags |= PCP_TRACE_KERNEL_LISTS;
		p = pt_find(&w->refilled, pfn);
		if (op == PCP_EV_KREFILL && !p && !pt_insert(&w->refilled, pfn))
			return -1;
		if (op == PCP_EV_KDRAIN && p)
			pt_delete(&w->refilled, p);
	}
append:
	/* a recording's first event is its time 0; a dump's times are deltas */
	if (!w->started && !w->strict)
		w->last_us = usecs;
	w->started = true;
	delta = usecs > w->last_us ? usecs - w->last_us : 0;
	e.usecs = delta > UINT32_MAX ? UINT32_MAX : delta;
	w->last_us = usecs > w->last_us ? usecs : w->last_us;
	e.bits = pcp_ev_order_bits(order) | (cold ? PCP_EV_COLD : 0) |
		 mt << PCP_EV_MT_SHIFT;
	if (cpu >= w->h.nr_cpus)
		w->h.nr_cpus = cpu + 1;
	return tw_append(w, &e);
}

/*
 * Check @t, whose header, zones, counts and events are filled in, and
 * give each allocation and free its slot. Return: 0, or -1 with
 * pcp_trace_error saying what is wrong with it.
 */
static int trace_check(struct pcp_trace *t)
{
	const struct pcp_trace_header *h = &t->h;
	struct page_table pages = { 0 };
	uint32_t *free_slots = NULL, nr_free = 0;
	/* version 1 has no high bits of the order */
	unsigned int known = PCP_EV_ORDER_MASK | PCP_EV_COLD | PCP_EV_MT_MASK |
			     (h->version >= 2 ? PCP_EV_ORDER_HI_MASK : 0);
	struct page_entry *p;
	uint64_t i;
	unsigned int z;
	int err = -1;

	if (h->reserved)
		return fail("the header's reserved field is not 0");
	for (z = 0; z < h->nr_zones; z++) {
		if (!memchr(t->zones[z].name, '\0', sizeof(t->zones[z].name)))
			return fail("zone %u: its name is not terminated", z);
		if (t->zones[z].start_pfn >= t->zones[z].end_pfn)
			return fail("zone %s: pfns 0x%" PRIx64 "-0x%" PRIx64 " are no range",
				    t->zones[z].name, t->zones[z].start_pfn,
				    t->zones[z].end_pfn);
	}
	t->slot = malloc((h->nr_events ? h->nr_events : 1) * sizeof(*t->slot));
	free_slots = malloc((h->nr_events ? h->nr_events : 1) * sizeof(*free_slots));
	if (!t->slot || !free_slots) {
		fail("out of memory for %" PRIu64 " events", h->nr_events);
		goto out;
	}
	t->nr_slots = 0;
	t->nr_allocs = t->nr_frees = t->nr_thp = t->nr_kfrees = 0;
	for (i = 0; i < h->nr_events; i++) {
		const struct pcp_trace_event *e = &t->ev[i];

		t->slot[i] = UINT32_MAX;
		if (!e->op || e->op >= PCP_EV_NR_OPS) {
			fail("event %" PRIu64 ": no such operation %u", i + 1, e->op);
			goto out;
		}
		if (e->cpu >= h->nr_cpus) {
			fail("event %" PRIu64 ": CPU %u, of a trace of %u CPUs",
			     i + 1, e->cpu, h->nr_cpus);
			goto out;
		}
		if (e->pfn == UINT64_MAX) {
			fail("event %" PRIu64 ": pfn 0x%" PRIx64 ": no page has it", i + 1, e->pfn);
			goto out;
		}
		if (e->bits & ~known) {
			fail("event %" PRIu64 ": unknown bits 0x%x", i + 1, e->bits);
			goto out;
		}
		if (e->op == PCP_EV_KFREE && h->version < 3) {
			fail("event %" PRIu64 ": kfree, in a version %u trace", i + 1, h->version);
			goto out;
		}
		t->nr_kfrees += e->op == PCP_EV_KFREE;
		if (!pcp_trace_order_ok(h->version, pcp_ev_order(e))) {
			fail("event %" PRIu64 ": order %u: a trace holds orders 0 to %d and %d",
			     i + 1, pcp_ev_order(e), PCP_TRACE_MAX_ORDER, PCP_TRACE_THP_ORDER);
			goto out;
		}
		if ((e->op == PCP_EV_ALLOC || e->op == PCP_EV_FREE) &&
		    pcp_ev_order(e) == PCP_TRACE_THP_ORDER)
			t->nr_thp++;
		if (e->op == PCP_EV_ALLOC) {
			p = pt_find(&pages, e->pfn);
			if (p && p->live) {
				fail("event %" PRIu64 ": page 0x%" PRIx64 " allocated twice",
				     i + 1, e->pfn);
				goto out;
			}
			if (!p)
				p = pt_insert(&pages, e->pfn);
			if (!p)
				goto out;
			p->live = 1;
			p->order = pcp_ev_order(e);
			p->slot = nr_free ? free_slots[--nr_free] : t->nr_slots++;
			t->slot[i] = p->slot;
			t->nr_allocs++;
		} else if (e->op == PCP_EV_FREE) {
			p = pt_find(&pages, e->pfn);
			if (!p) {
				fail("event %" PRIu64 ": page 0x%" PRIx64 " freed with no allocation",
				     i + 1, e->pfn);
				goto out;
			}
			if (!p->live) {
				fail("event %" PRIu64 ": page 0x%" PRIx64 " freed twice",
				     i + 1, e->pfn);
				goto out;
			}
			if (p->order != pcp_ev_order(e)) {
				fail("event %" PRIu64 ": page 0x%" PRIx64 " freed at order %u, allocated at %u",
				     i + 1, e->pfn, pcp_ev_order(e), p->order);
				goto out;
			}
			p->live = 0;
			t->slot[i] = p->slot;
			free_slots[nr_free++] = p->slot;
			t->nr_frees++;
		}
	}
	err = 0;
out:
	pt_release(&pages);
	free(free_slots);
	return err;
}

int pcp_tw_finish(struct pcp_trace_writer *w, struct pcp_trace *t)
{
	unsigned int cpu, nz = w->h.nr_zones;

	memset(t, 0, sizeof(*t));
	if (!w->h.nr_cpus)
		w->h.nr_cpus = 1;
	t->h = w->h;
	memcpy(t->zones, w->zones, sizeof(t->zones));
	t->counts = calloc(t->h.nr_cpus * (nz ? nz : 1), sizeof(*t->counts));
	if (!t->counts)
		return fail("out of memory");
	for (cpu = 0; cpu < t->h.nr_cpus; cpu++)
		memcpy(&t->counts[cpu * nz], w->counts[cpu], nz * sizeof(uint32_t));
	/* the events move over */
	t->ev = w->ev;
	w->ev = NULL;
	w->cap = 0;
	if (trace_check(t)) {
		pcp_trace_release(t);
		return -1;
	}
	return 0;
}

void pcp_tw_destroy(struct pcp_trace_writer *w)
{
	if (!w)
		return;
	pt_release(&w->live);
	pt_release(&w->refilled);
	free(w->ev);
	free(w);
}

void pcp_trace_release(struct pcp_trace *t)
{
	free(t->counts);
	free(t->ev);
	free(t->slot);
	memset(t, 0, sizeof(*t));
}

/* "key=VALUE" in @s: VALUE, or NULL. */
static const char *field(const char *s, const char *key)
{
	size_t len = strlen(key);
	const char *p;

	for (p = s; (p = strstr(p, key)); p++)
		if ((p == s || p[-1] == ' ') && p[len] == '=')
			return p + len + 1;
	return NULL;
}

/* A number of field @key, decimal or 0x hex; -1 when absent or bad. */
static int field_num(const char *s, const char *key, uint64_t *val)
{
	const char *v = field(s, key);
	char *end;

	if (!v || !isxdigit((unsigned char)*v))
		return -1;
	errno = 0;
	*val = strtoull(v, &end, 0);
	if (errno || (*end && *end != ' ' && *end != '\n'))
		return -1;
	return 0;
}

enum pcp_line pcp_parse_kernel_line(struct pcp_trace_writer *w, char *line)
{
	uint64_t pfn, order, mt = 0, refill, cpu = 0, secs = 0, frac = 0, us;
	char *p, *q, *t, *name, *args, *end;
	enum pcp_trace_op op;
	const char *lost;
	int digits = 0;

	line[strcspn(line, "\r\n")] = '\0';
	for (p = line; *p == ' ' || *p == '\t'; p++)
		;
	if (!*p || *p == '#')
		return PCP_LINE_SKIPPED;
	/* trace_pipe's "CPU:1 [LOST 42 EVENTS]" */
	lost = strstr(p, "[LOST ");
	if (lost) {
		pcp_tw_lost(w, strtoull(lost + 6, NULL, 10));
		return PCP_LINE_SKIPPED;
	}
	/*
	 * The time first, "SECS.FRAC:" after a blank or a bracket: a task's
	 * name may hold anything, brackets too. The CPU is the last "[N]"
	 * before it.
	 */
	for (t = p; (t = strchr(t, ':')); t++) {
		for (q = t; q > p && isdigit((unsigned char)q[-1]); q--)
			;
		if (q == t || q == p || q[-1] != '.')
			continue;
		digits = t - q;
		frac = strtoull(q, NULL, 10);
		for (end = q - 1; end > p && isdigit((unsigned char)end[-1]); end--)
			;
		if (end == q - 1 || end == p || (end[-1] != ' ' && end[-1] != ']'))
			continue;
		secs = strtoull(end, NULL, 10);
		break;
	}
	if (!t) {
		fail("not a trace line (no time)");
		return PCP_LINE_BAD;
	}
	for (q = end; q > p && q[-1] != '['; q--)
		;
	cpu = PCP_TRACE_MAX_CPUS;
	for (; q > p; q--) {
		if (q[-1] != '[' || !isdigit((unsigned char)*q))
			continue;
		errno = 0;
		cpu = strtoull(q, &end, 10);
		if (*end == ']' && !errno)
			break;
		cpu = PCP_TRACE_MAX_CPUS;
	}
	if (q == p) {
		fail("not a trace line (no [CPU] before the time)");
		return PCP_LINE_BAD;
	}
	if (cpu >= PCP_TRACE_MAX_CPUS) {
		fail("CPU %" PRIu64 ": pcpctl traces at most %d CPUs", cpu, PCP_TRACE_MAX_CPUS);
		return PCP_LINE_BAD;
	}
	q = t;
	for (us = frac; digits > 6; digits--)
		us /= 10;
	for (; digits < 6; digits++)
		us *= 10;
	us += secs * 1000000;
	for (name = q + 1; *name == ' '; name++)
		;
	/* "kmem:mm_page_alloc: page=..." (perf) or "mm_page_alloc: page=..." */
	args = strstr(name, ": ");
	if (!args && name[0] && name[strlen(name) - 1] == ':')
		args = name + strlen(name) - 1;
	if (!args) {
		fail("not a trace line (no event)");
		return PCP_LINE_BAD;
	}
	*args++ = '\0';
	if (!strncmp(name, "kmem:", 5))
		name += 5;
	if (!strcmp(name, "mm_page_alloc")) {
		op = PCP_EV_ALLOC;
	} else if (!strcmp(name, "mm_page_free")) {
		op = PCP_EV_FREE;
	} else if (!strcmp(name, "mm_page_free_batched")) {
		/* free_pages_prepare() gave the same page its mm_page_free */
		return PCP_LINE_SKIPPED;
	} else if (!strcmp(name, "mm_page_alloc_zone_locked")) {
		op = PCP_EV_KREFILL;
	} else if (!strcmp(name, "mm_page_pcpu_drain")) {
		op = PCP_EV_KDRAIN;
	} else {
		fail("'%.48s' is not one of the kmem page events pcpctl records", name);
		return PCP_LINE_BAD;
	}
	if (field_num(args, "pfn", &pfn) || field_num(args, "order", &order) ||
	    (op != PCP_EV_FREE && field_num(args, "migratetype", &mt))) {
		fail("%s: no pfn, order or migratetype", name);
		return PCP_LINE_BAD;
	}
	/* a failed allocation: no page */
	if (op == PCP_EV_ALLOC && (pfn == 0 || pfn == UINT64_MAX))
		return PCP_LINE_SKIPPED;
	/* the buddy allocator's own: not for the per-CPU lists */
	if (op == PCP_EV_KREFILL &&
	    (field_num(args, "percpu_refill", &refill) || !refill))
		return PCP_LINE_SKIPPED;
	if (order > 64 || mt > 7) {
		fail("%s: order %" PRIu64 ", migratetype %" PRIu64 ": out of range",
		     name, order, mt);
		return PCP_LINE_BAD;
	}
	if (pcp_tw_event(w, us, cpu, op, pfn, order, mt, false))
		return PCP_LINE_BAD;
	return PCP_LINE_EVENT;
}

int pcp_trace_dump(const struct pcp_trace *t, FILE *f)
{
	const struct pcp_trace_header *h = &t->h;
	unsigned int z, cpu;
	uint64_t i;

	fprintf(f, "# pcptrace %u\n", h->version);
	fprintf(f, "# cpus %u\n# lost %" PRIu64 "\n# unmatched %" PRIu64 "\n# beyond %" PRIu64 "\n# flags %u\n",
		h->nr_cpus, h->lost, h->unmatched, h->beyond, h->flags);
	for (z = 0; z < h->nr_zones; z++)
		fprintf(f, "# zone %s 0x%" PRIx64 " 0x%" PRIx64 " %u %u\n",
			t->zones[z].name, t->zones[z].start_pfn,
			t->zones[z].end_pfn, t->zones[z].high, t->zones[z].batch);
	for (cpu = 0; cpu < h->nr_cpus; cpu++)
		for (z = 0; z < h->nr_zones; z++)
			if (t->counts[cpu * h->nr_zones + z])
				fprintf(f, "# count %u %u %u\n", cpu, z,
					t->counts[cpu * h->nr_zones + z]);
	fprintf(f, "# usecs cpu op pfn order migratetype [cold]\n");
	for (i = 0; i < h->nr_events; i++) {
		const struct pcp_trace_event *e = &t->ev[i];

		fprintf(f, "%u %u %s 0x%" PRIx64 " %u %u%s\n", e->usecs, e->cpu,
			pcp_trace_op_name(e->op), e->pfn, pcp_ev_order(e),
			pcp_ev_mt(e), pcp_ev_cold(e) ? " cold" : "");
	}
	return ferror(f) ? -1 : 0;
}

/* A whole unsigned number of the text: decimal, or hex after 0x. */
static int text_num(const char *s, uint64_t max, uint64_t *val)
{
	char *end;

	bool hex = s && s[0] == '0' && s[1] == 'x';

	if (!s || !isdigit((unsigned char)*s) || (hex && !isxdigit((unsigned char)s[2])))
		return -1;
	errno = 0;
	/* never octal: "010" is ten */
	*val = strtoull(hex ? s + 2 : s, &end, hex ? 16 : 10);
	return errno || *end || *val > max ? -1 : 0;
}

/* A "# KEY ..." line of the dump's header into @w; 1 if not a key. */
static int text_header(struct pcp_trace_writer *w, char **tok, int n,
		       bool cpus_declared)
{
	struct pcp_trace_header *h = &w->h;
	struct pcp_trace_zone z = { 0 };
	uint64_t v[4];

	if (!strcmp(tok[0], "pcptrace"))
		return fail("a second pcptrace line");
	if (!strcmp(tok[0], "cpus") && n == 2 && !text_num(tok[1], PCP_TRACE_MAX_CPUS, v) && *v) {
		if (h->nr_events || h->nr_cpus > *v)
			return fail("'# cpus' after an event or a count of a higher CPU");
		h->nr_cpus = *v;
		return 0;
	}
	if (!strcmp(tok[0], "lost") && n == 2 && !text_num(tok[1], UINT64_MAX, v)) {
		h->lost = *v;
		return 0;
	}
	if (!strcmp(tok[0], "unmatched") && n == 2 && !text_num(tok[1], UINT64_MAX, v)) {
		h->unmatched = *v;
		return 0;
	}
	if (!strcmp(tok[0], "beyond") && n == 2 && !text_num(tok[1], UINT64_MAX, v)) {
		h->beyond = *v;
		return 0;
	}
	if (!strcmp(tok[0], "flags") && n == 2 && !text_num(tok[1], PCP_TRACE_FLAGS, v)) {
		h->flags = *v;
		return 0;
	}
	if (!strcmp(tok[0], "zone") && n == 6 && strlen(tok[1]) < sizeof(z.name) &&
	    !text_num(tok[2], UINT64_MAX, &v[0]) && !text_num(tok[3], UINT64_MAX, &v[1]) &&
	    !text_num(tok[4], UINT32_MAX, &v[2]) && !text_num(tok[5], UINT32_MAX, &v[3])) {
		if (h->nr_zones == PCP_TRACE_MAX_ZONES)
			return fail("more than %d zones", PCP_TRACE_MAX_ZONES);
		strcpy(z.name, tok[1]);
		z.start_pfn = v[0];
		z.end_pfn = v[1];
		z.high = v[2];
		z.batch = v[3];
		return pcp_tw_zone(w, &z) < 0 ? -1 : 0;
	}
	if (!strcmp(tok[0], "count") && n == 4 &&
	    !text_num(tok[1], PCP_TRACE_MAX_CPUS - 1, &v[0]) &&
	    !text_num(tok[2], PCP_TRACE_MAX_ZONES - 1, &v[1]) &&
	    !text_num(tok[3], UINT32_MAX, &v[2])) {
		if (cpus_declared && v[0] >= h->nr_cpus)
			return fail("a count of CPU %" PRIu64 ", of a trace of %u CPUs",
				    v[0], h->nr_cpus);
		return pcp_tw_count(w, v[0], v[1], v[2]);
	}
	if (!strcmp(tok[0], "usecs"))
		return 0;
	return fail("'# %.32s': not a header line of a pcptrace dump", tok[0]);
}

/*
 * The dump written by pcp_trace_dump(), or by hand, read strictly: it is
 * pcpctl's own format, so anything a dump cannot hold is an error, with
 * nothing kept. Its events must be consistent as they stand.
 */
int pcp_trace_read_text(FILE *f, const char *name, struct pcp_trace *t)
{
	struct pcp_trace_writer *w = pcp_tw_new();
	char *line = NULL, *tok[9], *save;
	size_t cap = 0, lineno = 0;
	uint64_t v[5], now = 0;
	uint32_t declared, declared_cpus = 0;
	int n, err = -1;
	bool head = false;
	ssize_t len;

	if (!w)
		return fail("out of memory");
	w->strict = true;
	while ((len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (strlen(line) != (size_t)len) {
			fail("%s line %zu: a NUL byte", name, lineno);
			goto out;
		}
		n = 0;
		for (tok[n] = strtok_r(line, " \t", &save); tok[n] && n < 8;
		     tok[++n] = strtok_r(NULL, " \t", &save))
			;
		if (!n)
			continue;
		if (!head) {
			if (n != 3 || strcmp(tok[0], "#") || strcmp(tok[1], "pcptrace")) {
				fail("%s line %zu: not a pcptrace dump (no '# pcptrace VERSION' line first)",
				     name, lineno);
				goto out;
			}
			if (text_num(tok[2], UINT32_MAX, v) || *v < PCP_TRACE_VERSION_MIN ||
			    *v > PCP_TRACE_VERSION) {
				fail("%s: pcptrace version %.16s; this pcpctl reads versions %d to %d",
				     name, tok[2], PCP_TRACE_VERSION_MIN, PCP_TRACE_VERSION);
				goto out;
			}
			/* the trace is of this version; the dump's says its orders */
			w->in_version = *v;
			head = true;
			continue;
		}
		if (!strcmp(tok[0], "#")) {
			if (n < 2) {
				fail("an empty '#' line");
				goto line_error;
			}
			if (text_header(w, tok + 1, n - 1, declared_cpus))
				goto line_error;
			if (!strcmp(tok[1], "cpus"))
				declared_cpus = w->h.nr_cpus;
			continue;
		}
		if (n < 6 || n > 7 || (n == 7 && strcmp(tok[6], "cold")) ||
		    text_num(tok[0], UINT32_MAX, &v[0]) ||
		    text_num(tok[1], PCP_TRACE_MAX_CPUS - 1, &v[1]) ||
		    text_num(tok[3], UINT64_MAX, &v[2]) ||
		    text_num(tok[4], 63, &v[3]) || text_num(tok[5], 7, &v[4])) {
			fail("not 'USECS CPU OP PFN ORDER MIGRATETYPE [cold]'");
			goto line_error;
		}
		for (declared = 1; declared < PCP_EV_NR_OPS; declared++)
			if (!strcmp(tok[2], op_names[declared]))
				break;
		if (declared == PCP_EV_NR_OPS) {
			fail("'%.16s' is no operation: alloc, free, krefill, kdrain or kfree", tok[2]);
			goto line_error;
		}
		if (declared_cpus && v[1] >= declared_cpus) {
			fail("CPU %" PRIu64 ", of a trace of %u CPUs", v[1], declared_cpus);
			goto line_error;
		}
		now += v[0];
		if (pcp_tw_event(w, now, v[1], declared, v[2], v[3], v[4], n == 7))
			goto line_error;
		continue;
line_error:
		{
			char why[sizeof(pcp_trace_error)];

			snprintf(why, sizeof(why), "%s", pcp_trace_error);
			fail("%s line %zu: %s", name, lineno, why);
		}
		goto out;
	}
	if (ferror(f)) {
		fail("%s: %s", name, strerror(errno));
		goto out;
	}
	if (!head) {
		fail("%s: empty, not a pcptrace dump", name);
		goto out;
	}
	err = 0;
out:
	free(line);
	if (!err) {
		/* the events as they are: trace_check() has the last word */
		err = pcp_tw_finish(w, t);
		if (err) {
			char why[sizeof(pcp_trace_error)];

			snprintf(why, sizeof(why), "%s", pcp_trace_error);
			fail("%s: %s", name, why);
		}
	}
	pcp_tw_destroy(w);
	return err;
}

/* The file's layout: the structs as they are, on a little-endian host. */
_Static_assert(sizeof(struct pcp_trace_header) == 64, "header layout");
_Static_assert(sizeof(struct pcp_trace_zone) == 40, "zone layout");
_Static_assert(sizeof(struct pcp_trace_event) == 16, "event layout");

static size_t counts_size(const struct pcp_trace_header *h)
{
	return (size_t)h->nr_cpus * h->nr_zones * sizeof(uint32_t);
}

/* Written beside @path and renamed over it: a reader never sees half. */
int pcp_trace_write(const struct pcp_trace *t, const char *path)
{
	const struct pcp_trace_header *h = &t->h;
	char *tmp = NULL;
	FILE *f;
	int err;

	if (asprintf(&tmp, "%s.tmp-%d", path, (int)getpid()) < 0)
		return fail("out of memory");
	f = fopen(tmp, "wx");
	if (!f) {
		err = fail("%s: %s", tmp, strerror(errno));
		free(tmp);
		return err;
	}
	fwrite(h, sizeof(*h), 1, f);
	fwrite(t->zones, sizeof(t->zones[0]), h->nr_zones, f);
	fwrite(t->counts, 1, counts_size(h), f);
	fwrite(t->ev, sizeof(*t->ev), h->nr_events, f);
	if (ferror(f) | fclose(f)) {
		err = fail("%s: %s", path, strerror(errno));
		unlink(tmp);
	} else if (rename(tmp, path)) {
		err = fail("%s: %s", path, strerror(errno));
		unlink(tmp);
	} else {
		err = 0;
	}
	free(tmp);
	return err;
}

static int read_all(FILE *f, void *buf, size_t size)
{
	return size && fread(buf, 1, size, f) != size ? -1 : 0;
}

int pcp_trace_load(const char *path, struct pcp_trace *t)
{
	struct pcp_trace_header *h = &t->h;
	unsigned char extra;
	FILE *f;
	int err = -1;

	memset(t, 0, sizeof(*t));
	f = fopen(path, "r");
	if (!f)
		return fail("%s: %s", path, strerror(errno));
	if (read_all(f, h, sizeof(*h))) {
		fail("%s: truncated: shorter than a pcptrace header", path);
		goto out;
	}
	if (memcmp(h->magic, PCP_TRACE_MAGIC, sizeof(h->magic))) {
		fail("%s: not a pcptrace file", path);
		goto out;
	}
	if (h->version < PCP_TRACE_VERSION_MIN || h->version > PCP_TRACE_VERSION) {
		fail("%s: pcptrace version %u; this pcpctl reads versions %d to %d", path,
		     h->version, PCP_TRACE_VERSION_MIN, PCP_TRACE_VERSION);
		goto out;
	}
	if (!h->nr_cpus || h->nr_cpus > PCP_TRACE_MAX_CPUS ||
	    h->nr_zones > PCP_TRACE_MAX_ZONES || h->nr_events > PCP_TRACE_MAX_EVENTS ||
	    h->flags & ~PCP_TRACE_FLAGS) {
		fail("%s: a header of %u CPUs, %u zones, %" PRIu64 " events, flags 0x%x: not a recording",
		     path, h->nr_cpus, h->nr_zones, h->nr_events, h->flags);
		goto out;
	}
	t->counts = malloc(counts_size(h) ? counts_size(h) : 1);
	t->ev = malloc(h->nr_events ? h->nr_events * sizeof(*t->ev) : 1);
	if (!t->counts || !t->ev) {
		fail("%s: out of memory for %" PRIu64 " events", path, h->nr_events);
		goto out;
	}
	if (read_all(f, t->zones, h->nr_zones * sizeof(t->zones[0])) ||
	    read_all(f, t->counts, counts_size(h)) ||
	    read_all(f, t->ev, h->nr_events * sizeof(*t->ev))) {
		fail("%s: truncated: the header says %" PRIu64 " events", path,
		     h->nr_events);
		goto out;
	}
	if (fread(&extra, 1, 1, f)) {
		fail("%s: more bytes than the header's %" PRIu64 " events", path,
		     h->nr_events);
		goto out;
	}
	if (trace_check(t)) {
		char why[sizeof(pcp_trace_error)];

		snprintf(why, sizeof(why), "%s", pcp_trace_error);
		fail("%s: %s", path, why);
		goto out;
	}
	err = 0;
out:
	fclose(f);
	if (err)
		pcp_trace_release(t);
	return err;
}

int64_t pcp_trace_drop_orders_above(struct pcp_trace *t, unsigned int max_order)
{
	uint64_t i, kept = 0, usecs = 0;
	int64_t dropped = 0;

	for (i = 0; i < t->h.nr_events; i++) {
		struct pcp_trace_event e = t->ev[i];

		/* the gaps stay: a dropped event's time goes to the next */
		usecs += e.usecs;
		if (pcp_ev_order(&e) > max_order) {
			dropped++;
			continue;
		}
		e.usecs = usecs > UINT32_MAX ? UINT32_MAX : usecs;
		usecs = 0;
		t->ev[kept++] = e;
	}
	if (!dropped)
		return 0;
	t->h.nr_events = kept;
	free(t->slot);
	t->slot = NULL;
	/* whole pairs go, at one order: still consistent; the slots anew */
	if (trace_check(t))
		return -1;
	return dropped;
}

const char *pcp_trace_beyond_what(const struct pcp_trace_header *h)
{
	return h->version >= 2 ? "of orders 4 to 8 and above 9" : "above order 3";
}
