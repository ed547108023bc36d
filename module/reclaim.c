// SPDX-License-Identifier: GPL-2.0
/*
 * When the kernel wants pcpcache's pages back: a CPU going offline, whose
 * magazine nobody will use until it returns, and memory pressure, through
 * a shrinker. The kernel's own per-CPU lists are drained at the same two
 * moments (page_alloc_cpu_dead(), drain_all_pages() in direct reclaim).
 */
#include <linux/cpuhotplug.h>

#include "compat.h"
#include "pcpcache.h"

static enum cpuhp_state pcpcache_hp_state;
static struct shrinker *pcpcache_shrinker;

/*
 * Runs on a surviving CPU after @cpu is dead, with hotplug's write lock
 * held, so nothing can be using its magazine. The magazine keeps the
 * configuration in force, and reconfigurations reach offline CPUs too, so
 * the CPU comes back empty with the current knobs.
 */
static int pcpcache_cpu_dead(unsigned int cpu)
{
	pcpcache_drain_dead_cpu(cpu);
	return 0;
}

static unsigned long pcpcache_shrink_count(struct shrinker *s,
					   struct shrink_control *sc)
{
	unsigned long cached = pcpcache_cached_pages();

	return cached ? cached : SHRINK_EMPTY;
}

static unsigned long pcpcache_shrink_scan(struct shrinker *s,
					  struct shrink_control *sc)
{
	unsigned long freed = pcpcache_shrink(sc->nr_to_scan);

	return freed ? freed : SHRINK_STOP;
}

int pcpcache_reclaim_init(void)
{
	int ret;

	ret = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN, "mm/pcpcache:dead",
					NULL, pcpcache_cpu_dead);
	if (ret < 0)
		return ret;
	pcpcache_hp_state = ret;

	pcpcache_shrinker = pcpcache_shrinker_create(KBUILD_MODNAME,
						     pcpcache_shrink_count,
						     pcpcache_shrink_scan);
	if (!pcpcache_shrinker) {
		cpuhp_remove_state_nocalls(pcpcache_hp_state);
		return -ENOMEM;
	}
	return 0;
}

void pcpcache_reclaim_exit(void)
{
	pcpcache_shrinker_destroy(pcpcache_shrinker);
	cpuhp_remove_state_nocalls(pcpcache_hp_state);
}
