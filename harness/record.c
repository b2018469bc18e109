// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs "record" and "record_trace": record the running kernel's own
 * memcg charge stream, for a replay through every stock design
 * (harness/replay.c).  The layout is trace_format.h's.
 *
 *   echo "start workload=NAME [events=N] [note=TEXT]" > record
 *   ... run the workload in cgroups (v2, memory controller on) ...
 *   echo stop > record
 *   cat record_trace > NAME.mcstrace        (the stream, binary)
 *   cat record                              (a status line)
 *
 * The probes are on the kernel's own charge and uncharge points, each a
 * kprobe (entry) or a kretprobe (entry and return).  Where kernels differ,
 * a point is a group of names of one meaning, newest first: the first the
 * running kernel has is used, the others not (no event counted twice).
 *
 *   try_charge_memcg()            page charge, success or refusal
 *                                 (kretprobe); its source by the caller's
 *                                 return address; a call by the byte
 *                                 stock's refill makes no event (a refusal
 *                                 of one inside the slab hook is the
 *                                 object's byte refusal where no byte
 *                                 charge point sees that object)
 *   obj_cgroup_charge_account(),  byte charge (kretprobe): the first on
 *   obj_cgroup_charge()           6.16 .. 6.19, through which the slab
 *                                 hook and obj_cgroup_charge() go; the
 *                                 second for slab objects (6.1 ..
 *                                 6.15), percpu, zswap
 *   obj_cgroup_charge_pages()     (7.x) kernel pages charged (kretprobe);
 *                                 the byte stock's refills make no event
 *   __account_obj_stock()         (7.x) byte charge of one slab object;
 *                                 not where obj_cgroup_charge_account()
 *                                 is in use (it calls this one)
 *   __refill_obj_stock(),
 *   refill_obj_stock()            byte uncharge: a free when its
 *                                 allow_uncharge is true, a charge's
 *                                 surplus (no event) when it is false
 *   __mem_cgroup_uncharge(),
 *   __mem_cgroup_uncharge_folios(),
 *   __mem_cgroup_uncharge_list()  user folios uncharged (one event per run
 *                                 of folios of one memcg, as the kernel's
 *                                 own batch; the list on 6.1)
 *   mem_cgroup_cancel_charge()    a charge given back before it was used
 *   mem_cgroup_sk_uncharge(),
 *   mem_cgroup_uncharge_skmem()   socket pages
 *   __memcg_kmem_uncharge_page()  kernel pages
 *
 * What a call records is mcs_rec_classify()'s, from the point, the caller
 * (rec_callers[], every kernel's callers by name, told apart by return
 * address) and the points in use.  A call it did not expect is counted
 * (unknown= in the status line and the trace's note): a page charge from
 * an unknown caller, recorded with source "other", or a surplus refilled
 * by a charge whose byte charge no point in use sees.
 *
 * A point the kernel lacks (another version may inline it) is left out and
 * the status line lists the points in use; a name found only in a module
 * (this one's stocks reuse upstream's names) is not the kernel's point.
 * Every probe is registered disarmed and all are armed once the points in
 * use are known.  docs/trace-format.md says which points each kernel has.
 * The root memcg is never charged by the kernel (its charges stop before
 * the page counters): its events are left out.
 *
 * The handlers allocate nothing and never sleep: each event goes into its
 * CPU's preallocated buffer through a local_t slot counter (an interrupt
 * that probes in the middle takes the next slot); a full buffer counts the
 * event as lost.  NMI events are counted and skipped.  Memcgs go into one
 * table (MCS_TRACE_MAX_MEMCGS entries, claimed by cmpxchg on the cgroup
 * id), their ancestors first; an event is lost too where the table is
 * full, where its memcg is deeper than MCS_TRACE_MAX_DEPTH, or where
 * another CPU is still filling in the memcg's entry.
 *
 * "record_trace" is built at its open, once the recording has stopped: the
 * per-CPU buffers merged by timestamp (each CPU's events in its own
 * order), the memcg table sorted parents first, and each memcg's opening
 * balance computed (a memcg whose balance a replay would refuse keeps none
 * of its events: they count as lost); it is empty before the first
 * recording.  Errors:
 * -EBUSY (start while recording, record_trace while recording), -EINVAL
 * (bad line), -EOPNOTSUPP (a kernel without kprobes or memcg: compat.h),
 * -ENOENT (no charge point found), -ENOMEM; a refused write to "record"
 * records one entry in error_log, nothing in the kernel log.
 *
 * Context: the files are task context; the handlers run in any context of
 * the probed functions.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/utsname.h>
#include <linux/vmalloc.h>

#include "harness.h"
#include "trace_format.h"

#define REC_LINE_MAX		256
#define REC_DEFAULT_EVENTS	262144
#define REC_MIN_EVENTS		1024
#define REC_POINTS_LEN		256

/*
 * Which call of a probed function makes which event: pure functions of
 * names, built on every kernel (also where the recorder is not), so that
 * kunit/record_kunit.c checks them against the functions of each kernel
 * version, and the probes below use them as they are.
 */

/* Points of one meaning form a group: the first one the kernel has is used. */
enum rec_group {
	RG_PAGE_CHARGE, RG_BYTE_CHARGE, RG_OBJ_PAGES, RG_SLAB_CHARGE, RG_BYTE_UNCHARGE,
	RG_FOLIO, RG_FOLIOS, RG_FOLIO_LIST, RG_CANCEL, RG_SOCK, RG_KMEM, NR_RG
};

struct rec_point {
	const char *name;
	u8 group;
	s8 unless;	/* left out where this point is in use; -1: never */
	bool ret;	/* a kretprobe (entry and return), else a kprobe */
};

/*
 * In the order they are tried, newest name of a group first.  The byte
 * charge is obj_cgroup_charge_account() where the kernel has it out of
 * line (6.16 .. 6.19: the slab hook and obj_cgroup_charge() both call
 * it), else obj_cgroup_charge(); where the former records the slab's
 * objects, __account_obj_stock() (called inside it for each of them) must
 * not record them again.
 */
static const struct rec_point rec_points_desc[NR_MCS_RP] = {
	[MCS_RP_TRY_CHARGE] = { "try_charge_memcg", RG_PAGE_CHARGE, -1, true },
	[MCS_RP_CHARGE_ACCOUNT] = { "obj_cgroup_charge_account", RG_BYTE_CHARGE, -1, true },
	[MCS_RP_OBJ_CHARGE] = { "obj_cgroup_charge", RG_BYTE_CHARGE, -1, true },
	[MCS_RP_OBJ_PAGES] = { "obj_cgroup_charge_pages", RG_OBJ_PAGES, -1, true },
	[MCS_RP_SLAB_CHARGE] = { "__account_obj_stock", RG_SLAB_CHARGE,
				 MCS_RP_CHARGE_ACCOUNT, false },
	[MCS_RP_REFILL_STOCK] = { "__refill_obj_stock", RG_BYTE_UNCHARGE, -1, false },
	[MCS_RP_REFILL] = { "refill_obj_stock", RG_BYTE_UNCHARGE, -1, false },
	[MCS_RP_UNCHARGE] = { "__mem_cgroup_uncharge", RG_FOLIO, -1, false },
	[MCS_RP_UNCHARGE_FOLIOS] = { "__mem_cgroup_uncharge_folios", RG_FOLIOS, -1, false },
	[MCS_RP_UNCHARGE_LIST] = { "__mem_cgroup_uncharge_list", RG_FOLIO_LIST, -1, false },
	[MCS_RP_CANCEL] = { "mem_cgroup_cancel_charge", RG_CANCEL, -1, false },
	[MCS_RP_SK_UNCHARGE] = { "mem_cgroup_sk_uncharge", RG_SOCK, -1, false },
	[MCS_RP_UNCHARGE_SKMEM] = { "mem_cgroup_uncharge_skmem", RG_SOCK, -1, false },
	[MCS_RP_KMEM_UNCHARGE] = { "__memcg_kmem_uncharge_page", RG_KMEM, -1, false },
};

