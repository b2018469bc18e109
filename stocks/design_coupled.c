// SPDX-License-Identifier: GPL-2.0
/*
 * Design "coupled": the per-CPU charge cache as it was before the 2025
 * series (6.12), rebuilt for A/B measurements (modes "coupled" and
 * "coupled-noirq"), behind the interface of stock_designs.h.
 *
 * One per-CPU struct caches one memcg with its pages and one objcg with
 * its bytes and one pair of slab-stat deltas, all behind a single
 * local_lock_t taken with local_lock_irqsave() on every path: interrupts
 * are off for the whole critical section, and an interrupt can never find
 * the lock busy.  A different memcg (or objcg) evicts the cached one.
 * Draining the obj part returns its pages into the memcg part, under the
 * same lock, as 6.12 did.
 *
 * Context: the consume and refill functions may be called in any context;
 * NMI always bypasses the stock (see mcs_coupled_usable()), and so does hardirq
 * on PREEMPT_RT, where local_lock_irqsave() is a per-CPU sleeping spinlock
 * that does not disable IRQs: a task may then block on it (briefly, behind
 * the holder on its CPU), so on PREEMPT_RT the coupled mode's charge paths
 * can sleep, as 6.12's did.  The drain work and the hotplug callback follow
 * the same rules as the decoupled stocks; the dead-CPU drain runs in any
 * task, preemptible, on any CPU, and touches no current-CPU data.
 *
 * The benchmark control "coupled-noirq" (@noirq) runs the same code on the
 * same per-CPU struct with preempt_disable() in place of the IRQ toggles,
 * so that a comparison can tell the cost of pushf/cli/popf from the cost
 * of the design.  Without IRQs off an interrupt could land inside a task's
 * critical section, so in that mode only task context uses the stock;
 * interrupts bypass it (consume misses, refill goes to the counters).  The
 * drain work still takes the lock with IRQs off, which excludes a
 * preempt-disabled section on its CPU and is excluded by one.  On
 * PREEMPT_RT local_lock_irqsave() does not disable IRQs anyway: there the
 * control is the coupled mode itself.  mcs_stock_set_mode() refuses the
 * control; the benchmark switches to it with nothing else charging, so no
 * IRQ-off section of plain "coupled" overlaps a preempt-off one.
 */
#include <linux/mm.h>
#include <linux/nodemask.h>

#include "design_coupled.h"

DEFINE_PER_CPU(struct mcs_coupled_stock, mcs_coupled_stock) = {
	.lock = INIT_LOCAL_LOCK(lock),
	.cached_nid = NUMA_NO_NODE,
};

/* for the KUnit module only */
MCS_EXPORT_PER_CPU_NS(mcs_coupled_stock);

/* ---- the memcg part --------------------------------------------------- */

static void coupled_drain_memcg(struct mcs_coupled_stock *stock)
{
	struct mcs_memcg *old = stock->cached;

	if (!old)
		return;
	if (stock->nr_pages) {
		mcs_page_counter_uncharge(&old->memory, stock->nr_pages);
		stock->nr_pages = 0;
	}
	mcs_memcg_event(old, MCS_DRAIN);
	WRITE_ONCE(stock->cached, NULL);
	mcs_memcg_put(old);
}

enum mcs_stock_answer mcs_coupled_pages_take(struct mcs_memcg *memcg, unsigned int nr_pages,
					     enum mcs_stock_mode mode)
{
	if (mode == MCS_MODE_COUPLED_NOIRQ)
		return mcs_coupled_pages_take_fast(memcg, nr_pages, MCS_MODE_COUPLED_NOIRQ);
	return mcs_coupled_pages_take_fast(memcg, nr_pages, MCS_MODE_COUPLED);
}

/*
 * Caller holds the lock.  Out of line: the refill that finds another memcg
 * in the stock, or goes over the batch (the inline put serves the rest).
 */
void mcs_coupled_refill(struct mcs_coupled_stock *stock, struct mcs_memcg *memcg,
			unsigned int nr_pages)
{
	if (stock->cached != memcg) {
		if (!READ_ONCE(memcg->online)) {
			mcs_page_counter_uncharge(&memcg->memory, nr_pages);
			return;
		}
		coupled_drain_memcg(stock);
		mcs_memcg_get(memcg);
		WRITE_ONCE(stock->cached, memcg);
	}
	stock->nr_pages += nr_pages;
	__mcs_memcg_event(memcg, MCS_REFILL);
	if (stock->nr_pages > mcs_batch_now())
		coupled_drain_memcg(stock);
}

