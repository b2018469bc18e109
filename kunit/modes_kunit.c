// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the stock modes: every mode of the binding table keeps
 * pages and bytes exact under load from every context, and a mode switch
 * leaves nothing cached.  The cases take the modes from the table
 * (mcs_test_mode_next()) and what to expect of each from its metadata:
 * a page stock or none, stocks in the memcgs or in per-CPU structs, the
 * kinds of stock it fills, batching.  A benchmark control (MCS_MODE_CONTROL,
 * "coupled-noirq") is refused by mcs_stock_set_mode(): it is in the fence
 * rotation only; the benchmark's own exactness check (bench_badinput)
 * covers it.
 */
#include <kunit/test.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/interrupt.h>
#include <linux/irq_work.h>
#include <linux/kthread.h>
#include <linux/mm.h>

#include "mcs_kunit.h"

/*
 * The modes whose stock lives in the memcgs: the memcg's per-CPU counts
 * (drain_memcg; "percpu-counter", "hahn-v4"), the only such stock.
 */
static bool mode_uses_counts(enum mcs_stock_mode mode)
{
	return mcs_test_mode_stock_in_memcgs(mode);
}

static MCS_KUNIT_GEN_PARAMS(mode_gen_params)
{
	return mcs_test_mode_next(prev, desc, NULL);
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

/* Refused by mcs_stock_set_mode(): no mode, and every benchmark control. */
static void expect_set_mode_refusals(struct kunit *test)
{
	int m;

	KUNIT_EXPECT_EQ(test, mcs_stock_set_mode(NR_MCS_MODES), -EINVAL);
	for (m = 0; m < NR_MCS_MODES; m++) {
		if (!(mcs_stock_mode_info(m)->flags & MCS_MODE_CONTROL))
			continue;
		KUNIT_EXPECT_EQ_MSG(test, mcs_stock_set_mode(m), -EINVAL, "control %s",
				    mcs_stock_mode_name(m));
		KUNIT_EXPECT_NE(test, mcs_stock_get_mode(), m);
	}
}

/*
 * A switch drains what the old mode cached.  A mode without a page stock
 * ("none") keeps the sub-page remainder of bytes on the objcg
 * ("objcg-atomic"), which is not drained by a switch and is not a page of
 * the memcg's.
 */
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
	if (!mcs_test_mode_has_page_stock(mode)) {
		/* no stock: no page stays charged, no reference is cached */
		KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 0UL);
		KUNIT_EXPECT_EQ(test, refcount_read(&memcg->refcnt), 1U);
		KUNIT_EXPECT_EQ(test, mcs_objcg_leftover_bytes(objcg), 0U);
	} else if (mode_uses_counts(mode)) {
		/* the counts beside the counter hold the batch, no reference */
		KUNIT_EXPECT_EQ(test, (long)mcs_memcg_usage(memcg), mcs_test_counter_pages(memcg));
		KUNIT_EXPECT_GT(test, mcs_memcg_usage(memcg), 1UL);
		KUNIT_EXPECT_EQ(test, refcount_read(&memcg->refcnt), 1U);
	} else {
		/* the old mode's stocks cache the batch and the objcg's page */
		KUNIT_EXPECT_GT(test, mcs_memcg_usage(memcg), 1UL);
		KUNIT_EXPECT_GT(test, refcount_read(&memcg->refcnt), 1U);
	}
	/* to "none", or from it to the default mode */
	KUNIT_EXPECT_EQ(test, mcs_stock_set_mode(mode == MCS_MODE_NONE ?
						 MCS_MODE_DECOUPLED : MCS_MODE_NONE), 0);
	/* nothing live: nothing may remain */
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 0UL);
	KUNIT_EXPECT_EQ(test, refcount_read(&memcg->refcnt), 1U);
	KUNIT_EXPECT_EQ(test, mcs_objcg_leftover_bytes(objcg), 0U);
	/* a benchmark control is never the module's stock mode */
	expect_set_mode_refusals(test);
}

/*
 * The switch is a fence: once mcs_stock_set_mode() returns, the stocks of
 * the other modes hold nothing and get nothing, even while charges run on
 * every CPU, two tasks per CPU preempting each other between reading the
 * mode and filling a stock.
 */
struct fence_load {
	struct kunit *test;
	struct mcs_memcg *memcg;
	struct mcs_objcg *objcg;
	int rounds;
	int bad;
};

