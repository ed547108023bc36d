// SPDX-License-Identifier: GPL-2.0
/*
 * pcpctl fault: will-it-scale's page_fault1 through pcpcache. Each task
 * maps a region, writes one byte to each of its pages and unmaps it, again
 * and again; one task pinned to each of N CPUs, for N = 1 .. all CPUs, as
 * processes and as threads of one process. The "kernel" row maps anonymous
 * memory, which the kernel's own per-CPU lists serve; every other row maps
 * /dev/pcpcache, whose faults the module serves, in one of its modes or
 * with one of the batch/high pairs of the 2018 page_fault1 thread.
 *
 * For each figure every task makes one untimed pass, then, once all have,
 * --passes timed ones: a pass of page_fault1 takes a second or more under
 * emulation, so whole passes, not a window that cuts them, are what is
 * counted. Faults per second per CPU is the mean over the tasks of their
 * pages over their time; buddy round trips per 1000 faults come from the
 * module's counters over exactly those passes (see trips()). The whole
 * table is measured --reps times, the rows in turn within each N, and each
 * figure is the median of its rounds: drift on a shared host then falls
 * on every row alike.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pcpctl.h"

/* page_fault1's region, and high big enough to keep all of it cached */
#define DEFAULT_MIB		128
#define BIG_HIGH		32768
#define DEFAULT_PASSES		1
#define DEFAULT_REPS		3
#define QUICK_MIB		16
#define QUICK_PASSES		2
#define QUICK_REPS		1
#define MAX_REPS		9

enum variant { PROCESSES, THREADS, NR_VARIANTS };
static const char * const variant_names[] = { "processes", "threads" };

/* A row: the kernel (mode NULL), or the device with this configuration. */
struct row {
	const char *key;	/* what --rows takes */
	const char *mode;
	unsigned int batch, high;	/* high 0: BIG_HIGH or more */
};

enum {
	ROW_KERNEL, ROW_PASSTHROUGH, ROW_SINGLE, ROW_SPLIT, ROW_REMOTE,
	ROW_BLOCKS, ROW_BARN, ROW_SMALL, ROW_LARGE, ROW_BIG, NR_ROWS
};

static const struct row rows[NR_ROWS] = {
	[ROW_KERNEL]		= { "kernel", NULL, 0, 0 },
	[ROW_PASSTHROUGH]	= { "passthrough", "passthrough", 63, 378 },
	[ROW_SINGLE]		= { "single", "single", 63, 378 },
	[ROW_SPLIT]		= { "split", "split", 63, 378 },
	[ROW_REMOTE]		= { "remote", "remote", 63, 378 },
	[ROW_BLOCKS]		= { "blocks", "blocks", 63, 378 },
	[ROW_BARN]		= { "barn", "barn", 63, 378 },
	[ROW_SMALL]		= { "31/186", "single", 31, 186 },
	[ROW_LARGE]		= { "310/1860", "single", 310, 1860 },
	[ROW_BIG]		= { "310/32768", "single", 310, 0 },
};

struct opts {
	unsigned long passes, reps, mib;
	bool quick, json;
	bool row[NR_ROWS];
	bool variant[NR_VARIANTS];
};

/* What the tasks of one figure share; in memory a child process shares. */
struct shared {
	atomic_int ready;	/* tasks past their untimed pass */
	atomic_int go;		/* ... told to start the timed ones */
	atomic_int done;	/* tasks through their timed passes */
	atomic_int err;		/* the first errno a task met */
	struct {
		double seconds;	/* the timed passes took */
	} __attribute__((aligned(64))) task[PCP_MAX_CPUS];
} __attribute__((aligned(64)));

/* One figure being measured. */
struct cell {
	struct shared *sh;
	const int *cpus;
	int n;
	int dev;		/* /dev/pcpcache, or -1 for anonymous memory */
	size_t bytes, page;
	unsigned long passes;
	pid_t *pids;		/* the processes variant's tasks; 0 once reaped */
};

/* One round of one figure. */
struct sample {
	double per_cpu;		/* faults per second per CPU */
	double trips;		/* buddy round trips per 1000 faults; < 0: none */
	unsigned long long faults;
};

/* One figure: its rounds, or why it was not measured. */
struct result {
	int nr;
	struct sample round[MAX_REPS];
	const char *skipped;
};

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One page_fault1 iteration: map, write a byte to every page, unmap. */
static int one_pass(const struct cell *c)
{
	int flags = c->dev >= 0 ? MAP_SHARED : MAP_PRIVATE | MAP_ANONYMOUS;
	size_t off;
	char *p;

	p = mmap(NULL, c->bytes, PROT_READ | PROT_WRITE, flags, c->dev, 0);
	if (p == MAP_FAILED)
		return -errno;
	/*
	 * order-0 faults, as the device's: no transparent huge pages; a
	 * kernel built without them refuses the advice with EINVAL
	 */
	if (c->dev < 0 && madvise(p, c->bytes, MADV_NOHUGEPAGE) &&
	    errno != EINVAL) {
		munmap(p, c->bytes);
		return -errno;
	}
	for (off = 0; off < c->bytes; off += c->page)
		p[off] = 1;
	return munmap(p, c->bytes) ? -errno : 0;
}

