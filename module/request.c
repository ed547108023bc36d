// SPDX-License-Identifier: GPL-2.0
/*
 * pcpcache requests: what is done to a CPU's magazine from elsewhere. A
 * configuration put in force, and a drain, reach every CPU's magazine; the
 * shrinker takes pages from the CPUs of a node; CPU hotplug readies the
 * magazine of a CPU coming up and empties that of a CPU that died.
 *
 * How another CPU's magazine is reached is the other half of the seam of
 * lock.h:
 *
 * - lock=spin: directly, under the magazine's spinlock, from any CPU and
 *   whether its owner runs or not. Nothing ever waits for another CPU.
 *
 * - lock=local: a CPU that may run is asked to act on its own magazine,
 *   by work queued on it (its request), as mm/page_alloc.c did before 6.0.
 *   A CPU that runs nothing is acted on directly: pcpcache_cpus_up says
 *   which CPUs may run, set before a CPU starts (pcpcache_cpu_prepare())
 *   and cleared once it is dead (pcpcache_cpu_dead()), under
 *   pcpcache_hotplug_mutex.
 *
 * Waiting. A reconfiguration or a drain waits for every CPU it asked with
 * only the configuration mutex held (config.c): neither reclaim nor CPU
 * hotplug takes that mutex, and pcpcache_hotplug_mutex is held only while
 * requests are made, never while waiting, and by nothing that allocates.
 * The shrinker never waits without bound: it takes what the CPU it runs on
 * has at once, asks the other CPUs of the node that have pages, and waits
 * for their answers for at most PCPCACHE_SHRINK_WAIT_MS. A CPU that does
 * not answer in time (a SCHED_FIFO task holds it, say) is counted in
 * shrink_skipped; the pages it gives back later are counted then. It
 * holds no lock while it waits, so that concurrent reclaimers all find
 * the pages of the CPUs that do run.
 *
 * Work queued on a CPU that goes down before the work runs is run by the
 * workqueue on another CPU, where it acts on that CPU's magazine instead:
 * harmless for every request, as the configuration is the same for all
 * CPUs. The CPU that went down was emptied by pcpcache_cpu_dead(), and is
 * given the configuration in force again when it comes back, by
 * pcpcache_cpu_prepare() and, once it can run work, pcpcache_cpu_online().
 */
#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "barn.h"
#include "blocks.h"
#include "compat.h"
#include "lock.h"
#include "owner.h"
#include "pcpcache.h"
#include "pcpcache_trace.h"

/* How long a shrinker scan waits for the other CPUs of its node. */
#define PCPCACHE_SHRINK_WAIT_MS	10

/*
 * How long the OOM notifier waits for the other CPUs under lock=local. RT
 * throttling's defaults (sched_rt_period_us 1000000, sched_rt_runtime_us
 * 950000; 6.12's fair server gives the same 50 ms a second) let a normal
 * task run on a CPU a SCHED_FIFO task holds within every second: one
 * period and a half covers it. With throttling turned off nothing can
 * bound it, and a CPU that has not answered is counted in oom_late.
 */
#define PCPCACHE_OOM_WAIT_MS	1500

/* How often an auto-tuned high decays, as the kernel's vmstat interval. */
#define PCPCACHE_DECAY_INTERVAL	HZ

/* How a magazine is reached from the CPU we run on. */
enum pcpcache_reach {
	PCPCACHE_REACH_OWN,	/* the CPU we run on, under its own lock */
	PCPCACHE_REACH_SPIN,	/* any CPU, under its spinlock (lock=spin) */
	PCPCACHE_REACH_IDLE,	/* a CPU that runs nothing (lock=local) */
};

/* What a magazine is asked to do: reconfigure, then maybe drain. */
struct pcpcache_request {
	const struct pcpcache_config *cfg;	/* reconfigure to this, or NULL */
	bool drain;				/* then give back every page */
	enum pcpcache_drain_why why;		/* of the pages given back */
};

/* The requests a CPU carries out on its own magazine under lock=local. */
struct pcpcache_cpu_requests {
	int cpu;			/* whose they are */
	struct work_struct work;	/* carries out @rq */
	struct pcpcache_request rq;	/* under the configuration mutex */
	struct work_struct drain_work;	/* drains, for memory going offline */
	struct work_struct shrink_work;	/* gives back @shrink_want pages */
	struct delayed_work decay_work;	/* decays an auto-tuned high */
	atomic_long_t shrink_want;
	atomic_long_t shrunk;		/* given back, for a scan to collect */
	atomic_t asked_round;		/* the last round that queued it */
	atomic_t done_round;		/* the round it last answered */
	atomic_t oom_asked;		/* the OOM notifier asked: give all */
};

