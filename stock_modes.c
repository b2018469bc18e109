// SPDX-License-Identifier: GPL-2.0
/*
 * The stock modes: the mode in use, the switch between modes, the names,
 * and the table of every kind of per-CPU stock that the drains walk.  The
 * per-charge dispatch is inline, in stock_modes.h.
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>

#include "stock_modes.h"
#include "stock_owner.h"

/* read inline on the charge paths: mcs_stock_mode_now() */
enum mcs_stock_mode mcs_stock_mode_cur = MCS_MODE_DECOUPLED;

/* stocks of bytes first: draining them hands pages to the stocks of pages */
const struct mcs_stock_kind *const mcs_stock_kinds[] = {
	&mcs_obj_stock_kind,
	&mcs_coupled_stock_kind,
	&mcs_memcg_stock_kind,
	NULL,
};

static DEFINE_MUTEX(mode_mutex);

#if IS_ENABLED(CONFIG_KUNIT)
void (*mcs_test_hook)(enum mcs_test_hook where);	/* mcs_test_hook_at() */

/**
 * mcs_test_hook_set() - install the test hook of the mode fence's windows
 * @fn: called at every mcs_test_hook_at() point, or NULL to remove it
 *
 * For the KUnit module (namespace MCS_NS), on kernels with KUnit: @fn runs
 * in the context of the charge path that reaches the point (see enum
 * mcs_test_hook).  Any context.
 */
void mcs_test_hook_set(void (*fn)(enum mcs_test_hook where))
{
	WRITE_ONCE(mcs_test_hook, fn);
}
EXPORT_SYMBOL_NS_GPL(mcs_test_hook_set, MCS_NS);

/**
 * mcs_stock_test_mode_write() - make the mode read @mode, with no switch
 * @mode: the mode
 *
 * For a KUnit case at a hook of the mode fence: the mode another CPU's
 * switch would have written there, without the drains and grace periods
 * of mcs_stock_set_bench_mode(), which the case calls afterwards to put
 * everything in order.  Any context.
 */
void mcs_stock_test_mode_write(enum mcs_stock_mode mode)
{
	WRITE_ONCE(mcs_stock_mode_cur, mode);
}
EXPORT_SYMBOL_NS_GPL(mcs_stock_test_mode_write, MCS_NS);
#endif

static const char * const mode_names[NR_MCS_MODES] = {
	[MCS_MODE_DECOUPLED] = "decoupled",
	[MCS_MODE_COUPLED] = "coupled",
	[MCS_MODE_NONE] = "none",
	[MCS_MODE_COUPLED_NOIRQ] = "coupled-noirq",
	[MCS_MODE_DECOUPLED_OWNER] = "decoupled-owner",
};

/* The contract of the three exported functions is in memcg_stock.h. */
const char *mcs_stock_mode_name(enum mcs_stock_mode mode)
{
	return (unsigned int)mode < NR_MCS_MODES ? mode_names[mode] : NULL;
}
EXPORT_SYMBOL_GPL(mcs_stock_mode_name);

enum mcs_stock_mode mcs_stock_get_mode(void)
{
	return mcs_stock_mode_now();
}
EXPORT_SYMBOL_GPL(mcs_stock_get_mode);

/**
 * mcs_stock_set_bench_mode() - switch to any stock mode, coupled-noirq too
 * @mode: the mode
 *
 * For the benchmark and the KUnit module (MCS_NS), with nothing else
 * charging (see coupled_stock.c).  Task context; sleeps.
 *
 * Return: 0, or -EINVAL for an unknown @mode.
 */
int mcs_stock_set_bench_mode(enum mcs_stock_mode mode)
{
	enum mcs_stock_mode old;

	if ((unsigned int)mode >= NR_MCS_MODES)
		return -EINVAL;
	mutex_lock(&mode_mutex);
	old = mcs_stock_mode_now();
	mcs_drain_all_stock(mcs_root_memcg(), true);
	/*
	 * "coupled" and "coupled-noirq" share one stock under two exclusions
	 * (IRQs off, preemption off) that do not exclude each other: during
	 * the grace period of a direct switch, a task still in a section of
	 * the one could be interrupted by a charge that reads the other and
	 * enters the same struct.  So do "decoupled" and "decoupled-owner"
	 * (local_trylock_t, the owner byte: see stock_owner.h).  Between the
	 * two the mode is "none", which has no stock, for a grace period of
	 * its own.  (A preempt- or IRQ-disabled section is a reader for
	 * synchronize_rcu(), and so is a spinlock section on PREEMPT_RT.)
	 */
	if (mcs_mode_stocks(old) == mcs_mode_stocks(mode) && old != mode) {
		WRITE_ONCE(mcs_stock_mode_cur, MCS_MODE_NONE);
		synchronize_rcu();
		mcs_drain_all_stock(mcs_root_memcg(), true);
	}
	WRITE_ONCE(mcs_stock_mode_cur, mode);
	synchronize_rcu();
	mcs_drain_all_stock(mcs_root_memcg(), true);
	mutex_unlock(&mode_mutex);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(mcs_stock_set_bench_mode, MCS_NS);

int mcs_stock_set_mode(enum mcs_stock_mode mode)
{
	if (mode == MCS_MODE_COUPLED_NOIRQ)
		return -EINVAL;
	return mcs_stock_set_bench_mode(mode);
}
EXPORT_SYMBOL_GPL(mcs_stock_set_mode);

/**
 * mcs_owner_test_trylock() - enter a section of mode "decoupled-owner"
 * @obj: this CPU's obj stock, else its memcg stock
 *
 * For the KUnit module (namespace MCS_NS): the section of stock_owner.h
 * that the charge paths inline, out of line.  Any context.
 *
 * Return: true with preemption disabled and the owner byte set, false
 * with nothing changed (see mcs_owner_trylock()).
 */
bool mcs_owner_test_trylock(bool obj)
{
	if (obj)
		return mcs_obj_stock_trylock(MCS_MODE_DECOUPLED_OWNER);
	return mcs_memcg_stock_trylock(MCS_MODE_DECOUPLED_OWNER);
}
EXPORT_SYMBOL_NS_GPL(mcs_owner_test_trylock, MCS_NS);

/**
 * mcs_owner_test_unlock() - leave a section entered by mcs_owner_test_trylock()
 * @obj: the same stock as the entry
 *
 * For the KUnit module (namespace MCS_NS), on the CPU of the entry.
 */
void mcs_owner_test_unlock(bool obj)
{
	if (obj)
		mcs_obj_stock_unlock(MCS_MODE_DECOUPLED_OWNER);
	else
		mcs_memcg_stock_unlock(MCS_MODE_DECOUPLED_OWNER);
}
EXPORT_SYMBOL_NS_GPL(mcs_owner_test_unlock, MCS_NS);
