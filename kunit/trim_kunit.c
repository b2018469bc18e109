// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for mode "trim": what makes its page stock differ from
 * "decoupled"'s (design_trim.h).  A slot that a put takes above the high
 * mark keeps the low mark, its memcg and its reference; the charge batch
 * caps the marks; the marks' bounds; a busy stock, a refused fence, an
 * offline memcg and a full stock lose no charge.  Exactness under load,
 * the switch and the drains are the mode suites' (modes_kunit.c,
 * nmi_kunit.c), which run every mode.
 */
#include <kunit/test.h>
#include <linux/mm.h>

#include "mcs_kunit.h"

/* Pages that this CPU's trim stock holds for @memcg, -1 when it has no slot. */
static long trim_pages_of(struct mcs_trim_stock *stock, struct mcs_memcg *memcg)
{
	int i;

	for (i = 0; i < NR_MEMCG_STOCK; i++)
		if (READ_ONCE(stock->cached[i]) == memcg)
			return READ_ONCE(stock->nr_pages[i]);
	return -1;
}

static unsigned long trim_event(struct mcs_memcg *memcg, enum mcs_memcg_event ev)
{
	struct mcs_memcg_stat st;

	mcs_memcg_stat(memcg, &st);
	return st.events[ev];
}

/*
 * The marks, through the mode's metadata (its bench parameters, in their
 * order: trim_marks_bounds checks it), as the benchmark reaches them.
 */
#define TRIM_HIGH	(*mcs_stock_mode_info(MCS_MODE_TRIM)->params[0].value)
#define TRIM_LOW	(*mcs_stock_mode_info(MCS_MODE_TRIM)->params[1].value)

static unsigned int trim_found_high, trim_found_low;

static void trim_restore_marks(void *unused)
{
	WRITE_ONCE(TRIM_HIGH, trim_found_high);
	WRITE_ONCE(TRIM_LOW, trim_found_low);
}

static void trim_restore_batch(void *unused)
{
	mcs_stock_set_bench_batch(MCS_CHARGE_BATCH);
}

/*
 * Mode "trim" with marks @high and @low, put back when the case ends: set
 * as the benchmark sets its parameters, before the mode switch.
 */
static void trim_use(struct kunit *test, unsigned int high, unsigned int low)
{
	trim_found_high = READ_ONCE(TRIM_HIGH);
	trim_found_low = READ_ONCE(TRIM_LOW);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, trim_restore_marks, NULL), 0);
	WRITE_ONCE(TRIM_HIGH, high);
	WRITE_ONCE(TRIM_LOW, low);
	/* the switch drains what the marks before filled */
	mcs_test_use_mode(test, MCS_MODE_TRIM);
}

/*
 * A put that takes a slot above the high mark gives back only what lies
 * above the low mark: the slot keeps its memcg, its reference and the low
 * mark, and the next charges of the memcg on this CPU are hits.  A put
 * that takes it to the high mark exactly keeps it whole.
 */
static void trim_overflow_keeps_low_mark(struct kunit *test)
{
	unsigned long drains, hits;
	struct mcs_trim_stock *stock;
	struct mcs_memcg *memcg;

	trim_use(test, MCS_CHARGE_BATCH, 24);
	memcg = mcs_test_memcg(test, NULL);

	migrate_disable();
	stock = this_cpu_ptr(&mcs_trim_stock);
	/* a miss charges the batch and keeps the surplus */
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(memcg, GFP_KERNEL, 1), 0);
	KUNIT_EXPECT_EQ(test, trim_pages_of(stock, memcg), MCS_CHARGE_BATCH - 1L);
	/* up to the high mark exactly: no trim */
	mcs_uncharge_pages(memcg, 1);
	KUNIT_EXPECT_EQ(test, trim_pages_of(stock, memcg), (long)MCS_CHARGE_BATCH);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), (unsigned long)MCS_CHARGE_BATCH);
	drains = trim_event(memcg, MCS_DRAIN);

	/* 64 live pages (a hit), then a miss: 64 more, 63 of them in the slot */
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(memcg, GFP_KERNEL, MCS_CHARGE_BATCH), 0);
	KUNIT_EXPECT_EQ(test, trim_pages_of(stock, memcg), 0L);
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(memcg, GFP_KERNEL, 1), 0);
	KUNIT_EXPECT_EQ(test, trim_pages_of(stock, memcg), MCS_CHARGE_BATCH - 1L);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 2UL * MCS_CHARGE_BATCH);
	/* 63 + 64 is above the high mark: trimmed to 24, not drained to 0 */
	mcs_uncharge_pages(memcg, MCS_CHARGE_BATCH);
	KUNIT_EXPECT_EQ(test, trim_pages_of(stock, memcg), 24L);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 1UL + 24);
	KUNIT_EXPECT_EQ(test, trim_event(memcg, MCS_DRAIN), drains + 1);
	/* the slot and its reference stay */
	KUNIT_EXPECT_GT(test, refcount_read(&memcg->refcnt), 1U);

	/* the next charges hit what the trim kept */
	hits = trim_event(memcg, MCS_STOCK_HIT);
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(memcg, GFP_KERNEL, 24), 0);
	KUNIT_EXPECT_EQ(test, trim_event(memcg, MCS_STOCK_HIT), hits + 1);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 1UL + 24);
	mcs_uncharge_pages(memcg, 24 + 1);
	KUNIT_EXPECT_EQ(test, trim_pages_of(stock, memcg), 25L);
	migrate_enable();

	mcs_drain_all_stock(mcs_root_memcg(), true);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 0UL);
	KUNIT_EXPECT_EQ(test, refcount_read(&memcg->refcnt), 1U);
}