/*
 * The callers of the charge points that the recorder tells apart by the
 * return address, every kernel's names together (6.1 .. 7.x): a function
 * the kernel lacks, or has only inlined, is never a return address.  A
 * caller found in none of them is an unknown one.
 */
static const struct {
	const char *name;
	u8 caller;
} rec_callers[] = {
	{ "__mem_cgroup_charge", MCS_RC_FOLIO },
	{ "charge_memcg", MCS_RC_FOLIO },
	{ "mem_cgroup_swapin_charge_folio", MCS_RC_FOLIO },
	{ "mem_cgroup_hugetlb_try_charge", MCS_RC_FOLIO },	/* 6.8 .. 6.13 */
	{ "mem_cgroup_charge_hugetlb", MCS_RC_FOLIO },		/* 6.14 .. */
	/* cgroup v1's charge moving (move_charge_at_immigrate): its precharges */
	{ "mem_cgroup_do_precharge", MCS_RC_FOLIO },
	{ "mem_cgroup_can_attach", MCS_RC_FOLIO },
	{ "memcg1_can_attach", MCS_RC_FOLIO },
	{ "mem_cgroup_move_charge_pte_range", MCS_RC_FOLIO },
	{ "__memcg_kmem_charge_page", MCS_RC_KMEM },
	{ "mem_cgroup_charge_skmem", MCS_RC_SOCK },		/* .. 6.17 */
	{ "mem_cgroup_sk_charge", MCS_RC_SOCK },		/* 6.18 .. */
	{ "obj_cgroup_charge", MCS_RC_OBJ_CHARGE },
	{ "obj_cgroup_charge_account", MCS_RC_CHARGE_ACCOUNT },	/* 6.16 .. 6.19 */
	{ "obj_cgroup_charge_pages", MCS_RC_OBJ_PAGES },
	{ "__memcg_slab_post_alloc_hook", MCS_RC_SLAB_ALLOC },
};

/**
 * mcs_rec_point_name() - the kernel function a recorder point probes
 * @point: enum mcs_rec_point
 *
 * Return: its name, NULL for a @point out of range.
 */
const char *mcs_rec_point_name(unsigned int point)
{
	return point < NR_MCS_RP ? rec_points_desc[point].name : NULL;
}
EXPORT_SYMBOL_NS_GPL(mcs_rec_point_name, MCS_NS);

/**
 * mcs_rec_caller_class() - what a caller of a charge point is, by its name
 * @name: the function a return address lies in
 *
 * Return: enum mcs_rec_caller; MCS_RC_UNKNOWN for a function that is no
 * known caller.
 */
int mcs_rec_caller_class(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rec_callers); i++)
		if (!strcmp(rec_callers[i].name, name))
			return rec_callers[i].caller;
	return MCS_RC_UNKNOWN;
}
EXPORT_SYMBOL_NS_GPL(mcs_rec_caller_class, MCS_NS);

/**
 * mcs_rec_points_select() - choose the points of a kernel
 * @has: whether the kernel has @point (and, for the recorder, its probe
 *	is in place); called only for the points still wanted, in order
 * @arg: passed to @has
 *
 * The first point of each group that @has, unless the point that rules it
 * out is in use already.
 *
 * Return: the points in use, bit (1 << enum mcs_rec_point) each.
 */
unsigned long mcs_rec_points_select(bool (*has)(unsigned int point, void *arg), void *arg)
{
	unsigned long on = 0, groups = 0;
	unsigned int i;

	for (i = 0; i < NR_MCS_RP; i++) {
		const struct rec_point *pt = &rec_points_desc[i];

		if (groups & BIT(pt->group))
			continue;
		if (pt->unless >= 0 && (on & BIT(pt->unless)))
			continue;
		if (!has(i, arg))
			continue;
		on |= BIT(i);
		groups |= BIT(pt->group);
	}
	return on;
}
EXPORT_SYMBOL_NS_GPL(mcs_rec_points_select, MCS_NS);

/*
 * Is @caller a byte charge whose refill of the byte stock is none of the
 * workload's events, because a point in use records the byte charge
 * itself?  obj_cgroup_charge() where it is the byte charge point,
 * obj_cgroup_charge_account() where that one is, and the slab hook where
 * __account_obj_stock() records its objects (7.x).  Anywhere else the
 * call is one the points in use do not see the byte charge of.
 */
static bool rec_byte_refill(int caller, unsigned long on)
{
	switch (caller) {
	case MCS_RC_OBJ_CHARGE:
		return on & BIT(MCS_RP_OBJ_CHARGE);
	case MCS_RC_CHARGE_ACCOUNT:
		return on & BIT(MCS_RP_CHARGE_ACCOUNT);
	case MCS_RC_SLAB_ALLOC:
		return on & BIT(MCS_RP_SLAB_CHARGE);
	}
	return false;
}

/* A page charge point: try_charge_memcg(), obj_cgroup_charge_pages(). */
static void rec_classify_page(unsigned int point, int caller, unsigned long on,
			      struct mcs_rec_verdict *v)
{
	if (rec_byte_refill(caller, on)) {
		/* refused inside the slab hook: the object's byte refusal */
		if (caller == MCS_RC_SLAB_ALLOC) {
			v->bad = MCS_TRACE_BYTE_REFUSED;
			v->bytes = true;
		}
		return;
	}
	/* obj_cgroup_charge_pages() out of line: its own point has the call */
	if (point == MCS_RP_TRY_CHARGE && caller == MCS_RC_OBJ_PAGES &&
	    (on & BIT(MCS_RP_OBJ_PAGES)))
		return;
	v->ok = MCS_TRACE_PAGE_CHARGE;
	v->bad = MCS_TRACE_PAGE_REFUSED;
	switch (caller) {
	case MCS_RC_FOLIO:
		v->src = MCS_TRACE_SRC_FOLIO;
		break;
	case MCS_RC_KMEM:
		v->src = MCS_TRACE_SRC_KMEM;
		break;
	case MCS_RC_SOCK:
		v->src = MCS_TRACE_SRC_SOCK;
		break;
	default:
		v->src = MCS_TRACE_SRC_OTHER;
		v->unknown = true;
	}
}

