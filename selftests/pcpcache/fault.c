// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/pcpcache: mappings whose page faults pcpcache serves. Pages come
 * zero-filled from the faulting CPU's magazine and go back to the
 * unmapping CPU's when the mapping goes, however it goes (munmap, exit,
 * SIGKILL in the middle of touching it); threads racing on a page get one
 * page; what the device refuses fails with the documented error and
 * leaves the mapping as it was. The books balance after every step, and
 * held counts exactly the pages mapped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pcpcache_harness.h"

#define NR_PAGES	512

FIXTURE(fault) {
	struct pcp_stats st;
	char why[256];
	int fd;
	size_t page;
};

FIXTURE_VARIANT(fault) {
	const char *params;
};

/* the hot list alone, and split mode's hot and cold lists */
FIXTURE_VARIANT_ADD(fault, single) { .params = "mode=single" };
FIXTURE_VARIANT_ADD(fault, split) { .params = "mode=split" };

FIXTURE_SETUP(fault)
{
	const char *why = pcp_skip_reason();

	self->fd = -1;
	self->page = sysconf(_SC_PAGESIZE);
	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, pcp_reload(variant->params));
	self->fd = pcp_open_device();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pcp_pin(0));
}

FIXTURE_TEARDOWN(fault)
{
	if (self->fd >= 0)
		close(self->fd);
	if (pcp_exists(PCP_SYSFS))
		pcp_run("rmmod pcpcache");
}

/* The books balance, and the mappings hold exactly @pages. */
#define ASSERT_HELD(pages)						\
	do {								\
		ASSERT_BOOKS_BALANCE();					\
		ASSERT_EQ(pages, pcp_stat(&self->st, "held"));		\
	} while (0)

