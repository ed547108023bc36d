// SPDX-License-Identifier: GPL-2.0
/*
 * pcpctl: control and exercise the pcpcache module. See pcpctl.8.
 *
 * The stress is the one the "stress" selftest runs (pcpcache_stress.c in
 * tools/lib/pcpcache/, which both link); the benchmarks are in bench.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "policy.h"
#include "pcpctl.h"

const char *prog = "pcpctl";
const char *who = "pcpctl";

/* A day: longer is more likely a typo than a plan. */
#define STRESS_MAX_SECONDS	86400

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s COMMAND [OPTIONS]\n"
		"\n"
		"commands:\n"
		"  stats [OPTIONS]         the counters, in total or per CPU, with the hit rate\n"
		"  pagesets [--json]       per-CPU counts, high and batch\n"
		"  mode [NAME]             show or switch the mode\n"
		"  set KNOB=VALUE...       set knobs (and mode) all at once, or none\n"
		"  drain                   give every cached page back\n"
		"  watch [OPTIONS]         counters per second, in total or per CPU, like vmstat 1\n"
		"  stress [OPTIONS]        all-CPU stress with modes and knobs changing\n"
		"  bench [OPTIONS]         the benchmarks, every mode side by side\n"
		"  fault [OPTIONS]         page_fault1 through /dev/pcpcache and the kernel\n"
		"  record --output TRACE  record the machine's page allocations (no module needed)\n"
		"  simulate TRACE          a trace through every design and setting, on the host\n"
		"  replay TRACE            a trace through the loaded module, CPU by CPU\n"
		"  dump TRACE              a trace as text\n"
		"  help [COMMAND]          this, or what a command does\n"
		"\n"
		"'%s help COMMAND' or '%s COMMAND --help' describes a command;\n"
		"'%s --version' prints the version. Exit status: 0 done, 1 failed,\n"
		"2 a usage error (nothing was asked of pcpcache).\n", prog, prog, prog, prog);
}

static void stress_usage(FILE *f)
{
	fprintf(f,
		"usage: %s stress [--seconds N] [--cpus LIST] [--seed S] [--calm]\n"
		"                     [--hotplug] [--fault PERCENT]\n"
		"\n"
		"One thread pinned to each CPU of LIST (default: every CPU this\n"
		"process may run on) allocates, holds and frees pages through\n"
		"pcpcache while a controller switches modes, changes knobs,\n"
		"writes values that must be refused and drains (not with --calm).\n"
		"Another writer's changes meanwhile are told from the controller's\n"
		"own by the configuration's generation, and counted. Prints pages\n"
		"and requests per second per CPU and in total, puts back the\n"
		"configuration and fault_refill found, drains and checks that the\n"
		"books balance; exits 1 if they do not or anything unexpected\n"
		"happened.\n"
		"\n"
		"  --seconds N  how long to run, 1 to 86400 (default 10)\n"
		"  --cpus LIST  CPUs to run on, like 0-3,6\n"
		"  --seed S     seed of every random choice, 0 to 4294967295,\n"
		"               to replay a run (default: $PCPCACHE_SEED, else\n"
		"               a new one)\n"
		"  --calm       no controller: the configuration stays as it is\n"
		"  --hotplug    the controller also takes CPUs offline and back\n"
		"  --fault P    cut P%% of refills short (fault_refill) meanwhile\n",
		prog);
}

/* "0-3,6" into @set; -1 after saying why not. */
static int parse_cpus(const char *list, cpu_set_t *set)
{
	unsigned long long bits[PCP_MAX_CPUS / 64];
	int cpu;

	long present = sysconf(_SC_NPROCESSORS_CONF);

	if (parse_list_arg("--cpus", list, 0, PCP_MAX_CPUS - 1, true, bits,
			   ARRAY_SIZE(bits)))
		return -1;
	CPU_ZERO(set);
	for (cpu = 0; cpu < PCP_MAX_CPUS; cpu++) {
		if (!(bits[cpu / 64] & 1ULL << (cpu % 64)))
			continue;
		/* a usage error, before anything is asked of the module */
		if (cpu >= present) {
			fprintf(stderr, "%s: --cpus %s: this machine has CPUs 0 to %ld\n",
				who, list, present - 1);
			return -1;
		}
		CPU_SET(cpu, set);
	}
	return 0;
}

