// SPDX-License-Identifier: GPL-2.0
/*
 * The charge lifetime API: page charges as transactions whose lifetime
 * follows the object they account for (after Weiner's 2014 "naturalize
 * charge lifetime").
 *
 * A struct mcs_charge plays the role of a page's memcg binding:
 *
 *	mcs_charge_try()	reserve: charge the counters (stock fast path)
 *	mcs_charge_commit()	bind: the descriptor now owns the charge and a
 *				reference on the memcg
 *	mcs_charge_cancel()	abort an uncommitted reservation
 *	mcs_charge_uncharge()		release a committed charge ("at free"); many
 *				at once through a gather or mcs_charge_uncharge_batch()
 *	mcs_charge_migrate()	move a committed charge to another descriptor
 *
 * Cancel and uncharge return pages straight to the page counters, never
 * into the stock, as upstream's uncharge at free does: objects are freed
 * in bulk, often by reclaim or exit on a CPU that is not charging their
 * memcg, where refilled pages would only evict the slots of memcgs that
 * are.  Batching makes up for it: consecutive descriptors of one owner
 * cost one counter update, one statistics update and one reference drop
 * for the whole run.
 *
 * Context rules: every function here may run in task, softirq or hardirq
 * context, and in NMI with a gfp mask without reclaim bits (see
 * memcg_stock.h).  mcs_charge_try() inherits mcs_charge_pages()'s rule
 * that a gfp mask allowing blocking means task context.  The page
 * counters are atomic, the statistics are per-CPU local_t, and the last
 * put of a memcg frees after an RCU grace period (from NMI, through the
 * module's irq_work deferral); nothing here takes a lock.
 * mcs_charge_expect_misuse() is for tests, task context.
 *
 * Ownership: a descriptor, and a gather, belong to one caller at a time,
 * as a page's memcg binding is stable only under the page lock, LRU
 * isolation or exclusive ownership.  Nothing here locks them, so nothing
 * here orders concurrent accesses to one descriptor: callers that hand a
 * descriptor to another thread provide that ordering themselves.
 *
 * Misuse - a transition the state machine does not allow, such as a
 * second commit, an uncharge of a descriptor that is not committed or a
 * cancel of one that is - changes nothing, increments a counter that
 * mcs_charge_misuses() reads, and warns once per call site.  A KUnit case
 * that provokes misuse on purpose must not produce a warning (the test rig
 * fails any run whose console shows one), so a task may announce it with
 * mcs_charge_expect_misuse(): misuse from that task, in task context, is
 * still refused and counted but not warned about.  The announcement names
 * one task, so misuse by anybody else at the same time still warns.
 */
#include <linux/module.h>
#include <linux/bug.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/sched.h>

#include "charge.h"
#include "objects/memcg.h"

static atomic_long_t nr_misuses = ATOMIC_LONG_INIT(0);
static struct task_struct *misuse_expected_by;

static const char * const charge_state_names[] = {
	[MCS_CHARGE_IDLE]	= "idle",
	[MCS_CHARGE_RESERVED]	= "reserved",
	[MCS_CHARGE_COMMITTED]	= "committed",
};

static const char *state_name(const struct mcs_charge *c)
{
	if (c->state < ARRAY_SIZE(charge_state_names))
		return charge_state_names[c->state];
	return "corrupt";
}

static bool misuse_expected(void)
{
	return in_task() && READ_ONCE(misuse_expected_by) == current;
}

/*
 * Evaluates to @cond.  A macro, so that each call site has a warning of its
 * own: the first misuse of one kind does not hide the first of another.
 */
