// SPDX-License-Identifier: GPL-2.0
/*
 * The memcg tree: creation, references, release, statistics.
 *
 * This file knows no stock: the designs cache memcgs (each slot holds a
 * reference), and the orchestration (memcg_stock.c) offlines them and
 * drains the stocks.  Contexts:
 *  - mcs_memcg_create() needs task context and may sleep.
 *  - mcs_memcg_get() and mcs_memcg_put() work anywhere, NMI included: the
 *    last reference dropped in NMI hands its release to deferred.c.  The
 *    memory is freed after an RCU grace period because drainers read
 *    other CPUs' cached[] pointers under rcu_read_lock().
 *  - The last reference to a memcg that is still online (a caller's
 *    mistake) offlines it first, from a work item, through the offline
 *    function the orchestration registered (mcs_memcg_tree_init()).
 *
 * Lock order: the orchestration's offline_mutex, then tree_mutex.
 */
#include <linux/module.h>
#include <linux/llist.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "memcg.h"
#include "objcg.h"
#include "trace.h"

static struct mcs_memcg *root_memcg;
static DEFINE_MUTEX(tree_mutex);	/* parent/child lists, online state */
static atomic_t next_id = ATOMIC_INIT(0);
static atomic_long_t nr_alive = ATOMIC_LONG_INIT(0);
/* the orchestration's offline, for orphans (mcs_memcg_tree_init()) */
static int (*orphan_offline)(struct mcs_memcg *memcg);

/* ---- memcg objects ---------------------------------------------------- */

void mcs_memcg_event(struct mcs_memcg *memcg, enum mcs_memcg_event ev)
{
	struct mcs_memcg_stats_pcpu *stats = get_cpu_ptr(memcg->stats);

	local_inc(&stats->events[ev]);
	put_cpu_ptr(memcg->stats);
}

/* A stock of @kind was busy for @memcg: count it and trace it. */
noinline void mcs_memcg_trylock_fail(struct mcs_memcg *memcg, int kind)
{
	mcs_memcg_event(memcg, MCS_TRYLOCK_FAIL);
	trace_mcs_trylock_fail(kind, mcs_context());
}

/* The same for @objcg's memcg: a byte stock was busy. */
noinline void mcs_objcg_trylock_fail(struct mcs_objcg *objcg)
{
	rcu_read_lock();
	mcs_memcg_trylock_fail(READ_ONCE(objcg->memcg), MCS_STOCK_OBJ);
	rcu_read_unlock();
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
	free_percpu(memcg->counter_stock);
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
 * The last reference to an online memcg goes on this list; a work item
 * offlines it and then drops that reference.
 */
static LLIST_HEAD(orphan_list);
static void orphan_work_fn(struct work_struct *work);
static DECLARE_WORK(orphan_work, orphan_work_fn);

/*
 * Each pass finishes what the passes before started: a deferred release
 * calls call_rcu() or queues an orphan's offline, an offline drops the
 * last reference and calls call_rcu(), an RCU callback drops a parent's.
 */
void mcs_wait_for_frees(void)
{
	do {
		mcs_sync_deferred_releases();
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

	/*
	 * call_rcu() is not NMI-safe (it queues on this CPU's callback list,
	 * which the interrupted code may be changing): an NMI hands the
	 * release to the deferral (mcs_memcg_put()).
	 */
	WARN_ONCE(in_nmi(), "memcg_stock: memcg %u released in NMI context\n", memcg->id);
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
		orphan_offline(memcg);
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
	if (parent) {
		memcg->counter_stock = alloc_percpu(atomic_t);
		if (!memcg->counter_stock)
			goto free;
	}
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

unsigned int mcs_memcg_id(struct mcs_memcg *memcg)
{
	return memcg->id;
}
EXPORT_SYMBOL_GPL(mcs_memcg_id);

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

/*
 * The first half of an offline, under the tree lock: refused with -EBUSY
 * while @memcg has online children; else its objcgs go to the parent, it
 * is marked offline and leaves its parent's list.  1 if it was offline
 * already.  The caller (the orchestration's offline) serialises offlines
 * and does the rest: the grace period, the charges, the drains.
 */
int mcs_memcg_unlink(struct mcs_memcg *memcg)
{
	mutex_lock(&tree_mutex);
	if (!memcg->online) {
		mutex_unlock(&tree_mutex);
		return 1;
	}
	if (!list_empty(&memcg->children)) {
		mutex_unlock(&tree_mutex);
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
	return 0;
}

/* ---- the tree's set-up and tear-down ----------------------------------- */

/*
 * Create the root memcg; @offline is what an orphan (the last reference
 * to an online memcg dropped) goes through before its release.
 */
int mcs_memcg_tree_init(int (*offline)(struct mcs_memcg *memcg))
{
	struct mcs_memcg *root;

	orphan_offline = offline;
	root = memcg_create(NULL, "root");
	if (IS_ERR(root))
		return PTR_ERR(root);
	root_memcg = root;
	return 0;
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
 * Call @fn on @root and every memcg below it, parents first, under the
 * tree lock: none of them is freed meanwhile (an offline memcg that left
 * the tree is reached only as @root).  Task context; sleeps; @fn must not
 * create or offline memcgs.
 */
void mcs_memcg_walk(struct mcs_memcg *root, void (*fn)(struct mcs_memcg *memcg, void *arg),
		    void *arg)
{
	struct mcs_memcg *pos;

	mutex_lock(&tree_mutex);
	for (pos = root; pos; pos = next_in_subtree(pos, root))
		fn(pos, arg);
	mutex_unlock(&tree_mutex);
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

/*
 * Drop the root's objcg, check that no objcg is left, drop the root and
 * check that no memcg is left.  Every stock is drained and empty.
 */
void mcs_memcg_tree_exit(void)
{
	long alive;

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
