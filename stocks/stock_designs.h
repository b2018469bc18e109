/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stock designs behind one interface, and the table that binds each
 * stock mode to its design.
 *
 * A design implements, in its own files (design_<name>.[ch]):
 *
 *   mcs_<name>_pages_take(memcg, nr_pages, mode)
 *	take 1..MCS_CHARGE_BATCH pages from this CPU's stock: MCS_TAKE_HIT
 *	(counted by the design), MISS, FULL (no slot in a full stock) or
 *	BUSY (not counted: the caller counts it)
 *   mcs_<name>_pages_put(memcg, nr_pages, mode)
 *	put pages already charged into this CPU's stock; what the stock
 *	refuses (busy, counted by the design, a refused fence, no room) the
 *	design returns to the counters itself
 *   mcs_<name>_bytes_take(objcg, size, account, nid, item, mode)
 *	take bytes already charged, and account slab bytes when @account
 *   mcs_<name>_bytes_put(objcg, nr_bytes, allow_uncharge, account, acct,
 *			  nid, item, mode)
 *	put bytes already charged (a busy stock sends them to the objcg's
 *	leftover) and account @acct slab bytes; returns the whole pages
 *	that the caller gives back, once the design's section is left,
 *	through the same design's page put (mcs_design_pages_put())
 *   mcs_design_<name>
 *	its name and its kinds of per-CPU stock (struct mcs_design), which
 *	the drains walk: the local drain, the remote check, the dead-CPU
 *	drain of each
 *
 * and, in its header, static __always_inline, the paths that every mode's
 * own entry functions inline (entry/charge_pages.c, objcg_stock.c), so that
 * each design's hit is reached the same way as every other's:
 *
 *   mcs_<name>_pages_take_fast(memcg, nr_pages, mode)
 *	as pages_take; MCS_TAKE_HIT means served (a design without a stock
 *	may serve from the counters)
 *   mcs_<name>_pages_put_fast(memcg, nr_pages, mode)
 *	as pages_put, or false with nothing done (then pages_put runs)
 *   mcs_<name>_bytes_take_fast(objcg, size, mode)
 *	the take of a plain byte charge (no slab accounting): an answer
 *   mcs_<name>_bytes_put_fast(objcg, nr_bytes, mode)
 *	the put of a plain byte uncharge: the whole pages to give back
 *	(0: done), or -1 with nothing done (then bytes_put runs)
 *
 * @mode is the mode the public entry point read, once per operation; it
 * is passed down as a constant through the switch below, and nothing
 * inside a design reads the mode to choose a stock or enters another
 * design.  Puts run inside the mode fence (the RCU section of the read,
 * or the design's own section, see mcs_mode_fence_holds()).
 *
 * Adding a design (docs/adding-a-design.md): its own files
 * (design_<name>.[ch], built by Kbuild's wildcard), with its struct
 * mcs_design (kinds of stock, each with the walker of its slots) and one
 * struct mcs_mode_info mcs_mode_<entry> per mode (report group, short
 * name, cycle model, bench parameters); one line of the binding table
 * below and its #include beside the others.  The enum, the names, the
 * dispatch, debugfs "modes" and every test and script take it from there.
 */
#ifndef MEMCG_STOCK_TABLE_H
#define MEMCG_STOCK_TABLE_H
/*
 * The binding table, the only list of the modes: mode (its constant in
 * enum mcs_stock_mode, which memcg_stock.h makes from this table, in this
 * order), its name, the name of the mode's entry points (see below; also
 * the mode's metadata, struct mcs_mode_info mcs_mode_<entry>), design
 * (struct mcs_design mcs_design_<design>, functions mcs_<design>_*()).
 * Two modes of one design share its stocks under two exclusions (see the
 * switch rules below).  "decoupled73" is mode "decoupled-7.3" of design
 * "decoupled", with an obj stock of its own (design_decoupled73.h).
 * This block needs no include: memcg_stock.h reads it alone
 * (MCS_STOCK_TABLE_ONLY).
 */
#define MCS_STOCK_DESIGNS(BIND)						\
	BIND(MCS_MODE_DECOUPLED, "decoupled", decoupled, decoupled)	\
	BIND(MCS_MODE_COUPLED, "coupled", coupled, coupled)		\
	BIND(MCS_MODE_NONE, "none", none, none)				\
	BIND(MCS_MODE_COUPLED_NOIRQ, "coupled-noirq", coupled_noirq, coupled) \
	BIND(MCS_MODE_DECOUPLED_OWNER, "decoupled-owner", decoupled_owner, decoupled) \
	BIND(MCS_MODE_PERCPU_COUNTER, "percpu-counter", percpu_counter, percpu_counter) \
	BIND(MCS_MODE_HAHN_V4, "hahn-v4", hahn_v4, hahn_v4)		\
	BIND(MCS_MODE_HAHN_V6, "hahn-v6", hahn_v6, hahn_v6)		\
	BIND(MCS_MODE_DECOUPLED_73, "decoupled-7.3", decoupled_73, decoupled73) \
	BIND(MCS_MODE_TRIM, "trim", trim, trim)				\
	/* a new design: its line here, at the end (the enum keeps its values) */

/* the enum's constants (memcg_stock.h) and the names (stock_fence.c) */
#define MCS_MODE_ENUM(m, n, t, d)	m,
#define MCS_MODE_NAME(m, n, t, d)	[m] = n,
#endif /* MEMCG_STOCK_TABLE_H */

#if !defined(MCS_STOCK_TABLE_ONLY) && !defined(MEMCG_STOCK_DESIGNS_H)
#define MEMCG_STOCK_DESIGNS_H

#include "design_coupled.h"
#include "design_decoupled.h"
#include "design_hahn_v4.h"
#include "design_hahn_v6.h"
#include "design_decoupled73.h"
#include "design_none.h"
#include "design_percpu_counter.h"
#include "design_trim.h"

/* mcs_stock_design[mode]: the design of each mode, as data (stock_drain.c) */
#define MCS_DESIGN_BIND(m, n, t, d)	[m] = &mcs_design_##d,
extern const struct mcs_design *const mcs_stock_design[NR_MCS_MODES];

/* mcs_stock_modes[mode]: each mode's metadata (stock_drain.c, design_common.h) */
#define MCS_MODE_INFO_BIND(m, n, t, d)	[m] = &mcs_mode_##t,
extern const struct mcs_mode_info *const mcs_stock_modes[NR_MCS_MODES];
const struct mcs_design *mcs_stock_mode_design(enum mcs_stock_mode mode);
const struct mcs_mode_info *mcs_stock_mode_info(enum mcs_stock_mode mode);

/*
 * The switch rules (mcs_stock_set_bench_mode() applies them):
 *  - Every switch drains every stock before and after, with a grace
 *    period between the new mode's store and the last drain: a put that
 *    read the old mode is inside the fence, so it is over by then.
 *  - A switch between two modes of one design passes through "none" for a
 *    grace period of its own, then drains again.  Why, per pair:
 *      decoupled <-> decoupled-owner: a local_trylock_t section and an
 *	owner section guard the same stocks and exclude each other (an
 *	owner section marks the lock's byte on !PREEMPT_RT and refuses a
 *	held lock); the pass through "none" drains the stocks between the
 *	two exclusions, so neither finds the other's slots mid-switch.
 *      decoupled-7.3 <-> decoupled-owner: the same, for the memcg stock,
 *	which "decoupled-7.3" takes with its local_trylock_t.
 *      decoupled <-> decoupled-7.3: one exclusion, the local_trylock_t of
 *	the memcg stock; the pass through "none" is not needed, only
 *	harmless (each has an obj stock of its own).
 *      coupled <-> coupled-noirq: IRQs off and preemption off do not
 *	exclude each other: an interrupt that read the other mode could
 *	enter the stock in the middle of a task's section.
 *  - Between modes of different designs nothing is shared: a stale
 *    operation finds its own design's stocks, drained or refused by the
 *    fence, and never another design's.  One exception without a lock:
 *    "percpu-counter" and "hahn-v4" use the same per-memcg atomic counts
 *    (the same stock of one series, refilled by uncharges or not).  Every
 *    access is an atomic, and every add checks the fence after it and
 *    empties the count when refused, so a stale operation of either is
 *    exact in the other's mode: a take moves charged pages to its caller,
 *    a refused add gives the count back to the counter.
 * The fence (stock_fence.h) is the second half: once inside its section,
 * every put, and the takes of "coupled" and "decoupled-owner", check that
 * the mode is still the one read; "decoupled"'s take is covered by the
 * owner section's test of its lock (stock_owner.h).
 */

/* The dispatch: one switch per operation, each case a constant mode. */
#define MCS_DESIGN_CASE_PAGES_TAKE(m, n, t, d)				\
	case m: return mcs_##d##_pages_take(memcg, nr_pages, m);
#define MCS_DESIGN_CASE_PAGES_PUT(m, n, t, d)					\
	case m: return mcs_##d##_pages_put(memcg, nr_pages, m);
#define MCS_DESIGN_CASE_BYTES_TAKE(m, n, t, d)				\
	case m: return mcs_##d##_bytes_take(objcg, size, account, nid, item, m);
#define MCS_DESIGN_CASE_BYTES_PUT(m, n, t, d)					\
	case m: return mcs_##d##_bytes_put(objcg, nr_bytes, allow_uncharge,	\
					   account, acct, nid, item, m);

static __always_inline enum mcs_stock_answer
mcs_design_pages_take(enum mcs_stock_mode mode, struct mcs_memcg *memcg, unsigned int nr_pages)
{
	switch ((int)mode) {
	MCS_STOCK_DESIGNS(MCS_DESIGN_CASE_PAGES_TAKE)
	}
	return MCS_TAKE_MISS;
}

static __always_inline void
mcs_design_pages_put(enum mcs_stock_mode mode, struct mcs_memcg *memcg, unsigned int nr_pages)
{
	switch ((int)mode) {
	MCS_STOCK_DESIGNS(MCS_DESIGN_CASE_PAGES_PUT)
	}
	mcs_page_counter_uncharge(&memcg->memory, nr_pages);
}

static __always_inline bool
mcs_design_bytes_take(enum mcs_stock_mode mode, struct mcs_objcg *objcg, unsigned int size,
		      bool account, int nid, enum mcs_slab_item item)
{
	switch ((int)mode) {
	MCS_STOCK_DESIGNS(MCS_DESIGN_CASE_BYTES_TAKE)
	}
	return false;
}

static __always_inline unsigned int
mcs_design_bytes_put(enum mcs_stock_mode mode, struct mcs_objcg *objcg, unsigned int nr_bytes,
		     bool allow_uncharge, bool account, int acct, int nid,
		     enum mcs_slab_item item)
{
	switch ((int)mode) {
	MCS_STOCK_DESIGNS(MCS_DESIGN_CASE_BYTES_PUT)
	}
	mcs_objcg_add_leftover(objcg, nr_bytes);
	return 0;
}

/*
 * The entry functions of each mode (entry/charge_pages.c, objcg_stock.c): the
 * four calls of the exported API with the mode a constant, named after the
 * second column of the binding table.  The exported functions reach them
 * through mcs_mode_*() below with the mode they read (a switch, then a
 * tail jump); the benchmark calls them with its run's mode as a constant:
 * one direct call, what a build with that one design would make
 * (harness/bench.c).  A caller with a mode that is no longer current is
 * safe: each design's fence refuses its puts (see the switch rules above).
 */
#define MCS_ENTRY_DECLARE(m, n, t, d)					\
	int mcs_charge_pages_##t(struct mcs_memcg *memcg, gfp_t gfp,	\
				 unsigned int nr_pages);		\
	void mcs_uncharge_pages_##t(struct mcs_memcg *memcg,		\
				    unsigned int nr_pages);		\
	int mcs_obj_charge_##t(struct mcs_objcg *objcg, gfp_t gfp,	\
			       size_t size);				\
	int mcs_obj_uncharge_##t(struct mcs_objcg *objcg, size_t size);

