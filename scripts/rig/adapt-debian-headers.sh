#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# adapt-debian-headers.sh BUILD: print a module build tree for Debian headers
# tree BUILD (fetch-debian-kernel.sh's DIR/build) that this host's gcc can
# use.  BUILD itself when the kernel was built by this gcc's version or an
# older one; otherwise (Debian's 7.x kernels come from trixie's gcc-14,
# bookworm has gcc-12) an adapted copy, made once and cached next to BUILD:
#
#   DIR/gcc<MAJOR>/build -> usr/src/linux-headers-<abi>
#
# The copy differs from Debian's tree in three ways:
#  - the toolchain capability symbols (CONFIG_CC_*, CONFIG_GCC_*, CONFIG_AS_*,
#    CONFIG_LD_*, CONFIG_TOOLCHAIN_*, CONFIG_PAHOLE_*) in .config, include/config/auto.conf and
#    include/generated/autoconf.h are those Kconfig computes for this host's
#    gcc and binutils from the same Debian source and .config (so the build
#    passes no flag gcc lacks, e.g. -fmin-function-alignment); every other
#    symbol stays Debian's, so the kernel's structure layouts are unchanged;
#  - module BTF is switched off (CONFIG_DEBUG_INFO_BTF_MODULES, in auto.conf
#    only: autoconf.h keeps it, struct module depends on it) when this host's
#    pahole is older than the one the kernel was built with;
#  - linux-kbuild's programs that do not run against this host's glibc
#    (modpost, objtool, resolve_btfids: Debian builds them against trixie's)
#    are rebuilt from the same source (`make modules_prepare` in a scratch
#    directory) with this host's compiler.
# The source is Debian's linux-source-<VERSION.PATCHLEVEL> of the exact
# package version the headers came from (include/generated/package.h).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

arg=${1:?usage: adapt-debian-headers.sh BUILD}
build=$(cd "$arg" && pwd -P) || die "no headers tree $arg"
for f in .config include/config/auto.conf include/generated/autoconf.h Makefile; do
	[[ -f $build/$f ]] || die "$build is not a kernel headers tree (no $f)"
done

# kconf SYMBOL: its value in BUILD's auto.conf (quotes removed)
kconf() { sed -n "s/^$1=//p" "$build/include/config/auto.conf" | tr -d '"'; }
hostgcc=$(gcc -dumpfullversion 2>/dev/null) || die "no gcc on this host"
IFS=. read -r ma mi pa <<<"$hostgcc"
hostver=$((ma * 10000 + mi * 100 + ${pa:-0}))
kgcc=$(kconf CONFIG_GCC_VERSION)
if [[ -z $kgcc ]] || ((kgcc <= hostver)); then
	echo "$arg"
	exit 0
fi

# the Debian package version (" Debian 7.3.4-1~bpo13+1") and its series
pkgver=$(sed -n 's/^#define LINUX_PACKAGE_ID " *Debian \(.*\)"$/\1/p' "$build/include/generated/package.h" 2>/dev/null || true)
[[ -n $pkgver ]] || die "$build was built by gcc $kgcc (this host has $hostgcc) and is not a Debian headers tree (no package version in include/generated/package.h): cannot adapt it"
series=$(cut -d. -f1,2 <<<"$pkgver")
# DIR/usr/src/linux-headers-<abi> -> DIR
top=$(cd "$build/../../.." && pwd -P)
abi=$(basename "$build")
[[ $abi == linux-headers-* && -d $top/usr/src/$abi ]] ||
	die "$build: expected DIR/usr/src/linux-headers-<abi> (fetch-debian-kernel.sh's layout)"
out=$top/gcc$ma
exec 9>"$top/.adapt-gcc$ma.lock"
flock 9
if [[ -e $out/.done ]]; then
	echo "$out/build"
	exit 0
fi

start=$SECONDS
log "adapting $abi (gcc $kgcc) to gcc $hostgcc: Debian source $pkgver"
src=$("$MCS_RIG/fetch-source.sh" "$series" "$pkgver")
rm -rf "$out"
mkdir -p "$out/usr/src" "$out/usr/lib"
common=$(sed -n 's@^include \.\./\(linux-headers-[^/]*\)/Makefile$@\1@p' "$build/Makefile")
[[ -n $common && -d $top/usr/src/$common ]] || die "$build/Makefile does not include a common headers tree"
kbuild=$(readlink "$build/scripts" | sed -n 's@^\.\./\.\./lib/\(linux-kbuild-[^/]*\)/scripts$@\1@p')
[[ -n $kbuild && -d $top/usr/lib/$kbuild ]] || die "$build/scripts does not point to a linux-kbuild tree"
cp -a "$build" "$out/usr/src/$abi"
cp -al "$top/usr/src/$common" "$out/usr/src/$common"	# not modified: hard links
cp -a "$top/usr/lib/$kbuild" "$out/usr/lib/$kbuild"
[[ -L $top/usr/src/$kbuild ]] && cp -a "$top/usr/src/$kbuild" "$out/usr/src/"
dst=$out/usr/src/$abi
sed -i -E "s@^KBUILD_OUTPUT=.*@KBUILD_OUTPUT=$dst@" "$dst/Makefile"
# Debian's compiler (gcc-14) by this host's
[[ -f $dst/.kernelvariables ]] &&
	sed -i -E 's@^CC = (.*)\$\(CROSS_COMPILE\)gcc-[0-9]+$@CC = \1$(CROSS_COMPILE)gcc@' "$dst/.kernelvariables"

