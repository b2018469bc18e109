#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""replay-kernel.py DIR KERNEL...: the replay against the kernel
(scripts/bench/replay-kernel.sh, `make replay-kernel`).

DIR/KERNEL/WORKLOAD.log and DIR/KERNEL/WORKLOAD.blocks come from one boot
of `TRACE_PROFILE=1 make trace` (scripts/bench/trace.sh) each: interval 1 of
the blocks is the workload while the kernel's charge stream was recorded,
intervals 3, 5, ... its replay through each mode of the console's
"MCS-PROFILE replay-MODE" lines, in their order.

Both sides are split by function into the stock part and the rest:
  kernel  the functions of its two stocks (KSTOCK: try_charge_memcg's own
          code, the take, refill and drain of the page stock and of the
          obj stock, the page counter), beside the rest of its charge path
          (CHARGE: memcg statistics, slab hooks, folio and socket wrappers).
          The recorder's own functions (the module's, "[memcg_stock]") and
          the kprobe machinery count in neither.
  replay  the module's functions the design runs per event (everything of
          "[memcg_stock]" but the replay's loop and its watchers, HARNESS).
Per event: instructions / (trace events x the replay's passes).  Hit rate
of the page stock: the kernel's from entry blocks (1 - entries of
page_counter_try_charge / entries of try_charge_memcg), the replay's from
its hits= and misses=.  ratio = replay / kernel; '*' marks a ratio more
than 15 % from 1 or hit rates more than 3 points apart.

As a module (docs-check.py): table_rows(text) reads the printed table back.
"""
import collections
import importlib.util
import os
import re
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import designs  # noqa: E402  (kernel_model(): the design shaped like a kernel's stock)
# bench-profile.py: read_intervals(), read_console(), Symbols and kv()
bp = importlib.util.module_from_spec(importlib.util.spec_from_file_location(
    "bench_profile", os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench-profile.py")))
bp.__spec__.loader.exec_module(bp)
kv = bp.kv

GAP, HIT_GAP = 0.15, 3.0
# the charge path's stock functions (kernel side), names without .isra etc.
KSTOCK = re.compile(r"^(try_charge_memcg|memcg_uncharge|(mem_cgroup_)?cancel_charge"
                    r"|page_counter_\w+|(__)?obj_cgroup_(un)?charge(_pages|_account)?"
                    r"|(__)?(consume|refill|drain)_(obj_)?stock|drain_local_\w*stock|drain_all_stock"
                    r"|\w*trylock_stock\w*|memcg_hotplug_cpu_dead)$")
CHARGE = re.compile(r"memcg|mem_cgroup|objcg|obj_cgroup|obj_stock|page_counter")
# the replay's own loop, its watchers and samplers (module side)
HARNESS = re.compile(r"^(mcs_)?replay|_walk$|holds$|^mcs_memcg_(usage|stat|put|get|alloc|free)"
                     r"|^drain_all_sync|^mcs_stock_slots|^mcs_input|^mcs_trace|^trace_")
PAGE_TAKE, PAGE_MISS = "try_charge_memcg", "page_counter_try_charge"
# the designs that model a kernel before the split of the stocks and after it
OLD, NEW = designs.kernel_model((0, 0)), designs.kernel_model(designs.KERNEL_SPLIT, True)


def die(msg):
    sys.exit("replay-kernel: " + msg)


def base(name):
    """A symbol's name without its module and compiler suffixes."""
    return name.split(" ")[0].split(".")[0]


def kernel_part(name):
    if name.endswith("]"):
        return "recorder"          # the module's functions: the recorder
    b = base(name)
    if KSTOCK.match(b) and b not in ("__account_obj_stock",):
        return "stock"
    if CHARGE.search(b):
        return "charge"
    return "other"


def replay_part(name):
    if not name.endswith("[memcg_stock]"):
        return "stock" if KSTOCK.match(base(name)) else "other"
    return "loop" if HARNESS.search(base(name)) else "stock"


