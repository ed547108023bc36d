// SPDX-License-Identifier: GPL-2.0
/*
 * When the kernel wants pcpcache's pages back, at the moments it drains its
 * own per-CPU lists: a CPU going offline (page_alloc_cpu_dead()), memory
 * pressure (drain_all_pages() in direct reclaim; here a shrinker), memory
 * going offline (offline_pages()), and, as caches that must give back
 * before a kill do (virtio_balloon), the OOM killer about to pick a victim.
 * CPU hotplug also readies the magazine of a CPU coming up (request.c).
 */
#include <linux/cpuhotplug.h>
#include <linux/memory.h>
#include <linux/notifier.h>
#include <linux/oom.h>
#include <linux/rcupdate.h>

#include "barn.h"
#include "compat.h"
#include "pcpcache.h"

/*
 * Pages a shrinker scan asks for at a time (vmscan's default is 128). A
 * scan reaches every CPU of the node that has pages, so a larger batch
 * spreads that cost; 4 MiB is still a small share of what reclaim wants.
 */
#define PCPCACHE_SHRINK_BATCH	1024

static enum cpuhp_state pcpcache_prepare_state, pcpcache_online_state;
static struct shrinker *pcpcache_shrinker;

static unsigned long pcpcache_shrink_count(struct shrinker *s,
					   struct shrink_control *sc)
{
	/* and what is in transit and at home, which a scan takes first */
	unsigned long cached = pcpcache_parked_pages(sc->nid);

	return cached ? cached : SHRINK_EMPTY;
}

static unsigned long pcpcache_shrink_scan(struct shrinker *s,
					  struct shrink_control *sc)
{
	unsigned long freed = pcpcache_shrink(sc->nid, sc->nr_to_scan);

	return freed ? freed : SHRINK_STOP;
}

/*
 * Whether this notifier saw the offline under way begin: it closed the
 * barns at MEM_GOING_OFFLINE, and its MEM_OFFLINE or MEM_CANCEL_OFFLINE
 * opens them. An end alone is not ours to count: a notifier ahead of this
 * one that refuses MEM_GOING_OFFLINE (virtio-mem does while its device
 * goes) stops the chain before it, and offline_pages() then sends
 * MEM_CANCEL_OFFLINE to every notifier; a load during an offline sees its
 * end only. Counted, either would leave the barns closed for good, and
 * open during every later offline. offline_pages() runs under
 * mem_hotplug_lock, held for writing from before the beginning to after
 * the end (mm/memory_hotplug.c; static there, so asserted nowhere): one
 * offline at a time, and every access to this flag under that lock.
 */
static bool pcpcache_offline_begun;

/*
 * A cached page has no reference, so isolating a range to offline it does
 * not fail on one (has_unmovable_pages()); once it is isolated, every
 * magazine is drained, as offline_pages() drains every CPU's lists, so
 * that the range's pages reach the buddy allocator. From then on, pages of
 * isolated pageblocks are refused (core.c). The caller holds the hotplug
 * locks and retries until the pages have arrived, so the drain is not
 * waited for: a CPU that cannot run its work must not hold up hotplug.
 */
static int pcpcache_memory_callback(struct notifier_block *nb,
				    unsigned long action, void *arg)
{
	switch (action) {
	case MEM_GOING_OFFLINE:
		pcpcache_offline_begun = true;
		pcpcache_barns_close();
		/*
		 * frees that looked at a block before it was isolated
		 * (owner.c), and exchanges with a barn that did not see it
		 * closed: both run with interrupts or preemption off
		 */
		synchronize_rcu();
		pcpcache_drain_all_async();
		pcpcache_count(PCPCACHE_MEMORY_OFFLINE, 1);
		break;
	case MEM_OFFLINE:
	case MEM_CANCEL_OFFLINE:
		if (pcpcache_offline_begun) {
			pcpcache_offline_begun = false;
			pcpcache_barns_open();
		}
		break;
	}
	return NOTIFY_OK;
}

