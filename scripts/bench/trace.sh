#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# trace.sh [WORKLOAD]: `make trace`.  Boots a qemu test kernel (TRACE_KERNEL,
# default deb-amd64: Debian's 6.12 generic) with TRACE_SMP vCPUs (default
# 4), records the kernel's own memcg charge stream while WORKLOAD runs in
# its cgroups (scripts/bench/trace/guest.sh), and leaves the trace in
# .out/trace/WORKLOAD.mcstrace, then prints scripts/bench/trace-read.py's summary.
# Workloads: many-cgroups (TRACE_CGROUPS, default 64, each running a short
# busybox loop of TRACE_ROUNDS rounds, default 12), fork-storm (4 cgroups
# of fork/exec loops), stress-fork and stress-switch (stress-ng's fork and
# switch stressors, one instance per cgroup in 4 cgroups, TRACE_OPS bogo
# ops each), kbuild (`make -j4 libz.a` of Debian's zlib source in a cgroup,
# with Debian's gcc 12) and loopback (an iperf3 server and client in each
# of 4 cgroups, TRACE_BYTES per client over lo, default 32M).  stress-ng and
# iperf3 come from Debian bookworm through the rig's private apt
# configuration: the package and those of its libraries (apt-cache depends)
# are unpacked into $MCS_CACHE/trace-pkgs, and the binary with the libraries
# ldd finds for it goes into the guest as a tar; kbuild's compiler goes in
# as whole packages (gcc, libc6-dev, binutils, make and their dependencies)
# and zlib's tree as bookworm's source package configured on this host
# (scripts/bench/trace/pkgs.sh).  The guest has 2G of memory for kbuild, else 1G
# (QEMU_MEM).
#
# TRACE_PROFILE=1 (scripts/bench/replay-kernel.sh) boots the guest under qemu
# -icount shift=0 with the tbcount plugin (scripts/bench/profile/tools.sh):
# the blocks the kernel ran while the workload ran, then those of the
# trace's replay through each mode of TRACE_REPLAY_MODES in the same boot,
# land in .out/trace/WORKLOAD.blocks beside the console log.
set -euo pipefail
. "$(dirname "$0")/../rig/lib.sh"
. "$(dirname "$0")/trace/pkgs.sh"
. "$(dirname "$0")/profile/tools.sh"

workload=${1:-many-cgroups}
case $workload in
many-cgroups | fork-storm | stress-fork | stress-switch | kbuild | loopback) ;;
*) die "WORKLOAD=$workload: expected many-cgroups, fork-storm, stress-fork, stress-switch, kbuild or loopback" ;;
esac
kernel=${TRACE_KERNEL:-deb-amd64}
smp=${TRACE_SMP:-4}
profile=${TRACE_PROFILE:-0}
[[ $profile == [01] ]] || die "TRACE_PROFILE=$profile: expected 0 or 1"
[[ $kernel == deb-* ]] || die "TRACE_KERNEL=$kernel: recording needs a Debian kernel (deb-FLAVOUR, deb-SERIES-FLAVOUR)"

read -r vmlinuz kdir _ < <(mcs_qemu_kernel "$kernel")
moddir=$(mcs_build_module "$kdir" "$kernel")
out=$MCS_OUT/trace
mkdir -p "$out"

# pkg_tar PKG BIN OUT: Debian bookworm's PKG and its libraries unpacked once
# into the cache; OUT a tar of BIN and every library ldd resolves for it
# (from that root first), paths as in the root filesystem.
pkg_tar() {
	local pkg=$1 bin=$2 tarf=$3 root=$MCS_CACHE/trace-pkgs/$1 lib libdirs list
	[[ -x $root$bin ]] || { rm -rf "$root"; pkg_unpack "$root" "$pkg"; }
	[[ -x $root$bin ]] || die "no $bin in $pkg"
	libdirs=$root/lib/x86_64-linux-gnu:$root/usr/lib/x86_64-linux-gnu
	list=("$bin")
	while read -r lib; do
		[[ -e $root$lib ]] || { mkdir -p "$root$(dirname "$lib")"; cp -L "$lib" "$root$lib"; }
		list+=("$lib")
	done < <(LD_LIBRARY_PATH=$libdirs ldd "$root$bin" |
		awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' |
		sed "s|^$root||" | sort -u)
	LD_LIBRARY_PATH=$libdirs ldd "$root$bin" | grep -q 'not found' &&
		die "$bin: libraries not found: $(LD_LIBRARY_PATH=$libdirs ldd "$root$bin" | grep 'not found' | tr -d '\t' | paste -sd' ')"
	tar -C "$root" -cf "$tarf" --dereference "${list[@]#/}"
	chmod +x "$tarf"	# mkinitramfs.sh takes the executables of the directory
}

pkgdir=$out/pkgs
rm -rf "$pkgdir"
mkdir -p "$pkgdir"
case $workload in
stress-*) pkg_tar stress-ng /usr/bin/stress-ng "$pkgdir/stress-ng.tar" ;;
loopback) pkg_tar iperf3 /usr/bin/iperf3 "$pkgdir/iperf3.tar" ;;
kbuild)
	# the compiler as whole packages, zlib's tree configured on this host
	pkg_root_tar toolchain "$pkgdir/toolchain.tar" gcc gcc-12 libc6-dev make binutils
	src_tar zlib build/zlib "$pkgdir/zlib.tar" ;;
esac
prof=()
rm -f "$out/$workload.blocks"
if ((profile)); then
	profile_tools "$out/profile" "$pkgdir"
	prof=(MCS_QEMU=system MCS_ACCEL=tcg QEMU_ICOUNT=shift=0
		QEMU_PLUGIN="$out/profile/tbcount.so,out=$out/$workload.blocks")
fi
script=$out/guest-$workload.sh
{
	printf 'TRACE_WORKLOAD=%s\nTRACE_CGROUPS=%s\n' "$workload" "${TRACE_CGROUPS:-64}"
	((profile)) && printf 'TRACE_PROFILE=1\nTRACE_REPLAY_MODES="%s"\n' "${TRACE_REPLAY_MODES:-}"
	printf 'TRACE_ROUNDS=%s\nTRACE_OPS=%s\nTRACE_BYTES=%s\n' "${TRACE_ROUNDS:-12}" "${TRACE_OPS:-}" "${TRACE_BYTES:-32M}"
	cat "$MCS_SCRIPTS/bench/trace/guest.sh"
} > "$script"
MCS_MIN_CPUS=$smp "$MCS_RIG/mkinitramfs.sh" "$out/initramfs.cpio.gz" "$moddir" "$pkgdir" "$script"
logf=$out/$workload.log
mem=1G
[[ $workload == kbuild ]] && mem=2G	# the compiler's files unpacked in RAM
# noirqdebug: the trace leaves as base64 on the serial console, and on
# PREEMPT_RT the port's threaded handler falls behind that flood until the
# spurious-interrupt detector calls its line stuck ("nobody cared", a call
# trace that fails the run and lands inside the base64 text)
env "${prof[@]}" QEMU_APPEND="noirqdebug ${QEMU_APPEND:-}" QEMU_TIMEOUT=${QEMU_TIMEOUT:-900} QEMU_MEM=${QEMU_MEM:-$mem} \
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
python3 "$MCS_SCRIPTS/bench/trace-read.py" "$trace"
