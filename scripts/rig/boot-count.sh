#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot-count.sh KERNEL N: boot a qemu test kernel N times to the start of
# userspace (no module, no test: /init prints a line and reboots, which
# ends qemu: -no-reboot) and count the boots whose console has a kernel report (KASAN, BUG, WARNING,
# a lockdep splat, a panic) or no end line.  For a report that appears
# before the module is even loaded: its rate per emulator and
# configuration (docs/testing.md, "Emulator faults").
#
# The boots run one after the other with vmtest's settings (2 vCPUs,
# multi-threaded TCG, the command line qemu-run.sh gives every guest,
# panic_on_warn included).  MCS_QEMU picks the emulator (backports:
# qemu 10, the default; system: Debian 12's qemu 7.2).  Each console goes
# to $MCS_OUT/boot-count/<kernel>-<qemu>/boot-<i>.log; the last line
# printed is "boot-count: KERNEL qemu VERSION: R of N boots reported
# (boots: ...)".  Exit 0 whatever the count (a measurement, not a test);
# 1 when a boot could not run at all.  BOOT_APPEND: more kernel options;
# BOOT_TAG: a suffix of the output folder; QEMU_CPU (qemu-run.sh): the CPU
# model, e.g. max,la57=off.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

k=${1:?usage: boot-count.sh KERNEL N}
n=${2:?usage: boot-count.sh KERNEL N}
[[ $n =~ ^[1-9][0-9]*$ ]] || die "N=$n: expected a number of boots"
mcs_qemu_cmd
read -r vmlinuz _ <<<"$(mcs_qemu_kernel "$k")" || die "kernel $k not available"
[[ -f $vmlinuz ]] || die "kernel $k: no $vmlinuz"
D=$MCS_OUT/boot-count/$k-${MCS_QEMU:-backports}${BOOT_TAG:+-$BOOT_TAG}
rm -rf "$D"
mkdir -p "$D/root/bin" "$D/root/dev" "$D/root/proc"
cp /bin/busybox "$D/root/bin/busybox"
file -L /bin/busybox | grep -q 'statically linked' || die "/bin/busybox is not busybox-static"
cat >"$D/root/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox mount -t proc proc /proc
echo "MCS-BOOT-COUNT-END $(/bin/busybox cut -d' ' -f1 /proc/uptime)"
/bin/busybox reboot -f
INIT
chmod +x "$D/root/init"
(cd "$D/root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet | gzip -1) >"$D/initramfs.cpio.gz"
bad=()
for ((i = 1; i <= n; i++)); do
	QEMU_TIMEOUT=600 QEMU_APPEND="$(mcs_kernel_append "$k")${BOOT_APPEND:+ $BOOT_APPEND}" \
		"$here/qemu-run.sh" "$vmlinuz" "$D/initramfs.cpio.gz" "$D/boot-$i.log" 2 || true
	if grep -aqE 'BUG: |WARNING: |Kernel panic|possible circular locking|inconsistent lock state' \
		"$D/boot-$i.log" || ! grep -aq '^MCS-BOOT-COUNT-END ' "$D/boot-$i.log"; then
		bad+=("$i: $(grep -aom1 -E '(BUG|WARNING): [^[]*|Kernel panic[^[]*' "$D/boot-$i.log" ||
			echo 'no end line')")
	fi
done
log "boot-count: $k qemu $MCS_QEMU_VERSION: ${#bad[@]} of $n boots reported${bad:+ (boots: $(IFS=';'; echo "${bad[*]}"))}"
