// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "strmap.h"

static inline uint32_t popcount64(uint64_t x)
{
#ifdef __POPCNT__
	return __builtin_popcountll(x);
#else
	/* libgcc's fallback is a call and a table; this is a few operations */
	x -= (x >> 1) & 0x5555555555555555ULL;
	x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (x * 0x0101010101010101ULL) >> 56;
#endif
}

/* Numbers the input's strings: one bit per start, a count per block. */
static int number_strings(struct bc_strmap *m, uint32_t *nr_strings)
{
	uint32_t nr_blocks = m->in_len / 64 + 1, b, off, count = 0;

	m->blocks = malloc(nr_blocks * sizeof(*m->blocks));
	if (!m->blocks)
		return -ENOMEM;
	memset(m->blocks, 0, nr_blocks * sizeof(*m->blocks));
	for (off = 0; off < m->in_len; off += strlen(m->in + off) + 1)
		m->blocks[off / 64].starts |= 1ULL << (off % 64);
	for (b = 0; b < nr_blocks; b++) {
		m->blocks[b].before = count;
		count += popcount64(m->blocks[b].starts);
	}
	*nr_strings = count;
	return 0;
}

static int resize_slots(struct bc_strmap *m, uint32_t nr_slots)
{
	struct bc_strset_slot *old = m->slots;
	uint32_t old_nr = m->nr_slots, i, j;

	m->slots = malloc(nr_slots * sizeof(*m->slots));
	if (!m->slots) {
		m->slots = old;
		return -ENOMEM;
	}
	memset(m->slots, 0, nr_slots * sizeof(*m->slots));
	m->nr_slots = nr_slots;
	for (i = 0; i < old_nr; i++) {
		if (!old[i].off1)
			continue;
		for (j = old[i].hash & (nr_slots - 1); m->slots[j].off1;
		     j = (j + 1) & (nr_slots - 1))
			;
		m->slots[j] = old[i];
	}
	free(old);
	return 0;
}

int bc_strmap_init(struct bc_strmap *m, const char *in, uint32_t in_len,
		   size_t reserve, bool by_content)
{
	uint32_t nr_strings, nr_slots = 1024;

	memset(m, 0, sizeof(*m));
	m->in = in;
	m->in_len = in_len;
	m->reserved = reserve;
	m->by_content = by_content;
	if (number_strings(m, &nr_strings))
		return -ENOMEM;
	m->nr_strings = nr_strings;
	/* written before read: no page is faulted twice (calloc's would be) */
	m->placed = malloc((nr_strings ? nr_strings : 1) * sizeof(*m->placed));
	if (!m->placed)
		return -ENOMEM;
	memset(m->placed, 0, nr_strings * sizeof(*m->placed));
	while (nr_slots < UINT32_MAX / 4 && nr_slots / 4 * 3 <= nr_strings)
		nr_slots *= 2;
	if (by_content && resize_slots(m, nr_slots))
		return -ENOMEM;
	/* each number is placed once: at most nr_strings fresh strings */
	m->fresh = by_content ? NULL :
		   malloc((nr_strings ? nr_strings : 1) * sizeof(*m->fresh));
	if (!by_content && !m->fresh)
		return -ENOMEM;
	/* the output strings are at most the input's unless offsets overlap */
	m->cap = reserve + (size_t)in_len + 1;
	m->buf = malloc(m->cap);
	if (!m->buf)
		return -ENOMEM;
	m->buf[reserve] = '\0';		/* the empty string, at 0 */
	m->len = 1;
	return 0;
}

void bc_strmap_deinit(struct bc_strmap *m)
{
	free(m->blocks);
	free(m->placed);
	free(m->fresh);
	free(m->slots);
	free(m->buf);
	memset(m, 0, sizeof(*m));
}

/* Appends s (len bytes and its NUL) to the output; returns its offset. */
static int64_t append(struct bc_strmap *m, const char *s, size_t len)
{
	size_t need = m->reserved + m->len + len + 1;
	uint32_t off = m->len;

	if ((uint64_t)m->len + len + 1 > UINT32_MAX)
		return -ENOMEM;
	if (need > m->cap) {
		size_t cap = m->cap * 2 > need ? m->cap * 2 : need;
		uint8_t *grown = realloc(m->buf, cap);

		if (!grown)
			return -ENOMEM;
		m->buf = grown;
		m->cap = cap;
	}
	memcpy(m->buf + m->reserved + off, s, len + 1);
	m->len += len + 1;
	return off;
}

