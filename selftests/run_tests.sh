#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# run_tests.sh: the memcg_stock suite on the running kernel, kselftest style.
# As root, on a machine or VM that runs the kernel the module was built for:
# loads memcg_stock.ko (and memcg_stock_test.ko, the KUnit suites, when the
# module was built for a kernel with KUnit), runs every selftest program,
# collects the KUnit report (KTAP) from debugfs, unloads, checks kmemleak,
# lockdep and taint, and scans what the kernel logged since the start for
# splats (the patterns of splat.re).  It prints TAP and exits like
# kselftest: 0 pass, 1 fail, 4 skip (a prerequisite is missing; the reason
# is on the plan line).  `make run_tests` builds what is missing and runs it.
#
# usage: run_tests.sh [-m MODDIR] [-s SELFTESTDIR] [-o OUTDIR] [-r SCRIPT]
#   -m  where memcg_stock.ko (and memcg_stock_test.ko) are; default: the
#       directory above this script, where `make` puts them
#   -s  the selftest programs; default: this script's directory, where
#       `make -C selftests` puts them
#   -o  where the logs go (kernel log, KTAP, kmemleak, failures); default:
#       a new directory under ${TMPDIR:-/tmp}, printed at the end
#   -r  run SCRIPT (with sh) instead of the selftests: the test rig's stress
#       and benchmark guests
# Environment: MCS_SELFTEST_TIMEOUT (seconds per selftest, default 900, at
# least MCS_FUZZ_SECONDS + 120),
# MCS_FUZZ_SECONDS (selftest mcs_fuzz, default 60), MCS_SPLAT_BENIGN
# (a regex of more log lines that are no splat), MCS_MARKERS=1 (print the
# marker lines the test rig judges a guest by, scripts/rig/mkinitramfs.sh),
# MCS_MODDIR (the default of -m), MCS_SAFE=1 (a machine you cannot spare:
# only the selftests of safe_tests below run, the others and the KUnit suites
# SKIP: they take CPUs offline, inject allocation failures or reload the
# module).
#
# Written for any POSIX sh with busybox or coreutils: the rig's guests run
# it under busybox.

here=$(cd "$(dirname "$0")" && pwd)
moddir=${MCS_MODDIR:-$(dirname "$here")}
# the selftests that take no CPU offline, inject no fault and reload nothing
safe_tests="mcs_selftest mcs_trace stress_badinput"
safe=${MCS_SAFE:-0}
stdir=$here
outdir=
runscript=
usage() {
	cat >&2 <<EOF
usage: $0 [-m MODDIR] [-s SELFTESTDIR] [-o OUTDIR] [-r SCRIPT]
  -m  memcg_stock.ko and memcg_stock_test.ko (default: $moddir)
  -s  the selftest programs (default: $stdir)
  -o  where the logs go (default: a new directory under ${TMPDIR:-/tmp})
  -r  run SCRIPT with sh instead of the selftests
Environment: MCS_SELFTEST_TIMEOUT, MCS_FUZZ_SECONDS, MCS_SPLAT_BENIGN, MCS_MARKERS,
MCS_MODDIR, MCS_SAFE=1 (no hotplug, fault injection or reloads).
Exit: 0 pass, 1 fail, 4 skip (the reason is on the plan line).
EOF
	exit "${1:-2}"
}
while getopts m:s:o:r:h opt; do
	case $opt in
	m) moddir=$OPTARG ;;
	s) stdir=$OPTARG ;;
	o) outdir=$OPTARG ;;
	r) runscript=$OPTARG ;;
	h) usage 0 ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || usage

DBG=/sys/kernel/debug
KO=$moddir/memcg_stock.ko
TKO=$moddir/memcg_stock_test.ko
markers=${MCS_MARKERS:-0}
st_timeout=${MCS_SELFTEST_TIMEOUT:-900}
fuzz_s=${MCS_FUZZ_SECONDS:-60}
# the fuzzer needs its time plus its verdict phase inside the per-test bound
case $fuzz_s in
*[!0-9]* | '') ;;
*) [ "$st_timeout" -ge $((fuzz_s + 120)) ] 2>/dev/null || st_timeout=$((fuzz_s + 120)) ;;
esac

echo "TAP version 13"
# skip_all REASON: a prerequisite is missing: nothing was run
skip_all() {
	echo "1..0 # SKIP $*"
	[ "$markers" = 1 ] && echo "MCS-FAIL skipped: $*"
	exit 4
}

