#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# `btfcanon header` from raw kernel files (BENCH.md, "header from files"):
# wall, CPU (user + sys) and peak RSS (GNU time -v) of the header of a set
# of .btf files at each -j, the median of N runs, runs of the -j values
# (and of OLD, a binary before -j, when given) taken in turns; every run's
# header compared byte for byte with the first.
#
#   B=build/btfcanon [OLD=old-btfcanon] [N=3] [JOBS="1 2"] \
#       tools/bench-header-files.sh DIR
#
# DIR is made once from what the setup leaves on the machine: the kernel
# packages of /var/cache/btfcanon-tests and the .BTF of the debug images
# of /usr/lib/debug/boot, each sorted (`btfcanon sort`) into VERSION.btf;
# the running kernel's /sys/kernel/btf/vmlinux copied as `uname -r`.btf;
# and copies of those under older versions of their series (6.1.0-50..55,
# 6.12.111..114, arm64 6.1.0-52..55) up to 20 files, as a distribution's
# kernels of one series are much alike. A second set, DIR/2, holds the
# newest kernel of each architecture alone, so that the cost of a file
# is (T(DIR) - T(DIR/2)) / (files - 2).
set -eu
B=${B:-build/btfcanon}
OLD=${OLD:-}
N=${N:-3}
JOBS=${JOBS:-"1 2"}
[ $# -eq 1 ] || { echo "usage: B=... $0 DIR" >&2; exit 2; }
dir=$1

make_set() {
	mkdir -p "$dir/2"
	for deb in /var/cache/btfcanon-tests/linux-image-*.deb; do
		v=$(basename "$deb" | sed -E 's/^linux-image-([^_]*)_.*/\1/')
		[ -e "$dir/$v.btf" ] || "$B" sort "$deb" -o "$dir/$v.btf"
	done
	for vm in /usr/lib/debug/boot/vmlinux-*; do
		v=${vm##*/vmlinux-}
		[ -e "$dir/$v.btf" ] || "$B" sort "$vm" -o "$dir/$v.btf"
	done
	cp /sys/kernel/btf/vmlinux "$dir/$(uname -r).btf"
	for n in 50 51 52 53 54 55; do
		cp "$dir/6.1.0-56-cloud-amd64.btf" "$dir/6.1.0-$n-cloud-amd64.btf"
	done
	for n in 52 53 54 55; do
		cp "$dir/6.1.0-56-cloud-arm64.btf" "$dir/6.1.0-$n-cloud-arm64.btf"
	done
	for n in 111 113; do
		cp "$dir/6.12.115+deb12-cloud-amd64.btf" "$dir/6.12.$n+deb12-cloud-amd64.btf"
	done
	for n in 112 114; do
		cp "$dir/6.12.117+deb12-cloud-amd64.btf" "$dir/6.12.$n+deb12-cloud-amd64.btf"
	done
	cp "$dir/$(uname -r).btf" "$dir/6.1.0-56-cloud-arm64.btf" "$dir/2/"
}

[ -e "$dir/2" ] || make_set

# run LABEL SET BINARY ARGS...: one timed run, "LABEL wall cpu rss_kb"
run() {
	label=$1 set=$2 bin=$3
	shift 3
	args=()
	for f in "$set"/*.btf; do args+=(--kernel "$f"); done
	/usr/bin/time -v -o "$dir/time" "$bin" header "$@" "${args[@]}" \
		-o "$dir/$label.h"
	awk -v l="$label" -F': ' '
		/Elapsed \(wall/ { n = split($2, t, ":"); w = t[n] + (n > 1 ? 60 * t[n - 1] : 0) }
		/User time/ { u = $2 } /System time/ { s = $2 }
		/Maximum resident/ { m = $2 }
		END { printf "%s %.2f %.2f %d\n", l, w, u + s, m }' "$dir/time"
}

: > "$dir/runs"
for i in $(seq "$N"); do
	for set in "$dir" "$dir/2"; do
		tag=$([ "$set" = "$dir" ] && echo all || echo two)
		for j in $JOBS; do
			run "$tag-j$j" "$set" "$B" -j"$j" >> "$dir/runs"
			cmp "$dir/$tag-j$j.h" "$dir/$tag-j${JOBS%% *}.h"
		done
		if [ -n "$OLD" ]; then
			run "$tag-old" "$set" "$OLD" >> "$dir/runs"
			cmp "$dir/$tag-old.h" "$dir/$tag-j${JOBS%% *}.h"
		fi
	done
done
files=$(ls "$dir"/*.btf | wc -l)
echo "$files files; medians of $N (wall s, CPU s, peak RSS MB); per file: (all - two) / $((files - 2))"
for label in $(awk '{ print $1 }' "$dir/runs" | sort -u); do
	w=$(awk -v l="$label" '$1 == l { print $2 }' "$dir/runs" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
	c=$(awk -v l="$label" '$1 == l { print $3 }' "$dir/runs" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
	m=$(awk -v l="$label" '$1 == l { print $4 }' "$dir/runs" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
	printf '%-10s wall %5.2f  CPU %5.2f  RSS %4d MB\n' "$label" "$w" "$c" $((m / 1024))
done
