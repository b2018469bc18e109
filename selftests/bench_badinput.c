// SPDX-License-Identifier: GPL-2.0
/*
 * memcg_stock bench, bad input and adversity: every malformed write to
 * "bench" and "selftest" gets -EINVAL and runs nothing; a bench, a stress
 * run, a self-check and a config write exclude each other (-EBUSY); a bench
 * puts back the stock mode it found; 256 clients finish in bounded time
 * while "bench" stays readable; and with fault injection (fail-nth) every
 * allocation failure of a bench write unwinds to a clean error with
 * nothing leaked and the module still working.  The in-kernel counters
 * (pmu=): a bad value is refused and error_log says where; pmu=sw gives
 * figures wherever the kernel has perf events (the software clocks agree
 * with the wall clock) and pmu=unavailable where it has none; pmu=hw gives
 * figures or, without a PMU, pmu=unavailable, and the rest of the result
 * stands either way.  The sized byte workloads (bytes-256, bytes-1024,
 * bytes-3000, each next to a live neighbour that leaves 64 bytes in the
 * stock): a bad size is refused and error_log says where, and the
 * decoupled obj stock serves them without a page charge and uncharge per
 * pair (no ping-pong).  entry=exported measures through the exported
 * functions, entry=mode (the default) through the mode's own, and both
 * say so.  kernel_cost: every malformed write gets -EINVAL with the
 * reason in error_log; a good one runs the kernel's page counter pair
 * where the module can call it (x86-64 with kprobes) and is refused with
 * -EOPNOTSUPP where it cannot (UML).
 */
#define _GNU_SOURCE
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "stress_lib.h"

#define GOOD_BENCH	"mode=decoupled clients=1 workload=pages duration_ms=5"
/* two clients: a fault in the second one's set-up unwinds the first one */
#define FAULT_BENCH	"duration_ms=5 clients=2"
#define FAULT_NTH_MIN	40
#define FAULT_NTH_MAX	120
#define BIG_BENCH	"clients=256 duration_ms=2 mode=coupled"
/*
 * A hang detector, not a speed test: before the fix the 256-client bench
 * never ended (over 400 s on UML); it takes 0.5-6.5 s on idle qemu guests,
 * but 58 s on UML with a concurrent `make check` at load 16 on 2 cores.
 */
#define BIG_BOUND_MS	120000
#define READ_BOUND_MS	5000
#define FAILSLAB	"/sys/kernel/debug/failslab"
#define FAIL_PAGE_ALLOC	"/sys/kernel/debug/fail_page_alloc"

struct bad_write {
	const char *what;
	const char *data;
	size_t len;		/* 0: strlen(data) */
	int empty_ok;		/* 0 is fine too: the VFS may answer an empty write */
};

static char results[MCS_RESULTS_SIZE];
static char long_line[300];
static int kmsg = -1;

/* Each would run a measurement if it were accepted (the result would change). */
static const struct bad_write bad_bench[] = {
	{ "empty write", "", 0, 1 },
	{ "newline only", "\n" },
	{ "blank line", "\x20\n" },
	{ "blanks only", "   " },
	{ "repeated key", "duration_ms=5 clients=2 clients=3" },
	{ "hardirq=yes", "duration_ms=5 hardirq=yes" },
	{ "hardirq=true", "duration_ms=5 hardirq=true" },
	{ "hardirq=nonsense", "duration_ms=5 hardirq=nonsense" },
	{ "hardirq=2", "duration_ms=5 hardirq=2" },
	{ "shared=01", "duration_ms=5 shared=01" },
	{ "two lines", "duration_ms=5\nclients=2\n" },
	{ "NUL then text", "duration_ms=5\0clients=2", 23 },
	{ "clients=+4", "duration_ms=5 clients=+4" },
	{ "clients=04 (leading zero)", "duration_ms=5 clients=04" },
	{ "clients=0", "duration_ms=5 clients=0" },
	{ "clients=257", "duration_ms=5 clients=257" },
	{ "clients=-1", "duration_ms=5 clients=-1" },
	{ "clients=0x4", "duration_ms=5 clients=0x4" },
	{ "clients=99999999999", "duration_ms=5 clients=99999999999" },
	{ "duration_ms=0", "duration_ms=0" },
	{ "duration_ms=10001", "duration_ms=10001" },
	{ "unknown key", "duration_ms=5 bogus=1" },
	{ "key in capitals", "duration_ms=5 CLIENTS=2" },
	{ "unknown mode", "duration_ms=5 mode=fast" },
	{ "mode=objcg-atomic (a bytes path, not a mode)", "duration_ms=5 mode=objcg-atomic" },
	{ "mode=coupled_noirq", "duration_ms=5 mode=coupled_noirq" },
	{ "mode=coupled-noirq twice", "duration_ms=5 mode=coupled-noirq mode=coupled" },
	{ "memcgs=0", "duration_ms=5 memcgs=0" },
	{ "memcgs=257", "duration_ms=5 memcgs=257" },
	{ "memcgs=-1", "duration_ms=5 memcgs=-1" },
	{ "clients x memcgs over 1024", "duration_ms=5 clients=17 memcgs=64" },
	{ "nmi=2", "duration_ms=5 nmi=2" },
	{ "nmi=on", "duration_ms=5 nmi=on" },
	{ "nmi given twice", "duration_ms=5 nmi=0 nmi=1" },
	{ "unknown workload", "duration_ms=5 workload=disk" },
	{ "workload=bytes-64 (no such size)", "duration_ms=5 workload=bytes-64" },
	{ "workload=bytes-4096", "duration_ms=5 workload=bytes-4096" },
	{ "workload=bytes-0256", "duration_ms=5 workload=bytes-0256" },
	{ "workload=BYTES-256", "duration_ms=5 workload=BYTES-256" },
	{ "batch=0", "duration_ms=5 batch=0" },
	{ "batch=65", "duration_ms=5 batch=65" },
	{ "batch=-16", "duration_ms=5 batch=-16" },
	{ "batch given twice", "duration_ms=5 batch=16 batch=32" },
	{ "workload=Drain", "duration_ms=5 workload=Drain" },
	{ "workload=drain hardirq=1", "duration_ms=5 workload=drain hardirq=1" },
	{ "workload=drain nmi=1", "duration_ms=5 workload=drain nmi=1" },
	{ "workload=cross-pages, 1 client", "duration_ms=5 workload=cross-pages clients=1" },
	{ "cross-bytes memcgs=2", "duration_ms=5 workload=cross-bytes clients=2 memcgs=2" },
	{ "limit-nowait shared=1", "duration_ms=5 workload=limit-nowait clients=2 shared=1" },
	{ "workload=cross-bytes nmi=1", "duration_ms=5 workload=cross-bytes clients=2 nmi=1" },
	{ "workload=limit-nowait hardirq=1", "duration_ms=5 workload=limit-nowait hardirq=1" },
	{ "workload=limit-kernel memcgs=2", "duration_ms=5 workload=limit-kernel memcgs=2" },
	{ "workload=limit", "duration_ms=5 workload=limit" },
	{ "pmu=on", "duration_ms=5 pmu=on" },
	{ "pmu=1", "duration_ms=5 pmu=1" },
	{ "pmu=HW", "duration_ms=5 pmu=HW" },
	{ "pmu given twice", "duration_ms=5 pmu=sw pmu=off" },
	{ "entry=direct", "duration_ms=5 entry=direct" },
	{ "entry=Exported", "duration_ms=5 entry=Exported" },
	{ "entry given twice", "duration_ms=5 entry=mode entry=exported" },
	{ "missing value", "duration_ms=5 clients=" },
	{ "missing =", "duration_ms=5 clients" },
	{ "a=b=c", "duration_ms=5 clients=2=3" },
	{ "trailing blank", "duration_ms=5 clients=2\x20\n" },
	{ "leading blank", " duration_ms=5 clients=2" },
	{ "two blanks", "duration_ms=5  clients=2" },
	{ "tab", "duration_ms=5\tclients=2" },
	{ "byte above 0x7e", "duration_ms=5 mode=\xe9" },
	{ "overlong line", long_line },
};