static DEFINE_PER_CPU(struct pcpcache_cpu_requests, pcpcache_requests);
static struct workqueue_struct *pcpcache_wq;

static DEFINE_MUTEX(pcpcache_hotplug_mutex);	/* guards the two below */
static struct cpumask pcpcache_cpus_up;		/* may run; lock=local asks these */
static struct pcpcache_config pcpcache_up_config; /* given to CPUs coming up */

static struct cpumask pcpcache_queued;		/* under the config mutex */

/* Shrinker rounds: see pcpcache_shrink_by_work(). */
static atomic_t pcpcache_shrink_round = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(pcpcache_shrink_answers);

static struct pcpcache_cpu *pcpcache_reach_lock(int cpu,
						enum pcpcache_reach how,
						unsigned long *flags)
	__acquires(&pcpcache_cpus)
{
	struct pcpcache_cpu *pc = per_cpu_ptr(&pcpcache_cpus, cpu);

	switch (how) {
	case PCPCACHE_REACH_OWN:
		return pcpcache_lock_this_cpu_wait(flags);
	case PCPCACHE_REACH_SPIN:
		spin_lock_irqsave(&pc->slock, *flags);
		return pc;
	default:
		lockdep_assert_held(&pcpcache_hotplug_mutex);
		/* for sparse: each way of locking counts once */
		__acquire(pc);
		return pc;
	}
}

static void pcpcache_reach_unlock(struct pcpcache_cpu *pc,
				  enum pcpcache_reach how, unsigned long flags)
	__releases(&pcpcache_cpus)
{
	switch (how) {
	case PCPCACHE_REACH_OWN:
		pcpcache_unlock_this_cpu_wait(pc, flags);
		break;
	case PCPCACHE_REACH_SPIN:
		spin_unlock_irqrestore(&pc->slock, flags);
		break;
	default:
		__release(pc);
		break;
	}
}

/* The node of the pages a magazine reached this way holds; called locked. */
static int pcpcache_reach_node(int cpu, enum pcpcache_reach how)
{
	return how == PCPCACHE_REACH_OWN ? numa_mem_id() : cpu_to_mem(cpu);
}

/* The CPU whose magazine was reached this way; called locked. */
static int pcpcache_reach_cpu(int cpu, enum pcpcache_reach how)
{
	return how == PCPCACHE_REACH_OWN ? smp_processor_id() : cpu;
}

/* Whether round @a is @b or later, across wrap-around. */
static bool pcpcache_round_reached(int a, int b)
{
	return (int)((unsigned int)a - (unsigned int)b) >= 0;
}

/*
 * The CPU whose magazine is reached this way, before taking its lock: the
 * one we run on is one that cannot leave it (a bound work item, a hotplug
 * callback on the CPU).
 */
static int pcpcache_reach_target(int cpu, enum pcpcache_reach how)
{
	return how == PCPCACHE_REACH_OWN ? raw_smp_processor_id() : cpu;
}

/*
 * Carry out @rq on a magazine (@cpu's, or the one of the CPU we run on),
 * holding its lock for at most PCPCACHE_MAX_BATCH pages at a time: a
 * lowered high is reached in steps. The pages in transit to the CPU go
 * back first: whatever the request, it may be for a new mode that keeps
 * no owners, or for a CPU that died.
 */
static void pcpcache_carry_out(int cpu, enum pcpcache_reach how,
			       const struct pcpcache_request *rq)
{
	struct pcpcache_cut out;
	struct pcpcache_cpu *pc;
	unsigned int trimmed;
	unsigned long flags;
	bool first = true;
	int mag_cpu;

	mag_cut_init(&out);
	pcpcache_transit_take(pcpcache_reach_target(cpu, how), &out, true);
	do {
		pc = pcpcache_reach_lock(cpu, how, &flags);
		mag_cpu = pcpcache_reach_cpu(cpu, how);
		if (first && rq->cfg)
			mag_reconfigure(&pc->mag, rq->cfg, &out);
		if (first && rq->drain)
			mag_drain(&pc->mag, &out);
		trimmed = mag_trim_excess(&pc->mag, &out, PCPCACHE_MAX_BATCH);
		pcpcache_reach_unlock(pc, how, flags);
		pcpcache_give_back_drained(&out, mag_cpu, rq->why);
		first = false;
	} while (trimmed);
	/* what is at home in its blocks goes too, once the magazine's is there */
	if (rq->drain || (rq->cfg && rq->cfg->mode != PCPCACHE_MODE_BLOCKS)) {
		mag_cpu = pcpcache_reach_target(cpu, how);
		trimmed = pcpcache_blocks_release(mag_cpu, ULONG_MAX, true);
		if (trimmed)
			pcpcache_count_drained(mag_cpu, trimmed, rq->why);
	}
}

