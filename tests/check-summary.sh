#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The end of `make check`: one line per part (tests/check-part.sh wrote
# them), the totals, and the logs of the parts that failed.
#
#   tests/check-summary.sh DIR START PART...
#
# START: the run's start (date +%s). Exits 1 when a part failed or left
# no result (it did not run to the end).
set -u

dir=$1
start=$2
shift 2
failed=()
wall_sum=0
cpu_sum=0

echo
echo "=== make check: $# parts"
for part in "$@"; do
	if [ ! -s "$dir/$part.result" ]; then
		printf '%-34s %s\n' "$part" "FAIL (no result: it did not end)"
		failed+=("$part")
		continue
	fi
	cat "$dir/$part.result"
	grep -q '^[^ ]* *ok ' "$dir/$part.result" || failed+=("$part")
	read -r wall user sys < "$dir/$part.time"
	wall_sum=$(awk "BEGIN { print $wall_sum + $wall }")
	cpu_sum=$(awk "BEGIN { print $cpu_sum + $user + $sys }")
done
printf '=== %d s wall in all; the parts %.1f s wall, %.1f s CPU summed\n' \
	$(($(date +%s) - start)) "$wall_sum" "$cpu_sum"
if [ ${#failed[@]} -gt 0 ]; then
	# again here, where the run ends, whatever scrolled by since
	for part in "${failed[@]}"; do
		echo "=== the log of $part ($dir/$part.log):"
		cat "$dir/$part.log" 2> /dev/null
	done
	echo "=== FAILED: ${failed[*]} (logs in $dir)"
	exit 1
fi
echo "=== all $# parts passed"
