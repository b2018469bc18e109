// SPDX-License-Identifier: GPL-2.0
/*
 * Mode "decoupled-7.3": the 7.3-shaped obj stock, its refill, its slab
 * statistics and its drains (the shape, and what differs from 7.3, is in
 * design_decoupled73.h; the page stock is design "decoupled"'s).
 *
 * Context rules, as "decoupled"'s obj stock:
 *  - Takes and puts run in any context and only trylock: a busy stock is
 *    an answer, never a wait.  A busy (or fenced off) put sends its bytes
 *    to the objcg's leftover.  Interrupts are never disabled.
 *  - Pages that a put gives back are returned to the caller, which hands
 *    them to the page put of the mode once the section is left.
 *  - The local drain takes the blocking local_lock(), in task context
 *    only; the dead-CPU drain takes no lock: nothing runs there.
 */
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/nodemask.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/workqueue.h>

#include "design_decoupled73.h"

DEFINE_PER_CPU_ALIGNED(struct mcs_obj73_stock, mcs_obj73_stock) = MCS_OBJ73_STOCK_INIT;

/* for the KUnit module only */
MCS_EXPORT_PER_CPU_NS(mcs_obj73_stock);

/* The 16-bit counts hold any sub-page rest: pages up to 64 KiB. */
static_assert(PAGE_SIZE - 1 <= U16_MAX);
static_assert(MAX_NUMNODES < S16_MAX);

/*
 * This CPU's obj stock, locked, or NULL when it is busy: out of line, as
 * 7.3's trylock_stock() is (a call and a return per operation).
 */
noinline struct mcs_obj73_stock *mcs_obj73_trylock_stock(void)
{
	if (local_trylock(&mcs_obj73_stock.lock))
		return this_cpu_ptr(&mcs_obj73_stock);
	return NULL;
}

/* The cached slab-stat deltas to the objcg and node they belong to. */
static void drain_obj73_stats(struct mcs_obj73_stock *stock)
{
	struct mcs_objcg *old;
	int item;

	if (stock->index < 0)
		return;
	old = READ_ONCE(stock->cached[stock->index]);
	for (item = 0; item < NR_MCS_SLAB_ITEMS; item++) {
		if (stock->nr_slab_b[item]) {
			mcs_objcg_mod_stat(old, stock->node_id, item, stock->nr_slab_b[item]);
			stock->nr_slab_b[item] = 0;
		}
	}
	stock->index = -1;
	stock->node_id = NUMA_NO_NODE;
}

/*
 * Empty slot @i: its bytes onto the objcg's leftover (which gives the
 * whole pages back to the counters), its statistics flushed if they were
 * its, its reference put.  Out of line: inlined into the refill's
 * eviction, it costs the refill's hit a saved register.
 */
static noinline void drain_obj73_slot(struct mcs_obj73_stock *stock, int i)
{
	struct mcs_objcg *old = READ_ONCE(stock->cached[i]);

	if (!old)
		return;
	if (stock->nr_bytes[i]) {
		mcs_objcg_add_leftover(old, stock->nr_bytes[i]);
		stock->nr_bytes[i] = 0;
	}
	if (stock->index == i)
		drain_obj73_stats(stock);
	WRITE_ONCE(stock->cached[i], NULL);
	mcs_objcg_put(old);
}

/* Empty every slot of @stock, locked or on a dead CPU. */
void mcs_obj73_drain(struct mcs_obj73_stock *stock)
{
	int i;

	for (i = 0; i < NR_OBJ73_STOCK; i++)
		drain_obj73_slot(stock, i);
	/* an empty stock starts afresh: the same history, the same evictions */
	stock->drain_idx = 0;
}

