// SPDX-License-Identifier: GPL-2.0
/*
 * memcg_stock fuzz: several hostile users at once.
 *
 * NR children (MCS_FUZZ_CHILDREN, default 4) hammer the module for
 * MCS_FUZZ_SECONDS (default 60): random and boundary input to every debugfs
 * file of the module and every module parameter (both found by readdir),
 * valid small configs, runs started and stopped, short benches and
 * self-checks, reads of every file all the while.  Child 0 also unloads
 * and loads the module again now and then (MCS_FUZZ_KO names the .ko;
 * without it there is no reloading, and the TAP log says so); the others
 * cope with the files vanishing.  Where the kernel has fault injection, a
 * write runs with /proc/self/task/<tid>/fail-nth armed (its N-th fault
 * point fails) or with failslab on for this task only (task-filter); reads
 * and module loads run without faults (their vmalloc()s report failures
 * with a stack dump, which would read as a splat).
 *
 * A write may succeed or fail with a clean error: EINVAL, EBUSY, ENODEV,
 * ENOENT, ENXIO (the module is going), EFAULT (a bad buffer), EINTR,
 * EAGAIN; ENOMEM only with a fault injected; for a module parameter also
 * EPERM, EACCES, ERANGE, E2BIG.  Anything else, an operation that takes
 * longer than MCS_FUZZ_HANG_S (default 30 s), a child killed by a signal
 * or a kernel log line that no run may print fails the test.
 *
 * Then the verdict: the module is loaded (again), no run is in progress,
 * config and parameters are what they were, no memcg, objcg or charge is
 * left behind, "echo all > selftest" passes and a short stress run says
 * verdict=PASS; the rig's own checks (rmmod, splats, kmemleak, taint,
 * lockdep) follow.
 *
 * Replay: every child draws from its own stream derived from the seed
 * (MCS_FUZZ_SEED or argv[1], else the time), printed as "# seed=N".  The
 * streams replay exactly; their interleaving, and so the kernel's answers,
 * do not.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <sched.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "stress_lib.h"
#include "trace_lib.h"

#define MOD_NAME	"memcg_stock"
#define PARAM_DIR	"/sys/module/" MOD_NAME "/parameters"
#define DEBUGFS		"/sys/kernel/debug"
#define FAILSLAB	DEBUGFS "/failslab"

#define MAX_CHILDREN	16
#define MAX_FILES	24
#define MAX_KEYS	32
#define NR_ERR		140		/* errno slots; the last one: anything above */
#define NR_BAD		8		/* unexpected results kept per child */
#define PAY_MAX		((1 << 20) + 64)

enum op_kind { K_OPEN, K_READ, K_WRITE, NR_KINDS };
static const char * const kind_names[NR_KINDS] = { "open", "read", "write" };

/* The "files" beyond the debugfs files and the parameters. */
#define F_MODULE	(MAX_FILES - 1)	/* open = finit_module, write = delete_module */

struct child_shm {
	pid_t pid;
	volatile long long op_start_ms;	/* 0: between operations */
	volatile int alarm_fired;
	char op[256];
	unsigned int counts[MAX_FILES][NR_KINDS][NR_ERR];
	unsigned int fault_enomem[MAX_FILES];	/* ENOMEM with a fault injected */
	unsigned long ops, writes, reads, runs, benches, selftests, sleeps;
	unsigned long faults_armed, faults_fired, failslab_ops;
	unsigned long rmmod_ok, rmmod_busy, insmod_ok, insmod_fail, load_faults, kmalloc_loads;
	/* reload timings (child 0): how close they come to the hang bound */
	long long rmmod_max_ms, insmod_max_ms, insmod_sum_ms;
	long long worst_ms;
	char worst_op[256];
	unsigned int nr_bad;
	char bad[NR_BAD][320];
};

struct fuzz_file {
	char name[64];
	char path[256];
	int param;
};

static struct child_shm *shm;
/* set by child 0 before an rmmod: the others open nothing for a moment */
static volatile int *quiet;
static struct fuzz_file files[MAX_FILES];
static int nr_files;
static char keys[MAX_KEYS][32];
static int nr_keys;
static char saved_config[2048];
static char saved_params[MAX_FILES][64];
/* the parameter was read-only (set only at load) when found */
static int saved_param_ro[MAX_FILES];
static int nr_children = 4;
static int seconds = 60;
static int hang_s = 30;
static unsigned long long seed;
static const char *ko;
static char ko_path[1024];
static int have_fail_nth, have_failslab;
static pid_t pids[MAX_CHILDREN];
static int kmsg = -1;
static char results[MCS_RESULTS_SIZE];

/* ---- helpers ---------------------------------------------------------------------- */

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static const char *errname(int e)
{
	const char *n = e ? strerrorname_np(e) : "ok";

	return n ? n : "E?";
}

/* ---- random streams ----------------------------------------------------------------- */

static uint64_t rng;

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rnd(void)
{
	return splitmix64(&rng);
}

static unsigned int rn(unsigned int n)
{
	return n ? rnd() % n : 0;
}

static int chance(unsigned int pct)
{
	return rn(100) < pct;
}

#define PICK(a)	((a)[rn(sizeof(a) / sizeof((a)[0]))])

/* ---- what the children write -------------------------------------------------------- */

static const char * const numbers[] = {
	"0", "1", "2", "7", "8", "9", "10", "16", "63", "64", "65", "100", "101", "255",
	"256", "257", "1000", "10000", "10001", "65536", "65537", "600000", "600001",
	"1000000", "16777216", "16777217", "1000000000", "1000000001", "2147483647",
	"2147483648", "4294967295", "4294967296", "18446744073709551615",
	"18446744073709551616", "99999999999999999999999", "-1", "-0", "+8", "08", "0x8",
	"0X8", "8x", " 8", "8 ", "1e3", "", "=", "0b1", "\t8", "8\n", "00", "+0",
};

static const char * const words[] = {
	"1", "0", "all", "stop", "start", "page_counter", "stock", "task", "softirq",
	"hardirq", "contexts", "bytes", "limit", "churn", "hotplug", "custom", "objcg-atomic",
	"decoupled-", "-7.3", "pages", "mixed",
	"floor", "bytes-256", "bytes-1024", "bytes-3000", "bytes-64", "yes",
	"no", "true", "on", "off",
	"Y", "N", "ALL", "Stop", "all all", "1 1", "stop\n", "all\n",
};

static const char * const cases[] = {
	"task", "softirq", "hardirq", "contexts", "bytes", "limit", "churn", "hotplug",
};

static const char * const bench_keys[] = {
	"mode", "clients", "workload", "hardirq", "shared", "duration_ms", "memcgs", "nmi",
};

static const char * const junk_keys[] = {
	"MEMCGS", "bogus", "memcgs ", " memcgs", "", "mode ", "duration-ms", "k\x80y",
	"memcgs=memcgs", "a", "_", "0",
};

/*
 * The modes, from debugfs "modes" (main(), before the children fork):
 * config takes modes[], the bench also the controls (bench_modes[]); the
 * bench parameters of their designs, with their bounds (dparams[]).
 */
static const char *modes[MCS_MAX_MODES], *bench_modes[MCS_MAX_MODES];
static unsigned int nr_modes, nr_bench_modes;
static struct mcs_mode mode_table[MCS_MAX_MODES];
static struct {
	const char *mode;
	struct mcs_mode_param p;
} dparams[MCS_MAX_MODES * MCS_MAX_PARAMS];
static unsigned int nr_dparams;

