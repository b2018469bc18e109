#!/bin/bash
# check.sh (`make check`): every test stage, in turn, even after a failure,
# then one closing line "N passed, N failed" (stages); non-zero on failure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

stages=(lint.sh kunit-uml.sh vmtest.sh compile-check.sh dkms-check.sh)
passed=0 failed=0 failures=()
t0=$SECONDS
for s in "${stages[@]}"; do
	ts=$SECONDS
	log "check: ==== ${s%.sh} ===="
	if "$here/$s"; then
		passed=$((passed + 1))
		log "check: ${s%.sh} passed ($((SECONDS - ts)) s)"
	else
		failed=$((failed + 1))
		failures+=("${s%.sh}")
		log "check: ${s%.sh} FAILED ($((SECONDS - ts)) s)"
	fi
done
log "check: total $((SECONDS - t0)) s${failures[*]:+; failed: ${failures[*]}}"
echo "check: $passed passed, $failed failed"
((failed == 0))
