#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Checks `btfcanon diff OLD NEW` against the C headers of OLD and NEW.

Every top-level declaration of the two headers (`btfcanon dump -f c`, or
bpftool's with --bpftool) is keyed by what it declares ("struct sk_buff",
"typedef u32", "enum <anon FIRST_ENUMERATOR>"); a key whose sorted lines
differ between the two headers is a change the header shows. The diff's
JSON entries are keyed the same way (nested paths by their top-level
parent; functions, variables and data sections are not in a header).

    missed    changed in the headers, not reported by the diff
    spurious  reported by the diff with a change a header would show
              (a member added, removed or retyped, an enumerator, a
              typedef's target), yet the headers agree
    layout    reported with offset or size changes only: real, but C text
              without offsets cannot show them; counted, not failed
    padding   header blocks whose only differing lines are btf_dump's
              padding ("long: 64;"), which follow from a change in the size
              of a member's type, reported where that type is; counted

Exits 0 when nothing is missed and nothing is spurious, 1 otherwise.

    tools/diff-vs-headers.py [--btfcanon PATH] [--bpftool] [-v] OLD NEW
"""
import argparse
import json
import re
import subprocess
import sys
from collections import Counter, defaultdict

TYPEDEF_FN_PTR = re.compile(r"\(\*\s*(\w+)\)\s*\(")
TYPEDEF_FN = re.compile(r"(\w+)\(")
TYPEDEF_NAME = re.compile(r"(\w+)\s*(\[[^\]]*\]\s*)*;$")
SUFFIX = re.compile(r"___\d+\b")
FWD = re.compile(r"(struct|union) \w+;$")
PADDING = re.compile(r"^\t+((unsigned|signed|long|int|short|char) ?)+: \d+;$")


def block_key(block):
    """The declared thing of one top-level block, or None to ignore it."""
    first = block[0]
    if first.startswith("#") or not first.strip():
        return None
    m = re.match(r"(struct|union|enum) (\w+) \{", first)
    if m:
        return "%s %s" % (m.group(1), m.group(2))
    if first.startswith("enum {"):
        return "enum <anon %s>" % block[1].strip().split(" ")[0]
    if first.startswith("typedef"):
        last = block[-1]
        m = TYPEDEF_FN_PTR.search(last)
        if not m and "(" in last and len(block) == 1:
            m = TYPEDEF_FN.search(last)
        if not m:
            m = TYPEDEF_NAME.search(last)
        if m:
            return "typedef " + m.group(1)
    return "other " + first


def header_blocks(text):
    """key -> lines, ___N suffixes (btf_dump's renames) removed.

    Forward declarations count only for types the header does not define:
    where they stand depends on the order of the header, not on the type.
    """
    blocks, fwds = defaultdict(list), defaultdict(list)
    for chunk in SUFFIX.sub("", text).split("\n\n"):
        lines = [l for l in chunk.split("\n") if l]
        if not lines:
            continue
        if all(FWD.match(line) for line in lines):
            for line in lines:
                fwds[line[:-1]].append(line)
            continue
        key = block_key(lines)
        if key:
            blocks[key].extend(lines)
    for key, lines in fwds.items():
        if key not in blocks:
            blocks[key] = lines
    return blocks


def enumerators(lines):
    return {l.strip().split(" ")[0] for l in lines if l.startswith("\t")}


def header_changes(old_text, new_text):
    """Keys whose lines differ: (changed, padding-only, anon enum -> names)."""
    old, new = header_blocks(old_text), header_blocks(new_text)
    changed, padding, anon = set(), set(), {}
    for key in set(old) | set(new):
        a, b = Counter(old.get(key, [])), Counter(new.get(key, []))
        if a == b:
            continue
        if all(PADDING.match(l) for l in (a - b) + (b - a)):
            padding.add(key)
            continue
        changed.add(key)
        if key.startswith("enum <anon"):
            anon[key] = enumerators(old.get(key, []) + new.get(key, []))
    return changed, padding, anon


VISIBLE_FIELDS = {"type", "value", "bits"}


def diff_changes(entries):
    """Keys the diff reports: (visible, layout-only)."""
    visible, layout = set(), set()
    for e in entries:
        if e["kind"] in ("func", "var", "datasec", "int", "float"):
            continue
        key = e["path"].split("::")[0]
        if e["op"] != "changed":
            visible.add(key)
            continue
        shows = False
        for item in e["items"]:
            if item["op"] != "changed" or item["what"] in ("enumerator", "type", "definition", "tag"):
                shows = True
            elif VISIBLE_FIELDS & set(item["fields"]):
                shows = True
        (visible if shows else layout).add(key)
    layout -= visible
    return visible, layout


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode not in (0, 1):
        sys.exit("%s failed (%d):\n%s" % (" ".join(cmd), p.returncode, p.stderr))
    return p.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--btfcanon", default="build/btfcanon")
    ap.add_argument("--bpftool", action="store_true",
                    help="compare with bpftool's headers instead of dump -f c")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("old")
    ap.add_argument("new")
    args = ap.parse_args()

    def header(path):
        if args.bpftool:
            return run(["bpftool", "btf", "dump", "file", path, "format", "c"])
        return run([args.btfcanon, "dump", "-f", "c", path])

    shown, padding, anon = header_changes(header(args.old), header(args.new))
    report = json.loads(run([args.btfcanon, "diff", "--json", args.old, args.new]))
    visible, layout = diff_changes(report["entries"])
    # anonymous enums are named by an enumerator: the diff by the new
    # side's first, a header block by its own first; the enumerators an
    # entry names (path and items) tie the two together
    anon_reported = {}
    for e in report["entries"]:
        if e["path"].startswith("enum <anon"):
            names = {e["path"].split(" ", 2)[2][:-1]}
            names |= {i["name"] for i in e["items"] if i["what"] == "enumerator"}
            anon_reported[e["path"]] = names
    covered = {k for k, names in anon.items()
               if any(names & r for r in anon_reported.values())}
    explained = {k for k, r in anon_reported.items()
                 if any(names & r for names in anon.values())}
    missed = sorted(shown - visible - layout - covered)
    spurious = sorted(visible - shown - explained)
    print("header changes %d (+%d padding-only), diff reports %d (+%d layout-only), "
          "missed %d, spurious %d"
          % (len(shown), len(padding), len(visible), len(layout), len(missed),
             len(spurious)))
    for title, keys in (("missed", missed), ("spurious", spurious)):
        for k in keys:
            print("  %s: %s" % (title, k))
    if args.verbose:
        for k in sorted(layout):
            print("  layout-only: %s" % k)
        for k in sorted(padding):
            print("  padding-only: %s" % k)
    return 1 if missed or spurious else 0


if __name__ == "__main__":
    sys.exit(main())
