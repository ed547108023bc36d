// SPDX-License-Identifier: GPL-2.0
/*
 * pcpctl simulate and dump: a recorded trace through every design and
 * setting (sim.c), side by side, and the trace as text.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pcpctl.h"
#include "plot.h"
#include "sim.h"

/* A file written by record, or its dump (pcpctl's own text). */
int load_trace(const char *path, struct pcp_trace *t)
{
	char magic[8] = { 0 };
	struct stat st;
	FILE *f;
	int err;

	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", who, path, strerror(errno));
		return -1;
	}
	/* read twice, the magic then the whole: not from a pipe */
	if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
		fprintf(stderr, "%s: %s: not a file (a pipe's trace must be saved first: record --input - --output FILE)\n",
			who, path);
		fclose(f);
		return -1;
	}
	if (fread(magic, 1, sizeof(magic), f) == sizeof(magic) &&
	    !memcmp(magic, PCP_TRACE_MAGIC, sizeof(magic))) {
		fclose(f);
		err = pcp_trace_load(path, t);
	} else {
		rewind(f);
		err = pcp_trace_read_text(f, path, t);
		fclose(f);
	}
	if (err)
		fprintf(stderr, "%s: %s\n", who, pcp_trace_error);
	return err;
}

void print_trace_summary(FILE *f, const char *path, const struct pcp_trace *t)
{
	char thp[64] = "";

	if (t->nr_thp)
		snprintf(thp, sizeof(thp), ", %" PRIu64 " of them of order %d",
			 t->nr_thp, PCP_TRACE_THP_ORDER);
	fprintf(f, "trace %s: %" PRIu64 " events (%" PRIu64 " allocations, %" PRIu64
		" frees%s), %u CPUs; lost %" PRIu64 ", dropped %" PRIu64
		" unmatched and %" PRIu64 " %s\n",
		path, t->h.nr_events, t->nr_allocs, t->nr_frees, thp, t->h.nr_cpus,
		t->h.lost, t->h.unmatched, t->h.beyond, pcp_trace_beyond_what(&t->h));
	if (t->nr_kfrees)
		fprintf(f, "%" PRIu64 " frees of pages allocated before the recording, for the kernel model alone (kfree)\n",
			t->nr_kfrees);
	if (t->h.lost)
		fprintf(f, "warning: the kernel lost %" PRIu64 " events: the stream has gaps\n",
			t->h.lost);
}

static const char *dump_help =
	"usage: pcpctl dump TRACE\n\n"
	"Write a trace as text, one event a line: microseconds since the\n"
	"previous event, CPU, operation (alloc, free, krefill, kdrain), pfn,\n"
	"order, migratetype and 'cold'. simulate and replay read the text\n"
	"back, and record converts it into a trace again.\n";

int cmd_dump(int argc, char **argv)
{
	struct pcp_trace t;
	int err;

	if (wants_help(argc, argv, dump_help))
		return 0;
	if (argc != 2 || argv[1][0] == '-') {
		fprintf(stderr, "%s: usage: %s dump TRACE\n", who, prog);
		return 2;
	}
	if (load_trace(argv[1], &t))
		return 1;
	err = pcp_trace_dump(&t, stdout);
	pcp_trace_release(&t);
	return err ? 1 : 0;
}

static const char *simulate_help =
	"usage: pcpctl simulate TRACE [--set KNOBS] [--designs LIST]\n"
	"                       [--batch LIST] [--high LIST] [--max-order N]\n"
	"                       [--block-hold N] [--barn-full LIST] [--budget MB]\n"
	"                       [--per-cpu] [--json] [--plot DIR]\n\n"
	"Replay TRACE on this machine through pcpcache's own list discipline\n"
	"(the module's magazine.c), for a grid of designs and settings, and\n"
	"through a model of the kernel's own lists (6.1's, with the batch and\n"
	"high the recording saw). Per setting: the hit rate, buddy round trips\n"
	"(refills and drains) per 1000 operations, and the pages parked in the\n"
	"lists, mean and peak, in all and on the busiest CPU. '*' marks the\n"
	"settings on the Pareto front of trips against peak pages parked.\n\n"
	"  --set KNOBS     one setting instead of the grid, as pcpctl set takes\n"
	"                  it: 'mode=single batch=63 high=378'\n"
	"  --designs LIST  of passthrough, single, split, remote, blocks, barn,\n"
	"                  auto, kernel (default: all)\n"
	"  --batch LIST    batches of the grid (default 4,8,16,31,63,127,255,511)\n"
	"  --high LIST     highs of the grid, as multiples of batch\n"
	"                  (default 1,2,4,6,8,16; not barn's, whose magazines\n"
	"                  hold batch pages)\n"
	"  --max-order N   cache orders 0 to N only, as before 5.13 with 0\n"
	"                  (default 3)\n"
	"  --block-hold N  blocks: pages a CPU keeps at home in its blocks, as\n"
	"                  the module's block_hold parameter (default 1024)\n"
	"  --barn-full LIST\n"
	"                  barn: the most full magazines of each order the\n"
	"                  barn keeps, with each batch (default 0,2,4,8,16)\n"
	"  --budget MB     name the setting with the fewest trips whose peak\n"
	"                  fits in MB megabytes\n"
	"  --per-cpu       each CPU's counts too\n"
	"  --json          one JSON object\n"
	"  --plot DIR      trips against peak pages parked, as a PNG in DIR\n";

