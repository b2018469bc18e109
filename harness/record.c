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
 *                                 stock's refill is skipped (a refusal of
 *                                 one inside the slab hook is the object's
 *                                 byte refusal)
 *   obj_cgroup_charge()           byte charge (kretprobe): slab objects
 *                                 (6.12), percpu, zswap
 *   obj_cgroup_charge_pages()     (7.x) kernel pages charged (kretprobe);
 *                                 the byte stock's refills skipped
 *   __account_obj_stock()         (7.x) byte charge of one slab object
 *   __refill_obj_stock(),
 *   refill_obj_stock()            byte uncharge (skipped when a charge
 *                                 calls it: its surplus)
 *   __mem_cgroup_uncharge(),
 *   __mem_cgroup_uncharge_folios() user folios uncharged (one event per run
 *                                 of folios of one memcg, as the kernel's
 *                                 own batch)
 *   mem_cgroup_cancel_charge()    a charge given back before it was used
 *   mem_cgroup_sk_uncharge(),
 *   mem_cgroup_uncharge_skmem()   socket pages
 *   __memcg_kmem_uncharge_page()  kernel pages
 *
 * A point the kernel lacks (another version may inline it) is left out and
 * the status line lists the points in use; a name found only in a module
 * (this one's stocks reuse upstream's names) is not the kernel's point.
 * docs/trace-format.md says which points each kernel has.  The root memcg
 * is never charged by the kernel (its charges stop before the page
 * counters): its events are left out.
 *
 * The handlers allocate nothing and never sleep: each event goes into its
 * CPU's preallocated buffer through a local_t slot counter (an interrupt
 * that probes in the middle takes the next slot); a full buffer counts the
 * event as lost.  NMI events are counted and skipped.  Memcgs go into one
 * table (MCS_TRACE_MAX_MEMCGS entries, claimed by cmpxchg on the cgroup
 * id), their ancestors first; a full table loses the event too.
 *
 * "record_trace" is built at its open, once the recording has stopped: the
 * per-CPU buffers merged by timestamp (each CPU's events in its own
 * order), the memcg table sorted parents first, and each memcg's opening
 * balance computed; it is empty before the first recording.  Errors:
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
static atomic_t rec_table_lost = ATOMIC_INIT(0);
static DEFINE_MUTEX(rec_lock);		/* the state, the buffers, the probes */
static enum rec_state rec_state;
static unsigned int rec_cap;		/* events per CPU */
static u64 rec_t0, rec_t1;
static char rec_workload[MCS_TRACE_NAME_LEN];
static char rec_note[MCS_TRACE_NOTE_LEN];
static char rec_points[REC_POINTS_LEN];

/*
 * The callers of the charge points, told apart by return address.  Names
 * of one meaning in other kernels share a value: each kernel has some.
 */
enum rec_caller {
	RC_OBJ_CHARGE,	/* the byte stock's refill by obj_cgroup_charge() */
	RC_SLAB_ALLOC,	/* the same inside the slab hook (7.x) */
	RC_OBJ_PAGES,	/* obj_cgroup_charge_pages(): its own point records */
	RC_FOLIO, RC_KMEM, RC_SOCK, NR_RC
};

struct rec_range {
	const char *name;
	int what;
	unsigned long start, end;	/* 0: not found */
};

static struct rec_range rec_callers[] = {
	{ "obj_cgroup_charge", RC_OBJ_CHARGE },
	{ "__memcg_slab_post_alloc_hook", RC_SLAB_ALLOC },
	{ "obj_cgroup_charge_pages", RC_OBJ_PAGES },
	{ "__memcg_kmem_charge_page", RC_KMEM },
	{ "mem_cgroup_charge_skmem", RC_SOCK },
	{ "mem_cgroup_sk_charge", RC_SOCK },
	{ "__mem_cgroup_charge", RC_FOLIO },
	{ "charge_memcg", RC_FOLIO },
	{ "mem_cgroup_swapin_charge_folio", RC_FOLIO },
	{ "mem_cgroup_hugetlb_try_charge", RC_FOLIO },
};

