// SPDX-License-Identifier: GPL-2.0
/*
 * pcpctl stats and pcpctl watch: pcpcache's counters in total and for
 * each CPU (the stats and stats_percpu files), over a stretch of time,
 * and their rates per second.
 *
 * The module never resets a counter: the books (buddy_alloc - buddy_free
 * == cached + held) need every page since load. A stretch of time is the
 * difference of two readings: "stats --save FILE" keeps one, "stats
 * --since FILE" subtracts it. The snapshot names the load it was taken
 * in: the inode number of stats_percpu, which debugfs gives anew to the
 * file the module creates at each load, so that counters of an earlier
 * load are never subtracted from a new one's.
 *
 * Each CPU's counters are in debugfs only (root): there an open file
 * shows one moment however many reads it takes. The totals of stats are
 * read wherever pcp_dir says, sysfs included.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pcpctl.h"

#define PERCPU_FILE		PCP_DIR "/stats_percpu"
#define SNAPSHOT_HEADER		"# pcpctl stats snapshot of"
#define WATCH_MIN_INTERVAL	0.1
#define WATCH_MAX_INTERVAL	3600.0
/* a header again every so many lines (or blocks, per CPU), as vmstat */
#define WATCH_HEADER_EVERY	20

/* Every counter of every possible CPU, as stats_percpu has them. */
struct percpu {
	char path[256];			/* the file read ... */
	unsigned long long ino;		/* ... and its inode: the load */
	int nr_names;
	char name[PCP_MAX_STATS][32];
	int nr_cpus;
	int cpu[PCP_MAX_CPUS];
	long long val[PCP_MAX_CPUS][PCP_MAX_STATS];
};

static int stat_index(const struct percpu *p, const char *name)
{
	int i;

	for (i = 0; i < p->nr_names; i++)
		if (!strcmp(p->name[i], name))
			return i;
	return -1;
}

/* The column of counter @name summed over every CPU; -1 if none. */
static long long percpu_total(const struct percpu *p, const char *name)
{
	int i = stat_index(p, name), c;
	long long sum = 0;

	if (i < 0)
		return -1;
	for (c = 0; c < p->nr_cpus; c++)
		sum += p->val[c][i];
	return sum;
}

/* "name name ...", the header's rest after "cpu"; -EINVAL if odd. */
static int parse_names(struct percpu *p, char *line)
{
	char *tok, *save = NULL;

	p->nr_names = 0;
	tok = strtok_r(line, " \n", &save);
	if (!tok || strcmp(tok, "cpu"))
		return -EINVAL;
	while ((tok = strtok_r(NULL, " \n", &save))) {
		if (p->nr_names == PCP_MAX_STATS || strlen(tok) >= sizeof(p->name[0]))
			return -EINVAL;
		strcpy(p->name[p->nr_names++], tok);
	}
	return p->nr_names ? 0 : -EINVAL;
}

