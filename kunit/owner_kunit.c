// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the exclusion of stock mode "decoupled-owner"
 * (stock_owner.h), tested as a protocol: a holder that is preempted (a
 * drain, on PREEMPT_RT) sends every other user of its CPU's stock to the
 * fallback, charges kept exact; a drain waits for a holder; a hard
 * interrupt that finds the stock held falls back (and on PREEMPT_RT never
 * uses the stock); a section checks the mode and refuses a stock whose
 * local_trylock_t is held.  The
 * dead-CPU drain and the mode switch fence of this mode are cases of the
 * mode suite, the NMI cases of the NMI suite.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/irq_work.h>
#include <linux/kthread.h>
#include <linux/mm.h>

#include "mcs_kunit.h"

enum owner_stock { OWNER_MEMCG_STOCK, OWNER_OBJ_STOCK };

static const enum owner_stock owner_stocks[] = { OWNER_MEMCG_STOCK, OWNER_OBJ_STOCK };

static void owner_stock_desc(const enum owner_stock *s, char *desc)
{
	strscpy(desc, *s == OWNER_MEMCG_STOCK ? "memcg-stock" : "obj-stock",
		KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(owner_stock, owner_stocks, owner_stock_desc);

/* Take @s with local_lock(), as a drain does: preemptible on PREEMPT_RT. */
static void owner_drain_lock(enum owner_stock s)
{
	if (s == OWNER_MEMCG_STOCK)
		local_lock(&mcs_memcg_stock.lock);
	else
		local_lock(&mcs_obj_stock.lock);
}

static void owner_drain_unlock(enum owner_stock s)
{
	if (s == OWNER_MEMCG_STOCK)
		local_unlock(&mcs_memcg_stock.lock);
	else
		local_unlock(&mcs_obj_stock.lock);
}

/* pages in @memcg's slot of @cpu's memcg stock, -1 for no slot */
static int memcg_slot_pages(int cpu, struct mcs_memcg *memcg)
{
	struct mcs_memcg_stock *stock = per_cpu_ptr(&mcs_memcg_stock, cpu);
	int i;

	for (i = 0; i < NR_MEMCG_STOCK; i++)
		if (READ_ONCE(stock->cached[i]) == memcg)
			return READ_ONCE(stock->nr_pages[i]);
	return -1;
}

/* bytes in @objcg's slot of @cpu's obj stock, -1 for no slot */
static int obj_slot_bytes(int cpu, struct mcs_objcg *objcg)
{
	struct mcs_obj_stock *stock = per_cpu_ptr(&mcs_obj_stock, cpu);
	int i;

	for (i = 0; i < NR_OBJ_STOCK; i++)
		if (READ_ONCE(stock->cached[i]) == objcg)
			return READ_ONCE(stock->nr_bytes[i]);
	return -1;
}

static unsigned long trylock_fails(struct mcs_memcg *memcg)
{
	struct mcs_memcg_stat st;

	mcs_memcg_stat(memcg, &st);
	return st.events[MCS_TRYLOCK_FAIL];
}

struct owner_case {
	struct mcs_memcg *memcg;
	struct mcs_objcg *objcg;
	int cpu;
	/* what the other task saw between its charge and its uncharge */
	unsigned long usage_charged;
	unsigned int leftover_charged;
	int slot_charged;
	int page_ret, obj_ret;
	struct completion done;
};

/*
 * The stocks of @c->cpu cache a page of bytes and the rest of a batch of
 * pages (the page of bytes came from the batch).
 */
static void owner_fill(struct kunit *test, struct owner_case *c)
{
	KUNIT_ASSERT_EQ(test, mcs_charge_pages(c->memcg, GFP_KERNEL, 1), 0);
	mcs_uncharge_pages(c->memcg, 1);
	KUNIT_ASSERT_EQ(test, mcs_obj_charge(c->objcg, GFP_KERNEL, 100), 0);
	mcs_obj_uncharge(c->objcg, 100);
	KUNIT_ASSERT_EQ(test, memcg_slot_pages(c->cpu, c->memcg), (int)MCS_CHARGE_BATCH - 1);
	KUNIT_ASSERT_EQ(test, obj_slot_bytes(c->cpu, c->objcg), (int)PAGE_SIZE);
	KUNIT_ASSERT_EQ(test, mcs_memcg_usage(c->memcg), (unsigned long)MCS_CHARGE_BATCH);
}

/* Another task on the holder's CPU: 2 pages, then 200 bytes. */
static int owner_other_fn(void *arg)
{
	struct owner_case *c = arg;

	c->page_ret = mcs_charge_pages(c->memcg, GFP_KERNEL, 2);
	if (!c->page_ret) {
		c->usage_charged = mcs_memcg_usage(c->memcg);
		c->slot_charged = memcg_slot_pages(c->cpu, c->memcg);
		mcs_uncharge_pages(c->memcg, 2);
	}
	c->obj_ret = mcs_obj_charge(c->objcg, GFP_KERNEL, 200);
	if (!c->obj_ret) {
		c->leftover_charged = mcs_objcg_leftover_bytes(c->objcg);
		mcs_obj_uncharge(c->objcg, 200);
	}
	complete(&c->done);
	return 0;
}

static struct owner_case *owner_setup(struct kunit *test)
{
	struct owner_case *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	mcs_test_use_mode(test, MCS_MODE_DECOUPLED_OWNER);
	c->memcg = mcs_test_memcg(test, NULL);
	c->objcg = mcs_test_objcg(test, c->memcg);
	init_completion(&c->done);
	return c;
}

/*
 * The one holder of a stock that can be preempted is a drain on
 * PREEMPT_RT, inside local_lock() (a spinlock_t there): a task that runs
 * on its CPU meanwhile, here a SCHED_FIFO one that preempts the holder as
 * soon as it wakes, finds the stock busy and charges the counters, and
 * uncharges there, exactly.  Were the sections blind to the lock, it
 * would be served from the stock under the drain.
 */
static void owner_preempted_holder_falls_back(struct kunit *test)
{
	enum owner_stock held = *(const enum owner_stock *)test->param_value;
	struct owner_case *c;
	unsigned long usage, fails;
	struct task_struct *t;
	int i, slot_pages, slot_bytes;
	bool done;

	if (!IS_ENABLED(CONFIG_PREEMPT_RT))
		kunit_skip(test, "!PREEMPT_RT: no holder is ever preempted");
	c = owner_setup(test);
	t = kthread_create(owner_other_fn, c, "mcs_owner_other");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	sched_set_fifo(t);

	migrate_disable();
	c->cpu = smp_processor_id();
	kthread_bind(t, c->cpu);
	owner_fill(test, c);
	usage = mcs_memcg_usage(c->memcg);
	fails = trylock_fails(c->memcg);

	owner_drain_lock(held);
	/* preempted right here until the FIFO task is done */
	wake_up_process(t);
	for (i = 0; i < 100000 && !completion_done(&c->done); i++)
		ndelay(10000);
	done = completion_done(&c->done);
	slot_pages = memcg_slot_pages(c->cpu, c->memcg);
	slot_bytes = obj_slot_bytes(c->cpu, c->objcg);
	owner_drain_unlock(held);
	migrate_enable();
	wait_for_completion(&c->done);

	KUNIT_EXPECT_TRUE(test, done);
	KUNIT_EXPECT_EQ(test, c->page_ret, 0);
	KUNIT_EXPECT_EQ(test, c->obj_ret, 0);
	KUNIT_EXPECT_GT(test, trylock_fails(c->memcg), fails);
	if (held == OWNER_MEMCG_STOCK) {
		/* the 2 pages came from the counters, the stock kept its pages */
		KUNIT_EXPECT_EQ(test, c->usage_charged, usage + 2);
		KUNIT_EXPECT_EQ(test, c->slot_charged, (int)MCS_CHARGE_BATCH - 1);
		KUNIT_EXPECT_EQ(test, slot_pages, (int)MCS_CHARGE_BATCH - 1);
		/* and went back there */
		KUNIT_EXPECT_EQ(test, mcs_memcg_usage(c->memcg), usage);
	} else {
		/* the 200 bytes came from a new page, its rest went to the leftover */
		KUNIT_EXPECT_EQ(test, c->leftover_charged, (unsigned int)(PAGE_SIZE - 200));
		KUNIT_EXPECT_EQ(test, slot_bytes, (int)PAGE_SIZE);
		/* and their uncharge made the leftover a page, back to the counters */
		KUNIT_EXPECT_EQ(test, mcs_memcg_usage(c->memcg), usage - 1);
	}
	KUNIT_EXPECT_EQ(test, mcs_objcg_leftover_bytes(c->objcg), 0U);
	mcs_drain_all_stock(mcs_root_memcg(), true);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(c->memcg), 0UL);
	KUNIT_EXPECT_EQ(test, memcg_slot_pages(c->cpu, c->memcg), -1);
	KUNIT_EXPECT_EQ(test, obj_slot_bytes(c->cpu, c->objcg), -1);
}

struct owner_holder {
	struct owner_case *c;
	enum owner_stock held;
	bool holding, release;
	struct completion released;
};

/* On the stock's CPU: fill it, hold it as a drain does, spin until told. */
static int owner_holder_fn(void *arg)
{
	struct owner_holder *h = arg;
	struct owner_case *c = h->c;
	int i;

	if (!mcs_charge_pages(c->memcg, GFP_KERNEL, 1))
		mcs_uncharge_pages(c->memcg, 1);
	if (!mcs_obj_charge(c->objcg, GFP_KERNEL, 100))
		mcs_obj_uncharge(c->objcg, 100);
	owner_drain_lock(h->held);
	WRITE_ONCE(h->holding, true);
	/* preemptible on PREEMPT_RT: the drain work gets this CPU meanwhile */
	for (i = 0; i < 2000000 && !READ_ONCE(h->release); i++)
		ndelay(1000);
	owner_drain_unlock(h->held);
	complete(&h->released);
	return 0;
}

static int owner_drain_fn(void *arg)
{
	struct owner_case *c = arg;

	mcs_drain_all_stock(mcs_root_memcg(), true);
	complete(&c->done);
	return 0;
}

/*
 * A synchronous drain waits for a preempted holder of a stock it must
 * drain (another drain), and drains once it is released.  Were the drain
 * blind to the holder, it would empty the stock under it.
 */
static void owner_drain_waits_for_holder(struct kunit *test)
{
	enum owner_stock held = *(const enum owner_stock *)test->param_value;
	struct owner_holder *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);
	struct owner_case *c;
	struct task_struct *t, *d;
	bool done_while_held;
	int i, slot;

	KUNIT_ASSERT_NOT_NULL(test, h);
	if (!IS_ENABLED(CONFIG_PREEMPT_RT))
		kunit_skip(test, "!PREEMPT_RT: a drain never meets a holder");
	c = owner_setup(test);
	h->c = c;
	h->held = held;
	init_completion(&h->released);
	c->cpu = cpumask_last(cpu_online_mask);
	t = kthread_create_on_cpu(owner_holder_fn, h, c->cpu, "mcs_owner_hold/%u");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	wake_up_process(t);
	for (i = 0; i < 1000 && !READ_ONCE(h->holding); i++)
		usleep_range(1000, 2000);
	KUNIT_ASSERT_TRUE(test, READ_ONCE(h->holding));

	d = kthread_run(owner_drain_fn, c, "mcs_owner_drain");
	if (IS_ERR(d)) {
		WRITE_ONCE(h->release, true);
		wait_for_completion(&h->released);
		KUNIT_FAIL(test, "kthread_run: %ld", PTR_ERR(d));
		return;
	}
	msleep(100);
	done_while_held = completion_done(&c->done);
	slot = held == OWNER_MEMCG_STOCK ? memcg_slot_pages(c->cpu, c->memcg) :
					   obj_slot_bytes(c->cpu, c->objcg);
	WRITE_ONCE(h->release, true);
	wait_for_completion(&h->released);
	wait_for_completion(&c->done);

	KUNIT_EXPECT_FALSE(test, done_while_held);
	KUNIT_EXPECT_EQ(test, slot, held == OWNER_MEMCG_STOCK ? (int)MCS_CHARGE_BATCH - 1 :
								 (int)PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, memcg_slot_pages(c->cpu, c->memcg), -1);
	KUNIT_EXPECT_EQ(test, obj_slot_bytes(c->cpu, c->objcg), -1);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(c->memcg), 0UL);
}

