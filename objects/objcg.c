// SPDX-License-Identifier: GPL-2.0
/*
 * Object cgroups: the owners of byte-sized charges, their lifetime, their
 * leftover, their slab statistics and their reparenting.
 *
 * An objcg charges on behalf of a memcg (objcg->memcg).  This file knows
 * no stock and charges nothing itself: the stock designs keep bytes of an
 * objcg in their per-CPU stocks, and the byte entry points (objcg_stock.c)
 * charge its pages.  What lives here:
 *  - Lifetime: a percpu_ref; the last reference may be dropped in any
 *    context, NMI included (the release then goes through deferred.c).
 *    The objcg list lock is a raw spinlock taken with interrupts off.
 *  - The leftover (objcg->nr_charged_bytes): charged bytes that no stock
 *    holds.  Leftovers stay below a page: whoever makes an objcg's
 *    leftover reach a whole page takes the whole pages off it with one
 *    cmpxchg and uncharges them (mcs_objcg_add_leftover(); lock-free, any
 *    context).  A leftover is thus never a pile of pages that nobody
 *    returns; once every object is freed and the stocks are drained it is
 *    exactly 0.
 *  - Reparenting: when a memcg goes offline its objcgs are pointed at the
 *    parent, so later charges and uncharges through them land there.
 *    Pages that were charged through them at the dead memcg's level are
 *    moved too: every page charge or uncharge through an objcg happens in
 *    one RCU read-side section together with the read of objcg->memcg and
 *    an update of that memcg's objcg_pages; after the switch the offline
 *    path waits for a grace period, after which the dead memcg's
 *    objcg_pages is final and is taken off its own counter level (the
 *    ancestors keep them).
 */
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/nodemask.h>
#include <linux/percpu-refcount.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "objcg.h"

static DEFINE_RAW_SPINLOCK(objcg_lock);
static atomic_long_t nr_objcgs = ATOMIC_LONG_INIT(0);

/* ---- objcg lifetime --------------------------------------------------- */

static void objcg_free_rcu(struct rcu_head *rcu)
{
	struct mcs_objcg *objcg = container_of(rcu, struct mcs_objcg, rcu);

	/*
	 * Here rather than in the release: the last reference may go in
	 * hardirq, and percpu_ref_exit() takes a spinlock_t (sleeping on
	 * PREEMPT_RT) and frees per-CPU memory.
	 */
	percpu_ref_exit(&objcg->refcnt);
	kfree(objcg);
	atomic_long_dec(&nr_objcgs);
	atomic_dec(&mcs_pending_frees);
}

static void objcg_uncharge_pages_direct(struct mcs_objcg *objcg, unsigned int nr_pages);

/* The release proper: any context but NMI (a raw lock, call_rcu()). */
static void objcg_release_now(struct mcs_objcg *objcg)
{
	unsigned int nr_bytes;
	unsigned long flags;

	/* NMI hands the release to the deferral (objcg_release()) */
	WARN_ONCE(in_nmi(), "memcg_stock: objcg released in NMI context\n");
	/*
	 * No stock holds it any more, so every leftover byte is here.  The
	 * objects charged through it were freed, so the leftovers add up to
	 * whole pages - none, since whole pages never stay on a leftover;
	 * anything else means bytes were lost or invented.
	 */
	nr_bytes = atomic_xchg(&objcg->nr_charged_bytes, 0);
	WARN_ONCE(nr_bytes & (PAGE_SIZE - 1),
		  "memcg_stock: objcg released with %u leftover bytes\n", nr_bytes);
	if (nr_bytes >> PAGE_SHIFT)
		objcg_uncharge_pages_direct(objcg, nr_bytes >> PAGE_SHIFT);

	raw_spin_lock_irqsave(&objcg_lock, flags);
	list_del(&objcg->list);
	raw_spin_unlock_irqrestore(&objcg_lock, flags);

	call_rcu(&objcg->rcu, objcg_free_rcu);
}

static void objcg_release_deferred(struct mcs_deferred *d)
{
	objcg_release_now(container_of(d, struct mcs_objcg, deferred));
}

/*
 * Last reference gone: any context.  In NMI (a stock eviction, or a client
 * dropping its last reference there) the objcg lock may be held by the
 * interrupted code, so the release is handed to an irq_work.
 */
static void objcg_release(struct percpu_ref *ref)
{
	struct mcs_objcg *objcg = container_of(ref, struct mcs_objcg, refcnt);

	atomic_inc(&mcs_pending_frees);
	if (in_nmi())
		mcs_defer_release(&objcg->deferred, objcg_release_deferred);
	else
		objcg_release_now(objcg);
}