void mcs_coupled_pages_put(struct mcs_memcg *memcg, unsigned int nr_pages,
			   enum mcs_stock_mode mode)
{
	if (mode == MCS_MODE_COUPLED_NOIRQ)
		mcs_coupled_pages_put_fast(memcg, nr_pages, MCS_MODE_COUPLED_NOIRQ);
	else
		mcs_coupled_pages_put_fast(memcg, nr_pages, MCS_MODE_COUPLED);
}

/* ---- the obj part ------------------------------------------------------- */

static void coupled_flush_stats(struct mcs_coupled_stock *stock)
{
	int item;

	if (stock->cached_objcg && stock->cached_nid != NUMA_NO_NODE)
		for (item = 0; item < NR_MCS_SLAB_ITEMS; item++)
			mcs_objcg_mod_stat(stock->cached_objcg, stock->cached_nid, item,
					   stock->nr_slab_b[item]);
	memset(stock->nr_slab_b, 0, sizeof(stock->nr_slab_b));
	stock->cached_nid = NUMA_NO_NODE;
}

/*
 * Whole pages go into the memcg part (6.12's drain_obj_stock refilled the
 * memcg stock), the remainder back onto the objcg.  @local: @stock is this
 * CPU's and the lock is held.  A dead CPU's stock is drained from another
 * task, which may be preemptible and runs anywhere (the hotplug control
 * task, module exit): its whole pages go straight to the counters, and
 * nothing in here touches the current CPU's per-CPU data.
 */
static void coupled_drain_obj(struct mcs_coupled_stock *stock, bool local)
{
	struct mcs_objcg *old = stock->cached_objcg;
	unsigned int nr_pages;

	if (!old)
		return;
	nr_pages = stock->nr_bytes >> PAGE_SHIFT;
	if (nr_pages) {
		struct mcs_memcg *memcg;

		rcu_read_lock();
		memcg = mcs_objcg_unaccount_pages(old, nr_pages);
		if (!local || mcs_memcg_is_root(memcg))
			mcs_page_counter_uncharge(&memcg->memory, nr_pages);
		else
			mcs_coupled_refill(stock, memcg, nr_pages);
		rcu_read_unlock();
	}
	mcs_objcg_add_leftover(old, stock->nr_bytes & (PAGE_SIZE - 1));
	stock->nr_bytes = 0;
	coupled_flush_stats(stock);
	WRITE_ONCE(stock->cached_objcg, NULL);
	mcs_objcg_put(old);
}

static void coupled_account(struct mcs_coupled_stock *stock, struct mcs_objcg *objcg,
			    int nr_bytes, int nid, enum mcs_slab_item item)
{
	int *cached;

	/* like 6.12's mod_objcg_state(): another objcg drains the whole part */
	if (stock->cached_objcg != objcg) {
		mcs_objcg_mod_stat(objcg, nid, item, nr_bytes);
		return;
	}
	if (stock->cached_nid != nid) {
		coupled_flush_stats(stock);
		stock->cached_nid = nid;
	}
	cached = &stock->nr_slab_b[item];
	*cached += nr_bytes;
	if (abs(*cached) > PAGE_SIZE) {
		mcs_objcg_mod_stat(objcg, nid, item, *cached);
		*cached = 0;
	}
}

/* The byte take of mode @mode, fenced as mcs_coupled_pages_take(). */
static __always_inline bool coupled_bytes_take(struct mcs_objcg *objcg, unsigned int nr_bytes,
					       bool account, int nid, enum mcs_slab_item item,
					       enum mcs_stock_mode mode)
{
	bool noirq = mode == MCS_MODE_COUPLED_NOIRQ;
	struct mcs_coupled_stock *stock;
	unsigned long flags;
	bool ret = false;

	if (!mcs_coupled_usable(noirq))
		return false;
	mcs_test_hook_at(MCS_HOOK_COUPLED_ENTER);
	mcs_coupled_lock(noirq, &flags);
	stock = this_cpu_ptr(&mcs_coupled_stock);
	if (mcs_mode_fence_holds(mode) && stock->cached_objcg == objcg &&
	    stock->nr_bytes >= nr_bytes) {
		stock->nr_bytes -= nr_bytes;
		if (account)
			coupled_account(stock, objcg, nr_bytes, nid, item);
		ret = true;
	}
	mcs_coupled_unlock(noirq, flags);
	return ret;
}

