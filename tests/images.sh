#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Kernel images and packages as inputs (archive/kimage.c, package.c,
# kernel_file.c, read through archive/btf_file.c), end to end through the
# command line:
#
# - fixtures made here for every form: a small vmlinux-like ELF whose .BTF
#   holds the encoder's BTF of seven of tests/fixtures/*.c, compressed with the
#   command-line tools the kernel's build uses (gzip, bzip2, lzma, xz --x86,
#   lzop, lz4 -l, zstd) with the build's appended size, in a minimal
#   bzImage; a raw arm64 Image (with a smaller decoy BTF before the
#   kernel's), the same gzip-compressed, and in EFI zboot images of every
#   compression; .deb packages (dpkg-deb, xz and zstd data.tar) and .rpm
#   packages (rpmbuild, /boot/vmlinuz-V and Fedora's lib/modules/V/vmlinuz).
#   Each must sort to the same bytes as the raw BTF;
# - truncated and corrupted copies: exit status 1, a message naming the
#   file and what is wrong, no output file;
# - Debian's own packages, one per compression Debian uses, where
#   tools/setup-debian.sh put them (BTFCANON_IMAGE_CACHE, default
#   /var/cache/btfcanon-tests): their BTF equals the debug vmlinux's of the
#   same kernel where that is installed, and the time to read each is shown.
#
#   BTFCANON=build/btfcanon tests/images.sh
#
# BTFCANON_KEEP_SEEDS=DIR keeps every well-formed fixture under 8 KB (packages 16 KB) in
# DIR/kimage/ and DIR/package/: the fuzz targets' seeds (FUZZING.md).
set -eu

PATH=$PATH:/usr/sbin:/sbin
export LC_ALL=C

