// SPDX-License-Identifier: GPL-2.0
/*
 * The all-CPU stress of pcpcache; see pcpcache_stress.h.
 *
 * Every random choice comes from rand_r() seeded from the one seed the
 * caller prints, so a failing run can be replayed (thread interleaving
 * aside).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "pcpcache_stress.h"

/* A worker frees half of what it holds beyond this. */
#define WORKER_MAX_HELD		4096

struct stress {
	const struct pcp_stress_opts *opts;
	struct pcp_stress_result *res;
	atomic_bool stop;
	pthread_mutex_t lock;		/* protects res->failure, enospc */
	int shared;			/* the file every worker uses */
};

struct worker {
	struct stress *s;
	pthread_t thread;
	int idx;
	int cpu;
	int fd;
	int dev;		/* /dev/pcpcache, to map */
	int fail;		/* its make-it-fail, or -1 */
	unsigned int seed;
	unsigned long long held;		/* pages in @fd */
	unsigned long long blocks[PCP_NR_ORDERS];	/* ... by order */
};

/*
 * $PCPCACHE_SEED, where make check sets one so that a run can be
 * replayed, else a new seed each run; printed either way.
 */
unsigned int pcp_default_seed(void)
{
	const char *env = getenv("PCPCACHE_SEED");

	if (env && *env)
		return strtoul(env, NULL, 0);
	return time(NULL) ^ getpid();
}

static void fail(struct stress *s, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&s->lock);
	if (!s->res->failure[0]) {
		va_start(ap, fmt);
		vsnprintf(s->res->failure, sizeof(s->res->failure), fmt, ap);
		va_end(ap);
		if (s->opts->log)
			fprintf(s->opts->log, "# stress: %s\n", s->res->failure);
	}
	pthread_mutex_unlock(&s->lock);
	atomic_store(&s->stop, true);
}

static void count_enospc(struct stress *s)
{
	pthread_mutex_lock(&s->lock);
	s->res->enospc++;
	pthread_mutex_unlock(&s->lock);
}

static unsigned int pick(unsigned int *seed, unsigned int lo, unsigned int hi)
{
	return lo + rand_r(seed) % (hi - lo + 1);
}

/* Small batches mostly, large ones now and then. */
static unsigned int pick_batch(unsigned int *seed)
{
	return pick(seed, 0, 3) ? pick(seed, 1, 8) : pick(seed, 64, 512);
}

/* Order 0 mostly, as in the kernel; 1 to 3 a quarter of the time. */
static unsigned int pick_order(unsigned int *seed)
{
	return pick(seed, 0, 3) ? 0 : pick(seed, 1, PCPCACHE_MAX_ORDER);
}

/* Errors the limits or memory pressure allow; anything else fails. */
static bool tolerable(struct worker *w, int err, const char *what)
{
	if (err == -ENOSPC || err == -ENOMEM) {
		count_enospc(w->s);
		return true;
	}
	fail(w->s, "cpu %d: %s: %s", w->cpu, what, strerror(-err));
	return false;
}

static void worker_alloc(struct worker *w, int fd, unsigned int nr,
			 unsigned int order, unsigned int flags)
{
	struct pcpcache_pages req;
	int err = pcp_alloc(fd, nr, flags | PCPCACHE_ORDER(order), &req);

	if (err) {
		tolerable(w, err, "alloc");
		return;
	}
	if (fd == w->fd) {
		w->held = req.held;
		w->blocks[order] += req.done;
	}
	w->s->res->pages[w->idx] += (unsigned long long)req.done << order;
}

