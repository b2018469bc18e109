#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Progress lines and closing summaries of the long rig jobs (make check,
# make soak, make bench): sourced after lib.sh.  Run as a command,
# `scripts/rig/progress.sh COMMAND [ARGS...]` runs COMMAND with progress lines,
# e.g. scripts/rig/progress.sh scripts/rig/kunit-uml.sh.
#
#   mcs_progress_start LABEL   print a line every MCS_PROGRESS_SECONDS
#                              (default 30; 0: none) to stderr until
#                              mcs_progress_stop: LABEL, the elapsed time,
#                              the stages still running (make check), every
#                              guest whose console moved in the last two
#                              minutes with its current test, and every
#                              kernel build in progress with its object
#                              count and last compiled file, each with its
#                              log
#   mcs_progress_stop          end the watcher (call it from an EXIT trap)
#   mcs_progress_summary KIND  test counts per kernel of a finished job
#                              (KIND: check or soak) from its logs in
#                              $MCS_OUT
#
# Everything is read from the logs the jobs write anyway: the watcher adds
# no hook to the guests and costs a few greps every 30 s.

MCS_PROGRESS_PID=

# mcs_progress_rel PATH: PATH relative to the tree or the cache, for short lines
mcs_progress_rel() {
	local p=$1
	p=${p#"$MCS_SRC"/}
	p=${p/#"$MCS_CACHE"/\$MCS_CACHE}
	echo "$p"
}

# mcs_progress_mmss SECONDS
mcs_progress_mmss() { printf '%d:%02d' $(($1 / 60)) $(($1 % 60)); }

# mcs_progress_guest LOG: the test a guest's console log shows running now,
# and the last stress case that ended there
mcs_progress_guest() {
	local f=$1 line stress what
	line=$(grep -a -E '^(mcs-init: |MCS-SELFTEST-(BEGIN|END) |MCS-KTAP-(BEGIN|END)|MCS-RUN-(BEGIN|END)|MCS-SOAK |MCS-BOOT |MCS-VERDICT|bench \[)' \
		"$f" 2>/dev/null | tail -1 || true)
	stress=$(grep -a -o -E 'memcg_stock: stress: [a-z_]+ (PASS|FAIL)' "$f" 2>/dev/null | tail -1 || true)
	case $line in
	'mcs-init: '*) what=${line#mcs-init: } ;;
	'MCS-SELFTEST-BEGIN '*) what="selftest ${line#MCS-SELFTEST-BEGIN }" ;;
	'MCS-SELFTEST-END '*) what="after selftest ${line#MCS-SELFTEST-END }" ;;
	MCS-KTAP-BEGIN) what="KUnit suites" ;;
	MCS-KTAP-END) what="KUnit done, selftests next" ;;
	MCS-RUN-BEGIN) what="stress run" ;;
	'MCS-RUN-END'*) what="stress run done" ;;
	'MCS-BOOT '*)
		# the KUnit suites run while memcg_stock_test loads
		what=$(grep -a -o -E '# Subtest: mcs_[a-z_]+' "$f" 2>/dev/null | tail -1 || true)
		what=${what:+KUnit suite ${what#\# Subtest: }}
		what=${what:-booted, loading the module} ;;
	MCS-VERDICT*) what="finished: ${line#MCS-}" ;;
	'') what=booting ;;
	*) what=$(cut -c1-60 <<<"$line") ;;
	esac
	echo "$what${stress:+, last stress case ${stress#memcg_stock: stress: }}"
}

