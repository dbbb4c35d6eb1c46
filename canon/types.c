// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>

#include "btf_kinds.h"
#include "types.h"

const struct btf_type *bc_skip_mods_read(bc_type_reader read, const void *src,
					 uint32_t *id, bool typedefs)
{
	const struct btf_type *t;

	for (;;) {
		t = read(src, *id);
		if (!t)
			return NULL;
		switch (bc_type_kind(t)) {
		case BTF_KIND_TYPEDEF:
			if (!typedefs)
				return t;
			/* fall through */
		case BTF_KIND_CONST:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
			*id = t->type;
			break;
		default:
			return t;
		}
	}
}

static const struct btf_type *read_btf(const void *btf, uint32_t id)
{
	return bc_btf_type(btf, id);
}

const struct btf_type *bc_skip_mods(const struct bc_btf *btf, uint32_t *id,
				    bool typedefs)
{
	return bc_skip_mods_read(read_btf, btf, id, typedefs);
}

const char *bc_tag_keyword(const struct btf_type *t)
{
	switch (bc_type_kind(t)) {
	case BTF_KIND_STRUCT:
		return "struct";
	case BTF_KIND_UNION:
		return "union";
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		return "enum";
	case BTF_KIND_FWD:
		return bc_info_kflag(t->info) ? "union" : "struct";
	default:
		return NULL;
	}
}

const char *bc_first_entry_name(const struct bc_btf *btf,
				const struct btf_type *t)
{
	const struct bc_kind_layout *k = &bc_kinds[bc_type_kind(t)];

	/*
	 * Members and enumerators start with name_off. Kinds without named
	 * entries have none, whatever their vlen says (an INT may carry a
	 * vlen the parser leaves alone: found by fuzz_diff).
	 */
	if (!bc_type_entries(t) || !(k->entry_name_mask & 1))
		return "";
	return bc_btf_str(btf, ((const uint32_t *)t)[3 + k->fixed_words]);
}

bool *bc_referenced_types(const struct bc_btf *btf, bool skip_decl_tags)
{
	bool *referenced = calloc(bc_btf_end_id(btf), sizeof(*referenced));
	uint32_t i, j;

	if (!referenced)
		return NULL;
	for (i = 0; i < btf->nr_types; i++) {
		if (skip_decl_tags &&
		    bc_type_kind(bc_btf_local(btf, i)) == BTF_KIND_DECL_TAG)
			continue;
		for (j = btf->ref_start[i]; j < btf->ref_start[i + 1]; j++)
			referenced[btf->refs[j]] = true;
	}
	return referenced;
}

/* The type a wrapper stands for, or 0 when t is not an anonymous wrapper. */
static uint32_t wrapped_type(const struct btf_type *t)
{
	switch (bc_type_kind(t)) {
	case BTF_KIND_PTR:
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		return t->type ? t->type : UINT32_MAX;
	case BTF_KIND_ARRAY:
		return ((const struct btf_array *)(t + 1))->type ?: UINT32_MAX;
	default:
		return 0;
	}
}

uint32_t *bc_use_counts_read(bc_type_reader read, const void *src,
			     uint32_t nr_ids, uint32_t first, uint32_t end)
{
	uint32_t *uses = calloc(nr_ids ? nr_ids : 1, sizeof(*uses));
	uint32_t id, j;

	if (!uses)
		return NULL;
	for (id = first ? first : 1; id < end && id < nr_ids; id++) {
		const struct btf_type *t = read(src, id);
		const uint32_t *words = (const uint32_t *)t;
		uint32_t kind;

		if (!t || !bc_kind_valid(kind = bc_type_kind(t)) ||
		    wrapped_type(t))
			continue;
		for (j = 0; j < bc_type_words(t); j++) {
			uint32_t to = words[j], depth = 0;

			if (bc_word_class(kind, j) != BC_WORD_REF)
				continue;
			/* the chain of wrappers down to the named type */
			while (to && to < nr_ids && depth++ < 64) {
				const struct btf_type *w = read(src, to);
				uint32_t next;

				uses[to]++;
				if (!w || !bc_kind_valid(bc_type_kind(w)) ||
				    !(next = wrapped_type(w)))
					break;
				to = next == UINT32_MAX ? 0 : next;
			}
		}
	}
	return uses;
}

uint32_t *bc_use_counts(const struct bc_btf *btf)
{
	return bc_use_counts_read(read_btf, btf, bc_btf_end_id(btf),
				  btf->start_id, bc_btf_end_id(btf));
}
