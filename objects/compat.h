/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Everything that differs between the kernels memcg_stock
 * builds on (6.1 .. 7.x, generic and PREEMPT_RT).  This is the only file
 * allowed to test kernel versions or features; the logic files are written
 * against the 7.x API and this header fills in what older kernels lack.
 *
 * local_trylock_t (native since 6.16, detected by INIT_LOCAL_TRYLOCK; 6.15
 * has the same lock under another name, localtry_lock_t, which this
 * header does not use: 6.15 gets the definition below):
 *
 * !PREEMPT_RT: a local_lock_t (lockdep map + owner, empty without lockdep)
 * followed by a per-CPU "acquired" byte.  Every acquisition, blocking or
 * try, sets the byte and every release clears it, so an interrupt (or NMI)
 * arriving while a task holds the lock - even through the blocking
 * local_lock() - sees the lock busy and takes its fallback path instead of
 * entering the critical section a second time.  Preemption is disabled
 * before this_cpu_ptr() is evaluated.  The lockdep release comes before the
 * byte is cleared: an interrupt squeezed in between would otherwise take
 * the lock while lockdep still records the task as owner.  Try acquisitions
 * are annotated as such, which keeps hardirq trylocks legal for lockdep's
 * wait-type checks.
 *
 * PREEMPT_RT: local_lock_t is a per-CPU sleeping spinlock.  A trylock from
 * hardirq or NMI context always fails (the rtmutex slow path would take its
 * raw wait_lock, and PI makes a pure trylock unsound there); elsewhere it is
 * migrate_disable() followed by spin_trylock() on this CPU's instance.
 * Interrupts are never disabled.
 */
#ifndef MEMCG_STOCK_COMPAT_H
#define MEMCG_STOCK_COMPAT_H

#include <linux/version.h>
#include <linux/local_lock.h>
#include <linux/lockdep.h>
#include <linux/preempt.h>
#include <linux/hrtimer.h>
#include <linux/slab.h>
#include <linux/sched.h>
#include <linux/sched/isolation.h>

#ifndef INIT_LOCAL_TRYLOCK
#define MCS_COMPAT_LOCAL_TRYLOCK 1

#ifndef CONFIG_PREEMPT_RT

typedef struct {
	local_lock_t	llock;
	u8		acquired;
} local_trylock_t;

#define INIT_LOCAL_TRYLOCK(lockname)	{ .llock = INIT_LOCAL_LOCK(lockname) }

#define local_trylock_init(l)					\
	do {							\
		local_trylock_t *__mcs_tl = (l);		\
								\
		local_lock_init(&__mcs_tl->llock);		\
		__mcs_tl->acquired = 0;				\
	} while (0)

static __always_inline void mcs_compat_trylock_acquire(local_trylock_t *l)
{
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	lock_map_acquire_try(&l->llock.dep_map);
	DEBUG_LOCKS_WARN_ON(l->llock.owner);
	l->llock.owner = current;
#endif
}

static __always_inline bool mcs_compat_trylock(local_trylock_t __percpu *lock)
{
	local_trylock_t *l;

	preempt_disable();
	l = this_cpu_ptr(lock);
	if (READ_ONCE(l->acquired)) {
		preempt_enable();
		return false;
	}
	WRITE_ONCE(l->acquired, 1);
	barrier();
	mcs_compat_trylock_acquire(l);
	return true;
}

/* Blocking acquisition: task context only, never on an IRQ-reachable path. */
static __always_inline void mcs_compat_lock(local_trylock_t __percpu *lock)
{
	local_trylock_t *l;

	preempt_disable();
	l = this_cpu_ptr(lock);
	lockdep_assert(!READ_ONCE(l->acquired));
	WRITE_ONCE(l->acquired, 1);
	barrier();
	local_lock_acquire(&l->llock);
}

static __always_inline void mcs_compat_unlock(local_trylock_t __percpu *lock)
{
	local_trylock_t *l = this_cpu_ptr(lock);

	local_lock_release(&l->llock);
	barrier();
	lockdep_assert(READ_ONCE(l->acquired));
	WRITE_ONCE(l->acquired, 0);
	preempt_enable();
}

#define local_trylock(lock)	mcs_compat_trylock(lock)

