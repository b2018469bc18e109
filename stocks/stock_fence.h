/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The mode fence (stocks/): the stock mode and the charge
 * batch as the charge paths read them, the mode fence, and its test hooks
 * (stock_fence.c).  Every design reads the mode through this header.
 */
#ifndef MEMCG_STOCK_FENCE_H
#define MEMCG_STOCK_FENCE_H

#include <linux/rcupdate.h>

#include "objects/counters.h"

/*
 * Every stock refill runs in the RCU read-side section that read the stock
 * mode, the fence of mcs_stock_set_mode(): an rcu_read_lock() section, or
 * the section of the stock's own lock when the mode was read under it
 * (preemption off on !PREEMPT_RT, an RCU section inside the spinlock on
 * PREEMPT_RT).  Kernels with lockdep check it.
 */
#define mcs_assert_mode_fence()						\
	RCU_LOCKDEP_WARN(!rcu_read_lock_any_held(),			\
			 "memcg_stock: stock refill outside the mode fence")

/* The stock mode, read inline on the charge paths (no call per charge). */
extern enum mcs_stock_mode mcs_stock_mode_cur;

static inline enum mcs_stock_mode mcs_stock_mode_now(void)
{
	return READ_ONCE(mcs_stock_mode_cur);
}

/*
 * The charge batch: what a miss charges beyond the request, and the most a
 * stock keeps per memcg (1..MCS_CHARGE_BATCH).  Set at load (charge_batch)
 * or by mcs_stock_set_bench_batch(), which drains every stock after a
 * grace period, as a mode switch does.
 */
extern unsigned int mcs_charge_batch_cur;

static __always_inline unsigned int mcs_batch_now(void)
{
	return READ_ONCE(mcs_charge_batch_cur);
}

/*
 * The mode fence, one for every design: a section of a design's stock, once
 * entered, reads the mode again.  Anything but the mode the operation read
 * (@mode) means that a switch may be draining that stock, or that another
 * design's exclusion guards it now: the section leaves the stock untouched
 * and the operation goes on as with a busy stock.  mcs_stock_set_bench_mode()
 * applies the switch rules that make this enough (stock_designs.h).
 */
static __always_inline bool mcs_mode_fence_holds(enum mcs_stock_mode mode)
{
	return likely(mcs_stock_mode_now() == mode);
}

/*
 * Test hooks at the race windows of the mode fence, for the KUnit module
 * (MCS_NS): a case sets mcs_test_hook, the charge paths call it there.
 * Kernels without KUnit compile them out.
 *   MCS_HOOK_COUPLED_ENTER  a coupled consume read the mode and is about to
 *                           enter its section (task context, may sleep)
 *   MCS_HOOK_OBJ_PAGES      a byte refill of a decoupled design is about to
 *                           leave its section with pages to give back
 *                           (atomic: the section is held)
 *   MCS_HOOK_DRAIN_REMOTE   an asynchronous drain is about to ask whether a
 *                           remote CPU is isolated and queue its work; the
 *                           two must be one RCU read-side section
 *   MCS_HOOK_OWNER_ENTER    an operation of "decoupled-owner" read the mode
 *                           and is about to enter the memcg stock's owner
 *                           section (any context)
 */
enum mcs_test_hook {
	MCS_HOOK_COUPLED_ENTER,
	MCS_HOOK_OBJ_PAGES,
	MCS_HOOK_DRAIN_REMOTE,
	MCS_HOOK_OWNER_ENTER,
};

#if IS_ENABLED(CONFIG_KUNIT)
extern void (*mcs_test_hook)(enum mcs_test_hook where);
void mcs_test_hook_set(void (*fn)(enum mcs_test_hook where));
void mcs_stock_test_mode_write(enum mcs_stock_mode mode);

static inline void mcs_test_hook_at(enum mcs_test_hook where)
{
	void (*fn)(enum mcs_test_hook where) = READ_ONCE(mcs_test_hook);

	if (unlikely(fn))
		fn(where);
}
#else
static inline void mcs_test_hook_at(enum mcs_test_hook where)
{
}
#endif

/* "decoupled" and "decoupled-owner" share the decoupled stocks (KUnit). */
static inline bool mcs_mode_is_decoupled(enum mcs_stock_mode mode)
{
	return mode == MCS_MODE_DECOUPLED || mode == MCS_MODE_DECOUPLED_OWNER;
}

#endif /* MEMCG_STOCK_FENCE_H */
