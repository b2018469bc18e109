// SPDX-License-Identifier: GPL-2.0
/*
 * memcg_stock stress, unload during a run: rmmod while a run charges from
 * every context must stop the run, check it and unload cleanly; then the
 * module comes back from $MCS_MODULE and works.  Modules that depend on
 * memcg_stock (the KUnit module) are unloaded first and loaded again at
 * the end, with their KUnit suites filtered out so that they do not run a
 * second time.  Whatever happens, memcg_stock is loaded when this exits.
 */
#include <libgen.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "stress_lib.h"

static char results[MCS_RESULTS_SIZE];
static char module_path[1024];
static struct mcs_deps deps;
static int kmsg = -1;

/* memcg_stock (and what used it) loaded again, whatever went wrong. */
static void restore(void)
{
	int r;

	if (!mcs_module_loaded("memcg_stock")) {
		r = mcs_module_load(module_path);
		if (r)
			ksft_print_msg("cannot load %s again: %s\n", module_path, strerror(-r));
	}
	mcs_deps_reload(&deps, module_path);
}

/* Start @cmd, let it charge for a while, unload, check the log, load again. */
static void test_unload_during(const char *cmd)
{
	char buf[4096], tag[96];
	int ret, ok, nr_summary = 0, clean;

	ret = mcs_config("threads=2\nduration_ms=600000\nhotplug=1\n");
	if (!ret)
		ret = mcs_puts("run", cmd);
	if (!ret)
		ret = mcs_wait_load(120);
	if (!ret) {
		mcs_msleep(500);
		mcs_read("run", buf, sizeof(buf));
		ksft_print_msg("unloading during %s after %ld ms, %ld operations\n", cmd,
			       mcs_kv_long(buf, "elapsed_ms", 0), mcs_kv_long(buf, "ops_done", 0));
		/* no file of ours is open: unloading waits for nothing but the run */
		ret = mcs_module_unload("memcg_stock");
		if (ret)
			ksft_print_msg("delete_module: %s\n", strerror(-ret));
	}
	ok = !ret && !mcs_module_loaded("memcg_stock") && access(MCS_DIR, F_OK);
	/* the stopped case was checked on the way out and said so */
	snprintf(tag, sizeof(tag), "memcg_stock: stress: %s PASS", cmd[0] == '1' ? "custom" : cmd);
	clean = !mcs_kmsg_scan(kmsg, tag, &nr_summary);
	if (!nr_summary)
		ksft_print_msg("no '%s' line in the kernel log\n", tag);
	ksft_test_result(ok && clean && nr_summary == 1,
			 "rmmod during a %s run: run stopped and checked, module gone (%d)\n",
			 cmd, ret);

	ret = mcs_module_load(module_path);
	ok = !ret && mcs_module_loaded("memcg_stock") && mcs_read("run", buf, sizeof(buf)) > 0 &&
	     mcs_kv_is(buf, "state", "idle");
	ksft_test_result(ok, "insmod %s again: harness idle (%d)\n", module_path, ret);
}

/* ---- unloading beside CPU hotplug, driven from here ------------------------- */

static int cpu_online_write(int cpu, int on)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	return mcs_path_write(path, on ? "1" : "0", 1);
}

/* why the last probe found no CPU that can go down and up again */
static char hotplug_why[160] = "no CPU has an online file to write";

/*
 * The highest online CPU (not the boot CPU) that this kernel takes down
 * and brings up again, probed with one cycle; -1 with hotplug_why set when
 * there is none (no hotplug, or the kernel refuses, e.g. the last
 * housekeeping CPU beside isolcpus=).
 */
static int hotplug_cpu(void)
{
	char path[128], buf[16];
	int cpu, ret;

	for (cpu = 255; cpu > 0; cpu--) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
		if (access(path, W_OK))
			continue;
		if (mcs_path_read(path, buf, sizeof(buf)) <= 0 || buf[0] != '1')
			continue;
		ret = cpu_online_write(cpu, 0);
		if (!ret)
			ret = cpu_online_write(cpu, 1);
		if (!ret)
			return cpu;
		snprintf(hotplug_why, sizeof(hotplug_why),
			 "the kernel refused a down/up cycle of CPU %d: %s", cpu, strerror(-ret));
		/* a CPU left down by a failed "up" is brought back if it can be */
		cpu_online_write(cpu, 1);
	}
	return -1;
}

/*
 * A CPU taken down outside the harness, in the middle of a run's load
 * (its stocks full), stays down across the unload.  The dead-CPU callback
 * must have emptied its stocks: the run's check finds a charge it missed,
 * and the unload's pass over offline CPUs warns about one (the rig fails
 * a warning).  The module then loads with the CPU down and runs clean once
 * the CPU is back.
 */
