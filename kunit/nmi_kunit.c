// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for charging from NMI context: a charge in NMI while the
 * interrupted task holds a stock takes the fallback and stays exact, and
 * the last reference of an objcg or a memcg dropped in NMI is released
 * through the deferral (irq_work), never in the NMI itself; and an NMI
 * load on every CPU, in every stock mode, while memcgs come and go and
 * stocks are drained, ends at exactly zero.
 *
 * The NMIs come from the module's own source (harness/nmi.c: an NMI_LOCAL handler
 * and an APIC NMI to one CPU); kernels without one (UML) skip every case
 * with that reason.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/cpu.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>

#include "mcs_kunit.h"

/* NMI-safe requests: no reclaim bits, nothing may spin */
#define NMI_GFP		__GFP_NOWARN

struct nmi_ctx {
	struct mcs_memcg *memcg;
	struct mcs_objcg *objcg;
	struct mcs_objcg *evict[2 * NR_OBJ_STOCK];
	int page_ret, obj_ret;
	bool in_nmi;
	bool put_objcg, put_memcg, charge, evict_all;
};

static void nmi_fn(void *arg)
{
	struct nmi_ctx *c = arg;
	int i, r;

	c->in_nmi = in_nmi();
	if (c->charge) {
		c->page_ret = mcs_charge_pages(c->memcg, NMI_GFP, 3);
		if (!c->page_ret)
			mcs_uncharge_pages(c->memcg, 3);
		c->obj_ret = mcs_obj_charge(c->objcg, NMI_GFP, 300);
		if (!c->obj_ret)
			mcs_obj_uncharge(c->objcg, 300);
	}
	/*
	 * A full stock evicts on one refill in MCS_STOCK_ADMIT_EVERY: enough
	 * rounds for the round-robin cursor to pass every slot.
	 */
	for (r = 0; c->evict_all && r < MCS_STOCK_ADMIT_EVERY; r++)
		for (i = 0; i < ARRAY_SIZE(c->evict); i++)
			if (!mcs_obj_charge(c->evict[i], NMI_GFP, 64))
				mcs_obj_uncharge(c->evict[i], 64);
	if (c->put_objcg)
		mcs_objcg_put(c->objcg);
	if (c->put_memcg)
		mcs_memcg_put(c->memcg);
}

static void nmi_unregister_action(void *unused)
{
	mcs_nmi_unregister();
}

static void nmi_setup(struct kunit *test, void (*fn)(void *arg), void *c)
{
	if (!mcs_nmi_supported())
		kunit_skip(test, "kernel without an NMI source (UML, non-x86)");
	KUNIT_ASSERT_EQ(test, mcs_nmi_register(fn, c), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, nmi_unregister_action, NULL), 0);
}

/*
 * Send an NMI to this CPU and wait until its handler has run; the caller
 * keeps the task on this CPU.  No KUnit check in here: the caller may
 * hold a stock (atomic on !RT).
 */
static bool nmi_here(void)
{
	int cpu = smp_processor_id(), i;

	if (!mcs_nmi_raise(cpu))
		return false;
	/* may hold a stock (atomic on !RT): busy-wait, for a second at most */
	for (i = 0; i < 100000 && mcs_nmi_pending(cpu); i++)
		ndelay(10000);
	return !mcs_nmi_pending(cpu);
}

/* the stock held, and the exclusion: local_trylock_t, or a decoupled-owner section */
enum held_stock { HELD_MEMCG_STOCK, HELD_OBJ_STOCK, HELD_MEMCG_OWNER, HELD_OBJ_OWNER };

static const enum held_stock held_stocks[] = {
	HELD_MEMCG_STOCK, HELD_OBJ_STOCK, HELD_MEMCG_OWNER, HELD_OBJ_OWNER,
};

