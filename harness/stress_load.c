// SPDX-License-Identifier: GPL-2.0
/*
 * The stress harness's load (see stress.h): one operation in any context,
 * the load generators (workers, interrupt timers, NMIs, drainer, churn,
 * CPU hotplug) and the building and releasing of a case.
 */
#include <linux/module.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "stress.h"

unsigned int stress_fail_nth;
module_param(stress_fail_nth, uint, 0644);
MODULE_PARM_DESC(stress_fail_nth,
		 "Stress harness: every Nth churn memcg creation fails on purpose (0: never)");

/* ---- violations ----------------------------------------------------------- */

__printf(3, 4)
void stress_violation(struct stress_run *run, enum stress_check check,
		      const char *fmt, ...)
{
	struct stress_result *res = run->res;
	char msg[128];
	va_list args;
	size_t len;

	va_start(args, fmt);
	vsnprintf(msg, sizeof(msg), fmt, args);
	va_end(args);

	mutex_lock(&stress_mutex);
	res->failed[check]++;
	if (res->nr_violations++ < STRESS_LOGGED) {
		len = strlen(res->violations);
		scnprintf(res->violations + len, sizeof(res->violations) - len,
			  "%s%s: %s", len ? "; " : "", stress_check_names[check], msg);
		mcs_log("stress: %s: invariant violated: %s: %s\n",
			res->name, stress_check_names[check], msg);
	}
	mutex_unlock(&stress_mutex);
}

/* ---- one operation, any context ----------------------------------------- */

/* xorshift32: the kernel's RNG takes locks of its own, no good in hardirq */
static u32 stress_next(u32 *seed)
{
	u32 x = *seed;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*seed = x;
	return x;
}

u32 stress_seed(void)
{
	return get_random_u32() | 1;
}

/*
 * Trylock failures per context.  The memcg stock counts them per memcg and
 * per CPU; an operation reads its memcg's count on this CPU before and
 * after.  An interrupt that fails on the same memcg meanwhile shows in that
 * difference too, so every operation also adds its own count to the CPU's
 * nested_fail[bucket] and subtracts what nested operations added there
 * while it ran.  Exact where contexts nest strictly, as tasks and
 * interrupts do; tasks preempting each other on PREEMPT_RT do not, so there
 * the task counts are approximate (never below 0).
 * Both stocks count a failed trylock on the memcg charged (the obj stock
 * on its objcg's memcg), so the figures cover pages and bytes alike; a
 * byte operation whose objcg moved to the parent meanwhile counts there.
 */
struct stress_probe {
	local_t *events;
	local_t *nested;
	long events0;
	long nested0;
};

static void probe_begin(struct stress_probe *p, struct stress_run *run,
			struct mcs_memcg *memcg, unsigned int bucket)
{
	int cpu = smp_processor_id();

	p->events = &per_cpu_ptr(memcg->stats, cpu)->events[MCS_TRYLOCK_FAIL];
	p->nested = &run->cpu[cpu]->nested_fail[bucket];
	p->events0 = local_read(p->events);
	p->nested0 = local_read(p->nested);
}

static unsigned long probe_end(struct stress_probe *p)
{
	long mine = local_read(p->events) - p->events0 -
		    (local_read(p->nested) - p->nested0);

	if (mine <= 0)
		return 0;
	local_add(mine, p->nested);
	return mine;
}

/*
 * The bucket of the memcg an objcg charges now: a tree objcg always charges
 * its own memcg (@home); a churn objcg charges its churn memcg, then, once
 * reparented, the churn memcg's parent (@home).
 */
static unsigned int objcg_bucket(struct stress_run *run, struct mcs_memcg *memcg,
				 unsigned int home)
{
	return run->memcg[home].memcg == memcg ? home : STRESS_CHURN_BUCKET;
}

static void tally_error(struct stress_tally *t, int err, bool churn)
{
	if (!err)
		return;
	if (err == -ENOMEM)
		t->refusals++;
	else if (err == -ENOENT && churn)
		t->offline++;
	else if (!t->errors++)
		t->first_error = err;
}

static bool live_busy(const struct stress_live *l)
{
	return l->objcg || l->charge.state != MCS_CHARGE_IDLE;
}

static gfp_t stress_gfp(enum stress_ctx ctx, u32 r)
{
	if (ctx == CTX_TASK || ctx == CTX_CHURN)
		return GFP_KERNEL;
	/* NMI: no reclaim bits at all, so no path may spin or take a lock */
	if (ctx == CTX_NMI)
		return __GFP_NOWARN;
	/* a quarter of the interrupt charges may not even spin: exact charges */
	return (r & 3) ? GFP_NOWAIT : __GFP_NOWARN;
}

static void stress_charge(struct stress_run *run, struct stress_live *l,
			  struct stress_tally *t, u32 *seed, enum stress_ctx ctx)
{
	const struct stress_config *cfg = &run->cfg;
	struct stress_churn *churn = NULL;
	struct stress_probe probe;
	struct mcs_memcg *memcg;
	struct mcs_objcg *objcg;
	unsigned int bucket, home;
	u32 r = stress_next(seed);
	u32 r2 = stress_next(seed);
	int ret;

