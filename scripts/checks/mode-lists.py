#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""mode-lists.py (lint.sh): the lists of stock modes that must stay in the
host scripts name only modes of the binding table, and those that must hold
every mode of a kind hold it.  Everything else takes its modes from
scripts/bench/designs.py; a list here is a choice no metadata makes:

  bench-report.py KCOST_MODES  the modes beside the kernel's own accounting
                               (the kernel's designs and none): a subset,
                               each name must be a mode
  layout.py HITS, PER_CPU      the members a hit touches, per mode with
                               per-CPU stocks: each name must be a mode

Exit 1, naming the list and the mode, when one names an unknown mode.
"""
import ast
import os
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


def main():
    try:
        known = set(designs.names(designs.load()))
    except (ValueError, KeyError, OSError) as e:
        print(f"mode-lists: designs.py: {e}", file=sys.stderr)
        return 1
    lists = [("scripts/bench/bench-report.py", "KCOST_MODES"),
             ("scripts/bench/layout.py", "HITS"), ("scripts/bench/layout.py", "PER_CPU")]
    bad = []
    for path, name in lists:
        names = literal_names(path, name)
        if not names:
            bad.append(f"{path} {name}: not found (the check reads its literal)")
        bad += [f"{path} {name}: {m!r} is no mode of the binding table" for m in names
                if m not in known]
    for b in bad:
        print(f"mode-lists: {b}", file=sys.stderr)
    if not bad:
        print(f"mode-lists: {len(lists)} lists name only the table's {len(known)} modes")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
