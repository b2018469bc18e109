// SPDX-License-Identifier: GPL-2.0
/*
 * In-module self-checks, triggered through debugfs "selftest".  They prove
 * the basic rules on kernels without KUnit (Debian's prebuilt kernels); the
 * KUnit suites cover the same rules and many more in depth.  Task context.
 */
#include <linux/cpu.h>
#include <linux/seq_buf.h>
#include <linux/workqueue.h>

#include "harness.h"
#include "selfcheck.h"

#define USAGE(c)	mcs_page_counter_read(c)

int mcs_selfcheck_page_counter(struct seq_buf *log)
{
	struct mcs_page_counter root, mid, leaf, *fail;
	struct mcs_check_ctx ctx = { .log = log };

	mcs_page_counter_init(&root, NULL);
	mcs_page_counter_init(&mid, &root);
	mcs_page_counter_init(&leaf, &mid);

	/* charge ignores limits and reaches every level */
	MCS_CHECK(&ctx, mcs_page_counter_set_max(&leaf, 4) == 0, "");
	mcs_page_counter_charge(&leaf, 8);
	MCS_CHECK(&ctx, USAGE(&leaf) == 8 && USAGE(&mid) == 8 && USAGE(&root) == 8,
		  "%lu %lu %lu", USAGE(&leaf), USAGE(&mid), USAGE(&root));
	MCS_CHECK(&ctx, leaf.watermark == 8 && root.watermark == 8, "");

	/* a refused try_charge changes nothing and names the refusing level */
	fail = NULL;
	MCS_CHECK(&ctx, !mcs_page_counter_try_charge(&leaf, 1, &fail), "");
	MCS_CHECK(&ctx, fail == &leaf, "");
	MCS_CHECK(&ctx, USAGE(&leaf) == 8 && USAGE(&mid) == 8 && USAGE(&root) == 8, "");
	MCS_CHECK(&ctx, atomic_long_read(&leaf.failcnt) == 1, "");
	mcs_page_counter_uncharge(&leaf, 8);
	MCS_CHECK(&ctx, USAGE(&leaf) == 0 && USAGE(&mid) == 0 && USAGE(&root) == 0, "");

	/* set_max refuses below usage and keeps the old limit */
	mcs_page_counter_charge(&leaf, 3);
	MCS_CHECK(&ctx, mcs_page_counter_set_max(&mid, 2) == -EBUSY, "");
	MCS_CHECK(&ctx, mid.max == MCS_PAGE_COUNTER_MAX, "");
	MCS_CHECK(&ctx, mcs_page_counter_set_max(&mid, 3) == 0 && mid.max == 3, "");
	mcs_page_counter_uncharge(&leaf, 3);

	/* refusal in the middle rolls the leaf back */
	MCS_CHECK(&ctx, mcs_page_counter_set_max(&leaf, MCS_PAGE_COUNTER_MAX) == 0, "");
	fail = NULL;
	MCS_CHECK(&ctx, !mcs_page_counter_try_charge(&leaf, 5, &fail), "");
	MCS_CHECK(&ctx, fail == &mid, "");
	MCS_CHECK(&ctx, USAGE(&leaf) == 0 && USAGE(&mid) == 0 && USAGE(&root) == 0,
		  "%lu %lu %lu", USAGE(&leaf), USAGE(&mid), USAGE(&root));
	MCS_CHECK(&ctx, atomic_long_read(&mid.failcnt) == 1 &&
		  atomic_long_read(&leaf.failcnt) == 1, "");

	/* success within the limits */
	MCS_CHECK(&ctx, mcs_page_counter_try_charge(&leaf, 3, &fail), "");
	MCS_CHECK(&ctx, USAGE(&leaf) == 3 && USAGE(&mid) == 3 && USAGE(&root) == 3, "");
	mcs_page_counter_uncharge(&leaf, 3);

	/*
	 * No underflow provoked here: it would log a warning and count in
	 * the module-wide diagnostic that every harness user checks.  KUnit's
	 * pc_uncharge_underflow_clamps covers it.
	 */
	return mcs_check_finish(&ctx, "page_counter");
}

static int stock_slot_pages(struct mcs_memcg_stock *stock, struct mcs_memcg *memcg)
{
	int i;

	for (i = 0; i < NR_MEMCG_STOCK; i++)
		if (READ_ONCE(stock->cached[i]) == memcg)
			return READ_ONCE(stock->nr_pages[i]);
	return -1;
}

