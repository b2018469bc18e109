// SPDX-License-Identifier: GPL-2.0
/*
 * Design "hahn-v6": the per-CPU stock of NR_MEMCG_STOCK slots keyed by
 * page counter (see design_hahn_v6.h, where the take and the put's hit
 * are inline): the rest of the refill, the drains and the dead-CPU drain.
 *
 * Context rules:
 *  - The rest of the refill runs with this CPU's stock locked by the put,
 *    in any context, inside the mode fence that the put checked.
 *  - The drain work takes the blocking local_lock(), in task context only;
 *    the dead-CPU drain takes no lock: nothing runs there.
 */
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/workqueue.h>

#include "design_hahn_v6.h"
#include "objects/trace.h"

DEFINE_PER_CPU_ALIGNED(struct mcs_hahn_v6_stock, mcs_hahn_v6_stock) = {
	.lock = INIT_LOCAL_TRYLOCK(lock),
};

/* for the KUnit module only */
MCS_EXPORT_PER_CPU_NS(mcs_hahn_v6_stock);

/* The memcg whose page counter a slot caches (slots cache ->memory only). */
static struct mcs_memcg *slot_memcg(struct mcs_page_counter *counter)
{
	return container_of(counter, struct mcs_memcg, memory);
}

/* Empty slot @i: its pages go back to the counter, its reference is put. */
static void drain_slot(struct mcs_hahn_v6_stock *stock, int i, int cause)
{
	struct mcs_page_counter *counter = READ_ONCE(stock->cached[i]);
	struct mcs_memcg *old;
	u8 stock_pages;

	if (!counter)
		return;
	old = slot_memcg(counter);
	stock_pages = READ_ONCE(stock->nr_pages[i]);
	trace_mcs_stock_drain(old->id, stock_pages, cause);
	if (stock_pages) {
		mcs_page_counter_uncharge(counter, stock_pages);
		WRITE_ONCE(stock->nr_pages[i], 0);
	}
	mcs_memcg_event(old, MCS_DRAIN);
	WRITE_ONCE(stock->cached[i], NULL);
	mcs_memcg_put(old);
}

static void drain_stock_fully(struct mcs_hahn_v6_stock *stock, int cause)
{
	int i;

	for (i = 0; i < NR_MEMCG_STOCK; i++)
		drain_slot(stock, i, cause);
	/* an empty stock starts afresh: the same history, the same evictions */
	stock->drain_idx = 0;
}

/*
 * The rest of a refill of @nr_pages of @memcg's counter.  @locked: this
 * CPU's stock is locked, the fence checked, and either the counter's slot
 * goes over the batch (the slot is drained whole) or it has no slot: the
 * first empty one, else the round-robin victim's, unless the memcg is
 * offline or the refill is above the batch.  Not @locked: the stock was
 * busy; the pages go to the counter and the failure is counted.
 */
noinline void mcs_hahn_v6_pages_put_slow(struct mcs_memcg *memcg, unsigned int nr_pages,
					 bool locked)
{
	struct mcs_page_counter *counter = &memcg->memory;
	struct mcs_hahn_v6_stock *stock;
	int i, empty = -1;

	if (!locked) {
		mcs_memcg_trylock_fail(memcg, MCS_STOCK_MEMCG);
		goto uncharge;
	}
	mcs_assert_mode_fence();
	stock = this_cpu_ptr(&mcs_hahn_v6_stock);
	for (i = 0; i < NR_MEMCG_STOCK; i++) {
		struct mcs_page_counter *cached = READ_ONCE(stock->cached[i]);

		if (cached == counter) {
			/* slot <= 64 plus refill <= 64 fits a u8 */
			unsigned int total = READ_ONCE(stock->nr_pages[i]) + nr_pages;

			WRITE_ONCE(stock->nr_pages[i], total);
			__mcs_memcg_event(memcg, MCS_REFILL);
			if (total > mcs_batch_now())
				drain_slot(stock, i, MCS_DRAIN_OVERFLOW);
			return;
		}
		if (!cached && empty < 0)
			empty = i;
	}
	/* an offline memcg gets no new slot: its stocks were drained */
	if (!READ_ONCE(memcg->online) || nr_pages > mcs_batch_now())
		goto uncharge;
	if (empty < 0) {
		empty = stock->drain_idx;
		stock->drain_idx = (stock->drain_idx + 1) % NR_MEMCG_STOCK;
		trace_mcs_stock_evict(memcg->id, slot_memcg(stock->cached[empty])->id, empty);
		drain_slot(stock, empty, MCS_DRAIN_EVICT);
	}
	mcs_memcg_get(memcg);
	WRITE_ONCE(stock->nr_pages[empty], nr_pages);
	WRITE_ONCE(stock->cached[empty], counter);
	__mcs_memcg_event(memcg, MCS_REFILL);
	return;

uncharge:
	mcs_page_counter_uncharge(counter, nr_pages);
}

