#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench-compare.py A B: two benchmark runs side by side, one row per
measured quantity of each job, with the ratio B/A.

A and B are result folders of `make bench` or `make bench-running`
(bench-results/<date>-<commit>/), their bench.csv, or a folder's name under
bench-results/ ("latest" included).  Per job (part, kernel, mode, workload,
clients, memcgs, batch, load) each run contributes:

  insns/pair        icount parts: the fewest instructions per pair over
                    the boots (a disturbance only ever adds)
  Mops/s            wall clock: the median over the repetitions (of the
                    rerun, where the report measured a noisy row again)
  pmu insns/pair,   pmu=hw rows: the median of the in-kernel counters
  pmu cycles/pair
  pmu cpu-clock ns, pmu=sw rows: the median of the software clocks
  pmu task-clock ns

Jobs that only one run has show "-" on the other side.  Lower is better
for every quantity but Mops/s.  Exits 2 when a run cannot be read.
"""
import csv
import os
import statistics
import sys

TREE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KEY = ("part", "kernel", "mode", "workload", "shared", "clients", "memcgs", "batch", "load")
PMU = (("pmu_insns_per_pair", "pmu insns/pair"), ("pmu_cycles_per_pair", "pmu cycles/pair"),
       ("pmu_cpu_clock_ns_per_pair", "pmu cpu-clock ns"),
       ("pmu_task_clock_ns_per_pair", "pmu task-clock ns"))


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import designs  # noqa: E402  (the one list of modes)

_MODES = designs.load()
# the table's order, each mode followed by the settings of its parameters
MODE_ORDER = [lbl for lbl, _, _ in designs.variants(_MODES, designs.names(_MODES))]

def fail(msg):
    print(f"bench-compare: {msg}", file=sys.stderr)
    sys.exit(2)


def resolve(arg):
    """The bench.csv of a run given as a folder, a file or a name."""
    base = os.environ.get("BENCH_RESULTS") or os.path.join(TREE, "bench-results")
    for cand in (arg, os.path.join(base, arg)):
        if os.path.isdir(cand):
            cand = os.path.join(cand, "bench.csv")
        if os.path.isfile(cand):
            return cand
    fail(f"no bench.csv for '{arg}' (a result folder, its bench.csv, or a name under {base})")


def env_of(path):
    facts = {}
    p = os.path.join(os.path.dirname(path), "env.txt")
    if os.path.exists(p):
        for line in open(p):
            k, sep, v = line.rstrip("\n").partition("=")
            if sep and "." not in k:
                facts[k] = v
    return facts


def load_of(r):
    if r.get("hardirq") == "1":
        return "hardirq"
    return "nmi" if r.get("nmi") not in ("", "off", None) else "-"


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def figures(path):
    """{job key: {quantity: value}} of one run."""
    with open(path, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r.get("verdict") == "PASS"]
    if rows and "part" not in rows[0]:
        fail(f"{path} is not a per-measurement bench.csv")
    groups = {}
    for r in rows:
        r["load"] = load_of(r)
        # a run from before the batch key measured the default batch, 64
        groups.setdefault(tuple(r.get(k) or ("64" if k == "batch" else "") for k in KEY),
                          []).append(r)
    out = {}
    for k, rs in groups.items():
        q = {}
        if k[0].startswith("icount"):
            v = [num(r["insns_per_pair"]) for r in rs if num(r["insns_per_pair"]) is not None]
            if v:
                q["insns/pair"] = min(v)
        else:
            rerun = [r for r in rs if r.get("guest") == "rerun"]
            use = rerun or rs
            v = [num(r["mops"]) for r in use if num(r["mops"]) is not None]
            if v:
                q["Mops/s"] = statistics.median(v)
        for field, name in PMU:
            v = [num(r.get(field)) for r in rs if num(r.get(field)) is not None]
            if v:
                q[name] = statistics.median(v)
        out[k] = q
    return out


def sort_key(k):
    part, kernel, mode, wl, shared, clients, memcgs, batch, load = k
    # the binding table's order (designs.py), "none"'s bytes beside it
    order = []
    for m in MODE_ORDER:
        order += [m, "objcg-atomic"] if m == "none" else [m]
    return (part, kernel, wl, shared, int(clients or 0), int(memcgs or 0), -int(batch or 64),
            load, order.index(mode) if mode in order else len(order), mode)


def main():
    if len(sys.argv) != 3 or sys.argv[1] in ("-h", "--help"):
        fail("usage: bench-compare.py A B  (result folders, their bench.csv, or names "
             "under bench-results/, e.g. latest)")
    pa, pb = resolve(sys.argv[1]), resolve(sys.argv[2])
    fa, fb = figures(pa), figures(pb)
    for tag, p in (("A", pa), ("B", pb)):
        e = env_of(p)
        print(f"{tag}: {os.path.relpath(os.path.dirname(p))}: {e.get('command', '?')}, "
              f"{e.get('date', '?')}, commit {e.get('commit', '?')}, {e.get('env', '')}")
    head = (f"{'part':<12} {'kernel':<16} {'mode':<13} {'workload':<8} {'sh':>2} {'cl':>3} "
            f"{'mc':>3} {'ba':>2} {'load':<7} | {'quantity':<17} | {'A':>10} {'B':>10} {'B/A':>6}")
    print(head)
    print("-" * len(head))
    n = 0
    for k in sorted(set(fa) | set(fb), key=sort_key):
        qa, qb = fa.get(k, {}), fb.get(k, {})
        for q in sorted(set(qa) | set(qb)):
            a, b = qa.get(q), qb.get(q)
            ratio = f"{b / a:6.3f}" if a and b is not None else f"{'-':>6}"
            print(f"{k[0]:<12} {k[1]:<16} {k[2]:<13} {k[3]:<8} {k[4]:>2} {k[5]:>3} {k[6]:>3} "
                  f"{k[7]:>2} {k[8]:<7} | {q:<17} | "
                  f"{(f'{a:10.2f}' if a is not None else f'{chr(45):>10}')} "
                  f"{(f'{b:10.2f}' if b is not None else f'{chr(45):>10}')} {ratio}")
            n += 1
    print(f"{n} rows; B/A below 1: B needs fewer instructions, cycles or ns per pair, "
          f"or (Mops/s) runs fewer pairs per second")


if __name__ == "__main__":
    main()
