// SPDX-License-Identifier: GPL-2.0
/*
 * Memory going offline takes pcpcache's cached pages of it back: the memory
 * notifier drains the magazines, as offline_pages() drains the kernel's own
 * lists; and it ends, whatever a CPU that the drain has not reached yet
 * allocates meanwhile.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pcpcache_reclaim.h"

#define MEMORY_DIR	"/sys/devices/system/memory"

/*
 * Blocks onlined at a time. A block the kernel's own pages keep online is
 * tried again at the end of the run, once those pages had time to go
 * (page tables and stacks of processes that ended); one that stays online
 * is lost to the runs after it in the same boot (the other modes, the
 * other design: sixteen runs in make check's guest, whose DIMM has eight
 * blocks). A larger DIMM leaves more memory online for the safety test's
 * noreclaim case to take and zero.
 */
#define BLOCKS_A_RUN	2
/*
 * Pairs tried before a run gives up: in a fresh boot the first pair was
 * seen kept online, each try by another transient page of the kernel's.
 */
#define PAIRS_A_RUN	3

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

static bool block_online(int block)
{
	char path[96], state[32] = "";

	snprintf(path, sizeof(path), MEMORY_DIR "/memory%d/state", block);
	return pcp_read_file(path, state, sizeof(state)) > 0 &&
	       !strncmp(state, "online", 6);
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
 * Issue 40's defect 4: a refill of blocks mode freezes the pages of a new
 * block, which look free to isolation, and may be preempted before the
 * block is on its CPU's lists; memory going offline then isolates the
 * block's pageblock and drains every CPU before the block is there to
 * drain. Kept after that, its pages held offline_pages() retrying until a
 * signal, with the hotplug locks held. The test module makes it happen
 * (pcpcache's delay_block_setup stands in for the preemption, the module
 * takes every other free pageblock so that the block is of this memory,
 * onlined before pcpcache loads: blocks mode's table spans the memory
 * online at its load) and asserts that the write of "offline" ends, done
 * or EBUSY (the refill's pages refused, logged).
 */
FIXTURE(offline_race) {
	struct pcp_stats st;
	char why[256];
	int block;
};

/* The skips are the test's: 6.1's harness runs a test whose setup skipped. */
FIXTURE_SETUP(offline_race)
{
	self->block = -1;
}

/*
 * What an offline_race case needs: the module and its test module, two
 * CPUs if @two_cpus, and a block of hotpluggable memory offline, found
 * into *@block (-1 when none). NULL, or why the case cannot run.
 */
static const char *offline_race_needs(int *block, bool two_cpus)
{
	const char *why = pcp_skip_reason();

	if (why)
		return why;
	if (two_cpus && pcp_nr_cpus() < 2)
		return "needs two CPUs";
	if (memory_blocks("offline", block, 1) < 1) {
		*block = -1;
		return "needs a block of hotpluggable memory offline (tools/vm/run --dimm 1024; the other tests keep those the kernel's pages hold online)";
	}
	return NULL;
}

FIXTURE_TEARDOWN(offline_race)
{
	pcp_run("rmmod pcpcache_safety_test 2>/dev/null");
	if (pcp_exists(PCP_SYSFS)) {
		pcp_write("delay_block_setup", "0");
		pcp_run("rmmod pcpcache");
	}
	if (self->block >= 0 && block_online(self->block))
		set_block_state(self->block, "offline");
	PCP_FAILURE_WINS_OVER_SKIP();
}

/*
 * The safety test module's parameters for memory block @block: its number,
 * first pfn and pages, into @extra; -1 when the block size cannot be read.
 */
static int offline_race_params(int block, char *extra, size_t len)
{
	char size[32] = "";
	unsigned long pages;

	if (pcp_read_file(MEMORY_DIR "/block_size_bytes", size, sizeof(size)) <= 0)
		return -1;
	pages = strtoul(size, NULL, 16) / sysconf(_SC_PAGESIZE);
	if (!pages)
		return -1;
	snprintf(extra, len, "offline_block=%d offline_pfn=%lu offline_nr=%lu",
		 block, block * pages, pages);
	return 0;
}

/* The purger's rounds of barn_rounds(): a burst of four default magazines */
#define BARN_ROUNDS	20
#define BARN_BURST	256

/*
 * BARN_ROUNDS rounds of allocating BARN_BURST pages on @cpu through @fd
 * and freeing them there, in barn mode: main and spare fill, full
 * magazines go to the barn and come back from it. Into @took and @gave,
 * the full magazines the CPUs took from the barns and gave them, into
 * @flushed main magazines given to the buddy allocator; 0 or -1.
 */
static int barn_rounds(int fd, int cpu, long long *took, long long *gave,
		       long long *flushed)
{
	struct pcp_stats before, after;
	int i;

	if (pcp_pin(cpu) || pcp_read_stats(&before))
		return -1;
	for (i = 0; i < BARN_ROUNDS; i++)
		if (pcp_alloc(fd, BARN_BURST, 0, NULL) ||
		    pcp_free(fd, BARN_BURST, 0, NULL))
			return -1;
	if (pcp_read_stats(&after))
		return -1;
	*took = pcp_stat(&after, "barn_took_full") - pcp_stat(&before, "barn_took_full");
	*gave = pcp_stat(&after, "barn_gave_full") - pcp_stat(&before, "barn_gave_full");
	*flushed = pcp_stat(&after, "barn_flushes") - pcp_stat(&before, "barn_flushes");
	return 0;
}

/* barn_rounds() on the second CPU; each exchange at least once */
#define ASSERT_BARN_EXCHANGES(when) do {				\
	long long took_, gave_, flushed_;				\
									\
	ASSERT_EQ(0, barn_rounds(fd, 1, &took_, &gave_, &flushed_));	\
	TH_LOG("%s: %lld full magazines taken from the barn, %lld given, %lld flushed", \
	       when, took_, gave_, flushed_);				\
	EXPECT_LT(0, took_);						\
	EXPECT_LT(0, gave_);						\
} while (0)

/*
 * Issue 50's defect 1: a memory notifier ahead of pcpcache's refuses an
 * offline (virtio-mem does while its device goes), and offline_pages()
 * sends MEM_CANCEL_OFFLINE to every notifier: pcpcache's sees an offline
 * end that it never saw begin. Counted as one, it left the barns closed
 * for good (no magazine taken or given, every full main flushed) and open
 * during every later offline. The test module refuses one offline of a
 * block onlined movable; barn mode must then exchange magazines with its
 * barns as before, and after a later offline of the block, which must
 * end, done or EBUSY (the kernel's own pages may keep it online).
 */
TEST_F_TIMEOUT(offline_race, barn_exchanges_go_on_after_a_refused_offline, 300)
{
	const char *why;
	char extra[128];
	int fd, err;

	why = offline_race_needs(&self->block, true);
	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, set_block_state(self->block, "online_movable"));
	ASSERT_EQ(0, pcp_reload("mode=barn"));
	ASSERT_EQ(0, offline_race_params(self->block, extra, sizeof(extra)));
	fd = pcp_open_user();
	ASSERT_LE(0, fd);
	ASSERT_BARN_EXCHANGES("before any offline");
	EXPECT_EQ(0, pcp_run_safety_case("memory_offline", "offline_refused", extra));
	ASSERT_BARN_EXCHANGES("after the refused offline");
	err = set_block_state(self->block, "offline");
	EXPECT_TRUE(!err || err == -EBUSY) {
		TH_LOG("memory%d: the offline write failed: %s", self->block,
		       strerror(-err));
	}
	ASSERT_BARN_EXCHANGES(err ? "after an offline kept back" : "after an offline done");
	close(fd);
	pcp_wait_books_balance(self->why, sizeof(self->why));
	ASSERT_BOOKS_BALANCE();
}

