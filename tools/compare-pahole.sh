#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Compares the FUNC, VAR and DECL_TAG name sets of btfcanon's encoding of a
# vmlinux with pahole's, and accounts for every name in the symmetric
# difference by a rule. Prints counts by reason; exits 1 if any name is
# left unexplained.
#
#   tools/compare-pahole.sh VMLINUX [BTFCANON] [PAHOLE_BTF]
#
# BTFCANON defaults to build/btfcanon. PAHOLE_BTF is pahole's output, made
# here with the reference command line when not given:
#   pahole -J --btf_gen_floats -j1 --btf_encode_detached=OUT VMLINUX
#
# The reasons (pahole 1.24, Debian's, is the reference on these machines):
#   only in pahole:
#     <btfcanon skip reason>  btfcanon left the function out by a rule
#                             pahole 1.24 does not have (its --verbose line)
#     var at address 0        pahole 1.24 cannot tell a variable at offset 0
#                             from a discarded one; btfcanon checks the symbol
#   only in btfcanon:
#     clone-only symbol       the ELF has only foo.isra.N / foo.constprop.N:
#                             pahole 1.24 matches exact names only
#                             (optimized_func came in 1.25)
#     var at address 0        see above
#     kfunc tag               bpf_kfunc / bpf_fastcall: decl_tag_kfuncs came
#                             in pahole 1.27
set -euo pipefail

vmlinux=${1:?usage: $0 VMLINUX [BTFCANON] [PAHOLE_BTF]}
btfcanon=${2:-build/btfcanon}
pahole_btf=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ -z "$pahole_btf" ]; then
	pahole_btf=$tmp/pahole.btf
	pahole -J --btf_gen_floats -j1 --btf_encode_detached="$pahole_btf" \
		"$vmlinux" >/dev/null
fi
"$btfcanon" encode -j2 --verbose "$vmlinux" -o "$tmp/ours.btf" 2>"$tmp/log"

# names of one kind; DECL_TAGs as "value -> target name"
names() {	# FILE KIND
	bpftool btf dump file "$1" | awk -v kind="$2" '
		/^\[/ { id = substr($1, 2, length($1) - 2); k = $2
			name = $3; gsub("\x27", "", name); nm[id] = name }
		/^\[/ && k == "DECL_TAG" { tag[id] = name
			for (i = 4; i <= NF; i++) if ($i ~ /^type_id=/) tgt[id] = substr($i, 9) }
		/^\[/ && k == kind && kind != "DECL_TAG" { print name }
		END { if (kind == "DECL_TAG") for (id in tag) print tag[id] " -> " nm[tgt[id]] }' |
		sort
}

for kind in FUNC VAR DECL_TAG; do
	names "$pahole_btf" $kind >"$tmp/p.$kind"
	names "$tmp/ours.btf" $kind >"$tmp/o.$kind"
done
sed -n 's/^btfcanon: function \(.*\) skipped: \(.*\)/\1\t\2/p' "$tmp/log" |
	sort -t $'\t' -k1,1 >"$tmp/skips"
nm "$vmlinux" | awk '$2 ~ /^[tTwW]$/ && $3 !~ /\./ { print $3 }' | sort -u \
	>"$tmp/exact"
nm "$vmlinux" | awk '$1 ~ /^0+$/ && $2 ~ /^[dDbB]$/ { print $3 }' | sort -u \
	>"$tmp/at0"

{
	# FUNC
	comm -23 "$tmp/p.FUNC" "$tmp/o.FUNC" | join -t $'\t' -a1 -e UNEXPLAINED \
		-o 1.1,2.2 - "$tmp/skips" |
		awk -F'\t' '{ print "FUNC only in pahole\t" $2 "\t" $1 }'
	comm -13 "$tmp/p.FUNC" "$tmp/o.FUNC" | comm -23 - "$tmp/exact" |
		awk '{ print "FUNC only in btfcanon\tclone-only symbol\t" $1 }'
	comm -13 "$tmp/p.FUNC" "$tmp/o.FUNC" | comm -12 - "$tmp/exact" |
		awk '{ print "FUNC only in btfcanon\tUNEXPLAINED\t" $1 }'
	# VAR
	for side in "pahole:-23" "btfcanon:-13"; do
		comm "${side#*:}" "$tmp/p.VAR" "$tmp/o.VAR" >"$tmp/vdiff"
		comm -12 "$tmp/vdiff" "$tmp/at0" |
			awk -v s="${side%%:*}" '{ print "VAR only in " s "\tvar at address 0\t" $1 }'
		comm -23 "$tmp/vdiff" "$tmp/at0" |
			awk -v s="${side%%:*}" '{ print "VAR only in " s "\tUNEXPLAINED\t" $1 }'
	done
	# DECL_TAG
	comm -23 "$tmp/p.DECL_TAG" "$tmp/o.DECL_TAG" |
		awk '{ print "DECL_TAG only in pahole\tUNEXPLAINED\t" $0 }'
	comm -13 "$tmp/p.DECL_TAG" "$tmp/o.DECL_TAG" | awk '
		/^bpf_kfunc -> |^bpf_fastcall -> / { print "DECL_TAG only in btfcanon\tkfunc tag\t" $0; next }
		{ print "DECL_TAG only in btfcanon\tUNEXPLAINED\t" $0 }'
} >"$tmp/diff"

for kind in FUNC VAR DECL_TAG; do
	printf '%-8s pahole %6d  btfcanon %6d  common %6d\n' $kind \
		"$(wc -l <"$tmp/p.$kind")" "$(wc -l <"$tmp/o.$kind")" \
		"$(comm -12 "$tmp/p.$kind" "$tmp/o.$kind" | wc -l)"
done
echo "symmetric difference by reason:"
cut -f1,2 "$tmp/diff" | sort | uniq -c | sort -k2,5
if grep -q UNEXPLAINED "$tmp/diff"; then
	echo "unexplained:"
	grep UNEXPLAINED "$tmp/diff" | head -50
	exit 1
fi
echo "every name in the difference is accounted for"
