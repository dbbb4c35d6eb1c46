/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The types of one BTF as deps, CO-RE relocation and min look them up:
 * a record by id, a string, the types of a kind and name, the candidates
 * of an essential name. One interface over two sources:
 *
 * - a whole parsed BTF (a kernel file, a module's split BTF, the object's
 *   own), indexed by essential name in one pass when asked;
 * - one kernel of an archive, through a view (archive.h, "Reading part of
 *   a kernel"): only the records asked for are decoded, once each, and
 *   names are found through the archive's own tables, so a kernel costs
 *   the few hundred types the objects reach, not its 110k. The names
 *   with a flavor suffix ("___" and more), which an essential name must
 *   also find, are listed once per archive (struct bc_ktypes_flavors).
 *
 * Ids are the source's own: a view's are those of the kernel's sorted
 * BTF, the ids the same kernel read as a file has. Strings are numbers
 * that bc_ktypes_str() resolves (a view's are the archive's string
 * numbers, not offsets into a string section).
 *
 * Errors: a view's record that cannot be decoded (no memory; a damaged
 * archive) reads as void, and the first such error is kept
 * (bc_ktypes_error()), for the caller to report after the checks.
 * Cost (view): a record, one hash probe once decoded; a name, two hash
 * probes per kind asked for.
 */
#ifndef BTFCANON_ARCHIVE_KTYPES_H
#define BTFCANON_ARCHIVE_KTYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "archive.h"
#include "../canon/btf_data.h"

struct ktypes_index;
struct ktypes_cache;
struct bc_ktypes_flavors;

struct bc_ktypes {
	const struct bc_btf *btf;	/* a whole BTF, or NULL */
	struct ktypes_index *index;	/* btf: by essential name; NULL: none */
	struct bc_archive_view *view;	/* or a kernel of an archive (owned) */
	const struct bc_ktypes_flavors *flavors;	/* view: its archive's */
	struct ktypes_cache *cache;	/* view: the records decoded so far */
};

/*
 * A whole BTF (not owned; it must outlive kt); with indexed, its own
 * types (not a split BTF's base's) are indexed by essential name for
 * bc_ktypes_cands() and bc_ktypes_find(). Returns 0 or -ENOMEM.
 */
int bc_ktypes_init_btf(struct bc_ktypes *kt, const struct bc_btf *btf,
		       bool indexed);

/*
 * Kernel k of ar through a view; flavors is ar's (bc_ktypes_flavors_new()).
 * Returns 0, -EOPNOTSUPP for a kernel stored as bytes that records cannot
 * give back (read it whole), or
 * a negative errno after a message on log.
 */
int bc_ktypes_init_view(struct bc_ktypes *kt, struct bc_archive *ar,
			uint32_t k, const struct bc_ktypes_flavors *flavors,
			const struct bc_log *log);

/* Frees what kt owns and zeroes it; accepts a zeroed kt. */
void bc_ktypes_deinit(struct bc_ktypes *kt);

/* One past the last id. */
uint32_t bc_ktypes_end_id(const struct bc_ktypes *kt);

/* The record of id, or NULL for 0, an id out of range or an error. */
const struct btf_type *bc_ktypes_type(const struct bc_ktypes *kt, uint32_t id);

/* bc_ktypes_type() as a reader (canon/types.h's bc_type_reader): kt is src. */
const struct btf_type *bc_ktypes_type_of(const void *kt, uint32_t id);

/* The string str (a name word of a record); "" when out of range. */
const char *bc_ktypes_str(const struct bc_ktypes *kt, uint32_t str);

/*
 * The word after t's header as the BTF blob has it, whatever t's kind (an
 * INT's encoding; for other kinds the next word in the blob, which
 * libbpf's SIGNED relocation reads too). A view has no blob: it gives the
 * record's third word, or 0. The two agree on bit 24, BTF_INT_SIGNED, the
 * one bit read: past an INT every such word is a string offset or number
 * or a type id, under 2^24 for any kernel.
 */
uint32_t bc_ktypes_word_after(const struct bc_ktypes *kt,
			      const struct btf_type *t);

/* t with modifiers and typedefs skipped, *id following; NULL: void. */
const struct btf_type *bc_ktypes_skip_mods(const struct bc_ktypes *kt,
					   uint32_t *id);

/* The first type (lowest id) of kind named exactly name, or 0. */
uint32_t bc_ktypes_find(const struct bc_ktypes *kt, uint32_t kind,
			const char *name);

/*
 * The types whose kind is in kinds (a mask of 1 << BTF_KIND_*) and whose
 * essential name (bc_essential_len()) is name[0 .. len), ascending, up to
 * max of them into ids; returns how many there are (may exceed max).
 */
uint32_t bc_ktypes_cands(const struct bc_ktypes *kt, uint32_t kinds,
			 const char *name, size_t len, uint32_t *ids,
			 uint32_t max);

/*
 * Whether type a_id of a and type b_id of b are known to read the same
 * wherever names are what counts (C spellings: header/cdecl.c): both views
 * of one archive, and the two types one record of it. false: not known.
 */
bool bc_ktypes_same_record(const struct bc_ktypes *a, uint32_t a_id,
			   const struct bc_ktypes *b, uint32_t b_id);

/* The first error a view's decoding met (0: none). */
int bc_ktypes_error(const struct bc_ktypes *kt);

/* Records a view has decoded so far (0 for a whole BTF). */
uint32_t bc_ktypes_nr_decoded(const struct bc_ktypes *kt);

/*
 * The length of name up to its flavor suffix, libbpf's essential name:
 * up to the last "___" followed by a character other than '_'
 * (task_struct___old: task_struct).
 */
size_t bc_essential_len(const char *name);

/*
 * An archive's names with a flavor suffix, by essential name: what a view
 * cannot find by exact name. Built in one pass over the archive's names.
 */
int bc_ktypes_flavors_new(const struct bc_archive *ar,
			  struct bc_ktypes_flavors **out);
void bc_ktypes_flavors_free(struct bc_ktypes_flavors *fl);

#endif