/* Time @c->passes passes, once every task is ready. */
static int timed_passes(const struct cell *c, int idx)
{
	unsigned long i;
	double t0;
	int err = 0;

	atomic_fetch_add(&c->sh->ready, 1);
	while (!atomic_load(&c->sh->go))
		usleep(1000);
	t0 = now();
	for (i = 0; i < c->passes && !err && !atomic_load(&c->sh->err); i++)
		err = one_pass(c);
	c->sh->task[idx].seconds = now() - t0;
	return err;
}

/* A task: pinned, one untimed pass, then the timed ones. */
static int task_main(const struct cell *c, int idx)
{
	int expected = 0;
	int err;

	err = pcp_pin(c->cpus[idx]);
	if (!err)
		err = one_pass(c);
	if (!err)
		err = timed_passes(c, idx);
	if (err)
		atomic_compare_exchange_strong(&c->sh->err, &expected, -err);
	atomic_fetch_add(&c->sh->done, 1);
	return err;
}

struct thread_arg {
	const struct cell *c;
	int idx;
};

static void *task_thread(void *arg)
{
	struct thread_arg *t = arg;

	task_main(t->c, t->idx);
	return NULL;
}

/* Start @c->n tasks as processes; how many started. */
static int start_processes(const struct cell *c, pid_t *pids)
{
	int i;

	for (i = 0; i < c->n; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			break;
		if (!pids[i]) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			_exit(task_main(c, i) ? 1 : 0);
		}
	}
	return i;
}

static int start_threads(const struct cell *c, pthread_t *threads,
			 struct thread_arg *args)
{
	int i;

	for (i = 0; i < c->n; i++) {
		args[i] = (struct thread_arg){ .c = c, .idx = i };
		if (pthread_create(&threads[i], NULL, task_thread, &args[i]))
			break;
	}
	return i;
}

/*
 * Buddy round trips: calls into the buddy allocator, each a zone->lock
 * round trip in the kernel's lists. A refill or a drain is one, whatever
 * its batch (the shrinker's calls count as one each too); a page taken or
 * given back on its own (passthrough, a page of another node) is one.
 */
static long long trips(const struct pcp_stats *st)
{
	long long batches = pcp_stat(st, "refill") + pcp_stat(st, "drain") +
			    pcp_stat(st, "shrink");
	long long singles = pcp_stat(st, "buddy_alloc") - pcp_stat(st, "refill_pages") +
			    pcp_stat(st, "buddy_free") - pcp_stat(st, "drain_pages") -
			    pcp_stat(st, "shrink_pages");

	return batches + singles;
}

/*
 * A task process that died: a signal (SIGBUS, an OOM kill, SIGKILL) ends
 * it without a word to the others. Those that ended are reaped; one that
 * died, or exited with an error, is named: -ECHILD. 0 when none did (a
 * task exits 0 once it counted itself done).
 */
static int task_died(const struct cell *c)
{
	int i, status;

	for (i = 0; c->pids && i < c->n; i++) {
		if (c->pids[i] <= 0 || waitpid(c->pids[i], &status, WNOHANG) != c->pids[i])
			continue;
		if (WIFEXITED(status) && !WEXITSTATUS(status)) {
			c->pids[i] = 0;
			continue;
		}
		if (WIFSIGNALED(status))
			fprintf(stderr, "pcpctl: fault: task %d (pid %d, CPU %d) was killed by signal %d (%s)\n",
				i, c->pids[i], c->cpus[i], WTERMSIG(status),
				strsignal(WTERMSIG(status)));
		else
			fprintf(stderr, "pcpctl: fault: task %d (pid %d, CPU %d) exited with status %d\n",
				i, c->pids[i], c->cpus[i], WEXITSTATUS(status));
		c->pids[i] = 0;
		return -ECHILD;
	}
	return 0;
}

/* Wait until @count of the tasks got there, or one failed; 0 or -errno. */
static int wait_for(const struct cell *c, atomic_int *count)
{
	int err;

	while (atomic_load(count) < c->n) {
		if (atomic_load(&c->sh->err))
			return -atomic_load(&c->sh->err);
		if (interrupted)
			return -EINTR;
		err = task_died(c);
		if (err)
			return err;
		usleep(10000);
	}
	return 0;
}

