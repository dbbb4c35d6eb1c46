// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel archive: many kernels' BTF in one file (archive.h is the
 * contract; DESIGN.md "The kernel archive" the design).
 *
 * The problem. 118 Debian kernels hold 12.8 M types, yet few of those
 * types differ from kernel to kernel. Byte-level compression finds little
 * of that, because every type id and string offset shifts from one kernel
 * to the next; structural identity (canon's classes) finds little either,
 * because one changed struct makes every type that reaches it different.
 * What does repeat is a type's record with its references taken by name:
 * `struct sock *` is the same pointer in every kernel that has a struct
 * sock, whatever struct sock holds there.
 *
 * The record of a type, by name ("cells", u32 each):
 *	info word, kn + 1 (0 when anonymous), then the record's words after
 *	the head's name and info: a data word as it is, a name word as a
 *	string number, a reference as a code: 0 void; 1 + 2 * rec for an
 *	anonymous type (rec: the number of its own record); 2 + 2 * kn then
 *	k for a named type.
 * kn numbers a (kind, name) pair; k is the type's rank among the types of
 * that kind and name in its kernel, in canonical order (two `struct foo`
 * in one kernel are k 0 and 1). Worked example, kernel with
 *	[1] INT int, [2] PTR -> [3], [3] STRUCT s { int a; struct s *next; }
 * kn0 = (INT, "int"), kn1 = (STRUCT, "s");
 *	rec0 = INT  kn0+1 | size 4, encoding
 *	rec1 = PTR  0     | ref 2+2*1, k 0          (pointer to struct s #0)
 *	rec2 = STRUCT kn1+1 | size, "a", ref 2+2*0, k 0, off 0, "next", ref 1+2*1, off 64
 * The kernel is the list rec0 rec1 rec2. Anonymous types are addressed by
 * their content, found first by a depth-first walk (anonymous referents
 * before referrers); a loop through anonymous types only has no such
 * order and the kernel is then stored as its bytes. Canonical BTF has no
 * two identical anonymous types, so in one kernel an anonymous record
 * stands for exactly one type.
 *
 * Rebuilding a kernel (build_raw) is the reverse: its list gives each
 * type's id (position + 1), the named ones' (kn, k) and the anonymous
 * ones' record map back to ids, every record is written with ids, and
 * strings are laid out in order of first use as canon's rebuild lays them.
 * Every kernel added is rebuilt at once and compared with its bytes; a
 * kernel that does not come back byte for byte is stored as bytes.
 *
 * The file (all integers little-endian):
 *	"BTFCARC1", u32 version 1, u32 flags 0, u64 body bytes, u64 payload
 *	bytes, payload (one zstd frame of the body), u32 CRC-32 of all that
 *	precedes it. Nothing may follow.
 * The body, in LEB128 varints:
 *	strings:  count, then each: length, bytes, NUL    (string 0 is "")
 *	kinds+names: count, then each: kind, string
 *	records:  count, then each: kind|kflag<<7, vlen, kn+1 or 0, words
 *	kernels:  count, then each in version order: name (length, bytes),
 *	          flags (bit 0: stored as bytes), then bytes (length, bytes)
 *	          or parent + 1 (0: none), type count, script (length, bytes);
 *	          layout entries (count, 4 bytes each), attachments (count,
 *	          then name, length, bytes, names ascending)
 * A script lists a kernel's records as copies of a run of its parent's
 * list (length << 1 | 1, then the start's distance from where the last
 * copy ended, zigzag) and literals (count << 1, then each record number
 * as its distance from the last literal + 1, zigzag: records are numbered
 * by first use, so a kernel's new records count up by one).
 *
 * Determinism: records, names and strings are numbered by first use in
 * kernel order (version order), then the records' own order; parents are
 * chosen by similarity over that order. Nothing depends on the order in
 * which kernels were added. Cost: adding a kernel is linear in its types
 * plus a rewrite of the file; serializing is linear in all lists.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>
#include <zstd.h>

#include "../canon/canon.h"
#include "../diff/input.h"
#include "../sort/btf_file.h"
#include "archive.h"
#include "archive_internal.h"

#define HEADER_LEN 32
#define TRAILER_LEN 4
#define FORMAT_VERSION 1
#define ZSTD_LEVEL 5
#define FLAG_RAW 1u
/* choose_parents() compares kernels on every PARENT_SAMPLE-th record */
#define PARENT_SAMPLE 64

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

static uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static int64_t unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* Reads a varint at *pos below end; -1 when it runs past end or 64 bits. */
int ar_get_varint(const uint8_t *data, size_t end, size_t *pos, uint64_t *v)
{
	unsigned shift = 0;

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

static int u32vec_push(struct u32vec *v, uint32_t x)
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

static void idtab_free(struct idtab *t)
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

static int push_str(struct bc_archive *ar, const char *s, uint32_t len)
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

static int push_kn(struct bc_archive *ar, uint32_t kind, uint32_t sid)
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
static int push_rec(struct bc_archive *ar, const uint32_t *cells, uint32_t n)
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

int64_t ar_find_kn(const struct bc_archive *ar, uint32_t kind, const char *name)
{
	struct str_key skey = { name, (uint32_t)strlen(name) };
	struct ar_kn key = { kind, 0 };
	uint64_t *slot;
	uint32_t h;

	if (!ar->str_tab.nr_slots || !ar->kn_tab.nr_slots)
		return -ENOENT;
	slot = idtab_probe((struct idtab *)&ar->str_tab, hash_bytes(name, skey.len),
			   str_eq, ar, &skey);
	if (!*slot)
		return -ENOENT;
	key.sid = (uint32_t)*slot - 1;
	h = hash_words(&key.kind, 2, 1);
	slot = idtab_probe((struct idtab *)&ar->kn_tab, h, kn_eq, ar, &key);
	return *slot ? (int64_t)((uint32_t)*slot - 1) : -ENOENT;
}

/* Adds the table that finds a record by content. */
static int index_pools(struct bc_archive *ar)
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
static int64_t intern_str(struct bc_archive *ar, const char *s)
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
	if (!copy || push_str(ar, copy, key.len))
		return -ENOMEM;
	*slot = (uint64_t)h << 32 | ar->nr_strs;
	ar->str_tab.nr_used++;
	return ar->nr_strs - 1;
}

static int64_t intern_kn(struct bc_archive *ar, uint32_t kind, uint32_t sid)
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
	if (push_kn(ar, kind, sid))
		return -ENOMEM;
	*slot = (uint64_t)h << 32 | ar->nr_kns;
	ar->kn_tab.nr_used++;
	return ar->nr_kns - 1;
}

static int64_t intern_rec(struct bc_archive *ar, const uint32_t *cells,
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
	err = push_rec(ar, cells, n);
	if (err)
		return err;
	*slot = (uint64_t)h << 32 | ar->nr_recs;
	ar->rec_tab.nr_used++;
	return ar->nr_recs - 1;
}

/* Word count of a record whose info word is info (kind valid). */
static uint32_t info_words(uint32_t info)
{
	struct btf_type t = { .info = info };

	return bc_type_words(&t);
}

/* ---- archive object ---------------------------------------------------- */

static void kernel_deinit(struct ar_kernel *k)
{
	uint32_t i;

	free(k->name);
	free(k->blob);
	free(k->recs);
	free(k->layout);
	for (i = 0; i < k->nr_att; i++) {
		free(k->att[i].name);
		free(k->att[i].data);
	}
	free(k->att);
	free(k->att_names);
	memset(k, 0, sizeof(*k));
}

int bc_archive_new(struct bc_archive **out)
{
	struct bc_archive *ar = calloc(1, sizeof(*ar));

	*out = NULL;
	if (!ar || push_str(ar, "", 0)) {
		free(ar);
		return -ENOMEM;
	}
	ar->path = strdup("archive");
	if (!ar->path) {
		bc_archive_free(ar);
		return -ENOMEM;
	}
	*out = ar;
	return 0;
}

void bc_archive_free(struct bc_archive *ar)
{
	uint32_t i;

	if (!ar)
		return;
	for (i = 0; i < ar->nr_kernels; i++)
		kernel_deinit(&ar->kernels[i]);
	free(ar->kernels);
	while (ar->arena) {
		struct ar_chunk *next = ar->arena->next;

		free(ar->arena);
		ar->arena = next;
	}
	idtab_free(&ar->str_tab);
	idtab_free(&ar->kn_tab);
	idtab_free(&ar->rec_tab);
	free(ar->strs);
	free(ar->kns);
	free(ar->cells);
	free(ar->rec_off);
	free(ar->body);
	free(ar->path);
	free(ar);
}

uint32_t bc_archive_nr_kernels(const struct bc_archive *ar)
{
	return ar->nr_kernels;
}

const char *bc_archive_kernel_name(const struct bc_archive *ar, uint32_t k)
{
	return k < ar->nr_kernels ? ar->kernels[k].name : NULL;
}

int bc_archive_find_kernel(const struct bc_archive *ar, const char *name)
{
	uint32_t lo = 0, hi = ar->nr_kernels;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = bc_archive_name_cmp(ar->kernels[mid].name, name);

		if (!c)
			return (int)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -ENOENT;
}

int bc_archive_match(const struct bc_archive *ar, const char *glob,
		     uint32_t **idx, uint32_t *nr)
{
	uint32_t i;

	*nr = 0;
	*idx = malloc((ar->nr_kernels + 1) * sizeof(**idx));
	if (!*idx)
		return -ENOMEM;
	for (i = 0; i < ar->nr_kernels; i++)
		if (!fnmatch(glob, ar->kernels[i].name, 0))
			(*idx)[(*nr)++] = i;
	return 0;
}

/* ---- a kernel's list of records ---------------------------------------- */

/*
 * Decodes kernel k's script against its parent's list (decoded first,
 * down the chain from its root). Every copy must lie inside the parent's
 * list, every literal name a record.
 */
static int decode_one(struct bc_archive *ar, struct ar_kernel *k)
{
	const struct ar_kernel *p = k->parent >= 0 ? &ar->kernels[k->parent] : NULL;
	const uint32_t *plist = p ? p->recs : NULL;
	uint64_t np = p ? p->nr_types : 0, expect = 0, last = 0, i = 0;
	size_t pos = 0;
	uint32_t *list;

	if (k->nr_types > np + k->script_len)
		return -EINVAL;
	list = malloc(((size_t)k->nr_types + 1) * sizeof(*list));
	if (!list)
		return -ENOMEM;
	while (pos < k->script_len) {
		uint64_t op, len, v, j;
		int64_t d;

		if (ar_get_varint(k->script, k->script_len, &pos, &op))
			goto bad;
		len = op >> 1;
		if (!len || len > k->nr_types - i)
			goto bad;
		if (op & 1) {
			if (ar_get_varint(k->script, k->script_len, &pos, &v))
				goto bad;
			d = unzigzag(v);
			if ((d < 0 && (uint64_t)-d > expect) ||
			    expect + d > np || len > np - (expect + d))
				goto bad;
			memcpy(list + i, plist + expect + d, len * 4);
			expect += d + len;
			i += len;
			continue;
		}
		for (j = 0; j < len; j++) {
			if (ar_get_varint(k->script, k->script_len, &pos, &v))
				goto bad;
			d = unzigzag(v);
			if ((d < 0 && (uint64_t)-d > last) ||
			    last + d >= ar->nr_recs)
				goto bad;
			list[i++] = (uint32_t)(last + d);
			last += d + 1;
		}
	}
	if (i != k->nr_types)
		goto bad;
	k->recs = list;
	return 0;
bad:
	free(list);
	return -EINVAL;
}

static int decode_list(struct bc_archive *ar, uint32_t idx)
{
	struct u32vec chain = { 0 };
	int64_t at = idx;
	int err = 0;

	if (ar->kernels[idx].raw || ar->kernels[idx].recs)
		return 0;
	while (at >= 0 && !ar->kernels[at].recs) {
		err = u32vec_push(&chain, (uint32_t)at);
		if (err)
			break;
		at = ar->kernels[at].parent;
	}
	while (!err && chain.n)
		err = decode_one(ar, &ar->kernels[chain.v[--chain.n]]);
	free(chain.v);
	return err;
}

int ar_decode_list(struct bc_archive *ar, uint32_t k)
{
	return decode_list(ar, k);
}

static int decode_all(struct bc_archive *ar, const struct bc_log *log)
{
	uint32_t i;

	for (i = 0; i < ar->nr_kernels; i++) {
		int err = decode_list(ar, i);

		if (err)
			return bc_log_error(log, err,
				"%s: kernel '%s': damaged list of types",
				ar->path, ar->kernels[i].name);
	}
	return 0;
}

bool bc_archive_kernel_stored_as_bytes(const struct bc_archive *ar, uint32_t k)
{
	return k < ar->nr_kernels && ar->kernels[k].raw;
}

/* ---- from a kernel's BTF to records ------------------------------------ */

enum { VISIT_NEW, VISIT_OPEN, VISIT_DONE };

struct encoder {
	struct bc_archive *ar;
	const struct bc_btf *btf;
	uint32_t *kn1;		/* [type] kn + 1, 0 anonymous */
	uint32_t *k;		/* [type] rank among its kn in the kernel */
	uint32_t *rec;		/* [type] its record */
	uint8_t *state;		/* [type] VISIT_* */
	struct u32vec cells;
};

/* The cells of local type idx, its anonymous referents already done. */
static int64_t encode_record(struct encoder *e, uint32_t idx)
{
	const struct btf_type *t = bc_btf_local(e->btf, idx);
	const uint32_t *w = (const uint32_t *)t;
	uint32_t kind = bc_type_kind(t), words = bc_type_words(t), j;
	int err;

	e->cells.n = 0;
	err = u32vec_push(&e->cells, t->info);
	err = err ? err : u32vec_push(&e->cells, e->kn1[idx]);
	for (j = 2; j < words && !err; j++) {
		switch (bc_word_class(kind, j)) {
		case BC_WORD_REF: {
			uint32_t r = w[j], to;

			if (!r) {
				err = u32vec_push(&e->cells, 0);
				break;
			}
			to = r - e->btf->start_id;
			if (e->kn1[to]) {
				err = u32vec_push(&e->cells, 2 * e->kn1[to]);
				err = err ? err : u32vec_push(&e->cells, e->k[to]);
			} else {
				err = u32vec_push(&e->cells, 1 + 2 * e->rec[to]);
			}
			break;
		}
		case BC_WORD_NAME: {
			int64_t sid = intern_str(e->ar, bc_btf_str(e->btf, w[j]));

			err = sid < 0 ? (int)sid : u32vec_push(&e->cells, (uint32_t)sid);
			break;
		}
		default:
			err = u32vec_push(&e->cells, w[j]);
		}
	}
	if (err)
		return err;
	return intern_rec(e->ar, e->cells.v, (uint32_t)e->cells.n);
}

/*
 * Records type root and, first, every anonymous type it reaches through
 * anonymous types only, depth first. -ELOOP: a loop of anonymous types.
 */
static int encode_from(struct encoder *e, uint32_t root)
{
	struct u32vec stack = { 0 };
	int err = u32vec_push(&stack, root);

	while (!err && stack.n) {
		uint32_t idx = stack.v[stack.n - 1], i, nr;
		bool pushed = false;
		int64_t rec;

		if (e->state[idx] == VISIT_DONE) {
			stack.n--;
			continue;
		}
		e->state[idx] = VISIT_OPEN;
		nr = e->btf->ref_start[idx + 1] - e->btf->ref_start[idx];
		for (i = 0; i < nr && !err; i++) {
			uint32_t r = e->btf->refs[e->btf->ref_start[idx] + i], to;

			if (!r)
				continue;
			to = r - e->btf->start_id;
			if (e->kn1[to] || e->state[to] == VISIT_DONE)
				continue;
			if (e->state[to] == VISIT_OPEN) {
				err = -ELOOP;
				break;
			}
			err = u32vec_push(&stack, to);
			pushed = true;
		}
		if (err || pushed)
			continue;
		rec = encode_record(e, idx);
		if (rec < 0) {
			err = (int)rec;
			break;
		}
		e->rec[idx] = (uint32_t)rec;
		e->state[idx] = VISIT_DONE;
		stack.n--;
	}
	free(stack.v);
	return err;
}

/* kernel btf (base BTF, canonical) as a list of records into *list. */
static int encode_kernel(struct bc_archive *ar, const struct bc_btf *btf,
			 uint32_t **list)
{
	struct encoder e = { .ar = ar, .btf = btf };
	uint32_t n = btf->nr_types, i, *count = NULL, nr_count = 0;
	int err = index_pools(ar);

	*list = NULL;
	if (err)
		return err;
	if (btf->base || btf->start_id != 1)
		return -EOPNOTSUPP;
	e.kn1 = calloc(n + 1, sizeof(uint32_t));
	e.k = calloc(n + 1, sizeof(uint32_t));
	e.rec = calloc(n + 1, sizeof(uint32_t));
	e.state = calloc(n + 1, 1);
	if (!e.kn1 || !e.k || !e.rec || !e.state) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n && !err; i++) {
		const struct btf_type *t = bc_btf_local(btf, i);
		const char *name = bc_btf_str(btf, t->name_off);
		int64_t sid, kn;

		if (!*name)
			continue;
		sid = intern_str(ar, name);
		kn = sid < 0 ? sid : intern_kn(ar, bc_type_kind(t), (uint32_t)sid);
		if (kn < 0) {
			err = (int)kn;
			break;
		}
		if ((uint32_t)kn >= nr_count) {
			uint32_t cap = ((uint32_t)kn + 1) * 2, *p;

			p = realloc(count, cap * sizeof(*p));
			if (!p) {
				err = -ENOMEM;
				break;
			}
			memset(p + nr_count, 0, (cap - nr_count) * sizeof(*p));
			count = p;
			nr_count = cap;
		}
		e.kn1[i] = (uint32_t)kn + 1;
		e.k[i] = count[kn]++;
	}
	for (i = 0; i < n && !err; i++)
		if (e.state[i] != VISIT_DONE)
			err = encode_from(&e, i);
	if (!err) {
		*list = e.rec;
		e.rec = NULL;
	}
out:
	free(count);
	free(e.kn1);
	free(e.k);
	free(e.rec);
	free(e.state);
	free(e.cells.v);
	return err;
}

/* ---- from records back to BTF ------------------------------------------ */

struct kn_rank {
	uint32_t kn, k, id;
};

static int kn_rank_cmp(const void *a, const void *b)
{
	const struct kn_rank *x = a, *y = b;

	if (x->kn != y->kn)
		return x->kn < y->kn ? -1 : 1;
	return x->k < y->k ? -1 : x->k > y->k;
}

/*
 * Where a kernel's types are by name: id of (kn, 0) in first[kn], of
 * (kn, k > 0) in the sorted more[], of an anonymous record in anon[rec].
 */
int ar_ids_build(const struct bc_archive *ar, const uint32_t *list,
		 uint32_t n, struct ar_ids *ids)
{
	uint32_t i, *count;

	memset(ids, 0, sizeof(*ids));
	ids->first = calloc(ar->nr_kns + 1, sizeof(uint32_t));
	ids->anon = calloc(ar->nr_recs + 1, sizeof(uint32_t));
	count = calloc(ar->nr_kns + 1, sizeof(uint32_t));
	if (!ids->first || !ids->anon || !count)
		goto nomem;
	for (i = 0; i < n; i++) {
		const uint32_t *c = ar->cells + ar->rec_off[list[i]];

		if (c[1]) {
			uint32_t kn = c[1] - 1, k = count[kn]++;

			if (!k) {
				ids->first[kn] = i + 1;
				continue;
			}
			if (ids->nr_more == ids->cap_more) {
				uint32_t cap = ids->cap_more ? ids->cap_more * 2 : 64;
				struct kn_rank *p = realloc(ids->more, cap * sizeof(*p));

				if (!p)
					goto nomem;
				ids->more = p;
				ids->cap_more = cap;
			}
			ids->more[ids->nr_more++] = (struct kn_rank){ kn, k, i + 1 };
		} else if (ids->anon[list[i]]) {
			free(count);
			ar_ids_free(ids);
			return -EINVAL;	/* an anonymous record twice */
		} else {
			ids->anon[list[i]] = i + 1;
		}
	}
	if (ids->nr_more)
		qsort(ids->more, ids->nr_more, sizeof(*ids->more), kn_rank_cmp);
	free(count);
	return 0;
nomem:
	free(count);
	ar_ids_free(ids);
	return -ENOMEM;
}

void ar_ids_free(struct ar_ids *ids)
{
	free(ids->first);
	free(ids->anon);
	free(ids->more);
	memset(ids, 0, sizeof(*ids));
}

/* The kernel's id of the type a reference code names (0: none). */
uint32_t ar_ids_ref(const struct ar_ids *ids, uint32_t code, uint32_t k)
{
	struct kn_rank key, *hit;

	if (!code)
		return 0;
	if (code & 1)
		return ids->anon[(code - 1) / 2];
	if (!k)
		return ids->first[code / 2 - 1];
	if (!ids->nr_more)
		return 0;
	key.kn = code / 2 - 1;
	key.k = k;
	hit = bsearch(&key, ids->more, ids->nr_more, sizeof(key), kn_rank_cmp);
	return hit ? hit->id : 0;
}

uint32_t ar_record_nr_words(const struct bc_archive *ar, uint32_t rec)
{
	return info_words(ar->cells[ar->rec_off[rec]]);
}

int ar_record_words(const struct bc_archive *ar, const struct ar_ids *ids,
		    uint32_t rec, uint32_t *w)
{
	const uint32_t *c = ar->cells + ar->rec_off[rec];
	uint32_t info = c[0], kind = bc_info_kind(info);
	uint32_t words = info_words(info), j, ci = 2;
	int err = 0;

	w[0] = c[1] ? ar->kns[c[1] - 1].sid : 0;
	w[1] = info;
	for (j = 2; j < words; j++) {
		switch (bc_word_class(kind, j)) {
		case BC_WORD_REF: {
			uint32_t code = c[ci++], k = 0;

			if (code && !(code & 1))
				k = c[ci++];
			w[j] = ar_ids_ref(ids, code, k);
			if (code && !w[j])
				err = -EINVAL;
			break;
		}
		default:
			w[j] = c[ci++];
		}
	}
	return err;
}

/*
 * Kernel list[0..n) as BTF bytes: the types in list order, strings in
 * order of first use ("" at 0), then the layout section when there is one.
 * -EINVAL when a reference names no type of the kernel.
 */
static int build_raw(const struct bc_archive *ar, const uint32_t *list,
		     uint32_t n, const struct bc_btf_layout *layout,
		     uint32_t nr_layout, void **raw, size_t *size)
{
	struct ar_ids ids;
	struct ar_buf out = { 0 }, strs = { 0 };
	uint32_t *placed = NULL, i;
	size_t total = 0;
	int err = ar_ids_build(ar, list, n, &ids);

	*raw = NULL;
	if (err)
		return err;
	/* the whole size up front: one allocation, no copies */
	for (i = 0; i < n; i++)
		total += info_words(ar->cells[ar->rec_off[list[i]]]) * 4ull;
	if (total > UINT32_MAX / 2) {	/* BTF's sections have 32-bit lengths */
		ar_ids_free(&ids);
		return -EINVAL;
	}
	placed = calloc(ar->nr_strs + 1, sizeof(uint32_t));
	err = placed ? ar_buf_reserve(&out, sizeof(struct btf_header) + total + 64) : -ENOMEM;
	err = err ? err : ar_buf_reserve(&strs, total / 2 + 64);
	err = err ? err : ar_buf_put(&strs, "", 1);
	if (err)
		goto out;
	out.len = sizeof(struct btf_header);
	for (i = 0; i < n && !err; i++) {
		uint32_t info = ar->cells[ar->rec_off[list[i]]];
		uint32_t kind = bc_info_kind(info), words = info_words(info), j;
		uint32_t *w;

		err = ar_buf_reserve(&out, words * 4);
		if (err)
			break;
		w = (uint32_t *)(out.data + out.len);
		err = ar_record_words(ar, &ids, list[i], w);
		for (j = 0; j < words && !err; j++) {
			uint32_t sid = w[j];

			if ((j && bc_word_class(kind, j) != BC_WORD_NAME) || !sid)
				continue;
			if (placed[sid]) {
				w[j] = placed[sid] - 1;
			} else {
				w[j] = (uint32_t)strs.len;
				placed[sid] = w[j] + 1;
				err = ar_buf_put(&strs, ar->strs[sid].s,
						 ar->strs[sid].len + 1);
			}
		}
		out.len += words * 4;
	}
	if (!err) {
		struct btf_header *hdr;
		size_t type_len = out.len - sizeof(*hdr);

		err = ar_buf_put(&out, strs.data, strs.len);
		if (!err) {
			hdr = (struct btf_header *)out.data;
			memset(hdr, 0, sizeof(*hdr));
			hdr->magic = 0xeB9F;
			hdr->version = 1;
			hdr->hdr_len = sizeof(*hdr);
			hdr->type_len = (uint32_t)type_len;
			hdr->str_off = (uint32_t)type_len;
			hdr->str_len = (uint32_t)strs.len;
			*raw = out.data;
			*size = out.len;
			out.data = NULL;
			if (layout)
				err = bc_btf_blob_add_layout(raw, size, layout,
							     nr_layout);
		}
	}
out:
	free(out.data);
	free(strs.data);
	free(placed);
	ar_ids_free(&ids);
	return err;
}

int bc_archive_kernel_raw(struct bc_archive *ar, uint32_t k, void **raw,
			  size_t *size, const struct bc_log *log)
{
	struct ar_kernel *kern;
	int err;

	*raw = NULL;
	*size = 0;
	if (k >= ar->nr_kernels)
		return -ENOENT;
	kern = &ar->kernels[k];
	if (kern->raw) {
		*raw = malloc(kern->blob_size ? kern->blob_size : 1);
		if (!*raw)
			return -ENOMEM;
		memcpy(*raw, kern->blob, kern->blob_size);
		*size = kern->blob_size;
		return 0;
	}
	err = decode_list(ar, k);
	if (!err)
		err = build_raw(ar, kern->recs, kern->nr_types, kern->layout,
				kern->nr_layout, raw, size);
	if (err == -ENOMEM)
		return bc_log_error(log, err, "%s: out of memory", ar->path);
	if (err)
		return bc_log_error(log, err, "%s: kernel '%s': damaged records",
				    ar->path, kern->name);
	return 0;
}

int bc_archive_kernel_btf(struct bc_archive *ar, uint32_t k,
			  struct bc_btf **btf, const struct bc_log *log)
{
	struct bc_blob blob = { 0 };
	char *what;
	void *raw;
	size_t size;
	int err = bc_archive_kernel_raw(ar, k, &raw, &size, log);

	*btf = NULL;
	if (err)
		return err;
	if (asprintf(&what, "%s:%s", ar->path, ar->kernels[k].name) < 0) {
		free(raw);
		return -ENOMEM;
	}
	blob.mem = raw;
	blob.mem_len = size;
	blob.data = raw;
	blob.size = size;
	err = bc_btf_parse_blob(&blob, NULL, NULL, what, log, btf);
	free(what);
	return err;
}

/* ---- adding and removing kernels --------------------------------------- */

static int insert_kernel(struct bc_archive *ar, const char *name,
			 struct ar_kernel **out)
{
	uint32_t at = 0;

	while (at < ar->nr_kernels &&
	       bc_archive_name_cmp(ar->kernels[at].name, name) < 0)
		at++;
	if (ar->nr_kernels == ar->cap_kernels) {
		uint32_t cap = ar->cap_kernels ? ar->cap_kernels * 2 : 16;
		struct ar_kernel *p = realloc(ar->kernels, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		ar->kernels = p;
		ar->cap_kernels = cap;
	}
	memmove(ar->kernels + at + 1, ar->kernels + at,
		(ar->nr_kernels - at) * sizeof(*ar->kernels));
	memset(&ar->kernels[at], 0, sizeof(ar->kernels[at]));
	ar->nr_kernels++;
	ar->kernels[at].parent = -1;
	ar->kernels[at].name = strdup(name);
	*out = &ar->kernels[at];
	return ar->kernels[at].name ? 0 : -ENOMEM;
}

static bool name_ok(const char *name)
{
	return *name && !strchr(name, '/') && !strchr(name, ':') &&
	       strlen(name) < 256;
}

int bc_archive_add_sorted(struct bc_archive *ar, const char *name,
			  const void *sorted, size_t size,
			  const struct bc_log *log)
{
	struct bc_btf *btf = NULL;
	struct ar_kernel *k;
	uint32_t *list = NULL;
	void *back = NULL;
	size_t back_size = 0;
	int err;

	if (!name_ok(name))
		return bc_log_error(log, -EINVAL,
			"'%s': a kernel's name is 1-255 bytes without '/' or ':'",
			name);
	if (bc_archive_find_kernel(ar, name) >= 0)
		return bc_log_error(log, -EEXIST,
				    "%s: already holds a kernel '%s'", ar->path,
				    name);
	err = decode_all(ar, log);
	if (err)
		return err;
	err = bc_btf_parse(sorted, size, NULL, name, log, &btf);
	if (err)
		return err;
	err = encode_kernel(ar, btf, &list);
	if (!err)
		err = build_raw(ar, list, btf->nr_types, btf->layout,
				btf->nr_layout, &back, &back_size);
	if (err == -ENOMEM)
		goto out;
	err = insert_kernel(ar, name, &k);
	if (err)
		goto out;
	if (back && back_size == size && !memcmp(back, sorted, size)) {
		k->recs = list;
		k->nr_types = btf->nr_types;
		list = NULL;
		if (btf->nr_layout) {
			k->layout = malloc(btf->nr_layout * sizeof(*k->layout));
			if (!k->layout) {
				err = -ENOMEM;
				goto out;
			}
			memcpy(k->layout, btf->layout,
			       btf->nr_layout * sizeof(*k->layout));
			k->nr_layout = btf->nr_layout;
		}
	} else {
		/* not by name (a loop of anonymous types ...): as bytes */
		k->raw = true;
		k->blob = malloc(size ? size : 1);
		if (!k->blob) {
			err = -ENOMEM;
			goto out;
		}
		memcpy(k->blob, sorted, size);
		k->blob_size = size;
	}
	err = 0;
out:
	if (err == -ENOMEM)
		bc_log_error(log, err, "%s: out of memory", name);
	free(back);
	free(list);
	bc_btf_free(btf);
	return err;
}

/*
 * The bytes `btfcanon sort` writes for path: its BTF through the common
 * readers, or its DWARF encoded when it is ELF without .BTF.
 */
static int sorted_bytes(const char *path, void **raw, size_t *size,
			const struct bc_log *log)
{
	struct canon_opts copts = { .order = BC_ORDER_KIND };
	struct canon_result res = { 0 };
	struct bc_btf *btf = NULL;
	enum bc_file_format format = BC_FILE_RAW;
	struct bc_input in = { 0 };
	struct bc_input_opts iopts = { .canonicalize = false };
	int err;

	err = bc_file_load_btf(path, NULL, &btf, &format, NULL);
	if (err == -ENOENT && format == BC_FILE_ELF) {
		err = bc_input_load(path, &iopts, &in, log);
		if (err)
			return err;
		btf = in.btf;
		in.btf = NULL;
		bc_input_deinit(&in);
	} else if (err) {
		/* again, for the message */
		return bc_file_load_btf(path, NULL, &btf, &format, log);
	}
	if (btf->base) {
		bc_btf_free(btf);
		return bc_log_error(log, -EOPNOTSUPP,
				    "%s: split BTF cannot go into an archive",
				    path);
	}
	copts.layout = btf->layout;
	copts.nr_layout = btf->nr_layout;
	err = canon_run(btf, &copts, &res, log);
	bc_btf_free(btf);
	if (err)
		return err;
	*raw = res.raw;
	*size = res.raw_size;
	res.raw = NULL;
	canon_result_deinit(&res);
	return 0;
}

int bc_archive_add_file(struct bc_archive *ar, const char *path,
			const char *name, const struct bc_log *log)
{
	char *dflt = NULL;
	void *raw = NULL;
	size_t size = 0;
	int err;

	if (!name) {
		err = bc_archive_input_name(path, &dflt, log);
		if (err)
			return err;
		name = dflt;
	}
	if (bc_archive_find_kernel(ar, name) >= 0) {
		err = bc_log_error(log, -EEXIST,
				   "%s: already holds a kernel '%s' (from %s; --name gives another)",
				   ar->path, name, path);
		goto out;
	}
	err = sorted_bytes(path, &raw, &size, log);
	if (!err)
		err = bc_archive_add_sorted(ar, name, raw, size, log);
out:
	free(raw);
	free(dflt);
	return err;
}

/*
 * Several inputs: reading and sorting them (most of the time: a kernel
 * image's decompression, canon) runs on worker threads, each input
 * independently; the main thread adds the sorted kernels in input order.
 * The file does not depend on that order anyway, but the first error
 * reported does, so it is the first input's that fails. Workers stay at
 * most `window` inputs ahead of the main thread, so few sorted kernels
 * wait in memory at once.
 */
struct add_job {
	const char *path;
	const char *name;	/* as given, or dflt */
	char *dflt;
	void *raw;
	size_t size;
	int err;
	bool done;
};

struct add_queue {
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct add_job *jobs;
	uint32_t nr, next, consumed, window;
	bool stop;
	const struct bc_log *log;
};

static void *add_worker(void *arg)
{
	struct add_queue *q = arg;

	pthread_mutex_lock(&q->lock);
	for (;;) {
		struct add_job *job;
		uint32_t i;

		while (!q->stop && q->next < q->nr &&
		       q->next >= q->consumed + q->window)
			pthread_cond_wait(&q->changed, &q->lock);
		if (q->stop || q->next >= q->nr)
			break;
		i = q->next++;
		job = &q->jobs[i];
		pthread_mutex_unlock(&q->lock);
		job->err = 0;
		if (!job->name) {
			/* a package is named by its kernel member: read it */
			job->err = bc_archive_input_name(job->path, &job->dflt,
							 q->log);
			job->name = job->dflt;
		}
		if (!job->err)
			job->err = sorted_bytes(job->path, &job->raw,
						&job->size, q->log);
		pthread_mutex_lock(&q->lock);
		job->done = true;
		pthread_cond_broadcast(&q->changed);
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

int bc_archive_add_files(struct bc_archive *ar, const char *const *paths,
			 const char *const *names, uint32_t nr, uint32_t jobs,
			 const struct bc_log *log)
{
	struct add_queue q = { .nr = nr, .window = jobs + 1, .log = log };
	pthread_t *threads = NULL;
	uint32_t i, started = 0;
	int err = 0;

	q.jobs = calloc(nr + 1, sizeof(*q.jobs));
	threads = calloc(jobs + 1, sizeof(*threads));
	if (!q.jobs || !threads) {
		err = bc_log_error(log, -ENOMEM, "%s: out of memory", ar->path);
		goto out;
	}
	for (i = 0; i < nr && !err; i++) {
		q.jobs[i].path = paths[i];
		q.jobs[i].name = names ? names[i] : NULL;
		if (q.jobs[i].name && bc_archive_find_kernel(ar, q.jobs[i].name) >= 0)
			err = bc_log_error(log, -EEXIST,
				"%s: already holds a kernel '%s' (from %s; --name gives another)",
				ar->path, q.jobs[i].name, paths[i]);
	}
	if (err)
		goto out;
	pthread_mutex_init(&q.lock, NULL);
	pthread_cond_init(&q.changed, NULL);
	for (started = 0; started < (jobs ? jobs : 1); started++)
		if (pthread_create(&threads[started], NULL, add_worker, &q))
			break;
	if (!started) {
		/* no thread: the main thread reads them itself */
		q.window = nr + 1;
		add_worker(&q);
	}
	for (i = 0; i < nr; i++) {
		struct add_job *job = &q.jobs[i];

		pthread_mutex_lock(&q.lock);
		while (!job->done)
			pthread_cond_wait(&q.changed, &q.lock);
		pthread_mutex_unlock(&q.lock);
		if (!err)
			err = job->err;
		if (!err && bc_archive_find_kernel(ar, job->name) >= 0)
			err = bc_log_error(log, -EEXIST,
				"%s: already holds a kernel '%s' (from %s; --name gives another)",
				ar->path, job->name, job->path);
		if (!err)
			err = bc_archive_add_sorted(ar, job->name, job->raw,
						    job->size, log);
		free(job->raw);
		job->raw = NULL;
		pthread_mutex_lock(&q.lock);
		q.consumed = i + 1;
		if (err)
			q.stop = true;
		pthread_cond_broadcast(&q.changed);
		pthread_mutex_unlock(&q.lock);
		if (err)
			break;
	}
	pthread_mutex_lock(&q.lock);
	q.stop = true;
	pthread_cond_broadcast(&q.changed);
	pthread_mutex_unlock(&q.lock);
	while (started)
		pthread_join(threads[--started], NULL);
	pthread_cond_destroy(&q.changed);
	pthread_mutex_destroy(&q.lock);
out:
	for (i = 0; q.jobs && i < nr; i++) {
		free(q.jobs[i].raw);
		free(q.jobs[i].dflt);
	}
	free(q.jobs);
	free(threads);
	return err;
}

int bc_archive_remove(struct bc_archive *ar, uint32_t k)
{
	int err;

	if (k >= ar->nr_kernels)
		return -ENOENT;
	err = decode_all(ar, NULL);
	if (err)
		return err;
	kernel_deinit(&ar->kernels[k]);
	memmove(ar->kernels + k, ar->kernels + k + 1,
		(ar->nr_kernels - k - 1) * sizeof(*ar->kernels));
	ar->nr_kernels--;
	return 0;
}

static int att_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ar_attachment *)a)->name,
		      ((const struct ar_attachment *)b)->name);
}

