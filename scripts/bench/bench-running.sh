#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench-running.sh (`make bench-running`): the benchmark on the kernel this
# machine runs, no emulator: a hardware figure where the machine is
# hardware.  As root: builds memcg_stock.ko against KDIR (default: the
# running kernel's build tree), loads it, runs the job list of
# running_jobs (bench-lib.sh: clients 1..4 x CPUs, memcgs per client,
# shared, hardirq and NMI load; every mode) BENCH_REPS times through
# debugfs "bench", measures the rows whose max/min exceeds 1.3 once more,
# unloads the module and checks the kernel log it wrote meanwhile.
#
# Every job carries pmu=$BENCH_PMU (default hw): instructions and cycles
# per charge+uncharge pair from in-kernel perf counters on each client CPU;
# a machine without a PMU (most VMs, every emulator) gets pmu=unavailable
# and the rest of the table.  The report (bench-report.py: wall clock with
# its spread, PMU figures) goes to a new folder
# bench-results/<UTC date and time>-<commit>[-dirty]/ like `make bench`'s.
#
# Environment: KDIR, BENCH_REPS (default 5), BENCH_MS (default 100),
# BENCH_PMU (hw, sw or off; default hw), BENCH_MATCH, BENCH_RESULTS
# (bench-lib.sh), BENCH_MODULE (a memcg_stock.ko built elsewhere for this
# kernel, e.g. on the machine that built the kernel: no build here, no
# KDIR needed).  Module build arguments (ARCH=um for a UML guest) come from
# the environment as for any kernel module build.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../rig/lib.sh"
. "$here/bench-lib.sh"

release=$(uname -r)
kdir=${KDIR:-/lib/modules/$release/build}
reps=${BENCH_REPS:-5}
ms=${BENCH_MS:-100}
pmu=${BENCH_PMU:-hw}
# the modes of the wide tables (designs.py: the binding table)
modes=$(python3 "$here/designs.py" grouped | tr '\n' ' ') || die "designs.py: the modes do not parse"
D=/sys/kernel/debug/memcg_stock
bench_pmu_check "$pmu"
[[ $reps =~ ^[1-9][0-9]*$ ]] && ((reps >= 5)) || die "BENCH_REPS=$reps: at least 5 repetitions"
[[ $ms =~ ^[1-9][0-9]*$ ]] && ((ms <= 10000)) || die "BENCH_MS=$ms: expected 1..10000"
((EUID == 0)) || die "make bench-running loads a module: run it as root"
if [[ -n ${BENCH_MODULE:-} ]]; then
	[[ -f $BENCH_MODULE ]] || die "BENCH_MODULE=$BENCH_MODULE: no such file"
else
	[[ -f $kdir/Makefile ]] ||
		die "no kernel build tree at $kdir: install the headers of $release (Debian: apt-get install linux-headers-$release), pass KDIR=<build tree>, or BENCH_MODULE=<memcg_stock.ko built for $release>"
	command -v rsync >/dev/null || die "rsync is needed to stage the module build (apt-get install rsync)"
fi
if grep -q '^memcg_stock ' /proc/modules; then
	die "memcg_stock is loaded already: unload it first (rmmod memcg_stock)"
fi

B=$MCS_OUT/bench-running
rm -rf "$B"
R=$B/wall/running
mkdir -p "$R/first"

if [[ -n ${BENCH_MODULE:-} ]]; then
	ko=$BENCH_MODULE
else
	ko=$(mcs_build_module "$kdir" "running-$release")/memcg_stock.ko
fi
vermagic=$(modinfo -F vermagic "$ko" | cut -d' ' -f1)
[[ $vermagic == "$release" ]] ||
	die "$ko is built for $vermagic, this machine runs $release: pass the KDIR (or BENCH_MODULE) of the running kernel"

if ! mountpoint -q /sys/kernel/debug; then
	mount -t debugfs debugfs /sys/kernel/debug ||
		die "debugfs is not mounted and cannot be (a kernel without CONFIG_DEBUG_FS?)"
