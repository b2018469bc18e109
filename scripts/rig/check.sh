#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# check.sh (`make check`): every test stage, even after a failure, then one
# closing line "N passed, N failed" (stages); non-zero on failure.
#
# The stages run concurrently where they can: prepare-kernels (builds the
# UML kernel and the qemu kernels, or finds them cached), lint and
# kunit-uml start together; kunit-uml boots UML as soon as its kernel is
# built (build-uml.sh: one build, the other caller waits for it), while the
# debug kernels may still compile: the kernel builds run at nice 19
# (lib.sh mcs_kernel_build_nice), so they do not starve the guest's timed
# cases.  vmtest (qemu guests, VM_JOBS at a time) starts when
# prepare-kernels ends; dkms-check follows kunit-uml, compile-check follows
# dkms-check: by then vmtest has prepared its kernels and compile-check
# reuses the 6.12 ones.  lint, vmtest and dkms-check share one module build
# against Debian's 6.12 headers (lib.sh mcs_build_module).  The guests
# spend most of their time in fixed wall-clock durations (fuzzing,
# timed stress runs), so overlapping them cuts the wall time on 2 cores.
# Each stage writes its own log, $MCS_OUT/check/<stage>.log; a line is
# printed as each stage ends, and the whole log of every failed stage is
# printed at the end, one after the other.  Then scripts/rig/ran-nowhere.py
# reads the results of every guest of the run: a test that all of them
# skipped fails make check unless scripts/rig/soak-only.txt names it (make soak
# runs those); the list goes to $MCS_OUT/check/ran-nowhere.txt.
# Every MCS_PROGRESS_SECONDS (default 30) a progress line names the stages
# still running, the guests and their current test, the kernel builds with
# their object count, each with its log (scripts/rig/progress.sh); the end
# prints the test counts per kernel, the stages slowest first and the logs.
#   CHECK_PARALLEL=0  one stage after the other, e.g. to measure each stage
#                     alone; the logs are then printed as they come
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/progress.sh"

stages=(prepare-kernels.sh lint.sh kunit-uml.sh vmtest.sh compile-check.sh dkms-check.sh)
# stage -> the stage it must wait for (it runs even if that one failed)
declare -A after=([vmtest.sh]=prepare-kernels.sh
	[dkms-check.sh]=kunit-uml.sh
	[compile-check.sh]=dkms-check.sh)
# Stages without a timed case run at nice 5: on 2 cores the guests of
# vmtest, the longest stage, get more of the CPU and these still end
# before it (at nice 10 they ended after it, later than without nice).
# kunit-uml's guest has timed cases: not niced.
declare -A nice_of=([lint.sh]=5 [dkms-check.sh]=5 [compile-check.sh]=5)
# where a stage's script lies: the rig's here, the repository's checks in
# scripts/checks
declare -A dir_of=([lint.sh]=$MCS_SCRIPTS/checks)
parallel=${CHECK_PARALLEL:-1}
L=$MCS_OUT/check
rm -rf "$L"
mkdir -p "$L"
touch "$L/.start"	# the summary counts the guests that ran after it
passed=0 failed=0 failures=()
declare -A start=() pid_of=() status=() dur=() cpu=()
t0=$SECONDS
mcs_progress_start "make check"
trap mcs_progress_stop EXIT

# done_stage STAGE RC
done_stage() {
	local s=$1 rc=$2 n=${1%.sh}
	status[$s]=$rc
	dur[$s]=$((SECONDS - start[$s]))
	cpu[$s]=$(mcs_cpu_seconds "$L/$n.times")
	if ((rc == 0)); then
		passed=$((passed + 1))
		log "check: $n passed ($((SECONDS - start[$s])) s)"
	else
		failed=$((failed + 1))
		failures+=("$n")
		log "check: $n FAILED ($((SECONDS - start[$s])) s; log $L/$n.log)"
	fi
}

if [[ $parallel == 0 ]]; then
	for s in "${stages[@]}"; do
		start[$s]=$SECONDS
		log "check: ==== ${s%.sh} ===="
		rc=0
		( "${dir_of[$s]:-$here}/$s" && times > "$L/${s%.sh}.times" ) || rc=$?
		done_stage "$s" "$rc"
	done
