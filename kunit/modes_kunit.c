// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the stock modes: every mode (decoupled, coupled, none)
 * keeps pages and bytes exact under load from every context, and a mode
 * switch leaves nothing cached.
 */
#include <kunit/test.h>
#include <linux/mm.h>

#include "mcs_kunit.h"

static const enum mcs_stock_mode modes[] = {
	MCS_MODE_DECOUPLED, MCS_MODE_COUPLED, MCS_MODE_NONE,
};

static void mode_desc(const enum mcs_stock_mode *m, char *desc)
{
	strscpy(desc, mcs_stock_mode_name(*m), KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(mode, modes, mode_desc);

static void restore_mode(void *unused)
{
	mcs_stock_set_mode(MCS_MODE_DECOUPLED);
}

static void use_mode(struct kunit *test, enum mcs_stock_mode mode)
{
	KUNIT_ASSERT_EQ(test, mcs_stock_set_mode(mode), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, restore_mode, NULL), 0);
	KUNIT_ASSERT_EQ(test, mcs_stock_get_mode(), mode);
}

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

		if (mcs_try_charge(l->memcg[i], gfp, n))
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
	use_mode(test, mode);
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
		/* nothing live: the memcg holds exactly its objcg's leftover pages */
		KUNIT_EXPECT_EQ(test, atomic_read(&l->objcg[i]->nr_charged_bytes),
				(int)(atomic_long_read(&l->memcg[i]->objcg_pages) * PAGE_SIZE));
		KUNIT_EXPECT_EQ(test, mcs_memcg_slab_stat(l->memcg[i], nid, MCS_SLAB_RECLAIMABLE),
				0L);
	}
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(l->memcg[2]),
			(unsigned long)atomic_long_read(&l->memcg[2]->objcg_pages));
}

/* a switch drains what the old mode cached */
static void mode_switch_drains(struct kunit *test)
{
	enum mcs_stock_mode mode = *(const enum mcs_stock_mode *)test->param_value;
	struct mcs_memcg *memcg;
	struct mcs_objcg *objcg;

	use_mode(test, mode);
	memcg = mcs_test_memcg(test, NULL);
	objcg = mcs_test_objcg(test, memcg);
	KUNIT_ASSERT_EQ(test, mcs_try_charge(memcg, GFP_KERNEL, 1), 0);
	KUNIT_ASSERT_EQ(test, mcs_obj_charge(objcg, GFP_KERNEL, 100), 0);
	mcs_uncharge_pages(memcg, 1);
	mcs_obj_uncharge(objcg, 100);
	KUNIT_EXPECT_EQ(test, mcs_stock_set_mode(mode == MCS_MODE_NONE ?
						 MCS_MODE_DECOUPLED : MCS_MODE_NONE), 0);
	/* only the objcg's own leftover can remain */
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg),
			(unsigned long)atomic_long_read(&memcg->objcg_pages));
	KUNIT_EXPECT_EQ(test, refcount_read(&memcg->refcnt), 1U);
	KUNIT_EXPECT_EQ(test, mcs_stock_set_mode(NR_MCS_MODES), -EINVAL);
}

static struct kunit_case mode_cases[] = {
	KUNIT_CASE_PARAM(mode_switch_drains, mode_gen_params),
	KUNIT_CASE_PARAM(mode_all_contexts_exact, mode_gen_params),
	{}
};

static struct kunit_suite mode_suite = {
	.name = "mcs_stock_modes",
	.init = mcs_test_leak_check_init,
	.test_cases = mode_cases,
};

kunit_test_suite(mode_suite);
