// SPDX-License-Identifier: GPL-2.0
/*
 * Design "trim": the per-CPU page stock whose slots are trimmed back to a
 * low mark when a refill takes them above the high mark, instead of
 * being drained to zero (see design_trim.h, where the take and the put's
 * hit are inline): the marks, the rest of the refill, the drains and the
 * dead-CPU drain; and the design's obj stock, an instance of 7.3's shape
 * (design_decoupled73.c has its code).
 *
 * Context rules:
 *  - The rest of the refill runs with this CPU's stock locked by the put,
 *    in any context, inside the mode fence that the put checked; it gives
 *    pages back to the counters (lock-free atomics) from inside the
 *    section, as "decoupled"'s overflow drain does.
 *  - The drain work takes the blocking local_lock(), in task context only;
 *    the dead-CPU drain takes no lock: nothing runs there.
 *  - The marks are set between runs (the bench sets its parameters before
 *    its mode switch, whose drains and grace periods follow); a put reads
 *    the high mark once and a trim the low mark once, and a slot filled
 *    under other marks stays within MCS_TRIM_MAX until a put trims it to
 *    the marks in use.
 */
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/workqueue.h>

#include "design_trim.h"
#include "objects/trace.h"

DEFINE_PER_CPU_ALIGNED(struct mcs_trim_stock, mcs_trim_stock) = {
	.lock = INIT_LOCAL_TRYLOCK(lock),
};

DEFINE_PER_CPU_ALIGNED(struct mcs_obj73_stock, mcs_trim_obj_stock) = MCS_OBJ73_STOCK_INIT;

/* for the KUnit module only */
MCS_EXPORT_PER_CPU_NS(mcs_trim_stock);

/*
 * The marks, the mode's bench parameters (mcs_mode_trim below): a batch
 * (MCS_TRIM_MAX), and half of it.  The KUnit module reaches them through
 * the mode's metadata (mcs_stock_mode_info()).
 */
unsigned int mcs_trim_high __read_mostly = 64;
unsigned int mcs_trim_low __read_mostly = 32;

/* Empty slot @i: its pages go back to the counters, its reference is put. */
static void drain_slot(struct mcs_trim_stock *stock, int i, int cause)
{
	struct mcs_memcg *old = READ_ONCE(stock->cached[i]);
	u8 held;

	if (!old)
		return;
	held = READ_ONCE(stock->nr_pages[i]);
	trace_mcs_stock_drain(old->id, held, cause);
	if (held) {
		mcs_page_counter_uncharge(&old->memory, held);
		WRITE_ONCE(stock->nr_pages[i], 0);
	}
	mcs_memcg_event(old, MCS_DRAIN);
	WRITE_ONCE(stock->cached[i], NULL);
	/* an empty stock starts afresh: the same history, the same evictions */
	if (!--stock->nr_cached) {
		stock->admit_wait = 0;
		stock->drain_idx = 0;
	}
	mcs_memcg_put(old);
}

static void drain_stock_fully(struct mcs_trim_stock *stock, int cause)
{
	int i;

	for (i = 0; i < NR_MEMCG_STOCK; i++)
		drain_slot(stock, i, cause);
}

/*
 * Put @total pages (at most two batches) into slot @i of the locked
 * @stock, which caches @memcg: above the high mark in use, the slot keeps
 * the low mark (below the high one, whatever the batch) and the rest goes
 * back to the counters, traced and counted as a drain of the overflow.
 * The slot and its reference stay.
 */
static void fill_slot(struct mcs_trim_stock *stock, int i, struct mcs_memcg *memcg,
		      unsigned int total)
{
	unsigned int high = mcs_trim_high_now();
	unsigned int keep;

	if (total > high) {
		keep = min(READ_ONCE(mcs_trim_low), high - 1);
		trace_mcs_stock_drain(memcg->id, total - keep, MCS_DRAIN_OVERFLOW);
		mcs_page_counter_uncharge(&memcg->memory, total - keep);
		__mcs_memcg_event(memcg, MCS_DRAIN);
		total = keep;
	}
	WRITE_ONCE(stock->nr_pages[i], total);
}

