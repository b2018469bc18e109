// SPDX-License-Identifier: GPL-2.0
/*
 * memcg_stock stress, allocation failures: churn memcg creations fail on
 * purpose (the module parameter stress_fail_nth), or for real through the
 * kernel's failslab on the module's kmem_caches where the kernel has it,
 * both during the load and while a case builds its tree.  Every failure
 * must unwind with nothing leaked; the run reports how many it survived.
 */
#include "stress_lib.h"

#define FAIL_NTH	"/sys/module/memcg_stock/parameters/stress_fail_nth"
#define FAILSLAB	"/sys/kernel/debug/failslab"

static char results[MCS_RESULTS_SIZE];
static int kmsg = -1;

static const char * const our_caches[] = {
	"/sys/kernel/slab/mcs_memcg/failslab",
	"/sys/kernel/slab/mcs_memcg_per_node/failslab",
};

/* failslab knobs we touch, with the values to restore. */
static const char * const knobs[] = {
	"cache-filter", "ignore-gfp-wait", "verbose", "interval", "times", "probability",
};

static char saved[ARRAY_SIZE(knobs)][32];

static int knob_write(const char *knob, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", FAILSLAB, knob);
	return mcs_path_write(path, val, strlen(val));
}

static int have_failslab(void)
{
	unsigned int i;

	if (access(FAILSLAB "/probability", W_OK))
		return 0;
	for (i = 0; i < 2; i++)
		if (access(our_caches[i], W_OK))
			return 0;
	return 1;
}

/*
 * Only the module's two caches fail (cache-filter), GFP_KERNEL allocations
 * included (ignore-gfp-wait off), without a word on the console (verbose 0:
 * a stack dump would read as a splat), as often as told (times -1).
 */
static int failslab_arm(void)
{
	char path[256];
	unsigned int i;
	int ret = 0;

	for (i = 0; i < ARRAY_SIZE(knobs); i++) {
		snprintf(path, sizeof(path), "%s/%s", FAILSLAB, knobs[i]);
		if (mcs_path_read(path, saved[i], sizeof(saved[i])) <= 0)
			return -EIO;
		saved[i][strcspn(saved[i], "\n")] = '\0';
	}
	ret |= knob_write("verbose", "0");
	ret |= knob_write("probability", "0");
	ret |= knob_write("cache-filter", "Y");
	ret |= knob_write("ignore-gfp-wait", "N");
	ret |= knob_write("interval", "1");
	ret |= knob_write("times", "-1");
	for (i = 0; i < 2; i++)
		ret |= mcs_path_write(our_caches[i], "1", 1);
	return ret ? -EIO : 0;
}

static void failslab_disarm(void)
{
	unsigned int i;

	knob_write("probability", "0");
	for (i = 0; i < 2; i++)
		mcs_path_write(our_caches[i], "0", 1);
	/* probability last: nothing fails while the others go back */
	for (i = 0; i < ARRAY_SIZE(knobs); i++)
		if (saved[i][0])
			knob_write(knobs[i], saved[i]);
}

/* A churn run that survived its failures and leaked nothing. */
static int churn_survived(const char *block, const char *what, long min_real)
{
	long created = mcs_kv_long(block, "churn_created", 0);
	long failures = mcs_kv_long(block, "alloc_failures", 0);
	long injected = mcs_kv_long(block, "faults_injected", 0);

	mcs_print_figures(block);
	ksft_print_msg("%s: %ld memcgs created, %ld allocation failures survived (%ld injected)\n",
		       what, created, failures, injected);
	if (!mcs_block_ok(block, "done"))
		return 0;
	if (created <= 0 || failures - injected < min_real) {
		ksft_print_msg("%s: want created > 0 and at least %ld real failures\n",
			       what, min_real);
		return 0;
	}
	return 1;
}

/*
 * How long a churn run lasts: the cases below need a few churn creations,
 * and a slow debug kernel under TCG on a loaded host makes 2 in 2 s.  A run
 * that was too short to reach the fault it is about is not a pass: it is
 * repeated, twice as long, up to FAULT_ATTEMPTS times, and then it fails.
 */
#define FAULT_DURATION_MS	2000
#define FAULT_ATTEMPTS		3

static void fault_duration(int attempt)
{
	char line[64];

	snprintf(line, sizeof(line), "duration_ms=%d\n", FAULT_DURATION_MS << attempt);
	mcs_config(line);
}

