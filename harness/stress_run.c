// SPDX-License-Identifier: GPL-2.0
/*
 * The stress harness's driver (see stress.h): the case table, the run
 * state, and the controller that runs each case and reports it.
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

DEFINE_MUTEX(stress_mutex);		/* the run state, config, results */
struct stress_config stress_config;	/* under stress_mutex */
bool stress_dead;			/* module exit began */
struct stress_run stress_run;
struct workqueue_struct *stress_wq;

const char * const stress_ctx_names[NR_STRESS_CTX] = {
	"task", "softirq", "hardirq", "churn", "nmi",
};

const char * const stress_status_names[] = {
	"running", "done", "stopped", "setup-failed", "skipped",
};

const char * const stress_check_names[NR_STRESS_CHECKS] = {
	"counters_zero", "references_zero", "leftover_zero", "stats_exact",
	"objects_freed", "no_underflow", "no_misuse", "no_errors",
};

const char * const stress_feature_names[] = { "off", "unsupported", "on" };

const struct stress_case stress_cases[STRESS_NR_CASES] = {
	/* name          threads  page_pct  flags */
	{ "task",	 1,	  50,	    0 },
	{ "softirq",	 1,	  50,	    CASE_SOFTIRQ },
	{ "hardirq",	 1,	  50,	    CASE_HARDIRQ },
	{ "contexts",	 2,	  50,	    CASE_IRQS | CASE_DRAIN | CASE_NMI },
	{ "bytes",	 1,	  0,	    CASE_IRQS | CASE_DRAIN },
	{ "limit",	 2,	  100,	    CASE_IRQS | CASE_DRAIN | CASE_LIMIT },
	{ "churn",	 1,	  50,	    CASE_IRQS | CASE_DRAIN | CASE_CHURN | CASE_NMI },
	{ "hotplug",	 1,	  50,	    CASE_IRQS | CASE_DRAIN | CASE_CHURN | CASE_HOTPLUG |
					    CASE_NMI },
	{ "nmi",	 1,	  50,	    CASE_NMI | CASE_NMI_ONLY },
};

/* ---- the driver ----------------------------------------------------------------------- */

void stress_tally_add(struct stress_tally *sum, const struct stress_tally *t)
{
	sum->ops += t->ops;
	sum->page_charges += t->page_charges;
	sum->byte_charges += t->byte_charges;
	sum->cancels += t->cancels;
	sum->batches += t->batches;
	sum->migrations += t->migrations;
	sum->refusals += t->refusals;
	sum->offline += t->offline;
	sum->trylock_fail += t->trylock_fail;
	sum->commits_tree += t->commits_tree;
	sum->commits_churn += t->commits_churn;
	if (!sum->errors)
		sum->first_error = t->first_error;
	sum->errors += t->errors;
}

static void timer_stat_add(struct stress_timer_stat *sum, const struct stress_timer_stat *st)
{
	sum->expiries += st->expiries;
	sum->stretched += st->stretched;
}

/* Sum every writer's counts into the result; the load has stopped. */
static void stress_collect(struct stress_run *run)
{
	struct stress_result *res = run->res;
	unsigned int i;
	int cpu;

	if (run->cpu) {
		for_each_possible_cpu(cpu) {
			struct stress_cpu *c = run->cpu[cpu];

			if (!c)
				continue;
			stress_tally_add(&res->ctx[CTX_HARDIRQ], &c->tally_hard);
			stress_tally_add(&res->ctx[CTX_SOFTIRQ], &c->tally_soft);
			stress_tally_add(&res->ctx[CTX_NMI], &c->tally_nmi);
			timer_stat_add(&res->timer[CTX_HARDIRQ], &c->stat_hard);
			timer_stat_add(&res->timer[CTX_SOFTIRQ], &c->stat_soft);
			timer_stat_add(&res->timer[CTX_NMI], &c->stat_nmi);
			res->nmi_sent += c->nmi_sent;
			res->nmi_handled += c->nmi_handled;
			res->nmi_busy += c->nmi_busy;
			res->nmi_lost += c->nmi_lost;
			for (i = 0; i < STRESS_MAX_THREADS; i++)
				stress_tally_add(&res->ctx[CTX_TASK], &c->worker[i].tally);
		}
	}
	stress_tally_add(&res->ctx[CTX_CHURN], &run->churn_tally);
	for (i = 0; i < NR_MCS_EVENTS; i++)
		res->events[i] += run->churn_events[i];
	res->drains_async = run->drains_async;
	res->drains_sync = run->drains_sync;
	res->churn_created = run->churn_created;
	res->churn_released = run->churn_released;
	res->alloc_failures = run->alloc_failures;
	res->faults_injected = run->faults_injected;
	res->hotplug_cycles = run->hotplug_cycles;
	res->hotplug_errors = run->hotplug_errors;
	res->nmi_lost += run->nmi_stuck;
}

