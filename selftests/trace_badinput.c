// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: bad traces written to debugfs "trace_load" are refused with a
 * clear error and change nothing.  The shipped trace (trace_lib.h) is
 * loaded first; then each case writes a copy of it with one thing wrong
 * and expects the write to fail with EINVAL (a truncated trace: its close
 * to log "truncated"), "trace_load" to name the reason in last_error, and
 * the trace loaded before to stay loaded, and error_log to hold one entry
 * for it ("trace refused").  Each case checks the reason
 * text, so that a case passes only through its own check.  Then: a second
 * writer while one loads gets EBUSY; a load while a replay runs gets EBUSY
 * (or the replay ended first: skipped); rmmod during a replay is refused
 * and the replay passes; a replay after all of it passes.
 */
#include <sys/mman.h>
#include <sys/wait.h>

#include "stress_lib.h"
#include "trace_lib.h"

static unsigned char *copy;
static size_t size;

static struct mcs_trace_header *hdr(void)
{
	return (struct mcs_trace_header *)copy;
}

static struct mcs_trace_memcg *memcgs(void)
{
	return (struct mcs_trace_memcg *)(copy + sizeof(struct mcs_trace_header));
}

static struct mcs_trace_event *events(void)
{
	return (struct mcs_trace_event *)(memcgs() + hdr()->nr_memcgs);
}

/* The first event of @kind, or of the other unit's, for the cases that need one. */
static struct mcs_trace_event *first_of(unsigned int kind)
{
	unsigned int i;

	for (i = 0; i < hdr()->nr_events; i++)
		if (events()[i].kind == kind)
			return &events()[i];
	return &events()[0];
}

static void bad_magic(void)
{
	hdr()->magic[0] ^= 0x20;
}

static void bad_version(void)
{
	hdr()->version = MCS_TRACE_VERSION + 1;
}

static void bad_part_size(void)
{
	hdr()->event_size = 16;
}

static void bad_page_size(void)
{
	hdr()->page_size = 65536;
}

static void bad_memcg_index(void)
{
	events()[0].memcg = hdr()->nr_memcgs;
}

static void bad_kind(void)
{
	events()[0].kind = NR_MCS_TRACE_KINDS;
}

static void bad_nmi(void)
{
	events()[0].flags = (events()[0].flags & ~3) | MCS_TRACE_NMI;
}

static void bad_amount_zero(void)
{
	events()[0].amount = 0;
}

static void bad_amount_pages(void)
{
	first_of(MCS_TRACE_PAGE_CHARGE)->amount = MCS_TRACE_MAX_PAGES + 1;
}

static void bad_amount_bytes(void)
{
	first_of(MCS_TRACE_BYTE_CHARGE)->amount = MCS_TRACE_MAX_BYTES + 1;
}

static void bad_empty(void)
{
	hdr()->nr_events = 0;
}

static void bad_cpu_trace(void)
{
	events()[0].cpu = hdr()->nr_cpus;
}

/* a CPU the recording had but this machine lacks */
static void bad_cpu_machine(void)
{
	hdr()->nr_cpus = 256;
	events()[0].cpu = 255;
}

/* the same sequence number twice on one CPU */
static void bad_sequence(void)
{
	struct mcs_trace_event *e = events();
	unsigned int i;

	for (i = 1; i < hdr()->nr_events; i++) {
		if (e[i].cpu == e[0].cpu) {
			e[i].seq = e[0].seq;
			return;
		}
	}
}

/* a page uncharge from a memcg that holds nothing yet */
static void bad_overdraw(void)
{
	struct mcs_trace_event *e = first_of(MCS_TRACE_PAGE_CHARGE);

	memcgs()[e->memcg].open_pages = 0;
	e->kind = MCS_TRACE_PAGE_UNCHARGE;
}

static void bad_parent_order(void)
{
	memcgs()[0].parent = 1;
}

static void bad_depth(void)
{
	memcgs()[0].depth = 2;
}

static void bad_open_balance(void)
{
	memcgs()[0].open_pages = MCS_TRACE_MAX_OPEN_PAGES + 1;
}

static void bad_name(void)
{
	memset(memcgs()[0].name, 'x', sizeof(memcgs()[0].name));
}

struct bad_case {
	const char *what;
	void (*mutate)(void);
	const char *reason;	/* in last_error */
	long delta;		/* bytes added to (or taken from) the end */
};

