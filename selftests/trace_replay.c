// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: the shipped charge-stream trace (trace_lib.h), recorded from
 * Debian 6.12's own memcg charges, replayed through every stock mode by
 * the benchmark's workload=replay; every mode of the list must be there
 * (a mode the module refuses fails).  Each replay must end with
 * verdict=PASS (every memcg back at zero, no leftover bytes, no stock slot
 * holding one of them, every kind of stock walked), run every event of the
 * trace: its count and its count per kind, which this program takes from
 * the trace file itself (its size and its events), not from the header
 * the replay prints; and agree with a second replay through the same mode
 * on every count (hits, misses, refills, drains, trylock failures,
 * refusals, stranded pages at the end and at the peak, draining events):
 * the events run one at a time in the trace's order.  The peak is at
 * least what is stranded at the end, an event drained if and only if some
 * slot was (no more draining events than drains), and every drain was
 * seen by the event that made it.  Every event is timed, called nothing
 * (a recorded refusal, an uncharge cut to nothing) or was interrupted in
 * every pass, and the recorded refusals are among those that called
 * nothing.  At the end of the stream the stocks hold a memcg of the replay
 * in a slot in every mode whose design has per-CPU stocks, and in no
 * other: the walk that checks cached_after_drain=0 sees every design's
 * stocks.
 * The first replay goes through the mode's own entry functions
 * (entry=mode) in two passes, which must agree with each other (agree=1),
 * the second through the exported functions (entry=exported) in one pass:
 * the same design either way, so the same counts.
 *
 * Then a replay killed by SIGKILL: its write returns at once (-EINTR in
 * error_log), and every memcg, objcg and page it charged is given back.
 *
 * Then a trace made here: one memcg with an opening balance of 64 pages,
 * one event that uncharges 1 and a recorded refusal.  The stream strands
 * exactly that page in every design that keeps uncharges in a stock, in a
 * slot of a per-CPU stock where the design has one, and nothing in the
 * others, whatever the stocks keep of the closing balance; the refusal is
 * counted untimed, and ns_per_op is the uncharge's time alone.
 *
 * Before the load, a replay is refused (ENOENT: nothing loaded).  On a
 * machine with fewer online CPUs than the trace uses, the load must be
 * refused (EINVAL) and the replays of the shipped trace are skipped with
 * the reason.
 */
#include <assert.h>
#include <signal.h>
#include <sys/wait.h>

#include "stress_lib.h"
#include "trace_lib.h"

/*
 * Every mode of the module, from debugfs "modes" (main()): what the small
 * trace's one uncharge leaves is the mode's metadata there, the stranded
 * page (refills=1: an uncharge kept in a stock; else given back at once)
 * and slots at the end (stocks= names per-CPU stocks with slots; the
 * others have none, or counts that live in the memcgs).
 */
static struct mcs_mode modes[MCS_MAX_MODES];
static unsigned int nr_modes;

static const char * const counts[] = {
	"events", "ops", "page_charges", "page_refused", "page_uncharges", "byte_charges",
	"byte_refused", "byte_uncharges", "hits", "misses", "refills", "drains", "trylock_fail",
	"refusals", "short_uncharges", "stranded_pages", "stranded_peak", "drain_events",
	"untimed", "cached_at_end",
};

/* The kinds of event, as the result line names them (enum mcs_trace_kind). */
static const char * const kind_names[NR_MCS_TRACE_KINDS] = {
	[MCS_TRACE_PAGE_CHARGE] = "page_charges",
	[MCS_TRACE_PAGE_REFUSED] = "page_refused",
	[MCS_TRACE_PAGE_UNCHARGE] = "page_uncharges",
	[MCS_TRACE_BYTE_CHARGE] = "byte_charges",
	[MCS_TRACE_BYTE_REFUSED] = "byte_refused",
	[MCS_TRACE_BYTE_UNCHARGE] = "byte_uncharges",
};

/* What the shipped trace holds, from the file: events, by kind, CPUs. */
struct trace_facts {
	long events;
	long kinds[NR_MCS_TRACE_KINDS];
	unsigned int cpus;
};

