// SPDX-License-Identifier: GPL-2.0
/*
 * memcg_stock: every failure point of a module load.
 *
 * Loads the module from $MCS_MODULE with the N-th fault point of the whole
 * finit_module() failing (/proc/self/task/<tid>/fail-nth: the kernel's
 * loader, the trace events, the module's own init), for N = 1, 2, ...
 * until a load succeeds with the fault never reached.  After each load:
 *  - a load that failed left nothing behind: no /sys/module/memcg_stock,
 *    no debugfs directory, no trace events, no CPU hotplug state of ours,
 *    and the error was a clean one (ENOMEM; EEXIST, EBUSY and ENODEV come
 *    from the kernel's own sysfs and trace event set-up);
 *  - a load that failed never created the debugfs directory, not even for
 *    a moment (inotify on the debugfs root): a file of a module whose init
 *    fails can be opened meanwhile, and the kernel frees the module under
 *    that open file;
 *  - a load that succeeded with the fault absorbed unloads cleanly.
 * The sweep runs in both allocation modes (slab_kmalloc=0 and 1).  Then a
 * clean load works, and every file of the module is opened, read and
 * written while the module unloads and loads again.
 *
 * Needs fault injection (CONFIG_FAULT_INJECTION with fail-nth) and
 * $MCS_MODULE; without them it SKIPs and says which is missing.
 * MCS_LOAD_FAULTS_MAX (default 2000) bounds N: a sweep that does not end
 * below it fails.  MCS_LOAD_FAULTS_STRIDE=S (default 1) tries every S-th
 * point only, from a random first one (printed), for a shorter run; the
 * last load, past the last point, always comes, and so does every one of
 * the last LAST_POINTS points, where the module's init ends (where the
 * directory check runs).  Whatever happens,
 * memcg_stock is loaded when this exits.
 */
#include <dirent.h>
#include <time.h>
#include <sys/inotify.h>
#include <sys/wait.h>

#include "stress_lib.h"

#define MOD		"memcg_stock"
#define MOD_SYSFS	"/sys/module/" MOD
#define TRACE_EVENTS_A	"/sys/kernel/tracing/events/" MOD
#define TRACE_EVENTS_B	"/sys/kernel/debug/tracing/events/" MOD
#define HP_STATES	"/sys/devices/system/cpu/hotplug/states"

static char module_path[1024];
static struct mcs_deps deps;
static int faultfd = -1;
static int notifyfd = -1;

/*
 * The kernel frees a module whose init failed even while files of it are
 * open (nothing waits for their references), and a file's release then
 * reads its operations from the freed module, or from the next one loaded
 * there.  So the module creates its debugfs directory only once its init
 * can no longer fail: a load that failed must never have created it.
 * inotify sees every creation in the debugfs root, however short-lived
 * (where the kernel has it: UML's configuration does, the qemu debug
 * kernels' do not).
 */
static void created_reset(void)
{
	char buf[4096];

	while (notifyfd >= 0 && read(notifyfd, buf, sizeof(buf)) > 0)
		;
}

