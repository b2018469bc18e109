// SPDX-License-Identifier: GPL-2.0
/*
 * The orchestration of the mechanism: what needs every design at once.
 * Offlining a memcg, limit changes, the switch between stock modes, and
 * the set-up and tear-down of the whole (harness/module.c calls the last two).
 *
 * The layers, bottom up, one folder each (scripts/checks/layers.txt has
 * the table that make lint checks): objects/ (the page counters, the
 * memcg tree, objcgs, deferred releases; slab_caches.c at the top level),
 * stocks/ (the mode fence, the designs, the drains), entry/ (the page
 * entry points, the charge API; objcg_stock.c and this file at the top
 * level), then harness/ with the module's wiring.  A file uses only
 * layers below its own, and files of its own layer without a cycle.
 *
 * Context rules: everything here needs task context and may sleep.
 * Offlines are serialised from start to end (offline_mutex): a parent is
 * offlined only after its children are, and only once their charges have
 * moved up.  Lock order: offline_mutex, the tree's lock, the drains'.
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>

#include "entry/orchestration.h"
#include "objects/objcg.h"
#include "stocks/stock_designs.h"
#include "stocks/stock_drain.h"

static DEFINE_MUTEX(offline_mutex);	/* one offline at a time, start to end */
static DEFINE_MUTEX(mode_mutex);	/* one mode switch at a time */

int mcs_memcg_offline(struct mcs_memcg *memcg)
{
	int ret;

	if (!memcg)
		return -EINVAL;
	if (mcs_memcg_is_root(memcg)) {
		pr_warn_ratelimited("memcg_stock: the root memcg cannot be offlined\n");
		return -EINVAL;
	}

	mutex_lock(&offline_mutex);
	ret = mcs_memcg_unlink(memcg);
	if (ret) {
		mutex_unlock(&offline_mutex);
		return ret > 0 ? 0 : ret;
	}
	/* objcg charges that still saw this memcg are finished after this */
	synchronize_rcu();
	mcs_memcg_reparent_objcg_charges(memcg);
	mcs_drain_all_stock(memcg, true);
	mutex_unlock(&offline_mutex);
	return 0;
}
EXPORT_SYMBOL_GPL(mcs_memcg_offline);

int mcs_memcg_set_max(struct mcs_memcg *memcg, unsigned long nr_pages)
{
	int ret;

	if (!memcg)
		return -EINVAL;
	if (mcs_memcg_is_root(memcg) || nr_pages > MCS_PAGE_COUNTER_MAX) {
		pr_warn_ratelimited("memcg_stock: limit %lu refused for memcg %u\n",
				    nr_pages, memcg->id);
		return -EINVAL;
	}
	mutex_lock(&memcg->max_mutex);
	ret = mcs_page_counter_set_max(&memcg->memory, nr_pages);
	if (ret == -EBUSY) {
		mcs_drain_all_stock(memcg, true);
		ret = mcs_page_counter_set_max(&memcg->memory, nr_pages);
	}
	mutex_unlock(&memcg->max_mutex);
	return ret;
}
EXPORT_SYMBOL_GPL(mcs_memcg_set_max);

/* ---- the mode switch ------------------------------------------------------ */

/*
 * The second half of every change the stocks read on their paths (the
 * mode, the batch), after the new value is stored: a grace period waits
 * for each operation that read the old one (its stock section, or its RCU
 * section, is a reader), then every stock is drained.  Under mode_mutex.
 */
static void stocks_settle(void)
{
	synchronize_rcu();
	mcs_drain_all_stock(mcs_root_memcg(), true);
}

/*
 * Store the mode that the entry points and the fences read: an operation
 * that read the old mode finds the new one in its design's section and is
 * refused there.  Under mode_mutex.
 */
static void stock_mode_store(enum mcs_stock_mode mode)
{
	WRITE_ONCE(mcs_stock_mode_cur, mode);
}

/**
 * mcs_stock_set_bench_mode() - switch to any stock mode, coupled-noirq too
 * @mode: the mode
 *
 * For the benchmark and the KUnit module (MCS_NS), with nothing else
 * charging (see design_coupled.c).  Task context; sleeps.  The switch
 * rules are in stock_designs.h.
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
	mcs_drain_note_mode(mode);
	mcs_drain_all_stock(mcs_root_memcg(), true);
	/*
	 * Two modes of one design share its stocks under two exclusions that
	 * do not exclude each other: between them the mode is "none", which
	 * has no stock, for a grace period of its own.  (A preempt- or
	 * IRQ-disabled section is a reader for synchronize_rcu(), and so is
	 * a spinlock section on PREEMPT_RT.)
	 */
	if (mcs_stock_design[old] == mcs_stock_design[mode] && old != mode) {
		stock_mode_store(MCS_MODE_NONE);
		stocks_settle();
	}
	stock_mode_store(mode);
	stocks_settle();
	mutex_unlock(&mode_mutex);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(mcs_stock_set_bench_mode, MCS_NS);

/**
 * mcs_stock_set_bench_batch() - change the charge batch
 * @batch: 1..MCS_CHARGE_BATCH
 *
 * For the benchmark and the KUnit module (MCS_NS).  Under the mode switch's
 * lock: the new batch is stored, a grace period waits for every put that
 * read the old one (puts run in a stock section or an RCU section, as for
 * the mode fence), then every stock is drained, so that none holds more
 * than @batch per memcg from then on.  Task context; sleeps.
 *
 * Return: 0, or -EINVAL for a @batch out of range (nothing changed).
 */
int mcs_stock_set_bench_batch(unsigned int batch)
{
	if (!batch || batch > MCS_CHARGE_BATCH)
		return -EINVAL;
	mutex_lock(&mode_mutex);
	WRITE_ONCE(mcs_charge_batch_cur, batch);
	stocks_settle();
	mutex_unlock(&mode_mutex);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(mcs_stock_set_bench_batch, MCS_NS);

int mcs_stock_set_mode(enum mcs_stock_mode mode)
{
	/* a benchmark control (coupled-noirq) exists only for the benchmark */
	if ((unsigned int)mode < NR_MCS_MODES && (mcs_stock_modes[mode]->flags & MCS_MODE_CONTROL))
		return -EINVAL;
	return mcs_stock_set_bench_mode(mode);
}
EXPORT_SYMBOL_GPL(mcs_stock_set_mode);

/* ---- set-up and tear-down ------------------------------------------------ */

/**
 * mcs_stock_init() - set up the drains, the CPU hotplug callback and the
 *	root memcg
 *
 * Called once from module init, after mcs_slab_init().  Task context.
 *
 * Return: 0, or a negative errno with everything undone.
 */
int mcs_stock_init(void)
{
	int ret;

	ret = mcs_drain_init();
	if (ret)
		return ret;
	ret = mcs_memcg_tree_init(mcs_memcg_offline);
	if (ret) {
		mcs_drain_exit();
		return ret;
	}
	return 0;
}

/**
 * mcs_stock_exit() - undo mcs_stock_init()
 *
 * Called from module exit once no user of the module is left.  Drains
 * every stock, waits for every deferred release, and warns about leaked
 * memcgs and objcgs.  Task context; sleeps.
 */
void mcs_stock_exit(void)
{
	/* orphans' offlines use the drain workqueue: finish them first */
	mcs_wait_for_frees();
	mcs_drain_exit();
	mcs_memcg_tree_exit();
}
