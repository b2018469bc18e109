/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The bottom layer of memcg_stock.ko (objects/): the
 * layout of a memcg, which slab_caches.c allocates and every layer above
 * reads, and the declarations of page_counter.c, deferred.c, slab_caches.c
 * and kernel_log.c that the rest of the module uses.  It includes the
 * public API (memcg_stock.h), whose enums size the memcg's statistics; it
 * includes no other header of the module but compat.h.
 */
#ifndef MEMCG_STOCK_COUNTERS_H
#define MEMCG_STOCK_COUNTERS_H

#include <linux/cache.h>
#include <linux/hardirq.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <asm/local.h>

#include "compat.h"
#include "memcg_stock.h"

#define MCS_NAME_LEN		32

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

static inline bool mcs_memcg_is_root(struct mcs_memcg *memcg)
{
	return !memcg->parent;
}

/* For the tracepoints: 0 task, 1 softirq, 2 hardirq, 3 NMI. */
static inline int mcs_context(void)
{
	if (in_nmi())
		return 3;
	if (in_hardirq())
		return 2;
	return in_serving_softirq() ? 1 : 0;
}

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

/* page_counter.c: pages off one level only (an offline's reparenting) */
void mcs_page_counter_cancel_local(struct mcs_page_counter *counter,
				   unsigned long nr_pages);

#endif /* MEMCG_STOCK_COUNTERS_H */
