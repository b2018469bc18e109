// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for objcgs and the per-CPU obj stock (DESIGN rules 3, 4, 5,
 * 8), reparenting and the cached slab statistics.
 *
 * The central check is byte conservation at quiescence, for an objcg o:
 *   PAGE_SIZE * (pages charged through o) ==
 *	live bytes + bytes in every CPU's obj stock slot of o + o's leftover
 * where "pages charged through o" is its memcg's objcg_pages when o is
 * the only objcg charging that memcg.
 */
#include <kunit/test.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "mcs_kunit.h"

static long stocked_bytes(struct mcs_objcg *objcg)
{
	long sum = 0;
	int cpu, i;

	for_each_possible_cpu(cpu) {
		struct mcs_obj_stock *stock = per_cpu_ptr(&mcs_obj_stock, cpu);

		for (i = 0; i < NR_OBJ_STOCK; i++)
			if (READ_ONCE(stock->cached[i]) == objcg)
				sum += READ_ONCE(stock->nr_bytes[i]);
	}
	return sum;
}

static int obj_slots_of(struct mcs_obj_stock *stock, struct mcs_objcg *objcg)
{
	int i, n = 0;

	for (i = 0; i < NR_OBJ_STOCK; i++)
		n += READ_ONCE(stock->cached[i]) == objcg;
	return n;
}

#define EXPECT_BYTES_CONSERVED(test, memcg, objcg, live)			\
	do {									\
		struct mcs_objcg *__o = (objcg);				\
										\
		KUNIT_EXPECT_EQ(test, atomic_long_read(&(memcg)->objcg_pages) * (long)PAGE_SIZE, \
				(long)(live) + stocked_bytes(__o) +		\
				atomic_read(&__o->nr_charged_bytes));		\
	} while (0)

/* random sizes 1..3 pages: conservation after every step, exact zero at the end */
static void obj_byte_conservation(struct kunit *test)
{
	struct mcs_memcg *memcg = mcs_test_memcg(test, NULL);
	struct mcs_objcg *objcg = mcs_test_objcg(test, memcg);
	size_t *live;
	long live_bytes = 0;
	int i, n = 0;
	u32 seed = 42;

	live = kunit_kcalloc(test, 256, sizeof(*live), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, live);

	for (i = 0; i < 3000; i++) {
		bool charge = n == 0 || (n < 256 && (mcs_load_next(&seed) & 1));

		if (charge) {
			size_t size = 1 + mcs_load_next(&seed) % (3 * PAGE_SIZE);

			KUNIT_ASSERT_EQ(test, mcs_obj_charge(objcg, GFP_KERNEL, size), 0);
			live[n++] = size;
			live_bytes += size;
		} else {
			int k = mcs_load_next(&seed) % n;

			mcs_obj_uncharge(objcg, live[k]);
			live_bytes -= live[k];
			live[k] = live[--n];
		}
		EXPECT_BYTES_CONSERVED(test, memcg, objcg, live_bytes);
		/* the leftover never holds a whole page */
		KUNIT_EXPECT_LT(test, mcs_objcg_leftover_bytes(objcg), (unsigned int)PAGE_SIZE);
		/* slots stay bounded */
		KUNIT_EXPECT_LE(test, stocked_bytes(objcg), (long)num_possible_cpus() * U16_MAX);
		if (!(i % 128))
			cond_resched();
	}
	while (n)
		mcs_obj_uncharge(objcg, live[--n]);
	mcs_drain_all_stock(mcs_root_memcg(), true);

	/* nothing live, nothing stocked: nothing left over, nothing charged */
	KUNIT_EXPECT_EQ(test, stocked_bytes(objcg), 0L);
	KUNIT_EXPECT_EQ(test, mcs_objcg_leftover_bytes(objcg), 0U);
	EXPECT_BYTES_CONSERVED(test, memcg, objcg, 0);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 0UL);
}

static unsigned long memcg_event(struct mcs_memcg *memcg, enum mcs_memcg_event ev)
{
	struct mcs_memcg_stat stat;

	mcs_memcg_stat(memcg, &stat);
	return stat.events[ev];
}

/*
 * Hysteresis: a slot that goes over two pages on uncharge gives whole
 * pages back down to its sub-page rest plus one page; up to two pages it
 * keeps everything.
 */
