#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fetch-qemu.sh: download Debian bookworm-backports' qemu-system-x86 (10.0
# when this was written) without installing anything on the host, and
# print the directory it was unpacked into: $MCS_CACHE/qemu-<version>/,
# what `dpkg-deb -x` of qemu-system-x86, qemu-system-common,
# qemu-system-data, qemu-system-modules-opengl and -spice, and seabios
# (the BIOS it expects, newer than bookworm's) gives, plus
#   .version   the package version (its source version: bench-profile.sh)
#   .done      written last
# lib.sh mcs_qemu_cmd runs usr/bin/qemu-system-x86_64 from there with -L
# for its data and BIOS and its own module directory.  The shared
# libraries are bookworm's, the ones of bookworm's qemu-system-x86 (what
# `make deps` installs); a missing one is named.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

suite=bookworm-backports
mcs_apt_setup
# the version: resolved again whenever mcs_apt_setup has refreshed the lists
resolved=$MCS_CACHE/qemu-resolved
if [[ -s $resolved && $resolved -nt $MCS_APT_DIR/updated && -e $MCS_CACHE/qemu-$(cat "$resolved")/.done ]]; then
	echo "$MCS_CACHE/qemu-$(cat "$resolved")"
	exit 0
fi
# newest_in PKG: PKG's newest version in $suite
newest_in() {
	mcs_apt apt-cache madison "$1" | awk -F' *[|] *' -v s="$suite/" 'index($3, s) { print $2 }' |
		sort -V | tail -1
}
ver=$(newest_in qemu-system-x86)
[[ -n $ver ]] || die "no qemu-system-x86 in $suite (the private apt configuration: lib.sh mcs_apt_setup)"
bios=$(newest_in seabios)
dir=$MCS_CACHE/qemu-${ver//:/_}
# one fetcher at a time: concurrent boots wait, then find it unpacked
exec 9>"$MCS_CACHE/.qemu.lock"
flock 9
if [[ ! -e $dir/.done ]]; then
	log "fetching qemu $ver from $suite"
	rm -rf "$dir"
	mkdir -p "$dir"
	tmp=$(mktemp -d "$MCS_CACHE/.qemu-debs.XXXXXX")
	# the opengl and spice modules, which qemu loads at start whatever the
	# display: without them it finds the host's (7.2's) and says on the
	# console that it cannot load them
	pkgs=("qemu-system-x86=$ver" "qemu-system-common=$ver" "qemu-system-data=$ver"
		"qemu-system-modules-opengl=$ver" "qemu-system-modules-spice=$ver")
	[[ -n $bios ]] && pkgs+=("seabios=$bios")
	(cd "$tmp" && mcs_apt apt-get -q download "${pkgs[@]}" >&2) ||
		{ rm -rf "$tmp"; die "cannot download ${pkgs[*]}"; }
	for f in "$tmp"/*.deb; do
		dpkg-deb -x "$f" "$dir" || { rm -rf "$tmp"; die "cannot unpack $f"; }
	done
	rm -rf "$tmp"
	# a module whose libraries this host lacks would fail to load, loudly:
	# it goes (none is needed by a guest of the rig)
	for f in "$dir"/usr/lib/x86_64-linux-gnu/qemu/*.so; do
		if ldd "$f" | grep -q 'not found'; then
			log "qemu $ver: $(basename "$f") left out (libraries missing)"
			rm -f "$f"
		fi
	done
	missing=$(ldd "$dir/usr/bin/qemu-system-x86_64" | awk '/not found/ { print $1 }' | paste -sd' ')
	[[ -z $missing ]] ||
		die "qemu $ver needs libraries this host lacks: $missing (make deps installs bookworm's qemu-system-x86, which brings them)"
	"$dir/usr/bin/qemu-system-x86_64" --version >/dev/null || die "$dir/usr/bin/qemu-system-x86_64 does not run"
	echo "$ver" >"$dir/.version"
	touch "$dir/.done"
fi
echo "${ver//:/_}" >"$resolved"
echo "$dir"