/*
 * local_lock()/local_unlock() keep working on a plain local_lock_t and
 * gain the acquired-byte protocol on a local_trylock_t.
 */
#undef local_lock
#define local_lock(lock)						\
	do {								\
		typeof(lock) __mcs_l = (lock);				\
									\
		if (__same_type(*__mcs_l, local_trylock_t))		\
			mcs_compat_lock((local_trylock_t __percpu *)__mcs_l); \
		else							\
			__local_lock((local_lock_t __percpu *)__mcs_l);	\
	} while (0)

#undef local_unlock
#define local_unlock(lock)						\
	do {								\
		typeof(lock) __mcs_l = (lock);				\
									\
		if (__same_type(*__mcs_l, local_trylock_t))		\
			mcs_compat_unlock((local_trylock_t __percpu *)__mcs_l); \
		else							\
			__local_unlock((local_lock_t __percpu *)__mcs_l); \
	} while (0)

#else /* CONFIG_PREEMPT_RT */

typedef local_lock_t local_trylock_t;

#define INIT_LOCAL_TRYLOCK(lockname)	INIT_LOCAL_LOCK(lockname)
#define local_trylock_init(l)		local_lock_init(l)

static __always_inline bool mcs_compat_trylock(local_trylock_t __percpu *lock)
{
	if (in_nmi() || in_hardirq())
		return false;
	migrate_disable();
	if (!spin_trylock(this_cpu_ptr(lock))) {
		migrate_enable();
		return false;
	}
	return true;
}

#define local_trylock(lock)	mcs_compat_trylock(lock)

#endif /* CONFIG_PREEMPT_RT */
#endif /* !INIT_LOCAL_TRYLOCK */

/*
 * Is this CPU's instance of @tl (a local_trylock_t __percpu *) held, by
 * anyone?  The caller keeps preemption or migration disabled.  A
 * local_trylock_t is a spinlock_t on PREEMPT_RT, natively and here, and
 * has the "acquired" byte elsewhere; local_lock_is_locked() (6.17) tells
 * only whether the current task holds it on PREEMPT_RT.
 */
#ifdef CONFIG_PREEMPT_RT
#define mcs_local_trylock_held(tl)	rt_mutex_base_is_locked(&this_cpu_ptr(tl)->lock)
#else
#define mcs_local_trylock_held(tl)	READ_ONCE(this_cpu_ptr(tl)->acquired)
#endif

/*
 * Mark this CPU's instance of @tl held (@held 1) or free (0) without
 * taking it: no lockdep annotation, no owner, only the "acquired" byte that
 * every trylock of it tests, natively and here.  For a section that
 * excludes the lock's users without being one (stock_owner.h).  !PREEMPT_RT
 * only: PREEMPT_RT's local_trylock_t is a spinlock_t, with no byte to mark.
 * The caller keeps preemption disabled and owns the byte's change: it found
 * the lock free with nothing but interrupts able to come in between, and
 * every interrupt leaves the byte as it found it.  A use on PREEMPT_RT that
 * the compiler cannot discard fails the build.
 */
#ifdef CONFIG_PREEMPT_RT
static __always_inline void mcs_local_trylock_mark(local_trylock_t __percpu *tl, u8 held)
{
	BUILD_BUG();
}
#else
#define mcs_local_trylock_mark(tl, held)	\
	__this_cpu_write((tl)->acquired, (held))
#endif

/* hrtimer_setup() replaced hrtimer_init() + ->function in 6.13. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define mcs_hrtimer_setup(timer, fn, clock, mode)	\
	hrtimer_setup(timer, fn, clock, mode)
#else
static inline void mcs_hrtimer_setup(struct hrtimer *timer,
				     enum hrtimer_restart (*fn)(struct hrtimer *),
				     clockid_t clock, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
}
#endif

/*
 * Since 6.17 a per-CPU workqueue says so with WQ_PERCPU (and 7.x warns
 * without it); before, per-CPU was the default and the flag may not exist.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 17, 0)
#define MCS_WQ_PERCPU	WQ_PERCPU
#else
#define MCS_WQ_PERCPU	0
#endif

/* The unbound system workqueue: system_dfl_wq since 6.17 (7.x warns on the old name). */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 17, 0)
#define mcs_system_dfl_wq	system_dfl_wq
#else
#define mcs_system_dfl_wq	system_unbound_wq
#endif