static void read_modes(void)
{
	int i, j, n = mcs_modes(mode_table);

	for (i = 0; i < n; i++) {
		struct mcs_mode_param ps[MCS_MAX_PARAMS];
		int np = mcs_mode_params(&mode_table[i], ps);

		bench_modes[nr_bench_modes++] = mode_table[i].name;
		if (!mode_table[i].control)
			modes[nr_modes++] = mode_table[i].name;
		for (j = 0; j < np; j++) {
			dparams[nr_dparams].mode = mode_table[i].name;
			dparams[nr_dparams++].p = ps[j];
		}
	}
	if (!nr_modes)
		ksft_exit_fail_msg("%s/modes: no mode that config takes\n", MCS_DIR);
}

/* a word: now and then a mode's name (every mode, the controls too) */
static const char *pick_word(void)
{
	return chance(30) ? bench_modes[rn(nr_bench_modes)] : PICK(words);
}

static const char * const workloads[] = {
	"pages", "bytes", "mixed", "floor", "bytes-256", "bytes-1024", "bytes-3000", "drain",
	"cross-pages", "cross-bytes", "limit-nowait", "limit-kernel", "replay",
};

static char pay[PAY_MAX];
static size_t pay_len;

static void pay_reset(void)
{
	pay_len = 0;
}

static void pay_add(const void *p, size_t n)
{
	if (pay_len + n > PAY_MAX)
		n = PAY_MAX - pay_len;
	memcpy(pay + pay_len, p, n);
	pay_len += n;
}

static void pay_str(const char *s)
{
	pay_add(s, strlen(s));
}

