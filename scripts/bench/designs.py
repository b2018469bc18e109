#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The stock modes and their metadata, for every host script: one list.

load(path) reads a saved copy of the module's debugfs "modes" file (bench.sh
keeps the guest's as $B/modes.txt); load() without a file, or with one that
does not exist, parses the source: the binding table of
stocks/stock_designs.h and each mode's `struct mcs_mode_info mcs_mode_<entry>`
and each design's `struct mcs_design mcs_design_<design>` in stocks/*.c.
Either way each mode is a dict with the keys of a "modes" line
(docs/debugfs.md): mode, id, design, group (None: in no wide table), abbr,
control, batches, memcgs_per_cpu, refills, stocks (list of struct names), params
(list of dicts name/min/max/default/below, below the name of the parameter
it must stay below or None), settings (list of {name: value}: the settings
make bench measures beside the defaults), layout ({"hit": members a hit
touches beyond the lock, the scan and the count, "per_memcg": bytes per CPU
of a stock beside each memcg, or None}), cycles (dict "pages", "pages@rt", ...
-> {primitive: uses}).

Command line (for shell scripts):
  designs.py names [FILE]          every mode, one per line, table order
  designs.py side [FILE]           the modes of the side-by-side tables
  designs.py grouped [FILE]        the modes of the wide tables (a group:
                                   the side-by-side ones and the controls)
  designs.py ungrouped [FILE]      the others (calibration modes)
  designs.py settings [FILE]       the settings of the modes' parameters that
                                   make bench measures beside the defaults,
                                   one "mode=M NAME=N..." line each
  designs.py batching [FILE]       the batch sweep's modes (side by side,
                                   with a page stock)
  designs.py profile-jobs [FILE]   bench-profile's default jobs, ';'-separated
  designs.py check                 the source parses: every table line has
                                   its metadata, every param's "below" names
                                   a param of its mode (exit 1 naming what)
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WORKLOADS = ("pages", "bytes", "pages-shared", "bytes-shared")
PRIMITIVES = ("trylock", "irqsave", "preempt", "atomic", "transfer")


def parse_cycles(text):
    """'pages:trylock*2,bytes@rt:atomic*4+preempt*1' -> {'pages': {...}, ...}"""
    out = {}
    for item in filter(None, text.split(",")):
        wl, _, prims = item.partition(":")
        base = wl.split("@")[0]
        if base not in WORKLOADS or wl not in (base, base + "@rt"):
            raise ValueError(f"cycles: unknown workload {wl!r}")
        uses = {}
        for p in prims.split("+"):
            name, _, n = p.partition("*")
            if name not in PRIMITIVES:
                raise ValueError(f"cycles: unknown primitive {name!r}")
            uses[name] = uses.get(name, 0) + float(n)
        out[wl] = uses
    return out


def parse_params(text):
    if text in ("", "-"):
        return []
    out = []
    for item in text.split(","):
        item, _, below = item.partition("<")
        name, rng, default = item.split(":")
        lo, hi = rng.split("..")
        out.append({"name": name, "min": int(lo), "max": int(hi), "default": int(default),
                    "below": below or None})
    return out


def short_name(mode_meta, param):
    """A parameter's name in a row label: without its design's prefix."""
    prefix = mode_meta["design"].replace("-", "_") + "_"
    return param[len(prefix):] if param.startswith(prefix) and len(param) > len(prefix) else param


def label(mode_meta, values):
    """The report's name of a run of a mode with parameter @values
    ({name: value}): the mode where each is its default, else
    "mode(NAME=N,...)" with the ones that differ, in the params' order."""
    diff = [(p["name"], values[p["name"]]) for p in mode_meta["params"]
            if p["name"] in values and values[p["name"]] != p["default"]]
    if not diff:
        return mode_meta["mode"]
    return "%s(%s)" % (mode_meta["mode"],
                       ",".join(f"{short_name(mode_meta, n)}={v}" for n, v in diff))


