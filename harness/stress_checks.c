// SPDX-License-Identifier: GPL-2.0
/*
 * The stress harness's invariants (see stress.h), checked exactly after a
 * case: nothing it charged may be left in a counter, a stock, a leftover
 * or a reference.
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

/* ---- invariant checks --------------------------------------------------------------- */

void stress_settle(struct stress_snapshot *s)
{
	mcs_drain_all_stock(mcs_root_memcg(), true);
	mcs_wait_for_frees();
	s->memcgs = mcs_memcg_nr_alive();
	s->objcgs = mcs_objcg_nr_alive();
	s->underflows = mcs_page_counter_underflows();
	s->misuses = mcs_charge_misuses();
	s->root_usage = mcs_memcg_usage(mcs_root_memcg());
}

/* Is @memcg in the tree or below it?  Under rcu_read_lock(). */
static bool stress_owns(struct stress_run *run, struct mcs_memcg *memcg)
{
	unsigned int i;

	for (; memcg; memcg = READ_ONCE(memcg->parent))
		for (i = 0; i < run->nr_memcgs; i++)
			if (run->memcg[i].memcg == memcg)
				return true;
	return false;
}

/* What the stocks still hold of the tree: slots of pages and of bytes. */
struct stress_slots {
	struct stress_run *run;
	unsigned int memcg, obj, id;
	int cpu;
	const char *stock;
};

static void stress_slot(const struct mcs_stock_slot *slot, void *arg)
{
	struct stress_slots *s = arg;

	if (!stress_owns(s->run, slot->memcg))
		return;
	if (slot->bytes)
		s->obj++;
	else
		s->memcg++;
	if (s->cpu < 0) {
		s->cpu = slot->cpu;
		s->stock = slot->stock;
		s->id = slot->memcg->id;
	}
}

/*
 * After the drain no stock of any CPU may hold anything of the tree: the
 * slots of every design's stocks (stock_slots.c), which the replay checks
 * too.
 */
static void stress_check_stocks(struct stress_run *run)
{
	struct stress_slots s = { .run = run, .cpu = -1, .stock = "-" };
	int unread = mcs_stock_slots_walk(NULL, -1, stress_slot, &s);

	if (s.memcg || s.obj)
		stress_violation(run, CHECK_REFS,
				 "%u memcg and %u obj stock slots still cached (first: cpu %d, stock %s, memcg %u)",
				 s.memcg, s.obj, s.cpu, s.stock, s.id);
	if (unread)
		stress_violation(run, CHECK_REFS,
				 "%d kinds of per-CPU stock that the check cannot read (stock_slots.c)",
				 unread);
}

/*
 * Everything was released and drained.  Leftovers never keep whole pages
 * and the sub-page rests of freed objects add up to whole pages, so every
 * objcg holds 0 bytes and every memcg 0 pages, exactly.
 */
