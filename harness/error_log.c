// SPDX-License-Identifier: GPL-2.0
/*
 * error_log: why the last debugfs writes were refused, in a ring of
 * MCS_ERROR_LOG_LEN entries in module memory, as tracefs's error_log does
 * it for trace commands.  A refused write records one entry and returns its
 * errno; it adds nothing to the kernel log, so that no amount of bad input
 * can flood the console.
 *
 * An entry: the time, the file written, a message from a fixed table
 * (error_messages[]), the byte offset of the error in the write, the
 * errno, and up to MCS_ERROR_EXCERPT bytes of the line that holds the
 * error, kept raw and escaped when read.  Reading the file prints one line
 * per entry, oldest first; writing anything to it empties the ring.
 *
 * Context: writers are debugfs handlers (task context); the ring's lock is
 * a spinlock, held only to copy an entry in or the ring out, and recording
 * allocates nothing.
 */
#include <linux/debugfs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/sched/clock.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "harness.h"

static const char * const error_messages[NR_MCS_ERRORS] = {
	[MCS_ERR_SIZE] = "write empty or too long",
	[MCS_ERR_COPY] = "cannot copy the write from user memory",
	[MCS_ERR_BYTE] = "byte not printable ASCII",
	[MCS_ERR_LINES] = "one line expected",
	[MCS_ERR_EMPTY_LINE] = "empty line",
	[MCS_ERR_LONG_LINE] = "line too long",
	[MCS_ERR_EDGE_BLANK] = "blank at the start or end of a line",
	[MCS_ERR_DOUBLE_BLANK] = "two blanks in a row",
	[MCS_ERR_KV] = "expected key=value",
	[MCS_ERR_KEY_CHAR] = "key of other than a-z, 0-9 and _",
	[MCS_ERR_KEY] = "unknown key",
	[MCS_ERR_TWICE] = "key given twice",
	[MCS_ERR_NUMBER] = "not a plain decimal number",
	[MCS_ERR_RANGE] = "number out of the key's range",
	[MCS_ERR_BOOL] = "expected 0 or 1",
	[MCS_ERR_VALUE] = "unknown value",
	[MCS_ERR_COMMAND] = "unknown command: expected 1, all, stop or a case name",
	[MCS_ERR_ONE_COMMAND] = "one command expected",
	[MCS_ERR_BUSY_STRESS] = "busy: a stress run is in progress",
	[MCS_ERR_BUSY_BENCH] = "busy: a benchmark is in progress",
	[MCS_ERR_BUSY_SELFTEST] = "busy: a self-check is in progress",
	[MCS_ERR_BUSY_CONFIG] = "busy: a config write is in progress",
	[MCS_ERR_MODE] = "stock mode switch refused",
	[MCS_ERR_NEEDS_HARDIRQ] = "case needs hardirq context, but hardirq_us=0",
	[MCS_ERR_NEEDS_DRAIN] = "case needs the drainer, but drain_ms=0",
	[MCS_ERR_NEEDS_NMI] = "case needs NMI context, but nmi_us=0",
	[MCS_ERR_NO_NMI] = "case needs NMI context, but the kernel has no NMI source",
	[MCS_ERR_DRAIN_LOAD] = "workload=drain takes no hardirq or nmi load",
	[MCS_ERR_ALONE] =
		"workload takes memcgs=1, no hardirq or nmi (cross: 2 clients or more; limit: no shared)",
	[MCS_ERR_TOO_MANY] = "clients x memcgs too many",
	[MCS_ERR_REPLAY_ONLY] = "passes= applies to workload=replay only",
	[MCS_ERR_PARAM_ORDER] = "design parameter crosses the one it must stay below",
	[MCS_ERR_UNLOADING] = "module unloading",
	[MCS_ERR_FAILED] = "accepted, but failed: see the errno",
	[MCS_ERR_TRACE] = "trace refused: trace_load reads why",
	[MCS_ERR_TRACE_BUSY] = "busy: another writer is loading a trace",
	[MCS_ERR_REPLAY_BUSY] = "busy: a replay is running",
	[MCS_ERR_NO_TRACE] = "workload=replay needs a trace loaded in trace_load",
	[MCS_ERR_TRACE_CPU] = "a CPU of the trace is not online",
	[MCS_ERR_REC_COMMAND] = "expected start workload=NAME [events=N] [note=TEXT] or stop",
	[MCS_ERR_REC_WORKLOAD] = "start needs workload=NAME",
	[MCS_ERR_REC_TEXT] = "name or note too long",
	[MCS_ERR_REC_BUSY] = "busy: a recording is in progress",
	[MCS_ERR_REC_NONE] = "recording needs kprobes, memcg and x86-64; this kernel lacks one",
	[MCS_ERR_REC_POINT] = "the kernel's page charge point (try_charge_memcg) cannot be probed",
	[MCS_ERR_KCOST_PAIR] = "expected pair=pc|obj|skmem [loops=N]",
	[MCS_ERR_KCOST_UNAVAILABLE] = "the kernel's pair cannot be run here; a read says why",
	[MCS_ERR_KCOST_MEMCG] =
		"the pair would charge the root memcg or none (skmem: the mm owner's)",
};

