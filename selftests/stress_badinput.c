// SPDX-License-Identifier: GPL-2.0
/*
 * memcg_stock stress, bad input: every malformed write to config and run
 * gets its error and changes nothing; writes during a run are refused;
 * concurrent writers see a config applied whole or not at all; every file
 * reads fine while a run goes on; and the module still works afterwards.
 */
#include <sys/wait.h>

#include "stress_lib.h"

#define NR_CHILDREN	4
#define CHILD_LOOPS	10

struct bad_write {
	const char *what;
	const char *file;
	const char *data;
	size_t len;		/* 0: strlen(data) */
	int err;		/* expected -errno */
	int empty_ok;		/* 0 is fine too: the VFS may answer an empty write */
};

static char results[MCS_RESULTS_SIZE];
static char big[8192];
static char long_line[160];
static char blank_line[80];	/* a good line padded with blanks past 64 characters */
static int kmsg = -1;

static const struct bad_write bad_writes[] = {
	{ "garbage bytes", "config", "\x01\xff\xfe\x80\x7f", 0, -EINVAL },
	{ "empty write", "config", "", 0, -EINVAL, 1 },
	{ "newline only", "config", "\n", 0, -EINVAL },
	{ "blanks only", "config", "\x20\x20\n\t\n\x20\x20", 0, -EINVAL },
	{ "huge write", "config", big, sizeof(big), -EINVAL },
	{ "negative value", "config", "memcgs=-1\n", 0, -EINVAL },
	{ "zero where not allowed", "config", "memcgs=0\n", 0, -EINVAL },
	{ "above maximum", "config", "memcgs=65\n", 0, -EINVAL },
	{ "below minimum", "config", "hardirq_us=5\n", 0, -EINVAL },
	{ "percent over 100", "config", "page_pct=101\n", 0, -EINVAL },
	{ "flag of 2", "config", "churn=2\n", 0, -EINVAL },
	{ "integer overflow", "config", "ops=99999999999999999999999\n", 0, -EINVAL },
	{ "hex value", "config", "memcgs=0x8\n", 0, -EINVAL },
	{ "trailing junk", "config", "memcgs=8x\n", 0, -EINVAL },
	{ "missing value", "config", "memcgs=\n", 0, -EINVAL },
	{ "missing =", "config", "memcgs\n", 0, -EINVAL },
	{ "missing key", "config", "=8\n", 0, -EINVAL },
	{ "unknown key", "config", "bogus=1\n", 0, -EINVAL },
	{ "key in capitals", "config", "MEMCGS=8\n", 0, -EINVAL },
	{ "blanks around =", "config", "memcgs = 8\n", 0, -EINVAL },
	{ "key given twice", "config", "memcgs=4\nmemcgs=5\n", 0, -EINVAL },
	{ "overlong line", "config", long_line, 0, -EINVAL },
	{ "NUL inside", "config", "memcgs=4\0depth=2\n", 17, -EINVAL },
	{ "unknown mode", "config", "mode=fast\n", 0, -EINVAL },
	{ "good lines, one bad", "config", "memcgs=4\ndepth=3\nbogus=1\n", 0, -EINVAL },
	{ "plus sign", "config", "memcgs=+5\n", 0, -EINVAL },
	{ "trailing 0xA0 byte", "config", "memcgs=5\xa0\n", 0, -EINVAL },
	{ "line over 64 characters of blanks", "config", blank_line, 0, -EINVAL },
	{ "trailing tab", "config", "memcgs=5\t\n", 0, -EINVAL },
	{ "leading tab", "config", "\tmemcgs=5\n", 0, -EINVAL },
	{ "tab between tokens", "config", "memcgs=5\tdepth=3\n", 0, -EINVAL },
	{ "leading zero", "config", "memcgs=05\n", 0, -EINVAL },
	{ "two blanks between tokens", "config", "memcgs=5  depth=3\n", 0, -EINVAL },
	{ "leading blank", "config", " memcgs=5\n", 0, -EINVAL },
	{ "empty line between lines", "config", "memcgs=5\n\ndepth=3\n", 0, -EINVAL },
	{ "CRLF line end", "config", "memcgs=5\r\n", 0, -EINVAL },
	{ "mode in capitals", "config", "mode=Coupled\n", 0, -EINVAL },
	{ "mode given twice", "config", "mode=none mode=coupled\n", 0, -EINVAL },
	{ "run: garbage", "run", "\xff\x01", 0, -EINVAL },
	{ "run: unknown command", "run", "start\n", 0, -EINVAL },
	{ "run: 2", "run", "2\n", 0, -EINVAL },
	{ "run: negative", "run", "-1\n", 0, -EINVAL },
	{ "run: empty write", "run", "", 0, -EINVAL, 1 },
	{ "run: huge write", "run", big, sizeof(big), -EINVAL },
	{ "run: NUL inside", "run", "1\0all", 5, -EINVAL },
	{ "run: leading blank", "run", " 1\n", 0, -EINVAL },
	{ "run: trailing tab", "run", "1\t\n", 0, -EINVAL },
	{ "run: trailing 0xA0 byte", "run", "all\xa0", 0, -EINVAL },
	{ "run: two lines", "run", "1\nall\n", 0, -EINVAL },
	{ "run: two commands", "run", "task all\n", 0, -EINVAL },
};

