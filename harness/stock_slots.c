// SPDX-License-Identifier: GPL-2.0
/*
 * One walk over the slots of every design's per-CPU stocks, for every
 * check that nothing of a run is left in a stock (the stress harness's
 * invariants, stress_checks.c; the replay's cached_after_drain=,
 * replay.c) and for the replay's detection of the events that drained a
 * slot.
 *
 * The kinds of stock come from the binding table (mcs_stock_design[]):
 * a design added there is walked by every check at once.  Each kind's
 * slots are read by a reader below, which knows its struct; a kind that
 * no reader knows is counted, never skipped, and the checks fail on it
 * until it has one.
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

/* What mcs_stock_slots_walk() calls for each slot that holds a memcg. */
struct slot_walk {
	void (*fn)(const struct mcs_stock_slot *slot, void *arg);
	void *arg;
};

/* Slot @index of @stock on @cpu, to @w's function if it holds @memcg. */
static void slot_visit(const struct slot_walk *w, int cpu, const char *stock, int index,
		       bool bytes, struct mcs_memcg *memcg)
{
	struct mcs_stock_slot slot = {
		.cpu = cpu, .stock = stock, .index = index, .bytes = bytes, .memcg = memcg,
	};

	if (memcg)
		w->fn(&slot, w->arg);
}

static struct mcs_memcg *slot_objcg_memcg(struct mcs_objcg *objcg)
{
	return objcg ? READ_ONCE(objcg->memcg) : NULL;
}

/* design "decoupled": the page stock (modes decoupled, -owner, -7.3) */
static void read_memcg_stock(int cpu, const struct slot_walk *w)
{
	struct mcs_memcg_stock *ms = per_cpu_ptr(&mcs_memcg_stock, cpu);
	int i;

	for (i = 0; i < NR_MEMCG_STOCK; i++)
		slot_visit(w, cpu, "memcg", i, false, READ_ONCE(ms->cached[i]));
}

/* The slots of an obj stock: @n objcgs, from @cached. */
static void read_objcg_slots(const struct slot_walk *w, int cpu, const char *stock,
			     struct mcs_objcg *const *cached, int n)
{
	int i;

	for (i = 0; i < n; i++)
		slot_visit(w, cpu, stock, i, true, slot_objcg_memcg(READ_ONCE(cached[i])));
}

/* design "decoupled": the obj stock of modes decoupled and decoupled-owner */
static void read_obj_stock(int cpu, const struct slot_walk *w)
{
	read_objcg_slots(w, cpu, "obj", per_cpu_ptr(&mcs_obj_stock, cpu)->cached, NR_OBJ_STOCK);
}

/* design "decoupled": the obj stock of mode decoupled-7.3 */
static void read_obj73_stock(int cpu, const struct slot_walk *w)
{
	read_objcg_slots(w, cpu, "obj73", per_cpu_ptr(&mcs_obj73_stock, cpu)->cached,
			 NR_OBJ73_STOCK);
}

/* design "coupled": one memcg and one objcg */
static void read_coupled_stock(int cpu, const struct slot_walk *w)
{
	struct mcs_coupled_stock *cs = per_cpu_ptr(&mcs_coupled_stock, cpu);

	slot_visit(w, cpu, "coupled", 0, false, READ_ONCE(cs->cached));
	slot_visit(w, cpu, "coupled_obj", 0, true,
		   slot_objcg_memcg(READ_ONCE(cs->cached_objcg)));
}

/* design "hahn-v6": slots keyed by a memcg's page counter */
static void read_hahn_v6_stock(int cpu, const struct slot_walk *w)
{
	struct mcs_hahn_v6_stock *hs = per_cpu_ptr(&mcs_hahn_v6_stock, cpu);
	int i;

	for (i = 0; i < NR_MEMCG_STOCK; i++) {
		struct mcs_page_counter *counter = READ_ONCE(hs->cached[i]);

		slot_visit(w, cpu, "hahn_v6", i, false,
			   counter ? container_of(counter, struct mcs_memcg, memory) : NULL);
	}
}

/* A reader per kind of per-CPU stock, found by the kind's per-CPU variable. */
static const struct {
	const void __percpu *stock;
	void (*read)(int cpu, const struct slot_walk *w);
} slot_readers[] = {
	{ (const void __percpu *)&mcs_memcg_stock, read_memcg_stock },
	{ (const void __percpu *)&mcs_obj_stock, read_obj_stock },
	{ (const void __percpu *)&mcs_obj73_stock, read_obj73_stock },
	{ (const void __percpu *)&mcs_coupled_stock, read_coupled_stock },
	{ (const void __percpu *)&mcs_hahn_v6_stock, read_hahn_v6_stock },
};

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

/* The slots of @kind on @cpu (every possible CPU for -1); false: no reader. */
static bool kind_walk(const struct mcs_stock_kind *kind, int cpu, const struct slot_walk *w)
{
	unsigned int r;

	for (r = 0; r < ARRAY_SIZE(slot_readers); r++) {
		if (slot_readers[r].stock != kind->stock)
			continue;
		if (cpu >= 0) {
			slot_readers[r].read(cpu, w);
			return true;
		}
		for_each_possible_cpu(cpu)
			slot_readers[r].read(cpu, w);
		return true;
	}
	return false;
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
int mcs_stock_slots_walk(const struct mcs_design *design, int cpu,
			 void (*fn)(const struct mcs_stock_slot *slot, void *arg), void *arg)
{
	const struct slot_walk w = { .fn = fn, .arg = arg };
	const struct mcs_stock_kind *const *kind;
	int m, unread = 0;

	rcu_read_lock();
	for (m = 0; m < NR_MCS_MODES; m++) {
		const struct mcs_design *d = mcs_stock_design[m];

		if (design && d != design)
			continue;
		for (kind = d->kinds; *kind; kind++)
			if ((design || !kind_walked(*kind, m)) && !kind_walk(*kind, cpu, &w))
				unread++;
		/* one design: its kinds once, whichever of its modes comes first */
		if (design)
			break;
	}
	rcu_read_unlock();
	return unread;
}
