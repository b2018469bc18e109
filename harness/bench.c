// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs "bench": the A/B throughput benchmark behind `make bench`.
 *
 * A write of one line of key=value pairs runs one measurement and returns
 * when it is done; a read returns the result line of the last one:
 *
 *   echo "mode=coupled clients=4 workload=mixed hardirq=1 duration_ms=200" > bench
 *   cat bench
 *
 * Keys (each at most once; the ones left out take the value in brackets):
 * mode=decoupled|coupled|none|coupled-noirq|decoupled-owner|percpu-counter|
 *	hahn-v4|hahn-v6|decoupled-7.3 [decoupled],
 * clients=1..256 [1],
 * workload=pages|bytes|mixed|floor|bytes-256|bytes-1024|bytes-3000|drain|
 *	cross-pages|cross-bytes|limit-nowait|limit-kernel|replay [pages],
 * hardirq=0|1 [0], nmi=0|1 [0],
 * shared=0|1 [0], memcgs=1..256 [1] (clients x memcgs at most 1024),
 * duration_ms=1..10000 [200], pmu=off|hw|sw [off],
 * batch=1..64 [the module's charge_batch]: the charge batch for this run
 * (mcs_stock_set_bench_batch(), restored afterwards), e.g. 16 and 32, the
 * batch upstream proposes for 64K and 16K pages.
 * passes=1..8 [2], workload=replay only: passes of the stream (replay.c).
 * NAME=N: a parameter of the mode's design (struct mcs_bench_param, its
 * bounds and default in debugfs "modes"), set for this run and restored
 * afterwards; the result line ends with NAME=N for each parameter of the
 * mode.  A parameter of another mode's design is an unknown key; one that
 * must stay below another of its mode (struct mcs_bench_param's below,
 * "NAME:...<UPPER" in "modes") and is not, with the line's values and
 * the current ones of the others, refuses the line (MCS_ERR_PARAM_ORDER).
 * entry=mode|exported [mode]: the clients call the mode's own entry
 * functions (mcs_charge_pages_decoupled() ..., stock_designs.h), one
 * direct call as in a build with that design alone, the same for every
 * mode; or the exported functions, which add their switch on the mode.
 * "coupled-noirq" is a control that exists only here: the coupled stock
 * with preempt_disable() in place of its IRQ toggles (design_coupled.c).
 * Mode "none" charges pages to the counters directly and keeps bytes in
 * the objcg's atomic leftover: for bytes it is "objcg-atomic", not "no
 * stock".  The line goes through the module's strict
 * parser (parse.c): whole or nothing, so an empty or blank write, a
 * repeated or unknown key, a value out of range or a second line is
 * -EINVAL and runs nothing.
 *
 * Clients are kthreads bound round-robin to the online CPUs, each in its
 * own memcg below one shared parent (like netperf clients in their own
 * cgroups), each charging and uncharging in a tight loop: one page
 * (workload=pages), 64 bytes through its objcg (bytes), or both in turn
 * (mixed); with memcgs=N each client owns N memcgs and charges them in
 * turn (more than the 7 slots of a stock: eviction); with shared=1 all
 * clients charge client 0's memcgs and objcgs (one cgroup on many CPUs).
 * With hardirq=1 a hard hrtimer on every CPU charges and
 * uncharges from interrupt context at a fixed rate, which is where the
 * designs differ: the coupled stock makes the interrupt wait for nothing
 * (IRQs are off while a task holds the lock), the decoupled stock lets it
 * in and sends it to the slow path when the stock is busy.  workload=floor
 * is a bare per-CPU add/sub pair, the physical limit of a stock hit.
 * workload=drain is the pages pair followed by a synchronous drain of the
 * memcg charged (mcs_drain_all_stock(), as an offline does): the drain's
 * cost is the row's cost less the pages row's, and it grows with what the
 * design walks, the online CPUs' stocks or every memcg's per-CPU counts.
 * It takes no interrupt load (hardirq=1 or nmi=1 is -EINVAL).
 * workload=cross-pages and cross-bytes free on another CPU than they
 * charge: each client charges a page (64 bytes) to its own memcg and
 * hands it over to the next client, which uncharges it on its CPU (the
 * shape of request/response networking).  Each client hands a reserve
 * of BENCH_CROSS_RESERVE charges over before the load, so that every pair
 * finds one to uncharge however the CPUs interleave; "cross" in the result
 * counts the uncharges done in pairs (as many as "ops" unless a client
 * ran a reserve ahead of the previous one), what is left is settled after
 * the load.  2 clients or more.  With shared=1 every client charges client
 * 0's memcg and frees what the previous client charged to it: one cgroup
 * whose charges come from every CPU and whose frees each come on another
 * one, the shape of the kernel test robot's netperf SCTP_RR runs, where a
 * stock that uncharges instead of refilling sends every free to the
 * shared counter.
 * workload=limit-nowait and limit-kernel charge one memcg with a limit
 * from every client, each holding up to BENCH_LIMIT_HOLD pages
 * and then giving them back, with GFP_NOWAIT (no drain) or GFP_KERNEL;
 * the limit fits every page live, so each refusal ("refusals" of
 * "charges") is premature: charge held in stocks caused it.  The clients
 * take turns, one step each in client order, BENCH_LIMIT_STEPS steps
 * per client, so the sequence of charges is the same in every boot
 * whatever the CPUs' timing, and with GFP_NOWAIT so is the count of
 * refusals; with GFP_KERNEL a refusal's one retry races with the drain
 * it queued on the other CPUs ("ops" short of clients x
 * BENCH_LIMIT_STEPS means the duration ended the run first).
 * Both kinds take memcgs=1 and no hardirq or nmi (-EINVAL); the limit
 * workloads take no shared either.
 * "peak_pages" is the highest usage of the run's memcgs sampled every
 * BENCH_SAMPLE_MS during the load, live pages included.
 * workload=bytes-256, bytes-1024 and bytes-3000 charge objects of that
 * many bytes, sizes that leave a rest of the page, next to a neighbour: a
 * live object of PAGE_SIZE - 64 bytes that each client charges on each of
 * its objcgs before the load and frees after it, so that the stock holds
 * fewer bytes than the object (64) when the load starts (the interrupt
 * and NMI load of these workloads charges 64 bytes).  A stock that
 * gives whole pages back as soon as it holds more than one then charges
 * and uncharges a page per pair (ping-pong): the result's hits (page
 * charges served by the memcg stock) and refills (pages put back into it)
 * count that.
 * With nmi=1 the same timers send an NMI to the next online CPU (at most
 * one in flight per CPU, nmi.c), whose handler charges and uncharges with
 * a gfp without reclaim bits; where the kernel has no NMI source (UML) the
 * result says nmi=unsupported and the run has no NMI load.
 *
 * workload=replay runs the trace loaded into "trace_load" through the
 * mode instead (harness/replay.c: its own kthreads, one per recorded CPU;
 * clients and pmu do not apply; entry= as for the other workloads;
 * memcgs=1, no hardirq, nmi or shared).
 *
 * With pmu=hw each client CPU counts instructions and cycles in a pair
 * of in-kernel perf counters for the measured window, and the result
 * gives both per charge+uncharge pair; pmu=sw counts the software clocks
 * cpu-clock and task-clock through the same code (bench_pmu.c).  Where
 * the counters cannot be had (no PMU, no perf events) the result says
 * pmu=unavailable and the rest of the measurement stands.
 *
 * Every result line also carries the cost of the primitives the modes
 * differ in, measured on this kernel just before the run by the writer:
 * an irqsave/irqrestore pair, a preempt_disable/enable pair, a
 * local_trylock/unlock pair and one uncontended atomic add, in ns each
 * (tenths; the cost of an empty loop iteration taken off).  Under qemu
 * -icount shift=0 a guest ns is one instruction, so these are instruction
 * counts there.
 *
 * After each run the charges are drained and checked: every memcg of the
 * run must be back to zero, and so must its objcg's leftover,
 * or the result says verdict=FAIL.
 *
 * A benchmark owns the debugfs harness from its parse to its end
 * (mcs_harness_claim()): a write while a stress run, a self-check, a config
 * write or another benchmark is in progress gets -EBUSY.  It switches the
 * stock mode for the measurement and puts back the mode it found.  A read
 * never waits for a measurement: the last result has its own lock.
 *
 * Errors of a write: -EINVAL (bad line), -EBUSY, -ENOMEM, -EINTR (fatal
 * signal while the clients were being created), -ETIMEDOUT (creating the
 * clients took longer than BENCH_SETUP_MAX); a failed write leaves nothing
 * behind and the last result as it was.
 *
 * Context: the write runs the benchmark in the writer's task context and
 * sleeps.
 */
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/sched/prio.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include "stocks/stock_designs.h"
#include "harness.h"
#include "bench_pmu.h"

