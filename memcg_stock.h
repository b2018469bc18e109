/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Public API of the memcg_stock module: a model of memory
 * cgroup charging with per-CPU charge caches ("stocks"), built on the
 * module's own objects.  This is the only header a client module includes.
 *
 * Charging a memcg takes pages from the current CPU's memcg stock when it
 * holds enough for that memcg; otherwise a batch is charged to the
 * hierarchical page counters and the surplus goes into the stock.
 *
 * Contexts.  Every charge and uncharge entry point (pages, bytes,
 * descriptors, gathers, batches, migration) and every get and put may be
 * called from task, softirq and hardirq context with a gfp mask that does
 * not allow blocking outside task context, and from NMI with a gfp mask
 * without reclaim bits (__GFP_NOWARN, say): in NMI nothing takes a lock
 * but a trylock, and the release of a last reference is deferred to an
 * irq_work.  Creation, offlining, limits, drains, mode switches and
 * mcs_wait_for_frees() need task context and may sleep (a drain asked for
 * elsewhere is refused).  Reads of counters and statistics work anywhere.
 *
 * Sleeping.  "Never sleeps" below holds in the default mode ("decoupled"),
 * whose stocks are only ever trylocked, in mode "decoupled-owner", in mode
 * "percpu-counter" (atomics, no lock) and in mode "none".  In the mode
 * "coupled" on PREEMPT_RT the stock lock is local_lock_irqsave(), a per-CPU
 * sleeping spinlock there (as in the 6.12 kernels that design comes from):
 * a task-context charge, uncharge or byte operation may then block briefly
 * behind the holder on its CPU.  Hardirq and NMI callers bypass that stock.
 *
 * Arguments.  A mistake a caller can make - a NULL memcg or objcg, a zero
 * or oversized amount, an unknown node, statistic or mode, an offlining
 * order the tree does not allow - is refused with an error return and
 * changes nothing, wherever the function can return an error.  The others
 * (gets, puts, uncharges, plain readers) take valid pointers only.
 * Charge descriptors in the wrong state are refused, counted and warned
 * about once per call site (see struct mcs_charge).  Other WARNs report
 * states that correct use cannot reach.
 */
#ifndef MEMCG_STOCK_H
#define MEMCG_STOCK_H

#include <linux/types.h>
#include <linux/atomic.h>
#include <linux/gfp.h>
#include <linux/slab.h>

/*
 * ---- Page counters: lock-free hierarchical usage and limit, where every charge ends ----
 * They have a header of their own, page_counter.h, which the module's files
 * below the memcgs include without the rest of the API.
 */
#include "objects/page_counter.h"

/* ---- Memcg objects: the tree of memory cgroups, their lifetime, limits and statistics ---- */

struct mcs_memcg;

/**
 * enum mcs_memcg_event - per-memcg event counters, summed over CPUs
 * @MCS_STOCK_HIT: a charge served from the memcg stock
 * @MCS_STOCK_MISS: a charge that had to go to the page counters
 * @MCS_TRYLOCK_FAIL: a stock trylock failed and the fallback path was taken
 * @MCS_REFILL: pages put into a stock slot
 * @MCS_DRAIN: a stock slot of this memcg was drained
 * @MCS_LIMIT_REFUSAL: a charge was refused by this memcg's limit
 * @MCS_FORCE_CHARGE: a __GFP_NOFAIL charge was forced over the limit
 * @NR_MCS_EVENTS: number of events
 */
enum mcs_memcg_event {
	MCS_STOCK_HIT,
	MCS_STOCK_MISS,
	MCS_TRYLOCK_FAIL,
	MCS_REFILL,
	MCS_DRAIN,
	MCS_LIMIT_REFUSAL,
	MCS_FORCE_CHARGE,
	NR_MCS_EVENTS,
};

/**
 * struct mcs_memcg_stat - snapshot of a memcg's counters
 * @usage: page counter usage (pages, including pages held in stocks)
 * @max: limit in pages
 * @watermark: highest usage seen
 * @failcnt: charges refused by this memcg's own limit
 * @events: event counters summed over all CPUs
 */
struct mcs_memcg_stat {
	unsigned long usage;
	unsigned long max;
	unsigned long watermark;
	unsigned long failcnt;
	unsigned long events[NR_MCS_EVENTS];
};

/**
 * mcs_root_memcg() - the module's root memcg
 *
 * The root has no stock and no limit; its counter is charged directly and
 * is the exact total of every memcg's charges.  Any context.
 *
 * Return: the root, never NULL while the module is loaded.  No reference
 * is taken: the root lives as long as the module.
 */
