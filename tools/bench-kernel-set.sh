#!/bin/sh
# Benchmarks reading a kernel with all its modules (archive/kernel_set.c)
# through `btfcanon deps`: the package read once, every module
# decompressed and parsed over the kernel's BTF, then indexed, and one
# small object (tests/fixtures/deps/kmod.bpf.c) checked. Prints, per
# package and CPU count, the median wall, CPU (user + sys) and peak RSS
# of N runs (BENCH.md "Kernels with their modules").
#
#   tools/bench-kernel-set.sh [N] PACKAGE...
#
# CPUS="1 2" picks the affinity masks tried (taskset -c 0, 0-1):
# bc_par_cpus() follows the mask, so 1 is -j1.
set -eu

N=${1:-5}
shift
BTFCANON=${BTFCANON:-build/btfcanon}
CPUS=${CPUS:-"1 2"}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
clang -target bpf -O2 -g -Itests/fixtures/deps -c -o "$TMP/kmod.bpf.o" \
	tests/fixtures/deps/kmod.bpf.c
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for pkg in "$@"; do
	for c in $CPUS; do
		mask=$(( c - 1 ))
		: > "$TMP/rows"
		i=0
		while [ "$i" -lt "$N" ]; do
			/usr/bin/time -f '%e %U %S %M' -o "$TMP/t" taskset -c 0-$mask \
				"$BTFCANON" deps "$TMP/kmod.bpf.o" --kernel "$pkg" \
				> /dev/null 2>&1 || true
			awk '{ print $1, $2 + $3, $4 }' "$TMP/t" >> "$TMP/rows"
			i=$((i + 1))
		done
		wall=$(cut -d' ' -f1 "$TMP/rows" | median)
		cpu=$(cut -d' ' -f2 "$TMP/rows" | median)
		rss=$(cut -d' ' -f3 "$TMP/rows" | median)
		printf '%s  cpus=%s  wall %s s  cpu %s s  rss %s MiB  (n=%s)\n' \
			"$(basename "$pkg")" "$c" "$wall" "$cpu" "$((rss / 1024))" "$N"
	done
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
