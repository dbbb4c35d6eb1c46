#!/bin/bash
# kinds.sh A B: BTF types by kind of two files (ELF with .BTF, or raw BTF)
# side by side, with totals, as `bpftool btf dump file` lists them.
set -euo pipefail
count_kinds() {
	bpftool btf dump file "$1" | awk '/^\[/ { n[$2]++ } END { for (k in n) print k, n[k] }' | sort
}
join -a1 -a2 -e0 -o 0,1.2,2.2 <(count_kinds "$1") <(count_kinds "$2") |
	awk -v a="${LABEL_A:-A}" -v b="${LABEL_B:-B}" '
		BEGIN { printf "%-12s %10s %10s\n", "kind", a, b }
		{ printf "%-12s %10d %10d\n", $1, $2, $3; ta += $2; tb += $3 }
		END { printf "%-12s %10d %10d\n", "total", ta, tb }'
