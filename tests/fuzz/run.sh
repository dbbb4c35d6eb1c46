#!/bin/sh
# Runs each fuzz target of build-fuzz/ for SECONDS over its seeds
# (tests/fuzz/corpus/<target>/, read only) and its working corpus
# (build-fuzz/corpus/<target>/). Fails on the first target that finds a
# crash, a leak, a timeout or a broken property; the input that did it is
# in build-fuzz/crashes/.
#
#   tests/fuzz/run.sh SECONDS TARGET...
set -eu
cd "$(dirname "$0")/../.."
seconds=$1
shift
mkdir -p build-fuzz/crashes
for target in "$@"; do
	mkdir -p "build-fuzz/corpus/$target"
	echo "fuzz_$target: ${seconds}s"
	# -timeout: one input taking 20 s is a hang worth reporting
	"build-fuzz/fuzz_$target" -max_total_time="$seconds" -timeout=20 \
		-rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="build-fuzz/crashes/$target-" \
		"build-fuzz/corpus/$target" "tests/fuzz/corpus/$target" \
		2>"build-fuzz/fuzz_$target.log" || {
		tail -60 "build-fuzz/fuzz_$target.log"
		echo "fuzz_$target: FAILED (log: build-fuzz/fuzz_$target.log)"
		exit 1
	}
	grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss)' \
		"build-fuzz/fuzz_$target.log" || true
done
