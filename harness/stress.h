/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The charge stress harness, driven through debugfs memcg_stock/:
 *
 *   config   key=value lines: what the next run does; read: current values
 *   run      "1": run the config; "all" or a case name: cases of the table
 *            below; "stop"; read: state and progress
 *   results  key=value report of the last run, one block per case
 *   stocks   every CPU's memcg and obj stock slots (memcg ids, no pointers)
 *   memcgs   the module's root and the run's tree: counters and events
 *
 * A run walks a table of cases (stress_cases[], or the config alone for
 * "1") with one driver, stress_run_case(): build a memcg tree, start the
 * load generators (stress_actors[]), let them run for duration_ms or until
 * every task worker spent its ops budget, stop them, release every live
 * charge, drain every stock synchronously, and check the invariants
 * exactly: nothing the case charged may be left anywhere.  Each case gets
 * a block in "results"; the kernel log (mcs_log()) gets the violations and
 * the summary line of a case that failed or that module exit stopped.
 *
 * Load generators:
 *  - per CPU: "threads" bound kthreads (task context), a hard-mode hrtimer
 *    every hardirq_us (hardirq context) and a soft-mode hrtimer (softirq
 *    context).  Each keeps a ring of live charges; an operation charges a
 *    free slot (pages through the charge API, bytes through an objcg) or
 *    releases a busy one.  A CPU hotplug state starts and stops them, so a
 *    CPU that goes down and comes back is stopped and restarted cleanly;
 *  - per CPU, where the kernel has an NMI source (nmi.c; not UML) and
 *    nmi_us is set: a hard-mode hrtimer every nmi_us that sends an NMI to
 *    the next online CPU, whose handler runs operations on a ring of its
 *    own (NMI context: see "NMI load" below);
 *  - a drainer: asynchronous and synchronous drains of the whole tree and
 *    of subtrees, every drain_ms;
 *  - churn: creates a memcg below a random memcg of the tree, publishes it
 *    so that every context charges it too, takes it offline while they
 *    still do and with charges live, releases them, and holds the memcg
 *    until its last other reference is gone, to check that it is empty;
 *  - hotplug: takes a CPU down and brings it back (remove_cpu/add_cpu),
 *    where the kernel has CPU hotplug.
 *
 * Context rules:
 *  - stress_op() runs in task context (workers and the churn thread, with
 *    migration disabled around it), softirq and hardirq context, always
 *    inside rcu_read_lock() (the published churn memcg is RCU-protected)
 *    and with a gfp mask that allows blocking only in task context.  It
 *    calls only charge functions usable in any context.
 *  - Workers are bound kthreads, but a CPU going down is deactivated before
 *    the hotplug callback that stops its workers runs, and the scheduler
 *    moves them off meanwhile: for that short while a worker charges from
 *    another CPU.
 *  - Each ring and each tally has one writer: its worker, one CPU's timer,
 *    one CPU's NMI handler or the churn thread.  Progress readers read op
 *    counts racily.
 *  - The controller, a work item on stress_wq, does everything that sleeps:
 *    building and releasing the tree, starting and stopping the load,
 *    draining, checking.
 *  - The hotplug callbacks start and stop one CPU's workers and timers.
 *    They run under the CPU hotplug lock and never take stress_mutex, and
 *    nobody holds stress_mutex while calling into CPU hotplug or waiting
 *    for the load: that keeps the two locks unordered.
 *
 * Bounded time: every config that "config" accepts finishes within its
 * duration plus the time to set up and check.  Workers pass a real
 * preemption point after every operation (stress_preempt_point()), and the
 * interrupt timers stretch their period so that their callbacks take at
 * most a fifth of a CPU each (stress_timer_next()); "results" reports the
 * period achieved.  A case turns on the contexts it names, but refuses to
 * start when it needs a period that the config turned off (hardirq_us=0
 * or drain_ms=0): run returns -EINVAL.
 *
 * NMI load.  The handler runs stress_op() in NMI with a gfp mask without
 * reclaim bits, so every charge path it reaches only trylocks, and a last
 * reference it drops is released through the module's deferral.  At most
 * one NMI is in flight per CPU (nmi.c's handshake; a sender that finds one
 * pending skips its turn).  Senders aim only at CPUs whose hotplug state is
 * up (nmi_target); a CPU going down clears its flag, waits for an RCU grace
 * period (every sender is a hardirq, so one that saw the flag set has sent
 * by then) and for its pending NMI to be handled while it is still online,
 * so no handshake is left pending on an offline CPU and no NMI is sent to
 * one.  The handler stretches the load as the timers do: after each NMI the
 * target CPU stays quiet for STRESS_IRQ_IDLE times the handler's cost
 * (nmi_quiet_until), and senders wait for that.  Time in NMI comes from
 * ktime_get_mono_fast_ns(): ktime_get() may spin on the timekeeper's
 * seqcount, which the NMI may have interrupted.
 *
 * Exclusion: a run holds the harness claim (mcs_harness_claim(), shared
 * with the benchmark and the self-checks) from its start until its
 * controller ends, a config write while it applies; the loser gets -EBUSY.
 *
 * Lock order: stress_mutex, then the module's own locks (a config write
 * with mode= switches the stock mode, which drains, under stress_mutex).
 *
 * Files: stress_load.c (one operation, the load generators, building and
 * releasing a case), stress_checks.c (the invariants), stress_run.c (the
 * case table and the driver), stress_files.c (the debugfs files).
 */
