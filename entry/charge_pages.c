// SPDX-License-Identifier: GPL-2.0
/*
 * The page entry points: mcs_charge_pages() and mcs_uncharge_pages().
 *
 * Each mode has its own pair of entry functions (MCS_PAGE_ENTRIES below),
 * with the mode a constant and its design's hit path inline; the exported
 * functions read the mode once and jump to that mode's from one switch,
 * the same for every mode, so that no design gets a path that another
 * lacks.  The
 * mode is handed down to the design that the binding table
 * (stock_designs.h) gives for it; nothing below reads it again to choose
 * a stock.  A charge that misses charges the page
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

#include "charge_pages.h"
#include "stocks/stock_designs.h"
#include "objects/trace.h"

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

/*
 * The entry points of each mode: one copy of the same two functions per
 * mode, with the mode a constant and the design's take and put (its
 * *_fast paths, stock_designs.h) inline, so that every design's hit is
 * reached the same way: the exported function's switch and tail jump, the
 * argument checks below, the design's own section.  Everything but a
 * hit is charge_pages_slow()'s or mcs_uncharge_pages_mode()'s, out of
 * line.  notrace: ftrace sees the exported function; a second traced
 * frame would only add its nop.
 *
 * nr_pages - 1: 0 wraps around, and goes to the slow path's error.  The
 * root and offline memcgs are the slow path's too, and need no test here:
 * the root never has a slot (its uncharges bypass the stock), and an
 * offline memcg gets no new slot and has lost its old ones to the drain of
 * its offline.  A charge that races with that offline may still be served
 * (as if it came a little earlier).
 */
#define MCS_PAGE_ENTRIES(m, n, t, d)					\
noinline notrace int mcs_charge_pages_##t(struct mcs_memcg *memcg, gfp_t gfp,	\
					 unsigned int nr_pages)		\
{									\
	enum mcs_stock_answer answer = MCS_TAKE_NOT_ASKED;		\
									\
	if (likely(memcg && nr_pages - 1 < MCS_CHARGE_BATCH)) {		\
		answer = mcs_##d##_pages_take_fast(memcg, nr_pages, m);	\
		if (likely(answer == MCS_TAKE_HIT))			\
			return 0;					\
	}								\
	return charge_pages_slow(memcg, gfp, nr_pages, answer, m);	\
}									\
									\
noinline notrace void mcs_uncharge_pages_##t(struct mcs_memcg *memcg,		\
					    unsigned int nr_pages)	\
{									\
	if (likely(nr_pages && !mcs_memcg_is_root(memcg)) &&		\
	    likely(mcs_##d##_pages_put_fast(memcg, nr_pages, m)))	\
		return;							\
	mcs_uncharge_pages_mode(memcg, nr_pages, m);			\
}

MCS_STOCK_DESIGNS(MCS_PAGE_ENTRIES)

/*
 * The contract is in memcg_stock.h: the mode is read once, and its entry
 * function is reached by a tail jump from one switch (mcs_mode_*(),
 * stock_designs.h).  (Static calls patched at the switch would cost one
 * jump, but qemu's multi-threaded TCG runs a stale int3 of code patched
 * under load: docs/testing.md.)
 */
int mcs_charge_pages(struct mcs_memcg *memcg, gfp_t gfp, unsigned int nr_pages)
{
	return mcs_mode_charge_pages(mcs_stock_mode_now(), memcg, gfp, nr_pages);
}
EXPORT_SYMBOL_GPL(mcs_charge_pages);

void mcs_uncharge_pages(struct mcs_memcg *memcg, unsigned int nr_pages)
{
	mcs_mode_uncharge_pages(mcs_stock_mode_now(), memcg, nr_pages);
}
EXPORT_SYMBOL_GPL(mcs_uncharge_pages);
