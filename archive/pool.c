// SPDX-License-Identifier: GPL-2.0-only
/*
 * The archive's pools: growable buffers and varints, hash tables of pool
 * numbers, and the strings, (kind, name) pairs and records every kernel
 * shares, each stored once and found by content when a kernel is added.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "internal.h"

/* ---- growable buffers ------------------------------------------------ */

int ar_buf_reserve(struct ar_buf *b, size_t more)
{
	size_t cap = b->cap ? b->cap : 4096;
	uint8_t *p;

	if (b->len + more <= b->cap)
		return 0;
	while (cap < b->len + more)
		cap *= 2;
	p = realloc(b->data, cap);
	if (!p)
		return -ENOMEM;
	b->data = p;
	b->cap = cap;
	return 0;
}

int ar_buf_put(struct ar_buf *b, const void *data, size_t len)
{
	int err = ar_buf_reserve(b, len);

	if (err)
		return err;
	if (len)
		memcpy(b->data + b->len, data, len);
	b->len += len;
	return 0;
}

int ar_buf_varint(struct ar_buf *b, uint64_t v)
{
	int err = ar_buf_reserve(b, 10);

	if (err)
		return err;
	while (v >= 0x80) {
		b->data[b->len++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b->data[b->len++] = (uint8_t)v;
	return 0;
}

/* Reads a varint at *pos below end; -1 when it runs past end or 64 bits. */
int ar_get_varint(const uint8_t *data, size_t end, size_t *pos, uint64_t *v)
{
	unsigned shift = 0;

	if (__builtin_expect(*pos < end && data[*pos] < 0x80, 1)) {
		*v = data[(*pos)++];	/* most are one byte */
		return 0;
	}
	*v = 0;
	while (*pos < end && shift < 64) {
		uint8_t byte = data[(*pos)++];

		*v |= (uint64_t)(byte & 0x7f) << shift;
		if (!(byte & 0x80))
			return 0;
		shift += 7;
	}
	return -1;
}

void *ar_alloc_big(size_t size)
{
	const size_t huge = 2u << 20, big = 1u << 20;
	size_t rounded = (size + huge - 1) & ~(huge - 1);
	void *p;

	if (size < big || rounded < size)
		return malloc(size ? size : 1);
	if (posix_memalign(&p, huge, rounded))
		return NULL;
	/* Linux' madvise mode; nothing where there are no huge pages */
	(void)madvise(p, rounded, MADV_HUGEPAGE);
	return p;
}

bool ar_name_ok(const char *name)
{
	return *name && !strchr(name, '/') && !strchr(name, ':') &&
	       strlen(name) < 256;
}

void *ar_calloc_big(size_t n, size_t size)
{
	const size_t huge = 2u << 20;
	uint8_t *p = calloc(n ? n : 1, size ? size : 1);
	uintptr_t from, to;

	/*
	 * A large calloc is fresh pages, faulted in where first touched: the
	 * 2 MiB-aligned part of it may be huge pages, one fault each instead
	 * of 512 (a reader of one kernel of many touches a third of its
	 * tables, a region at a time)
	 */
	if (p && n * size >= 2 * huge) {
		from = ((uintptr_t)p + huge - 1) & ~(uintptr_t)(huge - 1);
		to = ((uintptr_t)p + n * size) & ~(uintptr_t)(huge - 1);
		if (to > from)
			(void)madvise((void *)from, to - from, MADV_HUGEPAGE);
	}
	return p;
}

int ar_u32vec_push(struct u32vec *v, uint32_t x)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 1024;
		uint32_t *p = realloc(v->v, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		v->v = p;
		v->cap = cap;
	}
	v->v[v->n++] = x;
	return 0;
}

/* ---- hash tables of pool numbers ------------------------------------- */

static uint32_t hash_words(const uint32_t *w, size_t n, uint64_t seed)
{
	uint64_t h = seed ^ (n * 0x9e3779b97f4a7c15ull);
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ w[i]) * 0xff51afd7ed558ccdull;
	h ^= h >> 29;
	return (uint32_t)(h ^ (h >> 32));
}

static uint32_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (uint8_t)s[i]) * 0x100000001b3ull;
	h ^= h >> 31;
	return (uint32_t)(h ^ (h >> 32));
}

/* slot: hash << 32 | (number + 1); 0 is empty */
static int idtab_grow(struct idtab *t)
{
	uint32_t nr = t->nr_slots ? t->nr_slots * 2 : 1024, i;
	uint64_t *slots = calloc(nr, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < t->nr_slots; i++) {
		uint64_t s = t->slots[i];
		uint32_t j;

		if (!s)
			continue;
		for (j = (uint32_t)(s >> 32) & (nr - 1); slots[j]; j = (j + 1) & (nr - 1))
			;
		slots[j] = s;
	}
	free(t->slots);
	t->slots = slots;
	t->nr_slots = nr;
	return 0;
}