fi

# the kernel log from here on is ours to check
mark="memcg_stock bench-running $$ $(date -u +%s)"
echo "$mark" >/dev/kmsg 2>/dev/null || true
insmod "$ko" || die "insmod $ko failed (dmesg says why)"
unload() { grep -q '^memcg_stock ' /proc/modules && rmmod memcg_stock; }
trap 'unload || true' EXIT
[[ -w $D/bench ]] || die "$D/bench missing: is debugfs mounted at /sys/kernel/debug?"

ncpus=$(getconf _NPROCESSORS_ONLN)
running_jobs "$ncpus" "$reps" >"$B/jobs.txt"
bench_narrow "$B/jobs.txt" "$pmu"

# run_jobs JOBS DIR: every job line through debugfs, results in DIR
run_jobs() {
	local jobs=$1 dir=$2 n=0 total job
	total=$(wc -l <"$jobs")
	printf '%s\n' "kernel=running" "uname=$release" "accel=none" "icount=off" \
		"smp=$ncpus" "load_before=$(cat /proc/loadavg)" >>"$dir/meta.txt"
	bench_host_facts >>"$dir/meta.txt"
	while read -r job; do
		n=$((n + 1))
		if echo "$job" >"$D/bench"; then
			cat "$D/bench" >>"$dir/results.txt"
		else
			echo "$job verdict=ERROR" >>"$dir/results.txt"
		fi
		printf 'bench [%d/%d] %s\n' "$n" "$total" "$(tail -1 "$dir/results.txt" | cut -c1-100)" >&2
	done <"$jobs"
	echo "load_after=$(cat /proc/loadavg)" >>"$dir/meta.txt"
}

t0=$SECONDS
load_start=$(cat /proc/loadavg)
log "bench-running: $release, $ncpus CPUs, pmu=$pmu, $(wc -l <"$B/jobs.txt") jobs of $ms ms, $ko"
run_jobs "$B/jobs.txt" "$R/first"
python3 "$here/bench-report.py" --noisy "$R/first" >"$R/noisy-jobs.txt"
if [[ -s $R/noisy-jobs.txt ]]; then
	log "bench-running: $(wc -l <"$R/noisy-jobs.txt") noisy jobs, measured again"
	mkdir -p "$R/rerun"
	run_jobs "$R/noisy-jobs.txt" "$R/rerun"
fi
cat "$D/slab" >"$R/first/slab-kmem_cache.txt" 2>/dev/null || true
rmmod memcg_stock || die "rmmod memcg_stock failed"
trap - EXIT

# what the kernel said since the mark
dmesg | sed -n "/$mark/,\$p" >"$B/dmesg.txt" || true
if [[ -s $B/dmesg.txt ]]; then
	mcs_check_console "$B/dmesg.txt"
else
	log "bench-running: the kernel log was not checked (no mark of this run in dmesg)"
fi

printf '%s\n' "command=make bench-running" "date=$(date -u '+%Y-%m-%d %H:%M UTC')" \
	"commit=$(git -C "$MCS_SRC" describe --always --dirty 2>/dev/null || echo unknown)" \
	"host=$ncpus CPUs, $release" "seconds=$((SECONDS - t0))" \
	"env=BENCH_REPS=$reps BENCH_MS=$ms BENCH_PMU=$pmu${BENCH_MATCH:+ BENCH_MATCH='$BENCH_MATCH'}" \
	"load_start=$load_start" "load_end=$(cat /proc/loadavg)" >>"$B/meta.txt"
bench_host_facts >>"$B/meta.txt"
out=$(bench_results_dir)
rc=0
python3 "$here/bench-report.py" "$B" "$out" "$ncpus" || rc=$?
bench_results_latest "$out"
log "bench-running: results in $out ($BENCH_RESULTS/latest)"
exit "$rc"