static void pay_fmt(const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		pay_add(tmp, n < (int)sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

static const char *any_key(void)
{
	switch (rn(4)) {
	case 0:
		return PICK(bench_keys);
	case 1:
		return PICK(junk_keys);
	default:
		return nr_keys ? keys[rn(nr_keys)] : "memcgs";
	}
}

static void pay_token(void)
{
	pay_str(any_key());
	pay_str("=");
	pay_str(chance(75) ? PICK(numbers) : pick_word());
}

/* A small config that a run finishes fast with: duration_ms <= 200, memcgs <= 8. */
static void pay_valid_config(void)
{
	static const char * const small[] = {
		"duration_ms=%u", "memcgs=%u", "depth=%u", "threads=%u", "page_pct=%u",
		"pages_max=%u", "bytes_max=%u", "limit=%u", "softirq=%u", "drain_ms=%u",
		"churn=%u", "hotplug=%u", "hardirq_us=%u", "ops=%u", "nmi_us=%u",
	};
	unsigned int i, n = 1 + rn(5), used = 0;

	for (i = 0; i < n; i++) {
		unsigned int k = rn(ARRAY_SIZE(small) + 1);

		if (k == ARRAY_SIZE(small)) {
			pay_fmt("mode=%s", modes[rn(nr_modes)]);
		} else {
			unsigned int v;

			if (used & (1u << k) && !chance(10))
				continue;	/* a repeated key now and then */
			used |= 1u << k;
			switch (k) {
			case 0:
				v = 10 + rn(191);
				break;
			case 1:
				v = 1 + rn(8);
				break;
			case 2:
				v = 1 + rn(3);
				break;
			case 3:
				v = 1 + rn(2);
				break;
			case 4:
				v = rn(101);
				break;
			case 5:
				v = 1 + rn(64);
				break;
			case 6:
				v = 8 + rn(4096);
				break;
			case 7:
				v = chance(50) ? 0 : 1 + rn(512);
				break;
			case 8:
			case 10:
			case 11:
				v = rn(2);
				break;
			case 9:
				v = chance(30) ? 0 : 1 + rn(50);
				break;
			case 12:
				v = chance(30) ? 0 : 100 + rn(900);
				break;
			case 14:
				/* down to the densest NMI load the key accepts */
				v = chance(30) ? 0 : 10 + rn(490);
				break;
			default:
				v = chance(70) ? 0 : 1 + rn(5000);
				break;
			}
			pay_fmt(small[k], v);
		}
		if (i + 1 < n || chance(70))
			pay_str("\n");
	}
	if (!pay_len)
		pay_str("duration_ms=100\n");
}

/*
 * A design's bench parameter with its mode: mostly inside its published
 * bounds (a pair that crosses another's is refused, as is a mode given
 * twice in the line), now and then just outside them.
 */
static void pay_dparam(void)
{
	const struct mcs_mode_param *p;
	unsigned int i, v;

	if (!nr_dparams) {
		pay_fmt("duration_ms=%u", 1 + rn(20));
		return;
	}
	i = rn(nr_dparams);
	p = &dparams[i].p;
	if (chance(80))
		v = p->min + rn(p->max - p->min < 1000000 ? p->max - p->min + 1 : 1000000);
	else
		v = chance(50) || !p->min ? p->max + 1 : p->min - 1;
	/* with a short run of its own (a second duration_ms= is refused) */
	pay_fmt("mode=%s %s=%u duration_ms=%u", dparams[i].mode, p->name, v, 1 + rn(20));
}

static void pay_valid_bench(void)
{
	unsigned int i, n = rn(7);
	int first = 1;

	for (i = 0; i < n; i++) {
		if (!first)
			pay_str(" ");
		first = 0;
		switch (rn(8)) {
		case 0:
			pay_fmt("mode=%s", bench_modes[rn(nr_bench_modes)]);
			break;
		case 7:
			pay_dparam();
			break;
		case 1:
			pay_fmt("clients=%u", 1 + rn(8));
			break;
		case 2:
			pay_fmt("workload=%s", PICK(workloads));
			break;
		case 3:
			pay_fmt("hardirq=%u", rn(2));
			break;
		case 4:
			pay_fmt("shared=%u", rn(2));
			break;
		case 5:
			pay_fmt("batch=%u", 1 + rn(64));
			break;
		default:
			pay_fmt("duration_ms=%u", 1 + rn(20));
			break;
		}
	}
	/* an empty line is a measurement of the default 200 ms: keep it short */
	if (first)
		pay_fmt("duration_ms=%u", 1 + rn(20));
	if (chance(60))
		pay_str("\n");
}

static void pay_valid_run(void)
{
	switch (rn(6)) {
	case 0:
		pay_str("1");
		break;
	case 1:
		pay_str("all");
		break;
	case 2:
		pay_str("stop");
		break;
	case 3:
		pay_str("0");
		break;
	default:
		pay_str(PICK(cases));
		break;
	}
	if (chance(60))
		pay_str("\n");
}

/*
 * The shipped trace (trace_lib.h) for "trace_load": whole now and then,
 * else with a few bytes changed (the header, the memcg table, or
 * anywhere), cut short, or with bytes added.
 */
static void pay_trace(void)
{
	size_t len = mcs_trace_size(), span, i, n;
	unsigned int what = rn(5);

	pay_add(mcs_shipped_trace, len);
	if (what == 0)
		return;
	if (what == 3) {
		pay_len = rn(len);
		return;
	}
	if (what == 4) {
		pay_add("\0\1\2\3", 1 + rn(4));
		return;
	}
	/* 1: the header and the memcg table, 2: anywhere */
	span = len;
	if (what == 1)
		span = sizeof(struct mcs_trace_header) + 8 * sizeof(struct mcs_trace_memcg);
	n = 1 + rn(4);
	for (i = 0; i < n; i++)
		pay[rn(span < len ? span : len)] = (char)rnd();
}

/* the kernel's pairs that a kernel_cost write runs */
static const char * const kc_pairs[] = { "pc", "obj", "skmem" };

static void pay_valid_for(const struct fuzz_file *f)
{
	if (!strcmp(f->name, "config"))
		pay_valid_config();
	else if (!strcmp(f->name, "bench"))
		pay_valid_bench();
	else if (!strcmp(f->name, "run"))
		pay_valid_run();
	else if (!strcmp(f->name, "selftest"))
		pay_str(chance(50) ? "all" : chance(50) ? "stock\n" : "page_counter");
	else if (!strcmp(f->name, "trace_load"))
		pay_trace();
	else if (!strcmp(f->name, "kernel_cost"))
		pay_fmt("pair=%s loops=%u", PICK(kc_pairs), 1 + rn(2000));
	else if (f->param)
		pay_fmt("%u%s", rn(6), chance(50) ? "\n" : "");
	else
		pay_token();
}

/* Hostile input for @f: random, boundary, malformed, huge, empty. */
static void pay_hostile(const struct fuzz_file *f, char *desc, size_t dsize)
{
	static const size_t huge[] = {
		31, 32, 33, 63, 64, 65, 255, 256, 257, 1023, 1024, 1025, 4095, 4096, 4097,
		65536, 1 << 20,
	};
	unsigned int i, n, what = rn(15);

	pay_reset();
	switch (what) {
	case 0:
		n = rn(300);
		for (i = 0; i < n; i++)
			pay[pay_len++] = rnd();
		snprintf(desc, dsize, "%u random bytes", n);
		return;
	case 1:
		snprintf(desc, dsize, "empty write");
		return;
	case 2: {
		size_t len = PICK(huge);
		char fill = "a 0\n=1\xff"[rn(7)];

		if (chance(50)) {
			while (pay_len < len)
				pay_token(), pay_str(chance(50) ? "\n" : " ");
			pay_len = len;
		} else {
			memset(pay, fill, len);
			pay_len = len;
		}
		snprintf(desc, dsize, "huge write of %zu bytes", len);
		return;
	}
	case 3:
		pay_valid_for(f);
		pay_add("\0", 1);
		if (chance(50))
			pay_valid_for(f);
		else
			pay_token();
		snprintf(desc, dsize, "NUL inside");
		break;
	case 4:
		pay_str(any_key());
		pay_str("=");
		pay_str(PICK(numbers));
		if (chance(50))
			pay_str("\n");
		snprintf(desc, dsize, "boundary number");
		break;
	case 5: {
		size_t start;

		pay_token();
		start = 0;
		pay_str("\n");
		pay_add(pay + start, pay_len - 1);
		pay_str("\n");
		snprintf(desc, dsize, "repeated key");
		break;
	}
	case 6: {
		static const char * const seps[] = { "\n", " ", "\r\n", "\t", "  ", "\n\n", ";" };

		n = 2 + rn(5);
		for (i = 0; i < n; i++) {
			if (chance(50))
				pay_valid_for(f);
			else
				pay_token();
			if (i + 1 < n)
				pay_str(PICK(seps));
		}
		snprintf(desc, dsize, "several lines");
		break;
	}
	case 7:
	case 8: {
		pay_valid_for(f);
		n = 1 + rn(3);
		for (i = 0; i < n && pay_len; i++) {
			size_t at = rn(pay_len);

			switch (rn(4)) {
			case 0:
				pay[at] ^= 1u << rn(8);
				break;
			case 1:
				pay_len = at;
				break;
			case 2:
				pay[at] = PICK(numbers)[0] ?: ' ';
				break;
			default:
				if (pay_len < PAY_MAX) {
					memmove(pay + at + 1, pay + at, pay_len - at);
					pay[at] = "=\x20\n\t0\xa0"[rn(6)];
					pay_len++;
				}
				break;
			}
		}
		snprintf(desc, dsize, "mutated valid input");
		break;
	}
	case 9:
		pay_str(PICK(numbers));
		snprintf(desc, dsize, "bare number");
		break;
	case 10:
		pay_str(pick_word());
		snprintf(desc, dsize, "word");
		break;
	case 11: {
		static const char * const blanks[] = {
			"\n", " ", "\n\n", "\x20\n", "\t", "\r\n", "\x20\t\n\x20"
		};

		pay_str(PICK(blanks));
		snprintf(desc, dsize, "blanks only");
		break;
	}
	case 12:
		pay_valid_for(f);
		if (pay_len && pay[pay_len - 1] == '\n')
			pay_len--;
		pay[pay_len++] = 0x80 + rn(0x80);
		if (chance(50))
			pay_str("\n");
		snprintf(desc, dsize, "high byte");
		break;
	case 13:
		pay_str(any_key());
		pay_str("=");
		n = 50 + rn(40);
		for (i = 0; i < n; i++)
			pay[pay_len++] = chance(50) ? '0' : ' ';
		pay_str("8\n");
		snprintf(desc, dsize, "long line");
		break;
	default:
		pay_valid_for(f);
		snprintf(desc, dsize, "valid input");
		break;
	}
}

/* ---- the child's bookkeeping --------------------------------------------------------- */

static struct child_shm *me;
static int faultfd = -1, failfd = -1;

static void op_begin(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(me->op, sizeof(me->op), fmt, ap);
	va_end(ap);
	__sync_synchronize();
	me->op_start_ms = now_ms();
	alarm(hang_s + 5);
}

static void op_end(void)
{
	long long d = now_ms() - me->op_start_ms;

	alarm(0);
	if (d > me->worst_ms) {
		me->worst_ms = d;
		memcpy(me->worst_op, me->op, sizeof(me->worst_op));
	}
	me->op_start_ms = 0;
	me->ops++;
}

/* The operation took longer than the bound and an alarm got through: a hang. */
static void on_alarm(int sig)
{
	me->alarm_fired = 1;
	_exit(3);
}

static void escape(const void *buf, size_t len, char *out, size_t size)
{
	const unsigned char *p = buf;
	size_t i, o = 0;

	for (i = 0; i < len && o + 6 < size; i++) {
		if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\\')
			out[o++] = p[i];
		else
			o += snprintf(out + o, size - o, "\\x%02x", p[i]);
	}
	if (i < len && o + 4 < size)
		o += snprintf(out + o, size - o, "...");
	out[o] = '\0';
}

static void record(int fi, enum op_kind k, int err, int fault_fired, int ok,
		   const void *buf, size_t len, const char *desc)
{
	int slot = err < NR_ERR - 1 ? err : NR_ERR - 1;
	char esc[128];

	me->counts[fi][k][slot]++;
	if (err == ENOMEM && fault_fired)
		me->fault_enomem[fi]++;
	if (ok)
		return;
	escape(buf, len < 64 ? len : 64, esc, sizeof(esc));
	if (me->nr_bad < NR_BAD)
		snprintf(me->bad[me->nr_bad], sizeof(me->bad[0]),
			 "%s %s: %s%s (%s, %zu bytes '%s')",
			 fi == F_MODULE ? MOD_NAME : files[fi].name,
			 fi == F_MODULE ? (k == K_OPEN ? "insmod" : "rmmod") : kind_names[k],
			 errname(err), fault_fired ? " with a fault injected" : "",
			 desc ?: "", len, esc);
	me->nr_bad++;
}

/* Is @err a clean answer to operation @k on @f? */
static int err_ok(const struct fuzz_file *f, enum op_kind k, int err, int fault_fired)
{
	switch (err) {
	case 0:
	case EINVAL:
	case EBUSY:
	case ENODEV:
	case ENOENT:
	case ENXIO:		/* open while the module is going */
	case EFAULT:
	case EINTR:
	case EAGAIN:
		return 1;
	case ENOMEM:
		return fault_fired;
	case EOPNOTSUPP:	/* a kernel pair the module cannot call here */
		return !strcmp(f->name, "kernel_cost");
	case EPERM:
	case EACCES:
	case ERANGE:		/* the kernel's kstrtouint for a parameter */
	case E2BIG:		/* sysfs: a write above a page */
		return f->param;
	default:
		return 0;
	}
}

/* ---- fault injection ---------------------------------------------------------------- */

static int fault_pct = 15, failslab_pct = 5;

/* Arm a fault for the next system call: 0 (none), or the N of fail-nth. */
static int fault_arm(int *slab)
{
	char b[16];
	int n;

	*slab = 0;
	if (failfd >= 0 && chance(failslab_pct)) {
		if (pwrite(failfd, "1", 1, 0) == 1) {
			*slab = 1;
			me->failslab_ops++;
		}
	}
	if (faultfd < 0 || !chance(fault_pct))
		return 0;
	n = 1 + (chance(70) ? rn(8) : rn(64));
	snprintf(b, sizeof(b), "%d", n);
	if (pwrite(faultfd, b, strlen(b), 0) < 0)
		return 0;
	me->faults_armed++;
	return n;
}

/* Disarm; 1 if the fault fired (fail-nth read back 0) or failslab was on. */
static int fault_disarm(int armed, int slab)
{
	char b[16] = "";
	int fired = 0;

	if (armed) {
		if (pread(faultfd, b, sizeof(b) - 1, 0) > 0 && atoi(b) == 0)
			fired = 1;
		if (pwrite(faultfd, "0", 1, 0) != 1)
			fired = 1;
		me->faults_fired += fired;
	}
	if (slab) {
		if (pwrite(failfd, "0", 1, 0) != 1)
			_exit(5);	/* never go on failing allocations */
		fired = 1;
	}
	return fired;
}

/*
 * Arm fail-nth for a module load: the N-th fault point of the whole
 * finit_module() fails (a load has a few hundred; past the last one the
 * load succeeds with the fault still armed, and fault_disarm() says so).
 */
static int load_fault_arm(void)
{
	char b[16];
	int n = 1 + rn(400);

	if (faultfd < 0)
		return 0;
	snprintf(b, sizeof(b), "%d", n);
	if (pwrite(faultfd, b, strlen(b), 0) < 0)
		return 0;
	me->faults_armed++;
	me->load_faults++;
	return n;
}

/* ---- the operations ----------------------------------------------------------------- */

static char *guard;		/* one read-write page followed by PROT_NONE */
static long page_size;

static void do_write_buf(int fi, const void *buf, size_t len, const char *desc)
{
	const struct fuzz_file *f = &files[fi];
	int fd, err, armed, slab, fired;
	ssize_t n;

	op_begin("write %s: %s (%zu bytes)", f->name, desc, len);
	fd = open(f->path, O_WRONLY | (chance(20) ? O_NONBLOCK : 0) | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		record(fi, K_OPEN, err, 0, err_ok(f, K_OPEN, err, 0), buf, len, desc);
		op_end();
		return;
	}
	me->counts[fi][K_OPEN][0]++;
	armed = fault_arm(&slab);
	n = write(fd, buf, len);
	err = n < 0 ? errno : 0;
	fired = fault_disarm(armed, slab);
	close(fd);
	me->writes++;
	if (n >= 0 && (size_t)n != len && !(f->param && n > 0)) {
		/*
		 * A short write: debugfs handlers take all or nothing (sysfs cuts
		 * a write to a parameter at a page: that is the VFS's doing).
		 */
		record(fi, K_WRITE, NR_ERR - 1, fired, 0, buf, len, "short write");
	} else {
		record(fi, K_WRITE, err, fired, err_ok(f, K_WRITE, err, fired), buf, len, desc);
	}
	op_end();
}

static void do_write(int fi, const char *desc)
{
	do_write_buf(fi, pay, pay_len, desc);
}

/* A buffer the kernel cannot copy: NULL, a low address, or running into a guard page. */
static void do_write_badptr(int fi)
{
	const struct fuzz_file *f = &files[fi];
	const char *p;
	size_t len;
	char desc[64];
	int fd, err;
	ssize_t n;

	switch (rn(3)) {
	case 0:
		p = NULL;
		len = 1 + rn(16);
		break;
	case 1:
		p = (const char *)16;
		len = 1 + rn(16);
		break;
	default:
		if (!guard)
			return;
		len = 1 + rn(16);
		p = guard + page_size - rn(len);	/* ends in the PROT_NONE page */
		memcpy((char *)guard + page_size - 8, "all\n1\nst", 8);
		break;
	}
	snprintf(desc, sizeof(desc), "bad buffer %p", (const void *)p);
	op_begin("write %s: %s (%zu bytes)", f->name, desc, len);
	fd = open(f->path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		record(fi, K_OPEN, err, 0, err_ok(f, K_OPEN, err, 0), "", 0, desc);
		op_end();
		return;
	}
	me->counts[fi][K_OPEN][0]++;
	n = write(fd, p, len);
	err = n < 0 ? errno : 0;
	close(fd);
	me->writes++;
	record(fi, K_WRITE, err, 0, err_ok(f, K_WRITE, err, 0), "", 0, desc);
	op_end();
}

static void do_read(int fi)
{
	static char rbuf[1 << 16];
	const struct fuzz_file *f = &files[fi];
	int fd, err = 0, how = rn(6);
	ssize_t n = 0;
	size_t total = 0;

	op_begin("read %s (mode %d)", f->name, how);
	fd = open(f->path, (chance(10) ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		record(fi, K_OPEN, err, 0, err_ok(f, K_OPEN, err, 0), "", 0, "open for reading");
		op_end();
		return;
	}
	me->counts[fi][K_OPEN][0]++;
	/*
	 * No fault during a read: seq_file grows its buffer with kvmalloc(),
	 * whose vmalloc fallback reports a failure with a stack dump (warn_alloc),
	 * which the rig rightly takes for a splat.
	 */
	switch (how) {
	case 0:		/* byte by byte */
		while (total < 8192 && (n = read(fd, rbuf, 1)) > 0)
			total += n;
		break;
	case 1:		/* far beyond the end */
		n = pread(fd, rbuf, 4096, (off_t)1 << (rn(40) + 1));
		break;
	case 2:		/* into a bad buffer */
		n = read(fd, chance(50) ? NULL :
			 (void *)(guard ? guard + page_size - 3 : NULL), 64);
		break;
	case 3:		/* odd sizes */
		while (total < sizeof(rbuf) && (n = read(fd, rbuf, 1 + rn(300))) > 0)
			total += n;
		break;
	default:	/* the whole file */
		while (total < sizeof(rbuf) && (n = read(fd, rbuf, sizeof(rbuf) - total)) > 0)
			total += n;
		break;
	}
	err = n < 0 ? errno : 0;
	close(fd);
	me->reads++;
	record(fi, K_READ, err, 0, err_ok(f, K_READ, err, 0), "", 0, "read");
	op_end();
}

static int file_index(const char *name)
{
	int i;

	for (i = 0; i < nr_files; i++)
		if (!files[i].param && !strcmp(files[i].name, name))
			return i;
	return -1;
}

static void do_valid(const char *name)
{
	int fi = file_index(name);

	if (fi < 0)
		return;
	pay_reset();
	pay_valid_for(&files[fi]);
	do_write(fi, "valid input");
}

/* Child 0 only: unload (may be refused: a file is open, a dependent), load again. */
static void do_reload(void)
{
	int r, tries, fired, armed;
	char params[96];
	long long t0;

	/*
	 * Every open file holds a module reference and makes rmmod fail with
	 * EAGAIN: ask the others to open nothing while in-flight operations end.
	 */
	*quiet = 1;
	mcs_msleep(150);
	op_begin("rmmod " MOD_NAME);
	t0 = now_ms();
	for (tries = 0; tries < 5; tries++) {
		r = mcs_module_unload(MOD_NAME);
		if (r != -EAGAIN)
			break;
		mcs_msleep(50);
	}
	op_end();
	*quiet = 0;
	if (now_ms() - t0 > me->rmmod_max_ms)
		me->rmmod_max_ms = now_ms() - t0;
	if (r) {
		me->rmmod_busy++;
		record(F_MODULE, K_WRITE, -r, 0, r == -EAGAIN || r == -EBUSY || r == -EINTR,
		       "", 0, "delete_module O_NONBLOCK");
		return;
	}
	me->rmmod_ok++;
	me->counts[F_MODULE][K_WRITE][0]++;
	mcs_msleep(rn(300));
	/* now and then a charge batch out of range first: the load refuses it */
	if (chance(10)) {
		snprintf(params, sizeof(params), "charge_batch=%d", chance(50) ? 0 : 65 + rn(1000));
		r = mcs_module_load_params(ko_path, params);
		record(F_MODULE, K_OPEN, -r, 0, r == -EINVAL, params, strlen(params),
		       "finit_module of a batch out of range");
		if (!r)
			return;	/* loaded after all: counted as bad, unloaded next round */
		me->insmod_fail++;
	}
	/*
	 * Both allocation modes, now and then churn that fails on purpose, and
	 * the default charge batch or a smaller one.
	 */
	snprintf(params, sizeof(params), "slab_kmalloc=%d stress_fail_nth=%d charge_batch=%d",
		 chance(50), chance(30) ? 2 + rn(6) : 0, chance(50) ? 64 : 1 + rn(64));
	for (tries = 0; tries < 100; tries++) {
		/*
		 * Half the first tries fail one allocation of the whole load
		 * (the loader's, the trace events', our init's): the load
		 * must fail cleanly or succeed, and the next one must work.
		 */
		armed = tries < 3 && chance(50) ? load_fault_arm() : 0;
		op_begin("insmod %s %s (try %d, fail-nth %d)", ko_path, params, tries, armed);
		t0 = now_ms();
		r = mcs_module_load_params(ko_path, params);
		fired = fault_disarm(armed, 0);
		op_end();
		t0 = now_ms() - t0;
		if (t0 > me->insmod_max_ms)
			me->insmod_max_ms = t0;
		if (!r) {
			me->insmod_sum_ms += t0;
			me->insmod_ok++;
			me->kmalloc_loads += !strncmp(params, "slab_kmalloc=1", 14);
			me->counts[F_MODULE][K_OPEN][0]++;
			return;
		}
		me->insmod_fail++;
		record(F_MODULE, K_OPEN, -r, fired,
		       (r == -ENOMEM && fired) || r == -EINTR || r == -EBUSY || r == -EAGAIN,
		       params, strlen(params), "finit_module");
		mcs_msleep(100);
	}
}

static void child_main(int idx)
{
	long long end = now_ms() + seconds * 1000LL;
	uint64_t s = seed ^ (0x5851f42d4c957f2dULL * (idx + 1));
	long long next_reload;
	char desc[96], path[96];
	struct sigaction sa = { .sa_handler = on_alarm };

	me = &shm[idx];
	me->pid = getpid();
	rng = splitmix64(&s);
	sigaction(SIGALRM, &sa, NULL);	/* no SA_RESTART: an alarm interrupts */
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	if (have_fail_nth) {
		snprintf(path, sizeof(path), "/proc/self/task/%ld/fail-nth",
			 (long)syscall(SYS_gettid));
		faultfd = open(path, O_RDWR | O_CLOEXEC);
	}
	if (have_failslab)
		failfd = open("/proc/self/make-it-fail", O_RDWR | O_CLOEXEC);
	next_reload = now_ms() + 1000 + rn(2000);

	while (now_ms() < end) {
		unsigned int r = rn(100);
		int fi = rn(nr_files), q;

		for (q = 0; *quiet && idx && q < 100; q++)
			mcs_msleep(10);

		if (idx == 0 && ko && now_ms() >= next_reload) {
			do_reload();
			next_reload = now_ms() + 1500 + rn(3000);
			continue;
		}
		if (r < 28) {
			pay_hostile(&files[fi], desc, sizeof(desc));
			do_write(fi, desc);
		} else if (r < 38) {
			do_valid("config");
		} else if (r < 48) {
			/* mostly a small config first, then a run command */
			if (chance(70))
				do_valid("config");
			do_valid("run");
			me->runs++;
		} else if (r < 52) {
			do_valid("bench");
			me->benches++;
		} else if (r < 54) {
			do_valid("selftest");
			me->selftests++;
		} else if (r < 55) {
			do_valid("trace_load");
		} else if (r < 56) {
			do_valid("kernel_cost");
		} else if (r < 57) {
			do_write_badptr(fi);
		} else if (r < 87) {
			do_read(fi);
		} else if (r < 90) {
			int i;

			for (i = 0; i < nr_files; i++) {
				if (!files[i].param)
					continue;
				pay_reset();
				pay_valid_for(&files[i]);
				do_write(i, "valid parameter");
				do_read(i);
			}
		} else if (r < 93) {
			static const char * const out_files[] = {
				"run", "stocks", "memcgs", "results"
			};
			int j = file_index(PICK(out_files));

			if (j >= 0) {
				do_valid("run");
				do_read(j);
				do_read(j);
			}
		} else if (r < 96) {
			do_valid("run");	/* "stop" now and then */
			pay_reset();
			pay_str("stop\n");
			if (file_index("run") >= 0)
				do_write(file_index("run"), "stop");
		} else {
			me->sleeps++;
			if (chance(50))
				sched_yield();
			else
				mcs_msleep(rn(50));
		}
	}
	_exit(0);
}

/* ---- the parent: discovery, saved state, fault knobs ---------------------------------- */

static void add_file(const char *dir, const char *name, int param)
{
	struct fuzz_file *f;

	if (nr_files >= F_MODULE)
		return;
	f = &files[nr_files++];
	snprintf(f->name, sizeof(f->name), "%s%.50s", param ? "param:" : "", name);
	snprintf(f->path, sizeof(f->path), "%.150s/%.60s", dir, name);
	f->param = param;
}

static int discover(const char *dir, int param)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		add_file(dir, de->d_name, param);
		n++;
	}
	closedir(d);
	return n;
}

static void discover_keys(void)
{
	char *line, *save = NULL, copy[sizeof(saved_config)];

	snprintf(copy, sizeof(copy), "%s", saved_config);
	for (line = strtok_r(copy, "\n", &save); line && nr_keys < MAX_KEYS;
	     line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '=');

		if (eq && eq - line < (int)sizeof(keys[0])) {
			*eq = '\0';
			snprintf(keys[nr_keys++], sizeof(keys[0]), "%s", line);
		}
	}
}

