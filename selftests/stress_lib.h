/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the memcg_stock stress selftests: debugfs I/O, runs and their
 * results, module-wide counts and the kernel log.  Header-only: each
 * selftest source is built into a static binary of its own.
 *
 * Every run is judged twice: by the harness's own invariant checker
 * (verdict=PASS in "results") and from here, independently of it: the
 * number of live memcgs and objcgs and the root's usage in "memcgs" must
 * be back to their values before the run, and the kernel log must show no
 * warning, no leak report and no violated invariant.  A checker that
 * missed a leak still fails the selftest.
 */
#ifndef MCS_STRESS_LIB_H
#define MCS_STRESS_LIB_H

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "kselftest.h"

/*
 * Every line of the TAP output as it is printed, also into a pipe
 * (run_tests.sh tees it): a guest that hangs shows its last result, not
 * the last 4 KiB block, and a fork() copies no unwritten output.
 */
__attribute__((constructor)) static void mcs_stdout_lines(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
}

#define MCS_DIR			"/sys/kernel/debug/memcg_stock"
#define MCS_RESULTS_SIZE	(256 * 1024)
#define MCS_RUN_TIMEOUT_S	600

/* Every numeric key, so that no test depends on what ran before it. */
#define MCS_BASE_CONFIG							\
	"memcgs=8\ndepth=2\nthreads=1\nduration_ms=300\nops=0\npage_pct=50\n" \
	"pages_max=8\nbytes_max=1024\nlimit=0\nhardirq_us=100\nsoftirq=1\n" \
	"drain_ms=20\nchurn=1\nhotplug=0\nnmi_us=100\n"

static inline void mcs_msleep(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* 0, or -errno of open() or write(); a short write is -EIO. */
static inline int mcs_path_write(const char *path, const void *buf, size_t len)
{
	ssize_t n;
	int fd, ret;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, buf, len);
	ret = n < 0 ? -errno : (size_t)n == len ? 0 : -EIO;
	close(fd);
	return ret;
}

static inline int mcs_write(const char *name, const void *buf, size_t len)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", MCS_DIR, name);
	return mcs_path_write(path, buf, len);
}

static inline int mcs_puts(const char *name, const char *s)
{
	return mcs_write(name, s, strlen(s));
}

/* The whole file, NUL-terminated; its length or -errno. */
static inline long mcs_path_read(const char *path, char *buf, size_t size)
{
	ssize_t n;
	size_t total = 0;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	while (total < size - 1 && (n = read(fd, buf + total, size - 1 - total)) > 0)
		total += n;
	if (n < 0 && total < size - 1) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	buf[total] = '\0';
	return total;
}

static inline long mcs_read(const char *name, char *buf, size_t size)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", MCS_DIR, name);
	return mcs_path_read(path, buf, size);
}