int mcs_memcg_objcg_alloc(struct mcs_memcg *memcg)
{
	struct mcs_objcg *objcg;
	unsigned long flags;

	objcg = kzalloc_obj(*objcg, GFP_KERNEL);
	if (!objcg)
		return -ENOMEM;
	if (percpu_ref_init(&objcg->refcnt, objcg_release, 0, GFP_KERNEL)) {
		kfree(objcg);
		return -ENOMEM;
	}
	objcg->memcg = memcg;
	objcg->is_root = mcs_memcg_is_root(memcg);
	atomic_long_inc(&nr_objcgs);

	raw_spin_lock_irqsave(&objcg_lock, flags);
	list_add(&objcg->list, &memcg->objcg_list);
	raw_spin_unlock_irqrestore(&objcg_lock, flags);
	rcu_assign_pointer(memcg->objcg, objcg);
	return 0;
}

/* Drop the memcg's own objcg reference (offline, module exit, failed create). */
void mcs_memcg_objcg_kill(struct mcs_memcg *memcg)
{
	struct mcs_objcg *objcg = rcu_replace_pointer(memcg->objcg, NULL, true);

	if (objcg)
		percpu_ref_kill(&objcg->refcnt);
}

struct mcs_objcg *mcs_memcg_tryget_objcg(struct mcs_memcg *memcg)
{
	struct mcs_objcg *objcg;

	if (!memcg)
		return NULL;
	rcu_read_lock();
	objcg = rcu_dereference(memcg->objcg);
	if (objcg && !percpu_ref_tryget(&objcg->refcnt))
		objcg = NULL;
	rcu_read_unlock();
	return objcg;
}
EXPORT_SYMBOL_GPL(mcs_memcg_tryget_objcg);

void mcs_objcg_get(struct mcs_objcg *objcg)
{
	percpu_ref_get(&objcg->refcnt);
}
EXPORT_SYMBOL_GPL(mcs_objcg_get);

void mcs_objcg_put(struct mcs_objcg *objcg)
{
	percpu_ref_put(&objcg->refcnt);
}
EXPORT_SYMBOL_GPL(mcs_objcg_put);

struct mcs_memcg *mcs_objcg_memcg(struct mcs_objcg *objcg)
{
	return READ_ONCE(objcg->memcg);
}
EXPORT_SYMBOL_GPL(mcs_objcg_memcg);

long mcs_objcg_nr_alive(void)
{
	return atomic_long_read(&nr_objcgs);
}
EXPORT_SYMBOL_GPL(mcs_objcg_nr_alive);

/* ---- pages through an objcg, leftovers and statistics ------------------ */

/* Return pages straight to the counters (drains and release). */
static void objcg_uncharge_pages_direct(struct mcs_objcg *objcg, unsigned int nr_pages)
{
	struct mcs_memcg *memcg;

	rcu_read_lock();
	memcg = READ_ONCE(objcg->memcg);
	atomic_long_sub(nr_pages, &memcg->objcg_pages);
	mcs_page_counter_uncharge(&memcg->memory, nr_pages);
	rcu_read_unlock();
}

/*
 * Add @nr_bytes, charged and owned by nobody, to @objcg's leftover.  Whole
 * pages, of @nr_bytes or of the sum, go back to the counters at once.
 * Only sub-page amounts are ever added to the atomic, so it stays far
 * from overflowing however many CPUs add at once.
 */
void mcs_objcg_add_leftover(struct mcs_objcg *objcg, unsigned int nr_bytes)
{
	unsigned int nr_pages = nr_bytes >> PAGE_SHIFT;
	int old;

	nr_bytes &= PAGE_SIZE - 1;
	if (nr_bytes) {
		old = atomic_add_return(nr_bytes, &objcg->nr_charged_bytes);
		while (old >= (int)PAGE_SIZE) {
			if (atomic_try_cmpxchg(&objcg->nr_charged_bytes, &old,
					       old & (PAGE_SIZE - 1))) {
				nr_pages += old >> PAGE_SHIFT;
				break;
			}
		}
	}
	if (nr_pages)
		objcg_uncharge_pages_direct(objcg, nr_pages);
}

/* Take @nr_bytes from @objcg's leftover if it holds that many (lock-free). */
bool mcs_objcg_take_leftover(struct mcs_objcg *objcg, unsigned int nr_bytes)
{
	int old = atomic_read(&objcg->nr_charged_bytes);

	do {
		if (old < (int)nr_bytes)
			return false;
	} while (!atomic_try_cmpxchg(&objcg->nr_charged_bytes, &old, old - nr_bytes));
	return true;
}

