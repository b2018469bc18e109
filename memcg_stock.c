// SPDX-License-Identifier: GPL-2.0
/*
 * The memcg tree, the per-CPU memcg stock, page charging.
 *
 * Each CPU keeps a small cache of pages already charged to the page
 * counters, for up to NR_MEMCG_STOCK memcgs.  A charge of up to
 * MCS_CHARGE_BATCH pages is served from it when the memcg has a slot with
 * enough pages; otherwise a whole batch is charged to the counters and the
 * surplus is put in the stock.  Uncharges go back into the stock.  When
 * more memcgs charge on a CPU than it has slots, a full stock admits a
 * newcomer only on every MCS_STOCK_ADMIT_EVERY-th refill and charges the
 * others exactly, so that a miss costs about what no stock costs.
 *
 * Context rules:
 *  - consume_stock(), refill_stock(), mcs_charge_pages() and
 *    mcs_uncharge_pages() may run in any context: task, softirq, hardirq.
 *    They only ever trylock the stock and never disable interrupts.  When
 *    the trylock fails (an interrupt arrived while this CPU's stock was
 *    locked, or always in hardirq on PREEMPT_RT) consume reports a miss and
 *    refill uncharges the counters directly: no charge is lost or doubled.
 *  - drain_local_memcg_stock() is the only user of the blocking
 *    local_lock(); it runs in task context (a work item, or the drainer on
 *    its own CPU) and bails out with a warning anywhere else.
 *  - The hotplug "dead" callback drains the dead CPU's stock without the
 *    lock: nothing can run on that CPU any more.
 *  - mcs_drain_all_stock(), memcg creation, offlining and limit changes
 *    need task context and may sleep.  Offlines are serialised from start
 *    to end (offline_mutex): a parent is offlined only after its children
 *    are, and only once their charges have moved up.  mcs_memcg_put() works anywhere; the
 *    memory is freed after an RCU grace period because drainers read other
 *    CPUs' cached[] pointers under rcu_read_lock().
 *
 * Stock modes: every path that puts something into a stock reads the
 * mode and fills that mode's stock inside one RCU read-side section, so
 * that mcs_stock_set_mode()'s grace period waits for every refill that
 * still saw the old mode before its last drain.
 *
 * Lock order: offline_mutex, tree_mutex, drain_mutex, a stock lock.
 */
#include <linux/module.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/irq_work.h>
#include <linux/llist.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "stock_modes.h"
#include "stock_owner.h"
#include "trace.h"

DEFINE_PER_CPU_ALIGNED(struct mcs_memcg_stock, mcs_memcg_stock) = {
	.lock = INIT_LOCAL_TRYLOCK(lock),
};

/* for the KUnit module only */
MCS_EXPORT_PER_CPU_NS(mcs_memcg_stock);

static struct mcs_memcg *root_memcg;
static DEFINE_MUTEX(offline_mutex);	/* one offline at a time, start to end */
static DEFINE_MUTEX(tree_mutex);	/* parent/child lists, online state */
static DEFINE_MUTEX(drain_mutex);	/* one drain-all at a time */
struct workqueue_struct *mcs_drain_wq;
static enum cpuhp_state hp_state;
static atomic_t next_id = ATOMIC_INIT(0);
static atomic_long_t nr_alive = ATOMIC_LONG_INIT(0);
atomic_t mcs_pending_frees = ATOMIC_INIT(0);

/* ---- memcg objects ---------------------------------------------------- */

void mcs_memcg_event(struct mcs_memcg *memcg, enum mcs_memcg_event ev)
{
	struct mcs_memcg_stats_pcpu *stats = get_cpu_ptr(memcg->stats);

	local_inc(&stats->events[ev]);
	put_cpu_ptr(memcg->stats);
}

struct mcs_memcg *mcs_root_memcg(void)
{
	return root_memcg;
}
EXPORT_SYMBOL_GPL(mcs_root_memcg);

long mcs_memcg_nr_alive(void)
{
	return atomic_long_read(&nr_alive);
}
EXPORT_SYMBOL_GPL(mcs_memcg_nr_alive);

/**
 * mcs_memcg_is_descendant() - is @memcg in the subtree of @root?
 * @memcg: memcg to test
 * @root: subtree root
 *
 * Safe under rcu_read_lock() on a memcg that may be released concurrently:
 * a memcg pins its parent until its own RCU-deferred free.
 *
 * Return: true if @memcg is @root or below it.
 */
bool mcs_memcg_is_descendant(struct mcs_memcg *memcg, struct mcs_memcg *root)
{
	for (; memcg; memcg = READ_ONCE(memcg->parent))
		if (memcg == root)
			return true;
	return false;
}

static void memcg_free_parts(struct mcs_memcg *memcg)
{
	int nid;

	/* only a failed create gets here with its objcg still attached */
	mcs_memcg_objcg_kill(memcg);

	for_each_node(nid)
		if (memcg->nodeinfo[nid])
			mcs_memcg_pn_free(memcg->nodeinfo[nid]);
	free_percpu(memcg->stats);
	mcs_memcg_free(memcg);
}

static void memcg_free_rcu(struct rcu_head *rcu)
{
	struct mcs_memcg *memcg = container_of(rcu, struct mcs_memcg, rcu);
	struct mcs_memcg *parent = memcg->parent;

	memcg_free_parts(memcg);
	atomic_long_dec(&nr_alive);
	/* Dropped only now so that RCU walkers of ->parent stay safe. */
	if (parent)
		mcs_memcg_put(parent);
	atomic_dec(&mcs_pending_frees);
}

/*
 * Releases of last references dropped in NMI.  NMI context may take no
 * lock but a trylock and may not call_rcu(), so the release goes on a
 * lock-free list and an irq_work finishes it in hard interrupt context
 * right after the NMI.  The caller counted it in mcs_pending_frees
 * already, so mcs_wait_for_frees() (and module exit) waits for it.
 */
static LLIST_HEAD(deferred_list);
static LLIST_HEAD(orphan_list);
static void orphan_work_fn(struct work_struct *work);
static DECLARE_WORK(orphan_work, orphan_work_fn);
static atomic_long_t nr_deferred = ATOMIC_LONG_INIT(0);

