// SPDX-License-Identifier: GPL-2.0
/*
 * pcpctl replay: a trace driven through the loaded module, through the
 * "user" file's ioctls, each event on the CPU it was recorded on.
 *
 * The default, lockstep, is deterministic: one thread takes the events
 * in the trace's order, moving to each event's CPU, so the magazines see
 * exactly the sequence the simulator sees and --check can ask for exact
 * agreement. Runs of one CPU's allocations (or frees) of one order go in
 * one ioctl, which serves them one by one. Each CPU allocates through a
 * file of its own, and a free releases a block of its order held by the
 * file of the CPU that allocated it: not necessarily the same page, but
 * one of the same owner (remote mode sends a free to the CPU a page was
 * handed out on); the lists count blocks, so which one makes no
 * difference to their counters. Blocks mode's blocks do know which page
 * comes home: --check simulates the files' choice, the newest.
 *
 * Two things the module does by the clock, the simulator by trace time:
 * high=auto's decay, and barn mode's trim. --check simulates barn mode
 * without the trim, and expects exact agreement when none of the module's
 * trims gave a magazine back during the run (barn_trimmed did not move)
 * and its barn's lock was never found busy (barn_busy, which the trim's
 * lock can cause); otherwise it says why they may differ.
 *
 * Events of order 9 (a version 2 trace's THP) are left out, before the
 * run and before --check's simulation: the user file takes orders 0 to
 * PCPCACHE_MAX_ORDER, and with pcpcache such a block goes to the buddy
 * allocator, never through the module.
 *
 * --parallel runs a thread per CPU at once, each waiting only for the
 * allocation of a page it frees: closer to the recorded timing, but
 * which CPU reaches a list first is up to the machine, so its counters
 * are not reproducible.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <x86intrin.h>

#include "pcpctl.h"
#include "sim.h"

static const char *replay_help =
	"usage: pcpctl replay TRACE [--set KNOBS] [--parallel] [--check] [--json]\n\n"
	"Drive TRACE's allocations and frees through pcpcache, each on the CPU\n"
	"it was recorded on, holding each page from its allocation to its\n"
	"free, and report cycles per operation (the ioctl's included) and each\n"
	"CPU's counters. The configuration is set for the run (--set, else the\n"
	"one in force) with empty magazines, and put back afterwards. Events of\n"
	"order 9 (THP) are left out: they never reach pcpcache.\n\n"
	"  --set KNOBS  as pcpctl set takes them: 'mode=single batch=63 high=378'\n"
	"  --parallel   a thread per CPU at once (not reproducible)\n"
	"  --check      simulate the same trace and setting and compare each\n"
	"               CPU's hits, refills and drains; in lockstep they must\n"
	"               agree exactly (exit 1 if not), unless high=auto, or in\n"
	"               barn mode the barn was trimmed or busy meanwhile\n"
	"  --json       one JSON object\n";

/* The counters compared, as stats_percpu names them. */
static const char *const counters[] = {
	"alloc_hit", "alloc_miss", "refill", "refill_pages", "drain",
	"drain_pages", "buddy_alloc", "buddy_free", "remote_frees",
	"remote_absorbed", "remote_overflow", "block_refills", "block_whole",
	"block_whole_pages", "block_pieces", "barn_swaps", "barn_took_full",
	"barn_gave_full", "barn_flushes",
};

/*
 * barn mode: what the module did by the clock, or its lock's contention,
 * and the simulator does not: when these moved, no exact agreement.
 */
static const char *const barn_clock[] = { "barn_trimmed", "barn_busy" };

#define NR_BARN_CLOCK	ARRAY_SIZE(barn_clock)

#define NR_COUNTERS	ARRAY_SIZE(counters)

/* A column of the table: 12 wide, or as its name */
static int column(unsigned int k)
{
	int len = strlen(counters[k]);

	return len > 12 ? len : 12;
}

static uint64_t sim_counter(const struct sim_cpu *c, unsigned int k)
{
	const uint64_t v[NR_COUNTERS] = {
		c->alloc_hit, c->alloc_miss, c->refill, c->refill_pages,
		c->drain, c->drain_pages, c->buddy_alloc, c->buddy_free,
		c->remote_frees, c->remote_absorbed, c->remote_overflow,
		c->block_refills, c->block_whole, c->block_whole_pages,
		c->block_pieces, c->barn_swaps, c->barn_took_full,
		c->barn_gave_full, c->barn_flushes,
	};

	return v[k];
}