static int created_dir(void)
{
	union {
		struct inotify_event first;
		char bytes[4096];
	} buf;
	const struct inotify_event *ev;
	int found = 0;
	ssize_t len;
	char *p;

	while (notifyfd >= 0 && (len = read(notifyfd, buf.bytes, sizeof(buf))) > 0) {
		for (p = buf.bytes; p < buf.bytes + len; p += sizeof(*ev) + ev->len) {
			ev = (const struct inotify_event *)p;
			if (ev->len && !strcmp(ev->name, MOD))
				found = 1;
		}
	}
	return found;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* The fault-injection knobs changed here, restored at exit. */
static struct { char path[128]; char old[32]; } knobs[8];
static int nr_knobs;

static void knob_set(const char *path, const char *val)
{
	if (nr_knobs == (int)ARRAY_SIZE(knobs) ||
	    mcs_path_read(path, knobs[nr_knobs].old, sizeof(knobs[0].old)) <= 0)
		return;
	if (mcs_path_write(path, val, strlen(val)))
		return;
	snprintf(knobs[nr_knobs].path, sizeof(knobs[0].path), "%s", path);
	nr_knobs++;
}

static void knobs_restore(void)
{
	while (nr_knobs--)
		mcs_path_write(knobs[nr_knobs].path, knobs[nr_knobs].old,
			       strlen(knobs[nr_knobs].old));
}

/*
 * fail-nth counts the fault points that reach should_fail(): with
 * ignore-gfp-wait off, every slab allocation of the load is one (most of
 * them may sleep).  Quiet: a stack dump per injected fault reads as a splat.
 */
static void faults_setup(void)
{
	knob_set("/sys/kernel/debug/failslab/verbose", "0");
	knob_set("/sys/kernel/debug/failslab/ignore-gfp-wait", "N");
	knob_set("/sys/kernel/debug/fail_page_alloc/verbose", "0");
	/*
	 * 6.12 WARNs once a boot on an -ENOMEM while a module's trace events
	 * are set up (event_define_fields()): the kernel's, and no reason to
	 * panic the machine (the scans skip that report, splat-alloc.awk).
	 */
	knob_set("/proc/sys/kernel/panic_on_warn", "0");
	atexit(knobs_restore);
}

static void restore(void)
{
	int r;

	if (!mcs_module_loaded(MOD)) {
		r = mcs_module_load(module_path);
		if (r)
			ksft_print_msg("cannot load %s again: %s\n", module_path, strerror(-r));
	}
	mcs_deps_reload(&deps, module_path);
}

/* What of the module is still there although it is not loaded; "" if nothing. */
static const char *left_behind(void)
{
	static char what[256];
	char buf[16384];

	what[0] = '\0';
	if (!access(MOD_SYSFS, F_OK))
		strcat(what, " " MOD_SYSFS);
	if (!access(MCS_DIR, F_OK))
		strcat(what, " " MCS_DIR);
	if (!access(TRACE_EVENTS_A, F_OK))
		strcat(what, " " TRACE_EVENTS_A);
	if (!access(TRACE_EVENTS_B, F_OK))
		strcat(what, " " TRACE_EVENTS_B);
	if (mcs_path_read(HP_STATES, buf, sizeof(buf)) > 0 && strstr(buf, MOD))
		strcat(what, " a CPU hotplug state");
	return what;
}

/* Arm the N-th fault point of this task's next system calls (0: disarm). */
static int fault_set(int n)
{
	char b[16];

	snprintf(b, sizeof(b), "%d", n);
	return pwrite(faultfd, b, strlen(b), 0) == (ssize_t)strlen(b) ? 0 : -errno;
}

/* What fail-nth reads back: 0 once the armed fault has fired. */
static int fault_left(void)
{
	char b[16] = "";

	if (pread(faultfd, b, sizeof(b) - 1, 0) <= 0)
		return -1;
	return atoi(b);
}

static int err_clean(int err)
{
	return err == -ENOMEM || err == -EEXIST || err == -EBUSY || err == -ENODEV;
}

/* Load with the @n-th fault point failing; *@left: fail-nth read back. */
static int load_at(const char *params, int n, int *left)
{
	int r;

	created_reset();
	if (fault_set(n))
		ksft_exit_fail_msg("fail-nth: %s\n", strerror(errno));
	r = mcs_module_load_params(module_path, params);
	*left = fault_left();
	fault_set(0);
	return r;
}

struct tally {
	int failed, absorbed, bad;
};

/* Name a bad load, the first ten of a sweep. */
static void bad_load(struct tally *t, const char *params, int n, const char *fmt, const char *a,
		     const char *b)
{
	if (t->bad++ < 10)
		ksft_print_msg(fmt, params, n, a, b);
}

/*
 * Try the @n-th fault point of a load with @params.  Return: 1 when the
 * load got through without reaching it (the last point was passed), 0 when
 * the load failed or absorbed the fault (each checked, *@t counts them),
 * -1 when the module cannot be unloaded any more.
 */
static int try_point(const char *params, int n, struct tally *t)
{
	const char *what;
	int r, left, dir;

	r = load_at(params, n, &left);
	if (r) {
		t->failed++;
		what = left_behind();
		dir = created_dir();
		if (!err_clean(r) || *what)
			bad_load(t, params, n, "'%s' fault %d: load failed with %s, left behind:%s\n",
				 strerror(-r), *what ? what : " nothing");
		else if (dir)
			bad_load(t, params, n, "'%s' fault %d: load failed with %s%s\n",
				 strerror(-r),
				 " after it had created its debugfs directory (a file opened meanwhile outlives the module)");
		return 0;
	}
	r = mcs_module_unload(MOD);
	if (r) {
		ksft_print_msg("'%s' fault %d: rmmod after the load: %s\n", params, n,
			       strerror(-r));
		return -1;
	}
	if (left > 0)
		return 1;
	/* loaded with the fault absorbed: it must have unloaded cleanly */
	t->absorbed++;
	what = left_behind();
	if (*what)
		bad_load(t, params, n, "'%s' fault %d absorbed: rmmod ok, left behind:%s%s\n",
			 what, "");
	return 0;
}

/*
 * One sweep with @params; returns the number of fault points of a load
 * (the N at which the fault was no longer reached), or -1 on a failure.
 * Every @stride-th point from a random first one; then, where inotify
 * watches the debugfs root, every one of the last LAST_POINTS, where the
 * module's init ends and its files appear, so that a failure after the
 * debugfs directory exists is found at any stride.
 */
#define LAST_POINTS	80
static int sweep(const char *params, int max, int stride)
{
	struct tally t = { 0 };
	int n, r, points = -1;

	n = 1 + (int)((unsigned int)(getpid() ^ time(NULL)) % (unsigned int)stride);
	if (stride > 1)
		ksft_print_msg("'%s': every %d-th fault point from the %d-th\n", params, stride, n);
	for (; n <= max; n += stride) {
		r = try_point(params, n, &t);
		if (r < 0)
			return -1;
		if (r > 0) {
			points = n - 1;
			break;
		}
	}
	if (points < 0) {
		ksft_print_msg("'%s': still failing at fault point %d (MCS_LOAD_FAULTS_MAX)\n",
			       params, max);
		return -1;
	}
	/* the points of the stride were tried; the dense end is for the directory */
	n = points > LAST_POINTS ? points - LAST_POINTS + 1 : 1;
	for (; stride > 1 && notifyfd >= 0 && n <= points; n++) {
		r = try_point(params, n, &t);
		if (r < 0)
			return -1;
		if (r > 0)
			break;	/* this load took fewer points (a pool or chunk existed) */
	}
	ksft_print_msg("'%s': %d fault points, %d loads failed, %d absorbed the fault, %d bad\n",
		       params, points, t.failed, t.absorbed, t.bad);
	return t.bad ? -1 : points;
}

/*
 * After the sweeps: the module unloads and loads again while two children
 * open, read and write every file of its directory.  Each answer is either
 * data or a clean error; the children end, the module ends up loaded.
 */
static int reload_under_opens(void)
{
	pid_t kids[2];
	int i, r, status, ok = 1;

	r = mcs_module_load(module_path);
	if (r || access(MCS_DIR "/config", F_OK)) {
		ksft_print_msg("a clean load after the sweeps: %s\n", r ? strerror(-r) : "no config file");
		return 0;
	}
	for (i = 0; i < 2; i++) {
		kids[i] = fork();
		if (kids[i] < 0)
			return 0;
		if (!kids[i]) {
			long long end = now_ms() + 3000;
			char buf[4096], path[512];

			while (now_ms() < end) {
				DIR *d = opendir(MCS_DIR);
				struct dirent *de;

				while (d && (de = readdir(d))) {
					int fd;

					if (de->d_name[0] == '.')
						continue;
					snprintf(path, sizeof(path), "%s/%s", MCS_DIR, de->d_name);
					fd = open(path, O_RDWR | O_NONBLOCK);
					if (fd < 0)
						fd = open(path, O_RDONLY | O_NONBLOCK);
					if (fd < 0)
						continue;
					if (read(fd, buf, sizeof(buf)) < 0 && errno != EIO &&
					    errno != EINVAL && errno != EBUSY && errno != ENODEV &&
					    errno != EAGAIN && errno != EINTR && errno != EBADF)
						_exit(10 + errno);
					/* a bad key: refused before anything runs */
					if (write(fd, "no-such-key=1\n", 14) >= 0 &&
					    !strcmp(de->d_name, "config"))
						_exit(9);
					close(fd);
				}
				if (d)
					closedir(d);
			}
			_exit(0);
		}
	}
	for (i = 0; i < 10; i++) {
		r = mcs_module_unload(MOD);
		if (!r)
			r = mcs_module_load(module_path);
		if (r && r != -EAGAIN) {
			ksft_print_msg("reload %d under opens: %s\n", i, strerror(-r));
			ok = 0;
		}
		mcs_msleep(100);
	}
	for (i = 0; i < 2; i++) {
		if (waitpid(kids[i], &status, 0) != kids[i] || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			ksft_print_msg("child %d: status 0x%x\n", i, status);
			ok = 0;
		}
	}
	if (!mcs_module_loaded(MOD))
		ok = !mcs_module_load(module_path) && ok;
	return ok;
}

int main(void)
{
	static const char * const modes[] = { "slab_kmalloc=0", "slab_kmalloc=1" };
	const char *mod = getenv("MCS_MODULE"), *s;
	int i, n, max = 2000, stride = 1, kmsg;
	char path[128];

	ksft_print_header();
	if (!mod || access(mod, R_OK))
		ksft_exit_skip("no loadable module: set MCS_MODULE to memcg_stock.ko\n");
	snprintf(module_path, sizeof(module_path), "%s", mod);
	snprintf(path, sizeof(path), "/proc/self/task/%ld/fail-nth", (long)syscall(SYS_gettid));
	faultfd = open(path, O_RDWR | O_CLOEXEC);
	if (faultfd < 0)
		ksft_exit_skip("no %s: the kernel has no fault injection (CONFIG_FAULT_INJECTION)\n",
			       path);
	if (!mcs_module_loaded(MOD))
		ksft_exit_fail_msg("%s is not loaded\n", MOD);
	s = getenv("MCS_LOAD_FAULTS_MAX");
	if (s && atoi(s) > 0)
		max = atoi(s);
	s = getenv("MCS_LOAD_FAULTS_STRIDE");
	if (s && atoi(s) > 0)
		stride = atoi(s);
	mcs_prepare();
	faults_setup();
	notifyfd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (notifyfd < 0)
		ksft_print_msg("no inotify (%s; CONFIG_INOTIFY_USER): a failed load's debugfs directory is not looked for here\n",
			       strerror(errno));
	else if (inotify_add_watch(notifyfd, "/sys/kernel/debug", IN_CREATE) < 0)
		ksft_exit_fail_msg("inotify on /sys/kernel/debug: %s\n", strerror(errno));
	kmsg = mcs_kmsg_open();
	ksft_set_plan(ARRAY_SIZE(modes) + 2);

	mcs_deps_unload(&deps);
	if (mcs_module_unload(MOD))
		ksft_exit_fail_msg("cannot unload %s: %s\n", MOD, strerror(errno));
	if (*left_behind())
		ksft_exit_fail_msg("left behind by a clean unload:%s\n", left_behind());

	for (i = 0; i < (int)ARRAY_SIZE(modes); i++) {
		n = sweep(modes[i], max, stride);
		ksft_test_result(n > 0, "every failure point of a load with %s (%d) fails or succeeds cleanly\n",
				 modes[i], n);
		if (n < 0 && mcs_module_loaded(MOD))
			mcs_module_unload(MOD);
	}
	ksft_test_result(reload_under_opens(),
			 "a clean load works, and unload/load under concurrent opens is clean\n");
	restore();
	ksft_test_result(mcs_kmsg_clean(kmsg), "kernel log clean\n");
	ksft_finished();
}
