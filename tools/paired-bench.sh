#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Paired timing of two commands on a shared, noisy machine:
#
#   tools/paired-bench.sh [-n RUNS] [-w WARMUP] -a 'COMMAND A' [-b 'COMMAND B']
#
# Runs WARMUP uncounted runs of each (default 1), then A B A B ... RUNS
# times each (default 11), every run under GNU time (/usr/bin/time: wall,
# user + system CPU, peak RSS of the largest process waited for). Prints
# min / median / max of each figure per command and, with B, the median of
# the A/B ratios taken pair by pair: the pairing keeps a ratio meaningful
# when the machine's speed drifts during the call, so quote medians and
# ratios, not single runs. Commands run through sh -c (pipes and
# redirections allowed); their output is discarded. GNU time reports wall
# in hundredths of a second: for commands under ~0.1 s use more runs, or
# `perf stat -r N` for the CPU of one command.
set -eu

runs=11
warm=1
cmd_a=
cmd_b=
while getopts n:w:a:b: opt; do
	case $opt in
	n) runs=$OPTARG ;;
	w) warm=$OPTARG ;;
	a) cmd_a=$OPTARG ;;
	b) cmd_b=$OPTARG ;;
	*) echo "usage: $0 [-n RUNS] [-w WARMUP] -a 'COMMAND A' [-b 'COMMAND B']" >&2
	   exit 2 ;;
	esac
done
if [ -z "$cmd_a" ]; then
	echo "usage: $0 [-n RUNS] [-w WARMUP] -a 'COMMAND A' [-b 'COMMAND B']" >&2
	exit 2
fi
[ -x /usr/bin/time ] || { echo "$0: needs GNU time (apt-get install time)" >&2; exit 2; }

log=$(mktemp)
trap 'rm -f "$log"' EXIT

# one run: "TAG wall cpu rss_kb exit" appended to the log
one() {
	tag=$1
	cmd=$2
	/usr/bin/time -o "$log.t" -f '%e %U %S %M %x' sh -c "$cmd" >/dev/null 2>&1 || true
	read -r wall user sys rss code < "$log.t"
	echo "$tag $wall $(echo "$user $sys" | awk '{ printf "%.2f", $1 + $2 }') $rss $code" >> "$log"
	rm -f "$log.t"
}

i=0
while [ "$i" -lt "$warm" ]; do
	one W "$cmd_a"
	[ -n "$cmd_b" ] && one W "$cmd_b"
	i=$((i + 1))
done
i=0
while [ "$i" -lt "$runs" ]; do
	one A "$cmd_a"
	[ -n "$cmd_b" ] && one B "$cmd_b"
	i=$((i + 1))
done

echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), $runs runs each"
awk -v has_b="$([ -n "$cmd_b" ] && echo 1 || echo 0)" '
function median(a, n,    i, j, t) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function show(tag, w, c, r, n, bad,    wm, cm, rm) {
	wm = median(w, n); cm = median(c, n); rm = median(r, n)
	printf "%s: wall %.3f s (%.3f-%.3f)  cpu %.3f s (%.3f-%.3f)  peak %.1f MiB (%.1f-%.1f)%s\n",
		tag, wm, w[1], w[n], cm, c[1], c[n], rm / 1024, r[1] / 1024, r[n] / 1024,
		bad ? sprintf("  [%d runs exited non-zero]", bad) : ""
}
$1 == "A" { na++; aw[na] = $2; ac[na] = $3; ar[na] = $4; if ($5 != 0) abad++ }
$1 == "B" { nb++; bw[nb] = $2; bc[nb] = $3; br[nb] = $4; if ($5 != 0) bbad++
	    if (bw[nb] > 0) rw[++nrw] = aw[nb] / bw[nb]
	    if (bc[nb] > 0) rc[++nrc] = ac[nb] / bc[nb] }
END {
	for (i = 1; i <= na; i++) { w1[i] = aw[i]; c1[i] = ac[i]; r1[i] = ar[i] }
	show("A", w1, c1, r1, na, abad)
	if (!has_b)
		exit
	for (i = 1; i <= nb; i++) { w2[i] = bw[i]; c2[i] = bc[i]; r2[i] = br[i] }
	show("B", w2, c2, r2, nb, bbad)
	printf "A/B, median of the pairs: wall %s  cpu %s\n",
		nrw ? sprintf("%.2fx", median(rw, nrw)) : "n/a (B under 0.01 s)",
		nrc ? sprintf("%.2fx", median(rc, nrc)) : "n/a (B under 0.01 s)"
}' "$log"
