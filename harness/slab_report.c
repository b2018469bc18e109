// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs "slab": the footprint of one memcg with kmalloc and with the
 * dedicated kmem_caches of slab_caches.c, for this machine's node count
 * (seed 002's table), and the per-CPU bytes that every memcg but the root
 * carries for design percpu-counter.  Part of the harness: it only reads.
 */
#include <linux/debugfs.h>
#include <linux/nodemask.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "harness.h"

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
		   mcs_slab_uses_kmalloc() ? "kmalloc" : "kmem_cache", nr_node_ids,
		   cache_line_size());
	seq_printf(m, "%-20s %9s %14s %12s %9s %9s\n", "struct", "requested",
		   "kmalloc_bucket", "cache_stride", "ksize", "saved");
	slab_show_row(m, "mcs_memcg", memcg_size, mcs_memcg_cache());
	slab_show_row(m, "mcs_memcg_per_node", pn_size, mcs_memcg_pn_cache());
	seq_printf(m, "per_memcg kmalloc=%zu kmem_cache=%zu saved=%zd (memcg + %u x per_node)\n",
		   kmalloc_size_roundup(memcg_size) +
		   nr_node_ids * kmalloc_size_roundup(pn_size),
		   hwcache_stride(memcg_size) + nr_node_ids * hwcache_stride(pn_size),
		   saved_memcg + (ssize_t)nr_node_ids * saved_pn, nr_node_ids);
	/* the per-CPU stock of design percpu-counter, allocated with each memcg */
	seq_printf(m, "per_memcg_per_cpu counter_stock=%zu possible_cpus=%u total=%zu\n",
		   sizeof(atomic_t), num_possible_cpus(),
		   sizeof(atomic_t) * num_possible_cpus());
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(slab);

/**
 * mcs_slab_report_init() - create the debugfs file "slab"
 * @dir: the module's debugfs directory
 */
void mcs_slab_report_init(struct dentry *dir)
{
	debugfs_create_file("slab", 0400, dir, NULL, &slab_fops);
}
