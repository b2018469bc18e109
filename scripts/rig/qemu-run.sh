#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# qemu-run.sh VMLINUZ INITRD LOG [SMP]: boot a kernel + initramfs under
# qemu-system-x86_64 (KVM where /dev/kvm is usable, TCG otherwise) with the
# serial console written to LOG; its first line names the accelerator and
# the emulator.  CRs are stripped and every other byte but printable ASCII, tab and
# newline becomes '?', so grep never takes the log for binary (a kernel
# message can echo raw user bytes).  SMP defaults to 2 (vCPUs above the
# host's cores need thread=single: more TCG threads than cores starve vCPUs).
#
# The exit status is qemu's (124 when the hard timeout hit): a kernel panic
# also ends with status 0 (panic=-1 -no-reboot), so callers judge the run by
# the markers in LOG, never by this status alone.
#   QEMU_TIMEOUT  seconds before qemu is killed (default 600)
#   QEMU_CPU      TCG only: the -cpu model (default max)
#   QEMU_MEM      guest memory (default 1G)
#   QEMU_APPEND   extra kernel command line
#   QEMU_NUMA     NUMA nodes (default 1: no -numa options); guest memory is
#                 split evenly, node i is socket i with SMP/N vCPUs (with
#                 fewer vCPUs than nodes, the nodes beyond are memory-only)
#   MCS_ACCEL     auto (default: kvm if usable, else tcg), kvm or tcg
#   MCS_QEMU      the emulator: backports (default), system or a path
#                 (lib.sh mcs_qemu_cmd)
#   QEMU_ICOUNT   TCG only: -icount with these options (e.g. shift=0: one
#                 guest ns per instruction, deterministic); forces
#                 thread=single, which icount requires
#   QEMU_PLUGIN   TCG only: a TCG plugin and its arguments, given to -plugin
#                 (scripts/bench/bench-profile.sh)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage='usage: qemu-run.sh VMLINUZ INITRD LOG [SMP]'
kernel=${1:?$usage}
initrd=${2:?$usage}
logf=${3:?$usage}
smp=${4:-2}
[[ -f $kernel ]] || die "no kernel $kernel"
[[ -f $initrd ]] || die "no initramfs $initrd"
mcs_qemu_cmd

# KVM is used only when a guest really runs under it: the device node can
# exist and qemu can open it while every guest dies at once with "KVM
# internal error" (nested virtualization here).  The probe boots this very
# kernel without an initramfs until it prints its banner; the answer is
# kept for the rest of the session in $MCS_OUT/accel.
kvm_works() {
	local out
	[[ -r /dev/kvm && -w /dev/kvm ]] || return 1
	out=$(timeout -k 2 20 "${MCS_QEMU_CMD[@]}" -accel kvm -cpu host -smp 1 -m 256M \
		-nographic -no-reboot -monitor none -nic none -kernel "$kernel" \
		-append 'console=ttyS0 panic=-1' </dev/null 2>&1 |
		grep -a -m1 -o -E 'Linux version|KVM internal error') || true
	[[ $out == 'Linux version' ]]
}
accel=${MCS_ACCEL:-auto}
if [[ $accel == auto ]]; then
	# one probe for concurrent boots (vmtest's VM_JOBS): the others wait
	exec 9>"$MCS_OUT/accel.lock"
	flock 9
	if [[ ! -s $MCS_OUT/accel ]]; then
		if kvm_works; then echo kvm; else echo tcg; fi > "$MCS_OUT/accel.tmp"
		mv "$MCS_OUT/accel.tmp" "$MCS_OUT/accel"
	fi
	accel=$(cat "$MCS_OUT/accel")
	exec 9>&-