bool mcs_coupled_bytes_take(struct mcs_objcg *objcg, unsigned int nr_bytes,
			    bool account, int nid, enum mcs_slab_item item,
			    enum mcs_stock_mode mode)
{
	if (mode == MCS_MODE_COUPLED_NOIRQ)
		return coupled_bytes_take(objcg, nr_bytes, account, nid, item,
					  MCS_MODE_COUPLED_NOIRQ);
	return coupled_bytes_take(objcg, nr_bytes, account, nid, item, MCS_MODE_COUPLED);
}

/*
 * Under the stock's section: put @nr_bytes of @objcg into this CPU's slot
 * (taking the slot over from another objcg), account @acct bytes when
 * @account, and return the whole pages the caller must uncharge.
 */
static __always_inline unsigned int
coupled_obj_add(struct mcs_coupled_stock *stock, struct mcs_objcg *objcg,
		unsigned int nr_bytes, bool allow_uncharge, bool account, int acct,
		int nid, enum mcs_slab_item item)
{
	unsigned int nr_pages = 0;

	if (stock->cached_objcg != objcg) {
		coupled_drain_obj(stock, true);
		mcs_objcg_get(objcg);
		WRITE_ONCE(stock->cached_objcg, objcg);
		stock->nr_bytes = atomic_xchg(&objcg->nr_charged_bytes, 0);
		allow_uncharge = true;
	}
	stock->nr_bytes += nr_bytes;
	if (account)
		coupled_account(stock, objcg, acct, nid, item);
	if (allow_uncharge && stock->nr_bytes > PAGE_SIZE) {
		nr_pages = stock->nr_bytes >> PAGE_SHIFT;
		stock->nr_bytes &= PAGE_SIZE - 1;
	}
	return nr_pages;
}

/*
 * The body of a byte put: refill @nr_bytes (and account @acct bytes when
 * @account).  Returns the number of whole pages the caller must uncharge
 * after this returns.
 */
static __always_inline unsigned int
coupled_bytes_put(struct mcs_objcg *objcg, unsigned int nr_bytes, bool allow_uncharge,
		  bool account, int acct, int nid, enum mcs_slab_item item,
		  enum mcs_stock_mode mode)
{
	bool noirq = mode == MCS_MODE_COUPLED_NOIRQ;
	unsigned int nr_pages = 0;
	unsigned long flags;

	if (!mcs_coupled_usable(noirq))
		goto bypass;
	mcs_coupled_lock(noirq, &flags);
	if (!mcs_mode_fence_holds(mode)) {
		mcs_coupled_unlock(noirq, flags);
		goto bypass;
	}
	nr_pages = coupled_obj_add(this_cpu_ptr(&mcs_coupled_stock), objcg, nr_bytes,
				   allow_uncharge, account, acct, nid, item);
	mcs_coupled_unlock(noirq, flags);
	return nr_pages;

bypass:
	mcs_objcg_add_leftover(objcg, nr_bytes & (PAGE_SIZE - 1));
	if (account)
		mcs_objcg_mod_stat(objcg, nid, item, acct);
	return nr_bytes >> PAGE_SHIFT;
}

unsigned int mcs_coupled_bytes_put_full(struct mcs_objcg *objcg, unsigned int nr_bytes,
					bool allow_uncharge, bool account, int acct,
					int nid, enum mcs_slab_item item, enum mcs_stock_mode mode)
{
	if (mode == MCS_MODE_COUPLED_NOIRQ)
		return coupled_bytes_put(objcg, nr_bytes, allow_uncharge, account, acct, nid,
					 item, MCS_MODE_COUPLED_NOIRQ);
	return coupled_bytes_put(objcg, nr_bytes, allow_uncharge, account, acct, nid, item,
				 MCS_MODE_COUPLED);
}

/* The put of a plain byte uncharge: whole pages may go back, no accounting. */
unsigned int mcs_coupled_bytes_uncharge(struct mcs_objcg *objcg, unsigned int nr_bytes,
					enum mcs_stock_mode mode)
{
	if (mode == MCS_MODE_COUPLED_NOIRQ)
		return coupled_bytes_put(objcg, nr_bytes, true, false, 0, NUMA_NO_NODE, 0,
					 MCS_MODE_COUPLED_NOIRQ);
	return coupled_bytes_put(objcg, nr_bytes, true, false, 0, NUMA_NO_NODE, 0,
				 MCS_MODE_COUPLED);
}