static void held_desc(const enum held_stock *h, char *desc)
{
	static const char * const names[] = {
		"memcg-stock", "obj-stock", "memcg-stock-owner", "obj-stock-owner",
	};

	strscpy(desc, names[*h], KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(held, held_stocks, held_desc);

/* an NMI that hits a task holding a stock charges through the fallback, exactly */
static void nmi_charge_while_stock_held(struct kunit *test)
{
	enum held_stock held = *(const enum held_stock *)test->param_value;
	struct nmi_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct mcs_memcg_stat before, after;
	bool delivered;

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->memcg = mcs_test_memcg(test, NULL);
	c->objcg = mcs_test_objcg(test, c->memcg);
	c->page_ret = -EINPROGRESS;
	c->obj_ret = -EINPROGRESS;
	c->charge = true;
	nmi_setup(test, nmi_fn, c);
	mcs_memcg_stat(c->memcg, &before);

	if (held == HELD_MEMCG_OWNER || held == HELD_OBJ_OWNER)
		mcs_test_use_mode(test, MCS_MODE_DECOUPLED_OWNER);

	migrate_disable();
	if (held == HELD_MEMCG_STOCK) {
		KUNIT_ASSERT_TRUE(test, local_trylock(&mcs_memcg_stock.lock));
		delivered = nmi_here();
		local_unlock(&mcs_memcg_stock.lock);
	} else if (held == HELD_OBJ_STOCK) {
		KUNIT_ASSERT_TRUE(test, local_trylock(&mcs_obj_stock.lock));
		delivered = nmi_here();
		local_unlock(&mcs_obj_stock.lock);
	} else if (held == HELD_MEMCG_OWNER) {
		KUNIT_ASSERT_TRUE(test, mcs_owner_test_trylock(false));
		delivered = nmi_here();
		mcs_owner_test_unlock(false);
	} else {
		KUNIT_ASSERT_TRUE(test, mcs_owner_test_trylock(true));
		delivered = nmi_here();
		mcs_owner_test_unlock(true);
	}
	migrate_enable();

	KUNIT_ASSERT_TRUE(test, delivered);
	KUNIT_EXPECT_TRUE(test, c->in_nmi);
	KUNIT_EXPECT_EQ(test, c->page_ret, 0);
	KUNIT_EXPECT_EQ(test, c->obj_ret, 0);
	/* the held stock was busy: at least one trylock failed and fell back */
	mcs_memcg_stat(c->memcg, &after);
	KUNIT_EXPECT_GT(test, after.events[MCS_TRYLOCK_FAIL], before.events[MCS_TRYLOCK_FAIL]);
	KUNIT_EXPECT_LT(test, mcs_objcg_leftover_bytes(c->objcg), (unsigned int)PAGE_SIZE);
	mcs_drain_all_stock(mcs_root_memcg(), true);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(c->memcg), 0UL);
	KUNIT_EXPECT_EQ(test, mcs_objcg_leftover_bytes(c->objcg), 0U);
}

/* the last objcg reference dropped in NMI: released through the irq_work */
static void nmi_last_objcg_ref_deferred(struct kunit *test)
{
	struct nmi_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct mcs_memcg *parent = mcs_test_memcg(test, NULL);
	long deferred, objcgs;

	KUNIT_ASSERT_NOT_NULL(test, c);
	nmi_setup(test, nmi_fn, c);
	c->memcg = mcs_memcg_create(parent, "nmi-objcg");
	KUNIT_ASSERT_FALSE(test, IS_ERR(c->memcg));
	c->objcg = mcs_memcg_tryget_objcg(c->memcg);
	KUNIT_ASSERT_NOT_NULL(test, c->objcg);
	/* offline: the memcg drops its own objcg reference; ours is the last */
	KUNIT_ASSERT_EQ(test, mcs_memcg_offline(c->memcg), 0);
	mcs_memcg_put(c->memcg);
	mcs_wait_for_frees();
	objcgs = mcs_objcg_nr_alive();
	deferred = mcs_deferred_releases();

	c->put_objcg = true;
	migrate_disable();
	KUNIT_EXPECT_TRUE(test, nmi_here());
	migrate_enable();
	KUNIT_EXPECT_TRUE(test, c->in_nmi);
	KUNIT_EXPECT_EQ(test, mcs_deferred_releases(), deferred + 1);
	mcs_wait_for_frees();
	KUNIT_EXPECT_EQ(test, mcs_objcg_nr_alive(), objcgs - 1);
}

/* the last memcg reference dropped in NMI: released through the irq_work */
static void nmi_last_memcg_ref_deferred(struct kunit *test)
{
	struct nmi_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	long deferred, memcgs;

	KUNIT_ASSERT_NOT_NULL(test, c);
	nmi_setup(test, nmi_fn, c);
	c->memcg = mcs_memcg_create(NULL, "nmi-memcg");
	KUNIT_ASSERT_FALSE(test, IS_ERR(c->memcg));
	KUNIT_ASSERT_EQ(test, mcs_memcg_offline(c->memcg), 0);
	mcs_wait_for_frees();
	memcgs = mcs_memcg_nr_alive();
	deferred = mcs_deferred_releases();

	c->put_memcg = true;
	migrate_disable();
	KUNIT_EXPECT_TRUE(test, nmi_here());
	migrate_enable();
	KUNIT_EXPECT_EQ(test, mcs_deferred_releases(), deferred + 1);
	mcs_wait_for_frees();
	KUNIT_EXPECT_EQ(test, mcs_memcg_nr_alive(), memcgs - 1);
}

/*
 * The case no client misuse is needed for: an objcg whose memcg went
 * offline lives on only in this CPU's obj stock slot (the offline drain
 * skips slots whose objcg already points at the parent); an NMI charges
 * through other objcgs, evicts it and drops its last reference.  On
 * PREEMPT_RT a trylock in NMI always fails, so nothing is evicted there.
 */
static void nmi_eviction_drops_last_objcg_ref(struct kunit *test)
{
	struct nmi_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct mcs_memcg *parent = mcs_test_memcg(test, NULL);
	long deferred, objcgs;
	int i;

	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		kunit_skip(test, "PREEMPT_RT: no stock is taken in NMI, nothing to evict");
	KUNIT_ASSERT_NOT_NULL(test, c);
	for (i = 0; i < ARRAY_SIZE(c->evict); i++)
		c->evict[i] = mcs_test_objcg(test, mcs_test_memcg(test, parent));
	nmi_setup(test, nmi_fn, c);
	c->memcg = mcs_memcg_create(parent, "nmi-evict");
	KUNIT_ASSERT_FALSE(test, IS_ERR(c->memcg));
	c->objcg = mcs_memcg_tryget_objcg(c->memcg);
	KUNIT_ASSERT_NOT_NULL(test, c->objcg);

	migrate_disable();
	/* a slot of this CPU's obj stock caches the objcg, with a reference */
	KUNIT_EXPECT_EQ(test, mcs_obj_charge(c->objcg, GFP_KERNEL, 100), 0);
	mcs_obj_uncharge(c->objcg, 100);
	KUNIT_EXPECT_EQ(test, mcs_memcg_offline(c->memcg), 0);
	mcs_memcg_put(c->memcg);
	mcs_objcg_put(c->objcg);		/* the slot's is the last reference */
	objcgs = mcs_objcg_nr_alive();
	deferred = mcs_deferred_releases();
	c->evict_all = true;
	KUNIT_EXPECT_TRUE(test, nmi_here());
	migrate_enable();

	KUNIT_EXPECT_GE(test, mcs_deferred_releases(), deferred + 1);
	mcs_drain_all_stock(mcs_root_memcg(), true);
	mcs_wait_for_frees();
	KUNIT_EXPECT_EQ(test, mcs_objcg_nr_alive(), objcgs - 1);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(parent), 0UL);
}

