// SPDX-License-Identifier: GPL-2.0
/*
 * Design "hahn-v4": per-counter per-CPU counts whose uncharges bypass them
 * (see design_hahn_v4.h; the take and the put are inline there).
 *
 * Fences.  The only add to a count is the surplus of a batch charged here;
 * it checks, after the add (fully ordered), that the mode is still
 * "hahn-v4" and the memcg still online, and if not, empties the count
 * itself.  The mode switch and the offline store first and drain after a
 * grace period, so no page stays in a count that nobody drains, as in
 * design "percpu-counter".  A take needs no fence: taking from a count
 * that a drain empties is a shortfall.
 *
 * Where this departs from the posting: the count is beside struct
 * mcs_page_counter rather than inside it (our page counter is the public
 * API's, also used without memcgs), the stock is enabled for every memcg
 * but the root, and bytes take the objcg's atomic leftover.
 */
#include <linux/module.h>
#include <linux/percpu.h>

#include "design_hahn_v4.h"
#include "objects/trace.h"

/* Give a count's pages back to the counter; from any CPU. */
static void count_drain(struct mcs_memcg *memcg, atomic_t *count)
{
	int nr_pages = atomic_xchg(count, 0);

	if (nr_pages) {
		mcs_page_counter_uncharge(&memcg->memory, nr_pages);
		trace_mcs_stock_drain(memcg->id, nr_pages, MCS_DRAIN_ALL);
	}
}

/*
 * This CPU's count holds fewer than @nr_pages: charge the counter a batch
 * (within its limits: no reclaim, no force) and keep the surplus in the
 * count.  A hit when the batch was charged (a miss is counted), else a
 * miss, with nothing charged, for the entry point's exact charge (an
 * offline memcg, a batch no larger than the request, a limit).
 */
noinline enum mcs_stock_answer mcs_hahn_v4_charge_batch(struct mcs_memcg *memcg,
							unsigned int nr_pages,
							enum mcs_stock_mode mode)
{
	unsigned int batch = mcs_batch_now();
	struct mcs_page_counter *fail;
	atomic_t *count;
	int total;

	if (batch <= nr_pages || !READ_ONCE(memcg->online))
		return MCS_TAKE_MISS;
	if (!mcs_page_counter_try_charge(&memcg->memory, batch, &fail))
		return MCS_TAKE_MISS;
	mcs_memcg_event(memcg, MCS_STOCK_MISS);
	trace_mcs_charge_slowpath(memcg->id, nr_pages, batch);
	count = raw_cpu_ptr(memcg->counter_stock);
	/* fully ordered: the checks below come after the add */
	total = atomic_add_return(batch - nr_pages, count);
	if (unlikely(!mcs_mode_fence_holds(mode) || !READ_ONCE(memcg->online))) {
		count_drain(memcg, count);
		return MCS_TAKE_HIT;
	}
	mcs_memcg_event(memcg, MCS_REFILL);
	/* other surpluses on this CPU meanwhile (interrupts): keep the bound */
	if (total > (int)batch) {
		count_drain(memcg, count);
		mcs_memcg_event(memcg, MCS_DRAIN);
	}
	return MCS_TAKE_HIT;
}

/* Empty @memcg's count of @cpu, or of every CPU for @cpu < 0. */
static void hahn_v4_drain_memcg(struct mcs_memcg *memcg, int cpu)
{
	if (!memcg->counter_stock)
		return;
	if (cpu >= 0) {
		count_drain(memcg, per_cpu_ptr(memcg->counter_stock, cpu));
		return;
	}
	for_each_possible_cpu(cpu)
		count_drain(memcg, per_cpu_ptr(memcg->counter_stock, cpu));
}

static const struct mcs_stock_kind *const hahn_v4_kinds[] = {
	NULL,
};

const struct mcs_design mcs_design_hahn_v4 = {
	.name = "hahn-v4",
	.kinds = hahn_v4_kinds,
	/* the take charges the batch itself: the entry point charges exactly */
	.batches = false,
	.memcgs_per_cpu = UINT_MAX,
	.drain_memcg = hahn_v4_drain_memcg,
};

/*
 * a cmpxchg to take from this CPU's count and the hit event's preempt
 * pair; the free uncharges the 3 counter levels (memcg, bench parent,
 * root), lines every CPU of the subtree writes
 */
const struct mcs_mode_info mcs_mode_hahn_v4 = {
	.group = "series",
	.abbr = "v4",
	.cycles = "pages:atomic*4+preempt*1,pages-shared:atomic*4+preempt*1+transfer*3,"
		  MCS_CYCLES_OBJCG_ATOMIC,
	/* a free goes to the counter: the count grows from charges only */
	.flags = MCS_MODE_NO_REFILL,
	/* the same per-CPU counts as percpu-counter's */
	.layout = "per-memcg:4",
};
