// SPDX-License-Identifier: GPL-2.0
/*
 * libpcpcache: what tools/pcpctl and the pcpcache selftests share.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <regex.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pcpcache_util.h"

const char *pcp_dir = PCP_DIR;
char pcp_parse_error[320];

/*
 * PCPCACHE_TEST_ROOT, for host tests only: a directory that stands in for
 * "/" wherever the module's and the kernel's files are opened (sysfs,
 * debugfs, /proc), so that a test can run every command against files it
 * wrote. Paths a user names (snapshots, CSV and plot folders) are not
 * moved. Returns @path itself when the variable is unset or empty, NULL
 * (ENAMETOOLONG) when the two do not fit in @size.
 */
const char *pcp_real_path(const char *path, char *buf, size_t size)
{
	const char *root = getenv("PCPCACHE_TEST_ROOT");

	if (!root || !*root || path[0] != '/')
		return path;
	if ((size_t)snprintf(buf, size, "%s%s", root, path) >= size) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	return buf;
}

/* open(2) of a module's or kernel's file, close-on-exec; fd or -1. */
int pcp_open(const char *path, int flags)
{
	char buf[4096];

	path = pcp_real_path(path, buf, sizeof(buf));
	return path ? open(path, flags | O_CLOEXEC) : -1;
}

/* fopen(3) of a module's or kernel's file, close-on-exec. */
FILE *pcp_fopen(const char *path, const char *mode)
{
	char buf[4096], m[8];

	snprintf(m, sizeof(m), "%se", mode);
	path = pcp_real_path(path, buf, sizeof(buf));
	return path ? fopen(path, m) : NULL;
}

/* A counter's or column's name as the module writes them: [a-z0-9_]. */
bool pcp_name_ok(const char *s)
{
	size_t len = strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_");

	return len && len <= PCP_NAME_MAX && !s[len];
}

/*
 * A decimal count with nothing around it, no sign (but '-' where
 * @is_signed), no leading '+' or space, in 64 bits (signed ones in 63):
 * 0, or -EINVAL (not a number) or -ERANGE (too large).
 */
int pcp_parse_count(const char *s, bool is_signed, unsigned long long *val)
{
	const char *digits = is_signed && *s == '-' ? s + 1 : s;
	char *end;

	if (*digits < '0' || *digits > '9')
		return -EINVAL;
	errno = 0;
	if (is_signed) {
		long long v = strtoll(s, &end, 10);

		*val = (unsigned long long)v;
	} else {
		*val = strtoull(s, &end, 10);
	}
	if (*end)
		return -EINVAL;
	return errno == ERANGE ? -ERANGE : 0;
}

/* The one line of stats that can be negative: a level, not a count. */
bool pcp_stat_signed(const char *name)
{
	return !strcmp(name, "held");
}

/* The testing tools that only debugfs has. */
static bool pcp_debugfs_only(const char *file)
{
	return !strcmp(file, "bench") || !strcmp(file, "fault_refill") ||
	       !strcmp(file, "delay_block_setup") || !strcmp(file, "audit") ||
	       !strcmp(file, "barn_trim") || !strcmp(file, "barn_trim_ms");
}

/* The path of pcpcache's file @file: in pcp_dir, or debugfs's own. */
void pcp_path(char *buf, size_t size, const char *file)
{
	snprintf(buf, size, "%s/%s", pcp_debugfs_only(file) ? PCP_DIR : pcp_dir,
		 file);
}

