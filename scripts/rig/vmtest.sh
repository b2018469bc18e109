#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vmtest.sh (`make vmtest`): boot each test kernel under qemu (TCG, 2 vCPUs)
# with an initramfs holding memcg_stock.ko (+ memcg_stock_test.ko where the
# kernel has KUnit) and the selftests, then judge the serial log on the host.
#
# Kernels (VM_KERNELS, by name: see mcs_qemu_kernel in lib.sh; default
# MCS_VM_KERNELS_DEFAULT, deb-rt-amd64 path deb-amd64 dbg-rt dbg-kasan, whose path is
# Debian 6.1; with KERNEL= set, path alone; dbg-generic is in make soak):
#   deb-amd64      Debian bookworm's 6.12 generic  (scripts/rig/fetch-debian-kernel.sh)
#   deb-rt-amd64   Debian bookworm's 6.12 PREEMPT_RT
#   deb-6.1-amd64  Debian bookworm's 6.1 generic
#   deb-[SERIES-]FLAVOUR  any other Debian kernel (fetch-debian-kernel.sh --list)
#   dbg-generic    our 6.12 debug kernel: KUnit, lockdep, kmemleak (scripts/rig/build-debug-kernel.sh)
#   dbg-rt         the same with PREEMPT_RT
#   dbg-kasan      dbg-generic with KASAN (inline, vmalloc too)
#   path           KERNEL= (bzImage or vmlinuz) with KDIR= (its build tree),
#                  refused before the boot when KDIR's configuration lacks
#                  a needed option (lib.sh mcs_kernel_config)
# A name may carry guest options, NAME[+smpN][+numaN]: N vCPUs (default
# VM_SMP), N NUMA nodes (qemu-run.sh QEMU_NUMA); results go to a directory of
# that name.
# A kernel fails on: a module build error, no verdict line (panic, hang),
# a guest-side failure, fewer than 2 CPUs, a failed insmod or rmmod, a failed,
# missing or unparsable KUnit suite (kernels with KUnit; expected suites = every
# `.name = "mcs_..."` in kunit/*.c), a selftest `not ok`, exit code other than
# 0/4 or missing result, a kmemleak report (or no scan where the kernel has
# kmemleak), taint other than O/E/N, lockdep switched off (where the kernel
# has it), or any splat on the console.  The guest runs
# selftests/run_tests.sh (scripts/rig/mkinitramfs.sh).
# Results: $MCS_OUT/vm/<kernel>/ (console.log, ktap.txt, kunit.txt, ...).
#
# Environment: VM_KERNELS, VM_JOBS (kernels booted at a time, default 2;
# their preparation - kernel, module, initramfs - runs one at a time), VM_SMP
# (default 2), VM_NUMA (default 1 node), QEMU_TIMEOUT (per boot, default
# 1200 s + the fuzzing, 3000 s + the fuzzing for the dbg-* kernels), MCS_SELFTEST_TIMEOUT (per selftest in the guest, default 900 s),
# VM_FUZZ_FULL (kernel names whose selftests/mcs_fuzz runs 30 s, default
# dbg-rt dbg-kasan), VM_FUZZ_SHORT (the others' fuzzing, default 5 s),
# MCS_FUZZ_SECONDS (fuzzing on every kernel, overrides both),
# MCS_LOAD_FAULTS_STRIDE (selftest load_faults tries every N-th fault point
# of a load, default 16),
# MCS_MODULE_SRC (module tree to test instead of this repo: rig self-tests),
# VM_ISOLATED (kernel names booted with their last vCPU isolated, isolcpus=
# and nohz_full=, for the selftest "isolation"; default deb-6.1-amd64, and
# path when it is the rig's own Debian 6.1 rather than a user's KERNEL=),
# KERNEL and KDIR (the kernel "path").
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/progress.sh"
if [[ -n ${MCS_MODULE_SRC:-} ]]; then
	MCS_SRC=$(cd "$MCS_MODULE_SRC" && pwd)
	export MCS_MODULE_SRC=$MCS_SRC