/**
 * mcs_rec_classify() - the event one call of a charge point makes
 * @point: enum mcs_rec_point: try_charge_memcg(), obj_cgroup_charge_pages(),
 *	the byte charge points, __account_obj_stock() or a refill of the byte
 *	stock (the points whose event depends on the caller or an argument)
 * @caller: enum mcs_rec_caller of the function the call returns to
 * @on: the points in use (mcs_rec_points_select())
 * @arg: __account_obj_stock(): its size is above 0 (a charge; below 0,
 *	the free the refill point records); a refill: its allow_uncharge
 *	(false only for a charge's surplus, on every kernel); else unused
 * @v: the verdict
 *
 * A page charge from an unknown caller is recorded with source "other"
 * and counted as unknown; so is a surplus refilled by a charge whose own
 * event no point in use records (no event is made of it).
 *
 * Return: 0, or -EINVAL for a point whose events do not depend on the call.
 */
int mcs_rec_classify(unsigned int point, int caller, unsigned long on, bool arg,
		     struct mcs_rec_verdict *v)
{
	*v = (struct mcs_rec_verdict){
		.ok = MCS_REC_NO_EVENT, .bad = MCS_REC_NO_EVENT, .src = MCS_TRACE_SRC_OBJ,
	};
	switch (point) {
	case MCS_RP_TRY_CHARGE:
	case MCS_RP_OBJ_PAGES:
		rec_classify_page(point, caller, on, v);
		return 0;
	case MCS_RP_CHARGE_ACCOUNT:
	case MCS_RP_OBJ_CHARGE:
		/* the slab hook's objects, where the kernel has their own point */
		if (caller == MCS_RC_SLAB_ALLOC && (on & BIT(MCS_RP_SLAB_CHARGE)))
			return 0;
		v->ok = MCS_TRACE_BYTE_CHARGE;
		v->bad = MCS_TRACE_BYTE_REFUSED;
		return 0;
	case MCS_RP_SLAB_CHARGE:
		if (arg)
			v->ok = MCS_TRACE_BYTE_CHARGE;
		return 0;
	case MCS_RP_REFILL_STOCK:
	case MCS_RP_REFILL:
		if (arg)
			v->ok = MCS_TRACE_BYTE_UNCHARGE;
		else
			v->unknown = !rec_byte_refill(caller, on);
		return 0;
	}
	return -EINVAL;
}
EXPORT_SYMBOL_NS_GPL(mcs_rec_classify, MCS_NS);

#if MCS_HAVE_RECORDER
#include <linux/cgroup.h>
#include <linux/hash.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/sort.h>
#include <net/sock.h>
#include <asm/local.h>

/* One CPU's buffer: its events and their counts. */
struct rec_cpu {
	struct mcs_trace_event *ev;
	local_t head;	/* slots taken, also past the end */
	local_t lost;
	local_t nmi;
	local_t unknown;	/* calls the recorder did not expect (mcs_rec_classify()) */
};

/* One memcg of the table; @id 0: free.  Filled by whoever claims @id. */
struct rec_memcg {
	atomic64_t id;
	int parent;	/* index, -1: a child of the root */
	unsigned int depth;
	char name[MCS_TRACE_NAME_LEN];
	bool ready;
};

enum rec_state { REC_IDLE, REC_RECORDING, REC_STOPPED };

static DEFINE_PER_CPU(struct rec_cpu, rec_cpus);
static struct rec_memcg *rec_table;	/* MCS_TRACE_MAX_MEMCGS entries */
static DEFINE_MUTEX(rec_lock);		/* the state, the buffers, the probes */
static enum rec_state rec_state;
static unsigned int rec_cap;		/* events per CPU */
static u64 rec_t0, rec_t1;
static char rec_workload[MCS_TRACE_NAME_LEN];
static char rec_note[MCS_TRACE_NOTE_LEN];
static char rec_points[REC_POINTS_LEN];
/* the points in use (mcs_rec_points_select()), set before any probe is armed */
static unsigned long rec_on;

/* Where each of rec_callers[] lies in the kernel's text; 0: not there. */
static struct {
	unsigned long start, end;
} rec_caller_range[ARRAY_SIZE(rec_callers)];

/*
 * Whether @addr is the kernel's own text.  A probe's name is looked up in
 * the kernel first, then in every module, and this module has functions
 * of upstream's names (its stocks): where the kernel lacks one, the lookup
 * finds ours.  A module's symbol prints as "name+off/size [module]".
 */
static bool rec_kernel_text(unsigned long addr)
{
	char sym[KSYM_SYMBOL_LEN];

	sprint_symbol(sym, addr);
	return !strchr(sym, '[');
}

/* Caller @i's extent in the kernel's text, from a kprobe's address and kallsyms. */
static void rec_range_find(unsigned int i)
{
	char sym[KSYM_SYMBOL_LEN];
	unsigned long off, size;
	struct kprobe kp = {
		.symbol_name = rec_callers[i].name, .flags = KPROBE_FLAG_DISABLED,
	};
	unsigned long addr;
	char *plus;

	rec_caller_range[i].start = 0;
	rec_caller_range[i].end = 0;
	if (register_kprobe(&kp))
		return;
	addr = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	if (!rec_kernel_text(addr))
		return;
	sprint_symbol(sym, addr);
	plus = strrchr(sym, '+');
	if (!plus || sscanf(plus, "+%lx/%lx", &off, &size) != 2 || off > addr)
		return;
	rec_caller_range[i].start = addr - off;
	rec_caller_range[i].end = addr - off + size;
}

/* What the return address @ret tells of the caller: enum mcs_rec_caller. */
static int rec_caller_of(unsigned long ret)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rec_callers); i++)
		if (ret >= rec_caller_range[i].start && ret < rec_caller_range[i].end)
			return rec_callers[i].caller;
	return MCS_RC_UNKNOWN;
}

/* The classification of this call of @point (return address at the entry). */
static void rec_classify(unsigned int point, struct pt_regs *regs, bool arg,
			 struct mcs_rec_verdict *v)
{
	mcs_rec_classify(point, rec_caller_of(mcs_compat_entry_return_address(regs)),
			 READ_ONCE(rec_on), arg, v);
	if (v->unknown)
		local_inc(&this_cpu_ptr(&rec_cpus)->unknown);
}

static u8 rec_ctx(void)
{
	if (in_hardirq())
		return MCS_TRACE_HARDIRQ;
	if (in_serving_softirq())
		return MCS_TRACE_SOFTIRQ;
	return MCS_TRACE_TASK;
}

/* Not a table index: the root memcg (never charged: no event), or a memcg dropped. */
#define REC_ROOT	(-1)
#define REC_DROP	(-2)

/*
 * The table index of @memcg, its ancestors entered first; REC_ROOT for the
 * root, REC_DROP for a memcg the trace cannot have: deeper than
 * MCS_TRACE_MAX_DEPTH, no room in the full table, or a slot that another
 * CPU is still filling in (its event is counted lost).  Runs in the
 * probes: no lock, no allocation.  Under RCU (the probes run with
 * preemption off).
 */
