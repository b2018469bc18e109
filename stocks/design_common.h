/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every stock design shares (stocks/; the obj stock of mode
 * "decoupled-7.3" is one of design "decoupled"'s kinds): a
 * stock's answer to a charge, the stocks of design "decoupled", which
 * other designs size theirs after, the kinds of per-CPU stock as the drains
 * see them, and struct mcs_design.  It includes the mode fence (stocks/)
 * and the layer below: the memcg tree, the objcgs.
 */
#ifndef MEMCG_STOCK_DESIGN_COMMON_H
#define MEMCG_STOCK_DESIGN_COMMON_H

#include <linux/percpu.h>
#include <linux/workqueue.h>

#include "objects/memcg.h"
#include "objects/objcg.h"
#include "stock_fence.h"

/* Memcg slots per CPU: lock + 7 page counts + 7 pointers fill one line. */
#define NR_MEMCG_STOCK		7

/*
 * The slot scans of the inline charge paths, over NR_MEMCG_STOCK or
 * NR_OBJ_STOCK slots, are unrolled ("#pragma GCC unroll 8" before each): a
 * slot costs a compare and a branch instead of six instructions of a loop,
 * and a miss scans every slot.
 */

/*
 * What a per-CPU stock answered the inline path of a charge.  MCS_TAKE_FULL
 * is a miss of a memcg or objcg that has no slot in a stock whose slots are
 * all taken: its refill will likely be turned away (MCS_STOCK_ADMIT_EVERY).
 */
enum mcs_stock_answer {
	MCS_TAKE_NOT_ASKED, MCS_TAKE_HIT, MCS_TAKE_MISS, MCS_TAKE_FULL, MCS_TAKE_BUSY
};

/*
 * A full stock gives a slot to a newcomer (a memcg or objcg without one)
 * on every MCS_STOCK_ADMIT_EVERY-th refill it would need one for; the
 * others go straight back to the counters (pages) or to the objcg's
 * leftover (bytes).  With more memcgs in turn than slots, evicting on
 * every miss (round-robin or LRU alike) empties each slot just before its
 * memcg comes back, so every charge pays a batch and an eviction; turning
 * most newcomers away keeps the slots that hit and bounds the evictions
 * to one per MCS_STOCK_ADMIT_EVERY refills that a full stock turned away,
 * so that a new working set still gets in.  What counts is refills, not
 * misses: a memcg without a slot is charged exactly, and one whose pages
 * never come back through this CPU's stock (uncharged with
 * mcs_charge_uncharge(), a gather, or on another CPU) is never admitted;
 * it pays what no stock costs until a drain frees a slot.
 */
#define MCS_STOCK_ADMIT_EVERY	8

/* Bit in the stocks' ->flags: a drain of this stock is queued or running. */
#define FLUSHING_CACHED_CHARGE	0

/**
 * struct mcs_memcg_stock - per-CPU cache of pre-charged pages
 * @lock: protects @nr_pages, @cached and @drain_idx of this CPU's instance
 * @nr_pages: pages held for @cached[i], never above the batch (mcs_batch_now())
 *	after an operation completes
 * @cached: memcg of slot i or NULL; each non-NULL slot holds a reference
 * @drain_idx: round-robin eviction cursor, in [0, NR_MEMCG_STOCK)
 * @owner: the mark of mode "decoupled-owner" on PREEMPT_RT (stock_owner.h;
 *	elsewhere its sections mark @lock's own byte); outside the line of
 *	the hit path that @lock shares with @nr_pages and @cached
 * @nr_cached: slots in use (non-NULL @cached); when it drops to 0,
 *	@admit_wait and @drain_idx restart at 0
 * @admit_wait: refills turned away since the last eviction (full stock)
 * @flags: FLUSHING_CACHED_CHARGE
 * @work: drain work, queued on this CPU
 *
 * Remote CPUs only read @cached and @nr_pages (READ_ONCE, under RCU) to
 * decide whether a drain is needed; every write happens on the owning CPU
 * under @lock or @owner, or on a dead CPU's stock from the hotplug
 * callback.
 */
struct mcs_memcg_stock {
	local_trylock_t lock;
	u8 nr_pages[NR_MEMCG_STOCK];
	struct mcs_memcg *cached[NR_MEMCG_STOCK];
	u8 drain_idx;
	u8 owner;
	u8 nr_cached;
	u8 admit_wait;
	unsigned long flags;
	struct work_struct work;
};

DECLARE_PER_CPU_ALIGNED(struct mcs_memcg_stock, mcs_memcg_stock);

/* Objcg slots per CPU in the obj stock: as many as the memcg stock has. */
#define NR_OBJ_STOCK		7

/**
 * struct mcs_obj_stock - per-CPU cache of pre-charged bytes
 * @lock: protects everything but @work and @flags; never the memcg stock's
 * @index: slot whose objcg owns the cached slab-stat deltas, -1 for none
 * @node_id: node of the cached slab-stat deltas, NUMA_NO_NODE for none
 * @nr_slab_b: cached slab byte deltas by enum mcs_slab_item
 * @nr_bytes: pre-charged bytes available to @cached[i]
 * @cached: objcg of slot i or NULL; each non-NULL slot holds a reference
 * @drain_idx: round-robin eviction cursor, in [0, NR_OBJ_STOCK)
 * @owner: the mark of mode "decoupled-owner" on PREEMPT_RT (stock_owner.h;
 *	elsewhere its sections mark @lock's own byte)
 * @nr_cached: slots in use (non-NULL @cached); when it drops to 0,
 *	@admit_wait and @drain_idx restart at 0
 * @admit_wait: refills turned away since the last eviction (full stock)
 * @flags: FLUSHING_CACHED_CHARGE
 * @work: drain work, queued on this CPU
 */
struct mcs_obj_stock {
	local_trylock_t lock;
	s8 index;
	s16 node_id;
	int nr_slab_b[NR_MCS_SLAB_ITEMS];
	unsigned int nr_bytes[NR_OBJ_STOCK];
	struct mcs_objcg *cached[NR_OBJ_STOCK];
	u8 drain_idx;
	u8 owner;
	u8 nr_cached;
	u8 admit_wait;
	unsigned long flags;
	struct work_struct work;
};

DECLARE_PER_CPU_ALIGNED(struct mcs_obj_stock, mcs_obj_stock);

/**
 * struct mcs_stock_slot - one slot of a per-CPU stock that holds a memcg
 * @cpu: the stock's CPU
 * @stock: the stock's name in reports ("memcg", "obj", "coupled", ...)
 * @index: the slot in that stock
 * @bytes: a slot of bytes (an objcg's), not of pages
 * @memcg: the memcg it holds, or the memcg of the objcg it holds
 * @amount: what it holds: pages, or bytes for a slot of @bytes
 */
struct mcs_stock_slot {
	int cpu;
	const char *stock;
	int index;
	bool bytes;
	struct mcs_memcg *memcg;
	unsigned int amount;
};

/* What a kind's walker calls for each slot that holds a memcg. */
typedef void (*mcs_slot_fn)(const struct mcs_stock_slot *slot, void *arg);

/* For walkers: slot @index of @stock on @cpu, to @fn if it holds @memcg. */
static inline void mcs_stock_slot_visit(mcs_slot_fn fn, void *arg, int cpu, const char *stock,
					int index, bool bytes, struct mcs_memcg *memcg,
					unsigned int amount)
{
	struct mcs_stock_slot slot = {
		.cpu = cpu, .stock = stock, .index = index, .bytes = bytes, .memcg = memcg,
		.amount = amount,
	};

	if (memcg)
		fn(&slot, arg);
}

/* For walkers: the memcg of a slot's objcg (NULL for an empty slot). */
static inline struct mcs_memcg *mcs_stock_objcg_memcg(struct mcs_objcg *objcg)
{
	return objcg ? READ_ONCE(objcg->memcg) : NULL;
}

/*
 * One kind of per-CPU stock, as the drains and the checks see it.  Each
 * design lists its kinds in its struct mcs_design (NULL-terminated), in
 * the order a full drain takes them: stocks of bytes first.  Every stock
 * struct has an unsigned long `flags` (FLUSHING_CACHED_CHARGE) and a
 * `work` that drains it on its CPU.
 * @stock: the per-CPU stock
 * @type_name: its struct's name, "struct mcs_memcg_stock" (the layout table)
 * @flags_offset: offsetof() its flags word
 * @work_offset: offsetof() its drain work
 * @drain_fn: the drain work's function
 * @holds: does @cpu's stock cache a page or a reference of @root's
 *	subtree?  @any_slot: also slots with nothing left but a reference
 * @cpu_dead: empty @cpu's stock, lock-free: @cpu is dead
 * @walk: call @fn for every slot of @cpu's stock that holds a memcg or an
 *	objcg (mcs_stock_slot_visit()), for the checks that nothing is left
 *	in a stock (the stress harness, the replay, the "stocks" view):
 *	lock-free (READ_ONCE; a slot may be stale), under rcu_read_lock(),
 *	any context, never sleeps
 */
struct mcs_stock_kind {
	void __percpu *stock;
	const char *type_name;
	size_t flags_offset;
	size_t work_offset;
	work_func_t drain_fn;
	bool (*holds)(int cpu, struct mcs_memcg *root, bool any_slot);
	void (*cpu_dead)(unsigned int cpu);
	void (*walk)(int cpu, mcs_slot_fn fn, void *arg);
};

#define MCS_STOCK_KIND(var, type, drain, holds_fn, dead_fn, walk_fn) {	\
	.stock = (void __percpu *)&(var),				\
	.type_name = #type,						\
	.flags_offset = offsetof(type, flags),				\
	.work_offset = offsetof(type, work),				\
	.drain_fn = (drain),						\
	.holds = (holds_fn),						\
	.cpu_dead = (dead_fn),						\
	.walk = (walk_fn),						\
}

