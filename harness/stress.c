// SPDX-License-Identifier: GPL-2.0
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
 * one summary line in the kernel log and a block in "results".
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

/* Trylock-failure buckets (see stress_probe): one per tree memcg, one for churn. */
#define STRESS_CHURN_BUCKET	STRESS_MAX_MEMCGS
#define STRESS_NR_BUCKETS	(STRESS_MAX_MEMCGS + 1)

static unsigned int stress_fail_nth;
module_param(stress_fail_nth, uint, 0644);
MODULE_PARM_DESC(stress_fail_nth,
		 "Stress harness: every Nth churn memcg creation fails on purpose (0: never)");

/* ---- configuration ------------------------------------------------------- */

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

static const struct stress_config stress_defaults = {
	.memcgs = 8, .depth = 2, .threads = 1, .duration_ms = 1000, .ops = 0,
	.page_pct = 50, .pages_max = 8, .bytes_max = 1024, .limit = 0,
	.hardirq_us = 100, .softirq = 1, .drain_ms = 20, .churn = 1, .hotplug = 0,
	.nmi_us = 100,
};

struct stress_key {
	const char *name;
	size_t offset;
	unsigned int min;
	unsigned int max;
	bool zero_off;		/* 0 is accepted too, meaning off */
};

#define STRESS_KEY(field, lo, hi, off)					\
	{ .name = #field, .offset = offsetof(struct stress_config, field), \
	  .min = (lo), .max = (hi), .zero_off = (off) }

static const struct stress_key stress_keys[] = {
	STRESS_KEY(memcgs, 1, STRESS_MAX_MEMCGS, false),
	STRESS_KEY(depth, 1, STRESS_MAX_DEPTH, false),
	STRESS_KEY(threads, 1, STRESS_MAX_THREADS, false),
	STRESS_KEY(duration_ms, 10, 600000, false),
	STRESS_KEY(ops, 1, 1000000000, true),
	STRESS_KEY(page_pct, 0, 100, false),
	STRESS_KEY(pages_max, 1, 4 * MCS_CHARGE_BATCH, false),
	STRESS_KEY(bytes_max, 8, 65536, false),
	STRESS_KEY(limit, 1, 1 << 24, true),
	STRESS_KEY(hardirq_us, 10, 1000000, true),
	STRESS_KEY(softirq, 0, 1, false),
	STRESS_KEY(drain_ms, 1, 10000, true),
	STRESS_KEY(churn, 0, 1, false),
	STRESS_KEY(hotplug, 0, 1, false),
	STRESS_KEY(nmi_us, 10, 1000000, true),
};

/* The one key that is not a number: it maps to mcs_stock_set_mode(). */
#define STRESS_MODE_KEY		"mode"

/* ---- the case table ----------------------------------------------------- */

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

static const struct stress_case stress_cases[] = {
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

/* ---- run state ------------------------------------------------------------- */

enum stress_ctx { CTX_TASK, CTX_SOFTIRQ, CTX_HARDIRQ, CTX_CHURN, CTX_NMI, NR_STRESS_CTX };

static const char * const ctx_names[NR_STRESS_CTX] = {
	"task", "softirq", "hardirq", "churn", "nmi",
};

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

static const char * const status_names[] = {
	"running", "done", "stopped", "setup-failed", "skipped",
};

/* The invariants, each reported as check_<name>=ok|FAIL. */
enum stress_check {
	CHECK_COUNTERS, CHECK_REFS, CHECK_LEFTOVER, CHECK_STATS, CHECK_FREED,
	CHECK_UNDERFLOW, CHECK_MISUSE, CHECK_ERRORS, NR_STRESS_CHECKS,
};

static const char * const check_names[NR_STRESS_CHECKS] = {
	"counters_zero", "references_zero", "leftover_zero", "stats_exact",
	"objects_freed", "no_underflow", "no_misuse", "no_errors",
};

/* An optional load (CPU hotplug, NMI): asked for, and can the kernel do it? */
enum stress_feature { FEATURE_OFF, FEATURE_UNSUPPORTED, FEATURE_ON };

static const char * const feature_names[] = { "off", "unsupported", "on" };

static const char * const event_names[NR_MCS_EVENTS] = {
	"stock_hit", "stock_miss", "trylock_fail", "refill", "drain",
	"max_event", "force_charge",
};

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

static const char * const state_names[] = { "idle", "running", "done", "stopped" };

enum stress_phase { PHASE_SETUP, PHASE_LOAD, PHASE_CHECK };

static const char * const phase_names[] = { "setup", "load", "check" };

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
	struct stress_result result[ARRAY_SIZE(stress_cases)];
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

static DEFINE_MUTEX(stress_mutex);
static struct stress_config stress_config;	/* under stress_mutex */
static bool stress_dead;			/* module exit began */
static struct stress_run stress_run;
static struct workqueue_struct *stress_wq;

/* ---- violations ----------------------------------------------------------- */

static __printf(3, 4)
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
			  "%s%s: %s", len ? "; " : "", check_names[check], msg);
		pr_warn("memcg_stock: stress: %s: invariant violated: %s: %s\n",
			res->name, check_names[check], msg);
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

