// SPDX-License-Identifier: GPL-2.0
/*
 * pcpcache never makes the machine worse than the kernel's own per-CPU
 * lists would:
 *
 * - it never caches or hands out a page the buddy allocator would refuse:
 *   poisoned (in a barn's magazine too), from the emergency reserves,
 *   compound, shared, or CMA (the test module pcpcache_safety_test.ko,
 *   built from module/tests/ and installed next to this program, hands it
 *   each; the counters must say it refused the page and the books must
 *   balance);
 * - a caller whose memory policy excludes this CPU's node gets what
 *   alloc_page() would give it, not a page of this node, and a task bound
 *   to its node gets no other node's page when that node runs short;
 * - long requests stop on a signal: a huge PCPCACHE_IOC_CYCLE, and a
 *   benchmark run (^C); the user interface's limits have a ceiling;
 * - what userspace holds is a privilege (CAP_SYS_ADMIN), charged to the
 *   opener's pinned pages, within RLIMIT_MEMLOCK and its memory cgroup.
 *
 * That the bound on what each CPU may cache follows the online CPUs is
 * the program "bound", which the 128-possible-CPU lane runs alone.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/mempolicy.h>

#include "pcpcache_harness.h"
#include "pcpcache_stress.h"

#define SAFETY_TEST	"pcpcache_safety_test"

FIXTURE(safety) {
	char ko[PATH_MAX];
	struct pcp_stats st;
	char why[256];
	/* a memory cgroup made for the case: put back in the teardown */
	bool cg_made, cg_mounted, cg_enabled;
	struct pcp_cpu_hold hold;	/* a CPU a case holds, let go here */
};

FIXTURE_SETUP(safety)
{
	const char *why = pcp_skip_reason();
	char exe[PATH_MAX];
	ssize_t n;

	if (why)
		SKIP(return, "%s", why);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	ASSERT_LT(0, n);
	exe[n] = '\0';
	snprintf(self->ko, sizeof(self->ko), "%s/" SAFETY_TEST ".ko",
		 dirname(exe));
	ASSERT_EQ(0, pcp_reload(NULL));
}

static void cgroup_put_back(bool mounted, bool enabled);
static const char *case_cgroup;

FIXTURE_TEARDOWN(safety)
{
	pcp_release_cpu(&self->hold);
	case_cgroup = NULL;
	if (self->cg_made)
		cgroup_put_back(self->cg_mounted, self->cg_enabled);
	pcp_run("rmmod " SAFETY_TEST " 2>/dev/null");
	if (pcp_exists(PCP_SYSFS))
		pcp_run("rmmod pcpcache");
}

/*
 * Run one case of the test module; its insmod status (0: passed, 95
 * EOPNOTSUPP: cannot run here). The module fails its load on purpose when
 * the case fails, and says why in the kernel log. The guest's insmod
 * (busybox) loads a module whose init failed a second time, through
 * init_module() after finit_module(), and reports that second run: a case
 * that fails once and passes when run again (its page poisoned already, a
 * refill from where the first run left things) would pass. So the log
 * after a marker of our own must have no "FAILED" of the case either.
 */
static int run_case(const char *ko, const char *test, const char *extra)
{
	char join[160] = "";
	int status;

	if (!pcp_exists(ko))
		return -1;
	/* insmod in a cgroup of its own: the module runs memcg_kmem there */
	if (case_cgroup)
		snprintf(join, sizeof(join), "echo $$ > %s/cgroup.procs && exec ",
			 case_cgroup);
	pcp_run("echo 'safety: %s %d' > /dev/kmsg", test, getpid());
	status = pcp_run("%sinsmod %s test=%s %s 2>/tmp/safety.err", join, ko,
			 test, extra ? extra : "");
	if (status == 0)
		pcp_run("rmmod " SAFETY_TEST);
	if (status == 0 &&
	    pcp_run("dmesg | sed -n '/safety: %s %d$/,$p' | grep -q '" SAFETY_TEST ": %s: FAILED'",
		    test, getpid(), test) == 0)
		status = EIO;
	return status;
}

/*
 * The case must pass, the counter say it refused one page, and the books
 * balance. A poisoned page came from pcpcache and is never handed out
 * again (the module checks); the others came from alloc_page(), so they
 * count as freed and never allocated (held -1), and must not be cached:
 * the magazines were empty before.
 */
#define EXPECT_REFUSED(test, extra, counter, foreign)			\
	EXPECT_REFUSED_PAGES(test, extra, counter, foreign, 1)
