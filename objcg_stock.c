// SPDX-License-Identifier: GPL-2.0
/*
 * The obj stock's entry points, the byte charges: mcs_obj_charge(),
 * mcs_obj_uncharge() and their accounted forms.  The per-CPU obj stocks
 * themselves are the designs' (stocks/), the objcg and its leftover are
 * objects/objcg.c's.
 *
 * As the page entry points (entry/charge_pages.c): each mode has its own
 * entry functions, with its design's byte hit inline, reached from one
 * switch; the mode is handed down to its design (stocks/stock_designs.h).  A byte charge that no
 * stock serves takes from the objcg's leftover, else charges whole pages
 * through the same mode's page entry (mcs_mode_charge_pages(): the same
 * design's page stock, no second read of the mode) and puts the rest of
 * the last page into the design's byte stock.  Pages that a byte put
 * gives back are uncharged after the design's section, through the same
 * design (mcs_objcg_uncharge_pages()).
 *
 * Context: any, NMI included.  Byte sizes are bounded by MCS_OBJ_SIZE_MAX,
 * so every sum fits an int.
 */
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>

#include "entry/charge.h"
#include "entry/charge_pages.h"
#include "stocks/stock_designs.h"
#include "objects/trace.h"

/*
 * Charge whole pages to the objcg's memcg through @mode's page entry.  It
 * never sleeps (its drain is the asynchronous one), so it can run inside
 * the RCU section that makes the charge and the objcg_pages update one
 * unit with respect to reparenting.  -ENOENT means the memcg went offline after we
 * read the pointer; by then the objcg points at the parent: read again.
 */
static int objcg_charge_pages(struct mcs_objcg *objcg, gfp_t gfp, unsigned int nr_pages,
			      enum mcs_stock_mode mode)
{
	struct mcs_memcg *memcg;
	int ret;

	do {
		rcu_read_lock();
		memcg = READ_ONCE(objcg->memcg);
		ret = mcs_mode_charge_pages(mode, memcg, gfp, nr_pages);
		if (!ret)
			atomic_long_add(nr_pages, &memcg->objcg_pages);
		rcu_read_unlock();
		/* pairs with the release of the objcg lock in reparenting */
		smp_rmb();
	} while (ret == -ENOENT);
	return ret;
}

/*
 * Return pages that a byte put of the design of @mode gave back, after
 * that design's section: mcs_uncharge_pages_mode().
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

/* A put of @mode's design, and the pages it gives back. */
static __always_inline void put_bytes(struct mcs_objcg *objcg, unsigned int nr_bytes,
				      bool allow_uncharge, bool account, int acct, int nid,
				      enum mcs_slab_item item, enum mcs_stock_mode mode)
{
	unsigned int nr_pages;

	nr_pages = mcs_design_bytes_put(mode, objcg, nr_bytes, allow_uncharge, account, acct,
					nid, item);
	if (nr_pages)
		mcs_objcg_uncharge_pages(objcg, nr_pages, mode);
}

/* Arguments of a byte charge or uncharge the model accepts. */
static bool obj_args_ok(struct mcs_objcg *objcg, size_t size, bool account,
			int nid, enum mcs_slab_item item)
{
	if (!objcg || !size || size > MCS_OBJ_SIZE_MAX)
		return false;
	return !account || mcs_slab_stat_args_ok(nid, item);
}

/* @answer: what @mode's byte stock answered mcs_obj_charge()'s inline path */
static noinline int obj_charge(struct mcs_objcg *objcg, gfp_t gfp, size_t size,
			       int nid, enum mcs_slab_item item, bool account,
			       enum mcs_stock_answer answer, enum mcs_stock_mode mode)
{
	int ret;

	if (answer == MCS_TAKE_BUSY)
		mcs_objcg_trylock_fail(objcg);
	if (!obj_args_ok(objcg, size, account, nid, item))
		return -EINVAL;
	if (objcg->is_root)
		return 0;

	if (answer == MCS_TAKE_NOT_ASKED &&
	    mcs_design_bytes_take(mode, objcg, size, account, nid, item))
		return 0;
	/*
	 * The stock had too few bytes (or no slot in a full stock): bytes of
	 * refills that were turned away or found the stock busy wait on the
	 * leftover, accounted charges' too.
	 */
	if (mcs_objcg_take_leftover(objcg, size)) {
		if (account)
			mcs_objcg_mod_stat(objcg, nid, item, size);
		return 0;
	}
	ret = objcg_charge_pages(objcg, gfp, PAGE_ALIGN(size) >> PAGE_SHIFT, mode);
	if (ret)
		return ret;
	/* the rest of the last page stays with the objcg, for the next charge */
	put_bytes(objcg, PAGE_ALIGN(size) - size, false, account, size, nid, item, mode);
	return 0;
}