#define BENCH_LINE_MAX		256
#define BENCH_RESULT_MAX	1024
/* the pmu fields of a result line */
#define BENCH_PMU_MAX		128
#define BENCH_MAX_MEMCGS	256
#define BENCH_MAX_MEMCG_TOTAL	1024
/* iterations of each primitive-cost loop */
#define BENCH_PRIM_LOOPS	20000
#define BENCH_MAX_CLIENTS	256
#define BENCH_MAX_MS		10000
#define BENCH_DEFAULT_MS	200
#define BENCH_OBJ_SIZE		64
#define BENCH_IRQ_PERIOD_NS	(50 * NSEC_PER_USEC)
/* Creating every client may take this long, then the write gives up. */
#define BENCH_SETUP_MAX		(20 * HZ)
/*
 * Clients look at the clock every this many pairs, and leave the load on
 * their own once it passes run->backstop: duration_ms twice over plus
 * BENCH_BACKSTOP_MS.  Normally the writer's stop comes first.  Under qemu
 * -icount a vCPU busy with a client was seen to keep the other vCPU (the
 * writer's wake-up) from running for 27 s and more, until a soft lockup.
 */
#define BENCH_CLOCK_EVERY	4096
#define BENCH_BACKSTOP_MS	100

enum bench_workload {
	WL_PAGES, WL_BYTES, WL_MIXED, WL_FLOOR, WL_BYTES_256, WL_BYTES_1024, WL_BYTES_3000,
	WL_DRAIN, WL_CROSS_PAGES, WL_CROSS_BYTES, WL_LIMIT_NOWAIT, WL_LIMIT_KERNEL, WL_REPLAY, NR_WL
};

static const char * const wl_names[NR_WL] = {
	[WL_PAGES] = "pages", [WL_BYTES] = "bytes", [WL_MIXED] = "mixed", [WL_FLOOR] = "floor",
	[WL_BYTES_256] = "bytes-256", [WL_BYTES_1024] = "bytes-1024",
	[WL_BYTES_3000] = "bytes-3000", [WL_DRAIN] = "drain",
	[WL_CROSS_PAGES] = "cross-pages", [WL_CROSS_BYTES] = "cross-bytes",
	[WL_LIMIT_NOWAIT] = "limit-nowait", [WL_LIMIT_KERNEL] = "limit-kernel",
	[WL_REPLAY] = "replay",
};

/* Object size of each workload that charges bytes; 0: none of its own. */
static const unsigned int wl_obj_size[NR_WL] = {
	[WL_BYTES] = BENCH_OBJ_SIZE, [WL_MIXED] = BENCH_OBJ_SIZE, [WL_CROSS_BYTES] = BENCH_OBJ_SIZE,
	[WL_BYTES_256] = 256, [WL_BYTES_1024] = 1024, [WL_BYTES_3000] = 3000,
};

/* The live neighbour of the sized workloads: leaves 64 bytes in a fresh stock slot. */
#define BENCH_NEIGHBOUR_SIZE	(PAGE_SIZE - 64)
/* What each client of the cross workloads hands over before the load, and per call. */
#define BENCH_CROSS_RESERVE	1048576L	/* 2^20 */
#define BENCH_CROSS_CHUNK	65536L	/* 256 MiB of pages, or 4 MiB of 64-byte objects */
/* Pages a client of the limit workloads holds at most; the limit is clients times this. */
#define BENCH_LIMIT_HOLD	32
/* Turns of each client of the limit workloads: 32 cycles of charging and giving back. */
#define BENCH_LIMIT_STEPS	(64 * BENCH_LIMIT_HOLD)
/* How often the writer samples the run's usage for its peak. */
#define BENCH_SAMPLE_MS		10

/* parameters of a design (struct mcs_bench_param) one line may set */
#define BENCH_MAX_DPARAMS	4

enum bench_key {
	KEY_MODE, KEY_CLIENTS, KEY_WORKLOAD, KEY_HARDIRQ, KEY_SHARED, KEY_DURATION,
	KEY_MEMCGS, KEY_NMI, KEY_PMU, KEY_BATCH, KEY_ENTRY, KEY_PASSES, NR_KEYS
};

static const char * const bench_keys[NR_KEYS] = {
	[KEY_MODE] = "mode", [KEY_CLIENTS] = "clients", [KEY_WORKLOAD] = "workload",
	[KEY_HARDIRQ] = "hardirq", [KEY_SHARED] = "shared", [KEY_DURATION] = "duration_ms",
	[KEY_MEMCGS] = "memcgs", [KEY_NMI] = "nmi", [KEY_PMU] = "pmu",
	[KEY_BATCH] = "batch", [KEY_ENTRY] = "entry", [KEY_PASSES] = "passes",
};

static const char * const bench_entries[] = { "mode", "exported" };

/*
 * Where a run is; one variable, so that a client never sees a later phase
 * without the earlier ones.  Clients sleep in SETUP and STOP; EXIT ends
 * them, RELEASE too after they released their own memcgs (each client
 * its own; the offlines themselves run one at a time, offline_mutex).
 */
enum bench_phase { BENCH_SETUP, BENCH_LOAD, BENCH_STOP, BENCH_EXIT, BENCH_RELEASE };

struct bench_params {
	enum mcs_stock_mode mode;
	unsigned int clients;
	enum bench_workload workload;
	bool hardirq;
	bool nmi;
	bool shared;
	unsigned int memcgs;
	unsigned int duration_ms;
	enum mcs_bench_pmu_kind pmu;
	unsigned int batch;	/* 0: the module's */
	bool exported;		/* entry=exported */
	unsigned int passes;	/* workload=replay: 0: MCS_REPLAY_PASSES */
	/* the design's parameters named in the line, their values and keys */
	unsigned int nr_dparams;
	const struct mcs_bench_param *dparam[BENCH_MAX_DPARAMS];
	unsigned int dvalue[BENCH_MAX_DPARAMS];
	const char *dkey[BENCH_MAX_DPARAMS];	/* in the parsed line, for the error log */
};

/*
 * @memcgs memcgs and their objcgs of one client; the arrays are its own.
 * The cross workloads hand each charge over to the next client (@handed:
 * charged here, a reserve before the load and one per pair, and not yet
 * uncharged), which uncharges it on its own CPU (@cross counts those);
 * the limit workloads count @charges and the @refusals among them, with
 * @live pages held (@releasing: giving them back); @idx is the client's
 * place in their turns.
 */
struct bench_client {
	struct bench_run *run;
	struct mcs_memcg **memcg;	/* owned */
	struct mcs_objcg **objcg;	/* owned */
	struct mcs_memcg **op_memcg;	/* charged: own, or client 0's when shared */
	struct mcs_objcg **op_objcg;
	struct bench_client *prev;	/* whose charges this one uncharges */
	atomic_long_t handed;
	u64 held;
	u64 ops;
	u64 cross;
	u64 charges, refusals;
	unsigned int live;
	unsigned int idx;
	bool releasing;
	long errors;
};

/* Per CPU: the interrupt load, and the NMIs its timer sends to the next CPU. */
struct bench_irq {
	struct bench_run *run;
	struct hrtimer timer;
	call_single_data_t csd;
	u64 ops;
	u64 fires;
	u64 nmi_ops;
	u64 nmi_sent;
};

