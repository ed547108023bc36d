/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The all-CPU stress of pcpcache, shared by the "stress" selftest and
 * "pcpctl stress": one worker thread pinned to each CPU allocates, holds
 * and frees pages (hot and cold, small and large batches, across CPUs
 * through a shared file, and by faulting in mappings of /dev/pcpcache)
 * while a controller thread switches modes, changes knobs, writes values
 * that must be refused and drains. The controller tells another writer's
 * changes from its own by the configuration's generation, takes them in
 * and counts them; the configuration and fault_refill are put back as
 * found at the end.
 */
#ifndef _PCPCACHE_STRESS_H
#define _PCPCACHE_STRESS_H

#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#include "pcpcache_util.h"

struct pcp_stress_opts {
	unsigned int seconds;
	unsigned int seed;
	cpu_set_t cpus;		/* one worker per CPU in the set */
	bool chaos;		/* run the controller */
	bool hotplug;		/* ... which also takes CPUs offline and back */
	unsigned int fault;	/* fault_refill percentage during the run */
	bool make_it_fail;	/* workers set their fail_page_alloc flag */
	FILE *log;		/* progress and problems; NULL for none */
	/*
	 * Set by a signal handler to end the run early, everything put
	 * back; NULL for none. SIGINT, SIGTERM and SIGHUP are blocked in
	 * the run's threads, so that only the caller's takes them.
	 */
	volatile sig_atomic_t *cancel;
};

struct pcp_stress_result {
	int nr_workers;
	int cpu[PCP_MAX_CPUS];
	unsigned long long pages[PCP_MAX_CPUS];	/* allocated + freed */
	unsigned long long ioctls[PCP_MAX_CPUS];
	unsigned long long faults[PCP_MAX_CPUS];	/* through /dev/pcpcache */
	unsigned long long enospc;		/* limits reached: allowed */
	unsigned long long controls;		/* controller writes */
	unsigned long long hotplugs;		/* CPUs taken offline */
	unsigned long long foreign;		/* changes by another writer */
	double seconds;				/* measured */
	bool cancelled;				/* ended by opts->cancel */
	/* the first thing that went wrong, or "" */
	char failure[256];
};

unsigned int pcp_default_seed(void);
int pcp_stress_run(const struct pcp_stress_opts *opts,
		   struct pcp_stress_result *res);
int pcp_cpu_set_online(int cpu, bool online);
int pcp_pageset_count(int cpu, long *count);

#endif /* _PCPCACHE_STRESS_H */
