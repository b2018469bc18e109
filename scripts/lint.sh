#!/bin/bash
# lint.sh (`make lint`): checkpatch --strict on every .c/.h of the module
# and sparse (Kbuild C=2) against the UML tree; zero warnings allowed.
#
# Justified checkpatch exceptions, one per line below (also in the README):
#   compat.h NEW_TYPEDEFS         local_trylock_t is a typedef in the kernel; the
#                                 compat type must be one too
#   compat.h LINUX_VERSION_CODE   compat.h is the one place for version checks
#   compat.h CONSTANT_COMPARISON  idem (LINUX_VERSION_CODE >= KERNEL_VERSION())
#   trace.h PARENTHESIS_ALIGNMENT,OPEN_ENDED_LINE  the TRACE_EVENT() layout of
#                                 include/trace/events/*.h
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

declare -A ignore=(
	[compat.h]=NEW_TYPEDEFS,LINUX_VERSION_CODE,CONSTANT_COMPARISON
	[trace.h]=PARENTHESIS_ALIGNMENT,OPEN_ENDED_LINE
)

src=$("$here/fetch-source.sh" 7)
fail=0
cd "$MCS_SRC"
mapfile -t files < <(git ls-files '*.c' '*.h' 2>/dev/null | grep -v '^selftests/' ||
	find . -name '*.c' -o -name '*.h' | grep -v -e '^./selftests/' -e '^./.out/')
for f in "${files[@]}"; do
	f=${f#./}
	args=(--strict --no-tree --quiet --show-types -f)
	[[ -n ${ignore[$f]:-} ]] && args+=(--ignore "${ignore[$f]}")
	if ! out=$("$src/scripts/checkpatch.pl" "${args[@]}" "$f" 2>&1) || [[ -n $out ]]; then
		printf '%s\n' "$out"
		fail=1
	fi
done
((fail == 0)) && log "checkpatch: ${#files[@]} files clean"

# sparse through Kbuild against the (cached) UML build
B=$("$here/build-uml.sh")
M=$(mcs_build_module "$B" uml-sparse ARCH=um)
touch "$M"/*.c "$M"/kunit/*.c
make -s -C "$B" M="$M" ARCH=um C=2 CHECK=sparse modules >"$MCS_OUT/sparse.log" 2>&1 ||
	{ cat "$MCS_OUT/sparse.log"; die "sparse build failed"; }
if grep -E '(warning|error):' "$MCS_OUT/sparse.log"; then
	fail=1
else
	log "sparse: clean"
fi
((fail == 0)) || die "lint found problems (above)"