# What this host's toolchain can do, according to the same Kconfig
scratch=$out/scratch
mkdir -p "$scratch"
cp "$build/.config" "$scratch/.config"
mk() { make -s -C "$src" O="$scratch" ARCH=x86 CROSS_COMPILE=x86_64-linux-gnu- "$@" >&2; }
mk olddefconfig || die "Kconfig of $src with $build/.config failed"
# kbuild's programs, and include/config/auto.conf + autoconf.h for this gcc
log "rebuilding linux-kbuild's programs from $src"
mk -j"$(nproc)" modules_prepare || die "modules_prepare in $scratch failed"

python3 - "$dst" "$scratch" <<'PY' || die "rewriting the capability symbols failed"
import os, re, sys
dst, scr = sys.argv[1:]
CAP = re.compile(r"CONFIG_(CC|GCC|AS|LD|TOOLCHAIN|PAHOLE)_[A-Z0-9_]*$")

def symbols(path, rx):
    """name -> full line, for every line rx matches (group 1: the name)"""
    out = {}
    for line in open(path):
        m = rx.match(line)
        if m and CAP.fullmatch(m.group(1)):
            out[m.group(1)] = line
    return out

def rewrite(rel, rx):
    new = symbols(os.path.join(scr, rel), rx)
    path = os.path.join(dst, rel)
    lines = open(path).readlines()
    old = {}
    for line in lines:
        m = rx.match(line)
        if m and CAP.fullmatch(m.group(1)):
            old[m.group(1)] = line
    changed = sorted(n for n in set(old) | set(new) if old.get(n) != new.get(n))
    keep = [l for l in lines if not ((m := rx.match(l)) and m.group(1) in changed)]
    keep += [new[n] for n in changed if n in new]
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.writelines(keep)
    os.replace(tmp, path)
    return old, new, changed

rewrite(".config", re.compile(r"^(?:# )?(CONFIG_[A-Za-z0-9_]+)[= ]"))
rewrite("include/generated/autoconf.h", re.compile(r"^#define (CONFIG_[A-Za-z0-9_]+?)(?:_MODULE)? "))
old, new, changed = rewrite("include/config/auto.conf", re.compile(r"^(CONFIG_[A-Za-z0-9_]+)="))
for n in changed:
    f = os.path.join(dst, "include/config", n[len("CONFIG_"):])
    if n in new:
        open(f, "a").close()
    elif os.path.exists(f):
        os.unlink(f)
    print("  %-40s %s -> %s" % (n, old.get(n, "unset").split("=", 1)[-1].strip(),
                                  new.get(n, "unset").split("=", 1)[-1].strip()), file=sys.stderr)
PY

# module BTF needs a pahole at least as new as the kernel's
kpahole=$(kconf CONFIG_PAHOLE_VERSION)
hpahole=$(pahole --version 2>/dev/null | tr -dc 0-9 || true)
if grep -q '^CONFIG_DEBUG_INFO_BTF_MODULES=y' "$dst/include/config/auto.conf" &&
	[[ -n $kpahole ]] && ((${hpahole:-0} < kpahole)); then
	log "module BTF off: pahole ${hpahole:-none} on this host, $kpahole built the kernel"
	sed -i '/^CONFIG_DEBUG_INFO_BTF_MODULES=/d' "$dst/include/config/auto.conf"
fi

# linux-kbuild's programs that do not run here, by their rebuilt twins.
# Debian's modpost and objtool are wrappers that run NAME.real-<target>:
# the twin of the x86_64 target's (modpost.real-lsb-64, objtool.real-x86)
# is NAME; the other targets' stay as they are (never run for x86_64).
n=0
while read -r f; do
	rel=${f#"$out/usr/lib/$kbuild/"}
	[[ $(file -b "$f") == ELF* ]] || continue
	[[ $(ldd "$f" 2>&1 || true) == *'not found'* ]] || continue
	twin=$rel
	case $rel in
	*.real-lsb-64 | *.real-x86) twin=${rel%.real-*} ;;
	*.real-*) continue ;;
	esac
	[[ -x $scratch/$twin ]] || die "$rel of $kbuild does not run on this host and $scratch/$twin was not built"
	rm -f "$f"
	cp "$scratch/$twin" "$f"
	n=$((n + 1))
done < <(find "$out/usr/lib/$kbuild" -type f -perm -u+x)
log "replaced $n program(s) of $kbuild"
rm -rf "$scratch"
ln -sfn "usr/src/$abi" "$out/build"
touch "$out/.done"
log "adapted headers of $abi ready in $((SECONDS - start)) s"
echo "$out/build"