/*
 * One unit of the load, from task, softirq and hardirq on every CPU: a
 * page charge of 1 to 3 pages, and an object of 200 bytes or of more than
 * two pages, which overflows an obj stock slot (OBJ_STOCK_HIGH) so that its
 * uncharge gives pages back from inside the byte section.
 */
static bool fence_load_one(void *arg, u32 *seed, enum mcs_load_ctx ctx)
{
	struct fence_load *l = arg;
	gfp_t gfp = ctx == LOAD_TASK ? GFP_KERNEL : GFP_ATOMIC;
	unsigned int n = 1 + mcs_load_next(seed) % 3;
	size_t size = mcs_load_next(seed) & 1 ? 200 : 2 * PAGE_SIZE + 200;

	if (mcs_charge_pages(l->memcg, gfp, n))
		return false;
	mcs_uncharge_pages(l->memcg, n);
	if (mcs_obj_charge(l->objcg, gfp, size))
		return false;
	mcs_obj_uncharge(l->objcg, size);
	return true;
}

/* Does @kinds (NULL-terminated) have @kind? */
static bool kinds_have(const struct mcs_stock_kind *const *kinds, const struct mcs_stock_kind *kind)
{
	for (; *kinds; kinds++)
		if (*kinds == kind)
			return true;
	return false;
}

struct slot_probe {
	struct mcs_memcg *memcg;
	const char *stock;
};

/* mcs_slot_fn: a slot of the test's memcg (an objcg slot: the objcg's memcg) */
static void slot_probe_fn(const struct mcs_stock_slot *slot, void *arg)
{
	struct slot_probe *p = arg;

	if (slot->memcg == p->memcg)
		p->stock = slot->stock;
}

/*
 * Does a stock other than @mode's cache the test's memcg or objcg?  Every
 * kind of per-CPU stock of every design that @mode does not fill is walked
 * (its walker, struct mcs_stock_kind), and the memcg's per-CPU counts
 * unless @mode's stock is them.  @where: the CPU and the stock's name.
 */
static bool other_mode_holds(struct fence_load *l, enum mcs_stock_mode mode, int *where,
			     const char **stock)
{
	const struct mcs_stock_kind *const *own = mcs_test_mode_kinds(mode);
	struct slot_probe p = { .memcg = l->memcg };
	const struct mcs_stock_kind *const *k;
	int cpu, m;

	for_each_possible_cpu(cpu) {
		*where = cpu;
		for (m = 0; m < NR_MCS_MODES; m++) {
			for (k = mcs_test_mode_kinds(m); *k; k++) {
				if (kinds_have(own, *k))
					continue;
				rcu_read_lock();
				(*k)->walk(cpu, slot_probe_fn, &p);
				rcu_read_unlock();
				if (p.stock) {
					*stock = p.stock;
					return true;
				}
			}
		}
		if (!mode_uses_counts(mode) &&
		    atomic_read(per_cpu_ptr(l->memcg->counter_stock, cpu))) {
			*stock = "per-CPU counts";
			return true;
		}
	}
	return false;
}

/*
 * 300 rounds take seconds on real hardware but minutes under TCG (78 s on
 * the 2-vCPU PREEMPT_RT debug guest of make check, and KUnit's 300 s case
 * timeout was hit on a 4-node, 4-vCPU one): the case stops at
 * FENCE_BUDGET_S once every switch of the rotation has been made once,
 * and reports how many switches it made.
 */
#define FENCE_ROUNDS		300
#define FENCE_SWITCHES		(NR_MCS_MODES * (NR_MCS_MODES - 1))
#define FENCE_BUDGET_S		10

/*
 * The rotation: every mode of the table, the benchmark's controls among
 * them, switched to from every other mode once per turn (an Eulerian
 * circuit of the complete graph of switches, FENCE_SWITCHES of them, from
 * and back to mode 0).  fence_modes[i] -> fence_modes[i + 1] is a switch.
 */
static enum mcs_stock_mode fence_modes[FENCE_SWITCHES + 1];

static void fence_rotation(void)
{
	static int stack[FENCE_SWITCHES + 1];
	int next[NR_MCS_MODES] = { };
	int sp = 0, n = FENCE_SWITCHES;

	/* Hierholzer: the circuit comes out backwards, itself a circuit */
	stack[sp++] = 0;
	while (sp) {
		int v = stack[sp - 1];

		if (next[v] == v)
			next[v]++;
		if (next[v] < NR_MCS_MODES)
			stack[sp++] = next[v]++;
		else
			fence_modes[n--] = stack[--sp];
	}
}

