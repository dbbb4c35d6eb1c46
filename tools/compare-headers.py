#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Compares the declarations of two C headers made from the same BTF.

Typically `btfcanon dump -f c X` against `bpftool btf dump file X format c`
(bpftool >= 7.5, which sorts its header and writes kfunc prototypes).
Every top-level declaration is keyed by what it declares (the keys of
tools/diff-vs-headers.py: "struct sk_buff", "typedef u32", "enum <anon
FIRST>"); btf_dump's "___N" rename suffixes are removed first, since they
are given in emission order. The kfunc prototypes are compared line by
line, the text around the types (guards, pragmas, macros) as a set of
lines.

Forward declarations ("struct foo;") are reported apart, by name: where a
header needs them depends on its order, not on the types.

    tools/compare-headers.py [-v] A.h B.h

Prints one line per category and exits 0 when the declarations (all but
forward declarations) are the same, 1 otherwise; -v lists the keys.
"""
import argparse
import importlib.util
import os
import re
import sys
from collections import Counter

_spec = importlib.util.spec_from_file_location(
    "diff_vs_headers", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    "diff-vs-headers.py"))
dvh = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(dvh)

FWD = re.compile(r"^(struct|union) (\w+);$")
KFUNC = re.compile(r"^extern .* __weak __ksym;$")


def split(text):
    """(declaration blocks, forward declarations, kfunc lines, other lines)."""
    text = dvh.SUFFIX.sub("", text)
    blocks, fwds, kfuncs, other = Counter(), Counter(), [], Counter()
    for chunk in text.split("\n\n"):
        lines = [l for l in chunk.split("\n") if l]
        if not lines:
            continue
        decl = []
        for line in lines:
            if FWD.match(line):
                fwds[line] += 1
            elif KFUNC.match(line):
                kfuncs.append(line)
            elif line.startswith("#") or line.startswith("/*"):
                other[line] += 1
            else:
                decl.append(line)
        if decl:
            blocks["\n".join(decl)] += 1
    return blocks, fwds, kfuncs, other


def key_of(block):
    return dvh.block_key(block.split("\n")) or block


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("a")
    ap.add_argument("b")
    args = ap.parse_args()
    a = split(open(args.a).read())
    b = split(open(args.b).read())
    only_a, only_b = a[0] - b[0], b[0] - a[0]
    keys_a = Counter(key_of(x) for x in only_a.elements())
    keys_b = Counter(key_of(x) for x in only_b.elements())
    changed = sorted(set(keys_a) & set(keys_b))
    print("declarations: %d in %s, %d in %s, %d the same"
          % (sum(a[0].values()), args.a, sum(b[0].values()), args.b,
             sum((a[0] & b[0]).values())))
    print("  differing text: %d; only in %s: %d; only in %s: %d"
          % (len(changed), args.a, len(set(keys_a) - set(keys_b)), args.b,
             len(set(keys_b) - set(keys_a))))
    print("forward declarations: %d in %s, %d in %s, %d in both"
          % (len(a[1]), args.a, len(b[1]), args.b, len(set(a[1]) & set(b[1]))))
    print("kfunc prototypes: %d and %d, %s"
          % (len(a[2]), len(b[2]), "identical, in the same order"
             if a[2] == b[2] else "different"))
    print("other lines (guards, pragmas, macros): %s"
          % ("the same set" if set(a[3]) == set(b[3]) else "different"))
    if args.verbose:
        for k in changed:
            print("  differs: %s" % k)
            for x in only_a.elements():
                if key_of(x) == k:
                    print("    < " + x.replace("\n", "\n    < "))
            for x in only_b.elements():
                if key_of(x) == k:
                    print("    > " + x.replace("\n", "\n    > "))
        for k in sorted(set(keys_a) - set(keys_b)):
            print("  only in %s: %s" % (args.a, k))
        for k in sorted(set(keys_b) - set(keys_a)):
            print("  only in %s: %s" % (args.b, k))
        if a[2] != b[2]:
            for line in sorted(set(a[2]) ^ set(b[2])):
                print("  kfunc: %s" % line)
        for line in sorted(set(a[3]) ^ set(b[3])):
            print("  other: %s" % line)
    same = not changed and not keys_a and not keys_b and a[2] == b[2] \
        and set(a[3]) == set(b[3])
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