#ifndef MEMCG_STOCK_STRESS_H
#define MEMCG_STOCK_STRESS_H

#include <linux/cpumask.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "harness.h"

#define STRESS_MAX_MEMCGS	64
#define STRESS_MAX_DEPTH	8
#define STRESS_MAX_THREADS	8
#define STRESS_RING_SLOTS	32	/* live charges per worker, timer, churn */
#define STRESS_IRQ_BATCH	4	/* operations per timer expiry */
#define STRESS_IRQ_IDLE		4	/* a timer leaves the CPU 4x its callback's cost */
#define STRESS_SOFTIRQ_US	100	/* period of the softirq timer */
#define STRESS_NMI_WAIT_MS	100	/* a CPU going down waits this long for its NMI */
#define STRESS_CHURN_OPS	16	/* churn thread operations per memcg */
#define STRESS_GRAVEYARD	128	/* offline churn memcgs awaiting their check */
#define STRESS_CASE_LIMIT	64	/* pages: "limit" case max when config has none */
#define STRESS_HOTPLUG_MS	20	/* pause between CPU hotplug cycles */
#define STRESS_HOTPLUG_WAIT_MS	20000	/* load extension awaiting a first hotplug cycle */
#define STRESS_TICK_MS		20	/* controller polling period */
#define STRESS_LINE_MAX		64	/* characters per config line */
#define STRESS_CMD_MAX		31	/* characters of a run command */
#define STRESS_LOGGED		8	/* violations logged per case */
#define STRESS_VIOLATION_LEN	640
#define STRESS_SUMMARY_LEN	384	/* a case's summary line */

/* Trylock-failure buckets (see stress_probe): one per tree memcg, one for churn. */
#define STRESS_CHURN_BUCKET	STRESS_MAX_MEMCGS
#define STRESS_NR_BUCKETS	(STRESS_MAX_MEMCGS + 1)

/*
 * What a case does.  Every field is a config key; 0 means "off" for the
 * keys whose table entry says so.
 */
struct stress_config {
	unsigned int memcgs;		/* memcgs in the tree */
	unsigned int depth;		/* levels: memcg i sits at level i % depth */
	unsigned int threads;		/* task workers per CPU */
	unsigned int duration_ms;	/* time bound of a case */
	unsigned int ops;		/* operations per task worker, 0: time only */
	unsigned int page_pct;		/* share of page (vs byte) charges */
	unsigned int pages_max;		/* pages per page charge: 1..pages_max */
	unsigned int bytes_max;		/* bytes per byte charge: 8..bytes_max */
	unsigned int limit;		/* max of every memcg in pages, 0: none */
	unsigned int hardirq_us;	/* hardirq timer period, 0: off */
	unsigned int softirq;		/* softirq timer on */
	unsigned int drain_ms;		/* drainer period, 0: off */
	unsigned int churn;		/* memcg churn on */
	unsigned int hotplug;		/* CPU hotplug cycling on */
	unsigned int nmi_us;		/* NMI sender period, 0: off */
};

#define CASE_HARDIRQ	BIT(0)
#define CASE_SOFTIRQ	BIT(1)
#define CASE_DRAIN	BIT(2)
#define CASE_CHURN	BIT(3)
#define CASE_HOTPLUG	BIT(4)
#define CASE_LIMIT	BIT(5)
#define CASE_NMI	BIT(6)	/* NMI load where nmi_us > 0 and the kernel has NMIs */
#define CASE_NMI_ONLY	BIT(7)	/* the case is about NMI: refused or skipped without */
#define CASE_IRQS	(CASE_HARDIRQ | CASE_SOFTIRQ)

/*
 * A case sets the context mix; the sizes (memcgs, depth, duration_ms, ops,
 * pages_max, bytes_max) and the periods and limit, when set, come from the
 * config.
 */
struct stress_case {
	const char *name;
	unsigned int threads;
	unsigned int page_pct;
	unsigned int flags;
};

#define STRESS_NR_CASES	9

