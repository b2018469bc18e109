// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites for the per-CPU memcg stock (DESIGN rules 1, 2, 3, 5, 6, 7,
 * 8) and the dedicated kmem_caches.  White-box: they look into the stock
 * through the layers' headers (stock_designs.h includes them all).
 *
 * Cases that reason about "this CPU's stock" run with migration disabled
 * and charge with GFP_NOWAIT, so nothing in them sleeps.
 */
#include <kunit/test.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/kfence.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/nodemask.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "mcs_kunit.h"

/* ---- helpers ---------------------------------------------------------- */

#define test_memcg mcs_test_memcg

/* Pages @memcg holds in @stock, or -1 if it has no slot. */
static int slot_pages(struct mcs_memcg_stock *stock, struct mcs_memcg *memcg)
{
	int i;

	for (i = 0; i < NR_MEMCG_STOCK; i++)
		if (READ_ONCE(stock->cached[i]) == memcg)
			return READ_ONCE(stock->nr_pages[i]);
	return -1;
}

static int nr_slots_of(struct mcs_memcg_stock *stock, struct mcs_memcg *memcg)
{
	int i, n = 0;

	for (i = 0; i < NR_MEMCG_STOCK; i++)
		n += READ_ONCE(stock->cached[i]) == memcg;
	return n;
}

static unsigned long event(struct mcs_memcg *memcg, enum mcs_memcg_event ev)
{
	struct mcs_memcg_stat stat;

	mcs_memcg_stat(memcg, &stat);
	return stat.events[ev];
}

/* ---- rule 2: hits, misses, batching, bounds ----------------------------- */

static void stock_miss_then_hit(struct kunit *test)
{
	struct mcs_memcg *memcg = test_memcg(test, NULL);
	struct mcs_memcg_stock *stock;

	migrate_disable();
	stock = this_cpu_ptr(&mcs_memcg_stock);
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(memcg, GFP_NOWAIT, 1), 0);
	KUNIT_EXPECT_EQ(test, event(memcg, MCS_STOCK_MISS), 1UL);
	KUNIT_EXPECT_EQ(test, event(memcg, MCS_STOCK_HIT), 0UL);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), (unsigned long)MCS_CHARGE_BATCH);
	KUNIT_EXPECT_EQ(test, slot_pages(stock, memcg), MCS_CHARGE_BATCH - 1);

	KUNIT_EXPECT_EQ(test, mcs_charge_pages(memcg, GFP_NOWAIT, 5), 0);
	KUNIT_EXPECT_EQ(test, event(memcg, MCS_STOCK_HIT), 1UL);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), (unsigned long)MCS_CHARGE_BATCH);
	KUNIT_EXPECT_EQ(test, slot_pages(stock, memcg), MCS_CHARGE_BATCH - 6);

	/* a request bigger than the slot holds is a miss, not a partial hit */
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(memcg, GFP_NOWAIT, MCS_CHARGE_BATCH - 5), 0);
	KUNIT_EXPECT_EQ(test, event(memcg, MCS_STOCK_MISS), 2UL);
	mcs_uncharge_pages(memcg, 6 + MCS_CHARGE_BATCH - 5);
	KUNIT_EXPECT_LE(test, slot_pages(stock, memcg), (int)MCS_CHARGE_BATCH);
	migrate_enable();
}

static const unsigned int batch_sizes[] = { 1, 2, 7, 32, 63, 64 };

static void batch_size_desc(const unsigned int *n, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "nr_pages=%u", *n);
}

KUNIT_ARRAY_PARAM(batch_size, batch_sizes, batch_size_desc);

/* rule 2 / invariant 8: the surplus of a batch lands in exactly one slot */
static void stock_batch_surplus_one_slot(struct kunit *test)
{
	unsigned int n = *(const unsigned int *)test->param_value;
	struct mcs_memcg *memcg = test_memcg(test, NULL);
	struct mcs_memcg_stock *stock;
	int cpu, others = 0;

	migrate_disable();
	stock = this_cpu_ptr(&mcs_memcg_stock);
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(memcg, GFP_NOWAIT, n), 0);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), (unsigned long)MCS_CHARGE_BATCH);
	if (n < MCS_CHARGE_BATCH) {
		KUNIT_EXPECT_EQ(test, nr_slots_of(stock, memcg), 1);
		KUNIT_EXPECT_EQ(test, slot_pages(stock, memcg), (int)(MCS_CHARGE_BATCH - n));
	} else {
		KUNIT_EXPECT_EQ(test, nr_slots_of(stock, memcg), 0);
	}
	for_each_possible_cpu(cpu)
		if (cpu != smp_processor_id())
			others += nr_slots_of(per_cpu_ptr(&mcs_memcg_stock, cpu), memcg);
	KUNIT_EXPECT_EQ(test, others, 0);
	mcs_uncharge_pages(memcg, n);
	migrate_enable();
}

/* a caller that must not spin gets the exact charge and no stock refill */
static void stock_nospin_exact_charge(struct kunit *test)
{
	struct mcs_memcg *memcg = test_memcg(test, NULL);

	migrate_disable();
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(memcg, 0, 3), 0);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 3UL);
	KUNIT_EXPECT_EQ(test, nr_slots_of(this_cpu_ptr(&mcs_memcg_stock), memcg), 0);
	mcs_uncharge_pages(memcg, 3);
	migrate_enable();
}

static void stock_over_batch_bypass(struct kunit *test)
{
	struct mcs_memcg *memcg = test_memcg(test, NULL);
	struct mcs_memcg_stock *stock;

	migrate_disable();
	stock = this_cpu_ptr(&mcs_memcg_stock);
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(memcg, GFP_NOWAIT, MCS_CHARGE_BATCH + 1), 0);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), MCS_CHARGE_BATCH + 1UL);
	KUNIT_EXPECT_EQ(test, nr_slots_of(stock, memcg), 0);
	mcs_uncharge_pages(memcg, MCS_CHARGE_BATCH + 1);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 0UL);
	KUNIT_EXPECT_EQ(test, nr_slots_of(stock, memcg), 0);
	migrate_enable();
}

