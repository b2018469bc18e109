/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Design "none" (mode "none"): no per-CPU stock.  Pages go straight to the
 * page counters; bytes go through the objcg's own atomic leftover, a
 * reservoir shared by every CPU (one locked cmpxchg per take and per put,
 * on a cache line all CPUs of the objcg write), which the benchmark reports
 * as "objcg-atomic".  The benchmark's control: all of it inline, so that the
 * control pays no dispatch that the measured designs skip.
 */
#ifndef MEMCG_STOCK_DESIGN_NONE_H
#define MEMCG_STOCK_DESIGN_NONE_H

#include "design_common.h"

extern const struct mcs_design mcs_design_none;
extern const struct mcs_mode_info mcs_mode_none;

static __always_inline enum mcs_stock_answer
mcs_none_pages_take(struct mcs_memcg *memcg, unsigned int nr_pages, enum mcs_stock_mode mode)
{
	return MCS_TAKE_MISS;
}

static __always_inline void mcs_none_pages_put(struct mcs_memcg *memcg, unsigned int nr_pages,
					       enum mcs_stock_mode mode)
{
	mcs_page_counter_uncharge(&memcg->memory, nr_pages);
}

static __always_inline bool mcs_none_bytes_take(struct mcs_objcg *objcg, unsigned int size,
						bool account, int nid,
						enum mcs_slab_item item,
						enum mcs_stock_mode mode)
{
	return mcs_objcg_atomic_take(objcg, size, account, nid, item);
}

/* Whole pages of the sum go back to the counters inside: none to return. */
static __always_inline unsigned int
mcs_none_bytes_put(struct mcs_objcg *objcg, unsigned int nr_bytes, bool allow_uncharge,
		   bool account, int acct, int nid, enum mcs_slab_item item,
		   enum mcs_stock_mode mode)
{
	mcs_objcg_atomic_put(objcg, nr_bytes, account, acct, nid, item);
	return 0;
}

/*
 * The entry points' paths (stock_designs.h): with no stock, the counters
 * are the hit path.  A page charge of a memcg but the root, online, is
 * charged exactly and served here, counted as a stock miss; a refused
 * charge, the root and an offline memcg answer MCS_TAKE_MISS uncounted,
 * for the entry point's slow path (which counts the miss and handles the
 * refusal).
 */
static __always_inline enum mcs_stock_answer
mcs_none_pages_take_fast(struct mcs_memcg *memcg, unsigned int nr_pages, enum mcs_stock_mode mode)
{
	struct mcs_page_counter *fail;

	if (unlikely(mcs_memcg_is_root(memcg) || !READ_ONCE(memcg->online)))
		return MCS_TAKE_MISS;
	if (unlikely(!mcs_page_counter_try_charge(&memcg->memory, nr_pages, &fail)))
		return MCS_TAKE_MISS;
	mcs_memcg_event(memcg, MCS_STOCK_MISS);
	return MCS_TAKE_HIT;
}

static __always_inline bool mcs_none_pages_put_fast(struct mcs_memcg *memcg,
						    unsigned int nr_pages,
						    enum mcs_stock_mode mode)
{
	mcs_none_pages_put(memcg, nr_pages, mode);
	return true;
}

/* The root objcg's charges are the slow path's (it charges nothing). */
static __always_inline enum mcs_stock_answer
mcs_none_bytes_take_fast(struct mcs_objcg *objcg, unsigned int size, enum mcs_stock_mode mode)
{
	if (likely(!objcg->is_root) &&
	    mcs_none_bytes_take(objcg, size, false, NUMA_NO_NODE, 0, mode))
		return MCS_TAKE_HIT;
	return MCS_TAKE_MISS;
}

static __always_inline int mcs_none_bytes_put_fast(struct mcs_objcg *objcg,
						   unsigned int nr_bytes,
						   enum mcs_stock_mode mode)
{
	return mcs_none_bytes_put(objcg, nr_bytes, true, false, 0, NUMA_NO_NODE, 0, mode);
}

#endif /* MEMCG_STOCK_DESIGN_NONE_H */