static const struct bad_write bad_selftest[] = {
	{ "stock\\0garbage", "stock\0garbage", 13 },
	{ "'stock '", "stock " },
	{ "'stock \\n'", "stock\x20\n" },
	{ "two lines", "stock\nall\n" },
	{ "unknown name", "bogus\n" },
	{ "empty write", "", 0, 1 },
	{ "newline only", "\n" },
};

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/*
 * A bench in a child; returns its pid, or -1.  With @ready, the child
 * writes a byte to *@ready (a pipe) just before its bench write.
 */
static pid_t bench_child(const char *line, int *ready)
{
	int fds[2] = { -1, -1 };
	pid_t pid;

	if (ready && pipe(fds))
		return -1;
	pid = fork();
	if (pid == 0) {
		int ret;

		if (ready) {
			close(fds[0]);
			if (write(fds[1], "x", 1) != 1)
				_exit(100);
			close(fds[1]);
		}
		ret = mcs_puts("bench", line);
		_exit(ret ? 1 + (-ret & 0x3f) : 0);
	}
	if (!ready)
		return pid;
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		return -1;
	}
	*ready = fds[0];
	return pid;
}

/* A bench child's wait status: 0, -errno of its write, or -ECHILD. */
static int child_result(int status)
{
	if (!WIFEXITED(status) || WEXITSTATUS(status) == 100)
		return -ECHILD;
	return WEXITSTATUS(status) ? -(WEXITSTATUS(status) - 1) : 0;
}

static int bench_child_wait(pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -ECHILD;
	return child_result(status);
}

/*
 * Counts settle once RCU has freed what the last bench released (a chain
 * of grace periods: a child's free drops its parent's last reference):
 * the same for 2 s in a row, within 30 s.
 */
static int counts_settle(struct mcs_counts *c)
{
	struct mcs_counts again;
	int i, same = 0;

	if (mcs_get_counts(c))
		return -EIO;
	for (i = 0; i < 120 && same < 8; i++) {
		mcs_msleep(250);
		if (mcs_get_counts(&again))
			return -EIO;
		same = memcmp(c, &again, sizeof(again)) ? 0 : same + 1;
		*c = again;
	}
	return same < 8 ? -ETIMEDOUT : 0;
}

/*
 * Wait until @child's bench has created its memcgs (@nr more than
 * @before): it holds the harness from before that until after their
 * release.  1; 0 after @timeout_s; -1 when the child ended first (its
 * result in *@ret).
 */
static int wait_bench_memcgs(pid_t child, const struct mcs_counts *before, long nr,
			     int timeout_s, int *ret)
{
	struct mcs_counts now;
	int i, status;

	for (i = 0; i < timeout_s * 100; i++) {
		if (!mcs_get_counts(&now) && now.memcgs >= before->memcgs + nr)
			return 1;
		if (waitpid(child, &status, WNOHANG) == child) {
			*ret = child_result(status);
			return -1;
		}
		mcs_msleep(10);
	}
	return 0;
}

static int bench_passes(const char *line)
{
	char res[1024];
	int ret = mcs_puts("bench", line);

	if (ret) {
		ksft_print_msg("bench '%s': %s\n", line, strerror(-ret));
		return 0;
	}
	if (mcs_read("bench", res, sizeof(res)) <= 0 || !strstr(res, "verdict=PASS")) {
		ksft_print_msg("bench '%s': %s", line, res);
		return 0;
	}
	return 1;
}

static void test_bad_writes(const char *file, const struct bad_write *bad, unsigned int n)
{
	char before[4096], after[4096];
	unsigned int i;

	for (i = 0; i < n; i++) {
		const struct bad_write *b = &bad[i];
		size_t len = b->len ?: strlen(b->data);
		int ret, ok;

		mcs_read(file, before, sizeof(before));
		ret = mcs_write(file, b->data, len);
		ok = ret == -EINVAL || (b->empty_ok && ret == 0);
		/* nothing ran: the last result or report is the one before */
		mcs_read(file, after, sizeof(after));
		if (strcmp(before, after)) {
			ksft_print_msg("%s changed: %s", file, after);
			ok = 0;
		}
		ksft_test_result(ok, "%s rejects %s: %d (want %d)\n", file, b->what, ret, -EINVAL);
	}
}

static void test_bench_during_stress(void)
{
	char block[16384], buf[4096];
	int ret, ok;

	ret = mcs_config("threads=1\nduration_ms=600000\n");
	if (!ret)
		ret = mcs_puts("run", "1");
	if (!ret)
		ret = mcs_wait_load(120);
	ok = !ret;
	if (ok) {
		ret = mcs_puts("bench", GOOD_BENCH);
		if (ret != -EBUSY) {
			ksft_print_msg("bench during a stress run: %d\n", ret);
			ok = 0;
		}
	}
	/* stop the run whatever happened, so that the next test finds it idle */
	ret = mcs_puts("run", "stop");
	ret = ret ?: mcs_wait_idle(120);
	ok = ok && !ret && mcs_read("results", results, sizeof(results)) > 0 &&
	     mcs_case_block(results, "custom", block, sizeof(block)) &&
	     mcs_block_ok(block, "stopped");
	ok = ok && mcs_read("config", buf, sizeof(buf)) > 0 && mcs_kv_is(buf, "mode", "decoupled");
	ksft_test_result(ok, "bench during a stress run: EBUSY, the run still passes\n");
	mcs_config(NULL);
}