static u32 stress_seed(void)
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
 * The obj stock has no event counter: its fallbacks are not seen here.
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
		ret = mcs_try_charge_page(&l->charge, memcg, stress_gfp(ctx, r2),
					  1 + (r2 >> 8) % cfg->pages_max);
		if (!ret && !(r2 >> 28)) {
			mcs_cancel_charge(&l->charge);
			t->cancels++;
		} else if (!ret) {
			mcs_commit_charge(&l->charge);
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
		mcs_uncharge(&l->charge);
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
		mcs_uncharge_batch(batch, n);
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
		mcs_migrate_charge(&l->charge, &to->charge);
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
 * The next expiry of an interrupt timer whose callback ran from @start
 * until now: one period after the previous expiry, unless that leaves the
 * CPU less than STRESS_IRQ_IDLE times the callback's cost before the next
 * one.  A callback slower than its period (hardirq_us=10 under KASAN, or on
 * UML where an interrupt costs host signals) would otherwise run back to
 * back and starve everything else on the CPU, RCU's kthreads included: the
 * timer takes at most 1 / (1 + STRESS_IRQ_IDLE) of the CPU.  The NMI
 * sender also keeps the next expiry at or after @not_before (the target's
 * quiet time; 0 for the others).  The results report how often that
 * stretched the period and the period achieved.
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

static enum hrtimer_restart stress_hardirq_fn(struct hrtimer *timer)
{
	struct stress_cpu *c = container_of(timer, struct stress_cpu, hard);
	ktime_t start = ktime_get();
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
	ktime_t start = ktime_get(), not_before = 0;
	unsigned int t;
	u64 now, quiet;

	if (READ_ONCE(c->stopping))
		return HRTIMER_NORESTART;
	t = stress_nmi_target(run, smp_processor_id());
	if (t < nr_cpu_ids) {
		now = ktime_get_mono_fast_ns();
		quiet = READ_ONCE(run->cpu[t]->nmi_quiet_until);
		if (now < quiet)
			not_before = ktime_add_ns(start, quiet - now);
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
	churn->objcg = mcs_get_objcg(churn->memcg);
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

static void graveyard_reap(struct stress_run *run, bool final)
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
		graveyard_reap(run, false);
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

static bool stress_hotplug_supported(void)
{
	unsigned int cpu;

	if (!IS_ENABLED(CONFIG_HOTPLUG_CPU) || num_online_cpus() < 2)
		return false;
	for_each_online_cpu(cpu)
		if (cpu_is_hotpluggable(cpu))
			return true;
	return false;
}

static bool hotplug_wanted(struct stress_run *run)
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

/* The next hotpluggable online CPU after @last, or nr_cpu_ids. */
static unsigned int stress_hotplug_pick(unsigned int last)
{
	unsigned int i, cpu = last;

	if (num_online_cpus() < 2)
		return nr_cpu_ids;
	for (i = 0; i < nr_cpu_ids; i++) {
		cpu = cpumask_next(cpu, cpu_online_mask);
		if (cpu >= nr_cpu_ids)
			cpu = cpumask_first(cpu_online_mask);
		if (cpu_is_hotpluggable(cpu))
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
		cpu = stress_hotplug_pick(cpu);
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
	[ACTOR_HOTPLUG] = { "hotplug", hotplug_wanted, stress_hotplug_fn, NULL, hotplug_stop },
};

static void actors_stop(struct stress_run *run)
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

static int actors_start(struct stress_run *run)
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
	pr_warn("memcg_stock: stress: cannot start the %s: %pe\n", a->name, ERR_PTR(ret));
	actors_stop(run);
	return ret;
}

/* ---- building and releasing a case ----------------------------------------------- */

static void stress_free_cpus(struct stress_run *run)
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

static int stress_setup_cpus(struct stress_run *run)
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
	sm->objcg = mcs_get_objcg(sm->memcg);
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

static int stress_setup_tree(struct stress_run *run)
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
static void stress_teardown_tree(struct stress_run *run)
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
static void stress_release_load(struct stress_run *run)
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

/* ---- invariant checks --------------------------------------------------------------- */

static void stress_settle(struct stress_snapshot *s)
{
	mcs_drain_all_stock(mcs_root_memcg(), true);
	mcs_wait_for_frees();
	s->memcgs = mcs_memcg_nr_alive();
	s->objcgs = mcs_objcg_nr_alive();
	s->underflows = mcs_page_counter_underflows();
	s->misuses = mcs_charge_misuses();
	s->root_usage = mcs_memcg_usage(mcs_root_memcg());
}

/* Is @memcg in the tree or below it?  Under rcu_read_lock(). */
static bool stress_owns(struct stress_run *run, struct mcs_memcg *memcg)
{
	unsigned int i;

	for (; memcg; memcg = READ_ONCE(memcg->parent))
		for (i = 0; i < run->nr_memcgs; i++)
			if (run->memcg[i].memcg == memcg)
				return true;
	return false;
}

/* After the drain no stock of any CPU may hold anything of the tree. */
static void stress_check_stocks(struct stress_run *run)
{
	unsigned int nr_memcg = 0, nr_obj = 0, id = 0;
	int cpu, i, where = -1;

	rcu_read_lock();
	for_each_possible_cpu(cpu) {
		struct mcs_memcg_stock *ms = per_cpu_ptr(&mcs_memcg_stock, cpu);
		struct mcs_obj_stock *os = per_cpu_ptr(&mcs_obj_stock, cpu);
		struct mcs_coupled_stock *cs = per_cpu_ptr(&mcs_coupled_stock, cpu);
		struct mcs_memcg *memcg;
		struct mcs_objcg *objcg;

		for (i = 0; i <= NR_MEMCG_STOCK; i++) {
			/* the decoupled slots, then the coupled stock's one */
			memcg = i < NR_MEMCG_STOCK ? READ_ONCE(ms->cached[i]) :
						     READ_ONCE(cs->cached);
			if (memcg && stress_owns(run, memcg) && !nr_memcg++) {
				where = cpu;
				id = memcg->id;
			}
		}
		for (i = 0; i <= NR_OBJ_STOCK; i++) {
			objcg = i < NR_OBJ_STOCK ? READ_ONCE(os->cached[i]) :
						   READ_ONCE(cs->cached_objcg);
			if (objcg && stress_owns(run, READ_ONCE(objcg->memcg)) &&
			    !nr_obj++ && where < 0) {
				where = cpu;
				id = READ_ONCE(objcg->memcg)->id;
			}
		}
	}
	rcu_read_unlock();
	if (nr_memcg || nr_obj)
		stress_violation(run, CHECK_REFS,
				 "%u memcg and %u obj stock slots still cached (first: cpu %d, memcg %u)",
				 nr_memcg, nr_obj, where, id);
}

/*
 * Everything was released and drained.  Leftovers never keep whole pages
 * and the sub-page rests of freed objects add up to whole pages, so every
 * objcg holds 0 bytes and every memcg 0 pages, exactly.
 */
static void stress_check_tree(struct stress_run *run)
{
	struct stress_result *res = run->res;
	unsigned long commits = 0, pgpgin = 0;
	unsigned int n = run->nr_memcgs;
	int i, nid, item;

	for (i = 0; i < n; i++) {
		struct stress_memcg *sm = &run->memcg[i];
		unsigned int refs = refcount_read(&sm->memcg->refcnt);
		unsigned int id = sm->memcg->id;
		struct mcs_memcg_stat st;
		long pages, in, out;
		int ev;

		mcs_memcg_stat(sm->memcg, &st);
		for (ev = 0; ev < NR_MCS_EVENTS; ev++)
			res->events[ev] += st.events[ev];
		/* whole pages never stay on a leftover: nothing may be left */
		if (mcs_objcg_leftover_bytes(sm->objcg))
			stress_violation(run, CHECK_LEFTOVER, "memcg %u: objcg keeps %u bytes",
					 id, mcs_objcg_leftover_bytes(sm->objcg));
		if (st.usage)
			stress_violation(run, CHECK_COUNTERS, "memcg %u: usage %lu after the drain",
					 id, st.usage);
		/* ours, plus one per child memcg */
		if (refs != 1 + sm->children)
			stress_violation(run, CHECK_REFS, "memcg %u: %u references, expected %u",
					 id, refs, 1 + sm->children);
		for_each_node(nid)
			for (item = 0; item < NR_MCS_SLAB_ITEMS; item++) {
				long b = mcs_memcg_slab_stat(sm->memcg, nid, item);

				if (b)
					stress_violation(run, CHECK_STATS,
							 "memcg %u: node %d slab item %d: %ld bytes",
							 id, nid, item, b);
			}
		pages = mcs_charge_stat(sm->memcg, MCS_CHARGED_PAGES);
		in = mcs_charge_stat(sm->memcg, MCS_PGPGIN);
		out = mcs_charge_stat(sm->memcg, MCS_PGPGOUT);
		if (pages || in != out)
			stress_violation(run, CHECK_STATS,
					 "memcg %u: charged_pages %ld pgpgin %ld pgpgout %ld",
					 id, pages, in, out);
		pgpgin += in;
	}

	for (i = 0; i < NR_STRESS_CTX; i++)
		commits += res->ctx[i].commits_tree;
	if (pgpgin != commits)
		stress_violation(run, CHECK_STATS, "tree: pgpgin %lu, %lu charges committed",
				 pgpgin, commits);
	commits = 0;
	for (i = 0; i < NR_STRESS_CTX; i++)
		commits += res->ctx[i].commits_churn;
	if (run->churn_pgpgin != commits)
		stress_violation(run, CHECK_STATS, "churn: pgpgin %lu, %lu charges committed",
				 run->churn_pgpgin, commits);

	stress_check_stocks(run);
}

/* After the tree is gone: every object freed, nothing underflowed. */
static void stress_check_settled(struct stress_run *run, const struct stress_snapshot *pre)
{
	struct stress_result *res = run->res;
	struct stress_snapshot post;
	int i;

	stress_settle(&post);
	if (post.memcgs != pre->memcgs)
		stress_violation(run, CHECK_FREED, "%ld memcgs alive, %ld before",
				 post.memcgs, pre->memcgs);
	if (post.objcgs != pre->objcgs)
		stress_violation(run, CHECK_FREED, "%ld objcgs alive, %ld before",
				 post.objcgs, pre->objcgs);
	if (post.root_usage != pre->root_usage)
		stress_violation(run, CHECK_COUNTERS, "root usage %lu, %lu before",
				 post.root_usage, pre->root_usage);
	if (post.underflows != pre->underflows)
		stress_violation(run, CHECK_UNDERFLOW, "%ld page counter underflows",
				 post.underflows - pre->underflows);
	if (post.misuses != pre->misuses)
		stress_violation(run, CHECK_MISUSE, "%ld charge descriptor misuses",
				 post.misuses - pre->misuses);
	for (i = 0; i < NR_STRESS_CTX; i++)
		if (res->ctx[i].errors)
			stress_violation(run, CHECK_ERRORS, "%s: %lu unexpected errors, first %d",
					 ctx_names[i], res->ctx[i].errors, res->ctx[i].first_error);
	if (atomic_read(&run->worker_failures))
		stress_violation(run, CHECK_ERRORS, "%d workers could not be created",
				 atomic_read(&run->worker_failures));
	/* NMI load on: NMIs were handled, and none was lost */
	if (res->nmi == FEATURE_ON && res->status == STATUS_RUNNING && !res->ctx[CTX_NMI].ops)
		stress_violation(run, CHECK_ERRORS, "nmi: no operation in NMI (%lu sent, %lu busy)",
				 res->nmi_sent, res->nmi_busy);
	if (res->nmi_lost)
		stress_violation(run, CHECK_ERRORS, "nmi: %lu NMIs never handled", res->nmi_lost);
	/* a case that ran its course with hotplug on must have cycled a CPU */
	if (res->hotplug == FEATURE_ON && res->status == STATUS_RUNNING && !res->hotplug_cycles)
		stress_violation(run, CHECK_ERRORS,
				 "hotplug: no CPU down/up cycle completed in %llu ms (%lu errors)",
				 div_u64(res->elapsed_us, 1000), res->hotplug_errors);
}

/* ---- the driver ----------------------------------------------------------------------- */

static void tally_add(struct stress_tally *sum, const struct stress_tally *t)
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
			tally_add(&res->ctx[CTX_HARDIRQ], &c->tally_hard);
			tally_add(&res->ctx[CTX_SOFTIRQ], &c->tally_soft);
			tally_add(&res->ctx[CTX_NMI], &c->tally_nmi);
			timer_stat_add(&res->timer[CTX_HARDIRQ], &c->stat_hard);
			timer_stat_add(&res->timer[CTX_SOFTIRQ], &c->stat_soft);
			timer_stat_add(&res->timer[CTX_NMI], &c->stat_nmi);
			res->nmi_sent += c->nmi_sent;
			res->nmi_handled += c->nmi_handled;
			res->nmi_busy += c->nmi_busy;
			res->nmi_lost += c->nmi_lost;
			for (i = 0; i < STRESS_MAX_THREADS; i++)
				tally_add(&res->ctx[CTX_TASK], &c->worker[i].tally);
		}
	}
	tally_add(&res->ctx[CTX_CHURN], &run->churn_tally);
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

static unsigned long stress_ops_done(struct stress_run *run)
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
	return hotplug_wanted(run) && !READ_ONCE(run->hotplug_cycles) &&
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
		ret = actors_start(run);
		if (!ret) {
			stress_load_wait(run);
			actors_stop(run);
		}
	}

	mutex_lock(&stress_mutex);
	if (run->stop_req)
		run->res->status = STATUS_STOPPED;
	run->res->elapsed_us = ktime_us_delta(ktime_get(), run->started);
	mutex_unlock(&stress_mutex);
	return ret;
}