	/* the churn thread charges its own memcg half the time, others 1/8 */
	if (cfg->churn && (r & 7) < (ctx == CTX_CHURN ? 4 : 1))
		churn = rcu_dereference(run->churn_pub);
	if (churn) {
		memcg = churn->memcg;
		objcg = churn->objcg;
		bucket = STRESS_CHURN_BUCKET;
		home = churn->parent;
	} else {
		bucket = (r >> 3) % run->nr_memcgs;
		memcg = run->memcg[bucket].memcg;
		objcg = run->memcg[bucket].objcg;
		home = bucket;
	}

	if ((r >> 12) % 100 < cfg->page_pct) {
		probe_begin(&probe, run, memcg, bucket);
		ret = mcs_charge_try(&l->charge, memcg, stress_gfp(ctx, r2),
				     1 + (r2 >> 8) % cfg->pages_max);
		if (!ret && !(r2 >> 28)) {
			mcs_charge_cancel(&l->charge);
			t->cancels++;
		} else if (!ret) {
			mcs_charge_commit(&l->charge);
			if (churn)
				t->commits_churn++;
			else
				t->commits_tree++;
		}
		if (!ret)
			t->page_charges++;
	} else {
		unsigned int size = 8 + (r2 >> 8) % (cfg->bytes_max - 7);
		enum mcs_slab_item item = (r2 >> 30) & 1;
		int nid = numa_node_id();

		/* once reparented, the objcg charges (and counts at) the parent */
		memcg = mcs_objcg_memcg(objcg);
		probe_begin(&probe, run, memcg, objcg_bucket(run, memcg, home));
		/* a live byte charge holds the objcg, as a slab object does */
		mcs_objcg_get(objcg);
		ret = mcs_obj_charge_account(objcg, stress_gfp(ctx, r2), size, nid, item);
		if (ret) {
			mcs_objcg_put(objcg);
		} else {
			l->objcg = objcg;
			l->bytes = size;
			l->nid = nid;
			l->item = item;
			l->home = home;
			t->byte_charges++;
		}
	}
	t->trylock_fail += probe_end(&probe);
	tally_error(t, ret, churn);
}

/* @t is NULL for the controller's final release, which needs no probe. */
static void stress_release(struct stress_run *run, struct stress_live *l,
			   struct stress_tally *t)
{
	struct stress_probe probe;

	if (l->objcg) {
		struct mcs_memcg *memcg = mcs_objcg_memcg(l->objcg);

		if (t)
			probe_begin(&probe, run, memcg, objcg_bucket(run, memcg, l->home));
		mcs_obj_uncharge_account(l->objcg, l->bytes, l->nid, l->item);
		if (t)
			t->trylock_fail += probe_end(&probe);
		mcs_objcg_put(l->objcg);
		l->objcg = NULL;
	} else if (l->charge.state == MCS_CHARGE_COMMITTED) {
		mcs_charge_uncharge(&l->charge);
	}
}

static void stress_release_batch(struct stress_ring *ring, struct stress_tally *t)
{
	struct mcs_charge *batch[STRESS_RING_SLOTS];
	unsigned int i, n = 0;

	for (i = 0; i < STRESS_RING_SLOTS; i++)
		if (ring->slot[i].charge.state == MCS_CHARGE_COMMITTED)
			batch[n++] = &ring->slot[i].charge;
	if (n) {
		mcs_charge_uncharge_batch(batch, n);
		t->batches++;
	}
}

/* One operation: charge a free slot or release a busy one. */
static void stress_op(struct stress_run *run, struct stress_ring *ring,
		      struct stress_tally *t, u32 *seed, enum stress_ctx ctx)
{
	u32 r = stress_next(seed);
	struct stress_live *l = &ring->slot[r % STRESS_RING_SLOTS];
	struct stress_live *to = &ring->slot[(r >> 8) % STRESS_RING_SLOTS];

	rcu_read_lock();
	if (!((r >> 16) & 63)) {
		/* now and then free everything at once, as reclaim and exit do */
		stress_release_batch(ring, t);
	} else if (!((r >> 22) & 31) && to != l &&
		   l->charge.state == MCS_CHARGE_COMMITTED && !live_busy(to)) {
		mcs_charge_migrate(&l->charge, &to->charge);
		t->migrations++;
	} else if (live_busy(l)) {
		stress_release(run, l, t);
	} else {
		stress_charge(run, l, t, seed, ctx);
	}
	rcu_read_unlock();
	WRITE_ONCE(t->ops, t->ops + 1);
}

/* ---- per-CPU load: workers and timers -------------------------------------- */

/*
 * A real preemption point for a kthread that loops without sleeping.
 * cond_resched() does nothing on a preemptible kernel, where the loop is
 * meant to be preempted by the interrupt that sets need_resched.  But an
 * interrupt that arrives while interrupts are off is taken when they are
 * enabled again, and some architectures (UML: every per-CPU operation
 * disables interrupts) do not check for preemption there; a worker that
 * is never preempted starves the RCU grace-period kthread and the
 * controller.  preempt_enable() checks need_resched on every kernel.
 */
