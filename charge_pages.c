// SPDX-License-Identifier: GPL-2.0
/*
 * The page entry points: mcs_charge_pages() and mcs_uncharge_pages().
 *
 * Each reads the stock mode once and hands it down to the design that
 * the binding table (stock_designs.h) gives for it; nothing below reads
 * it again to choose a stock.  A hit of the default design ("decoupled")
 * is served inline, without a frame or a call; every other mode goes
 * through the design's interface.  A charge that misses charges the page
 * counters a whole batch (mcs_charge_batch()) and puts the surplus into
 * the same design's stock; an uncharge puts its pages there.  What a stock
 * refuses (busy, refused by the fence, no room) goes to the counters: no
 * charge is lost or doubled.
 *
 * Context: any, NMI included, both ways.  Only a refused charge that may
 * block (and runs in task context) starts an asynchronous drain.
 */
#include <linux/module.h>
#include <linux/gfp.h>
#include <linux/rcupdate.h>

#include "stock_designs.h"
#include "trace.h"

/* False for requests that must not spin on anything (no reclaim bits). */
static bool gfp_allows_spinning(gfp_t gfp)
{
	return !!(gfp & __GFP_RECLAIM);
}

/*
 * Put @nr_pages of @memcg into the stock of @mode's design, or straight
 * back to the counters.  The put checks the mode fence in its section.
 */
static __always_inline void put_pages(struct mcs_memcg *memcg, unsigned int nr_pages,
				      enum mcs_stock_mode mode)
{
	mcs_design_pages_put(mode, memcg, nr_pages);
}

/*
 * @fail refused @nr_pages of @memcg: count and trace the refusal; when the
 * caller may block (and runs in task context), drain the refusing memcg's
 * subtree once (asynchronously) and try again; else fail, or force the
 * charge for __GFP_NOFAIL.
 */
static noinline int charge_pages_refused(struct mcs_memcg *memcg, gfp_t gfp,
					 unsigned int nr_pages, struct mcs_page_counter *fail)
{
	bool drained = false;
	struct mcs_memcg *over;

	for (;;) {
		over = container_of(fail, struct mcs_memcg, memory);
		mcs_memcg_event(over, MCS_LIMIT_REFUSAL);
		trace_mcs_limit_refusal(memcg->id, over->id, nr_pages);
		/* a drain runs work functions: task context only, whatever @gfp says */
		if (drained || !gfpflags_allow_blocking(gfp) || !in_task())
			break;
		drained = true;
		mcs_drain_all_stock(over, false);
		if (mcs_page_counter_try_charge(&memcg->memory, nr_pages, &fail)) {
			trace_mcs_charge_slowpath(memcg->id, nr_pages, nr_pages);
			return 0;
		}
	}
	if (gfp & __GFP_NOFAIL) {
		mcs_page_counter_charge(&memcg->memory, nr_pages);
		mcs_memcg_event(memcg, MCS_FORCE_CHARGE);
		return 0;
	}
	return -ENOMEM;
}

/*
 * Everything of a page charge but the stock hit: errors, the root, the
 * miss.  @answer: what @mode's stock answered, or MCS_TAKE_NOT_ASKED.
 * A batch (mcs_batch_now(), or @nr_pages if larger) goes to the counters and
 * the surplus into the stock; a refused batch is retried with exactly
 * @nr_pages; a refused exact charge is charge_pages_refused()'s.  A memcg
 * without a slot in a full stock (MCS_TAKE_FULL) is charged exactly: the
 * surplus of a batch would most likely be turned away
 * (mcs_decoupled_refill_new()) or cost an eviction.  Its slot, once it gets
 * one, starts with what its uncharges bring and gets a batch at its first
 * shortfall.
 */
static noinline int charge_pages_slow(struct mcs_memcg *memcg, gfp_t gfp,
				      unsigned int nr_pages, enum mcs_stock_answer answer,
				      enum mcs_stock_mode mode)
{
	unsigned int batch = max(mcs_batch_now(), nr_pages);
	struct mcs_page_counter *fail;

	if (answer == MCS_TAKE_BUSY)
		mcs_memcg_trylock_fail(memcg, MCS_STOCK_MEMCG);
	if (!memcg || !nr_pages)
		return -EINVAL;
	/*
	 * The root has no limit and no stock; its counter is charged only
	 * by objcgs reparented to it, directly, so that it stays the exact
	 * sum of everything.
	 */
	if (mcs_memcg_is_root(memcg)) {
		mcs_page_counter_charge(&memcg->memory, nr_pages);
		return 0;
	}
	if (!READ_ONCE(memcg->online))
		return -ENOENT;
	if (answer == MCS_TAKE_NOT_ASKED && nr_pages <= MCS_CHARGE_BATCH) {
		answer = mcs_design_pages_take(mode, memcg, nr_pages);
		if (answer == MCS_TAKE_HIT)
			return 0;	/* the stock counted the hit */
		if (answer == MCS_TAKE_BUSY)
			mcs_memcg_trylock_fail(memcg, MCS_STOCK_MEMCG);
	}
	mcs_memcg_event(memcg, MCS_STOCK_MISS);

	if (!gfp_allows_spinning(gfp) || !mcs_stock_design[mode]->batches ||
	    answer == MCS_TAKE_FULL)
		batch = nr_pages;
retry:
	if (mcs_page_counter_try_charge(&memcg->memory, batch, &fail))
		goto done_restock;
	/* Never fail or reclaim for the sake of the optional surplus. */
	if (batch > nr_pages) {
		batch = nr_pages;
		goto retry;
	}
	return charge_pages_refused(memcg, gfp, nr_pages, fail);

done_restock:
	trace_mcs_charge_slowpath(memcg->id, nr_pages, batch);
	if (batch > nr_pages)
		put_pages(memcg, batch - nr_pages, mode);
	return 0;
}

