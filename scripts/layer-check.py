#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""layer-check.py LAYERS BUILD_DIR: check the layers of memcg_stock.ko.

Reads the layer table (scripts/layers.txt) and the objects that the
module in BUILD_DIR was linked from (memcg_stock.mod), and fails when an object uses (nm -u) a symbol that
an object of its own layer (unless the layer is "open") or of a higher
layer defines, when an object of the module is in no layer, or when a
layer names a file that was not built.  Prints one line per offending
use: user, symbol, definer.
"""
import os
import subprocess
import sys


def read_layers(path):
    layers = []
    with open(path) as f:
        for line in f:
            words = line.split('#', 1)[0].split()
            if not words:
                continue
            name, rest = words[0], words[1:]
            is_open = bool(rest) and rest[0] == 'open'
            if is_open:
                rest = rest[1:]
            layers.append((name, is_open, rest))
    return layers


def nm(args):
    out = subprocess.run(['nm'] + args, check=True, capture_output=True, text=True).stdout
    return out.splitlines()


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    layers = read_layers(sys.argv[1])
    build = sys.argv[2]
    # the objects the module was linked from (Kbuild's memcg_stock.mod),
    # not whatever .o files an older tree left in the build directory
    with open(os.path.join(build, 'memcg_stock.mod')) as f:
        objs = sorted(os.path.relpath(os.path.join(build, o), build) for o in f.read().split())
    rank = {}
    for obj in objs:
        name = obj[:-2]
        for i, (_, _, files) in enumerate(layers):
            if any(name == f or (f.endswith('/') and name.startswith(f)) for f in files):
                rank[obj] = i
                break
    bad = 0
    for obj in objs:
        if obj not in rank:
            print(f'layer-check: {obj} is in no layer of {sys.argv[1]}', file=sys.stderr)
            bad += 1
    for i, (name, _, files) in enumerate(layers):
        for f in files:
            if not any(o[:-2] == f or (f.endswith('/') and o.startswith(f)) for o in objs):
                print(f'layer-check: layer {name} names {f}, which was not built', file=sys.stderr)
                bad += 1
    defined = {}
    for obj in objs:
        for line in nm(['--defined-only', os.path.join(build, obj)]):
            parts = line.split()
            if len(parts) == 3 and parts[1] in 'TDBRtdbr' and parts[1].isupper():
                defined.setdefault(parts[2], obj)
    uses = 0
    for obj in objs:
        for line in nm(['-u', os.path.join(build, obj)]):
            parts = line.split()
            if len(parts) != 2 or parts[1] not in defined:
                continue
            definer = defined[parts[1]]
            if definer == obj or obj not in rank or definer not in rank:
                continue
            uses += 1
            lu, ld = rank[obj], rank[definer]
            if ld < lu or (ld == lu and layers[lu][1]):
                continue
            where = 'its own layer' if ld == lu else 'a higher layer'
            print(f'layer-check: {obj} ({layers[lu][0]}) uses {parts[1]} of {definer} '
                  f'({layers[ld][0]}): {where}', file=sys.stderr)
            bad += 1
    if bad:
        sys.exit(f'layer-check: {bad} violations')
    print(f'layer-check: {len(objs)} objects in {len(layers)} layers, {uses} uses '
          f'between files, every one downwards')


if __name__ == '__main__':
    main()