/* While a bench runs in a child: every other harness user is refused, reads are served. */
static void test_during_bench(void)
{
	int sel = -1, cfg = -1, bench = -1, run = -1, got = 0, ret = -ECHILD, status;
	struct mcs_counts before;
	long t, read_ms = -1;
	char buf[1024];
	pid_t child;

	if (counts_settle(&before))
		ksft_print_msg("counts did not settle\n");
	/* one client: the other CPUs stay free for us */
	child = bench_child("mode=decoupled clients=1 duration_ms=5000", NULL);
	/* parent, interrupt memcg and the client */
	if (child > 0)
		got = wait_bench_memcgs(child, &before, 3, 60, &ret);
	if (got == 1) {
		/* first, while the bench surely runs: a read must not wait for it */
		t = now_ms();
		if (mcs_read("bench", buf, sizeof(buf)) >= 0)
			read_ms = now_ms() - t;
		sel = mcs_puts("selftest", "page_counter\n");
		cfg = mcs_puts("config", "memcgs=8\n");
		bench = mcs_puts("bench", GOOD_BENCH);
		run = mcs_puts("run", "1");
		if (!run) {
			/* not refused: stop it before it disturbs anything else */
			mcs_puts("run", "stop");
			mcs_wait_idle(120);
		}
		/* all of the above overlapped the bench only if it still runs */
		if (waitpid(child, &status, WNOHANG) == child) {
			ksft_print_msg("the bench ended before the last check\n");
			got = -1;
			ret = child_result(status);
		}
	} else {
		ksft_print_msg("the bench was not seen running (%d, child %d)\n", got, ret);
	}
	if (got != -1)
		ret = bench_child_wait(child);
	ksft_test_result(sel == -EBUSY, "selftest write during a bench: %d (want %d)\n",
			 sel, -EBUSY);
	ksft_test_result(cfg == -EBUSY, "config write during a bench: %d (want %d)\n",
			 cfg, -EBUSY);
	ksft_test_result(run == -EBUSY, "stress run start during a bench: %d (want %d)\n",
			 run, -EBUSY);
	ksft_test_result(bench == -EBUSY, "second bench during a bench: %d (want %d)\n",
			 bench, -EBUSY);
	ksft_test_result(read_ms >= 0 && read_ms < READ_BOUND_MS,
			 "bench read during a bench: %ld ms\n", read_ms);
	ksft_test_result(!ret && mcs_read("bench", buf, sizeof(buf)) > 0 &&
			 strstr(buf, "verdict=PASS") && strstr(buf, "duration_ms=5000"),
			 "the bench beside them finished: %d, verdict PASS\n", ret);
}

static int config_mode_is(const char *mode)
{
	char buf[4096];

	return mcs_read("config", buf, sizeof(buf)) > 0 && mcs_kv_is(buf, "mode", mode);
}

static void test_mode_restored(void)
{
	int ok;

	ok = !mcs_puts("config", "mode=coupled\n") && config_mode_is("coupled") &&
	     bench_passes("mode=decoupled duration_ms=5") && config_mode_is("coupled");
	ok = ok && !mcs_puts("config", "mode=none\n") &&
	     bench_passes("mode=coupled duration_ms=5 workload=mixed") && config_mode_is("none");
	if (!ok) {
		char buf[4096];

		mcs_read("config", buf, sizeof(buf));
		ksft_print_msg("config after the bench: %s", buf);
	}
	ok = !mcs_puts("config", "mode=decoupled\n") && ok && config_mode_is("decoupled");
	ksft_test_result(ok, "a bench restores the stock mode it found (coupled, none)\n");
}

/*
 * The control "coupled-noirq" runs only inside a bench: exact, with
 * interrupt load too, and the mode found is back afterwards; as the
 * module's stock mode it is refused.
 */
static void test_coupled_noirq(void)
{
	int ok, cfg;

	ok = !mcs_puts("config", "mode=coupled\n") &&
	     bench_passes("mode=coupled-noirq duration_ms=5 workload=mixed hardirq=1") &&
	     bench_passes("mode=coupled-noirq duration_ms=5 workload=bytes clients=2 shared=1") &&
	     config_mode_is("coupled");
	cfg = mcs_puts("config", "mode=coupled-noirq\n");
	ok = ok && cfg < 0 && config_mode_is("coupled");
	ok = !mcs_puts("config", "mode=decoupled\n") && ok;
	ksft_test_result(ok, "coupled-noirq: bench only (config write %d), exact, mode restored\n",
			 cfg);
}

/*
 * The charge batch of one measurement (batch=) and the drain workload:
 * exact, the result gives the batch used, and the module's batch is back
 * afterwards.
 */
static void test_batch_and_drain(void)
{
	char res[MCS_RESULTS_SIZE], res2[MCS_RESULTS_SIZE];
	int ok;

	ok = bench_passes("mode=decoupled duration_ms=5 batch=16 memcgs=8") &&
	     mcs_read("bench", res, sizeof(res)) > 0 && strstr(res, " batch=16 ");
	ok = ok && bench_passes("mode=coupled duration_ms=5 workload=drain") &&
	     bench_passes("mode=percpu-counter duration_ms=5 workload=drain memcgs=4 shared=1") &&
	     bench_passes("mode=decoupled-owner duration_ms=5 workload=drain batch=32 memcgs=9");
	/* the module's batch (64 unless loaded otherwise) is back */
	ok = ok && bench_passes("mode=decoupled duration_ms=5") &&
	     mcs_read("bench", res2, sizeof(res2)) > 0 && !strstr(res2, " batch=32 ") &&
	     !strstr(res2, " batch=16 ");
	if (!ok)
		ksft_print_msg("last results: %s%s", res, res2);
	ksft_test_result(ok, "batch=N and workload=drain: exact, the result gives the batch, which is restored\n");
}

