// SPDX-License-Identifier: GPL-2.0
/*
 * pcpcache under kernel lockdown, as a Secure Boot machine runs it: the
 * module is loaded and pages are cached and held, then lockdown is raised
 * to integrity through securityfs. debugfs must then refuse every file of
 * pcpcache that can be written or has an ioctl, and the sysfs files must
 * still switch every mode, set the knobs, refuse bad values, drain and
 * count, with the books balanced, through pcpctl too.
 *
 * Lockdown cannot be lowered again: this is not in the default run, and
 * make check runs it alone in a boot of its own. Booting with
 * lockdown=integrity instead would refuse the unsigned module, as Secure
 * Boot does without a signed build.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest.h"
#include "pcpcache_util.h"

#define SECURITYFS	"/sys/kernel/security"
#define LOCKDOWN	SECURITYFS "/lockdown"
#define HELD		64
#define PCPCTL_FAILS	"pcpctl %s > /tmp/out 2>&1; test $? = 1 && grep -q 'kernel lockdown' /tmp/out"

static const char * const modes[] = { "passthrough", "single", "split", "remote",
				      "blocks", "barn" };

/* Why this cannot run here, or NULL: lockdown must be there, and off. */
static const char *cannot_run(void)
{
	char buf[128];

	if (!pcp_exists(LOCKDOWN) &&
	    mount("securityfs", SECURITYFS, "securityfs", 0, NULL) && errno != EBUSY)
		return "cannot mount securityfs on " SECURITYFS;
	if (pcp_read_file(LOCKDOWN, buf, sizeof(buf)) <= 0)
		return "no " LOCKDOWN ": a kernel without the lockdown LSM";
	if (!strstr(buf, "[none]"))
		return "lockdown is on already: run this first in a boot of its own";
	return NULL;
}

/* Fill every CPU's magazine, and keep @HELD pages held by @fd. */
static int cache_and_hold(int fd)
{
	int cpu, err = 0;

	for (cpu = 0; cpu < pcp_nr_cpus() && !err; cpu++) {
		err = pcp_pin(cpu);
		if (!err)
			err = pcp_alloc(fd, 200, 0, NULL);
		if (!err)
			err = pcp_free(fd, 200, 0, NULL);
	}
	return err ?: pcp_alloc(fd, HELD, 0, NULL);
}

/* The books balance with @held pages held; and @cached, if not NULL. */
static bool books(long long held, long long *cached)
{
	struct pcp_stats st;
	char why[256];

	if (pcp_read_stats(&st) || !pcp_books_balance(&st, why, sizeof(why)) ||
	    pcp_stat(&st, "held") != held) {
		ksft_print_msg("books: %s, held %lld (want %lld)\n", why,
			       pcp_stat(&st, "held"), held);
		return false;
	}
	if (cached)
		*cached = pcp_stat(&st, "cached");
	return true;
}

/*
 * What lockdown must refuse: debugfs lets through only a file of mode
 * 0444 or less (and no ioctl: user, the one file with one, is 0600).
 */
static bool lockdown_refuses(mode_t mode)
{
	return mode & 07777 & ~0444;
}

/*
 * Every debugfs file that can be written, or has an ioctl: EPERM. The
 * files are listed from the directory, so that a new one is asked too;
 * those named here must be among them.
 */