/* ---- NMI load with churn ------------------------------------------------ */

#define CHURN_SLOTS	16	/* live charges kept across NMIs, per CPU */
#define CHURN_CYCLES	60	/* memcgs created and offlined under the load */

/* A live charge of the NMI load: pages (committed) or bytes with an objcg ref. */
struct churn_slot {
	struct mcs_charge charge;
	struct mcs_objcg *objcg;
	unsigned int bytes;
};

/* One CPU's share: written only by NMIs on that CPU, which never nest. */
struct churn_cpu {
	struct churn_slot slot[CHURN_SLOTS];
	u32 seed;
	long ops;
	long errors;
	int first_error;
};

struct churn_target {
	struct mcs_memcg *memcg;
	struct mcs_objcg *objcg;
};

struct nmi_churn {
	struct churn_target __rcu *target;	/* the memcg being churned, or NULL */
	struct churn_target slot[2];		/* published in turn */
	struct churn_cpu *cpu;			/* nr_cpu_ids entries */
};

static void churn_error(struct churn_cpu *c, int err)
{
	if (!c->errors++)
		c->first_error = err;
}

static void churn_release(struct churn_slot *s)
{
	if (s->objcg) {
		mcs_obj_uncharge(s->objcg, s->bytes);
		/* may be the last reference: the churn task put its own */
		mcs_objcg_put(s->objcg);
		s->objcg = NULL;
	} else if (s->charge.state == MCS_CHARGE_COMMITTED) {
		/* may drop the last reference of an offline memcg */
		mcs_charge_uncharge(&s->charge);
	}
}