/*
 * The module's internals (its per-CPU stocks, slab caches, test hooks and
 * NMI source) are exported only into the symbol namespace MCS_NS, with
 * EXPORT_SYMBOL_NS_GPL(sym, MCS_NS); only the KUnit module imports it
 * (MODULE_IMPORT_NS(MCS_NS)), and a client module that uses an internal
 * fails at modpost.  Since 6.13 a namespace is a string literal; before,
 * an identifier that the two macros turn into a string themselves.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define MCS_NS	"MEMCG_STOCK_INTERNAL"
#else
#define MCS_NS	MEMCG_STOCK_INTERNAL
#endif
/* sparse loses a per-CPU variable's address space across an export */
#ifndef __CHECKER__
#define MCS_EXPORT_PER_CPU_NS(var)	EXPORT_SYMBOL_NS_GPL(var, MCS_NS)
#else
#define MCS_EXPORT_PER_CPU_NS(var)
#endif

/*
 * cpu_is_isolated() (isolcpus= domain or nohz_full=) is a 6.3 addition that
 * some 6.1 stable trees carry too: before 6.3, the same two housekeeping
 * tests (no cpuset partitions there).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
#define mcs_cpu_is_isolated(cpu)	cpu_is_isolated(cpu)
#else
static inline bool mcs_cpu_is_isolated(int cpu)
{
	return !housekeeping_test_cpu(cpu, HK_TYPE_DOMAIN) ||
	       !housekeeping_test_cpu(cpu, HK_TYPE_TICK);
}
#endif

/* kzalloc_obj() is a late 6.12.y / 7.x addition. */
#ifndef kzalloc_obj
#define kzalloc_obj(P, GFP)	kzalloc(sizeof(P), GFP)
#endif

/* SLAB_NO_MERGE appeared in 6.5; older kernels merge on name-less caches only. */
#ifndef SLAB_NO_MERGE
#define SLAB_NO_MERGE	0
#endif

/*
 * An NMI source a module can drive (harness/nmi.c): a handler of the
 * NMI_UNKNOWN class - called only for NMIs that no NMI_LOCAL handler
 * (perf, the watchdog, backtraces) claimed - and an NMI sent through the
 * local APIC.  x86 only; UML has no NMI at all.  `apic`,
 * __register_nmi_handler() and unregister_nmi_handler() are exported (GPL)
 * on 6.1 .. 7.x alike.  The _local pair registers an NMI_LOCAL handler
 * (the KUnit suite's stand-in for a foreign NMI source).
 */
#if defined(CONFIG_X86_LOCAL_APIC) && !defined(CONFIG_UML)
#include <asm/apic.h>
#include <asm/nmi.h>
#define MCS_HAVE_NMI_SOURCE	1
#define MCS_NMI_DONE		NMI_DONE
#define MCS_NMI_HANDLED		NMI_HANDLED
#define mcs_compat_register_nmi(fn)					\
	register_nmi_handler(NMI_UNKNOWN, fn, 0, "memcg_stock")
#define mcs_compat_unregister_nmi()					\
	unregister_nmi_handler(NMI_UNKNOWN, "memcg_stock")
#define mcs_compat_register_nmi_local(fn, name)			\
	register_nmi_handler(NMI_LOCAL, fn, 0, name)
#define mcs_compat_unregister_nmi_local(name)				\
	unregister_nmi_handler(NMI_LOCAL, name)
#define mcs_compat_send_nmi(cpu)					\
	apic->send_IPI_mask(cpumask_of(cpu), NMI_VECTOR)
#else
#define MCS_HAVE_NMI_SOURCE	0
#define MCS_NMI_DONE		0
#define MCS_NMI_HANDLED		1
#define mcs_compat_register_nmi(fn)	((void)(fn), -EOPNOTSUPP)
#define mcs_compat_unregister_nmi()	do { } while (0)
#define mcs_compat_register_nmi_local(fn, name)	((void)(fn), (void)(name), -EOPNOTSUPP)
#define mcs_compat_unregister_nmi_local(name)	((void)(name))
#define mcs_compat_send_nmi(cpu)	((void)(cpu))
#endif

