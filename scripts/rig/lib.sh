# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the test-rig scripts: sourced, never run.
# Every rig script starts with `set -euo pipefail` and sources this file.

# scripts/rig (this file's folder), scripts/bench and scripts/checks are
# $MCS_SCRIPTS/rig, /bench and /checks
MCS_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
MCS_SCRIPTS=$MCS_SRC/scripts
MCS_CACHE=${MCS_CACHE:-$HOME/.cache/memcg_stock}
MCS_OUT=${MCS_OUT:-$MCS_SRC/.out}
mkdir -p "$MCS_CACHE" "$MCS_OUT"
# The module's build directories (mcs_build_module) live in the cache, one
# set per source tree path: a fresh clone at the same path (a CI checkout)
# finds the objects of the last run and Kbuild compiles only what changed,
# while two trees never build in each other's directories.  A tree's first
# build of a directory starts from another tree's (mcs_build_module).
MCS_BUILDS=$MCS_CACHE/build/$(printf '%s' "$MCS_SRC" | sha256sum | cut -c1-16)
mkdir -p "$MCS_BUILDS"
[[ -e $MCS_BUILDS/tree ]] || echo "$MCS_SRC" > "$MCS_BUILDS/tree"

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Private apt configuration: lets us download packages from other Debian
# suites without touching the host's sources.  Usage: mcs_apt apt-get ...
MCS_APT_DIR=$MCS_CACHE/apt
mcs_apt_setup() {
	mkdir -p "$MCS_APT_DIR/lists/partial" "$MCS_APT_DIR/cache/archives/partial"
	local kr=/usr/share/keyrings/debian-archive-keyring.gpg src
	# bookworm-backports: the emulator (fetch-qemu.sh); its 6.12 kernels
	# are older than bookworm-security's, which the kernels resolve to
	src=$({
		printf 'deb [signed-by=%s] http://deb.debian.org/debian %s main\n' "$kr" bookworm
		printf 'deb [signed-by=%s] http://deb.debian.org/debian %s main\n' "$kr" bookworm-backports
		printf 'deb [signed-by=%s] http://deb.debian.org/debian %s main\n' "$kr" sid
		printf 'deb [signed-by=%s] http://deb.debian.org/debian %s main\n' "$kr" trixie-backports
		printf 'deb [signed-by=%s] http://deb.debian.org/debian-security %s main\n' "$kr" bookworm-security
	})
	# refresh the lists at most once every 12 hours, and when the suites
	# above changed (the stamp holds the sources.list its lists are of);
	# one updater at a time (concurrent jobs and other checkouts share the
	# cache), the others wait and see the fresh stamp
	local stamp=$MCS_APT_DIR/updated
	echo "$src" > "$MCS_APT_DIR/sources.list"
	mcs_apt_stale() {
		[[ ! -e $stamp || -n $(find "$stamp" -mmin +720 2>/dev/null) || $(cat "$stamp") != "$src" ]]
	}
	if mcs_apt_stale; then
		(
			flock 9
			if mcs_apt_stale; then
				mcs_apt apt-get -q update >&2 && echo "$src" > "$stamp"
			fi
		) 9>"$MCS_APT_DIR/update.lock"
	fi
}
mcs_apt() {
	local tool=$1; shift
	"$tool" -o Dir::Etc::SourceList="$MCS_APT_DIR/sources.list" \
		-o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State::Lists="$MCS_APT_DIR/lists" \
		-o Dir::Cache="$MCS_APT_DIR/cache" \
		-o APT::Architecture=amd64 "$@"
}
# mcs_download PKG... : .deb files into $MCS_CACHE/debs, print nothing
mcs_download() {
	mkdir -p "$MCS_CACHE/debs"
	(cd "$MCS_CACHE/debs" && mcs_apt apt-get -q download "$@" >&2)
}

