#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# trace.sh [WORKLOAD]: `make trace`.  Boots a qemu test kernel (TRACE_KERNEL,
# default deb-amd64: Debian's 6.12 generic) with TRACE_SMP vCPUs (default
# 4), records the kernel's own memcg charge stream while WORKLOAD runs in
# its cgroups (scripts/trace/guest.sh), and leaves the trace in
# .out/trace/WORKLOAD.mcstrace, then prints scripts/trace-read.py's summary.
# Workloads: many-cgroups (TRACE_CGROUPS, default 64, each running a short
# busybox loop), fork-storm (4 cgroups of fork/exec loops).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

workload=${1:-many-cgroups}
case $workload in
many-cgroups | fork-storm) ;;
*) die "WORKLOAD=$workload: expected many-cgroups or fork-storm" ;;
esac
kernel=${TRACE_KERNEL:-deb-amd64}
smp=${TRACE_SMP:-4}
[[ $kernel == deb-* ]] || die "TRACE_KERNEL=$kernel: recording needs a Debian kernel (deb-FLAVOUR, deb-SERIES-FLAVOUR)"

read -r vmlinuz kdir _ < <(mcs_qemu_kernel "$kernel")
moddir=$(mcs_build_module "$kdir" "$kernel")
out=$MCS_OUT/trace
mkdir -p "$out"
script=$out/guest-$workload.sh
{
	printf 'TRACE_WORKLOAD=%s\nTRACE_CGROUPS=%s\n' "$workload" "${TRACE_CGROUPS:-64}"
	cat "$MCS_RIG/trace/guest.sh"
} > "$script"
MCS_MIN_CPUS=$smp "$MCS_RIG/mkinitramfs.sh" "$out/initramfs.cpio.gz" "$moddir" /nonexistent "$script"
logf=$out/$workload.log
QEMU_TIMEOUT=${QEMU_TIMEOUT:-900} QEMU_MEM=${QEMU_MEM:-1G} \
	"$MCS_RIG/qemu-run.sh" "$vmlinuz" "$out/initramfs.cpio.gz" "$logf" "$smp" || true
mcs_check_console "$logf"
grep -q '^MCS-VERDICT: PASS' "$logf" || die "the guest failed (see $logf)"
trace=$out/$workload.mcstrace
sed -n '/^MCS-TRACE-BEGIN$/,/^MCS-TRACE-END$/p' "$logf" | sed '1d;$d' | base64 -d | gunzip > "$trace.tmp" ||
	die "no trace in $logf"
want=$(sed -n 's/^MCS-TRACE-BYTES //p' "$logf")
[[ $(stat -c %s "$trace.tmp") == "$want" ]] || die "trace of $(stat -c %s "$trace.tmp") bytes, the guest sent $want"
mv "$trace.tmp" "$trace"
grep '^record ' "$logf" >&2 || true
log "trace: $trace"
python3 "$MCS_RIG/trace-read.py" "$trace"
