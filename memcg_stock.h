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
 * descriptors, gathers, batches, migration) and every put may be called
 * from task, softirq and hardirq context with a gfp mask that does not
 * allow blocking outside task context, and from NMI with a gfp mask
 * without reclaim bits (__GFP_NOWARN, say): in NMI nothing takes a lock
 * but a trylock, and the release of a last reference is deferred to an
 * irq_work.  Creation, offlining, limits, drains, mode switches and
 * mcs_wait_for_frees() need task context and may sleep (a drain asked for
 * elsewhere is refused).  Reads of counters and statistics work anywhere.
 */
#ifndef MEMCG_STOCK_H
#define MEMCG_STOCK_H

#include <linux/types.h>
#include <linux/atomic.h>
#include <linux/gfp.h>
#include <linux/slab.h>

/* Pages charged to the counters at once; the surplus feeds the stock. */
#define MCS_CHARGE_BATCH	64U

/**
 * struct mcs_page_counter - hierarchical page counter
 * @usage: pages charged to this counter and its descendants
 * @max: limit in pages; charges that would exceed it are refused
 * @watermark: highest usage seen (racy by design, never below usage)
 * @failcnt: number of charges this counter refused
 * @parent: the counter charged along with this one, or NULL at the root
 *
 * Lock-free: every field is updated with atomics or READ_ONCE/WRITE_ONCE.
 */
struct mcs_page_counter {
	atomic_long_t usage;
	unsigned long max;
	unsigned long watermark;
	atomic_long_t failcnt;
	struct mcs_page_counter *parent;
};

#define MCS_PAGE_COUNTER_MAX	(LONG_MAX / PAGE_SIZE)

void mcs_page_counter_init(struct mcs_page_counter *counter,
			   struct mcs_page_counter *parent);
void mcs_page_counter_charge(struct mcs_page_counter *counter,
			     unsigned long nr_pages);
bool mcs_page_counter_try_charge(struct mcs_page_counter *counter,
				 unsigned long nr_pages,
				 struct mcs_page_counter **fail);
void mcs_page_counter_uncharge(struct mcs_page_counter *counter,
			       unsigned long nr_pages);
int mcs_page_counter_set_max(struct mcs_page_counter *counter,
			     unsigned long nr_pages);
long mcs_page_counter_underflows(void);

/**
 * mcs_page_counter_read() - current usage of a counter
 * @counter: the counter
 *
 * Return: pages charged to @counter and its descendants.
 */
static inline unsigned long mcs_page_counter_read(struct mcs_page_counter *counter)
{
	return atomic_long_read(&counter->usage);
}

struct mcs_memcg;

/**
 * enum mcs_memcg_event - per-memcg event counters, summed over CPUs
 * @MCS_STOCK_HIT: a charge served from the memcg stock
 * @MCS_STOCK_MISS: a charge that had to go to the page counters
 * @MCS_TRYLOCK_FAIL: a stock trylock failed and the fallback path was taken
 * @MCS_REFILL: pages put into a stock slot
 * @MCS_DRAIN: a stock slot of this memcg was drained
 * @MCS_MAX_EVENT: a charge was refused by this memcg's limit
 * @MCS_FORCE_CHARGE: a __GFP_NOFAIL charge was forced over the limit
 * @NR_MCS_EVENTS: number of events
 */