static void debugfs_refuses(void)
{
	static const char * const known[] = {
		"mode", "batch", "high", "cold_batch", "cold_high", "high_min",
		"high_max", "barn_full", "config", "drain",
		"fault_refill", "bench", "user",
	};
	char path[512];
	struct dirent *e;
	struct stat st;
	size_t i, found = 0, nr = 0;
	int bad = 0, fd;
	DIR *d = opendir(PCP_DIR);

	while (d && (e = readdir(d))) {
		snprintf(path, sizeof(path), PCP_DIR "/%s", e->d_name);
		if (e->d_name[0] == '.' || stat(path, &st) || !S_ISREG(st.st_mode) ||
		    !lockdown_refuses(st.st_mode))
			continue;
		nr++;
		for (i = 0; i < ARRAY_SIZE(known); i++)
			found += !strcmp(known[i], e->d_name);
		fd = open(path, O_RDONLY);
		if (fd >= 0 || errno != EPERM) {
			ksft_print_msg("%s: %s\n", path,
				       fd >= 0 ? "opened" : strerror(errno));
			bad++;
		}
		if (fd >= 0)
			close(fd);
	}
	if (d)
		closedir(d);
	if (found != ARRAY_SIZE(known))
		ksft_print_msg("%zu of the %zu files named here were listed\n",
			       found, ARRAY_SIZE(known));
	ksft_test_result(!bad && found == ARRAY_SIZE(known),
			 "debugfs refuses all %zu files that can be written or have an ioctl (EPERM)\n",
			 nr);
	fd = open(PCP_DIR "/stats", O_RDONLY);
	ksft_test_result(fd >= 0, "debugfs still reads stats, which is read-only\n");
	if (fd >= 0)
		close(fd);
}

/* Every mode through sysfs, with pages cached; the books each time. */
static void modes_switch(void)
{
	struct pcp_pageset sets[PCP_MAX_CPUS];
	char buf[64], want[64];
	long long cached;
	bool ok = true;
	int i, m, nr;

	for (m = ARRAY_SIZE(modes) - 1; m >= 0 && ok; m--) {
		snprintf(want, sizeof(want), "[%s]", modes[m]);
		ok = !pcp_write("mode", modes[m]) &&
		     pcp_read_file(PCP_SYSFS_DIR "/mode", buf, sizeof(buf)) > 0 &&
		     strstr(buf, want) && books(HELD, &cached);
		/* a pagesets file that cannot be read fails too */
		nr = pcp_read_pagesets(sets, PCP_MAX_CPUS);
		ok = ok && nr >= pcp_nr_cpus();
		for (i = 0; i < nr && ok; i++)
			ok = (m == 2) == (sets[i].cold_high >= 0);
		if (ok && m == 0)
			ok = cached == 0;
		if (!ok)
			ksft_print_msg("mode %s: %s", modes[m], buf);
	}
	ksft_test_result(ok, "sysfs switches barn, blocks, remote, split, single and passthrough; the books balance with %d pages held\n",
			 HELD);
}

/* Knobs and config through sysfs; bad values refused, nothing changed. */
static void knobs_set(void)
{
	static const char * const bad[][2] = {
		{ "batch", "+5" }, { "batch", "0" }, { "high", "4294967296" },
		{ "config", "batch=8 high=4" }, { "mode", "bogus" },
		{ "drain", "2" }, { "barn_full", "33" },
	};
	char before[256], after[256];
	long gen, gen_after, val;
	bool ok;
	size_t i;

	ok = !pcp_write("batch", "8") && !pcp_write("high", "64") &&
	     !pcp_write("barn_full", "2") && !pcp_read_long("barn_full", &val) &&
	     val == 2 &&
	     !pcp_write("config", "mode=split batch=16 high=128 cold_batch=8 cold_high=32 barn_full=3") &&
	     !pcp_read_long("high", &val) && val == 128 &&
	     !pcp_read_long("barn_full", &val) && val == 3;
	ksft_test_result(ok, "sysfs sets batch, high, barn_full and a whole config\n");

	ok = pcp_read_file(PCP_SYSFS_DIR "/config", before, sizeof(before)) > 0 &&
	     !pcp_read_long("generation", &gen);
	for (i = 0; i < ARRAY_SIZE(bad) && ok; i++)
		ok = pcp_write(bad[i][0], bad[i][1]) == -EINVAL;
	ok = ok && pcp_read_file(PCP_SYSFS_DIR "/config", after, sizeof(after)) > 0 &&
	     !strcmp(before, after) && !pcp_read_long("generation", &gen_after) &&
	     gen == gen_after;
	ksft_test_result(ok, "sysfs refuses %zu bad writes with EINVAL, changing nothing\n",
			 ARRAY_SIZE(bad));
}

