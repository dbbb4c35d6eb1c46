#!/bin/sh
# Benchmarks module encoding as a kernel build does it: one process per
# module, each module's BTF split over the same vmlinux BTF, with the
# kernel-build options. For every module, btfcanon-pahole runs, then the
# peer pahole (paired runs: a noisy neighbour slows both alike). Prints,
# for each tool: total CPU (user + sys) over all modules, median and p95
# per-module wall time, peak RSS (the largest of any module), and the
# ratios btfcanon is held to (BENCH.md "Modules").
#
#   tools/bench-modules.sh BASE_BTF [MODDIR] [EVERY]
#
# BASE_BTF  vmlinux BTF the modules are split over (raw BTF file)
# MODDIR    modules with DWARF (default: Debian 6.12.117 cloud's debug tree)
# EVERY     take every EVERY-th module in sorted path order (default 1: all)
#
# PAHOLE=path picks the peer (default: pahole on PATH). A pahole older
# than 1.26 has no --btf_features: it gets the options the kernel build
# gives it (-j --btf_gen_floats --lang_exclude=rust); a newer one gets
# the kernel-build feature list, as btfcanon-pahole always does.
# BTFCANON_PAHOLE=path picks btfcanon's drop-in (default build/...).
# Per-module rows (tool, module, wall, cpu, rss_kb) go to $OUT if set.
set -eu

BASE=${1:?usage: tools/bench-modules.sh BASE_BTF [MODDIR] [EVERY]}
MODDIR=${2:-/usr/lib/debug/lib/modules/6.12.117+deb12-cloud-amd64/kernel}
EVERY=${3:-1}
BCP=${BTFCANON_PAHOLE:-build/btfcanon-pahole}
PAHOLE=${PAHOLE:-pahole}
FEATURES=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

[ -r "$BASE" ] || { echo "bench-modules: $BASE: not readable" >&2; exit 1; }
[ -d "$MODDIR" ] || { echo "bench-modules: $MODDIR: no such directory" >&2; exit 1; }
[ -x "$BCP" ] || { echo "bench-modules: $BCP: not built (make)" >&2; exit 1; }

ver=$("$PAHOLE" --version | sed 's/^v//')
major=${ver%%.*}
minor=${ver#*.}
minor=${minor%%[!0-9]*}
if [ "$major" -gt 1 ] || [ "$minor" -ge 26 ]; then
	PEER_OPTS="-j --btf_features=$FEATURES"
else
	PEER_OPTS="-j --btf_gen_floats --lang_exclude=rust"
fi

find "$MODDIR" -name '*.ko' | LC_ALL=C sort |
	awk -v e="$EVERY" '(NR - 1) % e == 0' > "$TMP/list"
nr=$(wc -l < "$TMP/list")
[ "$nr" -gt 0 ] || { echo "bench-modules: no .ko under $MODDIR" >&2; exit 1; }

# run TOOL NAME CMD...: one timed run; appends "tool name wall cpu rss"
# (sh has no locals: r_ names keep clear of the caller's)
run() {
	r_tool=$1 r_name=$2
	shift 2
	if ! /usr/bin/time -f '%e %U %S %M' -o "$TMP/time" "$@" \
		> /dev/null 2> "$TMP/stderr"; then
		echo "bench-modules: $r_tool failed on $r_name:" >&2
		cat "$TMP/stderr" >&2
		echo "$r_tool $r_name FAIL" >> "$TMP/fail"
		return 0
	fi
	read -r wall user sys rss < "$TMP/time"
	echo "$r_tool $r_name $wall $(awk "BEGIN { print $user + $sys }") $rss" >> "$TMP/rows"
	rm -f "$TMP/out.btf"
}

echo "bench-modules: $nr modules (every $EVERY), base $BASE; btfcanon-pahole vs $PAHOLE $ver; $(nproc) CPUs, $(date -u +%Y-%m-%d)"
: > "$TMP/rows"
while read -r mod; do
	name=$(basename "$mod" .ko)
	run btfcanon "$name" "$BCP" -J -j --btf_features="$FEATURES" \
		--lang_exclude=rust --btf_base "$BASE" \
		--btf_encode_detached="$TMP/out.btf" "$mod"
	# shellcheck disable=SC2086
	run pahole "$name" "$PAHOLE" -J $PEER_OPTS --btf_base "$BASE" \
		--btf_encode_detached="$TMP/out.btf" "$mod"
done < "$TMP/list"
[ -n "${OUT:-}" ] && cp "$TMP/rows" "$OUT"

# summary TOOL: "total_cpu median_wall p95_wall peak_rss_mb n"
summary() {
	awk -v t="$1" '$1 == t { print $3, $4, $5 }' "$TMP/rows" > "$TMP/$1"
	cpu=$(awk '{ s += $2 } END { printf "%.2f", s }' "$TMP/$1")
	med=$(awk '{ print $1 }' "$TMP/$1" | sort -n |
	      awk '{ v[NR] = $1 } END { printf "%.3f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
	p95=$(awk '{ print $1 }' "$TMP/$1" | sort -n |
	      awk '{ v[NR] = $1 } END { i = int(NR * 0.95 + 0.999); if (i < 1) i = 1; printf "%.3f", v[i] }')
	rss=$(awk '{ if ($3 > m) m = $3 } END { printf "%.0f", m / 1024 }' "$TMP/$1")
	n=$(wc -l < "$TMP/$1")
	echo "$cpu $med $p95 $rss $n"
}

set -- $(summary btfcanon)
bc_cpu=$1 bc_med=$2 bc_p95=$3 bc_rss=$4 bc_n=$5
set -- $(summary pahole)
ph_cpu=$1 ph_med=$2 ph_p95=$3 ph_rss=$4 ph_n=$5
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "-"; else printf "%.2f", a / b }'; }

printf '%-22s %12s %12s %8s\n' "" btfcanon "pahole $ver" ratio
printf '%-22s %12s %12s %8s\n' "modules encoded" "$bc_n" "$ph_n" ""
printf '%-22s %12s %12s %8s\n' "total CPU (s)" "$bc_cpu" "$ph_cpu" "$(ratio "$bc_cpu" "$ph_cpu")"
printf '%-22s %12s %12s %8s\n' "median wall (s)" "$bc_med" "$ph_med" "$(ratio "$bc_med" "$ph_med")"
printf '%-22s %12s %12s %8s\n' "p95 wall (s)" "$bc_p95" "$ph_p95" "$(ratio "$bc_p95" "$ph_p95")"
printf '%-22s %12s %12s %8s\n' "peak RSS (MB)" "$bc_rss" "$ph_rss" "$(ratio "$bc_rss" "$ph_rss")"
if [ -s "$TMP/fail" ]; then
	echo "failures:"
	cat "$TMP/fail"
	exit 1
fi
