#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench.sh (`make bench`): the A/B benchmark of the stock modes, through
# debugfs "bench" (harness/bench.c), in two kinds of guests:
#
#  1. instruction counts (the headline): Debian 6.12 generic and RT under
#     qemu TCG with -icount shift=0, where one guest ns is one executed
#     instruction, so ns per charge+uncharge pair is instructions per pair,
#     independent of the host's load.  Each kernel boots BENCH_ICOUNT_RUNS
#     times with the same module (determinism is checked by the report).
#     Workloads pages, bytes, pages-shared, bytes-shared per mode; memcgs
#     per client 1..256; clients 1..4 x vCPUs (the shape of upstream's
#     netperf table); frees on another CPU than the charge (cross-pages,
#     cross-bytes; cross-pages in one cgroup with vCPUs and 4 x vCPUs
#     clients, the kernel test robot's SCTP_RR shape); limits; interrupt
#     and NMI load; in guests of 1 and 4
#     vCPUs (BENCH_SCALE_KERNELS), all vCPUs charging one shared memcg; and
#     the recorded charge streams (selftests/traces/*.mcstrace and
#     $BENCH_RESULTS/traces/*.mcstrace) replayed through every mode, once
#     per boot (workload=replay; a trace that uses more CPUs than the
#     guests have is replayed in a guest of as many vCPUs per boot, the
#     "wide" guests; selftests/traces/*.mcstrace.xz are unpacked first).
#  2. wall clock (BENCH_WALL_KERNELS): UML 7.x SMP (its IRQ toggles are host
#     sigprocmask calls) and Debian 6.12 under TCG (KVM where /dev/kvm
#     works: then the numbers are hardware numbers); BENCH_REPS repetitions
#     with the modes interleaved, host /proc/loadavg recorded before and
#     after each guest, rows whose max/min exceeds 1.3 measured once more
#     in a second guest and flagged if still noisy.
#
# Every result line carries the primitive costs measured on its kernel.
# bench-report.py prints the tables and writes bench.txt, bench.csv,
# bench.png and env.txt into a new folder
# bench-results/<UTC date and time>-<commit>[-dirty]/ (bench-lib.sh), and
# bench-results/latest points at it.  Everything a run produced stays in
# $MCS_OUT/bench (console logs, results, meta files) until the next run.
# A guest whose console stays silent for BENCH_STALL_S seconds is killed
# and booted once more; a second silence ends the run.
#
# Environment:
#   BENCH_ICOUNT_KERNELS  icount kernels (default: deb-amd64 deb-rt-amd64)
#   BENCH_ICOUNT_RUNS     boots per icount kernel (default 2)
#   BENCH_ICOUNT_MS       guest ms per icount measurement (default 20)
#   BENCH_KCOST_KERNELS   icount guests that measure the kernel's own memcg
#                         accounting (harness/kernel_cost.c; every icount
#                         guest does) beside this module's 1-memcg rows, for
#                         kernels not in BENCH_ICOUNT_KERNELS (default:
#                         deb-7.x-amd64 deb-7.x-rt-amd64, Debian's newest 7.x)
#   BENCH_SCALE_KERNELS   icount guests for the vCPU rows (default:
#                         deb-amd64+smp1 deb-amd64+smp4)
#   BENCH_WALL_KERNELS    wall-clock kernels (default: uml deb-amd64)
#   BENCH_REPS            wall-clock repetitions (default 5, at least 5)
#   BENCH_MS              duration of one wall-clock measurement (default 100)
#   BENCH_CPUS            CPUs of every bench guest, UML and qemu (default 2;
#                         a +smpN kernel spec overrides it for that guest)
#   BENCH_PMU             off, hw or sw: add pmu= to every job (default: none,
#                         the bench's own default, off)
#   BENCH_MATCH           extended regex: run only the jobs whose line matches
#                         (e.g. 'clients=1 workload=pages'), in every part
#                         (icount, kcost, scale, wall); a guest whose job
#                         list it empties is not booted (nor fetched)
#   BENCH_STALL_S         seconds of console silence that count as a hung
#                         guest (default 300)
#   BENCH_RESULTS         where the result folders go (default bench-results/)
#   BENCH_KREPLAY_KERNELS Debian kernels on which `make replay-kernel` runs
#                         after the rest, its table appended to the report
#                         (default none: about 17 minutes for deb-amd64 and
#                         deb-7.x-amd64, and a 1.1 GB debug image per kernel
#                         fetched once; scripts/bench/replay-kernel.sh)
# Set a kernel list to "" to skip that part.  With KERNEL= (and KDIR=) set,
# every part runs on that kernel ("path") and the kcost part not at all: the
# icount guests of "path" read the kernel's own accounting themselves.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../rig/lib.sh"
. "$here/bench-lib.sh"
. "$here/../rig/progress.sh"	# a progress line every 30 s, stopped at exit
mcs_progress_start "make bench"
trap mcs_progress_stop EXIT

