/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Design "percpu-counter" (mode "percpu-counter"): the stock of the 2026
 * series that moves the per-CPU stock into the page counter.  Each memcg
 * has one atomic count of pages per CPU beside its page counter
 * (memcg->counter_stock): a charge takes from this CPU's count with a
 * cmpxchg, an uncharge adds to it, and a count that goes over the batch
 * gives everything back to the counter.  No lock, no slot, no eviction,
 * no drain work: a drain exchanges a count for 0 from any CPU.  Bytes go
 * through the objcg's atomic leftover, as in design "none".
 *
 * Any context, NMI included, on every kernel: only atomics.  The interface
 * of stock_designs.h, implemented in design_percpu_counter.c.
 */
#ifndef MEMCG_STOCK_DESIGN_PERCPU_COUNTER_H
#define MEMCG_STOCK_DESIGN_PERCPU_COUNTER_H

#include "mcs_internal.h"

extern const struct mcs_design mcs_design_percpu_counter;

enum mcs_stock_answer mcs_percpu_counter_pages_take(struct mcs_memcg *memcg,
						    unsigned int nr_pages,
						    enum mcs_stock_mode mode);
void mcs_percpu_counter_pages_put(struct mcs_memcg *memcg, unsigned int nr_pages,
				  enum mcs_stock_mode mode);
bool mcs_percpu_counter_bytes_take(struct mcs_objcg *objcg, unsigned int size, bool account,
				   int nid, enum mcs_slab_item item, enum mcs_stock_mode mode);
unsigned int mcs_percpu_counter_bytes_put(struct mcs_objcg *objcg, unsigned int nr_bytes,
					  bool allow_uncharge, bool account, int acct, int nid,
					  enum mcs_slab_item item, enum mcs_stock_mode mode);

#endif /* MEMCG_STOCK_DESIGN_PERCPU_COUNTER_H */