/**
 * struct bench_run - one measurement, allocated by the write that runs it
 * @p: its parameters
 * @parent: memcg above every memcg of the run
 * @irq_memcg: memcg charged by the interrupt load
 * @irq_objcg: its objcg
 * @clients: @p.clients client kthreads and their memcgs
 * @irq: nr_cpu_ids interrupt timers, indexed by CPU
 * @memcgs: p.clients x p.memcgs memcgs, client by client
 * @objcgs: their objcgs
 * @obj_size: bytes per byte charge (wl_obj_size[], BENCH_OBJ_SIZE without one)
 * @nmi: the NMI source: "on", "off", "unsupported" or "busy"
 * @prims: the primitive costs measured before the run
 * @client_cpus: the CPUs the clients are bound to
 * @pmu: the perf counters of the client CPUs (pmu=hw|sw)
 * @wq: clients sleep here while @phase does not concern them, and
 *	between their turns in the limit workloads
 * @phase: enum bench_phase
 * @turn: the limit workloads' next step: client @turn % p.clients takes it
 * @arming: CPUs whose interrupt timer is not armed yet, plus one
 * @armed: completed when the last of them is
 * @loading: clients that have not left the load loop yet
 * @stopped: completed by the last client to leave the load loop
 * @exited: completed by every client on its way out
 * @ops: operations of all clients
 * @cross: uncharges on another CPU than their charge (cross workloads)
 * @charges: charges tried by the clients of the limit workloads
 * @refusals: those refused (all premature: the pages live fit the limit)
 * @peak: the highest usage of the run's memcgs sampled during the load
 * @irq_ops: operations of all interrupt timers
 * @errors: unexpected charge failures of the clients
 * @backstop: ktime_get_ns() at which the clients stop by themselves
 * @ns: measured time
 * @result: the result line
 */
struct bench_run {
	struct bench_params p;
	struct mcs_memcg *parent, *irq_memcg;
	struct mcs_objcg *irq_objcg;
	struct bench_client *clients;
	struct bench_irq *irq;
	struct mcs_memcg **memcgs;
	struct mcs_objcg **objcgs;
	unsigned int obj_size;
	const char *nmi;
	char prims[160];
	struct cpumask client_cpus;
	struct mcs_bench_pmu pmu;
	struct wait_queue_head wq;
	int phase;
	u64 turn;
	atomic_t arming;
	struct completion armed;
	atomic_t loading;
	struct completion stopped;
	struct completion exited;
	u64 ops, irq_ops, ns;
	u64 cross, charges, refusals;
	unsigned long peak;
	u64 backstop;
	long errors;
	char result[BENCH_RESULT_MAX];
};

/* The last result; never held across a measurement, so readers never wait for one. */
static DEFINE_MUTEX(bench_result_lock);
static char bench_result[BENCH_RESULT_MAX];
static DEFINE_PER_CPU(unsigned long, bench_floor);
static DEFINE_PER_CPU(local_trylock_t, bench_trylock) = INIT_LOCAL_TRYLOCK(bench_trylock);
static atomic_long_t bench_atomic = ATOMIC_LONG_INIT(0);

/* The entries of the run (harness.h): its mode, or MCS_ENTRY_EXPORTED. */
static int bench_entry(const struct bench_run *run)
{
	return run->p.exported ? MCS_ENTRY_EXPORTED : run->p.mode;
}

/* One charge/uncharge pair of the workload; false on an unexpected error. */
static __always_inline bool bench_op_of(int e, struct bench_run *run, struct mcs_memcg *memcg,
					struct mcs_objcg *objcg, u64 i, gfp_t gfp)
{
	enum bench_workload wl = run->p.workload;

	if (wl == WL_FLOOR) {
		unsigned long *floor;

		/* what a stock hit cannot avoid: pin the CPU, touch per-CPU data */
		preempt_disable();
		floor = this_cpu_ptr(&bench_floor);
		WRITE_ONCE(*floor, *floor + 1);
		WRITE_ONCE(*floor, *floor - 1);
		preempt_enable();
		return true;
	}
	if (wl == WL_PAGES || (wl == WL_MIXED && (i & 1))) {
		if (mcs_entry_charge_pages(e, memcg, gfp, 1))
			return false;
		mcs_entry_uncharge_pages(e, memcg, 1);
		return true;
	}
	if (mcs_entry_obj_charge(e, objcg, gfp, BENCH_OBJ_SIZE))
		return false;
	mcs_entry_obj_uncharge(e, objcg, BENCH_OBJ_SIZE);
	return true;
}

/*
 * bench_op_of() once per entry, out of line as before (the floor pays the
 * same call), and the switch that picks it: a direct call where @e is a
 * constant.
 */
#define BENCH_OP_OF(m, n, t, d)						\
static noinline bool bench_op_##t(struct bench_run *run, struct mcs_memcg *memcg, \
				  struct mcs_objcg *objcg, u64 i, gfp_t gfp) \
{									\
	return bench_op_of(m, run, memcg, objcg, i, gfp);		\
}

MCS_HARNESS_ENTRIES(BENCH_OP_OF)

#define BENCH_OP_CASE(m, n, t, d)						\
	case m: return bench_op_##t(run, memcg, objcg, i, gfp);

static __always_inline bool bench_op(int e, struct bench_run *run, struct mcs_memcg *memcg,
				     struct mcs_objcg *objcg, u64 i, gfp_t gfp)
{
	switch (e) {
	MCS_HARNESS_ENTRIES(BENCH_OP_CASE)
	}
	return false;
}

/*
 * One pair of workload=drain, from a client: a page charged and uncharged
 * (the uncharge leaves it in the stock), then a synchronous drain of that
 * memcg, as an offline does.
 */
static __always_inline bool bench_drain_op(int e, struct mcs_memcg *memcg)
{
	if (mcs_entry_charge_pages(e, memcg, GFP_KERNEL, 1))
		return false;
	mcs_entry_uncharge_pages(e, memcg, 1);
	mcs_drain_all_stock(memcg, true);
	return true;
}

/* One pair of a sized byte workload (bytes-256 ...), from a client. */
static __always_inline bool bench_sized_op(int e, struct bench_run *run,
					   struct mcs_objcg *objcg)
{
	if (mcs_entry_obj_charge(e, objcg, GFP_KERNEL, run->obj_size))
		return false;
	mcs_entry_obj_uncharge(e, objcg, run->obj_size);
	return true;
}

/*
 * Charge (@charge) or uncharge @n pages, or 64-byte objects (@bytes), of
 * client @c's memcg in calls of at most BENCH_CROSS_CHUNK; returns how
 * many it moved.
 */
static long bench_cross_move(int e, struct bench_client *c, bool bytes, long n, bool charge)
{
	long k, done = 0;
	int ret = 0;

	for (; done < n && !ret; done += k) {
		k = min(n - done, BENCH_CROSS_CHUNK);
		if (bytes && charge)
			ret = mcs_entry_obj_charge(e, c->op_objcg[0], GFP_KERNEL,
						   k * BENCH_OBJ_SIZE);
		else if (bytes)
			mcs_entry_obj_uncharge(e, c->op_objcg[0], k * BENCH_OBJ_SIZE);
		else if (charge)
			ret = mcs_entry_charge_pages(e, c->op_memcg[0], GFP_KERNEL, k);
		else
			mcs_entry_uncharge_pages(e, c->op_memcg[0], k);
	}
	return ret ? done - k : done;
}

/*
 * One pair of the cross workloads, from client @c: a page (or 64 bytes)
 * charged to its own memcg and handed over to the next client, then the
 * uncharge of one that the previous client handed over, here, on another
 * CPU than its charge (request and response on two CPUs).  The writer
 * hands BENCH_CROSS_RESERVE of each client's over before the load
 * (bench_measure()), so that every pair has one to uncharge however the
 * CPUs interleave; should a client run that far ahead of the previous
 * one, its pair is a charge only.
 */
static __always_inline bool bench_cross_op(int e, struct bench_client *c, bool bytes)
{
	struct bench_client *prev = c->prev;

	if (bytes ? mcs_entry_obj_charge(e, c->op_objcg[0], GFP_KERNEL, BENCH_OBJ_SIZE) :
		    mcs_entry_charge_pages(e, c->op_memcg[0], GFP_KERNEL, 1))
		return false;
	atomic_long_inc(&c->handed);
	if (!atomic_long_add_unless(&prev->handed, -1, 0))
		return true;
	if (bytes)
		mcs_entry_obj_uncharge(e, prev->op_objcg[0], BENCH_OBJ_SIZE);
	else
		mcs_entry_uncharge_pages(e, prev->op_memcg[0], 1);
	c->cross++;
	return true;
}

/*
 * One step of the limit workloads, from client @c: a page charged to the
 * shared memcg while the client holds fewer than BENCH_LIMIT_HOLD, then
 * all of them given back, one per step.  The limit is clients x
 * BENCH_LIMIT_HOLD pages, so the pages live never reach it: a refusal is
 * one that charge held in stocks caused (premature).  A refused client
 * gives back what it holds before it charges again.
 */
