#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Issue 28's benchmark: does `btfcanon header` of a set of kernels compile
# bcc's libbpf-tools as bpftool's header of the set's newest kernel does,
# and do the objects relocate the same?
#
#   BCC=/path/to/bcc/libbpf-tools NEWEST_x86=K NEWEST_arm64=K \
#       tools/bench-headers-bcc.sh OUT KERNEL...
#
# KERNEL... is the set: every --kernel input btfcanon reads (raw BTF, ELF,
# an archive, ARCHIVE:GLOB, /sys/kernel/btf/vmlinux). NEWEST_<arch> is the
# set's newest kernel of that architecture, as a file bpftool reads or as
# ARCHIVE:NAME (extracted first). bcc's sources are never part of this
# repository: BCC names a checkout of their libbpf-tools directory.
#
# Headers (MODES, default "a b c"):
#   a  bpftool btf dump file NEWEST_<arch> format c, one per architecture
#   b  btfcanon header --kernel K... (full), one for every architecture
#   c  btfcanon header --kernel K... --for TOOL.bpf.c --for LOCAL-HEADER...
#      (slim), one per tool; LOCAL-HEADERs: the "..." includes found in BCC,
#      followed recursively, vmlinux.h excepted
#
# Every BCC/*.bpf.c is compiled against each header for each of ARCHS
# (default "x86 arm64") as libbpf-tools' Makefile does (BPFCFLAGS, -mcpu=v3
# for softirqs; the libbpf headers are the system's, /usr/include/bpf):
#
#   clang -g -O2 -Wall -Werror=undef -target bpf -D__TARGET_ARCH_<arch> \
#       -I<dir of vmlinux.h> -I$BCC $SYS_INCLUDES -c TOOL.bpf.c -o TOOL.bpf.o
#
# SYS_INCLUDES (default: clang's host include directories, each as
# -idirafter, as libbpf-bootstrap's Makefile does) lets <linux/errno.h>,
# which libbpf's usdt.bpf.h includes, find <asm/errno.h> in Debian's
# multiarch directory; -target bpf alone does not search it.
#
# For each tool compiled against a and against b (or c) on one
# architecture, `btfcanon deps --json --kernel K...` over the whole set
# runs on both objects; the reports must be identical once the "object"
# field (the file name) is dropped. The slim header's lines are compared
# with the lines of a's x86 header (median over the tools).
#
# LAYOUT=KERNEL (issue 32): modes b and c write the header with --layout
# KERNEL, and NEWEST_<arch> then names that kernel of each architecture
# (the header bpftool writes is the one the tools are checked against).
#
# With SPEED=1 it also times, with tools/paired-bench.sh (SPEED_RUNS runs,
# default 5; the machine's load is printed), the full header of the set
# and the slim header of SPEED_TOOL (default runqlat); MODES="" SPEED=1
# does only that.
#
# OUT (outside the repository, created) keeps the headers (hdr/), the
# objects (obj/MODE-ARCH/), clang's messages (err/MODE-ARCH/TOOL.err),
# the deps reports (deps/) and the summary (summary.md, also printed).
# JOBS compiles run at once (default 2). Exit 0 whatever the counts; 2 on
# bad usage or a missing tool.
set -eu

usage() {
	echo "usage: BCC=DIR NEWEST_x86=K NEWEST_arm64=K [MODES='a b c'] [ARCHS='x86 arm64'] [SPEED=1] $0 OUT KERNEL..." >&2
	exit 2
}