struct owner_irq {
	struct irq_work work;
	struct owner_case *c;
	unsigned long usage_charged;
	bool in_hardirq;
	int page_ret;
	bool done;
};

static void owner_irq_fn(struct irq_work *work)
{
	struct owner_irq *w = container_of(work, struct owner_irq, work);

	w->in_hardirq = in_hardirq();
	w->page_ret = mcs_charge_pages(w->c->memcg, GFP_ATOMIC, 2);
	if (!w->page_ret) {
		w->usage_charged = mcs_memcg_usage(w->c->memcg);
		mcs_uncharge_pages(w->c->memcg, 2);
	}
	WRITE_ONCE(w->done, true);
}

/* Run @work in hard interrupt context on this CPU; wait for it to set @done. */
static bool owner_irq_run(struct irq_work *work, bool *done)
{
	int i;

	WRITE_ONCE(*done, false);
	irq_work_queue(work);
	for (i = 0; i < 100000 && !READ_ONCE(*done); i++)
		ndelay(10000);
	return READ_ONCE(*done);
}

static bool owner_irq_here(struct owner_irq *w)
{
	return owner_irq_run(&w->work, &w->done);
}

/*
 * A hard interrupt that finds the memcg stock held (it interrupted a
 * section) charges the counters; on PREEMPT_RT it does so even when the
 * stock is free, as with local_trylock_t there.
 */