/* Run a shell command; its exit status, or -1 when it did not exit. */
int pcp_run(const char *fmt, ...)
{
	char cmd[512];
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

bool pcp_exists(const char *path)
{
	struct stat st;
	char buf[4096];

	path = pcp_real_path(path, buf, sizeof(buf));
	return path && stat(path, &st) == 0;
}

bool pcp_debugfs_mounted(void)
{
	char line[512];
	bool found = false;
	FILE *f = pcp_fopen("/proc/mounts", "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, " /sys/kernel/debug debugfs ");
	fclose(f);
	return found;
}

/* Why the tests cannot run here, or NULL when they can. */
const char *pcp_skip_reason(void)
{
	if (geteuid() != 0)
		return "loading modules needs root";
	if (!pcp_debugfs_mounted())
		return "debugfs is not mounted on /sys/kernel/debug";
	if (pcp_run("modinfo pcpcache >/dev/null 2>&1") != 0)
		return "modprobe cannot find pcpcache.ko (not installed?)";
	return NULL;
}

/*
 * Read a small file whole into @buf, NUL-terminated; the number of bytes
 * read, or -errno (-EFBIG: it does not fit in @size - 1).
 */
ssize_t pcp_read_file(const char *path, char *buf, size_t size)
{
	ssize_t n, err = 0;
	size_t len = 0;
	char more;
	int fd;

	fd = pcp_open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	/* to its end: a seq_file gives a page or so a read() */
	while (len < size - 1) {
		n = read(fd, buf + len, size - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			err = -errno;
		if (n <= 0)
			break;
		len += n;
	}
	/* never a silent prefix of a longer file */
	if (!err && len == size - 1 && read(fd, &more, 1) > 0)
		err = -EFBIG;
	buf[len] = '\0';
	close(fd);
	return err ? err : (ssize_t)len;
}

/* Write the @len bytes at @buf in one write(); 0, or -errno. */
int pcp_write_file_len(const char *path, const char *buf, size_t len)
{
	ssize_t n;
	int fd, err = 0;

	fd = pcp_open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, buf, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	close(fd);
	return err;
}

/* Write @val in one write(); 0, or -errno. */
int pcp_write_file(const char *path, const char *val)
{
	return pcp_write_file_len(path, val, strlen(val));
}

/* Write the @len bytes at @buf to pcpcache's file @file (in pcp_dir). */
int pcp_write_len(const char *file, const char *buf, size_t len)
{
	char path[256];

	pcp_path(path, sizeof(path), file);
	return pcp_write_file_len(path, buf, len);
}

/* Write @val to pcpcache's file @file (in pcp_dir). */
int pcp_write(const char *file, const char *val)
{
	return pcp_write_len(file, val, strlen(val));
}

int pcp_read_long(const char *file, long *val)
{
	char path[256], buf[64], *end;
	ssize_t n;

	pcp_path(path, sizeof(path), file);
	n = pcp_read_file(path, buf, sizeof(buf));
	if (n < 0)
		return n;
	errno = 0;
	*val = strtol(buf, &end, 10);
	if (errno || end == buf || strcmp(end, "\n"))
		return -EINVAL;
	return 0;
}

/*
 * Say why @path's line @line (0: the file as a whole) was refused, in
 * pcp_parse_error; -EINVAL.
 */
int pcp_parse_fail(const char *path, int line, const char *fmt, ...)
{
	int len = snprintf(pcp_parse_error, sizeof(pcp_parse_error),
			   line ? "%s line %d: " : "%s: ", path, line);
	va_list ap;

	if (len < 0 || (size_t)len >= sizeof(pcp_parse_error))
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(pcp_parse_error + len, sizeof(pcp_parse_error) - len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/*
 * The next line of @text, at *@pos, NUL-terminated in place; NULL at the
 * end. A last line without its newline is a file cut short: *@cut.
 */
char *pcp_next_line(char *text, size_t *pos, bool *cut)
{
	char *line = text + *pos, *nl;

	if (!*line)
		return NULL;
	nl = strchr(line, '\n');
	if (!nl) {
		*cut = true;
		*pos += strlen(line);
	} else {
		*nl = '\0';
		*pos = nl + 1 - text;
	}
	return line;
}

/* The stats file: pcp_read_named() of it. */
int pcp_read_stats(struct pcp_stats *st)
{
	return pcp_read_named("stats", st);
}

/*
 * A file of pcpcache's, every line "NAME VALUE" and nothing else (stats,
 * audit): 0, -errno, or -EINVAL with pcp_parse_error naming the line.
 */
int pcp_read_named(const char *file, struct pcp_stats *st)
{
	char path[256], text[8192], *line, *sp;
	bool cut = false;
	size_t pos = 0;
	ssize_t n;
	int i, nr = 0, err;

	pcp_path(path, sizeof(path), file);
	n = pcp_read_file(path, text, sizeof(text));
	if (n < 0)
		return n == -EFBIG ? pcp_parse_fail(path, 0, "longer than %zu bytes",
						 sizeof(text) - 1) : n;
	if (memchr(text, '\0', n))
		return pcp_parse_fail(path, 0, "holds a NUL byte");
	st->nr = 0;
	while ((line = pcp_next_line(text, &pos, &cut))) {
		nr++;
		if (cut)
			return pcp_parse_fail(path, nr, "cut short (no newline)");
		sp = strchr(line, ' ');
		if (!sp)
			return pcp_parse_fail(path, nr, "not NAME VALUE");
		*sp = '\0';
		if (!pcp_name_ok(line))
			return pcp_parse_fail(path, nr, "not a counter's name (a-z, 0-9, _; at most %d)",
					   PCP_NAME_MAX);
		for (i = 0; i < st->nr; i++)
			if (!strcmp(st->name[i], line))
				return pcp_parse_fail(path, nr, "%s again", line);
		if (st->nr == PCP_MAX_STATS)
			return pcp_parse_fail(path, nr, "more than %d lines", PCP_MAX_STATS);
		err = pcp_parse_count(sp + 1, pcp_stat_signed(line),
				      &st->value[st->nr]);
		if (err)
			return pcp_parse_fail(path, nr, "%s: '%.24s' is %s", line, sp + 1,
					   err == -ERANGE ? "too large for 64 bits" :
					   "not a decimal count");
		strcpy(st->name[st->nr++], line);
	}
	return st->nr ? 0 : pcp_parse_fail(path, 0, "empty");
}

/* Line @name of the stats file, in its own type; false when it has none. */
bool pcp_stat_find(const struct pcp_stats *st, const char *name,
		   unsigned long long *val)
{
	int i;

	for (i = 0; i < st->nr; i++)
		if (!strcmp(st->name[i], name)) {
			*val = st->value[i];
			return true;
		}
	return false;
}

/* A counter by name; -1 when the stats file has no such line. */
long long pcp_stat(const struct pcp_stats *st, const char *name)
{
	unsigned long long val;

	return pcp_stat_find(st, name, &val) ? (long long)val : -1;
}

/*
 * buddy_alloc - buddy_free == cached + transit + blocks + held, transit ==
 * remote_frees - remote_absorbed, and alloc == hit + miss.
 * On failure @why says which, with the numbers.
 */
bool pcp_books_balance(const struct pcp_stats *st, char *why, size_t size)
{
	long long ba = pcp_stat(st, "buddy_alloc"), bf = pcp_stat(st, "buddy_free");
	long long cached = pcp_stat(st, "cached"), held = pcp_stat(st, "held");
	long long alloc = pcp_stat(st, "alloc"), hit = pcp_stat(st, "alloc_hit");
	long long miss = pcp_stat(st, "alloc_miss");
	long long transit = pcp_stat(st, "transit");
	long long blocks = pcp_stat(st, "blocks");
	long long sent = pcp_stat(st, "remote_frees");
	long long absorbed = pcp_stat(st, "remote_absorbed");
	long long barn = pcp_stat(st, "barn");

	if (ba - bf != cached + transit + blocks + held) {
		snprintf(why, size,
			 "buddy_alloc %lld - buddy_free %lld = %lld != cached %lld + transit %lld + blocks %lld + held %lld = %lld",
			 ba, bf, ba - bf, cached, transit, blocks, held,
			 cached + transit + blocks + held);
		return false;
	}
	if (transit != sent - absorbed) {
		snprintf(why, size, "transit %lld != remote_frees %lld - remote_absorbed %lld",
			 transit, sent, absorbed);
		return false;
	}
	if (alloc != hit + miss) {
		snprintf(why, size, "alloc %lld != alloc_hit %lld + alloc_miss %lld",
			 alloc, hit, miss);
		return false;
	}
	/* the pages in the barns (barn mode) are a part of cached */
	if (barn > cached) {
		snprintf(why, size, "barn %lld > cached %lld", barn, cached);
		return false;
	}
	snprintf(why, size, "buddy_alloc %lld - buddy_free %lld = cached %lld + transit %lld + blocks %lld + held %lld",
		 ba, bf, cached, transit, blocks, held);
	return true;
}

/* The bound on high + cold_high from the limits file; 0 if unreadable. */
unsigned long pcp_max_high_sum(void)
{
	char buf[128], path[256];
	unsigned long max;

	pcp_path(path, sizeof(path), "limits");
	if (pcp_read_file(path, buf, sizeof(buf)) <= 0 ||
	    sscanf(buf, "max_batch=%*u max_high_sum=%lu", &max) != 1)
		return 0;
	return max;
}

/* The value of @key in /proc/meminfo (kB), or -1. */
long pcp_meminfo_kb(const char *key)
{
	char line[128], name[64];
	long val = -1, v;
	FILE *f = pcp_fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63[^:]: %ld", name, &v) == 2 &&
		    !strcmp(name, key))
			val = v;
	fclose(f);
	return val;
}

/* Where each column of the pagesets file goes, by the header's names. */
static long *pageset_field(struct pcp_pageset *s, const char *name)
{
	static const char * const names[] = {
		"count", "high", "batch", "cold_count", "cold_high",
		"cold_batch", "order0", "order1", "order2", "order3",
		"transit", "blocks", "spare", "barn",
	};
	long *fields[] = {
		&s->count, &s->high, &s->batch, &s->cold_count, &s->cold_high,
		&s->cold_batch, &s->order[0], &s->order[1], &s->order[2],
		&s->order[3], &s->transit, &s->blocks, &s->spare, &s->barn,
	};
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return fields[i];
	return NULL;
}

#define PAGESETS_MAX_COLS	16

/*
 * Parse the pagesets file, whose header names its columns ("cpu" first):
 * the number of CPUs read, or -errno (-EINVAL with pcp_parse_error naming
 * the line). Columns it does not have are -1.
 */
int pcp_read_pagesets(struct pcp_pageset *sets, int max)
{
	size_t size = (size_t)(PCP_MAX_CPUS + 1) * 256, pos = 0;
	char cols[PAGESETS_MAX_COLS][PCP_NAME_MAX + 1], path[256];
	char *text, *line, *tok, *save;
	int nr = 0, ncols = 0, i, j, err = 0, lineno = 1;
	bool cut = false;
	ssize_t n;

	pcp_path(path, sizeof(path), "pagesets");
	text = malloc(size);
	if (!text)
		return -ENOMEM;
	n = pcp_read_file(path, text, size);
	if (n < 0) {
		err = n == -EFBIG ? pcp_parse_fail(path, 0, "longer than %zu bytes", size - 1) : n;
		goto out;
	}
	if (memchr(text, '\0', n)) {
		err = pcp_parse_fail(path, 0, "holds a NUL byte");
		goto out;
	}
	line = pcp_next_line(text, &pos, &cut);
	if (!line || cut) {
		err = pcp_parse_fail(path, 0, "no header line");
		goto out;
	}
	for (tok = strtok_r(line, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		if (ncols == PAGESETS_MAX_COLS || !pcp_name_ok(tok)) {
			err = pcp_parse_fail(path, 1, "'%.24s' is not a column's name", tok);
			goto out;
		}
		for (j = 0; j < ncols; j++)
			if (!strcmp(cols[j], tok)) {
				err = pcp_parse_fail(path, 1, "column %s again", tok);
				goto out;
			}
		strcpy(cols[ncols++], tok);
	}
	if (!ncols || strcmp(cols[0], "cpu")) {
		err = pcp_parse_fail(path, 1, "the header does not begin with cpu");
		goto out;
	}
	while ((line = pcp_next_line(text, &pos, &cut))) {
		struct pcp_pageset *s = &sets[nr];
		unsigned long long v;
		long *field;

		lineno++;
		if (cut || nr == max) {
			err = pcp_parse_fail(path, lineno, cut ? "cut short (no newline)" :
					  "more than %d CPUs", max);
			goto out;
		}
		memset(s, 0xff, sizeof(*s));
		tok = strtok_r(line, " ", &save);
		for (i = 0; i < ncols; i++, tok = strtok_r(NULL, " ", &save)) {
			if (!tok || pcp_parse_count(tok, false, &v) || v > LONG_MAX ||
			    (!i && v >= PCP_MAX_CPUS)) {
				err = pcp_parse_fail(path, lineno, "%s: %s", cols[i],
						  tok ? "not a count" : "missing");
				goto out;
			}
			if (!i)
				s->cpu = v;
			else if ((field = pageset_field(s, cols[i])))
				*field = v;
		}
		if (tok) {
			err = pcp_parse_fail(path, lineno, "more values than columns");
			goto out;
		}
		for (j = 0; j < nr; j++)
			if (sets[j].cpu == s->cpu) {
				err = pcp_parse_fail(path, lineno, "cpu %d again", s->cpu);
				goto out;
			}
		nr++;
	}
out:
	free(text);
	return err ? err : nr;
}

/* (Re)load pcpcache with @params; modprobe's exit status. */
int pcp_reload(const char *params)
{
	if (pcp_exists(PCP_SYSFS) && pcp_run("rmmod pcpcache") != 0)
		return -1;
	return pcp_run("modprobe pcpcache %s", params ? params : "");
}

int pcp_nr_cpus(void)
{
	return sysconf(_SC_NPROCESSORS_ONLN);
}

/* The first CPU of NUMA node @node, or -1 (no such node, or no CPU). */
int pcp_node_cpu(int node)
{
	char path[96], buf[64];

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist",
		 node);
	if (pcp_read_file(path, buf, sizeof(buf)) <= 0 || buf[0] == '\n')
		return -1;
	return atoi(buf);
}

/* The NUMA node of @cpu (0 without NUMA), or -1 for no such CPU. */
int pcp_cpu_node(int cpu)
{
	char path[96];
	int node;

	for (node = 0; node < PCP_MAX_NODES; node++) {
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpu%d",
			 node, cpu);
		if (pcp_exists(path))
			return node;
	}
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d", cpu);
	return pcp_exists(path) ? 0 : -1;
}

/*
 * The NUMA nodes with CPUs (1 without NUMA): in barn mode, the barns in
 * use, where every node with CPUs has memory (a memoryless node's CPUs
 * use the nearest node's barn).
 */
int pcp_nr_cpu_nodes(void)
{
	int node, nr = 0;

	for (node = 0; node < PCP_MAX_NODES; node++)
		nr += pcp_node_cpu(node) >= 0;
	return nr ? nr : 1;
}

/* Pin the calling thread to @cpu; 0, or -errno. */
int pcp_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

/*
 * Move the calling thread off @cpu, onto every other online CPU: a test
 * that holds @cpu with a SCHED_FIFO loop must not be there itself. On
 * PREEMPT_RT a timer armed on the held CPU (a usleep() there) would never
 * fire: ktimers, the thread that runs it, is SCHED_FIFO at the loop's
 * priority, queued behind it. 0, or -errno.
 */
int pcp_leave_cpu(int cpu)
{
	cpu_set_t set;
	int i;

	CPU_ZERO(&set);
	for (i = 0; i < pcp_nr_cpus(); i++)
		if (i != cpu)
			CPU_SET(i, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

int pcp_open_user(void)
{
	int fd = pcp_open(PCPCACHE_USER_FILE, O_RDWR);

	return fd < 0 ? -errno : fd;
}

/* /dev/pcpcache, to map; the file descriptor, or -errno. */
int pcp_open_device(void)
{
	int fd = pcp_open(PCPCACHE_DEVICE, O_RDWR);

	return fd < 0 ? -errno : fd;
}

static int pages_ioctl(int fd, unsigned long cmd, unsigned int count,
		       unsigned int flags, struct pcpcache_pages *req)
{
	struct pcpcache_pages local;

	if (!req)
		req = &local;
	memset(req, 0, sizeof(*req));
	req->count = count;
	req->flags = flags;
	return ioctl(fd, cmd, req) ? -errno : 0;
}

/* Allocate @count pages on this CPU and hold them in @fd; 0 or -errno. */
int pcp_alloc(int fd, unsigned int count, unsigned int flags,
	      struct pcpcache_pages *req)
{
	return pages_ioctl(fd, PCPCACHE_IOC_ALLOC, count, flags, req);
}

/* Free @count of the pages @fd holds, on this CPU; 0 or -errno. */
int pcp_free(int fd, unsigned int count, unsigned int flags,
	     struct pcpcache_pages *req)
{
	return pages_ioctl(fd, PCPCACHE_IOC_FREE, count, flags, req);
}

/*
 * Allocate @nr on every online CPU and free them there, @cold of them cold.
 * The caller may run where it could before.
 */
int pcp_fill(int fd, unsigned int nr, unsigned int cold)
{
	int cpu, err = 0;
	cpu_set_t was;

	if (sched_getaffinity(0, sizeof(was), &was))
		return -errno;
	for (cpu = 0; cpu < pcp_nr_cpus() && !err; cpu++) {
		err = pcp_pin(cpu);
		if (!err)
			err = pcp_alloc(fd, nr, 0, NULL);
		if (!err && nr > cold)
			err = pcp_free(fd, nr - cold, 0, NULL);
		if (!err && cold)
			err = pcp_free(fd, cold, PCPCACHE_COLD, NULL);
	}
	if (sched_setaffinity(0, sizeof(was), &was) && !err)
		err = -errno;
	return err;
}

/*
 * Read the counters into @st until the books balance, up to @tries reads
 * 100 ms apart: a drain, a trim or a shrink nobody waited for has pages
 * on their way back to the buddy allocator, off the books until they
 * arrive, and a lost or doubled page never arrives. false with @why from
 * the last read when they never balanced.
 */
bool pcp_read_books_balanced(struct pcp_stats *st, char *why, size_t size,
			     int tries)
{
	int i, err;

	for (i = 0; i < tries; i++) {
		if (i)
			usleep(100000);
		err = pcp_read_stats(st);
		if (err)
			snprintf(why, size, "stats: %s", strerror(-err));
		else if (pcp_books_balance(st, why, size))
			return true;
	}
	return false;
}

/* Wait up to 30 s for the books to balance; ASSERT_BOOKS_BALANCE() checks. */
void pcp_wait_books_balance(char *why, size_t size)
{
	struct pcp_stats st;

	pcp_read_books_balanced(&st, why, size, 300);
}

/*
 * One read of the audit file (the module's pages counted on the lists
 * they are on, every CPU stopped): true when every walk agrees with the
 * module's count of it and buddy_alloc - buddy_free == the pages walked
 * + held: 1; 0 when not, -1 when the file cannot be read. @why says
 * what differs, or what balanced. A page in flight between two places
 * makes one read differ: pcp_page_audit() reads again.
 *
 * The deferred lists (_nolock() frees and cuts the irq_work has yet to
 * give back) are judged too: each CPU's walk must equal its count
 * (deferred_wrong 0: a page put on another CPU's list than the one that
 * counted it, or one the irq_work left behind, shows there even where the
 * sums agree), and so must the sums. A deferred free's page is still held
 * (or was never the module's: a foreign page freed through the API), and
 * a deferred cut is in flight, in no count until given back: neither is
 * among the pages walked, and a cut waiting makes the read differ.
 */
static int pcp_page_audit_once(char *why, size_t size)
{
	static const char * const pairs[][2] = {
		{ "walked_cached", "cached" },
		{ "walked_transit", "transit" },
		{ "walked_blocks", "blocks" },
		{ "walked_deferred", "deferred" },
	};
	long long ba, bf, held, walked = 0, v, deferred, cut;
	struct pcp_stats st;
	unsigned int i;
	int err;

	err = pcp_read_named("audit", &st);
	if (err == -EAGAIN) {
		snprintf(why, size, "audit: a magazine's lock was held");
		return 0;
	}
	if (err) {
		snprintf(why, size, "audit: %s", err == -EINVAL ?
			 pcp_parse_error : strerror(-err));
		return -1;
	}
	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		unsigned long long u;

		/* not a -1 to compare: a module older than these tests */
		if (!pcp_stat_find(&st, pairs[i][0], &u) ||
		    !pcp_stat_find(&st, pairs[i][1], &u)) {
			snprintf(why, size, "audit: no line %s or %s (a module built before these selftests?)",
				 pairs[i][0], pairs[i][1]);
			return -1;
		}
		v = pcp_stat(&st, pairs[i][0]);
		if (v < 0 || v != pcp_stat(&st, pairs[i][1])) {
			snprintf(why, size, "audit: %s %lld != %s %lld", pairs[i][0],
				 v, pairs[i][1], pcp_stat(&st, pairs[i][1]));
			return 0;
		}
		/* a deferred free's page is held, not the module's */
		if (strcmp(pairs[i][0], "walked_deferred"))
			walked += v;
	}
	deferred = pcp_stat(&st, "walked_deferred");
	cut = pcp_stat(&st, "walked_deferred_cut");
	if (pcp_stat(&st, "deferred_wrong") || cut < 0 || cut > deferred) {
		snprintf(why, size, "audit: deferred_wrong %lld (want 0), walked_deferred_cut %lld of walked_deferred %lld",
			 pcp_stat(&st, "deferred_wrong"), cut, deferred);
		return 0;
	}
	if (pcp_stat(&st, "lists_wrong") || pcp_stat(&st, "blocks_wrong")) {
		snprintf(why, size, "audit: lists_wrong %lld blocks_wrong %lld (want 0 and 0)",
			 pcp_stat(&st, "lists_wrong"), pcp_stat(&st, "blocks_wrong"));
		return 0;
	}
	ba = pcp_stat(&st, "buddy_alloc");
	bf = pcp_stat(&st, "buddy_free");
	held = pcp_stat(&st, "held");
	if (ba < 0 || bf < 0 || ba - bf != walked + held) {
		snprintf(why, size, "audit: buddy_alloc %lld - buddy_free %lld = %lld != walked %lld + held %lld = %lld (deferred cuts in flight %lld)",
			 ba, bf, ba - bf, walked, held, walked + held, cut);
		return 0;
	}
	snprintf(why, size, "audit: buddy_alloc %lld - buddy_free %lld = walked %lld (cached %lld transit %lld blocks %lld) + held %lld (deferred %lld as counted)",
		 ba, bf, walked, pcp_stat(&st, "walked_cached"),
		 pcp_stat(&st, "walked_transit"), pcp_stat(&st, "walked_blocks"),
		 held, deferred);
	return 1;
}

/*
 * The page audit, read until it balances, up to 10 reads 100 ms apart:
 * what is in flight when a test's operation returns (a shrinker scan,
 * work still giving back a cut, a deferred free) settles, and a lost or
 * doubled page never does. Each read stops every CPU, which under
 * emulation takes most of a second: few enough that a failure is
 * reported within a test's timeout, and the first one is said at once.
 * false with @why from the last read when it never balanced; the module
 * must be loaded.
 */
bool pcp_page_audit(char *why, size_t size)
{
	int i, ret;

	for (i = 0; i < 10; i++) {
		ret = pcp_page_audit_once(why, size);
		if (ret)
			return ret > 0;
		if (!i)
			fprintf(stderr, "# %s (reading again)\n", why);
		usleep(100000);
	}
	return false;
}

/*
 * Fold every CPU's vmstat differences into the global counters, as
 * /proc/sys/vm/stat_refresh does for root: unfolded, each CPU may keep up
 * to its stat_threshold of every counter unreported, hundreds of pages on
 * eight CPUs. Nothing when it cannot be written (the read is then as
 * /proc/vmstat gives it).
 */
static void vmstat_fold(void)
{
	int fd = open("/proc/sys/vm/stat_refresh", O_WRONLY);

	if (fd < 0)
		return;
	if (write(fd, "1", 1) < 0)
		perror("stat_refresh");
	close(fd);
}

/*
 * The buddy allocator's free pages (nr_free_pages) plus those in the
 * kernel's own per-CPU lists, where a page pcpcache gives back may sit;
 * -1 when unreadable. The rest of the system moves it a little: compare
 * within PCP_FREE_PAGES_TOLERANCE.
 */
long long pcp_buddy_free_pages(void)
{
	long long total = -1, count;
	char line[256];
	FILE *f;

	vmstat_fold();
	f = fopen("/proc/vmstat", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "nr_free_pages %lld", &count) == 1)
			total = count;
	fclose(f);
	f = fopen("/proc/zoneinfo", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " count: %lld", &count) == 1)
			total += count;
	fclose(f);
	return total;
}

/*
 * The pages the kernel's other users hold, by /proc/meminfo: slab, kernel
 * stacks, page tables, per-CPU areas, anonymous and file pages. A stress
 * with CPU hotplug grows the slab caches by hundreds of pages (kthreads,
 * per-CPU structures) that are neither free nor pcpcache's; a page
 * pcpcache loses is in none of these. -1 when unreadable.
 */
long long pcp_kernel_pages_in_use(void)
{
	static const char * const keys[] = { "Slab", "KernelStack", "PageTables",
		"Percpu", "AnonPages", "Cached", "Buffers" };
	long long kb = 0;
	unsigned int i;
	long v;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		v = pcp_meminfo_kb(keys[i]);
		if (v < 0)
			return -1;
		kb += v;
	}
	return kb * 1024 / sysconf(_SC_PAGESIZE);
}

/* Whether @mode is the one in force (the mode file's bracketed name). */
bool pcp_mode_is(const char *mode)
{
	char path[256], buf[128], want[40];

	pcp_path(path, sizeof(path), "mode");
	snprintf(want, sizeof(want), "[%s]", mode);
	return pcp_read_file(path, buf, sizeof(buf)) > 0 && strstr(buf, want);
}

/* Whether the loaded module's locking design (its lock parameter) is @lock. */
bool pcp_lock_is(const char *lock)
{
	char buf[32] = "";

	return pcp_read_file(PCP_SYSFS "/parameters/lock", buf, sizeof(buf)) > 0 &&
	       !strncmp(buf, lock, strlen(lock)) &&
	       (buf[strlen(lock)] == '\n' || !buf[strlen(lock)]);
}

/*
 * The base pages a CPU's line of pagesets says it caches: its order
 * columns, the blocks of each order on every list it has (split mode's
 * cold list, barn mode's spare), else count and cold_count (or spare).
 * Its node's barn is no CPU's: not counted.
 */
long pcp_pageset_pages(const struct pcp_pageset *set)
{
	long pages = 0;
	int order;

	if (set->order[0] < 0)
		return set->count + (set->cold_count > 0 ? set->cold_count : 0) +
		       (set->spare > 0 ? set->spare : 0);
	for (order = 0; order < PCP_NR_ORDERS; order++)
		pages += set->order[order] << order;
	return pages;
}

/*
 * barn mode: the most pcp_fill_to_limit() makes each node's barn keep, a
 * full magazine of each order for each. Each CPU's main and spare hold a
 * batch of every order, the batch as large as the bound then allows.
 */
#define PCP_FILL_BARN_FULL	2

/*
 * barn mode's fill: the largest batch the bound allows with
 * PCP_FILL_BARN_FULL full magazines a barn, then on every CPU every order
 * allocated and freed, main, spare and a barn's share full of each.
 */
static long pcp_fill_barn(int fd)
{
	unsigned long limit = pcp_max_high_sum();
	unsigned long batch = limit / PCP_BARN_PAGES(1, PCP_FILL_BARN_FULL);
	unsigned int order, nr;
	struct pcp_stats st;
	char val[96];
	cpu_set_t was;
	int cpu, err = 0;

	if (batch > 4096)
		batch = 4096;
	if (batch < 64)
		return -1;
	/* high is not used in barn mode: it need only let batch be */
	snprintf(val, sizeof(val), "batch=%lu high=%lu barn_full=%d", batch,
		 batch, PCP_FILL_BARN_FULL);
	if (pcp_write("config", val) ||
	    pcp_write_file(PCP_SYSFS "/parameters/user_max_pages", "1000000") ||
	    pcp_write_file(PCP_SYSFS "/parameters/user_max_total", "1000000") ||
	    sched_getaffinity(0, sizeof(was), &was))
		return -1;
	for (cpu = 0; cpu < pcp_nr_cpus() && !err; cpu++) {
		err = pcp_pin(cpu);
		for (order = 0; order < PCP_NR_ORDERS && !err; order++) {
			/* main, spare, and what overflows them to the barn */
			nr = (2 + PCP_FILL_BARN_FULL) * (batch >> order);
			err = pcp_alloc(fd, nr, PCPCACHE_ORDER(order), NULL) ?:
			      pcp_free(fd, nr, PCPCACHE_ORDER(order), NULL);
		}
	}
	if (sched_setaffinity(0, sizeof(was), &was) || err || pcp_read_stats(&st))
		return -1;
	return pcp_stat(&st, "cached");
}

/*
 * Fill every magazine to the most the rules allow (a quarter of RAM over
 * the online CPUs, high and cold_high together); with @split, half of it
 * on split mode's cold lists. In barn mode, pcp_fill_barn()'s. The pages
 * cached afterwards.
 */
long pcp_fill_to_limit(int fd, bool split)
{
	long limit = pcp_meminfo_kb("MemTotal") / 4 / 4 / pcp_nr_cpus() - 126;
	long cold = split ? limit / 2 : 0;
	struct pcp_stats st;
	char val[32], cold_val[32];

	if (pcp_mode_is("barn"))
		return pcp_fill_barn(fd);
	if (limit < 1000)
		return -1;
	snprintf(val, sizeof(val), "%ld", limit - cold);
	/* the default cold_high (126) is in the bound already */
	snprintf(cold_val, sizeof(cold_val), "%ld", cold + 126);
	if (pcp_write("high", val) ||
	    (split && pcp_write("cold_high", cold_val)) ||
	    pcp_write_file(PCP_SYSFS "/parameters/user_max_pages", "1000000") ||
	    pcp_write_file(PCP_SYSFS "/parameters/user_max_total", "1000000") ||
	    pcp_fill(fd, limit, cold) || pcp_read_stats(&st))
		return -1;
	return pcp_stat(&st, "cached");
}

/*
 * A child in a SCHED_FIFO busy loop on @cpu, as a real-time task holds a
 * CPU: its pid once it runs so, or -1. Kill it with SIGKILL; it dies with
 * its parent too (a test that failed an assertion). The caller leaves
 * @cpu first.
 */
pid_t pcp_start_hog(int cpu)
{
	struct sched_param sp = { .sched_priority = 50 };
	pid_t pid, parent;
	int pipefd[2];
	char c;

	if (pcp_leave_cpu(cpu) || pipe(pipefd))
		return -1;
	parent = getpid();
	pid = fork();
	if (!pid) {
		close(pipefd[0]);
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent ||
		    pcp_pin(cpu) || sched_setscheduler(0, SCHED_FIFO, &sp))
			_exit(1);
		if (write(pipefd[1], "x", 1) != 1)
			_exit(1);
		for (;;)
			;
	}
	close(pipefd[1]);
	if (pid > 0 && read(pipefd[0], &c, 1) != 1) {
		waitpid(pid, NULL, 0);
		pid = -1;
	}
	close(pipefd[0]);
	return pid;
}

