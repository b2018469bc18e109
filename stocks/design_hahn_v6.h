/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Design "hahn-v6" (mode "hahn-v6"): the stock moved behind the page
 * counter's interface as the v5 and v6 postings (2026-08, 2026-09) have
 * it: today's per-CPU stock of NR_MEMCG_STOCK slots under a
 * local_trylock_t, each slot keyed by a page counter instead of a memcg
 * (a counter pointer and a u8 page count per slot, a batch each at most),
 * consulted inside the counter's try-charge, refilled by uncharges, a full
 * stock evicting round-robin through a drain_idx byte under the trylock.
 * Upstream the key makes a difference where a memcg has several counters
 * (memory and memsw on cgroup v1, a tiered limit): each takes a slot.  Our
 * memcg has one counter, so this design differs from "decoupled" in what
 * the posting changed besides the key: no admission throttle (a full
 * stock evicts on every refill of a newcomer, as upstream does) and no
 * "full stock" answer (a miss always charges a batch).
 *
 * Each slot holds a reference to the memcg of its counter, as the
 * decoupled slots do.  Bytes go through the objcg's atomic leftover: the
 * posting leaves the obj stock as it is upstream, and that stock is design
 * "decoupled"'s own (two designs never share a stock with a lock), so the
 * byte rows of this design measure "objcg-atomic".
 *
 * Context: takes and puts in any context, trylock only (on PREEMPT_RT
 * hardirq and NMI callers find the stock busy and use the counters);
 * interrupts never disabled.  The take, and the hit of the put, are inline
 * here; the rest and the drains are in design_hahn_v6.c.
 */
#ifndef MEMCG_STOCK_DESIGN_HAHN_V6_H
#define MEMCG_STOCK_DESIGN_HAHN_V6_H

#include "design_common.h"

/**
 * struct mcs_hahn_v6_stock - per-CPU stock of pages keyed by page counter
 * @lock: protects @nr_pages, @cached and @drain_idx of this CPU's instance
 * @nr_pages: pages held for @cached[i], at most the batch once an operation
 *	completes
 * @cached: page counter of slot i (a memcg's ->memory) or NULL; each
 *	non-NULL slot holds a reference to that memcg
 * @drain_idx: round-robin eviction cursor, in [0, NR_MEMCG_STOCK), back
 *	to 0 when the stock is drained whole (two replays of a trace make the
 *	same evictions); after @cached, so that the lock, the counts and the
 *	pointers of a hit share one cache line
 * @flags: FLUSHING_CACHED_CHARGE
 * @work: drain work, queued on this CPU
 *
 * Remote CPUs only read @cached and @nr_pages (under RCU) to decide
 * whether to drain; every write happens on the owning CPU under @lock, or
 * on a dead CPU's stock from the hotplug callback.
 */
struct mcs_hahn_v6_stock {
	local_trylock_t lock;
	u8 nr_pages[NR_MEMCG_STOCK];
	struct mcs_page_counter *cached[NR_MEMCG_STOCK];
	u8 drain_idx;
	unsigned long flags;
	struct work_struct work;
};

DECLARE_PER_CPU_ALIGNED(struct mcs_hahn_v6_stock, mcs_hahn_v6_stock);

extern const struct mcs_design mcs_design_hahn_v6;
extern const struct mcs_mode_info mcs_mode_hahn_v6;

/*
 * design_hahn_v6.c: the out-of-line rest of the put, with this CPU's stock
 * locked (@locked), or busy (counted, and the pages go to the counter)
 */
void mcs_hahn_v6_pages_put_slow(struct mcs_memcg *memcg, unsigned int nr_pages, bool locked);

/*
 * Take @nr_pages (1 to MCS_CHARGE_BATCH) of @memcg's counter from this
 * CPU's stock: a hit (counted), a miss, or a busy stock (not counted).
 * The counter has at most one slot: the scan stops at it either way.
 */
static __always_inline enum mcs_stock_answer
mcs_hahn_v6_pages_take(struct mcs_memcg *memcg, unsigned int nr_pages, enum mcs_stock_mode mode)
{
	struct mcs_page_counter *counter = &memcg->memory;
	struct mcs_hahn_v6_stock *stock;
	unsigned long i;

	if (!local_trylock(&mcs_hahn_v6_stock.lock))
		return MCS_TAKE_BUSY;
	stock = this_cpu_ptr(&mcs_hahn_v6_stock);
#pragma GCC unroll 8	/* see NR_MEMCG_STOCK */
	for (i = 0; i < NR_MEMCG_STOCK; i++) {
		u8 stock_pages;

		if (stock->cached[i] != counter)
			continue;
		stock_pages = READ_ONCE(stock->nr_pages[i]);
		if (stock_pages < nr_pages)
			break;
		WRITE_ONCE(stock->nr_pages[i], stock_pages - nr_pages);
		__mcs_memcg_event(memcg, MCS_STOCK_HIT);
		local_unlock(&mcs_hahn_v6_stock.lock);
		return MCS_TAKE_HIT;
	}
	local_unlock(&mcs_hahn_v6_stock.lock);
	return MCS_TAKE_MISS;
}

