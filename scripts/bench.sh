#!/bin/bash
# bench.sh (`make bench`): the A/B benchmark and stress job on the default
# test kernel, a UML 7.x SMP kernel built without KASAN and lockdep (they
# distort exactly the locking costs being compared).  Boots it once, runs
# every combination of stock mode x clients x workload x hardirq load
# through debugfs "bench" (modes interleaved, several repetitions), the
# memory footprint report in kmem_cache and kmalloc mode, then prints the
# tables and writes bench-results/bench.csv and bench-results/bench.png.
#
# Environment:
#   BENCH_REPS         repetitions of every combination (default 3)
#   BENCH_MS           duration of one measurement in ms (default 200)
#   BENCH_CLIENTS      client counts (default: 1 2 4 ... 4 x CPUs)
#   MCS_UML_CPUS       guest CPUs (default 2)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

reps=${BENCH_REPS:-3}
ms=${BENCH_MS:-200}
ncpus=${MCS_UML_CPUS:-2}
out=$MCS_SRC/bench-results
U=$MCS_OUT/bench
mkdir -p "$out" "$U/umldir"
rm -f "$U"/*.txt

B=$(MCS_UML_FLAVOUR=bench "$here/build-uml.sh")
M=$(mcs_build_module "$B" uml-bench ARCH=um)

clients=${BENCH_CLIENTS:-}
if [[ -z $clients ]]; then
	c=1
	while ((c <= 4 * ncpus)); do clients+="$c "; c=$((c * 2)); done
fi

# The job list: modes innermost, so that A B C A B C ... share conditions.
jobs=$U/jobs.txt
: >"$jobs"
for ((r = 1; r <= reps; r++)); do
	echo "mode=decoupled clients=1 workload=floor hardirq=0 duration_ms=$ms" >>"$jobs"
	for c in $clients; do
		for wl in pages bytes mixed; do
			for irq in 0 1; do
				for mode in decoupled coupled none; do
					echo "mode=$mode clients=$c workload=$wl hardirq=$irq duration_ms=$ms" >>"$jobs"
				done
			done
		done
	done
done
total=$(wc -l <"$jobs")
log "bench: $total measurements of ${ms} ms on $ncpus CPUs (UML), ~$((total * (ms + 150) / 1000)) s"

cat >"$U/init.sh" <<'INIT'
#!/bin/sh
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t debugfs debugfs /sys/kernel/debug
D=/sys/kernel/debug/memcg_stock
echo "cpus=$(getconf _NPROCESSORS_ONLN)" >"$MCS_U/info.txt"
insmod "$MCS_MODDIR/memcg_stock.ko" || echo "insmod failed" >>"$MCS_U/info.txt"
cat $D/slab >"$MCS_U/slab-kmem_cache.txt"
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

t0=$SECONDS
timeout -k 10 $((total * (ms + 2000) / 1000 + 300)) "$B/linux" mem=512M ncpus="$ncpus" \
	seccomp=on uml_dir="$U/umldir" rootfstype=hostfs rootflags=/ rw \
	init="$U/init.sh" MCS_U="$U" MCS_MODDIR="$M" </dev/null 2>&1 |
	tee "$U/console.log" | grep --line-buffered '^bench \[' >&2 || true
grep -q '^done' "$U/info.txt" 2>/dev/null || die "the benchmark kernel did not finish (see $U/console.log)"
mcs_check_console "$U/dmesg.txt"
log "bench: guest ran $((SECONDS - t0)) s"

python3 "$here/bench-report.py" "$U" "$out" "$ncpus"
