#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install every Debian package the rig needs, and fetch the guests'
# emulator.  Idempotent: no apt call at all when everything is already
# there (but the private apt configuration's refresh, twice a day).
set -euo pipefail

pkgs=(build-essential bc bison flex libelf-dev libssl-dev pahole cpio gzip
      xz-utils python3 qemu-system-x86 busybox-static debian-archive-keyring
      kmod rsync sparse gnuplot-nox file dkms)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
if ((${#missing[@]})); then
	echo "deps: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get -q update
	apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# The guests' emulator (lib.sh mcs_qemu_cmd): bookworm-backports' qemu,
# unpacked into the cache (the host's apt sources stay as they are);
# bookworm's qemu-system-x86 above brings its libraries.
if [[ ${MCS_QEMU:-backports} == backports ]]; then
	"$(dirname "$0")/fetch-qemu.sh" >/dev/null
fi

# /dev/null must be the null device.  On a machine where it had become a
# regular file, whatever a command had just written to it stayed there, and
# the compiler probes of Kbuild (`gcc ... -x c /dev/null`) compiled that
# text: a probe failed at random under load and module builds stopped with
# "Compiler does not support fentry?".  As root, put the device back.
if [[ ! -c /dev/null ]]; then
	if ((EUID == 0)); then
		echo "deps: /dev/null is not a character device ($(stat -c %F /dev/null)); recreating it" >&2
		rm -f /dev/null
		mknod -m 666 /dev/null c 1 3
	else
		echo "deps: /dev/null is not a character device: compiler probes will fail at random; recreate it as root (mknod -m 666 /dev/null c 1 3)" >&2
		exit 1
	fi
fi