static void obj_slot_overflow_returns_pages(struct kunit *test)
{
	struct mcs_memcg *memcg = mcs_test_memcg(test, NULL);
	struct mcs_objcg *objcg = mcs_test_objcg(test, memcg);
	struct mcs_obj_stock *stock;
	const unsigned int big = PAGE_SIZE - PAGE_SIZE / 4;
	int i;

	migrate_disable();
	stock = this_cpu_ptr(&mcs_obj_stock);
	for (i = 1; i <= 3; i++) {
		/* a quarter more in the slot after each: every one a miss */
		KUNIT_EXPECT_EQ(test, mcs_obj_charge(objcg, GFP_NOWAIT, big), 0);
		KUNIT_EXPECT_EQ(test, atomic_long_read(&memcg->objcg_pages), (long)i);
		KUNIT_EXPECT_EQ(test, obj_slots_of(stock, objcg), 1);
		KUNIT_EXPECT_EQ(test, stocked_bytes(objcg), i * (long)(PAGE_SIZE - big));
	}

	mcs_obj_uncharge(objcg, big);	/* 3/4 + 3/4: within two pages, kept */
	KUNIT_EXPECT_EQ(test, atomic_long_read(&memcg->objcg_pages), 3L);
	KUNIT_EXPECT_EQ(test, stocked_bytes(objcg), 6L * PAGE_SIZE / 4);
	mcs_obj_uncharge(objcg, big);	/* 9/4 > 2 pages: down to 1/4 + one page */
	KUNIT_EXPECT_EQ(test, atomic_long_read(&memcg->objcg_pages), 2L);
	KUNIT_EXPECT_EQ(test, stocked_bytes(objcg), 5L * PAGE_SIZE / 4);
	mcs_obj_uncharge(objcg, big);	/* exactly two pages: kept */
	KUNIT_EXPECT_EQ(test, atomic_long_read(&memcg->objcg_pages), 2L);
	KUNIT_EXPECT_EQ(test, stocked_bytes(objcg), 2L * PAGE_SIZE);
	EXPECT_BYTES_CONSERVED(test, memcg, objcg, 0);
	migrate_enable();
}

/*
 * No ping-pong: next to a live neighbour that leaves the slot short of the
 * object (64 bytes), the first object charges a page, and from then on the
 * object is freed into the slot and allocated from it again: no page
 * charge (a memcg stock hit or miss) and no page given back (a refill) per
 * pair.  A stock that gives whole pages back as soon as it holds more than
 * one does both on every pair.
 */
static const unsigned int pingpong_sizes[] = { 256, 1024, 3000, PAGE_SIZE };

static void pingpong_desc(const unsigned int *size, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "size=%u", *size);
}

KUNIT_ARRAY_PARAM(pingpong, pingpong_sizes, pingpong_desc);

static void obj_no_page_pingpong(struct kunit *test)
{
	unsigned int size = *(const unsigned int *)test->param_value;
	struct mcs_memcg *memcg = mcs_test_memcg(test, NULL);
	struct mcs_objcg *objcg = mcs_test_objcg(test, memcg);
	unsigned long before;
	long pages;
	int i;

	migrate_disable();
	KUNIT_EXPECT_EQ(test, mcs_obj_charge(objcg, GFP_NOWAIT, PAGE_SIZE - 64), 0);
	KUNIT_EXPECT_EQ(test, stocked_bytes(objcg), 64L);
	KUNIT_EXPECT_EQ(test, mcs_obj_charge(objcg, GFP_NOWAIT, size), 0);
	mcs_obj_uncharge(objcg, size);
	pages = atomic_long_read(&memcg->objcg_pages);
	before = memcg_event(memcg, MCS_STOCK_HIT) + memcg_event(memcg, MCS_STOCK_MISS) +
		 memcg_event(memcg, MCS_REFILL);
	for (i = 0; i < 100; i++) {
		KUNIT_EXPECT_EQ(test, mcs_obj_charge(objcg, GFP_NOWAIT, size), 0);
		mcs_obj_uncharge(objcg, size);
	}
	KUNIT_EXPECT_EQ(test, memcg_event(memcg, MCS_STOCK_HIT) +
			memcg_event(memcg, MCS_STOCK_MISS) + memcg_event(memcg, MCS_REFILL),
			before);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&memcg->objcg_pages), pages);
	/* the neighbour's page and the one kept above the slot's rest */
	KUNIT_EXPECT_EQ(test, pages, 2L);
	EXPECT_BYTES_CONSERVED(test, memcg, objcg, PAGE_SIZE - 64);
	mcs_obj_uncharge(objcg, PAGE_SIZE - 64);
	migrate_enable();
	EXPECT_BYTES_CONSERVED(test, memcg, objcg, 0);
}

/*
 * NR_OBJ_STOCK + 1 memcgs with their objcgs; migration off (the caller
 * enables it again), and this CPU's obj stock full with the first
 * NR_OBJ_STOCK, 100 bytes charged each; the last has no slot.
 */
static struct mcs_obj_stock *full_obj_stock(struct kunit *test, struct mcs_memcg **memcg,
					    struct mcs_objcg **objcg)
{
	struct mcs_obj_stock *stock;
	int i;

	for (i = 0; i <= NR_OBJ_STOCK; i++) {
		memcg[i] = mcs_test_memcg(test, NULL);
		objcg[i] = mcs_test_objcg(test, memcg[i]);
	}
	migrate_disable();
	stock = this_cpu_ptr(&mcs_obj_stock);
	stock->admit_wait = 0;
	for (i = 0; i < NR_OBJ_STOCK; i++) {
		KUNIT_EXPECT_EQ(test, mcs_obj_charge(objcg[i], GFP_NOWAIT, 100), 0);
		KUNIT_EXPECT_EQ(test, obj_slots_of(stock, objcg[i]), 1);
	}
	KUNIT_EXPECT_EQ(test, (int)stock->nr_cached, NR_OBJ_STOCK);
	return stock;
}

