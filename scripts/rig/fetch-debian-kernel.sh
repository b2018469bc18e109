#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fetch-debian-kernel.sh KERNEL | --list: download one of Debian's prebuilt
# kernels without installing anything on the host, and print the directory
# it was unpacked into.  --list prints every KERNEL the private apt
# configuration (lib.sh: bookworm, bookworm-security,
# bookworm-backports, trixie-backports, sid) can give, one a line.
#
#   FLAVOUR          bookworm's newest 6.12 of that flavour (amd64, rt-amd64,
#                    cloud-amd64): image + headers
#   SERIES-FLAVOUR   the newest SERIES.* (6.1, 6.12, 7.2, ...) of FLAVOUR in
#                    any suite: image + headers (6.1-amd64, 6.1-rt-amd64, ...);
#                    SERIES N.x is the newest N.* (7.x-amd64, 7.x-rt-amd64)
#   6.1              bookworm's linux-headers-amd64 (6.1.0-N-amd64): headers
#                    only (`make compile-6.1`)
# The ABI is never pinned: it is resolved through the meta package,
# linux-image-SERIES-FLAVOUR where the archive has one (6.12 in bookworm),
# else linux-image-FLAVOUR at its newest SERIES.* version (6.1, 7.x).
#
# Layout of $MCS_CACHE/debian/<abi>/ (what `dpkg-deb -x` of the packages gives,
# plus two links):
#   vmlinuz -> boot/vmlinuz-<abi>             (not for the headers-only 6.1)
#   build   -> usr/src/linux-headers-<abi>    module build tree: make -C build M=...
#   usr/src/linux-headers-<abi>-common[-rt]/, usr/lib/linux-kbuild-<ver>/
#   .done                                     headers, written last
#   .image-done                               boot/ of the image, written last
# Of the image package (from 7.x: its linux-binary-<abi>) only vmlinuz is unpacked (the initramfs carries our
# module alone).  The headers-only 6.1 tree and the 6.1-amd64 image share
# one directory.  The flavour Makefile includes the common tree by absolute
# path; it is rewritten to a relative path so the tree works from the cache.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage='usage: fetch-debian-kernel.sh FLAVOUR|SERIES-FLAVOUR|6.1|--list'
want=${1:?$usage}

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
# every KERNEL argument the archive can give: FLAVOUR (6.12), SERIES-FLAVOUR
# and N.x-FLAVOUR
list_kernels() {
	local meta series flavour
	mcs_apt apt-cache pkgnames linux-image- |
		grep -E '^linux-image-([0-9]+\.[0-9]+-)?[a-z0-9-]*amd64$' | sort |
		while read -r meta; do
			flavour=${meta#linux-image-}
			if [[ $flavour =~ ^([0-9]+\.[0-9]+)-(.*)$ ]]; then
				series=${BASH_REMATCH[1]} flavour=${BASH_REMATCH[2]}
				echo "$series-$flavour"
				[[ $series == 6.12 ]] && echo "$flavour"
			else
				mcs_apt apt-cache madison "$meta" | awk -F' *[|] *' '{ print $2 }' |
					sed -nE 's/^([0-9]+\.[0-9]+)\..*/\1/p' | sort -u |
					sed "s/\$/-$flavour/"
			fi
		done | while read -r k; do
			# N.x-FLAVOUR: the newest N.* (deb-7.x-amd64 in VM_KERNELS)
			echo "$k"
			if [[ $k =~ ^([0-9]+)\.[0-9]+-(.*)$ ]]; then
				echo "${BASH_REMATCH[1]}.x-${BASH_REMATCH[2]}"
			fi
		done | sort -u -V
}

mcs_apt_setup
if [[ $want == --list ]]; then
	list_kernels
	exit 0
fi

# Resolved again whenever mcs_apt_setup has refreshed the lists (the archive
# drops old ABIs); in between, the last answer is reused.
resolved=$MCS_CACHE/debian/resolved-$want
if [[ -s $resolved && $resolved -nt $MCS_APT_DIR/updated ]]; then
	d=$MCS_CACHE/debian/$(cat "$resolved")
	if [[ -e $d/.done ]] && { [[ $want == 6.1 ]] || [[ -e $d/.image-done || -e $d/vmlinuz ]]; }; then
		echo "$d"
		exit 0
	fi
fi

unknown() {
	die "unknown Debian kernel '$want' ($1); the archive has (deb-NAME in VM_KERNELS): $(list_kernels | tr '\n' ' ')"
}
image=
case $want in
6.1)
	mver=$(newest_version linux-headers-amd64 6.1.)
	[[ -n $mver ]] || die "no 6.1 linux-headers-amd64 in bookworm"
	headers=$(depends_of "linux-headers-amd64=$mver" | grep -E '^linux-headers-6\.1\.' | head -1 | sed 's/=.*//')
	[[ -n $headers ]] || die "cannot resolve the ABI of linux-headers-amd64 $mver"
	;;