class Inlines:
    """Which of the kernel's instructions are its stocks', inlined or not,
    from the kernel's debug image (Debian's linux-image-RELEASE-dbg): each
    instruction of a charge-path function is attributed to the outermost
    frame of its inline chain (addr2line -i) that is a stock function, so
    that a take inlined into a slab hook counts as the stock."""

    def __init__(self, vmlinux):
        self.vmlinux = vmlinux
        link = self._run(["nm", vmlinux], None)
        text = [int(line.split()[0], 16) for line in link.splitlines() if line.endswith(" _text")]
        if not text:
            die("%s: no _text symbol: not a kernel image" % vmlinux)
        self.text, self.slide, self.cache = text[0], 0, {}

    def boot(self, syms):
        """Take one boot's symbols: its KASLR offset."""
        run = [a for a, n in syms if n == "_text"]
        if not run:
            die("the guest's symbols have no _text")
        self.slide = run[0] - self.text
        return self

    def _run(self, cmd, stdin):
        import subprocess
        try:
            return subprocess.run(cmd, input=stdin, capture_output=True, text=True, check=True).stdout
        except (OSError, subprocess.CalledProcessError) as e:
            die("%s: %s" % (" ".join(cmd[:2]), e))

    def function(self, name, start, end):
        """[(runtime address, stock frame or None)] of each instruction of
        the function at runtime [start, end)."""
        lo, hi = start - self.slide, end - self.slide
        if lo not in self.cache:
            self.cache[lo] = self._disassemble(lo, hi)
        return [(a + self.slide, st) for a, st in self.cache[lo]]

    def _disassemble(self, lo, hi):
        """[(link address, stock frame or None)] of each instruction in [lo, hi)."""
        dis = self._run(["objdump", "-d", "--no-show-raw-insn", "--start-address=0x%x" % lo,
                         "--stop-address=0x%x" % hi, self.vmlinux], None)
        addrs = [int(m.group(1), 16) for m in re.finditer(r"^\s*([0-9a-f]+):\s", dis, re.M)]
        frames = {}
        if addrs:
            out = self._run(["addr2line", "-a", "-i", "-f", "-e", self.vmlinux],
                            "".join("0x%x\n" % a for a in addrs))
            cur, k = None, 0
            for line in out.splitlines():
                if re.match(r"^0x[0-9a-f]+$", line):
                    cur, k = int(line, 16), 0
                    frames[cur] = []
                elif cur is not None:
                    if k % 2 == 0:      # a frame's function, then its file:line
                        frames[cur].append(line)
                    k += 1
        res = []
        for a in addrs:
            chain = frames.get(a, [])
            stock = None
            for f in chain:             # innermost first: keep the outermost
                b = base(f)
                if KSTOCK.match(b) and b != "__account_obj_stock":
                    stock = b
            res.append((a, stock))
        return res


class FunctionLevel:
    """Attribution by function alone (no debug image): the selftest's."""

    def function(self, name, start, end):
        b = base(name)
        return [(start, b if KSTOCK.match(b) else None)]


def kernel_stock(interval, sym, inl):
    """{stock frame: instructions}, {stock frame: calls} and {part: instructions}
    of the kernel's side: instructions of the module (the recorder) in
    "recorder", of a stock frame in "stock", the rest of the charge path
    in "charge", all else in "other"."""
    stock, calls, parts = collections.Counter(), collections.Counter(), collections.Counter()
    for (vaddr, ninsns), (nbytes, execs) in interval.items():
        name, off = sym.resolve(vaddr)
        p = kernel_part(name)
        if p in ("recorder", "other"):
            parts[p] += ninsns * execs
            continue
        start = vaddr - off
        insns = inl.function(name, start, sym.end(start))
        inside = [st for a, st in insns if vaddr <= a < vaddr + max(nbytes, 1)] or \
            [st for a, st in insns if a <= vaddr][-1:] or [None]
        for st in set(inside):
            share = ninsns * execs * inside.count(st) / len(inside)
            if st:
                key = st if st == base(name) else "%s (in %s)" % (st, base(name))
                stock[key] += share
                parts["stock"] += share
            else:
                parts["charge"] += share
        if off == 0 and KSTOCK.match(base(name)):
            calls[base(name)] += execs
    return stock, calls, parts


def per_function(interval, sym):
    """{function: instructions} and {function: calls} (executions of the
    blocks that start at its first byte) of one interval."""
    fn, calls = collections.Counter(), collections.Counter()
    for (vaddr, ninsns), (_, execs) in interval.items():
        name, off = sym.resolve(vaddr)
        fn[name] += ninsns * execs
        if off == 0:
            calls[name] += execs
    return fn, calls


def entries(interval, addrs):
    """Executions of the blocks that start at one of @addrs."""
    return sum(execs for (vaddr, _), (_, execs) in interval.items() if vaddr in addrs)


