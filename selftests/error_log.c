// SPDX-License-Identifier: GPL-2.0
/*
 * memcg_stock error_log: bad debugfs writes say why in error_log and
 * nothing in the kernel log.
 *
 * A flood first: FLOOD_WRITERS processes send FLOOD_WRITES bad writes each,
 * every kind of malformed input the parser knows, to every writable file
 * (config, run, bench, selftest, record; now and then a write to error_log, which
 * clears it), while this process unloads and loads the module again
 * FLOOD_RELOADS times (from $MCS_MODULE).  Every
 * write that reaches the module must be refused with -EINVAL.  Then a known
 * sequence of bad writes, the refusals that depend on state among them (a
 * case whose period the config turned off, a run in progress): error_log
 * must hold exactly its last 16 entries, oldest first, each with the right
 * file, message, errno, position and escaped excerpt.  Throughout, the
 * kernel log must get no line that names memcg_stock but the kernel's own
 * lines of a module load (taint notices).  The modules that use
 * memcg_stock (the KUnit module) are unloaded first and loaded again at
 * the end, after the kernel log has been judged.
 *
 * Without $MCS_MODULE (a readable memcg_stock.ko) the flood runs without
 * reloads and the reload case is skipped; without /dev/kmsg the kernel log
 * case is.  Under the test rig (MCS_RIG=1), whose guests have both, either
 * fails instead: a skip there would pass untested.
 */
#include <libgen.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "stress_lib.h"

#define FLOOD_WRITERS	4
#define FLOOD_WRITES	2500
#define FLOOD_RELOADS	4
#define FLOOD_BOUND_S	600	/* a writer gives up after this long */
#define RMMOD_RACE_MS	2000	/* unload tried beside the writers this long */
#define ERROR_LOG_LEN	16	/* entries error_log keeps */
#define EXCERPT_MAX	64	/* bytes of the input an entry keeps */

/* One bad write: where, what, and what error_log says about it. */
struct bad_write {
	const char *file;
	const char *data;
	size_t len;		/* 0: strlen(data) */
	const char *msg;	/* the message of its kind (harness/error_log.c) */
	int pos;
	const char *excerpt;	/* as error_log prints it; NULL: data, one line of printables */
};

static char long_config[1100];
static char long_line[80];
static char long_run[40];

/* Every kind of malformed write the parser knows, per file: all -EINVAL. */
static const struct bad_write flood[] = {
	{ "config", long_config, sizeof(long_config) - 1, "write empty or too long", 1024 },
	{ "config", "threads=2\n\nops=1", 0, "empty line", 10, "\"\"" },
	{ "config", "\n", 0, "empty line", 0, "\"\"" },
	{ "config", long_line, sizeof(long_line) - 1, "line too long", 64 },
	{ "config", " threads=2", 0, "blank at the start or end of a line", 0 },
	{ "config", "threads=2 ", 0, "blank at the start or end of a line", 9 },
	{ "config", "threads=2  ops=1", 0, "two blanks in a row", 10 },
	{ "config", "threads=2\tops=1", 0, "byte not printable ASCII", 9,
	  "\"threads=2\\x09ops=1\"" },
	{ "config", "ops=1\nthr\"ead\\=2", 0, "key of other than a-z, 0-9 and _", 9,
	  "\"thr\\\"ead\\\\=2\"" },
	{ "config", "threads", 0, "expected key=value", 0 },
	{ "config", "=2", 0, "expected key=value", 0 },
	{ "config", "Threads=2", 0, "key of other than a-z, 0-9 and _", 0 },
	{ "config", "thread=2", 0, "unknown key", 0 },
	{ "config", "threads=2 threads=3", 0, "key given twice", 10 },
	{ "config", "mode=none mode=none", 0, "key given twice", 10 },
	{ "config", "threads=02", 0, "not a plain decimal number", 8 },
	{ "config", "threads=2x", 0, "not a plain decimal number", 9 },
	{ "config", "threads=9", 0, "number out of the key's range", 8 },
	{ "config", "ops=99999999999", 0, "not a plain decimal number", 4 },
	{ "config", "mode=fast", 0, "unknown value", 5 },
	{ "run", "1\n2", 0, "one line expected", 1, "\"1\"" },
	{ "run", long_run, sizeof(long_run) - 1, "write empty or too long", 32 },
	{ "run", "go", 0, "unknown command: expected 1, all, stop or a case name", 0 },
	{ "run", "1 all", 0, "one command expected", 2 },
	{ "run", "stop\x80", 0, "byte not printable ASCII", 4, "\"stop\\x80\"" },
	{ "bench", "clients=0", 0, "number out of the key's range", 8 },
	{ "bench", "hardirq=2", 0, "expected 0 or 1", 8 },
	{ "bench", "nmi=1=1", 0, "expected key=value", 5 },
	{ "bench", "pmu=cycles", 0, "unknown value", 4 },
	{ "bench", "duration_ms=5 duration_ms=5", 0, "key given twice", 14 },
	{ "bench", "workload=drain hardirq=1", 0,
	  "workload=drain takes no hardirq or nmi load", 0 },
	{ "bench", "workload=cross-pages memcgs=2 clients=2", 0,
	  "workload takes memcgs=1, no hardirq or nmi (cross: 2 clients or more; limit: no shared)",
	  0 },
	{ "bench", "clients=256 memcgs=5", 0, "clients x memcgs too many", 0 },
	{ "bench", "workload=pages passes=2", 0, "passes= applies to workload=replay only", 0 },
	{ "bench", "workload=replay passes=9", 0, "number out of the key's range", 23 },
	{ "selftest", "everything", 0, "unknown value", 0 },
	{ "selftest", "stock\n\n", 0, "one line expected", 5, "\"stock\"" },
	{ "record", "begin", 0, "expected start workload=NAME [events=N] [note=TEXT] or stop", 0 },
	{ "record", "stop now", 0, "expected start workload=NAME [events=N] [note=TEXT] or stop",
	  0 },
	{ "record", "start note=x", 0, "start needs workload=NAME", 0 },
	{ "record", "start workload=a workload=b", 0, "key given twice", 17 },
	{ "record", "start workload=a events=1x", 0, "not a plain decimal number", 25 },
	{ "record", "start workload=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 0,
	  "name or note too long", 46 },
};