void stress_check_tree(struct stress_run *run)
{
	struct stress_result *res = run->res;
	unsigned long commits = 0, pgpgin = 0;
	unsigned int n = run->nr_memcgs;
	int i, nid, item;

	for (i = 0; i < n; i++) {
		struct stress_memcg *sm = &run->memcg[i];
		unsigned int refs = refcount_read(&sm->memcg->refcnt);
		unsigned int id = sm->memcg->id;
		struct mcs_memcg_stat st;
		long pages, in, out;
		int ev;

		mcs_memcg_stat(sm->memcg, &st);
		for (ev = 0; ev < NR_MCS_EVENTS; ev++)
			res->events[ev] += st.events[ev];
		/* whole pages never stay on a leftover: nothing may be left */
		if (mcs_objcg_leftover_bytes(sm->objcg))
			stress_violation(run, CHECK_LEFTOVER, "memcg %u: objcg keeps %u bytes",
					 id, mcs_objcg_leftover_bytes(sm->objcg));
		if (st.usage)
			stress_violation(run, CHECK_COUNTERS, "memcg %u: usage %lu after the drain",
					 id, st.usage);
		/* ours, plus one per child memcg */
		if (refs != 1 + sm->children)
			stress_violation(run, CHECK_REFS, "memcg %u: %u references, expected %u",
					 id, refs, 1 + sm->children);
		for_each_node(nid)
			for (item = 0; item < NR_MCS_SLAB_ITEMS; item++) {
				long b = mcs_memcg_slab_stat(sm->memcg, nid, item);

				if (b)
					stress_violation(run, CHECK_STATS,
							 "memcg %u: node %d slab item %d: %ld bytes",
							 id, nid, item, b);
			}
		pages = mcs_charge_stat(sm->memcg, MCS_CHARGED_PAGES);
		in = mcs_charge_stat(sm->memcg, MCS_PGPGIN);
		out = mcs_charge_stat(sm->memcg, MCS_PGPGOUT);
		if (pages || in != out)
			stress_violation(run, CHECK_STATS,
					 "memcg %u: charged_pages %ld pgpgin %ld pgpgout %ld",
					 id, pages, in, out);
		pgpgin += in;
	}

	for (i = 0; i < NR_STRESS_CTX; i++)
		commits += res->ctx[i].commits_tree;
	if (pgpgin != commits)
		stress_violation(run, CHECK_STATS, "tree: pgpgin %lu, %lu charges committed",
				 pgpgin, commits);
	commits = 0;
	for (i = 0; i < NR_STRESS_CTX; i++)
		commits += res->ctx[i].commits_churn;
	if (run->churn_pgpgin != commits)
		stress_violation(run, CHECK_STATS, "churn: pgpgin %lu, %lu charges committed",
				 run->churn_pgpgin, commits);

	stress_check_stocks(run);
}

/* After the tree is gone: every object freed, nothing underflowed. */
void stress_check_settled(struct stress_run *run, const struct stress_snapshot *pre)
{
	struct stress_result *res = run->res;
	struct stress_snapshot post;
	int i;

	stress_settle(&post);
	if (post.memcgs != pre->memcgs)
		stress_violation(run, CHECK_FREED, "%ld memcgs alive, %ld before",
				 post.memcgs, pre->memcgs);
	if (post.objcgs != pre->objcgs)
		stress_violation(run, CHECK_FREED, "%ld objcgs alive, %ld before",
				 post.objcgs, pre->objcgs);
	if (post.root_usage != pre->root_usage)
		stress_violation(run, CHECK_COUNTERS, "root usage %lu, %lu before",
				 post.root_usage, pre->root_usage);
	if (post.underflows != pre->underflows)
		stress_violation(run, CHECK_UNDERFLOW, "%ld page counter underflows",
				 post.underflows - pre->underflows);
	if (post.misuses != pre->misuses)
		stress_violation(run, CHECK_MISUSE, "%ld charge descriptor misuses",
				 post.misuses - pre->misuses);
	for (i = 0; i < NR_STRESS_CTX; i++)
		if (res->ctx[i].errors)
			stress_violation(run, CHECK_ERRORS, "%s: %lu unexpected errors, first %d",
					 stress_ctx_names[i], res->ctx[i].errors,
					 res->ctx[i].first_error);
	if (atomic_read(&run->worker_failures))
		stress_violation(run, CHECK_ERRORS, "%d workers could not be created",
				 atomic_read(&run->worker_failures));
	/* NMI load on: NMIs were handled, and none was lost */
	if (res->nmi == FEATURE_ON && res->status == STATUS_RUNNING && !res->ctx[CTX_NMI].ops)
		stress_violation(run, CHECK_ERRORS, "nmi: no operation in NMI (%lu sent, %lu busy)",
				 res->nmi_sent, res->nmi_busy);
	if (res->nmi_lost)
		stress_violation(run, CHECK_ERRORS, "nmi: %lu NMIs never handled", res->nmi_lost);
	/* a case that ran its course with hotplug on must have cycled a CPU */
	if (res->hotplug == FEATURE_ON && res->status == STATUS_RUNNING && !res->hotplug_cycles)
		stress_violation(run, CHECK_ERRORS,
				 "hotplug: no CPU down/up cycle completed in %llu ms (%lu errors)",
				 div_u64(res->elapsed_us, 1000), res->hotplug_errors);
}