/* Start the timed passes together; the faults and trips they made. */
static int measure(const struct cell *c, struct sample *r)
{
	struct pcp_stats st0, st1;
	double sum = 0;
	int err, i;

	err = wait_for(c, &c->sh->ready);
	if (!err && pcp_read_stats(&st0))
		err = -EIO;
	atomic_store(&c->sh->go, 1);
	if (!err)
		err = wait_for(c, &c->sh->done);
	if (!err && pcp_read_stats(&st1))
		err = -EIO;
	if (err)
		return err;
	r->faults = c->n * c->passes * (c->bytes / c->page);
	for (i = 0; i < c->n; i++)
		sum += c->passes * (c->bytes / c->page) / c->sh->task[i].seconds;
	r->per_cpu = sum / c->n;
	r->trips = c->dev < 0 ? -1 : 1000.0 * (trips(&st1) - trips(&st0)) / r->faults;
	return 0;
}

/* Run one figure with @c->n tasks of @v; 0, or -errno. */
static int run_cell(struct cell *c, enum variant v, struct sample *r)
{
	static struct thread_arg args[PCP_MAX_CPUS];
	static pthread_t threads[PCP_MAX_CPUS];
	static pid_t pids[PCP_MAX_CPUS];
	int started, i, err;

	memset(c->sh, 0, sizeof(*c->sh));
	c->pids = NULL;
	if (v == PROCESSES) {
		started = start_processes(c, pids);
		c->pids = pids;
	} else {
		started = start_threads(c, threads, args);
	}
	err = started < c->n ? -EAGAIN : measure(c, r);
	if (err) {
		/* let the tasks that started end early */
		atomic_store(&c->sh->err, -err);
		atomic_store(&c->sh->go, 1);
	}
	for (i = 0; i < started; i++) {
		if (v == PROCESSES) {
			/* one that died took the figure with it: stop the rest */
			if (pids[i] > 0 && err == -ECHILD)
				kill(pids[i], SIGKILL);
			if (pids[i] > 0)
				waitpid(pids[i], NULL, 0);
		} else {
			pthread_join(threads[i], NULL);
		}
	}
	c->pids = NULL;
	return err;
}

/* "mode=... batch=... high=..." for @row; the cold pair at the defaults. */
static void row_config(const struct row *row, unsigned int high, char *buf,
		       size_t size)
{
	snprintf(buf, size, "mode=%s batch=%u high=%u cold_batch=31 cold_high=126",
		 row->mode, row->batch, high);
}

static unsigned int row_high(const struct row *row, size_t task_pages)
{
	if (row->high)
		return row->high;
	return task_pages > BIG_HIGH ? task_pages : BIG_HIGH;
}

static void row_label(const struct row *row, size_t task_pages, char *buf,
		      size_t size)
{
	if (!row->mode || strcmp(row->mode, "single"))
		snprintf(buf, size, "%s", row->key);
	else
		snprintf(buf, size, "single %u/%u", row->batch,
			 row_high(row, task_pages));
}

/*
 * Put @row's configuration in force and empty the magazines; NULL, or why
 * the row cannot run.
 */
static const char *row_prepare(const struct row *row, size_t task_pages)
{
	char cfg[128];
	int err;

	if (row->mode) {
		row_config(row, row_high(row, task_pages), cfg, sizeof(cfg));
		err = pcp_write("config", cfg);
		if (err == -EINVAL)
			return "the module refused it (EINVAL): over its per-CPU bound, high + cold_high <= RAM / 4 / CPUs (in barn mode (2 + barn_full) * max(batch, 8) * 4 too), on this machine";
		if (err)
			return strerror(-err);
	}
	return pcp_write("drain", "1") ? "cannot drain" : NULL;
}

/* A whole decimal number in [min, max], or a one-line error. */
static int parse_number(const char *opt, const char *s, unsigned long min,
			unsigned long max, unsigned long *val)
{
	char *end;

	errno = 0;
	if (isdigit((unsigned char)*s))
		*val = strtoul(s, &end, 10);
	if (!isdigit((unsigned char)*s) || errno || *end || *val < min ||
	    *val > max) {
		fprintf(stderr, "%s: %s takes a whole number from %lu to %lu, not '%s'\n",
			who, opt, min, max, s);
		return -1;
	}
	return 0;
}

