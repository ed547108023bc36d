/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libpcpcache: what tools/pcpctl and the pcpcache selftests share, as the
 * kernel keeps tools/lib/ for what its tools and selftests share: the
 * module's files, the counters, the per-CPU lists, the "user" ioctls and
 * the device.
 */
#ifndef _PCPCACHE_UTIL_H
#define _PCPCACHE_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include <linux/pcpcache.h>

#define PCP_DIR		PCPCACHE_DEBUGFS_DIR
#define PCP_SYSFS_DIR	PCPCACHE_SYSFS_DIR
#define PCP_SYSFS	"/sys/module/pcpcache"
#define PCP_MAX_CPUS	1024
/* Debian's MAX_NUMNODES (NODES_SHIFT 10) */
#define PCP_MAX_NODES	1024
#define PCP_WATERMARK_BOOST	"/proc/sys/vm/watermark_boost_factor"
#define PCP_MAX_STATS	128
/*
 * How far the rest of the system (the test itself, the module's own
 * memory) may move pcp_buddy_free_pages(); a cache that kept its pages
 * would miss by thousands.
 */
#define PCP_FREE_PAGES_TOLERANCE	1024
/* The module's default knobs, as a config line (mode aside). */
#define PCP_DEFAULT_KNOBS \
	"batch=63 high=378 cold_batch=31 cold_high=126 high_min=378 high_max=1134" \
	" barn_full=4"
/*
 * barn mode's rule (module/policy.c): a CPU's main and spare magazines
 * and barn_full of its node's barn, max(batch, 8) pages of each of the
 * orders cached (a magazine holds an order-3 block at least), within the
 * bound on high + cold_high. Linear in batch from 8 on, which is where
 * the callers work (limit / PCP_BARN_PAGES(1, full) is the most batch).
 */
#define PCP_BARN_ORDERS		4
#define PCP_BARN_MAX		32
#define PCP_BARN_PAGES(batch, full) \
	((2ULL + (full)) * (batch) * PCP_BARN_ORDERS)

/* The longest name of a counter, NUL aside. */
#define PCP_NAME_MAX	31

/*
 * The lines of the stats file, by name, in the module's own type: an
 * unsigned long, 64 bits on every kernel we target. "held" alone is
 * signed (pcp_stat_signed()); it is kept as the same 64 bits.
 */
struct pcp_stats {
	int nr;
	char name[PCP_MAX_STATS][PCP_NAME_MAX + 1];
	unsigned long long value[PCP_MAX_STATS];
};

#define PCP_NR_ORDERS	(PCPCACHE_MAX_ORDER + 1)

/* One CPU's line of the pagesets file. */
struct pcp_pageset {
	int cpu;
	long count, high, batch;
	long cold_count, cold_high, cold_batch;	/* -1 unless split */
	long order[PCP_NR_ORDERS];		/* blocks of each order cached */
	long transit;				/* -1 unless remote or blocks */
	long blocks;				/* -1 unless blocks */
	long spare;				/* -1 unless barn: the spare's pages */
	long barn;				/* -1 unless barn: its node's barn's */
};

#ifndef __printf
#define __printf(a, b)	__attribute__((format(printf, a, b)))
#endif

/*
 * Where pcp_write() and the readers below find the control and status
 * files: PCP_DIR (debugfs) unless set to PCP_SYSFS_DIR. The files only
 * debugfs has (bench, fault_refill, user) are found there whatever it says.
 */
extern const char *pcp_dir;

/*
 * Why the last reader below refused a file it could read: "PATH line N:
 * what", for an error message. Set when one returns -EINVAL.
 */
extern char pcp_parse_error[320];

int pcp_parse_fail(const char *path, int line, const char *fmt, ...)
	__printf(3, 4);
char *pcp_next_line(char *text, size_t *pos, bool *cut);
const char *pcp_real_path(const char *path, char *buf, size_t size);
int pcp_open(const char *path, int flags);
FILE *pcp_fopen(const char *path, const char *mode);
bool pcp_name_ok(const char *s);
int pcp_parse_count(const char *s, bool is_signed, unsigned long long *val);
bool pcp_stat_signed(const char *name);
int pcp_run(const char *fmt, ...) __printf(1, 2);
long long pcp_log_mark(void);
int pcp_log_grep(long long mark, const char *fmt, ...) __printf(2, 3);
void pcp_path(char *buf, size_t size, const char *file);
bool pcp_exists(const char *path);
bool pcp_debugfs_mounted(void);
const char *pcp_skip_reason(void);
ssize_t pcp_read_file(const char *path, char *buf, size_t size);
int pcp_write_file_len(const char *path, const char *buf, size_t len);
int pcp_write_file(const char *path, const char *val);
int pcp_write_len(const char *file, const char *buf, size_t len);
int pcp_write(const char *file, const char *val);
int pcp_read_long(const char *file, long *val);
int pcp_read_stats(struct pcp_stats *st);
int pcp_read_named(const char *file, struct pcp_stats *st);
bool pcp_stat_find(const struct pcp_stats *st, const char *name,
		   unsigned long long *val);
long long pcp_stat(const struct pcp_stats *st, const char *name);
bool pcp_books_balance(const struct pcp_stats *st, char *why, size_t size);
int pcp_read_pagesets(struct pcp_pageset *sets, int max);
unsigned long pcp_max_high_sum(void);
long pcp_meminfo_kb(const char *key);
long pcp_free_to_process_kb(void);
int pcp_fill(int fd, unsigned int nr, unsigned int cold);
bool pcp_read_books_balanced(struct pcp_stats *st, char *why, size_t size,
			     int tries);
void pcp_wait_books_balance(char *why, size_t size);
bool pcp_page_audit(char *why, size_t size);
long long pcp_buddy_free_pages(void);
long long pcp_kernel_pages_in_use(void);
bool pcp_under_icount(void);
long pcp_fill_to_limit(int fd, bool split);
bool pcp_mode_is(const char *mode);
bool pcp_lock_is(const char *lock);
long pcp_pageset_pages(const struct pcp_pageset *set);
int pcp_use_memory(long kb, long *ms);
pid_t pcp_start_hog(int cpu);
/* A CPU held by pcp_hold_cpu(): its hog, and RT throttling to put back */
struct pcp_cpu_hold {
	pid_t hog;
	char runtime[32];
};
int pcp_hold_cpu(int cpu, struct pcp_cpu_hold *h);
void pcp_release_cpu(struct pcp_cpu_hold *h);
int pcp_reload(const char *params);
int pcp_nr_cpus(void);
int pcp_node_cpu(int node);
int pcp_cpu_node(int cpu);
int pcp_nr_cpu_nodes(void);
int pcp_pin(int cpu);
int pcp_leave_cpu(int cpu);
int pcp_open_user(void);
int pcp_open_device(void);
int pcp_alloc(int fd, unsigned int count, unsigned int flags,
	      struct pcpcache_pages *req);
int pcp_free(int fd, unsigned int count, unsigned int flags,
	     struct pcpcache_pages *req);

#endif /* _PCPCACHE_UTIL_H */