static void owner_hardirq_falls_back(struct kunit *test)
{
	struct owner_case *c = owner_setup(test);
	struct owner_irq *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	bool held, delivered_held = false, delivered_free;
	unsigned long usage, usage_held = 0, usage_free;

	KUNIT_ASSERT_NOT_NULL(test, w);
	w->c = c;
	w->work = IRQ_WORK_INIT_HARD(owner_irq_fn);

	migrate_disable();
	c->cpu = smp_processor_id();
	owner_fill(test, c);
	usage = mcs_memcg_usage(c->memcg);
	held = mcs_owner_test_trylock(false);
	if (held) {
		delivered_held = owner_irq_here(w);
		usage_held = w->usage_charged;
		mcs_owner_test_unlock(false);
	}
	delivered_free = owner_irq_here(w);
	usage_free = w->usage_charged;
	migrate_enable();
	irq_work_sync(&w->work);

	KUNIT_ASSERT_TRUE(test, held);
	KUNIT_ASSERT_TRUE(test, delivered_held);
	KUNIT_ASSERT_TRUE(test, delivered_free);
	KUNIT_EXPECT_TRUE(test, w->in_hardirq);
	KUNIT_EXPECT_EQ(test, w->page_ret, 0);
	KUNIT_EXPECT_EQ(test, usage_held, usage + 2);
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		KUNIT_EXPECT_EQ(test, usage_free, usage + 2);
	else
		KUNIT_EXPECT_EQ(test, usage_free, usage);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(c->memcg), usage);
	KUNIT_EXPECT_EQ(test, memcg_slot_pages(c->cpu, c->memcg), (int)MCS_CHARGE_BATCH - 1);
}