static void stress_report(struct stress_result *res)
{
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
	pr_info("memcg_stock: stress: %s %s %s ops=%llu (task %lu softirq %lu hardirq %lu churn %lu nmi %lu) %llu.%03llu Mops/s hit=%llu.%02llu%% trylock_fail=%lu refusals=%lu drains=%lu churn=%lu alloc_failures=%lu hotplug=%s/%lu hardirq_period_us=%llu nmi=%s\n",
		res->name, res->nr_violations ? "FAIL" : "PASS", status_names[res->status],
		ops, t[CTX_TASK].ops,
		t[CTX_SOFTIRQ].ops, t[CTX_HARDIRQ].ops, t[CTX_CHURN].ops, t[CTX_NMI].ops,
		mops / 1000, mops % 1000, hit / 100, hit % 100, res->events[MCS_TRYLOCK_FAIL],
		refusals, res->drains_async + res->drains_sync,
		res->churn_created, res->alloc_failures, feature_names[res->hotplug],
		res->hotplug_cycles, period, feature_names[res->nmi]);
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
	pr_info("memcg_stock: stress: %s SKIP: this kernel has no NMI source (UML, non-x86): nmi=%s\n",
		res->name, feature_names[res->nmi]);
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
		res->hotplug = stress_hotplug_supported() ? FEATURE_ON : FEATURE_UNSUPPORTED;
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
	graveyard_reap(run, true);
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

static void stress_controller(struct work_struct *work)
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

/* ---- debugfs: config ------------------------------------------------------------------- */

static unsigned int *config_field(struct stress_config *cfg, const struct stress_key *key)
{
	return (void *)cfg + key->offset;
}

/* A parsed write: applied whole or not at all. */
struct config_update {
	unsigned int value[ARRAY_SIZE(stress_keys)];
	unsigned long seen;
	int mode;			/* -1: no mode= token */
};

#define CONFIG_WHAT	"stress: config"

static int config_parse_mode(const char *value, struct config_update *up)
{
	const char *names[NR_MCS_MODES];
	int i;

	if (up->mode >= 0) {
		pr_warn("memcg_stock: stress: config: key 'mode' given twice\n");
		return -EINVAL;
	}
	for (i = 0; i < NR_MCS_MODES; i++)
		names[i] = mcs_stock_mode_name(i);
	i = mcs_input_match(CONFIG_WHAT, STRESS_MODE_KEY, value, names, NR_MCS_MODES);
	if (i < 0)
		return i;
	up->mode = i;
	return 0;
}

/* One key=value token, checked by mcs_input_copy() for its shape. */
static int config_parse_token(char *tok, struct config_update *up)
{
	const struct stress_key *key;
	char *name, *value;
	unsigned int i, v;
	int ret;

	ret = mcs_input_kv(CONFIG_WHAT, tok, &name, &value);
	if (ret)
		return ret;
	if (!strcmp(name, STRESS_MODE_KEY))
		return config_parse_mode(value, up);

	for (i = 0; i < ARRAY_SIZE(stress_keys); i++)
		if (!strcmp(name, stress_keys[i].name))
			break;
	if (i == ARRAY_SIZE(stress_keys)) {
		pr_warn("memcg_stock: stress: config: unknown key '%s'\n", name);
		return -EINVAL;
	}
	key = &stress_keys[i];
	if (up->seen & BIT(i)) {
		pr_warn("memcg_stock: stress: config: key '%s' given twice\n", key->name);
		return -EINVAL;
	}
	ret = mcs_input_uint(CONFIG_WHAT, key->name, value, key->min, key->max,
			     key->zero_off, &v);
	if (ret)
		return ret;
	up->value[i] = v;
	up->seen |= BIT(i);
	return 0;
}

/*
 * Under the harness claim of a config write: a benchmark or a self-check
 * in progress (they switch the stock mode too) makes it -EBUSY, and so
 * does a stress run, which holds the claim from its start to its end.
 */
static int config_apply(const struct config_update *up)
{
	unsigned int i;
	int ret = 0;

	mutex_lock(&stress_mutex);
	if (stress_dead) {
		ret = -ENODEV;
		goto unlock;
	}
	if (stress_run.state == STATE_RUNNING) {
		pr_warn("memcg_stock: stress: config: a run is in progress\n");
		ret = -EBUSY;
		goto unlock;
	}
	ret = mcs_harness_claim(MCS_USER_CONFIG);
	if (ret)
		goto unlock;
	/* the only step that can fail comes first: a refusal changes nothing */
	if (up->mode >= 0) {
		ret = mcs_stock_set_mode(up->mode);
		if (ret)
			pr_warn("memcg_stock: stress: config: mode=%s: %pe\n",
				mcs_stock_mode_name(up->mode), ERR_PTR(ret));
	}
	if (!ret)
		for (i = 0; i < ARRAY_SIZE(stress_keys); i++)
			if (up->seen & BIT(i))
				*config_field(&stress_config, &stress_keys[i]) = up->value[i];
	mcs_harness_release(MCS_USER_CONFIG);
unlock:
	mutex_unlock(&stress_mutex);
	return ret;
}

/*
 * One or more lines of key=value tokens separated by single blanks
 * (mcs_input_copy() has the exact rules), each line at most
 * STRESS_LINE_MAX characters.  Applied whole or not at all.
 */
static ssize_t config_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	struct config_update up = { .mode = -1 };
	char *buf, *cursor, *tok;
	int ret = 0;

	BUILD_BUG_ON(ARRAY_SIZE(stress_keys) > BITS_PER_LONG);
	buf = mcs_input_copy(CONFIG_WHAT, ubuf, count, STRESS_LINE_MAX, true);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	cursor = buf;
	while (!ret && (tok = mcs_input_next(&cursor)))
		ret = config_parse_token(tok, &up);
	if (!ret)
		ret = config_apply(&up);
	kfree(buf);
	return ret ?: count;
}

