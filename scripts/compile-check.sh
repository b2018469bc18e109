#!/bin/bash
# compile-check.sh (`make compile-6.1`): build memcg_stock.ko with W=1 against
# Debian bookworm's 6.1 headers, and against Debian's 6.12 amd64 and rt-amd64
# headers unless `make vmtest` already built the same sources for those.
# Fails on any compiler or modpost warning or error.  Logs:
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

# up_to_date KO: KO was built from this tree and is newer than its sources
up_to_date() {
	[[ -f $1 ]] || return 1
	[[ $(cat "$(dirname "$1")/source" 2>/dev/null) == "$MCS_SRC" ]] || return 1
	[[ -z $(find "$MCS_SRC" -path "$MCS_SRC/.out" -prune -o -path "$MCS_SRC/scripts" -prune -o \
		-path "$MCS_SRC/selftests" -prune -o \
		\( -name '*.[ch]' -o -name Kbuild \) -newer "$1" -print | head -1) ]]
}

targets=(6.1)
for f in amd64 rt-amd64; do
	if up_to_date "$MCS_OUT/vm/deb-$f/mod/memcg_stock.ko"; then
		log "6.12 $f: already built by vmtest from the current sources"
	else
		targets+=("$f")
	fi
done

failed=()
for t in "${targets[@]}"; do
	kd=$("$here/fetch-debian-kernel.sh" "$t")
	abi=$(basename "$kd")
	logf=$C/$t.log
	rc=0
	# from scratch (not seeded from another tree either): an up-to-date
	# object would not show its warnings again
	rm -rf "${MCS_BUILDS:?}/compile-$t"
	MCS_BUILD_SEED=0 mcs_build_module "$kd/build" "compile-$t" W=1 > /dev/null 2> "$logf" || rc=$?
	cat "$logf" >&2
	if ((rc)); then
		failed+=("$abi: build failed")
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
