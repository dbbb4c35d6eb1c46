/* SPDX-License-Identifier: GPL-2.0-only */
/* hsynth.c: the synthetic BTF of one architecture (header.c, pass 2) (header/, internal). */
#ifndef BTFCANON_HEADER_HSYNTH_H
#define BTFCANON_HEADER_HSYNTH_H

#include <stdbool.h>
#include <stdint.h>

#include "../canon/log.h"
#include "../canon/text.h"
#include "hkernels.h"
#include "smap.h"

struct bc_archive_view;
struct btf;

struct leaf {
	char *name;		/* copied: the synthetic BTF's strings move as it grows */
	char *decl;		/* C spelling by names, ":BITS" for a bitfield */
	uint32_t type;
	uint32_t bits;
};

struct leaves {
	struct leaf *v;
	uint32_t nr, cap;
};

/* A member or enumerator some older kernel has and the synthetic type does not. */
struct variant {
	uint32_t kind;		/* BTF_KIND_STRUCT, _UNION or _ENUM */
	char *type_name;
	char *member;		/* member or enumerator name */
	char *decl;		/* members: the declaration */
	uint32_t type;		/* members: the member's type in the synthetic BTF */
	uint32_t bits;		/* members: bitfield size */
	int64_t value;		/* enumerators */
	uint32_t enum_size;
	bool enum_signed;
	uint32_t oldest;	/* order position of the oldest kernel having it */
	char *tag;		/* base_tag() of member */
	char *flavor;		/* the flavor's name, once chosen */
};

struct sig_entry;

#define CURRENT 0x80000000u	/* a touched entry that indexes cur_oldest */

struct synth {
	struct btf *s;
	uint32_t nr_newest;		/* ids below are the first kernel's */
	struct smap names;		/* "K:name" -> the id of that kind and name */
	/*
	 * The uses of the newest kernel's types (bc_dump_c_uses(), over
	 * ids below nr_newest): of several types of one kind and name,
	 * names and idents give the most used (ties: the first), the one
	 * dump_c spells plainly, so an older kernel's "u8" is the
	 * kernel's typedef __u8 u8, not a driver's typedef of the same name.
	 */
	uint32_t *uses;
	struct smap idents;		/* C ordinary identifiers taken */
	struct smap variant_idx;	/* variant key -> index + 1 */
	struct variant *variants;
	uint32_t nr_variants, cap_variants;
	struct leaves **s_leaves;	/* by synthetic id, computed when needed */
	uint32_t nr_s_leaves;
	struct smap kfunc_count;	/* kfunc name -> kernels having it */
	struct sig_entry *sigs;		/* types compared, by signature */
	uint32_t nr_sigs, cap_sigs;
	uint32_t *touched;		/* variant indices, by signature; CURRENT: */
	uint32_t nr_touched, cap_touched;
	/*
	 * The members older kernels declare as the synthetic type does:
	 * "K|TYPE|MEMBER" -> index into cur_oldest, the order position of
	 * the oldest kernel seen declaring it so (see current_variants()).
	 */
	struct smap cur_idx;
	uint32_t *cur_oldest;
	uint32_t nr_cur, cap_cur;
	/*
	 * Members of synthetic types that some older kernel's type lacks:
	 * "K|TYPE|MEMBER" -> order position of the youngest such kernel.
	 */
	struct smap absent;
	struct bc_text key;		/* scratch */
	const struct bc_log *log;
	/*
	 * --for: the type names whose flavors the program can name (see
	 * hdr_merge_older()); NULL: every type is compared. skipped: some
	 * type's comparison was left out.
	 */
	const struct smap *flavored;
	bool skipped;
};

/* The source of a copy: an older kernel and its ids already copied. */
struct copy_src {
	const struct btf *btf;
	uint32_t *memo;			/* by source id: synthetic id, 0: not yet */
};

/* "TAG:NAME" in y->key */
const char *hdr_make_key(struct synth *y, char tag, const char *name);
/* Registers synthetic type id under its kind and name, and its C identifiers. */
int hdr_note_type(struct synth *y, uint32_t id);
/* 0 when btf__resolve_size() can size type id, -1 when not (no warning) */
int hdr_sized(const struct btf *btf, uint32_t id);
/* The members of synthetic type id, anonymous ones looked through, by name. */
struct leaves *hdr_synth_leaves(struct synth *y, uint32_t id, int *err);
const struct leaf *hdr_find_leaf(const struct leaves *l, const char *name);
/* The variant of key (fresh: new, to be filled in), seen at order. */
struct variant *hdr_add_variant(struct synth *y, const char *key,
				uint32_t order, bool *fresh, int *err);
/* Counts src's kfuncs; copies those the synthetic BTF lacks when copy. */
int hdr_add_kfuncs(struct synth *y, struct copy_src *src, bool copy);
uint64_t hdr_mix_str(uint64_t h, const char *s);
/*
 * The signatures hdr_merge_older() keys an older kernel's types by, per
 * id (0: a type it does not key), as it computes them itself: for a
 * reader thread to compute ahead (NULL: out of memory).
 */
uint64_t *hdr_content_sigs(const struct btf *btf);
/*
 * Compares one older kernel with the synthetic BTF (pass 2), in an order
 * of its content alone (not its ids). sigs: hdr_content_sigs() of old,
 * or NULL (computed here); view: old is its part (orig: view ids).
 */
int hdr_merge_older(struct synth *y, const struct btf *old,
		    const struct bc_archive_view *view, uint64_t view_seed,
		    const uint32_t *orig, const uint64_t *sigs,
		    const char *label, uint32_t order);
/* hdr_merge_older() on an archive's kernel, through its view. */
int hdr_merge_older_view(struct synth *y, const struct hdr_kernel *k,
			 const struct bc_archive_view *view, uint64_t seed,
			 uint32_t order, const struct bc_log *log);
void hdr_fit_copied_sizes(struct synth *y);
void hdr_synth_deinit(struct synth *y);

#endif
