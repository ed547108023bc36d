// SPDX-License-Identifier: GPL-2.0
/*
 * Memory going offline takes pcpcache's cached pages of it back: the memory
 * notifier drains the magazines, as offline_pages() drains the kernel's own
 * lists.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pcpcache_reclaim.h"

#define MEMORY_DIR	"/sys/devices/system/memory"

/*
 * Blocks tried a run. A block the kernel's own pages keep online is lost
 * to the runs after it in the same boot (the other mode, the other
 * design: four runs in make check's guest, whose DIMM has eight blocks);
 * one that goes offline again is there for the next.
 */
#define BLOCKS_A_RUN	2

/* Put the numbers of the memory blocks in @state into @blocks; how many. */
static int memory_blocks(const char *state, int *blocks, int max)
{
	char cmd[160], line[64];
	int nr = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd),
		 "grep -lx %s " MEMORY_DIR "/memory*/state 2>/dev/null | sed 's|.*/memory\\([0-9]*\\)/state|\\1|'",
		 state);
	f = popen(cmd, "r");
	if (!f)
		return 0;
	while (nr < max && fgets(line, sizeof(line), f))
		blocks[nr++] = atoi(line);
	pclose(f);
	return nr;
}

static int set_block_state(int block, const char *state)
{
	char path[96];

	snprintf(path, sizeof(path), MEMORY_DIR "/memory%d/state", block);
	return pcp_write_file(path, state);
}

/*
 * The pfn of the page offline_pages() dumped as unmovable in the kernel
 * log records @kmsg has not read yet (the last one), or 0. Read here,
 * without starting a process: a process's stack and page tables come and
 * go in the memory being tried.
 */
static unsigned long unmovable_pfn(int kmsg)
{
	unsigned long pfn = 0, seen = 0;
	char rec[1024], *at;
	ssize_t n;

	for (;;) {
		n = read(kmsg, rec, sizeof(rec) - 1);
		/* EPIPE: records were overwritten before we read them */
		if (n < 0 && errno == EPIPE)
			continue;
		if (n <= 0)
			break;
		rec[n] = '\0';
		at = strstr(rec, " pfn:0x");
		if (at)
			sscanf(at, " pfn:0x%lx", &seen);
		if (strstr(rec, "page dumped because: unmovable page"))
			pfn = seen;
	}
	return pfn;
}

/*
 * Try to take memory block @block offline, as a user would: a failure
 * with EBUSY is retried after the pages on their way somewhere have
 * arrived (the last block's drain, pages in a CPU's LRU batch, which
 * compaction drains first). On return, *@pfn is the page offline_pages()
 * dumped as unmovable on the last try and *@again says whether the try
 * before it dumped the same page, or 0 and false.
 */
static int offline_block(int kmsg, int block, unsigned long *pfn, bool *again)
{
	unsigned long last = 0;
	int err = 0, try;

	*pfn = 0;
	*again = false;
	for (try = 0; try < 3; try++) {
		if (try) {
			pcp_write_file("/proc/sys/vm/compact_memory", "1");
			sleep(1);
		}
		unmovable_pfn(kmsg);
		err = set_block_state(block, "offline");
		if (err != -EBUSY)
			break;
		last = *pfn;
		*pfn = unmovable_pfn(kmsg);
		*again = *pfn && *pfn == last;
	}
	return err;
}

/*
 * Memory going offline: a block of hotplugged memory is onlined in
 * ZONE_NORMAL, every magazine is filled (filling takes pageblocks of it
 * for unmovable allocations), and it must go offline again, which it
 * cannot while the cache holds pages of it with a reference: the memory
 * notifier drains the magazines, as offline_pages() drains the kernel's
 * own lists. The kernel's own allocations (a slab, a task's stack) may
 * land there meanwhile and keep a block online whatever pcpcache does. A
 * page with a reference for a moment (one being freed, by pcpcache or
 * anyone, or waiting in a CPU's LRU batch) fails one try too, so only a
 * page that kept two tries in a row from succeeding is looked at: if the
 * block goes offline once pcpcache is drained, the page was pcpcache's,
 * and the test fails; if another page keeps it online then, nothing is
 * told. (/proc/kpagecount cannot tell: it counts mappings, not
 * references.) Isolation also fails, without a dump, for reasons no
 * reference is behind; such a block is left out too.
 */
TEST_F_TIMEOUT(reclaim, memory_offline_gives_cached_pages_back, 900)
{
	int blocks[BLOCKS_A_RUN], nr, i, err, kmsg, offlined = 0;
	unsigned long pfn, now;
	bool again;

	nr = memory_blocks("offline", blocks, BLOCKS_A_RUN);
	if (!nr)
		SKIP(return, "needs hotpluggable memory, offline (tools/vm/run --dimm 1024)");
	for (i = 0; i < nr; i++)
		ASSERT_EQ(0, set_block_state(blocks[i], "online_kernel")) {
			TH_LOG("memory%d cannot go online", blocks[i]);
		}
	ASSERT_LT(0, pcp_fill_to_limit(self->fd, variant->split));
	ASSERT_BOOKS_BALANCE();
	TH_LOG("%lld pages cached with %d blocks of hotplugged memory online",
	       pcp_stat(&self->st, "cached"), nr);

	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, kmsg);
	for (i = 0; i < nr; i++) {
		err = offline_block(kmsg, blocks[i], &pfn, &again);
		if (!err) {
			offlined++;
			continue;
		}
		if (!again) {
			TH_LOG("memory%d: %s, no page kept two tries from succeeding",
			       blocks[i], strerror(-err));
			continue;
		}
		ASSERT_EQ(0, pcp_write("drain", "1"));
		sleep(1);
		unmovable_pfn(kmsg);
		err = set_block_state(blocks[i], "offline");
		/* it went offline once pcpcache was drained: the page was ours */
		ASSERT_NE(0, err) {
			TH_LOG("memory%d was kept online by pfn %#lx until pcpcache was drained",
			       blocks[i], pfn);
		}
		/*
		 * Another page keeping it online now tells nothing: a run
		 * here found two slab pages of the kernel's, one after the
		 * other, where isolation stopped first
		 */
		now = unmovable_pfn(kmsg);
		if (now == pfn)
			TH_LOG("memory%d is kept online by pfn %#lx, not pcpcache's",
			       blocks[i], pfn);
		else
			TH_LOG("memory%d is kept online by pfn %#lx after the drain, by pfn %#lx before: neither is told to be pcpcache's",
			       blocks[i], now, pfn);
	}
	close(kmsg);
	/* the notifier's drains give their pages back unwaited */
	pcp_wait_books_balance(self->why, sizeof(self->why));
	ASSERT_BOOKS_BALANCE();
	EXPECT_EQ(0, pcp_stat(&self->st, "held"));
	if (!offlined)
		SKIP(return, "the kernel's own allocations kept every hotplugged block online");
	EXPECT_LE(1, pcp_stat(&self->st, "memory_offline"));
}

TEST_HARNESS_MAIN
