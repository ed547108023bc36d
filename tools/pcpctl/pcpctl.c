// SPDX-License-Identifier: GPL-2.0
/*
 * pcpctl: control and exercise the pcpcache module.
 *
 *   pcpctl stress [--seconds N] [--cpus LIST] [--seed S]
 *
 * The stress is the one the "stress" selftest runs (pcpcache_stress.c in
 * selftests/pcpcache/, shared rather than copied).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pcpcache_stress.h"

static const char *prog = "pcpctl";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s COMMAND [OPTIONS]\n"
		"\n"
		"commands:\n"
		"  stress   all-CPU stress with modes and knobs changing under it\n"
		"\n"
		"'%s COMMAND --help' describes a command.\n", prog, prog);
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
		"Prints pages and requests per second per CPU and in total, then\n"
		"drains and checks that the books balance; exits 1 if they do not\n"
		"or anything unexpected happened.\n"
		"\n"
		"  --seconds N  how long to run (default 10)\n"
		"  --cpus LIST  CPUs to run on, like 0-3,6\n"
		"  --seed S     seed of every random choice, to replay a run\n"
		"  --calm       no controller: the configuration stays as it is\n"
		"  --hotplug    the controller also takes CPUs offline and back\n"
		"  --fault P    cut P%% of refills short (fault_refill) meanwhile\n",
		prog);
}

/* Why pcpcache cannot be used, or NULL when it can. */
static const char *unusable(void)
{
	if (geteuid() != 0)
		return "pcpcache's files are for root only";
	if (!pcp_debugfs_mounted())
		return "debugfs is not mounted on /sys/kernel/debug (mount -t debugfs none /sys/kernel/debug)";
	if (!pcp_exists(PCP_DIR))
		return "the pcpcache module is not loaded (modprobe pcpcache)";
	return NULL;
}

static int parse_cpus(const char *list, cpu_set_t *set)
{
	char *copy = strdup(list), *tok, *save = NULL, *end;
	long lo, hi;
	int err = 0;

	CPU_ZERO(set);
	for (tok = strtok_r(copy, ",", &save); tok && !err;
	     tok = strtok_r(NULL, ",", &save)) {
		lo = strtol(tok, &end, 10);
		hi = lo;
		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		if (end == tok || *end || lo < 0 || hi < lo || hi >= PCP_MAX_CPUS)
			err = -EINVAL;
		for (; !err && lo <= hi; lo++)
			CPU_SET(lo, set);
	}
	free(copy);
	return err || !CPU_COUNT(set) ? -EINVAL : 0;
}

static int cmd_stress(int argc, char **argv)
{
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
		.seed = time(NULL) ^ getpid(),
		.chaos = true,
		.log = stderr,
	};
	static struct pcp_stress_result res;
	unsigned long long pages = 0, ioctls = 0;
	struct pcp_stats st;
	char why[256];
	const char *bad;
	int opt, i, ok;

	if (sched_getaffinity(0, sizeof(opts.cpus), &opts.cpus))
		CPU_ZERO(&opts.cpus);
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			opts.seconds = strtoul(optarg, NULL, 10);
			break;
		case 'c':
			if (parse_cpus(optarg, &opts.cpus)) {
				fprintf(stderr, "%s: bad CPU list '%s'\n", prog,
					optarg);
				return 2;
			}
			break;
		case 's':
			opts.seed = strtoul(optarg, NULL, 10);
			break;
		case 'q':
			opts.chaos = false;
			break;
		case 'H':
			opts.hotplug = true;
			break;
		case 'f':
			opts.fault = strtoul(optarg, NULL, 10);
			if (opts.fault > 100) {
				fprintf(stderr, "%s: --fault takes 0 to 100\n",
					prog);
				return 2;
			}
			break;
		case 'h':
			stress_usage(stdout);
			return 0;
		default:
			stress_usage(stderr);
			return 2;
		}
	}
	bad = unusable();
	if (bad) {
		fprintf(stderr, "%s: %s\n", prog, bad);
		return 1;
	}

	printf("seed %u, %u s, %d CPUs%s\n", opts.seed, opts.seconds,
	       CPU_COUNT(&opts.cpus), opts.chaos ? ", with the controller" : "");
	pcp_stress_run(&opts, &res);

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

	ok = !res.failure[0];
	if (!ok)
		printf("FAIL: %s\n", res.failure);
	if (pcp_write("drain", "1") || pcp_read_stats(&st)) {
		printf("FAIL: cannot drain or read stats\n");
		return 1;
	}
	if (!pcp_books_balance(&st, why, sizeof(why))) {
		printf("FAIL: the books do not balance: %s\n", why);
		ok = 0;
	} else {
		printf("books balance: %s\n", why);
	}
	return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "stress"))
		return cmd_stress(argc - 1, argv + 1);
	fprintf(stderr, "%s: unknown command '%s'\n", prog, argv[1]);
	usage(stderr);
	return 2;
}
