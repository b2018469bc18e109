#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench-lib.sh: what `make bench` (scripts/bench/bench.sh), `make
# bench-running` (scripts/bench/bench-running.sh) and trace-replay.sh share:
# the job lists, their narrowing, the result folders, the staging of a
# trace, one qemu benchmark guest (run_qemu, also `make ab`).  Sourced
# after lib.sh; the job lists read $modes, $batching, $settings, $ims
# (icount ms) and $ms (wall-clock ms) of the caller.
#
# Every run keeps its report in a folder of its own,
# bench-results/<UTC date and time>-<commit>[-dirty]/ (BENCH_RESULTS moves
# bench-results/), and bench-results/latest points at the newest one.
# Nothing in the rig deletes these folders.

BENCH_RESULTS=${BENCH_RESULTS:-$MCS_SRC/bench-results}
# this folder (scripts/bench), whoever sources this file
MCS_BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

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

# ---- one qemu benchmark guest (make bench, make ab) ----------------------
# These read the caller's $B (the run's folder), $ncpus (vCPUs when the
# spec names none), $ms (wall-clock ms per job) and $stall (seconds of
# console silence that count as a hung guest).

# meta DIR KEY=VALUE...: facts about a guest run, for the report
meta() {
	local dir=$1
	shift
	printf '%s\n' "$@" >>"$dir/meta.txt"
}

# qemu_watched VMLINUZ INITRD LOG SMP: qemu-run.sh, killed when LOG has not
# grown for $stall seconds (a hung guest); status 1 then, else 0
qemu_watched() {
	local logf=$3 pid size t last=-1 quiet=0
	"$MCS_BENCH_DIR/../rig/qemu-run.sh" "$@" &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 5
		size=$(stat -c %s "$logf" 2>/dev/null || echo 0)
		if [[ $size == "$last" ]]; then quiet=$((quiet + 5)); else quiet=0; last=$size; fi
		if ((quiet >= stall)); then
			log "bench: no console output for $stall s, the guest is killed: $logf"
			# qemu first (through its timeout), so that the log keeps
			# what the pipe still holds
			for t in $(ps -o pid=,comm= --ppid "$pid" | awk '$2 == "timeout" { print $1 }'); do
				kill "$t" 2>/dev/null || true
			done
			sleep 5
			mcs_kill_tree "$pid"
			wait "$pid" || true
			return 1
		fi
	done
	wait "$pid" || true
}

