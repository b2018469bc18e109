/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Structures shared by the files of memcg_stock.ko and by its white-box
 * KUnit suites.  Clients use memcg_stock.h only.
 */
#ifndef MEMCG_STOCK_INTERNAL_H
#define MEMCG_STOCK_INTERNAL_H

#include <linux/cache.h>
#include <linux/hardirq.h>
#include <linux/list.h>
#include <linux/nodemask.h>
#include <linux/percpu.h>
#include <linux/percpu-refcount.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/workqueue.h>
#include <asm/local.h>

#include "compat.h"
#include "memcg_stock.h"

#define MCS_NAME_LEN		32

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
 * struct mcs_deferred - a release that NMI context handed over
 * @node: entry in the deferred list (lock-free)
 * @release: finishes the release, in hard interrupt context (irq_work)
 */
struct mcs_deferred {
	struct llist_node node;
	void (*release)(struct mcs_deferred *d);
};

/**
 * struct mcs_memcg_per_node - per-NUMA-node part of a memcg
 * @memcg: back pointer
 * @nid: node id
 * @slab_b: bytes of slab charged on this node, by enum mcs_slab_item
 *	(slab_reclaimable_b, slab_unreclaimable_b); flushed values, the obj
 *	stocks may cache a delta on top
 * @lruvec_stats: per-node page statistics (modelled for the footprint)
 */
struct mcs_memcg_per_node {
	struct mcs_memcg *memcg;
	int nid;
	atomic_long_t slab_b[NR_MCS_SLAB_ITEMS];
	long lruvec_stats[40];
};

/**
 * struct mcs_memcg_stats_pcpu - per-CPU event counters of a memcg
 * @events: one local_t per enum mcs_memcg_event
 * @charge: charge lifetime statistics (charge.c), by enum mcs_charge_item
 */
struct mcs_memcg_stats_pcpu {
	local_t events[NR_MCS_EVENTS];
	local_t charge[NR_MCS_CHARGE_ITEMS];
};

/**
 * struct mcs_memcg - a memory cgroup of the model
 * @memory: hierarchical page counter (parent's counter is the parent link)
 * @parent: parent memcg, NULL for the module's root; pinned by a reference
 * @refcnt: references; the stocks hold one per slot caching this memcg
 * @online: false once offlined: no new charges are accepted
 * @id: unique id (never reused while the module is loaded)
 * @depth: 0 for the root
 * @name: name given at creation
 * @sibling: entry in the parent's @children (under the tree mutex)
 * @children: online children
 * @max_mutex: serialises limit updates
 * @stats: per-CPU event counters
 * @objcg: current objcg (NULL once offline); RCU
 * @objcg_list: objcgs pointing at this memcg: its own and those inherited
 *	from offlined descendants (under the objcg lock)
 * @objcg_pages: pages charged at this memcg's level through objcgs while
 *	they pointed here; moved to the parent at offline
 * @rcu: freeing is deferred: remote stock scanners read pointers under RCU
 * @deferred: the last reference dropped in NMI: released from irq_work
 * @counter_stock: per-CPU pages charged to @memory and held for this memcg
 *	beside its counter (design "percpu-counter"); allocated and freed with
 *	the memcg, NULL for the root; the tree itself never reads it
 * @nodeinfo: per-node parts, nr_node_ids entries
 */
struct mcs_memcg {
	struct mcs_page_counter memory;
	struct mcs_memcg *parent;
	refcount_t refcnt;
	bool online;
	unsigned int id;
	int depth;
	char name[MCS_NAME_LEN];
	struct list_head sibling;
	struct list_head children;
	struct mutex max_mutex;	/* serialises mcs_memcg_set_max() */
	struct mcs_memcg_stats_pcpu __percpu *stats;
	struct mcs_objcg __rcu *objcg;
	struct list_head objcg_list;
	atomic_long_t objcg_pages;
	struct rcu_head rcu;
	struct mcs_deferred deferred;
	atomic_t __percpu *counter_stock;
	struct mcs_memcg_per_node *nodeinfo[];
};

