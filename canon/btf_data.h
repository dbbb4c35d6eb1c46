/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A parsed, validated BTF blob (base or split), read-only.
 *
 * bc_btf_parse() takes the raw bytes of a BTF blob (header, type section,
 * string section) and checks everything later passes rely on: header
 * lengths, section bounds and alignment, every kind known (or, with
 * skip_unknown_kinds, sized by the kind layout section and kept aside as
 * read: struct bc_unknown_type), every record
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
 *
 * The 2026 format (libbpf's include/uapi/linux/btf.h): the header may be
 * 32 bytes, its last two words placing a kind layout section, one 4-byte
 * struct btf_layout {info_sz, elem_sz, flags} per kind indexed by kind
 * number, between the types and the strings; and the info word's vlen
 * and kind grew to bits 0-23 and 24-30. The parser checks the section
 * (bounds, alignment, no overlap, entries of known kinds equal to their
 * real sizes), keeps a copy of its entries in layout[], and always holds
 * data in the plain form: a 24-byte header, types at 0, strings right after
 * them. That form is what libbpf 1.1 reads and what canon writes from.
 * Cost: one pass over the types. bc_btf_parse() copies the blob once (an
 * input at an odd address once more first); bc_btf_parse_blob() takes a
 * blob over instead and keeps it as it is when it is already plain and
 * 4-byte aligned (a file read or mapped whole: no copy at all).
 */
#ifndef BTFCANON_BTF_DATA_H
#define BTFCANON_BTF_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <linux/btf.h>

#include "btf_kinds.h"
#include "log.h"

/* The 2026 header: struct btf_header, then where the layout section is. */
struct bc_btf_header_layout {
	struct btf_header base;
	uint32_t layout_off;	/* after the header, as type_off and str_off */
	uint32_t layout_len;
};

/*
 * Bytes a parsed BTF may keep: malloc'd memory, or a private read-only
 * mapping of a file (mem and mem_len as mmap returned them), with the
 * blob at data inside it. mem NULL: nothing owned.
 */
struct bc_blob {
	void *mem;
	size_t mem_len;
	bool mapped;			/* munmap(mem, mem_len), else free(mem) */
	const uint8_t *data;
	size_t size;
};

/*
 * Maps len bytes of the file open on fd from offset off (any offset) into
 * blob, private and read-only, populated up front. Returns 0, or -1 when
 * the file cannot be mapped (a pipe, a sysfs file before Linux 6.16, len
 * 0): the caller reads it instead.
 */
int bc_blob_map(int fd, off_t off, size_t len, struct bc_blob *blob);

/* Frees or unmaps what blob owns and zeroes it; accepts a zeroed blob. */
void bc_blob_release(struct bc_blob *blob);

struct bc_btf {
	char *path;			/* names the input in messages */
	/* the blob in the plain form (as read, with in_place), in own */
	const uint8_t *data;
	struct bc_blob own;		/* what data lives in */
	size_t size;
	const struct btf_header *hdr;	/* hdr_len 24, types at 0, strings after */
	const uint8_t *types;		/* type section */
	const char *strs;		/* this blob's own string section */
	uint32_t str_len;
	uint32_t start_id;		/* id of the first local type */
	uint32_t start_str_off;		/* offset of the first own string */
	uint32_t nr_types;		/* local types */
	uint32_t *type_off;		/* [nr_types] byte offset in types */
	/*
	 * [nr_types] each local type's kind (a placeholder's: TYPEDEF), for
	 * passes that ask only that: one byte, not a record far away.
	 */
	uint8_t *kinds;
	uint32_t *ref_start;		/* [nr_types + 1] index into refs */
	uint32_t *refs;			/* all references, in canonical order */
	const struct bc_btf *base;	/* NULL for base BTF */
	struct bc_btf_layout *layout;	/* the input's layout section, or NULL */
	uint32_t nr_layout;		/* its entries (kinds 0 .. nr_layout-1) */
	uint32_t nr_unknown;		/* types of unknown kinds, as placeholders */
	/* [nr_unknown] those types as read, by id (bc_btf_unknown()) */
	struct bc_unknown_type *unknown;
	uint8_t *unknown_bytes;		/* their records, one after the other */
	/*
	 * Bytes of placeholder names appended to this blob's own strings
	 * (its input's strings end str_len - str_added into them): a split
	 * BTF over it has its own string offsets moved up by as much.
	 */
	uint32_t str_added;
};

/*
 * A type of a kind btfcanon does not know, stepped over by the sizes of
 * the kind layout section (bc_parse_opts.skip_unknown_kinds). Its id holds
 * a placeholder, `typedef void __btfcanon_unknown_kind<K>` (a name no
 * C source and no BTF encoder writes, BC_UNKNOWN_PREFIX), so that every
 * reference to it stays valid, reads as an opaque type, and a C header
 * that names it compiles; the record itself is kept here as read.
 */
struct bc_unknown_type {
	uint32_t id;
	uint32_t kind;			/* 0-127, not a kind btfcanon knows */
	uint32_t name_off;		/* the record's own name (word 0) */
	uint32_t vlen;
	uint32_t len;			/* bytes of the record, head included */
	const uint8_t *bytes;		/* the record as read (unknown_bytes) */
};

#define BC_UNKNOWN_PREFIX "__btfcanon_unknown_kind"

/*
 * Is t, named name, the placeholder of a type of unknown kind? Its name
 * says so wherever the BTF has gone since (libbpf, a sub-BTF, the header's
 * synthesis), so the C writers and the diff can leave it out as a type of
 * its own and spell only the references to it.
 */
static inline bool bc_is_unknown_placeholder(const struct btf_type *t,
					     const char *name)
{
	return BTF_INFO_KIND(t->info) == BTF_KIND_TYPEDEF && t->type == 0 &&
	       !strncmp(name, BC_UNKNOWN_PREFIX, sizeof(BC_UNKNOWN_PREFIX) - 1);
}

struct bc_parse_opts {
	/*
	 * A type of a kind btfcanon does not know, but which the layout
	 * section (the blob's own; for split BTF without one, the base's)
	 * sizes, is read as a placeholder (struct bc_unknown_type) under the
	 * same id, with one warning per kind, instead of being an error: the
	 * id stays, so every reference to it stays valid and reads as an
	 * opaque type. For the commands that only read (dump, diff, deps,
	 * header); not for those that renumber ids (sort, archive, min),
	 * which would have to know which of the record's words are ids.
	 */
	bool skip_unknown_kinds;
	/*
	 * Keep a blob taken over (bc_btf_parse_blob) in place even when it
	 * is not in the plain form (a 32-byte header, a kind layout section
	 * between the types and the strings), as long as it has only known
	 * kinds: data, size and hdr then describe the blob as read, and
	 * types, strs and every accessor are as always. For a BTF that is
	 * only read through them, such as the base of a module's encode:
	 * vmlinux's 4.7 MB are then not copied.
	 */
	bool in_place;
};

/*
 * Parses and validates size bytes at data (copied; the caller keeps data).
 * base is NULL for base BTF. path names the input in error messages.
 * Returns 0 and sets *out, or a negative errno after one message on log.
 */
int bc_btf_parse(const void *data, size_t size, const struct bc_btf *base,
		 const char *path, const struct bc_log *log, struct bc_btf **out);

/* bc_btf_parse() with options; opts may be NULL (all off). */
int bc_btf_parse_opts(const void *data, size_t size, const struct bc_btf *base,
		      const struct bc_parse_opts *opts, const char *path,
		      const struct bc_log *log, struct bc_btf **out);

/*
 * As bc_btf_parse_opts(), over a blob it takes over whatever the outcome
 * (*blob is zeroed): a blob already in the plain form (24-byte header,
 * only known kinds; any form with opts->in_place) at a 4-byte aligned
 * address is kept in place and released by bc_btf_free(); any other is
 * copied into the plain form and released at once.
 */
int bc_btf_parse_blob(struct bc_blob *blob, const struct bc_btf *base,
		      const struct bc_parse_opts *opts, const char *path,
		      const struct bc_log *log, struct bc_btf **out);

/*
 * Turns the plain blob *raw (24-byte header, types at 0, strings right
 * after them: what canon writes) into the 2026 form with the nr entries of
 * layout, placed as pahole and libbpf place them: a 32-byte header, the
 * types, the layout section, the strings. Reallocates *raw and updates
 * *size. Returns 0, -EINVAL if *raw is not plain, or -ENOMEM.
 */
int bc_btf_blob_add_layout(void **raw, size_t *size,
			   const struct bc_btf_layout *layout, uint32_t nr);

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

/* Kind of any id 1 .. end-1, looking into the base; BTF_KIND_UNKN for 0. */
uint32_t bc_btf_kind(const struct bc_btf *btf, uint32_t id);

/*
 * The type of unknown kind under id as read (looking into the base), or
 * NULL when id is a type of a known kind (or 0, or out of range).
 */
const struct bc_unknown_type *bc_btf_unknown(const struct bc_btf *btf,
					     uint32_t id);

/* Does btf or its base hold a type of unknown kind? */
bool bc_btf_has_unknown(const struct bc_btf *btf);

/*
 * Refuses btf (with its bases when with_base) when it holds a type of
 * unknown kind: what (the command's verb, "min") cannot renumber the ids
 * around it. Returns 0, or -EOPNOTSUPP after a message naming the file,
 * the first such type's id and its kind.
 */
int bc_btf_refuse_unknown(const struct bc_btf *btf, bool with_base,
			  const char *what, const struct bc_log *log);

/* String at offset off (in the base when off lies there). */
const char *bc_btf_str(const struct bc_btf *btf, uint32_t off);

/* Total string bytes addressable from btf: base strings plus its own. */
static inline uint32_t bc_btf_str_end(const struct bc_btf *btf)
{
	return btf->start_str_off + btf->str_len;
}

#endif
