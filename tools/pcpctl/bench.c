// SPDX-License-Identifier: GPL-2.0
/*
 * pcpctl bench: runs pcpcache's in-kernel benchmarks (module/bench.c,
 * through /sys/kernel/debug/pcpcache/bench) for every mode and the "limit"
 * row, takes the median of several repetitions, and prints one comparison
 * table per benchmark with the ratio to passthrough; --csv, --json and
 * --plot keep the raw data.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "pcpctl.h"

#define LIMIT		4	/* the bench file's flag for the bare list */
#define COLD		3	/* allocate and free cold */
#define MAX_REPS	15

static const char * const modes[] = { "passthrough", "single", "split" };
#define NR_ROWS		4	/* the modes and "limit" */

static const char *row_name(int row)
{
	return row < 3 ? modes[row] : "limit";
}

#define NR_BENCHMARKS	6

struct opts {
	unsigned int reps;
	unsigned int only;	/* bit n: run benchmark n; 0: all */
	bool quick, json;
	const char *csv, *plot;
	FILE *js;		/* JSON goes here while tables go to stdout */
};

/* One run's per-CPU figures, per operation. */
struct figures {
	int nr;
	int cpu[PCP_MAX_CPUS];
	double a[PCP_MAX_CPUS], b[PCP_MAX_CPUS];
};

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

/* Run "TEST NR K FLAGS" once and read the per-CPU results. */
static int run_once(const char *test, unsigned int nr, unsigned int k,
		    unsigned int flags, struct figures *f)
{
	char cmd[64], buf[65536], *line, *save = NULL;
	unsigned long long ops, a, b;
	int cpu, err;

	snprintf(cmd, sizeof(cmd), "%s %u %u %u", test, nr, k, flags);
	err = pcp_write("bench", cmd);
	if (err) {
		fprintf(stderr, "%s: bench %s: %s\n", prog, cmd, strerror(-err));
		return err;
	}
	if (pcp_read_file(PCP_DIR "/bench", buf, sizeof(buf)) < 0)
		return -EIO;
	f->nr = 0;
	for (line = strtok_r(buf, "\n", &save); line && f->nr < PCP_MAX_CPUS;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%d %llu %llu %llu", &cpu, &ops, &a, &b) != 4 || !ops)
			continue;
		f->cpu[f->nr] = cpu;
		f->a[f->nr] = (double)a / ops;
		f->b[f->nr] = (double)b / ops;
		f->nr++;
	}
	return f->nr ? 0 : -EIO;
}

/* A warm-up run, then the per-CPU medians of opts->reps runs. */
static int run_median(const struct opts *o, const char *test, unsigned int nr,
		      unsigned int k, unsigned int flags, struct figures *out)
{
	static double a[PCP_MAX_CPUS][MAX_REPS], b[PCP_MAX_CPUS][MAX_REPS];
	struct figures f;
	unsigned int r;
	int c, err;

	err = run_once(test, nr, k, flags, &f);
	for (r = 0; r < o->reps && !err; r++) {
		err = run_once(test, nr, k, flags, &f);
		for (c = 0; c < f.nr && !err; c++) {
			a[c][r] = f.a[c];
			b[c][r] = f.b[c];
		}
	}
	if (err)
		return err;
	*out = f;
	for (c = 0; c < f.nr; c++) {
		out->a[c] = median(a[c], o->reps);
		out->b[c] = median(b[c], o->reps);
	}
	return 0;
}

static int set_mode(int row);

/*
 * The four rows of benchmarks 1-3 measured in turns: o->reps rounds, each
 * row in turn, so that drift in the machine (under emulation, how the host
 * schedules the vCPUs) falls on every row alike and the ratios between
 * rows stay fair. Each turn switches the mode, makes one untimed run to
 * fill the magazines again, then the timed one; per-CPU medians.
 */
static int run_rows(const struct opts *o, const char *test, unsigned int nr,
		    struct figures out[NR_ROWS])
{
	static double a[NR_ROWS][PCP_MAX_CPUS][MAX_REPS];
	static double b[NR_ROWS][PCP_MAX_CPUS][MAX_REPS];
	struct figures f;
	unsigned int r;
	int row, c;

	for (r = 0; r < o->reps; r++) {
		for (row = 0; row < NR_ROWS; row++) {
			unsigned int flags = row == 3 ? LIMIT : 0;

			if (set_mode(row) || run_once(test, nr, 1, flags, &f) ||
			    run_once(test, nr, 1, flags, &f))
				return 1;
			out[row] = f;
			for (c = 0; c < f.nr; c++) {
				a[row][c][r] = f.a[c];
				b[row][c][r] = f.b[c];
			}
		}
	}
	for (row = 0; row < NR_ROWS; row++) {
		for (c = 0; c < out[row].nr; c++) {
			out[row].a[c] = median(a[row][c], o->reps);
			out[row].b[c] = median(b[row][c], o->reps);
		}
	}
	return 0;
}

