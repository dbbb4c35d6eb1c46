// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "strset.h"

static uint64_t str_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h ^ (h >> 29);
}

static const char *str_at(const struct bc_strset *set, uint32_t off)
{
	if (off < set->base_len)
		return set->base_strs + off;
	return set->buf + (off - set->base_len);
}

/* Slot holding s, or the empty slot where it would go. */
static uint32_t *find_slot(struct bc_strset *set, const char *s)
{
	uint32_t mask = set->nr_slots - 1, i = str_hash(s) & mask;

	for (;; i = (i + 1) & mask) {
		uint32_t *slot = &set->slots[i];

		if (!*slot || !strcmp(str_at(set, *slot - 1), s))
			return slot;
	}
}

static int grow_table(struct bc_strset *set)
{
	uint32_t *old = set->slots, old_nr = set->nr_slots, i;

	set->nr_slots = old_nr ? old_nr * 2 : 1024;
	set->slots = calloc(set->nr_slots, sizeof(*set->slots));
	if (!set->slots) {
		set->slots = old;
		set->nr_slots = old_nr;
		return -ENOMEM;
	}
	for (i = 0; i < old_nr; i++)
		if (old[i])
			*find_slot(set, str_at(set, old[i] - 1)) = old[i];
	free(old);
	return 0;
}

/* Records off as the offset of s unless s is already known. */
static int64_t insert(struct bc_strset *set, const char *s, uint32_t off,
		      bool *added)
{
	uint32_t *slot;

	if ((set->nr_used + 1) * 4 > set->nr_slots * 3 && grow_table(set))
		return -ENOMEM;
	slot = find_slot(set, s);
	*added = !*slot;
	if (*slot)
		return *slot - 1;
	*slot = off + 1;
	set->nr_used++;
	return off;
}

int bc_strset_init(struct bc_strset *set, const char *base_strs,
		   uint32_t base_len)
{
	uint32_t off;
	bool added;

	memset(set, 0, sizeof(*set));
	set->base_strs = base_strs;
	set->base_len = base_len;
	if (grow_table(set))
		return -ENOMEM;
	for (off = 0; off < base_len; off += strlen(base_strs + off) + 1)
		if (insert(set, base_strs + off, off, &added) < 0)
			return -ENOMEM;
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
	size_t n = strlen(s) + 1;
	int64_t off;
	bool added;

	if (set->len + n > set->cap) {
		uint32_t cap = set->cap ? set->cap : 4096;
		char *grown;

		while (cap < set->len + n)
			cap *= 2;
		grown = realloc(set->buf, cap);
		if (!grown)
			return -ENOMEM;
		set->buf = grown;
		set->cap = cap;
	}
	/* Stage the bytes so the table can compare against them. */
	memcpy(set->buf + set->len, s, n);
	off = insert(set, set->buf + set->len, set->base_len + set->len, &added);
	if (off >= 0 && added)
		set->len += n;
	return off;
}
