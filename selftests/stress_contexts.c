// SPDX-License-Identifier: GPL-2.0
/*
 * memcg_stock stress, every context mix: runs the harness's whole case
 * table ("all": task, softirq, hardirq, mixed contexts, bytes, limit,
 * churn, hotplug, nmi) and wants every case PASS with load in each context
 * it enables (the nmi case is a SKIP where the kernel has no NMI source,
 * and must say so); then an ops-bounded run, a run stopped midway, and the stock
 * modes.  Each run is also cross-checked from here: live objects and root
 * usage back to where they were, kernel log clean.
 */
#include "stress_lib.h"

#define MAX_CASES	32

static char results[MCS_RESULTS_SIZE];
static int kmsg = -1;

/* The load the case block says it had, in every context it enabled. */
static int case_had_load(const char *block)
{
	int ok = 1;

	if (mcs_kv_long(block, "ops_task", 0) <= 0) {
		ksft_print_msg("no task context operations\n");
		ok = 0;
	}
	if (mcs_kv_long(block, "softirq", 0) && mcs_kv_long(block, "ops_softirq", 0) <= 0) {
		ksft_print_msg("softirq enabled, no softirq operations\n");
		ok = 0;
	}
	if (mcs_kv_long(block, "hardirq_us", 0) && mcs_kv_long(block, "ops_hardirq", 0) <= 0) {
		ksft_print_msg("hardirq enabled, no hardirq operations\n");
		ok = 0;
	}
	if (mcs_kv_is(block, "nmi", "on") && mcs_kv_long(block, "ops_nmi", 0) <= 0) {
		ksft_print_msg("nmi on, no NMI operations\n");
		ok = 0;
	}
	if (mcs_kv_long(block, "churn", 0) && mcs_kv_long(block, "churn_created", 0) <= 0) {
		ksft_print_msg("churn enabled, no memcg created\n");
		ok = 0;
	}
	return ok;
}

static void test_config_roundtrip(void)
{
	char buf[4096], line[128];
	const char *p = MCS_BASE_CONFIG;
	int ret, ok;

	ret = mcs_config("mode=decoupled\n");
	ok = !ret && mcs_read("config", buf, sizeof(buf)) > 0;
	/* every line written reads back as it was */
	while (ok && *p) {
		size_t n = strcspn(p, "\n");

		snprintf(line, sizeof(line), "%.*s\n", (int)n, p);
		if (!strstr(buf, line)) {
			ksft_print_msg("config lacks %s", line);
			ok = 0;
		}
		p += n + 1;
	}
	ok = ok && strstr(buf, "mode=decoupled\n");
	ksft_test_result(ok, "config: write and read back (%d)\n", ret);
}

static void test_all_cases(char names[][32], int nr)
{
	struct mcs_counts before, after;
	char block[16384];
	int i, ret, same, clean, refused;

	mcs_config(NULL);
	mcs_get_counts(&before);
	ret = mcs_run("all", results, sizeof(results));
	if (ret)
		ksft_print_msg("run all: %s\n", strerror(-ret));
	for (i = 0; i < nr; i++) {
		int ok = !ret && mcs_case_block(results, names[i], block, sizeof(block));

		/* skipped only as the kernel says: no NMI source, nothing checked */
		if (ok && mcs_kv_is(block, "status", "skipped")) {
			if (mcs_kv_is(block, "verdict", "SKIP") &&
			    mcs_kv_is(block, "nmi", "unsupported") &&
			    !strstr(block, "check_")) {
				ksft_test_result_skip("case %s: no NMI source in this kernel (nmi=unsupported)\n",
						      names[i]);
				continue;
			}
			ksft_print_msg("case %s skipped without saying why\n", names[i]);
			ok = 0;
		}
		if (ok) {
			/* one whole block in the log, as a sample of the format */
			if (!strcmp(names[i], "contexts"))
				mcs_print_text("results", block);
			mcs_print_figures(block);
			ok = mcs_block_ok(block, "done") && case_had_load(block);
			refused = mcs_kv_long(block, "hotplug_refused", 0);
			if (mcs_kv_is(block, "hotplug", "unsupported"))
				ksft_print_msg("%s: CPU hotplug unsupported by this kernel (%s)\n",
					       names[i], refused ? strerror(-refused) :
					       "no CPU that can go down");
		}
		ksft_test_result(ok, "case %s: PASS with load in every context it enables\n",
				 names[i]);
	}
	same = !mcs_get_counts(&after) && mcs_counts_same(&before, &after);
	clean = mcs_kmsg_clean(kmsg);
	ksft_test_result(!ret && mcs_kv_is(results, "verdict", "PASS") && same && clean,
			 "run all: verdict PASS, objects and root usage back, kernel log clean\n");
}

