// SPDX-License-Identifier: GPL-2.0
/*
 * Object cgroups and the per-CPU obj stock: byte-sized charges.
 *
 * An objcg owns byte charges on behalf of a memcg.  Bytes are served from
 * this CPU's obj stock, which caches pre-charged bytes for up to
 * NR_OBJ_STOCK objcgs plus one pair of slab-statistics deltas.  Whole
 * pages are charged to the memcg (through mcs_charge_pages(), so through the
 * memcg stock) when the obj stock runs dry, and returned when a slot holds
 * more than OBJ_STOCK_HIGH (two pages): the slot then keeps one page above
 * its sub-page rest, so that an object that is freed and allocated again
 * never moves a page each time (upstream returns whole pages as soon as a
 * slot holds more than one, which an object larger than what the slot
 * keeps turns into a page charge and a page uncharge per allocation).
 * A full stock admits an objcg without a slot only on every
 * MCS_STOCK_ADMIT_EVERY-th refill that needs one; the bytes of the others
 * go to their objcg's leftover, where its next charge looks first.
 *
 * The obj stock is fully separate from the memcg stock: its own struct,
 * its own local_trylock_t, its own drain work and FLUSHING bit.
 *
 * Context rules:
 *  - Charge, uncharge and statistics paths run in any context and only
 *    trylock the obj stock.  When that fails (interrupted holder, or any
 *    hardirq on PREEMPT_RT) whole pages are uncharged directly, the
 *    sub-page remainder goes to the objcg's leftover
 *    (objcg->nr_charged_bytes), and statistics are applied directly.
 *    Interrupts are never disabled.
 *  - Leftovers stay below a page: whoever makes an objcg's leftover reach
 *    a whole page takes the whole pages off it with one cmpxchg and
 *    uncharges them (objcg_add_leftover(); lock-free, any context).  A
 *    leftover is thus never a pile of pages that nobody returns; once
 *    every object is freed and the stocks are drained it is exactly 0.
 *  - Byte sizes are bounded by MCS_OBJ_SIZE_MAX, so every sum below fits
 *    an int.
 *  - The stock mode is read, and that mode's stock filled, inside one RCU
 *    section (see memcg_stock.c): a mode switch waits for it.
 *  - Lock order: the obj stock lock may be held while the memcg stock lock
 *    is tried (returning pages refills the memcg stock); never the reverse.
 *  - drain_local_obj_stock() takes the blocking lock, in task context only.
 *  - The objcg list lock is a raw spinlock taken with interrupts off: the
 *    last objcg reference may be dropped in any context.
 *
 * Reparenting: when a memcg goes offline its objcgs are pointed at the
 * parent, so later charges and uncharges through them land there.  Pages
 * that were charged through them at the dead memcg's level are moved too:
 * every page charge or uncharge through an objcg happens in one RCU
 * read-side section together with the read of objcg->memcg and an update
 * of that memcg's objcg_pages; after the switch the offline path waits
 * for a grace period, after which the dead memcg's objcg_pages is final
 * and is taken off its own counter level (the ancestors keep them).
 */
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/nodemask.h>
#include <linux/percpu-refcount.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "stock_modes.h"
#include "stock_owner.h"
#include "trace.h"

DEFINE_PER_CPU_ALIGNED(struct mcs_obj_stock, mcs_obj_stock) = {
	.lock = INIT_LOCAL_TRYLOCK(lock),
	.index = -1,
	.node_id = NUMA_NO_NODE,
};

/* for the KUnit module only */
MCS_EXPORT_PER_CPU_NS(mcs_obj_stock);

static DEFINE_RAW_SPINLOCK(objcg_lock);
static atomic_long_t nr_objcgs = ATOMIC_LONG_INIT(0);

/* Bytes a slot may hold however it was filled. */
#define OBJ_STOCK_MAX	U16_MAX