static void worker_free(struct worker *w, int fd, unsigned int nr,
			unsigned int order, unsigned int flags)
{
	struct pcpcache_pages req;
	int err;

	if (fd == w->fd && nr > w->blocks[order])
		nr = w->blocks[order];
	if (!nr)
		return;
	err = pcp_free(fd, nr, flags | PCPCACHE_ORDER(order), &req);
	/* the shared file may have been emptied by another worker */
	if (err == -EINVAL && fd == w->s->shared)
		return;
	if (err) {
		fail(w->s, "cpu %d: free %u blocks of order %u of %llu held: %s",
		     w->cpu, nr, order, w->blocks[order], strerror(-err));
		return;
	}
	if (fd == w->fd) {
		w->held = req.held;
		w->blocks[order] -= req.done;
	}
	w->s->res->pages[w->idx] += (unsigned long long)req.done << order;
}

static void worker_cycle(struct worker *w)
{
	struct pcpcache_cycle req = {
		.cycles = pick(&w->seed, 1, 16),
		.batch = pick(&w->seed, 1, 64),
		.flags = pick(&w->seed, 0, 7) | PCPCACHE_ORDER(pick_order(&w->seed)),
	};

	if (ioctl(w->fd, PCPCACHE_IOC_CYCLE, &req)) {
		tolerable(w, -errno, "cycle");
		return;
	}
	if (req.allocs != req.frees)
		fail(w->s, "cpu %d: cycle allocated %llu, freed %llu", w->cpu,
		     (unsigned long long)req.allocs,
		     (unsigned long long)req.frees);
	w->s->res->pages[w->idx] += (req.allocs + req.frees) <<
		((req.flags & PCPCACHE_ORDER_MASK) >> PCPCACHE_ORDER_SHIFT);
}

/* Whether every byte of the page at @p is 0, a word at a time. */
static bool page_is_zero(const char *p, size_t page)
{
	const unsigned long *w = (const unsigned long *)p;
	size_t i;

	for (i = 0; i < page / sizeof(*w); i++)
		if (w[i])
			return false;
	return true;
}

/*
 * Map 1 to 512 pages of the device, fault some of them in (each must come
 * zero-filled, every byte of it) and dirty every byte of them, unmap: the
 * pages go back on this CPU, and a byte a later clearing misses shows.
 */