def variants(modes, names):
    """The rows of @names (modes, in their order), each followed by its
    settings (struct mcs_mode_info's): [(label, mode, {param: value})]."""
    by_name = {m["mode"]: m for m in modes}
    out = []
    for n in names:
        m = by_name[n]
        out.append((n, n, {}))
        for setting in m["settings"]:
            out.append((label(m, setting), n, dict(setting)))
    return out


def run_label(modes_by_name, row):
    """The report's name of a result line (a dict of its key=value): its
    mode, or mode(NAME=N) where its line gives parameters off their
    defaults."""
    m = modes_by_name.get(row.get("mode"))
    if not m or not m["params"]:
        return row.get("mode")
    values = {p["name"]: int(row[p["name"]]) for p in m["params"]
              if row.get(p["name"], "").isdigit()}
    return label(m, values)


def check_params(modes):
    """What is wrong with the modes' params: a "below" that names no
    parameter of its mode, or bounds where no value stays below it."""
    errors = []
    for m in modes:
        by_name = {p["name"]: p for p in m["params"]}
        for p in m["params"]:
            if not p["below"]:
                continue
            up = by_name.get(p["below"])
            if up is None:
                errors.append(f"{m['mode']}: {p['name']} must stay below {p['below']}, "
                              "which is no parameter of the mode")
            elif p["min"] >= up["max"]:
                errors.append(f"{m['mode']}: {p['name']} (from {p['min']}) can never stay "
                              f"below {up['name']} (to {up['max']})")
            elif p["default"] >= up["default"]:
                errors.append(f"{m['mode']}: the defaults cross: {p['name']}={p['default']}, "
                              f"{up['name']}={up['default']}")
        for setting in m["settings"]:
            values = {p["name"]: p["default"] for p in m["params"]}
            for n, v in setting.items():
                p = by_name.get(n)
                if p is None or not p["min"] <= v <= p["max"]:
                    errors.append(f"{m['mode']}: setting {n}={v}: no such parameter or out of "
                                  "its bounds")
                values[n] = v
            for p in m["params"]:
                if p["below"] in values and values[p["name"]] >= values[p["below"]]:
                    errors.append(f"{m['mode']}: setting {setting}: {p['name']} not below "
                                  f"{p['below']}")
            if label(m, setting) == m["mode"]:
                errors.append(f"{m['mode']}: setting {setting} is the defaults")
    return errors


def parse_settings(text):
    """'trim_low=16|trim_low=48' -> [{'trim_low': 16}, {'trim_low': 48}]"""
    if text in (None, "", "-"):
        return []
    out = []
    for item in text.split("|"):
        setting = {}
        for kv in item.split(","):
            name, _, value = kv.partition("=")
            setting[name] = int(value)
        out.append(setting)
    return out


def parse_layout(text):
    """struct mcs_mode_info's @layout: {"hit": [extra members], "per_memcg":
    bytes or None}; "-" or None: neither."""
    out = {"hit": [], "per_memcg": None}
    for item in (text or "-").split(","):
        if item in ("-", ""):
            continue
        if item.startswith("hit+"):
            out["hit"] += item[len("hit+"):].split("+")
        elif item.startswith("per-memcg:"):
            out["per_memcg"] = int(item[len("per-memcg:"):])
        else:
            raise ValueError(f"layout: unknown item {item!r}")
    return out


def _mode_from_kv(kv):
    return {
        "mode": kv["mode"], "id": int(kv["id"]), "design": kv["design"],
        "group": None if kv["group"] == "-" else kv["group"], "abbr": kv["abbr"],
        "control": kv["control"] == "1", "batches": kv["batches"] == "1",
        "memcgs_per_cpu": int(kv["memcgs_per_cpu"]), "refills": kv.get("refills") == "1",
        "stocks": [] if kv["stocks"] == "-" else kv["stocks"].split(","),
        "params": parse_params(kv["params"]), "settings": parse_settings(kv.get("settings")),
        "layout": parse_layout(kv.get("layout")),
        "cycles": parse_cycles(kv["cycles"]),
    }


