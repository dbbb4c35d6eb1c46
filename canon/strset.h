/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A string section under construction: each distinct string is stored
 * once, in order of first addition, and keeps the offset it got then.
 *
 * For split BTF the set is seeded with the base's strings: a string the
 * base already holds resolves to the base's offset and is not stored
 * again, which is what libbpf and the kernel expect of module BTF.
 */
#ifndef BTFCANON_STRSET_H
#define BTFCANON_STRSET_H

#include <stddef.h>
#include <stdint.h>

struct bc_strset {
	const char *base_strs;	/* base string section, or NULL */
	uint32_t base_len;	/* its length; own offsets start here */
	char *buf;		/* own strings, NUL-separated */
	uint32_t len, cap;
	uint32_t *slots;	/* open addressing: offset + 1, 0 is empty */
	uint32_t nr_slots, nr_used;
};

/*
 * base_strs/base_len: the strings of the base (all of them, base-of-base
 * included, contiguous), or NULL/0 for base BTF, in which case the empty
 * string is placed at offset 0. Returns 0 or -ENOMEM.
 */
int bc_strset_init(struct bc_strset *set, const char *base_strs,
		   uint32_t base_len);
void bc_strset_deinit(struct bc_strset *set);

/* Returns the string's offset (>= 0) or -ENOMEM. */
int64_t bc_strset_add(struct bc_strset *set, const char *s);

#endif