/* A decimal count with nothing else around it. */
static int parse_count_field(const char *s, long long *val)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*val = strtoll(s, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

/* "CPU count count ...": exactly one count per name. */
static int parse_row(struct percpu *p, char *line)
{
	char *tok, *save = NULL;
	long long cpu;
	int i = 0;

	if (p->nr_cpus == PCP_MAX_CPUS)
		return -EINVAL;
	tok = strtok_r(line, " \n", &save);
	if (!tok || parse_count_field(tok, &cpu) || cpu >= PCP_MAX_CPUS)
		return -EINVAL;
	while ((tok = strtok_r(NULL, " \n", &save))) {
		if (i == p->nr_names ||
		    parse_count_field(tok, &p->val[p->nr_cpus][i]))
			return -EINVAL;
		i++;
	}
	if (i != p->nr_names)
		return -EINVAL;
	p->cpu[p->nr_cpus++] = cpu;
	return 0;
}

/* The header and rows of a stats_percpu file, or of a snapshot's rest. */
static int parse_percpu(struct percpu *p, FILE *f)
{
	char *line = NULL;
	size_t size = 0;
	int err = -EINVAL;

	p->nr_cpus = 0;
	if (getline(&line, &size, f) > 0 && !parse_names(p, line)) {
		err = 0;
		while (!err && getline(&line, &size, f) > 0)
			err = parse_row(p, line);
	}
	free(line);
	return err || !p->nr_cpus ? -EINVAL : 0;
}

/* stats_percpu now, and which load of the module it is; 0 or -errno. */
static int read_percpu(struct percpu *p)
{
	struct stat st;
	FILE *f;
	int err;

	snprintf(p->path, sizeof(p->path), "%s", PERCPU_FILE);
	f = fopen(p->path, "r");
	if (!f)
		return -errno;
	err = fstat(fileno(f), &st) ? -errno : parse_percpu(p, f);
	p->ino = st.st_ino;
	fclose(f);
	return err;
}

/* Whether @cmd can read every CPU's counters; 1 after saying why not. */
static int need_percpu_file(const char *cmd)
{
	if (!access(PERCPU_FILE, R_OK))
		return 0;
	fprintf(stderr, "%s: %s needs %s: %s (root reads it, with debugfs mounted)\n",
		prog, cmd, PERCPU_FILE, strerror(errno));
	return 1;
}

static bool same_load(const struct percpu *a, const struct percpu *b)
{
	return a->ino == b->ino && !strcmp(a->path, b->path);
}

static int save_snapshot(const char *path, const struct percpu *p)
{
	FILE *f = fopen(path, "w");
	int c, i;

	if (!f)
		return -errno;
	fprintf(f, "%s %s inode %llu\ncpu", SNAPSHOT_HEADER, p->path, p->ino);
	for (i = 0; i < p->nr_names; i++)
		fprintf(f, " %s", p->name[i]);
	fputc('\n', f);
	for (c = 0; c < p->nr_cpus; c++) {
		fprintf(f, "%d", p->cpu[c]);
		for (i = 0; i < p->nr_names; i++)
			fprintf(f, " %lld", p->val[c][i]);
		fputc('\n', f);
	}
	return fclose(f) ? -errno : 0;
}

static int load_snapshot(const char *path, struct percpu *p)
{
	int err = -EINVAL;
	char nl;
	FILE *f = fopen(path, "r");

	if (!f)
		return -errno;
	if (fscanf(f, SNAPSHOT_HEADER " %255s inode %llu%c", p->path, &p->ino,
		   &nl) == 3 && nl == '\n')
		err = parse_percpu(p, f);
	fclose(f);
	return err;
}

/*
 * @now minus @then, CPU by CPU and counter by counter; @then must be of
 * the same load and not later. Says why not and returns -1 otherwise.
 */
static int subtract(struct percpu *now, const struct percpu *then,
		    const char *path)
{
	int c, t, i, j;

	if (!same_load(now, then)) {
		fprintf(stderr, "%s: %s: saved from another load of pcpcache (or another of its files); its counters do not count here\n",
			prog, path);
		return -1;
	}
	for (c = 0; c < now->nr_cpus; c++) {
		for (t = 0; t < then->nr_cpus && then->cpu[t] != now->cpu[c]; t++)
			;
		for (i = 0; i < now->nr_names; i++) {
			j = stat_index(then, now->name[i]);
			if (t < then->nr_cpus && j >= 0)
				now->val[c][i] -= then->val[t][j];
			if (now->val[c][i] < 0) {
				fprintf(stderr, "%s: %s: %s of cpu %d is ahead of the module's; not a snapshot of this load?\n",
					prog, path, now->name[i], now->cpu[c]);
				return -1;
			}
		}
	}
	return 0;
}

static double hit_rate(long long hit, long long alloc)
{
	return alloc > 0 ? (double)hit / alloc : 0.0;
}

static bool cpu_counted(const struct percpu *p, int c)
{
	int i;

	for (i = 0; i < p->nr_names; i++)
		if (p->val[c][i])
			return true;
	return false;
}

/*
 * The stats file's lines, the counters taken from @p if given (so that
 * --since shows differences) and the rest (cached, held,
 * shrink_longest_us: levels, not counts) as they are now; in @js as an
 * object named @key if given.
 */
/* The locking design loaded (the lock parameter, readable under lockdown). */
static const char *lock_design(void)
{
	static char lock[16];

	if (pcp_read_file(PCP_SYSFS "/parameters/lock", lock, sizeof(lock)) <= 0)
		return "unknown";
	lock[strcspn(lock, "\n")] = '\0';
	return lock;
}

static void print_totals(const struct pcp_stats *st, const struct percpu *p,
			 struct json *js, const char *key)
{
	long long val, alloc = p ? percpu_total(p, "alloc") : pcp_stat(st, "alloc"),
		  hit = p ? percpu_total(p, "alloc_hit") : pcp_stat(st, "alloc_hit");
	double rate = hit_rate(hit, alloc);
	int i;

	if (js)
		json_begin(js, key, '{');
	for (i = 0; i < st->nr; i++) {
		val = p && stat_index(p, st->name[i]) >= 0 ?
		      percpu_total(p, st->name[i]) : st->value[i];
		if (js)
			json_int(js, st->name[i], val);
		else
			printf("%-16s %14lld\n", st->name[i], val);
	}
	if (js) {
		json_num(js, "hit_rate", rate);
		json_str(js, "lock", lock_design());
		json_end(js, '}');
	} else {
		printf("%-16s %13.1f%%\n", "hit_rate", 100 * rate);
		printf("%-16s %14s\n", "lock", lock_design());
	}
}

/* Counters down, CPUs across, like /proc/interrupts; idle CPUs left out. */
static void print_per_cpu_table(const struct percpu *p)
{
	int c, i, hit = stat_index(p, "alloc_hit"), alloc = stat_index(p, "alloc");
	char head[16];

	printf("%-16s", "");
	for (c = 0; c < p->nr_cpus; c++) {
		if (!cpu_counted(p, c))
			continue;
		snprintf(head, sizeof(head), "cpu%d", p->cpu[c]);
		printf(" %12s", head);
	}
	printf(" %14s\n", "total");
	for (i = 0; i < p->nr_names; i++) {
		printf("%-16s", p->name[i]);
		for (c = 0; c < p->nr_cpus; c++)
			if (cpu_counted(p, c))
				printf(" %12lld", p->val[c][i]);
		printf(" %14lld\n", percpu_total(p, p->name[i]));
	}
	if (hit < 0 || alloc < 0)
		return;
	printf("%-16s", "hit_rate");
	for (c = 0; c < p->nr_cpus; c++)
		if (cpu_counted(p, c))
			printf(" %11.1f%%", 100 * hit_rate(p->val[c][hit], p->val[c][alloc]));
	printf(" %13.1f%%\n", 100 * hit_rate(percpu_total(p, "alloc_hit"),
					     percpu_total(p, "alloc")));
}

/* {"cpus": [{"cpu": N, counters..., "hit_rate": R}, ...], "total": {...}} */
static void print_per_cpu_json(const struct pcp_stats *st, const struct percpu *p)
{
	int c, i, hit = stat_index(p, "alloc_hit"), alloc = stat_index(p, "alloc");
	struct json js;

	json_open(&js, stdout);
	json_begin(&js, NULL, '{');
	json_begin(&js, "cpus", '[');
	for (c = 0; c < p->nr_cpus; c++) {
		json_begin(&js, NULL, '{');
		json_int(&js, "cpu", p->cpu[c]);
		for (i = 0; i < p->nr_names; i++)
			json_int(&js, p->name[i], p->val[c][i]);
		if (hit >= 0 && alloc >= 0)
			json_num(&js, "hit_rate",
				 hit_rate(p->val[c][hit], p->val[c][alloc]));
		json_end(&js, '}');
	}
	json_end(&js, ']');
	print_totals(st, p, &js, "total");
	json_end(&js, '}');
}

static const char stats_help[] =
	"usage: pcpctl stats [--per-cpu] [--json] [--since FILE]\n"
	"       pcpctl stats --save FILE\n"
	"\n"
	"The counters of pcpcache, summed over all CPUs, with the hit rate\n"
	"(alloc_hit / alloc) derived; cached, held and shrink_longest_us are\n"
	"levels, not counts.\n"
	"\n"
	"  --per-cpu    each CPU's counters too (debugfs's stats_percpu), a\n"
	"               column per CPU that counted anything, and the total\n"
	"  --json       one JSON object; with --per-cpu, {\"cpus\": [...],\n"
	"               \"total\": {...}} with every possible CPU\n"
	"  --save FILE  keep the counters in FILE, print nothing\n"
	"  --since FILE the counters since FILE was saved, in the same load\n"
	"               of the module (the levels stay as they are now)\n"
	"\n"
	"The module never resets its counters: the books need them whole.\n"
	"--per-cpu, --save and --since read debugfs: root, debugfs mounted.\n";

/*
 * getopt_long() with its own complaints off, so that every error is one
 * line: which argument, and where to read more.
 */
static int next_option(int argc, char **argv, const struct option *longopts)
{
	int opt;

	opterr = 0;
	/* options may follow the operands ("watch 1 --per-cpu"), as pcpctl(8) says */
	opt = getopt_long(argc, argv, "h", longopts, NULL);
	if (opt == '?' && optopt && optopt != '?')
		/* a short one, maybe inside a group ("-xh"): name it alone */
		fprintf(stderr, "%s: %s: bad option '-%c' (unknown, or its value is missing); see %s %s --help\n",
			prog, argv[0], optopt, prog, argv[0]);
	else if (opt == '?')
		fprintf(stderr, "%s: %s: bad option '%s' (unknown, or its value is missing); see %s %s --help\n",
			prog, argv[0], argv[optind - 1], prog, argv[0]);
	return opt;
}

static void stats_usage(void)
{
	fprintf(stderr, "usage: %s stats [--per-cpu] [--json] [--since FILE] | --save FILE\n",
		prog);
}

int cmd_stats(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "per-cpu", no_argument, NULL, 'p' },
		{ "json", no_argument, NULL, 'j' },
		{ "save", required_argument, NULL, 's' },
		{ "since", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	static struct percpu now, then;
	const char *save = NULL, *since = NULL;
	bool per_cpu = false, json = false, cpus;
	struct pcp_stats st;
	struct json js;
	int opt, err;

	while ((opt = next_option(argc, argv, longopts)) != -1) {
		switch (opt) {
		case 'p':
			per_cpu = true;
			break;
		case 'j':
			json = true;
			break;
		case 's':
			save = optarg;
			break;
		case 'S':
			since = optarg;
			break;
		case 'h':
			printf("%s", stats_help);
			return 0;
		default:
			return 2;
		}
	}
	if (optind < argc || (save && (per_cpu || json || since))) {
		stats_usage();
		return 2;
	}
	/* only the totals: stats, readable wherever pcpcache's files are */
	cpus = per_cpu || since || save;
	if (need_pcpcache() || (cpus && need_percpu_file("stats --per-cpu, --save and --since")))
		return 1;
	err = cpus ? read_percpu(&now) : 0;
	if (!err && !save)
		err = pcp_read_stats(&st);
	if (err) {
		fprintf(stderr, "%s: cannot read the counters: %s\n", prog,
			strerror(-err));
		return 1;
	}
	if (save) {
		err = save_snapshot(save, &now);
		if (err)
			fprintf(stderr, "%s: %s: %s\n", prog, save, strerror(-err));
		return err ? 1 : 0;
	}
	if (since) {
		err = load_snapshot(since, &then);
		if (err) {
			fprintf(stderr, "%s: %s: %s\n", prog, since,
				err == -EINVAL ? "not a snapshot of pcpctl stats --save" :
				strerror(-err));
			return 1;
		}
		if (subtract(&now, &then, since))
			return 1;
	}
	if (per_cpu && json) {
		print_per_cpu_json(&st, &now);
	} else if (per_cpu) {
		print_per_cpu_table(&now);
	} else if (json) {
		json_open(&js, stdout);
		print_totals(&st, cpus ? &now : NULL, &js, NULL);
	} else {
		print_totals(&st, cpus ? &now : NULL, NULL, NULL);
	}
	return 0;
}

/* The online CPUs, a bitmap read from "0-3,6"; 0 or -1. */
static int read_online(unsigned long long online[PCP_MAX_CPUS / 64])
{
	char buf[4096];
	ssize_t n;

	n = pcp_read_file("/sys/devices/system/cpu/online", buf, sizeof(buf));
	if (n <= 0)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return parse_list_arg("the online CPUs", buf, 0, PCP_MAX_CPUS - 1, true,
			      online, PCP_MAX_CPUS / 64);
}

static bool in_set(const unsigned long long *set, int cpu)
{
	return set[cpu / 64] & 1ULL << (cpu % 64);
}

static double seconds_between(const struct timespec *a, const struct timespec *b)
{
	return b->tv_sec - a->tv_sec + (b->tv_nsec - a->tv_nsec) / 1e9;
}

static const char * const watch_totals[] = {
	"alloc", "alloc_hit", "alloc_miss", "free", "refill", "drain",
	"buddy_alloc", "buddy_free",
};

static const char * const watch_per_cpu[] = {
	"alloc_hit", "alloc_miss", "refill", "drain", "free",
};

/* One line of rates of the totals, and the pages cached now. */
static void watch_line(const struct pcp_stats *prev, const struct pcp_stats *now,
		       double secs, unsigned int line)
{
	unsigned int i;

	if (line % WATCH_HEADER_EVERY == 0) {
		for (i = 0; i < ARRAY_SIZE(watch_totals); i++)
			printf("%12s", watch_totals[i]);
		printf("%12s\n", "cached");
	}
	for (i = 0; i < ARRAY_SIZE(watch_totals); i++)
		printf("%12.0f", (pcp_stat(now, watch_totals[i]) -
				  pcp_stat(prev, watch_totals[i])) / secs);
	printf("%12lld\n", pcp_stat(now, "cached"));
}

/* The pages each CPU caches now (both lists), from pagesets. */
static int read_cached(long long cached[PCP_MAX_CPUS])
{
	static struct pcp_pageset sets[PCP_MAX_CPUS];
	int i, nr = pcp_read_pagesets(sets, PCP_MAX_CPUS);

	if (nr < 0)
		return nr;
	memset(cached, 0, PCP_MAX_CPUS * sizeof(long long));
	for (i = 0; i < nr; i++)
		if (sets[i].cpu >= 0 && sets[i].cpu < PCP_MAX_CPUS)
			cached[sets[i].cpu] = sets[i].count +
					      (sets[i].cold_count > 0 ? sets[i].cold_count : 0);
	return 0;
}

/* Counter @name of the @c-th CPU per second between two readings. */
static double cpu_rate(const struct percpu *prev, const struct percpu *now,
		       int c, const char *name, double secs)
{
	int i = stat_index(now, name);

	return i < 0 ? 0 : (now->val[c][i] - prev->val[c][i]) / secs;
}

/* A block of rates: one line per online CPU, then all of them. */
static int watch_block(const struct percpu *prev, const struct percpu *now,
		       double secs)
{
	static unsigned long long online[PCP_MAX_CPUS / 64];
	static long long cached[PCP_MAX_CPUS];
	long long all_cached = 0;
	unsigned int i;
	int c;

	if (read_online(online) || read_cached(cached))
		return -1;
	printf("%5s", "cpu");
	for (i = 0; i < ARRAY_SIZE(watch_per_cpu); i++)
		printf("%12s", watch_per_cpu[i]);
	printf("%12s\n", "cached");
	for (c = 0; c < now->nr_cpus; c++) {
		all_cached += cached[now->cpu[c]];
		if (!in_set(online, now->cpu[c]))
			continue;
		printf("%5d", now->cpu[c]);
		for (i = 0; i < ARRAY_SIZE(watch_per_cpu); i++)
			printf("%12.0f", cpu_rate(prev, now, c, watch_per_cpu[i], secs));
		printf("%12lld\n", cached[now->cpu[c]]);
	}
	printf("%5s", "all");
	for (i = 0; i < ARRAY_SIZE(watch_per_cpu); i++)
		printf("%12.0f", (percpu_total(now, watch_per_cpu[i]) -
				  percpu_total(prev, watch_per_cpu[i])) / secs);
	printf("%12lld\n\n", all_cached);
	return 0;
}

static const char watch_help[] =
	"usage: pcpctl watch [--per-cpu] [INTERVAL [COUNT]]\n"
	"\n"
	"Every INTERVAL seconds (default 1; 0.1 to 3600, like 2 or 0.5), the\n"
	"counters' rates per second over the interval and the pages cached,\n"
	"like vmstat 1; COUNT reports, then stop (default: until Ctrl-C).\n"
	"\n"
	"  --per-cpu  a block per interval: hits, misses, refills, drains and\n"
	"             frees per second and the pages cached, for each online\n"
	"             CPU and for all (debugfs's stats_percpu: root)\n";

static void watch_usage(void)
{
	fprintf(stderr, "usage: %s watch [--per-cpu] [INTERVAL [COUNT]]\n", prog);
}

/* What watch shows, read at one moment: stats, and each CPU's counters. */
struct watch_reading {
	struct pcp_stats st;
	struct percpu cpus;
	struct timespec when;
};

static int watch_read(struct watch_reading *r, bool per_cpu)
{
	clock_gettime(CLOCK_MONOTONIC, &r->when);
	if (per_cpu)
		return read_percpu(&r->cpus);
	return pcp_read_stats(&r->st);
}

int cmd_watch(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "per-cpu", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	static struct watch_reading readings[2];
	struct watch_reading *prev = &readings[0], *now = &readings[1], *tmp;
	unsigned int count = 0, line;
	bool per_cpu = false;
	double interval = 1, secs;
	struct timespec nap;
	int opt, err;

	while ((opt = next_option(argc, argv, longopts)) != -1) {
		switch (opt) {
		case 'p':
			per_cpu = true;
			break;
		case 'h':
			printf("%s", watch_help);
			return 0;
		default:
			return 2;
		}
	}
	if (argc - optind > 2) {
		watch_usage();
		return 2;
	}
	if (optind < argc && parse_seconds_arg("watch: INTERVAL", argv[optind],
					       WATCH_MIN_INTERVAL,
					       WATCH_MAX_INTERVAL, &interval))
		return 2;
	if (optind + 1 < argc && parse_uint_arg("watch: COUNT", argv[optind + 1],
						1, UINT_MAX, &count))
		return 2;
	if (need_pcpcache() || (per_cpu && need_percpu_file("watch --per-cpu")))
		return 1;
	nap.tv_sec = interval;
	nap.tv_nsec = (interval - nap.tv_sec) * 1e9;
	if (watch_read(prev, per_cpu)) {
		fprintf(stderr, "%s: cannot read pcpcache's counters\n", prog);
		return 1;
	}
	for (line = 0; !count || line < count; line++) {
		nanosleep(&nap, NULL);
		err = watch_read(now, per_cpu);
		if (!err && per_cpu && !same_load(&now->cpus, &prev->cpus))
			err = -ESTALE;
		if (err) {
			fprintf(stderr, "%s: pcpcache went away\n", prog);
			return 1;
		}
		secs = seconds_between(&prev->when, &now->when);
		if (per_cpu && watch_block(&prev->cpus, &now->cpus, secs))
			return 1;
		if (!per_cpu)
			watch_line(&prev->st, &now->st, secs, line);
		fflush(stdout);
		tmp = prev;
		prev = now;
		now = tmp;
	}
	return 0;
}