fi

# Boot banners of the debug kernels that match MCS_SPLAT_RE (lib.sh) without
# being splats (mkinitramfs.sh has the same default for the guest's check).
export MCS_SPLAT_BENIGN  # from lib.sh

# the KUnit report is read back from the ring buffer: make room for it
# (unknown parameters such as MCS_SELFTEST_TIMEOUT=N reach /init's environment)
# The fuzzer keeps both vCPUs busy: 30 s where the checkers are strongest
# (VM_FUZZ_FULL, default the SMP debug guests: lockdep and kmemleak on
# both, KASAN and debug objects on dbg-kasan, PREEMPT_RT on dbg-rt; the
# one-CPU UML of kunit-uml fuzzes 10 s), VM_FUZZ_SHORT seconds (5) on the
# others: 20 s on Debian's 6.12 made 27,339 operations, a few hundred on each file and two
# module reloads every 10 s; the long random runs belong to make soak
# (SOAK_FUZZ_SECONDS, 60 s on 15 kernels).
# MCS_FUZZ_SECONDS, when set, applies to every kernel.
fuzz_full=${MCS_FUZZ_SECONDS:-30}
fuzz_short=${MCS_FUZZ_SECONDS:-${VM_FUZZ_SHORT:-5}}
fuzz_kernels=" ${VM_FUZZ_FULL:-dbg-rt dbg-kasan} "
# selftests/load_faults under TCG: every 16th fault point of a load (a
# random offset each run), about 45 loads per allocation mode; make soak
# and make run_tests sweep every one
load_stride=${MCS_LOAD_FAULTS_STRIDE:-16}
[[ $load_stride =~ ^[1-9][0-9]*$ ]] || die "MCS_LOAD_FAULTS_STRIDE=$load_stride is not a number above 0"
[[ $fuzz_full =~ ^[0-9]+$ ]] || die "MCS_FUZZ_SECONDS=$fuzz_full is not a number"
[[ $fuzz_short =~ ^[0-9]+$ ]] || die "VM_FUZZ_SHORT=$fuzz_short is not a number"
append="log_buf_len=4M ${MCS_SELFTEST_TIMEOUT:+MCS_SELFTEST_TIMEOUT=$MCS_SELFTEST_TIMEOUT }${QEMU_APPEND:-}"
# per boot; by default 1200 s plus that kernel's fuzzing, 3000 s for our
# debug kernels: alone under TCG a debug guest boots and tests in about
# 840 s (dbg-kasan, 1280 CPU seconds: MCS-PHASE lines), and beside the
# other guests of make check on 2 cores it runs about three times slower
qemu_timeout=${QEMU_TIMEOUT:-}

mcs_vm_kernels
kernels=("${MCS_VM_KERNELS[@]}")
for k in "${kernels[@]}"; do mcs_kernel_spec "$k" > /dev/null; done
# a kernel by path that lacks what the suite needs is refused at once
[[ -n ${KERNEL:-} && " ${kernels[*]} " == *" path"[+\ ]* ]] && mcs_path_kernel > /dev/null
V=$MCS_OUT/vm
mkdir -p "$V"
t0=$SECONDS

src612=$("$here/fetch-source.sh" 6.12)
src7=$("$here/fetch-source.sh" 7)
kunit_py=$src7/tools/testing/kunit/kunit.py
[[ -f $kunit_py ]] || die "no $kunit_py"

