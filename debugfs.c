// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs "selftest": write the name of a self-check ("page_counter",
 * "stock" or "all") to run it; read to get the report of the last run.
 * A write returns -EINVAL for an unknown name and -EIO when a check fails,
 * so that `echo all > selftest` alone tells the verdict.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/seq_buf.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "mcs_internal.h"

#define SELFTEST_LOG_SIZE	4096
#define SELFTEST_CMD_MAX	32

static DEFINE_MUTEX(selftest_mutex);
static char *selftest_log;

static ssize_t selftest_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	char cmd[SELFTEST_CMD_MAX];
	struct seq_buf log;
	const char *name;
	int ret = 0;

	if (count == 0 || count >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, count))
		return -EFAULT;
	cmd[count] = '\0';
	name = strim(cmd);

	if (strcmp(name, "page_counter") && strcmp(name, "stock") &&
	    strcmp(name, "all")) {
		pr_warn("memcg_stock: selftest: unknown check '%*pE'\n", (int)strlen(name), name);
		return -EINVAL;
	}

	mutex_lock(&selftest_mutex);
	seq_buf_init(&log, selftest_log, SELFTEST_LOG_SIZE);
	if (!strcmp(name, "page_counter") || !strcmp(name, "all"))
		ret |= mcs_selfcheck_page_counter(&log);
	if (!strcmp(name, "stock") || !strcmp(name, "all"))
		ret |= mcs_selfcheck_stock(&log);
	/* seq_buf leaves room for the terminator */
	selftest_log[min_t(size_t, seq_buf_used(&log), SELFTEST_LOG_SIZE - 1)] = '\0';
	mutex_unlock(&selftest_mutex);

	return ret ? -EIO : count;
}

static ssize_t selftest_read(struct file *file, char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&selftest_mutex);
	ret = simple_read_from_buffer(ubuf, count, ppos, selftest_log,
				      strlen(selftest_log));
	mutex_unlock(&selftest_mutex);
	return ret;
}

static const struct file_operations selftest_fops = {
	.owner = THIS_MODULE,
	.read = selftest_read,
	.write = selftest_write,
	.llseek = default_llseek,
};

int mcs_debugfs_init(void)
{
	int ret;

	ret = mcs_stress_init();
	if (ret)
		return ret;
	selftest_log = kzalloc(SELFTEST_LOG_SIZE, GFP_KERNEL);
	if (!selftest_log) {
		mcs_stress_exit();
		return -ENOMEM;
	}
	debugfs_create_file("selftest", 0600, mcs_debugfs_root, NULL, &selftest_fops);
	return 0;
}

void mcs_debugfs_exit(void)
{
	/* A stress run must end before the module tears down what it charges. */
	mcs_stress_exit();
	/* Removing the directory waits for readers and writers to leave. */
	debugfs_remove(mcs_debugfs_root);
	mcs_debugfs_root = NULL;
	kfree(selftest_log);
}
