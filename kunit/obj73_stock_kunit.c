// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the obj stock of mode "decoupled-7.3": the behaviours that
 * make it 7.3's shape rather than "decoupled"'s (design_decoupled73.h).
 * Exactness under load, the switch and the drains are the mode suites'
 * (modes_kunit.c, nmi_kunit.c), which run every mode.
 */
#include <kunit/test.h>
#include <linux/mm.h>

#include "mcs_kunit.h"

#define NR_TEST_OBJCGS	(NR_OBJ73_STOCK + 1)

/* Bytes that this CPU's stock holds for @objcg, -1 when it has no slot. */
static long obj73_bytes_of(struct mcs_obj73_stock *stock, struct mcs_objcg *objcg)
{
	int i;

	for (i = 0; i < NR_OBJ73_STOCK; i++)
		if (READ_ONCE(stock->cached[i]) == objcg)
			return READ_ONCE(stock->nr_bytes[i]);
	return -1;
}

/*
 * An uncharge that takes a slot past one page gives its whole pages back
 * at once and keeps the sub-page rest ("decoupled" keeps up to two pages);
 * exactly one page is kept.
 */
static void obj73_past_a_page_returns_pages(struct kunit *test)
{
	const unsigned int big = PAGE_SIZE - PAGE_SIZE / 4;
	struct mcs_obj73_stock *stock;
	struct mcs_memcg *memcg;
	struct mcs_objcg *objcg;
	int i;

	mcs_test_use_mode(test, MCS_MODE_DECOUPLED_73);
	memcg = mcs_test_memcg(test, NULL);
	objcg = mcs_test_objcg(test, memcg);

	migrate_disable();
	stock = this_cpu_ptr(&mcs_obj73_stock);
	for (i = 1; i <= 3; i++) {
		/* a quarter page more in the slot after each: every one a miss */
		KUNIT_EXPECT_EQ(test, mcs_obj_charge(objcg, GFP_NOWAIT, big), 0);
		KUNIT_EXPECT_EQ(test, atomic_long_read(&memcg->objcg_pages), (long)i);
		KUNIT_EXPECT_EQ(test, obj73_bytes_of(stock, objcg), i * (long)(PAGE_SIZE - big));
	}
	mcs_obj_uncharge(objcg, big);	/* 3/4 + 3/4 > 1 page: down to 1/2 */
	KUNIT_EXPECT_EQ(test, atomic_long_read(&memcg->objcg_pages), 2L);
	KUNIT_EXPECT_EQ(test, obj73_bytes_of(stock, objcg), (long)PAGE_SIZE / 2);
	mcs_obj_uncharge(objcg, big);	/* 1/2 + 3/4: down to 1/4 */
	KUNIT_EXPECT_EQ(test, atomic_long_read(&memcg->objcg_pages), 1L);
	KUNIT_EXPECT_EQ(test, obj73_bytes_of(stock, objcg), (long)PAGE_SIZE / 4);
	mcs_obj_uncharge(objcg, big);	/* exactly one page: kept */
	KUNIT_EXPECT_EQ(test, atomic_long_read(&memcg->objcg_pages), 1L);
	KUNIT_EXPECT_EQ(test, obj73_bytes_of(stock, objcg), (long)PAGE_SIZE);
	migrate_enable();
}

/*
 * Five slots, the first empty one taken, then round-robin eviction with no
 * admission throttle: the sixth objcg evicts the first, whose bytes go to
 * its leftover; when that objcg comes back for a slot, it evicts the
 * second and takes its leftover into the slot with it.
 */
static void obj73_round_robin_takes_leftover(struct kunit *test)
{
	struct mcs_objcg *objcg[NR_TEST_OBJCGS];
	const unsigned int size = 100;
	struct mcs_obj73_stock *stock;
	int i;

	mcs_test_use_mode(test, MCS_MODE_DECOUPLED_73);
	for (i = 0; i < NR_TEST_OBJCGS; i++)
		objcg[i] = mcs_test_objcg(test, mcs_test_memcg(test, NULL));

	migrate_disable();
	stock = this_cpu_ptr(&mcs_obj73_stock);
	for (i = 0; i < NR_TEST_OBJCGS; i++)
		KUNIT_EXPECT_EQ(test, mcs_obj_charge(objcg[i], GFP_NOWAIT, size), 0);
	for (i = 1; i < NR_OBJ73_STOCK; i++)
		KUNIT_EXPECT_PTR_EQ(test, READ_ONCE(stock->cached[i]), objcg[i]);
	/* the sixth took the first slot, the first's rest went to its leftover */
	KUNIT_EXPECT_PTR_EQ(test, READ_ONCE(stock->cached[0]), objcg[NR_OBJ73_STOCK]);
	KUNIT_EXPECT_EQ(test, mcs_objcg_leftover_bytes(objcg[0]), PAGE_SIZE - size);

	/* served from its leftover; its free takes the second slot, leftover and all */
	KUNIT_EXPECT_EQ(test, mcs_obj_charge(objcg[0], GFP_NOWAIT, size), 0);
	KUNIT_EXPECT_EQ(test, mcs_objcg_leftover_bytes(objcg[0]), PAGE_SIZE - 2 * size);
	mcs_obj_uncharge(objcg[0], size);
	KUNIT_EXPECT_PTR_EQ(test, READ_ONCE(stock->cached[1]), objcg[0]);
	KUNIT_EXPECT_EQ(test, obj73_bytes_of(stock, objcg[0]), (long)(PAGE_SIZE - size));
	KUNIT_EXPECT_EQ(test, mcs_objcg_leftover_bytes(objcg[0]), 0U);
	KUNIT_EXPECT_EQ(test, mcs_objcg_leftover_bytes(objcg[1]), PAGE_SIZE - size);
	migrate_enable();

	mcs_obj_uncharge(objcg[0], size);
	for (i = 1; i < NR_TEST_OBJCGS; i++)
		mcs_obj_uncharge(objcg[i], size);
}

static struct kunit_case obj73_stock_cases[] = {
	KUNIT_CASE(obj73_past_a_page_returns_pages),
	KUNIT_CASE(obj73_round_robin_takes_leftover),
	{}
};

static struct kunit_suite obj73_stock_suite = {
	.name = "mcs_obj73_stock",
	.init = mcs_test_leak_check_init,
	.test_cases = obj73_stock_cases,
};

kunit_test_suite(obj73_stock_suite);
