// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the hierarchical page counter: one rule per case.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/kthread.h>
#include <linux/random.h>

#include "memcg_stock.h"

/* A three-level chain: root <- mid <- leaf. */
struct pc_chain {
	struct mcs_page_counter root, mid, leaf;
};

static void pc_chain_init(struct pc_chain *c)
{
	mcs_page_counter_init(&c->root, NULL);
	mcs_page_counter_init(&c->mid, &c->root);
	mcs_page_counter_init(&c->leaf, &c->mid);
}

#define EXPECT_USAGE(test, c, l, m, r)					\
	do {								\
		struct kunit *__t = (test);				\
		struct pc_chain *__c = (c);				\
									\
		KUNIT_EXPECT_EQ(__t, mcs_page_counter_read(&__c->leaf), (unsigned long)(l)); \
		KUNIT_EXPECT_EQ(__t, mcs_page_counter_read(&__c->mid), (unsigned long)(m)); \
		KUNIT_EXPECT_EQ(__t, mcs_page_counter_read(&__c->root), (unsigned long)(r)); \
	} while (0)

static void pc_charge_ignores_limits(struct kunit *test)
{
	struct pc_chain c;

	pc_chain_init(&c);
	KUNIT_ASSERT_EQ(test, mcs_page_counter_set_max(&c.leaf, 2), 0);
	KUNIT_ASSERT_EQ(test, mcs_page_counter_set_max(&c.root, 3), 0);
	mcs_page_counter_charge(&c.leaf, 10);
	EXPECT_USAGE(test, &c, 10, 10, 10);
	KUNIT_EXPECT_EQ(test, c.leaf.watermark, 10UL);
	KUNIT_EXPECT_EQ(test, c.root.watermark, 10UL);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&c.leaf.failcnt), 0L);
	mcs_page_counter_uncharge(&c.leaf, 10);
	EXPECT_USAGE(test, &c, 0, 0, 0);
}

static void pc_try_charge_within_limits(struct kunit *test)
{
	struct mcs_page_counter *fail = NULL;
	struct pc_chain c;

	pc_chain_init(&c);
	KUNIT_ASSERT_EQ(test, mcs_page_counter_set_max(&c.leaf, 8), 0);
	KUNIT_EXPECT_TRUE(test, mcs_page_counter_try_charge(&c.leaf, 8, &fail));
	KUNIT_EXPECT_NULL(test, fail);
	EXPECT_USAGE(test, &c, 8, 8, 8);
	KUNIT_EXPECT_EQ(test, c.mid.watermark, 8UL);
	mcs_page_counter_uncharge(&c.leaf, 5);
	EXPECT_USAGE(test, &c, 3, 3, 3);
	/* the watermark keeps the peak */
	KUNIT_EXPECT_EQ(test, c.leaf.watermark, 8UL);
	mcs_page_counter_uncharge(&c.leaf, 3);
}

/* Which level refuses: 0 leaf, 1 mid, 2 root. */
struct pc_refusal_case {
	int level;
	const char *name;
};

static const struct pc_refusal_case pc_refusal_cases[] = {
	{ 0, "leaf refuses" },
	{ 1, "middle refuses" },
	{ 2, "root refuses" },
};