static void deferred_release_fn(struct irq_work *work)
{
	struct llist_node *list = llist_del_all(&deferred_list);
	struct mcs_deferred *d, *next;

	llist_for_each_entry_safe(d, next, list, node)
		d->release(d);
}

static struct irq_work deferred_work = IRQ_WORK_INIT_HARD(deferred_release_fn);

/*
 * Finish the deferred releases from a context that may do what they do
 * (call_rcu(), a raw spinlock, queue_work()): anything but NMI.  Those
 * left on the list by an NMI on a CPU going down are found here.
 */
static void run_deferred_releases(void)
{
	deferred_release_fn(&deferred_work);
}

/**
 * __mcs_defer_release() - hand a release over from NMI context
 * @d: the object's deferral node
 * @release: finishes the release later, in a context that is not NMI
 * @queue: queue the irq_work that runs the list
 *
 * Any context.  @queue false is the path of an NMI on a CPU that has left
 * the online mask: it is going down, and its dying phase may have flushed its
 * irq_works already.  One queued now would stay pending there while the
 * CPU is offline, and every other CPU's irq_work_queue() of the same work
 * would find it pending and do nothing.  The release waits on the list
 * instead, for the next irq_work on any CPU, the hotplug callback of that
 * CPU's death, or mcs_wait_for_frees().
 */
void __mcs_defer_release(struct mcs_deferred *d, void (*release)(struct mcs_deferred *d),
			 bool queue)
{
	d->release = release;
	atomic_long_inc(&nr_deferred);
	llist_add(&d->node, &deferred_list);
	if (queue)
		irq_work_queue(&deferred_work);
}
EXPORT_SYMBOL_NS_GPL(__mcs_defer_release, MCS_NS);

void mcs_defer_release(struct mcs_deferred *d, void (*release)(struct mcs_deferred *d))
{
	__mcs_defer_release(d, release, cpu_online(smp_processor_id()));
}

/**
 * mcs_deferred_releases() - releases handed over from NMI since load
 *
 * For the KUnit module (namespace MCS_NS): a test proves with it that the
 * deferral ran.  Any context.
 *
 * Return: how many last references dropped in NMI went through the
 * irq_work deferral.
 */
long mcs_deferred_releases(void)
{
	return atomic_long_read(&nr_deferred);
}
EXPORT_SYMBOL_NS_GPL(mcs_deferred_releases, MCS_NS);

/*
 * Each pass finishes what the passes before started: a deferred release
 * calls call_rcu() or queues an orphan's offline, an offline drops the
 * last reference and calls call_rcu(), an RCU callback drops a parent's.
 */
void mcs_wait_for_frees(void)
{
	do {
		irq_work_sync(&deferred_work);
		run_deferred_releases();
		flush_work(&orphan_work);
		rcu_barrier();
	} while (atomic_read(&mcs_pending_frees));
}
EXPORT_SYMBOL_GPL(mcs_wait_for_frees);

void mcs_memcg_get(struct mcs_memcg *memcg)
{
	refcount_inc(&memcg->refcnt);
}
EXPORT_SYMBOL_GPL(mcs_memcg_get);

static void memcg_release(struct mcs_memcg *memcg)
{
	long usage;

	usage = atomic_long_read(&memcg->memory.usage);
	if (WARN_ONCE(usage, "memcg_stock: memcg %u freed with %ld pages charged\n",
		      memcg->id, usage))
		mcs_page_counter_uncharge(&memcg->memory, usage);
	call_rcu(&memcg->rcu, memcg_free_rcu);
}

static void memcg_release_deferred(struct mcs_deferred *d)
{
	memcg_release(container_of(d, struct mcs_memcg, deferred));
}

/*
 * The last reference dropped on an online memcg, a caller's mistake (the
 * offline comes first), does not free it: it is still on its parent's
 * children list and its objcg still points at it.  The reference is kept,
 * a work item offlines the memcg (that sleeps) and then drops it; the
 * memcg is counted in mcs_pending_frees meanwhile.  Until the work has
 * run, offlining the parent fails with -EBUSY as for any online child.
 */
static void orphan_work_fn(struct work_struct *work)
{
	struct llist_node *list = llist_del_all(&orphan_list);
	struct mcs_memcg *memcg, *next;

	llist_for_each_entry_safe(memcg, next, list, deferred.node) {
		mcs_memcg_offline(memcg);
		mcs_memcg_put(memcg);
		atomic_dec(&mcs_pending_frees);
	}
}

static void memcg_orphan(struct mcs_memcg *memcg)
{
	pr_warn_ratelimited("memcg_stock: last reference to online memcg %u dropped: offlining it first\n",
			    memcg->id);
	llist_add(&memcg->deferred.node, &orphan_list);
	queue_work(mcs_system_dfl_wq, &orphan_work);
}

static void memcg_orphan_deferred(struct mcs_deferred *d)
{
	memcg_orphan(container_of(d, struct mcs_memcg, deferred));
}

void mcs_memcg_put(struct mcs_memcg *memcg)
{
	if (refcount_dec_not_one(&memcg->refcnt))
		return;
	/* ours is the last reference: nobody may take one on an offline memcg */
	if (READ_ONCE(memcg->online) && !mcs_memcg_is_root(memcg)) {
		atomic_inc(&mcs_pending_frees);
		if (in_nmi())
			mcs_defer_release(&memcg->deferred, memcg_orphan_deferred);
		else
			memcg_orphan(memcg);
		return;
	}
	if (!refcount_dec_and_test(&memcg->refcnt))
		return;
	atomic_inc(&mcs_pending_frees);
	if (in_nmi())
		mcs_defer_release(&memcg->deferred, memcg_release_deferred);
	else
		memcg_release(memcg);
}
EXPORT_SYMBOL_GPL(mcs_memcg_put);

static struct mcs_memcg *memcg_create(struct mcs_memcg *parent, const char *name)
{
	struct mcs_memcg *memcg;
	int nid, err = -ENOMEM;

	memcg = mcs_memcg_alloc();
	if (!memcg)
		return ERR_PTR(-ENOMEM);
	memcg->stats = alloc_percpu(struct mcs_memcg_stats_pcpu);
	if (!memcg->stats)
		goto free;
	for_each_node(nid) {
		struct mcs_memcg_per_node *pn = mcs_memcg_pn_alloc(nid);

		if (!pn)
			goto free;
		pn->memcg = memcg;
		pn->nid = nid;
		memcg->nodeinfo[nid] = pn;
	}