static int refresh_att_names(struct ar_kernel *k)
{
	uint32_t i;
	const char **names = realloc(k->att_names, (k->nr_att + 1) * sizeof(*names));

	if (!names)
		return -ENOMEM;
	for (i = 0; i < k->nr_att; i++)
		names[i] = k->att[i].name;
	names[i] = NULL;
	k->att_names = names;
	return 0;
}

int bc_archive_set_attachment(struct bc_archive *ar, uint32_t k,
			      const char *what, const void *data, size_t size)
{
	struct ar_kernel *kern;
	struct ar_attachment *a = NULL, *p;
	uint8_t *copy;
	uint32_t i;

	if (k >= ar->nr_kernels || !*what)
		return -EINVAL;
	kern = &ar->kernels[k];
	copy = malloc(size ? size : 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, data, size);
	for (i = 0; i < kern->nr_att; i++)
		if (!strcmp(kern->att[i].name, what))
			a = &kern->att[i];
	if (!a) {
		p = realloc(kern->att, (kern->nr_att + 1) * sizeof(*p));
		if (!p) {
			free(copy);
			return -ENOMEM;
		}
		kern->att = p;
		a = &kern->att[kern->nr_att];
		a->name = strdup(what);
		a->data = NULL;
		if (!a->name) {
			free(copy);
			return -ENOMEM;
		}
		kern->nr_att++;
	}
	free(a->data);
	a->data = copy;
	a->size = size;
	qsort(kern->att, kern->nr_att, sizeof(*kern->att), att_cmp);
	return refresh_att_names(kern);
}