def split(fn, calls, part_of):
    """{part: instructions}, and the stock functions, largest first, each
    as (instructions, name, instructions per call or None)."""
    parts, stock = collections.Counter(), []
    for name, insns in fn.items():
        p = part_of(name)
        parts[p] += insns
        if p == "stock":
            stock.append((insns, name.replace(" [memcg_stock]", ""),
                          insns / calls[name] if calls[name] else None))
    return parts, sorted(stock, reverse=True)


def analyse(intervals, results, syms, sym, inl):
    """One boot: the kernel's side and each replayed mode's."""
    wl = results.get("workload")
    if not wl or kv(wl, "events") is None:
        die("no recording status (MCS-PROFILE workload) in the console log")
    events = int(kv(wl, "events"))
    if events <= 0 or kv(wl, "lost") != "0":
        die("the recording has %s events, %s lost" % (kv(wl, "events"), kv(wl, "lost")))
    addrs = collections.defaultdict(set)
    for a, n in syms:
        addrs[n].add(a)
    missing = [f for f in (PAGE_TAKE, PAGE_MISS) if f not in addrs]
    if missing:
        die("the kernel has no %s: its page stock cannot be profiled" % ", ".join(missing))
    if len(intervals) < 2:
        die("the blocks have %d intervals, the workload is interval 1" % len(intervals))
    kfn, kcalls, kparts = kernel_stock(intervals[1], sym, inl)
    kstock = sorted(((v, n, v / kcalls[n] if kcalls[n] else None) for n, v in kfn.items()), reverse=True)
    takes = entries(intervals[1], addrs[PAGE_TAKE])
    misses = entries(intervals[1], addrs[PAGE_MISS])
    if not takes or not kparts["stock"]:
        die("the kernel ran no %s while the workload ran" % PAGE_TAKE)
    out = {"events": events, "kernel": kparts["stock"] / events,
           "kernel_charge": kparts["charge"] / events,
           "kernel_hit": 100.0 * (1 - min(misses, takes) / takes),
           "kernel_funcs": [(v / events, n, c) for v, n, c in kstock], "replays": {}}
    modes = [k[len("replay-"):] for k in results if k.startswith("replay-")]
    for i, mode in enumerate(modes):
        line = results["replay-" + mode]
        idx = 3 + 2 * i
        if "verdict=PASS" not in line:
            die("the replay through %s did not pass: %s" % (mode, line))
        if idx >= len(intervals):
            die("the blocks have %d intervals, the replay through %s is interval %d"
                % (len(intervals), mode, idx))
        if int(kv(line, "events")) != events:
            die("the replay through %s has %s events, the recording %d" % (mode, kv(line, "events"), events))
        n = events * int(kv(line, "passes"))
        rparts, rstock = split(*per_function(intervals[idx], sym), replay_part)
        hits, miss = int(kv(line, "hits")), int(kv(line, "misses"))
        out["replays"][mode] = {"stock": rparts["stock"] / n, "loop": rparts["loop"] / n,
                                "hit": 100.0 * hits / max(hits + miss, 1),
                                "funcs": [(v / n, f, c) for v, f, c in rstock]}
    return out


def read_row(d, kernel, workload, images):
    log, blocks = os.path.join(d, kernel, workload + ".log"), os.path.join(d, kernel, workload + ".blocks")
    for p in (log, blocks):
        if not os.path.isfile(p):
            die("%s: no such file (run the recording first)" % p)
    results, syms = bp.read_console(log)
    release = None
    with open(log, errors="replace") as f:
        m = re.search(r"Linux version (\S+)", f.read())
        release = m.group(1) if m else None
    if not release:
        die("%s: no kernel release in the console log" % log)
    vmlinux = os.path.join(d, kernel, "vmlinux")
    if kernel not in images:
        if not os.path.exists(vmlinux):
            die("%s: no debug image of the kernel (replay-kernel.sh links Debian's "
                "linux-image-RELEASE-dbg vmlinux there)" % vmlinux)
        images[kernel] = Inlines(vmlinux)
    row = analyse(bp.read_intervals(blocks), results, syms, bp.Symbols(syms), images[kernel].boot(syms))
    row["release"] = release
    row["model"] = designs.kernel_model(tuple(int(v) for v in release.split(".")[:2]), True)
    if row["model"] not in row["replays"]:
        die("%s: the recording was not replayed through %s, the design that models %s"
            % (log, row["model"], release))
    return row


