#!/bin/sh
# Benchmarks `btfcanon encode` side by side with Debian's pahole 1.24 and a
# bare libdw walk of every DIE (build/dwarf-walk), at 1 and 2 threads, on
# the same file in one run. Runs alternate (btfcanon, pahole, walk, then
# again), so a noisy neighbour slows all three alike. Prints medians of
# wall, CPU (user + sys) and peak RSS from GNU time, the ratios the encoder
# is held to, and btfcanon's per-phase times (--stats), as BENCH.md quotes.
#
#   tools/bench-encode.sh [RUNS] [VMLINUX]     (default 5, Debian 6.12.117)
#
# TOOLS="pahole walk" leaves btfcanon out (or any other subset of
# "btfcanon pahole walk"); JOBS="1 2" are the thread counts.
set -eu

RUNS=${1:-5}
VMLINUX=${2:-/usr/lib/debug/boot/vmlinux-6.12.117+deb12-cloud-amd64}
BIN=${BTFCANON:-build/btfcanon}
WALK=${DWARF_WALK:-build/dwarf-walk}
PAHOLE=${PAHOLE:-pahole}
TOOLS=${TOOLS:-btfcanon pahole walk}
JOBS=${JOBS:-1 2}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

[ -r "$VMLINUX" ] || { echo "bench-encode: $VMLINUX: not readable (tools/setup-debian.sh installs it)" >&2; exit 1; }

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# run TOOL N: one timed run; appends "wall cpu rss_kb" to $TMP/TOOL-N
run() {
	tool=$1 n=$2
	case $tool in
	btfcanon)
		set -- "$BIN" encode -j"$n" --stats "$VMLINUX" -o "$TMP/out.btf" ;;
	pahole)
		set -- "$PAHOLE" -J -j"$n" --btf_gen_floats \
			--btf_encode_detached="$TMP/out.btf" "$VMLINUX" ;;
	walk)
		set -- "$WALK" -j"$n" "$VMLINUX" ;;
	esac
	if ! /usr/bin/time -f '%e %U %S %M' -o "$TMP/time" "$@" \
		> "$TMP/stdout" 2> "$TMP/stderr"; then
		echo "bench-encode: failed: $*" >&2
		cat "$TMP/stderr" >&2
		exit 1
	fi
	read -r wall user sys rss < "$TMP/time"
	echo "$wall $(awk "BEGIN { print $user + $sys }") $rss" >> "$TMP/$tool-$n"
	# btfcanon's phases: "  NAME   X s ..." lines of --stats
	if [ "$tool" = btfcanon ]; then
		awk '/^  [a-z+]+ +[0-9.]+ s/ { print $1, $2 }' "$TMP/stderr" \
			>> "$TMP/phases-$n"
	fi
	rm -f "$TMP/out.btf"
}

col() { [ -s "$1" ] && awk -v c="$2" '{ print $c }' "$1" | median; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b == 0) print "-"; else printf "%.2f", a / b }'; }

echo "bench-encode: $RUNS runs each, alternating [$TOOLS] x -j[$JOBS]; $(nproc) CPUs, $(date -u +%Y-%m-%d)"
echo "input: $VMLINUX"
echo "btfcanon $(git -C "$(dirname "$0")/.." rev-parse --short HEAD 2>/dev/null || echo '?'), $("$PAHOLE" --version 2>/dev/null || echo 'pahole missing'), libdw $(pkg-config --modversion libdw 2>/dev/null || echo '?')"
echo

i=0
while [ "$i" -lt "$RUNS" ]; do
	for n in $JOBS; do
		for tool in $TOOLS; do
			run "$tool" "$n"
		done
	done
	i=$((i + 1))
done

echo '| tool | -j | wall | CPU | peak RSS |'
echo '|---|---|---|---|---|'
for tool in $TOOLS; do
	for n in $JOBS; do
		f=$TMP/$tool-$n
		printf '| %s | %s | %s s | %s s | %s MB |\n' "$tool" "$n" \
			"$(col "$f" 1)" "$(col "$f" 2)" \
			"$(( $(col "$f" 3 | cut -d. -f1) / 1024 ))"
	done
done

echo
echo '| ratio (medians) | value |'
echo '|---|---|'
for n in $JOBS; do
	echo "| walk wall -j$n / pahole wall -j$n | $(ratio "$(col "$TMP/walk-$n" 1)" "$(col "$TMP/pahole-$n" 1)") |"
	case " $TOOLS " in *" btfcanon "*)
		echo "| btfcanon wall -j$n / pahole wall -j$n | $(ratio "$(col "$TMP/btfcanon-$n" 1)" "$(col "$TMP/pahole-$n" 1)") |"
		echo "| btfcanon wall -j$n / walk wall -j$n | $(ratio "$(col "$TMP/btfcanon-$n" 1)" "$(col "$TMP/walk-$n" 1)") |"
		;;
	esac
done
for tool in $TOOLS; do
	echo "| $tool CPU -j2 / CPU -j1 | $(ratio "$(col "$TMP/$tool-2" 2)" "$(col "$TMP/$tool-1" 2)") |"
	echo "| $tool wall -j1 / wall -j2 (speedup) | $(ratio "$(col "$TMP/$tool-1" 1)" "$(col "$TMP/$tool-2" 1)") |"
done

for n in $JOBS; do
	[ -s "$TMP/phases-$n" ] || continue
	echo
	echo "btfcanon -j$n phases (--stats, medians):"
	echo
	echo '| phase | wall |'
	echo '|---|---|'
	for phase in $(awk '{ print $1 }' "$TMP/phases-$n" | awk '!seen[$0]++'); do
		printf '| %s | %s s |\n' "$phase" \
			"$(awk -v p="$phase" '$1 == p { print $2 }' "$TMP/phases-$n" | median)"
	done
done
