// SPDX-License-Identifier: GPL-2.0-only
/*
 * One lookup interface over a whole BTF and over an archive's view
 * (ktypes.h).
 *
 * A whole BTF is indexed by essential name in one pass: a hash table of
 * the distinct essential names, each with its types in id order (a list
 * through next[]), so the candidates of a root type are one walk, already
 * in id order (no sort: a kernel is read per column, and 118 kernels make
 * this pass count).
 *
 * A view decodes a record the first time it is asked for into an arena of
 * chunks (records never move, so pointers handed out stay valid) and
 * keeps where in a hash table by id. Names: the view finds (kind, name)
 * by exact name; an essential name N also matches the names N___flavor,
 * which the archive-wide flavor table lists, sorted by essential name.
 * Example: candidates of struct task_struct___old are the view's structs
 * named "task_struct", then those of the flavor table's entries whose
 * essential name is "task_struct" ("task_struct___x", if a kernel had
 * one), the ids merged in ascending order as libbpf takes them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../canon/btf_kinds.h"
#include "../canon/types.h"
#include "ktypes.h"

size_t bc_essential_len(const char *name)
{
	size_t n = strlen(name);
	ssize_t i;

	for (i = (ssize_t)n - 5; i >= 0; i--)
		if (name[i] != '_' && name[i + 1] == '_' && name[i + 2] == '_' &&
		    name[i + 3] == '_' && name[i + 4] != '_')
			return i + 1;
	return n;
}

static uint32_t name_hash(const char *name, size_t len)
{
	uint32_t h = 2166136261u;	/* FNV-1a */
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (uint8_t)name[i]) * 16777619u;
	return h;
}

/* ---- a whole BTF: the index by essential name ------------------------ */

struct index_group {
	const char *name;	/* the first type's name; NULL: empty slot */
	uint32_t len;		/* its essential length */
	uint32_t first, last;	/* ids: the list's ends */
};

struct ktypes_index {
	struct index_group *groups;
	uint32_t mask;		/* groups - 1, a power of two minus one */
	uint32_t *next;		/* [id - base]: the next id of its group, 0 */
	uint32_t base;		/* first id indexed */
};

/* The group of (name, len): found, or the empty slot where it goes. */
static struct index_group *index_slot(const struct ktypes_index *idx,
				      const char *name, size_t len)
{
	uint32_t i = name_hash(name, len) & idx->mask;

	for (;; i = (i + 1) & idx->mask) {
		struct index_group *g = &idx->groups[i];

		if (!g->name || (g->len == len && !memcmp(g->name, name, len)))
			return g;
	}
}

static void index_free(struct ktypes_index *idx)
{
	if (!idx)
		return;
	free(idx->groups);
	free(idx->next);
	free(idx);
}