static void stress_preempt_point(void)
{
	cond_resched();
	preempt_disable();
	preempt_enable();
}

static int stress_worker_fn(void *data)
{
	struct stress_worker *w = data;
	struct stress_run *run = w->run;

	while (!kthread_should_stop()) {
		if (run->cfg.ops && w->tally.ops >= run->cfg.ops) {
			/* budget spent: wait for the controller to notice */
			schedule_timeout_interruptible(msecs_to_jiffies(STRESS_TICK_MS));
			continue;
		}
		/*
		 * A worker is bound to its CPU, but once that CPU starts going
		 * down the scheduler moves it off before the hotplug callback
		 * stops it: each operation is kept on one CPU for the probe.
		 */
		migrate_disable();
		stress_op(run, &w->ring, &w->tally, &w->seed, CTX_TASK);
		migrate_enable();
		stress_preempt_point();
	}
	return 0;
}

/*
 * The next expiry of an interrupt timer whose work ran from @start until
 * now: one period after the previous expiry, unless that leaves the CPU
 * less than STRESS_IRQ_IDLE times the work's cost before the next one.  A
 * callback slower than its period (hardirq_us=10 under KASAN) would
 * otherwise run back to back and starve everything else on the CPU, RCU's
 * kthreads included: the timer takes at most 1 / (1 + STRESS_IRQ_IDLE) of
 * the CPU.  For a hard timer @start is when the interrupt was due
 * (stress_irq_start()), so the cost counts the interrupt's entry too: on
 * UML an interrupt is a host signal and its entry costs more than four
 * operations, and a cost taken from the callback alone let a 10 us timer
 * keep a CPU 90% in hardirq.  The NMI sender also keeps the next expiry at
 * or after @not_before (the target's quiet time; 0 for the others).  The
 * results report how often that stretched the period and the period
 * achieved.
 */
static void stress_timer_next(struct hrtimer *timer, ktime_t period, ktime_t start,
			      ktime_t not_before, struct stress_timer_stat *stat)
{
	ktime_t end = ktime_get();
	ktime_t next = ktime_add(hrtimer_get_expires(timer), period);
	ktime_t floor = max(ktime_add(end, ktime_sub(end, start) * STRESS_IRQ_IDLE),
			    not_before);

	if (ktime_before(next, floor)) {
		next = floor;
		stat->stretched++;
	}
	stat->expiries++;
	hrtimer_set_expires(timer, next);
}

/*
 * Where a hard timer's cost starts: its expiry, when the interrupt was due
 * (an hrtimer never runs before it), or now if the clock says otherwise.
 */
static ktime_t stress_irq_start(struct hrtimer *timer)
{
	ktime_t now = ktime_get(), due = hrtimer_get_expires(timer);

	return ktime_before(due, now) ? due : now;
}

static enum hrtimer_restart stress_hardirq_fn(struct hrtimer *timer)
{
	struct stress_cpu *c = container_of(timer, struct stress_cpu, hard);
	ktime_t start = stress_irq_start(timer);
	int i;

	if (READ_ONCE(c->stopping))
		return HRTIMER_NORESTART;
	for (i = 0; i < STRESS_IRQ_BATCH; i++)
		stress_op(c->run, &c->ring_hard, &c->tally_hard, &c->seed_hard, CTX_HARDIRQ);
	stress_timer_next(timer, c->run->hard_period, start, 0, &c->stat_hard);
	return HRTIMER_RESTART;
}

static enum hrtimer_restart stress_softirq_fn(struct hrtimer *timer)
{
	struct stress_cpu *c = container_of(timer, struct stress_cpu, soft);
	ktime_t start = ktime_get();
	int i;

	if (READ_ONCE(c->stopping))
		return HRTIMER_NORESTART;
	for (i = 0; i < STRESS_IRQ_BATCH; i++)
		stress_op(c->run, &c->ring_soft, &c->tally_soft, &c->seed_soft, CTX_SOFTIRQ);
	stress_timer_next(timer, c->run->soft_period, start, 0, &c->stat_soft);
	return HRTIMER_RESTART;
}

/* ---- NMI load ---------------------------------------------------------------------- */

static bool nmi_wanted(struct stress_run *run)
{
	return run->res->nmi == FEATURE_ON;
}

/* In NMI on the CPU an NMI was sent to: a batch of operations, then quiet. */
static void stress_nmi_fn(void *arg)
{
	struct stress_run *run = arg;
	struct stress_cpu *c = run->cpu[smp_processor_id()];
	u64 start = ktime_get_mono_fast_ns(), end;
	int i;

	/* only NMIs a sender asked for get here (nmi.c's handshake) */
	for (i = 0; i < STRESS_IRQ_BATCH; i++)
		stress_op(run, &c->ring_nmi, &c->tally_nmi, &c->seed_nmi, CTX_NMI);
	c->nmi_handled++;
	end = ktime_get_mono_fast_ns();
	WRITE_ONCE(c->nmi_quiet_until, end + (end - start) * STRESS_IRQ_IDLE);
}

