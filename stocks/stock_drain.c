// SPDX-License-Identifier: GPL-2.0
/*
 * The drains of every design's per-CPU stocks: drain all (asynchronous and
 * synchronous), the dead-CPU drain of CPU hotplug, and the drain of module
 * exit.  Above the designs: it walks their kinds of stock through the
 * binding table (stock_designs.h), and knows none of them by name.
 *
 * Context: mcs_drain_all_stock() in task context (it may sleep when
 * @sync); every drain acts on one stock on its own CPU (a work item) or
 * on a dead CPU's stock.  Lock order: drain_mutex, then a stock's lock.
 */
#include <linux/module.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/workqueue.h>

#include "stock_designs.h"
#include "stock_drain.h"

/* The binding table as data, for the drains and the switch. */
const struct mcs_design *const mcs_stock_design[NR_MCS_MODES] = {
	MCS_STOCK_DESIGNS(MCS_DESIGN_BIND)
};

/* Each mode's metadata, for the harness's checks and debugfs "modes". */
const struct mcs_mode_info *const mcs_stock_modes[NR_MCS_MODES] = {
	MCS_STOCK_DESIGNS(MCS_MODE_INFO_BIND)
};

/**
 * mcs_stock_mode_design() - the design of a stock mode, for the KUnit suites
 * @mode: a mode of the binding table
 *
 * Return: its struct mcs_design (the binding table's design column).
 */
const struct mcs_design *mcs_stock_mode_design(enum mcs_stock_mode mode)
{
	return mcs_stock_design[mode];
}
EXPORT_SYMBOL_NS_GPL(mcs_stock_mode_design, MCS_NS);

/**
 * mcs_stock_mode_info() - the metadata of a stock mode, for the KUnit suites
 * @mode: a mode of the binding table
 *
 * Return: its struct mcs_mode_info (mcs_mode_<entry> of its design).
 */
const struct mcs_mode_info *mcs_stock_mode_info(enum mcs_stock_mode mode)
{
	return mcs_stock_modes[mode];
}
EXPORT_SYMBOL_NS_GPL(mcs_stock_mode_info, MCS_NS);

/*
 * Every kind of stock of every design, once each, NULL-terminated: each
 * design's kinds in its order (bytes first).  Filled by mcs_drain_init().
 */
#define MCS_MAX_STOCK_KINDS	8
static const struct mcs_stock_kind *stock_kinds[MCS_MAX_STOCK_KINDS + 1];

/*
 * Designs whose stocks live in the memcgs (drain_memcg): drained by a walk
 * of the subtree.  Walked only once such a design has been the mode since
 * load (mcs_drain_note_mode()): until then their stocks are empty.
 */
static bool memcg_stocks_used;

/* @mode is about to become the mode: its design's stocks will be used. */
void mcs_drain_note_mode(enum mcs_stock_mode mode)
{
	if (mcs_stock_design[mode]->drain_memcg)
		WRITE_ONCE(memcg_stocks_used, true);
}

static void drain_memcg_fn(struct mcs_memcg *memcg, void *arg)
{
	int cpu = (long)arg, m;

	for (m = 0; m < NR_MCS_MODES; m++)
		if (mcs_stock_design[m]->drain_memcg)
			mcs_stock_design[m]->drain_memcg(memcg, cpu);
}

/*
 * The stocks in @root's subtree of @cpu, or of every CPU for @cpu < 0.
 * Task context; sleeps (the walk holds the tree lock).
 */
static void drain_memcg_stocks(struct mcs_memcg *root, int cpu)
{
	if (root && READ_ONCE(memcg_stocks_used))
		mcs_memcg_walk(root, drain_memcg_fn, (void *)(long)cpu);
}

/*
 * The asynchronous drain must not sleep (a charge may run inside an RCU
 * section): it hands the walk to a work item, best effort like the per-CPU
 * drains, and one pending at a time.  The work walks the whole tree from
 * the root, which lives until module exit, so that it holds no memcg.
 */
static void memcg_drain_work_fn(struct work_struct *work)
{
	drain_memcg_stocks(mcs_root_memcg(), -1);
}

static DECLARE_WORK(memcg_drain_work, memcg_drain_work_fn);

