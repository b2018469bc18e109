#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""mode-lists.py (lint.sh): the host scripts keep no list of stock modes of
their own but the ones below, and those name only modes of the binding
table.  Everything else takes its modes from scripts/bench/designs.py; a
list here is a choice no metadata makes:

  bench-report.py KCOST_MODES  the modes beside the kernel's own accounting
                               (the kernel's designs and none): a subset,
                               each name must be a mode
  docs-check.py claim_percpu_stranded  one claim comparing two named modes
  designs.py KERNEL_MODELS     the modes shaped like the kernel's own stock
                               before the 6.16 split and after it (one
                               fact: bench-report's calibration,
                               stock-part and replay-kernel ask
                               kernel_model()); each name must be a mode

Besides, every Python script under scripts/ is read for a tuple, list or
set literal that holds two mode names or more (a for-loop over modes, an
`in (...)` test, an assignment), and every shell script for a `for X in`
list or a `[[ ... ]]` test naming two modes or more: such a list is a hand
copy of the table that a new mode would miss.  One of the lists above is
allowed where it is (its file and the assignment or function around it).

Exit 1, naming the file, the line and the modes, for each.
"""
import ast
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts", "bench"))
import designs  # noqa: E402


def literal_names(path, name):
    """The string literals of the assignments to @name in @path (a tuple, a dict's keys)."""
    text = open(os.path.join(ROOT, path)).read()
    out = []
    for node in ast.walk(ast.parse(text)):
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        for t in targets:
            tname = t.id if isinstance(t, ast.Name) else \
                t.value.id if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) else None
            if tname != name:
                continue
            if isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant):
                out.append(t.slice.value)
            value = node.value
            if isinstance(value, ast.Dict):
                out += [k.value for k in value.keys if isinstance(k, ast.Constant)]
            else:
                for sub in ast.walk(value):
                    if isinstance(sub, (ast.Tuple, ast.List)):
                        out += [e.value for e in sub.elts
                                if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return out


# (file, assignment or function) where a literal list of modes is a choice
ALLOWED = {
    ("scripts/bench/bench-report.py", "KCOST_MODES"),
    ("scripts/checks/docs-check.py", "claim_percpu_stranded"),
    ("scripts/bench/designs.py", "KERNEL_MODELS"),
}
MIN_NAMES = 2


def python_lists(path, known):
    """(line, names, owner) of each literal list of @known names in @path."""
    tree = ast.parse(open(os.path.join(ROOT, path)).read())
    found = []

    def visit(node, owner):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            owner = node.name
        elif isinstance(node, ast.Assign) and node.targets and isinstance(node.targets[0], ast.Name):
            owner = node.targets[0].id
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            names = [e.value for e in node.elts
                     if isinstance(e, ast.Constant) and isinstance(e.value, str) and e.value in known]
            if len(names) >= MIN_NAMES:
                found.append((node.lineno, names, owner))
        for child in ast.iter_child_nodes(node):
            visit(child, owner)

    visit(tree, None)
    return found


SH_FOR = re.compile(r"\bfor\s+\w+\s+in\s+([^;\n]*)")
SH_TEST = re.compile(r"\[\[(.*?)\]\]")


def shell_lists(path, known):
    """(line, names) of each `for X in` list or `[[ ]]` test naming modes."""
    found = []
    for i, line in enumerate(open(os.path.join(ROOT, path)), 1):
        code = line.split("#", 1)[0] if not line.lstrip().startswith("#") else ""
        for rx in (SH_FOR, SH_TEST):
            for m in rx.finditer(code):
                words = re.findall(r"[\w.-]+", m.group(1))
                names = [w for w in words if w in known]
                if len(names) >= MIN_NAMES:
                    found.append((i, names))
    return found


def scripts():
    for root, _, files in os.walk(os.path.join(ROOT, "scripts")):
        for f in sorted(files):
            rel = os.path.relpath(os.path.join(root, f), ROOT)
            if f.endswith(".py"):
                yield rel, "py"
            elif f.endswith(".sh"):
                yield rel, "sh"


def main():
    try:
        known = set(designs.names(designs.load()))
    except (ValueError, KeyError, OSError) as e:
        print(f"mode-lists: designs.py: {e}", file=sys.stderr)
        return 1
    lists = [("scripts/bench/bench-report.py", "KCOST_MODES"), ("scripts/bench/designs.py", "KERNEL_MODELS")]
    bad = []
    for path, kind in scripts():
        if kind == "py":
            for line, names, owner in python_lists(path, known):
                if (path, owner) not in ALLOWED:
                    bad.append(f"{path}:{line}: a list of modes ({', '.join(names)}): "
                               "take them from designs.py")
        else:
            for line, names in shell_lists(path, known):
                bad.append(f"{path}:{line}: a list of modes ({' '.join(names)}): "
                           "take them from designs.py")
    for path, name in lists:
        names = literal_names(path, name)
        if not names:
            bad.append(f"{path} {name}: not found (the check reads its literal)")
        bad += [f"{path} {name}: {m!r} is no mode of the binding table" for m in names
                if m not in known]
    for b in bad:
        print(f"mode-lists: {b}", file=sys.stderr)
    if not bad:
        print(f"mode-lists: no hand list of modes in scripts/; {len(lists)} lists name only "
              f"the table's {len(known)} modes")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