static void worker_fault(struct worker *w)
{
	size_t page = sysconf(_SC_PAGESIZE), i;
	size_t nr = pick_batch(&w->seed), touched;
	unsigned int tries;
	char *p;

	p = mmap(NULL, nr * page, PROT_READ | PROT_WRITE, MAP_SHARED, w->dev, 0);
	if (p == MAP_FAILED) {
		tolerable(w, -errno, "mmap");
		return;
	}
	/*
	 * A fault whose page fail_page_alloc fails ends in VM_FAULT_OOM with
	 * no OOM kill behind it, which the kernel reports ("Huh VM_FAULT_OOM
	 * leaked out to the #PF handler") and retries: the faults themselves
	 * go without injection (the write allocates nothing)
	 */
	if (w->fail >= 0)
		pwrite(w->fail, "0", 1, 0);
	touched = pick(&w->seed, 1, nr);
	for (i = 0; i < touched; i++) {
		if (!page_is_zero(p + i * page, page)) {
			fail(w->s, "cpu %d: a page of a new mapping is not zero-filled",
			     w->cpu);
			break;
		}
		memset(p + i * page, 0x5a, page);
	}
	if (w->fail >= 0)
		pwrite(w->fail, "1", 1, 0);
	/*
	 * An allocation failure the debug lane injects (the VMA tree's) can
	 * fail munmap() with ENOMEM: out of memory, as a program would see
	 * it, so retry; the mapping must not outlive the run
	 */
	for (tries = 0; munmap(p, nr * page); tries++) {
		if (!tolerable(w, -errno, "munmap"))
			break;
		if (tries == 1000) {
			fail(w->s, "cpu %d: munmap: out of memory %u times",
			     w->cpu, tries + 1);
			break;
		}
	}
	w->s->res->faults[w->idx] += touched;
	w->s->res->pages[w->idx] += 2 * touched;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct stress *s = w->s;
	unsigned int nr, flags, order;
	int err;

	err = pcp_pin(w->cpu);
	if (err) {
		fail(s, "cannot pin to cpu %d: %s", w->cpu, strerror(-err));
		return NULL;
	}
	/*
	 * fail_page_alloc with task-filter fails only the allocations of
	 * tasks that ask: the workers, once started, not the thread setup.
	 */
	w->fail = -1;
	if (s->opts->make_it_fail) {
		w->fail = open("/proc/thread-self/make-it-fail", O_WRONLY);
		if (w->fail < 0 || pwrite(w->fail, "1", 1, 0) != 1)
			fail(s, "cpu %d: make-it-fail: %s", w->cpu, strerror(errno));
	}
	while (!atomic_load(&s->stop)) {
		/* back home after the CPU went offline and came back */
		if (sched_getcpu() != w->cpu)
			pcp_pin(w->cpu);
		order = pick_order(&w->seed);
		nr = pick_batch(&w->seed);
		flags = pick(&w->seed, 0, 1) ? PCPCACHE_COLD : 0;
		switch (pick(&w->seed, 0, 10)) {
		case 0 ... 2:
			worker_alloc(w, w->fd, nr, order, flags);
			break;
		case 3 ... 5:
			worker_free(w, w->fd, nr, order, flags);
			break;
		case 6:
			worker_alloc(w, s->shared, nr, order, flags);
			break;
		case 7 ... 8:
			worker_free(w, s->shared, nr, order, flags);
			break;
		case 9:
			worker_fault(w);
			break;
		default:
			worker_cycle(w);
		}
		if (w->held > WORKER_MAX_HELD)
			for (order = 0; order < PCP_NR_ORDERS; order++)
				worker_free(w, w->fd, w->blocks[order] / 2, order, 0);
		s->res->ioctls[w->idx]++;
	}
	/* closing the file frees what it holds, on this CPU */
	close(w->fd);
	close(w->dev);
	if (w->fail >= 0)
		close(w->fail);
	w->fd = -1;
	return NULL;
}

/*
 * The configuration as the controller knows it: what the files said at
 * its generation, changed by the controller's own writes since, each of
 * which adds one to the generation. Another writer's change shows as a
 * generation the controller did not make: it is taken in, and counted.
 */
struct ctl_state {
	int mode;
	/* batch, high (0: auto), cold_batch, cold_high, barn_full */
	unsigned int knob[5];
	bool barn;		/* the module has barn mode and its knobs */
	unsigned long gen;
	char text[256];		/* the config file, as read */
};

enum { K_BATCH, K_HIGH, K_COLD_BATCH, K_COLD_HIGH, K_BARN_FULL };
static const char * const ctl_knobs[] = { "batch", "high", "cold_batch",
					  "cold_high", "barn_full" };
static const char * const ctl_modes[] = { "passthrough", "single", "split",
					  "remote", "blocks", "barn" };
#define NR_CTL_MODES	(int)(sizeof(ctl_modes) / sizeof(ctl_modes[0]))
#define CTL_BARN	(NR_CTL_MODES - 1)

/* The modes @st's module has: barn last, where it has it. */
static int ctl_nr_modes(const struct ctl_state *st)
{
	return st->barn ? NR_CTL_MODES : NR_CTL_MODES - 1;
}

/*
 * The most barn_full may be with @batch in barn mode, or -1 when not even
 * 0 fits (pcpcache_config_check()'s barn rule against the bound @limit).
 */
static int ctl_barn_full_max(unsigned long limit, unsigned int batch)
{
	/* (2 + full) * max(batch, 8) * orders <= limit, as the module has it */
	unsigned long long per = batch > 8 ? batch : 8;
	unsigned long long most = limit / (per * PCP_BARN_ORDERS);

	if (most < 2)
		return -1;
	return most - 2 > PCP_BARN_MAX ? PCP_BARN_MAX : (int)(most - 2);
}

