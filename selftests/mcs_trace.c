// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: memcg_stock's tracepoints are in tracefs and fire.  Enables
 * two events, makes the in-module stock self-check charge and drain, and
 * looks for the events in the trace.  Skips (with the reason) on a kernel
 * without event tracing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest.h"

static const char * const events[] = {
	"mcs_stock_evict", "mcs_stock_drain", "mcs_trylock_fail",
	"mcs_charge_slowpath", "mcs_limit_refusal",
};

static char tracefs[64];

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_TRUNC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	close(fd);
	return n < 0 ? -errno : 0;
}

static int set_event(const char *name, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/events/memcg_stock/%s/enable", tracefs, name);
	return write_str(path, val);
}

static int find_tracefs(void)
{
	struct stat st;

	if (!stat("/sys/kernel/tracing/events", &st)) {
		snprintf(tracefs, sizeof(tracefs), "/sys/kernel/tracing");
		return 0;
	}
	if (!stat("/sys/kernel/tracing", &st) &&
	    !mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL)) {
		snprintf(tracefs, sizeof(tracefs), "/sys/kernel/tracing");
		return 0;
	}
	if (!stat("/sys/kernel/debug/tracing/events", &st)) {
		snprintf(tracefs, sizeof(tracefs), "/sys/kernel/debug/tracing");
		return 0;
	}
	return -1;
}

int main(void)
{
	char path[256], *buf;
	struct stat st;
	size_t total = 0;
	ssize_t n;
	int fd, i;

	ksft_print_header();
	if (find_tracefs())
		ksft_exit_skip("no tracefs: kernel without tracing (UML's test kernel has none)\n");
	snprintf(path, sizeof(path), "%s/events/memcg_stock", tracefs);
	if (stat(path, &st))
		ksft_exit_skip("%s missing: kernel without event tracing\n", path);

	ksft_set_plan(ARRAY_SIZE(events) + 2);
	for (i = 0; i < (int)ARRAY_SIZE(events); i++) {
		snprintf(path, sizeof(path), "%s/events/memcg_stock/%s/format", tracefs,
			 events[i]);
		ksft_test_result(!stat(path, &st), "event %s present\n", events[i]);
	}

	snprintf(path, sizeof(path), "%s/trace", tracefs);
	write_str(path, "");
	set_event("mcs_stock_drain", "1");
	set_event("mcs_charge_slowpath", "1");
	/* the stock self-check charges (slow path) and drains every CPU */
	if (write_str("/sys/kernel/debug/memcg_stock/selftest", "stock"))
		ksft_print_msg("stock self-check failed\n");
	set_event("mcs_stock_drain", "0");
	set_event("mcs_charge_slowpath", "0");

	buf = calloc(1, 1 << 20);
	if (!buf)
		ksft_exit_fail_msg("no memory\n");
	fd = open(path, O_RDONLY);
	while (fd >= 0 && total < (1 << 20) - 1 &&
	       (n = read(fd, buf + total, (1 << 20) - 1 - total)) > 0)
		total += n;
	if (fd >= 0)
		close(fd);
	ksft_test_result(!!strstr(buf, "mcs_charge_slowpath:"),
			 "enabled mcs_charge_slowpath fires\n");
	ksft_test_result(strstr(buf, "mcs_stock_drain:") && strstr(buf, "cause=drain-all"),
			 "enabled mcs_stock_drain fires with its cause\n");
	if (!strstr(buf, "mcs_stock_drain:"))
		ksft_print_msg("trace had %zu bytes\n", total);
	free(buf);
	ksft_finished();
}
