// SPDX-License-Identifier: GPL-2.0
/*
 * The stress harness's debugfs files (see stress.h): config, run,
 * results, stocks and memcgs, and the harness's set-up and tear-down.
 */
#include <linux/module.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "stress.h"

static const struct stress_config stress_defaults = {
	.memcgs = 8, .depth = 2, .threads = 1, .duration_ms = 1000, .ops = 0,
	.page_pct = 50, .pages_max = 8, .bytes_max = 1024, .limit = 0,
	.hardirq_us = 100, .softirq = 1, .drain_ms = 20, .churn = 1, .hotplug = 0,
	.nmi_us = 100,
};

struct stress_key {
	const char *name;
	size_t offset;
	unsigned int min;
	unsigned int max;
	bool zero_off;		/* 0 is accepted too, meaning off */
};

#define STRESS_KEY(field, lo, hi, off)					\
	{ .name = #field, .offset = offsetof(struct stress_config, field), \
	  .min = (lo), .max = (hi), .zero_off = (off) }

static const struct stress_key stress_keys[] = {
	STRESS_KEY(memcgs, 1, STRESS_MAX_MEMCGS, false),
	STRESS_KEY(depth, 1, STRESS_MAX_DEPTH, false),
	STRESS_KEY(threads, 1, STRESS_MAX_THREADS, false),
	STRESS_KEY(duration_ms, 10, 600000, false),
	STRESS_KEY(ops, 1, 1000000000, true),
	STRESS_KEY(page_pct, 0, 100, false),
	STRESS_KEY(pages_max, 1, 4 * MCS_CHARGE_BATCH, false),
	STRESS_KEY(bytes_max, 8, 65536, false),
	STRESS_KEY(limit, 1, 1 << 24, true),
	STRESS_KEY(hardirq_us, 10, 1000000, true),
	STRESS_KEY(softirq, 0, 1, false),
	STRESS_KEY(drain_ms, 1, 10000, true),
	STRESS_KEY(churn, 0, 1, false),
	STRESS_KEY(hotplug, 0, 1, false),
	STRESS_KEY(nmi_us, 10, 1000000, true),
};

/* The one key that is not a number: it maps to mcs_stock_set_mode(). */
#define STRESS_MODE_KEY		"mode"

static const char * const event_names[NR_MCS_EVENTS] = {
	"stock_hit", "stock_miss", "trylock_fail", "refill", "drain",
	"max_event", "force_charge",
};

static const char * const state_names[] = { "idle", "running", "done", "stopped" };

static const char * const phase_names[] = { "setup", "load", "check" };

/* ---- debugfs: config ------------------------------------------------------------------- */

static unsigned int *config_field(struct stress_config *cfg, const struct stress_key *key)
{
	return (void *)cfg + key->offset;
}

/* A parsed write: applied whole or not at all. */
struct config_update {
	unsigned int value[ARRAY_SIZE(stress_keys)];
	unsigned long seen;
	int mode;			/* -1: no mode= token */
	const char *mode_tok;		/* the mode= token, for error_log */
};

static int config_parse_mode(struct mcs_input *in, char *name, const char *value,
			     struct config_update *up)
{
	const char *names[NR_MCS_MODES];
	int i;

	if (up->mode >= 0)
		return mcs_input_error(in, MCS_ERR_TWICE, name, -EINVAL);
	for (i = 0; i < NR_MCS_MODES; i++)
		names[i] = mcs_stock_mode_name(i);
	i = mcs_input_match(in, value, names, NR_MCS_MODES);
	if (i < 0)
		return i;
	up->mode = i;
	up->mode_tok = name;
	return 0;
}