/* In NMI: release a busy slot, or charge the published memcg into a free one. */
static void churn_nmi_fn(void *arg)
{
	struct nmi_churn *ch = arg;
	struct churn_cpu *c = &ch->cpu[smp_processor_id()];
	u32 r = mcs_load_next(&c->seed);
	struct churn_slot *s = &c->slot[r % CHURN_SLOTS];
	struct churn_target *t;
	int ret;

	rcu_read_lock();
	t = rcu_dereference(ch->target);
	if (s->objcg || s->charge.state != MCS_CHARGE_IDLE) {
		churn_release(s);
	} else if (t && (r & 0x100)) {
		ret = mcs_charge_try(&s->charge, t->memcg, NMI_GFP, 1 + (r >> 9) % 4);
		if (!ret)
			mcs_charge_commit(&s->charge);
		else if (ret != -ENOENT && ret != -ENOMEM)
			churn_error(c, ret);
	} else if (t) {
		/* reparented once offline: the bytes then go to the parent */
		mcs_objcg_get(t->objcg);
		s->bytes = 8 + (r >> 9) % 2000;
		ret = mcs_obj_charge(t->objcg, NMI_GFP, s->bytes);
		if (!ret)
			s->objcg = t->objcg;
		else
			mcs_objcg_put(t->objcg);
		if (ret && ret != -ENOENT && ret != -ENOMEM)
			churn_error(c, ret);
	}
	/* and a charge that does not outlive the NMI */
	if (t && !mcs_charge_pages(t->memcg, NMI_GFP, 2))
		mcs_uncharge_pages(t->memcg, 2);
	rcu_read_unlock();
	c->ops++;
}

/* Task context: one NMI to every online CPU (this one too), again and again. */
static int churn_sender(void *arg)
{
	int cpu;

	while (!kthread_should_stop()) {
		for_each_online_cpu(cpu)
			mcs_nmi_raise(cpu);
		usleep_range(100, 200);
	}
	return 0;
}

/* No NMI in flight anywhere: after this no handler runs. */
static void churn_nmis_settle(void)
{
	int cpu, i;

	for_each_possible_cpu(cpu)
		for (i = 0; i < 1000 && mcs_nmi_pending(cpu); i++)
			usleep_range(100, 200);
}

/*
 * Memcgs created, charged from NMI on every CPU, offlined while NMIs still
 * charge them (pages get -ENOENT, bytes go to the parent) and dropped,
 * with drains of every kind in between: once the load stops and its live
 * charges are released, every counter, refcount and object count is back
 * where it was.  Live NMI charges hold references, so the last reference
 * of a memcg or an objcg is often dropped in NMI (the deferral).
 */
