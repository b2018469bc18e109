/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The orchestration (entry/; memcg_stock.c, compiled as
 * entry/memcg_stock_main.o): what it gives harness/module.c, the harness and
 * the KUnit module beside the public API.
 */
#ifndef MEMCG_STOCK_ORCHESTRATION_H
#define MEMCG_STOCK_ORCHESTRATION_H

#include "objects/counters.h"

/* memcg_stock.c: the benchmark's switches of mode and batch (harness, KUnit) */
int mcs_stock_set_bench_mode(enum mcs_stock_mode mode);
int mcs_stock_set_bench_batch(unsigned int batch);

/* memcg_stock.c: set-up and tear-down of the mechanism (module.c calls) */
int mcs_stock_init(void);
void mcs_stock_exit(void);

#endif /* MEMCG_STOCK_ORCHESTRATION_H */