/* What the writers share with this process. */
struct flood_state {
	int pause;		/* this process asks the writers to wait */
	int paused[FLOOD_WRITERS];
	int done[FLOOD_WRITERS];
	long refused[FLOOD_WRITERS];	/* -EINVAL, as wanted */
	long absent[FLOOD_WRITERS];	/* the module was unloaded: module_absent() */
	long wrong[FLOOD_WRITERS];	/* accepted, or another error */
	long cleared[FLOOD_WRITERS];	/* writes to error_log */
};

static struct flood_state *st;
static char module_path[1024];
static struct mcs_deps deps;
static int rig;		/* MCS_RIG=1: a missing prerequisite fails */

static size_t bad_len(const struct bad_write *b)
{
	return b->len ? b->len : strlen(b->data);
}

/*
 * The module was unloaded: its file is gone (ENOENT), the module going
 * (ENXIO: debugfs cannot take a reference to it), or the file being
 * removed under an open or a write (EIO, from debugfs).
 */
static int module_absent(int ret)
{
	return ret == -ENOENT || ret == -ENXIO || ret == -EIO;
}

/* Writer @w: FLOOD_WRITES refusals from the module, or the time bound. */
static void flood_writer(int w)
{
	unsigned int seed = 0x9e3779b9u * (w + 1);
	time_t end = time(NULL) + FLOOD_BOUND_S;
	long n = 0;

	while (st->refused[w] + st->wrong[w] < FLOOD_WRITES && time(NULL) < end) {
		const struct bad_write *b;
		int ret;

		if (__atomic_load_n(&st->pause, __ATOMIC_ACQUIRE)) {
			__atomic_store_n(&st->paused[w], 1, __ATOMIC_RELEASE);
			mcs_msleep(1);
			continue;
		}
		__atomic_store_n(&st->paused[w], 0, __ATOMIC_RELEASE);
		seed = seed * 1103515245u + 12345u;
		/* one write in a hundred clears error_log: a writer of its own */
		if (++n % 100 == 0) {
			ret = mcs_puts("error_log", "x");
			st->cleared[w] += !ret;
			st->absent[w] += module_absent(ret);
			st->wrong[w] += ret && !module_absent(ret);
			continue;
		}
		b = &flood[(seed >> 8) % ARRAY_SIZE(flood)];
		ret = mcs_write(b->file, b->data, bad_len(b));
		if (ret == -EINVAL)
			st->refused[w]++;
		else if (module_absent(ret))
			st->absent[w]++;
		else if (st->wrong[w]++ < 3)
			ksft_print_msg("writer %d: %s '%.20s': %d, want %d\n", w, b->file, b->data,
				       ret, -EINVAL);
	}
	__atomic_store_n(&st->paused[w], 1, __ATOMIC_RELEASE);
	__atomic_store_n(&st->done[w], 1, __ATOMIC_RELEASE);
	_exit(0);
}

