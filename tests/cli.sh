#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# End-to-end tests of the btfcanon command line: bad inputs, usage errors,
# output to files and to stdout, --in-place on ELF objects, --stats, and
# both orders on the running kernel's BTF.
#
#   BTFCANON=build/btfcanon tests/cli.sh
#
# Every case runs in its own directory under one mktemp -d directory (removed
# at exit) and prints one line: "ok", "FAIL" (with what went wrong and the
# command's stderr) or "skip" (with why). Exits 1 when any case failed.
#
# Tools: clang, gcc, pahole (dwarves), bpftool, readelf/objcopy/ld
# (binutils) and coreutils; CI installs them all, so a missing one is a
# failure, not a skip. Only the cases that read /sys/kernel/btf/vmlinux are
# skipped where the kernel has no BTF (BTFCANON_VMLINUX names another file).

set -eu

PATH=$PATH:/usr/sbin:/sbin
export LC_ALL=C

: "${BTFCANON:?set BTFCANON to the btfcanon binary}"
case $BTFCANON in
/*) ;;
*) BTFCANON=$(pwd)/$BTFCANON ;;
esac
if [ ! -x "$BTFCANON" ]; then
	echo "cli: FAIL: BTFCANON=$BTFCANON is not an executable" >&2
	exit 1
fi
VMLINUX=${BTFCANON_VMLINUX:-/sys/kernel/btf/vmlinux}

work=$(mktemp -d "${TMPDIR:-/tmp}/btfcanon-cli.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
cd "$work"
mkdir in

nr_cases=0
nr_failed=0
nr_skipped=0

# --- helpers, used inside a case (a subshell in its own directory) ---

# die MESSAGE: fails the current case.
die() {
	echo "  $*"
	if [ -s stderr ]; then
		echo "  stderr of the last command:"
		sed 's/^/    | /' stderr | head -n 20
	fi
	exit 1
}

# skip_case MESSAGE: the current case cannot run here.
skip_case() {
	echo "$*" > skipped
	exit 0
}

# run WANT_STATUS COMMAND...: runs the command with its output in the
# files stdout and stderr; fails the case on any other exit status.
run() {
	want=$1
	shift
	status=0
	"$@" > stdout 2> stderr || status=$?
	[ "$status" -eq "$want" ] ||
		die "exit status $status, want $want: $*"
}

# stderr_has TEXT: the last command's stderr contains TEXT (fixed string).
stderr_has() {
	grep -qF -- "$1" stderr || die "stderr does not mention '$1'"
}

stdout_has() {
	grep -qF -- "$1" stdout || die "stdout does not mention '$1'"
}

# no_temps DIR: no temporary file of an atomic write was left in DIR.
no_temps() {
	for f in "$1"/*.tmp.*; do
		[ ! -e "$f" ] || die "temporary file left behind: $f"
	done
}

# same FILE1 FILE2 WHAT: byte-identical.
same() {
	cmp -s "$1" "$2" || die "$3: $1 and $2 differ"
}

# poke FILE OFFSET OCTAL-ESCAPES: overwrites bytes in place.
poke() {
	# shellcheck disable=SC2059 # the format is the bytes, as octal escapes
	printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc 2> /dev/null ||
		die "cannot patch $1"
}

# section_offset FILE SECTION: file offset of an ELF section, in decimal.
section_offset() {
	off=$(readelf -SW "$1" |
	      sed -n "s/.*\] $2 *[A-Z_]* *[0-9a-f]* *\([0-9a-f]*\) .*/\1/p")
	[ -n "$off" ] || die "$1 has no $2 section"
	echo $((0x$off))
}

# --- the case runner ---

# run_case NAME FUNCTION ARGS...: runs FUNCTION in a fresh directory
# (only the cases whose names match the grep pattern $CLI_CASES, if set).
run_case() {
	name=$1
	shift
	if [ -n "${CLI_CASES:-}" ] && [ "${name#fixtures:}" = "$name" ] &&
	   ! echo "$name" | grep -q -e "$CLI_CASES"; then
		return 0
	fi
	nr_cases=$((nr_cases + 1))
	dir=$work/case$nr_cases
	log=$work/case$nr_cases.log
	mkdir "$dir"
	if (cd "$dir" && "$@") > "$log" 2>&1; then
		if [ -e "$dir/skipped" ]; then
			nr_skipped=$((nr_skipped + 1))
			echo "skip: $name: $(cat "$dir/skipped")"
		else
			echo "ok:   $name"
		fi
	else
		nr_failed=$((nr_failed + 1))
		echo "FAIL: $name"
		sed 's/^/      /' "$log"
	fi
}

# --- fixtures: small objects with BTF, raw BTF, broken copies ---

cat > in/prog.c << 'EOF'
struct node { int val; struct node *next; };
struct pair { long a; unsigned char b[3]; };
typedef struct pair pair_t;
enum color { RED, GREEN = 5, BLUE };
union u { int i; float f; };

int node_sum(const struct node *n)
{
	int s = 0;

	for (; n; n = n->next)
		s += n->val;
	return s;
}

long pair_first(pair_t *p, enum color c, union u *x)
{
	return p->a + p->b[0] + c + x->i;
}
EOF

cat > in/base.c << 'EOF'
struct list_head { struct list_head *next, *prev; };
struct device { const char *name; struct list_head node; int id; };
int device_id(struct device *d) { return d->id; }
EOF

cat > in/mod.c << 'EOF'
struct list_head { struct list_head *next, *prev; };
struct device { const char *name; struct list_head node; int id; };
struct mod_dev { struct device dev; unsigned long flags; };
unsigned long mod_flags(struct mod_dev *m) { return m->flags + m->dev.id; }
EOF

echo 'int tiny(int a) { return a; }' > in/tiny.c

make_fixtures() {
	for tool in clang gcc pahole bpftool readelf objcopy ld cmp dd; do
		command -v "$tool" > /dev/null ||
			die "$tool not found (CI installs clang, gcc, dwarves, bpftool, binutils)"
	done
	cd "$work/in"
	run 0 clang -g -O2 -c prog.c -o clang.o
	run 0 pahole -J clang.o
	run 0 gcc -g -O2 -c prog.c -o gcc.o
	run 0 pahole -J gcc.o
	# split BTF: mod.o's .BTF over base.o's
	run 0 clang -g -O2 -c base.c -o base.o
	run 0 pahole -J base.o
	run 0 clang -g -O2 -c mod.c -o mod.o
	run 0 pahole -J --btf_base base.o mod.o
	# a base with fewer types and strings than base.o: the wrong one for mod.o
	run 0 clang -g -O2 -c tiny.c -o tiny.o
	run 0 pahole -J tiny.o
	run 0 "$BTFCANON" sort --base base.o mod.o -o mod.btf
	run 0 "$BTFCANON" sort clang.o -o good.btf
	[ -s good.btf ] || die "good.btf is empty"
	cp /bin/true no-btf.o
	mkdir a-directory
	: > empty.btf
	echo 'this is not BTF at all' > text.btf
	head -c 10 good.btf > short-header.btf
	size=$(wc -c < good.btf)
	head -c $((size / 2)) good.btf > truncated.btf
	cp good.btf magic.btf && poke magic.btf 0 '\022\064'
	cp good.btf swapped.btf && poke swapped.btf 0 '\353\237'
	cp good.btf version.btf && poke version.btf 2 '\002'
	# str_len (bytes 20..23) grows by 16 MB
	cp good.btf lengths.btf && poke lengths.btf 23 '\001'
	# kind 25 in the info word of the first type (bytes 28..31)
	cp good.btf kind.btf && poke kind.btf 31 '\031'
	cp good.btf nonul.btf && poke nonul.btf $((size - 1)) 'x'
	# a bad magic inside an ELF file's .BTF section
	cp clang.o bad-section.o
	poke bad-section.o "$(section_offset bad-section.o .BTF)" '\000\000'
	if [ -r "$VMLINUX" ]; then
		run 0 "$BTFCANON" sort "$VMLINUX" -o vmlinux.btf
		head -c 1000000 vmlinux.btf > vmlinux-truncated.btf
	fi
}
run_case "fixtures: objects with pahole -J, raw and broken BTF" make_fixtures
[ -s "$work/in/good.btf" ] || {
	echo "cli: fixtures failed; nothing else can run"
	exit 1
}
IN=$work/in

# --- bad inputs: status 1, a clear message, no output, no temp file ---

# check_bad_input NAMED PHRASE [SORT-ARGS...]: sorting fails with a message
# that names the file NAMED and says PHRASE. SORT-ARGS (without -o) default
# to NAMED as the INPUT.
check_bad_input() {
	named=$1
	phrase=$2
	shift 2
	[ $# -gt 0 ] || set -- "$named"
	mkdir out
	printf 'precious old output\n' > out/kept.btf
	cp out/kept.btf expected

	run 1 "$BTFCANON" sort "$@" -o out/kept.btf
	stderr_has "$named"
	stderr_has "$phrase"
	[ ! -s stdout ] || die "something was written to stdout"
	same out/kept.btf expected "the existing output was changed"

	run 1 "$BTFCANON" sort "$@" -o out/new.btf
	[ ! -e out/new.btf ] || die "an output file was created"
	no_temps out

	run 1 "$BTFCANON" sort "$@" -o -
	[ ! -s stdout ] || die "-o -: something was written to stdout"
	no_temps out
}

bad_input() {
	name=$1
	shift
	run_case "bad input: $name" check_bad_input "$@"
}

bad_input "missing file" "$IN/does-not-exist.btf" "No such file"
bad_input "a directory" "$IN/a-directory" "Is a directory"
bad_input "empty file" "$IN/empty.btf" "empty"
bad_input "truncated header" "$IN/short-header.btf" "truncated"
bad_input "truncated file" "$IN/truncated.btf" "truncated"
bad_input "text file" "$IN/text.btf" "bad magic"
bad_input "wrong magic" "$IN/magic.btf" "bad magic"
bad_input "byte-swapped magic" "$IN/swapped.btf" "byte order"
bad_input "version 2" "$IN/version.btf" "version 2"
bad_input "header lengths" "$IN/lengths.btf" "header lengths do not add up"
bad_input "unknown kind" "$IN/kind.btf" "unknown kind 25"
bad_input "strings not NUL-terminated" "$IN/nonul.btf" "not NUL-terminated"
bad_input "ELF file without .BTF" "$IN/no-btf.o" "no .BTF section"
bad_input "ELF file with a broken .BTF" "$IN/bad-section.o" "bad magic"
bad_input "split ELF without --base" "$IN/mod.o" "give its base with --base"
bad_input "split raw BTF without --base" "$IN/mod.btf" "give its base with --base"
bad_input "--base is not BTF" "$IN/text.btf" "bad magic" \
	--base "$IN/text.btf" "$IN/mod.o"
bad_input "--base is missing" "$IN/nope.btf" "No such file" \
	--base "$IN/nope.btf" "$IN/mod.o"
bad_input "--base is not the base" "$IN/mod.o" "is the base the one it was built on" \
	--base "$IN/tiny.o" "$IN/mod.o"
if [ -e "$IN/vmlinux-truncated.btf" ]; then
	bad_input "truncated vmlinux BTF" "$IN/vmlinux-truncated.btf" "truncated"
else
	run_case "bad input: truncated vmlinux BTF" skip_case "$VMLINUX absent"
fi

# --- usage errors: status 2 ---

# usage_error NAME STDERR-PHRASE ARGS...
check_usage() {
	phrase=$1
	shift
	cp "$IN/good.btf" in.btf
	run 2 "$BTFCANON" "$@"
	[ -s stderr ] || die "no message on stderr"
	[ -z "$phrase" ] || stderr_has "$phrase"
	same in.btf "$IN/good.btf" "the input was changed"
	for f in *; do
		case $f in
		in.btf | stdout | stderr) ;;
		*) die "usage error created a file: $f" ;;
		esac
	done
}