int bc_archive_attachment(const struct bc_archive *ar, uint32_t k,
			  const char *what, const void **data, size_t *size)
{
	uint32_t i;

	if (k >= ar->nr_kernels)
		return -ENOENT;
	for (i = 0; i < ar->kernels[k].nr_att; i++) {
		const struct ar_attachment *a = &ar->kernels[k].att[i];

		if (!strcmp(a->name, what)) {
			*data = a->data;
			*size = a->size;
			return 0;
		}
	}
	return -ENOENT;
}

const char *const *bc_archive_attachment_names(const struct bc_archive *ar,
					       uint32_t k, uint32_t *nr)
{
	*nr = k < ar->nr_kernels ? ar->kernels[k].nr_att : 0;
	return *nr ? (const char *const *)ar->kernels[k].att_names : NULL;
}

/* ---- writing ------------------------------------------------------------ */

/* Numbers given by first use while serializing (number + 1; 0: none yet). */
struct numbering {
	uint32_t *rec, *kn, *str;
	struct u32vec rec_order, kn_order, str_order;
};

static int number(uint32_t *num, struct u32vec *order, uint32_t id,
		  uint32_t *out)
{
	if (!num[id]) {
		int err = u32vec_push(order, id);

		if (err)
			return err;
		num[id] = (uint32_t)order->n;
	}
	*out = num[id] - 1;
	return 0;
}

