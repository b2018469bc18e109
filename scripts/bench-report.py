#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench-report.py RUNDIR OUTDIR NCPUS [KERNEL]: turn the result lines of debugfs
"bench" into the A/B tables (medians over repetitions), a CSV and a PNG plot.
Exits non-zero if any measurement failed its invariant check."""
import csv
import os
import statistics
import subprocess
import sys

rundir, outdir, ncpus = sys.argv[1], sys.argv[2], int(sys.argv[3])
kernel = sys.argv[4] if len(sys.argv) > 4 else "uml"
where = "UML" if kernel == "uml" else f"qemu TCG, {kernel}"
rows = []
with open(os.path.join(rundir, "results.txt")) as f:
    for line in f:
        kv = dict(t.split("=", 1) for t in line.split() if "=" in t)
        rows.append(kv)

bad = [r for r in rows if r.get("verdict") != "PASS"]
by = {}
for r in rows:
    if r.get("verdict") != "PASS":
        continue
    key = (r["workload"] + ("-shared" if r.get("shared") == "1" else ""),
           int(r["hardirq"]), int(r["clients"]), r["mode"])
    by.setdefault(key, []).append(r)


def med(key, field):
    vals = [float(r[field]) for r in by.get(key, [])]
    return statistics.median(vals) if vals else float("nan")


floor_ns = med(("floor", 0, 1, "decoupled"), "ns_per_op")
modes = ["decoupled", "coupled", "none"]
clients = sorted({k[2] for k in by if k[0] != "floor"})
out = []
out.append(f"A/B benchmark: {where}, {ncpus} CPUs (a shared 2-core machine: ratios matter, "
           f"absolute numbers do not); median of {max(len(v) for v in by.values())} runs")
out.append(f"floor (bare per-CPU add/sub pair): {floor_ns:.1f} ns/op")
csvrows = []
sections = [(wl, irq) for wl in ("pages", "bytes", "mixed") for irq in (0, 1)]
sections += [(wl, 0) for wl in ("pages-shared", "bytes-shared")]
for wl, irq in sections:
    if not any(k[0] == wl and k[1] == irq for k in by):
        continue
    if True:
        out.append("")
        out.append(f"workload={wl} hardirq={'on' if irq else 'off'}")
        out.append(f"{'clients':>7} | {'decoupled':>9} {'coupled':>9} {'none':>9} Mops/s | "
                   f"{'dec/cpl':>7} {'dec/none':>8} | {'ns/op':>6} {'x floor':>7} | "
                   f"{'trylock fails (dec)':>19}")
        for c in clients:
            if (wl, irq, c, "decoupled") not in by:
                continue
            m = {mode: med((wl, irq, c, mode), "mops") for mode in modes}
            ns = med((wl, irq, c, "decoupled"), "ns_per_op")
            fails = med((wl, irq, c, "decoupled"), "trylock_fail")
            r1 = m["decoupled"] / m["coupled"] if m["coupled"] else float("nan")
            r2 = m["decoupled"] / m["none"] if m["none"] else float("nan")
            out.append(f"{c:>7} | {m['decoupled']:>9.3f} {m['coupled']:>9.3f} {m['none']:>9.3f}"
                       f"        | {r1:>7.2f} {r2:>8.2f} | {ns:>6.0f} {ns / floor_ns:>7.1f} | "
                       f"{fails:>19.0f}")
            csvrows.append([wl, irq, c, m["decoupled"], m["coupled"], m["none"], r1, r2,
                            ns, ns / floor_ns, fails])

for name in ("slab-kmem_cache.txt", "slab-kmalloc.txt"):
    p = os.path.join(rundir, name)
    if os.path.exists(p):
        out.append("")
        out.append(f"memory footprint ({name[5:-4]} mode, debugfs slab):")
        out.extend(open(p).read().rstrip().splitlines())

out.append("")
out.append(f"measurements: {len(rows)}, invariant failures: {len(bad)}")
text = "\n".join(out)
print(text)
os.makedirs(outdir, exist_ok=True)
with open(os.path.join(outdir, "bench.txt"), "w") as f:
    f.write(text + "\n")
with open(os.path.join(outdir, "bench.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["workload", "hardirq", "clients", "decoupled_mops", "coupled_mops",
                "none_mops", "dec_over_coupled", "dec_over_none", "dec_ns_per_op",
                "x_floor", "dec_trylock_fails"])
    w.writerows(csvrows)

# gnuplot: Mops/s against clients, one panel per workload x hardirq
dat = os.path.join(outdir, "bench.dat")
with open(dat, "w") as f:
    for wl in ("pages", "bytes", "mixed"):
        for irq in (0, 1):
            for r in csvrows:
                if r[0] == wl and r[1] == irq:
                    f.write(f"{r[2]} {r[3]} {r[4]} {r[5]}\n")
            f.write("\n\n")
gp = [f'set terminal png size 1500,900', f'set output "{os.path.join(outdir, "bench.png")}"',
      'set multiplot layout 2,3 title "memcg_stock A/B: Mops/s vs clients ({where})"',
      'set logscale x 2', 'set xlabel "clients"', 'set ylabel "Mops/s"', 'set key top left']
idx = 0
panels = []
for wl in ("pages", "bytes", "mixed"):
    for irq in (0, 1):
        panels.append((idx, wl, irq))
        idx += 1
for irq in (0, 1):
    for wl_i, wl in enumerate(("pages", "bytes", "mixed")):
        i = wl_i * 2 + irq
        gp.append(f'set title "{wl}, hardirq {"on" if irq else "off"}"')
        gp.append(f'plot "{dat}" index {i} using 1:2 with linespoints title "decoupled", '
                  f'"" index {i} using 1:3 with linespoints title "coupled", '
                  f'"" index {i} using 1:4 with linespoints title "none"')
gp.append("unset multiplot")
try:
    subprocess.run(["gnuplot"], input="\n".join(gp), text=True, check=True)
except (OSError, subprocess.CalledProcessError) as e:
    print(f"warning: gnuplot failed: {e}", file=sys.stderr)
print(f"\nwrote {outdir}/bench.txt, bench.csv, bench.png")
sys.exit(1 if bad else 0)