static void drain_memcg_stocks_async(void)
{
	if (READ_ONCE(memcg_stocks_used))
		queue_work(mcs_system_dfl_wq, &memcg_drain_work);
}

static DEFINE_MUTEX(drain_mutex);	/* one drain-all at a time */
struct workqueue_struct *mcs_drain_wq;
static enum cpuhp_state hp_state;

/*
 * Start a drain of one stock of @cpu unless one is pending; the current
 * CPU's is drained right here.  Every kind of stock follows this protocol
 * with its own FLUSHING bit and work item.
 *
 * As upstream: no work for an isolated CPU (isolcpus=, nohz_full=, an
 * isolated cpuset partition), whose users asked for no such jitter; its
 * stocks stay until a synchronous drain, an offline or its own charges
 * empty them.  The test and the queueing form one RCU section: on kernels
 * that replace the housekeeping mask at run time (housekeeping_update()),
 * the mask is RCU-protected, and the update waits a grace period before it
 * flushes the work of newly isolated CPUs.
 */
static void schedule_stock_drain(int cpu, int curcpu, unsigned long *flags,
				 struct work_struct *work)
{
	if (cpu == curcpu) {
		if (!test_and_set_bit(FLUSHING_CACHED_CHARGE, flags))
			work->func(work);
		return;
	}
	rcu_read_lock();
	mcs_test_hook_at(MCS_HOOK_DRAIN_REMOTE);
	if (!mcs_cpu_is_isolated(cpu) && !test_and_set_bit(FLUSHING_CACHED_CHARGE, flags))
		queue_work_on(cpu, mcs_drain_wq, work);
	rcu_read_unlock();
}

static void drain_all_async(struct mcs_memcg *root)
{
	const struct mcs_stock_kind *const *kind;
	int cpu, curcpu;

	/* Best effort: whoever holds the mutex is draining already. */
	if (!mutex_trylock(&drain_mutex))
		return;

	/*
	 * No cpus_read_lock(): a CPU that goes down meanwhile is drained by
	 * the hotplug callback, and every drain acts on local data only.
	 */
	migrate_disable();
	curcpu = smp_processor_id();
	for_each_online_cpu(cpu) {
		for (kind = stock_kinds; *kind; kind++) {
			unsigned long *flags = mcs_stock_flags(*kind, cpu);

			if (!test_bit(FLUSHING_CACHED_CHARGE, flags) &&
			    (*kind)->holds(cpu, root, false))
				schedule_stock_drain(cpu, curcpu, flags,
						     mcs_stock_work(*kind, cpu));
		}
	}
	migrate_enable();
	drain_memcg_stocks_async();
	mutex_unlock(&drain_mutex);
}

/*
 * Caller holds drain_mutex and the CPU hotplug lock: CPUs stay online, so
 * every work item runs on its own CPU.  The kinds of stock are drained
 * one after the other, each design's in its order (bytes first).
 */
static void drain_all_sync_cpuslocked(struct mcs_memcg *root)
{
	const struct mcs_stock_kind *const *kind;
	int cpu;

	lockdep_assert_held(&drain_mutex);
	for (kind = stock_kinds; *kind; kind++) {
		for_each_online_cpu(cpu) {
			if (!(*kind)->holds(cpu, root, true))
				continue;
			set_bit(FLUSHING_CACHED_CHARGE, mcs_stock_flags(*kind, cpu));
			queue_work_on(cpu, mcs_drain_wq, mcs_stock_work(*kind, cpu));
		}
		for_each_online_cpu(cpu)
			flush_work(mcs_stock_work(*kind, cpu));
	}
	drain_memcg_stocks(root, -1);
}

static void drain_all_sync(struct mcs_memcg *root)
{
	mutex_lock(&drain_mutex);
	cpus_read_lock();
	drain_all_sync_cpuslocked(root);
	cpus_read_unlock();
	mutex_unlock(&drain_mutex);
}

void mcs_drain_all_stock(struct mcs_memcg *root, bool sync)
{
	if (!in_task()) {
		pr_warn_ratelimited("memcg_stock: drain refused outside task context\n");
		return;
	}
	if (sync)
		drain_all_sync(root);
	else
		drain_all_async(root);
}
EXPORT_SYMBOL_GPL(mcs_drain_all_stock);