else
	trap 'mcs_progress_stop; for p in "${pid_of[@]}"; do mcs_kill_tree "$p"; done' INT TERM
	# Each stage writes its exit status to $L/<stage>.rc when it ends; the
	# loop polls for those files (bash's `wait -n -p` lost a job here once,
	# "no such job", and took check.sh down with it).
	running=()
	launch() {
		local n=${1%.sh}
		start[$1]=$SECONDS
		log "check: $n started (log $L/$n.log)"
		rm -f "$L/$n.rc"
		( rc=0; ${nice_of[$1]:+nice -n "${nice_of[$1]}"} "${dir_of[$1]:-$here}/$1" > "$L/$n.log" 2>&1 || rc=$?
		  times > "$L/$n.times"
		  echo "$rc" > "$L/$n.rc.tmp"
		  mv "$L/$n.rc.tmp" "$L/$n.rc" ) &
		pid_of[$1]=$!
		running+=("$1")
	}
	pending=()
	for s in "${stages[@]}"; do
		if [[ -n ${after[$s]:-} ]]; then pending+=("$s"); else launch "$s"; fi
	done
	declare -A ended=()
	while ((${#running[@]})); do
		sleep 2
		for s in "${running[@]}"; do
			[[ -z ${ended[$s]:-} && -f $L/${s%.sh}.rc ]] || continue
			ended[$s]=1
			wait "${pid_of[$s]}" 2>/dev/null || true
			done_stage "$s" "$(cat "$L/${s%.sh}.rc")"
			rest=()
			for p in "${pending[@]}"; do
				if [[ ${after[$p]} == "$s" ]]; then launch "$p"; else rest+=("$p"); fi
			done
			pending=("${rest[@]}")
		done
		still=()
		for s in "${running[@]}"; do
			[[ -n ${ended[$s]:-} ]] || still+=("$s")
		done
		running=("${still[@]}")
	done
	trap - INT TERM
	# the logs of the failed stages, whole and one at a time
	for s in "${stages[@]}"; do
		((${status[$s]} == 0)) && continue
		printf '\n===== %s FAILED: %s =====\n' "${s%.sh}" "$L/${s%.sh}.log" >&2
		cat "$L/${s%.sh}.log" >&2
		printf '===== end of %s =====\n' "${s%.sh}" >&2
	done
fi
mcs_progress_stop
times=
for s in "${stages[@]}"; do times+=" ${s%.sh}=${dur[$s]}s${cpu[$s]:+/${cpu[$s]}cpu-s}"; done
log "check: stage times (wall/CPU of the stage's processes):$times"
mcs_progress_summary check "$L/.start"
# the tests that every guest of this run skipped: each must be soak-only
guests=()
for d in "$MCS_OUT/uml" "$MCS_OUT"/vm/*/; do
	[[ $d/console.log -nt $L/.start ]] && guests+=("$d")
done
if ((${#guests[@]})); then
	if python3 "$here/ran-nowhere.py" --soak-only "$here/soak-only.txt" "${guests[@]}" \
		> "$L/ran-nowhere.txt"; then
		log "check: $(head -1 "$L/ran-nowhere.txt")"
	else
		sed 's/^/  /' "$L/ran-nowhere.txt" >&2
		log "check: ran-nowhere FAILED: a test that every guest skipped is not soak-only (scripts/rig/soak-only.txt)"
		failed=$((failed + 1))
		failures+=(ran-nowhere)
	fi
fi
slow=$(for s in "${stages[@]}"; do echo "${dur[$s]} ${s%.sh}"; done | sort -rn | head -3 |
	awk '{ printf "%s%s %d s", (NR > 1 ? ", " : ""), $2, $1 }')
log "check: slowest stages: $slow"
log "check: logs: $L/<stage>.log; guests: $MCS_OUT/uml/console.log, $MCS_OUT/vm/<kernel>/console.log"
log "check: total $((SECONDS - t0)) s${failures[*]:+; failed: ${failures[*]}}"
echo "check: $passed passed, $failed failed"
((failed == 0))