HEAD = ("workload        kernel    events | kernel: stock/ev  hit%  rest/ev | model          stock/ev"
        "  hit% | ratio")


def series(release):
    """"6.12" or "6.12-rt" of a release such as 6.12.118+deb12-rt-amd64."""
    return ".".join(release.split(".")[:2]) + ("-rt" if "-rt-" in release else "")


def flag(ratio, dhit):
    return "*" if abs(ratio - 1) > GAP or abs(dhit) > HIT_GAP else " "


def format_rows(rows):
    """The table, the A/B per workload and the functions of each side."""
    out = ["Replay against the kernel (make replay-kernel: each workload recorded under qemu -icount "
           "shift=0 with the",
           "tbcount plugin, the trace replayed in the same boot): the kernel's stock part per "
           "recorded event (its",
           "page and obj stocks, the page counter, try_charge_memcg) and its page stock hit rate, "
           "beside the replay",
           "of that recording through the design shaped like the kernel's stock (%s before %d.%d, %s"
           % (OLD, designs.KERNEL_SPLIT[0], designs.KERNEL_SPLIT[1], NEW),
           "from %d.%d); rest/ev = the kernel's other charge-path functions; ratio = replay / kernel;"
           % designs.KERNEL_SPLIT,
           "*: more than 15 % from 1 or hit rates more than 3 points apart", HEAD]
    for (wl, kernel), r in rows.items():
        m = r["replays"][r["model"]]
        ratio = m["stock"] / r["kernel"]
        out.append("%-15s %-8s %7d | %16.1f %5.1f %8.1f | %-14s %8.1f %5.1f | %5.2f%s" % (
            wl, series(r["release"]), r["events"], r["kernel"], r["kernel_hit"],
            r["kernel_charge"], r["model"], m["stock"], m["hit"], ratio,
            flag(ratio, m["hit"] - r["kernel_hit"])))
    ab = []
    for wl in dict.fromkeys(w for w, _ in rows):
        for rt in (False, True):
            mine = [r for (w, _), r in rows.items() if w == wl and series(r["release"]).endswith("-rt") == rt]
            old = [r for r in mine if r["model"] == OLD]
            new = [r for r in mine if r["model"] == NEW]
            if not old or not new:
                continue
            o, n = old[0], new[0]
            ab.append("%-15s %-7s/%-7s %10.2f | %22.2f | %13.2f" % (
                wl, series(n["release"]), series(o["release"]), n["kernel"] / o["kernel"],
                n["replays"][NEW]["stock"] / o["replays"][OLD]["stock"],
                o["replays"].get(NEW, {}).get("stock", 0) / o["replays"][OLD]["stock"]))
    if ab:
        out.append("A/B per workload: the kernel's stock per event, new over old, beside the replays' "
                   "decoupled-7.3 (of the")
        out.append("new kernel's recording) over coupled (of the old one's), and both designs on the "
                   "old kernel's recording")
        out.append("workload        kernels          kernel A/B |  replay, own recordings |  same trace")
        out.extend(ab)
    out.append("The stock functions of each side, instructions per event (per call, where the function "
               "is entered at its start):")

    def funcs(lst):
        return ", ".join("%s %.1f%s" % (n, v, " (%.0f)" % c if c else "") for v, n, c in lst if v >= 0.5)
    for (wl, kernel), r in rows.items():
        k = funcs(r["kernel_funcs"])
        m = funcs(r["replays"][r["model"]]["funcs"])
        for text in ("%s on %s, kernel: %s" % (wl, r["release"], k),
                     "%s on %s, %s: %s" % (wl, r["release"], r["model"], m)):
            out.append(textwrap.fill(text, 118, initial_indent="  ", subsequent_indent="      "))
    return out


ROW = re.compile(r"^(\S+)\s+(\d+\.\d+(?:-rt)?)\s+(\d+) \|\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+) \| (\S+)\s+([0-9.]+)"
                 r"\s+([0-9.]+) \|\s+([0-9.]+)(\*?)$")


def table_rows(text):
    """{(workload, series): {kernel, kernel_hit, model, replay, replay_hit, ratio, flagged}}."""
    rows = {}
    for line in text.splitlines():
        m = ROW.match(line.rstrip())
        if m:
            rows[(m.group(1), m.group(2))] = {
                "events": int(m.group(3)), "kernel": float(m.group(4)), "kernel_hit": float(m.group(5)),
                "model": m.group(7), "replay": float(m.group(8)), "replay_hit": float(m.group(9)),
                "ratio": float(m.group(10)), "flagged": m.group(11) == "*"}
    return rows