usage_error() {
	name=$1
	shift
	run_case "usage: $name" check_usage "$@"
}

usage_error "no arguments" "Usage"
usage_error "no INPUT" "expected one INPUT" sort -o out.btf
usage_error "two INPUTs" "expected one INPUT" sort in.btf in.btf -o out.btf
usage_error "-o with --in-place" "exclude each other" sort in.btf -o out.btf --in-place
usage_error "unknown --order" "unknown order 'size'" sort --order=size in.btf -o out.btf
usage_error "unknown option" "" sort --no-such-option in.btf -o out.btf
usage_error "nothing to do" "nothing to do" sort in.btf
usage_error "unknown command" "unknown command" frobnicate in.btf

check_help() {
	run 0 "$BTFCANON" --help
	stdout_has "Usage: btfcanon"
	stdout_has "sort"
	stdout_has "--in-place"
	run 0 "$BTFCANON" -h
	stdout_has "sort"
	run 0 "$BTFCANON" sort --help
	stdout_has "sort"
	# archive's options stand in their own list after the prose, not in
	# the middle of a sentence (issue 27); no line past 80 columns
	run 0 "$BTFCANON" archive --help
	stdout_has "Usage: btfcanon archive create"
	awk '/^Options:$/ { opts = 1 }
	     /^ *-j N/ && !opts { exit 1 }
	     length($0) > 80 { exit 1 }
	     END { exit !opts }' stdout ||
		die "archive --help: an option outside its Options: list, or a line past 80 columns"
	grep -q '^  -j N  ' stdout || die "archive --help: no -j N in Options:"
}
run_case "--help" check_help

check_version() {
	run 0 "$BTFCANON" --version
	grep -q '^btfcanon [0-9][0-9]*\.[0-9][0-9]*' stdout ||
		die "--version printed '$(cat stdout)'"
	run 0 "$BTFCANON" -V
	stdout_has "btfcanon "
}
run_case "--version" check_version

# --- writing results ---

check_stdout() {
	run 0 "$BTFCANON" sort "$IN/clang.o" -o file.btf
	run 0 "$BTFCANON" sort "$IN/clang.o" -o -
	same stdout file.btf "-o - and -o file"
	[ ! -e ./- ] || die "-o - created a file named -"
}
run_case "-o - writes the same bytes to stdout" check_stdout

check_overwrite() {
	printf 'old content\n' > out.btf
	run 0 "$BTFCANON" sort "$IN/clang.o" -o out.btf
	same out.btf "$IN/good.btf" "overwritten output"
	no_temps .
}
run_case "-o replaces an existing file" check_overwrite

check_idempotent() {
	run 0 "$BTFCANON" sort "$IN/good.btf" -o again.btf
	same again.btf "$IN/good.btf" "sort of sorted BTF"
	run 0 bpftool btf dump file again.btf
	stdout_has "STRUCT 'node'"
}
run_case "sorting sorted BTF changes nothing; bpftool reads it" check_idempotent

check_split() {
	run 0 "$BTFCANON" sort --base "$IN/base.o" "$IN/mod.o" -o split.btf
	run 0 bpftool btf dump -B "$IN/base.o" file split.btf
	stdout_has "STRUCT 'mod_dev'"
	run 0 "$BTFCANON" sort --base "$IN/base.o" split.btf -o again.btf
	same again.btf split.btf "sort of sorted split BTF"
}
run_case "split BTF with --base" check_split

check_stats() {
	run 0 "$BTFCANON" sort --stats "$IN/clang.o"
	stderr_has "types in"
	stderr_has "refinement rounds"
	for f in *; do
		case $f in
		stdout | stderr) ;;
		*) die "--stats alone wrote a file: $f" ;;
		esac
	done
	run 0 "$BTFCANON" sort --stats "$IN/clang.o" -o out.btf
	stderr_has "types in"
	stderr_has "refinement rounds"
	same out.btf "$IN/good.btf" "output with --stats"
}
run_case "--stats" check_stats

# --- --in-place on ELF objects ---

# check_in_place OBJECT: OBJECT (from pahole -J) sorted in place.
check_in_place() {
	obj=$1
	cp "$obj" copy.o
	chmod 0640 copy.o
	run 0 "$BTFCANON" sort --in-place copy.o
	[ ! -s stdout ] || die "--in-place wrote to stdout"
	no_temps .
	[ "$(stat -c %a copy.o)" = 640 ] ||
		die "mode changed to $(stat -c %a copy.o)"

	run 0 bpftool btf dump file copy.o
	stdout_has "STRUCT 'node'"
	stdout_has "FUNC 'node_sum'"
	run 0 readelf -SW copy.o
	stdout_has ".BTF"
	[ ! -s stderr ] || die "readelf -S complains"
	run 0 ld -r copy.o -o linked.o
	for s in .text .symtab; do
		readelf -x $s "$obj" | tail -n +3 > want.hex
		readelf -x $s copy.o | tail -n +3 > got.hex
		same got.hex want.hex "section $s"
	done

	# the canonical content is the same as that of the original
	run 0 "$BTFCANON" sort copy.o -o a.btf
	run 0 "$BTFCANON" sort "$obj" -o b.btf
	same a.btf b.btf "canonical BTF before and after --in-place"
	run 0 objcopy --dump-section .BTF=section.btf copy.o scratch.o
	same section.btf b.btf "the rewritten .BTF section"

	# a second --in-place changes nothing
	cp copy.o twice.o
	run 0 "$BTFCANON" sort --in-place twice.o
	same twice.o copy.o "--in-place twice"
	no_temps .
}
run_case "--in-place on a clang object" check_in_place "$IN/clang.o"
run_case "--in-place on a gcc object" check_in_place "$IN/gcc.o"

check_in_place_split() {
	cp "$IN/mod.o" mod.o
	run 0 "$BTFCANON" sort --base "$IN/base.o" --in-place mod.o
	run 0 bpftool btf dump -B "$IN/base.o" file mod.o
	stdout_has "STRUCT 'mod_dev'"
	run 0 objcopy --dump-section .BTF=section.btf mod.o scratch.o
	run 0 "$BTFCANON" sort --base "$IN/base.o" "$IN/mod.o" -o want.btf
	same section.btf want.btf "the rewritten split .BTF section"
}
run_case "--in-place on split BTF with --base" check_in_place_split

# check_in_place_fails FILE PHRASE: --in-place refused, FILE untouched.
check_in_place_fails() {
	cp "$1" input
	cp "$1" expected
	run 1 "$BTFCANON" sort --in-place input
	stderr_has "input"
	stderr_has "$2"
	same input expected "the input was changed"
	no_temps .
}
run_case "--in-place on raw BTF fails" \
	check_in_place_fails "$IN/good.btf" "--in-place needs an ELF file"
run_case "--in-place on ELF without .BTF fails" \
	check_in_place_fails "$IN/no-btf.o" "no .BTF section"
run_case "--in-place on ELF with a broken .BTF fails" \
	check_in_place_fails "$IN/bad-section.o" "bad magic"

# --- the running kernel's BTF, both orders ---

# check_vmlinux_order ORDER
check_vmlinux_order() {
	[ -r "$VMLINUX" ] || skip_case "$VMLINUX absent"
	run 0 "$BTFCANON" sort --order="$1" "$VMLINUX" -o sorted.btf
	run 0 bpftool btf dump file sorted.btf
	stdout_has "STRUCT 'task_struct'"
	run 0 "$BTFCANON" sort --order="$1" sorted.btf -o again.btf
	same again.btf sorted.btf "sort of sorted vmlinux BTF"
	cp sorted.btf "$work/vmlinux-$1.btf"
}
run_case "--order=kind on $VMLINUX" check_vmlinux_order kind
run_case "--order=name on $VMLINUX" check_vmlinux_order name

check_orders_differ() {
	if [ ! -e "$work/vmlinux-kind.btf" ] || [ ! -e "$work/vmlinux-name.btf" ]; then
		skip_case "no sorted vmlinux BTF"
	fi
	! cmp -s "$work/vmlinux-kind.btf" "$work/vmlinux-name.btf" ||
		die "--order=kind and --order=name gave the same bytes"
	same "$work/vmlinux-kind.btf" "$IN/vmlinux.btf" "default order vs --order=kind"
}
run_case "the two orders differ; kind is the default" check_orders_differ

# --- dump and diff ---

# dump -f raw lists canonical BTF as bpftool lists it; -f json parses.
check_dump_raw() {
	run 0 "$BTFCANON" dump -f raw "$IN/clang.o"
	mv stdout ours.txt
	run 0 bpftool btf dump file "$IN/good.btf"
	same ours.txt stdout "dump -f raw and bpftool's listing of the sorted BTF"
	run 0 "$BTFCANON" dump -f json "$IN/clang.o" -o ours.json
	run 0 python3 -c 'import json, sys; t = json.load(open(sys.argv[1]))["types"]; assert t[0]["id"] == 1' ours.json
}
run_case "dump -f raw matches bpftool; -f json is JSON" check_dump_raw

# dump -f c compiles for BPF and has bpftool's declarations.
check_dump_c() {
	run 0 "$BTFCANON" dump -f c "$IN/clang.o" -o prog.h
	printf '#include "prog.h"\nint use(struct pair *p) { return p->b[0]; }\n' > use.c
	run 0 clang -target bpf -O2 -c use.c -o use.o
	grep -qF 'preserve_access_index' prog.h || die "no preserve_access_index pragma"
	for decl in 'struct pair {' 'typedef struct pair pair_t;' 'enum color {' 'union u {'; do
		grep -qF "$decl" prog.h || die "prog.h lacks '$decl'"
	done
	if [ -r "$VMLINUX" ]; then
		run 0 "$BTFCANON" dump -f c "$VMLINUX" -o vmlinux.h
		printf '#include "vmlinux.h"\nint f(struct task_struct *t) { return t->pid; }\n' > v.c
		run 0 clang -target bpf -O2 -c v.c -o v.o
	fi
}
run_case "dump -f c compiles with clang -target bpf" check_dump_c