/*
 * Give back what @out holds for @why (the shrinker or the OOM notifier),
 * counted only as far as it reached the buddy allocator: in blocks mode
 * a page of a tracked block goes home to it instead, and is counted when
 * the reserve lets it go. Return: the pages the buddy allocator got.
 */
static unsigned long pcpcache_give_back_reclaimed(struct pcpcache_cut *out,
						  int cpu,
						  enum pcpcache_drain_why why)
{
	unsigned int freed = pcpcache_give_back(out);

	if (freed)
		pcpcache_count_drained(cpu, freed, why);
	return freed;
}

/*
 * Give back about @nr pages of a magazine, coldest first, in steps of at
 * most PCPCACHE_MAX_BATCH, if it holds pages of node @nid, for @why (the
 * shrinker or the OOM notifier). Return: how many reached the buddy
 * allocator: fewer when it had fewer, or up to a block more.
 */
static unsigned long pcpcache_shrink_mag(int cpu, enum pcpcache_reach how,
					 int nid, unsigned long nr,
					 enum pcpcache_drain_why why)
{
	int mag_cpu, target = pcpcache_reach_target(cpu, how);
	bool local = cpu_to_mem(target) == nid;
	unsigned long freed = 0, taken = 0, released;
	unsigned int old = 0, new = 0;
	unsigned int step, want;
	struct pcpcache_cut out;
	struct pcpcache_cpu *pc;
	unsigned long flags;
	bool cut;

	mag_cut_init(&out);
	/*
	 * In transit first, then the magazine, then what is at home in the
	 * blocks (blocks mode): the pages of the first two that go home
	 * reach the buddy allocator only with the reserve, after them.
	 */
	if (local) {
		taken = pcpcache_transit_take(target, &out, true);
		freed = pcpcache_give_back_reclaimed(&out, target, why);
	}
	while (taken < nr) {
		want = min_t(unsigned long, nr - taken, PCPCACHE_MAX_BATCH);
		pc = pcpcache_reach_lock(cpu, how, &flags);
		mag_cpu = pcpcache_reach_cpu(cpu, how);
		step = 0;
		cut = false;
		/* a magazine holds only pages of its CPU's nearest memory */
		if (pcpcache_reach_node(cpu, how) == nid) {
			old = pc->mag.lists[PCPCACHE_LIST_HOT].high;
			cut = mag_high_cut(&pc->mag);
			new = pc->mag.lists[PCPCACHE_LIST_HOT].high;
			step = mag_shrink(&pc->mag, want, &out);
		}
		pcpcache_reach_unlock(pc, how, flags);
		freed += pcpcache_give_back_reclaimed(&out, mag_cpu, why);
		if (cut)
			pcpcache_high_moved(mag_cpu, old, new, PCPCACHE_HIGH_CUT);
		taken += step;
		if (step < want)
			break;
	}
	if (local && freed < nr) {
		released = pcpcache_blocks_release(target, nr - freed, false);
		if (released)
			pcpcache_count_drained(target, released, why);
		freed += released;
	}

	return freed;
}

/* The work of pcpcache_request_all(), on the CPU it was queued on. */
static void pcpcache_request_work(struct work_struct *work)
{
	struct pcpcache_cpu_requests *r =
		container_of(work, struct pcpcache_cpu_requests, work);

	pcpcache_carry_out(0, PCPCACHE_REACH_OWN, &r->rq);
}

/*
 * An auto-tuned high's decay tick, on its CPU, every
 * PCPCACHE_DECAY_INTERVAL while auto-tuning is on: a deferrable timer, so
 * that an idle CPU is not woken for it; the tick it misses is taken when
 * it wakes. The lowered high is reached in steps, as a reconfiguration's.
 */
