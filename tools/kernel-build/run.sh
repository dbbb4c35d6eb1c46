#!/bin/bash
# run.sh 6.12|6.1 [WORKDIR]: build Debian's linux-source-VERSION twice, with
# Debian's pahole and with build/btfcanon-pahole as PAHOLE, and check both
# kernels' BTF; the procedure of docs/kernel-build.md, in one command.
#
#   1. apt-get installs what is missing (the kernel source, the build tools,
#      qemu and busybox-static for the boot test);
#   2. the source unpacked afresh and configured as the doc's "Config"
#      section says (tinyconfig plus what BTF needs), into two trees,
#      WORKDIR/VERSION/pahole and WORKDIR/VERSION/btfcanon;
#   3. each tree built with `nice -n 10 make -j$(nproc)` (the btfcanon one
#      with PAHOLE=...), logged in WORKDIR/VERSION/build-*.log;
#   4. an out-of-tree module (extmod/) built with the drop-in and
#      --btf_features=distilled_base twice: against the btfcanon tree
#      (ext_distilled_own) and against the Debian-pahole tree, whose vmlinux
#      BTF has other ids (ext_distilled_cross); both are loaded into the
#      btfcanon kernel, which must relocate their BTF (.BTF.base);
#   5. the checks of the doc's table run on both builds, and one table of
#      results printed; then types by kind and per module.
#
# Exits 1 if any check fails for the btfcanon build. BTFCANON_PAHOLE names
# another drop-in than <repo>/build/btfcanon-pahole. CHECK_ONLY=1 skips
# steps 1-3 and checks the two trees a previous run left in WORKDIR/VERSION
# (their build results are in WORKDIR/VERSION/build-*.result). Needs root
# (or sudo) for apt-get and for BPF_BTF_LOAD.
set -euo pipefail

usage() { echo "usage: $0 6.12|6.1 [WORKDIR]" >&2; exit 2; }
[ $# -ge 1 ] && [ $# -le 2 ] || usage
version=$1
work=${2:-/tmp/btfcanon-kbuild}/$version
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
drop_in=${BTFCANON_PAHOLE:-$repo/build/btfcanon-pahole}
builds="pahole btfcanon"

# The scripts/config line of the doc's "Config" section; for 6.1 without
# "-m CRC32 -e DEVTMPFS -e KALLSYMS -e STACKTRACE". Each gives the .config
# the doc's builds had.
case $version in
6.12) config_opts="-e 64BIT -e DEBUG_KERNEL -e DEBUG_INFO -d DEBUG_INFO_NONE
  -e DEBUG_INFO_DWARF5 -e BPF_SYSCALL -e DEBUG_INFO_BTF -e DEBUG_INFO_BTF_MODULES
  -e MODULES -e MODULE_UNLOAD -e CRYPTO -m CRYPTO_CRC32C -m CRC32
  -e BINFMT_ELF -e PRINTK -e TTY -e SERIAL_8250 -e SERIAL_8250_CONSOLE
  -e PROC_FS -e SYSFS -e BLOCK -m ZRAM -e SWAP -e ZSMALLOC -m DUMMY
  -e NET -e NETDEVICES -e NET_CORE -e INET -e BLK_DEV_INITRD -e RD_GZIP -e DEVTMPFS
  -e KALLSYMS -e STACKTRACE" ;;
6.1) config_opts="-e 64BIT -e DEBUG_KERNEL -e DEBUG_INFO -d DEBUG_INFO_NONE
  -e DEBUG_INFO_DWARF5 -e BPF_SYSCALL -e DEBUG_INFO_BTF -e DEBUG_INFO_BTF_MODULES
  -e MODULES -e MODULE_UNLOAD -e CRYPTO -m CRYPTO_CRC32C
  -e BINFMT_ELF -e PRINTK -e TTY -e SERIAL_8250 -e SERIAL_8250_CONSOLE
  -e PROC_FS -e SYSFS -e BLOCK -m ZRAM -e SWAP -e ZSMALLOC -m DUMMY
  -e NET -e NETDEVICES -e NET_CORE -e INET -e BLK_DEV_INITRD -e RD_GZIP" ;;
