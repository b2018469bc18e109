#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""footprint-table.py [--meta META] NODES=SLAB...: the footprint of one memcg
per NUMA node count, from the debugfs "slab" output of one guest per count
(scripts/bench/footprint.sh), as one table.

Each SLAB file must come from a guest with NODES nodes (its nr_node_ids), and
its per-memcg sums must follow from its struct rows (the memcg struct plus
NODES per-node structs, by kmalloc bucket and by cache stride): a reading
that breaks either is refused with the reason, never printed.

As a module (docs-check.py): parse(text) reads one "slab" output, check()
the sums of a parsed reading, table_rows(block) the rows of a printed table.
"""
import sys

STRUCTS = ("mcs_memcg", "mcs_memcg_per_node")
HEAD = ("nodes   memcg struct: size kmalloc stride   per-node struct: size kmalloc stride"
        "   per memcg: kmalloc kmem_caches saved")


def parse(text):
    """A dict of one "slab" output: nodes, and per struct (size, bucket, stride)."""
    out = {}
    for line in text.splitlines():
        f = line.split()
        if not f:
            continue
        if f[0].startswith("allocator="):
            kv = dict(x.split("=", 1) for x in f if "=" in x)
            out["nodes"] = int(kv["nr_node_ids"])
        elif f[0] in STRUCTS and len(f) >= 4:
            out[f[0]] = tuple(int(x) for x in f[1:4])
        elif f[0] == "per_memcg" and len(f) >= 4:
            kv = dict(x.split("=", 1) for x in f[1:4])
            out["per_memcg"] = (int(kv["kmalloc"]), int(kv["kmem_cache"]), int(kv["saved"]))
    missing = [k for k in ("nodes",) + STRUCTS + ("per_memcg",) if k not in out]
    if missing:
        raise ValueError("no %s line" % ", ".join(missing))
    return out


def check(r):
    """Why the per-memcg sums of reading @r do not follow from its rows, or None."""
    n = r["nodes"]
    (_, mb, ms), (_, pb, ps) = r["mcs_memcg"], r["mcs_memcg_per_node"]
    want = (mb + n * pb, ms + n * ps, mb + n * pb - ms - n * ps)
    if r["per_memcg"] != want:
        return "per memcg %s, but the rows give kmalloc=%d kmem_cache=%d saved=%d" % (
            r["per_memcg"], *want)
    if ms > mb or ps > pb:
        return "a cache stride above its kmalloc bucket"
    return None


def row(r):
    (m, mb, ms), (p, pb, ps) = r["mcs_memcg"], r["mcs_memcg_per_node"]
    k, c, s = r["per_memcg"]
    return "%5d   %18d %7d %6d   %21d %7d %6d   %18d %11d %5d" % (
        r["nodes"], m, mb, ms, p, pb, ps, k, c, s)


def table_rows(block):
    """The readings of a printed table (its lines that start with a count)."""
    out = []
    for line in block.splitlines():
        f = line.split()
        if len(f) == 10 and all(x.isdigit() for x in f):
            v = [int(x) for x in f]
            out.append({"nodes": v[0], "mcs_memcg": tuple(v[1:4]),
                        "mcs_memcg_per_node": tuple(v[4:7]), "per_memcg": tuple(v[7:10])})
    return out


def main(argv):
    meta = {}
    if argv[:1] == ["--meta"]:
        with open(argv[1]) as f:
            meta = dict(x.rstrip("\n").split("=", 1) for x in f if "=" in x)
        argv = argv[2:]
    if not argv:
        sys.exit("usage: footprint-table.py [--meta META] NODES=SLAB...")
    rows = []
    for arg in argv:
        n, _, path = arg.partition("=")
        if not n.isdigit() or not path:
            sys.exit("footprint-table: '%s': expected NODES=SLAB_FILE" % arg)
        try:
            with open(path) as f:
                r = parse(f.read())
        except (OSError, ValueError, KeyError) as e:
            sys.exit("footprint-table: %s: %s" % (path, e))
        if r["nodes"] != int(n):
            sys.exit("footprint-table: %s: the guest had %d node(s), not %s" % (path, r["nodes"], n))
        why = check(r)
        if why:
            sys.exit("footprint-table: %s: %s" % (path, why))
        rows.append(r)
    print("Bytes per memcg by NUMA node count (debugfs slab, kmem_cache mode), %s, qemu %s" % (
        meta.get("uname", "?"), meta.get("qemu", "?").split(" ")[0]))
    print(HEAD)
    for r in sorted(rows, key=lambda r: r["nodes"]):
        print(row(r))
    print("per memcg: the memcg struct plus one per-node struct per node; kmalloc: each in its "
          "kmalloc bucket;")
    print("kmem_caches: each at its cache stride (its size rounded up to a cache line); saved: "
          "the difference.")


if __name__ == "__main__":
    main(sys.argv[1:])
