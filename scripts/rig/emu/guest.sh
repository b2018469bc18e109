#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The guest side of scripts/rig/emu-check.sh, run by the initramfs's /init once
# memcg_stock is loaded: memcg_stock goes out again, nmi_storm comes in, and
# every vCPU allocates and frees through the kernel's slab fast paths
# (debugfs opens kmalloc their proxy file operations; /proc reads, and the
# fork and exit of each cat) for EMU_SECONDS while the NMIs arrive.  A
# line "EMU-MINUTE n" a minute; "EMU-DONE" when the kernel survived.
rmmod memcg_stock_test 2>/dev/null
rmmod memcg_stock && echo "EMU-RMMOD memcg_stock rc=0" || echo "EMU-RMMOD memcg_stock rc=$?"
if grep -q '^memcg_stock' /proc/modules; then
	echo "EMU-FAIL memcg_stock is still loaded"
	exit 1
fi
dmesg -n 1
mount -t debugfs none /sys/kernel/debug 2>/dev/null
insmod /mcs/selftests/nmi_storm.ko nmi_us="${EMU_NMI_US:-50}" || {
	echo "EMU-FAIL insmod nmi_storm"
	exit 1
}
secs=${EMU_SECONDS:-3600}
end=$(($(date +%s) + secs))
n=$(grep -c ^processor /proc/cpuinfo)
i=0 pids=
while [ $i -lt "$n" ]; do
	(while [ "$(date +%s)" -lt $end ]; do
		for f in /sys/kernel/debug/*/* /proc/self/status /proc/meminfo /proc/slabinfo; do
			# a pass is long on a starved guest: stop on time
			[ "$(date +%s)" -lt $end ] || break
			case $f in *pipe*) continue ;; esac	# trace_pipe blocks
			cat "$f" >/dev/null 2>&1
		done
	done) &
	pids="$pids $!"
	i=$((i + 1))
done
m=0
while [ "$(date +%s)" -lt $end ]; do
	sleep 60
	m=$((m + 1))
	echo "EMU-MINUTE $m $(grep NMI: /proc/interrupts | tr -s ' ')"
done
# shellcheck disable=SC2086 # one word per pid
kill $pids 2>/dev/null
rmmod nmi_storm
dmesg | grep mcs_nmi_storm
echo "EMU-DONE"
