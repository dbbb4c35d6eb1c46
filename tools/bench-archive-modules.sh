#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Kernels with their modules in the archive (issue 33 item 2): for the
# kernel packages given, what the archive costs against one solid
# `tar | xz -9e` and `tar | zstd --long -19` of the same files (each
# kernel's vmlinux BTF and every module's split BTF as the package holds
# them: build/btf-extract --modules), and how long it takes:
#
#   create     archive create of all packages, -j2
#   add        archive add of the last package to an archive of the others
#   extract    one module (MODULE of the first package's kernel), the
#              median of 5; the first kernel's vmlinux, the median of 3
#   merged     extract --merged of each kernel with all its modules
#
#   tools/bench-archive-modules.sh OUT MODULE PACKAGE...
#
# OUT (outside the repository) keeps the extracted files and archives.
# Prints one line per figure: bytes, or seconds of wall and of user CPU.
set -eu

OUT=${1:?usage: tools/bench-archive-modules.sh OUT MODULE PACKAGE...}
MODULE=${2:?module name}
shift 2
BC=${BTFCANON:-build/btfcanon}
EX=${BTF_EXTRACT:-build/btf-extract}
mkdir -p "$OUT"
: > "$OUT/files"
for p in "$@"; do
	d=$OUT/files-$(basename "$p" | sed 's/_.*//')
	[ -d "$d" ] || "$EX" --modules "$p" "$d"
	ls "$d"/* >> "$OUT/files"
done
echo "files: $(wc -l < "$OUT/files"), $(cat "$OUT/files" | xargs cat | wc -c) bytes"
tar cf - -T "$OUT/files" | xz -9e -T1 > "$OUT/files.tar.xz"
tar cf - -T "$OUT/files" | zstd --long -19 -T1 -q > "$OUT/files.tar.zst"
echo "tar | xz -9e:        $(wc -c < "$OUT/files.tar.xz") bytes"
echo "tar | zstd --long -19: $(wc -c < "$OUT/files.tar.zst") bytes"

timed() {	# timed LABEL COMMAND...: wall and user seconds
	label=$1
	shift
	/usr/bin/time -f "$label: %e s wall, %U s user, %M KB" "$@" 2>&1 >/dev/null |
		grep "^$label:"
}

rm -f "$OUT/all.bca"
timed create "$BC" archive create "$OUT/all.bca" "$@" -j2
echo "archive: $(wc -c < "$OUT/all.bca") bytes"
"$BC" archive list "$OUT/all.bca"
if [ $# -gt 1 ]; then
	last=$(eval echo "\${$#}")
	rm -f "$OUT/rest.bca"
	n=0
	for p in "$@"; do
		n=$((n + 1))
		[ "$n" -lt $# ] && set -- "$@" "$p"
	done
	shift $n
	"$BC" archive create "$OUT/rest.bca" "$@" -j2
	timed add "$BC" archive add "$OUT/rest.bca" "$last" -j2
fi
k=$("$BC" archive list "$OUT/all.bca" | head -1 | cut -d' ' -f1)
for i in 1 2 3 4 5; do
	timed "extract $k/$MODULE" "$BC" archive extract "$OUT/all.bca" \
		"$k/$MODULE" -o "$OUT/m.btf"
done
for i in 1 2 3; do
	timed "extract $k" "$BC" archive extract "$OUT/all.bca" "$k" -o "$OUT/k.btf"
done
for k in $("$BC" archive list "$OUT/all.bca" | cut -d' ' -f1); do
	timed "merged $k" "$BC" archive extract --merged "$OUT/all.bca" "$k" \
		-o "$OUT/merged.btf"
	echo "merged $k: $(wc -c < "$OUT/merged.btf") bytes"
done