static void pc_refusal_desc(const struct pc_refusal_case *p, char *desc)
{
	strscpy(desc, p->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(pc_refusal, pc_refusal_cases, pc_refusal_desc);

static void pc_try_charge_refused_rolls_back(struct kunit *test)
{
	const struct pc_refusal_case *p = test->param_value;
	struct pc_chain c;
	struct mcs_page_counter *levels[3], *fail = NULL;
	int i;

	pc_chain_init(&c);
	levels[0] = &c.leaf;
	levels[1] = &c.mid;
	levels[2] = &c.root;
	/* 4 pages already charged, the refusing level allows 6 */
	mcs_page_counter_charge(&c.leaf, 4);
	KUNIT_ASSERT_EQ(test, mcs_page_counter_set_max(levels[p->level], 6), 0);

	KUNIT_EXPECT_FALSE(test, mcs_page_counter_try_charge(&c.leaf, 3, &fail));
	KUNIT_EXPECT_PTR_EQ(test, fail, levels[p->level]);
	EXPECT_USAGE(test, &c, 4, 4, 4);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, atomic_long_read(&levels[i]->failcnt),
				i == p->level ? 1L : 0L);
	/* a charge that fits still goes through afterwards */
	KUNIT_EXPECT_TRUE(test, mcs_page_counter_try_charge(&c.leaf, 2, &fail));
	EXPECT_USAGE(test, &c, 6, 6, 6);
	mcs_page_counter_uncharge(&c.leaf, 6);
}

static void pc_uncharge_underflow_clamps(struct kunit *test)
{
	long before = mcs_page_counter_underflows();
	struct pc_chain c;

	pc_chain_init(&c);
	mcs_page_counter_charge(&c.mid, 2);	/* mid and root hold 2 */
	mcs_page_counter_charge(&c.leaf, 1);
	mcs_page_counter_uncharge(&c.leaf, 2);	/* leaf underflows by 1 */
	EXPECT_USAGE(test, &c, 0, 1, 1);
	KUNIT_EXPECT_EQ(test, mcs_page_counter_underflows(), before + 1);
	mcs_page_counter_uncharge(&c.mid, 5);	/* mid and root underflow */
	EXPECT_USAGE(test, &c, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, mcs_page_counter_underflows(), before + 3);
}

static void pc_set_max_below_usage_busy(struct kunit *test)
{
	struct pc_chain c;

	pc_chain_init(&c);
	mcs_page_counter_charge(&c.leaf, 5);
	KUNIT_EXPECT_EQ(test, mcs_page_counter_set_max(&c.mid, 4), -EBUSY);
	KUNIT_EXPECT_EQ(test, c.mid.max, (unsigned long)MCS_PAGE_COUNTER_MAX);
	KUNIT_EXPECT_EQ(test, mcs_page_counter_set_max(&c.mid, 5), 0);
	KUNIT_EXPECT_EQ(test, c.mid.max, 5UL);
	mcs_page_counter_uncharge(&c.leaf, 5);
	KUNIT_EXPECT_EQ(test, mcs_page_counter_set_max(&c.mid, 0), 0);
}

/* One kthread per online CPU charging and uncharging the same chain. */
struct pc_stress {
	struct pc_chain c;
	atomic_t running;
	struct completion done;
	unsigned long refused[NR_CPUS];
};

static int pc_stress_fn(void *arg)
{
	struct pc_stress *s = arg;
	int cpu = raw_smp_processor_id();
	int i;

	for (i = 0; i < 20000; i++) {
		unsigned int n = 1 + get_random_u32_below(16);
		struct mcs_page_counter *fail;

		if (i & 1) {
			mcs_page_counter_charge(&s->c.leaf, n);
			mcs_page_counter_uncharge(&s->c.leaf, n);
		} else if (mcs_page_counter_try_charge(&s->c.leaf, n, &fail)) {
			mcs_page_counter_uncharge(&s->c.leaf, n);
		} else {
			s->refused[cpu]++;
		}
		if (!(i % 512))
			cond_resched();
	}
	if (atomic_dec_and_test(&s->running))
		complete(&s->done);
	return 0;
}

static void pc_concurrent_ends_at_zero(struct kunit *test)
{
	long before = mcs_page_counter_underflows();
	struct pc_stress *s;
	int cpu;

	s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	pc_chain_init(&s->c);
	/* tight enough that try_charge is refused now and then */
	KUNIT_ASSERT_EQ(test, mcs_page_counter_set_max(&s->c.mid, 24), 0);
	init_completion(&s->done);

	/* one guard reference so that done cannot complete early */
	atomic_set(&s->running, 1);
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct task_struct *t;

		t = kthread_create_on_cpu(pc_stress_fn, s, cpu, "mcs_pc/%u");
		if (IS_ERR(t)) {
			KUNIT_FAIL(test, "kthread on cpu %d: %ld", cpu, PTR_ERR(t));
			continue;
		}
		atomic_inc(&s->running);
		wake_up_process(t);
	}
	cpus_read_unlock();
	if (!atomic_dec_and_test(&s->running))
		wait_for_completion(&s->done);

	EXPECT_USAGE(test, &s->c, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, mcs_page_counter_underflows(), before);
	KUNIT_EXPECT_LE(test, s->c.mid.watermark, 24UL + 16 * num_online_cpus());
}

static struct kunit_case page_counter_cases[] = {
	KUNIT_CASE(pc_charge_ignores_limits),
	KUNIT_CASE(pc_try_charge_within_limits),
	KUNIT_CASE_PARAM(pc_try_charge_refused_rolls_back, pc_refusal_gen_params),
	KUNIT_CASE(pc_uncharge_underflow_clamps),
	KUNIT_CASE(pc_set_max_below_usage_busy),
	KUNIT_CASE(pc_concurrent_ends_at_zero),
	{}
};

static struct kunit_suite page_counter_suite = {
	.name = "mcs_page_counter",
	.test_cases = page_counter_cases,
};

kunit_test_suite(page_counter_suite);
