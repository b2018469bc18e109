// SPDX-License-Identifier: GPL-2.0
/*
 * Lockless hierarchical page counters.
 *
 * A charge is added to a counter and to every ancestor.  No lock is taken:
 * usage is an atomic, limits are read once per level.  These functions may
 * be called from any context, hardirq included, except set_max which may
 * sleep (cond_resched) and must be serialised by its caller.
 */
#include <linux/module.h>
#include <linux/atomic.h>
#include <linux/printk.h>
#include <linux/sched.h>

#include "counters.h"

/* Uncharges that would have taken a counter below zero, since load. */
static atomic_long_t underflows = ATOMIC_LONG_INIT(0);

void mcs_page_counter_init(struct mcs_page_counter *counter,
			   struct mcs_page_counter *parent)
{
	atomic_long_set(&counter->usage, 0);
	counter->max = MCS_PAGE_COUNTER_MAX;
	counter->watermark = 0;
	atomic_long_set(&counter->failcnt, 0);
	counter->parent = parent;
}
EXPORT_SYMBOL_GPL(mcs_page_counter_init);

/* Take @nr_pages off this one level; never below zero. */
static void page_counter_cancel(struct mcs_page_counter *counter,
				unsigned long nr_pages)
{
	long new;

	new = atomic_long_sub_return(nr_pages, &counter->usage);
	if (new < 0) {
		/*
		 * More was uncharged than charged: a caller bug.  Clamp so
		 * that the damage does not spread to later charges, and
		 * count it so that the invariant checks report it.  This
		 * is deliberately not a WARN: the KUnit suite provokes it.
		 */
		atomic_long_inc(&underflows);
		pr_warn_ratelimited("memcg_stock: page_counter underflow: %ld nr_pages=%lu\n",
				    new, nr_pages);
		atomic_long_set(&counter->usage, 0);
	}
}

/*
 * Take pages off one level only.  Used when charges move from a memcg
 * going offline to its parent, which already holds them.
 */
void mcs_page_counter_cancel_local(struct mcs_page_counter *counter,
				   unsigned long nr_pages)
{
	page_counter_cancel(counter, nr_pages);
}

static void page_counter_update_watermark(struct mcs_page_counter *counter,
					  long usage)
{
	/* Racy like upstream: a lost update only makes the mark lag. */
	if (usage > READ_ONCE(counter->watermark))
		WRITE_ONCE(counter->watermark, usage);
}

void mcs_page_counter_charge(struct mcs_page_counter *counter,
			     unsigned long nr_pages)
{
	struct mcs_page_counter *c;

	for (c = counter; c; c = c->parent)
		page_counter_update_watermark(c, atomic_long_add_return(nr_pages,
									&c->usage));
}
EXPORT_SYMBOL_GPL(mcs_page_counter_charge);

bool mcs_page_counter_try_charge(struct mcs_page_counter *counter,
				 unsigned long nr_pages,
				 struct mcs_page_counter **fail)
{
	struct mcs_page_counter *c;

	for (c = counter; c; c = c->parent) {
		long new;

		/*
		 * Add first and check the limit afterwards.  Reading usage,
		 * comparing and then adding would let two racing charges
		 * both see room for one and both succeed.  With add-then-
		 * check one of them sees the other's pages and backs out;
		 * at worst a large charge that is about to fail briefly
		 * makes a small concurrent one fail too, which is the
		 * cheaper error.  atomic_long_add_return() is a full
		 * barrier, so max is read after our pages are visible.
		 */
		new = atomic_long_add_return(nr_pages, &c->usage);
		if (new > READ_ONCE(c->max)) {
			atomic_long_sub(nr_pages, &c->usage);
			atomic_long_inc(&c->failcnt);
			*fail = c;
			goto failed;
		}
		page_counter_update_watermark(c, new);
	}
	return true;

failed:
	/* Undo the levels below the one that refused. */
	for (c = counter; c != *fail; c = c->parent)
		page_counter_cancel(c, nr_pages);
	return false;
}
EXPORT_SYMBOL_GPL(mcs_page_counter_try_charge);

void mcs_page_counter_uncharge(struct mcs_page_counter *counter,
			       unsigned long nr_pages)
{
	struct mcs_page_counter *c;

	for (c = counter; c; c = c->parent)
		page_counter_cancel(c, nr_pages);
}
EXPORT_SYMBOL_GPL(mcs_page_counter_uncharge);

int mcs_page_counter_set_max(struct mcs_page_counter *counter,
			     unsigned long nr_pages)
{
	for (;;) {
		unsigned long old;
		long usage;

		usage = atomic_long_read(&counter->usage);
		if (usage > 0 && (unsigned long)usage > nr_pages)
			return -EBUSY;

		old = xchg(&counter->max, nr_pages);

		/*
		 * A charge that raced with the xchg checked the old limit.
		 * If usage did not grow, or the limit went up, nothing can
		 * have slipped past the new limit.  Otherwise restore the
		 * old limit and look again.
		 */
		if (atomic_long_read(&counter->usage) <= usage || nr_pages >= old)
			return 0;

		WRITE_ONCE(counter->max, old);
		cond_resched();
	}
}
EXPORT_SYMBOL_GPL(mcs_page_counter_set_max);

long mcs_page_counter_underflows(void)
{
	return atomic_long_read(&underflows);
}
EXPORT_SYMBOL_GPL(mcs_page_counter_underflows);