/* Pages touched looking for one of the block: 16 MiB */
#define HOLD_TRIES	4096

/*
 * Hold a page of this process's in pages [@start, @start + @nr) with a
 * reference migration cannot take: touched until one lands there (a block
 * onlined movable is the first anonymous memory comes from), then spliced
 * into a pipe, which keeps it until @pipefd is closed; offline_pages()
 * then retries until a signal. 0, or -1 with nothing held.
 */
static int hold_page_in(unsigned long start, unsigned long nr, int *pipefd)
{
	long psize = sysconf(_SC_PAGESIZE);
	unsigned long pfn;
	struct iovec iov;
	uint64_t entry;
	char *area;
	int fd, i;

	area = mmap(NULL, HOLD_TRIES * psize, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED)
		return -1;
	fd = open("/proc/self/pagemap", O_RDONLY);
	for (i = 0; fd >= 0 && i < HOLD_TRIES; i++) {
		area[i * psize] = 1;
		if (pread(fd, &entry, sizeof(entry),
			  ((unsigned long)area / psize + i) * sizeof(entry)) != sizeof(entry))
			break;
		pfn = entry & ((1ULL << 55) - 1);
		if ((entry >> 63) && pfn >= start && pfn < start + nr)
			break;
	}
	if (fd >= 0)
		close(fd);
	if (fd < 0 || i == HOLD_TRIES || pipe(pipefd)) {
		munmap(area, HOLD_TRIES * psize);
		return -1;
	}
	iov.iov_base = area + i * psize;
	iov.iov_len = psize;
	if (vmsplice(pipefd[1], &iov, 1, 0) != psize) {
		close(pipefd[0]);
		close(pipefd[1]);
		munmap(area, HOLD_TRIES * psize);
		return -1;
	}
	/* the pipe keeps its reference; the rest may go */
	munmap(area, HOLD_TRIES * psize);
	return 0;
}

