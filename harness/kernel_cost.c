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
 * Beside them, three of the kernel's own pairs, each less the same loop
 * calling two empty functions of the same types the same way (the loop
 * and the call overhead: all go through function pointers, since the
 * kernel exports none of them; compat.h finds them by name), timed with
 * migration on (kc_measure()):
 *
 *   pc:    page_counter_try_charge() + page_counter_uncharge() of one page
 *          on a chain of KC_PC_LEVELS counters (root, parent, leaf;
 *          protection tracked, as cgroup v2 does): the floor a control
 *          without a stock can reach;
 *   obj:   obj_cgroup_charge(objcg, GFP_KERNEL, KC_SIZE) +
 *          obj_cgroup_uncharge(objcg, KC_SIZE) on the objcg of the reader's
 *          memcg, the stock warm: the kernel's obj stock pair;
 *   skmem: the socket memory charge + uncharge of one page to the memcg
 *          of the reader's mm (mem_cgroup_charge_skmem(), or its 7.x
 *          successor mem_cgroup_sk_charge() on a stand-in socket), the
 *          stock warm: the kernel's page stock pair, with its two vmstat
 *          updates.
 *
 * The reader must be in a memcg other than the root, with kernel memory
 * accounted (cgroup v2, +memory in the parent's subtree_control): else a
 * GFP_KERNEL_ACCOUNT page carries no memcg, and the read says verdict=FAIL
 * with the reason instead of figures that measure nothing.
 *
 * The line:  kernel_cost size=64 loops=N batches=N kmalloc_account_ns=..
 *   kmalloc_plain_ns=.. kmalloc_accounting_ns=.. page_account_ns=..
 *   page_plain_ns=.. page_accounting_ns=.. pc_levels=3 pc_pair_ns=..
 *   pc_call_ns=.. pc_net_ns=.. obj_size=64 obj_pair_ns=.. obj_call_ns=..
 *   obj_net_ns=.. skmem_pages=1 skmem_fn=NAME skmem_pair_ns=..
 *   skmem_call_ns=.. skmem_net_ns=.. verdict=PASS|FAIL [reason=..]
 * (_pair: the kernel's pair, _call: the empty pair, _net: the difference).
 * Where a pair cannot be measured, "KEY=unsupported KEY_reason=WHY" stands
 * for its keys (KEY pc, obj or skmem), WHY one of no-kprobe-lookup (no
 * kprobes, not x86-64, kCFI), no-symbol, ibt-sealed (IBT enforced and the
 * function never called indirectly), allocation-failed, charge-refused,
 * no-objcg, no-memcg, root-memcg (the memcg of the reader's mm, which the
 * socket pair would charge, is the root: its owner is another process, in
 * the root cgroup), no-socket-memcg; a size or level key printed before
 * the failure stays.
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
#include <linux/string.h>
#include <net/sock.h>

#include "harness.h"

#define KC_SIZE		64
#define KC_LOOPS	2000
#define KC_BATCHES	5
/* the most pairs one write runs, and its longest line */
#define KC_RUN_MAX	1000000
#define KC_LINE_MAX	64

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

/*
 * A kernel pair to time: its charge and uncharge functions (the kernel's,
 * found by name, or the empty ones of the same type) and what they charge.
 */
struct kc_call {
	void *charge;
	void *uncharge;
	void *target;
};

/* One charge and one uncharge through the pointers; false: refused. */
typedef bool (*kc_pair_fn)(void *charge, void *uncharge, void *target);

/*
 * Tenths of a ns per pair of @c, the best of @batches batches of @loops; 0 on a
 * refusal.  Inlined into one timer per kind, so that @pair is inlined
 * too: the loop calls the two functions through pointers, nothing else.
 */
static __always_inline u64 kc_time(kc_pair_fn pair, const struct kc_call *c,
				   unsigned int batches, unsigned int loops)
{
	void *charge = c->charge, *uncharge = c->uncharge, *target = c->target;
	u64 best = U64_MAX, t0, t;
	unsigned int r, i;

	for (r = 0; r < batches; r++) {
		t0 = ktime_get_ns();
		for (i = 0; i < loops; i++) {
			OPTIMIZER_HIDE_VAR(charge);
			OPTIMIZER_HIDE_VAR(uncharge);
			if (!pair(charge, uncharge, target))
				return 0;
		}
		t = ktime_get_ns() - t0;
		best = min(best, t);
	}
	return best * 10 / loops;
}

/* page_counter_try_charge() + page_counter_uncharge() of one page */
typedef bool (*kc_pc_charge_fn)(struct page_counter *counter, unsigned long nr_pages,
				struct page_counter **fail);
typedef void (*kc_pc_uncharge_fn)(struct page_counter *counter, unsigned long nr_pages);

static __always_inline bool kc_pc_pair(void *charge, void *uncharge, void *target)
{
	struct page_counter *fail;

	if (!((kc_pc_charge_fn)charge)(target, 1, &fail))
		return false;
	((kc_pc_uncharge_fn)uncharge)(target, 1);
	return true;
}

static noinline u64 kc_pc_time(const struct kc_call *c, unsigned int batches,
			       unsigned int loops)
{
	return kc_time(kc_pc_pair, c, batches, loops);
}

static noinline bool kc_empty_pc_charge(struct page_counter *counter, unsigned long nr_pages,
					struct page_counter **fail)
{
	OPTIMIZER_HIDE_VAR(counter);
	return counter;
}

static noinline void kc_empty_pc_uncharge(struct page_counter *counter, unsigned long nr_pages)
{
	OPTIMIZER_HIDE_VAR(counter);
}

/* obj_cgroup_charge(objcg, GFP_KERNEL, KC_SIZE) + obj_cgroup_uncharge(objcg, KC_SIZE) */
typedef int (*kc_obj_charge_fn)(struct obj_cgroup *objcg, gfp_t gfp, size_t size);
typedef void (*kc_obj_uncharge_fn)(struct obj_cgroup *objcg, size_t size);
typedef struct obj_cgroup *(*kc_objcg_of_fn)(struct folio *folio);

static __always_inline bool kc_obj_pair(void *charge, void *uncharge, void *target)
{
	if (((kc_obj_charge_fn)charge)(target, GFP_KERNEL, KC_SIZE))
		return false;
	((kc_obj_uncharge_fn)uncharge)(target, KC_SIZE);
	return true;
}

static noinline u64 kc_obj_time(const struct kc_call *c, unsigned int batches,
				unsigned int loops)
{
	return kc_time(kc_obj_pair, c, batches, loops);
}

static noinline int kc_empty_obj_charge(struct obj_cgroup *objcg, gfp_t gfp, size_t size)
{
	OPTIMIZER_HIDE_VAR(objcg);
	return !objcg;
}

static noinline void kc_empty_obj_uncharge(struct obj_cgroup *objcg, size_t size)
{
	OPTIMIZER_HIDE_VAR(objcg);
}

/*
 * The socket pair of one page (compat.h: a memcg, or a socket whose
 * sk_memcg is set, as the first argument)
 */
typedef bool (*kc_skmem_charge_fn)(void *target, unsigned int nr_pages, gfp_t gfp);
typedef void (*kc_skmem_uncharge_fn)(void *target, unsigned int nr_pages);

static __always_inline bool kc_skmem_pair(void *charge, void *uncharge, void *target)
{
	if (!((kc_skmem_charge_fn)charge)(target, 1, GFP_KERNEL))
		return false;
	((kc_skmem_uncharge_fn)uncharge)(target, 1);
	return true;
}

static noinline u64 kc_skmem_time(const struct kc_call *c, unsigned int batches,
				  unsigned int loops)
{
	return kc_time(kc_skmem_pair, c, batches, loops);
}

static noinline bool kc_empty_skmem_charge(void *target, unsigned int nr_pages, gfp_t gfp)
{
	OPTIMIZER_HIDE_VAR(target);
	return target;
}

static noinline void kc_empty_skmem_uncharge(void *target, unsigned int nr_pages)
{
	OPTIMIZER_HIDE_VAR(target);
}

/*
 * Why a pair is not run because of the memcg it would charge (a write
 * refuses those with MCS_ERR_KCOST_MEMCG): the reader's pages carry none
 * (its memcg is the root, or kernel memory is not accounted), or the
 * socket pair's memcg is the root.
 */
static const char kc_not_accounted[] = "task-not-in-an-accounting-memcg";
static const char kc_no_objcg[] = "no-objcg";
static const char kc_root_memcg[] = "root-memcg";

static bool kc_memcg_refusal(const char *why)
{
	return why == kc_not_accounted || why == kc_no_objcg || why == kc_root_memcg;
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

/* @name's entry into *@fn; NULL, or why it cannot be called from here */
static const char *kc_find(void **fn, const char *name)
{
	void *f = mcs_compat_kernel_function(name);

	if (!IS_ERR(f)) {
		*fn = f;
		return NULL;
	}
	switch (PTR_ERR(f)) {
	case -EPERM:
		return "ibt-sealed";
	case -ENOENT:
		return "no-symbol";
	default:
		return "no-kprobe-lookup";
	}
}

/* The kernel's pair @charge + @uncharge into @c; NULL, or why not */
static const char *kc_find_pair(struct kc_call *c, const char *charge, const char *uncharge)
{
	return kc_find(&c->charge, charge) ?: kc_find(&c->uncharge, uncharge);
}

/* A timer of kc_time() for one kind of pair. */
typedef u64 (*kc_time_fn)(const struct kc_call *c, unsigned int batches, unsigned int loops);

/*
 * Times @real and @empty (the same pair with the empty functions), one
 * untimed round each first, and prints KEY_pair_ns, KEY_call_ns and
 * KEY_net_ns; NULL, or why there are no figures.  Migration stays on: on
 * PREEMPT_RT the kernel's stock lock disables migration itself, which
 * costs less nested in an outer migrate_disable(), and the clients of
 * this module's bench, bound kthreads, have none either.  A migration
 * costs the batch it lands in, not the best of them.
 */
static const char *kc_measure(struct seq_file *m, const char *key, kc_time_fn time,
			      const struct kc_call *real, const struct kc_call *empty)
{
	char name[24];
	u64 pair, call;

	time(real, KC_BATCHES, KC_LOOPS);
	pair = time(real, KC_BATCHES, KC_LOOPS);
	time(empty, KC_BATCHES, KC_LOOPS);
	call = time(empty, KC_BATCHES, KC_LOOPS);
	if (!pair || !call)
		return "charge-refused";
	snprintf(name, sizeof(name), "%s_pair_ns", key);
	kc_print(m, name, pair);
	snprintf(name, sizeof(name), "%s_call_ns", key);
	kc_print(m, name, call);
	snprintf(name, sizeof(name), "%s_net_ns", key);
	kc_print(m, name, kc_diff(pair, call));
	return NULL;
}

/*
 * With @run, only runs @real @run times, untimed (a write); else
 * kc_measure().
 */
static const char *kc_measure_or_run(struct seq_file *m, const char *key, kc_time_fn time,
				     const struct kc_call *real, const struct kc_call *empty,
				     unsigned int run)
{
	if (run)
		return time(real, 1, run) ? NULL : "charge-refused";
	return kc_measure(m, key, time, real, empty);
}

static void kc_unsupported(struct seq_file *m, const char *key, const char *why)
{
	if (m && why)
		seq_printf(m, " %s=unsupported %s_reason=%s", key, key, why);
}

/*
 * The kernel's page counter pair on a chain of KC_PC_LEVELS counters:
 * measured into @m, or run @run times (@m NULL); NULL, or why not.
 */
static const char *kc_page_counter(struct seq_file *m, unsigned int run)
{
	struct kc_call real, empty = { kc_empty_pc_charge, kc_empty_pc_uncharge };
	struct page_counter *pc;
	const char *why;
	int i;

	why = kc_find_pair(&real, "page_counter_try_charge", "page_counter_uncharge");
	if (why)
		goto out;
	pc = kcalloc(KC_PC_LEVELS, sizeof(*pc), GFP_KERNEL);
	why = "allocation-failed";
	if (!pc)
		goto out;
	for (i = 0; i < KC_PC_LEVELS; i++)
		mcs_compat_page_counter_init(&pc[i], i ? &pc[i - 1] : NULL);
	real.target = &pc[KC_PC_LEVELS - 1];
	empty.target = real.target;
	if (m)
		seq_printf(m, " pc_levels=%d", KC_PC_LEVELS);
	why = kc_measure_or_run(m, "pc", kc_pc_time, &real, &empty, run);
	kfree(pc);
out:
	kc_unsupported(m, "pc", why);
	return why;
}

/*
 * The kernel's obj stock pair on the objcg of the reader's memcg: the
 * objcg of a GFP_KERNEL_ACCOUNT page (get_obj_cgroup_from_folio() takes
 * a reference), the one the kernel's own kmalloc charges.  As
 * kc_page_counter().
 */
static const char *kc_obj_stock(struct seq_file *m, unsigned int run)
{
	struct kc_call real, empty = { kc_empty_obj_charge, kc_empty_obj_uncharge };
	struct obj_cgroup *objcg;
	void *objcg_of;
	struct page *p;
	const char *why;

	why = kc_find_pair(&real, "obj_cgroup_charge", "obj_cgroup_uncharge") ?:
	      kc_find(&objcg_of, "get_obj_cgroup_from_folio");
	if (why)
		goto out;
	p = alloc_page(GFP_KERNEL_ACCOUNT);
	why = "allocation-failed";
	if (!p)
		goto out;
	objcg = ((kc_objcg_of_fn)objcg_of)(page_folio(p));
	__free_page(p);
	why = kc_no_objcg;
	if (!objcg)
		goto out;
	real.target = objcg;
	empty.target = objcg;
	if (m)
		seq_printf(m, " obj_size=%d", KC_SIZE);
	why = kc_measure_or_run(m, "obj", kc_obj_time, &real, &empty, run);
	obj_cgroup_put(objcg);
out:
	kc_unsupported(m, "obj", why);
	return why;
}

/*
 * Why the socket pair must not charge @memcg, or NULL: there is none
 * (memory cgroups off), or it is the root, whose charge charges nothing
 * (the kernel's try_charge() skips the root) while the uncharge refills
 * the root's stock, whose drain then takes pages never charged off the
 * root's counter.  The root is the memcg without a parent (the kernel
 * does not export root_mem_cgroup).
 */
static const char *kc_skmem_memcg_why(struct mem_cgroup *memcg)
{
	if (!memcg)
		return "no-memcg";
	if (!parent_mem_cgroup(memcg))
		return kc_root_memcg;
	return NULL;
}

/*
 * The kernel's page stock pair: the socket memory charge and uncharge of
 * one page to the memcg of the reader's mm (its stock, the vmstat of
 * socket memory).  That memcg is its owner's, which need not be the
 * reader's own that kc_task_accounted() checks: a process that shares its
 * mm with another (clone(CLONE_VM) without CLONE_THREAD), or a thread
 * under cgroup v1, may sit in a memcg of its own while the owner is in the
 * root.  So the memcg is taken once, checked, and charged: no later move
 * of either task changes which memcg the pair charges.  As
 * kc_page_counter().
 */
static const char *kc_page_stock(struct seq_file *m, unsigned int run)
{
	struct kc_call real, empty = { kc_empty_skmem_charge, kc_empty_skmem_uncharge };
	const char *fn = MCS_SKMEM_CHARGE, *why;
	struct mem_cgroup *memcg;
	struct sock *sk = NULL;
	bool by_socket = false;

	why = kc_find_pair(&real, MCS_SKMEM_CHARGE, MCS_SKMEM_UNCHARGE);
	if (why && !strcmp(why, "no-symbol")) {
		fn = MCS_SKMEM_SK_CHARGE;
		by_socket = true;
		why = kc_find_pair(&real, MCS_SKMEM_SK_CHARGE, MCS_SKMEM_SK_UNCHARGE);
	}
	if (why)
		goto out;
	memcg = get_mem_cgroup_from_mm(current->mm);
	why = kc_skmem_memcg_why(memcg);
	if (why)
		goto put;
	real.target = memcg;
	if (by_socket) {
		sk = kzalloc_obj(*sk, GFP_KERNEL);
		why = sk ? "no-socket-memcg" : "allocation-failed";
		if (!sk || !mcs_compat_sock_set_memcg(sk, memcg))
			goto put;
		real.target = sk;
	}
	empty.target = real.target;
	if (m)
		seq_printf(m, " skmem_pages=1 skmem_fn=%s", fn);
	why = kc_measure_or_run(m, "skmem", kc_skmem_time, &real, &empty, run);
put:
	kfree(sk);
	mem_cgroup_put(memcg);
out:
	kc_unsupported(m, "skmem", why);
	return why;
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
		seq_printf(m, " verdict=FAIL reason=%s\n", kc_not_accounted);
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
	kc_page_counter(m, 0);
	kc_obj_stock(m, 0);
	kc_page_stock(m, 0);
	seq_puts(m, " verdict=PASS\n");
out:
	mcs_harness_release(MCS_USER_BENCH);
	return 0;
}

/* The pairs a write may run, in the order of kc_run[]. */
enum { KC_PAIR_PC, KC_PAIR_OBJ, KC_PAIR_SKMEM };
static const char * const kc_pair_names[] = { "pc", "obj", "skmem" };
static const char *(*const kc_run[])(struct seq_file *m, unsigned int run) = {
	kc_page_counter, kc_obj_stock, kc_page_stock,
};

enum { KC_KEY_PAIR, KC_KEY_LOOPS, NR_KC_KEYS };
static const char * const kc_keys[NR_KC_KEYS] = { "pair", "loops" };

/*
 * A write "pair=pc|obj|skmem [loops=1..KC_RUN_MAX]" runs that pair of the
 * kernel's @loops (KC_LOOPS) times in the writer's task, untimed, and
 * nothing else: `make bench-profile` counts the instructions of two such
 * writes and takes the difference.  Strict as every write (parse.c): an
 * unknown or repeated key, a missing pair or a number out of range is
 * -EINVAL and runs nothing; a pair the kernel does not let us call is
 * -EOPNOTSUPP (a read says why); so is a pair that would charge the root
 * memcg or none, with a message of its own: the obj and skmem pairs need
 * the writer in an accounting memcg, as a read does, and the skmem pair
 * the owner of its mm too; -EBUSY while a benchmark or stress run holds
 * the harness.
 */
static ssize_t kernel_cost_write(struct file *file, const char __user *ubuf, size_t count,
				 loff_t *ppos)
{
	unsigned int loops = KC_LOOPS;
	unsigned long seen = 0;
	char *line, *tok, *key, *val;
	const char *why;
	struct mcs_input in;
	int k, pair = -1, ret;

	ret = mcs_input_copy(&in, "kernel_cost", ubuf, count, KC_LINE_MAX, false);
	if (ret)
		return ret;
	line = in.buf;
	while ((tok = mcs_input_next(&line)) != NULL) {
		ret = mcs_input_kv(&in, tok, &key, &val);
		if (ret)
			goto out;
		k = mcs_input_key(&in, key, kc_keys, NR_KC_KEYS);
		ret = k;
		if (k < 0)
			goto out;
		ret = -EINVAL;
		if (seen & BIT(k)) {
			mcs_input_error(&in, MCS_ERR_TWICE, key, ret);
			goto out;
		}
		seen |= BIT(k);
		if (k == KC_KEY_PAIR) {
			ret = mcs_input_match(&in, val, kc_pair_names, ARRAY_SIZE(kc_pair_names));
			pair = ret;
		} else {
			ret = mcs_input_uint(&in, val, 1, KC_RUN_MAX, false, &loops);
		}
		if (ret < 0)
			goto out;
	}
	ret = -EINVAL;
	if (pair < 0) {
		mcs_input_error(&in, MCS_ERR_KCOST_PAIR, NULL, ret);
		goto out;
	}
	ret = mcs_harness_claim_write(&in, MCS_USER_BENCH);
	if (ret)
		goto out;
	/*
	 * As a read: the stock pairs charge the writer's memcg, which must not
	 * be the root; the socket pair checks the memcg it charges itself
	 * (kc_page_stock()).
	 */
	if (pair != KC_PAIR_PC && !kc_task_accounted())
		why = kc_not_accounted;
	else
		why = kc_run[pair](NULL, loops);
	mcs_harness_release(MCS_USER_BENCH);
	ret = 0;
	if (why)
		ret = mcs_input_error(&in, kc_memcg_refusal(why) ? MCS_ERR_KCOST_MEMCG :
				      MCS_ERR_KCOST_UNAVAILABLE, NULL, -EOPNOTSUPP);
out:
	mcs_input_free(&in);
	return ret < 0 ? ret : count;
}

static int kernel_cost_open(struct inode *inode, struct file *file)
{
	return single_open(file, kernel_cost_show, inode->i_private);
}

static const struct file_operations kernel_cost_fops = {
	.owner = THIS_MODULE,
	.open = kernel_cost_open,
	.read = seq_read,
	.write = kernel_cost_write,
	.llseek = seq_lseek,
	.release = single_release,
};

/**
 * mcs_kernel_cost_init() - create the debugfs file "kernel_cost"
 * @dir: the module's debugfs directory
 */
void mcs_kernel_cost_init(struct dentry *dir)
{
	debugfs_create_file("kernel_cost", 0600, dir, NULL, &kernel_cost_fops);
}