static int index_new(const struct bc_btf *btf, struct ktypes_index **out)
{
	struct ktypes_index *idx;
	uint32_t id, end = bc_btf_end_id(btf), size = 16;
	uint32_t first = btf->base ? btf->start_id : 1;

	*out = NULL;
	/* at most half full: a slot per two types at least */
	while (size < 2 * (end - first + 1))
		size *= 2;
	idx = calloc(1, sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	idx->groups = calloc(size, sizeof(*idx->groups));
	idx->next = calloc(end > first ? end - first : 1, sizeof(*idx->next));
	if (!idx->groups || !idx->next) {
		index_free(idx);
		return -ENOMEM;
	}
	idx->mask = size - 1;
	idx->base = first;
	for (id = first; id < end; id++) {
		const char *name = bc_btf_str(btf, bc_btf_type(btf, id)->name_off);
		size_t len;
		struct index_group *g;

		if (!*name)
			continue;
		len = bc_essential_len(name);
		g = index_slot(idx, name, len);
		if (!g->name) {
			g->name = name;
			g->len = len;
			g->first = id;
		} else {
			idx->next[g->last - first] = id;
		}
		g->last = id;
	}
	*out = idx;
	return 0;
}

/* ---- an archive's flavored names ------------------------------------- */

struct flavored {
	const char *name;	/* the whole name, in the archive */
	uint32_t len;		/* its essential length */
	uint32_t kind;
};

struct bc_ktypes_flavors {
	struct flavored *names;	/* sorted by essential name */
	uint32_t nr;
};

static int flavored_cmp(const void *a, const void *b)
{
	const struct flavored *x = a, *y = b;
	int c = memcmp(x->name, y->name, x->len < y->len ? x->len : y->len);

	if (c)
		return c;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	c = strcmp(x->name, y->name);
	return c ? c : (x->kind > y->kind) - (x->kind < y->kind);
}

int bc_ktypes_flavors_new(const struct bc_archive *ar,
			  struct bc_ktypes_flavors **out)
{
	uint32_t i, n = bc_archive_nr_type_names(ar), cap = 0;
	struct bc_ktypes_flavors *fl = calloc(1, sizeof(*fl));

	*out = NULL;
	if (!fl)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		uint32_t kind;
		const char *name = bc_archive_type_name(ar, i, &kind);
		size_t len = bc_essential_len(name);

		if (!name[len])
			continue;
		if (fl->nr == cap) {
			struct flavored *grown;

			cap = cap ? 2 * cap : 16;
			grown = realloc(fl->names, cap * sizeof(*grown));
			if (!grown) {
				bc_ktypes_flavors_free(fl);
				return -ENOMEM;
			}
			fl->names = grown;
		}
		fl->names[fl->nr++] = (struct flavored){ name, (uint32_t)len, kind };
	}
	if (fl->nr)
		qsort(fl->names, fl->nr, sizeof(*fl->names), flavored_cmp);
	*out = fl;
	return 0;
}

void bc_ktypes_flavors_free(struct bc_ktypes_flavors *fl)
{
	if (!fl)
		return;
	free(fl->names);
	free(fl);
}

