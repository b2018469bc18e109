#!/bin/bash
# dkms-check.sh (`make dkms-check`): `dkms add` + `dkms build` of this tree
# against Debian's extracted 6.12 headers, in a private DKMS tree (nothing
# is installed on the host).  Build only.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$MCS_SRC/dkms.conf")
grep -q "MODULE_VERSION(\"$ver\")" "$MCS_SRC/module.c" ||
	die "dkms.conf PACKAGE_VERSION $ver does not match MODULE_VERSION"
kd=$("$here/fetch-debian-kernel.sh" amd64)
kver=$(basename "$(readlink -f "$kd")")
D=$MCS_OUT/dkms
rm -rf "$D"
mkdir -p "$D/tree" "$D/src/memcg_stock-$ver"
rsync -a --exclude=.out/ --exclude=.git/ --exclude=bench-results/ \
	"$MCS_SRC/" "$D/src/memcg_stock-$ver/"
opts=(--dkmstree "$D/tree" --sourcetree "$D/src")
dkms add "${opts[@]}" -m memcg_stock -v "$ver" >&2
dkms build "${opts[@]}" -m memcg_stock -v "$ver" -k "$kver" \
	--kernelsourcedir "$(readlink -f "$kd/build")" >&2 ||
	{ cat "$D/tree/memcg_stock/$ver/build/make.log" >&2 2>/dev/null; die "dkms build failed"; }
ko=$(find "$D/tree/memcg_stock/$ver" -name memcg_stock.ko | head -1)
[[ -n $ko ]] || die "dkms built no memcg_stock.ko"
log "dkms: memcg_stock/$ver built for $kver: ${ko#"$D"/}"
