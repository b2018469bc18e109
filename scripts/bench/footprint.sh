#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# footprint.sh (`make footprint`): the memory footprint of one memcg on 1,
# 2 and 4 NUMA nodes, as the module reports it (debugfs "slab"): the memcg
# struct and one per-node struct per node, from kmalloc and from the
# dedicated kmem_caches of slab_caches.c.  One Debian 6.12 generic guest
# per node count under qemu TCG (node i is socket i; with more nodes than
# vCPUs the nodes beyond are memory-only); the guest runs one short bench
# job as a check that the module works there.  footprint-table.py reads the
# guests' "slab" and prints the table to $MCS_OUT/footprint/footprint.txt;
# scripts/bench/update-bench-docs.py --footprint puts it into
# docs/design.md.
#
# Environment: FOOTPRINT_KERNEL (default deb-amd64, any qemu kernel of
# `make vmtest`), FOOTPRINT_NODES (node counts, default "1 2 4", each 1..8).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../rig/lib.sh"
. "$here/bench-lib.sh"
kernel=${FOOTPRINT_KERNEL:-deb-amd64}
[[ $kernel != *+* ]] || die "FOOTPRINT_KERNEL=$kernel: give a kernel name without options (the node count is FOOTPRINT_NODES's)"
nodes=${FOOTPRINT_NODES:-1 2 4}
[[ -n ${nodes// /} ]] || die "FOOTPRINT_NODES is empty: give node counts, e.g. \"1 2 4\""
for n in $nodes; do
	[[ $n =~ ^[1-8]$ ]] || die "FOOTPRINT_NODES: '$n' is not a node count from 1 to 8"
done
# what run_qemu reads
ncpus=2
ms=100
stall=${BENCH_STALL_S:-300}
B=$MCS_OUT/footprint
rm -rf "$B"
mkdir -p "$B"
t0=$SECONDS
echo "mode=decoupled clients=1 workload=pages memcgs=1 duration_ms=20" >"$B/jobs.txt"
files=()
for n in $nodes; do
	log "footprint: $kernel with $n NUMA node(s)"
	run_qemu "$kernel+numa$n" "$B/numa$n" "$B/jobs.txt"
	grep -q 'verdict=PASS' "$B/numa$n/results.txt" ||
		die "footprint: the check job failed on $n node(s): $(cat "$B/numa$n/results.txt")"
	files+=("$n=$B/numa$n/slab-kmem_cache.txt")
done
python3 "$here/footprint-table.py" --meta "$B/numa${nodes%% *}/meta.txt" "${files[@]}" |
	tee "$B/footprint.txt"
log "footprint: $((SECONDS - t0)) s; table $B/footprint.txt"