static int writers_done(void)
{
	int w;

	for (w = 0; w < FLOOD_WRITERS; w++)
		if (!__atomic_load_n(&st->done[w], __ATOMIC_ACQUIRE))
			return 0;
	return 1;
}

/* Writers paused (or finished): none holds a file of the module open. */
static void writers_pause(int on)
{
	int w, all;

	__atomic_store_n(&st->pause, on, __ATOMIC_RELEASE);
	while (on) {
		for (w = 0, all = 1; w < FLOOD_WRITERS; w++)
			all &= __atomic_load_n(&st->paused[w], __ATOMIC_ACQUIRE);
		if (all)
			break;
		mcs_msleep(1);
	}
}

/*
 * Unload beside the writers for RMMOD_RACE_MS (an open file holds the
 * module: -EAGAIN), then with them paused; load again while they write.
 */
static int reload(void)
{
	int ret = -EAGAIN, ms;

	for (ms = 0; ms < RMMOD_RACE_MS && ret == -EAGAIN; ms++) {
		ret = mcs_module_unload("memcg_stock");
		if (ret == -EAGAIN)
			mcs_msleep(1);
	}
	if (ret == -EAGAIN) {
		writers_pause(1);
		ret = mcs_module_unload("memcg_stock");
		writers_pause(0);
	}
	if (ret) {
		ksft_print_msg("unload: %s\n", strerror(-ret));
		return ret;
	}
	mcs_msleep(20);
	ret = mcs_module_load(module_path);
	if (ret)
		ksft_print_msg("load %s: %s\n", module_path, strerror(-ret));
	return ret;
}

/*
 * An open that meets the unload between its last reference and its GOING
 * state makes the kernel WARN (mcs_kmsg_alloc_report()), the kernel's own
 * race: panic_on_warn stays 0 while the reloads run beside the writers.
 */
static void test_flood(int reloads)
{
	char panic_old[16] = "", name[64];
	long refused = 0, absent = 0, wrong = 0, cleared = 0;
	int w, r = 0, failed = 0, status;
	pid_t pid[FLOOD_WRITERS];

	if (reloads)
		mcs_panic_on_warn_off(panic_old, sizeof(panic_old));
	for (w = 0; w < FLOOD_WRITERS; w++) {
		pid[w] = fork();
		if (pid[w] == 0)
			flood_writer(w);
		if (pid[w] < 0)
			ksft_exit_fail_msg("fork: %s\n", strerror(errno));
	}
	/* the reloads spread over the flood: one whenever a share is written */
	while (!writers_done()) {
		long sent = 0;

		for (w = 0; w < FLOOD_WRITERS; w++)
			sent += st->refused[w] + st->wrong[w];
		if (r < reloads && sent >= (long)(r + 1) * FLOOD_WRITERS * FLOOD_WRITES /
					     (reloads + 1)) {
			failed += !!reload();
			r++;
		}
		mcs_msleep(5);
	}
	for (w = 0; w < FLOOD_WRITERS; w++) {
		waitpid(pid[w], &status, 0);
		refused += st->refused[w];
		absent += st->absent[w];
		wrong += st->wrong[w];
		cleared += st->cleared[w];
	}
	if (!mcs_module_loaded("memcg_stock"))
		failed += !!mcs_module_load(module_path);
	mcs_panic_on_warn_restore(panic_old);
	ksft_print_msg("flood: %ld refused, %ld while unloaded, %ld wrong, %ld clears, %d reloads\n",
		       refused, absent, wrong, cleared, r);
	ksft_test_result(refused == (long)FLOOD_WRITERS * FLOOD_WRITES && !wrong,
			 "%d writers x %d bad writes: each refused with -EINVAL\n",
			 FLOOD_WRITERS, FLOOD_WRITES);
	/* named as it passes, also when it cannot run */
	snprintf(name, sizeof(name), "%d reloads beside the writers", FLOOD_RELOADS);
	if (!reloads)
		mcs_result_missing(rig, name, "MCS_MODULE does not name a readable memcg_stock.ko");
	else
		ksft_test_result(r == reloads && !failed && mcs_module_loaded("memcg_stock"),
				 "%s\n", name);
}

