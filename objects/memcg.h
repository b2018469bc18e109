/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The memcg tree's header (objects/, the bottom layer): what memcg.c gives
 * the layers above.  The memcg's layout is in counters.h, below the
 * objcgs, which read it.
 */
#ifndef MEMCG_STOCK_MEMCG_H
#define MEMCG_STOCK_MEMCG_H

#include "counters.h"

bool mcs_memcg_is_descendant(struct mcs_memcg *memcg, struct mcs_memcg *root);

/*
 * For callers that already run with preemption or migration disabled
 * (inside a stock's critical section, in every stock mode alike): inline,
 * no preempt_disable() pair on the hot path.  local_t updates are safe
 * against interrupts on this CPU.
 */
static inline void __mcs_memcg_event(struct mcs_memcg *memcg, enum mcs_memcg_event ev)
{
	local_inc(&this_cpu_ptr(memcg->stats)->events[ev]);
}

/* memcg.c: the memcg tree (knows no stock) */
void mcs_memcg_event(struct mcs_memcg *memcg, enum mcs_memcg_event ev);
void mcs_memcg_trylock_fail(struct mcs_memcg *memcg, int kind);
void mcs_objcg_trylock_fail(struct mcs_objcg *objcg);
int mcs_memcg_unlink(struct mcs_memcg *memcg);
int mcs_memcg_tree_init(int (*offline)(struct mcs_memcg *memcg));
void mcs_memcg_tree_exit(void);
void mcs_memcg_walk(struct mcs_memcg *root, void (*fn)(struct mcs_memcg *memcg, void *arg),
		    void *arg);

#endif /* MEMCG_STOCK_MEMCG_H */
