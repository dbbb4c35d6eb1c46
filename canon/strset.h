/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A string section under construction: each distinct string is stored
 * once, in order of first addition, and keeps the offset it got then.
 *
 * For split BTF the set can be seeded with the base's strings: a string
 * the base already holds resolves to the base's offset and is not stored
 * again, which is what libbpf and the kernel expect of module BTF. Seeding
 * costs a pass over every base string; canon's rebuild of split BTF
 * instead starts the set over an unindexed base (bc_strset_init_over) and
 * looks its few strings up in the base with one scan (bc_strset_find).
 *
 * The table keeps each string's hash next to its offset, so a probe
 * compares bytes only on a full hash match and growing never rehashes.
 */
#ifndef BTFCANON_STRSET_H
#define BTFCANON_STRSET_H

#include <stddef.h>
#include <stdint.h>

struct bc_strset_slot {
	uint32_t off1;		/* offset + 1; 0: empty */
	uint32_t hash;
};

struct bc_strset {
	const char *base_strs;	/* base string section, or NULL */
	uint32_t base_len;	/* its length; own offsets start here */
	char *buf;		/* own strings, NUL-separated */
	uint32_t len, cap;
	struct bc_strset_slot *slots;	/* open addressing, power of two */
	uint32_t nr_slots, nr_used;
};

/*
 * base_strs/base_len: the strings of the base (all of them, base-of-base
 * included, contiguous), or NULL/0 for base BTF, in which case the empty
 * string is placed at offset 0. Returns 0 or -ENOMEM.
 */
int bc_strset_init(struct bc_strset *set, const char *base_strs,
		   uint32_t base_len);

/*
 * A set whose own strings start at offset base_len, over a base that is
 * not indexed: bc_strset_add() stores every string, even one the base
 * holds. Returns 0 or -ENOMEM.
 */
int bc_strset_init_over(struct bc_strset *set, uint32_t base_len);

void bc_strset_deinit(struct bc_strset *set);

/* Room for n more strings without growing the table. 0 or -ENOMEM. */
int bc_strset_reserve(struct bc_strset *set, uint32_t n);

/* Returns the string's offset (>= 0) or -ENOMEM. */
int64_t bc_strset_add(struct bc_strset *set, const char *s);

/* The offset of s, or -1 when the set does not hold it. Read-only. */
int64_t bc_strset_find(const struct bc_strset *set, const char *s);

/* The hash the set uses, for callers that probe many strings. */
uint32_t bc_strset_hash(const char *s, size_t len);

/* As bc_strset_find, with s's length and hash already known. */
int64_t bc_strset_find_hashed(const struct bc_strset *set, const char *s,
			      size_t len, uint32_t hash);

#endif