/*
 * More objcgs than slots: a full stock turns the refills of an objcg
 * without a slot away to its leftover, where its next charge finds the
 * bytes (no page charged), until the MCS_STOCK_ADMIT_EVERY-th refill, which
 * evicts one slot round-robin; the victim's bytes go to its own leftover.
 */
static void obj_full_admits_one_in_n(struct kunit *test)
{
	enum { N = NR_OBJ_STOCK + 1 };
	struct mcs_memcg *memcg[N];
	struct mcs_objcg *objcg[N], *new;
	struct mcs_obj_stock *stock;
	int i, k, victim, refills;

	stock = full_obj_stock(test, memcg, objcg);
	new = objcg[N - 1];
	victim = stock->drain_idx;

	/* a page for the first charge, its rest turned away to the leftover */
	KUNIT_EXPECT_EQ(test, mcs_obj_charge(new, GFP_NOWAIT, 100), 0);
	refills = 1;
	KUNIT_EXPECT_EQ(test, obj_slots_of(stock, new), 0);
	KUNIT_EXPECT_EQ(test, mcs_objcg_leftover_bytes(new), (unsigned int)PAGE_SIZE - 100);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&memcg[N - 1]->objcg_pages), 1L);
	for (k = 0; refills < MCS_STOCK_ADMIT_EVERY - 1; k++) {
		/* from the leftover: no page */
		KUNIT_EXPECT_EQ(test, mcs_obj_charge(new, GFP_NOWAIT, 100), 0);
		KUNIT_EXPECT_EQ(test, atomic_long_read(&memcg[N - 1]->objcg_pages), 1L);
		mcs_obj_uncharge(new, 100);
		refills++;
		KUNIT_EXPECT_EQ(test, obj_slots_of(stock, new), 0);
		KUNIT_EXPECT_EQ(test, (int)stock->admit_wait, refills);
	}
	for (i = 0; i < NR_OBJ_STOCK; i++)
		KUNIT_EXPECT_EQ(test, obj_slots_of(stock, objcg[i]), 1);

	/*
	 * The MCS_STOCK_ADMIT_EVERY-th refill takes the slot at drain_idx.
	 * No assertion from here on: a case that stopped with bytes charged
	 * would fail every later case's leak check.
	 */
	KUNIT_EXPECT_LT(test, victim, NR_OBJ_STOCK);
	for (i = 0; victim < NR_OBJ_STOCK && i < NR_OBJ_STOCK; i++)
		if (stock->cached[victim] == objcg[i])
			break;
	KUNIT_EXPECT_LT(test, i, NR_OBJ_STOCK);
	mcs_obj_uncharge(new, 100);
	if (victim < NR_OBJ_STOCK)
		KUNIT_EXPECT_PTR_EQ(test, stock->cached[victim], new);
	KUNIT_EXPECT_EQ(test, (int)stock->admit_wait, 0);
	KUNIT_EXPECT_EQ(test, mcs_objcg_leftover_bytes(new), 0U);
	if (i < NR_OBJ_STOCK) {
		KUNIT_EXPECT_EQ(test, obj_slots_of(stock, objcg[i]), 0);
		KUNIT_EXPECT_EQ(test, mcs_objcg_leftover_bytes(objcg[i]),
				(unsigned int)PAGE_SIZE - 100);
	}
	for (i = 0; i < N; i++)
		EXPECT_BYTES_CONSERVED(test, memcg[i], objcg[i], i < N - 1 ? 100 : 0);
	for (i = 0; i < NR_OBJ_STOCK; i++)
		mcs_obj_uncharge(objcg[i], 100);
	migrate_enable();
	for (i = 0; i < N; i++)
		EXPECT_BYTES_CONSERVED(test, memcg[i], objcg[i], 0);
}

/*
 * An accounted byte charge of an objcg without a slot in a full stock
 * takes the bytes that its turned-away refills left on the leftover, as an
 * unaccounted one does: no page per allocation.  The slab statistics
 * count it all the same.
 */
