#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dkms-check.sh (`make dkms-check`): the packaging targets a user runs,
# against Debian's extracted 6.12 headers, with nothing installed on the
# host:
#  1. `make dkms-install` with DKMS's trees private (DKMS_SRC, --dkmstree,
#     --installtree; --no-depmod: DKMS would run depmod on the host's
#     /lib/modules): the tree copied without .git and .out, dkms add,
#     build and install; the copy must hold no build product;
#  2. `make install DESTDIR=...` (in the module's build copy for these
#     headers, shared with lint and vmtest): the modules under
#     lib/modules/<release>/updates with their depmod files, memcg_stock.h,
#     objects/page_counter.h and Module.symvers where a client build finds them, then
#     `make uninstall DESTDIR=...` removes them again.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$MCS_SRC/dkms.conf")
grep -q "MODULE_VERSION(\"$ver\")" "$MCS_SRC/harness/module.c" ||
	die "dkms.conf PACKAGE_VERSION $ver does not match MODULE_VERSION"
kd=$("$here/fetch-debian-kernel.sh" amd64)
kver=$(basename "$(readlink -f "$kd")")
kdir=$(readlink -f "$kd/build")
D=$MCS_OUT/dkms
rm -rf "$D"
mkdir -p "$D/tree" "$D/src" "$D/lib/$kver"

# 1. make dkms-install
mcs_kdir_lock "$kdir" make -C "$MCS_SRC" dkms-install KDIR="$kdir" DKMS_SRC="$D/src" \
	DKMS="dkms --dkmstree $D/tree --installtree $D/lib --no-depmod" >&2 ||
	{ cat "$D/tree/memcg_stock/$ver/build/make.log" >&2 2>/dev/null; die "make dkms-install failed"; }
copy=$D/src/memcg_stock-$ver
[[ -f $copy/dkms.conf && -f $copy/Kbuild && -f $copy/memcg_stock.h ]] ||
	die "make dkms-install: no source tree in $copy"
junk=$(cd "$copy" && find . \( -name .git -o -name .out -o -name '*.o' -o -name '*.ko' -o -name '*.cmd' \) -print | head -5)
[[ -z $junk ]] || die "make dkms-install copied build products or .git/.out: $junk"
ko=$(find "$D/lib/$kver" -name 'memcg_stock.ko*' | head -1)
[[ -n $ko ]] || die "make dkms-install installed no memcg_stock.ko under $D/lib/$kver"
log "dkms: memcg_stock/$ver added, built and installed for $kver: ${ko#"$D"/}"

# 2. make install / uninstall DESTDIR=, in the build copy of the tree that
# lint and vmtest use for these headers (lib.sh mcs_build_module): the
# compile is theirs, its `make modules` step finds everything up to date
# (the DKMS build above compiled the module from scratch already)
I=$D/destdir
W=$(mcs_build_module "$kdir" deb-amd64)
mcs_kdir_lock "$kdir" make -C "$W" install KDIR="$kdir" DESTDIR="$I" >&2 || die "make install DESTDIR=$I failed"
m=$I/lib/modules/$kver
missing=()
for f in "$m/updates/memcg_stock.ko" "$m/modules.dep" "$I/usr/src/memcg_stock/$kver/memcg_stock.h" \
	"$I/usr/src/memcg_stock/$kver/objects/page_counter.h" \
	"$I/usr/src/memcg_stock/$kver/Module.symvers"; do
	compgen -G "$f*" > /dev/null || missing+=("${f#"$I"}")
done
((${#missing[@]} == 0)) || die "make install DESTDIR=$I: missing ${missing[*]}"
grep -q 'updates/memcg_stock.ko' "$m/modules.dep" || die "make install: depmod did not list memcg_stock.ko in $m/modules.dep"
grep -q 'mcs_memcg_create' "$I/usr/src/memcg_stock/$kver/Module.symvers" ||
	die "make install: the installed Module.symvers lacks memcg_stock's exports"
make -C "$W" uninstall KDIR="$kdir" DESTDIR="$I" >&2 || die "make uninstall DESTDIR=$I failed"
left=$(find "$I" -name 'memcg_stock*' | head -3)
[[ -z $left ]] || die "make uninstall left: $left"
log "install: make install DESTDIR= put the module ($kver, depmod'ed), header and Module.symvers in place; make uninstall removed them"
