// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the two shapes of the per-counter stock as posted
 * upstream: what makes "hahn-v4" and "hahn-v6" differ from the designs
 * they resemble ("percpu-counter" and "decoupled").  Exactness under
 * load, the switch and the drains are the mode suites' (modes_kunit.c,
 * nmi_kunit.c), which run every mode.
 */
#include <kunit/test.h>
#include <linux/mm.h>

#include "mcs_kunit.h"

/*
 * "hahn-v4": a charge that finds too few pages in this CPU's count charges
 * a batch and keeps the surplus there, but an uncharge goes straight to the
 * counter, on this CPU or another: the count never grows from a free, and
 * a charge after the free is still served from what the batch left.
 */
static void hahn_v4_uncharge_bypasses_stock(struct kunit *test)
{
	unsigned int batch = mcs_charge_batch();
	struct mcs_memcg_stat st;
	struct mcs_memcg *memcg;

	mcs_test_use_mode(test, MCS_MODE_HAHN_V4);
	memcg = mcs_test_memcg(test, NULL);

	migrate_disable();
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(memcg, GFP_KERNEL, 1), 0);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), (unsigned long)batch);
	KUNIT_EXPECT_EQ(test, mcs_test_counter_pages(memcg), (long)batch - 1);
	mcs_uncharge_pages(memcg, 1);
	/* the free left the counter, not into the count */
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), (unsigned long)batch - 1);
	KUNIT_EXPECT_EQ(test, mcs_test_counter_pages(memcg), (long)batch - 1);
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(memcg, GFP_KERNEL, 2), 0);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), (unsigned long)batch - 1);
	mcs_uncharge_pages(memcg, 2);
	migrate_enable();
	KUNIT_EXPECT_EQ(test, mcs_test_counter_pages(memcg), (long)batch - 3);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), (unsigned long)batch - 3);
	mcs_memcg_stat(memcg, &st);
	/* one miss (the batch), one hit, no reference held by the count */
	KUNIT_EXPECT_EQ(test, st.events[MCS_STOCK_MISS], 1UL);
	KUNIT_EXPECT_EQ(test, st.events[MCS_STOCK_HIT], 1UL);
	KUNIT_EXPECT_EQ(test, refcount_read(&memcg->refcnt), 1U);
	mcs_drain_all_stock(mcs_root_memcg(), true);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 0UL);
}

/* The slot of this CPU's "hahn-v6" stock that caches @memcg's counter, or -1. */
static int hahn_v6_slot(struct mcs_memcg *memcg)
{
	struct mcs_hahn_v6_stock *stock = this_cpu_ptr(&mcs_hahn_v6_stock);
	int i;

	for (i = 0; i < NR_MEMCG_STOCK; i++)
		if (READ_ONCE(stock->cached[i]) == &memcg->memory)
			return i;
	return -1;
}

#define V6_MEMCGS	(NR_MEMCG_STOCK + 2)

/*
 * "hahn-v6": slots are keyed by the memcg's page counter and hold a
 * reference; uncharges refill them; a full stock gives a newcomer a slot at
 * once (no admission throttle), evicting round-robin from slot 0.
 */
static void hahn_v6_stock_keyed_by_counter(struct kunit *test)
{
	unsigned int batch = mcs_charge_batch();
	struct mcs_memcg *memcg[V6_MEMCGS];
	int i;

	mcs_test_use_mode(test, MCS_MODE_HAHN_V6);
	for (i = 0; i < V6_MEMCGS; i++)
		memcg[i] = mcs_test_memcg(test, NULL);

	migrate_disable();
	for (i = 0; i < NR_MEMCG_STOCK; i++) {
		KUNIT_EXPECT_EQ(test, mcs_charge_pages(memcg[i], GFP_KERNEL, 1), 0);
		mcs_uncharge_pages(memcg[i], 1);
		/* the free refilled the slot: the whole batch is held there */
		KUNIT_EXPECT_EQ(test, hahn_v6_slot(memcg[i]), i);
		KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg[i]), (unsigned long)batch);
		KUNIT_EXPECT_EQ(test, refcount_read(&memcg[i]->refcnt), 2U);
	}
	/* two newcomers: slots 0 and 1 go, round-robin */
	for (i = NR_MEMCG_STOCK; i < V6_MEMCGS; i++) {
		KUNIT_EXPECT_EQ(test, mcs_charge_pages(memcg[i], GFP_KERNEL, 1), 0);
		KUNIT_EXPECT_EQ(test, hahn_v6_slot(memcg[i]), i - NR_MEMCG_STOCK);
		mcs_uncharge_pages(memcg[i], 1);
	}
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_EQ(test, hahn_v6_slot(memcg[i]), -1);
		KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg[i]), 0UL);
		KUNIT_EXPECT_EQ(test, refcount_read(&memcg[i]->refcnt), 1U);
	}
	KUNIT_EXPECT_EQ(test, hahn_v6_slot(memcg[2]), 2);
	migrate_enable();
	mcs_drain_all_stock(mcs_root_memcg(), true);
	for (i = 0; i < V6_MEMCGS; i++) {
		KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg[i]), 0UL);
		KUNIT_EXPECT_EQ(test, refcount_read(&memcg[i]->refcnt), 1U);
	}
}

static struct kunit_case hahn_cases[] = {
	KUNIT_CASE(hahn_v4_uncharge_bypasses_stock),
	KUNIT_CASE(hahn_v6_stock_keyed_by_counter),
	{}
};

static struct kunit_suite hahn_suite = {
	.name = "mcs_hahn",
	.init = mcs_test_leak_check_init,
	.test_cases = hahn_cases,
};

kunit_test_suite(hahn_suite);
