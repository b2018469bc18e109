#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""layer-check.py LAYERS BUILD_DIR SRC_DIR: check the layers of memcg_stock.ko.

LAYERS (scripts/checks/layers.txt) names the layers' folders bottom up and
the few top-level files with the folder whose layer they belong to.  A
file's layer is the folder it lies in.  Two graphs are checked:

  - uses: object A -> object B when A uses a symbol that B defines (nm -u
    and nm --defined-only on the objects BUILD_DIR's memcg_stock.mod lists);
  - includes: source A -> header B for each #include "B" in SRC_DIR's
    mechanism and harness (resolved as the compiler does: A's folder, then
    the tree's root).

Fails on an edge to a higher layer (the public header excepted for
includes: any layer may include it for its types), on a cycle inside a
layer that is not "open", on a top-level source that the table does not
list, and on a folder that is no layer.  Prints the upward edges and the
cycles it found, then one line per graph.
"""
import glob
import os
import re
import subprocess
import sys

EXCLUDED_DIRS = ('kunit/', 'selftests/', 'examples/', 'scripts/', 'docs/', 'bench-results/', '.out/')


def read_layers(path):
    folders, top = [], {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            words = line.split('#', 1)[0].split()
            if not words:
                continue
            if words[0] == 'top':
                if len(words) != 3:
                    sys.exit(f'{path}:{n}: expected "top FILE FOLDER/|public"')
                top[words[1]] = words[2]
                continue
            if not words[0].endswith('/') or len(words) > 2 or words[1:] not in ([], ['open']):
                sys.exit(f'{path}:{n}: expected "FOLDER/ [open]"')
            folders.append((words[0], words[1:] == ['open']))
    for name, folder in top.items():
        if folder != 'public' and folder not in [f for f, _ in folders]:
            sys.exit(f'{path}: top-level {name} names {folder}, which is no layer')
    return folders, top


class Layers:
    def __init__(self, path):
        self.folders, self.top = read_layers(path)
        self.rank = {f: i for i, (f, _) in enumerate(self.folders)}
        self.errors = []

    def of(self, rel):
        """rel: a source path (or an object's source name) -> layer index, 'public' or None."""
        if '/' not in rel:
            where = self.top.get(rel)
            if where is None:
                self.errors.append(f'{rel} lies at the top level, which holds only the files '
                                   f'the table lists: put it in the folder of its layer')
                return None
            return 'public' if where == 'public' else self.rank[where]
        folder = rel.split('/', 1)[0] + '/'
        if folder not in self.rank:
            self.errors.append(f'{rel}: {folder} is no layer of the table')
            return None
        return self.rank[folder]

    def name(self, i):
        return 'public' if i == 'public' else self.folders[i][0]

    def is_open(self, i):
        return i != 'public' and self.folders[i][1]


def nm(args):
    out = subprocess.run(['nm'] + args, check=True, capture_output=True, text=True).stdout
    return out.splitlines()


def cycles(nodes, edges):
    """The strongly connected components with more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def check(layers, kind, nodes, edges, allow_public):
    """Upward edges and cycles inside closed layers; returns (n edges, problems)."""
    bad = []
    n = 0
    same = {}
    for a in sorted(edges):
        for b in sorted(edges[a]):
            n += 1
            la, lb = layers.of(src_name(a)), layers.of(src_name(b))
            if la is None or lb is None:
                continue
            if lb == 'public' and allow_public:
                continue
            if la == 'public':
                la = len(layers.folders) - 1
            if lb == 'public':
                lb = len(layers.folders)
            if lb > la:
                bad.append(f'{kind}: {a} ({layers.name(la)}) -> {b} ({layers.name(lb)}): up the layers')
            elif lb == la and not layers.is_open(la):
                same.setdefault(a, set()).add(b)
    for comp in cycles(nodes, same):
        bad.append(f'{kind}: cycle inside {layers.name(layers.of(src_name(comp[0])))}: '
                   + ' -> '.join(comp) + f' -> {comp[0]}')
    return n, bad


def src_name(node):
    """An object's source name (objects/memcg.o -> objects/memcg.c); a source stays."""
    return node[:-2] + '.c' if node.endswith('.o') else node


def use_graph(build):
    with open(os.path.join(build, 'memcg_stock.mod')) as f:
        objs = sorted(os.path.relpath(os.path.join(build, o), build) for o in f.read().split())
    defined = {}
    for obj in objs:
        for line in nm(['--defined-only', os.path.join(build, obj)]):
            parts = line.split()
            if len(parts) == 3 and parts[1] in 'TDBR':
                defined.setdefault(parts[2], obj)
    edges = {}
    for obj in objs:
        for line in nm(['-u', os.path.join(build, obj)]):
            parts = line.split()
            if len(parts) == 2 and parts[1] in defined and defined[parts[1]] != obj:
                edges.setdefault(obj, set()).add(defined[parts[1]])
    return objs, edges


INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def include_graph(src):
    files = []
    for path in sorted(glob.glob(os.path.join(src, '**', '*.[ch]'), recursive=True)):
        rel = os.path.relpath(path, src)
        # (a tree built in place has Kbuild's generated *.mod.c beside)
        if not rel.startswith(EXCLUDED_DIRS) and not rel.endswith('.mod.c'):
            files.append(rel)
    edges = {}
    for rel in files:
        with open(os.path.join(src, rel)) as f:
            text = f.read()
        for inc in INCLUDE_RE.findall(text):
            for cand in (os.path.join(os.path.dirname(rel), inc), inc):
                cand = os.path.normpath(cand)
                if os.path.isfile(os.path.join(src, cand)):
                    if cand != rel and cand.endswith('.h'):
                        edges.setdefault(rel, set()).add(cand)
                    break
    return files, edges


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    layers = Layers(sys.argv[1])
    objs, uses = use_graph(sys.argv[2])
    files, includes = include_graph(sys.argv[3])
    for o in objs:
        layers.of(src_name(o))
    for f in files:
        layers.of(f)
    n_uses, bad = check(layers, 'use', objs, uses, allow_public=False)
    n_inc, bad_inc = check(layers, 'include', files, includes, allow_public=True)
    problems = sorted(set(layers.errors)) + bad + bad_inc
    for p in problems:
        print(f'layer-check: {p}', file=sys.stderr)
    sys.stderr.flush()
    print(f'layer-check: uses: {len(objs)} objects, {n_uses} edges; includes: {len(files)} sources, '
          f'{n_inc} edges; {len(layers.folders)} layers ('
          + ' '.join(f for f, _ in layers.folders) + ')', flush=True)
    if problems:
        sys.exit(f'layer-check: {len(problems)} problems (cycles and upward edges above)')
    print('layer-check: no cycle, no edge up the layers')


if __name__ == '__main__':
    main()
