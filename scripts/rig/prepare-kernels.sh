#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# prepare-kernels.sh: the first stage of `make check`: build or fetch every
# kernel the test stages boot, before any of them boots one:
#   - the UML kernel of kunit-uml.sh (build-uml.sh, the flavour of
#     MCS_UML_CPUS: lib.sh mcs_uml_flavour)
#   - each VM_KERNELS kernel of vmtest.sh (lib.sh mcs_qemu_kernel: Debian's
#     downloaded, ours built by build-debug-kernel.sh)
# The UML build and the qemu kernels run side by side; each is cached and
# locked by its own script, so a later stage that asks again gets the
# cached result at once.
#
# Why a stage of its own: vmtest boots its guests only once every qemu
# kernel is there.  kunit-uml does not wait for it: its UML guest may run
# beside the debug kernel build, which runs at nice 19 (at the same
# priority, the starved UML guest failed timing-bound cases - an interrupt
# storm that starves the tasks, a 5 s read bound - that pass on a quiet
# host).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

mcs_vm_kernels
kernels=("${MCS_VM_KERNELS[@]}")
for k in "${kernels[@]}"; do mcs_kernel_spec "$k" > /dev/null; done
t0=$SECONDS

MCS_UML_FLAVOUR=$(mcs_uml_flavour) "$here/build-uml.sh" > /dev/null &
uml=$!
trap 'mcs_kill_tree "$uml"' INT TERM

fail=0
declare -A seen=()
for k in "${kernels[@]}"; do
	read -r name _ <<<"$(mcs_kernel_spec "$k")"
	[[ -n ${seen[$name]:-} ]] && continue
	seen[$name]=1
	ts=$SECONDS
	if mcs_qemu_kernel "$name" > /dev/null; then
		log "prepare: $name ready ($((SECONDS - ts)) s)"
	else
		log "prepare: $name FAILED"
		fail=1
	fi
done
if wait "$uml"; then
	log "prepare: UML kernel ready"
else
	log "prepare: UML kernel build FAILED"
	fail=1
fi
trap - INT TERM
log "prepare: $((SECONDS - t0)) s"
((fail == 0)) || die "a kernel could not be prepared (above)"