static double mean(const double *v, int n)
{
	double s = 0;
	int i;

	for (i = 0; i < n; i++)
		s += v[i];
	return n ? s / n : 0;
}

static int set_mode(int row)
{
	/* the limit row does not use pcpcache: any mode will do */
	return pcp_write("mode", row < 3 ? modes[row] : "single");
}

static FILE *csv_open(const struct opts *o, const char *name, const char *header)
{
	char path[512];
	FILE *f;

	if (!o->csv)
		return NULL;
	snprintf(path, sizeof(path), "%s/%s.csv", o->csv, name);
	f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
	else
		fprintf(f, "%s\n", header);
	return f;
}

static void csv_close(FILE *f)
{
	if (f)
		fclose(f);
}

static void ratio(double v, double base)
{
	if (base > 0)
		printf(" %8.2fx", v / base);
	else
		printf(" %9s", "-");
}

/* Benchmarks 1 and 3: N allocations then N frees, one CPU or all. */
static int bench_alloc_free(const struct opts *o, bool all, double *pair_one)
{
	const char *test = all ? "concurrent" : "seq";
	unsigned int nr = o->quick ? 500 : 1000;
	double base_a = 0, base_b = 0, a, b;
	struct figures rows[NR_ROWS], *f;
	FILE *csv;
	int row, c;

	printf("\n%d. %s: %u allocations, then %u frees (cycles per operation, median of %u, rows in turns)\n",
	       all ? 3 : 1, all ? "every CPU at once" : "one CPU", nr, nr, o->reps);
	printf("%-12s %10s %10s %9s %9s%s\n", "", "alloc", "free", "alloc/pt",
	       "free/pt", all ? "  per CPU alloc/free" : "");
	if (run_rows(o, test, nr, rows))
		return 1;
	csv = csv_open(o, all ? "3-concurrent" : "1-alloc-then-free",
		       "mode,cpu,alloc_cycles,free_cycles");
	for (row = 0; row < NR_ROWS; row++) {
		f = &rows[row];
		a = mean(f->a, f->nr);
		b = mean(f->b, f->nr);
		if (row == 0) {
			base_a = a;
			base_b = b;
		}
		printf("%-12s %10.0f %10.0f", row_name(row), a, b);
		ratio(a, base_a);
		ratio(b, base_b);
		for (c = 0; all && c < f->nr; c++)
			printf("  %d:%.0f/%.0f", f->cpu[c], f->a[c], f->b[c]);
		printf("\n");
		for (c = 0; c < f->nr; c++)
			if (csv)
				fprintf(csv, "%s,%d,%.1f,%.1f\n", row_name(row),
					f->cpu[c], f->a[c], f->b[c]);
		if (o->js)
			fprintf(o->js, "%s{\"bench\": \"%s\", \"mode\": \"%s\", \"alloc\": %.1f, \"free\": %.1f}",
				ftell(o->js) ? ",\n" : "", test, row_name(row), a, b);
		pair_one[row] = a + b;
	}
	csv_close(csv);
	return 0;
}

/* Benchmark 2: the same page allocated and freed again and again. */
static int bench_pair(const struct opts *o, double *pair)
{
	unsigned int nr = o->quick ? 10000 : 50000;
	struct figures rows[NR_ROWS];
	FILE *csv;
	int row;

	printf("\n2. one CPU: %u alloc/free pairs (cycles per pair, median of %u, rows in turns)\n",
	       nr, o->reps);
	printf("%-12s %10s %9s %9s\n", "", "pair", "vs pt", "vs limit");
	if (run_rows(o, "pair", nr, rows))
		return 1;
	csv = csv_open(o, "2-pair", "mode,pair_cycles");
	for (row = 0; row < NR_ROWS; row++)
		pair[row] = rows[row].a[0];
	for (row = 0; row < NR_ROWS; row++) {
		printf("%-12s %10.0f", row_name(row), pair[row]);
		ratio(pair[row], pair[0]);
		ratio(pair[row], pair[3]);
		printf("\n");
		if (csv)
			fprintf(csv, "%s,%.1f\n", row_name(row), pair[row]);
		if (o->js)
			fprintf(o->js, ",\n{\"bench\": \"pair\", \"mode\": \"%s\", \"pair\": %.1f}",
				row_name(row), pair[row]);
	}
	csv_close(csv);
	return 0;
}

