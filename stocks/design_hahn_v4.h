/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Design "hahn-v4" (mode "hahn-v4"): the stock moved into the page counter
 * as its v4 posting (2026-06) has it.  One atomic count of pages per CPU
 * per counter: a charge takes from this CPU's count, and when it holds too
 * few, charges the counter a whole batch and keeps the surplus there, all
 * inside the counter's try-charge; a drain empties a count from any CPU by
 * exchange.  An uncharge does NOT refill the count: it uncharges the page
 * counter straight away, an atomic per level of the hierarchy on lines
 * that every CPU of the subtree writes.  That is what the kernel test
 * robot's netperf SCTP_RR report blamed (page_counter_uncharge() from 0
 * to 61 % of the cycles on 224 threads): a socket's pages are charged on
 * one CPU and freed on another, so every free goes to the shared counters.
 *
 * The counts are the memcg's (memcg->counter_stock), the same per-CPU
 * atomics as design "percpu-counter", which models the series with
 * uncharges that refill: the two designs differ only in the uncharge.  The
 * sharing is safe because every access to a count is an atomic and every
 * add re-checks the fence after it (see stock_designs.h).
 *
 * Here the take is the counter's try-charge of the posting: a hit is a
 * cmpxchg on this CPU's count; a shortfall charges the batch itself
 * (mcs_hahn_v4_charge_batch(), out of line) and answers a hit, having
 * counted a miss; what it cannot charge it leaves to the entry point's
 * exact charge (the design does not batch there: .batches is false).
 * Bytes go through the objcg's atomic leftover, as in "percpu-counter":
 * the series leaves the obj stock alone, and that stock belongs to design
 * "decoupled" (two designs never share a stock with a lock), so the byte
 * rows of this design measure "objcg-atomic"; the page rows are the
 * series' own.
 *
 * Any context, NMI included, on every kernel: only atomics.
 */
#ifndef MEMCG_STOCK_DESIGN_HAHN_V4_H
#define MEMCG_STOCK_DESIGN_HAHN_V4_H

#include "design_common.h"

extern const struct mcs_design mcs_design_hahn_v4;
extern const struct mcs_mode_info mcs_mode_hahn_v4;

/* design_hahn_v4.c: a take's shortfall, the batch charged here */
enum mcs_stock_answer mcs_hahn_v4_charge_batch(struct mcs_memcg *memcg, unsigned int nr_pages,
					       enum mcs_stock_mode mode);

/*
 * Take @nr_pages (1 to MCS_CHARGE_BATCH) of @memcg from this CPU's count,
 * or charge a batch and keep its surplus there.  A task that migrates
 * after raw_cpu_ptr() uses another CPU's count: still exact.
 */
static __always_inline enum mcs_stock_answer
mcs_hahn_v4_pages_take(struct mcs_memcg *memcg, unsigned int nr_pages, enum mcs_stock_mode mode)
{
	atomic_t *count;
	int old;

	if (unlikely(!memcg->counter_stock))	/* the root: no stock */
		return MCS_TAKE_MISS;
	count = raw_cpu_ptr(memcg->counter_stock);
	old = atomic_read(count);
	do {
		if (old < (int)nr_pages)
			return mcs_hahn_v4_charge_batch(memcg, nr_pages, mode);
	} while (!atomic_try_cmpxchg(count, &old, old - nr_pages));
	mcs_memcg_event(memcg, MCS_STOCK_HIT);
	return MCS_TAKE_HIT;
}

/* The uncharge of v4: the page counter, never the stock. */
static __always_inline void mcs_hahn_v4_pages_put(struct mcs_memcg *memcg, unsigned int nr_pages,
						  enum mcs_stock_mode mode)
{
	mcs_page_counter_uncharge(&memcg->memory, nr_pages);
}

static __always_inline bool mcs_hahn_v4_bytes_take(struct mcs_objcg *objcg, unsigned int size,
						   bool account, int nid,
						   enum mcs_slab_item item,
						   enum mcs_stock_mode mode)
{
	return mcs_objcg_atomic_take(objcg, size, account, nid, item);
}

/* Whole pages of the sum go back to the counters inside: none to return. */
static __always_inline unsigned int
mcs_hahn_v4_bytes_put(struct mcs_objcg *objcg, unsigned int nr_bytes, bool allow_uncharge,
		      bool account, int acct, int nid, enum mcs_slab_item item,
		      enum mcs_stock_mode mode)
{
	mcs_objcg_atomic_put(objcg, nr_bytes, account, acct, nid, item);
	return 0;
}

/* The entry points' paths (stock_designs.h): the interface above, inline. */
static __always_inline enum mcs_stock_answer
mcs_hahn_v4_pages_take_fast(struct mcs_memcg *memcg, unsigned int nr_pages,
			    enum mcs_stock_mode mode)
{
	return mcs_hahn_v4_pages_take(memcg, nr_pages, mode);
}

static __always_inline bool mcs_hahn_v4_pages_put_fast(struct mcs_memcg *memcg,
						       unsigned int nr_pages,
						       enum mcs_stock_mode mode)
{
	mcs_hahn_v4_pages_put(memcg, nr_pages, mode);
	return true;
}

/* The root objcg's charges are the slow path's (it charges nothing). */
static __always_inline enum mcs_stock_answer
mcs_hahn_v4_bytes_take_fast(struct mcs_objcg *objcg, unsigned int size, enum mcs_stock_mode mode)
{
	if (likely(!objcg->is_root) &&
	    mcs_hahn_v4_bytes_take(objcg, size, false, NUMA_NO_NODE, 0, mode))
		return MCS_TAKE_HIT;
	return MCS_TAKE_MISS;
}

static __always_inline int mcs_hahn_v4_bytes_put_fast(struct mcs_objcg *objcg,
						      unsigned int nr_bytes,
						      enum mcs_stock_mode mode)
{
	return mcs_hahn_v4_bytes_put(objcg, nr_bytes, true, false, 0, NUMA_NO_NODE, 0, mode);
}

#endif /* MEMCG_STOCK_DESIGN_HAHN_V4_H */
