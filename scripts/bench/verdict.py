#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The verdict table: which stock design wins where, from a bench report.

usage: verdict.py [REPORT]     print the block (default: the report block
                               of docs/bench-report.md)

verdict(text) reads a report (bench.txt, or docs/bench-report.md, which
holds one) and returns the Markdown lines that update-bench-docs.py puts
between <!-- verdict:begin --> and <!-- verdict:end --> in README.md and
docs/benchmark.md; scripts/checks/docs-check.py computes them again from
docs/bench-report.md and fails when a block differs, so no sentence of the
verdict can outlive the report it came from.

Per design (the rows of the report's "Designs side by side" tables, the
settings of a design's parameters included) and per kernel of those
tables: the hit pairs, the page pair with 64 memcgs per client, frees on
another CPU in one cgroup (2 clients, ~cycles: the instruction count with
the modelled cache-line transfers), the stranded charge at the end and at
the peak with 256 memcgs, the premature refusals per 1000 charges
(GFP_NOWAIT, batch 64) and the median over the replayed traces of the
instructions per recorded event.  The lowest of each column and kernel is
marked with *; for stranded charge and refusals among the designs that keep
a stock (none keeps nothing and refuses nothing).  A figure whose boots
disagree is shown as the larger, with !.
"""
import os
import re
import statistics
import sys
import textwrap

TREE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REPORT_DOC = os.path.join(TREE, "docs", "bench-report.md")
LABEL = {"deb-amd64": "6.12", "deb-rt-amd64": "6.12 RT"}
SIDE = re.compile(r"^== Designs side by side, (\S+) \(")
REPLAY = re.compile(r"^== Replays of recorded charge streams")
KERNEL_LINE = re.compile(r"^  (\S+), \d+ boots?:$")


def figure(tok):
    """(value, disagree) of a report cell: a/b! gives the larger."""
    if tok in (None, "-"):
        return None
    bad = tok.endswith("!")
    try:
        vals = [float(v.strip("~")) for v in tok.rstrip("!").split("/")]
    except ValueError:
        return None
    return (max(vals), bad or len(vals) > 1)


def rows_of(lines, i):
    """The table whose header is lines[i]: [(label, [cell tokens])]."""
    out = []
    for line in lines[i + 1:]:
        if "|" not in line or not line.startswith("  ") or line.startswith("    "):
            break
        parts = [p.split() for p in line.split("|")]
        out.append((" ".join(parts[0]), parts[1:]))
    return out


def parse(text):
    """{kernel: {design: {column: (value, disagree) or str}}}, the kernels
    and designs in the report's order, and {kernel: {mode: [insns/event]}}."""
    lines = text.split("\n")
    side, order, kernels, replay = {}, [], [], {}
    section, kernel = None, None
    for i, line in enumerate(lines):
        if line.startswith("== "):
            m = SIDE.match(line)
            section = ("side", m.group(1)) if m else ("replay", None) if REPLAY.match(line) else None
            if m and m.group(1) not in kernels:
                kernels.append(m.group(1))
            kernel = None
            continue
        if section is None:
            continue
        if section[0] == "replay":
            m = KERNEL_LINE.match(line)
            if m:
                kernel = m.group(1)
                continue
            if kernel and re.match(r"^  mode\s+\|\s+insns/event", line):
                for mode, cells in rows_of(lines, i):
                    f = figure(cells[0][0]) if cells and cells[0] else None
                    if f:
                        replay.setdefault(kernel, {}).setdefault(mode, []).append(f)
            continue
        k = section[1]
        if not re.match(r"^  design\s+\|", line):
            continue
        head = " ".join(line.split("|")[1].split())
        for design, cells in rows_of(lines, i):
            d = side.setdefault(k, {}).setdefault(design, {})
            if design not in order:
                order.append(design)
            c = cells
            if head == "pages bytes" and len(c) >= 2:
                d["pages"] = figure(c[0][0]) if c[0] else None
                d["bytes"] = figure(c[0][1]) if len(c[0]) > 1 else None
                d["64mc"] = figure(c[1][1]) if len(c[1]) > 1 else None
            elif head.startswith("cross pages") and len(c) >= 2:
                d["refused"] = figure(c[1][0]) if c[1] else None
            elif head.startswith("2 clients") and c:
                d["cross1cg"] = figure(c[0][1]) if len(c[0]) > 1 else None
            elif head.startswith("stranded") and c and c[0]:
                parts = c[0][0].split("/")
                if len(parts) == 3:
                    d["stranded"] = "/".join(parts[:2])
                    d["bound"] = int(parts[2])
    return side, order, kernels, replay


# The columns with a figure per kernel: key, header, whether only the designs
# that keep a stock compete for the mark (none keeps and refuses nothing),
# format.  "stranded" (the first kernel's, the same on every kernel) stands
# between the last two.
COLUMNS = [
    ("pages", "hit pages", False, "{:.0f}"),
    ("bytes", "hit bytes", False, "{:.0f}"),
    ("64mc", "64 memcgs", False, "{:.0f}"),
    ("cross1cg", "1 cgroup, cross-CPU ~cyc", False, "~{:.0f}"),
    ("replay", "replays", False, "{:.1f}"),
    ("refused", "refused/1000", True, "{:.0f}"),
]


def cell(side, replay, k, d, key):
    """(value, disagree) of design @d on kernel @k, or None."""
    if key == "replay":
        figs = replay.get(k, {}).get(d)
        if not figs:
            return None
        return (statistics.median(f[0] for f in figs), any(f[1] for f in figs))
    return side.get(k, {}).get(d, {}).get(key)


def lowest(vals):
    """The keys of @vals with the lowest value."""
    return {d for d, v in vals.items() if v == min(vals.values())}


def verdict(text):
    side, order, kernels, replay = parse(text)
    if not kernels or not order:
        raise ValueError("the report has no \"Designs side by side\" table")
    labels = [LABEL.get(k, k) for k in kernels]
    first = side[kernels[0]]
    stock = [d for d in order if first.get(d, {}).get("bound")]
    winners = {}
    for key, _, stock_only, _ in COLUMNS:
        for k in kernels:
            vals = {d: v[0] for d in (stock if stock_only else order)
                    if (v := cell(side, replay, k, d, key)) is not None}
            winners[(k, key)] = lowest(vals) if vals else set()
    least = lowest({d: int(first[d]["stranded"].split("/")[0]) for d in stock}) if stock else set()
    heads = [h for _, h, _, _ in COLUMNS]
    head = ["design"] + heads[:-1] + ["stranded 256 mc", heads[-1]]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for d in order:
        cols = []
        for key, _, _, fmt in COLUMNS:
            parts = []
            for k in kernels:
                v = cell(side, replay, k, d, key)
                parts.append("-" if v is None else fmt.format(v[0]) + ("!" if v[1] else "") +
                             ("*" if d in winners[(k, key)] else ""))
            cols.append(" / ".join(parts))
        st = first.get(d, {}).get("stranded")
        cols.insert(len(cols) - 1, (st + ("*" if d in least else "")) if st else "-")
        out.append("| " + " | ".join(["`%s`" % d] + cols) + " |")
    out.append("")
    prose = []
    prose.append("Instructions per charge+uncharge pair under qemu `-icount` (no cache misses, no "
               "hardware), %s; `*` the lowest of a column and kernel; ~cyc adds the modelled "
               "cache-line transfers; replays: the median over the shipped traces of the "
               "instructions per recorded event; stranded: pages left in the stocks at the "
               "end/peak of a run with 256 memcgs per client (%s); refused: premature refusals "
               "per 1000 charges below a limit (GFP_NOWAIT)."
               % (" / ".join(labels), labels[0]))
    prose.append("`decoupled` is this module's own obj-stock shape (hit inlined, unrolled scan); "
                 "`decoupled-7.3` is upstream's split with the obj stock exactly as Linux 7.3 "
                 "has it: quote that row for what upstream's design costs.")
    for k, label in zip(kernels, labels):
        def name(key):
            w = winners[(k, key)]
            return " and ".join("`%s`" % d for d in order if d in w) if w else "no design"
        prose.append("On %s: the cheapest page hit is %s's, at 64 memcgs per client %s's, frees "
                     "on another CPU in one cgroup %s's, the recorded streams %s's."
                     % (label, name("pages"), name("64mc"), name("cross1cg"), name("replay")))
    for i, para in enumerate(prose):
        if i:
            out.append("")
        out.extend(textwrap.wrap(para, 100, break_on_hyphens=False))
    return out


def report_block(path=REPORT_DOC):
    """The report held by docs/bench-report.md (between its markers), or a
    plain bench.txt."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    b, e = text.find("<!-- report:begin -->"), text.find("<!-- report:end -->")
    if b >= 0 and e > b:
        text = text[b:e]
    return text


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else REPORT_DOC
    try:
        print("\n".join(verdict(report_block(path))))
    except (OSError, ValueError) as e:
        sys.exit("verdict.py: %s" % e)


if __name__ == "__main__":
    main()
