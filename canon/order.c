// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <string.h>

#include "order.h"
#include "btf_kinds.h"

int bc_order_parse(const char *text, enum bc_order *order)
{
	if (!strcmp(text, "kind"))
		*order = BC_ORDER_KIND;
	else if (!strcmp(text, "name"))
		*order = BC_ORDER_NAME;
	else
		return -EINVAL;
	return 0;
}

const char *bc_order_name(enum bc_order order)
{
	return order == BC_ORDER_NAME ? "name" : "kind";
}

static int cmp_u32(uint32_t a, uint32_t b)
{
	return (a > b) - (a < b);
}

static int cmp_s64(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

/*
 * Compares one vlen entry (or the fixed words) of a and b word by word:
 * data words as unsigned numbers, string words by content, references
 * skipped. This is the default for every kind.
 */
static int cmp_words(const struct bc_btf *btf, uint32_t kind,
		     const uint32_t *wa, const uint32_t *wb, uint32_t from,
		     uint32_t to)
{
	uint32_t j;
	int c;

	for (j = from; j < to; j++) {
		switch (bc_word_class(kind, j)) {
		case BC_WORD_DATA:
			c = cmp_u32(wa[j], wb[j]);
			break;
		case BC_WORD_NAME:
			c = wa[j] == wb[j] ? 0 :
			    strcmp(bc_btf_str(btf, wa[j]), bc_btf_str(btf, wb[j]));
			break;
		default:
			c = 0;
		}
		if (c)
			return c;
	}
	return 0;
}

/*
 * cmp_words() over nr entries of kind k starting at ea and eb, entry by
 * entry (no per-word class arithmetic: this is the hot part of a tie).
 */
static int cmp_entries(const struct bc_btf *btf, const struct bc_kind_layout *k,
		       const uint32_t *ea, const uint32_t *eb, uint32_t nr)
{
	uint32_t e, i;
	int c;

	for (e = 0; e < nr; e++, ea += k->entry_words, eb += k->entry_words) {
		for (i = 0; i < k->entry_words; i++) {
			switch (bc_entry_word_class(k, i)) {
			case BC_WORD_DATA:
				c = cmp_u32(ea[i], eb[i]);
				break;
			case BC_WORD_NAME:
				c = ea[i] == eb[i] ? 0 :
				    strcmp(bc_btf_str(btf, ea[i]),
					   bc_btf_str(btf, eb[i]));
				break;
			default:
				c = 0;
			}
			if (c)
				return c;
		}
	}
	return 0;
}

/* ENUM entries: name, then value (signed when kflag is set). */
static int cmp_enum_entry(const struct bc_btf *btf, bool is_signed,
			  const uint32_t *ea, const uint32_t *eb)
{
	int c = strcmp(bc_btf_str(btf, ea[0]), bc_btf_str(btf, eb[0]));

	if (c)
		return c;
	if (is_signed)
		return cmp_s64((int32_t)ea[1], (int32_t)eb[1]);
	return cmp_u32(ea[1], eb[1]);
}

/* ENUM64 entries: name, then the 64-bit value made of lo32 and hi32. */
static int cmp_enum64_entry(const struct bc_btf *btf, bool is_signed,
			    const uint32_t *ea, const uint32_t *eb)
{
	uint64_t va = ((uint64_t)ea[2] << 32) | ea[1];
	uint64_t vb = ((uint64_t)eb[2] << 32) | eb[1];
	int c = strcmp(bc_btf_str(btf, ea[0]), bc_btf_str(btf, eb[0]));

	if (c)
		return c;
	return is_signed ? cmp_s64((int64_t)va, (int64_t)vb) : cmp_u64(va, vb);
}

typedef int (*entry_cmp_fn)(const struct bc_btf *btf, bool is_signed,
			    const uint32_t *ea, const uint32_t *eb);

/* Kinds whose entries are not compared word by word. */
static const entry_cmp_fn entry_cmp[BC_NR_KINDS] = {
	[BTF_KIND_ENUM] = cmp_enum_entry,
	[BTF_KIND_ENUM64] = cmp_enum64_entry,
};

static int cmp_name(const struct bc_btf *btf, const struct btf_type *a,
		    const struct btf_type *b)
{
	if (a->name_off == b->name_off)
		return 0;
	return strcmp(bc_btf_str(btf, a->name_off), bc_btf_str(btf, b->name_off));
}

int bc_order_cmp_local(enum bc_order order, const struct bc_btf *btf,
		       const struct btf_type *a, const struct btf_type *b)
{
	const uint32_t *wa = (const uint32_t *)a, *wb = (const uint32_t *)b;
	uint32_t kind = bc_type_kind(a), e, nr_entries, head;
	const struct bc_kind_layout *k;
	int c;

	if (order == BC_ORDER_NAME && (c = cmp_name(btf, a, b)))
		return c;
	if ((c = cmp_u32(kind, bc_type_kind(b))))
		return c;
	if ((c = cmp_u32(bc_type_vlen(a), bc_type_vlen(b))))
		return c;
	if (order == BC_ORDER_KIND && (c = cmp_name(btf, a, b)))
		return c;
	if ((c = cmp_u32(bc_info_kflag(a->info), bc_info_kflag(b->info))))
		return c;

	k = &bc_kinds[kind];
	head = 3 + k->fixed_words;
	if ((c = cmp_words(btf, kind, wa, wb, 2, head)))
		return c;
	nr_entries = bc_type_entries(a);
	if (!entry_cmp[kind])
		return cmp_entries(btf, k, wa + head, wb + head, nr_entries);
	for (e = 0; e < nr_entries; e++) {
		uint32_t at = head + e * k->entry_words;

		c = entry_cmp[kind](btf, bc_info_kflag(a->info), wa + at, wb + at);
		if (c)
			return c;
	}
	return 0;
}