static int rec_memcg_index(struct mem_cgroup *memcg, unsigned int level)
{
	struct cgroup_subsys_state *pcss;
	unsigned int h, i, depth;
	int parent;
	u64 id;

	if (!memcg || !memcg->css.parent)
		return REC_ROOT;
	if (level >= MCS_TRACE_MAX_DEPTH)
		return REC_DROP;
	id = cgroup_id(memcg->css.cgroup);
	h = hash_64(id, ilog2(MCS_TRACE_MAX_MEMCGS));
	for (i = 0; i < MCS_TRACE_MAX_MEMCGS; i++) {
		struct rec_memcg *m = &rec_table[(h + i) % MCS_TRACE_MAX_MEMCGS];
		u64 cur = atomic64_read(&m->id);

		if (cur == id)
			return READ_ONCE(m->ready) ? (int)(m - rec_table) : REC_DROP;
		if (cur)
			continue;
		/* a new memcg: its parent first, then claim a slot */
		pcss = memcg->css.parent;
		parent = pcss->parent ?
			rec_memcg_index(mem_cgroup_from_css(pcss), level + 1) : REC_ROOT;
		if (parent == REC_DROP)
			return REC_DROP;
		depth = parent < 0 ? 1 : rec_table[parent].depth + 1;
		if (depth > MCS_TRACE_MAX_DEPTH)
			return REC_DROP;
		if (atomic64_cmpxchg(&m->id, 0, id) != 0) {
			/* lost the slot to another memcg (or the same): look again */
			i = -1;
			continue;
		}
		m->parent = parent;
		m->depth = depth;
		strscpy(m->name, memcg->css.cgroup->kn->name, sizeof(m->name));
		/* the fields above before the flag: pairs with READ_ONCE(m->ready) */
		smp_store_release(&m->ready, true);
		return m - rec_table;
	}
	return REC_DROP;
}

/* One event into this CPU's buffer; @memcg REC_ROOT: none, REC_DROP: lost. */
static void rec_emit(int memcg, u8 kind, u8 flags, unsigned long amount)
{
	struct rec_cpu *rc = this_cpu_ptr(&rec_cpus);
	struct mcs_trace_event *e;
	long slot;

	if (memcg == REC_ROOT)
		return;
	if (in_nmi()) {
		local_inc(&rc->nmi);
		return;
	}
	/* out of range or dropped: lost, before a slot is taken (a slot taken is written) */
	if (memcg < 0 || !amount ||
	    amount > (kind < MCS_TRACE_BYTE_CHARGE ? MCS_TRACE_MAX_PAGES : MCS_TRACE_MAX_BYTES)) {
		local_inc(&rc->lost);
		return;
	}
	slot = local_inc_return(&rc->head) - 1;
	if (slot >= rec_cap) {
		local_inc(&rc->lost);
		return;
	}
	e = &rc->ev[slot];
	e->ts_ns = ktime_get_mono_fast_ns() - rec_t0;
	e->seq = slot;
	e->cpu = smp_processor_id();
	e->kind = kind;
	e->flags = flags | rec_ctx();
	e->memcg = memcg;
	e->amount = amount;
}

/* What a kretprobe's entry keeps for its return: the event of each outcome. */
struct rec_call {
	int memcg;
	u8 flags;
	u8 ok, bad;	/* kinds: on success, on refusal */
	unsigned long amount;
};

static u8 rec_gfp_flags(gfp_t gfp)
{
	return gfpflags_allow_blocking(gfp) ? 0 : MCS_TRACE_NOWAIT;
}

static int rec_objcg_index(struct obj_cgroup *objcg)
{
	int idx;

	if (!objcg)
		return REC_ROOT;
	rcu_read_lock();
	idx = rec_memcg_index(obj_cgroup_memcg(objcg), 0);
	rcu_read_unlock();
	return idx;
}

/*
 * A charge point's entry: what its return records, by the verdict.
 * Returns 1 (no return handler) where neither outcome makes an event.
 */
static int rec_call_entry(struct rec_call *c, const struct mcs_rec_verdict *v, int memcg,
			  gfp_t gfp, unsigned long amount)
{
	if ((v->ok == MCS_REC_NO_EVENT && v->bad == MCS_REC_NO_EVENT) || memcg == REC_ROOT)
		return 1;
	c->memcg = memcg;
	c->flags = rec_gfp_flags(gfp) | (v->src << MCS_TRACE_SRC_SHIFT);
	c->ok = v->ok;
	c->bad = v->bad;
	c->amount = v->bytes ? amount << PAGE_SHIFT : amount;
	return 0;
}

/* try_charge_memcg(memcg, gfp, nr_pages) */
static int rec_try_charge_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct mem_cgroup *memcg = (struct mem_cgroup *)regs_get_kernel_argument(regs, 0);
	struct mcs_rec_verdict v;

	rec_classify(MCS_RP_TRY_CHARGE, regs, false, &v);
	return rec_call_entry((struct rec_call *)ri->data, &v, rec_memcg_index(memcg, 0),
			      (__force gfp_t)regs_get_kernel_argument(regs, 1),
			      (unsigned int)regs_get_kernel_argument(regs, 2));
}

/* obj_cgroup_charge_pages(objcg, gfp, nr_pages): kernel pages, or the byte stock's refill */
static int rec_obj_pages_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct obj_cgroup *objcg = (struct obj_cgroup *)regs_get_kernel_argument(regs, 0);
	struct mcs_rec_verdict v;

	rec_classify(MCS_RP_OBJ_PAGES, regs, false, &v);
	return rec_call_entry((struct rec_call *)ri->data, &v, rec_objcg_index(objcg),
			      (__force gfp_t)regs_get_kernel_argument(regs, 1),
			      (unsigned int)regs_get_kernel_argument(regs, 2));
}

/* The byte charge: @point's (objcg, gfp, size, ...) */
static int rec_byte_charge_entry(unsigned int point, struct kretprobe_instance *ri,
				 struct pt_regs *regs)
{
	struct obj_cgroup *objcg = (struct obj_cgroup *)regs_get_kernel_argument(regs, 0);
	struct mcs_rec_verdict v;

	rec_classify(point, regs, false, &v);
	return rec_call_entry((struct rec_call *)ri->data, &v, rec_objcg_index(objcg),
			      (__force gfp_t)regs_get_kernel_argument(regs, 1),
			      regs_get_kernel_argument(regs, 2));
}

static int rec_charge_account_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return rec_byte_charge_entry(MCS_RP_CHARGE_ACCOUNT, ri, regs);
}

static int rec_obj_charge_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return rec_byte_charge_entry(MCS_RP_OBJ_CHARGE, ri, regs);
}

static int rec_call_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct rec_call *c = (struct rec_call *)ri->data;
	u8 kind = regs_return_value(regs) ? c->bad : c->ok;

	if (kind != MCS_REC_NO_EVENT)
		rec_emit(c->memcg, kind, c->flags, c->amount);
	return 0;
}

/*
 * __account_obj_stock(objcg, stock, nr, pgdat, idx) (7.x): one slab
 * object charged (@nr > 0, after its charge) or freed (@nr < 0: the byte
 * uncharge point has it).  The gfp of the allocation is not at hand: a
 * charge outside task context could not block.
 */
static int rec_slab_charge(struct kprobe *p, struct pt_regs *regs)
{
	int nr = (int)regs_get_kernel_argument(regs, 2);
	u8 flags = MCS_TRACE_SRC_OBJ << MCS_TRACE_SRC_SHIFT;
	struct mcs_rec_verdict v;

	mcs_rec_classify(MCS_RP_SLAB_CHARGE, MCS_RC_UNKNOWN, READ_ONCE(rec_on), nr > 0, &v);
	if (v.ok == MCS_REC_NO_EVENT)
		return 0;
	if (!in_task())
		flags |= MCS_TRACE_NOWAIT;
	rec_emit(rec_objcg_index((struct obj_cgroup *)regs_get_kernel_argument(regs, 0)),
		 v.ok, flags, nr);
	return 0;
}