/*
 * The most pages that the page stocks of @mode can hold over the online
 * CPUs while @nr_memcgs memcgs charge: per CPU, the memcgs its page stock
 * holds at once, a batch each (mcs_batch_now(); the harness reports the
 * charge that the stocks strand against it).
 */
unsigned long mcs_stock_page_bound(enum mcs_stock_mode mode, unsigned long nr_memcgs)
{
	unsigned long per_cpu = min_t(unsigned long, mcs_stock_design[mode]->memcgs_per_cpu,
				      nr_memcgs);

	return per_cpu * num_online_cpus() * mcs_batch_now();
}

/* A dead CPU's stocks of every kind: nothing runs there, no lock needed. */
void mcs_stocks_cpu_dead(unsigned int cpu)
{
	const struct mcs_stock_kind **kind;

	for (kind = stock_kinds; *kind; kind++)
		(*kind)->cpu_dead(cpu);
	drain_memcg_stocks(mcs_root_memcg(), cpu);
}

static int mcs_cpu_dead(unsigned int cpu)
{
	mcs_stocks_cpu_dead(cpu);
	/* releases an NMI left on the list while @cpu was going down */
	mcs_run_deferred_releases();
	return 0;
}

/* ---- charging ------------------------------------------------------------- */

/*
 * Module exit: drain every possible CPU, online ones through their work,
 * the others here, and remove the hotplug state, all under one hold of
 * the CPU hotplug lock: a CPU that went down and came back between two
 * passes would otherwise be drained by neither.  An offline CPU's stocks
 * were emptied by the dead-CPU callback when it went down, and nothing
 * fills them while it is down: pages found there now mean the callback
 * missed them (drained all the same, and warned about).
 */
void mcs_drain_exit(void)
{
	struct mcs_memcg *root = mcs_root_memcg();	/* NULL: a failed init, nothing charged */
	unsigned long before, after;
	int cpu;

	flush_work(&memcg_drain_work);
	mutex_lock(&drain_mutex);
	cpus_read_lock();
	drain_all_sync_cpuslocked(root);
	before = root ? mcs_memcg_usage(root) : 0;
	for_each_possible_cpu(cpu) {
		if (cpu_online(cpu))
			continue;
		mcs_stocks_cpu_dead(cpu);
	}
	after = root ? mcs_memcg_usage(root) : 0;
	WARN(after != before, "memcg_stock: offline CPUs' stocks held %lu pages at exit\n",
	     before - after);
	cpuhp_remove_state_nocalls_cpuslocked(hp_state);
	cpus_read_unlock();
	mutex_unlock(&drain_mutex);
	destroy_workqueue(mcs_drain_wq);
}

/* Collect the kinds of stock of the designs of the binding table. */
static int collect_stock_kinds(void)
{
	const struct mcs_stock_kind *const *kind;
	unsigned int n = 0;
	int m, seen;

	for (m = 0; m < NR_MCS_MODES; m++) {
		for (seen = 0; seen < m; seen++)
			if (mcs_stock_design[seen] == mcs_stock_design[m])
				break;
		if (seen < m)
			continue;
		for (kind = mcs_stock_design[m]->kinds; *kind; kind++) {
			if (WARN_ON_ONCE(n == MCS_MAX_STOCK_KINDS))
				return -EINVAL;
			stock_kinds[n++] = *kind;
		}
	}
	stock_kinds[n] = NULL;
	return 0;
}

/* The drain work of every stock, the workqueue, the dead-CPU callback. */
int mcs_drain_init(void)
{
	const struct mcs_stock_kind **kind;
	int cpu, ret;

	ret = collect_stock_kinds();
	if (ret)
		return ret;
	for (kind = stock_kinds; *kind; kind++)
		for_each_possible_cpu(cpu)
			INIT_WORK(mcs_stock_work(*kind, cpu), (*kind)->drain_fn);

	mcs_drain_wq = alloc_workqueue("mcs_drain", MCS_WQ_PERCPU, 0);
	if (!mcs_drain_wq)
		return -ENOMEM;
	ret = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN, "memcg_stock:dead",
					NULL, mcs_cpu_dead);
	if (ret < 0) {
		destroy_workqueue(mcs_drain_wq);
		return ret;
	}
	hp_state = ret;
	return 0;
}
