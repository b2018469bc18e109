#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench-profile.py DIR BLOCKS: the tables of scripts/bench/bench-profile.sh.

DIR holds blocks.txt (the tbcount plugin's intervals), console.log (the
MCS-PROFILE result lines and the guest's text symbols) and jobs.txt.  Run r
of the guest (two per job: PROFILE_MS, then twice that) is interval 2r+1 of
blocks.txt.  Per job, the profile of one pair is the difference of the two
runs' block executions, divided by the difference of their operations.

As a module (scripts/bench/replay-kernel.py): read_intervals(), read_console()
and Symbols read the plugin's intervals and the guest's symbols.
"""
import base64
import bisect
import collections
import gzip
import re
import sys


def die(msg):
    sys.exit("bench-profile.py: " + msg)


def read_intervals(path):
    intervals, cur = [], None
    with open(path) as f:
        for line in f:
            if line.startswith("interval "):
                cur = {}
                intervals.append(cur)
                continue
            vaddr, ninsns, nbytes, execs = line.split()
            cur[(int(vaddr, 16), int(ninsns))] = (int(nbytes), int(execs))
    return intervals


def read_console(path):
    results, b64, in_syms = {}, [], False
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line == "MCS-KALLSYMS-BEGIN":
                in_syms = True
            elif line == "MCS-KALLSYMS-END":
                in_syms = False
            elif in_syms:
                b64.append(line.strip())
            elif line.startswith("MCS-PROFILE "):
                _, tag, rest = line.split(" ", 2)
                results[tag] = rest
    if not b64:
        die("no symbols in the console log")
    syms = []
    for line in gzip.decompress(base64.b64decode("".join(b64))).decode().splitlines():
        f = line.split()
        if len(f) < 3:
            continue
        name = f[2] + (" " + f[3] if len(f) > 3 else "")
        syms.append((int(f[0], 16), name))
    syms.sort()
    return results, syms


def kv(line, key):
    m = re.search(r"(?:^| )%s=(\S+)" % key, line)
    return m.group(1) if m else None


class Symbols:
    def __init__(self, syms):
        self.addr = [a for a, _ in syms]
        self.name = [n for _, n in syms]

    def resolve(self, vaddr):
        if vaddr < 0x800000000000:
            return "[user]", 0
        i = bisect.bisect_right(self.addr, vaddr) - 1
        if i < 0:
            return "[unknown]", vaddr
        return self.name[i], vaddr - self.addr[i]

    def end(self, start):
        """The address of the first symbol above @start."""
        i = bisect.bisect_right(self.addr, start)
        return self.addr[i] if i < len(self.addr) else start + 4096


# The exported entry points: a switch on the mode, then a tail jump to the
# mode's own entry functions (jobs with entry=exported only).
ENTRY_FUNCTIONS = {"mcs_charge_pages", "mcs_uncharge_pages", "mcs_obj_charge", "mcs_obj_uncharge"}


def outside_stock(name):
    """True for the instructions between the loop and a mode's entry functions:
    the harness's loop and pair functions (bench_load_<mode>, bench_op_<mode>),
    and the exported entry points."""
    return name.startswith("bench_") or name in ENTRY_FUNCTIONS


def print_dispatch(dispatch, floor):
    """The dispatch per job, and its spread between the designs."""
    print("== dispatch per design: instructions per pair outside the mode's entry functions"
          " (the harness's loop and pair, the exported entry points)")
    for job, insns in dispatch:
        print("%10.1f  %s%s" % (insns, job, "" if floor is None else
                                "  (floor %.1f, call and return %.1f)" % (floor, insns - floor)))
    direct = [i for j, i in dispatch if "entry=exported" not in j]
    if direct:
        print("%10.1f  spread (largest - smallest) with entry=mode: every mode's loop and pair"
              " come from one template and call the mode's entry functions directly"
              % (max(direct) - min(direct)))
    print()


def print_switch(totals):
    """What the exported entry points' switch adds, where a job ran both ways."""
    rows = []
    for job, insns in totals.items():
        if "entry=exported" not in job:
            continue
        base = " ".join(w for w in job.split() if w != "entry=exported")
        if base in totals:
            rows.append((job, insns - totals[base]))
    if not rows:
        return
    print("== the exported entry points' switch on the mode: entry=exported minus entry=mode,"
          " instructions per pair")
    for job, insns in rows:
        print("%10.1f  %s" % (insns, job))
    print()


def main():
    if len(sys.argv) != 3:
        die("usage: bench-profile.py DIR BLOCKS")
    d, nblocks = sys.argv[1], int(sys.argv[2])
    intervals = read_intervals(d + "/blocks.txt")
    results, syms = read_console(d + "/console.log")
    sym = Symbols(syms)
    jobs = [j.strip() for j in open(d + "/jobs.txt") if j.strip()]
    dispatch, totals, floor = [], {}, None
    for n, job in enumerate(jobs):
        r1, r2 = results.get("%d.1" % n), results.get("%d.2" % n)
        if not r1 or not r2 or "verdict=PASS" not in r1 or "verdict=PASS" not in r2:
            die("job '%s' did not pass: %s / %s" % (job, r1, r2))
        i1, i2 = 4 * n + 1, 4 * n + 3
        if i2 >= len(intervals):
            die("blocks.txt has %d intervals, job %d needs %d" % (len(intervals), n, i2 + 1))
        ops = int(kv(r2, "ops")) - int(kv(r1, "ops"))
        if ops <= 0:
            die("job '%s': the longer run did no more operations" % job)
        a, b = intervals[i1], intervals[i2]
        per_fn = collections.Counter()
        per_block = []
        for key in set(a) | set(b):
            nbytes = (b.get(key) or a.get(key))[0]
            execs = b.get(key, (0, 0))[1] - a.get(key, (0, 0))[1]
            if not execs:
                continue
            name, off = sym.resolve(key[0])
            insns = key[1] * execs / ops
            per_fn[name] += insns
            per_block.append((insns, name, off, nbytes, key[1], execs / ops))
        total = sum(per_fn.values())
        if job.startswith("kernel "):
            print("== %s: %.1f instructions per pair (the kernel's own pair, debugfs kernel_cost;"
                  " kc_*_time is the loop calling it through pointers)" % (job, total))
        else:
            print("== %s: %.1f instructions per pair (bench: ns_per_op=%s, %s)"
                  % (job, total, kv(r2, "ns_per_op"), "; ".join(
                      "%s=%s" % (k, kv(r2, k)) for k in ("hits", "misses", "trylock_fail"))))
        print("%10s %6s  %s" % ("insns/pair", "share", "function"))
        shown = 0.0
        for name, insns in per_fn.most_common():
            if insns < 0.05:
                break
            shown += insns
            print("%10.1f %5.1f%%  %s" % (insns, 100 * insns / total, name))
        if abs(total - shown) >= 0.05:
            print("%10.1f %5.1f%%  (rest, under 0.05 each)" % (total - shown, 100 * (total - shown) / total))
        totals[job] = total
        if "workload=floor" in job:
            floor = total
        elif job.startswith("kernel "):
            pass
        else:
            insns = sum(v for k, v in per_fn.items() if outside_stock(k.split(" ")[0]))
            dispatch.append((job, insns))
            print("%10.1f %6s  outside the mode's entry functions (harness loop and pair,"
                  " exported entry points)" % (insns, ""))
        if nblocks:
            per_block.sort(reverse=True)
            print("%10s %9s %6s  %s" % ("insns/pair", "execs/pair", "insns", "block"))
            for insns, name, off, nbytes, n_insns, execs in per_block[:nblocks]:
                print("%10.1f %9.2f %6d  %s+0x%x..0x%x" % (insns, execs, n_insns, name, off, off + nbytes))
        print()
    if dispatch:
        print_dispatch(dispatch, floor)
    print_switch(totals)


if __name__ == "__main__":
    main()