/*
 * Why a grid that asks for the kernel model has none: kernel text holds
 * no zones, and the model runs on the zones' batch and high.
 */
#define NO_KERNEL_MODEL \
	"no kernel model: the trace has no zones (record --input without --zoneinfo); " \
	"record it again with --zoneinfo FILE, the recorded machine's /proc/zoneinfo"

#define SIM_MAX_SETTINGS	4096
#define SIM_MAX_LIST		32

struct grid {
	bool design[SIM_NR_DESIGNS];
	bool autohigh;
	unsigned int batch[SIM_MAX_LIST], nr_batch;
	unsigned int high[SIM_MAX_LIST], nr_high;
	unsigned int max_order;
	unsigned int block_hold;
	unsigned int barn_full[SIM_MAX_LIST], nr_barn_full;
};

static int parse_uint_list(const char *what, const char *s, unsigned int min,
			   unsigned int max, unsigned int *out, unsigned int *nr)
{
	char *copy = strdup(s), *tok, *save;
	unsigned int v;

	*nr = 0;
	if (!copy)
		return -1;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (*nr == SIM_MAX_LIST) {
			fprintf(stderr, "%s: %s: at most %d values\n", who, what, SIM_MAX_LIST);
			free(copy);
			return -1;
		}
		if (parse_uint_arg(what, tok, min, max, &v)) {
			free(copy);
			return -1;
		}
		out[(*nr)++] = v;
	}
	free(copy);
	if (!*nr) {
		fprintf(stderr, "%s: %s: an empty list\n", who, what);
		return -1;
	}
	return 0;
}

static int parse_designs(const char *s, struct grid *g)
{
	char *copy = strdup(s), *tok, *save;
	int d, err = 0;

	if (!copy)
		return -1;
	memset(g->design, 0, sizeof(g->design));
	g->autohigh = false;
	for (tok = strtok_r(copy, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "auto")) {
			g->autohigh = true;
			continue;
		}
		for (d = 0; d < SIM_NR_DESIGNS; d++)
			if (!strcmp(tok, sim_design_name(d)))
				break;
		if (d == SIM_NR_DESIGNS) {
			fprintf(stderr, "%s: --designs: '%.*s' is none of passthrough, single, split, remote, blocks, barn, auto, kernel\n",
				who, QUOTE_MAX, tok);
			err = -1;
		} else {
			g->design[d] = true;
		}
	}
	free(copy);
	return err;
}

/* A config that policy.c would accept on a large machine. */
static bool config_ok(struct pcpcache_config *c)
{
	return !pcpcache_config_check(c, ~0UL);
}

static void base_config(struct pcpcache_config *c)
{
	memset(c, 0, sizeof(*c));
	c->batch = PCPCACHE_DEFAULT_BATCH;
	c->high = PCPCACHE_DEFAULT_HIGH;
	c->cold_batch = PCPCACHE_DEFAULT_COLD_BATCH;
	c->cold_high = PCPCACHE_DEFAULT_COLD_HIGH;
	c->high_min = PCPCACHE_DEFAULT_HIGH_MIN;
	c->high_max = PCPCACHE_DEFAULT_HIGH_MAX;
	c->barn_full = PCPCACHE_DEFAULT_BARN_FULL;
}

