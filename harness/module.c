// SPDX-License-Identifier: GPL-2.0
/*
 * Module init and exit, and the wiring of the debugfs tree.
 *
 * The mechanism (objects/, stocks/, entry/ and the top-level sources)
 * is set up first and torn down last; the debugfs harness (stress, bench,
 * self-checks, the slab report) hangs below /sys/kernel/debug/memcg_stock
 * and is removed before the mechanism goes.  Nothing of the mechanism
 * calls into the harness.
 */
#include <linux/debugfs.h>
#include <linux/module.h>

#include "harness.h"

static struct dentry *mcs_debugfs_root;

/*
 * The files come last, once nothing can fail.  The kernel frees a module
 * whose init fails whatever references it holds (do_init_module() in
 * kernel/module/main.c): a debugfs file opened meanwhile pins nothing, and
 * its release would later read its file operations from the freed module,
 * or from the next module loaded at the same address.
 */
static void __init mcs_debugfs_create(void)
{
	mcs_debugfs_root = debugfs_create_dir("memcg_stock", NULL);
	mcs_selftest_file_create(mcs_debugfs_root);
	mcs_stress_files_create(mcs_debugfs_root);
	mcs_bench_init(mcs_debugfs_root);
	mcs_slab_report_init(mcs_debugfs_root);
	mcs_kernel_cost_init(mcs_debugfs_root);
	mcs_error_log_init(mcs_debugfs_root);
	mcs_record_init(mcs_debugfs_root);
	mcs_replay_init(mcs_debugfs_root);
	mcs_modes_init(mcs_debugfs_root);
}

static int __init mcs_module_init(void)
{
	int ret;

	ret = mcs_slab_init();
	if (ret)
		return ret;
	ret = mcs_stock_init();
	if (ret)
		goto err_slab;
	ret = mcs_selftest_file_init();
	if (ret)
		goto err_stock;
	ret = mcs_stress_init();
	if (ret)
		goto err_selftest;
	mcs_debugfs_create();
	return 0;

err_selftest:
	mcs_selftest_file_exit();
err_stock:
	mcs_stock_exit();
err_slab:
	mcs_slab_exit();
	return ret;
}

static void __exit mcs_module_exit(void)
{
	/* A stress run must end before the module tears down what it charges. */
	mcs_stress_exit();
	/* Removing the directory waits for readers and writers to leave. */
	debugfs_remove(mcs_debugfs_root);
	mcs_debugfs_root = NULL;
	mcs_record_exit();
	mcs_replay_exit();
	mcs_selftest_file_exit();
	mcs_stock_exit();
	mcs_slab_exit();
}

module_init(mcs_module_init);
module_exit(mcs_module_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("memcg_stock developers");
MODULE_DESCRIPTION("Per-CPU memcg and objcg charge stocks with local_trylock, as a loadable model");
MODULE_VERSION("0.1");
