#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# build-debug-kernel.sh generic|rt|numa|kasan|kcsan: build a small x86_64 debug kernel (KUnit,
# lockdep, kmemleak, fault injection, CPU hotplug, SMP) from Debian's
# linux-source-6.12 for the qemu runs of `make vmtest`.
#
# tinyconfig + scripts/rig/configs/debug-6.12.config (+ debug-6.12-rt.config for
# rt, debug-6.12-numa.config for numa: NUMA from the ACPI SRAT,
# debug-6.12-kasan.config for kasan, debug-6.12-kcsan.config for kcsan:
# KCSAN without lockdep and kmemleak) + olddefconfig; every fragment line is checked in the final .config.
# Cached under $MCS_CACHE/debugk/<variant>-<hash>/, the hash covering the
# source package name, the fragments and the gcc/pahole versions:
#   vmlinuz     the bzImage
#   build/      relocatable external-module build tree (make -C build M=...)
#   obj/        the O= build directory (kept so a fragment-free rebuild is
#               incremental; not needed to build modules)
#   build.log   configure + compile log
#   .done       written last, only on success
# Prints that directory.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

variant=${1:?usage: build-debug-kernel.sh generic|rt|numa|kasan|kcsan}
frags=("$MCS_SRC/scripts/rig/configs/debug-6.12.config")
case $variant in
generic) ;;
rt) frags+=("$MCS_SRC/scripts/rig/configs/debug-6.12-rt.config") ;;
numa) frags+=("$MCS_SRC/scripts/rig/configs/debug-6.12-numa.config") ;;
kasan) frags+=("$MCS_SRC/scripts/rig/configs/debug-6.12-kasan.config") ;;
kcsan) frags+=("$MCS_SRC/scripts/rig/configs/debug-6.12-kcsan.config") ;;
*) die "unknown variant '$variant' (generic|rt|numa|kasan|kcsan)" ;;
esac

src=$("$MCS_SRC/scripts/rig/fetch-source.sh" 6.12)
key=$( {
	basename "$src"
	# the options make the kernel, not the comments ("# CONFIG_X is not
	# set" is an option)
	grep -hE '^CONFIG_|^# CONFIG_.* is not set' "${frags[@]}"
	gcc --version | head -1
	pahole --version
} | sha256sum | cut -c1-12)
dir=$MCS_CACHE/debugk/$variant-$key
mkdir -p "$dir"

# one builder per directory; a second caller waits and reuses the result
exec 9>"$dir/.lock"
flock 9
if [[ -e $dir/.done ]]; then
	echo "$dir"
	exit 0
fi

obj=$dir/obj
blog=$dir/build.log
: > "$blog"
log "building debug kernel '$variant' in $obj (log: $blog)"
start=$SECONDS
(
	set -x
	make -C "$src" O="$obj" tinyconfig
	KCONFIG_CONFIG=$obj/.config "$src/scripts/kconfig/merge_config.sh" \
		-m -O "$obj" "$obj/.config" "${frags[@]}"
	make -C "$src" O="$obj" olddefconfig
) >> "$blog" 2>&1 || die "configuring failed, see $blog"

# The fragments, last assignment of each symbol winning, must be in .config.
bad=0
while read -r sym want; do
	if [[ $want == n ]]; then
		if grep -q "^$sym=" "$obj/.config"; then
			log "config: $sym should be unset but is $(grep "^$sym=" "$obj/.config")"
			bad=1
		fi
	elif ! grep -qx "$sym=$want" "$obj/.config"; then
		log "config: wanted $sym=$want, got: $(grep -E "^(# )?$sym[= ]" "$obj/.config" || echo nothing)"
		bad=1
	fi
done < <(sed -n -E -e 's/^(CONFIG_[A-Za-z0-9_]+)=(.*)$/\1 \2/p' \
		-e 's/^# (CONFIG_[A-Za-z0-9_]+) is not set$/\1 n/p' "${frags[@]}" |
	awk '{ v[$1] = $2; if (!($1 in o)) { o[$1] = n++ } }
	     END { for (s in v) print o[s], s, v[s] }' | sort -n | cut -d' ' -f2-)
((bad == 0)) || die "the $variant config fragment did not stick (see above)"

# at the lowest priority, as the UML build (lib.sh mcs_kernel_build_nice)
mcs_kernel_build_nice make -C "$src" O="$obj" -j"$(nproc)" bzImage modules >> "$blog" 2>&1 ||
	die "kernel build failed, see $blog (tail: $(tail -5 "$blog"))"

rm -rf "$dir/build"
(cd "$obj" && srctree=$src SRCARCH=x86 CC=gcc HOSTCC=gcc MAKE=make \
	sh "$src/scripts/package/install-extmod-build" "$dir/build") >> "$blog" 2>&1 ||
	die "exporting the module build tree failed, see $blog"
cp "$obj/arch/x86/boot/bzImage" "$dir/vmlinuz"
touch "$dir/.done"
log "debug kernel '$variant' built in $((SECONDS - start)) s"
echo "$dir"