/* a refill that takes a slot over the batch drains the whole slot */
static void stock_overflow_drains_slot(struct kunit *test)
{
	struct mcs_memcg *memcg = test_memcg(test, NULL);
	struct mcs_memcg_stock *stock;

	migrate_disable();
	stock = this_cpu_ptr(&mcs_memcg_stock);
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(memcg, GFP_NOWAIT, 1), 0);	/* slot 63 */
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(memcg, GFP_NOWAIT, 64), 0);	/* miss */
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 128UL);
	mcs_uncharge_pages(memcg, 64);		/* 63 + 64 > 64 */
	KUNIT_EXPECT_EQ(test, nr_slots_of(stock, memcg), 0);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 1UL);
	KUNIT_EXPECT_EQ(test, refcount_read(&memcg->refcnt), 1U);
	mcs_uncharge_pages(memcg, 1);
	migrate_enable();
}

/* Fill every slot of this CPU's stock with memcg[0..NR_MEMCG_STOCK), one page charged each. */
static void fill_memcg_stock(struct kunit *test, struct mcs_memcg_stock *stock,
			     struct mcs_memcg **memcg)
{
	int i;

	for (i = 0; i < NR_MEMCG_STOCK; i++)
		KUNIT_EXPECT_EQ(test, mcs_charge_pages(memcg[i], GFP_NOWAIT, 1), 0);
	for (i = 0; i < NR_MEMCG_STOCK; i++)
		KUNIT_EXPECT_EQ(test, slot_pages(stock, memcg[i]), MCS_CHARGE_BATCH - 1);
	KUNIT_EXPECT_EQ(test, (int)stock->nr_cached, NR_MEMCG_STOCK);
}

/*
 * NR_MEMCG_STOCK + 1 memcgs; migration off (the caller enables it again),
 * and this CPU's stock full with the first NR_MEMCG_STOCK, one page charged
 * each; the last has no slot.  Returns the stock.
 */
static struct mcs_memcg_stock *full_stock_and_newcomer(struct kunit *test,
						       struct mcs_memcg **memcg)
{
	struct mcs_memcg_stock *stock;
	int i;

	for (i = 0; i <= NR_MEMCG_STOCK; i++)
		memcg[i] = test_memcg(test, NULL);
	migrate_disable();
	stock = this_cpu_ptr(&mcs_memcg_stock);
	stock->admit_wait = 0;
	fill_memcg_stock(test, stock, memcg);
	return stock;
}

/*
 * A full stock: the eighth memcg is charged exactly and its uncharges are
 * turned away, without touching the seven slots, until the
 * MCS_STOCK_ADMIT_EVERY-th; that one evicts round-robin, the victim's
 * pages go back, and the newcomer's slot starts with its uncharged page.
 * Its first shortfall then gets a whole batch.
 */
static void stock_full_admits_one_in_n(struct kunit *test)
{
	struct mcs_memcg *memcg[NR_MEMCG_STOCK + 1];
	struct mcs_memcg_stock *stock;
	struct mcs_memcg *new;
	int i, k, victim;

	stock = full_stock_and_newcomer(test, memcg);
	new = memcg[NR_MEMCG_STOCK];

	for (k = 1; k < MCS_STOCK_ADMIT_EVERY; k++) {
		KUNIT_EXPECT_EQ(test, mcs_charge_pages(new, GFP_NOWAIT, 1), 0);
		/* exact: no batch for a surplus that has nowhere to go */
		KUNIT_EXPECT_EQ(test, mcs_memcg_usage(new), 1UL);
		KUNIT_EXPECT_EQ(test, event(new, MCS_STOCK_MISS), (unsigned long)k);
		mcs_uncharge_pages(new, 1);
		/* turned away: straight back to the counters */
		KUNIT_EXPECT_EQ(test, mcs_memcg_usage(new), 0UL);
		KUNIT_EXPECT_EQ(test, nr_slots_of(stock, new), 0);
		KUNIT_EXPECT_EQ(test, (int)stock->admit_wait, k);
	}
	for (i = 0; i < NR_MEMCG_STOCK; i++) {
		KUNIT_EXPECT_EQ(test, slot_pages(stock, memcg[i]), MCS_CHARGE_BATCH - 1);
		KUNIT_EXPECT_EQ(test, event(memcg[i], MCS_DRAIN), 0UL);
	}

	/*
	 * The MCS_STOCK_ADMIT_EVERY-th: the slot at drain_idx goes.  No
	 * assertion from here on: a case that stopped with pages charged
	 * would fail every later case's leak check.
	 */
	victim = stock->drain_idx;
	KUNIT_EXPECT_LT(test, victim, NR_MEMCG_STOCK);
	for (i = 0; victim < NR_MEMCG_STOCK && i < NR_MEMCG_STOCK; i++)
		if (stock->cached[victim] == memcg[i])
			break;
	KUNIT_EXPECT_LT(test, i, NR_MEMCG_STOCK);
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(new, GFP_NOWAIT, 1), 0);
	mcs_uncharge_pages(new, 1);
	if (victim < NR_MEMCG_STOCK)
		KUNIT_EXPECT_PTR_EQ(test, stock->cached[victim], new);
	KUNIT_EXPECT_EQ(test, slot_pages(stock, new), 1);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(new), 1UL);
	KUNIT_EXPECT_EQ(test, (int)stock->drain_idx, (victim + 1) % NR_MEMCG_STOCK);
	KUNIT_EXPECT_EQ(test, (int)stock->admit_wait, 0);
	KUNIT_EXPECT_EQ(test, (int)stock->nr_cached, NR_MEMCG_STOCK);
	if (i < NR_MEMCG_STOCK) {
		/* the victim's 63 stocked pages went back to the counters */
		KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg[i]), 1UL);
		KUNIT_EXPECT_EQ(test, nr_slots_of(stock, memcg[i]), 0);
		KUNIT_EXPECT_EQ(test, refcount_read(&memcg[i]->refcnt), 1U);
	}

	/* a hit, then a shortfall with a slot: a whole batch again */
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(new, GFP_NOWAIT, 1), 0);
	KUNIT_EXPECT_EQ(test, event(new, MCS_STOCK_HIT), 1UL);
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(new, GFP_NOWAIT, 1), 0);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(new), 1UL + MCS_CHARGE_BATCH);
	KUNIT_EXPECT_EQ(test, slot_pages(stock, new), MCS_CHARGE_BATCH - 1);
	mcs_uncharge_pages(new, 2);
	for (i = 0; i < NR_MEMCG_STOCK; i++)
		mcs_uncharge_pages(memcg[i], 1);
	migrate_enable();
}