static int trace_facts(struct trace_facts *f)
{
	const struct mcs_trace_header *h = (const void *)mcs_shipped_trace;
	size_t head = sizeof(*h) + (size_t)h->nr_memcgs * sizeof(struct mcs_trace_memcg);
	const struct mcs_trace_event *e = (const void *)(mcs_shipped_trace + head);
	size_t size = mcs_trace_size();
	long i;

	memset(f, 0, sizeof(*f));
	if (size < head || (size - head) % sizeof(*e))
		return -1;
	/* the events the file holds, whatever its header says */
	f->events = (size - head) / sizeof(*e);
	for (i = 0; i < f->events; i++) {
		if (e[i].kind >= NR_MCS_TRACE_KINDS)
			return -1;
		f->kinds[e[i].kind]++;
		if (e[i].cpu + 1U > f->cpus)
			f->cpus = e[i].cpu + 1U;
	}
	return 0;
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

/* Print "key: want, got" and return 0 when @got is not @want. */
static int expect(const char *what, long got, long want)
{
	if (got == want)
		return 1;
	ksft_print_msg("  %s: %ld, expected %ld\n", what, got, want);
	return 0;
}

/* The checks of one replay of the shipped trace through mode @i (line @a). */
static int shipped_ok(unsigned int i, const char *a, const struct trace_facts *f)
{
	long refused = field(a, "page_refused") + field(a, "byte_refused");
	int ok = 1;
	unsigned int k;

	ok &= expect("ops (the events of the file)", field(a, "ops"), f->events);
	for (k = 0; k < NR_MCS_TRACE_KINDS; k++)
		ok &= expect(kind_names[k], field(a, kind_names[k]), f->kinds[k]);
	ok &= expect("timed + untimed + interrupted",
		     field(a, "timed") + field(a, "untimed") + field(a, "interrupted"), f->events);
	ok &= expect("recorded_refusals", field(a, "recorded_refusals"), refused);
	if (field(a, "untimed") < refused ||
	    field(a, "untimed") > refused + field(a, "short_uncharges")) {
		ksft_print_msg("  untimed: %ld, expected %ld..%ld\n", field(a, "untimed"), refused,
			       refused + field(a, "short_uncharges"));
		ok = 0;
	}
	ok &= expect("unseen_drains", field(a, "unseen_drains"), 0);
	ok &= expect("cached_after_drain", field(a, "cached_after_drain"), 0);
	ok &= expect("unread_stocks", field(a, "unread_stocks"), 0);
	if ((field(a, "cached_at_end") > 0) != modes[i].slots) {
		ksft_print_msg("  cached_at_end: %ld, expected %s\n", field(a, "cached_at_end"),
			       modes[i].slots ? "a slot or more (per-CPU stocks)" : "0 (no slot)");
		ok = 0;
	}
	if (field(a, "stranded_peak") < field(a, "stranded_pages") ||
	    field(a, "drain_events") > field(a, "drains") ||
	    (field(a, "drain_events") > 0) != (field(a, "drains") > 0)) {
		ksft_print_msg("  stranded_peak %ld < stranded_pages %ld, or drain_events %ld against drains %ld\n",
			       field(a, "stranded_peak"), field(a, "stranded_pages"),
			       field(a, "drain_events"), field(a, "drains"));
		ok = 0;
	}
	return ok;
}

static void replay_shipped(const struct trace_facts *f)
{
	char a[2048], b[2048];
	unsigned int i, k;
	int ret;

	for (i = 0; i < nr_modes; i++) {
		int ok, same = 1;

		/* every mode of the list is the module's: EINVAL is a failure */
		ret = run_replay(modes[i].name, "mode", 2, a, sizeof(a));
		if (!ret)
			ret = run_replay(modes[i].name, "exported", 1, b, sizeof(b));
		if (ret) {
			ksft_test_result_fail("replay %s: %s\n", modes[i].name, strerror(-ret));
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
		     strstr(a, " entry=mode ") && strstr(b, " entry=exported ") && same &&
		     field(a, "passes") == 2 && field(a, "agree") == 1 && field(b, "passes") == 1;
		ok &= shipped_ok(i, a, f);
		ksft_test_result(ok, "replay %s: its entries (2 passes that agree), then the exported ones, verdict PASS, the %ld events of the file by kind, same counts, stocks walked\n",
				 modes[i].name, f->events);
	}
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * A replay whose writer is killed: the write returns well before the
 * replay would have ended (a full one is timed first), error_log says
 * EINTR, and the module-wide counts are back where they were.
 */
static void replay_killed(void)
{
	static const char job[] = "mode=decoupled workload=replay passes=4";
	char log[8192] = "", res[2048];
	struct mcs_counts before;
	double t0, full, killed;
	int status = 0, ok, busy;
	pid_t pid;

	if (mcs_get_counts(&before)) {
		ksft_test_result_fail("kill a replay: cannot read memcgs\n");
		return;
	}
	t0 = now_s();
	if (mcs_puts("bench", job) || mcs_read("bench", res, sizeof(res)) < 0 ||
	    !strstr(res, "verdict=PASS")) {
		ksft_test_result_fail("kill a replay: the replay itself failed: %s\n", res);
		return;
	}
	full = now_s() - t0;
	pid = fork();
	if (pid == 0)
		_exit(mcs_puts("bench", job) ? 1 : 0);
	/*
	 * Until the child's write holds the harness (a config write is
	 * refused busy): a kill before it would stop a write that never
	 * reached the module (seen once on a loaded host, 2 s after the
	 * fork).  Then error_log emptied, and the kill 100 ms on: not a
	 * share of the first replay's time, which under TCG includes
	 * translating the code (a second replay ran in under a quarter of
	 * it once, and ended before the kill).
	 */
	for (busy = 0, t0 = now_s(); !busy && now_s() - t0 < 30; mcs_msleep(5))
		busy = mcs_puts("config", MCS_BASE_CONFIG) == -EBUSY;
	mcs_puts("error_log", "x");
	mcs_msleep(100);
	t0 = now_s();
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	killed = now_s() - t0;
	ok = busy && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
	ok &= mcs_read("error_log", log, sizeof(log)) > 0 &&
	      strstr(log, "] bench: accepted, but failed: see the errno (-4)");
	ok &= killed < full / 2;
	ok &= mcs_counts_no_more(&before);
	if (!ok)
		ksft_print_msg("write seen holding the harness: %s; status %d, error_log: %s%s",
			       busy ? "yes" : "no, in 30 s", status, log,
			       log[0] && log[strlen(log) - 1] == '\n' ? "" : "\n");
	ksft_test_result(ok, "kill a replay: its write returned in %.3f s (a whole replay %.3f s), EINTR in error_log, nothing left charged\n",
			 killed, full);
}

/*
 * One memcg that opens with 64 pages; one event that uncharges 1 page,
 * then a recorded refusal of 1 page, which calls nothing.
 */
static struct {
	struct mcs_trace_header h;
	struct mcs_trace_memcg m;
	struct mcs_trace_event e[2];
} one_uncharge = {
	.h = {
		.magic = MCS_TRACE_MAGIC, .version = MCS_TRACE_VERSION,
		.header_size = sizeof(struct mcs_trace_header),
		.memcg_size = sizeof(struct mcs_trace_memcg),
		.event_size = sizeof(struct mcs_trace_event),
		.nr_cpus = 1, .nr_memcgs = 1, .nr_events = 2,
		.release = "made by trace_replay", .workload = "one-uncharge",
	},
	.m = { .cgroup_id = 1, .parent = MCS_TRACE_NO_PARENT, .depth = 1, .open_pages = 64,
	       .name = "one" },
	.e = {
		{ .seq = 0, .cpu = 0, .kind = MCS_TRACE_PAGE_UNCHARGE, .memcg = 0, .amount = 1 },
		{ .seq = 1, .cpu = 0, .kind = MCS_TRACE_PAGE_REFUSED, .memcg = 0, .amount = 1 },
	},
};

/* the three parts back to back, as trace_format.h lays them out */
static_assert(sizeof(one_uncharge) == MCS_TRACE_HEADER_SIZE + sizeof(struct mcs_trace_memcg) +
	       2 * sizeof(struct mcs_trace_event), "no padding between the parts");

/*
 * The uncharge strands its page in a design that keeps it in a stock
 * (measured when the stream ends, not after the closing balance of 63
 * pages went through the stock too), in a slot of a per-CPU stock where
 * the design has one.  The refusal is counted apart, not as a call of
 * 0 ns: ns_per_op is the uncharge's time alone.
 */
static void replay_one_uncharge(void)
{
	char a[2048];
	unsigned int i;
	int loaded;

	one_uncharge.h.page_size = sysconf(_SC_PAGESIZE);
	loaded = mcs_trace_load(&one_uncharge, sizeof(one_uncharge), sizeof(one_uncharge));
	ksft_test_result(!loaded, "load a trace of one uncharge of 1 page (opening balance 64) and one refusal: %s\n",
			 strerror(-loaded));
	for (i = 0; i < nr_modes; i++) {
		int ok, ret = loaded ?: run_replay(modes[i].name, "mode", 2, a, sizeof(a));
		long timed;

		if (ret) {
			ksft_test_result_fail("one uncharge through %s: %s\n", modes[i].name,
					      strerror(-ret));
			continue;
		}
		ksft_print_msg("%s", a);
		timed = field(a, "timed");
		ok = strstr(a, "verdict=PASS") && field(a, "agree") == 1;
		ok &= expect("ops", field(a, "ops"), 2);
		ok &= expect("page_uncharges", field(a, "page_uncharges"), 1);
		ok &= expect("page_refused", field(a, "page_refused"), 1);
		ok &= expect("recorded_refusals", field(a, "recorded_refusals"), 1);
		ok &= expect("untimed", field(a, "untimed"), 1);
		ok &= expect("timed + interrupted", timed + field(a, "interrupted"), 1);
		ok &= expect("ns_per_op (ns / timed)", field(a, "ns_per_op"),
			     field(a, "ns") / (timed > 0 ? timed : 1));
		ok &= expect("stranded_pages", field(a, "stranded_pages"), modes[i].refills);
		ok &= expect("cached_at_end", field(a, "cached_at_end"), modes[i].slots);
		ok &= expect("cached_after_drain", field(a, "cached_after_drain"), 0);
		ok &= expect("unread_stocks", field(a, "unread_stocks"), 0);
		ksft_test_result(ok, "one uncharge through %s: %d page stranded, %d slot at the end, none after the drain, the refusal untimed\n",
				 modes[i].name, modes[i].refills, modes[i].slots);
	}
}

int main(void)
{
	const struct mcs_trace_header *h = (const void *)mcs_shipped_trace;
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	struct trace_facts f;
	char status[512];
	unsigned int i;
	int ret;

	ksft_print_header();
	if (access(MCS_DIR "/trace_load", W_OK))
		ksft_exit_fail_msg("%s/trace_load: %s\n", MCS_DIR, strerror(errno));
	nr_modes = mcs_modes(modes);
	ksft_set_plan(4 + 2 * nr_modes);
	if (trace_facts(&f))
		ksft_exit_fail_msg("%s: not a whole number of events\n", MCS_TRACE_FILE);
	ksft_print_msg("trace: workload=%.32s kernel=%.64s memcgs=%u events=%u (the file holds %ld) cpus=%u (uses %u)\n",
		       h->workload, h->release, h->nr_memcgs, h->nr_events, f.events, h->nr_cpus,
		       f.cpus);
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
	if (online < f.cpus) {
		ksft_test_result(ret == -EINVAL,
				 "load on %ld CPUs of a trace that uses %u: %s (expected EINVAL)\n",
				 online, f.cpus, strerror(-ret));
		for (i = 0; i < nr_modes; i++)
			ksft_test_result_skip("replay %s: the trace uses %u CPUs, %ld online\n",
					      modes[i].name, f.cpus, online);
		ksft_test_result_skip("kill a replay: the trace uses %u CPUs, %ld online\n",
				      f.cpus, online);
	} else {
		mcs_read("trace_load", status, sizeof(status));
		ksft_test_result(!ret && field(status, "events") == f.events,
				 "load the shipped trace (%zu bytes): %s: %s", mcs_trace_size(),
				 strerror(-ret), status);
		replay_shipped(&f);
		replay_killed();
	}
	replay_one_uncharge();
	ksft_finished();
}
