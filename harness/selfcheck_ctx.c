// SPDX-License-Identifier: GPL-2.0
/*
 * Self-checks of the rules that depend on the context a drain or a charge
 * runs in, for kernels without KUnit (Debian's prebuilt kernels, whose
 * !PREEMPT_RT flavour is where a trylock in NMI can succeed), triggered
 * through debugfs "selftest":
 *
 *  nmi        an NMI that interrupts a task holding a stock falls back to
 *             the counters; an NMI on a free stock uses it on !PREEMPT_RT
 *             (and falls back on PREEMPT_RT, where a trylock in NMI always
 *             fails); everything stays exact
 *  isolation  an asynchronous drain sends no work to an isolated CPU, a
 *             synchronous drain empties it
 *
 * A check that cannot run here says SKIP and why.  Task context.
 */
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/ktime.h>
#include <linux/seq_buf.h>
#include <linux/workqueue.h>

#include "harness.h"
#include "selfcheck.h"

/* ---- nmi ------------------------------------------------------------------ */

struct nmi_check {
	struct mcs_memcg *memcg;
	struct mcs_objcg *objcg;
	int page_ret, obj_ret;
	bool in_nmi;
};

static void nmi_check_fn(void *arg)
{
	struct nmi_check *n = arg;

	n->in_nmi = in_nmi();
	n->page_ret = mcs_charge_pages(n->memcg, __GFP_NOWARN, 3);
	if (!n->page_ret)
		mcs_uncharge_pages(n->memcg, 3);
	n->obj_ret = mcs_obj_charge(n->objcg, __GFP_NOWARN, 300);
	if (!n->obj_ret)
		mcs_obj_uncharge(n->objcg, 300);
}

/*
 * A self-NMI normally arrives within microseconds.  The round busy-waits
 * for it with a stock lock held and preemption off, so that wait is short;
 * an NMI the kernel swallowed (nmi.c) must not hold the CPU for long.
 * After the lock is dropped, a late NMI is waited for a while longer,
 * sleeping, only to say in the report what became of it.
 */
#define NMI_HELD_WAIT_US	5000
#define NMI_LATE_WAIT_MS	1000

/* What became of a round's NMI. */
enum nmi_fate { NMI_ON_TIME, NMI_NOT_SENT, NMI_LATE, NMI_NEVER };

/* An NMI to this CPU, busy-waited for up to NMI_HELD_WAIT_US (may be atomic). */
static enum nmi_fate nmi_here(void)
{
	int cpu = smp_processor_id(), i;

	if (!mcs_nmi_raise(cpu))
		return NMI_NOT_SENT;
	for (i = 0; i < NMI_HELD_WAIT_US / 10 && mcs_nmi_pending(cpu); i++)
		ndelay(10000);
	return mcs_nmi_pending(cpu) ? NMI_NEVER : NMI_ON_TIME;
}

/*
 * The NMI of a round was not there in time: wait for it without the lock.
 * One that never comes is forgotten, so that the next round can send.
 */
static enum nmi_fate nmi_late(int cpu, unsigned int *late_ms)
{
	ktime_t start = ktime_get();

	while (mcs_nmi_pending(cpu) && ktime_ms_delta(ktime_get(), start) < NMI_LATE_WAIT_MS)
		usleep_range(500, 1000);
	*late_ms = ktime_ms_delta(ktime_get(), start);
	if (!mcs_nmi_pending(cpu))
		return NMI_LATE;
	mcs_nmi_forget(cpu);
	return NMI_NEVER;
}

enum nmi_held { HELD_NONE, HELD_MEMCG, HELD_OBJ };

/*
 * One NMI while @held is locked by this task; the events it caused.
 * Return: NMI_ON_TIME when the NMI ran while @held was locked.
 */
