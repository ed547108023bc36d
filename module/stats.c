// SPDX-License-Identifier: GPL-2.0
/*
 * pcpcache counters and their readers, the files "stats" (the sums) and
 * "stats_percpu" (each CPU's), and the sum of any count of each CPU.
 *
 * Writers only ever add to their own CPU's block; readers sum every
 * possible CPU's block, so a count survives its CPU going offline.
 */
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/topology.h>
#include <linux/time64.h>

#include "pcpcache.h"

DEFINE_PER_CPU_ALIGNED(struct pcpcache_stats, pcpcache_stats);

static_assert(PCPCACHE_NR_ORDERS == 4, "a name per order below");

static const char * const pcpcache_stat_names[PCPCACHE_NR_STATS] = {
	[PCPCACHE_ALLOC]	= "alloc",
	[PCPCACHE_ALLOC_HIT]	= "alloc_hit",
	[PCPCACHE_ALLOC_MISS]	= "alloc_miss",
	[PCPCACHE_ALLOC_COLD]	= "alloc_cold",
	[PCPCACHE_ALLOC_FAIL]	= "alloc_fail",
	[PCPCACHE_ALLOC_ZEROED]	= "alloc_zeroed",
	[PCPCACHE_FREE]		= "free",
	[PCPCACHE_FREE_COLD]	= "free_cold",
	[PCPCACHE_REFILL]	= "refill",
	[PCPCACHE_REFILL_PAGES]	= "refill_pages",
	[PCPCACHE_DRAIN]	= "drain",
	[PCPCACHE_DRAIN_PAGES]	= "drain_pages",
	[PCPCACHE_BUDDY_ALLOC]	= "buddy_alloc",
	[PCPCACHE_BUDDY_FREE]	= "buddy_free",
	[PCPCACHE_MODE_SWITCHES] = "mode_switches",
	[PCPCACHE_REMOTE_NODE]	= "remote_node",
	[PCPCACHE_SHRINK]	= "shrink",
	[PCPCACHE_SHRINK_PAGES]	= "shrink_pages",
	[PCPCACHE_FAULT_INJECTED] = "fault_injected",
	[PCPCACHE_ALLOC_POLICY]	= "alloc_policy",
	[PCPCACHE_REFUSED_HWPOISON] = "refused_hwpoison",
	[PCPCACHE_REFUSED_PFMEMALLOC] = "refused_pfmemalloc",
	[PCPCACHE_REFUSED_COMPOUND] = "refused_compound",
	[PCPCACHE_REFUSED_BLOCK] = "refused_block",
	[PCPCACHE_REFUSED_OTHER] = "refused_other",
	[PCPCACHE_SHRINK_SKIPPED] = "shrink_skipped",
	[PCPCACHE_MEMORY_OFFLINE] = "memory_offline",
	[PCPCACHE_OOM]		= "oom",
	[PCPCACHE_OOM_PAGES]	= "oom_pages",
	[PCPCACHE_OOM_LATE]	= "oom_late",
	[PCPCACHE_HIGH_GREW]	= "high_grew",
	[PCPCACHE_HIGH_DECAYED]	= "high_decayed",
	[PCPCACHE_HIGH_CUT]	= "high_cut",
	[PCPCACHE_REMOTE_FREES]	= "remote_frees",
	[PCPCACHE_REMOTE_ABSORBED] = "remote_absorbed",
	[PCPCACHE_REMOTE_OVERFLOW] = "remote_overflow",
	[PCPCACHE_TRYLOCK_FAIL_TASK] = "trylock_fail_task",
	[PCPCACHE_TRYLOCK_FAIL_SOFTIRQ] = "trylock_fail_softirq",
	[PCPCACHE_TRYLOCK_FAIL_HARDIRQ] = "trylock_fail_hardirq",
	[PCPCACHE_TRYLOCK_FAIL_NMI] = "trylock_fail_nmi",
	[PCPCACHE_NOLOCK_FAIL]	= "nolock_fail",
	[PCPCACHE_NOLOCK_DEFERRED] = "nolock_deferred",
	[PCPCACHE_BLOCK_REFILLS] = "block_refills",
	[PCPCACHE_BLOCK_WHOLE]	= "block_whole",
	[PCPCACHE_BLOCK_WHOLE_PAGES] = "block_whole_pages",
	[PCPCACHE_BLOCK_PIECES]	= "block_pieces",
	[PCPCACHE_BARN_SWAPS]	= "barn_swaps",
	[PCPCACHE_BARN_TOOK_FULL] = "barn_took_full",
	[PCPCACHE_BARN_GAVE_FULL] = "barn_gave_full",
	[PCPCACHE_BARN_FLUSHES]	= "barn_flushes",
	[PCPCACHE_BARN_BUSY]	= "barn_busy",
	[PCPCACHE_BARN_TRIMMED]	= "barn_trimmed",
	[PCPCACHE_ORDER_HIT]	 = "order0_hit",	"order1_hit",
				   "order2_hit",	"order3_hit",
	[PCPCACHE_ORDER_MISS]	 = "order0_miss",	"order1_miss",
				   "order2_miss",	"order3_miss",
	[PCPCACHE_ORDER_FREE]	 = "order0_free",	"order1_free",
				   "order2_free",	"order3_free",
	[PCPCACHE_ORDER_REFILL]	 = "order0_refill",	"order1_refill",
				   "order2_refill",	"order3_refill",
};