/* The switches, from the test thread while the load runs (mcs_run_load()). */
static void fence_switches(void *arg)
{
	unsigned long deadline = jiffies + FENCE_BUDGET_S * HZ;
	struct fence_load *l = arg;
	int i, where, round;

	for (round = 0; round < max(FENCE_ROUNDS, FENCE_SWITCHES) && !l->bad; round++) {
		enum mcs_stock_mode mode = fence_modes[1 + round % FENCE_SWITCHES];
		const char *stock = NULL;

		if (round >= FENCE_SWITCHES && time_after(jiffies, deadline))
			break;

		/* no assertion here: the load must be stopped by mcs_run_load() */
		if (mcs_stock_set_bench_mode(mode)) {
			l->bad++;
			KUNIT_FAIL(l->test, "round %d: switch to %s refused", round,
				   mcs_stock_mode_name(mode));
			break;
		}
		/* watch a while: a stale refill may come late */
		for (i = 0; i < 20 && !l->bad; i++) {
			if (other_mode_holds(l, mode, &where, &stock)) {
				l->bad++;
				KUNIT_FAIL(l->test, "round %d: mode %s, cpu %d, %s stock: %s",
					   round, mcs_stock_mode_name(mode), where, stock,
					   "another mode's stock holds the load's");
			}
			usleep_range(20, 40);
		}
	}
	l->rounds = round;
}

/*
 * Every switch is a fence: once mcs_stock_set_bench_mode() returns, no
 * stock but the new mode's holds anything of the load, whose charges come
 * from task, softirq and hardirq context on every CPU meanwhile (objects
 * large enough to give pages back from inside their section among them),
 * and nothing is lost.
 */
static void mode_switch_is_a_fence(struct kunit *test)
{
	struct fence_load l = { .test = test };
	struct mcs_load_result res;

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, mcs_test_restore_mode, NULL), 0);
	fence_rotation();
	KUNIT_ASSERT_EQ(test, fence_modes[0], fence_modes[FENCE_SWITCHES]);
	l.memcg = mcs_test_memcg(test, NULL);
	l.objcg = mcs_test_objcg(test, l.memcg);
	mcs_run_load(test, fence_load_one, &l, 200, fence_switches, &res);
	kunit_info(test, "%d mode switches under load\n", l.rounds);
	KUNIT_EXPECT_EQ(test, res.errors, 0L);
	KUNIT_EXPECT_GT(test, res.ops[LOAD_HARDIRQ], 0L);
	mcs_drain_all_stock(mcs_root_memcg(), true);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(l.memcg), 0UL);
	KUNIT_EXPECT_EQ(test, mcs_objcg_leftover_bytes(l.objcg), 0U);
}

/* ---- coupled-noirq <-> coupled: never both at once ---------------------- */

/*
 * A task inside a "coupled-noirq" section (preemption off, having read
 * that mode) must not be interrupted by a charge that reads "coupled" and
 * enters the same per-CPU struct with IRQs off: the switch between the two
 * passes through a mode without a stock for a grace period.  This task
 * plays the one inside such a section while another CPU switches to
 * "coupled", and a hard irq_work on its CPU reads the mode as an interrupt
 * charge would.
 */
struct noirq_fence {
	struct irq_work probe;
	enum mcs_stock_mode seen;
	bool probed;
	int switch_ret;
	struct completion switched;
};

static void noirq_probe_fn(struct irq_work *work)
{
	struct noirq_fence *f = container_of(work, struct noirq_fence, probe);

	if (mcs_stock_get_mode() == MCS_MODE_COUPLED)
		f->seen = MCS_MODE_COUPLED;
	WRITE_ONCE(f->probed, true);
}

static int noirq_switcher_fn(void *arg)
{
	struct noirq_fence *f = arg;

	f->switch_ret = mcs_stock_set_bench_mode(MCS_MODE_COUPLED);
	complete(&f->switched);
	return 0;
}

#define NOIRQ_SECTION_MS	50