/* The output offset of the string s, by content; placed when new. */
static int64_t map_content(struct bc_strmap *m, const char *s)
{
	size_t len = strlen(s);
	uint32_t h, mask, i;
	int64_t off;

	if (!len)
		return 0;
	h = bc_strset_hash(s, len);
	for (;;) {
		mask = m->nr_slots - 1;
		for (i = h & mask; m->slots[i].off1; i = (i + 1) & mask) {
			const struct bc_strset_slot *slot = &m->slots[i];

			if (slot->hash == h &&
			    !memcmp(m->buf + m->reserved + slot->off1 - 1, s,
				    len + 1))
				return slot->off1 - 1;
		}
		if ((m->nr_used + 1) * 4 <= (uint64_t)m->nr_slots * 3)
			break;
		if (m->nr_slots > UINT32_MAX / 4 ||
		    resize_slots(m, m->nr_slots * 2))
			return -ENOMEM;
	}
	off = append(m, s, len);
	if (off < 0)
		return off;
	m->slots[i].off1 = off + 1;
	m->slots[i].hash = h;
	m->nr_used++;
	return off;
}

/*
 * Places the string s as a new one, trusting it is (by number), and notes
 * its hash and offset for bc_strmap_check_unique() while its bytes are at
 * hand.
 */
static int64_t place_new(struct bc_strmap *m, const char *s)
{
	size_t len = strlen(s);
	int64_t off;

	if (!len)
		return 0;
	off = append(m, s, len);
	if (off >= 0)
		m->fresh[m->nr_fresh++] = (uint64_t)bc_strset_hash(s, len) << 32 | off;
	return off;
}

int64_t bc_strmap_map(struct bc_strmap *m, uint32_t in_off)
{
	const struct bc_strmap_block *blk = &m->blocks[in_off / 64];
	uint64_t bit = 1ULL << (in_off % 64);
	uint32_t nr;
	int64_t off;

	if (!(blk->starts & bit))	/* inside a longer string */
		return m->by_content ? map_content(m, m->in + in_off) : -EAGAIN;
	nr = blk->before + popcount64(blk->starts & (bit - 1));
	if (m->placed[nr])
		return m->placed[nr] - 1;
	off = m->by_content ? map_content(m, m->in + in_off) :
			      place_new(m, m->in + in_off);
	if (off >= 0)
		m->placed[nr] = off + 1;
	return off;
}

/*
 * The hashes of the output strings (noted as they were placed) bucketed
 * by their top bits with one counting pass (sequential reads, scattered
 * writes: no chain of dependent loads as in a table), then each small
 * bucket sorted and its neighbours compared.
 */
int bc_strmap_check_unique(struct bc_strmap *m)
{
	const char *strs = (const char *)m->buf + m->reserved;
	uint32_t nr = m->nr_fresh, i, shift, nr_buckets = 1, *end;
	uint64_t *sorted;
	int err = 0;

	if (m->by_content)
		return 0;
	while (nr_buckets < nr / 4 && nr_buckets < (1U << 20))
		nr_buckets *= 2;
	shift = 32 - __builtin_ctz(nr_buckets);
	end = calloc(nr_buckets + 1, sizeof(*end));
	sorted = malloc((nr ? nr : 1) * sizeof(*sorted));
	if (!end || !sorted) {
		err = -ENOMEM;
		goto out;
	}
#define BUCKET(v) (shift < 32 ? (uint32_t)((v) >> 32) >> shift : 0)
	for (i = 0; i < nr; i++)
		end[BUCKET(m->fresh[i]) + 1]++;
	for (i = 1; i <= nr_buckets; i++)
		end[i] += end[i - 1];
	for (i = 0; i < nr; i++)
		sorted[end[BUCKET(m->fresh[i])]++] = m->fresh[i];
#undef BUCKET
	/* end[b] is now the end of bucket b */
	for (i = 0; i < nr_buckets && !err; i++) {
		uint32_t from = i ? end[i - 1] : 0, to = end[i], a, b;

		for (a = from + 1; a < to; a++) {	/* insertion sort */
			uint64_t v = sorted[a];

			for (b = a; b > from && sorted[b - 1] > v; b--)
				sorted[b] = sorted[b - 1];
			sorted[b] = v;
		}
		for (a = from + 1; a < to && !err; a++) {
			/* equal hashes: the run's members against this one */
			for (b = a; b > from && sorted[b - 1] >> 32 == sorted[a] >> 32; b--)
				if (!strcmp(strs + (uint32_t)sorted[b - 1],
					    strs + (uint32_t)sorted[a]))
					err = -EAGAIN;
		}
	}
out:
	free(end);
	free(sorted);
	return err;
}