static inline unsigned long *mcs_stock_flags(const struct mcs_stock_kind *kind, int cpu)
{
	return (void *)per_cpu_ptr(kind->stock, cpu) + kind->flags_offset;
}

static inline struct work_struct *mcs_stock_work(const struct mcs_stock_kind *kind, int cpu)
{
	return (void *)per_cpu_ptr(kind->stock, cpu) + kind->work_offset;
}

/**
 * struct mcs_design - a stock design as the drains and the switch see it
 * @name: its name (a mode's design is printed as this)
 * @kinds: its kinds of per-CPU stock, NULL-terminated, bytes first
 * @batches: a page charge that misses charges a whole batch and puts the
 *	surplus into the stock (false: exact charges, no stock of pages)
 * @memcgs_per_cpu: memcgs whose pages one CPU's page stock holds at once,
 *	at most a batch (mcs_batch_now()) each once an operation completes (0:
 *	no page stock; UINT_MAX: a stock per memcg, no limit); with the CPU
 *	count it bounds the charge that the stocks strand
 * @drain_memcg: for a design whose stocks live in the memcgs rather than
 *	in per-CPU structs (no kinds): empty @memcg's stock of @cpu, or of
 *	every CPU when @cpu < 0, from any CPU, lock-free; the drains walk
 *	the subtree.  NULL for the others.
 */