struct mcs_memcg *mcs_root_memcg(void);

/**
 * mcs_memcg_create() - create and online a memcg
 * @parent: parent memcg, which the caller holds a reference on, or NULL
 *	for a child of the module's root
 * @name: name for the debugfs listings, copied and cut to 31 characters;
 *	may be NULL
 *
 * The memcg and its per-node parts come from the dedicated kmem_caches
 * (GFP_KERNEL).  The new memcg holds a reference on its parent until it is
 * freed.  Task context; sleeps.
 *
 * Return: the online memcg with one reference, which the caller owns and
 * drops with mcs_memcg_put() after mcs_memcg_offline(); or ERR_PTR(-ENOMEM),
 * or ERR_PTR(-ENOENT) when @parent is offline.  Never NULL.
 */
struct mcs_memcg *mcs_memcg_create(struct mcs_memcg *parent, const char *name);

/**
 * mcs_memcg_offline() - take a memcg offline
 * @memcg: memcg, not the root, which the caller holds a reference on
 *
 * New page charges are refused with -ENOENT from now on; existing charges
 * stay until uncharged.  The memcg's objcgs, the pages charged through
 * them and its slab statistics move to the parent, and every online CPU's
 * stock is drained of the memcg's subtree before this returns.  Offlines
 * run one at a time from start to end, so a parent is never finalised
 * while a child's charges are still on their way up.  The caller keeps its
 * reference.  Task context; sleeps (a mutex, an RCU grace period, a
 * synchronous drain).
 *
 * Return: 0, also when @memcg was offline already (nothing is done);
 * -EBUSY when @memcg still has online children (offline them first);
 * -EINVAL for a NULL @memcg or the root.  Errors change nothing.
 */
int mcs_memcg_offline(struct mcs_memcg *memcg);

/**
 * mcs_memcg_get() - take another reference
 * @memcg: memcg the caller already holds a reference on (not NULL)
 *
 * There is no tryget: a pointer found without a reference (under RCU, say)
 * cannot be pinned this way; getting a memcg whose count reached zero is
 * a refcount_t WARN.  Any context, NMI included.
 */
void mcs_memcg_get(struct mcs_memcg *memcg);

/**
 * mcs_memcg_put() - drop a reference
 * @memcg: memcg (not NULL)
 *
 * The last reference frees the memcg after an RCU grace period and then
 * drops its reference on the parent; in NMI the release itself is handed
 * to an irq_work first.  The memcg should be offline and its pages
 * uncharged by then.  A last reference dropped on an online memcg (a
 * caller's mistake) is contained: a ratelimited warning is printed, and a
 * work item offlines the memcg (its objcg moves to the parent, it leaves
 * the parent's children) and then frees it; until that work has run the
 * memcg counts as an online child of its parent (offlining the parent
 * fails with -EBUSY) and mcs_wait_for_frees() waits for it.  A memcg freed
 * with pages still charged WARNs and the pages are uncharged.  Any
 * context, NMI included; never sleeps.
 */
void mcs_memcg_put(struct mcs_memcg *memcg);

/**
 * mcs_memcg_id() - a memcg's id
 * @memcg: memcg (not NULL)
 *
 * Any context.
 *
 * Return: an id unique among the memcgs created since the module was
 * loaded; the root's is 1.
 */
unsigned int mcs_memcg_id(struct mcs_memcg *memcg);

/**
 * mcs_memcg_set_max() - set a memcg's limit
 * @memcg: memcg, not the root
 * @nr_pages: limit in pages, at most MCS_PAGE_COUNTER_MAX (no limit)
 *
 * If usage is above the limit, the stocks of the memcg's subtree (which
 * inflate usage) are drained synchronously once and the limit is tried
 * again.  Calls on one memcg are serialised.  Task context; sleeps.
 *
 * Return: 0; -EBUSY when usage stays above @nr_pages (the limit is left as
 * it was); -EINVAL for a NULL @memcg, the root (charged directly, it has
 * no limit) or @nr_pages above MCS_PAGE_COUNTER_MAX.
 */
int mcs_memcg_set_max(struct mcs_memcg *memcg, unsigned long nr_pages);

/**
 * mcs_memcg_usage() - pages charged to a memcg's subtree
 * @memcg: memcg (not NULL)
 *
 * Any context.
 *
 * Return: page counter usage, including pages cached in stocks.
 */
unsigned long mcs_memcg_usage(struct mcs_memcg *memcg);

/**
 * mcs_memcg_stat() - snapshot of a memcg's counters and events
 * @memcg: memcg (not NULL)
 * @stat: filled in; the fields are read one by one, not atomically together
 *
 * Any context.
 */
