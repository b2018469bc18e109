// SPDX-License-Identifier: GPL-2.0
/*
 * memcg_stock stress, unload during a run: rmmod while a run charges from
 * every context must stop the run, check it and unload cleanly; then the
 * module comes back from $MCS_MODULE and works.  Modules that depend on
 * memcg_stock (the KUnit module) are unloaded first and loaded again at
 * the end, with their KUnit suites filtered out so that they do not run a
 * second time.  Whatever happens, memcg_stock is loaded when this exits.
 */
#include <libgen.h>
#include <sys/syscall.h>

#include "stress_lib.h"

#define KUNIT_FILTER	"/sys/module/kunit/parameters/filter_glob"
#define MAX_DEPS	8

static char results[MCS_RESULTS_SIZE];
static char module_path[1024];
static char deps[MAX_DEPS][64];
static int nr_deps;
static int kmsg = -1;

static int module_loaded(const char *name)
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

static int unload(const char *name)
{
	return syscall(__NR_delete_module, name, O_NONBLOCK) ? -errno : 0;
}

static int load(const char *path)
{
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = syscall(__NR_finit_module, fd, "", 0) ? -errno : 0;
	close(fd);
	return ret;
}

/* The modules /proc/modules lists as using memcg_stock. */
static void find_deps(void)
{
	char buf[65536], *line, *save = NULL;

	if (mcs_path_read("/proc/modules", buf, sizeof(buf)) < 0)
		return;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[64], users[512], *u, *usave = NULL;

		if (sscanf(line, "%63s %*s %*s %511s", name, users) != 2 ||
		    strcmp(name, "memcg_stock") || !strcmp(users, "-"))
			continue;
		for (u = strtok_r(users, ",", &usave); u && nr_deps < MAX_DEPS;
		     u = strtok_r(NULL, ",", &usave))
			snprintf(deps[nr_deps++], sizeof(deps[0]), "%s", u);
	}
}

/* Load the dependents again without running their KUnit suites twice. */
static int reload_deps(void)
{
	char dir[1024], path[1700], glob[256] = "";
	int i, ret = 0, filtered;

	snprintf(dir, sizeof(dir), "%s", module_path);
	dirname(dir);
	filtered = mcs_path_read(KUNIT_FILTER, glob, sizeof(glob)) >= 0 &&
		   !mcs_path_write(KUNIT_FILTER, "mcs_stress_reload_no_suite",
				   strlen("mcs_stress_reload_no_suite"));
	for (i = 0; i < nr_deps; i++) {
		int r;

		if (module_loaded(deps[i]))
			continue;
		snprintf(path, sizeof(path), "%s/%s.ko", dir, deps[i]);
		r = load(path);
		if (r) {
			ksft_print_msg("reload %s: %s\n", path, strerror(-r));
			ret = r;
		}
	}
	if (filtered) {
		glob[strcspn(glob, "\n")] = '\0';
		/* the default is NULL, shown as "(null)", which means every suite */
		if (!strcmp(glob, "(null)") || !glob[0])
			strcpy(glob, "*.*");
		mcs_path_write(KUNIT_FILTER, glob, strlen(glob));
	}
	return ret;
}

/* memcg_stock (and what used it) loaded again, whatever went wrong. */
static void restore(void)
{
	if (!module_loaded("memcg_stock") && load(module_path))
		ksft_print_msg("cannot load %s again: %s\n", module_path, strerror(errno));
	reload_deps();
}

/* Start @cmd, let it charge for a while, unload, check the log, load again. */
static void test_unload_during(const char *cmd)
{
	char buf[4096], tag[96];
	int ret, ok, nr_summary = 0, clean;

	ret = mcs_config("threads=2\nduration_ms=600000\nhotplug=1\n");
	if (!ret)
		ret = mcs_puts("run", cmd);
	if (!ret)
		ret = mcs_wait_load(120);
	if (!ret) {
		mcs_msleep(500);
		mcs_read("run", buf, sizeof(buf));
		ksft_print_msg("unloading during %s after %ld ms, %ld operations\n", cmd,
			       mcs_kv_long(buf, "elapsed_ms", 0), mcs_kv_long(buf, "ops_done", 0));
		/* no file of ours is open: unloading waits for nothing but the run */
		ret = unload("memcg_stock");
		if (ret)
			ksft_print_msg("delete_module: %s\n", strerror(-ret));
	}
	ok = !ret && !module_loaded("memcg_stock") && access(MCS_DIR, F_OK);
	/* the stopped case was checked on the way out and said so */
	snprintf(tag, sizeof(tag), "memcg_stock: stress: %s PASS", cmd[0] == '1' ? "custom" : cmd);
	clean = !mcs_kmsg_scan(kmsg, tag, &nr_summary);
	if (!nr_summary)
		ksft_print_msg("no '%s' line in the kernel log\n", tag);
	ksft_test_result(ok && clean && nr_summary == 1,
			 "rmmod during a %s run: run stopped and checked, module gone (%d)\n",
			 cmd, ret);

	ret = load(module_path);
	ok = !ret && module_loaded("memcg_stock") && mcs_read("run", buf, sizeof(buf)) > 0 &&
	     mcs_kv_is(buf, "state", "idle");
	ksft_test_result(ok, "insmod %s again: harness idle (%d)\n", module_path, ret);
}

static void test_works_after(void)
{
	struct mcs_counts before, after;
	char block[16384];
	int ret, ok;

	mcs_config(NULL);
	mcs_get_counts(&before);
	ret = mcs_run("churn", results, sizeof(results));
	ok = !ret && mcs_case_block(results, "churn", block, sizeof(block)) &&
	     mcs_block_ok(block, "done");
	ok = ok && !mcs_get_counts(&after) && mcs_counts_same(&before, &after) &&
	     mcs_kmsg_clean(kmsg);
	ksft_test_result(ok, "the reloaded module runs a churn case clean (%d)\n", ret);
}

int main(void)
{
	const char *mod = getenv("MCS_MODULE");
	int i, ret;

	ksft_print_header();
	if (!mod || access(mod, R_OK))
		ksft_exit_skip("MCS_MODULE does not name a readable memcg_stock.ko\n");
	snprintf(module_path, sizeof(module_path), "%s", mod);
	if (!module_loaded("memcg_stock"))
		ksft_exit_fail_msg("memcg_stock is not loaded\n");
	mcs_prepare();
	kmsg = mcs_kmsg_open();
	if (kmsg < 0)
		ksft_print_msg("no /dev/kmsg: kernel log not checked\n");

	ksft_set_plan(6);
	find_deps();
	ret = 0;
	for (i = 0; i < nr_deps; i++) {
		int r = unload(deps[i]);

		ksft_print_msg("unloading %s, which uses memcg_stock: %s\n", deps[i],
			       r ? strerror(-r) : "ok");
		ret |= r;
	}
	ksft_test_result(!ret && !module_loaded("memcg_stock_test"),
			 "modules using memcg_stock unloaded (%d)\n", nr_deps);

	test_unload_during("1");
	test_unload_during("hotplug");
	test_works_after();
	restore();
	ksft_finished();
}
