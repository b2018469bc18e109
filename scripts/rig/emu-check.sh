#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# emu-check.sh (`make emu-check`): does this host's emulator corrupt a guest
# under an NMI load, with memcg_stock out of the kernel?
#
# Boots Debian's 6.12 generic under qemu's software emulation (TCG, forced
# even where KVM works), unloads memcg_stock, loads scripts/rig/emu/nmi_storm.ko
# (an NMI to every vCPU every EMU_NMI_US microseconds, a handler that does
# nothing else) and keeps every vCPU in the slab fast paths for EMU_SECONDS
# (scripts/rig/emu/guest.sh).  The NMI rate is the one of the stress harness's
# NMI load (nmi_us, 100 by default, 10 to 500 in the fuzzer).
#
# Exit 0: the kernel survived.  Exit 1: it crashed or warned, and the
# report is printed; an EFLAGS that no CPU can hold (impossible_cpu_state
# below) is named.  Such a crash is the emulator's (or
# the kernel's), never memcg_stock's: the module is not in the kernel.
# docs/testing.md ("Emulator faults") has what qemu 7.2 did here.
#
#   EMU_SECONDS  guest time under load (default 3600)
#   EMU_NMI_US   NMI period per vCPU, 10 to 1000000 (default 50)
#   EMU_SMP      vCPUs (default 8: single-threaded TCG above the host's cores)
#   MCS_QEMU     the emulator (lib.sh mcs_qemu_cmd; system: Debian 12's 7.2)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

secs=${EMU_SECONDS:-3600}
nmi_us=${EMU_NMI_US:-50}
smp=${EMU_SMP:-8}
[[ $secs =~ ^[1-9][0-9]{0,5}$ ]] || die "EMU_SECONDS=$secs: 1 to 999999"
if [[ ! $nmi_us =~ ^[0-9]{2,7}$ ]] || ((nmi_us > 1000000)); then
	die "EMU_NMI_US=$nmi_us: 10 to 1000000"
fi
[[ $smp =~ ^[1-9][0-9]?$ ]] || die "EMU_SMP=$smp: 1 to 99"

# impossible_cpu_state LOG: a register dump whose EFLAGS has a reserved bit
# set (bit 1 must be 1; 3, 5, 15 and 22-63 must be 0) cannot come from a
# real CPU: an emulator fault
impossible_cpu_state() {
	local f
	for f in $(grep -aoE 'EFLAGS: [0-9a-f]+' "$1" | awk '{print $2}'); do
		(((0x$f & 0xffffffffffc08028) != 0 || (0x$f & 0x2) == 0)) && return 0
	done
	return 1
}

E=$MCS_OUT/emu
rm -rf "$E"
mkdir -p "$E/selftests" "$E/storm"
d=$("$here/fetch-debian-kernel.sh" amd64) || die "no Debian 6.12 generic kernel"
kdir=$d/build
mod=$(mcs_build_module "$kdir" deb-amd64 | tail -1)
cp "$here/emu/nmi_storm.c" "$here/emu/Kbuild" "$E/storm/"
make -s -C "$kdir" M="$E/storm" MCS_INC="$MCS_SRC" modules >&2 || die "nmi_storm build failed"
install -m 0755 "$E/storm/nmi_storm.ko" "$E/selftests/"
"$here/mkinitramfs.sh" "$E/initramfs.cpio.gz" "$mod" "$E/selftests" "$here/emu/guest.sh"
log "emu-check: Debian 6.12 generic, $smp vCPUs under TCG, an NMI every $nmi_us us per vCPU, $secs s"
rc=0
MCS_ACCEL=tcg QEMU_TIMEOUT=$((secs + 600)) \
	QEMU_APPEND="EMU_SECONDS=$secs EMU_NMI_US=$nmi_us" \
	"$here/qemu-run.sh" "$d/vmlinuz" "$E/initramfs.cpio.gz" "$E/console.log" "$smp" || rc=$?
c=$E/console.log
q="qemu $(sed -n '1s/.* qemu=//p' "$c")"
if grep -aqE 'EMU-FAIL' "$c"; then
	grep -aE 'EMU-FAIL' "$c" >&2
	die "emu-check could not set up the guest (log $c)"
fi
# a splat as every run of the rig judges one (selftests/splat.re)
if (mcs_check_console "$c") 2>"$E/splats.txt"; then
	grep -aq '^EMU-DONE' "$c" ||
		die "emu-check: the guest ended without EMU-DONE and without a report (qemu exit $rc; log $c)"
	log "emu-check: $q: no fault in $secs s ($(grep -a '^EMU-MINUTE' "$c" | tail -1)); log $c"
	exit 0
fi
grep -aE -m1 -A40 "$MCS_SPLAT_RE" "$c" >&2
why="a crash"
impossible_cpu_state "$c" && why="a crash with an EFLAGS no CPU can hold (an emulator fault)"
log "emu-check: $q: $why after $(grep -ac '^EMU-MINUTE' "$c") min under load, memcg_stock not loaded; log $c"
exit 1