*)
	if [[ $want =~ ^([0-9]+\.[0-9]+|[0-9]+\.x)-([a-z0-9-]+)$ ]]; then
		series=${BASH_REMATCH[1]} flavour=${BASH_REMATCH[2]}
	elif [[ $want =~ ^[a-z][a-z0-9-]*$ ]]; then
		series=6.12 flavour=$want
	else
		unknown "expected FLAVOUR or SERIES-FLAVOUR"
	fi
	# N.x: any N.* (the prefix without its ".x")
	sp=${series%.x}
	meta=linux-image-$series-$flavour
	mver=$(newest_version "$meta" "$sp.")
	if [[ -z $mver ]]; then
		meta=linux-image-$flavour
		mver=$(newest_version "$meta" "$sp.")
	fi
	[[ -n $mver ]] || unknown "no linux-image-$series-$flavour, no $sp.* linux-image-$flavour"
	image=$(depends_of "$meta=$mver" | grep -E "^linux-image-$sp\\.[0-9].*-$flavour(=|\$)" |
		head -1 | sed 's/=.*//')
	[[ -n $image ]] || die "cannot resolve the ABI of $meta $mver ($(depends_of "$meta=$mver" | tr '\n' ' '))"
	headers=linux-headers-${image#linux-image-}
	;;
esac
abi=${headers#linux-headers-}
dir=$MCS_CACHE/debian/$abi
# one fetcher per ABI: a second caller (a concurrent vmtest job, another
# checkout sharing the cache) waits, then finds the tree ready
mkdir -p "$MCS_CACHE/debian"
exec 9>"$MCS_CACHE/debian/.$abi.lock"
flock 9
# a directory from before .image-done existed: unpacked whole, vmlinuz linked
[[ -e $dir/vmlinuz && ! -e $dir/.image-done && -e $dir/.done ]] && touch "$dir/.image-done"
if [[ -e $dir/.done ]] && { [[ -z $image ]] || [[ -e $dir/.image-done ]]; }; then
	echo "$abi" > "$resolved"
	echo "$dir"
	exit 0
fi

# deb_of NAME: the downloaded .deb of package NAME
deb_of() {
	local deb
	deb=$(ls "$MCS_CACHE/debs/${1}_"*_amd64.deb "$MCS_CACHE/debs/${1}_"*_all.deb 2>/dev/null |
		sort -V | tail -1 || true)
	[[ -n $deb ]] || die "download of $1 failed"
	echo "$deb"
}

start=$SECONDS
if [[ ! -e $dir/.done ]]; then
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
	((${#pkgs[@]} >= 3)) || die "could not resolve the common/kbuild packages of $headers: ${pkgs[*]}"

	log "fetching Debian kernel headers $abi: ${pkgs[*]}"
	mcs_download "${pkgs[@]}"
	rm -rf "$dir"
	mkdir -p "$dir"
	for p in "${pkgs[@]}"; do
		dpkg-deb -x "$(deb_of "${p%%=*}")" "$dir"
	done

	build=$dir/usr/src/linux-headers-$abi
	[[ -f $build/Makefile ]] || die "no $build/Makefile in the headers package"
	sed -i -E 's@^include /usr/src/(linux-headers-[^/]*)/@include ../\1/@' "$build/Makefile"
	# 7.x: the flavour Makefile also names its own absolute path
	sed -i -E "s@^KBUILD_OUTPUT=/usr/src/@KBUILD_OUTPUT=$dir/usr/src/@" "$build/Makefile"
	grep -q '^include /' "$build/Makefile" && die "absolute include left in $build/Makefile"
	ln -sfn "usr/src/linux-headers-$abi" "$dir/build"
	touch "$dir/.done"
fi
if [[ -n $image && ! -e $dir/.image-done ]]; then
	log "fetching Debian kernel image $image"
	mcs_download "$image"
	# vmlinuz_in PKG: the path of the kernel in PKG's .deb (boot/vmlinuz-<abi>;
	# from 7.x usr/lib/modules/<abi>/vmlinuz, in linux-binary-<abi>)
	vmlinuz_in() {
		dpkg-deb -c "$(deb_of "$1")" | awk '{ print $NF }' |
			grep -m1 -xF -e "./boot/vmlinuz-$abi" -e "./usr/lib/modules/$abi/vmlinuz" || true
	}
	bin=$image
	member=$(vmlinuz_in "$bin")
	if [[ -z $member ]]; then
		bin=$(depends_of "$image" | grep -F "linux-binary-$abi=" | head -1 || true)
		[[ -n $bin ]] || die "no vmlinuz in $image, and no linux-binary-$abi among its dependencies"
		mcs_download "$bin"
		bin=${bin%%=*}
		member=$(vmlinuz_in "$bin")
		[[ -n $member ]] || die "no vmlinuz in $image or $bin"
	fi
	rm -rf "${dir:?}/boot"
	mkdir -p "$dir/boot"
	dpkg-deb --fsys-tarfile "$(deb_of "$bin")" | tar -x -O "$member" > "$dir/boot/vmlinuz-$abi"
	[[ -s $dir/boot/vmlinuz-$abi ]] || die "no vmlinuz in $bin"
	ln -sfn "boot/vmlinuz-$abi" "$dir/vmlinuz"
	touch "$dir/.image-done"
fi
echo "$abi" > "$resolved"
log "Debian kernel $abi ready in $((SECONDS - start)) s"
echo "$dir"