static void pcpcache_decay_work(struct work_struct *work)
{
	struct pcpcache_cpu_requests *r = container_of(to_delayed_work(work),
			struct pcpcache_cpu_requests, decay_work);
	struct pcpcache_cut out;
	struct pcpcache_cpu *pc;
	unsigned int trimmed, old, new;
	unsigned long flags;
	bool decayed, again;

	/* its CPU went down: it is armed again when the CPU comes back */
	if (raw_smp_processor_id() != r->cpu)
		return;
	mag_cut_init(&out);
	pc = pcpcache_lock_this_cpu_wait(&flags);
	old = pc->mag.lists[PCPCACHE_LIST_HOT].high;
	decayed = mag_high_decay(&pc->mag);
	new = pc->mag.lists[PCPCACHE_LIST_HOT].high;
	again = pc->mag.high_auto;
	pcpcache_unlock_this_cpu_wait(pc, flags);
	if (decayed)
		pcpcache_high_moved(r->cpu, old, new, PCPCACHE_HIGH_DECAYED);
	do {
		pc = pcpcache_lock_this_cpu_wait(&flags);
		trimmed = mag_trim_excess(&pc->mag, &out, PCPCACHE_MAX_BATCH);
		pcpcache_unlock_this_cpu_wait(pc, flags);
		pcpcache_give_back_drained(&out, r->cpu, PCPCACHE_DRAIN_HIGH);
	} while (trimmed);
	if (again)
		queue_delayed_work_on(r->cpu, pcpcache_wq, &r->decay_work,
				      PCPCACHE_DECAY_INTERVAL);
}

/* Start @cpu's decay ticks, if auto-tuning is on and they are not running. */
static void pcpcache_decay_arm(int cpu, const struct pcpcache_config *cfg)
{
	struct pcpcache_cpu_requests *r = per_cpu_ptr(&pcpcache_requests, cpu);

	if (cfg->high_auto && cpu_online(cpu))
		queue_delayed_work_on(cpu, pcpcache_wq, &r->decay_work,
				      PCPCACHE_DECAY_INTERVAL);
}

/* The drain of pcpcache_drain_all_async(), on the CPU it was queued on. */
static void pcpcache_drain_work(struct work_struct *work)
{
	struct pcpcache_cpu_requests *r =
		container_of(work, struct pcpcache_cpu_requests, drain_work);
	const struct pcpcache_request rq = {
		.drain = true,
		.why = PCPCACHE_DRAIN_REQUEST,
	};

	/* a CPU that went down first was drained by pcpcache_cpu_dead() */
	if (raw_smp_processor_id() == r->cpu)
		pcpcache_carry_out(0, PCPCACHE_REACH_OWN, &rq);
}

/**
 * pcpcache_drain_all_async - give every CPU's cached pages back, unwaited
 *
 * For memory going offline, whose caller holds the hotplug locks and
 * retries until the pages arrive: under lock=local each CPU drains itself
 * when it runs; nothing waits for it, nor takes the configuration mutex.
 */
void pcpcache_drain_all_async(void)
{
	const struct pcpcache_request rq = {
		.drain = true,
		.why = PCPCACHE_DRAIN_REQUEST,
	};
	int cpu;

	mutex_lock(&pcpcache_hotplug_mutex);
	for_each_possible_cpu(cpu) {
		struct pcpcache_cpu_requests *r = per_cpu_ptr(&pcpcache_requests, cpu);

		if (pcpcache_spin_design())
			pcpcache_carry_out(cpu, PCPCACHE_REACH_SPIN, &rq);
		else if (cpumask_test_cpu(cpu, &pcpcache_cpus_up))
			queue_work_on(cpu, pcpcache_wq, &r->drain_work);
	}
	mutex_unlock(&pcpcache_hotplug_mutex);
	pcpcache_barns_give_back(NUMA_NO_NODE, ULONG_MAX, PCPCACHE_DRAIN_REQUEST);
}

/**
 * pcpcache_request_all - reconfigure every CPU's magazine, maybe drain it
 * @cfg: the configuration to put in force, already checked
 * @drain: also give back every cached page
 *
 * Called with the configuration mutex held, which serialises the users of
 * each CPU's request and of pcpcache_queued. Returns once every CPU has
 * done it, or will be given @cfg when it comes up.
 */
void pcpcache_request_all(const struct pcpcache_config *cfg, bool drain)
{
	const struct pcpcache_request rq = {
		.cfg = &pcpcache_up_config,
		.drain = drain,
		.why = drain ? PCPCACHE_DRAIN_REQUEST : PCPCACHE_DRAIN_RECONFIG,
	};
	int cpu;

	cpumask_clear(&pcpcache_queued);
	mutex_lock(&pcpcache_hotplug_mutex);
	pcpcache_up_config = *cfg;
	for_each_possible_cpu(cpu) {
		struct pcpcache_cpu_requests *r = per_cpu_ptr(&pcpcache_requests, cpu);

		if (pcpcache_spin_design()) {
			pcpcache_carry_out(cpu, PCPCACHE_REACH_SPIN, &rq);
		} else if (cpumask_test_cpu(cpu, &pcpcache_cpus_up)) {
			r->rq = rq;
			queue_work_on(cpu, pcpcache_wq, &r->work);
			cpumask_set_cpu(cpu, &pcpcache_queued);
		} else {
			pcpcache_carry_out(cpu, PCPCACHE_REACH_IDLE, &rq);
		}
	}
	mutex_unlock(&pcpcache_hotplug_mutex);

	for_each_cpu(cpu, &pcpcache_queued)
		flush_work(&per_cpu_ptr(&pcpcache_requests, cpu)->work);
	for_each_online_cpu(cpu)
		pcpcache_decay_arm(cpu, cfg);
}