/*
 * A section checks the mode with the byte set: in another mode it is
 * refused and leaves the byte clear; and it refuses a stock whose
 * local_trylock_t is held (a "decoupled" consume that read the mode before
 * a switch).
 */
static void owner_section_checks_mode_and_lock(struct kunit *test)
{
	bool in_decoupled, with_lock_held, in_owner, byte_after;

	mcs_test_use_mode(test, MCS_MODE_DECOUPLED);
	preempt_disable();
	in_decoupled = mcs_owner_test_trylock(false);
	if (in_decoupled)
		mcs_owner_test_unlock(false);
	byte_after = IS_ENABLED(CONFIG_PREEMPT_RT) ? __this_cpu_read(mcs_memcg_stock.owner) :
						     mcs_local_trylock_held(&mcs_memcg_stock.lock);
	preempt_enable();
	KUNIT_EXPECT_FALSE(test, in_decoupled);
	KUNIT_EXPECT_FALSE(test, byte_after);

	KUNIT_ASSERT_EQ(test, mcs_stock_set_mode(MCS_MODE_DECOUPLED_OWNER), 0);
	migrate_disable();
	with_lock_held = true;
	if (local_trylock(&mcs_obj_stock.lock)) {
		with_lock_held = mcs_owner_test_trylock(true);
		if (with_lock_held)
			mcs_owner_test_unlock(true);
		local_unlock(&mcs_obj_stock.lock);
	}
	in_owner = mcs_owner_test_trylock(true);
	if (in_owner)
		mcs_owner_test_unlock(true);
	migrate_enable();
	KUNIT_EXPECT_FALSE(test, with_lock_held);
	KUNIT_EXPECT_TRUE(test, in_owner);
}