unsigned long stress_ops_done(struct stress_run *run)
{
	unsigned long ops = READ_ONCE(run->churn_tally.ops);
	unsigned int i;
	int cpu;

	if (!run->cpu)
		return ops;
	for_each_possible_cpu(cpu) {
		struct stress_cpu *c = run->cpu[cpu];

		if (!c)
			continue;
		ops += READ_ONCE(c->tally_hard.ops) + READ_ONCE(c->tally_soft.ops) +
		       READ_ONCE(c->tally_nmi.ops);
		for (i = 0; i < STRESS_MAX_THREADS; i++)
			ops += READ_ONCE(c->worker[i].tally.ops);
	}
	return ops;
}

static bool stress_budget_spent(struct stress_run *run)
{
	unsigned int i;
	int cpu;

	for_each_cpu(cpu, &run->online_at_start)
		for (i = 0; i < run->cfg.threads; i++)
			if (READ_ONCE(run->cpu[cpu]->worker[i].tally.ops) < run->cfg.ops)
				return false;
	return true;
}

static void stress_case_config(struct stress_config *cfg, const struct stress_config *base,
			       const struct stress_case *sc)
{
	*cfg = *base;
	if (!sc)
		return;
	cfg->threads = sc->threads;
	cfg->page_pct = sc->page_pct;
	/* stress_start() refused a case whose period the config turned off */
	if (!(sc->flags & CASE_HARDIRQ))
		cfg->hardirq_us = 0;
	cfg->softirq = !!(sc->flags & CASE_SOFTIRQ);
	if (!(sc->flags & CASE_DRAIN))
		cfg->drain_ms = 0;
	cfg->churn = !!(sc->flags & CASE_CHURN);
	cfg->hotplug = !!(sc->flags & CASE_HOTPLUG);
	if (!(sc->flags & CASE_NMI))
		cfg->nmi_us = 0;
	cfg->limit = 0;
	if (sc->flags & CASE_LIMIT)
		cfg->limit = base->limit ?: STRESS_CASE_LIMIT;
}

/* Everything of the previous case is gone; start from zero. */
static void stress_reset_case(struct stress_run *run)
{
	memset(run->memcg, 0, sizeof(run->memcg));
	memset(&run->churn_ring, 0, sizeof(run->churn_ring));
	memset(&run->churn_tally, 0, sizeof(run->churn_tally));
	memset(run->churn_events, 0, sizeof(run->churn_events));
	RCU_INIT_POINTER(run->churn_pub, NULL);
	run->churn_seed = stress_seed();
	run->nr_grave = 0;
	run->churn_attempts = 0;
	run->churn_created = 0;
	run->churn_released = 0;
	run->churn_pgpgin = 0;
	run->alloc_failures = 0;
	run->faults_injected = 0;
	run->drains_async = 0;
	run->drains_sync = 0;
	run->hotplug_cycles = 0;
	run->hotplug_errors = 0;
	run->nmi_stuck = 0;
	run->actors_running = 0;
	atomic_set(&run->worker_failures, 0);
	run->fail_nth = READ_ONCE(stress_fail_nth);
	run->hard_period = ns_to_ktime((u64)run->cfg.hardirq_us * NSEC_PER_USEC);
	run->soft_period = ns_to_ktime((u64)STRESS_SOFTIRQ_US * NSEC_PER_USEC);
	run->nmi_period = ns_to_ktime((u64)run->cfg.nmi_us * NSEC_PER_USEC);
	cpumask_copy(&run->online_at_start, cpu_online_mask);
	run->ops_expected = (u64)run->cfg.ops * run->cfg.threads *
			    cpumask_weight(&run->online_at_start);
}