static unsigned int build_grid(const struct grid *g, bool kernel_ok,
			       struct sim_setting *s)
{
	unsigned int n = 0, b, h, d;

	if (g->design[SIM_PASSTHROUGH]) {
		base_config(&s[n].cfg);
		s[n].design = SIM_PASSTHROUGH;
		s[n++].max_order = g->max_order;
	}
	for (d = SIM_SINGLE; d <= SIM_BLOCKS; d++) {
		if (!g->design[d])
			continue;
		for (b = 0; b < g->nr_batch; b++)
			for (h = 0; h < g->nr_high; h++) {
				struct sim_setting *x = &s[n];

				base_config(&x->cfg);
				x->design = d;
				x->max_order = g->max_order;
				x->cfg.batch = g->batch[b];
				x->cfg.high = g->batch[b] * g->high[h];
				/* the cold list scales as the defaults do */
				x->cfg.cold_batch = g->batch[b] / 2 ? g->batch[b] / 2 : 1;
				x->cfg.cold_high = 2 * g->batch[b];
				if (config_ok(&x->cfg) && n < SIM_MAX_SETTINGS - 8)
					n++;
			}
	}
	/* barn: each batch with each barn_full; high is not used, 6 x batch */
	if (g->design[SIM_BARN]) {
		for (b = 0; b < g->nr_batch; b++)
			for (h = 0; h < g->nr_barn_full; h++) {
				struct sim_setting *x = &s[n];

				base_config(&x->cfg);
				x->design = SIM_BARN;
				x->cfg.mode = PCPCACHE_MODE_BARN;
				x->max_order = g->max_order;
				x->cfg.batch = g->batch[b];
				x->cfg.high = 6 * g->batch[b];
				x->cfg.cold_batch = g->batch[b] / 2 ? g->batch[b] / 2 : 1;
				x->cfg.cold_high = 2 * g->batch[b];
				x->cfg.barn_full = g->barn_full[h];
				if (config_ok(&x->cfg) && n < SIM_MAX_SETTINGS - 8)
					n++;
			}
	}
	/* 6.7's auto-tuned high from 6 x batch to 3 times that */
	if (g->autohigh) {
		for (b = 0; b < g->nr_batch; b++) {
			struct sim_setting *x = &s[n];

			if (g->batch[b] < 31 || g->batch[b] > 127)
				continue;
			base_config(&x->cfg);
			x->design = SIM_SINGLE;
			x->max_order = g->max_order;
			x->cfg.batch = g->batch[b];
			x->cfg.high_auto = true;
			x->cfg.high_min = 6 * g->batch[b];
			x->cfg.high_max = 18 * g->batch[b];
			x->cfg.high = x->cfg.high_min;
			if (config_ok(&x->cfg) && n < SIM_MAX_SETTINGS - 8)
				n++;
		}
	}
	if (g->design[SIM_KERNEL] && kernel_ok) {
		base_config(&s[n].cfg);
		s[n].design = SIM_KERNEL;
		s[n++].max_order = PCP_TRACE_MAX_ORDER;
	}
	for (b = 0; b < n; b++)
		s[b].block_hold = g->block_hold;
	return n;
}

/* What the kernel's own lists did, from its events in the recording. */
static void recorded_kernel(const struct pcp_trace *t, struct sim_result *r)
{
	uint8_t *last = calloc(t->h.nr_cpus, 1);
	uint64_t i;

	memset(r, 0, sizeof(*r));
	r->nr_cpus = t->h.nr_cpus;
	r->cpu = calloc(r->nr_cpus, sizeof(*r->cpu));
	if (!r->cpu || !last) {
		free(last);
		return;
	}
	for (i = 0; i < t->h.nr_events; i++) {
		const struct pcp_trace_event *e = &t->ev[i];
		struct sim_cpu *c = &r->cpu[e->cpu];
		unsigned int pages = 1U << pcp_ev_order(e);

		/* one refill or drain: its events come back to back */
		if (e->op == PCP_EV_KREFILL) {
			c->refill += last[e->cpu] != e->op;
			c->refill_pages += pages;
		} else if (e->op == PCP_EV_KDRAIN) {
			c->drain += last[e->cpu] != e->op;
			c->drain_pages += pages;
		} else if (e->op == PCP_EV_ALLOC) {
			c->allocs++;
		} else if (e->op == PCP_EV_FREE) {
			/* a kfree is no operation of the stream the designs see */
			c->frees++;
		}
		last[e->cpu] = e->op;
	}
	free(last);
	/* no direct calls counted: the recorded row is refills and drains */
	sim_result_finish(r, 0);
}