/*
 * A refill of @nr_pages of @memcg, which has no slot in the locked
 * @stock: the first empty slot; in a full stock, an eviction (round-robin)
 * on every MCS_STOCK_ADMIT_EVERY-th such refill only, the others going
 * straight back to the counters (as "decoupled"'s refill).  An offline
 * memcg gets no slot: its stocks were drained.
 */
static void refill_new(struct mcs_trim_stock *stock, struct mcs_memcg *memcg,
		       unsigned int nr_pages)
{
	int i = NR_MEMCG_STOCK;

	if (!READ_ONCE(memcg->online))
		goto uncharge;
	if (stock->nr_cached < NR_MEMCG_STOCK)
		for (i = 0; i < NR_MEMCG_STOCK && READ_ONCE(stock->cached[i]); i++)
			;
	if (i == NR_MEMCG_STOCK) {
		if (++stock->admit_wait < MCS_STOCK_ADMIT_EVERY)
			goto uncharge;
		stock->admit_wait = 0;
		i = stock->drain_idx;
		stock->drain_idx = (stock->drain_idx + 1) % NR_MEMCG_STOCK;
		trace_mcs_stock_evict(memcg->id, stock->cached[i]->id, i);
		drain_slot(stock, i, MCS_DRAIN_EVICT);
	}
	mcs_memcg_get(memcg);
	WRITE_ONCE(stock->cached[i], memcg);
	stock->nr_cached++;
	__mcs_memcg_event(memcg, MCS_REFILL);
	fill_slot(stock, i, memcg, nr_pages);
	return;

uncharge:
	mcs_page_counter_uncharge(&memcg->memory, nr_pages);
}

/*
 * The rest of a refill of @nr_pages (at most MCS_CHARGE_BATCH) of @memcg
 * into this CPU's @stock, locked, inside the mode fence, out of line: the
 * memcg's slot goes above the high mark (a trim), or it has no slot yet.
 */
noinline void mcs_trim_refill_locked(struct mcs_trim_stock *stock, struct mcs_memcg *memcg,
				     unsigned int nr_pages)
{
	int i;

	mcs_assert_mode_fence();
	for (i = 0; i < NR_MEMCG_STOCK; i++) {
		if (READ_ONCE(stock->cached[i]) == memcg) {
			__mcs_memcg_event(memcg, MCS_REFILL);
			/* slot <= 64 plus refill <= 64 fits a u8 */
			fill_slot(stock, i, memcg, READ_ONCE(stock->nr_pages[i]) + nr_pages);
			return;
		}
	}
	refill_new(stock, memcg, nr_pages);
}

/*
 * The page put of the interface: @nr_pages of @memcg, already charged,
 * into this CPU's stock, fenced inside its section.  A busy stock
 * (counted), a refused fence and a put above MCS_CHARGE_BATCH send them
 * to the counters.
 */
void mcs_trim_pages_put(struct mcs_memcg *memcg, unsigned int nr_pages,
			enum mcs_stock_mode mode)
{
	if (nr_pages > MCS_CHARGE_BATCH)
		goto uncharge;
	if (!local_trylock(&mcs_trim_stock.lock)) {
		mcs_memcg_trylock_fail(memcg, MCS_STOCK_MEMCG);
		goto uncharge;
	}
	if (!mcs_mode_fence_holds(mode)) {
		local_unlock(&mcs_trim_stock.lock);
		goto uncharge;
	}
	mcs_trim_refill_locked(this_cpu_ptr(&mcs_trim_stock), memcg, nr_pages);
	local_unlock(&mcs_trim_stock.lock);
	return;
uncharge:
	mcs_page_counter_uncharge(&memcg->memory, nr_pages);
}

/**
 * mcs_trim_test_put() - a page put of mode "trim", the mode a constant
 * @memcg: memcg, not the root, which the caller holds a reference on
 * @nr_pages: pages of @memcg already charged, which the put gives back
 *
 * For the KUnit module (namespace MCS_NS): the put of the mode's own
 * entry function (the inline hit, then the rest), as a caller that read
 * mode "trim" makes it, whatever the mode is now: a put whose mode
 * changed since is refused by the fence and goes to the counters.  Any
 * context.
 */