	refcount_set(&memcg->refcnt, 1);
	memcg->id = atomic_inc_return(&next_id);
	strscpy(memcg->name, name ?: "", sizeof(memcg->name));
	mutex_init(&memcg->max_mutex);
	INIT_LIST_HEAD(&memcg->children);
	INIT_LIST_HEAD(&memcg->sibling);
	INIT_LIST_HEAD(&memcg->objcg_list);
	memcg->parent = parent;	/* objcg_alloc looks at it; pinned below */

	mutex_lock(&tree_mutex);
	if (parent && !parent->online) {
		mutex_unlock(&tree_mutex);
		err = -ENOENT;
		goto free;
	}
	err = mcs_memcg_objcg_alloc(memcg);
	if (err) {
		mutex_unlock(&tree_mutex);
		goto free;
	}
	mcs_page_counter_init(&memcg->memory, parent ? &parent->memory : NULL);
	if (parent) {
		mcs_memcg_get(parent);
		memcg->depth = parent->depth + 1;
		list_add_tail(&memcg->sibling, &parent->children);
	}
	WRITE_ONCE(memcg->online, true);
	mutex_unlock(&tree_mutex);

	atomic_long_inc(&nr_alive);
	return memcg;

free:
	memcg_free_parts(memcg);
	return ERR_PTR(err);
}

/* NULL means the root; memcg_create() pins the parent once it links the memcg in. */
struct mcs_memcg *mcs_memcg_create(struct mcs_memcg *parent, const char *name)
{
	return memcg_create(parent ?: root_memcg, name);
}
EXPORT_SYMBOL_GPL(mcs_memcg_create);

int mcs_memcg_offline(struct mcs_memcg *memcg)
{
	if (!memcg)
		return -EINVAL;
	if (mcs_memcg_is_root(memcg)) {
		pr_warn_ratelimited("memcg_stock: the root memcg cannot be offlined\n");
		return -EINVAL;
	}

	mutex_lock(&offline_mutex);
	mutex_lock(&tree_mutex);
	if (!memcg->online) {
		mutex_unlock(&tree_mutex);
		mutex_unlock(&offline_mutex);
		return 0;
	}
	if (!list_empty(&memcg->children)) {
		mutex_unlock(&tree_mutex);
		mutex_unlock(&offline_mutex);
		pr_warn_ratelimited("memcg_stock: memcg %u has online children: offline them first\n",
				    memcg->id);
		return -EBUSY;
	}
	/*
	 * Objcgs first, then the online flag: an objcg charge that finds the
	 * memcg offline (-ENOENT) is then sure to find the parent when it
	 * reads objcg->memcg again (the objcg lock's release orders them).
	 */
	mcs_memcg_reparent_objcgs(memcg);
	WRITE_ONCE(memcg->online, false);
	list_del_init(&memcg->sibling);
	mutex_unlock(&tree_mutex);

	/* objcg charges that still saw this memcg are finished after this */
	synchronize_rcu();
	mcs_memcg_reparent_objcg_charges(memcg);
	mcs_drain_all_stock(memcg, true);
	mutex_unlock(&offline_mutex);
	return 0;
}
EXPORT_SYMBOL_GPL(mcs_memcg_offline);

unsigned int mcs_memcg_id(struct mcs_memcg *memcg)
{
	return memcg->id;
}
EXPORT_SYMBOL_GPL(mcs_memcg_id);

int mcs_memcg_set_max(struct mcs_memcg *memcg, unsigned long nr_pages)
{
	int ret;

	if (!memcg)
		return -EINVAL;
	if (mcs_memcg_is_root(memcg) || nr_pages > MCS_PAGE_COUNTER_MAX) {
		pr_warn_ratelimited("memcg_stock: limit %lu refused for memcg %u\n",
				    nr_pages, memcg->id);
		return -EINVAL;
	}
	mutex_lock(&memcg->max_mutex);
	ret = mcs_page_counter_set_max(&memcg->memory, nr_pages);
	if (ret == -EBUSY) {
		mcs_drain_all_stock(memcg, true);
		ret = mcs_page_counter_set_max(&memcg->memory, nr_pages);
	}
	mutex_unlock(&memcg->max_mutex);
	return ret;
}
EXPORT_SYMBOL_GPL(mcs_memcg_set_max);

unsigned long mcs_memcg_usage(struct mcs_memcg *memcg)
{
	return mcs_page_counter_read(&memcg->memory);
}
EXPORT_SYMBOL_GPL(mcs_memcg_usage);

void mcs_memcg_stat(struct mcs_memcg *memcg, struct mcs_memcg_stat *stat)
{
	int cpu, i;

	memset(stat, 0, sizeof(*stat));
	stat->usage = mcs_page_counter_read(&memcg->memory);
	stat->max = READ_ONCE(memcg->memory.max);
	stat->watermark = READ_ONCE(memcg->memory.watermark);
	stat->failcnt = atomic_long_read(&memcg->memory.failcnt);
	for_each_possible_cpu(cpu) {
		struct mcs_memcg_stats_pcpu *s = per_cpu_ptr(memcg->stats, cpu);

		for (i = 0; i < NR_MCS_EVENTS; i++)
			stat->events[i] += local_read(&s->events[i]);
	}
}
EXPORT_SYMBOL_GPL(mcs_memcg_stat);

/* ---- the memcg stock ---------------------------------------------------- */

/*
 * Take @nr_pages (1 to MCS_CHARGE_BATCH) of @memcg from this CPU's stock,
 * under the exclusion of @mode ("decoupled" or "decoupled-owner").
 * Trylock only: a busy stock is an answer, never a wait.  Inline and
 * without a call (so that the charge that inlines it needs no frame): it
 * counts the hit, the caller counts the rest.
 */