/*
 * NMI safety of the statistics: every counter the charge paths update is
 * an atomic or a local_t.  On x86 (and arm64, s390, ...) local_t and the
 * this_cpu ops are single instructions, so an NMI cannot split one.  An
 * architecture whose local_t is a non-atomic read-modify-write would need
 * the NMI paths to update atomic_long_t counters instead (upstream's
 * CONFIG_MEMCG_NMI_SAFETY_REQUIRES_ATOMIC does exactly that).  The module
 * only ever drives NMIs itself where MCS_HAVE_NMI_SOURCE (x86); a client
 * charging from NMI elsewhere must check MCS_NMI_SAFE_STATS first.
 */
#if defined(CONFIG_ARCH_HAVE_NMI_SAFE_CMPXCHG) || !defined(CONFIG_HAVE_NMI)
#define MCS_NMI_SAFE_STATS	1
#else
#define MCS_NMI_SAFE_STATS	0
#endif

/*
 * In-kernel perf counters of the benchmark (harness/bench_pmu.c).  A
 * kernel without CONFIG_PERF_EVENTS (UML) declares neither call; enable,
 * disable and release have empty inlines there.  The user includes
 * <linux/perf_event.h>.
 */
#ifdef CONFIG_PERF_EVENTS
#define mcs_compat_perf_counter(attr, cpu)				\
	perf_event_create_kernel_counter(attr, cpu, NULL, NULL, NULL)
#define mcs_compat_perf_read(event, enabled, running)			\
	perf_event_read_value(event, enabled, running)
#else
#define mcs_compat_perf_counter(attr, cpu)				\
	((void)(attr), (void)(cpu), (struct perf_event *)ERR_PTR(-EOPNOTSUPP))
#define mcs_compat_perf_read(event, enabled, running)			\
	((void)(event), *(enabled) = 0, *(running) = 0, (u64)0)
#endif

/*
 * The kernel's own functions that the benchmark's anchors call (the page
 * counter, obj stock and socket memory pairs in harness/kernel_cost.c) are
 * not exported: their address comes from a kprobe registered on the
 * symbol and removed at once.  Only where an indirect call to them is
 * safe: x86-64, no kCFI (the caller's type hash check), and with IBT
 * enforced only at an ENDBR64 (a function the kernel never calls
 * indirectly has its ENDBR sealed at boot, and a call there would fault).
 * A kprobe on a function's entry may sit past its ENDBR: the address is
 * moved back to it.
 * Return: the function's entry, or ERR_PTR(-EOPNOTSUPP) where the lookup
 * is not possible, -ENOENT (no such symbol, or no probe allowed there) or
 * -EPERM (IBT enforced and no ENDBR at the entry).
 */
#if defined(CONFIG_KPROBES) && defined(CONFIG_X86_64) && !defined(CONFIG_CFI_CLANG)
#include <linux/kprobes.h>
#include <linux/uaccess.h>
#include <asm/cpufeature.h>
#define MCS_ENDBR64	0xfa1e0ff3U	/* f3 0f 1e fa, little-endian */
static inline void *mcs_compat_kernel_function(const char *name)
{
	struct kprobe kp = { .symbol_name = name };
	u32 insn;
	u8 *addr;

	if (register_kprobe(&kp))
		return ERR_PTR(-ENOENT);
	addr = (u8 *)kp.addr;
	unregister_kprobe(&kp);
	if (!copy_from_kernel_nofault(&insn, addr - 4, sizeof(insn)) && insn == MCS_ENDBR64)
		addr -= 4;
	if (copy_from_kernel_nofault(&insn, addr, sizeof(insn)))
		return ERR_PTR(-ENOENT);
	if (boot_cpu_has(X86_FEATURE_IBT) && insn != MCS_ENDBR64)
		return ERR_PTR(-EPERM);
	return addr;
}
#else
static inline void *mcs_compat_kernel_function(const char *name)
{
	return ERR_PTR(-EOPNOTSUPP);
}
#endif