/* The longest shrinker scan since load, in ns: a maximum, not a sum. */
static atomic64_t pcpcache_shrink_longest = ATOMIC64_INIT(0);

/**
 * pcpcache_note_shrink_time - remember how long a shrinker scan took
 * @ns: the scan's duration
 */
void pcpcache_note_shrink_time(s64 ns)
{
	s64 old = atomic64_read(&pcpcache_shrink_longest);

	while (ns > old && !atomic64_try_cmpxchg(&pcpcache_shrink_longest, &old, ns))
		;
}

/*
 * Every counter of one CPU. Three are derived, so that a hit and a free
 * each update one counter: alloc_hit from orderN_hit, free from orderN_free
 * and the pages of larger blocks (the only ones counted as free), alloc
 * from alloc_hit + alloc_miss.
 */
static void pcpcache_stats_cpu(int cpu, unsigned long val[PCPCACHE_NR_STATS])
{
	const struct pcpcache_stats *s = per_cpu_ptr(&pcpcache_stats, cpu);
	unsigned int order;
	int i;

	for (i = 0; i < PCPCACHE_NR_STATS; i++)
		val[i] = READ_ONCE(s->count[i]);
	for (order = 0; order < PCPCACHE_NR_ORDERS; order++) {
		val[PCPCACHE_ALLOC_HIT] += val[PCPCACHE_ORDER_HIT + order] << order;
		val[PCPCACHE_FREE] += val[PCPCACHE_ORDER_FREE + order] << order;
	}
	val[PCPCACHE_ALLOC] = val[PCPCACHE_ALLOC_HIT] + val[PCPCACHE_ALLOC_MISS];
}

/**
 * pcpcache_stats_sum - every counter, summed over all possible CPUs
 * @sum: where to put them
 */
void pcpcache_stats_sum(unsigned long sum[PCPCACHE_NR_STATS])
{
	unsigned long val[PCPCACHE_NR_STATS];
	int cpu, i;

	memset(sum, 0, sizeof(unsigned long) * PCPCACHE_NR_STATS);
	for_each_possible_cpu(cpu) {
		pcpcache_stats_cpu(cpu, val);
		for (i = 0; i < PCPCACHE_NR_STATS; i++)
			sum[i] += val[i];
	}
}

/**
 * pcpcache_stat_sum - one counter summed over all CPUs
 * @item: which, not one of the derived (pcpcache_stats_cpu())
 *
 * Return: its sum now, read without stopping anyone from counting.
 */
unsigned long pcpcache_stat_sum(enum pcpcache_stat item)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu(pcpcache_stats, cpu).count[item]);
	return sum;
}

/**
 * pcpcache_sum_cpus - a count of every possible CPU of a node, summed
 * @nid: the node, or NUMA_NO_NODE for all
 * @count: the count of one CPU, read without its locks
 *
 * Return: the sum.
 */
unsigned long pcpcache_sum_cpus(int nid, unsigned int (*count)(int cpu))
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		if (nid == NUMA_NO_NODE || cpu_to_mem(cpu) == nid)
			sum += count(cpu);
	return sum;
}