static void obj_full_accounted_takes_leftover(struct kunit *test)
{
	enum { N = NR_OBJ_STOCK + 1 };
	int nid = first_node(node_possible_map);
	struct mcs_memcg_stat before, after;
	struct mcs_memcg *memcg[N];
	struct mcs_objcg *objcg[N], *new;
	struct mcs_obj_stock *stock;
	int i;

	stock = full_obj_stock(test, memcg, objcg);
	new = objcg[N - 1];
	/* a page for the first charge, its rest turned away to the leftover */
	KUNIT_EXPECT_EQ(test, mcs_obj_charge(new, GFP_NOWAIT, 100), 0);
	KUNIT_EXPECT_EQ(test, obj_slots_of(stock, new), 0);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&memcg[N - 1]->objcg_pages), 1L);
	mcs_memcg_stat(memcg[N - 1], &before);
	KUNIT_EXPECT_EQ(test, mcs_obj_charge_account(new, GFP_NOWAIT, 100, nid,
						     MCS_SLAB_RECLAIMABLE), 0);
	mcs_memcg_stat(memcg[N - 1], &after);
	/* a page charged would show as a hit or a miss of the memcg stock */
	KUNIT_EXPECT_EQ_MSG(test, after.events[MCS_STOCK_HIT] + after.events[MCS_STOCK_MISS],
			    before.events[MCS_STOCK_HIT] + before.events[MCS_STOCK_MISS],
			    "an accounted charge paid a page with bytes on the leftover");
	KUNIT_EXPECT_EQ(test, atomic_long_read(&memcg[N - 1]->objcg_pages), 1L);
	KUNIT_EXPECT_EQ(test, mcs_memcg_slab_stat(memcg[N - 1], nid, MCS_SLAB_RECLAIMABLE), 100L);
	KUNIT_EXPECT_EQ(test, mcs_obj_uncharge_account(new, 100, nid, MCS_SLAB_RECLAIMABLE), 0);
	mcs_obj_uncharge(new, 100);
	for (i = 0; i < NR_OBJ_STOCK; i++)
		mcs_obj_uncharge(objcg[i], 100);
	migrate_enable();
	mcs_drain_all_stock(mcs_root_memcg(), true);
	for (i = 0; i < N; i++)
		EXPECT_BYTES_CONSERVED(test, memcg[i], objcg[i], 0);
	KUNIT_EXPECT_EQ(test, mcs_memcg_slab_stat(memcg[N - 1], nid, MCS_SLAB_RECLAIMABLE), 0L);
}

/* more objcgs than slots, in turn: at most one slot each, leftovers kept, bytes exact */
static void obj_thrash_more_objcgs_than_slots(struct kunit *test)
{
	enum { N = NR_OBJ_STOCK + 3 };
	struct mcs_memcg *memcg[N];
	struct mcs_objcg *objcg[N];
	struct mcs_obj_stock *stock;
	int i, round, cpu;

	for (i = 0; i < N; i++) {
		memcg[i] = mcs_test_memcg(test, NULL);
		objcg[i] = mcs_test_objcg(test, memcg[i]);
	}
	migrate_disable();
	stock = this_cpu_ptr(&mcs_obj_stock);
	for (round = 0; round < 4 * MCS_STOCK_ADMIT_EVERY; round++) {
		for (i = 0; i < N; i++) {
			KUNIT_EXPECT_EQ(test, mcs_obj_charge(objcg[i], GFP_NOWAIT, 100 + i), 0);
			KUNIT_EXPECT_LE(test, obj_slots_of(stock, objcg[i]), 1);
		}
		KUNIT_EXPECT_LT(test, (int)stock->drain_idx, NR_OBJ_STOCK);
		KUNIT_EXPECT_LT(test, (int)stock->admit_wait, MCS_STOCK_ADMIT_EVERY);
		KUNIT_EXPECT_EQ(test, (int)stock->nr_cached, NR_OBJ_STOCK);
	}
	for (i = 0; i < N; i++)
		EXPECT_BYTES_CONSERVED(test, memcg[i], objcg[i],
				       4 * MCS_STOCK_ADMIT_EVERY * (100 + i));
	for (round = 0; round < 4 * MCS_STOCK_ADMIT_EVERY; round++)
		for (i = 0; i < N; i++)
			mcs_obj_uncharge(objcg[i], 100 + i);
	migrate_enable();
	for (i = 0; i < N; i++)
		EXPECT_BYTES_CONSERVED(test, memcg[i], objcg[i], 0);

	mcs_drain_all_stock(mcs_root_memcg(), true);
	for_each_possible_cpu(cpu)
		for (i = 0; i < N; i++)
			KUNIT_EXPECT_EQ(test, obj_slots_of(per_cpu_ptr(&mcs_obj_stock, cpu),
							   objcg[i]), 0);
}

