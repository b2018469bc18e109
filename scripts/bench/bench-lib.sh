#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench-lib.sh: what `make bench` (scripts/bench/bench.sh), `make
# bench-running` (scripts/bench/bench-running.sh) and trace-replay.sh share:
# the job lists, their narrowing, the result folders, the staging of a
# trace.  Sourced after lib.sh; the job lists read $modes, $batching,
# $settings, $ims
# (icount ms) and $ms (wall-clock ms) of the caller.
#
# Every run keeps its report in a folder of its own,
# bench-results/<UTC date and time>-<commit>[-dirty]/ (BENCH_RESULTS moves
# bench-results/), and bench-results/latest points at the newest one.
# Nothing in the rig deletes these folders.

BENCH_RESULTS=${BENCH_RESULTS:-$MCS_SRC/bench-results}

# trace_stage TRACE DIR: TRACE (a .mcstrace, or one compressed with xz)
# as DIR/NAME.mcstrace, executable (mkinitramfs.sh copies the executables
# of a folder into the guest's /mcs/selftests)
trace_stage() {
	local dst
	dst=$2/$(basename "$1" .xz)
	if [[ $1 == *.xz ]]; then
		xz -dc "$1" >"$dst" || return 1
	else
		cp "$1" "$dst" || return 1
	fi
	chmod 0755 "$dst"
}

# emit KEY=VALUE... : one job line per mode, modes innermost (interleaved)
emit() {
	local m
	for m in $modes; do echo "mode=$m $*"; done
}

# emit_settings KEY=VALUE... : the same job for each setting of a mode's
# parameters that the report shows beside the defaults ($settings:
# designs.py settings, one "mode=M NAME=N..." line each)
emit_settings() {
	local s
	while IFS= read -r s; do
		if [[ -n $s ]]; then echo "$s $*"; fi
	done <<<"${settings:-}"
}

# settings_jobs NCPUS: the jobs of the designs side by side and the
# stranded charge (bench-report.py) at each setting of $settings
settings_jobs() {
	local n=$1 wl m b d="duration_ms=$ims"
	[[ -n ${settings:-} ]] || return 0
	for wl in pages bytes; do
		for m in 1 7 64 256; do emit_settings "clients=1 workload=$wl memcgs=$m $d"; done
	done
	emit_settings "clients=1 workload=drain memcgs=1 $d"
	if ((n >= 2)); then
		for wl in cross-pages cross-bytes; do emit_settings "clients=$n workload=$wl $d"; done
		for m in "$n" $((4 * n)); do
			emit_settings "clients=$m workload=cross-pages shared=1 $d"
		done
	fi
	for wl in limit-nowait limit-kernel; do
		emit_settings "clients=$n workload=$wl duration_ms=$((ims * 10))"
	done
	for b in 32 16; do
		emit_settings "clients=$n workload=limit-nowait batch=$b duration_ms=$((ims * 10))"
	done
}

# icount_jobs NCPUS: the instruction-count job list of a guest
icount_jobs() {
	local n=$1 c m wl d="duration_ms=$ims"
	echo "mode=decoupled clients=1 workload=floor $d"
	for wl in pages bytes; do
		for m in 1 4 7 8 16 64 256; do emit "clients=1 workload=$wl memcgs=$m $d"; done
		c=2
		while ((c <= 4 * n)); do emit "clients=$c workload=$wl $d"; c=$((c * 2)); done
		((n < 2)) || emit "clients=$n workload=$wl shared=1 $d"
		emit "clients=$n workload=$wl hardirq=1 $d"
		emit "clients=$n workload=$wl nmi=1 $d"
	done
	# "decoupled-7.3", the obj stock shaped as 7.3's, beside "decoupled"
	# (not in $modes: its hit pairs for the calibration, nothing more)
	for wl in pages bytes; do
		echo "mode=decoupled-7.3 clients=1 workload=$wl memcgs=1 $d"
	done
	# objects that leave a rest of the page, next to a live neighbour
	for wl in bytes-256 bytes-1024 bytes-3000; do emit "clients=1 workload=$wl memcgs=1 $d"; done
	# a synchronous drain of one memcg (as an offline does) per pair, with
	# 1..256 memcgs live
	for m in 1 8 64 256; do emit "clients=1 workload=drain memcgs=$m $d"; done
	# the designs side by side at the settings of their parameters
	settings_jobs "$n"
	# frees on another CPU than the charge; premature refusals below a
	# limit (the clients take turns and stop after a fixed number of
	# steps, the duration only bounds them)
	if ((n >= 2)); then
		for wl in cross-pages cross-bytes; do emit "clients=$n workload=$wl $d"; done
		# the same in one cgroup, from vCPUs and 4 x vCPUs clients: the
		# shape of the kernel test robot's netperf SCTP_RR (hahn-v4)
		for c in "$n" $((4 * n)); do emit "clients=$c workload=cross-pages shared=1 $d"; done
	fi
	for wl in limit-nowait limit-kernel; do
		emit "clients=$n workload=$wl duration_ms=$((ims * 10))"
	done
	# the charge batch proposed for 64K and 16K pages (16, 32), in the
	# modes of the batch sweep ($batching: designs.py batching)
	for b in 16 32; do
		for m in 1 8; do
			for c in $batching; do
				echo "mode=$c clients=1 workload=pages memcgs=$m batch=$b $d"
			done
		done
		# the premature refusals with less charge per stock
		for c in $batching; do
			echo "mode=$c clients=$n workload=limit-nowait batch=$b duration_ms=$((ims * 10))"
		done
	done
}