# ---- prerequisites: SKIP (exit 4) with the reason ---------------------------
[ "$(id -u)" = 0 ] || skip_all "not root: loading modules needs root"
[ -r /proc/modules ] || skip_all "kernel without module support (CONFIG_MODULES)"
grep -qw debugfs /proc/filesystems 2>/dev/null ||
	skip_all "kernel without debugfs (CONFIG_DEBUG_FS): the harness lives there"
if ! grep -q " $DBG debugfs " /proc/mounts; then
	mount -t debugfs debugfs $DBG 2>/dev/null ||
		skip_all "debugfs is not mounted on $DBG and cannot be"
fi
[ -f "$KO" ] || skip_all "no $KO: build it first (make, or make KDIR=...)"
krel=$(uname -r)
# vermagic_of KO: the kernel release a module was built for (read from
# the file: busybox's modinfo wants a /lib/modules the guests lack)
vermagic_of() {
	tr '\000' '\n' <"$1" | sed -n 's/^vermagic=\([^ ]*\).*/\1/p' | head -1
}
built=$(vermagic_of "$KO")
[ -n "$built" ] || skip_all "no vermagic in $KO: not a kernel module"
[ "$built" = "$krel" ] ||
	skip_all "$KO was built for $built, this kernel is $krel: build it with KDIR= this kernel's build tree"
grep -q '^memcg_stock ' /proc/modules &&
	skip_all "memcg_stock is loaded already: rmmod it first"
selftests=
if [ -z "$runscript" ]; then
	for t in "$stdir"/*; do
		[ -f "$t" ] && [ -x "$t" ] || continue
		# names only (the directory may contain blanks); ours have none
		case ${t##*/} in
		*.sh | *.re | *.awk | *.c | *.h | Makefile | *[[:space:]]*) continue ;;
		esac
		selftests="$selftests ${t##*/}"
	done
	# mcs_fuzz and load_faults last, in that order: both inject allocation
	# failures into loads, and the kernel's failure paths may leave one of
	# the module's trace events broken for the rest of the boot (6.12 and
	# 7.x, see splat-alloc.awk), which would fail mcs_trace after them
	for t in mcs_fuzz load_faults; do
		case " $selftests " in
		*" $t "*) selftests="$(echo " $selftests " | sed "s/ $t / /;s/ *$//") $t" ;;
		esac
	done
	[ -n "$selftests" ] || skip_all "no selftest programs in $stdir: build them (make -C selftests)"
else
	[ -r "$runscript" ] || skip_all "no script $runscript"
fi

if [ -z "$outdir" ]; then
	outdir=$(mktemp -d "${TMPDIR:-/tmp}/memcg_stock-run_tests.XXXXXX") || exit 1
fi
mkdir -p "$outdir" || exit 1
: >"$outdir/failures"
: >"$outdir/dmesg.txt"

# ---- the plan: load, kunit, each selftest (or the script), unload,
# kmemleak, lockdep, taint, kernel log
n=0
for t in $selftests; do n=$((n + 1)); done
[ -n "$runscript" ] && n=1
echo "1..$((n + 7))"
num=0 npass=0 nfail=0 nskip=0
ok() { num=$((num + 1)); npass=$((npass + 1)); echo "ok $num $*"; }
skip() { num=$((num + 1)); nskip=$((nskip + 1)); echo "ok $num $1 # SKIP $2"; }
notok() {
	num=$((num + 1)); nfail=$((nfail + 1))
	echo "not ok $num $*"
	echo "$*" >>"$outdir/failures"
	[ "$markers" = 1 ] && echo "MCS-FAIL $*"
}
marker() { [ "$markers" = 1 ] && echo "$*"; return 0; }
# phase NAME: a marker line "MCS-PHASE NAME SECONDS" with the time since the
# last one (the first counts from boot), read from /proc/uptime: the rig
# prints where each guest's time went
up_now() { cut -d' ' -f1 /proc/uptime; }
phase_t=0
phase() {
	t=$(up_now)
	marker "MCS-PHASE $1 $(awk -v a="$phase_t" -v b="$t" 'BEGIN { printf "%.1f", b - a }')"
	phase_t=$t
}
# comment FILE: a file as TAP diagnostics (raw under the rig's markers,
# whose host-side judge reads the lines as they are)
comment() {
	if [ "$markers" = 1 ]; then cat "$1"; else sed 's/^/# /' "$1"; fi
}

