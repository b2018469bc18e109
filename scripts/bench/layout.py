#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""layout.py MODULE.ko: the per-CPU memory of each stock design and the
cache lines a stock hit touches, from the built module's debug info
(pahole).  Instruction counts do not see cache misses; this table says how
many distinct lines each hit needs, which is what a miss would cost.

One row per mode of the binding table, in its order, from
scripts/bench/designs.py (debugfs "modes" when a saved copy is given, else
the source): its per-CPU structs are the ones its `stocks=` names (pahole's
size and cache lines), and the bytes per CPU their sum.  A mode without
per-CPU stocks keeps its page stock beside each memcg (memcgs_per_cpu
without stocks: percpu-counter, hahn-v4) or has none.  For a page hit and a
byte hit: the lines of the per-CPU struct that the hit reads or writes,
counted from the members the hit touches at the offsets pahole gives, the
struct taken as cache-line aligned (DEFINE_PER_CPU_ALIGNED).  The page hit
is in the struct of its stocks with `nr_pages`, the byte hit in the one
with `nr_bytes`; either touches the lock, the slot scan (`cached`, slots
0..k read, or `cached_objcg` for bytes where there is one) and the count of
slot k.  A mode whose bytes live in the objcg's shared leftover has no byte
stock of its own (`-`).  Every hit also touches the memcg's per-CPU event
counters (one more line) and the task's preempt count; those are the same
for every design and left out.

Usage: layout.py MODULE.ko [MODES]  (MODES: a saved debugfs "modes" file)

Exit status 2 when pahole or the module's debug info is missing.
"""
import os
import re
import subprocess
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import designs  # noqa: E402

LINE = 64

def per_memcg(m):
    """What a stock beside each memcg holds per CPU (the mode's layout=)."""
    n = m["layout"]["per_memcg"]
    return f"{n}/memcg" if n else "per memcg"


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


def hit_members(members, kind, extra):
    """The members a hit of @kind ("pages" or "bytes") touches in a struct
    with @members, or None when the struct keeps no such count."""
    count = "nr_pages" if kind == "pages" else "nr_bytes"
    if count not in members:
        return None
    scan = "cached_objcg" if kind == "bytes" and "cached_objcg" in members else "cached"
    return [n for n in ["lock"] + extra + [scan, count] if n in members]


def hit_cell(structs, names, kind, extra):
    """The page or byte hit's lines in the first / the last slot, or "-"."""
    for st in names:
        members = structs[st][0]
        touched = hit_members(members, kind, extra)
        if touched is None:
            continue
        scan = [n for n in ("cached_objcg", "cached") if n in touched]
        slots = members[scan[0]][2] if scan else 1
        first = lines_of(members, touched, 0)
        last = lines_of(members, touched, slots - 1)
        return f"{first}" if first == last else f"{first} / {last}", slots
    return "-", 0


def main():
    if len(sys.argv) not in (2, 3):
        print("usage: layout.py MODULE.ko [MODES]", file=sys.stderr)
        sys.exit(2)
    ko = sys.argv[1]
    try:
        modes = designs.load(sys.argv[2] if len(sys.argv) == 3 else None)
    except (ValueError, KeyError, OSError) as e:
        print(f"layout: designs.py: {e}", file=sys.stderr)
        sys.exit(2)
    structs = {}
    for m in modes:
        for st in m["stocks"]:
            if st not in structs:
                structs[st] = pahole(ko, st)
    print(f"  {'design':<16} | {'per-CPU structs: bytes (cache lines)':<48} | {'bytes/CPU':>9} | "
          f"{'page hit lines':>14} | {'byte hit lines':>14}")
    most_slots = 0
    for m in modes:
        d = m["mode"]
        if not m["stocks"]:
            if m["memcgs_per_cpu"]:
                print(f"  {d:<16} | {'a count per memcg (alloc_percpu)':<48} | "
                      f"{per_memcg(m):>9} | {'1 per memcg':>14} | "
                      f"{'-':>14}")
            else:
                print(f"  {d:<16} | {'-':<48} | {0:>9} | {'-':>14} | {'-':>14}")
            continue
        extra = m["layout"]["hit"]
        parts = ", ".join(f"{s} {structs[s][1][0]} ({structs[s][1][1]})" for s in m["stocks"])
        total = sum(structs[s][1][0] for s in m["stocks"])
        page, n1 = hit_cell(structs, m["stocks"], "pages", extra)
        byte, n2 = hit_cell(structs, m["stocks"], "bytes", extra)
        most_slots = max(most_slots, n1, n2)
        print(f"  {d:<16} | {parts:<48} | {total:>9} | {page:>14} | {byte:>14}")
    note = (f"hit lines: lines of the per-CPU struct that a hit reads or writes, from its "
            f"members' offsets, counted from a cache-line boundary (a struct that is not "
            f"aligned, such as the coupled stock, may straddle one line more); a / b: the hit "
            f"in the first / the last slot (up to {most_slots}; the scan reads the slots before "
            f"it); a count per memcg: the memcg's own per-CPU count (the same one); -: no "
            f"per-CPU stock of its own (bytes in the objcg's shared leftover, or no stock). "
            f"Every hit also touches the memcg's per-CPU event counters.")
    for line in textwrap.wrap(note, 116):
        print("  " + line)


if __name__ == "__main__":
    main()