void mcs_memcg_stat(struct mcs_memcg *memcg, struct mcs_memcg_stat *stat);

/* ---- Page charges: charge and uncharge pages through the memcg stock, drain the stocks ---- */

/*
 * The largest charge batch, and its default: the most pages a miss charges
 * to the counters at once (or the request, if larger); the surplus feeds
 * the stock, which never holds more per memcg.  A memcg that has no slot
 * in a full stock is charged exactly.  Charges of up to this many pages
 * may be served by a stock.  The batch in use (mcs_charge_batch()) is this,
 * or less (module parameter charge_batch=1..64), as upstream proposes a
 * batch scaled down on larger pages: 32 on 16K pages, 16 on 64K pages.
 */
#define MCS_CHARGE_BATCH	64U

/**
 * mcs_charge_batch() - the charge batch in use
 *
 * Any context.
 *
 * Return: 1..MCS_CHARGE_BATCH: what a stock miss charges at once (or the
 * request, if larger) and the most a stock keeps per memcg.  Set at load
 * (module parameter charge_batch, default MCS_CHARGE_BATCH); the benchmark
 * may change it for a run, draining every stock around the change.
 */
unsigned int mcs_charge_batch(void);

/**
 * mcs_charge_pages() - charge pages to a memcg
 * @memcg: memcg to charge, which the caller holds a reference on
 * @gfp: allocation context: a mask without reclaim bits marks a caller
 *	that must not spin (exact charge, nothing put into the stock);
 *	__GFP_DIRECT_RECLAIM in task context allows one drain of the
 *	refusing memcg's stocks; __GFP_NOFAIL forces the charge over a limit
 * @nr_pages: number of pages, at least 1; more than MCS_CHARGE_BATCH
 *	bypass the stock
 *
 * Served from this CPU's stock when it can be.  The charge holds no
 * reference on @memcg: keep one until the pages are uncharged.  Any
 * context, NMI included (gfp without reclaim bits there).  Never sleeps,
 * except that on PREEMPT_RT the drain above takes this CPU's stock locks,
 * which are sleeping locks there.
 *
 * A charge that races with mcs_memcg_offline() may still be served from
 * a slot the memcg had on this CPU (the offline's drain has not reached
 * it yet) and returns 0, as if it had come a little earlier.  A stock that
 * is busy records a trylock failure on the memcg charged, the root's
 * included, and so does a section of "decoupled-owner" refused because
 * the mode changed.
 *
 * Return: 0 on success (the root, which has no limit, always succeeds);
 * -ENOMEM when a limit refuses and @gfp has no __GFP_NOFAIL; -ENOENT when
 * @memcg is offline and no slot of this CPU's stock served it, whatever
 * @gfp; -EINVAL for a NULL @memcg or a zero @nr_pages.  Nothing is charged
 * on error.
 */
int mcs_charge_pages(struct mcs_memcg *memcg, gfp_t gfp, unsigned int nr_pages);

/**
 * mcs_uncharge_pages() - return pages charged with mcs_charge_pages()
 * @memcg: memcg that was charged (not NULL)
 * @nr_pages: number of pages; 0 does nothing
 *
 * The pages go into this CPU's stock, or straight back to the counters
 * when the stock is busy, @nr_pages is above MCS_CHARGE_BATCH, @memcg is
 * the root, or the mode is "none".  An offline @memcg gets no new slot;
 * while its offline is still draining, pages may still go into a slot it
 * already has on this CPU, which that drain (or the next) empties.  Uncharging more than was
 * charged is not refused: it ends as a page counter underflow (see
 * mcs_page_counter_uncharge()).  Any context, NMI included; never sleeps.
 */
void mcs_uncharge_pages(struct mcs_memcg *memcg, unsigned int nr_pages);

/**
 * mcs_drain_all_stock() - drain every CPU's stocks of a subtree
 * @root: subtree root (the module's root drains everything); a NULL @root
 *	matches no memcg and drains nothing
 * @sync: wait until done
 *
 * Drains the memcg, obj and coupled stocks.  Asynchronous mode has
 * upstream's best-effort semantics: it returns at once if another drain is
 * running, drains the current CPU directly and queues work on the others
 * without waiting for it - except on isolated CPUs (isolcpus=, nohz_full=,
 * an isolated cpuset partition), which get no work, as upstream: their
 * stocks stay until they charge again, go offline or a synchronous drain.
 * The limit-refusal drain of mcs_charge_pages() is asynchronous.
 * Synchronous mode (also used by mcs_memcg_offline(), limit changes, mode
 * switches, CPU hotplug and module exit) waits for the drain mutex, drains
 * isolated CPUs too, and returns only when no online CPU's stock holds a
 * page, a byte or a reference of the subtree (charges racing with it may
 * refill).  Task
 * context; the synchronous mode sleeps, the asynchronous one takes this
 * CPU's stock locks (sleeping locks on PREEMPT_RT).  Outside task context
 * the call is refused with a ratelimited warning and drains nothing.
 */
