// SPDX-License-Identifier: GPL-2.0
/*
 * Dedicated kmem_caches for struct mcs_memcg and struct mcs_memcg_per_node.
 *
 * Both structs have sizes that kmalloc rounds up to the next power-of-two
 * bucket; a cache of their own stores them at their size rounded only to
 * the cache line (SLAB_HWCACHE_ALIGN).  The harness's "slab" debugfs file
 * (slab_report.c) reports the bytes this saves per memcg.  The module
 * parameter slab_kmalloc=1 allocates both from kmalloc instead, so the two
 * can be compared in one kernel.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/nodemask.h>
#include <linux/overflow.h>

#include "objects/counters.h"

static bool slab_kmalloc;
module_param(slab_kmalloc, bool, 0444);
MODULE_PARM_DESC(slab_kmalloc,
		 "Allocate memcg structs with kmalloc instead of their kmem_caches (for comparison)");

static struct kmem_cache *memcg_cachep;
static struct kmem_cache *memcg_pn_cachep;

/**
 * mcs_memcg_struct_size() - bytes of a struct mcs_memcg for this machine
 *
 * Return: the size including the per-node pointer array for nr_node_ids.
 */
size_t mcs_memcg_struct_size(void)
{
	return struct_size((struct mcs_memcg *)NULL, nodeinfo, nr_node_ids);
}
EXPORT_SYMBOL_NS_GPL(mcs_memcg_struct_size, MCS_NS);

/**
 * mcs_slab_uses_kmalloc() - were the memcg structs allocated with kmalloc?
 *
 * Return: the value of the slab_kmalloc module parameter.
 */
bool mcs_slab_uses_kmalloc(void)
{
	return slab_kmalloc;
}
EXPORT_SYMBOL_NS_GPL(mcs_slab_uses_kmalloc, MCS_NS);

/**
 * mcs_memcg_cache() - the kmem_cache of struct mcs_memcg
 *
 * Return: the cache (it exists whatever slab_kmalloc says).
 */
struct kmem_cache *mcs_memcg_cache(void)
{
	return memcg_cachep;
}
EXPORT_SYMBOL_NS_GPL(mcs_memcg_cache, MCS_NS);

/**
 * mcs_memcg_pn_cache() - the kmem_cache of struct mcs_memcg_per_node
 *
 * Return: the cache (it exists whatever slab_kmalloc says).
 */
struct kmem_cache *mcs_memcg_pn_cache(void)
{
	return memcg_pn_cachep;
}
EXPORT_SYMBOL_NS_GPL(mcs_memcg_pn_cache, MCS_NS);

struct mcs_memcg *mcs_memcg_alloc(void)
{
	if (slab_kmalloc)
		return kzalloc(mcs_memcg_struct_size(), GFP_KERNEL);
	return kmem_cache_zalloc(memcg_cachep, GFP_KERNEL);
}

void mcs_memcg_free(struct mcs_memcg *memcg)
{
	if (slab_kmalloc)
		kfree(memcg);
	else
		kmem_cache_free(memcg_cachep, memcg);
}

struct mcs_memcg_per_node *mcs_memcg_pn_alloc(int nid)
{
	if (slab_kmalloc)
		return kzalloc_node(sizeof(struct mcs_memcg_per_node), GFP_KERNEL, nid);
	return kmem_cache_alloc_node(memcg_pn_cachep, GFP_KERNEL | __GFP_ZERO, nid);
}

void mcs_memcg_pn_free(struct mcs_memcg_per_node *pn)
{
	if (slab_kmalloc)
		kfree(pn);
	else
		kmem_cache_free(memcg_pn_cachep, pn);
}

int mcs_slab_init(void)
{
	memcg_cachep = kmem_cache_create("mcs_memcg", mcs_memcg_struct_size(), 0,
					 SLAB_HWCACHE_ALIGN | SLAB_NO_MERGE, NULL);
	if (!memcg_cachep)
		return -ENOMEM;
	memcg_pn_cachep = kmem_cache_create("mcs_memcg_per_node",
					    sizeof(struct mcs_memcg_per_node), 0,
					    SLAB_HWCACHE_ALIGN | SLAB_NO_MERGE, NULL);
	if (!memcg_pn_cachep) {
		kmem_cache_destroy(memcg_cachep);
		return -ENOMEM;
	}
	return 0;
}

void mcs_slab_exit(void)
{
	kmem_cache_destroy(memcg_pn_cachep);
	kmem_cache_destroy(memcg_cachep);
}