ncpus=${BENCH_CPUS:-2}
[[ $ncpus =~ ^[1-9][0-9]*$ ]] || die "BENCH_CPUS=$ncpus: expected a number of CPUs"
reps=${BENCH_REPS:-5}
ms=${BENCH_MS:-100}
ims=${BENCH_ICOUNT_MS:-20}
iruns=${BENCH_ICOUNT_RUNS:-2}
icount_kernels=${BENCH_ICOUNT_KERNELS-deb-amd64 deb-rt-amd64}
scale_kernels=${BENCH_SCALE_KERNELS-deb-amd64+smp1 deb-amd64+smp4}
kcost_kernels=${BENCH_KCOST_KERNELS-deb-7.x-amd64 deb-7.x-rt-amd64}
wall_kernels=${BENCH_WALL_KERNELS-uml deb-amd64}
# make bench KERNEL=... KDIR=...: every part on that kernel ("path", lib.sh)
if [[ -n ${KERNEL:-} ]]; then
	icount_kernels=${BENCH_ICOUNT_KERNELS-path}
	scale_kernels=${BENCH_SCALE_KERNELS-path+smp1 path+smp4}
	wall_kernels=${BENCH_WALL_KERNELS-path}
	kcost_kernels=${BENCH_KCOST_KERNELS-}
fi
# the modes of the wide tables, and the calibration modes (decoupled-7.3),
# from the binding table and the designs' metadata (designs.py)
modes=$(python3 "$here/designs.py" grouped | tr '\n' ' ') || die "designs.py: the modes do not parse"
calibration=$(python3 "$here/designs.py" ungrouped | tr '\n' ' ')
# the batch sweep's modes: side by side, with a page stock
batching=$(python3 "$here/designs.py" batching | tr '\n' ' ')
# the settings of the designs' parameters measured beside their defaults
settings=$(python3 "$here/designs.py" settings)
pmu=${BENCH_PMU:-}
[[ -z $pmu ]] || bench_pmu_check "$pmu"
stall=${BENCH_STALL_S:-300}
[[ $stall =~ ^[1-9][0-9]*$ ]] || die "BENCH_STALL_S=$stall: expected seconds"
((reps >= 5)) || die "BENCH_REPS=$reps: at least 5 repetitions"
B=$MCS_OUT/bench
rm -rf "$B"
mkdir -p "$B"

# kcost_jobs: this module's rows to print beside the kernel's accounting
kcost_jobs() {
	local wl d="duration_ms=$ims"
	echo "mode=decoupled clients=1 workload=floor $d"
	for wl in pages bytes; do emit "clients=1 workload=$wl memcgs=1 $d"; done
	# on the 7.x kernel, the obj stock shaped as that kernel's
	echo "mode=decoupled-7.3 clients=1 workload=bytes memcgs=1 $d"
}

