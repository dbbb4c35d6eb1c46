#!/bin/sh
# Installs everything btfcanon needs to build, test, package and benchmark on
# a fresh Debian 12 machine: the -dev packages, the test framework, the
# Debian packaging tools (tools/check-deb.sh), the peers the
# tests compare against (bpftool, pahole, clang, gcc) and the kernel debug
# image the real-input tests read. Run as root (or it uses sudo).
set -eu

# 6.12.117 is the main real input; 6.1.192 is the second kernel of the
# determinism and peer tests; 6.12.115 is the "previous release" the diff
# tests compare 6.12.117 against.
DEBUG_IMAGES="linux-image-6.12.117+deb12-cloud-amd64-dbg linux-image-6.1.0-56-cloud-amd64-dbg linux-image-6.12.115+deb12-cloud-amd64-dbg"

if [ "$(id -u)" -ne 0 ]; then
	command -v sudo > /dev/null || {
		echo "setup-debian: run this as root (sudo is not installed)" >&2
		exit 1
	}
	exec sudo "$0" "$@"
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends \
	make gcc libc6-dev pkg-config \
	libbpf-dev libelf-dev libdw-dev zlib1g-dev libzstd-dev check \
	bpftool clang llvm dwarves binutils elfutils python3 git time \
	libclang-rt-14-dev \
	dpkg-dev debhelper fakeroot lintian \
	$DEBUG_IMAGES
# the kernel image and package readers (archive/): the libraries, and the
# command-line compressors, dpkg-deb and rpmbuild the fixtures are made with
apt-get install -y --no-install-recommends \
	liblzma-dev libzstd-dev liblz4-dev liblzo2-dev libbz2-dev libarchive-dev \
	gzip bzip2 xz-utils lzop lz4 zstd dpkg-dev rpm

# Real kernel image packages, one per compression Debian uses (lz4: 6.1
# cloud, xz: 6.1 generic, zstd: 6.12, arm64: a plain Image), for
# tests/images.sh and the kimage suite; never in the repository. The arm64
# one needs arm64 in dpkg's architectures (only its package lists are
# fetched; nothing of arm64 is installed).
IMAGE_CACHE=${BTFCANON_IMAGE_CACHE:-/var/cache/btfcanon-tests}
REAL_IMAGES="linux-image-6.1.0-56-cloud-amd64 linux-image-6.1.0-56-amd64 linux-image-6.12.117+deb12-cloud-amd64 linux-image-6.1.0-56-cloud-arm64:arm64"
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	dpkg --add-architecture arm64
	apt-get update
fi
mkdir -p "$IMAGE_CACHE"
for pkg in $REAL_IMAGES; do
	name=${pkg%:*}
	ls "$IMAGE_CACHE/${name}_"*.deb > /dev/null 2>&1 ||
		(cd "$IMAGE_CACHE" && apt-get download "$pkg")
done