/*
 * Put @nr_pages of @memcg, already charged, into this CPU's stock: the
 * refill of every uncharge and of a batch's surplus.  The section of the
 * lock is the mode fence (as in design "decoupled": preemption off on
 * !PREEMPT_RT, an RCU section inside the spinlock on PREEMPT_RT), checked
 * inside it.  Inline when the counter has a slot that stays within the
 * batch; a slot to find or drain, and a busy stock, are
 * mcs_hahn_v6_pages_put_slow()'s; a refused fence and a put of more than
 * MCS_CHARGE_BATCH uncharge the counter.
 */
static __always_inline void mcs_hahn_v6_pages_put(struct mcs_memcg *memcg, unsigned int nr_pages,
						  enum mcs_stock_mode mode)
{
	struct mcs_page_counter *counter = &memcg->memory;
	struct mcs_hahn_v6_stock *stock;
	unsigned long i;

	if (unlikely(nr_pages > MCS_CHARGE_BATCH))
		goto uncharge;
	if (unlikely(!local_trylock(&mcs_hahn_v6_stock.lock))) {
		mcs_hahn_v6_pages_put_slow(memcg, nr_pages, false);
		return;
	}
	if (unlikely(!mcs_mode_fence_holds(mode))) {
		local_unlock(&mcs_hahn_v6_stock.lock);
		goto uncharge;
	}
	stock = this_cpu_ptr(&mcs_hahn_v6_stock);
#pragma GCC unroll 8	/* see NR_MEMCG_STOCK */
	for (i = 0; i < NR_MEMCG_STOCK; i++) {
		/* slot <= 64 plus refill <= 64 fits a u8 */
		unsigned int total;

		if (stock->cached[i] != counter)
			continue;
		total = READ_ONCE(stock->nr_pages[i]) + nr_pages;
		if (total > mcs_batch_now())
			break;
		WRITE_ONCE(stock->nr_pages[i], total);
		__mcs_memcg_event(memcg, MCS_REFILL);
		local_unlock(&mcs_hahn_v6_stock.lock);
		return;
	}
	mcs_hahn_v6_pages_put_slow(memcg, nr_pages, true);
	local_unlock(&mcs_hahn_v6_stock.lock);
	return;
uncharge:
	mcs_page_counter_uncharge(counter, nr_pages);
}

static __always_inline bool mcs_hahn_v6_bytes_take(struct mcs_objcg *objcg, unsigned int size,
						   bool account, int nid,
						   enum mcs_slab_item item,
						   enum mcs_stock_mode mode)
{
	return mcs_objcg_atomic_take(objcg, size, account, nid, item);
}

/* Whole pages of the sum go back to the counters inside: none to return. */
static __always_inline unsigned int
mcs_hahn_v6_bytes_put(struct mcs_objcg *objcg, unsigned int nr_bytes, bool allow_uncharge,
		      bool account, int acct, int nid, enum mcs_slab_item item,
		      enum mcs_stock_mode mode)
{
	mcs_objcg_atomic_put(objcg, nr_bytes, account, acct, nid, item);
	return 0;
}

/* The entry points' paths (stock_designs.h): the interface above, inline. */
static __always_inline enum mcs_stock_answer
mcs_hahn_v6_pages_take_fast(struct mcs_memcg *memcg, unsigned int nr_pages,
			    enum mcs_stock_mode mode)
{
	return mcs_hahn_v6_pages_take(memcg, nr_pages, mode);
}

static __always_inline bool mcs_hahn_v6_pages_put_fast(struct mcs_memcg *memcg,
						       unsigned int nr_pages,
						       enum mcs_stock_mode mode)
{
	mcs_hahn_v6_pages_put(memcg, nr_pages, mode);
	return true;
}

/* The root objcg's charges are the slow path's (it charges nothing). */
static __always_inline enum mcs_stock_answer
mcs_hahn_v6_bytes_take_fast(struct mcs_objcg *objcg, unsigned int size, enum mcs_stock_mode mode)
{
	if (likely(!objcg->is_root) &&
	    mcs_hahn_v6_bytes_take(objcg, size, false, NUMA_NO_NODE, 0, mode))
		return MCS_TAKE_HIT;
	return MCS_TAKE_MISS;
}

static __always_inline int mcs_hahn_v6_bytes_put_fast(struct mcs_objcg *objcg,
						      unsigned int nr_bytes,
						      enum mcs_stock_mode mode)
{
	return mcs_hahn_v6_bytes_put(objcg, nr_bytes, true, false, 0, NUMA_NO_NODE, 0, mode);
}

#endif /* MEMCG_STOCK_DESIGN_HAHN_V6_H */