/* How hotplug's callbacks reach the magazine of a CPU that runs nothing. */
static enum pcpcache_reach pcpcache_hotplug_reach(void)
{
	return pcpcache_spin_design() ? PCPCACHE_REACH_SPIN : PCPCACHE_REACH_IDLE;
}

/**
 * pcpcache_cpu_prepare - ready the magazine of a CPU about to start
 * @cpu: the CPU, which runs nothing yet
 *
 * Return: 0.
 */
int pcpcache_cpu_prepare(unsigned int cpu)
{
	const struct pcpcache_request rq = {
		.cfg = &pcpcache_up_config,
		.why = PCPCACHE_DRAIN_RECONFIG,
	};

	mutex_lock(&pcpcache_hotplug_mutex);
	pcpcache_carry_out(cpu, pcpcache_hotplug_reach(), &rq);
	cpumask_set_cpu(cpu, &pcpcache_cpus_up);
	mutex_unlock(&pcpcache_hotplug_mutex);
	return 0;
}

/**
 * pcpcache_cpu_online - catch up once a CPU can run work
 * @cpu: the CPU, which we run on, pinned
 *
 * Under lock=local, work queued on a CPU before it could run work ran
 * elsewhere: put the configuration in force now.
 *
 * Return: 0.
 */
int pcpcache_cpu_online(unsigned int cpu)
{
	const struct pcpcache_request rq = {
		.cfg = &pcpcache_up_config,
		.why = PCPCACHE_DRAIN_RECONFIG,
	};

	mutex_lock(&pcpcache_hotplug_mutex);
	if (!pcpcache_spin_design())
		pcpcache_carry_out(cpu, PCPCACHE_REACH_OWN, &rq);
	pcpcache_decay_arm(cpu, &pcpcache_up_config);
	mutex_unlock(&pcpcache_hotplug_mutex);
	return 0;
}

/*
 * Give back the barn of @cpu's node when @cpu was the last CPU to use it.
 * No CPU gives it a magazine until one of the node comes back, and a
 * barn kept would be outside the bound, whose share per CPU grows as CPUs
 * go (policy.c). Under pcpcache_hotplug_mutex, @cpu out of
 * pcpcache_cpus_up.
 */
static void pcpcache_barn_orphaned(unsigned int cpu)
{
	int nid = cpu_to_mem(cpu), other;

	lockdep_assert_held(&pcpcache_hotplug_mutex);
	for_each_cpu(other, &pcpcache_cpus_up)
		if (cpu_to_mem(other) == nid)
			return;
	pcpcache_barns_give_back(nid, ULONG_MAX, PCPCACHE_DRAIN_CPU_DEAD);
}

/**
 * pcpcache_cpu_dead - empty the magazine of a CPU that died
 * @cpu: the CPU, which runs nothing any more
 *
 * And its node's barn, when no CPU of the node is left.
 *
 * Return: 0.
 */
int pcpcache_cpu_dead(unsigned int cpu)
{
	const struct pcpcache_request rq = {
		.drain = true,
		.why = PCPCACHE_DRAIN_CPU_DEAD,
	};

	/* what was left to its irq_work (on PREEMPT_RT, maybe never run) */
	pcpcache_deferred_dead(cpu);
	mutex_lock(&pcpcache_hotplug_mutex);
	cpumask_clear_cpu(cpu, &pcpcache_cpus_up);
	pcpcache_carry_out(cpu, pcpcache_hotplug_reach(), &rq);
	pcpcache_barn_orphaned(cpu);
	mutex_unlock(&pcpcache_hotplug_mutex);
	return 0;
}

/* The pages in @cpu's magazine, read without its lock. */
static unsigned int pcpcache_cpu_mag_pages(int cpu)
{
	struct pcpcache_mag *mag = &per_cpu_ptr(&pcpcache_cpus, cpu)->mag;

	return READ_ONCE(mag->lists[PCPCACHE_LIST_HOT].count) +
	       READ_ONCE(mag->lists[PCPCACHE_LIST_COLD].count);
}