void mcs_drain_all_stock(struct mcs_memcg *root, bool sync);

/* ---- Modes: which per-CPU caching design the charge paths use (for A/B runs) ---- */

#define MCS_STOCK_TABLE_ONLY
#include "stocks/stock_designs.h"
#undef MCS_STOCK_TABLE_ONLY

/*
 * enum mcs_stock_mode - which per-CPU caching the charge paths use; not
 * kernel-doc, which cannot read constants made by a macro.  NR_MCS_MODES:
 * the number of modes.
 *
 * One constant per line of the binding table (MCS_STOCK_DESIGNS(),
 * stocks/stock_designs.h), in its order: MCS_MODE_DECOUPLED (separate
 * memcg and obj stocks under local_trylock, the default) first.  Each
 * mode's design documents it in its own header (stocks/design_<name>.h),
 * and debugfs "modes" lists them with their metadata.
 */
enum mcs_stock_mode {
	MCS_STOCK_DESIGNS(MCS_MODE_ENUM)
	NR_MCS_MODES,
};

/**
 * mcs_stock_set_mode() - switch the per-CPU caching design
 * @mode: new mode
 *
 * Every stock of every mode is drained synchronously around the switch,
 * and between the two drains an RCU grace period waits for every refill
 * that read the old mode: once this returns, no stock but the new mode's
 * holds anything, and none will.  Charges racing with the switch stay
 * exact.  Between two modes that share stocks under different exclusions
 * ("decoupled", "decoupled-owner" and "decoupled-7.3", "coupled" and
 * "coupled-noirq") the
 * mode is "none" for a grace period of its own, so that the two
 * exclusions never guard the same stock at once.  Switches are
 * serialised.  Task context; sleeps.
 *
 * Return: 0 (also when @mode is the current one: the stocks are still
 * drained), or -EINVAL for an unknown @mode and for a benchmark's
 * control (MCS_MODE_COUPLED_NOIRQ); -EINVAL changes nothing.
 */
int mcs_stock_set_mode(enum mcs_stock_mode mode);

/**
 * mcs_stock_get_mode() - the stock mode in use
 *
 * Any context.
 *
 * Return: the current mode; it may change right after the read.
 */
enum mcs_stock_mode mcs_stock_get_mode(void);

/**
 * mcs_stock_mode_name() - name of a stock mode
 * @mode: mode
 *
 * Any context.
 *
 * Return: the mode's name in the binding table (stocks/stock_designs.h),
 * e.g. "decoupled" (a static string), or NULL for an unknown @mode.
 */
const char *mcs_stock_mode_name(enum mcs_stock_mode mode);

/* ---- Objcgs and byte charges: sub-page charges through the obj stock, slab statistics ---- */

/**
 * enum mcs_slab_item - per-node slab statistics of a memcg
 * @MCS_SLAB_RECLAIMABLE: bytes of reclaimable slab objects (slab_reclaimable_b)
 * @MCS_SLAB_UNRECLAIMABLE: bytes of unreclaimable slab objects (slab_unreclaimable_b)
 * @NR_MCS_SLAB_ITEMS: number of items
 */
enum mcs_slab_item {
	MCS_SLAB_RECLAIMABLE,
	MCS_SLAB_UNRECLAIMABLE,
	NR_MCS_SLAB_ITEMS,
};

struct mcs_objcg;

/*
 * Largest byte charge or uncharge: the largest kmalloc() object.  Bigger
 * sizes get -EINVAL; the bound keeps every byte sum of the stocks and of
 * the objcg leftovers within an int.
 */
#define MCS_OBJ_SIZE_MAX	KMALLOC_MAX_SIZE

/**
 * mcs_memcg_tryget_objcg() - look up a memcg's current objcg and take a reference
 * @memcg: memcg
 *
 * A lookup that may fail, unlike mcs_objcg_get().  The root's objcg is
 * returned too: byte charges through it do nothing (see mcs_obj_charge()).
 * Any context, NMI included; never sleeps.
 *
 * Return: the objcg with a new reference, which the caller owns and drops
 * with mcs_objcg_put(); or NULL when @memcg is NULL or its offline has
 * moved its objcg to the parent.  A lookup that races with the offline may
 * still return the objcg: it then charges the parent from the moment the
 * offline has moved it, which is what a charge a moment earlier would have
 * come to as well.
 */