/**
 * struct mcs_memcg_stock - per-CPU cache of pre-charged pages
 * @lock: protects @nr_pages, @cached and @drain_idx of this CPU's instance
 * @nr_pages: pages held for @cached[i], never above the batch (mcs_batch_now())
 *	after an operation completes
 * @cached: memcg of slot i or NULL; each non-NULL slot holds a reference
 * @drain_idx: round-robin eviction cursor, in [0, NR_MEMCG_STOCK)
 * @owner: the exclusion of mode "decoupled-owner" (stock_owner.h), which
 *	protects the same fields as @lock; outside the line of the hit path
 *	that @lock shares with @nr_pages and @cached
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

/**
 * struct mcs_objcg - object cgroup: the owner of byte-sized charges
 * @refcnt: references: callers, and one per obj stock slot caching it
 * @memcg: memcg charged; moves to the parent when that memcg goes offline
 *	(READ_ONCE under RCU)
 * @nr_charged_bytes: the leftover: charged bytes that no stock holds
 *	(sub-page remainders of drains, failed trylocks and mode "none"),
 *	below PAGE_SIZE whenever no update is in flight
 * @is_root: the root memcg's objcg: nothing is charged or accounted
 * @list: entry in @memcg's objcg_list (under the objcg lock)
 * @rcu: freed after a grace period (stock scanners read ->memcg)
 * @deferred: the last reference dropped in NMI: released from irq_work
 */
struct mcs_objcg {
	struct percpu_ref refcnt;
	struct mcs_memcg *memcg;
	atomic_t nr_charged_bytes;
	bool is_root;
	struct list_head list;
	struct rcu_head rcu;
	struct mcs_deferred deferred;
};

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
 * @owner: the exclusion of mode "decoupled-owner" (stock_owner.h), which
 *	protects what @lock protects
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

/* Objcg slots per CPU in the obj stock of mode "decoupled-7.3": upstream's. */
#define NR_OBJ73_STOCK		5

/**
 * struct mcs_obj73_stock - per-CPU cache of pre-charged bytes, 7.3's shape
 * @lock: protects everything but @work and @flags; never another stock's
 * @index: slot whose objcg owns the cached slab-stat deltas, -1 for none
 * @node_id: node of the cached slab-stat deltas, NUMA_NO_NODE for none
 * @nr_slab_b: cached slab byte deltas by enum mcs_slab_item, 16 bits each
 * @nr_bytes: pre-charged bytes available to @cached[i], 16 bits each
 * @cached: objcg of slot i or NULL; each non-NULL slot holds a reference
 * @flags: FLUSHING_CACHED_CHARGE
 * @work: drain work, queued on this CPU
 * @drain_idx: round-robin eviction cursor, in [0, NR_OBJ73_STOCK)
 *
 * Everything a hit reads or writes, @lock to @cached, fits one 64-byte
 * line on a 64-bit kernel without lock debugging, as upstream sized it.
 */
struct mcs_obj73_stock {
	local_trylock_t lock;
	s8 index;
	s16 node_id;
	s16 nr_slab_b[NR_MCS_SLAB_ITEMS];
	u16 nr_bytes[NR_OBJ73_STOCK];
	struct mcs_objcg *cached[NR_OBJ73_STOCK];
	unsigned long flags;
	struct work_struct work;
	u8 drain_idx;
};

DECLARE_PER_CPU_ALIGNED(struct mcs_obj73_stock, mcs_obj73_stock);

/**
 * struct mcs_coupled_stock - the pre-2025 per-CPU stock (stock mode "coupled")
 * @lock: one local_lock_t for everything, always taken with IRQs disabled
 * @cached: the one memcg cached, holding a reference
 * @nr_pages: pages pre-charged to @cached
 * @cached_objcg: the one objcg cached, holding a reference
 * @cached_nid: node of the cached slab-stat deltas, NUMA_NO_NODE for none
 * @nr_bytes: bytes pre-charged to @cached_objcg
 * @nr_slab_b: cached slab byte deltas by enum mcs_slab_item
 * @work: drain work
 * @flags: FLUSHING_CACHED_CHARGE
 */