/* the other side of a full stock: a memcg with a slot keeps batching */
static void stock_full_slot_holder_batches(struct kunit *test)
{
	struct mcs_memcg *memcg[NR_MEMCG_STOCK];
	struct mcs_memcg_stock *stock;
	int i;

	for (i = 0; i < ARRAY_SIZE(memcg); i++)
		memcg[i] = test_memcg(test, NULL);

	migrate_disable();
	stock = this_cpu_ptr(&mcs_memcg_stock);
	fill_memcg_stock(test, stock, memcg);
	/* empty the slot, then one page more: a miss with a slot, so a batch */
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(memcg[0], GFP_NOWAIT, MCS_CHARGE_BATCH - 1), 0);
	KUNIT_EXPECT_EQ(test, slot_pages(stock, memcg[0]), 0);
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(memcg[0], GFP_NOWAIT, 1), 0);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg[0]), 2UL * MCS_CHARGE_BATCH);
	KUNIT_EXPECT_EQ(test, slot_pages(stock, memcg[0]), MCS_CHARGE_BATCH - 1);
	KUNIT_EXPECT_EQ(test, (int)stock->nr_cached, NR_MEMCG_STOCK);
	mcs_uncharge_pages(memcg[0], MCS_CHARGE_BATCH);
	for (i = 0; i < NR_MEMCG_STOCK; i++)
		mcs_uncharge_pages(memcg[i], 1);
	migrate_enable();
}

/* the root is charged exactly and never cached */
static void stock_root_never_cached(struct kunit *test)
{
	struct mcs_memcg *root = mcs_root_memcg();

	migrate_disable();
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(root, GFP_NOWAIT, 1), 0);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(root), 1UL);
	KUNIT_EXPECT_EQ(test, nr_slots_of(this_cpu_ptr(&mcs_memcg_stock), root), 0);
	mcs_uncharge_pages(root, 1);
	KUNIT_EXPECT_EQ(test, nr_slots_of(this_cpu_ptr(&mcs_memcg_stock), root), 0);
	migrate_enable();
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(root), 0UL);
}

/*
 * The contract of mcs_charge_pages(): a charge that races with the offline
 * may be served from a slot the memcg still has on this CPU, and returns
 * 0; one that the slot cannot serve gets -ENOENT.  The window (->online
 * already false, the offline's drain not yet here) is held open by
 * clearing ->online by hand.
 */
static void stock_offline_slot_still_serves(struct kunit *test)
{
	struct mcs_memcg *memcg = test_memcg(test, NULL);
	struct mcs_memcg_stock *stock;

	migrate_disable();
	stock = this_cpu_ptr(&mcs_memcg_stock);
	/* no assertion with migration off: a failed one would leave it off */
	if (mcs_charge_pages(memcg, GFP_KERNEL, 1) ||
	    slot_pages(stock, memcg) != MCS_CHARGE_BATCH - 1) {
		migrate_enable();
		KUNIT_FAIL(test, "no slot of %u pages after a first charge", MCS_CHARGE_BATCH - 1);
		return;
	}
	WRITE_ONCE(memcg->online, false);
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(memcg, GFP_KERNEL, 1), 0);
	KUNIT_EXPECT_EQ(test, slot_pages(stock, memcg), MCS_CHARGE_BATCH - 2);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), (unsigned long)MCS_CHARGE_BATCH);
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(memcg, GFP_KERNEL, MCS_CHARGE_BATCH), -ENOENT);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), (unsigned long)MCS_CHARGE_BATCH);
	WRITE_ONCE(memcg->online, true);
	mcs_uncharge_pages(memcg, 2);
	migrate_enable();
}

/* ---- rule 5 and 8: trylock failure, no IRQ disabling -------------------- */

static void stock_trylock_held_falls_back(struct kunit *test)
{
	struct mcs_memcg *memcg = test_memcg(test, NULL);
	struct mcs_memcg_stock *stock;
	bool irqs_off;

	KUNIT_ASSERT_TRUE(test, local_trylock(&mcs_memcg_stock.lock));
	/* taking the stock lock leaves interrupts on */
	irqs_off = irqs_disabled();
	stock = this_cpu_ptr(&mcs_memcg_stock);

	/* consume fails over to the counters, refill to a direct uncharge */
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(memcg, GFP_NOWAIT, 1), 0);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 1UL);
	KUNIT_EXPECT_EQ(test, nr_slots_of(stock, memcg), 0);
	mcs_uncharge_pages(memcg, 1);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 0UL);
	KUNIT_EXPECT_EQ(test, nr_slots_of(stock, memcg), 0);
	local_unlock(&mcs_memcg_stock.lock);

	KUNIT_EXPECT_FALSE(test, irqs_off);
	/* consume, the surplus refill and the uncharge each saw a busy lock */
	KUNIT_EXPECT_EQ(test, event(memcg, MCS_TRYLOCK_FAIL), 3UL);
	KUNIT_EXPECT_EQ(test, event(memcg, MCS_STOCK_HIT), 0UL);
	KUNIT_EXPECT_EQ(test, refcount_read(&memcg->refcnt), 1U);
}

/* a busy stock records its trylock failure on the root as on any memcg */
static void stock_root_trylock_fail_counted(struct kunit *test)
{
	struct mcs_memcg *root = mcs_root_memcg();
	unsigned long fails = event(root, MCS_TRYLOCK_FAIL);
	unsigned long usage = mcs_memcg_usage(root);

	KUNIT_ASSERT_TRUE(test, local_trylock(&mcs_memcg_stock.lock));
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(root, GFP_NOWAIT, 1), 0);
	local_unlock(&mcs_memcg_stock.lock);
	KUNIT_EXPECT_EQ(test, event(root, MCS_TRYLOCK_FAIL), fails + 1);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(root), usage + 1);
	mcs_uncharge_pages(root, 1);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(root), usage);
}

