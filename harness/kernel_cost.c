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
 * Beside them, the floor a control without a stock can reach: the kernel's
 * own page_counter_try_charge() + page_counter_uncharge() of one page on a
 * chain of KC_PC_LEVELS counters (root, parent, leaf; protection tracked,
 * as cgroup v2 does), minus the same loop calling two empty functions the
 * same way (the call overhead: both go through function pointers, since
 * the kernel exports neither function; compat.h finds them).
 *
 * The reader must be in a memcg other than the root, with kernel memory
 * accounted (cgroup v2, +memory in the parent's subtree_control): else a
 * GFP_KERNEL_ACCOUNT page carries no memcg, and the read says verdict=FAIL
 * with the reason instead of figures that measure nothing.
 *
 * The line:  kernel_cost size=64 loops=N batches=N kmalloc_account_ns=..
 *   kmalloc_plain_ns=.. kmalloc_accounting_ns=.. page_account_ns=..
 *   page_plain_ns=.. page_accounting_ns=.. pc_levels=3 pc_pair_ns=..
 *   pc_call_ns=.. pc_net_ns=.. verdict=PASS|FAIL [reason=..]
 * where the kernel's page counter cannot be called (no kprobes, not
 * x86-64, kCFI, a sealed function under IBT), "pc=unsupported
 * pc_reason=no-kprobe-lookup|no-symbol|ibt-sealed|..." stands for the four
 * pc_ keys.
 *
 * Context: process context, sleeps (GFP_KERNEL); the harness claim keeps
 * it from running beside a benchmark or a stress run (-EBUSY).
 */
#include <linux/debugfs.h>
#include <linux/gfp.h>
#include <linux/ktime.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/page_counter.h>
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

#define KC_PC_LEVELS	3

typedef bool (*kc_try_charge_fn)(struct page_counter *counter, unsigned long nr_pages,
				 struct page_counter **fail);
typedef void (*kc_uncharge_fn)(struct page_counter *counter, unsigned long nr_pages);

/* The empty pair: what the loop and two calls through pointers cost. */
static noinline bool kc_empty_try_charge(struct page_counter *counter, unsigned long nr_pages,
					 struct page_counter **fail)
{
	OPTIMIZER_HIDE_VAR(counter);
	return counter;
}

static noinline void kc_empty_uncharge(struct page_counter *counter, unsigned long nr_pages)
{
	OPTIMIZER_HIDE_VAR(counter);
}

/* tenths of a ns per charge+uncharge pair of one page on @leaf; 0 on failure */
static u64 kc_pc_pairs(kc_try_charge_fn try_charge, kc_uncharge_fn uncharge,
		       struct page_counter *leaf)
{
	u64 best = U64_MAX, t0, t;
	struct page_counter *fail;
	unsigned int r, i;

	for (r = 0; r < KC_BATCHES; r++) {
		t0 = ktime_get_ns();
		for (i = 0; i < KC_LOOPS; i++) {
			OPTIMIZER_HIDE_VAR(try_charge);
			OPTIMIZER_HIDE_VAR(uncharge);
			if (!try_charge(leaf, 1, &fail))
				return 0;
			uncharge(leaf, 1);
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

/* The kernel's page counter pair, or why it cannot be measured here. */
static void kc_page_counter(struct seq_file *m)
{
	struct page_counter *pc, *leaf;
	kc_try_charge_fn try_charge;
	kc_uncharge_fn uncharge;
	const char *why = NULL;
	u64 pair = 0, call = 0;
	void *t, *u;
	int i, err;

	t = mcs_compat_kernel_function("page_counter_try_charge");
	u = mcs_compat_kernel_function("page_counter_uncharge");
	err = IS_ERR(t) ? PTR_ERR(t) : IS_ERR(u) ? PTR_ERR(u) : 0;
	if (err) {
		why = err == -EPERM ? "ibt-sealed" : err == -ENOENT ? "no-symbol" :
		      "no-kprobe-lookup";
		goto out;
	}
	pc = kcalloc(KC_PC_LEVELS, sizeof(*pc), GFP_KERNEL);
	why = "allocation-failed";
	if (!pc)
		goto out;
	for (i = 0; i < KC_PC_LEVELS; i++)
		mcs_compat_page_counter_init(&pc[i], i ? &pc[i - 1] : NULL);
	leaf = &pc[KC_PC_LEVELS - 1];
	try_charge = t;
	uncharge = u;
	/* one untimed round each first, as for the pairs above */
	migrate_disable();
	kc_pc_pairs(try_charge, uncharge, leaf);
	pair = kc_pc_pairs(try_charge, uncharge, leaf);
	kc_pc_pairs(kc_empty_try_charge, kc_empty_uncharge, leaf);
	call = kc_pc_pairs(kc_empty_try_charge, kc_empty_uncharge, leaf);
	migrate_enable();
	kfree(pc);
	why = pair && call ? NULL : "charge-refused";
out:
	if (why) {
		seq_printf(m, " pc=unsupported pc_reason=%s", why);
		return;
	}
	seq_printf(m, " pc_levels=%d", KC_PC_LEVELS);
	kc_print(m, "pc_pair_ns", pair);
	kc_print(m, "pc_call_ns", call);
	kc_print(m, "pc_net_ns", kc_diff(pair, call));
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
	kc_page_counter(m);
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