static __always_inline bool bench_limit_op(int e, struct bench_client *c, gfp_t gfp)
{
	int ret;

	if (c->releasing) {
		mcs_entry_uncharge_pages(e, c->op_memcg[0], 1);
		c->releasing = --c->live;
		return true;
	}
	c->charges++;
	ret = mcs_entry_charge_pages(e, c->op_memcg[0], gfp, 1);
	if (ret) {
		c->refusals++;
		c->releasing = c->live;
		return ret == -ENOMEM;
	}
	c->releasing = ++c->live == BENCH_LIMIT_HOLD;
	return true;
}

/*
 * The limit workloads' load: BENCH_LIMIT_STEPS steps of client @c, each
 * in its turn after the step of the client before it.  A client sleeps
 * between its turns (a spinning one would hold its vCPU from the one
 * whose turn it is).  Returns the steps taken.
 */
static __always_inline u64 bench_limit_load(int e, struct bench_client *c, gfp_t gfp)
{
	struct bench_run *run = c->run;
	u64 step, mine;

	for (step = 0; step < BENCH_LIMIT_STEPS; step++) {
		mine = step * run->p.clients + c->idx;
		/* pairs with the release below: the step before ours is complete */
		wait_event_idle(run->wq, smp_load_acquire(&run->turn) == mine ||
				READ_ONCE(run->phase) != BENCH_LOAD);
		if (READ_ONCE(run->phase) != BENCH_LOAD)
			break;
		/* a step out of turn would make the sequence depend on timing */
		if (READ_ONCE(run->turn) != mine)
			c->errors++;
		if (!bench_limit_op(e, c, gfp))
			c->errors++;
		/* our step complete before the next client may take its own */
		smp_store_release(&run->turn, mine + 1);
		wake_up_all(&run->wq);
	}
	return step;
}

/* The sized byte workloads keep a live neighbour on each charged objcg. */
static bool bench_has_neighbour(struct bench_run *run)
{
	return run->p.workload >= WL_BYTES_256 && run->p.workload <= WL_BYTES_3000;
}

/*
 * Charge (@charge) or free the neighbours of client @c, on its own CPU;
 * bit n of @c->held is set while the neighbour on objcg n is charged.
 */
static noinline void bench_neighbours(struct bench_client *c, bool charge)
{
	unsigned int n;

	for (n = 0; n < c->run->p.memcgs; n++) {
		if (!charge) {
			if (c->held & BIT_ULL(n))
				mcs_obj_uncharge(c->op_objcg[n], BENCH_NEIGHBOUR_SIZE);
		} else if (mcs_obj_charge(c->op_objcg[n], GFP_KERNEL, BENCH_NEIGHBOUR_SIZE)) {
			c->errors++;
		} else {
			c->held |= BIT_ULL(n);
		}
	}
}

/*
 * cond_resched() is a no-op on fully preemptible kernels, which rely on
 * the return from the timer interrupt to preempt.  UML delivers an
 * interrupt that arrived with IRQs off when they are enabled again, with
 * no preemption check, so a loop of irqsave sections (the coupled stock)
 * would never be preempted.  preempt_enable() is a preemption point.
 */
static void bench_preempt_point(void)
{
	cond_resched();
	preempt_disable();
	preempt_enable();
}

/* Offline and release a memcg the run created. */
static void bench_memcg_put(struct mcs_memcg *memcg)
{
	mcs_memcg_offline(memcg);
	mcs_memcg_put(memcg);
}

/* Memcg @n of a client (and its objcg), NULL once put. */
static void bench_memcg_pair_put(struct bench_client *c, unsigned int n)
{
	if (!c->memcg[n])
		return;
	mcs_objcg_put(c->objcg[n]);
	bench_memcg_put(c->memcg[n]);
	c->objcg[n] = NULL;
	c->memcg[n] = NULL;
}

/* From the writer or, in BENCH_RELEASE, from the client itself. */
static void bench_client_put(struct bench_client *c)
{
	unsigned int n = c->run->p.memcgs;

	while (n--)
		bench_memcg_pair_put(c, n);
}

/* The kinds of pair a client loops over (bench_load()). */
enum bench_loop { LOOP_PLAIN, LOOP_SIZED, LOOP_DRAIN, LOOP_CROSS };

/*
 * The load loop of a client, until the phase leaves BENCH_LOAD or the
 * clock passes the backstop; returns its pairs.  Inlined once per @loop,
 * so that the sized and drain workloads add nothing to the loop of the
 * others.
 */

static __always_inline u64 bench_load(int e, struct bench_client *c, enum bench_loop loop)
{
	struct bench_run *run = c->run;
	unsigned int n = 0, memcgs = run->p.memcgs;
	u64 i = 0;
	bool ok;

	while (READ_ONCE(run->phase) == BENCH_LOAD) {
		if (loop == LOOP_SIZED)
			ok = bench_sized_op(e, run, c->op_objcg[n]);
		else if (loop == LOOP_DRAIN)
			ok = bench_drain_op(e, c->op_memcg[n]);
		else if (loop == LOOP_CROSS)
			ok = bench_cross_op(e, c, run->p.workload == WL_CROSS_BYTES);
		else
			ok = bench_op(e, run, c->op_memcg[n], c->op_objcg[n], i, GFP_KERNEL);
		if (!ok)
			c->errors++;
		/* a compare, not a division: the same few instructions in every mode */
		if (++n == memcgs)
			n = 0;
		/* the clock inside the preemption point: nothing added per pair */
		if (!(++i & 255)) {
			bench_preempt_point();
			if (!(i & (BENCH_CLOCK_EVERY - 1)) && ktime_get_ns() >= run->backstop)
				break;
		}
	}
	return i;
}

static bool bench_is_cross(const struct bench_run *run)
{
	return run->p.workload == WL_CROSS_PAGES || run->p.workload == WL_CROSS_BYTES;
}

static bool bench_is_limit(const struct bench_run *run)
{
	return run->p.workload == WL_LIMIT_NOWAIT || run->p.workload == WL_LIMIT_KERNEL;
}

/* A client's load through the entries @e (a constant): its pairs. */
static __always_inline u64 bench_client_load(int e, struct bench_client *c)
{
	struct bench_run *run = c->run;
	u64 ops;

	if (bench_has_neighbour(run))
		return bench_load(e, c, LOOP_SIZED);
	if (run->p.workload == WL_DRAIN)
		return bench_load(e, c, LOOP_DRAIN);
	if (bench_is_cross(run))
		return bench_load(e, c, LOOP_CROSS);
	if (!bench_is_limit(run))
		return bench_load(e, c, LOOP_PLAIN);
	ops = bench_limit_load(e, c, run->p.workload == WL_LIMIT_NOWAIT ? GFP_NOWAIT : GFP_KERNEL);
	for (; c->live; c->live--)
		mcs_entry_uncharge_pages(e, c->op_memcg[0], 1);
	return ops;
}

/* The load loops once per entry, so that each calls its entry directly. */
#define BENCH_LOAD_OF(m, n, t, d)						\
static noinline u64 bench_load_##t(struct bench_client *c)		\
{									\
	return bench_client_load(m, c);					\
}

MCS_HARNESS_ENTRIES(BENCH_LOAD_OF)

#define BENCH_LOAD_CASE(m, n, t, d)					\
	case m: return bench_load_##t(c);

static u64 bench_load_of(struct bench_client *c)
{
	switch (bench_entry(c->run)) {
	MCS_HARNESS_ENTRIES(BENCH_LOAD_CASE)
	}
	c->errors++;
	return 0;
}

static int bench_client_fn(void *arg)
{
	struct bench_client *c = arg;
	struct bench_run *run = c->run;
	bool sized = bench_has_neighbour(run);

	/* before the clock starts: the client is on its CPU already */
	if (sized)
		bench_neighbours(c, true);
	/*
	 * Sleep, not spin, until every client exists: spinning clients would
	 * starve the creation of the later ones (kthreadd competes with them
	 * for the CPUs).  A setup that fails sends us straight to EXIT.
	 */
	wait_event_idle(run->wq, READ_ONCE(run->phase) != BENCH_SETUP);
	c->ops = bench_load_of(c);
	if (sized)
		bench_neighbours(c, false);
	if (atomic_dec_and_test(&run->loading))
		complete(&run->stopped);

	wait_event_idle(run->wq, READ_ONCE(run->phase) >= BENCH_EXIT);
	if (READ_ONCE(run->phase) == BENCH_RELEASE)
		bench_client_put(c);
	/* not a return: the writer may free the run and unload the module */
	kthread_complete_and_exit(&run->exited, 0);
}