#define EXPECT_REFUSED_PAGES(test, extra, counter, foreign, pages)	\
	do {								\
		int _st = run_case(self->ko, test, extra);		\
		if (_st && pcp_run("grep -q 'Operation not supported' /tmp/safety.err") == 0) \
			SKIP(return, "%s cannot run here; see dmesg", test); \
		ASSERT_EQ(0, _st) {					\
			pcp_run("dmesg | grep -E 'pcpcache|Memory failure' | tail -n 5"); \
		}							\
		ASSERT_BOOKS_BALANCE();					\
		EXPECT_EQ(pages, pcp_stat(&self->st, counter));		\
		EXPECT_EQ(foreign ? -1 : 0, pcp_stat(&self->st, "held")); \
		if (foreign)						\
			EXPECT_EQ(0, pcp_stat(&self->st, "cached"));	\
	} while (0)

TEST_F(safety, page_poisoned_while_cached_is_not_handed_out)
{
	EXPECT_REFUSED("hwpoison_cached", NULL, "refused_hwpoison", false);
}

TEST_F(safety, page_poisoned_in_use_is_not_cached)
{
	EXPECT_REFUSED("hwpoison_freed", NULL, "refused_hwpoison", false);
}

TEST_F(safety, block_with_a_poisoned_page_is_not_handed_out)
{
	EXPECT_REFUSED_PAGES("hwpoison_block", NULL, "refused_hwpoison", false, 2);
}

/*
 * blocks mode: a page at home in its block has no reference, and
 * memory_failure() marks it and leaves it there. The first refill after
 * the reload takes an order-9 block (the module checks) and CPU 0's batch
 * of it; the module poisons the first page left at home, the one the next
 * refill hands its caller.
 */
TEST_F(safety, page_poisoned_at_home_is_not_handed_out)
{
	struct pcp_pageset sets[PCP_MAX_CPUS];
	char extra[32];

	ASSERT_EQ(0, pcp_reload("mode=blocks"));
	ASSERT_LT(0, pcp_read_pagesets(sets, PCP_MAX_CPUS));
	ASSERT_EQ(0, sets[0].cpu);
	ASSERT_EQ(0, sets[0].count);
	snprintf(extra, sizeof(extra), "refill=%ld", sets[0].batch);
	EXPECT_REFUSED("hwpoison_home", extra, "refused_hwpoison", false);
}

/*
 * barn mode: a full magazine taken from the barn is checked page by page
 * like main. With batch 8, the module's frees leave one magazine in the
 * barn and it poisons each of its 8 pages; the allocations after take
 * main, the spare and then that magazine from the barn, and must hand
 * none of its pages out.
 */
TEST_F(safety, pages_poisoned_in_the_barn_are_not_handed_out)
{
	ASSERT_EQ(0, pcp_reload("mode=barn batch=8 high=378"));
	/* no trim meanwhile gives the barn's magazine back */
	ASSERT_EQ(0, pcp_write("barn_trim_ms", "0"));
	EXPECT_REFUSED_PAGES("hwpoison_barn", "refill=8", "refused_hwpoison", false, 8);
	/* the magazine was in the barn, and was taken from it */
	EXPECT_LE(1, pcp_stat(&self->st, "barn_gave_full"));
	EXPECT_LE(1, pcp_stat(&self->st, "barn_took_full"));
}

TEST_F(safety, page_from_the_reserves_is_not_cached)
{
	EXPECT_REFUSED("pfmemalloc", NULL, "refused_pfmemalloc", true);
}

TEST_F(safety, compound_page_is_not_cached)
{
	EXPECT_REFUSED("compound", NULL, "refused_compound", true);
}

TEST_F(safety, page_held_elsewhere_is_not_cached)
{
	EXPECT_REFUSED("shared", NULL, "refused_other", true);
}

/*
 * Under memalloc_noreclaim_save(), as reclaim's own callers run, with no
 * page left above the watermarks (the test module takes them for the
 * moment, the last with every other CPU stopped, so that no other task
 * meets the OOM killer): every refill fails, without a word
 * (__GFP_NOWARN), and the caller gets its 64 pages from the reserves, as
 * alloc_page() would give them; freed, none is cached.
 */
TEST_F(safety, noreclaim_caller_gets_the_reserves_without_a_warning)
{
	long long mark = pcp_log_mark();

	/*
	 * The module takes and zeroes (init_on_alloc) all free memory, 1.7 s
	 * of a 1 GiB guest under TCG: 50 times that on the debug kernel
	 */
	if (getenv("PCPCACHE_SLOW_KERNEL"))
		SKIP(return, "taking all free memory is too slow on a kernel %s times slower (PCPCACHE_SLOW_KERNEL)",
		     getenv("PCPCACHE_SLOW_KERNEL"));

	EXPECT_REFUSED_PAGES("noreclaim", NULL, "refused_pfmemalloc", false, 64);
	EXPECT_EQ(0, pcp_stat(&self->st, "cached"));
	EXPECT_EQ(1, pcp_log_grep(mark, "page allocation failure|WARNING|Out of memory|oom-kill")) {
		pcp_log_grep(mark, "noreclaim|failure|WARNING|oom");
	}
	pcp_log_grep(mark, "noreclaim: took");
}