/*
 * The overflow at low mark 0, on one CPU: a slot at the high mark that a
 * put takes above it ends with no page and its memcg still cached.
 */
static void trim_low_zero_empties_pages_only(struct kunit *test)
{
	struct mcs_trim_stock *stock;
	struct mcs_memcg *memcg;

	trim_use(test, 16, 0);
	memcg = mcs_test_memcg(test, NULL);

	migrate_disable();
	stock = this_cpu_ptr(&mcs_trim_stock);
	/* 64 charged, 48 surplus: above 16, a new slot keeps 0 */
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(memcg, GFP_KERNEL, 16), 0);
	KUNIT_EXPECT_EQ(test, trim_pages_of(stock, memcg), 0L);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 16UL);
	mcs_uncharge_pages(memcg, 16);
	KUNIT_EXPECT_EQ(test, trim_pages_of(stock, memcg), 16L);
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(memcg, GFP_KERNEL, 16), 0);	/* a hit */
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(memcg, GFP_KERNEL, 1), 0);	/* a miss */
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 17UL);
	KUNIT_EXPECT_EQ(test, trim_pages_of(stock, memcg), 0L);
	mcs_uncharge_pages(memcg, 16);
	KUNIT_EXPECT_EQ(test, trim_pages_of(stock, memcg), 16L);
	mcs_uncharge_pages(memcg, 1);	/* 17 > 16: back to 0 */
	KUNIT_EXPECT_EQ(test, trim_pages_of(stock, memcg), 0L);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 0UL);
	KUNIT_EXPECT_GT(test, refcount_read(&memcg->refcnt), 1U);
	migrate_enable();
	mcs_drain_all_stock(mcs_root_memcg(), true);
	KUNIT_EXPECT_EQ(test, refcount_read(&memcg->refcnt), 1U);
}

/*
 * A charge batch below the high mark caps it, and the low mark below it:
 * no slot holds more than the batch, whatever the marks say.
 */
static void trim_batch_caps_marks(struct kunit *test)
{
	struct mcs_trim_stock *stock;
	struct mcs_memcg *memcg;

	trim_use(test, MCS_CHARGE_BATCH, MCS_CHARGE_BATCH / 2);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, trim_restore_batch, NULL), 0);
	KUNIT_ASSERT_EQ(test, mcs_stock_set_bench_batch(16), 0);
	memcg = mcs_test_memcg(test, NULL);

	migrate_disable();
	stock = this_cpu_ptr(&mcs_trim_stock);
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(memcg, GFP_KERNEL, 1), 0);
	KUNIT_EXPECT_EQ(test, trim_pages_of(stock, memcg), 15L);
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(memcg, GFP_KERNEL, 15), 0);
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(memcg, GFP_KERNEL, 1), 0);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 32UL);
	KUNIT_EXPECT_EQ(test, trim_pages_of(stock, memcg), 15L);
	/* 15 + 16 above 16: the low mark of 32 is capped below the batch, 15 */
	mcs_uncharge_pages(memcg, 16);
	KUNIT_EXPECT_EQ(test, trim_pages_of(stock, memcg), 15L);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 1UL + 15);
	/* up to the batch exactly: kept whole */
	mcs_uncharge_pages(memcg, 1);
	KUNIT_EXPECT_EQ(test, trim_pages_of(stock, memcg), 16L);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 16UL);
	migrate_enable();
	mcs_drain_all_stock(mcs_root_memcg(), true);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 0UL);
}