/* ---- drains ------------------------------------------------------------------ */

static void drain_local_coupled_stock(struct work_struct *work)
{
	struct mcs_coupled_stock *stock =
		container_of(work, struct mcs_coupled_stock, work);
	unsigned long flags;

	if (WARN_ONCE(!in_task(), "memcg_stock: coupled stock drain in atomic context\n"))
		return;
	local_lock_irqsave(&mcs_coupled_stock.lock, flags);
	if (stock == this_cpu_ptr(&mcs_coupled_stock)) {
		coupled_drain_obj(stock, true);
		coupled_drain_memcg(stock);
	}
	clear_bit(FLUSHING_CACHED_CHARGE, &stock->flags);
	local_unlock_irqrestore(&mcs_coupled_stock.lock, flags);
}

static bool coupled_stock_holds(int cpu, struct mcs_memcg *root, bool any_slot)
{
	struct mcs_coupled_stock *stock = per_cpu_ptr(&mcs_coupled_stock, cpu);
	struct mcs_objcg *objcg;
	struct mcs_memcg *memcg;
	bool ret = false;

	rcu_read_lock();
	memcg = READ_ONCE(stock->cached);
	if (memcg && mcs_memcg_is_descendant(memcg, root))
		ret = true;
	objcg = READ_ONCE(stock->cached_objcg);
	if (objcg && mcs_memcg_is_descendant(READ_ONCE(objcg->memcg), root))
		ret = true;
	rcu_read_unlock();
	return ret;
}

/**
 * mcs_coupled_stock_drain_dead() - empty a CPU's coupled stock without its lock
 * @cpu: a dead CPU, or one whose coupled stock nothing else uses meanwhile
 *
 * The coupled stock's hotplug callback, also run by module exit for
 * offline CPUs: any task, preemptible, on any CPU.  Exported into MCS_NS
 * for the KUnit cases that call it from such a task.
 */
void mcs_coupled_stock_drain_dead(unsigned int cpu)
{
	struct mcs_coupled_stock *stock = per_cpu_ptr(&mcs_coupled_stock, cpu);

	coupled_drain_obj(stock, false);
	coupled_drain_memcg(stock);
	clear_bit(FLUSHING_CACHED_CHARGE, &stock->flags);
}
EXPORT_SYMBOL_NS_GPL(mcs_coupled_stock_drain_dead, MCS_NS);

/* The slots of @cpu's coupled stock: one memcg and one objcg. */
static void coupled_stock_walk(int cpu, mcs_slot_fn fn, void *arg)
{
	struct mcs_coupled_stock *cs = per_cpu_ptr(&mcs_coupled_stock, cpu);

	mcs_stock_slot_visit(fn, arg, cpu, "coupled", 0, false, READ_ONCE(cs->cached),
			     READ_ONCE(cs->nr_pages));
	mcs_stock_slot_visit(fn, arg, cpu, "coupled_obj", 0, true,
			     mcs_stock_objcg_memcg(READ_ONCE(cs->cached_objcg)),
			     READ_ONCE(cs->nr_bytes));
}

/* The coupled stock as the drains see it. */
static const struct mcs_stock_kind coupled_stock_kind =
	MCS_STOCK_KIND(mcs_coupled_stock, struct mcs_coupled_stock, drain_local_coupled_stock,
		       coupled_stock_holds, mcs_coupled_stock_drain_dead, coupled_stock_walk);

static const struct mcs_stock_kind *const coupled_kinds[] = {
	&coupled_stock_kind,
	NULL,
};

const struct mcs_design mcs_design_coupled = {
	.name = "coupled",
	.kinds = coupled_kinds,
	.batches = true,
	.memcgs_per_cpu = 1,
};

/* on PREEMPT_RT local_lock_irqsave() is an rt_spin_lock(): two cmpxchgs */
const struct mcs_mode_info mcs_mode_coupled = {
	.group = "coupled",
	.abbr = "cpl",
	.cycles = "pages:irqsave*2,bytes:irqsave*2,pages@rt:atomic*4,bytes@rt:atomic*4",
};

/* the benchmark's control: preemption off where "coupled" disables IRQs */
const struct mcs_mode_info mcs_mode_coupled_noirq = {
	.group = "coupled",
	.abbr = "cpl-noirq",
	.cycles = "pages:preempt*2,bytes:preempt*2,pages@rt:atomic*4,bytes@rt:atomic*4",
	.flags = MCS_MODE_CONTROL,
};
