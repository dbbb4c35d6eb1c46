#!/bin/bash
# mkinitramfs.sh OUT.cpio.gz MOD.ko...: an initramfs of busybox-static, the
# given modules and an /init that checks the kernel's BTF from inside:
# it prints /sys/kernel/btf/vmlinux's size, insmods every module (a few
# rounds, since the dependency order is not known), prints every file in
# /sys/kernel/btf with its size and every dmesg line about BTF, then powers
# off. Each result is a line "BOOTCHECK <what> ..." for boot.sh's reader.
# /init is a shell script run as "rdinit=/bin/sh -- /init": tinyconfig has
# no BINFMT_SCRIPT, so the kernel cannot run it by its #! line.
set -euo pipefail
out=$1; shift
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

mkdir -p "$root"/{bin,dev,proc,sys,mods}
cp /usr/bin/busybox "$root/bin/busybox"
for applet in sh mount ls insmod lsmod wc cat dmesg grep poweroff echo sed basename; do
	ln -s busybox "$root/bin/$applet"
done
[ $# -gt 0 ] && cp "$@" "$root/mods/"

cat > "$root/init" <<'EOI'
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sysfs /sys
echo "BOOTCHECK kernel $(cat /proc/version)"
echo "BOOTCHECK vmlinux $(wc -c < /sys/kernel/btf/vmlinux)"
for round in 1 2 3 4 5; do
	for m in /mods/*.ko; do
		[ -e "$m" ] && [ ! -e "$m.loaded" ] || continue
		insmod "$m" 2>/dev/null && echo > "$m.loaded"
	done
done
for m in /mods/*.ko; do
	[ -e "$m" ] || continue
	name=$(basename "$m" .ko)
	if [ -e "$m.loaded" ]; then
		echo "BOOTCHECK insmod $name ok"
	else
		echo "BOOTCHECK insmod $name FAILED: $(insmod "$m" 2>&1)"
	fi
done
for f in /sys/kernel/btf/*; do echo "BOOTCHECK btf $(basename $f) $(wc -c < $f)"; done
dmesg | grep -i btf | sed 's/^/BOOTCHECK dmesg /'
echo "BOOTCHECK done"
poweroff -f
EOI
chmod +x "$root/init"
mknod "$root/dev/console" c 5 1
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -9) > "$out"
