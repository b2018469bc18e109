// SPDX-License-Identifier: GPL-2.0
/*
 * Releases handed over from NMI context, and the count of frees in flight.
 *
 * NMI context may take no lock but a trylock and may not call_rcu(), so a
 * last reference dropped there (of a memcg or an objcg) puts its release
 * on a lock-free list, and an irq_work finishes it in hard interrupt
 * context right after the NMI.  Whoever starts a release that ends in an
 * RCU callback or a work item counts it in mcs_pending_frees first, so
 * that mcs_wait_for_frees() (and module exit) can wait for it.
 *
 * Bottom layer of the mechanism with the page counters: it knows no memcg,
 * no objcg and no stock, only struct mcs_deferred.
 */
#include <linux/atomic.h>
#include <linux/irq_work.h>
#include <linux/llist.h>
#include <linux/module.h>

#include "counters.h"

atomic_t mcs_pending_frees = ATOMIC_INIT(0);

static LLIST_HEAD(deferred_list);
static atomic_long_t nr_deferred = ATOMIC_LONG_INIT(0);

static void deferred_release_fn(struct irq_work *work)
{
	struct llist_node *list = llist_del_all(&deferred_list);
	struct mcs_deferred *d, *next;

	llist_for_each_entry_safe(d, next, list, node)
		d->release(d);
}

static struct irq_work deferred_work = IRQ_WORK_INIT_HARD(deferred_release_fn);

/*
 * Finish the deferred releases from a context that may do what they do
 * (call_rcu(), a raw spinlock, queue_work()): anything but NMI.  Those
 * left on the list by an NMI on a CPU going down are found here.
 */
void mcs_run_deferred_releases(void)
{
	deferred_release_fn(&deferred_work);
}

/* Wait for the irq_work in flight, then run what is left on the list. */
void mcs_sync_deferred_releases(void)
{
	irq_work_sync(&deferred_work);
	mcs_run_deferred_releases();
}

/**
 * __mcs_defer_release() - hand a release over from NMI context
 * @d: the object's deferral node
 * @release: finishes the release later, in a context that is not NMI
 * @queue: queue the irq_work that runs the list
 *
 * Any context.  @queue false is the path of an NMI on a CPU that has left
 * the online mask: it is going down, and its dying phase may have flushed its
 * irq_works already.  One queued now would stay pending there while the
 * CPU is offline, and every other CPU's irq_work_queue() of the same work
 * would find it pending and do nothing.  The release waits on the list
 * instead, for the next irq_work on any CPU, the hotplug callback of that
 * CPU's death, or mcs_wait_for_frees().
 */
void __mcs_defer_release(struct mcs_deferred *d, void (*release)(struct mcs_deferred *d),
			 bool queue)
{
	d->release = release;
	atomic_long_inc(&nr_deferred);
	llist_add(&d->node, &deferred_list);
	if (queue)
		irq_work_queue(&deferred_work);
}
EXPORT_SYMBOL_NS_GPL(__mcs_defer_release, MCS_NS);

/**
 * mcs_defer_release() - hand a release over from NMI context
 * @d: the object's deferral node
 * @release: finishes the release later, in a context that is not NMI
 *
 * __mcs_defer_release() with the irq_work queued when this CPU is online,
 * which is every case but an NMI on a CPU going down.  Any context.
 * Exported into MCS_NS for the KUnit case that checks that choice.
 */
void mcs_defer_release(struct mcs_deferred *d, void (*release)(struct mcs_deferred *d))
{
	__mcs_defer_release(d, release, cpu_online(smp_processor_id()));
}
EXPORT_SYMBOL_NS_GPL(mcs_defer_release, MCS_NS);

/**
 * mcs_deferred_releases() - releases handed over from NMI since load
 *
 * For the KUnit module (namespace MCS_NS): a test proves with it that the
 * deferral ran.  Any context.
 *
 * Return: how many last references dropped in NMI went through the
 * irq_work deferral.
 */
long mcs_deferred_releases(void)
{
	return atomic_long_read(&nr_deferred);
}
EXPORT_SYMBOL_NS_GPL(mcs_deferred_releases, MCS_NS);