/* The first entry whose essential name is not below (name, len). */
static uint32_t flavors_lower(const struct bc_ktypes_flavors *fl,
			      const char *name, size_t len)
{
	uint32_t lo = 0, hi = fl->nr;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const struct flavored *f = &fl->names[mid];
		int c = memcmp(f->name, name, f->len < len ? f->len : len);

		if (c < 0 || (!c && f->len < len))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* ---- a view: records decoded on demand ------------------------------- */

#define CHUNK_WORDS 4096

struct cache_chunk {
	struct cache_chunk *next;
	uint32_t used, cap;	/* words */
	uint32_t words[];
};

struct cache_slot {
	uint32_t id;		/* 0: empty */
	const struct btf_type *t;
};

struct ktypes_cache {
	struct cache_slot *slots;
	uint32_t mask, nr;
	struct cache_chunk *chunks;	/* the newest first */
	int err;		/* the first error */
};

static void cache_free(struct ktypes_cache *c)
{
	if (!c)
		return;
	while (c->chunks) {
		struct cache_chunk *next = c->chunks->next;

		free(c->chunks);
		c->chunks = next;
	}
	free(c->slots);
	free(c);
}

static struct cache_slot *cache_slot(const struct ktypes_cache *c, uint32_t id)
{
	uint32_t i = (id * 2654435761u) & c->mask;

	while (c->slots[i].id && c->slots[i].id != id)
		i = (i + 1) & c->mask;
	return &c->slots[i];
}

static int cache_grow(struct ktypes_cache *c)
{
	struct ktypes_cache bigger = *c;
	uint32_t i;

	bigger.mask = 2 * (c->mask + 1) - 1;
	bigger.slots = calloc(bigger.mask + 1, sizeof(*bigger.slots));
	if (!bigger.slots)
		return -ENOMEM;
	for (i = 0; i <= c->mask; i++)
		if (c->slots[i].id)
			*cache_slot(&bigger, c->slots[i].id) = c->slots[i];
	free(c->slots);
	c->slots = bigger.slots;
	c->mask = bigger.mask;
	return 0;
}

/* Room for n words in the newest chunk, or a new chunk; NULL: no memory. */
static uint32_t *cache_room(struct ktypes_cache *c, uint32_t n)
{
	struct cache_chunk *ch = c->chunks;

	if (!ch || ch->cap - ch->used < n) {
		uint32_t cap = n > CHUNK_WORDS ? n : CHUNK_WORDS;

		ch = malloc(sizeof(*ch) + cap * sizeof(uint32_t));
		if (!ch)
			return NULL;
		ch->used = 0;
		ch->cap = cap;
		ch->next = c->chunks;
		c->chunks = ch;
	}
	return ch->words + ch->used;
}

static int cache_decode(const struct bc_ktypes *kt, uint32_t id,
			const struct btf_type **out)
{
	struct ktypes_cache *c = kt->cache;
	struct cache_slot *slot;
	uint32_t room = c->chunks ? c->chunks->cap - c->chunks->used : 0;
	uint32_t *words;
	int n;

	if (2 * (c->nr + 1) > c->mask + 1 && cache_grow(c))
		return -ENOMEM;
	words = c->chunks ? c->chunks->words + c->chunks->used : NULL;
	n = words ? bc_archive_view_type(kt->view, id, words, room) : 0;
	if (n < 0)
		return n;
	if (!words || (uint32_t)n > room) {
		/* too long for what is left: again in fresh room */
		words = cache_room(c, n ? (uint32_t)n : 2);
		if (!words)
			return -ENOMEM;
		n = bc_archive_view_type(kt->view, id, words,
					 c->chunks->cap - c->chunks->used);
		if (n < 0)
			return n;
	}
	c->chunks->used += n;
	slot = cache_slot(c, id);
	slot->id = id;
	slot->t = (const struct btf_type *)words;
	c->nr++;
	*out = slot->t;
	return 0;
}

/* ---- the interface ---------------------------------------------------- */

int bc_ktypes_init_btf(struct bc_ktypes *kt, const struct bc_btf *btf,
		       bool indexed)
{
	memset(kt, 0, sizeof(*kt));
	kt->btf = btf;
	return indexed ? index_new(btf, &kt->index) : 0;
}

int bc_ktypes_init_view(struct bc_ktypes *kt, struct bc_archive *ar,
			uint32_t k, const struct bc_ktypes_flavors *flavors,
			const struct bc_log *log)
{
	int err;

	memset(kt, 0, sizeof(*kt));
	kt->cache = calloc(1, sizeof(*kt->cache));
	if (kt->cache) {
		kt->cache->mask = 255;
		kt->cache->slots = calloc(kt->cache->mask + 1,
					  sizeof(*kt->cache->slots));
	}
	if (!kt->cache || !kt->cache->slots) {
		bc_ktypes_deinit(kt);
		return bc_log_error(log, -ENOMEM, "out of memory");
	}
	err = bc_archive_view_open(ar, k, &kt->view, log);
	if (err) {
		bc_ktypes_deinit(kt);
		return err;
	}
	kt->flavors = flavors;
	return 0;
}

void bc_ktypes_deinit(struct bc_ktypes *kt)
{
	index_free(kt->index);
	cache_free(kt->cache);
	bc_archive_view_free(kt->view);
	memset(kt, 0, sizeof(*kt));
}

uint32_t bc_ktypes_end_id(const struct bc_ktypes *kt)
{
	return kt->view ? bc_archive_view_nr_types(kt->view) + 1 :
	       bc_btf_end_id(kt->btf);
}

const struct btf_type *bc_ktypes_type(const struct bc_ktypes *kt, uint32_t id)
{
	const struct btf_type *t;
	struct cache_slot *slot;
	int err;

	if (!kt->view)
		return bc_btf_type(kt->btf, id);
	if (!id || id >= bc_ktypes_end_id(kt))
		return NULL;
	slot = cache_slot(kt->cache, id);
	if (slot->id)
		return slot->t;
	err = cache_decode(kt, id, &t);
	if (err) {
		if (!kt->cache->err)
			kt->cache->err = err;
		return NULL;
	}
	return t;
}

const char *bc_ktypes_str(const struct bc_ktypes *kt, uint32_t str)
{
	return kt->view ? bc_archive_view_str(kt->view, str) :
	       bc_btf_str(kt->btf, str);
}

uint32_t bc_ktypes_word_after(const struct bc_ktypes *kt,
			      const struct btf_type *t)
{
	const uint8_t *p = (const uint8_t *)(t + 1);
	const struct bc_btf *btf = kt->btf;
	uint32_t w;

	if (kt->view)
		return bc_type_words(t) > 2 ? ((const uint32_t *)t)[2] : 0;
	if (p < btf->data || p + 4 > btf->data + btf->size)
		return 0;
	memcpy(&w, p, 4);
	return w;
}

const struct btf_type *bc_ktypes_type_of(const void *kt, uint32_t id)
{
	return bc_ktypes_type(kt, id);
}

const struct btf_type *bc_ktypes_skip_mods(const struct bc_ktypes *kt,
					   uint32_t *id)
{
	return bc_skip_mods_read(bc_ktypes_type_of, kt, id, true);
}

uint32_t bc_ktypes_find(const struct bc_ktypes *kt, uint32_t kind,
			const char *name)
{
	const struct index_group *g;
	uint32_t id;

	if (kt->view)
		return bc_archive_view_find(kt->view, kind, name, &id, 1) ? id : 0;
	if (!kt->index)
		return 0;
	g = index_slot(kt->index, name, bc_essential_len(name));
	for (id = g->name ? g->first : 0; id; id = kt->index->next[id - kt->index->base]) {
		const struct btf_type *t = bc_btf_type(kt->btf, id);

		if (bc_type_kind(t) == kind &&
		    !strcmp(bc_btf_str(kt->btf, t->name_off), name))
			return id;
	}
	return 0;
}

/* Appends the view's types of (kind, name) to ids[*nr ..), counting all. */
static void view_add(const struct bc_ktypes *kt, uint32_t kind,
		     const char *name, uint32_t *ids, uint32_t max,
		     uint32_t *nr)
{
	uint32_t room = *nr < max ? max - *nr : 0;

	*nr += bc_archive_view_find(kt->view, kind, name,
				    room ? ids + *nr : NULL, room);
}

static int id_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static uint32_t view_cands(const struct bc_ktypes *kt, uint32_t kinds,
			   const char *name, size_t len, uint32_t *ids,
			   uint32_t max)
{
	const struct bc_ktypes_flavors *fl = kt->flavors;
	char small[128], *exact = len < sizeof(small) ? small : malloc(len + 1);
	uint32_t nr = 0, kind, i;

	if (!exact) {
		kt->cache->err = kt->cache->err ? kt->cache->err : -ENOMEM;
		return 0;
	}
	memcpy(exact, name, len);
	exact[len] = '\0';
	for (kind = 0; kind < 32; kind++)
		if (kinds & (1u << kind))
			view_add(kt, kind, exact, ids, max, &nr);
	for (i = fl ? flavors_lower(fl, name, len) : 0;
	     fl && i < fl->nr && fl->names[i].len == len &&
	     !memcmp(fl->names[i].name, name, len); i++)
		if (kinds & (1u << fl->names[i].kind))
			view_add(kt, fl->names[i].kind, fl->names[i].name, ids,
				 max, &nr);
	if (exact != small)
		free(exact);
	if (nr > 1 && nr <= max)
		qsort(ids, nr, sizeof(*ids), id_cmp);
	return nr;
}

uint32_t bc_ktypes_cands(const struct bc_ktypes *kt, uint32_t kinds,
			 const char *name, size_t len, uint32_t *ids,
			 uint32_t max)
{
	const struct index_group *g;
	uint32_t id, nr = 0;

	if (kt->view)
		return view_cands(kt, kinds, name, len, ids, max);
	if (!kt->index)
		return 0;
	g = index_slot(kt->index, name, len);
	for (id = g->name ? g->first : 0; id; id = kt->index->next[id - kt->index->base]) {
		if (!(kinds & (1u << bc_type_kind(bc_btf_type(kt->btf, id)))))
			continue;
		if (nr < max)
			ids[nr] = id;
		nr++;
	}
	return nr;
}

bool bc_ktypes_same_record(const struct bc_ktypes *a, uint32_t a_id,
			   const struct bc_ktypes *b, uint32_t b_id)
{
	return a->view && b->view &&
	       bc_archive_view_same_record(a->view, a_id, b->view, b_id);
}

int bc_ktypes_error(const struct bc_ktypes *kt)
{
	return kt->cache ? kt->cache->err : 0;
}

uint32_t bc_ktypes_nr_decoded(const struct bc_ktypes *kt)
{
	return kt->cache ? kt->cache->nr : 0;
}
