#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# One part of `make check`, run side by side with the others (Makefile):
#
#   tests/check-part.sh DIR PART COMMAND...
#
# runs COMMAND with its output held in DIR/PART.log and prints that whole
# when the part ends, under one line with its result, wall time and CPU
# time (user + sys of it and its children), so that the parts' outputs do
# not mix. DIR/PART.result keeps that line for tests/check-summary.sh.
# Exits with COMMAND's status.
set -u

dir=$1
part=$2
shift 2
log=$dir/$part.log
times=$dir/$part.time

TIMEFORMAT='%R %U %S'
{ time "$@" > "$log" 2>&1 < /dev/null; } 2> "$times"
status=$?
read -r wall user sys < "$times" || { wall=0 user=0 sys=0; }
if [ "$status" -eq 0 ]; then
	result=ok
else
	result="FAIL (exit $status)"
fi
line=$(printf '%-34s %-15s %7.1f s wall %7.1f s CPU' "$part" "$result" \
	"$wall" "$(awk "BEGIN { print $user + $sys }")")
echo "$line" > "$dir/$part.result"
{
	echo "=== $line"
	cat "$log"
	[ "$status" -eq 0 ] || echo "=== $part FAILED: its whole log is above ($log)"
} 2>&1
exit "$status"
