// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs "kernel_cost": what the kernel's own memcg accounting costs, for
 * `make bench` to print beside this module's figures.  A read measures, in
 * the reader's task, one CPU, migration off:
 *
 *   kmalloc(64, GFP_KERNEL_ACCOUNT) + kfree   minus the same with GFP_KERNEL
 *   alloc_page(GFP_KERNEL_ACCOUNT) + __free_page   minus GFP_KERNEL
 *
 * The difference is the kernel's accounting of that pair: the slab hooks,
 * the objcg lookup, the kernel's own per-CPU stock, the vmstat updates (for
 * a page: the page-granular charge and uncharge).  The loop and the call
 * overhead cancel out.  Each figure is the lowest of KC_BATCHES batches of
 * KC_LOOPS pairs (a timer interrupt inflates a batch, never deflates it),
 * in ns with one decimal; under qemu -icount shift=0 a guest ns is one
 * instruction.
 *
 * The reader must be in a memcg other than the root, with kernel memory
 * accounted (cgroup v2, +memory in the parent's subtree_control): else a
 * GFP_KERNEL_ACCOUNT page carries no memcg, and the read says verdict=FAIL
 * with the reason instead of figures that measure nothing.
 *
 * The line:  kernel_cost size=64 loops=N batches=N kmalloc_account_ns=..
 *   kmalloc_plain_ns=.. kmalloc_accounting_ns=.. page_account_ns=..
 *   page_plain_ns=.. page_accounting_ns=.. verdict=PASS|FAIL [reason=..]
 *
 * Context: process context, sleeps (GFP_KERNEL); the harness claim keeps
 * it from running beside a benchmark or a stress run (-EBUSY).
 */
#include <linux/debugfs.h>
#include <linux/gfp.h>
#include <linux/ktime.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "harness.h"

#define KC_SIZE		64
#define KC_LOOPS	2000
#define KC_BATCHES	5

/* tenths of a ns per pair: the best of KC_BATCHES batches; 0 on failure */
static u64 kc_kmalloc(gfp_t gfp)
{
	u64 best = U64_MAX, t0, t;
	unsigned int r, i;
	void *p;

	for (r = 0; r < KC_BATCHES; r++) {
		t0 = ktime_get_ns();
		for (i = 0; i < KC_LOOPS; i++) {
			p = kmalloc(KC_SIZE, gfp);
			if (!p)
				return 0;
			OPTIMIZER_HIDE_VAR(p);
			kfree(p);
		}
		t = ktime_get_ns() - t0;
		best = min(best, t);
	}
	return best * 10 / KC_LOOPS;
}

static u64 kc_page(gfp_t gfp)
{
	u64 best = U64_MAX, t0, t;
	unsigned int r, i;
	struct page *p;

	for (r = 0; r < KC_BATCHES; r++) {
		t0 = ktime_get_ns();
		for (i = 0; i < KC_LOOPS; i++) {
			p = alloc_page(gfp);
			if (!p)
				return 0;
			OPTIMIZER_HIDE_VAR(p);
			__free_page(p);
		}
		t = ktime_get_ns() - t0;
		best = min(best, t);
	}
	return best * 10 / KC_LOOPS;
}

/* Is a GFP_KERNEL_ACCOUNT page of this task charged to a memcg? */
static bool kc_task_accounted(void)
{
	struct page *p = alloc_page(GFP_KERNEL_ACCOUNT);
	bool ret;

	if (!p)
		return false;
	ret = folio_memcg_kmem(page_folio(p));
	__free_page(p);
	return ret;
}

static void kc_print(struct seq_file *m, const char *key, u64 tenths)
{
	seq_printf(m, " %s=%llu.%llu", key, tenths / 10, tenths % 10);
}

/* a - b, or 0 when the accounted pair came out cheaper (noise) */
static u64 kc_diff(u64 a, u64 b)
{
	return a > b ? a - b : 0;
}

static int kernel_cost_show(struct seq_file *m, void *v)
{
	u64 ka, kp, pa, pp;
	int ret;

	ret = mcs_harness_claim(MCS_USER_BENCH);
	if (ret)
		return ret;
	seq_printf(m, "kernel_cost size=%d loops=%d batches=%d", KC_SIZE, KC_LOOPS, KC_BATCHES);
	if (!kc_task_accounted()) {
		seq_puts(m, " verdict=FAIL reason=task-not-in-an-accounting-memcg\n");
		goto out;
	}
	migrate_disable();
	/* one untimed batch set each first: caches and per-CPU lists warm */
	kc_kmalloc(GFP_KERNEL_ACCOUNT);
	kc_kmalloc(GFP_KERNEL);
	ka = kc_kmalloc(GFP_KERNEL_ACCOUNT);
	kp = kc_kmalloc(GFP_KERNEL);
	kc_page(GFP_KERNEL_ACCOUNT);
	kc_page(GFP_KERNEL);
	pa = kc_page(GFP_KERNEL_ACCOUNT);
	pp = kc_page(GFP_KERNEL);
	migrate_enable();
	if (!ka || !kp || !pa || !pp) {
		seq_puts(m, " verdict=FAIL reason=allocation-failed\n");
		goto out;
	}
	kc_print(m, "kmalloc_account_ns", ka);
	kc_print(m, "kmalloc_plain_ns", kp);
	kc_print(m, "kmalloc_accounting_ns", kc_diff(ka, kp));
	kc_print(m, "page_account_ns", pa);
	kc_print(m, "page_plain_ns", pp);
	kc_print(m, "page_accounting_ns", kc_diff(pa, pp));
	seq_puts(m, " verdict=PASS\n");
out:
	mcs_harness_release(MCS_USER_BENCH);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kernel_cost);

/**
 * mcs_kernel_cost_init() - create the debugfs file "kernel_cost"
 * @dir: the module's debugfs directory
 */
void mcs_kernel_cost_init(struct dentry *dir)
{
	debugfs_create_file("kernel_cost", 0400, dir, NULL, &kernel_cost_fops);
}
