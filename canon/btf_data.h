/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A parsed, validated BTF blob (base or split), read-only.
 *
 * bc_btf_parse() takes the raw bytes of a BTF blob (header, type section,
 * string section) and checks everything later passes rely on: header
 * lengths, section bounds and alignment, every kind known, every record
 * inside the type section, every string offset inside the strings, every
 * type id naming an existing type, and no reference loop that avoids all
 * structs and unions (such a loop describes no C type and the kernel
 * rejects it). A blob that passes can be walked without further checks.
 *
 * Split BTF (a module over vmlinux) is parsed over its base: its ids start
 * after the base's last id and its string offsets after the base's strings.
 *
 * The parser also lays out every local type's references in one flat array
 * (refs[ref_start[i] .. ref_start[i+1]) for local type i) since canon and
 * the validator both walk them.
 */
#ifndef BTFCANON_BTF_DATA_H
#define BTFCANON_BTF_DATA_H

#include <stddef.h>
#include <stdint.h>
#include <linux/btf.h>

#include "log.h"

struct bc_btf {
	char *path;			/* names the input in messages */
	uint8_t *data;			/* the raw blob, owned */
	size_t size;
	const struct btf_header *hdr;
	const uint8_t *types;		/* type section */
	const char *strs;		/* this blob's own string section */
	uint32_t str_len;
	uint32_t start_id;		/* id of the first local type */
	uint32_t start_str_off;		/* offset of the first own string */
	uint32_t nr_types;		/* local types */
	uint32_t *type_off;		/* [nr_types] byte offset in types */
	uint32_t *ref_start;		/* [nr_types + 1] index into refs */
	uint32_t *refs;			/* all references, in canonical order */
	const struct bc_btf *base;	/* NULL for base BTF */
};

/*
 * Parses and validates size bytes at data (copied; the caller keeps data).
 * base is NULL for base BTF. path names the input in error messages.
 * Returns 0 and sets *out, or a negative errno after one message on log.
 */
int bc_btf_parse(const void *data, size_t size, const struct bc_btf *base,
		 const char *path, const struct bc_log *log, struct bc_btf **out);

/* Frees btf; accepts NULL. */
void bc_btf_free(struct bc_btf *btf);

/* One past the last valid type id (base ids included). */
static inline uint32_t bc_btf_end_id(const struct bc_btf *btf)
{
	return btf->start_id + btf->nr_types;
}

/* Type record of a local index (0 .. nr_types-1). */
static inline const struct btf_type *bc_btf_local(const struct bc_btf *btf,
						  uint32_t idx)
{
	return (const struct btf_type *)(btf->types + btf->type_off[idx]);
}

/* Type record of any id 1 .. end-1, looking into the base; NULL for 0. */
const struct btf_type *bc_btf_type(const struct bc_btf *btf, uint32_t id);

/* String at offset off (in the base when off lies there). */
const char *bc_btf_str(const struct bc_btf *btf, uint32_t off);

/* Total string bytes addressable from btf: base strings plus its own. */
static inline uint32_t bc_btf_str_end(const struct bc_btf *btf)
{
	return btf->start_str_off + btf->str_len;
}

#endif