static __always_inline enum mcs_stock_answer
memcg_stock_take(struct mcs_memcg *memcg, unsigned int nr_pages, enum mcs_stock_mode mode)
{
	struct mcs_memcg_stock *stock;
	unsigned long i;	/* no sign extension per slot */

	if (!mcs_memcg_stock_trylock(mode))
		return MCS_TAKE_BUSY;
	stock = this_cpu_ptr(&mcs_memcg_stock);
#pragma GCC unroll 8	/* see NR_MEMCG_STOCK */
	for (i = 0; i < NR_MEMCG_STOCK; i++) {
		u8 stock_pages;

		/* a plain read: only this CPU writes cached[], under our lock */
		if (stock->cached[i] != memcg)
			continue;
		/* A memcg has at most one slot: stop here either way. */
		stock_pages = READ_ONCE(stock->nr_pages[i]);
		if (stock_pages < nr_pages)
			goto miss;
		WRITE_ONCE(stock->nr_pages[i], stock_pages - nr_pages);
		__mcs_memcg_event(memcg, MCS_STOCK_HIT);
		mcs_memcg_stock_unlock(mode);
		return MCS_TAKE_HIT;
	}
	/* no slot: can the surplus of a batch have one? */
	if (stock->nr_cached == NR_MEMCG_STOCK) {
		mcs_memcg_stock_unlock(mode);
		return MCS_TAKE_FULL;
	}
miss:
	mcs_memcg_stock_unlock(mode);
	return MCS_TAKE_MISS;
}

/* This CPU's memcg stock was busy for @memcg. */
static noinline void memcg_stock_busy(struct mcs_memcg *memcg)
{
	mcs_memcg_event(memcg, MCS_TRYLOCK_FAIL);
	trace_mcs_trylock_fail(MCS_STOCK_MEMCG, mcs_context());
}

/*
 * Take @nr_pages of @memcg from this CPU's stock (the dispatch's entry), in
 * mode @mode, "decoupled" or "decoupled-owner".
 */
bool mcs_memcg_stock_consume(struct mcs_memcg *memcg, unsigned int nr_pages,
			     enum mcs_stock_mode mode)
{
	enum mcs_stock_answer answer;

	if (!nr_pages || nr_pages > MCS_CHARGE_BATCH)
		return false;
	if (mode == MCS_MODE_DECOUPLED_OWNER)
		answer = memcg_stock_take(memcg, nr_pages, MCS_MODE_DECOUPLED_OWNER);
	else
		answer = memcg_stock_take(memcg, nr_pages, MCS_MODE_DECOUPLED);
	if (answer == MCS_TAKE_BUSY)
		memcg_stock_busy(memcg);
	return answer == MCS_TAKE_HIT;
}

/* Empty slot @i: its pages go back to the counters, its reference is put. */
static void drain_stock(struct mcs_memcg_stock *stock, int i, int cause)
{
	struct mcs_memcg *old = READ_ONCE(stock->cached[i]);
	u8 stock_pages;

	if (!old)
		return;
	stock_pages = READ_ONCE(stock->nr_pages[i]);
	trace_mcs_stock_drain(old->id, stock_pages, cause);
	if (stock_pages) {
		mcs_page_counter_uncharge(&old->memory, stock_pages);
		WRITE_ONCE(stock->nr_pages[i], 0);
	}
	mcs_memcg_event(old, MCS_DRAIN);
	WRITE_ONCE(stock->cached[i], NULL);
	/* an empty stock starts afresh: the same history, the same evictions */
	if (!--stock->nr_cached) {
		stock->admit_wait = 0;
		stock->drain_idx = 0;
	}
	mcs_memcg_put(old);
}

static void drain_stock_fully(struct mcs_memcg_stock *stock, int cause)
{
	int i;

	for (i = 0; i < NR_MEMCG_STOCK; i++)
		drain_stock(stock, i, cause);
}

/* For the tracepoints: 0 task, 1 softirq, 2 hardirq, 3 NMI. */
int mcs_context(void)
{
	if (in_nmi())
		return 3;
	if (in_hardirq())
		return 2;
	return in_serving_softirq() ? 1 : 0;
}

/*
 * A refill of @nr_pages of @memcg, which has no slot in the locked @stock,
 * out of line.  The memcg takes the first empty slot.  When every slot is
 * taken, it evicts one (round-robin: the victim is not chosen at random,
 * the RNG takes a lock of its own and this runs in any context) only on
 * every MCS_STOCK_ADMIT_EVERY-th such refill; the others go straight back
 * to the counters, at the cost of an uncharge without a stock.
 */
static noinline void memcg_stock_refill_new(struct mcs_memcg_stock *stock,
					    struct mcs_memcg *memcg,
					    unsigned int nr_pages)
{
	int i;

	mcs_assert_mode_fence();
	/* An offline memcg gets no new slot: its stocks were drained. */
	if (!READ_ONCE(memcg->online))
		goto uncharge;
	i = NR_MEMCG_STOCK;
	if (stock->nr_cached < NR_MEMCG_STOCK)
		for (i = 0; i < NR_MEMCG_STOCK && READ_ONCE(stock->cached[i]); i++)
			;
	if (i == NR_MEMCG_STOCK) {
		if (++stock->admit_wait < MCS_STOCK_ADMIT_EVERY)
			goto uncharge;
		stock->admit_wait = 0;
		i = stock->drain_idx;
		stock->drain_idx = (stock->drain_idx + 1) % NR_MEMCG_STOCK;
		trace_mcs_stock_evict(memcg->id, stock->cached[i]->id, i);
		drain_stock(stock, i, MCS_DRAIN_EVICT);
	}
	mcs_memcg_get(memcg);
	WRITE_ONCE(stock->nr_pages[i], nr_pages);
	WRITE_ONCE(stock->cached[i], memcg);
	stock->nr_cached++;
	__mcs_memcg_event(memcg, MCS_REFILL);
	return;

uncharge:
	mcs_page_counter_uncharge(&memcg->memory, nr_pages);
}

/*
 * The rest of a refill of @nr_pages of @memcg into the locked @stock, out
 * of line: the memcg has no slot yet (memcg_stock_refill_new()), or its
 * slot goes over the batch and is drained whole.
 */
