// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs "selftest": write the name of a self-check ("page_counter",
 * "stock", "all" for those two, "nmi" or "isolation") to run it; read to
 * get the report of the last run.  A check that cannot run on this kernel
 * or machine (no NMI source, no isolated CPU) succeeds with a "SKIP" line
 * that says why.
 * A write returns -EINVAL for an unknown name, -EBUSY while a stress run,
 * a benchmark or another self-check is in progress, -ENOMEM when a check
 * could not allocate what it needs, and -EIO when a check fails, so that
 * `echo all > selftest` alone tells the verdict.
 *
 * The file also owns the harness claim: the stress harness, the benchmark,
 * the self-checks and config writes exclude each other (mcs_harness_claim()).
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/seq_buf.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "harness.h"

#define SELFTEST_LOG_SIZE	4096
#define SELFTEST_CMD_MAX	32

static DEFINE_MUTEX(selftest_mutex);
static char *selftest_log;

static atomic_t harness_user = ATOMIC_INIT(MCS_USER_NONE);

/**
 * mcs_harness_claim() - become the one user of the debugfs harness
 * @user: who claims
 *
 * Stress runs, benchmarks, self-checks and config writes all switch the
 * stock mode or check global counters, so they exclude each other.  Any
 * context; never waits.
 *
 * Return: 0, or -EBUSY when another user holds the harness.
 */
int mcs_harness_claim(enum mcs_harness_user user)
{
	return atomic_cmpxchg(&harness_user, MCS_USER_NONE, user) == MCS_USER_NONE ? 0 : -EBUSY;
}

/**
 * mcs_harness_claim_write() - mcs_harness_claim() for a debugfs write
 * @in: the write that claims
 * @user: who claims
 *
 * A refusal is recorded in error_log, with the user found holding the
 * harness.
 *
 * Return: 0, or -EBUSY.
 */
int mcs_harness_claim_write(struct mcs_input *in, enum mcs_harness_user user)
{
	int old = atomic_cmpxchg(&harness_user, MCS_USER_NONE, user);

	if (old == MCS_USER_NONE)
		return 0;
	return mcs_input_error(in, mcs_error_busy(old), NULL, -EBUSY);
}

/**
 * mcs_harness_release() - end a claim
 * @user: who claimed
 */
void mcs_harness_release(enum mcs_harness_user user)
{
	WARN_ON_ONCE(atomic_cmpxchg(&harness_user, user, MCS_USER_NONE) != user);
}

enum { CHECK_PAGE_COUNTER, CHECK_STOCK, CHECK_ALL, CHECK_NMI, CHECK_ISOLATION };

static const char * const selftest_names[] = {
	[CHECK_PAGE_COUNTER] = "page_counter", [CHECK_STOCK] = "stock", [CHECK_ALL] = "all",
	[CHECK_NMI] = "nmi", [CHECK_ISOLATION] = "isolation",
};

/*
 * The stock check looks at the decoupled stocks; in another mode it runs
 * with the decoupled stocks for its duration and puts the mode back.
 */
static int selftest_stock(struct seq_buf *log)
{
	enum mcs_stock_mode mode = mcs_stock_get_mode();
	int ret;

	if (mode != MCS_MODE_DECOUPLED) {
		seq_buf_printf(log, "stock: mode %s: checking the decoupled stocks\n",
			       mcs_stock_mode_name(mode));
		mcs_stock_set_bench_mode(MCS_MODE_DECOUPLED);
	}
	ret = mcs_selfcheck_stock(log);
	/* the mode found may be one mcs_stock_set_mode() refuses (coupled-noirq) */
	if (mode != MCS_MODE_DECOUPLED)
		mcs_stock_set_bench_mode(mode);
	return ret;
}

static ssize_t selftest_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	struct mcs_input in;
	struct seq_buf log;
	int which, ret = 0;

	ret = mcs_input_copy(&in, "selftest", ubuf, count, SELFTEST_CMD_MAX, false);
	if (ret)
		return ret;
	which = mcs_input_match(&in, in.buf, selftest_names, ARRAY_SIZE(selftest_names));
	if (which >= 0)
		ret = mcs_harness_claim_write(&in, MCS_USER_SELFTEST);
	if (which < 0 || ret)
		goto out;
	mutex_lock(&selftest_mutex);
	seq_buf_init(&log, selftest_log, SELFTEST_LOG_SIZE);
	if (which == CHECK_NMI)
		ret = mcs_selfcheck_nmi(&log);
	else if (which == CHECK_ISOLATION)
		ret = mcs_selfcheck_isolation(&log);
	if (which == CHECK_PAGE_COUNTER || which == CHECK_ALL)
		ret = mcs_selfcheck_page_counter(&log);
	if ((which == CHECK_STOCK || which == CHECK_ALL) && !ret)
		ret = selftest_stock(&log);
	/* seq_buf leaves room for the terminator */
	selftest_log[min_t(size_t, seq_buf_used(&log), SELFTEST_LOG_SIZE - 1)] = '\0';
	mutex_unlock(&selftest_mutex);
	mcs_harness_release(MCS_USER_SELFTEST);

	/* a check that could not run says why (-ENOMEM); a failed one is -EIO */
	if (ret)
		ret = mcs_input_error(&in, MCS_ERR_FAILED, NULL, ret == -ENOMEM ? ret : -EIO);
out:
	mcs_input_free(&in);
	if (which < 0)
		return which;
	return ret ?: count;
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

/**
 * mcs_selftest_file_init() - allocate the log of the debugfs file "selftest"
 *
 * The file itself comes later, from mcs_selftest_file_create(), once
 * module init can no longer fail (module.c says why).
 *
 * Return: 0, or -ENOMEM.
 */
int mcs_selftest_file_init(void)
{
	selftest_log = kzalloc(SELFTEST_LOG_SIZE, GFP_KERNEL);
	return selftest_log ? 0 : -ENOMEM;
}

/**
 * mcs_selftest_file_create() - create the debugfs file "selftest"
 * @dir: the module's debugfs directory
 */
void mcs_selftest_file_create(struct dentry *dir)
{
	debugfs_create_file("selftest", 0600, dir, NULL, &selftest_fops);
}

/**
 * mcs_selftest_file_exit() - free what mcs_selftest_file_init() allocated
 *
 * Only once the file is gone: removing the directory waits for its
 * readers and writers.
 */
void mcs_selftest_file_exit(void)
{
	kfree(selftest_log);
	selftest_log = NULL;
}
