#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mkinitramfs.sh OUT.cpio.gz MODDIR SELFTESTDIR [MODE]: a busybox-static
# initramfs for the qemu test kernels, with memcg_stock.ko (and
# memcg_stock_test.ko when MODDIR has it) and every executable in SELFTESTDIR
# (which may be empty or missing).
#
# MODE: test (default)  load, KUnit report, selftests, unload, leak/taint checks
#       shell           a shell on the console instead (a guest booted by
#                       hand): the module is not loaded; /mcs/tree holds the
#                       Makefile, the modules and the selftests, with GNU make,
#                       so that `cd /mcs/tree && make run_tests` runs the suite
#       FILE            a script run after the module (and the KUnit module, if
#                       given) is loaded, instead of the selftests (bench, stress)
#
# MCS_MIN_CPUS: the guest fails with fewer online CPUs (default 2; the
# benchmark's 1-vCPU guest sets 1).
#
# /init runs selftests/run_tests.sh, the entry point a user runs as `make
# run_tests`, with MCS_MARKERS=1 and MCS_RIG=1 (a selftest whose
# prerequisite is missing fails instead of skipping: the guest has them
# all).  Everything goes to the serial console.
# The host judges the run from these lines (scripts/rig/vmtest.sh); each marker
# is a whole line (MCS-BOOT and MCS-VERDICT are /init's, the others
# run_tests.sh's):
#   MCS-BOOT <uname -r> cpus=<n>
#   MCS-INSMOD <module> rc=<rc>
#   MCS-KTAP-BEGIN ... MCS-KTAP-END          the test module's KUnit report
#   MCS-SELFTEST-BEGIN <name> ... MCS-SELFTEST-END <name> rc=<rc>
#   MCS-RUN-BEGIN ... MCS-RUN-END rc=<rc>    MODE=FILE
#   MCS-RMMOD <module> rc=<rc> | MCS-RMMOD <module> not-loaded
#   MCS-FAIL <reason>                        one per failed check
#   MCS-KMEMLEAK-BEGIN ... MCS-KMEMLEAK-END  only when kmemleak exists
#   MCS-TAINT <value>
#   MCS-DEBUG-LOCKS <0|1>                    only with lockdep
#   MCS-SPLATS-BEGIN ... MCS-SPLATS-END      only when the kernel log has splats
#   MCS-PHASE <name> <seconds>               after each step: its time (boot,
#                                            kmemleak-start, insmod, kunit, each
#                                            selftest, unload, kmemleak-end, checks)
#   MCS-RUN-TESTS rc=<rc>                    run_tests.sh's exit code
#   MCS-VERDICT: PASS | MCS-VERDICT: FAIL <reasons>   last line before reboot
set -euo pipefail
. "$(dirname "$0")/lib.sh"
# Boot banners of the debug kernels that match a splat pattern without
# being splats (MCS_SPLAT_BENIGN, from lib.sh): run_tests.sh skips them too.

out=${1:?usage: mkinitramfs.sh OUT.cpio.gz MODDIR SELFTESTDIR [MODE]}
moddir=${2:?usage: mkinitramfs.sh OUT.cpio.gz MODDIR SELFTESTDIR [MODE]}
stdir=${3:?usage: mkinitramfs.sh OUT.cpio.gz MODDIR SELFTESTDIR [MODE]}
mode=${4:-test}

busybox=/bin/busybox
file -L "$busybox" 2>/dev/null | grep -q 'statically linked' ||
	die "$busybox is not busybox-static (apt-get install busybox-static)"
[[ -f $moddir/memcg_stock.ko ]] || die "no $moddir/memcg_stock.ko"

root=$(mktemp -d "${TMPDIR:-/tmp}/mcs-initramfs.XXXXXX")
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,run,mcs/modules,mcs/selftests}
cp "$busybox" "$root/bin/busybox"
# the kernel opens /dev/console for init before anything is mounted
mknod -m 600 "$root/dev/console" c 5 1
# The modules and the selftest programs without their debug info: built
# against Debian's headers memcg_stock.ko carries 9 to 12 MiB of DWARF,
# which every load copies (the selftests load the module hundreds of
# times) and busybox reads through for its vermagic, at TCG speed (about
# 170 s of a guest's boot beside the other guests of make check).  The
# kernel's reports name functions from kallsyms, which stays.
# strip_copy SRC DIR: SRC into DIR, an ELF file stripped of debug info
strip_copy() {
	if [[ $(head -c 4 "$1" | od -An -c | tr -d ' ') == 177ELF ]]; then
		strip --strip-debug -o "$2/${1##*/}" "$1" || die "strip --strip-debug $1 failed"
		chmod --reference="$1" "$2/${1##*/}"
	else
		cp "$1" "$2/"
	fi
}
strip_copy "$moddir/memcg_stock.ko" "$root/mcs/modules"
[[ -f $moddir/memcg_stock_test.ko ]] && strip_copy "$moddir/memcg_stock_test.ko" "$root/mcs/modules"
if [[ -d $stdir ]]; then
	while IFS= read -r -d '' f; do
		strip_copy "$f" "$root/mcs/selftests"
	done < <(find "$stdir" -maxdepth 1 -type f -perm -u+x -print0)
