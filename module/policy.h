/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcpcache policy: the rules that decide, not the code that acts.
 *
 * Nothing here may call into the kernel: module/tests/ compiles policy.c
 * unchanged in userspace (under ASan and UBSan), so keep it to plain C and
 * the few headers below.
 */
#ifndef _PCPCACHE_POLICY_H
#define _PCPCACHE_POLICY_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stddef.h>
#endif

enum pcpcache_mode {
	PCPCACHE_MODE_PASSTHROUGH,	/* every call goes to the buddy allocator */
	PCPCACHE_MODE_SINGLE,		/* one list per CPU, hot head, cold tail */
	PCPCACHE_MODE_SPLIT,		/* a hot and a cold list per CPU */
	PCPCACHE_NR_MODES,
};

const char *pcpcache_mode_name(enum pcpcache_mode mode);
int pcpcache_mode_parse(const char *buf, size_t len);
size_t pcpcache_mode_format(enum pcpcache_mode cur, char *buf, size_t size);

#endif /* _PCPCACHE_POLICY_H */