/* fault-injection knobs we change, with the values to restore */
struct knob {
	char path[256];
	char old[64];
};

static struct knob knobs[64];
static int nr_knobs;

static int knob_set(const char *path, const char *val)
{
	struct knob *k;

	if (nr_knobs >= (int)ARRAY_SIZE(knobs))
		return -ENOSPC;
	k = &knobs[nr_knobs];
	if (mcs_path_read(path, k->old, sizeof(k->old)) <= 0)
		return -ENOENT;
	k->old[strcspn(k->old, "\n")] = '\0';
	snprintf(k->path, sizeof(k->path), "%s", path);
	nr_knobs++;
	return mcs_path_write(path, val, strlen(val));
}

/*
 * panic_on_warn stays 0 until the verdict's reloads are over: a load that a
 * fault hit can leave 6.12's trace events of the module half set up, and
 * the kernel WARNs about them at a later unload (event_file_put()).
 */
static char panic_old[16];

static void panic_knob_clear(void)
{
	mcs_panic_on_warn_off(panic_old, sizeof(panic_old));
}

static void panic_knob_restore(void)
{
	mcs_panic_on_warn_restore(panic_old);
}

static void knobs_restore(void)
{
	int i;

	/* probability first (it was set last): nothing fails while the rest goes back */
	for (i = nr_knobs - 1; i >= 0; i--)
		if (strstr(knobs[i].path, "/probability"))
			mcs_path_write(knobs[i].path, "0", 1);
	for (i = nr_knobs - 1; i >= 0; i--)
		mcs_path_write(knobs[i].path, knobs[i].old, strlen(knobs[i].old));
	nr_knobs = 0;
}

