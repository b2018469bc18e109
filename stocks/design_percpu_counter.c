// SPDX-License-Identifier: GPL-2.0
/*
 * Design "percpu-counter": per-memcg per-CPU counts of pages beside the
 * page counter (see design_percpu_counter.h).
 *
 * The count of a CPU is used by whoever runs there, tasks and interrupts
 * alike, and may be emptied by any CPU's drain: every access is an atomic
 * on it.  A task that migrates between finding its CPU's count and using
 * it uses another CPU's count: still exact, only less local.
 *
 * Fences.  A put adds first, then checks, after a full barrier, that the
 * mode is still "percpu-counter" and the memcg still online; if not, it
 * takes back everything the count holds and uncharges it.  The mode switch
 * and the offline store first and drain after a grace period: either the
 * drain sees what the put added, or the put sees the new state and empties
 * the count itself, so no page stays in a count that nobody drains.  A take
 * needs no fence: taking from a count that a drain empties is a miss.
 *
 * Where this departs from the series as posted (v4): the count is beside
 * struct mcs_page_counter rather than inside it (our page counter is the
 * public API's, also used without memcgs); bytes use the objcg's atomic
 * leftover instead of the obj stock, so that the design stays one
 * lock-free thing and its byte rows measure that choice; and a count that
 * passes the batch is emptied whole, as the decoupled slot is.
 */
#include <linux/module.h>
#include <linux/percpu.h>

#include "design_percpu_counter.h"
#include "objects/trace.h"

/* Give a count's pages back to the counter; from any CPU. */
void mcs_percpu_counter_count_drain(struct mcs_memcg *memcg, atomic_t *count)
{
	int nr_pages = atomic_xchg(count, 0);

	if (nr_pages) {
		mcs_page_counter_uncharge(&memcg->memory, nr_pages);
		trace_mcs_stock_drain(memcg->id, nr_pages, MCS_DRAIN_ALL);
	}
}

enum mcs_stock_answer mcs_percpu_counter_pages_take(struct mcs_memcg *memcg,
						    unsigned int nr_pages,
						    enum mcs_stock_mode mode)
{
	return mcs_percpu_counter_pages_take_fast(memcg, nr_pages, mode);
}

void mcs_percpu_counter_pages_put(struct mcs_memcg *memcg, unsigned int nr_pages,
				  enum mcs_stock_mode mode)
{
	mcs_percpu_counter_pages_put_fast(memcg, nr_pages, mode);
}

bool mcs_percpu_counter_bytes_take(struct mcs_objcg *objcg, unsigned int size, bool account,
				   int nid, enum mcs_slab_item item, enum mcs_stock_mode mode)
{
	return mcs_objcg_atomic_take(objcg, size, account, nid, item);
}

unsigned int mcs_percpu_counter_bytes_put(struct mcs_objcg *objcg, unsigned int nr_bytes,
					  bool allow_uncharge, bool account, int acct, int nid,
					  enum mcs_slab_item item, enum mcs_stock_mode mode)
{
	mcs_objcg_atomic_put(objcg, nr_bytes, account, acct, nid, item);
	return 0;
}

/* Empty @memcg's count of @cpu, or of every CPU for @cpu < 0. */
static void percpu_counter_drain_memcg(struct mcs_memcg *memcg, int cpu)
{
	if (!memcg->counter_stock)
		return;
	if (cpu >= 0) {
		mcs_percpu_counter_count_drain(memcg, per_cpu_ptr(memcg->counter_stock, cpu));
		return;
	}
	for_each_possible_cpu(cpu)
		mcs_percpu_counter_count_drain(memcg, per_cpu_ptr(memcg->counter_stock, cpu));
}

static const struct mcs_stock_kind *const percpu_counter_kinds[] = {
	NULL,
};

const struct mcs_design mcs_design_percpu_counter = {
	.name = "percpu-counter",
	.kinds = percpu_counter_kinds,
	.batches = true,
	.memcgs_per_cpu = UINT_MAX,
	.drain_memcg = percpu_counter_drain_memcg,
};

/*
 * a cmpxchg to take from this CPU's count, an add to give back, and the
 * two events' preempt pairs; the counts are per CPU, so a shared memcg
 * moves no line between CPUs in the steady state
 */
const struct mcs_mode_info mcs_mode_percpu_counter = {
	.group = "decoupled",
	.abbr = "pcpu-cnt",
	.cycles = "pages:atomic*2+preempt*2," MCS_CYCLES_OBJCG_ATOMIC,
	/* an atomic_t per CPU per memcg */
	.layout = "per-memcg:4",
};