/* The CMA area the kernel reserved at boot ("cma: Reserved N MiB at ..."). */
static bool cma_area(unsigned long *base_pfn, unsigned long *pages)
{
	unsigned long long addr;
	unsigned long mib;
	char line[256];
	bool found = false;
	FILE *f = popen("dmesg | grep -o 'cma: Reserved [0-9]* MiB at 0x[0-9a-f]*' | head -n 1", "r");

	if (!f)
		return false;
	if (fgets(line, sizeof(line), f) &&
	    sscanf(line, "cma: Reserved %lu MiB at 0x%llx", &mib, &addr) == 2) {
		*base_pfn = addr / 4096;
		*pages = mib * 256;
		found = true;
	}
	pclose(f);
	return found;
}

TEST_F(safety, cma_page_is_not_cached)
{
	unsigned long base, pages;
	char extra[96];

	if (!cma_area(&base, &pages))
		SKIP(return, "no CMA area (needs CONFIG_CMA and cma= at boot: the debug lane has them)");
	snprintf(extra, sizeof(extra), "cma_base=%lu cma_pages=%lu", base, pages);
	EXPECT_REFUSED("cma", extra, "refused_block", true);
}

/*
 * A page of ZONE_MOVABLE must stay movable, so that its memory can go
 * offline: the buddy allocator gets it back. make check's vm-numa2 boots
 * with movablecore=, for a ZONE_MOVABLE; elsewhere the module finds none
 * and the case is skipped.
 */
TEST_F(safety, page_of_zone_movable_is_not_cached)
{
	EXPECT_REFUSED("movable", NULL, "refused_other", true);
}

static long set_policy(int mode, unsigned long nodes)
{
	return syscall(SYS_set_mempolicy, mode, nodes ? &nodes : NULL,
		       nodes ? 8 * sizeof(nodes) : 0);
}

/*
 * On a CPU of node 0, 200 pages for a task whose policy points elsewhere:
 * every one must come from node 1 (the remote count of the ioctl), as
 * alloc_page() would give, none from node 0's magazine.
 */
TEST_F(safety, memory_policy_is_honoured)
{
	static const struct {
		const char *name;
		int mode;
		unsigned long nodes;
		bool all_remote;
	} policies[] = {
		{ "bind to node 1", MPOL_BIND, 2, true },
		{ "prefer node 1", MPOL_PREFERRED, 2, true },
		{ "interleave", MPOL_INTERLEAVE, 3, false },
	};
	struct pcpcache_pages req;
	int a = pcp_node_cpu(0), b = pcp_node_cpu(1), fd;
	long policy_before;
	unsigned int i;

	if (a < 0 || b < 0)
		SKIP(return, "needs CPUs on two NUMA nodes (tools/vm/run --numa 2)");
	fd = pcp_open_user();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pcp_pin(a));
	/* node 0's magazine full of local pages first */
	ASSERT_EQ(0, pcp_alloc(fd, 300, 0, &req));
	ASSERT_EQ(0, pcp_free(fd, 300, 0, NULL));

	for (i = 0; i < sizeof(policies) / sizeof(policies[0]); i++) {
		ASSERT_EQ(0, pcp_read_stats(&self->st));
		policy_before = pcp_stat(&self->st, "alloc_policy");
		ASSERT_EQ(0, set_policy(policies[i].mode, policies[i].nodes)) {
			TH_LOG("set_mempolicy(%s): %s", policies[i].name,
			       strerror(errno));
		}
		ASSERT_EQ(0, pcp_alloc(fd, 200, 0, &req));
		ASSERT_EQ(0, set_policy(MPOL_DEFAULT, 0));
		if (policies[i].all_remote) {
			EXPECT_EQ(200U, req.remote) {
				TH_LOG("%s: %u of 200 pages from node 1",
				       policies[i].name, req.remote);
			}
		} else {
			EXPECT_LT(0U, req.remote);
		}
		ASSERT_EQ(0, pcp_free(fd, 200, 0, NULL));
		ASSERT_EQ(0, pcp_read_stats(&self->st));
		EXPECT_EQ(200, pcp_stat(&self->st, "alloc_policy") - policy_before);
	}

	/* the default policy: hits on the local magazine again */
	ASSERT_EQ(0, pcp_alloc(fd, 100, 0, &req));
	EXPECT_EQ(0U, req.remote);
	ASSERT_EQ(0, pcp_free(fd, 100, 0, NULL));
	close(fd);
	ASSERT_BOOKS_BALANCE();
}

