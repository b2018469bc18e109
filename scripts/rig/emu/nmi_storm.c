// SPDX-License-Identifier: GPL-2.0
/*
 * nmi_storm: an NMI load and nothing else, to tell an emulator's faults
 * from the module's (scripts/rig/emu-check.sh).
 *
 * Every online CPU runs a hard hrtimer every nmi_us microseconds that sends
 * an NMI through the local APIC to the next online CPU, at most one in
 * flight per CPU, as the stress harness's NMI source does (harness/nmi.c).
 * The handler only takes its own NMIs: it charges nothing, allocates
 * nothing, takes no lock.  Whatever crashes a kernel with only this module
 * loaded is not memcg_stock's.
 *
 * x86 only; no CPU may go offline while it is loaded (its timers are
 * started on the CPUs online at load).
 */
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <asm/apic.h>
#include <asm/nmi.h>

#include "objects/compat.h"

static unsigned int nmi_us = 50;
module_param(nmi_us, uint, 0444);
MODULE_PARM_DESC(nmi_us, "NMI period per CPU in microseconds, 10 to 1000000 (default 50)");

static DEFINE_PER_CPU(struct hrtimer, storm_timer);
static DEFINE_PER_CPU(int, storm_asked);
static atomic_long_t storm_sent = ATOMIC_LONG_INIT(0);
static atomic_long_t storm_taken = ATOMIC_LONG_INIT(0);

static int storm_nmi(unsigned int type, struct pt_regs *regs)
{
	if (!this_cpu_read(storm_asked))
		return NMI_DONE;
	atomic_long_inc(&storm_taken);
	this_cpu_write(storm_asked, 0);
	return NMI_HANDLED;
}

static enum hrtimer_restart storm_fire(struct hrtimer *timer)
{
	unsigned int next = cpumask_next(smp_processor_id(), cpu_online_mask);

	if (next >= nr_cpu_ids)
		next = cpumask_first(cpu_online_mask);
	if (!xchg(per_cpu_ptr(&storm_asked, next), 1)) {
		apic->send_IPI_mask(cpumask_of(next), NMI_VECTOR);
		atomic_long_inc(&storm_sent);
	}
	hrtimer_forward_now(timer, ns_to_ktime((u64)nmi_us * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

static void storm_start(void *unused)
{
	hrtimer_start(this_cpu_ptr(&storm_timer), ns_to_ktime((u64)nmi_us * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

static int __init storm_init(void)
{
	int cpu, ret;

	if (nmi_us < 10 || nmi_us > 1000000)
		return -EINVAL;
	for_each_possible_cpu(cpu)
		mcs_hrtimer_setup(per_cpu_ptr(&storm_timer, cpu), storm_fire, CLOCK_MONOTONIC,
				  HRTIMER_MODE_REL_PINNED_HARD);
	ret = register_nmi_handler(NMI_UNKNOWN, storm_nmi, 0, "mcs_nmi_storm");
	if (ret)
		return ret;
	on_each_cpu(storm_start, NULL, 1);
	return 0;
}

static void __exit storm_exit(void)
{
	unsigned int i;
	int cpu;

	for_each_possible_cpu(cpu)
		hrtimer_cancel(per_cpu_ptr(&storm_timer, cpu));
	/* the NMIs in flight land before the handler goes (0.2 s at most per CPU) */
	for_each_possible_cpu(cpu)
		for (i = 0; i < 1000 && READ_ONCE(per_cpu(storm_asked, cpu)); i++)
			usleep_range(100, 200);
	unregister_nmi_handler(NMI_UNKNOWN, "mcs_nmi_storm");
	pr_info("mcs_nmi_storm: %ld NMIs sent, %ld taken\n",
		atomic_long_read(&storm_sent), atomic_long_read(&storm_taken));
}

module_init(storm_init);
module_exit(storm_exit);
MODULE_DESCRIPTION("An NMI load alone: emulator faults told from memcg_stock's");
MODULE_LICENSE("GPL");