*) usage ;;
esac

say() { echo "[$(date +%H:%M:%S)] $*"; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

[ -x "$drop_in" ] || { echo "$drop_in: not built (make in $repo)" >&2; exit 2; }
[ -x "$(dirname "$drop_in")/btfcanon" ] || { echo "no btfcanon beside $drop_in" >&2; exit 2; }

# --- 1. packages -------------------------------------------------------------
install_missing() {  # [APT-OPTION] PACKAGE...: apt-get install those not installed
	local option=$1 missing=() pkg
	shift
	for pkg in "$@"; do
		dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed' ||
			missing+=("$pkg")
	done
	[ ${#missing[@]} -eq 0 ] && return
	say "apt-get install $option ${missing[*]}"
	as_root apt-get install -y $option "${missing[@]}" ||
		{ as_root apt-get update && as_root apt-get install -y $option "${missing[@]}"; }
}

install_packages() {
	install_missing "" "linux-source-$version" flex bison bc libssl-dev libelf-dev \
		dwarves bpftool cpio kmod xz-utils gcc make
	install_missing --no-install-recommends qemu-system-x86 busybox-static
}

# --- 2. source and config ----------------------------------------------------
unpack_and_configure() {
	say "unpacking /usr/src/linux-source-$version.tar.xz into $work"
	rm -rf "$work/src" "$work/pahole" "$work/btfcanon" "$work/out"
	tar xf "/usr/src/linux-source-$version.tar.xz" -C "$work"
	mv "$work/linux-source-$version" "$work/src"
	(
		cd "$work/src"
		make tinyconfig
		scripts/config $config_opts
		make olddefconfig
	) > "$work/config.log" 2>&1
	for opt in DEBUG_INFO_BTF DEBUG_INFO_BTF_MODULES DEBUG_INFO_DWARF5 BPF_SYSCALL; do
		grep -q "^CONFIG_$opt=y" "$work/src/.config" ||
			{ echo "config: CONFIG_$opt is not =y (see $work/config.log)" >&2; exit 1; }
	done
	say "kernel $(make -s -C "$work/src" kernelversion); modules (=m):" \
		"$(grep -c '=m$' "$work/src/.config")"
	cp -a "$work/src" "$work/pahole"
	mv "$work/src" "$work/btfcanon"
}

# --- 3. builds ---------------------------------------------------------------
declare -A build_rc build_seconds

build_trees() {
	local build pahole_arg start
	for build in $builds; do
		pahole_arg=()
		[ "$build" = btfcanon ] && pahole_arg=("PAHOLE=$drop_in")
		say "building $build: nice -n 10 make -j$(nproc) ${pahole_arg[*]}" \
			"(log $work/build-$build.log)"
		start=$(date +%s)
		build_rc[$build]=0
		(cd "$work/$build" && nice -n 10 make -j"$(nproc)" "${pahole_arg[@]}") \
			> "$work/build-$build.log" 2>&1 || build_rc[$build]=$?
		build_seconds[$build]=$(($(date +%s) - start))
		echo "${build_rc[$build]} ${build_seconds[$build]}" > "$work/build-$build.result"
		say "built $build: rc ${build_rc[$build]}, ${build_seconds[$build]} s," \
			"CONFIG_PAHOLE_VERSION=$(sed -n 's/^CONFIG_PAHOLE_VERSION=//p' "$work/$build/.config")"
	done
}

# --- 4. the out-of-tree module ---------------------------------------------
# NAME TREE: extmod/ext_distilled.c as module NAME, built against TREE with
# the drop-in; distilled_base given as 6.12's Makefile.btf gives it to
# external modules (MODULE_PAHOLE_FLAGS; only for pahole >= 1.28 there).
build_extmod() {
	local name=$1 tree=$2 dir=$work/ext/$1
	rm -rf "$dir"
	mkdir -p "$dir"
	cp "$here/extmod/ext_distilled.c" "$dir/$name.c"
	echo "obj-m := $name.o" > "$dir/Kbuild"
	say "building external module $name against the $tree tree (log $work/ext-$name.log)"
	(cd "$work/$tree" && nice -n 10 make -j"$(nproc)" M="$dir" PAHOLE="$drop_in" \
		MODULE_PAHOLE_FLAGS=--btf_features=distilled_base modules) \
		> "$work/ext-$name.log" 2>&1 || say "external module $name: make failed"
}
ext_modules="ext_distilled_own:btfcanon ext_distilled_cross:pahole"

if [ "${CHECK_ONLY:-0}" = 1 ]; then
	for build in $builds; do
		read -r "build_rc[$build]" "build_seconds[$build]" < "$work/build-$build.result"
	done
else
	install_packages
	mkdir -p "$work"
	if [ "${drop_in#"$repo"/}" = "$drop_in" ]; then
		say "btfcanon: $drop_in (BTFCANON_PAHOLE, not built from this tree)"
	else
		# a git checkout names its commit; an exported tree cannot
		say "btfcanon: $drop_in," \
			"$(git -C "$repo" describe --always --dirty 2>/dev/null || echo 'not a git checkout')"
		{ git -C "$repo" status --short --untracked-files=no 2>/dev/null || true; } |
			sed 's/^/  uncommitted: /'
	fi
	say "host $(uname -r), $(gcc --version | head -1), Debian pahole $(pahole --version)," \
		"$(nproc) cpus"
	drop_in_sum=$(cat "$drop_in" "$(dirname "$drop_in")/btfcanon" | sha256sum)
	unpack_and_configure
	build_trees
	for ext in $ext_modules; do build_extmod "${ext%%:*}" "${ext#*:}"; done
	[ "$(cat "$drop_in" "$(dirname "$drop_in")/btfcanon" | sha256sum)" = "$drop_in_sum" ] ||
		say "WARNING: $drop_in or btfcanon changed during the build"
fi

# The checks report failures; they must not stop the script.
set +e

# --- 5. checks ---------------------------------------------------------------
gcc -O2 -Wall -o "$work/btfload" "$here/btfload.c"

declare -A result passed module_types
checks="build btf btfids dump modules load boot insmod extmod dmesg"
declare -A check_title=(
	[build]='build succeeds (`vmlinux`, `bzImage`, modules)'
	[btf]='`vmlinux` has `.BTF` (`readelf -SW`)'
	[btfids]='`.BTF_ids` filled by resolve_btfids (`check_btfids.py`)'
	[dump]='`bpftool btf dump file vmlinux`'
	[modules]='every module has `.BTF`; `bpftool btf dump file MOD.ko -B vmlinux`'
	[load]='host kernel: `BPF_BTF_LOAD` of the vmlinux `.BTF`'
	[boot]='boots in qemu; `/sys/kernel/btf/vmlinux` same size as `.BTF`'
	[insmod]='`insmod` of each module; `/sys/kernel/btf/MOD` appears'
	[extmod]='external modules with `.BTF.base` (own tree, other tree): `btfcanon relocate` onto this vmlinux; `insmod`, `/sys/kernel/btf/MOD`'
	[dmesg]='`dmesg` lines about BTF'
)
record() { result[$1,$2]=$4; passed[$1,$2]=$3; }

section_size() {  # ELF SECTION: size in bytes, empty if there is none
	local hex
	hex=$(readelf -SW "$1" | awk -v s="$2" '$2 == s { print $6; exit } $3 == s { print $7; exit }')
	[ -n "$hex" ] && echo $((16#$hex))
}
thousands() { echo "$1" | sed ':a; s/\B[0-9]\{3\}\>/,&/; ta'; }

check_build() {
	local b=$1 tree=$work/$1 out=$work/out/$1 ko
	mkdir -p "$out"
	local kos=() names=()
	while IFS= read -r ko; do kos+=("$ko"); done < <(find "$tree/" -name '*.ko' | sort)
	if [ "${build_rc[$b]}" != 0 ] || [ ! -f "$tree/vmlinux" ] ||
	   [ ! -f "$tree/arch/x86/boot/bzImage" ]; then
		record "$b" build no "no (rc ${build_rc[$b]})"
		return
	fi
	record "$b" build yes "yes, ${#kos[@]} modules"

	local btf_bytes
	btf_bytes=$(section_size "$tree/vmlinux" .BTF)
	if [ -n "$btf_bytes" ]; then
		record "$b" btf yes "$(thousands "$btf_bytes") bytes"
	else
		record "$b" btf no "no .BTF"
	fi

	local ids
	ids=$("$here/check_btfids.py" "$tree/vmlinux" > "$out/btfids.txt" 2>&1 && echo yes || echo no)
	record "$b" btfids "$ids" "$(tail -1 "$out/btfids.txt" | sed 's/, 0 zero.*, 0 wrong$//')"

	if bpftool btf dump file "$tree/vmlinux" > "$out/vmlinux.dump" 2> "$out/dump.err" &&
	   [ -s "$out/vmlinux.dump" ]; then
		record "$b" dump yes works
	else
		record "$b" dump no "fails: $(head -c 100 "$out/dump.err")"
	fi

	local good=0 name
	for ko in "${kos[@]}"; do
		name=$(basename "$ko" .ko)
		names+=("$name")
		if [ -n "$(section_size "$ko" .BTF)" ] &&
		   bpftool btf dump file "$ko" -B "$tree/vmlinux" > "$out/$name.dump" 2>&1; then
			good=$((good + 1))
			module_types[$b,$name]=$(grep -c '^\[' "$out/$name.dump")
		else
			module_types[$b,$name]=fails
		fi
	done
	record "$b" modules "$([ $good = ${#kos[@]} ] && [ $good -gt 0 ] && echo yes || echo no)" \
		"$good/${#kos[@]} work"

	objcopy -O binary --only-section=.BTF "$tree/vmlinux" "$out/vmlinux.btf"
	if as_root "$work/btfload" "$out/vmlinux.btf" > "$out/btfload.txt" 2>&1; then
		record "$b" load yes accepted
	else
		record "$b" load no "rejected (see $out/btfload.txt)"
	fi

	# the external modules, built against either tree, go into the btfcanon kernel
	local ext_kos=() ext_names=() ext_notes=() ext_name ext_ok=0
	if [ "$b" = btfcanon ]; then
		for ext in $ext_modules; do
			ext_name=${ext%%:*}
			ext_names+=("$ext_name")
			ko=$work/ext/$ext_name/$ext_name.ko
			if [ ! -f "$ko" ]; then
				ext_notes+=("$ext_name: not built (see $work/ext-$ext_name.log)")
				continue
			fi
			ext_kos+=("$ko")
			if [ -z "$(section_size "$ko" .BTF.base)" ]; then
				ext_notes+=("$ext_name: no .BTF.base")
			elif ! "$(dirname "$drop_in")/btfcanon" relocate --base "$tree/vmlinux" \
				"$ko" -o "$out/$ext_name.relocated.btf" > "$out/$ext_name.relocate.txt" 2>&1; then
				ext_notes+=("$ext_name: btfcanon relocate fails (see $out/$ext_name.relocate.txt)")
			fi
		done
	fi
	"$here/mkinitramfs.sh" "$out/initramfs.cpio.gz" "${kos[@]}" "${ext_kos[@]}"
	local log=$out/boot.log
	if ! "$here/boot.sh" "$tree/arch/x86/boot/bzImage" "$out/initramfs.cpio.gz" "$log"; then
		record "$b" boot no "no (see $log)"
		record "$b" insmod no -
		record "$b" extmod no -
		record "$b" dmesg no -
		return
	fi
	local booted_btf
	booted_btf=$(awk '$1 == "BOOTCHECK" && $2 == "vmlinux" { print $3 }' "$log" | tr -d '\r')
	if [ "$booted_btf" = "$btf_bytes" ]; then
		record "$b" boot yes yes
	else
		record "$b" boot no "no: /sys/kernel/btf/vmlinux $booted_btf bytes"
	fi
	good=0
	for name in "${names[@]}"; do
		grep -qa "^BOOTCHECK insmod $name ok" "$log" &&
			grep -qa "^BOOTCHECK btf ${name//-/_} " "$log" && good=$((good + 1))
	done
	record "$b" insmod "$([ $good = ${#names[@]} ] && [ $good -gt 0 ] && echo yes || echo no)" \
		"$good/${#names[@]}"
	if [ "$b" = btfcanon ]; then
		for ext_name in "${ext_names[@]}"; do
			if grep -qa "^BOOTCHECK insmod $ext_name ok" "$log" &&
			   grep -qa "^BOOTCHECK btf $ext_name " "$log"; then
				ext_ok=$((ext_ok + 1))
			else
				ext_notes+=("$ext_name: not loaded with its BTF ($(grep -a "^BOOTCHECK insmod $ext_name" "$log" | head -1 | tr -d '\r'))")
			fi
		done
		if [ ${#ext_notes[@]} -eq 0 ] && [ $ext_ok -gt 0 ]; then
			record "$b" extmod yes "$ext_ok/${#ext_names[@]}: relocated, loaded, /sys/kernel/btf/MOD"
		else
			record "$b" extmod no "$ext_ok/${#ext_names[@]} loaded; ${ext_notes[*]}"
		fi
	else
		record "$b" extmod yes "n/a (pahole 1.24 has no distilled_base)"
	fi
	local btf_lines
	btf_lines=$(grep -ac '^BOOTCHECK dmesg' "$log" || true)
	if [ "$btf_lines" = 0 ]; then
		record "$b" dmesg yes none
	else
		record "$b" dmesg no "$btf_lines (see $log)"
	fi
}

for build in $builds; do
	say "checking $build"
	check_build "$build"
done

# --- results -----------------------------------------------------------------
echo
echo "Linux $version: build times: Debian pahole ${build_seconds[pahole]} s" \
	"(rc ${build_rc[pahole]}), btfcanon-pahole ${build_seconds[btfcanon]} s (rc ${build_rc[btfcanon]})"
for build in $builds; do
	echo "build-$build.log: $(grep -aiE '(warning|error)[: ]' "$work/build-$build.log" |
		grep -aicE 'pahole|btf') lines with a warning or error about pahole/BTF"
done
echo
echo "| check | Debian pahole | btfcanon-pahole |"
echo "| --- | --- | --- |"
failed=()
for check in $checks; do
	row="| ${check_title[$check]} |"
	for build in $builds; do
		value=${result[$build,$check]:--}
		[ "${passed[$build,$check]:-no}" = yes ] || {
			value="FAIL: $value"
			[ "$build" = btfcanon ] && failed+=("$check")
		}
		row+=" $value |"
	done
	echo "$row"
done

if [ -f "$work/pahole/vmlinux" ] && [ -f "$work/btfcanon/vmlinux" ]; then
	echo
	echo "Types by kind in vmlinux:"
	LABEL_A=pahole LABEL_B=btfcanon "$here/kinds.sh" "$work/pahole/vmlinux" "$work/btfcanon/vmlinux"
	echo
	echo "Types per module (bpftool btf dump file MOD.ko -B vmlinux):"
	for key in "${!module_types[@]}"; do echo "${key#*,}"; done | sort -u | while read -r name; do
		printf '%-16s %10s %10s\n' "$name" "${module_types[pahole,$name]:--}" \
			"${module_types[btfcanon,$name]:--}"
	done
fi

echo
if [ ${#failed[@]} -eq 0 ]; then
	echo "btfcanon-pahole build: all checks passed"
else
	echo "btfcanon-pahole build: FAILED: ${failed[*]}"
	exit 1
fi