/*
 * Bytes a slot may hold before an uncharge gives pages back, and what it
 * keeps then: its sub-page rest plus one page (where two pages fit
 * OBJ_STOCK_MAX, i.e. pages up to 16 KiB; else just the rest).
 */
#define OBJ_STOCK_HIGH	min_t(unsigned int, 2 * PAGE_SIZE, OBJ_STOCK_MAX)
#define OBJ_STOCK_KEEP	(2 * PAGE_SIZE <= OBJ_STOCK_MAX ? PAGE_SIZE : 0)

/* ---- objcg lifetime --------------------------------------------------- */

static void objcg_free_rcu(struct rcu_head *rcu)
{
	struct mcs_objcg *objcg = container_of(rcu, struct mcs_objcg, rcu);

	/*
	 * Here rather than in the release: the last reference may go in
	 * hardirq, and percpu_ref_exit() takes a spinlock_t (sleeping on
	 * PREEMPT_RT) and frees per-CPU memory.
	 */
	percpu_ref_exit(&objcg->refcnt);
	kfree(objcg);
	atomic_long_dec(&nr_objcgs);
	atomic_dec(&mcs_pending_frees);
}

static void objcg_uncharge_pages_direct(struct mcs_objcg *objcg, unsigned int nr_pages);

/* The release proper: any context but NMI (a raw lock, call_rcu()). */
static void objcg_release_now(struct mcs_objcg *objcg)
{
	unsigned int nr_bytes;
	unsigned long flags;

	/*
	 * No stock holds it any more, so every leftover byte is here.  The
	 * objects charged through it were freed, so the leftovers add up to
	 * whole pages - none, since whole pages never stay on a leftover;
	 * anything else means bytes were lost or invented.
	 */
	nr_bytes = atomic_xchg(&objcg->nr_charged_bytes, 0);
	WARN_ONCE(nr_bytes & (PAGE_SIZE - 1),
		  "memcg_stock: objcg released with %u leftover bytes\n", nr_bytes);
	if (nr_bytes >> PAGE_SHIFT)
		objcg_uncharge_pages_direct(objcg, nr_bytes >> PAGE_SHIFT);

	raw_spin_lock_irqsave(&objcg_lock, flags);
	list_del(&objcg->list);
	raw_spin_unlock_irqrestore(&objcg_lock, flags);

	call_rcu(&objcg->rcu, objcg_free_rcu);
}

static void objcg_release_deferred(struct mcs_deferred *d)
{
	objcg_release_now(container_of(d, struct mcs_objcg, deferred));
}

/*
 * Last reference gone: any context.  In NMI (a stock eviction, or a client
 * dropping its last reference there) the objcg lock may be held by the
 * interrupted code, so the release is handed to an irq_work.
 */
static void objcg_release(struct percpu_ref *ref)
{
	struct mcs_objcg *objcg = container_of(ref, struct mcs_objcg, refcnt);

	atomic_inc(&mcs_pending_frees);
	if (in_nmi())
		mcs_defer_release(&objcg->deferred, objcg_release_deferred);
	else
		objcg_release_now(objcg);
}

int mcs_memcg_objcg_alloc(struct mcs_memcg *memcg)
{
	struct mcs_objcg *objcg;
	unsigned long flags;

	objcg = kzalloc_obj(*objcg, GFP_KERNEL);
	if (!objcg)
		return -ENOMEM;
	if (percpu_ref_init(&objcg->refcnt, objcg_release, 0, GFP_KERNEL)) {
		kfree(objcg);
		return -ENOMEM;
	}
	objcg->memcg = memcg;
	objcg->is_root = mcs_memcg_is_root(memcg);
	atomic_long_inc(&nr_objcgs);

	raw_spin_lock_irqsave(&objcg_lock, flags);
	list_add(&objcg->list, &memcg->objcg_list);
	raw_spin_unlock_irqrestore(&objcg_lock, flags);
	rcu_assign_pointer(memcg->objcg, objcg);
	return 0;
}