# Splat patterns that fail any kernel run: selftests/splat.re, one
# extended regex a line, which selftests/run_tests.sh reads on the machine
# under test (so in every qemu guest too); the lines that match a pattern
# without being a splat: selftests/splat-ok.re.  Both joined into one regex.
mcs_re_file() { grep -v '^#' "$1" | paste -sd'|'; }
MCS_SPLAT_RE=$(mcs_re_file "$MCS_SRC/selftests/splat.re")
MCS_SPLAT_OK=$(mcs_re_file "$MCS_SRC/selftests/splat-ok.re")
# Boot banners of the debug kernels that contain a pattern above.
MCS_SPLAT_BENIGN=${MCS_SPLAT_BENIGN:-'RCU lockdep checking is enabled|kmemleak: Kernel memory leak detector initialized'}

# mcs_kdir_lock KDIR COMMAND...: run COMMAND holding KDIR's build lock.
# Every build the rig runs against a tree (vmtest, lint, compile-check,
# dkms-check, make install, examples) takes it: stages that share a build
# directory (mcs_build_module) must not build in it at the same time.
# (Module builds beside each other used to fail now and then with
# "Compiler does not support fentry?": /dev/null had become a regular
# file on that machine, and Kbuild's compiler probes compiled whatever
# another command had just written there; deps.sh checks /dev/null.)
mcs_kdir_lock() {
	local lock
	lock=$(mcs_kdir_lockfile "$1")
	shift
	flock "$lock" "$@"
}

# mcs_kdir_lockfile KDIR: the file behind KDIR's build lock
mcs_kdir_lockfile() {
	local key
	key=$(readlink -f "$1" | tr -d '\n' | sha256sum | cut -c1-16)
	mkdir -p "$MCS_CACHE/locks"
	echo "$MCS_CACHE/locks/kbuild-$key"
}

# mcs_cpu_seconds FILE: the CPU seconds (user + system) of the waited-for
# children in FILE, the output of bash's `times` (written as `times >FILE`
# by the shell whose children count: a pipe or $(...) would fork and count
# none)
mcs_cpu_seconds() {
	awk 'NR == 2 {
		t = 0
		for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] }
		printf "%d\n", t + 0.5
	}' "$1" 2>/dev/null
}

# mcs_kernel_build_nice COMMAND...: run a kernel build at nice 19.  On an
# empty cache make check builds the UML and the debug kernels while the
# UML guest runs its tests (and lint checks); a guest beside a kernel
# build at the same priority was starved and failed timing-bound cases (an
# interrupt storm that starves the tasks, a 5 s read bound).  At nice 19
# the build takes what the guest leaves, and alone it runs as fast.
mcs_kernel_build_nice() {
	nice -n 19 "$@"
}

