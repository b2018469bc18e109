// SPDX-License-Identifier: GPL-2.0
/*
 * Dedicated kmem_caches for struct mcs_memcg and struct mcs_memcg_per_node.
 *
 * Both structs have sizes that kmalloc rounds up to the next power-of-two
 * bucket; a cache of their own stores them at their size rounded only to
 * the cache line (SLAB_HWCACHE_ALIGN).  The "slab" debugfs file reports
 * the bytes this saves per memcg for the running node count.  The module
 * parameter slab_kmalloc=1 allocates both from kmalloc instead, so the two
 * can be compared in one kernel.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/nodemask.h>
#include <linux/overflow.h>

#include "mcs_internal.h"

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
EXPORT_SYMBOL_GPL(mcs_memcg_struct_size);

/**
 * mcs_slab_uses_kmalloc() - were the memcg structs allocated with kmalloc?
 *
 * Return: the value of the slab_kmalloc module parameter.
 */
bool mcs_slab_uses_kmalloc(void)
{
	return slab_kmalloc;
}
EXPORT_SYMBOL_GPL(mcs_slab_uses_kmalloc);

/**
 * mcs_memcg_cache() - the kmem_cache of struct mcs_memcg
 *
 * Return: the cache (it exists whatever slab_kmalloc says).
 */
struct kmem_cache *mcs_memcg_cache(void)
{
	return memcg_cachep;
}
EXPORT_SYMBOL_GPL(mcs_memcg_cache);

/**
 * mcs_memcg_pn_cache() - the kmem_cache of struct mcs_memcg_per_node
 *
 * Return: the cache (it exists whatever slab_kmalloc says).
 */
struct kmem_cache *mcs_memcg_pn_cache(void)
{
	return memcg_pn_cachep;
}
EXPORT_SYMBOL_GPL(mcs_memcg_pn_cache);

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

/* Object stride of a SLAB_HWCACHE_ALIGN cache, as SLUB computes it. */
static size_t hwcache_stride(size_t size)
{
	size_t align = cache_line_size();

	while (size <= align / 2)
		align /= 2;
	align = max_t(size_t, align, sizeof(void *));
	return ALIGN(size, align);
}

static void slab_show_row(struct seq_file *m, const char *name, size_t size,
			  struct kmem_cache *cache)
{
	size_t bucket = kmalloc_size_roundup(size);
	size_t stride = hwcache_stride(size);
	void *obj;
	size_t real = 0;

	/* What the allocator really hands out, when a cache is in use. */
	if (cache) {
		obj = kmem_cache_alloc(cache, GFP_KERNEL);
		if (obj) {
			real = ksize(obj);
			kmem_cache_free(cache, obj);
		}
	}
	seq_printf(m, "%-20s %9zu %14zu %12zu %9zu %9zd\n", name, size, bucket,
		   stride, real, (ssize_t)bucket - (ssize_t)stride);
}

static int slab_show(struct seq_file *m, void *v)
{
	size_t memcg_size = mcs_memcg_struct_size();
	size_t pn_size = sizeof(struct mcs_memcg_per_node);
	ssize_t saved_memcg, saved_pn;

	saved_memcg = kmalloc_size_roundup(memcg_size) - hwcache_stride(memcg_size);
	saved_pn = kmalloc_size_roundup(pn_size) - hwcache_stride(pn_size);

	seq_printf(m, "allocator=%s nr_node_ids=%u cache_line=%u\n",
		   slab_kmalloc ? "kmalloc" : "kmem_cache", nr_node_ids,
		   cache_line_size());
	seq_printf(m, "%-20s %9s %14s %12s %9s %9s\n", "struct", "requested",
		   "kmalloc_bucket", "cache_stride", "ksize", "saved");
	slab_show_row(m, "mcs_memcg", memcg_size, memcg_cachep);
	slab_show_row(m, "mcs_memcg_per_node", pn_size, memcg_pn_cachep);
	seq_printf(m, "per_memcg kmalloc=%zu kmem_cache=%zu saved=%zd (memcg + %u x per_node)\n",
		   kmalloc_size_roundup(memcg_size) +
		   nr_node_ids * kmalloc_size_roundup(pn_size),
		   hwcache_stride(memcg_size) + nr_node_ids * hwcache_stride(pn_size),
		   saved_memcg + (ssize_t)nr_node_ids * saved_pn, nr_node_ids);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(slab);

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
	debugfs_create_file("slab", 0400, mcs_debugfs_root, NULL, &slab_fops);
	return 0;
}

void mcs_slab_exit(void)
{
	kmem_cache_destroy(memcg_pn_cachep);
	kmem_cache_destroy(memcg_cachep);
}
