#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench-report.py BENCHDIR OUTDIR NCPUS: the tables of `make bench` (and of
`make bench-running`) from the result lines of debugfs "bench" that
scripts/bench.sh collected in BENCHDIR (icount/KERNEL/runN, scale/KERNEL,
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
import os
import statistics
import subprocess
import sys

MODES = ["decoupled", "coupled", "coupled-noirq", "none", "decoupled-owner", "percpu-counter"]
NOISY = 1.3
KEYS = ("mode", "workload", "clients", "hardirq", "nmi", "shared", "memcgs")

# The cycle model of the primitives the modes differ in (docs/benchmark.md,
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
    workload (stock hits; counted from the code, see docs/benchmark.md): a dict
    primitive -> uses, plus 'transfer' for locked operations on a line
    another CPU wrote in between (shared workloads only).  On PREEMPT_RT
    (@rt) local_lock and local_trylock are rt_spin_lock()s: a cmpxchg to
    take and one to release (the rtmutex fast path), and
    local_lock_irqsave() disables no IRQs (coupled-noirq is coupled there).
    decoupled-owner takes a preempt pair and its owner byte (plain per-CPU
    loads and stores) per section, on PREEMPT_RT too.  percpu-counter's
    bytes are the objcg-atomic leftover, as none's."""
    shared = workload.endswith("-shared")
    wl = workload.replace("-shared", "")
    if mode == "decoupled":
        return {"trylock": 2, "atomic": 4} if rt else {"trylock": 2}
    if mode == "decoupled-owner":
        return {"preempt": 2}
    if mode in ("coupled", "coupled-noirq") and rt:
        return {"atomic": 4}
    if mode == "coupled":
        return {"irqsave": 2}
    if mode == "coupled-noirq":
        return {"preempt": 2}
    if mode == "percpu-counter" and wl == "pages":
        # a cmpxchg to take from this CPU's count, an add to give back, and
        # the two events' preempt pairs; the counts are per CPU, so a shared
        # memcg moves no line between CPUs in the steady state
        return {"atomic": 2, "preempt": 2}
    if wl == "pages":
        # "none": each of the 3 counter levels (memcg, bench parent, root)
        # charged and uncharged; the miss event takes a preempt pair
        u = {"atomic": 6, "preempt": 1}
    elif not shared:
        # bytes, "objcg-atomic": the leftover never keeps a whole page, so
        # every pair charges a page (3 levels, objcg_pages add, leftover add
        # of the rest) and the uncharge completes it and gives it back
        # (leftover add, cmpxchg to 0, objcg_pages sub, 3 levels)
        u = {"atomic": 11, "preempt": 1}
    else:
        # shared: other CPUs' charges keep the leftover off a whole page, so
        # most pairs only take and give back bytes (a lower bound)
        u = {"atomic": 2}
    if shared:
        u["transfer"] = u["atomic"]
    return u


def read_kv(path):
    rows = []
    if not os.path.exists(path):
        return rows
    with open(path) as f:
        for line in f:
            kv = dict(t.split("=", 1) for t in line.split() if "=" in t)
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
    return " ".join(f"{n}={kv[n]}" for n in KEYS) + f" duration_ms={ms}" + \
        (f" pmu={pmu}" if pmu else "")


def insns(r):
    """Instructions per pair under icount: guest ns over all vCPUs / ops."""
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


def emit(s=""):
    out.append(s.rstrip())


def load(d):
    rows = read_kv(os.path.join(d, "results.txt"))
    bad.extend(r for r in rows if r.get("verdict") == "FAIL")
    refused.extend(r for r in rows if r.get("verdict") == "ERROR")
    # a kernel message printed into the middle of a qemu console line
    garbled.extend(r for r in rows if r.get("verdict") not in ("PASS", "FAIL", "ERROR"))
    return [r for r in rows if r.get("verdict") == "PASS"], read_meta(d)


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
    return (f"  guest: {meta.get('kernel', '?')} ({meta.get('uname', '?')}), "
            f"accel={meta.get('accel', '?')}, icount={meta.get('icount', 'off')}, "
            f"{meta.get('smp', '?')} vCPUs; host load {meta.get('load_before', '?').split(' ')[0:3]} "
            f"-> {meta.get('load_after', '?').split(' ')[0:3]}")


def pick(rows, **want):
    return [r for r in rows if all(str(r.get(k)) == str(v) for k, v in want.items())
            and (want.get("shared") is not None or r.get("shared") == "0")]


def one(rows, **want):
    rs = pick(rows, **want)
    return insns(rs[0]) if rs else float("nan")


def best(runs, **want):
    """The fewest instructions of a row over the boots: whatever else ran in
    a guest only ever adds instructions (see the flagged rows)."""
    vals = [one(rows, **want) for rows, _ in runs]
    vals = [v for v in vals if v == v]
    return min(vals) if vals else float("nan")


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


PMU_ERRORS = {-2: "no PMU", -95: "a kernel without perf events", -16: "counters busy",
              -19: "no client CPU"}
PMU_FIGURES = {"hw": (("pmu_insns_per_pair", "insns"), ("pmu_cycles_per_pair", "cycles")),
               "sw": (("pmu_cpu_clock_ns_per_pair", "cpu-clock ns"),
                      ("pmu_task_clock_ns_per_pair", "task-clock ns"))}


def pmu_table(rows, seen, by):
    """The in-kernel counters of a wall-clock run, per pair, median of the
    repetitions: instructions and cycles (pmu=hw) or the software clocks
    (pmu=sw); or why there are none."""
    kinds = sorted({r.get("pmu", "off") for r in rows if r["workload"] != "floor"})
    if kinds in ([], ["off"]):
        return
    emit(f"  in-kernel counters per pair (bench pmu=, one counter pair per client CPU, "
         f"median of the repetitions in one guest): pmu={'/'.join(kinds)}")
    for r in rows:
        if r.get("pmu") == "unavailable":
            err = int(r.get("pmu_error", "0"))
            emit(f"  pmu=unavailable for pmu={r.get('pmu_want', '?')}: error {err} "
                 f"({PMU_ERRORS.get(err, 'see the kernel log')}); the wall clock above stands")
            break
    for kind in ("hw", "sw"):
        if kind not in kinds:
            continue
        (fa, na), (fb, nb) = PMU_FIGURES[kind]
        emit(f"  pmu={kind}: {na} / {nb} per pair")
        group = None
        for rest in seen:
            if rest[0] != group:
                group = rest[0]
                emit(f"  {'workload':<13} {'cl':>3} {'mc':>2} {'load':<7} | " +
                     " | ".join(f"{label(m, group):^30}" for m in MODES))
            cells = []
            for m in MODES:
                rs = [r for r in by.get((m,) + rest, []) if r.get("pmu") == kind]
                if not rs:
                    cells.append(f"{'-':^30}")
                    continue
                a = statistics.median(float(r[fa]) for r in rs)
                b = statistics.median(float(r[fb]) for r in rs)
                cells.append(f"{a:>12.1f} / {b:<12.1f}{'s' if any(r.get('pmu_scaled') == '1' for r in rs) else ' ':<3}")
            wl = rest[0] + ("-shared" if rest[4] == "1" else "")
            ld = "hardirq" if rest[2] == "1" else ("nmi" if rest[3] != "off" else "-")
            emit(f"  {wl:<13} {rest[1]:>3} {rest[5]:>2} {ld:<7} | " + " | ".join(cells))
        if kind == "hw":
            emit("  (per-CPU counters: everything the client CPUs ran in the window, interrupts "
                 "included; s: a counter was multiplexed and scaled)")


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
emit("  uses per steady-state pair: " + "; ".join(
    f"{label(m, wl)} {wl}: " + ", ".join(f"{n} {k}" for k, n in uses(m, wl).items())
    for m in MODES for wl in ("pages", "bytes")) + "; in the -shared workloads every atomic "
     "is also a transfer (objcg-atomic bytes-shared: 2 atomics, a lower bound); on PREEMPT_RT "
     "decoupled adds 4 atomic, coupled and coupled-noirq are 4 atomic (rt_spin_lock "
     "cmpxchg to take and to release) and no irqsave, decoupled-owner is the same as "
     "on !RT")
for k, runs in icount.items():
    emit()
    emit(f"== Instructions per charge+uncharge pair, {k}, qemu -icount shift=0 "
         f"(deterministic up to timer ticks; {len(runs)} boots) ==")
    for rows, meta in runs:
        emit(guest_line(meta))
    p = prim_of[k]
    floor = [one(rows, workload="floor", mode="decoupled") for rows, _ in runs]
    emit(f"  floor (bench loop + bare per-CPU add/sub pair): "
         + " / ".join(f"{f:.1f}" for f in floor) + " instructions (run 1 / run 2 ...)")
    emit("  (~cycles and dec/cpl from the fewer instructions of the boots; ! = boots differ by "
         "over 2 %)")
    for wl in ("pages", "pages-shared", "bytes", "bytes-shared"):
        base, shared = wl.replace("-shared", ""), "1" if wl.endswith("shared") else "0"
        if wl in ("pages", "bytes"):
            emit(f"  {'workload':<13} | " + " ".join(f"{label(m, wl):>22}" for m in MODES) +
                 " | dec/cpl")
            emit(f"  {'':<13} | " + " ".join(f"{'insns r1/r2  ~cycles':>22}" for _ in MODES) + " |")
        clients = ncpus if shared == "1" else 1
        cells, vals = [], {}
        for m in MODES:
            v = [one(rows, workload=base, mode=m, clients=clients, shared=shared, memcgs=1,
                     hardirq=0, nmi="off") for rows, _ in runs]
            # the fewer instructions of the boots: a disturbance only adds
            vals[m] = min(v)
            est = estimate(vals[m], m, wl, p, "-rt-" in k)
            spread = max(v) / min(v) if min(v) > 0 else float("nan")
            flag = "!" if spread > 1.02 else " "
            cells.append(f"{'/'.join(f'{x:.1f}' for x in v):>13}{flag} {est:>7.0f}")
        r = vals["decoupled"] / vals["coupled"] if vals["coupled"] else float("nan")
        emit(f"  {wl:<13} | " + " ".join(f"{c:>22}" for c in cells) + f" | {r:6.2f}")
    # determinism
    if len(runs) > 1:
        a, b = runs[0][0], runs[1][0]
        bk = {key(r): r for r in b}
        diffs = []
        for r in a:
            if key(r) in bk and r["hardirq"] == "0" and r.get("nmi") in ("off", None):
                x, y = insns(r), insns(bk[key(r)])
                diffs.append((abs(x - y) / max(min(x, y), 1e-9), r, x, y))
        diffs.sort(key=lambda d: d[0])
        if diffs:
            med = diffs[len(diffs) // 2][0]
            emit(f"  run 1 vs run 2, {len(diffs)} rows without interrupt load: median "
                 f"difference {med * 100:.2f} %, 90th percentile "
                 f"{diffs[int(len(diffs) * 0.9)][0] * 100:.2f} %")
            for d, r, x, y in diffs:
                if d > 0.02:
                    emit(f"  ! differs by {d * 100:.0f} %: {label(r['mode'], r['workload'])} "
                         f"{wlname(r)} clients="
                         f"{r['clients']} memcgs={r['memcgs']}: {x:.1f} / {y:.1f}")

    emit()
    emit(f"  memcgs per client (the fewer instructions of the boots; 1 client; 1-7 fit the 7 slots of each decoupled stock, "
         f"8-256 do not: a full stock admits a newcomer on one refill in 8; coupled caches one), instructions per pair, x = over memcgs=1:")
    emit(f"  {'memcgs':>6} | " + " ".join(f"{m + ' pages':>20} {m + ' bytes':>20}"
                                       for m in MODES[:2]) +
         " | none pages  objcg-atomic bytes | percpu-counter pages")
    for n in (1, 4, 7, 8, 16, 64, 256):
        cells = []
        for m in MODES:
            for wl in ("pages", "bytes"):
                v = best(runs, workload=wl, mode=m, clients=1, memcgs=n, hardirq=0, nmi="off")
                v1 = best(runs, workload=wl, mode=m, clients=1, memcgs=1, hardirq=0, nmi="off")
                cells.append(f"{v:8.1f} ({v / v1:4.2f}x)")
        emit(f"  {n:>6} | " + " ".join(f"{c:>20}" for c in cells[:4]) + " | " +
             " ".join(cells[6:8]) + " | " + cells[10])
    emit("  (coupled-noirq and decoupled-owner rows are in the CSV)")
    sized = [wl for wl in ("bytes-256", "bytes-1024", "bytes-3000")
             if any(pick(rows, workload=wl) for rows, _ in runs)]
    if sized:
        emit()
        emit("  objects that leave a rest of the page, next to a live neighbour that leaves the stock "
             "64 bytes short (1 client, 1 memcg), instructions per pair (the fewer of the boots) and "
             "page moves per pair (page charges, hits + misses, and pages put back into the memcg "
             "stock, refills, per pair, first boot; about 2 is a page charged and uncharged per "
             "pair: ping-pong; objcg-atomic gives its pages straight back to the counters, which "
             "refills do not count, so its 1 is that ping-pong too; these rows run a loop of their "
             "own: compare them with each other, not with the bytes rows):")
        emit(f"  {'workload':<10} | " + " ".join(f"{label(m, 'bytes'):>21}" for m in MODES))
        for wl in sized:
            cells = []
            for m in MODES:
                v = best(runs, workload=wl, mode=m, clients=1, memcgs=1, hardirq=0, nmi="off")
                rs = pick(runs[0][0], workload=wl, mode=m, clients=1, memcgs=1, hardirq=0,
                          nmi="off")
                moves = float("nan")
                if rs and "refills" in rs[0]:
                    r = rs[0]
                    moves = (int(r["hits"]) + int(r["misses"]) + int(r["refills"])) / \
                        max(int(r["ops"]), 1)
                cells.append(f"{v:8.1f} {moves:5.2f} moves")
            emit(f"  {wl:<10} | " + " ".join(f"{c:>21}" for c in cells))
    # the charge the stocks strand when a workload ends (first boot)
    if any("stranded_pages" in r for r in runs[0][0]):
        emit()
        emit("  charge stranded in the stocks when the workload ends: pages still charged with "
             "nothing live (first boot) / the most")
        emit("  the design's page stocks hold here (vCPUs x memcgs each CPU's stock holds x "
             "batch 64; byte stocks come on top); cl: clients, mc: memcgs per client")
        for wl in ("pages", "bytes"):
            emit(f"  {wl:<6} cl  mc | " + " ".join(f"{label(m, wl)[:14]:>14}" for m in MODES))
            for c, n in [(1, 1), (1, 7), (1, 8), (1, 64), (1, 256), (2, 1), (4, 1), (8, 1)]:
                cells = []
                for m in MODES:
                    rs = pick(runs[0][0], workload=wl, mode=m, clients=c, memcgs=n, hardirq=0,
                              nmi="off")
                    ok = rs and "stranded_pages" in rs[0]
                    cells.append(f"{rs[0]['stranded_pages']}/{rs[0]['stranded_bound']}"
                                 if ok else "-")
                if any(x != "-" for x in cells):
                    emit(f"  {'':<6}{c:>3} {n:>3} | " + " ".join(f"{x:>14}" for x in cells))
    # the in-kernel counters of the first boot, where its jobs asked for them
    rows0, by0, seen0 = runs[0][0], {}, []
    for r in rows0:
        by0.setdefault(key(r), []).append(r)
        if r["workload"] != "floor" and key(r)[1:] not in seen0:
            seen0.append(key(r)[1:])
    seen0.sort(key=lambda rest: rest[0] != "pages")
    pmu_table(rows0, seen0, by0)

# 3. the seed-000 shape
emit()
emit("== Clients 1..4 x vCPUs, each in its own memcg (the shape of upstream's netperf table), "
     "instructions per pair (the fewer of the boots) ==")
for wl in ("pages", "bytes"):
    emit(f"  workload={wl}")
    emit(f"  {'clients':>7} | " + " | ".join(
        f"{k:>12}: " + " ".join(f"{label(m, wl)[:12]:>12}" for m in MODES) for k in icount))
    c = 1
    while c <= 4 * ncpus:
        cells = []
        for k, runs in icount.items():
            v = [best(runs, workload=wl, mode=m, clients=c, memcgs=1, hardirq=0, nmi="off")
                 for m in MODES]
            cells.append(f"{'':>12}  " + " ".join(f"{x:>12.1f}" for x in v))
        emit(f"  {c:>7} | " + " | ".join(cells))
        c *= 2
emit("  upstream (seed 000, Shakeel Butt, [PATCH v3 0/4] memcg: decouple memcg and objcg "
     "stocks): netperf TCP_SENDFILE, 72 CPUs, clients in their own cgroups, Mbps")
emit("  clients |  !RT without / with series   |  RT without / with series")
for row in ((6, 50235.7, 51415.4, 38559.1, 38652.6), (12, 49336.5, 49901.4, 37388.8, 37560.1),
            (18, 46306.8, 46482.7, 30707.5, 31378.3), (24, 38145.7, 38729.4, 25908.4, 26423.9),
            (30, 30347.6, 31698.2, 22347.7, 22326.5), (36, 26976.6, 27364.4, 20235.1, 20165.0)):
    emit(f"  {row[0]:>7} | {row[1]:>9.1f} / {row[2]:>9.1f} ({row[2] / row[1]:5.3f}) | "
         f"{row[3]:>9.1f} / {row[4]:>9.1f} ({row[4] / row[3]:5.3f})")

if not icount:
    del out[mark:]
mark = len(out)

# 4. one shared memcg on 1, 2, 4 vCPUs
emit()
emit("== One memcg charged from every vCPU (clients = vCPUs, shared=1), instructions per pair; "
     "~cycles adds the modelled cache-line transfers ==")
vrows = []
for k, (rows, meta) in scale.items():
    vrows.append((int(meta.get("smp", 0)), k, rows, meta))
for k, runs in icount.items():
    if k == "deb-amd64":
        vrows.append((ncpus, k, runs[0][0], runs[0][1]))
for n, k, rows, meta in sorted(vrows):
    emit(guest_line(meta))
emit(f"  {'vCPUs':>5} | " + " ".join(f"{m + ' pages':>20} {label(m, 'bytes') + ' bytes':>20}"
                                   for m in MODES))
for n, k, rows, meta in sorted(vrows):
    cells = []
    p = prims(rows)
    for m in MODES:
        for wl in ("pages", "bytes"):
            rs = [r for r in rows if r["workload"] == wl and r["mode"] == m and
                  r["clients"] == str(n) and r["shared"] == "1" and
                  r["memcgs"] == "1" and r["hardirq"] == "0" and r.get("nmi") == "off"]
            v = insns(rs[0]) if rs else float("nan")
            est = estimate(v, m, wl + ("-shared" if n > 1 else ""), p, "-rt-" in k)
            cells.append(f"{v:8.1f} ~{est:6.0f}")
    emit(f"  {n:>5} | " + " ".join(f"{c:>20}" for c in cells))

if not vrows:
    del out[mark:]

# 5. interrupt and NMI load under icount
for k, runs in icount.items():
    rows = runs[0][0]
    emit()
    emit(f"== Interrupt load, {k} (icount: rates per 10^9 instructions of the guest; "
         f"miss/1000: memcg stock misses per 1000 charge pairs in interrupt context) ==")
    emit(f"  {'load':<8} {'workload':<6} {'mode':<14} | {'insns/pair':>10} {'irq/s':>8} "
         f"{'miss/1000':>9} {'trylock fails':>13} | {'nmi':<11} {'nmi/s':>7}")
    for r in rows:
        if r["hardirq"] == "0" and r.get("nmi", "off") == "off":
            continue
        load_ = "hardirq" if r["hardirq"] == "1" else "nmi"
        ns = int(r["ns"])
        fires, nmi_ops = int(r["irq_fires"]), int(r["nmi_ops"])
        # misses per 1000 interrupt-context pairs, for both loads (a timer
        # fire runs several pairs, an NMI one)
        events = int(r["irq_ops"]) if load_ == "hardirq" else nmi_ops
        miss = int(r["irq_misses"]) * 1000 / events if events else float("nan")
        emit(f"  {load_:<8} {r['workload']:<6} {label(r['mode'], r['workload']):<14} | "
             f"{insns(r):>10.1f} "
             f"{fires * 1e9 / ns:>8.0f} {miss:>9.1f} {r['irq_trylock_fail']:>13} | "
             f"{r['nmi']:<11} {nmi_ops * 1e9 / ns:>7.0f}")

# 6. wall clock
for k, ((rows, meta), (rrows, rmeta)) in wall.items():
    emit()
    emit(f"== Wall clock, {k}: Mops/s (charge+uncharge pairs, all clients), min / median / max "
         f"of the repetitions ==")
    emit(guest_line(meta))
    if rrows:
        emit("  rerun of the noisy rows:")
        emit(guest_line(rmeta))
    p = prim_of["wall-" + k]
    if k == "uml":
        emit(f"  SMP UML: an irqsave pair is {p['irqsave']:.1f} ns here (two host sigprocmask "
             f"calls) against {p['preempt']:.1f} ns for a preempt pair: dec/cpl below is that "
             f"cost, not a speedup of the design; coupled-noirq is the control.")
    else:
        emit(f"  irqsave pair {p['irqsave']:.1f} ns, preempt pair {p['preempt']:.1f} ns, trylock "
             f"pair {p['trylock']:.1f} ns, atomic {p['atomic']:.1f} ns on this guest; an "
             f"emulator's ratio is not a speedup.")
    by, rby = {}, {}
    for r in rows:
        by.setdefault(key(r), []).append(r)
    for r in rrows:
        rby.setdefault(key(r), []).append(r)
    floor = [float(r["ns_per_op"]) for r in rows if r["workload"] == "floor"]
    if floor:
        emit(f"  floor: {statistics.median(floor):.1f} ns per pair (median)")
    seen = []
    for r in rows:
        kk = key(r)
        if r["workload"] == "floor" or (kk[1:]) in seen:
            continue
        seen.append(kk[1:])
    # pages rows, then bytes rows, each under its own header
    seen.sort(key=lambda rest: rest[0] != "pages")
    group = None
    for rest in seen:
        if rest[0] != group:
            group = rest[0]
            emit(f"  {'workload':<13} {'cl':>3} {'mc':>2} {'load':<7} | " +
                 " | ".join(f"{label(m, group):^22}" for m in MODES) +
                 f" | {'dec/cpl':>7} {'irqsave ns':>10}")
        cells, med = [], {}
        for m in MODES:
            kk = (m,) + rest
            rs, flag = by.get(kk, []), ""
            vals = [float(r["mops"]) for r in rs]
            if vals and min(vals) > 0 and max(vals) / min(vals) > NOISY and kk in rby:
                vals = [float(r["mops"]) for r in rby[kk]]
                flag = "r"
                if vals and min(vals) > 0 and max(vals) / min(vals) > NOISY:
                    flag = "!"
            elif vals and min(vals) > 0 and max(vals) / min(vals) > NOISY:
                flag = "!"
            if not vals:
                cells.append(f"{'-':^22}")
                med[m] = float("nan")
                continue
            med[m] = statistics.median(vals)
            cells.append(f"{min(vals):6.2f} {med[m]:6.2f} {max(vals):6.2f}{flag:<1} ")
        wl = rest[0] + ("-shared" if rest[4] == "1" else "")
        ld = "hardirq" if rest[2] == "1" else ("nmi" if rest[3] != "off" else "-")
        ratio = med["decoupled"] / med["coupled"] if med.get("coupled") else float("nan")
        emit(f"  {wl:<13} {rest[1]:>3} {rest[5]:>2} {ld:<7} | " + " | ".join(cells) +
             f" | {ratio:7.2f} {p['irqsave']:>10.1f}")
    emit("  cl: clients, mc: memcgs per client; r: max/min over 1.3 in the first guest, these "
         "are the rerun's figures; !: still over 1.3 (noisy)")
    pmu_table(rows, seen, by)
    # interrupt rows
    emit(f"  interrupt load (median over repetitions): rate per s, misses per 1000 interrupt "
         f"pairs, trylock failures")
    for rest in seen:
        if rest[2] == "0" and rest[3] == "off":
            continue
        for m in MODES:
            rs = by.get((m,) + rest, [])
            if not rs:
                continue
            nm = rs[0]["nmi"]
            if rest[2] == "1":
                ev = [int(r["irq_ops"]) for r in rs]
                rate = [int(r["irq_fires"]) * 1e9 / int(r["ns"]) for r in rs]
            else:
                ev = [int(r["nmi_ops"]) for r in rs]
                rate = [int(r["nmi_ops"]) * 1e9 / int(r["ns"]) for r in rs]
            miss = [int(r["irq_misses"]) * 1000 / e for r, e in zip(rs, ev) if e]
            fails = [int(r["irq_trylock_fail"]) for r in rs]
            emit(f"    {'hardirq' if rest[2] == '1' else 'nmi=' + nm:<16} {rest[0]:<6} "
                 f"{label(m, rest[0]):<14} "
                 f"rate {statistics.median(rate):>8.0f}/s  misses/1000 "
                 f"{statistics.median(miss) if miss else float('nan'):>7.1f}  trylock fails "
                 f"{statistics.median(fails):>8.0f}")

# the kernel's own memcg accounting (harness/kernel_cost.c) beside ours, on
# the same kernel and emulator: every icount guest reads it; the kcost/
# guests (Debian 7.x) run only the 1-memcg rows of this module besides
kcost = {}      # kernel -> (kernel_cost line, our rows, meta)
kcost_csv = []  # its CSV rows (bench.csv)
for k, runs in icount.items():
    kc = read_kv(os.path.join(bdir, "icount", k, "run1", "kernel_cost.txt"))
    kcost[k] = (kc[0] if kc else {}, runs[0][0], runs[0][1])
kcost_rows = 0  # rows of the kcost guests (the icount guests' are counted there)
for k in subdirs(os.path.join(bdir, "kcost")):
    rows, meta = load(os.path.join(bdir, "kcost", k))
    kcost_rows += len(rows)
    kc = read_kv(os.path.join(bdir, "kcost", k, "kernel_cost.txt"))
    kcost[k] = (kc[0] if kc else {}, rows, meta)
if kcost:
    emit()
    emit("== Beside the kernel's own memcg accounting (qemu -icount shift=0, instructions per "
         "pair; docs/benchmark.md \"The kernel's own accounting\") ==")
    emit("  kernel: what GFP_KERNEL_ACCOUNT adds to a kmalloc(64)+kfree pair and to an "
         "alloc_page+__free_page pair over GFP_KERNEL, from a task in a non-root memcg;")
    emit("  ours: a charge+uncharge pair of this module (1 client, 1 memcg), less the floor "
         "(the bench loop and a bare per-CPU add/sub pair)")
    emit(f"  {'kernel':<22} {'uname':<26} | {'kmalloc acct':>12} {'bytes: dec':>10} "
         f"{'cpl':>6} {'atomic':>6} | {'page acct':>9} {'pages: dec':>10} {'cpl':>6} "
         f"{'none':>6}")
    for k, (kc, rows, meta) in kcost.items():
        fl = one(rows, workload="floor", mode="decoupled")
        ours = {(wl, m): one(rows, workload=wl, mode=m, clients=1, memcgs=1, hardirq=0,
                             nmi="off") - fl
                for wl in ("bytes", "pages") for m in ("decoupled", "coupled", "none")}
        if kc.get("verdict") != "PASS":
            emit(f"  {k:<22} {meta.get('uname', '?'):<26} | kernel_cost: "
                 f"{kc.get('reason', 'no result') if kc else 'no result'}")
            continue
        ka, pa = float(kc["kmalloc_accounting_ns"]), float(kc["page_accounting_ns"])
        emit(f"  {k:<22} {meta.get('uname', '?'):<26} | {ka:>12.1f} "
             f"{fmt(ours[('bytes', 'decoupled')], 10)} {fmt(ours[('bytes', 'coupled')], 6)} "
             f"{fmt(ours[('bytes', 'none')], 6)} | {pa:>9.1f} "
             f"{fmt(ours[('pages', 'decoupled')], 10)} {fmt(ours[('pages', 'coupled')], 6)} "
             f"{fmt(ours[('pages', 'none')], 6)}")
        for op, acc, plain, diff in (("kmalloc64", kc["kmalloc_account_ns"],
                                      kc["kmalloc_plain_ns"], ka),
                                     ("page", kc["page_account_ns"], kc["page_plain_ns"], pa)):
            kcost_csv.append(dict(part="kernel-accounting", kernel=k, accel=meta.get("accel", ""),
                                  workload=op, clients=1, memcgs=1,
                                  kernel_account_insns_per_pair=f"{float(acc):.1f}",
                                  kernel_plain_insns_per_pair=f"{float(plain):.1f}",
                                  kernel_accounting_insns_per_pair=f"{diff:.1f}",
                                  verdict=kc.get("verdict", "")))
    emit("  Comparable: the same emulator, kernel and instruction counting, a stock hit on "
         "both sides in the steady state. Not comparable one to one: the kernel's figure is "
         "a whole accounting (slab hooks, objcg lookup, its stock, vmstat and, for pages, "
         "the page's memcg_data), ours is the stock's charge+uncharge alone, called directly; "
         "6.12's stock is coupled (IRQs off), 7.x's is decoupled (local_trylock).")

for k, ((rows, meta), _) in wall.items():
    for name in ("slab-kmem_cache.txt", "slab-kmalloc.txt"):
        pth = os.path.join(bdir, "wall", k, "first", name)
        if os.path.exists(pth) and os.path.getsize(pth):
            emit()
            emit(f"memory footprint ({k}, {name[5:-4]} mode, debugfs slab):")
            out.extend(open(pth).read().rstrip().splitlines())

nrows = sum(len(rs) for runs in icount.values() for rs, _ in runs) + \
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
            "clients", "memcgs", "hardirq", "nmi", "duration_ms", "ops", "ns",
            "insns_per_pair", "cycles_model", "mops", "ns_per_op", "hits", "misses",
            "trylock_fail", "refills", "stranded_pages", "stranded_bound", "irq_fires", "irq_ops", "irq_misses", "irq_trylock_fail", "nmi_sent",
            "nmi_ops", "errors", "prim_irqsave_ns", "prim_preempt_ns", "prim_trylock_ns",
            "prim_atomic_ns", "pmu", "pmu_want", "pmu_error", "pmu_cpus", "pmu_insns_per_pair",
            "pmu_cycles_per_pair", "pmu_cpu_clock_ns_per_pair", "pmu_task_clock_ns_per_pair",
            "pmu_scaled", "kernel_account_insns_per_pair", "kernel_plain_insns_per_pair",
            "kernel_accounting_insns_per_pair", "verdict"]


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
        row.update(part=part, kernel=kernel, guest=guest, accel=meta.get("accel", ""),
                   vcpus=r.get("cpus", meta.get("smp", "")),
                   mode=label(r.get("mode", "decoupled"), r.get("workload", "pages")))
        row["workload"] = r.get("workload", "pages")
        if icount_part and r.get("verdict") != "ERROR" and "ops" in r:
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
