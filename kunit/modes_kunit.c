// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the stock modes: every mode (decoupled, coupled, none)
 * keeps pages and bytes exact under load from every context, and a mode
 * switch leaves nothing cached.  The benchmark's control "coupled-noirq"
 * is refused here (mcs_stock_set_mode()); the benchmark's own exactness
 * check (bench_badinput) covers it.
 */
#include <kunit/test.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/mm.h>

#include "mcs_kunit.h"

static const enum mcs_stock_mode modes[] = {
	MCS_MODE_DECOUPLED, MCS_MODE_COUPLED, MCS_MODE_NONE,
};

KUNIT_ARRAY_PARAM(mode, modes, mcs_test_mode_desc);

#define NR_MODE_MEMCGS	3

struct mode_load {
	struct mcs_memcg *memcg[NR_MODE_MEMCGS];
	struct mcs_objcg *objcg[NR_MODE_MEMCGS];
};

static bool mode_load_one(void *arg, u32 *seed, enum mcs_load_ctx ctx)
{
	struct mode_load *l = arg;
	unsigned int i = mcs_load_next(seed) % NR_MODE_MEMCGS;
	gfp_t gfp = ctx == LOAD_TASK ? GFP_KERNEL : GFP_ATOMIC;

	if (mcs_load_next(seed) & 1) {
		unsigned int n = 1 + mcs_load_next(seed) % 70;

		if (mcs_charge_pages(l->memcg[i], gfp, n))
			return false;
		mcs_uncharge_pages(l->memcg[i], n);
	} else {
		size_t size = 1 + mcs_load_next(seed) % (2 * PAGE_SIZE);
		int nid = first_node(node_possible_map);

		if (mcs_obj_charge_account(l->objcg[i], gfp, size, nid, MCS_SLAB_RECLAIMABLE))
			return false;
		mcs_obj_uncharge_account(l->objcg[i], size, nid, MCS_SLAB_RECLAIMABLE);
	}
	return true;
}

static void mode_all_contexts_exact(struct kunit *test)
{
	enum mcs_stock_mode mode = *(const enum mcs_stock_mode *)test->param_value;
	int nid = first_node(node_possible_map);
	struct mcs_load_result res;
	struct mode_load *l;
	int i;

	l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, l);
	mcs_test_use_mode(test, mode);
	for (i = 0; i < NR_MODE_MEMCGS; i++) {
		l->memcg[i] = mcs_test_memcg(test, i == 1 ? l->memcg[0] : NULL);
		l->objcg[i] = mcs_test_objcg(test, l->memcg[i]);
	}
	mcs_run_load(test, mode_load_one, l, 300, NULL, &res);
	for (i = 0; i < NR_LOAD_CTX; i++)
		KUNIT_EXPECT_GT(test, res.ops[i], 0L);
	KUNIT_EXPECT_EQ(test, res.errors, 0L);

	mcs_drain_all_stock(mcs_root_memcg(), true);
	for (i = 0; i < NR_MODE_MEMCGS; i++) {
		/* nothing live: nothing left over, nothing charged */
		KUNIT_EXPECT_EQ(test, mcs_objcg_leftover_bytes(l->objcg[i]), 0U);
		KUNIT_EXPECT_EQ(test, atomic_long_read(&l->memcg[i]->objcg_pages), 0L);
		KUNIT_EXPECT_EQ(test, mcs_memcg_slab_stat(l->memcg[i], nid, MCS_SLAB_RECLAIMABLE),
				0L);
	}
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(l->memcg[0]), 0UL);
}