static void coupled_noirq_switch_is_a_fence(struct kunit *test)
{
	struct noirq_fence *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	enum mcs_stock_mode inside;
	struct task_struct *t;
	int i, cpu, other;

	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		kunit_skip(test, "PREEMPT_RT: coupled-noirq is the coupled mode itself");
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs a second CPU to switch the mode from");
	KUNIT_ASSERT_NOT_NULL(test, f);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, mcs_test_restore_mode, NULL), 0);
	/* every stock empty: the switch's first drain queues no work here */
	KUNIT_ASSERT_EQ(test, mcs_stock_set_bench_mode(MCS_MODE_COUPLED_NOIRQ), 0);
	f->probe = IRQ_WORK_INIT_HARD(noirq_probe_fn);
	init_completion(&f->switched);
	f->seen = MCS_MODE_NONE;

	/* the switcher is created (that sleeps) before the section opens */
	migrate_disable();
	cpu = smp_processor_id();
	other = cpumask_any_but(cpu_online_mask, cpu);
	t = kthread_create(noirq_switcher_fn, f, "mcs_noirq_switch");
	if (!IS_ERR(t))
		kthread_bind(t, other);
	preempt_disable();
	inside = mcs_stock_get_mode();
	if (!IS_ERR(t))
		wake_up_process(t);
	for (i = 0; i < NOIRQ_SECTION_MS && !IS_ERR(t); i++) {
		WRITE_ONCE(f->probed, false);
		irq_work_queue(&f->probe);
		while (!READ_ONCE(f->probed))
			cpu_relax();
		mdelay(1);
	}
	preempt_enable();
	migrate_enable();

	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	wait_for_completion(&f->switched);
	KUNIT_EXPECT_EQ(test, f->switch_ret, 0);
	KUNIT_EXPECT_EQ(test, inside, MCS_MODE_COUPLED_NOIRQ);
	KUNIT_EXPECT_NE_MSG(test, f->seen, MCS_MODE_COUPLED,
			    "an interrupt read \"coupled\" inside a coupled-noirq section");
	KUNIT_EXPECT_EQ(test, mcs_stock_get_mode(), MCS_MODE_COUPLED);
}

/* ---- the mode fence at its race windows (test hooks) ----------------------- */

struct fence_hook {
	struct mcs_memcg *memcg;
	bool fired;
	int ret;
};

static struct fence_hook *fence_hook_arg;

/*
 * At the window of a coupled consume (mode read, section not entered yet):
 * the switch to "coupled" completes, and the new mode's stock is filled
 * with pages of the memcg.
 */
static void switch_before_section(enum mcs_test_hook where)
{
	struct fence_hook *h = fence_hook_arg;

	if (where != MCS_HOOK_COUPLED_ENTER || h->fired)
		return;
	h->fired = true;
	h->ret = mcs_stock_set_bench_mode(MCS_MODE_COUPLED);
	if (!mcs_charge_pages(h->memcg, GFP_KERNEL, 1))
		mcs_uncharge_pages(h->memcg, 1);
}

/*
 * A consume that read "coupled-noirq" and enters its section (preemption
 * off) only after a switch to "coupled" (IRQs off) must not take from the
 * stock: a hardirq charging it with IRQs saved would not be excluded.  The
 * fence in the section sends it to the counters; no hit is counted.
 */
static void coupled_consume_is_fenced(struct kunit *test)
{
	struct fence_hook h = { };
	struct mcs_memcg_stat st;
	struct mcs_memcg *memcg;
	int ret;

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, mcs_test_restore_mode, NULL), 0);
	KUNIT_ASSERT_EQ(test, mcs_stock_set_bench_mode(MCS_MODE_COUPLED_NOIRQ), 0);
	memcg = mcs_test_memcg(test, NULL);
	h.memcg = memcg;
	fence_hook_arg = &h;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, mcs_test_hook_clear, NULL), 0);

	/* the hook sleeps (a mode switch): stay on this CPU, preemptible */
	migrate_disable();
	mcs_test_hook_set(switch_before_section);
	ret = mcs_charge_pages(memcg, GFP_KERNEL, 1);
	mcs_test_hook_set(NULL);
	migrate_enable();

	KUNIT_ASSERT_TRUE(test, h.fired);
	KUNIT_EXPECT_EQ(test, h.ret, 0);
	KUNIT_EXPECT_EQ(test, ret, 0);
	mcs_memcg_stat(memcg, &st);
	KUNIT_EXPECT_EQ_MSG(test, st.events[MCS_STOCK_HIT], 0UL,
			    "a consume that read coupled-noirq took from the stock of coupled");
	if (!ret)
		mcs_uncharge_pages(memcg, 1);
	mcs_drain_all_stock(mcs_root_memcg(), true);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 0UL);
}