/* A comma-separated list of row keys, none empty. */
static int parse_rows(const char *list, struct opts *o)
{
	char *copy = strdup(list), *rest = copy, *tok;
	unsigned int i;
	int err = !*list;

	memset(o->row, 0, sizeof(o->row));
	while (!err && (tok = strsep(&rest, ","))) {
		for (i = 0; i < NR_ROWS && strcmp(tok, rows[i].key); i++)
			;
		if (i == NR_ROWS)
			err = -1;
		else
			o->row[i] = true;
	}
	free(copy);
	if (err)
		fprintf(stderr, "%s: --rows takes a list of kernel, passthrough, single, split, remote, blocks, barn, 31/186, 310/1860, 310/32768, not '%s'\n",
			who, list);
	return err ? -1 : 0;
}

static int parse_variant(const char *s, struct opts *o)
{
	bool both = !strcmp(s, "both");

	o->variant[PROCESSES] = both || !strcmp(s, variant_names[PROCESSES]);
	o->variant[THREADS] = both || !strcmp(s, variant_names[THREADS]);
	if (o->variant[PROCESSES] || o->variant[THREADS])
		return 0;
	fprintf(stderr, "%s: --variant takes processes, threads or both, not '%s'\n",
		who, s);
	return -1;
}

static void fault_usage(FILE *f)
{
	fprintf(f,
		"usage: pcpctl fault [--passes N] [--reps N] [--size MIB] [--rows LIST]\n"
		"                    [--variant processes|threads|both] [--quick] [--json]\n"
		"\n"
		"will-it-scale's page_fault1 through pcpcache: each task maps MIB of\n"
		"memory, writes a byte to each page, unmaps it, and again; one task\n"
		"pinned to each of N CPUs, N = 1 .. all, as processes and as threads.\n"
		"Rows: kernel (anonymous memory, the kernel's own per-CPU lists), then\n"
		"/dev/pcpcache in passthrough, single, split, remote, blocks and barn\n"
		"(batch/high 63/378), and single with 31/186, 310/1860 and 310/32768\n"
		"(or more, to hold a whole region). Prints faults per second per CPU\n"
		"and buddy round trips per 1000 faults, then the targets. Changes the\n"
		"configuration while it runs and puts back the one it found.\n"
		"\n"
		"  --passes N   timed passes of each task per figure, after an untimed one\n"
		"               (default %d)\n"
		"  --reps N     rounds of the whole table, rows in turn; each figure is the\n"
		"               median of its rounds (default %d, at most %d)\n"
		"  --size MIB   each task's region (default %d), less where the module's\n"
		"               user_max_pages or user_max_total would refuse it\n"
		"  --rows LIST  only these rows, e.g. kernel,single\n"
		"  --variant V  processes, threads or both (default)\n"
		"  --quick      N = 1 and all only, %d MiB, %d passes, %d round: a smoke test\n"
		"  --json       the figures as JSON on stdout instead of the tables\n",
		DEFAULT_PASSES, DEFAULT_REPS, MAX_REPS, DEFAULT_MIB, QUICK_MIB,
		QUICK_PASSES, QUICK_REPS);
}

/* Return: -1 to go on, or the exit status (--help, a usage error). */
static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "passes", required_argument, NULL, 'p' },
		{ "reps", required_argument, NULL, 'n' },
		{ "size", required_argument, NULL, 'm' },
		{ "rows", required_argument, NULL, 'r' },
		{ "variant", required_argument, NULL, 'v' },
		{ "quick", no_argument, NULL, 'q' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	int opt;

	memset(o, 0, sizeof(*o));
	memset(o->row, 1, sizeof(o->row));
	memset(o->variant, 1, sizeof(o->variant));
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			if (parse_number("--passes", optarg, 1, 100, &o->passes))
				return 2;
			break;
		case 'n':
			if (parse_number("--reps", optarg, 1, MAX_REPS, &o->reps))
				return 2;
			break;
		case 'm':
			if (parse_number("--size", optarg, 1, 65536, &o->mib))
				return 2;
			break;
		case 'r':
			if (parse_rows(optarg, o))
				return 2;
			break;
		case 'v':
			if (parse_variant(optarg, o))
				return 2;
			break;
		case 'q':
			o->quick = true;
			break;
		case 'j':
			o->json = true;
			break;
		case 'h':
			fault_usage(stdout);
			return 0;
		case ':':
			fprintf(stderr, "%s: %s needs a value\n", who,
				argv[optind - 1]);
			return 2;
		default:
			fprintf(stderr, "%s: unknown option '%s' (see --help)\n",
				who, argv[optind - 1]);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", who,
			argv[optind]);
		return 2;
	}
	/* --quick sets what was not given, wherever it stands */
	if (!o->passes)
		o->passes = o->quick ? QUICK_PASSES : DEFAULT_PASSES;
	if (!o->reps)
		o->reps = o->quick ? QUICK_REPS : DEFAULT_REPS;
	if (!o->mib)
		o->mib = o->quick ? QUICK_MIB : DEFAULT_MIB;
	return -1;
}

