// SPDX-License-Identifier: GPL-2.0
/*
 * One walk over the slots of every design's per-CPU stocks, for every
 * check that nothing of a run is left in a stock (the stress harness's
 * invariants, stress_checks.c; the replay's cached_after_drain=,
 * replay.c) and for the replay's detection of the events that drained a
 * slot.
 *
 * The kinds of stock come from the binding table (mcs_stock_design[]):
 * a design added there is walked by every check at once.  Each kind
 * brings the walker of its slots (struct mcs_stock_kind's walk), which
 * knows its struct; a kind without one is counted, never skipped, and
 * the checks fail on it until it has one.
 *
 * Other CPUs' stocks are read without their locks, as the drains decide
 * what to drain: a slot may be stale; the memcgs and objcgs it names stay
 * allocated under RCU, which the walk holds.  Designs whose stocks live in
 * the memcgs (struct mcs_design's drain_memcg: counts, no slot, no
 * reference) have no kind: what they hold shows in the memcgs' usage,
 * which the checks read as well.
 */
#include <linux/percpu.h>
#include <linux/rcupdate.h>

#include "harness.h"

/* Was @kind a kind of the design of a mode before @mode (walked already)? */
static bool kind_walked(const struct mcs_stock_kind *kind, int mode)
{
	const struct mcs_stock_kind *const *k;
	int m;

	for (m = 0; m < mode; m++)
		for (k = mcs_stock_design[m]->kinds; *k; k++)
			if (*k == kind)
				return true;
	return false;
}

/* The slots of @kind on @cpu (every possible CPU for -1); false: no walker. */
static bool kind_walk(const struct mcs_stock_kind *kind, int cpu, mcs_slot_fn fn, void *arg)
{
	if (!kind->walk)
		return false;
	if (cpu >= 0) {
		kind->walk(cpu, fn, arg);
		return true;
	}
	for_each_possible_cpu(cpu)
		kind->walk(cpu, fn, arg);
	return true;
}

/**
 * mcs_stock_slots_walk() - every slot of the per-CPU stocks that holds a memcg
 * @design: one design's stocks (mcs_stock_design[mode]), NULL for every
 *	    design's
 * @cpu: one CPU's stocks, -1 for every possible CPU's
 * @fn: called for each slot that holds a memcg or an objcg (struct
 *	mcs_stock_slot names the memcg), under rcu_read_lock(): it must not
 *	sleep
 * @arg: passed to @fn
 *
 * Each kind of stock is walked once, however many modes share its
 * design.  Any context; the slots of other CPUs may be stale.
 *
 * Return: the kinds of per-CPU stock of @design (of every design) that
 * the walk cannot read: 0, or as many stocks that no check sees.
 */
int mcs_stock_slots_walk(const struct mcs_design *design, int cpu, mcs_slot_fn fn, void *arg)
{
	const struct mcs_stock_kind *const *kind;
	int m, unread = 0;

	rcu_read_lock();
	for (m = 0; m < NR_MCS_MODES; m++) {
		const struct mcs_design *d = mcs_stock_design[m];

		if (design && d != design)
			continue;
		for (kind = d->kinds; *kind; kind++)
			if ((design || !kind_walked(*kind, m)) && !kind_walk(*kind, cpu, fn, arg))
				unread++;
		/* one design: its kinds once, whichever of its modes comes first */
		if (design)
			break;
	}
	rcu_read_unlock();
	return unread;
}