#define PCP_RT_RUNTIME	"/proc/sys/kernel/sched_rt_runtime_us"

/*
 * Hold @cpu as a real-time task that nothing throttles would: RT
 * throttling off (sched_rt_runtime_us -1) and a pcp_start_hog() there.
 * 0, or -1 with nothing changed. pcp_release_cpu() puts both back: a
 * fixture's teardown too, which runs after a failed assertion.
 */
int pcp_hold_cpu(int cpu, struct pcp_cpu_hold *h)
{
	h->hog = -1;
	if (pcp_read_file(PCP_RT_RUNTIME, h->runtime, sizeof(h->runtime)) <= 0)
		return -1;
	if (pcp_write_file(PCP_RT_RUNTIME, "-1"))
		return -1;
	h->hog = pcp_start_hog(cpu);
	if (h->hog < 0) {
		pcp_write_file(PCP_RT_RUNTIME, h->runtime);
		return -1;
	}
	return 0;
}

/* Kill the hog of pcp_hold_cpu() and put RT throttling back; once. */
void pcp_release_cpu(struct pcp_cpu_hold *h)
{
	if (h->hog <= 0)
		return;
	kill(h->hog, SIGKILL);
	waitpid(h->hog, NULL, 0);
	h->hog = -1;
	pcp_write_file(PCP_RT_RUNTIME, h->runtime);
}

