#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# trace-replay.sh TRACE...: replay charge-stream traces (make trace, or the
# shipped selftests/traces/*.mcstrace[.xz]) through every stock mode in a qemu
# guest, REPLAY_RUNS times each (default 2), and print the bench result
# lines (docs/trace-format.md).  REPLAY_KERNEL (default deb-amd64) boots,
# with REPLAY_SMP vCPUs (default: the most any trace uses) under qemu
# -icount shift=0 (REPLAY_ICOUNT=0: plain TCG), so that ns_per_op counts
# instructions.
set -euo pipefail
. "$(dirname "$0")/../rig/lib.sh"
. "$(dirname "$0")/bench-lib.sh"

(($#)) || die "usage: trace-replay.sh TRACE..."
kernel=${REPLAY_KERNEL:-deb-amd64}
runs=${REPLAY_RUNS:-2}
out=$MCS_OUT/trace-replay
rm -rf "$out/traces"
mkdir -p "$out/traces"
smp=1
for t in "$@"; do
	python3 "$MCS_SCRIPTS/bench/trace-read.py" --check "$t" || die "$t is not a well-formed trace"
	trace_stage "$t" "$out/traces" || die "cannot copy $t into $out/traces"
	n=$(python3 "$MCS_SCRIPTS/bench/trace-read.py" --cpus "$t")
	((n > smp)) && smp=$n
done
smp=${REPLAY_SMP:-$smp}
read -r vmlinuz kdir _ < <(mcs_qemu_kernel "$kernel")
moddir=$(mcs_build_module "$kdir" "$kernel")
script=$out/guest.sh
cat > "$script" <<EOF2
D=/sys/kernel/debug/memcg_stock
for t in /mcs/selftests/*.mcstrace; do
	cat "\$t" > \$D/trace_load || { echo "MCS-REPLAY-FAIL load \$t"; cat \$D/trace_load; exit 1; }
	# every mode the module publishes (debugfs "modes")
	for m in \$(sed -n 's/^mode=\([^ ]*\) .*/\1/p' \$D/modes); do
		for r in \$(seq $runs); do
			# a mode this module does not have: skipped
			echo "mode=\$m workload=replay" > \$D/bench || continue 2
			echo "MCS-REPLAY \$(cat \$D/bench)"
		done
	done
done
EOF2
MCS_MIN_CPUS=$smp "$MCS_RIG/mkinitramfs.sh" "$out/initramfs.cpio.gz" "$moddir" "$out/traces" "$script"
icount=shift=0
[[ ${REPLAY_ICOUNT:-1} == 0 ]] && icount=
QEMU_ICOUNT=$icount QEMU_TIMEOUT=${QEMU_TIMEOUT:-1800} \
	"$MCS_RIG/qemu-run.sh" "$vmlinuz" "$out/initramfs.cpio.gz" "$out/console.log" "$smp" || true
mcs_check_console "$out/console.log"
grep -q '^MCS-VERDICT: PASS' "$out/console.log" || die "the guest failed (see $out/console.log)"
sed -n 's/^MCS-REPLAY //p' "$out/console.log" | tee "$out/results.txt"