static volatile sig_atomic_t stress_cancel;

static void on_stress_signal(int sig)
{
	stress_cancel = sig;
}

static int cmd_stress(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_stress_signal };
	static const struct option longopts[] = {
		{ "seconds", required_argument, NULL, 'd' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "seed", required_argument, NULL, 's' },
		{ "calm", no_argument, NULL, 'q' },
		{ "hotplug", no_argument, NULL, 'H' },
		{ "fault", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	struct pcp_stress_opts opts = {
		.seconds = 10,
		.seed = pcp_default_seed(),
		.chaos = true,
		.log = stderr,
		.cancel = &stress_cancel,
	};
	static struct pcp_stress_result res;
	unsigned long long pages = 0, ioctls = 0;
	struct pcp_stats st;
	char why[256];
	int opt, i, ok;

	if (sched_getaffinity(0, sizeof(opts.cpus), &opts.cpus))
		CPU_ZERO(&opts.cpus);
	while ((opt = next_option(argc, argv, longopts)) != -1) {
		switch (opt) {
		case 'd':
			if (parse_uint_arg("--seconds", optarg, 1, STRESS_MAX_SECONDS,
					   &opts.seconds))
				return 2;
			break;
		case 'c':
			if (parse_cpus(optarg, &opts.cpus))
				return 2;
			break;
		case 's':
			if (parse_uint_arg("--seed", optarg, 0, UINT_MAX,
					   &opts.seed))
				return 2;
			break;
		case 'q':
			opts.chaos = false;
			break;
		case 'H':
			opts.hotplug = true;
			break;
		case 'f':
			if (parse_uint_arg("--fault", optarg, 0, 100, &opts.fault))
				return 2;
			break;
		case 'h':
			stress_usage(stdout);
			return 0;
		default:
			return 2;
		}
	}
	if (no_operands(argc, argv, optind))
		return 2;
	if (need_writable() || need_debugfs_file("user"))
		return 1;

	printf("seed %u, %u s, %d CPUs%s\n", opts.seed, opts.seconds,
	       CPU_COUNT(&opts.cpus), opts.chaos ? ", with the controller" : "");
	/*
	 * SIGINT, SIGTERM and SIGHUP end the run early: the configuration,
	 * fault_refill and every CPU the controller took offline are put
	 * back before pcpctl exits (by the signal, as it would have).
	 */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	pcp_stress_run(&opts, &res);
	if (res.cancelled) {
		fprintf(stderr, "%s: ended by %s after %.1f s; the configuration%s is back as it was found\n",
			who, strsignal(stress_cancel), res.seconds,
			opts.fault ? " and fault_refill" : "");
		if (res.failure[0])
			fprintf(stderr, "%s: FAIL: %s\n", who, res.failure);
		signal(stress_cancel, SIG_DFL);
		raise(stress_cancel);
		return 1;
	}

	printf("%5s %14s %14s\n", "cpu", "pages/s", "requests/s");
	for (i = 0; i < res.nr_workers; i++) {
		printf("%5d %14.0f %14.0f\n", res.cpu[i],
		       res.pages[i] / res.seconds, res.ioctls[i] / res.seconds);
		pages += res.pages[i];
		ioctls += res.ioctls[i];
	}
	printf("%5s %14.0f %14.0f\n", "total", pages / res.seconds,
	       ioctls / res.seconds);
	printf("%llu control writes, %llu CPUs offlined, %llu requests over a limit or out of memory\n",
	       res.controls, res.hotplugs, res.enospc);
	if (res.foreign)
		printf("%llu changes of the configuration by another writer, taken in\n",
		       res.foreign);
	if (opts.chaos)
		printf("the configuration is back as it was found\n");

	ok = !res.failure[0];
	if (!ok)
		fprintf(stderr, "%s: FAIL: %s\n", who, res.failure);
	if (pcp_write("drain", "1") || pcp_read_stats(&st)) {
		fprintf(stderr, "%s: FAIL: cannot drain or read stats\n", who);
		return 1;
	}
	if (!pcp_books_balance(&st, why, sizeof(why))) {
		fprintf(stderr, "%s: FAIL: the books do not balance: %s\n", who, why);
		ok = 0;
	} else {
		printf("books balance: %s\n", why);
	}
	return ok ? 0 : 1;
}

/* "--help" as the only argument: print @text, return 1. */
int wants_help(int argc, char **argv, const char *text)
{
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("%s", text);
		return 1;
	}
	return 0;
}