/*
 * Read the configuration and its generation as one: if the generation
 * before and after reading config differ, someone wrote in between, and
 * it is read again.
 */
static int ctl_read(struct ctl_state *st)
{
	char path[256], mode[32], high[16];
	long before, after = -1;
	const char *full;
	int i, tries;

	pcp_path(path, sizeof(path), "config");
	for (tries = 0; tries < 100; tries++) {
		if (pcp_read_long("generation", &before) ||
		    pcp_read_file(path, st->text, sizeof(st->text)) < 0 ||
		    pcp_read_long("generation", &after))
			return -EIO;
		if (before == after)
			break;
	}
	if (before != after ||
	    sscanf(st->text, "mode=%31s batch=%u high=%15s cold_batch=%u cold_high=%u",
		   mode, &st->knob[K_BATCH], high, &st->knob[K_COLD_BATCH],
		   &st->knob[K_COLD_HIGH]) != 5)
		return -EINVAL;
	/* high=auto is kept as 0, which no number written to high can be */
	st->knob[K_HIGH] = strcmp(high, "auto") ? strtoul(high, NULL, 10) : 0;
	/* a module without barn mode has no barn_full */
	full = strstr(st->text, " barn_full=");
	st->barn = full &&
		   sscanf(full, " barn_full=%u", &st->knob[K_BARN_FULL]) == 1;
	if (!st->barn)
		st->knob[K_BARN_FULL] = 0;
	st->gen = after;
	st->mode = -1;
	for (i = 0; i < ctl_nr_modes(st); i++)
		if (!strcmp(mode, ctl_modes[i]))
			st->mode = i;
	return st->mode < 0 ? -EINVAL : 0;
}

static bool ctl_same(const struct ctl_state *a, const struct ctl_state *b)
{
	return a->mode == b->mode && a->barn == b->barn &&
	       !memcmp(a->knob, b->knob, sizeof(a->knob));
}

/* Another writer changed the configuration: take its state in. */
static void ctl_take_in(struct stress *s, struct ctl_state *st,
			const struct ctl_state *now)
{
	pthread_mutex_lock(&s->lock);
	s->res->foreign++;
	pthread_mutex_unlock(&s->lock);
	*st = *now;
}

/*
 * The controller's write of a legal @what ended in @err. Refused, it is
 * a failure unless someone else changed the configuration since the
 * controller last knew it, which may have made it illegal.
 * Return: 0 when it was applied.
 */
static int ctl_written(struct stress *s, struct ctl_state *st, int err,
		       const char *what)
{
	struct ctl_state now;

	if (!err) {
		st->gen++;
		return 0;
	}
	if (err == -EINVAL && !ctl_read(&now) && now.gen != st->gen)
		ctl_take_in(s, st, &now);
	else
		fail(s, "controller: %s refused: %s", what, strerror(-err));
	return err;
}

static int ctl_set(struct stress *s, struct ctl_state *st, int knob,
		   unsigned int val)
{
	char buf[32], what[64];
	int err;

	snprintf(buf, sizeof(buf), "%u\n", val);
	snprintf(what, sizeof(what), "%s <- %u", ctl_knobs[knob], val);
	err = ctl_written(s, st, pcp_write(ctl_knobs[knob], buf), what);
	if (!err)
		st->knob[knob] = val;
	return err;
}

/*
 * Set a (batch, high) pair in the order that keeps batch <= high; from
 * high=auto in one config write, since the batch in force may be over
 * the new high.
 */
static void ctl_set_pair(struct stress *s, struct ctl_state *st, int batch,
			 unsigned int b, unsigned int h)
{
	char buf[64];

	if (!st->knob[batch + 1]) {
		snprintf(buf, sizeof(buf), "%s=%u %s=%u", ctl_knobs[batch], b,
			 ctl_knobs[batch + 1], h);
		if (!ctl_written(s, st, pcp_write("config", buf), buf)) {
			st->knob[batch] = b;
			st->knob[batch + 1] = h;
		}
		return;
	}
	if (b > st->knob[batch + 1]) {
		if (!ctl_set(s, st, batch + 1, h))
			ctl_set(s, st, batch, b);
	} else {
		if (!ctl_set(s, st, batch, b))
			ctl_set(s, st, batch + 1, h);
	}
}