/* A module parameter, or -1. */
static long param(const char *name)
{
	char path[128], buf[32];

	snprintf(path, sizeof(path), PCP_SYSFS "/parameters/%s", name);
	if (pcp_read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	return strtol(buf, NULL, 10);
}

static long meminfo_kb(const char *key)
{
	char line[128];
	long kb = -1;
	FILE *f = pcp_fopen("/proc/meminfo", "r");

	while (f && kb < 0 && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)))
			kb = strtol(line + strlen(key), NULL, 10);
	if (f)
		fclose(f);
	return kb;
}

/*
 * Pages per task: @mib, less where all @n tasks' regions at once would go
 * over the limits the module puts on mappings.
 */
static size_t task_pages(unsigned long mib, int n, size_t page, char *why,
			 size_t size)
{
	size_t want = mib * (1024 * 1024 / page), fit = want;
	long per_map = param("user_max_pages"), total = param("user_max_total");

	if (!total)
		total = meminfo_kb("MemTotal:") / (page / 1024) / 8;
	if (per_map > 0 && (size_t)per_map < fit)
		fit = per_map;
	if (total > 0 && (size_t)total / n < fit)
		fit = total / n;
	why[0] = '\0';
	if (fit < want)
		snprintf(why, size, " (asked %lu MiB: the module's user_max_pages %ld and user_max_total %ld allow %zu pages each for %d tasks)",
			 mib, per_map, total, fit, n);
	return fit;
}

/* The online CPUs this process may run on. */
static int allowed_cpus(int *cpus)
{
	cpu_set_t set;
	int cpu, n = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 0;
	for (cpu = 0; cpu < PCP_MAX_CPUS && n < CPU_COUNT(&set); cpu++)
		if (CPU_ISSET(cpu, &set))
			cpus[n++] = cpu;
	return n;
}

/*
 * The kernel's own pcp high and batch on CPU 0 of its largest zone; bench
 * --patterns names its kernel row with it too.
 */
void kernel_pagesets(char *zone, long *high, long *batch)
{
	long managed = 0, best = -1, h = -1;
	char line[256], cur[32] = "";
	bool cpu0 = false;
	FILE *f = pcp_fopen("/proc/zoneinfo", "r");

	strcpy(zone, "?");
	*high = *batch = -1;
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Node %*d, zone %31s", cur) == 1)
			cpu0 = false;
		else if (strstr(line, "cpu: "))
			cpu0 = strtol(strstr(line, "cpu: ") + 5, NULL, 10) == 0;
		sscanf(line, " managed %ld", &managed);
		if (!cpu0 || managed <= best)
			continue;
		sscanf(line, " high: %ld", &h);
		if (sscanf(line, " batch: %ld", batch) == 1) {
			best = managed;
			*high = h;
			snprintf(zone, 32, "%s", cur);
		}
	}
	if (f)
		fclose(f);
}

static const char *init_on_alloc(void)
{
	char cmdline[4096];

	if (pcp_read_file("/proc/cmdline", cmdline, sizeof(cmdline)) < 0)
		return "unknown";
	if (strstr(cmdline, "init_on_alloc=0"))
		return "0";
	if (strstr(cmdline, "init_on_alloc=1"))
		return "1";
	return "the kernel's default (1 on Debian)";
}

struct run {
	const struct opts *o;
	int cpus[PCP_MAX_CPUS];
	int nr_cpus;
	int ns[PCP_MAX_CPUS];	/* the N of each column */
	int nr_ns;
	int dev;
	size_t page, task_pages;
	char shrunk[256];
	struct result res[NR_VARIANTS][NR_ROWS][PCP_MAX_CPUS];
};

