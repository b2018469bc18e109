/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Design "trim" (mode "trim"): the per-CPU page stock of "decoupled" with
 * one change, the one of "memcg: trim the per-cpu charge stock instead of
 * draining it" (Shakeel Butt, v2 2026-08, queued for 7.4): a slot that a
 * refill takes above its high mark gives back only what lies above a
 * lower mark and keeps the rest, as the page allocator's per-CPU lists
 * free a batch once they pass their high mark, instead of being drained
 * to zero and emptied.  The slot keeps its memcg and its reference; the
 * next charge of that memcg on this CPU still finds pages there.
 *
 * The patch text was not at hand: the marks and what they mean are built
 * from the patch's description (docs/design.md says where this may
 * differ).  Everything else is "decoupled"'s memcg stock, slot for slot:
 * NR_MEMCG_STOCK slots of (u8 pages, memcg pointer) under a
 * local_trylock_t, the same admission of newcomers to a full stock
 * (MCS_STOCK_ADMIT_EVERY) and round-robin eviction, the same answers to a
 * take, so that a row of this mode beside one of "decoupled" measures the
 * trim and nothing else.  The struct is its own (struct mcs_trim_stock):
 * two designs never share a stock.
 *
 * The marks are the mode's bench parameters (struct mcs_mode_info's
 * params), trim_high, 1..64, the most a slot holds once an operation
 * completes, and trim_low, 0..63, what a slot that went above trim_high
 * keeps.  The charge batch caps trim_high while it is smaller
 * (mcs_trim_high_now()): no slot ever holds more than a batch, so the
 * bound on stranded charge is the one of "decoupled".  The bench refuses
 * a run whose trim_low is not below its trim_high (the param's "below");
 * a trim_low not below the high mark in use because a smaller batch caps
 * it counts as one page below that mark.
 * With trim_low 0 a trim is "decoupled"'s overflow drain, but the slot
 * stays taken.
 *
 * Bytes go through an obj stock of the shape of Linux 7.3's, the one of
 * mode "decoupled-7.3" (design_decoupled73.h), as the patch leaves the obj
 * stock alone: a 7.4 kernel with the trim has 7.3's obj stock beside the
 * trimmed page stock.  The instance is this design's own
 * (mcs_trim_obj_stock, under its own local_trylock_t); the code is that
 * shape's.  So the page rows of this mode compare with "decoupled"'s and
 * its byte rows with "decoupled-7.3"'s.
 *
 * Context: takes and puts in any context, trylock only (on PREEMPT_RT,
 * hardirq and NMI callers find the stock busy and use the counters); a
 * busy take is an answer, a busy put uncharges the counters (counted);
 * interrupts are never disabled.  A put checks the mode fence inside its
 * section.  The take and the hit of the put are inline here; the trim,
 * the rest of the refill and the drains are in design_trim.c.
 */
#ifndef MEMCG_STOCK_DESIGN_TRIM_H
#define MEMCG_STOCK_DESIGN_TRIM_H

#include "design_common.h"
#include "design_decoupled73.h"

/* The most the high mark may be: a batch, and a slot's u8 fits two. */
#define MCS_TRIM_MAX		MCS_CHARGE_BATCH

/**
 * struct mcs_trim_stock - per-CPU cache of pre-charged pages, trimmed
 * @lock: protects @nr_pages, @cached, @drain_idx, @nr_cached and
 *	@admit_wait of this CPU's instance
 * @nr_pages: pages held for @cached[i], at most the high mark in use
 *	(mcs_trim_high_now()) once an operation completes
 * @cached: memcg of slot i or NULL; each non-NULL slot holds a reference
 * @drain_idx: round-robin eviction cursor, in [0, NR_MEMCG_STOCK)
 * @nr_cached: slots in use; when it drops to 0, @admit_wait and
 *	@drain_idx restart at 0
 * @admit_wait: refills turned away since the last eviction (full stock)
 * @flags: FLUSHING_CACHED_CHARGE
 * @work: drain work, queued on this CPU
 *
 * The lock, the counts and the pointers share the first cache line, as
 * in struct mcs_memcg_stock.  Remote CPUs only read @cached and @nr_pages
 * (READ_ONCE, under RCU) to decide whether to drain; every write happens
 * on the owning CPU under @lock, or on a dead CPU's stock from the
 * hotplug callback.
 */
struct mcs_trim_stock {
	local_trylock_t lock;
	u8 nr_pages[NR_MEMCG_STOCK];
	struct mcs_memcg *cached[NR_MEMCG_STOCK];
	u8 drain_idx;
	u8 nr_cached;
	u8 admit_wait;
	unsigned long flags;
	struct work_struct work;
};

DECLARE_PER_CPU_ALIGNED(struct mcs_trim_stock, mcs_trim_stock);
DECLARE_PER_CPU_ALIGNED(struct mcs_obj73_stock, mcs_trim_obj_stock);

extern const struct mcs_design mcs_design_trim;

extern const struct mcs_mode_info mcs_mode_trim;

/*
 * The marks (bench parameters trim_high and trim_low, set between runs):
 * read once per put (the high mark) and once per trim (the low mark).
 */
extern unsigned int mcs_trim_high;
extern unsigned int mcs_trim_low;

/* The high mark in use: the one set, or the charge batch if smaller. */
static __always_inline unsigned int mcs_trim_high_now(void)
{
	return min(READ_ONCE(mcs_trim_high), mcs_batch_now());
}

/* design_trim.c: the put of a caller that read mode "trim", for the KUnit module */
void mcs_trim_test_put(struct mcs_memcg *memcg, unsigned int nr_pages);

/* design_trim.c: the interface (stock_designs.h) and the rest of the put */
void mcs_trim_pages_put(struct mcs_memcg *memcg, unsigned int nr_pages,
			enum mcs_stock_mode mode);
void mcs_trim_refill_locked(struct mcs_trim_stock *stock, struct mcs_memcg *memcg,
			    unsigned int nr_pages);
struct mcs_obj73_stock *mcs_trim_obj_trylock(void);
bool mcs_trim_bytes_take(struct mcs_objcg *objcg, unsigned int size, bool account, int nid,
			 enum mcs_slab_item item, enum mcs_stock_mode mode);
unsigned int mcs_trim_bytes_put(struct mcs_objcg *objcg, unsigned int nr_bytes,
				bool allow_uncharge, bool account, int acct, int nid,
				enum mcs_slab_item item, enum mcs_stock_mode mode);

/*
 * Take @nr_pages (1 to MCS_CHARGE_BATCH) of @memcg from this CPU's stock:
 * a hit (counted), a miss, MCS_TAKE_FULL (no slot in a full stock) or a
 * busy stock (not counted).  A memcg has at most one slot: the scan stops
 * at it either way.
 */
static __always_inline enum mcs_stock_answer
mcs_trim_pages_take(struct mcs_memcg *memcg, unsigned int nr_pages, enum mcs_stock_mode mode)
{
	enum mcs_stock_answer answer = MCS_TAKE_MISS;
	struct mcs_trim_stock *stock;
	unsigned long i;	/* no sign extension per slot */

	if (!local_trylock(&mcs_trim_stock.lock))
		return MCS_TAKE_BUSY;
	stock = this_cpu_ptr(&mcs_trim_stock);
#pragma GCC unroll 8	/* see NR_MEMCG_STOCK */
	for (i = 0; i < NR_MEMCG_STOCK; i++) {
		u8 held;

		/* a plain read: only this CPU writes cached[], under our lock */
		if (stock->cached[i] != memcg)
			continue;
		held = READ_ONCE(stock->nr_pages[i]);
		if (held >= nr_pages) {
			WRITE_ONCE(stock->nr_pages[i], held - nr_pages);
			__mcs_memcg_event(memcg, MCS_STOCK_HIT);
			answer = MCS_TAKE_HIT;
		}
		goto unlock;
	}
	if (stock->nr_cached == NR_MEMCG_STOCK)
		answer = MCS_TAKE_FULL;
unlock:
	local_unlock(&mcs_trim_stock.lock);
	return answer;
}

/* The page take of the entry points (stock_designs.h): the take itself. */
static __always_inline enum mcs_stock_answer
mcs_trim_pages_take_fast(struct mcs_memcg *memcg, unsigned int nr_pages,
			 enum mcs_stock_mode mode)
{
	return mcs_trim_pages_take(memcg, nr_pages, mode);
}

/*
 * The refill of every uncharge and of a charge's surplus, inline.  The
 * section of the stock's lock is the mode fence (preemption off on
 * !PREEMPT_RT, an RCU section inside the spinlock on PREEMPT_RT), checked
 * inside it.  A hit (the memcg has a slot that stays at or below the high
 * mark) costs the trylock pair, the mark's read, the scan and one event;
 * a slot to find, to trim or to take is mcs_trim_refill_locked()'s, under
 * the same lock.  False, with nothing done, when the stock is busy, the
 * mode is another, or @nr_pages is above MCS_CHARGE_BATCH: the caller then
 * takes mcs_trim_pages_put(), which counts a busy stock.
 */
static __always_inline bool mcs_trim_pages_put_fast(struct mcs_memcg *memcg,
						    unsigned int nr_pages,
						    enum mcs_stock_mode mode)
{
	struct mcs_trim_stock *stock;
	unsigned long i;

	if (nr_pages > MCS_CHARGE_BATCH || !local_trylock(&mcs_trim_stock.lock))
		return false;
	if (unlikely(!mcs_mode_fence_holds(mode))) {
		local_unlock(&mcs_trim_stock.lock);
		return false;
	}
	stock = this_cpu_ptr(&mcs_trim_stock);
#pragma GCC unroll 8	/* see NR_MEMCG_STOCK */
	for (i = 0; i < NR_MEMCG_STOCK; i++) {
		/* slot <= 64 plus refill <= 64 fits a u8 */
		unsigned int total;

		if (stock->cached[i] != memcg)
			continue;
		total = READ_ONCE(stock->nr_pages[i]) + nr_pages;
		if (total > mcs_trim_high_now())
			break;
		WRITE_ONCE(stock->nr_pages[i], total);
		__mcs_memcg_event(memcg, MCS_REFILL);
		local_unlock(&mcs_trim_stock.lock);
		return true;
	}
	mcs_trim_refill_locked(stock, memcg, nr_pages);
	local_unlock(&mcs_trim_stock.lock);
	return true;
}

/* ---- bytes: an obj stock of 7.3's shape, this design's own ------------- */

/* The take of a plain byte charge: as mode "decoupled-7.3"'s, on our stock. */
static __always_inline enum mcs_stock_answer
mcs_trim_bytes_take_fast(struct mcs_objcg *objcg, unsigned int size, enum mcs_stock_mode mode)
{
	return mcs_obj73_take_fast(&mcs_trim_obj_stock, mcs_trim_obj_trylock(), objcg, size);
}

/* The put of a plain byte uncharge: as mode "decoupled-7.3"'s, on our stock. */
static __always_inline int mcs_trim_bytes_put_fast(struct mcs_objcg *objcg,
						   unsigned int nr_bytes,
						   enum mcs_stock_mode mode)
{
	return mcs_obj73_put_fast(&mcs_trim_obj_stock, mcs_trim_obj_trylock(), objcg,
				  nr_bytes, mode);
}

#endif /* MEMCG_STOCK_DESIGN_TRIM_H */