/* Benchmark 4: Gorman's create/delete in pages, hot and cold. */
static int bench_hotness(const struct opts *o)
{
	static const unsigned int full[] = { 4, 16, 64, 256, 1024, 2048 };
	static const unsigned int quick[] = { 4, 64, 1024 };
	const unsigned int *ks = o->quick ? quick : full;
	int nk = o->quick ? 3 : 6, row, i, cold;
	unsigned int nr = o->quick ? 2048 : 4096;
	struct figures f;
	FILE *csv;

	printf("\n4. every CPU: allocate K pages, write every byte, free them; %u pages per CPU\n"
	       "   (cycles per page, mean over CPUs of the median of %u)\n", nr, o->reps);
	printf("%-12s %5s", "", "");
	for (i = 0; i < nk; i++)
		printf(" %9u", ks[i]);
	printf("\n");
	csv = csv_open(o, "4-hotness", "mode,temperature,k,cycles_per_page");
	for (row = 0; row < NR_ROWS; row++) {
		if (set_mode(row))
			return 1;
		for (cold = 0; cold < 2; cold++) {
			printf("%-12s %5s", row_name(row), cold ? "cold" : "hot");
			for (i = 0; i < nk; i++) {
				if (run_median(o, "hotness", nr, ks[i],
					       (row == 3 ? LIMIT : 0) | (cold ? COLD : 0),
					       &f))
					return 1;
				printf(" %9.0f", mean(f.a, f.nr));
				if (csv)
					fprintf(csv, "%s,%s,%u,%.1f\n", row_name(row),
						cold ? "cold" : "hot", ks[i],
						mean(f.a, f.nr));
			}
			printf("\n");
			fflush(stdout);
		}
	}
	csv_close(csv);
	return 0;
}

/* Benchmark 5: batch and high under all-CPU load, single mode. */
static int bench_sweep(const struct opts *o)
{
	static const unsigned int batches[] = { 1, 8, 31, 63, 310 };
	unsigned int highs[3], nr = o->quick ? 500 : 1000, b, h;
	long long ops0, trips0;
	struct pcp_stats st;
	struct figures f;
	char cfg[128];
	FILE *csv;

	printf("\n5. every CPU at once, single mode: %u allocations then frees per CPU\n"
	       "   (cycles per operation; buddy round trips, refills + drains, per 1000 operations)\n",
	       nr);
	printf("%6s %6s %10s %10s\n", "batch", "high", "cycles/op", "trips/1000");
	csv = csv_open(o, "5-sweep", "batch,high,cycles_per_op,trips_per_1000");
	for (b = 0; b < ARRAY_SIZE(batches); b++) {
		highs[0] = 6 * batches[b];
		highs[1] = 1860;
		highs[2] = 32768;
		for (h = 0; h < 3; h++) {
			if (highs[h] < batches[b] || (h == 1 && highs[0] == 1860))
				continue;
			snprintf(cfg, sizeof(cfg), "mode=single batch=%u high=%u",
				 batches[b], highs[h]);
			if (pcp_write("config", cfg)) {
				printf("%6u %6u %10s %10s  (over this machine's RAM bound)\n",
				       batches[b], highs[h], "-", "-");
				continue;
			}
			pcp_write("drain", "1");
			if (pcp_read_stats(&st))
				return 1;
			ops0 = pcp_stat(&st, "alloc") + pcp_stat(&st, "free");
			trips0 = pcp_stat(&st, "refill") + pcp_stat(&st, "drain");
			if (run_median(o, "concurrent", nr, 1, 0, &f) || pcp_read_stats(&st))
				return 1;
			ops0 = pcp_stat(&st, "alloc") + pcp_stat(&st, "free") - ops0;
			trips0 = pcp_stat(&st, "refill") + pcp_stat(&st, "drain") - trips0;
			printf("%6u %6u %10.0f %10.1f\n", batches[b], highs[h],
			       (mean(f.a, f.nr) + mean(f.b, f.nr)) / 2,
			       ops0 ? 1000.0 * trips0 / ops0 : 0);
			if (csv)
				fprintf(csv, "%u,%u,%.1f,%.2f\n", batches[b], highs[h],
					(mean(f.a, f.nr) + mean(f.b, f.nr)) / 2,
					ops0 ? 1000.0 * trips0 / ops0 : 0);
		}
	}
	csv_close(csv);
	return pcp_write("config", "mode=single batch=63 high=378 cold_batch=31 cold_high=126") ? 1 : 0;
}

