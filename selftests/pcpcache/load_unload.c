// SPDX-License-Identifier: GPL-2.0
/*
 * Load and unload pcpcache: the debugfs directory comes and goes with the
 * module, module parameters are checked at load time, and the module can be
 * loaded again and again.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define DEBUGFS_DIR	"/sys/kernel/debug/pcpcache"
#define SYSFS_MODULE	"/sys/module/pcpcache"
#define RELOAD_CYCLES	20

/* Run a shell command quietly; its exit status, or -1 when it did not exit. */
static int run(const char *fmt, ...)
{
	char cmd[256];
	va_list ap;
	int status;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	status = system(cmd);
	if (status == -1 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool debugfs_mounted(void)
{
	char line[512];
	bool found = false;
	FILE *f = fopen("/proc/mounts", "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, " /sys/kernel/debug debugfs ");
	fclose(f);
	return found;
}

/* Read a small file into @buf; the number of bytes read, or -errno. */
static ssize_t read_file(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
	return n;
}

FIXTURE(pcpcache) {
};

FIXTURE_SETUP(pcpcache)
{
	if (geteuid() != 0)
		SKIP(return, "loading modules needs root");
	if (!debugfs_mounted())
		SKIP(return, "debugfs is not mounted on /sys/kernel/debug");
	if (run("modinfo pcpcache >/dev/null 2>&1") != 0)
		SKIP(return, "modprobe cannot find pcpcache.ko (not installed?)");
	if (exists(SYSFS_MODULE))
		ASSERT_EQ(0, run("rmmod pcpcache"));
}

FIXTURE_TEARDOWN(pcpcache)
{
	if (exists(SYSFS_MODULE))
		run("rmmod pcpcache");
}

TEST_F(pcpcache, debugfs_dir_follows_module)
{
	ASSERT_FALSE(exists(DEBUGFS_DIR));

	ASSERT_EQ(0, run("modprobe pcpcache"));
	ASSERT_TRUE(exists(SYSFS_MODULE));
	ASSERT_TRUE(is_dir(DEBUGFS_DIR)) {
		TH_LOG("%s missing after modprobe", DEBUGFS_DIR);
	}

	ASSERT_EQ(0, run("rmmod pcpcache"));
	ASSERT_FALSE(exists(SYSFS_MODULE));
	ASSERT_FALSE(exists(DEBUGFS_DIR)) {
		TH_LOG("%s left behind after rmmod", DEBUGFS_DIR);
	}
}

TEST_F(pcpcache, default_mode_is_single)
{
	char buf[128];

	ASSERT_EQ(0, run("modprobe pcpcache"));
	ASSERT_LT(0, read_file(DEBUGFS_DIR "/mode", buf, sizeof(buf)));
	ASSERT_STREQ("passthrough [single] split\n", buf);
}

TEST_F(pcpcache, mode_parameter_sets_mode)
{
	static const char * const expect[] = {
		"passthrough", "[passthrough] single split\n",
		"single", "passthrough [single] split\n",
		"split", "passthrough single [split]\n",
	};
	char buf[128];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(expect); i += 2) {
		ASSERT_EQ(0, run("modprobe pcpcache mode=%s", expect[i]));
		ASSERT_LT(0, read_file(DEBUGFS_DIR "/mode", buf, sizeof(buf)));
		EXPECT_STREQ(expect[i + 1], buf);
		ASSERT_LT(0, read_file(SYSFS_MODULE "/parameters/mode", buf,
				       sizeof(buf)));
		EXPECT_STREQ(expect[i + 1], buf);
		ASSERT_EQ(0, run("rmmod pcpcache"));
	}
}

TEST_F(pcpcache, bad_mode_parameter_fails_load)
{
	static const char * const bad[] = {
		"bogus", "Single", "singlex", "sing", "\"\"", "\"single split\"",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_NE(0, run("modprobe pcpcache mode=%s 2>/dev/null", bad[i])) {
			TH_LOG("mode=%s was accepted", bad[i]);
		}
		EXPECT_FALSE(exists(SYSFS_MODULE));
		if (exists(SYSFS_MODULE))
			run("rmmod pcpcache");
	}
	/* The kernel names the parameter that was refused. */
	EXPECT_EQ(0, run("dmesg | grep -q \"invalid for parameter \\`mode'\""));
}

TEST_F(pcpcache, reload_cycles)
{
	int i;

	for (i = 0; i < RELOAD_CYCLES; i++) {
		ASSERT_EQ(0, run("modprobe pcpcache")) {
			TH_LOG("load %d failed", i);
		}
		ASSERT_TRUE(is_dir(DEBUGFS_DIR));
		ASSERT_EQ(0, run("rmmod pcpcache")) {
			TH_LOG("unload %d failed", i);
		}
		ASSERT_FALSE(exists(DEBUGFS_DIR));
	}
}

TEST_HARNESS_MAIN