/*
 * The marks are the mode's bench parameters, with their bounds and
 * defaults, the low one published as staying below the high one (the
 * bench refuses a crossed pair); a low mark that is not below the high
 * mark in use all the same (the variables set directly, as a smaller
 * batch does to the high mark) keeps one page less than the high mark.
 */
static void trim_marks_bounds(struct kunit *test)
{
	const struct mcs_bench_param *p = mcs_stock_mode_info(MCS_MODE_TRIM)->params;
	struct mcs_trim_stock *stock;
	struct mcs_memcg *memcg;

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_STREQ(test, p[0].name, "trim_high");
	KUNIT_EXPECT_EQ(test, p[0].min, 1U);
	KUNIT_EXPECT_EQ(test, p[0].max, (unsigned int)MCS_TRIM_MAX);
	KUNIT_EXPECT_STREQ(test, p[1].name, "trim_low");
	KUNIT_EXPECT_EQ(test, p[1].min, 0U);
	KUNIT_EXPECT_EQ(test, p[1].max, MCS_TRIM_MAX - 1U);
	KUNIT_EXPECT_NULL(test, p[0].below);
	KUNIT_ASSERT_NOT_NULL(test, p[1].below);
	KUNIT_EXPECT_STREQ(test, p[1].below, "trim_high");
	KUNIT_EXPECT_NULL(test, p[2].name);
	/* the defaults: a batch, trimmed back to half of it */
	KUNIT_EXPECT_EQ(test, READ_ONCE(TRIM_HIGH), (unsigned int)MCS_CHARGE_BATCH);
	KUNIT_EXPECT_EQ(test, READ_ONCE(TRIM_LOW), MCS_CHARGE_BATCH / 2U);

	/* low 40 above high 16: a trim keeps 15 */
	trim_use(test, 16, 40);
	memcg = mcs_test_memcg(test, NULL);
	migrate_disable();
	stock = this_cpu_ptr(&mcs_trim_stock);
	/* 64 charged, 63 surplus: above 16 in a new slot, trimmed to 15 */
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(memcg, GFP_KERNEL, 1), 0);
	KUNIT_EXPECT_EQ(test, trim_pages_of(stock, memcg), 15L);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 16UL);
	mcs_uncharge_pages(memcg, 1);
	KUNIT_EXPECT_EQ(test, trim_pages_of(stock, memcg), 16L);
	migrate_enable();
	mcs_drain_all_stock(mcs_root_memcg(), true);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 0UL);
}

/*
 * A busy stock: the take answers busy and the charge goes to the
 * counters, the puts (the surplus, the uncharge) uncharge the counters;
 * each counted, no slot taken, nothing lost.
 */
static void trim_busy_falls_back(struct kunit *test)
{
	struct mcs_trim_stock *stock;
	struct mcs_memcg *memcg;

	trim_use(test, MCS_CHARGE_BATCH, MCS_CHARGE_BATCH / 2);
	memcg = mcs_test_memcg(test, NULL);

	KUNIT_ASSERT_TRUE(test, local_trylock(&mcs_trim_stock.lock));
	stock = this_cpu_ptr(&mcs_trim_stock);
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(memcg, GFP_NOWAIT, 1), 0);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 1UL);
	KUNIT_EXPECT_EQ(test, trim_pages_of(stock, memcg), -1L);
	mcs_uncharge_pages(memcg, 1);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 0UL);
	KUNIT_EXPECT_EQ(test, trim_pages_of(stock, memcg), -1L);
	local_unlock(&mcs_trim_stock.lock);

	/* the take, the surplus put and the uncharge each saw a busy lock */
	KUNIT_EXPECT_EQ(test, trim_event(memcg, MCS_TRYLOCK_FAIL), 3UL);
	KUNIT_EXPECT_EQ(test, trim_event(memcg, MCS_STOCK_HIT), 0UL);
	KUNIT_EXPECT_EQ(test, refcount_read(&memcg->refcnt), 1U);
}

/*
 * The refusals: a put whose mode is no longer "trim" (the fence), a put
 * above MCS_CHARGE_BATCH, a put of an offline memcg and a newcomer that a
 * full stock turns away all go to the counters, exactly.
 */
