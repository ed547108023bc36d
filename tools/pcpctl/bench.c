// SPDX-License-Identifier: GPL-2.0
/*
 * pcpctl bench: runs pcpcache's in-kernel benchmarks (module/bench.c,
 * through /sys/kernel/debug/pcpcache/bench) for every mode and the "limit"
 * row, takes the median of several repetitions, and prints one comparison
 * table per benchmark with the ratio to passthrough; --csv, --json and
 * --plot keep the raw data.
 *
 * A row the bench file refuses as too big for the machine (E2BIG) is
 * skipped, saying why, and the run goes on. The benchmarks run with the
 * default knobs; the configuration found is put back at the end. With
 * --json the tables go to stderr and stdout holds one JSON object, written
 * only when the run is complete.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pcpctl.h"
#include "plot.h"
#include "policy.h"

#define LIMIT		4	/* the bench file's flag for the bare list */
#define KERNEL		64	/* the bench file's flag for the kernel's lists */
#define LIMIT_CALL	128	/* the bare list behind two calls of the API's shape */
#define COLD		3	/* allocate and free cold */
#define SPACED		8	/* latency tests: 50 ms between calls */
#define MAX_REPS	15
#define NR_BENCHMARKS	9
#define NR_ORDERS	(PCPCACHE_MAX_ORDER + 1)

/* The knobs every benchmark but the sweep runs with: the defaults. */
#define BENCH_KNOBS	PCP_DEFAULT_KNOBS

static const char * const modes[] = { "passthrough", "single", "split" };
#define LIMIT_ROW	3
#define LIMIT_CALL_ROW	4
#define NR_ROWS		5	/* the modes, "limit" and "limit-call" */
/* benchmark 2 adds "kernel": alloc_pages() and __free_pages() alone */
#define KERNEL_ROW	NR_ROWS
#define NR_PAIR_ROWS	(NR_ROWS + 1)

static const char *row_name(int row)
{
	return row < 3 ? modes[row] : row == LIMIT_ROW ? "limit" :
	       row == LIMIT_CALL_ROW ? "limit-call" : "kernel";
}

/* The bench file's flags of a row: the limits and the kernel's lists. */
static unsigned int row_flags(int row)
{
	return row == LIMIT_ROW ? LIMIT : row == LIMIT_CALL_ROW ? LIMIT_CALL :
	       row == KERNEL_ROW ? KERNEL : 0;
}

/*
 * What get_cycles() counts: instructions in a guest that tools/vm/run
 * --icount booted (QEMU's instruction counter, which it says on the
 * kernel's command line; the CPU model alone cannot tell), else cycles.
 */
static const char *clock_unit = "cycles";

struct opts {
	unsigned int reps;
	unsigned long long only;	/* bit n: run benchmark n */
	bool quick, patterns;
	int barn_full;		/* --barn-full, or -1: the default knobs' */
	const char *set;	/* --set KNOBS, or NULL */
	const char *csv, *plot;
	FILE *out;		/* the tables: stdout, or stderr with --json */
	struct json *js;	/* the figures, with --json */
};

/* One run's per-CPU figures, per operation, or why there are none. */
struct figures {
	int nr;
	int cpu[PCP_MAX_CPUS];
	double a[PCP_MAX_CPUS], b[PCP_MAX_CPUS];
	unsigned long long ops[PCP_MAX_CPUS];
	char skipped[192];	/* "" when measured */
};

/* What run_once() and its callers return, besides 0. */
#define SKIPPED		1	/* refused for this machine: go on */
#define FAILED		(-1)	/* said why: stop */

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double mean(const double *v, int n)
{
	double s = 0;
	int i;

	for (i = 0; i < n; i++)
		s += v[i];
	return n ? s / n : NAN;
}

/*
 * Run "TEST NR K FLAGS" once and read the per-CPU results. A request the
 * bench file refuses as too big for the machine is SKIPPED, with the
 * reason in f->skipped; anything else that goes wrong is FAILED.
 */
/* The signal that asked the run to end: SIGINT, SIGTERM or SIGHUP; or 0. */
static volatile sig_atomic_t bench_cancel;

static void on_bench_signal(int sig)
{
	bench_cancel = sig;
}

static int run_once(const char *test, unsigned int nr, unsigned int k,
		    unsigned int flags, struct figures *f)
{
	char cmd[64], buf[65536], *line, *save = NULL;
	unsigned long long ops, a, b;
	int cpu, err;

	/* asked to end: no more runs, what was changed is put back */
	if (bench_cancel)
		return FAILED;
	snprintf(cmd, sizeof(cmd), "%s %u %u %u", test, nr, k, flags);
	f->nr = 0;
	err = pcp_write("bench", cmd);
	if (err == -E2BIG) {
		snprintf(f->skipped, sizeof(f->skipped),
			 "'%s' would hold more than an eighth of RAM at once (E2BIG)",
			 cmd);
		return SKIPPED;
	}
	if (err) {
		fprintf(stderr, "%s: benchmark %s: %s\n", who, cmd, strerror(-err));
		return FAILED;
	}
	if (pcp_read_file(PCP_DIR "/bench", buf, sizeof(buf)) < 0) {
		fprintf(stderr, "%s: cannot read the results of bench %s\n",
			who, cmd);
		return FAILED;
	}
	for (line = strtok_r(buf, "\n", &save); line && f->nr < PCP_MAX_CPUS;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%d %llu %llu %llu", &cpu, &ops, &a, &b) != 4 || !ops)
			continue;
		f->cpu[f->nr] = cpu;
		f->ops[f->nr] = ops;
		f->a[f->nr] = (double)a / ops;
		f->b[f->nr] = (double)b / ops;
		f->nr++;
	}
	f->skipped[0] = '\0';
	if (!f->nr) {
		fprintf(stderr, "%s: benchmark %s: no results\n", who, cmd);
		return FAILED;
	}
	return 0;
}

/* A warm-up run, then the per-CPU medians of opts->reps runs. */
static int run_median(const struct opts *o, const char *test, unsigned int nr,
		      unsigned int k, unsigned int flags, struct figures *out)
{
	static double a[PCP_MAX_CPUS][MAX_REPS], b[PCP_MAX_CPUS][MAX_REPS];
	unsigned int r;
	int c, err;

	err = run_once(test, nr, k, flags, out);
	for (r = 0; r < o->reps && !err; r++) {
		err = run_once(test, nr, k, flags, out);
		for (c = 0; c < out->nr && !err; c++) {
			a[c][r] = out->a[c];
			b[c][r] = out->b[c];
		}
	}
	if (err)
		return err;
	for (c = 0; c < out->nr; c++) {
		out->a[c] = median(a[c], o->reps);
		out->b[c] = median(b[c], o->reps);
	}
	return 0;
}

static int set_mode(int row)
{
	int err;

	/* the limit rows do not use pcpcache: any mode will do */
	err = pcp_write("mode", row < 3 ? modes[row] : "single");
	if (err)
		fprintf(stderr, "%s: mode: %s\n", who, strerror(-err));
	return err ? FAILED : 0;
}

/*
 * The four rows of benchmarks 1-3 measured in turns: o->reps rounds, each
 * row in turn, so that drift in the machine (under emulation, how the host
 * schedules the vCPUs) falls on every row alike and the ratios between
 * rows stay fair. Each turn switches the mode, makes one untimed run to
 * fill the magazines again, then the timed one; per-CPU medians. A row
 * refused in the first round is skipped from then on.
 */
static int run_rows(const struct opts *o, const char *test, unsigned int nr,
		    struct figures *out, int nr_rows)
{
	static double a[NR_PAIR_ROWS][PCP_MAX_CPUS][MAX_REPS];
	static double b[NR_PAIR_ROWS][PCP_MAX_CPUS][MAX_REPS];
	struct figures f;
	unsigned int r;
	int row, c, err;

	for (row = 0; row < nr_rows; row++)
		out[row].skipped[0] = '\0';
	for (r = 0; r < o->reps; r++) {
		for (row = 0; row < nr_rows; row++) {
			unsigned int flags = row_flags(row);

			if (out[row].skipped[0])
				continue;
			err = set_mode(row);
			if (!err)
				err = run_once(test, nr, 1, flags, &f);
			if (!err)
				err = run_once(test, nr, 1, flags, &f);
			if (err == FAILED)
				return FAILED;
			out[row] = f;
			for (c = 0; c < f.nr; c++) {
				a[row][c][r] = f.a[c];
				b[row][c][r] = f.b[c];
			}
		}
	}
	for (row = 0; row < nr_rows; row++) {
		for (c = 0; c < out[row].nr; c++) {
			out[row].a[c] = median(a[row][c], o->reps);
			out[row].b[c] = median(b[row][c], o->reps);
		}
	}
	return 0;
}

/* CSV files that could not be opened, written or closed: the run fails. */
static int csv_errors;

static FILE *csv_open(const struct opts *o, const char *name, const char *header)
{
	char *path;
	FILE *f;

	int fd;

	if (!o->csv || asprintf(&path, "%s/%s.csv", o->csv, name) < 0)
		return NULL;
	/* never through a symlink, never over a file that is there */
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		fprintf(stderr, "%s: %s: %s%s\n", who, path, strerror(errno),
			errno == EEXIST ? " (not overwritten)" : "");
		if (fd >= 0)
			close(fd);
		csv_errors++;
	} else {
		fprintf(f, "%s\n", header);
	}
	free(path);
	return f;
}

/* A write error shows only here (a full disk): said, and counted. */
static void csv_close(FILE *f)
{
	bool bad;

	if (!f)
		return;
	bad = ferror(f);
	if (fclose(f) || bad) {
		fprintf(stderr, "%s: a CSV file could not be written: %s\n",
			who, strerror(errno));
		csv_errors++;
	}
}

/* v / base as a ratio column; "-" when either is missing. */
static void ratio(FILE *out, double v, double base)
{
	if (base > 0 && isfinite(v))
		fprintf(out, " %8.2fx", v / base);
	else
		fprintf(out, " %9s", "-");
}

/* A benchmark's JSON object, up to its rows. */
static void json_bench(const struct opts *o, int number, const char *name,
		       const char *test, const char *unit)
{
	if (!o->js)
		return;
	json_begin(o->js, NULL, '{');
	json_int(o->js, "number", number);
	json_str(o->js, "name", name);
	if (test)
		json_str(o->js, "test", test);
	json_str(o->js, "unit", unit);
	json_begin(o->js, "rows", '[');
}

static void json_bench_end(const struct opts *o)
{
	if (!o->js)
		return;
	json_end(o->js, ']');
	json_end(o->js, '}');
}

/* A row that did not run, in the table. */
static void skipped_row(const struct opts *o, const char *name,
			const char *why)
{
	fprintf(o->out, "%-12s (skipped: %s)\n", name, why);
}