enum stress_ctx { CTX_TASK, CTX_SOFTIRQ, CTX_HARDIRQ, CTX_CHURN, CTX_NMI, NR_STRESS_CTX };

/* Counts of one context, or of one worker; one writer each. */
struct stress_tally {
	unsigned long ops;
	unsigned long page_charges;
	unsigned long byte_charges;
	unsigned long cancels;
	unsigned long batches;
	unsigned long migrations;
	unsigned long refusals;		/* -ENOMEM: a limit said no */
	unsigned long offline;		/* -ENOENT: the churn memcg went offline */
	unsigned long trylock_fail;	/* memcg stock trylock failures, attributed */
	unsigned long commits_tree;
	unsigned long commits_churn;
	unsigned long errors;		/* anything else: a violation */
	int first_error;
};

/* A live charge: a committed page charge, or bytes charged to @objcg. */
struct stress_live {
	struct mcs_charge charge;
	struct mcs_objcg *objcg;
	unsigned int bytes;
	int nid;
	enum mcs_slab_item item;
	unsigned int home;		/* tree index: the objcg's memcg or its parent */
};

struct stress_ring {
	struct stress_live slot[STRESS_RING_SLOTS];
};

/* What an interrupt timer did; its callback is the one writer. */
struct stress_timer_stat {
	unsigned long expiries;
	unsigned long stretched;	/* later than one period: see stress_timer_next() */
};

struct stress_run;

struct stress_worker {
	struct task_struct *task;
	struct stress_run *run;
	u32 seed;
	struct stress_tally tally;
	struct stress_ring ring;
};

/*
 * One CPU's load.  The NMI fields: @nmi is this CPU's sender (hardirq: it
 * writes @stat_nmi, @nmi_sent and @nmi_busy); the handler, in NMI on this
 * CPU, writes @tally_nmi, @ring_nmi, @seed_nmi, @nmi_handled and
 * @nmi_quiet_until; the hotplug callbacks write @nmi_target and @nmi_lost.
 */
struct stress_cpu {
	struct stress_run *run;
	int stopping;
	struct hrtimer hard;
	struct hrtimer soft;
	struct hrtimer nmi;
	u32 seed_hard;
	u32 seed_soft;
	u32 seed_nmi;
	struct stress_tally tally_hard;
	struct stress_tally tally_soft;
	struct stress_tally tally_nmi;
	struct stress_timer_stat stat_hard;
	struct stress_timer_stat stat_soft;
	struct stress_timer_stat stat_nmi;	/* the sender's expiries */
	int nmi_target;			/* senders may aim at this CPU */
	u64 nmi_quiet_until;		/* mono fast ns: no NMI before */
	unsigned long nmi_sent;
	unsigned long nmi_handled;
	unsigned long nmi_busy;		/* turns skipped: the target's NMI was in flight */
	unsigned long nmi_lost;		/* sent, never handled before the CPU went down */
	struct stress_ring ring_hard;
	struct stress_ring ring_soft;
	struct stress_ring ring_nmi;
	local_t nested_fail[STRESS_NR_BUCKETS];
	struct stress_worker worker[STRESS_MAX_THREADS];
};

struct stress_memcg {
	struct mcs_memcg *memcg;
	struct mcs_objcg *objcg;
	int parent;			/* index, -1: child of the module's root */
	unsigned int children;
};

struct stress_churn {
	struct mcs_memcg *memcg;
	struct mcs_objcg *objcg;
	unsigned int parent;		/* tree index */
};

enum stress_status {
	STATUS_RUNNING, STATUS_DONE, STATUS_STOPPED, STATUS_SETUP_FAILED, STATUS_SKIPPED,
};

/* The invariants, each reported as check_<name>=ok|FAIL. */
enum stress_check {
	CHECK_COUNTERS, CHECK_REFS, CHECK_LEFTOVER, CHECK_STATS, CHECK_FREED,
	CHECK_UNDERFLOW, CHECK_MISUSE, CHECK_ERRORS, NR_STRESS_CHECKS,
};

/* An optional load (CPU hotplug, NMI): asked for, and can the kernel do it? */
enum stress_feature { FEATURE_OFF, FEATURE_UNSUPPORTED, FEATURE_ON };

struct stress_result {
	const char *name;
	enum stress_status status;
	int setup_error;
	struct stress_config cfg;
	enum mcs_stock_mode mode;
	unsigned int cpus;
	u64 elapsed_us;
	struct stress_tally ctx[NR_STRESS_CTX];
	unsigned long events[NR_MCS_EVENTS];
	unsigned long drains_async;
	unsigned long drains_sync;
	unsigned long churn_created;
	unsigned long churn_released;
	unsigned long alloc_failures;
	unsigned long faults_injected;
	struct stress_timer_stat timer[NR_STRESS_CTX];	/* softirq and hardirq */
	enum stress_feature hotplug;
	unsigned long hotplug_cycles;
	unsigned long hotplug_errors;
	int hotplug_refused;
	enum stress_feature nmi;
	unsigned long nmi_sent;
	unsigned long nmi_handled;
	unsigned long nmi_busy;
	unsigned long nmi_lost;
	unsigned int failed[NR_STRESS_CHECKS];
	unsigned int nr_violations;
	char violations[STRESS_VIOLATION_LEN];
};