/* NMI context, on the CPU the NMI was sent to: no reclaim bits, no stock refill of pages. */
static void bench_nmi_fn(void *arg)
{
	struct bench_run *run = arg;
	struct bench_irq *irq = &run->irq[smp_processor_id()];

	if (READ_ONCE(run->phase) != BENCH_LOAD)
		return;
	bench_op(bench_entry(run), run, run->irq_memcg, run->irq_objcg, irq->nmi_ops,
		 __GFP_NOWARN);
	irq->nmi_ops++;
}

static enum hrtimer_restart bench_irq_fn(struct hrtimer *t)
{
	struct bench_irq *irq = container_of(t, struct bench_irq, timer);
	struct bench_run *run = irq->run;
	int i, next;

	switch (READ_ONCE(run->phase)) {
	case BENCH_SETUP:
		/* armed before the load starts: idle until it does */
		goto forward;
	case BENCH_LOAD:
		break;
	default:
		return HRTIMER_NORESTART;
	}
	irq->fires++;
	if (run->p.hardirq)
		for (i = 0; i < 4; i++, irq->ops++)
			bench_op(bench_entry(run), run, run->irq_memcg, run->irq_objcg, irq->ops,
				 GFP_ATOMIC);
	if (run->p.nmi && !strcmp(run->nmi, "on")) {
		next = cpumask_next(smp_processor_id(), cpu_online_mask);
		if (next >= nr_cpu_ids)
			next = cpumask_first(cpu_online_mask);
		if (mcs_nmi_raise(next))
			irq->nmi_sent++;
	}
forward:
	hrtimer_forward_now(t, ns_to_ktime(BENCH_IRQ_PERIOD_NS));
	return HRTIMER_RESTART;
}

/* On the CPU of @arg, from its IPI (or locally with IRQs off). */
static void bench_irq_arm_one(void *arg)
{
	struct bench_irq *irq = arg;

	hrtimer_start(&irq->timer, ns_to_ktime(BENCH_IRQ_PERIOD_NS),
		      HRTIMER_MODE_REL_PINNED_HARD);
	if (atomic_dec_and_test(&irq->run->arming))
		complete(&irq->run->armed);
}

/*
 * Start the interrupt timer of every online CPU, before the load begins.
 * The writer sleeps until every CPU has run its call, instead of spinning
 * in on_each_cpu() with preemption off: under qemu -icount a CPU busy
 * with a client was seen to answer the function-call IPI only after
 * seconds (once 26 s, a soft lockup of the spinning writer).  A CPU that
 * goes offline meanwhile runs its queued call on its way down; one that
 * is offline already refuses it, and a timer migrated off a dying CPU
 * keeps firing on another: neither changes what is measured (operations
 * and time are counted only in BENCH_LOAD).
 */
static void bench_irq_arm(struct bench_run *run)
{
	int cpu;

	atomic_set(&run->arming, 1);
	init_completion(&run->armed);
	for_each_online_cpu(cpu) {
		struct bench_irq *irq = &run->irq[cpu];

		INIT_CSD(&irq->csd, bench_irq_arm_one, irq);
		atomic_inc(&run->arming);
		if (smp_call_function_single_async(cpu, &irq->csd))
			atomic_dec(&run->arming);
	}
	if (!atomic_dec_and_test(&run->arming))
		wait_for_completion(&run->armed);
}

static unsigned long memcg_events(struct mcs_memcg *memcg, enum mcs_memcg_event ev)
{
	struct mcs_memcg_stat stat;

	mcs_memcg_stat(memcg, &stat);
	return stat.events[ev];
}

static unsigned long sum_events(struct bench_run *run, enum mcs_memcg_event ev)
{
	unsigned long sum = 0;
	unsigned int i;

	for (i = 0; i < run->p.clients * run->p.memcgs; i++)
		sum += memcg_events(run->memcgs[i], ev);
	/* the interrupt load is where trylocks fail: count it too */
	return sum + memcg_events(run->irq_memcg, ev);
}

/* Everything drained and released: neither the memcg nor its objcg holds anything. */
static bool bench_check(struct mcs_memcg *memcg, struct mcs_objcg *objcg)
{
	return !mcs_memcg_usage(memcg) && !mcs_objcg_leftover_bytes(objcg);
}

/* Client @i's memcgs; on failure, none of them is left. */
static int bench_client_get(struct bench_run *run, unsigned int i)
{
	struct bench_client *c = &run->clients[i];
	unsigned int n, m = run->p.memcgs;
	int ret;

	c->run = run;
	c->idx = i;
	c->memcg = run->memcgs + i * m;
	c->objcg = run->objcgs + i * m;
	for (n = 0; n < m; n++) {
		struct mcs_memcg *memcg = mcs_memcg_create(run->parent, "bench-client");

		if (IS_ERR(memcg)) {
			ret = PTR_ERR(memcg);
			goto put;
		}
		c->objcg[n] = mcs_memcg_tryget_objcg(memcg);
		if (!c->objcg[n]) {
			bench_memcg_put(memcg);
			ret = -ENOENT;
			goto put;
		}
		c->memcg[n] = memcg;
	}
	/* shared=1 (and the limit workloads): every client charges client 0's */
	c->op_memcg = run->p.shared || bench_is_limit(run) ? run->memcgs : c->memcg;
	c->op_objcg = run->p.shared || bench_is_limit(run) ? run->objcgs : c->objcg;
	c->prev = &run->clients[(i + run->p.clients - 1) % run->p.clients];
	return 0;

put:
	while (n--)
		bench_memcg_pair_put(c, n);
	return ret;
}

/* The tree of the run: parent, interrupt memcg, one memcg per client. */
static int bench_memcgs_create(struct bench_run *run)
{
	unsigned int i;
	int ret;

	run->parent = mcs_memcg_create(NULL, "bench");
	if (IS_ERR(run->parent))
		return PTR_ERR(run->parent);
	run->irq_memcg = mcs_memcg_create(run->parent, "bench-irq");
	if (IS_ERR(run->irq_memcg)) {
		ret = PTR_ERR(run->irq_memcg);
		goto put_parent;
	}
	run->irq_objcg = mcs_memcg_tryget_objcg(run->irq_memcg);
	if (!run->irq_objcg) {
		ret = -ENOENT;
		goto put_irq_memcg;
	}
	for (i = 0; i < run->p.clients; i++) {
		ret = bench_client_get(run, i);
		if (ret)
			goto put_clients;
	}
	/* the limit workloads: room for every page live, none for what stocks hold */
	if (bench_is_limit(run)) {
		ret = mcs_memcg_set_max(run->memcgs[0], run->p.clients * BENCH_LIMIT_HOLD);
		if (ret)
			goto put_clients;
	}
	return 0;

put_clients:
	/* children before their parent: offline refuses the reverse */
	while (i--)
		bench_client_put(&run->clients[i]);
	mcs_objcg_put(run->irq_objcg);
put_irq_memcg:
	bench_memcg_put(run->irq_memcg);
put_parent:
	bench_memcg_put(run->parent);
	return ret;
}

static void bench_memcgs_put(struct bench_run *run)
{
	unsigned int i = run->p.clients;

	while (i--)
		bench_client_put(&run->clients[i]);
	mcs_objcg_put(run->irq_objcg);
	bench_memcg_put(run->irq_memcg);
	bench_memcg_put(run->parent);
}

/*
 * End the first @n clients (all of them once the measurement has started)
 * with @phase, BENCH_EXIT or BENCH_RELEASE, and wait until each is on its
 * way out.
 */
static void bench_clients_end(struct bench_run *run, unsigned int n, int phase)
{
	unsigned int i;

	WRITE_ONCE(run->phase, phase);
	wake_up_all(&run->wq);
	for (i = 0; i < n; i++)
		wait_for_completion(&run->exited);
}

/*
 * Create the clients, bound round-robin to the online CPUs, and let them
 * go to sleep until the start.  No cpus_read_lock(): a CPU that goes down
 * meanwhile only costs its clients their binding (the scheduler moves
 * them), and holding the lock while kthreadd works would stall hotplug for
 * the whole setup.
 */