/* One key=value token, checked by mcs_input_copy() for its shape. */
static int config_parse_token(struct mcs_input *in, char *tok, struct config_update *up)
{
	const char *names[ARRAY_SIZE(stress_keys) + 1];
	const struct stress_key *key;
	char *name, *value;
	unsigned int i, v;
	int ret;

	ret = mcs_input_kv(in, tok, &name, &value);
	if (ret)
		return ret;
	for (i = 0; i < ARRAY_SIZE(stress_keys); i++)
		names[i] = stress_keys[i].name;
	names[i] = STRESS_MODE_KEY;
	ret = mcs_input_key(in, name, names, ARRAY_SIZE(names));
	if (ret < 0)
		return ret;
	i = ret;
	if (i == ARRAY_SIZE(stress_keys))
		return config_parse_mode(in, name, value, up);
	key = &stress_keys[i];
	if (up->seen & BIT(i))
		return mcs_input_error(in, MCS_ERR_TWICE, name, -EINVAL);
	ret = mcs_input_uint(in, value, key->min, key->max, key->zero_off, &v);
	if (ret)
		return ret;
	up->value[i] = v;
	up->seen |= BIT(i);
	return 0;
}

/*
 * Under the harness claim of a config write: a benchmark or a self-check
 * in progress (they switch the stock mode too) makes it -EBUSY, and so
 * does a stress run, which holds the claim from its start to its end.
 */
static int config_apply(struct mcs_input *in, const struct config_update *up)
{
	unsigned int i;
	int ret = 0;

	mutex_lock(&stress_mutex);
	if (stress_dead) {
		ret = mcs_input_error(in, MCS_ERR_UNLOADING, NULL, -ENODEV);
		goto unlock;
	}
	if (stress_run.state == STATE_RUNNING) {
		ret = mcs_input_error(in, MCS_ERR_BUSY_STRESS, NULL, -EBUSY);
		goto unlock;
	}
	ret = mcs_harness_claim_write(in, MCS_USER_CONFIG);
	if (ret)
		goto unlock;
	/* the only step that can fail comes first: a refusal changes nothing */
	if (up->mode >= 0) {
		ret = mcs_stock_set_mode(up->mode);
		if (ret)
			mcs_input_error(in, MCS_ERR_MODE, up->mode_tok, ret);
	}
	if (!ret)
		for (i = 0; i < ARRAY_SIZE(stress_keys); i++)
			if (up->seen & BIT(i))
				*config_field(&stress_config, &stress_keys[i]) = up->value[i];
	mcs_harness_release(MCS_USER_CONFIG);
unlock:
	mutex_unlock(&stress_mutex);
	return ret;
}

/*
 * One or more lines of key=value tokens separated by single blanks
 * (mcs_input_copy() has the exact rules), each line at most
 * STRESS_LINE_MAX characters.  Applied whole or not at all.
 */
static ssize_t config_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	struct config_update up = { .mode = -1 };
	struct mcs_input in;
	char *cursor, *tok;
	int ret;

	BUILD_BUG_ON(ARRAY_SIZE(stress_keys) > BITS_PER_LONG);
	ret = mcs_input_copy(&in, "config", ubuf, count, STRESS_LINE_MAX, true);
	if (ret)
		return ret;
	cursor = in.buf;
	while (!ret && (tok = mcs_input_next(&cursor)))
		ret = config_parse_token(&in, tok, &up);
	if (!ret)
		ret = config_apply(&in, &up);
	mcs_input_free(&in);
	return ret ?: count;
}

static int config_show(struct seq_file *m, void *v)
{
	unsigned int i;

	mutex_lock(&stress_mutex);
	for (i = 0; i < ARRAY_SIZE(stress_keys); i++)
		seq_printf(m, "%s=%u\n", stress_keys[i].name,
			   *config_field(&stress_config, &stress_keys[i]));
	seq_printf(m, "%s=%s\n", STRESS_MODE_KEY, mcs_stock_mode_name(mcs_stock_get_mode()));
	mutex_unlock(&stress_mutex);
	return 0;
}

static int config_open(struct inode *inode, struct file *file)
{
	return single_open(file, config_show, NULL);
}

static const struct file_operations config_fops = {
	.owner = THIS_MODULE,
	.open = config_open,
	.read = seq_read,
	.write = config_write,
	.llseek = seq_lseek,
	.release = single_release,
};

/* ---- debugfs: run ------------------------------------------------------------------------ */

