/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of pcpctl share.
 */
#ifndef _PCPCTL_H
#define _PCPCTL_H

#include "pcpcache_stress.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

extern const char *prog;

const char *unusable(void);
int cmd_bench(int argc, char **argv);
int cmd_fault(int argc, char **argv);

#endif /* _PCPCTL_H */