static int bench_clients_create(struct bench_run *run)
{
	unsigned long deadline = jiffies + BENCH_SETUP_MAX;
	unsigned int i;
	int cpu = -1, ret;

	for (i = 0; i < run->p.clients; i++) {
		struct bench_client *c = &run->clients[i];
		struct task_struct *task;

		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			goto stop;
		}
		if (time_after(jiffies, deadline)) {
			mcs_log("bench: creating %u clients took over %d s\n",
				run->p.clients, BENCH_SETUP_MAX / HZ);
			ret = -ETIMEDOUT;
			goto stop;
		}
		cpu = cpumask_next(cpu, cpu_online_mask);
		if (cpu >= nr_cpu_ids)
			cpu = cpumask_first(cpu_online_mask);
		cpumask_set_cpu(cpu, &run->client_cpus);
		task = kthread_create(bench_client_fn, c, "mcs_bench/%u", i);
		if (IS_ERR(task)) {
			ret = PTR_ERR(task);
			goto stop;
		}
		kthread_bind(task, cpu);
		/*
		 * Equal among themselves, below everything else: up to 256
		 * spinning clients must not starve readers of this file,
		 * kworkers, or the writer that ends the measurement.
		 */
		set_user_nice(task, MAX_NICE);
		wake_up_process(task);
	}
	return 0;

stop:
	bench_clients_end(run, i, BENCH_EXIT);
	return ret;
}

/* Load for p.duration_ms, then stop every client and timer. */
static void bench_measure(struct bench_run *run)
{
	unsigned int i, left, step;
	u64 t0, t1;
	int cpu;

	run->nmi = "off";
	if (run->p.nmi) {
		int ret = mcs_nmi_register(bench_nmi_fn, run);

		run->nmi = !ret ? "on" : ret == -EOPNOTSUPP ? "unsupported" : "busy";
	}
	if (run->p.hardirq || !strcmp(run->nmi, "on"))
		bench_irq_arm(run);
	/* the cross workloads' reserves, handed over before any client starts */
	for (i = 0; bench_is_cross(run) && i < run->p.clients; i++) {
		struct bench_client *c = &run->clients[i];
		long n = bench_cross_move(bench_entry(run), c, run->p.workload == WL_CROSS_BYTES,
					  BENCH_CROSS_RESERVE, true);

		atomic_long_set(&c->handed, n);
		run->errors += n < BENCH_CROSS_RESERVE;
	}
	mcs_bench_pmu_start(&run->pmu);
	t0 = ktime_get_ns();
	run->backstop = t0 + (2ULL * run->p.duration_ms + BENCH_BACKSTOP_MS) * NSEC_PER_MSEC;
	WRITE_ONCE(run->phase, BENCH_LOAD);
	wake_up_all(&run->wq);
	/* every memcg of the run is below the parent: its usage, live pages included */
	for (left = run->p.duration_ms; left; left -= step) {
		run->peak = max(run->peak, mcs_memcg_usage(run->parent));
		/* the limit workloads end with their last turn */
		if (bench_is_limit(run) && completion_done(&run->stopped))
			break;
		step = min(left, BENCH_SAMPLE_MS);
		msleep(step);
	}
	WRITE_ONCE(run->phase, BENCH_STOP);
	/* the limit workloads' clients may sleep between their turns */
	wake_up_all(&run->wq);
	t1 = ktime_get_ns();
	/* woken after the backstop: the clients stopped there */
	if (t1 > run->backstop) {
		pr_debug("memcg_stock: bench: writer %llu ms late, clients stopped at %llu ms\n",
			 (t1 - t0) / NSEC_PER_MSEC - run->p.duration_ms,
			 (run->backstop - t0) / NSEC_PER_MSEC);
		t1 = run->backstop;
	}
	run->ns = t1 - t0;
	mcs_bench_pmu_stop(&run->pmu);
	for_each_possible_cpu(cpu) {
		hrtimer_cancel(&run->irq[cpu].timer);
		run->irq_ops += run->irq[cpu].ops;
	}
	/* waits for the NMIs in flight: none charges after this */
	if (!strcmp(run->nmi, "on"))
		mcs_nmi_unregister();
	wait_for_completion(&run->stopped);
	for (i = 0; i < run->p.clients; i++) {
		struct bench_client *c = &run->clients[i];

		if (bench_is_cross(run))
			bench_cross_move(bench_entry(run), c, run->p.workload == WL_CROSS_BYTES,
					 atomic_long_xchg(&c->handed, 0), false);
		run->ops += c->ops;
		run->errors += c->errors;
		run->cross += c->cross;
		run->charges += c->charges;
		run->refusals += c->refusals;
	}
}

/*
 * ns per iteration of a loop of BENCH_PRIM_LOOPS, in tenths, less @base
 * (the empty loop's); a measurement below the empty loop reads 0.
 */
static u64 prim_tenths(u64 t0, u64 base)
{
	u64 t = ktime_get_ns() - t0;

	return t > base ? (t - base) * 10 / BENCH_PRIM_LOOPS : 0;
}

/*
 * The primitives the modes differ in, on this kernel, on one CPU with
 * nothing contending: the coupled stock's IRQ toggles, the preempt count
 * of the control and of a local_trylock, the trylock itself, and the
 * locked instruction of the page counters and of "objcg-atomic".
 */
static void bench_prims(struct bench_run *run)
{
	u64 t0, base, irqsave, preempt, trylock, atomic;
	unsigned long flags;
	unsigned int i;

	migrate_disable();
	t0 = ktime_get_ns();
	for (i = 0; i < BENCH_PRIM_LOOPS; i++)
		barrier();
	base = ktime_get_ns() - t0;

	t0 = ktime_get_ns();
	for (i = 0; i < BENCH_PRIM_LOOPS; i++) {
		local_irq_save(flags);
		local_irq_restore(flags);
		barrier();
	}
	irqsave = prim_tenths(t0, base);

	t0 = ktime_get_ns();
	for (i = 0; i < BENCH_PRIM_LOOPS; i++) {
		preempt_disable();
		preempt_enable();
		barrier();
	}
	preempt = prim_tenths(t0, base);

	t0 = ktime_get_ns();
	for (i = 0; i < BENCH_PRIM_LOOPS; i++) {
		if (local_trylock(&bench_trylock))
			local_unlock(&bench_trylock);
		barrier();
	}
	trylock = prim_tenths(t0, base);

	t0 = ktime_get_ns();
	for (i = 0; i < BENCH_PRIM_LOOPS; i++)
		atomic_long_inc(&bench_atomic);
	atomic = prim_tenths(t0, base);
	migrate_enable();

	snprintf(run->prims, sizeof(run->prims),
		 "prim_irqsave_ns=%llu.%llu prim_preempt_ns=%llu.%llu prim_trylock_ns=%llu.%llu prim_atomic_ns=%llu.%llu",
		 irqsave / 10, irqsave % 10, preempt / 10, preempt % 10,
		 trylock / 10, trylock % 10, atomic / 10, atomic % 10);
}

/* Check the invariants and write the result line. */
static void bench_report(struct bench_run *run)
{
	unsigned int i, active = min(run->p.clients, num_online_cpus());
	unsigned long fails, hits, misses, refills, irq_misses, irq_fails;
	u64 ops = run->ops, ns = run->ns, fires = 0, nmi_ops = 0, nmi_sent = 0;
	unsigned long stranded, bound;
	char pmu[BENCH_PMU_MAX];
	bool ok = true;
	int cpu;

	hits = sum_events(run, MCS_STOCK_HIT);
	misses = sum_events(run, MCS_STOCK_MISS);
	fails = sum_events(run, MCS_TRYLOCK_FAIL);
	refills = sum_events(run, MCS_REFILL);
	irq_misses = memcg_events(run->irq_memcg, MCS_STOCK_MISS);
	irq_fails = memcg_events(run->irq_memcg, MCS_TRYLOCK_FAIL);
	for_each_possible_cpu(cpu) {
		fires += run->irq[cpu].fires;
		nmi_ops += run->irq[cpu].nmi_ops;
		nmi_sent += run->irq[cpu].nmi_sent;
	}

	/*
	 * Nothing is live: every page still charged is held by a stock (the
	 * charge the stocks strand), next to the most its design can hold.
	 */
	stranded = mcs_memcg_usage(run->parent);	/* every memcg of the run is below it */
	bound = mcs_stock_page_bound(run->p.mode, run->p.clients * run->p.memcgs + 1);

	/* invariants: nothing live, so after a drain only leftovers remain */
	mcs_drain_all_stock(mcs_root_memcg(), true);
	for (i = 0; i < run->p.clients * run->p.memcgs; i++)
		ok &= bench_check(run->memcgs[i], run->objcgs[i]);
	ok &= bench_check(run->irq_memcg, run->irq_objcg);
	ok &= run->errors == 0;
	mcs_bench_pmu_format(&run->pmu, ops, pmu, sizeof(pmu));

	snprintf(run->result, sizeof(run->result),
		 "mode=%s clients=%u workload=%s hardirq=%d nmi=%s shared=%d memcgs=%u batch=%u entry=%s duration_ms=%u cpus=%u ops=%llu ns=%llu mops=%llu.%03llu ns_per_op=%llu irq_ops=%llu irq_fires=%llu irq_misses=%lu irq_trylock_fail=%lu nmi_sent=%llu nmi_ops=%llu hits=%lu misses=%lu trylock_fail=%lu refills=%lu stranded_pages=%lu stranded_bound=%lu peak_pages=%lu cross=%llu charges=%llu refusals=%llu errors=%ld %s %s verdict=%s\n",
		 mcs_stock_mode_name(run->p.mode), run->p.clients, wl_names[run->p.workload],
		 run->p.hardirq, run->nmi, run->p.shared, run->p.memcgs, mcs_charge_batch(),
		 run->p.exported ? "exported" : "mode", run->p.duration_ms, num_online_cpus(),
		 ops, ns, ops * 1000 / max_t(u64, ns, 1),
		 (ops * 1000000 / max_t(u64, ns, 1)) % 1000,
		 ops ? ns * active / ops : 0, run->irq_ops, fires, irq_misses, irq_fails,
		 nmi_sent, nmi_ops, hits, misses, fails, refills, stranded, bound, run->peak,
		 run->cross, run->charges, run->refusals, run->errors,
		 run->prims, pmu,
		 ok ? "PASS" : "FAIL");
}

