#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ab.sh (`make ab A=MODE B=MODE`): a quick A/B of two stock designs, the
# first numbers for a new design without the whole `make bench`.
#
# One guest, Debian's 6.12 generic kernel (AB_KERNEL) under qemu TCG with
# -icount shift=0 (one guest ns is one executed instruction, whatever the
# host's load), boots once and runs, for A and for B:
#   the hit pairs     clients=1 workload=pages|bytes memcgs=1
#   64 memcgs         clients=1 workload=pages memcgs=64
#   one cgroup,       clients=2 workload=cross-pages shared=1: every free
#   frees elsewhere   lands on the other CPU's stock
#   one replay        a shipped recorded charge stream (AB_TRACE, default
#                     many-cgroups-6) through the design
# and the floor (the bench loop, the same for both).  ab-table.py prints the
# two columns with B/A; its table and the raw result lines go to
# $MCS_OUT/ab/.  One boot: a second run gives the same instruction counts
# (make bench checks that determinism over two boots), not a wall time.
#
# Environment: A, B (mode names, as debugfs "modes" lists them; an unknown
# one is refused with the list), AB_KERNEL (default deb-amd64; any qemu
# kernel spec of `make vmtest`), AB_TRACE (a trace of selftests/traces,
# without .mcstrace[.xz]), BENCH_ICOUNT_MS (guest ms per row, default 20).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../rig/lib.sh"
. "$here/bench-lib.sh"

known=$(python3 "$here/designs.py" names | tr '\n' ' ') || die "designs.py: the modes do not parse"
a=${A:-}
b=${B:-}
for v in "A=$a" "B=$b"; do
	m=${v#*=}
	[[ -n $m ]] || die "usage: make ab A=MODE B=MODE (modes: ${known% })"
	[[ " $known" == *" $m "* ]] || die "${v%%=*}=$m: no such stock mode (modes: ${known% })"
done
[[ $a != "$b" ]] || die "A and B are both $a: name two different modes"
kernel=${AB_KERNEL:-deb-amd64}
trace=${AB_TRACE:-many-cgroups-6}
ims=${BENCH_ICOUNT_MS:-20}
[[ $ims =~ ^[1-9][0-9]*$ ]] || die "BENCH_ICOUNT_MS=$ims: expected guest milliseconds"
src=
for t in "$MCS_SRC/selftests/traces/$trace.mcstrace" "$MCS_SRC/selftests/traces/$trace.mcstrace.xz"; do
	[[ -f $t ]] && src=$t
done
[[ -n $src ]] || die "AB_TRACE=$trace: no such trace in selftests/traces ($(cd "$MCS_SRC/selftests/traces" &&
	ls | sed 's/\.mcstrace.*//' | tr '\n' ' '))"
# what run_qemu reads
ncpus=2
ms=100
stall=${BENCH_STALL_S:-300}
B=$MCS_OUT/ab
rm -rf "$B"
mkdir -p "$B/traces"
t0=$SECONDS
trace_stage "$src" "$B/traces" || die "cannot unpack $src"
need=$(python3 "$here/trace-read.py" --cpus "$B/traces/$trace.mcstrace")
((need <= ncpus)) || die "AB_TRACE=$trace uses $need CPUs: the A/B guest has $ncpus"
d="duration_ms=$ims"
{
	# the bench loop alone: the same for any mode
	echo "mode=$a clients=1 workload=floor $d"
	for m in "$a" "$b"; do
		echo "mode=$m clients=1 workload=pages memcgs=1 $d"
		echo "mode=$m clients=1 workload=bytes memcgs=1 $d"
		echo "mode=$m clients=1 workload=pages memcgs=64 $d"
		echo "mode=$m clients=$ncpus workload=cross-pages shared=1 $d"
		echo "file=$trace.mcstrace mode=$m workload=replay"
	done
} >"$B/jobs.txt"
log "ab: $a against $b on $kernel under -icount shift=0 ($(wc -l <"$B/jobs.txt") jobs)"
run_qemu "$kernel" "$B/guest" "$B/jobs.txt" shift=0
python3 "$here/ab-table.py" "$a" "$b" "$B/guest/results.txt" "$B/guest/meta.txt" | tee "$B/ab.txt"
log "ab: $((SECONDS - t0)) s; table $B/ab.txt, result lines $B/guest/results.txt"
