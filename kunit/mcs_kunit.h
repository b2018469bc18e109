/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the memcg_stock KUnit suites: memcgs and objcgs that
 * are released by KUnit actions, and a load generator that runs an
 * operation concurrently in task, softirq and hardirq context on every CPU.
 */
#ifndef MCS_KUNIT_H
#define MCS_KUNIT_H

#include <kunit/test.h>
#include <linux/hrtimer.h>

#include "objects/compat.h"
#include "stocks/stock_designs.h"
#include "harness/harness.h"

struct mcs_memcg *mcs_test_memcg(struct kunit *test, struct mcs_memcg *parent);
struct mcs_objcg *mcs_test_objcg(struct kunit *test, struct mcs_memcg *memcg);
int mcs_test_leak_check_init(struct kunit *test);
void mcs_test_mode_desc(const enum mcs_stock_mode *m, char *desc);
const void *mcs_test_mode_next(const void *prev, char *desc,
			       bool (*keep)(enum mcs_stock_mode mode));

/*
 * A parameter generator over the modes: every mode of the binding table
 * that mcs_stock_set_mode() takes (the benchmark's controls left out), in
 * the table's order, that @keep (NULL: every one) keeps, for
 * KUNIT_CASE_PARAM():
 *
 *	static MCS_KUNIT_GEN_PARAMS(mode_gen_params)
 *	{
 *		return mcs_test_mode_next(prev, desc, keep);
 *	}
 *
 * Each case derives its expectations from the mode's metadata (its
 * design's struct mcs_design, its struct mcs_mode_info), so that a mode
 * added to the table is in every such case without an edit here.
 */

/* A page stock: a charge or uncharge can leave pages cached. */
static inline bool mcs_test_mode_has_page_stock(enum mcs_stock_mode mode)
{
	return mcs_stock_mode_design(mode)->memcgs_per_cpu;
}

/* The stocks live in the memcgs (per-CPU counts), not in per-CPU structs. */
static inline bool mcs_test_mode_stock_in_memcgs(enum mcs_stock_mode mode)
{
	return mcs_stock_mode_design(mode)->drain_memcg;
}

/*
 * Pages held for @memcg in its per-CPU counts (the stock of the modes
 * whose stocks live in the memcgs), summed over every possible CPU.
 */
static inline long mcs_test_counter_pages(struct mcs_memcg *memcg)
{
	long sum = 0;
	int cpu;

	if (!memcg->counter_stock)
		return 0;
	for_each_possible_cpu(cpu)
		sum += atomic_read(per_cpu_ptr(memcg->counter_stock, cpu));
	return sum;
}

/* The kinds of per-CPU stock the mode fills. */
static inline const struct mcs_stock_kind *const *mcs_test_mode_kinds(enum mcs_stock_mode mode)
{
	return mcs_mode_kinds(mcs_stock_mode_info(mode), mcs_stock_mode_design(mode));
}

void mcs_test_restore_mode(void *unused);
void mcs_test_use_mode(struct kunit *test, enum mcs_stock_mode mode);
void mcs_test_hook_clear(void *unused);
int mcs_test_kthreads(struct kunit *test, int (*fn)(void *arg), void *arg,
		      unsigned int per_cpu, struct task_struct **t, unsigned int max,
		      const char *name);

enum mcs_load_ctx { LOAD_TASK, LOAD_SOFTIRQ, LOAD_HARDIRQ, NR_LOAD_CTX };

/*
 * One unit of load: must leave the counters as it found them (charge and
 * uncharge) and return false on an unexpected error.  Runs in any context.
 */
typedef bool (*mcs_load_fn)(void *arg, u32 *seed, enum mcs_load_ctx ctx);

struct mcs_load_result {
	long ops[NR_LOAD_CTX];
	long errors;
};

void mcs_run_load(struct kunit *test, mcs_load_fn fn, void *arg,
		  unsigned int duration_ms, void (*midway)(void *arg),
		  struct mcs_load_result *res);

static inline u32 mcs_load_next(u32 *seed)
{
	/* an LCG: the RNG takes locks of its own, not usable in hardirq */
	*seed = *seed * 1103515245 + 12345;
	return *seed >> 8;
}

#endif /* MCS_KUNIT_H */
