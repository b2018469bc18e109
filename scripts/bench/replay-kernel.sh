#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# replay-kernel.sh (`make replay-kernel`): does a replay predict the kernel?
# For each kernel of KREPLAY_KERNELS (default: Debian 6.12 and 7.x generic)
# and each workload of KREPLAY_WORKLOADS (default: the five recorded
# workloads the bench replays, with the parameters of their shipped
# traces), one boot of `make trace` with TRACE_PROFILE=1: under qemu -icount
# shift=0 the tbcount plugin counts the blocks the kernel runs while the
# workload runs and its charge stream is recorded, then those of the
# recording's replay through the designs shaped like the kernels' stocks
# (designs.py kernel-models: coupled, decoupled-7.3) in the same boot.
# scripts/bench/replay-kernel.py sets the kernel's stock part per recorded
# event and its page stock hit rate beside the replay's, per workload and
# kernel, and the A/B per workload.  The kernel's stock part counts its
# stock code also where the compiler inlined it into another function (7.x
# inlines the obj stock's take into the slab hook): each instruction of the
# charge path is attributed by its inline chain, from the kernel's debug
# image, Debian's linux-image-RELEASE-dbg (about 1.1 GB to download once;
# its vmlinux, about 400 MB, is kept in $MCS_CACHE/dbg).  The first run of a
# kernel takes about 2 minutes more for it.
#
# Output: $MCS_OUT/replay-kernel/KERNEL/WORKLOAD.{log,blocks,mcstrace} and
# $MCS_OUT/replay-kernel/replay-kernel.txt (the table), which
# scripts/bench/update-bench-docs.py --replay-kernel puts into
# docs/benchmark.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../rig/lib.sh"
kernels=${KREPLAY_KERNELS:-deb-amd64 deb-7.x-amd64}
workloads=${KREPLAY_WORKLOADS:-kbuild loopback stress-fork stress-switch many-cgroups}
known="kbuild loopback stress-fork stress-switch many-cgroups"
[[ -n ${kernels// /} ]] || die "KREPLAY_KERNELS is empty: name a Debian kernel (e.g. deb-amd64)"
[[ -n ${workloads// /} ]] || die "KREPLAY_WORKLOADS is empty: name one of: $known"
for w in $workloads; do
	[[ " $known " == *" $w "* ]] || die "KREPLAY_WORKLOADS: unknown workload '$w' (known: $known)"
done
for k in $kernels; do
	[[ $k == deb-* && $k != *+* ]] ||
		die "KREPLAY_KERNELS: '$k': a Debian kernel without options (deb-FLAVOUR, deb-SERIES-FLAVOUR)"
	mcs_kernel_spec "$k" >/dev/null
done
# dbg_vmlinux RELEASE: the path of the kernel's debug vmlinux, fetched once
# (Debian ships it as usr/lib/debug/boot/vmlinux-RELEASE, in some packages
# a link to usr/lib/debug/lib/modules/RELEASE/vmlinux)
dbg_vmlinux() {
	local rel=$1 dst=$MCS_CACHE/dbg/vmlinux-$1 tmp deb img
	if [[ ! -s $dst ]]; then
		mkdir -p "$MCS_CACHE/dbg"
		tmp=$(mktemp -d "${TMPDIR:-/tmp}/mcs-dbg.XXXXXX")
		log "replay-kernel: fetching linux-image-$rel-dbg for its vmlinux (once)"
		(cd "$tmp" && mcs_apt apt-get -q download "linux-image-$rel-dbg" >&2) ||
			{ rm -rf "$tmp"; die "no linux-image-$rel-dbg in the archive: the kernel's inlined stock code cannot be attributed"; }
		deb=$(ls "$tmp"/*.deb)
		mkdir "$tmp/x"
		dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp/x" --wildcards './usr/lib/debug/*vmlinux*' ||
			{ rm -rf "$tmp"; die "linux-image-$rel-dbg: cannot unpack its vmlinux"; }
		img=$(readlink -f "$tmp/x/usr/lib/debug/boot/vmlinux-$rel")
		[[ -f $img && -s $img ]] ||
			{ rm -rf "$tmp"; die "linux-image-$rel-dbg has no usr/lib/debug/boot/vmlinux-$rel"; }
		mv "$img" "$dst"
		rm -rf "$tmp"
	fi
	echo "$dst"
}
# the designs shaped like the kernels' stocks, before the split and after
models=$(python3 "$here/designs.py" kernel-models) || die "designs.py: the modes do not parse"
R=$MCS_OUT/replay-kernel
rm -rf "$R"
mkdir -p "$R"
t0=$SECONDS
# every kernel's debug image first: a kernel without one stops the run here
for k in $kernels; do
	mkdir -p "$R/$k"
	read -r vmlinuz _ <<<"$(mcs_qemu_kernel "$k")"
	ln -s "$(dbg_vmlinux "$(basename "$(dirname "$vmlinuz")")")" "$R/$k/vmlinux"
done
for k in $kernels; do
	for w in $workloads; do
		# the parameters of the shipped traces (docs/trace-format.md)
		env=()
		case $w in
		stress-fork) env=(TRACE_OPS=10) ;;
		many-cgroups) env=(TRACE_ROUNDS=2 TRACE_CGROUPS=64) ;;
		esac
		log "replay-kernel: $w on $k"
		t1=$SECONDS
		env "${env[@]}" TRACE_KERNEL="$k" TRACE_PROFILE=1 TRACE_REPLAY_MODES="$models" \
			QEMU_TIMEOUT=${QEMU_TIMEOUT:-2400} MCS_OUT="$R/run" \
			"$here/trace.sh" "$w" >"$R/$k/$w.out" 2>&1 ||
			die "replay-kernel: $w on $k failed: $(tail -3 "$R/$k/$w.out")"
		for f in log blocks mcstrace; do
			mv "$R/run/trace/$w.$f" "$R/$k/"
		done
		log "replay-kernel: $w on $k: $((SECONDS - t1)) s"
	done
done
rm -rf "$R/run"
python3 "$here/replay-kernel.py" "$R" "$workloads" $kernels | tee "$R/replay-kernel.txt"
log "replay-kernel: $((SECONDS - t0)) s; table $R/replay-kernel.txt"
