/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The layout of every BTF kind, in one table indexed by BTF_KIND_*.
 *
 * Every BTF type record is a sequence of little 32-bit words:
 *
 *	w[0]            name_off                        (a string)
 *	w[1]            info: kind, vlen, kflag
 *	w[2]            size or type                    (data or a type id)
 *	w[3 .. 3+F)     F fixed words                   (INT encoding, ARRAY, VAR, ...)
 *	then vlen entries of M words each               (members, params, ...)
 *
 * The table says, for each kind, how many words there are and which of them
 * are type ids (references) and which are string offsets. From that one fact
 * every pass derives what it needs: the validator finds ids and offsets to
 * range-check, canon reads the reference list and the local data, the rebuild
 * remaps ids and strings, the listing prints them. No pass keeps its own
 * per-kind switch.
 */
#ifndef BTFCANON_BTF_KINDS_H
#define BTFCANON_BTF_KINDS_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/btf.h>

#define BC_NR_KINDS (BTF_KIND_ENUM64 + 1)

/* What one word of a type record holds. */
enum bc_word_class {
	BC_WORD_NAME,	/* a string offset */
	BC_WORD_INFO,	/* kind, vlen, kflag */
	BC_WORD_REF,	/* a type id */
	BC_WORD_DATA,	/* anything else: sizes, offsets, values, linkage */
};

struct bc_kind_layout {
	const char *name;	  /* "STRUCT", as bpftool prints it */
	bool valid;		  /* false for BTF_KIND_UNKN */
	bool head_ref;		  /* w[2] is a type id (else a size or 0) */
	bool vlen_entries;	  /* vlen counts entries (FUNC: vlen is linkage) */
	uint8_t fixed_words;	  /* F */
	uint8_t fixed_ref_mask;	  /* bit i set: fixed word i is a type id */
	uint8_t entry_words;	  /* M */
	uint8_t entry_ref_mask;	  /* bit i set: entry word i is a type id */
	uint8_t entry_name_mask;  /* bit i set: entry word i is a string offset */
	const char *entry_what;	  /* "member", "param", ... for messages */
};

extern const struct bc_kind_layout bc_kinds[BC_NR_KINDS];

/*
 * The info word as of 2026: vlen in bits 0-23, kind in bits 24-30, kflag in
 * bit 31 (older headers said vlen 0-15 and kind 24-28, with the bits between
 * unused and zero, so every BTF written before reads the same).
 */
static inline uint32_t bc_info_kind(uint32_t info) { return (info >> 24) & 0x7f; }
static inline uint32_t bc_info_vlen(uint32_t info) { return info & 0xffffff; }
static inline uint32_t bc_info_kflag(uint32_t info) { return info >> 31; }

static inline uint32_t bc_type_kind(const struct btf_type *t)
{
	return bc_info_kind(t->info);
}

static inline uint32_t bc_type_vlen(const struct btf_type *t)
{
	return bc_info_vlen(t->info);
}

static inline bool bc_kind_valid(uint32_t kind)
{
	return kind < BC_NR_KINDS && bc_kinds[kind].valid;
}

/* Number of entries that follow the fixed part (0 for kinds without). */
static inline uint32_t bc_type_entries(const struct btf_type *t)
{
	const struct bc_kind_layout *k = &bc_kinds[bc_type_kind(t)];

	return k->vlen_entries ? bc_type_vlen(t) : 0;
}

/* Number of 32-bit words in the record; the kind must be valid. */
static inline uint32_t bc_type_words(const struct btf_type *t)
{
	const struct bc_kind_layout *k = &bc_kinds[bc_type_kind(t)];

	return 3 + k->fixed_words + k->entry_words * bc_type_entries(t);
}

/* Class of word j of a record of the given (valid) kind. */
static inline enum bc_word_class bc_word_class(uint32_t kind, uint32_t j)
{
	const struct bc_kind_layout *k = &bc_kinds[kind];
	uint32_t e;

	if (j == 0)
		return BC_WORD_NAME;
	if (j == 1)
		return BC_WORD_INFO;
	if (j == 2)
		return k->head_ref ? BC_WORD_REF : BC_WORD_DATA;
	j -= 3;
	if (j < k->fixed_words)
		return (k->fixed_ref_mask >> j) & 1 ? BC_WORD_REF : BC_WORD_DATA;
	/*
	 * Entries are 2 or 3 words: a division by a constant is a multiply,
	 * by a variable a slow divide, and this runs for every word of
	 * every record in the parser, canon's comparisons and the rebuild.
	 */
	j -= k->fixed_words;
	e = k->entry_words == 3 ? j % 3 : k->entry_words == 2 ? j % 2 :
	    j % k->entry_words;
	if ((k->entry_ref_mask >> e) & 1)
		return BC_WORD_REF;
	if ((k->entry_name_mask >> e) & 1)
		return BC_WORD_NAME;
	return BC_WORD_DATA;
}

/*
 * Class of word i (< entry_words) of every entry of kind k: loops that walk
 * a record as its head words (bc_word_class) and then entry by entry need
 * no per-word arithmetic.
 */
static inline enum bc_word_class bc_entry_word_class(const struct bc_kind_layout *k,
						     uint32_t i)
{
	if ((k->entry_ref_mask >> i) & 1)
		return BC_WORD_REF;
	if ((k->entry_name_mask >> i) & 1)
		return BC_WORD_NAME;
	return BC_WORD_DATA;
}

/* Number of type-id words in t (depends on kind and vlen only). */
uint32_t bc_type_nr_refs(const struct btf_type *t);

/*
 * Copies t's type ids into refs[] in the canonical reference order: w[2],
 * fixed words, entries in declared order (word order). Returns the count.
 */
uint32_t bc_type_refs(const struct btf_type *t, uint32_t *refs);

/*
 * The kth word of class cls of the record at w, in word order, or NULL
 * past the last (or for a kind the table does not know). cls is
 * BC_WORD_REF (the order of bc_type_refs) or BC_WORD_NAME (word 0, then
 * the entries' names). For passes that rewrite ids or string offsets in
 * place without a switch of their own on the kind.
 */
uint32_t *bc_type_word_of_class(uint32_t *w, enum bc_word_class cls, uint32_t k);

/*
 * One entry of the kind layout section (2026): for a kind, the bytes of its
 * fixed part after the 12-byte head and of each of its vlen entries. The
 * UAPI's struct btf_layout; Debian's <linux/btf.h> predates it.
 */
struct bc_btf_layout {
	uint8_t info_sz;
	uint8_t elem_sz;
	uint16_t flags;		/* unused so far; kept as read */
};

/*
 * The layout entry of a known kind, derived from bc_kinds[] (FUNC's vlen
 * is its linkage, so it has no entries). Entry 0 (UNKN) is all zero. This
 * is what pahole (through libbpf) writes for kinds 0 .. BC_NR_KINDS-1.
 */
struct bc_btf_layout bc_kind_btf_layout(uint32_t kind);

/* Name of a kind for messages; "UNKNOWN(n)" style is up to the caller. */
static inline const char *bc_kind_name(uint32_t kind)
{
	return bc_kind_valid(kind) ? bc_kinds[kind].name : "UNKNOWN";
}

#endif
