#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# build-selftests.sh OUTDIR SRCTREE: compile every selftests/*.c into a static
# binary OUTDIR/<name> through selftests/Makefile (OUTPUT=OUTDIR), with
# kselftest.h from the kernel source tree SRCTREE (KSFT_DIR).
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
# selftests/Makefile, the kselftest-style build a user runs, applied to the
# tested tree's sources
make -s -C "$modsrc/selftests" -f "$MCS_SRC/selftests/Makefile" KSFT_DIR="$inc" OUTPUT="$out" >&2 ||
	die "the selftests failed to compile (make -C selftests)"
log "built ${#srcs[@]} selftest(s) into $out"