/*
 * What a process could be given of the free memory, in kB: in each zone,
 * what is above its min watermark and the protection that keeps a
 * lower zone from allocations that could use a higher one
 * (lowmem_reserve, the largest of the zone's "protection").
 */
long pcp_free_to_process_kb(void)
{
	long free = 0, min = 0, prot = 0, total = 0, v;
	char line[512], *p;
	bool zone = false;
	FILE *f;

	f = pcp_fopen("/proc/zoneinfo", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		p = strstr(line, "protection: (");
		if (!strncmp(line, "Node ", 5)) {
			if (zone && free > min + prot)
				total += free - min - prot;
			zone = true;
			free = 0;
			min = 0;
			prot = 0;
		} else if (sscanf(line, " pages free %ld", &v) == 1) {
			free = v;
		} else if (sscanf(line, " min %ld", &v) == 1) {
			min = v;
		} else if (p) {
			for (p += strlen("protection: ("); *p && *p != ')'; p++) {
				v = strtol(p, &p, 10);
				if (v > prot)
					prot = v;
				if (*p == ')')
					break;
			}
		}
	}
	if (zone && free > min + prot)
		total += free - min - prot;
	fclose(f);
	return total * (sysconf(_SC_PAGESIZE) / 1024);
}

/*
 * In a child on CPU 0, map and touch @kb of memory; its wait status, and
 * how long it took in @ms.
 */
