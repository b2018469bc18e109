/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Design "coupled" (modes "coupled" and "coupled-noirq"): one per-CPU stock
 * of one memcg's pages and one objcg's bytes under one local_lock_t taken
 * with IRQs off (preemption off in the control "coupled-noirq").  The
 * interface of stock_designs.h, implemented in design_coupled.c.
 */
#ifndef MEMCG_STOCK_DESIGN_COUPLED_H
#define MEMCG_STOCK_DESIGN_COUPLED_H

#include <linux/mm.h>

#include "design_common.h"

/**
 * struct mcs_coupled_stock - the pre-2025 per-CPU stock (stock mode "coupled")
 * @lock: one local_lock_t for everything, always taken with IRQs disabled
 * @cached: the one memcg cached, holding a reference
 * @nr_pages: pages pre-charged to @cached
 * @cached_objcg: the one objcg cached, holding a reference
 * @cached_nid: node of the cached slab-stat deltas, NUMA_NO_NODE for none
 * @nr_bytes: bytes pre-charged to @cached_objcg
 * @nr_slab_b: cached slab byte deltas by enum mcs_slab_item
 * @work: drain work
 * @flags: FLUSHING_CACHED_CHARGE
 */
struct mcs_coupled_stock {
	local_lock_t lock;
	struct mcs_memcg *cached;
	unsigned int nr_pages;
	struct mcs_objcg *cached_objcg;
	int cached_nid;
	unsigned int nr_bytes;
	int nr_slab_b[NR_MCS_SLAB_ITEMS];
	struct work_struct work;
	unsigned long flags;
};

DECLARE_PER_CPU(struct mcs_coupled_stock, mcs_coupled_stock);

extern const struct mcs_design mcs_design_coupled;
extern const struct mcs_mode_info mcs_mode_coupled, mcs_mode_coupled_noirq;

void mcs_coupled_refill(struct mcs_coupled_stock *stock, struct mcs_memcg *memcg,
			unsigned int nr_pages);
enum mcs_stock_answer mcs_coupled_pages_take(struct mcs_memcg *memcg, unsigned int nr_pages,
					     enum mcs_stock_mode mode);
void mcs_coupled_pages_put(struct mcs_memcg *memcg, unsigned int nr_pages,
			   enum mcs_stock_mode mode);
bool mcs_coupled_bytes_take(struct mcs_objcg *objcg, unsigned int nr_bytes,
			    bool account, int nid, enum mcs_slab_item item,
			    enum mcs_stock_mode mode);
unsigned int mcs_coupled_bytes_put_full(struct mcs_objcg *objcg, unsigned int nr_bytes,
					bool allow_uncharge, bool account, int acct,
					int nid, enum mcs_slab_item item, enum mcs_stock_mode mode);
unsigned int mcs_coupled_bytes_uncharge(struct mcs_objcg *objcg, unsigned int nr_bytes,
					enum mcs_stock_mode mode);

/*
 * local_lock_irqsave() does not exclude NMIs: an NMI that charged through
 * the coupled stock could find it half updated.  And on PREEMPT_RT a
 * local_lock_t is a sleeping lock that hardirq context cannot take (6.12
 * never charged from hardirq on RT).  Such calls bypass the stock:
 * consume misses, refills go to the counters.
 * In "coupled-noirq" only task context may use it (see above).
 */
static __always_inline bool mcs_coupled_usable(bool noirq)
{
	if (in_nmi())
		return false;
	if (noirq && !IS_ENABLED(CONFIG_PREEMPT_RT))
		return in_task();
	return !IS_ENABLED(CONFIG_PREEMPT_RT) || !in_hardirq();
}

/*
 * The paths below are called with the mode as a constant, one copy per
 * mode of this design, so that the tests of @noirq and the fence's
 * comparison fold at compile time.
 */

/* The critical section: IRQs off, or only preemption in "coupled-noirq". */
static __always_inline void mcs_coupled_lock(bool noirq, unsigned long *flags)
{
	if (noirq && !IS_ENABLED(CONFIG_PREEMPT_RT)) {
		*flags = 0;
		preempt_disable();
	} else {
		local_lock_irqsave(&mcs_coupled_stock.lock, *flags);
	}
}

static __always_inline void mcs_coupled_unlock(bool noirq, unsigned long flags)
{
	if (noirq && !IS_ENABLED(CONFIG_PREEMPT_RT))
		preempt_enable();
	else
		local_unlock_irqrestore(&mcs_coupled_stock.lock, flags);
}

/*
 * Take @nr_pages of @memcg from this CPU's stock in mode @mode (coupled or
 * coupled-noirq), chosen by the caller outside any section: the fence in the
 * section refuses a stock that the other exclusion may guard by now.
 */
static __always_inline enum mcs_stock_answer
mcs_coupled_pages_take_fast(struct mcs_memcg *memcg, unsigned int nr_pages,
			    enum mcs_stock_mode mode)
{
	bool noirq = mode == MCS_MODE_COUPLED_NOIRQ;
	struct mcs_coupled_stock *stock;
	enum mcs_stock_answer ret = MCS_TAKE_MISS;
	unsigned long flags;

	/* @nr_pages is 1..MCS_CHARGE_BATCH: the entry points checked */
	if (!mcs_coupled_usable(noirq))
		return MCS_TAKE_MISS;
	mcs_test_hook_at(MCS_HOOK_COUPLED_ENTER);
	mcs_coupled_lock(noirq, &flags);
	stock = this_cpu_ptr(&mcs_coupled_stock);
	if (mcs_mode_fence_holds(mode) && stock->cached == memcg &&
	    stock->nr_pages >= nr_pages) {
		stock->nr_pages -= nr_pages;
		__mcs_memcg_event(memcg, MCS_STOCK_HIT);
		ret = MCS_TAKE_HIT;
	}
	mcs_coupled_unlock(noirq, flags);
	return ret;
}