static int number_kn(struct bc_archive *ar, struct numbering *nb, uint32_t kn,
		     uint32_t *out)
{
	uint32_t sid;
	int err = 0;

	if (!nb->kn[kn])
		err = number(nb->str, &nb->str_order, ar->kns[kn].sid, &sid);
	return err ? err : number(nb->kn, &nb->kn_order, kn, out);
}

/* The records in numbering order, as the body writes them. */
static int write_records(struct bc_archive *ar, struct numbering *nb,
			 struct ar_buf *out)
{
	size_t i;
	int err = 0;

	for (i = 0; i < nb->rec_order.n && !err; i++) {
		const uint32_t *c = ar->cells + ar->rec_off[nb->rec_order.v[i]];
		uint32_t info = c[0], kind = bc_info_kind(info);
		uint32_t words = info_words(info), j, ci = 2, num = 0;

		err = ar_buf_varint(out, (info >> 24 & 0x7f) | (info >> 31) << 7);
		err = err ? err : ar_buf_varint(out, bc_info_vlen(info));
		if (!err && c[1])
			err = number_kn(ar, nb, c[1] - 1, &num);
		err = err ? err : ar_buf_varint(out, c[1] ? num + 1 : 0);
		for (j = 2; j < words && !err; j++) {
			switch (bc_word_class(kind, j)) {
			case BC_WORD_REF: {
				uint32_t code = c[ci++];

				if (!code) {
					err = ar_buf_varint(out, 0);
				} else if (code & 1) {
					err = number(nb->rec, &nb->rec_order,
						     (code - 1) / 2, &num);
					err = err ? err : ar_buf_varint(out, 1 + 2 * (uint64_t)num);
				} else {
					err = number_kn(ar, nb, code / 2 - 1, &num);
					err = err ? err : ar_buf_varint(out, 2 + 2 * (uint64_t)num);
					err = err ? err : ar_buf_varint(out, c[ci++]);
				}
				break;
			}
			case BC_WORD_NAME:
				err = number(nb->str, &nb->str_order, c[ci++], &num);
				err = err ? err : ar_buf_varint(out, num);
				break;
			default:
				err = ar_buf_varint(out, c[ci++]);
			}
		}
	}
	return err;
}

