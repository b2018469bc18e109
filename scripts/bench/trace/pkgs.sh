# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The Debian bookworm files of `make trace`'s workloads (sourced by
# scripts/bench/trace.sh, after lib.sh): packages unpacked once into
# $MCS_CACHE/trace-pkgs/NAME, a source package's configured tree, each put
# into the guest as a tar that guest.sh unpacks at /.

# pkg_unpack ROOT PKG...: the PKGs and every package they depend on
# (apt-cache depends, recursively, no recommends) unpacked into ROOT, once
pkg_unpack() {
	local root=$1 deb list
	shift
	[[ -d $root ]] && return 0
	mcs_apt_setup
	rm -rf "$root.tmp"
	mkdir -p "$root.tmp/debs"
	mapfile -t list < <(mcs_apt apt-cache depends --recurse --no-recommends \
		--no-suggests --no-conflicts --no-breaks --no-replaces --no-enhances \
		-o APT::Default-Release=bookworm "$@" | grep -E '^[a-z0-9]' |
		grep -vE 't64$|^openssl-provider-legacy$' | sort -u)
	# (the t64 renames of sid are alternatives of bookworm's libraries)
	((${#list[@]})) || die "apt-cache knows none of $*"
	(cd "$root.tmp/debs" &&
		mcs_apt apt-get -q -o APT::Default-Release=bookworm download "${list[@]}" >&2) ||
		die "could not download $* and their dependencies"
	for deb in "$root.tmp"/debs/*.deb; do
		dpkg-deb -x "$deb" "$root.tmp"
	done
	rm -rf "$root.tmp/debs"
	mv "$root.tmp" "$root"
}

# pkg_root_tar NAME OUT PKG...: OUT a tar of every file of the PKGs and
# their dependencies (whole packages, as a compiler needs them: its
# programs, crt files and headers); left out: documentation, translations,
# gconv modules, the link-time optimizer and the sanitizers' run-times (a
# plain -O2 build uses none of them)
pkg_root_tar() {
	local root=$MCS_CACHE/trace-pkgs/$1 tarf=$2
	shift 2
	pkg_unpack "$root" "$@"
	tar -C "$root" -cf "$tarf" --exclude=./usr/share --exclude='*/gconv' \
		--exclude='*lto1' --exclude='*lto-dump*' --exclude='*/lib[alt]san.so*' \
		--exclude='*/libubsan.so*' --exclude='*/lib*san.a' .
	chmod +x "$tarf"	# mkinitramfs.sh takes the executables of the directory
}

# src_tar SRCPKG DIR OUT: OUT a tar of bookworm's source package SRCPKG
# (its upstream tarball, unpacked and configured by its own ./configure on
# this host, as /DIR in the guest); the download is cached
src_tar() {
	local pkg=$1 dir=$2 tarf=$3 apt=$MCS_CACHE/apt-src cache=$MCS_CACHE/trace-pkgs/src-$1 tmp orig
	local -a o=(-o Dir::Etc::SourceList="$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache")
	if [[ ! -d $cache ]]; then
		# source packages only, in a configuration of their own (shared
		# with bench-profile.sh, whose list has bookworm too)
		mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial"
		[[ -s $apt/sources.list ]] ||
			echo 'deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main' \
				>"$apt/sources.list"
		apt-cache "${o[@]}" showsrc "$pkg" >/dev/null 2>&1 ||
			apt-get "${o[@]}" -q update >&2 || die "apt-get update of the source lists failed"
		rm -rf "$cache.tmp"
		mkdir -p "$cache.tmp"
		(cd "$cache.tmp" && apt-get "${o[@]}" -q -o APT::Default-Release=bookworm \
			source --download-only "$pkg" >&2) || die "cannot download the source of $pkg"
		mv "$cache.tmp" "$cache"
	fi
	orig=$(compgen -G "$cache/*.orig.tar.*" | head -1) || die "no upstream tarball in $cache"
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/mcs-src.XXXXXX")
	mkdir -p "$tmp/$dir"
	tar -xf "$orig" -C "$tmp/$dir" --strip-components=1 || die "cannot unpack $orig"
	(cd "$tmp/$dir" && ./configure >&2) || die "$pkg: ./configure failed"
	tar -C "$tmp" -cf "$tarf" "$dir"
	rm -rf "$tmp"
	chmod +x "$tarf"
}