/*
 * Bytes back into the byte stock (@point's arguments @nr_arg and
 * allow_uncharge after it): a free, unless a charge's surplus.
 */
static int rec_byte_uncharge(unsigned int point, struct pt_regs *regs, unsigned int nr_arg)
{
	unsigned int nr = regs_get_kernel_argument(regs, nr_arg);
	struct mcs_rec_verdict v;

	rec_classify(point, regs, (u8)regs_get_kernel_argument(regs, nr_arg + 1), &v);
	/* nothing refilled: no event (6.16 .. 6.19 refill 0 bytes to account a slab object) */
	if (v.ok == MCS_REC_NO_EVENT || !nr)
		return 0;
	rec_emit(rec_objcg_index((struct obj_cgroup *)regs_get_kernel_argument(regs, 0)),
		 v.ok, v.src << MCS_TRACE_SRC_SHIFT, nr);
	return 0;
}

/* refill_obj_stock(objcg, nr_bytes, allow_uncharge, ...) */
static int rec_refill_obj(struct kprobe *p, struct pt_regs *regs)
{
	return rec_byte_uncharge(MCS_RP_REFILL, regs, 1);
}

/* __refill_obj_stock(objcg, stock, nr_bytes, allow_uncharge) (7.x) */
static int rec_refill_obj_stock(struct kprobe *p, struct pt_regs *regs)
{
	return rec_byte_uncharge(MCS_RP_REFILL_STOCK, regs, 2);
}

/* A folio's memcg (an objcg's for kernel folios), and where it came from. */
static void rec_folio_uncharge(struct folio *folio, int *memcg, u8 *src, unsigned long *nr)
{
	rcu_read_lock();
	*memcg = rec_memcg_index(folio_memcg(folio), 0);
	rcu_read_unlock();
	*src = folio_memcg_kmem(folio) ? MCS_TRACE_SRC_KMEM : MCS_TRACE_SRC_FOLIO;
	*nr = folio_nr_pages(folio);
}

static int rec_uncharge_folio(struct kprobe *p, struct pt_regs *regs)
{
	unsigned long nr;
	int memcg;
	u8 src;

	rec_folio_uncharge((struct folio *)regs_get_kernel_argument(regs, 0), &memcg, &src, &nr);
	rec_emit(memcg, MCS_TRACE_PAGE_UNCHARGE, src << MCS_TRACE_SRC_SHIFT, nr);
	return 0;
}

/* One event per run of folios of one memcg, as the kernel's uncharge_batch(). */
struct rec_run {
	unsigned long pages;
	int memcg;
	u8 src;
};

static void rec_run_add(struct rec_run *run, struct folio *folio)
{
	unsigned long nr;
	int memcg;
	u8 src;

	rec_folio_uncharge(folio, &memcg, &src, &nr);
	/* a run ends at another memcg, or before it outgrows one event */
	if (memcg != run->memcg || src != run->src || run->pages + nr > MCS_TRACE_MAX_PAGES) {
		if (run->pages)
			rec_emit(run->memcg, MCS_TRACE_PAGE_UNCHARGE,
				 run->src << MCS_TRACE_SRC_SHIFT, run->pages);
		run->pages = 0;
		run->memcg = memcg;
		run->src = src;
	}
	run->pages += nr;
}

static void rec_run_end(struct rec_run *run)
{
	if (run->pages)
		rec_emit(run->memcg, MCS_TRACE_PAGE_UNCHARGE, run->src << MCS_TRACE_SRC_SHIFT,
			 run->pages);
}

/* __mem_cgroup_uncharge_folios(folio_batch) */
static int rec_uncharge_folios(struct kprobe *p, struct pt_regs *regs)
{
	struct folio_batch *fb = (struct folio_batch *)regs_get_kernel_argument(regs, 0);
	struct rec_run run = { .memcg = REC_ROOT };
	unsigned int i;

	for (i = 0; i < folio_batch_count(fb); i++)
		rec_run_add(&run, fb->folios[i]);
	rec_run_end(&run);
	return 0;
}

/* __mem_cgroup_uncharge_list(list of folios by their lru) (6.1) */
static int rec_uncharge_list(struct kprobe *p, struct pt_regs *regs)
{
	struct list_head *list = (struct list_head *)regs_get_kernel_argument(regs, 0);
	struct rec_run run = { .memcg = REC_ROOT };
	struct folio *folio;

	list_for_each_entry(folio, list, lru)
		rec_run_add(&run, folio);
	rec_run_end(&run);
	return 0;
}

static int rec_memcg_uncharge(struct pt_regs *regs, u8 src)
{
	rec_emit(rec_memcg_index((struct mem_cgroup *)regs_get_kernel_argument(regs, 0), 0),
		 MCS_TRACE_PAGE_UNCHARGE, src << MCS_TRACE_SRC_SHIFT,
		 (unsigned int)regs_get_kernel_argument(regs, 1));
	return 0;
}

static int rec_cancel(struct kprobe *p, struct pt_regs *regs)
{
	return rec_memcg_uncharge(regs, MCS_TRACE_SRC_FOLIO);
}

static int rec_uncharge_skmem(struct kprobe *p, struct pt_regs *regs)
{
	return rec_memcg_uncharge(regs, MCS_TRACE_SRC_SOCK);
}

/* mem_cgroup_sk_uncharge(sk, nr_pages) (6.18 ..): the socket's memcg */
static int rec_sk_uncharge(struct kprobe *p, struct pt_regs *regs)
{
	const struct sock *sk = (const struct sock *)regs_get_kernel_argument(regs, 0);

	rec_emit(rec_memcg_index(mcs_compat_sk_memcg(sk), 0), MCS_TRACE_PAGE_UNCHARGE,
		 MCS_TRACE_SRC_SOCK << MCS_TRACE_SRC_SHIFT,
		 (unsigned int)regs_get_kernel_argument(regs, 1));
	return 0;
}

static int rec_kmem_uncharge(struct kprobe *p, struct pt_regs *regs)
{
	struct folio *folio = page_folio((struct page *)regs_get_kernel_argument(regs, 0));
	unsigned int order = regs_get_kernel_argument(regs, 1);
	int memcg;

	if (!folio_memcg_kmem(folio))
		return 0;
	rcu_read_lock();
	memcg = rec_memcg_index(folio_memcg(folio), 0);
	rcu_read_unlock();
	rec_emit(memcg, MCS_TRACE_PAGE_UNCHARGE, MCS_TRACE_SRC_KMEM << MCS_TRACE_SRC_SHIFT,
		 1UL << min(order, 20U));
	return 0;
}