def load_file(path):
    modes = []
    with open(path) as f:
        for line in f:
            kv = dict(t.split("=", 1) for t in line.split() if "=" in t)
            if "mode" in kv:
                modes.append(_mode_from_kv(kv))
    return modes


# ---- the source -------------------------------------------------------------------

def _strip_comments(s):
    s = re.sub(r"/\*.*?\*/", " ", s, flags=re.S)
    return re.sub(r"//[^\n]*", " ", s)


def _string_macros(texts):
    """#define NAME "lit" ["lit" | NAME]... of the design headers."""
    macros = {}
    for s in texts:
        for m in re.finditer(r"^#define\s+(MCS_\w+)\s+((?:\"[^\"]*\"\s*|MCS_\w+\s*)+)$", s, re.M):
            macros[m.group(1)] = m.group(2)
    return macros


def _string_expr(expr, macros, depth=0):
    """Concatenate the literals and string macros of a C string expression."""
    out = ""
    for tok in re.findall(r"\"[^\"]*\"|\w+", expr):
        if tok.startswith('"'):
            out += tok[1:-1]
        elif tok in macros and depth < 8:
            out += _string_expr(macros[tok], macros, depth + 1)
        else:
            raise ValueError(f"not a string: {tok}")
    return out


def _initialisers(text, kind):
    """{name: body} of `const struct KIND NAME = { body };` in @text."""
    out = {}
    for m in re.finditer(r"const struct %s\s+(\w+)\s*=\s*\{(.*?)\n\};" % kind, text, re.S):
        out[m.group(1)] = m.group(2)
    return out


def _fields(body):
    """.field = value, at the top level of an initialiser body."""
    fields, depth, cur, quoted = {}, 0, "", False
    for ch in body + ",":
        if ch == '"':
            quoted = not quoted
        elif quoted:
            pass
        elif ch in "({":
            depth += 1
        elif ch in ")}":
            depth -= 1
        if ch == "," and depth == 0 and not quoted:
            m = re.match(r"\s*\.(\w+)\s*=\s*(.*)$", cur, re.S)
            if m:
                fields[m.group(1)] = m.group(2).strip()
            cur = ""
        else:
            cur += ch
    return fields