static noinline void memcg_stock_refill_locked(struct mcs_memcg_stock *stock,
					       struct mcs_memcg *memcg,
					       unsigned int nr_pages)
{
	int i;

	mcs_assert_mode_fence();
	for (i = 0; i < NR_MEMCG_STOCK; i++) {
		if (READ_ONCE(stock->cached[i]) == memcg) {
			/* slot <= 64 plus refill <= 64 fits a u8 */
			unsigned int total = READ_ONCE(stock->nr_pages[i]) + nr_pages;

			WRITE_ONCE(stock->nr_pages[i], total);
			__mcs_memcg_event(memcg, MCS_REFILL);
			if (total > MCS_CHARGE_BATCH)
				drain_stock(stock, i, MCS_DRAIN_OVERFLOW);
			return;
		}
	}
	memcg_stock_refill_new(stock, memcg, nr_pages);
}

/*
 * Put @nr_pages of @memcg, already charged to the counters, into this CPU's
 * stock, inside the mode fence (stock_modes.h) that read @mode, "decoupled"
 * or "decoupled-owner".  A busy stock sends them straight back to the
 * counters.
 */
void mcs_memcg_stock_refill(struct mcs_memcg *memcg, unsigned int nr_pages,
			    enum mcs_stock_mode mode)
{
	mcs_assert_mode_fence();
	if (nr_pages > MCS_CHARGE_BATCH)
		goto uncharge;
	if (!mcs_memcg_stock_trylock(mode)) {
		memcg_stock_busy(memcg);
		goto uncharge;
	}
	/* the section of "decoupled-owner" checked the fence already */
	if (mode == MCS_MODE_DECOUPLED && !mcs_mode_fence_holds(mode)) {
		mcs_memcg_stock_unlock(mode);
		goto uncharge;
	}
	memcg_stock_refill_locked(this_cpu_ptr(&mcs_memcg_stock), memcg, nr_pages);
	mcs_memcg_stock_unlock(mode);
	return;

uncharge:
	mcs_page_counter_uncharge(&memcg->memory, nr_pages);
}

/*
 * The refill of every uncharge and of a charge's surplus in mode
 * "decoupled", inline.  The section of the stock's lock is the mode
 * fence: with the lock held, preemption is off on !PREEMPT_RT and an RCU
 * read-side section is open on PREEMPT_RT (its spinlocks open one), so
 * a mode read inside it is waited for by mcs_stock_set_mode()'s grace
 * period like one inside rcu_read_lock().  A hit (the memcg has a slot
 * and stays within the batch) costs the trylock pair, the slot scan and
 * one event.  False, with nothing done, when the stock is busy or the mode
 * is another: the caller then takes the fenced path of stock_modes.h.
 */
static __always_inline bool memcg_stock_refill_fast(struct mcs_memcg *memcg,
						    unsigned int nr_pages,
						    enum mcs_stock_mode mode)
{
	struct mcs_memcg_stock *stock;
	unsigned long i;	/* no sign extension per slot */

	if (nr_pages > MCS_CHARGE_BATCH || !mcs_memcg_stock_trylock(mode))
		return false;
	/* the section of "decoupled-owner" checked the mode already */
	if (mode == MCS_MODE_DECOUPLED && !mcs_mode_fence_holds(mode)) {
		mcs_memcg_stock_unlock(mode);
		return false;
	}
	stock = this_cpu_ptr(&mcs_memcg_stock);
#pragma GCC unroll 8	/* see NR_MEMCG_STOCK */
	for (i = 0; i < NR_MEMCG_STOCK; i++) {
		unsigned int total;

		if (stock->cached[i] != memcg)	/* as in memcg_stock_take() */
			continue;
		/* slot <= 64 plus refill <= 64 fits a u8 */
		total = READ_ONCE(stock->nr_pages[i]) + nr_pages;
		if (total > MCS_CHARGE_BATCH) {
			memcg_stock_refill_locked(stock, memcg, nr_pages);
			goto unlock;
		}
		WRITE_ONCE(stock->nr_pages[i], total);
		__mcs_memcg_event(memcg, MCS_REFILL);
		mcs_memcg_stock_unlock(mode);
		return true;
	}
	/* no slot: no second scan */
	memcg_stock_refill_new(stock, memcg, nr_pages);
unlock:
	mcs_memcg_stock_unlock(mode);
	return true;
}

/* Put @nr_pages of @memcg where the current mode keeps pages. */
static __always_inline void refill_pages(struct mcs_memcg *memcg, unsigned int nr_pages)
{
	enum mcs_stock_mode mode = mcs_stock_mode_now();

	if (mode == MCS_MODE_DECOUPLED &&
	    memcg_stock_refill_fast(memcg, nr_pages, MCS_MODE_DECOUPLED))
		return;
	if (mode == MCS_MODE_DECOUPLED_OWNER &&
	    memcg_stock_refill_fast(memcg, nr_pages, MCS_MODE_DECOUPLED_OWNER))
		return;
	mcs_mode_refill_pages(memcg, nr_pages);
}

/* Runs on the stock's own CPU, in task context. */
static void drain_local_memcg_stock(struct work_struct *work)
{
	struct mcs_memcg_stock *stock =
		container_of(work, struct mcs_memcg_stock, work);

	if (WARN_ONCE(!in_task(), "memcg_stock: %s in atomic context\n", __func__))
		return;

	/* excludes the sections of "decoupled-owner" too: see stock_owner.h */
	local_lock(&mcs_memcg_stock.lock);
	/*
	 * A work item queued for a CPU that went offline before it ran is
	 * executed elsewhere.  Leave that stock alone: the hotplug callback
	 * has drained or will drain it.
	 */
	if (stock == this_cpu_ptr(&mcs_memcg_stock))
		drain_stock_fully(stock, MCS_DRAIN_ALL);
	clear_bit(FLUSHING_CACHED_CHARGE, &stock->flags);
	local_unlock(&mcs_memcg_stock.lock);
}

/*
 * Does @stock cache anything of @root's subtree?  @any_slot also counts
 * slots with no pages left (they still hold a reference); the asynchronous
 * drain, like upstream, only cares about pages.
 */
static bool stock_holds(struct mcs_memcg_stock *stock, struct mcs_memcg *root,
			bool any_slot)
{
	bool ret = false;
	int i;

	rcu_read_lock();
	for (i = 0; i < NR_MEMCG_STOCK; i++) {
		struct mcs_memcg *memcg = READ_ONCE(stock->cached[i]);

		if (memcg && (any_slot || READ_ONCE(stock->nr_pages[i])) &&
		    mcs_memcg_is_descendant(memcg, root)) {
			ret = true;
			break;
		}
	}
	rcu_read_unlock();
	return ret;
}

