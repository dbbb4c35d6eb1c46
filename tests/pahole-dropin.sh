#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# btfcanon-pahole run with the exact command lines of the 6.1, 6.12 and
# 6.19 kernels' build scripts, on copies of the real debug vmlinux and
# modules:
#
#   6.1  scripts/link-vmlinux.sh gen_btf, flags of scripts/pahole-flags.sh
#        (pahole >= 1.25):
#          LLVM_OBJCOPY=objcopy $PAHOLE -J $PAHOLE_FLAGS .tmp_vmlinux.btf
#        scripts/Makefile.modfinal:
#          LLVM_OBJCOPY=objcopy $PAHOLE -J $PAHOLE_FLAGS --btf_base vmlinux MOD.ko
#   6.12 scripts/link-vmlinux.sh gen_btf, flags of scripts/Makefile.btf
#        (pahole >= 1.26, JOBS=2):
#          LLVM_OBJCOPY=objcopy $PAHOLE -J $PAHOLE_FLAGS .tmp_vmlinux1
#        scripts/Makefile.modfinal:
#          LLVM_OBJCOPY=objcopy $PAHOLE -J $PAHOLE_FLAGS $MODULE_PAHOLE_FLAGS \
#                  --btf_base vmlinux MOD.ko
#   6.19 scripts/gen-btf.sh, for vmlinux (link-vmlinux.sh) and each module
#        (Makefile.modfinal), flags of scripts/Makefile.btf (pahole >= 1.31,
#        JOBS=2; read from the 6.19.4 tree's scripts and torvalds/linux's
#        gen-btf.sh at 1a8fa7faf489):
#          $PAHOLE -J $PAHOLE_FLAGS [--btf_base vmlinux] \
#                  --btf_encode_detached=ELF.BTF.1 ELF
#
# Expected: each input gets a .BTF section (or detached file) that libbpf
# reads (bpftool, with -B vmlinux for modules), whose bytes are what
# `btfcanon encode` gives for the same features; the scripts' next steps
# (objcopy --only-section=.BTF; gen-btf.sh's objcopy steps) work on it;
# the version the scripts parse is 1.31 (6.12 and 6.19 take their
# --btf_features path, 6.19 adds attributes and layout); options not about
# BTF are refused. resolve_btfids is not replayed: the tests have none.
#
#   BTFCANON=build/btfcanon tests/pahole-dropin.sh
set -euo pipefail

btfcanon=$(realpath "${BTFCANON:-build/btfcanon}")
dropin=$(dirname "$btfcanon")/btfcanon-pahole
debug=/usr/lib/debug
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

# scripts/pahole-version.sh
version=$("$dropin" --version | sed -E 's/v([0-9]+)\.([0-9]+)/\1\2/')
[ "$version" -eq 131 ] || fail "--version gives $version, not 131 (pahole v1.31)"

# The .BTF of ELF $1 equals the raw BTF $2.
same_btf() {
	objcopy --dump-section .BTF="$tmp/section" "$1" "$tmp/scratch" 2>/dev/null &&
		cmp -s "$tmp/section" "$2"
}

# the kernel's next step on the vmlinux copy
link_step() {
	objcopy --only-section=.BTF --set-section-flags .BTF=alloc,readonly \
		--strip-all "$1" "$1.btf.o" 2>/dev/null &&
		bpftool btf dump file "$1.btf.o" >/dev/null
}

# libbpf reads it: bpftool (Debian's 7.1) for the 24-byte header; a
# header with the 2026 layout section, which it predates, through
# btfcanon's own reader
readable() {
	local hdr_len
	hdr_len=$(od -An -t u4 -j 4 -N 4 "$1" | tr -d ' ')
	if [ "$hdr_len" = 24 ]; then
		bpftool btf dump file "$1" >/dev/null
	else
		"$btfcanon" dump -f raw "$1" >/dev/null
	fi
}