/* One take of a "decoupled" stock, its mode a constant, in hard interrupt context. */
struct owner_stale {
	struct irq_work work;
	enum mcs_stock_mode mode;
	struct mcs_memcg *memcg;
	struct mcs_objcg *objcg;	/* NULL: a page of @memcg */
	enum mcs_stock_answer answer;
	bool done;
};

static void owner_stale_fn(struct irq_work *work)
{
	struct owner_stale *w = container_of(work, struct owner_stale, work);

	w->answer = mcs_decoupled_test_take(w->mode, w->memcg, w->objcg);
	WRITE_ONCE(w->done, true);
}

/* Give back what a take that hit took, in the caller's task. */
static void owner_stale_give_back(struct owner_stale *w)
{
	if (w->answer != MCS_TAKE_HIT)
		return;
	if (w->objcg)
		mcs_obj_uncharge(w->objcg, 1);
	else
		mcs_uncharge_pages(w->memcg, 1);
}

/*
 * The bench's timer and NMI load call a mode's own entry functions with
 * the mode as a constant: a "decoupled" take checks no mode, and no grace
 * period covers it.  One that interrupts a section of "decoupled-owner"
 * on the same stock must find it busy (the section marks the stock's
 * local_trylock_t on !PREEMPT_RT); were it served, both would change the
 * slot at once, a charge lost or doubled.  Once the section is left, the
 * same take is served on !PREEMPT_RT, and busy on PREEMPT_RT (no hardirq
 * take there).
 */
static void owner_section_excludes_stale_takes(struct kunit *test)
{
	static const struct {
		enum mcs_stock_mode mode;
		bool obj;
	} takes[] = {
		{ MCS_MODE_DECOUPLED, false },
		{ MCS_MODE_DECOUPLED_73, false },
		{ MCS_MODE_DECOUPLED, true },
	};
	enum mcs_stock_answer held[ARRAY_SIZE(takes)], freed[ARRAY_SIZE(takes)];
	bool entered[ARRAY_SIZE(takes)], ran_held[ARRAY_SIZE(takes)];
	bool ran_freed[ARRAY_SIZE(takes)];
	struct owner_case *c = owner_setup(test);
	struct owner_stale *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	unsigned long usage;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, w);
	w->work = IRQ_WORK_INIT_HARD(owner_stale_fn);
	w->memcg = c->memcg;
	migrate_disable();
	c->cpu = smp_processor_id();
	owner_fill(test, c);
	usage = mcs_memcg_usage(c->memcg);
	for (i = 0; i < ARRAY_SIZE(takes); i++) {
		w->mode = takes[i].mode;
		w->objcg = takes[i].obj ? c->objcg : NULL;
		held[i] = MCS_TAKE_NOT_ASKED;
		ran_held[i] = false;
		entered[i] = mcs_owner_test_trylock(takes[i].obj);
		if (entered[i]) {
			ran_held[i] = owner_irq_run(&w->work, &w->done);
			held[i] = w->answer;
			mcs_owner_test_unlock(takes[i].obj);
			owner_stale_give_back(w);
		}
		ran_freed[i] = owner_irq_run(&w->work, &w->done);
		freed[i] = w->answer;
		owner_stale_give_back(w);
	}
	migrate_enable();
	irq_work_sync(&w->work);

	for (i = 0; i < ARRAY_SIZE(takes); i++) {
		const char *what = takes[i].obj ? "bytes" : "pages";

		KUNIT_ASSERT_TRUE_MSG(test, entered[i], "take %d (%s)", i, what);
		KUNIT_ASSERT_TRUE(test, ran_held[i]);
		KUNIT_ASSERT_TRUE(test, ran_freed[i]);
		KUNIT_EXPECT_EQ_MSG(test, held[i], MCS_TAKE_BUSY, "mode %s %s in a section",
				    mcs_stock_mode_name(takes[i].mode), what);
		KUNIT_EXPECT_EQ_MSG(test, freed[i],
				    IS_ENABLED(CONFIG_PREEMPT_RT) ? MCS_TAKE_BUSY : MCS_TAKE_HIT,
				    "mode %s %s after the section",
				    mcs_stock_mode_name(takes[i].mode), what);
	}
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(c->memcg), usage);
	KUNIT_EXPECT_EQ(test, memcg_slot_pages(c->cpu, c->memcg), (int)MCS_CHARGE_BATCH - 1);
}

