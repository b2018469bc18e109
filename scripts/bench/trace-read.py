#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""trace-read.py TRACE [--check | --cpus]: summary of a memcg_stock charge-stream trace.

The layout is docs/trace-format.md's (harness/trace_format.h).  Prints the
header (how the trace was recorded), then events per kind, per context,
per source and per memcg, a histogram of charge sizes, and the share of
uncharges that free on another CPU than their charge.

Cross-CPU frees: charges and uncharges are matched per memcg and unit
(pages, bytes) first in, first out: each charge enters its memcg's queue
with its CPU and amount, each uncharge takes its amount from the head of
the queue, and the part taken from charges made on another CPU is
cross-CPU.  The opening balance (charges made before the recording) has
no CPU: what an uncharge takes of it is counted apart ("before").

--check: exit 1 unless the trace is well formed (the checks of the
module's loader that need no machine: sizes, table order, kinds, flags,
amounts, sequences, balances).

--cpus: print the number of CPUs a machine needs online to load the trace
(its highest event CPU, plus one).

bench-report.py imports load(), cpus_used() and cross_frees().
"""
import lzma
import struct
import sys
from collections import Counter, defaultdict, deque

MAGIC = b"MCSTRACE"
HEADER = struct.Struct("<8s8I4Q64s32s192s")
MEMCG = struct.Struct("<QIIIIQ32s")
EVENT = struct.Struct("<QIHBBII")
KINDS = ["page-charge", "page-refused", "page-uncharge",
         "byte-charge", "byte-refused", "byte-uncharge"]
CTXS = ["task", "softirq", "hardirq", "nmi"]
SOURCES = ["folio", "kmem", "sock", "obj", "other"]
NO_PARENT = 0xFFFFFFFF
MAX_PAGES, MAX_BYTES = 512, 1 << 20


def cstr(b):
    return b.split(b"\0", 1)[0].decode("ascii", "replace")


def load(path):
    # a trace compressed with xz (the bench traces in the tree) reads as is
    data = (lzma.open if path.endswith(".xz") else open)(path, "rb").read()
    if len(data) < HEADER.size:
        raise ValueError(f"truncated: {len(data)} bytes, the header alone is {HEADER.size}")
    f = HEADER.unpack_from(data)
    h = dict(zip(["magic", "version", "header_size", "memcg_size", "event_size",
                  "nr_cpus", "nr_memcgs", "nr_events", "page_size", "lost",
                  "skipped_nmi", "missed", "duration_ns"], f[:13]))
    h["release"], h["workload"], h["note"] = cstr(f[13]), cstr(f[14]), cstr(f[15])
    if h["magic"] != MAGIC:
        raise ValueError("bad magic")
    if h["version"] != 1:
        raise ValueError(f"version {h['version']}, this reader knows 1")
    if (h["header_size"], h["memcg_size"], h["event_size"]) != (HEADER.size, MEMCG.size, EVENT.size):
        raise ValueError("part sizes differ from this reader's")
    want = HEADER.size + h["nr_memcgs"] * MEMCG.size + h["nr_events"] * EVENT.size
    if len(data) != want:
        raise ValueError(f"{len(data)} bytes, the header says {want}")
    off = HEADER.size
    memcgs = []
    for i in range(h["nr_memcgs"]):
        cid, parent, depth, open_pages, _res, open_bytes, name = MEMCG.unpack_from(data, off)
        memcgs.append(dict(id=cid, parent=parent, depth=depth, open_pages=open_pages,
                           open_bytes=open_bytes, name=cstr(name)))
        off += MEMCG.size
    events = [EVENT.unpack_from(data, off + i * EVENT.size) for i in range(h["nr_events"])]
    return h, memcgs, events


def check(h, memcgs, events):
    """The loader's machine-independent checks; returns a list of problems."""
    bad = []
    for i, m in enumerate(memcgs):
        p = m["parent"]
        depth = 1 if p == NO_PARENT else (memcgs[p]["depth"] + 1 if p < i else 0)
        if not depth or m["depth"] != depth:
            bad.append(f"memcg {i}: parent {p}, depth {m['depth']}")
    seq = {}
    bal = {}
    for i, (ts, sq, cpu, kind, flags, memcg, amount) in enumerate(events):
        if kind >= len(KINDS) or flags & ~0x77 or flags & 3 == 3 or (flags >> 4) >= len(SOURCES):
            bad.append(f"event {i}: kind {kind} flags {flags:#x}")
            continue
        if memcg >= len(memcgs) or cpu >= h["nr_cpus"]:
            bad.append(f"event {i}: memcg {memcg} cpu {cpu}")
            continue
        if not 1 <= amount <= (MAX_PAGES if kind < 3 else MAX_BYTES):
            bad.append(f"event {i}: amount {amount}")
        if sq <= seq.get(cpu, -1):
            bad.append(f"event {i}: CPU {cpu} sequence {sq}")
        seq[cpu] = sq
        unit = kind >= 3
        key = (memcg, unit)
        if key not in bal:
            bal[key] = memcgs[memcg]["open_bytes" if unit else "open_pages"]
        if kind in (0, 3):
            bal[key] += amount
        elif kind in (2, 5):
            if bal[key] < amount:
                bad.append(f"event {i}: uncharge of {amount} from memcg {memcg} holding {bal[key]}")
            bal[key] -= amount
    return bad