static void mark_pareto(struct sim_result *r, unsigned int n)
{
	unsigned int i, j;

	for (i = 0; i < n; i++) {
		r[i].pareto = 1;
		for (j = 0; j < n && r[i].pareto; j++) {
			if (j == i)
				continue;
			if (r[j].trips_per_k <= r[i].trips_per_k &&
			    r[j].total.parked_peak <= r[i].total.parked_peak &&
			    (r[j].trips_per_k < r[i].trips_per_k ||
			     r[j].total.parked_peak < r[i].total.parked_peak))
				r[i].pareto = 0;
		}
	}
}

/*
 * The model's error against the kernel's figure, "+1.3%"; against a
 * kernel's 0 there is no percentage, and saying +0.0% would pass a model
 * that did what the kernel never did.
 */
static const char *pct_error(char *buf, size_t size, uint64_t model,
			     uint64_t real)
{
	if (real)
		snprintf(buf, size, "%+.1f%%",
			 100.0 * ((double)model - (double)real) / real);
	else if (model)
		snprintf(buf, size, "the kernel's 0: no percentage");
	else
		snprintf(buf, size, "both 0: nothing compared");
	return buf;
}

static void print_cpus(const struct sim_result *r)
{
	unsigned int cpu;

	for (cpu = 0; cpu < r->nr_cpus; cpu++) {
		const struct sim_cpu *c = &r->cpu[cpu];

		printf("    cpu %-3u allocs %" PRIu64 " hit_pages %" PRIu64 " refill %" PRIu64
		       " refill_pages %" PRIu64 " drain %" PRIu64 " drain_pages %" PRIu64
		       " peak %" PRIu64 "\n", cpu, c->allocs, c->alloc_hit, c->refill,
		       c->refill_pages, c->drain, c->drain_pages, c->parked_peak);
	}
}

static void json_cpus(struct json *js, const struct sim_result *r)
{
	unsigned int cpu;

	json_begin(js, "cpus", '[');
	for (cpu = 0; cpu < r->nr_cpus; cpu++) {
		const struct sim_cpu *c = &r->cpu[cpu];

		json_begin(js, NULL, '{');
		json_uint(js, "cpu", cpu);
		json_uint(js, "allocs", c->allocs);
		json_uint(js, "frees", c->frees);
		json_uint(js, "alloc_hit", c->alloc_hit);
		json_uint(js, "alloc_miss", c->alloc_miss);
		json_uint(js, "refill", c->refill);
		json_uint(js, "refill_pages", c->refill_pages);
		json_uint(js, "drain", c->drain);
		json_uint(js, "drain_pages", c->drain_pages);
		json_uint(js, "parked_peak", c->parked_peak);
		json_end(js, '}');
	}
	json_end(js, ']');
}

static void json_result(struct json *js, const char *label,
			const struct sim_result *r, bool per_cpu)
{
	json_begin(js, NULL, '{');
	json_str(js, "setting", label);
	json_num(js, "hit_rate", r->hit_rate);
	json_num(js, "trips_per_1000", r->trips_per_k);
	json_uint(js, "refill", r->total.refill);
	json_uint(js, "refill_pages", r->total.refill_pages);
	json_uint(js, "drain", r->total.drain);
	json_uint(js, "drain_pages", r->total.drain_pages);
	json_uint(js, "buddy_alloc", r->total.buddy_alloc);
	json_uint(js, "buddy_free", r->total.buddy_free);
	json_uint(js, "remote_frees", r->total.remote_frees);
	json_uint(js, "remote_overflow", r->total.remote_overflow);
	json_uint(js, "block_refills", r->total.block_refills);
	json_uint(js, "block_whole", r->total.block_whole);
	json_uint(js, "block_whole_pages", r->total.block_whole_pages);
	json_uint(js, "block_pieces", r->total.block_pieces);
	json_uint(js, "barn_swaps", r->total.barn_swaps);
	json_uint(js, "barn_took_full", r->total.barn_took_full);
	json_uint(js, "barn_gave_full", r->total.barn_gave_full);
	json_uint(js, "barn_flushes", r->total.barn_flushes);
	json_uint(js, "barn_trimmed", r->total.barn_trimmed);
	json_uint(js, "barn_peak", r->barn_peak);
	json_num(js, "parked_mean", r->parked_mean);
	json_uint(js, "parked_peak", r->total.parked_peak);
	json_uint(js, "parked_peak_cpu", r->parked_peak_cpu);
	json_bool(js, "pareto", r->pareto);
	if (per_cpu)
		json_cpus(js, r);
	json_end(js, '}');
}