def load_source(root=ROOT):
    stocks = os.path.join(root, "stocks")
    table = _strip_comments(open(os.path.join(stocks, "stock_designs.h")).read())
    binds = re.findall(r"BIND\((MCS_MODE_\w+),\s*\"([^\"]+)\",\s*(\w+),\s*(\w+)\)", table)
    sources = {}
    for fn in sorted(os.listdir(stocks)):
        if fn.endswith((".c", ".h")):
            sources[fn] = _strip_comments(open(os.path.join(stocks, fn)).read())
    macros = _string_macros(sources.values())
    infos, designs, params, kinds, uints = {}, {}, {}, {}, {}
    for fn, s in sources.items():
        infos.update(_initialisers(s, "mcs_mode_info"))
        designs.update(_initialisers(s, "mcs_design"))
        for m in re.finditer(r"(?:static\s+)?const struct mcs_bench_param\s+(\w+)\[\]\s*=\s*\{(.*?)\n\};",
                             s, re.S):
            params[m.group(1)] = m.group(2)
        for m in re.finditer(r"(?:static\s+)?const struct mcs_stock_kind\s+(\w+)\s*=\s*"
                             r"MCS_STOCK_KIND\(\s*\w+\s*,\s*struct\s+(\w+)", s):
            kinds[m.group(1)] = m.group(2)
        for m in re.finditer(r"^(?:static\s+)?unsigned int\s+(\w+)(?:\s+__\w+)*\s*=\s*(\d+)\s*;",
                             s, re.M):
            uints[m.group(1)] = int(m.group(2))
        # a design that is another's under a second name (decoupled73)
        for m in re.finditer(r"^#define\s+(mcs_design_\w+)\s+(mcs_design_\w+)\s*$", s, re.M):
            designs.setdefault("alias:" + m.group(1), m.group(2))
    defines = {}
    for s in sources.values():
        for m in re.finditer(r"^#define\s+(\w+)\s+(\d+)\s*$", s, re.M):
            defines[m.group(1)] = int(m.group(2))
    # kinds lists: static const struct mcs_stock_kind *const X[] = { &a, &b, NULL, };
    kind_lists = {}
    for s in sources.values():
        for m in re.finditer(r"const struct mcs_stock_kind \*const (\w+)\[\]\s*=\s*\{(.*?)\};", s, re.S):
            kind_lists[m.group(1)] = re.findall(r"&(\w+)", m.group(2))

    def num(v):
        v = v.strip()
        if v in defines:
            return defines[v]
        if v == "UINT_MAX":
            return 2 ** 32 - 1
        return int(v)

    modes = []
    missing = []
    for i, (const, name, entry, design) in enumerate(binds):
        info = infos.get("mcs_mode_" + entry)
        dname = "mcs_design_" + design
        dname = designs.get("alias:" + dname, dname)
        dsg = designs.get(dname)
        if info is None:
            missing.append(f"{name}: no struct mcs_mode_info mcs_mode_{entry} in stocks/")
            continue
        if dsg is None:
            missing.append(f"{name}: no struct mcs_design {dname} in stocks/")
            continue
        fi, fd = _fields(info), _fields(dsg)
        plist = []
        if fi.get("params", "NULL") != "NULL":
            for pm in re.finditer(r"MCS_BENCH_PARAM(_BELOW)?\(\s*\"(\w+)\"\s*,\s*(\w+)\s*,"
                                  r"\s*(\w+)\s*,\s*(\w+)(?:\s*,\s*\"(\w+)\")?",
                                  params.get(fi["params"], "")):
                plist.append({"name": pm.group(2), "min": num(pm.group(3)), "max": num(pm.group(4)),
                              "default": uints.get(pm.group(5), num(pm.group(3))),
                              "below": pm.group(6) if pm.group(1) else None})
        # the kinds the mode fills: its own list, else its design's
        klist = fi.get("kinds") or fd.get("kinds", "")
        stocks_of = [kinds[k] for k in kind_lists.get(klist, []) if k in kinds]
        flags = fi.get("flags", "0")
        per_cpu = num(fd.get("memcgs_per_cpu", "0"))
        modes.append({
            "mode": name, "id": i, "design": _string_expr(fd["name"], macros),
            "group": _string_expr(fi["group"], macros) if "group" in fi else None,
            "abbr": _string_expr(fi["abbr"], macros), "control": "MCS_MODE_CONTROL" in flags,
            "batches": fd.get("batches") == "true",
            "memcgs_per_cpu": per_cpu, "refills": bool(per_cpu) and "MCS_MODE_NO_REFILL" not in flags,
            "stocks": stocks_of, "params": plist,
            "settings": parse_settings(_string_expr(fi["settings"], macros)
                                       if fi.get("settings", "NULL") != "NULL" else None),
            "layout": parse_layout(_string_expr(fi["layout"], macros)
                                   if fi.get("layout", "NULL") != "NULL" else None),
            "cycles": parse_cycles(_string_expr(fi["cycles"], macros)),
        })
    if missing:
        raise ValueError("; ".join(missing))
    return modes


def load(path=None):
    """Every mode, table order: from a saved "modes" file if @path exists, else the source."""
    if path and os.path.exists(path):
        return load_file(path)
    return load_source()


# ---- what the reports derive ------------------------------------------------------

def names(modes):
    return [m["mode"] for m in modes]


def groups(modes):
    """The report's bands: the groups in order of first appearance, each its modes."""
    out = {}
    for m in modes:
        if m["group"]:
            out.setdefault(m["group"], []).append(m["mode"])
    return [tuple(v) for v in out.values()]


def side(modes):
    """The side-by-side table: the modes of a group that are not controls."""
    return tuple(m["mode"] for m in modes if m["group"] and not m["control"])


def batching(modes):
    """The batch sweep: the side-by-side modes with a page stock."""
    return tuple(m["mode"] for m in modes if m["group"] and not m["control"] and m["memcgs_per_cpu"])