def hist_bucket(n):
    b = 1
    while b < n:
        b *= 2
    return b


def cpus_used(events):
    """The CPUs a replay of @events needs online: the highest event CPU, plus one."""
    return max((e[2] for e in events), default=0) + 1


def cross_frees(memcgs, events):
    """The uncharges matched to their charges (the module docstring): per
    unit (False: pages, True: bytes), the amounts taken from charges of the
    same CPU, of another CPU and from before the recording, and the
    uncharge events with the number of them that took from another CPU."""
    queues = defaultdict(deque)
    cross = {False: [0, 0, 0], True: [0, 0, 0]}     # same, other CPU, before
    cross_events = {False: [0, 0], True: [0, 0]}    # uncharges, with another CPU's part
    opened = set()
    for ts, sq, cpu, kind, flags, memcg, amount in events:
        unit = kind >= 3
        q = queues[(memcg, unit)]
        if (memcg, unit) not in opened:
            opened.add((memcg, unit))
            first = memcgs[memcg]["open_bytes" if unit else "open_pages"]
            if first:
                q.append([None, first])
        if kind in (0, 3):
            q.append([cpu, amount])
        elif kind in (2, 5):
            left, other = amount, False
            cross_events[unit][0] += 1
            while left and q:
                take = min(left, q[0][1])
                where = 2 if q[0][0] is None else (0 if q[0][0] == cpu else 1)
                other |= where == 1
                cross[unit][where] += take
                q[0][1] -= take
                left -= take
                if not q[0][1]:
                    q.popleft()
            cross_events[unit][1] += other
    return cross, cross_events


def summary(h, memcgs, events):
    print(f"trace: workload={h['workload']} kernel={h['release']} cpus={h['nr_cpus']} "
          f"memcgs={h['nr_memcgs']} events={h['nr_events']} "
          f"duration={h['duration_ns'] / 1e9:.3f}s")
    print(f"  recorded: {h['note']}")
    print(f"  lost={h['lost']} skipped_nmi={h['skipped_nmi']} missed_returns={h['missed']}")
    kinds, ctxs, srcs = Counter(), Counter(), Counter()
    per_memcg = Counter()
    sizes = {0: Counter(), 3: Counter()}
    for ts, sq, cpu, kind, flags, memcg, amount in events:
        kinds[KINDS[kind]] += 1
        ctxs[CTXS[flags & 3]] += 1
        srcs[SOURCES[flags >> 4]] += 1
        per_memcg[memcg] += 1
        if kind in (0, 3):
            sizes[kind][hist_bucket(amount)] += 1
    cross, cross_events = cross_frees(memcgs, events)
    n = max(len(events), 1)
    print("events per kind:   " + "  ".join(f"{k}={kinds[k]}" for k in KINDS))
    print("events per context: " + "  ".join(f"{c}={ctxs[c]} ({100 * ctxs[c] / n:.1f}%)" for c in CTXS))
    print("events per source: " + "  ".join(f"{s}={srcs[s]}" for s in SOURCES))
    print("charge sizes (up to):")
    for kind, unit in ((0, "pages"), (3, "bytes")):
        line = "  ".join(f"<={b}:{c}" for b, c in sorted(sizes[kind].items()))
        print(f"  {unit}: {line or '-'}")
    print("cross-CPU frees (per memcg FIFO; 'before' = charged before the recording):")
    for unit, name in ((False, "pages"), (True, "bytes")):
        same, other, before = cross[unit]
        total = max(same + other + before, 1)
        ev, ev_other = cross_events[unit]
        print(f"  {name}: same-cpu={same} other-cpu={other} ({100 * other / total:.1f}%) "
              f"before={before}; uncharge events touching another CPU's charge: "
              f"{ev_other}/{ev} ({100 * ev_other / max(ev, 1):.1f}%)")
    print("memcgs (busiest 12):")
    for memcg, count in per_memcg.most_common(12):
        m = memcgs[memcg]
        chain = []
        p = memcg
        while p != NO_PARENT:
            chain.append(memcgs[p]["name"])
            p = memcgs[p]["parent"]
        print(f"  {'/'.join(reversed(chain))}: id={m['id']} depth={m['depth']} events={count} "
              f"open_pages={m['open_pages']} open_bytes={m['open_bytes']}")


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 1:
        sys.exit(__doc__)
    try:
        h, memcgs, events = load(args[0])
    except (OSError, ValueError, struct.error) as e:
        sys.exit(f"trace-read: {args[0]}: {e}")
    if "--cpus" in sys.argv:
        print(cpus_used(events))
        return
    if "--check" in sys.argv:
        bad = check(h, memcgs, events)
        for b in bad[:20]:
            print(f"trace-read: {b}", file=sys.stderr)
        sys.exit(1 if bad else 0)
    summary(h, memcgs, events)


if __name__ == "__main__":
    main()
