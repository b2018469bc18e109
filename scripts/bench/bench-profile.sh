#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench-profile.sh (`make bench-profile`): where the instructions of one
# charge+uncharge pair go, per function and per translation block, in
# Debian 6.12 under qemu -icount shift=0 (one vCPU).
#
# A TCG plugin (scripts/bench/profile/tbcount.c) counts the executions of every
# block the guest runs.  Each job of PROFILE_JOBS runs twice through
# debugfs "bench", for PROFILE_MS and for twice as long, and the guest
# closes a counting interval around each run (scripts/bench/profile/mark.c).
# The difference of the two intervals, divided by the difference of their
# operation counts, is the profile of one pair: everything a run does once
# (parsing, memcg creation, kthread start, drain, check) cancels out.  The
# symbols come from the guest's /proc/kallsyms, the module's included.
# scripts/bench/bench-profile.py prints the tables and writes them to
# $MCS_OUT/profile/profile.txt.
#
# The plugin and the marker are built by scripts/bench/profile/tools.sh;
# the profile boots Debian 12's qemu 7.2, whatever MCS_QEMU says (see
# there).  Under icount the instructions a guest executes do not
# depend on the emulator's version (docs/testing.md, "Emulator faults").
#
# Environment:
#   PROFILE_KERNEL   kernel to profile (default deb-amd64)
#   PROFILE_JOBS     bench lines without duration_ms, separated by ';'
#                    (default, from scripts/bench/designs.py: floor, the
#                    pages of every mode of the side-by-side table, the
#                    bytes of every mode with a byte stock of its own and
#                    of none, the control "objcg-atomic"; one memcg)
#                    A job "kernel pair=pc|obj|skmem" runs the kernel's own
#                    pair instead (debugfs kernel_cost, written with
#                    loops=PROFILE_KC_LOOPS, then twice that, from a task
#                    in a memcg of its own); the default jobs end with the
#                    kernel's obj and page stock pairs.
#   PROFILE_MS       guest ms of the shorter run of each job (default 5)
#   PROFILE_KC_LOOPS pairs of the shorter run of a kernel job (default 20000)
#   PROFILE_BLOCKS   blocks listed per job, hottest first (default 25; 0: none)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../rig/lib.sh"
. "$here/profile/tools.sh"

kernel=${PROFILE_KERNEL:-deb-amd64}
# the default jobs come from the modes' metadata (designs.py profile-jobs)
jobs=${PROFILE_JOBS:-$(python3 "$here/designs.py" profile-jobs)} ||
	die "designs.py: the modes do not parse"
ms=${PROFILE_MS:-5}
blocks=${PROFILE_BLOCKS:-25}
kc_loops=${PROFILE_KC_LOOPS:-20000}
[[ $kc_loops =~ ^[1-9][0-9]*$ && $kc_loops -le 500000 ]] ||
	die "PROFILE_KC_LOOPS=$kc_loops: expected 1..500000"
[[ $ms =~ ^[1-9][0-9]*$ && $ms -le 5000 ]] || die "PROFILE_MS=$ms: expected 1..5000 (guest ms)"
[[ $blocks =~ ^[0-9]+$ ]] || die "PROFILE_BLOCKS=$blocks: expected a number"
[[ $jobs != *duration_ms* ]] || die "PROFILE_JOBS: leave duration_ms out, PROFILE_MS sets it"
[[ $jobs =~ [^[:space:]\;] ]] || die "PROFILE_JOBS is empty"
export MCS_QEMU=system

P=$MCS_OUT/profile
rm -rf "$P"
mkdir -p "$P/bin"
# what the docs' profile block cites (scripts/bench/update-bench-docs.py --profile)
{
	echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "commit=$(git -C "$MCS_SRC" describe --always --dirty 2>/dev/null || echo unknown)"
	echo "kernel=$kernel"
	echo "default_jobs=$([[ -z ${PROFILE_JOBS:-} ]] && echo 1 || echo 0)"
} >"$P/meta.txt"