void mcs_trim_test_put(struct mcs_memcg *memcg, unsigned int nr_pages)
{
	if (!mcs_trim_pages_put_fast(memcg, nr_pages, MCS_MODE_TRIM))
		mcs_trim_pages_put(memcg, nr_pages, MCS_MODE_TRIM);
}
EXPORT_SYMBOL_NS_GPL(mcs_trim_test_put, MCS_NS);

/*
 * This CPU's obj stock, locked, or NULL when it is busy: out of line, as
 * mcs_obj73_trylock_stock() is for mode "decoupled-7.3".
 */
noinline struct mcs_obj73_stock *mcs_trim_obj_trylock(void)
{
	if (local_trylock(&mcs_trim_obj_stock.lock))
		return this_cpu_ptr(&mcs_trim_obj_stock);
	return NULL;
}

/* The byte take of the interface: mcs_obj73_take() on our obj stock. */
bool mcs_trim_bytes_take(struct mcs_objcg *objcg, unsigned int size, bool account, int nid,
			 enum mcs_slab_item item, enum mcs_stock_mode mode)
{
	return mcs_obj73_take(&mcs_trim_obj_stock, mcs_trim_obj_trylock(), objcg, size,
			      account, nid, item);
}

/* The byte put of the interface: mcs_obj73_put() on our obj stock. */
unsigned int mcs_trim_bytes_put(struct mcs_objcg *objcg, unsigned int nr_bytes,
				bool allow_uncharge, bool account, int acct, int nid,
				enum mcs_slab_item item, enum mcs_stock_mode mode)
{
	return mcs_obj73_put(&mcs_trim_obj_stock, mcs_trim_obj_trylock(), objcg, nr_bytes,
			     allow_uncharge, account, acct, nid, item, mode);
}

/* Runs on the stock's own CPU, in task context. */
static void drain_local_stock(struct work_struct *work)
{
	struct mcs_trim_stock *stock = container_of(work, struct mcs_trim_stock, work);

	if (WARN_ONCE(!in_task(), "memcg_stock: %s in atomic context\n", __func__))
		return;
	local_lock(&mcs_trim_stock.lock);
	/* run elsewhere because its CPU went down: hotplug drains that one */
	if (stock == this_cpu_ptr(&mcs_trim_stock))
		drain_stock_fully(stock, MCS_DRAIN_ALL);
	clear_bit(FLUSHING_CACHED_CHARGE, &stock->flags);
	local_unlock(&mcs_trim_stock.lock);
}

/*
 * Does @cpu's stock cache @root's subtree?  @any_slot: also slots with no
 * pages left (they still hold a reference; a trim to a low mark of 0
 * leaves such slots).
 */
static bool stock_holds(int cpu, struct mcs_memcg *root, bool any_slot)
{
	struct mcs_trim_stock *stock = per_cpu_ptr(&mcs_trim_stock, cpu);
	bool ret = false;
	int i;

	rcu_read_lock();
	for (i = 0; i < NR_MEMCG_STOCK; i++) {
		struct mcs_memcg *memcg = READ_ONCE(stock->cached[i]);

		if (memcg && (any_slot || READ_ONCE(stock->nr_pages[i])) &&
		    mcs_memcg_is_descendant(memcg, root)) {
			ret = true;
			break;
		}
	}
	rcu_read_unlock();
	return ret;
}

/* @cpu is dead: nothing runs there, no lock needed. */
static void stock_cpu_dead(unsigned int cpu)
{
	struct mcs_trim_stock *stock = per_cpu_ptr(&mcs_trim_stock, cpu);

	drain_stock_fully(stock, MCS_DRAIN_HOTPLUG);
	/* a drain queued for it may never run there: let the next one in */
	clear_bit(FLUSHING_CACHED_CHARGE, &stock->flags);
}