# mcs_build_module KDIR NAME [make args...]: copy the module sources into
# $MCS_BUILDS/NAME (one copy per target kernel: Kbuild objects are not
# shareable; the Makefiles and dkms.conf come along, for make -C examples
# and make install there) and build memcg_stock.ko (+ memcg_stock_test.ko
# when the kernel has KUnit) there.  Prints the build directory.
# Copy and build run under KDIR's lock (mcs_kdir_lock), so stages that
# name the same directory share one build: make check's lint, vmtest and
# dkms-check all use "deb-amd64" (Debian's 6.12 headers), and whichever
# comes second finds the objects up to date.  Read the .ko files of a
# shared directory under the same lock.
mcs_build_module() {
	local kdir name dst
	kdir=$(readlink -f "$1")
	name=$2
	shift 2
	dst=$MCS_BUILDS/$name
	mkdir -p "$dst"
	log "building module against $kdir ($name)"
	(
		exec 9> "$(mcs_kdir_lockfile "$kdir")"
		flock 9
		[[ -e $dst/Kbuild || ${MCS_BUILD_SEED:-1} == 0 ]] || mcs_seed_build "$kdir" "$name" "$dst"
		rm -f "$dst/.mcs-kdir"
		# a folder that the tree no longer has (a seed or an earlier build
		# from a tree of another layout) still holds its objects, which
		# rsync keeps: it could not delete the folder and would fail
		local d
		for d in "$dst"/*/; do
			[[ ! -d $d || -d $MCS_SRC/$(basename "$d") ]] || rm -rf "$d"
		done
		# by content, not by time (-c, no -t): a source that differs is
		# rewritten with the current time, so Kbuild rebuilds it even
		# when it is older than the object built from another tree before
		# (each step says "|| exit 1": callers run this in $(...) or
		# after ||, where set -e does not stop a failed command)
		rsync -rlpc --delete --prune-empty-dirs \
			--exclude='.out/' --exclude='scripts/' --exclude='selftests/' --exclude='.git/' \
			--include='*/' --include='Kbuild' --include='Makefile' --include='dkms.conf' \
			--include='*.c' --include='*.h' --exclude='*' "$MCS_SRC/" "$dst/" || exit 1
		# a module that stops building must not be replaced by a stale one
		rm -f "$dst"/*.ko "$dst"/kunit/*.ko
		# -j: some 30 files per module
		make -s -j"$(nproc)" -C "$kdir" M="$dst" "$@" modules >&2 || exit 1
		echo "$kdir" > "$dst/.mcs-kdir"
	) || die "module build against $kdir failed"
	echo "$dst"
}

# mcs_seed_build KDIR NAME DST: fill the empty build directory DST with the
# newest build of NAME against KDIR that another tree left in the cache
# (its .mcs-kdir, written after a successful build, names KDIR), the build
# directory's path rewritten in Kbuild's command and dependency files.
# Kbuild then rebuilds what differs: rsync rewrites a changed source, and
# a changed command line (other make arguments) rebuilds its object.  Runs
# under KDIR's lock, which every build against KDIR holds; a seed whose
# .mcs-kdir was removed or rewritten while it was copied (a build against
# another kernel ran there) is not used.  A fresh clone at a new path so
# compiles only what changed (MCS_BUILD_SEED=0 turns this off).
mcs_seed_build() {
	local kdir=$1 name=$2 dst=$3 f seed='' stamp
	while IFS= read -r f; do
		if [[ $(cat "$f" 2>/dev/null) == "$kdir" ]]; then
			seed=$(dirname "$f")
			break
		fi
	done < <(ls -t "$MCS_CACHE"/build/*/"$name"/.mcs-kdir 2>/dev/null)
	[[ -n $seed && $seed != "$dst" ]] || return 0
	stamp=$(stat -c %y "$seed/.mcs-kdir" 2>/dev/null) || return 0
	log "seeding $dst from $seed"
	cp -a "$seed/." "$dst/" 2>/dev/null || true
	# a build there removes .mcs-kdir first and rewrites it last
	if [[ $(stat -c %y "$seed/.mcs-kdir" 2>/dev/null) != "$stamp" ]]; then
		log "$seed changed while it was copied: building $dst from nothing"
		find "$dst" -mindepth 1 -delete
		return 0
	fi
	rm -f "$dst/.mcs-kdir"
	# shellcheck disable=SC2016 # perl expands $ENV{...}, not the shell
	{ grep -rlIZF -- "$seed" "$dst" || true; } |
		OLD=$seed NEW=$dst xargs -0 -r perl -pi -e 's/\Q$ENV{OLD}\E/$ENV{NEW}/g'
}

# mcs_warn_explained LOG: true when LOG has WARNING lines and every one of
# them is a report of the kernel's own that an injected allocation failure
# provokes (selftests/splat-alloc.awk): the W taint it leaves is no splat.
mcs_warn_explained() {
	grep -aq 'WARNING:' "$1" &&
		! awk -f "$MCS_SRC/selftests/splat-alloc.awk" "$1" | grep -aq 'WARNING:'
}

# mcs_check_console LOG: fail on any kernel splat in a console log (line
# numbers count the lines left once the kernel's own reports and leaks of
# injected allocation failures are dropped and its KCSAN reports without a
# memcg_stock frame shrunk to a line: splat-alloc.awk, kmemleak-known.awk,
# splat-kcsan.awk).
mcs_check_console() {
	local f=$1
	if awk -f "$MCS_SRC/selftests/splat-alloc.awk" "$f" |
		awk -f "$MCS_SRC/selftests/kmemleak-known.awk" |
		awk -f "$MCS_SRC/selftests/splat-kcsan.awk" | grep -a -E -n "$MCS_SPLAT_RE" |
		grep -a -v -E "$MCS_SPLAT_OK|$MCS_SPLAT_BENIGN" >&2; then
		die "kernel splat in $f (lines above)"
	fi
}