struct mcs_coupled_stock {
	local_lock_t lock;
	struct mcs_memcg *cached;
	unsigned int nr_pages;
	struct mcs_objcg *cached_objcg;
	int cached_nid;
	unsigned int nr_bytes;
	int nr_slab_b[NR_MCS_SLAB_ITEMS];
	struct work_struct work;
	unsigned long flags;
};

DECLARE_PER_CPU(struct mcs_coupled_stock, mcs_coupled_stock);

static inline bool mcs_memcg_is_root(struct mcs_memcg *memcg)
{
	return !memcg->parent;
}

bool mcs_memcg_is_descendant(struct mcs_memcg *memcg, struct mcs_memcg *root);

/*
 * For callers that already run with preemption or migration disabled
 * (inside a stock's critical section, in every stock mode alike): inline,
 * no preempt_disable() pair on the hot path.  local_t updates are safe
 * against interrupts on this CPU.
 */
static inline void __mcs_memcg_event(struct mcs_memcg *memcg, enum mcs_memcg_event ev)
{
	local_inc(&this_cpu_ptr(memcg->stats)->events[ev]);
}

/* memcg.c: the memcg tree (knows no stock) */
void mcs_memcg_event(struct mcs_memcg *memcg, enum mcs_memcg_event ev);
void mcs_memcg_trylock_fail(struct mcs_memcg *memcg, int kind);
void mcs_objcg_trylock_fail(struct mcs_objcg *objcg);
int mcs_memcg_unlink(struct mcs_memcg *memcg);
int mcs_memcg_tree_init(int (*offline)(struct mcs_memcg *memcg));
void mcs_memcg_tree_exit(void);
void mcs_memcg_walk(struct mcs_memcg *root, void (*fn)(struct mcs_memcg *memcg, void *arg),
		    void *arg);

/* For the tracepoints: 0 task, 1 softirq, 2 hardirq, 3 NMI. */
static inline int mcs_context(void)
{
	if (in_nmi())
		return 3;
	if (in_hardirq())
		return 2;
	return in_serving_softirq() ? 1 : 0;
}

/* charge_pages.c: pages back through the design of @mode, after its section */
void mcs_uncharge_pages_mode(struct mcs_memcg *memcg, unsigned int nr_pages,
			     enum mcs_stock_mode mode);

/* stock_drain.c: the drains of every design's stocks, CPU hotplug */
extern struct workqueue_struct *mcs_drain_wq;
int mcs_drain_init(void);
void mcs_drain_exit(void);
void mcs_stocks_cpu_dead(unsigned int cpu);
void mcs_drain_note_mode(enum mcs_stock_mode mode);
unsigned long mcs_stock_page_bound(enum mcs_stock_mode mode, unsigned long nr_memcgs);

/* deferred.c: releases handed over from NMI, frees in flight */
extern atomic_t mcs_pending_frees;
void mcs_defer_release(struct mcs_deferred *d, void (*release)(struct mcs_deferred *d));
void __mcs_defer_release(struct mcs_deferred *d, void (*release)(struct mcs_deferred *d),
			 bool queue);
long mcs_deferred_releases(void);
void mcs_run_deferred_releases(void);
void mcs_sync_deferred_releases(void);

/* kernel_log.c: the module's lines in the kernel log, under one ratelimit */
__printf(1, 2) void mcs_log(const char *fmt, ...);

/*
 * Every stock refill runs in the RCU read-side section that read the stock
 * mode, the fence of mcs_stock_set_mode(): an rcu_read_lock() section, or
 * the section of the stock's own lock when the mode was read under it
 * (preemption off on !PREEMPT_RT, an RCU section inside the spinlock on
 * PREEMPT_RT).  Kernels with lockdep check it.
 */
#define mcs_assert_mode_fence()						\
	RCU_LOCKDEP_WARN(!rcu_read_lock_any_held(),			\
			 "memcg_stock: stock refill outside the mode fence")

/* The stock mode, read inline on the charge paths (no call per charge). */
extern enum mcs_stock_mode mcs_stock_mode_cur;

static inline enum mcs_stock_mode mcs_stock_mode_now(void)
{
	return READ_ONCE(mcs_stock_mode_cur);
}