int pcp_use_memory(long kb, long *ms)
{
	struct timespec t0, t1;
	pid_t child;
	int status = -1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	child = fork();
	if (child < 0)
		return -1;
	if (!child) {
		size_t len = kb * 1024, off;
		char *p;

		pcp_pin(0);
		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			_exit(2);
		for (off = 0; off < len; off += 4096)
			p[off] = 1;
		_exit(0);
	}
	waitpid(child, &status, 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	*ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
	return status;
}

/*
 * Call @fn with the sequence number and text of every record in the
 * kernel log (/dev/kmsg: "PRI,SEQ,TS,FLAGS;TEXT", one record a read)
 * until it returns false; -1 when the log cannot be read.
 */
static int for_each_log_record(bool (*fn)(long long seq, const char *text, void *arg),
			       void *arg)
{
	char rec[2048], *text, *nl;
	long long seq;
	ssize_t n;
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);

	if (fd < 0)
		return -1;
	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		/* EPIPE: records were overwritten before we read them */
		if (n < 0 && errno == EPIPE)
			continue;
		if (n <= 0)
			break;
		rec[n] = '\0';
		text = strchr(rec, ';');
		if (!text || sscanf(rec, "%*u,%lld,", &seq) != 1)
			continue;
		nl = strchr(++text, '\n');
		if (nl)
			*nl = '\0';
		if (!fn(seq, text, arg))
			break;
	}
	close(fd);
	return 0;
}

