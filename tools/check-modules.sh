#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Real modules as split BTF over a vmlinux BTF: each is encoded raw and
# into a copy of the module's .BTF section, both must be read by libbpf
# (bpftool btf dump -B BASE), and the bytes must not depend on -j or on
# the order units are taken in (also with one unit per chunk, which puts
# the module through the split merge).
#
#   tools/check-modules.sh [BTFCANON] [VMLINUX] [MODULE_DIR]
#
# Defaults: build/btfcanon, the 6.12.117 debug vmlinux and its modules.
set -euo pipefail

btfcanon=${1:-build/btfcanon}
vmlinux=${2:-/usr/lib/debug/boot/vmlinux-6.12.117+deb12-cloud-amd64}
moddir=${3:-/usr/lib/debug/lib/modules/6.12.117+deb12-cloud-amd64/kernel}
modules="net/netfilter/nf_tables.ko net/netfilter/nf_conntrack.ko
	net/netfilter/ipvs/ip_vs.ko net/netfilter/nf_nat.ko
	net/netfilter/nf_flow_table.ko net/bridge/bridge.ko
	net/openvswitch/openvswitch.ko net/ipv4/tcp_bbr.ko
	drivers/net/wireguard/wireguard.ko fs/xfs/xfs.ko fs/btrfs/btrfs.ko"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$btfcanon" encode -j2 "$vmlinux" -o "$tmp/base.btf"
fail=0
printf '%-22s %6s %6s %5s %5s %9s  %s\n' module types FUNC VAR tags bytes result
for m in $modules; do
	name=$(basename "$m" .ko)
	mod=$moddir/$m
	out=$tmp/$name
	"$btfcanon" encode -j2 --btf_base "$tmp/base.btf" "$mod" -o "$out.btf"
	result=ok
	# libbpf (through bpftool) reads it over the base, raw and in the ELF
	bpftool btf dump file "$out.btf" -B "$tmp/base.btf" >"$out.txt" ||
		result="bpftool rejects the raw BTF"
	"$btfcanon" encode -j2 --btf_base "$tmp/base.btf" --format elf "$mod" \
		-o "$out.ko"
	bpftool btf dump file "$out.ko" -B "$tmp/base.btf" >/dev/null ||
		result="bpftool rejects the .BTF section"
	# the same bytes at any -j, in any order
	"$btfcanon" encode -j1 --btf_base "$tmp/base.btf" "$mod" -o "$out.j1"
	"$btfcanon" encode -j4 --shuffle-cus=7 --btf_base "$tmp/base.btf" "$mod" \
		-o "$out.j4"
	cmp -s "$out.btf" "$out.j1" && cmp -s "$out.btf" "$out.j4" ||
		result="depends on -j or order"
	"$btfcanon" encode -j1 --chunk-cus=1 --btf_base "$tmp/base.btf" "$mod" \
		-o "$out.c1"
	"$btfcanon" encode -j3 --chunk-cus=1 --shuffle-cus=3 \
		--btf_base "$tmp/base.btf" "$mod" -o "$out.c3"
	cmp -s "$out.c1" "$out.c3" ||
		result="depends on -j or order (one unit per chunk)"
	[ "$result" = ok ] || fail=1
	printf '%-22s %6d %6d %5d %5d %9d  %s\n' "$name" \
		"$(grep -c '^\[' "$out.txt")" "$(grep -c '^\[[0-9]*\] FUNC ' "$out.txt")" \
		"$(grep -c '^\[[0-9]*\] VAR ' "$out.txt")" \
		"$(grep -c '^\[[0-9]*\] DECL_TAG ' "$out.txt")" \
		"$(stat -c %s "$out.btf")" "$result"
done
exit $fail
