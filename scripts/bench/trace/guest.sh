#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The guest side of `make trace` (scripts/bench/trace.sh): run after memcg_stock
# is loaded, inside the test initramfs.  Sets up cgroup v2 with the memory
# controller, records the kernel's charge stream while WORKLOAD runs in its
# cgroups (below /sys/fs/cgroup/mcs), and prints the trace on the console
# as gzip+base64 between MCS-TRACE-BEGIN and MCS-TRACE-END (kernel
# messages off the console meanwhile).
#   TRACE_WORKLOAD  many-cgroups | fork-storm | stress-fork | stress-switch |
#                   kbuild | loopback
#   TRACE_CGROUPS   cgroups of many-cgroups (default 64)
#   TRACE_ROUNDS    rounds of each many-cgroups loop (default 12)
#   TRACE_OPS       stress-ng's bogo ops per instance (default: fork 100,
#                   switch 20000)
#   TRACE_BYTES     bytes each loopback client sends (default 32M)
#   TRACE_PROFILE   set: the tbcount plugin counts the guest's blocks
#                   (scripts/bench/replay-kernel.sh); /mcs/selftests/mark
#                   closes an interval before the recording starts and
#                   after it stops (interval 1: the workload), then the
#                   trace is replayed through each of TRACE_REPLAY_MODES
#                   between two more marks (intervals 3, 5, ...), and the
#                   guest's text symbols follow the trace
set -u
D=/sys/kernel/debug/memcg_stock
CG=/sys/fs/cgroup
W=${TRACE_WORKLOAD:?}
N=${TRACE_CGROUPS:-64}

# the packages of the workload (scripts/bench/trace.sh), if it has any
for t in /mcs/selftests/*.tar; do
	[ -f "$t" ] && tar -xf "$t" -C /
done
mkdir -p $CG
mount -t cgroup2 none $CG || exit 1
echo +memory > $CG/cgroup.subtree_control || exit 1
mkdir $CG/mcs || exit 1
echo +memory > $CG/mcs/cgroup.subtree_control || exit 1
cpus=$(grep -c '^processor' /proc/cpuinfo)
# the trace is data of this tree: its license, first in the header's note
lic=SPDX-License-Identifier:GPL-2.0

# run "$@" in cgroup $1 (created below mcs), in the background
in_cgroup() {
	g=$CG/mcs/$1
	shift
	mkdir -p "$g"
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$g" "$@" &
}

# a short busybox loop: files in tmpfs (page charges), forks and pipes (slab)
R=${TRACE_ROUNDS:-12}
small_loop='i=0; while [ $i -lt '"$R"' ]; do echo "$i $$" > /tmp/w.$$; cat /tmp/w.$$ | wc -c >/dev/null; i=$((i + 1)); done; rm -f /tmp/w.$$'
# fork and exec: task structs, page tables, mm (kernel pages, slab)
fork_loop='for i in $(seq 150); do /bin/true; done'

case $W in
many-cgroups)
	note="$lic,cgroup-v2,$N-cgroups-below-mcs,each-one-busybox-loop-of-$R-rounds,${cpus}-cpus"
	run() {
		k=0
		while [ $k -lt "$N" ]; do
			in_cgroup "c$k" sh -c "$small_loop"
			k=$((k + 1))
		done
		wait
	} ;;
fork-storm)
	note="$lic,cgroup-v2,4-cgroups-below-mcs,fork-exec-loops,${cpus}-cpus"
	run() {
		for k in 0 1 2 3; do
			in_cgroup "f$k" sh -c "$fork_loop"
		done
		wait
	} ;;
stress-fork | stress-switch)
	s=${W#stress-}
	# bounded so that the per-CPU buffers hold the stream (lost=0)
	ops=100
	[ "$s" = switch ] && ops=20000
	ops=${TRACE_OPS:-$ops}
	note="$lic,cgroup-v2,4-cgroups-below-mcs,stress-ng-$s-1-per-cgroup-$ops-ops,${cpus}-cpus"
	run() {
		for k in 0 1 2 3; do
			in_cgroup "s$k" /usr/bin/stress-ng --$s 1 --$s-ops $ops --timeout 10 \
				--temp-path /tmp --quiet
		done
		wait
	} ;;
kbuild)
	# the static library of zlib, by its own Makefile (configured by
	# scripts/bench/trace.sh) with gcc 12: 15 compiles and ar
	PATH=/usr/bin:/usr/sbin:$PATH
	note="$lic,cgroup-v2,1-cgroup-below-mcs,make-j4-libz.a-of-zlib-1.2.13-gcc-12,${cpus}-cpus"
	run() {
		in_cgroup kbuild make -C /build/zlib -j4 libz.a >/tmp/kbuild.log 2>&1
		wait $! || { tail -20 /tmp/kbuild.log; echo "MCS-TRACE-FAIL make"; exit 1; }
	} ;;
loopback)
	# an iperf3 server and its client in each of 4 cgroups, over lo
	ip link set lo up || exit 1
	B=${TRACE_BYTES:-32M}
	note="$lic,cgroup-v2,4-cgroups-below-mcs,iperf3-server-and-client-per-cgroup-over-lo-$B-each,${cpus}-cpus"
	run() {
		for k in 0 1 2 3; do
			in_cgroup "n$k" /usr/bin/iperf3 -s -1 -p $((5201 + k)) >/dev/null
		done
		sleep 1
		for k in 0 1 2 3; do
			in_cgroup "n$k" /usr/bin/iperf3 -c 127.0.0.1 -p $((5201 + k)) -n "$B" >/tmp/n$k.log 2>&1
		done
		wait
		grep -h receiver /tmp/n?.log
	} ;;
*)
	echo "MCS-TRACE-FAIL unknown workload $W"
	exit 1 ;;
esac

mark=:
[ -n "${TRACE_PROFILE:-}" ] && mark=/mcs/selftests/mark
$mark
echo "start workload=$W note=$note" > $D/record || exit 1
run
echo stop > $D/record || exit 1
$mark
cat $D/record
cat $D/record_trace > /tmp/trace.bin || exit 1
if [ -n "${TRACE_PROFILE:-}" ]; then
	echo "MCS-PROFILE workload $(cat $D/record)"
	cat /tmp/trace.bin > $D/trace_load || { cat $D/trace_load; echo "MCS-TRACE-FAIL trace_load"; exit 1; }
	for m in ${TRACE_REPLAY_MODES:-}; do
		$mark
		echo "mode=$m workload=replay passes=1" > $D/bench
		r=$?
		$mark
		[ $r -eq 0 ] || { echo "MCS-TRACE-FAIL replay mode=$m"; exit 1; }
		echo "MCS-PROFILE replay-$m $(cat $D/bench)"
	done
	echo MCS-KALLSYMS-BEGIN
	grep ' [tT] ' /proc/kallsyms | gzip -1 | base64
	echo MCS-KALLSYMS-END
fi
# the cgroups go only after the trace is out: their ids stay meaningful
for g in $CG/mcs/*/; do rmdir "$g" 2>/dev/null; done
dmesg -n 1
echo "MCS-TRACE-BYTES $(wc -c < /tmp/trace.bin)"
echo MCS-TRACE-BEGIN
gzip -9 -c /tmp/trace.bin | base64
echo MCS-TRACE-END
dmesg -n 7
