#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# Does adding kernels rename or take away a flavor of `btfcanon header`?
#
#   tools/flavors-kept.py SMALLER.h LARGER.h
#
# Collects the flavor blocks (struct, union or enum NAME___TAG { ... };
# btf_dump's NAME___N duplicates left out) of both headers and counts the
# blocks of SMALLER not in LARGER byte for byte: names gone, and names
# whose text changed (an enumerator's value, a member's spelling).
# Exit 1 when a name is gone.
import re
import sys

BLOCK = re.compile(r'^(?:struct|union|enum) \w+___(?!\d+ )\w+ \{\n(?:\t[^\n]*\n)+\};', re.M)


def blocks(path):
    with open(path) as f:
        return set(m.group(0) for m in BLOCK.finditer(f.read()))


def name(block):
    return block.split(' {')[0]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__ or 'usage: flavors-kept.py SMALLER.h LARGER.h')
    small, large = blocks(sys.argv[1]), blocks(sys.argv[2])
    large_names = {name(b) for b in large}
    lost = small - large
    gone = sorted(b for b in lost if name(b) not in large_names)
    changed = sorted(b for b in lost if name(b) in large_names)
    enums = sum(1 for b in changed if b.startswith('enum '))
    print(f'{sys.argv[1]} -> {sys.argv[2]}: {len(small)} flavors; '
          f'{len(gone)} names gone, {len(changed)} same name with other text '
          f'({enums} enums)')
    for b in gone:
        print('gone:', name(b))
    return 1 if gone else 0


if __name__ == '__main__':
    sys.exit(main())