/* Whether child @pid is still running after @tenths tenths of a second. */
static bool still_running(pid_t pid, int tenths, int *status)
{
	while (tenths-- > 0) {
		if (waitpid(pid, status, WNOHANG) == pid)
			return false;
		usleep(100000);
	}
	return true;
}

/*
 * Issue 50's defect 1, the other way in: pcpcache loaded while an
 * offline retries sees its MEM_OFFLINE without the MEM_GOING_OFFLINE sent
 * before the load. A page of a block onlined movable is held in a pipe,
 * so that the block's offline retries migrating it; pcpcache is loaded in
 * barn mode meanwhile, the pipe closed, and the offline must end. Barn
 * mode must then exchange magazines with its barns.
 */
TEST_F_TIMEOUT(offline_race, barn_exchanges_go_on_after_a_load_during_an_offline, 300)
{
	const char *why;
	int fd, pipefd[2], status = -1, loaded = -1;
	char extra[128], *pfns;
	unsigned long start, nr;
	pid_t writer, loader;
	bool retried;

	why = offline_race_needs(&self->block, true);
	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, offline_race_params(self->block, extra, sizeof(extra)));
	pfns = strstr(extra, "offline_pfn=");
	ASSERT_EQ(2, sscanf(pfns, "offline_pfn=%lu offline_nr=%lu", &start, &nr));
	if (pcp_exists(PCP_SYSFS))
		ASSERT_EQ(0, pcp_run("rmmod pcpcache"));
	ASSERT_EQ(0, set_block_state(self->block, "online_movable"));
	ASSERT_EQ(0, hold_page_in(start, nr, pipefd)) {
		TH_LOG("no page of memory%d could be held", self->block);
	}
	writer = fork();
	if (!writer) {
		close(pipefd[0]);
		close(pipefd[1]);
		_exit(-set_block_state(self->block, "offline"));
	}
	retried = writer > 0 && still_running(writer, 20, &status);
	if (retried) {
		loader = fork();
		if (!loader)
			_exit(pcp_reload("mode=barn") ? 1 : 0);
		if (loader > 0 && !still_running(loader, 300, &loaded))
			loaded = WIFEXITED(loaded) ? WEXITSTATUS(loaded) : -1;
		else
			loaded = -1;
	}
	close(pipefd[0]);
	close(pipefd[1]);
	if (writer > 0 && still_running(writer, 600, &status)) {
		/* a fatal signal ends the retries */
		kill(writer, SIGKILL);
		waitpid(writer, &status, 0);
	}
	if (retried && loaded)
		waitpid(loader, NULL, 0);
	ASSERT_LT(0, writer);
	ASSERT_TRUE(retried) {
		TH_LOG("memory%d: the offline did not retry on the held page (status %#x)",
		       self->block, status);
	}
	ASSERT_EQ(0, loaded) {
		TH_LOG("pcpcache did not load within 30 s during the offline");
	}
	EXPECT_TRUE(WIFEXITED(status) && (!WEXITSTATUS(status) ||
					  WEXITSTATUS(status) == EBUSY)) {
		TH_LOG("memory%d: the offline write did not end once the page was let go (status %#x)",
		       self->block, status);
	}
	fd = pcp_open_user();
	ASSERT_LE(0, fd);
	ASSERT_BARN_EXCHANGES("after a load during an offline");
	close(fd);
	pcp_wait_books_balance(self->why, sizeof(self->why));
	ASSERT_BOOKS_BALANCE();
}

