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

/* config.c: the configuration in force; module parameters point into it */
extern struct pcpcache_config pcpcache_config;

int pcpcache_config_init(void);
void pcpcache_config_exit(void);
unsigned long pcpcache_limit(void);
int pcpcache_set_mode(enum pcpcache_mode mode);
int pcpcache_set_knob(enum pcpcache_knob knob, unsigned int value);
int pcpcache_set_config(const struct pcpcache_config *cfg);
int pcpcache_edit_config(int (*edit)(struct pcpcache_config *cfg, void *arg),
			 void *arg);
unsigned long pcpcache_get_config(struct pcpcache_config *cfg);
void pcpcache_drain_all(void);
void pcpcache_config_cpus_changed(void);

/* core.c: the fast path */
extern unsigned int pcpcache_fault_refill;
void pcpcache_give_back(struct pcpcache_cut *cut);
void pcpcache_give_back_drained(struct pcpcache_cut *cut);

/* request.c: reaching other CPUs' magazines */
int pcpcache_request_init(const struct pcpcache_config *cfg);
void pcpcache_request_exit(void);
void pcpcache_request_all(const struct pcpcache_config *cfg, bool drain);
void pcpcache_drain_all_async(void);
int pcpcache_cpu_prepare(unsigned int cpu);
int pcpcache_cpu_online(unsigned int cpu);
int pcpcache_cpu_dead(unsigned int cpu);
unsigned long pcpcache_shrink(int nid, unsigned long nr);
enum pcpcache_mode pcpcache_cpu_lists(int cpu, struct pcpcache_list *lists);
unsigned long pcpcache_cached_pages(int nid);

/* main.c: the locking design chosen at load (lock.h) */
const char *pcpcache_lock_name(void);

/* user.c: the "user" file's ioctls, and the limits /dev/pcpcache shares */
extern const struct file_operations pcpcache_user_fops;
unsigned long pcpcache_user_max_pages(void);
int pcpcache_user_charge(unsigned long nr);
void pcpcache_user_uncharge(unsigned long nr);

/* fault.c: /dev/pcpcache, memory whose page faults the cache serves */
int pcpcache_fault_init(void);
void pcpcache_fault_exit(void);

/* reclaim.c: CPU hotplug, the shrinker, memory going offline */
int pcpcache_reclaim_init(void);
void pcpcache_reclaim_exit(void);
void pcpcache_hotplug_exit(void);

/* bench.c: the "bench" file */
extern const struct file_operations pcpcache_bench_fops;
void pcpcache_bench_exit(void);

/* debugfs.c */
void pcpcache_debugfs_init(void);
void pcpcache_debugfs_exit(void);

#endif /* _PCPCACHE_INTERNAL_H */
