// SPDX-License-Identifier: GPL-2.0
/*
 * memcg_stock: mode switches under the bench's interrupt load.
 *
 * The bench's hrtimer (hardirq=1) and NMI (nmi=1) load call the entry
 * functions of its mode with the mode as a constant: in mode "decoupled"
 * or "decoupled-7.3" a take of the memcg stock (and of the obj stock in
 * "decoupled") that checks no mode.  While such a bench runs, the KUnit
 * suite mcs_owner_switch (memcg_stock_test.ko, loaded here with a KUnit
 * filter) switches the module to "decoupled-owner" and back, with tasks
 * charging through the exported entries on every CPU: sections of
 * "decoupled-owner" that the bench's interrupts hit.  Were such a take
 * served inside a section, the slot would be changed from both sides at
 * once: a charge lost or doubled, which the suite (its memcgs' usage and
 * leftovers, the underflow count), the bench's verdict (its own charges)
 * and the module's counts at the end each see.
 *
 * Needs memcg_stock_test.ko beside the module (MCS_MODULE) and KUnit's
 * filter_glob.  One variant per mode; every other one takes its load from
 * NMIs where the kernel has an NMI source (not UML).
 */
#include <errno.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stress_lib.h"

#define SUITE		"mcs_owner_switch"
#define SUITE_RESULTS	"/sys/kernel/debug/kunit/" SUITE "/results"
#define BENCH_MS	10000

/*
 * The modes whose bench load races the owner sections: those of design
 * "decoupled" that fill its memcg stock, taken with its local_trylock_t
 * ("decoupled", "decoupled-7.3"), from debugfs "modes" (main()).
 */
static const char *modes[MCS_MAX_MODES];
static int nr_modes;

static void read_modes(void)
{
	static struct mcs_mode all[MCS_MAX_MODES];
	int i, n = mcs_modes(all);

	for (i = 0; i < n; i++)
		if (!strcmp(all[i].design, "decoupled") && strcmp(all[i].name, "decoupled-owner") &&
		    strstr(all[i].stocks, "mcs_memcg_stock"))
			modes[nr_modes++] = all[i].name;
	if (!nr_modes)
		ksft_exit_fail_msg("%s/modes: no mode of design decoupled with its memcg stock\n",
				   MCS_DIR);
}

static char test_ko[1200];
static char result[8192];

/* Set in the bench's child by SIGUSR1: the parent's suite is over. */
static volatile sig_atomic_t stop_benches;

static void on_stop(int sig)
{
	stop_benches = 1;
}

/*
 * The bench of one variant, in a child, back to back until SIGUSR1: its
 * exit code is 0 or 1 + errno of the write that failed.
 */
static pid_t bench_start(const char *mode, int nmi)
{
	char line[256];
	pid_t pid;

	snprintf(line, sizeof(line),
		 "mode=%s clients=2 memcgs=4 workload=mixed %s=1 duration_ms=%d\n", mode,
		 nmi ? "nmi" : "hardirq", BENCH_MS);
	pid = fork();
	if (pid == 0) {
		/* benches back to back until the parent says stop (SIGUSR1) */
		signal(SIGUSR1, on_stop);
		while (!stop_benches) {
			int ret = mcs_puts("bench", line);

			if (ret)
				_exit(1 + (-ret & 0x3f));
		}
		_exit(0);
	}
	return pid;
}

/* The suite's KTAP: its cases passed, none failed or was skipped. */
static int suite_passed(void)
{
	char ktap[16384];

	if (mcs_path_read(SUITE_RESULTS, ktap, sizeof(ktap)) <= 0) {
		ksft_print_msg("no %s\n", SUITE_RESULTS);
		return 0;
	}
	if (!strstr(ktap, "ok 1 owner_switch_under_load") || strstr(ktap, "not ok") ||
	    strstr(ktap, "# SKIP")) {
		mcs_print_text("KUnit", ktap);
		return 0;
	}
	return 1;
}

/*
 * One variant: the bench starts, the suite runs while it loads (its load
 * returns once the suite is over), the bench must still be running then,
 * and both must pass.
 */
