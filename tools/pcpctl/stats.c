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
#include <math.h>
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
	char name[PCP_MAX_STATS][PCP_NAME_MAX + 1];
	int nr_cpus;
	int cpu[PCP_MAX_CPUS];
	/* the module's unsigned long: 64 bits */
	unsigned long long val[PCP_MAX_CPUS][PCP_MAX_STATS];
};

/* A total that does not fit in 64 bits was shown as "-": say so, exit 1. */
static bool figure_lost;

static int stat_index(const struct percpu *p, const char *name)
{
	int i;

	for (i = 0; i < p->nr_names; i++)
		if (!strcmp(p->name[i], name))
			return i;
	return -1;
}

static int cpu_index(const struct percpu *p, int cpu)
{
	int c;

	for (c = 0; c < p->nr_cpus; c++)
		if (p->cpu[c] == cpu)
			return c;
	return -1;
}

/*
 * The column of counter @name summed over every CPU, in *@sum: 0, -ENOENT
 * (no such counter) or -ERANGE (more than 64 bits hold).
 */
static int percpu_total(const struct percpu *p, const char *name,
			unsigned long long *sum)
{
	int i = stat_index(p, name), c;

	*sum = 0;
	if (i < 0)
		return -ENOENT;
	for (c = 0; c < p->nr_cpus; c++)
		if (__builtin_add_overflow(*sum, p->val[c][i], sum))
			return -ERANGE;
	return 0;
}

/* "cpu name name ...": names as the module writes them, each once. */
static int parse_names(struct percpu *p, char *line, int lineno)
{
	char *tok, *save = NULL;

	p->nr_names = 0;
	tok = strtok_r(line, " ", &save);
	if (!tok || strcmp(tok, "cpu"))
		return pcp_parse_fail(p->path, lineno, "the header does not begin with cpu");
	while ((tok = strtok_r(NULL, " ", &save))) {
		if (!pcp_name_ok(tok))
			return pcp_parse_fail(p->path, lineno, "'%.24s' is not a counter's name",
					      tok);
		if (stat_index(p, tok) >= 0)
			return pcp_parse_fail(p->path, lineno, "counter %s again", tok);
		if (p->nr_names == PCP_MAX_STATS)
			return pcp_parse_fail(p->path, lineno, "more than %d counters",
					      PCP_MAX_STATS);
		strcpy(p->name[p->nr_names++], tok);
	}
	return p->nr_names ? 0 : pcp_parse_fail(p->path, lineno, "no counters");
}

/* "CPU count count ...": exactly one count per name, each CPU once. */
static int parse_row(struct percpu *p, char *line, int lineno)
{
	char *tok, *save = NULL;
	unsigned long long cpu, *val = p->val[p->nr_cpus];
	int i = 0, err;

	tok = strtok_r(line, " ", &save);
	if (!tok || pcp_parse_count(tok, false, &cpu) || cpu >= PCP_MAX_CPUS)
		return pcp_parse_fail(p->path, lineno, "'%.24s' is not a CPU number",
				      tok ? tok : "");
	if (cpu_index(p, cpu) >= 0)
		return pcp_parse_fail(p->path, lineno, "cpu %llu again", cpu);
	if (p->nr_cpus == PCP_MAX_CPUS)
		return pcp_parse_fail(p->path, lineno, "more than %d CPUs", PCP_MAX_CPUS);
	while ((tok = strtok_r(NULL, " ", &save))) {
		if (i == p->nr_names)
			return pcp_parse_fail(p->path, lineno, "more counts than counters");
		err = pcp_parse_count(tok, false, &val[i]);
		if (err)
			return pcp_parse_fail(p->path, lineno, "%s: '%.24s' is %s",
					      p->name[i], tok,
					      err == -ERANGE ? "too large for 64 bits" :
					      "not a decimal count");
		i++;
	}
	if (i != p->nr_names)
		return pcp_parse_fail(p->path, lineno, "%s: missing", p->name[i]);
	p->cpu[p->nr_cpus++] = cpu;
	return 0;
}

/*
 * The header and rows of a stats_percpu file, or of a snapshot's rest
 * from line @lineno: 0, or -EINVAL with pcp_parse_error saying where.
 */