/* Drop the memcg's own objcg reference (offline, module exit, failed create). */
void mcs_memcg_objcg_kill(struct mcs_memcg *memcg)
{
	struct mcs_objcg *objcg = rcu_replace_pointer(memcg->objcg, NULL, true);

	if (objcg)
		percpu_ref_kill(&objcg->refcnt);
}

struct mcs_objcg *mcs_memcg_tryget_objcg(struct mcs_memcg *memcg)
{
	struct mcs_objcg *objcg;

	if (!memcg)
		return NULL;
	rcu_read_lock();
	objcg = rcu_dereference(memcg->objcg);
	if (objcg && !percpu_ref_tryget(&objcg->refcnt))
		objcg = NULL;
	rcu_read_unlock();
	return objcg;
}
EXPORT_SYMBOL_GPL(mcs_memcg_tryget_objcg);

void mcs_objcg_get(struct mcs_objcg *objcg)
{
	percpu_ref_get(&objcg->refcnt);
}
EXPORT_SYMBOL_GPL(mcs_objcg_get);

void mcs_objcg_put(struct mcs_objcg *objcg)
{
	percpu_ref_put(&objcg->refcnt);
}
EXPORT_SYMBOL_GPL(mcs_objcg_put);

struct mcs_memcg *mcs_objcg_memcg(struct mcs_objcg *objcg)
{
	return READ_ONCE(objcg->memcg);
}
EXPORT_SYMBOL_GPL(mcs_objcg_memcg);

long mcs_objcg_nr_alive(void)
{
	return atomic_long_read(&nr_objcgs);
}
EXPORT_SYMBOL_GPL(mcs_objcg_nr_alive);

/* ---- page charges through an objcg --------------------------------------- */

/*
 * Charge whole pages to the objcg's memcg.  mcs_charge_pages() never sleeps
 * (its drain is the asynchronous one), so it can run inside the RCU
 * section that makes the charge and the objcg_pages update one unit with
 * respect to reparenting.  -ENOENT means the memcg went offline after we
 * read the pointer; by then the objcg points at the parent: read again.
 */
static int objcg_charge_pages(struct mcs_objcg *objcg, gfp_t gfp, unsigned int nr_pages)
{
	struct mcs_memcg *memcg;
	int ret;

	do {
		rcu_read_lock();
		memcg = READ_ONCE(objcg->memcg);
		ret = mcs_charge_pages(memcg, gfp, nr_pages);
		if (!ret)
			atomic_long_add(nr_pages, &memcg->objcg_pages);
		rcu_read_unlock();
		/* pairs with the release of the objcg lock in reparenting */
		smp_rmb();
	} while (ret == -ENOENT);
	return ret;
}

/*
 * Return pages that a byte section of the design of @mode gave back, after
 * that section, through the memcg stock of the same design (the path of
 * byte uncharges): mcs_uncharge_pages_mode().
 */
void mcs_objcg_uncharge_pages(struct mcs_objcg *objcg, unsigned int nr_pages,
			      enum mcs_stock_mode mode)
{
	struct mcs_memcg *memcg;

	rcu_read_lock();
	memcg = READ_ONCE(objcg->memcg);
	atomic_long_sub(nr_pages, &memcg->objcg_pages);
	mcs_uncharge_pages_mode(memcg, nr_pages, mode);
	rcu_read_unlock();
}

/* Return pages straight to the counters (drains and release). */
static void objcg_uncharge_pages_direct(struct mcs_objcg *objcg, unsigned int nr_pages)
{
	struct mcs_memcg *memcg;

	rcu_read_lock();
	memcg = READ_ONCE(objcg->memcg);
	atomic_long_sub(nr_pages, &memcg->objcg_pages);
	mcs_memcg_uncharge_direct(memcg, nr_pages);
	rcu_read_unlock();
}

/*
 * Add @nr_bytes, charged and owned by nobody, to @objcg's leftover.  Whole
 * pages, of @nr_bytes or of the sum, go back to the counters at once.
 * Only sub-page amounts are ever added to the atomic, so it stays far
 * from overflowing however many CPUs add at once.
 */