/* each design its own look: the designs and auto */
_Static_assert(SIM_NR_DESIGNS + 1 <= GP_NR_STYLES, "a look for every design");

/* trips against peak pages: every setting, a series per design, the front marked */
static int plot_front(const char *dir, const struct sim_setting *s,
		      const struct sim_result *r, unsigned int n)
{
	const char *series[SIM_NR_DESIGNS + 1], *design;
	char *csv = NULL, *png = NULL;
	unsigned int i, j, nr_series = 0;
	char label[96];
	FILE *f;
	int err = 1;

	if (strpbrk(dir, "\n\r")) {
		fprintf(stderr, "%s: --plot: gnuplot cannot name a path with a line break\n", who);
		return 1;
	}
	if (mkdir(dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "%s: %s: %s\n", who, dir, strerror(errno));
		return 1;
	}
	if (asprintf(&csv, "%s%s/simulate.csv", gp_prefix(dir), dir) < 0 ||
	    asprintf(&png, "%s%s/simulate.png", gp_prefix(dir), dir) < 0)
		goto out;
	if (create_new(csv))
		goto out;
	f = fopen(csv, "w");
	if (!f)
		goto out;
	fprintf(f, "setting,design,trips_per_1000,parked_peak,parked_mean,pareto\n");
	for (i = 0; i < n; i++) {
		sim_label(&s[i], label, sizeof(label));
		/* barn's magazines are not auto-tuned, whatever high says */
		design = s[i].cfg.high_auto && s[i].design != SIM_BARN ? "auto" :
			 sim_design_name(s[i].design);
		fprintf(f, "%s,%s,%.3f,%" PRIu64 ",%.1f,%d\n", label, design,
			r[i].trips_per_k, r[i].total.parked_peak, r[i].parked_mean,
			r[i].pareto);
		/* a series for every design the CSV has, in its order */
		for (j = 0; j < nr_series && strcmp(series[j], design); j++)
			;
		if (j == nr_series && nr_series < ARRAY_SIZE(series))
			series[nr_series++] = design;
	}
	if (ferror(f) | fclose(f)) {
		fprintf(stderr, "%s: %s: %s\n", who, csv, strerror(errno));
		goto out;
	}
	if (create_new(png))
		goto out;
	err = gnuplot_scatter(png, "Buddy round trips against memory parked, per setting",
			    "pages parked at the peak, plus 1 (log scale)",
			    "buddy calls per 1000 operations (log scale; under 0.001 drawn at 0.001)",
			    csv, series, nr_series);
	if (err)
		unlink(png);
	else
		printf("plot in %s\n", png);
out:
	free(csv);
	free(png);
	return err ? 1 : 0;
}

