// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs "bench": the A/B throughput benchmark behind `make bench`.
 *
 * A write of one line of key=value pairs runs one measurement and returns
 * when it is done; a read returns the result line of the last one:
 *
 *   echo "mode=coupled clients=4 workload=mixed hardirq=1 duration_ms=200" > bench
 *   cat bench
 *
 * Clients are kthreads bound round-robin to the online CPUs, each in its
 * own memcg below one shared parent (like netperf clients in their own
 * cgroups), each charging and uncharging in a tight loop: one page
 * (workload=pages), 64 bytes through its objcg (bytes), or both in turn
 * (mixed); with shared=1 all clients charge one memcg and objcg (one
 * cgroup on many CPUs).  With hardirq=1 a hard hrtimer on every CPU charges and
 * uncharges from interrupt context at a fixed rate, which is where the
 * designs differ: the coupled stock makes the interrupt wait for nothing
 * (IRQs are off while a task holds the lock), the decoupled stock lets it
 * in and sends it to the slow path when the stock is busy.  workload=floor
 * is a bare per-CPU add/sub pair, the physical limit of a stock hit.
 *
 * After each run the charges are drained and checked: every memcg of the
 * run must be back to zero (bytes: to its objcg's whole leftover pages),
 * or the result says verdict=FAIL.
 *
 * Context: the write runs the benchmark in the writer's task context and
 * sleeps; one run at a time (-EBUSY otherwise).
 */
#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "mcs_internal.h"

#define BENCH_LINE_MAX		256
#define BENCH_MAX_CLIENTS	256
#define BENCH_MAX_MS		10000
#define BENCH_OBJ_SIZE		64
#define BENCH_IRQ_PERIOD_NS	(50 * NSEC_PER_USEC)

enum bench_workload { WL_PAGES, WL_BYTES, WL_MIXED, WL_FLOOR, NR_WL };

static const char * const wl_names[NR_WL] = {
	[WL_PAGES] = "pages", [WL_BYTES] = "bytes", [WL_MIXED] = "mixed", [WL_FLOOR] = "floor",
};

struct bench_params {
	enum mcs_stock_mode mode;
	unsigned int clients;
	enum bench_workload workload;
	bool hardirq;
	bool shared;
	unsigned int duration_ms;
};

struct bench_client {
	struct bench_run *run;
	struct mcs_memcg *memcg;	/* owned */
	struct mcs_objcg *objcg;	/* owned */
	struct mcs_memcg *op_memcg;	/* charged: own, or client 0's when shared */
	struct mcs_objcg *op_objcg;
	struct task_struct *task;
	u64 ops;
	long errors;
};

struct bench_irq {
	struct bench_run *run;
	struct hrtimer timer;
	u64 ops;
};

struct bench_run {
	struct bench_params p;
	struct mcs_memcg *parent, *irq_memcg;
	struct mcs_objcg *irq_objcg;
	struct bench_client *clients;
	struct bench_irq __percpu *irq;
	bool start, stop;
};

static DEFINE_MUTEX(bench_mutex);
static char bench_result[BENCH_LINE_MAX * 2];
static DEFINE_PER_CPU(unsigned long, bench_floor);

/* One charge/uncharge pair of the workload; false on an unexpected error. */
static bool bench_op(struct bench_run *run, struct mcs_memcg *memcg,
		     struct mcs_objcg *objcg, u64 i, gfp_t gfp)
{
	enum bench_workload wl = run->p.workload;

	if (wl == WL_FLOOR) {
		unsigned long *floor;

		/* what a stock hit cannot avoid: pin the CPU, touch per-CPU data */
		preempt_disable();
		floor = this_cpu_ptr(&bench_floor);
		WRITE_ONCE(*floor, *floor + 1);
		WRITE_ONCE(*floor, *floor - 1);
		preempt_enable();
		return true;
	}
	if (wl == WL_PAGES || (wl == WL_MIXED && (i & 1))) {
		if (mcs_try_charge(memcg, gfp, 1))
			return false;
		mcs_uncharge_pages(memcg, 1);
		return true;
	}
	if (mcs_obj_charge(objcg, gfp, BENCH_OBJ_SIZE))
		return false;
	mcs_obj_uncharge(objcg, BENCH_OBJ_SIZE);
	return true;
}

/*
 * cond_resched() is a no-op on fully preemptible kernels, which rely on
 * the return from the timer interrupt to preempt.  UML delivers an
 * interrupt that arrived with IRQs off when they are enabled again, with
 * no preemption check, so a loop of irqsave sections (the coupled stock)
 * would never be preempted.  preempt_enable() is a preemption point.
 */
static void bench_preempt_point(void)
{
	cond_resched();
	preempt_disable();
	preempt_enable();
}

static int bench_client_fn(void *arg)
{
	struct bench_client *c = arg;
	struct bench_run *run = c->run;
	u64 i = 0;

	while (!READ_ONCE(run->start) && !kthread_should_stop())
		bench_preempt_point();
	while (!READ_ONCE(run->stop) && !kthread_should_stop()) {
		if (!bench_op(run, c->op_memcg, c->op_objcg, i, GFP_KERNEL))
			c->errors++;
		if (!(++i & 255))
			bench_preempt_point();
	}
	c->ops = i;
	/* park until stopped so that ops is read after the loop ended */
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static enum hrtimer_restart bench_irq_fn(struct hrtimer *t)
{
	struct bench_irq *irq = container_of(t, struct bench_irq, timer);
	struct bench_run *run = irq->run;
	int i;

	if (READ_ONCE(run->stop))
		return HRTIMER_NORESTART;
	for (i = 0; i < 4; i++, irq->ops++)
		bench_op(run, run->irq_memcg, run->irq_objcg, irq->ops, GFP_ATOMIC);
	hrtimer_forward_now(t, ns_to_ktime(BENCH_IRQ_PERIOD_NS));
	return HRTIMER_RESTART;
}

static void irq_start(void *arg)
{
	struct bench_irq *irq = this_cpu_ptr(arg);

	hrtimer_start(&irq->timer, ns_to_ktime(BENCH_IRQ_PERIOD_NS),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

static unsigned long sum_events(struct bench_run *run, enum mcs_memcg_event ev)
{
	struct mcs_memcg_stat stat;
	unsigned long sum = 0;
	unsigned int i;

	for (i = 0; i < run->p.clients; i++) {
		mcs_memcg_stat(run->clients[i].memcg, &stat);
		sum += stat.events[ev];
	}
	/* the interrupt load is where trylocks fail: count it too */
	mcs_memcg_stat(run->irq_memcg, &stat);
	return sum + stat.events[ev];
}

/* Everything drained and released: a memcg holds exactly its objcg's leftover. */
static bool bench_check(struct mcs_memcg *memcg, struct mcs_objcg *objcg)
{
	return mcs_memcg_usage(memcg) * PAGE_SIZE == atomic_read(&objcg->nr_charged_bytes);
}

static void bench_release(struct bench_run *run)
{
	unsigned int i;

	for (i = 0; i < run->p.clients; i++) {
		if (run->clients[i].objcg)
			mcs_objcg_put(run->clients[i].objcg);
		if (!IS_ERR_OR_NULL(run->clients[i].memcg)) {
			mcs_memcg_offline(run->clients[i].memcg);
			mcs_memcg_put(run->clients[i].memcg);
		}
	}
	if (run->irq_objcg)
		mcs_objcg_put(run->irq_objcg);
	if (!IS_ERR_OR_NULL(run->irq_memcg)) {
		mcs_memcg_offline(run->irq_memcg);
		mcs_memcg_put(run->irq_memcg);
	}
	if (!IS_ERR_OR_NULL(run->parent)) {
		mcs_memcg_offline(run->parent);
		mcs_memcg_put(run->parent);
	}
	free_percpu(run->irq);
	kfree(run->clients);
}

static int bench_setup(struct bench_run *run)
{
	unsigned int i;
	int cpu;

	run->clients = kcalloc(run->p.clients, sizeof(*run->clients), GFP_KERNEL);
	run->irq = alloc_percpu(struct bench_irq);
	if (!run->clients || !run->irq)
		return -ENOMEM;
	run->parent = mcs_memcg_create(NULL, "bench");
	if (IS_ERR(run->parent))
		return PTR_ERR(run->parent);
	run->irq_memcg = mcs_memcg_create(run->parent, "bench-irq");
	if (IS_ERR(run->irq_memcg))
		return PTR_ERR(run->irq_memcg);
	run->irq_objcg = mcs_get_objcg(run->irq_memcg);
	if (!run->irq_objcg)
		return -ENOENT;

	for (i = 0; i < run->p.clients; i++) {
		struct bench_client *c = &run->clients[i];

		c->run = run;
		c->memcg = mcs_memcg_create(run->parent, "bench-client");
		if (IS_ERR(c->memcg))
			return PTR_ERR(c->memcg);
		c->objcg = mcs_get_objcg(c->memcg);
		if (!c->objcg)
			return -ENOENT;
		/* shared=1: every client charges client 0's memcg and objcg */
		c->op_memcg = run->p.shared ? run->clients[0].memcg : c->memcg;
		c->op_objcg = run->p.shared ? run->clients[0].objcg : c->objcg;
	}
	for_each_possible_cpu(cpu) {
		struct bench_irq *irq = per_cpu_ptr(run->irq, cpu);

		irq->run = run;
		mcs_hrtimer_setup(&irq->timer, bench_irq_fn, CLOCK_MONOTONIC,
				  HRTIMER_MODE_REL_PINNED_HARD);
	}
	return 0;
}

static int bench_run_one(struct bench_run *run, char *out, size_t len)
{
	unsigned long fails, hits, misses;
	u64 ops = 0, irq_ops = 0, t0, ns;
	unsigned int i, active;
	long errors = 0;
	bool ok = true;
	int cpu, ret;

	ret = mcs_stock_set_mode(run->p.mode);
	if (ret)
		return ret;
	ret = bench_setup(run);
	if (ret)
		goto out;

	cpus_read_lock();
	for (i = 0; i < run->p.clients; i++) {
		struct bench_client *c = &run->clients[i];
		int n = i % num_online_cpus();

		for_each_online_cpu(cpu)
			if (n-- == 0)
				break;
		c->task = kthread_create_on_cpu(bench_client_fn, c, cpu, "mcs_bench/%u");
		if (IS_ERR(c->task)) {
			ret = PTR_ERR(c->task);
			c->task = NULL;
			break;
		}
		wake_up_process(c->task);
	}
	active = min(run->p.clients, num_online_cpus());
	if (!ret && run->p.hardirq)
		on_each_cpu(irq_start, run->irq, 1);

	t0 = ktime_get_ns();
	WRITE_ONCE(run->start, true);
	if (!ret)
		msleep(run->p.duration_ms);
	WRITE_ONCE(run->stop, true);
	ns = ktime_get_ns() - t0;
	for_each_possible_cpu(cpu) {
		struct bench_irq *irq = per_cpu_ptr(run->irq, cpu);

		hrtimer_cancel(&irq->timer);
		irq_ops += irq->ops;
	}
	for (i = 0; i < run->p.clients; i++) {
		struct bench_client *c = &run->clients[i];

		if (!c->task)
			continue;
		kthread_stop(c->task);
		ops += c->ops;
		errors += c->errors;
	}
	cpus_read_unlock();
	if (ret)
		goto out;

	hits = sum_events(run, MCS_STOCK_HIT);
	misses = sum_events(run, MCS_STOCK_MISS);
	fails = sum_events(run, MCS_TRYLOCK_FAIL);

	/* invariants: nothing live, so after a drain only leftovers remain */
	mcs_drain_all_stock(mcs_root_memcg(), true);
	for (i = 0; i < run->p.clients; i++)
		ok &= bench_check(run->clients[i].memcg, run->clients[i].objcg);
	ok &= bench_check(run->irq_memcg, run->irq_objcg);
	ok &= errors == 0;

	snprintf(out, len,
		 "mode=%s clients=%u workload=%s hardirq=%d shared=%d duration_ms=%u ops=%llu ns=%llu mops=%llu.%03llu ns_per_op=%llu irq_ops=%llu hits=%lu misses=%lu trylock_fail=%lu errors=%ld verdict=%s\n",
		 mcs_stock_mode_name(run->p.mode), run->p.clients, wl_names[run->p.workload],
		 run->p.hardirq, run->p.shared, run->p.duration_ms, ops, ns,
		 ops * 1000 / max_t(u64, ns, 1), (ops * 1000000 / max_t(u64, ns, 1)) % 1000,
		 ops ? ns * active / ops : 0, irq_ops, hits, misses, fails, errors,
		 ok ? "PASS" : "FAIL");
out:
	bench_release(run);
	mcs_stock_set_mode(MCS_MODE_DECOUPLED);
	return ret;
}

static int bench_parse(char *line, struct bench_params *p)
{
	char *tok, *val;
	unsigned int v;

	*p = (struct bench_params){ .mode = MCS_MODE_DECOUPLED, .clients = 1,
				    .workload = WL_PAGES, .duration_ms = 200 };
	while ((tok = strsep(&line, " \t\n")) != NULL) {
		if (!*tok)
			continue;
		val = strchr(tok, '=');
		if (!val)
			goto bad;
		*val++ = '\0';
		if (!strcmp(tok, "mode")) {
			int m = match_string((const char * const[]){ "decoupled", "coupled",
								   "none" }, NR_MCS_MODES, val);
			if (m < 0)
				goto bad;
			p->mode = m;
		} else if (!strcmp(tok, "workload")) {
			int w = match_string(wl_names, NR_WL, val);

			if (w < 0)
				goto bad;
			p->workload = w;
		} else if (!strcmp(tok, "clients")) {
			if (kstrtouint(val, 10, &v) || !v || v > BENCH_MAX_CLIENTS)
				goto bad;
			p->clients = v;
		} else if (!strcmp(tok, "duration_ms")) {
			if (kstrtouint(val, 10, &v) || !v || v > BENCH_MAX_MS)
				goto bad;
			p->duration_ms = v;
		} else if (!strcmp(tok, "hardirq")) {
			if (kstrtobool(val, &p->hardirq))
				goto bad;
		} else if (!strcmp(tok, "shared")) {
			if (kstrtobool(val, &p->shared))
				goto bad;
		} else {
			goto bad;
		}
	}
	return 0;
bad:
	pr_warn("memcg_stock: bench: bad parameter '%*pE'\n", (int)strlen(tok), tok);
	return -EINVAL;
}

static ssize_t bench_write(struct file *file, const char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	char line[BENCH_LINE_MAX], out[sizeof(bench_result)];
	struct bench_run *run;
	int ret;

	if (!count || count >= sizeof(line))
		return -EINVAL;
	if (copy_from_user(line, ubuf, count))
		return -EFAULT;
	line[count] = '\0';

	run = kzalloc_obj(*run, GFP_KERNEL);
	if (!run)
		return -ENOMEM;
	ret = bench_parse(line, &run->p);
	if (ret)
		goto free;
	if (!mutex_trylock(&bench_mutex)) {
		ret = -EBUSY;
		goto free;
	}
	ret = bench_run_one(run, out, sizeof(out));
	if (!ret)
		strscpy(bench_result, out, sizeof(bench_result));
	mutex_unlock(&bench_mutex);
free:
	kfree(run);
	return ret ? ret : count;
}

static ssize_t bench_read(struct file *file, char __user *ubuf, size_t count, loff_t *ppos)
{
	char out[sizeof(bench_result)];

	mutex_lock(&bench_mutex);
	strscpy(out, bench_result, sizeof(out));
	mutex_unlock(&bench_mutex);
	return simple_read_from_buffer(ubuf, count, ppos, out, strlen(out));
}

static const struct file_operations bench_fops = {
	.owner = THIS_MODULE,
	.read = bench_read,
	.write = bench_write,
	.llseek = default_llseek,
};

void mcs_bench_init(struct dentry *dir)
{
	debugfs_create_file("bench", 0600, dir, NULL, &bench_fops);
}