static struct task_struct *owner_hook_task;

/* Once, in the test's task: the mode changes before the section is entered. */
static void owner_switch_before_section(enum mcs_test_hook where)
{
	if (where != MCS_HOOK_OWNER_ENTER || !in_task() || current != owner_hook_task)
		return;
	owner_hook_task = NULL;
	mcs_stock_test_mode_write(MCS_MODE_DECOUPLED);
}

/*
 * The contract of mcs_charge_pages(): a section of "decoupled-owner"
 * refused because the mode changed between the operation's read of it and
 * the section is counted as a trylock failure, and the charge still
 * succeeds, through the counters.
 */
static void owner_refused_by_mode_counts_trylock_fail(struct kunit *test)
{
	struct mcs_memcg *memcg;
	unsigned long fails;
	int ret;

	mcs_test_use_mode(test, MCS_MODE_DECOUPLED_OWNER);
	memcg = mcs_test_memcg(test, NULL);
	fails = trylock_fails(memcg);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, mcs_test_hook_clear, NULL), 0);
	owner_hook_task = current;
	mcs_test_hook_set(owner_switch_before_section);
	migrate_disable();
	ret = mcs_charge_pages(memcg, GFP_KERNEL, 1);
	migrate_enable();
	mcs_test_hook_set(NULL);
	KUNIT_EXPECT_PTR_EQ(test, owner_hook_task, (struct task_struct *)NULL);
	KUNIT_EXPECT_EQ(test, ret, 0);
	/* the refused take, and the put of the batch's surplus, refused alike */
	KUNIT_EXPECT_EQ(test, trylock_fails(memcg), fails + 2);
	if (!ret)
		mcs_uncharge_pages(memcg, 1);
}

static struct kunit_case owner_cases[] = {
	KUNIT_CASE_PARAM(owner_preempted_holder_falls_back, owner_stock_gen_params),
	KUNIT_CASE_PARAM(owner_drain_waits_for_holder, owner_stock_gen_params),
	KUNIT_CASE(owner_hardirq_falls_back),
	KUNIT_CASE(owner_section_checks_mode_and_lock),
	KUNIT_CASE(owner_section_excludes_stale_takes),
	KUNIT_CASE(owner_refused_by_mode_counts_trylock_fail),
	{}
};

static struct kunit_suite owner_suite = {
	.name = "mcs_owner",
	.init = mcs_test_leak_check_init,
	.test_cases = owner_cases,
};

/* ---- switches under load ------------------------------------------------- */

#define SWITCH_MEMCGS	(2 * NR_MEMCG_STOCK)
#define SWITCH_THREADS	16
#define SWITCH_ROUNDS	20

struct owner_switch {
	struct mcs_memcg *memcg[SWITCH_MEMCGS];
	struct mcs_objcg *objcg[SWITCH_MEMCGS];
	atomic_long_t ops;
	atomic_long_t errors;
};