/* Inside a byte section that gives pages back: the mode reads "coupled" now. */
static void switch_inside_section(enum mcs_test_hook where)
{
	struct fence_hook *h = fence_hook_arg;

	if (where != MCS_HOOK_OBJ_PAGES || h->fired)
		return;
	h->fired = true;
	mcs_stock_test_mode_write(MCS_MODE_COUPLED);
}

/*
 * Pages that a byte section of "decoupled-owner" gives back leave through
 * the same design once the section is left, whatever the mode reads by
 * then: never through another design's stock from inside the section (on
 * PREEMPT_RT the coupled lock sleeps, and the owner section has preemption
 * off).  Here the mode reads "coupled" from inside the section on, and the
 * coupled stock must not receive the pages: the owner design's fence
 * refuses them, and they go to the counters.
 */
static void obj_pages_leave_with_their_design(struct kunit *test)
{
	struct fence_hook h = { };
	struct mcs_coupled_stock *cs;
	struct mcs_memcg *memcg, *cached;
	struct mcs_objcg *objcg;
	size_t size = 3 * PAGE_SIZE - 8;
	int cpu, ret;

	mcs_test_use_mode(test, MCS_MODE_DECOUPLED_OWNER);
	memcg = mcs_test_memcg(test, NULL);
	objcg = mcs_test_objcg(test, memcg);
	fence_hook_arg = &h;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, mcs_test_hook_clear, NULL), 0);

	migrate_disable();
	cpu = smp_processor_id();
	cs = per_cpu_ptr(&mcs_coupled_stock, cpu);
	/* 8 bytes of the last page stay in a slot; the uncharge overflows it */
	ret = mcs_obj_charge(objcg, GFP_KERNEL, size);
	mcs_test_hook_set(switch_inside_section);
	if (!ret)
		mcs_obj_uncharge(objcg, size);
	mcs_test_hook_set(NULL);
	cached = READ_ONCE(cs->cached);
	migrate_enable();

	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_TRUE_MSG(test, h.fired, "no byte section gave pages back");
	KUNIT_EXPECT_PTR_NE_MSG(test, cached, memcg,
				"pages of a decoupled-owner section went into the coupled stock");
	/* a real switch puts the stocks in order for the checks below */
	KUNIT_EXPECT_EQ(test, mcs_stock_set_bench_mode(MCS_MODE_DECOUPLED), 0);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 0UL);
	KUNIT_EXPECT_EQ(test, mcs_objcg_leftover_bytes(objcg), 0U);
}

/* ---- every mode x CPU hotplug -------------------------------------------- */

struct hotplug_fill {
	struct mcs_memcg *memcg;
	struct mcs_objcg *objcg;
};

/* On the target CPU: its stocks cache pages and a page of bytes. */
static long hotplug_fill_fn(void *arg)
{
	struct hotplug_fill *h = arg;

	if (mcs_charge_pages(h->memcg, GFP_KERNEL, 1))
		return -ENOMEM;
	mcs_uncharge_pages(h->memcg, 1);
	if (mcs_obj_charge(h->objcg, GFP_KERNEL, 100))
		return -ENOMEM;
	mcs_obj_uncharge(h->objcg, 100);
	return 0;
}

/* rule 7 in every mode: a CPU that goes down leaves no charge and no reference */
static void mode_hotplug_drains_dead_cpu(struct kunit *test)
{
	enum mcs_stock_mode mode = *(const enum mcs_stock_mode *)test->param_value;
	struct hotplug_fill h;
	int target, ret;

	if (!IS_ENABLED(CONFIG_HOTPLUG_CPU))
		kunit_skip(test, "kernel without CPU hotplug (UML has none)");
	target = cpumask_last(cpu_online_mask);
	if (num_online_cpus() < 2 || target == 0)
		kunit_skip(test, "needs a second online CPU that can go down");
	mcs_test_use_mode(test, mode);
	h.memcg = mcs_test_memcg(test, NULL);
	h.objcg = mcs_test_objcg(test, h.memcg);

	KUNIT_ASSERT_EQ(test, work_on_cpu(target, hotplug_fill_fn, &h), 0L);
	if (mcs_test_mode_has_page_stock(mode))
		KUNIT_EXPECT_GT(test, mcs_memcg_usage(h.memcg), 0UL);
	ret = remove_cpu(target);
	if (ret)
		kunit_skip(test, "remove_cpu(%d) failed: %d", target, ret);
	/* nothing live, and only the dead CPU charged: nothing may remain */
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(h.memcg), 0UL);
	KUNIT_EXPECT_EQ(test, refcount_read(&h.memcg->refcnt), 1U);
	KUNIT_EXPECT_EQ(test, mcs_objcg_leftover_bytes(h.objcg), 0U);
	KUNIT_EXPECT_EQ(test, add_cpu(target), 0);
}