struct mcs_design {
	const char *name;
	const struct mcs_stock_kind *const *kinds;
	bool batches;
	unsigned int memcgs_per_cpu;
	void (*drain_memcg)(struct mcs_memcg *memcg, int cpu);
};

/**
 * struct mcs_bench_param - a design's parameter of a benchmark run
 * @name: its key on a "bench" write (it must not be one of the harness's)
 * @min: its least value
 * @max: its greatest value
 * @value: the design's variable, read on its paths; its value at load is
 *	the default, set for a run that names the key and restored after it
 * @doc: one line: what it sets
 * @below: NULL, or the name of another parameter of the same mode that
 *	this one must stay strictly below: a run whose values (the ones its
 *	line sets, the others' current ones) break it is refused
 *	(MCS_ERR_PARAM_ORDER), before anything is set.  Debugfs "modes"
 *	publishes it, so that the tests try a crossed pair of every design.
 */
struct mcs_bench_param {
	const char *name;
	unsigned int min;
	unsigned int max;
	unsigned int *value;
	const char *doc;
	const char *below;
};

#define MCS_BENCH_PARAM(n, lo, hi, var, d) {				\
	.name = (n), .min = (lo), .max = (hi), .value = &(var), .doc = (d) }

/* A parameter that must stay below the parameter called @up of its mode. */
#define MCS_BENCH_PARAM_BELOW(n, lo, hi, var, up, d) {			\
	.name = (n), .min = (lo), .max = (hi), .value = &(var), .doc = (d),	\
	.below = (up) }