static long charge_on_cpu(void *arg)
{
	struct mcs_memcg *memcg = arg;

	if (mcs_charge_pages(memcg, GFP_KERNEL, 1))
		return -ENOMEM;
	mcs_uncharge_pages(memcg, 1);
	return 0;
}

static int selfcheck_stock(struct seq_buf *log)
{
	struct mcs_check_ctx ctx = { .log = log };
	struct mcs_memcg_stock *stock;
	struct mcs_memcg_stat stat;
	struct mcs_memcg *memcg;
	int cpu, held;

	memcg = mcs_memcg_create(NULL, "selfcheck");
	if (IS_ERR(memcg)) {
		seq_buf_printf(log, "stock: cannot create memcg: %ld\n", PTR_ERR(memcg));
		return PTR_ERR(memcg);
	}

	/* miss, batch, surplus in one slot, then a hit - all on one CPU */
	migrate_disable();
	stock = this_cpu_ptr(&mcs_memcg_stock);
	MCS_CHECK(&ctx, mcs_charge_pages(memcg, GFP_NOWAIT, 1) == 0, "");
	MCS_CHECK(&ctx, mcs_memcg_usage(memcg) == MCS_CHARGE_BATCH, "%lu",
		  mcs_memcg_usage(memcg));
	MCS_CHECK(&ctx, stock_slot_pages(stock, memcg) == MCS_CHARGE_BATCH - 1, "%d",
		  stock_slot_pages(stock, memcg));
	MCS_CHECK(&ctx, mcs_charge_pages(memcg, GFP_NOWAIT, 1) == 0, "");
	MCS_CHECK(&ctx, mcs_memcg_usage(memcg) == MCS_CHARGE_BATCH, "");
	MCS_CHECK(&ctx, stock_slot_pages(stock, memcg) == MCS_CHARGE_BATCH - 2, "");
	mcs_uncharge_pages(memcg, 2);
	MCS_CHECK(&ctx, stock_slot_pages(stock, memcg) == MCS_CHARGE_BATCH, "");
	migrate_enable();
	mcs_memcg_stat(memcg, &stat);
	MCS_CHECK(&ctx, stat.events[MCS_STOCK_HIT] == 1 && stat.events[MCS_STOCK_MISS] == 1,
		  "hit=%lu miss=%lu", stat.events[MCS_STOCK_HIT],
		  stat.events[MCS_STOCK_MISS]);

	/* every online CPU caches the memcg; a sync drain empties them all */
	cpus_read_lock();
	for_each_online_cpu(cpu)
		MCS_CHECK(&ctx, work_on_cpu(cpu, charge_on_cpu, memcg) == 0, "cpu %d", cpu);
	held = 0;
	for_each_online_cpu(cpu)
		held += stock_slot_pages(per_cpu_ptr(&mcs_memcg_stock, cpu), memcg) > 0;
	cpus_read_unlock();
	MCS_CHECK(&ctx, held == num_online_cpus(), "held=%d", held);
	MCS_CHECK(&ctx, refcount_read(&memcg->refcnt) == 1 + held, "");

	mcs_drain_all_stock(memcg, true);
	MCS_CHECK(&ctx, mcs_memcg_usage(memcg) == 0, "%lu", mcs_memcg_usage(memcg));
	MCS_CHECK(&ctx, refcount_read(&memcg->refcnt) == 1, "%u",
		  refcount_read(&memcg->refcnt));
	for_each_possible_cpu(cpu)
		MCS_CHECK(&ctx, stock_slot_pages(per_cpu_ptr(&mcs_memcg_stock, cpu), memcg) < 0,
			  "cpu %d", cpu);

	mcs_memcg_offline(memcg);
	mcs_memcg_put(memcg);
	return mcs_check_finish(&ctx, "stock");
}

/*
 * The check of the decoupled page stock at the default batch: a module
 * loaded with a smaller charge_batch runs it at MCS_CHARGE_BATCH and gets
 * its own batch back afterwards (the harness claim keeps the benchmark,
 * the only other user of the switch, away meanwhile).
 */
int mcs_selfcheck_stock(struct seq_buf *log)
{
	unsigned int batch = mcs_charge_batch();
	int ret;

	if (batch != MCS_CHARGE_BATCH)
		mcs_stock_set_bench_batch(MCS_CHARGE_BATCH);
	ret = selfcheck_stock(log);
	if (batch != MCS_CHARGE_BATCH)
		mcs_stock_set_bench_batch(batch);
	return ret;
}