static void test_ops_budget(void)
{
	struct mcs_counts before, after;
	char block[16384];
	long cpus, done, want;
	int ret, ok;

	/* two workers per CPU, 400 operations each; the time bound is far */
	ret = mcs_config("threads=2\nops=400\nduration_ms=120000\n");
	mcs_get_counts(&before);
	if (!ret)
		ret = mcs_run("1", results, sizeof(results));
	ok = !ret && mcs_case_block(results, "custom", block, sizeof(block)) &&
	     mcs_block_ok(block, "done");
	if (ok) {
		cpus = mcs_kv_long(block, "cpus", 0);
		done = mcs_kv_long(block, "ops_task", 0);
		want = 400L * 2 * cpus;
		if (done < want || mcs_kv_long(block, "elapsed_ms", 0) >= 120000) {
			ksft_print_msg("ops_task %ld, want %ld before the time bound\n",
				       done, want);
			ok = 0;
		}
	}
	ok = ok && !mcs_get_counts(&after) && mcs_counts_same(&before, &after) &&
	     mcs_kmsg_clean(kmsg);
	ksft_test_result(ok, "ops budget: the run ends when every worker did its share (%d)\n",
			 ret);
}

static void test_stop(void)
{
	struct mcs_counts before, after;
	char buf[16384], block[16384];
	long ops1, ops2 = 0;
	int ret, ok;

	ret = mcs_config("duration_ms=600000\n");
	mcs_get_counts(&before);
	if (!ret)
		ret = mcs_puts("run", "contexts");
	if (!ret)
		ret = mcs_wait_load(120);
	ok = !ret;
	/* progress moves while the run is watched */
	if (ok && mcs_read("run", buf, sizeof(buf)) > 0) {
		ops1 = mcs_kv_long(buf, "ops_done", -1);
		mcs_msleep(300);
		mcs_read("run", buf, sizeof(buf));
		ops2 = mcs_kv_long(buf, "ops_done", -1);
		ok = ops1 >= 0 && ops2 > ops1 && mcs_kv_long(buf, "elapsed_ms", 0) > 0 &&
		     mcs_kv_is(buf, "ops_expected", "none");
		if (!ok)
			ksft_print_msg("progress did not move: %s", buf);
		mcs_print_text("run", buf);
		if (mcs_read("memcgs", buf, sizeof(buf)) > 0)
			mcs_print_text("memcgs", buf);
		if (mcs_read("stocks", buf, sizeof(buf)) > 0)
			mcs_print_text("stocks", buf);
	}
	if (mcs_puts("run", "stop"))
		ok = 0;
	ret = mcs_wait_idle(120);
	ok = ok && !ret && mcs_read("run", buf, sizeof(buf)) > 0 &&
	     mcs_kv_is(buf, "state", "stopped") &&
	     mcs_read("results", results, sizeof(results)) > 0 &&
	     mcs_case_block(results, "contexts", block, sizeof(block)) &&
	     mcs_block_ok(block, "stopped");
	ok = ok && !mcs_get_counts(&after) && mcs_counts_same(&before, &after) &&
	     mcs_kmsg_clean(kmsg);
	ksft_test_result(ok, "stop: a watched run stops midway, checked and clean (ops %ld)\n",
			 ops2);
}

