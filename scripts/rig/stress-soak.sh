#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# stress-soak.sh (`make soak`): N consecutive stress runs ("echo all > run",
# every case of the harness's table) per kernel, in one boot each: UML and
# the qemu kernels, then the fuzzer (selftests/mcs_fuzz) for longer than in
# `make check`.  On our debug kernels the KUnit suites run first (at the
# guest's vCPU and node count).  Fails unless every run says verdict=PASS,
# the fuzzer passes, every KUnit case passes and the console stays clean.
#   SOAK_RUNS     runs per kernel (default 3: 15 kernels x 3 runs is over
#                 an hour on 2 cores; more runs for a longer soak)
#   SOAK_KERNELS  uml (the SMP debug UML kernel, 2 CPUs: make check boots
#                 the UP one) and qemu kernels by name (lib.sh, mcs_qemu_kernel),
#                 NAME[+smpN][+numaN] for N vCPUs (default 2) / N NUMA nodes;
#                 default: uml deb-amd64 deb-rt-amd64 dbg-generic dbg-rt
#                 deb-6.1-rt-amd64 deb-cloud-amd64 deb-amd64+smp8 dbg-generic+smp8
#                 deb-amd64+numa2 deb-amd64+smp4+numa4 dbg-numa+smp4+numa4
#                 dbg-kcsan+smp4 deb-7.x-amd64 deb-7.x-rt-amd64 (Debian's
#                 newest 7.x)
#                 (8 vCPUs on a 2-core host: qemu-run.sh uses thread=single;
#                 NUMA: 2 and 4 nodes, 1 GiB split evenly; dbg-numa runs the
#                 KUnit node-locality case on 4 real nodes; dbg-kcsan's
#                 KCSAN reports are counted, MCS-SOAK kcsan, and fail the
#                 kernel when one has a memcg_stock frame); with KERNEL=
#                 and KDIR= set, "path" (that kernel, lib.sh) alone
#   SOAK_FUZZ_SECONDS  fuzzing per kernel (default 60; 0: no fuzzing)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/progress.sh"	# a progress line every 30 s, stopped at exit
mcs_progress_start "make soak"
trap mcs_progress_stop EXIT

runs=${SOAK_RUNS:-3}
fuzz_s=${SOAK_FUZZ_SECONDS:-60}
[[ $fuzz_s =~ ^[0-9]+$ ]] || die "SOAK_FUZZ_SECONDS=$fuzz_s is not a number"
S=$MCS_OUT/soak
soak_default='uml deb-amd64 deb-rt-amd64 dbg-generic dbg-rt deb-6.1-rt-amd64 deb-cloud-amd64 deb-amd64+smp8 dbg-generic+smp8 deb-amd64+numa2 deb-amd64+smp4+numa4 dbg-numa+smp4+numa4 dbg-kcsan+smp4 deb-7.x-amd64 deb-7.x-rt-amd64'
# make soak KERNEL=... KDIR=...: that kernel alone ("path", lib.sh)
[[ -n ${KERNEL:-} ]] && soak_default=path
kernels=(${SOAK_KERNELS:-$soak_default})
for k in "${kernels[@]}"; do [[ $k == uml ]] || mcs_kernel_spec "$k" > /dev/null; done
[[ -n ${KERNEL:-} && " ${kernels[*]} " == *" path"[+\ ]* ]] && mcs_path_kernel > /dev/null
mkdir -p "$S"

# the fuzzer: a static binary, one build for every kernel
F=$S/fuzz
rm -rf "$F" "$S/selftests"
mkdir -p "$F"
if ((fuzz_s)); then
	"$here/build-selftests.sh" "$S/selftests" "$("$here/fetch-source.sh" 6.12)"
	[[ -x $S/selftests/mcs_fuzz ]] || die "no mcs_fuzz selftest built"
	cp "$S/selftests/mcs_fuzz" "$F/"
fi