/* ---- rule 6: limits -------------------------------------------------------- */

static void stock_limit_refusal_atomic(struct kunit *test)
{
	struct mcs_memcg *parent = test_memcg(test, NULL);
	struct mcs_memcg *child = test_memcg(test, parent);
	unsigned long root_before = mcs_memcg_usage(mcs_root_memcg());

	KUNIT_ASSERT_EQ(test, mcs_memcg_set_max(parent, 100), 0);
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(child, GFP_NOWAIT, 90), 0);

	/* batch refused, exact refused by the parent: nothing changes */
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(child, GFP_NOWAIT, 20), -ENOMEM);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(child), 90UL);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(parent), 90UL);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(mcs_root_memcg()), root_before + 90);
	KUNIT_EXPECT_EQ(test, event(parent, MCS_LIMIT_REFUSAL), 1UL);
	KUNIT_EXPECT_EQ(test, event(child, MCS_LIMIT_REFUSAL), 0UL);

	/* a blocking caller drains once and is still refused */
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(child, GFP_KERNEL, 20), -ENOMEM);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(parent), 90UL);

	/* what fits still fits (batch refused, exact accepted) */
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(child, GFP_KERNEL, 10), 0);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(parent), 100UL);

	/* __GFP_NOFAIL goes over the limit, exactly */
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(child, GFP_KERNEL | __GFP_NOFAIL, 5), 0);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(parent), 105UL);
	KUNIT_EXPECT_EQ(test, event(child, MCS_FORCE_CHARGE), 1UL);

	KUNIT_EXPECT_EQ(test, mcs_memcg_set_max(parent, 50), -EBUSY);
	mcs_uncharge_pages(child, 105);
	mcs_drain_all_stock(parent, true);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(parent), 0UL);
}

/* the charge path's drain frees pages a sibling holds in this CPU's stock */
static void stock_limit_drain_then_retry(struct kunit *test)
{
	struct mcs_memcg *parent = test_memcg(test, NULL);
	struct mcs_memcg *a = test_memcg(test, parent);
	struct mcs_memcg *b = test_memcg(test, parent);

	KUNIT_ASSERT_EQ(test, mcs_memcg_set_max(parent, MCS_CHARGE_BATCH), 0);
	/*
	 * Stay on one CPU: the charge path's drain is the asynchronous one,
	 * which empties the current CPU's stock before it returns.  Nothing
	 * below sleeps (the drain only trylocks its mutex).
	 */
	migrate_disable();
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(a, GFP_NOWAIT, 1), 0);	/* 63 stocked */
	mcs_uncharge_pages(a, 1);					/* 64 stocked */
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(parent), (unsigned long)MCS_CHARGE_BATCH);
	/* a caller that may not block may not drain: refused */
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(b, GFP_NOWAIT, 10), -ENOMEM);
	KUNIT_EXPECT_EQ(test, event(a, MCS_DRAIN), 0UL);
	/* a blocking caller drains a's stocked pages once, then fits */
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(b, __GFP_DIRECT_RECLAIM, 10), 0);
	KUNIT_EXPECT_EQ(test, event(a, MCS_DRAIN), 1UL);
	KUNIT_EXPECT_EQ(test, event(parent, MCS_LIMIT_REFUSAL), 2UL);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(a), 0UL);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(parent), 10UL);
	migrate_enable();
	mcs_uncharge_pages(b, 10);
}

/* ---- rules 1 and 3: drains ------------------------------------------------- */

static long fill_this_cpu(void *arg)
{
	struct mcs_memcg *memcg = arg;

	if (mcs_charge_pages(memcg, GFP_KERNEL, 1))
		return -ENOMEM;
	mcs_uncharge_pages(memcg, 1);
	return 0;
}

static int fill_all_cpus(struct kunit *test, struct mcs_memcg *memcg)
{
	int cpu, n = 0;

	for_each_online_cpu(cpu) {
		KUNIT_EXPECT_EQ(test, work_on_cpu(cpu, fill_this_cpu, memcg), 0L);
		n++;
	}
	return n;
}

static void stock_drain_sync_subtree(struct kunit *test)
{
	struct mcs_memcg *parent = test_memcg(test, NULL);
	struct mcs_memcg *child = test_memcg(test, parent);
	struct mcs_memcg *other = test_memcg(test, NULL);
	int cpu, first, last;

	cpus_read_lock();
	first = cpumask_first(cpu_online_mask);
	last = cpumask_last(cpu_online_mask);
	/* the child is cached on the first CPU; an unrelated memcg on the last */
	KUNIT_EXPECT_EQ(test, work_on_cpu(first, fill_this_cpu, child), 0L);
	KUNIT_EXPECT_EQ(test, work_on_cpu(last, fill_this_cpu, other), 0L);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(parent), (unsigned long)MCS_CHARGE_BATCH);
	KUNIT_EXPECT_EQ(test, refcount_read(&child->refcnt), 2U);
	cpus_read_unlock();

	/* draining the parent's subtree empties the CPUs that cache it */
	mcs_drain_all_stock(parent, true);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(child), 0UL);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(parent), 0UL);
	KUNIT_EXPECT_EQ(test, refcount_read(&child->refcnt), 1U);
	/* and leaves the others alone */
	if (first != last) {
		KUNIT_EXPECT_EQ(test, slot_pages(per_cpu_ptr(&mcs_memcg_stock, last), other),
				(int)MCS_CHARGE_BATCH);
		KUNIT_EXPECT_EQ(test, mcs_memcg_usage(other), (unsigned long)MCS_CHARGE_BATCH);
	}
	for_each_possible_cpu(cpu) {
		struct mcs_memcg_stock *stock = per_cpu_ptr(&mcs_memcg_stock, cpu);

		KUNIT_EXPECT_EQ(test, nr_slots_of(stock, child), 0);
		KUNIT_EXPECT_FALSE(test, test_bit(FLUSHING_CACHED_CHARGE, &stock->flags));
	}
}