# mcs_kcsan_summary LOG OUT: one line, "MCS-SOAK kcsan: N report(s), M
# with a memcg_stock frame", for the KCSAN reports in a console log; OUT
# gets the function pairs with their counts, ours (a title naming the
# module: splat-kcsan.awk prints the report whole) apart from the kernel's
# own (its MCS-KCSAN-FOREIGN lines).  Fails when one is ours.
mcs_kcsan_summary() {
	local all ours
	awk -f "$MCS_SRC/selftests/splat-kcsan.awk" "$1" |
		sed -n -E -e 's/^(\[ *[0-9.]+\] )?BUG: KCSAN: /ours: /p' \
			-e 's/^MCS-KCSAN-FOREIGN: /not ours: /p' | sort | uniq -c | sort -rn > "$2"
	all=$(awk '{ n += $1 } END { print n + 0 }' "$2")
	ours=$(awk '$2 == "ours:" { n += $1 } END { print n + 0 }' "$2")
	echo "MCS-SOAK kcsan: $all report(s), $ours with a memcg_stock frame (pairs: $2)"
	((ours == 0))
}

# The qemu test kernels, by name (VM_KERNELS, SOAK_KERNELS, BENCH_KERNELS):
#   deb-FLAVOUR         Debian bookworm's newest 6.12 of FLAVOUR (amd64,
#                       rt-amd64, cloud-amd64)
#   deb-SERIES-FLAVOUR  Debian's newest SERIES.* of FLAVOUR in any suite the
#                       private apt configuration reaches (deb-6.1-amd64,
#                       deb-6.1-rt-amd64, deb-7.3-amd64, ...);
#                       `scripts/rig/fetch-debian-kernel.sh --list` lists them
#   dbg-generic, dbg-rt our 6.12 debug kernels (scripts/rig/build-debug-kernel.sh);
#   dbg-numa            the same as dbg-generic with NUMA (soak, +numaN)
#   dbg-kasan           the same as dbg-generic with KASAN (SMP, slab checks)
#   dbg-kcsan           dbg-generic with KCSAN, without lockdep and kmemleak
#                       (soak, +smp4: data races)
#   path                any kernel by path: KERNEL= its bzImage or vmlinuz,
#                       KDIR= its module build tree (mcs_path_kernel)
# A spec may add guest options: NAME[+smpN][+numaN] (N vCPUs, N NUMA nodes),
# e.g. deb-amd64+smp8, deb-amd64+smp4+numa4.
MCS_RIG=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# The kernels `make vmtest` (and so `make check`) boots when VM_KERNELS is
# not set; prepare-kernels.sh builds the same list.  dbg-generic (the
# lockdep/kmemleak debug kernel without RT) costs 15 minutes of build on an
# empty cache: it is booted by `make soak` (SOAK_KERNELS), so that a cold
# `make check` stays within its 30 minutes.
# Its "path" is Debian 6.1 (MCS_PATH_DEFAULT) booted the way a user boots
# their own kernel, KERNEL= its image and KDIR= its headers (mcs_vm_kernels).
# dbg-kasan (dbg-generic with KASAN) is the SMP guest where slab misuse is
# caught as it happens, and where the KUnit suites run on !PREEMPT_RT with
# SMP and NMIs.
# vmtest boots dbg-* first (the longest guests), the others in this order:
# deb-amd64 last, as lint builds its module at the start of make check
MCS_VM_KERNELS_DEFAULT='deb-rt-amd64 path deb-amd64 dbg-rt dbg-kasan'
MCS_PATH_DEFAULT=6.1-amd64
MCS_KERNEL_NAMES='deb-FLAVOUR, deb-SERIES-FLAVOUR (scripts/rig/fetch-debian-kernel.sh --list), dbg-generic, dbg-rt, dbg-numa, dbg-kasan, dbg-kcsan, path (KERNEL= and KDIR=)'