static int parse_percpu(struct percpu *p, FILE *f, int lineno)
{
	char *line = NULL;
	size_t size = 0;
	ssize_t len;
	int err = 0;

	p->nr_cpus = 0;
	p->nr_names = 0;
	while (!err && (len = getline(&line, &size, f)) > 0) {
		if (line[len - 1] != '\n' || strlen(line) != (size_t)len) {
			err = pcp_parse_fail(p->path, lineno, line[len - 1] != '\n' ?
					     "cut short (no newline)" : "holds a NUL byte");
			break;
		}
		line[len - 1] = '\0';
		err = p->nr_names ? parse_row(p, line, lineno) :
		      parse_names(p, line, lineno);
		lineno++;
	}
	free(line);
	if (!err && ferror(f))
		err = -EIO;
	if (!err && !p->nr_cpus)
		err = pcp_parse_fail(p->path, 0, "no CPU rows");
	return err;
}

/* stats_percpu now, and which load of the module it is; 0 or -errno. */
static int read_percpu(struct percpu *p)
{
	struct stat st;
	FILE *f;
	int err;

	snprintf(p->path, sizeof(p->path), "%s", PERCPU_FILE);
	f = pcp_fopen(p->path, "r");
	if (!f)
		return -errno;
	err = fstat(fileno(f), &st) ? -errno : parse_percpu(p, f, 1);
	if (!err)
		p->ino = st.st_ino;
	fclose(f);
	return err;
}

/* Whether @cmd can read every CPU's counters; 1 after saying why not. */
static int need_percpu_file(const char *what)
{
	char buf[4096];
	const char *path = pcp_real_path(PERCPU_FILE, buf, sizeof(buf));

	if (path && !access(path, R_OK))
		return 0;
	fprintf(stderr, "%s: %s needs %s: %s (root reads it, with debugfs mounted)\n",
		who, what, PERCPU_FILE, strerror(errno));
	return 1;
}

static bool same_load(const struct percpu *a, const struct percpu *b)
{
	return a->ino == b->ino && !strcmp(a->path, b->path);
}

/* Every write and the close checked: a full disk is an error. */
static int save_snapshot(const char *path, const struct percpu *p)
{
	FILE *f = fopen(path, "w");
	int c, i, err;

	if (!f)
		return -errno;
	fprintf(f, "%s %s inode %llu\ncpu", SNAPSHOT_HEADER, p->path, p->ino);
	for (i = 0; i < p->nr_names; i++)
		fprintf(f, " %s", p->name[i]);
	fputc('\n', f);
	for (c = 0; c < p->nr_cpus; c++) {
		fprintf(f, "%d", p->cpu[c]);
		for (i = 0; i < p->nr_names; i++)
			fprintf(f, " %llu", p->val[c][i]);
		fputc('\n', f);
	}
	errno = 0;
	err = fflush(f) || ferror(f) ? (errno ? -errno : -EIO) : 0;
	if (fclose(f) && !err)
		err = errno ? -errno : -EIO;
	return err;
}

/*
 * A snapshot: its header "# pcpctl stats snapshot of PATH inode INO",
 * then stats_percpu as it was. 0, -errno, or -EINVAL with
 * pcp_parse_error saying where.
 */
static int load_snapshot(const char *path, struct percpu *p)
{
	char *line = NULL, *ino;
	size_t size = 0;
	ssize_t len;
	int err;
	FILE *f = fopen(path, "r");

	if (!f)
		return -errno;
	snprintf(p->path, sizeof(p->path), "%s", path);
	len = getline(&line, &size, f);
	err = pcp_parse_fail(path, 1, "not a snapshot of pcpctl stats --save");
	if (len > 0 && line[len - 1] == '\n' && strlen(line) == (size_t)len &&
	    !strncmp(line, SNAPSHOT_HEADER " ", strlen(SNAPSHOT_HEADER) + 1)) {
		line[len - 1] = '\0';
		ino = strstr(line, " inode ");
		if (ino && !pcp_parse_count(ino + 7, false, &p->ino) &&
		    ino - line - strlen(SNAPSHOT_HEADER) - 1 < sizeof(p->path)) {
			*ino = '\0';
			err = parse_percpu(p, f, 2);
			/* the file it was saved from, not the snapshot */
			snprintf(p->path, sizeof(p->path), "%s",
				 line + strlen(SNAPSHOT_HEADER) + 1);
		}
	}
	free(line);
	fclose(f);
	return err;
}