/*
 * The dead-CPU drain of the coupled stock runs in a task that is neither
 * pinned nor atomic, on another CPU than the stock's: the hotplug control
 * task on kernels that do not run it in a pinned kworker, and module exit
 * for CPUs that are offline.  A page of bytes in the obj part (100 bytes
 * charged and uncharged leave exactly PAGE_SIZE) must go to the counters,
 * not into the stock of the CPU the drain runs on.  The bytes are charged
 * on the last online CPU and its stock is drained from the first; that
 * stock is online, which is safe only because nothing else charges in
 * coupled mode during the case.
 */
static long coupled_charge_here(void *arg)
{
	struct mcs_objcg *objcg = arg;
	struct mcs_coupled_stock *stock = this_cpu_ptr(&mcs_coupled_stock);

	if (!mcs_obj_charge(objcg, GFP_KERNEL, 100))
		mcs_obj_uncharge(objcg, 100);
	return READ_ONCE(stock->cached_objcg) == objcg ? READ_ONCE(stock->nr_bytes) : 0;
}

static void coupled_dead_drain_unpinned(struct kunit *test)
{
	struct mcs_memcg *memcg;
	struct mcs_objcg *objcg;
	int cpu, here, target;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs a second online CPU to drain from");
	mcs_test_use_mode(test, MCS_MODE_COUPLED);
	memcg = mcs_test_memcg(test, NULL);
	objcg = mcs_test_objcg(test, memcg);

	cpus_read_lock();
	here = cpumask_first(cpu_online_mask);
	target = cpumask_last(cpu_online_mask);
	KUNIT_EXPECT_EQ(test, work_on_cpu(target, coupled_charge_here, objcg), (long)PAGE_SIZE);
	/* this task stays on @here, preemptible */
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(here)), 0);
	KUNIT_EXPECT_TRUE(test, preemptible());
	mcs_coupled_stock_drain_dead(target);
	cpus_read_unlock();

	for_each_possible_cpu(cpu) {
		struct mcs_coupled_stock *stock = per_cpu_ptr(&mcs_coupled_stock, cpu);
		struct mcs_objcg *cached_objcg = READ_ONCE(stock->cached_objcg);
		struct mcs_memcg *cached = READ_ONCE(stock->cached);

		KUNIT_EXPECT_PTR_NE_MSG(test, cached, memcg, "cpu %d caches the memcg", cpu);
		KUNIT_EXPECT_PTR_NE_MSG(test, cached_objcg, objcg, "cpu %d caches the objcg", cpu);
	}
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 0UL);
	KUNIT_EXPECT_EQ(test, mcs_objcg_leftover_bytes(objcg), 0U);
	KUNIT_EXPECT_EQ(test, refcount_read(&memcg->refcnt), 1U);
}

/* ---- drains are refused outside task context ----------------------------- */

enum drain_ctx { DRAIN_SOFTIRQ, DRAIN_HARDIRQ, DRAIN_NMI };

static const enum drain_ctx drain_ctxs[] = { DRAIN_SOFTIRQ, DRAIN_HARDIRQ, DRAIN_NMI };