/* obj stock busy: pages charged directly, remainders on the objcg, stats direct */
static void obj_trylock_held_falls_back(struct kunit *test)
{
	struct mcs_memcg *memcg = mcs_test_memcg(test, NULL);
	struct mcs_objcg *objcg = mcs_test_objcg(test, memcg);
	bool memcg_lock_free;

	KUNIT_ASSERT_TRUE(test, local_trylock(&mcs_obj_stock.lock));
	KUNIT_EXPECT_EQ(test, mcs_obj_charge_account(objcg, GFP_NOWAIT, 100, 0,
						     MCS_SLAB_UNRECLAIMABLE), 0);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&memcg->objcg_pages), 1L);
	KUNIT_EXPECT_EQ(test, atomic_read(&objcg->nr_charged_bytes), (int)PAGE_SIZE - 100);
	KUNIT_EXPECT_EQ(test, stocked_bytes(objcg), 0L);
	/* statistics went straight to the memcg */
	KUNIT_EXPECT_EQ(test, mcs_memcg_slab_stat(memcg, 0, MCS_SLAB_UNRECLAIMABLE), 100L);

	/* the leftover reached a page: it went back at once */
	mcs_obj_uncharge_account(objcg, 100, 0, MCS_SLAB_UNRECLAIMABLE);
	KUNIT_EXPECT_EQ(test, mcs_objcg_leftover_bytes(objcg), 0U);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&memcg->objcg_pages), 0L);
	KUNIT_EXPECT_EQ(test, mcs_memcg_slab_stat(memcg, 0, MCS_SLAB_UNRECLAIMABLE), 0L);
	EXPECT_BYTES_CONSERVED(test, memcg, objcg, 0);

	/* the two stocks have separate locks */
	memcg_lock_free = local_trylock(&mcs_memcg_stock.lock);
	if (memcg_lock_free)
		local_unlock(&mcs_memcg_stock.lock);
	local_unlock(&mcs_obj_stock.lock);
	KUNIT_EXPECT_TRUE(test, memcg_lock_free);

	/* a usable stock again: still exact */
	migrate_disable();
	KUNIT_EXPECT_EQ(test, mcs_obj_charge(objcg, GFP_NOWAIT, 8), 0);
	mcs_obj_uncharge(objcg, 8);
	migrate_enable();
	EXPECT_BYTES_CONSERVED(test, memcg, objcg, 0);
}

/* slab statistics: exact per node and item after a drain */
static void obj_slab_stats_exact(struct kunit *test)
{
	struct mcs_memcg *memcg = mcs_test_memcg(test, NULL);
	struct mcs_objcg *objcg = mcs_test_objcg(test, memcg);
	long (*expect)[NR_MCS_SLAB_ITEMS];
	u32 seed = 7;
	int i, nid, item;

	expect = kunit_kcalloc(test, nr_node_ids, sizeof(*expect), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, expect);

	for (i = 0; i < 400; i++) {
		size_t size = 8 + mcs_load_next(&seed) % 2000;

		nid = first_node(node_possible_map);
		item = mcs_load_next(&seed) % NR_MCS_SLAB_ITEMS;
		KUNIT_ASSERT_EQ(test, mcs_obj_charge_account(objcg, GFP_KERNEL, size, nid,
							     item), 0);
		expect[nid][item] += size;
		if (i % 3 == 0) {
			mcs_obj_uncharge_account(objcg, size, nid, item);
			expect[nid][item] -= size;
		}
	}
	mcs_drain_all_stock(memcg, true);
	for_each_node(nid)
		for (item = 0; item < NR_MCS_SLAB_ITEMS; item++)
			KUNIT_EXPECT_EQ(test, mcs_memcg_slab_stat(memcg, nid, item),
					expect[nid][item]);
	KUNIT_EXPECT_EQ(test, mcs_obj_charge_account(objcg, GFP_KERNEL, 1, -1, 0), -EINVAL);
	/* uncharge everything that is live, by re-walking the same sequence */
	for_each_node(nid)
		for (item = 0; item < NR_MCS_SLAB_ITEMS; item++)
			if (expect[nid][item])
				mcs_obj_uncharge_account(objcg, expect[nid][item], nid, item);
	mcs_drain_all_stock(memcg, true);
	for_each_node(nid)
		for (item = 0; item < NR_MCS_SLAB_ITEMS; item++)
			KUNIT_EXPECT_EQ(test, mcs_memcg_slab_stat(memcg, nid, item), 0L);
	EXPECT_BYTES_CONSERVED(test, memcg, objcg, 0);
}

/* a node or statistic the memcg does not have is an error, not a stray read */
static void obj_slab_stat_bad_args_refused(struct kunit *test)
{
	struct mcs_memcg *memcg = mcs_test_memcg(test, NULL);
	int nid = first_node(node_possible_map);
	int bad;

	KUNIT_EXPECT_EQ(test, mcs_memcg_slab_stat(memcg, nid, MCS_SLAB_RECLAIMABLE), 0L);
	KUNIT_EXPECT_EQ(test, mcs_memcg_slab_stat(memcg, nid, NR_MCS_SLAB_ITEMS), (long)-EINVAL);
	KUNIT_EXPECT_EQ(test, mcs_memcg_slab_stat(memcg, nid, (enum mcs_slab_item)-1),
			(long)-EINVAL);
	KUNIT_EXPECT_EQ(test, mcs_memcg_slab_stat(memcg, -1, MCS_SLAB_RECLAIMABLE), (long)-EINVAL);
	KUNIT_EXPECT_EQ(test, mcs_memcg_slab_stat(memcg, nr_node_ids, MCS_SLAB_RECLAIMABLE),
			(long)-EINVAL);
	/* a hole in the possible map, where there is one */
	for (bad = 0; bad < nr_node_ids; bad++)
		if (!node_possible(bad))
			KUNIT_EXPECT_EQ(test, mcs_memcg_slab_stat(memcg, bad, MCS_SLAB_RECLAIMABLE),
					(long)-EINVAL);
}