/*
 * fail-nth counts only the fault points that get as far as should_fail():
 * failslab skips sleeping allocations unless ignore-gfp-wait is off.  Every
 * fault type is made quiet (verbose 0: a stack dump reads as a splat).
 * failslab's probability hits only tasks with make-it-fail set (task-filter),
 * i.e. one of our children during one write.
 */
static void faults_setup(void)
{
	char path[300];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/self/task/%ld/fail-nth", (long)syscall(SYS_gettid));
	have_fail_nth = !access(path, W_OK);
	d = opendir(DEBUGFS);
	while (d && (de = readdir(d))) {
		if (strncmp(de->d_name, "fail", 4))
			continue;
		snprintf(path, sizeof(path), "%s/%s/verbose", DEBUGFS, de->d_name);
		if (!access(path, W_OK))
			knob_set(path, "0");
	}
	if (d)
		closedir(d);
	if (!access(FAILSLAB "/ignore-gfp-wait", W_OK))
		knob_set(FAILSLAB "/ignore-gfp-wait", "N");
	if (!access(FAILSLAB "/probability", W_OK) && !access("/proc/self/make-it-fail", W_OK)) {
		int ret = 0;

		ret |= knob_set(FAILSLAB "/cache-filter", "N");
		ret |= knob_set(FAILSLAB "/task-filter", "Y");
		ret |= knob_set(FAILSLAB "/interval", "1");
		ret |= knob_set(FAILSLAB "/times", "-1");
		ret |= knob_set(FAILSLAB "/space", "0");
		ret |= knob_set(FAILSLAB "/probability", "20");
		have_failslab = !ret;
	}
	/*
	 * Loads with a fault injected: 6.12 WARNs once a boot on an -ENOMEM
	 * while a module's trace events are set up (event_define_fields()),
	 * the kernel's own report, which the log scans skip; it must not
	 * panic a machine booted with panic_on_warn.  Nor must the kernel's
	 * race of an open against the fuzz's own rmmod, which WARNs too
	 * (mcs_kmsg_alloc_report()).  Any other WARN still fails the run
	 * through the scans.
	 */
	if (ko)
		panic_knob_clear();
	ksft_print_msg("fault injection: fail-nth %s, failslab %s\n",
		       have_fail_nth ? "yes" : "no",
		       have_failslab ? "yes (task-filter, 20% during 5% of our writes)" : "no");
}

