/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of the pcpcache module share with each other. Other kernel
 * code uses the exported API header under include/ instead.
 */
#ifndef _PCPCACHE_INTERNAL_H
#define _PCPCACHE_INTERNAL_H

#include "magazine.h"
#include "policy.h"
#include "stats.h"

/* core.c: the configuration in force; module parameters point into it */
extern struct pcpcache_config pcpcache_config;

int pcpcache_core_init(void);
void pcpcache_core_exit(void);
int pcpcache_set_mode(enum pcpcache_mode mode);
int pcpcache_set_knob(enum pcpcache_knob knob, unsigned int value);
int pcpcache_set_config(const struct pcpcache_config *cfg);
int pcpcache_edit_config(int (*edit)(struct pcpcache_config *cfg, void *arg),
			 void *arg);
unsigned long pcpcache_get_config(struct pcpcache_config *cfg);
void pcpcache_drain_all(void);
void pcpcache_drain_dead_cpu(int cpu);
unsigned long pcpcache_shrink(unsigned long nr);
extern unsigned int pcpcache_fault_refill;
enum pcpcache_mode pcpcache_cpu_lists(int cpu, struct pcpcache_list *lists);
unsigned long pcpcache_cached_pages(void);

/* user.c: the "user" file's ioctls, and the limits /dev/pcpcache shares */
extern const struct file_operations pcpcache_user_fops;
unsigned long pcpcache_user_max_pages(void);
int pcpcache_user_charge(unsigned long nr);
void pcpcache_user_uncharge(unsigned long nr);

/* fault.c: /dev/pcpcache, memory whose page faults the cache serves */
int pcpcache_fault_init(void);
void pcpcache_fault_exit(void);

/* reclaim.c: CPU hotplug and the shrinker */
int pcpcache_reclaim_init(void);
void pcpcache_reclaim_exit(void);

/* bench.c: the "bench" file */
extern const struct file_operations pcpcache_bench_fops;
void pcpcache_bench_exit(void);

/* debugfs.c */
void pcpcache_debugfs_init(void);
void pcpcache_debugfs_exit(void);

#endif /* _PCPCACHE_INTERNAL_H */