/*
 * A case whose CPU hotplug cycling has not completed one down/up cycle yet
 * goes on (up to STRESS_HOTPLUG_WAIT_MS more) rather than end untested:
 * a cycle takes hundreds of milliseconds on a slow machine.
 */
static bool stress_hotplug_pending(struct stress_run *run, ktime_t deadline)
{
	return stress_hotplug_wanted(run) && !READ_ONCE(run->hotplug_cycles) &&
	       ktime_before(ktime_get(), ktime_add_ms(deadline, STRESS_HOTPLUG_WAIT_MS));
}

/* The load runs: until the duration, the ops budget or a stop. */
static void stress_load_wait(struct stress_run *run)
{
	ktime_t deadline = ktime_add_ms(run->started, run->cfg.duration_ms);

	while (!wait_event_timeout(run->wait, READ_ONCE(run->stop_req),
				   msecs_to_jiffies(STRESS_TICK_MS))) {
		if (stress_hotplug_pending(run, deadline))
			continue;
		if (ktime_after(ktime_get(), deadline))
			break;
		if (run->cfg.ops && stress_budget_spent(run))
			break;
	}
}

/*
 * Start the load generators, let them run, stop them.  The elapsed time
 * covers every operation counted: from before the first generator starts
 * until the last one has stopped, so that ops / elapsed is a true rate
 * even for a case stopped at once.
 */
static int stress_load(struct stress_run *run)
{
	int ret = 0;

	mutex_lock(&stress_mutex);
	run->phase = PHASE_LOAD;
	run->started = ktime_get();
	mutex_unlock(&stress_mutex);

	if (!READ_ONCE(run->stop_req)) {
		ret = stress_actors_start(run);
		if (!ret) {
			stress_load_wait(run);
			stress_actors_stop(run);
		}
	}

	mutex_lock(&stress_mutex);
	if (run->stop_req)
		run->res->status = STATUS_STOPPED;
	run->res->elapsed_us = ktime_us_delta(ktime_get(), run->started);
	mutex_unlock(&stress_mutex);
	return ret;
}

/*
 * A case's summary line: its block in "results" has it all, so the kernel
 * log gets it only when the case failed, or when module exit stopped the
 * run (then nobody reads "results" any more); otherwise pr_debug().
 */
static void stress_report(struct stress_result *res)
{
	char line[STRESS_SUMMARY_LEN];
	const struct stress_tally *t = res->ctx;
	unsigned long hits = res->events[MCS_STOCK_HIT];
	unsigned long lookups = hits + res->events[MCS_STOCK_MISS];
	unsigned long irqs = res->timer[CTX_HARDIRQ].expiries;
	u64 ops = 0, mops, hit, period;
	unsigned long refusals = 0;
	int i;

	for (i = 0; i < NR_STRESS_CTX; i++) {
		ops += t[i].ops;
		refusals += t[i].refusals;
	}
	period = irqs ? div64_u64(res->elapsed_us * max(res->cpus, 1U), irqs) : 0;
	mops = div64_u64(ops * 1000, max_t(u64, res->elapsed_us, 1));
	hit = lookups ? div64_u64((u64)hits * 10000, lookups) : 0;
	scnprintf(line, sizeof(line),
		  "stress: %s %s %s ops=%llu (task %lu softirq %lu hardirq %lu churn %lu nmi %lu) %llu.%03llu Mops/s hit=%llu.%02llu%% trylock_fail=%lu refusals=%lu drains=%lu churn=%lu alloc_failures=%lu hotplug=%s/%lu hardirq_period_us=%llu nmi=%s\n",
		  res->name, res->nr_violations ? "FAIL" : "PASS", stress_status_names[res->status],
		  ops, t[CTX_TASK].ops,
		  t[CTX_SOFTIRQ].ops, t[CTX_HARDIRQ].ops, t[CTX_CHURN].ops, t[CTX_NMI].ops,
		  mops / 1000, mops % 1000, hit / 100, hit % 100, res->events[MCS_TRYLOCK_FAIL],
		  refusals, res->drains_async + res->drains_sync,
		  res->churn_created, res->alloc_failures, stress_feature_names[res->hotplug],
		  res->hotplug_cycles, period, stress_feature_names[res->nmi]);
	if (res->nr_violations || READ_ONCE(stress_dead))
		mcs_log("%s", line);
	else
		pr_debug("memcg_stock: %s", line);
}

