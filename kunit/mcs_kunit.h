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

#include "stocks/stock_designs.h"
#include "harness/harness.h"

struct mcs_memcg *mcs_test_memcg(struct kunit *test, struct mcs_memcg *parent);
struct mcs_objcg *mcs_test_objcg(struct kunit *test, struct mcs_memcg *memcg);
int mcs_test_leak_check_init(struct kunit *test);
void mcs_test_mode_desc(const enum mcs_stock_mode *m, char *desc);
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
