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