/* Runs on the stock's own CPU, in task context. */
static void drain_local_stock(struct work_struct *work)
{
	struct mcs_hahn_v6_stock *stock = container_of(work, struct mcs_hahn_v6_stock, work);

	if (WARN_ONCE(!in_task(), "memcg_stock: %s in atomic context\n", __func__))
		return;
	local_lock(&mcs_hahn_v6_stock.lock);
	/* run elsewhere because its CPU went down: hotplug drains that one */
	if (stock == this_cpu_ptr(&mcs_hahn_v6_stock))
		drain_stock_fully(stock, MCS_DRAIN_ALL);
	clear_bit(FLUSHING_CACHED_CHARGE, &stock->flags);
	local_unlock(&mcs_hahn_v6_stock.lock);
}

/*
 * Does @cpu's stock cache @root's subtree?  @any_slot: also slots with no
 * pages left (they still hold a reference).
 */
static bool stock_holds(int cpu, struct mcs_memcg *root, bool any_slot)
{
	struct mcs_hahn_v6_stock *stock = per_cpu_ptr(&mcs_hahn_v6_stock, cpu);
	bool ret = false;
	int i;

	rcu_read_lock();
	for (i = 0; i < NR_MEMCG_STOCK; i++) {
		struct mcs_page_counter *counter = READ_ONCE(stock->cached[i]);

		if (counter && (any_slot || READ_ONCE(stock->nr_pages[i])) &&
		    mcs_memcg_is_descendant(slot_memcg(counter), root)) {
			ret = true;
			break;
		}
	}
	rcu_read_unlock();
	return ret;
}

/* @cpu is dead: nothing runs there, no lock needed. */
static void stock_cpu_dead(unsigned int cpu)
{
	struct mcs_hahn_v6_stock *stock = per_cpu_ptr(&mcs_hahn_v6_stock, cpu);

	drain_stock_fully(stock, MCS_DRAIN_HOTPLUG);
	/* a drain queued for it may never run there: let the next one in */
	clear_bit(FLUSHING_CACHED_CHARGE, &stock->flags);
}

/* The slots of @cpu's stock, keyed by a memcg's page counter. */
static void stock_walk(int cpu, mcs_slot_fn fn, void *arg)
{
	struct mcs_hahn_v6_stock *hs = per_cpu_ptr(&mcs_hahn_v6_stock, cpu);
	int i;

	for (i = 0; i < NR_MEMCG_STOCK; i++) {
		struct mcs_page_counter *counter = READ_ONCE(hs->cached[i]);
		struct mcs_memcg *memcg;

		memcg = counter ? container_of(counter, struct mcs_memcg, memory) : NULL;
		mcs_stock_slot_visit(fn, arg, cpu, "hahn_v6", i, false, memcg,
				     READ_ONCE(hs->nr_pages[i]));
	}
}

static const struct mcs_stock_kind hahn_v6_stock_kind =
	MCS_STOCK_KIND(mcs_hahn_v6_stock, struct mcs_hahn_v6_stock, drain_local_stock,
		       stock_holds, stock_cpu_dead, stock_walk);

static const struct mcs_stock_kind *const hahn_v6_kinds[] = {
	&hahn_v6_stock_kind,
	NULL,
};

const struct mcs_design mcs_design_hahn_v6 = {
	.name = "hahn-v6",
	.kinds = hahn_v6_kinds,
	.batches = true,
	.memcgs_per_cpu = NR_MEMCG_STOCK,
};

/* its pages: the section of "decoupled"; its bytes: the objcg's atomic leftover */
const struct mcs_mode_info mcs_mode_hahn_v6 = {
	.group = "series",
	.abbr = "v6",
	.cycles = MCS_CYCLES_TRYLOCK_PAGES "," MCS_CYCLES_OBJCG_ATOMIC,
};