/* Benchmarks 1 and 3: N allocations then N frees, one CPU or all. */
static int bench_alloc_free(const struct opts *o, bool all, double *pair_one)
{
	const char *test = all ? "concurrent" : "seq";
	unsigned int nr = o->quick ? 500 : 1000;
	double base_a = NAN, base_b = NAN, a, b;
	struct figures rows[NR_ROWS], *f;
	FILE *csv;
	int row, c;

	fprintf(o->out, "\n%d. %s: %u allocations, then %u frees (cycles per operation, median of %u, rows in turns)\n",
		all ? 3 : 1, all ? "every CPU at once" : "one CPU", nr, nr, o->reps);
	fprintf(o->out, "%-12s %10s %10s %9s %9s%s\n", "", "alloc", "free",
		"alloc/pt", "free/pt", all ? "  per CPU alloc/free" : "");
	if (run_rows(o, test, nr, rows, NR_ROWS))
		return FAILED;
	csv = csv_open(o, all ? "3-concurrent" : "1-alloc-then-free",
		       "mode,cpu,alloc_cycles,free_cycles");
	json_bench(o, all ? 3 : 1, all ? "every CPU: allocations, then frees" :
		   "one CPU: allocations, then frees", test,
		   "cycles per operation");
	for (row = 0; row < NR_ROWS; row++) {
		f = &rows[row];
		pair_one[row] = NAN;
		if (o->js) {
			json_begin(o->js, NULL, '{');
			json_str(o->js, "mode", row_name(row));
		}
		if (f->skipped[0]) {
			skipped_row(o, row_name(row), f->skipped);
			if (o->js) {
				json_str(o->js, "skipped", f->skipped);
				json_end(o->js, '}');
			}
			continue;
		}
		a = mean(f->a, f->nr);
		b = mean(f->b, f->nr);
		if (row == 0) {
			base_a = a;
			base_b = b;
		}
		fprintf(o->out, "%-12s %10.0f %10.0f", row_name(row), a, b);
		ratio(o->out, a, base_a);
		ratio(o->out, b, base_b);
		for (c = 0; all && c < f->nr; c++)
			fprintf(o->out, "  %d:%.0f/%.0f", f->cpu[c], f->a[c], f->b[c]);
		fprintf(o->out, "\n");
		for (c = 0; c < f->nr; c++)
			if (csv)
				fprintf(csv, "%s,%d,%.1f,%.1f\n", row_name(row),
					f->cpu[c], f->a[c], f->b[c]);
		if (o->js) {
			json_num(o->js, "alloc", a);
			json_num(o->js, "free", b);
			json_begin(o->js, "per_cpu", '[');
			for (c = 0; c < f->nr; c++) {
				json_begin(o->js, NULL, '{');
				json_int(o->js, "cpu", f->cpu[c]);
				json_num(o->js, "alloc", f->a[c]);
				json_num(o->js, "free", f->b[c]);
				json_end(o->js, '}');
			}
			json_end(o->js, ']');
			json_end(o->js, '}');
		}
		pair_one[row] = a + b;
	}
	json_bench_end(o);
	csv_close(csv);
	return 0;
}

/*
 * Benchmark 2: the same page allocated and freed again and again; fills
 * @out[NR_ROWS], the modes and the limits. Its kernel row, alloc_pages() and __free_pages() with
 * nothing between, is the kernel's own per-CPU list path, which each
 * design is a ratio to.
 */
static int bench_pair(const struct opts *o, double *out)
{
	unsigned int nr = o->quick ? 10000 : 50000;
	struct figures rows[NR_PAIR_ROWS];
	double pair[NR_PAIR_ROWS];
	char unit[32];
	FILE *csv;
	int row;

	fprintf(o->out, "\n2. one CPU: %u alloc/free pairs (%s per pair, median of %u, rows in turns)\n",
		nr, clock_unit, o->reps);
	fprintf(o->out, "%-12s %10s %9s %9s %9s %9s\n", "", "pair", "vs pt", "vs limit",
		"vs l-call", "vs kernel");
	if (run_rows(o, "pair", nr, rows, NR_PAIR_ROWS))
		return FAILED;
	csv = csv_open(o, "2-pair", "mode,pair_cycles");
	snprintf(unit, sizeof(unit), "%s per pair", clock_unit);
	json_bench(o, 2, "one CPU: alloc/free pairs", "pair", unit);
	for (row = 0; row < NR_PAIR_ROWS; row++)
		pair[row] = rows[row].skipped[0] ? NAN : rows[row].a[0];
	memcpy(out, pair, NR_ROWS * sizeof(*out));
	for (row = 0; row < NR_PAIR_ROWS; row++) {
		if (o->js) {
			json_begin(o->js, NULL, '{');
			json_str(o->js, "mode", row_name(row));
		}
		if (rows[row].skipped[0]) {
			skipped_row(o, row_name(row), rows[row].skipped);
			if (o->js) {
				json_str(o->js, "skipped", rows[row].skipped);
				json_end(o->js, '}');
			}
			continue;
		}
		fprintf(o->out, "%-12s %10.0f", row_name(row), pair[row]);
		ratio(o->out, pair[row], pair[0]);
		ratio(o->out, pair[row], pair[LIMIT_ROW]);
		ratio(o->out, pair[row], pair[LIMIT_CALL_ROW]);
		ratio(o->out, pair[row], pair[KERNEL_ROW]);
		fprintf(o->out, "\n");
		if (csv)
			fprintf(csv, "%s,%.1f\n", row_name(row), pair[row]);
		if (o->js) {
			json_num(o->js, "pair", pair[row]);
			json_end(o->js, '}');
		}
	}
	json_bench_end(o);
	csv_close(csv);
	return 0;
}

/* Benchmark 4: Gorman's create/delete in pages, hot and cold. */
static int bench_hotness(const struct opts *o)
{
	static const unsigned int full[] = { 4, 16, 64, 256, 1024, 2048 };
	static const unsigned int quick[] = { 4, 64, 1024 };
	const unsigned int *ks = o->quick ? quick : full;
	int nk = o->quick ? 3 : 6, row, i, cold, err;
	unsigned int nr = o->quick ? 2048 : 4096;
	char note[192] = "";
	struct figures f;
	double v;
	FILE *csv;

	fprintf(o->out, "\n4. every CPU: allocate K pages, write every byte, free them; %u pages per CPU\n"
		"   (cycles per page, mean over CPUs of the median of %u)\n", nr, o->reps);
	fprintf(o->out, "%-12s %5s", "", "");
	for (i = 0; i < nk; i++)
		fprintf(o->out, " %9u", ks[i]);
	fprintf(o->out, "\n");
	csv = csv_open(o, "4-hotness", "mode,temperature,k,cycles_per_page");
	json_bench(o, 4, "every CPU: allocate K pages, write them, free them",
		   "hotness", "cycles per page");
	for (row = 0; row < NR_ROWS; row++) {
		if (set_mode(row))
			goto failed;
		for (cold = 0; cold < 2; cold++) {
			fprintf(o->out, "%-12s %5s", row_name(row), cold ? "cold" : "hot");
			for (i = 0; i < nk; i++) {
				err = run_median(o, "hotness", nr, ks[i],
						 row_flags(row) | (cold ? COLD : 0),
						 &f);
				if (err == FAILED)
					goto failed;
				v = err ? NAN : mean(f.a, f.nr);
				if (err) {
					snprintf(note, sizeof(note), "%s", f.skipped);
					fprintf(o->out, " %9s", "-");
				} else {
					fprintf(o->out, " %9.0f", v);
				}
				if (csv && !err)
					fprintf(csv, "%s,%s,%u,%.1f\n", row_name(row),
						cold ? "cold" : "hot", ks[i], v);
				if (!o->js)
					continue;
				json_begin(o->js, NULL, '{');
				json_str(o->js, "mode", row_name(row));
				json_str(o->js, "temperature", cold ? "cold" : "hot");
				json_int(o->js, "k", ks[i]);
				if (err)
					json_str(o->js, "skipped", f.skipped);
				else
					json_num(o->js, "cycles_per_page", v);
				json_end(o->js, '}');
			}
			fprintf(o->out, "\n");
			fflush(o->out);
		}
	}
	if (note[0])
		fprintf(o->out, "   - skipped: %s\n", note);
	json_bench_end(o);
	csv_close(csv);
	return 0;

failed:
	csv_close(csv);
	return FAILED;
}

/* One row of the sweep: batch @b, high @h; SKIPPED if it cannot be set. */
static int sweep_row(const struct opts *o, unsigned int b, unsigned int h,
		     FILE *csv)
{
	long long ops, trips;
	struct pcp_stats st;
	struct figures f;
	char cfg[128];
	double cycles;
	int err;

	if (o->js) {
		json_begin(o->js, NULL, '{');
		json_int(o->js, "batch", b);
		json_int(o->js, "high", h);
	}
	snprintf(cfg, sizeof(cfg), "mode=single batch=%u high=%u", b, h);
	err = pcp_write("config", cfg);
	if (err == -EINVAL) {
		snprintf(f.skipped, sizeof(f.skipped),
			 "high %u + cold_high over this machine's bound, %lu",
			 h, pcp_max_high_sum());
		err = SKIPPED;
	} else if (err) {
		fprintf(stderr, "%s: %s: %s\n", who, cfg, strerror(-err));
		return FAILED;
	} else {
		pcp_write("drain", "1");
		if (pcp_read_stats(&st))
			return FAILED;
		ops = pcp_stat(&st, "alloc") + pcp_stat(&st, "free");
		trips = pcp_stat(&st, "refill") + pcp_stat(&st, "drain");
		err = run_median(o, "concurrent", o->quick ? 500 : 1000, 1, 0, &f);
		if (err == FAILED || (!err && pcp_read_stats(&st)))
			return FAILED;
	}
	if (err) {
		fprintf(o->out, "%6u %6u %10s %10s  (skipped: %s)\n", b, h, "-",
			"-", f.skipped);
		if (o->js) {
			json_str(o->js, "skipped", f.skipped);
			json_end(o->js, '}');
		}
		return 0;
	}
	ops = pcp_stat(&st, "alloc") + pcp_stat(&st, "free") - ops;
	trips = pcp_stat(&st, "refill") + pcp_stat(&st, "drain") - trips;
	cycles = (mean(f.a, f.nr) + mean(f.b, f.nr)) / 2;
	fprintf(o->out, "%6u %6u %10.0f %10.1f\n", b, h, cycles,
		ops ? 1000.0 * trips / ops : 0);
	if (csv)
		fprintf(csv, "%u,%u,%.1f,%.2f\n", b, h, cycles,
			ops ? 1000.0 * trips / ops : 0);
	if (o->js) {
		json_num(o->js, "cycles_per_op", cycles);
		json_num(o->js, "trips_per_1000", ops ? 1000.0 * trips / ops : 0);
		json_end(o->js, '}');
	}
	return 0;
}

/*
 * Benchmark 5: batch and high under all-CPU load, single mode. Each way of
 * choosing high is swept over the batches in turn, so that the rows of
 * one line of the plot follow each other in the CSV.
 */