fi
[[ -z ${QEMU_ICOUNT:-} || $accel == tcg ]] || die "QEMU_ICOUNT needs TCG (accel=$accel)"
[[ -z ${QEMU_PLUGIN:-} || $accel == tcg ]] || die "QEMU_PLUGIN needs TCG (accel=$accel)"
case $accel in
kvm)	accel_args=(-accel kvm -cpu host) ;;
tcg)	thread=multi
	((smp <= 4 && smp <= $(nproc))) && [[ -z ${QEMU_ICOUNT:-} ]] || thread=single
	accel_args=(-accel "tcg,thread=$thread" -cpu "${QEMU_CPU:-max}")
	[[ -z ${QEMU_ICOUNT:-} ]] || accel_args+=(-icount "$QEMU_ICOUNT")
	[[ -z ${QEMU_PLUGIN:-} ]] || accel_args+=(-plugin "$QEMU_PLUGIN") ;;
*)	die "MCS_ACCEL=$accel: expected auto, kvm or tcg" ;;
esac
# memory in MiB, for the split between NUMA nodes
mem=${QEMU_MEM:-1G}
case $mem in
*G) mem_mb=$((${mem%G} * 1024)) ;;
*M) mem_mb=${mem%M} ;;
*) [[ $mem =~ ^[0-9]+$ ]] || die "QEMU_MEM=$mem: expected NM or NG"; mem_mb=$mem ;;
esac
nodes=${QEMU_NUMA:-1}
[[ $nodes =~ ^[1-9][0-9]*$ ]] || die "QEMU_NUMA=$nodes: expected a node count"
# One socket per node with vCPUs: the default topology (every vCPU a core of
# one socket, one LLC) across nodes makes the kernel warn in topology_sane()
# ("llc-sibling CPU #0 is not on the same node"), a panic with panic_on_warn.
# Nodes beyond the vCPU count get memory only.
smp_args=("$smp")
numa_args=()
if ((nodes > 1)); then
	((mem_mb % nodes == 0)) || die "QEMU_MEM=$mem does not split evenly over $nodes nodes"
	sockets=$((smp < nodes ? smp : nodes))
	((smp % sockets == 0)) || die "$smp vCPUs do not split evenly over $sockets NUMA nodes"
	smp_args=("$smp,sockets=$sockets,cores=$((smp / sockets)),threads=1")
	for ((i = 0; i < nodes; i++)); do
		numa_args+=(-object "memory-backend-ram,id=mem$i,size=$((mem_mb / nodes))M"
			-numa "node,nodeid=$i,memdev=mem$i")
	done
	for ((i = 0; i < sockets; i++)); do
		numa_args+=(-numa "cpu,node-id=$i,socket-id=$i")
	done
fi
append="console=ttyS0 panic=-1 oops=panic panic_on_warn=1 softlockup_panic=1 softlockup_all_cpu_backtrace=1 ${QEMU_APPEND:-}"

mkdir -p "$(dirname "$logf")"
log "qemu $MCS_QEMU_VERSION: accel=$accel smp=$smp numa=$nodes icount=${QEMU_ICOUNT:-off} ($(basename "$kernel"))"
echo "mcs-qemu: accel=$accel smp=$smp numa=$nodes icount=${QEMU_ICOUNT:-off} qemu=$MCS_QEMU_VERSION" > "$logf"
tq=$SECONDS
cpu0=$(mcs_children_cpu)
set +e
timeout -k 5 "${QEMU_TIMEOUT:-600}" "${MCS_QEMU_CMD[@]}" \
	"${accel_args[@]}" -smp "${smp_args[@]}" -m "${mem_mb}M" "${numa_args[@]}" \
	-nographic -no-reboot -monitor none -nic none \
	-device isa-debug-exit,iobase=0xf4,iosize=0x04 \
	-kernel "$kernel" -initrd "$initrd" -append "$append" \
	</dev/null 2>&1 | tr -d '\r' | LC_ALL=C tr -c '\11\12\40-\176' '?' >> "$logf"
rc=${PIPESTATUS[0]}
set -e
# host CPU seconds the boot used (qemu, user + system), against its wall
# time: how much of a guest's time is CPU, how much fixed durations
cpu=$(($(mcs_children_cpu) - cpu0))
log "qemu: exit $rc after $((SECONDS - tq)) s wall, $cpu s host CPU ($(basename "$kernel"), smp=$smp)"
((rc == 124)) && log "qemu timed out after ${QEMU_TIMEOUT:-600} s ($logf)"
exit "$rc"