/* The handlers of each point (rec_points_desc[]: a kretprobe's or a kprobe's). */
static const struct {
	kretprobe_handler_t entry;
	kprobe_pre_handler_t pre;
} rec_handlers[NR_MCS_RP] = {
	[MCS_RP_TRY_CHARGE] = { .entry = rec_try_charge_entry },
	[MCS_RP_CHARGE_ACCOUNT] = { .entry = rec_charge_account_entry },
	[MCS_RP_OBJ_CHARGE] = { .entry = rec_obj_charge_entry },
	[MCS_RP_OBJ_PAGES] = { .entry = rec_obj_pages_entry },
	[MCS_RP_SLAB_CHARGE] = { .pre = rec_slab_charge },
	[MCS_RP_REFILL_STOCK] = { .pre = rec_refill_obj_stock },
	[MCS_RP_REFILL] = { .pre = rec_refill_obj },
	[MCS_RP_UNCHARGE] = { .pre = rec_uncharge_folio },
	[MCS_RP_UNCHARGE_FOLIOS] = { .pre = rec_uncharge_folios },
	[MCS_RP_UNCHARGE_LIST] = { .pre = rec_uncharge_list },
	[MCS_RP_CANCEL] = { .pre = rec_cancel },
	[MCS_RP_SK_UNCHARGE] = { .pre = rec_sk_uncharge },
	[MCS_RP_UNCHARGE_SKMEM] = { .pre = rec_uncharge_skmem },
	[MCS_RP_KMEM_UNCHARGE] = { .pre = rec_kmem_uncharge },
};

/* Filled in at each start: a point's kretprobe or kprobe, whichever it has. */
static struct kretprobe rec_krets[NR_MCS_RP];
static struct kprobe rec_kps[NR_MCS_RP];

static void rec_probes_off(void)
{
	unsigned int i;

	for (i = 0; i < NR_MCS_RP; i++) {
		if (!(rec_on & BIT(i)))
			continue;
		if (rec_points_desc[i].ret)
			unregister_kretprobe(&rec_krets[i]);
		else
			unregister_kprobe(&rec_kps[i]);
	}
	/* handlers still running on another CPU are over after this */
	synchronize_rcu();
}

static unsigned int rec_missed(void)
{
	unsigned int i, missed = 0;

	for (i = 0; i < NR_MCS_RP; i++)
		if ((rec_on & BIT(i)) && rec_points_desc[i].ret)
			missed += rec_krets[i].nmissed;
	return missed;
}

/*
 * mcs_rec_points_select()'s question for the running kernel: is @point's
 * probe registered (disarmed) on the kernel's own text?  It stays
 * registered; all are armed once the choice is made.
 */
static bool rec_point_has(unsigned int point, void *arg)
{
	const struct rec_point *pt = &rec_points_desc[point];
	unsigned long addr;

	if (pt->ret) {
		struct kretprobe *rp = &rec_krets[point];

		/* a fresh instance pool each time; charges may sleep in reclaim */
		memset(rp, 0, sizeof(*rp));
		rp->kp.symbol_name = pt->name;
		rp->kp.flags = KPROBE_FLAG_DISABLED;
		rp->entry_handler = rec_handlers[point].entry;
		rp->handler = rec_call_return;
		rp->data_size = sizeof(struct rec_call);
		rp->maxactive = max_t(int, 64, 8 * num_possible_cpus());
		if (register_kretprobe(rp))
			return false;
		addr = (unsigned long)rp->kp.addr;
		if (rec_kernel_text(addr))
			return true;
		unregister_kretprobe(rp);
		return false;
	}
	memset(&rec_kps[point], 0, sizeof(rec_kps[point]));
	rec_kps[point].symbol_name = pt->name;
	rec_kps[point].flags = KPROBE_FLAG_DISABLED;
	rec_kps[point].pre_handler = rec_handlers[point].pre;
	if (register_kprobe(&rec_kps[point]))
		return false;
	if (rec_kernel_text((unsigned long)rec_kps[point].addr))
		return true;
	unregister_kprobe(&rec_kps[point]);
	return false;
}

/*
 * Register every point the kernel has (mcs_rec_points_select()), then arm
 * them: a handler never runs before the set of points in use is known.
 * -ENOENT without the page charge point.
 */
static int rec_probes_on(void)
{
	unsigned long on;
	unsigned int i;
	size_t len = 0;
	int ret = 0;

	rec_points[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(rec_callers); i++)
		rec_range_find(i);
	on = mcs_rec_points_select(rec_point_has, NULL);
	WRITE_ONCE(rec_on, on);
	if (!(on & BIT(MCS_RP_TRY_CHARGE))) {
		/* no probe on try_charge_memcg: the page charge point is unknown */
		rec_probes_off();
		WRITE_ONCE(rec_on, 0);
		return -ENOENT;
	}
	for (i = 0; i < NR_MCS_RP; i++) {
		if (!(on & BIT(i)))
			continue;
		len += scnprintf(rec_points + len, sizeof(rec_points) - len, "%s%s",
				 len ? "," : "", rec_points_desc[i].name);
		if (!ret)
			ret = rec_points_desc[i].ret ? enable_kretprobe(&rec_krets[i]) :
						       enable_kprobe(&rec_kps[i]);
	}
	if (ret) {
		rec_probes_off();
		WRITE_ONCE(rec_on, 0);
	}
	return ret;
}

static void rec_buffers_free(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct rec_cpu *rc = per_cpu_ptr(&rec_cpus, cpu);

		vfree(rc->ev);
		rc->ev = NULL;
	}
	kvfree(rec_table);
	rec_table = NULL;
}

static int rec_buffers_alloc(unsigned int cap)
{
	int cpu;

	rec_table = kvcalloc(MCS_TRACE_MAX_MEMCGS, sizeof(*rec_table), GFP_KERNEL);
	if (!rec_table)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct rec_cpu *rc = per_cpu_ptr(&rec_cpus, cpu);

		rc->ev = vmalloc(array_size(cap, sizeof(*rc->ev)));
		if (!rc->ev) {
			rec_buffers_free();
			return -ENOMEM;
		}
		local_set(&rc->head, 0);
		local_set(&rc->lost, 0);
		local_set(&rc->nmi, 0);
		local_set(&rc->unknown, 0);
	}
	rec_cap = cap;
	return 0;
}

static int rec_start(struct mcs_input *in, unsigned int events)
{
	int ret;

	if (rec_state == REC_RECORDING)
		return mcs_input_error(in, MCS_ERR_REC_BUSY, NULL, -EBUSY);
	rec_buffers_free();
	rec_state = REC_IDLE;
	ret = rec_buffers_alloc(min(events, MCS_TRACE_MAX_EVENTS / num_possible_cpus()));
	if (ret)
		return mcs_input_error(in, MCS_ERR_FAILED, NULL, ret);
	rec_t0 = ktime_get_mono_fast_ns();
	ret = rec_probes_on();
	if (ret) {
		rec_buffers_free();
		return mcs_input_error(in, ret == -ENOENT ? MCS_ERR_REC_POINT : MCS_ERR_FAILED,
				       NULL, ret);
	}
	rec_state = REC_RECORDING;
	return 0;
}

static void rec_stop(void)
{
	if (rec_state != REC_RECORDING)
		return;
	rec_probes_off();
	rec_t1 = ktime_get_mono_fast_ns();
	rec_state = REC_STOPPED;
}

static unsigned int rec_count(int cpu)
{
	return min_t(unsigned long, local_read(&per_cpu_ptr(&rec_cpus, cpu)->head), rec_cap);
}

static u64 rec_sum(local_t *(*field)(struct rec_cpu *rc))
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += local_read(field(per_cpu_ptr(&rec_cpus, cpu)));
	return sum;
}

static local_t *rec_lost_of(struct rec_cpu *rc) { return &rc->lost; }
static local_t *rec_nmi_of(struct rec_cpu *rc) { return &rc->nmi; }
static local_t *rec_unknown_of(struct rec_cpu *rc) { return &rc->unknown; }