/*
 * A case about NMI on a kernel without an NMI source: nothing runs and
 * nothing is checked, and the block says so (no check_* lines).
 */
static void stress_skip(struct stress_result *res)
{
	mutex_lock(&stress_mutex);
	res->status = STATUS_SKIPPED;
	mutex_unlock(&stress_mutex);
	pr_debug("memcg_stock: stress: %s SKIP: this kernel has no NMI source (UML, non-x86): nmi=%s\n",
		 res->name, stress_feature_names[res->nmi]);
}

/* One case: build, load, stop, release, drain, check, tear down. */
static void stress_run_case(struct stress_run *run, unsigned int k)
{
	const struct stress_case *sc = NULL;
	struct stress_result *res = &run->result[k];
	struct stress_snapshot pre;
	int ret;

	if (run->first_case >= 0)
		sc = &stress_cases[run->first_case + k];

	mutex_lock(&stress_mutex);
	memset(res, 0, sizeof(*res));
	res->name = sc ? sc->name : "custom";
	res->status = STATUS_RUNNING;
	stress_case_config(&run->cfg, &run->base, sc);
	res->cfg = run->cfg;
	run->res = res;
	run->nr_results = k + 1;
	run->phase = PHASE_SETUP;
	mutex_unlock(&stress_mutex);

	stress_reset_case(run);
	res->mode = mcs_stock_get_mode();
	res->cpus = num_online_cpus();
	res->hotplug = FEATURE_OFF;
	if (run->cfg.hotplug)
		res->hotplug = stress_hotplug_probe(run) ? FEATURE_ON : FEATURE_UNSUPPORTED;
	res->hotplug_refused = run->hotplug_refused;
	res->nmi = FEATURE_OFF;
	if (run->cfg.nmi_us)
		res->nmi = mcs_nmi_supported() ? FEATURE_ON : FEATURE_UNSUPPORTED;
	/* only in "all": a lone case about NMI was refused at the start */
	if (sc && (sc->flags & CASE_NMI_ONLY) && res->nmi != FEATURE_ON) {
		stress_skip(res);
		return;
	}

	stress_settle(&pre);
	ret = stress_setup_cpus(run);
	if (!ret)
		ret = stress_setup_tree(run);
	if (!ret)
		ret = stress_load(run);
	if (ret) {
		res->status = STATUS_SETUP_FAILED;
		res->setup_error = ret;
	}

	mutex_lock(&stress_mutex);
	run->phase = PHASE_CHECK;
	mutex_unlock(&stress_mutex);

	stress_release_load(run);
	mcs_drain_all_stock(mcs_root_memcg(), true);
	stress_graveyard_reap(run, true);
	mcs_wait_for_frees();
	stress_collect(run);
	stress_check_tree(run);
	stress_teardown_tree(run);
	stress_free_cpus(run);
	stress_check_settled(run, &pre);

	mutex_lock(&stress_mutex);
	if (res->status == STATUS_RUNNING)
		res->status = STATUS_DONE;
	mutex_unlock(&stress_mutex);
	stress_report(res);
}

void stress_controller(struct work_struct *work)
{
	struct stress_run *run = container_of(work, struct stress_run, work);
	unsigned int k;

	for (k = 0; k < run->nr_cases && !READ_ONCE(run->stop_req); k++)
		stress_run_case(run, k);

	/* whoever sees the run ended may claim the harness */
	mutex_lock(&stress_mutex);
	run->state = READ_ONCE(run->stop_req) ? STATE_STOPPED : STATE_DONE;
	mcs_harness_release(MCS_USER_STRESS);
	mutex_unlock(&stress_mutex);
}