static bool log_last_seq(long long seq, const char *text, void *arg)
{
	(void)text;
	*(long long *)arg = seq;
	return true;
}

/*
 * A mark in the kernel log: pcp_log_grep() reads only what was logged
 * after it. The log is not cleared (dmesg -c), so that the guest's init
 * can still read all of it at the end. -1 when the log cannot be read.
 */
long long pcp_log_mark(void)
{
	long long last = -1;

	if (for_each_log_record(log_last_seq, &last))
		return -1;
	return last + 1;
}

struct log_grep {
	long long mark;
	regex_t re;
	int found;
};

static bool log_match(long long seq, const char *text, void *arg)
{
	struct log_grep *g = arg;

	if (seq >= g->mark && !regexec(&g->re, text, 0, NULL, 0)) {
		/* a test ends with _exit(): nothing buffered would show */
		printf("# kernel: %s\n", text);
		fflush(stdout);
		g->found = 1;
	}
	return true;
}

/*
 * Whether a message logged since @mark (pcp_log_mark()) matches the
 * extended regular expression made from @fmt, as "grep -E" would: 0 when
 * one does (each one is printed as a "# kernel:" line), 1 when none, -1
 * when the log cannot be read or the expression is wrong.
 */
int pcp_log_grep(long long mark, const char *fmt, ...)
{
	struct log_grep g = { .mark = mark };
	char ere[512];
	va_list ap;
	int err;

	if (mark < 0)
		return -1;
	va_start(ap, fmt);
	vsnprintf(ere, sizeof(ere), fmt, ap);
	va_end(ap);
	if (regcomp(&g.re, ere, REG_EXTENDED | REG_NOSUB))
		return -1;
	err = for_each_log_record(log_match, &g);
	regfree(&g.re);
	if (err)
		return -1;
	return g.found ? 0 : 1;
}

/*
 * Whether this is a guest that tools/vm/run --icount booted (QEMU's
 * instruction counter, which it says on the kernel's command line; the
 * CPU model alone cannot tell): the clock counts instructions, one a
 * nanosecond, and a figure of time repeats.
 */
bool pcp_under_icount(void)
{
	char cmdline[4096];

	return pcp_read_file("/proc/cmdline", cmdline, sizeof(cmdline)) > 0 &&
	       strstr(cmdline, "pcpcache_icount=1");
}