# the guest side: one shell script for every kernel
cat >"$S/soak.sh" <<EOF2
D=/sys/kernel/debug/memcg_stock
# the footprint report for this guest's node count (docs/design.md: memory footprint)
sed 's/^/MCS-SOAK slab: /' \$D/slab
pass=0
i=0
while [ \$i -lt $runs ]; do
	i=\$((i + 1))
	t0=\$(cut -d. -f1 /proc/uptime)
	echo all > \$D/run || { echo "MCS-SOAK run \$i: start failed"; continue; }
	while grep -q '^state=running' \$D/run; do sleep 1; done
	v=\$(grep -m1 '^verdict=' \$D/results)
	# hotplug cycles of every case that asked for hotplug (case:state/cycles)
	hp=\$(awk -F= '/^case=/ { c = \$2 } /^hotplug=/ { h = \$2 }
		/^hotplug_cycles=/ && h != "off" { printf "%s:%s/%s ", c, h, \$2 }' \$D/results)
	echo "MCS-SOAK run \$i: \$v (\$((\$(cut -d. -f1 /proc/uptime) - t0)) s) cpus=\$(grep -c ^processor /proc/cpuinfo) hotplug \$hp"
	[ "\$v" = verdict=PASS ] && pass=\$((pass + 1))
done
echo "MCS-SOAK passed \$pass/$runs"
frc=0
if [ $fuzz_s -gt 0 ]; then
	echo "MCS-SOAK fuzz $fuzz_s s"
	MCS_FUZZ_SECONDS=$fuzz_s "\$MCS_FUZZ_BIN"; frc=\$?
	echo "MCS-SOAK fuzz rc=\$frc"
fi
[ \$pass -eq $runs ] && [ \$frc -eq 0 ]
EOF2

rc=0
for k in "${kernels[@]}"; do
	d=$S/$k
	rm -rf "$d"
	mkdir -p "$d"
	t0=$SECONDS
	if [[ $k == uml ]]; then
		B=$(MCS_UML_FLAVOUR=debug "$here/build-uml.sh")
		M=$(mcs_build_module "$B" soak-uml ARCH=um)
		cat >"$d/init.sh" <<'INIT'
#!/bin/sh
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
# the host's / is read-only here: only this kernel's directory is writable
case $MCS_D in /tmp/*) ;; *) mount -t tmpfs tmpfs /tmp ;; esac
mount -t hostfs none "$MCS_D" -o "$MCS_D"
cd "$MCS_D" || exit 1
mount -t debugfs debugfs /sys/kernel/debug
# only what follows the load counts (the UML boot has a known RCU report,
# see kunit-uml.sh)
dmesg -c > "$MCS_D/boot-dmesg.txt"
export MCS_FUZZ_KO="$MCS_MODDIR/memcg_stock.ko"
insmod "$MCS_MODDIR/memcg_stock.ko" && sh "$MCS_SOAK"; echo "MCS-SOAK-RC $?"
rmmod memcg_stock; echo "MCS-RMMOD rc=$?"
dmesg > "$MCS_D/dmesg.txt"
/bin/busybox poweroff -f 2>/dev/null || echo o >/proc/sysrq-trigger
sleep 30
INIT
		chmod +x "$d/init.sh"
		mkdir -p "$d/umldir"
		timeout -k 10 $((runs * 300 + 300 + fuzz_s * 2)) "$B/linux" mem=512M ncpus=2 seccomp=on \
			uml_dir="$d/umldir" rootfstype=hostfs rootflags=/ ro init="$d/init.sh" \
			MCS_MODDIR="$M" MCS_SOAK="$S/soak.sh" MCS_D="$d" MCS_FUZZ_BIN="$F/mcs_fuzz" \
			</dev/null >"$d/console.log" 2>&1 || true
		ok=0
		grep -q '^MCS-SOAK-RC 0' "$d/console.log" && grep -q '^MCS-RMMOD rc=0' "$d/console.log" &&
			(mcs_check_console "$d/dmesg.txt") && ok=1
	else
		read -r kname ksmp knuma <<<"$(mcs_kernel_spec "$k")"
		((ksmp)) || ksmp=2
		((knuma)) || knuma=1
		kinfo=$(mcs_qemu_kernel "$kname") || { log "soak $k: FAIL (kernel not available)"; rc=1; continue; }
		read -r vmlinuz kdir _ <<<"$kinfo"
		M=$(mcs_build_module "$kdir" "soak-$kname") ||
			{ log "soak $k: FAIL (module build)"; rc=1; continue; }
		mkdir -p "$d/mod"
		cp "$M/memcg_stock.ko" "$d/mod/"
		# our debug kernels: the KUnit suites too, at this vCPU and node count
		[[ -f $M/memcg_stock_test.ko ]] && cp "$M/memcg_stock_test.ko" "$d/mod/"
		"$here/mkinitramfs.sh" "$d/initramfs.cpio.gz" "$d/mod" "$F" "$S/soak.sh"
		# three times the time for the slow guests: more vCPUs than host
		# cores (single-threaded TCG, every run slower), and KCSAN (every
		# access instrumented, watchpoints that wait)
		slow=1
		[[ $kname == dbg-kcsan ]] && slow=3
		((ksmp > 4)) && slow=3
		# One retry, as in vmtest.sh, only for a stall before the module
		# was loaded (a host too loaded to run the guest's timers); a
		# crash is never retried.  The first log is kept.
		# the log of a long fuzz (about 7 MB in 900 s) must not wrap before
		# run_tests.sh reads it: a WARN it can no longer see is a taint it
		# cannot explain
		for boot in 1 2; do
			QEMU_TIMEOUT=$(((runs * 300 + 300 + fuzz_s * 2) * slow)) QEMU_NUMA=$knuma \
				QEMU_APPEND="log_buf_len=32M MCS_FUZZ_BIN=/mcs/selftests/mcs_fuzz $(mcs_kernel_append "$kname")" \
				"$here/qemu-run.sh" "$vmlinuz" \
				"$d/initramfs.cpio.gz" "$d/console.log" "$ksmp" || true
			ok=0
			grep -q '^MCS-VERDICT: PASS' "$d/console.log" && ok=1
			if ((ok || boot > 1)) || ! mcs_stall_before_module "$d/console.log"; then
				break
			fi
			mv "$d/console.log" "$d/console.boot1.log"
			log "soak $k: RETRY: RCU stall before memcg_stock was loaded; first log kept in $d/console.boot1.log"
		done
		crash=$(mcs_crash_line "$d/console.log" | cut -c1-160)
		[[ -z $crash ]] || log "soak $k: kernel crash in boot $boot: $crash (console $d/console.log)"
		if [[ -f $d/mod/memcg_stock_test.ko ]]; then
			mcs_ktap_block "$d/console.log" > "$d/ktap.txt"
			kt_ok=$(grep -cE '^[[:space:]]*ok ' "$d/ktap.txt" || true)
			kt_skip=$(grep -cE '^[[:space:]]*ok .*# SKIP' "$d/ktap.txt" || true)
			kt_bad=$(grep -cE '^[[:space:]]*not ok ' "$d/ktap.txt" || true)
			echo "MCS-SOAK kunit: $kt_ok ok ($kt_skip skipped), $kt_bad not ok" >> "$d/console.log"
			grep -E '^[[:space:]]*(not ok |ok .*# SKIP)' "$d/ktap.txt" | sed "s/^ */$k: kunit: /" >&2 || true
			((kt_ok > 0 && kt_bad == 0)) || ok=0
		fi
	fi
	# the guest's verdict already fails on a KCSAN report of ours; this
	# counts them all, and fails on ours also if the guest missed one
	if grep -aq 'BUG: KCSAN:' "$d/console.log"; then
		kc=$(mcs_kcsan_summary "$d/console.log" "$d/kcsan.txt") || ok=0
		echo "$kc" >> "$d/console.log"
	fi
	grep -a '^MCS-SOAK' "$d/console.log" | sed "s/^/$k: /" >&2 || true
	if ((ok)); then
		log "soak $k: PASS ($((SECONDS - t0)) s)"
	else
		log "soak $k: FAIL (see $d/console.log)"
		rc=1
	fi
done
mcs_progress_stop
mcs_progress_summary soak "$S/soak.sh"
exit $rc