/*
 * Switch to @mode. barn mode's rule may need barn_full lowered for the
 * batch in force: both in one config write, or no switch where even none
 * would fit.
 */
static void ctl_set_mode(struct stress *s, struct ctl_state *st, int mode,
			 unsigned long limit)
{
	int full = ctl_barn_full_max(limit, st->knob[K_BATCH]);
	char what[64];

	if (mode == CTL_BARN && full < 0)
		return;
	if (mode == CTL_BARN && (unsigned int)full < st->knob[K_BARN_FULL]) {
		snprintf(what, sizeof(what), "mode=barn barn_full=%d", full);
		if (!ctl_written(s, st, pcp_write("config", what), what)) {
			st->mode = mode;
			st->knob[K_BARN_FULL] = full;
		}
		return;
	}
	snprintf(what, sizeof(what), "mode <- %s", ctl_modes[mode]);
	if (!ctl_written(s, st, pcp_write("mode", ctl_modes[mode]), what))
		st->mode = mode;
}

/*
 * barn_full to a random legal value: in barn mode, within what the batch
 * in force leaves of the bound.
 */
static void ctl_set_barn(struct stress *s, struct ctl_state *st,
			 unsigned int *seed, unsigned long limit)
{
	int full = st->mode == CTL_BARN ?
		   ctl_barn_full_max(limit, st->knob[K_BATCH]) : PCP_BARN_MAX;

	if (st->barn && full >= 0)
		ctl_set(s, st, K_BARN_FULL, pick(seed, 0, full));
}

/*
 * Turn high=auto on, with batch lowered to high_min if it is over, as one
 * write; left alone where high_max and cold_high would not fit the limit.
 * A number written to high later (ctl_set_pair writes high first, since
 * any batch is over 0) turns it off again.
 */
static void ctl_set_auto(struct stress *s, struct ctl_state *st,
			 unsigned long limit)
{
	long high_min, high_max;
	char buf[64];
	unsigned int b;

	if (pcp_read_long("high_min", &high_min) ||
	    pcp_read_long("high_max", &high_max)) {
		fail(s, "controller: cannot read high_min and high_max");
		return;
	}
	if ((unsigned long)high_max + st->knob[3] > limit)
		return;
	b = st->knob[0] < high_min ? st->knob[0] : high_min;
	snprintf(buf, sizeof(buf), "batch=%u high=auto", b);
	if (!ctl_written(s, st, pcp_write("config", buf), "high <- auto")) {
		st->knob[0] = b;
		st->knob[1] = 0;
	}
}

