// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: the charge-stream recorder (debugfs "record") probes the
 * running kernel's own charge points.  A recording is started and stopped
 * at once: nothing needs to run, the test is about where the probes sit.
 * Its status line must list try_charge_memcg among its points=, and every
 * point it lists must be a function of the kernel itself in
 * /proc/kallsyms, not only one of a module: this module's stocks have
 * functions of upstream's names (__refill_obj_stock, __account_obj_stock),
 * and a kernel that lacks such a name must leave that point out rather
 * than probe the module's.  A kernel without kprobes, memcg or x86-64
 * refuses the start (EOPNOTSUPP): skipped, with the reason.
 */
#include "stress_lib.h"

#define KALLSYMS_LINE	512

/* Is @name a symbol of the kernel itself (a line without a [module])? */
static int kernel_symbol(const char *name)
{
	char line[KALLSYMS_LINE], sym[KALLSYMS_LINE];
	FILE *f = fopen("/proc/kallsyms", "r");
	int found = 0;

	if (!f)
		return -errno;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%*s %*s %511s", sym) == 1 && !strcmp(sym, name) &&
			!strchr(line, '[');
	fclose(f);
	return found;
}

int main(void)
{
	char status[512], points[300], *name, *save = NULL;
	int ret, bad = 0, n = 0;

	ksft_print_header();
	ksft_set_plan(2);
	if (access(MCS_DIR "/record", W_OK))
		ksft_exit_fail_msg("%s/record: %s\n", MCS_DIR, strerror(errno));

	ret = mcs_puts("record", "start workload=selftest events=1024");
	if (ret == -EOPNOTSUPP) {
		ksft_test_result_skip("record start: no kprobes, memcg or x86-64 here\n");
		ksft_test_result_skip("record points: no kprobes, memcg or x86-64 here\n");
		ksft_finished();
	}
	if (ret)
		ksft_exit_fail_msg("record start: %s\n", strerror(-ret));
	ret = mcs_read("record", status, sizeof(status)) < 0 ? -EIO : 0;
	mcs_puts("record", "stop");
	if (ret)
		ksft_exit_fail_msg("record status: %s\n", strerror(-ret));
	ksft_print_msg("%s", status);
	if (sscanf(strstr(status, " points=") ?: "", " points=%299s", points) != 1)
		points[0] = '\0';

	ksft_test_result(strstr(status, "state=recording") &&
			 strstr(points, "try_charge_memcg"),
			 "record start: recording, with the page charge point\n");
	for (name = strtok_r(points, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		ret = kernel_symbol(name);
		n++;
		if (ret <= 0) {
			ksft_print_msg("  %s: %s\n", name,
				       ret < 0 ? strerror(-ret) : "not the kernel's own symbol");
			bad++;
		}
	}
	ksft_test_result(n > 0 && !bad, "record points: all %d are the kernel's own functions\n",
			 n);
	ksft_finished();
}
