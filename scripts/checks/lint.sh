#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lint.sh (`make lint`): the docs check (docs-check.py: README.md, docs/
# and CHANGELOG.md say only what is true of this tree), the mode lists
# check (mode-lists.py: the lists of modes that must stay name only modes
# of the binding table), the parsing of `make replay-kernel`
# (replay-kernel.py --selftest), checkpatch --strict
# on every .c/.h of the module and of its selftests, sparse (Kbuild C=2)
# against Debian's 6.12 headers, and api-check.sh (layers, kernel-doc of the
# API, symbol namespace); zero warnings allowed.
#
# Justified checkpatch exceptions, one per line below:
#   objects/compat.h NEW_TYPEDEFS        local_trylock_t is a typedef in the kernel; the
#                                 compat type must be one too
#   objects/compat.h LINUX_VERSION_CODE  compat.h is the one place for version checks
#   objects/compat.h CONSTANT_COMPARISON idem (LINUX_VERSION_CODE >= KERNEL_VERSION())
#   objects/trace.h PARENTHESIS_ALIGNMENT,OPEN_ENDED_LINE  the TRACE_EVENT() layout of
#                                 include/trace/events/*.h
#   stocks/stock_designs.h COMPLEX_MACRO,MACRO_ARG_REUSE,MACRO_ARG_UNUSED,TRAILING_SEMICOLON,BRACKET_SPACE
#                                 the binding table is an X-macro list: each
#                                 case macro expands to a whole "case m:
#                                 return ...;" (m is a constant twice), the
#                                 table's initializer a "[m] = ..." line, and
#                                 each user takes the columns it needs
#   entry/charge_pages.c, objcg_stock.c MACRO_ARG_REUSE,MACRO_ARG_UNUSED,TRAILING_SEMICOLON
#                                 the same X-macro list instantiates each
#                                 mode's entry functions (m, a constant, in
#                                 both) and the "case m: return ...;" of
#                                 the exported functions' switch
#   harness/harness.h COMPLEX_MACRO,MACRO_ARG_REUSE
#                                 the same list plus the exported functions
#                                 (MCS_HARNESS_ENTRIES), for the harness
#   kunit/record_kunit.c MACRO_ARG_REUSE
#                                 RK_SET(a) is { a, ARRAY_SIZE(a) } of a named
#                                 array: no side effects to repeat
#   harness/bench.c COMPLEX_MACRO,MACRO_ARG_REUSE,MACRO_ARG_UNUSED,TRAILING_SEMICOLON
#   harness/replay.c MACRO_ARG_UNUSED,TRAILING_SEMICOLON
#                                 that list instantiates the benchmark's
#                                 pair and loop, and the replay's worker,
#                                 once per entry, and the switch that picks
#                                 one
#   selftests/* PREFER_KERNEL_TYPES,VOLATILE,LONG_LINE_STRING  user-space
#                                 programs (kselftest style): C types such as
#                                 uint64_t, volatile sig_atomic_t flags for
#                                 signal handlers, and messages kept whole
#                                 for grep
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../rig/lib.sh"

declare -A ignore=(
	[objects/compat.h]=NEW_TYPEDEFS,LINUX_VERSION_CODE,CONSTANT_COMPARISON
	[objects/trace.h]=PARENTHESIS_ALIGNMENT,OPEN_ENDED_LINE
	[stocks/stock_designs.h]=COMPLEX_MACRO,MACRO_ARG_REUSE,MACRO_ARG_UNUSED,TRAILING_SEMICOLON,BRACKET_SPACE
	[entry/charge_pages.c]=MACRO_ARG_REUSE,MACRO_ARG_UNUSED,TRAILING_SEMICOLON
	[objcg_stock.c]=MACRO_ARG_REUSE,MACRO_ARG_UNUSED,TRAILING_SEMICOLON
	[harness/harness.h]=COMPLEX_MACRO,MACRO_ARG_REUSE
	[harness/bench.c]=COMPLEX_MACRO,MACRO_ARG_REUSE,MACRO_ARG_UNUSED,TRAILING_SEMICOLON
	[harness/replay.c]=MACRO_ARG_UNUSED,TRAILING_SEMICOLON
	[kunit/record_kunit.c]=MACRO_ARG_REUSE
)