# Selftests are static binaries: one build serves every kernel.
rm -rf "$V/selftests"
"$here/build-selftests.sh" "$V/selftests" "$src612"
mkdir -p "$V/selftests"
shopt -s nullglob
selftests=()
for f in "$MCS_SRC"/selftests/*.c; do selftests+=("$(basename "$f" .c)"); done
mapfile -t suites < <(cat "$MCS_SRC"/kunit/*.c 2>/dev/null |
	grep -oE '\.name[[:space:]]*=[[:space:]]*"mcs_[^"]*"' | sed -E 's/.*"(.*)"/\1/' | sort -u)
shopt -u nullglob

# block LOG BEGIN-RE END-RE: the lines strictly between two marker lines
block() {
	awk -v b="$2" -v e="$3" '$0 ~ e { on = 0 } on { print } $0 ~ b { on = 1 }' "$1"
}

# judge NAME DIR FEATURES: check one console log; print one reason per
# failure.  FEATURES (lib.sh mcs_kernel_features, from the kernel's .config)
# say what must have run: KUnit (kunit), kmemleak, lockdep.
judge() {
	local name=$1 d=$2 feat=" $3 " c=$2/console.log
	local kunit=0 kmemleak=0 lockdep=0
	[[ $feat == *" kunit "* ]] && kunit=1
	[[ $feat == *" kmemleak "* ]] && kmemleak=1
	[[ $feat == *" lockdep "* ]] && lockdep=1
	local verdict t rc out

	verdict=$(grep -E '^MCS-VERDICT: ' "$c" | tail -1 || true)
	if [[ -z $verdict ]]; then
		echo "no verdict line (panic, hang or timeout): last lines of $c:" >&2
		grep -v '^$' "$c" | tail -25 >&2
		# the crash, its boot and its console: the report needs nothing else
		t=$(mcs_crash_line "$c" | cut -c1-160)
		if [[ -n $t ]]; then
			echo "kernel crash in boot $boot of $name: $t (console $c)"
		else
			echo "no verdict in boot $boot of $name (hang or timeout; console $c)"
		fi
	elif [[ $verdict != 'MCS-VERDICT: PASS' ]]; then
		echo "guest: ${verdict#MCS-VERDICT: }"
	fi
	t=$(sed -n 's/^MCS-BOOT .* cpus=\([0-9]*\)$/\1/p' "$c" | head -1)
	[[ -n $t ]] && ((t >= 2 && t >= ksmp)) || [[ -z $verdict ]] ||
		echo "cpus online: ${t:-?} (< 2 or < $ksmp)"
	grep -qx 'MCS-INSMOD memcg_stock rc=0' "$c" || [[ -z $verdict ]] || echo "insmod memcg_stock failed"

	# KUnit (where the kernel has it: Debian's have no CONFIG_KUNIT)
	if ((kunit)) && ((${#suites[@]})); then
		if [[ ! -f $d/mod/memcg_stock_test.ko ]]; then
			echo "memcg_stock_test.ko was not built"
		elif [[ -n $verdict ]]; then
			grep -qx 'MCS-INSMOD memcg_stock_test rc=0' "$c" || echo "insmod memcg_stock_test failed"
			mcs_ktap_block "$c" > "$d/ktap.txt"
			rc=0
			python3 "$kunit_py" parse --json="$d/kunit.json" "$d/ktap.txt" > "$d/kunit.txt" 2>&1 || rc=$?
			sed -e 's/\x1b\[[0-9;]*m//g' "$d/kunit.txt" | grep -E 'FAILED|CRASHED|ERROR|Testing complete|not ok' | sed "s/^/  $name kunit: /" >&2 || true
			((rc == 0)) || echo "kunit.py parse exited $rc (see $d/kunit.txt)"
			if [[ -s $d/kunit.json ]]; then
				python3 - "$d/kunit.json" "${suites[@]}" <<'PY' || echo "cannot read $d/kunit.json"
import json, sys
top = json.load(open(sys.argv[1]))
m = top["misc"]
found = {g["name"]: g["misc"] for g in top.get("sub_groups", [])}
for c in top.get("test_cases", []):		# a suite that has no cases
    found[c["name"]] = {"failed": c["status"] not in ("PASS", "SKIP"), "crashed": 0, "errors": 0}
if m["tests"] == 0:
    print("KUnit ran 0 tests")
if m["failed"] or m["crashed"]:
    bad = [s for s, c in found.items() if c["failed"] or c["crashed"]]
    print("KUnit: %d failed, %d crashed in %s" % (m["failed"], m["crashed"], " ".join(bad)))
if m["errors"]:
    print("KUnit: %d parse error(s)" % m["errors"])
missing = [s for s in sys.argv[2:] if s not in found]
if missing:
    print("KUnit: missing suite(s) " + " ".join(missing))
print("KUnit: %d tests, %d passed, %d skipped, %d suites" %
      (m["tests"], m["passed"], m["skipped"], len(found)), file=sys.stderr)
PY
			else
				echo "kunit.py parse wrote no JSON"
			fi
		fi
	fi

	# selftests: exit 0 pass, 4 skip; any `not ok` fails even with exit 0
	if [[ -n $verdict ]]; then
		for t in "${selftests[@]}"; do
			out=$(block "$c" "^MCS-SELFTEST-BEGIN $t\$" "^MCS-SELFTEST-END $t rc=")
			rc=$(sed -n "s/^MCS-SELFTEST-END $t rc=//p" "$c" | tail -1)
			if [[ -z $rc ]]; then
				echo "selftest $t: no result"
				continue
			fi
			[[ $rc == 0 || $rc == 4 ]] || echo "selftest $t: exit code $rc"
			grep -E '^[[:space:]]*not ok' <<<"$out" | sed "s/^/selftest $t: /" || true
		done
	fi

	# unload, leaks, taint, lockdep
	if [[ -n $verdict ]]; then
		grep -E '^MCS-RMMOD .* rc=' "$c" | grep -v ' rc=0$' | sed 's/^MCS-RMMOD /rmmod failed: /' || true
		# not-loaded: a selftest unloaded it and did not load it again
		grep -qE '^MCS-RMMOD memcg_stock (rc=0|not-loaded)$' "$c" ||
			! grep -qx 'MCS-INSMOD memcg_stock rc=0' "$c" || echo "memcg_stock was not unloaded"
		# without the kernel's own leaks on injected failures
		out=$(block "$c" '^MCS-KMEMLEAK-BEGIN$' '^MCS-KMEMLEAK-END$' |
			awk -f "$MCS_SRC/selftests/kmemleak-known.awk")
		if grep -q 'unreferenced object' <<<"$out"; then
			echo "kmemleak: $(grep -c 'unreferenced object' <<<"$out") leak(s)"
			printf '%s\n' "$out" > "$d/kmemleak.txt"
		fi
		((kmemleak)) && ! grep -q '^MCS-KMEMLEAK-BEGIN$' "$c" && echo "kmemleak did not run"
		t=$(sed -n 's/^MCS-TAINT //p' "$c" | tail -1)
		if [[ ! $t =~ ^[0-9]+$ ]]; then
			echo "no taint value"
		elif ((t & ~(4096 | 8192 | 262144))); then
			echo "tainted $t (allowed: O E N)"
		fi
		t=$(sed -n 's/^MCS-DEBUG-LOCKS //p' "$c" | tail -1)
		((lockdep)) && [[ $t != 1 ]] && echo "debug_locks=${t:-absent} (lockdep fired or is missing)"
	fi
	# whole console (boot included), minus the debug kernels' boot banners
	grep -v -E "$MCS_SPLAT_BENIGN" "$c" > "$d/console.checked" || true
	if ! (mcs_check_console "$d/console.checked") 2> "$d/splats.txt"; then
		head -20 "$d/splats.txt" >&2
		echo "kernel splat on the console (see $d/splats.txt)"
	fi
	return 0
}

# prepare NAME DIR: the kernel, the module built against it and the
# initramfs; prints "VMLINUZ FEATURES SMP NUMA" (FEATURES: one word,
# comma-separated).  On failure: a reason on
# stdout, non-zero status.  Runs under $V/.prepare.lock (see run_kernel);
# uses run_kernel's start time tk.
prepare() {
	local k=$1 d=$2 kname ksmp knuma kinfo vmlinuz kdir feat m
	read -r kname ksmp knuma <<<"$(mcs_kernel_spec "$k")"
	((ksmp)) || ksmp=${VM_SMP:-2}
	((knuma)) || knuma=${VM_NUMA:-1}
	kinfo=$(mcs_qemu_kernel "$kname" 2> "$d/kernel.err") || kinfo=
	cat "$d/kernel.err" >&2
	if [[ -z $kinfo ]]; then
		echo "kernel not available: $(grep -m1 '^error:' "$d/kernel.err" | cut -c1-200 || true)"
		return 1
	fi
	read -r vmlinuz kdir _ <<<"$kinfo"
	feat=$(mcs_kernel_features "$kdir")
	echo "$((SECONDS - tk))" > "$d/t-kernel"
	tb=$SECONDS
	# the build directory is named after the kernel alone: lint and
	# dkms-check build in "deb-amd64" too (lib.sh mcs_build_module)
	if ! m=$(mcs_build_module "$kdir" "$kname"); then
		echo "module build failed"
		return 1
	fi
	mkdir -p "$d/mod"
	mcs_kdir_lock "$kdir" sh -c 'cp "$1"/*.ko "$2"/' sh "$m" "$d/mod"
	echo "$MCS_SRC" > "$d/mod/source"	# for compile-check.sh
	echo "$((SECONDS - tb))" > "$d/t-ko"
	"$here/mkinitramfs.sh" "$d/initramfs.cpio.gz" "$d/mod" "$V/selftests" ||
		{ echo "mkinitramfs failed"; return 1; }
	echo "$vmlinuz ${feat// /,} $ksmp $knuma"
}

# run_kernel SPEC PREV: prepare, boot (after the job of PREV, the spec
# before it in the boot order, took its slot) and judge one kernel; the
# outcome goes to
# $V/SPEC/result (PASS|FAIL), reason (;-separated) and times, its log to
# stderr.  Kernel fetches/builds, module builds and initramfs run one at a
# time (one flock for every job: they are CPU-bound, they share build
# directories and the cache); the boots, where the wall-clock time goes,
# overlap up to VM_JOBS.
run_kernel() {
	local k=$1 prev=$2 d=$V/$1 info vmlinuz feat ksmp knuma tq tw tboot attempt boot qrc w fuzz tbase
	local -a why
	tk=$SECONDS
	log "=== $k ==="
	# each job opens the lock file itself: flock(2) locks belong to an open
	# file description, which a descriptor inherited from here would share
	# ($d/.prepare-locked tells the launch loop that the lock is held)
	info=$(exec 8>"$V/.prepare.lock" && flock 8 && : > "$d/.prepare-locked" &&
		prepare "$k" "$d") || {
		echo FAIL > "$d/result"
		printf '%s\n' "${info:-preparation failed}" > "$d/reason"
		echo "$(cat "$d/t-kernel" 2>/dev/null || echo $((SECONDS - tk)))+$(cat "$d/t-ko" 2>/dev/null || echo -)" > "$d/times"
		log "$k: FAIL: ${info:-preparation failed}"
		return 0
	}
	read -r vmlinuz feat ksmp knuma <<<"$info"
	log "$k: optional features: ${feat//,/ } (the tests of the others SKIP)"
	fuzz=$fuzz_short
	[[ $fuzz_kernels == *" ${k%%+*} "* ]] && fuzz=$fuzz_full
	# the kernels of VM_ISOLATED (default deb-6.1-amd64, and path when it
	# is the rig's own Debian 6.1, as in make check) boot with their last
	# CPU isolated, so that selftest "isolation" runs somewhere; a kernel
	# the user gave by KERNEL= boots with no option the user did not ask for
	kappend="$append $(mcs_kernel_append "${k%%+*}")"
	iso_default=deb-6.1-amd64
	[[ ${MCS_PATH_IS_RIGS:-} == 1 ]] && iso_default+=" path"
	[[ " ${VM_ISOLATED-$iso_default} " == *" ${k%%+*} "* ]] &&
		kappend+=" isolcpus=$((ksmp - 1)) nohz_full=$((ksmp - 1))"
	log "$k: fuzzing $fuzz s"
	# a boot slot (VM_JOBS of them), in the order of the jobs: once the
	# job before this one has its slot or has ended; held until this job
	# ends (qemu-run.sh does not inherit it)
	tw=$SECONDS
	while [[ -n $prev && ! -e $V/$prev/.booting && ! -e $V/$prev/result ]] || ! boot_slot; do
		sleep 1
	done
	: > "$d/.booting"
	(( SECONDS - tw < 2 )) || log "$k: waited $((SECONDS - tw)) s for a boot slot"
	tq=$SECONDS
	tbase=1200
	[[ $k == dbg-* ]] && tbase=3000
	for attempt in 1 2; do
		boot=$attempt	# for judge's report
		qrc=0
		QEMU_NUMA=$knuma \
			QEMU_APPEND="MCS_FUZZ_SECONDS=$fuzz MCS_LOAD_FAULTS_STRIDE=$load_stride $kappend" \
			QEMU_TIMEOUT=${qemu_timeout:-$((tbase + fuzz))} \
			"$here/qemu-run.sh" "$vmlinuz" "$d/initramfs.cpio.gz" "$d/console.log" "$ksmp" 7>&- ||
			qrc=$?
		# the end mark proves that the judge ran to its end (a `die` half-way
		# would otherwise look like a run without failures)
		mapfile -t why < <(judge "$k" "$d" "${feat//,/ }" && echo '<judged>')
		if ((${#why[@]})) && [[ ${why[-1]} == '<judged>' ]]; then
			unset 'why[-1]'
		else
			why+=("the judge of $k failed")
		fi
		# One retry, only for an RCU stall reported before memcg_stock was
		# even loaded (a host too loaded to run the guest's timers: seen at
		# boot, 41 s into dbg-rt, beside a concurrent make bench).  A crash,
		# whatever code it is in, a stall once the module is in, or any
		# other failure is never retried.  The first log is kept.
		if ((attempt > 1 || ${#why[@]} == 0)) || ! mcs_stall_before_module "$d/console.log"; then
			break
		fi
		mv "$d/console.log" "$d/console.boot1.log"
		log "$k: RETRY: RCU stall before memcg_stock was loaded: the host starved the guest; first log kept in $d/console.boot1.log"
	done
	tboot=$((SECONDS - tq))
	((qrc == 0)) || why+=("qemu exit $qrc$( ((qrc != 124)) || echo ' (timeout)')")
	printf '%s\n' "${why[@]}" > "$d/failures.txt"
	if ((${#why[@]})); then
		echo FAIL > "$d/result"
		(IFS=';'; echo "${why[*]}") > "$d/reason"
		for w in "${why[@]}"; do log "$k: FAIL: $w"; done
	else
		echo PASS > "$d/result"
		: > "$d/reason"
		log "$k: PASS"
	fi
	echo "$(cat "$d/t-kernel")+$(cat "$d/t-ko")+$tboot" > "$d/times"
	# CPU seconds of the job's processes: module build, qemu, judge
	times > "$d/cpu.times"
}

# VM_JOBS kernels boot at a time (default 2).  The guests are CPU-bound
# under TCG: a debug guest alone keeps 1.5 cores busy (dbg-kasan: 1280 CPU
# seconds in 840 s), so on 2 cores a third guest only slows the others
# (three at a time, beside the UML guest and the compile stages of make
# check, dbg-kasan ran four times slower and missed its timeout).  Every kernel gets a job at once: the jobs prepare
# one after the other in the order below (the preparation lock), so the
# next kernel's module and initramfs are ready when a boot slot frees.
# Each job logs to $V/<kernel>/vmtest.log; a finished job's log is printed
# whole, so the output of concurrent kernels is never interleaved.
jobs_max=${VM_JOBS:-2}
[[ $jobs_max =~ ^[1-9][0-9]*$ ]] || die "VM_JOBS=$jobs_max: expected a positive number"
# boot_slot: take a free one of the VM_JOBS boot slots on descriptor 7,
# held until the job ends; non-zero when all are taken
boot_slot() {
	local i
	for ((i = 0; i < jobs_max; i++)); do
		exec 7> "$V/.boot-slot-$i"
		flock -n 7 && return 0
	done
	exec 7>&-
	return 1
}
for k in "${kernels[@]}"; do
	rm -rf "${V:?}/$k"
	mkdir -p "$V/$k"
done
# an interrupted vmtest takes its jobs (and their qemus) with it
trap 'for p in "${!running[@]}"; do mcs_kill_tree "$p"; done' INT TERM
declare -A running=()	# pid -> kernel spec
finish() {	# finish PID: print the finished job's log
	local k=${running[$1]}
	unset "running[$1]"
	printf '\n----- %s: %s (log %s) -----\n' "$k" "$(cat "$V/$k/result" 2>/dev/null || echo FAIL)" \
		"$V/$k/vmtest.log" >&2
	cat "$V/$k/vmtest.log" >&2
}
# longest first: our debug kernels (KUnit, lockdep, kmemleak scans) take
# about twice as long as Debian's; the summary keeps VM_KERNELS' order
order=()
for k in "${kernels[@]}"; do [[ $k == dbg-* ]] && order+=("$k"); done
for k in "${kernels[@]}"; do [[ $k == dbg-* ]] || order+=("$k"); done
log "vmtest: ${#kernels[@]} kernel(s), $jobs_max at a time: ${order[*]}"
prev=
for k in "${order[@]}"; do
	run_kernel "$k" "$prev" > /dev/null 2> "$V/$k/vmtest.log" &
	running[$!]=$k
	prev=$k
	# the next job may only queue for the preparation lock once this one
	# holds it: the longest guest (first in the order) is prepared and
	# boots first, not whichever job won the race for the lock
	while [[ ! -e $V/$k/.prepare-locked ]] && kill -0 $! 2>/dev/null; do
		sleep 0.1
	done
done
while ((${#running[@]})); do
	wait -n -p done_pid "${!running[@]}" || true
	finish "$done_pid"
done
trap - INT TERM

failed=0
declare -A result reason times
for k in "${kernels[@]}"; do
	result[$k]=$(cat "$V/$k/result" 2>/dev/null || echo FAIL)
	reason[$k]=$(cat "$V/$k/reason" 2>/dev/null || echo "job died without a result")
	times[$k]=$(cat "$V/$k/times" 2>/dev/null || echo '?')
	[[ ${result[$k]} == PASS ]] || failed=1
done

printf '\nvmtest summary (%d s, %d at a time; logs in %s/<kernel>/)\n' $((SECONDS - t0)) "$jobs_max" "$V"
printf '%-22s %-6s %-16s %-6s %s\n' kernel result 'kernel+ko+boot s' 'cpu s' 'reasons'
for k in "${kernels[@]}"; do
	printf '%-22s %-6s %-16s %-6s %s\n' "$k" "${result[$k]}" "${times[$k]}" \
		"$(mcs_cpu_seconds "$V/$k/cpu.times" || true)" "${reason[$k]}"
done
echo "guest time per step (seconds of guest uptime, slowest first):"
for k in "${kernels[@]}"; do
	echo "  $k: $(mcs_progress_phases "$V/$k/console.log")"
done
((failed == 0)) || exit 1
echo "vmtest: all passed"
