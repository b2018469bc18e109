/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stock modes, dispatched in one place.  The charge paths of
 * memcg_stock.c and objcg_stock.c ask these helpers, and only these, which
 * stock to take from and which to fill; they know nothing of the other
 * modes' stocks.
 *
 *   decoupled       memcg_stock.c (pages) and objcg_stock.c (bytes): one
 *                   local_trylock_t each, never an IRQ toggle (the default)
 *   coupled         coupled_stock.c: one slot per CPU for each, under one
 *                   local_lock_irqsave (the 6.12 design)
 *   coupled-noirq   coupled_stock.c with preempt_disable (benchmark control)
 *   decoupled-owner the decoupled stocks under an owner byte in place of
 *                   their local_trylock_t (stock_owner.h)
 *   none            pages straight to the counters; bytes through the
 *                   objcg's shared atomic leftover ("objcg-atomic")
 *
 * The helpers are inline.  The hit paths of the decoupled stocks do not
 * go through them: mcs_charge_pages(), mcs_uncharge_pages(),
 * mcs_obj_charge() and mcs_obj_uncharge() serve a hit inline, without a
 * frame or a call, and use the section of the stock's own lock as the
 * mode fence of a refill (see memcg_stock_refill_fast()); everything else,
 * every other mode and every trylock failure, comes here.  The mode state
 * and the switch are in
 * stock_modes.c, the drains of every mode's stocks go through the
 * mcs_stock_kinds[] table there.
 */
#ifndef MEMCG_STOCK_MODES_H
#define MEMCG_STOCK_MODES_H

#include "mcs_internal.h"

/*
 * memcg_stock.c: the decoupled memcg stock; @mode: "decoupled" or
 * "decoupled-owner", the exclusion to take
 */
bool mcs_memcg_stock_consume(struct mcs_memcg *memcg, unsigned int nr_pages,
			     enum mcs_stock_mode mode);
void mcs_memcg_stock_refill(struct mcs_memcg *memcg, unsigned int nr_pages,
			    enum mcs_stock_mode mode);

/* objcg_stock.c: the decoupled obj stock and the objcg-atomic leftover */
bool mcs_obj_stock_consume(struct mcs_objcg *objcg, unsigned int size, bool account,
			   int nid, enum mcs_slab_item item, enum mcs_stock_mode mode);
void mcs_obj_stock_refill(struct mcs_objcg *objcg, unsigned int nr_bytes,
			  bool allow_uncharge, bool account, int acct, int nid,
			  enum mcs_slab_item item, enum mcs_stock_mode mode);
bool mcs_objcg_atomic_consume(struct mcs_objcg *objcg, unsigned int size,
			      bool account, int nid, enum mcs_slab_item item);
void mcs_objcg_atomic_refill(struct mcs_objcg *objcg, unsigned int nr_bytes,
			     bool account, int acct, int nid, enum mcs_slab_item item);

/* Does @mode keep pages in a per-CPU stock (is a charge batched)? */
static __always_inline bool mcs_mode_has_page_stock(enum mcs_stock_mode mode)
{
	return mode != MCS_MODE_NONE;
}

/* Take @nr_pages of @memcg from this CPU's stock of @mode; trylock only. */
static __always_inline bool mcs_mode_consume_pages(struct mcs_memcg *memcg,
						   unsigned int nr_pages,
						   enum mcs_stock_mode mode)
{
	switch (mode) {
	case MCS_MODE_DECOUPLED:
	case MCS_MODE_DECOUPLED_OWNER:
		return mcs_memcg_stock_consume(memcg, nr_pages, mode);
	case MCS_MODE_COUPLED:
	case MCS_MODE_COUPLED_NOIRQ:
		return mcs_coupled_consume(memcg, nr_pages, mode);
	default:
		return false;
	}
}

/*
 * Put @nr_pages charged to @memcg into the stock of the current mode, or
 * straight back.  The mode is read and its stock filled in one RCU
 * section: mcs_stock_set_mode() waits for it before its last drain.
 */
static __always_inline void mcs_mode_refill_pages(struct mcs_memcg *memcg,
						  unsigned int nr_pages)
{
	enum mcs_stock_mode mode;

	rcu_read_lock();
	mode = mcs_stock_mode_now();
	if (mcs_mode_is_decoupled(mode))
		mcs_memcg_stock_refill(memcg, nr_pages, mode);
	else if (!mcs_mode_is_coupled(mode) || !mcs_coupled_refill_fenced(memcg, nr_pages, mode))
		mcs_memcg_uncharge_direct(memcg, nr_pages);
	rcu_read_unlock();
}

/*
 * Serve @size bytes from what is already charged: this CPU's stock of the
 * current mode, or in mode "none" the objcg-atomic leftover.  The coupled
 * consumes check the mode fence in their section (mcs_mode_fence_holds()):
 * "coupled" and "coupled-noirq" guard one stock with exclusions that do
 * not exclude each other.
 */
static __always_inline bool mcs_mode_consume_bytes(struct mcs_objcg *objcg,
						   unsigned int size, bool account,
						   int nid, enum mcs_slab_item item)
{
	enum mcs_stock_mode mode = mcs_stock_mode_now();

	if (mcs_mode_is_coupled(mode))
		return mcs_coupled_obj_consume(objcg, size, account, nid, item, mode);
	if (mode == MCS_MODE_NONE)
		return mcs_objcg_atomic_consume(objcg, size, account, nid, item);
	return mcs_obj_stock_consume(objcg, size, account, nid, item, mode);
}

/*
 * Put @nr_bytes, already charged, where the current mode keeps bytes, and
 * account @acct bytes of slab when @account.  @allow_uncharge: whether
 * whole pages may go back to the counters.  Mode read and refill form one
 * RCU section, the fence of mcs_stock_set_mode().
 */
static __always_inline void mcs_mode_refill_bytes(struct mcs_objcg *objcg,
						  unsigned int nr_bytes,
						  bool allow_uncharge, bool account,
						  int acct, int nid,
						  enum mcs_slab_item item)
{
	enum mcs_stock_mode mode;
	unsigned int nr_pages;

	rcu_read_lock();
	mode = mcs_stock_mode_now();
	if (mcs_mode_is_coupled(mode)) {
		nr_pages = mcs_coupled_obj_refill(objcg, nr_bytes, allow_uncharge,
						  account, acct, nid, item, mode);
		if (nr_pages)
			mcs_objcg_uncharge_pages(objcg, nr_pages, mode);
	} else if (mode == MCS_MODE_NONE) {
		mcs_objcg_atomic_refill(objcg, nr_bytes, account, acct, nid, item);
	} else {
		mcs_obj_stock_refill(objcg, nr_bytes, allow_uncharge, account,
				     acct, nid, item, mode);
	}
	rcu_read_unlock();
}

#endif /* MEMCG_STOCK_MODES_H */