/*
 * The charge batch: what a miss charges beyond the request, and the most a
 * stock keeps per memcg (1..MCS_CHARGE_BATCH).  Set at load (charge_batch)
 * or by mcs_stock_set_bench_batch(), which drains every stock after a
 * grace period, as a mode switch does.
 */
extern unsigned int mcs_charge_batch_cur;

static __always_inline unsigned int mcs_batch_now(void)
{
	return READ_ONCE(mcs_charge_batch_cur);
}

/*
 * The mode fence, one for every design: a section of a design's stock, once
 * entered, reads the mode again.  Anything but the mode the operation read
 * (@mode) means that a switch may be draining that stock, or that another
 * design's exclusion guards it now: the section leaves the stock untouched
 * and the operation goes on as with a busy stock.  mcs_stock_set_bench_mode()
 * applies the switch rules that make this enough (stock_designs.h).
 */
static __always_inline bool mcs_mode_fence_holds(enum mcs_stock_mode mode)
{
	return likely(mcs_stock_mode_now() == mode);
}

/*
 * Test hooks at the race windows of the mode fence, for the KUnit module
 * (MCS_NS): a case sets mcs_test_hook, the charge paths call it there.
 * Kernels without KUnit compile them out.
 *   MCS_HOOK_COUPLED_ENTER  a coupled consume read the mode and is about to
 *                           enter its section (task context, may sleep)
 *   MCS_HOOK_OBJ_PAGES      a byte refill of a decoupled design is about to
 *                           leave its section with pages to give back
 *                           (atomic: the section is held)
 *   MCS_HOOK_DRAIN_REMOTE   an asynchronous drain is about to ask whether a
 *                           remote CPU is isolated and queue its work; the
 *                           two must be one RCU read-side section
 *   MCS_HOOK_OWNER_ENTER    an operation of "decoupled-owner" read the mode
 *                           and is about to enter the memcg stock's owner
 *                           section (any context)
 */
enum mcs_test_hook {
	MCS_HOOK_COUPLED_ENTER,
	MCS_HOOK_OBJ_PAGES,
	MCS_HOOK_DRAIN_REMOTE,
	MCS_HOOK_OWNER_ENTER,
};

#if IS_ENABLED(CONFIG_KUNIT)
extern void (*mcs_test_hook)(enum mcs_test_hook where);
void mcs_test_hook_set(void (*fn)(enum mcs_test_hook where));
void mcs_stock_test_mode_write(enum mcs_stock_mode mode);

static inline void mcs_test_hook_at(enum mcs_test_hook where)
{
	void (*fn)(enum mcs_test_hook where) = READ_ONCE(mcs_test_hook);

	if (unlikely(fn))
		fn(where);
}
#else
static inline void mcs_test_hook_at(enum mcs_test_hook where)
{
}
#endif

/* "decoupled" and "decoupled-owner" share the decoupled stocks (KUnit). */
static inline bool mcs_mode_is_decoupled(enum mcs_stock_mode mode)
{
	return mode == MCS_MODE_DECOUPLED || mode == MCS_MODE_DECOUPLED_OWNER;
}

int mcs_stock_set_bench_mode(enum mcs_stock_mode mode);
int mcs_stock_set_bench_batch(unsigned int batch);

/* design_decoupled.c: the sections of "decoupled-owner", for the KUnit module */
bool mcs_owner_test_trylock(bool obj);
void mcs_owner_test_unlock(bool obj);

void mcs_page_counter_cancel_local(struct mcs_page_counter *counter,
				   unsigned long nr_pages);

/*
 * One kind of per-CPU stock, as the drains see it.  Each design lists its
 * kinds in its struct mcs_design (NULL-terminated), in the order a full
 * drain takes them: stocks of bytes first.  Every stock struct has an unsigned long
 * `flags` (FLUSHING_CACHED_CHARGE) and a `work` that drains it on its CPU.
 * @stock: the per-CPU stock
 * @flags_offset: offsetof() its flags word
 * @work_offset: offsetof() its drain work
 * @drain_fn: the drain work's function
 * @holds: does @cpu's stock cache a page or a reference of @root's
 *	subtree?  @any_slot: also slots with nothing left but a reference
 * @cpu_dead: empty @cpu's stock, lock-free: @cpu is dead
 */
