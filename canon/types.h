/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Small questions about types that dump, diff and the C spellings all
 * ask: what a chain of qualifiers ends in, which keyword a tagged type
 * has, what an anonymous type is called after, who is referred to.
 */
#ifndef BTFCANON_DIFF_TYPES_H
#define BTFCANON_DIFF_TYPES_H

#include <stdbool.h>
#include <stdint.h>

#include "btf_data.h"

/*
 * Skips CONST, VOLATILE, RESTRICT and TYPE_TAG, and TYPEDEF too when
 * typedefs is set; *id becomes the id reached. NULL for void.
 */
const struct btf_type *bc_skip_mods(const struct bc_btf *btf, uint32_t *id,
				    bool typedefs);

/*
 * A reader of type records by id (NULL for void) other than a parsed BTF:
 * a source that decodes records on demand (archive/ktypes.h).
 */
typedef const struct btf_type *(*bc_type_reader)(const void *src, uint32_t id);

/* bc_skip_mods() over the records read from src. */
const struct btf_type *bc_skip_mods_read(bc_type_reader read, const void *src,
					 uint32_t *id, bool typedefs);

/* "struct", "union", "enum" for those kinds and FWD; NULL for others. */
const char *bc_tag_keyword(const struct btf_type *t);

/* Name of the first member or enumerator of t ("" when it has none). */
const char *bc_first_entry_name(const struct bc_btf *btf,
				const struct btf_type *t);

/*
 * A malloc'd array over ids 0 .. end-1: true for every id some local type
 * of btf refers to (DECL_TAGs not counted when skip_decl_tags). NULL when
 * out of memory.
 */
bool *bc_referenced_types(const struct bc_btf *btf, bool skip_decl_tags);

/*
 * The uses of every type: a malloc'd array over ids 0 .. nr_ids-1 of
 * how many reference slots of the types first .. end-1 reach
 * it directly or through a chain of anonymous wrappers (PTR, CONST,
 * VOLATILE, RESTRICT, TYPE_TAG, ARRAY's element): `struct console *` in
 * fifty prototypes is fifty uses of struct console, though dedup leaves
 * one PTR between them. A wrapper's own slot is not a use (its referrers'
 * slots are counted through it); a typedef is a use of what it names.
 * Records are read through read(src, id); ids past nr_ids, unknown kinds
 * and wrapper chains longer than 64 are not followed. NULL when out of
 * memory.
 */
uint32_t *bc_use_counts_read(bc_type_reader read, const void *src,
			     uint32_t nr_ids, uint32_t first, uint32_t end);

/* bc_use_counts_read() over btf's types, all of them referrers. */
uint32_t *bc_use_counts(const struct bc_btf *btf);

#endif