static void drain(void)
{
	long long cached = -1;

	ksft_test_result(!pcp_write("drain", "1") && books(HELD, &cached) &&
			 cached == 0,
			 "sysfs drains every CPU: cached %lld, the books balance\n",
			 cached);
}

/* pcpctl through sysfs; what needs debugfs says lockdown is why. */
static void pcpctl_works(const char *json)
{
	if (pcp_run("command -v pcpctl > /dev/null")) {
		ksft_test_result_skip("pcpctl is not on PATH\n");
		ksft_test_result_skip("pcpctl is not on PATH\n");
		return;
	}
	ksft_test_result(!pcp_run("pcpctl mode split && pcpctl mode | grep -q '\\[split\\]' && "
				  "pcpctl set mode=single batch=31 high=186 && "
				  "grep -q 'batch=31 high=186' " PCP_SYSFS_DIR "/config && "
				  "pcpctl drain && pcpctl pagesets > /dev/null && "
				  "pcpctl stats --json | %s", json),
			 "pcpctl: mode, set, drain, pagesets and stats --json, through sysfs\n");
	ksft_test_result(!pcp_run(PCPCTL_FAILS, "stress --seconds 1") &&
			 !pcp_run(PCPCTL_FAILS, "bench --only 2"),
			 "pcpctl stress and bench say lockdown keeps them from debugfs\n");
	pcp_run("sed 's/^/# /' /tmp/out");
}

int main(int argc, char **argv)
{
	char buf[128], json[4096];
	const char *why;
	long long mark;
	int fd;

	ksft_print_header();
	/* json_check is installed next to this program */
	snprintf(json, sizeof(json), "%s", argv[0]);
	snprintf(strrchr(json, '/') ? strrchr(json, '/') + 1 : json,
		 sizeof(json) - (strrchr(json, '/') ? strrchr(json, '/') + 1 - json : 0),
		 "json_check");
	why = pcp_skip_reason() ?: cannot_run();
	if (why)
		ksft_exit_skip("%s\n", why);
	if (pcp_reload(NULL))
		ksft_exit_fail_msg("modprobe pcpcache failed\n");
	mark = pcp_log_mark();
	ksft_set_plan(12);

	fd = pcp_open_user();
	ksft_test_result(fd >= 0 && !cache_and_hold(fd) && books(HELD, NULL),
			 "before lockdown: pages cached on every CPU, %d held\n", HELD);
	ksft_test_result(!pcp_write_file(LOCKDOWN, "integrity") &&
			 pcp_read_file(LOCKDOWN, buf, sizeof(buf)) > 0 &&
			 strstr(buf, "[integrity]"),
			 "lockdown raised to integrity\n");

	pcp_dir = PCP_SYSFS_DIR;
	debugfs_refuses();
	modes_switch();
	knobs_set();
	drain();
	pcpctl_works(json);

	if (fd >= 0)
		close(fd);
	/* refused for lockdown's reason (EPERM), not any other */
	ksft_test_result(books(0, NULL) && !pcp_run("rmmod pcpcache") &&
			 pcp_run("modprobe pcpcache 2> /tmp/out") &&
			 !pcp_run("grep -q 'Operation not permitted' /tmp/out"),
			 "the file closed, nothing held; pcpcache unloads, and, unsigned, cannot load again\n");
	pcp_run("sed 's/^/# /' /tmp/out");
	ksft_test_result(pcp_log_grep(mark, "WARNING:|BUG:|Oops|pcpcache:.*(error|fail)") == 1,
			 "no warning or pcpcache error in dmesg\n");
	ksft_finished();
}