/* ... in transit to it and at home in its blocks: what a shrinker can take */
static unsigned int pcpcache_cpu_cached(int cpu)
{
	return pcpcache_cpu_mag_pages(cpu) + pcpcache_cpu_transit(cpu) +
	       pcpcache_cpu_blocks(cpu);
}

/* Whether @cpu is worth asking for pages of node @nid. */
static bool pcpcache_has_pages_of(int cpu, int nid)
{
	return cpu_to_mem(cpu) == nid && pcpcache_cpu_cached(cpu);
}

/* lock=spin: an equal share from each CPU of @nid, then whatever is left. */
static unsigned long pcpcache_shrink_directly(int nid, unsigned long nr,
					      enum pcpcache_drain_why why)
{
	unsigned long freed = 0, share;
	unsigned int cpus = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		cpus += pcpcache_has_pages_of(cpu, nid);
	if (!cpus)
		return 0;
	share = DIV_ROUND_UP(nr, cpus);
	for_each_possible_cpu(cpu) {
		if (freed >= nr)
			return freed;
		if (pcpcache_has_pages_of(cpu, nid))
			freed += pcpcache_shrink_mag(cpu, PCPCACHE_REACH_SPIN, nid,
						     min(share, nr - freed), why);
	}
	for_each_possible_cpu(cpu) {
		if (freed >= nr)
			break;
		if (pcpcache_has_pages_of(cpu, nid))
			freed += pcpcache_shrink_mag(cpu, PCPCACHE_REACH_SPIN, nid,
						     nr - freed, why);
	}
	return freed;
}

/* The answer of a CPU to pcpcache_shrink_by_work(), there. */
static void pcpcache_shrink_work(struct work_struct *work)
{
	struct pcpcache_cpu_requests *r =
		container_of(work, struct pcpcache_cpu_requests, shrink_work);
	/* before taking the want: a reclaimer adding to it later queues again */
	int round = atomic_read(&pcpcache_shrink_round);
	unsigned long want = atomic_long_xchg(&r->shrink_want, 0);
	enum pcpcache_drain_why why = atomic_xchg(&r->oom_asked, 0) ?
				      PCPCACHE_DRAIN_OOM : PCPCACHE_DRAIN_SHRINKER;

	/* a CPU that went down first gave everything back when it died */
	if (want && raw_smp_processor_id() == r->cpu)
		atomic_long_add(pcpcache_shrink_mag(0, PCPCACHE_REACH_OWN,
						    numa_mem_id(), want, why),
				&r->shrunk);
	atomic_set_release(&r->done_round, round);
	wake_up_all(&pcpcache_shrink_answers);
}

/* Note that @round asked @r, unless a later round did already. */
static void pcpcache_note_asked(struct pcpcache_cpu_requests *r, int round)
{
	int old = atomic_read(&r->asked_round);

	do {
		if (pcpcache_round_reached(old, round))
			return;
	} while (!atomic_try_cmpxchg(&r->asked_round, &old, round));
}

/*
 * What the CPUs @round asked have given back so far, taken for its count:
 * also what they gave back for a later round (kswapd's, say) that asked
 * them meanwhile, which a round waiting longer may see first.
 */
static unsigned long pcpcache_shrink_collect(int round)
{
	unsigned long freed = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct pcpcache_cpu_requests *r = per_cpu_ptr(&pcpcache_requests, cpu);

		if (pcpcache_round_reached(atomic_read(&r->asked_round), round))
			freed += atomic_long_xchg(&r->shrunk, 0);
	}
	return freed;
}

/*
 * Whether every CPU this round queued work on has answered; the CPUs that
 * have not are counted in @late, when given.
 */
static bool pcpcache_shrink_answered(int round, int late)
{
	bool answered = true;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct pcpcache_cpu_requests *r = per_cpu_ptr(&pcpcache_requests, cpu);

		if (pcpcache_round_reached(atomic_read(&r->asked_round), round) &&
		    !pcpcache_round_reached(atomic_read_acquire(&r->done_round), round)) {
			answered = false;
			if (late < 0)
				break;
			pcpcache_count(late, 1);
		}
	}
	return answered;
}

