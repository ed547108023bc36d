/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of the pcpcache module share with each other. Other kernel
 * code uses the exported API header under include/ instead.
 */
#ifndef _PCPCACHE_INTERNAL_H
#define _PCPCACHE_INTERNAL_H

#include <linux/page-flags.h>

#include "magazine.h"
#include "parse.h"
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

/*
 * Why pages a magazine had, or would have had, go back to the buddy
 * allocator: the "why" of the pcpcache_drain trace event. The first four
 * and the barn's trim count in drain and drain_pages, the shrinker's in shrink_pages, those
 * of another node in remote_node, the OOM notifier's in oom_pages.
 */
enum pcpcache_drain_why {
	PCPCACHE_DRAIN_HIGH,		/* a list went over its high mark */
	PCPCACHE_DRAIN_REQUEST,		/* the drain file, memory offline, unload */
	PCPCACHE_DRAIN_RECONFIG,	/* a new mode or a lower high */
	PCPCACHE_DRAIN_CPU_DEAD,	/* the magazine's CPU went offline */
	PCPCACHE_DRAIN_SHRINKER,	/* memory pressure */
	PCPCACHE_DRAIN_REMOTE,		/* pages of another node, never cached */
	PCPCACHE_DRAIN_OOM,		/* the OOM killer is about to pick */
	PCPCACHE_DRAIN_TRIM,		/* a barn's magazines not needed */
};

/* buddy.c: the way back to the buddy allocator */
void pcpcache_free_block(struct page *page, unsigned int order);
void pcpcache_free_cut(struct pcpcache_cut *cut);

/* Whether a page of the block is marked poisoned. */
static __always_inline bool pcpcache_block_poisoned(struct page *page,
						    unsigned int order)
{
	unsigned int i;

	for (i = 0; i < 1U << order; i++)
		if (unlikely(PageHWPoison(page + i)))
			return true;
	return false;
}

/* drain.c: where the pages that magazines and barns let go end up */
unsigned int pcpcache_give_back(struct pcpcache_cut *cut);
void pcpcache_give_back_drained(struct pcpcache_cut *cut, int cpu,
				enum pcpcache_drain_why why);
void pcpcache_count_drained(int cpu, unsigned int nr,
			    enum pcpcache_drain_why why);

/* core.c: the fast path */
extern unsigned int pcpcache_fault_refill;
/* page->private of a cached block that is still as the buddy allocator left it */
#define PCPCACHE_PAGE_CLEAN	1UL
void pcpcache_high_moved(int cpu, unsigned int old, unsigned int new,
			 enum pcpcache_stat why);
void pcpcache_deferred_init(void);
void pcpcache_deferred_sync(void);
void pcpcache_deferred_dead(int cpu);
/* What the page audit finds on the deferred lists (debugfs's audit file) */
struct pcpcache_deferred_audit {
	unsigned long walked;		/* base pages on the lists */
	unsigned long walked_cut;	/* of those, cut off a magazine */
	unsigned long counted;		/* what the lists' counts say */
	unsigned long wrong;		/* lists whose walk and count differ */
};

void pcpcache_deferred_audit(int cpu, struct pcpcache_deferred_audit *a);

/* request.c: reaching other CPUs' magazines */
int pcpcache_request_init(const struct pcpcache_config *cfg);
void pcpcache_request_exit(void);
void pcpcache_request_all(const struct pcpcache_config *cfg, bool drain);
void pcpcache_drain_all_async(void);
int pcpcache_cpu_prepare(unsigned int cpu);
int pcpcache_cpu_online(unsigned int cpu);
int pcpcache_cpu_dead(unsigned int cpu);
unsigned long pcpcache_shrink(int nid, unsigned long nr);
unsigned long pcpcache_oom_give_back(void);
enum pcpcache_mode pcpcache_cpu_lists(int cpu, struct pcpcache_list *lists);
unsigned long pcpcache_cached_pages(int nid);
unsigned long pcpcache_parked_pages(int nid);

/* lock.c: the locking design chosen at load (lock.h) */
const char *pcpcache_lock_name(void);
void pcpcache_lock_init(void);

/* user.c: the "user" file's ioctls, and the limits /dev/pcpcache shares */
extern const struct file_operations pcpcache_user_fops;
unsigned long pcpcache_user_max_pages(void);
struct mm_struct;
int pcpcache_user_charge(struct mm_struct *mm, unsigned long nr);
void pcpcache_user_uncharge(struct mm_struct *mm, unsigned long nr);
unsigned long pcpcache_user_held(void);

/* fault.c: /dev/pcpcache, memory whose page faults the cache serves */
int pcpcache_fault_init(void);
void pcpcache_fault_exit(void);

/* reclaim.c: CPU hotplug, the shrinker, memory going offline */
int pcpcache_reclaim_init(void);
void pcpcache_reclaim_exit(void);
void pcpcache_hotplug_exit(void);

/*
 * control.c: one control or status file. The filesystems create a file
 * for each of pcpcache_ctls[] and hand it their reads and writes.
 */
struct pcpcache_ctl {
	const char *name;
	/* put the file's text in @buf, NUL-terminated; its length */
	size_t (*show)(const struct pcpcache_ctl *ctl, char *buf, size_t size);
	/* act on one whole write; 0, or an error and nothing changed */
	int (*store)(const struct pcpcache_ctl *ctl, const char *buf, size_t len);
	/* the @size show needs, where a page may not do; NULL: a page */
	size_t (*size)(void);
	enum pcpcache_knob knob;	/* for the knob files */
	bool debugfs_only;		/* a testing tool: not in sysfs */
};

extern const struct pcpcache_ctl pcpcache_ctls[];
extern const unsigned int pcpcache_nr_ctls;

/* Far longer than any value; sysfs hands a store no more either. */
#define PCPCACHE_WRITE_MAX	PAGE_SIZE

/* limit.c: the limit's bare list behind two calls (the bench file's 128) */
void pcpcache_limit_call_init(void);
struct page *pcpcache_limit_call_alloc(gfp_t gfp, unsigned int order, bool cold);
void pcpcache_limit_call_free(struct page *page, unsigned int order, bool cold);
void pcpcache_limit_call_empty(unsigned int order);

/* bench.c: the "bench" file */
size_t pcpcache_bench_show(const struct pcpcache_ctl *ctl, char *buf,
			   size_t size);
int pcpcache_bench_store(const struct pcpcache_ctl *ctl, const char *buf,
			 size_t len);
size_t pcpcache_bench_size(void);
void pcpcache_bench_exit(void);

/* sysfs.c */
int pcpcache_sysfs_init(void);
void pcpcache_sysfs_exit(void);

/* debugfs.c */
void pcpcache_debugfs_init(void);
void pcpcache_debugfs_exit(void);

#endif /* _PCPCACHE_INTERNAL_H */