static int bench_sweep(const struct opts *o)
{
	static const unsigned int batches[] = { 1, 8, 31, 63, 310 };
	static const unsigned int fixed[] = { 0, 1860, 32768 };	/* 0: 6 x batch */
	unsigned int b, h, high;
	FILE *csv;

	fprintf(o->out, "\n5. every CPU at once, single mode: %u allocations then frees per CPU\n"
		"   (cycles per operation; buddy round trips, refills + drains, per 1000 operations)\n",
		o->quick ? 500 : 1000);
	fprintf(o->out, "%6s %6s %10s %10s\n", "batch", "high", "cycles/op", "trips/1000");
	csv = csv_open(o, "5-sweep", "batch,high,cycles_per_op,trips_per_1000");
	json_bench(o, 5, "every CPU, single mode: batch and high", "concurrent",
		   "cycles per operation");
	for (h = 0; h < ARRAY_SIZE(fixed); h++) {
		for (b = 0; b < ARRAY_SIZE(batches); b++) {
			high = fixed[h] ? fixed[h] : 6 * batches[b];
			/* below batch, or the same row as 6 x batch */
			if (high < batches[b] || (h && high == 6 * batches[b]))
				continue;
			if (sweep_row(o, batches[b], high, csv)) {
				csv_close(csv);
				return FAILED;
			}
		}
	}
	json_bench_end(o);
	csv_close(csv);
	return pcp_write("config", "mode=single " BENCH_KNOBS) ? FAILED : 0;
}

/* One figure of benchmark 6, or why it is missing. */
static int counter_row(const struct opts *o, const char *test, unsigned int nr,
		       struct figures *f)
{
	int err = run_median(o, test, nr, 1, 0, f);

	if (err == SKIPPED)
		fprintf(o->out, "   %s: skipped: %s\n", test, f->skipped);
	if (err == SKIPPED && o->js) {
		json_begin(o->js, NULL, '{');
		json_str(o->js, "what", test);
		json_str(o->js, "skipped", f->skipped);
		json_end(o->js, '}');
	}
	return err;
}

/* A figure of benchmark 6 in cycles: its line, and its JSON row. */
static int cycles_row(const struct opts *o, const char *test, unsigned int nr,
		      const char *what)
{
	struct figures f;
	int err = counter_row(o, test, nr, &f);

	if (err)
		return err;
	fprintf(o->out, "   %-45s %8.1f cycles\n", what, f.a[0]);
	if (o->js) {
		json_begin(o->js, NULL, '{');
		json_str(o->js, "what", test);
		json_num(o->js, "cycles", f.a[0]);
		json_end(o->js, '}');
	}
	return 0;
}

/* Benchmark 6: what counting costs, and a mode switch under load. */
static int bench_counters(const struct opts *o, double *switch_ms)
{
	unsigned int switches = o->quick ? 10 : 40;
	struct figures f;
	int err;

	fprintf(o->out, "\n6. counters and switches\n");
	json_bench(o, 6, "counters and switches", NULL, "see each row");
	err = cycles_row(o, "counter", 50000, "one counter update (this_cpu_add):");
	if (err != FAILED)
		err = cycles_row(o, "stats", 200,
				 "summing every counter, all other CPUs busy:");
	if (err != FAILED)
		err = counter_row(o, "switch", switches, &f);
	if (!err) {
		*switch_ms = f.b[0] * f.ops[0] / 1e6;
		fprintf(o->out, "   %-45s %8.2f ms mean, %.2f ms worst\n",
			"mode switch, all other CPUs busy:", f.a[0] / 1e6,
			*switch_ms);
		if (o->js) {
			json_begin(o->js, NULL, '{');
			json_str(o->js, "what", "switch");
			json_num(o->js, "mean_ms", f.a[0] / 1e6);
			json_num(o->js, "worst_ms", *switch_ms);
			json_end(o->js, '}');
		}
	}
	if (err == FAILED)
		return FAILED;
	json_bench_end(o);
	return set_mode(1);
}

/*
 * Benchmark 7: benchmark 2 for each order the magazines cache, in the
 * three modes; figures per pair of blocks. Fills @ratio_pt[order] with
 * single mode's pair over passthrough's.
 */
static int bench_orders(const struct opts *o, double *ratio_pt)
{
	unsigned int nr = o->quick ? 2000 : 10000, order;
	struct figures f;
	double pair[4];		/* the modes, then limit-call */
	FILE *csv;
	int row, err;

	fprintf(o->out, "\n7. one CPU: %u alloc/free pairs of each order (cycles per pair, median of %u)\n",
		nr, o->reps);
	fprintf(o->out, "%-6s %12s %12s %12s %12s %10s %10s %12s\n", "order",
		modes[0], modes[1], modes[2], "limit-call", "single/pt",
		"split/pt", "single/l-call");
	csv = csv_open(o, "7-orders", "order,mode,pair_cycles");
	json_bench(o, 7, "one CPU: alloc/free pairs per order", "pair",
		   "cycles per pair");
	for (order = 0; order < NR_ORDERS; order++) {
		for (row = 0; row < 4; row++) {
			err = set_mode(row);
			if (!err)
				err = run_median(o, "pair", nr, 1, order << 4 |
						 (row == 3 ? LIMIT_CALL : 0), &f);
			if (err == FAILED) {
				csv_close(csv);
				return FAILED;
			}
			pair[row] = err ? NAN : f.a[0];
			if (csv && !err)
				fprintf(csv, "%u,%s,%.1f\n", order,
					row_name(row == 3 ? LIMIT_CALL_ROW : row),
					pair[row]);
		}
		ratio_pt[order] = pair[1] / pair[0];
		fprintf(o->out, "%-6u %12.0f %12.0f %12.0f %12.0f %10.2f %10.2f %12.2f\n",
			order, pair[0], pair[1], pair[2], pair[3],
			pair[1] / pair[0], pair[2] / pair[0], pair[1] / pair[3]);
		if (o->js) {
			json_begin(o->js, NULL, '{');
			json_int(o->js, "order", order);
			for (row = 0; row < 3; row++)
				json_num(o->js, modes[row], pair[row]);
			json_num(o->js, "limit-call", pair[3]);
			json_end(o->js, '}');
		}
	}
	json_bench_end(o);
	csv_close(csv);
	return set_mode(1);
}

/* One row of benchmark 8: its figures, or why it has none. */
struct phased {
	double cycles, trips, peak, final, settle;
	char skipped[160];
};

/*
 * @v in @buf for a table: "-" when there is none (not measured), else with
 * @prec decimals, more for a value below 0.1 so that two of its digits show
 * (a ratio of 0.00005 is not 0.00).
 */
static const char *cell(char *buf, size_t size, double v, int prec)
{
	int digits = prec;

	if (!isfinite(v))
		return "-";
	if (v != 0 && fabs(v) < 0.1)
		digits = 1 - (int)floor(log10(fabs(v)));
	if (digits < prec)
		digits = prec;
	snprintf(buf, size, "%.*f", digits, v);
	return buf;
}

/* Seconds until every CPU's high is back at @high_min; NAN after 30. */
static double settle_time(long high_min)
{
	static struct pcp_pageset sets[PCP_MAX_CPUS];
	struct timespec t0, t;
	int i, nr;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		nr = pcp_read_pagesets(sets, PCP_MAX_CPUS);
		for (i = 0; i < nr && sets[i].high == high_min; i++)
			;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (nr > 0 && i == nr)
			return t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9;
		usleep(100000);
	} while (t.tv_sec - t0.tv_sec < 30);
	return NAN;
}

/*
 * Run the phased workload once under @cfg (single mode): cycles per
 * operation, buddy round trips per 1000 operations, the peak pages cached
 * (the kernel's sample) and those left at the end; for high=auto, how
 * long the CPUs then take to be back at high_min.
 */
static int phased_row(const struct opts *o, const char *cfg, struct phased *ph)
{
	unsigned int nr = o->quick ? 1024 : 4096, k = o->quick ? 8 : 32;
	char cmd[64], buf[65536], *line, *save = NULL;
	unsigned long long ops = 0, a = 0, peak = 0, lops, la, lb;
	long long trips, bops;
	long high_min;
	struct pcp_stats st;
	int cpu, err;

	ph->skipped[0] = '\0';
	ph->settle = NAN;
	err = pcp_write("config", cfg);
	if (err == -EINVAL) {
		snprintf(ph->skipped, sizeof(ph->skipped),
			 "over this machine's bound, %lu", pcp_max_high_sum());
		return SKIPPED;
	}
	if (err) {
		fprintf(stderr, "%s: %s: %s\n", who, cfg, strerror(-err));
		return FAILED;
	}
	if (pcp_write("drain", "1") || pcp_read_stats(&st)) {
		fprintf(stderr, "%s: cannot drain or read the counters\n", who);
		return FAILED;
	}
	bops = pcp_stat(&st, "alloc") + pcp_stat(&st, "free");
	trips = pcp_stat(&st, "refill") + pcp_stat(&st, "drain");
	snprintf(cmd, sizeof(cmd), "phased %u %u 0", nr, k);
	err = pcp_write("bench", cmd);
	if (err == -E2BIG) {
		snprintf(ph->skipped, sizeof(ph->skipped),
			 "would hold more than an eighth of RAM (E2BIG)");
		return SKIPPED;
	}
	if (err) {
		fprintf(stderr, "%s: benchmark %s: %s\n", who, cmd, strerror(-err));
		return FAILED;
	}
	if (pcp_read_stats(&st) ||
	    pcp_read_file(PCP_DIR "/bench", buf, sizeof(buf)) < 0) {
		fprintf(stderr, "%s: cannot read the results of benchmark %s\n", who, cmd);
		return FAILED;
	}
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%d %llu %llu %llu", &cpu, &lops, &la, &lb) != 4)
			continue;
		ops += lops;
		a += la;
		peak = lb > peak ? lb : peak;
	}
	bops = pcp_stat(&st, "alloc") + pcp_stat(&st, "free") - bops;
	trips = pcp_stat(&st, "refill") + pcp_stat(&st, "drain") - trips;
	ph->cycles = ops ? (double)a / ops : NAN;
	ph->trips = bops ? 1000.0 * trips / bops : NAN;
	ph->peak = peak;
	ph->final = pcp_stat(&st, "cached");
	if (strstr(cfg, "high=auto") && !pcp_read_long("high_min", &high_min))
		ph->settle = settle_time(high_min);
	return 0;
}

/*
 * Benchmark 8: high=auto against the fixed batch/high pairs of benchmark
 * 5, under the phased workload. Fills @auto_row and, in @best, the row
 * with auto's batch (63) and the fewest round trips: auto tunes high, not
 * batch, so that is the setting it has to match.
 */
static int bench_phased(const struct opts *o, struct phased *auto_row,
			struct phased *best)
{
	static const unsigned int full[][2] = {
		{ 1, 6 }, { 8, 48 }, { 31, 186 }, { 63, 378 }, { 310, 1860 },
		{ 1, 1860 }, { 8, 1860 }, { 31, 1860 }, { 63, 1860 },
		{ 1, 32768 }, { 8, 32768 }, { 31, 32768 }, { 63, 32768 },
		{ 310, 32768 },
	};
	static const unsigned int quick[][2] = {
		{ 63, 378 }, { 310, 1860 }, { 63, 1860 }, { 310, 32768 },
	};
	unsigned int n = o->quick ? ARRAY_SIZE(quick) : ARRAY_SIZE(full), i;
	char c1[32], c2[32], c3[32], c4[32], c5[32];
	const unsigned int (*pairs)[2] = o->quick ? quick : full;
	struct phased ph;
	char cfg[96];
	FILE *csv;
	int err;