static struct mcs_deps deps;

/* ---- the parent: watch, reap, judge ------------------------------------------------------ */

static volatile sig_atomic_t stopping;

static void kill_children(void)
{
	int i;

	for (i = 0; i < nr_children; i++)
		if (pids[i] > 0)
			kill(pids[i], SIGKILL);
}

static void on_term(int sig)
{
	kill_children();
	knobs_restore();
	panic_knob_restore();
	mcs_on_signal(sig);
}

static void print_stack(pid_t pid)
{
	char path[64], buf[4096];

	snprintf(path, sizeof(path), "/proc/%d/wchan", pid);
	if (mcs_path_read(path, buf, sizeof(buf)) > 0)
		ksft_print_msg("  child %d waits in %s\n", pid, buf);
	snprintf(path, sizeof(path), "/proc/%d/stack", pid);
	if (mcs_path_read(path, buf, sizeof(buf)) > 0)
		mcs_print_text("  stack", buf);
}

struct fuzz_outcome {
	int crashed, hung, unexpected, log_bad, alive;
};

/* Watch the children until they end (or hang); scan the kernel log meanwhile. */
static void watch(struct fuzz_outcome *o)
{
	long long end = now_ms() + seconds * 1000LL + (hang_s + 15) * 1000LL;
	int alive = nr_children, i, status, reported[MAX_CHILDREN] = { 0 };

	while (alive && now_ms() < end) {
		pid_t p = waitpid(-1, &status, WNOHANG);

		o->log_bad += mcs_kmsg_scan(kmsg, NULL, NULL);
		if (p > 0) {
			for (i = 0; i < nr_children; i++)
				if (pids[i] == p)
					break;
			if (i == nr_children)
				continue;
			pids[i] = 0;
			alive--;
			if (WIFSIGNALED(status)) {
				ksft_print_msg("child %d killed by signal %d (%s) during: %s\n", i,
					       WTERMSIG(status), strsignal(WTERMSIG(status)),
					       shm[i].op);
				o->crashed++;
			} else if (WEXITSTATUS(status) == 3) {
				ksft_print_msg("child %d: HANG: no answer within %d s to: %s\n", i,
					       hang_s + 5, shm[i].op);
				o->hung++;
			} else if (WEXITSTATUS(status)) {
				ksft_print_msg("child %d exited %d during: %s\n", i,
					       WEXITSTATUS(status), shm[i].op);
				o->crashed++;
			}
			continue;
		}
		for (i = 0; i < nr_children; i++) {
			long long t0 = shm[i].op_start_ms;

			if (pids[i] > 0 && t0 && !reported[i] && now_ms() - t0 > hang_s * 1000LL) {
				ksft_print_msg("child %d: HANG: %lld ms in: %s\n", i, now_ms() - t0,
					       shm[i].op);
				print_stack(pids[i]);
				reported[i] = 1;
				o->hung++;
			}
		}
		mcs_msleep(100);
	}
	o->alive = alive;
	if (alive) {
		kill_children();
		for (i = 0; i < 50 && alive; i++) {
			while (waitpid(-1, &status, WNOHANG) > 0)
				alive--;
			mcs_msleep(100);
		}
		o->alive = alive;
		if (alive)
			ksft_print_msg("%d child(ren) still there after SIGKILL: stuck in the kernel\n",
				       alive);
	}
	o->log_bad += mcs_kmsg_scan(kmsg, NULL, NULL);
}

