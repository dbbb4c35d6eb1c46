/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The compressions the kernel's build uses for its images (the
 * CONFIG_KERNEL_* choices), undone by the distribution's libraries: zlib,
 * libbz2, liblzma (xz and the legacy .lzma format), liblzo2, liblz4 and
 * libzstd. Only the framing the kernel's tools write around two of them is
 * read here: lzop's file format around LZO1X blocks, and lz4's legacy
 * format (lz4 -l) around LZ4 blocks; each block is the library's to undo.
 *
 * One stream is read from the start of the input; what follows its end is
 * ignored (the kernel appends the decompressed size as a le32 after every
 * stream but gzip's).
 */
#ifndef BTFCANON_DECOMPRESS_H
#define BTFCANON_DECOMPRESS_H

#include <stddef.h>
#include <stdint.h>

enum bc_comp {
	BC_COMP_NONE,
	BC_COMP_GZIP,
	BC_COMP_BZIP2,
	BC_COMP_LZMA,		/* the legacy .lzma ("lzma alone") format */
	BC_COMP_XZ,
	BC_COMP_LZO,		/* lzop's file format */
	BC_COMP_LZ4,		/* lz4's legacy format (lz4 -l) */
	BC_COMP_ZSTD,
};

/* "gzip", "bzip2", "lzma", "xz", "lzo", "lz4", "zstd"; "none". */
const char *bc_comp_name(enum bc_comp comp);

/* The compression whose magic data starts with; BC_COMP_NONE if none. */
enum bc_comp bc_comp_detect(const uint8_t *data, size_t size);

/*
 * The compression an EFI zboot header names ("gzip", "lz4", "lzma", "lzo",
 * "xzkern", "zstd22", "bzip2"); BC_COMP_NONE if it names none of them.
 */
enum bc_comp bc_comp_from_zboot_name(const char *name);

/* What went wrong in a stream: why (a fixed text) at input byte at. */
struct bc_comp_error {
	const char *why;
	size_t at;
};

/*
 * Decompresses the stream of compression comp at the start of in. The
 * output is malloc'd into *out (*out_size bytes); size_hint, when not 0,
 * is the expected output size (the kernel's appended le32). Output past
 * max_out bytes is refused.
 *
 * Returns 0; -EINVAL (corrupt or truncated stream) or -EFBIG (output past
 * max_out) with *error filled in; or -ENOMEM. Prints nothing.
 */
int bc_decompress(enum bc_comp comp, const uint8_t *in, size_t in_size,
		  size_t size_hint, size_t max_out, uint8_t **out,
		  size_t *out_size, struct bc_comp_error *error);

#endif
