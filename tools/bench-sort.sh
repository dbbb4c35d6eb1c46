#!/bin/sh
# Benchmarks `btfcanon sort` on real BTF: wall and CPU of whole runs and
# the per-phase times (btfcanon --stats), peak RSS (GNU time).
# Prints medians over RUNS runs per input and order, as BENCH.md quotes them.
#
#   tools/bench-sort.sh [RUNS]        (default 11)
#
# Inputs: /sys/kernel/btf/vmlinux and the .BTF of Debian's 6.12.117 debug
# vmlinux (tools/setup-debian.sh installs it).
set -eu

RUNS=${1:-11}
BIN=${BTFCANON:-build/btfcanon}
DEBUG_VMLINUX=/usr/lib/debug/boot/vmlinux-6.12.117+deb12-cloud-amd64
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

bench() {
	input=$1 order=$2
	: > "$TMP/runs"
	i=0
	while [ "$i" -lt "$RUNS" ]; do
		/usr/bin/time -f '%M' -o "$TMP/time" \
			"$BIN" sort --stats --order="$order" "$input" -o "$TMP/out.btf" 2> "$TMP/stats"
		read -r rss < "$TMP/time"
		rounds=$(awk '/refinement rounds/ { print $3 }' "$TMP/stats")
		ph() { awk -v k="$1" 'index($0, k) { print $(NF - 1) }' "$TMP/stats"; }
		# wall and CPU from --stats (ms resolution; GNU time's is 10 ms)
		wall=$(awk '/  total/ { print $2 }' "$TMP/stats")
		cpu=$(awk '/  total/ { print $5 }' "$TMP/stats")
		echo "$wall $cpu $rss $(ph read+validate) $(ph 'rank (local') $(ph 'refine ') $(ph rebuild) $(ph write) $rounds" >> "$TMP/runs"
		i=$((i + 1))
	done
	col() { awk -v c="$1" '{ print $c }' "$TMP/runs" | median; }
	printf '| %s | %s | %s s | %s s | %s MB | %s | %s | %s | %s | %s | %s |\n' \
		"$input" "$order" "$(col 1)" "$(col 2)" "$(( $(col 3 | cut -d. -f1) / 1024 ))" \
		"$(col 4)" "$(col 5)" "$(col 6)" "$(col 7)" "$(col 8)" "$(col 9)"
}

echo "btfcanon $("$BIN" --version | cut -d' ' -f2), $RUNS runs each, medians; $(nproc) CPUs, $(date -u +%Y-%m-%d)"
echo
echo '| input | order | wall | CPU | peak RSS | read+validate | rank | refine | rebuild | write | rounds |'
echo '|---|---|---|---|---|---|---|---|---|---|---|'
for input in /sys/kernel/btf/vmlinux "$DEBUG_VMLINUX"; do
	[ -r "$input" ] || { echo "| $input | missing | | | | | | | | | |"; continue; }
	for order in kind name; do
		bench "$input" "$order"
	done
done