/*
 * The next online CPU after @cpu that takes NMIs (@cpu itself only when
 * it is the only one), or nr_cpu_ids.  Hardirq: the online mask cannot
 * lose a CPU whose teardown is waiting for us (stress_nmi_quiesce()).
 */
static unsigned int stress_nmi_target(struct stress_run *run, unsigned int cpu)
{
	unsigned int t;

	for_each_cpu_wrap(t, cpu_online_mask, (cpu + 1) % nr_cpu_ids)
		if (READ_ONCE(run->cpu[t]->nmi_target))
			return t;
	return nr_cpu_ids;
}

/*
 * The sender, a hard-mode hrtimer: one NMI to the next CPU per period,
 * unless that CPU's last NMI is still in flight (the turn is skipped) or
 * its handler asked for quiet (the expiry moves to the end of it).
 */
static enum hrtimer_restart stress_nmi_send_fn(struct hrtimer *timer)
{
	struct stress_cpu *c = container_of(timer, struct stress_cpu, nmi);
	struct stress_run *run = c->run;
	ktime_t start = stress_irq_start(timer), not_before = 0;
	unsigned int t;
	u64 now, quiet;

	if (READ_ONCE(c->stopping))
		return HRTIMER_NORESTART;
	t = stress_nmi_target(run, smp_processor_id());
	if (t < nr_cpu_ids) {
		now = ktime_get_mono_fast_ns();
		quiet = READ_ONCE(run->cpu[t]->nmi_quiet_until);
		if (now < quiet)
			not_before = ktime_add_ns(ktime_get(), quiet - now);
		else if (mcs_nmi_raise(t))
			c->nmi_sent++;
		else
			c->nmi_busy++;
	}
	stress_timer_next(timer, run->nmi_period, start, not_before, &c->stat_nmi);
	return HRTIMER_RESTART;
}

/* Has the NMI last sent to @cpu been handled (waiting STRESS_NMI_WAIT_MS)? */
static bool stress_nmi_settled(int cpu)
{
	unsigned int i;

	for (i = 0; i < STRESS_NMI_WAIT_MS * 10 && mcs_nmi_pending(cpu); i++)
		usleep_range(100, 200);
	return !mcs_nmi_pending(cpu);
}

/*
 * @cpu goes down: no sender may aim at it any more, and the NMI sent to it
 * last is handled while it is still online.  Senders are hardirqs, so
 * after a grace period every one that saw nmi_target set has sent.  An
 * NMI that does not arrive within STRESS_NMI_WAIT_MS (not seen so far) is
 * counted as lost and its handshake dropped, so the CPU takes NMIs again
 * when it comes back.
 */
static void stress_nmi_quiesce(struct stress_cpu *c, unsigned int cpu)
{
	WRITE_ONCE(c->nmi_target, 0);
	synchronize_rcu();
	if (!stress_nmi_settled(cpu)) {
		c->nmi_lost++;
		mcs_nmi_forget(cpu);
	}
}

static int nmi_start(struct stress_run *run)
{
	return mcs_nmi_register(stress_nmi_fn, run);
}

/*
 * Every sender has stopped.  An NMI still pending after a while was sent
 * to a CPU that went down without taking it: lost, and a wedged handshake
 * had the CPU been a target again.  mcs_nmi_unregister() clears them.
 */
static void nmi_stop(struct stress_run *run)
{
	int cpu;

	for_each_possible_cpu(cpu)
		if (!stress_nmi_settled(cpu))
			run->nmi_stuck++;
	mcs_nmi_unregister();
}

/*
 * CPU hotplug callbacks (CPUHP_AP_ONLINE_DYN): they run on @cpu itself, in
 * its hotplug thread, for every online CPU when the state is set up or
 * removed, and whenever a CPU comes or goes while it is registered.
 */
static int stress_cpu_online(unsigned int cpu)
{
	struct stress_run *run = &stress_run;
	struct stress_cpu *c = run->cpu[cpu];
	unsigned int i;

	WRITE_ONCE(c->stopping, 0);
	for (i = 0; i < run->cfg.threads; i++) {
		struct stress_worker *w = &c->worker[i];
		struct task_struct *task;

		task = kthread_create_on_cpu(stress_worker_fn, w, cpu, "mcs_stress/%u");
		if (IS_ERR(task)) {
			/* never fail a CPU's bring-up: the case reports it */
			atomic_inc(&run->worker_failures);
			continue;
		}
		w->task = task;
		wake_up_process(task);
	}
	/* armed on @cpu, pinned: the timers interrupt this CPU's workers */
	if (run->cfg.hardirq_us)
		hrtimer_start(&c->hard, run->hard_period, HRTIMER_MODE_REL_PINNED_HARD);
	if (run->cfg.softirq)
		hrtimer_start(&c->soft, run->soft_period, HRTIMER_MODE_REL_PINNED_SOFT);
	if (nmi_wanted(run)) {
		WRITE_ONCE(c->nmi_target, 1);
		hrtimer_start(&c->nmi, run->nmi_period, HRTIMER_MODE_REL_PINNED_HARD);
	}
	return 0;
}