/* The decoupled memcg stock as the drains see it (stock_modes.c). */
static bool memcg_stock_holds(int cpu, struct mcs_memcg *root, bool any_slot)
{
	return stock_holds(per_cpu_ptr(&mcs_memcg_stock, cpu), root, any_slot);
}

static void memcg_stock_cpu_dead(unsigned int cpu)
{
	struct mcs_memcg_stock *stock = per_cpu_ptr(&mcs_memcg_stock, cpu);

	drain_stock_fully(stock, MCS_DRAIN_HOTPLUG);
	/* A drain queued for it may never run there: let the next one in. */
	clear_bit(FLUSHING_CACHED_CHARGE, &stock->flags);
}

const struct mcs_stock_kind mcs_memcg_stock_kind =
	MCS_STOCK_KIND(mcs_memcg_stock, struct mcs_memcg_stock, drain_local_memcg_stock,
		       memcg_stock_holds, memcg_stock_cpu_dead);

/*
 * Start a drain of one stock of @cpu unless one is pending; the current
 * CPU's is drained right here.  Every kind of stock follows this protocol
 * with its own FLUSHING bit and work item.
 *
 * As upstream: no work for an isolated CPU (isolcpus=, nohz_full=, an
 * isolated cpuset partition), whose users asked for no such jitter; its
 * stocks stay until a synchronous drain, an offline or its own charges
 * empty them.  The test and the queueing form one RCU section: on kernels
 * that replace the housekeeping mask at run time (housekeeping_update()),
 * the mask is RCU-protected, and the update waits a grace period before it
 * flushes the work of newly isolated CPUs.
 */
static void schedule_stock_drain(int cpu, int curcpu, unsigned long *flags,
				 struct work_struct *work)
{
	if (cpu == curcpu) {
		if (!test_and_set_bit(FLUSHING_CACHED_CHARGE, flags))
			work->func(work);
		return;
	}
	rcu_read_lock();
	if (!mcs_cpu_is_isolated(cpu) && !test_and_set_bit(FLUSHING_CACHED_CHARGE, flags))
		queue_work_on(cpu, mcs_drain_wq, work);
	rcu_read_unlock();
}

static void drain_all_async(struct mcs_memcg *root)
{
	const struct mcs_stock_kind *const *kind;
	int cpu, curcpu;

	/* Best effort: whoever holds the mutex is draining already. */
	if (!mutex_trylock(&drain_mutex))
		return;

	/*
	 * No cpus_read_lock(): a CPU that goes down meanwhile is drained by
	 * the hotplug callback, and every drain acts on local data only.
	 */
	migrate_disable();
	curcpu = smp_processor_id();
	for_each_online_cpu(cpu) {
		for (kind = mcs_stock_kinds; *kind; kind++) {
			unsigned long *flags = mcs_stock_flags(*kind, cpu);

			if (!test_bit(FLUSHING_CACHED_CHARGE, flags) &&
			    (*kind)->holds(cpu, root, false))
				schedule_stock_drain(cpu, curcpu, flags,
						     mcs_stock_work(*kind, cpu));
		}
	}
	migrate_enable();
	mutex_unlock(&drain_mutex);
}

/*
 * Caller holds drain_mutex and the CPU hotplug lock: CPUs stay online, so
 * every work item runs on its own CPU.  The kinds of stock are drained
 * one after the other, in the order of mcs_stock_kinds[]: a stock of
 * bytes hands its pages to a stock of pages.
 */
static void drain_all_sync_cpuslocked(struct mcs_memcg *root)
{
	const struct mcs_stock_kind *const *kind;
	int cpu;

	lockdep_assert_held(&drain_mutex);
	for (kind = mcs_stock_kinds; *kind; kind++) {
		for_each_online_cpu(cpu) {
			if (!(*kind)->holds(cpu, root, true))
				continue;
			set_bit(FLUSHING_CACHED_CHARGE, mcs_stock_flags(*kind, cpu));
			queue_work_on(cpu, mcs_drain_wq, mcs_stock_work(*kind, cpu));
		}
		for_each_online_cpu(cpu)
			flush_work(mcs_stock_work(*kind, cpu));
	}
}

static void drain_all_sync(struct mcs_memcg *root)
{
	mutex_lock(&drain_mutex);
	cpus_read_lock();
	drain_all_sync_cpuslocked(root);
	cpus_read_unlock();
	mutex_unlock(&drain_mutex);
}

void mcs_drain_all_stock(struct mcs_memcg *root, bool sync)
{
	if (!in_task()) {
		pr_warn_ratelimited("memcg_stock: drain refused outside task context\n");
		return;
	}
	if (sync)
		drain_all_sync(root);
	else
		drain_all_async(root);
}
EXPORT_SYMBOL_GPL(mcs_drain_all_stock);

/* A dead CPU's stocks of every kind: nothing runs there, no lock needed. */
static void stocks_cpu_dead(unsigned int cpu)
{
	const struct mcs_stock_kind *const *kind;

	for (kind = mcs_stock_kinds; *kind; kind++)
		(*kind)->cpu_dead(cpu);
}

static int mcs_cpu_dead(unsigned int cpu)
{
	stocks_cpu_dead(cpu);
	/* releases an NMI left on the list while @cpu was going down */
	run_deferred_releases();
	return 0;
}

/* ---- charging ------------------------------------------------------------- */

/* False for requests that must not spin on anything (no reclaim bits). */
static bool gfp_allows_spinning(gfp_t gfp)
{
	return !!(gfp & __GFP_RECLAIM);
}

/*
 * Everything of a page charge but the stock hit: errors, the root, the
 * miss.  MCS_CHARGE_BATCH pages (or @nr_pages if larger) go to the
 * counters and the surplus into the stock; a refused batch is retried with
 * exactly @nr_pages; a refused exact charge drains the refusing memcg's
 * subtree once (asynchronously) when the caller may block, then fails or
 * is forced.  A memcg without a slot in a full stock (MCS_TAKE_FULL) is
 * charged exactly: the surplus of a batch would most likely be turned away
 * (memcg_stock_refill_new()) or cost an eviction.  Its slot, once it gets
 * one, starts with what its uncharges bring and gets a batch at its first
 * shortfall.
 */
