/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * BTF where kernels keep it: inside a boot image.
 *
 *   x86 bzImage     the setup header ("HdrS" at 0x202, boot protocol 2.08
 *                   or later) gives payload_offset and payload_length;
 *                   the payload is vmlinux (an ELF file: .BTF is one of its
 *                   sections) compressed with gzip, bzip2, lzma, xz, lzo
 *                   (lzop's format), lz4 (lz4's legacy format) or zstd,
 *                   followed by its size as a le32 (not for gzip).
 *   arm64 Image     "ARM\x64" at 56 (RISC-V's "RSC\x05" likewise): the
 *                   kernel's memory image without an ELF section table,
 *                   so the BTF is found by its header magic 0xeB9F and
 *                   kept when its header and string section hold up.
 *   EFI zboot       "MZ", then "zimg" at 4: payload offset and size at 8
 *                   and 12, the compression's name at 24; the payload is
 *                   a compressed Image.
 *   whole file      a file that is one compressed stream (Image.gz,
 *                   vmlinux.xz) holding any of the above, an ELF file or
 *                   raw BTF.
 *
 * A kernel package (.deb, .rpm) is read by package.h.
 *
 * Where it plugs in: btf_file.c, the reader every command's BTF input
 * goes through (sort, dump, diff, deps --kernel, archive create/add, the
 * --base options), hands a file whose first bytes are neither ELF nor BTF
 * but that bc_kernel_file_detect() takes to bc_kernel_file_read_btf().
 * kimage.c, package.c, decompress.c and kernel_file.c call only canon/
 * (the blob, the log) and the decompression libraries, never the rest of
 * archive/, so the flow stays one way: btf_file.c -> kimage.h ->
 * canon/.
 */
#ifndef BTFCANON_KIMAGE_H
#define BTFCANON_KIMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../canon/btf_data.h"
#include "../canon/log.h"

/* Bytes of a file's start that bc_kimage_detect() needs to decide. */
#define BC_KIMAGE_PROBE_LEN 0x250

/*
 * The most a decompressed image may take (1 GiB; Debian's largest vmlinux
 * is under 100 MiB): a stream that decompresses to more is refused.
 */
#define BC_KIMAGE_MAX_OUTPUT ((size_t)1 << 30)

/*
 * Is head (a file's first bytes, up to BC_KIMAGE_PROBE_LEN) a kernel image
 * or a kernel package (package.h)? Raw BTF and ELF files are not.
 */
bool bc_kernel_file_detect(const uint8_t *head, size_t len);

/*
 * The BTF of the kernel image or package path, open on fd, copied into
 * blob (malloc'd). Returns 0, or a negative errno after one message naming
 * path (and, for a package, its member) and what is wrong.
 */
int bc_kernel_file_read_btf(const char *path, int fd, struct bc_blob *blob,
			    const struct bc_log *log);

/*
 * Is data (the first bytes of a file, up to BC_KIMAGE_PROBE_LEN) a kernel
 * image or a compressed stream this reader takes? Raw BTF and ELF files
 * are not: btf_file.h reads those.
 */
bool bc_kimage_detect(const uint8_t *data, size_t size);

/*
 * The BTF of the kernel image data[0..size), read from file path (named in
 * messages): copied into blob (malloc'd, blob->mem). Decompressed output
 * past max_output bytes is refused (BC_KIMAGE_MAX_OUTPUT, less in the
 * fuzz target). Returns 0, or a negative errno after one message naming
 * path and what is wrong, such as
 *   vmlinuz-x: bzImage payload compressed with lzo: corrupt stream at byte N
 */
int bc_kimage_read_btf(const char *path, const uint8_t *data, size_t size,
		       size_t max_output, struct bc_blob *blob,
		       const struct bc_log *log);

/*
 * A kernel's default name, from the path of any input that holds it
 * (`btfcanon archive` names kernels with it; it reads a package's kernel
 * member, so a renamed .deb keeps its kernel's name):
 *   .../vmlinuz-6.1.0-56-cloud-amd64                      6.1.0-56-cloud-amd64
 *   linux-image-6.1.0-56-cloud-amd64_6.1.192-2_amd64.deb  6.1.0-56-cloud-amd64
 *       (a package: from its kernel member's name, so the package is read)
 *   6.1.0-56-cloud-amd64.btf                              6.1.0-56-cloud-amd64
 *   4.18.0-147.5.1.el8_1.x86_64.btf.tar.xz                4.18.0-147.5.1.el8_1.x86_64
 * A file's base name loses a leading "vmlinuz-", "vmlinux-", "bzImage-",
 * "Image-" or "zImage-", then a trailing compression suffix (".gz",
 * ".bz2", ".lzma", ".xz", ".lzo", ".lz4", ".zst"), then ".tar", then
 * ".btf", each when there and something is left; other names stay as
 * they are. *name is malloc'd. Returns 0 or a negative errno after a message
 * (a package that cannot be read, or has no kernel in it).
 */
int bc_kernel_default_name(const char *path, char **name,
			   const struct bc_log *log);

#endif
