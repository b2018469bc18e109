#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""stock-part.py KERNEL=RELEASE=PROFILE...: the page stock calibrated on the
kernel's stock alone (scripts/bench/stock-part.sh, `make stock-part`).

Each PROFILE is the output of bench-profile.py for one kernel, with the jobs
"mode=coupled workload=pages", "mode=decoupled workload=pages" and "kernel
pair=skmem".  The kernel's socket page pair is split by function into
  stock     the take, the refill, the page counter and the stock's lock
            (STOCK below; on PREEMPT_RT the local_lock is a per-CPU
            spinlock: migrate_disable(), rt_spin_lock(), RCU read side),
  vmstat    the two socket-memory statistic updates (VMSTAT),
  socket    the socket wrappers (SOCKET),
  loop      the harness's loop around the pair (kernel_cost's kc_*() and
            the retpoline thunks of its calls through pointers),
  other     anything else (background work that ran during the interval);
and the page pair of the design that models the kernel (coupled before
6.16, decoupled from 6.16: the kernels' own stock layouts) into its entry
functions and the kernel functions they call (its stock part, by the same
STOCK rule), the bench loop and other.  ratio = model / kernel stock part;
'*' marks a ratio more than 15 % from 1.  Then each side's stock functions.

As a module (docs-check.py): parse(text) reads one profile, split() sorts
one job's functions, table_rows(block) reads the printed table back.
"""
import os
import re
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import designs  # noqa: E402  (kernel_model(): the design shaped like a kernel's stock)

GAP = 0.15
STOCK = re.compile(r"try_charge|consume_stock|refill_stock|drain_stock|page_counter|trylock_stock"
                   r"|memcg_stock|migrate_(disable|enable)|rt_spin|rt_mutex|rcu_read_(un)?lock"
                   r"|local_lock|uncharge_memcg|memcg_uncharge|charge_memcg")
VMSTAT = re.compile(r"mod_memcg|rstat_updated|mod_lruvec|count_memcg|memcg_state_val")
SOCKET = re.compile(r"^mem_cgroup_(un)?charge_skmem$|^mem_cgroup_sk_(un)?charge$")
LOOP = re.compile(r"^kc_|^bench_(load|op)_|^__x86_indirect_thunk")
PARTS = ("stock", "vmstat", "socket", "loop", "other")


def parse(text):
    """{job: {function: insns per pair}} of one bench-profile output."""
    jobs, cur = {}, None
    for line in text.splitlines():
        m = re.match(r"^== (.*?): [-0-9.]+ instructions per pair", line)
        if m:
            cur = jobs.setdefault(m.group(1), {})
            continue
        if not line.strip():
            cur = None
            continue
        m = re.match(r"^\s*(-?[0-9]+\.[0-9])\s+-?[0-9.]+%\s+(.+)$", line)
        if cur is not None and m:
            cur[m.group(2)] = float(m.group(1))
    return jobs


def part(fn):
    """The part of the pair that function @fn ("name [module]") is."""
    name = fn.split(" ")[0]
    if name.startswith("("):
        return "other"          # the profile's sum of functions under 0.05
    if LOOP.search(name):
        return "loop"
    if SOCKET.search(name):
        return "socket"
    if VMSTAT.search(name):
        return "vmstat"
    if STOCK.search(name) or fn.endswith("[memcg_stock]"):
        return "stock"
    return "other"


def split(funcs):
    """{part: insns} and the stock functions, largest first, of one job."""
    parts = dict.fromkeys(PARTS, 0.0)
    stock = []
    for fn, v in funcs.items():
        p = part(fn)
        parts[p] += v
        if p == "stock" and v >= 0.5:
            stock.append((v, fn.replace(" [memcg_stock]", "")))
    return parts, sorted(stock, reverse=True)


def series(release):
    m = re.match(r"^(\d+)\.(\d+)", release)
    return (int(m.group(1)), int(m.group(2))) if m else None




HEAD = ("kernel            release  model     | kernel: pair   stock  vmstat  socket  loop  other |"
        "  model  ratio")


def table_rows(block):
    """(kernel, stock part, model, ratio) of each row of a printed table."""
    out = []
    for line in block.splitlines():
        m = re.match(r"^(\S+)\s+\S+\s+(\S+)\s+\|\s+[0-9.]+\s+([0-9.]+)(?:\s+-?[0-9.]+){4}\s+\|"
                     r"\s+([0-9.]+)\s+([0-9.]+)", line)
        if m:
            out.append((m.group(1), float(m.group(3)), float(m.group(4)), float(m.group(5))))
    return out


def main(argv):
    if not argv:
        sys.exit("usage: stock-part.py KERNEL=RELEASE=PROFILE...")
    rows, notes = [], []
    for arg in argv:
        try:
            kernel, release, path = arg.split("=", 2)
        except ValueError:
            sys.exit("stock-part: '%s': expected KERNEL=RELEASE=PROFILE" % arg)
        ser = series(release)
        if not ser:
            sys.exit("stock-part: %s: release '%s' has no version" % (kernel, release))
        try:
            with open(path) as f:
                jobs = parse(f.read())
        except OSError as e:
            sys.exit("stock-part: %s" % e)
        model = designs.kernel_model(ser)
        want = ("kernel pair=skmem", "mode=%s workload=pages" % model)
        missing = [j for j in want if j not in jobs]
        if missing:
            sys.exit("stock-part: %s: no job %s in %s" % (kernel, ", ".join(missing), path))
        kp, kstock = split(jobs[want[0]])
        mp, mstock = split(jobs[want[1]])
        if kp["stock"] <= 0:
            sys.exit("stock-part: %s: the kernel's pair has no stock function: %s" % (
                kernel, ", ".join(jobs[want[0]])))
        ratio = mp["stock"] / kp["stock"]
        flag = "*" if abs(ratio - 1) > GAP else " "
        rows.append("%-17s %-8s %-9s | %12.1f %7.1f %7.1f %7.1f %5.1f %6.1f | %6.1f %5.2f%s" % (
            kernel, "%d.%d" % ser, model, sum(kp.values()), kp["stock"], kp["vmstat"],
            kp["socket"], kp["loop"], kp["other"], mp["stock"], ratio, flag))
        notes.append("%s, kernel stock: %s" % (kernel, ", ".join("%s %.0f" % (n, v) for v, n in kstock)))
        notes.append("%s, %s: %s" % (kernel, model, ", ".join("%s %.0f" % (n, v) for v, n in mstock)))
    print("Page stock against the kernel's stock part (make stock-part: make bench-profile per kernel, "
          "qemu -icount")
    print("shift=0, instructions per pair): the kernel's socket page pair split by function, beside the "
          "page pair of")
    print("the design shaped like its stock (coupled before 6.16, decoupled from 6.16), its entry "
          "functions and what")
    print("they call, the bench loop left out; ratio = model / kernel stock; *: more than 15 % from 1")
    print(HEAD)
    for r in rows:
        print(r)
    print("The stock functions of each side, instructions per pair:")
    for n in notes:
        print(textwrap.fill(n, 118, initial_indent="  ", subsequent_indent="      "))


if __name__ == "__main__":
    main(sys.argv[1:])