/**
 * mcs_error_message() - the message of an error kind
 * @kind: the kind
 *
 * Return: its text in the fixed table, or "?" for no kind of the table.
 */
const char *mcs_error_message(enum mcs_error_kind kind)
{
	return (unsigned int)kind < NR_MCS_ERRORS ? error_messages[kind] : "?";
}
EXPORT_SYMBOL_NS_GPL(mcs_error_message, MCS_NS);

static struct mcs_error_ring error_log = {
	.lock = __SPIN_LOCK_UNLOCKED(error_log.lock),
};

/**
 * mcs_error_ring_init() - an empty ring
 * @ring: the ring
 */
void mcs_error_ring_init(struct mcs_error_ring *ring)
{
	memset(ring, 0, sizeof(*ring));
	spin_lock_init(&ring->lock);
}
EXPORT_SYMBOL_NS_GPL(mcs_error_ring_init, MCS_NS);

/**
 * mcs_error_ring_add() - record an error, overwriting the oldest if full
 * @ring: the ring
 * @file: the debugfs file written
 * @kind: what was wrong
 * @err: the errno the write returns (negative)
 * @pos: byte offset of the error in the write
 * @line: the line of the write that holds the error, as written
 * @len: its length; the first MCS_ERROR_EXCERPT bytes are kept
 *
 * Task context; allocates nothing.
 */
void mcs_error_ring_add(struct mcs_error_ring *ring, const char *file,
			enum mcs_error_kind kind, int err, size_t pos,
			const char *line, size_t len)
{
	struct mcs_error_entry *e;
	u64 now = local_clock();

	spin_lock(&ring->lock);
	e = &ring->entry[ring->added % MCS_ERROR_LOG_LEN];
	ring->added++;
	/* the count stays within one lap of the ring, never wraps to 0 */
	if (ring->added == 2 * MCS_ERROR_LOG_LEN)
		ring->added = MCS_ERROR_LOG_LEN;
	e->ns = now;
	e->kind = kind;
	e->err = err;
	e->pos = min_t(size_t, pos, U32_MAX);
	e->len = min_t(size_t, len, MCS_ERROR_EXCERPT);
	e->cut = len > MCS_ERROR_EXCERPT;
	strscpy(e->file, file, sizeof(e->file));
	memcpy(e->excerpt, line, e->len);
	spin_unlock(&ring->lock);
}
EXPORT_SYMBOL_NS_GPL(mcs_error_ring_add, MCS_NS);

/**
 * mcs_error_ring_read() - the entries of a ring, oldest first
 * @ring: the ring
 * @out: room for MCS_ERROR_LOG_LEN entries
 *
 * Return: the number of entries copied to @out.
 */
unsigned int mcs_error_ring_read(struct mcs_error_ring *ring,
				 struct mcs_error_entry *out)
{
	unsigned int i, n, first;

	spin_lock(&ring->lock);
	n = min_t(unsigned int, ring->added, MCS_ERROR_LOG_LEN);
	first = ring->added - n;
	for (i = 0; i < n; i++)
		out[i] = ring->entry[(first + i) % MCS_ERROR_LOG_LEN];
	spin_unlock(&ring->lock);
	return n;
}
EXPORT_SYMBOL_NS_GPL(mcs_error_ring_read, MCS_NS);

/**
 * mcs_error_ring_clear() - forget every entry of a ring
 * @ring: the ring
 */
void mcs_error_ring_clear(struct mcs_error_ring *ring)
{
	spin_lock(&ring->lock);
	ring->added = 0;
	spin_unlock(&ring->lock);
}
EXPORT_SYMBOL_NS_GPL(mcs_error_ring_clear, MCS_NS);

/**
 * mcs_error_excerpt() - an excerpt of input, quoted and escaped
 * @buf: the output, NUL-terminated
 * @size: its size; MCS_ERROR_EXCERPT_ESC holds any excerpt
 * @raw: the bytes as written
 * @len: how many, at most MCS_ERROR_EXCERPT
 * @cut: the input went on: "..." follows the closing quote
 *
 * Printable ASCII stays as it is but for the backslash and the double
 * quote, written \\ and \"; every other byte is written \xNN (lower-case
 * hex), so that the excerpt fits on one line and reads back unambiguously.
 *
 * Return: the length of the text in @buf.
 */