struct replay {
	const struct pcp_trace *t;
	int *fd;			/* by CPU: what it allocated is held there */
	uint32_t *by;			/* by event: the CPU whose file it uses */
	uint64_t cycles, ops, ioctls;
	atomic_uchar *done;		/* parallel: events done */
	uint64_t *alloc_of;		/* parallel: a free's allocation */
	atomic_int *abort;		/* parallel: a worker failed, all stop */
	char why[160];
};

/* SIGINT, SIGTERM, SIGHUP: stop, put the configuration back, then die of it */
static volatile sig_atomic_t replay_stop;

static void on_replay_signal(int sig)
{
	replay_stop = sig;
}

static int do_ioctl(struct replay *r, int fd, unsigned int op,
		    unsigned int order, bool cold, unsigned int count)
{
	unsigned int flags = PCPCACHE_ORDER(order) | (cold ? PCPCACHE_COLD : 0);
	struct pcpcache_pages req;
	uint64_t c0 = __rdtsc();
	int err;

	err = op == PCP_EV_ALLOC ? pcp_alloc(fd, count, flags, &req) :
				   pcp_free(fd, count, flags, &req);
	r->cycles += __rdtsc() - c0;
	r->ioctls++;
	r->ops += count;
	if (err || req.done != count) {
		snprintf(r->why, sizeof(r->why), "%s of %u blocks of order %u: %s (%u done)%s",
			 op == PCP_EV_ALLOC ? "allocation" : "free", count, order,
			 err ? strerror(-err) : "short", req.done,
			 err == -ENOSPC ? "; the trace holds more pages at once than user_max_pages allows" : "");
		return -1;
	}
	return 0;
}

/*
 * A user file for each CPU of the trace, and for each event the file it
 * goes through: its CPU's for an allocation, the allocating CPU's for a
 * free. 0, or -1 said.
 */
static int open_files(struct replay *r)
{
	const struct pcp_trace *t = r->t;
	unsigned int n = t->h.nr_cpus, cpu;
	uint32_t *last = calloc(t->nr_slots ? t->nr_slots : 1, sizeof(*last));
	uint64_t i;

	r->fd = malloc(n * sizeof(*r->fd));
	r->by = calloc(t->h.nr_events ? t->h.nr_events : 1, sizeof(*r->by));
	if (!last || !r->fd || !r->by) {
		free(last);
		fprintf(stderr, "%s: out of memory\n", who);
		return -1;
	}
	for (cpu = 0; cpu < n; cpu++)
		r->fd[cpu] = -1;
	for (i = 0; i < t->h.nr_events; i++) {
		r->by[i] = t->ev[i].cpu;
		if (t->ev[i].op == PCP_EV_ALLOC)
			last[t->slot[i]] = t->ev[i].cpu;
		else if (t->ev[i].op == PCP_EV_FREE)
			r->by[i] = last[t->slot[i]];
	}
	free(last);
	for (cpu = 0; cpu < n; cpu++) {
		r->fd[cpu] = pcp_open_user();
		if (r->fd[cpu] < 0) {
			fprintf(stderr, "%s: %s: %s\n", who, PCPCACHE_USER_FILE,
				strerror(-r->fd[cpu]));
			return -1;
		}
	}
	return 0;
}

/* Close them: what they hold goes back. Again is harmless. */
static void close_files(struct replay *r)
{
	unsigned int cpu;

	for (cpu = 0; r->fd && cpu < r->t->h.nr_cpus; cpu++)
		if (r->fd[cpu] >= 0)
			close(r->fd[cpu]);
	free(r->fd);
	free(r->by);
	r->fd = NULL;
	r->by = NULL;
}