static void nmi_load_with_churn(struct kunit *test)
{
	enum mcs_stock_mode mode = *(const enum mcs_stock_mode *)test->param_value;
	struct nmi_churn *ch = kunit_kzalloc(test, sizeof(*ch), GFP_KERNEL);
	struct mcs_memcg *parent = mcs_test_memcg(test, NULL);
	long memcgs, objcgs, underflows, deferred, ops = 0, errors = 0;
	struct task_struct *sender;
	int cpu, i, first_error = 0;

	KUNIT_ASSERT_NOT_NULL(test, ch);
	ch->cpu = kunit_kcalloc(test, nr_cpu_ids, sizeof(*ch->cpu), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ch->cpu);
	for_each_possible_cpu(cpu)
		ch->cpu[cpu].seed = get_random_u32() | 1;
	nmi_setup(test, churn_nmi_fn, ch);
	mcs_test_use_mode(test, mode);
	mcs_drain_all_stock(mcs_root_memcg(), true);
	mcs_wait_for_frees();
	memcgs = mcs_memcg_nr_alive();
	objcgs = mcs_objcg_nr_alive();
	underflows = mcs_page_counter_underflows();
	deferred = mcs_deferred_releases();

	sender = kthread_run(churn_sender, ch, "mcs_nmi_sender");
	KUNIT_ASSERT_FALSE(test, IS_ERR(sender));
	for (i = 0; i < CHURN_CYCLES; i++) {
		struct churn_target *t = &ch->slot[i & 1];

		t->memcg = mcs_memcg_create(parent, "nmi-churn");
		if (IS_ERR(t->memcg)) {
			KUNIT_FAIL(test, "create: %ld", PTR_ERR(t->memcg));
			break;
		}
		t->objcg = mcs_memcg_tryget_objcg(t->memcg);
		rcu_assign_pointer(ch->target, t);
		usleep_range(1000, 2000);
		/* drains of every kind while NMIs charge */
		mcs_drain_all_stock(i & 2 ? parent : mcs_root_memcg(), i & 1);
		/* offline while still published: NMIs see it go */
		KUNIT_EXPECT_EQ(test, mcs_memcg_offline(t->memcg), 0);
		usleep_range(500, 1000);
		RCU_INIT_POINTER(ch->target, NULL);
		synchronize_rcu();
		/* live NMI charges may hold the last references now */
		if (t->objcg)
			mcs_objcg_put(t->objcg);
		mcs_memcg_put(t->memcg);
	}
	kthread_stop(sender);
	churn_nmis_settle();

	/* the load has stopped: release what the NMIs left live, here */
	for_each_possible_cpu(cpu) {
		struct churn_cpu *c = &ch->cpu[cpu];

		rcu_read_lock();
		for (i = 0; i < CHURN_SLOTS; i++)
			churn_release(&c->slot[i]);
		rcu_read_unlock();
		ops += c->ops;
		if (c->errors && !errors)
			first_error = c->first_error;
		errors += c->errors;
	}
	mcs_drain_all_stock(mcs_root_memcg(), true);
	mcs_wait_for_frees();
	kunit_info(test, "mode %s: %ld NMIs, %ld releases deferred", mcs_stock_mode_name(mode),
		   ops, mcs_deferred_releases() - deferred);

	KUNIT_EXPECT_GT(test, ops, 0L);
	KUNIT_EXPECT_EQ_MSG(test, errors, 0L, "first error %d", first_error);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(parent), 0UL);
	KUNIT_EXPECT_EQ(test, mcs_memcg_usage(mcs_root_memcg()), 0UL);
	/* ours only: every churn memcg and every reference of the NMIs is gone */
	KUNIT_EXPECT_EQ(test, refcount_read(&parent->refcnt), 1U);
	KUNIT_EXPECT_EQ(test, mcs_charge_stat(parent, MCS_CHARGED_PAGES), 0L);
	KUNIT_EXPECT_EQ(test, mcs_memcg_nr_alive(), memcgs);
	KUNIT_EXPECT_EQ(test, mcs_objcg_nr_alive(), objcgs);
	KUNIT_EXPECT_EQ(test, mcs_page_counter_underflows(), underflows);
}