/* "] file: message (errno) at byte N: excerpt", as error_log prints it. */
static void expected_line(char *buf, size_t size, const char *file, const char *msg, int err,
			  int pos, const char *excerpt, const char *data, size_t len)
{
	if (excerpt)
		snprintf(buf, size, "] %s: %s (%d) at byte %d: %s", file, msg, err, pos, excerpt);
	else
		snprintf(buf, size, "] %s: %s (%d) at byte %d: \"%.*s\"%s", file, msg, err, pos,
			 (int)(len < EXCERPT_MAX ? len : EXCERPT_MAX), data,
			 len > EXCERPT_MAX ? "..." : "");
}

#define SEQ_MAX	64

struct seq_entry {
	char want[512];
};

static struct seq_entry seq[SEQ_MAX];
static int nr_seq;

/* A write of the known sequence: refused with @err, and what error_log will say. */
static int seq_write(const struct bad_write *b, int err)
{
	int ret = mcs_write(b->file, b->data, bad_len(b));

	if (nr_seq < SEQ_MAX)
		expected_line(seq[nr_seq++].want, sizeof(seq[0].want), b->file, b->msg, err,
			      b->pos, b->excerpt, b->data, bad_len(b));
	if (ret == err)
		return 1;
	ksft_print_msg("%s '%.30s': %d, want %d\n", b->file, b->data, ret, err);
	return 0;
}

/*
 * The known sequence: every flood write once more, then the refusals that
 * depend on state, then flood writes of each file whose excerpts are
 * escaped, cut, or taken from the second line of a write.  error_log must
 * hold the last ERROR_LOG_LEN of them.
 */
static void test_sequence(void)
{
	static const struct bad_write state[] = {
		{ "run", "hardirq", 0, "case needs hardirq context, but hardirq_us=0", 0 },
		{ "run", "bytes", 0, "case needs the drainer, but drain_ms=0", 0 },
		{ "run", "nmi", 0, "case needs NMI context, but nmi_us=0", 0 },
		{ "config", "threads=1", 0, "busy: a stress run is in progress", 0 },
		{ "bench", "duration_ms=5", 0, "busy: a stress run is in progress", 0 },
		{ "selftest", "stock", 0, "busy: a stress run is in progress", 0 },
		{ "run", "task", 0, "busy: a stress run is in progress", 0 },
	};
	/* indices in flood[] */
	static const int last[] = { 7, 8, 24, 3, 21, 23, 28, 34, 0 };
	char buf[16384], *line, *save = NULL;
	int ok = 1, i, n = 0, first;

	ok &= !mcs_puts("error_log", "clear");
	ok &= mcs_read("error_log", buf, sizeof(buf)) == 0;
	for (i = 0; i < (int)ARRAY_SIZE(flood); i++)
		ok &= seq_write(&flood[i], -EINVAL);
	ok &= !mcs_config("hardirq_us=0\ndrain_ms=0\nnmi_us=0\n");
	ok &= seq_write(&state[0], -EINVAL);
	ok &= !mcs_config("drain_ms=0\nnmi_us=0\n");
	ok &= seq_write(&state[1], -EINVAL);
	ok &= seq_write(&state[2], -EINVAL);
	ok &= !mcs_config("duration_ms=600000\n");
	ok &= !mcs_puts("run", "task");
	for (i = 3; i < (int)ARRAY_SIZE(state); i++)
		ok &= seq_write(&state[i], -EBUSY);
	mcs_puts("run", "stop");
	ok &= !mcs_wait_idle(MCS_RUN_TIMEOUT_S);
	ok &= !mcs_config(NULL);
	for (i = 0; i < (int)ARRAY_SIZE(last); i++)
		ok &= seq_write(&flood[last[i]], -EINVAL);
	ksft_test_result(ok, "%d bad writes refused with the right errno\n", nr_seq);

	/* exactly the last ERROR_LOG_LEN, oldest first */
	ok = mcs_read("error_log", buf, sizeof(buf)) > 0;
	first = nr_seq - ERROR_LOG_LEN;
	for (line = strtok_r(buf, "\n", &save); ok && line; line = strtok_r(NULL, "\n", &save)) {
		const char *rest = strchr(line, ']');

		if (line[0] != '[' || !rest || n >= ERROR_LOG_LEN ||
		    strcmp(rest, seq[first + n].want)) {
			ksft_print_msg("error_log line %d: '%s'\n", n, line);
			if (n < ERROR_LOG_LEN)
				ksft_print_msg("     want: '[...%s'\n", seq[first + n].want);
			ok = 0;
		}
		n++;
	}
	ksft_test_result(ok && n == ERROR_LOG_LEN,
			 "error_log holds the last %d of %d: file, message, errno, position, excerpt\n",
			 ERROR_LOG_LEN, nr_seq);
	ok = !mcs_puts("error_log", "\n") && mcs_read("error_log", buf, sizeof(buf)) == 0;
	ksft_test_result(ok, "a write to error_log empties it\n");
}