/*
 * The refill of a page uncharge in mode @mode (coupled or coupled-noirq),
 * with the stock's own section as the mode fence: IRQs or preemption off
 * make it an RCU reader on !PREEMPT_RT, and the local lock's spinlock
 * opens an RCU section on PREEMPT_RT.  When the stock cannot be used here
 * or the mode read inside is another, the pages go to the counters.  The
 * refill of the cached memcg within the batch is served inline, as 6.12's
 * refill_stock() inlined it; the rest is mcs_coupled_refill().  Always
 * true: the pages are in the stock or back on the counters.
 */
static __always_inline bool mcs_coupled_pages_put_fast(struct mcs_memcg *memcg,
						       unsigned int nr_pages,
						       enum mcs_stock_mode mode)
{
	bool noirq = mode == MCS_MODE_COUPLED_NOIRQ;
	struct mcs_coupled_stock *stock;
	unsigned long flags;

	if (nr_pages > MCS_CHARGE_BATCH || !mcs_coupled_usable(noirq))
		goto uncharge;
	mcs_coupled_lock(noirq, &flags);
	if (!mcs_mode_fence_holds(mode)) {
		mcs_coupled_unlock(noirq, flags);
		goto uncharge;
	}
	stock = this_cpu_ptr(&mcs_coupled_stock);
	if (likely(stock->cached == memcg && stock->nr_pages + nr_pages <= mcs_batch_now())) {
		stock->nr_pages += nr_pages;
		__mcs_memcg_event(memcg, MCS_REFILL);
	} else {
		mcs_coupled_refill(stock, memcg, nr_pages);
	}
	mcs_coupled_unlock(noirq, flags);
	return true;
uncharge:
	mcs_page_counter_uncharge(&memcg->memory, nr_pages);
	return true;
}

/*
 * The byte take of a plain charge (no slab accounting) in mode @mode: the
 * path the entry points inline.  The accounted take is
 * mcs_coupled_bytes_take().
 */
static __always_inline enum mcs_stock_answer
mcs_coupled_bytes_take_fast(struct mcs_objcg *objcg, unsigned int nr_bytes,
			    enum mcs_stock_mode mode)
{
	bool noirq = mode == MCS_MODE_COUPLED_NOIRQ;
	enum mcs_stock_answer ret = MCS_TAKE_MISS;
	struct mcs_coupled_stock *stock;
	unsigned long flags;

	if (!mcs_coupled_usable(noirq))
		return MCS_TAKE_MISS;
	mcs_test_hook_at(MCS_HOOK_COUPLED_ENTER);
	mcs_coupled_lock(noirq, &flags);
	stock = this_cpu_ptr(&mcs_coupled_stock);
	if (mcs_mode_fence_holds(mode) && stock->cached_objcg == objcg &&
	    stock->nr_bytes >= nr_bytes) {
		stock->nr_bytes -= nr_bytes;
		ret = MCS_TAKE_HIT;
	}
	mcs_coupled_unlock(noirq, flags);
	return ret;
}

/*
 * The byte put of a plain uncharge in mode @mode, as 6.12's
 * refill_obj_stock() of a free: the cached objcg's bytes are added inline,
 * whole pages over one page are returned for the caller to give back
 * after the section; another objcg, an unusable stock or another mode is
 * mcs_coupled_bytes_uncharge()'s.  Returns the whole pages to give back
 * (0: done), or -1 with nothing done.
 */
static __always_inline int mcs_coupled_bytes_put_fast(struct mcs_objcg *objcg,
						      unsigned int nr_bytes,
						      enum mcs_stock_mode mode)
{
	bool noirq = mode == MCS_MODE_COUPLED_NOIRQ;
	struct mcs_coupled_stock *stock;
	unsigned int nr_pages = 0;
	unsigned long flags;

	if (!mcs_coupled_usable(noirq))
		return -1;
	mcs_coupled_lock(noirq, &flags);
	stock = this_cpu_ptr(&mcs_coupled_stock);
	if (unlikely(!mcs_mode_fence_holds(mode) || stock->cached_objcg != objcg)) {
		mcs_coupled_unlock(noirq, flags);
		return -1;
	}
	stock->nr_bytes += nr_bytes;
	if (stock->nr_bytes > PAGE_SIZE) {
		nr_pages = stock->nr_bytes >> PAGE_SHIFT;
		stock->nr_bytes &= PAGE_SIZE - 1;
	}
	mcs_coupled_unlock(noirq, flags);
	return nr_pages;
}

/*
 * The byte put; a plain uncharge (constant arguments once inlined) takes a
 * body specialised for it, as 6.12's refill of a free did.
 */
static __always_inline unsigned int
mcs_coupled_bytes_put(struct mcs_objcg *objcg, unsigned int nr_bytes, bool allow_uncharge,
		      bool account, int acct, int nid, enum mcs_slab_item item,
		      enum mcs_stock_mode mode)
{
	if (__builtin_constant_p(account) && !account &&
	    __builtin_constant_p(allow_uncharge) && allow_uncharge)
		return mcs_coupled_bytes_uncharge(objcg, nr_bytes, mode);
	return mcs_coupled_bytes_put_full(objcg, nr_bytes, allow_uncharge, account, acct,
					  nid, item, mode);
}

/* the lock-free drain of a dead CPU's stock (exported into MCS_NS for KUnit) */
void mcs_coupled_stock_drain_dead(unsigned int cpu);

#endif /* MEMCG_STOCK_DESIGN_COUPLED_H */