static const struct bad_case cases[] = {
	{ "wrong magic", bad_magic, "bad magic" },
	{ "wrong version", bad_version, "trace version" },
	{ "wrong event size", bad_part_size, "part sizes" },
	{ "other page size", bad_page_size, "pages of" },
	{ "memcg index beyond the table", bad_memcg_index, "the table has" },
	{ "unknown kind", bad_kind, "unknown" },
	{ "NMI context", bad_nmi, "unknown" },
	{ "amount 0", bad_amount_zero, "amount 0" },
	{ "page charge over 512", bad_amount_pages, "amount 513" },
	{ "byte charge over 1 MiB", bad_amount_bytes, "amount 1048577" },
	{ "CPU beyond the recording's", bad_cpu_trace, "recorded on" },
	{ "CPU beyond the machine's", bad_cpu_machine, "CPU 255" },
	{ "sequence that does not rise", bad_sequence, "sequence" },
	{ "uncharge of more than charged", bad_overdraw, " holds " },
	{ "parent after its child", bad_parent_order, "does not come before" },
	{ "wrong depth", bad_depth, "depth" },
	{ "opening balance out of range", bad_open_balance, "opening balance" },
	{ "unterminated name", bad_name, "not terminated" },
	{ "no events", bad_empty, "no events" },
	{ "one byte too many", NULL, "header says", 1 },
	{ "one byte short", NULL, "truncated", -1 },
	{ "only half a header", NULL, "truncated", -(long)(1 << 30) },
};

static char before[512];

static void run_case(const struct bad_case *c)
{
	size_t len = size;
	char st[512], log[4096] = "";
	int ret, same, logged;

	mcs_puts("error_log", "x");
	memcpy(copy, mcs_shipped_trace, size);
	if (c->mutate)
		c->mutate();
	if (c->delta > 0)
		len = size + c->delta;
	else if (c->delta < -(long)size)
		len = sizeof(struct mcs_trace_header) / 2;
	else if (c->delta < 0)
		len = size + c->delta;
	ret = mcs_trace_load(copy, len, 65536);
	mcs_read("trace_load", st, sizeof(st));
	/* the loaded trace is the one from before: its line up to last_error */
	same = !strncmp(st, before, strcspn(before, "\n"));
	/* one entry in error_log, which points at trace_load's reason */
	logged = mcs_read("error_log", log, sizeof(log)) > 0 &&
		 strstr(log, "] trace_load: trace refused: trace_load reads why (-22)") &&
		 strchr(log, '\n') == log + strlen(log) - 1;
	if (!logged)
		ksft_print_msg("error_log: %s\n", log);
	if (c->delta < 0)
		ksft_test_result(!ret && same && logged && strstr(st, c->reason),
				 "%s: write %s, then %s", c->what, strerror(-ret), st);
	else
		ksft_test_result(ret == -EINVAL && same && logged && strstr(st, c->reason),
				 "%s: %s (expected EINVAL), %s", c->what, strerror(-ret), st);
}

/* Two writers: the second gets EBUSY, and the first one still loads. */
static void two_writers(void)
{
	char log[4096] = "";
	int fd1, fd2, err;

	mcs_puts("error_log", "x");
	fd1 = open(MCS_DIR "/trace_load", O_WRONLY);
	fd2 = open(MCS_DIR "/trace_load", O_WRONLY);
	err = fd2 < 0 ? errno : 0;
	if (fd2 >= 0)
		close(fd2);
	if (fd1 >= 0)
		close(fd1);
	ksft_test_result(fd1 >= 0 && err == EBUSY, "second writer: %s (expected EBUSY)\n",
			 strerror(err));
	ksft_test_result(mcs_read("error_log", log, sizeof(log)) > 0 &&
			 strstr(log, "] trace_load: busy: another writer is loading a trace (-16)"),
			 "second writer: in error_log\n");
}

/* A load while a replay runs: EBUSY, or the replay was over first. */
static void load_during_replay(void)
{
	int busy = 0, other = 0, tries = 0, status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(mcs_puts("bench", "mode=none workload=replay") ? 1 : 0);
	mcs_msleep(20);
	while (waitpid(pid, &status, WNOHANG) == 0 && tries++ < 200) {
		int ret = mcs_trace_load(mcs_shipped_trace, mcs_trace_size(), 1 << 20);

		busy += ret == -EBUSY;
		other += ret && ret != -EBUSY;
	}
	waitpid(pid, &status, 0);
	if (other || !WIFEXITED(status) || WEXITSTATUS(status))
		ksft_test_result_fail("load during a replay: %d unexpected errors, replay status %d\n",
				      other, status);
	else if (!busy)
		ksft_test_result_skip("load during a replay: the replay ended before a load overlapped it\n");
	else
		ksft_test_result_pass("load during a replay: %d EBUSY of %d\n", busy, tries);
}