/* A charge in a mode without the decoupled stocks: its design's stock first. */
static noinline int charge_pages_other(struct mcs_memcg *memcg, gfp_t gfp,
				       unsigned int nr_pages, enum mcs_stock_mode mode)
{
	enum mcs_stock_answer answer = mcs_design_pages_take(mode, memcg, nr_pages);

	if (answer == MCS_TAKE_HIT)
		return 0;	/* the stock counted the hit */
	return charge_pages_slow(memcg, gfp, nr_pages, answer, mode);
}

/*
 * Mode "none", the benchmark's control: the counters directly, with no
 * dispatch that the measured designs skip.  Out of line, reached by a
 * tail jump: inline, it would cost every other mode's entry point a
 * larger frame.  The root and offline memcgs are charge_pages_slow()'s.
 */
static noinline int charge_pages_none(struct mcs_memcg *memcg, gfp_t gfp,
				      unsigned int nr_pages)
{
	struct mcs_page_counter *fail;

	if (unlikely(mcs_memcg_is_root(memcg) || !READ_ONCE(memcg->online)))
		return charge_pages_slow(memcg, gfp, nr_pages, MCS_TAKE_MISS, MCS_MODE_NONE);
	mcs_memcg_event(memcg, MCS_STOCK_MISS);
	if (likely(mcs_page_counter_try_charge(&memcg->memory, nr_pages, &fail)))
		return 0;
	return charge_pages_refused(memcg, gfp, nr_pages, fail);
}

/*
 * A hit of the decoupled stocks ("decoupled" and "decoupled-owner") is
 * served inline, without a frame or a call (the stock counts it); mode
 * "none" jumps to its charge of the counters; everything else is
 * charge_pages_slow().
 */
int mcs_charge_pages(struct mcs_memcg *memcg, gfp_t gfp, unsigned int nr_pages)
{
	enum mcs_stock_mode mode = mcs_stock_mode_now();
	enum mcs_stock_answer answer = MCS_TAKE_NOT_ASKED;

	/*
	 * nr_pages - 1: 0 wraps around, and goes to the slow path's error.
	 * The root and offline memcgs are the slow path's too, and need no
	 * test here: the root never has a slot (its uncharges bypass the
	 * stock), and an offline memcg gets no new slot and has lost its
	 * old ones to the drain of its offline.  A charge that races with
	 * that offline may still be served (as if it came a little earlier).
	 */
	if (likely(memcg && nr_pages - 1 < MCS_CHARGE_BATCH)) {
		if (likely(mode == MCS_MODE_DECOUPLED))
			answer = mcs_decoupled_pages_take(memcg, nr_pages, MCS_MODE_DECOUPLED);
		else if (mode == MCS_MODE_DECOUPLED_OWNER)
			answer = mcs_decoupled_pages_take(memcg, nr_pages,
							  MCS_MODE_DECOUPLED_OWNER);
		else if (mode == MCS_MODE_NONE)
			return charge_pages_none(memcg, gfp, nr_pages);
		else
			return charge_pages_other(memcg, gfp, nr_pages, mode);
		if (likely(answer == MCS_TAKE_HIT))
			return 0;
	}
	return charge_pages_slow(memcg, gfp, nr_pages, answer, mode);
}
EXPORT_SYMBOL_GPL(mcs_charge_pages);

/*
 * Return @nr_pages of @memcg through the stock of the design of @mode, the
 * mode that the caller's operation read (also the pages that a section of
 * that design gave back, once the section is left): that design's fence
 * refuses when the mode has changed since, and then, as with a busy stock,
 * the pages go straight to the counters.  Never another design's stock,
 * never a second read of the mode.
 */
noinline void mcs_uncharge_pages_mode(struct mcs_memcg *memcg, unsigned int nr_pages,
				      enum mcs_stock_mode mode)
{
	if (!nr_pages)
		return;
	if (mcs_memcg_is_root(memcg))
		mcs_page_counter_uncharge(&memcg->memory, nr_pages);
	else
		put_pages(memcg, nr_pages, mode);
}

/* An uncharge of a memcg but the root in a mode without the decoupled stocks. */
static noinline void uncharge_pages_other(struct mcs_memcg *memcg, unsigned int nr_pages,
					  enum mcs_stock_mode mode)
{
	put_pages(memcg, nr_pages, mode);
}

/* The put of the decoupled stocks is inline, as their take, and so is "none"'s. */
void mcs_uncharge_pages(struct mcs_memcg *memcg, unsigned int nr_pages)
{
	enum mcs_stock_mode mode = mcs_stock_mode_now();

	if (likely(nr_pages && !mcs_memcg_is_root(memcg))) {
		if (likely(mode == MCS_MODE_DECOUPLED)) {
			if (likely(mcs_decoupled_pages_put_fast(memcg, nr_pages,
								MCS_MODE_DECOUPLED)))
				return;
		} else if (mode == MCS_MODE_DECOUPLED_OWNER) {
			if (likely(mcs_decoupled_pages_put_fast(memcg, nr_pages,
								MCS_MODE_DECOUPLED_OWNER)))
				return;
		} else if (mode == MCS_MODE_NONE) {
			mcs_none_pages_put(memcg, nr_pages, MCS_MODE_NONE);
			return;
		} else {
			return uncharge_pages_other(memcg, nr_pages, mode);
		}
	}
	mcs_uncharge_pages_mode(memcg, nr_pages, mode);
}
EXPORT_SYMBOL_GPL(mcs_uncharge_pages);
