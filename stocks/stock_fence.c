// SPDX-License-Identifier: GPL-2.0
/*
 * The stock mode: its current value, its names, and the test hooks at the
 * windows of the mode fence; and the charge batch (module parameter
 * charge_batch), which every design that batches reads.  The fence itself
 * (mcs_mode_fence_holds()), the binding of a mode to its design and the
 * switch rules are in
 * stock_designs.h; the switch, which drains, in memcg_stock.c.
 *
 * Below the designs: every design's section reads the mode here.
 */
#include <linux/module.h>

#include "stock_fence.h"

/* read inline on the charge paths: mcs_stock_mode_now() */
enum mcs_stock_mode mcs_stock_mode_cur = MCS_MODE_DECOUPLED;

/* read on the charge paths: mcs_batch_now(); 1..MCS_CHARGE_BATCH */
unsigned int mcs_charge_batch_cur __read_mostly = MCS_CHARGE_BATCH;

static int charge_batch_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, MCS_CHARGE_BATCH);
}

static const struct kernel_param_ops charge_batch_ops = {
	.set = charge_batch_set,
	.get = param_get_uint,
};

module_param_cb(charge_batch, &charge_batch_ops, &mcs_charge_batch_cur, 0444);
MODULE_PARM_DESC(charge_batch,
		 "Pages a stock miss charges at once and the most a stock keeps per memcg, 1..64 (default 64)");

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

/* the names of the binding table (stock_designs.h) */
static const char * const mode_names[NR_MCS_MODES] = {
	MCS_STOCK_DESIGNS(MCS_MODE_NAME)
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

unsigned int mcs_charge_batch(void)
{
	return mcs_batch_now();
}
EXPORT_SYMBOL_GPL(mcs_charge_batch);