/* Pages and bytes through the exported entries, over more memcgs than slots. */
static int owner_switch_fn(void *arg)
{
	struct owner_switch *sw = arg;
	u32 seed = smp_processor_id() * 7919 + 1;
	long ops = 0;

	while (!kthread_should_stop()) {
		unsigned int i = mcs_load_next(&seed) % SWITCH_MEMCGS;
		unsigned int nr = 1 + mcs_load_next(&seed) % MCS_CHARGE_BATCH;
		unsigned int size = 1 + mcs_load_next(&seed) % (2 * PAGE_SIZE);

		if (mcs_charge_pages(sw->memcg[i], GFP_KERNEL, nr))
			atomic_long_inc(&sw->errors);
		else
			mcs_uncharge_pages(sw->memcg[i], nr);
		if (mcs_obj_charge(sw->objcg[i], GFP_KERNEL, size))
			atomic_long_inc(&sw->errors);
		else
			mcs_obj_uncharge(sw->objcg[i], size);
		if (!(++ops & 63))
			cond_resched();
	}
	atomic_long_add(ops, &sw->ops);
	return 0;
}

/*
 * Switches between "decoupled-owner" and the mode found ("decoupled" or
 * "decoupled-7.3", else "decoupled") while tasks charge through the
 * exported entries, so that sections of "decoupled-owner" run on every
 * CPU.  Run alone it checks the switches; run beside the bench's timer
 * and NMI load in mode "decoupled" or "decoupled-7.3" (selftest
 * bench_switch), whose entries take those stocks with the mode as a
 * constant, it checks that no such take enters a section: every charge of
 * its memcgs comes back, and no page counter underflows.  No leak check
 * of the module's totals: the bench's memcgs live beside these.
 */
static void owner_switch_under_load(struct kunit *test)
{
	enum mcs_stock_mode back = mcs_stock_get_mode(), other = back;
	struct task_struct **t = kunit_kcalloc(test, SWITCH_THREADS, sizeof(*t), GFP_KERNEL);
	struct owner_switch *sw = kunit_kzalloc(test, sizeof(*sw), GFP_KERNEL);
	long underflows = mcs_page_counter_underflows();
	int i, n;

	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_NOT_NULL(test, sw);
	if (other != MCS_MODE_DECOUPLED && other != MCS_MODE_DECOUPLED_73)
		other = MCS_MODE_DECOUPLED;
	for (i = 0; i < SWITCH_MEMCGS; i++) {
		sw->memcg[i] = mcs_test_memcg(test, NULL);
		sw->objcg[i] = mcs_test_objcg(test, sw->memcg[i]);
	}
	n = mcs_test_kthreads(test, owner_switch_fn, sw, 2, t, SWITCH_THREADS,
			      "mcs_owner_switch");
	for (i = 0; i < SWITCH_ROUNDS; i++) {
		KUNIT_EXPECT_EQ(test, mcs_stock_set_bench_mode(i & 1 ? other :
								 MCS_MODE_DECOUPLED_OWNER), 0);
		msleep(50);
	}
	for (i = 0; i < n; i++)
		kthread_stop(t[i]);
	KUNIT_EXPECT_EQ(test, mcs_stock_set_bench_mode(back), 0);
	mcs_drain_all_stock(mcs_root_memcg(), true);

	KUNIT_EXPECT_GT(test, atomic_long_read(&sw->ops), 0L);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&sw->errors), 0L);
	for (i = 0; i < SWITCH_MEMCGS; i++) {
		KUNIT_EXPECT_EQ_MSG(test, mcs_memcg_usage(sw->memcg[i]), 0UL, "memcg %d", i);
		KUNIT_EXPECT_EQ_MSG(test, mcs_objcg_leftover_bytes(sw->objcg[i]), 0U,
				    "objcg %d", i);
	}
	KUNIT_EXPECT_EQ(test, mcs_page_counter_underflows(), underflows);
}

static struct kunit_case owner_switch_cases[] = {
	KUNIT_CASE_SLOW(owner_switch_under_load),
	{}
};

static struct kunit_suite owner_switch_suite = {
	.name = "mcs_owner_switch",
	.test_cases = owner_switch_cases,
};

kunit_test_suites(&owner_suite, &owner_switch_suite);