static enum nmi_fate nmi_round(struct nmi_check *n, enum nmi_held held, unsigned long *fails,
			       unsigned long *hits, unsigned int *late_ms)
{
	struct mcs_memcg_stat before, after;
	enum nmi_fate fate = NMI_NOT_SENT;
	int cpu;

	n->page_ret = -EINPROGRESS;
	n->obj_ret = -EINPROGRESS;
	n->in_nmi = false;
	migrate_disable();
	cpu = smp_processor_id();
	/* this CPU's stocks cache the memcg and the objcg */
	if (!mcs_charge_pages(n->memcg, GFP_KERNEL, 1))
		mcs_uncharge_pages(n->memcg, 1);
	if (!mcs_obj_charge(n->objcg, GFP_KERNEL, 8))
		mcs_obj_uncharge(n->objcg, 8);
	mcs_memcg_stat(n->memcg, &before);
	if (held == HELD_MEMCG && local_trylock(&mcs_memcg_stock.lock)) {
		fate = nmi_here();
		local_unlock(&mcs_memcg_stock.lock);
	} else if (held == HELD_OBJ && local_trylock(&mcs_obj_stock.lock)) {
		fate = nmi_here();
		local_unlock(&mcs_obj_stock.lock);
	} else if (held == HELD_NONE) {
		fate = nmi_here();
	}
	if (fate == NMI_NEVER)
		fate = nmi_late(cpu, late_ms);
	migrate_enable();
	mcs_memcg_stat(n->memcg, &after);
	*fails = after.events[MCS_TRYLOCK_FAIL] - before.events[MCS_TRYLOCK_FAIL];
	*hits = after.events[MCS_STOCK_HIT] - before.events[MCS_STOCK_HIT];
	return fate;
}

int mcs_selfcheck_nmi(struct seq_buf *log)
{
	static const char * const held_names[] = { "no stock", "memcg stock", "obj stock" };
	struct mcs_check_ctx ctx = { .log = log };
	unsigned long fails, hits;
	unsigned int late_ms = 0;
	struct nmi_check *n;
	enum nmi_held held;
	int ret;

	if (!mcs_nmi_supported())
		return mcs_check_skip(log, "nmi", "kernel without an NMI source (UML, non-x86)");
	if (mcs_stock_get_mode() != MCS_MODE_DECOUPLED)
		return mcs_check_skip(log, "nmi", "stock mode is not decoupled");
	n = kzalloc_obj(*n, GFP_KERNEL);
	if (!n)
		return -ENOMEM;
	n->memcg = mcs_memcg_create(NULL, "selfcheck-nmi");
	if (IS_ERR(n->memcg)) {
		ret = PTR_ERR(n->memcg);
		kfree(n);
		return ret;
	}
	n->objcg = mcs_memcg_tryget_objcg(n->memcg);
	ret = n->objcg ? mcs_nmi_register(nmi_check_fn, n) : -ENOMEM;
	if (ret) {
		seq_buf_printf(log, "nmi: cannot use the NMI source: %d\n", ret);
		goto out;
	}
	for (held = HELD_NONE; held <= HELD_OBJ; held++) {
		enum nmi_fate fate = nmi_round(n, held, &fails, &hits, &late_ms);

		MCS_CHECK(&ctx, fate != NMI_NOT_SENT,
			  "%s: no NMI sent (stock lock busy, or an NMI still pending)",
			  held_names[held]);
		MCS_CHECK(&ctx, fate != NMI_LATE,
			  "%s: no NMI arrived within %d ms with the lock held; it came %u ms after",
			  held_names[held], NMI_HELD_WAIT_US / 1000, late_ms);
		MCS_CHECK(&ctx, fate != NMI_NEVER,
			  "%s: no NMI arrived within %d ms, nor %d ms after (swallowed?)",
			  held_names[held], NMI_HELD_WAIT_US / 1000, NMI_LATE_WAIT_MS);
		if (fate != NMI_ON_TIME)
			break;
		MCS_CHECK(&ctx, n->in_nmi, "%s", held_names[held]);
		MCS_CHECK(&ctx, !n->page_ret && !n->obj_ret, "%s: %d %d", held_names[held],
			  n->page_ret, n->obj_ret);
		if (held != HELD_NONE || IS_ENABLED(CONFIG_PREEMPT_RT)) {
			/* a busy stock, or RT: the trylock fails, the counters serve */
			MCS_CHECK(&ctx, fails > 0, "%s: no trylock failure", held_names[held]);
		} else {
			/* !RT, free stock: the NMI's trylock succeeds, the stock serves */
			MCS_CHECK(&ctx, fails == 0 && hits > 0, "%s: fails=%lu hits=%lu",
				  held_names[held], fails, hits);
		}
		MCS_CHECK(&ctx, mcs_objcg_leftover_bytes(n->objcg) < PAGE_SIZE, "%s: %u",
			  held_names[held], mcs_objcg_leftover_bytes(n->objcg));
	}
	mcs_nmi_unregister();
	mcs_drain_all_stock(mcs_root_memcg(), true);
	MCS_CHECK(&ctx, mcs_memcg_usage(n->memcg) == 0, "%lu", mcs_memcg_usage(n->memcg));
	MCS_CHECK(&ctx, mcs_objcg_leftover_bytes(n->objcg) == 0, "%u",
		  mcs_objcg_leftover_bytes(n->objcg));
	ret = mcs_check_finish(&ctx, "nmi");
out:
	if (n->objcg)
		mcs_objcg_put(n->objcg);
	mcs_memcg_offline(n->memcg);
	mcs_memcg_put(n->memcg);
	kfree(n);
	return ret;
}

