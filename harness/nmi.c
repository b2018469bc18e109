// SPDX-License-Identifier: GPL-2.0
/*
 * An NMI source the module drives itself, for the tests of the NMI-safe
 * charge paths: an NMI_LOCAL handler, and NMIs sent to one CPU at a time
 * through the local APIC.
 *
 * One user at a time registers a function; mcs_nmi_raise() sends an NMI to
 * a CPU, at most one in flight per CPU: a per-CPU flag is set before the
 * send and claimed by the handler, which answers NMI_DONE ("not mine") to
 * every NMI it did not ask for, so the kernel's unknown-NMI report stays
 * meaningful.  Where the kernel has no such source (UML, non-x86), every
 * call says so (-EOPNOTSUPP, false).
 *
 * Context: register and unregister in task context (unregister waits for
 * running handlers); mcs_nmi_raise() in any context but NMI.
 */
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/percpu.h>

#include "harness.h"

/* one user at a time; held across tasks (a KUnit case and its cleanup) */
static unsigned long nmi_busy;
static void (*nmi_fn)(void *arg);
static void *nmi_arg;
static DEFINE_PER_CPU(int, nmi_asked);
static atomic_long_t nr_nmis = ATOMIC_LONG_INIT(0);

static int mcs_nmi_handler(unsigned int type, struct pt_regs *regs)
{
	void (*fn)(void *arg);

	if (!this_cpu_read(nmi_asked))
		return MCS_NMI_DONE;
	fn = READ_ONCE(nmi_fn);
	if (fn)
		fn(READ_ONCE(nmi_arg));
	atomic_long_inc(&nr_nmis);
	/* claimed last: the sender sees the handler finished */
	this_cpu_write(nmi_asked, 0);
	return MCS_NMI_HANDLED;
}

/**
 * mcs_nmi_supported() - can this kernel send NMIs for the module?
 *
 * Return: true on x86 with a local APIC; false on UML and elsewhere.
 */
bool mcs_nmi_supported(void)
{
	return MCS_HAVE_NMI_SOURCE;
}
EXPORT_SYMBOL_NS_GPL(mcs_nmi_supported, MCS_NS);

/**
 * mcs_nmi_register() - become the user of the NMI source
 * @fn: runs in NMI context on the CPU an NMI was raised for
 * @arg: its argument
 *
 * Task context.
 *
 * Return: 0; -EOPNOTSUPP without an NMI source; -EBUSY when somebody
 * else uses it; or the error of register_nmi_handler().
 */
int mcs_nmi_register(void (*fn)(void *arg), void *arg)
{
	int ret;

	if (!mcs_nmi_supported())
		return -EOPNOTSUPP;
	if (test_and_set_bit_lock(0, &nmi_busy))
		return -EBUSY;
	WRITE_ONCE(nmi_arg, arg);
	WRITE_ONCE(nmi_fn, fn);
	ret = mcs_compat_register_nmi(mcs_nmi_handler);
	if (ret) {
		WRITE_ONCE(nmi_fn, NULL);
		clear_bit_unlock(0, &nmi_busy);
	}
	return ret;
}
EXPORT_SYMBOL_NS_GPL(mcs_nmi_register, MCS_NS);

/**
 * mcs_nmi_unregister() - stop using the NMI source
 *
 * Waits for the NMIs in flight (at most one per CPU, for up to about
 * 100 ms each) and for running handlers.  Task context; sleeps.  Only
 * after a successful mcs_nmi_register().
 */
void mcs_nmi_unregister(void)
{
	int cpu, tries;

	for_each_possible_cpu(cpu)
		for (tries = 0; READ_ONCE(per_cpu(nmi_asked, cpu)) && tries < 1000; tries++)
			usleep_range(100, 200);
	mcs_compat_unregister_nmi();
	WRITE_ONCE(nmi_fn, NULL);
	for_each_possible_cpu(cpu)
		per_cpu(nmi_asked, cpu) = 0;
	clear_bit_unlock(0, &nmi_busy);
}
EXPORT_SYMBOL_NS_GPL(mcs_nmi_unregister, MCS_NS);

/**
 * mcs_nmi_raise() - send an NMI to a CPU
 * @cpu: online CPU
 *
 * Any context but NMI.  The caller is the registered user.
 *
 * Return: true if sent; false while the last NMI sent to @cpu has not
 * been handled yet, or without an NMI source.
 */
bool mcs_nmi_raise(int cpu)
{
	if (!mcs_nmi_supported() || cmpxchg(per_cpu_ptr(&nmi_asked, cpu), 0, 1))
		return false;
	mcs_compat_send_nmi(cpu);
	return true;
}
EXPORT_SYMBOL_NS_GPL(mcs_nmi_raise, MCS_NS);

/**
 * mcs_nmi_pending() - is an NMI sent to a CPU still unhandled?
 * @cpu: CPU
 *
 * Return: true until the handler for it has finished.
 */
bool mcs_nmi_pending(int cpu)
{
	return READ_ONCE(per_cpu(nmi_asked, cpu));
}
EXPORT_SYMBOL_NS_GPL(mcs_nmi_pending, MCS_NS);

/**
 * mcs_nmi_forget() - drop the handshake of an NMI a CPU never handled
 * @cpu: a CPU no sender can raise an NMI to any more (it is going down)
 *
 * An NMI sent to a CPU that went offline before taking it would keep
 * mcs_nmi_raise() refusing that CPU for good once it is back.  If the NMI
 * arrives after all, the handler calls it "not mine" (NMI_DONE).
 */
void mcs_nmi_forget(int cpu)
{
	WRITE_ONCE(per_cpu(nmi_asked, cpu), 0);
}
EXPORT_SYMBOL_NS_GPL(mcs_nmi_forget, MCS_NS);

/**
 * mcs_nmi_count() - NMIs handled since load
 *
 * Return: the count.
 */
long mcs_nmi_count(void)
{
	return atomic_long_read(&nr_nmis);
}
EXPORT_SYMBOL_NS_GPL(mcs_nmi_count, MCS_NS);
