// SPDX-License-Identifier: GPL-2.0
/*
 * pcpctl record: a page allocation stream from the kernel's own kmem
 * tracepoints, through a tracefs instance of its own (nothing of the
 * global trace buffer is touched), or from the text of `perf script` or
 * of a trace file recorded elsewhere. The module is not needed.
 *
 * The events go through trace.c's writer, which keeps the stream
 * consistent and counts what it drops; the kernel's lost events (ring
 * buffer overruns) are read from the instance's per-CPU stats.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pcpctl.h"
#include "trace.h"

static const char *record_help =
	"usage: pcpctl record --output TRACE [--seconds N] [--no-kernel-lists]\n"
	"                     [--empty-lists] [--buffer-kb N] [--max-events N]\n"
	"                     [-- COMMAND [ARGS...]]\n"
	"       pcpctl record --output TRACE --input FILE [--zoneinfo FILE]\n\n"
	"Record every page allocation and free of the machine (kmem:mm_page_alloc\n"
	"and mm_page_free) and what the kernel's own per-CPU lists did\n"
	"(mm_page_alloc_zone_locked, mm_page_pcpu_drain) into TRACE, through a\n"
	"tracefs instance of its own, for N seconds (default 10) or while\n"
	"COMMAND runs. Needs root and tracefs, not pcpcache. The zones and their\n"
	"per-CPU batch, high and counts come from /proc/zoneinfo, the counts as\n"
	"the recording begins.\n\n"
	"With --input, convert the text of 'perf script' (after perf record -e\n"
	"'kmem:mm_page_*' -a) or of tracefs's trace file, or a pcpctl dump\n"
	"('-': standard input); --zoneinfo names the recorded machine's\n"
	"/proc/zoneinfo.\n\n"
	"A free of a page allocated before the recording began is kept as a\n"
	"kfree, which only the kernel model takes (with --no-kernel-lists it is\n"
	"dropped). Events that break the stream otherwise, and\n"
	"events of orders no per-CPU list holds (4 to 8, above 9), are dropped\n"
	"and counted; events the kernel lost are counted. All three are printed\n"
	"and kept in the trace. Order 9 (THP) is kept for the kernel model.\n\n"
	"  --output TRACE      the file to write (replaced whole, or not at all)\n"
	"  --seconds N         how long, 1 to 86400, without COMMAND\n"
	"  --no-kernel-lists   only allocations and frees\n"
	"  --empty-lists       first empty the kernel's per-CPU lists, so that the\n"
	"                      kernel model starts where the kernel does: a memory\n"
	"                      block of each zone that holds pages is taken offline\n"
	"                      and back online (memory hotplug), which drains them\n"
	"  --buffer-kb N       the instance's buffer per CPU (default 16384)\n"
	"  --max-events N      keep at most N events, 16 bytes each, counting the\n"
	"                      rest as lost (default 16777216: 256 MiB)\n";

static const char *const list_events[] = {
	"mm_page_alloc", "mm_page_free", "mm_page_free_batched",
	"mm_page_alloc_zone_locked", "mm_page_pcpu_drain",
};

#define NR_STREAM_EVENTS	3	/* the first three: the stream itself */

/*
 * /proc/zoneinfo's zones, their batch and high (CPU 0's) and each CPU's
 * count. A zone's pagesets come before its start_pfn: it is added at its
 * first pageset and completed at its start_pfn. Zones with no pages have
 * no pagesets worth modelling and are left out. With @counts_only, the
 * zones are those of an earlier read of the same machine, and only the
 * counts are read again.
 */