static const u8 rec_caller_src[NR_RC] = {
	[RC_FOLIO] = MCS_TRACE_SRC_FOLIO, [RC_KMEM] = MCS_TRACE_SRC_KMEM,
	[RC_SOCK] = MCS_TRACE_SRC_SOCK,
	/* reached only when obj_cgroup_charge_pages() has no probe of its own */
	[RC_OBJ_PAGES] = MCS_TRACE_SRC_OTHER,
};

/* The function @name's extent, from a kprobe's address and kallsyms. */
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

static void rec_range_find(struct rec_range *r)
{
	char sym[KSYM_SYMBOL_LEN];
	unsigned long off, size;
	struct kprobe kp = { .symbol_name = r->name, .flags = KPROBE_FLAG_DISABLED };
	unsigned long addr;
	char *plus;

	r->start = 0;
	r->end = 0;
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
	r->start = addr - off;
	r->end = r->start + size;
}

/* What a return address @ret tells of the caller: enum rec_caller, -1 unknown. */
static int rec_caller_of(unsigned long ret)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rec_callers); i++)
		if (ret >= rec_callers[i].start && ret < rec_callers[i].end)
			return rec_callers[i].what;
	return -1;
}

static u8 rec_ctx(void)
{
	if (in_hardirq())
		return MCS_TRACE_HARDIRQ;
	if (in_serving_softirq())
		return MCS_TRACE_SOFTIRQ;
	return MCS_TRACE_TASK;
}

/*
 * The table index of @memcg, its ancestors entered first; -1 for the root
 * (and for a memcg the full table has no room for).  Runs in the probes:
 * no lock, no allocation.  Under RCU (the probes run with preemption off).
 */
static int rec_memcg_index(struct mem_cgroup *memcg, unsigned int level)
{
	struct cgroup_subsys_state *pcss;
	u64 id;
	unsigned int h, i;
	int parent;

	if (!memcg || !memcg->css.parent || level > MCS_TRACE_MAX_DEPTH)
		return -1;
	id = cgroup_id(memcg->css.cgroup);
	h = hash_64(id, ilog2(MCS_TRACE_MAX_MEMCGS));
	for (i = 0; i < MCS_TRACE_MAX_MEMCGS; i++) {
		struct rec_memcg *m = &rec_table[(h + i) % MCS_TRACE_MAX_MEMCGS];
		u64 cur = atomic64_read(&m->id);

		if (cur == id)
			return READ_ONCE(m->ready) ? (int)(m - rec_table) : -1;
		if (cur)
			continue;
		/* a new memcg: its parent first, then claim a slot */
		pcss = memcg->css.parent;
		parent = pcss->parent ?
			rec_memcg_index(mem_cgroup_from_css(pcss), level + 1) : -1;
		if (pcss->parent && parent < 0)
			return -1;
		if (atomic64_cmpxchg(&m->id, 0, id) != 0) {
			/* lost the slot to another memcg (or the same): look again */
			i = -1;
			continue;
		}
		m->parent = parent;
		m->depth = parent < 0 ? 1 : rec_table[parent].depth + 1;
		strscpy(m->name, memcg->css.cgroup->kn->name, sizeof(m->name));
		/* the fields above before the flag: pairs with READ_ONCE(m->ready) */
		smp_store_release(&m->ready, true);
		return m - rec_table;
	}
	atomic_inc(&rec_table_lost);
	return -1;
}