static void trim_refusals_are_exact(struct kunit *test)
{
	struct mcs_memcg *memcg[NR_MEMCG_STOCK + 2];
	struct mcs_memcg *newcomer;
	struct mcs_trim_stock *stock;
	unsigned int i;

	trim_use(test, MCS_CHARGE_BATCH, MCS_CHARGE_BATCH / 2);
	for (i = 0; i < ARRAY_SIZE(memcg); i++)
		memcg[i] = mcs_test_memcg(test, NULL);
	newcomer = memcg[NR_MEMCG_STOCK + 1];

	/* above a batch: charged exactly */
	KUNIT_ASSERT_EQ(test, mcs_charge_pages(memcg[0], GFP_KERNEL, 2 * MCS_CHARGE_BATCH + 2), 0);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg[0]), 2UL * MCS_CHARGE_BATCH + 2);
	migrate_disable();
	stock = this_cpu_ptr(&mcs_trim_stock);
	/* the fence: a put that read "trim" before a switch */
	mcs_stock_test_mode_write(MCS_MODE_DECOUPLED);
	mcs_trim_test_put(memcg[0], 1);
	mcs_stock_test_mode_write(MCS_MODE_TRIM);
	KUNIT_EXPECT_EQ(test, trim_pages_of(stock, memcg[0]), -1L);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg[0]), 2UL * MCS_CHARGE_BATCH + 1);
	/* a put above a batch: no slot */
	mcs_uncharge_pages(memcg[0], MCS_CHARGE_BATCH + 1);
	KUNIT_EXPECT_EQ(test, trim_pages_of(stock, memcg[0]), -1L);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg[0]), (unsigned long)MCS_CHARGE_BATCH);
	/* a batch: the slot takes it whole */
	mcs_uncharge_pages(memcg[0], MCS_CHARGE_BATCH);
	KUNIT_EXPECT_EQ(test, trim_pages_of(stock, memcg[0]), (long)MCS_CHARGE_BATCH);
	migrate_enable();
	/* the mode in order after the writes above; its drains empty the stock */
	KUNIT_ASSERT_EQ(test, mcs_stock_set_bench_mode(MCS_MODE_TRIM), 0);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg[0]), 0UL);

	/* an offline memcg gets no slot */
	KUNIT_ASSERT_EQ(test, mcs_charge_pages(memcg[0], GFP_KERNEL, 1), 0);
	KUNIT_ASSERT_EQ(test, mcs_memcg_offline(memcg[0]), 0);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg[0]), 1UL);
	migrate_disable();
	stock = this_cpu_ptr(&mcs_trim_stock);
	mcs_uncharge_pages(memcg[0], 1);
	KUNIT_EXPECT_EQ(test, trim_pages_of(stock, memcg[0]), -1L);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg[0]), 0UL);

	/* a full stock: a newcomer is charged exactly and its put turned away */
	for (i = 1; i <= NR_MEMCG_STOCK; i++) {
		KUNIT_EXPECT_EQ(test, mcs_charge_pages(memcg[i], GFP_KERNEL, 1), 0);
		mcs_uncharge_pages(memcg[i], 1);
		KUNIT_EXPECT_EQ(test, trim_pages_of(stock, memcg[i]), (long)MCS_CHARGE_BATCH);
	}
	KUNIT_EXPECT_EQ(test, stock->nr_cached, NR_MEMCG_STOCK);
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(newcomer, GFP_KERNEL, 1), 0);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(newcomer), 1UL);
	mcs_uncharge_pages(newcomer, 1);
	KUNIT_EXPECT_EQ(test, trim_pages_of(stock, newcomer), -1L);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(newcomer), 0UL);
	migrate_enable();

	mcs_drain_all_stock(mcs_root_memcg(), true);
	for (i = 0; i < ARRAY_SIZE(memcg); i++)
		KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg[i]), 0UL);
}

static struct kunit_case trim_cases[] = {
	KUNIT_CASE(trim_overflow_keeps_low_mark),
	KUNIT_CASE(trim_low_zero_empties_pages_only),
	KUNIT_CASE(trim_batch_caps_marks),
	KUNIT_CASE(trim_marks_bounds),
	KUNIT_CASE(trim_busy_falls_back),
	KUNIT_CASE(trim_refusals_are_exact),
	{}
};

static struct kunit_suite trim_suite = {
	.name = "mcs_trim",
	.init = mcs_test_leak_check_init,
	.test_cases = trim_cases,
};

kunit_test_suite(trim_suite);