# --- one compile, run by xargs: $0 __compile MODE ARCH TOOL ---
if [ "${1:-}" = __compile ]; then
	mode=$2 arch=$3 tool=$4
	case $mode in
	a) inc=$OUT/hdr/a-$arch ;;
	b) inc=$OUT/hdr/b ;;
	c) inc=$OUT/hdr/c/$tool ;;
	esac
	flags="-g -O2 -Wall -Werror=undef"
	[ "$tool" = softirqs ] && flags="$flags -mcpu=v3"
	obj=$OUT/obj/$mode-$arch/$tool.bpf.o
	err=$OUT/err/$mode-$arch/$tool.err
	if [ ! -r "$inc/vmlinux.h" ]; then
		echo "error: no header (see $OUT/err/header-$mode.err)" > "$err"
		exit 0
	fi
	# shellcheck disable=SC2086
	if $CLANG $flags -target bpf -D__TARGET_ARCH_"$arch" -I"$inc" -I"$BCC" \
		$SYS_INCLUDES -c "$BCC/$tool.bpf.c" -o "$obj.tmp" 2> "$err"; then
		mv "$obj.tmp" "$obj"
	else
		rm -f "$obj.tmp"
		[ -s "$err" ] || echo "error: clang exited non-zero" > "$err"
	fi
	exit 0
fi

