/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Page counters: lock-free hierarchical usage and limit, where every
 * charge ends (page_counter.c).  Part of the public API: memcg_stock.h
 * includes it, and clients include memcg_stock.h, never this file alone.
 * Nothing here knows a memcg or a stock.
 */
#ifndef MEMCG_STOCK_PAGE_COUNTER_H
#define MEMCG_STOCK_PAGE_COUNTER_H

#include <linux/types.h>
#include <linux/atomic.h>
#include <linux/limits.h>
#include <asm/page.h>

/**
 * struct mcs_page_counter - hierarchical page counter
 * @usage: pages charged to this counter and its descendants
 * @max: limit in pages; charges that would exceed it are refused
 * @watermark: highest usage seen (racy by design, never below usage)
 * @failcnt: number of charges this counter refused
 * @parent: the counter charged along with this one, or NULL at the root
 *
 * Lock-free: every field is updated with atomics or READ_ONCE/WRITE_ONCE.
 */
struct mcs_page_counter {
	atomic_long_t usage;
	unsigned long max;
	unsigned long watermark;
	atomic_long_t failcnt;
	struct mcs_page_counter *parent;
};

/* Largest limit, and the limit of a new counter: "no limit". */
#define MCS_PAGE_COUNTER_MAX	(LONG_MAX / PAGE_SIZE)

/**
 * mcs_page_counter_init() - initialise a counter
 * @counter: counter to initialise
 * @parent: counter charged along with @counter, or NULL for a root
 *
 * Usage, watermark and failcnt start at 0, the limit at
 * MCS_PAGE_COUNTER_MAX.  Any context; nothing may use @counter meanwhile.
 */
void mcs_page_counter_init(struct mcs_page_counter *counter,
			   struct mcs_page_counter *parent);

/**
 * mcs_page_counter_charge() - charge pages regardless of the limits
 * @counter: counter to charge, with all its ancestors
 * @nr_pages: number of pages; nothing checks it, keep it at most
 *	MCS_PAGE_COUNTER_MAX so that usage cannot overflow
 *
 * For charges that must not fail (__GFP_NOFAIL): usage may end up above
 * max.  The watermarks follow.  Any context, NMI included; never sleeps.
 */
void mcs_page_counter_charge(struct mcs_page_counter *counter,
			     unsigned long nr_pages);

/**
 * mcs_page_counter_try_charge() - charge pages within the limits
 * @counter: counter to charge, with all its ancestors
 * @nr_pages: number of pages; nothing checks it, keep it at most
 *	MCS_PAGE_COUNTER_MAX (a larger one wraps usage)
 * @fail: set to the counter that refused the charge; untouched on success
 *
 * Any context, NMI included; never sleeps.
 *
 * Return: true when every level took the charge.  False when one level's
 * limit refused it: no counter keeps any part of the charge, the refusing
 * counter's failcnt grew by one and *@fail points to it.
 */
bool mcs_page_counter_try_charge(struct mcs_page_counter *counter,
				 unsigned long nr_pages,
				 struct mcs_page_counter **fail);

/**
 * mcs_page_counter_uncharge() - uncharge pages
 * @counter: counter to uncharge, with all its ancestors
 * @nr_pages: number of pages
 *
 * Uncharging more than a level holds is a caller bug that cannot be
 * refused: that level is clamped at zero, a ratelimited warning is
 * printed (not a WARN) and mcs_page_counter_underflows() grows.  Any
 * context, NMI included; never sleeps.
 */
void mcs_page_counter_uncharge(struct mcs_page_counter *counter,
			       unsigned long nr_pages);

/**
 * mcs_page_counter_set_max() - set the limit of one counter
 * @counter: counter
 * @nr_pages: new limit in pages; MCS_PAGE_COUNTER_MAX means none.  Not
 *	checked here (mcs_memcg_set_max() checks it).
 *
 * Retries while charges race with it.  The caller serialises calls on one
 * counter.  Task context; may sleep (cond_resched()).
 *
 * Return: 0, or -EBUSY when usage is already above @nr_pages (the limit
 * is left as it was).
 */
int mcs_page_counter_set_max(struct mcs_page_counter *counter,
			     unsigned long nr_pages);

/**
 * mcs_page_counter_read() - current usage of a counter
 * @counter: the counter
 *
 * Any context.
 *
 * Return: pages charged to @counter and its descendants.
 */
static inline unsigned long mcs_page_counter_read(struct mcs_page_counter *counter)
{
	return atomic_long_read(&counter->usage);
}

#endif /* MEMCG_STOCK_PAGE_COUNTER_H */