static noinline int obj_uncharge(struct mcs_objcg *objcg, size_t size, int nid,
				 enum mcs_slab_item item, bool account,
				 enum mcs_stock_mode mode)
{
	if (!obj_args_ok(objcg, size, account, nid, item)) {
		mcs_log("byte uncharge of %zu (node %d, item %d) refused\n", size, nid, item);
		return -EINVAL;
	}
	if (objcg->is_root)
		return 0;
	put_bytes(objcg, size, true, account, -(int)size, nid, item, mode);
	return 0;
}

/* Arguments of a byte uncharge that the inline path takes. */
static __always_inline bool obj_fast_ok(struct mcs_objcg *objcg, size_t size)
{
	return likely(objcg && size && size <= MCS_OBJ_SIZE_MAX && !objcg->is_root);
}

/* The pages a decoupled put gave back (@ret > 0), out of line. */
static noinline void obj_uncharge_pages(struct mcs_objcg *objcg, int ret,
					enum mcs_stock_mode mode)
{
	mcs_objcg_uncharge_pages(objcg, ret, mode);
}

/*
 * A byte uncharge, arguments checked, that the inline put did not take: a
 * mode without the decoupled stocks, or a busy one.
 */
static __always_inline void obj_uncharge_other(struct mcs_objcg *objcg, unsigned int size,
					       enum mcs_stock_mode mode)
{
	put_bytes(objcg, size, true, false, 0, NUMA_NO_NODE, 0, mode);
}

/*
 * The byte entry points of each mode, as the page ones (charge_pages.c):
 * one copy per mode, the mode a constant, the design's byte take and the
 * put of a plain uncharge (its *_fast paths) inline, reached from the
 * exported functions' switch (notrace, as those).  The rest of the last
 * page charged stays in the stock (or on the objcg's leftover) for the next
 * charge; the root objcg never has a slot, and obj_charge() returns for
 * it.
 */
#define MCS_BYTE_ENTRIES(m, n, t, d)					\
noinline notrace int mcs_obj_charge_##t(struct mcs_objcg *objcg, gfp_t gfp,	\
				       size_t size)			\
{									\
	enum mcs_stock_answer answer = MCS_TAKE_NOT_ASKED;		\
									\
	if (likely(objcg && size && size <= MCS_OBJ_SIZE_MAX)) {	\
		answer = mcs_##d##_bytes_take_fast(objcg, size, m);	\
		if (likely(answer == MCS_TAKE_HIT))			\
			return 0;					\
	}								\
	return obj_charge(objcg, gfp, size, NUMA_NO_NODE, 0, false, answer, m); \
}									\
									\
noinline notrace int mcs_obj_uncharge_##t(struct mcs_objcg *objcg, size_t size) \
{									\
	int ret;							\
									\
	if (!obj_fast_ok(objcg, size))					\
		return obj_uncharge(objcg, size, NUMA_NO_NODE, 0, false, m); \
	ret = mcs_##d##_bytes_put_fast(objcg, size, m);			\
	if (likely(!ret))						\
		return 0;						\
	if (ret > 0)							\
		obj_uncharge_pages(objcg, ret, m);			\
	else								\
		obj_uncharge_other(objcg, size, m);			\
	return 0;							\
}

MCS_STOCK_DESIGNS(MCS_BYTE_ENTRIES)

/* As mcs_charge_pages(): the mode read once, its entry by a tail jump. */
int mcs_obj_charge(struct mcs_objcg *objcg, gfp_t gfp, size_t size)
{
	return mcs_mode_obj_charge(mcs_stock_mode_now(), objcg, gfp, size);
}
EXPORT_SYMBOL_GPL(mcs_obj_charge);

int mcs_obj_uncharge(struct mcs_objcg *objcg, size_t size)
{
	return mcs_mode_obj_uncharge(mcs_stock_mode_now(), objcg, size);
}
EXPORT_SYMBOL_GPL(mcs_obj_uncharge);

int mcs_obj_charge_account(struct mcs_objcg *objcg, gfp_t gfp, size_t size,
			   int nid, enum mcs_slab_item item)
{
	return obj_charge(objcg, gfp, size, nid, item, true, MCS_TAKE_NOT_ASKED,
			  mcs_stock_mode_now());
}
EXPORT_SYMBOL_GPL(mcs_obj_charge_account);

int mcs_obj_uncharge_account(struct mcs_objcg *objcg, size_t size, int nid,
			     enum mcs_slab_item item)
{
	return obj_uncharge(objcg, size, nid, item, true, mcs_stock_mode_now());
}
EXPORT_SYMBOL_GPL(mcs_obj_uncharge_account);
