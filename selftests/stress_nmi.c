// SPDX-License-Identifier: GPL-2.0
/*
 * memcg_stock stress, NMI context: the nmi_us key (strict, range-checked),
 * then the case "nmi" (task + NMI load) and the hotplug case with NMI load
 * (the NMI senders survive CPUs going down and coming back), in every stock
 * mode.  Where the kernel has an NMI source (x86 qemu guests) each must
 * PASS with operations in NMI and no NMI lost; under UML, which has none,
 * the case must be refused with EOPNOTSUPP and every result must say
 * nmi=unsupported: a check that could not run is never a pass here.
 */
#include <signal.h>
#include <sys/wait.h>

#include "stress_lib.h"

static char results[MCS_RESULTS_SIZE];
static int kmsg = -1;

static void test_config(void)
{
	static const char * const bad[] = {
		"nmi_us=5\n", "nmi_us=9\n", "nmi_us=1000001\n", "nmi_us=-1\n", "nmi_us=010\n",
		"nmi_us=\n", "nmi_us=abc\n", "nmi_us=0x64\n", "nmi_us=100 nmi_us=200\n",
		"NMI_US=100\n",
	};
	char buf[4096];
	unsigned int i;
	int ok = 1, ret;

	mcs_config("nmi_us=250\n");
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		ret = mcs_puts("config", bad[i]);
		if (ret != -EINVAL) {
			ksft_print_msg("config %.*s: %s, want EINVAL\n", (int)strlen(bad[i]) - 1,
				       bad[i], ret ? strerror(-ret) : "accepted");
			ok = 0;
		}
	}
	/* nothing refused changed anything */
	if (mcs_read("config", buf, sizeof(buf)) < 0 || mcs_kv_long(buf, "nmi_us", -1) != 250) {
		ksft_print_msg("nmi_us is %ld after the refused writes, want 250\n",
			       mcs_kv_long(buf, "nmi_us", -1));
		ok = 0;
	}
	ret = mcs_puts("config", "nmi_us=0\n");
	if (ret || mcs_read("config", buf, sizeof(buf)) < 0 ||
	    mcs_kv_long(buf, "nmi_us", -1) != 0) {
		ksft_print_msg("nmi_us=0 not accepted (%d)\n", ret);
		ok = 0;
	}
	/* the case needs NMI context: with nmi_us=0 it cannot run, nor "all" */
	if (mcs_puts("run", "nmi") != -EINVAL || mcs_puts("run", "all") != -EINVAL) {
		ksft_print_msg("run nmi/all with nmi_us=0 not refused with EINVAL\n");
		ok = 0;
	}
	mcs_config(NULL);
	ok = ok && mcs_kmsg_clean(kmsg);
	ksft_test_result(ok, "config: nmi_us strict (10..1000000 or 0), refusals change nothing\n");
}

/* A finished case with NMI load: PASS, NMIs handled, none lost. */
static int nmi_block_ok(const char *block)
{
	if (!mcs_block_ok(block, "done"))
		return 0;
	mcs_print_figures(block);
	ksft_print_msg("nmi: sent %ld, handled %ld, busy %ld, lost %ld; sender expiries %ld, stretched %ld, period %ld us; trylock_fail_nmi %ld\n",
		       mcs_kv_long(block, "nmi_sent", -1), mcs_kv_long(block, "nmi_handled", -1),
		       mcs_kv_long(block, "nmi_busy", -1), mcs_kv_long(block, "nmi_lost", -1),
		       mcs_kv_long(block, "nmi_expiries", -1),
		       mcs_kv_long(block, "nmi_stretched", -1),
		       mcs_kv_long(block, "nmi_period_us", -1),
		       mcs_kv_long(block, "trylock_fail_nmi", -1));
	/* every NMI sent was handled, and each handled one did 4 operations */
	if (!mcs_kv_is(block, "nmi", "on") || mcs_kv_long(block, "ops_nmi", 0) <= 0 ||
	    mcs_kv_long(block, "nmi_lost", -1) != 0 ||
	    mcs_kv_long(block, "nmi_handled", -1) != mcs_kv_long(block, "nmi_sent", -2) ||
	    mcs_kv_long(block, "ops_nmi", 0) != 4 * mcs_kv_long(block, "nmi_handled", 0)) {
		ksft_print_msg("want nmi=on, ops_nmi > 0 and 4 per NMI handled, every NMI sent handled, nmi_lost=0\n");
		return 0;
	}
	return 1;
}

/* Run @cas in stock @mode: 1 if it passed with NMI load and left nothing. */
static int run_nmi_case(const char *cas, const char *mode)
{
	struct mcs_counts before, after;
	char block[16384], line[64];
	int ret, ok;

	snprintf(line, sizeof(line), "mode=%s\n", mode);
	ret = mcs_config(line);
	mcs_get_counts(&before);
	if (!ret)
		ret = mcs_run(cas, results, sizeof(results));
	if (ret)
		ksft_print_msg("%s (%s): %s\n", cas, mode, strerror(-ret));
	ok = !ret && mcs_case_block(results, cas, block, sizeof(block)) && nmi_block_ok(block) &&
	     mcs_kv_is(block, "mode", mode);
	if (ok && !strcmp(cas, "hotplug") && mcs_kv_is(block, "hotplug", "on") &&
	    mcs_kv_long(block, "hotplug_cycles", 0) <= 0) {
		ksft_print_msg("hotplug on, no CPU cycled\n");
		ok = 0;
	}
	ok = ok && !mcs_get_counts(&after) && mcs_counts_same(&before, &after) &&
	     mcs_kmsg_clean(kmsg);
	return ok;
}