/* The new keys: memcgs per client (eviction) and the NMI load, exact. */
static void test_new_keys(void)
{
	char res[MCS_RESULTS_SIZE];
	int ok;

	ok = bench_passes("mode=coupled duration_ms=5 entry=exported") &&
	     mcs_read("bench", res, sizeof(res)) > 0 && strstr(res, " entry=exported ") &&
	     bench_passes("mode=hahn-v6 duration_ms=5 workload=cross-bytes clients=2") &&
	     mcs_read("bench", res, sizeof(res)) > 0 && strstr(res, " entry=mode ");
	ok = ok && bench_passes("mode=decoupled duration_ms=5 memcgs=16 clients=2") &&
	     bench_passes("mode=coupled duration_ms=5 memcgs=8 workload=bytes") &&
	     bench_passes("mode=decoupled-owner duration_ms=5 memcgs=8 workload=mixed hardirq=1");
	ok = ok && bench_passes("mode=decoupled duration_ms=20 workload=mixed nmi=1") &&
	     mcs_read("bench", res, sizeof(res)) > 0 &&
	     (strstr(res, " nmi=on ") || strstr(res, " nmi=unsupported ")) &&
	     strstr(res, " prim_irqsave_ns=") && strstr(res, " prim_atomic_ns=");
	if (!ok)
		ksft_print_msg("last result: %s", res);
	ksft_test_result(ok, "entry=, memcgs=N and nmi=1: exact, result carries entry=, nmi= and the primitive costs\n");
}

/* Each is refused by kernel_cost before it runs anything. */
static const struct {
	const char *data;
	const char *log;	/* the error_log entry it leaves, after "] kernel_cost: " */
} bad_kcost[] = {
	{ "loops=10", "expected pair=pc|obj|skmem [loops=N] (-22) at byte 0: \"loops=10\"" },
	{ "pair=disk", "unknown value (-22) at byte 5: \"pair=disk\"" },
	{ "pair=PC", "unknown value (-22) at byte 5: \"pair=PC\"" },
	{ "pair=pc pair=obj", "key given twice (-22) at byte 8: \"pair=pc pair=obj\"" },
	{ "pair=pc loops=0",
	  "number out of the key's range (-22) at byte 14: \"pair=pc loops=0\"" },
	{ "pair=pc loops=1000001",
	  "number out of the key's range (-22) at byte 14: \"pair=pc loops=1000001\"" },
	{ "pair=pc loops=-1", "not a plain decimal number (-22) at byte 14: \"pair=pc loops=-1\"" },
	{ "pair=pc bogus=1", "unknown key (-22) at byte 8: \"pair=pc bogus=1\"" },
};

static void test_kernel_cost(void)
{
	char log[256];
	struct utsname u;
	unsigned int i;
	int ret, ok, kprobes;

	for (i = 0; i < ARRAY_SIZE(bad_kcost); i++) {
		ret = mcs_puts("kernel_cost", bad_kcost[i].data);
		snprintf(log, sizeof(log), "] kernel_cost: %s", bad_kcost[i].log);
		ok = mcs_error_log_last_is(log);
		ksft_test_result(ret == -EINVAL && ok, "kernel_cost rejects '%s': %d (want %d)\n",
				 bad_kcost[i].data, ret, -EINVAL);
	}
	/*
	 * The module finds the kernel's functions with a kprobe: where the
	 * kernel has kprobes (x86-64 guests) the pair runs, elsewhere (UML)
	 * the write is refused.
	 */
	uname(&u);
	kprobes = !access("/sys/kernel/debug/kprobes", F_OK);
	ret = mcs_puts("kernel_cost", "pair=pc loops=1000");
	if (kprobes)
		ok = ret == 0;
	else
		ok = ret == -EOPNOTSUPP &&
		     mcs_error_log_last_is("] kernel_cost: the kernel's pair cannot be run here; a read says why (-95) at byte 0: \"pair=pc loops=1000\"");
	ksft_test_result(ok, "kernel_cost pair=pc loops=1000 on %s %s kprobes: %d (want %d)\n",
			 u.machine, kprobes ? "with" : "without", ret, kprobes ? 0 : -EOPNOTSUPP);

	/*
	 * The stock pairs charge the writer's memcg: refused from the root
	 * cgroup (as a read refuses) and where the module cannot call the
	 * kernel; run from an accounting memcg.  The kernel log check below
	 * catches what a run in the root's would do on 6.1 (a counter
	 * underflow WARN).
	 */
	ret = mcs_puts("kernel_cost", "pair=skmem loops=100");
	ksft_test_result(ret == -EOPNOTSUPP || ret == 0,
			 "kernel_cost pair=skmem loops=100: %d (want %d, or 0 in an accounting memcg)\n",
			 ret, -EOPNOTSUPP);
}

/* The value of " key=" in a result line, or NULL. */
static const char *res_field(const char *res, const char *key, char *val, size_t size)
{
	char pat[64];
	const char *p;
	size_t n;

	snprintf(pat, sizeof(pat), " %s=", key);
	p = strstr(res, pat);
	if (!p)
		return NULL;
	p += strlen(pat);
	n = strcspn(p, "\n ");
	if (n >= size)
		n = size - 1;
	memcpy(val, p, n);
	val[n] = '\0';
	return val;
}

/* The value of " key=" in a result line as a number, or -1. */
static long long res_ll(const char *res, const char *key)
{
	char v[64];

	return res_field(res, key, v, sizeof(v)) ? strtoll(v, NULL, 10) : -1;
}

static double res_double(const char *res, const char *key)
{
	char v[64];

	return res_field(res, key, v, sizeof(v)) ? strtod(v, NULL) : -1.0;
}

/*
 * The cross workloads, in every mode: exact, and the next client did
 * uncharge what the previous one charged.  The limit workloads: exact;
 * one client is never refused (a stock serves its own CPU's charges
 * first), and neither is mode none (no stock holds charge) with two.
 */
static void test_cross_and_limit(void)
{
	/* every mode of debugfs "modes", the benchmark's controls among them */
	struct mcs_mode all[MCS_MAX_MODES];
	char line[160], res[MCS_RESULTS_SIZE] = "";
	const char *modes[MCS_MAX_MODES];
	int i, nr = mcs_modes(all);
	int ok = 1;

	for (i = 0; i < nr; i++)
		modes[i] = all[i].name;
	for (i = 0; ok && i < nr; i++) {
		snprintf(line, sizeof(line), "mode=%s duration_ms=20 clients=2 workload=cross-%s",
			 modes[i], i & 1 ? "bytes" : "pages");
		ok = bench_passes(line) && mcs_read("bench", res, sizeof(res)) > 0 &&
		     res_ll(res, "cross") > 0;
		if (!ok)
			break;
		/*
		 * one memcg charged on every CPU, each free on the next: two
		 * clients a CPU, so a window long enough for the scheduler to
		 * run both on a slow (KASAN, emulated) guest
		 */
		snprintf(line, sizeof(line),
			 "mode=%s duration_ms=200 clients=4 workload=cross-pages shared=1",
			 modes[i]);
		ok = bench_passes(line) && mcs_read("bench", res, sizeof(res)) > 0 &&
		     res_ll(res, "cross") > 0;
		if (!ok)
			break;
		snprintf(line, sizeof(line), "mode=%s duration_ms=20 clients=1 workload=limit-%s",
			 modes[i], i & 1 ? "kernel" : "nowait");
		ok = bench_passes(line) && mcs_read("bench", res, sizeof(res)) > 0 &&
		     res_ll(res, "charges") > 0 && res_ll(res, "refusals") == 0;
	}
	if (ok) {
		snprintf(line, sizeof(line), "mode=none duration_ms=20 clients=2 workload=limit-nowait");
		ok = bench_passes(line) && mcs_read("bench", res, sizeof(res)) > 0 &&
		     res_ll(res, "charges") > 0 && res_ll(res, "refusals") == 0;
	}
	if (!ok)
		ksft_print_msg("%s: result: %s", line, res);
	ksft_test_result(ok, "cross and limit workloads: exact, frees on the next client, no refusal without another CPU's stock\n");
}

