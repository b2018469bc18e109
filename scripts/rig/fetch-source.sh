#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fetch-source.sh SERIES [VERSION]: download Debian's linux-source-SERIES
# (SERIES "7" means the newest 7.x any configured suite offers), or exactly
# that package VERSION when given, and unpack it once under the cache.
# Prints the absolute path of the source tree.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

series=${1:?usage: fetch-source.sh 7|6.12 [VERSION]}
want_ver=${2:-}
debs=$MCS_CACHE/debs
mkdir -p "$debs"

# Prefer a .deb we already have, so that a moving suite does not force a
# rebuild; pick the newest version when there is none.
newest_cached() {
	{ ls "$debs"/linux-source-"$series"*_all.deb 2>/dev/null || true; } |
		{ if [[ -n $want_ver ]]; then grep -F "_${want_ver}_all.deb"; else cat; fi || true; } |
		sort -V | tail -1
}
mkdir -p "$MCS_CACHE/src"
# One fetcher per series: the stages of `make check` start together and, on
# an empty cache, would otherwise download and unpack into the same
# directory at once (seen: three stages failing in the same minute).  The
# others wait here and find the tree unpacked.
exec 9>"$MCS_CACHE/src/.fetch-$series.lock"
flock 9
deb=$(newest_cached)
if [[ -z $deb ]]; then
	mcs_apt_setup
	if [[ $series == 7 ]]; then
		pkg=$(mcs_apt apt-cache pkgnames linux-source-7. | sort -V | tail -1)
	else
		pkg=linux-source-$series
	fi
	[[ -n $pkg ]] || die "no linux-source-$series package in the configured suites"
	[[ -z $want_ver ]] || pkg+="=$want_ver"
	log "downloading $pkg"
	mcs_download "$pkg"
	deb=$(newest_cached)
	[[ -n $deb ]] || die "download of $pkg failed"
fi

ver=$(dpkg-deb -f "$deb" Version)
name=$(dpkg-deb -f "$deb" Package)
dir=$MCS_CACHE/src/$name-${ver//[^A-Za-z0-9._-]/_}
if [[ ! -e $dir/.unpacked ]]; then
	log "unpacking $name $ver"
	rm -rf "$dir" "$dir.tmp"
	mkdir -p "$dir.tmp"
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$dir.tmp" --wildcards '*.tar.xz'
	tarball=$(find "$dir.tmp" -name 'linux-source-*.tar.xz' | head -1)
	tar -xJf "$tarball" -C "$dir.tmp"
	rm -f "$tarball"
	top=$(find "$dir.tmp" -mindepth 1 -maxdepth 1 -type d -name 'linux-source-*' | head -1)
	[[ -z $top ]] && top=$(find "$dir.tmp" -maxdepth 3 -name Makefile -path '*linux-source*' -printf '%h\n' | head -1)
	mv "$top" "$dir"
	rm -rf "$dir.tmp"
	touch "$dir/.unpacked"
fi
echo "$dir"
