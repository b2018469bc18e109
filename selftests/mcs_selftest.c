// SPDX-License-Identifier: GPL-2.0
/*
 * Basic kselftest for memcg_stock: the debugfs directory is there, the
 * in-module self-checks pass when triggered, and the trigger rejects bad
 * input with a clean error.  Expects the module to be loaded.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest.h"

#define DIR_PATH	"/sys/kernel/debug/memcg_stock"

static int write_file(const char *name, const char *buf, size_t len)
{
	char path[256];
	ssize_t ret;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", DIR_PATH, name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	ret = write(fd, buf, len);
	ret = ret < 0 ? -errno : 0;
	close(fd);
	return ret;
}

static int read_file(const char *name, char *buf, size_t size)
{
	char path[256];
	ssize_t n, total = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", DIR_PATH, name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf + total, size - 1 - total)) > 0)
		total += n;
	close(fd);
	if (n < 0)
		return -errno;
	buf[total] = '\0';
	return 0;
}

static void check_selftest(const char *which, const char *verdict)
{
	char buf[4096];
	int ret;

	ret = write_file("selftest", which, strlen(which));
	if (ret) {
		ksft_test_result_fail("selftest %s: write returned %d\n", which, ret);
		if (!read_file("selftest", buf, sizeof(buf)))
			ksft_print_msg("%s", buf);
		return;
	}
	ret = read_file("selftest", buf, sizeof(buf));
	ksft_test_result(!ret && strstr(buf, verdict), "selftest %s: %s\n", which, verdict);
}

/*
 * A context check (nmi, isolation): PASS, or SKIP with the module's reason
 * when this kernel or guest cannot run it (no NMI source, no isolated CPU).
 */
static void check_selftest_or_skip(const char *which)
{
	char buf[4096], pass[64], skip[64], *why;
	int ret;

	snprintf(pass, sizeof(pass), "%s: PASS", which);
	snprintf(skip, sizeof(skip), "%s: SKIP ", which);
	ret = write_file("selftest", which, strlen(which));
	if (ret || read_file("selftest", buf, sizeof(buf))) {
		ksft_test_result_fail("selftest %s: write returned %d\n", which, ret);
		if (!read_file("selftest", buf, sizeof(buf)))
			ksft_print_msg("%s", buf);
		return;
	}
	why = strstr(buf, skip);
	if (why) {
		why[strcspn(why, "\n")] = '\0';
		ksft_test_result_skip("selftest %s: %s\n", which, why + strlen(skip));
		return;
	}
	if (!strstr(buf, pass))
		ksft_print_msg("%s", buf);
	ksft_test_result(!!strstr(buf, pass), "selftest %s: PASS\n", which);
}

static void check_rejects(const char *what, const char *buf, size_t len, int expect)
{
	int ret = write_file("selftest", buf, len);

	ksft_test_result(ret == expect, "selftest rejects %s (%d, want %d)\n",
			 what, ret, expect);
}

/*
 * The self-check works in every stock mode and leaves the mode as it was
 * (it used to fail with EIO after config mode=coupled or mode=none).
 */
static void check_selftest_in_mode(const char *mode)
{
	char line[64], buf[4096];
	int ret, kept;

	snprintf(line, sizeof(line), "mode=%s\n", mode);
	ret = write_file("config", line, strlen(line));
	if (ret) {
		ksft_test_result_fail("selftest in mode %s: config write returned %d\n",
				      mode, ret);
		return;
	}
	ret = write_file("selftest", "stock\n", 6);
	snprintf(line, sizeof(line), "mode=%s\n", mode);
	kept = !read_file("config", buf, sizeof(buf)) && strstr(buf, line);
	write_file("config", "mode=decoupled\n", 15);
	ksft_test_result(!ret && kept, "selftest in mode %s: write %d, mode kept %d\n",
			 mode, ret, kept);
}

int main(void)
{
	char big[200], buf[4096];
	struct stat st;

	ksft_print_header();
	ksft_set_plan(15);

	if (stat(DIR_PATH, &st) || !S_ISDIR(st.st_mode))
		ksft_exit_fail_msg("%s missing: is memcg_stock loaded and debugfs mounted?\n",
				   DIR_PATH);
	ksft_test_result_pass("debugfs directory present\n");

	ksft_test_result(!read_file("slab", buf, sizeof(buf)) &&
			 strstr(buf, "mcs_memcg_per_node") && strstr(buf, "saved") &&
			 strstr(buf, "per_memcg_per_cpu counter_stock=4 "),
			 "slab footprint report\n");

	check_selftest("page_counter\n", "page_counter: PASS");
	check_selftest("stock\n", "stock: PASS");
	check_selftest("all", "stock: PASS");
	check_selftest_or_skip("nmi");
	check_selftest_or_skip("isolation");

	memset(big, 'a', sizeof(big));
	check_rejects("unknown name", "bogus\n", 6, -EINVAL);
	/* the VFS may answer an empty write itself: 0 is fine, success is not */
	ksft_test_result(write_file("selftest", "", 0) <= 0, "selftest ignores empty write\n");
	check_rejects("overlong write", big, sizeof(big), -EINVAL);
	check_rejects("binary garbage", "\x01\xff\x00page_counter", 15, -EINVAL);
	check_rejects("text after a NUL", "stock\0garbage", 13, -EINVAL);
	check_rejects("trailing blank", "stock\x20\n", 7, -EINVAL);

	check_selftest_in_mode("coupled");
	check_selftest_in_mode("none");

	ksft_finished();
}
