/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of the pcpcache module share with each other. Other kernel
 * code uses the exported API header under include/ instead.
 */
#ifndef _PCPCACHE_INTERNAL_H
#define _PCPCACHE_INTERNAL_H

#include "policy.h"

/* Mode in force; set at load time from the "mode" module parameter. */
extern enum pcpcache_mode pcpcache_mode;

void pcpcache_debugfs_init(void);
void pcpcache_debugfs_exit(void);

#endif /* _PCPCACHE_INTERNAL_H */