/* The limits of the user interface have a ceiling: 16 GiB of pages. */
/* A zone's free pages and watermarks, as /proc/zoneinfo has them. */
struct zone_marks {
	long free, min, low, managed;
};

/* The largest zone of NUMA node @node now; its managed count 0 if none. */
static int node_zone(int node, struct zone_marks *z)
{
	struct zone_marks cur = { 0 };
	char line[256], name[32];
	int nid = -1, n;
	long v;
	FILE *f;

	f = fopen("/proc/zoneinfo", "r");
	if (!f)
		return -errno;
	memset(z, 0, sizeof(*z));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Node %d, zone %31s", &n, name) == 2) {
			if (nid == node && cur.managed > z->managed)
				*z = cur;
			memset(&cur, 0, sizeof(cur));
			nid = n;
		} else if (sscanf(line, " pages free %ld", &v) == 1) {
			cur.free = v;
		} else if (sscanf(line, " min %ld", &v) == 1) {
			cur.min = v;
		} else if (sscanf(line, " low %ld", &v) == 1) {
			cur.low = v;
		} else if (sscanf(line, " managed %ld", &v) == 1) {
			cur.managed = v;
		}
	}
	if (nid == node && cur.managed > z->managed)
		*z = cur;
	fclose(f);
	return 0;
}

/*
 * In a child bound to node 0 and pinned on its CPU @cpu: use node 0's
 * memory until its largest zone is between its min and low watermarks,
 * where the page allocator still serves a task bound there but its fast
 * path, and the bulk allocator's fallback, take another node's pages;
 * then drain and allocate @nr pages through the user file. Writes how many
 * came from another node to @out; exits 0 when it could ask.
 */
static void bound_child(int cpu, unsigned int nr, int out)
{
	size_t page = sysconf(_SC_PAGESIZE), used = 0, len;
	struct pcpcache_pages req;
	struct zone_marks z;
	long target;
	char *p;
	int fd;

	fd = pcp_open_user();
	if (fd < 0 || pcp_pin(cpu) || set_policy(MPOL_BIND, 1) ||
	    node_zone(0, &z) || !z.managed)
		_exit(2);
	target = (z.min + z.low) / 2;
	len = z.managed * page;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		_exit(2);
	while (!node_zone(0, &z) && z.free > target && used < len / page) {
		/* half the way each time: the watermarks are far apart */
		size_t step = (z.free - target) / 2 + 1, i;

		for (i = 0; i < step && used < len / page; i++, used++)
			p[used * page] = 1;
	}
	if (node_zone(0, &z) || z.free > z.low || z.free <= z.min) {
		fprintf(stderr, "# node 0: %ld pages free, min %ld, low %ld\n",
			z.free, z.min, z.low);
		_exit(3);
	}
	if (pcp_write("drain", "1") || pcp_alloc(fd, nr, 0, &req))
		_exit(4);
	if (write(out, &req.remote, sizeof(req.remote)) != sizeof(req.remote))
		_exit(5);
	pcp_free(fd, req.done, 0, NULL);
	_exit(0);
}

/*
 * A task bound to node 0 gets no page of node 1 when node 0 runs short: a
 * refill's bulk allocation falls back to a page of any node, which must
 * not reach a caller whose policy forbids its node. Raising
 * watermark_scale_factor parts the watermarks so that the child can stop
 * between them.
 */
TEST_F(safety, bound_task_gets_no_page_of_another_node)
{
	static const char wsf[] = "/proc/sys/vm/watermark_scale_factor";
	static const char wbf[] = "/proc/sys/vm/watermark_boost_factor";
	int a = pcp_node_cpu(0), b = pcp_node_cpu(1), pipefd[2], status;
	unsigned int remote = ~0U;
	char before[32], boost[32];
	pid_t pid;

	if (a < 0 || b < 0)
		SKIP(return, "needs CPUs on two NUMA nodes (tools/vm/run --numa 2)");
	ASSERT_LT(0, pcp_read_file(wsf, before, sizeof(before)));
	ASSERT_LT(0, pcp_read_file(wbf, boost, sizeof(boost)));
	ASSERT_EQ(0, pipe(pipefd));
	ASSERT_EQ(0, pcp_write_file(wsf, "1000"));
	/*
	 * No watermark boost: a fallback that steals a pageblock raises
	 * the watermarks for a while, and one seen raising DMA32's min by
	 * 34 MiB under the child's fill (node 0 with a ZONE_MOVABLE of its
	 * own, movablecore=) put the zone below it: an OOM kill of the child
	 */
	ASSERT_EQ(0, pcp_write_file(wbf, "0"));
	pid = fork();
	if (!pid) {
		close(pipefd[0]);
		bound_child(a, 512, pipefd[1]);
	}
	close(pipefd[1]);
	if (pid > 0) {
		if (read(pipefd[0], &remote, sizeof(remote)) != sizeof(remote))
			remote = ~0U;
		waitpid(pid, &status, 0);
	}
	close(pipefd[0]);
	EXPECT_EQ(0, pcp_write_file(wsf, before));
	EXPECT_EQ(0, pcp_write_file(wbf, boost));
	ASSERT_LT(0, pid);
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) {
		TH_LOG("the bound child ended with status %#x", status);
	}
	EXPECT_EQ(0U, remote) {
		TH_LOG("%u of 512 pages from node 1 for a task bound to node 0",
		       remote);
	}
	ASSERT_BOOKS_BALANCE();
}

