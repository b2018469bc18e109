#!/bin/bash
# qemu-run.sh VMLINUZ INITRD LOG [SMP]: boot a kernel + initramfs under
# qemu-system-x86_64 (KVM where /dev/kvm is usable, TCG otherwise) with the
# serial console written to LOG; its first line names the accelerator.  CRs are stripped and every other byte but printable ASCII, tab and
# newline becomes '?', so grep never takes the log for binary (a kernel
# message can echo raw user bytes).  SMP defaults to 2 (vCPUs above the
# host's cores need thread=single: see test-rig.md).
#
# The exit status is qemu's (124 when the hard timeout hit): a kernel panic
# also ends with status 0 (panic=-1 -no-reboot), so callers judge the run by
# the markers in LOG, never by this status alone.
#   QEMU_TIMEOUT  seconds before qemu is killed (default 600)
#   QEMU_MEM      guest memory (default 1G)
#   QEMU_APPEND   extra kernel command line
#   MCS_ACCEL     auto (default: kvm if usable, else tcg), kvm or tcg
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage='usage: qemu-run.sh VMLINUZ INITRD LOG [SMP]'
kernel=${1:?$usage}
initrd=${2:?$usage}
logf=${3:?$usage}
smp=${4:-2}
[[ -f $kernel ]] || die "no kernel $kernel"
[[ -f $initrd ]] || die "no initramfs $initrd"

accel=${MCS_ACCEL:-auto}
if [[ $accel == auto ]]; then
	accel=tcg
	# usable = qemu can open it and create a VM, not just that the node exists
	if [[ -r /dev/kvm && -w /dev/kvm ]] &&
		echo quit | timeout 20 qemu-system-x86_64 -accel kvm -M none -nodefaults \
			-display none -monitor stdio >/dev/null 2>&1; then
		accel=kvm
	fi
fi
case $accel in
kvm)	accel_args=(-accel kvm -cpu host) ;;
tcg)	thread=multi
	((smp <= 4 && smp <= $(nproc))) || thread=single
	accel_args=(-accel "tcg,thread=$thread" -cpu max) ;;
*)	die "MCS_ACCEL=$accel: expected auto, kvm or tcg" ;;
esac
append="console=ttyS0 panic=-1 oops=panic panic_on_warn=1 softlockup_panic=1 ${QEMU_APPEND:-}"

mkdir -p "$(dirname "$logf")"
log "qemu: accel=$accel smp=$smp ($(basename "$kernel"))"
echo "mcs-qemu: accel=$accel smp=$smp" > "$logf"
set +e
timeout -k 5 "${QEMU_TIMEOUT:-600}" qemu-system-x86_64 \
	"${accel_args[@]}" -smp "$smp" -m "${QEMU_MEM:-1G}" \
	-nographic -no-reboot -monitor none -nic none \
	-device isa-debug-exit,iobase=0xf4,iosize=0x04 \
	-kernel "$kernel" -initrd "$initrd" -append "$append" \
	</dev/null 2>&1 | tr -d '\r' | LC_ALL=C tr -c '\11\12\40-\176' '?' >> "$logf"
rc=${PIPESTATUS[0]}
set -e
((rc == 124)) && log "qemu timed out after ${QEMU_TIMEOUT:-600} s ($logf)"
exit "$rc"
