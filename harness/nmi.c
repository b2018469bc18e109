// SPDX-License-Identifier: GPL-2.0
/*
 * An NMI source the module drives itself, for the tests of the NMI-safe
 * charge paths: NMIs sent to one CPU at a time through the local APIC, and
 * a handler that takes them.
 *
 * An NMI carries no sender: a handler can only tell "mine" from a flag of
 * its own.  Registered as NMI_LOCAL, a flag-only handler would also take a
 * perf or watchdog NMI that arrives while its flag is set, and its own NMI
 * would then come in unclaimed ("NMI received for unknown reason").  So the
 * handler is of the NMI_UNKNOWN class: the kernel calls it only for NMIs
 * that no NMI_LOCAL handler claimed, after perf, the watchdog and the
 * backtrace IPIs had their turn.  Within that class the per-CPU flag still
 * decides: an NMI nobody asked for is answered NMI_DONE and reported by the
 * kernel as before.  What remains: an NMI of ours that arrives right behind
 * one that several handlers claimed at once is swallowed by the kernel's
 * back-to-back heuristic and never reaches any handler; its handshake then
 * stays set, and mcs_nmi_raise() refuses that CPU until the user drops it
 * with mcs_nmi_forget() (the stress harness counts such NMIs as lost).
 *
 * One user at a time registers a function; mcs_nmi_raise() sends an NMI to
 * a CPU, at most one in flight per CPU: the flag is set before the send and
 * cleared by the handler once the function has run.  A CPU going down
 * takes no NMI from here any more (a hotplug callback that runs while it is
 * still online: senders stop aiming at it, and the NMI in flight is waited
 * for, or its handshake dropped), so that no function runs on a CPU that
 * is leaving and no handshake is left pending for when it returns.  Where
 * the kernel has no such source (UML, non-x86), every call says so
 * (-EOPNOTSUPP, false).
 *
 * Context: register and unregister in task context (unregister waits for
 * running handlers); mcs_nmi_raise() in any context but NMI.
 */
#include <linux/atomic.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>

#include "harness.h"

/* one user at a time; held across tasks (a KUnit case and its cleanup) */
static unsigned long nmi_busy;
static void (*nmi_fn)(void *arg);
static void *nmi_arg;
static DEFINE_PER_CPU(int, nmi_asked);
static DEFINE_PER_CPU(bool, nmi_accepting);	/* online and not going down */
static enum cpuhp_state nmi_hp_state;
static atomic_long_t nr_nmis = ATOMIC_LONG_INIT(0);
static atomic_long_t nr_lost = ATOMIC_LONG_INIT(0);

/* How long a CPU going down (or the unregister) waits for an NMI in flight. */
#define NMI_SETTLE_MS	100

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

/* Has the NMI in flight to @cpu been handled, waiting up to NMI_SETTLE_MS? */
static bool nmi_settled(int cpu)
{
	unsigned int i;

	for (i = 0; i < NMI_SETTLE_MS * 10 && READ_ONCE(per_cpu(nmi_asked, cpu)); i++)
		usleep_range(100, 200);
	return !READ_ONCE(per_cpu(nmi_asked, cpu));
}

/* CPUHP_AP_ONLINE_DYN: on @cpu, in its hotplug thread, while it is online. */
static int nmi_cpu_online(unsigned int cpu)
{
	WRITE_ONCE(per_cpu(nmi_accepting, cpu), true);
	return 0;
}

/*
 * Senders check nmi_accepting and send in one RCU section: after the grace
 * period none can aim at @cpu any more.  The NMI last sent there is then
 * handled while @cpu is still online, or dropped as lost.
 */
static int nmi_cpu_offline(unsigned int cpu)
{
	WRITE_ONCE(per_cpu(nmi_accepting, cpu), false);
	synchronize_rcu();
	if (!nmi_settled(cpu)) {
		atomic_long_inc(&nr_lost);
		mcs_nmi_forget(cpu);
	}
	return 0;
}

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
	if (ret)
		goto err;
	/* marks every online CPU as a target, from its own hotplug thread */
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "memcg_stock/nmi:online",
				nmi_cpu_online, nmi_cpu_offline);
	if (ret < 0) {
		mcs_compat_unregister_nmi();
		goto err;
	}
	nmi_hp_state = ret;
	return 0;
