// SPDX-License-Identifier: GPL-2.0
/*
 * memcg_stock kernel_cost: the kernel's stock pairs run only on a memcg
 * that is not the root, the one they charge checked.
 *
 * Under a cgroup v2 hierarchy with the memory controller (mounted here if
 * none is, the controller enabled in the root's subtree_control if it is
 * not, both undone at the end), from processes moved into the cgroups:
 *
 *   control: a process in a cgroup of its own runs pair=skmem (a write
 *            answers 0, a read prints skmem_pair_ns=);
 *   root:    a process in the root cgroup is refused pair=obj and
 *            pair=skmem with -EOPNOTSUPP and the memcg message of
 *            error_log;
 *   mm owner: a process in that cgroup whose mm belongs to a process in
 *            the root cgroup (clone(CLONE_VM) without CLONE_THREAD: the
 *            owner of a shared mm stays its creator) is refused
 *            pair=skmem the same way, and its read says
 *            skmem=unsupported skmem_reason=root-memcg.  The socket pair
 *            charges the memcg of the mm, the owner's, not the reader's
 *            own: a check of the reader's alone let it run on the root
 *            memcg, whose charge charges nothing while the uncharge
 *            refills the root's stock.
 *
 * Then the kernel log must hold no warning (a socket pair run on the root
 * memcg can underflow its counter).  Where the kernel does not let the
 * module call the socket pair (no kprobes: UML; a missing symbol; IBT),
 * the control and mm owner cases are skipped with the read's reason, and
 * the whole test where the kernel has no cgroup v2 memory controller
 * (UML).  A cgroup v2 hierarchy with that controller enabled, and
 * /dev/kmsg, are prerequisites: without the one the test skips, without
 * the other its kernel log case; under the test rig (MCS_RIG=1), whose
 * guests have both, either fails instead.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "stress_lib.h"

#define KC_WRITE	"pair=skmem loops=1"
#define KC_MEMCG_MSG	"the pair would charge the root memcg or none (skmem: the mm owner's)"
#define KC_STACK	(256 * 1024)

#define T_CONTROL	"kernel_cost in a memcg of its own runs the socket pair"
#define T_ROOT		"kernel_cost from the root cgroup refuses obj and skmem for the memcg"
#define T_OWNER		"kernel_cost skmem of a process whose mm's owner is in the root cgroup"
#define T_KMSG		"kernel log"

/* What a process did in its cgroup, for the test process to judge. */
struct kc_result {
	int done;		/* it got to the end */
	int join;		/* its move into the cgroup: 0 or -errno */
	int obj;		/* the write of pair=obj loops=1: 0 or -errno */
	int skmem;		/* the write of KC_WRITE: 0 or -errno */
	char obj_log[512];	/* error_log's last entry after the obj write */
	char skmem_log[512];	/* and after the skmem write */
	long read;		/* the read of kernel_cost: its length or -errno */
	char line[2048];	/* the line it read */
};

/* The cgroup v2 hierarchy of the test, and what to undo. */
static char cg_root[PATH_MAX];
static char cg_child[PATH_MAX + 32];
static int cg_mounted, cg_enabled, cg_made;
static int rig;

/* error_log's last entry ("] file: ...") into @buf. */
static void last_log(char *buf, size_t size)
{
	char all[8192];

	snprintf(buf, size, "%s", mcs_error_log_last(all, sizeof(all)));
}

/*
 * In the calling process: move into the cgroup of @procs, then the writes
 * and a read, into @r.
 */
static void run_in(const char *procs, struct kc_result *r)
{
	r->join = mcs_path_write(procs, "0", 1);
	if (!r->join) {
		r->obj = mcs_puts("kernel_cost", "pair=obj loops=1");
		last_log(r->obj_log, sizeof(r->obj_log));
		r->skmem = mcs_puts("kernel_cost", KC_WRITE);
		last_log(r->skmem_log, sizeof(r->skmem_log));
		r->read = mcs_read("kernel_cost", r->line, sizeof(r->line));
	}
	r->done = 1;
}

struct clone_arg {
	const char *procs;
	struct kc_result *r;
};

static int clone_fn(void *p)
{
	struct clone_arg *a = p;

	run_in(a->procs, a->r);
	return 0;
}

/*
 * A process that runs run_in(@procs, @r); with @owner_procs, a process
 * that moves into that cgroup first and clones the one that runs it with
 * CLONE_VM: its mm stays the first one's.  0, or -errno.
 */