/* every mode the config takes (debugfs "modes": the benchmark's controls left out) */
static struct mcs_mode modes[MCS_MAX_MODES];
static int nr_modes;

static int nr_config_modes(void)
{
	int i, n = 0;

	for (i = 0; i < nr_modes; i++)
		n += !modes[i].control;
	return n;
}

static void test_nmi_cases(void)
{
	int i;

	for (i = 0; i < nr_modes; i++)
		if (!modes[i].control)
			ksft_test_result(run_nmi_case("nmi", modes[i].name),
					 "case nmi, mode %s: PASS with operations in NMI, none lost, clean\n",
					 modes[i].name);
	ksft_test_result(run_nmi_case("hotplug", "decoupled"),
			 "case hotplug with NMI load: PASS, NMI senders survive CPU hotplug\n");
	mcs_config("mode=decoupled\n");
}

/* The highest CPU that can go offline and is online, or -1. */
static int hotplug_cpu(void)
{
	char path[128], buf[16];
	int cpu;

	for (cpu = 255; cpu > 0; cpu--) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
		if (!access(path, W_OK) && mcs_path_read(path, buf, sizeof(buf)) > 0 &&
		    buf[0] == '1')
			return cpu;
	}
	return -1;
}

static void cpu_online_write(int cpu, int on)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	mcs_path_write(path, on ? "1" : "0", 1);
}

/*
 * "bench nmi=1" while a CPU goes down and up, driven from here: the NMI
 * source stops aiming at a CPU before it leaves (no handshake is left
 * pending, no NMI charges on a leaving CPU), the bench stays exact, and a
 * stress case afterwards handles every NMI it sends on every CPU.
 */
#define BENCH_NMI_LINE	"mode=decoupled duration_ms=300 workload=mixed nmi=1 hardirq=1"

static void test_bench_nmi_hotplug(void)
{
	int cpu = hotplug_cpu(), ok = 1, i, status;
	char res[8192] = "";
	pid_t child;

	if (cpu < 0) {
		ksft_test_result_skip("bench nmi=1 with CPU hotplug: no CPU can go offline\n");
		return;
	}
	for (i = 0; i < 3 && ok; i++) {
		child = fork();
		if (!child) {
			for (;;) {
				cpu_online_write(cpu, 0);
				cpu_online_write(cpu, 1);
			}
		}
		ok = child > 0 && !mcs_puts("bench", BENCH_NMI_LINE) &&
		     mcs_read("bench", res, sizeof(res)) > 0 && strstr(res, "verdict=PASS") &&
		     strstr(res, "nmi=on");
		if (child > 0) {
			kill(child, SIGKILL);
			waitpid(child, &status, 0);
		}
		cpu_online_write(cpu, 1);
		if (!ok)
			ksft_print_msg("bench nmi=1 under hotplug, round %d: %.300s\n", i, res);
	}
	/* every CPU takes NMIs again: nothing was left pending */
	ok = ok && run_nmi_case("nmi", "decoupled");
	ksft_test_result(ok, "bench nmi=1 while CPU %d cycles: exact, no NMI left pending\n", cpu);
}

/* UML: refused as unsupported, and the cases that add NMI load say so. */
static void test_unsupported(void)
{
	char block[16384], buf[4096];
	int ret, ok;

	mcs_config(NULL);
	ret = mcs_puts("run", "nmi");
	ok = ret == -EOPNOTSUPP;
	if (!ok)
		ksft_print_msg("run nmi: %s, want EOPNOTSUPP\n",
			       ret ? strerror(-ret) : "accepted");
	if (!ret)
		mcs_wait_idle(MCS_RUN_TIMEOUT_S);
	ksft_test_result(ok, "case nmi refused without an NMI source (EOPNOTSUPP)\n");

	ret = mcs_run("contexts", results, sizeof(results));
	ok = !ret && mcs_case_block(results, "contexts", block, sizeof(block)) &&
	     mcs_block_ok(block, "done") && mcs_kv_is(block, "nmi", "unsupported") &&
	     mcs_kv_long(block, "ops_nmi", -1) == 0 && mcs_kmsg_clean(kmsg);
	ksft_test_result(ok, "case contexts reports nmi=unsupported, no NMI operations\n");

	/* the run file is idle again: nothing was left running by the refusal */
	ok = mcs_read("run", buf, sizeof(buf)) > 0 && !mcs_kv_is(buf, "state", "running");
	ksft_test_result(ok, "a refused case leaves the harness idle\n");
}

int main(void)
{
	int uml;

	kmsg = mcs_selftest_start();
	nr_modes = mcs_modes(modes);
	uml = mcs_is_uml();
	ksft_print_msg("%s\n", uml ? "UML: no NMI source" : "an NMI source is expected (not UML)");
	/* the config, then UML's refusals or a case per mode, hotplug and the bench */
	ksft_set_plan(1 + (uml ? 3 : nr_config_modes() + 2));
	test_config();
	if (uml) {
		test_unsupported();
	} else {
		test_nmi_cases();
		test_bench_nmi_hotplug();
	}
	mcs_config(NULL);
	ksft_finished();
}