fi
# the entry point and its splat patterns (the rig's own copy, also when
# MCS_MODULE_SRC names another module tree)
cp "$MCS_SRC/selftests/run_tests.sh" "$MCS_SRC"/selftests/splat*.re \
	"$MCS_SRC"/selftests/splat-alloc.awk "$MCS_SRC"/selftests/splat-kcsan.awk \
	"$MCS_SRC"/selftests/kmemleak-known.awk \
	"$root/mcs/selftests/"
case $mode in
test) ;;
shell)
	# /mcs/tree: what `make run_tests` needs, as laid out by `make` and
	# `make -C selftests`; GNU make with the libraries it links
	T=$root/mcs/tree
	mkdir -p "$T/selftests"
	cp "$MCS_SRC/Makefile" "$MCS_SRC/dkms.conf" "$T/"
	cp "$root"/mcs/modules/*.ko "$T/"
	cp -a "$root"/mcs/selftests/. "$T/selftests/"
	cp "$(command -v make)" "$root/bin/make"
	for l in $(ldd "$(command -v make)" | grep -oE '/[^ ]+'); do
		mkdir -p "$root$(dirname "$l")"
		cp -L "$l" "$root$l"
	done
	;;
*)
	[[ -f $mode ]] || die "MODE must be test, shell or a script file, not '$mode'"
	cp "$mode" "$root/mcs/run.sh"
	chmod +x "$root/mcs/run.sh"
	mode=run
	;;
esac

{
	printf '#!/bin/busybox sh\n'
	printf 'MODE=%s\n' "$mode"
	printf 'MIN_CPUS=%s\n' "${MCS_MIN_CPUS:-2}"
	printf "SPLAT_BENIGN='%s'\n" "$MCS_SPLAT_BENIGN"
	cat <<'INIT'
# /init of the memcg_stock test initramfs (generated by scripts/rig/mkinitramfs.sh)
/bin/busybox --install -s /bin
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t debugfs debugfs /sys/kernel/debug
[ -d /sys/kernel/tracing ] && mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
exec </dev/console >/dev/console 2>&1

FAILS=
fail() { FAILS="$FAILS $1"; echo "MCS-FAIL $1"; }
M=/mcs/modules

cpus=$(grep -c '^processor' /proc/cpuinfo)
echo "MCS-BOOT $(uname -r) cpus=$cpus"
[ "$cpus" -ge "$MIN_CPUS" ] || fail "only-$cpus-cpu"
[ -r /proc/sys/kernel/tainted ] && echo "MCS-BOOT-TAINT $(cat /proc/sys/kernel/tainted)"

if [ "$MODE" = shell ]; then
	echo "MCS-SHELL (exit to power off; the suite: cd /mcs/tree && make run_tests)"
	setsid cttyhack sh
	reboot -f
fi

# the suite itself: selftests/run_tests.sh, the entry point of `make
# run_tests`, with the marker lines the host judges (MCS_MARKERS=1), and
# MCS_RIG=1: a selftest fails where it would skip for a missing prerequisite
set -- -m $M -o /tmp/run_tests
[ "$MODE" = run ] && set -- "$@" -r /mcs/run.sh
MCS_RIG=1 MCS_MARKERS=1 MCS_SPLAT_BENIGN="$SPLAT_BENIGN" sh /mcs/selftests/run_tests.sh "$@"
rc=$?
echo "MCS-RUN-TESTS rc=$rc"
# its failures, one word each, for the verdict line
[ $rc -eq 0 ] || FAILS="$FAILS run_tests-exit-$rc"
[ -f /tmp/run_tests/failures ] && while read -r l; do
	FAILS="$FAILS $(echo "$l" | cut -d: -f1 | tr ' ' '-')"
done </tmp/run_tests/failures

if [ -z "$FAILS" ]; then
	echo "MCS-VERDICT: PASS"
else
	echo "MCS-VERDICT: FAIL$FAILS"
fi
sync
reboot -f
INIT
} > "$root/init"
chmod +x "$root/init"

(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet | gzip -1) > "$out.tmp"
mv "$out.tmp" "$out"