TEST_F_TIMEOUT(offline_race, memory_offline_ends_after_a_block_split_during_it, 300)
{
	const char *why;
	long long refused, refills;
	char extra[128];

	why = offline_race_needs(&self->block, true);
	if (why)
		SKIP(return, "%s", why);
	/* before the load: blocks mode's table spans the memory online then */
	ASSERT_EQ(0, set_block_state(self->block, "online_kernel"));
	ASSERT_EQ(0, pcp_reload("mode=blocks"));
	ASSERT_EQ(0, offline_race_params(self->block, extra, sizeof(extra)));
	ASSERT_EQ(0, pcp_write("drain", "1"));
	ASSERT_EQ(0, pcp_read_stats(&self->st));
	refused = pcp_stat(&self->st, "refused_block");
	refills = pcp_stat(&self->st, "block_refills");
	ASSERT_EQ(0, pcp_write("delay_block_setup", "1500"));
	EXPECT_EQ(0, pcp_run_safety_case("memory_offline", "blocks_offline_race", extra));
	ASSERT_EQ(0, pcp_write("delay_block_setup", "0"));
	pcp_wait_books_balance(self->why, sizeof(self->why));
	ASSERT_BOOKS_BALANCE();
	refused = pcp_stat(&self->st, "refused_block") - refused;
	refills = pcp_stat(&self->st, "block_refills") - refills;
	TH_LOG("memory%d %s; %lld blocks split, %lld pages of them refused",
	       self->block, block_online(self->block) ?
	       "kept online by the kernel's own pages (EBUSY)" : "went offline",
	       refills, refused);
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
 * reference is behind; such a block is left out too. When the kernel's
 * pages kept both blocks online, another pair is tried.
 * In barn mode the barns, full after the fill, must be empty as soon as
 * an offline has begun: the notifier gives them back itself.
 */
TEST_F_TIMEOUT(reclaim, memory_offline_gives_cached_pages_back, 900)
{
	int blocks[BLOCKS_A_RUN * PAIRS_A_RUN], nr, i, err, kmsg, offlined = 0;
	int first, last = 0, tries;
	long long offlines;
	unsigned long pfn, now;
	bool again;

	nr = memory_blocks("offline", blocks, BLOCKS_A_RUN * PAIRS_A_RUN);
	if (!nr)
		SKIP(return, "needs hotpluggable memory, offline (tools/vm/run --dimm 1024)");
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, kmsg);
	/* a pair at a time, until a block went offline */
	for (first = 0; first < nr && !offlined; first = last) {
		last = first + BLOCKS_A_RUN < nr ? first + BLOCKS_A_RUN : nr;
		for (i = first; i < last; i++)
			ASSERT_EQ(0, set_block_state(blocks[i], "online_kernel")) {
				TH_LOG("memory%d cannot go online", blocks[i]);
			}
		ASSERT_LT(0, pcp_fill_to_limit(self->fd, variant->split));
		ASSERT_BOOKS_BALANCE();
		TH_LOG("%lld pages cached with %d blocks of hotplugged memory online, %lld in the barns",
		       pcp_stat(&self->st, "cached"), last,
		       pcp_stat(&self->st, "barn"));
		if (variant->barn)
			ASSERT_LT(0, pcp_stat(&self->st, "barn"));
		offlines = pcp_stat(&self->st, "memory_offline");

		for (i = first; i < last; i++) {
			err = offline_block(kmsg, blocks[i], &pfn, &again);
			/*
			 * The notifier gives the barns back at once, before
			 * the CPUs' drains it does not wait for: nothing
			 * filled them again since, the barns being closed
			 * until the offline ended and nothing running here.
			 */
			ASSERT_EQ(0, pcp_read_stats(&self->st));
			if (pcp_stat(&self->st, "memory_offline") > offlines)
				EXPECT_EQ(0, pcp_stat(&self->st, "barn")) {
					TH_LOG("memory%d: %lld pages in the barns after an offline began",
					       blocks[i], pcp_stat(&self->st, "barn"));
				}
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
			 * Another page keeping it online now tells nothing: a
			 * run here found two slab pages of the kernel's, one
			 * after the other, where isolation stopped first
			 */
			now = unmovable_pfn(kmsg);
			if (now == pfn)
				TH_LOG("memory%d is kept online by pfn %#lx, not pcpcache's",
				       blocks[i], pfn);
			else
				TH_LOG("memory%d is kept online by pfn %#lx after the drain, by pfn %#lx before: neither is told to be pcpcache's",
				       blocks[i], now, pfn);
		}
	}
	close(kmsg);
	/* the notifier's drains give their pages back unwaited */
	pcp_wait_books_balance(self->why, sizeof(self->why));
	ASSERT_BOOKS_BALANCE();
	EXPECT_EQ(0, pcp_stat(&self->st, "held"));
	EXPECT_LE(offlined ? 1 : 0, pcp_stat(&self->st, "memory_offline"));
	/* the blocks kept online, for the runs after this one */
	for (i = 0; i < last; i++) {
		for (tries = 0; tries < 3 && block_online(blocks[i]); tries++) {
			if (tries)
				sleep(1);
			set_block_state(blocks[i], "offline");
		}
		if (block_online(blocks[i]))
			TH_LOG("memory%d stays online", blocks[i]);
	}
	if (!offlined)
		SKIP(return, "the kernel's own allocations kept every hotplugged block online");
}