/* Drop capability @cap from this process; 0 or -1. */
static int drop_cap(int cap)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return -1;
	data[CAP_TO_INDEX(cap)].effective &= ~CAP_TO_MASK(cap);
	data[CAP_TO_INDEX(cap)].permitted &= ~CAP_TO_MASK(cap);
	return syscall(SYS_capset, &hdr, data) ? -1 : 0;
}

/*
 * Opening /dev/pcpcache or the user file needs CAP_SYS_ADMIN, whatever the
 * file mode: root without it (the rest of its capabilities kept, so that
 * the mode lets it in) gets EPERM from both.
 */
TEST_F(safety, opening_needs_cap_sys_admin)
{
	int status, fd;
	pid_t pid;

	fd = pcp_open_device();
	ASSERT_LE(0, fd);
	close(fd);
	pid = fork();
	if (!pid) {
		if (drop_cap(CAP_SYS_ADMIN))
			_exit(11);
		if (pcp_open_device() != -EPERM)
			_exit(1);
		if (pcp_open_user() != -EPERM)
			_exit(2);
		_exit(0);
	}
	ASSERT_LT(0, pid);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) {
		TH_LOG("without CAP_SYS_ADMIN: %s (status %#x)",
		       WEXITSTATUS(status) == 1 ? "/dev/pcpcache opened, or not with EPERM" :
		       WEXITSTATUS(status) == 2 ? "the user file opened, or not with EPERM" :
		       "cannot drop the capability", status);
	}
	ASSERT_BOOKS_BALANCE();
}

/* VmPin of this process in kB (what it pins: mm->pinned_vm); -1: unknown. */
static long vm_pin_kb(void)
{
	char line[128];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPin: %ld kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

/*
 * Pages held through a mapping or the user file are pinned, and charged
 * as the kernel charges pinned pages: to the opener's VmPin, the whole of
 * a mapping from mmap() to munmap(), the user file's pages while it holds
 * them; and shown in stats as user_held. Nothing is left charged after.
 */
TEST_F(safety, held_pages_are_charged_to_the_opener)
{
	long before = vm_pin_kb();
	int dev, user, status;
	pid_t pid;
	void *p;

	ASSERT_LE(0, before);
	dev = pcp_open_device();
	ASSERT_LE(0, dev);
	p = mmap(NULL, 4 << 20, PROT_READ | PROT_WRITE, MAP_SHARED, dev, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(before + 4096, vm_pin_kb());
	ASSERT_EQ(0, pcp_read_stats(&self->st));
	EXPECT_EQ(1024, pcp_stat(&self->st, "user_held"));
	ASSERT_EQ(0, munmap(p, 4 << 20));
	close(dev);
	EXPECT_EQ(before, vm_pin_kb());

	user = pcp_open_user();
	ASSERT_LE(0, user);
	ASSERT_EQ(0, pcp_alloc(user, 256, 0, NULL));
	EXPECT_EQ(before + 1024, vm_pin_kb());
	/* a child given the file cannot take more on the opener's account */
	pid = fork();
	if (!pid)
		_exit(pcp_alloc(user, 1, 0, NULL) == -EPERM ? 0 : 1);
	ASSERT_LT(0, pid);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) {
		TH_LOG("a child allocated through its parent's user file");
	}
	ASSERT_EQ(0, pcp_read_stats(&self->st));
	EXPECT_EQ(256, pcp_stat(&self->st, "user_held"));
	ASSERT_EQ(0, pcp_free(user, 128, 0, NULL));
	EXPECT_EQ(before + 512, vm_pin_kb());
	/* the rest goes back, and is uncharged, when the file is closed */
	close(user);
	EXPECT_EQ(before, vm_pin_kb());
	ASSERT_EQ(0, pcp_read_stats(&self->st));
	EXPECT_EQ(0, pcp_stat(&self->st, "user_held"));
	ASSERT_BOOKS_BALANCE();
}

/*
 * Without CAP_IPC_LOCK (CAP_SYS_ADMIN kept, so that the files open), a
 * process may pin no more than RLIMIT_MEMLOCK, as with mlock(): a mapping
 * or a hold past it fails with ENOMEM, one within it works.
 */
TEST_F(safety, memlock_limit_bounds_what_is_held)
{
	int status;
	pid_t pid;

	pid = fork();
	if (!pid) {
		struct rlimit rl = { 1 << 20, 1 << 20 };
		int dev, user;
		void *p;

		if (drop_cap(CAP_IPC_LOCK) || setrlimit(RLIMIT_MEMLOCK, &rl))
			_exit(10);
		dev = pcp_open_device();
		user = pcp_open_user();
		if (dev < 0 || user < 0)
			_exit(11);
		p = mmap(NULL, 4 << 20, PROT_READ | PROT_WRITE, MAP_SHARED, dev, 0);
		if (p != MAP_FAILED || errno != ENOMEM)
			_exit(1);
		p = mmap(NULL, 512 << 10, PROT_READ | PROT_WRITE, MAP_SHARED, dev, 0);
		if (p == MAP_FAILED)
			_exit(2);
		/* 128 pages left under the limit */
		if (pcp_alloc(user, 512, 0, NULL) != -ENOMEM)
			_exit(3);
		if (pcp_alloc(user, 64, 0, NULL))
			_exit(4);
		_exit(0);
	}
	ASSERT_LT(0, pid);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) {
		TH_LOG("RLIMIT_MEMLOCK 1 MiB: %s (status %#x)",
		       WEXITSTATUS(status) == 1 ? "a 4 MiB mapping was not refused with ENOMEM" :
		       WEXITSTATUS(status) == 2 ? "a 512 KiB mapping was refused" :
		       WEXITSTATUS(status) == 3 ? "holding 512 more pages was not refused with ENOMEM" :
		       WEXITSTATUS(status) == 4 ? "holding 64 more pages was refused" :
		       "cannot drop CAP_IPC_LOCK, set the limit or open the files", status);
	}
	ASSERT_EQ(0, pcp_read_stats(&self->st));
	EXPECT_EQ(0, pcp_stat(&self->st, "user_held"));
	ASSERT_BOOKS_BALANCE();
}