# the docs first: no kernel tree needed
docs_fail=0
python3 "$here/docs-check.py" || docs_fail=1
# the lists of modes that must stay name only the table's modes
python3 "$here/mode-lists.py" || docs_fail=1
# the replay-against-the-kernel table's parsing and arithmetic, on a made-up boot
python3 "$here/../bench/replay-kernel.py" --selftest || docs_fail=1
fail=0

src=$("$here/../rig/fetch-source.sh" 7)
cd "$MCS_SRC"
mapfile -t files < <(git ls-files '*.c' '*.h' 2>/dev/null ||
	find . -name '*.c' -o -name '*.h' | grep -v -e '^./.out/')
# A clean result is remembered in $MCS_CACHE/checkpatch, under a hash of
# everything checkpatch reads: the script with its spelling and struct
# lists, any .checkpatch.conf, the options, the file's name and content.
# An unchanged file is not checked again (a run of all 56 files costs
# some 60 CPU seconds); a file with findings is always checked.
cpc=$MCS_CACHE/checkpatch
mkdir -p "$cpc"
tool=$(for t in "$src"/scripts/{checkpatch.pl,spelling.txt,const_structs.checkpatch} \
	.checkpatch.conf ~/.checkpatch.conf; do [[ ! -f $t ]] || cat "$t"; done | sha256sum)
remembered=0
for f in "${files[@]}"; do
	f=${f#./}
	args=(--strict --no-tree --quiet --show-types -f)
	if [[ -n ${ignore[$f]:-} ]]; then
		args+=(--ignore "${ignore[$f]}")
	elif [[ $f == selftests/* ]]; then
		args+=(--ignore PREFER_KERNEL_TYPES,VOLATILE,LONG_LINE_STRING)
	fi
	key=$( { printf '%s\n' "$tool" "${args[*]}" "$f"; cat "$f"; } | sha256sum | cut -c1-32)
	if [[ -e $cpc/$key ]]; then
		remembered=$((remembered + 1))
		continue
	fi
	if ! out=$("$src/scripts/checkpatch.pl" "${args[@]}" "$f" 2>&1) || [[ -n $out ]]; then
		printf '%s\n' "$out"
		fail=1
	else
		: > "$cpc/$key"
	fi
done
((fail == 0)) && log "checkpatch: ${#files[@]} files clean ($remembered unchanged since a clean check)"

# sparse through Kbuild against Debian's 6.12 headers: the newest kernels
# (7.x) need a sparse that knows __typeof_unqual__, which Debian 12's 0.6.4
# does not, and then switch the check off with a mere warning.  A probe
# with a known bug must draw a warning first, so that a sparse that does
# not run cannot pass for a clean one.
kd=$("$here/../rig/fetch-debian-kernel.sh" amd64)/build
P=$MCS_BUILDS/sparse-probe
rm -rf "$P"
mkdir -p "$P"
cat > "$P/probe.c" <<'PROBE'
// SPDX-License-Identifier: GPL-2.0
#include <linux/compiler.h>
#include <linux/module.h>
void mcs_sparse_probe(int __user *p);
void mcs_sparse_probe(int __user *p) { *p = 1; }
MODULE_LICENSE("GPL");
PROBE
echo 'obj-m += probe.o' > "$P/Kbuild"
mcs_kdir_lock "$kd" make -s -C "$kd" M="$P" C=1 CHECK=sparse modules > "$P/sparse.log" 2>&1 || true
grep -q 'probe.c:5:.*dereference of noderef expression' "$P/sparse.log" ||
	{ cat "$P/sparse.log"; die "sparse does not run: its probe drew no warning"; }
# (the build vmtest and dkms-check use too: whichever stage comes first
# compiles, sparse alone runs on up-to-date objects with C=2)
M=$(mcs_build_module "$kd" deb-amd64)
mcs_kdir_lock "$kd" make -s -C "$kd" M="$M" C=2 CHECK=sparse modules >"$MCS_OUT/sparse.log" 2>&1 ||
	{ cat "$MCS_OUT/sparse.log"; die "sparse build failed"; }
if grep -E '(warning|error)|not available' "$MCS_OUT/sparse.log"; then
	fail=1
else
	log "sparse: clean (its probe did warn)"
fi

# the layers, the kernel-doc of the API and the symbol namespace
"$here/api-check.sh" "$kd" "$M" || fail=1
((fail == 0 && docs_fail == 0)) || die "lint found problems (above)"