static char *map_pages(int fd, size_t nr, size_t page)
{
	return mmap(NULL, nr * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
}

/* Whether every byte of @nr pages from @p is zero. */
static bool all_zero(const char *p, size_t nr, size_t page)
{
	size_t i;

	for (i = 0; i < nr * page; i++)
		if (p[i])
			return false;
	return true;
}

static int write_param(const char *name, unsigned long val)
{
	char path[128], buf[32];

	snprintf(path, sizeof(path), PCP_SYSFS "/parameters/%s", name);
	snprintf(buf, sizeof(buf), "%lu", val);
	return pcp_write_file(path, buf);
}

/*
 * A new mapping reads zero even where its pages were another mapping's
 * dirty pages a moment before (the magazine hands them back: alloc_hit).
 * Run with init_on_alloc=0 too, where only __GFP_ZERO clears them.
 */
TEST_F(fault, zero_filled_and_counted)
{
	long long hits;
	char *p;
	int round;

	for (round = 0; round < 2; round++) {
		p = map_pages(self->fd, NR_PAGES, self->page);
		ASSERT_NE(MAP_FAILED, p);
		ASSERT_HELD(0);
		hits = pcp_stat(&self->st, "alloc_hit");
		EXPECT_TRUE(all_zero(p, NR_PAGES, self->page));
		memset(p, 0xa5, NR_PAGES * self->page);
		ASSERT_HELD(NR_PAGES);
		ASSERT_EQ(0, munmap(p, NR_PAGES * self->page));
		ASSERT_HELD(0);
		/* the second round is served from the first one's pages */
		if (round)
			EXPECT_LT(hits + NR_PAGES / 2, pcp_stat(&self->st, "alloc_hit"));
	}
}

/* Each CPU's pages, after a drain, and whether any other CPU has some. */
static long cpu_cached(int cpu, bool *others)
{
	struct pcp_pageset sets[PCP_MAX_CPUS];
	int i, nr = pcp_read_pagesets(sets, PCP_MAX_CPUS);
	long count = -1;

	*others = false;
	for (i = 0; i < nr; i++) {
		if (sets[i].cpu == cpu)
			count = sets[i].count;
		else if (sets[i].count)
			*others = true;
	}
	return count;
}

/*
 * Touched on one CPU, unmapped on another: the refills land on the first,
 * the freed pages on the second, unless it is of another node (a magazine
 * holds its own node's pages). With one CPU, both are CPU 0.
 */
TEST_F(fault, served_by_the_faulting_cpu_freed_on_the_unmapping_cpu)
{
	int nr = pcp_nr_cpus(), cpu, other;
	long long refilled;
	bool others;
	char *p;

	for (cpu = 0; cpu < nr; cpu++) {
		other = (cpu + 1) % nr;
		ASSERT_EQ(0, pcp_write("drain", "1"));
		ASSERT_EQ(0, pcp_read_stats(&self->st));
		refilled = pcp_stat(&self->st, "buddy_alloc");

		ASSERT_EQ(0, pcp_pin(cpu));
		p = map_pages(self->fd, 100, self->page);
		ASSERT_NE(MAP_FAILED, p);
		memset(p, 1, 100 * self->page);
		ASSERT_HELD(100);
		refilled = pcp_stat(&self->st, "buddy_alloc") - refilled;
		EXPECT_EQ(refilled - 100, cpu_cached(cpu, &others));
		EXPECT_FALSE(others);

		ASSERT_EQ(0, pcp_pin(other));
		ASSERT_EQ(0, munmap(p, 100 * self->page));
		ASSERT_HELD(0);
		if (other != cpu) {
			/* the pages are of the faulting CPU's node */
			EXPECT_EQ(pcp_cpu_node(other) == pcp_cpu_node(cpu) ? 100 : 0,
				  cpu_cached(other, &others));
			EXPECT_EQ(refilled - 100, cpu_cached(cpu, &others));
		} else {
			EXPECT_EQ(refilled, cpu_cached(cpu, &others));
			EXPECT_FALSE(others);
		}
	}
}

struct racer {
	pthread_t thread;
	char *p;
	size_t nr, page;
	int cpu;
	atomic_int *go;
};

static void *race(void *arg)
{
	struct racer *r = arg;
	size_t i;

	pcp_pin(r->cpu);
	while (!atomic_load(r->go))
		;
	for (i = 0; i < r->nr; i++)
		r->p[i * r->page + r->cpu] = 1;
	return NULL;
}

/*
 * Threads on every CPU fault the same pages at once: one page each, and
 * every thread's write to every page is there.
 */
TEST_F(fault, racing_faults_get_one_page)
{
	int nr = pcp_nr_cpus(), cpu;
	struct racer r[PCP_MAX_CPUS];
	atomic_int go = 0;
	size_t i, lost = 0;
	char *p;

	p = map_pages(self->fd, NR_PAGES, self->page);
	ASSERT_NE(MAP_FAILED, p);
	for (cpu = 0; cpu < nr; cpu++) {
		r[cpu] = (struct racer){ .p = p, .nr = NR_PAGES,
					  .page = self->page, .cpu = cpu,
					  .go = &go };
		ASSERT_EQ(0, pthread_create(&r[cpu].thread, NULL, race, &r[cpu]));
	}
	atomic_store(&go, 1);
	for (cpu = 0; cpu < nr; cpu++)
		pthread_join(r[cpu].thread, NULL);
	ASSERT_HELD(NR_PAGES);
	/* a write lost to a second page mapped over the first would show */
	for (i = 0; i < NR_PAGES; i++)
		for (cpu = 0; cpu < nr; cpu++)
			if (p[i * self->page + cpu] != 1)
				lost++;
	EXPECT_EQ(0, lost) {
		TH_LOG("%zu of %d writes lost", lost, NR_PAGES * nr);
	}
	ASSERT_EQ(0, munmap(p, NR_PAGES * self->page));
	ASSERT_HELD(0);
}

/* mmap() refuses what the device cannot give, and holds nothing after. */
TEST_F(fault, refused_mappings)
{
	size_t page = self->page;
	int ro, user;
	char *p, *q;

	EXPECT_EQ(MAP_FAILED, mmap(NULL, page, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE, self->fd, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, page, PROT_READ | PROT_WRITE,
				   MAP_SHARED, self->fd, page));
	EXPECT_EQ(EINVAL, errno);
	ro = open(PCPCACHE_DEVICE, O_RDONLY);
	ASSERT_LE(0, ro);
	EXPECT_EQ(MAP_FAILED, map_pages(ro, 1, page));
	EXPECT_EQ(EACCES, errno);
	close(ro);

	/* one mapping may hold user_max_pages */
	ASSERT_EQ(0, write_param("user_max_pages", 64));
	EXPECT_EQ(MAP_FAILED, map_pages(self->fd, 65, page));
	EXPECT_EQ(ENOMEM, errno);
	EXPECT_EQ(0, munmap(map_pages(self->fd, 64, page), 64 * page));

	/* all of them and the user files together user_max_total */
	ASSERT_EQ(0, write_param("user_max_total", 100));
	p = map_pages(self->fd, 64, page);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(MAP_FAILED, map_pages(self->fd, 37, page));
	EXPECT_EQ(ENOMEM, errno);
	user = pcp_open_user();
	ASSERT_LE(0, user);
	EXPECT_EQ(-ENOSPC, pcp_alloc(user, 37, 0, NULL));
	EXPECT_EQ(0, pcp_alloc(user, 36, 0, NULL));
	close(user);
	q = map_pages(self->fd, 36, page);
	ASSERT_NE(MAP_FAILED, q);
	ASSERT_HELD(0);
	EXPECT_EQ(0, munmap(p, 64 * page));
	EXPECT_EQ(0, munmap(q, 36 * page));
}

/*
 * A mapping is never split nor grown: partial munmap(), mprotect() and
 * mremap() fail and leave it whole. Moving all of it works, pages along.
 */
TEST_F(fault, no_split_no_growth_moves_whole)
{
	size_t len = 8 * self->page;
	char *p, *q, *to;

	p = map_pages(self->fd, 8, self->page);
	ASSERT_NE(MAP_FAILED, p);
	memset(p, 7, len);

	EXPECT_EQ(-1, munmap(p, self->page));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, munmap(p + self->page, self->page));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, mprotect(p, self->page, PROT_READ));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mremap(p, len, 2 * len, MREMAP_MAYMOVE));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(MAP_FAILED, mremap(p, len, len / 2, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mremap(p, 0, len, MREMAP_MAYMOVE));
	EXPECT_EQ(EFAULT, errno);
	to = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, to);
	EXPECT_EQ(MAP_FAILED, mremap(p, len, len, MREMAP_MAYMOVE |
				     MREMAP_FIXED | MREMAP_DONTUNMAP, to));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(7, p[len - 1]);
	ASSERT_HELD(8);

	q = mremap(p, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, to);
	ASSERT_EQ(to, q);
	EXPECT_EQ(7, q[0]);
	EXPECT_EQ(7, q[len - 1]);
	ASSERT_HELD(8);
	ASSERT_EQ(0, munmap(q, len));
	ASSERT_HELD(0);
}

