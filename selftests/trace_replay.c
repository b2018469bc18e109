// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: the shipped charge-stream trace (trace_lib.h), recorded from
 * Debian 6.12's own memcg charges, replayed through every stock mode (a
 * mode of the list that this module lacks is skipped) by
 * the benchmark's workload=replay.  Each replay must end with verdict=PASS
 * (every memcg back at zero, no leftover bytes), run every event of the
 * trace, and agree with a second replay through the same mode on every
 * count (hits, misses, refills, drains, trylock failures, refusals,
 * stranded pages at the end and at the peak, draining events): the events
 * run one at a time in the trace's order.  The peak is at least what is
 * stranded at the end, and an event drained if and only if some slot was
 * (no more draining events than drains).
 * The first replay goes through the mode's own entry functions
 * (entry=mode) in two passes, which must agree with each other (agree=1),
 * the second through the exported functions (entry=exported) in one pass:
 * the same design either way, so the same counts.
 * Before the load, a replay is refused (ENOENT: nothing loaded).  On a
 * machine with fewer online CPUs than the trace uses, the load must be
 * refused (EINVAL) and the replays are skipped with the reason.
 */
#include "stress_lib.h"
#include "trace_lib.h"

/* every mode the module may have; one it does not know (EINVAL) is skipped */
static const char * const modes[] = {
	"decoupled", "coupled", "none", "coupled-noirq", "decoupled-owner", "percpu-counter",
	"hahn-v4", "hahn-v6", "decoupled-7.3",
};

static const char * const counts[] = {
	"events", "ops", "hits", "misses", "refills", "drains", "trylock_fail", "refusals",
	"short_uncharges", "stranded_pages", "stranded_peak", "drain_events",
};

/* The highest CPU the shipped trace uses, plus one. */
static unsigned int trace_cpus(void)
{
	const struct mcs_trace_header *h = (const void *)mcs_shipped_trace;
	const struct mcs_trace_event *e = (const void *)(mcs_shipped_trace + sizeof(*h) +
						h->nr_memcgs * sizeof(struct mcs_trace_memcg));
	unsigned int i, n = 0;

	for (i = 0; i < h->nr_events; i++)
		if (e[i].cpu + 1U > n)
			n = e[i].cpu + 1U;
	return n;
}

static int run_replay(const char *mode, const char *entry, int passes, char *res, size_t size)
{
	char cmd[96];
	int ret;

	snprintf(cmd, sizeof(cmd), "mode=%s entry=%s workload=replay passes=%d", mode, entry,
		 passes);
	ret = mcs_puts("bench", cmd);
	if (ret)
		return ret;
	return mcs_read("bench", res, size) < 0 ? -EIO : 0;
}

/* The value of " key=" in a one-line result, or -1. */
static long field(const char *res, const char *key)
{
	char pat[48];
	const char *p;

	snprintf(pat, sizeof(pat), " %s=", key);
	p = strstr(res, pat);
	return p ? strtol(p + strlen(pat), NULL, 10) : -1;
}

int main(void)
{
	const struct mcs_trace_header *h = (const void *)mcs_shipped_trace;
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	char status[512], a[2048], b[2048];
	unsigned int i, k, need = trace_cpus();
	int ret;

	ksft_print_header();
	ksft_set_plan(2 + ARRAY_SIZE(modes));
	if (access(MCS_DIR "/trace_load", W_OK))
		ksft_exit_fail_msg("%s/trace_load: %s\n", MCS_DIR, strerror(errno));
	ksft_print_msg("trace: workload=%.32s kernel=%.64s memcgs=%u events=%u cpus=%u (uses %u)\n",
		       h->workload, h->release, h->nr_memcgs, h->nr_events, h->nr_cpus, need);
	ksft_print_msg("recorded: %.192s\n", h->note);

	/* nothing loaded yet (a fresh module): a replay has nothing to run */
	mcs_read("trace_load", status, sizeof(status));
	if (!strncmp(status, "trace none", 10)) {
		ret = mcs_puts("bench", "workload=replay");
		ksft_test_result(ret == -ENOENT, "replay without a trace: %s (expected ENOENT)\n",
				 strerror(-ret));
	} else {
		ksft_test_result_skip("replay without a trace: one is loaded already\n");
	}

	ret = mcs_trace_load(mcs_shipped_trace, mcs_trace_size(), 65536);
	if (online < need) {
		ksft_test_result(ret == -EINVAL,
				 "load on %ld CPUs of a trace that uses %u: %s (expected EINVAL)\n",
				 online, need, strerror(-ret));
		for (i = 0; i < ARRAY_SIZE(modes); i++)
			ksft_test_result_skip("replay %s: the trace uses %u CPUs, %ld online\n",
					      modes[i], need, online);
		ksft_finished();
	}
	mcs_read("trace_load", status, sizeof(status));
	ksft_test_result(!ret && field(status, "events") == h->nr_events,
			 "load the shipped trace (%zu bytes): %s: %s", mcs_trace_size(),
			 strerror(-ret), status);

	for (i = 0; i < ARRAY_SIZE(modes); i++) {
		int ok, same = 1;

		ret = run_replay(modes[i], "mode", 2, a, sizeof(a));
		if (ret == -EINVAL && i >= 6) {
			ksft_test_result_skip("replay %s: no such mode in this module\n", modes[i]);
			continue;
		}
		if (!ret)
			ret = run_replay(modes[i], "exported", 1, b, sizeof(b));
		if (ret) {
			ksft_test_result_fail("replay %s: %s\n", modes[i], strerror(-ret));
			continue;
		}
		ksft_print_msg("%s", a);
		ksft_print_msg("%s", b);
		for (k = 0; k < ARRAY_SIZE(counts); k++) {
			if (field(a, counts[k]) != field(b, counts[k])) {
				ksft_print_msg("  %s: %ld, then %ld\n", counts[k],
					       field(a, counts[k]), field(b, counts[k]));
				same = 0;
			}
		}
		ok = strstr(a, "verdict=PASS") && strstr(b, "verdict=PASS") &&
		     strstr(a, " entry=mode ") && strstr(b, " entry=exported ") &&
		     field(a, "ops") == h->nr_events && same &&
		     field(a, "passes") == 2 && field(a, "agree") == 1 && field(b, "passes") == 1 &&
		     field(a, "stranded_peak") >= field(a, "stranded_pages") &&
		     field(a, "drain_events") <= field(a, "drains") &&
		     (field(a, "drain_events") > 0) == (field(a, "drains") > 0);
		ksft_test_result(ok, "replay %s: its entries (2 passes that agree), then the exported ones, verdict PASS, %u events, same counts\n",
				 modes[i], h->nr_events);
	}
	ksft_finished();
}