/*
 * Each kernel's parent: among the kernels before it (version order), the
 * one sharing most records with it, measured on every 64th record of the
 * candidate: score 2 * shared - sampled; none when no score is positive.
 */
static int choose_parents(struct bc_archive *ar)
{
	uint32_t *mark = calloc(ar->nr_recs + 1, sizeof(uint32_t)), k, j, i;

	if (!mark)
		return -ENOMEM;
	for (k = 0; k < ar->nr_kernels; k++) {
		struct ar_kernel *kern = &ar->kernels[k];
		int64_t best = 0;

		kern->parent = -1;
		if (kern->raw)
			continue;
		for (i = 0; i < kern->nr_types; i++)
			mark[kern->recs[i]] = k + 1;
		for (j = 0; j < k; j++) {
			const struct ar_kernel *cand = &ar->kernels[j];
			int64_t score = 0;

			if (cand->raw)
				continue;
			for (i = 0; i < cand->nr_types; i += PARENT_SAMPLE)
				score += mark[cand->recs[i]] == k + 1 ? 1 : -1;
			if (score > 0 && score >= best) {
				best = score;
				kern->parent = j;
			}
		}
	}
	free(mark);
	return 0;
}

/* Kernel k's script against its parent, lists in file numbers. */
static int write_script(const uint32_t *list, uint32_t n,
			const uint32_t *plist, uint32_t np, uint32_t *pos,
			struct ar_buf *out)
{
	uint64_t expect = 0, last = 0;
	uint32_t i = 0, j;
	int err = 0;