# ---- the kernel log since the start, without clearing it: the log is cut
# at marks this script writes to /dev/kmsg, collected after every step
# (so that a ring buffer that wraps during a long step loses the least)
tag="memcg_stock-run_tests.$$ mark"
mark=0
wrapped=0
kmsg_collect() {
	if [ $mark -gt 0 ]; then
		dmesg >"$outdir/.dmesg" 2>/dev/null
		if grep -q "$tag $mark\$" "$outdir/.dmesg"; then
			sed -n "/$tag $mark\$/,\$p" "$outdir/.dmesg" | sed 1d >>"$outdir/dmesg.txt"
		else
			# the mark is gone: the buffer wrapped, keep all that is left
			wrapped=1
			cat "$outdir/.dmesg" >>"$outdir/dmesg.txt"
		fi
		rm -f "$outdir/.dmesg"
	fi
	mark=$((mark + 1))
	echo "<7>$tag $mark" >/dev/kmsg 2>/dev/null
}
kmsg_collect

phase boot

# the state before the run: taint bits and lockdep already set do not count
taint0=$(cat /proc/sys/kernel/tainted)
dl0=
[ -r /proc/lockdep_stats ] && dl0=$(sed -n 's/^ *debug_locks: *//p' /proc/lockdep_stats)
KMEMLEAK=$DBG/kmemleak
if [ -w $KMEMLEAK ]; then
	# no automatic scans (every 10 min, each as long as ours): the run
	# scans when it needs to; then forget what was reported before: only
	# what follows counts
	echo scan=off >$KMEMLEAK 2>/dev/null
	echo scan >$KMEMLEAK 2>/dev/null
	echo clear >$KMEMLEAK 2>/dev/null
	phase kmemleak-start
fi

# ---- load -------------------------------------------------------------------
insmod "$KO"
rc=$?
marker "MCS-INSMOD memcg_stock rc=$rc"
if [ $rc -eq 0 ]; then
	ok "load memcg_stock.ko"
else
	notok "load memcg_stock.ko (insmod exit $rc)"
fi
kmsg_collect
phase insmod

# ---- KUnit ------------------------------------------------------------------
# ktap_debugfs: one KTAP document of every mcs_ suite's debugfs results
# (each file is a document of one suite: its header is dropped and its
# result line renumbered)
ktap_debugfs() {
	ns=0
	for d in "$DBG"/kunit/mcs_*; do [ -r "$d/results" ] && ns=$((ns + 1)); done
	[ $ns -gt 0 ] || return 1
	echo "KTAP version 1"
	echo "1..$ns"
	i=0
	for d in "$DBG"/kunit/mcs_*; do
		[ -r "$d/results" ] || continue
		i=$((i + 1))
		sed '1,2d' "$d/results" | sed "\$s/^\\(not \\)*ok 1 /\\1ok $i /"
	done
}
if [ $rc -ne 0 ]; then
	skip "kunit" "memcg_stock.ko did not load"
elif [ "$safe" = 1 ]; then
	skip "kunit" "MCS_SAFE=1: the suites take CPUs offline"
elif [ ! -f "$TKO" ]; then
	skip "kunit" "no memcg_stock_test.ko: the kernel it was built for has no KUnit (CONFIG_KUNIT)"
elif [ "$(vermagic_of "$TKO")" != "$krel" ]; then
	notok "kunit: $TKO was built for $(vermagic_of "$TKO"), not $krel"
else
	[ -d /sys/module/kunit ] || modprobe kunit 2>/dev/null
	insmod "$TKO"
	trc=$?
	marker "MCS-INSMOD memcg_stock_test rc=$trc"
	l0=$(wc -l <"$outdir/dmesg.txt")
	kmsg_collect
	# the suites ran during the insmod: debugfs has their report
	# (CONFIG_KUNIT_DEBUGFS), else the kernel log of the insmod has it
	src=debugfs
	if ! ktap_debugfs >"$outdir/kunit.ktap"; then
		src="kernel log"
		sed -n "$((l0 + 1)),\$p" "$outdir/dmesg.txt" |
			sed -e 's/^\[ *[0-9]*\.[0-9]*\] //' >"$outdir/kunit.ktap"
	fi
	marker "MCS-KTAP-BEGIN"
	comment "$outdir/kunit.ktap"
	marker "MCS-KTAP-END"
	suites=$(grep -cE '^(not )?ok [0-9]+ ' "$outdir/kunit.ktap")
	bad=$(grep -E '^not ok [0-9]+ ' "$outdir/kunit.ktap" | cut -d' ' -f4 | tr '\n' ' ')
	cases=$(grep -cE '^[[:space:]]+(not )?ok [0-9]+ ' "$outdir/kunit.ktap")
	if [ $trc -ne 0 ]; then
		notok "kunit: insmod memcg_stock_test.ko exit $trc"
	elif [ "$suites" -eq 0 ]; then
		notok "kunit: no suite result in the report ($src)"
	elif [ -n "$bad" ]; then
		notok "kunit: failed suite(s) $bad($src)"
	else
		ok "kunit: $suites suites, $cases cases ($src)"
	fi
	phase kunit
