#!/bin/bash
# build-selftests.sh OUTDIR SRCTREE: compile every selftests/*.c into a static
# binary OUTDIR/<name>, with kselftest.h from the kernel source tree SRCTREE.
# Nothing to do (exit 0) when there are no selftests.
# MCS_MODULE_SRC (optional) points at another module tree (rig self-tests).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=${1:?usage: build-selftests.sh OUTDIR SRCTREE}
srctree=${2:?usage: build-selftests.sh OUTDIR SRCTREE}
modsrc=${MCS_MODULE_SRC:-$MCS_SRC}
inc=$srctree/tools/testing/selftests
[[ -f $inc/kselftest.h ]] || die "no $inc/kselftest.h"

shopt -s nullglob
srcs=("$modsrc"/selftests/*.c)
if ((${#srcs[@]} == 0)); then
	log "no selftests in $modsrc/selftests"
	exit 0
fi
mkdir -p "$out"
for f in "${srcs[@]}"; do
	name=$(basename "$f" .c)
	gcc -static -O2 -Wall -I"$inc" -o "$out/$name" "$f" >&2 ||
		die "selftest $name failed to compile"
done
log "built ${#srcs[@]} selftest(s) into $out"