static sigjmp_buf segv_jmp;

static void on_segv(int sig)
{
	siglongjmp(segv_jmp, 1);
}

/* Whether writing to @p raises SIGSEGV. */
static bool write_faults(volatile char *p)
{
	struct sigaction sa = { .sa_handler = on_segv }, old;
	bool faulted = false;

	sigaction(SIGSEGV, &sa, &old);
	if (sigsetjmp(segv_jmp, 1))
		faulted = true;
	else
		*p = 1;
	sigaction(SIGSEGV, &old, NULL);
	return faulted;
}

/* mprotect() of the whole mapping works, pages kept. */
TEST_F(fault, mprotect_whole)
{
	char *p = map_pages(self->fd, 4, self->page);

	ASSERT_NE(MAP_FAILED, p);
	p[0] = 3;
	ASSERT_EQ(0, mprotect(p, 4 * self->page, PROT_READ));
	EXPECT_EQ(3, p[0]);
	EXPECT_TRUE(write_faults(p));
	ASSERT_EQ(0, mprotect(p, 4 * self->page, PROT_NONE));
	ASSERT_EQ(0, mprotect(p, 4 * self->page, PROT_READ | PROT_WRITE));
	EXPECT_EQ(3, p[0]);
	EXPECT_FALSE(write_faults(p + self->page));
	ASSERT_HELD(2);
	ASSERT_EQ(0, munmap(p, 4 * self->page));
	ASSERT_HELD(0);
}

/*
 * What would let the pages escape the mapping is refused: zapping them
 * (MADV_DONTNEED, MADV_FREE), a child's copy (fork leaves it out; a
 * child touching the address dies of SIGSEGV; MADV_DOFORK fails), and
 * get_user_pages() (process_vm_readv(), vmsplice(), /proc/self/mem).
 */