#define charge_misuse(cond, fmt, ...)					\
({									\
	bool __misuse = unlikely(cond);					\
									\
	if (__misuse) {							\
		atomic_long_inc(&nr_misuses);				\
		WARN_ONCE(!misuse_expected(),				\
			  "memcg_stock: " fmt "\n", ##__VA_ARGS__);	\
	}								\
	__misuse;							\
})

/* One statistics update: @nr_pages charged, @in commits, @out uncharges. */
static void charge_statistics(struct mcs_memcg *memcg, long nr_pages,
			      unsigned long in, unsigned long out)
{
	struct mcs_memcg_stats_pcpu *stats = get_cpu_ptr(memcg->stats);

	local_add(nr_pages, &stats->charge[MCS_CHARGED_PAGES]);
	if (in)
		local_add(in, &stats->charge[MCS_PGPGIN]);
	if (out)
		local_add(out, &stats->charge[MCS_PGPGOUT]);
	put_cpu_ptr(memcg->stats);
}

static void charge_clear(struct mcs_charge *c)
{
	c->memcg = NULL;
	c->nr_pages = 0;
	c->state = MCS_CHARGE_IDLE;
}

/*
 * Straight to the counters, the root's included (mcs_charge_pages() charges
 * the root directly): see the top of the file for why not the stock.
 */
static void uncharge_counters(struct mcs_memcg *memcg, unsigned long nr_pages)
{
	mcs_page_counter_uncharge(&memcg->memory, nr_pages);
}

int mcs_charge_try(struct mcs_charge *c, struct mcs_memcg *memcg,
		   gfp_t gfp, unsigned int nr_pages)
{
	int ret;

	if (charge_misuse(c->state != MCS_CHARGE_IDLE,
			  "try_charge of a charge descriptor that is %s", state_name(c)))
		return -EINVAL;
	if (!nr_pages)
		return -EINVAL;

	ret = mcs_charge_pages(memcg, gfp, nr_pages);
	if (ret)
		return ret;
	c->memcg = memcg;
	c->nr_pages = nr_pages;
	c->state = MCS_CHARGE_RESERVED;
	return 0;
}
EXPORT_SYMBOL_GPL(mcs_charge_try);

void mcs_charge_commit(struct mcs_charge *c)
{
	if (charge_misuse(c->state != MCS_CHARGE_RESERVED,
			  "commit of a charge descriptor that is %s", state_name(c)))
		return;

	mcs_memcg_get(c->memcg);
	charge_statistics(c->memcg, c->nr_pages, 1, 0);
	c->state = MCS_CHARGE_COMMITTED;
}
EXPORT_SYMBOL_GPL(mcs_charge_commit);

void mcs_charge_cancel(struct mcs_charge *c)
{
	if (charge_misuse(c->state != MCS_CHARGE_RESERVED,
			  "cancel of a charge descriptor that is %s", state_name(c)))
		return;

	uncharge_counters(c->memcg, c->nr_pages);
	charge_clear(c);
}
EXPORT_SYMBOL_GPL(mcs_charge_cancel);

/*
 * Flush the run: one counter update, one statistics update, then the
 * run's reference, which may be the memcg's last.
 */
static void uncharge_batch(struct mcs_uncharge_gather *ug)
{
	struct mcs_memcg *memcg = ug->memcg;

	uncharge_counters(memcg, ug->nr_pages);
	charge_statistics(memcg, -(long)ug->nr_pages, 0, ug->nr_charges);
	ug->nr_batches++;
	ug->memcg = NULL;
	ug->nr_pages = 0;
	ug->nr_charges = 0;
	mcs_memcg_put(memcg);
}

/* @c is committed. */
static void uncharge_charge(struct mcs_uncharge_gather *ug, struct mcs_charge *c)
{
	if (ug->memcg != c->memcg) {
		if (ug->memcg)
			uncharge_batch(ug);
		/* The first descriptor of a run hands its reference to @ug. */
		ug->memcg = c->memcg;
	} else {
		/* Never the last reference: @ug holds one until the flush. */
		mcs_memcg_put(c->memcg);
	}
	ug->nr_pages += c->nr_pages;
	ug->nr_charges++;
	charge_clear(c);
}

void mcs_uncharge_gather_add(struct mcs_uncharge_gather *ug, struct mcs_charge *c)
{
	if (charge_misuse(c->state != MCS_CHARGE_COMMITTED,
			  "batched uncharge of a charge descriptor that is %s", state_name(c)))
		return;
	uncharge_charge(ug, c);
}
EXPORT_SYMBOL_GPL(mcs_uncharge_gather_add);

void mcs_uncharge_gather_flush(struct mcs_uncharge_gather *ug)
{
	if (ug->memcg)
		uncharge_batch(ug);
}
EXPORT_SYMBOL_GPL(mcs_uncharge_gather_flush);

void mcs_charge_uncharge(struct mcs_charge *c)
{
	struct mcs_uncharge_gather ug;

	if (charge_misuse(c->state != MCS_CHARGE_COMMITTED,
			  "uncharge of a charge descriptor that is %s", state_name(c)))
		return;
	mcs_uncharge_gather_init(&ug);
	uncharge_charge(&ug, c);
	uncharge_batch(&ug);
}
EXPORT_SYMBOL_GPL(mcs_charge_uncharge);

unsigned long mcs_charge_uncharge_batch(struct mcs_charge **charges, unsigned int nr)
{
	struct mcs_uncharge_gather ug;
	unsigned int i;

	mcs_uncharge_gather_init(&ug);
	for (i = 0; i < nr; i++)
		mcs_uncharge_gather_add(&ug, charges[i]);
	mcs_uncharge_gather_flush(&ug);
	return ug.nr_batches;
}
EXPORT_SYMBOL_GPL(mcs_charge_uncharge_batch);

void mcs_charge_migrate(struct mcs_charge *old, struct mcs_charge *new)
{
	if (charge_misuse(old->state != MCS_CHARGE_COMMITTED,
			  "migrate from a charge descriptor that is %s", state_name(old)))
		return;
	if (charge_misuse(new->state != MCS_CHARGE_IDLE,
			  "migrate to a charge descriptor that is %s", state_name(new)))
		return;

	new->memcg = old->memcg;
	new->nr_pages = old->nr_pages;
	new->state = MCS_CHARGE_COMMITTED;
	charge_clear(old);
}
EXPORT_SYMBOL_GPL(mcs_charge_migrate);

long mcs_charge_stat(struct mcs_memcg *memcg, enum mcs_charge_item item)
{
	long sum = 0;
	int cpu;

	if (!memcg || (unsigned int)item >= NR_MCS_CHARGE_ITEMS)
		return -EINVAL;
	for_each_possible_cpu(cpu)
		sum += local_read(&per_cpu_ptr(memcg->stats, cpu)->charge[item]);
	return sum;
}
EXPORT_SYMBOL_GPL(mcs_charge_stat);

long mcs_charge_misuses(void)
{
	return atomic_long_read(&nr_misuses);
}
EXPORT_SYMBOL_GPL(mcs_charge_misuses);

/**
 * mcs_charge_expect_misuse() - silence the misuse warning for this task
 * @expect: true to announce misuse from the calling task, false to end
 *	the announcement (whichever task made it)
 *
 * For tests only: a KUnit case that provokes misuse on purpose calls this
 * and undoes it through a KUnit action.  Misuse is still refused and
 * counted.  Only task context misuse of the announcing task is silenced.
 * The announcement must end before that task exits.  Task context.
 */
void mcs_charge_expect_misuse(bool expect)
{
	WRITE_ONCE(misuse_expected_by, expect ? current : NULL);
}
EXPORT_SYMBOL_NS_GPL(mcs_charge_expect_misuse, MCS_NS);
