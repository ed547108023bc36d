// SPDX-License-Identifier: GPL-2.0
/*
 * pcpcache's state of each CPU (struct pcpcache_cpu) and the locking
 * design chosen at load, the "lock" parameter, which lock.h's calls test
 * by its static keys. Every other file of the module uses them; this one
 * uses none of the others.
 */
#include <linux/jump_label.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "lock.h"
#include "pcpcache.h"

DEFINE_PER_CPU_ALIGNED(struct pcpcache_cpu, pcpcache_cpus) = {
	.llock = INIT_LOCAL_LOCK(llock),
};

DEFINE_STATIC_KEY_FALSE(pcpcache_lock_spin);
DEFINE_STATIC_KEY_FALSE(pcpcache_lock_try);

/*
 * The locking design (lock.h); fixed from load to unload. spin by default,
 * as the kernel's own lists have been since 6.0.
 */
static const char * const lock_names[] = { "local", "spin", "trylock" };
enum { LOCK_LOCAL, LOCK_SPIN, LOCK_TRYLOCK };
static int lock_design = LOCK_SPIN;

static int lock_param_set(const char *val, const struct kernel_param *kp)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(lock_names); i++) {
		if (sysfs_streq(val, lock_names[i])) {
			lock_design = i;
			return 0;
		}
	}
	return -EINVAL;
}

static int lock_param_get(char *buffer, const struct kernel_param *kp)
{
	return sysfs_emit(buffer, "%s\n", pcpcache_lock_name());
}

static const struct kernel_param_ops lock_param_ops = {
	.set	= lock_param_set,
	.get	= lock_param_get,
};

module_param_cb(lock, &lock_param_ops, NULL, 0444);
MODULE_PARM_DESC(lock, "locking design: spin (default; 6.0 on), local (before 6.0) or trylock (2026); needs a reload to change");

/**
 * pcpcache_lock_name - the locking design asked for at load
 *
 * Return: "local", "spin" or "trylock", as the lock parameter reads.
 */
const char *pcpcache_lock_name(void)
{
	return lock_names[lock_design];
}

/**
 * pcpcache_lock_init - put the locking design asked for in force
 *
 * At load, before any magazine is used: the fast path branches on it.
 */
void pcpcache_lock_init(void)
{
	if (lock_design != LOCK_LOCAL)
		static_branch_enable(&pcpcache_lock_spin);
	if (lock_design == LOCK_TRYLOCK)
		static_branch_enable(&pcpcache_lock_try);
}