/*
 * rmmod during a replay: refused (the bench write holds its file, and so
 * the module) until the replay is over; the replay still passes.  An rmmod
 * that succeeds is a failure only if the replay's write was still in
 * progress: the child notes in shared memory when its write has returned,
 * before it closes the file (the last moment the module is held).  An
 * rmmod before the child opened the file, or after its write returned,
 * proves nothing either way: skipped, the module and the trace put back.
 */
static void rmmod_during_replay(void)
{
	static const char job[] = "mode=coupled workload=replay";
	const char *ko = getenv("MCS_MODULE");
	int busy = 0, gone = 0, ended = 0, tries = 0, status, ret;
	int *done = mmap(NULL, sizeof(*done), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t pid;

	if (done == MAP_FAILED) {
		ksft_test_result_fail("rmmod during a replay: mmap: %s\n", strerror(errno));
		return;
	}
	*done = 0;
	pid = fork();
	if (pid == 0) {
		int fd = open(MCS_DIR "/bench", O_WRONLY);
		ssize_t n = fd < 0 ? -1 : write(fd, job, strlen(job));

		__atomic_store_n(done, 1, __ATOMIC_SEQ_CST);
		if (fd >= 0)
			close(fd);
		_exit(n == (ssize_t)strlen(job) ? 0 : 1);
	}
	mcs_msleep(20);
	while (waitpid(pid, &status, WNOHANG) == 0 && tries++ < 400) {
		ret = mcs_module_unload("memcg_stock");
		if (!ret) {
			gone = 1;
			ended = __atomic_load_n(done, __ATOMIC_SEQ_CST);
			break;
		}
		busy += ret == -EAGAIN || ret == -EBUSY;
		mcs_msleep(5);
	}
	waitpid(pid, &status, 0);
	munmap(done, sizeof(*done));
	if (gone) {
		/* put both back for the tests after this one */
		ret = ko ? mcs_module_load(ko) : -ENOENT;
		if (!ret)
			ret = mcs_trace_load(mcs_shipped_trace, mcs_trace_size(), 1 << 20);
		if (!ended && WIFEXITED(status) && !WEXITSTATUS(status))
			ksft_test_result_fail("rmmod during a replay: done while it ran (%s)\n",
					      strerror(-ret));
		else
			ksft_test_result_skip("rmmod during a replay: the module went %s (%s)\n",
					      ended ? "after it" : "before it began",
					      strerror(-ret));
	} else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		ksft_test_result_fail("rmmod during a replay: the replay failed (status %d)\n",
				      status);
	} else if (!busy) {
		ksft_test_result_skip("rmmod during a replay: the replay ended before an rmmod\n");
	} else {
		ksft_test_result_pass("rmmod during a replay: refused %d times, the replay passed\n",
				      busy);
	}
}

int main(void)
{
	char res[2048];
	unsigned int i;
	int ret;

	ksft_print_header();
	if (access(MCS_DIR "/trace_load", W_OK))
		ksft_exit_fail_msg("%s/trace_load: %s\n", MCS_DIR, strerror(errno));
	size = mcs_trace_size();
	copy = malloc(size + 1);
	if (!copy)
		ksft_exit_fail_msg("no memory\n");

	ret = mcs_trace_load(mcs_shipped_trace, size, 1 << 20);
	if (ret) {
		/* fewer CPUs than the trace: trace_replay says so; the cases need a loaded trace */
		mcs_read("trace_load", res, sizeof(res));
		ksft_exit_skip("the shipped trace does not load here (%s): %s",
			       strerror(-ret), res);
	}
	ksft_set_plan(ARRAY_SIZE(cases) + 6);
	mcs_read("trace_load", before, sizeof(before));
	ksft_test_result_pass("good trace loads: %s", before);

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		run_case(&cases[i]);
	two_writers();
	load_during_replay();
	rmmod_during_replay();

	ret = mcs_puts("bench", "mode=decoupled workload=replay");
	if (!ret)
		mcs_read("bench", res, sizeof(res));
	ksft_test_result(!ret && strstr(res, "verdict=PASS"),
			 "replay after the bad traces: %s\n", ret ? strerror(-ret) : res);
	free(copy);
	ksft_finished();
}
