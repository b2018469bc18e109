# SPDX-License-Identifier: GPL-2.0
# Kernel log lines that fail any run: one extended regular expression a
# line (grep -E -f), read by selftests/run_tests.sh on the machine under
# test and by scripts/rig/lib.sh (MCS_SPLAT_RE) for every console log the rig
# judges.  Lines starting with # are comments.
#
# Lockdep's reports all start with "WARNING:" (or "BUG:"); kmemleak's with
# "suspected memory leak".  RCU stalls and hung tasks come without a
# WARNING on some kernels; an NMI that no handler claimed is reported as
# "NMI received for unknown reason" / "Dazed and confused".  Debug objects
# (ODEBUG) report through a WARNING too; a task stack found overwritten
# (SCHED_STACK_END_CHECK) panics.  KCSAN's reports ("BUG: KCSAN: data-race
# in A / B") match BUG:; the readers first shrink each one without a
# memcg_stock frame to a line that matches nothing here (splat-kcsan.awk).
BUG:
WARNING:
Oops
Call Trace
KASAN:
suspected memory leak
unreferenced object
circular locking
possible recursive locking
inconsistent lock state
sleeping function called
scheduling while atomic
UBSAN:
general protection
detected stalls
detected expedited stalls
self-detected stall
rcu.*kthread starved
blocked for more than
NMI received for unknown reason
Dazed and confused
ODEBUG:
corrupted stack end