static void test_fail_nth(void)
{
	struct mcs_counts before, after;
	char block[16384];
	int attempt, ret = 0, ok = 0;

	for (attempt = 0; attempt < FAULT_ATTEMPTS; attempt++) {
		block[0] = '\0';
		fault_duration(attempt);
		mcs_get_counts(&before);
		ret = mcs_path_write(FAIL_NTH, "3", 1);
		if (!ret)
			ret = mcs_run("churn", results, sizeof(results));
		mcs_path_write(FAIL_NTH, "0", 1);
		ok = !ret && mcs_case_block(results, "churn", block, sizeof(block)) &&
		     churn_survived(block, "stress_fail_nth=3", 0) &&
		     mcs_kv_long(block, "alloc_failures", 0) >=
		     mcs_kv_long(block, "faults_injected", 0);
		ok = ok && !mcs_get_counts(&after) && mcs_counts_same(&before, &after) &&
		     mcs_kmsg_clean(kmsg);
		/* a clean run that never reached its 3rd creation: longer */
		if (!ok || mcs_kv_long(block, "faults_injected", 0) > 0)
			break;
		ksft_print_msg("stress_fail_nth=3: no fault reached in %d ms, again\n",
			       FAULT_DURATION_MS << attempt);
	}
	ok = ok && mcs_kv_long(block, "faults_injected", 0) > 0;
	ksft_test_result(ok, "every 3rd churn creation fails on purpose: unwound, nothing leaked (%d)\n",
			 ret);
}

static void test_failslab_load(void)
{
	struct mcs_counts before, after;
	char block[16384];
	int attempt, ret = 0, ok = 0;
	long real = 0;

	if (!have_failslab()) {
		ksft_test_result_skip("failslab during the load: no failslab for the module's caches\n");
		return;
	}
	for (attempt = 0; attempt < FAULT_ATTEMPTS; attempt++) {
		block[0] = '\0';
		fault_duration(attempt);
		mcs_get_counts(&before);
		ret = failslab_arm();
		if (!ret)
			ret = mcs_puts("run", "churn");
		/* the tree is built: from now on only churn creations can fail */
		if (!ret)
			ret = mcs_wait_load(120);
		if (!ret) {
			knob_write("probability", "40");
			mcs_msleep(FAULT_DURATION_MS << attempt >> 1);
			knob_write("probability", "0");
		}
		if (!ret)
			ret = mcs_wait_idle(MCS_RUN_TIMEOUT_S);
		failslab_disarm();
		if (!ret && mcs_read("results", results, sizeof(results)) < 0)
			ret = -EIO;
		ok = !ret && mcs_case_block(results, "churn", block, sizeof(block)) &&
		     churn_survived(block, "failslab 40%", 0);
		ok = ok && !mcs_get_counts(&after) && mcs_counts_same(&before, &after) &&
		     mcs_kmsg_clean(kmsg);
		real = mcs_kv_long(block, "alloc_failures", 0) -
		       mcs_kv_long(block, "faults_injected", 0);
		/* a clean run in which no creation met the 40%: longer */
		if (!ok || real > 0)
			break;
		ksft_print_msg("failslab 40%%: no creation failed in %d ms, again\n",
			       FAULT_DURATION_MS << attempt >> 1);
	}
	ok = ok && real > 0;
	ksft_test_result(ok, "failslab during the load: churn creations fail and unwind (%d)\n",
			 ret);
}

static void test_failslab_setup(void)
{
	struct mcs_counts before, after;
	char block[16384];
	int ret, ok;

	if (!have_failslab()) {
		ksft_test_result_skip("failslab while building the tree: no failslab for the module's caches\n");
		return;
	}
	mcs_config(NULL);
	mcs_get_counts(&before);
	ret = failslab_arm();
	if (!ret)
		ret = knob_write("probability", "100");
	if (!ret)
		ret = mcs_run("task", results, sizeof(results));
	failslab_disarm();
	ok = !ret && mcs_case_block(results, "task", block, sizeof(block)) &&
	     mcs_block_ok(block, "setup-failed") &&
	     mcs_kv_long(block, "setup_error", 0) == -ENOMEM;
	ok = ok && !mcs_get_counts(&after) && mcs_counts_same(&before, &after) &&
	     mcs_kmsg_clean(kmsg);
	ksft_test_result(ok, "failslab while building the tree: setup fails with ENOMEM, nothing leaked (%d)\n",
			 ret);
}

static void test_after(void)
{
	char block[16384];
	int ret;

	mcs_config(NULL);
	ret = mcs_run("churn", results, sizeof(results));
	ksft_test_result(!ret && mcs_case_block(results, "churn", block, sizeof(block)) &&
			 mcs_block_ok(block, "done") &&
			 !mcs_kv_long(block, "alloc_failures", -1) && mcs_kmsg_clean(kmsg),
			 "faults off again: a churn run passes without failures\n");
}

int main(void)
{
	ksft_print_header();
	mcs_prepare();
	if (access(FAIL_NTH, W_OK))
		ksft_exit_fail_msg("%s: %s\n", FAIL_NTH, strerror(errno));
	kmsg = mcs_kmsg_open();
	if (kmsg < 0)
		ksft_print_msg("no /dev/kmsg: kernel log not checked\n");

	ksft_set_plan(4);
	test_fail_nth();
	test_failslab_load();
	test_failslab_setup();
	test_after();
	mcs_config(NULL);
	ksft_finished();
}