/*
 * A SCHED_FIFO task on @cpu allocating a page every millisecond through
 * the user file, and holding them, until *@stop; busy in between, so
 * that work queued on its CPU runs only when RT throttling stops it. The
 * caller leaves @cpu first.
 */
static pid_t start_allocating_hog(int cpu, volatile int *stop)
{
	struct sched_param sp = { .sched_priority = 50 };
	struct timespec t0, t;
	pid_t pid;
	int fd;

	if (pcp_leave_cpu(cpu))
		return -1;
	pid = fork();
	if (pid)
		return pid;
	fd = pcp_open_user();
	if (fd < 0 || pcp_pin(cpu) || sched_setscheduler(0, SCHED_FIFO, &sp))
		_exit(1);
	while (!*stop) {
		/* ENOMEM or the user limit: go on asking */
		pcp_alloc(fd, 1, 0, NULL);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		do
			clock_gettime(CLOCK_MONOTONIC, &t);
		while ((t.tv_sec - t0.tv_sec) * 1000000000L + t.tv_nsec - t0.tv_nsec < 1000000);
	}
	close(fd);
	_exit(0);
}

/*
 * offline_pages() isolates the range, then the notifier drains every
 * magazine; under lock=local a CPU that a SCHED_FIFO task holds drains
 * only when RT throttling lets its work run. Until then a hit there must
 * not hand out a page of the isolated range: held by the user file, it
 * would keep test_pages_isolated() failing, and offline_pages() retrying
 * until a signal. So the write of "offline" ends, with success or EBUSY
 * (the kernel's own pages may keep the block online), within a bound
 * far above the one RT throttling's second gives it: 120 s.
 */
