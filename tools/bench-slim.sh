#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The slim header against BPF programs of a checkout (bcc's libbpf-tools,
# by hand, never in CI): for each PROGRAM.bpf.c in DIR that compiles
# against the full `btfcanon dump -f c KERNEL`, the header of
# `dump -f c --for PROGRAM.bpf.c KERNEL` (its local headers come along),
# its lines against the full header's, whether the program compiles
# against it, and whether the two objects are the same program: the same
# `deps --json` report against KERNEL, and the same types in their BTF
# (bpftool's listing without ids, sorted).
#
#   BTFCANON=build/btfcanon tools/bench-slim.sh DIR KERNEL [CFLAGS...]
#
# e.g. tools/bench-slim.sh ~/bcc/libbpf-tools /sys/kernel/btf/vmlinux
# -D__TARGET_ARCH_x86. Prints a Markdown table, then the median of the
# slim/full ratios of the programs that compiled against both.
set -eu
BTFCANON=${BTFCANON:-build/btfcanon}
case $BTFCANON in
/*) ;;
*) BTFCANON=$(pwd)/$BTFCANON ;;
esac
[ $# -ge 2 ] && [ -d "$1" ] && [ -r "$2" ] || {
	echo "usage: BTFCANON=... $0 DIR KERNEL [CFLAGS...]" >&2
	exit 2
}
dir=$1
kernel=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/full"
"$BTFCANON" dump -f c "$kernel" -o "$tmp/full/vmlinux.h"
full=$(wc -l < "$tmp/full/vmlinux.h")

# types OBJECT: the object's BTF types, ids left out, sorted
types() {
	bpftool btf dump file "$1" | grep '^\[' |
		sed 's/^\[[0-9]*\] //; s/type_id=[0-9]*//g' | sort
}

echo "| program | slim lines | of full | compiles | deps --json | BTF types |"
echo "|---|---:|---:|---|---|---|"
for src in "$dir"/*.bpf.c; do
	p=$(basename "$src" .bpf.c)
	w=$tmp/$p
	mkdir -p "$w/slim"
	clang -target bpf -O2 -g "$@" -I"$tmp/full" -c "$src" \
		-o "$w/full.o" 2> /dev/null || continue
	"$BTFCANON" dump -f c --for "$src" "$kernel" -o "$w/slim/vmlinux.h"
	lines=$(wc -l < "$w/slim/vmlinux.h")
	pct=$(awk "BEGIN { printf \"%.2f%%\", 100 * $lines / $full }")
	if ! clang -target bpf -O2 -g "$@" -I"$w/slim" -c "$src" \
		-o "$w/slim.o" 2> /dev/null; then
		echo "| $p | $lines | $pct | no | | |"
		continue
	fi
	for side in full slim; do
		cp "$w/$side.o" "$w/obj.o"
		(cd "$w" && "$BTFCANON" deps --json obj.o --kernel "$kernel" \
			> "$side.json" 2> /dev/null) || true
		types "$w/$side.o" > "$w/$side.types"
	done
	deps=same
	cmp -s "$w/full.json" "$w/slim.json" || deps=DIFFERENT
	btf=same
	cmp -s "$w/full.types" "$w/slim.types" || btf=DIFFERENT
	echo "| $p | $lines | $pct | yes | $deps | $btf |"
	echo "$lines" >> "$tmp/ratios"
done
echo
sort -n "$tmp/ratios" | awk -v full="$full" '
	{ v[NR] = $1 }
	END {
		if (!NR) exit
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%d programs; median %d lines, %.2f%% of the full header'"'"'s %d\n", NR, m, 100 * m / full, full
	}'