/* One event into this CPU's buffer. */
static void rec_emit(int memcg, u8 kind, u8 flags, unsigned long amount)
{
	struct rec_cpu *rc = this_cpu_ptr(&rec_cpus);
	struct mcs_trace_event *e;
	long slot;

	if (memcg < 0)
		return;
	if (in_nmi()) {
		local_inc(&rc->nmi);
		return;
	}
	/* out of range: lost, before a slot is taken (a slot taken is written) */
	if (!amount ||
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

/* Points in use, by meaning (enum rec_group): the first name found of each. */
enum rec_group {
	RG_PAGE_CHARGE, RG_BYTE_CHARGE, RG_OBJ_PAGES, RG_SLAB_CHARGE, RG_BYTE_UNCHARGE,
	RG_FOLIO, RG_FOLIOS, RG_CANCEL, RG_SOCK, RG_KMEM, NR_RG
};

static bool rec_group_on[NR_RG];

/* No event: what a byte stock's refill records when it succeeds. */
#define REC_NO_EVENT	NR_MCS_TRACE_KINDS

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
		return -1;
	rcu_read_lock();
	idx = rec_memcg_index(obj_cgroup_memcg(objcg), 0);
	rcu_read_unlock();
	return idx;
}

/*
 * A page charge of @nr by @caller into @memcg (a table index): the
 * workload's, or the byte stock's refill, whose success is not the
 * workload's (its byte charges are) but whose refusal inside the slab hook
 * is the object's.  Returns 1 for nothing to record.
 */
static int rec_page_call(struct rec_call *c, int caller, int memcg, gfp_t gfp, unsigned int nr)
{
	if (caller == RC_OBJ_CHARGE || memcg < 0)
		return 1;
	c->memcg = memcg;
	c->flags = rec_gfp_flags(gfp);
	if (caller == RC_SLAB_ALLOC) {
		c->ok = REC_NO_EVENT;
		c->bad = MCS_TRACE_BYTE_REFUSED;
		c->flags |= MCS_TRACE_SRC_OBJ << MCS_TRACE_SRC_SHIFT;
		c->amount = (unsigned long)nr << PAGE_SHIFT;
		return 0;
	}
	c->ok = MCS_TRACE_PAGE_CHARGE;
	c->bad = MCS_TRACE_PAGE_REFUSED;
	c->flags |= (caller < 0 ? MCS_TRACE_SRC_OTHER : rec_caller_src[caller]) <<
		    MCS_TRACE_SRC_SHIFT;
	c->amount = nr;
	return 0;
}

static int rec_try_charge_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	int caller = rec_caller_of(mcs_compat_entry_return_address(regs));
	struct mem_cgroup *memcg = (struct mem_cgroup *)regs_get_kernel_argument(regs, 0);

	/* the byte stock's refill, or obj_cgroup_charge_pages()'s own event */
	if (caller == RC_OBJ_CHARGE ||
	    (caller == RC_OBJ_PAGES && READ_ONCE(rec_group_on[RG_OBJ_PAGES])))
		return 1;
	return rec_page_call((struct rec_call *)ri->data, caller,
			     rec_memcg_index(memcg, 0),
			     (__force gfp_t)regs_get_kernel_argument(regs, 1),
			     regs_get_kernel_argument(regs, 2));
}

/* obj_cgroup_charge_pages() (7.x): kernel pages, or the byte stock's refill */
static int rec_obj_pages_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	int caller = rec_caller_of(mcs_compat_entry_return_address(regs));
	struct obj_cgroup *objcg = (struct obj_cgroup *)regs_get_kernel_argument(regs, 0);

	if (caller == RC_OBJ_CHARGE)
		return 1;
	return rec_page_call((struct rec_call *)ri->data, caller, rec_objcg_index(objcg),
			     (__force gfp_t)regs_get_kernel_argument(regs, 1),
			     regs_get_kernel_argument(regs, 2));
}

static int rec_call_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct rec_call *c = (struct rec_call *)ri->data;
	u8 kind = regs_return_value(regs) ? c->bad : c->ok;

	if (kind != REC_NO_EVENT)
		rec_emit(c->memcg, kind, c->flags, c->amount);
	return 0;
}

