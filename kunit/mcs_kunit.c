// SPDX-License-Identifier: GPL-2.0
/*
 * Shared KUnit helpers: released-by-action memcgs/objcgs, the per-case
 * leak check and the all-contexts load generator.
 */
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/random.h>

#include "objects/compat.h"
#include "mcs_kunit.h"

static void memcg_release_action(void *arg)
{
	struct mcs_memcg *memcg = arg;

	mcs_memcg_offline(memcg);
	mcs_memcg_put(memcg);
}

/* A memcg released (offline + put) when the case ends, pass or fail. */
struct mcs_memcg *mcs_test_memcg(struct kunit *test, struct mcs_memcg *parent)
{
	struct mcs_memcg *memcg = mcs_memcg_create(parent, test->name);

	KUNIT_ASSERT_FALSE(test, IS_ERR(memcg));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, memcg_release_action, memcg),
			0);
	return memcg;
}

static void objcg_put_action(void *arg)
{
	mcs_objcg_put(arg);
}

struct mcs_objcg *mcs_test_objcg(struct kunit *test, struct mcs_memcg *memcg)
{
	struct mcs_objcg *objcg = mcs_memcg_tryget_objcg(memcg);

	KUNIT_ASSERT_NOT_NULL(test, objcg);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, objcg_put_action, objcg), 0);
	return objcg;
}

/* The stock mode of a parameterised case, put back when the case ends. */
void mcs_test_mode_desc(const enum mcs_stock_mode *m, char *desc)
{
	strscpy(desc, mcs_stock_mode_name(*m), KUNIT_PARAM_DESC_SIZE);
}

/* every mode of the binding table, in its order */
static const enum mcs_stock_mode mcs_test_modes[] = {
	MCS_STOCK_DESIGNS(MCS_MODE_ENUM)
};

/*
 * The mode after @prev (NULL: the first) that mcs_stock_set_mode() takes
 * and @keep keeps, its name in @desc; NULL after the last
 * (mcs_kunit.h).
 */
const void *mcs_test_mode_next(const void *prev, char *desc,
			       bool (*keep)(enum mcs_stock_mode mode))
{
	const enum mcs_stock_mode *m = prev ? (const enum mcs_stock_mode *)prev + 1 :
					      mcs_test_modes;

	for (; m < mcs_test_modes + ARRAY_SIZE(mcs_test_modes); m++) {
		if (mcs_stock_mode_info(*m)->flags & MCS_MODE_CONTROL)
			continue;
		if (keep && !keep(*m))
			continue;
		mcs_test_mode_desc(m, desc);
		return m;
	}
	return NULL;
}

void mcs_test_restore_mode(void *unused)
{
	mcs_stock_set_mode(MCS_MODE_DECOUPLED);
}

void mcs_test_use_mode(struct kunit *test, enum mcs_stock_mode mode)
{
	KUNIT_ASSERT_EQ(test, mcs_stock_set_mode(mode), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, mcs_test_restore_mode, NULL), 0);
	KUNIT_ASSERT_EQ(test, mcs_stock_get_mode(), mode);
}

/* A case's action: no test hook once it ends, whatever it hit. */
void mcs_test_hook_clear(void *unused)
{
	mcs_test_hook_set(NULL);
}

struct leak_ctx {
	long underflows;
	long memcgs;
	long objcgs;
};

/*
 * Registered first, so it runs last, after the case's own cleanup actions:
 * everything the case created must be gone and nothing may have underflowed.
 */
static void leak_check(void *arg)
{
	struct kunit *test = arg;
	struct leak_ctx *ctx = test->priv;

	mcs_drain_all_stock(mcs_root_memcg(), true);
	mcs_wait_for_frees();
	KUNIT_EXPECT_EQ(test, mcs_page_counter_underflows(), ctx->underflows);
	KUNIT_EXPECT_EQ(test, mcs_memcg_nr_alive(), ctx->memcgs);
	KUNIT_EXPECT_EQ(test, mcs_objcg_nr_alive(), ctx->objcgs);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(mcs_root_memcg()), 0UL);
}

/* Suite init: start from empty stocks and check for leaks at the end. */
int mcs_test_leak_check_init(struct kunit *test)
{
	struct leak_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);

	if (!ctx)
		return -ENOMEM;
	mcs_drain_all_stock(mcs_root_memcg(), true);
	mcs_wait_for_frees();
	ctx->underflows = mcs_page_counter_underflows();
	ctx->memcgs = mcs_memcg_nr_alive();
	ctx->objcgs = mcs_objcg_nr_alive();
	test->priv = ctx;
	return kunit_add_action(test, leak_check, test);
}

/*
 * Start @per_cpu bound kthreads running @fn on every online CPU, at most
 * @max, into @t.  Returns how many started; the case fails below two.
 * The caller stops them with kthread_stop().
 */
int mcs_test_kthreads(struct kunit *test, int (*fn)(void *arg), void *arg,
		      unsigned int per_cpu, struct task_struct **t, unsigned int max,
		      const char *name)
{
	unsigned int i, n = 0;
	int cpu;

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		for (i = 0; i < per_cpu && n < max; i++) {
			t[n] = kthread_create_on_cpu(fn, arg, cpu, name);
			if (IS_ERR(t[n]))
				break;
			wake_up_process(t[n++]);
		}
	}
	cpus_read_unlock();
	KUNIT_EXPECT_GE(test, n, 2U);
	return n;
}