#define CGROUP_ROOT	"/sys/fs/cgroup"
#define CGROUP_TEST	CGROUP_ROOT "/pcpcache-test"

/*
 * A process in a memory cgroup whose memory.max (16 MiB) is below a
 * mapping's size (64 MiB) cannot pin it: the module cannot charge the
 * cgroup, so the mapping, or a hold past the limit, is refused (ENOMEM);
 * one that fits works.
 */
/* Put back what cgroup_make() changed. */
static void cgroup_put_back(bool mounted, bool enabled)
{
	rmdir(CGROUP_TEST);
	if (enabled)
		pcp_write_file(CGROUP_ROOT "/cgroup.subtree_control", "-memory");
	if (mounted)
		pcp_run("umount " CGROUP_ROOT);
}

/*
 * Make CGROUP_TEST, with the memory controller: NULL when made, else why
 * it cannot be here (nothing is left changed then). *@mounted and
 * *@enabled say what cgroup_put_back() must undo.
 */
static const char *cgroup_make(bool *mounted, bool *enabled)
{
	char buf[256];

	*mounted = *enabled = false;
	if (!pcp_exists(CGROUP_ROOT "/cgroup.controllers")) {
		if (pcp_run("mount -t cgroup2 none " CGROUP_ROOT " 2>/dev/null"))
			return "cgroup2 cannot be mounted on " CGROUP_ROOT;
		*mounted = true;
	}
	if (pcp_read_file(CGROUP_ROOT "/cgroup.controllers", buf, sizeof(buf)) < 0 ||
	    !strstr(buf, "memory")) {
		cgroup_put_back(*mounted, false);
		return "no memory controller in cgroup2";
	}
	if (pcp_read_file(CGROUP_ROOT "/cgroup.subtree_control", buf, sizeof(buf)) >= 0 &&
	    !strstr(buf, "memory"))
		*enabled = !pcp_write_file(CGROUP_ROOT "/cgroup.subtree_control", "+memory");
	rmdir(CGROUP_TEST);
	if (mkdir(CGROUP_TEST, 0755)) {
		cgroup_put_back(*mounted, *enabled);
		return "cannot make " CGROUP_TEST;
	}
	return NULL;
}

/*
 * A page charged to a memory cgroup (__GFP_ACCOUNT, as the kernel charges
 * kmem) goes back to the buddy allocator, which uncharges it: cached, it
 * would keep the charge and go to a task of another cgroup.
 */
TEST_F(safety, page_charged_to_a_cgroup_is_not_cached)
{
	const char *why;

	why = cgroup_make(&self->cg_mounted, &self->cg_enabled);
	if (why)
		SKIP(return, "%s", why);
	self->cg_made = true;
	case_cgroup = CGROUP_TEST;
	EXPECT_REFUSED("memcg_kmem", NULL, "refused_other", true);
}

