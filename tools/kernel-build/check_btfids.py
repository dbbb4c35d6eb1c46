#!/usr/bin/env python3
"""check_btfids.py VMLINUX: did resolve_btfids fill .BTF_ids right?

Every symbol __BTF_ID__{struct,union,typedef,func}__NAME__N inside .BTF_ids
must hold the id of a BTF type of that kind and name in VMLINUX's .BTF (as
listed by `bpftool btf dump file`). The ids inside a __BTF_ID__set__NAME or
__BTF_ID__set8__NAME are compared as a multiset, because resolve_btfids
sorts each set by id after filling it. An id of 0 for a name that is not in
the BTF at all is what resolve_btfids leaves (with a warning); it is counted
apart, not as wrong.

Prints "RIGHT/TOTAL ids right, ZERO zero (name not in BTF), WRONG wrong" as
its last line; exits 1 if any id is wrong or none is right.
"""
import re
import struct
import subprocess
import sys
import tempfile

BTF_KIND = {'struct': 'STRUCT', 'union': 'UNION', 'typedef': 'TYPEDEF', 'func': 'FUNC'}
# set: u32 cnt, u32 ids[]; set8: u32 cnt, u32 flags, {u32 id, u32 flags}[]
SET_LAYOUT = {'set': (4, 4), 'set8': (8, 8)}


def run(*argv):
    return subprocess.run(argv, capture_output=True, text=True, check=True).stdout


def btf_ids_section(vmlinux):
    """(address, bytes) of .BTF_ids."""
    sections = run('readelf', '-SW', vmlinux)
    m = re.search(r'\]\s+\.BTF_ids\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)', sections)
    if not m:
        sys.exit(f'{vmlinux}: no .BTF_ids section')
    with tempfile.NamedTemporaryFile() as raw:
        run('objcopy', '-O', 'binary', '--only-section=.BTF_ids', vmlinux, raw.name)
        return int(m.group(1), 16), open(raw.name, 'rb').read()


def btf_type_ids(vmlinux):
    """(kind, name) -> set of BTF ids."""
    type_ids = {}
    for line in run('bpftool', 'btf', 'dump', 'file', vmlinux).splitlines():
        m = re.match(r"\[(\d+)\] (\w+) '([^']*)'", line)
        if m:
            type_ids.setdefault((m.group(2), m.group(3)), set()).add(int(m.group(1)))
    return type_ids


def main():
    vmlinux = sys.argv[1]
    section_addr, data = btf_ids_section(vmlinux)
    type_ids = btf_type_ids(vmlinux)
    u32_at = lambda off: struct.unpack_from('<I', data, off)[0]

    id_syms = []        # (offset, kind, name)
    sets = []           # (first id offset, end offset, stride, set name)
    for line in run('nm', vmlinux).splitlines():
        fields = line.split()
        if len(fields) != 3:
            continue
        off = int(fields[0], 16) - section_addr
        if not 0 <= off < len(data):
            continue
        m = re.match(r'__BTF_ID__(set8?)__(.+)$', fields[2])
        if m:
            header, stride = SET_LAYOUT[m.group(1)]
            first = off + header
            sets.append((first, first + u32_at(off) * stride, stride, m.group(2)))
            continue
        m = re.match(r'__BTF_ID__(struct|union|typedef|func)__(.+)__\d+$', fields[2])
        if m:
            id_syms.append((off, BTF_KIND[m.group(1)], m.group(2)))

    right = zero = wrong = 0
    in_a_set = set()
    for first, end, stride, set_name in sets:
        unclaimed = [u32_at(o) for o in range(first, end, stride)]
        for off, kind, name in id_syms:
            if not (first <= off < end and (off - first) % stride == 0):
                continue
            in_a_set.add(off)
            wanted = type_ids.get((kind, name), set()) or {0}
            hit = next((v for v in unclaimed if v in wanted), None)
            if hit is None:
                wrong += 1
                print(f'WRONG: set {set_name}: no id of {kind} {name} (want one of {sorted(wanted)[:3]})')
            else:
                unclaimed.remove(hit)
                right += 1 if hit else 0
                zero += 0 if hit else 1
    for off, kind, name in id_syms:
        if off in in_a_set:
            continue
        value, wanted = u32_at(off), type_ids.get((kind, name), set())
        if value and value in wanted:
            right += 1
        elif value == 0 and not wanted:
            zero += 1
        else:
            wrong += 1
            print(f'WRONG: {kind} {name} holds {value}, want one of {sorted(wanted)[:3]}')

    total = right + zero + wrong
    print(f'{right}/{total} ids right, {zero} zero (name not in BTF), {wrong} wrong')
    return 1 if wrong or not right else 0


if __name__ == '__main__':
    sys.exit(main())
