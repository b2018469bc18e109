# SPDX-License-Identifier: GPL-2.0
# Kernel log lines that match a pattern of splat.re but are no splat: one
# extended regular expression a line, comments start with #.  Read with
# splat.re by selftests/run_tests.sh and scripts/rig/lib.sh; MCS_SPLAT_BENIGN
# adds more (the debug kernels' boot banners by default).
lockdep_stats
debug_locks
Lock dependency validator
lock debugging: prove locking
in-tree module
\.\.\. MAX_LOCK
# kmemleak's scan summary: every run that has kmemleak counts and judges
# the report itself, without the kernel's own leaks on injected failures
# (kmemleak-known.awk)
new suspected memory leaks