void mcs_objcg_add_leftover(struct mcs_objcg *objcg, unsigned int nr_bytes)
{
	unsigned int nr_pages = nr_bytes >> PAGE_SHIFT;
	int old;

	nr_bytes &= PAGE_SIZE - 1;
	if (nr_bytes) {
		old = atomic_add_return(nr_bytes, &objcg->nr_charged_bytes);
		while (old >= (int)PAGE_SIZE) {
			if (atomic_try_cmpxchg(&objcg->nr_charged_bytes, &old,
					       old & (PAGE_SIZE - 1))) {
				nr_pages += old >> PAGE_SHIFT;
				break;
			}
		}
	}
	if (nr_pages)
		objcg_uncharge_pages_direct(objcg, nr_pages);
}

/* Take @nr_bytes from @objcg's leftover if it holds that many. */
static bool objcg_take_leftover(struct mcs_objcg *objcg, unsigned int nr_bytes)
{
	int old = atomic_read(&objcg->nr_charged_bytes);

	do {
		if (old < (int)nr_bytes)
			return false;
	} while (!atomic_try_cmpxchg(&objcg->nr_charged_bytes, &old, old - nr_bytes));
	return true;
}

unsigned int mcs_objcg_leftover_bytes(struct mcs_objcg *objcg)
{
	return atomic_read(&objcg->nr_charged_bytes);
}
EXPORT_SYMBOL_GPL(mcs_objcg_leftover_bytes);

/*
 * Pages leave the objcg's accounting (they move into a memcg stock); the
 * caller is inside an RCU section and uses the memcg returned.
 */
struct mcs_memcg *mcs_objcg_unaccount_pages(struct mcs_objcg *objcg, unsigned int nr_pages)
{
	struct mcs_memcg *memcg = READ_ONCE(objcg->memcg);

	atomic_long_sub(nr_pages, &memcg->objcg_pages);
	return memcg;
}

void mcs_objcg_mod_stat(struct mcs_objcg *objcg, int nid,
			enum mcs_slab_item item, int nr_bytes)
{
	struct mcs_memcg *memcg;

	if (!nr_bytes)
		return;
	rcu_read_lock();
	memcg = READ_ONCE(objcg->memcg);
	atomic_long_add(nr_bytes, &memcg->nodeinfo[nid]->slab_b[item]);
	rcu_read_unlock();
}

/* ---- the obj stock ----------------------------------------------------------- */

/* The stock was busy: count it where the objcg's memcg counts events. */
static noinline void obj_stock_busy(struct mcs_objcg *objcg)
{
	rcu_read_lock();
	mcs_memcg_event(READ_ONCE(objcg->memcg), MCS_TRYLOCK_FAIL);
	rcu_read_unlock();
	trace_mcs_trylock_fail(MCS_STOCK_OBJ, mcs_context());
}

/*
 * NULL when the stock is busy: callers then take the direct paths.
 * @mode: "decoupled" or "decoupled-owner", the exclusion to take.
 */
static __always_inline struct mcs_obj_stock *trylock_obj_stock(struct mcs_objcg *objcg,
							       enum mcs_stock_mode mode)
{
	if (likely(mcs_obj_stock_trylock(mode)))
		return this_cpu_ptr(&mcs_obj_stock);
	obj_stock_busy(objcg);
	return NULL;
}

static __always_inline void unlock_obj_stock(struct mcs_obj_stock *stock,
					     enum mcs_stock_mode mode)
{
	if (stock)
		mcs_obj_stock_unlock(mode);
}

static __always_inline int obj_slot(struct mcs_obj_stock *stock, struct mcs_objcg *objcg)
{
	int i;

	/* plain reads: only this CPU writes cached[], under the lock held */
#pragma GCC unroll 8	/* see NR_MEMCG_STOCK */
	for (i = 0; i < NR_OBJ_STOCK; i++)
		if (stock->cached[i] == objcg)
			return i;
	return -1;
}

