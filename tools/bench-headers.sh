#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The header table of BENCH.md: changed lines (added + deleted, from
# `git diff --no-index --numstat`, git's default algorithm) between the
# vmlinux.h of two kernels, for `btfcanon dump -f c` and for bpftool's
# `btf dump file X format c`, next to the lower bound of any line-ordered
# header (the symmetric difference of the two headers' line multisets,
# computed on btfcanon's headers).
#
#   BTFCANON=build/btfcanon BPFTOOL=bpftool tools/bench-headers.sh PAIRS
#
# PAIRS is a file with one pair a line, "OLD NEW", each a raw BTF file or
# an ELF file with a .BTF section; a pair is named by the two files'
# names without directory and ".btf". Prints a Markdown table; the last
# column says which header changed fewer lines.
set -eu
BTFCANON=${BTFCANON:-build/btfcanon}
BPFTOOL=${BPFTOOL:-bpftool}
[ $# -eq 1 ] && [ -r "$1" ] || {
	echo "usage: BTFCANON=... BPFTOOL=... $0 PAIRS" >&2
	exit 2
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

label() {
	basename "$1" .btf
}

# header TOOL FILE: the path of TOOL's header of FILE, made once.
header() {
	out=$tmp/$1-$(label "$2" | tr '/ ' '__').h
	if [ ! -e "$out" ]; then
		case $1 in
		btfcanon) "$BTFCANON" dump -f c "$2" -o "$out" ;;
		bpftool) "$BPFTOOL" btf dump file "$2" format c > "$out" ;;
		esac
	fi
	echo "$out"
}

changed() {
	n=$(git diff --no-index --numstat "$1" "$2" | awk '{ print $1 + $2 }')
	echo "${n:-0}"
}

lower() {
	sort "$1" > "$tmp/a"
	sort "$2" > "$tmp/b"
	comm -3 "$tmp/a" "$tmp/b" | wc -l
}

echo "| old -> new | btfcanon | bpftool | lower bound | fewer |"
echo "|---|---|---|---|---|"
while read -r old new; do
	[ -n "$old" ] || continue
	c=$(changed "$(header btfcanon "$old")" "$(header btfcanon "$new")")
	b=$(changed "$(header bpftool "$old")" "$(header bpftool "$new")")
	l=$(lower "$(header btfcanon "$old")" "$(header btfcanon "$new")")
	if [ "$c" -lt "$b" ]; then w=btfcanon
	elif [ "$c" -gt "$b" ]; then w=bpftool
	else w=equal
	fi
	echo "| $(label "$old") -> $(label "$new") | $c | $b | $l | $w |"
done < "$1"