/*
 * mcs_mode_info's flags.  MCS_MODE_CONTROL: a benchmark control that
 * mcs_stock_set_mode() refuses.  MCS_MODE_NO_REFILL: an uncharge never
 * puts pages into the mode's stock (they go back to the counters; only a
 * charge's batch fills it), so an uncharge strands nothing.
 */
#define MCS_MODE_CONTROL	BIT(0)
#define MCS_MODE_NO_REFILL	BIT(1)

/*
 * The cycle model's primitive uses of a stock hit (struct mcs_mode_info's
 * @cycles) for what several designs share: a local_trylock_t section per
 * event (on PREEMPT_RT an rt_spin_lock(), two cmpxchgs each), bytes
 * through the objcg's atomic leftover, pages charged to the counters
 * exactly (3 levels).  Plain string literals, so that the host scripts
 * read them from the source too (scripts/bench/designs.py).
 */
#define MCS_CYCLES_TRYLOCK_PAGES	"pages:trylock*2,pages@rt:trylock*2+atomic*4"
#define MCS_CYCLES_TRYLOCK_BYTES	"bytes:trylock*2,bytes@rt:trylock*2+atomic*4"
#define MCS_CYCLES_OBJCG_ATOMIC	"bytes:atomic*11+preempt*1,bytes-shared:atomic*2+transfer*2"
#define MCS_CYCLES_COUNTERS	"pages:atomic*6+preempt*1,pages-shared:atomic*6+preempt*1+transfer*6"

/**
 * struct mcs_mode_info - what the tests and the reports need of a mode
 * @group: the mode's group in the benchmark report: the modes of a group
 *	are the columns of one band of a wide table ("decoupled", "coupled",
 *	"series"); NULL: in no wide table (a calibration mode)
 * @abbr: its short column name, at most 9 characters
 * @cycles: the cycle model (docs/benchmark-details.md): the primitives a
 *	charge+uncharge pair that hits the stock uses, comma-separated
 *	"WORKLOAD[@rt]:PRIM*N[+PRIM*N...]", WORKLOAD pages, bytes,
 *	pages-shared or bytes-shared (a -shared one left out: as the plain
 *	one; an @rt one left out: as the non-RT one), PRIM trylock,
 *	irqsave, preempt, atomic or transfer
 * @flags: MCS_MODE_CONTROL, MCS_MODE_NO_REFILL
 * @params: its benchmark parameters, terminated by one without a name;
 *	NULL for none; one may name another it must stay below (@below)
 * @settings: NULL, or the settings of @params that the benchmark measures
 *	beside the defaults, in the designs side by side and the replays:
 *	"|"-separated, each "NAME=N[,NAME=N...]" (a plain literal; the
 *	report labels its rows "mode(NAME=N)")
 * @kinds: the kinds of its design's stocks that this mode fills,
 *	NULL-terminated (two modes of one design may each have a stock of
 *	its own); NULL: every kind of its design
 * @layout: NULL, or what the per-CPU layout table (scripts/bench/layout.py)
 *	cannot read from the structs: "hit+MEMBER[+MEMBER...]", members of
 *	the per-CPU struct that a hit touches beyond its lock, its slot scan
 *	and its count; "per-memcg:N", the bytes per CPU that a stock kept
 *	beside each memcg holds; comma-separated (a plain literal)
 *
 * Each line of the binding table has one, mcs_mode_<entry>, in its
 * design's files; debugfs "modes" publishes it.
 */
struct mcs_mode_info {
	const char *group;
	const char *abbr;
	const char *cycles;
	unsigned int flags;
	const struct mcs_bench_param *params;
	const char *settings;
	const struct mcs_stock_kind *const *kinds;
	const char *layout;
};

/* The kinds of stock that @info's mode fills (struct mcs_mode_info). */
static inline const struct mcs_stock_kind *const *
mcs_mode_kinds(const struct mcs_mode_info *info, const struct mcs_design *design)
{
	return info->kinds ?: design->kinds;
}

#endif /* MEMCG_STOCK_DESIGN_COMMON_H */