# run_qemu SPEC DIR JOBS [ICOUNT]: the job list in a qemu kernel
run_qemu() {
	local spec=$1 V=$2 jobs=$3 icount=${4:-} name smp numa vmlinuz kdir M total t0 files=$2/none
	read -r name smp numa <<<"$(mcs_kernel_spec "$spec")"
	((smp > 0)) || smp=$ncpus
	((numa > 0)) || numa=1
	read -r vmlinuz kdir _ <<<"$(mcs_qemu_kernel "$name")"
	[[ -n $kdir ]] || die "kernel $name not available"
	mkdir -p "$V"
	M=$(mcs_build_module "$kdir" "bench-$name")
	# the per-CPU layout of the designs in this build (pahole, layout.py)
	[[ -s $B/layout/$name.txt ]] || { mkdir -p "$B/layout" &&
		python3 "$MCS_BENCH_DIR/layout.py" "$M/memcg_stock.ko" >"$B/layout/$name.txt"; } ||
		{ log "bench: no layout for $name (pahole or debug info missing)"; rm -f "$B/layout/$name.txt"; }
	total=$(wc -l <"$jobs")
	{
		echo 'D=/sys/kernel/debug/memcg_stock'
		echo 'echo "MCS-BENCH-UNAME $(uname -r)"'
		echo 'echo "MCS-BENCH-CPU $(sed -n "s/^model name[[:space:]]*: //p" /proc/cpuinfo | head -1)"'
		echo 'cat $D/slab | sed "s/^/MCS-BENCH-SLAB-kmem_cache /"'
		echo 'sed "s/^/MCS-BENCH-MODES /" $D/modes'
		# the kernel's own accounting (harness/kernel_cost.c), from a task
		# in a memcg of its own: cgroup v2 with the memory controller
		echo 'mount -t cgroup2 none /sys/fs/cgroup && echo +memory >/sys/fs/cgroup/cgroup.subtree_control &&'
		echo '	mkdir /sys/fs/cgroup/mcs-kcost && echo $$ >/sys/fs/cgroup/mcs-kcost/cgroup.procs'
		echo 'echo "MCS-BENCH-KCOST $(cat $D/kernel_cost)"'
		echo 'echo $$ >/sys/fs/cgroup/cgroup.procs 2>/dev/null'
		echo 'n=0 loaded='
		# a boot may leave work behind (seen once on RT: the first rows of one
		# boot cost 3x): let it finish before the first measured job
		echo 'sleep 2; echo "mode=decoupled duration_ms=200" >$D/bench'
		echo 'while read -r job; do'
		echo '	n=$((n + 1))'
		# the marker before the job: printed after it, the kernel's line
		# could land inside the result line on a serial console
		echo "	echo \"bench [\$n/$total]\" >/dev/kmsg"
		# a replay job: "file=NAME " before the bench line, the trace loaded
		# into trace_load unless it is the one loaded; the result line
		# gets file=NAME at its end
		echo '	f='
		echo '	case $job in file=*) f=${job%% *}; f=${f#file=}; job=${job#* } ;; esac'
		echo '	if [ -n "$f" ] && [ "$f" != "$loaded" ]; then'
		echo '		loaded='
		echo '		if cat "/mcs/selftests/$f" >$D/trace_load; then loaded=$f; else'
		echo '			echo "MCS-BENCH-TRACE $f: $(cat $D/trace_load)"; echo "MCS-BENCH $job file=$f verdict=ERROR"; continue; fi'
		echo '	fi'
		echo '	if echo "$job" >$D/bench; then echo "MCS-BENCH $(cat $D/bench)${f:+ file=$f}"; else echo "MCS-BENCH $job${f:+ file=$f} verdict=ERROR"; fi'
		echo 'done <<JOBS'
		cat "$jobs"
		echo 'JOBS'
	} >"$V/run.sh"
	# the traces, where the job list replays any
	grep -q '^file=' "$jobs" && files=$B/traces
	MCS_MIN_CPUS=$smp "$MCS_BENCH_DIR/../rig/mkinitramfs.sh" "$V/initramfs.cpio.gz" "$M" "$files" "$V/run.sh"
	meta "$V" "kernel=$spec" "smp=$smp" "numa=$numa" "icount=${icount:-off}" "load_before=$(cat /proc/loadavg)"
	t0=$SECONDS
	for try in 1 2; do
		if [[ -n $icount ]]; then
			MCS_ACCEL=tcg QEMU_ICOUNT=$icount QEMU_TIMEOUT=$((total * 30 + 600)) QEMU_NUMA=$numa \
				qemu_watched "$vmlinuz" "$V/initramfs.cpio.gz" "$V/console.log" "$smp" && break
		else
			QEMU_TIMEOUT=$((total * (ms + 3000) / 1000 + 300)) QEMU_NUMA=$numa \
				qemu_watched "$vmlinuz" "$V/initramfs.cpio.gz" "$V/console.log" "$smp" && break
		fi
		mv "$V/console.log" "$V/console.stalled$try.log"
		((try == 1)) || die "$spec: the guest hung twice, last lines of its console: $(tail -3 "$V/console.stalled$try.log")"
		log "bench: $spec hung in $(grep -ao 'bench \[[0-9]*/[0-9]*\]' "$V/console.stalled1.log" | tail -1 || true) (console.stalled1.log): booted once more"
		meta "$V" "stalled=$(grep -ac '^MCS-BENCH ' "$V/console.stalled1.log") jobs done in a hung boot"
	done
	meta "$V" "load_after=$(cat /proc/loadavg)" "seconds=$((SECONDS - t0))" \
		"accel=$(sed -n '1s/.*accel=\([a-z]*\).*/\1/p' "$V/console.log")" \
		"qemu=$(sed -n '1s/.* qemu=//p' "$V/console.log")" \
		"uname=$(sed -n 's/^MCS-BENCH-UNAME //p' "$V/console.log" | head -1)" \
		"cpu_model=$(sed -n 's/^MCS-BENCH-CPU //p' "$V/console.log" | head -1)"
	grep -q '^MCS-VERDICT: PASS' "$V/console.log" ||
		die "$spec: the benchmark run failed: $(grep '^MCS-VERDICT' "$V/console.log" || echo no verdict)"
	sed -n 's/^MCS-BENCH //p' "$V/console.log" >"$V/results.txt"
	sed -n 's/^MCS-BENCH-SLAB-kmem_cache //p' "$V/console.log" >"$V/slab-kmem_cache.txt"
	sed -n 's/^MCS-BENCH-KCOST //p' "$V/console.log" >"$V/kernel_cost.txt"
	# the module's modes as the guest published them (debugfs modes): the
	# report's list (designs.py), the first guest's
	sed -n 's/^MCS-BENCH-MODES //p' "$V/console.log" >"$V/modes.txt"
	[[ -s $B/modes.txt || ! -s $V/modes.txt ]] || cp "$V/modes.txt" "$B/modes.txt"
}