static void stock_drain_async(struct kunit *test)
{
	struct mcs_memcg *memcg = test_memcg(test, NULL);
	int cpu;

	cpus_read_lock();
	fill_all_cpus(test, memcg);
	mcs_drain_all_stock(memcg, false);
	/* async queues work and returns; wait for it, then all is drained */
	for_each_online_cpu(cpu)
		flush_work(&per_cpu_ptr(&mcs_memcg_stock, cpu)->work);
	cpus_read_unlock();
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 0UL);
	KUNIT_EXPECT_EQ(test, refcount_read(&memcg->refcnt), 1U);
	for_each_possible_cpu(cpu)
		KUNIT_EXPECT_FALSE(test, test_bit(FLUSHING_CACHED_CHARGE,
						  &per_cpu_ptr(&mcs_memcg_stock, cpu)->flags));
}

static atomic_t drain_remote_calls, drain_remote_outside_rcu;

static void drain_remote_hook(enum mcs_test_hook where)
{
	if (where != MCS_HOOK_DRAIN_REMOTE)
		return;
	atomic_inc(&drain_remote_calls);
	if (!rcu_read_lock_held())
		atomic_inc(&drain_remote_outside_rcu);
}

/*
 * The asynchronous drain asks whether a remote CPU is isolated and queues
 * its work in one RCU read-side section: where the housekeeping mask can
 * be replaced at run time it is RCU-protected, and lockdep would report
 * the test outside one (only when a CPU is isolated, which no test kernel
 * is; hence the hook).  Needs a second CPU and lockdep to mean anything:
 * without lockdep, rcu_read_lock_held() always answers yes.
 */
static void stock_drain_async_remote_under_rcu(struct kunit *test)
{
	struct mcs_memcg *memcg = test_memcg(test, NULL);
	int cpu;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs a second online CPU");
	cpus_read_lock();
	fill_all_cpus(test, memcg);
	atomic_set(&drain_remote_calls, 0);
	atomic_set(&drain_remote_outside_rcu, 0);
	mcs_test_hook_set(drain_remote_hook);
	mcs_drain_all_stock(memcg, false);
	mcs_test_hook_set(NULL);
	for_each_online_cpu(cpu)
		flush_work(&per_cpu_ptr(&mcs_memcg_stock, cpu)->work);
	cpus_read_unlock();
	KUNIT_EXPECT_GE(test, atomic_read(&drain_remote_calls), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&drain_remote_outside_rcu), 0);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 0UL);
}

static void stock_offline_refuses_and_drains(struct kunit *test)
{
	struct mcs_memcg *memcg = test_memcg(test, NULL);
	int n;

	cpus_read_lock();
	n = fill_all_cpus(test, memcg);
	cpus_read_unlock();
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(memcg, GFP_KERNEL, 2), 0);
	KUNIT_EXPECT_EQ(test, refcount_read(&memcg->refcnt), 1U + n);

	mcs_memcg_offline(memcg);
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(memcg, GFP_KERNEL, 1), -ENOENT);
	/* stocks are drained; the live charge of 2 pages stays */
	KUNIT_EXPECT_EQ(test, refcount_read(&memcg->refcnt), 1U);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 2UL);
	/* uncharging an offline memcg bypasses the stock */
	mcs_uncharge_pages(memcg, 2);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 0UL);
	KUNIT_EXPECT_EQ(test, refcount_read(&memcg->refcnt), 1U);
}

/* misuse of offline and limits is an error, not a warning, and changes nothing */
static void stock_offline_order_refused(struct kunit *test)
{
	struct mcs_memcg *parent = test_memcg(test, NULL);
	struct mcs_memcg *child = test_memcg(test, parent);

	KUNIT_EXPECT_EQ(test, mcs_memcg_offline(parent), -EBUSY);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(parent->online));
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(parent, GFP_KERNEL, 1), 0);
	mcs_uncharge_pages(parent, 1);
	KUNIT_EXPECT_EQ(test, mcs_memcg_offline(mcs_root_memcg()), -EINVAL);
	KUNIT_EXPECT_EQ(test, mcs_memcg_set_max(mcs_root_memcg(), 10), -EINVAL);
	KUNIT_EXPECT_EQ(test, READ_ONCE(mcs_root_memcg()->memory.max), MCS_PAGE_COUNTER_MAX);

	KUNIT_EXPECT_EQ(test, mcs_memcg_offline(child), 0);
	KUNIT_EXPECT_EQ(test, mcs_memcg_offline(child), 0);	/* once is enough */
	KUNIT_EXPECT_EQ(test, mcs_memcg_offline(parent), 0);
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(parent, GFP_KERNEL, 1), -ENOENT);
}

/* a charge of no pages is a caller's mistake: refused, nothing changes */
static void stock_charge_zero_pages_refused(struct kunit *test)
{
	struct mcs_memcg *memcg = test_memcg(test, NULL);
	unsigned long root_usage = mcs_memcg_usage(mcs_root_memcg());

	KUNIT_EXPECT_EQ(test, mcs_charge_pages(memcg, GFP_KERNEL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(mcs_root_memcg(), GFP_KERNEL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, event(memcg, MCS_STOCK_MISS), 0UL);
	KUNIT_EXPECT_EQ(test, event(memcg, MCS_STOCK_HIT), 0UL);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 0UL);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(mcs_root_memcg()), root_usage);
}