/*
 * lock=local: what the CPU we run on has at once, then an equal share from
 * each other CPU of @nid that has pages, asked by work, waited for at most
 * PCPCACHE_SHRINK_WAIT_MS, or PCPCACHE_OOM_WAIT_MS for the OOM notifier
 * (@oom). A CPU whose work is still pending from an earlier request is
 * asked too, but waited for by the OOM notifier only. The shrinker
 * counts the CPUs it did not wait for in shrink_skipped, the OOM
 * notifier those that had not answered in time in oom_late.
 */
static unsigned long pcpcache_shrink_by_work(int nid, unsigned long nr,
					     bool oom)
{
	enum pcpcache_drain_why why = oom ? PCPCACHE_DRAIN_OOM : PCPCACHE_DRAIN_SHRINKER;
	unsigned int wait_ms = oom ? PCPCACHE_OOM_WAIT_MS : PCPCACHE_SHRINK_WAIT_MS;
	int late = oom ? PCPCACHE_OOM_LATE : PCPCACHE_SHRINK_SKIPPED;
	unsigned long freed, share;
	unsigned int cpus = 0;
	int cpu, self, round;

	self = raw_smp_processor_id();
	freed = pcpcache_shrink_mag(self, PCPCACHE_REACH_OWN, nid, nr, why);
	if (freed >= nr)
		return freed;

	for_each_online_cpu(cpu)
		cpus += cpu != self && pcpcache_has_pages_of(cpu, nid);
	if (!cpus)
		return freed;
	share = DIV_ROUND_UP(nr - freed, cpus);

	round = atomic_inc_return(&pcpcache_shrink_round);
	for_each_online_cpu(cpu) {
		struct pcpcache_cpu_requests *r = per_cpu_ptr(&pcpcache_requests, cpu);

		if (cpu == self || !pcpcache_has_pages_of(cpu, nid))
			continue;
		/* what a slow CPU is asked for adds up, to what it has at most */
		if (atomic_long_read(&r->shrink_want) < pcpcache_cpu_cached(cpu))
			atomic_long_add(share, &r->shrink_want);
		if (oom)
			atomic_set(&r->oom_asked, 1);
		/*
		 * Work still pending from an earlier request answers this
		 * round too when it runs: the OOM notifier waits for it.
		 */
		if (queue_work_on(cpu, pcpcache_wq, &r->shrink_work) || oom)
			pcpcache_note_asked(r, round);
		else
			pcpcache_count(late, 1);
	}
	if (!wait_event_timeout(pcpcache_shrink_answers,
				pcpcache_shrink_answered(round, -1),
				msecs_to_jiffies(wait_ms)))
		pcpcache_shrink_answered(round, late);

	return freed + pcpcache_shrink_collect(round);
}

/**
 * pcpcache_shrink - give cached pages of a node back because memory is short
 * @nid: the node whose memory is wanted
 * @nr: how many pages to give back at most
 *
 * Coldest pages first. See the top of the file for who waits for whom.
 *
 * Return: the number given back by the time it returns; more may follow
 * from CPUs that answer late.
 */
unsigned long pcpcache_shrink(int nid, unsigned long nr)
{
	u64 start = ktime_get_ns(), ns;
	unsigned long freed;

	/* a barn's magazines first: no CPU is using them */
	freed = pcpcache_barns_give_back(nid, nr, PCPCACHE_DRAIN_SHRINKER);
	if (freed < nr && pcpcache_spin_design())
		freed += pcpcache_shrink_directly(nid, nr - freed,
						  PCPCACHE_DRAIN_SHRINKER);
	else if (freed < nr)
		freed += pcpcache_shrink_by_work(nid, nr - freed, false);
	ns = ktime_get_ns() - start;
	pcpcache_note_shrink_time(ns);
	pcpcache_count(PCPCACHE_SHRINK, 1);
	trace_pcpcache_shrink(nid, nr, freed, ns);
	return freed;
}

/**
 * pcpcache_oom_give_back - give every cached page back before an OOM kill
 *
 * From the OOM notifier, which out_of_memory() calls with oom_lock held
 * before it picks a victim; it may sleep. Every node, every CPU: under
 * lock=local a CPU held by a SCHED_FIFO task is waited for as long as RT
 * throttling takes to let its work run (PCPCACHE_OOM_WAIT_MS).
 *
 * Return: the pages given back since its last call, to it or to the
 * shrinker. A CPU that answers a shrinker scan late gives its pages back
 * when it runs, which may be after the allocation's last try and before
 * this call; and a scan waiting meanwhile may take an answer to this
 * call for its own count. Either way the pages are back, and nobody need
 * be killed for them. Called under oom_lock, which serialises the calls.
 */