static int read_zoneinfo(const char *path, struct pcp_trace_writer *w,
			 bool counts_only)
{
	struct pcp_trace_zone z = { 0 };
	unsigned long long spanned = 0, v;
	int node = -1, cpu = -1, zone = -1, seen = 0;
	char *line = NULL, name[32];
	size_t cap = 0;
	FILE *f = fopen(path, "r");

	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", who, path, strerror(errno));
		return -1;
	}
	while (getline(&line, &cap, f) > 0) {
		if (sscanf(line, "Node %d, zone %31s", &node, name) == 2) {
			zone = -1;
			cpu = -1;
			spanned = 0;
			memset(&z, 0, sizeof(z));
			snprintf(z.name, sizeof(z.name), "%d:%.10s", node, name);
		} else if (sscanf(line, " spanned %llu", &v) == 1) {
			spanned = v;
		} else if (sscanf(line, " cpu: %d", &cpu) == 1) {
			if (zone < 0 && spanned)
				zone = counts_only ? seen++ : pcp_tw_zone(w, &z);
		} else if (zone >= 0 && cpu >= 0 && sscanf(line, " count: %llu", &v) == 1) {
			pcp_tw_count(w, cpu, zone, v);
		} else if (counts_only) {
			/* the rest was read the first time */
		} else if (zone >= 0 && cpu == 0 && sscanf(line, " high: %llu", &v) == 1) {
			z.high = v;
		} else if (zone >= 0 && cpu == 0 && sscanf(line, " batch: %llu", &v) == 1) {
			z.batch = v;
		} else if (zone >= 0 && sscanf(line, " start_pfn: %llu", &v) == 1) {
			z.start_pfn = v;
			z.end_pfn = v + spanned;
			pcp_tw_set_zone(w, zone, &z);
			zone = -1;
		}
	}
	free(line);
	fclose(f);
	return 0;
}

/* tracefs, where it is mounted. */
static const char *tracefs(void)
{
	static const char *const where[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	char path[128];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(where); i++) {
		snprintf(path, sizeof(path), "%s/instances", where[i]);
		if (!access(path, W_OK))
			return where[i];
	}
	return NULL;
}

static int write_str(const char *dir, const char *file, const char *val)
{
	char path[512];
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		err = -errno;
	close(fd);
	return err;
}

/*
 * Empty the kernel's per-CPU lists of each zone that holds pages on one
 * (its name "NODE:ZONE" in @w's zones, its counts just read): taking a
 * memory block of the zone offline disables the zone's lists on every
 * CPU and drains them (zone_pcp_disable()), and it is put back online at
 * once. The first block from the top that goes offline is the one; a
 * zone none of whose blocks can (unmovable pages in each, no memory
 * hotplug) keeps its lists, and is named. 0 when every zone's lists were
 * emptied, else -1.
 */
static int empty_kernel_lists(const struct pcp_trace_writer *w)
{
	static const char *const mem = "/sys/devices/system/memory";
	const struct pcp_trace_header *h = pcp_tw_header(w);
	const struct pcp_trace_zone *z;
	char path[256], zones[64];
	const char *zname;
	unsigned int zone, cpu;
	int nid, block, last = -1;
	struct dirent *d;
	ssize_t n;
	int err = 0;
	DIR *dir;

	dir = opendir(mem);
	if (dir) {
		while ((d = readdir(dir)))
			if (sscanf(d->d_name, "memory%d", &block) == 1 && block > last)
				last = block;
		closedir(dir);
	}
	for (zone = 0; zone < h->nr_zones; zone++) {
		bool held = false, emptied = false;

		for (cpu = 0; cpu < h->nr_cpus; cpu++)
			held |= pcp_tw_count_of(w, cpu, zone) > 0;
		z = pcp_tw_zone_of(w, zone);
		zname = strchr(z->name, ':');
		if (!held || !zname || sscanf(z->name, "%d:", &nid) != 1)
			continue;
		zname++;
		for (block = last; block >= 0 && !emptied; block--) {
			snprintf(path, sizeof(path), "%s/memory%d/node%d", mem, block, nid);
			if (access(path, F_OK))
				continue;
			snprintf(path, sizeof(path), "%s/memory%d/valid_zones", mem, block);
			n = pcp_read_file(path, zones, sizeof(zones));
			if (n <= 0)
				continue;
			zones[strcspn(zones, "\n")] = '\0';
			snprintf(path, sizeof(path), "%s/memory%d", mem, block);
			if (strcmp(zones, zname) || write_str(path, "state", "offline"))
				continue;
			if (write_str(path, "state", "online"))
				fprintf(stderr, "%s: %s did not come back online\n", who, path);
			emptied = true;
		}
		if (!emptied) {
			fprintf(stderr, "%s: zone %s: no memory block of it went offline; its per-CPU lists keep their pages\n",
				who, z->name);
			err = -1;
		}
	}
	return err;
}