/* no memcg: every function that can return an error returns -EINVAL */
static void stock_null_memcg_refused(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(NULL, GFP_KERNEL, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, mcs_memcg_offline(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, mcs_memcg_set_max(NULL, 10), -EINVAL);
	KUNIT_EXPECT_EQ(test, mcs_memcg_slab_stat(NULL, first_node(node_possible_map),
						  MCS_SLAB_RECLAIMABLE), (long)-EINVAL);
	KUNIT_EXPECT_EQ(test, mcs_charge_stat(NULL, MCS_PGPGIN), (long)-EINVAL);
}

/* a charge statistic that does not exist is an error, not a warning */
static void stock_charge_stat_bad_item_refused(struct kunit *test)
{
	struct mcs_memcg *memcg = test_memcg(test, NULL);

	KUNIT_EXPECT_EQ(test, mcs_charge_stat(memcg, MCS_PGPGIN), 0L);
	KUNIT_EXPECT_EQ(test, mcs_charge_stat(memcg, NR_MCS_CHARGE_ITEMS), (long)-EINVAL);
	KUNIT_EXPECT_EQ(test, mcs_charge_stat(memcg, (enum mcs_charge_item)-1), (long)-EINVAL);
}

/*
 * A child and its parent offlined at the same time, the parent the moment
 * the child is marked offline: the parent must not be finalised before
 * the child's objcg pages reach it.  Hundreds of rounds, two kthreads.
 */
struct offline_race {
	struct mcs_memcg *parent, *child;
	struct completion go, child_done, parent_done;
	int parent_ret;
};

/*
 * A kthread stopped before it first ran never runs its function: each one
 * says when it is done, and waits to be stopped.
 */
static void offline_race_end(struct completion *done)
{
	complete(done);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
}

static int offline_race_child_fn(void *arg)
{
	struct offline_race *r = arg;

	wait_for_completion(&r->go);
	mcs_memcg_offline(r->child);
	offline_race_end(&r->child_done);
	return 0;
}

static int offline_race_parent_fn(void *arg)
{
	struct offline_race *r = arg;

	wait_for_completion(&r->go);
	/* both may share a CPU on a kernel without preemption: yield */
	while (READ_ONCE(r->child->online))
		cond_resched();
	r->parent_ret = mcs_memcg_offline(r->parent);
	offline_race_end(&r->parent_done);
	return 0;
}

static void stock_offline_child_parent_race(struct kunit *test)
{
	struct mcs_memcg *top = test_memcg(test, NULL);
	long underflows = mcs_page_counter_underflows();
	int round, rounds = 200;

	for (round = 0; round < rounds; round++) {
		struct offline_race r = { };
		struct task_struct *tc, *tp;
		struct mcs_objcg *objcg;
		unsigned long parent_usage;

		r.parent = mcs_memcg_create(top, "race-parent");
		KUNIT_ASSERT_FALSE(test, IS_ERR(r.parent));
		r.child = mcs_memcg_create(r.parent, "race-child");
		KUNIT_ASSERT_FALSE(test, IS_ERR(r.child));
		init_completion(&r.go);
		init_completion(&r.child_done);
		init_completion(&r.parent_done);
		r.parent_ret = -EINPROGRESS;
		objcg = mcs_memcg_tryget_objcg(r.child);
		KUNIT_ASSERT_NOT_NULL(test, objcg);
		/* live bytes through the child's objcg: pages at the child's level */
		KUNIT_ASSERT_EQ(test, mcs_obj_charge(objcg, GFP_KERNEL, 2 * PAGE_SIZE + 100), 0);

		tc = kthread_run(offline_race_child_fn, &r, "mcs_off_c");
		tp = kthread_run(offline_race_parent_fn, &r, "mcs_off_p");
		KUNIT_ASSERT_FALSE(test, IS_ERR(tc) || IS_ERR(tp));
		complete_all(&r.go);
		wait_for_completion(&r.child_done);
		wait_for_completion(&r.parent_done);
		kthread_stop(tc);
		kthread_stop(tp);

		KUNIT_EXPECT_EQ(test, r.parent_ret, 0);
		/* after a failure, still release in order: no second splat */
		if (READ_ONCE(r.parent->online)) {
			KUNIT_FAIL(test, "round %d: parent still online", round);
			mcs_memcg_offline(r.parent);
		}
		/* the objcg now charges above both; free the bytes there */
		KUNIT_EXPECT_PTR_EQ(test, mcs_objcg_memcg(objcg), top);
		mcs_obj_uncharge(objcg, 2 * PAGE_SIZE + 100);
		mcs_objcg_put(objcg);
		mcs_drain_all_stock(top, true);
		parent_usage = mcs_memcg_usage(r.parent);
		KUNIT_EXPECT_EQ(test, parent_usage, 0UL);
		KUNIT_EXPECT_EQ(test, mcs_memcg_usage(r.child), 0UL);
		mcs_memcg_put(r.child);
		mcs_memcg_put(r.parent);
		if (parent_usage)
			break;
	}
	mcs_wait_for_frees();
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(top), 0UL);
	KUNIT_EXPECT_EQ(test, mcs_page_counter_underflows(), underflows);
}

/* ---- rule 7: hotplug --------------------------------------------------------- */

static void stock_hotplug_drains_dead_cpu(struct kunit *test)
{
	struct mcs_memcg *memcg;
	int target, ret;

	if (!IS_ENABLED(CONFIG_HOTPLUG_CPU))
		kunit_skip(test, "kernel without CPU hotplug (UML has none)");
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two online CPUs");

	memcg = test_memcg(test, NULL);
	target = cpumask_last(cpu_online_mask);
	if (target == 0)
		kunit_skip(test, "only the boot CPU can be chosen");

	KUNIT_ASSERT_EQ(test, work_on_cpu(target, fill_this_cpu, memcg), 0L);
	KUNIT_EXPECT_EQ(test, slot_pages(per_cpu_ptr(&mcs_memcg_stock, target), memcg),
			(int)MCS_CHARGE_BATCH);
	KUNIT_EXPECT_EQ(test, refcount_read(&memcg->refcnt), 2U);

	ret = remove_cpu(target);
	if (ret)
		kunit_skip(test, "remove_cpu(%d) failed: %d", target, ret);
	KUNIT_EXPECT_EQ(test, slot_pages(per_cpu_ptr(&mcs_memcg_stock, target), memcg), -1);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 0UL);
	KUNIT_EXPECT_EQ(test, refcount_read(&memcg->refcnt), 1U);
	KUNIT_EXPECT_EQ(test, add_cpu(target), 0);
}

/* ---- misuse: the last reference of an online memcg ------------------------- */

/*
 * A client drops its last reference without offlining first.  The memcg is
 * offlined for it (its objcg moves to the parent, it leaves the parent's
 * children) before it is freed: the tree stays whole, a charge through the
 * old objcg reaches the parent, the parent can be offlined.
 */