TEST_F(safety, memcg_limit_bounds_what_is_held)
{
	bool mounted = false, enabled = false;
	const char *why;
	char buf[256];
	int status, dev;
	pid_t pid;
	void *p;

	/* outside the cgroup, the same mapping works: the limit refuses it */
	dev = pcp_open_device();
	ASSERT_LE(0, dev);
	p = mmap(NULL, 64 << 20, PROT_READ | PROT_WRITE, MAP_SHARED, dev, 0);
	ASSERT_NE(MAP_FAILED, p);
	munmap(p, 64 << 20);
	close(dev);

	why = cgroup_make(&mounted, &enabled);
	if (why)
		SKIP(return, "%s", why);
	if (pcp_write_file(CGROUP_TEST "/memory.max", "16M")) {
		cgroup_put_back(mounted, enabled);
		ASSERT_TRUE(false) {
			TH_LOG("cannot give %s memory.max 16M", CGROUP_TEST);
		}
	}

	pid = fork();
	if (!pid) {
		int dev, user;
		void *p;

		snprintf(buf, sizeof(buf), "%d", getpid());
		if (pcp_write_file(CGROUP_TEST "/cgroup.procs", buf))
			_exit(10);
		dev = pcp_open_device();
		user = pcp_open_user();
		if (dev < 0 || user < 0)
			_exit(11);
		p = mmap(NULL, 64 << 20, PROT_READ | PROT_WRITE, MAP_SHARED, dev, 0);
		if (p != MAP_FAILED || errno != ENOMEM)
			_exit(1);
		p = mmap(NULL, 4 << 20, PROT_READ | PROT_WRITE, MAP_SHARED, dev, 0);
		if (p == MAP_FAILED)
			_exit(2);
		if (pcp_alloc(user, 8192, 0, NULL) != -ENOMEM)
			_exit(3);
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
	cgroup_put_back(mounted, enabled);
	ASSERT_LT(0, pid);
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) {
		TH_LOG("memory.max 16M: %s (status %#x)",
		       WEXITSTATUS(status) == 1 ? "a 64 MiB mapping was not refused with ENOMEM" :
		       WEXITSTATUS(status) == 2 ? "a 4 MiB mapping was refused" :
		       WEXITSTATUS(status) == 3 ? "holding 32 MiB more was not refused with ENOMEM" :
		       "cannot join the cgroup or open the files", status);
	}
	ASSERT_EQ(0, pcp_read_stats(&self->st));
	EXPECT_EQ(0, pcp_stat(&self->st, "user_held"));
	ASSERT_BOOKS_BALANCE();
}

/*
 * Under lock=local a write waits for every CPU to carry it out, one that a
 * SCHED_FIFO task holds with RT throttling off as well. Meanwhile the
 * files anyone may read in sysfs (config, mode, high, pagesets) must not
 * wait for it. The reads are given 10 s, far more than they take.
 */
TEST_F(safety, reads_do_not_wait_for_a_held_cpu)
{
	static const char * const files[] = { "config", "mode", "high", "pagesets" };
	int cpu = pcp_nr_cpus() - 1, status = -1, wstatus = -1, waited;
	char buf[8192], path[128];
	pid_t writer, reader;
	bool done;
	size_t i;

	if (!pcp_lock_is("local"))
		SKIP(return, "under lock=spin a write waits for no CPU");
	if (cpu < 1)
		SKIP(return, "needs two CPUs");
	ASSERT_EQ(0, pcp_hold_cpu(cpu, &self->hold));
	writer = fork();
	if (!writer) {
		pcp_pin(0);
		_exit(pcp_write("high", "400") ? 1 : 0);
	}
	/* the writer is waiting for the held CPU by now */
	usleep(500000);
	reader = fork();
	if (!reader) {
		pcp_pin(0);
		for (i = 0; i < ARRAY_SIZE(files); i++) {
			snprintf(path, sizeof(path), PCP_SYSFS_DIR "/%s", files[i]);
			if (pcp_read_file(path, buf, sizeof(buf)) <= 0)
				_exit(1);
		}
		_exit(0);
	}
	for (waited = 0; reader > 0 && waited < 100; waited++) {
		if (waitpid(reader, &status, WNOHANG) == reader)
			break;
		usleep(100000);
	}
	done = waited < 100;
	pcp_release_cpu(&self->hold);
	/* once the held CPU runs again, the write and the reads get through */
	if (reader > 0 && !done)
		waitpid(reader, &status, 0);
	if (writer > 0)
		waitpid(writer, &wstatus, 0);
	ASSERT_LT(0, writer);
	ASSERT_LT(0, reader);
	EXPECT_TRUE(done) {
		TH_LOG("the reads waited for a write held up by CPU %d", cpu);
	}
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	EXPECT_TRUE(WIFEXITED(wstatus) && !WEXITSTATUS(wstatus)) {
		TH_LOG("the write of high: status %#x", wstatus);
	}
	ASSERT_BOOKS_BALANCE();
}

