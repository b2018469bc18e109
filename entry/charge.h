/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The byte charges (entry/ and objcg_stock.c): what objcg_stock.c and
 * charge.c declare beside their public functions, for each other and for
 * the KUnit module.
 */
#ifndef MEMCG_STOCK_CHARGE_H
#define MEMCG_STOCK_CHARGE_H

#include "objects/counters.h"

/* objcg_stock.c: pages that a byte put gave back, through @mode's design */
void mcs_objcg_uncharge_pages(struct mcs_objcg *objcg, unsigned int nr_pages,
			      enum mcs_stock_mode mode);

/* charge.c: a test hook (the KUnit misuse cases) */
void mcs_charge_expect_misuse(bool expect);

#endif /* MEMCG_STOCK_CHARGE_H */