# kfunc prototypes: the header of 6.12.117's BTF, encoded with the kernel
# build's features (decl_tag_kfuncs), declares every kfunc the way
# bpftool 7.8 does, and a BPF program that calls bpf_task_from_pid and
# bpf_task_release compiles against it (and the running kernel loads it,
# where this user may load BPF programs).
check_kfunc_header() {
	src=${BTFCANON_SRC:-$(dirname "$(dirname "$BTFCANON")")}
	v=/usr/lib/debug/boot/vmlinux-6.12.117+deb12-cloud-amd64
	[ -r "$v" ] || skip_case "$v not installed"
	run 0 "$BTFCANON" encode -j2 --features encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs "$v" -o v.btf
	run 0 "$BTFCANON" dump -f c v.btf -o vmlinux.h
	for line in \
		'extern struct task_struct *bpf_task_from_pid(s32 pid) __weak __ksym;' \
		'extern void bpf_task_release(struct task_struct *p) __weak __ksym;' \
		'#define __ksym __attribute__((section(".ksyms")))' \
		'#define __weak __attribute__((weak))' \
		'#define __bpf_fastcall __attribute__((bpf_fastcall))' \
		'#ifndef BPF_NO_KFUNC_PROTOTYPES' \
		'/* BPF kfuncs */'; do
		grep -qxF -- "$line" vmlinux.h || die "vmlinux.h lacks '$line'"
	done
	# one prototype per FUNC that carries a bpf_kfunc tag itself, by name
	run 0 "$BTFCANON" dump -f raw v.btf
	want=$(sed -n "s/.* DECL_TAG 'bpf_kfunc' type_id=\([0-9]*\) component_idx=-1$/\1/p" stdout | sort -u | wc -l)
	grep ' __weak __ksym;$' vmlinux.h | sed 's/(.*//; s/.*[ *]//' > names
	[ "$(wc -l < names)" -eq "$want" ] && [ "$want" -gt 100 ] ||
		die "$(wc -l < names) kfunc prototypes for $want bpf_kfunc FUNCs"
	sort -c names || die "the kfunc prototypes are not sorted by name"
	run 0 clang -target bpf -O2 -g -Wall -Werror -I. \
		-c "$src/tests/fixtures/bpf/task_kfunc.bpf.c" -o prog.o
	run 0 readelf -sW prog.o
	stdout_has "WEAK   DEFAULT  UND bpf_task_from_pid"
	stdout_has "WEAK   DEFAULT  UND bpf_task_release"
	run 0 bpftool btf dump file prog.o
	stdout_has "DATASEC '.ksyms' size=0 vlen=2"
	pin=/sys/fs/bpf/btfcanon-cli-$$
	if [ "$(id -u)" -eq 0 ] && [ -w /sys/fs/bpf ]; then
		run 0 bpftool prog load prog.o "$pin"
		rm -f "$pin"
	fi
}
run_case "dump -f c: kfunc prototypes of 6.12.117 compile and load" check_kfunc_header

# --check: 0 when up to date, 1 and a diff when stale, 2 when unreadable.
check_dump_check() {
	run 0 "$BTFCANON" dump -f c "$IN/clang.o" -o prog.h
	run 0 "$BTFCANON" dump -f c --check prog.h "$IN/clang.o"
	[ ! -s stdout ] || die "--check printed something for a fresh header"
	sed -i 's/long a;/long a_renamed;/' prog.h
	run 1 "$BTFCANON" dump -f c --check prog.h "$IN/clang.o"
	stdout_has "prog.h is stale"
	stdout_has "+	long a;"
	run 2 "$BTFCANON" dump -f c --check missing.h "$IN/clang.o"
	stderr_has "missing.h"
}
run_case "dump -f c --check" check_dump_check

# Plain names by use (header/dump_c.c) in the slim header too: two units
# each with a typedef u8, the kernel's of __u8 used three times and a
# driver's of unsigned char once. The full header and the slim header of a
# program that names only the driver's struct spell both alike (u8 and
# u8___2), though in the slim cut the kernel's u8 is not used at all.
check_plain_names_slim() {
	cat > kern.c <<'EOF'
typedef unsigned char __u8;
typedef __u8 u8;
struct kern { u8 a; u8 b; u8 *p; } kern;
EOF
	cat > drv.c <<'EOF'
typedef unsigned char u8;
struct drv { u8 c; } drv;
EOF
	cat > prog.c <<'EOF'
#include "vmlinux.h"
int f(struct drv *d) { return d->c; }
EOF
	run 0 gcc -g -c kern.c -o kern.o
	run 0 gcc -g -c drv.c -o drv.o
	run 0 ld -r kern.o drv.o -o both.o
	run 0 "$BTFCANON" encode both.o -o both.btf
	run 0 "$BTFCANON" dump -f c both.btf -o full.h
	run 0 "$BTFCANON" dump -f c --for prog.c both.btf -o slim.h
	for h in full.h slim.h; do
		grep -qx 'typedef __u8 u8;' $h || die "$h: the kernel's u8 is not plain"
		grep -qx 'typedef unsigned char u8___2;' $h || die "$h: the driver's u8 is not u8___2"
	done
	grep -qx '	u8___2 c;' slim.h || die "slim.h: struct drv's member is not u8___2"
	cp slim.h vmlinux.h
	run 0 clang -target bpf -O2 -g -I. -c prog.c -o prog.o
}
run_case "dump -f c: plain names by use, alike in the slim header" check_plain_names_slim

# dump -f c --for: the slim header of a program (types it names, the
# enum of a constant it uses, nothing else); --check on it; unreadable
# sources and bad objects refused naming the file, with no output file.
check_dump_for() {
	src=${BTFCANON_SRC:-$(dirname "$(dirname "$BTFCANON")")}
	k=$src/tests/data/dummy.btf
	cat > prog.c <<'EOF'
#include "vmlinux.h"
/* struct sk_buff: in a comment only */
int f(void *p) { return sizeof(struct inode) + PIDTYPE_TGID; }
EOF
	run 0 "$BTFCANON" dump -f c --for prog.c "$k" -o slim.h
	grep -q '^struct inode {$' slim.h || die "slim.h lacks struct inode"
	grep -q '	PIDTYPE_TGID = 1,' slim.h || die "slim.h lacks enum pid_type"
	! grep -q '^struct sk_buff {$' slim.h || die "slim.h defines struct sk_buff"
	[ "$(wc -l < slim.h)" -lt 2000 ] || die "slim.h has $(wc -l < slim.h) lines"
	cp slim.h vmlinux.h
	run 0 clang -target bpf -O2 -g -I. -c prog.c -o prog.o
	run 0 "$BTFCANON" dump -f c --for prog.c --check slim.h "$k"
	echo '/* edited */' >> slim.h
	run 1 "$BTFCANON" dump -f c --for prog.c --check slim.h "$k"
	stdout_has "differs from what \`btfcanon dump -f c --for prog.c $k\` writes"
	run 0 "$BTFCANON" dump -f c --for prog.o --for prog.c "$k" -o both.h
	run 2 "$BTFCANON" dump -f c --for missing.c "$k" -o out.h
	stderr_has "missing.c"
	[ ! -e out.h ] || die "out.h written for a missing source"
	printf '\177ELF and nothing more' > bad.o
	run 2 "$BTFCANON" dump -f c --for bad.o "$k" -o out.h
	stderr_has "bad.o"
	[ ! -e out.h ] || die "out.h written for a bad object"
	# -I: a missing directory, a file, -I without --for: exit 2, named
	run 2 "$BTFCANON" dump -f c -I no-such-dir --for prog.c "$k" -o out.h
	stderr_has "no-such-dir: include directory (-I): No such file or directory"
	run 2 "$BTFCANON" dump -f c --for prog.c -Iprog.c "$k" -o out.h
	stderr_has "prog.c: include directory (-I) is not a directory"
	run 2 "$BTFCANON" dump -f c -I . "$k" -o out.h
	stderr_has "-I . without --for"
	[ ! -e out.h ] || die "out.h written for a bad -I"
	# -I .: the same header as without (prog.c includes only vmlinux.h)
	run 0 "$BTFCANON" dump -f c -I. --for prog.c "$k" -o incdir.h
	cmp -s incdir.h vmlinux.h || die "-I . changed the slim header"
	no_temps .
}
run_case "dump -f c --for: the slim header" check_dump_for

# diff: 0 equal, 1 different, 2 bad input (with the file named, no report).
check_diff_status() {
	run 0 "$BTFCANON" diff "$IN/clang.o" "$IN/good.btf"
	[ ! -s stdout ] || die "diff of equal BTFs printed a report"
	run 1 "$BTFCANON" diff "$IN/clang.o" "$IN/tiny.o"
	stdout_has "- struct pair  (size 16, 2 members)"
	stdout_has "+ func tiny"
	run 1 "$BTFCANON" diff --stat "$IN/clang.o" "$IN/tiny.o"
	stdout_has "removed  struct"
	run 1 "$BTFCANON" diff --json "$IN/clang.o" "$IN/tiny.o"
	mv stdout report.json
	run 0 python3 -c 'import json; json.load(open("report.json"))'
	for bad in truncated.btf text.btf does-not-exist.btf; do
		run 2 "$BTFCANON" diff "$IN/clang.o" "$IN/$bad"
		stderr_has "$bad"
		[ ! -s stdout ] || die "a report was printed for bad input $bad"
	done
	run 2 "$BTFCANON" diff "$IN/clang.o"
	run 2 "$BTFCANON" dump -f pdf "$IN/clang.o"
	run 2 "$BTFCANON" dump -f c "$IN/truncated.btf" -o out.h
	[ ! -e out.h ] || die "dump of bad input wrote its output"
	run 0 "$BTFCANON" diff --base "$IN/base.o" "$IN/mod.o" "$IN/mod.btf"
}
run_case "diff exit status, --stat, --json, bad input" check_diff_status

# An ELF file with DWARF and no .BTF is encoded on the fly.
check_diff_dwarf() {
	run 0 gcc -g -O2 -c "$work/in/prog.c" -o dwarf.o
	readelf -S dwarf.o | grep -q '\.BTF' && die "gcc object has .BTF"
	run 0 "$BTFCANON" diff dwarf.o dwarf.o
	run 0 "$BTFCANON" dump -f c dwarf.o -o dwarf.h
	grep -qF 'struct pair {' dwarf.h || die "no struct pair in the encoded header"
}
run_case "diff and dump of DWARF-only objects" check_diff_dwarf

# A module's DWARF with --base: encoded as split BTF over the base, so the
# base's types are not repeated and ids go on from the base's.
check_diff_dwarf_split() {
	run 0 gcc -g -O2 -c "$work/in/base.c" -o base.o
	run 0 gcc -g -O2 -c "$work/in/mod.c" -o mod.o
	run 0 "$BTFCANON" encode base.o -o base.btf
	run 0 "$BTFCANON" encode --btf_base base.btf mod.o -o mod.btf
	run 0 "$BTFCANON" diff --base base.btf mod.o mod.o
	run 0 "$BTFCANON" diff --base base.btf mod.o mod.btf
	run 0 "$BTFCANON" dump -f raw --base base.btf mod.o -o mod.txt
	grep -qF "STRUCT 'mod_dev'" mod.txt || die "no struct mod_dev in the split dump"
	grep -qF "STRUCT 'device'" mod.txt && die "struct device repeated over the base"
	run 0 "$BTFCANON" dump -f raw --base base.btf mod.btf -o want.txt
	cmp -s mod.txt want.txt || die "on-the-fly split BTF differs from encode --btf_base"
	# the other way round: a change the base does not have
	run 1 "$BTFCANON" diff --base base.btf base.o mod.o
	stdout_has "mod_dev"
}
run_case "diff and dump of a module's DWARF over --base" check_diff_dwarf_split

