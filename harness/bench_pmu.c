// SPDX-License-Identifier: GPL-2.0
/*
 * The benchmark's in-kernel perf counters, behind the bench key
 * pmu=hw|sw|off (bench.c).
 *
 * Each client CPU gets a pair of counting (not sampling) perf events made
 * with perf_event_create_kernel_counter(), bound to that CPU, not to a
 * task.  They are created disabled, enabled just before the clients start
 * and disabled just after they are told to stop, so they cover the window
 * the wall-clock figure covers.  Their sums over the client CPUs, divided
 * by the charge+uncharge pairs of all clients, are the figures per pair:
 *
 *   pmu=hw   instructions and cycles (PERF_COUNT_HW_INSTRUCTIONS and
 *            PERF_COUNT_HW_CPU_CYCLES, kernel and user mode);
 *   pmu=sw   the software clocks cpu-clock and task-clock, in ns: no PMU
 *            needed, so every emulator runs the same code path.
 *
 * A per-CPU counter counts everything its CPU ran in the window: the
 * clients, the interrupt load of hardirq=1 and nmi=1, and anything else
 * that ran there, just as the wall clock does.
 *
 * Where a counter cannot be had - no PMU (-ENOENT, every emulator for
 * pmu=hw), a kernel without perf events (-EOPNOTSUPP, UML), a CPU gone
 * offline, counters all taken - or where one never ran in the window, the
 * result says pmu=unavailable with the error, and the rest of the
 * measurement stands.  When the kernel multiplexed a counter, its count is
 * scaled to the window and the result says pmu_scaled=1.
 *
 * Context: task context, may sleep.  Every call is bounded: perf waits
 * for nothing but a cross-CPU function call on the counter's CPU.
 */
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/perf_event.h>
#include <linux/slab.h>

#include "harness.h"
#include "bench_pmu.h"

const char * const mcs_bench_pmu_names[NR_MCS_PMU] = {
	[MCS_PMU_OFF] = "off", [MCS_PMU_HW] = "hw", [MCS_PMU_SW] = "sw",
};

struct pmu_event {
	const char *name;	/* result key, less "pmu_" and "_per_pair" */
	u32 type;
	u64 config;
};

