#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""layout.py MODULE.ko: the per-CPU memory of each stock design and the
cache lines a stock hit touches, from the built module's debug info
(pahole).  Instruction counts do not see cache misses; this table says how
many distinct lines each hit needs, which is what a miss would cost.

Per design: its per-CPU structs (pahole's size and cache lines), the bytes
per CPU (per memcg per CPU for percpu-counter and hahn-v4, whose stock lives
beside each memcg), and for a page hit and a byte hit the lines of the per-CPU struct
that the hit reads or writes, counted from the members the hit touches
(listed below from the code of each design, with the slot scan over every
slot) at the offsets pahole gives, the struct taken as cache-line aligned
(DEFINE_PER_CPU_ALIGNED for the decoupled stocks).  Every hit also touches
the memcg's per-CPU event counters (one more line) and the task's
preempt count; those are the same for every design and left out.

Exit status 2 when pahole or the module's debug info is missing.
"""
import re
import subprocess
import sys
import textwrap

LINE = 64

# design -> ((struct, members a page hit touches), (struct, members a byte hit touches));
# "cached" is the slot scan (slots 0..k read), other arrays are read at slot k
HITS = {
    "decoupled": (("mcs_memcg_stock", ["lock", "cached", "nr_pages"]),
                  ("mcs_obj_stock", ["lock", "cached", "nr_bytes"])),
    "decoupled-owner": (("mcs_memcg_stock", ["lock", "owner", "cached", "nr_pages"]),
                        ("mcs_obj_stock", ["lock", "owner", "cached", "nr_bytes"])),
    "coupled": (("mcs_coupled_stock", ["lock", "cached", "nr_pages"]),
                ("mcs_coupled_stock", ["lock", "cached_objcg", "nr_bytes"])),
    "decoupled-7.3": (("mcs_memcg_stock", ["lock", "cached", "nr_pages"]),
                      ("mcs_obj73_stock", ["lock", "cached", "nr_bytes"])),
}
HITS["coupled-noirq"] = HITS["coupled"]
PER_CPU = {
    "decoupled": ["mcs_memcg_stock", "mcs_obj_stock"],
    "decoupled-owner": ["mcs_memcg_stock", "mcs_obj_stock"],
    "coupled": ["mcs_coupled_stock"],
    "coupled-noirq": ["mcs_coupled_stock"],
    "decoupled-7.3": ["mcs_memcg_stock", "mcs_obj73_stock"],
}


def pahole(ko, struct):
    """{member: (offset, size, elements)} and (size, cache lines) of @struct."""
    try:
        out = subprocess.run(["pahole", "-C", struct, ko], capture_output=True, text=True,
                             check=False).stdout
    except FileNotFoundError:
        print("layout: no pahole (make deps installs it)", file=sys.stderr)
        sys.exit(2)
    members, size = {}, None
    for line in out.splitlines():
        m = re.match(r"\s+.*?\b(\w+)(?:\[(\d+)\])?;\s+/\*\s+(\d+)\s+(\d+)\s+\*/", line)
        if m:
            members[m.group(1)] = (int(m.group(3)), int(m.group(4)), int(m.group(2) or 1))
        m = re.search(r"/\* size: (\d+), cachelines: (\d+)", line)
        if m:
            size = (int(m.group(1)), int(m.group(2)))
    if size is None:
        print(f"layout: pahole found no struct {struct} in {ko} (no debug info?)",
              file=sys.stderr)
        sys.exit(2)
    return members, size


def lines_of(members, names, slot):
    """The cache lines (from the struct's start) that a hit in @slot touches."""
    lines = set()
    for n in names:
        off, sz, count = members[n]
        if count > 1:
            el = sz // count
            k = min(slot, count - 1)
            first, last = (off, off + el * (k + 1) - 1) if n == "cached" else \
                (off + el * k, off + el * (k + 1) - 1)
        else:
            first, last = off, off + max(sz, 1) - 1
        lines.update(range(first // LINE, last // LINE + 1))
    return len(lines)


def main():
    if len(sys.argv) != 2:
        print("usage: layout.py MODULE.ko", file=sys.stderr)
        sys.exit(2)
    ko = sys.argv[1]
    structs = {s: pahole(ko, s) for s in ("mcs_memcg_stock", "mcs_obj_stock",
                                          "mcs_obj73_stock", "mcs_coupled_stock",
                                          "mcs_hahn_v6_stock")}
    slots = structs["mcs_memcg_stock"][0]["cached"][2]
    print(f"  {'design':<16} | {'per-CPU structs: bytes (cache lines)':<48} | {'bytes/CPU':>9} | "
          f"{'page hit lines':>14} | {'byte hit lines':>14}")
    for d in ("decoupled", "decoupled-owner", "coupled", "coupled-noirq", "decoupled-7.3"):
        parts = ", ".join(f"{s} {structs[s][1][0]} ({structs[s][1][1]})" for s in PER_CPU[d])
        total = sum(structs[s][1][0] for s in PER_CPU[d])
        (ps, pm), (bs, bm) = HITS[d]
        cells = []
        for st, names in ((ps, pm), (bs, bm)):
            first = lines_of(structs[st][0], names, 0)
            last = lines_of(structs[st][0], names, slots - 1)
            cells.append(f"{first}" if first == last or d.startswith("coupled")
                         else f"{first} / {last}")
        print(f"  {d:<16} | {parts:<48} | {total:>9} | {cells[0]:>14} | {cells[1]:>14}")
    for d in ("percpu-counter", "hahn-v4"):
        print(f"  {d:<16} | {'an atomic_t per memcg (alloc_percpu)':<48} | "
              f"{'4/memcg':>9} | {'1 per memcg':>14} | {'-':>14}")
    v6, v6_size = structs["mcs_hahn_v6_stock"]
    first = lines_of(v6, ["lock", "cached", "nr_pages"], 0)
    last = lines_of(v6, ["lock", "cached", "nr_pages"], slots - 1)
    v6_parts = f"mcs_hahn_v6_stock {v6_size[0]} ({v6_size[1]})"
    print(f"  {'hahn-v6':<16} | {v6_parts:<48} | {v6_size[0]:>9} | "
          f"{first if first == last else f'{first} / {last}':>14} | {'-':>14}")
    print(f"  {'none':<16} | {'-':<48} | {0:>9} | {'-':>14} | {'-':>14}")
    note = (f"hit lines: lines of the per-CPU struct that a hit reads or writes, from its "
            f"members' offsets, counted from a cache-line boundary (the decoupled stocks are "
            f"aligned; the coupled stock is not and may straddle one line more); a / b: the hit "
            f"in the first / the last of the {slots} slots (the scan reads the slots before it); "
            f"percpu-counter, hahn-v4: the memcg's own per-CPU count (the same one); -: no per-CPU "
            f"stock (the bytes of none, percpu-counter, hahn-v4 and hahn-v6 live in the objcg's "
            f"shared leftover). Every hit also "
            f"touches the memcg's per-CPU event counters.")
    for line in textwrap.wrap(note, 116):
        print("  " + line)


if __name__ == "__main__":
    main()
