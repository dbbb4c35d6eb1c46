#!/bin/sh
# Regenerates the seed corpora in tests/fuzz/corpus/ from the encoder
# fixtures (tests/fixtures/*.c; *.s, hand-written DWARF, assembled): small
# objects with DWARF (encode), the BTF the encoder makes of them (sort,
# dump), pairs of those (diff) and DWARF-less objects carrying that BTF in
# a .BTF section (btf_elf), and one fixture's BTF as the base of the next
# one's split BTF, the full base and a distilled one (relocate; the seeds
# named kernel-*, real modules' .BTF.base and .BTF not made here, are kept).
# Seeds larger than 8 KB are left out. Needs build/btfcanon,
# build/btf-add-kinds and gcc, clang.
#
#   tests/fuzz/make-corpus.sh
#
#   tests/fuzz/make-corpus.sh layout   only the 2026-format seeds (below)
set -eu
cd "$(dirname "$0")/../.."
out=tests/fuzz/corpus
tmp=$(mktemp -d)

# The body of an archive file of format 4 on stdout: each stream of its
# payload (archive/pack.c: a count, then codec, body bytes and packed
# bytes per stream, le64) through the tool of its codec.
body_of() {
	n=$(od -An -tu1 -j32 -N1 "$1" | tr -d ' ')
	at=$((33 + 17 * n))
	i=0
	while [ "$i" -lt "$n" ]; do
		e=$((33 + 17 * i))
		codec=$(od -An -tu1 -j$e -N1 "$1" | tr -d ' ')
		packed=$(od -An -tu8 -j$((e + 9)) -N8 "$1" | tr -d ' ')
		case $codec in
		0) tool=cat ;;
		1) tool='lz4 -dcq' ;;
		2) tool='zstd -dcq' ;;
		*) tool='xz -dcq' ;;
		esac
		tail -c +$((at + 1)) "$1" | head -c "$packed" | $tool
		at=$((at + packed))
		i=$((i + 1))
	done
}

# fuzz_archive's payload input: "BTFCPAY4" (or 6: the file's version),
# the body's size (le24, then a zero byte), the payload of the archive
# file $1.
payload_of() {
	size=$(od -An -tu8 -j16 -N8 "$1" | tr -d ' ')
	printf 'BTFCPAY%s' "$(od -An -tu1 -j8 -N1 "$1" | tr -d ' ')"
	printf "\\$(printf %o $((size & 255)))\\$(printf %o $((size >> 8 & 255)))\\$(printf %o $((size >> 16 & 255)))\\0"
	tail -c +33 "$1" | head -c -4
}
trap 'rm -rf "$tmp"' EXIT
max=8192
small() { [ "$(stat -c %s "$1")" -le "$max" ]; }

