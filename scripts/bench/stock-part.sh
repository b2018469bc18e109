#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# stock-part.sh (`make stock-part`): the page stock calibrated on the
# kernel's stock alone.  The kernel's own page pair (a socket memory charge
# and uncharge of one page, debugfs kernel_cost) also updates two vmstat
# counters and goes through the socket wrappers, which no page pair of this
# module has; the bench's calibration table compares whole pairs.  Here
# `make bench-profile` splits the kernel's pair per function on each kernel
# of STOCK_PART_KERNELS (default: the four kernels `make bench` calibrates
# on, Debian 6.12 and 7.x, generic and RT), beside the page pairs of
# "coupled" and "decoupled" in the same boot, and stock-part.py sets the
# kernel's stock part (the take, the refill, the page counter, the stock's
# lock) against the page pair of the design that models that kernel, and
# lists the functions of both sides.
#
# Output: $MCS_OUT/stock-part/KERNEL.txt (each kernel's profile) and
# $MCS_OUT/stock-part/stock-part.txt (the table), which
# scripts/bench/update-bench-docs.py --stock-part puts into
# docs/benchmark-details.md.
#
# Environment: STOCK_PART_KERNELS (qemu kernel names), PROFILE_MS,
# PROFILE_KC_LOOPS and PROFILE_BLOCKS (default here 20: the hottest blocks
# of each job, in KERNEL.txt) as for `make bench-profile`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../rig/lib.sh"
kernels=${STOCK_PART_KERNELS:-deb-amd64 deb-rt-amd64 deb-7.x-amd64 deb-7.x-rt-amd64}
[[ -n ${kernels// /} ]] || die "STOCK_PART_KERNELS is empty: name a qemu kernel (e.g. deb-amd64)"
for k in $kernels; do
	[[ $k != *+* ]] || die "STOCK_PART_KERNELS: '$k': a kernel name without options (the profile has one vCPU)"
	mcs_kernel_spec "$k" >/dev/null
done
S=$MCS_OUT/stock-part
rm -rf "$S"
mkdir -p "$S"
t0=$SECONDS
files=()
for k in $kernels; do
	log "stock-part: profiling $k"
	PROFILE_KERNEL=$k PROFILE_BLOCKS=${PROFILE_BLOCKS:-20} MCS_OUT=$S/run \
		PROFILE_JOBS="mode=coupled workload=pages;mode=decoupled workload=pages;kernel pair=skmem" \
		"$here/bench-profile.sh" >"$S/$k.log" 2>&1 ||
		die "stock-part: the profile of $k failed: $(tail -3 "$S/$k.log")"
	cp "$S/run/profile/profile.txt" "$S/$k.txt"
	release=$(grep -a -o -m1 'Linux version [^ ]*' "$S/run/profile/console.log" | cut -d' ' -f3)
	files+=("$k=$release=$S/$k.txt")
done
rm -rf "$S/run"
python3 "$here/stock-part.py" "${files[@]}" | tee "$S/stock-part.txt"
log "stock-part: $((SECONDS - t0)) s; table $S/stock-part.txt"
