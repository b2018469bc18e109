#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# api-check.sh KDIR BUILD_DIR (called by lint.sh with Debian 6.12's headers
# and the module built against them):
# the layering and the API contract, checked on the built objects.
#  1. layers: the layers are folders (scripts/checks/layers.txt); every
#     object uses only symbols of objects in lower layers, every source
#     includes only headers of lower layers (the public header aside), no
#     chain of uses or includes inside a layer comes back to its start
#     (layer-check.py); the harness being the top layer, the mechanism
#     neither calls nor includes it;
#  2. kernel-doc: `scripts/kernel-doc -none -Wall -Werror` is clean on every
#     source and header; every public export (EXPORT_SYMBOL_GPL) has its
#     kernel-doc in a public header, every internal function (exported into
#     namespace MCS_NS, see compat.h) has one somewhere (the public
#     headers: memcg_stock.h and objects/page_counter.h, which it includes);
#  3. namespace: examples/mcs_client.c, which includes only memcg_stock.h,
#     builds with `make -C examples KDIR=...` (examples/Makefile: the
#     header and the module's Module.symvers); built so that it uses an
#     internal symbol (MCS_CLIENT_CFLAGS=-DMCS_CLIENT_USES_INTERNALS),
#     modpost must refuse it (MEMCG_STOCK_INTERNAL not imported).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../rig/lib.sh"

B=${1:?usage: api-check.sh KDIR MODULE_BUILD_DIR}
M=$(cd "${2:?usage: api-check.sh KDIR MODULE_BUILD_DIR}" && pwd)
src=$("$here/../rig/fetch-source.sh" 7)
fail=0

# 1. layers: the harness is the top layer, so a use or an include of it
# from the mechanism is an edge up the layers like any other
python3 "$here/layer-check.py" "$here/layers.txt" "$M" "$MCS_SRC" || fail=1
cd "$MCS_SRC"
# the mechanism's sources: the top-level ones and the layers' folders
msrc=(*.c *.h objects/*.[ch] stocks/*.[ch] entry/*.[ch])

# 2. kernel-doc
if ! "$src/scripts/kernel-doc" -none -Wall -Werror -- "${msrc[@]}" harness/*.c harness/*.h kunit/*.h examples/*.c; then
	echo "api-check: kernel-doc warnings (above)" >&2
	fail=1
fi
nodoc=()
for s in $(sed -n 's/^EXPORT_SYMBOL_GPL(\(.*\));$/\1/p' -- "${msrc[@]}" harness/*.c); do
	grep -q "^ \* $s() - " memcg_stock.h objects/page_counter.h ||
		nodoc+=("$s (public: no kernel-doc in memcg_stock.h or objects/page_counter.h)")
done
for s in $(sed -n 's/^EXPORT_SYMBOL_NS_GPL(\(.*\), MCS_NS);$/\1/p' -- "${msrc[@]}" harness/*.c); do
	grep -q "^ \* $s() - " -- "${msrc[@]}" harness/*.c harness/*.h || nodoc+=("$s (internal: no kernel-doc)")
done
if ((${#nodoc[@]})); then
	printf 'api-check: export without kernel-doc: %s\n' "${nodoc[@]}" >&2
	fail=1
else
	log "api-check: kernel-doc clean; every export documented"
fi

# 3. the symbol namespace, seen from a client: the client example built as
# a user builds it, `make -C examples KDIR=...`, in the module's build copy
# (whose memcg_stock.ko is up to date, so the module step is a no-op)
C=$M/examples
[[ -f $C/Makefile ]] || die "api-check: no $C/Makefile in the build copy"
rm -f "$C"/*.o "$C"/*.ko
if ! mcs_kdir_lock "$B" make -C "$C" KDIR="$B" > "$M/client-public.log" 2>&1 || [[ ! -f $C/mcs_client.ko ]]; then
	cat "$M/client-public.log" >&2
	echo "api-check: make -C examples KDIR=$B: a client of the public header does not build" >&2
	fail=1
fi
rm -f "$C"/*.o "$C"/*.ko
if mcs_kdir_lock "$B" make -C "$C" KDIR="$B" MCS_CLIENT_CFLAGS=-DMCS_CLIENT_USES_INTERNALS > "$M/client-internal.log" 2>&1 ||
	! grep -q "mcs_memcg_cache.*MEMCG_STOCK_INTERNAL.*does not import" "$M/client-internal.log"; then
	cat "$M/client-internal.log" >&2
	echo "api-check: a client reached an internal symbol without importing its namespace" >&2
	fail=1
fi
((fail)) || log "api-check: a client builds on the public API alone and cannot link an internal"
((fail == 0)) || die "api-check failed (above)"
