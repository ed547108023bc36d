// SPDX-License-Identifier: GPL-2.0
/*
 * pcpcache's state of each CPU (struct pcpcache_cpu) and the locking
 * design chosen at load, which lock.h's calls test. Every other file of
 * the module uses them; this one uses none of the others.
 */
#include <linux/jump_label.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>

#include "lock.h"
#include "pcpcache.h"

DEFINE_PER_CPU_ALIGNED(struct pcpcache_cpu, pcpcache_cpus) = {
	.llock = INIT_LOCAL_LOCK(llock),
};

DEFINE_STATIC_KEY_FALSE(pcpcache_lock_spin);
DEFINE_STATIC_KEY_FALSE(pcpcache_lock_try);

/**
 * pcpcache_lock_name - the locking design in force
 *
 * Return: "local", "spin" or "trylock", as the lock parameter names them.
 */
const char *pcpcache_lock_name(void)
{
	if (pcpcache_try_design())
		return "trylock";
	return pcpcache_spin_design() ? "spin" : "local";
}
