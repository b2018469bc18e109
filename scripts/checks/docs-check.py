#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""docs-check.py (part of `make lint`): the documentation says only what is
true of this tree.  Checks README.md, docs/*.md and CHANGELOG.md and fails
(exit 1, one line per finding: FILE:LINE: what) on

  - a reference outside the repository: a path into another checkout or a
    host's home (/work/, /root/, /home/NAME, a sibling checkout beside the
    tree), or a relative link
    that leaves the tree;
  - a dead relative link, or a #fragment that names no heading of its file;
  - in README.md and docs/ (not CHANGELOG.md, which is history, and not the
    generated blocks between <!-- NAME:begin --> and <!-- NAME:end -->):
    development-history words (a "round", "issue N", worktrees, "this
    session") and tokens that look like commit hashes;
  - in README.md and docs/: a `make TARGET` (in code) that the Makefile does
    not define, and an environment variable (MCS_*, VM_*, SOAK_*, BENCH_*,
    QEMU_*, CHECK_*, or NAME= in code) that no script, selftest or Makefile
    reads and no source defines;
  - a measured figure typed by hand: in README.md's "Results in brief" (if
    it has one), docs/design.md, docs/benchmark.md and
    docs/benchmark-details.md outside their generated blocks, a figure (a
    decimal with two or more integer digits, such as 117.4, or a ratio such
    as 1.24x) that no generated block of the benchmark docs (GEN_DOCS: the
    report of make bench and its summary, the profile of make
    bench-profile) contains: the claim was typed, or the run it came from
    is no longer the one shown;
  - docs/testing.md's table of environment variables: a row no script reads,
    or a variable the scripts read with a default (${NAME:-...} and the
    like, os.environ in Python, NAME ?= in the Makefile) that has no row.
  - a line longer than GEN_WIDTH (120) characters inside a generated block
    of README.md or docs/*.md (<!-- bench:begin --> ... <!-- bench:end -->,
    <!-- report:begin -->, <!-- profile:begin -->), and, with
    --report FILE, in that report (the bench.txt of a run);
  - a table row (a line outside a code block that starts with |) longer
    than TABLE_WIDTH (120) characters in README.md or docs/*.md: a long
    cell is rewritten shorter, or its explanation goes below the table.

  - a claim that the numbers stop supporting: a claim of README.md or
    docs/*.md (docs/benchmark.md's "Results in brief") carries a tag
    <!-- claim: NAME --> and CLAIMS below checks NAME against the generated
    report block of docs/bench-report.md (the whole bench.txt of the run
    it names; docs/benchmark.md shows a summary of it); a failed check, a
    table the check cannot find, a tag with no check or a check with no tag
    fails;
  - the verdict blocks of README.md and docs/benchmark.md, unless they are
    what scripts/bench/verdict.py makes of the report; docs/design.md's
    footprint table (make footprint), unless it has 1, 2 and 4 nodes, each
    reading's sums follow from its rows and the rules the text states hold;
    docs/benchmark-details.md's stock-part table (make stock-part), unless
    each ratio is its model over its stock part and every ratio more than
    15 % from 1 has an item "- `KERNEL` ..." below the table naming why;
  - a tracked file (git ls-files) without an SPDX-License-Identifier line,
    other than the documentation (*.md), LICENSE, .gitignore and the files
    of SPDX_EXEMPT, which LICENSE names (a file compressed with xz: in its
    uncompressed first bytes); an exempt file that has the line
    now fails too, so that the list cannot go stale.

docs-check.py --report FILE: the same, and FILE's lines checked too.

PENDING below lists what the documentation names before the rig has it
(targets and documents that are being added elsewhere): reported as
pending, not failed, while missing; once they exist the check fails until
they are dropped from PENDING, so that the list cannot go stale.
"""
import glob
import lzma
import os
import re
import subprocess
import sys

TREE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Named by the docs before the tree has them; see the docstring.
PENDING = {
    "targets": set(),
    "variables": set(),
    "links": set(),
}

OUTSIDE_RE = re.compile(r"(?<![\w.~])/(?:work|root)/|(?<![\w.~])/home/\w|\.\./shared\b")
HISTORY_RES = [
    (re.compile(r"(?<!way )\brounds?\b(?![- ](?:robin|trip|up\b|down\b|to\b))", re.I),
     "development round"),
    (re.compile(r"\bissues? #?\d+", re.I), "issue number"),
    (re.compile(r"\bwork[- ]?trees?\b", re.I), "worktree"),
    (re.compile(r"\bthis (?:session|round)\b", re.I), "this session"),
]
HASH_RE = re.compile(r"(?<![\w/.#-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}(?![\w/.-])")
ENV_RE = re.compile(r"\b(?:MCS|VM|SOAK|BENCH|QEMU|CHECK)_[A-Z0-9_]*[A-Z0-9]\b")
ASSIGN_RE = re.compile(r"(?<![\w$-])([A-Z][A-Z0-9_]+)=")
LINK_RE = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
REFLINK_RE = re.compile(r"^\s*\[[^\]]+\]:\s*(\S+)")
CODESPAN_RE = re.compile(r"(`+)(.+?)\1")
MAKE_RE = re.compile(r"(?:^|[\s;&|(])make((?:[ \t]+[^\s;&|)]+)*)")
GEN_BEGIN_RE = re.compile(r"<!--\s*([\w-]+):begin\s*-->")
FIGURE_RE = re.compile(r"(?<![\w.])(?:\d{2,}\.\d+|\d+\.\d+x)(?![\w.])")
GEN_WIDTH = 120  # the longest line of a generated block and of bench.txt
TABLE_WIDTH = 120  # the longest table row of a document
# The documents whose generated blocks hold the benchmark's figures; the
# report block of the first is what the claims are checked against.
REPORT_DOC = os.path.join("docs", "bench-report.md")
PROFILE_DOC = os.path.join("docs", "benchmark-details.md")
GEN_DOCS = (REPORT_DOC, os.path.join("docs", "benchmark.md"),
            os.path.join("docs", "benchmark-details.md"))

# Tracked files without an SPDX line, and why (LICENSE says the same).
SPDX_EXEMPT = {}


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def rel(path):
    return os.path.relpath(path, TREE)


def slug(heading):
    """GitHub's anchor of a heading."""
    s = re.sub(r"[`*]", "", heading.strip().lower())
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def lines_of(text):
    """(lineno, line, in_code_block, in_generated_block) for each line."""
    out, code, gen = [], False, None
    for n, line in enumerate(text.split("\n"), 1):
        m = GEN_BEGIN_RE.search(line)
        if gen is None and m:
            gen = m.group(1)
        elif gen is not None and re.search(r"<!--\s*%s:end\s*-->" % re.escape(gen), line):
            gen = None
            out.append((n, line, code, True))
            continue
        if line.lstrip().startswith(("```", "~~~")):
            code = not code
            out.append((n, line, True, gen is not None))
            continue
        out.append((n, line, code, gen is not None))
    return out


def code_texts(line, in_code):
    """The code of a line: the whole line in a fenced block, else its spans."""
    if in_code:
        return [line]
    return [m.group(2) for m in CODESPAN_RE.finditer(line)]


def makefile_targets():
    targets = set()
    for line in read(os.path.join(TREE, "Makefile")).split("\n"):
        if not line or line[0] in "\t #":
            continue
        m = re.match(r"^([^:=#]+?)\s*::?(?!=)(.*)$", line)
        if not m:
            continue
        names = m.group(1).split()
        if names == [".PHONY"]:
            targets.update(m.group(2).split())
        else:
            targets.update(n for n in names if not n.startswith("$"))
    return targets


def makefile_variables():
    text = read(os.path.join(TREE, "Makefile"))
    names = set(re.findall(r"^([A-Za-z_][A-Za-z0-9_]*)\s*(?:\?|:|\+)?=", text, re.M))
    names |= set(re.findall(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)", text))
    env = set(re.findall(r"^([A-Z_][A-Z0-9_]*)\s*\?=", text, re.M))
    return names, env


def script_reads():
    """(env, broad): variables read from the environment with a default
    (the table's duty), and every variable a script, selftest or Makefile
    reads (selftests/run_tests.sh counts as a script)."""
    env, broad = set(), set()
    for path in glob.glob(os.path.join(TREE, "scripts", "*", "*.sh")) + glob.glob(os.path.join(TREE, "selftests", "*.sh")):
        text = read(path)
        env |= set(re.findall(r"\$\{([A-Z][A-Z0-9_]+):?[-+=?]", text))
        broad |= set(re.findall(r"\$\{?([A-Z][A-Z0-9_]+)", text))
    for path in glob.glob(os.path.join(TREE, "scripts", "*", "*.py")):
        text = read(path)
        found = set(re.findall(r"os\.(?:environ(?:\.get)?\(?\[?|getenv\()\s*[\"']([A-Z][A-Z0-9_]+)", text))
        env |= found
        broad |= found
    for path in glob.glob(os.path.join(TREE, "selftests", "*.c")):
        broad |= set(re.findall(r"getenv\(\"([A-Z][A-Z0-9_]+)\"\)", read(path)))
    mk_names, mk_env = makefile_variables()
    env |= mk_env
    broad |= mk_names
    # the Makefiles of selftests/ and examples/: what they read is named
    for path in ("selftests/Makefile", "examples/Makefile", "examples/Kbuild"):
        if os.path.isfile(os.path.join(TREE, path)):
            text = read(os.path.join(TREE, path))
            broad |= set(re.findall(r"^([A-Za-z_][A-Za-z0-9_]*)\s*(?:\?|:|\+)?=", text, re.M))
            broad |= set(re.findall(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)", text))
    return env, broad


def source_words():
    words = set()
    for pat in ("*.c", "*.h", "objects/*.[ch]", "stocks/*.[ch]", "entry/*.[ch]", "harness/*.[ch]", "kunit/*.[ch]", "selftests/*.[ch]", "examples/*.c", "Kbuild"):
        for path in glob.glob(os.path.join(TREE, pat)):
            words |= set(re.findall(r"\b[A-Z][A-Z0-9_]+\b", read(path)))
    return words


# ---- the "Results in brief" claims against the generated bench block ----

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
import designs  # noqa: E402  (the modes of the binding table)
import verdict  # noqa: E402  (the verdict table of README.md and docs/benchmark.md)
import importlib  # noqa: E402
footprint = importlib.import_module("footprint-table")  # the footprint table of docs/design.md
stock_part = importlib.import_module("stock-part")  # the page stock-part table of benchmark-details.md
replay_kernel = importlib.import_module("replay-kernel")  # the replay against the kernel, idem

# every mode, and "objcg-atomic", the name of mode "none"'s bytes
MODE_WORDS = set(designs.names(designs.load())) | {"objcg-atomic"}
CLAIM_TAG_RE = re.compile(r"<!--\s*claim:\s*([\w-]+)\s*-->")


class Unsupported(Exception):
    """A number a claim needs is not in the block, or the boots disagree."""


def num(tok):
    """A table cell's figure; a/b! (boots more than 2 % apart) supports no
    claim."""
    if tok is None:
        raise Unsupported("no such cell")
    if "!" in tok or "/" in tok:
        raise Unsupported("the boots disagree (%s)" % tok)
    try:
        return float(tok.strip("()x~r"))
    except ValueError:
        raise Unsupported("not a figure: %s" % tok)


class BenchBlock:
    """The tables of the generated bench block: sections ("== title =="),
    in each the tables ("label | column | ..." headers), their rows."""

    def __init__(self, lines):
        self.cells = {}
        self.text = "\n".join(lines)
        section, header = "", None
        for line in lines:
            if line.startswith("== "):
                section, header = line, None
                continue
            if "|" not in line:
                continue
            parts = [p.strip() for p in line.split("|")]
            label = " ".join(parts[0].split())
            rest = parts[1:]
            if not label:
                continue
            toks = [t for p in rest for t in p.split()]
            if toks and not any(re.match(r"^[\d~(]", t) for t in toks):
                header = (label, [p.split() for p in rest])
                continue
            if header is None:
                continue
            hlabel, hcells = header
            for i, cell in enumerate(rest):
                if i >= len(hcells):
                    break
                vals = cell.split()
                modes = [w for w in hcells[i] if w in MODE_WORDS]
                if len(modes) > 1 and len(modes) == len(vals):
                    for m, v in zip(modes, vals):
                        self.cells.setdefault((section, hlabel, label, m), [v])
                else:
                    self.cells.setdefault((section, hlabel, label, " ".join(hcells[i]) or str(i)), vals)

    def cell(self, section, table, row, column):
        """Every token of the cell at row, column of the first table headed
        table in the first section whose title contains section."""
        for (sec, hl, rl, col), vals in self.cells.items():
            if section in sec and hl == table and rl == row and col == column:
                return vals
        raise Unsupported("no cell %s / %s / %s / %s" % (section, table, row, column))

    def token(self, section, table, row, column, index=0):
        """One token of that cell, as printed (a/b! where the boots disagree)."""
        vals = self.cell(section, table, row, column)
        if index >= len(vals):
            raise Unsupported("no cell %s / %s / %s / %s" % (section, table, row, column))
        return vals[index]

    def get(self, section, table, row, column, index=0):
        """The figure of that token."""
        return num(self.token(section, table, row, column, index))

    def has(self, section):
        return any(section in sec for sec, _, _, _ in self.cells)


def icount(b, kernel, workload, mode):
    return b.get("Instructions per pair, %s (" % kernel, "workload", workload, mode)


def per_memcgs(b, kernel, memcgs, col):
    return b.get("Instructions per pair, %s (" % kernel, "memcgs", str(memcgs), col)


def irq_misses(b, where, load, wl, mode):
    """misses/1000 of an interrupt-load row, one figure per boot: icount
    (where = kernel, two boots) or the wall clock (where = "wall KERNEL")."""
    if where.startswith("wall "):
        row = "%s %s %s %s" % (where[5:], load, wl, mode)
        return [b.get("== Wall clock", "kernel load wl mode", row,
                      "rate/s misses/1000 trylock fails", 1)]
    return boots(b.token("Interrupt load, %s (icount" % where, "load wl mode",
                         "%s %s %s" % (load, wl, mode),
                         "insns/pair irq/s misses/1000 trylock fails", 2))


def claim_generic_hit(b):
    floor = float(re.search(r"deb-amd64 \(qemu -icount.*?\n.*?floor \([^)]*\): ([\d.]+)",
                            b.text, re.S).group(1))
    ratio = icount(b, "deb-amd64", "pages", "decoupled") / floor
    if not 2.5 <= ratio <= 3.5:
        return "decoupled pages is %.2fx the floor, not about 3x" % ratio
    for wl in ("pages", "bytes"):
        d, c = icount(b, "deb-amd64", wl, "decoupled"), icount(b, "deb-amd64", wl, "coupled")
        if not d < c:
            return "%s: decoupled %.1f is not below coupled %.1f" % (wl, d, c)


def claim_rt_hit(b):
    k = "deb-rt-amd64"
    d, n = icount(b, k, "pages", "decoupled"), icount(b, k, "pages", "none")
    if not d > n:
        return "decoupled pages %.1f is not above none %.1f" % (d, n)
    o = icount(b, k, "pages", "decoupled-owner")
    if not 0.55 <= o / n <= 0.75:
        return "decoupled-owner pages %.1f is not about two thirds of none %.1f" % (o, n)
    ob, a = icount(b, k, "bytes", "decoupled-owner"), icount(b, k, "bytes", "objcg-atomic")
    if not ob < a / 3:
        return "decoupled-owner bytes %.1f is not below a third of objcg-atomic %.1f" % (ob, a)


def claim_percpu_flat(b):
    for k in ("deb-amd64", "deb-rt-amd64"):
        v = [per_memcgs(b, k, m, "percpu-counter pages") for m in (1, 4, 7, 8, 16, 64, 256)]
        if max(v) > 1.02 * min(v):
            return "%s: percpu-counter pages moves from %.1f to %.1f over 1..256 memcgs" % (
                k, min(v), max(v))


def claim_percpu_stranded(b):
    """pages held at the end / the bound, 1 client with 256 memcgs"""
    sec = "Instructions per pair, deb-amd64 ("
    held = {}
    for m in ("percpu-counter", "decoupled"):
        vals = [v for (s, hl, rl, col), v in b.cells.items()
                if sec in s and hl == "pages cl mc" and rl == "1 256" and col == m]
        if not vals:
            raise Unsupported("no stranded-charge cell for %s, 1 client, 256 memcgs" % m)
        held[m] = float(vals[0][0].split("/")[0])
    if not held["percpu-counter"] >= 10 * max(held["decoupled"], 1):
        return "percpu-counter holds %d pages at 256 memcgs, decoupled %d: not far more" % (
            held["percpu-counter"], held["decoupled"])


def claim_many_memcgs(b):
    for m in (64, 256):
        d = per_memcgs(b, "deb-amd64", m, "decoupled pages")
        n = per_memcgs(b, "deb-amd64", m, "none pages")
        c = per_memcgs(b, "deb-amd64", m, "coupled pages")
        if not (n < d <= 2 * n and d < c):
            return "%d memcgs: decoupled %.1f, none %.1f, coupled %.1f" % (m, d, n, c)
        # "about three times" no stock's pair on PREEMPT_RT
        d = per_memcgs(b, "deb-rt-amd64", m, "decoupled pages")
        n = per_memcgs(b, "deb-rt-amd64", m, "none pages")
        if not 2.5 <= d / n <= 3.5:
            return "RT, %d memcgs: decoupled %.1f is not about three times none's %.1f" % (m, d, n)


def claim_rest_of_page(b):
    for k in ("deb-amd64", "deb-rt-amd64"):
        sec = "Instructions per pair, %s (" % k
        for wl in ("bytes-256", "bytes-1024", "bytes-3000"):
            dm = b.get(sec, "workload", wl, "decoupled insns moves", 1)
            cm = b.get(sec, "workload", wl, "coupled insns moves", 1)
            am = b.get(sec, "workload", wl, "objcg-atomic insns moves", 1)
            if not (dm <= 0.05 and cm >= 1.9 and am >= 0.9):
                return "%s %s: page moves per pair decoupled %.2f, coupled %.2f, objcg-atomic %.2f" % (
                    k, wl, dm, cm, am)


def claim_nmi(b):
    for wl in ("pages", "bytes"):
        d = irq_misses(b, "deb-amd64", "nmi", wl, "decoupled")
        c = irq_misses(b, "deb-amd64", "nmi", wl, "coupled")
        if not (min(c) == 1000.0 and max(d) < 1000.0):
            return "nmi %s: decoupled %s, coupled %s misses per 1000" % (wl, d, c)


def irq_tables(b):
    where = ["deb-amd64"]
    where += ["wall " + k for k in ("deb-amd64", "uml")
              if re.search(r"^  %s +hardirq +pages +decoupled " % re.escape(k), b.text, re.M)]
    return where


def claim_hardirq_bytes(b):
    for w in irq_tables(b):
        d = irq_misses(b, w, "hardirq", "bytes", "decoupled")
        c = irq_misses(b, w, "hardirq", "bytes", "coupled")
        if not min(d) > max(c):
            return "%s hardirq bytes: decoupled %s is not above coupled %s" % (w, d, c)


def claim_hardirq_pages(b):
    signs = {}
    for w in irq_tables(b):
        d = irq_misses(b, w, "hardirq", "pages", "decoupled")
        c = irq_misses(b, w, "hardirq", "pages", "coupled")
        # boot by boot where the table has two; one boot against the other
        # table's first where it has one
        for i, (x, y) in enumerate(zip(d, c)):
            signs["%s boot %d" % (w, i + 1)] = (x > y) - (x < y)
    if len(set(signs.values())) < 2:
        return "hardirq pages: every table and boot agrees (decoupled minus coupled, sign %s): %s" % (
            list(signs.values())[0], ", ".join(signs))


def claim_footprint(b):
    m = re.search(r"^per_memcg kmalloc=(\d+) kmem_cache=(\d+) saved=(\d+)", b.text, re.M)
    if not m:
        raise Unsupported("no per_memcg footprint line")
    if not int(m.group(3)) > 0:
        return "the kmem_caches save %s bytes per memcg" % m.group(3)


def side_cell(b, kernel, design, column):
    """The tokens of a cell of the designs table (a/b! gives every boot)."""
    return b.cell("Designs side by side, %s (" % kernel, "design", design, column)


def shown(b, modes, kernel="deb-amd64"):
    """The modes of @modes that the report's designs table has a row of: the
    claims speak of the report's designs (a mode added since the report was
    made is in the next one)."""
    rows = {rl for (sec, hl, rl, col) in b.cells
            if "Designs side by side, %s (" % kernel in sec and hl == "design"}
    if "decoupled" not in rows:
        raise Unsupported("no row of decoupled in Designs side by side, %s" % kernel)
    return tuple(m for m in modes if m in rows)


def boots(tok):
    """The figures of one cell, one per boot where they differ."""
    return [float(v) for v in tok.rstrip("!").split("/")]


# The claims' designs, from the metadata (designs.py): the side-by-side
# modes outside the upstream series' band; those with a page stock; those
# with a byte stock of their own (a cycle model for bytes other than the
# objcg's atomic leftover of "none").
_MODES = designs.load()
_BY_NAME = {m["mode"]: m for m in _MODES}
MAIN = tuple(m for m in designs.side(_MODES) if _BY_NAME[m]["group"] != "series")
SIDE_STOCKS = tuple(m for m in MAIN if _BY_NAME[m]["memcgs_per_cpu"])
BYTE_STOCKS = tuple(m for m in MAIN if "none" in _BY_NAME and
                    designs.uses(_BY_NAME[m], "bytes") != designs.uses(_BY_NAME["none"], "bytes"))


def claim_cross(b):
    k = "deb-amd64"
    for i, wl in enumerate(("pages", "bytes")):
        cross = boots(side_cell(b, k, "decoupled", "cross pages cross bytes")[i])
        local = [icount(b, k, wl, "decoupled")]
        if not 0.9 <= max(cross) / min(local) <= 1.1:
            return "decoupled cross %s %s is not within a tenth of its local pair %s" % (wl, cross, local)
        # bytes: below the other per-CPU byte stocks (none and percpu-counter
        # keep bytes in the objcg's atomic leftover, which the claim leaves out)
        others = MAIN if wl == "pages" else BYTE_STOCKS
        for m in (m for m in shown(b, others, k) if m != "decoupled"):
            other = boots(side_cell(b, k, m, "cross pages cross bytes")[i])
            if not max(cross) < min(other):
                return "cross %s: decoupled %s is not below %s %s" % (wl, cross, m, other)


REFUSED = "refused/1000 nowait kernel b32 nowait b16 nowait"


def claim_premature(b):
    for k in ("deb-amd64", "deb-rt-amd64"):
        none = [boots(v) for v in side_cell(b, k, "none", REFUSED)[:2]]
        if any(x != 0 for v in none for x in v):
            return "%s: mode none refused %s per 1000" % (k, none)
        for m in shown(b, SIDE_STOCKS, k):
            nowait, kernel = (boots(v) for v in side_cell(b, k, m, REFUSED)[:2])
            if not (min(nowait) > 0 and min(kernel) > 0):
                return "%s %s: refused per 1000 nowait %s, kernel %s" % (k, m, nowait, kernel)


def claim_peak(b):
    for k in ("deb-amd64", "deb-rt-amd64"):
        for m in shown(b, designs.side(_MODES), k):
            end, peak, bound = (int(x) for x in
                                side_cell(b, k, m, "stranded end/peak/bound")[0].split("/"))
            # a peak sample may count the one page in flight (the legend)
            if not (end <= bound and peak <= bound + 1):
                return "%s %s: %d pages at the end, %d at the peak, bound %d" % (k, m, end, peak,
                                                                               bound)


def replay_rows(b, kernel, mode):
    """{trace: (insns/event, hit %, stranded end, drains, insns/drain)} of
    @mode in the replay tables of @kernel (one table per trace and kernel:
    read from the text, the cells of one section keep the first table only)."""
    out, trace, k, inside = {}, None, None, False
    for line in b.text.split("\n"):
        if line.startswith("== "):
            inside = line.startswith("== Replays of recorded charge streams")
            continue
        if not inside:
            continue
        m = re.match(r"^  (\S+\.mcstrace): workload", line)
        if m:
            trace = m.group(1)
            continue
        m = re.match(r"^  (\S+), \d+ boots?:", line)
        if m:
            k = m.group(1)
            continue
        cells = [c.strip() for c in line.split("|")]
        if k == kernel and trace and len(cells) > 5 and cells[0] == mode:
            try:
                out[trace] = (num(cells[1]), num(cells[2].rstrip(" %")),
                              int(cells[3].split("/")[0]), int(cells[4]), num(cells[5]))
            except ValueError:
                raise Unsupported("replay row of %s, %s, %s: %r" % (mode, kernel, trace, line))
    if not out:
        raise Unsupported("no replay row of %s on %s" % (mode, kernel))
    return out


def claim_trim_replays(b):
    """trim against its twin but for the trim (decoupled-7.3), 6.12 generic:
    more pages left in the stocks in every trace, at most a sixth more
    instructions per event, and cheaper drains in most traces."""
    trim = replay_rows(b, "deb-amd64", "trim")
    twin = replay_rows(b, "deb-amd64", "decoupled-7.3")
    if set(trim) != set(twin):
        return "traces of trim %s, of decoupled-7.3 %s" % (sorted(trim), sorted(twin))
    cheaper = 0
    for t in sorted(trim):
        a, z = twin[t], trim[t]
        if not z[2] > a[2]:
            return "%s: trim leaves %d pages, decoupled-7.3 %d" % (t, z[2], a[2])
        if not z[0] <= a[0] * 7 / 6:
            return "%s: trim %.1f instructions per event, decoupled-7.3 %.1f" % (t, z[0], a[0])
        cheaper += z[4] < a[4]
    if not cheaper > len(trim) / 2:
        return "trim's drains are cheaper in %d of %d traces only" % (cheaper, len(trim))


def claim_replay_kernel(b):
    """What docs/benchmark.md says of the replay against the kernel, from
    the table of docs/benchmark-details.md (not the bench block @b): on
    6.12 the byte-heavy streams (stress-fork, stress-switch) within 15 % and
    the page-heavy ones (kbuild, loopback) below the kernel; on 7.x the
    byte-heavy ones above it; hit rates within 3 points everywhere but
    many-cgroups on 7.x, where the replay's is at least 20 points below;
    and the replays' A/B above the kernel's in at least 4 of 5 workloads."""
    lines = read(os.path.join(TREE, PROFILE_DOC)).split("\n")
    text = "\n".join(lines[lines.index("<!-- replay-kernel:begin -->"):
                           lines.index("<!-- replay-kernel:end -->")])
    rows, ab = replay_kernel.table_rows(text), replay_kernel.ab_rows(text)

    def row(w, ser):
        for (rw, rs), r in rows.items():
            if rw == w and rs.startswith(ser) and not rs.endswith("-rt"):
                return r
        raise Unsupported("no row of %s on %s" % (w, ser))
    for w in ("stress-fork", "stress-switch"):
        r = row(w, "6.")
        if abs(r["ratio"] - 1) > 0.15:
            return "%s on 6.12: ratio %.2f" % (w, r["ratio"])
        if not row(w, "7.")["ratio"] > 1:
            return "%s on 7.x: ratio %.2f, not above 1" % (w, row(w, "7.")["ratio"])
    for w in ("kbuild", "loopback"):
        if not row(w, "6.")["ratio"] < 1:
            return "%s on 6.12: ratio %.2f, not below 1" % (w, row(w, "6.")["ratio"])
    for (w, ser), r in rows.items():
        if ser.endswith("-rt"):
            continue    # the paragraph speaks of the generic kernels
        d = r["kernel_hit"] - r["replay_hit"]
        if (w, ser[:1]) == ("many-cgroups", "7"):
            if d < 20:
                return "many-cgroups on %s: hit rates %.1f/%.1f" % (ser, r["replay_hit"], r["kernel_hit"])
        elif abs(d) > 3:
            return "%s on %s: hit rates %.1f/%.1f" % (w, ser, r["replay_hit"], r["kernel_hit"])
    generic = [v for (w, ser), v in ab.items() if not ser.endswith("-rt")]
    above = sum(1 for k, own, _ in generic if own > k)
    if len(generic) != 5 or above < 4:
        return "the replays' A/B is above the kernel's in %d of %d workloads" % (above, len(generic))


# name (the tag in README.md or docs/*.md) -> check: None when the block supports the
# claim, else what contradicts it
CLAIMS = {
    "generic-hit": claim_generic_hit,
    "rt-hit": claim_rt_hit,
    "percpu-flat": claim_percpu_flat,
    "percpu-stranded": claim_percpu_stranded,
    "many-memcgs": claim_many_memcgs,
    "rest-of-page": claim_rest_of_page,
    "nmi": claim_nmi,
    "hardirq-bytes": claim_hardirq_bytes,
    "hardirq-pages": claim_hardirq_pages,
    "footprint": claim_footprint,
    "cross": claim_cross,
    "premature": claim_premature,
    "peak": claim_peak,
    "trim-replays": claim_trim_replays,
    "replay-kernel": claim_replay_kernel,
}


class Checker:
    def __init__(self):
        self.errors = []
        self.pending = set()
        self.targets = makefile_targets()
        self.env_reads, self.reads = script_reads()
        self.words = source_words()
        self.anchors = {}

    def error(self, path, n, msg):
        self.errors.append("%s:%d: %s" % (rel(path), n, msg))

    def anchors_of(self, path):
        if path not in self.anchors:
            found = set()
            if path.endswith(".md") and os.path.isfile(path):
                for _, line, code, _ in lines_of(read(path)):
                    m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
                    if m and not code:
                        found.add(slug(m.group(1)))
            self.anchors[path] = found
        return self.anchors[path]

    def check_link(self, path, n, target):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):	# http:, mailto:
            return
        file_part, _, frag = target.partition("#")
        dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
        if os.path.relpath(dest, TREE).startswith(".."):
            self.error(path, n, "link leaves the repository: %s" % target)
            return
        key = os.path.relpath(dest, TREE)
        if key in PENDING["links"]:
            if os.path.exists(dest):
                self.error(path, n, "%s exists now: drop it from PENDING in scripts/checks/docs-check.py" % key)
            else:
                self.pending.add("document %s" % key)
            return
        if not os.path.exists(dest):
            self.error(path, n, "dead link: %s" % target)
        elif frag and dest.endswith(".md") and frag not in self.anchors_of(dest):
            self.error(path, n, "no heading for #%s in %s" % (frag, key))

    def check_target(self, path, n, target):
        if target in PENDING["targets"]:
            if target in self.targets:
                self.error(path, n, "make %s exists now: drop it from PENDING in scripts/checks/docs-check.py" % target)
            else:
                self.pending.add("make %s" % target)
        elif target not in self.targets:
            self.error(path, n, "make %s: no such target in the Makefile" % target)

    def check_variable(self, path, n, name):
        if name in PENDING["variables"]:
            if name in self.reads:
                self.error(path, n, "%s is read now: drop it from PENDING in scripts/checks/docs-check.py" % name)
            else:
                self.pending.add("variable %s" % name)
        elif name not in self.reads and name not in self.words:
            self.error(path, n, "%s: no script reads this variable and no source defines it" % name)

    def make_targets(self, code):
        for m in MAKE_RE.finditer(code):
            toks = m.group(1).split()
            if "-C" in toks or "-f" in toks or any(t.startswith(("-C", "-f", "--directory", "--file")) for t in toks):
                continue	# another Makefile (make -C $KDIR M=...)
            skip = False
            for tok in toks:
                if skip:
                    skip = False
                elif tok in ("-I", "-o", "-W"):
                    skip = True
                elif tok.startswith("-") or "=" in tok:
                    continue
                elif re.match(r"^[a-z][a-z0-9_.-]*$", tok):
                    yield tok
                else:
                    break

    def check_figures(self):
        """Figures in prose must come from a generated block of GEN_DOCS."""
        generated = "\n".join(line for doc in GEN_DOCS if os.path.isfile(os.path.join(TREE, doc))
                              for _, line, _, gen in lines_of(read(os.path.join(TREE, doc))) if gen)
        if not generated:
            return
        for name, section in (("README.md", "## Results in brief"),
                              ("docs/design.md", None), ("docs/benchmark.md", None),
                              ("docs/benchmark-details.md", None)):
            path = os.path.join(TREE, name)
            if not os.path.isfile(path):
                continue
            inside = section is None
            for n, line, code, gen in lines_of(read(path)):
                if section is not None and line.startswith("## "):
                    inside = line.strip() == section
                if not inside or gen:
                    continue
                for m in FIGURE_RE.finditer(line):
                    if m.group(0) not in generated:
                        self.error(path, n, "figure %s is in no generated block of "
                                   "docs/benchmark.md (typed by hand, or from another run)"
                                   % m.group(0))

    def check_file(self, path):
        text = read(path)
        history = os.path.basename(path) != "CHANGELOG.md"
        for n, line, code, gen in lines_of(text):
            if OUTSIDE_RE.search(line):
                self.error(path, n, "reference outside the repository: %s" % OUTSIDE_RE.search(line).group(0))
            for m in LINK_RE.finditer(line if not code else ""):
                self.check_link(path, n, m.group(1))
            m = REFLINK_RE.match(line)
            if m and not code:
                self.check_link(path, n, m.group(1))
            if not history or gen:
                continue
            for rx, what in HISTORY_RES:
                m = rx.search(line)
                if m:
                    self.error(path, n, "development history (%s): '%s'" % (what, m.group(0)))
            for m in HASH_RE.finditer(line):
                self.error(path, n, "looks like a commit hash: %s" % m.group(0))
            names = set(ENV_RE.findall(line))
            for c in code_texts(line, code):
                for t in self.make_targets(c):
                    self.check_target(path, n, t)
                names |= set(ASSIGN_RE.findall(c))
            for name in sorted(names):
                self.check_variable(path, n, name)

    def check_widths(self, files, report=None):
        """Generated blocks of the documents, and the report if given, in
        lines of at most GEN_WIDTH characters; table rows of at most
        TABLE_WIDTH."""
        for path in files:
            if not os.path.isfile(path) or not path.endswith(".md"):
                continue
            for n, line, code, gen in lines_of(read(path)):
                if gen and len(line) > GEN_WIDTH:
                    self.error(path, n, "line of %d characters in a generated block (at most %d)"
                               % (len(line), GEN_WIDTH))
                elif not code and line.startswith("|") and len(line) > TABLE_WIDTH:
                    self.error(path, n, "table row of %d characters (at most %d): shorten its "
                               "cells or explain them below the table" % (len(line), TABLE_WIDTH))
        if report is None:
            return
        if not os.path.isfile(report):
            self.errors.append("%s:0: no such report" % report)
            return
        for n, line in enumerate(read(report).split("\n"), 1):
            if len(line) > GEN_WIDTH:
                self.errors.append("%s:%d: line of %d characters (at most %d)"
                                   % (report, n, len(line), GEN_WIDTH))

    def check_claims(self, files):
        """Each tagged claim of the documents against the generated report
        block of docs/bench-report.md."""
        report = os.path.join(TREE, REPORT_DOC)
        if not os.path.isfile(report):
            self.error(report, 0, "missing: the claims of the docs are checked against it")
            return
        block = [line for _, line, _, gen in lines_of(read(report)) if gen]
        b = BenchBlock(block)
        tagged = {}
        for path in files:
            if not os.path.isfile(path):
                continue
            for n, line, code, _ in lines_of(read(path)):
                for m in CLAIM_TAG_RE.finditer(line):
                    tagged.setdefault(m.group(1), (path, n))
        for name, (path, n) in sorted(tagged.items(), key=lambda x: x[1]):
            check = CLAIMS.get(name)
            if check is None:
                self.error(path, n, "claim %s: no check in CLAIMS of scripts/checks/docs-check.py" % name)
                continue
            try:
                why = check(b)
            except (Unsupported, AttributeError, KeyError, IndexError, ValueError) as e:
                why = "cannot be checked: %s" % (e or type(e).__name__)
            if why:
                self.error(path, n, "claim %s is not supported by the report block of "
                           "%s: %s" % (name, REPORT_DOC, why))
        for name in sorted(set(CLAIMS) - set(tagged)):
            self.error(os.path.join(TREE, "README.md"), 1, "claim %s of CLAIMS in "
                       "scripts/checks/docs-check.py: no <!-- claim: %s --> tag in README.md or "
                       "docs/*.md" % (name, name))

    def check_verdict(self):
        """The verdict blocks of README.md and docs/benchmark.md are what
        scripts/bench/verdict.py makes of docs/bench-report.md's report."""
        report = os.path.join(TREE, REPORT_DOC)
        try:
            want = verdict.verdict(verdict.report_block(report))
        except (OSError, ValueError) as e:
            self.error(report, 0, "no verdict can be made of it: %s" % e)
            return
        for path in (os.path.join(TREE, "README.md"), os.path.join(TREE, "docs", "benchmark.md")):
            lines = read(path).split("\n")
            try:
                b = lines.index("<!-- verdict:begin -->")
                e = lines.index("<!-- verdict:end -->", b)
            except ValueError:
                self.error(path, 1, "no <!-- verdict:begin --> ... <!-- verdict:end --> block")
                continue
            have = lines[b + 1:e]
            for i, (h, w) in enumerate(zip(have + [""] * len(want), want + [""] * len(have))):
                if h != w:
                    self.error(path, b + 2 + i, "the verdict differs from what %s says: %r, the "
                               "report gives %r (scripts/bench/update-bench-docs.py --verdict)"
                               % (REPORT_DOC, h, w))
                    break
            if b > 60:
                self.error(path, b + 1, "the verdict starts below the first screen (line 60)")

    def block(self, path, tag):
        """(lines of @path, index of <!-- TAG:begin -->, of <!-- TAG:end -->),
        or None with an error when the file has no such block."""
        lines = read(path).split("\n")
        try:
            b = lines.index("<!-- %s:begin -->" % tag)
            return lines, b, lines.index("<!-- %s:end -->" % tag, b)
        except ValueError:
            self.error(path, 1, "no <!-- %s:begin --> ... <!-- %s:end --> block" % (tag, tag))
            return None

    def check_footprint(self):
        """docs/design.md's footprint table (`make footprint`) has a reading
        for 1, 2 and 4 nodes, each whose sums follow from its rows, and the
        rules the text states hold in it: the saving grows with the node
        count, and the memcg struct grows by one pointer per node."""
        path = os.path.join(TREE, "docs", "design.md")
        found = self.block(path, "footprint")
        if not found:
            return
        lines, b, e = found
        rows = footprint.table_rows("\n".join(lines[b + 1:e]))
        nodes = [r["nodes"] for r in rows]
        if not {1, 2, 4} <= set(nodes):
            self.error(path, b + 1, "the footprint table has node counts %s, not 1, 2 and 4 "
                       "(make footprint; update-bench-docs.py --footprint)" % nodes)
            return
        rows.sort(key=lambda r: r["nodes"])
        for r in rows:
            why = footprint.check(r)
            if why:
                self.error(path, b + 1, "footprint, %d node(s): %s" % (r["nodes"], why))
        for a, z in zip(rows, rows[1:]):
            if z["per_memcg"][2] <= a["per_memcg"][2]:
                self.error(path, b + 1, "footprint: saved %d on %d nodes is not above %d on %d, "
                           "but the text says the saving grows with the nodes" % (
                               z["per_memcg"][2], z["nodes"], a["per_memcg"][2], a["nodes"]))
            grow = z["mcs_memcg"][0] - a["mcs_memcg"][0]
            if grow != 8 * (z["nodes"] - a["nodes"]):
                self.error(path, b + 1, "footprint: the memcg struct grows by %d bytes from %d to "
                           "%d nodes, not one pointer per node" % (grow, a["nodes"], z["nodes"]))

    def details_block(self, tag):
        """docs/benchmark-details.md and its block TAG (as block())."""
        path = os.path.join(TREE, PROFILE_DOC)
        return path, self.block(path, tag)

    def check_stock_part(self):
        """docs/benchmark-details.md's stock-part table (`make stock-part`):
        each ratio is its model over its stock part, and each kernel whose
        ratio is more than 15 % from 1 has its differences named in a list
        item "- `KERNEL`: ..." of the paragraphs after the table."""
        path, found = self.details_block("stock-part")
        if not found:
            return
        lines, b, e = found
        rows = stock_part.table_rows("\n".join(lines[b + 1:e]))
        if not rows:
            self.error(path, b + 1, "the stock-part table has no row (make stock-part; "
                       "update-bench-docs.py --stock-part)")
        after = "\n".join(lines[e + 1:e + 80])
        for kernel, stock, model, ratio in rows:
            if stock <= 0 or abs(model / stock - ratio) > 0.006:
                self.error(path, b + 1, "stock-part, %s: ratio %.2f is not %.1f / %.1f" % (
                    kernel, ratio, model, stock))
            elif abs(ratio - 1) > stock_part.GAP and "- `%s` " % kernel not in after:
                self.error(path, e + 1, "stock-part, %s: ratio %.2f is more than %d %% from 1 and "
                           "no item \"- `%s` ...\" names why" % (
                               kernel, ratio, stock_part.GAP * 100, kernel))

    def check_replay_kernel(self):
        """docs/benchmark-details.md's replay-against-the-kernel table (`make
        replay-kernel`) has the five replayed workloads on 6.12 and 7.x, each
        ratio is its replay over its kernel, and each row flagged (more than
        15 % apart, or hit rates more than 3 points) has its causes named in a
        list item of the paragraphs after it ("`WORKLOAD` on SERIES")."""
        path, found = self.details_block("replay-kernel")
        if not found:
            return
        lines, b, e = found
        rows = replay_kernel.table_rows("\n".join(lines[b + 1:e]))
        workloads = ("kbuild", "loopback", "stress-fork", "stress-switch", "many-cgroups")
        for w in workloads:
            for ser in ("6.12", "7."):
                if not any(k[0] == w and k[1].startswith(ser) and not k[1].endswith("-rt") for k in rows):
                    self.error(path, b + 1, "replay-kernel: no row of %s on %s (make replay-kernel; "
                               "update-bench-docs.py --replay-kernel)" % (w, ser + ("x" if ser == "7." else "")))
        after = "\n".join(lines[e + 1:e + 80])
        for (w, ser), r in rows.items():
            if abs(r["replay"] / r["kernel"] - r["ratio"]) > 0.006:
                self.error(path, b + 1, "replay-kernel, %s on %s: ratio %.2f is not %.1f / %.1f" % (
                    w, ser, r["ratio"], r["replay"], r["kernel"]))
            out = abs(r["ratio"] - 1) > replay_kernel.GAP or \
                abs(r["replay_hit"] - r["kernel_hit"]) > replay_kernel.HIT_GAP
            if out != r["flagged"]:
                self.error(path, b + 1, "replay-kernel, %s on %s: flagged %s, but ratio %.2f and hit "
                           "rates %.1f/%.1f" % (w, ser, r["flagged"], r["ratio"], r["replay_hit"],
                                                r["kernel_hit"]))
            elif out and "`%s` on %s" % (w, ser) not in after:
                self.error(path, e + 1, "replay-kernel, %s on %s: ratio %.2f, hit rates %.1f/%.1f, and "
                           "no item naming \"`%s` on %s\" says why" % (
                               w, ser, r["ratio"], r["replay_hit"], r["kernel_hit"], w, ser))

    def check_spdx(self):
        """Every tracked file but the documentation carries the SPDX line."""
        try:
            files = subprocess.run(["git", "-C", TREE, "ls-files", "-z"], check=True,
                                   capture_output=True).stdout.decode().split("\0")
        except (OSError, subprocess.CalledProcessError):
            return	# not a checkout (a DKMS copy): nothing to list
        for f in sorted(x for x in files if x):
            path = os.path.join(TREE, f)
            if f.endswith(".md") or f in ("LICENSE", ".gitignore") or not os.path.isfile(path):
                continue
            # a trace compressed with xz (selftests/traces): its own first bytes
            with (lzma.open if f.endswith(".xz") else open)(path, "rb") as fh:
                has = b"SPDX-License-Identifier:" in fh.read(4096)
            if f in SPDX_EXEMPT:
                if has:
                    self.error(path, 1, "carries the SPDX line now: drop it from SPDX_EXEMPT "
                               "in scripts/checks/docs-check.py (and from LICENSE)")
            elif not has:
                self.error(path, 1, "no SPDX-License-Identifier line in its first lines "
                           "(LICENSE says every source file, script and data file has one)")

    def check_env_table(self, path):
        rows = {}
        for n, line, code, _ in lines_of(read(path)):
            m = re.match(r"^\|\s*`([A-Z][A-Z0-9_]+)`\s*\|", line)
            if m and not code:
                rows.setdefault(m.group(1), n)
        if not rows:
            self.error(path, 1, "no table of environment variables (rows | `NAME` | default | meaning |)")
            return
        for name, n in sorted(rows.items(), key=lambda x: x[1]):
            if name not in self.reads:
                self.error(path, n, "table row %s: no script or selftest reads it" % name)
        for name in sorted(self.env_reads - set(rows)):
            self.error(path, 1, "%s is read by the scripts but missing from the table" % name)


def main():
    report = None
    args = sys.argv[1:]
    if args[:1] == ["--report"] and len(args) == 2:
        report = args[1]
    elif args:
        print("usage: docs-check.py [--report BENCH_TXT]")
        return 2
    c = Checker()
    files = [os.path.join(TREE, "README.md"), os.path.join(TREE, "CHANGELOG.md")]
    files += sorted(glob.glob(os.path.join(TREE, "docs", "*.md")))
    for path in files:
        if not os.path.isfile(path):
            c.error(path, 0, "missing")
            continue
        c.check_file(path)
    c.check_figures()
    c.check_widths(files, report)
    c.check_claims(files)
    c.check_verdict()
    c.check_footprint()
    c.check_stock_part()
    c.check_replay_kernel()
    c.check_spdx()
    testing = os.path.join(TREE, "docs", "testing.md")
    if os.path.isfile(testing):
        c.check_env_table(testing)
    for p in sorted(c.pending):
        print("docs-check: pending: %s (named by the docs, not in the tree yet)" % p)
    for e in c.errors:
        print("docs-check: %s" % e)
    if c.errors:
        print("docs-check: %d problem(s) in %d file(s)" % (len(c.errors), len(files)))
        return 1
    print("docs-check: %d files clean" % len(files))
    return 0


if __name__ == "__main__":
    sys.exit(main())
