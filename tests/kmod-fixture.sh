#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A kernel with its modules in every form archive/kernel_set.h reads, for
# the kimage suite's modules case (tests/test_kimage.c):
#
#   kmod-fixture.sh BTFCANON FIXTURES OUT
#
#   OUT/a.btf, OUT/mod_a.btf, OUT/mod_b.btf   kernel A (tests/fixtures/deps/
#                              kern_a.c) and its modules' split BTF
#   OUT/root/                  an unpacked package: boot/vmlinuz-V (a.btf
#                              gzipped, a "whole file" image) and the tree
#                              lib/modules/V/ with mod-a.ko (plain, a '-' in
#                              its name), mod_b.ko.xz, mod_z.ko.zst (mod_a's
#                              BTF), mod_g.ko.gz (mod_b's), nobtf.ko (no .BTF
#                              section), bad.ko.xz (cut short) and
#                              badbtf.ko (its .BTF cut short)
#   OUT/k.deb                  root/ as a .deb (dpkg-deb, data.tar.xz)
#   OUT/k.rpm                  root/ as an .rpm (rpmbuild, zstd cpio payload)
#   OUT/btfdir/                vmlinux, mod_a, mod_b.btf: /sys/kernel/btf's
#                              layout
set -e
case $1 in /*) cli=$1 ;; *) cli=$PWD/$1 ;; esac
fix=$(cd "$2" && pwd)
out=$3
v=9.9.9-test
mkdir -p "$out/work"
cd "$out/work"
gcc -g -O2 -r -nostdlib -w -o kern_a.o "$fix/kern_a.c"
"$cli" encode kern_a.o -o ../a.btf
for m in mod_a mod_b; do
	gcc -g -O2 -c -w -o $m.o "$fix/$m.c"
	"$cli" encode --btf_base ../a.btf $m.o -o ../$m.btf
	# a .ko's .BTF: a section outside the loaded image (no SHF_ALLOC)
	objcopy --add-section .BTF=../$m.btf $m.o $m.ko
done
root=$out/root
tree=$root/lib/modules/$v
mkdir -p "$root/boot" "$root/DEBIAN" "$tree/kernel/fs" "$tree/kernel/net"
gzip -9n < ../a.btf > "$root/boot/vmlinuz-$v"
cp mod_a.ko "$tree/kernel/fs/mod-a.ko"
xz -c mod_b.ko > "$tree/kernel/net/mod_b.ko.xz"
zstd -q -c mod_a.ko > "$tree/kernel/fs/mod_z.ko.zst"
gzip -n -c mod_b.ko > "$tree/kernel/net/mod_g.ko.gz"
cp mod_a.o "$tree/kernel/nobtf.ko"
xz -c mod_a.ko | head -c 300 > "$tree/kernel/bad.ko.xz"
head -c 40 ../mod_a.btf > junk.btf
objcopy --add-section .BTF=junk.btf mod_a.o "$tree/kernel/badbtf.ko"
printf 'kernel/fs/mod-a.ko:\n' > "$tree/modules.dep"
cat > "$root/DEBIAN/control" <<CONTROL
Package: linux-image-$v
Version: 1
Architecture: all
Maintainer: btfcanon tests <tests@invalid>
Description: a kernel with modules, for btfcanon's tests
CONTROL
dpkg-deb --root-owner-group -Zxz --build "$root" "$out/k.deb" > /dev/null
rm -r "$root/DEBIAN"
# the same tree as an .rpm (cpio, zstd payload), as Fedora's kernel-core
mkdir -p rpm/SOURCES rpm/SPECS
cp -a "$root" rpm/SOURCES/root
cat > rpm/SPECS/k.spec <<SPEC
Name: kernel-core
Version: 9.9.9
Release: 1
Summary: a kernel with modules, for btfcanon's tests
License: GPL
BuildArch: noarch
%description
a kernel with modules, for btfcanon's tests
%install
mkdir -p %{buildroot}
cp -a %{_sourcedir}/root/. %{buildroot}/
%files
/boot
/lib
SPEC
rpmbuild --quiet --define "_topdir $(pwd)/rpm" --define "__os_install_post %{nil}" \
	--define "_binary_payload w9.zstdio" -bb rpm/SPECS/k.spec > rpmbuild.log 2>&1 ||
	{ tail -5 rpmbuild.log >&2; exit 1; }
mv rpm/RPMS/noarch/*.rpm "$out/k.rpm"
mkdir "$out/btfdir"
cp ../a.btf "$out/btfdir/vmlinux"
cp ../mod_a.btf "$out/btfdir/mod_a"
cp ../mod_b.btf "$out/btfdir/mod_b.btf"
cd "$out"
rm -r work