/* ---- load generator ----------------------------------------------------- */

struct load_cpu;

struct load {
	mcs_load_fn fn;
	void *arg;
	bool stop;
	atomic_long_t ops[NR_LOAD_CTX];
	atomic_long_t errors;
};

struct load_cpu {
	struct load *load;
	struct hrtimer hard, soft;
	struct task_struct *task;
	u32 seed_hard, seed_soft, seed_task;
};

static void load_step(struct load *load, u32 *seed, enum mcs_load_ctx ctx)
{
	if (load->fn(load->arg, seed, ctx))
		atomic_long_inc(&load->ops[ctx]);
	else
		atomic_long_inc(&load->errors);
}

static enum hrtimer_restart load_hardirq(struct hrtimer *t)
{
	struct load_cpu *c = container_of(t, struct load_cpu, hard);
	int i;

	if (READ_ONCE(c->load->stop))
		return HRTIMER_NORESTART;
	for (i = 0; i < 4; i++)
		load_step(c->load, &c->seed_hard, LOAD_HARDIRQ);
	hrtimer_forward_now(t, ns_to_ktime(30 * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

static enum hrtimer_restart load_softirq(struct hrtimer *t)
{
	struct load_cpu *c = container_of(t, struct load_cpu, soft);
	int i;

	if (READ_ONCE(c->load->stop))
		return HRTIMER_NORESTART;
	for (i = 0; i < 4; i++)
		load_step(c->load, &c->seed_soft, LOAD_SOFTIRQ);
	hrtimer_forward_now(t, ns_to_ktime(45 * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

static int load_task(void *arg)
{
	struct load_cpu *c = arg;
	unsigned long i = 0;

	/* armed from the bound kthread, so the timers fire on this CPU */
	hrtimer_start(&c->hard, ns_to_ktime(20 * NSEC_PER_USEC), HRTIMER_MODE_REL_PINNED_HARD);
	hrtimer_start(&c->soft, ns_to_ktime(25 * NSEC_PER_USEC), HRTIMER_MODE_REL_PINNED_SOFT);
	while (!kthread_should_stop()) {
		load_step(c->load, &c->seed_task, LOAD_TASK);
		if (!(++i % 64))
			cond_resched();
	}
	return 0;
}

/**
 * mcs_run_load() - run @fn from task, softirq and hardirq on every CPU
 * @test: the test
 * @fn: one unit of load
 * @arg: its argument
 * @duration_ms: how long
 * @midway: called once from the test thread halfway through, or NULL
 * @res: operation counts per context and error count
 */
void mcs_run_load(struct kunit *test, mcs_load_fn fn, void *arg,
		  unsigned int duration_ms, void (*midway)(void *arg),
		  struct mcs_load_result *res)
{
	struct load_cpu __percpu *pcpu;
	struct load *load;
	int cpu, i;

	load = kunit_kzalloc(test, sizeof(*load), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, load);
	pcpu = alloc_percpu(struct load_cpu);
	KUNIT_ASSERT_NOT_NULL(test, pcpu);
	load->fn = fn;
	load->arg = arg;

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct load_cpu *c = per_cpu_ptr(pcpu, cpu);

		c->load = load;
		c->seed_hard = get_random_u32();
		c->seed_soft = get_random_u32();
		c->seed_task = get_random_u32();
		mcs_hrtimer_setup(&c->hard, load_hardirq, CLOCK_MONOTONIC,
				  HRTIMER_MODE_REL_PINNED_HARD);
		mcs_hrtimer_setup(&c->soft, load_softirq, CLOCK_MONOTONIC,
				  HRTIMER_MODE_REL_PINNED_SOFT);
		c->task = kthread_create_on_cpu(load_task, c, cpu, "mcs_load/%u");
		if (IS_ERR(c->task)) {
			KUNIT_FAIL(test, "kthread on cpu %d: %ld", cpu, PTR_ERR(c->task));
			c->task = NULL;
			continue;
		}
		wake_up_process(c->task);
	}
	cpus_read_unlock();

	msleep(duration_ms / 2);
	if (midway)
		midway(arg);
	msleep(duration_ms - duration_ms / 2);

	WRITE_ONCE(load->stop, true);
	for_each_possible_cpu(cpu) {
		struct load_cpu *c = per_cpu_ptr(pcpu, cpu);

		if (!c->task)
			continue;
		kthread_stop(c->task);
		hrtimer_cancel(&c->hard);
		hrtimer_cancel(&c->soft);
	}
	free_percpu(pcpu);

	for (i = 0; i < NR_LOAD_CTX; i++)
		res->ops[i] = atomic_long_read(&load->ops[i]);
	res->errors = atomic_long_read(&load->errors);
	kunit_info(test, "ops task=%ld softirq=%ld hardirq=%ld errors=%ld",
		   res->ops[LOAD_TASK], res->ops[LOAD_SOFTIRQ], res->ops[LOAD_HARDIRQ],
		   res->errors);
}