struct mcs_objcg *mcs_memcg_tryget_objcg(struct mcs_memcg *memcg);

/**
 * mcs_objcg_get() - take another reference
 * @objcg: objcg the caller already holds a reference on (not NULL)
 *
 * Any context, NMI included.
 */
void mcs_objcg_get(struct mcs_objcg *objcg);

/**
 * mcs_objcg_put() - drop a reference
 * @objcg: objcg (not NULL)
 *
 * An objcg lives at least until the memcg it was created for goes offline
 * (that memcg holds a reference until then).  The last reference returns
 * the objcg's leftover pages to its current memcg and frees it after an
 * RCU grace period; in NMI the release is handed to an irq_work first.
 * Every byte charged through the objcg must be uncharged by then (hold a
 * reference per live charge, as slab objects do); a leftover that is not
 * a whole number of pages at release WARNs.  Any context, NMI included;
 * never sleeps.
 */
void mcs_objcg_put(struct mcs_objcg *objcg);

/**
 * mcs_objcg_memcg() - the memcg an objcg charges now
 * @objcg: objcg (not NULL)
 *
 * Any context.
 *
 * Return: the memcg, without a reference: it changes when that memcg goes
 * offline (to the parent), so the value is a snapshot that stays valid
 * only under rcu_read_lock() or while the caller holds its own reference
 * on that memcg.  Never NULL.
 */
struct mcs_memcg *mcs_objcg_memcg(struct mcs_objcg *objcg);

/**
 * mcs_obj_charge() - charge bytes to an objcg
 * @objcg: objcg, which the caller holds a reference on
 * @gfp: allocation context, as for mcs_charge_pages()
 * @size: bytes, from 1 to MCS_OBJ_SIZE_MAX
 *
 * Served from this CPU's obj stock when possible; otherwise whole pages
 * are charged through mcs_charge_pages() and the rest of the last page is
 * kept for later charges.  An objcg whose memcg went offline charges the
 * parent.  The charge holds no reference on @objcg.  Any context, NMI
 * included (gfp without reclaim bits there); sleeps only as
 * mcs_charge_pages() does.
 *
 * Return: 0, also for the root's objcg, which charges nothing; -ENOMEM
 * when a limit refuses the pages and @gfp has no __GFP_NOFAIL; -EINVAL for
 * a NULL @objcg, a zero @size or one above MCS_OBJ_SIZE_MAX.  Never
 * -ENOENT.  Nothing is charged on error.
 */
int mcs_obj_charge(struct mcs_objcg *objcg, gfp_t gfp, size_t size);

/**
 * mcs_obj_uncharge() - return bytes charged with mcs_obj_charge()
 * @objcg: objcg that was charged
 * @size: bytes, from 1 to MCS_OBJ_SIZE_MAX
 *
 * The bytes go where the current mode keeps charged bytes: this CPU's obj
 * stock, or the objcg's leftover when that stock is busy or the mode is
 * "none".  Once more than a page gathers, the whole pages go back to the
 * memcg.
 * Uncharging more than was charged is not detected here: the surplus ends
 * as a page counter underflow or as a WARN when the objcg is released.
 * Any context, NMI included; never sleeps.
 *
 * Return: 0, also for the root's objcg; -EINVAL for a NULL @objcg, a zero
 * @size or one above MCS_OBJ_SIZE_MAX (nothing changed, ratelimited
 * warning).
 */
int mcs_obj_uncharge(struct mcs_objcg *objcg, size_t size);

/**
 * mcs_obj_charge_account() - charge bytes and account them as slab
 * @objcg: objcg, which the caller holds a reference on
 * @gfp: allocation context, as for mcs_charge_pages()
 * @size: bytes, from 1 to MCS_OBJ_SIZE_MAX
 * @nid: node of the object: 0 <= @nid < nr_node_ids and node_possible()
 * @item: which slab statistic, below NR_MCS_SLAB_ITEMS
 *
 * Like mcs_obj_charge() plus the per-node slab statistic of the memcg,
 * under one trylock of the obj stock, like a slab allocation hook.  The
 * statistic may stay cached in the stock until it is flushed (see
 * mcs_memcg_slab_stat()).  Context as for mcs_obj_charge().
 *
 * Return: 0, also for the root's objcg; -ENOMEM as for mcs_obj_charge();
 * -EINVAL for a NULL @objcg, a bad @size, a node that is out of range or
 * not possible, or an unknown @item.  Nothing is charged or accounted on
 * error.
 */
