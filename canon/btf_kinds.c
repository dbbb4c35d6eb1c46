// SPDX-License-Identifier: GPL-2.0-only
#include <stddef.h>

#include "btf_kinds.h"

/* Layout facts from the BTF format (include/uapi/linux/btf.h). */
const struct bc_kind_layout bc_kinds[BC_NR_KINDS] = {
	[BTF_KIND_UNKN]     = { .name = "UNKNOWN" },
	[BTF_KIND_INT]      = { .name = "INT", .valid = true, .fixed_words = 1 },
	[BTF_KIND_PTR]      = { .name = "PTR", .valid = true, .head_ref = true },
	/* struct btf_array { type, index_type, nelems } */
	[BTF_KIND_ARRAY]    = { .name = "ARRAY", .valid = true,
				.fixed_words = 3, .fixed_ref_mask = 0x3 },
	/* struct btf_member { name_off, type, offset } */
	[BTF_KIND_STRUCT]   = { .name = "STRUCT", .valid = true, .vlen_entries = true,
				.entry_words = 3, .entry_name_mask = 0x1,
				.entry_ref_mask = 0x2, .entry_what = "member" },
	[BTF_KIND_UNION]    = { .name = "UNION", .valid = true, .vlen_entries = true,
				.entry_words = 3, .entry_name_mask = 0x1,
				.entry_ref_mask = 0x2, .entry_what = "member" },
	/* struct btf_enum { name_off, val } */
	[BTF_KIND_ENUM]     = { .name = "ENUM", .valid = true, .vlen_entries = true,
				.entry_words = 2, .entry_name_mask = 0x1,
				.entry_what = "enumerator" },
	[BTF_KIND_FWD]      = { .name = "FWD", .valid = true },
	[BTF_KIND_TYPEDEF]  = { .name = "TYPEDEF", .valid = true, .head_ref = true },
	[BTF_KIND_VOLATILE] = { .name = "VOLATILE", .valid = true, .head_ref = true },
	[BTF_KIND_CONST]    = { .name = "CONST", .valid = true, .head_ref = true },
	[BTF_KIND_RESTRICT] = { .name = "RESTRICT", .valid = true, .head_ref = true },
	/* FUNC: vlen is the linkage, not a count */
	[BTF_KIND_FUNC]     = { .name = "FUNC", .valid = true, .head_ref = true },
	/* struct btf_param { name_off, type } */
	[BTF_KIND_FUNC_PROTO] = { .name = "FUNC_PROTO", .valid = true, .head_ref = true,
				  .vlen_entries = true, .entry_words = 2,
				  .entry_name_mask = 0x1, .entry_ref_mask = 0x2,
				  .entry_what = "param" },
	/* struct btf_var { linkage } */
	[BTF_KIND_VAR]      = { .name = "VAR", .valid = true, .head_ref = true,
				.fixed_words = 1 },
	/* struct btf_var_secinfo { type, offset, size } */
	[BTF_KIND_DATASEC]  = { .name = "DATASEC", .valid = true, .vlen_entries = true,
				.entry_words = 3, .entry_ref_mask = 0x1,
				.entry_what = "variable" },
	[BTF_KIND_FLOAT]    = { .name = "FLOAT", .valid = true },
	/* struct btf_decl_tag { component_idx } */
	[BTF_KIND_DECL_TAG] = { .name = "DECL_TAG", .valid = true, .head_ref = true,
				.fixed_words = 1 },
	[BTF_KIND_TYPE_TAG] = { .name = "TYPE_TAG", .valid = true, .head_ref = true },
	/* struct btf_enum64 { name_off, val_lo32, val_hi32 } */
	[BTF_KIND_ENUM64]   = { .name = "ENUM64", .valid = true, .vlen_entries = true,
				.entry_words = 3, .entry_name_mask = 0x1,
				.entry_what = "enumerator" },
};

/* Bits set in a mask of at most 8 bits (no libgcc call without -mpopcnt). */
static uint32_t bits_set(uint8_t mask)
{
	uint32_t n = 0;

	for (; mask; mask &= mask - 1)
		n++;
	return n;
}

uint32_t bc_type_nr_refs(const struct btf_type *t)
{
	const struct bc_kind_layout *k = &bc_kinds[bc_type_kind(t)];

	return k->head_ref + bits_set(k->fixed_ref_mask) +
	       bits_set(k->entry_ref_mask) * bc_type_entries(t);
}

uint32_t bc_type_refs(const struct btf_type *t, uint32_t *refs)
{
	const struct bc_kind_layout *k = &bc_kinds[bc_type_kind(t)];
	const uint32_t *w = (const uint32_t *)t;
	uint32_t n = 0, i, e, nr_entries = bc_type_entries(t);
	const uint32_t *entry;

	if (k->head_ref)
		refs[n++] = w[2];
	for (i = 0; i < k->fixed_words; i++)
		if ((k->fixed_ref_mask >> i) & 1)
			refs[n++] = w[3 + i];
	if (!k->entry_ref_mask)
		return n;
	entry = w + 3 + k->fixed_words;
	for (e = 0; e < nr_entries; e++, entry += k->entry_words)
		for (i = 0; i < k->entry_words; i++)
			if ((k->entry_ref_mask >> i) & 1)
				refs[n++] = entry[i];
	return n;
}

uint32_t *bc_type_word_of_class(uint32_t *w, enum bc_word_class cls, uint32_t k)
{
	uint32_t kind = bc_type_kind((const struct btf_type *)w), i, per, e;
	const struct bc_kind_layout *kl;
	uint8_t fixed_mask, entry_mask;

	if (!bc_kind_valid(kind))
		return NULL;
	kl = &bc_kinds[kind];
	if (cls == BC_WORD_NAME) {
		fixed_mask = 0;
		entry_mask = kl->entry_name_mask;
		if (!k--)
			return &w[0];
	} else {
		fixed_mask = kl->fixed_ref_mask;
		entry_mask = kl->entry_ref_mask;
		if (kl->head_ref && !k--)
			return &w[2];
	}
	for (i = 0; i < kl->fixed_words; i++)
		if ((fixed_mask >> i) & 1 && !k--)
			return &w[3 + i];
	per = bits_set(entry_mask);
	if (!per || (e = k / per) >= bc_type_entries((const struct btf_type *)w))
		return NULL;
	k %= per;
	for (i = 0; i < kl->entry_words; i++)
		if ((entry_mask >> i) & 1 && !k--)
			break;
	return &w[3 + kl->fixed_words + e * kl->entry_words + i];
}

struct bc_btf_layout bc_kind_btf_layout(uint32_t kind)
{
	const struct bc_kind_layout *k = &bc_kinds[kind];
	struct bc_btf_layout l = { 0 };

	if (!bc_kind_valid(kind))
		return l;
	l.info_sz = k->fixed_words * 4;
	l.elem_sz = k->vlen_entries ? k->entry_words * 4 : 0;
	return l;
}
