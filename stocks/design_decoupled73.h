/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Mode "decoupled-7.3": the obj stock exactly as Linux 7.3 has it, beside
 * the page stock of "decoupled", so that the benchmark can put the kernel's
 * own obj stock pair and ours on one footing.  "decoupled" keeps its obj
 * stock, an optimised shape of ours (hits inlined into the entry point,
 * seven slots scanned once, unrolled, a keep-one-page threshold); this
 * mode is the upstream shape, slot for slot and call for call:
 *
 *  - five slots, and all a hit touches in one 64-byte line: the lock, the
 *    slab-stat slot and node, two 16-bit slab deltas, five 16-bit byte
 *    counts, five objcg pointers (struct mcs_obj73_stock);
 *  - the trylock is a function of its own (7.3's trylock_stock() is not
 *    inlined: a call and a return per operation), the refill too
 *    (__refill_obj_stock()); the consume and the unlock are inline;
 *  - the scans are plain loops, as upstream's, not unrolled; the consume
 *    stops at the objcg's slot; the refill looks for the objcg's slot and
 *    notes the first empty one on the way;
 *  - a refill that takes a slot moves the objcg's leftover into it with
 *    one exchange (a read first: no atomic when it is empty), and evicts
 *    round-robin (drain_idx) when no slot is empty: no admission
 *    throttle, no count of slots in use;
 *  - a slot that passes one page on an uncharge (or on taking a slot)
 *    gives its whole pages back at once, keeping the sub-page rest; any
 *    refill gives them back past U16_MAX, which the 16-bit count cannot
 *    hold.
 *
 * What differs, and why: the pages a refill gives back leave through the
 * caller after the section (every design's rule, stock_designs.h), where
 * 7.3 uncharges them inside it; a put checks the mode fence inside its
 * section (three instructions on a hit) and counts a busy stock; on an
 * entry point's miss the objcg's leftover is tried before pages are
 * charged (the entry point's, shared by every mode).
 *
 * The mode belongs to design "decoupled" (mcs_design_decoupled73 is
 * mcs_design_decoupled), as "decoupled-owner" does: its page stock is that
 * design's memcg stock, taken with the same local_trylock_t, and its obj
 * stock is one more kind of that design's stocks.  Sharing the memcg stock
 * is what makes it one design: a switch between two modes of one design
 * passes through "none" (stock_designs.h), which the owner section of
 * "decoupled-owner" needs against this mode's local_trylock_t exactly as
 * against "decoupled"'s.  A design of its own would have needed a copy of
 * the memcg stock, or switch rules that know of stocks shared between
 * designs.  The obj stock itself is this mode's alone; its data and code
 * are here and in design_decoupled73.c.  The mode's page entries, which
 * are that design's, and mcs_design_decoupled73 are in design_decoupled.h:
 * this header, a layer below the designs, includes none of them.
 */
#ifndef MEMCG_STOCK_DESIGN_DECOUPLED73_H
#define MEMCG_STOCK_DESIGN_DECOUPLED73_H

#include "design_common.h"

/* Objcg slots per CPU in the obj stock of mode "decoupled-7.3": upstream's. */
#define NR_OBJ73_STOCK		5

/**
 * struct mcs_obj73_stock - per-CPU cache of pre-charged bytes, 7.3's shape
 * @lock: protects everything but @work and @flags; never another stock's
 * @index: slot whose objcg owns the cached slab-stat deltas, -1 for none
 * @node_id: node of the cached slab-stat deltas, NUMA_NO_NODE for none
 * @nr_slab_b: cached slab byte deltas by enum mcs_slab_item, 16 bits each
 * @nr_bytes: pre-charged bytes available to @cached[i], 16 bits each
 * @cached: objcg of slot i or NULL; each non-NULL slot holds a reference
 * @flags: FLUSHING_CACHED_CHARGE
 * @work: drain work, queued on this CPU
 * @drain_idx: round-robin eviction cursor, in [0, NR_OBJ73_STOCK)
 *
 * Everything a hit reads or writes, @lock to @cached, fits one 64-byte
 * line on a 64-bit kernel without lock debugging, as upstream sized it.
 */
struct mcs_obj73_stock {
	local_trylock_t lock;
	s8 index;
	s16 node_id;
	s16 nr_slab_b[NR_MCS_SLAB_ITEMS];
	u16 nr_bytes[NR_OBJ73_STOCK];
	struct mcs_objcg *cached[NR_OBJ73_STOCK];
	unsigned long flags;
	struct work_struct work;
	u8 drain_idx;
};

DECLARE_PER_CPU_ALIGNED(struct mcs_obj73_stock, mcs_obj73_stock);

/* the obj stock as the drains see it (one of design "decoupled"'s kinds) */
extern const struct mcs_stock_kind mcs_obj73_stock_kind;
extern const struct mcs_mode_info mcs_mode_decoupled_73;

/*
 * An obj stock of this shape before its first use: no cached slab-stat
 * deltas.  Design "trim" has an instance of its own (design_trim.c).
 */
#define MCS_OBJ73_STOCK_INIT {				\
	.lock = INIT_LOCAL_TRYLOCK(lock),		\
	.index = -1,					\
	.node_id = NUMA_NO_NODE,			\
}

/*
 * design_decoupled73.c.  Every function below but mcs_obj73_trylock_stock()
 * works on the instance it is given, so that a design can keep an obj
 * stock of this shape of its own (design "trim"): the per-CPU instance
 * @pcpu, and @stock, this CPU's instance that the caller locked, or NULL
 * when its trylock failed.
 */
struct mcs_obj73_stock *mcs_obj73_trylock_stock(void);
unsigned int mcs_obj73_refill(struct mcs_objcg *objcg, struct mcs_obj73_stock *stock,
			      unsigned int nr_bytes, bool allow_uncharge);
void mcs_obj73_account(struct mcs_objcg *objcg, struct mcs_obj73_stock *stock, int nr,
		       int nid, enum mcs_slab_item item);
void mcs_obj73_drain(struct mcs_obj73_stock *stock);
bool mcs_obj73_holds(struct mcs_obj73_stock *stock, struct mcs_memcg *root);
void mcs_obj73_walk(struct mcs_obj73_stock *stock, int cpu, const char *name,
		    mcs_slot_fn fn, void *arg);
bool mcs_decoupled73_bytes_take(struct mcs_objcg *objcg, unsigned int size, bool account,
				int nid, enum mcs_slab_item item, enum mcs_stock_mode mode);
unsigned int mcs_decoupled73_bytes_put(struct mcs_objcg *objcg, unsigned int nr_bytes,
				       bool allow_uncharge, bool account, int acct, int nid,
				       enum mcs_slab_item item, enum mcs_stock_mode mode);

/* ---- bytes: the 7.3-shaped obj stock ----------------------------------- */

static __always_inline void mcs_obj73_unlock(struct mcs_obj73_stock __percpu *pcpu,
					     struct mcs_obj73_stock *stock)
{
	if (stock)
		local_unlock(&pcpu->lock);
}

/*
 * Take @nr_bytes of @objcg from the locked @stock: the scan stops at the
 * objcg's slot, which has enough bytes or not.
 */
static __always_inline bool mcs_obj73_consume(struct mcs_objcg *objcg,
					      struct mcs_obj73_stock *stock,
					      unsigned int nr_bytes)
{
	int i;

	for (i = 0; i < NR_OBJ73_STOCK; i++) {
		if (READ_ONCE(stock->cached[i]) != objcg)
			continue;
		if (stock->nr_bytes[i] < nr_bytes)
			return false;
		stock->nr_bytes[i] -= nr_bytes;
		return true;
	}
	return false;
}

/*
 * The byte take of a plain charge from instance @pcpu, whose @stock the
 * caller tried to lock: the scan, the unlock.  A busy stock is an answer.
 */
static __always_inline enum mcs_stock_answer
mcs_obj73_take_fast(struct mcs_obj73_stock __percpu *pcpu, struct mcs_obj73_stock *stock,
		    struct mcs_objcg *objcg, unsigned int size)
{
	bool hit;

	if (!stock)
		return MCS_TAKE_BUSY;
	hit = mcs_obj73_consume(objcg, stock, size);
	mcs_obj73_unlock(pcpu, stock);
	return hit ? MCS_TAKE_HIT : MCS_TAKE_MISS;
}

/*
 * The byte put of a plain uncharge into instance @pcpu, whose @stock the
 * caller tried to lock: the out-of-line refill (which takes a busy
 * stock's bytes to the leftover), the unlock.  The section is the mode
 * fence (see mcs_decoupled_pages_put_fast()): a refused fence is a busy
 * stock.  Returns the whole pages that the caller gives back once the
 * section is left; never -1 (the refill takes what a busy stock refuses).
 */
static __always_inline int mcs_obj73_put_fast(struct mcs_obj73_stock __percpu *pcpu,
					      struct mcs_obj73_stock *stock,
					      struct mcs_objcg *objcg, unsigned int nr_bytes,
					      enum mcs_stock_mode mode)
{
	unsigned int nr_pages;

	if (stock && unlikely(!mcs_mode_fence_holds(mode))) {
		mcs_obj73_unlock(pcpu, stock);
		stock = NULL;
	}
	nr_pages = mcs_obj73_refill(objcg, stock, nr_bytes, true);
	mcs_obj73_unlock(pcpu, stock);
	return nr_pages;
}

/*
 * The byte take of the interface, accounting included, from instance
 * @pcpu, whose @stock the caller tried to lock: a busy stock is a miss
 * (and counted).
 */
static __always_inline bool mcs_obj73_take(struct mcs_obj73_stock __percpu *pcpu,
					   struct mcs_obj73_stock *stock,
					   struct mcs_objcg *objcg, unsigned int size,
					   bool account, int nid, enum mcs_slab_item item)
{
	bool ret;

	if (!stock) {
		mcs_objcg_trylock_fail(objcg);
		return false;
	}
	ret = mcs_obj73_consume(objcg, stock, size);
	if (ret && account)
		mcs_obj73_account(objcg, stock, size, nid, item);
	mcs_obj73_unlock(pcpu, stock);
	return ret;
}

/*
 * The byte put of the interface into instance @pcpu, whose @stock the
 * caller tried to lock, fenced inside its section (a refused fence is a
 * busy stock); @allow_uncharge: see mcs_obj73_refill().  Returns the whole
 * pages to give back once the section is left.
 */
static __always_inline unsigned int
mcs_obj73_put(struct mcs_obj73_stock __percpu *pcpu, struct mcs_obj73_stock *stock,
	      struct mcs_objcg *objcg, unsigned int nr_bytes, bool allow_uncharge,
	      bool account, int acct, int nid, enum mcs_slab_item item,
	      enum mcs_stock_mode mode)
{
	unsigned int nr_pages = 0;

	if (stock && !mcs_mode_fence_holds(mode)) {
		mcs_obj73_unlock(pcpu, stock);
		stock = NULL;
	}
	if (nr_bytes)
		nr_pages = mcs_obj73_refill(objcg, stock, nr_bytes, allow_uncharge);
	else if (!stock)
		mcs_objcg_trylock_fail(objcg);
	if (account)
		mcs_obj73_account(objcg, stock, acct, nid, item);
	mcs_obj73_unlock(pcpu, stock);
	return nr_pages;
}

/*
 * The byte take of a plain charge, inline in the entry point as 7.3's
 * consume_obj_stock() is in obj_cgroup_charge(): the out-of-line trylock,
 * the scan, the unlock.
 */
static __always_inline enum mcs_stock_answer
mcs_decoupled73_bytes_take_fast(struct mcs_objcg *objcg, unsigned int size,
				enum mcs_stock_mode mode)
{
	return mcs_obj73_take_fast(&mcs_obj73_stock, mcs_obj73_trylock_stock(), objcg, size);
}

/*
 * The byte put of a plain uncharge, inline in the entry point as 7.3's
 * refill_obj_stock() is in obj_cgroup_uncharge(): the out-of-line trylock,
 * the out-of-line refill, the unlock (mcs_obj73_put_fast()).
 */
static __always_inline int mcs_decoupled73_bytes_put_fast(struct mcs_objcg *objcg,
							  unsigned int nr_bytes,
							  enum mcs_stock_mode mode)
{
	return mcs_obj73_put_fast(&mcs_obj73_stock, mcs_obj73_trylock_stock(), objcg,
				  nr_bytes, mode);
}

#endif /* MEMCG_STOCK_DESIGN_DECOUPLED73_H */
