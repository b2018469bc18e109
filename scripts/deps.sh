#!/bin/bash
# Install every Debian package the rig needs.  Idempotent: no apt call at
# all when everything is already there.
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