void ar_idtab_free(struct idtab *t)
{
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

/*
 * The slot where hash's entry equal to the key is, or the empty slot to
 * put it in; eq compares number id with the key.
 */
static uint64_t *idtab_probe(struct idtab *t, uint32_t hash,
			     bool (*eq)(const struct bc_archive *, uint32_t,
					const void *),
			     const struct bc_archive *ar, const void *key)
{
	uint32_t j;

	for (j = hash & (t->nr_slots - 1); t->slots[j]; j = (j + 1) & (t->nr_slots - 1))
		if ((uint32_t)(t->slots[j] >> 32) == hash &&
		    eq(ar, (uint32_t)t->slots[j] - 1, key))
			return &t->slots[j];
	return &t->slots[j];
}

static int idtab_room(struct idtab *t)
{
	return 2 * (t->nr_used + 1) > t->nr_slots ? idtab_grow(t) : 0;
}

/* ---- the pools --------------------------------------------------------- */

struct str_key {
	const char *s;
	uint32_t len;
};

static bool str_eq(const struct bc_archive *ar, uint32_t id, const void *key)
{
	const struct str_key *k = key;

	return ar->strs[id].len == k->len && !memcmp(ar->strs[id].s, k->s, k->len);
}

static bool kn_eq(const struct bc_archive *ar, uint32_t id, const void *key)
{
	const struct ar_kn *k = key;

	return ar->kns[id].kind == k->kind && ar->kns[id].sid == k->sid;
}

struct rec_key {
	const uint32_t *cells;
	uint32_t n;
};

static bool rec_eq(const struct bc_archive *ar, uint32_t id, const void *key)
{
	const struct rec_key *k = key;

	return ar->rec_off[id + 1] - ar->rec_off[id] == k->n &&
	       !memcmp(ar->cells + ar->rec_off[id], k->cells, k->n * 4);
}

static char *arena_copy(struct bc_archive *ar, const char *s, size_t len)
{
	char *p;

	if (!ar->arena || ar->arena_used + len + 1 > ar->arena_cap) {
		size_t cap = len + 1 > (1u << 20) ? len + 1 : 1u << 20;
		struct ar_chunk *c = malloc(sizeof(*c) + cap);

		if (!c)
			return NULL;
		c->next = ar->arena;
		ar->arena = c;
		ar->arena_used = 0;
		ar->arena_cap = cap;
	}
	p = ar->arena->bytes + ar->arena_used;
	memcpy(p, s, len);
	p[len] = 0;
	ar->arena_used += len + 1;
	return p;
}

int ar_push_str(struct bc_archive *ar, const char *s, uint32_t len)
{
	if (ar->nr_strs == ar->cap_strs) {
		uint32_t cap = ar->cap_strs ? ar->cap_strs * 2 : 4096;
		struct ar_str *p = realloc(ar->strs, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		ar->strs = p;
		ar->cap_strs = cap;
	}
	ar->strs[ar->nr_strs].s = s;
	ar->strs[ar->nr_strs].len = len;
	ar->nr_strs++;
	return 0;
}

int ar_push_kn(struct bc_archive *ar, uint32_t kind, uint32_t sid)
{
	if (ar->nr_kns == ar->cap_kns) {
		uint32_t cap = ar->cap_kns ? ar->cap_kns * 2 : 4096;
		struct ar_kn *p = realloc(ar->kns, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		ar->kns = p;
		ar->cap_kns = cap;
	}
	ar->kns[ar->nr_kns].kind = kind;
	ar->kns[ar->nr_kns].sid = sid;
	ar->nr_kns++;
	return 0;
}

/* Appends a record of n cells; rec_off keeps nr_recs + 1 entries. */
int ar_push_rec(struct bc_archive *ar, const uint32_t *cells, uint32_t n)
{
	if (ar->nr_cells + n > ar->cap_cells) {
		size_t cap = ar->cap_cells ? ar->cap_cells : 1 << 16;
		uint32_t *p;

		while (cap < ar->nr_cells + n)
			cap *= 2;
		p = realloc(ar->cells, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		ar->cells = p;
		ar->cap_cells = cap;
	}
	if (ar->nr_recs + 2 > ar->cap_recs) {
		uint32_t cap = ar->cap_recs ? ar->cap_recs * 2 : 4096;
		uint32_t *p = realloc(ar->rec_off, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		ar->rec_off = p;
		ar->cap_recs = cap;
	}
	if (ar->nr_cells + n > UINT32_MAX)
		return -E2BIG;
	memcpy(ar->cells + ar->nr_cells, cells, n * 4);
	ar->rec_off[ar->nr_recs] = (uint32_t)ar->nr_cells;
	ar->nr_cells += n;
	ar->nr_recs++;
	ar->rec_off[ar->nr_recs] = (uint32_t)ar->nr_cells;
	return 0;
}

/* Builds the tables that find a string or a (kind, name) by content. */
int ar_index_names(struct bc_archive *ar)
{
	uint32_t i;
	int err = 0;

	if (ar->names_indexed)
		return 0;
	for (i = 0; i < ar->nr_strs && !err; i++) {
		struct str_key key = { ar->strs[i].s, ar->strs[i].len };
		uint32_t h = hash_bytes(key.s, key.len);
		uint64_t *slot;

		err = idtab_room(&ar->str_tab);
		if (err)
			break;
		slot = idtab_probe(&ar->str_tab, h, str_eq, ar, &key);
		if (!*slot) {
			*slot = (uint64_t)h << 32 | (i + 1);
			ar->str_tab.nr_used++;
		}
	}
	for (i = 0; i < ar->nr_kns && !err; i++) {
		uint32_t h = hash_words(&ar->kns[i].kind, 2, 1);
		uint64_t *slot;

		err = idtab_room(&ar->kn_tab);
		if (err)
			break;
		slot = idtab_probe(&ar->kn_tab, h, kn_eq, ar, &ar->kns[i]);
		if (!*slot) {
			*slot = (uint64_t)h << 32 | (i + 1);
			ar->kn_tab.nr_used++;
		}
	}
	ar->names_indexed = !err;
	return err;
}

/* Adds the table that finds a record by content (the records are cells). */
int ar_index_pools(struct bc_archive *ar)
{
	uint32_t i;
	int err = ar_index_names(ar);

	if (err || ar->indexed)
		return err;
	for (i = 0; i < ar->nr_recs && !err; i++) {
		struct rec_key key = { ar->cells + ar->rec_off[i],
				       ar->rec_off[i + 1] - ar->rec_off[i] };
		uint32_t h = hash_words(key.cells, key.n, 2);
		uint64_t *slot;

		err = idtab_room(&ar->rec_tab);
		if (err)
			break;
		slot = idtab_probe(&ar->rec_tab, h, rec_eq, ar, &key);
		if (!*slot) {
			*slot = (uint64_t)h << 32 | (i + 1);
			ar->rec_tab.nr_used++;
		}
	}
	ar->indexed = !err;
	return err;
}

/* The number of string s, added when new; negative errno. */
int64_t ar_intern_str(struct bc_archive *ar, const char *s)
{
	struct str_key key = { s, (uint32_t)strlen(s) };
	uint32_t h = hash_bytes(s, key.len);
	uint64_t *slot;
	char *copy;
	int err = idtab_room(&ar->str_tab);

	if (err)
		return err;
	slot = idtab_probe(&ar->str_tab, h, str_eq, ar, &key);
	if (*slot)
		return (uint32_t)*slot - 1;
	copy = arena_copy(ar, s, key.len);
	if (!copy || ar_push_str(ar, copy, key.len))
		return -ENOMEM;
	*slot = (uint64_t)h << 32 | ar->nr_strs;
	ar->str_tab.nr_used++;
	return ar->nr_strs - 1;
}

int64_t ar_intern_kn(struct bc_archive *ar, uint32_t kind, uint32_t sid)
{
	struct ar_kn key = { kind, sid };
	uint32_t h = hash_words(&key.kind, 2, 1);
	uint64_t *slot;
	int err = idtab_room(&ar->kn_tab);

	if (err)
		return err;
	slot = idtab_probe(&ar->kn_tab, h, kn_eq, ar, &key);
	if (*slot)
		return (uint32_t)*slot - 1;
	if (ar_push_kn(ar, kind, sid))
		return -ENOMEM;
	*slot = (uint64_t)h << 32 | ar->nr_kns;
	ar->kn_tab.nr_used++;
	return ar->nr_kns - 1;
}

int64_t ar_intern_rec(struct bc_archive *ar, const uint32_t *cells,
			  uint32_t n)
{
	struct rec_key key = { cells, n };
	uint32_t h = hash_words(cells, n, 2);
	uint64_t *slot;
	int err = idtab_room(&ar->rec_tab);

	if (err)
		return err;
	slot = idtab_probe(&ar->rec_tab, h, rec_eq, ar, &key);
	if (*slot)
		return (uint32_t)*slot - 1;
	err = ar_push_rec(ar, cells, n);
	if (err)
		return err;
	*slot = (uint64_t)h << 32 | ar->nr_recs;
	ar->rec_tab.nr_used++;
	return ar->nr_recs - 1;
}