/* ---- an NMI from another source is not ours ------------------------------ */

static DEFINE_PER_CPU(int, foreign_asked);
static atomic_t foreign_handled;

/* Another NMI_LOCAL user (perf, the watchdog): claims by its own flag. */
static int foreign_nmi_handler(unsigned int type, struct pt_regs *regs)
{
	if (!this_cpu_read(foreign_asked))
		return MCS_NMI_DONE;
	atomic_inc(&foreign_handled);
	this_cpu_write(foreign_asked, 0);
	return MCS_NMI_HANDLED;
}

static void foreign_unregister(void *unused)
{
	mcs_compat_unregister_nmi_local("mcs_test_foreign");
}

/* Busy-wait (the task may be atomic) up to 100 ms for *@flag to clear. */
static bool nmi_flag_clears(int *flag)
{
	int i;

	for (i = 0; i < 10000 && READ_ONCE(*flag); i++)
		ndelay(10000);
	return !READ_ONCE(*flag);
}

/* The same for the NMI asked for on @cpu. */
static bool nmi_settles(int cpu)
{
	int i;

	for (i = 0; i < 10000 && mcs_nmi_pending(cpu); i++)
		ndelay(10000);
	return !mcs_nmi_pending(cpu);
}

#define FOREIGN_ROUNDS	20

/*
 * Our NMI is asked for but not sent yet when another source's NMI arrives
 * on the CPU: our handler must leave it to its owner, and must then take
 * our own NMI when it comes.  A handler that decided from its flag alone
 * ran our function for the foreign NMI and left ours unclaimed.
 */
static void nmi_foreign_nmi_not_claimed(struct kunit *test)
{
	struct nmi_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	int cpu, i, not_armed = 0, lost = 0;
	long ours_for_foreign = 0, ours = 0, before;

	KUNIT_ASSERT_NOT_NULL(test, c);
	nmi_setup(test, nmi_fn, c);
	KUNIT_ASSERT_EQ(test, mcs_compat_register_nmi_local(foreign_nmi_handler,
							    "mcs_test_foreign"), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, foreign_unregister, NULL), 0);
	atomic_set(&foreign_handled, 0);

	migrate_disable();
	cpu = smp_processor_id();
	for (i = 0; i < FOREIGN_ROUNDS; i++) {
		before = mcs_nmi_count();
		rcu_read_lock();
		if (!mcs_nmi_arm(cpu)) {
			rcu_read_unlock();
			not_armed++;
			continue;
		}
		this_cpu_write(foreign_asked, 1);
		mcs_compat_send_nmi(cpu);
		if (!nmi_flag_clears(this_cpu_ptr(&foreign_asked)))
			lost++;
		ours_for_foreign += mcs_nmi_count() - before;
		mcs_nmi_fire(cpu);
		rcu_read_unlock();
		if (!nmi_settles(cpu))
			lost++;
		ours += mcs_nmi_count() - before;
	}
	migrate_enable();

	KUNIT_EXPECT_EQ(test, not_armed, 0);
	KUNIT_EXPECT_EQ(test, lost, 0);
	KUNIT_EXPECT_EQ_MSG(test, ours_for_foreign, 0L,
			    "our handler ran for another source's NMI");
	KUNIT_EXPECT_EQ(test, ours, (long)FOREIGN_ROUNDS);
	KUNIT_EXPECT_EQ(test, atomic_read(&foreign_handled), FOREIGN_ROUNDS);
}

/* ---- a release deferred by an NMI on a CPU going down --------------------- */

struct deferred_probe {
	struct mcs_deferred d;
	int ran;
};