/* The slots of @cpu's stock, for the checks and the "stocks" view. */
static void stock_walk(int cpu, mcs_slot_fn fn, void *arg)
{
	struct mcs_trim_stock *stock = per_cpu_ptr(&mcs_trim_stock, cpu);
	int i;

	for (i = 0; i < NR_MEMCG_STOCK; i++)
		mcs_stock_slot_visit(fn, arg, cpu, "trim", i, false, READ_ONCE(stock->cached[i]),
				     READ_ONCE(stock->nr_pages[i]));
}

/* The obj stock's drain, on its own CPU, in task context. */
static void drain_local_obj_stock(struct work_struct *work)
{
	struct mcs_obj73_stock *stock = container_of(work, struct mcs_obj73_stock, work);

	if (WARN_ONCE(!in_task(), "memcg_stock: %s in atomic context\n", __func__))
		return;
	local_lock(&mcs_trim_obj_stock.lock);
	/* run elsewhere because its CPU went down: hotplug drains that one */
	if (stock == this_cpu_ptr(&mcs_trim_obj_stock))
		mcs_obj73_drain(stock);
	clear_bit(FLUSHING_CACHED_CHARGE, &stock->flags);
	local_unlock(&mcs_trim_obj_stock.lock);
}

static bool obj_stock_holds(int cpu, struct mcs_memcg *root, bool any_slot)
{
	return mcs_obj73_holds(per_cpu_ptr(&mcs_trim_obj_stock, cpu), root);
}

/* @cpu is dead: nothing runs there, no lock needed. */
static void obj_stock_cpu_dead(unsigned int cpu)
{
	struct mcs_obj73_stock *stock = per_cpu_ptr(&mcs_trim_obj_stock, cpu);

	mcs_obj73_drain(stock);
	clear_bit(FLUSHING_CACHED_CHARGE, &stock->flags);
}

static void obj_stock_walk(int cpu, mcs_slot_fn fn, void *arg)
{
	mcs_obj73_walk(per_cpu_ptr(&mcs_trim_obj_stock, cpu), cpu, "trim-obj", fn, arg);
}

static const struct mcs_stock_kind trim_obj_stock_kind =
	MCS_STOCK_KIND(mcs_trim_obj_stock, struct mcs_obj73_stock, drain_local_obj_stock,
		       obj_stock_holds, obj_stock_cpu_dead, obj_stock_walk);

static const struct mcs_stock_kind trim_stock_kind =
	MCS_STOCK_KIND(mcs_trim_stock, struct mcs_trim_stock, drain_local_stock,
		       stock_holds, stock_cpu_dead, stock_walk);

static const struct mcs_stock_kind *const trim_kinds[] = {
	&trim_obj_stock_kind,
	&trim_stock_kind,
	NULL,
};

const struct mcs_design mcs_design_trim = {
	.name = "trim",
	.kinds = trim_kinds,
	.batches = true,
	.memcgs_per_cpu = NR_MEMCG_STOCK,
};

/* the marks: literal bounds (the host scripts read them here), MCS_TRIM_MAX */
static_assert(MCS_TRIM_MAX == 64, "trim_high's bounds below are MCS_TRIM_MAX's");
static const struct mcs_bench_param trim_params[] = {
	MCS_BENCH_PARAM("trim_high", 1, 64, mcs_trim_high,
			"pages a slot keeps at most; a put above trims it to trim_low"),
	MCS_BENCH_PARAM_BELOW("trim_low", 0, 63, mcs_trim_low, "trim_high",
			      "pages a trimmed slot keeps, below trim_high"),
	{}
};

/* a local_trylock_t section per event, pages and bytes */
const struct mcs_mode_info mcs_mode_trim = {
	.group = "decoupled",
	.abbr = "trim",
	.cycles = MCS_CYCLES_TRYLOCK_PAGES "," MCS_CYCLES_TRYLOCK_BYTES,
	.params = trim_params,
	/* trimming to a quarter and to three quarters of a batch */
	.settings = "trim_low=16|trim_low=48",
};