int cmd_simulate(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "set", required_argument, NULL, 's' },
		{ "designs", required_argument, NULL, 'd' },
		{ "batch", required_argument, NULL, 'b' },
		{ "high", required_argument, NULL, 'H' },
		{ "max-order", required_argument, NULL, 'o' },
		{ "block-hold", required_argument, NULL, 'k' },
		{ "barn-full", required_argument, NULL, 'F' },
		{ "budget", required_argument, NULL, 'B' },
		{ "per-cpu", no_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "plot", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	struct grid g = {
		/* by name: remote's arrival once took kernel's place here */
		.design = {
			[SIM_PASSTHROUGH] = true, [SIM_SINGLE] = true,
			[SIM_SPLIT] = true, [SIM_REMOTE] = true,
			[SIM_BLOCKS] = true, [SIM_BARN] = true,
			[SIM_KERNEL] = true,
		},
		.autohigh = true,
		.batch = { 4, 8, 16, 31, 63, 127, 255, 511 }, .nr_batch = 8,
		.high = { 1, 2, 4, 6, 8, 16 }, .nr_high = 6,
		.max_order = PCP_TRACE_MAX_ORDER,
		.block_hold = SIM_BLOCK_HOLD,
		.barn_full = { 0, 2, 4, 8, 16 }, .nr_barn_full = 5,
	};
	const char *set = NULL, *plot_dir = NULL, *no_kernel = NULL;
	bool json = false, per_cpu = false, budget_given = false;
	static struct sim_setting settings[SIM_MAX_SETTINGS];
	struct sim_result *res = NULL, kreal;
	unsigned int budget = 0, n, i, best = UINT32_MAX;
	struct pcp_trace t;
	char label[96], refill_err[40], drain_err[40];
	struct json js;
	clock_t c0;
	double secs;
	int opt, err = 0;

	while ((opt = next_option(argc, argv, longopts)) != -1) {
		switch (opt) {
		case 's':
			set = optarg;
			break;
		case 'd':
			if (parse_designs(optarg, &g))
				return 2;
			break;
		case 'b':
			if (parse_uint_list("--batch", optarg, 1, PCPCACHE_MAX_BATCH,
					    g.batch, &g.nr_batch))
				return 2;
			break;
		case 'H':
			if (parse_uint_list("--high", optarg, 1, 4096, g.high, &g.nr_high))
				return 2;
			break;
		case 'o':
			if (parse_uint_arg("--max-order", optarg, 0, PCP_TRACE_MAX_ORDER,
					   &g.max_order))
				return 2;
			break;
		case 'k':
			if (parse_uint_arg("--block-hold", optarg, 0, SIM_BLOCK_HOLD_MAX,
					   &g.block_hold))
				return 2;
			break;
		case 'F':
			if (parse_uint_list("--barn-full", optarg, 0, PCPCACHE_BARN_MAX,
					    g.barn_full, &g.nr_barn_full))
				return 2;
			break;
		case 'B':
			if (parse_uint_arg("--budget", optarg, 1, 1U << 30, &budget))
				return 2;
			budget_given = true;
			break;
		case 'c':
			per_cpu = true;
			break;
		case 'j':
			json = true;
			break;
		case 'p':
			plot_dir = optarg;
			break;
		case 'h':
			printf("%s", simulate_help);
			return 0;
		default:
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "%s: usage: %s simulate TRACE [OPTIONS]; see %s help simulate\n",
			who, prog, prog);
		return 2;
	}
	if (set) {
		struct pcpcache_config c;

		base_config(&c);
		c.mode = PCPCACHE_MODE_SINGLE;
		if (pcpcache_config_parse(&c, set, strlen(set)) || !config_ok(&c)) {
			fprintf(stderr, "%s: --set '%.*s' refused: see %s set --help\n",
				who, QUOTE_MAX, set, prog);
			return 2;
		}
		settings[0].cfg = c;
		settings[0].design = (enum sim_design)c.mode;
		settings[0].max_order = g.max_order;
		settings[0].block_hold = g.block_hold;
	}
	if (load_trace(argv[optind], &t))
		return 1;
	n = set ? 1 : build_grid(&g, t.h.nr_zones > 0, settings);
	/* asked for (by default), but the model needs the zones' batch and high */
	if (!set && g.design[SIM_KERNEL] && !t.h.nr_zones)
		no_kernel = NO_KERNEL_MODEL;
	res = calloc(n ? n : 1, sizeof(*res));
	if (!res) {
		fprintf(stderr, "%s: out of memory\n", who);
		pcp_trace_release(&t);
		return 1;
	}
	c0 = clock();
	for (i = 0; i < n; i++) {
		if (sim_run(&t, &settings[i], &res[i])) {
			sim_label(&settings[i], label, sizeof(label));
			fprintf(stderr, "%s: %s: the simulation ran out of memory\n",
				who, label);
			err = 1;
			goto out;
		}
	}
	secs = (double)(clock() - c0) / CLOCKS_PER_SEC;
	mark_pareto(res, n);
	recorded_kernel(&t, &kreal);
	if (budget_given)
		for (i = 0; i < n; i++)
			if (settings[i].design != SIM_KERNEL &&
			    res[i].total.parked_peak * 4096ULL <= (unsigned long long)budget << 20 &&
			    (best == UINT32_MAX || res[i].trips_per_k < res[best].trips_per_k))
				best = i;

	if (json) {
		json_open(&js, stdout);
		json_begin(&js, NULL, '{');
		json_str(&js, "trace", argv[optind]);
		json_uint(&js, "events", t.h.nr_events);
		json_uint(&js, "cpus", t.h.nr_cpus);
		json_uint(&js, "lost", t.h.lost);
		json_uint(&js, "unmatched", t.h.unmatched);
		json_uint(&js, "kfrees", t.nr_kfrees);
		json_uint(&js, "beyond", t.h.beyond);
		json_num(&js, "cpu_seconds", secs);
		json_begin(&js, "settings", '[');
		for (i = 0; i < n; i++) {
			sim_label(&settings[i], label, sizeof(label));
			json_result(&js, label, &res[i], per_cpu);
		}
		json_end(&js, ']');
		if (no_kernel)
			json_str(&js, "no_kernel_model", no_kernel);
		if (t.h.flags & PCP_TRACE_KERNEL_LISTS) {
			json_begin(&js, "kernel_recorded", '{');
			json_uint(&js, "refill", kreal.total.refill);
			json_uint(&js, "refill_pages", kreal.total.refill_pages);
			json_uint(&js, "drain", kreal.total.drain);
			json_uint(&js, "drain_pages", kreal.total.drain_pages);
			json_end(&js, '}');
		}
		if (budget_given) {
			if (best != UINT32_MAX) {
				sim_label(&settings[best], label, sizeof(label));
				json_str(&js, "budget_best", label);
			} else {
				json_str(&js, "budget_best", "");
			}
		}
		json_end(&js, '}');
		putchar('\n');
	} else {
		print_trace_summary(stdout, argv[optind], &t);
		printf("%-40s %6s %9s %8s %8s %10s %8s %8s\n", "setting", "hit%",
		       "trips/1k", "refills", "drains", "parked", "peak", "peak/cpu");
		for (i = 0; i < n; i++) {
			sim_label(&settings[i], label, sizeof(label));
			printf("%-40s %6.2f %9.2f %8" PRIu64 " %8" PRIu64 " %10.1f %8" PRIu64
			       " %8" PRIu64 "%s\n", label, 100 * res[i].hit_rate,
			       res[i].trips_per_k, res[i].total.refill, res[i].total.drain,
			       res[i].parked_mean, res[i].total.parked_peak,
			       res[i].parked_peak_cpu, res[i].pareto ? " *" : "");
			if (per_cpu)
				print_cpus(&res[i]);
		}
		if (t.h.flags & PCP_TRACE_KERNEL_LISTS) {
			printf("%-40s %6s %9.2f %8" PRIu64 " %8" PRIu64 "\n",
			       "kernel (recorded)", "-", kreal.trips_per_k,
			       kreal.total.refill, kreal.total.drain);
			for (i = 0; i < n; i++)
				if (settings[i].design == SIM_KERNEL && res[i].skipped)
					printf("kernel model: %" PRIu64 " events outside it (a pfn in no recorded zone, a migratetype above 2) left out\n",
					       res[i].skipped);
			for (i = 0; i < n; i++)
				if (settings[i].design == SIM_KERNEL)
					printf("kernel model against the recording: refilled %" PRIu64
					       " pages against %" PRIu64 " (%s), drained %" PRIu64
					       " against %" PRIu64 " (%s)\n",
					       res[i].total.refill_pages, kreal.total.refill_pages,
					       pct_error(refill_err, sizeof(refill_err),
							 res[i].total.refill_pages,
							 kreal.total.refill_pages),
					       res[i].total.drain_pages, kreal.total.drain_pages,
					       pct_error(drain_err, sizeof(drain_err),
							 res[i].total.drain_pages,
							 kreal.total.drain_pages));
		}
		if (no_kernel)
			printf("%s\n", no_kernel);
		printf("%u settings in %.2f s of CPU time\n", n, secs);
		if (budget_given) {
			if (best == UINT32_MAX) {
				printf("no setting parks %u MB or less at its peak\n", budget);
			} else {
				sim_label(&settings[best], label, sizeof(label));
				printf("within %u MB: %s, %.2f trips per 1000 operations, peak %" PRIu64 " pages\n",
				       budget, label, res[best].trips_per_k,
				       res[best].total.parked_peak);
			}
		}
	}
	if (plot_dir && plot_front(plot_dir, settings, res, n))
		err = 1;
	sim_result_release(&kreal);
out:
	for (i = 0; i < n; i++)
		sim_result_release(&res[i]);
	free(res);
	pcp_trace_release(&t);
	return err;
}