static void deferred_probe_release(struct mcs_deferred *d)
{
	container_of(d, struct deferred_probe, d)->ran++;
}

/* Did the release run @want times within @ms, with nobody flushing it? */
static bool probe_ran_within(struct deferred_probe *p, int want, unsigned int ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);

	while (READ_ONCE(p->ran) < want && time_before(jiffies, end))
		usleep_range(100, 200);
	return READ_ONCE(p->ran) >= want;
}

/*
 * An NMI on a CPU that has left the online mask queues no irq_work (it
 * would stay pending there while the CPU is offline, and stall every later
 * release): the release waits on the list, and the next irq_work,
 * mcs_wait_for_frees() or the hotplug callback of the CPU's death runs it.
 * On an online CPU, mcs_defer_release() queues the irq_work, and the
 * release runs by itself; it would not if the choice were wrong or the
 * irq_work had been left pending by the first half.
 */
static void nmi_release_deferred_off_online_cpu(struct kunit *test)
{
	struct deferred_probe *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	long deferred = mcs_deferred_releases();

	KUNIT_ASSERT_NOT_NULL(test, p);
	/* what such an NMI does: on the list, no irq_work */
	__mcs_defer_release(&p->d, deferred_probe_release, false);
	KUNIT_EXPECT_EQ(test, mcs_deferred_releases(), deferred + 1);
	mcs_wait_for_frees();
	/* still on the list otherwise: it must not be queued a second time */
	KUNIT_ASSERT_EQ(test, p->ran, 1);

	/* this CPU is online: the choice queues the irq_work */
	migrate_disable();
	mcs_defer_release(&p->d, deferred_probe_release);
	migrate_enable();
	KUNIT_EXPECT_TRUE_MSG(test, probe_ran_within(p, 2, 2000),
			      "release not run within 2 s: no irq_work queued, or one left pending");
	mcs_wait_for_frees();
	KUNIT_EXPECT_EQ(test, p->ran, 2);
}

/* The same release, left on the list: the death of a CPU finishes it. */
static void nmi_release_deferred_finished_by_cpu_death(struct kunit *test)
{
	struct deferred_probe *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	int target = cpumask_last(cpu_online_mask);

	KUNIT_ASSERT_NOT_NULL(test, p);
	if (!IS_ENABLED(CONFIG_HOTPLUG_CPU))
		kunit_skip(test, "kernel without CPU hotplug (UML has none)");
	if (num_online_cpus() < 2 || target == 0)
		kunit_skip(test, "needs a second online CPU that can go down");
	__mcs_defer_release(&p->d, deferred_probe_release, false);
	if (remove_cpu(target))
		kunit_skip(test, "remove_cpu(%d) failed", target);
	KUNIT_EXPECT_EQ(test, p->ran, 1);
	KUNIT_EXPECT_EQ(test, add_cpu(target), 0);
}

/* every mode of the binding table but the benchmark's controls */
static MCS_KUNIT_GEN_PARAMS(nmi_mode_gen_params)
{
	return mcs_test_mode_next(prev, desc, NULL);
}

static struct kunit_case nmi_cases[] = {
	KUNIT_CASE_PARAM(nmi_charge_while_stock_held, held_gen_params),
	KUNIT_CASE(nmi_last_objcg_ref_deferred),
	KUNIT_CASE(nmi_last_memcg_ref_deferred),
	KUNIT_CASE(nmi_eviction_drops_last_objcg_ref),
	KUNIT_CASE(nmi_foreign_nmi_not_claimed),
	KUNIT_CASE(nmi_release_deferred_off_online_cpu),
	KUNIT_CASE(nmi_release_deferred_finished_by_cpu_death),
	KUNIT_CASE_PARAM_ATTR(nmi_load_with_churn, nmi_mode_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	{}
};

static struct kunit_suite nmi_suite = {
	.name = "mcs_nmi",
	.init = mcs_test_leak_check_init,
	.test_cases = nmi_cases,
};

kunit_test_suite(nmi_suite);