/*
 * The limit workloads' clients take turns for LIMIT_STEPS steps each: every
 * step is taken, and two runs of GFP_NOWAIT charges count the same charges
 * and refusals, whatever the CPUs' timing.
 */
#define LIMIT_STEPS	2048

static void test_limit_turns(void)
{
	static const char line[] =
		"mode=decoupled duration_ms=10000 clients=2 workload=limit-nowait";
	char res[MCS_RESULTS_SIZE] = "";
	long long charges = -1, refusals = -1;
	int ok = 1, run;

	for (run = 0; ok && run < 2; run++) {
		ok = bench_passes(line) && mcs_read("bench", res, sizeof(res)) > 0 &&
		     res_ll(res, "ops") == 2 * LIMIT_STEPS && res_ll(res, "charges") > 0;
		if (ok && run)
			ok = res_ll(res, "charges") == charges &&
			     res_ll(res, "refusals") == refusals;
		charges = res_ll(res, "charges");
		refusals = res_ll(res, "refusals");
	}
	if (!ok)
		ksft_print_msg("%s: run %d: %s", line, run, res);
	ksft_test_result(ok,
			 "limit workloads: every turn taken, the same charges and refusals twice\n");
}

/* A bench with @line; its result in @res.  1 if it ran and passed. */
static int pmu_bench(const char *line, char *res, size_t size)
{
	int ret = mcs_puts("bench", line);

	res[0] = '\0';
	if (ret) {
		ksft_print_msg("bench '%s': %s\n", line, strerror(-ret));
		return 0;
	}
	if (mcs_read("bench", res, size) <= 0 || !strstr(res, "verdict=PASS")) {
		ksft_print_msg("bench '%s': %s", line, res);
		return 0;
	}
	return 1;
}

/*
 * "pmu=unavailable pmu_want=@want pmu_error=-N" and no figure, or, when
 * @figures, the figures of @want: every one above zero.
 */
static int pmu_fields_ok(const char *res, const char *want, const char *a, const char *b)
{
	char v[32], err[32];

	if (!res_field(res, "pmu", v, sizeof(v)))
		return 0;
	if (!strcmp(v, "unavailable"))
		return res_field(res, "pmu_want", v, sizeof(v)) && !strcmp(v, want) &&
		       res_field(res, "pmu_error", err, sizeof(err)) && atoi(err) < 0 &&
		       !strstr(res, "_per_pair=");
	return !strcmp(v, want) && res_double(res, a) > 0 && res_double(res, b) > 0 &&
	       res_double(res, "pmu_cpus") >= 1;
}

/*
 * The in-kernel counters.  pmu=sw must give figures on any kernel with
 * perf events (perf_event_paranoid is there), with the cpu-clock per pair
 * within a factor of 2 of the wall clock per pair (both cover the same
 * window on the same CPUs, give or take the cross-CPU calls that enable and
 * disable the counters: milliseconds under a loaded emulator, hence 200 ms
 * of load), and must say unavailable (-EOPNOTSUPP) where the kernel has
 * none.  pmu=hw may go either way.
 */
static void test_pmu(void)
{
	int perf = !access("/proc/sys/kernel/perf_event_paranoid", F_OK);
	int ok, ret;
	char res[1024], before[1024], after[1024], v[32];
	double clock, wall;

	ok = pmu_bench("duration_ms=5 clients=2", res, sizeof(res)) &&
	     res_field(res, "pmu", v, sizeof(v)) && !strcmp(v, "off") &&
	     !strstr(res, "_per_pair=");
	ksft_test_result(ok, "pmu left out: the result says pmu=off, no figures\n");

	ok = pmu_bench("mode=decoupled duration_ms=200 clients=2 workload=mixed pmu=sw",
		       res, sizeof(res)) &&
	     pmu_fields_ok(res, "sw", "pmu_cpu_clock_ns_per_pair", "pmu_task_clock_ns_per_pair");
	clock = res_double(res, "pmu_cpu_clock_ns_per_pair");
	wall = res_double(res, "ns_per_op");
	if (perf)
		ok = ok && res_field(res, "pmu", v, sizeof(v)) && !strcmp(v, "sw") &&
		     wall > 0 && clock > wall / 2 && clock < wall * 2;
	else
		ok = ok && res_field(res, "pmu_error", v, sizeof(v)) && atoi(v) == -EOPNOTSUPP;
	if (!ok)
		ksft_print_msg("result: %s", res);
	ksft_test_result(ok, "pmu=sw (%s): %s, cpu-clock %.1f ns per pair, wall clock %.1f\n",
			 perf ? "perf events: figures wanted" : "no perf events: unavailable wanted",
			 res_field(res, "pmu", v, sizeof(v)) ? v : "?", clock, wall);

	ok = pmu_bench("mode=coupled duration_ms=20 clients=3 workload=bytes hardirq=1 pmu=sw",
		       res, sizeof(res)) &&
	     pmu_fields_ok(res, "sw", "pmu_cpu_clock_ns_per_pair", "pmu_task_clock_ns_per_pair") &&
	     (!perf || (res_field(res, "pmu", v, sizeof(v)) && !strcmp(v, "sw")));
	if (!ok)
		ksft_print_msg("result: %s", res);
	ksft_test_result(ok, "pmu=sw with interrupt load and more clients than CPUs: exact\n");

	ok = pmu_bench("mode=none duration_ms=20 clients=2 pmu=hw", res, sizeof(res)) &&
	     pmu_fields_ok(res, "hw", "pmu_insns_per_pair", "pmu_cycles_per_pair") &&
	     strstr(res, " ns_per_op=") && strstr(res, " prim_atomic_ns=");
	if (!ok)
		ksft_print_msg("result: %s", res);
	ksft_test_result(ok, "pmu=hw: %s (%s), the rest of the result stands\n",
			 res_field(res, "pmu", v, sizeof(v)) ? v : "?",
			 res_field(res, "pmu_error", after, sizeof(after)) ? after : "figures");

	/* a bad value: refused, nothing ran, and error_log points at it */
	mcs_read("bench", before, sizeof(before));
	ret = mcs_puts("bench", "duration_ms=5 pmu=cycles");
	mcs_read("bench", after, sizeof(after));
	ok = mcs_error_log_last_is("] bench: unknown value (-22) at byte 18: \"duration_ms=5 pmu=cycles\"");
	ksft_test_result(ret == -EINVAL && !strcmp(before, after) && ok,
			 "pmu=cycles: %d (want %d), error_log says unknown value at byte 18\n",
			 ret, -EINVAL);
}

