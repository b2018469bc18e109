/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The benchmark's in-kernel perf counters (bench key pmu=, bench_pmu.c):
 * one counter pair per client CPU, enabled for the measured window only.
 */
#ifndef MEMCG_STOCK_BENCH_PMU_H
#define MEMCG_STOCK_BENCH_PMU_H

#include <linux/cpumask.h>
#include <linux/types.h>

/* The values of the bench key pmu=, in the order of mcs_bench_pmu_names. */
enum mcs_bench_pmu_kind { MCS_PMU_OFF, MCS_PMU_HW, MCS_PMU_SW, NR_MCS_PMU };

extern const char * const mcs_bench_pmu_names[NR_MCS_PMU];

/* The two events of a kind: instructions and cycles, or two clocks. */
#define MCS_PMU_EVENTS		2

struct perf_event;

/**
 * struct mcs_bench_pmu - the counters of one measurement
 * @kind: what the bench line asked for
 * @error: 0, or why the figures are unavailable (-errno)
 * @cpus: CPUs with a counter pair (the client CPUs)
 * @events: nr_cpu_ids x MCS_PMU_EVENTS counters, NULL where none
 * @count: the sums over @cpus, after mcs_bench_pmu_stop()
 * @scaled: a counter ran for less than its enabled time (multiplexed):
 *	its count was scaled up to the whole window
 */
struct mcs_bench_pmu {
	enum mcs_bench_pmu_kind kind;
	int error;
	unsigned int cpus;
	struct perf_event **events;
	u64 count[MCS_PMU_EVENTS];
	bool scaled;
};

int mcs_bench_pmu_alloc(struct mcs_bench_pmu *pmu, enum mcs_bench_pmu_kind kind);
void mcs_bench_pmu_create(struct mcs_bench_pmu *pmu, const struct cpumask *cpus);
void mcs_bench_pmu_start(struct mcs_bench_pmu *pmu);
void mcs_bench_pmu_stop(struct mcs_bench_pmu *pmu);
void mcs_bench_pmu_free(struct mcs_bench_pmu *pmu);
int mcs_bench_pmu_format(const struct mcs_bench_pmu *pmu, u64 pairs, char *buf,
			 size_t size);

#endif /* MEMCG_STOCK_BENCH_PMU_H */