/*
 * The values of the ring buffer statistics of @inst named @keys ("overrun",
 * "entries"), summed over its CPUs.
 */
static uint64_t instance_stats(const char *inst, const char *const *keys,
			       unsigned int nr_keys)
{
	char path[600], *line = NULL;
	unsigned long long v, sum = 0;
	size_t cap = 0, len;
	unsigned int k;
	int cpu;
	FILE *f;

	for (cpu = 0; cpu < PCP_TRACE_MAX_CPUS; cpu++) {
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/stats", inst, cpu);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (getline(&line, &cap, f) > 0)
			for (k = 0; k < nr_keys; k++) {
				len = strlen(keys[k]);
				if (!strncmp(line, keys[k], len) && line[len] == ':' &&
				    sscanf(line + len + 1, "%llu", &v) == 1)
					sum += v;
			}
		fclose(f);
	}
	free(line);
	return sum;
}

/* The instance's overruns, summed over its CPUs. */
static uint64_t overruns(const char *inst)
{
	static const char *const keys[] = { "overrun" };

	return instance_stats(inst, keys, ARRAY_SIZE(keys));
}

/* The events of @inst, kept and lost (overrun), summed over its CPUs. */
static uint64_t instance_events(const char *inst)
{
	static const char *const keys[] = { "entries", "overrun" };

	return instance_stats(inst, keys, ARRAY_SIZE(keys));
}

/*
 * The kernel's own per-CPU lists' traffic with the zones, counted by
 * tracefs: a page refilled into them is an mm_page_alloc_zone_locked
 * event with percpu_refill set, one drained an mm_page_pcpu_drain event
 * (order 0: an event a page). Each in a tracefs instance of its own,
 * counted from the ring buffer's statistics, so nothing is read.
 */
static const char *const klists_events[KLISTS_NR][2] = {
	{ "mm_page_alloc_zone_locked", "percpu_refill == 1" },
	{ "mm_page_pcpu_drain", NULL },
};

static void klists_remove(struct klists *k, int upto)
{
	char path[300];
	int i;

	for (i = 0; i < upto; i++) {
		write_str(k->inst[i], "tracing_on", "0");
		snprintf(path, sizeof(path), "events/kmem/%s/enable", klists_events[i][0]);
		write_str(k->inst[i], path, "0");
		if (rmdir(k->inst[i]))
			fprintf(stderr, "%s: %s: %s (remove it by hand)\n", who,
				k->inst[i], strerror(errno));
	}
}

/**
 * klists_start - start counting the kernel's lists' refills and drains
 * @k: where the instances are kept, for klists_stop()
 *
 * Return: 0, or -1 said (no tracefs, not root).
 */
int klists_start(struct klists *k)
{
	const char *root = tracefs();
	char path[300];
	int i;

	if (!root) {
		fprintf(stderr, "%s: no writable tracefs: the kernel's lists are not counted\n", who);
		return -1;
	}
	for (i = 0; i < KLISTS_NR; i++) {
		snprintf(k->inst[i], sizeof(k->inst[i]), "%s/instances/pcpctl-%d-%d",
			 root, (int)getpid(), i);
		if (mkdir(k->inst[i], 0700))
			goto fail;
		snprintf(path, sizeof(path), "events/kmem/%s/filter", klists_events[i][0]);
		if ((klists_events[i][1] &&
		     write_str(k->inst[i], path, klists_events[i][1])) ||
		    (snprintf(path, sizeof(path), "events/kmem/%s/enable",
			      klists_events[i][0]),
		     write_str(k->inst[i], path, "1"))) {
			i++;
			goto fail;
		}
	}
	return 0;
fail:
	fprintf(stderr, "%s: %s: %s\n", who, k->inst[i > 0 ? i - 1 : 0], strerror(errno));
	klists_remove(k, i);
	return -1;
}

/* Stop counting: the pages refilled and drained since klists_start(). */
void klists_stop(struct klists *k, uint64_t *refilled, uint64_t *drained)
{
	*refilled = instance_events(k->inst[0]);
	*drained = instance_events(k->inst[1]);
	klists_remove(k, KLISTS_NR);
}