: "${BTFCANON:?set BTFCANON to the btfcanon binary}"
case $BTFCANON in
/*) ;;
*) BTFCANON=$(pwd)/$BTFCANON ;;
esac
src=$(cd "$(dirname "$0")/.." && pwd)
fixture=$src/tests/kimage-fixture.py
IMAGE_CACHE=${BTFCANON_IMAGE_CACHE:-/var/cache/btfcanon-tests}

work=$(mktemp -d "${TMPDIR:-/tmp}/btfcanon-images.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
cd "$work"
mkdir in

nr_cases=0
nr_failed=0
nr_skipped=0

die() {
	echo "  $*"
	if [ -s stderr ]; then
		echo "  stderr of the last command:"
		sed 's/^/    | /' stderr | head -n 20
	fi
	exit 1
}

skip_case() {
	echo "$*" > skipped
	exit 0
}

# run WANT_STATUS COMMAND...
run() {
	want=$1
	shift
	status=0
	"$@" > stdout 2> stderr || status=$?
	[ "$status" -eq "$want" ] ||
		die "exit status $status, want $want: $*"
}

stderr_has() {
	grep -qF -- "$1" stderr || die "stderr does not mention '$1'"
}

run_case() {
	name=$1
	shift
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

# sorts_same FILE: `sort FILE` gives the bytes `sort` gives the raw BTF.
sorts_same() {
	run 0 "$BTFCANON" sort "$1" -o sorted.btf
	cmp -s sorted.btf "$work/in/want.btf" ||
		die "sort of $1 differs from sort of the raw BTF"
	keep_seed "$1"
}

keep_seed() {
	[ -n "${BTFCANON_KEEP_SEEDS:-}" ] || return 0
	case $1 in
	*.deb | *.rpm) kind=package limit=16384 ;;
	*) kind=kimage limit=8192 ;;
	esac
	[ "$(wc -c < "$1")" -le $limit ] || return 0
	mkdir -p "$BTFCANON_KEEP_SEEDS/$kind"
	cp "$1" "$BTFCANON_KEEP_SEEDS/$kind/$(basename "$1")"
}

# fails_cleanly FILE TEXT...: sort FILE exits 1 with a message naming FILE
# and each TEXT, and leaves no output file.
fails_cleanly() {
	f=$1
	shift
	run 1 "$BTFCANON" sort "$f" -o out.btf
	stderr_has "$f"
	for text in "$@"; do
		stderr_has "$text"
	done
	[ ! -e out.btf ] || die "an output file was left behind"
	for t in out.btf.tmp.*; do
		[ ! -e "$t" ] || die "a temporary file was left behind: $t"
	done
}

# compress COMP IN OUT: as the kernel's build does (scripts/Makefile.lib)
compress() {
	case $1 in
	gzip) gzip -n -9 -c "$2" > "$3" ;;
	bzip2) bzip2 -9 -c "$2" > "$3" ;;
	lzma) lzma -9 -c "$2" > "$3" ;;
	xz) xz --check=crc32 --x86 --lzma2=dict=1MiB -c "$2" > "$3" ;;
	lzo) lzop -9 -c "$2" > "$3" ;;
	lz4) lz4 -l -9 -c "$2" > "$3" ;;
	zstd) zstd -q -19 -c "$2" > "$3" ;;
	esac
}

# payload COMP IN OUT: compressed, with the size appended (not for gzip)
payload() {
	compress "$1" "$2" "$3.z"
	if [ "$1" = gzip ]; then
		mv "$3.z" "$3"
	else
		python3 "$fixture" size-append "$2" "$3.z" "$3"
	fi
}

# --- fixtures ---

for tool in gcc clang ld objcopy python3 gzip bzip2 lzma xz lzop lz4 zstd dpkg-deb; do
	command -v "$tool" > /dev/null || {
		echo "images: FAIL: $tool is not installed (tools/setup-debian.sh)"
		exit 1
	}
done

for f in anon_members arrays bitfields enums func_types qualifiers packed_aligned; do
	gcc -g -c -o "in/$f.o" "$src/tests/fixtures/$f.c"
done
ld -r -o in/fixture.o in/anon_members.o in/arrays.o in/bitfields.o in/enums.o \
	in/func_types.o in/qualifiers.o in/packed_aligned.o
"$BTFCANON" encode -o in/raw.btf in/fixture.o
"$BTFCANON" sort in/raw.btf -o in/want.btf
# vmlinux-like: an executable with the BTF in an allocated .BTF section,
# and bytes after the ELF as the relocations the build appends
printf 'void _start(void) { for (;;); }\n' > in/stub.c
gcc -O2 -nostdlib -static -o in/stub in/stub.c
objcopy --add-section .BTF=in/raw.btf --set-section-flags .BTF=alloc,readonly \
	in/stub in/vmlinux 2> /dev/null
head -c 3000 /dev/urandom > in/relocs
cat in/vmlinux in/relocs > in/vmlinux.bin.all
# the decoy must be the smaller blob: a small one of our own when not
if [ "$(wc -c < "$src/tests/data/dummy.btf")" -ge "$(wc -c < in/raw.btf)" ]; then
	printf 'struct tiny { int x; };\nstruct tiny t;\n' > in/tiny.c
	gcc -g -c -o in/tiny.o in/tiny.c
	"$BTFCANON" encode -o in/decoy.btf in/tiny.o
else
	cp "$src/tests/data/dummy.btf" in/decoy.btf
fi
python3 "$fixture" arm64 in/raw.btf in/decoy.btf in/Image

COMPS="gzip bzip2 lzma xz lzo lz4 zstd"

# --- every form gives the raw BTF ---

check_bzimage() {
	payload "$1" "$work/in/vmlinux.bin.all" payload
	python3 "$fixture" bzimage payload "vmlinuz-$1"
	sorts_same "vmlinuz-$1"
}
for comp in $COMPS; do
	run_case "bzImage, $comp payload" check_bzimage "$comp"
done

check_arm64() {
	sorts_same "$work/in/Image"
	gzip -n -9 -c "$work/in/Image" > Image.gz
	sorts_same Image.gz
}
run_case "arm64 Image, plain and Image.gz (the larger of two BTF blobs)" check_arm64

check_zboot() {
	payload "$1" "$work/in/Image" payload
	python3 "$fixture" zboot "$2" payload "vmlinuz.efi-$1"
	sorts_same "vmlinuz.efi-$1"
}
run_case "EFI zboot, gzip" check_zboot gzip gzip
run_case "EFI zboot, bzip2" check_zboot bzip2 bzip2
run_case "EFI zboot, lzma" check_zboot lzma lzma
run_case "EFI zboot, xzkern" check_zboot xz xzkern
run_case "EFI zboot, lzo" check_zboot lzo lzo
run_case "EFI zboot, lz4" check_zboot lz4 lz4
run_case "EFI zboot, zstd22" check_zboot zstd zstd22

check_other_commands() {
	payload xz "$work/in/vmlinux.bin.all" payload
	python3 "$fixture" bzimage payload vmlinuz-9.9.9-test
	run 0 "$BTFCANON" dump -f raw "$work/in/raw.btf"
	mv stdout want.txt
	run 0 "$BTFCANON" dump -f raw vmlinuz-9.9.9-test
	cmp -s stdout want.txt || die "dump of the image differs from the raw BTF's"
	run 0 "$BTFCANON" diff "$work/in/raw.btf" vmlinuz-9.9.9-test
	run 0 "$BTFCANON" diff vmlinuz-9.9.9-test "$work/in/Image"
}
run_case "dump and diff read images too" check_other_commands

# deps --kernel: the same verdicts and values against a kernel's bzImage
# as against its raw BTF (the deps fixtures' kernel A, tests/test_deps.c)
check_deps() {
	d=$src/tests/fixtures/deps
	gcc -g -c -o kern_a.o "$d/kern_a.c"
	"$BTFCANON" encode -o kern_a.btf kern_a.o
	clang -target bpf -O2 -g -I"$d" -c -o fix.bpf.o "$d/fix.bpf.c"
	ld -r -o kern.elf kern_a.o 2> /dev/null
	objcopy --add-section .BTF=kern_a.btf kern.elf vmlinux
	payload zstd vmlinux payload
	python3 "$fixture" bzimage payload vmlinuz-kern-a
	run 1 "$BTFCANON" deps --json fix.bpf.o --kernel kern_a.btf
	sed 's|kern_a\.btf|KERNEL|g' stdout > want.json
	run 1 "$BTFCANON" deps --json fix.bpf.o --kernel vmlinuz-kern-a
	sed 's|vmlinuz-kern-a|KERNEL|g' stdout > got.json
	grep -q '"status":"ok"' want.json || die "no relocation resolved against kernel A"
	cmp -s want.json got.json || die "deps against the bzImage differs from deps against its BTF"
}
run_case "deps --kernel reads a bzImage as it reads the BTF in it" check_deps

# BTFHub keeps one NAME.btf.tar.xz per kernel: an xz stream whose contents
# (a tar) hold the raw BTF whole, found as in a raw Image
check_btfhub() {
	cp "$work/in/raw.btf" 9.9.9-test.btf
	tar -cf - 9.9.9-test.btf | xz -9 > 9.9.9-test.btf.tar.xz
	sorts_same 9.9.9-test.btf.tar.xz
}
run_case "BTFHub's form: NAME.btf.tar.xz" check_btfhub

# deb ZTYPE KERNEL MEMBER OUT: a package holding KERNEL at MEMBER
deb() {
	mkdir -p "pkg/DEBIAN" "pkg/$(dirname "$3")"
	cat > pkg/DEBIAN/control << 'EOF'
Package: linux-image-9.9.9-test
Version: 9.9.9-1
Architecture: amd64
Maintainer: btfcanon tests <tests@invalid>
Description: test kernel
EOF
	printf 'CONFIG_X=y\n' > "pkg/$(dirname "$3")/config-9.9.9-test"
	cp "$2" "pkg/$3"
	dpkg-deb -Z"$1" --root-owner-group -b pkg "$4" > /dev/null
	rm -rf pkg
}

check_deb() {
	payload "$2" "$work/in/vmlinux.bin.all" payload
	python3 "$fixture" bzimage payload vmlinuz
	deb "$1" vmlinuz boot/vmlinuz-9.9.9-test linux-image-9.9.9-test_9.9.9-1_amd64.deb
	sorts_same linux-image-9.9.9-test_9.9.9-1_amd64.deb
}
run_case ".deb (xz data.tar) of a bzImage with an lz4 payload" check_deb xz lz4
run_case ".deb (zstd data.tar) of a bzImage with a zstd payload" check_deb zstd zstd
run_case ".deb (gzip data.tar) of a bzImage with a gzip payload" check_deb gzip gzip

check_deb_arm64() {
	deb xz "$work/in/Image" boot/vmlinuz-9.9.9-test-arm64 linux-image-9.9.9-test-arm64.deb
	sorts_same linux-image-9.9.9-test-arm64.deb
}
run_case ".deb of a plain arm64 Image" check_deb_arm64

# The largest blob rule through a package, on a 2 MB Image: a decoy whole
# long before the kernel's BTF (600 KB later), then 1.5 MB with no BTF;
# and the same with a larger blob at the end, which is then the one found.
# A reader that stopped at the first blob, or once the kernel's BTF is
# whole, fails one of the two.
check_deb_arm64_large() {
	python3 "$fixture" arm64 "$work/in/raw.btf" "$work/in/decoy.btf" Image \
		600000 1500000
	deb xz Image boot/vmlinuz-9.9.9-test-arm64 linux-image-9.9.9-test-arm64.deb
	sorts_same linux-image-9.9.9-test-arm64.deb
	[ "$(wc -c < "$src/tests/data/dummy.btf")" -gt "$(wc -c < "$work/in/raw.btf")" ] ||
		die "tests/data/dummy.btf is not larger than the fixture's BTF"
	python3 "$fixture" arm64 "$work/in/raw.btf" "$work/in/decoy.btf" Image-late \
		600000 1500000 "$src/tests/data/dummy.btf"
	deb xz Image-late boot/vmlinuz-9.9.9-test-arm64 late.deb
	run 0 "$BTFCANON" sort "$src/tests/data/dummy.btf" -o want-late.btf
	run 0 "$BTFCANON" sort late.deb -o late.btf
	cmp -s late.btf want-late.btf ||
		die "the package's Image gave another blob than the largest, which comes last"
}
run_case ".deb of a 2 MB plain arm64 Image (decoy before, larger blob after)" \
	check_deb_arm64_large

# rpm KERNEL PATH OUT: an .rpm holding KERNEL at /PATH
rpm_pkg() {
	mkdir -p rpm/SOURCES rpm/SPECS
	cp "$1" rpm/SOURCES/kernel
	cat > rpm/SPECS/k.spec << EOF
Name: kernel-test
Version: 9.9.9
Release: 1
Summary: test kernel
License: GPL-2.0-only
BuildArch: noarch
%description
test kernel
%install
mkdir -p %{buildroot}/$(dirname "$2")
cp %{_sourcedir}/kernel %{buildroot}/$2
%files
/$2
EOF
	rpmbuild --quiet --define "_topdir $(pwd)/rpm" --define "__os_install_post %{nil}" \
		--define "_binary_payload w9.xzdio" -bb rpm/SPECS/k.spec \
		> rpmbuild.log 2>&1 || die "rpmbuild failed: $(tail -5 rpmbuild.log)"
	mv rpm/RPMS/noarch/*.rpm "$3"
	rm -rf rpm
}

check_rpm() {
	command -v rpmbuild > /dev/null || die "rpmbuild is not installed (package rpm)"
	payload zstd "$work/in/vmlinux.bin.all" payload
	python3 "$fixture" bzimage payload vmlinuz
	rpm_pkg vmlinuz boot/vmlinuz-9.9.9-test kernel-9.9.9-1.x86_64.rpm
	sorts_same kernel-9.9.9-1.x86_64.rpm
	rpm_pkg vmlinuz lib/modules/9.9.9-test/vmlinuz kernel-core-9.9.9-1.x86_64.rpm
	sorts_same kernel-core-9.9.9-1.x86_64.rpm
}
run_case ".rpm, /boot/vmlinuz-V and /lib/modules/V/vmlinuz" check_rpm

# --- bad input: a clear message, exit status 1, no output ---

check_truncated() {
	payload "$1" "$work/in/vmlinux.bin.all" whole
	len=$(wc -c < whole)
	head -c $((len / 2)) whole > half
	python3 "$fixture" size-append "$work/in/vmlinux.bin.all" half payload
	python3 "$fixture" bzimage payload "vmlinuz-$1"
	fails_cleanly "vmlinuz-$1" "bzImage payload compressed with $1"
}
for comp in $COMPS; do
	run_case "bzImage, $comp payload cut in half" check_truncated "$comp"
done

# corrupted COMP: bytes flipped in the middle of the stream
check_corrupted() {
	payload "$1" "$work/in/vmlinux.bin.all" payload
	python3 "$fixture" bzimage payload "vmlinuz-$1"
	python3 -c '
import sys
p = sys.argv[1]
d = bytearray(open(p, "rb").read())
start = 1024 + 256 + 64
end = len(d) - 512 - 8
for i in range(start + (end - start) // 3, start + (end - start) // 3 + 16):
    d[i] ^= 0x5a
open(p, "wb").write(d)' "vmlinuz-$1"
	fails_cleanly "vmlinuz-$1"
}
for comp in $COMPS; do
	run_case "bzImage, $comp payload with flipped bytes" check_corrupted "$comp"
done

check_bad_headers() {
	payload xz "$work/in/vmlinux.bin.all" payload
	python3 "$fixture" bzimage payload vmlinuz
	len=$(wc -c < vmlinuz)
	head -c $((len - 2000)) vmlinuz > vmlinuz-short
	fails_cleanly vmlinuz-short "bzImage payload" "lies outside the file"
	python3 "$fixture" zboot brotli payload vmlinuz.efi
	fails_cleanly vmlinuz.efi "unknown compression"
	python3 "$fixture" zboot gzip payload vmlinuz.efi
	fails_cleanly vmlinuz.efi "does not start as gzip data"
	python3 "$fixture" arm64 /dev/null /dev/null Image-nobtf
	fails_cleanly Image-nobtf "no BTF in the arm64 Image"
	gzip -n -c "$work/in/stub" > stub.gz
	fails_cleanly stub.gz "has no .BTF section"
}
run_case "bad headers: payload past the end, unknown compression, no BTF" check_bad_headers

check_bad_packages() {
	deb xz "$work/in/fixture.o" usr/share/doc/x linux-image-nokernel.deb
	fails_cleanly linux-image-nokernel.deb "the package holds no kernel"
	payload xz "$work/in/vmlinux.bin.all" payload
	python3 "$fixture" bzimage payload vmlinuz
	deb xz vmlinuz boot/vmlinuz-9.9.9-test full.deb
	len=$(wc -c < full.deb)
	head -c $((len * 2 / 3)) full.deb > cut.deb
	fails_cleanly cut.deb "cannot read the package"
}
run_case "bad packages: no kernel in it, cut short" check_bad_packages

# --- Debian's own packages ---

now() { date +%s.%N; }

# real PACKAGE-PREFIX DEBUG-VMLINUX: the package's BTF against its own
# /boot/vmlinuz's and the debug vmlinux's (sorted all), with the times
check_real() {
	set -- "$IMAGE_CACHE"/"$1"_*.deb "$2"
	[ -r "$1" ] || skip_case "$1 absent: run tools/setup-debian.sh"
	t0=$(now)
	run 0 "$BTFCANON" sort --stats "$1" -o img.btf
	t1=$(now)
	grep 'read+validate' stderr | sed "s|^ *|  $(basename "$1"): |"
	echo "  $(basename "$1"): sort in all $(awk "BEGIN { print $t1 - $t0 }") s"
	[ -s img.btf ] || die "no BTF"
	# the package's /boot/vmlinuz-* on its own, as /boot holds it
	# (the first member of that name: tar stops there, not at the end of
	# a data.tar of 5,000 files, and dpkg-deb's broken pipe is expected)
	dpkg-deb --fsys-tarfile "$1" 2> /dev/null |
		tar -xOf - --occurrence=1 --wildcards './boot/vmlinuz-*' > vmlinuz
	t0=$(now)
	run 0 "$BTFCANON" sort vmlinuz -o vmlinuz.btf
	echo "  $(basename "$1"): its /boot/vmlinuz alone, sort in all $(awk "BEGIN { print $(now) - $t0 }") s"
	cmp -s img.btf vmlinuz.btf || die "its /boot/vmlinuz gives other bytes than the package"
	if [ -r "$2" ]; then
		run 0 "$BTFCANON" sort "$2" -o dbg.btf
		cmp -s img.btf dbg.btf || die "the BTF of $1 differs from $2's"
	fi
}
run_case "Debian 6.1.0-56 cloud-amd64 (lz4 bzImage)" check_real \
	linux-image-6.1.0-56-cloud-amd64 /usr/lib/debug/boot/vmlinux-6.1.0-56-cloud-amd64
run_case "Debian 6.1.0-56 amd64 (xz bzImage)" check_real \
	linux-image-6.1.0-56-amd64 /nonexistent
run_case "Debian 6.12.117 cloud-amd64 (zstd bzImage)" check_real \
	"linux-image-6.12.117+deb12-cloud-amd64" /usr/lib/debug/boot/vmlinux-6.12.117+deb12-cloud-amd64
run_case "Debian 6.1.0-56 cloud-arm64 (plain Image)" check_real \
	linux-image-6.1.0-56-cloud-arm64 /nonexistent

echo "images: $nr_cases cases, $nr_failed failed, $nr_skipped skipped"
[ "$nr_failed" -eq 0 ]
