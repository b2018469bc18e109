/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memcg_stock.h - public API of the memcg_stock module: a model of memory
 * cgroup charging with per-CPU charge caches ("stocks"), built on the
 * module's own objects.  This is the only header a client module includes.
 *
 * Charging a memcg takes pages from the current CPU's memcg stock when it
 * holds enough for that memcg; otherwise a batch is charged to the
 * hierarchical page counters and the surplus goes into the stock.  All
 * charge and uncharge entry points may be called from task, softirq and
 * hardirq context (with a gfp mask that does not allow blocking outside
 * task context); the drain functions need task context.
 */
#ifndef MEMCG_STOCK_H
#define MEMCG_STOCK_H

#include <linux/types.h>
#include <linux/atomic.h>
#include <linux/gfp.h>

/* Pages charged to the counters at once; the surplus feeds the stock. */
#define MCS_CHARGE_BATCH	64U

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

#define MCS_PAGE_COUNTER_MAX	(LONG_MAX / PAGE_SIZE)

void mcs_page_counter_init(struct mcs_page_counter *counter,
			   struct mcs_page_counter *parent);
void mcs_page_counter_charge(struct mcs_page_counter *counter,
			     unsigned long nr_pages);
bool mcs_page_counter_try_charge(struct mcs_page_counter *counter,
				 unsigned long nr_pages,
				 struct mcs_page_counter **fail);
void mcs_page_counter_uncharge(struct mcs_page_counter *counter,
			       unsigned long nr_pages);
int mcs_page_counter_set_max(struct mcs_page_counter *counter,
			     unsigned long nr_pages);
long mcs_page_counter_underflows(void);

/**
 * mcs_page_counter_read() - current usage of a counter
 * @counter: the counter
 *
 * Return: pages charged to @counter and its descendants.
 */
static inline unsigned long mcs_page_counter_read(struct mcs_page_counter *counter)
{
	return atomic_long_read(&counter->usage);
}

struct mcs_memcg;

/**
 * enum mcs_memcg_event - per-memcg event counters, summed over CPUs
 * @MCS_STOCK_HIT: a charge served from the memcg stock
 * @MCS_STOCK_MISS: a charge that had to go to the page counters
 * @MCS_TRYLOCK_FAIL: a stock trylock failed and the fallback path was taken
 * @MCS_REFILL: pages put into a stock slot
 * @MCS_DRAIN: a stock slot of this memcg was drained
 * @MCS_MAX_EVENT: a charge was refused by this memcg's limit
 * @MCS_FORCE_CHARGE: a __GFP_NOFAIL charge was forced over the limit
 * @NR_MCS_EVENTS: number of events
 */
enum mcs_memcg_event {
	MCS_STOCK_HIT,
	MCS_STOCK_MISS,
	MCS_TRYLOCK_FAIL,
	MCS_REFILL,
	MCS_DRAIN,
	MCS_MAX_EVENT,
	MCS_FORCE_CHARGE,
	NR_MCS_EVENTS,
};

/**
 * struct mcs_memcg_stat - snapshot of a memcg's counters
 * @usage: page counter usage (pages, including pages held in stocks)
 * @max: limit in pages
 * @watermark: highest usage seen
 * @failcnt: charges refused by this memcg's own limit
 * @events: event counters summed over all CPUs
 */
struct mcs_memcg_stat {
	unsigned long usage;
	unsigned long max;
	unsigned long watermark;
	unsigned long failcnt;
	unsigned long events[NR_MCS_EVENTS];
};

struct mcs_memcg *mcs_root_memcg(void);
struct mcs_memcg *mcs_memcg_create(struct mcs_memcg *parent, const char *name);
void mcs_memcg_offline(struct mcs_memcg *memcg);
void mcs_memcg_get(struct mcs_memcg *memcg);
void mcs_memcg_put(struct mcs_memcg *memcg);
unsigned int mcs_memcg_id(struct mcs_memcg *memcg);
int mcs_memcg_set_max(struct mcs_memcg *memcg, unsigned long nr_pages);
unsigned long mcs_memcg_usage(struct mcs_memcg *memcg);
void mcs_memcg_stat(struct mcs_memcg *memcg, struct mcs_memcg_stat *stat);
long mcs_memcg_nr_alive(void);

int mcs_try_charge(struct mcs_memcg *memcg, gfp_t gfp, unsigned int nr_pages);
void mcs_uncharge_pages(struct mcs_memcg *memcg, unsigned int nr_pages);

void mcs_drain_all_stock(struct mcs_memcg *root, bool sync);

#endif /* MEMCG_STOCK_H */