static void test_unload_with_cpu_offline(void)
{
	struct mcs_counts before, after;
	char block[16384];
	int cpu = hotplug_cpu(), ret, ok;

	if (cpu < 0) {
		ksft_test_result_skip("rmmod with a CPU offline: %s\n", hotplug_why);
		return;
	}
	mcs_config(NULL);
	/* stocks of every kind filled on every CPU first */
	ret = mcs_config("mode=coupled\n");
	if (!ret)
		ret = mcs_run("contexts", results, sizeof(results));
	if (!ret)
		ret = mcs_config("mode=decoupled\n");
	if (!ret)
		ret = mcs_puts("run", "contexts");
	if (!ret)
		ret = mcs_wait_load(MCS_RUN_TIMEOUT_S);
	if (!ret) {
		mcs_msleep(100);
		ret = cpu_online_write(cpu, 0);
	}
	if (!ret)
		ret = mcs_wait_idle(MCS_RUN_TIMEOUT_S);
	if (!ret)
		ret = mcs_read("results", results, sizeof(results)) < 0 ? -EIO : 0;
	ok = !ret && mcs_case_block(results, "contexts", block, sizeof(block)) &&
	     mcs_block_ok(block, "done");
	if (!ret)
		ret = mcs_module_unload("memcg_stock");
	ok = ok && !ret && !mcs_module_loaded("memcg_stock");
	if (!ret)
		ret = mcs_module_load(module_path);
	ok = ok && !ret && mcs_module_loaded("memcg_stock");
	cpu_online_write(cpu, 1);
	mcs_config(NULL);
	mcs_get_counts(&before);
	if (ok)
		ret = mcs_run("contexts", results, sizeof(results));
	ok = ok && !ret && mcs_case_block(results, "contexts", block, sizeof(block)) &&
	     mcs_block_ok(block, "done") && !mcs_get_counts(&after) &&
	     mcs_counts_same(&before, &after) && mcs_kmsg_clean(kmsg);
	ksft_test_result(ok, "rmmod with a CPU offline: CPU %d, insmod, CPU back: clean (%d)\n",
			 cpu, ret);
}

#define RACE_ROUNDS	4

/*
 * A child cycles a CPU down and up without pause while the module is
 * unloaded and loaded again: exit and hotplug race in both orders.
 */
static void test_unload_racing_hotplug(void)
{
	int cpu = hotplug_cpu(), round, ret = 0, ok = 1, status;
	pid_t child;

	if (cpu < 0) {
		ksft_test_result_skip("rmmod racing CPU hotplug: %s\n", hotplug_why);
		return;
	}
	for (round = 0; round < RACE_ROUNDS && ok; round++) {
		mcs_config(NULL);
		child = fork();
		if (child < 0) {
			ok = 0;
			break;
		}
		if (!child) {
			for (;;) {
				cpu_online_write(cpu, 0);
				cpu_online_write(cpu, 1);
			}
		}
		mcs_msleep(50 + 40 * round);
		ret = mcs_module_unload("memcg_stock");
		kill(child, SIGKILL);
		waitpid(child, &status, 0);
		cpu_online_write(cpu, 1);
		ok = !ret && !mcs_module_loaded("memcg_stock");
		if (ok)
			ret = mcs_module_load(module_path);
		ok = ok && !ret;
	}
	ok = ok && mcs_module_loaded("memcg_stock") && mcs_kmsg_clean(kmsg);
	ksft_test_result(ok, "rmmod racing CPU hotplug: CPU %d down/up cycles, %d rounds (%d)\n",
			 cpu, round, ret);
}

static void test_works_after(void)
{
	struct mcs_counts before, after;
	char block[16384];
	int ret, ok;

	mcs_config(NULL);
	mcs_get_counts(&before);
	ret = mcs_run("churn", results, sizeof(results));
	ok = !ret && mcs_case_block(results, "churn", block, sizeof(block)) &&
	     mcs_block_ok(block, "done");
	ok = ok && !mcs_get_counts(&after) && mcs_counts_same(&before, &after) &&
	     mcs_kmsg_clean(kmsg);
	ksft_test_result(ok, "the reloaded module runs a churn case clean (%d)\n", ret);
}

int main(void)
{
	const char *mod = getenv("MCS_MODULE");

	ksft_print_header();
	if (!mod || access(mod, R_OK))
		ksft_exit_skip("MCS_MODULE does not name a readable memcg_stock.ko\n");
	snprintf(module_path, sizeof(module_path), "%s", mod);
	if (!mcs_module_loaded("memcg_stock"))
		ksft_exit_fail_msg("memcg_stock is not loaded\n");
	mcs_prepare();
	kmsg = mcs_kmsg_open();
	if (kmsg < 0)
		ksft_print_msg("no /dev/kmsg: kernel log not checked\n");

	ksft_set_plan(8);
	mcs_deps_unload(&deps);
	ksft_test_result(!mcs_module_loaded("memcg_stock_test"),
			 "modules using memcg_stock unloaded (%d)\n", deps.nr);

	test_unload_during("1");
	test_unload_during("hotplug");
	test_unload_with_cpu_offline();
	test_unload_racing_hotplug();
	test_works_after();
	restore();
	ksft_finished();
}
