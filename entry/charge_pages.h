/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The page entry points (entry/): what charge_pages.c gives the
 * byte entry points beside the public mcs_charge_pages() and
 * mcs_uncharge_pages().
 */
#ifndef MEMCG_STOCK_CHARGE_PAGES_H
#define MEMCG_STOCK_CHARGE_PAGES_H

#include "objects/counters.h"

/* charge_pages.c: pages back through the design of @mode, after its section */
void mcs_uncharge_pages_mode(struct mcs_memcg *memcg, unsigned int nr_pages,
			     enum mcs_stock_mode mode);

#endif /* MEMCG_STOCK_CHARGE_PAGES_H */