/*
 * @now minus @then, CPU by CPU and counter by counter. @then must be of
 * the same load, cover every CPU and counter of @now and nothing else,
 * and be no later. Says why not and returns -1 otherwise.
 */
static int subtract(struct percpu *now, const struct percpu *then,
		    const char *path)
{
	int c, t, i, j;

	if (!same_load(now, then)) {
		fprintf(stderr, "%s: %s: saved from another load of pcpcache (or another of its files); its counters do not count here\n",
			who, path);
		return -1;
	}
	for (i = 0; i < then->nr_names; i++)
		if (stat_index(now, then->name[i]) < 0) {
			fprintf(stderr, "%s: %s: counter %s is not the module's\n",
				who, path, then->name[i]);
			return -1;
		}
	for (t = 0; t < then->nr_cpus; t++)
		if (cpu_index(now, then->cpu[t]) < 0) {
			fprintf(stderr, "%s: %s: cpu %d is not the module's\n",
				who, path, then->cpu[t]);
			return -1;
		}
	for (i = 0; i < now->nr_names; i++)
		if (stat_index(then, now->name[i]) < 0) {
			fprintf(stderr, "%s: %s: lacks counter %s; not a snapshot of this module\n",
				who, path, now->name[i]);
			return -1;
		}
	for (c = 0; c < now->nr_cpus; c++)
		if (cpu_index(then, now->cpu[c]) < 0) {
			fprintf(stderr, "%s: %s: lacks cpu %d; not a snapshot of this module\n",
				who, path, now->cpu[c]);
			return -1;
		}
	for (c = 0; c < now->nr_cpus; c++) {
		t = cpu_index(then, now->cpu[c]);
		for (i = 0; i < now->nr_names; i++) {
			j = stat_index(then, now->name[i]);
			if (now->val[c][i] < then->val[t][j]) {
				fprintf(stderr, "%s: %s: %s of cpu %d is ahead of the module's; not a snapshot of this load?\n",
					who, path, now->name[i], now->cpu[c]);
				return -1;
			}
			now->val[c][i] -= then->val[t][j];
		}
	}
	return 0;
}

/* hit / alloc; NAN (printed "-", JSON null) when nothing was allocated. */
static double hit_rate(unsigned long long hit, unsigned long long alloc)
{
	return alloc ? (double)hit / alloc : NAN;
}

static bool cpu_counted(const struct percpu *p, int c)
{
	int i;

	for (i = 0; i < p->nr_names; i++)
		if (p->val[c][i])
			return true;
	return false;
}

/* The locking design loaded (the lock parameter, readable under lockdown). */
static const char *lock_design(void)
{
	static char lock[16];

	if (pcp_read_file(PCP_SYSFS "/parameters/lock", lock, sizeof(lock)) <= 0)
		return "unknown";
	lock[strcspn(lock, "\n")] = '\0';
	if (!pcp_name_ok(lock))
		return "unknown";
	return lock;
}

/* A percentage in @width, or "-" in its place. */
static void print_rate(int width, double rate)
{
	if (isnan(rate))
		printf(" %*s", width, "-");
	else
		printf(" %*.1f%%", width - 1, 100 * rate);
}

/* The total of @name in @p, or "-" (and figure_lost) past 64 bits. */
static void print_total(int width, const struct percpu *p, const char *name)
{
	unsigned long long sum;

	if (percpu_total(p, name, &sum) == -ERANGE) {
		figure_lost = true;
		printf(" %*s", width, "-");
	} else {
		printf(" %*llu", width, sum);
	}
}

/*
 * A line of totals: @val in its type, or "-" (JSON null, and figure_lost)
 * when it could not be @shown; in @js if given.
 */
static void show_total(struct json *js, int width, const char *name,
		       unsigned long long val, bool is_signed, bool shown)
{
	figure_lost |= !shown;
	if (js && !shown)
		json_num(js, name, NAN);
	else if (js && is_signed)
		json_int(js, name, (long long)val);
	else if (js)
		json_uint(js, name, val);
	else if (!shown)
		printf("%-*s %20s\n", width, name, "-");
	else if (is_signed)
		printf("%-*s %20lld\n", width, name, (long long)val);
	else
		printf("%-*s %20llu\n", width, name, val);
}