size_t mcs_error_excerpt(char *buf, size_t size, const char *raw, size_t len,
			 bool cut)
{
	size_t i, n;

	if (!size)
		return 0;
	n = scnprintf(buf, size, "\"");
	for (i = 0; i < min_t(size_t, len, MCS_ERROR_EXCERPT); i++) {
		unsigned char c = raw[i];

		if (c == '\\' || c == '"')
			n += scnprintf(buf + n, size - n, "\\%c", c);
		else if (c < 0x20 || c > 0x7e)
			n += scnprintf(buf + n, size - n, "\\x%02x", c);
		else
			n += scnprintf(buf + n, size - n, "%c", c);
	}
	n += scnprintf(buf + n, size - n, "\"%s", cut ? "..." : "");
	return n;
}
EXPORT_SYMBOL_NS_GPL(mcs_error_excerpt, MCS_NS);

/**
 * mcs_error_entry_format() - one entry as a line of the error_log file
 * @e: the entry
 * @buf: the output, NUL-terminated
 * @size: its size
 *
 * The line: "[seconds.microseconds] file: message (errno) at byte POS:
 * EXCERPT" and a newline, EXCERPT as mcs_error_excerpt() writes it.
 *
 * Return: the length of the line.
 */
int mcs_error_entry_format(const struct mcs_error_entry *e, char *buf, size_t size)
{
	char excerpt[MCS_ERROR_EXCERPT_ESC];

	mcs_error_excerpt(excerpt, sizeof(excerpt), e->excerpt, e->len, e->cut);
	return scnprintf(buf, size, "[%5llu.%06llu] %s: %s (%d) at byte %u: %s\n",
			 e->ns / NSEC_PER_SEC, (e->ns % NSEC_PER_SEC) / NSEC_PER_USEC,
			 e->file, mcs_error_message(e->kind), e->err, e->pos, excerpt);
}
EXPORT_SYMBOL_NS_GPL(mcs_error_entry_format, MCS_NS);

/**
 * mcs_error_record() - record why a debugfs write was refused
 * @file: the debugfs file written
 * @kind: what was wrong
 * @err: the errno the write returns (negative)
 * @pos: byte offset of the error in the write
 * @line: the line of the write that holds the error, as written
 * @len: its length
 *
 * Return: @err, for "return mcs_error_record(...);".
 */
int mcs_error_record(const char *file, enum mcs_error_kind kind, int err,
		     size_t pos, const char *line, size_t len)
{
	mcs_error_ring_add(&error_log, file, kind, err, pos, line, len);
	return err;
}

/**
 * mcs_error_busy() - the error kind of a harness claim refused
 * @holder: the user that holds the harness (enum mcs_harness_user)
 *
 * Return: the kind that names @holder.
 */
enum mcs_error_kind mcs_error_busy(int holder)
{
	switch (holder) {
	case MCS_USER_BENCH:
		return MCS_ERR_BUSY_BENCH;
	case MCS_USER_SELFTEST:
		return MCS_ERR_BUSY_SELFTEST;
	case MCS_USER_CONFIG:
		return MCS_ERR_BUSY_CONFIG;
	default:
		return MCS_ERR_BUSY_STRESS;
	}
}

/* The ring copied out first: printing may not hold the spinlock. */
static int error_log_show(struct seq_file *m, void *v)
{
	struct mcs_error_entry *e;
	char *line;
	unsigned int i, n;

	e = kmalloc_array(MCS_ERROR_LOG_LEN, sizeof(*e), GFP_KERNEL);
	line = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!e || !line) {
		kfree(e);
		kfree(line);
		return -ENOMEM;
	}
	n = mcs_error_ring_read(&error_log, e);
	for (i = 0; i < n; i++) {
		mcs_error_entry_format(&e[i], line, PAGE_SIZE);
		seq_puts(m, line);
	}
	kfree(line);
	kfree(e);
	return 0;
}

static int error_log_open(struct inode *inode, struct file *file)
{
	return single_open(file, error_log_show, NULL);
}

/* Any write empties the ring. */
static ssize_t error_log_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	mcs_error_ring_clear(&error_log);
	return count;
}

static const struct file_operations error_log_fops = {
	.owner = THIS_MODULE,
	.open = error_log_open,
	.read = seq_read,
	.write = error_log_write,
	.llseek = seq_lseek,
	.release = single_release,
};

/**
 * mcs_error_log_init() - create the debugfs file "error_log"
 * @dir: the module's debugfs directory
 */
void mcs_error_log_init(struct dentry *dir)
{
	debugfs_create_file("error_log", 0600, dir, NULL, &error_log_fops);
}