# The emulator of every qemu guest (MCS_QEMU):
#   backports  bookworm-backports' qemu (10.0), unpacked into the cache by
#              fetch-qemu.sh (the default: Debian 12's 7.2 corrupts a
#              guest's CPU state under TCG with an NMI load, docs/testing.md
#              "Emulator faults")
#   system     the host's qemu-system-x86_64 (Debian 12: qemu 7.2)
#   PATH       any qemu-system-x86_64 binary
# mcs_qemu_cmd: set the array MCS_QEMU_CMD to the command that runs it and
# MCS_QEMU_VERSION to its version (`--version`'s first line, shortened)
mcs_qemu_cmd() {
	local q=${MCS_QEMU:-backports} d
	case $q in
	system)
		command -v qemu-system-x86_64 >/dev/null || die "no qemu-system-x86_64 (make deps)"
		MCS_QEMU_CMD=(qemu-system-x86_64) ;;
	backports)
		d=$("$MCS_RIG/fetch-qemu.sh") || die "cannot fetch qemu from bookworm-backports (MCS_QEMU=system: the host's)"
		# its own data, BIOS and modules: the host's are 7.2's
		MCS_QEMU_CMD=(env "QEMU_MODULE_DIR=$d/usr/lib/x86_64-linux-gnu/qemu"
			"$d/usr/bin/qemu-system-x86_64" -L "$d/usr/share/qemu" -L "$d/usr/share/seabios") ;;
	*/*)
		[[ -x $q ]] || die "MCS_QEMU=$q is not an executable"
		MCS_QEMU_CMD=("$q") ;;
	*) die "MCS_QEMU=$q: expected backports, system or the path of a qemu-system-x86_64" ;;
	esac
	MCS_QEMU_VERSION=$("${MCS_QEMU_CMD[@]}" --version | sed -n '1s/^QEMU emulator version //p')
	[[ -n $MCS_QEMU_VERSION ]] || die "${MCS_QEMU_CMD[*]} does not run"
}

# The UML guest's CPUs (kunit-uml.sh) and the build flavour (build-uml.sh)
# that boots them: one CPU is the UP debug kernel, more the SMP one.
MCS_UML_NCPUS=${MCS_UML_CPUS:-1}
mcs_uml_flavour() {
	if ((MCS_UML_NCPUS > 1)); then echo debug; else echo debug-up; fi
}

# mcs_kernel_spec SPEC: check a spec and print "NAME SMP NUMA" (0: not given)
mcs_kernel_spec() {
	local spec=$1 name smp=0 numa=0 opt
	name=${spec%%+*}
	[[ $name == deb-?* || $name == dbg-generic || $name == dbg-rt || $name == dbg-numa || $name == dbg-kasan || $name == dbg-kcsan || $name == path ]] ||
		die "unknown kernel '$name' in '$spec': expected $MCS_KERNEL_NAMES"
	[[ $spec == *+* ]] && for opt in $(tr '+' ' ' <<<"${spec#*+}"); do
		case $opt in
		smp[1-9]*) smp=${opt#smp} ;;
		numa[1-9]*) numa=${opt#numa} ;;
		*) opt= ;;
		esac
		[[ -n $opt && $smp =~ ^[0-9]+$ && $numa =~ ^[0-9]+$ ]] ||
			die "bad option in kernel spec '$spec': expected NAME[+smpN][+numaN]"
	done
	echo "$name $smp $numa"
}

# mcs_kernel_append NAME: the boot options a test kernel needs beyond
# qemu-run.sh's.  dbg-kcsan: KCSAN ends every report in
# check_panic_on_warn(), so under qemu-run.sh's panic_on_warn=1 the first
# race of the kernel's own would end the guest; the log scan still fails
# a WARN, and a KCSAN report with a memcg_stock frame.
mcs_kernel_append() {
	case $1 in
	dbg-kcsan) echo panic_on_warn=0 ;;
	# 4-level paging: with 5-level (qemu's -cpu max has LA57) KASAN reads
	# its shadow bounds from the LA57 CPU feature bit, which identify_cpu()
	# clears for a moment at boot; an interrupt then made KASAN call its
	# own irq_desc lock a wild access (docs/testing.md, "Emulator faults")
	dbg-kasan) echo no5lvl ;;
	esac
}

# mcs_qemu_kernel NAME: fetch or build a qemu test kernel and print
# "VMLINUZ KDIR DEBUG" (DEBUG 1: our debug kernels, with KUnit and lockdep)
mcs_qemu_kernel() {
	local d k
	case $1 in
	dbg-generic | dbg-rt | dbg-numa | dbg-kasan | dbg-kcsan)
		d=$("$MCS_RIG/build-debug-kernel.sh" "${1#dbg-}") || return 1
		echo "$d/vmlinuz $d/build 1"
		;;
	path) mcs_path_kernel ;;
	deb-6.1) die "deb-6.1 is a headers-only tree (make compile-6.1): boot deb-6.1-amd64" ;;
	deb-?*)
		d=$("$MCS_RIG/fetch-debian-kernel.sh" "${1#deb-}") || return 1
		[[ -f $d/vmlinuz ]] || die "no $d/vmlinuz"
		# 7.x: headers built by a newer gcc than ours, adapted once
		k=$("$MCS_RIG/adapt-debian-headers.sh" "$d/build") || return 1
		echo "$d/vmlinuz $k 0"
		;;
	*) die "unknown kernel '$1': expected $MCS_KERNEL_NAMES" ;;
	esac
}

# mcs_ktap_block LOG: the KUnit report between the MCS-KTAP-BEGIN and
# MCS-KTAP-END lines of a guest's console log, less the kernel's own
# console messages that landed between its lines (one "[  248.668668]
# clocksource: ..." line inside the report broke kunit.py's parse); the
# report is read from debugfs and has no timestamps.
mcs_ktap_block() {
	awk '/^MCS-KTAP-END$/ { on = 0 }
		on && !/^\[ *[0-9]+\.[0-9]+\] / { print }
		/^MCS-KTAP-BEGIN$/ { on = 1 }' "$1"
}

# mcs_kill_tree PID: SIGTERM PID and every process below it, children
# first found, so that an interrupted job takes its qemu or UML along.
mcs_kill_tree() {
	local c
	for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do mcs_kill_tree "$c"; done
	kill "$1" 2>/dev/null || true
}

# mcs_children_cpu: host CPU seconds (user + system) used so far by the
# calling script's finished, waited-for children (/proc/PID/stat cutime and
# cstime; bash's `times` cannot be piped: a subshell has no children).
mcs_children_cpu() {
	awk -v hz="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); printf "%.0f\n", ($14 + $15) / hz }' \
		"/proc/$$/stat"
}

# mcs_crash_line LOG: the first line of LOG that reports a kernel crash
# (an oops, a BUG, a warning, which panic_on_warn makes one, a double or
# general protection fault, a panic), without the kernel's own reports of
# injected allocation failures (selftests/splat-alloc.awk); nothing when
# there is none.  Every crash fails its run, whatever code it is in:
# memory the module corrupts crashes later in another subsystem's
# allocation.
mcs_crash_line() {
	awk -f "$MCS_SRC/selftests/splat-alloc.awk" "$1" |
		grep -a -m1 -E 'Oops|BUG:|WARNING:|double fault|general protection fault|Kernel panic' || true
}

# mcs_stall_before_module LOG: an RCU stall (or a hung task) reported before
# memcg_stock was loaded: a host too loaded to run the guest's timers, the
# one failure for which vmtest.sh and stress-soak.sh boot a guest again.
mcs_stall_before_module() {
	local ins stall
	ins=$(grep -an -m1 '^MCS-INSMOD memcg_stock' "$1" | cut -d: -f1 || true)
	stall=$(grep -anE -m1 'detected stalls|self-detected stall|kthread starved|blocked for more than' "$1" |
		cut -d: -f1 || true)
	[[ -n $stall ]] && { [[ -z $ins ]] || ((stall < ins)); }
}

# kernels by path (KERNEL=, KDIR=) and what their configuration must have
. "$MCS_RIG/path-kernel.sh"