/* A write that breaks a rule, made from @st: its file and value. */
static void ctl_pick_bad(const struct ctl_state *st, unsigned int *seed,
			 unsigned long limit, char *file, char *val, size_t size)
{
	static const char * const fixed[][2] = {
		{ "batch", "0" }, { "mode", "bogus" }, { "cold_high", "-5" },
		{ "drain", "2" }, { "batch", "12abc" },
	};
	unsigned int i = pick(seed, 0, st->barn ? 10 : 7);
	int full;

	/* barn mode's knobs and rule come after the others' */
	if (i >= 3 && st->barn)
		i = i < 6 ? i + 5 : i - 3;
	switch (i) {
	case 0:
		strcpy(file, "high");
		snprintf(val, size, "%u", st->knob[0] - 1);
		break;
	case 1:
		strcpy(file, "cold_batch");
		snprintf(val, size, "%u", st->knob[3] + 1);
		break;
	case 2:
		strcpy(file, "high");
		snprintf(val, size, "%lu", limit + 1);
		break;
	case 8:
		strcpy(file, "barn_full");
		snprintf(val, size, "%d", PCP_BARN_MAX + 1);
		break;
	case 9:
		/* in barn mode: one more full magazine than the bound lets in */
		full = ctl_barn_full_max(limit, st->knob[K_BATCH]);
		if (st->mode == CTL_BARN && full >= 0 && full < PCP_BARN_MAX) {
			strcpy(file, "barn_full");
			snprintf(val, size, "%d", full + 1);
			break;
		}
		/* fall through */
	case 10:
		/* barn mode with a batch whose most barn_full does not fit */
		strcpy(file, "config");
		snprintf(val, size, "mode=barn batch=%llu barn_full=%d",
			 limit / PCP_BARN_PAGES(1, PCP_BARN_MAX) + 1, PCP_BARN_MAX);
		break;
	default:
		strcpy(file, fixed[i - 3][0]);
		snprintf(val, size, "%s", fixed[i - 3][1]);
	}
}

/*
 * A write that breaks a rule must fail with EINVAL and change nothing.
 * "Nothing" is known only when nobody else wrote meanwhile: the
 * generation, read with the configuration before and after, says so.
 */
static void ctl_bad_write(struct stress *s, struct ctl_state *st,
			  unsigned int *seed, unsigned long limit)
{
	struct ctl_state before, after;
	char val[80], file[16];
	int err;

	if (ctl_read(&before)) {
		fail(s, "controller: cannot read the configuration");
		return;
	}
	ctl_pick_bad(&before, seed, limit, file, val, sizeof(val));
	err = pcp_write(file, val);
	if (ctl_read(&after)) {
		fail(s, "controller: cannot read the configuration");
		return;
	}
	/* one more generation is the write itself, if it was applied */
	if (after.gen > before.gen + !err) {
		ctl_take_in(s, st, &after);
		return;
	}
	*st = after;
	if (err != -EINVAL)
		fail(s, "controller: %s <- \"%s\" gave %s, not EINVAL", file,
		     val, err ? strerror(-err) : "success");
	else if (after.gen != before.gen || !ctl_same(&before, &after))
		fail(s, "controller: %s <- \"%s\" was refused but changed the configuration",
		     file, val);
}

/* Take @cpu offline or bring it back; 0, or -errno. */
int pcp_cpu_set_online(int cpu, bool online)
{
	char path[96];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online",
		 cpu);
	return pcp_write_file(path, online ? "1" : "0");
}

/*
 * The pages cached on @cpu (every list: split mode's cold list and barn
 * mode's spare too, by the order columns); 0, or -errno.
 */
int pcp_pageset_count(int cpu, long *count)
{
	static struct pcp_pageset sets[PCP_MAX_CPUS];
	int i, nr = pcp_read_pagesets(sets, PCP_MAX_CPUS);

	for (i = 0; i < nr; i++) {
		if (sets[i].cpu == cpu) {
			*count = pcp_pageset_pages(&sets[i]);
			return 0;
		}
	}
	return nr < 0 ? nr : -ENOENT;
}

/*
 * Take a random CPU other than 0 offline, check its magazine was emptied,
 * and bring it back; CPUs without an online file are left alone.
 */
static void ctl_hotplug(struct stress *s, unsigned int *seed)
{
	int cpu, nr = sysconf(_SC_NPROCESSORS_CONF);
	long count = 0;
	int err;

	if (nr < 2)
		return;
	cpu = pick(seed, 1, nr - 1);
	err = pcp_cpu_set_online(cpu, false);
	if (err == -ENOENT || err == -EBUSY)
		return;
	if (err) {
		fail(s, "controller: cpu%d offline: %s", cpu, strerror(-err));
		return;
	}
	s->res->hotplugs++;
	err = pcp_pageset_count(cpu, &count);
	if (err || count)
		fail(s, "controller: cpu%d is offline but caches %ld pages (%s)",
		     cpu, count, err ? strerror(-err) : "read");
	usleep(pick(seed, 0, 20) * 1000);
	err = pcp_cpu_set_online(cpu, true);
	if (err)
		fail(s, "controller: cpu%d online: %s", cpu, strerror(-err));
}