/* "--json" as the only option, or none; -1 after usage for anything else. */
static int json_option(int argc, char **argv, const char *usage)
{
	if (argc == 1)
		return 0;
	if (argc == 2 && !strcmp(argv[1], "--json"))
		return 1;
	fprintf(stderr, "%s: usage: %s %s\n", who, prog, usage);
	return -1;
}

/* Copy the module's file @name to standard output, to its end. */
static int cat_file(const char *name)
{
	char path[256], buf[65536];
	ssize_t n;
	int fd;

	pcp_path(path, sizeof(path), name);
	fd = pcp_open(path, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "%s: %s: %s\n", who, path, strerror(errno));
		return 1;
	}
	/* a seq_file (pagesets) gives a page or so a read() */
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "%s: %s: %s\n", who, path, strerror(errno));
			close(fd);
			return 1;
		}
		fwrite(buf, 1, n, stdout);
	}
	close(fd);
	return 0;
}

/*
 * The pagesets as JSON: a list of CPUs, the cold list's in split mode, the
 * pages in transit in remote and blocks modes, those at home in blocks mode,
 * the spare's and the node's barn's in barn mode.
 */
static int pagesets_json(void)
{
	static struct pcp_pageset sets[PCP_MAX_CPUS];
	int i, order, nr = pcp_read_pagesets(sets, PCP_MAX_CPUS);
	struct json js;
	char key[24];

	if (nr < 0) {
		fprintf(stderr, "%s: %s\n", who, nr == -EINVAL ? pcp_parse_error : strerror(-nr));
		return 1;
	}
	json_open(&js, stdout);
	json_begin(&js, NULL, '{');
	json_begin(&js, "cpus", '[');
	for (i = 0; i < nr; i++) {
		json_begin(&js, NULL, '{');
		json_int(&js, "cpu", sets[i].cpu);
		json_int(&js, "count", sets[i].count);
		json_int(&js, "high", sets[i].high);
		json_int(&js, "batch", sets[i].batch);
		if (sets[i].cold_high >= 0) {
			json_int(&js, "cold_count", sets[i].cold_count);
			json_int(&js, "cold_high", sets[i].cold_high);
			json_int(&js, "cold_batch", sets[i].cold_batch);
		}
		for (order = 0; order < PCP_NR_ORDERS; order++) {
			snprintf(key, sizeof(key), "order%d", order);
			if (sets[i].order[order] >= 0)
				json_int(&js, key, sets[i].order[order]);
		}
		if (sets[i].transit >= 0)
			json_int(&js, "transit", sets[i].transit);
		if (sets[i].blocks >= 0)
			json_int(&js, "blocks", sets[i].blocks);
		if (sets[i].spare >= 0)
			json_int(&js, "spare", sets[i].spare);
		if (sets[i].barn >= 0)
			json_int(&js, "barn", sets[i].barn);
		json_end(&js, '}');
	}
	json_end(&js, ']');
	json_end(&js, '}');
	return 0;
}

static int cmd_pagesets(int argc, char **argv)
{
	int json;

	if (wants_help(argc, argv,
		       "usage: pcpctl pagesets [--json]\n\n"
		       "Each CPU's cached pages, high and batch (and the cold list's in\n"
		       "split mode), like the pagesets of /proc/zoneinfo; --json: one\n"
		       "JSON object with a list of CPUs.\n"))
		return 0;
	json = json_option(argc, argv, "pagesets [--json]");
	if (json < 0)
		return 2;
	if (need_pcpcache())
		return 1;
	return json ? pagesets_json() : cat_file("pagesets");
}

