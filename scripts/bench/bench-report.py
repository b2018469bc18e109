#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench-report.py BENCHDIR OUTDIR NCPUS: the tables of `make bench` (and of
`make bench-running`) from the result lines of debugfs "bench" that
scripts/bench/bench.sh collected in BENCHDIR (icount/KERNEL/runN, scale/KERNEL,
wall/KERNEL/{first,rerun}; each with results.txt and meta.txt).  Prints them
and writes into OUTDIR: bench.txt (the tables), bench.csv (one row per
measurement, one quantity per column), bench.png and env.txt (the run's
and each guest's facts: kernel, accelerator, CPU model, load).  Exits
non-zero if any measurement failed its invariant check.

Mode "none" keeps bytes in the objcg's atomic leftover: wherever a bytes
workload is shown or written, that mode is named "objcg-atomic".

bench-report.py --noisy RUNDIR: the job lines (one per repetition) of the
rows of RUNDIR whose max/min exceeds NOISY, for bench.sh to measure again.
"""
import csv
import importlib.util
import os
import statistics
import subprocess
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import designs  # noqa: E402  (the one list of modes: scripts/bench/designs.py)

# the modes and their metadata: BENCHDIR/modes.txt (the guest's debugfs
# "modes", saved by bench.sh) if there is one, else the source's table
_BDIR = sys.argv[1] if len(sys.argv) > 1 and sys.argv[1] != "--noisy" else None
DESIGNS = designs.load(os.path.join(_BDIR, "modes.txt") if _BDIR else None)
DESIGN = {m["mode"]: m for m in DESIGNS}
# a run of a mode at a setting of its parameters off their defaults is a
# row of its own, "mode(NAME=N)" (designs.py label()), with its mode's
# metadata; the settings make bench measures: designs.py variants()
for _lbl, _base, _ in designs.variants(DESIGNS, designs.names(DESIGNS)):
    DESIGN.setdefault(_lbl, DESIGN[_base])
# the modes of the wide tables (a mode without a group, decoupled-7.3, is in
# the replays and beside the kernel's accounting only)
MODES = [m["mode"] for m in DESIGNS if m["group"]]
NOISY = 1.3
KEYS = ("mode", "workload", "clients", "hardirq", "nmi", "shared", "memcgs", "batch")
BATCHING = designs.batching(DESIGNS)

# The cycle model of the primitives the modes differ in (docs/benchmark-details.md,
# "Cycle model").  Every instruction counts one cycle, except these, which count
# the cycles below in place of their own instructions: an irqsave/restore
# pair (pushf/pop/cli ... push/popf: POPF is microcoded, ~20 cycles, CLI
# several, per Agner Fog's instruction tables, agner.org/optimize, manual 4),
# a LOCK'd read-modify-write, uncontended, line in L1 (~18-20 cycles, same
# source), and a cache line that another core wrote last (~100 cycles, the
# order of the core-to-core transfer measured by Schweizer, Besta, Hoefler,
# "Evaluating the Cost of Atomic Operations on Modern Architectures", PACT
# 2015).  Preempt-count updates and the trylock's flag are plain per-CPU
# loads and stores: their instructions at one cycle each.  A model, not a
# measurement: nothing here ran on hardware.
CYCLES = {"irqsave": 25.0, "atomic": 20.0, "transfer": 100.0}


def uses(mode, workload, rt=False):
    """Primitive uses per charge+uncharge pair in the steady state of a
    workload (stock hits; counted from the code, see docs/benchmark-details.md): a dict
    primitive -> uses, plus 'transfer' for locked operations on a line
    another CPU wrote in between (shared workloads only).  Each mode's
    design declares them (struct mcs_mode_info's cycles, published in
    debugfs "modes"); on PREEMPT_RT (@rt) local_lock and local_trylock are
    rt_spin_lock()s: a cmpxchg to take and one to release."""
    return designs.uses(DESIGN[mode], workload, rt)


def read_kv(path):
    rows = []
    if not os.path.exists(path):
        return rows
    with open(path) as f:
        for line in f:
            kv = dict(t.split("=", 1) for t in line.split() if "=" in t)
            if kv.get("mode") in DESIGN:
                kv["mode"] = designs.run_label(DESIGN, kv)
            if kv:
                rows.append(kv)
    return rows


def read_meta(d):
    meta = {}
    p = os.path.join(d, "meta.txt")
    if os.path.exists(p):
        for line in open(p):
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                meta[k] = v
    return meta


def wlname(r):
    return r["workload"] + ("-shared" if r.get("shared") == "1" else "")


def key(r):
    return tuple(r.get(k, "") for k in KEYS)


def label(mode, workload):
    """The name of a mode for a workload: "none" is "objcg-atomic" for bytes."""
    return "objcg-atomic" if mode == "none" and workload.startswith("bytes") else mode


def pmu_asked(r):
    """The pmu= value the job line had: hw, sw, or "" (off or left out)."""
    v = r.get("pmu_want") or r.get("pmu", "")
    return v if v in ("hw", "sw") else ""


def job_line(k, ms, pmu=""):
    """The bench line of a row: the result says nmi=off|on|unsupported|busy,
    the bench takes nmi=0|1."""
    kv = dict(zip(KEYS, k))
    kv["nmi"] = "0" if kv["nmi"] in ("off", "") else "1"
    return " ".join(f"{n}={kv[n]}" for n in KEYS if kv[n] != "") + f" duration_ms={ms}" + \
        (f" pmu={pmu}" if pmu else "")


def insns(r):
    """Instructions per pair under icount: guest ns over all vCPUs / ops.
    A cross workload's operation is a charge, followed by an uncharge
    unless the previous client had nothing handed over ("cross" counts the
    uncharges): its pairs are half its charges and uncharges together."""
    if r.get("workload", "").startswith("cross-") and "cross" in r:
        return 2 * int(r["ns"]) / max(int(r["ops"]) + int(r["cross"]), 1)
    return int(r["ns"]) / max(int(r["ops"]), 1)


def fmt(x, w=7, p=1):
    return f"{x:>{w}.{p}f}" if x == x else f"{'-':>{w}}"


def prims(rows):
    out = {}
    for p in ("irqsave", "preempt", "trylock", "atomic"):
        vals = [float(r[f"prim_{p}_ns"]) for r in rows if f"prim_{p}_ns" in r]
        out[p] = statistics.median(vals) if vals else float("nan")
    return out


def noisy_jobs(rundir):
    rows = [r for r in read_kv(os.path.join(rundir, "results.txt")) if r.get("verdict") == "PASS"]
    by = {}
    for r in rows:
        by.setdefault(key(r), []).append(r)
    for k, rs in by.items():
        vals = [float(r["mops"]) for r in rs]
        if len(vals) > 1 and min(vals) > 0 and max(vals) / min(vals) > NOISY:
            for _ in rs:
                print(job_line(k, rs[0]["duration_ms"], pmu_asked(rs[0])))


if len(sys.argv) > 1 and sys.argv[1] == "--noisy":
    noisy_jobs(sys.argv[2])
    sys.exit(0)

bdir, outdir, ncpus = sys.argv[1], sys.argv[2], int(sys.argv[3])
out, bad, refused, garbled = [], [], [], []

# every line of the report fits WIDTH columns: wide tables are split into
# the mode groups below, prose is wrapped
WIDTH = 120
GROUPS = tuple(designs.groups(DESIGNS))
SPREAD = 1.02   # boots of an icount figure further apart than this are both shown
LEGEND_BOOTS = ("a figure alone: the boots agree within 2 % (the lower is shown); a/b!: the figures of "
                "boot 1 / boot 2, more than 2 % apart, so neither is the figure")


def emit(s=""):
    s = s.rstrip()
    if len(s) <= WIDTH:
        out.append(s)
        return
    ind = len(s) - len(s.lstrip())
    out.extend(textwrap.wrap(s, WIDTH, subsequent_indent=" " * (ind + 2),
                             break_long_words=False, break_on_hyphens=False))


replays = {}    # result folder -> its replays of recorded traces (workload=replay)


def load(d):
    """The passed rows of a guest's results and its meta; its replays go to
    replays[d] (they have no clients, memcgs or load keys)."""
    rows = read_kv(os.path.join(d, "results.txt"))
    bad.extend(r for r in rows if r.get("verdict") == "FAIL")
    refused.extend(r for r in rows if r.get("verdict") == "ERROR")
    # a kernel message printed into the middle of a qemu console line
    garbled.extend(r for r in rows if r.get("verdict") not in ("PASS", "FAIL", "ERROR"))
    ok = [r for r in rows if r.get("verdict") == "PASS"]
    replays[d] = [r for r in ok if r.get("workload") == "replay"]
    return [r for r in ok if r.get("workload") != "replay"], read_meta(d)


def subdirs(d):
    return sorted(x for x in os.listdir(d) if os.path.isdir(os.path.join(d, x))) \
        if os.path.isdir(d) else []


top = read_meta(bdir)
emit(f"memcg_stock A/B benchmark: `{top.get('command', 'make bench')}`, {top.get('date', '?')}, "
     f"commit {top.get('commit', '?')}")
emit(f"host: {top.get('host', '?')}; {top.get('env', '')}; {top.get('seconds', '?')} s")
emit("Per-guest facts (kernel, accelerator, icount, host /proc/loadavg before -> after) "
     "precede each table.")

# ---- icount runs ---------------------------------------------------------
icount = {}     # kernel -> [ (rows, meta), ... ] per run
for k in subdirs(os.path.join(bdir, "icount")):
    for run in subdirs(os.path.join(bdir, "icount", k)):
        icount.setdefault(k, []).append(load(os.path.join(bdir, "icount", k, run)))
scale = {k: load(os.path.join(bdir, "scale", k)) for k in subdirs(os.path.join(bdir, "scale"))}
wall = {}
for k in subdirs(os.path.join(bdir, "wall")):
    first = load(os.path.join(bdir, "wall", k, "first"))
    rerun = load(os.path.join(bdir, "wall", k, "rerun")) \
        if os.path.isdir(os.path.join(bdir, "wall", k, "rerun")) else ([], {})
    wall[k] = (first, rerun)


def guest_line(meta):
    def ld(v):
        return " ".join(v.split(" ")[0:3])
    return (f"  guest: {meta.get('kernel', '?')} ({meta.get('uname', '?')}), "
            f"{meta.get('accel', '?')}"
            + (f" (qemu {meta['qemu']})" if meta.get("qemu") else "")
            + f", icount {meta.get('icount', 'off')}, "
            f"{meta.get('smp', '?')} vCPUs; load {ld(meta.get('load_before', '?'))} "
            f"-> {ld(meta.get('load_after', '?'))}")


def pick(rows, **want):
    """The rows that match @want; shared=0 and the default batch (64) unless asked."""
    b = str(want.pop("batch", "64"))
    return [r for r in rows if all(str(r.get(k)) == str(v) for k, v in want.items())
            and (want.get("shared") is not None or r.get("shared") == "0")
            and r.get("batch", "64") == b]


def one(rows, **want):
    rs = pick(rows, **want)
    return insns(rs[0]) if rs else float("nan")


def per_boot_of(runs, fig, **want):
    """fig(row) of a row in each boot (nan where it did not run or fig has none)."""
    out = []
    for rows, _ in runs:
        rs = pick(rows, **want)
        out.append(fig(rs[0]) if rs else float("nan"))
    return out


def per_boot(runs, **want):
    """A row's instructions per pair in each boot (nan where it did not run)."""
    return per_boot_of(runs, insns, **want)


def best(runs, **want):
    """The fewest instructions of a row over the boots (the plot only)."""
    vals = [v for v in per_boot(runs, **want) if v == v]
    return min(vals) if vals else float("nan")


def drain_cost(runs, mode, memcgs):
    """Per boot: a workload=drain pair less the pages pair of the same job (1 client)."""
    d = per_boot(runs, workload="drain", mode=mode, clients=1, memcgs=memcgs, hardirq=0,
                 nmi="off")
    p = per_boot(runs, workload="pages", mode=mode, clients=1, memcgs=memcgs, hardirq=0,
                 nmi="off")
    return [a - b if a == a and b == b else float("nan") for a, b in zip(d, p)]


def apart(vals):
    """Whether the boots' figures are more than SPREAD apart."""
    v = [x for x in vals if x == x]
    return len(v) > 1 and min(v) > 0 and max(v) / min(v) > SPREAD


def fb(vals, p=1):
    """The figure of a row over the boots: one value where they agree within
    2 % (the lower), else every boot's value and "!"."""
    v = [x for x in vals if x == x]
    if not v:
        return "-"
    if apart(v) and len({f"{x:.{p}f}" for x in v}) > 1:
        return "/".join(f"{x:.{p}f}" for x in vals) + "!"
    return f"{min(v):.{p}f}"


# 1. primitive costs, per kernel
emit()
emit("== Primitive costs on the kernel each bench ran on (measured in-kernel by every run; "
     "median of its result lines) ==")
emit("Under -icount shift=0 a guest ns is one instruction: these are instruction counts there.")
emit(f"{'kernel':<26} {'accel':<5} {'icount':<7} | {'irqsave pair':>12} {'preempt pair':>12} "
     f"{'trylock pair':>12} {'atomic':>7}  (ns each)")
prim_of = {}
for k, runs in icount.items():
    for i, (rows, meta) in enumerate(runs):
        p = prims(rows)
        prim_of.setdefault(k, p)
        emit(f"{k + ' run' + str(i + 1):<26} {meta.get('accel', '?'):<5} {'shift=0':<7} | "
             f"{fmt(p['irqsave'], 12)} {fmt(p['preempt'], 12)} {fmt(p['trylock'], 12)} "
             f"{fmt(p['atomic'], 7)}")
for k, (rows, meta) in scale.items():
    p = prims(rows)
    emit(f"{k:<26} {meta.get('accel', '?'):<5} {'shift=0':<7} | {fmt(p['irqsave'], 12)} "
         f"{fmt(p['preempt'], 12)} {fmt(p['trylock'], 12)} {fmt(p['atomic'], 7)}")
for k, ((rows, meta), _) in wall.items():
    p = prims(rows)
    prim_of["wall-" + k] = p
    emit(f"{k + ' (wall clock)':<26} {meta.get('accel', '?'):<5} {'off':<7} | "
         f"{fmt(p['irqsave'], 12)} {fmt(p['preempt'], 12)} {fmt(p['trylock'], 12)} "
         f"{fmt(p['atomic'], 7)}")


def estimate(ins, mode, workload, p, rt=False):
    """Cycle estimate of a pair: instructions at one cycle each, the
    primitives' own instructions replaced by their modelled cycles."""
    u = uses(mode, workload, rt)
    est = ins
    for prim, n in u.items():
        if prim == "transfer":
            est += n * CYCLES["transfer"]
        elif prim in CYCLES:
            est += n * (CYCLES[prim] - p.get(prim, 0.0))
    return est


def fcyc(vals, mode, wl, p, rt):
    """~cycles of a row's figure(s), one per boot where the boots differ."""
    v = [x for x in vals if x == x]
    if not v:
        return "-"
    if apart(v) and len({f"{x:.1f}" for x in v}) > 1:
        return "~" + "/".join(f"{estimate(x, mode, wl, p, rt):.0f}" for x in vals)
    return f"~{estimate(min(v), mode, wl, p, rt):.0f}"


def ratio(a, b, p=2):
    """a/b per boot, as fb() prints it."""
    return fb([x / y if y == y and y else float("nan") for x, y in zip(a, b)], p)


def page_charges(r):
    """Page charges per pair: a page taken from a stock (hit) or charged to
    the counters (miss)."""
    return (int(r.get("hits", 0)) + int(r.get("misses", 0))) / max(int(r["ops"]), 1)


def irq_pairs(r):
    """Charge+uncharge pairs run in interrupt context: timer and NMI."""
    return int(r.get("irq_ops", 0)) + int(r.get("nmi_ops", 0))


def irq_miss_rate(r):
    """Misses per 1000 pairs run in interrupt context (nan where none ran)."""
    pairs = irq_pairs(r)
    return int(r["irq_misses"]) * 1000 / pairs if pairs else float("nan")


PMU_ERRORS = {-2: "no PMU", -95: "a kernel without perf events", -16: "counters busy",
              -19: "no client CPU"}
PMU_FIGURES = {"hw": (("pmu_insns_per_pair", "insns"), ("pmu_cycles_per_pair", "cycles")),
               "sw": (("pmu_cpu_clock_ns_per_pair", "cpu-clock ns"),
                      ("pmu_task_clock_ns_per_pair", "task-clock ns"))}


def load_label(rest):
    """The interrupt load of a row (key without its mode): hardirq, nmi,
    (nmi) for an NMI load the guest cannot send, or -."""
    if rest[2] == "1":
        return "hardirq"
    if rest[3] == "on":
        return "nmi"
    return "(nmi)" if rest[3] not in ("off", "") else "-"


def pmu_table(rows, seen, by, who):
    """The in-kernel counters of a wall-clock run, per pair, median of the
    repetitions: instructions and cycles (pmu=hw) or the software clocks
    (pmu=sw); or why there are none."""
    kinds = sorted({r.get("pmu", "off") for r in rows if r["workload"] != "floor"})
    if kinds in ([], ["off"]):
        return
    emit(f"  {who}: in-kernel counters per pair (bench pmu=, one counter pair per client CPU, "
         f"median of the repetitions in one guest): pmu={'/'.join(kinds)}")
    for r in rows:
        if r.get("pmu") == "unavailable":
            err = int(r.get("pmu_error", "0"))
            emit(f"  pmu=unavailable for pmu={r.get('pmu_want', '?')}: error {err} "
                 f"({PMU_ERRORS.get(err, 'see the kernel log')}); the wall clock stands")
            break
    for kind in ("hw", "sw"):
        if kind not in kinds:
            continue
        (fa, na), (fb_, nb) = PMU_FIGURES[kind]
        emit(f"  pmu={kind}: {na} / {nb} per pair")
        for grp in GROUPS:
            group = None
            for rest in seen:
                if rest[0] != group:
                    group = rest[0]
                    emit(f"  {'workload':<13} {'cl':>3} {'mc':>3} {'load':<7} | " +
                         " | ".join(f"{label(m, group):^25}" for m in grp))
                cells = []
                for m in grp:
                    rs = [r for r in by.get((m,) + rest, []) if r.get("pmu") == kind]
                    if not rs:
                        cells.append(f"{'-':^25}")
                        continue
                    a = statistics.median(float(r[fa]) for r in rs)
                    b = statistics.median(float(r[fb_]) for r in rs)
                    s = "s" if any(r.get("pmu_scaled") == "1" for r in rs) else " "
                    cells.append(f"{a:>11.1f} / {b:<9.1f}{s:<2}")
                wl = rest[0] + ("-shared" if rest[4] == "1" else "")
                emit(f"  {wl:<13} {rest[1]:>3} {rest[5]:>3} {load_label(rest):<7} | " +
                     " | ".join(cells))
        if kind == "hw":
            emit("  (per-CPU counters: everything the client CPUs ran in the window, interrupts "
                 "included; s: a counter was multiplexed and scaled)")


# the kernel's own memcg accounting (harness/kernel_cost.c) beside ours, on
# the same kernel and emulator: every icount guest reads it; the kcost/
# guests (Debian 7.x) run only the 1-memcg rows of this module besides
kcost = {}      # kernel -> (kernel_cost line, [our rows per boot], meta)
kcost_csv = []  # its CSV rows (bench.csv)
for k, runs in icount.items():
    kc = read_kv(os.path.join(bdir, "icount", k, "run1", "kernel_cost.txt"))
    kcost[k] = (kc[0] if kc else {}, [rows for rows, _ in runs], runs[0][1])
kcost_rows = 0  # rows of the kcost guests (the icount guests' are counted there)
for k in subdirs(os.path.join(bdir, "kcost")):
    rows, meta = load(os.path.join(bdir, "kcost", k))
    kcost_rows += len(rows)
    kc = read_kv(os.path.join(bdir, "kcost", k, "kernel_cost.txt"))
    kcost[k] = (kc[0] if kc else {}, [rows], meta)


def pc_line(kc, none_less_floor):
    """The kernel's page_counter_try_charge()+page_counter_uncharge() pair
    beside mode none's page pair less the floor; nothing where kernel_cost
    has no pc keys."""
    if kc.get("pc") == "unsupported":
        return (f"  kernel page-counter pair: not measured (pc=unsupported: "
                f"{kc.get('pc_reason', 'no reason given')})")
    if "pc_net_ns" not in kc:
        return None
    return (f"  kernel page-counter pair ({kc.get('pc_levels', '?')} levels, loop and calls "
            f"subtracted): {float(kc['pc_net_ns']):.1f}; none pages less the floor: "
            f"{none_less_floor}")


# 2. the headline: instructions per pair (sections 2-4 only where there
# are icount runs: `make bench-running` has none)
mark = len(out)
emit()
emit("== Cycle estimate (a model, not a measurement; docs/benchmark.md \"Cycle model\") ==")
emit("  ~cycles = instructions per pair, with each primitive below counted at its modelled cost "
     "instead of its own instructions:")
emit("  " + ", ".join(f"{k} {v:.0f}" for k, v in CYCLES.items()) +
     " cycles (irqsave: a pushf/cli/popf pair; atomic: one LOCK'd RMW; transfer: a locked op on "
     "a line another CPU wrote)")
emit("  uses per steady-state pair:")
for m in MODES:
    emit(f"    {m:<16} " + "; ".join(
        f"{label(m, wl)} {wl}: " + ", ".join(f"{n} {k}" for k, n in uses(m, wl).items())
        for wl in ("pages", "bytes")))
emit("  In the -shared workloads every atomic is also a transfer (objcg-atomic bytes-shared: "
     "2 atomics, a lower bound). On PREEMPT_RT decoupled adds 4 atomic, coupled and "
     "coupled-noirq are 4 atomic (rt_spin_lock cmpxchg to take and to release) and no "
     "irqsave, decoupled-owner is the same as on !RT.")
for k, runs in icount.items():
    rt = "-rt-" in k
    emit()
    emit(f"== Instructions per pair, {k} (qemu -icount shift=0, {len(runs)} boots; "
         f"deterministic up to timer ticks) ==")
    for rows, meta in runs:
        emit(guest_line(meta))
    p = prim_of[k]
    floor = per_boot(runs, workload="floor", mode="decoupled")
    emit(f"  floor (bench loop + bare per-CPU add/sub pair): "
         + " / ".join(f"{f:.1f}" for f in floor) + " instructions (boot 1 / boot 2 ...)")
    emit(f"  {LEGEND_BOOTS}; ~cycles: the cycle model of each figure shown")
    rowvals = {}
    for wl in ("pages", "pages-shared", "bytes", "bytes-shared"):
        base, shared = wl.replace("-shared", ""), "1" if wl.endswith("shared") else "0"
        clients = ncpus if shared == "1" else 1
        for m in MODES:
            rowvals[(wl, m)] = per_boot(runs, workload=base, mode=m, clients=clients,
                                        shared=shared, memcgs=1, hardirq=0, nmi="off")
    for grp in GROUPS:
        for wls in (("pages", "pages-shared"), ("bytes", "bytes-shared")):
            last = grp == GROUPS[-1]
            emit(f"  {'workload':<12} | " + " | ".join(f"{label(m, wls[0]):>24}" for m in grp) +
                 (f" | {'dec/cpl':>9}" if last else ""))
            emit(f"  {'':<12} | " + " | ".join(f"{'insns':>14} {'~cycles':>9}" for m in grp) +
                 (f" | {'':>9}" if last else ""))
            for wl in wls:
                cells = [f"{fb(rowvals[(wl, m)]):>14} {fcyc(rowvals[(wl, m)], m, wl, p, rt):>9}"
                         for m in grp]
                dc = ratio(rowvals[(wl, 'decoupled')], rowvals[(wl, 'coupled')])
                emit(f"  {wl:<12} | " + " | ".join(cells) + (f" | {dc:>9}" if last else ""))
    kc = kcost.get(k, ({},))[0]
    none_pages = rowvals[("pages", "none")]
    line = pc_line(kc, fb([a - b for a, b in zip(none_pages, floor)]))
    if line:
        emit(line)
    # the bytes rows' page charges: where the instructions of a row differ
    # between boots, so do its page charges (docs/benchmark-details.md, "Notes on some rows")
    emit("  page charges per bytes pair, (hits + misses) / pairs: a page taken from a stock or "
         "charged to the counters")
    for grp in GROUPS:
        emit(f"  {'workload':<12} | " + " ".join(f"{label(m, 'bytes'):>15}" for m in grp))
        for wl in ("bytes", "bytes-shared"):
            shared = "1" if wl.endswith("shared") else "0"
            cells = []
            for m in grp:
                v = []
                for rows, _ in runs:
                    rs = pick(rows, workload="bytes", mode=m, clients=ncpus if shared == "1" else 1,
                              shared=shared, memcgs=1, hardirq=0, nmi="off")
                    v.append(page_charges(rs[0]) if rs else float("nan"))
                cells.append(fb(v, 3))
            emit(f"  {wl:<12} | " + " ".join(f"{c:>15}" for c in cells))
    # determinism
    if len(runs) > 1:
        a, b = runs[0][0], runs[1][0]
        bk = {key(r): r for r in b}
        diffs = []
        for r in a:
            # the limit rows count refusals: their clients sleep between turns
            if (key(r) in bk and r["hardirq"] == "0" and r.get("nmi") in ("off", None)
                    and not r["workload"].startswith("limit-")):
                x, y = insns(r), insns(bk[key(r)])
                diffs.append((abs(x - y) / max(min(x, y), 1e-9), r, x, y))
        diffs.sort(key=lambda d: d[0])
        if diffs:
            med = diffs[len(diffs) // 2][0]
            emit(f"  boot 1 vs boot 2, {len(diffs)} rows without interrupt load: median "
                 f"difference {med * 100:.2f} %, 90th percentile "
                 f"{diffs[int(len(diffs) * 0.9)][0] * 100:.2f} %")
            for d, r, x, y in diffs:
                if d > SPREAD - 1:
                    emit(f"  ! differs by {d * 100:.0f} %: {label(r['mode'], r['workload'])} "
                         f"{wlname(r)} clients="
                         f"{r['clients']} memcgs={r['memcgs']}: {x:.1f} / {y:.1f}")

    emit()
    emit("  memcgs per client (1 client; 1-7 fit the 7 slots of each decoupled stock, 8-256 do "
         "not: a full stock admits a newcomer on one refill in 8; coupled caches one), "
         "instructions per pair, (x over memcgs=1 of the same boot):")
    for wl in ("pages", "bytes"):
        for grp in GROUPS:
            emit(f"  {'memcgs':>6} | " + " | ".join(f"{label(m, wl) + ' ' + wl:>27}" for m in grp))
            for n in (1, 4, 7, 8, 16, 64, 256):
                cells = []
                for m in grp:
                    v = per_boot(runs, workload=wl, mode=m, clients=1, memcgs=n, hardirq=0,
                                 nmi="off")
                    v1 = per_boot(runs, workload=wl, mode=m, clients=1, memcgs=1, hardirq=0,
                                  nmi="off")
                    cells.append(f"{fb(v):>14} {'(' + ratio(v, v1) + 'x)':>12}")
                emit(f"  {n:>6} | " + " | ".join(cells))
    sized = [wl for wl in ("bytes-256", "bytes-1024", "bytes-3000")
             if any(pick(rows, workload=wl) for rows, _ in runs)]
    if sized:
        emit()
        emit("  objects that leave a rest of the page, next to a live neighbour that leaves the "
             "stock 64 bytes short (1 client, 1 memcg): instructions per pair and page moves per "
             "pair (page charges, hits + misses, and pages put back into the memcg stock, "
             "refills, per pair; about 2 is a page charged and uncharged per pair: ping-pong; "
             "objcg-atomic gives its pages straight back to the counters, which refills do not "
             "count, so its 1 is that ping-pong too). These rows run a loop of their own: "
             "compare them with each other, not with the bytes rows.")
        for grp in GROUPS:
            emit(f"  {'workload':<10} | " + " | ".join(
                f"{label(m, 'bytes') + ' insns':>20} {'moves':>11}" for m in grp))
            for wl in sized:
                cells = []
                for m in grp:
                    v = per_boot(runs, workload=wl, mode=m, clients=1, memcgs=1, hardirq=0,
                                 nmi="off")
                    mv = []
                    for rows, _ in runs:
                        rs = pick(rows, workload=wl, mode=m, clients=1, memcgs=1, hardirq=0,
                                  nmi="off")
                        mv.append((int(rs[0]["hits"]) + int(rs[0]["misses"]) +
                                   int(rs[0]["refills"])) / max(int(rs[0]["ops"]), 1)
                                  if rs and "refills" in rs[0] else float("nan"))
                    cells.append(f"{fb(v):>20} {fb(mv, 2):>11}")
                emit(f"  {wl:<10} | " + " | ".join(cells))
    # the charge the stocks strand when a workload ends (first boot)
    if any("stranded_pages" in r for r in runs[0][0]):
        emit()
        emit("  charge stranded in the stocks when the workload ends: pages still charged with "
             "nothing live (first boot) / the most the design's page stocks hold here (vCPUs x "
             "memcgs each CPU's stock holds x the batch, 64; byte stocks come on top); cl: clients, "
             "mc: memcgs per client")
        for wl, grp in ((wl, grp) for wl in ("pages", "bytes") for grp in GROUPS):
            emit(f"  {wl:<6} cl  mc | " + " ".join(f"{label(m, wl):>15}" for m in grp))
            for c, n in [(1, 1), (1, 7), (1, 8), (1, 64), (1, 256), (2, 1), (4, 1), (8, 1)]:
                cells = []
                for m in grp:
                    rs = pick(runs[0][0], workload=wl, mode=m, clients=c, memcgs=n, hardirq=0,
                              nmi="off")
                    ok = rs and "stranded_pages" in rs[0]
                    cells.append(f"{rs[0]['stranded_pages']}/{rs[0]['stranded_bound']}"
                                 if ok else "-")
                if any(x != "-" for x in cells):
                    emit(f"  {'':<6}{c:>3} {n:>3} | " + " ".join(f"{x:>15}" for x in cells))
    # the charge batch (bench key batch=): 16 and 32 are the batch upstream
    # proposes for 64K and 16K pages
    batches = sorted({int(r["batch"]) for r in runs[0][0] if r.get("batch")} | {64})
    if len(batches) > 1:
        emit()
        emit("  charge batch (bench key batch=; 16 and 32: the batch proposed for 64K and 16K pages), pages, 1 "
             "client: instructions per pair, and pages stranded / the bound (first boot); mc: "
             "memcgs per client")
        emit(f"  {'':<15} mc | " + " | ".join(f"{'batch ' + str(b):>21}" for b in batches))
        for m in BATCHING:
            for n in (1, 8):
                cells, seen = [], False
                for b in batches:
                    v = per_boot(runs, workload="pages", mode=m, clients=1, memcgs=n, hardirq=0,
                                 nmi="off", batch=b)
                    rs = pick(runs[0][0], workload="pages", mode=m, clients=1, memcgs=n,
                              hardirq=0, nmi="off", batch=b)
                    st = (f"{rs[0]['stranded_pages']}/{rs[0]['stranded_bound']}"
                          if rs and "stranded_pages" in rs[0] else "-")
                    cells.append(f"{fb(v):>11} {st:>9}")
                    seen |= bool(rs)
                if seen:
                    emit(f"  {m:<15} {n:>2} | " + " | ".join(f"{c:>21}" for c in cells))
    # the synchronous drain of one memcg (workload=drain), less the page pair
    if any(r["workload"] == "drain" for r in runs[0][0]):
        emit()
        emit("  synchronous drain of one memcg (workload=drain: a page pair, then mcs_drain_all_stock() "
             "of that memcg, as an offline does), 1 client: instructions per drain, the drain row "
             "less the pages row of the same memcgs; mc: memcgs live per client")
        for grp in GROUPS:
            emit(f"  {'mc':>5} | " + " | ".join(f"{m:>15}" for m in grp))
            for n in (1, 8, 64, 256):
                cells = [fb(drain_cost(runs, m, n)) for m in grp]
                if any(c != "-" for c in cells):
                    emit(f"  {n:>5} | " + " | ".join(f"{c:>15}" for c in cells))
    # the in-kernel counters of the first boot, where its jobs asked for them
    rows0, by0, seen0 = runs[0][0], {}, []
    for r in rows0:
        by0.setdefault(key(r), []).append(r)
        if r["workload"] != "floor" and key(r)[1:] not in seen0:
            seen0.append(key(r)[1:])
    seen0.sort(key=lambda rest: rest[0] != "pages")
    pmu_table(rows0, seen0, by0, f"{k}, first boot")

# 3. clients per vCPU in the shape of upstream's netperf table
emit()
emit("== Clients 1..4 x vCPUs, each in its own memcg (the shape of upstream's netperf table), "
     "instructions per pair ==")
emit(f"  {LEGEND_BOOTS}")
for wl in ("pages", "bytes"):
    for k, runs in icount.items():
        emit(f"  workload={wl}, {k}")
        for grp in GROUPS:
            emit(f"  {'clients':>7} | " + " ".join(f"{label(m, wl):>15}" for m in grp))
            c = 1
            while c <= 4 * ncpus:
                v = [fb(per_boot(runs, workload=wl, mode=m, clients=c, memcgs=1, hardirq=0,
                                 nmi="off")) for m in grp]
                emit(f"  {c:>7} | " + " ".join(f"{x:>15}" for x in v))
                c *= 2
# quoted from the thread, not measured by this rig
emit("  upstream, quoted, not measured here: Shakeel Butt, \"[PATCH v3 0/4] memcg: decouple memcg and objcg")
emit("    stocks\", linux-mm, 6 May 2025 (!RT: the cover letter; RT: patch 1/4 of the series): netperf")
emit("    TCP_SENDFILE on 72 CPUs, each client in its own cgroup, Mbps without / with the series (ratio)")
emit("  clients |  !RT without / with series   |  RT without / with series")
for row in ((6, 50235.7, 51415.4, 38559.1, 38652.6), (12, 49336.5, 49901.4, 37388.8, 37560.1),
            (18, 46306.8, 46482.7, 30707.5, 31378.3), (24, 38145.7, 38729.4, 25908.4, 26423.9),
            (30, 30347.6, 31698.2, 22347.7, 22326.5), (36, 26976.6, 27364.4, 20235.1, 20165.0)):
    emit(f"  {row[0]:>7} | {row[1]:>9.1f} / {row[2]:>9.1f} ({row[2] / row[1]:5.3f}) | "
         f"{row[3]:>9.1f} / {row[4]:>9.1f} ({row[4] / row[3]:5.3f})")

if not icount:
    del out[mark:]
mark = len(out)

# the per-CPU layout of the designs, from the module built for each kernel
# (scripts/bench/layout.py: pahole on its debug info)
lays = [(k, os.path.join(bdir, "layout", f"{k}.txt")) for k in icount]
lays = [(k, f) for k, f in lays if os.path.exists(f)]
if lays:
    emit()
    emit("== Per-CPU memory of the designs and the cache lines a stock hit touches "
         "(pahole on the module built for each kernel) ==")
    for k, f in lays:
        emit(f"  {k}:")
        with open(f) as fh:
            for line in fh:
                emit(line.rstrip("\n"))
mark = len(out)

# the designs side by side: one row per design from the rows above (icount,
# 1 client unless said), and its layout; what no job measures is named
def layout_cells(path):
    """design -> (bytes/CPU, page hit lines, byte hit lines) from layout.py's table."""
    cells = {}
    if os.path.exists(path):
        with open(path) as fh:
            for line in fh:
                f = [x.strip() for x in line.split("|")]
                if len(f) == 5 and f[0] not in ("design", ""):
                    cells[f[0]] = (f[2], f[3], f[4])
    return cells


# the side-by-side modes, each followed by the settings of its parameters
SIDE = tuple(lbl for lbl, _, _ in designs.variants(DESIGNS, designs.side(DESIGNS)))


def refusal_rate(runs, mode, workload, batch=64):
    """Per boot: refusals per 1000 charges of a limit workload (nan where it did not run)."""
    def rate(r):
        charges = int(r.get("charges", 0))
        return 1000 * int(r["refusals"]) / charges if charges else float("nan")

    return per_boot_of(runs, rate, workload=workload, mode=mode, memcgs=1, hardirq=0, nmi="off",
                       batch=batch)


def fcount(vals, p=1):
    """A rate over the boots: one value where every boot printed the same, else each and "!"."""
    shown = {f"{x:.{p}f}" for x in vals if x == x}
    if not shown:
        return "-"
    return shown.pop() if len(shown) == 1 else "/".join(f"{x:.{p}f}" for x in vals) + "!"

for k, runs in icount.items():
    if not any(r["workload"] == "drain" for r in runs[0][0]):
        continue
    lay = layout_cells(os.path.join(bdir, "layout", f"{k}.txt"))
    emit()
    emit(f"== Designs side by side, {k} (qemu -icount shift=0; instructions per pair, 1 client) ==")
    emit(f"  {LEGEND_BOOTS}")
    emit("  pages, bytes: the hit pair, 1 memcg (objcg-atomic for none's bytes); 7, 64, 256 mc: the page pair "
         "with that many memcgs per client; drain: a synchronous drain of one memcg, 2 vCPUs, 1 memcg live "
         "(drain row less pages row)")
    emit(f"  {'design':<16} | {'pages':>11} {'bytes':>11} | {'7 mc':>9} {'64 mc':>9} {'256 mc':>9} | "
         f"{'drain':>9}")
    # "decoupled-7.3": the hit pairs only (bench-lib.sh), its other cells "-"
    for m in SIDE + tuple(d["mode"] for d in DESIGNS if not d["group"]):
        base = dict(clients=1, hardirq=0, nmi="off")
        pg = fb(per_boot(runs, workload="pages", mode=m, memcgs=1, **base))
        by = fb(per_boot(runs, workload="bytes", mode=m, memcgs=1, **base))
        mc = [fb(per_boot(runs, workload="pages", mode=m, memcgs=n, **base)) for n in (7, 64, 256)]
        dr = fb(drain_cost(runs, m, 1))
        emit(f"  {m:<16} | {pg:>11} {by:>11} | {mc[0]:>9} {mc[1]:>9} {mc[2]:>9} | {dr:>9}")
    emit(f"  cross pages, cross bytes: charged by one client, uncharged by the next on another CPU, "
         f"{ncpus} clients (instructions per pair, the hand-over's two atomics included); "
         f"refused/1000: "
         f"premature refusals per 1000 charges of one memcg limited to what {ncpus} clients hold live, "
         f"GFP_NOWAIT / GFP_KERNEL, and GFP_NOWAIT with a charge batch of 32 and 16 (the clients take "
         f"turns: the same charges in every boot)")
    emit(f"  {'design':<16} | {'cross pages':>11} {'cross bytes':>11} | {'refused/1000 nowait':>19} "
         f"{'kernel':>8} {'b32 nowait':>10} {'b16 nowait':>10}")
    for m in SIDE:
        base = dict(clients=ncpus, memcgs=1, hardirq=0, nmi="off")
        cp = fb(per_boot(runs, workload="cross-pages", mode=m, **base))
        cb = fb(per_boot(runs, workload="cross-bytes", mode=m, **base))
        rn = fcount(refusal_rate(runs, m, "limit-nowait"))
        rk = fcount(refusal_rate(runs, m, "limit-kernel"))
        r32, r16 = (fcount(refusal_rate(runs, m, "limit-nowait", b)) for b in (32, 16))
        emit(f"  {m:<16} | {cp:>11} {cb:>11} | {rn:>19} {rk:>8} {r32:>10} {r16:>10}")
    emit(f"  one cgroup, frees on another CPU (cross-pages shared=1, the shape of the kernel test robot's "
         f"netperf SCTP_RR): every client charges one memcg and frees what the previous client charged, "
         f"{ncpus} and {4 * ncpus} clients on {ncpus} vCPUs (instructions per pair; ~cycles adds the "
         f"modelled transfers of the lines the free writes: hahn-v4 uncharges the counters on every free)")
    emit(f"  {'design':<16} | {str(ncpus) + ' clients':>11} {'~cycles':>9} | "
         f"{str(4 * ncpus) + ' clients':>11} {'~cycles':>9}")
    for m in SIDE:
        cells = []
        for c in (ncpus, 4 * ncpus):
            v = per_boot(runs, workload="cross-pages", mode=m, clients=c, memcgs=1, shared=1,
                         hardirq=0, nmi="off")
            cells.append(f"{fb(v):>11} {fcyc(v, m, 'pages-shared', prim_of.get(k, {}), '-rt-' in k):>9}")
        emit(f"  {m:<16} | " + " | ".join(cells))
    emit("  stranded: pages still charged at the end of a workload of 1 client with 256 memcgs, and the most "
         "charged while it ran (sampled every 10 ms, at most one live page included), beside the most the "
         "design's page stocks can hold (first boot); per-CPU bytes and the cache lines a hit touches: "
         "the layout table above")
    emit(f"  {'design':<16} | {'stranded end/peak/bound':>23} | {'bytes/CPU':>9} | {'page hit lines':>14} | "
         f"{'byte hit lines':>14}")
    for m in SIDE:
        rs = pick(runs[0][0], workload="pages", mode=m, clients=1, memcgs=256, hardirq=0, nmi="off")
        st = (f"{rs[0]['stranded_pages']}/{rs[0].get('peak_pages', '-')}/{rs[0]['stranded_bound']}"
              if rs and "stranded_pages" in rs[0] else "-")
        b, pl, bl = lay.get(DESIGN[m]["mode"], ("-", "-", "-"))
        emit(f"  {m:<16} | {st:>23} | {b:>9} | {pl:>14} | {bl:>14}")
mark = len(out)

# 3c. the recorded charge streams (bench.sh: each trace of $B/traces once
# through every mode in every icount boot), per trace and kernel
REPLAY_MODES = tuple(lbl for lbl, _, _ in designs.variants(DESIGNS, designs.names(DESIGNS)))
REPLAY_COUNTS = ("events", "ops", "hits", "misses", "trylock_fail", "refills", "drains",
                 "drain_events", "refusals", "recorded_refusals", "short_uncharges",
                 "stranded_pages", "stranded_peak", "untimed", "cached_at_end")
REPLAY_SPREAD = 1.01    # boots' instructions per event further apart: flagged


def trace_reader():
    """scripts/bench/trace-read.py as a module (its reader and cross-CPU matching)."""
    spec = importlib.util.spec_from_file_location(
        "trace_read", os.path.join(os.path.dirname(os.path.abspath(__file__)), "trace-read.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def trace_line(path):
    """What a trace file says of itself: its header and its frees on
    another CPU than the charge (trace-read.py), or why not."""
    try:
        tr = trace_reader()
        h, memcgs, events = tr.load(path)
    except (OSError, ValueError, ImportError) as e:
        return f"  (no summary: {e})"
    cross, _ = tr.cross_frees(memcgs, events)
    share = []
    for unit, name in ((False, "pages"), (True, "bytes")):
        total = sum(cross[unit])
        share.append(f"{100 * cross[unit][1] / total:.1f} % of the {name}" if total else
                     f"no {name}")
    return (f"  {os.path.basename(path)}: workload {h['workload']}, recorded on {h['release']}, "
            f"{h['nr_cpus']} CPUs ({tr.cpus_used(events)} used), {h['nr_memcgs']} memcgs, "
            f"{h['nr_events']} events; uncharged on another CPU than their charge "
            f"(trace-read.py): " + ", ".join(share))


def replay_file(r):
    return r.get("file") or r.get("trace", "?")


rboots = {}     # kernel -> [ [replay rows] per boot ]
for k in icount:
    rboots[k] = [replays.get(os.path.join(bdir, "icount", k, run), [])
                 for run in subdirs(os.path.join(bdir, "icount", k))]
# the wide guests (bench.sh: the traces of more CPUs than the icount
# guests have), boot N beside the icount kernel's boot N
for k in subdirs(os.path.join(bdir, "replay")):
    for i, run in enumerate(subdirs(os.path.join(bdir, "replay", k))):
        load(os.path.join(bdir, "replay", k, run))
        boots = rboots.setdefault(k, [])
        boots.extend([] for _ in range(i + 1 - len(boots)))
        boots[i] = boots[i] + replays[os.path.join(bdir, "replay", k, run)]
rfiles = []
for k, boots in rboots.items():
    for rows in boots:
        for r in rows:
            if replay_file(r) not in rfiles:
                rfiles.append(replay_file(r))
skipped = []
if os.path.exists(os.path.join(bdir, "traces", "skipped.txt")):
    skipped = [line.split() for line in open(os.path.join(bdir, "traces", "skipped.txt"))
               if line.strip()]
if rfiles or skipped:
    emit()
    emit("== Replays of recorded charge streams (qemu -icount shift=0; one replay per mode in every "
         "boot) ==")
    emit("  docs/benchmark.md, \"Real charge streams: replays\": each event of the trace runs once "
         "per pass, in the recorded order on the recorded CPU (bench workload=replay, 2 passes "
         "that must end with the same counts).")
    emit("  insns/event: instructions per event, the entry-point calls alone (ns_per_op; each "
         "event at its fastest pass, so an interrupt in one pass is left out; an event that calls "
         "nothing, a recorded refusal or an uncharge cut to nothing, is not in the mean but "
         "counted apart, untimed=); hit rate: memcg "
         "stock hits / (hits + misses), the page charges; stranded end/peak: pages held in the stocks at the end, and the "
         "most at the end of any event; drains: stock slots drained; insns/drain: instructions "
         "of an event whose call drained a slot (the mean); refused: premature refusals, charges the design refused beyond "
         "the recorded refusals (the replay sets no limit); x pages: insns/event over the same "
         "mode's pages pair (1 client, 1 memcg) of the same boot (both through the mode's own "
         "entry functions); boots: same where every boot "
         "has the same counts and instructions per event within 1 %, else ! and the "
         "differences below the table; a/b!: boot 1 / boot 2. none: no stock (its bytes: "
         "the objcg-atomic leftover).")
    for name, cpus in ([x[0], x[1].split("=")[-1]] for x in skipped if len(x) > 1):
        emit(f"  {name}: not replayed, it uses {cpus} CPUs and the guests have {ncpus}")
    wide = os.path.join(bdir, "traces", "wide.txt")
    for name, cpus in ([x[0], x[1].split("=")[-1]] for x in
                       (line.split() for line in (open(wide) if os.path.exists(wide) else []))
                       if len(x) > 1):
        emit(f"  {name}: uses {cpus} CPUs, the icount guests have {ncpus}: replayed in a guest of "
             f"{cpus} vCPUs booted beside each icount boot (x pages: over that icount boot's row)")
for f in rfiles:
    emit()
    emit(trace_line(os.path.join(bdir, "traces", f)))
    for k, boots in rboots.items():
        if not any(replay_file(r) == f for rows in boots for r in rows):
            continue
        nb = len(boots)
        emit(f"  {k}, {nb} boot{'s' if nb > 1 else ''}:")
        emit(f"  {'mode':<16}| {'insns/event':>15} | {'hit rate':>8} | {'stranded':>11} | "
             f"{'drains':>6} | {'insns/drain':>11} | {'refused':>7} | {'x pages':>11} | boots")
        notes = []
        for m in REPLAY_MODES:
            per = []
            for rows in boots:
                rs = [r for r in rows if replay_file(r) == f and r.get("mode") == m]
                per.append(rs[0] if rs else None)
            got = [r for r in per if r]
            if not got:
                continue
            ins = [float(r["ns_per_op"]) if r else float("nan") for r in per]
            pages = [one(rows, workload="pages", mode=m, clients=1, memcgs=1, hardirq=0,
                         nmi="off") for rows, _ in icount.get(k, [])]
            xp = [a / b if a == a and b == b and b else float("nan") for a, b in zip(ins, pages)]

            def cnt(r, q):
                return int(r.get(q, -1))

            def cell(fig, p=0):
                vals = [fig(r) if r else float("nan") for r in per]
                shown = {f"{v:.{p}f}" for v in vals if v == v}
                if len(shown) > 1:
                    return "/".join(f"{v:.{p}f}" for v in vals) + "!"
                return shown.pop() if shown else "-"

            v = [x for x in ins if x == x]
            if len(v) > 1 and min(v) > 0 and max(v) / min(v) > REPLAY_SPREAD:
                ic = "/".join(f"{x:.1f}" for x in ins) + "!"
            else:
                ic = f"{min(v):.1f}" if v else "-"
            diff = [q for q in REPLAY_COUNTS if len({cnt(r, q) for r in got}) > 1]
            spread = len(v) > 1 and min(v) > 0 and max(v) / min(v) > REPLAY_SPREAD
            if len(got) < nb:
                agree = f"{len(got)} of {nb}!"
                notes.append(f"  ! {m}: replayed in {len(got)} of {nb} boots")
            elif nb < 2:
                agree = "1 boot"
            elif diff or spread:
                agree = "!"
                notes.append(f"  ! {m}: " + "; ".join(
                    [f"{q} " + "/".join(str(cnt(r, q)) for r in got) for q in diff] +
                    ([f"instructions per event {100 * (max(v) / min(v) - 1):.1f} % apart"]
                     if spread else [])))
            else:
                agree = "same"
            hr = cell(lambda r: 100 * cnt(r, "hits") / max(cnt(r, "hits") + cnt(r, "misses"), 1),
                      1)
            st, pk, dr, rf = (cell(lambda r, q=q: cnt(r, q))
                              for q in ("stranded_pages", "stranded_peak", "drains", "refusals"))
            dc = cell(lambda r: float(r["drain_ns_per_event"]) if cnt(r, "drain_events") > 0
                      else float("nan"), 1)
            emit(f"  {m:<16}| {ic:>15} | {hr + ' %':>8} | {st + '/' + pk:>11} | {dr:>6} | "
                 f"{dc:>11} | {rf:>7} | {fb(xp, 2):>11} | {agree}")
        for line in notes:
            emit(line)
        if nb > 1 and not notes:
            emit(f"  every mode: the same counts ({', '.join(REPLAY_COUNTS)}) in "
                 f"{'both' if nb == 2 else 'all ' + str(nb)} boots, instructions per event "
                 f"within 1 %")
mark = len(out)

# 4. one shared memcg on 1, 2, 4 vCPUs: the scale guests (one boot each) and
# the icount boots of the kernel they are a variant of
emit()
emit("== One memcg charged from every vCPU (clients = vCPUs, shared=1), instructions per pair ==")
emit("  ~cycles adds the modelled cache-line transfers")
vrows = []
for k, (rows, meta) in scale.items():
    vrows.append((int(meta.get("smp", 0)), k, [rows], meta))
bases = {k.split("+")[0] for k in scale}
for k, runs in icount.items():
    if k in bases:
        vrows.append((ncpus, k, [rows for rows, _ in runs], runs[0][1]))
vrows.sort(key=lambda x: (x[0], x[1]))
for n, k, boots, meta in vrows:
    emit(guest_line(meta))
if vrows:
    emit(f"  {LEGEND_BOOTS} (the {ncpus}-vCPU row: the icount boots)")
for wl in ("pages", "bytes"):
    for grp in GROUPS:
        emit(f"  {wl:<6} {'vCPUs':>5} | " + " | ".join(f"{label(m, wl):>24}" for m in grp))
        emit(f"  {'':<6} {'':>5} | " + " | ".join(f"{'insns':>14} {'~cycles':>9}" for m in grp))
        for n, k, boots, meta in vrows:
            p = prims(boots[0])
            cells = []
            for m in grp:
                v = []
                for rows in boots:
                    rs = [r for r in rows if r["workload"] == wl and r["mode"] == m and
                          r["clients"] == str(n) and r["shared"] == "1" and
                          r["memcgs"] == "1" and r["hardirq"] == "0" and r.get("nmi") == "off"]
                    v.append(insns(rs[0]) if rs else float("nan"))
                w = wl + ("-shared" if n > 1 else "")
                cells.append(f"{fb(v):>14} {fcyc(v, m, w, p, '-rt-' in k):>9}")
            emit(f"  {'':<6} {n:>5} | " + " | ".join(cells))

# the drain by vCPUs: the scale guests (1 and 4 vCPUs) and the icount boots
drows = [(n, k, boots) for n, k, boots, _ in vrows
         if any(r["workload"] == "drain" for rows in boots for r in rows)]
if drows:
    emit()
    emit("  synchronous drain of one memcg by vCPUs (workload=drain less pages, 1 client), "
         "instructions per drain; mc: memcgs live")
    for grp in GROUPS:
        emit(f"  {'vCPUs':>5} {'mc':>4} | " + " | ".join(f"{m:>15}" for m in grp))
        for n, k, boots in drows:
            for mc in (1, 256):
                cells = [fb(drain_cost([(rows, None) for rows in boots], m, mc)) for m in grp]
                if any(c != "-" for c in cells):
                    emit(f"  {n:>5} {mc:>4} | " + " | ".join(f"{c:>15}" for c in cells))
if not vrows:
    del out[mark:]

# 5. interrupt and NMI load under icount
MISS_LEGEND = ("misses/1000: memcg stock misses per 1000 charge+uncharge pairs run in interrupt "
               "context (timer or NMI)")
for k, runs in icount.items():
    rows = runs[0][0]
    emit()
    emit(f"== Interrupt load, {k} (icount: rates per 10^9 guest instructions; first boot) ==")
    emit(f"  {MISS_LEGEND}; insns/pair and misses/1000: every boot, {LEGEND_BOOTS}")
    emit(f"  {'load':<8} {'wl':<6} {'mode':<15} | {'insns/pair':>14} {'irq/s':>8} "
         f"{'misses/1000':>13} {'trylock fails':>13} | {'nmi':<11} {'nmi/s':>7}")
    skipped = set()
    for r in rows:
        if r["hardirq"] == "0" and r.get("nmi", "off") == "off":
            continue
        load_ = "hardirq" if r["hardirq"] == "1" else "nmi"
        events = irq_pairs(r)
        if not events:
            skipped.add(f"{load_} (nmi={r.get('nmi')})")
            continue
        ns = int(r["ns"])
        fires, nmi_ops = int(r["irq_fires"]), int(r["nmi_ops"])
        v = per_boot(runs, **{q: r.get(q) for q in KEYS})
        # where the interrupts land in the pairs differs between boots: every boot's rate
        miss = per_boot_of(runs, irq_miss_rate, **{q: r.get(q) for q in KEYS})
        emit(f"  {load_:<8} {r['workload']:<6} {label(r['mode'], r['workload']):<15} | "
             f"{fb(v):>14} {fires * 1e9 / ns:>8.0f} "
             f"{fb(miss):>13} {r['irq_trylock_fail']:>13} | "
             f"{r['nmi']:<11} {nmi_ops * 1e9 / ns:>7.0f}")
    if skipped:
        emit(f"  not measured (no pair ran in interrupt context): {', '.join(sorted(skipped))}")

# 6. wall clock: one table for every wall-clock guest
ABBR = {m: DESIGN[m]["abbr"] for m in MODES}
WMODES = sum(GROUPS, ())
# the wall-clock table's bands (its width): two groups a band, each with the
# ratio of its first mode to the default's (decoupled) or, in the band of
# the default, to the second group's first mode
WBANDS = []
for _i in range(0, len(GROUPS), 2):
    _band = sum(GROUPS[_i:_i + 2], ())
    _num = _band[0]
    _den = MODES[0] if _num != MODES[0] else (GROUPS[_i + 1][0] if _i + 1 < len(GROUPS) else _num)
    WBANDS.append((_band, (_num, _den, f"{DESIGN[_num]['abbr']}/{DESIGN[_den]['abbr']}")))
if wall:
    emit()
    emit("== Wall clock: Mops/s (charge+uncharge pairs, all clients), median of the "
         "repetitions ==")
    emit("  Noisy rows are marked: an emulator's wall clock moves with the host's load and "
         "scheduling, so a row whose max/min over the repetitions exceeds 1.3 is measured "
         "again in a second guest (r: that guest's figure) and marked ! if it is still over "
         "1.3; min and max of every row are in bench.csv.")
for k, ((rows, meta), (rrows, rmeta)) in wall.items():
    emit(guest_line(meta))
    if rrows:
        emit("  " + guest_line(rmeta).lstrip().replace("guest:", "rerun guest:", 1))
    p = prim_of["wall-" + k]
    floor = [float(r["ns_per_op"]) for r in rows if r["workload"] == "floor"]
    fl = f"; floor {statistics.median(floor):.1f} ns per pair (median)" if floor else ""
    if k == "uml":
        emit(f"  uml: an irqsave pair is {p['irqsave']:.1f} ns here (two host sigprocmask "
             f"calls) against {p['preempt']:.1f} ns for a preempt pair: dec/cpl is that "
             f"cost, not a speedup of the design; coupled-noirq is the control{fl}.")
    else:
        emit(f"  {k}: irqsave pair {p['irqsave']:.1f} ns, preempt pair {p['preempt']:.1f} ns, "
             f"trylock pair {p['trylock']:.1f} ns, atomic {p['atomic']:.1f} ns; an emulator's "
             f"ratio is not a speedup{fl}.")
if wall:
    emit("  " + ", ".join(f"{a}: {m}" for m, a in ABBR.items()) + " (objcg-atomic for bytes); "
         "cl: clients, mc: memcgs per client; load (nmi): NMI load asked, the guest has none "
         "(nmi=unsupported), so no interrupt load ran; the designs in two bands, each with a "
         "ratio of medians: decoupled/coupled, hahn-v4/decoupled")
wall_by = {}    # kernel -> (seen, by, rby) for the interrupt table
for k, ((rows, meta), (rrows, rmeta)) in wall.items():
    by, rby = {}, {}
    for r in rows:
        by.setdefault(key(r), []).append(r)
    for r in rrows:
        rby.setdefault(key(r), []).append(r)
    seen = []
    for r in rows:
        kk = key(r)
        if r["workload"] == "floor" or (kk[1:]) in seen:
            continue
        seen.append(kk[1:])
    # pages rows, then bytes rows
    seen.sort(key=lambda rest: rest[0] != "pages")
    wall_by[k] = (seen, by, rby)


def wall_cell(by, rby, kk):
    """The median Mops/s of a wall-clock row and its noise flag (r, !, or none)."""
    rs, flag = by.get(kk, []), ""
    vals = [float(r["mops"]) for r in rs]
    if vals and min(vals) > 0 and max(vals) / min(vals) > NOISY and kk in rby:
        vals = [float(r["mops"]) for r in rby[kk]]
        flag = "r"
        if vals and min(vals) > 0 and max(vals) / min(vals) > NOISY:
            flag = "!"
    elif vals and min(vals) > 0 and max(vals) / min(vals) > NOISY:
        flag = "!"
    return (statistics.median(vals) if vals else float("nan")), flag


for band, (num, den, rname) in WBANDS:
    if not wall:
        break
    emit(f"  {'kernel':<10} {'workload':<18} {'cl':>2} {'mc':>2} {'load':<7} | " +
         " ".join(f"{ABBR[m]:>9}" for m in band) + f" | {rname:>7}")
    for k in wall:
        seen, by, rby = wall_by[k]
        for rest in seen:
            cells = []
            for m in band:
                med, flag = wall_cell(by, rby, (m,) + rest)
                cells.append(f"{med:>8.2f}{flag:<1}" if med == med else f"{'-':>8} ")
            if all(c.strip() == "-" for c in cells):
                continue
            a, b = wall_cell(by, rby, (num,) + rest)[0], wall_cell(by, rby, (den,) + rest)[0]
            wl = rest[0] + ("-shared" if rest[4] == "1" else "")
            emit(f"  {k:<10} {wl:<18} {rest[1]:>2} {rest[5]:>2} {load_label(rest):<7} | " +
                 " ".join(cells) + f" | {fmt(a / b if b else float('nan'), 7, 2)}")
for k, ((rows, meta), _) in wall.items():
    seen, by, _ = wall_by[k]
    pmu_table(rows, seen, by, f"{k}, wall clock")
# the interrupt rows of the wall-clock guests
irows, unmeasured = [], []
for k in wall:
    seen, by, _ = wall_by[k]
    for rest in seen:
        if rest[2] == "0" and rest[3] == "off":
            continue
        for m in WMODES:
            rs = by.get((m,) + rest, [])
            if not rs:
                continue
            ld = "hardirq" if rest[2] == "1" else "nmi=" + rs[0]["nmi"]
            rs = [r for r in rs if irq_pairs(r)]
            if not rs:
                if (k, ld) not in unmeasured:
                    unmeasured.append((k, ld))
                continue
            rate = [(int(r["irq_fires"]) if rest[2] == "1" else int(r["nmi_ops"])) * 1e9 /
                    int(r["ns"]) for r in rs]
            miss = [irq_miss_rate(r) for r in rs]
            fails = [int(r["irq_trylock_fail"]) for r in rs]
            irows.append(f"  {k:<10} {ld:<8} {rest[0]:<6} {label(m, rest[0]):<15} | "
                         f"{statistics.median(rate):>8.0f} {statistics.median(miss):>11.1f} "
                         f"{statistics.median(fails):>13.0f}")
if irows or unmeasured:
    emit()
    emit(f"  wall clock under interrupt load, median of the repetitions; {MISS_LEGEND}")
if irows:
    emit(f"  {'kernel':<10} {'load':<8} {'wl':<6} {'mode':<15} | {'rate/s':>8} "
         f"{'misses/1000':>11} {'trylock fails':>13}")
    for line in irows:
        emit(line)
if unmeasured:
    emit("  not measured (no pair ran in interrupt context): " +
         ", ".join(f"{ld.split('=')[0]} load on {k} ({ld})" for k, ld in unmeasured) +
         "; nmi=unsupported: the guest cannot send NMIs (UML has none)")

# our modes beside the kernel's accounting; "decoupled-7.3" (its obj stock
# shaped as 7.x's) runs bytes only there, its pages cell is "-"
KCOST_MODES = tuple(m for m in ("decoupled", "decoupled-7.3", "coupled", "none") if m in DESIGN)
if kcost:
    emit()
    emit("== Beside the kernel's own memcg accounting (qemu -icount shift=0, instructions per "
         "pair) ==")
    emit("  docs/benchmark.md, \"The kernel's own accounting\"")
    emit("  kernel acct: what GFP_KERNEL_ACCOUNT adds to a kmalloc(64)+kfree pair (bytes) and "
         "to an alloc_page+__free_page pair (pages) over GFP_KERNEL, from a task in a non-root "
         "memcg; ours: a charge+uncharge pair of this module (1 client, 1 memcg), less the "
         "floor (the bench loop and a bare per-CPU add/sub pair), of every boot; page_counter: "
         "the kernel's page_counter_try_charge()+page_counter_uncharge() pair on a chain of "
         "the levels shown, the loop and calls subtracted")
    emit(f"  {LEGEND_BOOTS}")
    for k, (kc, boots, meta) in kcost.items():
        emit(f"  {k}: {meta.get('uname', '?')}" + (
            "" if kc.get("verdict") == "PASS" else
            f"; kernel_cost: {kc.get('reason', 'no result') if kc else 'no result'}") + (
            f"; page_counter: unsupported ({kc.get('pc_reason', 'no reason given')})"
            if kc.get("pc") == "unsupported" else ""))
    # the page-counter column where some kernel_cost line has its keys
    has_pc = any("pc_net_ns" in kc or "pc" in kc for kc, _, _ in kcost.values())
    for wl, acct in (("bytes", "kmalloc_accounting_ns"), ("pages", "page_accounting_ns")):
        emit(f"  {wl:<6} {'kernel':<18} | {'kernel acct':>11} | " +
             " ".join(f"{label(m, wl):>14}" for m in KCOST_MODES) +
             (f" | {'page_counter':>16}" if wl == "pages" and has_pc else ""))
        for k, (kc, boots, meta) in kcost.items():
            if kc.get("verdict") != "PASS":
                continue
            ours = []
            for m in KCOST_MODES:
                v = [one(rows, workload=wl, mode=m, clients=1, memcgs=1, hardirq=0, nmi="off") -
                     one(rows, workload="floor", mode="decoupled") for rows in boots]
                ours.append(fb(v))
            pc = ""
            if wl == "pages" and has_pc:
                pc = f"{float(kc['pc_net_ns']):.1f} ({kc.get('pc_levels', '?')} levels)" \
                    if "pc_net_ns" in kc else ("unsupported" if kc.get("pc") == "unsupported"
                                                else "-")
                pc = f" | {pc:>16}"
            emit(f"  {'':<6} {k:<18} | {float(kc[acct]):>11.1f} | " +
                 " ".join(f"{x:>14}" for x in ours) + pc)
    for k, (kc, boots, meta) in kcost.items():
        if kc.get("verdict") != "PASS":
            continue
        for op, acc, plain, diff in (("kmalloc64", kc["kmalloc_account_ns"],
                                      kc["kmalloc_plain_ns"], kc["kmalloc_accounting_ns"]),
                                     ("page", kc["page_account_ns"], kc["page_plain_ns"],
                                      kc["page_accounting_ns"]),
                                     ("page_counter", kc.get("pc_pair_ns"),
                                      kc.get("pc_call_ns"), kc.get("pc_net_ns")),
                                     ("obj_stock64", kc.get("obj_pair_ns"),
                                      kc.get("obj_call_ns"), kc.get("obj_net_ns")),
                                     ("page_stock", kc.get("skmem_pair_ns"),
                                      kc.get("skmem_call_ns"), kc.get("skmem_net_ns"))):
            if diff is None:
                continue
            kcost_csv.append(dict(part="kernel-accounting", kernel=k, accel=meta.get("accel", ""),
                                  workload=op, clients=1, memcgs=1,
                                  kernel_account_insns_per_pair=f"{float(acc):.1f}",
                                  kernel_plain_insns_per_pair=f"{float(plain):.1f}",
                                  kernel_accounting_insns_per_pair=f"{float(diff):.1f}",
                                  kernel_pc_levels=kc.get("pc_levels", "")
                                  if op == "page_counter" else "",
                                  verdict=kc.get("verdict", "")))
    emit("  Comparable: the same emulator, kernel and instruction counting, a stock hit on "
         "both sides in the steady state. Not comparable one to one: the kernel's figure is "
         "a whole accounting (slab hooks, objcg lookup, its stock, vmstat and, for pages, "
         "the page's memcg_data), ours is the stock's charge+uncharge alone, called directly; "
         "6.12's stock is coupled (IRQs off), 7.x's is decoupled (local_trylock).")


# 3b. calibration: each design against the kernel stock it models.  Upstream
# split the memcg and objcg stocks and moved them to local_trylock_t in
# 6.16: before, the stock is "coupled", from then on "decoupled".
CAL_GAP = 0.15  # a ratio further than this from 1 is flagged
CAL_PAIRS = (("obj", "obj", "bytes", "obj_cgroup_charge(64 B) + obj_cgroup_uncharge"),
             ("page", "skmem", "pages", "socket memory charge + uncharge of 1 page"))


def kernel_series(k, meta):
    """(major, minor) of a guest's kernel: its uname, else its name (deb-7.x-...)."""
    for v in (meta.get("uname", ""), k.replace("deb-", "").replace("x", "0")):
        parts = v.split(".")
        if len(parts) > 1 and parts[0].isdigit() and parts[1][:2].rstrip("-+").isdigit():
            return int(parts[0]), int(parts[1][:2].rstrip("-+"))
    return None


models = designs.kernel_model    # the design shaped like the stock of a kernel of a series


def kernel_pair(kc, key):
    """The kernel's net pair (a float), or why there is none (a string)."""
    if f"{key}_net_ns" in kc:
        return float(kc[f"{key}_net_ns"])
    if kc.get(key) == "unsupported":
        return "unavailable: " + kc.get(f"{key}_reason", "no reason given")
    if not kc:
        return "unavailable: no kernel_cost line"
    if kc.get("verdict") != "PASS":
        return "unavailable: " + kc.get("reason", "kernel_cost failed")
    return "unavailable: not in the kernel_cost line"


def ours_less_floor(boots, mode, wl):
    """A design's 1-client, 1-memcg pair less the floor, per boot."""
    return [one(rows, workload=wl, mode=mode, clients=1, memcgs=1, hardirq=0, nmi="off") -
            one(rows, workload="floor", mode="decoupled") for rows in boots]


def gap(vals, to=1.0):
    """'*' where any boot's figure is further than CAL_GAP from @to."""
    return "*" if any(v == v and abs(v / to - 1) > CAL_GAP for v in vals) else " "


cal = []    # (kernel, flavour, series, kernel_cost line, [rows per boot], meta)
for k, (kc, boots, meta) in kcost.items():
    ser = kernel_series(k, meta)
    if ser:
        cal.append((k, "rt" if "rt-" in k else "generic", ser, kc, boots, meta))
if cal:
    emit()
    emit("== Calibration: each design against the kernel stock it models (qemu -icount shift=0, "
         "instructions per pair) ==")
    emit("  docs/benchmark.md, \"Calibration\"")
    emit("  kernel: the kernel's own pair (debugfs kernel_cost), stock warm, from a task in a "
         "non-root memcg, less the same loop calling two empty functions of the same types "
         "(the loop and the calls): obj = " + CAL_PAIRS[0][3] + ", page = the " +
         CAL_PAIRS[1][3] + " (mem_cgroup_charge_skmem(), on 7.x mem_cgroup_sk_charge()). "
         "model: the design shaped like that kernel's stock (coupled before 6.16, decoupled "
         "from 6.16), its bytes pair (64 B) and pages pair (1 page), 1 client, 1 memcg, less the "
         "floor (the bench loop, a preempt pair and a per-CPU add/sub: the model keeps its two "
         "direct calls and loses a preempt pair), measured in the same guest as the kernel's "
         "pair: on 6.12 the icount guests (every boot), on 7.x the kernel-accounting guests, "
         "which run our 1-memcg rows too. ratio: model / kernel; "
         f"*: more than {CAL_GAP * 100:.0f} % from 1.")
    emit(f"  {LEGEND_BOOTS}")
    emit(f"  {'kernel':<17} {'release':<8} {'model':<9} |" +
         "|".join(f" {n + ' kernel':>11} {'model':>9} {'ratio':>10}  " for n, *_ in CAL_PAIRS))
    for k, fl, ser, kc, boots, meta in cal:
        m = models(ser)
        cells = []
        for _, key, wl, _ in CAL_PAIRS:
            kp = kernel_pair(kc, key)
            ours = ours_less_floor(boots, m, wl)
            if isinstance(kp, str):
                cells.append(f" {kp[:33]:>33} ")
                continue
            r = [x / kp if kp else float("nan") for x in ours]
            cells.append(f" {kp:>11.1f} {fb(ours):>9} {fb(r, 2):>10}{gap(r)} ")
        emit(f"  {k:<17} {meta.get('uname', '?').split('+')[0][:8]:<8} {m:<9} |" + "|".join(cells))
    # the A/B: ours, decoupled over coupled, beside the kernel's newer over its older stock
    pairs = []
    for fl in ("generic", "rt"):
        old = [c for c in cal if c[1] == fl and models(c[2]) == "coupled"]
        new = [c for c in cal if c[1] == fl and models(c[2]) == "decoupled"]
        if old and new:
            pairs.append((fl, old[0], new[0]))
    if pairs:
        so = ".".join(map(str, pairs[0][1][2]))
        sn = ".".join(map(str, pairs[0][2][2]))
        emit(f"  A/B: the kernel's {sn} pair over its {so} pair (decoupled over coupled stock), "
             f"beside ours, decoupled over coupled (each less the floor), in the {so} guest (the "
             f"A/B table's figures) and in the {sn} guest; *: ours more than "
             f"{CAL_GAP * 100:.0f} % from the kernel's ratio")
        emit("  design: decoupled, the module's own obj stock shape (hits inlined, an unrolled "
             "scan), or decoupled-7.3, the 7.3 kernel's shape call for call (their page stock "
             "is the same: the page rows give decoupled only); each over coupled")
        emit(f"  {'flavour':<8} {'pair':<5} {'design':<13} | {'kernel ' + sn + '/' + so:>16} | "
             f"{'ours, ' + so + ' guest':>18} | {'ours, ' + sn + ' guest':>18} | kernels")
    for fl, (ko, _, _, kco, bo, _), (kn, _, ser_new, kcn, bn, _) in pairs:
        for name, key, wl, _ in CAL_PAIRS:
            a, b = kernel_pair(kcn, key), kernel_pair(kco, key)
            kr = a / b if not isinstance(a, str) and not isinstance(b, str) and b else None
            # the modes beside the kernel's accounting of the design that
            # models the newer kernel (decoupled's: decoupled, decoupled-7.3)
            newer = [m for m in KCOST_MODES
                     if DESIGN[m]["design"] == DESIGN[models(ser_new)]["design"]]
            for design in newer if name == "obj" else newer[:1]:
                cells = []
                for boots in (bo, bn):
                    v = [x / y if y == y and y else float("nan") for x, y in
                         zip(ours_less_floor(boots, design, wl),
                             ours_less_floor(boots, "coupled", wl))]
                    cells.append(f"{fb(v, 2):>17}{gap(v, kr) if kr else ' '}")
                emit(f"  {fl:<8} {name:<5} {design:<13} | {f'{kr:.2f}' if kr else '-':>16} | " +
                     " | ".join(cells) + f" | {kn} / {ko}")

# the memory footprint (debugfs slab): printed once, from the first guest
# that read it; the other guests' readings by the lines that differ
foot = []
for k in wall:
    for name in ("slab-kmem_cache.txt", "slab-kmalloc.txt"):
        pth = os.path.join(bdir, "wall", k, "first", name)
        if os.path.exists(pth) and os.path.getsize(pth):
            foot.append((f"{k}, {name[5:-4]} mode", open(pth).read().rstrip().splitlines()))
if foot:
    emit()
    emit(f"memory footprint (debugfs slab), read on {foot[0][0]}:")
    for line in foot[0][1]:
        emit(line)
    for name, lines in foot[1:]:
        diff = [x for x in lines if x not in foot[0][1]]
        emit(f"  {name}: " + ("the same" if not diff else "differs in"))
        for line in diff:
            emit("    " + line)

nrows = sum(len(rs) for runs in icount.values() for rs, _ in runs) + \
    sum(len(rs) for boots in rboots.values() for rs in boots) + \
    sum(len(rs) for rs, _ in scale.values()) + \
    sum(len(a[0]) + len(b[0]) for a, b in wall.values()) + kcost_rows
emit()
emit(f"measurements: {nrows}, invariant failures: {len(bad)}, job lines the bench refused: "
     f"{len(refused)}, result lines cut by a kernel message on the console (not counted): "
     f"{len(garbled)}")
for r in bad[:20]:
    emit("  FAILED: " + " ".join(f"{k}={r.get(k, '?')}" for k in KEYS))
for r in refused[:3]:
    emit("  REFUSED: " + " ".join(f"{k}={v}" for k, v in r.items()))
text = "\n".join(out)
print(text)
os.makedirs(outdir, exist_ok=True)
with open(os.path.join(outdir, "bench.txt"), "w") as f:
    f.write(text + "\n")

# bench.csv: one row per measurement, one quantity per column (empty where
# a quantity does not apply), units in the names
CSV_KEYS = ["part", "kernel", "guest", "accel", "vcpus", "mode", "workload", "shared",
            "clients", "memcgs", "batch", "hardirq", "nmi", "duration_ms", "ops", "ns",
            "insns_per_pair", "cycles_model", "mops", "ns_per_op", "hits", "misses",
            "trylock_fail", "refills", "stranded_pages", "stranded_bound", "peak_pages", "cross",
            "charges", "refusals", "irq_fires", "irq_ops", "irq_misses", "irq_trylock_fail", "nmi_sent",
            "nmi_ops", "errors", "prim_irqsave_ns", "prim_preempt_ns", "prim_trylock_ns",
            "prim_atomic_ns", "pmu", "pmu_want", "pmu_error", "pmu_cpus", "pmu_insns_per_pair",
            "pmu_cycles_per_pair", "pmu_cpu_clock_ns_per_pair", "pmu_task_clock_ns_per_pair",
            "pmu_scaled", "kernel_account_insns_per_pair", "kernel_plain_insns_per_pair",
            "kernel_accounting_insns_per_pair", "kernel_pc_levels", "trace", "events",
            "passes", "timed", "untimed", "retimed", "interrupted", "drains", "drain_events",
            "drain_ns_per_event", "stranded_peak", "cached_at_end", "recorded_refusals",
            "short_uncharges", "verdict"]


def csv_rows(part, kernel, guest, d, icount_part):
    """The CSV rows of one guest directory: every result line, refused ones
    (verdict ERROR) included."""
    meta = read_meta(d)
    rows = read_kv(os.path.join(d, "results.txt"))
    p = prims([r for r in rows if r.get("verdict") == "PASS"])
    for r in rows:
        if r.get("verdict") not in ("PASS", "FAIL", "ERROR"):
            continue
        row = {k: r.get(k, "") for k in CSV_KEYS}
        # a replay's cpus= is the trace's
        row.update(part=part, kernel=kernel, guest=guest, accel=meta.get("accel", ""),
                   vcpus=meta.get("smp", "") if r.get("workload") == "replay" else
                   r.get("cpus", meta.get("smp", "")),
                   mode=label(r.get("mode", "decoupled"), r.get("workload", "pages")))
        row["workload"] = r.get("workload", "pages")
        if row["workload"] == "replay":
            # the trace file; the instructions per event are ns_per_op
            row["trace"] = r.get("file", r.get("trace", ""))
        elif icount_part and r.get("verdict") != "ERROR" and "ops" in r:
            ins = insns(r)
            row["insns_per_pair"] = f"{ins:.1f}"
            wl = wlname(r)
            if wl in ("pages", "bytes", "pages-shared", "bytes-shared"):
                row["cycles_model"] = f"{estimate(ins, r['mode'], wl, p, '-rt-' in kernel):.0f}"
        yield [row[k] for k in CSV_KEYS]


with open(os.path.join(outdir, "bench.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(CSV_KEYS)
    for k in subdirs(os.path.join(bdir, "icount")):
        for run in subdirs(os.path.join(bdir, "icount", k)):
            w.writerows(csv_rows("icount", k, run, os.path.join(bdir, "icount", k, run), True))
    for k in subdirs(os.path.join(bdir, "scale")):
        w.writerows(csv_rows("icount-vcpus", k, "", os.path.join(bdir, "scale", k), True))
    for k in subdirs(os.path.join(bdir, "replay")):
        for run in subdirs(os.path.join(bdir, "replay", k)):
            w.writerows(csv_rows("icount-replay", k, run, os.path.join(bdir, "replay", k, run), True))
    for k in subdirs(os.path.join(bdir, "wall")):
        for g in subdirs(os.path.join(bdir, "wall", k)):
            w.writerows(csv_rows("wall", k, g, os.path.join(bdir, "wall", k, g), False))
    for r in kcost_csv:
        w.writerow([r.get(k, "") for k in CSV_KEYS])

# env.txt: the facts of the run and of each guest, KEY=VALUE lines
with open(os.path.join(outdir, "env.txt"), "w") as f:
    for k, v in top.items():
        f.write(f"{k}={v}\n")
    for root, dirs, files in sorted(os.walk(bdir)):
        dirs.sort()
        if root == bdir or "meta.txt" not in files:
            continue
        g = os.path.relpath(root, bdir)
        for k, v in read_meta(root).items():
            f.write(f"{g}.{k}={v}\n")

# bench.png: instructions per pair against clients under icount, per kernel
# and workload; without icount runs, the wall clock (median Mops/s)
dat = os.path.join(outdir, "bench.dat")
panels = []
with open(dat, "w") as f:
    for k, runs in icount.items():
        for wl in ("pages", "bytes"):
            c = 1
            while c <= 4 * ncpus:
                f.write(f"{c} " + " ".join(str(best(runs, workload=wl, mode=m, clients=c,
                                                    memcgs=1, hardirq=0, nmi="off"))
                                           for m in MODES) + "\n")
                c *= 2
            f.write("\n\n")
            panels.append((f"{k} {wl}", wl, "instructions per pair (qemu -icount shift=0)"))
    if not panels:
        for k, ((rows, _), _) in wall.items():
            for wl in ("pages", "bytes"):
                cl = sorted({int(r["clients"]) for r in rows if r["workload"] == wl})
                for c in cl:
                    vals = []
                    for m in MODES:
                        v = [float(r["mops"]) for r in pick(rows, workload=wl, mode=m, clients=c,
                                                            memcgs=1, hardirq=0, nmi="off")]
                        vals.append(str(statistics.median(v)) if v else "NaN")
                    f.write(f"{c} " + " ".join(vals) + "\n")
                f.write("\n\n")
                panels.append((f"{k} {wl}", wl, "Mops/s, median (wall clock)"))
gp = ['set terminal png size 1500,900 noenhanced', f'set output "{os.path.join(outdir, "bench.png")}"',
      f'set multiplot layout 2,{max((len(panels) + 1) // 2, 1)} title "memcg_stock: '
      f'charge+uncharge pairs vs clients"',
      'set logscale x 2', 'set xlabel "clients"', 'set key top left']
for i, (name, wl, ylabel) in enumerate(panels):
    gp.append(f'set title "{name}"')
    gp.append(f'set ylabel "{ylabel}"')
    gp.append(f'plot "{dat}" ' + ", ".join(
        f'{chr(34) * 2 if j else ""} index {i} using 1:{j + 2} with linespoints title '
        f'"{label(m, wl)}"' for j, m in enumerate(MODES)))
gp.append("unset multiplot")
if panels:
    try:
        subprocess.run(["gnuplot"], input="\n".join(gp), text=True, check=True,
                       capture_output=True)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"warning: gnuplot failed: {e}", file=sys.stderr)
os.remove(dat)
print(f"\nwrote {outdir}/bench.txt, bench.csv, bench.png, env.txt")
sys.exit(1 if bad or refused else 0)
