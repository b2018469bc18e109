#!/bin/bash
# fetch-debian-kernel.sh amd64|rt-amd64|6.1: download one of Debian's
# prebuilt kernels without installing anything on the host, and print the
# directory it was unpacked into.
#
#   amd64, rt-amd64  bookworm's newest 6.12 (ABI resolved through the meta
#                    package linux-image-6.12-<flavour>): image + headers
#   6.1              bookworm's linux-headers-amd64 (6.1.0-N-amd64): headers only
#
# Layout of $MCS_CACHE/debian/<abi>/ (what `dpkg-deb -x` of the packages gives,
# plus two links):
#   vmlinuz -> boot/vmlinuz-<abi>             (not for 6.1)
#   build   -> usr/src/linux-headers-<abi>    module build tree: make -C build M=...
#   usr/src/linux-headers-<abi>-common[-rt]/, usr/lib/linux-kbuild-<ver>/
#   .done                                     written last
# The flavour Makefile includes the common tree by absolute path; it is
# rewritten to a relative path so the tree works from the cache.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

flavour=${1:?usage: fetch-debian-kernel.sh amd64|rt-amd64|6.1}

# newest version of package $1 whose version starts with $2
newest_version() {
	mcs_apt apt-cache madison "$1" | awk -F' *[|] *' -v p="$2" 'index($2, p) == 1 { print $2 }' |
		sort -V | tail -1
}
# dependencies of $1 (name=version) as name=version (exact constraint) or name
depends_of() {
	mcs_apt apt-cache show "$1" | sed -n 's/^Depends: //p' | head -1 | tr ',' '\n' |
		sed -E 's/^ *//; s/ *\| .*//; s/ \(= ([^)]*)\)/=\1/; s/ \(.*\)//'
}

# The ABI is resolved again whenever mcs_apt_setup has refreshed the lists
# (the archive drops old ABIs); in between, the last answer is reused.
mcs_apt_setup
resolved=$MCS_CACHE/debian/resolved-$flavour
if [[ -s $resolved && $resolved -nt $MCS_APT_DIR/updated ]] &&
	[[ -e $MCS_CACHE/debian/$(cat "$resolved")/.done ]]; then
	echo "$MCS_CACHE/debian/$(cat "$resolved")"
	exit 0
fi
case $flavour in
amd64 | rt-amd64)
	meta=linux-image-6.12-$flavour
	mver=$(newest_version "$meta" 6.12.)
	[[ -n $mver ]] || die "no $meta in bookworm"
	image=$(depends_of "$meta=$mver" | grep -E '^linux-image-6\.12\.' | head -1 | sed 's/=.*//')
	[[ -n $image ]] || die "cannot resolve the ABI of $meta $mver"
	abi=${image#linux-image-}
	headers=linux-headers-$abi
	;;
6.1)
	mver=$(newest_version linux-headers-amd64 6.1.)
	[[ -n $mver ]] || die "no 6.1 linux-headers-amd64 in bookworm"
	headers=$(depends_of "linux-headers-amd64=$mver" | grep -E '^linux-headers-6\.1\.' | head -1 | sed 's/=.*//')
	[[ -n $headers ]] || die "cannot resolve the ABI of linux-headers-amd64 $mver"
	abi=${headers#linux-headers-}
	image=
	;;
*) die "unknown flavour '$flavour' (amd64|rt-amd64|6.1)" ;;
esac

dir=$MCS_CACHE/debian/$abi
if [[ -e $dir/.done ]]; then
	echo "$abi" > "$resolved"
	echo "$dir"
	exit 0
fi

hver=$(newest_version "$headers" "")
[[ -n $hver ]] || die "$headers is not in the archive"
pkgs=("$headers=$hver")
while read -r dep; do
	case $dep in
	linux-headers-*-common* | linux-kbuild-*)
		[[ $dep == *=* ]] || dep=$dep=$hver
		pkgs+=("$dep")
		;;
	esac
done < <(depends_of "$headers=$hver")
[[ -n $image ]] && pkgs+=("$image")
((${#pkgs[@]} >= 3)) || die "could not resolve the common/kbuild packages of $headers: ${pkgs[*]}"

log "fetching Debian kernel $abi: ${pkgs[*]}"
start=$SECONDS
mcs_download "${pkgs[@]}"
rm -rf "$dir"
mkdir -p "$dir"
for p in "${pkgs[@]}"; do
	name=${p%%=*}
	deb=$(ls "$MCS_CACHE/debs/${name}_"*_amd64.deb "$MCS_CACHE/debs/${name}_"*_all.deb 2>/dev/null |
		sort -V | tail -1 || true)
	[[ -n $deb ]] || die "download of $name failed"
	dpkg-deb -x "$deb" "$dir"
done

build=$dir/usr/src/linux-headers-$abi
[[ -f $build/Makefile ]] || die "no $build/Makefile in the headers package"
sed -i -E 's@^include /usr/src/(linux-headers-[^/]*)/@include ../\1/@' "$build/Makefile"
grep -q '^include /' "$build/Makefile" && die "absolute include left in $build/Makefile"
ln -sfn "usr/src/linux-headers-$abi" "$dir/build"
if [[ -n $image ]]; then
	[[ -f $dir/boot/vmlinuz-$abi ]] || die "no vmlinuz in $image"
	ln -sfn "boot/vmlinuz-$abi" "$dir/vmlinuz"
fi
touch "$dir/.done"
echo "$abi" > "$resolved"
log "Debian kernel $abi ready in $((SECONDS - start)) s"
echo "$dir"