/* The value of a "key=value" line of @text, or NULL. */
static inline const char *mcs_kv(const char *text, const char *key, char *val, size_t size)
{
	size_t klen = strlen(key);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, key, klen) && p[klen] == '=') {
			const char *v = p + klen + 1;
			size_t n = strcspn(v, "\n");

			if (n >= size)
				n = size - 1;
			memcpy(val, v, n);
			val[n] = '\0';
			return val;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

static inline long mcs_kv_long(const char *text, const char *key, long dflt)
{
	char v[64];

	return mcs_kv(text, key, v, sizeof(v)) ? strtol(v, NULL, 10) : dflt;
}

static inline int mcs_kv_is(const char *text, const char *key, const char *want)
{
	char v[256];

	return mcs_kv(text, key, v, sizeof(v)) && !strcmp(v, want);
}

/* The block of case @name in the results: from its case= line to a blank line. */
static inline char *mcs_case_block(const char *results, const char *name,
				   char *out, size_t size)
{
	char tag[1100];
	const char *b, *e;
	size_t n;

	snprintf(tag, sizeof(tag), "\ncase=%s\n", name);
	b = strstr(results, tag);
	if (!b)
		return NULL;
	b++;
	e = strstr(b, "\n\n");
	n = e ? (size_t)(e - b + 1) : strlen(b);
	if (n >= size)
		n = size - 1;
	memcpy(out, b, n);
	out[n] = '\0';
	return out;
}

/* Wait while the run file says state=running: 0 or -ETIMEDOUT / -EIO. */
static inline int mcs_wait_idle(int timeout_s)
{
	char buf[4096], st[32];
	int i;

	for (i = 0; i < timeout_s * 20; i++) {
		if (mcs_read("run", buf, sizeof(buf)) < 0)
			return -EIO;
		if (mcs_kv(buf, "state", st, sizeof(st)) && strcmp(st, "running"))
			return 0;
		mcs_msleep(50);
	}
	return -ETIMEDOUT;
}

/* Wait until a case is in its load phase: 0, or -ETIMEDOUT / -EIO. */
static inline int mcs_wait_load(int timeout_s)
{
	char buf[4096];
	int i;

	for (i = 0; i < timeout_s * 50; i++) {
		if (mcs_read("run", buf, sizeof(buf)) < 0)
			return -EIO;
		if (mcs_kv_is(buf, "phase", "load"))
			return 0;
		if (!mcs_kv_is(buf, "state", "running"))
			return -ESRCH;
		mcs_msleep(20);
	}
	return -ETIMEDOUT;
}

/* Start @cmd ("1", "all", a case), wait for it, read "results" into @res. */
static inline int mcs_run(const char *cmd, char *res, size_t size)
{
	int ret = mcs_puts("run", cmd);

	if (ret)
		return ret;
	ret = mcs_wait_idle(MCS_RUN_TIMEOUT_S);
	if (ret)
		return ret;
	return mcs_read("results", res, size) < 0 ? -EIO : 0;
}

/* Module-wide counts from the header and root line of "memcgs". */
struct mcs_counts {
	long memcgs;
	long objcgs;
	long underflows;
	long root_usage;
};

static inline long mcs_field(const char *text, const char *key)
{
	const char *p = strstr(text, key);

	return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

static inline int mcs_get_counts(struct mcs_counts *c)
{
	char buf[16384];
	const char *root;

	if (mcs_read("memcgs", buf, sizeof(buf)) < 0)
		return -EIO;
	c->memcgs = mcs_field(buf, "memcgs_alive=");
	c->objcgs = mcs_field(buf, "objcgs_alive=");
	c->underflows = mcs_field(buf, "underflows=");
	root = strstr(buf, "name=root ");
	c->root_usage = root ? mcs_field(root, "usage=") : -1;
	return c->memcgs < 0 || c->objcgs < 0 || c->root_usage < 0 ? -EINVAL : 0;
}

static inline int mcs_counts_same(const struct mcs_counts *a, const struct mcs_counts *b)
{
	if (a->memcgs == b->memcgs && a->objcgs == b->objcgs &&
	    a->underflows == b->underflows && a->root_usage == b->root_usage)
		return 1;
	ksft_print_msg("counts changed: memcgs %ld -> %ld, objcgs %ld -> %ld, underflows %ld -> %ld, root usage %ld -> %ld\n",
		       a->memcgs, b->memcgs, a->objcgs, b->objcgs, a->underflows,
		       b->underflows, a->root_usage, b->root_usage);
	return 0;
}

/* Wait up to 30 s for the counts of @before (frees run after RCU); print them if not. */
static inline int mcs_counts_back(const struct mcs_counts *before)
{
	struct mcs_counts now;
	int i;

	for (i = 0; i < 120; i++) {
		if (!mcs_get_counts(&now) && !memcmp(before, &now, sizeof(now)))
			return 1;
		mcs_msleep(250);
	}
	return mcs_counts_same(before, &now);
}

/*
 * Like mcs_counts_back(), for a @before that objects of an earlier test may
 * still have inflated (freed after an RCU grace period): wait until no more
 * memcgs and objcgs are alive than then, and underflows and root usage are
 * the same.
 */
static inline int mcs_counts_no_more(const struct mcs_counts *before)
{
	struct mcs_counts now = { 0 };
	int i;

	for (i = 0; i < 120; i++) {
		if (!mcs_get_counts(&now) && now.memcgs <= before->memcgs &&
		    now.objcgs <= before->objcgs && now.underflows == before->underflows &&
		    now.root_usage == before->root_usage)
			return 1;
		mcs_msleep(250);
	}
	return mcs_counts_same(before, &now);
}

/* The kernel log from now on. */
static inline int mcs_kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/* What no run may make the kernel say. */
static const char * const mcs_bad_log[] = {
	"WARNING:", "BUG:", "Oops", "Call Trace", "KASAN:", "UBSAN:", "kmemleak:",
	"lockdep", "circular locking", "inconsistent lock state",
	"sleeping function called", "scheduling while atomic",
	"invariant violated", "leaked", "freed with", "leftover bytes", "underflow",
	/* RCU stalls (normal and expedited), a starved RCU kthread, a hung task */
	"detected stall", "detected expedited stall", "kthread starved",
	"blocked for more than",
	/* an NMI nobody claimed: the NMI load's handshake failed */
	"NMI received for unknown reason",
};

/* A frame line of a call trace: x86 "fn+0x1/0x2", "? fn", "<TASK>"; UML " [<addr>] fn". */
static inline int mcs_kmsg_frame(const char *msg)
{
	const char *p = msg + strspn(msg, " ");

	if (!strncmp(p, "[<", 2) || !strncmp(p, "? ", 2) ||
	    (*p == '<' && strchr(p, '>') && !strchr(p, ' ')))
		return 1;
	p += strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.");
	return p > msg && !strncmp(p, "+0x", 3);
}

/*
 * What an injected allocation failure makes the kernel itself report, and
 * is no splat of ours (selftests/splat-alloc.awk skips the same for the
 * rig and says why): warn_alloc()'s header and stack dump, and a failed
 * kmem_cache_create()'s, up to the end of the call trace; the WARN_ON_ONCE()
 * of event_define_fields() on an -ENOMEM while a module's trace events are
 * set up, and the two of event_file_put() that follow when that module
 * unloads, up to "---[ end trace"; 80 lines at most.  And kmemleak saying
 * that it could not allocate a scan area.  Also the kernel's own race of an
 * open against rmmod (not an allocation failure, but as little ours):
 * delete_module() drops the module's last reference before it marks the
 * module GOING, and a debugfs open in between finds the owner neither
 * gettable nor going, and WARNs "debugfs file owner did not clean up at
 * exit" (fs/debugfs/file.c); the open fails cleanly.
 */
static inline int mcs_kmsg_alloc_report(const char *msg)
{
	static int skip, warn, trace;

	if (strstr(msg, "vmalloc error: size") || strstr(msg, "page allocation failure: order") ||
	    (strstr(msg, "kmem_cache_create") && strstr(msg, ") failed with error"))) {
		skip = 80;
		warn = 0;
		trace = 0;
		return 1;
	}
	if (strstr(msg, "debugfs file owner did not clean up at exit"))
		return 1;
	if ((strstr(msg, "WARNING: ") && strstr(msg, "kernel/trace/trace_events.c:") &&
	     (strstr(msg, " event_define_fields") || strstr(msg, " event_file_put"))) ||
	    (strstr(msg, "WARNING: ") && strstr(msg, "fs/debugfs/file.c:") &&
	     (strstr(msg, " full_proxy_open") || strstr(msg, " open_proxy_open")))) {
		skip = 80;
		warn = 1;
		trace = 0;
		return 1;
	}
	if (strstr(msg, "kmemleak: Cannot allocate a scan area"))
		return 1;
	if (skip <= 0)
		return 0;
	skip--;
	if (warn) {
		if (strstr(msg, "---[ end trace"))
			skip = 0;
		return 1;
	}
	if (strstr(msg, "Call Trace:")) {
		trace = 1;
		return 1;
	}
	if (!trace)
		return 1;
	if (mcs_kmsg_frame(msg)) {
		if (strstr(msg, "</TASK>"))
			skip = 0;
		return 1;
	}
	skip = 0;
	return 0;
}

/*
 * A KCSAN report whose title names no function of memcg_stock (or of its
 * KUnit module): a race inside the kernel itself, not ours, skipped up to
 * the line of "=" that ends it, 200 lines at most (selftests/splat-kcsan.awk
 * does the same for the rig and says why).  Lines of other CPUs' messages
 * that land inside it and look like a splat are still scanned.
 */
static inline int mcs_kmsg_kcsan_foreign(const char *msg)
{
	static int skip;

	if (!strncmp(msg, "BUG: KCSAN: ", 12)) {
		skip = strstr(msg, "[memcg_stock") ? 0 : 200;
		return skip > 0;
	}
	if (skip <= 0)
		return 0;
	skip--;
	if (!strncmp(msg, "==========", 10)) {
		skip = 0;
		return 1;
	}
	return !strstr(msg, "BUG:") && !strstr(msg, "WARNING:") && !strstr(msg, "Oops") &&
	       !strstr(msg, "Call Trace") && !strstr(msg, "panic");
}

/* New kernel log lines matching @extra (may be NULL) are counted too. */
static inline int mcs_kmsg_scan(int fd, const char *extra, int *nr_extra)
{
	char rec[4096];
	int bad = 0;
	size_t i;

	if (nr_extra)
		*nr_extra = 0;
	if (fd < 0)
		return 0;
	for (;;) {
		ssize_t n = read(fd, rec, sizeof(rec) - 1);
		const char *msg;

		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten records: go on */
		if (n <= 0)
			break;
		rec[n] = '\0';
		msg = strchr(rec, ';');
		msg = msg ? msg + 1 : rec;
		if (extra && nr_extra && strstr(msg, extra))
			(*nr_extra)++;
		if (mcs_kmsg_alloc_report(msg) || mcs_kmsg_kcsan_foreign(msg))
			continue;
		for (i = 0; i < ARRAY_SIZE(mcs_bad_log); i++) {
			if (strstr(msg, mcs_bad_log[i])) {
				if (bad++ < 5)
					ksft_print_msg("kernel log: %s", msg);
				break;
			}
		}
	}
	return bad;
}

static inline int mcs_kmsg_clean(int fd)
{
	return !mcs_kmsg_scan(fd, NULL, NULL);
}

/*
 * panic_on_warn off, its value kept in @old (a buffer of @size, "" when
 * nothing is kept), for the kernel's own WARNs that a test provokes on
 * purpose (mcs_kmsg_alloc_report() names them); and back.
 */
#define MCS_PANIC_KNOB "/proc/sys/kernel/panic_on_warn"

static inline void mcs_panic_on_warn_off(char *old, size_t size)
{
	if (!old[0] && mcs_path_read(MCS_PANIC_KNOB, old, size) > 0) {
		old[strcspn(old, "\n")] = '\0';
		mcs_path_write(MCS_PANIC_KNOB, "0", 1);
	}
}

static inline void mcs_panic_on_warn_restore(char *old)
{
	if (old[0])
		mcs_path_write(MCS_PANIC_KNOB, old, strlen(old));
	old[0] = '\0';
}

/*
 * The last entry of error_log, from its time on: "] file: message (errno)
 * at byte N: excerpt" without the newline; "" when the log is empty.
 */
static inline const char *mcs_error_log_last(char *buf, size_t size)
{
	char *end, *line;

	if (mcs_read("error_log", buf, size) <= 0)
		return "";
	end = buf + strlen(buf);
	if (end > buf && end[-1] == '\n')
		*--end = '\0';
	line = strrchr(buf, '\n');
	line = line ? line + 1 : buf;
	return strchr(line, ']') ?: "";
}

/* Is the last entry of error_log @want (see mcs_error_log_last())?  Print it if not. */
static inline int mcs_error_log_last_is(const char *want)
{
	char buf[8192];
	const char *last = mcs_error_log_last(buf, sizeof(buf));

	if (!strcmp(last, want))
		return 1;
	ksft_print_msg("error_log ends with '%s', want '%s'\n", last, want);
	return 0;
}

/* A finished case: status and verdict as wanted; print why not. */
static inline int mcs_block_ok(const char *block, const char *status)
{
	char v[64], why[1024];

	if (!mcs_kv_is(block, "status", status)) {
		ksft_print_msg("status %s, want %s\n",
			       mcs_kv(block, "status", v, sizeof(v)) ?: "?", status);
		return 0;
	}
	if (!mcs_kv_is(block, "verdict", "PASS")) {
		ksft_print_msg("verdict %s: %s\n", mcs_kv(block, "verdict", v, sizeof(v)) ?: "?",
			       mcs_kv(block, "violation", why, sizeof(why)) ?: "(no violation text)");
		return 0;
	}
	return 1;
}

/* @text line by line into the TAP log, each line tagged with @what. */
static inline void mcs_print_text(const char *what, const char *text)
{
	const char *p = text;

	while (*p) {
		int n = strcspn(p, "\n");

		ksft_print_msg("%s: %.*s\n", what, n, p);
		p += n + (p[n] == '\n');
	}
}

/* One line of figures for the TAP log. */
static inline void mcs_print_figures(const char *block)
{
	char name[64], mops[32], hit[32], hp[32], nmi[32];

	ksft_print_msg("%s: ops %ld (task %ld softirq %ld hardirq %ld churn %ld nmi %ld) %s Mops/s, hit %s%%, trylock_fail %ld (task %ld softirq %ld hardirq %ld nmi %ld), refusals %ld, drains %ld/%ld, churn %ld, alloc_failures %ld, hotplug %s/%ld, nmi %s\n",
		       mcs_kv(block, "case", name, sizeof(name)) ?: "?",
		       mcs_kv_long(block, "ops", 0), mcs_kv_long(block, "ops_task", 0),
		       mcs_kv_long(block, "ops_softirq", 0), mcs_kv_long(block, "ops_hardirq", 0),
		       mcs_kv_long(block, "ops_churn", 0), mcs_kv_long(block, "ops_nmi", 0),
		       mcs_kv(block, "mops", mops, sizeof(mops)) ?: "?",
		       mcs_kv(block, "stock_hit_pct", hit, sizeof(hit)) ?: "?",
		       mcs_kv_long(block, "trylock_fail", 0),
		       mcs_kv_long(block, "trylock_fail_task", 0),
		       mcs_kv_long(block, "trylock_fail_softirq", 0),
		       mcs_kv_long(block, "trylock_fail_hardirq", 0),
		       mcs_kv_long(block, "trylock_fail_nmi", 0),
		       mcs_kv_long(block, "limit_refusals", 0),
		       mcs_kv_long(block, "drains_async", 0), mcs_kv_long(block, "drains_sync", 0),
		       mcs_kv_long(block, "churn_created", 0),
		       mcs_kv_long(block, "alloc_failures", 0),
		       mcs_kv(block, "hotplug", hp, sizeof(hp)) ?: "?",
		       mcs_kv_long(block, "hotplug_cycles", 0),
		       mcs_kv(block, "nmi", nmi, sizeof(nmi)) ?: "?");
}

/* ---- the stock modes, from debugfs "modes" --------------------------------------- */

#define MCS_MAX_MODES	32

/*
 * A stock mode as debugfs "modes" publishes it (docs/debugfs.md), with
 * what the tests need of its metadata.  The tests take their modes from
 * there: a mode added to the module's binding table is stressed, fuzzed
 * and replayed without an edit here.
 */
struct mcs_mode {
	char name[32];
	char design[32];
	int control;	/* a benchmark control: bench takes it, config refuses it */
	int batches;	/* a page charge that misses charges a whole batch */
	int page_stock;	/* a page stock (memcgs_per_cpu=N with N > 0) */
	int refills;	/* an uncharge can leave pages in its stocks */
	int slots;	/* it fills per-CPU stocks with slots (stocks= is not "-") */
	char stocks[160];
	char params[160];	/* params= as published: "-" or NAME:MIN..MAX:VALUE[<UPPER],... */
};

#define MCS_MAX_PARAMS	8

/* A bench parameter of a mode's design, from its params= in "modes". */
struct mcs_mode_param {
	char name[32];
	unsigned int min, max;
	unsigned int value;	/* the value now: the default outside a bench run */
	char below[32];		/* "": none; else the parameter it must stay below */
};

static inline void mcs_mode_token(struct mcs_mode *m, const char *key, const char *val)
{
	if (!strcmp(key, "mode"))
		snprintf(m->name, sizeof(m->name), "%s", val);
	else if (!strcmp(key, "design"))
		snprintf(m->design, sizeof(m->design), "%s", val);
	else if (!strcmp(key, "control"))
		m->control = !strcmp(val, "1");
	else if (!strcmp(key, "batches"))
		m->batches = !strcmp(val, "1");
	else if (!strcmp(key, "memcgs_per_cpu"))
		m->page_stock = strcmp(val, "0") != 0;
	else if (!strcmp(key, "refills"))
		m->refills = !strcmp(val, "1");
	else if (!strcmp(key, "stocks"))
		snprintf(m->stocks, sizeof(m->stocks), "%s", val);
	else if (!strcmp(key, "params"))
		snprintf(m->params, sizeof(m->params), "%s", val);
	m->slots = m->stocks[0] && strcmp(m->stocks, "-");
}

/*
 * Every mode of the module, in its table's order, into @modes (room for
 * MCS_MAX_MODES); returns how many.  A file that cannot be read or names
 * no mode fails the selftest: a test of every mode must not pass with none.
 */
static inline int mcs_modes(struct mcs_mode *modes)
{
	char buf[16384], *line, *tok, *save_line = NULL, *save_tok;
	long ret = mcs_read("modes", buf, sizeof(buf));
	int n = 0;

	if (ret <= 0)
		ksft_exit_fail_msg("%s/modes: %s\n", MCS_DIR, ret ? strerror(-ret) : "empty");
	for (line = strtok_r(buf, "\n", &save_line); line;
	     line = strtok_r(NULL, "\n", &save_line)) {
		struct mcs_mode *m = &modes[n];

		if (n == MCS_MAX_MODES)
			ksft_exit_fail_msg("%s/modes: over %d modes\n", MCS_DIR, MCS_MAX_MODES);
		memset(m, 0, sizeof(*m));
		for (tok = strtok_r(line, " ", &save_tok); tok;
		     tok = strtok_r(NULL, " ", &save_tok)) {
			char *eq = strchr(tok, '=');

			if (eq) {
				*eq = '\0';
				mcs_mode_token(m, tok, eq + 1);
			}
		}
		if (!m->name[0])
			ksft_exit_fail_msg("%s/modes: a line without mode=\n", MCS_DIR);
		n++;
	}
	if (!n)
		ksft_exit_fail_msg("%s/modes: no mode\n", MCS_DIR);
	return n;
}

/*
 * The parameters of @m into @out (room for MCS_MAX_PARAMS); returns how
 * many.  An item that does not parse fails the selftest: a test of every
 * parameter must not pass with fewer.
 */
static inline int mcs_mode_params(const struct mcs_mode *m, struct mcs_mode_param *out)
{
	char buf[sizeof(m->params)], *item, *save = NULL;
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", m->params);
	if (!buf[0] || !strcmp(buf, "-"))
		return 0;
	for (item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		struct mcs_mode_param *p = &out[n];
		int len = 0;

		if (n == MCS_MAX_PARAMS)
			ksft_exit_fail_msg("%s/modes: %s: over %d params\n", MCS_DIR, m->name,
					   MCS_MAX_PARAMS);
		memset(p, 0, sizeof(*p));
		if (sscanf(item, "%31[a-z0-9_]:%u..%u:%u%n", p->name, &p->min, &p->max,
			   &p->value, &len) != 4 || p->min > p->max ||
		    (item[len] && sscanf(item + len, "<%31[a-z0-9_]", p->below) != 1))
			ksft_exit_fail_msg("%s/modes: %s: bad param '%s'\n", MCS_DIR, m->name,
					   item);
		n++;
	}
	return n;
}

/* The mode called @name in @modes (@n of them), or NULL. */
static inline const struct mcs_mode *mcs_mode_find(const struct mcs_mode *modes, int n,
						   const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(modes[i].name, name))
			return &modes[i];
	return NULL;
}

/* The base config, then @extra lines over it (a key may not repeat in one write). */
static inline int mcs_config(const char *extra)
{
	int ret = mcs_puts("config", MCS_BASE_CONFIG);

	if (!ret && extra)
		ret = mcs_puts("config", extra);
	if (ret)
		ksft_print_msg("config write: %s\n", strerror(-ret));
	return ret;
}

/* Killed (a timeout): stop our run, so that the next test finds it idle. */
static inline void mcs_on_signal(int sig)
{
	int fd = open(MCS_DIR "/run", O_WRONLY);
	ssize_t n;

	if (fd >= 0) {
		n = write(fd, "stop", 4);
		(void)n;
		close(fd);
	}
	_exit(KSFT_FAIL);
}

/*
 * The debugfs files are there, or fail; a run left by somebody else is
 * stopped; a signal stops ours.
 */
static inline void mcs_prepare(void)
{
	if (access(MCS_DIR "/run", W_OK))
		ksft_exit_fail_msg("%s/run: %s (memcg_stock loaded, debugfs mounted, root?)\n",
				   MCS_DIR, strerror(errno));
	signal(SIGTERM, mcs_on_signal);
	signal(SIGINT, mcs_on_signal);
	mcs_puts("run", "stop");
	if (mcs_wait_idle(MCS_RUN_TIMEOUT_S))
		ksft_exit_fail_msg("a run is in progress and does not stop\n");
}

/*
 * The result of case @name whose prerequisite is missing (@why):
 * kselftest's SKIP when the selftest runs by hand, a failure under the
 * test rig, whose guests have every prerequisite (@rig: the selftest's
 * environment has MCS_RIG=1).  @name as the case's result line names it,
 * so that a skip and a pass name the same case.
 */
static inline void mcs_result_missing(int rig, const char *name, const char *why)
{
	if (rig)
		ksft_test_result_fail("%s: %s (MCS_RIG=1: the rig's guests have it)\n", name, why);
	else
		ksft_test_result_skip("%s: %s\n", name, why);
}

/* ---- loading and unloading the module ------------------------------------------------ */

/*
 * The start of a stress selftest: TAP header, signal handling, the kernel
 * log opened (or said not to be), the base config written.  Returns the
 * /dev/kmsg fd for mcs_kmsg_clean(), or -1.
 */
static inline int mcs_selftest_start(void)
{
	int fd;

	ksft_print_header();
	mcs_prepare();
	fd = mcs_kmsg_open();
	if (fd < 0)
		ksft_print_msg("no /dev/kmsg: kernel log not checked\n");
	if (mcs_config(NULL))
		ksft_exit_fail_msg("cannot write the base config\n");
	return fd;
}

/* UML says so in /proc/cpuinfo ("vendor_id : User Mode Linux"): no NMI source. */
static inline int mcs_is_uml(void)
{
	char buf[8192];

	return mcs_path_read("/proc/cpuinfo", buf, sizeof(buf)) > 0 &&
	       strstr(buf, "User Mode Linux");
}

#define MCS_KUNIT_FILTER	"/sys/module/kunit/parameters/filter_glob"
#define MCS_MAX_DEPS		8

/* Is module @name in /proc/modules? */
static inline int mcs_module_loaded(const char *name)
{
	char buf[65536], *line, *save = NULL;
	size_t len = strlen(name);

	if (mcs_path_read("/proc/modules", buf, sizeof(buf)) < 0)
		return 0;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, name, len) && line[len] == ' ')
			return 1;
	return 0;
}