static void memcg_last_put_online_contained(struct kunit *test)
{
	struct mcs_memcg *parent = test_memcg(test, NULL);
	struct mcs_memcg *child, *next;
	struct mcs_objcg *objcg;
	long alive;

	child = mcs_memcg_create(parent, "orphan");
	KUNIT_ASSERT_FALSE(test, IS_ERR(child));
	objcg = mcs_memcg_tryget_objcg(child);
	KUNIT_ASSERT_NOT_NULL(test, objcg);
	KUNIT_ASSERT_EQ(test, mcs_obj_charge(objcg, GFP_KERNEL, 100), 0);
	/* no stock slot keeps a reference: ours is the last */
	mcs_drain_all_stock(child, true);
	KUNIT_ASSERT_EQ(test, refcount_read(&child->refcnt), 1U);
	alive = mcs_memcg_nr_alive();

	mcs_memcg_put(child);		/* the mistake: still online */
	mcs_wait_for_frees();

	KUNIT_EXPECT_EQ(test, mcs_memcg_nr_alive(), alive - 1);
	KUNIT_EXPECT_PTR_EQ(test, mcs_objcg_memcg(objcg), parent);
	KUNIT_EXPECT_TRUE(test, list_empty(&parent->children));
	/* charges through the old objcg land on the parent */
	KUNIT_EXPECT_EQ(test, mcs_obj_charge(objcg, GFP_KERNEL, 3 * PAGE_SIZE), 0);
	KUNIT_EXPECT_GE(test, mcs_memcg_usage(parent), 3UL);
	mcs_obj_uncharge(objcg, 3 * PAGE_SIZE);
	mcs_obj_uncharge(objcg, 100);
	mcs_objcg_put(objcg);

	/* the children list is intact: a new child comes and goes */
	next = mcs_memcg_create(parent, "after-orphan");
	KUNIT_ASSERT_FALSE(test, IS_ERR(next));
	KUNIT_EXPECT_EQ(test, mcs_memcg_offline(next), 0);
	mcs_memcg_put(next);
	KUNIT_EXPECT_EQ(test, mcs_memcg_offline(parent), 0);
	mcs_drain_all_stock(mcs_root_memcg(), true);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(parent), 0UL);
}

/* ---- rules 1, 5, 8: every context at once ------------------------------------ */

#define NR_IRQ_MEMCGS	3

/* Charge and return a few pages; each call leaves the counters as it found them. */
static bool memcg_load_one(void *arg, u32 *seed, enum mcs_load_ctx ctx)
{
	struct mcs_memcg **memcgs = arg;
	struct mcs_memcg *memcg = memcgs[mcs_load_next(seed) % NR_IRQ_MEMCGS];
	unsigned int n = 1 + mcs_load_next(seed) % 72;	/* includes over-batch */
	gfp_t gfp = ctx == LOAD_TASK ? GFP_KERNEL : GFP_ATOMIC;

	if (mcs_charge_pages(memcg, gfp, n))
		return false;
	mcs_uncharge_pages(memcg, n);
	return true;
}

static void stock_all_contexts_exact(struct kunit *test)
{
	struct mcs_memcg *memcg[NR_IRQ_MEMCGS];
	struct mcs_load_result res;
	int i;

	memcg[0] = test_memcg(test, NULL);
	memcg[1] = test_memcg(test, memcg[0]);
	memcg[2] = test_memcg(test, NULL);

	mcs_run_load(test, memcg_load_one, memcg, 400, NULL, &res);
	for (i = 0; i < NR_LOAD_CTX; i++)
		KUNIT_EXPECT_GT(test, res.ops[i], 0L);
	KUNIT_EXPECT_EQ(test, res.errors, 0L);

	/* rule 1: with nothing live, a sync drain leaves every counter at 0 */
	mcs_drain_all_stock(mcs_root_memcg(), true);
	for (i = 0; i < NR_IRQ_MEMCGS; i++) {
		KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg[i]), 0UL);
		/* rule 3: no stock keeps a reference (memcg[1] pins its parent) */
		KUNIT_EXPECT_EQ(test, refcount_read(&memcg[i]->refcnt), i == 0 ? 2U : 1U);
	}
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(mcs_root_memcg()), 0UL);
}

/*
 * What admission counts: refills turned away, not misses.  A memcg without
 * a slot in a full stock whose pages never come back through the stock
 * (try, commit, and the descriptor's uncharge, which goes to the counters)
 * is charged exactly every time and never admitted: the seven slots stay.
 */
static void stock_full_no_refill_no_admission(struct kunit *test)
{
	struct mcs_memcg *memcg[NR_MEMCG_STOCK + 1];
	struct mcs_memcg_stock *stock;
	struct mcs_charge c = { };
	struct mcs_memcg *new;
	int i, k;

	stock = full_stock_and_newcomer(test, memcg);
	new = memcg[NR_MEMCG_STOCK];
	for (k = 0; k < 3 * MCS_STOCK_ADMIT_EVERY; k++) {
		KUNIT_EXPECT_EQ(test, mcs_charge_try(&c, new, GFP_KERNEL, 1), 0);
		mcs_charge_commit(&c);
		KUNIT_EXPECT_EQ(test, mcs_memcg_usage(new), 1UL);
		mcs_charge_uncharge(&c);
		KUNIT_EXPECT_EQ(test, mcs_memcg_usage(new), 0UL);
	}
	KUNIT_EXPECT_EQ(test, nr_slots_of(stock, new), 0);
	KUNIT_EXPECT_EQ(test, (int)stock->admit_wait, 0);
	KUNIT_EXPECT_EQ(test, event(new, MCS_STOCK_MISS), 3UL * MCS_STOCK_ADMIT_EVERY);
	for (i = 0; i < NR_MEMCG_STOCK; i++)
		KUNIT_EXPECT_EQ(test, slot_pages(stock, memcg[i]), MCS_CHARGE_BATCH - 1);
	for (i = 0; i < NR_MEMCG_STOCK; i++)
		mcs_uncharge_pages(memcg[i], 1);
	migrate_enable();
}