unsigned long pcpcache_oom_give_back(void)
{
	static unsigned long seen;
	unsigned long before, now, nr;
	int nid;

	pcpcache_count(PCPCACHE_OOM, 1);
	for_each_node_state(nid, N_MEMORY) {
		pcpcache_barns_give_back(nid, ULONG_MAX, PCPCACHE_DRAIN_OOM);
		nr = pcpcache_parked_pages(nid);
		if (!nr)
			continue;
		if (pcpcache_spin_design())
			pcpcache_shrink_directly(nid, nr, PCPCACHE_DRAIN_OOM);
		else
			pcpcache_shrink_by_work(nid, nr, true);
	}
	now = pcpcache_stat_sum(PCPCACHE_OOM_PAGES) +
	      pcpcache_stat_sum(PCPCACHE_SHRINK_PAGES);
	before = seen;
	seen = now;
	return now - before;
}

/**
 * pcpcache_cpu_lists - counts, batch and high of one CPU's lists
 * @cpu: the CPU
 * @lists: where to copy them (not the pages)
 *
 * Read without the CPU's lock, as /proc/zoneinfo reads the kernel's pcp
 * counts: each value is one the magazine had, the set of them may be from
 * either side of a reconfiguration.
 *
 * Return: the CPU's mode.
 */
enum pcpcache_mode pcpcache_cpu_lists(int cpu, struct pcpcache_list *lists)
{
	struct pcpcache_mag *mag = &per_cpu_ptr(&pcpcache_cpus, cpu)->mag;
	unsigned int order;
	int i;

	for (i = 0; i < PCPCACHE_NR_LISTS; i++) {
		for (order = 0; order < PCPCACHE_NR_ORDERS; order++)
			lists[i].nr[order] = READ_ONCE(mag->lists[i].nr[order]);
		lists[i].count = READ_ONCE(mag->lists[i].count);
		lists[i].batch = READ_ONCE(mag->lists[i].batch);
		lists[i].high = READ_ONCE(mag->lists[i].high);
	}
	return READ_ONCE(mag->mode);
}

/*
 * The pages in the magazines of a node, or of all, read as
 * pcpcache_cpu_lists(), and in its barn (barn mode).
 */
unsigned long pcpcache_cached_pages(int nid)
{
	return pcpcache_sum_cpus(nid, pcpcache_cpu_mag_pages) +
	       pcpcache_barn_pages(nid);
}

/* ... and in transit to their CPUs and at home in their blocks: all a shrink takes */
unsigned long pcpcache_parked_pages(int nid)
{
	return pcpcache_sum_cpus(nid, pcpcache_cpu_cached) +
	       pcpcache_barn_pages(nid);
}

/**
 * pcpcache_request_init - set up the magazines and the means to reach them
 * @cfg: the configuration to start with, already checked
 *
 * Return: 0, or -ENOMEM.
 */
int pcpcache_request_init(const struct pcpcache_config *cfg)
{
	int cpu;

	/* a rescuer, for the shrinker's work under memory pressure */
	pcpcache_wq = alloc_workqueue("pcpcache", WQ_MEM_RECLAIM | WQ_HIGHPRI |
				      PCPCACHE_WQ_PERCPU, 0);
	if (!pcpcache_wq)
		return -ENOMEM;

	pcpcache_up_config = *cfg;
	for_each_possible_cpu(cpu) {
		struct pcpcache_cpu *pc = per_cpu_ptr(&pcpcache_cpus, cpu);
		struct pcpcache_cpu_requests *r = per_cpu_ptr(&pcpcache_requests, cpu);

		spin_lock_init(&pc->slock);
		mag_init(&pc->mag, cfg);
		pcpcache_reserve_init(&pc->reserve);
		r->cpu = cpu;
		INIT_WORK(&r->work, pcpcache_request_work);
		INIT_WORK(&r->drain_work, pcpcache_drain_work);
		INIT_WORK(&r->shrink_work, pcpcache_shrink_work);
		INIT_DEFERRABLE_WORK(&r->decay_work, pcpcache_decay_work);
		atomic_long_set(&r->shrink_want, 0);
		atomic_long_set(&r->shrunk, 0);
		atomic_set(&r->asked_round, 0);
		atomic_set(&r->done_round, 0);
	}
	return 0;
}

/**
 * pcpcache_request_exit - free what pcpcache_request_init() set up
 *
 * Every magazine is empty by now, and nothing else queues work: the decay
 * ticks, which queue themselves again, are stopped here.
 */
void pcpcache_request_exit(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		cancel_delayed_work_sync(&per_cpu_ptr(&pcpcache_requests, cpu)->decay_work);
	destroy_workqueue(pcpcache_wq);
}