/* Run case @cas in the mode set: 1 if it finished in that mode, checked. */
static int run_in_mode(const char *cas, const char *mode)
{
	char block[16384];
	int ret;

	ret = mcs_run(cas, results, sizeof(results));
	if (ret || !mcs_case_block(results, cas, block, sizeof(block)) ||
	    !mcs_block_ok(block, "done") || !mcs_kv_is(block, "mode", mode)) {
		ksft_print_msg("mode %s, case %s: run failed (%d)\n", mode, cas, ret);
		return 0;
	}
	if (!strcmp(cas, "hotplug") && mcs_kv_is(block, "hotplug", "on") &&
	    mcs_kv_long(block, "hotplug_cycles", 0) <= 0) {
		ksft_print_msg("mode %s: hotplug on, no CPU cycled\n", mode);
		return 0;
	}
	return 1;
}

/*
 * mode= goes to mcs_stock_set_mode().  Every mode of debugfs "modes" but
 * the benchmark's controls (which config must refuse), "decoupled", the
 * default, last.  A mode the module does not implement yet must be
 * refused with EOPNOTSUPP and change nothing; one it implements must pass
 * the same invariants, under load from every context (the default's run
 * is test_all_cases()'s) and with CPUs going down and up (each mode's
 * stocks have their own dead-CPU drain).
 */
static void test_modes(void)
{
	struct mcs_mode all[MCS_MAX_MODES];
	const char *modes[MCS_MAX_MODES + 1];
	int i, n = 0, nr = mcs_modes(all);
	char buf[4096], line[64], names[1024] = "";
	int ok = 1, ret;

	for (i = 0; i < nr; i++) {
		if (all[i].control) {
			snprintf(line, sizeof(line), "mode=%.31s\n", all[i].name);
			if (mcs_puts("config", line) >= 0) {
				ksft_print_msg("control %s: not refused by config\n", all[i].name);
				ok = 0;
			}
		} else if (strcmp(all[i].name, "decoupled")) {
			modes[n++] = all[i].name;
			snprintf(names + strlen(names), sizeof(names) - strlen(names), " %.31s",
				 all[i].name);
		}
	}
	modes[n++] = "decoupled";

	mcs_config(NULL);
	for (i = 0; i < n; i++) {
		snprintf(line, sizeof(line), "mode=%s\n", modes[i]);
		ret = mcs_puts("config", line);
		if (ret == -EOPNOTSUPP) {
			mcs_read("config", buf, sizeof(buf));
			if (!mcs_kv_is(buf, "mode", "decoupled")) {
				ksft_print_msg("refused mode %s changed the mode\n", modes[i]);
				ok = 0;
			}
			ksft_print_msg("mode %s: not implemented yet (EOPNOTSUPP)\n", modes[i]);
			continue;
		}
		if (ret) {
			ksft_print_msg("mode %s: %s\n", modes[i], strerror(-ret));
			ok = 0;
			continue;
		}
		if (strcmp(modes[i], "decoupled"))
			ok &= run_in_mode("contexts", modes[i]);
		ok &= run_in_mode("hotplug", modes[i]);
	}
	if (mcs_puts("config", "mode=decoupled\n"))
		ok = 0;
	ok = ok && mcs_kmsg_clean(kmsg);
	ksft_test_result(ok, "modes:%s pass every context, every mode passes hotplug\n", names);
}

int main(void)
{
	char buf[4096], names[MAX_CASES][32], list[1024];
	char *p, *save = NULL;
	int nr = 0;

	ksft_print_header();
	mcs_prepare();
	kmsg = mcs_kmsg_open();
	if (kmsg < 0)
		ksft_print_msg("no /dev/kmsg: kernel log not checked\n");
	if (mcs_read("run", buf, sizeof(buf)) < 0 ||
	    !mcs_kv(buf, "cases_available", list, sizeof(list)))
		ksft_exit_fail_msg("run: no cases_available line\n");
	for (p = strtok_r(list, " ", &save); p && nr < MAX_CASES; p = strtok_r(NULL, " ", &save))
		snprintf(names[nr++], sizeof(names[0]), "%s", p);

	ksft_set_plan(nr + 5);
	test_config_roundtrip();
	test_all_cases(names, nr);
	test_ops_budget();
	test_stop();
	test_modes();
	mcs_config(NULL);
	ksft_finished();
}