static int stress_cpu_offline(unsigned int cpu)
{
	struct stress_cpu *c = stress_run.cpu[cpu];
	unsigned int i;

	/* NMIs first: none may be pending when this CPU goes */
	if (nmi_wanted(&stress_run))
		stress_nmi_quiesce(c, cpu);
	/* workers next: none of them may arm anything after the cancel */
	WRITE_ONCE(c->stopping, 1);
	for (i = 0; i < STRESS_MAX_THREADS; i++) {
		if (!c->worker[i].task)
			continue;
		kthread_stop(c->worker[i].task);
		c->worker[i].task = NULL;
	}
	hrtimer_cancel(&c->hard);
	hrtimer_cancel(&c->soft);
	hrtimer_cancel(&c->nmi);
	return 0;
}

static int workers_start(struct stress_run *run)
{
	int ret;

	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "memcg_stock/stress:online",
				stress_cpu_online, stress_cpu_offline);
	if (ret < 0)
		return ret;
	run->hp_state = ret;
	return 0;
}

static void workers_stop(struct stress_run *run)
{
	cpuhp_remove_state(run->hp_state);
}

/* ---- drainer ----------------------------------------------------------------- */

static bool drainer_wanted(struct stress_run *run)
{
	return run->cfg.drain_ms;
}

static int stress_drainer_fn(void *data)
{
	struct stress_run *run = data;
	u32 seed = stress_seed();
	unsigned int n = 0;

	while (!kthread_should_stop()) {
		struct mcs_memcg *target = mcs_root_memcg();
		bool sync = n & 1;

		/* alternate async and sync; every other pair drains a subtree */
		if (n++ & 2)
			target = run->memcg[stress_next(&seed) % run->nr_memcgs].memcg;
		mcs_drain_all_stock(target, sync);
		if (sync)
			run->drains_sync++;
		else
			run->drains_async++;
		schedule_timeout_interruptible(msecs_to_jiffies(run->cfg.drain_ms));
	}
	return 0;
}

/* ---- churn ----------------------------------------------------------------------- */

static bool churn_wanted(struct stress_run *run)
{
	return run->cfg.churn;
}

/*
 * A memcg below a random memcg of the tree, with its objcg, in @churn.
 * Every stress_fail_nth-th attempt fails on purpose, at each step of the
 * ladder in turn; real allocation failures come from failslab on the
 * module's caches, inside mcs_memcg_create().
 */
static int churn_create(struct stress_run *run, struct stress_churn *churn)
{
	int inject = -1, ret = -ENOMEM;

	if (run->fail_nth && !(++run->churn_attempts % run->fail_nth))
		inject = run->faults_injected++ % 2;

	churn->parent = stress_next(&run->churn_seed) % run->nr_memcgs;
	churn->memcg = mcs_memcg_create(run->memcg[churn->parent].memcg, "stress-churn");
	if (IS_ERR(churn->memcg))
		return PTR_ERR(churn->memcg);
	if (inject == 0)
		goto err_memcg;
	churn->objcg = mcs_memcg_tryget_objcg(churn->memcg);
	if (!churn->objcg) {
		ret = -ENOENT;
		goto err_memcg;
	}
	if (inject == 1)
		goto err_objcg;
	if (run->cfg.limit) {
		ret = mcs_memcg_set_max(churn->memcg, run->cfg.limit);
		if (ret)
			goto err_objcg;
	}
	return 0;

err_objcg:
	mcs_objcg_put(churn->objcg);
err_memcg:
	mcs_memcg_offline(churn->memcg);
	mcs_memcg_put(churn->memcg);
	return ret;
}

/*
 * An offline churn memcg whose only reference is ours has nothing left
 * anywhere: every committed charge and every stock slot holds a reference,
 * and nobody can take a new one.  So it must be empty, exactly.  @final:
 * after the last drain, when it must have come to that.
 */
static bool graveyard_release(struct stress_run *run, struct mcs_memcg *memcg, bool final)
{
	unsigned int refs = refcount_read(&memcg->refcnt);
	struct mcs_memcg_stat st;
	long pages, in, out;
	int i;

	if (refs != 1) {
		if (!final)
			return false;
		stress_violation(run, CHECK_REFS, "churn memcg %u: %u references after the drain",
				 memcg->id, refs);
	}
	mcs_memcg_stat(memcg, &st);
	for (i = 0; i < NR_MCS_EVENTS; i++)
		run->churn_events[i] += st.events[i];
	if (st.usage)
		stress_violation(run, CHECK_COUNTERS, "churn memcg %u: usage %lu at release",
				 memcg->id, st.usage);
	pages = mcs_charge_stat(memcg, MCS_CHARGED_PAGES);
	in = mcs_charge_stat(memcg, MCS_PGPGIN);
	out = mcs_charge_stat(memcg, MCS_PGPGOUT);
	if (pages || in != out)
		stress_violation(run, CHECK_STATS,
				 "churn memcg %u: charged_pages %ld pgpgin %ld pgpgout %ld",
				 memcg->id, pages, in, out);
	run->churn_pgpgin += in;
	run->churn_released++;
	mcs_memcg_put(memcg);
	return true;
}

