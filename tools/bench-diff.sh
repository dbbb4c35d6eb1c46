#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Numbers for the "diff and dump" section of BENCH.md: wall time of
# `btfcanon diff` and `btfcanon dump -f c` on vmlinux BTFs (best of N runs,
# warm cache). Header stability across kernels: tools/bench-headers.sh.
#
#   tools/bench-diff.sh [BTFCANON] [RUNS]
set -eu
BTFCANON=${1:-build/btfcanon}
RUNS=${2:-5}
K=/usr/lib/debug/boot
V115=$K/vmlinux-6.12.115+deb12-cloud-amd64
V117=$K/vmlinux-6.12.117+deb12-cloud-amd64
V61=$K/vmlinux-6.1.0-56-cloud-amd64

# best_of CMD...: the lowest wall time of RUNS runs, in seconds.
best_of() {
	best=
	i=0
	while [ $i -lt "$RUNS" ]; do
		t0=$(date +%s.%N)
		"$@" > /dev/null || [ $? -eq 1 ]
		t1=$(date +%s.%N)
		t=$(echo "$t1 - $t0" | bc)
		if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" -eq 1 ]; then
			best=$t
		fi
		i=$((i + 1))
	done
	printf '%.3f' "$best"
}

echo "| what | wall (best of $RUNS) |"
echo "|---|---|"
echo "| diff 6.12.115 -> 6.12.117 | $(best_of "$BTFCANON" diff "$V115" "$V117") s |"
echo "| diff 6.1.192 -> 6.12.117 | $(best_of "$BTFCANON" diff "$V61" "$V117") s |"
echo "| diff --stat 6.1.192 -> 6.12.117 | $(best_of "$BTFCANON" diff --stat "$V61" "$V117") s |"
echo "| dump -f c 6.12.117 | $(best_of "$BTFCANON" dump -f c "$V117") s |"
echo "| dump -f raw 6.12.117 | $(best_of "$BTFCANON" dump -f raw "$V117") s |"
echo "| bpftool btf dump format c 6.12.117 | $(best_of bpftool btf dump file "$V117" format c) s |"