static int in_process(const char *owner_procs, const char *procs, struct kc_result *r)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (!pid) {
		struct clone_arg a = { procs, r };
		char *stack;
		pid_t w;

		if (!owner_procs) {
			run_in(procs, r);
			_exit(0);
		}
		r->join = mcs_path_write(owner_procs, "0", 1);
		if (r->join)
			_exit(0);
		stack = mmap(NULL, KC_STACK, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
		if (stack == MAP_FAILED)
			_exit(1);
		w = clone(clone_fn, stack + KC_STACK, CLONE_VM | SIGCHLD, &a);
		if (w < 0 || waitpid(w, &status, 0) != w)
			_exit(1);
		_exit(WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : 1);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -errno;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -ECHILD;
}

/* Is @word one of the blank-separated words of @list? */
static int has_word(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p;

	for (p = strstr(list, word); p; p = strstr(p + 1, word))
		if ((p == list || p[-1] == ' ') && (!p[n] || p[n] == ' ' || p[n] == '\n'))
			return 1;
	return 0;
}

/* The mount point of cgroup v2 into cg_root; 0 if there is none. */
static int find_cgroup2(void)
{
	char dev[256], dir[PATH_MAX], type[64];
	FILE *f = fopen("/proc/mounts", "r");
	int found = 0;

	if (!f)
		return 0;
	while (!found && fscanf(f, "%255s %4095s %63s %*[^\n]", dev, dir, type) == 3)
		if (!strcmp(type, "cgroup2")) {
			snprintf(cg_root, sizeof(cg_root), "%s", dir);
			found = 1;
		}
	fclose(f);
	return found;
}

/*
 * Sets up the hierarchy; NULL, or why it cannot be, with *@kernel set
 * where the kernel lacks cgroup v2 or its memory controller (not a
 * prerequisite any test system could provide: UML has neither).
 */
static const char *cgroups_up(int *kernel)
{
	char path[PATH_MAX + 32], ctl[512], fs[8192];
	int ret;

	*kernel = 1;
	if (mcs_path_read("/proc/filesystems", fs, sizeof(fs)) < 0 || !strstr(fs, "\tcgroup2\n"))
		return "the kernel has no cgroup v2 (CONFIG_CGROUPS)";
	*kernel = 0;
	if (!find_cgroup2()) {
		snprintf(cg_root, sizeof(cg_root), "%s/mcs-kc-cgroup.XXXXXX",
			 getenv("TMPDIR") ?: "/tmp");
		if (!mkdtemp(cg_root))
			return "no cgroup v2 mount, and no directory for one";
		if (mount("none", cg_root, "cgroup2", 0, NULL)) {
			rmdir(cg_root);
			return "no cgroup v2 mount, and cgroup2 cannot be mounted";
		}
		cg_mounted = 1;
	}
	snprintf(path, sizeof(path), "%s/cgroup.controllers", cg_root);
	if (mcs_path_read(path, ctl, sizeof(ctl)) < 0)
		return "cannot read the root's cgroup.controllers";
	if (!has_word(ctl, "memory")) {
		*kernel = 1;
		return "no memory controller in cgroup v2 (CONFIG_MEMCG, cgroup_disable=, v1)";
	}
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", cg_root);
	if (mcs_path_read(path, ctl, sizeof(ctl)) < 0)
		return "cannot read the root's cgroup.subtree_control";
	if (!has_word(ctl, "memory")) {
		ret = mcs_path_write(path, "+memory", 7);
		if (ret) {
			ksft_print_msg("+memory in %s: %s\n", path, strerror(-ret));
			return "the memory controller cannot be enabled in cgroup v2";
		}
		cg_enabled = 1;
	}
	snprintf(cg_child, sizeof(cg_child), "%s/mcs-kc-memcg.%d", cg_root, (int)getpid());
	if (mkdir(cg_child, 0755))
		return "cannot make a cgroup";
	cg_made = 1;
	return NULL;
}

static void cgroups_down(void)
{
	char path[PATH_MAX + 32];
	int i;

	/* the processes are reaped; their cgroup may be busy a moment longer */
	for (i = 0; cg_made && i < 100 && rmdir(cg_child); i++)
		mcs_msleep(10);
	if (cg_made && i == 100)
		ksft_print_msg("rmdir %s: %s\n", cg_child, strerror(errno));
	if (cg_enabled) {
		snprintf(path, sizeof(path), "%s/cgroup.subtree_control", cg_root);
		mcs_path_write(path, "-memory", 7);
	}
	if (cg_mounted) {
		umount(cg_root);
		rmdir(cg_root);
	}
}

/* The error_log entry of a memcg refusal of @write. */
static void memcg_refusal(char *buf, size_t size, const char *write)
{
	snprintf(buf, size, "] kernel_cost: %s (-%d) at byte 0: \"%s\"", KC_MEMCG_MSG,
		 EOPNOTSUPP, write);
}

/* A skmem pair the kernel does not let the module call: why; else NULL. */
static const char *skmem_uncallable(const char *line, char *why, size_t size)
{
	static const char * const kernel[] = { "no-kprobe-lookup", "no-symbol", "ibt-sealed" };
	const char *p = strstr(line, " skmem_reason=");
	size_t i, n;

	if (!p)
		return NULL;
	p += strlen(" skmem_reason=");
	n = strcspn(p, "\n ");
	snprintf(why, size, "%.*s", (int)n, p);
	for (i = 0; i < ARRAY_SIZE(kernel); i++)
		if (!strcmp(why, kernel[i]))
			return why;
	return NULL;
}

static void print_result(const char *who, const struct kc_result *r)
{
	ksft_print_msg("%s: join %d obj %d skmem %d read %ld\n", who, r->join, r->obj,
		       r->skmem, r->read);
	ksft_print_msg("%s: error_log after obj '%s', after skmem '%s'\n", who, r->obj_log,
		       r->skmem_log);
	ksft_print_msg("%s: read '%.*s'\n", who, (int)strcspn(r->line, "\n"), r->line);
}

int main(void)
{
	char procs[PATH_MAX + 64], root_procs[PATH_MAX + 64], want_obj[256], want_skmem[256];
	char why[64];
	const char *s = getenv("MCS_RIG"), *no_cg, *uncallable = NULL;
	struct kc_result *ctl, *root, *own;
	int ok, ret, kmsg, kernel;

	rig = s && !strcmp(s, "1");
	ksft_print_header();
	if (!mcs_module_loaded("memcg_stock"))
		ksft_exit_fail_msg("memcg_stock is not loaded\n");
	mcs_prepare();
	if (access(MCS_DIR "/kernel_cost", W_OK))
		ksft_exit_fail_msg("%s/kernel_cost: %s\n", MCS_DIR, strerror(errno));
	ctl = mmap(NULL, 3 * sizeof(*ctl), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		   -1, 0);
	if (ctl == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	memset(ctl, 0, 3 * sizeof(*ctl));
	root = ctl + 1;
	own = ctl + 2;
	memcg_refusal(want_obj, sizeof(want_obj), "pair=obj loops=1");
	memcg_refusal(want_skmem, sizeof(want_skmem), KC_WRITE);

	no_cg = cgroups_up(&kernel);
	if (no_cg) {
		cgroups_down();
		if (rig && !kernel)
			ksft_exit_fail_msg("%s (MCS_RIG=1: the rig's guests have it)\n", no_cg);
		ksft_exit_skip("%s\n", no_cg);
	}
	ksft_set_plan(4);
	kmsg = mcs_kmsg_open();
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", cg_child);
	snprintf(root_procs, sizeof(root_procs), "%s/cgroup.procs", cg_root);

	/* control: the pair runs where it may, else the kernel says why not */
	ret = in_process(NULL, procs, ctl);
	if (!ret && ctl->done && !ctl->join && ctl->read > 0)
		uncallable = skmem_uncallable(ctl->line, why, sizeof(why));
	if (uncallable) {
		ksft_test_result_skip("%s: the module cannot call it here (%s)\n", T_CONTROL,
				      uncallable);
	} else {
		ok = !ret && ctl->done && !ctl->join && !ctl->skmem && ctl->read > 0 &&
		     strstr(ctl->line, " skmem_pair_ns=") && strstr(ctl->line, " verdict=PASS");
		if (!ok)
			print_result("control", ctl);
		ksft_test_result(ok, "%s: write %d, read %s\n", T_CONTROL, ctl->skmem,
				 strstr(ctl->line, " skmem_pair_ns=") ? "timed it" : "did not time it");
	}

	/* root: both stock pairs refused before they run, the memcg said */
	ret = in_process(NULL, root_procs, root);
	ok = !ret && root->done && !root->join && root->obj == -EOPNOTSUPP &&
	     root->skmem == -EOPNOTSUPP && !strcmp(root->obj_log, want_obj) &&
	     !strcmp(root->skmem_log, want_skmem) &&
	     strstr(root->line, " verdict=FAIL reason=task-not-in-an-accounting-memcg");
	if (!ok)
		print_result("root", root);
	ksft_test_result(ok, "%s: obj %d, skmem %d (want %d, error_log '%s')\n", T_ROOT,
			 root->obj, root->skmem, -EOPNOTSUPP, KC_MEMCG_MSG);

	/* mm owner: the reader's memcg accounts, the one the pair charges not */
	ret = in_process(root_procs, procs, own);
	if (uncallable) {
		ksft_test_result_skip("%s: the module cannot call the socket pair here (%s)\n",
				      T_OWNER, uncallable);
	} else {
		ok = !ret && own->done && !own->join && own->skmem == -EOPNOTSUPP &&
		     !strcmp(own->skmem_log, want_skmem) &&
		     strstr(own->line, " skmem=unsupported skmem_reason=root-memcg") &&
		     strstr(own->line, " verdict=PASS");
		if (!ok)
			print_result("mm owner", own);
		ksft_test_result(ok, "%s: skmem %d (want %d), read %s\n", T_OWNER, own->skmem,
				 -EOPNOTSUPP,
				 strstr(own->line, "skmem_reason=root-memcg") ?
				 "says root-memcg" : "does not say root-memcg");
	}
	cgroups_down();
	/* a socket pair run on the root memcg can underflow its counter (a WARN) */
	if (kmsg < 0)
		mcs_result_missing(rig, T_KMSG, "no /dev/kmsg");
	else
		ksft_test_result(mcs_kmsg_clean(kmsg), "%s: no warning\n", T_KMSG);
	ksft_finished();
}