static void run_variant(const char *mode, int nmi)
{
	int ret, status, overlap, passed, bench_ok, load_ok;
	pid_t pid;
	long ops;

	pid = bench_start(mode, nmi);
	if (pid < 0)
		ksft_exit_fail_msg("fork: %s\n", strerror(errno));
	/* past the bench's setup: its memcgs, clients and timers */
	mcs_msleep(1000);
	ret = mcs_module_load(test_ko);
	overlap = waitpid(pid, &status, WNOHANG) == 0;
	if (!overlap)
		ksft_print_msg("the bench ended before the suite did: no overlap\n");
	passed = !ret && suite_passed();
	if (ret)
		ksft_print_msg("load %s: %s\n", test_ko, strerror(-ret));
	load_ok = !ret && !mcs_module_unload("memcg_stock_test");
	if (overlap)
		kill(pid, SIGUSR1);
	if (overlap && waitpid(pid, &status, 0) != pid)
		status = -1;
	bench_ok = status == 0 && mcs_read("bench", result, sizeof(result)) > 0 &&
		   strstr(result, " verdict=PASS");
	ops = mcs_field(result, nmi ? " nmi_ops=" : " irq_ops=");
	if (!bench_ok)
		mcs_print_text("bench", result);
	ksft_print_msg("mode=%s %s: %s=%ld\n", mode, nmi ? "nmi" : "hardirq",
		       nmi ? "nmi_ops" : "irq_ops", ops);
	ksft_test_result(overlap && passed && load_ok && bench_ok && ops > 0,
			 "%s %s: switches to decoupled-owner and back under the bench's load\n",
			 mode, nmi ? "nmi" : "hardirq");
}

int main(void)
{
	const char *mod = getenv("MCS_MODULE");
	char dir[1024], before_glob[256] = "";
	struct mcs_counts before, after;
	struct mcs_deps deps;
	int kmsg, uml, i, nmi, settled = 0;

	kmsg = mcs_selftest_start();
	uml = mcs_is_uml();
	if (!mod)
		ksft_exit_skip("MCS_MODULE (the path of memcg_stock.ko) is not set\n");
	snprintf(dir, sizeof(dir), "%s", mod);
	snprintf(test_ko, sizeof(test_ko), "%s/memcg_stock_test.ko", dirname(dir));
	if (access(test_ko, R_OK))
		ksft_exit_skip("no %s (a kernel without KUnit)\n", test_ko);
	if (mcs_path_read(MCS_KUNIT_FILTER, before_glob, sizeof(before_glob)) < 0)
		ksft_exit_skip("no %s\n", MCS_KUNIT_FILTER);
	read_modes();
	ksft_set_plan(nr_modes);

	mcs_deps_unload(&deps);
	if (mcs_get_counts(&before))
		ksft_exit_fail_msg("cannot read the counts\n");
	if (mcs_path_write(MCS_KUNIT_FILTER, SUITE ".*", strlen(SUITE ".*")))
		ksft_exit_fail_msg("cannot write %s\n", MCS_KUNIT_FILTER);
	/*
	 * One variant per mode, the load's context alternating (every other
	 * mode's from NMIs where the kernel has an NMI source): a variant
	 * costs about 40 s on the debug guests.
	 */
	for (i = 0; i < nr_modes; i++) {
		nmi = (i & 1) && !uml;
		run_variant(modes[i], nmi);
	}
	/* the filter as found (its default, "(null)", is every suite) */
	before_glob[strcspn(before_glob, "\n")] = '\0';
	if (!before_glob[0] || !strcmp(before_glob, "(null)"))
		snprintf(before_glob, sizeof(before_glob), "*.*");
	if (mcs_path_write(MCS_KUNIT_FILTER, before_glob, strlen(before_glob)))
		ksft_print_msg("cannot restore %s\n", MCS_KUNIT_FILTER);
	/* and the modules that used memcg_stock, without running their suites again */
	if (mcs_deps_reload(&deps, mod))
		ksft_print_msg("the modules that used memcg_stock did not all load again\n");

	/* what the runs released is freed after a grace period or two */
	for (i = 0; i < 100 && !settled; i++) {
		settled = !mcs_get_counts(&after) && after.memcgs == before.memcgs &&
			  after.objcgs == before.objcgs && after.root_usage == before.root_usage;
		if (!settled)
			mcs_msleep(100);
	}
	if (!mcs_counts_same(&before, &after) || (kmsg >= 0 && !mcs_kmsg_clean(kmsg)))
		ksft_exit_fail_msg("counts or kernel log after the runs\n");
	ksft_finished();
	return 0;
}