/*
 * A case turns on the contexts it names whatever the config's softirq,
 * churn and hotplug keys say, but takes the hardirq, drainer and NMI
 * periods from the config: when the config turned one off (0), a case that
 * needs it cannot run as configured and is refused rather than run with a
 * period nobody asked for.  (The cases that merely add NMI load run
 * without it when nmi_us=0 or the kernel has no NMI source: nmi=off or
 * nmi=unsupported in their results.)  The case about NMI alone on a kernel
 * without NMIs is refused with -EOPNOTSUPP.
 */
static int stress_cases_runnable(struct mcs_input *in, const struct stress_config *cfg,
				 int first, unsigned int nr)
{
	unsigned int k;

	for (k = 0; first >= 0 && k < nr; k++) {
		const struct stress_case *sc = &stress_cases[first + k];

		if ((sc->flags & CASE_HARDIRQ) && !cfg->hardirq_us)
			return mcs_input_error(in, MCS_ERR_NEEDS_HARDIRQ, NULL, -EINVAL);
		if ((sc->flags & CASE_DRAIN) && !cfg->drain_ms)
			return mcs_input_error(in, MCS_ERR_NEEDS_DRAIN, NULL, -EINVAL);
		if ((sc->flags & CASE_NMI_ONLY) && !cfg->nmi_us)
			return mcs_input_error(in, MCS_ERR_NEEDS_NMI, NULL, -EINVAL);
		/* alone it is refused; within "all" it is skipped and says so */
		if ((sc->flags & CASE_NMI_ONLY) && nr == 1 && !mcs_nmi_supported())
			return mcs_input_error(in, MCS_ERR_NO_NMI, NULL, -EOPNOTSUPP);
	}
	return 0;
}

/*
 * A run holds the harness claim from here until its controller has
 * finished (stress_controller() releases it), so that a benchmark, a
 * self-check or a config write cannot change the stock mode or the
 * global counters under it.
 */
static int stress_start(struct mcs_input *in, int first, unsigned int nr)
{
	struct stress_run *run = &stress_run;
	int ret;

	mutex_lock(&stress_mutex);
	if (stress_dead) {
		ret = mcs_input_error(in, MCS_ERR_UNLOADING, NULL, -ENODEV);
		goto unlock;
	}
	if (run->state == STATE_RUNNING) {
		ret = mcs_input_error(in, MCS_ERR_BUSY_STRESS, NULL, -EBUSY);
		goto unlock;
	}
	ret = stress_cases_runnable(in, &stress_config, first, nr);
	if (ret)
		goto unlock;
	ret = mcs_harness_claim_write(in, MCS_USER_STRESS);
	if (ret)
		goto unlock;
	run->base = stress_config;
	run->first_case = first;
	run->nr_cases = nr;
	run->nr_results = 0;
	run->res = NULL;
	WRITE_ONCE(run->stop_req, false);
	run->state = STATE_RUNNING;
	queue_work(stress_wq, &run->work);
unlock:
	mutex_unlock(&stress_mutex);
	return ret;
}

static void stress_stop(void)
{
	mutex_lock(&stress_mutex);
	if (stress_run.state == STATE_RUNNING)
		WRITE_ONCE(stress_run.stop_req, true);
	mutex_unlock(&stress_mutex);
	wake_up(&stress_run.wait);
}

/* One command, one line: 1, all, a case name, stop (or 0). */
static ssize_t run_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	struct mcs_input in;
	char *cursor, *cmd;
	unsigned int i;
	int ret;

	ret = mcs_input_copy(&in, "run", ubuf, count, STRESS_CMD_MAX, false);
	if (ret)
		return ret;
	cursor = in.buf;
	cmd = mcs_input_next(&cursor);
	if (cursor) {
		ret = mcs_input_error(&in, MCS_ERR_ONE_COMMAND, cursor, -EINVAL);
	} else if (!strcmp(cmd, "stop") || !strcmp(cmd, "0")) {
		stress_stop();
		ret = 0;
	} else if (!strcmp(cmd, "1")) {
		ret = stress_start(&in, -1, 1);
	} else if (!strcmp(cmd, "all")) {
		ret = stress_start(&in, 0, ARRAY_SIZE(stress_cases));
	} else {
		for (i = 0; i < ARRAY_SIZE(stress_cases); i++)
			if (!strcmp(cmd, stress_cases[i].name))
				break;
		if (i < ARRAY_SIZE(stress_cases))
			ret = stress_start(&in, i, 1);
		else
			ret = mcs_input_error(&in, MCS_ERR_COMMAND, cmd, -EINVAL);
	}
	mcs_input_free(&in);
	return ret ?: count;
}