int mcs_obj_charge_account(struct mcs_objcg *objcg, gfp_t gfp, size_t size,
			   int nid, enum mcs_slab_item item);

/**
 * mcs_obj_uncharge_account() - uncharge bytes charged with mcs_obj_charge_account()
 * @objcg: objcg that was charged
 * @size: bytes, from 1 to MCS_OBJ_SIZE_MAX
 * @nid: node given at charge time
 * @item: statistic given at charge time
 *
 * Context and the caller's duties as for mcs_obj_uncharge().
 *
 * Return: 0, also for the root's objcg; -EINVAL (nothing changed,
 * ratelimited warning) for a NULL @objcg, a bad @size, @nid or @item.
 */
int mcs_obj_uncharge_account(struct mcs_objcg *objcg, size_t size, int nid,
			     enum mcs_slab_item item);

/**
 * mcs_objcg_leftover_bytes() - charged bytes an objcg holds outside any stock
 * @objcg: objcg (not NULL)
 *
 * Sub-page remainders of drains, of busy stocks and of the stockless mode
 * gather here; whole pages go back to the counters at once.  Any context.
 *
 * Return: bytes, below PAGE_SIZE once concurrent updates finish.
 */
unsigned int mcs_objcg_leftover_bytes(struct mcs_objcg *objcg);

/**
 * mcs_memcg_slab_stat() - flushed slab statistic of a memcg on a node
 * @memcg: memcg
 * @nid: node: 0 <= @nid < nr_node_ids and node_possible()
 * @item: statistic, below NR_MCS_SLAB_ITEMS
 *
 * Deltas still cached in obj stocks are not included, so the value may
 * even be negative for a while (a free flushed before its allocation):
 * drain first for an exact value.  Statistics of offline children have
 * moved to their parents.  Any context.
 *
 * Return: bytes, or -EINVAL for a NULL @memcg, a node that is out of range
 * or not possible, or an unknown @item.  Since a value can be negative,
 * check the arguments rather than the result.
 */
long mcs_memcg_slab_stat(struct mcs_memcg *memcg, int nid, enum mcs_slab_item item);

/* ---- Charge descriptors: page charges whose lifetime follows an object ---- */

/**
 * enum mcs_charge_state - where a charge descriptor is in its lifetime
 * @MCS_CHARGE_IDLE: nothing charged: never used, cancelled, uncharged, or
 *	migrated away.  A zero-filled descriptor is idle.
 * @MCS_CHARGE_RESERVED: mcs_charge_try() charged the counters; the
 *	charge is not bound to an owner yet and holds no reference
 * @MCS_CHARGE_COMMITTED: mcs_charge_commit() bound the charge; the
 *	descriptor holds a reference on its owner until it is uncharged
 */
enum mcs_charge_state {
	MCS_CHARGE_IDLE,
	MCS_CHARGE_RESERVED,
	MCS_CHARGE_COMMITTED,
};

/**
 * struct mcs_charge - a caller-owned page charge: the model of a page's
 *	binding to its memcg
 * @memcg: the memcg charged (the owner once committed); NULL when idle
 * @nr_pages: pages charged; 0 when idle
 * @state: enum mcs_charge_state
 *
 * Zero-fill a descriptor before its first use.  Its life is try, then
 * commit or cancel; a committed charge lasts until it is uncharged, alone
 * or in a batch, or until it is migrated to another descriptor.  An idle
 * descriptor can be charged again.
 *
 * The caller owns a descriptor exclusively, the way a page is stable under
 * its lock or while isolated: the functions below do not lock it, so two
 * threads must never operate on one descriptor at the same time.  Only
 * the functions below may change the fields; callers may read them.
 * Descriptor pointers must not be NULL.
 *
 * Misuse - a transition the state machine does not allow, such as a
 * second commit, an uncharge of a descriptor that is not committed or a
 * cancel of one that is - changes nothing, is counted in
 * mcs_charge_misuses() and WARNs once per call site.
 */
struct mcs_charge {
	struct mcs_memcg *memcg;
	unsigned int nr_pages;
	enum mcs_charge_state state;
};

/**
 * mcs_charge_owner() - the memcg a committed charge is bound to
 * @c: descriptor
 *
 * Any context.
 *
 * Return: the owner, or NULL if @c is not committed.  No reference is
 * taken: the pointer is valid while @c stays committed.
 */