/**
 * mcs_obj73_refill() - put bytes already charged into the locked obj stock
 * @objcg: their objcg
 * @stock: this CPU's obj stock, locked, or NULL when it was busy
 * @nr_bytes: how many
 * @allow_uncharge: give whole pages back once the slot passes one page;
 *	false from the charge side, so as not to uncharge a page it has just
 *	charged (the slot then grows up to U16_MAX)
 *
 * Out of line, as 7.3's __refill_obj_stock(): one scan finds the objcg's
 * slot and the first empty one.  An objcg without a slot takes the empty
 * one, else the round-robin victim's, with its leftover exchanged in.
 * With a NULL @stock (busy) the bytes go to the leftover.
 *
 * Return: the whole pages given back, which the caller uncharges once it
 * has left the section.
 */
noinline unsigned int mcs_obj73_refill(struct mcs_objcg *objcg, struct mcs_obj73_stock *stock,
				       unsigned int nr_bytes, bool allow_uncharge)
{
	unsigned int nr_pages = 0, stocked;
	int i, slot = -1, empty = -1;

	if (!stock) {
		mcs_objcg_trylock_fail(objcg);
		mcs_objcg_add_leftover(objcg, nr_bytes);
		return 0;
	}
	mcs_assert_mode_fence();

	for (i = 0; i < NR_OBJ73_STOCK; i++) {
		struct mcs_objcg *cached = READ_ONCE(stock->cached[i]);

		if (!cached) {
			if (empty < 0)
				empty = i;
			continue;
		}
		if (cached == objcg) {
			slot = i;
			break;
		}
	}

	if (slot >= 0) {
		stocked = stock->nr_bytes[slot];
	} else {
		slot = empty;
		if (slot < 0) {
			slot = stock->drain_idx++;
			if (stock->drain_idx == NR_OBJ73_STOCK)
				stock->drain_idx = 0;
			drain_obj73_slot(stock, slot);
		}
		mcs_objcg_get(objcg);
		/* the leftover joins the slot; kept wide for the U16_MAX test */
		stocked = atomic_read(&objcg->nr_charged_bytes) ?
			  atomic_xchg(&objcg->nr_charged_bytes, 0) : 0;
		WRITE_ONCE(stock->cached[slot], objcg);
		allow_uncharge = true;
	}

	stocked += nr_bytes;
	if ((allow_uncharge && stocked > PAGE_SIZE) || stocked > U16_MAX) {
		nr_pages = stocked >> PAGE_SHIFT;
		stocked &= PAGE_SIZE - 1;
	}
	stock->nr_bytes[slot] = stocked;
	if (nr_pages)
		mcs_test_hook_at(MCS_HOOK_OBJ_PAGES);
	return nr_pages;
}

/*
 * Account @nr slab bytes of @objcg on @nid: cached in the stock when the
 * objcg has a slot there (after a consume or a refill it has), flushed
 * when the slot or the node changes, when the sum leaves 16 bits, or when
 * a sum that was not empty passes a page.  A first delta is kept however
 * large, so that the matching free can cancel it.
 */
void mcs_obj73_account(struct mcs_objcg *objcg, struct mcs_obj73_stock *stock, int nr,
		       int nid, enum mcs_slab_item item)
{
	s16 *cached;
	int i;

	if (!stock)
		goto direct;
	for (i = 0; i < NR_OBJ73_STOCK; i++)
		if (READ_ONCE(stock->cached[i]) == objcg)
			break;
	if (i == NR_OBJ73_STOCK)
		goto direct;

	if (stock->index >= 0 && (stock->index != i || stock->node_id != nid))
		drain_obj73_stats(stock);
	if (stock->index < 0) {
		stock->index = i;
		stock->node_id = nid;
	}
	cached = &stock->nr_slab_b[item];
	nr += *cached;
	if (abs(nr) <= S16_MAX && (!*cached || abs(nr) <= PAGE_SIZE)) {
		*cached = nr;
		return;
	}
	*cached = 0;
direct:
	if (nr)
		mcs_objcg_mod_stat(objcg, nid, item, nr);
}