# diff of two kernels with their modules (directories laid out as
# /sys/kernel/btf): the vmlinux report, a section per module that changed
# (mod_a), the modules added and removed; a module whose types are the
# same over a changed vmlinux (mod_b) has none; a corrupt module is named
# and left out, the others still compared; --no-modules, --json, --stat.
check_diff_modules() {
	cat > base2.c << 'EOF'
struct list_head { struct list_head *next, *prev; };
struct device { const char *name; struct list_head node; int id; int flags2; };
int device_id(struct device *d) { return d->id; }
EOF
	cat > mod2.c << 'EOF'
struct list_head { struct list_head *next, *prev; };
struct device { const char *name; struct list_head node; int id; int flags2; };
struct mod_dev { struct device dev; unsigned long flags; int extra; };
unsigned long mod_flags(struct mod_dev *m) { return m->flags + m->dev.id; }
EOF
	cat > modb.c << 'EOF'
struct device;
struct modb_ops { int (*probe)(struct device *d); long calls; };
long modb_calls(struct modb_ops *o) { return o->calls; }
EOF
	echo 'struct gone_state { int x; }; int gone(struct gone_state *s) { return s->x; }' > gone.c
	echo 'struct added_state { long y; }; long added(struct added_state *s) { return s->y; }' > added.c
	for f in "$work/in/base.c" "$work/in/mod.c" base2.c mod2.c modb.c gone.c added.c; do
		run 0 gcc -g -O2 -c "$f" -o "$(basename "$f" .c).o"
	done
	mkdir old new
	run 0 "$BTFCANON" encode base.o -o old/vmlinux
	run 0 "$BTFCANON" encode base2.o -o new/vmlinux
	for side in old new; do
		run 0 "$BTFCANON" encode --btf_base $side/vmlinux modb.o -o $side/mod_b.btf
	done
	run 0 "$BTFCANON" encode --btf_base old/vmlinux mod.o -o old/mod_a.btf
	run 0 "$BTFCANON" encode --btf_base new/vmlinux mod2.o -o new/mod_a.btf
	run 0 "$BTFCANON" encode --btf_base old/vmlinux gone.o -o old/gone.btf
	run 0 "$BTFCANON" encode --btf_base new/vmlinux added.o -o new/added.btf
	run 1 "$BTFCANON" diff old new
	for line in '--- old' '+++ new' '~ struct device' '--- old [mod_a]' \
		    '+++ new [mod_a]' '~ struct mod_dev' '--- old [modules]'; do
		grep -qxF -- "$line" stdout || die "stdout has no line '$line'"
	done
	stdout_has "+ member extra"
	stdout_has "+ module added  ("
	stdout_has "- module gone  ("
	! grep -q 'mod_b' stdout || die "mod_b, the same over a changed vmlinux, reported"
	run 1 "$BTFCANON" diff --stat old new
	stdout_has " modules: 1 changed, 1 added, 1 removed"
	stdout_has "  mod_a: 1 changed, 0 added, 0 removed"
	run 1 "$BTFCANON" diff --json old new
	stdout_has '"modules":['
	stdout_has '{"op":"added","module":"added","types":'
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' stdout ||
		die "diff --json with modules is not JSON"
	run 1 "$BTFCANON" diff --no-modules old new
	! grep -q 'mod_a\|module' stdout || die "--no-modules compared modules"
	run 0 "$BTFCANON" diff old old
	[ ! -s stdout ] || die "a kernel against itself: a report"
	run 0 "$BTFCANON" diff -j1 new new
	# the same report whatever -j
	run 1 "$BTFCANON" diff -j1 old new
	mv stdout j1.txt
	run 1 "$BTFCANON" diff -j4 old new
	same stdout j1.txt "diff -j4 against -j1"
	# a corrupt module: named, left out, the rest compared
	printf 'garbage, not BTF' > new/broken.btf
	run 1 "$BTFCANON" diff old new
	stderr_has "broken"
	stdout_has "~ struct mod_dev"
	# a kernel without modules on one side: vmlinux alone, said
	run 1 "$BTFCANON" diff old/vmlinux new
	stderr_has "old/vmlinux holds no modules"
	! grep -q 'module' stdout || die "modules compared against a bare vmlinux"
	run 2 "$BTFCANON" diff -j0 old new
	stderr_has "-j takes a number"
}
run_case "diff of kernels with their modules" check_diff_modules

# distilled_base: a module's .BTF over its own .BTF.base (encode --format
# elf, or two raw files with --distilled-base), moved onto a base by
# relocate; a base whose struct device has another size is refused
# (mod_dev holds one by value), as is a module with no .BTF.base.
check_distilled() {
	run 0 gcc -g -O2 -c "$work/in/base.c" -o base.o
	run 0 gcc -g -O2 -c "$work/in/mod.c" -o mod.o
	run 0 "$BTFCANON" encode base.o -o base.btf
	run 0 "$BTFCANON" encode --btf_base base.btf --features default,distilled_base \
		--format elf mod.o -o mod-dist.o
	readelf -SW mod-dist.o | grep -q ' \.BTF\.base ' || die "no .BTF.base in mod-dist.o"
	run 0 "$BTFCANON" encode --btf_base base.btf --distilled-base dist.btf mod.o -o split.btf
	run 0 objcopy --dump-section .BTF.base=sec-base.btf \
		--dump-section .BTF=sec-split.btf mod-dist.o scratch.o
	same sec-base.btf dist.btf ".BTF.base and --distilled-base"
	same sec-split.btf split.btf ".BTF and -o with --distilled-base"
	run 0 bpftool btf dump file dist.btf
	stdout_has "STRUCT 'device' size=32 vlen=0"
	run 0 "$BTFCANON" relocate --base base.btf mod-dist.o -o rel.btf
	run 0 "$BTFCANON" relocate --base base.btf --distilled-base dist.btf split.btf -o rel2.btf
	same rel.btf rel2.btf "relocation of the ELF and of the raw files"
	run 0 bpftool btf dump -B base.btf file rel.btf
	stdout_has "STRUCT 'mod_dev'"
	sed 's/int id; };/int id; long more; };/' "$work/in/base.c" > big.c
	run 0 gcc -g -O2 -c big.c -o big.o
	run 0 "$BTFCANON" encode big.o -o big.btf
	run 1 "$BTFCANON" relocate --base big.btf mod-dist.o -o bad.btf
	stderr_has "mod-dist.o: distilled base type [1] STRUCT 'device' (size 32, held by value, so the size must match) has no match in big.btf"
	[ ! -e bad.btf ] || die "a failed relocation wrote bad.btf"
	run 1 "$BTFCANON" relocate --base base.btf "$IN/mod.o" -o bad.btf
	stderr_has "mod.o: no .BTF.base section"
	[ ! -e bad.btf ] || die "a failed relocation wrote bad.btf"
	no_temps .
}
run_case "distilled_base: encode with .BTF.base, relocate" check_distilled

# Multi-dimensional arrays are flat by default, as pahole writes them:
# int a[2][3] is one ARRAY of 6, and the result equals pahole's BTF;
# --flat-arrays (the default, still accepted) changes nothing;
# --nested-arrays gives C's shape. Split BTF over pahole's base reuses
# the base's types; over a base made with --nested-arrays the module's
# arrays are nested by themselves, to match it, unless --flat-arrays says
# otherwise.
check_array_shapes() {
	cat > base.c << 'EOF'
struct grid { int cells[2][3]; long cube[2][2][2]; };
struct board { struct grid *g; int id; };
int board_id(struct board *b) { return b->id + b->g->cells[1][2]; }
EOF
	cat > mod.c << 'EOF'
struct grid { int cells[2][3]; long cube[2][2][2]; };
struct board { struct grid *g; int id; };
struct piece { struct board *on; char name[2][4]; };
int piece_cell(struct piece *p) { return p->on->g->cells[0][1] + p->name[1][0]; }
EOF
	run 0 gcc -g -O2 -c base.c -o base.o
	run 0 gcc -g -O2 -c mod.c -o mod.o
	run 0 "$BTFCANON" encode base.o -o flat.btf
	run 0 pahole -J --btf_encode_detached=pahole.btf base.o
	run 0 "$BTFCANON" diff flat.btf pahole.btf
	run 0 bpftool btf dump file flat.btf
	grep -q "ARRAY '(anon)' type_id=[0-9]* index_type_id=[0-9]* nr_elems=6" stdout ||
		die "no flat ARRAY of 6 for int[2][3]"
	run 0 "$BTFCANON" encode -j4 --flat-arrays base.o -o flat4.btf
	cmp -s flat.btf flat4.btf || die "--flat-arrays or -j4 changes the default output"
	run 0 "$BTFCANON" encode --nested-arrays base.o -o nested.btf
	run 1 "$BTFCANON" diff nested.btf pahole.btf
	run 0 bpftool btf dump file nested.btf
	grep -q "nr_elems=6" stdout && die "--nested-arrays: a flat ARRAY of 6"
	grep -q "nr_elems=3" stdout || die "--nested-arrays: no ARRAY of 3 for int[2][3]"
	run 2 "$BTFCANON" encode --nested-arrays --flat-arrays base.o -o both.btf
	stderr_has "exclude each other"
	# split over pahole's base: grid and board come from the base
	run 0 "$BTFCANON" encode --btf_base pahole.btf mod.o -o mod.btf
	run 0 bpftool btf dump file mod.btf -B pahole.btf
	grep -qF "STRUCT 'piece'" stdout || die "no struct piece in the module"
	grep -qE "STRUCT '(grid|board)'" stdout && die "base structs repeated in the module"
	grep -q "nr_elems=8" stdout || die "char name[2][4] not flat in the module"
	# over a nested base: nested by itself, the base's types reused
	run 0 "$BTFCANON" encode --btf_base nested.btf mod.o -o mod2.btf
	run 0 bpftool btf dump file mod2.btf -B nested.btf
	grep -qE "STRUCT '(grid|board)'" stdout && die "base structs repeated over the nested base"
	grep -q "nr_elems=8" stdout && die "char name[2][4] flat over a nested base"
	# unless asked: flat, and the base's structs repeated to match
	run 0 "$BTFCANON" encode --flat-arrays --btf_base nested.btf mod.o -o mod3.btf
	run 0 bpftool btf dump file mod3.btf -B nested.btf
	grep -q "nr_elems=8" stdout || die "--flat-arrays over a nested base: not flat"
	true
}
run_case "array shapes: flat by default, --nested-arrays, split over either base" check_array_shapes

# attributes (pahole 1.30): DECL_TAG and TYPE_TAG with kflag 1 (libbpf's
# btf__add_decl_attr/btf__add_type_attr; the kernel's own BTF has one,
# TYPE_TAG "address_space(1)", on its arena kfuncs' pointers). sort keeps
# the flag, and keeps a tag with it apart from the same tag without it.
check_tag_attributes() {
	cat > tags.py << 'EOF'
import struct, sys

# size of each kind's data past the 12-byte common part: (fixed, per vlen)
EXTRA = {1: (4, 0), 3: (12, 0), 4: (0, 12), 5: (0, 12), 6: (0, 8),
         13: (0, 8), 14: (4, 0), 15: (0, 12), 17: (4, 0), 19: (0, 12)}

def write(path):
    strs = b"\0int\0x\0y\0s\0a\0b\0"
    off = {n: strs.index(b"\0" + n.encode() + b"\0") + 1
           for n in ("int", "x", "y", "s", "a", "b")}
    def t(name, kind, vlen, kflag, st):
        return struct.pack("<III", off[name] if name else 0,
                           kind << 24 | kflag << 31 | vlen, st)
    types = (t("int", 1, 0, 0, 4) + struct.pack("<I", 0x01000020) +
             t("x", 18, 0, 0, 1) + t("x", 18, 0, 1, 1) +
             t(None, 2, 0, 0, 2) + t(None, 2, 0, 0, 3) +
             t("s", 4, 2, 0, 16) +
             struct.pack("<III", off["a"], 4, 0) +
             struct.pack("<III", off["b"], 5, 64) +
             t("y", 17, 0, 0, 6) + struct.pack("<i", -1) +
             t("y", 17, 0, 1, 6) + struct.pack("<i", -1))
    hdr = struct.pack("<HBBIIIII", 0xeB9F, 1, 0, 24, 0, len(types),
                      len(types), len(strs))
    open(path, "wb").write(hdr + types + strs)

def count(path):
    d = open(path, "rb").read()
    hlen, toff, tlen = struct.unpack("<III", d[4:16])
    t, off, n = d[hlen + toff:hlen + toff + tlen], 0, {}
    while off < len(t):
        info = struct.unpack("<I", t[off + 4:off + 8])[0]
        kind, vlen = info >> 24 & 0x1f, info & 0xffff
        if kind in (17, 18):
            key = ("DECL_TAG" if kind == 17 else "TYPE_TAG") + \
                  " kflag=%d" % (info >> 31)
            n[key] = n.get(key, 0) + 1
        fixed, per = EXTRA.get(kind, (0, 0))
        off += 12 + fixed + per * vlen
    return " ".join("%s:%d" % kv for kv in sorted(n.items()))

if sys.argv[1] == "write":
    write(sys.argv[2])
else:
    print(count(sys.argv[2]))
EOF
	run 0 python3 tags.py write tags.btf
	run 0 bpftool btf dump file tags.btf
	run 0 "$BTFCANON" sort tags.btf -o sorted.btf
	run 0 python3 tags.py count sorted.btf
	tags_want="DECL_TAG kflag=0:1 DECL_TAG kflag=1:1 TYPE_TAG kflag=0:1 TYPE_TAG kflag=1:1"
	[ "$(cat stdout)" = "$tags_want" ] ||
		die "sort lost or merged kflag tags: $(cat stdout), want $tags_want"
	run 0 "$BTFCANON" sort sorted.btf -o again.btf
	same sorted.btf again.btf "sort(sort(x))"
	run 0 "$BTFCANON" sort --order=name tags.btf -o name.btf
	run 0 python3 tags.py count name.btf
	[ "$(cat stdout)" = "$tags_want" ] || die "--order=name: $(cat stdout)"
	run 0 bpftool btf dump file sorted.btf
	# the running kernel's kflag tags survive its sort
	run 0 python3 tags.py count "$VMLINUX"
	before=$(cat stdout)
	run 0 "$BTFCANON" sort "$VMLINUX" -o vmlinux.btf
	run 0 python3 tags.py count vmlinux.btf
	[ "$(cat stdout)" = "$before" ] ||
		die "$VMLINUX: tags by kflag $before, sorted $(cat stdout)"
	true
}
run_case "attributes: DECL_TAG and TYPE_TAG with kflag 1 through sort" check_tag_attributes