def abbr(modes):
    return {m["mode"]: m["abbr"] for m in modes}


def uses(mode_meta, workload, rt=False):
    """The cycle model's primitive uses of a workload ("pages", "bytes-shared" ...)."""
    c = mode_meta["cycles"]
    base = workload.replace("-shared", "")
    keys = [workload + "@rt", workload, base + "@rt", base] if rt else [workload, base]
    for key in keys:
        if key in c:
            return dict(c[key])
    return {}


# The kernel's own stock, by series: upstream split the stocks in 6.16.
# Before, its stock has the shape of mode "coupled"; from 6.16 that of
# "decoupled", whose obj stock exactly as the kernel has it is mode
# "decoupled-7.3"'s (the same design, stocks/design_decoupled73.h).
KERNEL_SPLIT = (6, 16)
KERNEL_MODELS = ("coupled", "decoupled", "decoupled-7.3")


def kernel_model(series, obj_as_kernel=False):
    """The mode shaped like the stock of a kernel of @series, (major, minor):
    with @obj_as_kernel, from 6.16 the one whose obj stock is the kernel's."""
    if series < KERNEL_SPLIT:
        return KERNEL_MODELS[0]
    return KERNEL_MODELS[2 if obj_as_kernel else 1]


def profile_jobs(modes):
    """bench-profile's default jobs: the floor; the pages of every side-by-side
    mode; the bytes of every mode (controls left out) with a byte stock of its
    own (a cycle model for bytes that is not "none"'s, the objcg's atomic
    leftover), and of "none" as their control; the exported entry of
    "decoupled"; the kernel's own obj and page stock pairs."""
    by_name = {m["mode"]: m for m in modes}
    base = uses(by_name["none"], "bytes") if "none" in by_name else None
    jobs = ["workload=floor"]
    jobs += [f"mode={m} workload=pages" for m in side(modes)]
    jobs += [f"mode={m['mode']} workload=bytes" for m in modes
             if not m["control"] and (m["mode"] == "none" or uses(m, "bytes") != base)]
    if "decoupled" in by_name:
        jobs += ["mode=decoupled workload=pages entry=exported",
                 "mode=decoupled workload=bytes entry=exported"]
    return jobs + ["kernel pair=obj", "kernel pair=skmem"]


def main(argv):
    cmd = argv[1] if len(argv) > 1 else "names"
    path = argv[2] if len(argv) > 2 else None
    try:
        modes = load(path)
    except (ValueError, KeyError, OSError) as e:
        print(f"designs.py: {e}", file=sys.stderr)
        return 1
    if cmd == "names":
        print("\n".join(names(modes)))
    elif cmd == "side":
        print("\n".join(side(modes)))
    elif cmd == "settings":
        for lbl, mode, setting in variants(modes, names(modes)):
            if setting:
                print(" ".join([f"mode={mode}"] + [f"{n}={v}" for n, v in setting.items()]))
    elif cmd == "batching":
        print("\n".join(batching(modes)))
    elif cmd in ("grouped", "ungrouped"):
        print("\n".join(m["mode"] for m in modes if bool(m["group"]) == (cmd == "grouped")))
    elif cmd == "kernel-models":
        # the modes that model a kernel before the split and after it, obj stock as the kernel's
        print(" ".join(dict.fromkeys(kernel_model(v, True) for v in ((6, 12), KERNEL_SPLIT))))
    elif cmd == "profile-jobs":
        print(";".join(profile_jobs(modes)))
    elif cmd == "check":
        errors = check_params(modes)
        if errors:
            print("designs.py: " + "; ".join(errors), file=sys.stderr)
            return 1
        missing = [m for m in KERNEL_MODELS if m not in names(modes)]
        if missing:
            print(f"designs.py: KERNEL_MODELS names modes the table lacks: {missing}", file=sys.stderr)
            return 1
        print(f"designs.py: {len(modes)} modes: {' '.join(names(modes))}")
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
