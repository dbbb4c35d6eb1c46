/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Adding inputs to an archive (add_input.c): reading any BTF input and
 * sorting it, above the archive object (archive.h), which takes sorted
 * BTF only.
 */
#ifndef BTFCANON_ADD_INPUT_H
#define BTFCANON_ADD_INPUT_H

#include <stdint.h>

#include "../canon/log.h"
#include "archive.h"

/*
 * Reads any BTF input (raw BTF, ELF .BTF, kernel images and packages
 * through btf_file.h, DWARF encoded when an ELF file has no .BTF,
 * ARCHIVE:NAME), sorts it and adds it under name, or under
 * bc_archive_input_name(path) when name is NULL.
 */
int bc_archive_add_file(struct bc_archive *ar, const char *path,
			const char *name, const struct bc_log *log);

/*
 * bc_archive_add_file() for nr inputs (names[i] NULL, or names NULL: the
 * default name), read and sorted on jobs threads (0: on the caller's);
 * added in input order, stopping at the first error. The archive's bytes
 * do not depend on jobs.
 */
int bc_archive_add_files(struct bc_archive *ar, const char *const *paths,
			 const char *const *names, uint32_t nr, uint32_t jobs,
			 const struct bc_log *log);

#endif