[ $# -ge 2 ] || usage
[ -n "${BCC:-}" ] && [ -d "$BCC" ] || { echo "bench-headers-bcc: BCC must name bcc's libbpf-tools directory" >&2; usage; }
src=$(cd "$(dirname "$0")/.." && pwd)
OUT=$(mkdir -p "$1" && cd "$1" && pwd)
shift
case $OUT/ in
"$src"/*) echo "bench-headers-bcc: $OUT is inside the repository; give a directory outside it" >&2; exit 2 ;;
esac
BCC=$(cd "$BCC" && pwd)
BTFCANON=${BTFCANON:-$src/build/btfcanon}
case $BTFCANON in /*) ;; *) BTFCANON=$(pwd)/$BTFCANON ;; esac
BPFTOOL=${BPFTOOL:-bpftool}
CLANG=${CLANG:-clang}
JOBS=${JOBS:-2}
MODES=${MODES-a b c}
ARCHS=${ARCHS:-x86 arm64}
SPEED=${SPEED:-0}
SPEED_RUNS=${SPEED_RUNS:-5}
SPEED_TOOL=${SPEED_TOOL:-runqlat}
LAYOUT=${LAYOUT:-}
SYS_INCLUDES=${SYS_INCLUDES-$($CLANG -v -E - < /dev/null 2>&1 |
	sed -n '/<...> search starts here:/,/End of search list./s|^ \(/.*\)|-idirafter \1|p' |
	tr '\n' ' ')}
export BCC OUT CLANG SYS_INCLUDES LC_ALL=C
for t in "$BTFCANON" "$CLANG" "$BPFTOOL" python3; do
	command -v "$t" > /dev/null || { echo "bench-headers-bcc: $t missing" >&2; exit 2; }
done
has() { case " $MODES " in *" $1 "*) true ;; *) false ;; esac; }

kargs=
for k in "$@"; do
	kargs="$kargs --kernel '$k'"
done
# the header's arguments: the kernels, and --layout
hargs=$kargs
[ -z "$LAYOUT" ] || hargs="$hargs --layout '$LAYOUT'"
tools=$(cd "$BCC" && ls -- *.bpf.c | sed 's/\.bpf\.c$//')
ntools=$(echo "$tools" | wc -l)
mkdir -p "$OUT/hdr" "$OUT/deps"
for m in $MODES; do
	for a in $ARCHS; do
		rm -rf "$OUT/obj/$m-$a" "$OUT/err/$m-$a"
		mkdir -p "$OUT/obj/$m-$a" "$OUT/err/$m-$a"
	done
done

# locals TOOL: TOOL.bpf.c and the local headers it includes, recursively
locals() {
	todo="$1.bpf.c" seen=
	while [ -n "$todo" ]; do
		set -- $todo
		f=$1
		shift
		todo=$*
		case " $seen " in *" $f "*) continue ;; esac
		seen="$seen $f"
		for h in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$BCC/$f"); do
			[ "$h" != vmlinux.h ] && [ -r "$BCC/$h" ] && todo="$todo $h"
		done
	done
	for f in $seen; do echo "$BCC/$f"; done
}

# fors TOOL: "--for FILE" for each of locals TOOL, quoted for eval
fors() {
	for f in $(locals "$1"); do printf " --for '%s'" "$f"; done
}

# --- the headers ---
t0=$(date +%s)
if has a; then
	for a in $ARCHS; do
		eval "k=\${NEWEST_$a:-}"
		[ -n "$k" ] || { echo "bench-headers-bcc: mode a needs NEWEST_$a" >&2; exit 2; }
		mkdir -p "$OUT/hdr/a-$a"
		if [ ! -e "$k" ]; then
			"$BTFCANON" archive extract "${k%%:*}" "${k#*:}" -o "$OUT/hdr/a-$a/newest.btf"
			k=$OUT/hdr/a-$a/newest.btf
		fi
		"$BPFTOOL" btf dump file "$k" format c > "$OUT/hdr/a-$a/vmlinux.h"
	done
fi
if has b; then
	mkdir -p "$OUT/hdr/b"
	rm -f "$OUT/hdr/b/vmlinux.h"
	eval "\"\$BTFCANON\" header $hargs -o \"\$OUT/hdr/b/vmlinux.h\"" 2> "$OUT/err/header-b.err" ||
		echo "bench-headers-bcc: full header failed: $(head -1 "$OUT/err/header-b.err")" >&2
fi
if has c; then
	: > "$OUT/err/header-c.err"
	for t in $tools; do
		mkdir -p "$OUT/hdr/c/$t"
		rm -f "$OUT/hdr/c/$t/vmlinux.h"
		# shellcheck disable=SC2046
		eval "\"\$BTFCANON\" header $hargs -o \"\$OUT/hdr/c/\$t/vmlinux.h\" $(fors "$t")" \
			2>> "$OUT/err/header-c.err" ||
			echo "$t: slim header failed" >> "$OUT/err/header-c.err"
	done
fi
t1=$(date +%s)

# --- the compiles ---
for m in $MODES; do
	for a in $ARCHS; do
		for t in $tools; do
			echo "$m $a $t"
		done
	done
done | xargs -r -P "$JOBS" -n 3 sh "$0" __compile
t2=$(date +%s)

# --- deps: a against b and c, per architecture ---
# deps_pair X ARCH: deps of the tools compiled both with a and with X
deps_pair() {
	both=
	for t in $tools; do
		[ -e "$OUT/obj/a-$2/$t.bpf.o" ] && [ -e "$OUT/obj/$1-$2/$t.bpf.o" ] && both="$both $t"
	done
	for m in a "$1"; do
		objs=
		for t in $both; do objs="$objs $t.bpf.o"; done
		if [ -n "$objs" ]; then
			( cd "$OUT/obj/$m-$2" && eval "\"\$BTFCANON\" deps --json $objs $kargs" ) \
				> "$OUT/deps/$m-$2.for-$1.json" 2> "$OUT/deps/$m-$2.for-$1.err" ||
				[ $? -eq 1 ] || echo "bench-headers-bcc: deps of $m-$2 failed: $(head -1 "$OUT/deps/$m-$2.for-$1.err")" >&2
		else
			: > "$OUT/deps/$m-$2.for-$1.json"
		fi
	done
	python3 - "$OUT/deps/a-$2.for-$1.json" "$OUT/deps/$1-$2.for-$1.json" > "$OUT/deps/a-vs-$1-$2.txt" <<'EOF'
import json, sys

def load(path):
    out = {}
    for line in open(path):
        if line.strip():
            d = json.loads(line)
            out[d.pop("object")] = d
    return out

a, b = load(sys.argv[1]), load(sys.argv[2])
same = differ = 0
for obj in sorted(set(a) | set(b)):
    tool = obj[:-len(".bpf.o")]
    if obj not in a or obj not in b:
        print(f"{tool}: only one report")
        differ += 1
        continue
    if a[obj] == b[obj]:
        same += 1
        continue
    differ += 1
    ra, rb = a[obj]["relocations"], b[obj]["relocations"]
    vals = lambda rs: [(r["section"], r["index"], r["kind"],
                        sorted((k, v["value"], v["status"]) for k, v in r["kernels"].items()))
                       for r in rs]
    if vals(ra) != vals(rb):
        n = sum(1 for x, y in zip(ra, rb) if vals([x]) != vals([y])) + abs(len(ra) - len(rb))
        what = f"relocation values differ ({n} of {max(len(ra), len(rb))})"
        for x, y in zip(ra + [None] * len(rb), rb + [None] * len(ra)):
            if x is None or y is None:
                what += f"; {len(ra)} relocations against {len(rb)}"
                break
            if vals([x]) != vals([y]):
                what += f"; first: {x['section']} #{x['index']} {x['kind']} {x['type']} {x['access']}"
                if (x["kind"], x["type"], x["access"]) != (y["kind"], y["type"], y["access"]):
                    what += f" against {y['kind']} {y['type']} {y['access']}"
                for k in x["kernels"]:
                    u, v = x["kernels"][k], y["kernels"].get(k, {})
                    if (u.get("value"), u.get("status")) != (v.get("value"), v.get("status")):
                        what += f", on {k}: {u.get('value')} {u.get('status')} against {v.get('value')} {v.get('status')}"
                        break
                break
    else:
        keys = [k for k in sorted(set(a[obj]) | set(b[obj])) if a[obj].get(k) != b[obj].get(k)]
        what = "values equal; differs in " + ", ".join(keys)
        if keys == ["relocations"]:
            for x, y in zip(ra, rb):
                if x != y:
                    f = [k for k in x if x[k] != y.get(k)]
                    what += f" (first: {x['section']} #{x['index']} {', '.join(f)}: {x[f[0]]} vs {y[f[0]]})"
                    break
    print(f"{tool}: {what}")
print(f"SUMMARY {same} {differ}")
EOF
}
for m in b c; do
	has a && has "$m" || continue
	for a in $ARCHS; do
		deps_pair "$m" "$a"
	done
done
t3=$(date +%s)

# --- the summary ---
count() {
	set -- "$OUT/obj/$1"/*.bpf.o
	if [ -e "$1" ]; then echo $#; else echo 0; fi
}
first_error() {
	l=$(grep -m1 'error:' "$1" || head -1 "$1")
	echo "$l" | sed "s|$BCC/||g; s|$OUT/||g"
}
{
	echo "bcc libbpf-tools: $BCC ($ntools .bpf.c)$([ -n "${BCC_REV:-}" ] && echo ", $BCC_REV")"
	echo "kernels: $*$([ -n "$LAYOUT" ] && echo "; --layout $LAYOUT")"
	for a in $ARCHS; do eval "echo \"newest $a (a): \${NEWEST_$a:-}\""; done
	echo "$($CLANG --version | head -1); $($BPFTOOL version | head -1); libbpf headers $(sed -n 's/^#define LIBBPF_M[AI][JN]OR_VERSION //p' /usr/include/bpf/libbpf_version.h 2>/dev/null | paste -sd.); btfcanon $(git -C "$(dirname "$BTFCANON")" describe --always --dirty 2>/dev/null || echo "?")"
	echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); headers $((t1 - t0)) s, compiles $((t2 - t1)) s, deps $((t3 - t2)) s"
	echo
	echo "| header | arch | compiled | failed | header lines |"
	echo "|---|---|---|---|---|"
	for m in $MODES; do
		case $m in
		a) name="bpftool (${LAYOUT:-newest})" ;;
		b) name="btfcanon header" ;;
		c) name="btfcanon header --for" ;;
		esac
		for a in $ARCHS; do
			n=$(count "$m-$a")
			case $m in
			a) lines=$(wc -l < "$OUT/hdr/a-$a/vmlinux.h") ;;
			b) lines=$(cat "$OUT/hdr/b/vmlinux.h" 2>/dev/null | wc -l) ;;
			c) lines="per tool, below" ;;
			esac
			echo "| $name | $a | $n / $ntools | $((ntools - n)) | $lines |"
		done
	done
	for m in $MODES; do
		[ "$m" = a ] && continue
		has a || continue
		for a in $ARCHS; do
			lost='' gained=''
			for t in $tools; do
				if [ -e "$OUT/obj/a-$a/$t.bpf.o" ] && [ ! -e "$OUT/obj/$m-$a/$t.bpf.o" ]; then lost="$lost $t"; fi
				if [ ! -e "$OUT/obj/a-$a/$t.bpf.o" ] && [ -e "$OUT/obj/$m-$a/$t.bpf.o" ]; then gained="$gained $t"; fi
			done
			echo
			echo "$m $a: compiles with a but not $m:${lost:- none}"
			echo "$m $a: compiles with $m but not a:${gained:- none}"
		done
	done
	echo
	echo "Failures (first error line):"
	for m in $MODES; do
		for a in $ARCHS; do
			for t in $tools; do
				[ -e "$OUT/obj/$m-$a/$t.bpf.o" ] && continue
				echo "- $m $a $t: $(first_error "$OUT/err/$m-$a/$t.err")"
			done
		done
	done
	for m in b c; do
		has a && has $m || continue
		echo
		for a in $ARCHS; do
			echo "deps a vs $m, $a: $(awk '/^SUMMARY/ { print $2 " identical, " $3 " differ" }' "$OUT/deps/a-vs-$m-$a.txt")"
			grep -v '^SUMMARY' "$OUT/deps/a-vs-$m-$a.txt" | sed 's/^/- /'
		done
	done
	if has a && has c; then
		full=$(wc -l < "$OUT/hdr/a-$(echo $ARCHS | cut -d' ' -f1)/vmlinux.h")
		for t in $tools; do
			[ -s "$OUT/hdr/c/$t/vmlinux.h" ] && echo "$t $(wc -l < "$OUT/hdr/c/$t/vmlinux.h")"
		done > "$OUT/slim-lines.txt"
		echo
		awk -v full="$full" '
		{ r[NR] = $2 / full; l[NR] = $2 }
		END {
			if (!NR) { print "slim: no header"; exit }
			for (i = 2; i <= NR; i++)
				for (j = i; j > 1 && r[j - 1] > r[j]; j--) {
					t = r[j]; r[j] = r[j - 1]; r[j - 1] = t
					t = l[j]; l[j] = l[j - 1]; l[j - 1] = t
				}
			m = NR % 2 ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2
			printf "slim: %d headers, lines / bpftool full header (%d lines): median %.2f%%, min %.2f%% (%d lines), max %.2f%% (%d lines)\n",
				NR, full, 100 * m, 100 * r[1], l[1], 100 * r[NR], l[NR]
		}' "$OUT/slim-lines.txt"
	fi
	if [ "$SPEED" = 1 ]; then
		echo
		echo "speed, $SPEED_RUNS runs (tools/paired-bench.sh):"
		echo "full header:"
		sh "$src/tools/paired-bench.sh" -n "$SPEED_RUNS" \
			-a "\"$BTFCANON\" header $kargs -o \"$OUT/speed-full.h\""
		echo "--for $SPEED_TOOL:"
		sh "$src/tools/paired-bench.sh" -n "$SPEED_RUNS" \
			-a "\"$BTFCANON\" header $kargs -o \"$OUT/speed-slim.h\" $(fors "$SPEED_TOOL")"
	fi
} > "$OUT/summary.md"
cat "$OUT/summary.md"