run_kernel() {	# NAME VMLINUX MODULE_DIR FLAGS... -- MODULE_FLAGS...
	local name=$1 vmlinux=$2 moddir=$3 flags=() modflags=() m
	shift 3
	while [ $# -gt 0 ] && [ "$1" != -- ]; do flags+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	modflags=("$@")
	mkdir -p "$tmp/$name"
	cd "$tmp/$name"
	# the debug vmlinux has Debian's .BTF in its image (symbols point into
	# it, so it stays): ours replaces it and may have to grow
	cp "$vmlinux" .tmp_vmlinux.btf
	LLVM_OBJCOPY=objcopy "$dropin" -J "${flags[@]}" .tmp_vmlinux.btf ||
		fail "$name: vmlinux: exit $?"
	bpftool btf dump file .tmp_vmlinux.btf >/dev/null ||
		fail "$name: vmlinux: bpftool cannot read .BTF"
	link_step .tmp_vmlinux.btf || fail "$name: objcopy --only-section=.BTF"
	# the same bytes as btfcanon encode with the features the flags mean
	"$btfcanon" encode $expect_vmlinux "$vmlinux" -o expect.btf
	same_btf .tmp_vmlinux.btf expect.btf ||
		fail "$name: vmlinux .BTF differs from btfcanon encode $expect_vmlinux"
	mv .tmp_vmlinux.btf vmlinux
	for m in net/netfilter/nf_tables.ko net/netfilter/nf_conntrack.ko \
		 net/netfilter/ipvs/ip_vs.ko; do
		# without .BTF, as before the build's BTF step: it gets added
		objcopy --remove-section=.BTF "$moddir/$m" mod.ko
		LLVM_OBJCOPY=objcopy "$dropin" -J "${flags[@]}" "${modflags[@]}" \
			--btf_base vmlinux mod.ko || fail "$name: $m: exit $?"
		bpftool btf dump file mod.ko -B vmlinux >/dev/null ||
			fail "$name: $m: bpftool cannot read .BTF over vmlinux"
		"$btfcanon" encode $expect_vmlinux --btf_base vmlinux "$moddir/$m" \
			-o expect.btf
		same_btf mod.ko expect.btf ||
			fail "$name: $m: .BTF differs from btfcanon encode"
		echo "$name: $m ok"
	done
	rm -f vmlinux vmlinux.btf.o
	cd - >/dev/null
	echo "$name: vmlinux ok"
}

v61=$debug/boot/vmlinux-6.1.0-56-cloud-amd64
v612=$debug/boot/vmlinux-6.12.117+deb12-cloud-amd64
features612=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs

# 6.1: --btf_gen_floats -j --lang_exclude=rust
#      --skip_encoding_btf_inconsistent_proto --btf_gen_optimized
expect_vmlinux="--features var,decl_tag,type_tag,enum64,float,optimized_func,consistent_func --lang_exclude=rust"
run_kernel 6.1 "$v61" "$debug/lib/modules/6.1.0-56-cloud-amd64/kernel" \
	--btf_gen_floats -j --lang_exclude=rust \
	--skip_encoding_btf_inconsistent_proto --btf_gen_optimized

# 6.12: -j$(JOBS) --btf_features=... --lang_exclude=rust
expect_vmlinux="--features $features612 --lang_exclude=rust"
run_kernel 6.12 "$v612" "$debug/lib/modules/6.12.117+deb12-cloud-amd64/kernel" \
	-j2 --btf_features=$features612 --lang_exclude=rust

# 6.19: scripts/gen-btf.sh, which link-vmlinux.sh runs on vmlinux and
# Makefile.modfinal on each module (with --btf_base vmlinux):
#     ${PAHOLE} -J ${PAHOLE_FLAGS} ${BTF_BASE:+--btf_base ${BTF_BASE}} \
#             --btf_encode_detached=${ELF_FILE}.BTF.1 "${ELF_FILE}"
# then resolve_btfids (not replayed: it is the kernel's own tool, and the
# tests have none) turns ELF.BTF.1 into ELF.BTF, which gen_btf_o wraps in
# an object for the link (vmlinux) or embed_btf_data adds to the module.
# Here ELF.BTF is ELF.BTF.1 as it is. Expected: the ELF is not touched,
# the detached file has the bytes of `btfcanon encode` with the features
# the flags name, and the next steps take it.
run_gen_btf() {	# NAME VMLINUX MODULE_DIR FEATURES FLAGS...
	local name=$1 vmlinux=$2 moddir=$3 features=$4 m
	shift 4
	mkdir -p "$tmp/$name"
	cd "$tmp/$name"
	cp "$vmlinux" vmlinux.unstripped
	"$dropin" -J "$@" --btf_encode_detached=vmlinux.unstripped.BTF.1 \
		vmlinux.unstripped || fail "$name: vmlinux: exit $?"
	cmp -s vmlinux.unstripped "$vmlinux" ||
		fail "$name: vmlinux: the ELF changed in detached mode"
	"$btfcanon" encode --features "$features" --lang_exclude=rust "$vmlinux" \
		-o expect.btf
	cmp -s vmlinux.unstripped.BTF.1 expect.btf ||
		fail "$name: vmlinux BTF differs from btfcanon encode --features $features"
	readable vmlinux.unstripped.BTF.1 || fail "$name: vmlinux BTF unreadable"
	# gen_btf_o
	echo "" | gcc -c -x c -o vmlinux.unstripped.btf.o -
	objcopy --add-section .BTF=vmlinux.unstripped.BTF.1 \
		--set-section-flags .BTF=alloc,readonly vmlinux.unstripped.btf.o &&
		objcopy --only-section=.BTF --strip-all vmlinux.unstripped.btf.o &&
		printf '\1\0' | dd of=vmlinux.unstripped.btf.o conv=notrunc bs=1 \
			seek=16 status=none ||
		fail "$name: gen_btf_o's objcopy steps"
	objcopy --dump-section .BTF=section vmlinux.unstripped.btf.o scratch &&
		cmp -s section vmlinux.unstripped.BTF.1 ||
		fail "$name: vmlinux.unstripped.btf.o has not the BTF"
	# the linked vmlinux carries it; modules are encoded over that
	objcopy --update-section .BTF=vmlinux.unstripped.BTF.1 vmlinux.unstripped \
		vmlinux 2>/dev/null
	for m in net/netfilter/nf_tables.ko net/netfilter/ipvs/ip_vs.ko; do
		objcopy --remove-section=.BTF "$moddir/$m" mod.ko
		cp mod.ko mod.orig
		"$dropin" -J "$@" --btf_base vmlinux \
			--btf_encode_detached=mod.ko.BTF.1 mod.ko ||
			fail "$name: $m: exit $?"
		cmp -s mod.ko mod.orig || fail "$name: $m: the ELF changed"
		"$btfcanon" encode --features "$features" --lang_exclude=rust \
			--btf_base vmlinux "$moddir/$m" -o expect.btf
		cmp -s mod.ko.BTF.1 expect.btf ||
			fail "$name: $m: BTF differs from btfcanon encode"
		# embed_btf_data
		objcopy --add-section .BTF=mod.ko.BTF.1 mod.ko ||
			fail "$name: $m: objcopy --add-section .BTF"
		bpftool btf dump file mod.ko -B vmlinux >/dev/null ||
			fail "$name: $m: bpftool cannot read .BTF over vmlinux"
		echo "$name: $m ok"
	done
	rm -f vmlinux vmlinux.unstripped
	cd - >/dev/null
	echo "$name: vmlinux ok"
}

# 6.19's PAHOLE_FLAGS for pahole >= 1.31 (JOBS=2): the lists add up
expect_features="$features612,attributes,layout"
run_gen_btf 6.19 "$v612" "$debug/lib/modules/6.12.117+deb12-cloud-amd64/kernel" \
	"$expect_features" -j2 --btf_features=$features612 \
	--btf_features=attributes --btf_features=layout --lang_exclude=rust

# 6.12, an external module: MODULE_PAHOLE_FLAGS=--btf_features=distilled_base,
# after PAHOLE_FLAGS' own --btf_features: both lists count, as in pahole
# (tcp_bbr's kfuncs keep their decl_tag_kfuncs tags). The module gets
# .BTF.base, .BTF is split over it, and it relocates onto the base.
cd "$tmp"
"$btfcanon" encode "$v612" -o base.btf
objcopy --remove-section=.BTF \
	"$debug/lib/modules/6.12.117+deb12-cloud-amd64/kernel/net/ipv4/tcp_bbr.ko" ext.ko
LLVM_OBJCOPY=objcopy "$dropin" -J -j2 --btf_features=$features612 \
	--lang_exclude=rust --btf_features=distilled_base --btf_base base.btf ext.ko ||
	fail "external module: exit $?"
objcopy --dump-section .BTF.base=ext.base.btf --dump-section .BTF=ext.split.btf \
	ext.ko scratch.o || fail "external module: no .BTF.base or no .BTF"
bpftool btf dump file ext.split.btf -B ext.base.btf >/dev/null ||
	fail "external module: bpftool cannot read .BTF over .BTF.base"
"$btfcanon" relocate --base base.btf ext.ko -o ext.relocated.btf ||
	fail "external module: btfcanon relocate failed"
[ "$(bpftool btf dump file ext.relocated.btf -B base.btf | grep -c "DECL_TAG 'bpf_kfunc'")" -gt 0 ] ||
	fail "external module: no bpf_kfunc tags: the first --btf_features list was lost"
cd - >/dev/null

# An external module built against the distribution's kernel: the base is
# Debian's own vmlinux BTF, made by pahole (multi-dimensional arrays flat).
# btfcanon writes arrays flat too (its default), so the module
# repeats none of the base's types: about as many own types as Debian's
# pahole-made .BTF of the same module (nf_tables: 1,341 against 1,322, the
# difference being functions; with nested arrays, thousands more).
cd "$tmp"
objcopy --dump-section .BTF=distro.btf "$v612" scratch
for m in net/netfilter/nf_tables.ko drivers/net/virtio_net.ko; do
	ko=$debug/lib/modules/6.12.117+deb12-cloud-amd64/kernel/$m
	objcopy --remove-section=.BTF "$ko" ext.ko
	LLVM_OBJCOPY=objcopy "$dropin" -J -j2 --btf_features=$features612 \
		--lang_exclude=rust --btf_base distro.btf ext.ko ||
		fail "$m over Debian's vmlinux BTF: exit $?"
	ours=$(bpftool btf dump file ext.ko -B distro.btf | grep -c '^\[') ||
		fail "$m over Debian's vmlinux BTF: bpftool cannot read it"
	theirs=$(bpftool btf dump file "$ko" -B distro.btf | grep -c '^\[')
	[ $((ours * 100)) -le $((theirs * 105)) ] ||
		fail "$m over Debian's vmlinux BTF: $ours types, pahole's has $theirs"
	echo "external $m over Debian's vmlinux BTF: $ours types (pahole's: $theirs) ok"
done
cd - >/dev/null

# --btf_encode_detached, as newer kernels' scripts/gen-btf.sh use it
"$dropin" -J -j2 --btf_features=$features612 --lang_exclude=rust \
	--btf_encode_detached="$tmp/detached.btf" "$v612" || fail "detached: exit $?"
cmp -s "$tmp/detached.btf" "$tmp/base.btf" || fail "detached output differs"

# -V: pahole's lines on stdout, as pahole v1.31-38 prints them for the
# same command line (tests/golden/pahole-1.31-38/6.12.117.skipped.tsv.gz:
# 985 reasons, 80 first mismatches), and no other line. cookie_hash
# (left out for an ambiguous address) is the case of an abstract instance
# flagged by its clone: net/ipv6's copy is an IPA-SRA clone whose
# parameters land outside their registers once pahole gives the unit's
# abstract instance the clone's locations, so pahole does not compare
# net/ipv6's prototype with net/ipv4's and prints no mismatch line.
golden=$(dirname "$0")/golden/pahole-1.31-38/6.12.117.skipped.tsv.gz
"$dropin" -J -j2 --btf_features=$features612 -V \
	--btf_encode_detached="$tmp/verbose.btf" "$v612" > "$tmp/verbose.out" 2>"$tmp/verbose.err" ||
	fail "-V: exit $?"
[ ! -s "$tmp/verbose.err" ] || fail "-V: stderr is not empty"
sed 's/ : skipping BTF encoding of function due to /\t/' "$tmp/verbose.out" |
	LC_ALL=C sort > "$tmp/verbose.tsv"
gzip -dc "$golden" | LC_ALL=C sort > "$tmp/pahole.tsv"
missing=$(LC_ALL=C comm -23 "$tmp/pahole.tsv" "$tmp/verbose.tsv" | wc -l)
extra=$(LC_ALL=C comm -13 "$tmp/pahole.tsv" "$tmp/verbose.tsv" | wc -l)
if [ "$missing" = 0 ] && [ "$extra" = 0 ]; then
	echo "-V: $(wc -l < "$tmp/verbose.tsv") lines, pahole's $(wc -l < "$tmp/pahole.tsv") ok"
else
	fail "-V: $missing of pahole's lines missing, $extra not pahole's"
fi

# every feature name of pahole 1.31 goes through to btfcanon encode
all_features=$features612,attributes,layout,distilled_base,true_signature,global_var,reproducible_build
"$dropin" -J -j2 --btf_features_strict=$all_features --lang_exclude=rust \
	--btf_encode_detached="$tmp/all.btf" "$debug/lib/modules/6.12.117+deb12-cloud-amd64/kernel/net/ipv4/tcp_bbr.ko" ||
	fail "--btf_features_strict=$all_features: exit $?"
"$btfcanon" encode --features "$all_features" --lang_exclude=rust \
	"$debug/lib/modules/6.12.117+deb12-cloud-amd64/kernel/net/ipv4/tcp_bbr.ko" -o "$tmp/all.expect"
cmp -s "$tmp/all.btf" "$tmp/all.expect" || fail "--btf_features_strict=$all_features: differs"
if "$dropin" -J --btf_features_strict=no_such_feature --btf_encode_detached="$tmp/x.btf" \
	"$debug/lib/modules/6.12.117+deb12-cloud-amd64/kernel/net/ipv4/tcp_bbr.ko" 2>"$tmp/err"; then
	fail "--btf_features_strict=no_such_feature accepted"
fi
grep -q "no_such_feature" "$tmp/err" || fail "unknown feature: not named in the message"
[ ! -e "$tmp/x.btf" ] || fail "unknown feature: output written"

# not BTF: refused, with a message, non-zero
if "$dropin" -C task_struct "$v612" 2>"$tmp/err"; then
	fail "-C accepted"
fi
grep -q "not supported" "$tmp/err" || fail "-C: no 'not supported' message"

[ $failures = 0 ] && echo "pahole drop-in: all kernel command lines ok"
exit $((failures != 0))