# The git recipe of btfcanon(1): textconv shows .btf changes as C.
check_git_textconv() {
	command -v git > /dev/null || die "git not found"
	git init -q repo && cd repo
	git config user.email t@example.org
	git config user.name test
	git config diff.btf.textconv "$BTFCANON dump -f c"
	echo '*.btf diff=btf' > .gitattributes
	cp "$IN/good.btf" types.btf
	git add .gitattributes types.btf && git commit -qm one
	"$BTFCANON" sort "$IN/tiny.o" -o types.btf
	run 0 git diff
	stdout_has "-struct pair {"
	stdout_has "-typedef struct pair pair_t;"
}
run_case "git diff with the btf textconv driver" check_git_textconv

# --- btfcanon-pahole: pahole's BTF encoding command line (pahole v1.31) ---

PAHOLE_DROPIN=$(dirname "$BTFCANON")/btfcanon-pahole
PAHOLE_VMLINUX=/usr/lib/debug/boot/vmlinux-6.12.117+deb12-cloud-amd64

# A 64-bit enumerator and a double: what the features change.
cat > in/features.c << 'EOF'
enum big { SMALL = 1, HUGE = 0x1ffffffffULL };
struct s { double d; enum big b; };
int use(struct s *p) { return p->b == HUGE; }
EOF

# foo's parameters are optimized out of a changed ABI; mismatch has a weak
# definition whose prototype differs from the strong one's.
cat > in/verbose_strong.c << 'EOF'
__attribute__((noinline)) long mismatch(int strong_arg) { return strong_arg * 3; }
__attribute__((noinline)) static int foo(int a, int b, int c) { return a * b - a - b; }
int a, b, c;
int main(void) { return mismatch(a) + foo(a, b, c); }
EOF
cat > in/verbose_weak.c << 'EOF'
__attribute__((weak, noinline)) long mismatch(long weak_arg) { return weak_arg + 1; }
long call_mismatch(long x) { return mismatch(x); }
EOF

# --btf_encode_detached=FILE alone is -J, with the raw BTF in FILE; the
# input is not touched; the features are pahole's without --btf_features
check_pahole_detached() {
	run 0 gcc -g -c "$IN/features.c" -o features.o
	cp features.o orig.o
	run 0 "$PAHOLE_DROPIN" --btf_encode_detached=out.btf features.o
	[ -s out.btf ] || die "no detached BTF written"
	same features.o orig.o "the input changed in detached mode"
	run 0 "$BTFCANON" encode --features var,decl_tag,type_tag,enum64 features.o -o expect.btf
	same out.btf expect.btf "detached BTF"
}
run_case "btfcanon-pahole: --btf_encode_detached alone" check_pahole_detached

# -J without --btf_encode_detached: the BTF goes into the input's .BTF
check_pahole_in_place() {
	run 0 gcc -g -c "$IN/features.c" -o features.o
	run 0 "$PAHOLE_DROPIN" -J --btf_features=default features.o
	run 0 objcopy --dump-section .BTF=section.btf features.o scratch.o
	run 0 "$BTFCANON" encode --features default features.o -o expect.btf
	same section.btf expect.btf ".BTF written by -J"
}
run_case "btfcanon-pahole: -J writes .BTF in place" check_pahole_in_place

# --btf_features=+enum64 (pahole >= 1.27): the default set plus enum64, so
# an ENUM64 with the 64-bit value and a FLOAT for double
check_pahole_plus() {
	run 0 gcc -g -c "$IN/features.c" -o features.o
	run 0 "$PAHOLE_DROPIN" --btf_features=+enum64 --btf_encode_detached=plus.btf features.o
	[ ! -s stderr ] || die "warnings for +enum64"
	run 0 "$BTFCANON" dump -f raw plus.btf
	stdout_has "ENUM64 'big' encoding=UNSIGNED size=8 vlen=2"
	stdout_has "'HUGE' val=8589934591"
	stdout_has "FLOAT 'double' size=8"
	run 0 "$BTFCANON" encode --features default features.o -o default.btf
	same plus.btf default.btf "+enum64 (enum64 is in the default set)"
	# '+' applies to the whole list: the default set and layout
	run 0 "$PAHOLE_DROPIN" --btf_features=+layout,reproducible_build \
		--btf_encode_detached=layout.btf features.o
	run 0 "$BTFCANON" encode --features default,layout features.o -o expect.btf
	same layout.btf expect.btf "+layout,reproducible_build"
	# without float: double is an INT of 8 bytes, as pahole writes it
	run 0 "$PAHOLE_DROPIN" --btf_features=enum64 --btf_encode_detached=nofloat.btf features.o
	run 0 "$BTFCANON" dump -f raw nofloat.btf
	stdout_has "INT 'double' size=8 bits_offset=0 nr_bits=64 encoding=(none)"
}
run_case "btfcanon-pahole: --btf_features=+X is the default set plus X" check_pahole_plus

# default, several lists adding up, and the order of pahole's options:
# the first list turns everything off, options after it still count
check_pahole_default() {
	run 0 gcc -g -c "$IN/features.c" -o features.o
	run 0 "$PAHOLE_DROPIN" --btf_features=default --btf_encode_detached=default.btf features.o
	run 0 "$BTFCANON" encode --features default features.o -o expect.btf
	same default.btf expect.btf "--btf_features=default"
	run 0 "$PAHOLE_DROPIN" --btf_features=var --btf_features=enum64,float \
		--btf_encode_detached=lists.btf features.o
	run 0 "$BTFCANON" encode --features var,enum64,float features.o -o expect.btf
	same lists.btf expect.btf "two lists"
	run 0 "$PAHOLE_DROPIN" --btf_gen_floats --btf_features=enum64 \
		--btf_encode_detached=before.btf features.o
	run 0 "$BTFCANON" encode --features enum64 features.o -o expect.btf
	same before.btf expect.btf "--btf_gen_floats before --btf_features"
	run 0 "$PAHOLE_DROPIN" --btf_features=enum64 --btf_gen_floats \
		--btf_encode_detached=after.btf features.o
	run 0 "$BTFCANON" encode --features enum64,float features.o -o expect.btf
	same after.btf expect.btf "--btf_gen_floats after --btf_features"
}
run_case "btfcanon-pahole: default, lists adding up, option order" check_pahole_default

# An unknown name is ignored; pahole says so on stderr with -V only
check_pahole_unknown() {
	run 0 gcc -g -c "$IN/features.c" -o features.o
	run 0 "$PAHOLE_DROPIN" --btf_features=enum64,no_such_feature \
		--btf_encode_detached=quiet.btf features.o
	[ ! -s stderr ] || die "a message without -V"
	run 0 "$PAHOLE_DROPIN" -V --btf_features=enum64,no_such_feature \
		--btf_encode_detached=verbose.btf features.o
	[ "$(cat stderr)" = "Ignoring unsupported feature 'no_such_feature'" ] ||
		die "stderr is not pahole's line"
	run 0 "$BTFCANON" encode --features enum64 features.o -o expect.btf
	same quiet.btf expect.btf "the known names of the list"
	same verbose.btf expect.btf "the known names of the list, -V"
}
run_case "btfcanon-pahole: unknown feature names ignored, said with -V" check_pahole_unknown

# --btf_features_strict: an unknown name is fatal (exit 1, as pahole),
# with pahole's message and the names it knows; nothing written
check_pahole_strict() {
	run 0 gcc -g -c "$IN/features.c" -o features.o
	run 1 "$PAHOLE_DROPIN" --btf_features_strict=+float,no_such_feature \
		--btf_encode_detached=strict.btf features.o
	stderr_has "Feature 'no_such_feature' in 'float,no_such_feature' is not supported.  Supported BTF features are:"
	stderr_has "encode_force,var,float,decl_tag,type_tag,enum64,optimized_func,consistent_func,decl_tag_kfuncs,reproducible_build,distilled_base,global_var,attributes,true_signature,layout"
	[ ! -e strict.btf ] || die "output written"
	run 0 "$PAHOLE_DROPIN" --btf_features_strict=default,layout \
		--btf_encode_detached=strict.btf features.o
}
run_case "btfcanon-pahole: --btf_features_strict" check_pahole_strict

check_pahole_supported() {
	run 0 "$PAHOLE_DROPIN" --supported_btf_features
	[ "$(cat stdout)" = "encode_force,var,float,decl_tag,type_tag,enum64,optimized_func,consistent_func,decl_tag_kfuncs,reproducible_build,distilled_base,global_var,attributes,true_signature,layout" ] ||
		die "not pahole 1.31's list: $(cat stdout)"
	run 0 "$PAHOLE_DROPIN" --version
	[ "$(cat stdout)" = v1.31 ] || die "--version: $(cat stdout)"
}
run_case "btfcanon-pahole: --supported_btf_features, --version" check_pahole_supported

# -j as pahole: none is one encoding thread, -jN is N, each a thread of
# the btfcanon-pahole process itself (the most seen while it runs, less
# the main thread); the bytes do not change
max_threads() {	# PID: the most threads seen while it runs (not a zombie)
	most=0
	while state=$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null) &&
	      [ "$state" != Z ]; do
		n=$(ls "/proc/$1/task" 2>/dev/null | wc -l)
		[ "$n" -le "$most" ] || most=$n
		sleep 0.05
	done
	echo "$most"
}
check_pahole_jobs() {
	[ -r "$PAHOLE_VMLINUX" ] || skip_case "$PAHOLE_VMLINUX not installed"
	"$PAHOLE_DROPIN" --btf_features=default --btf_encode_detached=j0.btf \
		"$PAHOLE_VMLINUX" 2>stderr &
	n=$(max_threads $!)
	wait $! || die "no -j: failed"
	[ "$n" -eq 2 ] || die "no -j: $((n - 1)) encoding threads, want 1"
	"$PAHOLE_DROPIN" -j3 --btf_features=default --btf_encode_detached=j3.btf \
		"$PAHOLE_VMLINUX" 2>stderr &
	n=$(max_threads $!)
	wait $! || die "-j3: failed"
	[ "$n" -eq 4 ] || die "-j3: $((n - 1)) encoding threads, want 3"
	same j0.btf j3.btf "no -j and -j3"
}
run_case "btfcanon-pahole: -j threads in its own process" check_pahole_jobs