static void drain_ctx_desc(const enum drain_ctx *c, char *desc)
{
	static const char * const names[] = { "softirq", "hardirq", "nmi" };

	strscpy(desc, names[*c], KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(drain_ctx, drain_ctxs, drain_ctx_desc);

struct drain_try {
	struct irq_work hard;
	struct tasklet_struct soft;
	bool done, in_task;
};

static void drain_try_now(struct drain_try *d)
{
	d->in_task = in_task();
	mcs_drain_all_stock(mcs_root_memcg(), true);
	mcs_drain_all_stock(mcs_root_memcg(), false);
	WRITE_ONCE(d->done, true);
}

static void drain_try_hard(struct irq_work *work)
{
	drain_try_now(container_of(work, struct drain_try, hard));
}

static void drain_try_soft(struct tasklet_struct *t)
{
	struct drain_try *d = from_tasklet(d, t, soft);

	drain_try_now(d);
}

static void drain_try_nmi(void *arg)
{
	drain_try_now(arg);
}

static void drain_try_unregister(void *unused)
{
	mcs_nmi_unregister();
}

/*
 * mcs_drain_all_stock() outside task context does nothing: no work is
 * queued or flushed, no mutex taken, this CPU's stock keeps its pages.
 */
static void drain_refused_outside_task(struct kunit *test)
{
	enum drain_ctx ctx = *(const enum drain_ctx *)test->param_value;
	struct drain_try *d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	struct mcs_memcg *memcg;
	unsigned long usage;
	int i, cpu;

	KUNIT_ASSERT_NOT_NULL(test, d);
	if (ctx == DRAIN_NMI) {
		if (!mcs_nmi_supported())
			kunit_skip(test, "kernel without an NMI source (UML, non-x86)");
		KUNIT_ASSERT_EQ(test, mcs_nmi_register(drain_try_nmi, d), 0);
		KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, drain_try_unregister,
								NULL), 0);
	}
	mcs_test_use_mode(test, MCS_MODE_DECOUPLED);
	memcg = mcs_test_memcg(test, NULL);
	/* a hard irq_work: on PREEMPT_RT the others run in a kthread */
	d->hard = IRQ_WORK_INIT_HARD(drain_try_hard);
	tasklet_setup(&d->soft, drain_try_soft);

	migrate_disable();
	cpu = smp_processor_id();
	/* this CPU's stock keeps the rest of a batch */
	if (!mcs_charge_pages(memcg, GFP_KERNEL, 1))
		mcs_uncharge_pages(memcg, 1);
	usage = mcs_memcg_usage(memcg);
	if (ctx == DRAIN_HARDIRQ)
		irq_work_queue(&d->hard);
	else if (ctx == DRAIN_SOFTIRQ)
		tasklet_schedule(&d->soft);
	else
		mcs_nmi_raise(cpu);
	for (i = 0; i < 1000 && !READ_ONCE(d->done); i++)
		usleep_range(100, 200);
	migrate_enable();
	tasklet_kill(&d->soft);
	irq_work_sync(&d->hard);

	KUNIT_ASSERT_TRUE(test, READ_ONCE(d->done));
	KUNIT_EXPECT_FALSE(test, d->in_task);
	KUNIT_EXPECT_EQ(test, usage, (unsigned long)MCS_CHARGE_BATCH);
	/* refused: the stock's pages are still charged */
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), usage);
	mcs_drain_all_stock(mcs_root_memcg(), true);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 0UL);
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

/* ---- the charge batch ------------------------------------------------------ */

static void restore_batch(void *unused)
{
	mcs_stock_set_bench_batch(MCS_CHARGE_BATCH);
}

/* the modes whose design batches (struct mcs_design's @batches) */
static bool mode_batches(enum mcs_stock_mode mode)
{
	return mcs_stock_mode_design(mode)->batches;
}

static MCS_KUNIT_GEN_PARAMS(batching_mode_gen_params)
{
	return mcs_test_mode_next(prev, desc, mode_batches);
}

#define TEST_BATCH	16U

struct held_pages {
	struct mcs_memcg *memcg;
	unsigned long pages;
};

static void held_pages_fn(const struct mcs_stock_slot *slot, void *arg)
{
	struct held_pages *h = arg;

	if (slot->memcg == h->memcg && !slot->bytes)
		h->pages += slot->amount;
}

/* Pages of @memcg that @cpu's stocks of @mode hold, read by their walkers. */
static unsigned long stock_held_pages(enum mcs_stock_mode mode, struct mcs_memcg *memcg, int cpu)
{
	struct held_pages h = { .memcg = memcg };
	const struct mcs_stock_kind *const *k;

	rcu_read_lock();
	for (k = mcs_test_mode_kinds(mode); *k; k++)
		(*k)->walk(cpu, held_pages_fn, &h);
	rcu_read_unlock();
	return h.pages;
}

/*
 * With charge_batch 16 (what upstream's batch scaled by page size gives on
 * 64K pages), a miss charges 16 pages, the stock keeps at most 16 per memcg,
 * a charge above the batch is exact, and a put that takes the stock over the
 * batch gives back all it holds beyond what the design keeps on overflow
 * (nothing, or a trimmed slot's low mark): the usage is then exactly what
 * the stock's walker reports, below the batch, and nothing after a drain.
 * Out-of-range batches are refused.
 */