static volatile sig_atomic_t record_stop;

static void on_record_signal(int sig)
{
	record_stop = sig;
}

/* Lines of @buf into @w; what is left of a line cut short stays in @buf. */
static int feed(struct pcp_trace_writer *w, char *buf, size_t *len)
{
	char *start = buf, *nl;
	size_t rest;

	while ((nl = memchr(start, '\n', buf + *len - start))) {
		*nl = '\0';
		if (pcp_parse_kernel_line(w, start) == PCP_LINE_BAD) {
			fprintf(stderr, "%s: the kernel's trace: %s: %.80s\n", who,
				pcp_trace_error, start);
			return -1;
		}
		start = nl + 1;
	}
	rest = buf + *len - start;
	memmove(buf, start, rest);
	*len = rest;
	return 0;
}

static int record_live(struct pcp_trace_writer *w, unsigned int seconds,
		       unsigned int buffer_kb, bool kernel_lists, bool empty_lists,
		       char **cmd)
{
	struct sigaction sa = { .sa_handler = on_record_signal };
	char inst[256], path[512], val[32];
	static char buf[1 << 16];
	const char *root = tracefs();
	unsigned int i, nr_events = kernel_lists ? ARRAY_SIZE(list_events) :
				    NR_STREAM_EVENTS;
	struct timespec t0, now;
	struct pollfd pfd;
	size_t len = 0;
	pid_t child = -1;
	int fd = -1, status = 0, err = -1, ret;
	ssize_t n;
	uint64_t over;

	if (!root) {
		fprintf(stderr, "%s: no writable tracefs (mount -t tracefs nodev /sys/kernel/tracing; run as root)\n",
			who);
		return -1;
	}
	/* from before the instance exists: it must never outlive a signal */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	snprintf(inst, sizeof(inst), "%s/instances/pcpctl-%d", root, (int)getpid());
	if (mkdir(inst, 0700)) {
		fprintf(stderr, "%s: %s: %s\n", who, inst, strerror(errno));
		return -1;
	}
	/* every event on before the first is recorded: no free before its allocation */
	write_str(inst, "tracing_on", "0");
	snprintf(val, sizeof(val), "%u", buffer_kb);
	if (record_stop)
		goto out;
	if (write_str(inst, "buffer_size_kb", val))
		fprintf(stderr, "%s: %s/buffer_size_kb: kept the default\n", who, inst);
	for (i = 0; i < nr_events; i++) {
		snprintf(path, sizeof(path), "events/kmem/%s/enable", list_events[i]);
		ret = write_str(inst, path, "1");
		if (ret) {
			fprintf(stderr, "%s: kmem:%s: %s\n", who, list_events[i], strerror(-ret));
			goto out;
		}
	}
	snprintf(path, sizeof(path), "%s/trace_pipe", inst);
	fd = open(path, O_RDONLY | O_NONBLOCK);
	if (fd < 0) {
		fprintf(stderr, "%s: %s: %s\n", who, path, strerror(errno));
		goto out;
	}
	if (record_stop)
		goto out;
	/* which zones hold pages now, the buffer allocated */
	if (empty_lists && !read_zoneinfo("/proc/zoneinfo", w, true) &&
	    !empty_kernel_lists(w))
		pcp_tw_set_flags(w, PCP_TRACE_LISTS_EMPTIED);
	/* the lists as the recording finds them, the buffer allocated */
	if (read_zoneinfo("/proc/zoneinfo", w, true))
		goto out;
	write_str(inst, "tracing_on", "1");
	if (cmd) {
		fflush(NULL);
		child = fork();
		if (child < 0) {
			fprintf(stderr, "%s: fork: %s\n", who, strerror(errno));
			goto out;
		}
		if (!child) {
			execvp(cmd[0], cmd);
			fprintf(stderr, "%s: %s: %s\n", who, cmd[0], strerror(errno));
			_exit(127);
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pfd.fd = fd;
	pfd.events = POLLIN;
	for (;;) {
		n = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (n > 0) {
			len += n;
			if (feed(w, buf, &len))
				goto out;
			if (len == sizeof(buf) - 1) {
				fprintf(stderr, "%s: a trace line longer than %zu bytes\n",
					who, sizeof(buf));
				goto out;
			}
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR) {
			fprintf(stderr, "%s: %s: %s\n", who, path, strerror(errno));
			goto out;
		}
		if (record_stop)
			break;
		if (child > 0 && waitpid(child, &status, WNOHANG) == child) {
			child = -1;
			break;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (child < 0 && !cmd && now.tv_sec - t0.tv_sec >= (time_t)seconds)
			break;
		poll(&pfd, 1, 100);
	}
	/* stop, then what is left in the buffer */
	write_str(inst, "tracing_on", "0");
	while ((n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0) {
		len += n;
		if (feed(w, buf, &len))
			goto out;
	}
	over = overruns(inst);
	if (over > pcp_tw_header(w)->lost)
		pcp_tw_lost(w, over - pcp_tw_header(w)->lost);
	err = 0;
	if (cmd && WIFEXITED(status) && WEXITSTATUS(status)) {
		fprintf(stderr, "%s: %s exited with %d; its trace is kept\n", who,
			cmd[0], WEXITSTATUS(status));
	} else if (cmd && WIFSIGNALED(status)) {
		fprintf(stderr, "%s: %s was killed by %s; its trace is kept\n", who,
			cmd[0], strsignal(WTERMSIG(status)));
	}
out:
	if (child > 0) {
		kill(child, SIGTERM);
		waitpid(child, &status, 0);
	}
	if (fd >= 0)
		close(fd);
	write_str(inst, "tracing_on", "0");
	for (i = 0; i < nr_events; i++) {
		snprintf(path, sizeof(path), "events/kmem/%s/enable", list_events[i]);
		write_str(inst, path, "0");
	}
	if (rmdir(inst))
		fprintf(stderr, "%s: %s: %s (remove it by hand)\n", who, inst, strerror(errno));
	if (record_stop)
		fprintf(stderr, "%s: stopped by %s; %s\n", who, strsignal(record_stop),
			err ? "nothing recorded" : "the trace so far is kept");
	return err;
}

/* A file of perf script or tracefs text, or a dump, into @t. */
static int record_input(const char *path, struct pcp_trace_writer *w,
			struct pcp_trace *t, bool *is_dump)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : tmpfile();
	char *line = NULL, buf[65536];
	size_t cap = 0, lineno = 0, got;
	int err = 0;

	*is_dump = false;
	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", who, path, strerror(errno));
		return -1;
	}
	/* standard input into a file of its own: a dump is read twice */
	if (!strcmp(path, "-")) {
		while ((got = fread(buf, 1, sizeof(buf), stdin)))
			fwrite(buf, 1, got, f);
		if (ferror(stdin) || ferror(f)) {
			fprintf(stderr, "%s: standard input: %s\n", who, strerror(errno));
			fclose(f);
			return -1;
		}
		rewind(f);
	}
	while (!err && getline(&line, &cap, f) >= 0) {
		lineno++;
		if (lineno == 1 && !strncmp(line, "# pcptrace", 10)) {
			rewind(f);
			*is_dump = true;
			err = pcp_trace_read_text(f, path, t);
			if (err)
				fprintf(stderr, "%s: %s\n", who, pcp_trace_error);
			break;
		}
		if (pcp_parse_kernel_line(w, line) == PCP_LINE_BAD) {
			fprintf(stderr, "%s: %s line %zu: %s\n", who, path, lineno,
				pcp_trace_error);
			err = -1;
		}
	}
	if (!err && ferror(f)) {
		fprintf(stderr, "%s: %s: %s\n", who, path, strerror(errno));
		err = -1;
	}
	free(line);
	fclose(f);
	return err;
}

int cmd_record(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "seconds", required_argument, NULL, 'd' },
		{ "input", required_argument, NULL, 'i' },
		{ "zoneinfo", required_argument, NULL, 'z' },
		{ "no-kernel-lists", no_argument, NULL, 'n' },
		{ "empty-lists", no_argument, NULL, 'e' },
		{ "buffer-kb", required_argument, NULL, 'b' },
		{ "max-events", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const char *out = NULL, *input = NULL, *zoneinfo = NULL;
	unsigned int seconds = 10, buffer_kb = 16384, max_events = 1U << 24;
	uint64_t over;
	bool kernel_lists = true, is_dump = false, seconds_given = false;
	bool empty_lists = false;
	struct pcp_trace_writer *w;
	struct pcp_trace t = { 0 };
	char **cmd = NULL;
	int opt, err;

	while ((opt = next_option(argc, argv, longopts)) != -1) {
		switch (opt) {
		case 'o':
			out = optarg;
			break;
		case 'd':
			if (parse_uint_arg("--seconds", optarg, 1, 86400, &seconds))
				return 2;
			seconds_given = true;
			break;
		case 'i':
			input = optarg;
			break;
		case 'z':
			zoneinfo = optarg;
			break;
		case 'n':
			kernel_lists = false;
			break;
		case 'e':
			empty_lists = true;
			break;
		case 'b':
			if (parse_uint_arg("--buffer-kb", optarg, 64, 1U << 20, &buffer_kb))
				return 2;
			break;
		case 'm':
			if (parse_uint_arg("--max-events", optarg, 1, 1U << 28, &max_events))
				return 2;
			break;
		case 'h':
			printf("%s", record_help);
			return 0;
		default:
			return 2;
		}
	}
	if (optind < argc)
		cmd = argv + optind;
	if (!out || (input && (cmd || seconds_given || empty_lists)) ||
	    (cmd && seconds_given)) {
		fprintf(stderr, "%s: usage: %s record --output TRACE [--seconds N | -- COMMAND...] [--empty-lists] or --input FILE; see %s help record\n",
			who, prog, prog);
		return 2;
	}
	/* a live recording reads this machine's zones, and again as it begins */
	if (zoneinfo && !input) {
		fprintf(stderr, "%s: --zoneinfo goes with --input: a recording reads this machine's /proc/zoneinfo\n",
			who);
		return 2;
	}
	w = pcp_tw_new();
	if (!w) {
		fprintf(stderr, "%s: out of memory\n", who);
		return 1;
	}
	err = 0;
	if (zoneinfo || !input)
		err = read_zoneinfo(zoneinfo ? zoneinfo : "/proc/zoneinfo", w, false);
	if (!kernel_lists)
		pcp_tw_stream_only(w);
	pcp_tw_max_events(w, max_events);
	if (!err && input)
		err = record_input(input, w, &t, &is_dump);
	else if (!err)
		err = record_live(w, seconds, buffer_kb, kernel_lists, empty_lists, cmd);
	if (!err && !is_dump) {
		if (kernel_lists && !input)
			pcp_tw_set_flags(w, PCP_TRACE_KERNEL_LISTS);
		err = pcp_tw_finish(w, &t);
		if (err)
			fprintf(stderr, "%s: %s\n", who, pcp_trace_error);
	}
	over = pcp_tw_over(w);
	pcp_tw_destroy(w);
	if (err)
		return 1;
	if (over)
		fprintf(stderr, "%s: warning: %u events kept (--max-events); %" PRIu64
			" after them counted as lost\n", who, max_events, over);
	if (pcp_trace_write(&t, out)) {
		fprintf(stderr, "%s: %s\n", who, pcp_trace_error);
		pcp_trace_release(&t);
		return 1;
	}
	printf("recorded %s: %" PRIu64 " events (%" PRIu64 " allocations, %" PRIu64
	       " frees, %" PRIu64 " of them of order %d) on %u CPUs; lost %" PRIu64
	       ", dropped %" PRIu64 " unmatched and %" PRIu64 " %s\n", out,
	       t.h.nr_events, t.nr_allocs, t.nr_frees, t.nr_thp, PCP_TRACE_THP_ORDER,
	       t.h.nr_cpus, t.h.lost, t.h.unmatched, t.h.beyond,
	       pcp_trace_beyond_what(&t.h));
	if (t.nr_kfrees)
		printf("kept %" PRIu64 " frees of pages allocated before the recording, for the kernel model (kfree)\n",
		       t.nr_kfrees);
	if (t.h.lost > over)
		fprintf(stderr, "%s: warning: the kernel lost %" PRIu64
			" events (a bigger --buffer-kb keeps more)\n", who, t.h.lost - over);
	pcp_trace_release(&t);
	return 0;
}