/* Width of the first column: the longest name, at least 16. */
static int name_width(const struct pcp_stats *st, const struct percpu *p)
{
	size_t w = 16;
	int i;

	for (i = 0; st && i < st->nr; i++)
		w = strlen(st->name[i]) > w ? strlen(st->name[i]) : w;
	for (i = 0; p && i < p->nr_names; i++)
		w = strlen(p->name[i]) > w ? strlen(p->name[i]) : w;
	return w;
}

/* Alloc and alloc_hit over @p's CPUs, or the stats file's. */
static double total_hit_rate(const struct pcp_stats *st, const struct percpu *p)
{
	unsigned long long alloc, hit;

	if (p ? percpu_total(p, "alloc", &alloc) || percpu_total(p, "alloc_hit", &hit) :
	    !pcp_stat_find(st, "alloc", &alloc) || !pcp_stat_find(st, "alloc_hit", &hit))
		return NAN;
	return hit_rate(hit, alloc);
}

/*
 * The stats file's lines, the counters taken from @p if given (so that
 * --since shows differences) and the rest (cached, held, user_held,
 * shrink_longest_us: levels, not counts) as they are now; in @js as an
 * object named @key if given.
 */
static void print_totals(const struct pcp_stats *st, const struct percpu *p,
			 struct json *js, const char *key)
{
	double rate = total_hit_rate(st, p);
	int i, w = name_width(st, p);
	unsigned long long val;
	bool shown;

	if (js)
		json_begin(js, key, '{');
	for (i = 0; i < st->nr; i++) {
		val = st->value[i];
		shown = true;
		if (p && stat_index(p, st->name[i]) >= 0)
			shown = percpu_total(p, st->name[i], &val) != -ERANGE;
		show_total(js, w, st->name[i], val, pcp_stat_signed(st->name[i]),
			   shown);
	}
	if (js) {
		json_num(js, "hit_rate", rate);
		json_str(js, "lock", lock_design());
		json_end(js, '}');
	} else {
		printf("%-*s", w, "hit_rate");
		print_rate(20, rate);
		printf("\n%-*s %20s\n", w, "lock", lock_design());
	}
}

/* The width of the @c-th CPU's column: its head and its longest count. */
static int cpu_width(const struct percpu *p, int c)
{
	char buf[24];
	int i, w = snprintf(buf, sizeof(buf), "cpu%d", p->cpu[c]), n;

	w = w < 7 ? 7 : w;
	for (i = 0; i < p->nr_names; i++) {
		n = snprintf(buf, sizeof(buf), "%llu", p->val[c][i]);
		w = n > w ? n : w;
	}
	return w;
}

/* Counters down, CPUs across, like /proc/interrupts; idle CPUs left out. */
static void print_per_cpu_table(const struct percpu *p)
{
	int c, i, hit = stat_index(p, "alloc_hit"), alloc = stat_index(p, "alloc");
	int w = name_width(NULL, p);
	static int width[PCP_MAX_CPUS];
	char head[16];

	printf("%-*s", w, "");
	for (c = 0; c < p->nr_cpus; c++) {
		if (!cpu_counted(p, c))
			continue;
		width[c] = cpu_width(p, c);
		snprintf(head, sizeof(head), "cpu%d", p->cpu[c]);
		printf(" %*s", width[c], head);
	}
	printf(" %20s\n", "total");
	for (i = 0; i < p->nr_names; i++) {
		printf("%-*s", w, p->name[i]);
		for (c = 0; c < p->nr_cpus; c++)
			if (cpu_counted(p, c))
				printf(" %*llu", width[c], p->val[c][i]);
		print_total(20, p, p->name[i]);
		putchar('\n');
	}
	if (hit < 0 || alloc < 0)
		return;
	printf("%-*s", w, "hit_rate");
	for (c = 0; c < p->nr_cpus; c++)
		if (cpu_counted(p, c))
			print_rate(width[c], hit_rate(p->val[c][hit], p->val[c][alloc]));
	print_rate(20, total_hit_rate(NULL, p));
	putchar('\n');
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
			json_uint(&js, p->name[i], p->val[c][i]);
		if (hit >= 0 && alloc >= 0)
			json_num(&js, "hit_rate",
				 hit_rate(p->val[c][hit], p->val[c][alloc]));
		json_end(&js, '}');
	}
	json_end(&js, ']');
	print_totals(st, p, &js, "total");
	json_end(&js, '}');
}

