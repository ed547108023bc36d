// SPDX-License-Identifier: GPL-2.0
/*
 * Where pcpctl finds pcpcache's files. The control and status files are
 * in sysfs (/sys/kernel/mm/pcpcache/), which kernel lockdown leaves
 * usable, and in debugfs; pcpctl takes sysfs's when the module has them.
 * The testing tools (user's ioctls, bench, fault_refill) are in debugfs
 * alone, which lockdown closes to everything that can be written.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pcpctl.h"

#define LOCKDOWN_FILE	"/sys/kernel/security/lockdown"

/*
 * Why pcpcache's files cannot be read, or NULL when they can; points
 * pcp_dir at the ones to use.
 */
const char *unusable(void)
{
	if (!pcp_exists(PCP_SYSFS))
		return "the pcpcache module is not loaded (modprobe pcpcache after make install, or insmod module/pcpcache.ko)";
	if (pcp_exists(PCP_SYSFS_DIR)) {
		pcp_dir = PCP_SYSFS_DIR;
		return NULL;
	}
	/* a pcpcache from before the sysfs files */
	pcp_dir = PCP_DIR;
	if (geteuid() != 0)
		return "pcpcache's debugfs files are for root only";
	if (!pcp_debugfs_mounted())
		return "debugfs is not mounted on /sys/kernel/debug (mount -t debugfs none /sys/kernel/debug)";
	return NULL;
}

/* Fail with the reason when pcpcache's files cannot be read; else 0. */
int need_pcpcache(void)
{
	const char *bad = unusable();

	if (bad) {
		fprintf(stderr, "%s: %s\n", who, bad);
		return 1;
	}
	return 0;
}

/* The lockdown level in force ("integrity", ...), or NULL: none, unknown. */
static const char *lockdown(void)
{
	static char buf[128];
	char *open, *close;

	if (pcp_read_file(LOCKDOWN_FILE, buf, sizeof(buf)) <= 0)
		return NULL;
	open = strchr(buf, '[');
	close = open ? strchr(open, ']') : NULL;
	if (!close || !strncmp(open, "[none]", 6))
		return NULL;
	*close = '\0';
	return open + 1;
}

/* Why the files cannot be written, for a message that ends in it. */
static const char *hint(void)
{
	static char buf[192];
	const char *level = lockdown();

	if (geteuid() != 0)
		return "; pcpcache's controls are for root";
	if (level) {
		snprintf(buf, sizeof(buf),
			 "; kernel lockdown (%s) refuses debugfs files that can be written",
			 level);
		return buf;
	}
	return "";
}

/*
 * For a command that changes something: point pcp_dir at whichever of
 * sysfs and debugfs can be written, or say that neither can and why.
 * Opening a file for writing changes nothing; writing it would.
 *
 * Return: 0, or 1 after saying why not.
 */
int need_writable(void)
{
	static const char * const dirs[] = { PCP_SYSFS_DIR, PCP_DIR };
	char path[256], why[2][64];
	unsigned int i;
	int fd;

	if (need_pcpcache())
		return 1;
	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		snprintf(path, sizeof(path), "%s/config", dirs[i]);
		fd = pcp_open(path, O_WRONLY);
		if (fd >= 0) {
			close(fd);
			pcp_dir = dirs[i];
			return 0;
		}
		snprintf(why[i], sizeof(why[i]), "%s", strerror(errno));
	}
	fprintf(stderr, "%s: neither %s (%s) nor %s (%s) can be written%s\n",
		who, dirs[0], why[0], dirs[1], why[1], hint());
	return 1;
}

/*
 * A debugfs file that the command cannot do without, opened as it will
 * open it. Return: 0, or 1 after saying why it cannot be.
 */
int need_debugfs_file(const char *file)
{
	char path[256];
	int fd, err;

	snprintf(path, sizeof(path), PCP_DIR "/%s", file);
	fd = pcp_open(path, O_RDWR);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	err = errno;
	fprintf(stderr, "%s: needs %s: %s%s\n", who, path,
		strerror(err),
		err == EPERM && lockdown() ?
		" (kernel lockdown refuses debugfs files that can be written or have an ioctl; the controls in /sys/kernel/mm/pcpcache still work)" :
		"");
	return 1;
}