/* rmmod without waiting (O_NONBLOCK): 0 or -errno (-EAGAIN: in use). */
static inline int mcs_module_unload(const char *name)
{
	return syscall(__NR_delete_module, name, O_NONBLOCK) ? -errno : 0;
}

/* insmod @path: 0 or -errno. */
static inline int mcs_module_load_params(const char *path, const char *params)
{
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = syscall(__NR_finit_module, fd, params, 0) ? -errno : 0;
	close(fd);
	return ret;
}

static inline int mcs_module_load(const char *path)
{
	return mcs_module_load_params(path, "");
}

/* The modules that use memcg_stock (the KUnit module), by name. */
struct mcs_deps {
	char name[MCS_MAX_DEPS][64];
	int nr;
};

/* Find the modules /proc/modules lists as users of memcg_stock and unload them. */
static inline void mcs_deps_unload(struct mcs_deps *d)
{
	char buf[65536], *line, *save = NULL;
	int i;

	d->nr = 0;
	if (mcs_path_read("/proc/modules", buf, sizeof(buf)) < 0)
		return;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[64], users[512], *u, *usave = NULL;

		if (sscanf(line, "%63s %*s %*s %511s", name, users) != 2 ||
		    strcmp(name, "memcg_stock") || !strcmp(users, "-"))
			continue;
		for (u = strtok_r(users, ",", &usave); u && d->nr < MCS_MAX_DEPS;
		     u = strtok_r(NULL, ",", &usave))
			snprintf(d->name[d->nr++], sizeof(d->name[0]), "%s", u);
	}
	for (i = 0; i < d->nr; i++) {
		int r = mcs_module_unload(d->name[i]);

		ksft_print_msg("unloading %s, which uses memcg_stock: %s\n", d->name[i],
			       r ? strerror(-r) : "ok");
	}
}