/* every byte charge and uncharge function refuses (@objcg, @size) */
static void expect_byte_calls_refused(struct kunit *test, struct mcs_objcg *objcg, size_t size)
{
	int nid = first_node(node_possible_map);

	KUNIT_EXPECT_EQ(test, mcs_obj_charge(objcg, GFP_KERNEL, size), -EINVAL);
	KUNIT_EXPECT_EQ(test, mcs_obj_uncharge(objcg, size), -EINVAL);
	KUNIT_EXPECT_EQ(test, mcs_obj_charge_account(objcg, GFP_KERNEL, size, nid,
						     MCS_SLAB_RECLAIMABLE), -EINVAL);
	KUNIT_EXPECT_EQ(test, mcs_obj_uncharge_account(objcg, size, nid, MCS_SLAB_RECLAIMABLE),
			-EINVAL);
}

/* a byte charge or uncharge of nothing is a caller's mistake: refused */
static void obj_size_zero_refused(struct kunit *test)
{
	struct mcs_memcg *memcg = mcs_test_memcg(test, NULL);
	struct mcs_objcg *objcg = mcs_test_objcg(test, memcg);

	expect_byte_calls_refused(test, objcg, 0);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 0UL);
	EXPECT_BYTES_CONSERVED(test, memcg, objcg, 0);
}

/* no objcg: the byte functions refuse, the lookup of no memcg finds none */
static void obj_null_objcg_refused(struct kunit *test)
{
	expect_byte_calls_refused(test, NULL, 8);
	KUNIT_EXPECT_NULL(test, mcs_memcg_tryget_objcg(NULL));
}

static long fill_obj_this_cpu(void *arg)
{
	struct mcs_objcg *objcg = arg;

	if (mcs_obj_charge(objcg, GFP_KERNEL, 64))
		return -ENOMEM;
	return 0;	/* 64 bytes stay live, the rest of the page is stocked */
}

/* drain-all, async and sync, empties the obj stocks too */
static void obj_drain_all(struct kunit *test)
{
	struct mcs_memcg *memcg = mcs_test_memcg(test, NULL);
	struct mcs_objcg *objcg = mcs_test_objcg(test, memcg);
	int cpu, n = 0;

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		KUNIT_EXPECT_EQ(test, work_on_cpu(cpu, fill_obj_this_cpu, objcg), 0L);
		n++;
	}
	KUNIT_EXPECT_EQ(test, stocked_bytes(objcg), n * ((long)PAGE_SIZE - 64));
	mcs_drain_all_stock(memcg, false);
	for_each_online_cpu(cpu)
		flush_work(&per_cpu_ptr(&mcs_obj_stock, cpu)->work);
	cpus_read_unlock();
	KUNIT_EXPECT_EQ(test, stocked_bytes(objcg), 0L);
	EXPECT_BYTES_CONSERVED(test, memcg, objcg, n * 64L);
	for (cpu = 0; cpu < n; cpu++)
		mcs_obj_uncharge(objcg, 64);
	mcs_drain_all_stock(memcg, true);
	KUNIT_EXPECT_EQ(test, stocked_bytes(objcg), 0L);
	EXPECT_BYTES_CONSERVED(test, memcg, objcg, 0);
}

static void obj_hotplug_drains_dead_cpu(struct kunit *test)
{
	struct mcs_memcg *memcg;
	struct mcs_objcg *objcg;
	int target, ret;

	if (!IS_ENABLED(CONFIG_HOTPLUG_CPU))
		kunit_skip(test, "kernel without CPU hotplug (UML has none)");
	target = cpumask_last(cpu_online_mask);
	if (num_online_cpus() < 2 || target == 0)
		kunit_skip(test, "needs a second online CPU");

	memcg = mcs_test_memcg(test, NULL);
	objcg = mcs_test_objcg(test, memcg);
	KUNIT_ASSERT_EQ(test, work_on_cpu(target, fill_obj_this_cpu, objcg), 0L);
	KUNIT_EXPECT_EQ(test, obj_slots_of(per_cpu_ptr(&mcs_obj_stock, target), objcg), 1);
	ret = remove_cpu(target);
	if (ret)
		kunit_skip(test, "remove_cpu(%d) failed: %d", target, ret);
	KUNIT_EXPECT_EQ(test, obj_slots_of(per_cpu_ptr(&mcs_obj_stock, target), objcg), 0);
	EXPECT_BYTES_CONSERVED(test, memcg, objcg, 64);
	KUNIT_EXPECT_EQ(test, add_cpu(target), 0);
	mcs_obj_uncharge(objcg, 64);
}

/* ---- every context at once, and reparenting under traffic ----------------- */

#define NR_LOAD_OBJCGS	3

struct obj_load {
	struct mcs_objcg *objcg[NR_LOAD_OBJCGS];
	struct mcs_memcg *victim;	/* offlined midway, or NULL */
	unsigned long victim_usage_after;
};

