#!/bin/sh
# Regenerates the seed corpora in tests/fuzz/corpus/ from the encoder
# fixtures (tests/fixtures/*.c): small objects with DWARF (encode), the BTF
# the encoder makes of them (sort, dump), pairs of those (diff) and
# DWARF-less objects carrying that BTF in a .BTF section (btf_elf).
# Seeds larger than 8 KB are left out. Needs build/btfcanon and gcc, clang.
#
#   tests/fuzz/make-corpus.sh
set -eu
cd "$(dirname "$0")/../.."
out=tests/fuzz/corpus
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rm -rf "$out"
mkdir -p "$out/sort" "$out/dump" "$out/diff" "$out/btf_elf" "$out/encode" \
	"$out/bpf_object"
max=8192
small() { [ "$(stat -c %s "$1")" -le "$max" ]; }
prev=
for src in tests/fixtures/*.c; do
	name=$(basename "$src" .c)
	for cc in gcc clang; do
		obj=$tmp/$name-$cc.o
		"$cc" -g -O0 -gdwarf-4 -c "$src" -o "$obj" 2>/dev/null || continue
		small "$obj" && cp "$obj" "$out/encode/$name-$cc-dwarf4.o"
		"$cc" -g -O2 -gdwarf-5 -c "$src" -o "$tmp/$name-$cc-5.o" 2>/dev/null &&
			small "$tmp/$name-$cc-5.o" &&
			cp "$tmp/$name-$cc-5.o" "$out/encode/$name-$cc-dwarf5.o"
		build/btfcanon encode -j1 "$obj" -o "$tmp/$name-$cc.btf" \
			2>/dev/null || continue
		small "$tmp/$name-$cc.btf" || continue
		cp "$tmp/$name-$cc.btf" "$out/sort/$name-$cc.btf"
		cp "$tmp/$name-$cc.btf" "$out/dump/$name-$cc.btf"
		# diff: 4-byte little-endian length of the old blob, old, new
		if [ -n "$prev" ]; then
			python3 - "$prev" "$tmp/$name-$cc.btf" "$out/diff/$name-$cc.pair" <<'PY'
import struct, sys
a = open(sys.argv[1], 'rb').read()
b = open(sys.argv[2], 'rb').read()
open(sys.argv[3], 'wb').write(struct.pack('<I', len(a)) + a + b)
PY
		fi
		prev=$tmp/$name-$cc.btf
		"$cc" -O0 -c "$src" -o "$tmp/$name-$cc-nodebug.o" 2>/dev/null &&
		objcopy --add-section .BTF="$tmp/$name-$cc.btf" \
			"$tmp/$name-$cc-nodebug.o" "$tmp/$name-$cc-btf.o" &&
		small "$tmp/$name-$cc-btf.o" &&
		cp "$tmp/$name-$cc-btf.o" "$out/btf_elf/$name-$cc.o"
	done
done
# bpf_object: the deps fixtures' BPF objects (CO-RE records, hooks, externs),
# up to 32 KB: fewer, bigger seeds are what a BPF object is
for src in tests/fixtures/deps/*.bpf.c; do
	name=$(basename "$src" .bpf.c)
	clang -target bpf -O2 -g -c "$src" -o "$tmp/$name.bpf.o" 2>/dev/null &&
		[ "$(stat -c %s "$tmp/$name.bpf.o")" -le 32768 ] &&
		cp "$tmp/$name.bpf.o" "$out/bpf_object/$name.bpf.o"
done
for d in "$out"/*; do
	echo "$d: $(ls "$d" | wc -l) seeds, $(du -sk "$d" | cut -f1) KB"
done