/* The trace file: built once at open, read with simple_read_from_buffer(). */
struct rec_out {
	void *buf;
	size_t size;
};

struct rec_order {
	unsigned int depth, index;
};

static int rec_order_cmp(const void *a, const void *b)
{
	const struct rec_order *x = a, *y = b;

	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* The memcg table parents first; @map: table slot to trace index. */
static unsigned int rec_build_memcgs(struct mcs_trace_memcg *out, int *map)
{
	struct rec_order *order;
	unsigned int i, n = 0;

	for (i = 0; i < MCS_TRACE_MAX_MEMCGS; i++)
		map[i] = -1;
	order = kvcalloc(MCS_TRACE_MAX_MEMCGS, sizeof(*order), GFP_KERNEL);
	if (!order)
		return 0;
	for (i = 0; i < MCS_TRACE_MAX_MEMCGS; i++) {
		if (atomic64_read(&rec_table[i].id) && rec_table[i].ready)
			order[n++] = (struct rec_order){ rec_table[i].depth, i };
	}
	sort(order, n, sizeof(*order), rec_order_cmp, NULL);
	for (i = 0; i < n; i++) {
		struct rec_memcg *m = &rec_table[order[i].index];

		map[order[i].index] = i;
		out[i].cgroup_id = atomic64_read(&m->id);
		out[i].parent = m->parent < 0 ? MCS_TRACE_NO_PARENT : map[m->parent];
		out[i].depth = m->depth;
		memcpy(out[i].name, m->name, sizeof(out[i].name));
	}
	kvfree(order);
	return n;
}

/*
 * The stream: the CPUs' buffers merged by timestamp, each CPU in its own
 * order; memcgs renumbered; the opening balances from the running sums
 * (each memcg's own events: pages in bal[4i] and its low-water mark in
 * bal[4i + 1], bytes in bal[4i + 2] and bal[4i + 3]).
 */
static unsigned int rec_build_events(struct mcs_trace_event *out, unsigned int total,
				     const int *map, s64 *bal)
{
	unsigned int n = 0, seen, *pos;
	int cpu, best;

	pos = kcalloc(nr_cpu_ids, sizeof(*pos), GFP_KERNEL);
	if (!pos)
		return 0;
	for (seen = 0; seen < total; seen++) {
		struct mcs_trace_event *e;
		s64 *b;

		best = -1;
		for_each_possible_cpu(cpu) {
			if (pos[cpu] >= rec_count(cpu))
				continue;
			if (best < 0 || per_cpu_ptr(&rec_cpus, cpu)->ev[pos[cpu]].ts_ns <
					per_cpu_ptr(&rec_cpus, best)->ev[pos[best]].ts_ns)
				best = cpu;
		}
		e = &per_cpu_ptr(&rec_cpus, best)->ev[pos[best]++];
		/* a memcg the table lost (never filled in): not in the stream */
		if (e->memcg >= MCS_TRACE_MAX_MEMCGS || map[e->memcg] < 0)
			continue;
		out[n] = *e;
		out[n].memcg = map[e->memcg];
		b = &bal[4 * out[n].memcg + (e->kind >= MCS_TRACE_BYTE_CHARGE ? 2 : 0)];
		if (e->kind == MCS_TRACE_PAGE_CHARGE || e->kind == MCS_TRACE_BYTE_CHARGE)
			b[0] += e->amount;
		else if (e->kind == MCS_TRACE_PAGE_UNCHARGE || e->kind == MCS_TRACE_BYTE_UNCHARGE)
			b[0] -= e->amount;
		b[1] = min(b[1], b[0]);
		n++;
	}
	kfree(pos);
	return n;
}

/*
 * A memcg whose opening balance is beyond what a replay takes
 * (MCS_TRACE_MAX_OPEN_PAGES, MCS_TRACE_MAX_OPEN_BYTES: charged long before
 * the recording and uncharged during it) keeps its place in the table but
 * none of its events, which count as lost: its balance is 0.  The other
 * memcgs' balances depend on their own events only.  Returns the events
 * kept.
 */
static unsigned int rec_drop_unbounded(struct mcs_trace_event *ev, unsigned int n,
				       unsigned int nm, s64 *bal)
{
	unsigned int i, kept = 0;
	bool any = false;
	u8 *drop;

	drop = kcalloc(nm, sizeof(*drop), GFP_KERNEL);
	if (!drop)
		return n;
	for (i = 0; i < nm; i++) {
		drop[i] = -bal[4 * i + 1] > MCS_TRACE_MAX_OPEN_PAGES ||
			  -bal[4 * i + 3] > (s64)MCS_TRACE_MAX_OPEN_BYTES;
		if (drop[i]) {
			bal[4 * i + 1] = 0;
			bal[4 * i + 3] = 0;
			any = true;
		}
	}
	for (i = 0; any && i < n; i++)
		if (!drop[ev[i].memcg])
			ev[kept++] = ev[i];
	kfree(drop);
	return any ? kept : n;
}

static int rec_build(struct rec_out *o)
{
	struct mcs_trace_header *h;
	struct mcs_trace_memcg *memcgs;
	unsigned int total = 0, nm, n, i;
	int *map, cpu, ret = -ENOMEM;
	s64 *bal;
	size_t size;

	for_each_possible_cpu(cpu)
		total += rec_count(cpu);
	map = kcalloc(MCS_TRACE_MAX_MEMCGS, sizeof(*map), GFP_KERNEL);
	memcgs = kvcalloc(MCS_TRACE_MAX_MEMCGS, sizeof(*memcgs), GFP_KERNEL);
	bal = kvcalloc(4 * MCS_TRACE_MAX_MEMCGS, sizeof(*bal), GFP_KERNEL);
	if (!map || !memcgs || !bal)
		goto out;
	nm = rec_build_memcgs(memcgs, map);
	size = sizeof(*h) + nm * sizeof(*memcgs) + (size_t)total * sizeof(struct mcs_trace_event);
	o->buf = vzalloc(size);
	if (!o->buf)
		goto out;
	o->size = size;
	h = o->buf;
	n = rec_build_events(o->buf + sizeof(*h) + nm * sizeof(*memcgs), total, map, bal);
	n = rec_drop_unbounded(o->buf + sizeof(*h) + nm * sizeof(*memcgs), n, nm, bal);
	o->size = sizeof(*h) + nm * sizeof(*memcgs) + (size_t)n * sizeof(struct mcs_trace_event);
	for (i = 0; i < nm; i++) {
		memcgs[i].open_pages = -bal[4 * i + 1];
		memcgs[i].open_bytes = -bal[4 * i + 3];
	}
	memcpy(o->buf + sizeof(*h), memcgs, nm * sizeof(*memcgs));

	memcpy(h->magic, MCS_TRACE_MAGIC, sizeof(h->magic));
	h->version = MCS_TRACE_VERSION;
	h->header_size = sizeof(*h);
	h->memcg_size = sizeof(struct mcs_trace_memcg);
	h->event_size = sizeof(struct mcs_trace_event);
	/* CPU ids: every event's cpu is below nr_cpu_ids (a sparse mask has gaps) */
	h->nr_cpus = nr_cpu_ids;
	h->nr_memcgs = nm;
	h->nr_events = n;
	h->page_size = PAGE_SIZE;
	h->lost = rec_sum(rec_lost_of) + total - n;
	h->skipped_nmi = rec_sum(rec_nmi_of);
	h->missed = rec_missed();
	h->duration_ns = rec_t1 - rec_t0;
	strscpy_pad(h->release, init_utsname()->release, sizeof(h->release));
	strscpy_pad(h->workload, rec_workload, sizeof(h->workload));
	scnprintf(h->note, sizeof(h->note), "%s%sunknown=%llu probes=%s", rec_note,
		  rec_note[0] ? " " : "", rec_sum(rec_unknown_of), rec_points);
	ret = 0;
out:
	kvfree(bal);
	kvfree(memcgs);
	kfree(map);
	return ret;
}

static int rec_trace_open(struct inode *inode, struct file *file)
{
	struct rec_out *o;
	int ret;

	o = kzalloc_obj(*o, GFP_KERNEL);
	if (!o)
		return -ENOMEM;
	mutex_lock(&rec_lock);
	/* nothing recorded yet: an empty file */
	ret = rec_state == REC_RECORDING ? -EBUSY : rec_state == REC_IDLE ? 0 : rec_build(o);
	mutex_unlock(&rec_lock);
	if (ret) {
		kfree(o);
		return ret;
	}
	file->private_data = o;
	return 0;
}

static ssize_t rec_trace_read(struct file *file, char __user *ubuf, size_t count, loff_t *ppos)
{
	struct rec_out *o = file->private_data;

	return simple_read_from_buffer(ubuf, count, ppos, o->buf, o->size);
}

static int rec_trace_release(struct inode *inode, struct file *file)
{
	struct rec_out *o = file->private_data;

	vfree(o->buf);
	kfree(o);
	return 0;
}

static const struct file_operations rec_trace_fops = {
	.owner = THIS_MODULE,
	.open = rec_trace_open,
	.read = rec_trace_read,
	.release = rec_trace_release,
	.llseek = default_llseek,
};

static int rec_status(char *buf, size_t size)
{
	static const char * const states[] = { "idle", "recording", "stopped" };
	u64 events = 0;
	int cpu;

	if (rec_state != REC_IDLE)
		for_each_possible_cpu(cpu)
			events += rec_count(cpu);
	return scnprintf(buf, size,
			 "record state=%s workload=%s events=%llu lost=%llu nmi=%llu missed=%u unknown=%llu points=%s\n",
			 states[rec_state], rec_workload[0] ? rec_workload : "-", events,
			 rec_state == REC_IDLE ? 0 : rec_sum(rec_lost_of),
			 rec_state == REC_IDLE ? 0 : rec_sum(rec_nmi_of),
			 rec_missed(),
			 rec_state == REC_IDLE ? 0 : rec_sum(rec_unknown_of),
			 rec_points[0] ? rec_points : "-");
}

void mcs_record_exit(void)
{
	mutex_lock(&rec_lock);
	rec_stop();
	rec_buffers_free();
	rec_state = REC_IDLE;
	mutex_unlock(&rec_lock);
}
#else /* !MCS_HAVE_RECORDER */
static int rec_start(struct mcs_input *in, unsigned int events)
{
	return mcs_input_error(in, MCS_ERR_REC_NONE, NULL, -EOPNOTSUPP);
}

static void rec_stop(void)
{
}

static int rec_status(char *buf, size_t size)
{
	return scnprintf(buf, size, "record state=unsupported\n");
}

void mcs_record_exit(void)
{
}

static DEFINE_MUTEX(rec_lock);
static char rec_workload[MCS_TRACE_NAME_LEN];
static char rec_note[MCS_TRACE_NOTE_LEN];
#endif /* MCS_HAVE_RECORDER */

/* A name or note: printable, no blank (the parser ruled those out), in @size. */
static int rec_text(struct mcs_input *in, const char *val, char *out, size_t size)
{
	if (strlen(val) >= size)
		return mcs_input_error(in, MCS_ERR_REC_TEXT, val + size - 1, -EINVAL);
	strscpy_pad(out, val, size);
	return 0;
}

static int rec_parse_start(struct mcs_input *in, char *line)
{
	static const char * const keys[] = { "workload", "events", "note" };
	char workload[MCS_TRACE_NAME_LEN] = "", note[MCS_TRACE_NOTE_LEN] = "";
	unsigned int events = REC_DEFAULT_EVENTS, seen = 0;
	char *tok, *key, *val;
	int k, ret;

	while ((tok = mcs_input_next(&line)) != NULL) {
		ret = mcs_input_kv(in, tok, &key, &val);
		if (ret)
			return ret;
		k = mcs_input_key(in, key, keys, ARRAY_SIZE(keys));
		if (k < 0)
			return k;
		if (seen & BIT(k))
			return mcs_input_error(in, MCS_ERR_TWICE, key, -EINVAL);
		seen |= BIT(k);
		if (k == 0)
			ret = rec_text(in, val, workload, sizeof(workload));
		else if (k == 1)
			ret = mcs_input_uint(in, val, REC_MIN_EVENTS,
					     MCS_TRACE_MAX_EVENTS, false, &events);
		else
			ret = rec_text(in, val, note, sizeof(note));
		if (ret)
			return ret;
	}
	if (!workload[0])
		return mcs_input_error(in, MCS_ERR_REC_WORKLOAD, NULL, -EINVAL);
	ret = rec_start(in, events);
	if (!ret) {
		memcpy(rec_workload, workload, sizeof(workload));
		memcpy(rec_note, note, sizeof(note));
	}
	return ret;
}

static ssize_t rec_write(struct file *file, const char __user *ubuf, size_t count, loff_t *ppos)
{
	struct mcs_input in;
	char *cursor, *verb;
	int ret;

	ret = mcs_input_copy(&in, "record", ubuf, count, REC_LINE_MAX, false);
	if (ret)
		return ret;
	cursor = in.buf;
	verb = mcs_input_next(&cursor);
	mutex_lock(&rec_lock);
	if (!strcmp(verb, "start")) {
		ret = rec_parse_start(&in, cursor);
	} else if (!strcmp(verb, "stop") && !cursor) {
		rec_stop();
		ret = 0;
	} else {
		ret = mcs_input_error(&in, MCS_ERR_REC_COMMAND, verb, -EINVAL);
	}
	mutex_unlock(&rec_lock);
	mcs_input_free(&in);
	return ret ? ret : count;
}

static ssize_t rec_read(struct file *file, char __user *ubuf, size_t count, loff_t *ppos)
{
	char buf[REC_LINE_MAX + REC_POINTS_LEN];
	int len;

	mutex_lock(&rec_lock);
	len = rec_status(buf, sizeof(buf));
	mutex_unlock(&rec_lock);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations rec_fops = {
	.owner = THIS_MODULE,
	.read = rec_read,
	.write = rec_write,
	.llseek = default_llseek,
};

/**
 * mcs_record_init() - create the debugfs files "record" and "record_trace"
 * @dir: the module's debugfs directory
 */
void mcs_record_init(struct dentry *dir)
{
	debugfs_create_file("record", 0600, dir, NULL, &rec_fops);
#if MCS_HAVE_RECORDER
	debugfs_create_file("record_trace", 0400, dir, NULL, &rec_trace_fops);
#endif
}