static int config_show(struct seq_file *m, void *v)
{
	unsigned int i;

	mutex_lock(&stress_mutex);
	for (i = 0; i < ARRAY_SIZE(stress_keys); i++)
		seq_printf(m, "%s=%u\n", stress_keys[i].name,
			   *config_field(&stress_config, &stress_keys[i]));
	seq_printf(m, "%s=%s\n", STRESS_MODE_KEY, mcs_stock_mode_name(mcs_stock_get_mode()));
	mutex_unlock(&stress_mutex);
	return 0;
}

static int config_open(struct inode *inode, struct file *file)
{
	return single_open(file, config_show, NULL);
}

static const struct file_operations config_fops = {
	.owner = THIS_MODULE,
	.open = config_open,
	.read = seq_read,
	.write = config_write,
	.llseek = seq_lseek,
	.release = single_release,
};

/* ---- debugfs: run ------------------------------------------------------------------------ */

/*
 * A case turns on the contexts it names whatever the config's softirq,
 * churn and hotplug keys say, but takes the hardirq, drainer and NMI
 * periods from the config: when the config turned one off (0), a case that
 * needs it cannot run as configured and is refused rather than run with a
 * period nobody asked for.  (The cases that merely add NMI load run
 * without it when nmi_us=0 or the kernel has no NMI source: nmi=off or
 * nmi=unsupported in their results.)  The case about NMI alone on a kernel
 * without NMIs is refused with -EOPNOTSUPP.
 */
