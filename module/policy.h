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
	PCPCACHE_MODE_REMOTE,		/* single, and frees go to the owning CPU */
	PCPCACHE_MODE_BLOCKS,		/* remote, with refills cut from blocks */
	PCPCACHE_MODE_BARN,		/* main and spare, full ones swapped at a barn */
	PCPCACHE_NR_MODES,
};

/*
 * What a writer may change at run time. batch and high belong to the one
 * list of single mode, which is the hot list of split mode; the cold pair
 * is used in split mode only. Defaults: 2.6.23 on a large zone. With
 * high_auto, each CPU's high moves between high_min and high_max with its
 * traffic, as the kernel's since 6.7, and high itself is not used.
 * barn_full is the most full magazines of each order a node's barn keeps
 * in barn mode.
 */
struct pcpcache_config {
	enum pcpcache_mode mode;
	unsigned int batch;
	unsigned int high;
	unsigned int cold_batch;
	unsigned int cold_high;
	unsigned int high_min;
	unsigned int high_max;
	unsigned int barn_full;
	bool high_auto;
};

/* The numeric settings, each a file in debugfs and a module parameter. */
enum pcpcache_knob {
	PCPCACHE_KNOB_BATCH,
	PCPCACHE_KNOB_HIGH,
	PCPCACHE_KNOB_COLD_BATCH,
	PCPCACHE_KNOB_COLD_HIGH,
	PCPCACHE_KNOB_HIGH_MIN,
	PCPCACHE_KNOB_HIGH_MAX,
	PCPCACHE_KNOB_BARN_FULL,
	PCPCACHE_NR_KNOBS,
};

#define PCPCACHE_DEFAULT_BATCH		63
#define PCPCACHE_DEFAULT_HIGH		(6 * PCPCACHE_DEFAULT_BATCH)
#define PCPCACHE_DEFAULT_COLD_BATCH	(PCPCACHE_DEFAULT_BATCH / 2)
#define PCPCACHE_DEFAULT_COLD_HIGH	(2 * PCPCACHE_DEFAULT_BATCH)
/*
 * high=auto: from the fixed default, as the kernel's high_min is its old
 * high, up to three times it, so that a CPU decays back (an eighth a
 * tick) within 9 decay ticks.
 */
#define PCPCACHE_DEFAULT_HIGH_MIN	PCPCACHE_DEFAULT_HIGH
#define PCPCACHE_DEFAULT_HIGH_MAX	(3 * PCPCACHE_DEFAULT_HIGH)

/*
 * barn mode: a node's barn keeps up to barn_full full magazines of each
 * order, four of each order per node by default. It keeps no empty ones:
 * an empty magazine of pages holds nothing.
 */
#define PCPCACHE_BARN_MAX		32
/* the orders a magazine keeps: PCPCACHE_NR_ORDERS of magazine.h */
#define PCPCACHE_NR_BARN_ORDERS		4
#define PCPCACHE_DEFAULT_BARN_FULL	4

/* The word written to high (and in config) for auto-tuning. */
#define PCPCACHE_HIGH_AUTO		"auto"

/*
 * A drain walks batch pages with interrupts off; keep that walk short
 * whatever the size of the machine.
 */
#define PCPCACHE_MAX_BATCH		4096

/* All online CPUs together never hold more than 1/PCPCACHE_RAM_SHARE of RAM. */
#define PCPCACHE_RAM_SHARE		4

const char *pcpcache_mode_name(enum pcpcache_mode mode);
int pcpcache_mode_parse(const char *buf, size_t len);
size_t pcpcache_mode_format(enum pcpcache_mode cur, char *buf, size_t size);
const char *pcpcache_knob_name(enum pcpcache_knob knob);
unsigned int *pcpcache_knob(struct pcpcache_config *cfg,
			    enum pcpcache_knob knob);
unsigned long pcpcache_max_per_cpu(unsigned long ram_pages,
				   unsigned int nr_cpus);
const char *pcpcache_config_check(const struct pcpcache_config *cfg,
				  unsigned long max_per_cpu);
bool pcpcache_config_fit(struct pcpcache_config *cfg,
			 unsigned long max_per_cpu);
int pcpcache_config_parse(struct pcpcache_config *cfg, const char *buf,
			  size_t len);
/* every key of pcpcache_config_parse_keys()'s @seen: the knobs and mode */
#define PCPCACHE_ALL_KEYS	((1U << (PCPCACHE_NR_KNOBS + 1)) - 1)
int pcpcache_config_parse_keys(struct pcpcache_config *cfg, const char *buf,
			       size_t len, unsigned int *seen);
int pcpcache_parse_high(struct pcpcache_config *cfg, const char *s, size_t len);

/* Field by field: a struct's padding is nobody's business. */
static inline bool pcpcache_config_same(const struct pcpcache_config *a,
					const struct pcpcache_config *b)
{
	return a->mode == b->mode && a->batch == b->batch &&
	       a->high == b->high && a->cold_batch == b->cold_batch &&
	       a->cold_high == b->cold_high && a->high_min == b->high_min &&
	       a->high_max == b->high_max && a->high_auto == b->high_auto &&
	       a->barn_full == b->barn_full;
}

#endif /* _PCPCACHE_POLICY_H */