enum stress_state { STATE_IDLE, STATE_RUNNING, STATE_DONE, STATE_STOPPED };

enum stress_phase { PHASE_SETUP, PHASE_LOAD, PHASE_CHECK };

enum {
	ACTOR_NMI, ACTOR_WORKERS, ACTOR_DRAINER, ACTOR_CHURN, ACTOR_HOTPLUG, NR_STRESS_ACTORS
};

/* Counts compared before and after a case, after a drain and the frees. */
struct stress_snapshot {
	long memcgs;
	long objcgs;
	long underflows;
	long misuses;
	unsigned long root_usage;
};

struct stress_run {
	/* under stress_mutex */
	enum stress_state state;
	enum stress_phase phase;
	struct stress_config base;	/* the config when the run started */
	int first_case;			/* -1: the config alone */
	unsigned int nr_cases;
	unsigned int nr_results;
	struct stress_result result[STRESS_NR_CASES];
	unsigned int nr_memcgs;		/* the tree built so far */
	struct stress_cpu **cpu;	/* nr_cpu_ids entries while a case runs */
	ktime_t started;

	/* the case being run: set up before its load starts */
	struct stress_config cfg;
	struct stress_result *res;
	struct stress_memcg memcg[STRESS_MAX_MEMCGS];
	ktime_t hard_period;
	ktime_t soft_period;
	ktime_t nmi_period;
	u64 ops_expected;
	unsigned int fail_nth;
	int hp_state;
	unsigned long actors_running;
	struct task_struct *actor[NR_STRESS_ACTORS];
	struct cpumask online_at_start;
	struct cpumask hotplug_cpus;
	int hotplug_refused;
	atomic_t worker_failures;

	/* written by the actor named, read by the controller after it stopped */
	struct stress_churn churn;		/* churn */
	struct stress_churn __rcu *churn_pub;
	struct stress_ring churn_ring;
	struct stress_tally churn_tally;
	u32 churn_seed;
	struct mcs_memcg *grave[STRESS_GRAVEYARD];
	unsigned int nr_grave;
	unsigned long churn_attempts;
	unsigned long churn_created;
	unsigned long churn_released;
	unsigned long churn_pgpgin;
	unsigned long churn_events[NR_MCS_EVENTS];
	unsigned long alloc_failures;
	unsigned long faults_injected;
	unsigned long drains_async;		/* drainer */
	unsigned long drains_sync;
	unsigned long hotplug_cycles;		/* hotplug */
	unsigned long hotplug_errors;
	unsigned long nmi_stuck;		/* NMI actor's stop */

	bool stop_req;			/* "stop" or module exit */
	wait_queue_head_t wait;
	struct work_struct work;
};

extern struct mutex stress_mutex;
extern struct stress_config stress_config;	/* under stress_mutex */
extern bool stress_dead;			/* module exit began */
extern struct stress_run stress_run;
extern struct workqueue_struct *stress_wq;
extern unsigned int stress_fail_nth;
extern const struct stress_case stress_cases[STRESS_NR_CASES];
extern const char * const stress_ctx_names[];
extern const char * const stress_status_names[];
extern const char * const stress_check_names[];
extern const char * const stress_feature_names[];

u32 stress_seed(void);
void stress_graveyard_reap(struct stress_run *run, bool final);
unsigned int stress_hotplug_probe(struct stress_run *run);
bool stress_hotplug_wanted(struct stress_run *run);
void stress_actors_stop(struct stress_run *run);
int stress_actors_start(struct stress_run *run);
void stress_free_cpus(struct stress_run *run);
int stress_setup_cpus(struct stress_run *run);
int stress_setup_tree(struct stress_run *run);
void stress_teardown_tree(struct stress_run *run);
void stress_release_load(struct stress_run *run);
__printf(3, 4)
void stress_violation(struct stress_run *run, enum stress_check check,
		      const char *fmt, ...);
void stress_settle(struct stress_snapshot *s);
void stress_check_tree(struct stress_run *run);
void stress_check_settled(struct stress_run *run, const struct stress_snapshot *pre);
void stress_tally_add(struct stress_tally *sum, const struct stress_tally *t);
unsigned long stress_ops_done(struct stress_run *run);
void stress_controller(struct work_struct *work);

#endif /* MEMCG_STOCK_STRESS_H */