# -V: pahole's lines on stdout, the first prototype mismatch before the
# reason; nothing on stderr
check_pahole_verbose() {
	run 0 gcc -g -O2 -o prog "$IN/verbose_strong.c" "$IN/verbose_weak.c"
	run 0 "$PAHOLE_DROPIN" -J --btf_features=default \
		--btf_encode_detached=prog.btf --verbose prog
	[ ! -s stderr ] || die "stderr is not empty"
	cat > expect << 'EOF'
foo : skipping BTF encoding of function due to optimized parameters
mismatch : skipping BTF encoding of function due to param type mismatch for param#1 strong_arg != weak_arg
mismatch : skipping BTF encoding of function due to inconsistet prototype
EOF
	same stdout expect "-V's lines"
	# without consistent_func the mismatch is said and the function kept
	run 0 "$PAHOLE_DROPIN" --btf_features=float -V --btf_encode_detached=kept.btf prog
	stdout_has "mismatch : skipping BTF encoding of function due to param type mismatch for param#1 strong_arg != weak_arg"
	run 0 "$BTFCANON" dump -f raw kept.btf
	stdout_has "FUNC 'mismatch'"
}
run_case "btfcanon-pahole: --verbose lines on stdout" check_pahole_verbose

# What it cannot honour is refused by name, exit 2, nothing written
check_pahole_unsupported() {
	run 0 gcc -g -c "$IN/features.c" -o features.o
	cp features.o orig.o
	run 2 "$PAHOLE_DROPIN" -J -C s features.o
	stderr_has "'-C'"
	run 2 "$PAHOLE_DROPIN" -J --sizes features.o
	stderr_has "'--sizes'"
	run 2 "$PAHOLE_DROPIN" -F btf --btf_encode_detached=x.btf features.o
	stderr_has "-F btf"
	run 2 "$PAHOLE_DROPIN" --kabi_prefix=x --btf_encode_detached=x.btf features.o
	stderr_has "'--kabi_prefix=x'"
	run 2 "$PAHOLE_DROPIN" features.o
	stderr_has "-J"
	[ ! -e x.btf ] || die "output written"
	same features.o orig.o "the input changed"
}
run_case "btfcanon-pahole: options it cannot honour exit 2" check_pahole_unsupported

# --lang, --lang_exclude, PAHOLE_LANG_EXCLUDE with pahole's names: when
# every unit is filtered out, nothing is written and the ELF stays as it
# was (exit 0, as pahole); an unknown name is fatal (exit 1, as pahole)
check_pahole_langs() {
	run 0 gcc -g -std=gnu11 -c "$IN/features.c" -o features.o
	cp features.o orig.o
	run 0 "$PAHOLE_DROPIN" --btf_encode_detached=all.btf features.o
	run 0 "$PAHOLE_DROPIN" --lang=C89,c11 --btf_encode_detached=c.btf features.o
	same c.btf all.btf "--lang=C89,c11"
	PAHOLE_LANG_EXCLUDE=rust run 0 "$PAHOLE_DROPIN" \
		--btf_encode_detached=rust.btf features.o
	same rust.btf all.btf "PAHOLE_LANG_EXCLUDE=rust"
	run 0 "$PAHOLE_DROPIN" --lang_exclude=rust,c11 --btf_encode_detached=none.btf features.o
	[ ! -e none.btf ] || die "--lang_exclude=rust,c11: a file written"
	PAHOLE_LANG_EXCLUDE=c11 run 0 "$PAHOLE_DROPIN" -J features.o
	same features.o orig.o "every unit filtered out: the ELF changed"
	run 0 "$PAHOLE_DROPIN" --lang=rust -J features.o
	same features.o orig.o "--lang=rust: the ELF changed"
	run 1 "$PAHOLE_DROPIN" --lang=c,klingon --btf_encode_detached=x.btf features.o
	stderr_has 'unknown language "klingon"'
	[ ! -e x.btf ] || die "unknown language: a file written"
}
run_case "btfcanon-pahole: --lang, --lang_exclude, PAHOLE_LANG_EXCLUDE" check_pahole_langs

# Real kernels: the diff lists every change the headers show, nothing more
# (tools/diff-vs-headers.py); the Debian debug images, where installed.
check_kernel_diff() {
	src=${BTFCANON_SRC:-$(dirname "$(dirname "$BTFCANON")")}
	old=/usr/lib/debug/boot/vmlinux-$1-cloud-amd64
	new=/usr/lib/debug/boot/vmlinux-$2-cloud-amd64
	[ -r "$old" ] && [ -r "$new" ] || skip_case "$old or $new not installed"
	run 0 "$src/tools/diff-vs-headers.py" --btfcanon "$BTFCANON" "$old" "$new"
	stdout_has "missed 0, spurious 0"
	run 1 "$BTFCANON" diff --stat "$old" "$new"
	stdout_has " changed, "
}
run_case "diff 6.12.115 -> 6.12.117 against the headers" \
	check_kernel_diff 6.12.115+deb12 6.12.117+deb12
run_case "diff 6.1.192 -> 6.12.117 against the headers" \
	check_kernel_diff 6.1.0-56 6.12.117+deb12

# Issue 13's promise, kept by issue 32: the git diff of dump -f c between
# two kernels changes no more lines than that of bpftool's header of the
# same BTF: Debian's bpftool, run here, and bpftool 7.8 (sorted headers),
# whose figures on these kernels are in BENCH.md ("Header stability": 28
# and 27,894 lines). And among the two u8 typedefs of 6.12 (the kernel's
# "typedef __u8 u8" and some drivers' "typedef unsigned char u8"), the
# plain name is the kernel's, the one most used (header/dump_c.c).
diff_lines() {
	git diff --no-index --numstat "$1" "$2" | awk '{ n += $1 + $2 } END { print n + 0 }'
}
check_header_diff_size() {
	command -v bpftool > /dev/null || skip_case "bpftool not installed"
	command -v git > /dev/null || skip_case "git not installed"
	for v in 6.1.0-56 6.12.115+deb12 6.12.117+deb12; do
		k=/usr/lib/debug/boot/vmlinux-$v-cloud-amd64
		[ -r "$k" ] || skip_case "$k not installed"
		run 0 "$BTFCANON" dump -f c "$k"
		mv stdout "bc-$v.h"
		bpftool btf dump file "$k" format c > "bt-$v.h" ||
			die "bpftool btf dump file $k failed"
	done
	grep -qx 'typedef __u8 u8;' bc-6.12.117+deb12.h ||
		die "6.12.117: the kernel's u8 is not plain: $(grep -n 'typedef __u8 u8' bc-6.12.117+deb12.h)"
	ours=$(grep -c 'u8___2' bc-6.12.117+deb12.h)
	theirs=$(grep -c 'u8___2' bt-6.12.117+deb12.h)
	[ "$ours" -le "$theirs" ] ||
		die "6.12.117: u8___2 $ours times, bpftool $theirs"
	for pair in "6.12.115+deb12 6.12.117+deb12 28" "6.1.0-56 6.12.117+deb12 27894"; do
		set -- $pair
		ours=$(diff_lines "bc-$1.h" "bc-$2.h")
		theirs=$(diff_lines "bt-$1.h" "bt-$2.h")
		echo "$1 -> $2: btfcanon $ours, Debian's bpftool $theirs, bpftool 7.8 $3"
		[ "$ours" -le "$theirs" ] && [ "$ours" -le "$3" ] ||
			die "$1 -> $2: git diff of dump -f c $ours lines, bpftool $theirs (7.8: $3)"
	done
}
run_case "dump -f c: git diff no larger than bpftool's (6.1.192, 6.12.115 -> 6.12.117)" \
	check_header_diff_size

# The kernel archive: create, add, list, extract, remove, log; ARCHIVE:NAME
# as the input of sort, dump and diff gives what the files give.
check_archive() {
	run 0 "$BTFCANON" sort "$IN/good.btf" -o good.sorted
	run 0 "$BTFCANON" sort "$IN/tiny.o" -o tiny.sorted
	run 0 "$BTFCANON" archive create k.bca "$IN/good.btf" --name 6.1.0-1-amd64
	run 0 "$BTFCANON" archive add k.bca "$IN/tiny.o" --name 6.1.0-2-amd64
	run 0 "$BTFCANON" archive create k2.bca "$IN/tiny.o" "$IN/good.btf" \
		--name 6.1.0-2-amd64 --name 6.1.0-1-amd64
	same k.bca k2.bca "create in another order"
	run 0 "$BTFCANON" archive list k.bca
	stdout_has 6.1.0-1-amd64
	stdout_has 6.1.0-2-amd64
	run 0 "$BTFCANON" archive extract k.bca 6.1.0-1-amd64 -o x.btf
	same x.btf good.sorted "extract"
	run 0 "$BTFCANON" archive extract k.bca '*-2-*' -o y.btf
	same y.btf tiny.sorted "extract by glob"
	# over an existing file (names swapped, the old file removed)
	ln x.btf x.link
	run 0 "$BTFCANON" archive extract k.bca '*-2-*' -o x.btf
	same x.btf tiny.sorted "extract over a file"
	same x.link good.sorted "extract over a file: the old file's other name"
	[ -z "$(ls | grep tmp)" ] || die "extract over a file left $(ls | grep tmp)"
	mkdir d.btf
	run 1 "$BTFCANON" archive extract k.bca '*-2-*' -o d.btf
	[ -d d.btf ] && [ -z "$(ls | grep tmp)" ] || die "extract over a directory"
	run 0 "$BTFCANON" sort k.bca:6.1.0-1-amd64 -o s.btf
	same s.btf good.sorted "sort ARCHIVE:NAME"
	"$BTFCANON" dump -f c "$IN/good.btf" > want.h
	run 0 "$BTFCANON" dump -f c k.bca:6.1.0-1-amd64
	same stdout want.h "dump ARCHIVE:NAME"
	run 0 "$BTFCANON" dump -f c 'k.bca:*-1-amd*'
	same stdout want.h "dump ARCHIVE:GLOB"
	run 2 "$BTFCANON" dump -f c 'k.bca:6.1.0-*'
	stderr_has "names 2 kernels"
	"$BTFCANON" diff good.sorted tiny.sorted > want.diff || true
	run 1 "$BTFCANON" diff k.bca:6.1.0-1-amd64 k.bca:6.1.0-2-amd64
	sed 1,2d stdout > got.diff
	sed 1,2d want.diff > want2.diff
	same got.diff want2.diff "diff ARCHIVE:A ARCHIVE:B"
	run 0 "$BTFCANON" archive log k.bca 'struct pair'
	stdout_has "6.1.0-1-amd64"
	stdout_has "struct pair {"
	run 1 "$BTFCANON" archive extract k.bca 6.9-nope -o z.btf
	stderr_has "k.bca: no kernel '6.9-nope'"
	[ ! -e z.btf ] || die "extract of a missing kernel wrote z.btf"
	run 1 "$BTFCANON" archive add k.bca "$IN/good.btf" --name 6.1.0-1-amd64
	stderr_has "already holds a kernel '6.1.0-1-amd64'"
	run 0 "$BTFCANON" archive remove k.bca 6.1.0-2-amd64
	run 0 "$BTFCANON" archive create k3.bca "$IN/good.btf" --name 6.1.0-1-amd64
	same k.bca k3.bca "remove"
	run 2 "$BTFCANON" archive frobnicate k.bca
	cp k.bca bad.bca
	poke bad.bca 40 '\377'
	run 1 "$BTFCANON" archive list bad.bca
	stderr_has "bad.bca: damaged archive"
	run 2 "$BTFCANON" dump bad.bca:6.1.0-1-amd64
	stderr_has "bad.bca: damaged archive"
	no_temps .
}
run_case "archive: create, add, list, extract, remove, log, ARCHIVE:NAME" check_archive