static struct notifier_block pcpcache_memory_nb = {
	.notifier_call = pcpcache_memory_callback,
};

/*
 * out_of_memory() calls this chain before it picks a victim, and kills
 * nobody if something was given back. The shrinker waits for no CPU that
 * does not run (under lock=local, one a SCHED_FIFO task holds), so its
 * pages may still be cached here: give back everything, waiting for them.
 */
static int pcpcache_oom_callback(struct notifier_block *nb,
				 unsigned long unused, void *arg)
{
	unsigned long *freed = arg;

	*freed += pcpcache_oom_give_back();
	return NOTIFY_OK;
}

static struct notifier_block pcpcache_oom_nb = {
	.notifier_call = pcpcache_oom_callback,
};

/*
 * A CPU came up: its magazine catches up (request.c), and the bound on
 * what each CPU may cache shrinks (config.c).
 */
static int pcpcache_cpu_up(unsigned int cpu)
{
	pcpcache_cpu_online(cpu);
	pcpcache_config_cpus_changed();
	return 0;
}

/**
 * pcpcache_reclaim_init - follow CPU hotplug, memory pressure and offlining
 *
 * The hotplug callbacks run for the CPUs already up as well, before anyone
 * can use a magazine.
 *
 * None of them counts on having seen an operation begin. The CPU hotplug
 * states are set up under cpus_read_lock(), so no CPU is half way up or
 * down meanwhile; a CPU's teardown (pcpcache_cpu_dead()) runs only after
 * its startup ran, a rolled-back bring-up's included; and each callback
 * sets its CPU outright (configured, or drained), whatever it found. The
 * OOM notifier and the shrinker keep nothing from one call to the next.
 * The memory notifier opens the barns only after an offline it saw begin.
 *
 * Return: 0, or an error with nothing registered.
 */
int pcpcache_reclaim_init(void)
{
	int ret;

	ret = cpuhp_setup_state(CPUHP_BP_PREPARE_DYN, "mm/pcpcache:prepare",
				pcpcache_cpu_prepare, pcpcache_cpu_dead);
	if (ret < 0)
		return ret;
	pcpcache_prepare_state = ret;
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "mm/pcpcache:online",
				pcpcache_cpu_up, NULL);
	if (ret < 0)
		goto remove_prepare;
	pcpcache_online_state = ret;

	ret = register_memory_notifier(&pcpcache_memory_nb);
	if (ret)
		goto remove_online;
	ret = register_oom_notifier(&pcpcache_oom_nb);
	if (ret)
		goto unregister_memory;

	pcpcache_shrinker = pcpcache_shrinker_create(KBUILD_MODNAME,
						     PCPCACHE_SHRINK_BATCH,
						     pcpcache_shrink_count,
						     pcpcache_shrink_scan);
	if (!pcpcache_shrinker) {
		ret = -ENOMEM;
		goto unregister_oom;
	}
	return 0;

unregister_oom:
	unregister_oom_notifier(&pcpcache_oom_nb);
unregister_memory:
	unregister_memory_notifier(&pcpcache_memory_nb);
remove_online:
	cpuhp_remove_state_nocalls(pcpcache_online_state);
remove_prepare:
	cpuhp_remove_state_nocalls(pcpcache_prepare_state);
	return ret;
}

/**
 * pcpcache_reclaim_exit - stop the shrinker, the memory and OOM notifiers
 *
 * CPU hotplug is followed until pcpcache_hotplug_exit(), after the last
 * drain: a CPU that dies meanwhile is emptied by its callback.
 */
void pcpcache_reclaim_exit(void)
{
	pcpcache_shrinker_destroy(pcpcache_shrinker);
	unregister_oom_notifier(&pcpcache_oom_nb);
	unregister_memory_notifier(&pcpcache_memory_nb);
}

void pcpcache_hotplug_exit(void)
{
	cpuhp_remove_state_nocalls(pcpcache_online_state);
	cpuhp_remove_state_nocalls(pcpcache_prepare_state);
}