static bool obj_load_one(void *arg, u32 *seed, enum mcs_load_ctx ctx)
{
	struct obj_load *l = arg;
	struct mcs_objcg *objcg = l->objcg[mcs_load_next(seed) % NR_LOAD_OBJCGS];
	size_t size = 1 + mcs_load_next(seed) % (2 * PAGE_SIZE);
	int nid = first_node(node_possible_map);
	gfp_t gfp = ctx == LOAD_TASK ? GFP_KERNEL : GFP_ATOMIC;

	if (mcs_obj_charge_account(objcg, gfp, size, nid, MCS_SLAB_RECLAIMABLE))
		return false;
	mcs_obj_uncharge_account(objcg, size, nid, MCS_SLAB_RECLAIMABLE);
	return true;
}

static void obj_all_contexts_exact(struct kunit *test)
{
	struct mcs_memcg *memcg[NR_LOAD_OBJCGS];
	struct mcs_load_result res;
	struct obj_load *l;
	int i;

	l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, l);
	for (i = 0; i < NR_LOAD_OBJCGS; i++) {
		memcg[i] = mcs_test_memcg(test, i == 1 ? memcg[0] : NULL);
		l->objcg[i] = mcs_test_objcg(test, memcg[i]);
	}
	mcs_run_load(test, obj_load_one, l, 400, NULL, &res);
	for (i = 0; i < NR_LOAD_CTX; i++)
		KUNIT_EXPECT_GT(test, res.ops[i], 0L);
	KUNIT_EXPECT_EQ(test, res.errors, 0L);

	mcs_drain_all_stock(mcs_root_memcg(), true);
	for (i = 0; i < NR_LOAD_OBJCGS; i++) {
		KUNIT_EXPECT_EQ(test, stocked_bytes(l->objcg[i]), 0L);
		EXPECT_BYTES_CONSERVED(test, memcg[i], l->objcg[i], 0);
		KUNIT_EXPECT_EQ(test, mcs_memcg_slab_stat(memcg[i], first_node(node_possible_map),
							  MCS_SLAB_RECLAIMABLE), 0L);
	}
}

static void obj_offline_victim(void *arg)
{
	struct obj_load *l = arg;

	mcs_memcg_offline(l->victim);
	/* its pages moved to the parent, its stocks were drained */
	l->victim_usage_after = mcs_memcg_usage(l->victim);
}

/* offline a memcg while its objcg is charged from every context */
static void obj_reparent_under_traffic(struct kunit *test)
{
	struct mcs_memcg *parent = mcs_test_memcg(test, NULL);
	struct mcs_memcg *child = mcs_test_memcg(test, parent);
	struct mcs_load_result res;
	struct obj_load *l;
	int i, nid = first_node(node_possible_map);

	l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, l);
	for (i = 0; i < NR_LOAD_OBJCGS; i++)
		l->objcg[i] = mcs_test_objcg(test, child);
	l->victim = child;
	/* some bytes stay live across the reparenting */
	KUNIT_ASSERT_EQ(test, mcs_obj_charge_account(l->objcg[0], GFP_KERNEL, 1000, nid,
						     MCS_SLAB_RECLAIMABLE), 0);

	mcs_run_load(test, obj_load_one, l, 400, obj_offline_victim, &res);
	KUNIT_EXPECT_EQ(test, res.errors, 0L);
	KUNIT_EXPECT_EQ(test, l->victim_usage_after, 0UL);
	KUNIT_EXPECT_PTR_EQ(test, mcs_objcg_memcg(l->objcg[0]), parent);
	KUNIT_EXPECT_NULL(test, mcs_memcg_tryget_objcg(child));
	/* charges after the offline landed on the parent */
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(child), 0UL);

	mcs_obj_uncharge_account(l->objcg[0], 1000, nid, MCS_SLAB_RECLAIMABLE);
	mcs_drain_all_stock(mcs_root_memcg(), true);
	KUNIT_EXPECT_EQ(test, mcs_memcg_slab_stat(parent, nid, MCS_SLAB_RECLAIMABLE), 0L);
	KUNIT_EXPECT_EQ(test, mcs_memcg_slab_stat(child, nid, MCS_SLAB_RECLAIMABLE), 0L);
	/* nothing live, nothing stocked: no leftover, nothing charged */
	for (i = 0; i < NR_LOAD_OBJCGS; i++)
		KUNIT_EXPECT_EQ(test, mcs_objcg_leftover_bytes(l->objcg[i]), 0U);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(parent), 0UL);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&parent->objcg_pages), 0L);
}

/*
 * Busy stock (what every hardirq sees on PREEMPT_RT): the sub-page rests
 * gather on the objcg, and whole pages go back the moment they form.
 */
