// SPDX-License-Identifier: GPL-2.0
/*
 * The module's one way into the kernel log, with one ratelimit for the
 * whole module.
 *
 * What the module says there is short by design: a violated invariant, a
 * run or a check that failed, an API misuse by a client module.  A bad
 * debugfs write says nothing here: it goes to the harness's error_log.
 * Whatever the number of callers, at most MCS_LOG_BURST lines go out per
 * MCS_LOG_INTERVAL; the lines dropped meanwhile are counted, and the first
 * line of the next interval is preceded by one "N lines suppressed".
 *
 * Context: any, NMI included.  The state is guarded by a raw spinlock that
 * is only ever trylocked: a caller that finds it taken (another CPU
 * logging, or the NMI interrupted a logger on this CPU) counts its line as
 * suppressed rather than wait.
 */
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/printk.h>
#include <linux/spinlock.h>

#include "counters.h"

#define MCS_LOG_INTERVAL	(5 * HZ)
#define MCS_LOG_BURST		10

static DEFINE_RAW_SPINLOCK(log_lock);
static unsigned long log_begin;		/* jiffies: start of the interval */
static unsigned int log_printed;	/* lines of this interval */
static atomic_t log_suppressed = ATOMIC_INIT(0);

/*
 * May this line go out?  Opens a new interval when the last one is over,
 * and hands back how many lines the old one dropped.
 */
static bool log_admit(unsigned int *dropped)
{
	unsigned long flags;
	bool ok;

	*dropped = 0;
	if (!raw_spin_trylock_irqsave(&log_lock, flags))
		return false;
	if (!log_begin || time_after_eq(jiffies, log_begin + MCS_LOG_INTERVAL)) {
		log_begin = jiffies ?: 1;
		log_printed = 0;
		*dropped = atomic_xchg(&log_suppressed, 0);
	}
	ok = log_printed < MCS_LOG_BURST;
	if (ok)
		log_printed++;
	raw_spin_unlock_irqrestore(&log_lock, flags);
	return ok;
}

/**
 * mcs_log() - a warning in the kernel log, under the module's ratelimit
 * @fmt: printf format of the line, without the "memcg_stock: " prefix
 *
 * Any context.  Lines beyond the module's budget (10 per 5 s, for all
 * callers together) are counted and reported as "N lines suppressed"
 * before the next line that goes out.
 */
void mcs_log(const char *fmt, ...)
{
	struct va_format vaf;
	unsigned int dropped;
	va_list args;

	if (!log_admit(&dropped)) {
		atomic_inc(&log_suppressed);
		return;
	}
	if (dropped)
		pr_warn("memcg_stock: %u lines suppressed\n", dropped);
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_warn("memcg_stock: %pV", &vaf);
	va_end(args);
}
