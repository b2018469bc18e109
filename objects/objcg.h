/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The objcg's header (objects/, the bottom layer): the objcg, and what objcg.c
 * gives the layers above: lifetime, leftovers, statistics, reparenting,
 * and the byte take and put of the designs without a per-CPU obj stock.
 */
#ifndef MEMCG_STOCK_OBJCG_H
#define MEMCG_STOCK_OBJCG_H

#include <linux/percpu-refcount.h>
#include <linux/rcupdate.h>

#include "counters.h"

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

/* A node and a statistic that the per-node slab statistics have. */
static inline bool mcs_slab_stat_args_ok(int nid, enum mcs_slab_item item)
{
	return nid >= 0 && nid < nr_node_ids && node_possible(nid) &&
	       (unsigned int)item < NR_MCS_SLAB_ITEMS;
}

#endif /* MEMCG_STOCK_OBJCG_H */
