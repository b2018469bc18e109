/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The exclusion of stock mode "decoupled-owner": the decoupled stocks,
 * their data and their code, under a section of the module's own in place
 * of taking the local_trylock_t (->lock).
 *
 * Why: on PREEMPT_RT a local_trylock_t is a per-CPU spinlock_t, and its
 * trylock and unlock are an rtmutex trylock with a migrate_disable() pair
 * and an RCU section around it: about 120 instructions a pair, twice per
 * charge+uncharge, more than charging the counters directly costs.
 *
 * The protocol (on !PREEMPT_RT it is local_trylock_t's own without the
 * lockdep annotation; PREEMPT_RT gets the same with a byte of its own):
 *  - A section (mcs_owner_trylock()) disables preemption, finds the stock
 *    free, marks it (mcs_owner_mark()) and checks that the mode is still
 *    "decoupled-owner"; any other answer is a busy stock, and the caller
 *    takes the path of a failed trylock (counters, leftover: no charge
 *    lost or doubled).  Read and mark need no atomic: with preemption off
 *    only an interrupt can come between them, and it leaves the mark as it
 *    found it.  The section ends with the mark cleared and preemption
 *    enabled.
 *  - The mark: on !PREEMPT_RT the "acquired" byte of the stock's own
 *    local_trylock_t, set without lockdep and without an owner, so every
 *    trylock of the stock from an interrupt - a section of this mode, the
 *    entry of mode "decoupled" that the bench's timer and NMI load call
 *    with the mode as a constant, a drain's trylock - finds it busy, as it
 *    finds a holder of the lock.  On PREEMPT_RT a per-CPU owner byte
 *    (->owner) beside the lock: hardirq and NMI callers never take the
 *    stock there, and no task comes in on a CPU whose section keeps
 *    preemption off.
 *  - Preemption stays off for the section, on PREEMPT_RT too: a section
 *    is a slot scan on a hit and, at worst, the drain of one slot per
 *    stock (an eviction), with nothing that sleeps.  PREEMPT_RT's own
 *    memcg statistics disable preemption for sections of that size
 *    (memcg_stats_lock()).  A preemptible section would need a
 *    migrate_disable() pair (a call each way on 6.12) and an explicit RCU
 *    section for the mode fence: what this mode saves.
 *  - The drains, the blocking users, take the stock's local_trylock_t with
 *    local_lock() as in mode "decoupled", whatever the mode: a section
 *    refuses a stock whose local_trylock_t is held.  On PREEMPT_RT the
 *    drain's section is preemptible (a spinlock_t); while it is preempted,
 *    every other user of that CPU's stock falls back; a drain waits for
 *    another drain on the lock.  A drain never meets a section in
 *    progress on its CPU: sections are never preempted, and a drain runs
 *    in task context.
 *  - Mode fence: a section checks the mode with preemption off, an RCU
 *    read-side section for synchronize_rcu(); a refill in it is thus
 *    fenced as one under the stock's lock.  A "decoupled" entry does not
 *    check the mode before its take, and no grace period covers a caller
 *    that names the mode as a constant: the mark is what keeps such a take
 *    out of a section on !PREEMPT_RT, and on PREEMPT_RT only tasks take,
 *    which a section excludes.  A section refuses a stock whose
 *    local_trylock_t is held: a "decoupled" consume that read the mode
 *    before a switch and took the lock after it finds the stock drained,
 *    but must not share it with a section meanwhile.  A switch between the
 *    two modes still passes through "none" for a grace period
 *    (mcs_stock_set_bench_mode()), which drains the stocks between them.
 */
#ifndef MEMCG_STOCK_OWNER_H
#define MEMCG_STOCK_OWNER_H

#include <linux/preempt.h>

#include "design_common.h"

/*
 * Mark this CPU's stock entered (@held 1) or left (0) by a section.  On
 * PREEMPT_RT in the owner byte @owner: only tasks enter there, and no task
 * can come in on a CPU whose section keeps preemption off.  Elsewhere in
 * the "acquired" byte of the stock's local_trylock_t @lock: an interrupt
 * that takes the stock with local_trylock() - a "decoupled" entry called
 * with its mode as a constant, which checks no mode - then finds it busy,
 * as it would find a holder of the lock.
 */
static __always_inline void mcs_owner_mark(u8 __percpu *owner,
					   local_trylock_t __percpu *lock, u8 held)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		__this_cpu_write(*owner, held);
	else
		mcs_local_trylock_mark(lock, held);
}

/*
 * Enter this CPU's section of the stock whose owner byte is @owner and
 * whose local_trylock_t is @lock.  True with preemption disabled and the
 * stock marked (mcs_owner_mark()); false with nothing changed.  Any
 * context.
 */
static __always_inline bool mcs_owner_trylock(u8 __percpu *owner,
					      local_trylock_t __percpu *lock)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT) && (in_nmi() || in_hardirq()))
		return false;
	preempt_disable();
	/* held by a section (the byte is PREEMPT_RT's only) or by the lock */
	if (unlikely((IS_ENABLED(CONFIG_PREEMPT_RT) && __this_cpu_read(*owner)) ||
		     mcs_local_trylock_held(lock)))
		goto busy;
	mcs_owner_mark(owner, lock, 1);
	barrier();
	if (mcs_mode_fence_holds(MCS_MODE_DECOUPLED_OWNER))
		return true;
	barrier();
	mcs_owner_mark(owner, lock, 0);
busy:
	preempt_enable();
	return false;
}

/* Leave a section entered with mcs_owner_trylock(). */
static __always_inline void mcs_owner_unlock(u8 __percpu *owner,
					     local_trylock_t __percpu *lock)
{
	barrier();
	mcs_owner_mark(owner, lock, 0);
	preempt_enable();
}

/*
 * The exclusion of @mode, "decoupled" or "decoupled-owner" (a constant
 * once inlined), over this CPU's memcg stock and obj stock.  A section of
 * "decoupled" does not check the mode: its refills check it under the
 * lock or inside the RCU section that read it.
 */
static __always_inline bool mcs_memcg_stock_trylock(enum mcs_stock_mode mode)
{
	if (mode == MCS_MODE_DECOUPLED_OWNER) {
		mcs_test_hook_at(MCS_HOOK_OWNER_ENTER);
		return mcs_owner_trylock(&mcs_memcg_stock.owner, &mcs_memcg_stock.lock);
	}
	return local_trylock(&mcs_memcg_stock.lock);
}

static __always_inline void mcs_memcg_stock_unlock(enum mcs_stock_mode mode)
{
	if (mode == MCS_MODE_DECOUPLED_OWNER)
		mcs_owner_unlock(&mcs_memcg_stock.owner, &mcs_memcg_stock.lock);
	else
		local_unlock(&mcs_memcg_stock.lock);
}

static __always_inline bool mcs_obj_stock_trylock(enum mcs_stock_mode mode)
{
	if (mode == MCS_MODE_DECOUPLED_OWNER)
		return mcs_owner_trylock(&mcs_obj_stock.owner, &mcs_obj_stock.lock);
	return local_trylock(&mcs_obj_stock.lock);
}

static __always_inline void mcs_obj_stock_unlock(enum mcs_stock_mode mode)
{
	if (mode == MCS_MODE_DECOUPLED_OWNER)
		mcs_owner_unlock(&mcs_obj_stock.owner, &mcs_obj_stock.lock);
	else
		local_unlock(&mcs_obj_stock.lock);
}

#endif /* MEMCG_STOCK_OWNER_H */