static int stress_cases_runnable(const struct stress_config *cfg, int first,
				 unsigned int nr)
{
	unsigned int k;

	for (k = 0; first >= 0 && k < nr; k++) {
		const struct stress_case *sc = &stress_cases[first + k];

		if ((sc->flags & CASE_HARDIRQ) && !cfg->hardirq_us) {
			pr_warn("memcg_stock: stress: run: case %s needs hardirq context, but hardirq_us=0 (off)\n",
				sc->name);
			return -EINVAL;
		}
		if ((sc->flags & CASE_DRAIN) && !cfg->drain_ms) {
			pr_warn("memcg_stock: stress: run: case %s needs the drainer, but drain_ms=0 (off)\n",
				sc->name);
			return -EINVAL;
		}
		if ((sc->flags & CASE_NMI_ONLY) && !cfg->nmi_us) {
			pr_warn("memcg_stock: stress: run: case %s needs NMI context, but nmi_us=0 (off)\n",
				sc->name);
			return -EINVAL;
		}
		/* alone it is refused; within "all" it is skipped and says so */
		if ((sc->flags & CASE_NMI_ONLY) && nr == 1 && !mcs_nmi_supported()) {
			pr_warn("memcg_stock: stress: run: case %s needs NMI context, but this kernel has no NMI source (UML, non-x86): nmi=unsupported\n",
				sc->name);
			return -EOPNOTSUPP;
		}
	}
	return 0;
}

/*
 * A run holds the harness claim from here until its controller has
 * finished (stress_controller() releases it), so that a benchmark, a
 * self-check or a config write cannot change the stock mode or the
 * global counters under it.
 */
static int stress_start(int first, unsigned int nr)
{
	struct stress_run *run = &stress_run;
	int ret;

	mutex_lock(&stress_mutex);
	if (stress_dead) {
		ret = -ENODEV;
		goto unlock;
	}
	if (run->state == STATE_RUNNING) {
		pr_warn("memcg_stock: stress: run: a run is in progress\n");
		ret = -EBUSY;
		goto unlock;
	}
	ret = stress_cases_runnable(&stress_config, first, nr);
	if (ret)
		goto unlock;
	ret = mcs_harness_claim(MCS_USER_STRESS);
	if (ret)
		goto unlock;
	run->base = stress_config;
	run->first_case = first;
	run->nr_cases = nr;
	run->nr_results = 0;
	run->res = NULL;
	WRITE_ONCE(run->stop_req, false);
	run->state = STATE_RUNNING;
	queue_work(stress_wq, &run->work);
unlock:
	mutex_unlock(&stress_mutex);
	return ret;
}

static void stress_stop(void)
{
	mutex_lock(&stress_mutex);
	if (stress_run.state == STATE_RUNNING)
		WRITE_ONCE(stress_run.stop_req, true);
	mutex_unlock(&stress_mutex);
	wake_up(&stress_run.wait);
}

