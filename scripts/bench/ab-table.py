#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The two-column table of `make ab` (scripts/bench/ab.sh).

usage: ab-table.py A B RESULTS [META]

RESULTS holds the bench's result lines of one icount guest (key=value
words, as debugfs "bench" prints them; a replay's line ends in file=NAME).
Prints, per row, A's and B's instructions per pair (per event for the
replay) and B/A; beside them the counts a reader checks the figure by.
Exits 1, naming the row, when a row is missing or its verdict is not PASS:
a table with a hole is not printed as a result.
"""
import sys

ROWS = [
    # label, match, value key, what it counts
    ("hit pair, pages (1 memcg)", {"workload": "pages", "memcgs": "1", "clients": "1"},
     "ns_per_op", "instructions per charge+uncharge"),
    ("hit pair, bytes (1 memcg)", {"workload": "bytes", "memcgs": "1", "clients": "1"},
     "ns_per_op", "instructions per charge+uncharge"),
    ("page pair, 64 memcgs", {"workload": "pages", "memcgs": "64", "clients": "1"},
     "ns_per_op", "instructions per charge+uncharge"),
    ("one cgroup, frees elsewhere", {"workload": "cross-pages", "shared": "1"},
     "ns_per_op", "instructions per pair, the free on the other CPU"),
    ("replay", {"workload": "replay"}, "ns_per_op", "instructions per recorded event"),
]


def parse(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            words = dict(w.split("=", 1) for w in line.split() if "=" in w)
            if "mode" in words:
                rows.append(words)
    return rows


def find(rows, mode, match):
    hits = [r for r in rows if r.get("mode") == mode and
            all(r.get(k) == v for k, v in match.items())]
    return hits[0] if len(hits) == 1 else None


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__.strip().splitlines()[2])
    a, b, results = sys.argv[1:4]
    meta = {}
    if len(sys.argv) == 5:
        with open(sys.argv[4], encoding="utf-8") as f:
            meta = dict(ln.rstrip("\n").split("=", 1) for ln in f if "=" in ln)
    rows = parse(results)
    bad = [f"{r.get('mode')} {r.get('workload')}: verdict={r.get('verdict', 'none')}"
           for r in rows if r.get("verdict") != "PASS"]
    floors = [r for r in rows if r.get("workload") == "floor"]
    floor = floors[0] if floors else None
    out = []
    trace = ""
    for label, match, key, _ in ROWS:
        ra, rb = find(rows, a, match), find(rows, b, match)
        if ra is None or rb is None:
            bad.append(f"{label}: no single result line for "
                       f"{a if ra is None else b}")
            continue
        va, vb = float(ra[key]), float(rb[key])
        extra = ""
        if match.get("workload") == "replay":
            trace = ra.get("trace", "?")
            label = f"replay of {trace}"
            extra = (f"stranded pages {ra.get('stranded_pages')} / {rb.get('stranded_pages')}, "
                     f"hits {ra.get('hits')} / {rb.get('hits')}")
        elif match.get("workload") == "cross-pages":
            extra = f"refills {ra.get('refills')} / {rb.get('refills')}"
        else:
            extra = f"misses {ra.get('misses')} / {rb.get('misses')}"
        ratio = f"{vb / va:.2f}" if va > 0 else "-"
        out.append((label, f"{va:.1f}", f"{vb:.1f}", ratio, extra))
    if bad:
        for line in bad:
            print(f"ab: {line}", file=sys.stderr)
        sys.exit(1)
    kern = meta.get("uname", meta.get("kernel", "?"))
    print(f"A/B on {kern}, qemu {meta.get('qemu', '?').split()[0]} TCG -icount shift=0: "
          f"instructions (guest ns), one boot")
    wl = max(len(r[0]) for r in out)
    wa = max(len(a), max(len(r[1]) for r in out))
    wb = max(len(b), max(len(r[2]) for r in out))
    print(f"{'':{wl}}  {a:>{wa}}  {b:>{wb}}   B/A  ({a} / {b})")
    for label, va, vb, ratio, extra in out:
        print(f"{label:{wl}}  {va:>{wa}}  {vb:>{wb}}  {ratio:>4}  {extra}")
    if floor:
        print(f"floor (bench loop and a bare per-CPU add/sub pair, in every row): "
              f"{float(floor['ns_per_op']):.1f}")
    print("Under TCG these are instruction counts, not times: a ratio says which design")
    print("executes less, not how much faster it runs on hardware.")


if __name__ == "__main__":
    main()