/*
 * New kernel log lines that name the module, but the kernel's taint notices
 * of a load; and any line mcs_kmsg_scan() calls bad.
 */
static int kmsg_module_lines(int fd)
{
	char rec[4096];
	int n = 0;

	if (fd < 0)
		return 0;
	for (;;) {
		ssize_t len = read(fd, rec, sizeof(rec) - 1);
		const char *msg;

		if (len < 0 && errno == EPIPE)
			continue;
		if (len <= 0)
			break;
		rec[len] = '\0';
		msg = strchr(rec, ';');
		msg = msg ? msg + 1 : rec;
		/* the kernel's own reports (the open-against-rmmod race among them) */
		if (mcs_kmsg_alloc_report(msg))
			continue;
		if (!strstr(msg, "memcg_stock") || strstr(msg, "taint"))
			continue;
		if (n++ < 5)
			ksft_print_msg("kernel log: %s", msg);
	}
	return n;
}

int main(void)
{
	const char *mod = getenv("MCS_MODULE"), *env_rig = getenv("MCS_RIG");
	int kmsg, kmsg_bad, lines, reloads = 0;
	size_t i;

	rig = env_rig && !strcmp(env_rig, "1");
	for (i = 0; i + 1 < sizeof(long_config); i++)
		long_config[i] = "threads=1 "[i % 10];
	memset(long_line, '1', sizeof(long_line) - 1);
	memcpy(long_line, "memcgs=", 7);
	memset(long_run, 'a', sizeof(long_run) - 1);

	ksft_print_header();
	if (!mcs_module_loaded("memcg_stock"))
		ksft_exit_fail_msg("memcg_stock is not loaded\n");
	if (mod && !access(mod, R_OK)) {
		snprintf(module_path, sizeof(module_path), "%s", mod);
		reloads = FLOOD_RELOADS;
	} else {
		ksft_print_msg("MCS_MODULE does not name a readable memcg_stock.ko: no reloads%s\n",
			       rig ? " (MCS_RIG=1: that case fails)" : "");
	}
	mcs_prepare();
	if (access(MCS_DIR "/error_log", W_OK))
		ksft_exit_fail_msg("%s/error_log: %s\n", MCS_DIR, strerror(errno));
	st = mmap(NULL, sizeof(*st), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (st == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	memset(st, 0, sizeof(*st));

	ksft_set_plan(6);
	if (reloads)
		mcs_deps_unload(&deps);
	/* after the unload of the KUnit module: its load would print KTAP */
	kmsg = mcs_kmsg_open();
	kmsg_bad = mcs_kmsg_open();
	if (mcs_config(NULL))
		ksft_exit_fail_msg("cannot write the base config\n");

	test_flood(reloads);
	test_sequence();

	/* the log has had time to take what the writes might have printed */
	mcs_msleep(100);
	if (kmsg < 0 || kmsg_bad < 0) {
		mcs_result_missing(rig, "kernel log", "no /dev/kmsg: not checked");
	} else {
		lines = kmsg_module_lines(kmsg);
		ksft_test_result(!lines && mcs_kmsg_clean(kmsg_bad),
				 "kernel log: %d lines of memcg_stock from %d bad writes and %d reloads\n",
				 lines, FLOOD_WRITERS * FLOOD_WRITES + nr_seq, reloads);
	}
	if (reloads)
		mcs_deps_reload(&deps, module_path);
	ksft_finished();
}