/*
 * One measurement, from the allocations to the restored stock mode.  The
 * caller holds the harness, so nobody else switches the mode meanwhile.
 */
static int bench_run(const struct bench_params *p)
{
	enum mcs_stock_mode found = mcs_stock_get_mode();
	unsigned int batch = mcs_charge_batch();
	struct bench_run *run;
	int cpu, ret;

	run = kzalloc_obj(*run, GFP_KERNEL);
	if (!run)
		return -ENOMEM;
	run->p = *p;
	run->obj_size = wl_obj_size[p->workload] ?: BENCH_OBJ_SIZE;
	init_waitqueue_head(&run->wq);
	atomic_set(&run->loading, p->clients);
	init_completion(&run->stopped);
	init_completion(&run->exited);

	ret = -ENOMEM;
	run->clients = kcalloc(p->clients, sizeof(*run->clients), GFP_KERNEL);
	if (!run->clients)
		goto free_run;
	/* an array, not alloc_percpu(): a failure here must be quiet and injectable */
	run->irq = kcalloc(nr_cpu_ids, sizeof(*run->irq), GFP_KERNEL);
	if (!run->irq)
		goto free_clients;
	run->memcgs = kcalloc(p->clients * p->memcgs, sizeof(*run->memcgs), GFP_KERNEL);
	if (!run->memcgs)
		goto free_irq;
	run->objcgs = kcalloc(p->clients * p->memcgs, sizeof(*run->objcgs), GFP_KERNEL);
	if (!run->objcgs)
		goto free_memcgs;
	if (mcs_bench_pmu_alloc(&run->pmu, p->pmu))
		goto free_pmu;
	for_each_possible_cpu(cpu) {
		run->irq[cpu].run = run;
		mcs_hrtimer_setup(&run->irq[cpu].timer, bench_irq_fn, CLOCK_MONOTONIC,
				  HRTIMER_MODE_REL_PINNED_HARD);
	}

	ret = bench_memcgs_create(run);
	if (ret)
		goto free_pmu;
	ret = mcs_stock_set_bench_mode(p->mode);
	if (ret)
		goto put_memcgs;
	if (p->batch) {
		ret = mcs_stock_set_bench_batch(p->batch);
		if (ret)
			goto restore_mode;
	}
	ret = bench_clients_create(run);
	if (ret)
		goto restore_mode;
	mcs_bench_pmu_create(&run->pmu, &run->client_cpus);
	bench_prims(run);

	bench_measure(run);
	bench_report(run);
	mutex_lock(&bench_result_lock);
	strscpy(bench_result, run->result, sizeof(bench_result));
	mutex_unlock(&bench_result_lock);
	bench_clients_end(run, p->clients, BENCH_RELEASE);

restore_mode:
	if (p->batch)
		mcs_stock_set_bench_batch(batch);
	/* the mode found may be one mcs_stock_set_mode() refuses (coupled-noirq) */
	mcs_stock_set_bench_mode(found);
put_memcgs:
	bench_memcgs_put(run);
free_pmu:
	mcs_bench_pmu_free(&run->pmu);
	kfree(run->objcgs);
free_memcgs:
	kfree(run->memcgs);
free_irq:
	kfree(run->irq);
free_clients:
	kfree(run->clients);
free_run:
	kfree(run);
	return ret;
}

/* workload=replay: the loaded trace through @p's mode (harness/replay.c) */
static int bench_replay(const struct bench_params *p, enum mcs_error_kind *why)
{
	char *result = kzalloc(BENCH_RESULT_MAX, GFP_KERNEL);
	int ret;

	if (!result)
		return -ENOMEM;
	ret = mcs_replay_bench(p->mode, p->batch, p->exported, p->passes, result,
			       BENCH_RESULT_MAX, why);
	if (!ret) {
		mutex_lock(&bench_result_lock);
		strscpy(bench_result, result, sizeof(bench_result));
		mutex_unlock(&bench_result_lock);
	}
	kfree(result);
	return ret;
}

/* The parameter @key of a mode's design, the first found, or NULL. */
static const struct mcs_bench_param *bench_dparam_find(const char *key)
{
	const struct mcs_bench_param *dp;
	int m;

	for (m = 0; m < NR_MCS_MODES; m++)
		for (dp = mcs_stock_modes[m]->params; dp && dp->name; dp++)
			if (!strcmp(dp->name, key))
				return dp;
	return NULL;
}

/* Is @dp a parameter of @mode? */
static bool bench_dparam_of(const struct mcs_bench_param *dp, enum mcs_stock_mode mode)
{
	const struct mcs_bench_param *q;

	for (q = mcs_stock_modes[mode]->params; q && q->name; q++)
		if (q == dp)
			return true;
	return false;
}

/* A design's parameter @dp=@val of the line (@key: its key there) into @p. */
static int bench_parse_dparam(struct mcs_input *in, struct bench_params *p,
			      const struct mcs_bench_param *dp, const char *key,
			      const char *val)
{
	unsigned int i;

	for (i = 0; i < p->nr_dparams; i++)
		if (p->dparam[i] == dp)
			return mcs_input_error(in, MCS_ERR_TWICE, key, -EINVAL);
	if (p->nr_dparams == BENCH_MAX_DPARAMS)
		return mcs_input_error(in, MCS_ERR_KEY, key, -EINVAL);
	p->dparam[p->nr_dparams] = dp;
	p->dkey[p->nr_dparams] = key;
	return mcs_input_uint(in, val, dp->min, dp->max, false, &p->dvalue[p->nr_dparams++]);
}

/* Where @dp is in @p's line (-1: not named), and its value for @p's run. */
static int bench_dparam_value(const struct bench_params *p, const struct mcs_bench_param *dp,
			      unsigned int *value)
{
	unsigned int i;

	for (i = 0; i < p->nr_dparams; i++) {
		if (p->dparam[i] == dp) {
			*value = p->dvalue[i];
			return i;
		}
	}
	*value = READ_ONCE(*dp->value);
	return -1;
}

/*
 * Each parameter of @p's mode that must stay below another (@below) is
 * below it with the values of @p's run: the ones its line sets, the
 * current ones of the others.  Called with the harness claimed, so that
 * no other run has its own values set; nothing is set yet.  The error log
 * points at the lower key in the line, else at the upper one.
 */
static int bench_dparams_check(struct mcs_input *in, const struct bench_params *p)
{
	const struct mcs_bench_param *params = mcs_stock_modes[p->mode]->params;
	const struct mcs_bench_param *lo, *up;

	for (lo = params; lo && lo->name; lo++) {
		unsigned int lo_val, up_val;
		int lo_at, up_at;

		if (!lo->below)
			continue;
		for (up = params; up->name && strcmp(up->name, lo->below); up++)
			;
		/* no such parameter: designs.py check and KUnit catch the table */
		if (!up->name)
			continue;
		lo_at = bench_dparam_value(p, lo, &lo_val);
		up_at = bench_dparam_value(p, up, &up_val);
		if (lo_val < up_val)
			continue;
		return mcs_input_error(in, MCS_ERR_PARAM_ORDER,
				       lo_at >= 0 ? p->dkey[lo_at] :
				       up_at >= 0 ? p->dkey[up_at] : NULL, -EINVAL);
	}
	return 0;
}

