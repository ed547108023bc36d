/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * pcpcache: the userspace interface, shared by the module, the selftests
 * and pcpctl. See Documentation/userspace-api/pcpcache.rst.
 *
 * A thread opens PCPCACHE_USER_FILE and issues the ioctls below; each runs
 * on the CPU the thread runs on, so a thread pinned with sched_setaffinity()
 * drives that CPU's magazine. Pages allocated are held by the open file,
 * which any thread sharing it may free them through, and are freed when it
 * is closed. All counts are in pages.
 */
#ifndef _UAPI_LINUX_PCPCACHE_H
#define _UAPI_LINUX_PCPCACHE_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define PCPCACHE_DEBUGFS_DIR	"/sys/kernel/debug/pcpcache"
#define PCPCACHE_USER_FILE	PCPCACHE_DEBUGFS_DIR "/user"
/* the control and status files again, where kernel lockdown allows them */
#define PCPCACHE_SYSFS_DIR	"/sys/kernel/mm/pcpcache"

/*
 * mmap(MAP_SHARED) of the device gives zero-filled memory of its own whose
 * page faults the faulting CPU's magazine serves; unmapping it frees the
 * pages into the unmapping CPU's. No ioctls.
 */
#define PCPCACHE_DEVICE		"/dev/pcpcache"

/* PCPCACHE_IOC_ALLOC, PCPCACHE_IOC_FREE: flags */
#define PCPCACHE_COLD		(1U << 0)	/* allocate or free cold */

/*
 * Every request's flags may name an order, 0 (the default) to
 * PCPCACHE_MAX_ORDER: its counts are then in blocks of 2^order pages.
 */
#define PCPCACHE_ORDER_SHIFT	8
#define PCPCACHE_ORDER_MASK	(0xfU << PCPCACHE_ORDER_SHIFT)
#define PCPCACHE_ORDER(order)	((__u32)(order) << PCPCACHE_ORDER_SHIFT)
#define PCPCACHE_MAX_ORDER	3

struct pcpcache_pages {
	__u32 count;	/* in: blocks to allocate, or to free (at most held) */
	__u32 flags;	/* in: PCPCACHE_COLD, PCPCACHE_ORDER(n) or 0 */
	__u32 done;	/* out: blocks allocated or freed */
	__s32 cpu;	/* out: the CPU the call started on */
	__u64 held;	/* out: pages the file holds afterwards, all orders */
	__u32 remote;	/* out: blocks allocated from another node than cpu's */
	__u32 pad;	/* in: must be 0; out: 0 */
};

/* PCPCACHE_IOC_CYCLE: flags, and PCPCACHE_ORDER(n) */
#define PCPCACHE_CYCLE_COLD_ALLOC	(1U << 0)	/* allocate cold */
#define PCPCACHE_CYCLE_COLD_FREE	(1U << 1)	/* free cold */
#define PCPCACHE_CYCLE_TOUCH		(1U << 2)	/* write every byte */

struct pcpcache_cycle {
	__u32 cycles;	/* in: rounds, each allocating then freeing batch */
	__u32 batch;	/* in: blocks per round */
	__u32 flags;	/* in: PCPCACHE_CYCLE_* */
	__u32 pad;	/* in: must be 0 */
	__u64 allocs;	/* out: blocks allocated */
	__u64 frees;	/* out: blocks freed */
	__u64 failures;	/* out: allocations that failed */
	__s32 cpu;	/* out: the CPU the call started on */
	__u32 pad2;	/* in: must be 0; out: 0 */
};

/*
 * Unused in Documentation/userspace-api/ioctl/ioctl-number.rst (0xB8, the
 * first choice, is mshv's and the Marvell CN10K DPI driver's).
 */
#define PCPCACHE_IOC_MAGIC	0xBC
#define PCPCACHE_IOC_ALLOC	_IOWR(PCPCACHE_IOC_MAGIC, 1, struct pcpcache_pages)
#define PCPCACHE_IOC_FREE	_IOWR(PCPCACHE_IOC_MAGIC, 2, struct pcpcache_pages)
#define PCPCACHE_IOC_CYCLE	_IOWR(PCPCACHE_IOC_MAGIC, 3, struct pcpcache_cycle)

#endif /* _UAPI_LINUX_PCPCACHE_H */