static int lockstep(struct replay *r)
{
	const struct pcp_trace *t = r->t;
	uint64_t i = 0, j;
	int cpu = -1;

	while (i < t->h.nr_events) {
		const struct pcp_trace_event *e = &t->ev[i];

		if (replay_stop) {
			snprintf(r->why, sizeof(r->why), "stopped by %s", strsignal(replay_stop));
			return -1;
		}
		if (e->op != PCP_EV_ALLOC && e->op != PCP_EV_FREE) {
			i++;
			continue;
		}
		/* the run of the same CPU, operation, order, temperature, file */
		for (j = i + 1; j < t->h.nr_events && j - i < 4096; j++)
			if (t->ev[j].cpu != e->cpu || t->ev[j].op != e->op ||
			    t->ev[j].bits != e->bits || r->by[j] != r->by[i])
				break;
		if (e->cpu != cpu) {
			if (pcp_pin(e->cpu)) {
				snprintf(r->why, sizeof(r->why), "CPU %u: %s", e->cpu,
					 strerror(errno));
				return -1;
			}
			cpu = e->cpu;
		}
		if (do_ioctl(r, r->fd[r->by[i]], e->op, pcp_ev_order(e),
			     pcp_ev_cold(e), j - i))
			return -1;
		i = j;
	}
	return 0;
}

struct worker {
	struct replay *r;
	unsigned int cpu;
	uint64_t cycles, ops, ioctls;
	int failed;
	char why[160];
	pthread_t thread;
};

/* The first failure stops every worker: the others may wait for its pages. */
static bool stopping(struct replay *r)
{
	return atomic_load(r->abort) || replay_stop;
}

static void *parallel_worker(void *arg)
{
	struct worker *w = arg;
	struct replay r = *w->r;	/* its own counts, the shared file */
	const struct pcp_trace *t = r.t;
	uint64_t i;

	r.cycles = r.ops = r.ioctls = 0;
	r.why[0] = '\0';
	if (pcp_pin(w->cpu)) {
		snprintf(r.why, sizeof(r.why), "CPU %u: %s", w->cpu, strerror(errno));
		w->failed = 1;
	}
	for (i = 0; i < t->h.nr_events && !w->failed; i++) {
		const struct pcp_trace_event *e = &t->ev[i];

		if (e->cpu != w->cpu || (e->op != PCP_EV_ALLOC && e->op != PCP_EV_FREE))
			continue;
		if (e->op == PCP_EV_FREE)
			while (!atomic_load(&r.done[r.alloc_of[i]]) && !stopping(&r))
				sched_yield();
		if (stopping(&r))
			break;
		if (do_ioctl(&r, r.fd[r.by[i]], e->op, pcp_ev_order(e),
			     pcp_ev_cold(e), 1))
			w->failed = 1;
		atomic_store(&r.done[i], 1);
	}
	if (w->failed)
		atomic_store(r.abort, 1);
	snprintf(w->why, sizeof(w->why), "%s", r.why);
	w->cycles = r.cycles;
	w->ops = r.ops;
	w->ioctls = r.ioctls;
	return NULL;
}

static int parallel(struct replay *r)
{
	const struct pcp_trace *t = r->t;
	unsigned int n = t->h.nr_cpus, cpu;
	uint64_t i, *last = calloc(t->nr_slots ? t->nr_slots : 1, sizeof(*last));
	struct worker *w = calloc(n, sizeof(*w));
	atomic_int abort_all = 0;
	int err = 0;

	r->abort = &abort_all;
	r->done = calloc(t->h.nr_events ? t->h.nr_events : 1, sizeof(*r->done));
	r->alloc_of = calloc(t->h.nr_events ? t->h.nr_events : 1, sizeof(*r->alloc_of));
	if (!last || !w || !r->done || !r->alloc_of) {
		snprintf(r->why, sizeof(r->why), "out of memory");
		err = -1;
		goto out;
	}
	for (i = 0; i < t->h.nr_events; i++) {
		if (t->ev[i].op == PCP_EV_ALLOC)
			last[t->slot[i]] = i;
		else if (t->ev[i].op == PCP_EV_FREE)
			r->alloc_of[i] = last[t->slot[i]];
	}
	for (cpu = 0; cpu < n; cpu++) {
		w[cpu].r = r;
		w[cpu].cpu = cpu;
		if (pthread_create(&w[cpu].thread, NULL, parallel_worker, &w[cpu])) {
			/* the others would wait for it for ever: all stop */
			n = cpu;
			atomic_store(&abort_all, 1);
			snprintf(r->why, sizeof(r->why), "cannot start a thread");
			err = -1;
			break;
		}
	}
	for (cpu = 0; cpu < n; cpu++) {
		pthread_join(w[cpu].thread, NULL);
		r->cycles += w[cpu].cycles;
		r->ops += w[cpu].ops;
		r->ioctls += w[cpu].ioctls;
		/* the first worker that failed says why */
		if (w[cpu].failed && !err) {
			snprintf(r->why, sizeof(r->why), "%s", w[cpu].why);
			err = -1;
		}
	}
	if (!err && replay_stop) {
		snprintf(r->why, sizeof(r->why), "stopped by %s", strsignal(replay_stop));
		err = -1;
	}
out:
	free(last);
	free(w);
	free(r->done);
	free(r->alloc_of);
	return err;
}

