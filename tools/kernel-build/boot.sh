#!/bin/bash
# boot.sh BZIMAGE INITRAMFS LOG: boot a kernel in qemu (TCG: nested KVM may
# not be there) with the initramfs of mkinitramfs.sh, serial console into
# LOG, until its /init prints "BOOTCHECK done" or TIMEOUT seconds (default
# 600) pass; then stop qemu (tinyconfig cannot power off, it halts).
# Exits 0 if the init got to "BOOTCHECK done".
set -u
bzimage=$1 initramfs=$2 log=$3
nice -n 10 qemu-system-x86_64 -accel tcg -m 512 -nographic -no-reboot \
	-kernel "$bzimage" -initrd "$initramfs" \
	-append "console=ttyS0 panic=-1 rdinit=/bin/sh -- /init" \
	> "$log" 2>&1 < /dev/null &
qemu_pid=$!
for ((waited = 0; waited < ${TIMEOUT:-600}; waited++)); do
	grep -qa '^BOOTCHECK done' "$log" && break
	kill -0 "$qemu_pid" 2>/dev/null || break
	sleep 1
done
kill "$qemu_pid" 2>/dev/null
wait "$qemu_pid" 2>/dev/null
grep -qa '^BOOTCHECK done' "$log"
