/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Design "decoupled" (modes "decoupled", "decoupled-owner" and
 * "decoupled-7.3"): the 2025 stocks, a per-CPU memcg stock of pages and a
 * per-CPU obj stock of bytes, each behind its own exclusion, never an IRQ
 * toggle.  The exclusion is the stock's local_trylock_t in modes
 * "decoupled" and "decoupled-7.3", the owner section of stock_owner.h in
 * mode "decoupled-owner"; @mode, a constant once inlined, picks it.  Mode
 * "decoupled-7.3" has an obj stock of its own (design_decoupled73.[ch]) and
 * shares the memcg stock.  The rest of the design is in design_decoupled.c.
 *
 * This header holds the parts that the entry points inline (the default
 * design's hit, without a call or a frame): the page take and the page
 * put, the byte take and the byte put of an uncharge.  The interface of
 * stock_designs.h (mcs_decoupled_pages_take() ... mcs_decoupled_bytes_put())
 * is what every other path uses.
 */
#ifndef MEMCG_STOCK_DESIGN_DECOUPLED_H
#define MEMCG_STOCK_DESIGN_DECOUPLED_H

#include "design_common.h"
#include "stock_owner.h"

/* design_decoupled.c: the sections of "decoupled-owner", for the KUnit module */
bool mcs_owner_test_trylock(bool obj);
void mcs_owner_test_unlock(bool obj);
enum mcs_stock_answer mcs_decoupled_test_take(enum mcs_stock_mode mode, struct mcs_memcg *memcg,
					      struct mcs_objcg *objcg);

/* Bytes a slot may hold however it was filled. */
#define OBJ_STOCK_MAX	U16_MAX

/*
 * Bytes a slot may hold before an uncharge gives pages back, and what it
 * keeps then: its sub-page rest plus one page (where two pages fit
 * OBJ_STOCK_MAX, i.e. pages up to 16 KiB; else just the rest).
 */
#define OBJ_STOCK_HIGH	min_t(unsigned int, 2 * PAGE_SIZE, OBJ_STOCK_MAX)
#define OBJ_STOCK_KEEP	(2 * PAGE_SIZE <= OBJ_STOCK_MAX ? PAGE_SIZE : 0)

extern const struct mcs_design mcs_design_decoupled;
extern const struct mcs_mode_info mcs_mode_decoupled, mcs_mode_decoupled_owner;

/* design_decoupled.c: the interface (stock_designs.h) */
void mcs_decoupled_pages_put(struct mcs_memcg *memcg, unsigned int nr_pages,
			     enum mcs_stock_mode mode);
bool mcs_decoupled_bytes_take(struct mcs_objcg *objcg, unsigned int size, bool account,
			      int nid, enum mcs_slab_item item, enum mcs_stock_mode mode);
unsigned int mcs_decoupled_bytes_put(struct mcs_objcg *objcg, unsigned int nr_bytes,
				     bool allow_uncharge, bool account, int acct, int nid,
				     enum mcs_slab_item item, enum mcs_stock_mode mode);

/* design_decoupled.c: the out-of-line rest of the inline paths below */
void mcs_decoupled_refill_new(struct mcs_memcg_stock *stock, struct mcs_memcg *memcg,
			      unsigned int nr_pages);
void mcs_decoupled_refill_locked(struct mcs_memcg_stock *stock, struct mcs_memcg *memcg,
				 unsigned int nr_pages);
unsigned int mcs_decoupled_bytes_refill_unlock(struct mcs_objcg *objcg,
					       struct mcs_obj_stock *stock,
					       unsigned int nr_bytes, enum mcs_stock_mode mode);

/* ---- pages ------------------------------------------------------------- */

/*
 * Take @nr_pages (1 to MCS_CHARGE_BATCH) of @memcg from this CPU's stock,
 * under the exclusion of @mode ("decoupled", "decoupled-owner" or
 * "decoupled-7.3").
 * Trylock only: a busy stock is an answer, never a wait.  Inline and
 * without a call (so that the charge that inlines it needs no frame): it
 * counts the hit, the caller counts the rest.
 */
static __always_inline enum mcs_stock_answer
mcs_decoupled_pages_take(struct mcs_memcg *memcg, unsigned int nr_pages, enum mcs_stock_mode mode)
{
	struct mcs_memcg_stock *stock;
	unsigned long i;	/* no sign extension per slot */

	if (!mcs_memcg_stock_trylock(mode))
		return MCS_TAKE_BUSY;
	stock = this_cpu_ptr(&mcs_memcg_stock);
#pragma GCC unroll 8	/* see NR_MEMCG_STOCK */
	for (i = 0; i < NR_MEMCG_STOCK; i++) {
		u8 stock_pages;

		/* a plain read: only this CPU writes cached[], under our lock */
		if (stock->cached[i] != memcg)
			continue;
		/* A memcg has at most one slot: stop here either way. */
		stock_pages = READ_ONCE(stock->nr_pages[i]);
		if (stock_pages < nr_pages)
			goto miss;
		WRITE_ONCE(stock->nr_pages[i], stock_pages - nr_pages);
		__mcs_memcg_event(memcg, MCS_STOCK_HIT);
		mcs_memcg_stock_unlock(mode);
		return MCS_TAKE_HIT;
	}
	/* no slot: can the surplus of a batch have one? */
	if (stock->nr_cached == NR_MEMCG_STOCK) {
		mcs_memcg_stock_unlock(mode);
		return MCS_TAKE_FULL;
	}
miss:
	mcs_memcg_stock_unlock(mode);
	return MCS_TAKE_MISS;
}

/* The page take of the entry points (stock_designs.h): the take itself. */
static __always_inline enum mcs_stock_answer
mcs_decoupled_pages_take_fast(struct mcs_memcg *memcg, unsigned int nr_pages,
			      enum mcs_stock_mode mode)
{
	return mcs_decoupled_pages_take(memcg, nr_pages, mode);
}

/*
 * The refill of every uncharge and of a charge's surplus in mode
 * "decoupled", inline.  The section of the stock's lock is the mode
 * fence: with the lock held, preemption is off on !PREEMPT_RT and an RCU
 * read-side section is open on PREEMPT_RT (its spinlocks open one), so
 * a mode read inside it is waited for by mcs_stock_set_mode()'s grace
 * period like one inside rcu_read_lock().  A hit (the memcg has a slot
 * and stays within the batch) costs the trylock pair, the slot scan and
 * one event.  False, with nothing done, when the stock is busy or the mode
 * is another: the caller then takes mcs_decoupled_pages_put(), which counts a busy
 * stock.
 */
static __always_inline bool mcs_decoupled_pages_put_fast(struct mcs_memcg *memcg,
							 unsigned int nr_pages,
							 enum mcs_stock_mode mode)
{
	struct mcs_memcg_stock *stock;
	unsigned long i;	/* no sign extension per slot */

	if (nr_pages > MCS_CHARGE_BATCH || !mcs_memcg_stock_trylock(mode))
		return false;
	/* the section of "decoupled-owner" checked the mode already */
	if (mode != MCS_MODE_DECOUPLED_OWNER && !mcs_mode_fence_holds(mode)) {
		mcs_memcg_stock_unlock(mode);
		return false;
	}
	stock = this_cpu_ptr(&mcs_memcg_stock);
#pragma GCC unroll 8	/* see NR_MEMCG_STOCK */
	for (i = 0; i < NR_MEMCG_STOCK; i++) {
		unsigned int total;

		if (stock->cached[i] != memcg)	/* as in mcs_decoupled_pages_take() */
			continue;
		/* slot <= 64 plus refill <= 64 fits a u8 */
		total = READ_ONCE(stock->nr_pages[i]) + nr_pages;
		if (total > mcs_batch_now()) {
			mcs_decoupled_refill_locked(stock, memcg, nr_pages);
			goto unlock;
		}
		WRITE_ONCE(stock->nr_pages[i], total);
		__mcs_memcg_event(memcg, MCS_REFILL);
		mcs_memcg_stock_unlock(mode);
		return true;
	}
	/* no slot: no second scan */
	mcs_decoupled_refill_new(stock, memcg, nr_pages);
unlock:
	mcs_memcg_stock_unlock(mode);
	return true;
}

/* ---- bytes ------------------------------------------------------------- */

static __always_inline int mcs_obj_slot(struct mcs_obj_stock *stock, struct mcs_objcg *objcg)
{
	int i;

	/* plain reads: only this CPU writes cached[], under the lock held */
#pragma GCC unroll 8	/* see NR_MEMCG_STOCK */
	for (i = 0; i < NR_OBJ_STOCK; i++)
		if (stock->cached[i] == objcg)
			return i;
	return -1;
}

/*
 * The refill of a byte uncharge in mode "decoupled", inline, in the
 * section of the stock's lock, which is the mode fence (see
 * mcs_decoupled_pages_put_fast()).  A hit (the objcg has a slot that
 * stays within OBJ_STOCK_HIGH) costs the trylock pair and the slot scan;
 * the rest is mcs_decoupled_bytes_refill_unlock(), under the same lock.
 * Returns the whole pages that the caller gives back once the section is
 * left (through this design's page put), or -1, with nothing done, when
 * the stock is busy or the mode is another.
 */
static __always_inline int mcs_decoupled_bytes_put_fast(struct mcs_objcg *objcg,
							unsigned int nr_bytes,
							enum mcs_stock_mode mode)
{
	struct mcs_obj_stock *stock;
	int i;

	if (!mcs_obj_stock_trylock(mode))
		return -1;
	/* the section of "decoupled-owner" checked the mode already */
	if (mode == MCS_MODE_DECOUPLED && !mcs_mode_fence_holds(mode)) {
		mcs_obj_stock_unlock(mode);
		return -1;
	}
	stock = this_cpu_ptr(&mcs_obj_stock);
	i = mcs_obj_slot(stock, objcg);
	if (likely(i >= 0) && stock->nr_bytes[i] + nr_bytes <= OBJ_STOCK_HIGH) {
		stock->nr_bytes[i] += nr_bytes;
		mcs_obj_stock_unlock(mode);
		return 0;
	}
	return mcs_decoupled_bytes_refill_unlock(objcg, stock, nr_bytes, mode);
}

/*
 * Take @size bytes of @objcg from this CPU's obj stock: the inline path of
 * mcs_obj_charge(), without a call (so that it needs no frame).
 */
static __always_inline enum mcs_stock_answer
mcs_decoupled_bytes_take_fast(struct mcs_objcg *objcg, unsigned int size,
			      enum mcs_stock_mode mode)
{
	struct mcs_obj_stock *stock;
	int i;

	if (!mcs_obj_stock_trylock(mode))
		return MCS_TAKE_BUSY;
	stock = this_cpu_ptr(&mcs_obj_stock);
	i = mcs_obj_slot(stock, objcg);
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

/* ---- mode "decoupled-7.3": its pages are this design's (design_decoupled73.h) ---- */

/* the design of the mode, as the drains and the switch see it */
#define mcs_design_decoupled73	mcs_design_decoupled

static __always_inline enum mcs_stock_answer
mcs_decoupled73_pages_take(struct mcs_memcg *memcg, unsigned int nr_pages,
			   enum mcs_stock_mode mode)
{
	return mcs_decoupled_pages_take(memcg, nr_pages, mode);
}

static __always_inline enum mcs_stock_answer
mcs_decoupled73_pages_take_fast(struct mcs_memcg *memcg, unsigned int nr_pages,
				enum mcs_stock_mode mode)
{
	return mcs_decoupled_pages_take(memcg, nr_pages, mode);
}

static __always_inline void mcs_decoupled73_pages_put(struct mcs_memcg *memcg,
						      unsigned int nr_pages,
						      enum mcs_stock_mode mode)
{
	mcs_decoupled_pages_put(memcg, nr_pages, mode);
}

static __always_inline bool mcs_decoupled73_pages_put_fast(struct mcs_memcg *memcg,
							   unsigned int nr_pages,
							   enum mcs_stock_mode mode)
{
	return mcs_decoupled_pages_put_fast(memcg, nr_pages, mode);
}

#endif /* MEMCG_STOCK_DESIGN_DECOUPLED_H */