# scale_jobs NCPUS: one shared memcg charged by every vCPU
scale_jobs() {
	local n=$1 wl d="duration_ms=$ims"
	echo "mode=decoupled clients=1 workload=floor $d"
	for wl in pages bytes; do emit "clients=$n workload=$wl shared=1 $d"; done
	# the drain's cost on this many vCPUs (icount_jobs has the 2-vCPU rows)
	for m in 1 256; do emit "clients=1 workload=pages memcgs=$m $d"; done
	for m in 1 256; do emit "clients=1 workload=drain memcgs=$m $d"; done
}

# wall_jobs NCPUS REPS: the wall-clock job list, repetitions outermost
wall_jobs() {
	local n=$1 r c wl d="duration_ms=$ms"
	for ((r = 1; r <= $2; r++)); do
		echo "mode=decoupled clients=1 workload=floor $d"
		for wl in pages bytes; do
			c=1
			while ((c <= 4 * n)); do emit "clients=$c workload=$wl $d"; c=$((c * 2)); done
			emit "clients=$n workload=$wl shared=1 $d"
			emit "clients=$n workload=$wl hardirq=1 $d"
			emit "clients=$n workload=$wl nmi=1 $d"
		done
		# one cgroup, each free on another CPU than its charge (hahn-v4)
		((n < 2)) || emit "clients=$n workload=cross-pages shared=1 $d"
	done
}

# running_jobs NCPUS REPS: the job list of the running kernel: the wall-clock
# list plus the memcgs-per-client rows of the icount list, repetitions
# outermost; clients at most 256 (the bench's limit)
running_jobs() {
	local n=$1 r c m wl max d="duration_ms=$ms"
	max=$((4 * n > 256 ? 256 : 4 * n))
	for ((r = 1; r <= $2; r++)); do
		echo "mode=decoupled clients=1 workload=floor $d"
		for wl in pages bytes; do
			c=1
			while ((c <= max)); do emit "clients=$c workload=$wl $d"; c=$((c * 2)); done
			for m in 4 7 8 16 64 256; do emit "clients=1 workload=$wl memcgs=$m $d"; done
			((n < 2)) || emit "clients=$((n > 256 ? 256 : n)) workload=$wl shared=1 $d"
			emit "clients=$((n > 256 ? 256 : n)) workload=$wl hardirq=1 $d"
			emit "clients=$((n > 256 ? 256 : n)) workload=$wl nmi=1 $d"
		done
		# one cgroup, each free on another CPU than its charge (hahn-v4)
		((n < 2)) || emit "clients=$((n > 256 ? 256 : n)) workload=cross-pages shared=1 $d"
	done
}

# bench_pmu_check VALUE: a value of BENCH_PMU (off, hw, sw) or die
bench_pmu_check() {
	case $1 in
	off | hw | sw) ;;
	*) die "BENCH_PMU=$1: expected off, hw or sw" ;;
	esac
}

# bench_match FILE PMU: the job list FILE narrowed in place to the lines
# that match the extended regex BENCH_MATCH (if set), each with pmu=PMU
# (none when PMU is empty); status 1 when no line is left
bench_match() {
	local f=$1 pmu=$2
	if [[ -n ${BENCH_MATCH:-} ]]; then
		grep -E -- "$BENCH_MATCH" "$f" >"$f.tmp" || true
		mv "$f.tmp" "$f"
	fi
	[[ -s $f ]] || return 1
	[[ -z $pmu ]] || sed -i "s/\$/ pmu=$pmu/" "$f"
}

# bench_narrow FILE PMU: bench_match, or die when no job is left
bench_narrow() {
	bench_match "$1" "$2" ||
		die "BENCH_MATCH='${BENCH_MATCH:-}' leaves no job in $(basename "$1")"
}

# bench_results_dir: create and print a new result folder,
# $BENCH_RESULTS/<UTC date and time>-<commit>[-dirty] (-2, -3 ... when
# two runs start in the same second)
bench_results_dir() {
	local stamp commit d n=1
	stamp=$(date -u +%Y-%m-%dT%H%M%SZ)
	if commit=$(git -C "$MCS_SRC" rev-parse --short HEAD 2>/dev/null); then
		git -C "$MCS_SRC" diff --quiet HEAD -- 2>/dev/null || commit+=-dirty
	else
		commit=nogit
	fi
	d=$BENCH_RESULTS/$stamp-$commit
	while [[ -e $d ]]; do
		n=$((n + 1))
		d=$BENCH_RESULTS/$stamp-$commit-$n
	done
	mkdir -p "$d"
	echo "$d"
}

# bench_results_latest DIR: point $BENCH_RESULTS/latest at DIR
bench_results_latest() {
	ln -sfn "$(basename "$1")" "$BENCH_RESULTS/latest.tmp"
	mv -T "$BENCH_RESULTS/latest.tmp" "$BENCH_RESULTS/latest"
}

# bench_host_facts: KEY=VALUE lines on the host for the env file
bench_host_facts() {
	local virt=none
	if grep -qw hypervisor /proc/cpuinfo; then
		virt=$(systemd-detect-virt 2>/dev/null) || true
		[[ -n $virt && $virt != none ]] || virt=yes
	fi
	echo "cpu_model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
	echo "cpus_online=$(getconf _NPROCESSORS_ONLN)"
	echo "hypervisor=$virt"
}