profile_tools "$P" "$P/bin"

read -r name _ _ <<<"$(mcs_kernel_spec "$kernel")"
read -r vmlinuz kdir _ <<<"$(mcs_qemu_kernel "$name")"
[[ -n $kdir ]] || die "kernel $name not available"
M=$(mcs_build_module "$kdir" "profile-$name")

# the guest's script: per job, one interval of PROFILE_MS and one of twice that
IFS=';' read -ra joblist <<<"$jobs"
{
	echo 'D=/sys/kernel/debug/memcg_stock'
	echo 'mark=/mcs/selftests/mark'
	echo 'sleep 2; echo "mode=decoupled duration_ms=200" >$D/bench'
	echo 'run() {'
	echo '	$mark; echo "$2" >$D/bench; r=$?; $mark'
	echo '	if [ $r -eq 0 ]; then echo "MCS-PROFILE $1 $(cat $D/bench)"; else echo "MCS-PROFILE $1 $2 verdict=ERROR"; fi'
	echo '}'
	# the kernel's pairs charge the writer's memcg: one of its own (cgroup v2)
	echo 'G=/sys/fs/cgroup'
	echo 'mount -t cgroup2 none $G && echo +memory >$G/cgroup.subtree_control && mkdir $G/mcs-kcost'
	echo 'kc() {'
	echo '	echo $$ >$G/mcs-kcost/cgroup.procs'
	echo '	$mark; echo "$2 loops=$3" >$D/kernel_cost; r=$?; $mark'
	echo '	echo $$ >$G/cgroup.procs'
	echo '	if [ $r -eq 0 ]; then v=PASS; else v=ERROR; fi'
	echo '	echo "MCS-PROFILE $1 kernel $2 ops=$3 verdict=$v"'
	echo '}'
	n=0
	for j in "${joblist[@]}"; do
		j=$(xargs <<<"$j")
		[[ -n $j ]] || continue
		if [[ $j == kernel\ * ]]; then
			[[ $j =~ ^kernel\ pair=(pc|obj|skmem)$ ]] ||
				die "PROFILE_JOBS: '$j': expected kernel pair=pc|obj|skmem"
			echo "kc $n.1 \"${j#kernel }\" $kc_loops"
			echo "kc $n.2 \"${j#kernel }\" $((2 * kc_loops))"
		else
			echo "run $n.1 \"$j duration_ms=$ms\""
			echo "run $n.2 \"$j duration_ms=$((2 * ms))\""
		fi
		n=$((n + 1))
	done
	echo 'echo MCS-KALLSYMS-BEGIN'
	echo "grep ' [tT] ' /proc/kallsyms | gzip -1 | base64"
	echo 'echo MCS-KALLSYMS-END'
} >"$P/run.sh"
printf '%s\n' "${joblist[@]}" >"$P/jobs.txt"

MCS_MIN_CPUS=1 "$here/../rig/mkinitramfs.sh" "$P/initramfs.cpio.gz" "$M" "$P/bin" "$P/run.sh"
log "profile: $n jobs on $kernel, one vCPU, -icount shift=0"
MCS_ACCEL=tcg QEMU_ICOUNT=shift=0 QEMU_PLUGIN="$P/tbcount.so,out=$P/blocks.txt" \
	QEMU_TIMEOUT=$((n * 120 + 600)) \
	"$here/../rig/qemu-run.sh" "$vmlinuz" "$P/initramfs.cpio.gz" "$P/console.log" 1 || true
grep -q '^MCS-VERDICT: PASS' "$P/console.log" ||
	die "the profile run failed: $(grep '^MCS-VERDICT' "$P/console.log" || echo no verdict) ($P/console.log)"
python3 "$here/bench-profile.py" "$P" "$blocks" | tee "$P/profile.txt"
