// SPDX-License-Identifier: GPL-2.0
/*
 * Design "decoupled": the per-CPU memcg stock of pages and the per-CPU obj
 * stock of bytes, separate, each with its own exclusion, its own drain
 * work and FLUSHING bit (modes "decoupled" and "decoupled-owner"; the
 * inline hit paths are in design_decoupled.h).  Mode "decoupled-7.3" takes
 * the memcg stock with "decoupled"'s lock and has an obj stock of its own
 * (design_decoupled73.[ch]), listed among this design's kinds below.
 *
 * The memcg stock keeps pages already charged to the page counters, for
 * up to NR_MEMCG_STOCK memcgs.  A charge of up to MCS_CHARGE_BATCH pages
 * is served from it when the memcg has a slot with enough pages; otherwise
 * the entry point charges a whole batch and puts the surplus here.
 * Uncharges come back here.  When more memcgs charge on a CPU than it has
 * slots, a full stock admits a newcomer only on every
 * MCS_STOCK_ADMIT_EVERY-th refill and turns the others away, so that a miss
 * costs about what no stock costs.
 *
 * The obj stock keeps pre-charged bytes for up to NR_OBJ_STOCK objcgs plus
 * one pair of slab-statistics deltas.  A slot that holds more than
 * OBJ_STOCK_HIGH (two pages) after an uncharge gives whole pages back and
 * keeps one page above its sub-page rest, so that an object that is freed
 * and allocated again never moves a page each time (upstream returns whole
 * pages as soon as a slot holds more than one).  A full stock admits an
 * objcg without a slot only on every MCS_STOCK_ADMIT_EVERY-th refill that
 * needs one; the bytes of the others go to their objcg's leftover, where
 * its next charge looks first.
 *
 * Context rules:
 *  - Takes and puts run in any context and only trylock (or enter an owner
 *    section): a busy stock is an answer, never a wait.  A busy page put
 *    returns false (the caller uncharges the counters); a busy byte put
 *    sends the bytes to the objcg's leftover.  Interrupts are never
 *    disabled.
 *  - A put checks the mode fence inside its section (mcs_mode_fence_holds()
 *    or the owner section's own check): a refused section is a busy stock.
 *  - Pages that a byte put gives back are returned to the caller, which
 *    hands them to this design's page put once the section is left.
 *  - The drains (drain_local_*()) take the blocking local_lock(), in task
 *    context only; the dead-CPU drains take no lock: nothing runs there.
 */
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/nodemask.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/workqueue.h>

#include "design_decoupled.h"
#include "design_decoupled73.h"
#include "objects/trace.h"

#include "stock_owner.h"
#include "objects/trace.h"

DEFINE_PER_CPU_ALIGNED(struct mcs_memcg_stock, mcs_memcg_stock) = {
	.lock = INIT_LOCAL_TRYLOCK(lock),
};

/* for the KUnit module only */
MCS_EXPORT_PER_CPU_NS(mcs_memcg_stock);

#include "objects/trace.h"

DEFINE_PER_CPU_ALIGNED(struct mcs_obj_stock, mcs_obj_stock) = {
	.lock = INIT_LOCAL_TRYLOCK(lock),
	.index = -1,
	.node_id = NUMA_NO_NODE,
};

/* for the KUnit module only */
MCS_EXPORT_PER_CPU_NS(mcs_obj_stock);

/* ---- the memcg stock ---------------------------------------------------- */