/* One command, one line: 1, all, a case name, stop (or 0). */
static ssize_t run_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	char *buf, *cursor, *cmd;
	unsigned int i;
	int ret;

	buf = mcs_input_copy("stress: run", ubuf, count, STRESS_CMD_MAX, false);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	cursor = buf;
	cmd = mcs_input_next(&cursor);
	if (cursor) {
		pr_warn("memcg_stock: stress: run: one command expected\n");
		ret = -EINVAL;
	} else if (!strcmp(cmd, "stop") || !strcmp(cmd, "0")) {
		stress_stop();
		ret = 0;
	} else if (!strcmp(cmd, "1")) {
		ret = stress_start(-1, 1);
	} else if (!strcmp(cmd, "all")) {
		ret = stress_start(0, ARRAY_SIZE(stress_cases));
	} else {
		for (i = 0; i < ARRAY_SIZE(stress_cases); i++)
			if (!strcmp(cmd, stress_cases[i].name))
				break;
		if (i < ARRAY_SIZE(stress_cases)) {
			ret = stress_start(i, 1);
		} else {
			pr_warn("memcg_stock: stress: run: '%s': expected 1, all, stop or a case name\n",
				cmd);
			ret = -EINVAL;
		}
	}
	kfree(buf);
	return ret ?: count;
}

static const char *stress_run_name(struct stress_run *run)
{
	if (run->first_case < 0)
		return "custom";
	return run->nr_cases > 1 ? "all" : stress_cases[run->first_case].name;
}

static bool stress_failed(struct stress_run *run)
{
	unsigned int k;

	for (k = 0; k < run->nr_results; k++)
		if (run->result[k].nr_violations)
			return true;
	return false;
}

static int run_show(struct seq_file *m, void *v)
{
	struct stress_run *run = &stress_run;
	unsigned int i;

	mutex_lock(&stress_mutex);
	seq_printf(m, "state=%s\n", state_names[run->state]);
	seq_puts(m, "cases_available=");
	for (i = 0; i < ARRAY_SIZE(stress_cases); i++)
		seq_printf(m, "%s%s", i ? " " : "", stress_cases[i].name);
	seq_putc(m, '\n');
	if (run->state == STATE_IDLE)
		goto unlock;

	seq_printf(m, "run=%s\ncases=%u/%u\n", stress_run_name(run),
		   run->nr_results - (run->state == STATE_RUNNING && run->nr_results),
		   run->nr_cases);
	if (run->state == STATE_RUNNING && run->res) {
		s64 elapsed = 0;

		if (run->phase == PHASE_LOAD)
			elapsed = ktime_ms_delta(ktime_get(), run->started);
		else if (run->phase == PHASE_CHECK)
			elapsed = div_u64(run->res->elapsed_us, 1000);
		seq_printf(m, "case=%s\nphase=%s\nelapsed_ms=%lld\nduration_ms=%u\nops_done=%lu\n",
			   run->res->name, phase_names[run->phase], elapsed,
			   run->cfg.duration_ms, stress_ops_done(run));
		if (run->cfg.ops)
			seq_printf(m, "ops_expected=%llu\n", run->ops_expected);
		else
			seq_puts(m, "ops_expected=none\n");
	} else if (run->state != STATE_RUNNING) {
		seq_printf(m, "verdict=%s\n", stress_failed(run) ? "FAIL" : "PASS");
	}
unlock:
	mutex_unlock(&stress_mutex);
	return 0;
}

static int run_open(struct inode *inode, struct file *file)
{
	return single_open(file, run_show, NULL);
}

static const struct file_operations run_fops = {
	.owner = THIS_MODULE,
	.open = run_open,
	.read = seq_read,
	.write = run_write,
	.llseek = seq_lseek,
	.release = single_release,
};

/* ---- debugfs: results ---------------------------------------------------------------------- */

/*
 * An interrupt timer's achieved period and rate per CPU, over the elapsed
 * time; 0 when it never expired.
 */
static void timer_show(struct seq_file *m, const struct stress_result *res,
		       enum stress_ctx ctx)
{
	const struct stress_timer_stat *st = &res->timer[ctx];
	u64 cpu_us = res->elapsed_us * max(res->cpus, 1U);
	u64 period = st->expiries ? div64_u64(cpu_us, st->expiries) : 0;
	u64 rate = div64_u64((u64)st->expiries * USEC_PER_SEC, max_t(u64, cpu_us, 1));

	seq_printf(m, "%s_expiries=%lu\n%s_stretched=%lu\n%s_period_us=%llu\n%s_rate_hz=%llu\n",
		   ctx_names[ctx], st->expiries, ctx_names[ctx], st->stretched,
		   ctx_names[ctx], period, ctx_names[ctx], rate);
}