/* ---- isolation ------------------------------------------------------------ */

static long charge_here(void *arg)
{
	struct mcs_memcg *memcg = arg;

	if (mcs_charge_pages(memcg, GFP_KERNEL, 1))
		return -ENOMEM;
	mcs_uncharge_pages(memcg, 1);
	return 0;
}

static long drain_async_here(void *arg)
{
	mcs_drain_all_stock(arg, false);
	return 0;
}

static int cached_pages(int cpu, struct mcs_memcg *memcg)
{
	struct mcs_memcg_stock *stock = per_cpu_ptr(&mcs_memcg_stock, cpu);
	int i;

	for (i = 0; i < NR_MEMCG_STOCK; i++)
		if (READ_ONCE(stock->cached[i]) == memcg)
			return READ_ONCE(stock->nr_pages[i]);
	return 0;
}

int mcs_selfcheck_isolation(struct seq_buf *log)
{
	struct mcs_check_ctx ctx = { .log = log };
	struct mcs_memcg *memcg;
	int cpu, iso = -1, hk = -1;

	if (mcs_stock_get_mode() != MCS_MODE_DECOUPLED)
		return mcs_check_skip(log, "isolation", "stock mode is not decoupled");
	memcg = mcs_memcg_create(NULL, "selfcheck-isolation");
	if (IS_ERR(memcg))
		return PTR_ERR(memcg);
	cpus_read_lock();
	/* the housekeeping mask is RCU-protected where it can change */
	rcu_read_lock();
	for_each_online_cpu(cpu) {
		if (mcs_cpu_is_isolated(cpu))
			iso = iso < 0 ? cpu : iso;
		else
			hk = hk < 0 ? cpu : hk;
	}
	rcu_read_unlock();
	if (iso < 0 || hk < 0) {
		cpus_read_unlock();
		mcs_memcg_offline(memcg);
		mcs_memcg_put(memcg);
		return mcs_check_skip(log, "isolation",
				      "no isolated online CPU beside a housekeeping one (boot with isolcpus=)");
	}
	/* both CPUs cache pages of the memcg */
	MCS_CHECK(&ctx, work_on_cpu(iso, charge_here, memcg) == 0, "cpu %d", iso);
	MCS_CHECK(&ctx, work_on_cpu(hk, charge_here, memcg) == 0, "cpu %d", hk);
	MCS_CHECK(&ctx, cached_pages(iso, memcg) > 0, "isolated cpu %d", iso);
	/* the asynchronous drain, from the housekeeping CPU: none for the isolated one */
	MCS_CHECK(&ctx, work_on_cpu(hk, drain_async_here, memcg) == 0, "");
	flush_workqueue(mcs_drain_wq);
	MCS_CHECK(&ctx, cached_pages(hk, memcg) == 0, "housekeeping cpu %d kept %d pages",
		  hk, cached_pages(hk, memcg));
	MCS_CHECK(&ctx, cached_pages(iso, memcg) > 0,
		  "isolated cpu %d was drained by an asynchronous drain", iso);
	cpus_read_unlock();
	/* the synchronous drain empties every CPU, isolated ones too */
	mcs_drain_all_stock(memcg, true);
	MCS_CHECK(&ctx, cached_pages(iso, memcg) == 0, "cpu %d", iso);
	MCS_CHECK(&ctx, mcs_memcg_usage(memcg) == 0, "%lu", mcs_memcg_usage(memcg));
	MCS_CHECK(&ctx, refcount_read(&memcg->refcnt) == 1, "%u", refcount_read(&memcg->refcnt));
	seq_buf_printf(log, "isolation: isolated cpu %d, housekeeping cpu %d\n", iso, hk);
	mcs_memcg_offline(memcg);
	mcs_memcg_put(memcg);
	return mcs_check_finish(&ctx, "isolation");
}