	fprintf(o->out, "\n8. every CPU at once, single mode: phases of bursts of K x 1, 8, 2, 32, 4 pages\n"
		"   allocated then freed, 100 ms idle between (K %u; high=auto against fixed pairs)\n",
		o->quick ? 8 : 32);
	fprintf(o->out, "%-12s %10s %10s %8s %8s %10s\n", "batch/high", "cycles/op",
		"trips/1000", "peak", "final", "settle_s");
	csv = csv_open(o, "8-phased",
		       "setting,cycles_per_op,trips_per_1000,peak_cached,final_cached,settle_s");
	json_bench(o, 8, "every CPU, phased bursts: high=auto and fixed", "phased",
		   "cycles per operation");
	best->trips = NAN;
	best->skipped[0] = '\0';
	for (i = 0; i <= n; i++) {
		if (i < n)
			snprintf(cfg, sizeof(cfg), "mode=single batch=%u high=%u",
				 pairs[i][0], pairs[i][1]);
		else
			snprintf(cfg, sizeof(cfg), "mode=single batch=63 high=auto");
		err = phased_row(o, cfg, &ph);
		if (err == FAILED) {
			csv_close(csv);
			return FAILED;
		}
		if (i < n)
			snprintf(cfg, sizeof(cfg), "%u/%u", pairs[i][0], pairs[i][1]);
		else
			snprintf(cfg, sizeof(cfg), "63/auto");
		if (o->js) {
			json_begin(o->js, NULL, '{');
			json_str(o->js, "setting", cfg);
		}
		if (err) {
			fprintf(o->out, "%-12s  (skipped: %s)\n", cfg, ph.skipped);
			if (o->js) {
				json_str(o->js, "skipped", ph.skipped);
				json_end(o->js, '}');
			}
			continue;
		}
		fprintf(o->out, "%-12s %10s %10s %8s %8s %10s\n", cfg,
			cell(c1, sizeof(c1), ph.cycles, 0), cell(c2, sizeof(c2), ph.trips, 1),
			cell(c3, sizeof(c3), ph.peak, 0), cell(c4, sizeof(c4), ph.final, 0),
			cell(c5, sizeof(c5), ph.settle, 1));
		if (csv)
			fprintf(csv, "%s,%.1f,%.2f,%.0f,%.0f,%.1f\n", cfg,
				ph.cycles, ph.trips, ph.peak, ph.final, ph.settle);
		if (o->js) {
			json_num(o->js, "cycles_per_op", ph.cycles);
			json_num(o->js, "trips_per_1000", ph.trips);
			json_num(o->js, "peak_cached", ph.peak);
			json_num(o->js, "final_cached", ph.final);
			if (i == n)
				json_num(o->js, "settle_s", ph.settle);
			json_end(o->js, '}');
		}
		if (i == n)
			*auto_row = ph;
		else if (pairs[i][0] == 63 && !(best->trips <= ph.trips))
			*best = ph;
	}
	json_bench_end(o);
	csv_close(csv);
	return pcp_write("config", "mode=single " BENCH_KNOBS) ? FAILED : 0;
}

/* Benchmark 9's figures for one locking design. */
#define NR_LATENCIES	3
static const char * const latency_tests[NR_LATENCIES] = {
	"switch", "drain", "shrink",
};

struct design {
	double pair[NR_ROWS];		/* the modes and limits, cycles per pair */
	double all;			/* all-CPU alloc + free, single */
	/* [busy, a CPU held][switch, drain, shrink][mean, worst], in ms */
	double lat[2][NR_LATENCIES][2];
	char held_skipped[128];	/* why the held half did not run, or "" */
};

/* Every figure of @d NAN, as not measured. */
static void design_init(struct design *d)
{
	double *v;

	for (v = d->pair; v < d->pair + NR_ROWS; v++)
		*v = NAN;
	for (v = &d->lat[0][0][0]; v < &d->lat[0][0][0] + 2 * NR_LATENCIES * 2; v++)
		*v = NAN;
	d->all = NAN;
	d->held_skipped[0] = '\0';
}

/* The highest online CPU, from the online list ("0-3,6"); 0 if unknown. */
static int last_online_cpu(void)
{
	char buf[4096], *p;

	if (pcp_read_file("/sys/devices/system/cpu/online", buf, sizeof(buf)) <= 0)
		return 0;
	buf[strcspn(buf, "\n")] = '\0';
	p = buf + strlen(buf);
	while (p > buf && p[-1] != '-' && p[-1] != ',')
		p--;
	return atoi(p);
}

/*
 * Why a SCHED_FIFO loop must not run here, or NULL: without RT throttling
 * (sched_rt_runtime_us -1) it would hold its CPU for good, and the bench's
 * thread there, and so the whole run, would wait for ever.
 */
static const char *hog_refused(void)
{
	char buf[32];

	if (pcp_read_file("/proc/sys/kernel/sched_rt_runtime_us", buf,
			  sizeof(buf)) <= 0 || atol(buf) < 0)
		return "RT throttling is off or unknown (sched_rt_runtime_us)";
	return NULL;
}

/* Where pcpctl ran before start_hog() moved it off the held CPU. */
static cpu_set_t hog_was;

/*
 * A SCHED_FIFO busy loop on @cpu, as a real-time task on an isolated CPU
 * would be: the kernel's RT throttling (95%) still lets the CPU's other
 * tasks run 50 ms a second. It dies with pcpctl, or after 5 minutes in
 * any case. Its pid, or -1 when it could not start (EPERM, say).
 *
 * pcpctl leaves @cpu first, until stop_hog(): on PREEMPT_RT a timer armed
 * there (its own usleep()) would never fire, ktimers being SCHED_FIFO at
 * the loop's priority, queued behind it; 6.1-rt hung so.
 */
static pid_t start_hog(int cpu)
{
	struct sched_param sp = { .sched_priority = 1 };
	pid_t pid, parent = getpid();
	int status;

	if (sched_getaffinity(0, sizeof(hog_was), &hog_was) || pcp_leave_cpu(cpu))
		return -1;
	pid = fork();
	if (pid < 0) {
		sched_setaffinity(0, sizeof(hog_was), &hog_was);
		return -1;
	}
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/* the parent may have died before the line above */
		if (getppid() != parent)
			_exit(1);
		alarm(300);
		if (pcp_pin(cpu) || sched_setscheduler(0, SCHED_FIFO, &sp))
			_exit(1);
		for (;;)
			__asm__ volatile("" ::: "memory");
	}
	usleep(200000);
	if (waitpid(pid, &status, WNOHANG) == pid) {
		sched_setaffinity(0, sizeof(hog_was), &hog_was);
		return -1;
	}
	return pid;
}

static void stop_hog(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	sched_setaffinity(0, sizeof(hog_was), &hog_was);
}

/* The latencies of @d->lat[held]: mean and worst of a few calls each. */
static int design_latencies(const struct opts *o, struct design *d, int held)
{
	unsigned int nr = o->quick ? 3 : 20, i;
	struct figures f;
	int err;

	for (i = 0; i < NR_LATENCIES; i++) {
		/* spaced: out of step with the held CPU's RT throttling */
		err = run_once(latency_tests[i], nr, i == 2 ? 512 : 1,
			       held ? SPACED : 0, &f);
		if (err)
			return FAILED;
		d->lat[held][i][0] = f.a[0] / 1e6;
		d->lat[held][i][1] = f.b[0] * f.ops[0] / 1e6;
	}
	return 0;
}

/* Load @lock and measure it: pairs, all-CPU, latencies busy and held. */
static int measure_design(const struct opts *o, const char *lock,
			  struct design *d)
{
	unsigned int nr = o->quick ? 10000 : 50000;
	struct figures rows[NR_ROWS], f;
	int row, cpu = last_online_cpu();
	const char *refused;
	char params[32];
	pid_t hog;

	snprintf(params, sizeof(params), "lock=%s", lock);
	if (pcp_reload(params) || pcp_write("config", "mode=single " BENCH_KNOBS)) {
		fprintf(stderr, "%s: cannot load pcpcache %s\n", who, params);
		return FAILED;
	}
	if (run_rows(o, "pair", nr, rows, NR_ROWS))
		return FAILED;
	for (row = 0; row < NR_ROWS; row++)
		d->pair[row] = rows[row].skipped[0] ? NAN : rows[row].a[0];
	if (set_mode(1) || run_median(o, "concurrent", o->quick ? 500 : 1000, 1, 0, &f))
		return FAILED;
	d->all = mean(f.a, f.nr) + mean(f.b, f.nr);
	if (design_latencies(o, d, 0))
		return FAILED;
	refused = hog_refused();
	hog = refused ? -1 : start_hog(cpu);
	if (hog < 0) {
		snprintf(d->held_skipped, sizeof(d->held_skipped), "%s",
			 refused ? refused : "cannot run a SCHED_FIFO loop (no permission?)");
		return 0;
	}
	d->held_skipped[0] = '\0';
	row = design_latencies(o, d, 1);
	stop_hog(hog);
	return row;
}

static void design_line(const struct opts *o, const char *what,
			const char *key, double local, double spin)
{
	char a[32], b[32], r[32];

	fprintf(o->out, "%-44s %10s %10s %10s\n", what, cell(a, sizeof(a), local, 2),
		cell(b, sizeof(b), spin, 2), cell(r, sizeof(r), spin / local, 2));
	if (!o->js)
		return;
	json_begin(o->js, NULL, '{');
	json_str(o->js, "what", key);
	json_num(o->js, "local", local);
	json_num(o->js, "spin", spin);
	json_end(o->js, '}');
}

/*
 * Whether modprobe can load pcpcache again: modules.dep lists it (an
 * insmod from a build tree leaves it out, and it would stay unloaded).
 */
static bool modprobe_finds_pcpcache(void)
{
	char path[320], *line = NULL;
	struct utsname u;
	bool found = false;
	size_t size = 0;
	FILE *f;

	uname(&u);
	snprintf(path, sizeof(path), "/lib/modules/%s/modules.dep", u.release);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (!found && getline(&line, &size, f) > 0) {
		char *colon = strchr(line, ':'), *name;

		if (!colon)
			continue;
		*colon = '\0';
		name = strrchr(line, '/');
		name = name ? name + 1 : line;
		found = !strncmp(name, "pcpcache.ko", strlen("pcpcache.ko"));
	}
	free(line);
	fclose(f);
	return found;
}

/*
 * Benchmark 9: the two locking designs in one run, the module reloaded
 * between them and then with the design it had. Fills @d[0] (local) and
 * @d[1] (spin).
 */