# BTFHub's files (X.btf.tar.xz) and one compressed stream of BTF (X.btf.xz,
# .gz, .zst) are kernel X; RPM releases sort in version order, each
# distribution's line together (archive/names.c), and log reads by line.
check_archive_btfhub() {
	cp "$IN/good.btf" 4.18.0-147.5.1.el8_1.x86_64.btf
	tar -cJf 4.18.0-147.5.1.el8_1.x86_64.btf.tar.xz 4.18.0-147.5.1.el8_1.x86_64.btf
	xz -c "$IN/good.btf" > 4.18.0-80.el8.x86_64.btf.xz
	zstd -q -c "$IN/good.btf" > 4.18.0-193.el8_2.x86_64.btf.zst
	gzip -n -c "$IN/good.btf" > 4.19.90-2003.4.0.0036.oe1.x86_64.btf.gz
	run 0 "$BTFCANON" archive create k.bca 4.19.90-2003.4.0.0036.oe1.x86_64.btf.gz \
		4.18.0-193.el8_2.x86_64.btf.zst 4.18.0-147.5.1.el8_1.x86_64.btf.tar.xz \
		4.18.0-80.el8.x86_64.btf.xz
	run 0 "$BTFCANON" archive list k.bca
	printf '%s\n' 4.18.0-80.el8.x86_64 4.18.0-147.5.1.el8_1.x86_64 \
		4.18.0-193.el8_2.x86_64 4.19.90-2003.4.0.0036.oe1.x86_64 > want
	same stdout want "names and order of BTFHub's files"
	run 0 "$BTFCANON" archive log k.bca 'struct pair'
	stdout_has "el x86_64:"
	stdout_has "4.18.0-80.el8.x86_64 .. 4.18.0-193.el8_2.x86_64 (3 kernels)"
	stdout_has "oe x86_64:"
	no_temps .
}
run_case "archive: BTFHub's file names, RPM releases in version order" check_archive_btfhub

# An archive of one kernel is smaller stored as its sorted bytes (format
# 4's bytes form); every command still reads that kernel: log through a
# view of it (turned into records in memory), extract byte for byte.
check_archive_bytes_form() {
	[ -r "$VMLINUX" ] || skip_case "$VMLINUX absent"
	run 0 "$BTFCANON" archive create k.bca "$VMLINUX" --name 6.18.0-1-amd64
	run 0 "$BTFCANON" archive list k.bca
	stdout_has "6.18.0-1-amd64 (stored as bytes)"
	run 0 "$BTFCANON" archive log k.bca 'struct task_struct.pid'
	stdout_has "pid_t pid;"
	grep -q unreadable stdout && die "log of a kernel stored as bytes: unreadable"
	run 0 "$BTFCANON" archive extract k.bca 6.18.0-1-amd64 -o k.btf
	run 0 "$BTFCANON" sort "$VMLINUX" -o sorted.btf
	same k.btf sorted.btf "a kernel stored as bytes, extracted"
	no_temps .
}
run_case "archive: a kernel stored as bytes is read by log and extract" \
	check_archive_bytes_form

# The running kernel's BTF given as /sys/kernel/btf (the directory) or a
# file in it is named by uname -r, as the header names it: "btf" and
# "vmlinux" tell no version to order by.
check_archive_running_name() {
	[ -r /sys/kernel/btf/vmlinux ] || skip_case "/sys/kernel/btf/vmlinux absent"
	release=$(uname -r)
	run 0 "$BTFCANON" archive create d.bca /sys/kernel/btf
	run 0 "$BTFCANON" archive list d.bca
	stdout_has "$release"
	run 0 "$BTFCANON" archive create f.bca /sys/kernel/btf/vmlinux
	run 0 "$BTFCANON" archive list f.bca
	stdout_has "$release"
}
run_case "archive: /sys/kernel/btf is named by uname -r" \
	check_archive_running_name

