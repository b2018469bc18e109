/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Design "percpu-counter" (mode "percpu-counter"): the stock of the 2026
 * series that moves the per-CPU stock into the page counter.  Each memcg
 * has one atomic count of pages per CPU beside its page counter
 * (memcg->counter_stock): a charge takes from this CPU's count with a
 * cmpxchg, an uncharge adds to it, and a count that goes over the batch
 * gives everything back to the counter.  No lock, no slot, no eviction,
 * no drain work: a drain exchanges a count for 0 from any CPU.  Bytes go
 * through the objcg's atomic leftover, as in design "none".
 *
 * Any context, NMI included, on every kernel: only atomics.  The interface
 * of stock_designs.h, implemented in design_percpu_counter.c.
 */
#ifndef MEMCG_STOCK_DESIGN_PERCPU_COUNTER_H
#define MEMCG_STOCK_DESIGN_PERCPU_COUNTER_H

#include "design_common.h"

extern const struct mcs_design mcs_design_percpu_counter;
extern const struct mcs_mode_info mcs_mode_percpu_counter;

enum mcs_stock_answer mcs_percpu_counter_pages_take(struct mcs_memcg *memcg,
						    unsigned int nr_pages,
						    enum mcs_stock_mode mode);
void mcs_percpu_counter_pages_put(struct mcs_memcg *memcg, unsigned int nr_pages,
				  enum mcs_stock_mode mode);
bool mcs_percpu_counter_bytes_take(struct mcs_objcg *objcg, unsigned int size, bool account,
				   int nid, enum mcs_slab_item item, enum mcs_stock_mode mode);
unsigned int mcs_percpu_counter_bytes_put(struct mcs_objcg *objcg, unsigned int nr_bytes,
					  bool allow_uncharge, bool account, int acct, int nid,
					  enum mcs_slab_item item, enum mcs_stock_mode mode);

void mcs_percpu_counter_count_drain(struct mcs_memcg *memcg, atomic_t *count);

/*
 * The paths the entry points inline (stock_designs.h).  The take: this
 * CPU's count, by cmpxchg; counts the hit.
 */
static __always_inline enum mcs_stock_answer
mcs_percpu_counter_pages_take_fast(struct mcs_memcg *memcg, unsigned int nr_pages,
				   enum mcs_stock_mode mode)
{
	atomic_t *count;
	int old;

	/* @nr_pages is 1..MCS_CHARGE_BATCH: the entry points checked */
	if (!memcg->counter_stock)
		return MCS_TAKE_MISS;
	count = raw_cpu_ptr(memcg->counter_stock);
	old = atomic_read(count);
	do {
		if (old < (int)nr_pages)
			return MCS_TAKE_MISS;
	} while (!atomic_try_cmpxchg(count, &old, old - nr_pages));
	mcs_memcg_event(memcg, MCS_STOCK_HIT);
	return MCS_TAKE_HIT;
}

/*
 * The put: add to this CPU's count, then check the fence (see
 * design_percpu_counter.c); a count over the batch is emptied whole.
 * Always true: the pages are in the count or back on the counter.
 */
static __always_inline bool mcs_percpu_counter_pages_put_fast(struct mcs_memcg *memcg,
							      unsigned int nr_pages,
							      enum mcs_stock_mode mode)
{
	atomic_t *count;
	int total;

	if (!memcg->counter_stock || nr_pages > MCS_CHARGE_BATCH ||
	    !READ_ONCE(memcg->online)) {
		mcs_page_counter_uncharge(&memcg->memory, nr_pages);
		return true;
	}
	count = raw_cpu_ptr(memcg->counter_stock);
	/* fully ordered: the checks below come after the add */
	total = atomic_add_return(nr_pages, count);
	if (unlikely(!mcs_mode_fence_holds(mode) || !READ_ONCE(memcg->online))) {
		mcs_percpu_counter_count_drain(memcg, count);
		return true;
	}
	mcs_memcg_event(memcg, MCS_REFILL);
	if (total > (int)mcs_batch_now()) {
		mcs_percpu_counter_count_drain(memcg, count);
		mcs_memcg_event(memcg, MCS_DRAIN);
	}
	return true;
}

/* Bytes: the objcg's atomic leftover, as design "none" (no frame, no call). */
static __always_inline enum mcs_stock_answer
mcs_percpu_counter_bytes_take_fast(struct mcs_objcg *objcg, unsigned int size,
				   enum mcs_stock_mode mode)
{
	if (likely(!objcg->is_root) &&
	    mcs_objcg_atomic_take(objcg, size, false, NUMA_NO_NODE, 0))
		return MCS_TAKE_HIT;
	return MCS_TAKE_MISS;
}

static __always_inline int mcs_percpu_counter_bytes_put_fast(struct mcs_objcg *objcg,
							     unsigned int nr_bytes,
							     enum mcs_stock_mode mode)
{
	mcs_objcg_atomic_put(objcg, nr_bytes, false, 0, NUMA_NO_NODE, 0);
	return 0;
}

#endif /* MEMCG_STOCK_DESIGN_PERCPU_COUNTER_H */