/*
 * Objects that leave a rest of the page, next to a neighbour that leaves the
 * stock short of one: the decoupled stock keeps a page above what it needs
 * (hysteresis), so the pairs neither charge (hits, misses) nor give back
 * (refills) pages; a stock that gives pages back at once does both per pair.
 * Then a bad size: refused, and error_log says where.
 */
static void test_obj_sizes(void)
{
	static const char * const sizes[] = { "bytes-256", "bytes-1024", "bytes-3000" };
	long ops, pages;
	char line[128], res[1024], before[1024], after[1024];
	unsigned int i;
	int ok, ret;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		snprintf(line, sizeof(line), "mode=decoupled duration_ms=20 memcgs=2 workload=%s",
			 sizes[i]);
		ok = bench_passes(line) && mcs_read("bench", res, sizeof(res)) > 0;
		ops = ok ? (long)res_double(res, "ops") : -1;
		pages = ok ? (long)(res_double(res, "hits") + res_double(res, "misses") +
				    res_double(res, "refills")) : -1;
		/* the neighbours and the first objects move a few pages, no more */
		ok = ok && ops > 0 && pages >= 0 && pages <= ops / 16 + 16;
		if (!ok)
			ksft_print_msg("result: %s", res);
		ksft_test_result(ok, "%s: %ld pairs, %ld page charges and refills (at most %ld)\n",
				 sizes[i], ops, pages, ops / 16 + 16);
	}

	mcs_read("bench", before, sizeof(before));
	ret = mcs_puts("bench", "duration_ms=5 workload=bytes-512");
	mcs_read("bench", after, sizeof(after));
	ok = mcs_error_log_last_is("] bench: unknown value (-22) at byte 23: \"duration_ms=5 workload=bytes-512\"");
	ksft_test_result(ret == -EINVAL && !strcmp(before, after) && ok,
			 "workload=bytes-512: %d (want %d), error_log says unknown value at byte 23\n",
			 ret, -EINVAL);
}

/* 256 clients: done within BIG_BOUND_MS while "bench" reads stay quick. */
static void test_many_clients(void)
{
	long t0, t, lat, max_lat = 0, total = -1;
	int ready = -1, reads = 0, ret = -ECHILD, status;
	char buf[1024], c;
	pid_t child;

	t0 = now_ms();
	child = bench_child(BIG_BENCH, &ready);
	if (child > 0 && read(ready, &c, 1) == 1) {
		for (;;) {
			if (waitpid(child, &status, WNOHANG) == child) {
				total = now_ms() - t0;
				ret = child_result(status);
				break;
			}
			t = now_ms();
			if (mcs_read("bench", buf, sizeof(buf)) < 0)
				break;
			lat = now_ms() - t;
			reads++;
			if (lat > max_lat)
				max_lat = lat;
			mcs_msleep(50);
		}
	}
	if (ready >= 0)
		close(ready);
	if (total < 0 && child > 0)
		bench_child_wait(child);
	ksft_test_result(!ret && total >= 0 && total < BIG_BOUND_MS &&
			 mcs_read("bench", buf, sizeof(buf)) > 0 && strstr(buf, "clients=256") &&
			 strstr(buf, "verdict=PASS"),
			 "%s: %d after %ld ms (bound %d ms), verdict PASS\n",
			 BIG_BENCH, ret, total, BIG_BOUND_MS);
	ksft_test_result(reads > 0 && max_lat < READ_BOUND_MS,
			 "%d reads of bench during it, the slowest %ld ms (bound %d ms)\n",
			 reads, max_lat, READ_BOUND_MS);
}

/* ---- fault injection ------------------------------------------------------ */

/* The knobs we change, their saved values, and what we set. */
struct knob {
	const char *path;
	const char *val;
	char saved[32];
};

static struct knob knobs[] = {
	{ FAILSLAB "/verbose", "0" },		/* no stack dump: it reads as a splat */
	{ FAILSLAB "/ignore-gfp-wait", "N" },	/* GFP_KERNEL allocations fail too */
	{ FAILSLAB "/cache-filter", "N" },	/* every cache, not only flagged ones */
	{ FAIL_PAGE_ALLOC "/verbose", "0" },	/* page allocations keep their defaults */
};

static void knobs_restore(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(knobs); i++)
		if (knobs[i].saved[0])
			mcs_path_write(knobs[i].path, knobs[i].saved, strlen(knobs[i].saved));
}

static int knobs_set(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(knobs); i++) {
		struct knob *k = &knobs[i];

		if (mcs_path_read(k->path, k->saved, sizeof(k->saved)) <= 0) {
			k->saved[0] = '\0';
			if (!strncmp(k->path, FAILSLAB, strlen(FAILSLAB)))
				return -ENOENT;
			continue;	/* no fail_page_alloc: nothing to quiet */
		}
		k->saved[strcspn(k->saved, "\n")] = '\0';
		if (mcs_path_write(k->path, k->val, strlen(k->val))) {
			knobs_restore();
			return -EIO;
		}
	}
	return 0;
}

static int fail_nth_open(void)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%ld/fail-nth", (long)syscall(SYS_gettid));
	return open(path, O_RDWR);
}

static int fail_nth_set(int fd, unsigned int n)
{
	char b[16];
	int len = snprintf(b, sizeof(b), "%u", n);

	return pwrite(fd, b, len, 0) == len ? 0 : -errno;
}

static long fail_nth_get(int fd)
{
	char b[16];
	ssize_t n = pread(fd, b, sizeof(b) - 1, 0);

	if (n <= 0)
		return -1;
	b[n] = '\0';
	return strtol(b, NULL, 10);
}