static const char *stress_run_name(struct stress_run *run)
{
	if (run->first_case < 0)
		return "custom";
	return run->nr_cases > 1 ? "all" : stress_cases[run->first_case].name;
}

static bool stress_failed(struct stress_run *run)
{
	unsigned int k;

	for (k = 0; k < run->nr_results; k++)
		if (run->result[k].nr_violations)
			return true;
	return false;
}

static int run_show(struct seq_file *m, void *v)
{
	struct stress_run *run = &stress_run;
	unsigned int i;

	mutex_lock(&stress_mutex);
	seq_printf(m, "state=%s\n", state_names[run->state]);
	seq_puts(m, "cases_available=");
	for (i = 0; i < ARRAY_SIZE(stress_cases); i++)
		seq_printf(m, "%s%s", i ? " " : "", stress_cases[i].name);
	seq_putc(m, '\n');
	if (run->state == STATE_IDLE)
		goto unlock;

	seq_printf(m, "run=%s\ncases=%u/%u\n", stress_run_name(run),
		   run->nr_results - (run->state == STATE_RUNNING && run->nr_results),
		   run->nr_cases);
	if (run->state == STATE_RUNNING && run->res) {
		s64 elapsed = 0;

		if (run->phase == PHASE_LOAD)
			elapsed = ktime_ms_delta(ktime_get(), run->started);
		else if (run->phase == PHASE_CHECK)
			elapsed = div_u64(run->res->elapsed_us, 1000);
		seq_printf(m, "case=%s\nphase=%s\nelapsed_ms=%lld\nduration_ms=%u\nops_done=%lu\n",
			   run->res->name, phase_names[run->phase], elapsed,
			   run->cfg.duration_ms, stress_ops_done(run));
		if (run->cfg.ops)
			seq_printf(m, "ops_expected=%llu\n", run->ops_expected);
		else
			seq_puts(m, "ops_expected=none\n");
	} else if (run->state != STATE_RUNNING) {
		seq_printf(m, "verdict=%s\n", stress_failed(run) ? "FAIL" : "PASS");
	}
unlock:
	mutex_unlock(&stress_mutex);
	return 0;
}

static int run_open(struct inode *inode, struct file *file)
{
	return single_open(file, run_show, NULL);
}

static const struct file_operations run_fops = {
	.owner = THIS_MODULE,
	.open = run_open,
	.read = seq_read,
	.write = run_write,
	.llseek = seq_lseek,
	.release = single_release,
};

/* ---- debugfs: results ---------------------------------------------------------------------- */

/*
 * An interrupt timer's achieved period and rate per CPU, over the elapsed
 * time; 0 when it never expired.
 */
static void timer_show(struct seq_file *m, const struct stress_result *res,
		       enum stress_ctx ctx)
{
	const struct stress_timer_stat *st = &res->timer[ctx];
	u64 cpu_us = res->elapsed_us * max(res->cpus, 1U);
	u64 period = st->expiries ? div64_u64(cpu_us, st->expiries) : 0;
	u64 rate = div64_u64((u64)st->expiries * USEC_PER_SEC, max_t(u64, cpu_us, 1));

	seq_printf(m, "%s_expiries=%lu\n%s_stretched=%lu\n%s_period_us=%llu\n%s_rate_hz=%llu\n",
		   stress_ctx_names[ctx], st->expiries, stress_ctx_names[ctx], st->stretched,
		   stress_ctx_names[ctx], period, stress_ctx_names[ctx], rate);
}

