/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * BTF in files: raw blobs (/sys/kernel/btf/vmlinux, pahole's
 * --btf_encode_detached output), the .BTF section of ELF files, and the
 * BTF inside kernel images and packages (archive/kimage.h); and writing
 * results without ever leaving a partial file behind.
 */
#ifndef BTFCANON_BTF_FILE_H
#define BTFCANON_BTF_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "../canon/btf_data.h"
#include "../canon/log.h"

enum bc_file_format {
	BC_FILE_RAW,
	BC_FILE_ELF,
	BC_FILE_IMAGE,	/* in a kernel image or package: archive/kimage.h */
};

/*
 * Reads the BTF blob of path: the whole file when it starts with the BTF
 * magic, the .BTF section when it is ELF. *data is malloc'd. Returns 0 or a
 * negative errno after a message naming the file.
 */
int bc_file_read_btf(const char *path, void **data, size_t *size,
		     enum bc_file_format *format, const struct bc_log *log);

/*
 * As bc_file_read_btf(), into a blob (canon/btf_data.h): the file or its
 * plain .BTF section mapped where it can be, else read or copied once.
 * For bc_btf_parse_blob(), which keeps a plain blob in place. On error the
 * blob is released; *format is set as far as the file was read.
 */
int bc_file_read_btf_blob(const char *path, struct bc_blob *blob,
			  enum bc_file_format *format, const struct bc_log *log);

/* bc_file_read_btf() then bc_btf_parse() over base (may be NULL). */
int bc_file_load_btf(const char *path, const struct bc_btf *base,
		     struct bc_btf **btf, enum bc_file_format *format,
		     const struct bc_log *log);

/* bc_file_load_btf() with parse options (may be NULL). */
int bc_file_load_btf_opts(const char *path, const struct bc_btf *base,
			  const struct bc_parse_opts *opts, struct bc_btf **btf,
			  enum bc_file_format *format, const struct bc_log *log);

/*
 * Writes size bytes to path through a temporary file in the same directory
 * and a rename, so path either keeps its old content or gets all of the new.
 * "-" writes to standard output. Returns 0 or a negative errno.
 */
int bc_file_write_atomic(const char *path, const void *data, size_t size,
			 const struct bc_log *log);

/*
 * Replaces the .BTF section of the ELF file path with data, through a
 * temporary copy and a rename. A section that is part of the loaded image
 * (SHF_ALLOC) may shrink but not grow. Returns 0 or a negative errno.
 */
int bc_file_replace_elf_btf(const char *path, const void *data, size_t size,
			    const struct bc_log *log);

/*
 * Writes to output a copy of the ELF file input whose .BTF section holds
 * data, replacing the section or adding it. Nothing else in the file moves.
 * Returns 0 or a negative errno.
 */
int bc_file_write_elf_with_btf(const char *input, const char *output,
			       const void *data, size_t size,
			       const struct bc_log *log);

/*
 * As bc_file_write_elf_with_btf(), with a second section: .BTF.base
 * holding base (a distilled base; .BTF is split BTF over it). Both are
 * replaced or added; output appears whole or not at all.
 */
int bc_file_write_elf_with_btf_base(const char *input, const char *output,
				    const void *btf, size_t btf_size,
				    const void *base, size_t base_size,
				    const struct bc_log *log);

/*
 * Reads the .BTF.base section (a distilled base) of the ELF file path into
 * *data (malloc'd). Returns 0 with *data NULL when path is raw BTF or has
 * no such section, or a negative errno after a message naming the file.
 */
int bc_file_read_btf_base(const char *path, void **data, size_t *size,
			  const struct bc_log *log);

#endif
