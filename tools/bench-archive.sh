#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The 118-kernel benchmark of issue 21: Debian 12's ordinary kernel image
# packages (flavors amd64, cloud-amd64, rt-amd64, arm64, cloud-arm64,
# rt-arm64, arm64-16k; versions 6.1.0-44..56 and 6.12.100..117, as many of
# them as the archive has: 118 when this was written), and what it costs
# to keep their BTF:
#
#   raw             the kernels' own BTF (build/btf-extract), all of it
#   xz per kernel   one NAME.btf.tar.xz per kernel, xz -9, as BTFHub keeps them
#   solid tar.xz    one tar of all, xz -9 with a 256 MiB dictionary
#   solid zstd      the same tar, zstd -19 --long
#   sorted + zstd   each kernel through `btfcanon sort` first, then as above
#   archive         `btfcanon archive` (the section marked ARCHIVE below)
#
#   tools/bench-archive.sh DIR
#   tools/bench-archive.sh DIR sets
#
# "sets" runs only the last part: small sets of kernels that share little
# (taken from DIR/btf/ when there, the running kernel's BTF, and the
# repository's tests/data: a module's BTF, 2-3 KB kernels), each as
# `tar | xz -9e`, per-file `xz -9`, `tar | zstd -19 --long` and as an
# archive, which must be no larger than the first (issue 27).
#
# DIR (outside the repository; created if needed) keeps the packages
# (DIR/debs/, fetched with `apt-get download` unless already there: a DIR
# that holds the .debs directly, such as /work/images, is used as it is),
# the extracted BTF (DIR/btf/, DIR/sorted/) and the compressed forms
# (DIR/out/). Prints one line per figure: bytes, MB (10^6) and seconds.
# Needs root for apt-get (arm64 packages: `dpkg --add-architecture arm64`
# and `apt-get update`, which this does when arm64 is missing). The solid
# xz alone takes about 8 minutes; run it on an otherwise idle machine.
set -eu