	for (j = 0; j < np; j++)
		if (!pos[plist[j]])
			pos[plist[j]] = j + 1;
	while (i < n && !err) {
		uint32_t p = pos[list[i]], len = 1;

		if (p) {
			p--;
			while (i + len < n && p + len < np &&
			       plist[p + len] == list[i + len])
				len++;
			err = ar_buf_varint(out, (uint64_t)len << 1 | 1);
			err = err ? err : ar_buf_varint(out, zigzag((int64_t)p - (int64_t)expect));
			expect = p + len;
			i += len;
			continue;
		}
		while (i + len < n && !pos[list[i + len]])
			len++;
		err = ar_buf_varint(out, (uint64_t)len << 1);
		for (j = i; j < i + len && !err; j++) {
			err = ar_buf_varint(out, zigzag((int64_t)list[j] - (int64_t)last));
			last = list[j] + 1ull;
		}
		i += len;
	}
	for (j = 0; j < np; j++)
		pos[plist[j]] = 0;
	return err;
}

static int write_bytes(struct ar_buf *out, const void *data, size_t len)
{
	int err = ar_buf_varint(out, len);

	return err ? err : ar_buf_put(out, data, len);
}

static int write_kernels(struct bc_archive *ar, struct numbering *nb,
			 struct ar_buf *out)
{
	uint32_t nr_file = (uint32_t)nb->rec_order.n, k, i;
	uint32_t *pos = calloc(nr_file + 1, sizeof(uint32_t));
	uint32_t **flist = calloc(ar->nr_kernels + 1, sizeof(*flist));
	struct ar_buf script = { 0 };
	int err = pos && flist ? ar_buf_varint(out, ar->nr_kernels) : -ENOMEM;

	for (k = 0; k < ar->nr_kernels && !err; k++) {
		struct ar_kernel *kern = &ar->kernels[k];

		err = write_bytes(out, kern->name, strlen(kern->name));
		err = err ? err : ar_buf_varint(out, kern->raw ? FLAG_RAW : 0);
		if (err)
			break;
		if (kern->raw) {
			err = write_bytes(out, kern->blob, kern->blob_size);
		} else {
			const struct ar_kernel *p = kern->parent >= 0 ?
				&ar->kernels[kern->parent] : NULL;

			flist[k] = malloc(((size_t)kern->nr_types + 1) * 4);
			if (!flist[k]) {
				err = -ENOMEM;
				break;
			}
			for (i = 0; i < kern->nr_types; i++)
				flist[k][i] = nb->rec[kern->recs[i]] - 1;
			script.len = 0;
			err = write_script(flist[k], kern->nr_types,
					   p ? flist[kern->parent] : NULL,
					   p ? p->nr_types : 0, pos, &script);
			err = err ? err : ar_buf_varint(out, kern->parent + 1);
			err = err ? err : ar_buf_varint(out, kern->nr_types);
			err = err ? err : write_bytes(out, script.data, script.len);
		}
		err = err ? err : write_bytes(out, kern->layout,
					      kern->nr_layout * sizeof(*kern->layout));
		err = err ? err : ar_buf_varint(out, kern->nr_att);
		for (i = 0; i < kern->nr_att && !err; i++) {
			err = write_bytes(out, kern->att[i].name,
					  strlen(kern->att[i].name));
			err = err ? err : write_bytes(out, kern->att[i].data,
						      kern->att[i].size);
		}
	}
	for (k = 0; flist && k < ar->nr_kernels; k++)
		free(flist[k]);
	free(flist);
	free(pos);
	free(script.data);
	return err;
}

int ar_serialize_body(struct bc_archive *ar, struct ar_buf *body)
{
	struct numbering nb = { 0 };
	struct ar_buf recs = { 0 };
	uint32_t k, i, dummy;
	size_t s;
	int err;

	err = decode_all(ar, NULL);
	if (err)
		return err;
	nb.rec = calloc(ar->nr_recs + 1, sizeof(uint32_t));
	nb.kn = calloc(ar->nr_kns + 1, sizeof(uint32_t));
	nb.str = calloc(ar->nr_strs + 1, sizeof(uint32_t));
	err = nb.rec && nb.kn && nb.str ? 0 : -ENOMEM;
	err = err ? err : number(nb.str, &nb.str_order, 0, &dummy);
	for (k = 0; k < ar->nr_kernels && !err; k++)
		for (i = 0; i < ar->kernels[k].nr_types && !err && !ar->kernels[k].raw; i++)
			err = number(nb.rec, &nb.rec_order, ar->kernels[k].recs[i],
				     &dummy);
	err = err ? err : write_records(ar, &nb, &recs);
	err = err ? err : choose_parents(ar);
	err = err ? err : ar_buf_varint(body, nb.str_order.n);
	for (s = 0; s < nb.str_order.n && !err; s++) {
		const struct ar_str *str = &ar->strs[nb.str_order.v[s]];

		err = write_bytes(body, str->s, str->len);
		err = err ? err : ar_buf_put(body, "", 1);
	}
	err = err ? err : ar_buf_varint(body, nb.kn_order.n);
	for (s = 0; s < nb.kn_order.n && !err; s++) {
		const struct ar_kn *kn = &ar->kns[nb.kn_order.v[s]];

		err = ar_buf_varint(body, kn->kind);
		err = err ? err : ar_buf_varint(body, nb.str[kn->sid] - 1);
	}
	err = err ? err : ar_buf_varint(body, nb.rec_order.n);
	err = err ? err : ar_buf_put(body, recs.data, recs.len);
	err = err ? err : write_kernels(ar, &nb, body);
	free(recs.data);
	free(nb.rec);
	free(nb.kn);
	free(nb.str);
	free(nb.rec_order.v);
	free(nb.kn_order.v);
	free(nb.str_order.v);
	return err;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static void put_le64(uint8_t *p, uint64_t v)
{
	put_le32(p, (uint32_t)v);
	put_le32(p + 4, (uint32_t)(v >> 32));
}

static uint32_t get_le32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t get_le64(const uint8_t *p)
{
	return get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
}

static uint32_t crc_of(const uint8_t *data, size_t len)
{
	uLong crc = crc32(0L, Z_NULL, 0);

	while (len) {
		uInt n = len > (1u << 30) ? 1u << 30 : (uInt)len;

		crc = crc32(crc, data, n);
		data += n;
		len -= n;
	}
	return (uint32_t)crc;
}

int ar_wrap_body(const void *body, size_t len, int level, void **out,
		 size_t *size)
{
	ZSTD_CCtx *cctx = ZSTD_createCCtx();
	size_t bound = ZSTD_compressBound(len), z;
	unsigned wlog = 10;
	uint8_t *file = malloc(HEADER_LEN + bound + TRAILER_LEN);

	*out = NULL;
	if (!file || !cctx) {
		ZSTD_freeCCtx(cctx);
		free(file);
		return -ENOMEM;
	}
	while (wlog < 27 && (1ull << wlog) < len)
		wlog++;
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_windowLog, (int)wlog);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 0);
	z = ZSTD_compress2(cctx, file + HEADER_LEN, bound, body, len);
	ZSTD_freeCCtx(cctx);
	if (ZSTD_isError(z)) {
		free(file);
		return -EIO;
	}
	memcpy(file, BC_ARCHIVE_MAGIC, BC_ARCHIVE_MAGIC_LEN);
	put_le32(file + 8, FORMAT_VERSION);
	put_le32(file + 12, 0);
	put_le64(file + 16, len);
	put_le64(file + 24, z);
	put_le32(file + HEADER_LEN + z, crc_of(file, HEADER_LEN + z));
	*out = file;
	*size = HEADER_LEN + z + TRAILER_LEN;
	return 0;
}