MCS_STOCK_DESIGNS(MCS_ENTRY_DECLARE)

#define MCS_ENTRY_CASE_CHARGE_PAGES(m, n, t, d)				\
	case m: return mcs_charge_pages_##t(memcg, gfp, nr_pages);
#define MCS_ENTRY_CASE_UNCHARGE_PAGES(m, n, t, d)				\
	case m: return mcs_uncharge_pages_##t(memcg, nr_pages);
#define MCS_ENTRY_CASE_OBJ_CHARGE(m, n, t, d)				\
	case m: return mcs_obj_charge_##t(objcg, gfp, size);
#define MCS_ENTRY_CASE_OBJ_UNCHARGE(m, n, t, d)				\
	case m: return mcs_obj_uncharge_##t(objcg, size);

/* mcs_charge_pages() of @mode: a direct call where @mode is a constant. */
static __always_inline int mcs_mode_charge_pages(enum mcs_stock_mode mode, struct mcs_memcg *memcg,
						 gfp_t gfp, unsigned int nr_pages)
{
	switch ((int)mode) {
	MCS_STOCK_DESIGNS(MCS_ENTRY_CASE_CHARGE_PAGES)
	}
	return -EINVAL;
}

/* mcs_uncharge_pages() of @mode */
static __always_inline void mcs_mode_uncharge_pages(enum mcs_stock_mode mode,
						    struct mcs_memcg *memcg, unsigned int nr_pages)
{
	switch ((int)mode) {
	MCS_STOCK_DESIGNS(MCS_ENTRY_CASE_UNCHARGE_PAGES)
	}
}

/* mcs_obj_charge() of @mode */
static __always_inline int mcs_mode_obj_charge(enum mcs_stock_mode mode, struct mcs_objcg *objcg,
					       gfp_t gfp, size_t size)
{
	switch ((int)mode) {
	MCS_STOCK_DESIGNS(MCS_ENTRY_CASE_OBJ_CHARGE)
	}
	return -EINVAL;
}

/* mcs_obj_uncharge() of @mode */
static __always_inline int mcs_mode_obj_uncharge(enum mcs_stock_mode mode, struct mcs_objcg *objcg,
						 size_t size)
{
	switch ((int)mode) {
	MCS_STOCK_DESIGNS(MCS_ENTRY_CASE_OBJ_UNCHARGE)
	}
	return -EINVAL;
}

#endif /* !MCS_STOCK_TABLE_ONLY && !MEMCG_STOCK_DESIGNS_H */
