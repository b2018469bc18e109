// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs "trace_load" and the benchmark's workload=replay: a recorded
 * charge stream (trace_format.h, harness/record.c) pushed through a stock
 * mode's own entry functions (or, with entry=exported, the exported
 * functions, as the benchmark's clients call them), the same order every
 * time.
 *
 *   cat NAME.mcstrace > trace_load        (one trace, any number of writes)
 *   cat trace_load                        (what is loaded, or the last error)
 *   echo "mode=coupled workload=replay" > bench; cat bench
 *
 * Loading: the writes of one open file are taken in order; the header
 * says how long the trace is, and the write that completes it validates
 * the whole trace before anything uses it.  A bad trace is refused with
 * -EINVAL, an error_log entry, and the reason in trace_load's last_error;
 * the trace loaded before stays.  Refused:
 * a wrong magic, version or part size; a length other than the header's
 * (longer: refused at once; shorter: "truncated" when the file is closed);
 * a memcg table out of order (a parent after its child, a wrong depth);
 * an event with an unknown kind, context, source or flag, a memcg index
 * the table lacks, a size out of range, a CPU beyond the recording's or
 * not online here, a CPU's sequence that does not rise, or an uncharge of
 * more than its memcg holds at that point (its opening balance plus its
 * charges so far, less its uncharges).  A second writer while one is
 * loading gets -EBUSY, and so does a load while a replay runs.
 *
 * The replay (mcs_replay_bench(), under the benchmark's harness claim):
 * one memcg below a "replay" parent per memcg of the table, with the same
 * hierarchy; each memcg's opening balance charged first; then one kthread
 * bound to each recorded CPU.  The events run one at a time in the
 * trace's order: the kthread of the event's CPU waits for the global
 * cursor to reach it, runs it, and moves the cursor on.  So two replays of
 * a trace through one design make the same calls in the same order on the
 * same CPUs, and agree on every count.  Contexts: task events run as they
 * are; softirq events under local_bh_disable(); hardirq events with
 * interrupts off (in task context: there is no way to run a recorded
 * stream in a real interrupt and keep its order; on PREEMPT_RT they run as
 * task events).  A charge that could not block in the kernel uses
 * GFP_NOWAIT here.  A recorded refusal charges nothing; a charge the
 * replay's design refuses is counted, and the uncharges after it give back
 * only what its memcg holds.  The memcgs have no limit.
 * At the end each memcg's closing balance is uncharged, the stocks drained,
 * and every memcg must be back at zero with no leftover bytes, or the
 * result says verdict=FAIL.
 *
 * A replay makes passes= passes of the whole stream (default 2), each
 * from drained stocks and the same memcgs; every pass must end with the
 * same counts as the first (agree=1), or verdict=FAIL.  ops= is the events
 * the first pass ran, as its workers counted them, and page_charges= to
 * byte_uncharges= the same per kind.  ns_per_op is the time of the
 * entry-point calls alone (each timed, the cost of reading the clock
 * taken off), per timed event (timed=), each event at its fastest pass; an
 * event that calls no entry (a recorded refusal, an uncharge cut to
 * nothing) is no call of 0 ns and is counted apart (untimed=).  Under qemu
 * -icount shift=0 a call's instructions are the same in every pass but for
 * an interrupt that lands in it, so the fastest pass is the call's own
 * cost.  retimed= counts the events whose passes were more than
 * REPLAY_RETIMED_NS apart (one took an interrupt); an event above
 * REPLAY_INTERRUPTED_NS in every pass is left out (interrupted=).
 * drain_events= counts the events whose call drained a stock slot (the
 * drain counters of the memcgs that the stocks of the event's CPU hold
 * and of the event's own, read before and after it: struct replay_watch)
 * and drain_ns_per_event= is their mean time; unseen_drains= the drains
 * of a pass that no event saw (0 but for a drain from outside the
 * stream); stranded_pages= is what the
 * stocks hold at the end of the stream, before the closing balances go
 * back through them (the replay's usage less what the stream holds: each
 * memcg's pages and its bytes rounded up), stranded_peak= the most they
 * held at the end of any event, and cached_at_end= the stock slots that
 * hold a memcg of the replay then (stock_slots.c, the walk of
 * cached_after_drain=).
 * A fatal signal to the writer stops the replay at its next event (or
 * chunk of an opening balance): what ran is given back with the closing
 * balances and the write returns -EINTR.
 * rmmod waits for a replay (the bench write) to end: removing the debugfs
 * files waits for their writers.
 *
 * Context: task context; sleeps.
 */
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "harness.h"
#include "trace_format.h"

/* CPUs a trace may name */
#define REPLAY_MAX_CPUS		256
/* A replay that makes no progress for this long gives up (verdict=FAIL). */
#define REPLAY_STALL_MS		30000
#define REPLAY_ERR_MAX		160
/*
 * A call timed above this in every pass took an interrupt in each (a timer
 * tick costs thousands of instructions; the slowest call of a replay, a
 * miss up the hierarchy, well under a thousand): left out of ns_per_op and
 * counted as interrupted.
 */
#define REPLAY_INTERRUPTED_NS	20000
/* Two passes whose times of one event are this far apart: one was interrupted. */
#define REPLAY_RETIMED_NS	1000
/* What replay_event() returns for an event that called no entry. */
#define REPLAY_NO_CALL		U64_MAX
/*
 * The replay's memcgs whose drain counters one event may move: those in
 * its CPU's stock slots and its own (struct replay_watch).  More than this
 * (no design has as many slots): every memcg's counters are read.
 */
#define REPLAY_WATCH_MAX	32

struct replay_trace {
	void *blob;
	size_t size;
	const struct mcs_trace_header *h;
	const struct mcs_trace_memcg *memcgs;
	const struct mcs_trace_event *events;
};

/* The loaded trace; a replay holds the lock all along, a load only to install. */
static DEFINE_MUTEX(replay_lock);
static struct replay_trace *replay_loaded;
/*
 * What "trace_load" reads: the loaded trace and the last refusal, under a
 * lock of their own, so that a read never waits for a replay.
 */
static DEFINE_MUTEX(replay_status_lock);
static char replay_info[REPLAY_ERR_MAX] = "trace none";
static char replay_error[REPLAY_ERR_MAX];
/* one writer of trace_load at a time */
static atomic_t replay_loading = ATOMIC_INIT(0);

static __printf(1, 2) int replay_refuse(const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	mutex_lock(&replay_status_lock);
	vsnprintf(replay_error, sizeof(replay_error), fmt, args);
	mutex_unlock(&replay_status_lock);
	va_end(args);
	return mcs_error_record("trace_load", MCS_ERR_TRACE, -EINVAL, 0, NULL, 0);
}

/* A trace_load write refused for other than its content: error_log only. */
static int replay_error_record(enum mcs_error_kind kind, int err)
{
	return mcs_error_record("trace_load", kind, err, 0, NULL, 0);
}

/* The header alone: its fields, and the size of the whole trace. */
static int replay_check_header(const struct mcs_trace_header *h, size_t *total)
{
	if (memcmp(h->magic, MCS_TRACE_MAGIC, sizeof(h->magic)))
		return replay_refuse("not a trace: bad magic");
	if (h->version != MCS_TRACE_VERSION)
		return replay_refuse("trace version %u, this module reads %u",
				     h->version, MCS_TRACE_VERSION);
	if (h->header_size != sizeof(*h) || h->memcg_size != sizeof(struct mcs_trace_memcg) ||
	    h->event_size != sizeof(struct mcs_trace_event))
		return replay_refuse("part sizes %u/%u/%u, expected %zu/%zu/%zu",
				     h->header_size, h->memcg_size, h->event_size, sizeof(*h),
				     sizeof(struct mcs_trace_memcg),
				     sizeof(struct mcs_trace_event));
	if (!h->nr_cpus || h->nr_cpus > REPLAY_MAX_CPUS)
		return replay_refuse("%u CPUs, expected 1..%u", h->nr_cpus, REPLAY_MAX_CPUS);
	if (h->nr_memcgs > MCS_TRACE_MAX_MEMCGS || h->nr_events > MCS_TRACE_MAX_EVENTS)
		return replay_refuse("%u memcgs and %u events, at most %u and %u",
				     h->nr_memcgs, h->nr_events, MCS_TRACE_MAX_MEMCGS,
				     MCS_TRACE_MAX_EVENTS);
	if (!h->nr_events)
		return replay_refuse("no events");
	if (h->page_size != PAGE_SIZE)
		return replay_refuse("recorded with pages of %u bytes, these are %lu",
				     h->page_size, PAGE_SIZE);
	*total = sizeof(*h) + (size_t)h->nr_memcgs * sizeof(struct mcs_trace_memcg) +
		 (size_t)h->nr_events * sizeof(struct mcs_trace_event);
	return 0;
}

static int replay_check_memcgs(const struct mcs_trace_header *h,
			       const struct mcs_trace_memcg *m)
{
	unsigned int i;

	for (i = 0; i < h->nr_memcgs; i++, m++) {
		unsigned int depth = m->parent == MCS_TRACE_NO_PARENT ? 1 :
				     m->parent < i ? m[(int)m->parent - (int)i].depth + 1 : 0;

		if (!depth)
			return replay_refuse("memcg %u: parent %u does not come before it",
					     i, m->parent);
		if (m->depth != depth || depth > MCS_TRACE_MAX_DEPTH)
			return replay_refuse("memcg %u: depth %u, expected %u (at most %u)",
					     i, m->depth, depth, MCS_TRACE_MAX_DEPTH);
		if (m->open_pages > MCS_TRACE_MAX_OPEN_PAGES ||
		    m->open_bytes > MCS_TRACE_MAX_OPEN_BYTES || m->reserved)
			return replay_refuse("memcg %u: opening balance out of range", i);
		if (!memchr(m->name, '\0', sizeof(m->name)))
			return replay_refuse("memcg %u: name not terminated", i);
	}
	return 0;
}

/* One event's fields; its CPU must be online here too. */
static int replay_check_event(const struct mcs_trace_header *h,
			      const struct mcs_trace_event *e, unsigned int i)
{
	unsigned int max = e->kind < MCS_TRACE_BYTE_CHARGE ? MCS_TRACE_MAX_PAGES :
			   MCS_TRACE_MAX_BYTES;

	if (e->kind >= NR_MCS_TRACE_KINDS || (e->flags & ~MCS_TRACE_FLAGS_KNOWN) ||
	    (e->flags & MCS_TRACE_CTX_MASK) == MCS_TRACE_NMI ||
	    (e->flags & MCS_TRACE_SRC_MASK) >> MCS_TRACE_SRC_SHIFT >= NR_MCS_TRACE_SOURCES)
		return replay_refuse("event %u: kind %u flags 0x%x unknown", i, e->kind, e->flags);
	if (e->memcg >= h->nr_memcgs)
		return replay_refuse("event %u: memcg %u, the table has %u", i, e->memcg,
				     h->nr_memcgs);
	if (!e->amount || e->amount > max)
		return replay_refuse("event %u: amount %u out of 1..%u", i, e->amount, max);
	if (e->cpu >= h->nr_cpus || e->cpu >= nr_cpu_ids || !cpu_online(e->cpu))
		return replay_refuse("event %u: CPU %u, recorded on %u, online here: %*pbl",
				     i, e->cpu, h->nr_cpus, cpumask_pr_args(cpu_online_mask));
	return 0;
}

/*
 * Every event, in order: fields, each CPU's sequence, and each memcg's
 * balance (@bal: 2 per memcg, pages and bytes, from the opening balances).
 */
static int replay_check_events(const struct mcs_trace_header *h,
			       const struct mcs_trace_memcg *m,
			       const struct mcs_trace_event *e, s64 *bal, s64 *seq)
{
	unsigned int i;
	int ret;

	for (i = 0; i < h->nr_memcgs; i++) {
		bal[2 * i] = m[i].open_pages;
		bal[2 * i + 1] = m[i].open_bytes;
	}
	for (i = 0; i < h->nr_cpus; i++)
		seq[i] = -1;
	for (i = 0; i < h->nr_events; i++, e++) {
		s64 *b;

		ret = replay_check_event(h, e, i);
		if (ret)
			return ret;
		if ((s64)e->seq <= seq[e->cpu])
			return replay_refuse("event %u: CPU %u's sequence %u after %lld",
					     i, e->cpu, e->seq, seq[e->cpu]);
		seq[e->cpu] = e->seq;
		b = &bal[2 * e->memcg + (e->kind >= MCS_TRACE_BYTE_CHARGE)];
		if (e->kind == MCS_TRACE_PAGE_CHARGE || e->kind == MCS_TRACE_BYTE_CHARGE)
			*b += e->amount;
		if (e->kind != MCS_TRACE_PAGE_UNCHARGE && e->kind != MCS_TRACE_BYTE_UNCHARGE)
			continue;
		if (*b < e->amount)
			return replay_refuse("event %u: uncharge of %u, memcg %u holds %lld",
					     i, e->amount, e->memcg, *b);
		*b -= e->amount;
	}
	return 0;
}

/* The whole trace in @blob of @size bytes; the parts are set on success. */
static int replay_validate(struct replay_trace *t)
{
	const struct mcs_trace_header *h = t->blob;
	size_t total;
	s64 *bal, *seq;
	int ret;

	if (t->size < sizeof(*h))
		return replay_refuse("truncated: %zu bytes, the header alone is %zu",
				     t->size, sizeof(*h));
	ret = replay_check_header(h, &total);
	if (ret)
		return ret;
	if (t->size != total)
		return replay_refuse("%zu bytes, the header says %zu", t->size, total);
	t->h = h;
	t->memcgs = t->blob + sizeof(*h);
	t->events = (const void *)(t->memcgs + h->nr_memcgs);
	ret = replay_check_memcgs(h, t->memcgs);
	if (ret)
		return ret;
	bal = kvcalloc(2 * max(h->nr_memcgs, 1U), sizeof(*bal), GFP_KERNEL);
	seq = kcalloc(h->nr_cpus, sizeof(*seq), GFP_KERNEL);
	ret = -ENOMEM;
	if (bal && seq)
		ret = replay_check_events(h, t->memcgs, t->events, bal, seq);
	kfree(seq);
	kvfree(bal);
	return ret;
}

static void replay_trace_free(struct replay_trace *t)
{
	if (!t)
		return;
	kvfree(t->blob);
	kfree(t);
}

/* A load in progress: the file's private data. */
struct replay_load {
	struct replay_trace *t;
	size_t len;	/* bytes written so far */
	size_t total;	/* 0 until the header is in */
	u8 head[sizeof(struct mcs_trace_header)];
	bool done;
};

static int trace_load_open(struct inode *inode, struct file *file)
{
	struct replay_load *l;

	if (!(file->f_mode & FMODE_WRITE))
		return 0;
	if (atomic_cmpxchg(&replay_loading, 0, 1))
		return replay_error_record(MCS_ERR_TRACE_BUSY, -EBUSY);
	l = kzalloc_obj(*l, GFP_KERNEL);
	if (!l) {
		atomic_set(&replay_loading, 0);
		return replay_error_record(MCS_ERR_COPY, -ENOMEM);
	}
	file->private_data = l;
	return 0;
}

/* The header is in: check it, and make room for the whole trace. */
static int trace_load_begin(struct replay_load *l)
{
	int ret = replay_check_header((void *)l->head, &l->total);

	if (ret)
		return ret;
	l->t = kzalloc_obj(*l->t, GFP_KERNEL);
	if (!l->t)
		return replay_error_record(MCS_ERR_COPY, -ENOMEM);
	l->t->blob = kvmalloc(l->total, GFP_KERNEL);
	if (!l->t->blob) {
		kfree(l->t);
		l->t = NULL;
		return replay_error_record(MCS_ERR_COPY, -ENOMEM);
	}
	l->t->size = l->total;
	memcpy(l->t->blob, l->head, sizeof(l->head));
	return 0;
}

/* The trace is complete: validate, then take the place of the loaded one. */
static int trace_load_finish(struct replay_load *l)
{
	const struct mcs_trace_header *h;
	struct replay_trace *old;
	int ret = replay_validate(l->t);

	/* a bad trace is recorded already (replay_refuse()) */
	if (ret == -ENOMEM)
		return replay_error_record(MCS_ERR_COPY, ret);
	if (ret)
		return ret;
	/* a replay holds the lock from its start to its end */
	if (!mutex_trylock(&replay_lock))
		return replay_error_record(MCS_ERR_REPLAY_BUSY, -EBUSY);
	old = replay_loaded;
	replay_loaded = l->t;
	h = l->t->h;
	mutex_lock(&replay_status_lock);
	snprintf(replay_info, sizeof(replay_info),
		 "trace workload=%.*s release=%.*s cpus=%u memcgs=%u events=%u lost=%llu",
		 MCS_TRACE_NAME_LEN, h->workload, MCS_TRACE_RELEASE_LEN, h->release,
		 h->nr_cpus, h->nr_memcgs, h->nr_events, h->lost);
	replay_error[0] = '\0';
	mutex_unlock(&replay_status_lock);
	mutex_unlock(&replay_lock);
	l->t = NULL;
	replay_trace_free(old);
	return 0;
}

static ssize_t trace_load_write(struct file *file, const char __user *ubuf, size_t count,
				loff_t *ppos)
{
	struct replay_load *l = file->private_data;
	size_t n, hdr = sizeof(l->head), written = 0;
	int ret;

	if (l->done)
		return replay_refuse("write after the trace was complete (or refused)");
	if (*ppos != l->len)
		return replay_refuse("writes must follow each other (offset %lld, expected %zu)",
				     *ppos, l->len);
	if (l->len < hdr && count) {
		n = min(count, hdr - l->len);
		if (copy_from_user(l->head + l->len, ubuf, n))
			return replay_error_record(MCS_ERR_COPY, -EFAULT);
		l->len += n;
		written = n;
		if (l->len == hdr) {
			ret = trace_load_begin(l);
			if (ret) {
				l->done = true;
				return ret;
			}
		}
	}
	n = count - written;
	if (l->len >= hdr && n) {
		if (n > l->total - l->len) {
			l->done = true;
			return replay_refuse("%zu bytes or more, the header says %zu",
					     l->len + n, l->total);
		}
		if (copy_from_user(l->t->blob + l->len, ubuf + written, n))
			return replay_error_record(MCS_ERR_COPY, -EFAULT);
		l->len += n;
		written += n;
	}
	*ppos += written;
	if (l->len >= hdr && l->len == l->total) {
		l->done = true;
		ret = trace_load_finish(l);
		if (ret)
			return ret;
	}
	return written;
}

static int trace_load_release(struct inode *inode, struct file *file)
{
	struct replay_load *l = file->private_data;

	if (!l)
		return 0;
	if (!l->done && l->len)
		replay_refuse("truncated: %zu bytes of %zu%s", l->len, l->total,
			      l->total ? "" : " (no whole header)");
	if (l->t)
		replay_trace_free(l->t);
	kfree(l);
	atomic_set(&replay_loading, 0);
	return 0;
}

static ssize_t trace_load_read(struct file *file, char __user *ubuf, size_t count, loff_t *ppos)
{
	char buf[2 * REPLAY_ERR_MAX + 32];
	int len;

	mutex_lock(&replay_status_lock);
	len = scnprintf(buf, sizeof(buf), "%s", replay_info);
	if (replay_error[0])
		len += scnprintf(buf + len, sizeof(buf) - len, " last_error=\"%s\"", replay_error);
	len += scnprintf(buf + len, sizeof(buf) - len, "\n");
	mutex_unlock(&replay_status_lock);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations trace_load_fops = {
	.owner = THIS_MODULE,
	.open = trace_load_open,
	.read = trace_load_read,
	.write = trace_load_write,
	.release = trace_load_release,
	.llseek = noop_llseek,
};

/* ---- the replay ---------------------------------------------------------- */

/**
 * struct replay_run - one replay of the loaded trace
 * @t: the trace (replay_lock held)
 * @entry: the entries the events go through (harness.h: the mode, or
 *	   MCS_ENTRY_EXPORTED)
 * @parent: the memcg above the trace's
 * @memcg: one per memcg of the trace's table
 * @objcg: theirs
 * @bal: pages and bytes each memcg holds (2 per memcg), in the replay
 * @design: the design of the replay's mode, whose stocks an event may drain
 * @cursor: the next event to run
 * @stop: give up (a stall, or a fatal signal to the writer)
 * @clock_ns: cost of one clock read pair, taken off each timed call
 * @times: each event's time at its fastest pass so far (ns)
 * @drained: the events whose call drained a stock slot (a bit each)
 * @uncalled: the events that called no entry (a recorded refusal, an
 *	      uncharge cut to nothing), a bit each: not timed
 * @kinds: events run in this pass, by enum mcs_trace_kind
 * @drains_seen: drains that the events saw on their CPU in this pass
 * @pass: the pass running, from 0
 * @retimed: events whose passes were more than REPLAY_RETIMED_NS apart
 * @live: pages the replay's memcgs need for what the stream holds at this
 *	  point (each memcg's pages, and its bytes rounded up to pages);
 *	  written by the kthread whose event runs, as @peak
 * @peak: the most pages the stocks held at an event's end in this pass
 * @refusals: charges the design refused
 * @recorded_refusals: refusals in the trace (nothing charged)
 * @short_uncharges: uncharges cut to what a memcg held after a refusal
 * @underflows: mcs_page_counter_underflows() before the replay
 * @misuses: mcs_charge_misuses() before the replay
 * @cached: stock slots still holding the replay's memcgs after the drain
 * @unread: kinds of per-CPU stock that the walk of the slots cannot read
 * @left: kthreads not done yet
 * @done: completed by the last one
 * @why: the error_log kind of a failed replay (mcs_replay_bench())
 */
struct replay_run {
	struct replay_trace *t;
	int entry;
	struct mcs_memcg *parent;
	struct mcs_memcg **memcg;
	struct mcs_objcg **objcg;
	s64 *bal;
	const struct mcs_design *design;
	atomic_t cursor;
	bool stop;
	u64 clock_ns;
	u32 *times;
	unsigned long *drained, *uncalled;
	atomic_long_t kinds[NR_MCS_TRACE_KINDS];
	atomic_long_t drains_seen;
	unsigned int pass;
	atomic_t retimed;
	s64 live, peak;
	atomic_t refusals, recorded_refusals, short_uncharges;
	long underflows, misuses;
	unsigned int cached;
	int unread;
	atomic_t left;
	struct completion done;
	enum mcs_error_kind why;
};

struct replay_worker {
	struct replay_run *run;
	int cpu;
};

/*
 * One event, in its recorded context where the harness can make it,
 * through the entries @m (harness.h: a mode's, or MCS_ENTRY_EXPORTED).
 */
static __always_inline u64 replay_event(int m, struct replay_run *run,
					const struct mcs_trace_event *e)
{
	u8 ctx = e->flags & MCS_TRACE_CTX_MASK;
	gfp_t gfp = (e->flags & MCS_TRACE_NOWAIT) || ctx != MCS_TRACE_TASK ?
		    GFP_NOWAIT : GFP_KERNEL;
	struct mcs_memcg *memcg = run->memcg[e->memcg];
	struct mcs_objcg *objcg = run->objcg[e->memcg];
	s64 *b = &run->bal[2 * e->memcg + (e->kind >= MCS_TRACE_BYTE_CHARGE)];
	unsigned int n = e->amount;
	unsigned long flags = 0;
	u64 t0, t1;
	int ret = 0;

	if (IS_ENABLED(CONFIG_PREEMPT_RT) && ctx == MCS_TRACE_HARDIRQ)
		ctx = MCS_TRACE_TASK;
	if (ctx == MCS_TRACE_SOFTIRQ)
		local_bh_disable();
	else if (ctx == MCS_TRACE_HARDIRQ)
		local_irq_save(flags);
	if (e->kind == MCS_TRACE_PAGE_UNCHARGE || e->kind == MCS_TRACE_BYTE_UNCHARGE) {
		if (*b < n) {
			n = *b;
			atomic_inc(&run->short_uncharges);
		}
		*b -= n;
	}
	/*
	 * The clock is read right before and after the entry call, so that
	 * the window holds the call and its arguments alone (the dispatch on
	 * the kind stays out): an event the design does nothing for (a
	 * recorded refusal, an uncharge cut to nothing) times nothing, and
	 * says so (REPLAY_NO_CALL).
	 */
	t0 = 0;
	t1 = 0;
	switch (e->kind) {
	case MCS_TRACE_PAGE_CHARGE:
		t0 = ktime_get_ns();
		ret = mcs_entry_charge_pages(m, memcg, gfp, n);
		t1 = ktime_get_ns();
		break;
	case MCS_TRACE_BYTE_CHARGE:
		t0 = ktime_get_ns();
		ret = mcs_entry_obj_charge(m, objcg, gfp, n);
		t1 = ktime_get_ns();
		break;
	case MCS_TRACE_PAGE_UNCHARGE:
		if (!n)
			break;
		t0 = ktime_get_ns();
		mcs_entry_uncharge_pages(m, memcg, n);
		t1 = ktime_get_ns();
		break;
	case MCS_TRACE_BYTE_UNCHARGE:
		if (!n)
			break;
		t0 = ktime_get_ns();
		mcs_entry_obj_uncharge(m, objcg, n);
		t1 = ktime_get_ns();
		break;
	default:
		atomic_inc(&run->recorded_refusals);
		break;
	}
	if (e->kind == MCS_TRACE_PAGE_CHARGE || e->kind == MCS_TRACE_BYTE_CHARGE) {
		if (ret)
			atomic_inc(&run->refusals);
		else
			*b += n;
	}
	if (ctx == MCS_TRACE_SOFTIRQ)
		local_bh_enable();
	else if (ctx == MCS_TRACE_HARDIRQ)
		local_irq_restore(flags);
	if (!t0)
		return REPLAY_NO_CALL;
	return t1 - t0 > run->clock_ns ? t1 - t0 - run->clock_ns : 0;
}

/* Wait for the cursor to reach @i; false when the run gave up. */
static bool replay_wait(struct replay_run *run, unsigned int i)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(REPLAY_STALL_MS);
	unsigned int spins = 0;

	while (atomic_read_acquire(&run->cursor) != i) {
		if (READ_ONCE(run->stop))
			return false;
		cpu_relax();
		if (++spins % 256)
			continue;
		cond_resched();
		if (time_after(jiffies, deadline)) {
			mcs_log("replay: stalled before event %u\n", i);
			WRITE_ONCE(run->stop, true);
			return false;
		}
	}
	return true;
}

/* The pages memcg @i of the trace needs for what the stream holds. */
static s64 replay_live_of(struct replay_run *run, unsigned int i)
{
	return run->bal[2 * i] + DIV_ROUND_UP(max_t(s64, run->bal[2 * i + 1], 0), PAGE_SIZE);
}

/* Is @memcg the replay's parent or below it?  Under rcu_read_lock(). */
static bool replay_owns(struct replay_run *run, struct mcs_memcg *memcg)
{
	for (; memcg; memcg = READ_ONCE(memcg->parent))
		if (memcg == run->parent)
			return true;
	return false;
}

/* Stock slots drained on @cpu so far, every replay memcg's (their counters). */
static unsigned long replay_drains_on(struct replay_run *run, int cpu)
{
	unsigned long n = 0;
	unsigned int i;

	for (i = 0; i < run->t->h->nr_memcgs; i++)
		n += local_read(&per_cpu_ptr(run->memcg[i]->stats, cpu)->events[MCS_DRAIN]);
	return n;
}

/*
 * The drain counters that one event on @cpu may move, read before and
 * after it.  A drain empties a slot of a stock of the event's CPU, and
 * counts on the memcg that slot held (stocks/): a memcg the CPU's stocks
 * hold before the event, or the event's own, which the event may put
 * there (its bytes: the objcg's memcg) and a design whose stocks live in
 * the memcgs drains.  A slot of bytes that the event evicts gives its
 * memcg's pages back through the page stock, which may drain that memcg:
 * it was in a slot before, so it is watched too.  So a handful of
 * counters, whatever the number of memcgs, and the stocks of the event's
 * CPU, which its call touches anyway, are what is read before the clock.
 */
struct replay_watch {
	struct replay_run *run;
	int cpu;
	unsigned int n;
	bool all;
	struct mcs_memcg *memcg[REPLAY_WATCH_MAX];
};

static void replay_watch_add(struct replay_watch *wt, struct mcs_memcg *memcg)
{
	unsigned int i;

	for (i = 0; i < wt->n; i++)
		if (wt->memcg[i] == memcg)
			return;
	if (wt->n == REPLAY_WATCH_MAX)
		wt->all = true;
	else
		wt->memcg[wt->n++] = memcg;
}

static void replay_watch_slot(const struct mcs_stock_slot *slot, void *arg)
{
	struct replay_watch *wt = arg;

	/* the trace's memcgs, whose counters the pass adds up (not the parent) */
	if (slot->memcg != wt->run->parent && replay_owns(wt->run, slot->memcg))
		replay_watch_add(wt, slot->memcg);
}

/* The counters to watch for the event of memcg @i of the trace. */
static void replay_watch_start(struct replay_watch *wt, unsigned int i)
{
	wt->n = 0;
	wt->all = false;
	replay_watch_add(wt, wt->run->memcg[i]);
	mcs_stock_slots_walk(wt->run->design, wt->cpu, replay_watch_slot, wt);
}

static unsigned long replay_watch_drains(const struct replay_watch *wt)
{
	unsigned long n = 0;
	unsigned int i;

	if (wt->all)
		return replay_drains_on(wt->run, wt->cpu);
	for (i = 0; i < wt->n; i++)
		n += local_read(&per_cpu_ptr(wt->memcg[i]->stats, wt->cpu)->events[MCS_DRAIN]);
	return n;
}

/*
 * After event @i: what the stocks hold now (the parent's usage beyond what
 * the stream holds), for the pass's peak, and whether it drained a slot.
 * Called by the kthread whose event it was, before it moves the cursor on.
 */
static void replay_sample(struct replay_run *run, unsigned int i, s64 live_before,
			  const struct replay_watch *wt, unsigned long drains_before)
{
	const struct mcs_trace_event *e = &run->t->events[i];
	unsigned long drains = replay_watch_drains(wt);
	s64 held;

	run->live += replay_live_of(run, e->memcg) - live_before;
	held = (s64)mcs_memcg_usage(run->parent) - run->live;
	if (held > run->peak)
		run->peak = held;
	if (drains != drains_before) {
		set_bit(i, run->drained);
		atomic_long_add(drains - drains_before, &run->drains_seen);
	}
}

/* One recorded CPU's events, each in turn with the other CPUs'. */
static __always_inline int replay_worker_of(int m, void *arg)
{
	struct replay_worker *w = arg;
	struct replay_run *run = w->run;
	const struct mcs_trace_event *e = run->t->events;
	struct replay_watch wt = { .run = run, .cpu = w->cpu };
	unsigned int i, k, n = run->t->h->nr_events, retimed = 0;
	unsigned long drains, kinds[NR_MCS_TRACE_KINDS] = {};
	u32 t, *best;
	u64 ns;
	s64 live;

	for (i = 0; i < n; i++) {
		if (e[i].cpu != w->cpu)
			continue;
		if (!replay_wait(run, i))
			break;
		/*
		 * A reschedule left pending (a voluntary-preemption kernel
		 * waits for a cond_resched()) would make every preempt_enable()
		 * in the timed call take the preemption stub: a few
		 * instructions per section, per CPU and per pass, as the
		 * scheduler's history has it.  Taken here, outside the timing.
		 */
		cond_resched();
		live = replay_live_of(run, e[i].memcg);
		replay_watch_start(&wt, e[i].memcg);
		drains = replay_watch_drains(&wt);
		ns = replay_event(m, run, &e[i]);
		replay_sample(run, i, live, &wt, drains);
		atomic_set_release(&run->cursor, i + 1);
		kinds[e[i].kind]++;
		/* this worker alone writes its CPU's events */
		if (ns == REPLAY_NO_CALL) {
			set_bit(i, run->uncalled);
			continue;
		}
		t = min_t(u64, ns, U32_MAX);
		best = &run->times[i];
		if (run->pass && max(t, *best) - min(t, *best) > REPLAY_RETIMED_NS)
			retimed++;
		*best = min(t, *best);
	}
	for (k = 0; k < NR_MCS_TRACE_KINDS; k++)
		atomic_long_add(kinds[k], &run->kinds[k]);
	atomic_add(retimed, &run->retimed);
	if (atomic_dec_and_test(&run->left))
		complete(&run->done);
	return 0;
}

/*
 * The worker once per entry (MCS_HARNESS_ENTRIES), so that each calls its
 * entries directly, and the choice of one, once per replay.
 */
#define REPLAY_WORKER_OF(m, n, t, d)					\
static int replay_worker_##t(void *arg)					\
{									\
	return replay_worker_of(m, arg);				\
}

MCS_HARNESS_ENTRIES(REPLAY_WORKER_OF)

#define REPLAY_WORKER_CASE(m, n, t, d)					\
	case m: return replay_worker_##t;

typedef int (*replay_worker_t)(void *arg);

static replay_worker_t replay_worker(int m)
{
	switch (m) {
	MCS_HARNESS_ENTRIES(REPLAY_WORKER_CASE)
	}
	return NULL;
}

/* The cost of a clock read pair, the lowest of a few. */
static u64 replay_clock_cost(void)
{
	u64 best = U64_MAX, t0, t1;
	unsigned int i;

	for (i = 0; i < 64; i++) {
		t0 = ktime_get_ns();
		t1 = ktime_get_ns();
		best = min(best, t1 - t0);
	}
	return best;
}

static void replay_memcgs_put(struct replay_run *run)
{
	unsigned int i = run->t->h->nr_memcgs;

	/* children first: the table has every parent before its children */
	while (i--) {
		if (!run->memcg[i])
			continue;
		if (run->objcg[i])
			mcs_objcg_put(run->objcg[i]);
		mcs_memcg_offline(run->memcg[i]);
		mcs_memcg_put(run->memcg[i]);
	}
	if (run->parent) {
		mcs_memcg_offline(run->parent);
		mcs_memcg_put(run->parent);
	}
}

static int replay_memcgs_create(struct replay_run *run)
{
	const struct mcs_trace_memcg *m = run->t->memcgs;
	unsigned int i;

	run->parent = mcs_memcg_create(NULL, "replay");
	if (IS_ERR(run->parent)) {
		int ret = PTR_ERR(run->parent);

		run->parent = NULL;
		return ret;
	}
	for (i = 0; i < run->t->h->nr_memcgs; i++) {
		struct mcs_memcg *parent = m[i].parent == MCS_TRACE_NO_PARENT ?
					   run->parent : run->memcg[m[i].parent];
		struct mcs_memcg *memcg = mcs_memcg_create(parent, m[i].name);

		if (IS_ERR(memcg))
			return PTR_ERR(memcg);
		run->memcg[i] = memcg;
		run->objcg[i] = mcs_memcg_tryget_objcg(memcg);
		if (!run->objcg[i])
			return -ENOENT;
	}
	return 0;
}

/*
 * Each memcg's opening balance, charged before the stream; -EINTR when the
 * writer got a fatal signal (what was charged is in the balances).
 */
static int replay_open_balances(struct replay_run *run)
{
	const struct mcs_trace_memcg *m = run->t->memcgs;
	unsigned int i, n;

	for (i = 0; i < run->t->h->nr_memcgs; i++) {
		s64 *b = &run->bal[2 * i];
		s64 left;

		for (left = m[i].open_pages; left > 0; left -= n) {
			if (READ_ONCE(run->stop))
				return -EINTR;
			n = min_t(s64, left, MCS_TRACE_MAX_PAGES);
			if (mcs_charge_pages(run->memcg[i], GFP_KERNEL, n))
				return -ENOMEM;
			b[0] += n;
		}
		for (left = m[i].open_bytes; left > 0; left -= n) {
			if (READ_ONCE(run->stop))
				return -EINTR;
			n = min_t(s64, left, MCS_TRACE_MAX_BYTES);
			if (mcs_obj_charge(run->objcg[i], GFP_KERNEL, n))
				return -ENOMEM;
			b[1] += n;
		}
	}
	return 0;
}

/* What each memcg holds once the stream is over, given back. */
static int replay_close_balances(struct replay_run *run)
{
	unsigned int i, n;

	for (i = 0; i < run->t->h->nr_memcgs; i++) {
		s64 *b = &run->bal[2 * i];

		for (; b[0] > 0; b[0] -= n) {
			n = min_t(s64, b[0], MCS_TRACE_MAX_PAGES);
			mcs_uncharge_pages(run->memcg[i], n);
		}
		for (; b[1] > 0; b[1] -= n) {
			n = min_t(s64, b[1], MCS_TRACE_MAX_BYTES);
			mcs_obj_uncharge(run->objcg[i], n);
		}
	}
	return 0;
}

/* A function of the run, called in a kthread bound to one CPU. */
struct replay_call {
	struct replay_run *run;
	int (*fn)(struct replay_run *run);
	int ret;
	struct completion done;
};

static int replay_call_fn(void *arg)
{
	struct replay_call *c = arg;

	c->ret = c->fn(c->run);
	complete(&c->done);
	return 0;
}

/*
 * Wait for @done, completed by the replay's kthreads.  A fatal signal to
 * the writer stops them at their next event (or balance chunk) and waits
 * for them: everything that ran is in the balances, which the close gives
 * back, so nothing is lost.
 */
static int replay_wait_done(struct replay_run *run, struct completion *done)
{
	if (!wait_for_completion_killable(done))
		return 0;
	WRITE_ONCE(run->stop, true);
	wait_for_completion(done);
	return -EINTR;
}

/*
 * Run @fn on @cpu: the balances go through the byte stock of one CPU, the
 * same in every replay, whatever CPU the writer is on (a balance given
 * back through another CPU's obj stock would round to other whole pages).
 * @killable: a fatal signal stops @fn (replay_wait_done(): the opening
 * balances); the closing ones always run to their end.
 */
static int replay_on_cpu(struct replay_run *run, int cpu, int (*fn)(struct replay_run *run),
			 bool killable)
{
	struct replay_call c = { .run = run, .fn = fn };
	struct task_struct *task;

	init_completion(&c.done);
	task = kthread_create(replay_call_fn, &c, "mcs_replay/b%d", cpu);
	if (IS_ERR(task))
		return PTR_ERR(task);
	kthread_bind(task, cpu);
	wake_up_process(task);
	if (!killable)
		wait_for_completion(&c.done);
	else if (replay_wait_done(run, &c.done))
		return -EINTR;
	return c.ret;
}

static void replay_events_sum(struct replay_run *run, unsigned long *sum)
{
	struct mcs_memcg_stat stat;
	unsigned int i, k;

	memset(sum, 0, NR_MCS_EVENTS * sizeof(*sum));
	for (i = 0; i < run->t->h->nr_memcgs; i++) {
		mcs_memcg_stat(run->memcg[i], &stat);
		for (k = 0; k < NR_MCS_EVENTS; k++)
			sum[k] += stat.events[k];
	}
}

/*
 * Start a kthread per recorded CPU and wait for the stream to end: 0,
 * -ETIMEDOUT (a stall), -EINTR (a fatal signal to the writer), or the
 * error of a kthread's creation.
 */
static int replay_stream(struct replay_run *run, struct replay_worker *w)
{
	const struct mcs_trace_event *e = run->t->events;
	unsigned int i, n = 0;
	DECLARE_BITMAP(used, REPLAY_MAX_CPUS);
	int cpu;

	bitmap_zero(used, REPLAY_MAX_CPUS);
	for (i = 0; i < run->t->h->nr_events; i++)
		__set_bit(e[i].cpu, used);
	for_each_set_bit(cpu, used, REPLAY_MAX_CPUS) {
		if (cpu >= nr_cpu_ids || !cpu_online(cpu)) {
			run->why = MCS_ERR_TRACE_CPU;
			return -EINVAL;
		}
		w[n].run = run;
		w[n].cpu = cpu;
		n++;
	}
	if (!replay_worker(run->entry))
		return -EINVAL;
	atomic_set(&run->left, n + 1);
	for (i = 0; i < n; i++) {
		struct task_struct *task = kthread_create(replay_worker(run->entry), &w[i],
							  "mcs_replay/%d", w[i].cpu);

		if (IS_ERR(task)) {
			/* the ones started give up at once */
			WRITE_ONCE(run->stop, true);
			atomic_sub(n - i, &run->left);
			if (atomic_dec_and_test(&run->left))
				complete(&run->done);
			wait_for_completion(&run->done);
			return PTR_ERR(task);
		}
		kthread_bind(task, w[i].cpu);
		wake_up_process(task);
	}
	if (atomic_dec_and_test(&run->left))
		complete(&run->done);
	if (replay_wait_done(run, &run->done))
		return -EINTR;
	return READ_ONCE(run->stop) ? -ETIMEDOUT : 0;
}

/* What the stocks hold of the replay: slots, and kinds the walk cannot read. */
struct replay_slots {
	struct replay_run *run;
	unsigned int n;
};

static void replay_slot(const struct mcs_stock_slot *slot, void *arg)
{
	struct replay_slots *s = arg;

	s->n += replay_owns(s->run, slot->memcg);
}

/*
 * Stock slots of any CPU that still hold a memcg or objcg of the replay,
 * in every design's stocks (stock_slots.c, as a stress run checks); each
 * kind of stock that the walk cannot read counts in @run->unread.
 */
static unsigned int replay_cached(struct replay_run *run)
{
	struct replay_slots s = { .run = run };

	run->unread = mcs_stock_slots_walk(NULL, -1, replay_slot, &s);
	return s.n;
}

/*
 * After the closing balances and a synchronous drain, as a stress run
 * checks: every memcg at zero with no leftover bytes, no stock slot
 * holding one of them (each would hold a reference), no page counter
 * underflow and no charge misuse since the replay began.
 */
static bool replay_settled(struct replay_run *run)
{
	unsigned int i;
	bool ok = !mcs_memcg_usage(run->parent);

	run->cached = replay_cached(run);
	ok &= !run->cached && !run->unread &&
	      mcs_page_counter_underflows() == run->underflows &&
	      mcs_charge_misuses() == run->misuses;

	for (i = 0; i < run->t->h->nr_memcgs; i++)
		ok &= !mcs_memcg_usage(run->memcg[i]) &&
		      !mcs_objcg_leftover_bytes(run->objcg[i]);
	return ok;
}

/* What a pass ends with; every pass must end with the first one's. */
struct replay_counts {
	unsigned long ev[NR_MCS_EVENTS];
	unsigned long kinds[NR_MCS_TRACE_KINDS], ops, untimed;
	unsigned long stranded, stranded_peak, drain_events;
	long unseen_drains;
	unsigned int cached_at_end;
	int refusals, recorded_refusals, short_uncharges;
};

/* The pages the replay's memcgs need for what the stream holds now. */
static s64 replay_live(struct replay_run *run)
{
	s64 live = 0;
	unsigned int k;

	for (k = 0; k < run->t->h->nr_memcgs; k++)
		live += replay_live_of(run, k);
	return live;
}

static void replay_report(struct replay_run *run, enum mcs_stock_mode mode,
			  const struct replay_counts *c, unsigned int passes, bool agree,
			  bool ok, char *result, size_t size)
{
	const struct mcs_trace_header *h = run->t->h;
	const unsigned long *ev = c->ev, *kinds = c->kinds;
	u64 ns = 0, timed = 0, tenths, dns = 0, dtimed = 0, dtenths, interrupted = 0;
	unsigned int i;

	for (i = 0; i < h->nr_events; i++) {
		/* an event that called nothing is not a call of 0 ns */
		if (test_bit(i, run->uncalled))
			continue;
		if (run->times[i] > REPLAY_INTERRUPTED_NS) {
			interrupted++;
			continue;
		}
		ns += run->times[i];
		timed++;
		if (test_bit(i, run->drained)) {
			dns += run->times[i];
			dtimed++;
		}
	}
	tenths = ns * 10 / max_t(u64, timed, 1);
	dtenths = dns * 10 / max_t(u64, dtimed, 1);
	snprintf(result, size,
		 "mode=%s entry=%s workload=replay trace=%.*s release=%.*s batch=%u cpus=%u memcgs=%u events=%u ops=%lu page_charges=%lu page_refused=%lu page_uncharges=%lu byte_charges=%lu byte_refused=%lu byte_uncharges=%lu passes=%u agree=%d ns=%llu ns_per_op=%llu.%llu timed=%llu untimed=%lu retimed=%d interrupted=%llu hits=%lu misses=%lu trylock_fail=%lu refills=%lu drains=%lu unseen_drains=%ld refusals=%d recorded_refusals=%d short_uncharges=%d stranded_pages=%lu stranded_peak=%lu drain_events=%lu drain_ns_per_event=%llu.%llu cached_at_end=%u cached_after_drain=%u unread_stocks=%d verdict=%s\n",
		 mcs_stock_mode_name(mode),
		 run->entry == MCS_ENTRY_EXPORTED ? "exported" : "mode",
		 MCS_TRACE_NAME_LEN, h->workload,
		 MCS_TRACE_RELEASE_LEN, h->release, mcs_charge_batch(), h->nr_cpus, h->nr_memcgs,
		 h->nr_events, c->ops, kinds[MCS_TRACE_PAGE_CHARGE], kinds[MCS_TRACE_PAGE_REFUSED],
		 kinds[MCS_TRACE_PAGE_UNCHARGE], kinds[MCS_TRACE_BYTE_CHARGE],
		 kinds[MCS_TRACE_BYTE_REFUSED], kinds[MCS_TRACE_BYTE_UNCHARGE],
		 passes, agree, ns, tenths / 10, tenths % 10, timed, c->untimed,
		 atomic_read(&run->retimed), interrupted,
		 ev[MCS_STOCK_HIT], ev[MCS_STOCK_MISS], ev[MCS_TRYLOCK_FAIL], ev[MCS_REFILL],
		 ev[MCS_DRAIN], c->unseen_drains, c->refusals, c->recorded_refusals,
		 c->short_uncharges,
		 c->stranded, c->stranded_peak, c->drain_events, dtenths / 10, dtenths % 10,
		 c->cached_at_end, run->cached, run->unread, ok && agree ? "PASS" : "FAIL");
}

/* One pass of the stream, from drained stocks; @c: what it ends with. */
static int replay_pass(struct replay_run *run, struct replay_worker *w,
		       struct replay_counts *c, bool *ok)
{
	unsigned long before[NR_MCS_EVENTS];
	int cpu = run->t->events[0].cpu;
	unsigned int k;
	int ret;

	atomic_set(&run->cursor, 0);
	atomic_set(&run->refusals, 0);
	atomic_set(&run->recorded_refusals, 0);
	atomic_set(&run->short_uncharges, 0);
	reinit_completion(&run->done);
	bitmap_zero(run->drained, run->t->h->nr_events);
	bitmap_zero(run->uncalled, run->t->h->nr_events);
	for (k = 0; k < NR_MCS_TRACE_KINDS; k++)
		atomic_long_set(&run->kinds[k], 0);
	atomic_long_set(&run->drains_seen, 0);
	ret = replay_on_cpu(run, cpu, replay_open_balances, true);
	/* the stocks start empty: what the stream finds there is its own */
	mcs_drain_all_stock(mcs_root_memcg(), true);
	replay_events_sum(run, before);
	run->live = replay_live(run);
	run->peak = max_t(s64, (s64)mcs_memcg_usage(run->parent) - run->live, 0);
	if (!ret)
		ret = replay_stream(run, w);
	memset(c, 0, sizeof(*c));
	replay_events_sum(run, c->ev);
	for (k = 0; k < NR_MCS_EVENTS; k++)
		c->ev[k] -= before[k];
	for (k = 0; k < NR_MCS_TRACE_KINDS; k++) {
		c->kinds[k] = atomic_long_read(&run->kinds[k]);
		c->ops += c->kinds[k];
	}
	c->untimed = bitmap_weight(run->uncalled, run->t->h->nr_events);
	/* every drain of the stream was seen by the event that made it */
	c->unseen_drains = c->ev[MCS_DRAIN] - atomic_long_read(&run->drains_seen);
	/*
	 * What the stocks hold at the end of the stream, before the closing
	 * balances go back through them: the usage beyond what is live.
	 */
	c->stranded = max_t(s64, (s64)mcs_memcg_usage(run->parent) - replay_live(run), 0);
	c->stranded_peak = max_t(s64, run->peak, c->stranded);
	c->cached_at_end = replay_cached(run);
	if (replay_on_cpu(run, cpu, replay_close_balances, false))
		replay_close_balances(run);
	c->drain_events = bitmap_weight(run->drained, run->t->h->nr_events);
	mcs_drain_all_stock(mcs_root_memcg(), true);
	c->refusals = atomic_read(&run->refusals);
	c->recorded_refusals = atomic_read(&run->recorded_refusals);
	c->short_uncharges = atomic_read(&run->short_uncharges);
	*ok = !ret && replay_settled(run);
	return ret;
}

/* Everything between the memcgs and their release: mode, passes, checks. */
static int replay_measure(struct replay_run *run, struct replay_worker *w,
			  enum mcs_stock_mode mode, unsigned int passes,
			  char *result, size_t size)
{
	struct replay_counts *c = kcalloc(2, sizeof(*c), GFP_KERNEL);
	bool ok = true, agree = true;
	int ret = 0;

	if (!c)
		return -ENOMEM;
	/* the CPU of the balances; replay_stream() checks the others */
	if (!cpu_online(run->t->events[0].cpu)) {
		run->why = MCS_ERR_TRACE_CPU;
		kfree(c);
		return -EINVAL;
	}
	run->underflows = mcs_page_counter_underflows();
	run->misuses = mcs_charge_misuses();
	run->clock_ns = replay_clock_cost();
	memset(run->times, 0xff, run->t->h->nr_events * sizeof(*run->times));
	for (run->pass = 0; run->pass < passes && ok && !ret; run->pass++) {
		ret = replay_pass(run, w, &c[!!run->pass], &ok);
		if (run->pass)
			agree &= !memcmp(&c[0], &c[1], sizeof(c[0]));
	}
	replay_report(run, mode, &c[0], passes, agree, ok && !ret, result, size);
	kfree(c);
	return ret == -ETIMEDOUT ? 0 : ret;
}

/**
 * mcs_replay_bench() - replay the loaded trace through one stock mode
 * @mode: the stock mode to replay through (restored afterwards)
 * @batch: charge batch for the replay, 0 for the module's
 * @exported: through the exported functions, not @mode's own entries
 * @passes: passes of the stream, 1..%MCS_REPLAY_MAX_PASSES, 0 for
 *	    %MCS_REPLAY_PASSES
 * @result: the result line
 * @size: its room
 * @why: set to the kind of error_log entry a failure calls for (left
 *	 alone on success); the caller records it
 *
 * The caller holds the harness (mcs_harness_claim()).
 *
 * Return: 0 (the result line says PASS or FAIL), -ENOENT (no trace
 * loaded: %MCS_ERR_NO_TRACE), -EINVAL (a CPU of the trace is not online:
 * %MCS_ERR_TRACE_CPU), -EINTR (a fatal signal: the replay stopped at its
 * next event and gave back everything it charged), -ENOMEM, or the error
 * of a mode switch (these %MCS_ERR_FAILED).
 */
int mcs_replay_bench(enum mcs_stock_mode mode, unsigned int batch, bool exported,
		     unsigned int passes, char *result, size_t size, enum mcs_error_kind *why)
{
	enum mcs_stock_mode found = mcs_stock_get_mode();
	unsigned int old_batch = mcs_charge_batch();
	struct replay_worker *w = NULL;
	struct replay_run *run;
	int ret = -ENOMEM;

	mutex_lock(&replay_lock);
	*why = MCS_ERR_FAILED;
	if (!replay_loaded) {
		mutex_unlock(&replay_lock);
		*why = MCS_ERR_NO_TRACE;
		return -ENOENT;
	}
	run = kzalloc_obj(*run, GFP_KERNEL);
	if (!run)
		goto unlock;
	run->why = MCS_ERR_FAILED;
	run->t = replay_loaded;
	run->entry = exported ? MCS_ENTRY_EXPORTED : mode;
	init_completion(&run->done);
	run->memcg = kcalloc(max(run->t->h->nr_memcgs, 1U), sizeof(*run->memcg), GFP_KERNEL);
	run->objcg = kcalloc(max(run->t->h->nr_memcgs, 1U), sizeof(*run->objcg), GFP_KERNEL);
	run->bal = kvcalloc(2 * max(run->t->h->nr_memcgs, 1U), sizeof(*run->bal), GFP_KERNEL);
	run->times = kvmalloc_array(run->t->h->nr_events, sizeof(*run->times), GFP_KERNEL);
	run->drained = kvcalloc(BITS_TO_LONGS(run->t->h->nr_events), sizeof(long), GFP_KERNEL);
	run->uncalled = kvcalloc(BITS_TO_LONGS(run->t->h->nr_events), sizeof(long), GFP_KERNEL);
	w = kcalloc(REPLAY_MAX_CPUS, sizeof(*w), GFP_KERNEL);
	if (!run->memcg || !run->objcg || !run->bal || !run->times || !run->drained ||
	    !run->uncalled || !w)
		goto free;
	ret = replay_memcgs_create(run);
	if (ret)
		goto put;
	ret = mcs_stock_set_bench_mode(mode);
	if (ret)
		goto put;
	run->design = mcs_stock_design[mode];
	if (batch)
		ret = mcs_stock_set_bench_batch(batch);
	if (!ret)
		ret = replay_measure(run, w, mode, clamp(passes ?: MCS_REPLAY_PASSES, 1U,
							 MCS_REPLAY_MAX_PASSES), result, size);
	if (batch)
		mcs_stock_set_bench_batch(old_batch);
	/* the mode found may be one mcs_stock_set_mode() refuses (coupled-noirq) */
	mcs_stock_set_bench_mode(found);
put:
	replay_memcgs_put(run);
	*why = run->why;
free:
	kfree(w);
	kvfree(run->times);
	kvfree(run->drained);
	kvfree(run->uncalled);
	kvfree(run->bal);
	kfree(run->objcg);
	kfree(run->memcg);
	kfree(run);
unlock:
	mutex_unlock(&replay_lock);
	return ret;
}

/**
 * mcs_replay_init() - create the debugfs file "trace_load"
 * @dir: the module's debugfs directory
 */
void mcs_replay_init(struct dentry *dir)
{
	debugfs_create_file("trace_load", 0600, dir, NULL, &trace_load_fops);
}

/**
 * mcs_replay_exit() - free the loaded trace (the files are gone: nobody replays)
 */
void mcs_replay_exit(void)
{
	replay_trace_free(replay_loaded);
	replay_loaded = NULL;
}