# The 2026 format: each fixture's BTF (gcc) with the kind layout section
# (sort, dump); a variant with a type of kind 25, which the section sizes,
# and a PTR to it (dump; sort refuses it); the pair of both (diff); and
# the inline-site kinds 20-22 that build/btf-add-kinds adds, with known
# types referring to them, with the section and without (dump, sort,
# which refuses both; the pair with the fixture's BTF: diff).
layout_seeds() {
	for src in tests/fixtures/*.c; do
		name=$(basename "$src" .c)
		gcc -g -O0 -c "$src" -o "$tmp/$name-l.o" 2>/dev/null || continue
		build/btfcanon encode -j1 --features default,layout \
			"$tmp/$name-l.o" -o "$tmp/$name-layout.btf" 2>/dev/null ||
			continue
		small "$tmp/$name-layout.btf" || continue
		cp "$tmp/$name-layout.btf" "$out/sort/$name-layout.btf"
		cp "$tmp/$name-layout.btf" "$out/dump/$name-layout.btf"
		python3 - "$tmp/$name-layout.btf" "$out/dump/$name-kind25.btf" \
			"$out/diff/$name-kind25.pair" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
(magic, ver, flags, hlen, toff, tlen, soff, slen, loff, llen) = \
    struct.unpack_from('<HBBIIIIIII', d)
types = d[hlen + toff:hlen + toff + tlen]
layout = d[hlen + loff:hlen + loff + llen]
strs = d[hlen + soff:hlen + soff + slen]
# count the types with the layout section's sizes
n, off = 0, 0
while off < len(types):
    info = struct.unpack_from('<I', types, off + 4)[0]
    kind, vlen = (info >> 24) & 0x7f, info & 0xffffff
    isz, esz, _ = struct.unpack_from('<BBH', layout, kind * 4)
    off += 12 + isz + vlen * esz
    n += 1
layout += b'\0' * 4 * (25 - len(layout) // 4) + struct.pack('<BBH', 4, 8, 0)
types += struct.pack('<IIII', 1, 25 << 24 | 1, 0, 7) + struct.pack('<II', 1, 2)
types += struct.pack('<III', 0, 2 << 24, n + 1)
hdr = struct.pack('<HBBIIIIIII', magic, ver, flags, 32, 0, len(types),
                  len(types) + len(layout), len(strs), len(types), len(layout))
new = hdr + types + layout + strs
open(sys.argv[2], 'wb').write(new)
open(sys.argv[3], 'wb').write(struct.pack('<I', len(d)) + d + new)
PY
		build/btf-add-kinds "$tmp/$name-layout.btf" "$tmp/$name-kinds.btf" \
			2>/dev/null || continue
		build/btf-add-kinds --no-layout "$tmp/$name-layout.btf" \
			"$tmp/$name-kinds-nol.btf"
		small "$tmp/$name-kinds.btf" || continue
		cp "$tmp/$name-kinds.btf" "$out/dump/$name-kinds.btf"
		cp "$tmp/$name-kinds-nol.btf" "$out/dump/$name-kinds-nol.btf"
		cp "$tmp/$name-kinds.btf" "$out/sort/$name-kinds.btf"
		python3 - "$tmp/$name-layout.btf" "$tmp/$name-kinds.btf" \
			"$out/diff/$name-kinds.pair" <<'PY'
import struct, sys
a = open(sys.argv[1], 'rb').read()
b = open(sys.argv[2], 'rb').read()
open(sys.argv[3], 'wb').write(struct.pack('<I', len(a)) + a + b)
PY
	done
}

if [ "${1:-}" = layout ]; then
	layout_seeds
	exit 0
fi
mkdir -p "$tmp/kept"
cp "$out"/relocate/kernel-* "$tmp/kept/" 2>/dev/null || true
rm -rf "$out"
mkdir -p "$out/sort" "$out/dump" "$out/diff" "$out/btf_elf" "$out/encode" \
	"$out/bpf_object" "$out/relocate" "$out/kernel_file" "$out/archive"
cp "$tmp"/kept/* "$out/relocate/" 2>/dev/null || true
# a length-prefixed pair: 4-byte little-endian length of the first, both
pair() {
	python3 - "$1" "$2" "$3" <<'PY'
import struct, sys
a = open(sys.argv[1], 'rb').read()
b = open(sys.argv[2], 'rb').read()
open(sys.argv[3], 'wb').write(struct.pack('<I', len(a)) + a + b)
PY
}
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
			# relocate: split BTF over the previous one, full and distilled
			if build/btfcanon encode -j1 --btf_base "$prev" "$obj" \
				-o "$tmp/split.btf" 2>/dev/null &&
			   build/btfcanon encode -j1 --btf_base "$prev" \
				--distilled-base "$tmp/dist.btf" "$obj" \
				-o "$tmp/dsplit.btf" 2>/dev/null; then
				pair "$prev" "$tmp/split.btf" "$tmp/full.pair"
				small "$tmp/full.pair" &&
					cp "$tmp/full.pair" "$out/relocate/$name-$cc-full.pair"
				pair "$tmp/dist.btf" "$tmp/dsplit.btf" \
					"$out/relocate/$name-$cc-distilled.pair"
			fi
		fi
		prev=$tmp/$name-$cc.btf
		"$cc" -O0 -c "$src" -o "$tmp/$name-$cc-nodebug.o" 2>/dev/null &&
		objcopy --add-section .BTF="$tmp/$name-$cc.btf" \
			"$tmp/$name-$cc-nodebug.o" "$tmp/$name-$cc-btf.o" &&
		small "$tmp/$name-$cc-btf.o" &&
		cp "$tmp/$name-$cc-btf.o" "$out/btf_elf/$name-$cc.o"
	done
done
# hand-written DWARF (GCC 16's annotation chains): encode seeds as they are
for src in tests/fixtures/*.s; do
	name=$(basename "$src" .s)
	gcc -c "$src" -o "$tmp/$name-as.o" && small "$tmp/$name-as.o" &&
		cp "$tmp/$name-as.o" "$out/encode/$name-as.o"
done
layout_seeds
# bpf_object: the deps fixtures' BPF objects (CO-RE records, hooks, externs;
# noopen.bpf.c calls an undeclared function: an object libbpf refuses at
# open, which deps still checks), up to 32 KB: fewer, bigger seeds are what
# a BPF object is
for src in tests/fixtures/deps/*.bpf.c; do
	name=$(basename "$src" .bpf.c)
	clang -target bpf -O2 -g -Wno-implicit-function-declaration -c "$src" -o "$tmp/$name.bpf.o" 2>/dev/null &&
		[ "$(stat -c %s "$tmp/$name.bpf.o")" -le 32768 ] &&
		cp "$tmp/$name.bpf.o" "$out/bpf_object/$name.bpf.o"
done
# kernel_file: saved kernel files (deps --save) of the deps fixture
# kernels: kernel B with symbols, inlined names and a config; kernel A as
# a directory with two modules
f=tests/fixtures/deps
gcc -g -O2 -r -nostdlib -w -o "$tmp/kern_a.o" $f/kern_a.c &&
gcc -g -O2 -r -nostdlib -w -o "$tmp/kern_b.o" $f/kern_b.c $f/kern_b2.c &&
build/btfcanon encode "$tmp/kern_a.o" -o "$tmp/a.btf" &&
mkdir -p "$tmp/kdir" && cp "$tmp/a.btf" "$tmp/kdir/vmlinux" &&
for m in mod_a mod_b; do
	gcc -g -O2 -c -w -o "$tmp/$m.o" $f/$m.c &&
	build/btfcanon encode --btf_base "$tmp/a.btf" "$tmp/$m.o" \
		-o "$tmp/kdir/$m" || exit 1
done &&
build/btfcanon deps --kernel "$tmp/kern_b.o" --kconfig $f/kconfig_b \
	--save "$out/kernel_file/kern_b.saved" &&
build/btfcanon deps --kernel "$tmp/kdir" --save "$out/kernel_file/kdir.saved" &&
for k in kern_b kdir; do
	# the body alone, which the target wraps with a fresh checksum
	body_of "$out/kernel_file/$k.saved" > "$out/kernel_file/$k.body" || exit 1
done
# archive: archives of the sort seeds (a file each: header, checksum; its
# body alone, which the target wraps with a fresh checksum so that
# mutations reach the body's parser; and its payload after "BTFCPAY4" and
# the body's size, le24, which the target gives a header and checksum so
# that mutations reach format 4's stream table and codecs)
mkdir -p "$out/archive"
c=tests/fuzz/corpus/sort
build/btfcanon archive create "$tmp/a.bca" "$c/anon_members-gcc.btf" \
	"$c/arrays-clang.btf" "$c/anon_members-layout.btf" \
	--name 6.1.0-1-amd64 --name 6.1.0-2-amd64 --name 6.12.1-arm64 &&
build/btfcanon archive create "$tmp/b.bca" "$c/base_types-clang.btf" \
	--name base &&
# kernels with their modules (format 5): kernel A and its two modules,
# stored as bytes (one small kernel); with kernel B and the same modules
# encoded over it, as records (the modules' lists against their parent's)
mkdir -p "$tmp/kdirb" &&
build/btfcanon encode "$tmp/kern_b.o" -o "$tmp/kdirb/vmlinux" &&
for m in mod_a mod_b; do
	build/btfcanon encode --btf_base "$tmp/kdirb/vmlinux" "$tmp/$m.o" \
		-o "$tmp/kdirb/$m" || exit 1
done &&
build/btfcanon archive create "$tmp/m.bca" "$tmp/kdir" --name 9.9.9-a &&
build/btfcanon archive create "$tmp/mr.bca" "$tmp/kdir" "$tmp/kdirb" \
	--name 9.9.9-a --name 9.9.9-b &&
# format 6 cut by region (three kernels with modules): its stream index
build/btfcanon archive create "$tmp/m3.bca" "$tmp/kdir" "$tmp/kdirb" \
	"$tmp/kdir" --name 9.9.9-a --name 9.9.9-b --name 9.9.9-c &&
for a in a b m mr; do
	cp "$tmp/$a.bca" "$out/archive/$a.bca"
	body_of "$tmp/$a.bca" > "$out/archive/$a.body" || exit 1
	payload_of "$tmp/$a.bca" > "$out/archive/$a.payload"
done
cp "$tmp/m3.bca" "$out/archive/m3.bca"
payload_of "$tmp/m3.bca" > "$out/archive/m3.payload"
for d in "$out"/*; do
	echo "$d: $(ls "$d" | wc -l) seeds, $(du -sk "$d" | cut -f1) KB"
done
