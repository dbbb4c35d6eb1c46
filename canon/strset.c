// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "strset.h"

/*
 * Eight bytes a step (loads through memcpy: no alignment assumed, no read
 * past the string's end), a final multiply-xor mix. Strings here are
 * identifiers; the low bits pick the slot, the whole value filters
 * compares.
 */
uint32_t bc_strset_hash(const char *s, size_t len)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ len, w;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		memcpy(&w, s + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	if (i < len) {
		w = 0;
		memcpy(&w, s + i, len - i);
		h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
	}
	h ^= h >> 29;
	h *= 0xff51afd7ed558ccdULL;
	return h ^ (h >> 32);
}

static const char *str_at(const struct bc_strset *set, uint32_t off)
{
	if (off < set->base_len)
		return set->base_strs + off;
	return set->buf + (off - set->base_len);
}

/* Slot holding s (len bytes, hash h), or the empty slot where it would go. */
static struct bc_strset_slot *find_slot(const struct bc_strset *set,
					const char *s, size_t len, uint32_t h)
{
	uint32_t mask = set->nr_slots - 1, i = h & mask;

	for (;; i = (i + 1) & mask) {
		struct bc_strset_slot *slot = &set->slots[i];

		if (!slot->off1)
			return slot;
		if (slot->hash == h &&
		    !memcmp(str_at(set, slot->off1 - 1), s, len + 1))
			return slot;
	}
}

static int resize_table(struct bc_strset *set, uint32_t nr_slots)
{
	struct bc_strset_slot *old = set->slots;
	uint32_t old_nr = set->nr_slots, i;

	set->slots = calloc(nr_slots, sizeof(*set->slots));
	if (!set->slots) {
		set->slots = old;
		return -ENOMEM;
	}
	set->nr_slots = nr_slots;
	for (i = 0; i < old_nr; i++) {
		uint32_t j;

		if (!old[i].off1)
			continue;
		/* hashes are kept: no string is read again */
		for (j = old[i].hash & (nr_slots - 1); set->slots[j].off1;
		     j = (j + 1) & (nr_slots - 1))
			;
		set->slots[j] = old[i];
	}
	free(old);
	return 0;
}

int bc_strset_reserve(struct bc_strset *set, uint32_t n)
{
	uint64_t need = ((uint64_t)set->nr_used + n) * 4 / 3 + 1;
	uint64_t nr = set->nr_slots ? set->nr_slots : 1024;

	while (nr < need)
		nr *= 2;
	if (nr > UINT32_MAX / 2)
		return -ENOMEM;
	return nr == set->nr_slots ? 0 : resize_table(set, nr);
}

/* Records off as the offset of s unless s is already known. */
static int64_t insert(struct bc_strset *set, const char *s, size_t len,
		      uint32_t off, bool *added)
{
	struct bc_strset_slot *slot;
	uint32_t h = bc_strset_hash(s, len);

	if ((set->nr_used + 1) * 4 > set->nr_slots * 3 &&
	    resize_table(set, set->nr_slots * 2))
		return -ENOMEM;
	slot = find_slot(set, s, len, h);
	*added = !slot->off1;
	if (slot->off1)
		return slot->off1 - 1;
	slot->off1 = off + 1;
	slot->hash = h;
	set->nr_used++;
	return off;
}

int bc_strset_init_over(struct bc_strset *set, uint32_t base_len)
{
	memset(set, 0, sizeof(*set));
	set->base_len = base_len;
	return resize_table(set, 1024);
}

int bc_strset_init(struct bc_strset *set, const char *base_strs,
		   uint32_t base_len)
{
	uint32_t off, nr = 0;
	bool added;

	if (bc_strset_init_over(set, base_len))
		return -ENOMEM;
	set->base_strs = base_strs;
	for (off = 0; off < base_len; off++)
		nr += !base_strs[off];
	if (bc_strset_reserve(set, nr))
		return -ENOMEM;
	for (off = 0; off < base_len;) {
		size_t len = strlen(base_strs + off);

		if (insert(set, base_strs + off, len, off, &added) < 0)
			return -ENOMEM;
		off += len + 1;
	}
	if (!base_strs && bc_strset_add(set, "") < 0)
		return -ENOMEM;
	return 0;
}

void bc_strset_deinit(struct bc_strset *set)
{
	free(set->buf);
	free(set->slots);
	memset(set, 0, sizeof(*set));
}

int64_t bc_strset_add(struct bc_strset *set, const char *s)
{
	size_t len = strlen(s), n = len + 1;
	int64_t off;
	bool added;

	if (set->len + n > set->cap) {
		uint64_t cap = set->cap ? set->cap : 4096;
		char *grown;

		while (cap < set->len + n)
			cap *= 2;
		if (cap > UINT32_MAX)
			return -ENOMEM;
		grown = realloc(set->buf, cap);
		if (!grown)
			return -ENOMEM;
		set->buf = grown;
		set->cap = cap;
	}
	/* Stage the bytes so the table can compare against them. */
	memcpy(set->buf + set->len, s, n);
	off = insert(set, set->buf + set->len, len, set->base_len + set->len,
		     &added);
	if (off >= 0 && added)
		set->len += n;
	return off;
}

int64_t bc_strset_find_hashed(const struct bc_strset *set, const char *s,
			      size_t len, uint32_t hash)
{
	const struct bc_strset_slot *slot = find_slot(set, s, len, hash);

	return slot->off1 ? (int64_t)slot->off1 - 1 : -1;
}

int64_t bc_strset_find(const struct bc_strset *set, const char *s)
{
	size_t len = strlen(s);

	return bc_strset_find_hashed(set, s, len, bc_strset_hash(s, len));
}