static int bench_designs(const struct opts *o, struct design d[2])
{
	static const char * const held[2] = { "every CPU busy",
					       "a CPU held by SCHED_FIFO" };
	char found[16] = "spin", what[64], key[64];
	const char *skipped = NULL;
	int err, i, h;

	if (pcp_nr_cpus() < 2)
		skipped = "needs two CPUs online";
	else if (!modprobe_finds_pcpcache())
		skipped = "modprobe cannot load pcpcache here (loaded with insmod?)";
	if (skipped) {
		fprintf(o->out, "\n9. the locking designs: skipped: %s\n", skipped);
		json_bench(o, 9, "the locking designs", NULL, "see each row");
		if (o->js) {
			json_begin(o->js, NULL, '{');
			json_str(o->js, "skipped", skipped);
			json_end(o->js, '}');
		}
		json_bench_end(o);
		return 0;
	}
	if (pcp_read_file(PCP_SYSFS "/parameters/lock", found, sizeof(found)) > 0)
		found[strcspn(found, "\n")] = '\0';
	err = measure_design(o, "local", &d[0]);
	if (!err)
		err = measure_design(o, "spin", &d[1]);
	snprintf(what, sizeof(what), "lock=%s", found);
	if (pcp_reload(what) || pcp_write("config", "mode=single " BENCH_KNOBS)) {
		fprintf(stderr, "%s: cannot load pcpcache %s again\n", who, what);
		return FAILED;
	}
	if (err)
		return FAILED;
	fprintf(o->out, "\n9. the locking designs, pcpcache reloaded for each (single mode; the\n"
		"   latencies: ms, mean and worst of %u calls; CPU %d held by a SCHED_FIFO loop)\n",
		o->quick ? 3 : 20, last_online_cpu());
	if (d[0].held_skipped[0])
		fprintf(o->out, "   (the held rows skipped: %s)\n", d[0].held_skipped);
	fprintf(o->out, "%-44s %10s %10s %10s\n", "", "local", "spin", "spin/local");
	json_bench(o, 9, "the locking designs", NULL, "see each row");
	design_line(o, "hit pair (cycles)", "hit_pair", d[0].pair[1], d[1].pair[1]);
	design_line(o, "hit pair / passthrough pair", "hit_pair_over_passthrough",
		    d[0].pair[1] / d[0].pair[0], d[1].pair[1] / d[1].pair[0]);
	design_line(o, "hit pair / limit pair", "hit_pair_over_limit",
		    d[0].pair[1] / d[0].pair[LIMIT_ROW],
		    d[1].pair[1] / d[1].pair[LIMIT_ROW]);
	design_line(o, "hit pair / limit-call pair", "hit_pair_over_limit_call",
		    d[0].pair[1] / d[0].pair[LIMIT_CALL_ROW],
		    d[1].pair[1] / d[1].pair[LIMIT_CALL_ROW]);
	design_line(o, "all-CPU alloc + free (cycles)", "all_cpu", d[0].all, d[1].all);
	if (o->js && d[0].held_skipped[0]) {
		json_begin(o->js, NULL, '{');
		json_str(o->js, "what", "held");
		json_str(o->js, "skipped", d[0].held_skipped);
		json_end(o->js, '}');
	}
	for (h = 0; h < 2; h++) {
		for (i = 0; i < NR_LATENCIES; i++) {
			snprintf(what, sizeof(what), "%s, %s: mean", latency_tests[i], held[h]);
			snprintf(key, sizeof(key), "%s_%s_mean_ms", latency_tests[i],
				 h ? "held" : "busy");
			design_line(o, what, key, d[0].lat[h][i][0], d[1].lat[h][i][0]);
			snprintf(what, sizeof(what), "%s, %s: worst", latency_tests[i], held[h]);
			snprintf(key, sizeof(key), "%s_%s_worst_ms", latency_tests[i],
				 h ? "held" : "busy");
			design_line(o, what, key, d[0].lat[h][i][1], d[1].lat[h][i][1]);
		}
	}
	json_bench_end(o);
	return 0;
}

/*
 * --patterns (issue 27): frees that do not go home. purger: every CPU but
 * the first allocates, keeping up to K pages, and the first frees them in
 * bursts of 512, jemalloc's purger; exit: the first frees at once what the
 * others allocated. In every mode the module lists and in the kernel row
 * (the bench file's flag 64: alloc_pages() itself, the kernel's lists).
 */
#define MAX_DESIGNS	16
#define PATTERN_KEEP	1024	/* K: each allocator's pages at most */

struct pattern {
	const char *name;	/* the bench file's test */
	double buddy_in, buddy_out, refills, drains;	/* per 1000 ops */
	double cycles, parked_mean, parked_peak, transit;
	double whole;		/* % of the pages given back, in whole blocks */
	char per_cpu[256];	/* pages parked per CPU at the end */
	char skipped[192];
};