/* Empty slot @i: its pages go back to the counters, its reference is put. */
static void drain_stock(struct mcs_memcg_stock *stock, int i, int cause)
{
	struct mcs_memcg *old = READ_ONCE(stock->cached[i]);
	u8 stock_pages;

	if (!old)
		return;
	stock_pages = READ_ONCE(stock->nr_pages[i]);
	trace_mcs_stock_drain(old->id, stock_pages, cause);
	if (stock_pages) {
		mcs_page_counter_uncharge(&old->memory, stock_pages);
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

static void drain_stock_fully(struct mcs_memcg_stock *stock, int cause)
{
	int i;

	for (i = 0; i < NR_MEMCG_STOCK; i++)
		drain_stock(stock, i, cause);
}

/*
 * A refill of @nr_pages of @memcg, which has no slot in the locked @stock,
 * out of line.  The memcg takes the first empty slot.  When every slot is
 * taken, it evicts one (round-robin: the victim is not chosen at random,
 * the RNG takes a lock of its own and this runs in any context) only on
 * every MCS_STOCK_ADMIT_EVERY-th such refill; the others go straight back
 * to the counters, at the cost of an uncharge without a stock.
 */
noinline void mcs_decoupled_refill_new(struct mcs_memcg_stock *stock, struct mcs_memcg *memcg,
				       unsigned int nr_pages)
{
	int i;

	mcs_assert_mode_fence();
	/*
	 * An offline memcg gets no new slot: its stocks were drained.  Nor
	 * does a put of more than the batch (a smaller charge_batch).
	 */
	if (!READ_ONCE(memcg->online) || nr_pages > mcs_batch_now())
		goto uncharge;
	i = NR_MEMCG_STOCK;
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
		drain_stock(stock, i, MCS_DRAIN_EVICT);
	}
	mcs_memcg_get(memcg);
	WRITE_ONCE(stock->nr_pages[i], nr_pages);
	WRITE_ONCE(stock->cached[i], memcg);
	stock->nr_cached++;
	__mcs_memcg_event(memcg, MCS_REFILL);
	return;

uncharge:
	mcs_page_counter_uncharge(&memcg->memory, nr_pages);
}

/*
 * The rest of a refill of @nr_pages of @memcg into the locked @stock, out
 * of line: the memcg has no slot yet (mcs_decoupled_refill_new()), or its
 * slot goes over the batch and is drained whole.
 */
noinline void mcs_decoupled_refill_locked(struct mcs_memcg_stock *stock, struct mcs_memcg *memcg,
					  unsigned int nr_pages)
{
	int i;

	mcs_assert_mode_fence();
	for (i = 0; i < NR_MEMCG_STOCK; i++) {
		if (READ_ONCE(stock->cached[i]) == memcg) {
			/* slot <= 64 plus refill <= 64 fits a u8 */
			unsigned int total = READ_ONCE(stock->nr_pages[i]) + nr_pages;

			WRITE_ONCE(stock->nr_pages[i], total);
			__mcs_memcg_event(memcg, MCS_REFILL);
			if (total > mcs_batch_now())
				drain_stock(stock, i, MCS_DRAIN_OVERFLOW);
			return;
		}
	}
	mcs_decoupled_refill_new(stock, memcg, nr_pages);
}

/*
 * The page put of the interface: @nr_pages of @memcg, already charged to
 * the counters, into this CPU's stock, in mode @mode ("decoupled",
 * "decoupled-owner" or "decoupled-7.3"), fenced inside its section.  A busy
 * stock (counted) or a refused fence sends them to the counters.
 */
void mcs_decoupled_pages_put(struct mcs_memcg *memcg, unsigned int nr_pages,
			     enum mcs_stock_mode mode)
{
	if (nr_pages > MCS_CHARGE_BATCH)
		goto uncharge;
	if (!mcs_memcg_stock_trylock(mode)) {
		mcs_memcg_trylock_fail(memcg, MCS_STOCK_MEMCG);
		goto uncharge;
	}
	/* the section of "decoupled-owner" checked the fence already */
	if (mode != MCS_MODE_DECOUPLED_OWNER && !mcs_mode_fence_holds(mode)) {
		mcs_memcg_stock_unlock(mode);
		goto uncharge;
	}
	mcs_decoupled_refill_locked(this_cpu_ptr(&mcs_memcg_stock), memcg, nr_pages);
	mcs_memcg_stock_unlock(mode);
	return;
uncharge:
	mcs_page_counter_uncharge(&memcg->memory, nr_pages);
}

/* Runs on the stock's own CPU, in task context. */
static void drain_local_memcg_stock(struct work_struct *work)
{
	struct mcs_memcg_stock *stock =
		container_of(work, struct mcs_memcg_stock, work);

	if (WARN_ONCE(!in_task(), "memcg_stock: %s in atomic context\n", __func__))
		return;

	/* excludes the sections of "decoupled-owner" too: see stock_owner.h */
	local_lock(&mcs_memcg_stock.lock);
	/*
	 * A work item queued for a CPU that went offline before it ran is
	 * executed elsewhere.  Leave that stock alone: the hotplug callback
	 * has drained or will drain it.
	 */
	if (stock == this_cpu_ptr(&mcs_memcg_stock))
		drain_stock_fully(stock, MCS_DRAIN_ALL);
	clear_bit(FLUSHING_CACHED_CHARGE, &stock->flags);
	local_unlock(&mcs_memcg_stock.lock);
}

/*
 * Does @stock cache anything of @root's subtree?  @any_slot also counts
 * slots with no pages left (they still hold a reference); the asynchronous
 * drain, like upstream, only cares about pages.
 */
static bool stock_holds(struct mcs_memcg_stock *stock, struct mcs_memcg *root,
			bool any_slot)
{
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

/* The decoupled memcg stock as the drains see it (stock_drain.c). */
static bool memcg_stock_holds(int cpu, struct mcs_memcg *root, bool any_slot)
{
	return stock_holds(per_cpu_ptr(&mcs_memcg_stock, cpu), root, any_slot);
}

static void memcg_stock_cpu_dead(unsigned int cpu)
{
	struct mcs_memcg_stock *stock = per_cpu_ptr(&mcs_memcg_stock, cpu);

	drain_stock_fully(stock, MCS_DRAIN_HOTPLUG);
	/* A drain queued for it may never run there: let the next one in. */
	clear_bit(FLUSHING_CACHED_CHARGE, &stock->flags);
}

/* The slots of @cpu's page stock (modes decoupled, -owner, -7.3). */
static void memcg_stock_walk(int cpu, mcs_slot_fn fn, void *arg)
{
	struct mcs_memcg_stock *ms = per_cpu_ptr(&mcs_memcg_stock, cpu);
	int i;

	for (i = 0; i < NR_MEMCG_STOCK; i++)
		mcs_stock_slot_visit(fn, arg, cpu, "memcg", i, false, READ_ONCE(ms->cached[i]),
				     READ_ONCE(ms->nr_pages[i]));
}

static const struct mcs_stock_kind memcg_stock_kind =
	MCS_STOCK_KIND(mcs_memcg_stock, struct mcs_memcg_stock, drain_local_memcg_stock,
		       memcg_stock_holds, memcg_stock_cpu_dead, memcg_stock_walk);

/* ---- the obj stock ----------------------------------------------------------- */

/*
 * NULL when the stock is busy: callers then take the direct paths.
 * @mode: "decoupled" or "decoupled-owner", the exclusion to take.
 */
static __always_inline struct mcs_obj_stock *trylock_obj_stock(struct mcs_objcg *objcg,
							       enum mcs_stock_mode mode)
{
	if (likely(mcs_obj_stock_trylock(mode)))
		return this_cpu_ptr(&mcs_obj_stock);
	mcs_objcg_trylock_fail(objcg);
	return NULL;
}

/*
 * The section of a put: as trylock_obj_stock(), and the mode fence checked
 * inside it ("decoupled-owner"'s section checks it on entry).  A refused
 * fence is a busy stock.
 */
static __always_inline struct mcs_obj_stock *
trylock_obj_stock_fenced(struct mcs_objcg *objcg, enum mcs_stock_mode mode)
{
	if (likely(mcs_obj_stock_trylock(mode))) {
		if (mode != MCS_MODE_DECOUPLED || mcs_mode_fence_holds(mode))
			return this_cpu_ptr(&mcs_obj_stock);
		mcs_obj_stock_unlock(mode);
	}
	mcs_objcg_trylock_fail(objcg);
	return NULL;
}

static __always_inline void unlock_obj_stock(struct mcs_obj_stock *stock,
					     enum mcs_stock_mode mode)
{
	if (stock)
		mcs_obj_stock_unlock(mode);
}

static __always_inline bool __consume_obj_stock(struct mcs_objcg *objcg,
						struct mcs_obj_stock *stock,
				unsigned int nr_bytes)
{
	int i = mcs_obj_slot(stock, objcg);

	if (i < 0 || stock->nr_bytes[i] < nr_bytes)
		return false;
	stock->nr_bytes[i] -= nr_bytes;
	return true;
}

/* Flush the cached slab-stat pair to the objcg and node that own it. */
static void drain_obj_stock_stats(struct mcs_obj_stock *stock)
{
	struct mcs_objcg *objcg;
	int item;

	if (stock->index < 0)
		return;
	objcg = stock->cached[stock->index];
	for (item = 0; item < NR_MCS_SLAB_ITEMS; item++) {
		mcs_objcg_mod_stat(objcg, stock->node_id, item, stock->nr_slab_b[item]);
		stock->nr_slab_b[item] = 0;
	}
	stock->index = -1;
	stock->node_id = NUMA_NO_NODE;
}

/*
 * Empty slot @i: whole pages straight back to the counters, the sub-page
 * remainder onto the objcg, the stats flushed if they were this slot's.
 */
static void drain_obj_stock_slot(struct mcs_obj_stock *stock, int i)
{
	struct mcs_objcg *old = stock->cached[i];
	unsigned int nr_bytes = stock->nr_bytes[i];

	if (!old)
		return;
	mcs_objcg_add_leftover(old, nr_bytes);
	stock->nr_bytes[i] = 0;
	if (stock->index == i)
		drain_obj_stock_stats(stock);
	WRITE_ONCE(stock->cached[i], NULL);
	/* an empty stock starts afresh (see drain_stock() of the memcg stock) */
	if (!--stock->nr_cached) {
		stock->admit_wait = 0;
		stock->drain_idx = 0;
	}
	mcs_objcg_put(old);
}

static void drain_obj_stock(struct mcs_obj_stock *stock)
{
	int i;

	for (i = 0; i < NR_OBJ_STOCK; i++)
		drain_obj_stock_slot(stock, i);
}

/*
 * Put @nr_bytes, already charged, into the stock.  @allow_uncharge: give
 * whole pages back once the slot holds more than OBJ_STOCK_HIGH, down to
 * its sub-page rest plus OBJ_STOCK_KEEP.  The charge side passes false so
 * that it does not uncharge a page it has just charged.  With a NULL
 * (busy) stock, or an objcg without a slot that a full stock turns away
 * (MCS_STOCK_ADMIT_EVERY), the bytes go to the objcg's leftover, which
 * returns whole pages at once.  Returns the whole pages given back: the
 * caller uncharges them once it has left the section
 * (mcs_objcg_uncharge_pages()), never from inside it.
 */
static noinline unsigned int __refill_obj_stock(struct mcs_objcg *objcg,
						struct mcs_obj_stock *stock,
						unsigned int nr_bytes, bool allow_uncharge)
{
	unsigned int nr_pages = 0, stocked, keep;
	int i;

	if (!stock)
		goto leftover;
	mcs_assert_mode_fence();

	i = mcs_obj_slot(stock, objcg);
	if (i < 0) {
		i = NR_OBJ_STOCK;
		if (stock->nr_cached < NR_OBJ_STOCK)
			for (i = 0; i < NR_OBJ_STOCK && stock->cached[i]; i++)
				;
		if (i == NR_OBJ_STOCK) {
			if (++stock->admit_wait < MCS_STOCK_ADMIT_EVERY)
				goto leftover;
			stock->admit_wait = 0;
			i = stock->drain_idx;
			stock->drain_idx = (stock->drain_idx + 1) % NR_OBJ_STOCK;
			drain_obj_stock_slot(stock, i);
		}
		mcs_objcg_get(objcg);
		/* the objcg's leftovers join the slot; may be many pages */
		stock->nr_bytes[i] = atomic_xchg(&objcg->nr_charged_bytes, 0);
		WRITE_ONCE(stock->cached[i], objcg);
		stock->nr_cached++;
		allow_uncharge = true;
	}

	stocked = stock->nr_bytes[i] + nr_bytes;
	if ((allow_uncharge && stocked > OBJ_STOCK_HIGH) || stocked > OBJ_STOCK_MAX) {
		keep = (stocked & (PAGE_SIZE - 1)) + OBJ_STOCK_KEEP;
		nr_pages = (stocked - keep) >> PAGE_SHIFT;
		stocked = keep;
	}
	stock->nr_bytes[i] = stocked;
	if (nr_pages)
		mcs_test_hook_at(MCS_HOOK_OBJ_PAGES);
	return nr_pages;

leftover:
	mcs_objcg_add_leftover(objcg, nr_bytes);
	return 0;
}

/*
 * Account @nr_bytes of slab on @nid to @objcg, cached in the stock when the
 * objcg has a slot there.  Called after consume/refill, which give it one.
 */
static void __account_obj_stock(struct mcs_objcg *objcg, struct mcs_obj_stock *stock,
				int nr_bytes, int nid, enum mcs_slab_item item)
{
	int slot, *cached, sum;

	slot = stock ? mcs_obj_slot(stock, objcg) : -1;
	if (slot < 0) {
		mcs_objcg_mod_stat(objcg, nid, item, nr_bytes);
		return;
	}
	if (stock->index >= 0 && (stock->index != slot || stock->node_id != nid))
		drain_obj_stock_stats(stock);
	if (stock->index < 0) {
		stock->index = slot;
		stock->node_id = nid;
	}

	/*
	 * The first delta is kept even when large, so that a matching free
	 * can cancel it; later sums are flushed once they pass a page.
	 */
	cached = &stock->nr_slab_b[item];
	sum = *cached + nr_bytes;
	if (abs(sum) <= S16_MAX && (*cached == 0 || abs(sum) <= PAGE_SIZE)) {
		*cached = sum;
	} else {
		*cached = 0;
		mcs_objcg_mod_stat(objcg, nid, item, sum);
	}
}

/*
 * The byte take of the interface, accounting included, in mode @mode
 * ("decoupled" or "decoupled-owner"): trylock only, a busy stock is a
 * miss (and counted).
 */
bool mcs_decoupled_bytes_take(struct mcs_objcg *objcg, unsigned int size, bool account,
			      int nid, enum mcs_slab_item item, enum mcs_stock_mode mode)
{
	struct mcs_obj_stock *stock;
	bool ret;

	stock = trylock_obj_stock(objcg, mode);
	ret = stock && __consume_obj_stock(objcg, stock, size);
	if (ret && account)
		__account_obj_stock(objcg, stock, size, nid, item);
	unlock_obj_stock(stock, mode);
	return ret;
}

/*
 * The byte put of the interface, in mode @mode ("decoupled" or
 * "decoupled-owner"), fenced inside its section; @allow_uncharge: see
 * __refill_obj_stock().  A busy stock (or a refused fence) sends the bytes
 * to the objcg's leftover.  Returns the whole pages to give back once the
 * section is left.
 */
unsigned int mcs_decoupled_bytes_put(struct mcs_objcg *objcg, unsigned int nr_bytes,
				     bool allow_uncharge, bool account, int acct, int nid,
				     enum mcs_slab_item item, enum mcs_stock_mode mode)
{
	struct mcs_obj_stock *stock = trylock_obj_stock_fenced(objcg, mode);
	unsigned int nr_pages = 0;

	if (nr_bytes)
		nr_pages = __refill_obj_stock(objcg, stock, nr_bytes, allow_uncharge);
	if (account)
		__account_obj_stock(objcg, stock, acct, nid, item);
	unlock_obj_stock(stock, mode);
	return nr_pages;
}

/*
 * The rest of mcs_decoupled_bytes_put_fast() out of line, so that its hit
 * keeps the frame it had: __refill_obj_stock() under the section entered
 * there, then the section left.  Returns the whole pages given back.
 */
noinline unsigned int mcs_decoupled_bytes_refill_unlock(struct mcs_objcg *objcg,
							 struct mcs_obj_stock *stock,
							 unsigned int nr_bytes,
							 enum mcs_stock_mode mode)
{
	unsigned int nr_pages = __refill_obj_stock(objcg, stock, nr_bytes, true);

	mcs_obj_stock_unlock(mode);
	return nr_pages;
}

static void drain_local_obj_stock(struct work_struct *work)
{
	struct mcs_obj_stock *stock = container_of(work, struct mcs_obj_stock, work);

	if (WARN_ONCE(!in_task(), "memcg_stock: obj stock drain in atomic context\n"))
		return;

	/* excludes the sections of "decoupled-owner" too: see stock_owner.h */
	local_lock(&mcs_obj_stock.lock);
	/* Run elsewhere because its CPU went down: hotplug drains that one. */
	if (stock == this_cpu_ptr(&mcs_obj_stock))
		drain_obj_stock(stock);
	clear_bit(FLUSHING_CACHED_CHARGE, &stock->flags);
	local_unlock(&mcs_obj_stock.lock);
}

/* Does @cpu's obj stock cache an objcg charging @root's subtree? */
static bool obj_stock_holds(int cpu, struct mcs_memcg *root, bool any_slot)
{
	struct mcs_obj_stock *stock = per_cpu_ptr(&mcs_obj_stock, cpu);
	bool ret = false;
	int i;

	rcu_read_lock();
	for (i = 0; i < NR_OBJ_STOCK; i++) {
		struct mcs_objcg *objcg = READ_ONCE(stock->cached[i]);

		if (objcg && mcs_memcg_is_descendant(READ_ONCE(objcg->memcg), root)) {
			ret = true;
			break;
		}
	}
	rcu_read_unlock();
	return ret;
}

/* @cpu is dead: nothing runs there, no lock needed. */
static void obj_stock_cpu_dead(unsigned int cpu)
{
	struct mcs_obj_stock *stock = per_cpu_ptr(&mcs_obj_stock, cpu);

	drain_obj_stock(stock);
	clear_bit(FLUSHING_CACHED_CHARGE, &stock->flags);
}

/* The slots of @cpu's obj stock (modes decoupled and decoupled-owner). */
static void obj_stock_walk(int cpu, mcs_slot_fn fn, void *arg)
{
	struct mcs_obj_stock *os = per_cpu_ptr(&mcs_obj_stock, cpu);
	int i;

	for (i = 0; i < NR_OBJ_STOCK; i++)
		mcs_stock_slot_visit(fn, arg, cpu, "obj", i, true,
				     mcs_stock_objcg_memcg(READ_ONCE(os->cached[i])),
				     READ_ONCE(os->nr_bytes[i]));
}

static const struct mcs_stock_kind obj_stock_kind =
	MCS_STOCK_KIND(mcs_obj_stock, struct mcs_obj_stock, drain_local_obj_stock,
		       obj_stock_holds, obj_stock_cpu_dead, obj_stock_walk);

/* ---- the design ------------------------------------------------------------- */

/*
 * stocks of bytes first: their drains give pages back; the obj stock of
 * mode "decoupled-7.3" is one of this design's (design_decoupled73.h)
 */
static const struct mcs_stock_kind *const decoupled_kinds[] = {
	&obj_stock_kind,
	&mcs_obj73_stock_kind,
	&memcg_stock_kind,
	NULL,
};

const struct mcs_design mcs_design_decoupled = {
	.name = "decoupled",
	.kinds = decoupled_kinds,
	.batches = true,
	.memcgs_per_cpu = NR_MEMCG_STOCK,
};

/* the stocks of "decoupled" and "decoupled-owner": bytes first */
static const struct mcs_stock_kind *const decoupled_mode_kinds[] = {
	&obj_stock_kind,
	&memcg_stock_kind,
	NULL,
};

/* "decoupled-7.3": its own obj stock and the memcg stock */
static const struct mcs_stock_kind *const decoupled_73_mode_kinds[] = {
	&mcs_obj73_stock_kind,
	&memcg_stock_kind,
	NULL,
};

const struct mcs_mode_info mcs_mode_decoupled = {
	.group = "decoupled",
	.abbr = "dec",
	.cycles = MCS_CYCLES_TRYLOCK_PAGES "," MCS_CYCLES_TRYLOCK_BYTES,
	.kinds = decoupled_mode_kinds,
};

/* a preempt pair and the owner's mark (plain per-CPU byte stores), RT too */
const struct mcs_mode_info mcs_mode_decoupled_owner = {
	.group = "decoupled",
	.abbr = "dec-own",
	.cycles = "pages:preempt*2,bytes:preempt*2",
	.kinds = decoupled_mode_kinds,
	/* the section's owner byte, beside the lock */
	.layout = "hit+owner",
};

/*
 * "decoupled-7.3", a calibration mode: in no wide table of the report (no
 * group), in the replays and beside the kernel's own accounting.  Here,
 * not in design_decoupled73.c: its kinds name this file's memcg stock.
 */
const struct mcs_mode_info mcs_mode_decoupled_73 = {
	.abbr = "dec-7.3",
	.cycles = MCS_CYCLES_TRYLOCK_PAGES "," MCS_CYCLES_TRYLOCK_BYTES,
	.kinds = decoupled_73_mode_kinds,
};

/**
 * mcs_owner_test_trylock() - enter a section of mode "decoupled-owner"
 * @obj: this CPU's obj stock, else its memcg stock
 *
 * For the KUnit module (namespace MCS_NS): the section of stock_owner.h
 * that the charge paths inline, out of line.  Any context.
 *
 * Return: true with preemption disabled and the stock marked, false
 * with nothing changed (see mcs_owner_trylock()).
 */
bool mcs_owner_test_trylock(bool obj)
{
	if (obj)
		return mcs_obj_stock_trylock(MCS_MODE_DECOUPLED_OWNER);
	return mcs_memcg_stock_trylock(MCS_MODE_DECOUPLED_OWNER);
}
EXPORT_SYMBOL_NS_GPL(mcs_owner_test_trylock, MCS_NS);

/**
 * mcs_owner_test_unlock() - leave a section entered by mcs_owner_test_trylock()
 * @obj: the same stock as the entry
 *
 * For the KUnit module (namespace MCS_NS), on the CPU of the entry.
 */
void mcs_owner_test_unlock(bool obj)
{
	if (obj)
		mcs_obj_stock_unlock(MCS_MODE_DECOUPLED_OWNER);
	else
		mcs_memcg_stock_unlock(MCS_MODE_DECOUPLED_OWNER);
}
EXPORT_SYMBOL_NS_GPL(mcs_owner_test_unlock, MCS_NS);

/**
 * mcs_decoupled_test_take() - a take of the decoupled stocks, mode constant
 * @mode: MCS_MODE_DECOUPLED or MCS_MODE_DECOUPLED_73 (pages only)
 * @memcg: take one page of @memcg's slot of the memcg stock, if @objcg is NULL
 * @objcg: take one byte of @objcg's slot of the obj stock
 *
 * For the KUnit module (namespace MCS_NS): the take that the mode's own
 * entry functions inline, with the mode as a constant, as the bench's
 * timer and NMI load call them: no mode read, no fence.  Any context.
 *
 * Return: the stock's answer; on MCS_TAKE_HIT the page or byte taken is
 * the caller's charge (give it back with mcs_uncharge_pages() or
 * mcs_obj_uncharge()); MCS_TAKE_NOT_ASKED, with nothing done, for another
 * @mode or bytes of "decoupled-7.3", whose obj stock is its own.
 */
enum mcs_stock_answer mcs_decoupled_test_take(enum mcs_stock_mode mode, struct mcs_memcg *memcg,
					      struct mcs_objcg *objcg)
{
	if (mode == MCS_MODE_DECOUPLED && objcg)
		return mcs_decoupled_bytes_take_fast(objcg, 1, MCS_MODE_DECOUPLED);
	if (objcg || !memcg)
		return MCS_TAKE_NOT_ASKED;
	if (mode == MCS_MODE_DECOUPLED)
		return mcs_decoupled_pages_take_fast(memcg, 1, MCS_MODE_DECOUPLED);
	if (mode == MCS_MODE_DECOUPLED_73)
		return mcs_decoupled_pages_take_fast(memcg, 1, MCS_MODE_DECOUPLED_73);
	return MCS_TAKE_NOT_ASKED;
}
EXPORT_SYMBOL_NS_GPL(mcs_decoupled_test_take, MCS_NS);
