/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The drains (stocks/): what stock_drain.c gives
 * the set-up and the harness.  mcs_drain_all_stock() is public
 * (memcg_stock.h).
 */
#ifndef MEMCG_STOCK_DRAIN_H
#define MEMCG_STOCK_DRAIN_H

#include <linux/workqueue.h>

#include "objects/counters.h"

/* stock_drain.c: the drains of every design's stocks, CPU hotplug */
extern struct workqueue_struct *mcs_drain_wq;
int mcs_drain_init(void);
void mcs_drain_exit(void);
void mcs_stocks_cpu_dead(unsigned int cpu);
void mcs_drain_note_mode(enum mcs_stock_mode mode);
unsigned long mcs_stock_page_bound(enum mcs_stock_mode mode, unsigned long nr_memcgs);

#endif /* MEMCG_STOCK_DRAIN_H */