/* The byte take of the interface: mcs_obj73_take() on this mode's stock. */
bool mcs_decoupled73_bytes_take(struct mcs_objcg *objcg, unsigned int size, bool account,
				int nid, enum mcs_slab_item item, enum mcs_stock_mode mode)
{
	return mcs_obj73_take(&mcs_obj73_stock, mcs_obj73_trylock_stock(), objcg, size,
			      account, nid, item);
}

/* The byte put of the interface: mcs_obj73_put() on this mode's stock. */
unsigned int mcs_decoupled73_bytes_put(struct mcs_objcg *objcg, unsigned int nr_bytes,
				       bool allow_uncharge, bool account, int acct, int nid,
				       enum mcs_slab_item item, enum mcs_stock_mode mode)
{
	return mcs_obj73_put(&mcs_obj73_stock, mcs_obj73_trylock_stock(), objcg, nr_bytes,
			     allow_uncharge, account, acct, nid, item, mode);
}

/* Runs on the stock's own CPU, in task context. */
static void drain_local_obj73_stock(struct work_struct *work)
{
	struct mcs_obj73_stock *stock = container_of(work, struct mcs_obj73_stock, work);

	if (WARN_ONCE(!in_task(), "memcg_stock: obj stock drain in atomic context\n"))
		return;
	local_lock(&mcs_obj73_stock.lock);
	/* Run elsewhere because its CPU went down: hotplug drains that one. */
	if (stock == this_cpu_ptr(&mcs_obj73_stock))
		mcs_obj73_drain(stock);
	clear_bit(FLUSHING_CACHED_CHARGE, &stock->flags);
	local_unlock(&mcs_obj73_stock.lock);
}

/* Does the obj stock @stock cache an objcg charging @root's subtree? */
bool mcs_obj73_holds(struct mcs_obj73_stock *stock, struct mcs_memcg *root)
{
	bool ret = false;
	int i;

	rcu_read_lock();
	for (i = 0; i < NR_OBJ73_STOCK; i++) {
		struct mcs_objcg *objcg = READ_ONCE(stock->cached[i]);

		if (objcg && mcs_memcg_is_descendant(READ_ONCE(objcg->memcg), root)) {
			ret = true;
			break;
		}
	}
	rcu_read_unlock();
	return ret;
}

static bool obj73_stock_holds(int cpu, struct mcs_memcg *root, bool any_slot)
{
	return mcs_obj73_holds(per_cpu_ptr(&mcs_obj73_stock, cpu), root);
}

/* @cpu is dead: nothing runs there, no lock needed. */
static void obj73_stock_cpu_dead(unsigned int cpu)
{
	struct mcs_obj73_stock *stock = per_cpu_ptr(&mcs_obj73_stock, cpu);

	mcs_obj73_drain(stock);
	clear_bit(FLUSHING_CACHED_CHARGE, &stock->flags);
}

/* The slots of @stock, @cpu's obj stock of this shape, as kind @name. */
void mcs_obj73_walk(struct mcs_obj73_stock *stock, int cpu, const char *name,
		    mcs_slot_fn fn, void *arg)
{
	int i;

	for (i = 0; i < NR_OBJ73_STOCK; i++)
		mcs_stock_slot_visit(fn, arg, cpu, name, i, true,
				     mcs_stock_objcg_memcg(READ_ONCE(stock->cached[i])),
				     READ_ONCE(stock->nr_bytes[i]));
}

/* The slots of @cpu's obj stock of mode decoupled-7.3. */
static void obj73_stock_walk(int cpu, mcs_slot_fn fn, void *arg)
{
	mcs_obj73_walk(per_cpu_ptr(&mcs_obj73_stock, cpu), cpu, "obj73", fn, arg);
}

const struct mcs_stock_kind mcs_obj73_stock_kind =
	MCS_STOCK_KIND(mcs_obj73_stock, struct mcs_obj73_stock, drain_local_obj73_stock,
		       obj73_stock_holds, obj73_stock_cpu_dead, obj73_stock_walk);