/* Why the counters could not be read, on one line. */
static void counters_error(int err)
{
	if (err == -EINVAL)
		fprintf(stderr, "%s: %s\n", who, pcp_parse_error);
	else
		fprintf(stderr, "%s: cannot read the counters: %s\n", who,
			strerror(-err));
}

/* 1 after saying so when a figure was shown as "-" for want of bits. */
static int figures_shown(void)
{
	if (!figure_lost)
		return 0;
	fprintf(stderr, "%s: a total does not fit in 64 bits; shown as -\n",
		who);
	return 1;
}

static const char stats_help[] =
	"usage: pcpctl stats [--per-cpu] [--json] [--since FILE]\n"
	"       pcpctl stats --save FILE\n"
	"\n"
	"The counters of pcpcache, summed over all CPUs, with the hit rate\n"
	"(alloc_hit / alloc) derived; cached, held, user_held and\n"
	"shrink_longest_us are levels, not counts.\n"
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

static void stats_usage(void)
{
	fprintf(stderr, "%s: usage: %s stats [--per-cpu] [--json] [--since FILE] | --save FILE\n", who,
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
	if (need_pcpcache() || (cpus && need_percpu_file("--per-cpu, --save and --since")))
		return 1;
	err = cpus ? read_percpu(&now) : 0;
	if (!err && !save)
		err = pcp_read_stats(&st);
	if (err) {
		counters_error(err);
		return 1;
	}
	if (save) {
		err = save_snapshot(save, &now);
		if (err)
			fprintf(stderr, "%s: %s: %s\n", who, save, strerror(-err));
		return err ? 1 : 0;
	}
	if (since) {
		err = load_snapshot(since, &then);
		if (err) {
			if (err == -EINVAL)
				fprintf(stderr, "%s: %s\n", who, pcp_parse_error);
			else
				fprintf(stderr, "%s: %s: %s\n", who, since,
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
	return figures_shown();
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

/*
 * A rate from two readings of a counter, in the counters' own type; a
 * counter that went back means the module was loaded again: -1.
 */
static int rate(unsigned long long prev, unsigned long long now, double secs,
		double *val)
{
	if (now < prev)
		return -1;
	*val = (now - prev) / secs;
	return 0;
}

/* One line of rates of the totals, and the pages cached now; -1: reloaded. */
static int watch_line(const struct pcp_stats *prev, const struct pcp_stats *now,
		      double secs, unsigned int line)
{
	unsigned long long a, b, cached = 0;
	double val[ARRAY_SIZE(watch_totals)];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(watch_totals); i++)
		if (!pcp_stat_find(prev, watch_totals[i], &a) ||
		    !pcp_stat_find(now, watch_totals[i], &b) ||
		    rate(a, b, secs, &val[i]))
			return -1;
	pcp_stat_find(now, "cached", &cached);
	if (line % WATCH_HEADER_EVERY == 0) {
		for (i = 0; i < ARRAY_SIZE(watch_totals); i++)
			printf("%12s", watch_totals[i]);
		printf("%12s\n", "cached");
	}
	for (i = 0; i < ARRAY_SIZE(watch_totals); i++)
		printf("%12.0f", val[i]);
	printf("%12llu\n", cached);
	return 0;
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

/*
 * Counter @name of the @c-th CPU per second between two readings (the
 * same load: same CPUs and counters); -1 when it went back.
 */
static int cpu_rate(const struct percpu *prev, const struct percpu *now,
		    int c, const char *name, double secs, double *val)
{
	int i = stat_index(now, name);

	*val = 0;
	return i < 0 ? 0 : rate(prev->val[c][i], now->val[c][i], secs, val);
}

/* A block of rates: one line per online CPU, then all of them. */
static int watch_block(const struct percpu *prev, const struct percpu *now,
		       double secs)
{
	static unsigned long long online[PCP_MAX_CPUS / 64];
	static long long cached[PCP_MAX_CPUS];
	double val[ARRAY_SIZE(watch_per_cpu)], all[ARRAY_SIZE(watch_per_cpu)] = { 0 };
	long long all_cached = 0;
	unsigned int i;
	int c;

	if (read_online(online) || read_cached(cached)) {
		fprintf(stderr, "%s: cannot read the online CPUs or the pagesets\n",
			who);
		return -1;
	}
	printf("%5s", "cpu");
	for (i = 0; i < ARRAY_SIZE(watch_per_cpu); i++)
		printf("%12s", watch_per_cpu[i]);
	printf("%12s\n", "cached");
	for (c = 0; c < now->nr_cpus; c++) {
		all_cached += cached[now->cpu[c]];
		for (i = 0; i < ARRAY_SIZE(watch_per_cpu); i++) {
			if (cpu_rate(prev, now, c, watch_per_cpu[i], secs, &val[i])) {
				fprintf(stderr, "%s: %s of cpu %d went back: pcpcache was loaded again\n",
					who, watch_per_cpu[i], now->cpu[c]);
				return -1;
			}
			all[i] += val[i];
		}
		if (!in_set(online, now->cpu[c]))
			continue;
		printf("%5d", now->cpu[c]);
		for (i = 0; i < ARRAY_SIZE(watch_per_cpu); i++)
			printf("%12.0f", val[i]);
		printf("%12lld\n", cached[now->cpu[c]]);
	}
	printf("%5s", "all");
	for (i = 0; i < ARRAY_SIZE(watch_per_cpu); i++)
		printf("%12.0f", all[i]);
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
	fprintf(stderr, "%s: usage: %s watch [--per-cpu] [INTERVAL [COUNT]]\n", who, prog);
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
	if (need_pcpcache() || (per_cpu && need_percpu_file("--per-cpu")))
		return 1;
	nap.tv_sec = interval;
	nap.tv_nsec = (interval - nap.tv_sec) * 1e9;
	err = watch_read(prev, per_cpu);
	if (err) {
		counters_error(err);
		return 1;
	}
	for (line = 0; !count || line < count; line++) {
		nanosleep(&nap, NULL);
		err = watch_read(now, per_cpu);
		if (err == -EINVAL) {
			counters_error(err);
			return 1;
		}
		if (!err && per_cpu && !same_load(&now->cpus, &prev->cpus))
			err = -ESTALE;
		if (err) {
			fprintf(stderr, "%s: pcpcache went away (or was loaded again)\n",
				who);
			return 1;
		}
		secs = seconds_between(&prev->when, &now->when);
		if (per_cpu && watch_block(&prev->cpus, &now->cpus, secs))
			return 1;
		if (!per_cpu && watch_line(&prev->st, &now->st, secs, line)) {
			fprintf(stderr, "%s: a counter went back: pcpcache was loaded again\n",
				who);
			return 1;
		}
		if (fflush(stdout))
			return 1;
		tmp = prev;
		prev = now;
		now = tmp;
	}
	return 0;
}

/*
 * Counters @names of every CPU below @max_cpus now, into @vals[cpu * @nr
 * + k] (0 for a CPU the file lacks): for replay. 0, or -1 after saying
 * why not.
 */
int read_percpu_counts(const char *const *names, int nr,
		       unsigned long long *vals, int max_cpus)
{
	static struct percpu p;
	int c, k, i;

	if (read_percpu(&p)) {
		fprintf(stderr, "%s: %s\n", who, pcp_parse_error[0] ? pcp_parse_error :
			"cannot read stats_percpu");
		return -1;
	}
	memset(vals, 0, sizeof(*vals) * nr * max_cpus);
	for (k = 0; k < nr; k++) {
		i = stat_index(&p, names[k]);
		if (i < 0) {
			fprintf(stderr, "%s: stats_percpu has no %s\n", who, names[k]);
			return -1;
		}
		for (c = 0; c < p.nr_cpus; c++)
			if (p.cpu[c] < max_cpus)
				vals[p.cpu[c] * nr + k] = p.val[c][i];
	}
	return 0;
}