int bc_archive_serialize(struct bc_archive *ar, void **out, size_t *size,
			 const struct bc_log *log)
{
	struct ar_buf body = { 0 };
	int err;

	*out = NULL;
	err = decode_all(ar, log);
	if (err)
		return err;
	err = ar_serialize_body(ar, &body);
	if (!err) {
		bc_log_printf(log, BC_LOG_DEBUG,
			      "%s: body %zu bytes, %u records, %u strings",
			      ar->path, body.len, ar->nr_recs, ar->nr_strs);
		err = ar_wrap_body(body.data, body.len, ZSTD_LEVEL, out, size);
	}
	if (err == -ENOMEM)
		bc_log_error(log, err, "%s: out of memory", ar->path);
	else if (err)
		bc_log_error(log, err, "%s: zstd cannot compress", ar->path);
	free(body.data);
	return err;
}

static int write_all_fd(int fd, const uint8_t *data, size_t size)
{
	while (size) {
		ssize_t n = write(fd, data, size);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		data += n;
		size -= (size_t)n;
	}
	return 0;
}

int bc_archive_write(struct bc_archive *ar, const char *path,
		     const struct bc_log *log)
{
	const char *kill_hook = getenv("BTFCANON_FAULT_KILL_WRITE");
	char *tmp = NULL;
	void *data;
	size_t size;
	int fd, err = bc_archive_serialize(ar, &data, &size, log);

	if (err)
		return err;
	if (asprintf(&tmp, "%s.tmp.XXXXXX", path) < 0) {
		free(data);
		return bc_log_error(log, -ENOMEM, "%s: out of memory", path);
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		err = bc_log_error(log, -errno, "%s: cannot create %s: %s", path,
				   tmp, strerror(errno));
		goto out;
	}
	if (kill_hook && !strcmp(kill_hook, "1")) {
		err = write_all_fd(fd, data, size / 2);
		raise(SIGKILL);
	}
	err = write_all_fd(fd, data, size);
	if (!err && fchmod(fd, 0644))
		err = -errno;
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err) {
		unlink(tmp);
		bc_log_error(log, err, "%s: cannot write: %s", path, strerror(-err));
	}
out:
	free(tmp);
	free(data);
	return err;
}

/* ---- reading -------------------------------------------------------------- */

struct reader {
	const uint8_t *data;
	size_t len, pos;
	bool bad;
};

static uint64_t rd_varint(struct reader *r, uint64_t max)
{
	uint64_t v = 0;

	if (r->bad || ar_get_varint(r->data, r->len, &r->pos, &v) || v > max) {
		r->bad = true;
		return 0;
	}
	return v;
}

static const uint8_t *rd_bytes(struct reader *r, size_t *len)
{
	const uint8_t *p;

	*len = rd_varint(r, r->len);
	if (r->bad || *len > r->len - r->pos) {
		r->bad = true;
		*len = 0;
		return NULL;
	}
	p = r->data + r->pos;
	r->pos += *len;
	return p;
}

/* A varint of at most 32 bits at *pos below end; false past end or wider. */
static inline bool get_u32(const uint8_t *data, size_t end, size_t *pos,
			   uint32_t *v)
{
	uint32_t x = 0;
	unsigned shift;

	for (shift = 0; shift < 35 && *pos < end; shift += 7) {
		uint8_t byte = data[(*pos)++];

		if (shift == 28 && byte > 0x0f)
			return false;
		x |= (uint32_t)(byte & 0x7f) << shift;
		if (!(byte & 0x80)) {
			*v = x;
			return true;
		}
	}
	return false;
}

/*
 * The records, straight into the cells: every number checked against what
 * it indexes (an anonymous record's against the record count; whether it
 * is the kernel's is checked when a kernel is rebuilt). Every cell takes a
 * byte of the body at least, so the cells are sized once.
 */
static int read_records(struct bc_archive *ar, struct reader *r)
{
	uint64_t nr = rd_varint(r, (r->len - r->pos) / 3), i;
	const uint8_t *d = r->data;
	size_t end = r->len, pos = r->pos, room = end - pos + 2 * nr + 1;
	uint32_t *c;

	if (r->bad)
		return 0;
	free(ar->cells);
	free(ar->rec_off);
	ar->cells = malloc(room * sizeof(uint32_t));
	ar->rec_off = malloc((nr + 2) * sizeof(uint32_t));
	if (!ar->cells || !ar->rec_off)
		return -ENOMEM;
	ar->cap_cells = room;
	ar->cap_recs = (uint32_t)nr + 2;
	ar->nr_cells = 0;
	c = ar->cells;
	for (i = 0; i < nr; i++) {
		uint32_t kind, vlen, info, kn1, words, j, v, k;
		const struct bc_kind_layout *kl;
		size_t at = ar->nr_cells;

		if (!get_u32(d, end, &pos, &kind) || kind > 0xff ||
		    !get_u32(d, end, &pos, &vlen) || vlen > 0xffffff ||
		    !get_u32(d, end, &pos, &kn1) || kn1 > ar->nr_kns ||
		    !bc_kind_valid(kind & 0x7f) ||
		    (kn1 && ar->kns[kn1 - 1].kind != (kind & 0x7f)))
			goto bad;
		info = (kind & 0x7f) << 24 | (kind >> 7) << 31 | vlen;
		words = info_words(info);
		if (words - 2 > end - pos)	/* a byte a word at least */
			goto bad;
		ar->rec_off[i] = (uint32_t)at;
		c[at++] = info;
		c[at++] = kn1;
		kl = &bc_kinds[kind & 0x7f];
		for (j = 2; j < words; j++) {
			enum bc_word_class cls = j < 3u + kl->fixed_words ?
				bc_word_class(kind & 0x7f, j) :
				bc_entry_word_class(kl, (j - 3 - kl->fixed_words) %
							kl->entry_words);

			if (!get_u32(d, end, &pos, &v))
				goto bad;
			if (cls == BC_WORD_REF && (v & 1)) {
				if (v / 2 >= nr)
					goto bad;
			} else if (cls == BC_WORD_REF && v) {
				if (v / 2 - 1 >= ar->nr_kns ||
				    !get_u32(d, end, &pos, &k))
					goto bad;
				c[at++] = v;
				v = k;
			} else if (cls == BC_WORD_NAME && v >= ar->nr_strs) {
				goto bad;
			}
			c[at++] = v;
		}
		ar->nr_cells = at;
	}
	ar->nr_recs = (uint32_t)nr;
	ar->rec_off[nr] = (uint32_t)ar->nr_cells;
	r->pos = pos;
	return 0;
bad:
	ar->nr_recs = 0;
	ar->nr_cells = 0;
	ar->rec_off[0] = 0;
	r->bad = true;
	return 0;
}