/*
 * After the run, the file closed: the books as stress checks them, once
 * no page is in flight. 0 when they balance (said, but not in JSON).
 */
static int books(bool quiet)
{
	struct pcp_stats st;
	char why[256];

	if (pcp_read_stats(&st)) {
		fprintf(stderr, "%s: cannot read stats\n", who);
		return -1;
	}
	if (!pcp_books_balance(&st, why, sizeof(why))) {
		fprintf(stderr, "%s: the books do not balance: %s\n", who, why);
		return -1;
	}
	if (!quiet)
		printf("books balance: %s\n", why);
	return 0;
}

/* The module's block_hold, which blocks mode's simulation needs. */
static unsigned int module_block_hold(void)
{
	char buf[32];
	unsigned long v;
	char *end;

	if (pcp_read_file(PCP_SYSFS "/parameters/block_hold", buf, sizeof(buf)) <= 0)
		return SIM_BLOCK_HOLD;
	v = strtoul(buf, &end, 10);
	return end != buf && v <= SIM_BLOCK_HOLD_MAX ? v : SIM_BLOCK_HOLD;
}

/* The configuration the run uses: --set's on the one in force. */
static int run_config(const char *set, char *saved, size_t size,
		      struct pcpcache_config *cfg)
{
	char path[256];
	ssize_t n;
	int err;

	pcp_path(path, sizeof(path), "config");
	n = pcp_read_file(path, saved, size);
	if (n < 0) {
		fprintf(stderr, "%s: config: %s\n", who, strerror(-n));
		return -1;
	}
	saved[strcspn(saved, "\n")] = '\0';
	memset(cfg, 0, sizeof(*cfg));
	if (pcpcache_config_parse(cfg, saved, strlen(saved))) {
		fprintf(stderr, "%s: config: '%.*s' is not a configuration\n", who,
			QUOTE_MAX, saved);
		return -1;
	}
	if (set && (pcpcache_config_parse(cfg, set, strlen(set)) ||
		    pcpcache_config_check(cfg, ~0UL))) {
		fprintf(stderr, "%s: --set '%.*s' refused: see %s set --help\n", who,
			QUOTE_MAX, set, prog);
		return 2;
	}
	/* empty magazines: passthrough gives every page back */
	err = pcp_write("mode", "passthrough");
	if (!err && set)
		err = pcp_write("config", set);
	if (!err)
		err = pcp_write("mode", pcpcache_mode_name(cfg->mode));
	if (err) {
		fprintf(stderr, "%s: the configuration for the run was refused: %s\n",
			who, strerror(-err));
		if (pcp_write("config", saved))
			fprintf(stderr, "%s: cannot put the configuration back: '%s'\n",
				who, saved);
		return set ? 2 : -1;
	}
	return 0;
}