void stress_graveyard_reap(struct stress_run *run, bool final)
{
	unsigned int i, n = 0;

	for (i = 0; i < run->nr_grave; i++)
		if (!graveyard_release(run, run->grave[i], final))
			run->grave[n++] = run->grave[i];
	run->nr_grave = n;
}

static void churn_op(struct stress_run *run)
{
	/* the trylock-failure probe reads this CPU's counters: stay here */
	migrate_disable();
	stress_op(run, &run->churn_ring, &run->churn_tally, &run->churn_seed, CTX_CHURN);
	migrate_enable();
}

static void churn_release_ring(struct stress_run *run)
{
	unsigned int i;

	for (i = 0; i < STRESS_RING_SLOTS; i++) {
		struct stress_live *l = &run->churn_ring.slot[i];

		if (!live_busy(l))
			continue;
		migrate_disable();
		rcu_read_lock();
		stress_release(run, l, &run->churn_tally);
		rcu_read_unlock();
		migrate_enable();
		run->churn_tally.ops++;
	}
}

static int stress_churn_fn(void *data)
{
	struct stress_run *run = data;
	struct stress_churn *churn = &run->churn;
	unsigned int i;
	int ret;

	while (!kthread_should_stop()) {
		stress_graveyard_reap(run, false);
		if (run->nr_grave == STRESS_GRAVEYARD) {
			/* all still charged somewhere: let the others release */
			schedule_timeout_interruptible(1);
			continue;
		}
		ret = churn_create(run, churn);
		if (ret) {
			if (ret == -ENOMEM)
				run->alloc_failures++;
			else
				stress_violation(run, CHECK_ERRORS, "churn create: %d", ret);
			stress_preempt_point();
			continue;
		}
		run->churn_created++;
		rcu_assign_pointer(run->churn_pub, churn);
		for (i = 0; i < STRESS_CHURN_OPS; i++)
			churn_op(run);
		/* let the other contexts charge it for a while */
		usleep_range(100, 200);
		/*
		 * Offline while it is still published and charged: others
		 * now get -ENOENT for pages and the parent for bytes.
		 */
		mcs_memcg_offline(churn->memcg);
		for (i = 0; i < STRESS_CHURN_OPS / 2; i++)
			churn_op(run);
		RCU_INIT_POINTER(run->churn_pub, NULL);
		/*
		 * Nobody uses @churn after this: the next cycle may refill it.
		 * Expedited: a normal grace period per cycle would make churn
		 * too slow to matter on small machines.
		 */
		synchronize_rcu_expedited();
		churn_release_ring(run);
		mcs_objcg_put(churn->objcg);
		run->grave[run->nr_grave++] = churn->memcg;
	}
	return 0;
}

/* ---- CPU hotplug ------------------------------------------------------------------ */

bool stress_hotplug_wanted(struct stress_run *run)
{
	return run->res->hotplug == FEATURE_ON;
}

static int stress_cpu_up(unsigned int cpu)
{
	int i, ret = 0;

	for (i = 0; i < 10 && !cpu_online(cpu); i++) {
		ret = add_cpu(cpu);
		if (ret >= 0)
			return 0;
		msleep(20);
	}
	return cpu_online(cpu) ? 0 : ret;
}

/*
 * Can this kernel take a CPU down and bring it back?  One cycle of each
 * online hotpluggable CPU, before the case's load: those that cycled go
 * into run->hotplug_cpus, the only ones the hotplug actor cycles.  A
 * kernel may refuse where the hardware would not (the last housekeeping
 * CPU beside isolcpus= and nohz_full=, -EBUSY): then the case reports
 * hotplug=unsupported and run->hotplug_refused, not a failure of the
 * module.  Task context; sleeps.
 *
 * Return: the number of CPUs that cycled.
 */
unsigned int stress_hotplug_probe(struct stress_run *run)
{
	struct cpumask candidates;
	unsigned int cpu, n = 0;
	int ret;

	cpumask_clear(&run->hotplug_cpus);
	run->hotplug_refused = 0;
	if (!IS_ENABLED(CONFIG_HOTPLUG_CPU) || num_online_cpus() < 2)
		return 0;
	cpumask_copy(&candidates, cpu_online_mask);
	for_each_cpu(cpu, &candidates) {
		if (!cpu_is_hotpluggable(cpu))
			continue;
		ret = remove_cpu(cpu);
		if (!ret)
			ret = stress_cpu_up(cpu);
		if (ret) {
			run->hotplug_refused = ret;
			continue;
		}
		cpumask_set_cpu(cpu, &run->hotplug_cpus);
		n++;
	}
	return n;
}