static int rec_obj_charge_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct rec_call *c = (struct rec_call *)ri->data;

	/* the slab hook's objects, where the kernel has their own point */
	if (READ_ONCE(rec_group_on[RG_SLAB_CHARGE]) &&
	    rec_caller_of(mcs_compat_entry_return_address(regs)) == RC_SLAB_ALLOC)
		return 1;
	c->memcg = rec_objcg_index((struct obj_cgroup *)regs_get_kernel_argument(regs, 0));
	if (c->memcg < 0)
		return 1;
	c->flags = rec_gfp_flags((__force gfp_t)regs_get_kernel_argument(regs, 1)) |
		   (MCS_TRACE_SRC_OBJ << MCS_TRACE_SRC_SHIFT);
	c->ok = MCS_TRACE_BYTE_CHARGE;
	c->bad = MCS_TRACE_BYTE_REFUSED;
	c->amount = regs_get_kernel_argument(regs, 2);
	return 0;
}

/*
 * __account_obj_stock() (7.x): one slab object charged (@nr > 0, after its
 * charge) or freed (@nr < 0: the byte uncharge point has it).  The gfp of
 * the allocation is not at hand: a charge outside task context could not
 * block.
 */
static int rec_slab_charge(struct kprobe *p, struct pt_regs *regs)
{
	int nr = (int)regs_get_kernel_argument(regs, 2);
	u8 flags = MCS_TRACE_SRC_OBJ << MCS_TRACE_SRC_SHIFT;

	if (nr <= 0)
		return 0;
	if (!in_task())
		flags |= MCS_TRACE_NOWAIT;
	rec_emit(rec_objcg_index((struct obj_cgroup *)regs_get_kernel_argument(regs, 0)),
		 MCS_TRACE_BYTE_CHARGE, flags, nr);
	return 0;
}

/* Bytes back into the byte stock, argument @nr_arg: a free, unless a charge's surplus. */
static int rec_byte_uncharge(struct pt_regs *regs, unsigned int nr_arg)
{
	int caller = rec_caller_of(mcs_compat_entry_return_address(regs));

	if (caller == RC_OBJ_CHARGE || caller == RC_SLAB_ALLOC)
		return 0;
	rec_emit(rec_objcg_index((struct obj_cgroup *)regs_get_kernel_argument(regs, 0)),
		 MCS_TRACE_BYTE_UNCHARGE, MCS_TRACE_SRC_OBJ << MCS_TRACE_SRC_SHIFT,
		 (unsigned int)regs_get_kernel_argument(regs, nr_arg));
	return 0;
}

/* refill_obj_stock(objcg, nr_bytes, allow_uncharge) */
static int rec_refill_obj(struct kprobe *p, struct pt_regs *regs)
{
	return rec_byte_uncharge(regs, 1);
}