static inline struct mcs_memcg *mcs_charge_owner(const struct mcs_charge *c)
{
	return c->state == MCS_CHARGE_COMMITTED ? c->memcg : NULL;
}

/**
 * struct mcs_uncharge_gather - uncharges collected for one batched update
 * @memcg: owner of the run being gathered, NULL when the gather is empty;
 *	the gather holds one reference on it
 * @nr_pages: pages of the run being gathered
 * @nr_charges: descriptors in the run being gathered
 * @nr_batches: runs flushed since mcs_uncharge_gather_init(); each flush
 *	made one page counter update and one statistics update
 *
 * Consecutive descriptors of the same owner form a run.  Caller-owned
 * like the descriptors; it must be flushed before it goes out of scope.
 */
struct mcs_uncharge_gather {
	struct mcs_memcg *memcg;
	unsigned long nr_pages;
	unsigned long nr_charges;
	unsigned long nr_batches;
};

/**
 * mcs_uncharge_gather_init() - empty a gather before its first use
 * @ug: gather
 *
 * Any context.  Do not call it on a gather that holds a run: flush it.
 */
static inline void mcs_uncharge_gather_init(struct mcs_uncharge_gather *ug)
{
	*ug = (struct mcs_uncharge_gather){ };
}

/**
 * enum mcs_charge_item - per-memcg statistics of the charge lifetime API
 * @MCS_CHARGED_PAGES: pages in committed charges (a level, not an event)
 * @MCS_PGPGIN: charges committed
 * @MCS_PGPGOUT: committed charges uncharged
 * @NR_MCS_CHARGE_ITEMS: number of items
 *
 * Like upstream's PGPGIN/PGPGOUT, the events count charges, not pages.
 * Migration changes none of them.
 */
enum mcs_charge_item {
	MCS_CHARGED_PAGES,
	MCS_PGPGIN,
	MCS_PGPGOUT,
	NR_MCS_CHARGE_ITEMS,
};

/**
 * mcs_charge_try() - reserve a charge
 * @c: idle descriptor
 * @memcg: memcg to charge; the caller holds a reference on it until the
 *	reservation is committed or cancelled
 * @gfp: allocation context, as for mcs_charge_pages()
 * @nr_pages: number of pages, at least 1
 *
 * Charges @nr_pages to @memcg through mcs_charge_pages() (served from this
 * CPU's stock when it can be) and records the reservation in @c.  The
 * reservation holds no reference: mcs_charge_commit() takes one.  Context
 * and sleeping as for mcs_charge_pages().
 *
 * Return: 0 and @c reserved, or an error and @c unchanged: -ENOMEM or
 * -ENOENT from mcs_charge_pages(); -EINVAL for a NULL @memcg, a zero
 * @nr_pages, or a descriptor that is not idle (misuse: counted and warned
 * about).
 */
int mcs_charge_try(struct mcs_charge *c, struct mcs_memcg *memcg,
		   gfp_t gfp, unsigned int nr_pages);

/**
 * mcs_charge_commit() - bind a reserved charge to its memcg
 * @c: reserved descriptor
 *
 * The descriptor becomes the owner of the charge and takes a reference on
 * the memcg, which it keeps until it is uncharged: a memcg that goes
 * offline meanwhile keeps the charge and stays allocated.  The counters do
 * not change; the memcg's statistics gain the pages.  Committing a
 * descriptor that is not reserved is misuse and changes nothing.  Any
 * context, NMI included; never sleeps.
 */
void mcs_charge_commit(struct mcs_charge *c);

/**
 * mcs_charge_cancel() - return a reservation that was not committed
 * @c: reserved descriptor
 *
 * The pages go straight back to the page counters, never into a stock,
 * and @c becomes idle.  Cancelling a descriptor that is not reserved (a
 * committed charge is released with mcs_charge_uncharge()) is misuse and changes
 * nothing.  Any context, NMI included; never sleeps.
 */
void mcs_charge_cancel(struct mcs_charge *c);

/**
 * mcs_charge_uncharge() - release a committed charge
 * @c: committed descriptor
 *
 * The pages go straight back to the page counters, the owner's reference
 * is dropped (which may free the owner, see mcs_memcg_put()) and @c
 * becomes idle.  Uncharging a descriptor that is not committed (never
 * charged, only reserved, or already uncharged) is misuse and changes
 * nothing.  Any context, NMI included; never sleeps.
 */
void mcs_charge_uncharge(struct mcs_charge *c);

