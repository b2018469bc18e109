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
  - a measured figure typed by hand: in README.md's "Results in brief",
    docs/design.md and docs/benchmark.md outside their generated blocks, a
    figure (a decimal with two or more integer digits, such as 117.4, or a
    ratio such as 1.24x) that no generated block of docs/benchmark.md (the
    tables of make bench, the profile of make bench-profile) contains: the
    claim was typed, or the run it came from is no longer the one shown;
  - docs/testing.md's table of environment variables: a row no script reads,
    or a variable the scripts read with a default (${NAME:-...} and the
    like, os.environ in Python, NAME ?= in the Makefile) that has no row.
  - a line longer than GEN_WIDTH (120) characters inside a generated block
    of docs/benchmark.md (<!-- bench:begin --> ... <!-- bench:end -->,
    <!-- profile:begin --> ... <!-- profile:end -->), and, with
    --report FILE, in that report (the bench.txt of a run).

docs-check.py --report FILE: the same, and FILE's lines checked too.

PENDING below lists what the documentation names before the rig has it
(targets and documents that are being added elsewhere): reported as
pending, not failed, while missing; once they exist the check fails until
they are dropped from PENDING, so that the list cannot go stale.
"""
import glob
import os
import re
import sys

TREE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

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


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def rel(path):
    return os.path.relpath(path, TREE)


def slug(heading):
    """GitHub's anchor of a heading."""
    s = re.sub(r"[`*_]", "", heading.strip().lower())
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
    for path in glob.glob(os.path.join(TREE, "scripts", "*.sh")) + glob.glob(os.path.join(TREE, "selftests", "*.sh")):
        text = read(path)
        env |= set(re.findall(r"\$\{([A-Z][A-Z0-9_]+):?[-+=?]", text))
        broad |= set(re.findall(r"\$\{?([A-Z][A-Z0-9_]+)", text))
    for path in glob.glob(os.path.join(TREE, "scripts", "*.py")):
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
    for pat in ("*.c", "*.h", "harness/*.[ch]", "kunit/*.[ch]", "selftests/*.[ch]", "examples/*.c", "Kbuild"):
        for path in glob.glob(os.path.join(TREE, pat)):
            words |= set(re.findall(r"\b[A-Z][A-Z0-9_]+\b", read(path)))
    return words


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
                self.error(path, n, "%s exists now: drop it from PENDING in scripts/docs-check.py" % key)
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
                self.error(path, n, "make %s exists now: drop it from PENDING in scripts/docs-check.py" % target)
            else:
                self.pending.add("make %s" % target)
        elif target not in self.targets:
            self.error(path, n, "make %s: no such target in the Makefile" % target)

    def check_variable(self, path, n, name):
        if name in PENDING["variables"]:
            if name in self.reads:
                self.error(path, n, "%s is read now: drop it from PENDING in scripts/docs-check.py" % name)
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
        """Figures in prose must come from a generated block of benchmark.md."""
        bench = os.path.join(TREE, "docs", "benchmark.md")
        if not os.path.isfile(bench):
            return
        generated = "\n".join(line for _, line, _, gen in lines_of(read(bench)) if gen)
        for name, section in (("README.md", "## Results in brief"),
                              ("docs/design.md", None), ("docs/benchmark.md", None)):
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

    def check_widths(self, report=None):
        """Generated blocks of benchmark.md, and the report if given, in
        lines of at most GEN_WIDTH characters."""
        bench = os.path.join(TREE, "docs", "benchmark.md")
        if os.path.isfile(bench):
            for n, line, _, gen in lines_of(read(bench)):
                if gen and len(line) > GEN_WIDTH:
                    self.error(bench, n, "line of %d characters in a generated block (at most %d)"
                               % (len(line), GEN_WIDTH))
        if report is None:
            return
        if not os.path.isfile(report):
            self.errors.append("%s:0: no such report" % report)
            return
        for n, line in enumerate(read(report).split("\n"), 1):
            if len(line) > GEN_WIDTH:
                self.errors.append("%s:%d: line of %d characters (at most %d)"
                                   % (report, n, len(line), GEN_WIDTH))

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
    c.check_widths(report)
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