static void obj_leftover_below_a_page(struct kunit *test)
{
	struct mcs_memcg *memcg = mcs_test_memcg(test, NULL);
	struct mcs_objcg *objcg = mcs_test_objcg(test, memcg);
	unsigned int peak = 0, end_bytes = 0;
	long end_pages = 0;
	int errors = 0;
	size_t sizes[64];
	u32 seed = 11;
	int i, round;

	/*
	 * No KUnit check while the stock is held (atomic on !RT): a failing
	 * one would allocate.  Record, check after.
	 */
	KUNIT_ASSERT_TRUE(test, local_trylock(&mcs_obj_stock.lock));
	for (round = 0; round < 20; round++) {
		for (i = 0; i < ARRAY_SIZE(sizes); i++) {
			sizes[i] = 1 + mcs_load_next(&seed) % (2 * PAGE_SIZE);
			if (mcs_obj_charge(objcg, GFP_NOWAIT, sizes[i])) {
				errors++;
				sizes[i] = 0;
			}
			peak = max(peak, mcs_objcg_leftover_bytes(objcg));
		}
		for (i = 0; i < ARRAY_SIZE(sizes); i++) {
			mcs_obj_uncharge(objcg, sizes[i]);
			peak = max(peak, mcs_objcg_leftover_bytes(objcg));
		}
		/*
		 * Every object freed, no drain: the objcg holds nothing (the
		 * memcg stock, a separate cache, may hold pages of the memcg).
		 */
		end_bytes = max(end_bytes, mcs_objcg_leftover_bytes(objcg));
		end_pages = max(end_pages, atomic_long_read(&memcg->objcg_pages));
	}
	local_unlock(&mcs_obj_stock.lock);
	KUNIT_EXPECT_EQ(test, errors, 0);
	KUNIT_EXPECT_LT(test, peak, (unsigned int)PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, end_bytes, 0U);
	KUNIT_EXPECT_EQ(test, end_pages, 0L);
	EXPECT_BYTES_CONSERVED(test, memcg, objcg, 0);
}

/* the same from two kthreads per CPU at once, each on its own CPU's busy stock */
struct leftover_race {
	struct mcs_objcg *objcg;
	atomic_t errors;
	atomic_t running;
};

static int leftover_race_fn(void *arg)
{
	struct leftover_race *r = arg;
	u32 seed = (u32)(unsigned long)current;
	size_t sizes[16];
	int i, round;

	for (round = 0; round < 300 && !kthread_should_stop(); round++) {
		migrate_disable();
		if (!local_trylock(&mcs_obj_stock.lock)) {
			migrate_enable();
			continue;
		}
		for (i = 0; i < ARRAY_SIZE(sizes); i++) {
			sizes[i] = 1 + mcs_load_next(&seed) % PAGE_SIZE;
			if (mcs_obj_charge(r->objcg, GFP_NOWAIT, sizes[i]))
				atomic_inc(&r->errors);
		}
		for (i = 0; i < ARRAY_SIZE(sizes); i++)
			mcs_obj_uncharge(r->objcg, sizes[i]);
		local_unlock(&mcs_obj_stock.lock);
		migrate_enable();
		cond_resched();
	}
	atomic_dec(&r->running);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static void obj_leftover_concurrent_exact(struct kunit *test)
{
	struct mcs_memcg *memcg = mcs_test_memcg(test, NULL);
	struct leftover_race r = { .objcg = mcs_test_objcg(test, memcg) };
	struct task_struct *t[8];
	int i, n;

	/* counted before they start: a thread may finish before the next starts */
	atomic_set(&r.running, ARRAY_SIZE(t));
	n = mcs_test_kthreads(test, leftover_race_fn, &r, 2, t, ARRAY_SIZE(t), "mcs_left/%u");
	atomic_sub(ARRAY_SIZE(t) - n, &r.running);
	while (atomic_read(&r.running))
		usleep_range(2000, 5000);
	for (i = 0; i < n; i++)
		kthread_stop(t[i]);
	KUNIT_EXPECT_EQ(test, atomic_read(&r.errors), 0);
	KUNIT_EXPECT_EQ(test, mcs_objcg_leftover_bytes(r.objcg), 0U);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&memcg->objcg_pages), 0L);
	mcs_drain_all_stock(memcg, true);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 0UL);
}

static struct kunit_case obj_stock_cases[] = {
	KUNIT_CASE(obj_byte_conservation),
	KUNIT_CASE(obj_slot_overflow_returns_pages),
	KUNIT_CASE_PARAM(obj_no_page_pingpong, pingpong_gen_params),
	KUNIT_CASE(obj_full_admits_one_in_n),
	KUNIT_CASE(obj_full_accounted_takes_leftover),
	KUNIT_CASE(obj_thrash_more_objcgs_than_slots),
	KUNIT_CASE(obj_trylock_held_falls_back),
	KUNIT_CASE(obj_slab_stats_exact),
	KUNIT_CASE(obj_slab_stat_bad_args_refused),
	KUNIT_CASE(obj_size_zero_refused),
	KUNIT_CASE(obj_null_objcg_refused),
	KUNIT_CASE(obj_drain_all),
	KUNIT_CASE(obj_hotplug_drains_dead_cpu),
	KUNIT_CASE(obj_leftover_below_a_page),
	KUNIT_CASE_SLOW(obj_leftover_concurrent_exact),
	KUNIT_CASE_SLOW(obj_all_contexts_exact),
	KUNIT_CASE_SLOW(obj_reparent_under_traffic),
	{}
};

static struct kunit_suite obj_stock_suite = {
	.name = "mcs_obj_stock",
	.init = mcs_test_leak_check_init,
	.test_cases = obj_stock_cases,
};

kunit_test_suite(obj_stock_suite);