static noinline int charge_pages_slow(struct mcs_memcg *memcg, gfp_t gfp,
				      unsigned int nr_pages, enum mcs_stock_answer answer)
{
	unsigned int batch = max(MCS_CHARGE_BATCH, nr_pages);
	struct mcs_page_counter *fail;
	struct mcs_memcg *over;
	bool drained = false;

	if (answer == MCS_TAKE_BUSY)
		memcg_stock_busy(memcg);
	if (!memcg || !nr_pages)
		return -EINVAL;
	/*
	 * The root has no limit and no stock; its counter is charged only
	 * by objcgs reparented to it, directly, so that it stays the exact
	 * sum of everything.
	 */
	if (mcs_memcg_is_root(memcg)) {
		mcs_page_counter_charge(&memcg->memory, nr_pages);
		return 0;
	}
	if (!READ_ONCE(memcg->online))
		return -ENOENT;
	if (answer == MCS_TAKE_NOT_ASKED &&
	    mcs_mode_consume_pages(memcg, nr_pages, mcs_stock_mode_now()))
		return 0;	/* the stock counted the hit */
	mcs_memcg_event(memcg, MCS_STOCK_MISS);

	if (!gfp_allows_spinning(gfp) || !mcs_mode_has_page_stock(mcs_stock_mode_now()) ||
	    answer == MCS_TAKE_FULL)
		batch = nr_pages;
retry:
	if (mcs_page_counter_try_charge(&memcg->memory, batch, &fail))
		goto done_restock;
	/* Never fail or reclaim for the sake of the optional surplus. */
	if (batch > nr_pages) {
		batch = nr_pages;
		goto retry;
	}

	over = container_of(fail, struct mcs_memcg, memory);
	mcs_memcg_event(over, MCS_LIMIT_REFUSAL);
	trace_mcs_limit_refusal(memcg->id, over->id, nr_pages);
	/* a drain runs work functions: task context only, whatever @gfp says */
	if (!drained && gfpflags_allow_blocking(gfp) && in_task()) {
		drained = true;
		mcs_drain_all_stock(over, false);
		goto retry;
	}
	if (gfp & __GFP_NOFAIL) {
		mcs_page_counter_charge(&memcg->memory, nr_pages);
		mcs_memcg_event(memcg, MCS_FORCE_CHARGE);
		return 0;
	}
	return -ENOMEM;

done_restock:
	trace_mcs_charge_slowpath(memcg->id, nr_pages, batch);
	if (batch > nr_pages)
		refill_pages(memcg, batch - nr_pages);
	return 0;
}

/* A charge in a mode without the decoupled stocks: its stock first. */
static noinline int charge_pages_other(struct mcs_memcg *memcg, gfp_t gfp,
				       unsigned int nr_pages, enum mcs_stock_mode mode)
{
	if (mcs_mode_consume_pages(memcg, nr_pages, mode))
		return 0;	/* the stock counted the hit */
	return charge_pages_slow(memcg, gfp, nr_pages, MCS_TAKE_MISS);
}

/*
 * A hit of the decoupled stock is served inline, without a frame or a
 * call (the stock counts it); everything else is charge_pages_slow().
 */
int mcs_charge_pages(struct mcs_memcg *memcg, gfp_t gfp, unsigned int nr_pages)
{
	enum mcs_stock_answer answer = MCS_TAKE_NOT_ASKED;

	enum mcs_stock_mode mode;

	/*
	 * nr_pages - 1: 0 wraps around, and goes to the slow path's error.
	 * The root and offline memcgs are the slow path's too, and need no
	 * test here: the root never has a slot (its uncharges bypass the
	 * stock), and an offline memcg gets no new slot and has lost its
	 * old ones to the drain of its offline.  A charge that races with
	 * that offline may still be served (as if it came a little earlier).
	 */
	if (likely(memcg && nr_pages - 1 < MCS_CHARGE_BATCH)) {
		mode = mcs_stock_mode_now();
		if (likely(mode == MCS_MODE_DECOUPLED))
			answer = memcg_stock_take(memcg, nr_pages, MCS_MODE_DECOUPLED);
		else if (mode == MCS_MODE_DECOUPLED_OWNER)
			answer = memcg_stock_take(memcg, nr_pages, MCS_MODE_DECOUPLED_OWNER);
		else
			return charge_pages_other(memcg, gfp, nr_pages, mode);
		if (likely(answer == MCS_TAKE_HIT))
			return 0;
	}
	return charge_pages_slow(memcg, gfp, nr_pages, answer);
}
EXPORT_SYMBOL_GPL(mcs_charge_pages);

static noinline void uncharge_pages_slow(struct mcs_memcg *memcg, unsigned int nr_pages)
{
	if (mcs_memcg_is_root(memcg))
		mcs_page_counter_uncharge(&memcg->memory, nr_pages);
	else
		mcs_mode_refill_pages(memcg, nr_pages);
}

/* An uncharge in a mode without the decoupled stocks: the coupled ones inline. */
static noinline void uncharge_pages_other(struct mcs_memcg *memcg, unsigned int nr_pages,
					  enum mcs_stock_mode mode)
{
	if (mcs_mode_is_coupled(mode) && mcs_coupled_refill_fenced(memcg, nr_pages, mode))
		return;
	uncharge_pages_slow(memcg, nr_pages);
}

void mcs_uncharge_pages(struct mcs_memcg *memcg, unsigned int nr_pages)
{
	enum mcs_stock_mode mode;

	if (!nr_pages)
		return;
	if (likely(!mcs_memcg_is_root(memcg))) {
		mode = mcs_stock_mode_now();
		if (likely(mode == MCS_MODE_DECOUPLED)) {
			if (likely(memcg_stock_refill_fast(memcg, nr_pages, MCS_MODE_DECOUPLED)))
				return;
		} else if (mode == MCS_MODE_DECOUPLED_OWNER) {
			if (likely(memcg_stock_refill_fast(memcg, nr_pages,
							   MCS_MODE_DECOUPLED_OWNER)))
				return;
		} else {
			return uncharge_pages_other(memcg, nr_pages, mode);
		}
	}
	uncharge_pages_slow(memcg, nr_pages);
}
EXPORT_SYMBOL_GPL(mcs_uncharge_pages);

