# SPDX-License-Identifier: GPL-2.0
# Sourced by scripts/bench/bench-profile.sh and scripts/bench/trace.sh
# (TRACE_PROFILE=1): the counting tools of a profiled guest.
#
# profile_tools DIR BINDIR: builds DIR/tbcount.so (the TCG plugin,
# scripts/bench/profile/tbcount.c) and BINDIR/mark (the guest's interval
# marker, scripts/bench/profile/mark.c).  The plugin is built against
# include/qemu/qemu-plugin.h of the qemu source package that matches the
# installed qemu-system-x86 (its plugin API version must match), fetched
# once from Debian into $MCS_CACHE/qemu-plugin.  A profiled guest boots that
# qemu, Debian 12's 7.2 (MCS_QEMU=system): the plugin counts with the
# inline TB counter that qemu 9 replaced by per-vCPU scoreboards.

# qemu_plugin_header: print the directory of a qemu-plugin.h that matches
# the installed emulator, fetched from its Debian source package once
qemu_plugin_header() {
	local ver dir apt tmp orig
	ver=$(dpkg-query -W -f='${source:Version}' qemu-system-x86 2>/dev/null) ||
		die "qemu-system-x86 is not installed (make deps)"
	dir=$MCS_CACHE/qemu-plugin/${ver//:/_}
	if [[ ! -f $dir/qemu-plugin.h ]]; then
		log "fetching the qemu $ver source for qemu-plugin.h"
		# source packages only, in a private configuration of their own
		apt=$MCS_CACHE/apt-src
		mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial"
		printf 'deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/%s main\n' \
			"debian bookworm" "debian bookworm-updates" "debian-security bookworm-security" \
			>"$apt/sources.list"
		local -a o=(-o Dir::Etc::SourceList="$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
			-o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache")
		apt-get "${o[@]}" -q update >&2 || die "apt-get update of the source lists failed"
		tmp=$(mktemp -d "${TMPDIR:-/tmp}/mcs-qemu-src.XXXXXX")
		(cd "$tmp" && apt-get "${o[@]}" -q source --download-only "qemu=$ver" >&2) ||
			{ rm -rf "$tmp"; die "cannot download the source of qemu $ver"; }
		orig=$(ls "$tmp"/qemu_*.orig.tar.* 2>/dev/null | head -1)
		[[ -n $orig ]] || { rm -rf "$tmp"; die "no upstream tarball in the qemu $ver source"; }
		tar -xf "$orig" -C "$tmp" --wildcards '*/include/qemu/qemu-plugin.h' ||
			{ rm -rf "$tmp"; die "no include/qemu/qemu-plugin.h in $orig"; }
		mkdir -p "$dir"
		cp "$tmp"/*/include/qemu/qemu-plugin.h "$dir/"
		rm -rf "$tmp"
	fi
	echo "$dir"
}

profile_tools() {
	local dir=$1 bindir=$2 hdr here
	here=$MCS_SRC/scripts/bench/profile
	command -v qemu-system-x86_64 >/dev/null || die "no qemu-system-x86_64 (make deps)"
	hdr=$(qemu_plugin_header)
	mkdir -p "$dir" "$bindir"
	gcc -O2 -Wall -shared -fPIC -I"$hdr" -o "$dir/tbcount.so" "$here/tbcount.c" ||
		die "the plugin does not build against $hdr/qemu-plugin.h"
	gcc -static -O2 -Wall -o "$bindir/mark" "$here/mark.c" || die "mark.c does not build"
}