unsigned int mcs_objcg_leftover_bytes(struct mcs_objcg *objcg)
{
	return atomic_read(&objcg->nr_charged_bytes);
}
EXPORT_SYMBOL_GPL(mcs_objcg_leftover_bytes);

/*
 * Pages leave the objcg's accounting (they move into a memcg stock); the
 * caller is inside an RCU section and uses the memcg returned.
 */
struct mcs_memcg *mcs_objcg_unaccount_pages(struct mcs_objcg *objcg, unsigned int nr_pages)
{
	struct mcs_memcg *memcg = READ_ONCE(objcg->memcg);

	atomic_long_sub(nr_pages, &memcg->objcg_pages);
	return memcg;
}

void mcs_objcg_mod_stat(struct mcs_objcg *objcg, int nid,
			enum mcs_slab_item item, int nr_bytes)
{
	struct mcs_memcg *memcg;

	if (!nr_bytes)
		return;
	rcu_read_lock();
	memcg = READ_ONCE(objcg->memcg);
	atomic_long_add(nr_bytes, &memcg->nodeinfo[nid]->slab_b[item]);
	rcu_read_unlock();
}

long mcs_memcg_slab_stat(struct mcs_memcg *memcg, int nid, enum mcs_slab_item item)
{
	if (!memcg || !mcs_slab_stat_args_ok(nid, item))
		return -EINVAL;
	return atomic_long_read(&memcg->nodeinfo[nid]->slab_b[item]);
}
EXPORT_SYMBOL_GPL(mcs_memcg_slab_stat);

/* ---- reparenting ----------------------------------------------------------------- */

/*
 * First half of offlining: point every objcg of @memcg at its parent and
 * hand them over.  The caller marks @memcg offline only afterwards.
 */
void mcs_memcg_reparent_objcgs(struct mcs_memcg *memcg)
{
	struct mcs_memcg *parent = memcg->parent;
	struct mcs_objcg *iter;
	unsigned long flags;

	raw_spin_lock_irqsave(&objcg_lock, flags);
	list_for_each_entry(iter, &memcg->objcg_list, list)
		WRITE_ONCE(iter->memcg, parent);
	list_splice_init(&memcg->objcg_list, &parent->objcg_list);
	raw_spin_unlock_irqrestore(&objcg_lock, flags);

	mcs_memcg_objcg_kill(memcg);
}

/*
 * Module exit found objcgs alive: name each one on @memcg's list, so that
 * the report tells a reference still held (not dying: its memcg was never
 * offlined; dying: somebody kept a reference) from leftover bytes.  At
 * most @max lines; returns how many objcgs the list holds.
 */
long mcs_objcg_report_alive(struct mcs_memcg *memcg, long max)
{
	struct mcs_objcg *iter;
	unsigned long flags;
	long n = 0;

	raw_spin_lock_irqsave(&objcg_lock, flags);
	list_for_each_entry(iter, &memcg->objcg_list, list) {
		if (n++ >= max)
			continue;
		pr_warn("memcg_stock: objcg alive on memcg %u (%s): %s, %s, %d leftover bytes\n",
			memcg->id, memcg->name,
			iter->is_root ? "the root's own" :
			iter == rcu_access_pointer(memcg->objcg) ? "its own" :
			"inherited from an offlined memcg",
			percpu_ref_is_dying(&iter->refcnt) ? "dying" : "not killed",
			atomic_read(&iter->nr_charged_bytes));
	}
	raw_spin_unlock_irqrestore(&objcg_lock, flags);
	return n;
}

/*
 * Second half, after a grace period: nobody charges or uncharges through
 * @memcg's level any more, so its objcg page count and slab statistics are
 * final.  The pages stay charged to the ancestors, which now own them.
 */
void mcs_memcg_reparent_objcg_charges(struct mcs_memcg *memcg)
{
	struct mcs_memcg *parent = memcg->parent;
	long nr_pages;
	int nid, item;

	nr_pages = atomic_long_xchg(&memcg->objcg_pages, 0);
	atomic_long_add(nr_pages, &parent->objcg_pages);
	if (nr_pages)
		mcs_page_counter_cancel_local(&memcg->memory, nr_pages);

	for_each_node(nid)
		for (item = 0; item < NR_MCS_SLAB_ITEMS; item++)
			atomic_long_add(atomic_long_xchg(&memcg->nodeinfo[nid]->slab_b[item], 0),
					&parent->nodeinfo[nid]->slab_b[item]);
}