# An archive is never larger than one solid `tar | xz -9e` of the same
# BTF files (issue 27), whatever the set: none, one tiny kernel, one or
# two of a module's size, several that share much or little. The files
# are copied under their own names, so tar's headers carry no long paths.
check_archive_no_larger() {
	src=${BTFCANON_SRC:-$(dirname "$(dirname "$BTFCANON")")}
	cp "$src/tests/data/dummy.btf" "$src/tests/data/dummy.layout.btf" \
		"$src"/tests/data/header/*.btf .
	# no_larger NAME FILES...: the archive of FILES against tar | xz -9e
	no_larger() {
		name=$1
		shift
		rm -f k.bca
		run 0 "$BTFCANON" archive create k.bca "$@"
		if [ $# -eq 0 ]; then
			tar cf - -T /dev/null | xz -9e -T1 > k.tar.xz
		else
			tar cf - "$@" | xz -9e -T1 > k.tar.xz
		fi
		a=$(wc -c < k.bca)
		x=$(wc -c < k.tar.xz)
		[ "$a" -le "$x" ] ||
			echo "$name: archive $a bytes, tar | xz -9e $x bytes" >> losses
	}
	no_larger "no kernel"
	no_larger "dummy.btf" dummy.btf
	no_larger "dummy.layout.btf" dummy.layout.btf
	no_larger "dummy.btf and dummy.layout.btf" dummy.btf dummy.layout.btf
	for f in 6.1.0-56-amd64.btf 6.1.0-56-arm64.btf 6.12.117+deb12-arm64.btf \
		6.18.44-fc-v669.btf; do
		no_larger "$f" "$f"
	done
	no_larger "the four of header/" 6.1.0-56-amd64.btf 6.1.0-56-arm64.btf \
		6.12.117+deb12-arm64.btf 6.18.44-fc-v669.btf
	no_larger "dummy.btf and two of header/" dummy.btf 6.1.0-56-amd64.btf \
		6.18.44-fc-v669.btf
	no_larger "all six" dummy.btf dummy.layout.btf 6.1.0-56-amd64.btf \
		6.1.0-56-arm64.btf 6.12.117+deb12-arm64.btf 6.18.44-fc-v669.btf
	# kernels with their modules (issue 33): a directory of BTF (vmlinux
	# and its modules' split BTF, encoded over it) against tar | xz -9e
	# of the same files
	no_larger_dir() {
		name=$1
		shift
		rm -f k.bca
		run 0 "$BTFCANON" archive create k.bca "$@"
		for d in "$@"; do ls "$d"/*; done > files
		tar cf - -T files | xz -9e -T1 > k.tar.xz
		a=$(wc -c < k.bca)
		x=$(wc -c < k.tar.xz)
		[ "$a" -le "$x" ] ||
			echo "$name: archive $a bytes, tar | xz -9e $x bytes" >> losses
	}
	fix=$src/tests/fixtures
	gcc -g -O2 -r -nostdlib -w -o kern_a.o "$fix/deps/kern_a.c"
	gcc -g -O2 -r -nostdlib -w -o kern_b.o "$fix/deps/kern_b.c"
	mkdir a b
	run 0 "$BTFCANON" encode kern_a.o -o a/vmlinux
	run 0 "$BTFCANON" encode kern_b.o -o b/vmlinux
	for m in deps/mod_a deps/mod_b arrays enums bitfields qualifiers \
		func_types anon_members; do
		gcc -g -O2 -c -w -o m.o "$fix/$m.c"
		for k in a b; do
			run 0 "$BTFCANON" encode --btf_base $k/vmlinux m.o \
				-o "$k/${m#deps/}.btf"
		done
	done
	mkdir a2 a1
	cp a/vmlinux a/mod_a.btf a/mod_b.btf a2/
	cp a/vmlinux a/arrays.btf a1/
	no_larger_dir "a kernel and one module" a1
	no_larger_dir "a kernel and two modules" a2
	no_larger_dir "a kernel and eight modules" a
	no_larger_dir "two kernels and their eight modules each" a b
	[ ! -e losses ] || die "larger than tar | xz -9e:" "$(cat losses)"
	rm -f kern_a.o kern_b.o m.o files
	no_temps .
}
run_case "archive: never larger than tar | xz -9e of its files" \
	check_archive_no_larger

# Kernels with their modules (issue 33): a directory of BTF (vmlinux and
# its modules' split BTF) goes in with its modules, a damaged module named
# and left out; list counts them; NAME/MODULE extracts what sort --base
# writes; --merged is one BTF with the modules' types; add of the
# directory to the kernel stored without modules adds them.
check_archive_modules() {
	src=${BTFCANON_SRC:-$(dirname "$(dirname "$BTFCANON")")}
	fix=$src/tests/fixtures
	gcc -g -O2 -r -nostdlib -w -o kern_a.o "$fix/deps/kern_a.c"
	mkdir k
	run 0 "$BTFCANON" encode kern_a.o -o k/vmlinux
	for m in mod_a mod_b; do
		gcc -g -O2 -c -w -o m.o "$fix/deps/$m.c"
		run 0 "$BTFCANON" encode --btf_base k/vmlinux m.o -o k/$m.btf
	done
	head -c 40 k/mod_a.btf > k/broken.btf
	run 0 "$BTFCANON" archive create k.bca k --name 9.9.9-test
	stderr_has "broken.btf"
	stderr_has "module broken left out"
	run 0 "$BTFCANON" archive list k.bca
	stdout_has "9.9.9-test (2 modules)"
	run 0 "$BTFCANON" archive extract k.bca 9.9.9-test -o v.btf
	run 0 "$BTFCANON" archive extract k.bca 9.9.9-test/mod_a -o a.btf
	run 0 "$BTFCANON" sort --base v.btf k/mod_a.btf -o want.btf
	same a.btf want.btf "a module extracted"
	run 1 "$BTFCANON" archive extract k.bca 9.9.9-test/nosuch -o n.btf
	stderr_has "kernel '9.9.9-test' has no module 'nosuch'"
	[ ! -e n.btf ] || die "an output for a module that is not there"
	run 0 "$BTFCANON" archive extract --merged k.bca 9.9.9-test -o all.btf
	run 0 "$BTFCANON" dump -f c all.btf
	stdout_has "struct dep_modstat {"
	run 0 "$BTFCANON" archive extract --merged k.bca 9.9.9-test mod_b -o b.btf
	run 0 "$BTFCANON" dump -f c b.btf
	grep -q "struct dep_modstat {" stdout && die "--merged mod_b has mod_a's type"
	# the kernel alone, then its modules added to it
	rm k/broken.btf
	run 0 "$BTFCANON" archive create two.bca k/vmlinux --name 9.9.9-test
	run 0 "$BTFCANON" archive add two.bca k --name 9.9.9-test
	run 0 "$BTFCANON" archive list two.bca
	stdout_has "9.9.9-test (2 modules)"
	run 1 "$BTFCANON" archive add two.bca k --name 9.9.9-test
	stderr_has "already holds a kernel '9.9.9-test'"
	rm -f kern_a.o m.o
	no_temps .
}
run_case "archive: kernels with their modules" check_archive_modules

# The readers of an archive see its kernels' modules (issue 33): deps,
# min and header --module over a kernel stored with its modules answer
# what they answer over the directory it was made from (same JSON, same
# bytes); a kernel stored without modules keeps its note; archive log
# finds a type vmlinux lacks in a module and names it.
check_archive_module_readers() {
	src=${BTFCANON_SRC:-$(dirname "$(dirname "$BTFCANON")")}
	fix=$src/tests/fixtures/deps
	gcc -g -O2 -r -nostdlib -w -o kern_a.o "$fix/kern_a.c"
	gcc -g -O2 -r -nostdlib -w -o kern_b.o "$fix/kern_b.c" "$fix/kern_b2.c"
	mkdir k
	run 0 "$BTFCANON" encode kern_a.o -o k/vmlinux
	run 0 "$BTFCANON" encode kern_b.o -o b.btf
	for m in mod_a mod_b; do
		gcc -g -O2 -c -w -o m.o "$fix/$m.c"
		run 0 "$BTFCANON" encode --btf_base k/vmlinux m.o -o k/$m
	done
	for o in mod kmod; do
		clang -target bpf -O2 -g -c -o $o.bpf.o "$fix/$o.bpf.c" ||
			die "clang -target bpf cannot build $o.bpf.c"
	done
	run 0 "$BTFCANON" archive create k.bca k --name 9.9.9-amd64 \
		b.btf --name 9.9.8-amd64
	# deps: the module rows as from the directory, keyed by name
	run 1 "$BTFCANON" deps --json mod.bpf.o kmod.bpf.o \
		--kernel 9.9.8-amd64=b.btf --kernel 9.9.9-amd64=k
	sed -e 's|no modules were given with the kernel|NOMODS|g' stdout > dir.json
	run 1 "$BTFCANON" deps --json mod.bpf.o kmod.bpf.o --kernel k.bca
	sed -e 's|k.bca:||g' -e 's|the archive holds no modules|NOMODS|g' \
		stdout > ar.json
	same dir.json ar.json "deps over the archive and over the directory"
	grep -q '"detail":"in module mod_a"' ar.json ||
		die "deps over the archive found nothing in module mod_a"
	run 1 "$BTFCANON" deps mod.bpf.o --kernel 'k.bca:9.9.8*'
	stdout_has "the archive holds no modules"
	# min: the same bytes, module types in
	run 0 "$BTFCANON" min mod.bpf.o kmod.bpf.o --kernel 9.9.9-amd64=k -o dmin
	run 0 "$BTFCANON" min mod.bpf.o kmod.bpf.o --kernel 'k.bca:9.9.9*' -o amin
	same dmin/9.9.9-amd64.btf amin/9.9.9-amd64.btf "min over the archive"
	run 0 "$BTFCANON" dump -f c amin/9.9.9-amd64.btf
	stdout_has "struct dep_modstat {"
	# header --module: the same header, the module's types in it
	run 0 "$BTFCANON" header --kernel 9.9.9-amd64=k --kernel 9.9.8-amd64=b.btf \
		--module 'mod_*' -o dir.h
	run 0 "$BTFCANON" header --kernel k.bca --module 'mod_*' -o ar.h
	same dir.h ar.h "header --module over the archive"
	grep -q "struct dep_modstat {" ar.h || die "no module type in the header"
	stderr_has "k.bca:9.9.8-amd64: stored without modules"
	run 0 "$BTFCANON" header --kernel 'k.bca:9.9.9*' --module mod_b -o b.h
	run 0 "$BTFCANON" header --kernel 9.9.9-amd64=k --module mod_b -o bd.h
	same bd.h b.h "header --module mod_b over the archive"
	# dump -f c --module of an archive's kernel: the directory's text
	run 0 "$BTFCANON" dump -f c --module mod_a 'k.bca:9.9.9*'
	mv stdout ar.c
	run 0 "$BTFCANON" dump -f c --module mod_a k
	same stdout ar.c "dump -f c --module of the archive's kernel"
	run 2 "$BTFCANON" dump -f c --module mod_a 'k.bca:9.9.8*'
	stderr_has "an archive's kernel stored without them"
	# archive log: a type vmlinux lacks, found in the module, named
	run 0 "$BTFCANON" archive log k.bca 'struct dep_modstat.hits'
	stdout_has "9.9.8-amd64: absent"
	stdout_has "9.9.9-amd64: appears"
	stdout_has "in module mod_a:"
	run 0 "$BTFCANON" archive log k.bca 'struct dep_modamb'
	stdout_has "in module mod_a (also in mod_b):"
	rm -f kern_a.o kern_b.o m.o
	no_temps .
}
run_case "archive: deps, min, header and log read its modules" \
	check_archive_module_readers

# Writers take turns (issue 27): a lock held by flock(1) makes add and
# remove wait --wait seconds, then exit 2 changing nothing; readers do not
# wait; an add may read its own archive (ARCHIVE:NAME) under its lock;
# deps --save over the file waits for the lock.
# The concurrent and killed writers: the archive suite (writers, lockkill).
check_archive_lock() {
	command -v flock > /dev/null || die "flock not found (util-linux)"
	run 0 "$BTFCANON" archive create k.bca "$IN/good.btf" --name 6.1.0-1-amd64
	cp k.bca before.bca
	flock -o k.bca sleep 3 &	# -o: flock itself holds it, not sleep
	holder=$!
	sleep 0.3
	run 2 "$BTFCANON" archive add k.bca "$IN/tiny.o" --name 6.1.0-2-amd64 \
		--wait 0.5
	stderr_has "k.bca: locked by another writer for 0.5 s; nothing changed"
	run 2 "$BTFCANON" archive remove k.bca 6.1.0-1-amd64 --wait 0
	stderr_has "k.bca: locked by another writer for 0 s; nothing changed"
	same k.bca before.bca "a writer that timed out"
	run 0 "$BTFCANON" archive list k.bca
	stdout_has 6.1.0-1-amd64
	kill "$holder"
	wait "$holder" || true
	run 2 "$BTFCANON" archive add k.bca "$IN/tiny.o" --wait soon
	stderr_has "--wait 'soon'"
	run 0 "$BTFCANON" archive add k.bca k.bca:6.1.0-1-amd64 \
		--name 6.1.0-3-amd64 --wait 0
	run 0 "$BTFCANON" archive list k.bca
	stdout_has 6.1.0-3-amd64
	# deps --save over an existing file takes its turn too
	flock -o k.bca sleep 0.8 &
	holder=$!
	sleep 0.2
	t0=$(date +%s%N)
	run 0 "$BTFCANON" deps --kernel "$IN/tiny.o" --save k.bca
	waited=$((($(date +%s%N) - t0) / 1000000))
	wait "$holder"
	[ "$waited" -ge 400 ] ||
		die "deps --save over a locked file took $waited ms: it did not wait"
	run 0 "$BTFCANON" sort k.bca -o saved.btf
	no_temps .
}
run_case "archive: writers take turns (flock(1) holds the lock)" \
	check_archive_lock

# A saved kernel file (deps --save) is an archive of one kernel: an input
# of sort and dump like its kernel's BTF; an archive of several is not.
check_saved_kernel_input() {
	run 0 "$BTFCANON" deps --kernel "$IN/tiny.o" --save t.saved
	run 0 "$BTFCANON" sort "$IN/tiny.o" -o want.btf
	run 0 "$BTFCANON" sort t.saved -o got.btf
	same got.btf want.btf "sort of a saved kernel file"
	"$BTFCANON" dump -f c "$IN/tiny.o" > want.h
	run 0 "$BTFCANON" dump -f c t.saved
	same stdout want.h "dump of a saved kernel file"
	run 0 "$BTFCANON" archive create two.bca "$IN/good.btf" "$IN/tiny.o" \
		--name 6.1.0-1-amd64 --name 6.1.0-2-amd64
	run 2 "$BTFCANON" dump two.bca
	stderr_has "names 2 kernels"
	# one kernel of an archive saves as ARCHIVE:NAME, under its name;
	# the whole archive of two is refused, nothing written
	run 0 "$BTFCANON" deps --kernel two.bca:6.1.0-2-amd64 --save two2.saved
	run 0 "$BTFCANON" archive list two2.saved
	stdout_has "6.1.0-2-amd64"
	run 0 "$BTFCANON" sort two2.saved -o got2.btf
	same got2.btf want.btf "sort of a kernel saved from ARCHIVE:NAME"
	run 2 "$BTFCANON" deps --kernel two.bca --save all.saved
	stderr_has "is 2 kernels"
	[ ! -e all.saved ] || die "deps --save of two kernels wrote a file"
}
run_case "a saved kernel file as an input of sort and dump" check_saved_kernel_input

# libarchive is dlopen()ed at the first package read (archive/libarchive.c),
# not linked: neither binary loads it, nor its chain (libxml2, ICU), at
# start; a .deb still reads, its kernel's name taken from its member.
check_package_dlopen() {
	command -v dpkg-deb > /dev/null || die "dpkg-deb not found (dpkg)"
	for bin in "$BTFCANON" "$(dirname "$BTFCANON")/btfcanon-pahole"; do
		run 0 ldd "$bin"
		! grep -E 'libarchive|libxml2|libicu' stdout ||
			die "$bin loads libarchive's libraries at start"
	done
	mkdir -p pkg/DEBIAN pkg/boot
	printf 'Package: linux-image-9.9.9-test\nVersion: 1\nArchitecture: all\nMaintainer: t <t@invalid>\nDescription: t\n' \
		> pkg/DEBIAN/control
	gzip -n -c "$IN/good.btf" > pkg/boot/vmlinuz-9.9.9-test
	run 0 dpkg-deb -Zxz --root-owner-group -b pkg k.deb
	run 0 "$BTFCANON" sort k.deb -o got.btf
	same got.btf "$IN/good.btf" "sort of the .deb's kernel"
	run 0 "$BTFCANON" archive create k.bca k.deb
	run 0 "$BTFCANON" archive list k.bca
	stdout_has 9.9.9-test
}
run_case "packages: libarchive loaded when a .deb is read, not at start" \
	check_package_dlopen

# tools/paired-bench.sh, which BENCH.md's commands use: medians of each
# command and the median ratio of the pairs, the ratio on the right side
check_paired_bench() {
	src=${BTFCANON_SRC:-$(dirname "$(dirname "$BTFCANON")")}
	[ -x /usr/bin/time ] || skip_case "no GNU time"
	run 0 "$src/tools/paired-bench.sh" -n 3 -w 0 -a 'sleep 0.2' -b 'sleep 0.4'
	stdout_has "3 runs each"
	grep -q '^A: wall 0\.2' stdout || die "A's median wall is not 0.2 s"
	grep -q '^B: wall 0\.4' stdout || die "B's median wall is not 0.4 s"
	# 0.45-0.55: a run held up by 10 ms on a busy machine (make check
	# runs the parts side by side) moves a ratio of 0.5 to 0.49 or 0.51
	grep -Eq 'median of the pairs: wall 0\.(4[5-9]|5[0-5])x' stdout ||
		die "the ratio of the pairs is not 0.5 (0.45-0.55): $(grep pairs stdout)"
	run 0 "$src/tools/paired-bench.sh" -n 1 -w 0 -a 'exit 3'
	stdout_has "[1 runs exited non-zero]"
	run 2 "$src/tools/paired-bench.sh" -n 1
}
run_case "tools/paired-bench.sh: medians and the ratio of the pairs" \
	check_paired_bench

echo "cli: $nr_cases cases, $nr_failed failed, $nr_skipped skipped"
[ "$nr_failed" -eq 0 ]