/**
 * mcs_uncharge_gather_add() - uncharge a committed charge into a gather
 * @ug: gather, set up with mcs_uncharge_gather_init()
 * @c: committed descriptor
 *
 * @c is idle on return; the counters see its pages when the run it
 * belongs to is flushed: when a descriptor of another owner is added, or
 * at mcs_uncharge_gather_flush().  Until then the gather keeps the owner
 * alive.  Adding a descriptor that is not committed is misuse and changes
 * nothing.  Any context, NMI included; never sleeps.
 */
void mcs_uncharge_gather_add(struct mcs_uncharge_gather *ug, struct mcs_charge *c);

/**
 * mcs_uncharge_gather_flush() - release the run a gather holds
 * @ug: gather
 *
 * One page counter update, one statistics update, then the gather's
 * reference on the owner is dropped.  Does nothing when the gather is
 * empty.  The gather can be reused afterwards; @ug->nr_batches keeps
 * counting.  Any context, NMI included; never sleeps.
 */
void mcs_uncharge_gather_flush(struct mcs_uncharge_gather *ug);

/**
 * mcs_charge_uncharge_batch() - release many committed charges
 * @charges: descriptors (no NULL entries), in the order the caller freed
 *	their objects
 * @nr: number of descriptors; 0 does nothing
 *
 * Consecutive descriptors with the same owner are released with one page
 * counter update and one statistics update; callers that free objects of
 * one memcg together get the most out of it.  A descriptor that is not
 * committed is misuse: it is skipped and the others are released.  Any
 * context, NMI included; never sleeps.
 *
 * Return: the number of runs flushed, i.e. of page counter updates.
 */
unsigned long mcs_charge_uncharge_batch(struct mcs_charge **charges, unsigned int nr);

/**
 * mcs_charge_migrate() - move a committed charge to another descriptor
 * @old: committed descriptor
 * @new: idle descriptor
 *
 * Like page migration: the charge and the owner's reference pass from
 * @old to @new, @old becomes idle and nothing is charged twice.  Counters,
 * reference count and statistics are unchanged.  Anything but a committed
 * @old and an idle @new (which also rules out @old == @new) is misuse and
 * changes nothing.  Any context, NMI included; the caller owns both
 * descriptors.
 */
void mcs_charge_migrate(struct mcs_charge *old, struct mcs_charge *new);

/**
 * mcs_charge_stat() - a memcg's charge statistic, summed over CPUs
 * @memcg: memcg
 * @item: statistic, below NR_MCS_CHARGE_ITEMS
 *
 * Not hierarchical: only charges whose owner is @memcg count.  Any context.
 *
 * Return: the value, exact when no charge of @memcg is in flight (a sum
 * read during an uncharge on another CPU can be negative for a moment);
 * -EINVAL for a NULL @memcg or an unknown @item.
 */
long mcs_charge_stat(struct mcs_memcg *memcg, enum mcs_charge_item item);

/* ---- Diagnostics: counts that invariant checks compare before and after a run ---- */

/**
 * mcs_memcg_nr_alive() - memcgs allocated and not yet freed
 *
 * Counts the root too.  Call mcs_wait_for_frees() first when comparing
 * with an earlier value.  Any context.
 *
 * Return: the number of live struct mcs_memcg.
 */
long mcs_memcg_nr_alive(void);

/**
 * mcs_objcg_nr_alive() - objcgs allocated and not yet freed
 *
 * Call mcs_wait_for_frees() first when comparing with an earlier value.
 * Any context.
 *
 * Return: the number of live objcgs, the root's included.
 */
long mcs_objcg_nr_alive(void);

/**
 * mcs_wait_for_frees() - wait until released memcgs and objcgs are freed
 *
 * Freeing is deferred to RCU callbacks, which may release a parent and
 * queue further callbacks, releases in NMI go through an irq_work first,
 * and a memcg whose last reference was dropped while it was online is
 * offlined by a work item first (see mcs_memcg_put()).  Waits until none
 * is pending.  Task context; sleeps.  There is no bound: while other
 * callers keep releasing memcgs or objcgs, it may keep waiting for theirs;
 * call it when the releases it should see have been made.
 */
void mcs_wait_for_frees(void);

/**
 * mcs_page_counter_underflows() - clamped page counter underflows since load
 *
 * Any context.
 *
 * Return: how many uncharges would have taken a counter level below zero.
 * Invariant checks require this to stay 0.
 */
long mcs_page_counter_underflows(void);

/**
 * mcs_charge_misuses() - charge descriptor misuse since load
 *
 * Any context.
 *
 * Return: how many calls were refused because a descriptor was in the
 * wrong state.  Invariant checks require this not to grow.
 */
long mcs_charge_misuses(void);

#endif /* MEMCG_STOCK_H */