static const char * const all_files[] = { "config", "run", "results", "stocks", "memcgs" };

static void test_bad_writes(void)
{
	char before[4096], after[4096];
	unsigned int i;

	mcs_read("config", before, sizeof(before));
	for (i = 0; i < ARRAY_SIZE(bad_writes); i++) {
		const struct bad_write *b = &bad_writes[i];
		size_t len = b->len ?: strlen(b->data);
		int ret = mcs_write(b->file, b->data, len);
		int ok = ret == b->err || (b->empty_ok && ret == 0);

		/* nothing of a refused write is applied, and no run started */
		mcs_read("config", after, sizeof(after));
		if (strcmp(before, after)) {
			ksft_print_msg("config changed:\n%s", after);
			ok = 0;
		}
		mcs_read("run", after, sizeof(after));
		if (mcs_kv_is(after, "state", "running")) {
			ksft_print_msg("a run started\n");
			mcs_puts("run", "stop");
			mcs_wait_idle(MCS_RUN_TIMEOUT_S);
			ok = 0;
		}
		ksft_test_result(ok, "%s rejects %s: %d (want %d)\n", b->file, b->what,
				 ret, b->err);
	}
}

static void test_read_only(void)
{
	unsigned int i;
	int ok = 1;

	for (i = 2; i < ARRAY_SIZE(all_files); i++) {
		int ret = mcs_puts(all_files[i], "1\n");

		if (!ret) {
			ksft_print_msg("write to %s succeeded\n", all_files[i]);
			ok = 0;
		}
	}
	ksft_test_result(ok, "results, stocks and memcgs refuse writes\n");
}

/* Read @name in @chunk-byte pieces: seq_file must hand out the whole text. */
static int read_in_pieces(const char *name, size_t chunk)
{
	char path[256], buf[65536];
	size_t total = 0;
	ssize_t n = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", MCS_DIR, name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	while (total + chunk < sizeof(buf) && (n = read(fd, buf + total, chunk)) > 0)
		total += n;
	close(fd);
	return n < 0 ? -errno : total > 0 ? 0 : -ENODATA;
}