static void result_show(struct seq_file *m, const struct stress_result *res)
{
	const struct stress_config *cfg = &res->cfg;
	unsigned long hits = res->events[MCS_STOCK_HIT];
	unsigned long lookups = hits + res->events[MCS_STOCK_MISS];
	struct stress_tally sum = { };
	u64 mops, hit;
	int i;

	seq_printf(m, "case=%s\nstatus=%s\n", res->name, status_names[res->status]);
	if (res->status == STATUS_RUNNING)
		return;
	if (res->status == STATUS_SKIPPED) {
		/* nothing ran, nothing was checked: no verdict of PASS, no check_* */
		seq_printf(m, "verdict=SKIP\nnmi=%s\nskip_reason=no NMI source in this kernel (UML, non-x86)\n",
			   feature_names[res->nmi]);
		return;
	}
	seq_printf(m, "verdict=%s\n", res->nr_violations ? "FAIL" : "PASS");
	if (res->status == STATUS_SETUP_FAILED)
		seq_printf(m, "setup_error=%d\n", res->setup_error);
	seq_printf(m, "mode=%s\ncpus=%u\n", mcs_stock_mode_name(res->mode), res->cpus);
	seq_printf(m, "memcgs=%u\ndepth=%u\nthreads=%u\nduration_ms=%u\nops_budget=%u\n",
		   cfg->memcgs, cfg->depth, cfg->threads, cfg->duration_ms, cfg->ops);
	seq_printf(m, "page_pct=%u\npages_max=%u\nbytes_max=%u\nlimit=%u\n",
		   cfg->page_pct, cfg->pages_max, cfg->bytes_max, cfg->limit);
	seq_printf(m, "hardirq_us=%u\nsoftirq=%u\ndrain_ms=%u\nchurn=%u\nnmi_us=%u\n",
		   cfg->hardirq_us, cfg->softirq, cfg->drain_ms, cfg->churn, cfg->nmi_us);
	seq_printf(m, "elapsed_ms=%llu\n", div_u64(res->elapsed_us, 1000));
	timer_show(m, res, CTX_HARDIRQ);
	timer_show(m, res, CTX_SOFTIRQ);
	timer_show(m, res, CTX_NMI);

	for (i = 0; i < NR_STRESS_CTX; i++)
		tally_add(&sum, &res->ctx[i]);
	seq_printf(m, "ops=%lu\n", sum.ops);
	for (i = 0; i < NR_STRESS_CTX; i++)
		seq_printf(m, "ops_%s=%lu\n", ctx_names[i], res->ctx[i].ops);
	mops = div64_u64((u64)sum.ops * 1000, max_t(u64, res->elapsed_us, 1));
	seq_printf(m, "mops=%llu.%03llu\n", mops / 1000, mops % 1000);
	seq_printf(m, "page_charges=%lu\nbyte_charges=%lu\ncancels=%lu\nbatches=%lu\nmigrations=%lu\n",
		   sum.page_charges, sum.byte_charges, sum.cancels, sum.batches,
		   sum.migrations);

	hit = lookups ? div64_u64((u64)hits * 10000, lookups) : 0;
	seq_printf(m, "stock_hits=%lu\nslow_path_charges=%lu\nstock_hit_pct=%llu.%02llu\n",
		   hits, res->events[MCS_STOCK_MISS], hit / 100, hit % 100);
	seq_printf(m, "trylock_fail=%lu\n", res->events[MCS_TRYLOCK_FAIL]);
	for (i = 0; i < NR_STRESS_CTX; i++)
		seq_printf(m, "trylock_fail_%s=%lu\n", ctx_names[i], res->ctx[i].trylock_fail);
	seq_printf(m, "limit_refusals=%lu\n", sum.refusals);
	for (i = 0; i < NR_STRESS_CTX; i++)
		seq_printf(m, "limit_refusals_%s=%lu\n", ctx_names[i], res->ctx[i].refusals);
	seq_printf(m, "max_events=%lu\nforced_charges=%lu\noffline_refusals=%lu\n",
		   res->events[MCS_MAX_EVENT], res->events[MCS_FORCE_CHARGE], sum.offline);
	seq_printf(m, "drains_async=%lu\ndrains_sync=%lu\ndrain_events=%lu\nrefill_events=%lu\n",
		   res->drains_async, res->drains_sync, res->events[MCS_DRAIN],
		   res->events[MCS_REFILL]);
	seq_printf(m, "churn_created=%lu\nchurn_released=%lu\nalloc_failures=%lu\nfaults_injected=%lu\n",
		   res->churn_created, res->churn_released, res->alloc_failures,
		   res->faults_injected);
	seq_printf(m, "hotplug=%s\nhotplug_cycles=%lu\nhotplug_errors=%lu\n",
		   feature_names[res->hotplug], res->hotplug_cycles, res->hotplug_errors);
	seq_printf(m, "nmi=%s\nnmi_sent=%lu\nnmi_handled=%lu\nnmi_busy=%lu\nnmi_lost=%lu\n",
		   feature_names[res->nmi], res->nmi_sent, res->nmi_handled, res->nmi_busy,
		   res->nmi_lost);
	for (i = 0; i < NR_STRESS_CHECKS; i++)
		seq_printf(m, "check_%s=%s\n", check_names[i], res->failed[i] ? "FAIL" : "ok");
	seq_printf(m, "violations=%u\n", res->nr_violations);
	if (res->nr_violations)
		seq_printf(m, "violation=%s\n", res->violations);
}