/*
 * Return @nr_pages of @memcg through the stock of the design of @mode, the
 * mode that the caller's operation read (pages that a section of that
 * design gave back, once the section is left): that design's fence
 * refuses when the mode has changed since, and then, as with a busy stock,
 * the pages go straight to the counters.  Never another design's stock,
 * never a second read of the mode that picks the stock.
 */
void mcs_uncharge_pages_mode(struct mcs_memcg *memcg, unsigned int nr_pages,
			     enum mcs_stock_mode mode)
{
	bool done = false;

	if (!nr_pages)
		return;
	if (mcs_memcg_is_root(memcg))
		goto direct;
	if (mode == MCS_MODE_DECOUPLED)
		done = memcg_stock_refill_fast(memcg, nr_pages, MCS_MODE_DECOUPLED);
	else if (mode == MCS_MODE_DECOUPLED_OWNER)
		done = memcg_stock_refill_fast(memcg, nr_pages, MCS_MODE_DECOUPLED_OWNER);
	else if (mcs_mode_is_coupled(mode))
		done = mcs_coupled_refill_fenced(memcg, nr_pages, mode);
	if (done)
		return;
direct:
	mcs_page_counter_uncharge(&memcg->memory, nr_pages);
}

/* Return pages straight to the counters, bypassing the stock. */
void mcs_memcg_uncharge_direct(struct mcs_memcg *memcg, unsigned int nr_pages)
{
	if (nr_pages)
		mcs_page_counter_uncharge(&memcg->memory, nr_pages);
}

/* ---- set-up and tear-down ------------------------------------------------ */

/*
 * Module exit: drain every possible CPU, online ones through their work,
 * the others here, and remove the hotplug state, all under one hold of
 * the CPU hotplug lock: a CPU that went down and came back between two
 * passes would otherwise be drained by neither.
 */
static void drain_everything(void)
{
	int cpu;

	mutex_lock(&drain_mutex);
	cpus_read_lock();
	drain_all_sync_cpuslocked(root_memcg);
	for_each_possible_cpu(cpu) {
		if (cpu_online(cpu))
			continue;
		stocks_cpu_dead(cpu);
	}
	cpuhp_remove_state_nocalls_cpuslocked(hp_state);
	cpus_read_unlock();
	mutex_unlock(&drain_mutex);
}

/**
 * mcs_stock_init() - set up the stocks, the drain workqueue, the root memcg
 *	and the CPU hotplug callback
 *
 * Called once from module init, after mcs_slab_init().  Task context.
 *
 * Return: 0, or a negative errno with everything undone.
 */
int mcs_stock_init(void)
{
	const struct mcs_stock_kind *const *kind;
	int cpu, ret;

	for (kind = mcs_stock_kinds; *kind; kind++)
		for_each_possible_cpu(cpu)
			INIT_WORK(mcs_stock_work(*kind, cpu), (*kind)->drain_fn);

	mcs_drain_wq = alloc_workqueue("mcs_drain", MCS_WQ_PERCPU, 0);
	if (!mcs_drain_wq)
		return -ENOMEM;

	root_memcg = memcg_create(NULL, "root");
	if (IS_ERR(root_memcg)) {
		ret = PTR_ERR(root_memcg);
		goto err_wq;
	}

	ret = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN, "memcg_stock:dead",
					NULL, mcs_cpu_dead);
	if (ret < 0)
		goto err_root;
	hp_state = ret;
	return 0;

err_root:
	mcs_memcg_objcg_kill(root_memcg);
	mcs_wait_for_frees();
	mcs_memcg_put(root_memcg);
	mcs_wait_for_frees();
err_wq:
	destroy_workqueue(mcs_drain_wq);
	return ret;
}

/* Pre-order successor of @pos in @root's subtree; under tree_mutex. */
static struct mcs_memcg *next_in_subtree(struct mcs_memcg *pos, struct mcs_memcg *root)
{
	if (!list_empty(&pos->children))
		return list_first_entry(&pos->children, struct mcs_memcg, sibling);
	for (; pos != root; pos = pos->parent)
		if (!list_is_last(&pos->sibling, &pos->parent->children))
			return list_next_entry(pos, sibling);
	return NULL;
}

/*
 * Module exit found @alive objcgs that should all be gone: say which.  An
 * objcg that is not being freed is on an online memcg's objcg list
 * (offlining hands the list to the parent); at most 16 are named.
 */
static void report_alive_objcgs(long alive)
{
	struct mcs_memcg *pos;
	long found = 0;

	mutex_lock(&tree_mutex);
	for (pos = root_memcg; pos; pos = next_in_subtree(pos, root_memcg))
		found += mcs_objcg_report_alive(pos, max(16 - found, 0L));
	mutex_unlock(&tree_mutex);
	if (found != alive)
		pr_warn("memcg_stock: %ld of the leaked objcgs are on no online memcg's list\n",
			alive - found);
}

/**
 * mcs_stock_exit() - undo mcs_stock_init()
 *
 * Called from module exit once no user of the module is left.  Drains
 * every stock, waits for every deferred release, and warns about leaked
 * memcgs and objcgs.  Task context; sleeps.
 */
void mcs_stock_exit(void)
{
	long alive;

	/* orphans' offlines use the drain workqueue: finish them first */
	mcs_wait_for_frees();
	drain_everything();
	destroy_workqueue(mcs_drain_wq);

	/* the root objcg's release may go through an RCU callback */
	mcs_memcg_objcg_kill(root_memcg);
	mcs_wait_for_frees();
	alive = mcs_objcg_nr_alive();
	if (WARN_ONCE(alive, "memcg_stock: %ld objcgs leaked\n", alive))
		report_alive_objcgs(alive);
	mcs_memcg_put(root_memcg);
	mcs_wait_for_frees();
	WARN_ONCE(atomic_long_read(&nr_alive), "memcg_stock: %ld memcgs leaked\n",
		  atomic_long_read(&nr_alive));
}