/* Children hammer @what while the parent waits; 0 when all of them succeeded. */
static int run_children(void (*child)(int k))
{
	pid_t pids[NR_CHILDREN];
	int k, status, bad = 0;

	for (k = 0; k < NR_CHILDREN; k++) {
		pids[k] = fork();
		if (pids[k] == 0) {
			child(k);
			_exit(0);
		}
	}
	for (k = 0; k < NR_CHILDREN; k++) {
		if (pids[k] < 0 || waitpid(pids[k], &status, 0) < 0 ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			bad++;
	}
	return bad;
}

/* During a run: every write refused with EBUSY, every read works. */
static void child_busy(int k)
{
	char buf[65536];
	unsigned int f;
	int i;

	for (i = 0; i < CHILD_LOOPS; i++) {
		if (mcs_puts("config", "memcgs=3\n") != -EBUSY ||
		    mcs_puts("config", "mode=decoupled\n") != -EBUSY ||
		    mcs_puts("run", k & 1 ? "1\n" : "all\n") != -EBUSY)
			_exit(1);
		if (mcs_puts("selftest", k & 1 ? "stock\n" : "page_counter") != -EBUSY)
			_exit(4);
		for (f = 0; f < ARRAY_SIZE(all_files); f++)
			if (mcs_read(all_files[f], buf, sizeof(buf)) <= 0)
				_exit(2);
		if (read_in_pieces(i & 1 ? "results" : "stocks", 7 + i))
			_exit(3);
	}
}

static void test_during_run(void)
{
	struct mcs_counts before, after;
	char block[16384], buf[4096];
	int ret, ok, bad;

	ret = mcs_config("threads=2\nduration_ms=600000\ndrain_ms=5\n");
	mcs_get_counts(&before);
	if (!ret)
		ret = mcs_puts("run", "1");
	if (!ret)
		ret = mcs_wait_load(120);
	ok = !ret;
	ksft_test_result(ok && mcs_puts("config", "memcgs=4\n") == -EBUSY &&
			 mcs_read("config", buf, sizeof(buf)) > 0 &&
			 mcs_kv_long(buf, "memcgs", 0) == 8,
			 "config write during a run: EBUSY, config unchanged\n");
	ksft_test_result(ok && mcs_puts("run", "1") == -EBUSY && mcs_puts("run", "all") == -EBUSY &&
			 mcs_puts("run", "task") == -EBUSY,
			 "run start during a run: EBUSY\n");
	/* a mode switch or a self-check under the run would corrupt its checks */
	ksft_test_result(ok && mcs_puts("config", "mode=coupled\n") == -EBUSY &&
			 mcs_read("config", buf, sizeof(buf)) > 0 &&
			 mcs_kv_is(buf, "mode", "decoupled") &&
			 mcs_puts("selftest", "all\n") == -EBUSY &&
			 mcs_puts("selftest", "stock") == -EBUSY &&
			 mcs_puts("selftest", "page_counter") == -EBUSY,
			 "mode= config write and selftest write during a run: EBUSY, mode unchanged\n");
	bad = ok ? run_children(child_busy) : NR_CHILDREN;
	ksft_test_result(!bad, "%d concurrent writers refused and readers of every file served during a run (%d failed)\n",
			 NR_CHILDREN, bad);
	ret = mcs_puts("run", "stop");
	ok = ok && !ret && !mcs_wait_idle(120) &&
	     mcs_read("results", results, sizeof(results)) > 0 &&
	     mcs_case_block(results, "custom", block, sizeof(block)) &&
	     mcs_block_ok(block, "stopped");
	ok = ok && !mcs_get_counts(&after) && mcs_counts_same(&before, &after);
	ksft_test_result(ok, "the busy run stops clean\n");
	/* the stopped run gave its claim back (the stock check logs no underflow) */
	ret = mcs_puts("selftest", "stock");
	ksft_test_result(!ret, "selftest after a stopped run: works (%d)\n", ret);
}

/*
 * A case needs the hardirq and drainer periods the config turned off: the
 * start is refused, not run with a period nobody asked for; "1" runs the
 * config as it is, without hardirq.
 */
static void test_needed_context_off(void)
{
	char block[16384];
	int ret, ok;

	ret = mcs_config("hardirq_us=0\n");
	ok = !ret && mcs_puts("run", "hardirq") == -EINVAL && mcs_puts("run", "all") == -EINVAL &&
	     mcs_puts("run", "contexts") == -EINVAL;
	if (mcs_wait_idle(MCS_RUN_TIMEOUT_S) || mcs_read("run", block, sizeof(block)) <= 0 ||
	    mcs_kv_is(block, "state", "running"))
		ok = 0;
	ksft_test_result(ok, "hardirq_us=0: cases that need hardirq refused with EINVAL\n");

	ret = mcs_config("drain_ms=0\n");
	ok = !ret && mcs_puts("run", "contexts") == -EINVAL;
	ksft_test_result(ok, "drain_ms=0: cases that need the drainer refused with EINVAL\n");

	ret = mcs_config("hardirq_us=0\nduration_ms=100\n");
	if (!ret)
		ret = mcs_run("1", results, sizeof(results));
	ok = !ret && mcs_case_block(results, "custom", block, sizeof(block)) &&
	     mcs_block_ok(block, "done") && mcs_kv_long(block, "hardirq_us", -1) == 0 &&
	     mcs_kv_long(block, "ops_hardirq", -1) == 0 &&
	     mcs_kv_long(block, "hardirq_expiries", -1) == 0;
	ksft_test_result(ok, "hardirq_us=0: the config alone runs without hardirq (%d)\n", ret);
	mcs_config(NULL);
}

/* Several key=value tokens on a line, separated by one blank. */
static void test_tokens_per_line(void)
{
	char buf[4096];
	int ret;

	ret = mcs_puts("config", "memcgs=5 depth=3\npage_pct=40 pages_max=7");
	mcs_read("config", buf, sizeof(buf));
	ksft_test_result(!ret && mcs_kv_long(buf, "memcgs", 0) == 5 &&
			 mcs_kv_long(buf, "depth", 0) == 3 &&
			 mcs_kv_long(buf, "page_pct", 0) == 40 &&
			 mcs_kv_long(buf, "pages_max", 0) == 7,
			 "config: several tokens per line, last line without newline (%d)\n", ret);
	mcs_config(NULL);
}

/* Idle: each writer's config is applied whole, never mixed with another's. */
static void child_config(int k)
{
	char buf[256];
	int i;

	for (i = 0; i < CHILD_LOOPS; i++) {
		snprintf(buf, sizeof(buf), "memcgs=%d\npages_max=%d\nbytes_max=%d\n",
			 k + 1, k + 1, 1000 + k);
		if (mcs_puts("config", buf))
			_exit(1);
	}
}

static void test_concurrent_config(void)
{
	char buf[4096];
	int i, bad, mixed = 0;
	pid_t reader;

	reader = fork();
	if (reader == 0) {
		/* the reader checks every snapshot it gets */
		for (i = 0; i < 4 * CHILD_LOOPS; i++) {
			long m, p, b;

			if (mcs_read("config", buf, sizeof(buf)) <= 0)
				_exit(1);
			m = mcs_kv_long(buf, "memcgs", -1);
			p = mcs_kv_long(buf, "pages_max", -1);
			b = mcs_kv_long(buf, "bytes_max", -1);
			if (m <= NR_CHILDREN && (p != m || b != 999 + m))
				_exit(2);
		}
		_exit(0);
	}
	bad = run_children(child_config);
	if (reader < 0 || waitpid(reader, &i, 0) < 0 || !WIFEXITED(i) || WEXITSTATUS(i))
		mixed = 1;
	mcs_read("config", buf, sizeof(buf));
	ksft_test_result(!bad && !mixed && mcs_kv_long(buf, "pages_max", 0) ==
			 mcs_kv_long(buf, "memcgs", -1),
			 "%d concurrent config writers: each write applied whole\n", NR_CHILDREN);
}

/* Idle: racing starts, one run wins, the others get EBUSY. */
static void child_start(int k)
{
	int ret = mcs_puts("run", "1");

	_exit(ret == 0 ? 0 : ret == -EBUSY ? 10 : 1);
}

static void test_concurrent_start(void)
{
	pid_t pids[NR_CHILDREN];
	int k, status, won = 0, busy = 0, other = 0;

	mcs_config("duration_ms=1000\n");
	for (k = 0; k < NR_CHILDREN; k++) {
		pids[k] = fork();
		if (pids[k] == 0)
			child_start(k);
	}
	for (k = 0; k < NR_CHILDREN; k++) {
		if (pids[k] < 0 || waitpid(pids[k], &status, 0) < 0 || !WIFEXITED(status))
			other++;
		else if (WEXITSTATUS(status) == 0)
			won++;
		else if (WEXITSTATUS(status) == 10)
			busy++;
		else
			other++;
	}
	k = mcs_wait_idle(MCS_RUN_TIMEOUT_S);
	mcs_read("results", results, sizeof(results));
	ksft_test_result(won >= 1 && won + busy == NR_CHILDREN && !other && !k &&
			 mcs_kv_is(results, "verdict", "PASS"),
			 "%d racing run starts: %d started, %d EBUSY, verdict PASS\n",
			 NR_CHILDREN, won, busy);
}

static void test_still_works(void)
{
	struct mcs_counts before, after;
	char block[16384];
	int ret, ok;

	mcs_config(NULL);
	mcs_get_counts(&before);
	ret = mcs_puts("run", "stop");	/* idle: a no-op that succeeds */
	if (!ret)
		ret = mcs_run("contexts", results, sizeof(results));
	ok = !ret && mcs_case_block(results, "contexts", block, sizeof(block)) &&
	     mcs_block_ok(block, "done");
	ok = ok && !mcs_get_counts(&after) && mcs_counts_same(&before, &after);
	ksft_test_result(ok, "the module still works: a run after all this passes\n");
	/* the finished run gave its claim back */
	ret = mcs_puts("selftest", "stock");
	ksft_test_result(!ret, "selftest after a finished run: works (%d)\n", ret);
	ksft_test_result(mcs_kmsg_clean(kmsg), "kernel log: no warning, leak or violation\n");
}

int main(void)
{
	unsigned int i, nr_bad = ARRAY_SIZE(bad_writes);

	for (i = 0; i + 9 <= sizeof(big); i += 9)
		memcpy(big + i, "memcgs=8\n", 9);
	memset(long_line, '0', sizeof(long_line) - 1);
	memcpy(long_line, "memcgs=", 7);
	long_line[sizeof(long_line) - 2] = '8';
	memset(blank_line, ' ', sizeof(blank_line) - 2);
	memcpy(blank_line, "memcgs=5", 8);
	blank_line[sizeof(blank_line) - 2] = '\n';

	kmsg = mcs_selftest_start();

	ksft_set_plan(nr_bad + 1 + 6 + 3 + 1 + 2 + 3);
	test_bad_writes();
	test_read_only();
	test_during_run();
	test_needed_context_off();
	test_tokens_per_line();
	test_concurrent_config();
	test_concurrent_start();
	test_still_works();
	mcs_config(NULL);
	ksft_finished();
}