/* The next online CPU after @last that passed the probe, or nr_cpu_ids. */
static unsigned int stress_hotplug_pick(struct stress_run *run, unsigned int last)
{
	unsigned int i, cpu = last;

	if (num_online_cpus() < 2)
		return nr_cpu_ids;
	for (i = 0; i < nr_cpu_ids; i++) {
		cpu = cpumask_next(cpu, cpu_online_mask);
		if (cpu >= nr_cpu_ids)
			cpu = cpumask_first(cpu_online_mask);
		if (cpumask_test_cpu(cpu, &run->hotplug_cpus))
			return cpu;
	}
	return nr_cpu_ids;
}

static int stress_hotplug_fn(void *data)
{
	struct stress_run *run = data;
	unsigned int cpu = 0;
	int ret;

	while (!kthread_should_stop()) {
		cpu = stress_hotplug_pick(run, cpu);
		if (cpu < nr_cpu_ids) {
			/* > 0: somebody else had it down already; leave it */
			ret = remove_cpu(cpu);
			if (!ret)
				ret = stress_cpu_up(cpu);
			if (!ret)
				WRITE_ONCE(run->hotplug_cycles, run->hotplug_cycles + 1);
			else if (ret < 0)
				run->hotplug_errors++;
		}
		schedule_timeout_interruptible(msecs_to_jiffies(STRESS_HOTPLUG_MS));
	}
	return 0;
}

static void hotplug_stop(struct stress_run *run)
{
	unsigned int cpu;

	for_each_cpu(cpu, &run->online_at_start)
		if (stress_cpu_up(cpu))
			stress_violation(run, CHECK_ERRORS, "cpu %u left offline", cpu);
}

/* ---- the actor table ---------------------------------------------------------------- */

/*
 * The load generators of a case, started in this order and stopped in the
 * reverse one: CPUs come back before churn ends, churn ends while the
 * workers still charge, the workers stop, and the NMI handler goes last
 * (the workers' hotplug state starts and stops the NMI senders).  An actor is a kthread of
 * its own (@threadfn) or a pair of hooks; @stop also runs after the kthread
 * of an actor that has both.
 */
struct stress_actor {
	const char *name;
	bool (*wanted)(struct stress_run *run);
	int (*threadfn)(void *data);
	int (*start)(struct stress_run *run);
	void (*stop)(struct stress_run *run);
};

static const struct stress_actor stress_actors[NR_STRESS_ACTORS] = {
	[ACTOR_NMI]	= { "NMI handler", nmi_wanted, NULL, nmi_start, nmi_stop },
	[ACTOR_WORKERS] = { "workers", NULL, NULL, workers_start, workers_stop },
	[ACTOR_DRAINER] = { "drainer", drainer_wanted, stress_drainer_fn, NULL, NULL },
	[ACTOR_CHURN]	= { "churn", churn_wanted, stress_churn_fn, NULL, NULL },
	[ACTOR_HOTPLUG] = { "hotplug", stress_hotplug_wanted, stress_hotplug_fn, NULL,
			    hotplug_stop },
};

void stress_actors_stop(struct stress_run *run)
{
	int i;

	for (i = NR_STRESS_ACTORS - 1; i >= 0; i--) {
		const struct stress_actor *a = &stress_actors[i];

		if (!test_bit(i, &run->actors_running))
			continue;
		if (run->actor[i]) {
			kthread_stop(run->actor[i]);
			run->actor[i] = NULL;
		}
		if (a->stop)
			a->stop(run);
		clear_bit(i, &run->actors_running);
	}
}

int stress_actors_start(struct stress_run *run)
{
	const struct stress_actor *a;
	int i, ret;

	for (i = 0; i < NR_STRESS_ACTORS; i++) {
		a = &stress_actors[i];
		if (a->wanted && !a->wanted(run))
			continue;
		if (a->threadfn) {
			struct task_struct *task;

			task = kthread_run(a->threadfn, run, "mcs_stress_%s", a->name);
			if (IS_ERR(task)) {
				ret = PTR_ERR(task);
				goto err;
			}
			run->actor[i] = task;
		} else {
			ret = a->start(run);
			if (ret)
				goto err;
		}
		set_bit(i, &run->actors_running);
	}
	return 0;

err:
	mcs_log("stress: cannot start the %s: %pe\n", a->name, ERR_PTR(ret));
	stress_actors_stop(run);
	return ret;
}

/* ---- building and releasing a case ----------------------------------------------- */

void stress_free_cpus(struct stress_run *run)
{
	struct stress_cpu **cpus;
	int cpu;

	mutex_lock(&stress_mutex);
	cpus = run->cpu;
	run->cpu = NULL;
	mutex_unlock(&stress_mutex);
	if (!cpus)
		return;
	for_each_possible_cpu(cpu)
		kvfree(cpus[cpu]);
	kfree(cpus);
}

