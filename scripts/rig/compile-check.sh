#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# compile-check.sh (`make compile-check`, also `make compile-6.1`): build
# memcg_stock.ko with W=1 against Debian bookworm's 6.1 headers and Debian's
# 6.12 amd64 and rt-amd64 headers.
# Fails on any compiler, kernel-doc or modpost warning or error.
# Compiler and kernel-doc warnings are errors here (KCFLAGS=-Werror, which
# scripts/kernel-doc honours too), so an object that exists was built
# without one: the build directories may then be incremental and seeded
# from another tree's (lib.sh mcs_build_module; Kbuild rebuilds an object
# whose command line differs), and only what changed is compiled.  modpost
# runs again on every build (its Module.symvers is removed first).  Logs:
# $MCS_OUT/compile/<target>.log
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
if [[ -n ${MCS_MODULE_SRC:-} ]]; then
	MCS_SRC=$(cd "$MCS_MODULE_SRC" && pwd)
	export MCS_MODULE_SRC=$MCS_SRC
fi
C=$MCS_OUT/compile
mkdir -p "$C"

targets=(6.1 amd64 rt-amd64)
failed=()
for t in "${targets[@]}"; do
	kd=$("$here/fetch-debian-kernel.sh" "$t")
	abi=$(basename "$kd")
	logf=$C/$t.log
	rc=0
	rm -f "$MCS_BUILDS/compile-$t/Module.symvers"
	# (a subshell: mcs_build_module dies on a failed build)
	(KCFLAGS=-Werror mcs_build_module "$kd/build" "compile-$t" W=1) > /dev/null 2> "$logf" || rc=$?
	cat "$logf" >&2
	if ((rc)); then
		failed+=("$abi: build failed (W=1 warnings are errors here: see its log)")
	elif grep -q -E 'warning:|error:|WARNING:' "$logf"; then
		failed+=("$abi: $(grep -c -E 'warning:|error:|WARNING:' "$logf") warning(s)")
	else
		log "$abi: clean W=1 build"
	fi
done

if ((${#failed[@]})); then
	printf 'compile-check FAILED: %s\n' "${failed[@]}" >&2
	exit 1
fi
echo "compile-check: W=1 clean against ${targets[*]}"