/* Benchmark 6: what counting costs, and a mode switch under load. */
static int bench_counters(const struct opts *o, double *switch_ms)
{
	struct figures f;

	printf("\n6. counters and switches\n");
	if (run_median(o, "counter", 50000, 1, 0, &f))
		return 1;
	printf("   one counter update (this_cpu_add):            %8.1f cycles\n", f.a[0]);
	if (o->js)
		fprintf(o->js, ",\n{\"bench\": \"counter\", \"cycles\": %.1f}", f.a[0]);
	if (run_median(o, "stats", 200, 1, 0, &f))
		return 1;
	printf("   summing every counter, all other CPUs busy:  %8.0f cycles\n", f.a[0]);
	if (o->js)
		fprintf(o->js, ",\n{\"bench\": \"stats\", \"cycles\": %.1f}", f.a[0]);
	if (run_median(o, "switch", o->quick ? 10 : 40, 1, 0, &f))
		return 1;
	*switch_ms = f.b[0] * (o->quick ? 10 : 40) / 1e6;
	printf("   mode switch, all other CPUs busy:             %8.2f ms mean, %.2f ms worst\n",
	       f.a[0] / 1e6, *switch_ms);
	if (o->js)
		fprintf(o->js, ",\n{\"bench\": \"switch\", \"mean_ms\": %.3f, \"worst_ms\": %.3f}",
			f.a[0] / 1e6, *switch_ms);
	return pcp_write("mode", "single") ? 1 : 0;
}

static void verdict(const char *what, double v, double target, bool below)
{
	bool met = below ? v <= target : v >= target;

	printf("   %-52s %7.2f  (target %s %.2f: %s)\n", what, v,
	       below ? "<=" : ">=", target, met ? "met" : "MISSED");
}

/* Gorman-style plots of benchmarks 4 and 5, through a gnuplot script. */
static int plot(const char *csvdir, const char *dir)
{
	char script[] = "/tmp/pcpctl-plot-XXXXXX", cmd[600];
	FILE *f;
	int fd, err;

	fd = mkstemp(script);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		fprintf(stderr, "%s: cannot write a gnuplot script\n", prog);
		return 1;
	}
	if (mkdir(dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "%s: %s: %s\n", prog, dir, strerror(errno));
		fclose(f);
		unlink(script);
		return 1;
	}
	fprintf(f,
		"set terminal png size 1000,650\n"
		"set datafile separator ','\n"
		"set grid\n"
		"set key outside right\n"
		"set output '%s/4-hotness.png'\n"
		"set title 'Allocate K pages, write every byte, free them (every CPU)'\n"
		"set xlabel 'K, pages per round'\n"
		"set ylabel 'cycles per page'\n"
		"set logscale x 2\n"
		"plot for [m in 'passthrough single split limit'] for [t in 'hot cold'] \\\n"
		"  sprintf(\"< grep '^%%s,%%s,' %s/4-hotness.csv\", m, t) \\\n"
		"  using 3:4 with linespoints title m.' '.t\n"
		"unset logscale x\n"
		"set output '%s/5-sweep.png'\n"
		"set title 'Single mode, every CPU at once: batch and high'\n"
		"set xlabel 'batch'\n"
		"set ylabel 'cycles per operation'\n"
		"set logscale x\n"
		"plot sprintf(\"< awk -F, 'NR > 1 && $2 == 6 * $1' %s/5-sweep.csv\") \\\n"
		"       using 1:3 with linespoints title 'high = 6 x batch', \\\n"
		"     for [h in '1860 32768'] sprintf(\"< awk -F, 'NR > 1 && $2 == %%s' %s/5-sweep.csv\", h) \\\n"
		"       using 1:3 with linespoints title 'high = '.h\n",
		dir, csvdir, dir, csvdir, csvdir);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "gnuplot %s", script);
	err = system(cmd);
	unlink(script);
	if (err) {
		fprintf(stderr, "%s: gnuplot failed (is it installed? 'make deps')\n", prog);
		return 1;
	}
	printf("plots in %s\n", dir);
	return 0;
}