TEST_F(fault, madvise_fork_and_gup_refused)
{
	size_t len = 4 * self->page;
	struct iovec local, remote;
	char buf[64], path[64];
	int status, mem, pipefd[2];
	pid_t child;
	char *p;

	p = map_pages(self->fd, 4, self->page);
	ASSERT_NE(MAP_FAILED, p);
	memset(p, 9, len);

	EXPECT_EQ(-1, madvise(p, len, MADV_DONTNEED));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, madvise(p, len, MADV_FREE));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, madvise(p, len, MADV_DOFORK));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(9, p[0]);

	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		signal(SIGSEGV, SIG_DFL);
		p[0] = 1;
		_exit(0);
	}
	ASSERT_EQ(child, waitpid(child, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV);
	EXPECT_EQ(9, p[0]);

	local = (struct iovec){ .iov_base = buf, .iov_len = sizeof(buf) };
	remote = (struct iovec){ .iov_base = p, .iov_len = sizeof(buf) };
	EXPECT_EQ(-1, process_vm_readv(getpid(), &local, 1, &remote, 1, 0));
	EXPECT_EQ(EFAULT, errno);
	ASSERT_EQ(0, pipe(pipefd));
	EXPECT_EQ(-1, vmsplice(pipefd[1], &remote, 1, 0));
	EXPECT_EQ(EFAULT, errno);
	snprintf(path, sizeof(path), "/proc/%d/mem", getpid());
	mem = open(path, O_RDONLY);
	ASSERT_LE(0, mem);
	EXPECT_EQ(-1, pread(mem, buf, sizeof(buf), (off_t)(unsigned long)p));
	EXPECT_EQ(EIO, errno);
	close(mem);
	/* the kernel's own copies through the page tables are not GUP */
	EXPECT_EQ((ssize_t)sizeof(buf), write(pipefd[1], p, sizeof(buf)));
	close(pipefd[0]);
	close(pipefd[1]);
	ASSERT_HELD(4);
	ASSERT_EQ(0, munmap(p, len));
	ASSERT_HELD(0);
}

/* Progress of a child, in memory the parent shares. */
struct progress {
	atomic_long touched;
};

/* Touch @nr pages of a new mapping on @cpu, again and again, until killed. */
static void __attribute__((noreturn))
touch_until_killed(int cpu, size_t nr, size_t page, struct progress *pr)
{
	int fd = pcp_open_device();
	size_t i;
	char *p;

	pcp_pin(cpu);
	p = map_pages(fd, nr, page);
	if (p == MAP_FAILED)
		_exit(1);
	for (;;) {
		for (i = 0; i < nr; i++) {
			p[i * page]++;
			atomic_fetch_add(&pr->touched, 1);
		}
	}
}

/*
 * SIGKILL in the middle of the first pass over a mapping, on every CPU:
 * the dead processes hold nothing, and their reservations are free again.
 */
TEST_F(fault, killed_mid_touch_leaves_nothing)
{
	int nr = pcp_nr_cpus(), cpu, status;
	size_t pages = 4096;
	struct progress *pr;
	pid_t child[PCP_MAX_CPUS];

	pr = mmap(NULL, nr * sizeof(*pr), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, pr);
	ASSERT_EQ(0, write_param("user_max_total", nr * pages));
	for (cpu = 0; cpu < nr; cpu++) {
		child[cpu] = fork();
		ASSERT_LE(0, child[cpu]);
		if (!child[cpu])
			touch_until_killed(cpu, pages, self->page, &pr[cpu]);
	}
	for (cpu = 0; cpu < nr; cpu++) {
		while (atomic_load(&pr[cpu].touched) < (long)pages / 2)
			usleep(1000);
		kill(child[cpu], SIGKILL);
	}
	for (cpu = 0; cpu < nr; cpu++) {
		ASSERT_EQ(child[cpu], waitpid(child[cpu], &status, 0));
		EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
		TH_LOG("cpu %d: killed after %ld touches", cpu,
		       atomic_load(&pr[cpu].touched));
	}
	ASSERT_HELD(0);
	/* nothing of theirs is still reserved: all of it can be mapped */
	ASSERT_EQ(0, munmap(map_pages(self->fd, nr * pages, self->page),
			    nr * pages * self->page));
}

/*
 * A process that exits with its mapping in place, and one that closed the
 * device first (the mapping keeps it open), free everything.
 */
TEST_F(fault, exit_frees_the_mapping)
{
	int status, closed;
	pid_t child;
	char *p;

	for (closed = 0; closed < 2; closed++) {
		child = fork();
		ASSERT_LE(0, child);
		if (!child) {
			p = map_pages(self->fd, 64, self->page);
			if (p == MAP_FAILED)
				_exit(1);
			if (closed)
				close(self->fd);
			memset(p, 1, 64 * self->page);
			_exit(0);
		}
		ASSERT_EQ(child, waitpid(child, &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
		ASSERT_HELD(0);
		EXPECT_LE(64 * (closed + 1), pcp_stat(&self->st, "free"));
	}
}

TEST_HARNESS_MAIN