fi

# ---- the selftests (or the rig's script) -------------------------------------
# run_one NAME CMD...: one program, its output as diagnostics, its exit
# code kselftest's: 0 pass, 4 skip; a `not ok` line fails it too
run_one() {
	name=$1
	shift
	log=$outdir/selftest-$name.log
	marker "MCS-SELFTEST-BEGIN $name"
	# streamed as it comes (a guest that hangs still shows how far it got)
	{
		MCS_MODULE=$KO MCS_FUZZ_KO=$KO MCS_FUZZ_SECONDS=$fuzz_s \
			timeout "$st_timeout" "$@" 2>&1
		echo $? >"$outdir/.rc"
	} | tee "$log" | if [ "$markers" = 1 ]; then cat; else sed 's/^/# /'; fi
	src=$(cat "$outdir/.rc")
	rm -f "$outdir/.rc"
	marker "MCS-SELFTEST-END $name rc=$src"
	if [ "$src" -eq 124 ] || [ "$src" -eq 143 ]; then
		notok "selftest $name: timed out after $st_timeout s (exit $src)"
	elif grep -E '^[[:space:]]*not ok' "$log" | grep -qvE '# *(SKIP|skip)'; then
		notok "selftest $name: $(grep -cE '^[[:space:]]*not ok' "$log") 'not ok' line(s), exit $src"
	elif [ "$src" -eq 0 ]; then
		ok "selftest $name"
	elif [ "$src" -eq 4 ]; then
		skip "selftest $name" "$(grep -m1 -E 'SKIP' "$log" | sed 's/.*SKIP[: ]*//')"
	else
		notok "selftest $name: exit $src"
	fi
	kmsg_collect
	phase "$name"
}
if [ -n "$runscript" ]; then
	if [ $rc -eq 0 ]; then
		marker "MCS-RUN-BEGIN"
		MCS_MODULE=$KO MCS_FUZZ_KO=$KO sh "$runscript"
		src=$?
		marker "MCS-RUN-END rc=$src"
		phase run
		if [ $src -eq 0 ]; then ok "run ${runscript##*/}"; else notok "run ${runscript##*/}: exit $src"; fi
		kmsg_collect
	else
		skip "run ${runscript##*/}" "memcg_stock.ko did not load"
	fi
else
	for t in $selftests; do
		if [ "$safe" = 1 ] && ! echo " $safe_tests " | grep -q " $t "; then
			skip "selftest $t" "MCS_SAFE=1: it takes CPUs offline, injects faults or reloads the module"
		elif [ $rc -eq 0 ]; then
			run_one "$t" "$stdir/$t"
		else
			skip "selftest $t" "memcg_stock.ko did not load"
		fi
	done
fi

# ---- unload -----------------------------------------------------------------
ufail=
for mod in memcg_stock_test memcg_stock; do
	# a selftest may have unloaded it (and failed to load it again)
	if ! grep -q "^$mod " /proc/modules; then
		marker "MCS-RMMOD $mod not-loaded"
		continue
	fi
	rmmod $mod
	r=$?
	marker "MCS-RMMOD $mod rc=$r"
	[ $r -eq 0 ] || ufail="$ufail $mod"
done
if [ -n "$ufail" ]; then
	notok "unload: rmmod failed:$ufail"
elif [ $rc -eq 0 ]; then
	ok "unload"
else
	skip "unload" "memcg_stock.ko did not load"
fi
kmsg_collect
phase unload