static void *controller_main(void *arg)
{
	struct stress *s = arg;
	unsigned int seed = s->opts->seed ^ 0xc0ffee;
	unsigned long limit = pcp_max_high_sum();
	unsigned int max_high = limit / 2 < 2048 ? limit / 2 : 2048;
	unsigned int b, h, max_cold = max_high / 2, max_batch;
	struct ctl_state st, now;
	int err;

	if (!limit || ctl_read(&st)) {
		fail(s, "controller: cannot read the configuration or its limits");
		return NULL;
	}
	while (!atomic_load(&s->stop)) {
		usleep(pick(&seed, 10, 50) * 1000);
		/* what others did since the last round is theirs: take it in */
		if (ctl_read(&now)) {
			fail(s, "controller: cannot read the configuration");
			break;
		}
		if (now.gen != st.gen)
			ctl_take_in(s, &st, &now);
		switch (pick(&seed, 0, 10)) {
		case 0 ... 2:
			ctl_set_mode(s, &st, pick(&seed, 0, ctl_nr_modes(&st) - 1),
				     limit);
			break;
		case 3 ... 4:
			/* in barn mode, a batch its barn_full fits the bound with */
			max_batch = 256;
			if (st.mode == CTL_BARN &&
			    limit / PCP_BARN_PAGES(1, st.knob[K_BARN_FULL]) < max_batch)
				max_batch = limit / PCP_BARN_PAGES(1, st.knob[K_BARN_FULL]);
			if (!max_batch)
				break;
			b = pick(&seed, 1, max_batch);
			h = pick(&seed, b, b > max_high ? b : max_high);
			ctl_set_pair(s, &st, 0, b, h);
			break;
		case 5:
			/* under auto, cold_high + high_max must fit the limit */
			if (!st.knob[1])
				break;
			b = pick(&seed, 1, 128);
			h = pick(&seed, b, b > max_cold ? b : max_cold);
			ctl_set_pair(s, &st, 2, b, h);
			break;
		case 6 ... 7:
			ctl_bad_write(s, &st, &seed, limit);
			break;
		case 10:
			if (st.barn) {
				ctl_set_barn(s, &st, &seed, limit);
				break;
			}
			/* fall through */
		case 8:
			if (s->opts->hotplug) {
				ctl_hotplug(s, &seed);
				break;
			}
			/* fall through */
		case 9:
			if (pick(&seed, 0, 1)) {
				ctl_set_auto(s, &st, limit);
				break;
			}
			/* fall through */
		default:
			err = pcp_write("drain", "1");
			if (err)
				fail(s, "controller: drain refused: %s",
				     strerror(-err));
		}
		s->res->controls++;
	}
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Start the workers; the number started. */
static int start_workers(struct stress *s, struct worker *w)
{
	int cpu, n = 0;

	for (cpu = 0; cpu < PCP_MAX_CPUS && n < PCP_MAX_CPUS; cpu++) {
		if (!CPU_ISSET(cpu, &s->opts->cpus))
			continue;
		w[n].s = s;
		w[n].idx = n;
		w[n].cpu = cpu;
		w[n].seed = s->opts->seed + 7919 * cpu;
		w[n].held = 0;
		memset(w[n].blocks, 0, sizeof(w[n].blocks));
		w[n].fd = pcp_open_user();
		if (w[n].fd < 0) {
			fail(s, "cannot open %s: %s", PCPCACHE_USER_FILE,
			     strerror(-w[n].fd));
			break;
		}
		w[n].dev = pcp_open_device();
		if (w[n].dev < 0) {
			fail(s, "cannot open %s: %s", PCPCACHE_DEVICE,
			     strerror(-w[n].dev));
			close(w[n].fd);
			break;
		}
		s->res->cpu[n] = cpu;
		if (pthread_create(&w[n].thread, NULL, worker_main, &w[n])) {
			close(w[n].fd);
			close(w[n].dev);
			fail(s, "cannot start a worker for cpu %d", cpu);
			break;
		}
		n++;
	}
	return n;
}

/* What the run changes and puts back: the configuration and fault_refill. */
struct found {
	char config[256];
	char fault[16];
};

static int remember(struct found *found)
{
	char path[256];

	pcp_path(path, sizeof(path), "config");
	if (pcp_read_file(path, found->config, sizeof(found->config)) <= 0)
		return -1;
	pcp_path(path, sizeof(path), "fault_refill");
	return pcp_read_file(path, found->fault, sizeof(found->fault)) > 0 ? 0 : -1;
}

/* Put back what @found holds; a failure unless it could. */
static void put_back(struct stress *s, const struct found *found)
{
	if (s->opts->chaos && pcp_write("config", found->config))
		fail(s, "cannot put the configuration back: %s", found->config);
	if (s->opts->fault && pcp_write("fault_refill", found->fault))
		fail(s, "cannot put fault_refill back to %s", found->fault);
}

/**
 * pcp_stress_run - run the stress for opts->seconds
 *
 * The configuration and fault_refill are put back as found at the end.
 *
 * Return: 0 when nothing unexpected happened, else -1 with the first
 * problem in res->failure. Every file is closed on return either way.
 */
int pcp_stress_run(const struct pcp_stress_opts *opts,
		   struct pcp_stress_result *res)
{
	static struct worker workers[PCP_MAX_CPUS];
	struct stress s = { .opts = opts, .res = res };
	struct found found;
	pthread_t controller;
	bool ctl_started = false;
	double start, deadline;
	sigset_t block, old;
	int i;

	memset(res, 0, sizeof(*res));
	atomic_init(&s.stop, false);
	if (remember(&found)) {
		snprintf(res->failure, sizeof(res->failure),
			 "cannot read the configuration or fault_refill");
		return -1;
	}
	if (opts->fault) {
		char val[16];

		snprintf(val, sizeof(val), "%u", opts->fault);
		if (pcp_write("fault_refill", val)) {
			snprintf(res->failure, sizeof(res->failure),
				 "cannot set fault_refill to %u", opts->fault);
			return -1;
		}
	}
	pthread_mutex_init(&s.lock, NULL);
	s.shared = pcp_open_user();
	if (s.shared < 0) {
		snprintf(res->failure, sizeof(res->failure), "cannot open %s: %s",
			 PCPCACHE_USER_FILE, strerror(-s.shared));
		put_back(&s, &found);
		pthread_mutex_destroy(&s.lock);
		return -1;
	}

	/* the threads inherit the mask: the signals that end a run reach us */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	start = now();
	res->nr_workers = start_workers(&s, workers);
	if (opts->chaos && !pthread_create(&controller, NULL, controller_main, &s))
		ctl_started = true;
	pthread_sigmask(SIG_SETMASK, &old, NULL);

	deadline = start + opts->seconds;
	while (!atomic_load(&s.stop) && now() < deadline &&
	       !(opts->cancel && *opts->cancel))
		usleep(10000);
	res->cancelled = opts->cancel && *opts->cancel;
	atomic_store(&s.stop, true);

	for (i = 0; i < res->nr_workers; i++)
		pthread_join(workers[i].thread, NULL);
	if (ctl_started)
		pthread_join(controller, NULL);
	res->seconds = now() - start;
	close(s.shared);
	put_back(&s, &found);
	pthread_mutex_destroy(&s.lock);
	return res->failure[0] ? -1 : 0;
}