err:
	WRITE_ONCE(nmi_fn, NULL);
	clear_bit_unlock(0, &nmi_busy);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(mcs_nmi_register, MCS_NS);

/**
 * mcs_nmi_unregister() - stop using the NMI source
 *
 * Stops the sending, then waits for the NMIs in flight (at most one per
 * CPU, for up to NMI_SETTLE_MS each) and for running handlers.  Task context; sleeps.  Only
 * after a successful mcs_nmi_register().
 */
void mcs_nmi_unregister(void)
{
	int cpu;

	cpuhp_remove_state_nocalls(nmi_hp_state);
	for_each_possible_cpu(cpu)
		WRITE_ONCE(per_cpu(nmi_accepting, cpu), false);
	synchronize_rcu();
	for_each_possible_cpu(cpu)
		nmi_settled(cpu);
	mcs_compat_unregister_nmi();
	WRITE_ONCE(nmi_fn, NULL);
	for_each_possible_cpu(cpu)
		per_cpu(nmi_asked, cpu) = 0;
	clear_bit_unlock(0, &nmi_busy);
}
EXPORT_SYMBOL_NS_GPL(mcs_nmi_unregister, MCS_NS);

/**
 * mcs_nmi_arm() - ask for an NMI on a CPU without sending it yet
 * @cpu: CPU
 *
 * The first half of mcs_nmi_raise(), for a test that puts something
 * between the two (another NMI source's NMI, say).  The caller sends with
 * mcs_nmi_fire() right after, in the same RCU read-side section.
 *
 * Return: false when @cpu takes no NMI from here (offline, going down, no
 * user registered) or its last NMI has not been handled yet.
 */
bool mcs_nmi_arm(int cpu)
{
	RCU_LOCKDEP_WARN(!rcu_read_lock_any_held(), "memcg_stock: NMI armed outside RCU");
	if (!mcs_nmi_supported() || (unsigned int)cpu >= nr_cpu_ids ||
	    !READ_ONCE(per_cpu(nmi_accepting, cpu)))
		return false;
	return !cmpxchg(per_cpu_ptr(&nmi_asked, cpu), 0, 1);
}
EXPORT_SYMBOL_NS_GPL(mcs_nmi_arm, MCS_NS);

/**
 * mcs_nmi_fire() - send the NMI that mcs_nmi_arm() asked for
 * @cpu: the CPU armed
 */
void mcs_nmi_fire(int cpu)
{
	mcs_compat_send_nmi(cpu);
}
EXPORT_SYMBOL_NS_GPL(mcs_nmi_fire, MCS_NS);

/**
 * mcs_nmi_raise() - send an NMI to a CPU
 * @cpu: CPU
 *
 * Any context but NMI.  The caller is the registered user.
 *
 * Return: true if sent; false while the last NMI sent to @cpu has not
 * been handled yet, when @cpu is offline or going down, or without an
 * NMI source.
 */
bool mcs_nmi_raise(int cpu)
{
	bool sent;

	rcu_read_lock();
	sent = mcs_nmi_arm(cpu);
	if (sent)
		mcs_nmi_fire(cpu);
	rcu_read_unlock();
	return sent;
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
 * An NMI sent to a CPU that went offline before taking it, or one the
 * kernel swallowed, would keep mcs_nmi_raise() refusing that CPU for good.
 * If the NMI arrives after all, the handler calls it "not mine" (NMI_DONE).
 */
void mcs_nmi_forget(int cpu)
{
	WRITE_ONCE(per_cpu(nmi_asked, cpu), 0);
}
EXPORT_SYMBOL_NS_GPL(mcs_nmi_forget, MCS_NS);

/**
 * mcs_nmi_lost() - NMIs dropped by a CPU going down since load
 *
 * Return: how many NMIs were still unhandled NMI_SETTLE_MS after the CPU
 * they were sent to started going down.
 */
long mcs_nmi_lost(void)
{
	return atomic_long_read(&nr_lost);
}
EXPORT_SYMBOL_NS_GPL(mcs_nmi_lost, MCS_NS);

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