static void result_show(struct seq_file *m, const struct stress_result *res)
{
	const struct stress_config *cfg = &res->cfg;
	unsigned long hits = res->events[MCS_STOCK_HIT];
	unsigned long lookups = hits + res->events[MCS_STOCK_MISS];
	struct stress_tally sum = { };
	u64 mops, hit;
	int i;

	seq_printf(m, "case=%s\nstatus=%s\n", res->name, stress_status_names[res->status]);
	if (res->status == STATUS_RUNNING)
		return;
	if (res->status == STATUS_SKIPPED) {
		/* nothing ran, nothing was checked: no verdict of PASS, no check_* */
		seq_printf(m, "verdict=SKIP\nnmi=%s\nskip_reason=no NMI source in this kernel (UML, non-x86)\n",
			   stress_feature_names[res->nmi]);
		return;
	}
	seq_printf(m, "verdict=%s\n", res->nr_violations ? "FAIL" : "PASS");
	if (res->status == STATUS_SETUP_FAILED)
		seq_printf(m, "setup_error=%d\n", res->setup_error);
	seq_printf(m, "mode=%s\ncpus=%u\n", mcs_stock_mode_name(res->mode), res->cpus);
	seq_printf(m, "memcgs=%u\ndepth=%u\nthreads=%u\nduration_ms=%u\nops_budget=%u\n",
		   cfg->memcgs, cfg->depth, cfg->threads, cfg->duration_ms, cfg->ops);
	seq_printf(m, "page_pct=%u\npages_max=%u\nbytes_max=%u\nlimit=%u\n",
		   cfg->page_pct, cfg->pages_max, cfg->bytes_max, cfg->limit);
	seq_printf(m, "hardirq_us=%u\nsoftirq=%u\ndrain_ms=%u\nchurn=%u\nnmi_us=%u\n",
		   cfg->hardirq_us, cfg->softirq, cfg->drain_ms, cfg->churn, cfg->nmi_us);
	seq_printf(m, "elapsed_ms=%llu\n", div_u64(res->elapsed_us, 1000));
	timer_show(m, res, CTX_HARDIRQ);
	timer_show(m, res, CTX_SOFTIRQ);
	timer_show(m, res, CTX_NMI);

	for (i = 0; i < NR_STRESS_CTX; i++)
		stress_tally_add(&sum, &res->ctx[i]);
	seq_printf(m, "ops=%lu\n", sum.ops);
	for (i = 0; i < NR_STRESS_CTX; i++)
		seq_printf(m, "ops_%s=%lu\n", stress_ctx_names[i], res->ctx[i].ops);
	mops = div64_u64((u64)sum.ops * 1000, max_t(u64, res->elapsed_us, 1));
	seq_printf(m, "mops=%llu.%03llu\n", mops / 1000, mops % 1000);
	seq_printf(m, "page_charges=%lu\nbyte_charges=%lu\ncancels=%lu\nbatches=%lu\nmigrations=%lu\n",
		   sum.page_charges, sum.byte_charges, sum.cancels, sum.batches,
		   sum.migrations);

	hit = lookups ? div64_u64((u64)hits * 10000, lookups) : 0;
	seq_printf(m, "stock_hits=%lu\nslow_path_charges=%lu\nstock_hit_pct=%llu.%02llu\n",
		   hits, res->events[MCS_STOCK_MISS], hit / 100, hit % 100);
	seq_printf(m, "trylock_fail=%lu\n", res->events[MCS_TRYLOCK_FAIL]);
	for (i = 0; i < NR_STRESS_CTX; i++)
		seq_printf(m, "trylock_fail_%s=%lu\n", stress_ctx_names[i],
			   res->ctx[i].trylock_fail);
	seq_printf(m, "limit_refusals=%lu\n", sum.refusals);
	for (i = 0; i < NR_STRESS_CTX; i++)
		seq_printf(m, "limit_refusals_%s=%lu\n", stress_ctx_names[i], res->ctx[i].refusals);
	seq_printf(m, "max_events=%lu\nforced_charges=%lu\noffline_refusals=%lu\n",
		   res->events[MCS_LIMIT_REFUSAL], res->events[MCS_FORCE_CHARGE], sum.offline);
	seq_printf(m, "drains_async=%lu\ndrains_sync=%lu\ndrain_events=%lu\nrefill_events=%lu\n",
		   res->drains_async, res->drains_sync, res->events[MCS_DRAIN],
		   res->events[MCS_REFILL]);
	seq_printf(m, "churn_created=%lu\nchurn_released=%lu\nalloc_failures=%lu\nfaults_injected=%lu\n",
		   res->churn_created, res->churn_released, res->alloc_failures,
		   res->faults_injected);
	seq_printf(m, "hotplug=%s\nhotplug_cycles=%lu\nhotplug_errors=%lu\nhotplug_refused=%d\n",
		   stress_feature_names[res->hotplug], res->hotplug_cycles, res->hotplug_errors,
		   res->hotplug_refused);
	seq_printf(m, "nmi=%s\nnmi_sent=%lu\nnmi_handled=%lu\nnmi_busy=%lu\nnmi_lost=%lu\n",
		   stress_feature_names[res->nmi], res->nmi_sent, res->nmi_handled, res->nmi_busy,
		   res->nmi_lost);
	for (i = 0; i < NR_STRESS_CHECKS; i++)
		seq_printf(m, "check_%s=%s\n", stress_check_names[i],
			   res->failed[i] ? "FAIL" : "ok");
	seq_printf(m, "violations=%u\n", res->nr_violations);
	if (res->nr_violations)
		seq_printf(m, "violation=%s\n", res->violations);
}