# mcs_progress_line LABEL T0: one progress line
mcs_progress_line() {
	local label=$1 t0=$2 parts=() f n now what last
	now=$(date +%s)
	# make check: the stages without an exit status yet
	if [[ -d $MCS_OUT/check ]]; then
		for f in "$MCS_OUT"/check/*.log; do
			[[ -e $f && ! -e ${f%.log}.rc ]] || continue
			parts+=("stage ${f##*/} running ($(mcs_progress_rel "$f"))")
			parts[-1]=${parts[-1]/.log running/ running}
		done
	fi
	# guests whose console moved in the last two minutes
	while IFS= read -r f; do
		[[ -n $f ]] || continue
		what=$(mcs_progress_guest "$f")
		[[ $what == finished* || $what == done* ]] && continue
		f=$(mcs_progress_rel "$f")
		parts+=("guest ${f#.out/}: $what ($f)")
		parts[-1]=${parts[-1]/\/console.log: /: }
	done < <(find "$MCS_OUT" -name console.log -mmin -2 2>/dev/null | sort)
	# kernel builds in progress (UML and our debug kernels)
	while IFS= read -r f; do
		[[ -n $f ]] || continue
		n=$(grep -c -E '^  (CC|AS)  ' "$f" 2>/dev/null || true)
		last=$(grep -E '^  CC  ' "$f" 2>/dev/null | tail -1 | awk '{print $2}' || true)
		f=$(mcs_progress_rel "$f")
		parts+=("kernel build ${f%/build.log}: ${n:-0} objects${last:+, last $last} ($f)")
	done < <(find "$MCS_CACHE/uml" "$MCS_CACHE/debugk" -maxdepth 2 -name build.log -mmin -2 \
		2>/dev/null | sort)
	# module builds (lib.sh mcs_build_module: one directory per kernel)
	while IFS= read -r f; do
		[[ -n $f ]] && parts+=("module build ${f##*/} ($(mcs_progress_rel "$f"))")
	done < <(find "$MCS_BUILDS" -mindepth 1 -maxdepth 1 -type d -mmin -1 2>/dev/null | sort)
	((${#parts[@]})) || parts=("no guest or build active (downloads, unpacking or checks)")
	local IFS=';'
	log "progress: $label, $(mcs_progress_mmss $((now - t0))) elapsed:${parts[*]/#/ }"
}

mcs_progress_start() {
	local label=$1 every=${MCS_PROGRESS_SECONDS:-30} t0
	[[ $every =~ ^[0-9]+$ ]] || die "MCS_PROGRESS_SECONDS=$every: expected seconds"
	((every > 0)) || return 0
	t0=$(date +%s)
	(
		trap 'kill "$sp" 2>/dev/null; exit 0' TERM
		while :; do
			sleep "$every" &
			sp=$!
			wait "$sp"
			mcs_progress_line "$label" "$t0" || true
		done
	) &
	MCS_PROGRESS_PID=$!
}

mcs_progress_stop() {
	[[ -n $MCS_PROGRESS_PID ]] || return 0
	kill "$MCS_PROGRESS_PID" 2>/dev/null || true
	wait "$MCS_PROGRESS_PID" 2>/dev/null || true
	MCS_PROGRESS_PID=
}

# mcs_progress_kunit DIR: "KUnit P passed, F failed, S skipped" from
# DIR/kunit.json (kunit.py parse), or from a KTAP file in DIR
mcs_progress_kunit() {
	local d=$1
	if [[ -s $d/kunit.json ]]; then
		python3 -c 'import json, sys
m = json.load(open(sys.argv[1]))["misc"]
print("KUnit %d passed, %d failed, %d skipped" % (m["passed"], m["failed"] + m["crashed"], m["skipped"]))' \
			"$d/kunit.json" 2>/dev/null && return 0
	fi
	if [[ -s $d/ktap.txt ]]; then
		# test cases only: the suites' own result lines are not indented
		awk '/^[ \t]+ok / { if (/# SKIP/) s++; else p++ } /^[ \t]+not ok / { f++ }
			END { printf "KUnit %d passed, %d failed, %d skipped\n", p, f, s }' "$d/ktap.txt"
		return 0
	fi
	echo "KUnit not run"
}

# mcs_progress_console LOG: selftest TAP lines and the stress cases that failed
# (a passing case is only in its run's results file) in a console log
mcs_progress_console() {
	awk '
	/MCS-KTAP-BEGIN/ { k = 1 } /MCS-KTAP-END/ { k = 0 }
	!k && /^(ok|not ok) [0-9]/ { if (/^not ok/ && !/# SKIP/) bad++; else if (/# SKIP/) skip++; else ok++ }
	/memcg_stock: stress: [a-z_]+ FAIL/ { sf++ }
	END { printf "selftests %d ok, %d not ok, %d skipped; stress cases failed in the log: %d\n",
		ok, bad, skip, sf }' "$1" 2>/dev/null
}

# mcs_progress_phases LOG: where a guest's time went, from its MCS-PHASE
# lines (seconds of guest uptime per step, slowest first, then the sum)
mcs_progress_phases() {
	grep -a -E '^MCS-PHASE [^ ]+ [0-9.]+$' "$1" 2>/dev/null | sort -k3,3 -rn |
		awk '{ printf "%s %.0f s, ", $2, $3; tot += $3 }
		END { if (NR) printf "total %.0f s\n", tot
		      else print "none recorded (the guest ended before its first step)" }'
}

# mcs_progress_summary KIND [SINCE]: per-kernel counts of a finished check
# or soak; with SINCE (a file or directory made at the job's start), only
# the guests that ran after it
mcs_progress_summary() {
	local kind=$1 since=${2:-} d k
	log "summary: test counts per kernel (from the logs in $(mcs_progress_rel "$MCS_OUT"))"
	case $kind in
	check)
		d=$MCS_OUT/uml
		if [[ -f $d/results/results.txt && ( -z $since || $d/results/results.txt -nt $since ) ]]; then
			log "  uml: $(mcs_progress_kunit "$d/results"); $(cat "$d"/results/selftest-*.tap \
				"$d"/results/selftests-dmesg.log 2>/dev/null | mcs_progress_console -) ($(mcs_progress_rel "$d/console.log"))"
		fi
		for d in "$MCS_OUT"/vm/*/; do
			d=${d%/}
			[[ -f $d/console.log && ( -z $since || $d/console.log -nt $since ) ]] || continue
			k=${d##*/}
			log "  $k: $(cat "$d/result" 2>/dev/null || echo '?'); $(mcs_progress_kunit "$d"); $(mcs_progress_console "$d/console.log") ($(mcs_progress_rel "$d/console.log"))"
			log "    $k phases: $(mcs_progress_phases "$d/console.log")"
		done
		;;
	soak)
		for d in "$MCS_OUT"/soak/*/; do
			d=${d%/}
			[[ -f $d/console.log && ( -z $since || $d/console.log -nt $since ) ]] || continue
			k=${d##*/}
			log "  $k: $(grep -a -m1 -o 'MCS-SOAK passed [0-9]*/[0-9]*' "$d/console.log" | sed 's/MCS-SOAK passed/stress runs PASS/' || echo 'no stress run'); $(mcs_progress_kunit "$d"); $(mcs_progress_console "$d/console.log") ($(mcs_progress_rel "$d/console.log"))"
		done
		;;
	esac
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
	set -euo pipefail
	. "$(dirname "$0")/lib.sh"
	(($#)) || die "usage: scripts/rig/progress.sh COMMAND [ARGS...]"
	mcs_progress_start "$*"
	trap mcs_progress_stop EXIT
	"$@"
fi
