#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ran-nowhere.py: the tests that every guest of a run skipped.

usage: ran-nowhere.py [--soak-only FILE] RESULTS...

Each RESULTS is one guest's results: the UML directory of make kunit
($MCS_OUT/uml, whose results/ holds one .ktap file per KUnit suite and one
selftest-NAME.tap per selftest) or a qemu guest's directory of make vmtest
($MCS_OUT/vm/KERNEL, with ktap.txt and console.log).  Every leaf test is
named: a KUnit case as kunit:SUITE.CASE or kunit:SUITE.CASE[PARAM], a
selftest's TAP line as SELFTEST:WHAT, its description up to the first
colon (the selftests print "ok N what: result" and "ok N # SKIP what:
why"; lines that share WHAT are one test).

A test "ran nowhere" when every guest that reports it skipped it.  Those
are printed with each guest's reason.  The tests named in FILE (one name
per line, "#" starts a comment; a name ending in "*" matches every name
that begins with the rest) are soak-only: they are expected to run only
in make soak and are printed apart.  Exit status: 1 when a test ran
nowhere and is not soak-only, or when no guest reported a test at all;
else 0.
"""
import os
import re
import sys

RESULT = re.compile(r'^(?P<indent> *)(?P<not>not )?ok \d+ ?(?P<desc>[^#]*?)\s*'
                    r'(?:#\s*(?P<dir>SKIP|TODO)\b\s*(?P<reason>.*))?$')
SUBTEST = re.compile(r'^(?P<indent> *)# Subtest: (?P<name>\S+)')
STAMP = re.compile(r'^\[\s*\d+\.\d+\] ')
MIXED = re.compile(r'\[\s*\d+\.\d+\] ')


def ktap_leaves(lines, prefix):
    """(name, status, reason) of every leaf of a KTAP document."""
    names = {}
    for raw in lines:
        line = STAMP.sub('', raw.rstrip('\n'))
        m = SUBTEST.match(line)
        if m:
            level = len(m.group('indent')) // 4
            for deeper in [k for k in names if k >= level]:
                del names[deeper]
            names[level] = m.group('name')
            continue
        m = RESULT.match(line)
        if not m:
            continue
        level = len(m.group('indent')) // 4
        desc = m.group('desc').strip()
        # a parent's own line after its children's: they are the leaves
        if names.get(level + 1) == desc:
            del names[level + 1]
            continue
        path = [names[k] for k in sorted(names) if 0 < k <= level]
        if not path or len(path) != level:
            continue
        status = 'fail' if m.group('not') else (
            'skip' if m.group('dir') == 'SKIP' else 'pass')
        if level == 1:
            name = '%s.%s' % (path[0], desc)
        else:
            name = '%s.%s[%s]' % (path[0], path[1], '/'.join(path[2:] + [desc]))
        yield prefix + name, status, (m.group('reason') or '').strip()


def tap_leaves(lines, prefix):
    """(name, status, reason) of every top-level line of a kselftest's TAP."""
    for raw in lines:
        m = RESULT.match(raw.rstrip('\n'))
        # a kernel message printed into the middle of a console line
        if not m or m.group('indent') or MIXED.search(raw):
            continue
        desc = m.group('desc').strip()
        reason = (m.group('reason') or '').strip()
        status = 'fail' if m.group('not') else (
            'skip' if m.group('dir') == 'SKIP' else 'pass')
        # "what: result" and "# SKIP what: why" name the same test "what"
        desc = (desc or reason).split(':', 1)[0].strip() or '?'
        yield prefix + desc, status, reason


def console_selftests(path):
    """The selftests' TAP blocks of a qemu guest's console log."""
    blocks = {}
    cur = None
    with open(path, errors='replace') as f:
        for line in f:
            line = line.rstrip('\n')
            m = re.match(r'^MCS-SELFTEST-BEGIN (\S+)', line)
            if m:
                cur = m.group(1)
                blocks[cur] = []
                continue
            if line.startswith('MCS-SELFTEST-END'):
                cur = None
                continue
            if cur:
                blocks[cur].append(line)
    return blocks


def guest_leaves(d):
    res = os.path.join(d, 'results')
    if os.path.isdir(res):
        for f in sorted(os.listdir(res)):
            p = os.path.join(res, f)
            if f.endswith('.ktap'):
                with open(p, errors='replace') as fh:
                    yield from ktap_leaves(fh, 'kunit:')
            m = re.match(r'^selftest-(.+)\.tap$', f)
            if m:
                with open(p, errors='replace') as fh:
                    yield from tap_leaves(fh, m.group(1) + ':')
        return
    ktap = os.path.join(d, 'ktap.txt')
    if os.path.isfile(ktap):
        with open(ktap, errors='replace') as fh:
            yield from ktap_leaves(fh, 'kunit:')
    con = os.path.join(d, 'console.log')
    if os.path.isfile(con):
        for name, lines in console_selftests(con).items():
            yield from tap_leaves(lines, name + ':')


def soak_only(path):
    pats = []
    if not path:
        return pats
    with open(path) as f:
        for line in f:
            line = line.split('#', 1)[0].strip()
            if line:
                pats.append(line)
    return pats


def listed(name, pats):
    return any(name.startswith(p[:-1]) if p.endswith('*') else name == p for p in pats)


def main(argv):
    args = argv[1:]
    soak = None
    if len(args) >= 2 and args[0] == '--soak-only':
        soak = args[1]
        args = args[2:]
    if not args:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    pats = soak_only(soak)
    seen = {}
    for d in args:
        guest = os.path.basename(os.path.normpath(d))
        for name, status, reason in guest_leaves(d):
            seen.setdefault(name, []).append((guest, status, reason))
    if not seen:
        print('ran-nowhere: no guest reported a test (%s)' % ' '.join(args))
        return 1
    nowhere = sorted(n for n, r in seen.items() if all(s == 'skip' for _, s, _ in r))
    bad = [n for n in nowhere if not listed(n, pats)]
    soaked = [n for n in nowhere if listed(n, pats)]
    print('ran-nowhere: %d tests in %d guests; %d skipped by every guest '
          '(%d soak-only, %d not listed)' % (len(seen), len(args), len(nowhere),
                                             len(soaked), len(bad)))
    for title, names in (('ran nowhere, not soak-only', bad), ('soak-only', soaked)):
        for n in names:
            why = '; '.join('%s: %s' % (g, r or 'no reason') for g, _, r in seen[n])
            print('  %s: %s (%s)' % (title, n, why))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