static int results_show(struct seq_file *m, void *v)
{
	struct stress_run *run = &stress_run;
	unsigned int k;

	mutex_lock(&stress_mutex);
	seq_printf(m, "state=%s\n", state_names[run->state]);
	if (run->state != STATE_IDLE) {
		seq_printf(m, "run=%s\ncases=%u\n", stress_run_name(run), run->nr_results);
		if (run->state == STATE_RUNNING)
			seq_puts(m, "verdict=running\n");
		else
			seq_printf(m, "verdict=%s\n", stress_failed(run) ? "FAIL" : "PASS");
		for (k = 0; k < run->nr_results; k++) {
			seq_putc(m, '\n');
			result_show(m, &run->result[k]);
		}
	}
	mutex_unlock(&stress_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(results);

/* ---- debugfs: stocks and memcgs ---------------------------------------------------------- */

/* One slot, as the walkers of the designs' stocks report it. */
static void stocks_show_slot(const struct mcs_stock_slot *slot, void *arg)
{
	seq_printf(arg, "cpu=%d stock=%s slot=%d memcg=%u %s=%u\n", slot->cpu, slot->stock,
		   slot->index, slot->memcg->id, slot->bytes ? "bytes" : "pages", slot->amount);
}

/*
 * Other CPUs' stocks are read without their locks, the way the drain
 * decides what to drain: slot contents may be stale, the memcgs and objcgs
 * stay allocated under RCU.  Every mode's stocks are shown, through the
 * walkers of the designs' kinds (mcs_stock_slots_walk()): after a mode
 * switch the old ones must be empty.  A kind without a walker is counted.
 */
static int stocks_show(struct seq_file *m, void *v)
{
	int cpu, unread = 0;

	seq_printf(m, "mode=%s\n", mcs_stock_mode_name(mcs_stock_get_mode()));
	for_each_possible_cpu(cpu) {
		seq_printf(m, "cpu=%d online=%d\n", cpu, cpu_online(cpu));
		unread = mcs_stock_slots_walk(NULL, cpu, stocks_show_slot, m);
	}
	seq_printf(m, "unread_stocks=%d\n", unread);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stocks);

static void memcg_show_line(struct seq_file *m, struct mcs_memcg *memcg)
{
	struct mcs_memcg_stat st;
	int i;

	mcs_memcg_stat(memcg, &st);
	seq_printf(m, "%*sid=%u name=%s depth=%d usage=%lu", 2 * memcg->depth, "",
		   memcg->id, memcg->name, memcg->depth, st.usage);
	if (st.max >= MCS_PAGE_COUNTER_MAX)
		seq_puts(m, " max=max");
	else
		seq_printf(m, " max=%lu", st.max);
	seq_printf(m, " watermark=%lu failcnt=%lu", st.watermark, st.failcnt);
	for (i = 0; i < NR_MCS_EVENTS; i++)
		seq_printf(m, " %s=%lu", event_names[i], st.events[i]);
	seq_putc(m, '\n');
}

/*
 * The module's root and the tree of the case being run, in tree order
 * (a parent's index is below its children's).  Churn memcgs come and go
 * too fast to list: they are counted.
 */
static int memcgs_show(struct seq_file *m, void *v)
{
	struct stress_run *run = &stress_run;
	unsigned int i;

	mutex_lock(&stress_mutex);
	seq_printf(m, "memcgs_alive=%ld objcgs_alive=%ld underflows=%ld misuses=%ld mode=%s\n",
		   mcs_memcg_nr_alive(), mcs_objcg_nr_alive(), mcs_page_counter_underflows(),
		   mcs_charge_misuses(), mcs_stock_mode_name(mcs_stock_get_mode()));
	memcg_show_line(m, mcs_root_memcg());
	for (i = 0; i < run->nr_memcgs; i++)
		memcg_show_line(m, run->memcg[i].memcg);
	if (run->state == STATE_RUNNING)
		seq_printf(m, "churn_published=%d churn_offline_held=%u\n",
			   !!rcu_access_pointer(run->churn_pub), READ_ONCE(run->nr_grave));
	mutex_unlock(&stress_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(memcgs);

/* ---- init and exit -------------------------------------------------------------------------- */

static const struct {
	const char *name;
	umode_t mode;
	const struct file_operations *fops;
} stress_files[] = {
	{ "config", 0600, &config_fops },
	{ "run", 0600, &run_fops },
	{ "results", 0400, &results_fops },
	{ "stocks", 0400, &stocks_fops },
	{ "memcgs", 0400, &memcgs_fops },
};

static struct dentry *stress_dentries[ARRAY_SIZE(stress_files)];

/**
 * mcs_stress_init() - set up the stress harness
 *
 * Called from module init (module.c); the files come later, from
 * mcs_stress_files_create(), once module init can no longer fail.
 *
 * Return: 0 or -ENOMEM.
 */
int mcs_stress_init(void)
{
	stress_wq = alloc_workqueue("mcs_stress", WQ_UNBOUND, 1);
	if (!stress_wq)
		return -ENOMEM;
	init_waitqueue_head(&stress_run.wait);
	INIT_WORK(&stress_run.work, stress_controller);
	stress_config = stress_defaults;
	return 0;
}

/**
 * mcs_stress_files_create() - create the debugfs files of the stress harness
 * @dir: the module's debugfs directory
 */
void mcs_stress_files_create(struct dentry *dir)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(stress_files); i++)
		stress_dentries[i] = debugfs_create_file(stress_files[i].name, stress_files[i].mode,
							 dir, NULL,
							 stress_files[i].fops);
}

/**
 * mcs_stress_exit() - stop a running stress run and remove the harness
 *
 * Called first thing at module exit: a run in progress is stopped, its
 * charges are released and checked, and only then does the module tear
 * down what it charged.  Task context; sleeps until the run has ended.
 */
void mcs_stress_exit(void)
{
	unsigned int i;

	mutex_lock(&stress_mutex);
	stress_dead = true;
	WRITE_ONCE(stress_run.stop_req, true);
	mutex_unlock(&stress_mutex);
	wake_up(&stress_run.wait);

	/* handlers still inside a file finish before its removal returns */
	for (i = 0; i < ARRAY_SIZE(stress_files); i++)
		debugfs_remove(stress_dentries[i]);
	/* waits for the controller, which stops the load and checks the case */
	destroy_workqueue(stress_wq);
}