/*
 * Set the design's parameters of @p for its run (@saved: the values to
 * restore), or restore them (@saved's).
 */
static void bench_dparams_set(const struct bench_params *p, unsigned int *saved, bool restore)
{
	unsigned int i;

	for (i = 0; i < p->nr_dparams; i++) {
		if (restore) {
			WRITE_ONCE(*p->dparam[i]->value, saved[i]);
			continue;
		}
		saved[i] = READ_ONCE(*p->dparam[i]->value);
		WRITE_ONCE(*p->dparam[i]->value, p->dvalue[i]);
	}
}

/* The result line of @p's run ends with each parameter of its mode. */
static void bench_result_dparams(const struct bench_params *p)
{
	const struct mcs_bench_param *dp = mcs_stock_modes[p->mode]->params;
	size_t len;

	mutex_lock(&bench_result_lock);
	len = strlen(bench_result);
	if (len && bench_result[len - 1] == '\n')
		bench_result[--len] = '\0';
	for (; dp && dp->name; dp++)
		len += scnprintf(bench_result + len, sizeof(bench_result) - len, " %s=%u",
				 dp->name, READ_ONCE(*dp->value));
	scnprintf(bench_result + len, sizeof(bench_result) - len, "\n");
	mutex_unlock(&bench_result_lock);
}

/* Parse a checked line (mcs_input_copy()) into @p: all of it, or -EINVAL. */
static int bench_parse(struct mcs_input *in, struct bench_params *p)
{
	const struct mcs_bench_param *dp;
	unsigned int i;
	unsigned long seen = 0;
	char *line = in->buf, *tok, *key, *val;
	int k, ret;

	const char *modes[NR_MCS_MODES];

	*p = (struct bench_params){ .mode = MCS_MODE_DECOUPLED, .clients = 1, .memcgs = 1,
				    .workload = WL_PAGES, .duration_ms = BENCH_DEFAULT_MS };
	for (k = 0; k < NR_MCS_MODES; k++)
		modes[k] = mcs_stock_mode_name(k);
	while ((tok = mcs_input_next(&line)) != NULL) {
		ret = mcs_input_kv(in, tok, &key, &val);
		if (ret)
			return ret;
		dp = match_string(bench_keys, NR_KEYS, key) < 0 ? bench_dparam_find(key) : NULL;
		if (dp) {
			ret = bench_parse_dparam(in, p, dp, key, val);
			if (ret)
				return ret;
			continue;
		}
		k = mcs_input_key(in, key, bench_keys, NR_KEYS);
		if (k < 0)
			return k;
		/* last-wins would let a typo in a long line go unnoticed */
		if (seen & BIT(k))
			return mcs_input_error(in, MCS_ERR_TWICE, key, -EINVAL);
		seen |= BIT(k);

		switch (k) {
		case KEY_MODE:
			ret = mcs_input_match(in, val, modes, NR_MCS_MODES);
			if (ret >= 0)
				p->mode = ret;
			break;
		case KEY_WORKLOAD:
			ret = mcs_input_match(in, val, wl_names, NR_WL);
			if (ret >= 0)
				p->workload = ret;
			break;
		case KEY_CLIENTS:
			ret = mcs_input_uint(in, val, 1, BENCH_MAX_CLIENTS, false,
					     &p->clients);
			break;
		case KEY_DURATION:
			ret = mcs_input_uint(in, val, 1, BENCH_MAX_MS, false,
					     &p->duration_ms);
			break;
		case KEY_HARDIRQ:
			ret = mcs_input_bool(in, val, &p->hardirq);
			break;
		case KEY_SHARED:
			ret = mcs_input_bool(in, val, &p->shared);
			break;
		case KEY_NMI:
			ret = mcs_input_bool(in, val, &p->nmi);
			break;
		case KEY_PMU:
			ret = mcs_input_match(in, val, mcs_bench_pmu_names, NR_MCS_PMU);
			if (ret >= 0)
				p->pmu = ret;
			break;
		case KEY_MEMCGS:
			ret = mcs_input_uint(in, val, 1, BENCH_MAX_MEMCGS, false,
					     &p->memcgs);
			break;
		case KEY_BATCH:
			ret = mcs_input_uint(in, val, 1, MCS_CHARGE_BATCH, false,
					     &p->batch);
			break;
		case KEY_ENTRY:
			ret = mcs_input_match(in, val, bench_entries, ARRAY_SIZE(bench_entries));
			if (ret >= 0)
				p->exported = ret;
			break;
		case KEY_PASSES:
			ret = mcs_input_uint(in, val, 1, MCS_REPLAY_MAX_PASSES, false,
					     &p->passes);
			break;
		}
		if (ret < 0)
			return ret;
	}
	/* a drain runs in task context only: no interrupt load to charge beside it */
	if (p->workload == WL_DRAIN && (p->hardirq || p->nmi))
		return mcs_input_error(in, MCS_ERR_DRAIN_LOAD, NULL, -EINVAL);
	/*
	 * the cross and limit workloads: one memcg per client, task context
	 * only; the cross ones may share client 0's memcg
	 */
	if (p->workload >= WL_CROSS_PAGES &&
	    (p->memcgs != 1 || p->hardirq || p->nmi ||
	     (p->workload > WL_CROSS_BYTES && p->shared) ||
	     (p->workload <= WL_CROSS_BYTES && p->clients < 2)))
		return mcs_input_error(in, MCS_ERR_ALONE, NULL, -EINVAL);
	if (p->clients * p->memcgs > BENCH_MAX_MEMCG_TOTAL)
		return mcs_input_error(in, MCS_ERR_TOO_MANY, NULL, -EINVAL);
	if (p->passes && p->workload != WL_REPLAY)
		return mcs_input_error(in, MCS_ERR_REPLAY_ONLY, NULL, -EINVAL);
	/* a parameter of another mode's design is not a key of this run */
	for (i = 0; i < p->nr_dparams; i++)
		if (!bench_dparam_of(p->dparam[i], p->mode))
			return mcs_input_error(in, MCS_ERR_KEY, p->dkey[i], -EINVAL);
	return 0;
}

static ssize_t bench_write(struct file *file, const char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	enum mcs_error_kind why = MCS_ERR_FAILED;
	struct bench_params p;
	struct mcs_input in;
	int ret;

	ret = mcs_input_copy(&in, "bench", ubuf, count, BENCH_LINE_MAX, false);
	if (ret)
		return ret;
	ret = bench_parse(&in, &p);
	if (!ret)
		ret = mcs_harness_claim_write(&in, MCS_USER_BENCH);
	if (!ret) {
		ret = bench_dparams_check(&in, &p);
		if (ret)
			mcs_harness_release(MCS_USER_BENCH);
	}
	if (!ret) {
		unsigned int saved[BENCH_MAX_DPARAMS];

		bench_dparams_set(&p, saved, false);
		ret = p.workload == WL_REPLAY ? bench_replay(&p, &why) : bench_run(&p);
		if (!ret)
			bench_result_dparams(&p);
		bench_dparams_set(&p, saved, true);
		mcs_harness_release(MCS_USER_BENCH);
		if (ret)
			mcs_input_error(&in, why, NULL, ret);
	}
	mcs_input_free(&in);
	return ret ? ret : count;
}

static ssize_t bench_read(struct file *file, char __user *ubuf, size_t count, loff_t *ppos)
{
	ssize_t ret;
	char *out;

	/* a copy off the stack: the line is over 1 KiB */
	mutex_lock(&bench_result_lock);
	out = kstrdup(bench_result, GFP_KERNEL);
	mutex_unlock(&bench_result_lock);
	if (!out)
		return -ENOMEM;
	ret = simple_read_from_buffer(ubuf, count, ppos, out, strlen(out));
	kfree(out);
	return ret;
}

static const struct file_operations bench_fops = {
	.owner = THIS_MODULE,
	.read = bench_read,
	.write = bench_write,
	.llseek = default_llseek,
};

/**
 * mcs_bench_init() - create the debugfs file "bench"
 * @dir: the module's debugfs directory
 */
void mcs_bench_init(struct dentry *dir)
{
	debugfs_create_file("bench", 0600, dir, NULL, &bench_fops);
}