TEST_F_TIMEOUT(reclaim, memory_offline_ends_while_a_held_cpu_allocates, 300)
{
	static const char rt_runtime[] = "/proc/sys/kernel/sched_rt_runtime_us";
	int block, cpu = pcp_nr_cpus() - 1, status = -1, waited, err;
	char runtime[32] = "";
	volatile int *stop;
	pid_t hog, writer;

	if (memory_blocks("offline", &block, 1) < 1)
		SKIP(return, "needs hotpluggable memory, offline (tools/vm/run --dimm 1024)");
	if (cpu < 1)
		SKIP(return, "needs two CPUs");
	ASSERT_EQ(0, set_block_state(block, "online_kernel"));
	ASSERT_LT(0, pcp_fill_to_limit(self->fd, variant->split));
	ASSERT_LT(0, pcp_read_file(rt_runtime, runtime, sizeof(runtime)));
	ASSERT_EQ(0, pcp_write_file(rt_runtime, "950000"));
	stop = mmap(NULL, sizeof(*stop), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, stop);
	*stop = 0;
	hog = start_allocating_hog(cpu, stop);
	ASSERT_LT(0, hog);
	usleep(200000);

	writer = fork();
	if (!writer) {
		pcp_pin(0);
		err = set_block_state(block, "offline");
		_exit(!err ? 0 : err == -EBUSY ? 1 : 2);
	}
	for (waited = 0; writer > 0 && waited < 1200; waited++) {
		if (waitpid(writer, &status, WNOHANG) == writer)
			break;
		usleep(100000);
	}
	if (writer > 0 && waited == 1200) {
		/* what a user would do: a fatal signal ends the retries */
		kill(writer, SIGKILL);
		waitpid(writer, &status, 0);
	}
	*stop = 1;
	waitpid(hog, NULL, 0);
	pcp_write_file(rt_runtime, runtime);
	munmap((void *)stop, sizeof(*stop));
	set_block_state(block, "offline");

	ASSERT_LT(0, writer);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) <= 1) {
		TH_LOG("memory%d: the offline write %s (status %#x)", block,
		       WIFSIGNALED(status) ? "was still retrying after 120 s" :
		       "failed with neither success nor EBUSY", status);
	}
	ASSERT_EQ(0, pcp_read_stats(&self->st));
	TH_LOG("memory%d: offline %s; %lld pages of isolated blocks refused on a hit or a free",
	       block, WIFEXITED(status) && !WEXITSTATUS(status) ? "done" : "not done",
	       pcp_stat(&self->st, "refused_block"));
	pcp_wait_books_balance(self->why, sizeof(self->why));
	ASSERT_BOOKS_BALANCE();
}

/*
 * A page in use that isolation takes for movable (a driver's, marked as
 * zsmalloc marks its own) keeps no pageblock from being isolated, and
 * offline_pages() retries while it is in use. Freed through pcpcache
 * then, it must go to the buddy allocator, its pageblock being isolated:
 * kept in a magazine, it would hold the write of "offline" retrying until
 * a signal, as nothing drains the magazines again. The test module frees
 * such pages of a block during its offline and fails when the write has
 * not ended 30 s later (refused_block counts them, logged).
 */
TEST_F_TIMEOUT(offline_race, memory_offline_ends_after_pages_in_use_are_freed_during_it, 300)
{
	const char *why;
	long long refused;
	int err;
	char extra[128];

	why = offline_race_needs(&self->block, false);
	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, set_block_state(self->block, "online_kernel"));
	ASSERT_EQ(0, pcp_reload(NULL));
	ASSERT_EQ(0, offline_race_params(self->block, extra, sizeof(extra)));
	ASSERT_EQ(0, pcp_read_stats(&self->st));
	refused = pcp_stat(&self->st, "refused_block");
	err = pcp_run_safety_case("memory_offline", "movable_offline_race", extra);
	if (err == -EOPNOTSUPP)
		SKIP(return, "this kernel lets no module mark pages movable (6.13 on)");
	EXPECT_EQ(0, err);
	pcp_wait_books_balance(self->why, sizeof(self->why));
	ASSERT_BOOKS_BALANCE();
	TH_LOG("memory%d %s; %lld pages of isolated blocks refused", self->block,
	       block_online(self->block) ?
	       "kept online by the kernel's own pages (EBUSY)" : "went offline",
	       pcp_stat(&self->st, "refused_block") - refused);
}

TEST_HARNESS_MAIN
