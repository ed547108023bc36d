// SPDX-License-Identifier: GPL-2.0
/*
 * The one place pcpcache's trace events are created; pcpcache_trace.h
 * says what they are.
 */
#define CREATE_TRACE_POINTS
#include "pcpcache_trace.h"