AB_ROW = re.compile(r"^(\S+)\s+(\S+)\s*/\s*(\S+)\s+([0-9.]+) \|\s+([0-9.]+) \|\s+([0-9.]+)$")


def ab_rows(text):
    """{(workload, new series): (kernel A/B, replay A/B of own recordings, same trace)}."""
    rows = {}
    for line in text.splitlines():
        m = AB_ROW.match(line.rstrip())
        if m:
            rows[(m.group(1), m.group(2))] = (float(m.group(4)), float(m.group(5)), float(m.group(6)))
    return rows


def selftest():
    """The parsing and the arithmetic on a made-up boot: fails if either drifts."""
    class Sym:
        def __init__(self, syms):
            self.syms = sorted(syms)

        def resolve(self, vaddr):
            best = None
            for a, n in self.syms:
                if a <= vaddr:
                    best = (n, vaddr - a)
            return best

        def end(self, start):
            return min([a for a, _ in self.syms if a > start] or [start + 4096])
    k = 0xffffffff81000000
    syms = [(k, "try_charge_memcg"), (k + 0x100, "page_counter_try_charge"),
            (k + 0x200, "mod_objcg_state"), (k + 0x300, "rec_emit [memcg_stock]"),
            (k + 0x400, "replay_worker_coupled [memcg_stock]"),
            (k + 0x500, "mcs_charge_pages_coupled [memcg_stock]"), (k + 0x600, "schedule")]
    iv = [{}, {(k, 10): (0, 100), (k + 0x20, 5): (0, 40), (k + 0x100, 20): (0, 10),
               (k + 0x200, 7): (0, 100), (k + 0x300, 50): (0, 100), (k + 0x600, 9): (0, 1000)},
          {}, {(k + 0x400, 30): (0, 100), (k + 0x500, 12): (0, 100)}]
    results = {"workload": "record events=100 lost=0",
               "replay-" + OLD: "mode=%s events=100 passes=1 hits=90 misses=10 verdict=PASS" % OLD}
    r = analyse(iv, results, syms, Sym(syms), FunctionLevel())
    # kernel: (10*100 + 5*40 + 20*10) / 100 events; 10 of 100 takes missed
    want = {"kernel": 14.0, "kernel_charge": 7.0, "kernel_hit": 90.0}
    got = {key: r[key] for key in want}
    rep = r["replays"][OLD]
    if got != want or rep["stock"] != 12.0 or rep["loop"] != 30.0 or rep["hit"] != 90.0:
        sys.exit("replay-kernel selftest: got %s, replay %s; want %s, replay 12.0/30.0/90.0"
                 % (got, rep, want))
    r["release"], r["model"] = "6.12.1", OLD
    back = table_rows("\n".join(format_rows({("stress-fork", "deb-amd64"): r})))
    row = back.get(("stress-fork", "6.12"))
    if not row or row["kernel"] != 14.0 or row["replay"] != 12.0 or row["ratio"] != 0.86 or row["flagged"]:
        sys.exit("replay-kernel selftest: the printed table reads back as %s" % back)
    new = dict(r, release="7.3.1", model=NEW, kernel=21.0)
    new["replays"] = {NEW: dict(rep, stock=18.0)}
    ab = ab_rows("\n".join(format_rows({("stress-fork", "deb-amd64"): r, ("stress-fork", "deb-7.x"): new})))
    if ab != {("stress-fork", "7.3"): (1.5, 1.5, 0.0)}:
        sys.exit("replay-kernel selftest: the A/B reads back as %s" % ab)
    print("replay-kernel selftest: ok")


def main(argv):
    if argv == ["--selftest"]:
        selftest()
        return
    if len(argv) < 3:
        sys.exit("usage: replay-kernel.py DIR WORKLOADS KERNEL... | --selftest")
    d, workloads, kernels = argv[0], argv[1].split(), argv[2:]
    rows, images = {}, {}
    for wl in workloads:
        for kernel in kernels:
            rows[(wl, kernel)] = read_row(d, kernel, wl, images)
    print("\n".join(format_rows(rows)))


if __name__ == "__main__":
    main(sys.argv[1:])