int cmd_replay(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "set", required_argument, NULL, 's' },
		{ "parallel", no_argument, NULL, 'p' },
		{ "check", no_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	bool par = false, check = false, json = false, agree = true;
	unsigned long long *before = NULL, *after = NULL;
	struct replay r = { .fd = NULL };
	struct sim_setting s = {
		.max_order = PCP_TRACE_MAX_ORDER, .as_replayed = true,
		.no_barn_trim = true,
	};
	unsigned long long *clock0 = NULL, *clock1 = NULL, moved[NR_BARN_CLOCK] = { 0 };
	const char *excuse = NULL;
	struct sigaction sa = { .sa_handler = on_replay_signal };
	struct sim_result sim = { 0 };
	char saved[512], label[96];
	const char *set = NULL;
	unsigned int cpu, k, n;
	struct pcp_trace t;
	struct json js;
	int opt, err = 1, ret;
	int64_t thp_out;
	long online;

	while ((opt = next_option(argc, argv, longopts)) != -1) {
		switch (opt) {
		case 's':
			set = optarg;
			break;
		case 'p':
			par = true;
			break;
		case 'c':
			check = true;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			printf("%s", replay_help);
			return 0;
		default:
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "%s: usage: %s replay TRACE [OPTIONS]; see %s help replay\n",
			who, prog, prog);
		return 2;
	}
	if (need_writable() || need_debugfs_file("user"))
		return 1;
	/*
	 * On more than one node the module gives a freed page of another
	 * node back at once, and which page a free releases then matters:
	 * the simulator, which has no nodes, cannot follow.
	 */
	if (check && !par && access("/sys/devices/system/node/node1", F_OK) == 0) {
		fprintf(stderr, "%s: --check: this machine has more than one node, where replay cannot be deterministic\n",
			who);
		return 1;
	}
	if (load_trace(argv[optind], &t))
		return 1;
	/* the module's user file takes orders 0 to 3 only, as its magazines */
	thp_out = pcp_trace_drop_orders_above(&t, PCPCACHE_MAX_ORDER);
	if (thp_out < 0) {
		fprintf(stderr, "%s: %s: %s\n", who, argv[optind], pcp_trace_error);
		pcp_trace_release(&t);
		return 1;
	}
	n = t.h.nr_cpus;
	online = sysconf(_SC_NPROCESSORS_ONLN);
	if (n > online) {
		fprintf(stderr, "%s: the trace has events of %u CPUs, this machine %ld online\n",
			who, n, online);
		pcp_trace_release(&t);
		return 1;
	}
	before = calloc(n * NR_COUNTERS, sizeof(*before));
	after = calloc(n * NR_COUNTERS, sizeof(*after));
	/* every CPU's: the trim's work may run on one the trace lacks */
	clock0 = calloc(PCP_MAX_CPUS * NR_BARN_CLOCK, sizeof(*clock0));
	clock1 = calloc(PCP_MAX_CPUS * NR_BARN_CLOCK, sizeof(*clock1));
	r.t = &t;
	if (!before || !after || !clock0 || !clock1) {
		fprintf(stderr, "%s: out of memory\n", who);
		goto out_trace;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	ret = run_config(set, saved, sizeof(saved), &s.cfg);
	if (ret) {
		err = ret < 0 ? 1 : 2;
		goto out_trace;
	}
	s.design = (enum sim_design)s.cfg.mode;
	s.block_hold = module_block_hold();
	if (open_files(&r))
		goto out_file;
	if (read_percpu_counts(counters, NR_COUNTERS, before, n) ||
	    read_percpu_counts(barn_clock, NR_BARN_CLOCK, clock0, PCP_MAX_CPUS))
		goto out_file;
	ret = par ? parallel(&r) : lockstep(&r);
	if (read_percpu_counts(counters, NR_COUNTERS, after, n) ||
	    read_percpu_counts(barn_clock, NR_BARN_CLOCK, clock1, PCP_MAX_CPUS))
		goto out_file;
	if (ret) {
		fprintf(stderr, "%s: %s\n", who, r.why);
		goto out_file;
	}
	for (k = 0; k < n * NR_COUNTERS; k++)
		after[k] -= before[k];
	/* counted on any CPU: the trim's work, another CPU's trylock */
	for (cpu = 0; cpu < PCP_MAX_CPUS; cpu++)
		for (k = 0; k < NR_BARN_CLOCK; k++)
			moved[k] += clock1[cpu * NR_BARN_CLOCK + k] -
				    clock0[cpu * NR_BARN_CLOCK + k];
	if (par)
		excuse = "parallel: not expected to agree";
	else if (s.cfg.high_auto)
		excuse = "high=auto: the module decays by the clock, the simulator by trace time";
	else if (s.design == SIM_BARN && moved[0])
		excuse = "barn: the module's trim gave magazines back by the clock, the simulator trims none in a replay";
	else if (s.design == SIM_BARN && moved[1])
		excuse = "barn: the module found its barn's lock busy, which the simulator's never is";
	if (check && sim_run(&t, &s, &sim)) {
		fprintf(stderr, "%s: the simulation ran out of memory\n", who);
		goto out_file;
	}
	if (check)
		for (cpu = 0; cpu < n; cpu++)
			for (k = 0; k < NR_COUNTERS; k++)
				if (sim_counter(&sim.cpu[cpu], k) != after[cpu * NR_COUNTERS + k])
					agree = false;
	sim_label(&s, label, sizeof(label));
	if (json) {
		json_open(&js, stdout);
		json_begin(&js, NULL, '{');
		json_str(&js, "trace", argv[optind]);
		json_str(&js, "setting", label);
		json_str(&js, "mode", par ? "parallel" : "lockstep");
		json_uint(&js, "operations", r.ops);
		json_uint(&js, "ioctls", r.ioctls);
		json_num(&js, "cycles_per_op", r.ops ? (double)r.cycles / r.ops : 0);
		if (check)
			json_bool(&js, "agree", agree);
		if (check && excuse)
			json_str(&js, "not_expected_to_agree", excuse);
		if (thp_out)
			json_uint(&js, "left_out_order9", thp_out);
		if (s.design == SIM_BARN) {
			json_uint(&js, "barn_trimmed", moved[0]);
			json_uint(&js, "barn_busy", moved[1]);
		}
		json_begin(&js, "cpus", '[');
		for (cpu = 0; cpu < n; cpu++) {
			json_begin(&js, NULL, '{');
			json_uint(&js, "cpu", cpu);
			for (k = 0; k < NR_COUNTERS; k++)
				json_uint(&js, counters[k], after[cpu * NR_COUNTERS + k]);
			json_end(&js, '}');
		}
		json_end(&js, ']');
		json_end(&js, '}');
		putchar('\n');
	} else {
		print_trace_summary(stdout, argv[optind], &t);
		if (thp_out)
			printf("left out: %" PRId64 " events of order %d (THP): the user file takes orders 0 to %d, and with pcpcache they go to the buddy allocator\n",
			       thp_out, PCP_TRACE_THP_ORDER, PCPCACHE_MAX_ORDER);
		printf("replayed %s (%s): %" PRIu64 " operations in %" PRIu64
		       " ioctls, %.0f cycles per operation, ioctl included\n",
		       label, par ? "parallel" : "lockstep", r.ops, r.ioctls,
		       r.ops ? (double)r.cycles / r.ops : 0);
		printf("%-4s %-7s", "cpu", "");
		for (k = 0; k < NR_COUNTERS; k++)
			printf(" %*s", column(k), counters[k]);
		putchar('\n');
		for (cpu = 0; cpu < n; cpu++) {
			printf("%-4u %-7s", cpu, "module");
			for (k = 0; k < NR_COUNTERS; k++)
				printf(" %*llu", column(k), after[cpu * NR_COUNTERS + k]);
			putchar('\n');
			if (!check)
				continue;
			printf("%-4s %-7s", "", "sim");
			for (k = 0; k < NR_COUNTERS; k++)
				printf(" %*" PRIu64 "%s", column(k), sim_counter(&sim.cpu[cpu], k),
				       sim_counter(&sim.cpu[cpu], k) ==
				       after[cpu * NR_COUNTERS + k] ? "" : "!");
			putchar('\n');
		}
		if (s.design == SIM_BARN)
			printf("barn: %llu magazines trimmed, the lock found busy %llu times\n",
			       moved[0], moved[1]);
		if (check)
			printf("simulator and module %s%s%s%s\n", agree ? "agree on every CPU" :
			       "DIFFER ('!')", excuse ? " (" : "", excuse ? excuse : "",
			       excuse ? ")" : "");
	}
	err = check && !agree && !excuse ? 1 : 0;
	/* the pages held go back with the files: then the books must balance */
	close_files(&r);
	if (books(json) && !err)
		err = 1;
out_file:
	close_files(&r);
	/* back as found: the pages held go back first, then the config */
	if (pcp_write("config", saved))
		fprintf(stderr, "%s: cannot put the configuration back: '%s'\n", who, saved);
out_trace:
	sim_result_release(&sim);
	free(before);
	free(after);
	free(clock0);
	free(clock1);
	pcp_trace_release(&t);
	if (replay_stop) {
		/* the configuration is back: now as the signal would have */
		signal(replay_stop, SIG_DFL);
		raise(replay_stop);
	}
	return err;
}
