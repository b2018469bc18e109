/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Design "coupled" (modes "coupled" and "coupled-noirq"): one per-CPU stock
 * of one memcg's pages and one objcg's bytes under one local_lock_t taken
 * with IRQs off (preemption off in the control "coupled-noirq").  The
 * interface of stock_designs.h, implemented in design_coupled.c.
 */
#ifndef MEMCG_STOCK_DESIGN_COUPLED_H
#define MEMCG_STOCK_DESIGN_COUPLED_H

#include "mcs_internal.h"

extern const struct mcs_design mcs_design_coupled;

enum mcs_stock_answer mcs_coupled_pages_take(struct mcs_memcg *memcg, unsigned int nr_pages,
					     enum mcs_stock_mode mode);
void mcs_coupled_pages_put(struct mcs_memcg *memcg, unsigned int nr_pages,
			   enum mcs_stock_mode mode);
bool mcs_coupled_bytes_take(struct mcs_objcg *objcg, unsigned int nr_bytes,
			    bool account, int nid, enum mcs_slab_item item,
			    enum mcs_stock_mode mode);
unsigned int mcs_coupled_bytes_put_full(struct mcs_objcg *objcg, unsigned int nr_bytes,
					bool allow_uncharge, bool account, int acct,
					int nid, enum mcs_slab_item item, enum mcs_stock_mode mode);
unsigned int mcs_coupled_bytes_uncharge(struct mcs_objcg *objcg, unsigned int nr_bytes,
					enum mcs_stock_mode mode);

/*
 * The byte put; a plain uncharge (constant arguments once inlined) takes a
 * body specialised for it, as 6.12's refill of a free did.
 */
static __always_inline unsigned int
mcs_coupled_bytes_put(struct mcs_objcg *objcg, unsigned int nr_bytes, bool allow_uncharge,
		      bool account, int acct, int nid, enum mcs_slab_item item,
		      enum mcs_stock_mode mode)
{
	if (__builtin_constant_p(account) && !account &&
	    __builtin_constant_p(allow_uncharge) && allow_uncharge)
		return mcs_coupled_bytes_uncharge(objcg, nr_bytes, mode);
	return mcs_coupled_bytes_put_full(objcg, nr_bytes, allow_uncharge, account, acct,
					  nid, item, mode);
}

/* the lock-free drain of a dead CPU's stock (exported into MCS_NS for KUnit) */
void mcs_coupled_stock_drain_dead(unsigned int cpu);

#endif /* MEMCG_STOCK_DESIGN_COUPLED_H */