/* One round of variant @v: N by N, and within each N the rows in turn. */
static int run_round(struct run *run, enum variant v, struct shared *sh)
{
	struct cell c = {
		.sh = sh, .cpus = run->cpus, .page = run->page,
		.bytes = run->task_pages * run->page, .passes = run->o->passes,
	};
	unsigned int row;
	char label[64];
	int col, err;

	for (col = 0; col < run->nr_ns && !interrupted; col++) {
		for (row = 0; row < NR_ROWS; row++) {
			struct result *r = &run->res[v][row][col];
			struct sample *smp = &r->round[r->nr];

			if (!run->o->row[row] || run->res[v][row][0].skipped)
				continue;
			r->skipped = row_prepare(&rows[row], run->task_pages);
			if (r->skipped)
				continue;
			c.n = run->ns[col];
			c.dev = rows[row].mode ? run->dev : -1;
			row_label(&rows[row], run->task_pages, label, sizeof(label));
			err = run_cell(&c, v, smp);
			if (err) {
				fprintf(stderr, "%s: %s, %s, N=%d: %s\n", who,
					variant_names[v], label, c.n,
					err == -ECHILD ? "a task died (above)" : strerror(-err));
				return err;
			}
			r->nr++;
			if (isatty(STDERR_FILENO))
				fprintf(stderr, "%s N=%d %s: %.0f faults/s per CPU\n",
					variant_names[v], c.n, label, smp->per_cpu);
		}
	}
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of @n values, which it sorts; 0 for none. */
static double median(double *v, int n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(v[0]), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The median over @r's rounds of their trips, or of their rates. */
static double median_of(const struct result *r, bool trips)
{
	double v[MAX_REPS];
	int i;

	for (i = 0; i < r->nr; i++)
		v[i] = trips ? r->round[i].trips : r->round[i].per_cpu;
	return median(v, r->nr);
}

/* Faults per second per CPU. */
static double rate(const struct result *r)
{
	return median_of(r, false);
}

/* Buddy round trips per 1000 faults; < 0: not known. */
static double round_trips(const struct result *r)
{
	return median_of(r, true);
}

/* "N=4", in a buffer that lasts until the next call. */
static const char *n_label(int n)
{
	static char buf[16];

	snprintf(buf, sizeof(buf), "N=%d", n);
	return buf;
}

static void print_table(const struct run *run, enum variant v)
{
	unsigned int row;
	char label[64];
	int col, last = run->nr_ns - 1;

	printf("\n%s, one per CPU, pinned%s\n", variant_names[v],
	       v == THREADS ? ", all in one process" : "");
	printf("%-18s%*s %9s  %s\n", "", 11 * run->nr_ns, "faults/s per CPU",
	       "scaling", " buddy round trips per 1000 faults");
	printf("%-18s", "");
	for (col = 0; col < run->nr_ns; col++)
		printf(" %10s", n_label(run->ns[col]));
	printf(" %9s  ", "all/1");
	for (col = 0; col < run->nr_ns; col++)
		printf(" %9s", n_label(run->ns[col]));
	printf("\n");
	for (row = 0; row < NR_ROWS; row++) {
		const struct result *r = run->res[v][row];

		if (!run->o->row[row])
			continue;
		row_label(&rows[row], run->task_pages, label, sizeof(label));
		printf("%-18s", label);
		if (r[0].skipped) {
			printf(" skipped: %s\n", r[0].skipped);
			continue;
		}
		for (col = 0; col < run->nr_ns; col++)
			printf(" %10.0f", rate(&r[col]));
		printf(" %9.2f  ", rate(&r[last]) / rate(&r[0]));
		for (col = 0; col < run->nr_ns; col++) {
			if (round_trips(&r[col]) < 0)
				printf(" %9s", "-");
			else
				printf(" %9.2f", round_trips(&r[col]));
		}
		printf("\n");
	}
}

struct target {
	const char *what;
	double value;
	const char *rule;	/* ">= 4" and so on, for the reader */
	bool met;
	bool known;
};

static bool measured(const struct result *r)
{
	return r->nr && !r->skipped;
}

#define NR_TARGETS	6

/*
 * The cost of a fault at N=1 in @row over single's, within @rule: a free
 * there is local, so knowing the owner must cost almost nothing.
 */
static void owner_target(const struct result *row, const struct result *single,
			 const char *what, struct target *t)
{
	*t = (struct target){ .what = what, .rule = "<= 1.05" };
	if (measured(&row[0]) && measured(&single[0]) && rate(&row[0]) > 0) {
		t->value = rate(&single[0]) / rate(&row[0]);
		t->met = t->value <= 1.05;
		t->known = true;
	}
}

/*
 * The targets of issue 18, from the figures of variant @v, and issue 27's
 * local pattern.
 */
static int targets(const struct run *run, enum variant v, struct target *t)
{
	const struct result *kernel = run->res[v][ROW_KERNEL];
	const struct result *single = run->res[v][ROW_SINGLE];
	const struct result *small = run->res[v][ROW_SMALL];
	const struct result *large = run->res[v][ROW_LARGE];
	const struct result *big = run->res[v][ROW_BIG];
	int all = run->nr_ns - 1;
	double ks, ss;

	t[0] = (struct target){ .what = "trips at N=all, 31/186 over 310/1860",
				 .rule = ">= 4" };
	if (measured(&small[all]) && measured(&large[all]) &&
	    round_trips(&large[all]) > 0) {
		t[0].value = round_trips(&small[all]) / round_trips(&large[all]);
		t[0].met = t[0].value >= 4;
		t[0].known = true;
	}
	t[1] = (struct target){ .what = "trips per 1000 faults at N=all, 310/32768+",
				 .rule = "< 1" };
	if (measured(&big[all])) {
		t[1].value = round_trips(&big[all]);
		t[1].met = t[1].value < 1;
		t[1].known = true;
	}
	t[2] = (struct target){ .what = "fault cost at N=1, single 63/378 over kernel",
				 .rule = "<= 1.2" };
	if (measured(&kernel[0]) && measured(&single[0])) {
		t[2].value = rate(&kernel[0]) / rate(&single[0]);
		t[2].met = t[2].value <= 1.2;
		t[2].known = true;
	}
	t[3] = (struct target){ .what = "scaling N=all/N=1, single 63/378 minus kernel's",
				 .rule = ">= 0" };
	if (measured(&kernel[all]) && measured(&single[all])) {
		ks = rate(&kernel[all]) / rate(&kernel[0]);
		ss = rate(&single[all]) / rate(&single[0]);
		t[3].value = ss - ks;
		t[3].met = t[3].value >= 0;
		t[3].known = true;
	}
	owner_target(run->res[v][ROW_REMOTE], single,
		     "fault cost at N=1, remote 63/378 over single's", &t[4]);
	owner_target(run->res[v][ROW_BLOCKS], single,
		     "fault cost at N=1, blocks 63/378 over single's", &t[5]);
	return NR_TARGETS;
}

static void print_targets(const struct run *run, enum variant v)
{
	struct target t[NR_TARGETS];
	int i, nr = targets(run, v, t);

	printf("\ntargets, %s, N=all is %d:\n", variant_names[v],
	       run->ns[run->nr_ns - 1]);
	for (i = 0; i < nr; i++) {
		if (t[i].known)
			printf("  %-50s %7.2f  (target %s: %s)\n", t[i].what,
			       t[i].value, t[i].rule, t[i].met ? "met" : "MISSED");
		else
			printf("  %-50s %7s  (target %s: not measured)\n",
			       t[i].what, "-", t[i].rule);
	}
}

/* Print @s as a JSON string. */
static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

/* The medians of one figure, and each round's rate for the spread. */
static void json_figure(const struct result *r)
{
	double per_cpu = rate(r), trips = round_trips(r);
	int i;

	printf("\"faults_per_sec_per_cpu\": %.1f, \"ns_per_fault\": %.1f, \"trips_per_1000_faults\": ",
	       per_cpu, per_cpu ? 1e9 / per_cpu : 0);
	if (trips < 0)
		printf("null");
	else
		printf("%.3f", trips);
	printf(", \"rounds_faults_per_sec_per_cpu\": [");
	for (i = 0; i < r->nr; i++)
		printf("%s%.1f", i ? ", " : "", r->round[i].per_cpu);
	printf("]}");
}

static void json_results(const struct run *run, enum variant v, bool *first)
{
	unsigned int row;
	char label[64];
	int col;

	for (row = 0; row < NR_ROWS; row++) {
		if (!run->o->row[row])
			continue;
		row_label(&rows[row], run->task_pages, label, sizeof(label));
		for (col = 0; col < run->nr_ns; col++) {
			const struct result *r = &run->res[v][row][col];

			printf("%s    {\"variant\": \"%s\", \"row\": ", *first ? "" : ",\n",
			       variant_names[v]);
			json_string(label);
			printf(", \"n\": %d, ", run->ns[col]);
			*first = false;
			if (r->skipped) {
				printf("\"skipped\": ");
				json_string(r->skipped);
				printf("}");
				continue;
			}
			json_figure(r);
		}
	}
}

static void json_targets(const struct run *run, enum variant v, bool *first)
{
	struct target t[NR_TARGETS];
	int i, nr = targets(run, v, t);

	for (i = 0; i < nr; i++) {
		printf("%s    {\"variant\": \"%s\", \"target\": ", *first ? "" : ",\n",
		       variant_names[v]);
		json_string(t[i].what);
		printf(", \"rule\": ");
		json_string(t[i].rule);
		if (t[i].known)
			printf(", \"value\": %.3f, \"met\": %s}", t[i].value,
			       t[i].met ? "true" : "false");
		else
			printf(", \"value\": null, \"met\": null}");
		*first = false;
	}
}

static void print_json(const struct run *run, const struct utsname *u,
		       long mem_mib, const char *zone, long high, long batch)
{
	bool first = true;
	int v;

	printf("{\n  \"kernel\": ");
	json_string(u->release);
	printf(",\n  \"cpus\": %d,\n  \"mem_mib\": %ld,\n  \"init_on_alloc\": ",
	       run->nr_cpus, mem_mib);
	json_string(init_on_alloc());
	printf(",\n  \"task_pages\": %zu,\n  \"task_mib\": %.1f,\n  \"passes\": %lu,\n  \"reps\": %lu,\n",
	       run->task_pages, run->task_pages * run->page / 1048576.0,
	       run->o->passes, run->o->reps);
	printf("  \"kernel_pcp\": {\"zone\": ");
	json_string(zone);
	printf(", \"high\": %ld, \"batch\": %ld},\n  \"results\": [\n", high, batch);
	for (v = 0; v < NR_VARIANTS; v++)
		if (run->o->variant[v])
			json_results(run, v, &first);
	printf("\n  ],\n  \"targets\": [\n");
	first = true;
	for (v = 0; v < NR_VARIANTS; v++)
		if (run->o->variant[v])
			json_targets(run, v, &first);
	printf("\n  ]\n}\n");
}

static void print_header(const struct run *run, const struct utsname *u,
			 long mem_mib, const char *zone, long high, long batch)
{
	printf("pcpctl fault: will-it-scale page_fault1 through pcpcache\n");
	printf("kernel %s, %d CPUs, %ld MiB, init_on_alloc=%s\n", u->release,
	       run->nr_cpus, mem_mib, init_on_alloc());
	if (pcp_under_icount())
		printf("clock: instructions under QEMU's icount (tools/vm/run --icount), one a\n"
		       "nanosecond: faults/s is 10^9 over instructions per fault, and repeats\n");
	printf("each task maps %.1f MiB (%zu pages)%s, writes a byte to each page, unmaps, again;\n",
	       run->task_pages * run->page / 1048576.0, run->task_pages,
	       run->shrunk);
	printf("every figure: the median of %lu rounds, the rows in turn; in each, %lu timed pass(es)\n"
	       "per task, started together after one untimed pass\n",
	       run->o->reps, run->o->passes);
	printf("kernel: anonymous memory (no THP), the kernel's own per-CPU lists (%s, CPU 0: high %ld, batch %ld)\n",
	       zone, high, batch);
	printf("others: /dev/pcpcache with that mode and batch/high; round trips are the module's\n"
	       "calls into the buddy allocator: refills, drains and pages taken or given one at a time\n");
}

/* Every figure; the configuration found is put back whatever happens. */
static int run_all(struct run *run)
{
	struct shared *sh;
	char saved[256];
	unsigned long round;
	int v, err = 0;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED || pcp_read_file(PCP_DIR "/config", saved,
					      sizeof(saved)) <= 0) {
		fprintf(stderr, "%s: cannot set up: %s\n", who, strerror(errno));
		return 1;
	}
	saved[strcspn(saved, "\n")] = '\0';
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	for (v = 0; v < NR_VARIANTS && !err; v++)
		for (round = 0; round < run->o->reps && run->o->variant[v] &&
		     !err && !interrupted; round++)
			err = run_round(run, v, sh);
	if (pcp_write("config", saved)) {
		fprintf(stderr, "%s: cannot put the configuration back: %s\n",
			who, saved);
		err = -EIO;
	}
	munmap(sh, sizeof(*sh));
	if (interrupted)
		fprintf(stderr, "%s: interrupted\n", who);
	return err || interrupted ? 1 : 0;
}

int cmd_fault(int argc, char **argv)
{
	static struct run run;
	long mem_mib, high, batch;
	struct opts o;
	char zone[32];
	struct utsname u;
	const char *bad;
	int i, err;

	err = parse_opts(argc, argv, &o);
	if (err >= 0)
		return err;
	bad = unusable();
	if (bad) {
		fprintf(stderr, "%s: %s\n", who, bad);
		return 1;
	}
	run.o = &o;
	run.page = sysconf(_SC_PAGESIZE);
	run.nr_cpus = allowed_cpus(run.cpus);
	for (i = 1; i <= run.nr_cpus; i++)
		if (!o.quick || i == 1 || i == run.nr_cpus)
			run.ns[run.nr_ns++] = i;
	run.task_pages = task_pages(o.mib, run.nr_cpus, run.page, run.shrunk,
				    sizeof(run.shrunk));
	run.dev = pcp_open_device();
	if (run.dev < 0 || !run.task_pages) {
		fprintf(stderr, "%s: %s: %s\n", who, PCPCACHE_DEVICE,
			run.dev < 0 ? strerror(-run.dev) : "the module's limits allow no page");
		return 1;
	}
	uname(&u);
	mem_mib = meminfo_kb("MemTotal:") / 1024;
	kernel_pagesets(zone, &high, &batch);

	err = run_all(&run);
	close(run.dev);
	if (err)
		return err;
	if (o.json) {
		print_json(&run, &u, mem_mib, zone, high, batch);
		return 0;
	}
	print_header(&run, &u, mem_mib, zone, high, batch);
	for (i = 0; i < NR_VARIANTS; i++) {
		if (o.variant[i]) {
			print_table(&run, i);
			print_targets(&run, i);
		}
	}
	return 0;
}