[ $# -eq 1 ] || [ $# -eq 2 ] && [ "${2:-sets}" = sets ] || {
	echo "usage: tools/bench-archive.sh DIR [sets]" >&2
	exit 2
}
only_sets=${2:-}
src=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mkdir -p "$1" && cd "$1" && pwd)
case $dir/ in
"$src"/*)
	echo "bench-archive: $dir is inside the repository; give a directory outside it" >&2
	exit 2
	;;
esac
BTFCANON=${BTFCANON:-$src/build/btfcanon}
EXTRACT=${BTF_EXTRACT:-$src/build/btf-extract}
tools=$BTFCANON
[ -n "$only_sets" ] || tools="$tools $EXTRACT"
for tool in $tools; do
	[ -x "$tool" ] || {
		echo "bench-archive: $tool missing: run make first" >&2
		exit 1
	}
done
export LC_ALL=C

now() { date +%s.%N; }
elapsed() { awk "BEGIN { printf \"%.1f\", $(now) - $1 }"; }
size() { wc -c < "$1" | tr -d ' '; }
# figure LABEL BYTES SECONDS
figure() {
	awk -v l="$1" -v b="$2" -v s="$3" \
		'BEGIN { printf "%-34s %12d bytes %9.1f MB %8s s\n", l, b, b / 1e6, s }'
}

mkdir -p "$dir/out"

# --- SETS: kernels that share little (issue 27) ---
# Each set as one solid `tar | xz -9e` (the bar the archive must not
# exceed), one `xz -9` per file, `tar | zstd -19 --long`, and the archive.
compare_set() {
	label=$1
	shift
	rm -rf "$dir/set" && mkdir -p "$dir/set"
	for f in "$@"; do
		[ -r "$f" ] || return 0	# a set whose kernels are not all here
		cp "$f" "$dir/set/"
	done
	(cd "$dir/set" && ls | tar -cf "$dir/out/set.tar" -T -)
	t0=$(now)
	xz -9e -T1 -c "$dir/out/set.tar" > "$dir/out/set.tar.xz"
	solid=$(size "$dir/out/set.tar.xz")
	t_xz=$(elapsed "$t0")
	per=0
	for f in "$dir"/set/*; do
		per=$((per + $(xz -9 -T1 -c "$f" | wc -c)))
	done
	zst=$(zstd -q -19 --long -T1 -c "$dir/out/set.tar" | wc -c)
	rm -f "$dir/out/set.bca"
	t0=$(now)
	"$BTFCANON" archive create "$dir/out/set.bca" "$dir"/set/* -j1
	t_ar=$(elapsed "$t0")
	bca=$(size "$dir/out/set.bca")
	verdict=ok
	[ "$bca" -le "$solid" ] || verdict=LARGER
	echo "$label ($# kernels): tar|xz -9e $solid ($t_xz s), xz -9 per file $per," \
		"tar|zstd -19 --long $zst, archive $bca ($t_ar s): archive/xz" \
		"$(awk "BEGIN { printf \"%.3f\", $bca / $solid }") $verdict"
}
b=$dir/btf
running=/sys/kernel/btf/vmlinux
if [ -r "$running" ]; then
	cp "$running" "$dir/out/running-$(uname -r).btf"
	running=$dir/out/running-$(uname -r).btf
fi
compare_set "running kernel alone" "$running"
compare_set "6.1 amd64 alone" "$b/6.1.0-56-amd64.btf"
compare_set "6.12 arm64-16k alone" "$b/6.12.117+deb12-arm64-16k.btf"
compare_set "6.1 amd64 + 6.12 arm64" "$b/6.1.0-56-amd64.btf" \
	"$b/6.12.117+deb12-arm64.btf"
compare_set "6.12 amd64 + cloud-amd64" "$b/6.12.117+deb12-amd64.btf" \
	"$b/6.12.117+deb12-cloud-amd64.btf"
compare_set "6.1 amd64 + 6.12 arm64 + running" "$b/6.1.0-56-amd64.btf" \
	"$b/6.12.117+deb12-arm64.btf" "$running"
compare_set "five that share little + running" "$b/6.1.0-56-amd64.btf" \
	"$b/6.12.117+deb12-arm64.btf" "$b/6.12.117+deb12-rt-amd64.btf" \
	"$b/6.1.0-52-cloud-arm64.btf" "$b/6.12.113+deb12-arm64-16k.btf" "$running"
# small sets (the repository's own files): a module's BTF, 2-3 KB kernels
d=$src/tests/data
compare_set "dummy.ko's BTF alone" "$d/dummy.btf"
compare_set "dummy.ko's BTF + 6.1 amd64" "$d/dummy.btf" "$b/6.1.0-56-amd64.btf"
compare_set "a 2 KB kernel alone" "$d/header/6.1.0-56-amd64.btf"
compare_set "the four 2-3 KB kernels" "$d"/header/*.btf
compare_set "dummy.ko's BTF + two 2-3 KB kernels" "$d/dummy.btf" \
	"$d/header/6.1.0-56-amd64.btf" "$d/header/6.18.44-fc-v669.btf"
# --- end of SETS ---
[ -z "$only_sets" ] || exit 0

# --- the packages ---


FLAVORS='amd64|cloud-amd64|rt-amd64|arm64|cloud-arm64|rt-arm64|arm64-16k'
# the issue's 118: 6.1.0-44..56, 6.12.100..117
in_range() {
	case $1 in
	6.1.0-*) n=${1#6.1.0-}; [ "$n" -ge 44 ] && [ "$n" -le 56 ] ;;
	6.12.*) n=${1#6.12.}; n=${n%+deb12}; [ "$n" -ge 100 ] && [ "$n" -le 117 ] ;;
	*) false ;;
	esac
}

package_list() {
	apt-cache pkgnames linux-image-6. |
	grep -E "^linux-image-(6\.1\.0-[0-9]+|6\.12\.[0-9]+\+deb12)-($FLAVORS)\$" |
	sort | while read -r pkg; do
		rest=${pkg#linux-image-}
		version=$(echo "$rest" | sed -E "s/-($FLAVORS)\$//")
		in_range "$version" || continue
		case $pkg in
		*arm64 | *arm64-16k) echo "$pkg:arm64" ;;
		*) echo "$pkg" ;;
		esac
	done
}

if ls "$dir"/linux-image-*.deb > /dev/null 2>&1; then
	debs=$dir
else
	debs=$dir/debs
	mkdir -p "$debs"
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		dpkg --add-architecture arm64
		apt-get update
	fi
	package_list > "$dir/LIST"
	missing=
	while read -r pkg; do
		name=${pkg%:arm64}
		ls "$debs/${name}_"*.deb > /dev/null 2>&1 || missing="$missing $pkg"
	done < "$dir/LIST"
	if [ -n "$missing" ]; then
		# shellcheck disable=SC2086 # one word per package
		(cd "$debs" && apt-get download $missing)
	fi
fi
nr=$(ls "$debs"/linux-image-*.deb | wc -l)
echo "packages: $nr in $debs"

# --- the kernels' BTF ---

mkdir -p "$dir/btf" "$dir/sorted" "$dir/out"
t0=$(now)
for deb in "$debs"/linux-image-*.deb; do
	name=$(basename "$deb" | sed -E 's/^linux-image-//; s/_.*//')
	[ -s "$dir/btf/$name.btf" ] || "$EXTRACT" "$deb" "$dir/btf/$name.btf"
