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
#   BENCH_KERNELS      where to run: uml (default) and/or the qemu kernels
#                      by name (lib.sh: deb-amd64 deb-rt-amd64 deb-6.1-amd64 ...
#                      dbg-generic dbg-rt), space separated
#   MCS_UML_CPUS       guest CPUs (default 2)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

reps=${BENCH_REPS:-3}
ms=${BENCH_MS:-200}
ncpus=${MCS_UML_CPUS:-2}
out=$MCS_SRC/bench-results

clients=${BENCH_CLIENTS:-}
if [[ -z $clients ]]; then
	c=1
	while ((c <= 4 * ncpus)); do clients+="$c "; c=$((c * 2)); done
fi

# The job list: modes innermost, so that A B C A B C ... share conditions.
mkdir -p "$MCS_OUT"
jobs=$MCS_OUT/bench-jobs.txt
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
		# one cgroup on several CPUs: every client charges the same memcg/objcg
		((c >= 2)) || continue
		for wl in pages bytes; do
			for mode in decoupled coupled none; do
				echo "mode=$mode clients=$c workload=$wl hardirq=0 shared=1 duration_ms=$ms" >>"$jobs"
			done
		done
	done
done
mkdir -p "$MCS_OUT"
total=$(wc -l <"$jobs")
log "bench: $total measurements of ${ms} ms per kernel, ~$((total * (ms + 150) / 1000)) s each"


# bench_uml DIR: run the job list in the bench flavour of the UML kernel.
bench_uml() {
	local U=$1 B M
	mkdir -p "$U/umldir"
	B=$(MCS_UML_FLAVOUR=bench "$here/build-uml.sh")
	M=$(mcs_build_module "$B" uml-bench ARCH=um)
	cp "$jobs" "$U/jobs.txt"
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
}

# bench_qemu NAME DIR: the same jobs in one of the qemu kernels of vmtest.sh.
bench_qemu() {
	local name=$1 V=$2 vmlinuz kdir M
	[[ $(mcs_kernel_spec "$name") == "$name 0 0" ]] ||
		die "BENCH_KERNELS entry '$name': a kernel name without +options"
	read -r vmlinuz kdir _ <<<"$(mcs_qemu_kernel "$name")"
	[[ -n $kdir ]] || die "kernel $name not available"
	mkdir -p "$V"
	M=$(mcs_build_module "$kdir" "bench-$name")
	{
		echo 'D=/sys/kernel/debug/memcg_stock'
		echo 'cat $D/slab | sed "s/^/MCS-BENCH-SLAB-kmem_cache /"'
		echo 'while read -r job; do'
		echo '	if echo "$job" >$D/bench; then echo "MCS-BENCH $(cat $D/bench)"; else echo "MCS-BENCH $job verdict=ERROR"; fi'
		echo 'done <<JOBS'
		cat "$jobs"
		echo 'JOBS'
	} >"$V/run.sh"
	"$here/mkinitramfs.sh" "$V/initramfs.cpio.gz" "$M" "$V/none" "$V/run.sh"
	QEMU_TIMEOUT=$((total * (ms + 3000) / 1000 + 300)) \
		"$here/qemu-run.sh" "$vmlinuz" "$V/initramfs.cpio.gz" "$V/console.log" "$ncpus" || true
	grep -q '^MCS-VERDICT: PASS' "$V/console.log" ||
		die "$name: the benchmark run failed: $(grep '^MCS-VERDICT' "$V/console.log" || echo no verdict)"
	sed -n 's/^MCS-BENCH //p' "$V/console.log" >"$V/results.txt"
	sed -n 's/^MCS-BENCH-SLAB-kmem_cache //p' "$V/console.log" >"$V/slab-kmem_cache.txt"
}

rc=0
for k in ${BENCH_KERNELS:-uml}; do
	dir=$MCS_OUT/bench/$k
	rm -rf "$dir"
	if [[ $k == uml ]]; then
		bench_uml "$dir"
	else
		bench_qemu "$k" "$dir"
	fi
	echo
	echo "===== $k ====="
	python3 "$here/bench-report.py" "$dir" "$out/$k" "$ncpus" "$k" || rc=1
done
exit $rc