/*
 * One bench write with the @nth fault point of this thread failing; every
 * file is opened before arming, so that only the write's own allocations
 * count.  Returns the write's result; *@injected says if the fault fired.
 */
static int faulty_bench(int nfd, unsigned int nth, int *injected, long *left)
{
	int bfd, ret;
	ssize_t n;

	bfd = open(MCS_DIR "/bench", O_WRONLY);
	if (bfd < 0)
		return -errno;
	if (fail_nth_set(nfd, nth)) {
		close(bfd);
		return -EIO;
	}
	n = write(bfd, FAULT_BENCH, strlen(FAULT_BENCH));
	ret = n < 0 ? -errno : 0;
	*left = fail_nth_get(nfd);
	fail_nth_set(nfd, 0);
	close(bfd);
	*injected = *left == 0;
	return ret;
}

static void test_fault_injection(void)
{
	int nfd, ret, injected, nr_injected = 0, bad = 0, points = -1;
	struct mcs_counts before;
	unsigned int nth, last;
	char res[1024], prev[1024];
	long left;

	nfd = fail_nth_open();
	if (nfd < 0) {
		ksft_test_result_skip("fault injection: no fail-nth (kernel without CONFIG_FAULT_INJECTION)\n");
		ksft_test_result_skip("after fault injection: a normal bench passes (no fail-nth)\n");
		ksft_test_result_skip("after fault injection: no memcg or objcg leaked (no fail-nth)\n");
		return;
	}
	ret = knobs_set();
	if (ret) {
		close(nfd);
		ksft_test_result_skip("fault injection: no failslab in debugfs (%s)\n",
				      strerror(-ret));
		ksft_test_result_skip("after fault injection: a normal bench passes (no failslab)\n");
		ksft_test_result_skip("after fault injection: no memcg or objcg leaked (no failslab)\n");
		return;
	}
	if (counts_settle(&before))
		ksft_print_msg("counts did not settle before the fault loop\n");

	/* how many fault points a good write passes: a huge nth never fires */
	ret = faulty_bench(nfd, 100000, &injected, &left);
	if (!ret && left > 0)
		points = 100000 - left;
	ksft_print_msg("a bench write '%s' passes %d fault points\n", FAULT_BENCH, points);
	last = points + 1 > FAULT_NTH_MIN ? points + 1 : FAULT_NTH_MIN;
	if (last > FAULT_NTH_MAX)
		last = FAULT_NTH_MAX;

	for (nth = 1; nth <= last; nth++) {
		mcs_read("bench", prev, sizeof(prev));
		ret = faulty_bench(nfd, nth, &injected, &left);
		nr_injected += injected;
		mcs_read("bench", res, sizeof(res));
		if (ret && ret != -ENOMEM) {
			ksft_print_msg("nth=%u: %s\n", nth, strerror(-ret));
			bad++;
		} else if (ret && strcmp(prev, res)) {
			ksft_print_msg("nth=%u: failed write changed the result: %s", nth, res);
			bad++;
		} else if (!ret && !strstr(res, "verdict=PASS")) {
			ksft_print_msg("nth=%u: %s", nth, res);
			bad++;
		} else if (ret && !injected) {
			ksft_print_msg("nth=%u: ENOMEM without an injected fault\n", nth);
			bad++;
		}
	}
	knobs_restore();
	close(nfd);
	ksft_test_result(!bad && nr_injected > 0 && points > 0,
			 "fault injection: nth=1..%u: %d faults fired, each write succeeded or failed with ENOMEM (%d bad)\n",
			 last, nr_injected, bad);
	ksft_test_result(bench_passes(FAULT_BENCH), "after fault injection: a normal bench passes\n");
	ksft_test_result(mcs_counts_back(&before),
			 "after fault injection: memcgs and objcgs back to their counts\n");
}

/*
 * One write of @line that must be refused with -EINVAL and an error_log
 * entry that starts with @want, changing neither the last result nor
 * debugfs "modes" (whose params= give the values now).  Print why not.
 */
static int dparam_refused(const char *line, const char *want)
{
	char res0[MCS_RESULTS_SIZE], res1[MCS_RESULTS_SIZE];
	char modes0[16384], modes1[16384], log[8192];
	const char *last;
	int ret, ok;

	mcs_read("bench", res0, sizeof(res0));
	mcs_read("modes", modes0, sizeof(modes0));
	ret = mcs_puts("bench", line);
	mcs_read("bench", res1, sizeof(res1));
	mcs_read("modes", modes1, sizeof(modes1));
	last = mcs_error_log_last(log, sizeof(log));
	ok = ret == -EINVAL && !strcmp(res0, res1) && !strcmp(modes0, modes1) &&
	     !strncmp(last, want, strlen(want));
	if (!ok)
		ksft_print_msg("'%s': %d (want %d), %s, error_log '%s' (want '%s...')\n", line,
			       ret, -EINVAL, strcmp(res0, res1) ? "result changed" :
			       strcmp(modes0, modes1) ? "modes changed" : "nothing changed",
			       last, want);
	return ok;
}

/* The parameter called @name among @ps (@n of them), or NULL. */
static const struct mcs_mode_param *dparam_find(const struct mcs_mode_param *ps, int n,
						const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(ps[i].name, name))
			return &ps[i];
	return NULL;
}

#define RANGE_ERR	"] bench: number out of the key's range"
#define ORDER_ERR	"] bench: design parameter crosses the one it must stay below"

/*
 * The design parameters of every mode that publishes some in debugfs
 * "modes", from their published bounds, without a list here: a value
 * below the least and above the greatest of each is refused; for each
 * one that must stay below another, a crossed pair inside both bounds,
 * and the upper one alone at or below the lower one's value now, are
 * refused; nothing changes.  Then a run of each such mode at other
 * values than its defaults: it passes, its result line carries them, and
 * "modes" gives the defaults again afterwards.
 */