/* __refill_obj_stock(objcg, stock, nr_bytes, allow_uncharge) (7.x) */
static int rec_refill_obj_stock(struct kprobe *p, struct pt_regs *regs)
{
	return rec_byte_uncharge(regs, 2);
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
static int rec_uncharge_folios(struct kprobe *p, struct pt_regs *regs)
{
	struct folio_batch *fb = (struct folio_batch *)regs_get_kernel_argument(regs, 0);
	unsigned long nr, run = 0;
	int memcg, run_memcg = -1;
	unsigned int i;
	u8 src, run_src = 0;

	for (i = 0; i < folio_batch_count(fb); i++) {
		rec_folio_uncharge(fb->folios[i], &memcg, &src, &nr);
		/* a run ends at another memcg, or before it outgrows one event */
		if (memcg != run_memcg || src != run_src || run + nr > MCS_TRACE_MAX_PAGES) {
			if (run)
				rec_emit(run_memcg, MCS_TRACE_PAGE_UNCHARGE,
					 run_src << MCS_TRACE_SRC_SHIFT, run);
			run = 0;
			run_memcg = memcg;
			run_src = src;
		}
		run += nr;
	}
	if (run)
		rec_emit(run_memcg, MCS_TRACE_PAGE_UNCHARGE, run_src << MCS_TRACE_SRC_SHIFT, run);
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

/* mem_cgroup_sk_uncharge(sk, nr_pages) (7.x): the socket's memcg */
static int rec_sk_uncharge(struct kprobe *p, struct pt_regs *regs)
{
	const struct sock *sk = (const struct sock *)regs_get_kernel_argument(regs, 0);

	rec_emit(rec_memcg_index(READ_ONCE(sk->sk_memcg), 0), MCS_TRACE_PAGE_UNCHARGE,
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

/*
 * The points, by name, in the order of the status line: their probes are
 * filled in at each start.  Names of one group mean the same in different
 * kernels and are tried in order, the newest first: the first the kernel
 * has is the group's point, so an event is never recorded twice where a
 * kernel has both an old and a new name.
 */
struct rec_point {
	const char *name;
	u8 group;
	kprobe_pre_handler_t pre;	/* kprobes only */
};

static const struct rec_point rec_kret_points[] = {
	{ "try_charge_memcg", RG_PAGE_CHARGE },
	{ "obj_cgroup_charge", RG_BYTE_CHARGE },
	{ "obj_cgroup_charge_pages", RG_OBJ_PAGES },
};

static struct kretprobe rec_kretprobes[] = {
	{ .entry_handler = rec_try_charge_entry, .handler = rec_call_return,
	  .data_size = sizeof(struct rec_call) },
	{ .entry_handler = rec_obj_charge_entry, .handler = rec_call_return,
	  .data_size = sizeof(struct rec_call) },
	{ .entry_handler = rec_obj_pages_entry, .handler = rec_call_return,
	  .data_size = sizeof(struct rec_call) },
};

static const struct rec_point rec_kprobe_points[] = {
	{ "__account_obj_stock", RG_SLAB_CHARGE, rec_slab_charge },
	{ "__refill_obj_stock", RG_BYTE_UNCHARGE, rec_refill_obj_stock },
	{ "refill_obj_stock", RG_BYTE_UNCHARGE, rec_refill_obj },
	{ "__mem_cgroup_uncharge", RG_FOLIO, rec_uncharge_folio },
	{ "__mem_cgroup_uncharge_folios", RG_FOLIOS, rec_uncharge_folios },
	{ "mem_cgroup_cancel_charge", RG_CANCEL, rec_cancel },
	{ "mem_cgroup_sk_uncharge", RG_SOCK, rec_sk_uncharge },
	{ "mem_cgroup_uncharge_skmem", RG_SOCK, rec_uncharge_skmem },
	{ "__memcg_kmem_uncharge_page", RG_KMEM, rec_kmem_uncharge },
};

static struct kprobe rec_kprobes[ARRAY_SIZE(rec_kprobe_points)];
static bool rec_kret_on[ARRAY_SIZE(rec_kretprobes)];
static bool rec_kp_on[ARRAY_SIZE(rec_kprobes)];

static void rec_probes_off(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rec_kretprobes); i++)
		if (rec_kret_on[i])
			unregister_kretprobe(&rec_kretprobes[i]);
	for (i = 0; i < ARRAY_SIZE(rec_kprobes); i++)
		if (rec_kp_on[i])
			unregister_kprobe(&rec_kprobes[i]);
	/* handlers still running on another CPU are over after this */
	synchronize_rcu();
	memset(rec_kret_on, 0, sizeof(rec_kret_on));
	memset(rec_kp_on, 0, sizeof(rec_kp_on));
	for (i = 0; i < NR_RG; i++)
		WRITE_ONCE(rec_group_on[i], false);
}

static unsigned int rec_missed(void)
{
	unsigned int i, missed = 0;

	for (i = 0; i < ARRAY_SIZE(rec_kretprobes); i++)
		missed += rec_kretprobes[i].nmissed;
	return missed;
}

/* Each probe is registered disarmed and armed only on the kernel's own text. */
static bool rec_kretprobe_on(struct kretprobe *rp)
{
	rp->kp.flags = KPROBE_FLAG_DISABLED;
	if (register_kretprobe(rp))
		return false;
	if (rec_kernel_text((unsigned long)rp->kp.addr) && !enable_kretprobe(rp))
		return true;
	unregister_kretprobe(rp);
	return false;
}

static bool rec_kprobe_on(struct kprobe *kp)
{
	kp->flags = KPROBE_FLAG_DISABLED;
	if (register_kprobe(kp))
		return false;
	if (rec_kernel_text((unsigned long)kp->addr) && !enable_kprobe(kp))
		return true;
	unregister_kprobe(kp);
	return false;
}

/* @name in use for its group: into the status line's list. */
static void rec_point_on(const struct rec_point *pt, size_t *len)
{
	WRITE_ONCE(rec_group_on[pt->group], true);
	*len += scnprintf(rec_points + *len, sizeof(rec_points) - *len, "%s%s",
			  *len ? "," : "", pt->name);
}

/* Register every point the kernel has; -ENOENT without the page charge. */
static int rec_probes_on(void)
{
	size_t len = 0;
	unsigned int i;

	rec_points[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(rec_callers); i++)
		rec_range_find(&rec_callers[i]);
	for (i = 0; i < ARRAY_SIZE(rec_kretprobes); i++) {
		struct kretprobe *rp = &rec_kretprobes[i];

		/* a fresh instance pool each time; charges may sleep in reclaim */
		memset(&rp->kp, 0, sizeof(rp->kp));
		rp->kp.symbol_name = rec_kret_points[i].name;
		rp->maxactive = max_t(int, 64, 8 * num_possible_cpus());
		rp->nmissed = 0;
		rec_kret_on[i] = rec_kretprobe_on(rp);
		if (rec_kret_on[i])
			rec_point_on(&rec_kret_points[i], &len);
	}
	for (i = 0; i < ARRAY_SIZE(rec_kprobes); i++) {
		const struct rec_point *pt = &rec_kprobe_points[i];
		struct kprobe *kp = &rec_kprobes[i];

		if (rec_group_on[pt->group])
			continue;
		memset(kp, 0, sizeof(*kp));
		kp->symbol_name = pt->name;
		kp->pre_handler = pt->pre;
		rec_kp_on[i] = rec_kprobe_on(kp);
		if (rec_kp_on[i])
			rec_point_on(pt, &len);
	}
	if (!rec_kret_on[0]) {
		/* no probe on try_charge_memcg: the page charge point is unknown */
		rec_probes_off();
		return -ENOENT;
	}
	return 0;
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
	}
	atomic_set(&rec_table_lost, 0);
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
 * order; memcgs renumbered; the opening balances from the running sums.
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
		/* running balance, low-water mark: pages in bal[4i..4i+1], bytes after */
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
	h->nr_cpus = num_possible_cpus();
	h->nr_memcgs = nm;
	h->nr_events = n;
	h->page_size = PAGE_SIZE;
	h->lost = rec_sum(rec_lost_of) + atomic_read(&rec_table_lost) + total - n;
	h->skipped_nmi = rec_sum(rec_nmi_of);
	h->missed = rec_missed();
	h->duration_ns = rec_t1 - rec_t0;
	strscpy_pad(h->release, init_utsname()->release, sizeof(h->release));
	strscpy_pad(h->workload, rec_workload, sizeof(h->workload));
	scnprintf(h->note, sizeof(h->note), "%s%sprobes=%s", rec_note, rec_note[0] ? " " : "",
		  rec_points);
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
			 "record state=%s workload=%s events=%llu lost=%llu nmi=%llu missed=%u points=%s\n",
			 states[rec_state], rec_workload[0] ? rec_workload : "-", events,
			 rec_state == REC_IDLE ? 0 :
			 rec_sum(rec_lost_of) + atomic_read(&rec_table_lost),
			 rec_state == REC_IDLE ? 0 : rec_sum(rec_nmi_of),
			 rec_missed(),
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