/* Write @val to pcpcache's file @file, or say why it was refused. */
static int write_or_say(const char *file, const char *val)
{
	int err = pcp_write(file, val);

	if (err == -EINVAL)
		fprintf(stderr, "%s: %s: '%s' refused (EINVAL): see pcpctl %s --help\n",
			who, file, val, strcmp(file, "config") ? file : "set");
	else if (err)
		fprintf(stderr, "%s: %s: %s\n", who, file, strerror(-err));
	return err ? 1 : 0;
}

static int cmd_mode(int argc, char **argv)
{
	if (wants_help(argc, argv,
		       "usage: pcpctl mode [passthrough|single|split|remote|blocks|barn]\n\n"
		       "Without a name, show the modes with the current one in\n"
		       "brackets; with one, switch every CPU to it.\n"))
		return 0;
	if (argc > 2) {
		fprintf(stderr, "%s: usage: %s mode [NAME]\n", who, prog);
		return 2;
	}
	/* the module's own grammar (policy.c), checked before it is asked */
	if (argc == 2 && pcpcache_mode_parse(argv[1], strlen(argv[1])) < 0) {
		fprintf(stderr, "%s: '%.*s' is not a mode: passthrough, single, split, remote, blocks or barn\n",
			who, QUOTE_MAX, argv[1]);
		return 2;
	}
	if (argc == 2)
		return need_writable() || write_or_say("mode", argv[1]);
	return need_pcpcache() || cat_file("mode");
}

static int cmd_drain(int argc, char **argv)
{
	if (wants_help(argc, argv,
		       "usage: pcpctl drain\n\n"
		       "Give every CPU's cached pages back to the buddy allocator.\n"))
		return 0;
	if (argc != 1) {
		fprintf(stderr, "%s: usage: %s drain\n", who, prog);
		return 2;
	}
	return need_writable() || write_or_say("drain", "1");
}

static int cmd_help(int argc, char **argv);

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} commands[] = {
	{ "stats", cmd_stats }, { "pagesets", cmd_pagesets },
	{ "mode", cmd_mode }, { "set", cmd_set }, { "drain", cmd_drain },
	{ "watch", cmd_watch }, { "stress", cmd_stress }, { "bench", cmd_bench },
	{ "fault", cmd_fault }, { "record", cmd_record },
	{ "simulate", cmd_simulate }, { "replay", cmd_replay },
	{ "dump", cmd_dump }, { "help", cmd_help },
};

/* The command named @name, or -1 after saying it is none. */
static int find_command(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(name, commands[i].name))
			return i;
	fprintf(stderr, "%s: '%.*s' is not a command; see %s help\n", who,
		QUOTE_MAX, name, prog);
	return -1;
}

/*
 * What a command printed must have reached its reader: a write error
 * (a full disk, a closed pipe, /dev/full) fails the command, exit 1 where
 * it would have exited 0, with a line saying so.
 */
static int stdout_written(int status)
{
	if (fflush(stdout) || ferror(stdout) || fclose(stdout)) {
		fprintf(stderr, "%s: standard output: %s\n", who, strerror(errno));
		return status ? status : 1;
	}
	return status;
}

/* help [COMMAND]: the list of commands, or what one does. */
static int cmd_help(int argc, char **argv)
{
	char *help[] = { argv[argc - 1], "--help", NULL };
	int i;

	if (argc == 1 || (argc == 2 && (!strcmp(argv[1], "--help") ||
					!strcmp(argv[1], "-h")))) {
		usage(stdout);
		return 0;
	}
	if (argc > 2) {
		fprintf(stderr, "%s: usage: %s help [COMMAND]\n", who, prog);
		return 2;
	}
	i = find_command(argv[1]);
	return i < 0 ? 2 : commands[i].fn(2, help);
}

int main(int argc, char **argv)
{
	static char name[64];
	int i;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return stdout_written(0);
	}
	if (!strcmp(argv[1], "--version")) {
		printf("%s %s\n", prog, PCPCACHE_VERSION);
		return stdout_written(0);
	}
	i = find_command(argv[1]);
	if (i < 0)
		return 2;
	snprintf(name, sizeof(name), "%s: %s", prog, commands[i].name);
	who = name;
	return stdout_written(commands[i].fn(argc - 1, argv + 1));
}