/*
 * Load @d's modules again from the directory of @module_path, without
 * running their KUnit suites a second time: 0 or the last -errno.
 */
static inline int mcs_deps_reload(const struct mcs_deps *d, const char *module_path)
{
	char dir[1024], path[1700], glob[256] = "";
	int i, ret = 0, filtered;

	if (!d->nr)
		return 0;
	snprintf(dir, sizeof(dir), "%s", module_path);
	dirname(dir);
	filtered = mcs_path_read(MCS_KUNIT_FILTER, glob, sizeof(glob)) >= 0 &&
		   !mcs_path_write(MCS_KUNIT_FILTER, "mcs_reload_no_suite",
				   strlen("mcs_reload_no_suite"));
	for (i = 0; i < d->nr; i++) {
		int r;

		if (mcs_module_loaded(d->name[i]))
			continue;
		snprintf(path, sizeof(path), "%s/%s.ko", dir, d->name[i]);
		r = mcs_module_load(path);
		if (r) {
			ksft_print_msg("reload %s: %s\n", path, strerror(-r));
			ret = r;
		}
	}
	if (filtered) {
		glob[strcspn(glob, "\n")] = '\0';
		/* the default is NULL, shown as "(null)", which means every suite */
		if (!strcmp(glob, "(null)") || !glob[0])
			snprintf(glob, sizeof(glob), "*.*");
		mcs_path_write(MCS_KUNIT_FILTER, glob, strlen(glob));
	}
	return ret;
}

#endif /* MCS_STRESS_LIB_H */