static struct kunit_case memcg_stock_cases[] = {
	KUNIT_CASE(stock_miss_then_hit),
	KUNIT_CASE_PARAM(stock_batch_surplus_one_slot, batch_size_gen_params),
	KUNIT_CASE(stock_nospin_exact_charge),
	KUNIT_CASE(stock_over_batch_bypass),
	KUNIT_CASE(stock_overflow_drains_slot),
	KUNIT_CASE(stock_full_admits_one_in_n),
	KUNIT_CASE(stock_full_no_refill_no_admission),
	KUNIT_CASE(stock_full_slot_holder_batches),
	KUNIT_CASE(stock_root_never_cached),
	KUNIT_CASE(stock_trylock_held_falls_back),
	KUNIT_CASE(stock_root_trylock_fail_counted),
	KUNIT_CASE(stock_limit_refusal_atomic),
	KUNIT_CASE(stock_limit_drain_then_retry),
	KUNIT_CASE(stock_drain_sync_subtree),
	KUNIT_CASE(stock_drain_async),
	KUNIT_CASE(stock_drain_async_remote_under_rcu),
	KUNIT_CASE(stock_offline_refuses_and_drains),
	KUNIT_CASE(stock_offline_order_refused),
	KUNIT_CASE(stock_offline_slot_still_serves),
	KUNIT_CASE(stock_charge_zero_pages_refused),
	KUNIT_CASE(stock_null_memcg_refused),
	KUNIT_CASE(stock_charge_stat_bad_item_refused),
	KUNIT_CASE_SLOW(stock_offline_child_parent_race),
	KUNIT_CASE(stock_hotplug_drains_dead_cpu),
	KUNIT_CASE(memcg_last_put_online_contained),
	KUNIT_CASE_SLOW(stock_all_contexts_exact),
	{}
};

static struct kunit_suite memcg_stock_suite = {
	.name = "mcs_memcg_stock",
	.init = mcs_test_leak_check_init,
	.test_cases = memcg_stock_cases,
};

/* ---- the dedicated kmem_caches ------------------------------------------------ */

static void slab_objects_stride_and_alignment(struct kunit *test)
{
	struct kmem_cache *caches[] = { mcs_memcg_cache(), mcs_memcg_pn_cache() };
	size_t sizes[] = { mcs_memcg_struct_size(), sizeof(struct mcs_memcg_per_node) };
	size_t line = cache_line_size();
	int c, i;

	for (c = 0; c < ARRAY_SIZE(caches); c++) {
		size_t stride = ALIGN(sizes[c], line);
		void *objs[8];

		KUNIT_ASSERT_NOT_NULL(test, caches[c]);
		KUNIT_EXPECT_EQ(test, kmem_cache_size(caches[c]), (unsigned int)sizes[c]);
		for (i = 0; i < ARRAY_SIZE(objs); i++) {
			size_t real;

			objs[i] = kmem_cache_alloc(caches[c], GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, objs[i]);
			KUNIT_EXPECT_TRUE(test, IS_ALIGNED((unsigned long)objs[i], line));
			/*
			 * ksize() is the stride, except that KASAN, red
			 * zones and KFENCE objects report the object size.
			 */
			real = ksize(objs[i]);
			KUNIT_EXPECT_TRUE_MSG(test, real == stride || real == sizes[c],
					      "ksize %zu, stride %zu, size %zu",
					      real, stride, sizes[c]);
			/* what kmalloc would have handed out is never smaller */
			KUNIT_EXPECT_GE(test, kmalloc_size_roundup(sizes[c]), stride);
		}
		for (i = 0; i < ARRAY_SIZE(objs); i++)
			kmem_cache_free(caches[c], objs[i]);
	}
}

static void slab_memcg_comes_from_cache(struct kunit *test)
{
	struct mcs_memcg *memcg = test_memcg(test, NULL);
	int nid;

	if (mcs_slab_uses_kmalloc())
		kunit_skip(test, "loaded with slab_kmalloc=1");
	/* a cache object's ksize is never the kmalloc bucket of a larger size */
	KUNIT_EXPECT_LE(test, ksize(memcg), ALIGN(mcs_memcg_struct_size(), cache_line_size()));
	for_each_node(nid) {
		KUNIT_ASSERT_NOT_NULL(test, memcg->nodeinfo[nid]);
		KUNIT_EXPECT_PTR_EQ(test, memcg->nodeinfo[nid]->memcg, memcg);
		KUNIT_EXPECT_EQ(test, memcg->nodeinfo[nid]->nid, nid);
	}
}

/*
 * Every per-node struct lives on its own node: mcs_memcg_pn_alloc() passes
 * the node to kmem_cache_alloc_node() (kzalloc_node() with slab_kmalloc=1).
 * An allocation without the node would land on the allocating CPU's node
 * and fail here for every other node with memory.  One node online (UML,
 * the debug kernels, qemu without -numa): nothing to tell apart, skipped.
 */
static void slab_per_node_on_its_node(struct kunit *test)
{
	struct mcs_memcg *memcg;
	int nid, checked = 0;

	if (num_node_state(N_MEMORY) < 2)
		kunit_skip(test, "%u node(s) with memory: locality cannot be told apart",
			   num_node_state(N_MEMORY));
	memcg = test_memcg(test, NULL);
	for_each_node_state(nid, N_MEMORY) {
		struct mcs_memcg_per_node *pn = memcg->nodeinfo[nid];

		KUNIT_ASSERT_NOT_NULL(test, pn);
		/* a KFENCE object comes from KFENCE's pool, not the node */
		if (is_kfence_address(pn))
			continue;
		KUNIT_EXPECT_EQ_MSG(test, page_to_nid(virt_to_page(pn)), nid,
				    "per-node struct of node %d allocated on node %d",
				    nid, page_to_nid(virt_to_page(pn)));
		checked++;
	}
	KUNIT_EXPECT_GE(test, checked, 2);
}

static struct kunit_case slab_cases[] = {
	KUNIT_CASE(slab_objects_stride_and_alignment),
	KUNIT_CASE(slab_memcg_comes_from_cache),
	KUNIT_CASE(slab_per_node_on_its_node),
	{}
};

static struct kunit_suite slab_suite = {
	.name = "mcs_slab_caches",
	.test_cases = slab_cases,
};

kunit_test_suites(&memcg_stock_suite, &slab_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit suites for memcg_stock");
/* the per-CPU stocks, slab caches, NMI source and test hooks */
MODULE_IMPORT_NS(MCS_NS);