static const struct pmu_event pmu_events[NR_MCS_PMU][MCS_PMU_EVENTS] = {
	[MCS_PMU_HW] = {
		{ "insns", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
		{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	},
	[MCS_PMU_SW] = {
		{ "cpu_clock_ns", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
		{ "task_clock_ns", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	},
};

static struct perf_event **pmu_slot(struct mcs_bench_pmu *pmu, int cpu, int e)
{
	return &pmu->events[cpu * MCS_PMU_EVENTS + e];
}

/**
 * mcs_bench_pmu_alloc() - prepare the counters of one measurement
 * @pmu: zeroed by the caller
 * @kind: what the bench line asked for
 *
 * Return: 0, or -ENOMEM (the bench write fails, nothing is left behind).
 */
int mcs_bench_pmu_alloc(struct mcs_bench_pmu *pmu, enum mcs_bench_pmu_kind kind)
{
	pmu->kind = kind;
	if (kind == MCS_PMU_OFF)
		return 0;
	pmu->events = kcalloc(nr_cpu_ids * MCS_PMU_EVENTS, sizeof(*pmu->events), GFP_KERNEL);
	return pmu->events ? 0 : -ENOMEM;
}

/* Release every counter; @pmu->error says why there are no figures. */
static void pmu_release(struct mcs_bench_pmu *pmu)
{
	int cpu, e;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		for (e = 0; e < MCS_PMU_EVENTS; e++) {
			struct perf_event **ev = pmu_slot(pmu, cpu, e);

			if (*ev)
				perf_event_release_kernel(*ev);
			*ev = NULL;
		}
	}
}

/**
 * mcs_bench_pmu_create() - a disabled counter pair on each client CPU
 * @pmu: prepared by mcs_bench_pmu_alloc()
 * @cpus: the CPUs the clients are bound to
 *
 * A failure is not an error of the bench: it only sets @pmu->error, and
 * the measurement runs without figures.
 */
void mcs_bench_pmu_create(struct mcs_bench_pmu *pmu, const struct cpumask *cpus)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.disabled = 1,
	};
	int cpu, e;

	if (!pmu->events)
		return;
	for_each_cpu(cpu, cpus) {
		for (e = 0; e < MCS_PMU_EVENTS; e++) {
			struct perf_event *ev;

			attr.type = pmu_events[pmu->kind][e].type;
			attr.config = pmu_events[pmu->kind][e].config;
			ev = mcs_compat_perf_counter(&attr, cpu);
			if (IS_ERR(ev)) {
				pmu->error = PTR_ERR(ev);
				pmu_release(pmu);
				return;
			}
			*pmu_slot(pmu, cpu, e) = ev;
		}
		pmu->cpus++;
	}
	if (!pmu->cpus)
		pmu->error = -ENODEV;
}

static bool pmu_ready(const struct mcs_bench_pmu *pmu)
{
	return pmu->events && !pmu->error;
}

/**
 * mcs_bench_pmu_start() - enable every counter, just before the load
 * @pmu: its counters
 */
void mcs_bench_pmu_start(struct mcs_bench_pmu *pmu)
{
	int cpu, e;

	if (!pmu_ready(pmu))
		return;
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		for (e = 0; e < MCS_PMU_EVENTS; e++)
			if (*pmu_slot(pmu, cpu, e))
				perf_event_enable(*pmu_slot(pmu, cpu, e));
}

/**
 * mcs_bench_pmu_stop() - disable every counter and sum them
 * @pmu: its counters, released here
 *
 * A counter that never ran while it was enabled (the PMU's counters were
 * all taken) leaves no figure: @pmu->error = -EBUSY.
 */
void mcs_bench_pmu_stop(struct mcs_bench_pmu *pmu)
{
	u64 count, enabled, running;
	int cpu, e;

	if (!pmu_ready(pmu))
		return;
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		for (e = 0; e < MCS_PMU_EVENTS; e++)
			if (*pmu_slot(pmu, cpu, e))
				perf_event_disable(*pmu_slot(pmu, cpu, e));
	for (cpu = 0; cpu < nr_cpu_ids && !pmu->error; cpu++) {
		for (e = 0; e < MCS_PMU_EVENTS; e++) {
			struct perf_event *ev = *pmu_slot(pmu, cpu, e);

			if (!ev)
				continue;
			count = mcs_compat_perf_read(ev, &enabled, &running);
			if (!running) {
				pmu->error = -EBUSY;
				break;
			}
			if (running < enabled) {
				count = mul_u64_u64_div_u64(count, enabled, running);
				pmu->scaled = true;
			}
			pmu->count[e] += count;
		}
	}
	pmu_release(pmu);
}

/**
 * mcs_bench_pmu_free() - release whatever is left
 * @pmu: prepared by mcs_bench_pmu_alloc(), or zeroed
 */
void mcs_bench_pmu_free(struct mcs_bench_pmu *pmu)
{
	if (!pmu->events)
		return;
	pmu_release(pmu);
	kfree(pmu->events);
	pmu->events = NULL;
}

/* tenths of @count / @pairs */
static u64 per_pair(u64 count, u64 pairs)
{
	return pairs ? div64_u64(count * 10, pairs) : 0;
}

/**
 * mcs_bench_pmu_format() - the counter fields of a result line
 * @pmu: after mcs_bench_pmu_stop()
 * @pairs: charge+uncharge pairs of all clients in the window
 * @buf: where to write
 * @size: its size
 *
 * "pmu=off"; "pmu=unavailable pmu_want=hw pmu_error=-2"; or, e.g.,
 * "pmu=hw pmu_cpus=2 pmu_insns_per_pair=193.1 pmu_cycles_per_pair=402.7
 * pmu_scaled=0".
 *
 * Return: the length written (scnprintf()).
 */
int mcs_bench_pmu_format(const struct mcs_bench_pmu *pmu, u64 pairs, char *buf,
			 size_t size)
{
	const struct pmu_event *ev = pmu_events[pmu->kind];
	u64 a = per_pair(pmu->count[0], pairs), b = per_pair(pmu->count[1], pairs);

	if (pmu->kind == MCS_PMU_OFF)
		return scnprintf(buf, size, "pmu=off");
	if (pmu->error || !pmu->events)
		return scnprintf(buf, size, "pmu=unavailable pmu_want=%s pmu_error=%d",
				 mcs_bench_pmu_names[pmu->kind], pmu->error ?: -ENOMEM);
	return scnprintf(buf, size,
			 "pmu=%s pmu_cpus=%u pmu_%s_per_pair=%llu.%llu pmu_%s_per_pair=%llu.%llu pmu_scaled=%d",
			 mcs_bench_pmu_names[pmu->kind], pmu->cpus,
			 ev[0].name, a / 10, a % 10, ev[1].name, b / 10, b % 10, pmu->scaled);
}