# the traces the icount guests replay, copied into $B/traces (executable:
# mkinitramfs.sh copies the executables of that folder into the guest's
# /mcs/selftests); those compressed in the tree (selftests/traces/*.xz)
# unpacked there.  One that needs more CPUs than $ncpus is listed in
# $B/traces/wide.txt with its CPUs: the wide guests replay it
replay_traces() {
	local t name need
	mkdir -p "$B/traces"
	: >"$B/traces/skipped.txt"
	: >"$B/traces/wide.txt"
	for t in "$MCS_SRC"/selftests/traces/*.mcstrace "$MCS_SRC"/selftests/traces/*.mcstrace.xz \
		"$BENCH_RESULTS"/traces/*.mcstrace; do
		[[ -f $t ]] || continue
		name=$(basename "$t" .xz)
		if [[ -e $B/traces/$name ]]; then
			log "bench: $t: a trace of that name is replayed already, this one is not"
			continue
		fi
		python3 "$here/trace-read.py" --check "$t" || die "$t is not a well-formed trace"
		need=$(python3 "$here/trace-read.py" --cpus "$t")
		trace_stage "$t" "$B/traces" || die "cannot copy $t into $B/traces"
		if ((need > ncpus)); then
			echo "$name cpus=$need" >>"$B/traces/wide.txt"
			log "bench: $name uses $need CPUs, the icount guests have $ncpus: replayed in a guest of $need vCPUs"
		fi
	done
}

# wide_cpus: the vCPUs of the wide guests, the most any wide trace uses
wide_cpus() {
	sed 's/.*cpus=//' "$B/traces/wide.txt" | sort -n | tail -1
}

# replay_jobs [wide]: a replay of each trace (the wide ones with "wide",
# the others without) through every mode, the calibration ones included; file=
# names the trace the guest loads before the replay
replay_jobs() {
	local t m
	for t in "$B"/traces/*.mcstrace; do
		[[ -f $t ]] || continue
		if grep -q "^$(basename "$t") " "$B/traces/wide.txt"; then
			[[ ${1:-} == wide ]] || continue
		else
			[[ ${1:-} != wide ]] || continue
		fi
		for m in $modes $calibration; do
			echo "file=$(basename "$t") mode=$m workload=replay"
		done
		while IFS= read -r m; do
			if [[ -n $m ]]; then echo "file=$(basename "$t") $m workload=replay"; fi
		done <<<"$settings"
	done
}

# run_uml DIR JOBS: the job list in the bench flavour of the UML kernel
run_uml() {
	local U=$1 jobs=$2 K M total t0
	mkdir -p "$U/umldir"
	K=$(MCS_UML_FLAVOUR=bench "$here/../rig/build-uml.sh")
	M=$(mcs_build_module "$K" uml-bench ARCH=um)
	cp "$jobs" "$U/jobs.txt"
	total=$(wc -l <"$jobs")
	cat >"$U/init.sh" <<'INIT'
#!/bin/sh
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
# the host's / is read-only here: only this run's directory is writable
case $MCS_U in /tmp/*) ;; *) mount -t tmpfs tmpfs /tmp ;; esac
mount -t hostfs none "$MCS_U" -o "$MCS_U"
mount -t debugfs debugfs /sys/kernel/debug
D=/sys/kernel/debug/memcg_stock
echo "cpus=$(getconf _NPROCESSORS_ONLN)" >"$MCS_U/info.txt"
echo "uname=$(uname -r)" >>"$MCS_U/meta.txt"
insmod "$MCS_MODDIR/memcg_stock.ko" || echo "insmod failed" >>"$MCS_U/info.txt"
cat $D/slab >"$MCS_U/slab-kmem_cache.txt"
cat $D/modes >"$MCS_U/modes.txt"
n=0
total=$(wc -l <"$MCS_U/jobs.txt")
while read -r job; do
	n=$((n + 1))
	if echo "$job" >$D/bench; then
		cat $D/bench >>"$MCS_U/results.txt"
	else
		echo "$job verdict=ERROR" >>"$MCS_U/results.txt"
	fi
	echo "bench [$n/$total] $(tail -1 "$MCS_U/results.txt" | cut -c1-110)"
done <"$MCS_U/jobs.txt"
rmmod memcg_stock
insmod "$MCS_MODDIR/memcg_stock.ko" slab_kmalloc=1 && cat $D/slab >"$MCS_U/slab-kmalloc.txt"
rmmod memcg_stock
echo "tainted=$(cat /proc/sys/kernel/tainted)" >>"$MCS_U/info.txt"
dmesg >"$MCS_U/dmesg.txt"
echo done >>"$MCS_U/info.txt"
sync
/bin/busybox poweroff -f 2>/dev/null || echo o >/proc/sysrq-trigger
sleep 30
INIT
	chmod +x "$U/init.sh"
	meta "$U" kernel=uml accel=uml icount=off smp="$ncpus" "load_before=$(cat /proc/loadavg)"
	t0=$SECONDS
	timeout -k 10 $((total * (ms + 2000) / 1000 + 300)) "$K/linux" mem=512M ncpus="$ncpus" \
		seccomp=on uml_dir="$U/umldir" rootfstype=hostfs rootflags=/ ro \
		init="$U/init.sh" MCS_U="$U" MCS_MODDIR="$M" </dev/null 2>&1 |
		tee "$U/console.log" | grep --line-buffered '^bench \[' >&2 || true
	meta "$U" "load_after=$(cat /proc/loadavg)" "seconds=$((SECONDS - t0))"
	grep -q '^done' "$U/info.txt" 2>/dev/null || die "the benchmark kernel did not finish (see $U/console.log)"
	[[ -s $B/modes.txt || ! -s $U/modes.txt ]] || cp "$U/modes.txt" "$B/modes.txt"
	mcs_check_console "$U/dmesg.txt"
}

# run_any SPEC DIR JOBS: UML or qemu, wall clock
run_any() {
	if [[ $1 == uml ]]; then run_uml "$2" "$3"; else run_qemu "$1" "$2" "$3"; fi
}

# the job lists of every part, narrowed by BENCH_MATCH before any guest is
# fetched or booted: a kernel whose list is left empty is dropped from its
# part, and a match that leaves no job to any kernel is an error
listed=0
kept=0
# narrow FILE PART: FILE narrowed (bench_match); status 1 when none is left
narrow() {
	listed=1
	if bench_match "$1" "$pmu"; then
		kept=1
		return 0
	fi
	log "bench: BENCH_MATCH='${BENCH_MATCH:-}' leaves no job in $(basename "$1"): $2 skipped"
	return 1
}
if [[ -n ${icount_kernels// /} ]]; then
	replay_traces
	{ icount_jobs "$ncpus" && replay_jobs; } >"$B/icount-jobs.txt"
	replay_jobs wide >"$B/wide-jobs.txt"
	wide_kernels=
	if [[ -s $B/wide-jobs.txt ]] && narrow "$B/wide-jobs.txt" "the wide replays"; then
		wide_kernels=$icount_kernels
	fi
	narrow "$B/icount-jobs.txt" "$icount_kernels" || icount_kernels=
fi
if [[ -n ${kcost_kernels// /} ]]; then
	kcost_jobs >"$B/kcost-jobs.txt"
	narrow "$B/kcost-jobs.txt" "$kcost_kernels" || kcost_kernels=
fi
scale_run=
for k in $scale_kernels; do
	read -r _ smp _ <<<"$(mcs_kernel_spec "$k")"
	((smp > 0)) || smp=$ncpus
	if [[ ! -e $B/scale-jobs-$smp.txt ]]; then
		scale_jobs "$smp" >"$B/scale-jobs-$smp.txt"
		narrow "$B/scale-jobs-$smp.txt" "$k" || true
	fi
	if [[ -s $B/scale-jobs-$smp.txt ]]; then scale_run+=" $k"; fi
done
scale_kernels=$scale_run
if [[ -n ${wall_kernels// /} ]]; then
	wall_jobs "$ncpus" "$reps" >"$B/wall-jobs.txt"
	narrow "$B/wall-jobs.txt" "$wall_kernels" || wall_kernels=
fi
((kept || !listed)) || die "BENCH_MATCH='${BENCH_MATCH:-}' leaves no job in any part of the benchmark"

t_start=$SECONDS
load_start=$(cat /proc/loadavg)
log "bench: host $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for k in $icount_kernels; do
	for ((r = 1; r <= iruns; r++)); do
		log "bench: $k under -icount shift=0, run $r/$iruns ($(wc -l <"$B/icount-jobs.txt") jobs)"
		run_qemu "$k" "$B/icount/$k/run$r" "$B/icount-jobs.txt" shift=0
	done
done
# the traces of more than $ncpus CPUs: a guest of as many vCPUs per icount
# boot, with the replays alone (results in $B/replay/KERNEL/runN)
for k in ${wide_kernels:-}; do
	for ((r = 1; r <= iruns; r++)); do
		log "bench: $k+smp$(wide_cpus) under -icount shift=0, run $r/$iruns ($(wc -l <"$B/wide-jobs.txt") replays)"
		run_qemu "$k+smp$(wide_cpus)" "$B/replay/$k/run$r" "$B/wide-jobs.txt" shift=0
	done
done
for k in $kcost_kernels; do
	log "bench: $k under -icount shift=0 (the kernel's own accounting, $(wc -l <"$B/kcost-jobs.txt") jobs)"
	run_qemu "$k" "$B/kcost/$k" "$B/kcost-jobs.txt" shift=0
done
for k in $scale_kernels; do
	read -r _ smp _ <<<"$(mcs_kernel_spec "$k")"
	((smp > 0)) || smp=$ncpus
	log "bench: $k under -icount shift=0 (one shared memcg)"
	run_qemu "$k" "$B/scale/$k" "$B/scale-jobs-$smp.txt" shift=0
done
for k in $wall_kernels; do
	log "bench: $k wall clock, $reps repetitions ($(wc -l <"$B/wall-jobs.txt") jobs of $ms ms)"
	run_any "$k" "$B/wall/$k/first" "$B/wall-jobs.txt"
	# rows whose max/min > 1.3: once more, in a guest of their own
	python3 "$here/bench-report.py" --noisy "$B/wall/$k/first" >"$B/wall/$k/noisy-jobs.txt"
	if [[ -s $B/wall/$k/noisy-jobs.txt ]]; then
		log "bench: $k: $(($(wc -l <"$B/wall/$k/noisy-jobs.txt") / reps)) noisy rows, measured again"
		run_any "$k" "$B/wall/$k/rerun" "$B/wall/$k/noisy-jobs.txt"
	fi
done
kreplay=${BENCH_KREPLAY_KERNELS:-}
if [[ -n ${kreplay// /} ]]; then
	log "bench: the replay against the kernel on $kreplay"
	KREPLAY_KERNELS=$kreplay MCS_OUT=$B "$here/replay-kernel.sh" >"$B/replay-kernel.log" 2>&1 ||
		die "bench: make replay-kernel failed: $(tail -3 "$B/replay-kernel.log")"
fi
meta "$B" "command=make bench" "date=$(date -u '+%Y-%m-%d %H:%M UTC')" \
	"commit=$(git -C "$MCS_SRC" describe --always --dirty 2>/dev/null || echo unknown)" \
	"host=$(nproc) cores, $(uname -r)" "seconds=$((SECONDS - t_start))" \
	"env=BENCH_REPS=$reps BENCH_MS=$ms BENCH_ICOUNT_MS=$ims BENCH_ICOUNT_RUNS=$iruns${pmu:+ BENCH_PMU=$pmu}${BENCH_MATCH:+ BENCH_MATCH='$BENCH_MATCH'}" \
	"load_start=$load_start" "load_end=$(cat /proc/loadavg)"
bench_host_facts >>"$B/meta.txt"
out=$(bench_results_dir)
rc=0
python3 "$here/bench-report.py" "$B" "$out" "$ncpus" || rc=$?
if [[ -s $B/replay-kernel/replay-kernel.txt && -f $out/bench.txt ]]; then
	{ echo; cat "$B/replay-kernel/replay-kernel.txt"; } | tee -a "$out/bench.txt"
fi
bench_results_latest "$out"
log "bench: results in $out ($BENCH_RESULTS/latest)"
exit "$rc"