/* a switch drains what the old mode cached */
static void mode_switch_drains(struct kunit *test)
{
	enum mcs_stock_mode mode = *(const enum mcs_stock_mode *)test->param_value;
	struct mcs_memcg *memcg;
	struct mcs_objcg *objcg;

	mcs_test_use_mode(test, mode);
	memcg = mcs_test_memcg(test, NULL);
	objcg = mcs_test_objcg(test, memcg);
	KUNIT_ASSERT_EQ(test, mcs_charge_pages(memcg, GFP_KERNEL, 1), 0);
	KUNIT_ASSERT_EQ(test, mcs_obj_charge(objcg, GFP_KERNEL, 100), 0);
	mcs_uncharge_pages(memcg, 1);
	mcs_obj_uncharge(objcg, 100);
	KUNIT_EXPECT_EQ(test, mcs_stock_set_mode(mode == MCS_MODE_NONE ?
						 MCS_MODE_DECOUPLED : MCS_MODE_NONE), 0);
	/* nothing live: nothing may remain */
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 0UL);
	KUNIT_EXPECT_EQ(test, refcount_read(&memcg->refcnt), 1U);
	KUNIT_EXPECT_EQ(test, mcs_stock_set_mode(NR_MCS_MODES), -EINVAL);
	/* the benchmark's control is never the module's stock mode */
	KUNIT_EXPECT_EQ(test, mcs_stock_set_mode(MCS_MODE_COUPLED_NOIRQ), -EINVAL);
	KUNIT_EXPECT_NE(test, mcs_stock_get_mode(), MCS_MODE_COUPLED_NOIRQ);
}

/*
 * The switch is a fence: once mcs_stock_set_mode() returns, the stocks of
 * the other modes hold nothing and get nothing, even while charges run on
 * every CPU, two tasks per CPU preempting each other between reading the
 * mode and filling a stock.
 */
struct fence_load {
	struct mcs_memcg *memcg;
	struct mcs_objcg *objcg;
	atomic_t errors;
};

static int fence_load_fn(void *arg)
{
	struct fence_load *l = arg;
	unsigned long i = 0;

	while (!kthread_should_stop()) {
		if (mcs_charge_pages(l->memcg, GFP_KERNEL, 1 + i % 3))
			atomic_inc(&l->errors);
		else
			mcs_uncharge_pages(l->memcg, 1 + i % 3);
		if (mcs_obj_charge(l->objcg, GFP_KERNEL, 200))
			atomic_inc(&l->errors);
		else
			mcs_obj_uncharge(l->objcg, 200);
		/* a real preemption point, even where cond_resched() is empty */
		if (!(++i & 15)) {
			preempt_disable();
			preempt_enable();
			cond_resched();
		}
	}
	return 0;
}

/* Does a stock other than @mode's cache the test's memcg or objcg? */
static bool other_mode_holds(struct fence_load *l, enum mcs_stock_mode mode, int *where)
{
	int cpu, i;

	for_each_possible_cpu(cpu) {
		struct mcs_memcg_stock *ms = per_cpu_ptr(&mcs_memcg_stock, cpu);
		struct mcs_obj_stock *os = per_cpu_ptr(&mcs_obj_stock, cpu);
		struct mcs_coupled_stock *cs = per_cpu_ptr(&mcs_coupled_stock, cpu);

		*where = cpu;
		if (mode != MCS_MODE_DECOUPLED) {
			for (i = 0; i < NR_MEMCG_STOCK; i++)
				if (READ_ONCE(ms->cached[i]) == l->memcg)
					return true;
			for (i = 0; i < NR_OBJ_STOCK; i++)
				if (READ_ONCE(os->cached[i]) == l->objcg)
					return true;
		}
		if (mode != MCS_MODE_COUPLED &&
		    (READ_ONCE(cs->cached) == l->memcg ||
		     READ_ONCE(cs->cached_objcg) == l->objcg))
			return true;
	}
	return false;
}

/*
 * 300 rounds take seconds on real hardware but minutes on a 4-node, 4-vCPU
 * TCG guest (KUnit's 300 s case timeout was hit there): the case stops at
 * FENCE_BUDGET_S once every mode has been switched to at least four times,
 * and reports how many switches it made.
 */
#define FENCE_ROUNDS		300
#define FENCE_MIN_ROUNDS	(4 * ARRAY_SIZE(modes))
#define FENCE_BUDGET_S		90