int stress_setup_cpus(struct stress_run *run)
{
	struct stress_cpu **cpus;
	unsigned int i;
	int cpu;

	cpus = kcalloc(nr_cpu_ids, sizeof(*cpus), GFP_KERNEL);
	if (!cpus)
		return -ENOMEM;
	mutex_lock(&stress_mutex);
	run->cpu = cpus;
	mutex_unlock(&stress_mutex);

	/* every possible CPU: hotplug may bring any of them up */
	for_each_possible_cpu(cpu) {
		struct stress_cpu *c;

		c = kvzalloc_node(sizeof(*c), GFP_KERNEL, cpu_to_node(cpu));
		if (!c)
			return -ENOMEM;
		c->run = run;
		c->seed_hard = stress_seed();
		c->seed_soft = stress_seed();
		c->seed_nmi = stress_seed();
		mcs_hrtimer_setup(&c->hard, stress_hardirq_fn, CLOCK_MONOTONIC,
				  HRTIMER_MODE_REL_PINNED_HARD);
		mcs_hrtimer_setup(&c->soft, stress_softirq_fn, CLOCK_MONOTONIC,
				  HRTIMER_MODE_REL_PINNED_SOFT);
		mcs_hrtimer_setup(&c->nmi, stress_nmi_send_fn, CLOCK_MONOTONIC,
				  HRTIMER_MODE_REL_PINNED_HARD);
		for (i = 0; i < STRESS_MAX_THREADS; i++) {
			c->worker[i].run = run;
			c->worker[i].seed = stress_seed();
		}
		cpus[cpu] = c;
	}
	return 0;
}

static int stress_add_memcg(struct stress_run *run, unsigned int i)
{
	struct stress_memcg *sm = &run->memcg[i];
	struct mcs_memcg *parent = NULL;
	char name[MCS_NAME_LEN];
	int ret;

	/* chains of @depth memcgs: memcg i sits at level i % depth */
	sm->parent = i % run->cfg.depth ? (int)i - 1 : -1;
	sm->children = 0;
	if (sm->parent >= 0)
		parent = run->memcg[sm->parent].memcg;
	snprintf(name, sizeof(name), "stress-%u", i);
	sm->memcg = mcs_memcg_create(parent, name);
	if (IS_ERR(sm->memcg))
		return PTR_ERR(sm->memcg);
	sm->objcg = mcs_memcg_tryget_objcg(sm->memcg);
	if (!sm->objcg) {
		ret = -ENOENT;
		goto err_memcg;
	}
	if (run->cfg.limit) {
		ret = mcs_memcg_set_max(sm->memcg, run->cfg.limit);
		if (ret)
			goto err_objcg;
	}
	if (sm->parent >= 0)
		run->memcg[sm->parent].children++;
	return 0;

err_objcg:
	mcs_objcg_put(sm->objcg);
err_memcg:
	mcs_memcg_offline(sm->memcg);
	mcs_memcg_put(sm->memcg);
	return ret;
}

int stress_setup_tree(struct stress_run *run)
{
	unsigned int i;
	int ret;

	for (i = 0; i < run->cfg.memcgs; i++) {
		ret = stress_add_memcg(run, i);
		if (ret)
			return ret;
		mutex_lock(&stress_mutex);
		run->nr_memcgs = i + 1;
		mutex_unlock(&stress_mutex);
	}
	return 0;
}

/*
 * Offline leaves first.  Offlining moves a memcg's objcg pages to its
 * parent and drains its stocks, so nothing may be left at its level.
 */
void stress_teardown_tree(struct stress_run *run)
{
	unsigned long usage;
	unsigned int n;
	int i;

	mutex_lock(&stress_mutex);
	n = run->nr_memcgs;
	run->nr_memcgs = 0;
	mutex_unlock(&stress_mutex);

	for (i = 0; i < n; i++)
		mcs_objcg_put(run->memcg[i].objcg);
	for (i = n - 1; i >= 0; i--) {
		struct mcs_memcg *memcg = run->memcg[i].memcg;

		mcs_memcg_offline(memcg);
		usage = mcs_memcg_usage(memcg);
		if (usage)
			stress_violation(run, CHECK_COUNTERS, "memcg %u: usage %lu after offline",
					 memcg->id, usage);
		mcs_memcg_put(memcg);
	}
}

static void ring_release(struct stress_run *run, struct stress_ring *ring)
{
	unsigned int i;

	for (i = 0; i < STRESS_RING_SLOTS; i++) {
		rcu_read_lock();
		stress_release(run, &ring->slot[i], NULL);
		rcu_read_unlock();
	}
}

/* The load is stopped: release what the rings still hold. */
void stress_release_load(struct stress_run *run)
{
	unsigned int i;
	int cpu;

	if (!run->cpu)
		return;
	for_each_possible_cpu(cpu) {
		struct stress_cpu *c = run->cpu[cpu];

		if (!c)
			continue;
		ring_release(run, &c->ring_hard);
		ring_release(run, &c->ring_soft);
		ring_release(run, &c->ring_nmi);
		for (i = 0; i < STRESS_MAX_THREADS; i++)
			ring_release(run, &c->worker[i].ring);
	}
	ring_release(run, &run->churn_ring);
}
