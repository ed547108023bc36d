/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the kselftest_harness tests of pcpcache share: the books check,
 * for fixtures with a "struct pcp_stats st" and a "char why[256]".
 */
#ifndef _PCPCACHE_HARNESS_H
#define _PCPCACHE_HARNESS_H

#include "kselftest_harness.h"
#include "pcpcache_util.h"

/* Read the counters into self->st; the books must balance. */
#define ASSERT_BOOKS_BALANCE()						\
	do {								\
		ASSERT_EQ(0, pcp_read_stats(&self->st));		\
		ASSERT_TRUE(pcp_books_balance(&self->st, self->why,	\
					      sizeof(self->why))) {	\
			TH_LOG("%s", self->why);			\
		}							\
	} while (0)

#endif /* _PCPCACHE_HARNESS_H */