static void bench_usage(FILE *f)
{
	fprintf(f,
		"usage: pcpctl bench [--quick] [--reps N] [--only LIST] [--csv DIR] [--json]\n"
		"                    [--plot DIR]\n"
		"       pcpctl bench --plot DIR --from CSVDIR\n"
		"\n"
		"Runs pcpcache's in-kernel benchmarks (kernel threads pinned to their\n"
		"CPUs, timed with get_cycles()) in each mode and in the 'limit' row, a\n"
		"bare per-CPU list with interrupts off and no counters, and prints one\n"
		"table per benchmark with ratios to passthrough, then the performance\n"
		"targets. Changes the mode and knobs while it runs; leaves single mode\n"
		"with the defaults.\n"
		"\n"
		"  --quick     smaller sizes, for a first look (make demo)\n"
		"  --reps N    repetitions per figure, 1 to 15, the median is shown\n"
		"              (default 5, 3 with --quick)\n"
		"  --csv DIR   write the raw figures as CSV files into DIR\n"
		"  --json      print the figures as JSON after the tables\n"
		"  --only LIST run only these benchmarks, e.g. 1,2 (no target verdicts)\n"
		"  --plot DIR  draw PNG plots with gnuplot from the CSV files (those of\n"
		"              --csv, or of --from CSVDIR without running anything)\n");
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
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	struct opts o = { .reps = 0 };
	unsigned long long only;
	double one[NR_ROWS], all[NR_ROWS], pair[NR_ROWS], switch_ms = 0;
	const char *from = NULL;
	char *json = NULL;
	size_t json_len = 0;
	struct utsname u;
	int opt, err;

	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
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
			o.json = true;
			break;
		case 'p':
			o.plot = optarg;
			break;
		case 'f':
			from = optarg;
			break;
		case 'o':
			if (parse_list_arg("--only", optarg, 1, NR_BENCHMARKS, false,
					   &only, 1))
				return 2;
			o.only = only;
			break;
		case 'h':
			bench_usage(stdout);
			return 0;
		default:
			bench_usage(stderr);
			return 2;
		}
	}
	if (no_operands("bench", argc, argv, optind))
		return 2;
	/* after the loop, so that the order of the options does not matter */
	if (!o.reps)
		o.reps = o.quick ? 3 : 5;
	if (from)
		return o.plot ? plot(from, o.plot) : (bench_usage(stderr), 2);
	if (o.plot && !o.csv) {
		fprintf(stderr, "%s: --plot needs --csv DIR (or --from CSVDIR)\n", prog);
		return 2;
	}
	if (need_writable() || need_debugfs_file("bench", "bench"))
		return 1;
	if (o.csv && mkdir(o.csv, 0755) && errno != EEXIST) {
		fprintf(stderr, "%s: %s: %s\n", prog, o.csv, strerror(errno));
		return 1;
	}
	if (o.json)
		o.js = open_memstream(&json, &json_len);

	uname(&u);
	printf("pcpcache benchmarks: kernel %s, %ld CPUs online, %ld MiB, %s\n",
	       u.release, sysconf(_SC_NPROCESSORS_ONLN),
	       sysconf(_SC_PHYS_PAGES) * (sysconf(_SC_PAGESIZE) / 1024) / 1024,
	       pcp_run("grep -q 'init_on_alloc=0' /proc/cmdline") == 0 ?
	       "init_on_alloc=0" : "init_on_alloc=1 (unless the kernel's default is off)");
	printf("pt = passthrough; limit = a bare per-CPU list, interrupts off, no counters\n");
	fflush(stdout);

	if (!o.only)
		o.only = ~0U;
	err = (o.only & 1 << 1 && bench_alloc_free(&o, false, one)) ||
	      (o.only & 1 << 2 && bench_pair(&o, pair)) ||
	      (o.only & 1 << 3 && bench_alloc_free(&o, true, all)) ||
	      (o.only & 1 << 4 && bench_hotness(&o)) ||
	      (o.only & 1 << 5 && bench_sweep(&o)) ||
	      (o.only & 1 << 6 && bench_counters(&o, &switch_ms));
	pcp_write("config", "mode=single batch=63 high=378 cold_batch=31 cold_high=126");
	if (err)
		return 1;
	if (o.only != ~0U)
		return 0;

	printf("\nPerformance targets\n");
	verdict("hit pair / passthrough pair (single)", pair[1] / pair[0], 0.2, true);
	verdict("hit pair / limit pair (single)", pair[1] / pair[3], 1.5, true);
	verdict("all-CPU / one-CPU alloc+free (single)", all[1] / one[1], 1.1, true);
	verdict("all-CPU / one-CPU alloc+free (split)", all[2] / one[2], 1.1, true);
	verdict("mode switch under all-CPU load, worst (ms)", switch_ms, 10, true);

	if (o.js) {
		fclose(o.js);
		printf("\n[\n%s\n]\n", json);
		free(json);
	}
	if (o.csv)
		printf("CSV files in %s\n", o.csv);
	return o.plot ? plot(o.csv, o.plot) : 0;
}
