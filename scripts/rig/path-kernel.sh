# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Kernels by path, sourced by lib.sh (never run): the kernel "path" of
# mcs_qemu_kernel is the image KERNEL= with the build tree KDIR=, whatever
# built them; its configuration is checked before anything boots.

# mcs_vm_kernels: the kernels of `make vmtest` (and of prepare-kernels.sh)
# into the array MCS_VM_KERNELS: VM_KERNELS; else "path" alone when KERNEL=
# is set; else MCS_VM_KERNELS_DEFAULT, whose "path" is Debian's
# MCS_PATH_DEFAULT image and headers from the cache, exported as KERNEL=
# and KDIR= so that every make check boots one kernel by path.
mcs_vm_kernels() {
	local d
	if [[ -n ${VM_KERNELS:-} ]]; then
		read -r -a MCS_VM_KERNELS <<<"$VM_KERNELS"
	elif [[ -n ${KERNEL:-} ]]; then
		MCS_VM_KERNELS=(path)
	else
		read -r -a MCS_VM_KERNELS <<<"$MCS_VM_KERNELS_DEFAULT"
		d=$("$MCS_RIG/fetch-debian-kernel.sh" "$MCS_PATH_DEFAULT") ||
			{ log "path: Debian $MCS_PATH_DEFAULT is not available"; return 0; }
		export KERNEL=$d/vmlinuz KDIR=$d/build
		# the rig's own "path" kernel: vmtest may boot it with options
		# of its own (VM_ISOLATED); a user's KERNEL= gets none
		export MCS_PATH_IS_RIGS=1
	fi
}

# What a kernel needs for the rig to boot it under qemu with its initramfs
# and run the suite: CONFIG_ option, then why.
MCS_CONFIG_NEEDED='MODULES:memcg_stock.ko is a module
MODULE_UNLOAD:the suite unloads the module
DEBUG_FS:the harness and the KUnit report are in debugfs
X86_64:the guests are qemu-system-x86_64 with x86-64 static programs
SMP:the guests have 2 vCPUs and more
ACPI:without it the guest firmware reports one CPU
BLK_DEV_INITRD:the tests come in an initramfs
RD_GZIP:the initramfs is gzip-compressed
BINFMT_ELF:busybox and the selftests are static ELF programs
BINFMT_SCRIPT:/init is a shell script
DEVTMPFS:/init mounts /dev
TMPFS:/init mounts /tmp
PROC_FS:the suite reads /proc/modules and the taint
SYSFS:debugfs is mounted on /sys/kernel/debug
FUTEX:the threaded selftests
SERIAL_8250_CONSOLE:the results come over the serial console
PRINTK:the kernel log is judged'
# Detected, not needed: the tests of each SKIP with a reason without it.
MCS_CONFIG_OPTIONAL='KUNIT:kunit PROVE_LOCKING:lockdep DEBUG_KMEMLEAK:kmemleak HOTPLUG_CPU:hotplug HAVE_NMI:nmi PREEMPT_RT:rt NUMA:numa'

# mcs_kconfig KDIR: the configuration of a build tree: its .config, else
# include/config/auto.conf (an exported module build tree has only that)
mcs_kconfig() {
	if [[ -f $1/.config ]]; then
		echo "$1/.config"
	elif [[ -f $1/include/config/auto.conf ]]; then
		echo "$1/include/config/auto.conf"
	else
		die "no $1/.config: KDIR must be a configured kernel build tree (where the kernel was built, or a headers package's tree)"
	fi
}

# mcs_kernel_config KDIR: refuse (die, naming each missing option and why)
# a kernel build tree whose configuration lacks what the suite needs
mcs_kernel_config() {
	local cfg opt why missing=()
	cfg=$(mcs_kconfig "$1") || exit 1
	while IFS=: read -r opt why; do
		grep -q "^CONFIG_$opt=y" "$cfg" || missing+=("CONFIG_$opt: $why")
	done <<<"$MCS_CONFIG_NEEDED"
	((${#missing[@]} == 0)) ||
		die "$cfg lacks what the suite needs: $(printf '%s; ' "${missing[@]}" | sed 's/; $//')"
}

# mcs_kernel_features KDIR: the optional features its .config has, as words
# (kunit lockdep kmemleak hotplug nmi rt numa); "-" for none
mcs_kernel_features() {
	local cfg f out=
	cfg=$(mcs_kconfig "$1") || exit 1
	for f in $MCS_CONFIG_OPTIONAL; do
		grep -qE "^CONFIG_${f%%:*}=[ym]" "$cfg" 2>/dev/null && out+=" ${f#*:}"
	done
	echo "${out# }" | sed 's/^$/-/'
}

# mcs_path_kernel: the kernel "path" of mcs_qemu_kernel: KERNEL= and KDIR=
# checked, KDIR/.config refused when it lacks a needed option; prints
# "VMLINUZ KDIR DEBUG" (DEBUG 1: KUnit, lockdep and kmemleak all there)
mcs_path_kernel() {
	local k=${KERNEL:-} kd=${KDIR:-} feat
	[[ -n $k && -n $kd ]] ||
		die "kernel 'path' needs KERNEL= (its bzImage or vmlinuz) and KDIR= (its module build tree)"
	[[ -f $k ]] || die "KERNEL=$k: no such file"
	file -L "$k" 2>/dev/null | grep -q 'Linux kernel x86 boot executable' ||
		die "KERNEL=$k is not an x86 kernel image (bzImage or vmlinuz; vmlinux is the ELF, not bootable by qemu -kernel)"
	[[ -d $kd && -f $kd/Makefile ]] || die "KDIR=$kd is not a kernel build tree (no Makefile)"
	mcs_kernel_config "$kd"
	feat=$(mcs_kernel_features "$kd")
	log "path: $k, build tree $kd ($(sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' "$kd/include/generated/utsrelease.h" 2>/dev/null)): optional features: $feat"
	echo "$(readlink -f "$k") $(readlink -f "$kd") $([[ " $feat " == *" kunit "*" lockdep "*" kmemleak "* ]] && echo 1 || echo 0)"
}
