#!/bin/bash
# qemu-run.sh VMLINUZ INITRD LOG [SMP]: boot a kernel + initramfs under
# qemu-system-x86_64 (TCG, no KVM here) with the serial console written to
# LOG.  CRs are stripped and every other byte but printable ASCII, tab and
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
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage='usage: qemu-run.sh VMLINUZ INITRD LOG [SMP]'
kernel=${1:?$usage}
initrd=${2:?$usage}
logf=${3:?$usage}
smp=${4:-2}
[[ -f $kernel ]] || die "no kernel $kernel"
[[ -f $initrd ]] || die "no initramfs $initrd"

thread=multi
((smp <= 4 && smp <= $(nproc))) || thread=single
append="console=ttyS0 panic=-1 oops=panic panic_on_warn=1 softlockup_panic=1 ${QEMU_APPEND:-}"

mkdir -p "$(dirname "$logf")"
set +e
timeout -k 5 "${QEMU_TIMEOUT:-600}" qemu-system-x86_64 \
	-accel tcg,thread=$thread -cpu max -smp "$smp" -m "${QEMU_MEM:-1G}" \
	-nographic -no-reboot -monitor none -nic none \
	-device isa-debug-exit,iobase=0xf4,iosize=0x04 \
	-kernel "$kernel" -initrd "$initrd" -append "$append" \
	</dev/null 2>&1 | tr -d '\r' | LC_ALL=C tr -c '\11\12\40-\176' '?' > "$logf"
rc=${PIPESTATUS[0]}
set -e
((rc == 124)) && log "qemu timed out after ${QEMU_TIMEOUT:-600} s ($logf)"
exit "$rc"
