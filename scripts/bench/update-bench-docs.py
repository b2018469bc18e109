#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""update-bench-docs.py [REPORT]: put the report of the last `make bench`
into the docs, so that the published tables are always a run's own output,
never typed:

  - docs/bench-report.md, between <!-- report:begin --> and
    <!-- report:end -->: the whole report, as the run's bench.txt has it
    (the claims of the docs are checked against it: scripts/checks/docs-check.py);
  - README.md and docs/benchmark.md, between <!-- verdict:begin --> and
    <!-- verdict:end -->: the verdict table (scripts/bench/verdict.py), which
    docs-check.py computes again from docs/bench-report.md;
  - docs/benchmark.md, between <!-- bench:begin --> and <!-- bench:end -->:
    a summary of it, headed by the same facts and a line that names
    docs/bench-report.md: the first table of each "Designs side by side"
    section (the hit pairs of every design, with 7, 64 and 256 memcgs per
    client, and the drain; a report without those sections gives the first
    table of each "Instructions per pair" section), the tables of the
    "Calibration" section, each table as its title, header and rows (the
    legends are the report's), and the closing count of measurements.

update-bench-docs.py --ab [AB_TXT]: the table of the last `make ab` (default
$MCS_OUT/ab/ab.txt) into docs/benchmark.md, between <!-- ab:begin --> and
<!-- ab:end -->.

update-bench-docs.py --footprint [FOOTPRINT_TXT]: the table of the last
`make footprint` (default $MCS_OUT/footprint/footprint.txt) into
docs/design.md, between <!-- footprint:begin --> and <!-- footprint:end -->.

update-bench-docs.py --stock-part [STOCK_PART_TXT]: the table of the last
`make stock-part` (default $MCS_OUT/stock-part/stock-part.txt) into
docs/benchmark-details.md, between <!-- stock-part:begin --> and
<!-- stock-part:end -->.

update-bench-docs.py --replay-kernel [REPLAY_KERNEL_TXT]: the table of the
last `make replay-kernel` (default $MCS_OUT/replay-kernel/replay-kernel.txt)
into docs/benchmark-details.md, between <!-- replay-kernel:begin --> and
<!-- replay-kernel:end -->.

update-bench-docs.py --verdict: only the verdict blocks, from the report
that docs/bench-report.md holds.

update-bench-docs.py --profile [PROFILE]: the same for the profile of the
last `make bench-profile` (PROFILE, default $MCS_OUT/profile/profile.txt),
in docs/benchmark-details.md between <!-- profile:begin --> and
<!-- profile:end -->: the decoupled page pair with its functions and
hottest blocks, then every job per function.

REPORT defaults to bench-results/latest/bench.txt, the report of the newest
run (bench-report.py); the run's facts (date, commit, command, host,
duration, settings) come from the env.txt beside the report, or, for a
report without one, from the meta.txt that scripts/bench/bench.sh leaves in
$MCS_OUT/bench (default .out/bench).  Exits non-zero, changing nothing, when
the report or the markers are missing.
"""
import os
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import verdict  # noqa: E402  (scripts/bench/verdict.py: the verdict table)

TREE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOC = os.path.join(TREE, "docs", "benchmark.md")                 # the summary
REPORT_DOC = os.path.join(TREE, "docs", "bench-report.md")       # the whole report
PROFILE_DOC = os.path.join(TREE, "docs", "benchmark-details.md")  # the profile
DESIGN_DOC = os.path.join(TREE, "docs", "design.md")             # the footprint
BEGIN = "<!-- bench:begin -->"
END = "<!-- bench:end -->"
README = os.path.join(TREE, "README.md")                         # the verdict
VERDICT_BEGIN = "<!-- verdict:begin -->"
VERDICT_END = "<!-- verdict:end -->"
REPORT_BEGIN = "<!-- report:begin -->"
REPORT_END = "<!-- report:end -->"
# the tables of one command each: option -> (doc, block tag, default file
# under $MCS_OUT, the command that writes it)
TABLES = {
    "--ab": (DOC, "ab", os.path.join("ab", "ab.txt"), "make ab A=.. B=.."),
    "--footprint": (DESIGN_DOC, "footprint", os.path.join("footprint", "footprint.txt"),
                    "make footprint"),
    "--stock-part": (PROFILE_DOC, "stock-part", os.path.join("stock-part", "stock-part.txt"),
                     "make stock-part"),
    "--replay-kernel": (PROFILE_DOC, "replay-kernel", os.path.join("replay-kernel", "replay-kernel.txt"),
                        "make replay-kernel"),
}
WIDTH = 120     # the longest line of a generated block (scripts/checks/docs-check.py)


def meta(path):
    """The key=value facts of the run, the last value of each key."""
    facts = {}
    try:
        with open(path) as f:
            for line in f:
                k, sep, v = line.rstrip("\n").partition("=")
                if sep:
                    facts[k] = v
    except OSError:
        pass
    return facts


def verdict_changes(text, source):
    """The changes of replace_blocks() that put the verdict made of the
    report @text into README.md and docs/benchmark.md; exits, naming
    @source, when the report has no table to make it of."""
    try:
        lines = verdict.verdict(text)
    except ValueError as e:
        sys.exit("update-bench-docs: no verdict from %s: %s" % (source, e))
    block = "%s\n%s\n%s" % (VERDICT_BEGIN, "\n".join(lines), VERDICT_END)
    return [(path, VERDICT_BEGIN, VERDICT_END, block) for path in (DOC, README)]


def replace_blocks(changes):
    """[(path, begin, end, block)]: every marker checked before any file is
    written; a file may take several blocks."""
    texts, olds = {}, {}
    for path, begin, end, block in changes:
        if path not in texts:
            with open(path) as f:
                olds[path] = texts[path] = f.read()
        doc = texts[path]
        b, e = doc.find(begin), doc.find(end)
        if b < 0 or e < b or doc.count(begin) != 1 or doc.count(end) != 1:
            sys.exit("update-bench-docs: %s needs exactly one %s ... %s block" % (path, begin, end))
        texts[path] = doc[:b] + block + doc[e + len(end):]
    for path, text in texts.items():
        if text != olds[path]:
            with open(path, "w") as f:
                f.write(text)


def report_sections(text):
    """[(title, [lines])] of a bench report; the lines before the first
    section have the title None."""
    secs = [(None, [])]
    for line in text.split("\n"):
        if line.startswith("== "):
            secs.append((line, []))
        else:
            secs[-1][1].append(line)
    return secs


def first_table(lines):
    """The lines of a section up to the end of its first table: the legend
    lines before it, its header and its rows (the lines with a |)."""
    out, seen = [], False
    for line in lines:
        if "|" in line:
            seen = True
        elif seen:
            break
        out.append(line)
    return out


def summary(text):
    """The first table of each "Designs side by side" section (else of each
    "Instructions per pair" section), the tables of the "Calibration"
    section, without their legends, and the closing count."""
    secs = report_sections(text)
    picked = [(t, first_table(b)) for t, b in secs if t and t.startswith("== Designs side by side, ")]
    if not picked:
        picked = [(t, first_table(b)) for t, b in secs
                  if t and t.startswith("== Instructions per pair, ")]
    picked += [(t, [x for x in b if x.strip()]) for t, b in secs
               if t and t.startswith("== Calibration")]
    out = []
    for title, body in picked:
        out += ["", title] + [x for x in body if "|" in x]
    last = secs[-1][1]
    tail = [i for i, x in enumerate(last) if x.startswith("measurements: ")]
    if tail:
        out += [""] + [x for x in last[tail[-1]:] if x.strip()]
    return "\n".join(out[1:])


def profile_sections(text):
    """{job title: [lines]} of a bench-profile report, in order."""
    secs, cur = {}, None
    for line in text.split("\n"):
        if line.startswith("== "):
            cur = line
            secs[cur] = []
        elif cur is not None and line.strip():
            secs[cur].append(line)
    return secs


def wrap_code(line):
    """A line of a code block in lines of at most WIDTH, the rest indented."""
    if len(line) <= WIDTH:
        return [line]
    return textwrap.wrap(line, WIDTH, subsequent_indent="    ", break_long_words=False,
                         break_on_hyphens=False)


def profile_block(path):
    import datetime
    import re
    with open(path) as f:
        secs = profile_sections(f.read())
    date = datetime.datetime.fromtimestamp(os.path.getmtime(path), datetime.timezone.utc)
    head = [t for t in secs if "mode=decoupled workload=pages" in t]
    if not head:
        sys.exit("update-bench-docs: no decoupled page pair in %s" % path)
    lines = secs[head[0]]
    nblocks = sum(1 for x in lines[lines.index(next(x for x in lines if x.startswith("insns/pair execs"))):]) - 1
    shown = []
    for x in lines:
        shown.append(x)
        if x.startswith("insns/pair execs"):
            break
    blocks = lines[len(shown):]
    shown += blocks[:12]
    jobs = []
    for title, body in secs.items():
        m = re.match(r"== (?:mode=(\S+) )?workload=(\S+): ([\d.]+) instructions per pair", title)
        if not m:
            continue
        mode = m.group(1)
        if mode == "none" and m.group(2).startswith("bytes"):
            mode = "objcg-atomic"   # the bytes of mode none, as everywhere else
        name = "floor" if m.group(2) == "floor" else "%s %s" % (mode, m.group(2))
        fns, loop = [], 0.0
        for x in body:
            f = re.match(r"\s*(-?[\d.]+)\s+-?[\d.]+%\s+(\S+) \[memcg_stock\]$", x)
            if not f:
                continue
            n, fn = float(f.group(1)), f.group(2)
            if fn.startswith("bench_"):
                loop += n
            elif n >= 1:
                fns.append("`%s` %.0f" % (fn, n))
        jobs.append("%s %s (%s)" % (name, m.group(3), ", ".join(fns + ["the loop %.0f" % loop])))
    kernel_pairs = []
    for title, body in secs.items():
        m = re.match(r"== kernel pair=(\S+): ([\d.]+) instructions per pair", title)
        if not m:
            continue
        fns = []
        for x in body:
            f = re.match(r"\s*(-?[\d.]+)\s+-?[\d.]+%\s+(\S+)( \[memcg_stock\])?$", x)
            if f and float(f.group(1)) >= 1:
                fns.append("`%s` %.0f" % (f.group(2), float(f.group(1))))
        kernel_pairs.append("%s %s (%s)" % (m.group(1), m.group(2), ", ".join(fns)))
    spread = [x.strip() for t, body in secs.items() if t.startswith("== dispatch per design")
              for x in body if "spread" in x]
    switch = [x.split() for t, body in secs.items() if t.startswith("== the exported entry")
              for x in body]
    import textwrap
    per_fn = textwrap.fill("The same run, per function only (instructions per pair; the loop is "
                           "`bench_load_<mode>` and `bench_op_<mode>`): %s." % "; ".join(jobs), 76)
    if spread:
        per_fn += "\n\n" + textwrap.fill(
            "Outside the modes' entry functions (the loop, the pair function, the exported "
            "entry points), the page jobs and the byte jobs of every mode spend the same "
            "instructions; largest minus smallest over all jobs: %s." % spread[0].split()[0], 76)
    if switch:
        per_fn += " " if not spread else "\n\n"
        per_fn += textwrap.fill(
            "Through the exported functions (`entry=exported`), their switch on the mode "
            "adds %s." % " and ".join("%s per %s pair of %s" % (w[0], w[2].split("=")[1],
                                                               w[1].split("=")[1])
                                     for w in switch), 76)
    if kernel_pairs:
        per_fn += "\n\n" + textwrap.fill(
            "The kernel's own pairs in the same guest (debugfs `kernel_cost` writes; "
            "`kc_*_time` and the two retpoline thunks are the loop calling them through "
            "pointers): %s." % "; ".join(kernel_pairs), 76)
    meta = {}
    mpath = os.path.join(os.path.dirname(path), "meta.txt")
    if os.path.exists(mpath):
        with open(mpath) as f:
            meta = dict(x.rstrip("\n").split("=", 1) for x in f if "=" in x)
    when = meta.get("date", date.strftime("%Y-%m-%d"))
    commit = meta.get("commit", "unknown")
    how = ("`make bench-profile`" if meta.get("default_jobs", "1") == "1"
           else "`make bench-profile` with PROFILE_JOBS")
    kernel = meta.get("kernel", "deb-amd64")
    return ("<!-- profile:begin -->\n"
            "A profile of the decoupled page pair: %s, %s (commit %s,\n"
            "guest `%s` under qemu -icount shift=0); the first 12 blocks of %d (the whole\n"
            "report goes to `.out/profile/profile.txt`):\n\n```\n%s\n%s\n```\n\n"
            "%s\n<!-- profile:end -->"
            % (how, when, commit, kernel, nblocks, "\n".join(wrap_code(head[0])),
               "\n".join(x for line in shown for x in wrap_code(line)), per_fn))


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--profile":
        out = os.environ.get("MCS_OUT") or os.path.join(TREE, ".out")
        path = sys.argv[2] if len(sys.argv) > 2 else os.path.join(out, "profile", "profile.txt")
        if not os.path.exists(path):
            sys.exit("update-bench-docs: no profile (%s): run `make bench-profile` first" % path)
        replace_blocks([(PROFILE_DOC, "<!-- profile:begin -->", "<!-- profile:end -->",
                         profile_block(path))])
        print("update-bench-docs: %s updated from %s" % (os.path.relpath(PROFILE_DOC, TREE), path))
        return
    if len(sys.argv) > 1 and sys.argv[1] in TABLES:
        doc, tag, default, command = TABLES[sys.argv[1]]
        out = os.environ.get("MCS_OUT") or os.path.join(TREE, ".out")
        path = sys.argv[2] if len(sys.argv) > 2 else os.path.join(out, default)
        try:
            with open(path) as f:
                table = f.read().rstrip("\n")
        except OSError as e:
            sys.exit("update-bench-docs: no table (%s): run `%s` first" % (e, command))
        replace_blocks([(doc, "<!-- %s:begin -->" % tag, "<!-- %s:end -->" % tag,
                         "<!-- %s:begin -->\n```text\n%s\n```\n<!-- %s:end -->" % (tag, table, tag))])
        print("update-bench-docs: the %s table of %s from %s" % (tag, os.path.relpath(doc, TREE), path))
        return
    if len(sys.argv) > 1 and sys.argv[1] == "--verdict":
        try:
            text = verdict.report_block(REPORT_DOC)
        except OSError as e:
            sys.exit("update-bench-docs: %s" % e)
        replace_blocks(verdict_changes(text, REPORT_DOC))
        print("update-bench-docs: the verdict of README.md and %s from %s" % (
            os.path.relpath(DOC, TREE), os.path.relpath(REPORT_DOC, TREE)))
        return
    report = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.join(TREE, "bench-results", "latest", "bench.txt")
    out = os.environ.get("MCS_OUT") or os.path.join(TREE, ".out")
    try:
        with open(report) as f:
            text = f.read().rstrip("\n")
    except OSError as e:
        sys.exit("update-bench-docs: no report (%s): run `make bench` first" % e)
    if not text:
        sys.exit("update-bench-docs: %s is empty" % report)
    env = os.path.join(os.path.dirname(report), "env.txt")
    m = meta(env if os.path.exists(env) else os.path.join(out, "bench", "meta.txt"))
    head = "Generated by `scripts/bench/update-bench-docs.py` from `%s` of %s, commit %s" % (
        m.get("command", "make bench"), m.get("date", "an unknown date"), m.get("commit", "unknown"))
    facts = [x for x in (m.get("host") and "host: " + m["host"],
                         m.get("seconds") and m["seconds"] + " s",
                         m.get("env")) if x]
    if facts:
        head += " (" + "; ".join(facts) + ")"
    head = "\n".join(textwrap.wrap(head, WIDTH))
    full = "%s\n%s.\n\n```text\n%s\n```\n%s" % (REPORT_BEGIN, head, text, REPORT_END)
    short = ("%s\n%s.\nA summary: the whole report of that run, every table, is "
             "[bench-report.md](bench-report.md).\n\n```text\n%s\n```\n%s"
             % (BEGIN, head, summary(text), END))
    replace_blocks([(REPORT_DOC, REPORT_BEGIN, REPORT_END, full), (DOC, BEGIN, END, short)]
                   + verdict_changes(text, report))
    print("update-bench-docs: %s, %s and the verdict of README.md updated from %s" % (
        os.path.relpath(DOC, TREE), os.path.relpath(REPORT_DOC, TREE), report))


if __name__ == "__main__":
    main()