done
t_extract=$(elapsed "$t0")
raw=0
for f in "$dir"/btf/*.btf; do raw=$((raw + $(size "$f"))); done
figure "raw BTF ($nr kernels)" "$raw" "$t_extract"

# xz per kernel, as BTFHub keeps them: NAME.btf.tar.xz
t0=$(now)
per=0
for f in "$dir"/btf/*.btf; do
	name=$(basename "$f")
	tar -C "$dir/btf" -cf - "$name" | xz -9 -T1 > "$dir/out/$name.tar.xz"
	per=$((per + $(size "$dir/out/$name.tar.xz")))
done
figure "xz -9 per kernel (BTFHub)" "$per" "$(elapsed "$t0")"

# the solid forms: one tar of every kernel, in name order
(cd "$dir/btf" && ls ./*.btf | tar -cf "$dir/out/all.tar" -T -)
t0=$(now)
xz -9 -T1 --lzma2=preset=9,dict=256MiB -c "$dir/out/all.tar" > "$dir/out/all.tar.xz"
figure "solid tar, xz -9 dict 256 MiB" "$(size "$dir/out/all.tar.xz")" "$(elapsed "$t0")"
t0=$(now)
xz -d -c "$dir/out/all.tar.xz" | tar -xOf - "./$(ls "$dir/btf" | tail -1)" > /dev/null
echo "  one kernel back out of it (the last): $(elapsed "$t0") s"

t0=$(now)
zstd -q -19 --long -T1 -c "$dir/out/all.tar" > "$dir/out/all.tar.zst"
figure "solid tar, zstd -19 --long" "$(size "$dir/out/all.tar.zst")" "$(elapsed "$t0")"

t0=$(now)
for f in "$dir"/btf/*.btf; do
	name=$(basename "$f")
	[ -s "$dir/sorted/$name" ] || "$BTFCANON" sort "$f" -o "$dir/sorted/$name"
done
t_sort=$(elapsed "$t0")
(cd "$dir/sorted" && ls ./*.btf | tar -cf "$dir/out/sorted.tar" -T -)
t0=$(now)
zstd -q -19 --long -T1 -c "$dir/out/sorted.tar" > "$dir/out/sorted.tar.zst"
figure "sorted, then solid zstd -19 --long" "$(size "$dir/out/sorted.tar.zst")" \
	"$(elapsed "$t0")"
echo "  (the sorts took $t_sort s)"

# --- ARCHIVE: the btfcanon archive's figures (issue 21's targets) ---
# For the archive's author: add here, with the same `figure` lines, the
# size of `btfcanon archive create` of all $nr kernels (target <= 3 MB since issue 27; 6 MB in issue 21),
# its time (<= 60 s), adding one kernel to the other ones (<= 1 s),
# extracting any one (<= 50 ms; byte-identical to $dir/sorted/NAME.btf),
# and `deps` of the 55 objects against it (<= 1 s, <= 300 MB peak).
# The sorted files to compare extracts with are in $dir/sorted/.
# Create from the packages themselves (what a user runs) and from the
# sorted files (the archive's own cost); add the last kernel to an archive
# of the others; extract every kernel and compare; time one extract.
if "$BTFCANON" archive --help > /dev/null 2>&1; then
	rm -f "$dir/out/debs.bca" "$dir/out/debs-j1.bca" "$dir/out/all.bca" \
		"$dir/out/but-last.bca"
	t0=$(now)
	"$BTFCANON" archive create "$dir/out/debs.bca" "$debs"/linux-image-*.deb
	figure "archive create, from the packages" "$(size "$dir/out/debs.bca")" \
		"$(elapsed "$t0")"
	t0=$(now)
	"$BTFCANON" archive create "$dir/out/debs-j1.bca" "$debs"/linux-image-*.deb -j1
	figure "archive create -j1, from the packages" "$(size "$dir/out/debs-j1.bca")" \
		"$(elapsed "$t0")"
	cmp -s "$dir/out/debs.bca" "$dir/out/debs-j1.bca" ||
		echo "  MISMATCH: -j1 gives other bytes than the default -j"
	t0=$(now)
	"$BTFCANON" archive create "$dir/out/all.bca" "$dir"/sorted/*.btf
	figure "archive create, from sorted BTF" "$(size "$dir/out/all.bca")" \
		"$(elapsed "$t0")"
	cmp -s "$dir/out/debs.bca" "$dir/out/all.bca" ||
		echo "  MISMATCH: the two archives differ"
	last=$(ls "$dir/sorted" | tail -1)
	# shellcheck disable=SC2046 # one word per file
	"$BTFCANON" archive create "$dir/out/but-last.bca" \
		$(ls "$dir"/sorted/*.btf | grep -v "/$last\$")
	t0=$(now)
	"$BTFCANON" archive add "$dir/out/but-last.bca" "$dir/sorted/$last"
	figure "archive add of one to the others" "$(size "$dir/out/but-last.bca")" \
		"$(elapsed "$t0")"
	cmp -s "$dir/out/but-last.bca" "$dir/out/all.bca" ||
		echo "  MISMATCH: add gives other bytes than create"
	bad=0
	for f in "$dir"/sorted/*.btf; do
		name=$(basename "$f" .btf)
		"$BTFCANON" archive extract "$dir/out/all.bca" "$name" -o "$dir/out/x.btf"
		cmp -s "$dir/out/x.btf" "$f" || bad=$((bad + 1))
	done
	echo "  extracts not byte-identical to sort: $bad"
	t0=$(now)
	for i in 1 2 3 4 5 6 7 8 9 10; do
		"$BTFCANON" archive extract "$dir/out/all.bca" "${last%.btf}" -o "$dir/out/x.btf"
	done
	echo "  one extract: $(awk "BEGIN { printf \"%.3f\", ($(now) - $t0) / 10 }") s (mean of 10)"
else
	echo "archive: this btfcanon has no archive command yet"
fi
# --- end of ARCHIVE ---