struct mcs_stock_kind {
	void __percpu *stock;
	size_t flags_offset;
	size_t work_offset;
	work_func_t drain_fn;
	bool (*holds)(int cpu, struct mcs_memcg *root, bool any_slot);
	void (*cpu_dead)(unsigned int cpu);
};

#define MCS_STOCK_KIND(var, type, drain, holds_fn, dead_fn) {		\
	.stock = (void __percpu *)&(var),				\
	.flags_offset = offsetof(type, flags),				\
	.work_offset = offsetof(type, work),				\
	.drain_fn = (drain),						\
	.holds = (holds_fn),						\
	.cpu_dead = (dead_fn),						\
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

/* charge.c: a test hook (the KUnit misuse cases) */
void mcs_charge_expect_misuse(bool expect);

/* charge_bytes.c: pages that a byte put gave back, through @mode's design */
void mcs_objcg_uncharge_pages(struct mcs_objcg *objcg, unsigned int nr_pages,
			      enum mcs_stock_mode mode);

/* objcg.c: objcg lifetime, leftovers, statistics, reparenting (no stock) */
bool mcs_objcg_take_leftover(struct mcs_objcg *objcg, unsigned int nr_bytes);
struct mcs_memcg *mcs_objcg_unaccount_pages(struct mcs_objcg *objcg, unsigned int nr_pages);
void mcs_objcg_mod_stat(struct mcs_objcg *objcg, int nid,
			enum mcs_slab_item item, int nr_bytes);
void mcs_objcg_add_leftover(struct mcs_objcg *objcg, unsigned int nr_bytes);
int mcs_memcg_objcg_alloc(struct mcs_memcg *memcg);
void mcs_memcg_objcg_kill(struct mcs_memcg *memcg);
void mcs_memcg_reparent_objcgs(struct mcs_memcg *memcg);
void mcs_memcg_reparent_objcg_charges(struct mcs_memcg *memcg);
long mcs_objcg_report_alive(struct mcs_memcg *memcg, long max);

/*
 * Bytes through the objcg's own atomic leftover, no per-CPU stock
 * ("objcg-atomic"): the byte take and put of the designs that keep no
 * bytes per CPU.  The put returns whole pages to the counters inside.
 */
static __always_inline bool mcs_objcg_atomic_take(struct mcs_objcg *objcg, unsigned int size,
						  bool account, int nid,
						  enum mcs_slab_item item)
{
	if (!mcs_objcg_take_leftover(objcg, size))
		return false;
	if (account)
		mcs_objcg_mod_stat(objcg, nid, item, size);
	return true;
}

static __always_inline void mcs_objcg_atomic_put(struct mcs_objcg *objcg, unsigned int nr_bytes,
						 bool account, int acct, int nid,
						 enum mcs_slab_item item)
{
	mcs_objcg_add_leftover(objcg, nr_bytes);
	if (account)
		mcs_objcg_mod_stat(objcg, nid, item, acct);
}

/* slab_caches.c */
int mcs_slab_init(void);
void mcs_slab_exit(void);
struct mcs_memcg *mcs_memcg_alloc(void);
void mcs_memcg_free(struct mcs_memcg *memcg);
struct mcs_memcg_per_node *mcs_memcg_pn_alloc(int nid);
void mcs_memcg_pn_free(struct mcs_memcg_per_node *pn);
size_t mcs_memcg_struct_size(void);
bool mcs_slab_uses_kmalloc(void);
struct kmem_cache *mcs_memcg_cache(void);
struct kmem_cache *mcs_memcg_pn_cache(void);

/* A node and a statistic that the per-node slab statistics have. */
static inline bool mcs_slab_stat_args_ok(int nid, enum mcs_slab_item item)
{
	return nid >= 0 && nid < nr_node_ids && node_possible(nid) &&
	       (unsigned int)item < NR_MCS_SLAB_ITEMS;
}

/* memcg_stock.c: set-up and tear-down of the mechanism (module.c calls) */
int mcs_stock_init(void);
void mcs_stock_exit(void);

#endif /* MEMCG_STOCK_INTERNAL_H */