static int results_show(struct seq_file *m, void *v)
{
	struct stress_run *run = &stress_run;
	unsigned int k;

	mutex_lock(&stress_mutex);
	seq_printf(m, "state=%s\n", state_names[run->state]);
	if (run->state != STATE_IDLE) {
		seq_printf(m, "run=%s\ncases=%u\n", stress_run_name(run), run->nr_results);
		if (run->state == STATE_RUNNING)
			seq_puts(m, "verdict=running\n");
		else
			seq_printf(m, "verdict=%s\n", stress_failed(run) ? "FAIL" : "PASS");
		for (k = 0; k < run->nr_results; k++) {
			seq_putc(m, '\n');
			result_show(m, &run->result[k]);
		}
	}
	mutex_unlock(&stress_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(results);

/* ---- debugfs: stocks and memcgs ---------------------------------------------------------- */

/* The one memcg and one objcg of the "coupled" mode's stock, if cached. */
static void stocks_show_coupled(struct seq_file *m, int cpu)
{
	struct mcs_coupled_stock *cs = per_cpu_ptr(&mcs_coupled_stock, cpu);
	struct mcs_memcg *memcg = READ_ONCE(cs->cached);
	struct mcs_objcg *objcg = READ_ONCE(cs->cached_objcg);

	if (memcg)
		seq_printf(m, "cpu=%d stock=coupled memcg=%u pages=%u\n",
			   cpu, memcg->id, READ_ONCE(cs->nr_pages));
	if (objcg)
		seq_printf(m, "cpu=%d stock=coupled_obj memcg=%u bytes=%u node=%d slab_reclaimable_b=%d slab_unreclaimable_b=%d\n",
			   cpu, READ_ONCE(objcg->memcg)->id, READ_ONCE(cs->nr_bytes),
			   READ_ONCE(cs->cached_nid),
			   READ_ONCE(cs->nr_slab_b[MCS_SLAB_RECLAIMABLE]),
			   READ_ONCE(cs->nr_slab_b[MCS_SLAB_UNRECLAIMABLE]));
}

/*
 * Other CPUs' stocks are read without their locks, the way the drain
 * decides what to drain: slot contents may be stale, the memcgs and objcgs
 * stay allocated under RCU.  Every mode's stocks are shown: after a mode
 * switch the old ones must be empty.
 */
static int stocks_show(struct seq_file *m, void *v)
{
	int cpu, i;

	seq_printf(m, "mode=%s\n", mcs_stock_mode_name(mcs_stock_get_mode()));
	rcu_read_lock();
	for_each_possible_cpu(cpu) {
		struct mcs_memcg_stock *ms = per_cpu_ptr(&mcs_memcg_stock, cpu);
		struct mcs_obj_stock *os = per_cpu_ptr(&mcs_obj_stock, cpu);
		int idx = READ_ONCE(os->index);

		seq_printf(m, "cpu=%d online=%d\n", cpu, cpu_online(cpu));
		for (i = 0; i < NR_MEMCG_STOCK; i++) {
			struct mcs_memcg *memcg = READ_ONCE(ms->cached[i]);

			if (memcg)
				seq_printf(m, "cpu=%d stock=memcg slot=%d memcg=%u pages=%u\n",
					   cpu, i, memcg->id, READ_ONCE(ms->nr_pages[i]));
		}
		for (i = 0; i < NR_OBJ_STOCK; i++) {
			struct mcs_objcg *objcg = READ_ONCE(os->cached[i]);

			if (objcg)
				seq_printf(m, "cpu=%d stock=obj slot=%d memcg=%u bytes=%u\n",
					   cpu, i, READ_ONCE(objcg->memcg)->id,
					   READ_ONCE(os->nr_bytes[i]));
		}
		if (idx >= 0)
			seq_printf(m, "cpu=%d stock=obj_stats slot=%d node=%d slab_reclaimable_b=%d slab_unreclaimable_b=%d\n",
				   cpu, idx, READ_ONCE(os->node_id),
				   READ_ONCE(os->nr_slab_b[MCS_SLAB_RECLAIMABLE]),
				   READ_ONCE(os->nr_slab_b[MCS_SLAB_UNRECLAIMABLE]));
		stocks_show_coupled(m, cpu);
	}
	rcu_read_unlock();
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stocks);

static void memcg_show_line(struct seq_file *m, struct mcs_memcg *memcg)
{
	struct mcs_memcg_stat st;
	int i;

	mcs_memcg_stat(memcg, &st);
	seq_printf(m, "%*sid=%u name=%s depth=%d usage=%lu", 2 * memcg->depth, "",
		   memcg->id, memcg->name, memcg->depth, st.usage);
	if (st.max >= MCS_PAGE_COUNTER_MAX)
		seq_puts(m, " max=max");
	else
		seq_printf(m, " max=%lu", st.max);
	seq_printf(m, " watermark=%lu failcnt=%lu", st.watermark, st.failcnt);
	for (i = 0; i < NR_MCS_EVENTS; i++)
		seq_printf(m, " %s=%lu", event_names[i], st.events[i]);
	seq_putc(m, '\n');
}

/*
 * The module's root and the tree of the case being run, in tree order
 * (a parent's index is below its children's).  Churn memcgs come and go
 * too fast to list: they are counted.
 */
static int memcgs_show(struct seq_file *m, void *v)
{
	struct stress_run *run = &stress_run;
	unsigned int i;

	mutex_lock(&stress_mutex);
	seq_printf(m, "memcgs_alive=%ld objcgs_alive=%ld underflows=%ld misuses=%ld mode=%s\n",
		   mcs_memcg_nr_alive(), mcs_objcg_nr_alive(), mcs_page_counter_underflows(),
		   mcs_charge_misuses(), mcs_stock_mode_name(mcs_stock_get_mode()));
	memcg_show_line(m, mcs_root_memcg());
	for (i = 0; i < run->nr_memcgs; i++)
		memcg_show_line(m, run->memcg[i].memcg);
	if (run->state == STATE_RUNNING)
		seq_printf(m, "churn_published=%d churn_offline_held=%u\n",
			   !!rcu_access_pointer(run->churn_pub), READ_ONCE(run->nr_grave));
	mutex_unlock(&stress_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(memcgs);

/* ---- init and exit -------------------------------------------------------------------------- */

static const struct {
	const char *name;
	umode_t mode;
	const struct file_operations *fops;
} stress_files[] = {
	{ "config", 0600, &config_fops },
	{ "run", 0600, &run_fops },
	{ "results", 0400, &results_fops },
	{ "stocks", 0400, &stocks_fops },
	{ "memcgs", 0400, &memcgs_fops },
};

static struct dentry *stress_dentries[ARRAY_SIZE(stress_files)];

/**
 * mcs_stress_init() - create the stress harness and its debugfs files
 *
 * Called from module init (module.c), with mcs_debugfs_root created.
 *
 * Return: 0 or -ENOMEM.
 */
int mcs_stress_init(void)
{
	unsigned int i;

	stress_wq = alloc_workqueue("mcs_stress", WQ_UNBOUND, 1);
	if (!stress_wq)
		return -ENOMEM;
	init_waitqueue_head(&stress_run.wait);
	INIT_WORK(&stress_run.work, stress_controller);
	stress_config = stress_defaults;
	for (i = 0; i < ARRAY_SIZE(stress_files); i++)
		stress_dentries[i] = debugfs_create_file(stress_files[i].name, stress_files[i].mode,
							 mcs_debugfs_root, NULL,
							 stress_files[i].fops);
	return 0;
}

/**
 * mcs_stress_exit() - stop a running stress run and remove the harness
 *
 * Called first thing at module exit: a run in progress is stopped, its
 * charges are released and checked, and only then does the module tear
 * down what it charged.  Task context; sleeps until the run has ended.
 */
void mcs_stress_exit(void)
{
	unsigned int i;

	mutex_lock(&stress_mutex);
	stress_dead = true;
	WRITE_ONCE(stress_run.stop_req, true);
	mutex_unlock(&stress_mutex);
	wake_up(&stress_run.wait);

	/* handlers still inside a file finish before its removal returns */
	for (i = 0; i < ARRAY_SIZE(stress_files); i++)
		debugfs_remove(stress_dentries[i]);
	/* waits for the controller, which stops the load and checks the case */
	destroy_workqueue(stress_wq);
}