/**
 * pcpcache_stats_format - the counters, one "name value" per line
 * @buf: where to write them, NUL-terminated
 * @size: the size of @buf; a page holds them with room to spare
 * @sum: the counters, pcpcache_stats_sum()
 * @books: the pages the other files count, read by the caller after @sum
 *
 * Then seven more values. Five are derived: cached, the pages in all
 * magazines and barns; transit, the pages freed to another CPU's transit
 * list (remote and blocks modes) and not yet absorbed; blocks, the pages
 * at home in the CPUs' blocks (blocks mode); barn, the part of cached in
 * the nodes' barns (barn mode); and held, the pages handed out and not
 * yet freed. Whenever no operation is in flight, buddy_alloc - buddy_free
 * == cached + transit + blocks + held. held is signed: the sum is not a
 * snapshot, and a CPU read early may miss an allocation whose page a CPU
 * read later has already freed. The sixth, user_held, is the part of them
 * userspace holds or has reserved through user files and mappings of
 * /dev/pcpcache (charged to their openers' pinned_vm, user.c). The
 * seventh, shrink_longest_us, is the longest shrinker scan since the
 * module was loaded.
 *
 * Return: the length written.
 */
size_t pcpcache_stats_format(char *buf, size_t size,
			     const unsigned long sum[PCPCACHE_NR_STATS],
			     const struct pcpcache_books *books)
{
	size_t len = 0;
	int i;

	for (i = 0; i < PCPCACHE_NR_STATS; i++)
		len += scnprintf(buf + len, size - len, "%s %lu\n",
				 pcpcache_stat_names[i], sum[i]);
	len += scnprintf(buf + len, size - len, "cached %lu\n",
			 books->cached);
	len += scnprintf(buf + len, size - len, "transit %lu\n",
			 books->transit);
	len += scnprintf(buf + len, size - len, "blocks %lu\n",
			 books->blocks);
	len += scnprintf(buf + len, size - len, "barn %lu\n",
			 books->barn);
	len += scnprintf(buf + len, size - len, "held %ld\n",
			 (long)(sum[PCPCACHE_ALLOC] - sum[PCPCACHE_FREE]));
	len += scnprintf(buf + len, size - len, "user_held %lu\n",
			 books->user_held);
	len += scnprintf(buf + len, size - len, "shrink_longest_us %llu\n",
			 div_u64(atomic64_read(&pcpcache_shrink_longest),
				 NSEC_PER_USEC));
	return len;
}

/* The longest line of stats_percpu: a CPU and every count, with spaces. */
#define PCPCACHE_PERCPU_LINE_MAX	(12 + PCPCACHE_NR_STATS * 21)

/**
 * pcpcache_stats_percpu_size - the room pcpcache_stats_percpu_format() needs
 *
 * Return: bytes for the header and a line per possible CPU.
 */
size_t pcpcache_stats_percpu_size(void)
{
	return (num_possible_cpus() + 1) * PCPCACHE_PERCPU_LINE_MAX;
}

/**
 * pcpcache_stats_percpu_format - every counter of every possible CPU
 * @buf: where to write them, NUL-terminated
 * @size: the size of @buf, pcpcache_stats_percpu_size()
 *
 * A header line, "cpu" and the counters' names in the order of stats,
 * then one line per possible CPU: its number and its counts, separated
 * by single spaces. Each column adds up to the line of stats with its
 * name. A count is made on the CPU that ran the code, which is not always
 * the CPU whose magazine it was about: another CPU drains, shrinks and
 * reconfigures a magazine under lock=spin, and empties that of a CPU that
 * died. The derived values of stats (cached, transit, blocks, held, user_held) and
 * shrink_longest_us are not counters, and are not here.
 *
 * Return: the length written.
 */
size_t pcpcache_stats_percpu_format(char *buf, size_t size)
{
	unsigned long val[PCPCACHE_NR_STATS];
	size_t len;
	int cpu, i;

	len = scnprintf(buf, size, "cpu");
	for (i = 0; i < PCPCACHE_NR_STATS; i++)
		len += scnprintf(buf + len, size - len, " %s",
				 pcpcache_stat_names[i]);
	len += scnprintf(buf + len, size - len, "\n");
	for_each_possible_cpu(cpu) {
		pcpcache_stats_cpu(cpu, val);
		len += scnprintf(buf + len, size - len, "%d", cpu);
		for (i = 0; i < PCPCACHE_NR_STATS; i++)
			len += scnprintf(buf + len, size - len, " %lu", val[i]);
		len += scnprintf(buf + len, size - len, "\n");
	}
	return len;
}