/* The modes the mode file lists ("passthrough [single] split"), in order. */
static int read_designs(char names[][32], int max)
{
	char buf[512], path[256], *tok, *save = NULL;
	int n = 0;

	pcp_path(path, sizeof(path), "mode");
	if (pcp_read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	for (tok = strtok_r(buf, " \n", &save); tok && n < max;
	     tok = strtok_r(NULL, " \n", &save)) {
		tok += *tok == '[';
		tok[strcspn(tok, "]")] = '\0';
		snprintf(names[n++], 32, "%s", tok);
	}
	return n;
}

/* A counter's growth from @st0 to @st1 per 1000 of @ops. */
static double per_1000(const struct pcp_stats *st0, const struct pcp_stats *st1,
		       const char *name, unsigned long long ops)
{
	return 1000.0 * (pcp_stat(st1, name) - pcp_stat(st0, name)) / ops;
}

/* Each CPU's pages cached now, "0:378 1:0", from the pagesets file. */
static void parked_per_cpu(char *buf, size_t size)
{
	static struct pcp_pageset sets[PCP_MAX_CPUS];
	int i, nr = pcp_read_pagesets(sets, PCP_MAX_CPUS);
	size_t len = 0;

	buf[0] = '\0';
	for (i = 0; i < nr && len < size; i++)
		len += snprintf(buf + len, size - len, "%s%d:%ld", i ? " " : "",
				sets[i].cpu, sets[i].count +
				(sets[i].cold_count > 0 ? sets[i].cold_count : 0));
}

/*
 * One pattern in one design (@mode NULL: the kernel's lists): an untimed
 * run, then o->reps runs, their counters, cycles and parked pages summed.
 */
static int pattern_row(const struct opts *o, const char *mode, unsigned int nr,
		       struct pattern *p)
{
	unsigned long long ops = 0, a = 0, lops, la, lb, samples, mean, peak;
	unsigned long long from, absorbed;
	char cmd[64], buf[65536], *line, *save;
	uint64_t kin = 0, kout = 0;
	struct pcp_stats st0, st1;
	bool counting = false;
	struct klists kl;
	double means = 0;
	unsigned int r;
	int cpu, err;

	p->skipped[0] = p->per_cpu[0] = '\0';
	p->parked_peak = 0;
	snprintf(cmd, sizeof(cmd), "%s %u %u %u", p->name, nr,
		 strcmp(p->name, "exit") ? PATTERN_KEEP : 1, mode ? 0 : KERNEL);
	/* the kernel row does not use pcpcache: any mode will do */
	err = pcp_write("mode", mode ? mode : "single");
	if (!err)
		err = pcp_write("drain", "1");
	for (r = 0; r <= o->reps && !err; r++) {
		if (r == 1 && pcp_read_stats(&st0))
			err = -EIO;
		/* the kernel's lists: their traffic with the zones, by tracefs */
		if (r == 1 && !mode && !err)
			counting = !klists_start(&kl);
		err = err ?: bench_cancel ? -EINTR : pcp_write("bench", cmd);
		if (err || !r)
			continue;
		if (pcp_read_file(PCP_DIR "/bench", buf, sizeof(buf)) < 0) {
			err = -EIO;
			break;
		}
		for (line = strtok_r(buf, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			if (sscanf(line, "parked %llu %llu %llu", &samples, &mean,
				   &peak) == 3) {
				means += mean;
				p->parked_peak = fmax(p->parked_peak, peak);
			} else if (sscanf(line, "%d %llu %llu %llu", &cpu, &lops,
					  &la, &lb) == 4) {
				ops += lops;
				a += la;
			}
		}
	}
	if (counting)
		klists_stop(&kl, &kin, &kout);
	if (err == -E2BIG) {
		snprintf(p->skipped, sizeof(p->skipped),
			 "'%s' would hold more than an eighth of RAM at once (E2BIG)", cmd);
		return SKIPPED;
	}
	if (err) {
		fprintf(stderr, "%s: %s, benchmark %s: %s\n", who,
			mode ? mode : "kernel", cmd, strerror(-err));
		return FAILED;
	}
	if (pcp_read_stats(&st1) || !ops) {
		fprintf(stderr, "%s: benchmark %s: no results\n", who, cmd);
		return FAILED;
	}
	p->cycles = (double)a / ops;
	p->parked_mean = means / o->reps;
	/* the kernel's lists: pages they took from and gave to the zones */
	p->buddy_in = mode ? per_1000(&st0, &st1, "buddy_alloc", ops) :
		      counting ? 1000.0 * kin / ops : NAN;
	p->buddy_out = mode ? per_1000(&st0, &st1, "buddy_free", ops) :
		       counting ? 1000.0 * kout / ops : NAN;
	p->refills = mode ? per_1000(&st0, &st1, "refill", ops) : NAN;
	p->drains = mode ? per_1000(&st0, &st1, "drain", ops) : NAN;
	p->whole = NAN;
	if (mode && p->buddy_out > 0)
		p->whole = 100.0 * per_1000(&st0, &st1, "block_whole_pages", ops) /
			   p->buddy_out;
	/* counters of the designs with remote frees, where the module has them */
	p->transit = 0;
	if (mode && pcp_stat_find(&st1, "remote_frees", &from) &&
	    pcp_stat_find(&st1, "remote_absorbed", &absorbed))
		p->transit = (double)(from - absorbed);
	if (mode)
		parked_per_cpu(p->per_cpu, sizeof(p->per_cpu));
	return 0;
}

static void pattern_print(const struct opts *o, const char *design,
			  const struct pattern *p)
{
	char c[10][32];

	if (o->js) {
		json_begin(o->js, NULL, '{');
		json_str(o->js, "pattern", p->name);
		json_str(o->js, "design", design);
	}
	if (p->skipped[0]) {
		skipped_row(o, design, p->skipped);
		if (o->js) {
			json_str(o->js, "skipped", p->skipped);
			json_end(o->js, '}');
		}
		return;
	}
	fprintf(o->out, "%-12s %7s %7s %7s %7s %7s %9s %7s %7s %7s %6s  %s\n", design,
		cell(c[0], 32, p->buddy_in, 1), cell(c[1], 32, p->buddy_out, 1),
		cell(c[2], 32, p->buddy_in + p->buddy_out, 1),
		cell(c[3], 32, p->refills, 2), cell(c[4], 32, p->drains, 2),
		cell(c[5], 32, p->cycles, 0), cell(c[6], 32, p->parked_mean, 0),
		cell(c[7], 32, p->parked_peak, 0), cell(c[8], 32, p->transit, 0),
		cell(c[9], 32, p->whole, 0), p->per_cpu[0] ? p->per_cpu : "-");
	if (!o->js)
		return;
	json_num(o->js, "buddy_alloc_per_1000", p->buddy_in);
	json_num(o->js, "buddy_free_per_1000", p->buddy_out);
	json_num(o->js, "refills_per_1000", p->refills);
	json_num(o->js, "drains_per_1000", p->drains);
	json_num(o->js, "cycles_per_op", p->cycles);
	json_num(o->js, "parked_mean", p->parked_mean);
	json_num(o->js, "parked_peak", p->parked_peak);
	json_num(o->js, "in_transit", p->transit);
	json_num(o->js, "whole_block_percent", p->whole);
	json_str(o->js, "parked_per_cpu_at_end", p->per_cpu);
	json_end(o->js, '}');
}

/*
 * Whether this runs under QEMU's TCG emulator, by the CPU's model name,
 * with its clock the emulator's time. Under its instruction counter
 * (header() saw tools/vm/run --icount) a figure of time is instructions,
 * which repeat: judged as on a machine.
 */
static bool under_tcg(void)
{
	char line[256];
	bool tcg = false;
	FILE *f;

	if (!strcmp(clock_unit, "instructions"))
		return false;
	f = pcp_fopen("/proc/cpuinfo", "r");
	if (!f)
		return false;
	while (!tcg && fgets(line, sizeof(line), f))
		tcg = !strncmp(line, "model name", 10) && strstr(line, "QEMU TCG CPU");
	fclose(f);
	return tcg;
}

/*
 * A target's line. A figure of time (cycles, milliseconds, seconds) under
 * QEMU's TCG emulator is the emulator's: it is shown with its target but
 * not judged. Counts of pages and trips are judged everywhere.
 */
static void verdict(const struct opts *o, const char *what, double v,
		    double target, bool timing)
{
	bool judged = isfinite(v) && !(timing && under_tcg());
	bool met = v <= target;

	if (judged)
		fprintf(o->out, "   %-52s %7.2f  (target <= %.2f: %s)\n", what, v,
			target, met ? "met" : "MISSED");
	else if (isfinite(v))
		fprintf(o->out, "   %-52s %7.2f  (target <= %.2f: not judged, TCG timing)\n",
			what, v, target);
	else
		fprintf(o->out, "   %-52s %7s  (target <= %.2f: not measured)\n",
			what, "-", target);
	if (!o->js)
		return;
	json_begin(o->js, NULL, '{');
	json_str(o->js, "what", what);
	json_num(o->js, "value", v);
	json_num(o->js, "target_at_most", target);
	json_bool(o->js, "judged", judged);
	if (judged)
		json_bool(o->js, "met", met);
	json_end(o->js, '}');
}

/* The index of design @name in @designs, or -1. */
static int find_design(char designs[][32], int nd, const char *name)
{
	int d;

	for (d = 0; d < nd; d++)
		if (!strcmp(designs[d], name))
			return d;
	return -1;
}

static void local_pattern_row(const struct opts *o, const char *design,
			      double cycles, double ratio)
{
	char a[32], b[32];

	fprintf(o->out, "%-12s %9s %12s\n", design, cell(a, sizeof(a), cycles, 0),
		cell(b, sizeof(b), ratio, 2));
	if (!o->js)
		return;
	json_begin(o->js, NULL, '{');
	json_str(o->js, "design", design);
	json_num(o->js, "cycles_per_pair", cycles);
	json_end(o->js, '}');
}

/*
 * The local pattern: a hit pair on one CPU in each design, the designs
 * taking turns within each of o->reps rounds (as run_rows() takes its
 * rows), the median per design into @pair. Then, where modprobe can load
 * pcpcache again, single's under lock=spin and lock=trylock into
 * @lock_pair, the module reloaded for each turn and at the end with the
 * design it had; NAN where it cannot.
 */
static int local_pattern(const struct opts *o, char designs[][32], int nd,
			 double *pair, double *lock_pair)
{
	static const char * const locks[] = { "spin", "trylock" };
	static double v[MAX_DESIGNS][MAX_REPS], lv[2][MAX_REPS];
	unsigned int nr = o->quick ? 10000 : 50000, r;
	char found[16] = "spin", params[32];
	int single = find_design(designs, nd, "single"), d, l, err = 0;
	const char *skipped = NULL;
	struct figures f;

	for (r = 0; r < o->reps && !err; r++) {
		for (d = 0; d < nd && !err; d++) {
			err = pcp_write("mode", designs[d]);
			if (err)
				fprintf(stderr, "%s: mode %s: %s\n", who, designs[d],
					strerror(-err));
			/* one untimed run fills the magazine again */
			err = err ?: run_once("pair", nr, 1, 0, &f);
			err = err ?: run_once("pair", nr, 1, 0, &f);
			if (!err)
				v[d][r] = f.a[0];
		}
	}
	if (err)
		return FAILED;
	for (d = 0; d < nd; d++)
		pair[d] = median(v[d], o->reps);
	lock_pair[0] = lock_pair[1] = NAN;
	if (!modprobe_finds_pcpcache())
		skipped = "modprobe cannot load pcpcache here (loaded with insmod?)";
	if (pcp_read_file(PCP_SYSFS "/parameters/lock", found, sizeof(found)) > 0)
		found[strcspn(found, "\n")] = '\0';
	for (r = 0; r < o->reps && !skipped && !err; r++) {
		for (l = 0; l < 2 && !err; l++) {
			snprintf(params, sizeof(params), "lock=%s", locks[l]);
			err = pcp_reload(params) ||
			      pcp_write("config", "mode=single " BENCH_KNOBS);
			if (err)
				fprintf(stderr, "%s: cannot load pcpcache %s\n", who, params);
			err = err ?: run_once("pair", nr, 1, 0, &f);
			err = err ?: run_once("pair", nr, 1, 0, &f);
			if (!err)
				lv[l][r] = f.a[0];
		}
	}
	if (!skipped) {
		snprintf(params, sizeof(params), "lock=%s", found);
		if (pcp_reload(params) || pcp_write("config", "mode=single " BENCH_KNOBS)) {
			fprintf(stderr, "%s: cannot load pcpcache %s again\n", who, params);
			return FAILED;
		}
		if (err)
			return FAILED;
		for (l = 0; l < 2; l++)
			lock_pair[l] = median(lv[l], o->reps);
	}

	fprintf(o->out, "\nlocal pattern: a hit pair (an allocation and a free on one CPU), cycles, the\n"
		"median of %u rounds, the designs in turns (lock=%s); single's under lock=spin\n"
		"and lock=trylock, pcpcache reloaded for each\n"
		"\n%-12s %9s %12s\n", o->reps, found, "design", "cycles", "over single");
	json_bench(o, 11, "local pattern: hit pair", "pair", "cycles per pair");
	for (d = 0; d < nd; d++)
		local_pattern_row(o, designs[d], pair[d], single < 0 ? NAN :
				  pair[d] / pair[single]);
	if (skipped) {
		skipped_row(o, "lock=", skipped);
	} else {
		for (l = 0; l < 2; l++) {
			snprintf(params, sizeof(params), "lock=%s", locks[l]);
			local_pattern_row(o, params, lock_pair[l],
					  lock_pair[l] / lock_pair[0]);
		}
	}
	json_bench_end(o);
	return 0;
}

/* @what of design @name over single's, NAN where either is missing. */
static double over_single(char designs[][32], int nd, const struct pattern *p,
			  const char *name, double (*what)(const struct pattern *))
{
	int d = find_design(designs, nd, name), s = find_design(designs, nd, "single");

	if (d < 0 || s < 0 || p[d].skipped[0] || p[s].skipped[0])
		return NAN;
	return what(&p[d]) / what(&p[s]);
}

static double buddy_traffic(const struct pattern *p)
{
	return p->buddy_in + p->buddy_out;
}

static double peak_parked(const struct pattern *p)
{
	return p->parked_peak;
}

/* Issue 27's targets, from the figures of this run. */
static void patterns_targets(const struct opts *o, char designs[][32], int nd,
			     const struct pattern *purger,
			     const struct pattern *exits, const double *pair,
			     const double *lock_pair)
{
	int b = find_design(designs, nd, "blocks"), s = find_design(designs, nd, "single");
	int r = find_design(designs, nd, "remote");
	double piecemeal = NAN;

	fprintf(o->out, "\nPattern targets, judged at 2 CPUs (the project's machines' core count)\n");
	if (under_tcg())
		fprintf(o->out, "   (QEMU's TCG emulator: its timing is the emulator's, not a machine's;\n"
			"   the targets of time are shown, not judged; counts of pages are judged)\n");
	if (sysconf(_SC_NPROCESSORS_ONLN) != 2)
		fprintf(o->out, "   (%ld CPUs here: the verdicts are shown, not judged)\n",
			sysconf(_SC_NPROCESSORS_ONLN));
	if (o->js)
		json_begin(o->js, "targets", '[');
	verdict(o, "purger: remote buddy in+out / single's",
		over_single(designs, nd, purger, "remote", buddy_traffic), 0.2, false);
	verdict(o, "purger: blocks buddy in+out / single's",
		over_single(designs, nd, purger, "blocks", buddy_traffic), 0.2, false);
	verdict(o, "purger: barn buddy in+out / single's",
		over_single(designs, nd, purger, "barn", buddy_traffic), 0.2, false);
	verdict(o, "purger: remote peak parked / single's",
		over_single(designs, nd, purger, "remote", peak_parked), 1.25, false);
	verdict(o, "purger: blocks peak parked / single's",
		over_single(designs, nd, purger, "blocks", peak_parked), 1.25, false);
	verdict(o, "purger: barn peak parked / single's",
		over_single(designs, nd, purger, "barn", peak_parked), 1.25, false);
	if (b >= 0 && !exits[b].skipped[0])
		piecemeal = 1 - exits[b].whole / 100;
	verdict(o, "exit: blocks, share given back page by page", piecemeal, 0.2, false);
	verdict(o, "local: remote hit pair / single's",
		r >= 0 && s >= 0 ? pair[r] / pair[s] : NAN, 1.05, true);
	verdict(o, "local: blocks hit pair / single's",
		b >= 0 && s >= 0 ? pair[b] / pair[s] : NAN, 1.05, true);
	verdict(o, "lock=trylock hit pair / lock=spin's (single)",
		lock_pair[1] / lock_pair[0], 1.1, true);
	if (o->js)
		json_end(o->js, ']');
}

/* The patterns against every design the module lists, and the kernel's. */
static int run_patterns(const struct opts *o)
{
	static const char * const tests[] = { "purger", "exit" };
	unsigned int nr = o->quick ? 4096 : 16384, t;
	static struct pattern p[ARRAY_SIZE(tests)][MAX_DESIGNS + 1];
	char designs[MAX_DESIGNS][32], zone[32], knobs[256];
	int nd = read_designs(designs, MAX_DESIGNS), d, err;
	double pair[MAX_DESIGNS], lock_pair[2];
	long high, batch;

	if (nd <= 0) {
		fprintf(stderr, "%s: cannot read the modes from the mode file\n", who);
		return FAILED;
	}
	kernel_pagesets(zone, &high, &batch);
	if (pcp_read_file(PCP_DIR "/config", knobs, sizeof(knobs)) <= 0)
		snprintf(knobs, sizeof(knobs), "?");
	knobs[strcspn(knobs, "\n")] = '\0';
	fprintf(o->out, "\npatterns (%s): purger, every CPU but the first allocates %u pages\n"
		"in all keeping up to %u each, the first frees them in bursts of 512; exit, the\n"
		"others allocate %u pages, then the first frees them all. Per 1000 operations (an\n"
		"allocation or a free): pages taken from (in) and given back to (out) the buddy\n"
		"allocator, refills, drains; cycles per operation; pages parked (cached, in\n"
		"transit, at home in blocks or in a barn: mean and peak after each burst;\n"
		"cached per CPU at the end, a barn's on no CPU); whole: the share of pages\n"
		"given back in whole blocks (blocks mode; in percent); sums of %u runs\n"
		"after an untimed one. kernel: alloc_pages() itself, the kernel's own lists (%s,\n"
		"CPU 0: high %ld, batch %ld): in and out are the pages they refilled from and\n"
		"drained to the zones (tracefs: kmem:mm_page_alloc_zone_locked with\n"
		"percpu_refill, kmem:mm_page_pcpu_drain), whatever else ran meanwhile; their\n"
		"refills and drains are not counted; parked is what they hold, every CPU and zone\n",
		strchr(knobs, ' ') ? strchr(knobs, ' ') + 1 : knobs, nr, PATTERN_KEEP,
		nr, o->reps, zone, high, batch);
	if (o->js)
		json_begin(o->js, "benchmarks", '[');
	json_bench(o, 10, "patterns: purger and exit", NULL, "see each row");
	if (pcp_nr_cpus() < 2) {
		fprintf(o->out, "   skipped: needs two CPUs online\n");
		json_bench_end(o);
		if (o->js)
			json_end(o->js, ']');
		return 0;
	}
	for (t = 0; t < ARRAY_SIZE(tests); t++) {
		fprintf(o->out, "\n%-12s %7s %7s %7s %7s %7s %9s %7s %7s %7s %6s  %s\n",
			tests[t], "in", "out", "in+out", "refills", "drains",
			"cycles/op", "parked", "peak", "transit", "whole",
			"per CPU at end");
		for (d = 0; d <= nd; d++) {
			p[t][d].name = tests[t];
			err = pattern_row(o, d < nd ? designs[d] : NULL, nr, &p[t][d]);
			if (err == FAILED)
				return FAILED;
			pattern_print(o, d < nd ? designs[d] : "kernel", &p[t][d]);
			fflush(o->out);
		}
	}
	json_bench_end(o);
	if (local_pattern(o, designs, nd, pair, lock_pair))
		return FAILED;
	if (o->js)
		json_end(o->js, ']');
	patterns_targets(o, designs, nd, p[0], p[1], pair, lock_pair);
	return 0;
}

/* The gnuplot script of plot(): every path a string, no shell command. */
static void plot_script(FILE *f, const char *hotness, const char *sweep,
			const char *png4, const char *png5)
{
	fputs("set terminal png size 1000,650\n"
	      "set datafile separator ','\n"
	      "set grid\n"
	      "set key outside right\n"
	      "set output ", f);
	gp_string(f, png4);
	fputs("\nset title 'Allocate K pages, write every byte, free them (every CPU)'\n"
	      "set xlabel 'K, pages per round'\n"
	      "set ylabel 'cycles per page'\n"
	      "set logscale x 2\n"
	      "plot for [m in 'passthrough single split limit limit-call'] for [t in 'hot cold'] ", f);
	gp_string(f, hotness);
	fputs(" \\\n  using 3:((strcol(1) eq m && strcol(2) eq t) ? $4 : NaN) \\\n"
	      "  with linespoints title m.' '.t\n"
	      "unset logscale x\n"
	      "set output ", f);
	gp_string(f, png5);
	fputs("\nset title 'Single mode, every CPU at once: batch and high'\n"
	      "set xlabel 'batch'\n"
	      "set ylabel 'cycles per operation'\n"
	      "set logscale x\n"
	      "plot ", f);
	gp_string(f, sweep);
	fputs(" using 1:(($2 == 6 * $1) ? $3 : NaN) \\\n"
	      "       with linespoints title 'high = 6 x batch', \\\n"
	      "     for [h in '1860 32768'] ", f);
	gp_string(f, sweep);
	fputs(" \\\n       using 1:((strcol(2) eq h) ? $3 : NaN) \\\n"
	      "       with linespoints title 'high = '.h\n", f);
}

/*
 * Gorman-style plots of benchmarks 4 and 5 from the CSV files in @csvdir,
 * as PNGs into @dir. gnuplot picks each line's rows from the CSV itself:
 * no shell ever sees a path, whatever characters it holds, and no path
 * reaches gnuplot as a command.
 */
static int plot(const char *csvdir, const char *dir, FILE *out)
{
	char script[] = "/tmp/pcpctl-plot-XXXXXX";
	char *hotness = NULL, *sweep = NULL, *png4 = NULL, *png5 = NULL;
	int fd, err = 1;
	FILE *f;

	if (strpbrk(csvdir, "\n\r") || strpbrk(dir, "\n\r")) {
		fprintf(stderr, "%s: --plot: gnuplot cannot name a path with a line break\n",
			who);
		return 2;
	}
	if (asprintf(&hotness, "%s%s/4-hotness.csv", gp_prefix(csvdir), csvdir) < 0 ||
	    asprintf(&sweep, "%s%s/5-sweep.csv", gp_prefix(csvdir), csvdir) < 0 ||
	    asprintf(&png4, "%s%s/4-hotness.png", gp_prefix(dir), dir) < 0 ||
	    asprintf(&png5, "%s%s/5-sweep.png", gp_prefix(dir), dir) < 0)
		goto out;
	if (mkdir(dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "%s: %s: %s\n", who, dir, strerror(errno));
		goto out;
	}
	if (create_new(png4))
		goto out;
	if (create_new(png5)) {
		unlink(png4);
		goto out;
	}
	fd = mkstemp(script);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		fprintf(stderr, "%s: cannot write a gnuplot script\n", who);
		if (fd >= 0)
			close(fd);
		goto out;
	}
	plot_script(f, hotness, sweep, png4, png5);
	if (ferror(f) | fclose(f)) {
		fprintf(stderr, "%s: cannot write a gnuplot script: %s\n", who,
			strerror(errno));
		err = 1;
	} else {
		err = run_gnuplot(script);
	}
	unlink(script);
	if (err) {
		fprintf(stderr, "%s: gnuplot failed%s\n", who,
			err == 127 ? ": it is not installed ('make deps')" : "");
		/* no empty PNG left behind to pass for a plot */
		unlink(png4);
		unlink(png5);
	} else {
		fprintf(out, "plots in %s\n", dir);
	}
	err = err ? 1 : 0;
out:
	free(hotness);
	free(sweep);
	free(png4);
	free(png5);
	return err;
}

static void bench_usage(FILE *f)
{
	fprintf(f,
		"usage: pcpctl bench [--quick] [--reps N] [--only LIST] [--csv DIR] [--json]\n"
		"                    [--plot DIR]\n"
		"       pcpctl bench --patterns [--quick] [--reps N] [--json]\n"
		"                    [--barn-full N] [--set KNOBS]\n"
		"       pcpctl bench --plot DIR --from CSVDIR\n"
		"\n"
		"Runs pcpcache's in-kernel benchmarks (kernel threads pinned to their\n"
		"CPUs, timed with get_cycles()) in each mode and in the 'limit' row, a\n"
		"bare per-CPU list with interrupts off and no counters, and prints one\n"
		"table per benchmark with ratios to passthrough, then the performance\n"
		"targets. A row too big for this machine is skipped, saying why. Runs\n"
		"with the default knobs, and puts back the configuration it found.\n"
		"Benchmark 9 reloads pcpcache with each locking design, then with the\n"
		"one it found (other module parameters go back to their defaults), and\n"
		"runs a SCHED_FIFO busy loop on the last CPU for a while.\n"
		"\n"
		"  --quick     smaller sizes, for a first look (make demo)\n"
		"  --reps N    repetitions per figure, 1 to 15, the median is shown\n"
		"              (default 5, 3 with --quick)\n"
		"  --csv DIR   write the raw figures as CSV files into DIR\n"
		"  --json      the figures as one JSON object on stdout, the tables\n"
		"              on stderr\n"
		"  --only LIST run only these benchmarks, e.g. 1,2 (no target verdicts)\n"
		"  --plot DIR  draw PNG plots with gnuplot from the CSV files (those of\n"
		"              --csv, or of --from CSVDIR without running anything)\n"
		"  --patterns  only the purger and exit patterns, in every mode the\n"
		"              module lists and on the kernel's own lists: buddy traffic,\n"
		"              refills, drains, cycles, pages parked and in transit;\n"
		"              a hit pair in each, under lock=spin and lock=trylock;\n"
		"              the pattern targets\n"
		"  --barn-full N  with --patterns: barn mode's barn_full, 0 to 32,\n"
		"              instead of the default (where the bound allows)\n"
		"  --set KNOBS with --patterns: knobs for every row instead of the\n"
		"              default's, as pcpctl set takes them ('batch=16\n"
		"              high=16 barn_full=32'; not mode, which is each row's)\n");
}

/* Whether the kernel runs with init_on_alloc=0, which a figure depends on. */
static const char *init_on_alloc(void)
{
	char cmdline[4096];

	if (pcp_read_file("/proc/cmdline", cmdline, sizeof(cmdline)) > 0 &&
	    strstr(cmdline, "init_on_alloc=0"))
		return "init_on_alloc=0";
	return "init_on_alloc=1 (unless the kernel's default is off)";
}

/* The machine, first in the tables and in the JSON. */
static void header(const struct opts *o)
{
	struct utsname u;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	long mib = sysconf(_SC_PHYS_PAGES) * (sysconf(_SC_PAGESIZE) / 1024) / 1024;

	uname(&u);
	if (pcp_under_icount())
		clock_unit = "instructions";
	fprintf(o->out, "pcpcache benchmarks: kernel %s, %ld CPUs online, %ld MiB, %s\n",
		u.release, cpus, mib, init_on_alloc());
	if (strcmp(clock_unit, "cycles"))
		fprintf(o->out, "clock: instructions under QEMU's icount (tools/vm/run --icount): every\n"
			"figure called cycles below is instructions, and repeats\n");
	fprintf(o->out, "pt = passthrough; limit = a bare per-CPU list, interrupts off, no counters;\n"
		"limit-call (l-call) = the same list behind two calls of the API's shape\n");
	fflush(o->out);
	if (!o->js)
		return;
	json_str(o->js, "kernel", u.release);
	json_str(o->js, "clock", clock_unit);
	json_int(o->js, "cpus", cpus);
	json_int(o->js, "mem_mib", mib);
	json_bool(o->js, "init_on_alloc", !strstr(init_on_alloc(), "=0"));
	json_int(o->js, "reps", o->reps);
	json_bool(o->js, "quick", o->quick);
}

/* Every benchmark asked for; FAILED at the first that cannot go on. */
static int run_all(const struct opts *o)
{
	double one[NR_ROWS], all[NR_ROWS], pair[NR_ROWS], switch_ms = NAN;
	double orders[NR_ORDERS];
	struct phased auto_row = { .trips = NAN, .peak = NAN, .settle = NAN };
	struct phased best = { .trips = NAN, .peak = NAN };
	struct design d[2];
	char what[64];
	int n;

	for (n = 0; n < 2; n++)
		design_init(&d[n]);
	for (n = 0; n < NR_ROWS; n++)
		one[n] = all[n] = pair[n] = NAN;
	for (n = 0; n < NR_ORDERS; n++)
		orders[n] = NAN;
	if (o->js)
		json_begin(o->js, "benchmarks", '[');
	if ((o->only & 1 << 1 && bench_alloc_free(o, false, one)) ||
	    (o->only & 1 << 2 && bench_pair(o, pair)) ||
	    (o->only & 1 << 3 && bench_alloc_free(o, true, all)) ||
	    (o->only & 1 << 4 && bench_hotness(o)) ||
	    (o->only & 1 << 5 && bench_sweep(o)) ||
	    (o->only & 1 << 6 && bench_counters(o, &switch_ms)) ||
	    (o->only & 1 << 7 && bench_orders(o, orders)) ||
	    (o->only & 1 << 8 && bench_phased(o, &auto_row, &best)) ||
	    (o->only & 1 << 9 && bench_designs(o, d)))
		return FAILED;
	if (o->js)
		json_end(o->js, ']');
	if (o->only != (1ULL << (NR_BENCHMARKS + 1)) - 2)
		return 0;

	fprintf(o->out, "\nPerformance targets, judged at 2 CPUs (the project's machines' core count)\n");
	if (under_tcg())
		fprintf(o->out, "   (QEMU's TCG emulator: its timing is the emulator's, not a machine's;\n"
			"   the targets of time are shown, not judged; counts of pages are judged)\n");
	if (sysconf(_SC_NPROCESSORS_ONLN) != 2)
		fprintf(o->out, "   (%ld CPUs here: the verdicts are shown, not judged)\n",
			sysconf(_SC_NPROCESSORS_ONLN));
	if (o->js)
		json_begin(o->js, "targets", '[');
	verdict(o, "hit pair / passthrough pair (single)", pair[1] / pair[0], 0.2, true);
	verdict(o, "hit pair / limit pair (single)", pair[1] / pair[LIMIT_ROW], 1.5, true);
	verdict(o, "hit pair / limit-call pair (single)", pair[1] / pair[LIMIT_CALL_ROW],
		1.5, true);
	verdict(o, "all-CPU / one-CPU alloc+free (single)", all[1] / one[1], 1.1, true);
	verdict(o, "all-CPU / one-CPU alloc+free (split)", all[2] / one[2], 1.1, true);
	verdict(o, "mode switch under all-CPU load, worst (ms)", switch_ms, 10, true);
	for (n = 1; n < NR_ORDERS; n++) {
		snprintf(what, sizeof(what), "order %d pair / passthrough's (single)", n);
		verdict(o, what, orders[n], 0.3, true);
	}
	verdict(o, "phased: auto trips / fewest fixed trips at batch 63",
		auto_row.trips == best.trips ? 1 : auto_row.trips / best.trips, 1.1, false);
	verdict(o, "phased: auto peak / that setting's peak", auto_row.peak / best.peak, 1.2, false);
	verdict(o, "phased: auto back at high_min after (s)", auto_row.settle, 10, true);
	verdict(o, "lock=spin hit pair / lock=local's", d[1].pair[1] / d[0].pair[1], 1.3, true);
	verdict(o, "lock=local hit pair / limit pair", d[0].pair[1] / d[0].pair[LIMIT_ROW],
		1.5, true);
	verdict(o, "lock=local hit pair / limit-call pair",
		d[0].pair[1] / d[0].pair[LIMIT_CALL_ROW], 1.5, true);
	verdict(o, "lock=local hit pair / passthrough pair", d[0].pair[1] / d[0].pair[0], 0.2, true);
	verdict(o, "lock=spin switch, a CPU held, worst (ms)", d[1].lat[1][0][1], 1, true);
	verdict(o, "lock=spin shrinker scan, a CPU held, worst (ms)", d[1].lat[1][2][1], 1, true);
	if (o->js)
		json_end(o->js, ']');
	return 0;
}

/* The configuration found, to put back; 0 or FAILED. */
static int save_config(char *buf, size_t size)
{
	char path[256];

	pcp_path(path, sizeof(path), "config");
	if (pcp_read_file(path, buf, size) > 0)
		return 0;
	fprintf(stderr, "%s: cannot read %s\n", who, path);
	return FAILED;
}

int cmd_bench(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "quick", no_argument, NULL, 'q' },
		{ "reps", required_argument, NULL, 'r' },
		{ "csv", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "plot", required_argument, NULL, 'p' },
		{ "from", required_argument, NULL, 'f' },
		{ "only", required_argument, NULL, 'o' },
		{ "patterns", no_argument, NULL, 'P' },
		{ "barn-full", required_argument, NULL, 'B' },
		{ "set", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	struct opts o = { .out = stdout, .barn_full = -1 };
	struct sigaction sa = { 0 };
	unsigned int barn_full;
	char knob[16];
	struct stat st;
	const char *from = NULL;
	char *json = NULL, found[256];
	size_t json_len = 0;
	struct json js;
	bool want_json = false;
	int opt, err;

	while ((opt = next_option(argc, argv, longopts)) != -1) {
		switch (opt) {
		case 'q':
			o.quick = true;
			break;
		case 'r':
			if (parse_uint_arg("--reps", optarg, 1, MAX_REPS, &o.reps))
				return 2;
			break;
		case 'c':
			o.csv = optarg;
			break;
		case 'j':
			want_json = true;
			break;
		case 'p':
			o.plot = optarg;
			break;
		case 'f':
			from = optarg;
			break;
		case 'o':
			if (parse_list_arg("--only", optarg, 1, NR_BENCHMARKS, false,
					   &o.only, 1))
				return 2;
			break;
		case 'P':
			o.patterns = true;
			break;
		case 'B':
			if (parse_uint_arg("--barn-full", optarg, 0, 32, &barn_full))
				return 2;
			o.barn_full = barn_full;
			break;
		case 's':
			o.set = optarg;
			break;
		case 'h':
			bench_usage(stdout);
			return 0;
		default:
			return 2;
		}
	}
	if (no_operands(argc, argv, optind))
		return 2;
	if ((from && !*from) || (o.plot && !*o.plot) || (o.csv && !*o.csv)) {
		fprintf(stderr, "%s: --from, --plot and --csv need a directory's name, not ''\n",
			who);
		return 2;
	}
	if (from && (o.csv || want_json || o.only || o.reps || o.quick)) {
		fprintf(stderr, "%s: --from only draws the plots of CSV files: --csv, --json, --only, --quick and --reps do not go with it\n",
			who);
		return 2;
	}
	if ((o.barn_full >= 0 || o.set) && !o.patterns) {
		fprintf(stderr, "%s: --barn-full and --set go with --patterns only\n", who);
		return 2;
	}
	if (o.set) {
		struct pcpcache_config c = { 0 };

		/* the grammar here; the module has the last word on the rules */
		if (strstr(o.set, "mode=") ||
		    pcpcache_config_parse(&c, o.set, strlen(o.set))) {
			fprintf(stderr, "%s: --set '%.*s': knobs as pcpctl set takes them, not mode, which is each row's\n",
				who, QUOTE_MAX, o.set);
			return 2;
		}
	}
	if (o.patterns && (from || o.csv || o.plot || o.only)) {
		fprintf(stderr, "%s: --patterns prints its table alone: --csv, --from, --only and --plot do not go with it\n",
			who);
		return 2;
	}
	/* after the loop, so that the order of the options does not matter */
	if (!o.reps)
		o.reps = o.quick ? 3 : 5;
	if (!o.only)
		o.only = (1ULL << (NR_BENCHMARKS + 1)) - 2;
	if (from && !o.plot) {
		fprintf(stderr, "%s: --from needs --plot DIR\n", who);
		return 2;
	}
	if (from)
		return plot(from, o.plot, stdout);
	if (o.plot && !o.csv) {
		fprintf(stderr, "%s: --plot needs --csv DIR (or --from CSVDIR)\n", who);
		return 2;
	}
	if (need_writable() || need_debugfs_file("bench"))
		return 1;
	if (o.csv && mkdir(o.csv, 0755) && errno != EEXIST) {
		fprintf(stderr, "%s: %s: %s\n", who, o.csv, strerror(errno));
		return 1;
	}
	if (o.csv) {
		int serr = stat(o.csv, &st) ? errno : 0;

		if (serr || !S_ISDIR(st.st_mode)) {
			fprintf(stderr, "%s: --csv %s: %s\n", who, o.csv,
				serr ? strerror(serr) : "not a directory");
			return 1;
		}
	}
	if (save_config(found, sizeof(found)))
		return 1;
	if (want_json) {
		/* stdout holds the JSON alone, written once the run is whole */
		o.out = stderr;
		json_open(&js, open_memstream(&json, &json_len));
		if (!js.f)
			return 1;
		o.js = &js;
		json_begin(o.js, NULL, '{');
	}
	/*
	 * SIGINT, SIGTERM and SIGHUP end the run: an in-kernel benchmark
	 * stops with EINTR, no other starts, the locking design and the
	 * configuration found are put back, then pcpctl dies by the signal.
	 */
	sa.sa_handler = on_bench_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	header(&o);
	err = pcp_write("config", BENCH_KNOBS);
	if (err)
		fprintf(stderr, "%s: %s: %s\n", who, BENCH_KNOBS, strerror(-err));
	if (!err && o.barn_full >= 0) {
		snprintf(knob, sizeof(knob), "%d", o.barn_full);
		err = pcp_write("barn_full", knob);
		if (err)
			fprintf(stderr, "%s: barn_full=%s: %s\n", who, knob, strerror(-err));
	}
	if (!err && o.set) {
		err = pcp_write("config", o.set);
		if (err)
			fprintf(stderr, "%s: --set %s: %s\n", who, o.set, strerror(-err));
	}
	if (!err)
		err = o.patterns ? run_patterns(&o) : run_all(&o);
	if (pcp_write("config", found))
		fprintf(stderr, "%s: cannot put the configuration back: %s",
			who, found);
	if (bench_cancel) {
		fprintf(stderr, "%s: ended by %s; the configuration and the locking design are back as they were found\n",
			who, strsignal(bench_cancel));
		signal(bench_cancel, SIG_DFL);
		raise(bench_cancel);
		return 1;
	}
	if (o.js) {
		json_end(o.js, '}');
		fclose(js.f);
		if (!err)
			fputs(json, stdout);
		free(json);
	}
	if (err)
		return 1;
	if (csv_errors) {
		fprintf(stderr, "%s: %d CSV files in %s could not be written\n",
			who, csv_errors, o.csv);
		return 1;
	}
	if (o.csv)
		fprintf(o.out, "CSV files in %s\n", o.csv);
	return o.plot ? plot(o.csv, o.plot, o.out) : 0;
}