static void test_design_params(void)
{
	struct mcs_mode all[MCS_MAX_MODES];
	char line[256], res[MCS_RESULTS_SIZE], want[64], v[32];
	char modes0[16384], modes1[16384];
	int i, j, nr = mcs_modes(all), with = 0, writes = 0, bad = 0, runs_ok = 1;

	for (i = 0; i < nr; i++) {
		struct mcs_mode_param ps[MCS_MAX_PARAMS];
		int np = mcs_mode_params(&all[i], ps);
		size_t len;

		if (!np)
			continue;
		with++;
		for (j = 0; j < np; j++) {
			const struct mcs_mode_param *p = &ps[j], *up;
			unsigned int lo_v, up_v;

			if (p->min > 0) {
				snprintf(line, sizeof(line), "duration_ms=5 mode=%.31s %.31s=%u",
					 all[i].name, p->name, p->min - 1);
				bad += !dparam_refused(line, RANGE_ERR);
				writes++;
			}
			if (p->max < 4294967295u) {
				snprintf(line, sizeof(line), "duration_ms=5 mode=%.31s %.31s=%u",
					 all[i].name, p->name, p->max + 1);
				bad += !dparam_refused(line, RANGE_ERR);
				writes++;
			}
			if (!p->below[0])
				continue;
			up = dparam_find(ps, np, p->below);
			if (!up) {
				ksft_print_msg("%s: %s must stay below %s, which it lacks\n",
					       all[i].name, p->name, p->below);
				bad++;
				continue;
			}
			/* the least upper value, and a lower one at or above it */
			up_v = up->min;
			lo_v = p->min > up_v ? p->min : up_v;
			if (lo_v <= p->max) {
				snprintf(line, sizeof(line), "duration_ms=5 mode=%.31s %.31s=%u %.31s=%u",
					 all[i].name, p->name, lo_v, up->name, up_v);
				bad += !dparam_refused(line, ORDER_ERR);
				writes++;
			}
			/* the upper one alone, crossing the lower one's value now */
			if (up->min <= p->value) {
				snprintf(line, sizeof(line), "duration_ms=5 mode=%.31s %.31s=%u",
					 all[i].name, up->name, up->min);
				bad += !dparam_refused(line, ORDER_ERR);
				writes++;
			}
		}

		/* a lower one at its least, the others at their greatest */
		len = snprintf(line, sizeof(line), "duration_ms=5 mode=%.31s", all[i].name);
		for (j = 0; j < np && len < sizeof(line); j++)
			len += snprintf(line + len, sizeof(line) - len, " %.31s=%u", ps[j].name,
					ps[j].below[0] ? ps[j].min : ps[j].max);
		mcs_read("modes", modes0, sizeof(modes0));
		if (!bench_passes(line) || mcs_read("bench", res, sizeof(res)) <= 0) {
			runs_ok = 0;
			continue;
		}
		for (j = 0; j < np; j++) {
			snprintf(want, sizeof(want), "%u", ps[j].below[0] ? ps[j].min : ps[j].max);
			if (!res_field(res, ps[j].name, v, sizeof(v)) || strcmp(v, want)) {
				ksft_print_msg("'%s': result has %s=%s, want %s\n", line,
					       ps[j].name,
					       res_field(res, ps[j].name, v, sizeof(v)) ? v : "(none)",
					       want);
				runs_ok = 0;
			}
		}
		mcs_read("modes", modes1, sizeof(modes1));
		if (strcmp(modes0, modes1)) {
			ksft_print_msg("'%s': modes not restored: %s", line, modes1);
			runs_ok = 0;
		}
	}
	if (!with) {
		ksft_test_result_skip("design parameters: no mode publishes any\n");
		ksft_test_result_skip("design parameters: no run to make\n");
		return;
	}
	ksft_test_result(!bad && writes > 0,
			 "design parameters of %d mode(s): %d out-of-range or crossed writes refused, nothing changed (%d bad)\n",
			 with, writes, bad);
	ksft_test_result(runs_ok,
			 "design parameters: a run at other values passes, its result gives them, the defaults come back\n");
}

/* A valid bench first: a known last result, which no refused write may replace. */
static void test_valid(void)
{
	ksft_test_result(bench_passes(GOOD_BENCH), "a valid bench: verdict PASS\n");
}

static void test_bad_bench(void)
{
	test_bad_writes("bench", bad_bench, ARRAY_SIZE(bad_bench));
}

static void test_bad_selftest(void)
{
	test_bad_writes("selftest", bad_selftest, ARRAY_SIZE(bad_selftest));
}

static const struct {
	const char *name;
	void (*fn)(void);
	unsigned int rows;
} tests[] = {
	{ "valid", test_valid, 1 },
	{ "pmu", test_pmu, 5 },
	{ "bad_bench", test_bad_bench, ARRAY_SIZE(bad_bench) },
	{ "bad_selftest", test_bad_selftest, ARRAY_SIZE(bad_selftest) },
	{ "during_stress", test_bench_during_stress, 1 },
	{ "during_bench", test_during_bench, 6 },
	{ "mode", test_mode_restored, 1 },
	{ "coupled_noirq", test_coupled_noirq, 1 },
	{ "new_keys", test_new_keys, 1 },
	{ "batch_drain", test_batch_and_drain, 1 },
	{ "cross_limit", test_cross_and_limit, 1 },
	{ "limit_turns", test_limit_turns, 1 },
	{ "obj_sizes", test_obj_sizes, 4 },
	{ "many_clients", test_many_clients, 2 },
	{ "faults", test_fault_injection, 3 },
	{ "kernel_cost", test_kernel_cost, ARRAY_SIZE(bad_kcost) + 2 },
	{ "design_params", test_design_params, 2 },
};

/* MCS_BENCH_TESTS="name,name" runs only those groups (for debugging). */
static int selected(const char *name)
{
	const char *sel = getenv("MCS_BENCH_TESTS");
	size_t len = strlen(name);
	const char *p;

	if (!sel || !*sel)
		return 1;
	for (p = strstr(sel, name); p; p = strstr(p + 1, name))
		if ((p == sel || p[-1] == ',') && (p[len] == ',' || !p[len]))
			return 1;
	return 0;
}

int main(void)
{
	unsigned int i, plan = 1;

	memset(long_line, 'x', sizeof(long_line) - 1);
	memcpy(long_line, "duration_ms=5 workload=", 23);

	ksft_print_header();
	mcs_prepare();
	kmsg = mcs_kmsg_open();
	if (kmsg < 0)
		ksft_print_msg("no /dev/kmsg: kernel log not checked\n");
	if (access(MCS_DIR "/bench", W_OK))
		ksft_exit_fail_msg("%s/bench: %s\n", MCS_DIR, strerror(errno));
	if (mcs_config(NULL))
		ksft_exit_fail_msg("cannot write the base config\n");

	for (i = 0; i < ARRAY_SIZE(tests); i++)
		plan += selected(tests[i].name) ? tests[i].rows : 0;
	ksft_set_plan(plan);
	for (i = 0; i < ARRAY_SIZE(tests); i++)
		if (selected(tests[i].name))
			tests[i].fn();
	ksft_test_result(mcs_kmsg_clean(kmsg), "kernel log: no warning, leak or violation\n");
	mcs_config(NULL);
	ksft_finished();
}