static void mode_switch_is_a_fence(struct kunit *test)
{
	unsigned long deadline = jiffies + FENCE_BUDGET_S * HZ;
	struct fence_load l = { };
	struct task_struct *t[8];
	int i, n, where, round, bad = 0;

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, mcs_test_restore_mode, NULL), 0);
	l.memcg = mcs_test_memcg(test, NULL);
	l.objcg = mcs_test_objcg(test, l.memcg);
	n = mcs_test_kthreads(test, fence_load_fn, &l, 2, t, ARRAY_SIZE(t), "mcs_fence/%u");

	for (round = 0; round < FENCE_ROUNDS && !bad; round++) {
		enum mcs_stock_mode mode = modes[round % ARRAY_SIZE(modes)];

		if (round >= FENCE_MIN_ROUNDS && time_after(jiffies, deadline))
			break;

		KUNIT_ASSERT_EQ(test, mcs_stock_set_mode(mode), 0);
		/* watch a while: a stale refill may come late */
		for (i = 0; i < 20 && !bad; i++) {
			if (other_mode_holds(&l, mode, &where)) {
				bad++;
				KUNIT_FAIL(test, "round %d: mode %s, cpu %d: another mode's stock",
					   round, mcs_stock_mode_name(mode), where);
			}
			usleep_range(20, 40);
		}
	}
	kunit_info(test, "%d mode switches, %d loader threads\n", round, n);
	for (i = 0; i < n; i++)
		kthread_stop(t[i]);
	KUNIT_EXPECT_EQ(test, atomic_read(&l.errors), 0);
	mcs_drain_all_stock(mcs_root_memcg(), true);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(l.memcg), 0UL);
}

/* byte sizes are bounded; at the bound every mode stays exact */
static void mode_obj_size_bounded(struct kunit *test)
{
	enum mcs_stock_mode mode = *(const enum mcs_stock_mode *)test->param_value;
	int nid = first_node(node_possible_map);
	struct mcs_memcg *memcg;
	struct mcs_objcg *objcg;
	int i;

	mcs_test_use_mode(test, mode);
	memcg = mcs_test_memcg(test, NULL);
	objcg = mcs_test_objcg(test, memcg);

	/* above the bound: refused, nothing changes */
	KUNIT_EXPECT_EQ(test, mcs_obj_charge(objcg, GFP_KERNEL, INT_MAX), -EINVAL);
	KUNIT_EXPECT_EQ(test, mcs_obj_charge(objcg, GFP_KERNEL, MCS_OBJ_SIZE_MAX + 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, mcs_obj_uncharge(objcg, INT_MAX), -EINVAL);
	KUNIT_EXPECT_EQ(test, mcs_obj_uncharge(objcg, SIZE_MAX), -EINVAL);
	KUNIT_EXPECT_EQ(test, mcs_obj_charge_account(objcg, GFP_KERNEL, 8, nid,
						     NR_MCS_SLAB_ITEMS), -EINVAL);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 0UL);

	/* at the bound, three at once, accounted: exact both ways */
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, mcs_obj_charge_account(objcg, GFP_KERNEL, MCS_OBJ_SIZE_MAX,
							     nid, MCS_SLAB_RECLAIMABLE), 0);
	KUNIT_EXPECT_GE(test, mcs_memcg_usage(memcg), 3 * (MCS_OBJ_SIZE_MAX >> PAGE_SHIFT));
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, mcs_obj_uncharge_account(objcg, MCS_OBJ_SIZE_MAX, nid,
							       MCS_SLAB_RECLAIMABLE), 0);
	mcs_drain_all_stock(mcs_root_memcg(), true);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 0UL);
	KUNIT_EXPECT_EQ(test, mcs_objcg_leftover_bytes(objcg), 0U);
	KUNIT_EXPECT_EQ(test, mcs_memcg_slab_stat(memcg, nid, MCS_SLAB_RECLAIMABLE), 0L);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(mcs_root_memcg()), 0UL);
}

static struct kunit_case mode_cases[] = {
	KUNIT_CASE_PARAM(mode_switch_drains, mode_gen_params),
	KUNIT_CASE_PARAM(mode_all_contexts_exact, mode_gen_params),
	KUNIT_CASE_SLOW(mode_switch_is_a_fence),
	KUNIT_CASE_PARAM(mode_obj_size_bounded, mode_gen_params),
	{}
};

static struct kunit_suite mode_suite = {
	.name = "mcs_stock_modes",
	.init = mcs_test_leak_check_init,
	.test_cases = mode_cases,
};

kunit_test_suite(mode_suite);