static void report(struct fuzz_outcome *o)
{
	unsigned long tot[16] = { 0 };
	int fi, k, e, c;

	for (c = 0; c < nr_children; c++) {
		struct child_shm *s = &shm[c];

		tot[0] += s->ops; tot[1] += s->writes; tot[2] += s->reads; tot[3] += s->runs;
		tot[4] += s->benches; tot[5] += s->selftests; tot[6] += s->faults_armed;
		tot[7] += s->faults_fired; tot[8] += s->failslab_ops; tot[9] += s->rmmod_ok;
		tot[10] += s->rmmod_busy; tot[11] += s->insmod_ok; tot[12] += s->insmod_fail;
		o->unexpected += s->nr_bad;
		ksft_print_msg("child %d: %lu ops, slowest %lld ms: %s\n", c, s->ops, s->worst_ms,
			       s->worst_op);
		for (k = 0; k < NR_BAD && k < (int)s->nr_bad; k++)
			ksft_print_msg("child %d: UNEXPECTED: %s\n", c, s->bad[k]);
		if (s->nr_bad > NR_BAD)
			ksft_print_msg("child %d: ... %u unexpected results in all\n", c,
				       s->nr_bad);
	}
	ksft_print_msg("totals: %lu ops, %lu writes, %lu reads, %lu run commands, %lu benches, %lu self-checks\n",
		       tot[0], tot[1], tot[2], tot[3], tot[4], tot[5]);
	ksft_print_msg("fault injection: fail-nth %s (%lu armed, %lu fired), failslab %s (%lu writes)\n",
		       have_fail_nth ? "yes" : "no", tot[6], tot[7],
		       have_failslab ? "yes" : "no", tot[8]);
	if (ko) {
		ksft_print_msg("reload: rmmod %lu done, %lu refused (busy); insmod %lu done, %lu failed\n",
			       tot[9], tot[10], tot[11], tot[12]);
		ksft_print_msg("reload: %lu loads with a fault armed, %lu loads in kmalloc mode\n",
			       shm[0].load_faults, shm[0].kmalloc_loads);
		/* child 0 reloads; the slowest against the hang bound */
		ksft_print_msg("reload: slowest rmmod %lld ms, slowest insmod %lld ms, mean insmod %lld ms (hang bound %d s)\n",
			       shm[0].rmmod_max_ms, shm[0].insmod_max_ms,
			       shm[0].insmod_ok ?
			       shm[0].insmod_sum_ms / (long long)shm[0].insmod_ok : 0,
			       hang_s);
	} else {
		ksft_print_msg("reload: not done (MCS_FUZZ_KO not set)\n");
	}
	/* per file and operation: how many of each answer */
	for (fi = 0; fi < MAX_FILES; fi++) {
		const char *name = fi == F_MODULE ? MOD_NAME : files[fi].name;

		if (fi >= nr_files && fi != F_MODULE)
			continue;
		for (k = 0; k < NR_KINDS; k++) {
			char line[1024];
			int n = 0, any = 0;
			unsigned int enomem_f = 0;

			for (e = 0; e < NR_ERR; e++) {
				unsigned int sum = 0;

				for (c = 0; c < nr_children; c++)
					sum += shm[c].counts[fi][k][e];
				if (!sum)
					continue;
				any = 1;
				n += snprintf(line + n, sizeof(line) - n, " %s=%u",
					      e == NR_ERR - 1 ? "other" : errname(e), sum);
				if (n >= (int)sizeof(line))
					break;
			}
			if (!any)
				continue;
			for (c = 0; k == K_WRITE && c < nr_children; c++)
				enomem_f += shm[c].fault_enomem[fi];
			ksft_print_msg("%s %s:%s%s\n", name,
				       fi == F_MODULE ?
				       (k == K_OPEN ? "insmod" : k == K_WRITE ? "rmmod" : "-") :
				       kind_names[k], line,
				       enomem_f ? " (ENOMEM all with a fault fired)" : "");
		}
	}
}

/* ---- verdict ------------------------------------------------------------------------- */

static int wait_idle_stop(void)
{
	int i, ret = -ETIMEDOUT;

	for (i = 0; i < 20 && ret; i++) {
		mcs_puts("run", "stop");
		ret = mcs_wait_idle(30);
	}
	return ret;
}

/* Does a read-only parameter (one set only at load) differ from what it was? */
static int load_params_changed(void)
{
	char now[64];
	struct stat st;
	int i;

	for (i = 0; i < nr_files; i++) {
		/* by the mode bits: root may write anything as far as access() knows */
		if (!files[i].param || !saved_params[i][0] || stat(files[i].path, &st) ||
		    (st.st_mode & 0222))
			continue;
		if (mcs_path_read(files[i].path, now, sizeof(now)) <= 0 ||
		    strcmp(now, saved_params[i]))
			return 1;
	}
	return 0;
}

/*
 * The read-only parameters as they were found, as the parameter string of
 * a load: the verdict's reload brings the module back as found.
 */
static void saved_load_params(char *buf, size_t size)
{
	size_t len = 0;
	int i, n;

	buf[0] = '\0';
	for (i = 0; i < nr_files; i++) {
		if (!saved_param_ro[i] || !saved_params[i][0])
			continue;
		n = snprintf(buf + len, size - len, "%s%s=%.*s", len ? " " : "", files[i].name,
			     (int)strcspn(saved_params[i], "\n"), saved_params[i]);
		if (n < 0 || (size_t)n >= size - len) {
			buf[len] = '\0';
			break;
		}
		len += n;
	}
}

static int restore_state(void)
{
	int i, ret = 0, r;

	for (i = 0; i < nr_files; i++) {
		char now[64];

		if (!files[i].param || !saved_params[i][0])
			continue;
		if (mcs_path_read(files[i].path, now, sizeof(now)) > 0 &&
		    !strcmp(now, saved_params[i]))
			continue;
		r = mcs_path_write(files[i].path, saved_params[i], strlen(saved_params[i]));
		if (r)
			ksft_print_msg("restore %s=%s: %s\n", files[i].name, saved_params[i],
				       strerror(-r));
		ret |= r;
	}
	for (i = 0; i < 50; i++) {
		r = mcs_puts("config", saved_config);
		if (r != -EBUSY)
			break;
		mcs_msleep(100);
	}
	if (r)
		ksft_print_msg("restore config: %s\n", strerror(-r));
	return ret | r;
}

/* The first @max lines of @text into the TAP log. */
static void print_head(const char *what, const char *text, int max)
{
	const char *p = text;

	while (*p && max-- > 0) {
		int n = strcspn(p, "\n");

		ksft_print_msg("%s: %.*s\n", what, n < 200 ? n : 200, p);
		p += n + (p[n] == '\n');
	}
	if (*p)
		ksft_print_msg("%s: ...\n", what);
}

static int config_is_saved(void)
{
	char now[sizeof(saved_config)];

	return mcs_read("config", now, sizeof(now)) > 0 && !strcmp(now, saved_config);
}

/*
 * Empty every stock of every mode: writing the current mode to config
 * switches to it again, and a switch drains everything around it.
 */
static void drain_everything(void)
{
	char buf[4096], line[64], *m;
	int i;

	if (mcs_read("config", buf, sizeof(buf)) < 0)
		return;
	m = strstr(buf, "mode=");
	if (!m)
		return;
	snprintf(line, sizeof(line), "%.*s\n", (int)strcspn(m, "\n"), m);
	for (i = 0; i < 50 && mcs_puts("config", line) == -EBUSY; i++)
		mcs_msleep(100);
}

/*
 * Counts once the stocks are empty and the RCU frees of whatever ran last
 * (a self-check's memcg, say) have settled: two reads 200 ms apart agree.
 */