/*
 * The kernel's socket memory pair, a page charge through its page stock
 * (harness/kernel_cost.c): mem_cgroup_charge_skmem(memcg, nr_pages, gfp)
 * and mem_cgroup_uncharge_skmem(memcg, nr_pages) in 6.1 .. 6.12; their
 * successors on 7.x, mem_cgroup_sk_charge(sk, nr_pages, gfp) and
 * mem_cgroup_sk_uncharge(sk, nr_pages), take the socket and charge its
 * sk_memcg.  Neither pair is exported: the caller looks the first names
 * up (mcs_compat_kernel_function()) and, where they are missing, the
 * second, which it hands a zeroed socket whose memcg
 * mcs_compat_sock_set_memcg() set: false where sockets carry no memcg
 * (a kernel without CONFIG_MEMCG or CONFIG_NET).  The caller includes
 * <net/sock.h>.
 */
#define MCS_SKMEM_CHARGE	"mem_cgroup_charge_skmem"
#define MCS_SKMEM_UNCHARGE	"mem_cgroup_uncharge_skmem"
#define MCS_SKMEM_SK_CHARGE	"mem_cgroup_sk_charge"
#define MCS_SKMEM_SK_UNCHARGE	"mem_cgroup_sk_uncharge"
#if defined(CONFIG_MEMCG) && defined(CONFIG_NET)
#define mcs_compat_sock_set_memcg(sk, memcg)	((sk)->sk_memcg = (memcg), true)
#else
#define mcs_compat_sock_set_memcg(sk, memcg)	((void)(sk), (void)(memcg), false)
#endif

/* The kernel's page counter: protection tracking is a choice since 6.11. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
#define mcs_compat_page_counter_init(c, parent)	page_counter_init(c, parent, true)
#else
#define mcs_compat_page_counter_init(c, parent)	page_counter_init(c, parent)
#endif

/*
 * The charge-stream recorder (harness/record.c) probes the kernel's own
 * memcg charge points with kprobes and kretprobes and reads each caller's
 * return address at the probed function's entry: the word at the stack
 * pointer on x86-64 (the probe sits at the entry, before any push).
 * Elsewhere (UML, no kprobes, no memcg) "record" says unsupported.
 */
#if defined(CONFIG_KPROBES) && defined(CONFIG_KRETPROBES) && defined(CONFIG_MEMCG) && \
	defined(CONFIG_X86_64) && !defined(CONFIG_UML)
#define MCS_HAVE_RECORDER	1
#define mcs_compat_entry_return_address(regs)	(*(unsigned long *)kernel_stack_pointer(regs))
/*
 * struct folio_batch: pagevec.h's up to 6.x, its own header in 7.x; from
 * 6.10 on, writeback.h (struct writeback_control holds one) includes
 * whichever the kernel has.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#include <linux/writeback.h>
#else
#include <linux/pagevec.h>
#endif
/*
 * A socket's memcg: mem_cgroup_from_sk() (include/net/sock.h) from 6.18 on,
 * where mem_cgroup_sk_uncharge(sk, nr) took the place of
 * mem_cgroup_uncharge_skmem(memcg, nr) and the helper is the way to read
 * sk_memcg; before, the field itself (only some stable trees have the
 * helper).  The caller includes <net/sock.h>.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 18, 0)
#define mcs_compat_sk_memcg(sk)	mem_cgroup_from_sk(sk)
#else
#define mcs_compat_sk_memcg(sk)	READ_ONCE((sk)->sk_memcg)
#endif
#else
#define MCS_HAVE_RECORDER	0
#endif

/*
 * The signature of a KUnit parameter generator (struct kunit_case's
 * generate_params): since 6.18 the generator is passed the test too.
 * MCS_KUNIT_GEN_PARAMS(fn) declares @fn with the parameters @prev and
 * @desc (and @test, unused) that the kernel's KUNIT_ARRAY_PARAM has.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 18, 0)
#define MCS_KUNIT_GEN_PARAMS(fn)	\
	const void *(fn)(struct kunit *test, const void *prev, char *desc)
#else
#define MCS_KUNIT_GEN_PARAMS(fn)	const void *(fn)(const void *prev, char *desc)
#endif

#endif /* MEMCG_STOCK_COMPAT_H */