static void charge_batch_is_a_parameter(struct kunit *test)
{
	enum mcs_stock_mode mode = *(const enum mcs_stock_mode *)test->param_value;
	struct mcs_memcg *memcg;
	unsigned long held;

	KUNIT_EXPECT_EQ(test, mcs_stock_set_bench_batch(0), -EINVAL);
	KUNIT_EXPECT_EQ(test, mcs_stock_set_bench_batch(MCS_CHARGE_BATCH + 1), -EINVAL);
	KUNIT_ASSERT_EQ(test, mcs_charge_batch(), MCS_CHARGE_BATCH);
	mcs_test_use_mode(test, mode);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, restore_batch, NULL), 0);
	KUNIT_ASSERT_EQ(test, mcs_stock_set_bench_batch(TEST_BATCH), 0);
	KUNIT_ASSERT_EQ(test, mcs_charge_batch(), TEST_BATCH);
	memcg = mcs_test_memcg(test, NULL);

	/* one CPU's stock throughout */
	migrate_disable();
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(memcg, GFP_KERNEL, 1), 0);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), (unsigned long)TEST_BATCH);
	mcs_uncharge_pages(memcg, 1);
	/* the stock holds the whole batch now, and no more */
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), (unsigned long)TEST_BATCH);
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(memcg, GFP_KERNEL, TEST_BATCH), 0);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), (unsigned long)TEST_BATCH);
	mcs_uncharge_pages(memcg, TEST_BATCH);
	/* above the batch: charged exactly, beside the stock's batch */
	KUNIT_EXPECT_EQ(test, mcs_charge_pages(memcg, GFP_KERNEL, TEST_BATCH + 1), 0);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 2UL * TEST_BATCH + 1);
	/* its put takes the stock over the batch: what stays is what the stock holds */
	mcs_uncharge_pages(memcg, TEST_BATCH + 1);
	held = stock_held_pages(mode, memcg, smp_processor_id());
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), held);
	KUNIT_EXPECT_LT(test, held, (unsigned long)TEST_BATCH);
	migrate_enable();
	mcs_drain_all_stock(memcg, true);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(memcg), 0UL);
	KUNIT_EXPECT_EQ(test, mcs_stock_set_bench_batch(MCS_CHARGE_BATCH), 0);
}

/*
 * Every mode's bench parameters: in bounds at their defaults, and each
 * one that must stay below another names a parameter of its own mode,
 * which its default is below (the bench would refuse the defaults).
 */
static void mode_params_consistent(struct kunit *test)
{
	const struct mcs_bench_param *p, *up;
	int m;

	for (m = 0; m < NR_MCS_MODES; m++) {
		const struct mcs_bench_param *params = mcs_stock_mode_info(m)->params;
		const char *name = mcs_stock_mode_name(m);

		for (p = params; p && p->name; p++) {
			unsigned int v = READ_ONCE(*p->value);

			KUNIT_EXPECT_LE_MSG(test, p->min, v, "%s %s", name, p->name);
			KUNIT_EXPECT_LE_MSG(test, v, p->max, "%s %s", name, p->name);
			if (!p->below)
				continue;
			for (up = params; up->name && strcmp(up->name, p->below); up++)
				;
			KUNIT_EXPECT_NOT_NULL_MSG(test, up->name, "%s: %s below %s: none such",
						  name, p->name, p->below);
			if (up->name)
				KUNIT_EXPECT_LT_MSG(test, v, READ_ONCE(*up->value),
						    "%s: %s below %s", name, p->name, p->below);
		}
	}
}

static struct kunit_case mode_cases[] = {
	KUNIT_CASE(mode_params_consistent),
	KUNIT_CASE_PARAM(mode_switch_drains, mode_gen_params),
	KUNIT_CASE_PARAM(mode_all_contexts_exact, mode_gen_params),
	KUNIT_CASE_SLOW(mode_switch_is_a_fence),
	KUNIT_CASE(coupled_noirq_switch_is_a_fence),
	KUNIT_CASE(coupled_consume_is_fenced),
	KUNIT_CASE(obj_pages_leave_with_their_design),
	KUNIT_CASE_PARAM(mode_hotplug_drains_dead_cpu, mode_gen_params),
	KUNIT_CASE(coupled_dead_drain_unpinned),
	KUNIT_CASE_PARAM(drain_refused_outside_task, drain_ctx_gen_params),
	KUNIT_CASE_PARAM(mode_obj_size_bounded, mode_gen_params),
	KUNIT_CASE_PARAM(charge_batch_is_a_parameter, batching_mode_gen_params),
	{}
};

static struct kunit_suite mode_suite = {
	.name = "mcs_stock_modes",
	.init = mcs_test_leak_check_init,
	.test_cases = mode_cases,
};

kunit_test_suite(mode_suite);
