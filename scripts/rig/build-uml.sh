#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# build-uml.sh: build (or reuse) the UML kernel for `make kunit` from
# Debian's newest linux-source-7.* and the fragment scripts/rig/configs/uml.config.
# The build lives in $MCS_CACHE/uml/<key>, key = hash of the source tree name,
# the fragment, gcc's and pahole's versions.  Prints the build directory on
# stdout; everything else goes to stderr.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# MCS_UML_FLAVOUR=debug (default: KUnit, lockdep, KASAN, kmemleak, SMP),
# debug-up (the same on one CPU, CONFIG_SMP off: see kunit-uml.sh for why
# `make check` boots it) or bench (no debugging: the benchmark measures
# locking costs).
flavour=${MCS_UML_FLAVOUR:-debug}
case $flavour in
debug | debug-up)
	frag=$MCS_SRC/scripts/rig/configs/uml.config
	# Options whose absence makes the whole rig pointless: fail on them.
	required=(KUNIT MODULES PROVE_LOCKING KASAN DEBUG_FS HOSTFS)
	if [[ $flavour == debug ]]; then
		required+=(SMP)
	else
		# uml.config with SMP turned off, generated (one fragment to keep)
		frag=$(mktemp)
		trap 'rm -f "$frag"' EXIT
		sed -e 's/^CONFIG_SMP=y$/# CONFIG_SMP is not set/' -e 's/^CONFIG_NR_CPUS=4$//' \
			"$MCS_SRC/scripts/rig/configs/uml.config" >"$frag"
		grep -qx '# CONFIG_SMP is not set' "$frag" ||
			die "uml.config has no CONFIG_SMP=y line to turn off"
	fi
	;;
bench)
	frag=$MCS_SRC/scripts/rig/configs/uml-bench.config
	required=(SMP MODULES DEBUG_FS HOSTFS)
	;;
*) die "unknown MCS_UML_FLAVOUR=$flavour" ;;
esac

src=$("$MCS_SRC/scripts/rig/fetch-source.sh" 7)
[[ -d $src ]] || die "fetch-source.sh did not give a source tree"

# base: what every object file depends on; key: base + the fragment.
base=$( {
	basename "$src"
	gcc --version | head -1
	pahole --version
} | sha256sum | cut -c1-16)
key=$( {
	echo "$base"
	cat "$frag"
} | sha256sum | cut -c1-16)
B=$MCS_CACHE/uml/$key
mkdir -p "$B"

# One builder at a time per build dir.
exec 9>"$B.lock"
flock 9

if [[ -e $B/.mcs-built && -x $B/linux ]]; then
	log "reusing UML build $B"
	echo "$B"
	exit 0
fi

# verify_config: every option the fragment asks for must be in .config
# with the same value; missing required ones are fatal.
verify_config() {
	local cfg=$B/.config line opt want got bad=0
	while IFS= read -r line; do
		if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=(.*)$ ]]; then
			opt=${BASH_REMATCH[1]} want=${BASH_REMATCH[2]}
		elif [[ $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set$ ]]; then
			opt=${BASH_REMATCH[1]} want=n
		else
			continue
		fi
		got=$(sed -n "s/^$opt=//p" "$cfg")
		[[ -z $got ]] && got=n
		[[ $got == "$want" ]] && continue
		if [[ " ${required[*]} " == *" ${opt#CONFIG_} "* ]]; then
			log "FATAL: $opt=$want requested, .config has $got"
			bad=1
		else
			log "WARNING: $opt=$want requested, .config has $got"
		fi
	done <"$frag"
	((bad == 0)) || die "UML .config lacks required options (see above)"
}

t0=$SECONDS
rm -f "$B/.mcs-built"
# A changed fragment need not cost a cold build: configure first, then start
# from the complete build of the same source and tools whose .config is
# closest to ours (Kbuild's fixdep rebuilds exactly what the difference
# touches; an identical .config rebuilds next to nothing).
if [[ ! -e $B/.config ]]; then
	cp "$frag" "$B/.config"
	make -s -C "$src" ARCH=um O="$B" olddefconfig >&2 || die "olddefconfig failed"
	want=$(mktemp)
	cp "$B/.config" "$want"
	seed='' best=''
	for m in "$MCS_CACHE"/uml/*/.mcs-built; do
		[[ -e $m ]] || continue
		d=$(dirname "$m")
		[[ $(cat "$d/.mcs-base" 2>/dev/null) == "$base" ]] || continue
		n=$(diff <(grep '^CONFIG_' "$want") <(grep '^CONFIG_' "$d/.config") | grep -c '^[<>]' || true)
		if [[ -z $best ]] || ((n < best)); then
			seed=$d best=$n
		fi
	done
	if [[ -n $seed ]]; then
		log "seeding $B from $seed ($best differing config lines)"
		cp -a "$seed/." "$B/"
		rm -f "$B/.mcs-built" "$B/build.log"
	fi
	rm -f "$want"
fi
echo "$base" >"$B/.mcs-base"
log "configuring UML in $B (source $(basename "$src"))"
cp "$frag" "$B/.config"
make -s -C "$src" ARCH=um O="$B" olddefconfig >&2 || die "olddefconfig failed"
verify_config

# at the lowest priority: make check boots guests beside it, whose timed
# cases must keep the CPU (lib.sh mcs_kernel_build_nice)
log "building UML kernel (make -j$(nproc), log $B/build.log)"
if ! mcs_kernel_build_nice make -C "$src" ARCH=um O="$B" -j"$(nproc)" >"$B/build.log" 2>&1; then
	tail -n 60 "$B/build.log" >&2
	die "UML kernel build failed (full log: $B/build.log)"
fi
[[ -x $B/linux ]] || die "UML build produced no $B/linux"
touch "$B/.mcs-built"
log "UML kernel built in $((SECONDS - t0)) s"
echo "$B"