TEST_F(safety, user_limits_are_bounded)
{
	static const char * const params[] = { "user_max_pages", "user_max_total" };
	char path[96], val[32];
	unsigned int i;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), PCP_SYSFS "/parameters/%s", params[i]);
		EXPECT_NE(0, pcp_write_file(path, "4194305"));
		EXPECT_NE(0, pcp_write_file(path, "-1"));
		EXPECT_EQ(0, pcp_write_file(path, "4194304"));
		ASSERT_LT(0, pcp_read_file(path, val, sizeof(val)));
		EXPECT_EQ(4194304, atol(val));
	}
}

static void note_signal(int sig)
{
}

/* Catch @sig in this process, so that a system call returns EINTR. */
static void catch_signal(int sig)
{
	struct sigaction sa = { .sa_handler = note_signal };

	sigaction(sig, &sa, NULL);
}

/*
 * Whether @pid sleeps in system call @nr, from /proc/PID/syscall ("running"
 * while it runs, its number first while it sleeps in one).
 */
static bool sleeps_in_syscall(pid_t pid, long nr)
{
	char path[64], line[32];
	int fd, len;

	snprintf(path, sizeof(path), "/proc/%d/syscall", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	len = read(fd, line, sizeof(line) - 1);
	close(fd);
	if (len <= 0)
		return false;
	line[len] = '\0';
	return strtol(line, NULL, 10) == nr && line[0] != 'r';
}

/*
 * A child blocked in a request (system call @nr) that would run for
 * minutes; a signal soon after it is under way must end it with what was
 * done, or EINTR. The signal goes as soon as the child sleeps in the
 * request, since a fixed delay can outlast one on a fast machine, or after
 * a second for a request that never sleeps. The child's exit status says
 * which: 0 partial, 1 EINTR, 2 it ran to the end, 3 error.
 */
static int interrupted_child(void (*request)(void), long nr, int sig)
{
	int status, i;
	pid_t child = fork();

	if (child < 0)
		return -1;
	if (!child) {
		catch_signal(sig);
		request();
		_exit(3);
	}
	for (i = 0; i < 1000 && !sleeps_in_syscall(child, nr); i++) {
		if (waitpid(child, &status, WNOHANG) == child)
			return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
		usleep(1000);
	}
	/* some work done, for a partial result to show */
	usleep(100000);
	kill(child, sig);
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static void huge_cycle(void)
{
	struct pcpcache_cycle req = { .cycles = 1U << 24, .batch = 64 };
	int fd = pcp_open_user();

	if (fd < 0)
		_exit(3);
	if (ioctl(fd, PCPCACHE_IOC_CYCLE, &req))
		_exit(errno == EINTR ? 1 : 3);
	_exit(req.allocs && req.allocs < 64ULL << 24 ? 0 : 2);
}

TEST_F(safety, signal_stops_a_huge_cycle)
{
	int rc = interrupted_child(huge_cycle, SYS_ioctl, SIGUSR1);

	EXPECT_EQ(0, rc) {
		TH_LOG("the cycle %s", rc == 2 ? "ran to its end" :
		       rc == 1 ? "did nothing" : "failed");
	}
	ASSERT_BOOKS_BALANCE();
	EXPECT_EQ(0, pcp_stat(&self->st, "held"));
}

static void long_bench(void)
{
	const char *cmd = "switch 65536 1 0";
	int fd = open(PCP_DIR "/bench", O_WRONLY);

	if (fd < 0)
		_exit(3);
	if (write(fd, cmd, strlen(cmd)) < 0)
		_exit(errno == EINTR ? 1 : 3);
	_exit(2);
}

/* ^C on a benchmark: the write ends with EINTR and the threads stop. */
TEST_F(safety, sigint_stops_a_benchmark)
{
	char mode[64];
	int rc;

	if (pcp_nr_cpus() < 2)
		SKIP(return, "the switch benchmark needs two CPUs");
	rc = interrupted_child(long_bench, SYS_write, SIGINT);
	EXPECT_EQ(1, rc) {
		TH_LOG("the benchmark %s", rc == 2 ? "ran to its end" : "failed");
	}
	/* a new run gets the file: the old one is over */
	EXPECT_EQ(0, pcp_write("bench", "pair 10 1 0"));
	ASSERT_LT(0, pcp_read_file(PCP_DIR "/mode", mode, sizeof(mode)));
	EXPECT_NE(NULL, strstr(mode, "[single]"));
	ASSERT_BOOKS_BALANCE();
}

TEST_HARNESS_MAIN
