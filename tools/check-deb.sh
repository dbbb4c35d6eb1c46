#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The Debian package (debian/), as a user gets it: builds it with
# `dpkg-buildpackage -us -uc -b` (the .deb lands beside the checkout, in
# ..), runs lintian on it (any error fails), installs it and runs the
# installed /usr/bin/btfcanon and /usr/bin/btfcanon-pahole, checks that it
# ships both man pages, leaves pahole alone (no diversion, Replaces,
# Conflicts or Provides, no /usr/bin/pahole) and that Build-Depends names
# the -dev package of every library the binaries link and Depends the
# package of every library they dlopen, then removes it
# again unless it was installed before. Run from anywhere, as root or with sudo; the
# build leaves nothing in the tree (--post-clean). .ci/run runs it.
set -eu
cd "$(dirname "$0")/.."

fail() {
	echo "check-deb: FAIL: $*" >&2
	exit 1
}

SUDO=
if [ "$(id -u)" -ne 0 ]; then
	SUDO=sudo
fi

VERSION=$(sed -n 's/^VERSION *:= *//p' Makefile)
CHANGELOG_VERSION=$(dpkg-parsechangelog -S Version)
[ "$VERSION" = "$CHANGELOG_VERSION" ] ||
	fail "Makefile VERSION is $VERSION, debian/changelog's is $CHANGELOG_VERSION: add a changelog entry (dch -v $VERSION)"

ARCH=$(dpkg --print-architecture)
DEB=../btfcanon_${VERSION}_${ARCH}.deb
CHANGES=../btfcanon_${VERSION}_${ARCH}.changes
rm -f "$DEB" "$CHANGES"

dpkg-buildpackage -us -uc -b --post-clean
[ -f "$DEB" ] || fail "dpkg-buildpackage made no $DEB"

# Errors fail; warnings are printed for whoever reads the log.
lintian --fail-on error --info "$CHANGES" || fail "lintian reports errors"

for field in Replaces Conflicts Breaks Provides; do
	[ -z "$(dpkg-deb -f "$DEB" "$field")" ] ||
		fail "$DEB has $field: it must never take pahole's place"
done
if dpkg-deb --ctrl-tarfile "$DEB" | tar -xOf - 2>/dev/null | grep -q dpkg-divert; then
	fail "$DEB's maintainer scripts divert a file"
fi

# Every library the binaries link against has its -dev package in
# Build-Depends (a library added to the Makefile must be added there too):
# the package owning the .so the linker took for each DT_NEEDED.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dpkg-deb -x "$DEB" "$tmp/root"
build_depends=$(sed -n '/^Build-Depends:/,/^[A-Z][A-Za-z-]*:/p' debian/control |
	sed '$d' | sed 's/^Build-Depends://; s/[,|]/ /g; s/([^)]*)//g; s/<[^>]*>//g')
for bin in "$tmp"/root/usr/bin/*; do
	for so in $(readelf -d "$bin" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'); do
		dev_so=$(realpath -s "$(cc -print-file-name="${so%%.so*}.so")")
		dev=$(dpkg -S "$dev_so" 2> /dev/null | cut -d: -f1)
		[ -n "$dev" ] || fail "${bin##*/} needs $so; no package owns $dev_so"
		[ "$dev" = libc6-dev ] && continue
		echo " $build_depends " | tr -s ' \n' '  ' | grep -q " $dev " ||
			fail "${bin##*/} links $so: add $dev to debian/control's Build-Depends"
	done
done

# A library the binaries dlopen() (archive/libarchive.c: libarchive.so.13)
# is no DT_NEEDED, so dpkg-shlibdeps cannot add it: its package must be in
# debian/control's Depends by hand.
depends=$(dpkg-deb -f "$DEB" Depends | sed 's/([^)]*)//g; s/,/ /g')
for bin in "$tmp"/root/usr/bin/*; do
	needed=$(readelf -d "$bin")
	for so in $(strings "$bin" | grep -E '^lib[A-Za-z0-9_+-]+[.]so[.][0-9]+$' | sort -u); do
		echo "$needed" | grep -qF "[$so]" && continue
		pkg=$(dpkg -S "*/$so" 2> /dev/null | head -n 1 | cut -d: -f1)
		[ -n "$pkg" ] || fail "${bin##*/} dlopens $so; no package owns it"
		echo " $depends " | tr -s ' \n' '  ' | grep -q " $pkg " ||
			fail "${bin##*/} dlopens $so: add $pkg to debian/control's Depends"
	done
done

was_installed=$(dpkg-query -W -f '${Status}' btfcanon 2>/dev/null || true)
cleanup() {
	case "$was_installed" in
	*" installed") ;;
	*) $SUDO apt-get remove -y btfcanon > /dev/null ;;
	esac
}
trap 'rm -rf "$tmp"; cleanup' EXIT
$SUDO apt-get -o DPkg::Lock::Timeout=900 install -y --reinstall "./$DEB"

out=$(/usr/bin/btfcanon --version) || fail "installed btfcanon --version exits $?"
[ "$out" = "btfcanon $VERSION" ] ||
	fail "installed btfcanon --version says '$out', not 'btfcanon $VERSION'"
out=$(/usr/bin/btfcanon-pahole --version) ||
	fail "installed btfcanon-pahole --version exits $?"
case "$out" in
v1.[0-9]*) ;;
*) fail "installed btfcanon-pahole --version says '$out', not a pahole version" ;;
esac

files=$(dpkg -L btfcanon)
for f in /usr/bin/btfcanon /usr/bin/btfcanon-pahole \
	/usr/share/man/man1/btfcanon.1.gz \
	/usr/share/man/man1/btfcanon-pahole.1.gz; do
	echo "$files" | grep -qx "$f" || fail "dpkg -L btfcanon has no $f"
done
echo "$files" | grep -q '/pahole$' && fail "the package ships a file named pahole"
# the man page link resolves and the page is readable troff
zcat /usr/share/man/man1/btfcanon-pahole.1.gz | grep -q '^\.TH BTFCANON 1' ||
	fail "btfcanon-pahole.1.gz is not the btfcanon(1) page"

# the installed btfcanon-pahole encodes, and the installed btfcanon reads it
printf 'struct s { int a; long b; };\nstruct s v;\n' > "$tmp/t.c"
cc -g -c "$tmp/t.c" -o "$tmp/t.o"
/usr/bin/btfcanon-pahole -J "$tmp/t.o" || fail "installed btfcanon-pahole -J exits $?"
readelf -S "$tmp/t.o" | grep -q ' \.BTF ' || fail "installed btfcanon-pahole -J added no .BTF"
/usr/bin/btfcanon dump -f raw "$tmp/t.o" | grep -q "STRUCT 's'" ||
	fail "installed btfcanon dump does not show struct s"

echo "check-deb: ok: $DEB built, lintian clean of errors, installed binaries run"