static int read_kernels(struct bc_archive *ar, struct reader *r)
{
	uint64_t nr = rd_varint(r, r->len - r->pos), k, i;
	int err = 0;

	ar->kernels = calloc(nr + 1, sizeof(*ar->kernels));
	if (!ar->kernels)
		return -ENOMEM;
	ar->cap_kernels = (uint32_t)nr + 1;
	for (k = 0; k < nr && !r->bad && !err; k++) {
		struct ar_kernel *kern = &ar->kernels[k];
		const uint8_t *p;
		size_t len;

		ar->nr_kernels++;
		kern->parent = -1;
		p = rd_bytes(r, &len);
		if (r->bad || !len || len > 255) {
			r->bad = true;
			break;
		}
		kern->name = strndup((const char *)p, len);
		if (!kern->name)
			return -ENOMEM;
		if (strlen(kern->name) != len || !name_ok(kern->name) ||
		    (k && bc_archive_name_cmp(ar->kernels[k - 1].name, kern->name) >= 0)) {
			r->bad = true;
			break;
		}
		kern->raw = rd_varint(r, FLAG_RAW) & FLAG_RAW;
		if (kern->raw) {
			p = rd_bytes(r, &len);
			kern->blob = malloc(len ? len : 1);
			if (!kern->blob)
				return -ENOMEM;
			if (p)
				memcpy(kern->blob, p, len);
			kern->blob_size = len;
		} else {
			kern->parent = (int64_t)rd_varint(r, k) - 1;
			kern->nr_types = (uint32_t)rd_varint(r, 0x7fffffff);
			kern->script = rd_bytes(r, &kern->script_len);
			if (!r->bad && kern->parent >= 0 &&
			    ar->kernels[kern->parent].raw)
				r->bad = true;
		}
		p = rd_bytes(r, &len);
		if (r->bad || len % sizeof(struct bc_btf_layout)) {
			r->bad = true;
			break;
		}
		if (len) {
			kern->layout = malloc(len);
			if (!kern->layout)
				return -ENOMEM;
			memcpy(kern->layout, p, len);
			kern->nr_layout = (uint32_t)(len / sizeof(struct bc_btf_layout));
		}
		kern->nr_att = 0;
		len = rd_varint(r, r->len - r->pos);
		if (!r->bad && len) {
			kern->att = calloc(len, sizeof(*kern->att));
			if (!kern->att)
				return -ENOMEM;
		}
		for (i = 0; i < len && !r->bad; i++) {
			struct ar_attachment *a = &kern->att[i];
			size_t n;

			p = rd_bytes(r, &n);
			if (r->bad || !n || memchr(p, 0, n)) {
				r->bad = true;
				break;
			}
			a->name = strndup((const char *)p, n);
			if (!a->name)
				return -ENOMEM;
			kern->nr_att++;
			if (i && strcmp(kern->att[i - 1].name, a->name) >= 0) {
				r->bad = true;
				break;
			}
			p = rd_bytes(r, &n);
			a->data = malloc(n ? n : 1);
			if (!a->data)
				return -ENOMEM;
			if (p)
				memcpy(a->data, p, n);
			a->size = n;
		}
		if (!r->bad && kern->nr_att)
			err = refresh_att_names(kern);
	}
	return err;
}

static int parse_body(struct bc_archive *ar)
{
	struct reader r = { ar->body, ar->body_size, 0, false };
	uint64_t nr, i;
	int err;

	nr = rd_varint(&r, r.len);
	for (i = 0; i < nr && !r.bad; i++) {
		size_t len;
		const uint8_t *p = rd_bytes(&r, &len);

		if (r.bad || r.pos >= r.len || r.data[r.pos] ||
		    memchr(p, 0, len) || (i == 0) != (len == 0)) {
			r.bad = true;
			break;
		}
		r.pos++;
		if (i == 0)
			continue;	/* "" is there from bc_archive_new() */
		if (push_str(ar, (const char *)p, (uint32_t)len))
			return -ENOMEM;
	}
	if (!nr)
		r.bad = true;
	nr = rd_varint(&r, r.len);
	for (i = 0; i < nr && !r.bad; i++) {
		uint32_t kind = (uint32_t)rd_varint(&r, 0x7f);
		uint32_t sid = (uint32_t)rd_varint(&r, ar->nr_strs - 1);

		if (r.bad || !bc_kind_valid(kind) || !sid) {
			r.bad = true;
			break;
		}
		if (push_kn(ar, kind, sid))
			return -ENOMEM;
	}
	err = r.bad ? 0 : read_records(ar, &r);
	if (!err && !r.bad)
		err = read_kernels(ar, &r);
	if (err)
		return err;
	if (r.bad || r.pos != r.len)
		return -EINVAL;
	return 0;
}

int bc_archive_parse(const void *data, size_t size, const char *path,
		     struct bc_archive **out, const struct bc_log *log)
{
	const uint8_t *file = data;
	struct bc_archive *ar = NULL;
	uint64_t body_len, payload_len;
	size_t got;
	int err;

	*out = NULL;
	if (size < BC_ARCHIVE_MAGIC_LEN ||
	    memcmp(file, BC_ARCHIVE_MAGIC, BC_ARCHIVE_MAGIC_LEN))
		return bc_log_error(log, -EINVAL, "%s: not a btfcanon archive",
				    path);
	if (size < HEADER_LEN + TRAILER_LEN)
		return bc_log_error(log, -EINVAL,
				    "%s: damaged archive: %zu bytes, shorter than its header",
				    path, size);
	body_len = get_le64(file + 16);
	payload_len = get_le64(file + 24);
	if (payload_len != size - HEADER_LEN - TRAILER_LEN)
		return bc_log_error(log, -EINVAL,
			"%s: damaged archive: %zu bytes where its header says %llu (truncated or appended to)",
			path, size,
			(unsigned long long)(payload_len + HEADER_LEN + TRAILER_LEN));
	if (get_le32(file + HEADER_LEN + payload_len) !=
	    crc_of(file, HEADER_LEN + payload_len))
		return bc_log_error(log, -EINVAL,
				    "%s: damaged archive: checksum mismatch",
				    path);
	if (get_le32(file + 8) != FORMAT_VERSION || get_le32(file + 12))
		return bc_log_error(log, -EINVAL,
				    "%s: archive format version %u.%u, this btfcanon reads %u.0",
				    path, get_le32(file + 8), get_le32(file + 12),
				    FORMAT_VERSION);
	if (body_len > (1ull << 34) || body_len > payload_len * 2048 + 4096 ||
	    ZSTD_getFrameContentSize(file + HEADER_LEN, payload_len) != body_len)
		return bc_log_error(log, -EINVAL,
				    "%s: damaged archive: bad compressed body",
				    path);
	err = bc_archive_new(&ar);
	if (err)
		return bc_log_error(log, err, "%s: out of memory", path);
	free(ar->path);
	ar->path = strdup(path);
	ar->body = malloc(body_len ? body_len : 1);
	if (!ar->path || !ar->body) {
		bc_archive_free(ar);
		return bc_log_error(log, -ENOMEM, "%s: out of memory", path);
	}
	ar->body_size = body_len;
	got = ZSTD_decompress(ar->body, body_len, file + HEADER_LEN, payload_len);
	if (ZSTD_isError(got) || got != body_len)
		err = -EINVAL;
	else
		err = parse_body(ar);
	if (err) {
		bc_archive_free(ar);
		if (err == -ENOMEM)
			return bc_log_error(log, err, "%s: out of memory", path);
		return bc_log_error(log, err,
				    "%s: damaged archive: bad contents", path);
	}
	*out = ar;
	return 0;
}

int bc_archive_open(const char *path, struct bc_archive **ar,
		    const struct bc_log *log)
{
	struct bc_blob blob = { 0 };
	struct stat st;
	uint8_t *data;
	size_t done = 0;
	int fd, err;

	*ar = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return bc_log_error(log, -errno, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		return bc_log_error(log, err, "%s: %s", path, strerror(-err));
	}
	/* mapped where it can be: no copy of the compressed file */
	if (S_ISREG(st.st_mode) && st.st_size &&
	    !bc_file_map(fd, 0, (size_t)st.st_size, &blob)) {
		close(fd);
		err = bc_archive_parse(blob.data, blob.size, path, ar, log);
		bc_blob_release(&blob);
		return err;
	}
	data = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!data) {
		close(fd);
		return bc_log_error(log, -ENOMEM, "%s: out of memory", path);
	}
	while (done < (size_t)st.st_size) {
		ssize_t n = read(fd, data + done, (size_t)st.st_size - done);

		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			err = n < 0 ? -errno : -EIO;
			close(fd);
			free(data);
			return bc_log_error(log, err, "%s: cannot read: %s", path,
					    strerror(-err));
		}
		done += (size_t)n;
	}
	close(fd);
	err = bc_archive_parse(data, done, path, ar, log);
	free(data);
	return err;
}