static __always_inline bool __consume_obj_stock(struct mcs_objcg *objcg,
						struct mcs_obj_stock *stock,
				unsigned int nr_bytes)
{
	int i = obj_slot(stock, objcg);

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

	mcs_assert_mode_fence();
	if (!stock)
		goto leftover;

	i = obj_slot(stock, objcg);
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

	slot = stock ? obj_slot(stock, objcg) : -1;
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

/* A node and a statistic that the per-node slab statistics have. */
static bool slab_stat_args_ok(int nid, enum mcs_slab_item item)
{
	return nid >= 0 && nid < nr_node_ids && node_possible(nid) &&
	       (unsigned int)item < NR_MCS_SLAB_ITEMS;
}

/* Arguments of a byte charge or uncharge the model accepts. */
static bool obj_args_ok(struct mcs_objcg *objcg, size_t size, bool account,
			int nid, enum mcs_slab_item item)
{
	if (!objcg || !size || size > MCS_OBJ_SIZE_MAX)
		return false;
	return !account || slab_stat_args_ok(nid, item);
}

/*
 * Mode "none" for bytes is "objcg-atomic": no per-CPU stock, but the
 * objcg's own atomic leftover serves as a reservoir shared by every CPU
 * (one locked cmpxchg per consume and per refill, on a cache line all
 * CPUs of the objcg write).  The benchmark reports it under that name.
 */
__always_inline bool mcs_objcg_atomic_consume(struct mcs_objcg *objcg, unsigned int size,
			      bool account, int nid, enum mcs_slab_item item)
{
	if (!objcg_take_leftover(objcg, size))
		return false;
	if (account)
		mcs_objcg_mod_stat(objcg, nid, item, size);
	return true;
}

__always_inline void mcs_objcg_atomic_refill(struct mcs_objcg *objcg, unsigned int nr_bytes,
			     bool account, int acct, int nid, enum mcs_slab_item item)
{
	mcs_objcg_add_leftover(objcg, nr_bytes);
	if (account)
		mcs_objcg_mod_stat(objcg, nid, item, acct);
}

/*
 * The decoupled obj stock's consume, in mode @mode ("decoupled" or
 * "decoupled-owner"): trylock only, a busy stock is a miss.
 */
__always_inline bool mcs_obj_stock_consume(struct mcs_objcg *objcg, unsigned int size, bool account,
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
 * The decoupled obj stock's refill, inside the mode fence that read @mode
 * (see stock_modes.h); @allow_uncharge: see __refill_obj_stock().
 */
__always_inline void mcs_obj_stock_refill(struct mcs_objcg *objcg, unsigned int nr_bytes,
			  bool allow_uncharge, bool account, int acct, int nid,
			  enum mcs_slab_item item, enum mcs_stock_mode mode)
{
	struct mcs_obj_stock *stock = trylock_obj_stock(objcg, mode);
	unsigned int nr_pages = 0;

	if (nr_bytes)
		nr_pages = __refill_obj_stock(objcg, stock, nr_bytes, allow_uncharge);
	if (account)
		__account_obj_stock(objcg, stock, acct, nid, item);
	unlock_obj_stock(stock, mode);
	if (nr_pages)
		mcs_objcg_uncharge_pages(objcg, nr_pages, mode);
}

/*
 * The rest of obj_stock_uncharge_fast() out of line, so that its hit keeps
 * the frame it had: __refill_obj_stock() under the section entered there,
 * the section left, then the pages given back, through the design of
 * @mode.
 */
static noinline void refill_obj_stock_unlock(struct mcs_objcg *objcg,
					     struct mcs_obj_stock *stock,
					     unsigned int nr_bytes, enum mcs_stock_mode mode)
{
	unsigned int nr_pages = __refill_obj_stock(objcg, stock, nr_bytes, true);

	mcs_obj_stock_unlock(mode);
	if (nr_pages)
		mcs_objcg_uncharge_pages(objcg, nr_pages, mode);
}

/*
 * The refill of a byte uncharge in mode "decoupled", inline, in the
 * section of the stock's lock, which is the mode fence (see
 * memcg_stock_refill_fast()).  A hit (the objcg has a slot that stays
 * within OBJ_STOCK_HIGH) costs the trylock pair and the slot scan; the rest is
 * __refill_obj_stock(), under the same lock.  False, with nothing done,
 * when the stock is busy or the mode is another.
 */
static __always_inline bool obj_stock_uncharge_fast(struct mcs_objcg *objcg,
						    unsigned int nr_bytes,
						    enum mcs_stock_mode mode)
{
	struct mcs_obj_stock *stock;
	int i;

	if (!mcs_obj_stock_trylock(mode))
		return false;
	/* the section of "decoupled-owner" checked the mode already */
	if (mode == MCS_MODE_DECOUPLED && !mcs_mode_fence_holds(mode)) {
		mcs_obj_stock_unlock(mode);
		return false;
	}
	stock = this_cpu_ptr(&mcs_obj_stock);
	i = obj_slot(stock, objcg);
	if (likely(i >= 0) && stock->nr_bytes[i] + nr_bytes <= OBJ_STOCK_HIGH) {
		stock->nr_bytes[i] += nr_bytes;
		mcs_obj_stock_unlock(mode);
		return true;
	}
	refill_obj_stock_unlock(objcg, stock, nr_bytes, mode);
	return true;
}

/* Arguments of a byte uncharge that the inline path takes. */
static __always_inline bool obj_fast_ok(struct mcs_objcg *objcg, size_t size)
{
	return likely(objcg && size && size <= MCS_OBJ_SIZE_MAX && !objcg->is_root);
}

/*
 * Take @size bytes of @objcg from this CPU's obj stock: the inline path of
 * mcs_obj_charge(), without a call (so that it needs no frame).
 */
static __always_inline enum mcs_stock_answer
obj_stock_take(struct mcs_objcg *objcg, unsigned int size, enum mcs_stock_mode mode)
{
	struct mcs_obj_stock *stock;
	int i;

	if (!mcs_obj_stock_trylock(mode))
		return MCS_TAKE_BUSY;
	stock = this_cpu_ptr(&mcs_obj_stock);
	i = obj_slot(stock, objcg);
	if (i >= 0 && stock->nr_bytes[i] >= size) {
		stock->nr_bytes[i] -= size;
		mcs_obj_stock_unlock(mode);
		return MCS_TAKE_HIT;
	}
	if (i < 0 && stock->nr_cached == NR_OBJ_STOCK) {
		mcs_obj_stock_unlock(mode);
		return MCS_TAKE_FULL;
	}
	mcs_obj_stock_unlock(mode);
	return MCS_TAKE_MISS;
}

/* @answer: what the obj stock answered mcs_obj_charge()'s inline path */
static noinline int obj_charge(struct mcs_objcg *objcg, gfp_t gfp, size_t size,
			       int nid, enum mcs_slab_item item, bool account,
			       enum mcs_stock_answer answer)
{
	int ret;

	if (answer == MCS_TAKE_BUSY)
		obj_stock_busy(objcg);
	if (!obj_args_ok(objcg, size, account, nid, item))
		return -EINVAL;
	if (objcg->is_root)
		return 0;

	if (answer == MCS_TAKE_NOT_ASKED &&
	    mcs_mode_consume_bytes(objcg, size, account, nid, item))
		return 0;
	/*
	 * The stock had too few bytes (or no slot in a full stock): bytes of
	 * refills that were turned away or found the stock busy wait on the
	 * leftover, accounted charges' too.
	 */
	if (objcg_take_leftover(objcg, size)) {
		if (account)
			mcs_objcg_mod_stat(objcg, nid, item, size);
		return 0;
	}
	ret = objcg_charge_pages(objcg, gfp, PAGE_ALIGN(size) >> PAGE_SHIFT);
	if (ret)
		return ret;
	/* the rest of the last page stays with the objcg, for the next charge */
	mcs_mode_refill_bytes(objcg, PAGE_ALIGN(size) - size, false, account, size, nid, item);
	return 0;
}

static noinline int obj_uncharge(struct mcs_objcg *objcg, size_t size, int nid,
				 enum mcs_slab_item item, bool account)
{
	if (!obj_args_ok(objcg, size, account, nid, item)) {
		pr_warn_ratelimited("memcg_stock: byte uncharge of %zu (node %d, item %d) refused\n",
				    size, nid, item);
		return -EINVAL;
	}
	if (objcg->is_root)
		return 0;
	mcs_mode_refill_bytes(objcg, size, true, account, -(int)size, nid, item);
	return 0;
}

/* A byte charge in a mode without the decoupled stocks: its stock first. */
static noinline int obj_charge_other(struct mcs_objcg *objcg, gfp_t gfp, size_t size)
{
	if (!objcg->is_root &&
	    mcs_mode_consume_bytes(objcg, size, false, NUMA_NO_NODE, 0))
		return 0;
	return obj_charge(objcg, gfp, size, NUMA_NO_NODE, 0, false, MCS_TAKE_MISS);
}

/*
 * The rest of the last page charged stays in the stock (or on the objcg's
 * leftover) for the next charge.  A hit of the decoupled stock is served
 * inline, without a frame; everything else goes through obj_charge().
 */
int mcs_obj_charge(struct mcs_objcg *objcg, gfp_t gfp, size_t size)
{
	enum mcs_stock_answer answer = MCS_TAKE_NOT_ASKED;

	/* the root objcg never has a slot: obj_charge() returns for it */
	if (likely(objcg && size && size <= MCS_OBJ_SIZE_MAX)) {
		enum mcs_stock_mode mode = mcs_stock_mode_now();

		if (likely(mode == MCS_MODE_DECOUPLED))
			answer = obj_stock_take(objcg, size, MCS_MODE_DECOUPLED);
		else if (mode == MCS_MODE_DECOUPLED_OWNER)
			answer = obj_stock_take(objcg, size, MCS_MODE_DECOUPLED_OWNER);
		else
			return obj_charge_other(objcg, gfp, size);
		if (likely(answer == MCS_TAKE_HIT))
			return 0;
	}
	return obj_charge(objcg, gfp, size, NUMA_NO_NODE, 0, false, answer);
}
EXPORT_SYMBOL_GPL(mcs_obj_charge);

int mcs_obj_uncharge(struct mcs_objcg *objcg, size_t size)
{
	enum mcs_stock_mode mode;

	if (obj_fast_ok(objcg, size)) {
		mode = mcs_stock_mode_now();
		if (mode == MCS_MODE_DECOUPLED) {
			if (likely(obj_stock_uncharge_fast(objcg, size, MCS_MODE_DECOUPLED)))
				return 0;
		} else if (mode == MCS_MODE_DECOUPLED_OWNER) {
			if (likely(obj_stock_uncharge_fast(objcg, size, MCS_MODE_DECOUPLED_OWNER)))
				return 0;
		} else if (mcs_mode_is_coupled(mode)) {
			if (likely(mcs_coupled_obj_refill_fenced(objcg, size, mode)))
				return 0;
		}
	}
	return obj_uncharge(objcg, size, NUMA_NO_NODE, 0, false);
}
EXPORT_SYMBOL_GPL(mcs_obj_uncharge);

int mcs_obj_charge_account(struct mcs_objcg *objcg, gfp_t gfp, size_t size,
			   int nid, enum mcs_slab_item item)
{
	return obj_charge(objcg, gfp, size, nid, item, true, MCS_TAKE_NOT_ASKED);
}
EXPORT_SYMBOL_GPL(mcs_obj_charge_account);

int mcs_obj_uncharge_account(struct mcs_objcg *objcg, size_t size, int nid,
			     enum mcs_slab_item item)
{
	return obj_uncharge(objcg, size, nid, item, true);
}
EXPORT_SYMBOL_GPL(mcs_obj_uncharge_account);

long mcs_memcg_slab_stat(struct mcs_memcg *memcg, int nid, enum mcs_slab_item item)
{
	if (!memcg || !slab_stat_args_ok(nid, item))
		return -EINVAL;
	return atomic_long_read(&memcg->nodeinfo[nid]->slab_b[item]);
}
EXPORT_SYMBOL_GPL(mcs_memcg_slab_stat);

/* ---- drains ------------------------------------------------------------------- */

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

/* ---- reparenting ----------------------------------------------------------------- */

/*
 * First half of offlining: point every objcg of @memcg at its parent and
 * hand them over.  The caller marks @memcg offline only afterwards.
 */
void mcs_memcg_reparent_objcgs(struct mcs_memcg *memcg)
{
	struct mcs_memcg *parent = memcg->parent;
	struct mcs_objcg *iter;
	unsigned long flags;

	raw_spin_lock_irqsave(&objcg_lock, flags);
	list_for_each_entry(iter, &memcg->objcg_list, list)
		WRITE_ONCE(iter->memcg, parent);
	list_splice_init(&memcg->objcg_list, &parent->objcg_list);
	raw_spin_unlock_irqrestore(&objcg_lock, flags);

	mcs_memcg_objcg_kill(memcg);
}

/*
 * Module exit found objcgs alive: name each one on @memcg's list, so that
 * the report tells a reference still held (not dying: its memcg was never
 * offlined; dying: somebody kept a reference) from leftover bytes.  At
 * most @max lines; returns how many objcgs the list holds.
 */
long mcs_objcg_report_alive(struct mcs_memcg *memcg, long max)
{
	struct mcs_objcg *iter;
	unsigned long flags;
	long n = 0;

	raw_spin_lock_irqsave(&objcg_lock, flags);
	list_for_each_entry(iter, &memcg->objcg_list, list) {
		if (n++ >= max)
			continue;
		pr_warn("memcg_stock: objcg alive on memcg %u (%s): %s, %s, %d leftover bytes\n",
			memcg->id, memcg->name,
			iter->is_root ? "the root's own" :
			iter == rcu_access_pointer(memcg->objcg) ? "its own" :
			"inherited from an offlined memcg",
			percpu_ref_is_dying(&iter->refcnt) ? "dying" : "not killed",
			atomic_read(&iter->nr_charged_bytes));
	}
	raw_spin_unlock_irqrestore(&objcg_lock, flags);
	return n;
}

/*
 * Second half, after a grace period: nobody charges or uncharges through
 * @memcg's level any more, so its objcg page count and slab statistics are
 * final.  The pages stay charged to the ancestors, which now own them.
 */
void mcs_memcg_reparent_objcg_charges(struct mcs_memcg *memcg)
{
	struct mcs_memcg *parent = memcg->parent;
	long nr_pages;
	int nid, item;

	nr_pages = atomic_long_xchg(&memcg->objcg_pages, 0);
	atomic_long_add(nr_pages, &parent->objcg_pages);
	if (nr_pages)
		mcs_page_counter_cancel_local(&memcg->memory, nr_pages);

	for_each_node(nid)
		for (item = 0; item < NR_MCS_SLAB_ITEMS; item++)
			atomic_long_add(atomic_long_xchg(&memcg->nodeinfo[nid]->slab_b[item], 0),
					&parent->nodeinfo[nid]->slab_b[item]);
}

/* The decoupled obj stock as the drains see it (stock_modes.c). */
const struct mcs_stock_kind mcs_obj_stock_kind =
	MCS_STOCK_KIND(mcs_obj_stock, struct mcs_obj_stock, drain_local_obj_stock,
		       obj_stock_holds, obj_stock_cpu_dead);
