/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where a command's BTF input comes from. Every command that takes a BTF
 * input (sort, dump, diff, deps --kernel) reads it through here, which
 * picks the reader by the file's first bytes:
 *
 *   a .deb or .rpm kernel package   archive/package.h, then its kernel:
 *   a kernel image                  archive/kimage.h (bzImage, arm64
 *                                   Image, EFI zboot, a compressed file)
 *   anything else                   sort/btf_file.h (raw BTF, ELF .BTF)
 *
 * Data flows one way: this layer calls the readers below it (archive/'s
 * image and package readers, sort/'s file reader), and none of them calls
 * back. Callers above (tools/, diff/input.c, deps) use this instead of
 * bc_file_read_btf_blob() for their inputs. Named archive members
 * (ARCHIVE:NAME) belong here too.
 */
#ifndef BTFCANON_BTF_SOURCE_H
#define BTFCANON_BTF_SOURCE_H

#include "../canon/btf_data.h"
#include "../canon/log.h"
#include "../sort/btf_file.h"

/*
 * As bc_file_read_btf_blob(), for any input: *format is BC_FILE_IMAGE for
 * a kernel image or package (the blob is then a malloc'd copy of the
 * BTF). Returns 0 or a negative errno after one message naming path.
 */
int bc_source_read_btf_blob(const char *path, struct bc_blob *blob,
			    enum bc_file_format *format,
			    const struct bc_log *log);

/* bc_source_read_btf_blob() then bc_btf_parse_blob() over base (may be
 * NULL), with parse options (may be NULL). */
int bc_source_load_btf(const char *path, const struct bc_btf *base,
		       const struct bc_parse_opts *opts, struct bc_btf **btf,
		       enum bc_file_format *format, const struct bc_log *log);

#endif