static int settled_counts(struct mcs_counts *c)
{
	struct mcs_counts again;
	int i;

	drain_everything();
	for (i = 0; i < 25; i++) {
		if (mcs_get_counts(c))
			return -EIO;
		mcs_msleep(200);
		if (!mcs_get_counts(&again) && !memcmp(&again, c, sizeof(*c)))
			return 0;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct fuzz_outcome o = { 0 };
	struct mcs_counts base, after;
	const char *s;
	char buf[4096], found_params[512];
	int i, ret, ok, reloaded, loaded;

	ksft_print_header();
	s = getenv("MCS_FUZZ_SEED");
	if (argc > 1)
		s = argv[1];
	seed = s && *s ? strtoull(s, NULL, 10) :
	       (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 32);
	s = getenv("MCS_FUZZ_SECONDS");
	if (s && atoi(s) > 0)
		seconds = atoi(s);
	s = getenv("MCS_FUZZ_CHILDREN");
	if (s && atoi(s) > 0)
		nr_children = atoi(s) < MAX_CHILDREN ? atoi(s) : MAX_CHILDREN;
	s = getenv("MCS_FUZZ_HANG_S");
	if (s && atoi(s) > 0)
		hang_s = atoi(s);
	ko = getenv("MCS_FUZZ_KO");
	if (ko && (!*ko || access(ko, R_OK))) {
		ksft_print_msg("MCS_FUZZ_KO=%s is not readable: no reloading\n", ko);
		ko = NULL;
	}
	if (ko)
		snprintf(ko_path, sizeof(ko_path), "%s", ko);

	ksft_print_msg("seed=%llu\n", seed);
	ksft_print_msg("replay: MCS_FUZZ_SEED=%llu MCS_FUZZ_SECONDS=%d MCS_FUZZ_CHILDREN=%d%s%s %s\n",
		       seed, seconds, nr_children, ko ? " MCS_FUZZ_KO=" : "", ko ?: "", argv[0]);
	ksft_print_msg("%d children, %d s, hang bound %d s, reload %s\n", nr_children, seconds,
		       hang_s, ko ? ko : "off (MCS_FUZZ_KO not set)");

	if (!mcs_module_loaded(MOD_NAME))
		ksft_exit_fail_msg("%s is not loaded\n", MOD_NAME);
	mcs_prepare();
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	kmsg = mcs_kmsg_open();
	if (kmsg < 0)
		ksft_print_msg("no /dev/kmsg: kernel log not checked\n");

	if (discover(MCS_DIR, 0) <= 0)
		ksft_exit_fail_msg("no files in %s\n", MCS_DIR);
	read_modes();
	ret = discover(PARAM_DIR, 1);
	if (mcs_read("config", saved_config, sizeof(saved_config)) <= 0)
		ksft_exit_fail_msg("cannot read the config\n");
	discover_keys();
	for (i = 0; i < nr_files; i++) {
		struct stat st;

		if (files[i].param && mcs_path_read(files[i].path, saved_params[i],
						    sizeof(saved_params[i])) <= 0)
			saved_params[i][0] = '\0';
		saved_param_ro[i] = files[i].param && !stat(files[i].path, &st) &&
				    !(st.st_mode & 0222);
	}
	buf[0] = '\0';
	for (i = 0; i < nr_files; i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), " %.60s", files[i].name);
	ksft_print_msg("files:%s\n", buf);
	ksft_print_msg("config keys: %d, modes: %u (config takes %u)\n", nr_keys, nr_bench_modes,
		       nr_modes);
	ksft_set_plan(10);
	page_size = sysconf(_SC_PAGESIZE);
	guard = mmap(NULL, 2 * page_size, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (guard == MAP_FAILED || mprotect(guard + page_size, page_size, PROT_NONE))
		guard = NULL;
	shm = mmap(NULL, sizeof(*shm) * nr_children, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shm == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	quiet = mmap(NULL, sizeof(*quiet), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (quiet == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));

	faults_setup();
	if (ko)
		mcs_deps_unload(&deps);
	/*
	 * The module as loaded, nothing using it, once the stocks are empty
	 * (a stock slot may keep an objcg of an offline memcg alive) and the
	 * RCU frees of earlier users have settled (two reads 200 ms apart
	 * agree).
	 */
	if (settled_counts(&base))
		ksft_exit_fail_msg("cannot read the counts in memcgs\n");

	fflush(stdout);
	for (i = 0; i < nr_children; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			ksft_exit_fail_msg("fork: %s\n", strerror(errno));
		if (!pids[i])
			child_main(i);
	}
	watch(&o);
	knobs_restore();
	report(&o);

	ksft_test_result(!o.crashed, "%d children fuzzed for %d s, none crashed\n",
			 nr_children, seconds);
	ksft_test_result(!o.hung && !o.alive, "no operation took longer than %d s\n", hang_s);
	ksft_test_result(!o.unexpected, "every answer was a clean one (%d unexpected)\n",
			 o.unexpected);
	ksft_test_result(!o.log_bad, "kernel log clean during the fuzz (%d bad lines)\n",
			 o.log_bad);
	if (o.alive) {
		/* a task stuck in the module: nothing below can be trusted or finish */
		ksft_print_msg("children stuck in the kernel: no verdict phase\n");
		for (i = 0; i < 6; i++)
			ksft_test_result_fail("verdict skipped: the module is wedged\n");
		ksft_finished();
	}

	/* the verdict: the module is loaded, idle, as found */
	reloaded = 0;
	for (i = 0; i < nr_children; i++)
		reloaded += shm[i].insmod_ok + shm[i].rmmod_ok;
	loaded = mcs_module_loaded(MOD_NAME);
	saved_load_params(found_params, sizeof(found_params));
	if (!loaded && ko) {
		ksft_print_msg("%s was left unloaded: loading it\n", MOD_NAME);
		for (i = 0; i < 20 && (ret = mcs_module_load_params(ko_path, found_params)); i++)
			mcs_msleep(200);
		loaded = !ret;
		reloaded++;
	}
	if (loaded && ko && load_params_changed()) {
		/* child 0 last loaded it with parameters of its own: load it as found */
		ksft_print_msg("%s was left with other load parameters: loading it again\n",
			       MOD_NAME);
		for (i = 0; i < 20 && (ret = mcs_module_unload(MOD_NAME)) == -EAGAIN; i++)
			mcs_msleep(200);
		for (i = 0; !ret && i < 20 &&
		     (ret = mcs_module_load_params(ko_path, found_params)); i++)
			mcs_msleep(200);
		loaded = !ret;
		reloaded++;
	}
	ret = loaded ? mcs_deps_reload(&deps, ko_path) : -ENOENT;
	panic_knob_restore();
	ksft_test_result(loaded && !ret && !access(MCS_DIR "/run", W_OK),
			 "%s loaded at the end%s\n", MOD_NAME, deps.nr ? ", its dependents too" : "");
	if (!loaded)
		ksft_exit_fail_msg("no module: nothing more to check\n");

	ret = wait_idle_stop();
	ret = ret ?: restore_state();
	ok = !ret && config_is_saved();
	ksft_test_result(ok, "no run in progress; config and parameters as found (%d)\n", ret);
	if (!ok && mcs_read("config", buf, sizeof(buf)) > 0)
		print_head("config now", buf, 40);

	/*
	 * The instance loaded now must be back where it started: the first
	 * one's counts, or, once reloaded, a fresh module's (the root memcg
	 * and its objcg, no underflow, nothing charged).  Underflows that
	 * earlier tests provoked on purpose stay with the first instance.
	 */
	if (reloaded)
		base = (struct mcs_counts){ .memcgs = 1, .objcgs = 1 };
	drain_everything();
	for (i = 0; i < 20; i++) {
		if (!mcs_get_counts(&after) && !memcmp(&after, &base, sizeof(base)))
			break;
		mcs_msleep(100);
	}
	ksft_test_result(!mcs_get_counts(&after) && mcs_counts_same(&base, &after),
			 "no memcg, objcg or charge left behind by the fuzz (%d reload(s))\n",
			 reloaded);

	for (i = 0; i < 50; i++) {
		ret = mcs_puts("selftest", "all");
		if (ret != -EBUSY)
			break;
		mcs_msleep(100);
	}
	ksft_test_result(!ret, "echo all > selftest after the fuzz (%s)\n", ret ? strerror(-ret) : "ok");
	if (ret && mcs_read("selftest", buf, sizeof(buf)) > 0)
		print_head("selftest", buf, 60);

	ret = mcs_config("duration_ms=200\nmemcgs=4\nchurn=1\n");
	if (!ret) {
		char block[16384];

		settled_counts(&base);
		ret = mcs_run("1", results, sizeof(results));
		ok = !ret && mcs_kv_is(results, "verdict", "PASS") &&
		     mcs_case_block(results, "custom", block, sizeof(block)) &&
		     mcs_block_ok(block, "done") && !mcs_get_counts(&after) &&
		     mcs_counts_same(&base, &after);
		if (!ok && !ret)
			print_head("results", results, 80);
	} else {
		ok = 0;
	}
	ksft_test_result(ok, "a short stress run after the fuzz: verdict=PASS (%d)\n", ret);
	ret = restore_state();
	if (ret || !config_is_saved())
		ksft_print_msg("config not restored after the stress run (%d)\n", ret);

	ksft_test_result(mcs_kmsg_clean(kmsg), "kernel log clean after the fuzz\n");
	ksft_print_msg("replay: MCS_FUZZ_SEED=%llu\n", seed);
	ksft_finished();
}