enum mcs_memcg_event {
	MCS_STOCK_HIT,
	MCS_STOCK_MISS,
	MCS_TRYLOCK_FAIL,
	MCS_REFILL,
	MCS_DRAIN,
	MCS_MAX_EVENT,
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

struct mcs_memcg *mcs_root_memcg(void);
struct mcs_memcg *mcs_memcg_create(struct mcs_memcg *parent, const char *name);
int mcs_memcg_offline(struct mcs_memcg *memcg);
void mcs_memcg_get(struct mcs_memcg *memcg);
void mcs_memcg_put(struct mcs_memcg *memcg);
unsigned int mcs_memcg_id(struct mcs_memcg *memcg);
int mcs_memcg_set_max(struct mcs_memcg *memcg, unsigned long nr_pages);
unsigned long mcs_memcg_usage(struct mcs_memcg *memcg);
void mcs_memcg_stat(struct mcs_memcg *memcg, struct mcs_memcg_stat *stat);
long mcs_memcg_nr_alive(void);
void mcs_wait_for_frees(void);

int mcs_try_charge(struct mcs_memcg *memcg, gfp_t gfp, unsigned int nr_pages);
void mcs_uncharge_pages(struct mcs_memcg *memcg, unsigned int nr_pages);

void mcs_drain_all_stock(struct mcs_memcg *root, bool sync);

/**
 * enum mcs_stock_mode - which per-CPU caching the charge paths use
 * @MCS_MODE_DECOUPLED: separate memcg and obj stocks under local_trylock
 *	(the 2025 design, the default)
 * @MCS_MODE_COUPLED: one per-CPU struct caching one memcg and one objcg
 *	under one local_lock_irqsave (the 6.12 design, for comparison)
 * @MCS_MODE_NONE: no per-CPU caching: pages are charged to the counters
 *	directly; bytes go through the objcg's own atomic leftover
 *	("objcg-atomic", a shared reservoir per objcg, not a per-CPU stock)
 * @MCS_MODE_COUPLED_NOIRQ: a benchmark control, "coupled-noirq": the
 *	coupled stock with preempt_disable() where it disables IRQs (charges
 *	from interrupt context bypass it).  Only the benchmark switches to it:
 *	mcs_stock_set_mode() refuses it.
 * @NR_MCS_MODES: number of modes
 */
enum mcs_stock_mode {
	MCS_MODE_DECOUPLED,
	MCS_MODE_COUPLED,
	MCS_MODE_NONE,
	MCS_MODE_COUPLED_NOIRQ,
	NR_MCS_MODES,
};

int mcs_stock_set_mode(enum mcs_stock_mode mode);
enum mcs_stock_mode mcs_stock_get_mode(void);
const char *mcs_stock_mode_name(enum mcs_stock_mode mode);

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

struct mcs_objcg *mcs_get_objcg(struct mcs_memcg *memcg);
void mcs_objcg_get(struct mcs_objcg *objcg);
void mcs_objcg_put(struct mcs_objcg *objcg);
struct mcs_memcg *mcs_objcg_memcg(struct mcs_objcg *objcg);
int mcs_obj_charge(struct mcs_objcg *objcg, gfp_t gfp, size_t size);
int mcs_obj_uncharge(struct mcs_objcg *objcg, size_t size);
int mcs_obj_charge_account(struct mcs_objcg *objcg, gfp_t gfp, size_t size,
			   int nid, enum mcs_slab_item item);
int mcs_obj_uncharge_account(struct mcs_objcg *objcg, size_t size, int nid,
			     enum mcs_slab_item item);
unsigned int mcs_objcg_leftover_bytes(struct mcs_objcg *objcg);
long mcs_memcg_slab_stat(struct mcs_memcg *memcg, int nid, enum mcs_slab_item item);
long mcs_objcg_nr_alive(void);

/* ---- charge lifetime API (charge.c) ---- */

/**
 * enum mcs_charge_state - where a charge descriptor is in its lifetime
 * @MCS_CHARGE_IDLE: nothing charged: never used, cancelled, uncharged, or
 *	migrated away.  A zero-filled descriptor is idle.
 * @MCS_CHARGE_RESERVED: mcs_try_charge_page() charged the counters; the
 *	charge is not bound to an owner yet and holds no reference
 * @MCS_CHARGE_COMMITTED: mcs_commit_charge() bound the charge; the
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
 * Return: the owner, or NULL if @c is not committed.
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

int mcs_try_charge_page(struct mcs_charge *c, struct mcs_memcg *memcg,
			gfp_t gfp, unsigned int nr_pages);
void mcs_commit_charge(struct mcs_charge *c);
void mcs_cancel_charge(struct mcs_charge *c);
void mcs_uncharge(struct mcs_charge *c);
void mcs_uncharge_gather_add(struct mcs_uncharge_gather *ug, struct mcs_charge *c);
void mcs_uncharge_gather_flush(struct mcs_uncharge_gather *ug);
unsigned long mcs_uncharge_batch(struct mcs_charge **charges, unsigned int nr);
void mcs_migrate_charge(struct mcs_charge *old, struct mcs_charge *new);
long mcs_charge_stat(struct mcs_memcg *memcg, enum mcs_charge_item item);
long mcs_charge_misuses(void);

/* ---- end charge lifetime API ---- */

#endif /* MEMCG_STOCK_H */