# ---- kmemleak, lockdep, taint --------------------------------------------------
if [ -w $KMEMLEAK ]; then
	# objects younger than 5 s are never reported; two scans weed out
	# pointers that were only in flight
	sleep 5
	echo scan >$KMEMLEAK
	sleep 3
	echo scan >$KMEMLEAK
	cat $KMEMLEAK >"$outdir/kmemleak.txt"
	marker "MCS-KMEMLEAK-BEGIN"
	[ "$markers" = 1 ] && cat "$outdir/kmemleak.txt"
	marker "MCS-KMEMLEAK-END"
	# without the kernel's own leaks on injected failures (kmemleak-known.awk)
	all=$(grep -c 'unreferenced object' "$outdir/kmemleak.txt")
	leaks=$(awk -f "$here/kmemleak-known.awk" "$outdir/kmemleak.txt" |
		grep -c 'unreferenced object')
	if [ "$leaks" -eq 0 ]; then
		ok "kmemleak$([ "$all" -eq 0 ] || echo ": $all kernel leak(s) of injected failures, see kmemleak-known.awk")"
	else
		notok "kmemleak: $leaks suspected leak(s) ($outdir/kmemleak.txt)"
	fi
	phase kmemleak-end
else
	skip "kmemleak" "kernel without kmemleak (CONFIG_DEBUG_KMEMLEAK)"
fi
if [ -r /proc/lockdep_stats ]; then
	dl=$(sed -n 's/^ *debug_locks: *//p' /proc/lockdep_stats)
	marker "MCS-DEBUG-LOCKS $dl"
	if [ "$dl0" != 1 ]; then
		skip "lockdep" "lockdep was off before the run (debug_locks=$dl0)"
	elif [ "$dl" = 1 ]; then
		ok "lockdep: still on"
	else
		notok "lockdep: it fired, debug_locks=$dl"
	fi
else
	skip "lockdep" "kernel without lockdep (CONFIG_PROVE_LOCKING)"
fi
taint=$(cat /proc/sys/kernel/tainted)
# W (512) is the kernel's own when every WARNING in the log is one that an
# injected allocation failure provokes (splat-alloc.awk drops them all)
kmsg_collect
why=
if [ $((taint & ~taint0 & 512)) -ne 0 ] && grep -q 'WARNING:' "$outdir/dmesg.txt" &&
	! awk -f "$here/splat-alloc.awk" "$outdir/dmesg.txt" | grep -q 'WARNING:'; then
	taint=$((taint & ~512))
	why=", W from the kernel's reports of injected allocation failures"
fi
marker "MCS-TAINT $taint"
# allowed: O (4096) out-of-tree, E (8192) unsigned, N (262144) KUnit ran
new=$((taint & ~taint0 & ~(4096 | 8192 | 262144)))
if [ $new -eq 0 ]; then
	ok "taint: $taint (before the run: $taint0$why)"
else
	notok "taint: $taint, new flags $new beyond O, E, N"
fi

# ---- the kernel log since the start -------------------------------------------
kmsg_collect
re=$outdir/.splat
grep -v '^#' "$here/splat.re" >"$re.re" 2>/dev/null
grep -v '^#' "$here/splat-ok.re" >"$re.ok" 2>/dev/null
[ -n "${MCS_SPLAT_BENIGN:-}" ] && echo "$MCS_SPLAT_BENIGN" >>"$re.ok"
if [ ! -s "$re.re" ]; then
	notok "kernel log: no patterns in $here/splat.re to scan it with"
elif awk -f "$here/splat-alloc.awk" "$outdir/dmesg.txt" | awk -f "$here/splat-kcsan.awk" |
	grep -E -f "$re.re" | grep -v -E -f "$re.ok" >"$outdir/splats.txt"; then
	marker "MCS-SPLATS-BEGIN"
	comment "$outdir/splats.txt"
	marker "MCS-SPLATS-END"
	notok "kernel log: $(wc -l <"$outdir/splats.txt") splat line(s) ($outdir/splats.txt)"
else
	w=
	[ $wrapped = 1 ] && w=", the ring buffer wrapped: scanned what it kept"
	ok "kernel log: no splat in $(wc -l <"$outdir/dmesg.txt") lines$w"
fi
rm -f "$re.re" "$re.ok"
phase checks

echo "# Totals: pass:$npass fail:$nfail xfail:0 xpass:0 skip:$nskip error:0"
echo "# logs: $outdir"
[ $nfail -eq 0 ] || exit 1
exit 0
