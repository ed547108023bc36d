/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of pcpctl share.
 */
#ifndef _PCPCTL_H
#define _PCPCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pcpcache_stress.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
/* The longest argument quoted whole in an error; longer ones are cut. */
#define QUOTE_MAX	48

extern const char *prog;
/* "pcpctl: COMMAND", the start of every error message a command gives */
extern const char *who;

int wants_help(int argc, char **argv, const char *text);
int cmd_bench(int argc, char **argv);
int cmd_fault(int argc, char **argv);
/* fault.c: the kernel's own lists, for the kernel rows of bench and fault */
void kernel_pagesets(char *zone, long *high, long *batch);

/* record.c: the kernel's own lists' refills and drains, counted by tracefs */
#define KLISTS_NR	2
struct klists {
	char inst[KLISTS_NR][256];
};

int klists_start(struct klists *k);
void klists_stop(struct klists *k, uint64_t *refilled, uint64_t *drained);
int cmd_set(int argc, char **argv);

/* record.c, simulate.c, replay.c: traces (trace.h) */
struct pcp_trace;
int cmd_record(int argc, char **argv);
int cmd_simulate(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int load_trace(const char *path, struct pcp_trace *t);
void print_trace_summary(FILE *f, const char *path, const struct pcp_trace *t);

/* stats.c: stats and watch */
int cmd_stats(int argc, char **argv);
int cmd_watch(int argc, char **argv);
int read_percpu_counts(const char *const *names, int nr,
		       unsigned long long *vals, int max_cpus);

/* files.c: where pcpcache's files are */
const char *unusable(void);
int need_pcpcache(void);
int need_writable(void);
int need_debugfs_file(const char *file);

/* args.c: numeric options, read strictly */
int parse_uint_arg(const char *what, const char *s, unsigned int min,
		   unsigned int max, unsigned int *val);
int parse_seconds_arg(const char *what, const char *s, double min, double max,
		      double *val);
int parse_list_arg(const char *what, const char *s, unsigned int min,
		   unsigned int max, bool ranges, unsigned long long *set,
		   size_t words);
int no_operands(int argc, char **argv, int optind);
struct option;
int next_option(int argc, char **argv, const struct option *longopts);

/* json.c: --json output */
#define JSON_MAX_DEPTH	8

struct json {
	FILE *f;
	int depth;
	bool first[JSON_MAX_DEPTH];	/* nothing written yet at this depth */
};

void json_open(struct json *j, FILE *f);
void json_quote(FILE *f, const char *s);
void json_begin(struct json *j, const char *key, char bracket);
void json_end(struct json *j, char bracket);
void json_str(struct json *j, const char *key, const char *val);
void json_num(struct json *j, const char *key, double val);
void json_int(struct json *j, const char *key, long long val);
void json_uint(struct json *j, const char *key, unsigned long long val);
void json_bool(struct json *j, const char *key, bool val);

#endif /* _PCPCTL_H */
