/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The exclusion of stock mode "decoupled-owner": the decoupled stocks,
 * their data and their code, under a section of the module's own in place
 * of the local_trylock_t trylock (->lock), with a per-CPU owner byte in
 * each stock (->owner).
 *
 * Why: on PREEMPT_RT a local_trylock_t is a per-CPU spinlock_t, and its
 * trylock and unlock are an rtmutex trylock with a migrate_disable() pair
 * and an RCU section around it: about 120 instructions a pair, twice per
 * charge+uncharge, more than charging the counters directly costs.
 *
 * The protocol, the same on every kernel (it is what local_trylock_t is on
 * !PREEMPT_RT, used on PREEMPT_RT as well):
 *  - A section (mcs_owner_trylock()) disables preemption, finds the owner
 *    byte clear and the stock's local_trylock_t free, sets the byte and
 *    checks that the mode is still "decoupled-owner"; any other answer is
 *    a busy stock, and the caller takes the path of a failed trylock
 *    (counters, leftover: no charge lost or doubled).  Read and set need
 *    no atomic: with preemption off only an interrupt can come between
 *    them, and it leaves the byte as it found it.  The section ends with
 *    the byte cleared and preemption enabled.
 *  - Preemption stays off for the section, on PREEMPT_RT too: a section
 *    is a slot scan on a hit and, at worst, the drain of one slot per
 *    stock (an eviction), with nothing that sleeps.  PREEMPT_RT's own
 *    memcg statistics disable preemption for sections of that size
 *    (memcg_stats_lock()).  A preemptible section would need a
 *    migrate_disable() pair (a call each way on 6.12) and an explicit RCU
 *    section for the mode fence: what this mode saves.
 *  - On PREEMPT_RT, hardirq and NMI callers always find the stock busy,
 *    as with local_trylock_t there.  No task can enter a section while
 *    another is in one on its CPU, so there the byte is never found set;
 *    it keeps one protocol on every kernel for a store and a test.
 *    Elsewhere an interrupt that finds the byte set (it interrupted a
 *    section) falls back, like a failed local_trylock().
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
 *    fenced as one under the stock's lock.  A "decoupled" section ignores
 *    the byte, so a switch between "decoupled" and "decoupled-owner" passes
 *    through "none" for a grace period (mcs_stock_set_bench_mode()).  The
 *    check of the local_trylock_t covers the one entry of "decoupled" that
 *    does not check the mode under its lock, its consume: one that read
 *    the mode before a switch and takes the lock after it finds the stock
 *    drained, but must not share it with a section of this mode meanwhile.
 */
#ifndef MEMCG_STOCK_OWNER_H
#define MEMCG_STOCK_OWNER_H

#include <linux/preempt.h>

#include "design_common.h"

/*
 * Enter this CPU's section of the stock whose owner byte is @owner and
 * whose local_trylock_t is @lock.  True with preemption disabled and the
 * byte set; false with nothing changed.  Any context.
 */
static __always_inline bool mcs_owner_trylock(u8 __percpu *owner,
					      local_trylock_t __percpu *lock)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT) && (in_nmi() || in_hardirq()))
		return false;
	preempt_disable();
	if (unlikely(__this_cpu_read(*owner) || mcs_local_trylock_held(lock)))
		goto busy;
	__this_cpu_write(*owner, 1);
	barrier();
	if (mcs_mode_fence_holds(MCS_MODE_DECOUPLED_OWNER))
		return true;
	barrier();
	__this_cpu_write(*owner, 0);
busy:
	preempt_enable();
	return false;
}

/* Leave a section entered with mcs_owner_trylock(). */
static __always_inline void mcs_owner_unlock(u8 __percpu *owner)
{
	barrier();
	__this_cpu_write(*owner, 0);
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
		mcs_owner_unlock(&mcs_memcg_stock.owner);
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
		mcs_owner_unlock(&mcs_obj_stock.owner);
	else
		local_unlock(&mcs_obj_stock.lock);
}

#endif /* MEMCG_STOCK_OWNER_H */
