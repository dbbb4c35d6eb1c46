// SPDX-License-Identifier: GPL-2.0-only
/*
 * A kernel's types as records by name, and back (archive.h is the
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
 * Rebuilding a kernel (ar_build_raw) is the reverse: its list gives each
 * type's id (position + 1), the named ones' (kn, k) and the anonymous
 * ones' record map back to ids, every record is written with ids, and
 * strings are laid out in order of first use as canon's rebuild lays them.
 * Every kernel added is rebuilt at once and compared with its bytes; a
 * kernel that does not come back byte for byte is stored as bytes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---- from a kernel's BTF to records ------------------------------------ */

enum { VISIT_NEW, VISIT_OPEN, VISIT_DONE };

struct encoder {
	struct bc_archive *ar;
	const struct bc_btf *btf;
	uint32_t *kn1;		/* [type] kn + 1, 0 anonymous */
	uint32_t *k;		/* [type] rank among its kn in the kernel */
	uint32_t *rec;		/* [type] its record */
	uint8_t *state;		/* [type] VISIT_* */
	uint32_t *sid_of_off;	/* [own string offset] string number + 1 */
	struct u32vec cells;
	/*
	 * A module (split BTF): its base's types, ids 1 .. start_id - 1, by
	 * name and record (struct ar_split_enc), and the base's string
	 * offsets' numbers; NULL for a kernel.
	 */
	const uint32_t *base_kn1, *base_k, *base_rec;
	uint32_t *base_sid_of_off;
	uint32_t base_str_len;
};

/* e's per-type arrays for n types and str_len bytes of strings, zeroed. */
static int encoder_alloc(struct encoder *e, uint32_t n, uint32_t str_len)
{
	e->kn1 = calloc(n + 1, sizeof(uint32_t));
	e->k = calloc(n + 1, sizeof(uint32_t));
	e->rec = calloc(n + 1, sizeof(uint32_t));
	e->state = calloc(n + 1, 1);
	e->sid_of_off = calloc((size_t)str_len + 1, sizeof(uint32_t));
	return e->kn1 && e->k && e->rec && e->state && e->sid_of_off ? 0 : -ENOMEM;
}

static void encoder_free(struct encoder *e)
{
	free(e->kn1);
	free(e->k);
	free(e->rec);
	free(e->state);
	free(e->sid_of_off);
	free(e->cells.v);
}

/*
 * The pool's number of the string at offset off of the kernel: a member
 * name is met thousands of times, so each offset is looked up in the
 * pool (a hash of its bytes, a probe in a large table) once.
 */
static int64_t kernel_str(struct encoder *e, uint32_t off)
{
	uint32_t *cache = NULL, at = 0;
	int64_t sid;

	if (off >= e->btf->start_str_off &&
	    off - e->btf->start_str_off < e->btf->str_len) {
		cache = e->sid_of_off;
		at = off - e->btf->start_str_off;
	} else if (e->base_sid_of_off && off < e->base_str_len) {
		cache = e->base_sid_of_off;
		at = off;
	}
	if (cache && cache[at])
		return cache[at] - 1;
	sid = ar_intern_str(e->ar, bc_btf_str(e->btf, off));
	if (sid >= 0 && cache)
		cache[at] = (uint32_t)sid + 1;
	return sid;
}

/* The cells of local type idx, its anonymous referents already done. */
static int64_t encode_record(struct encoder *e, uint32_t idx)
{
	const struct btf_type *t = bc_btf_local(e->btf, idx);
	const uint32_t *w = (const uint32_t *)t;
	uint32_t kind = bc_type_kind(t), words = bc_type_words(t), j;
	int err;

	e->cells.n = 0;
	err = ar_u32vec_push(&e->cells, t->info);
	err = err ? err : ar_u32vec_push(&e->cells, e->kn1[idx]);
	for (j = 2; j < words && !err; j++) {
		switch (bc_word_class(kind, j)) {
		case BC_WORD_REF: {
			uint32_t r = w[j], to;

			if (!r) {
				err = ar_u32vec_push(&e->cells, 0);
				break;
			}
			if (r < e->btf->start_id) {	/* a module's base type */
				to = r - 1;
				if (e->base_kn1[to]) {
					err = ar_u32vec_push(&e->cells, 2 * e->base_kn1[to]);
					err = err ? err : ar_u32vec_push(&e->cells, e->base_k[to]);
				} else {
					err = ar_u32vec_push(&e->cells, 1 + 2 * e->base_rec[to]);
				}
				break;
			}
			to = r - e->btf->start_id;
			if (e->kn1[to]) {
				err = ar_u32vec_push(&e->cells, 2 * e->kn1[to]);
				err = err ? err : ar_u32vec_push(&e->cells, e->k[to]);
			} else {
				err = ar_u32vec_push(&e->cells, 1 + 2 * e->rec[to]);
			}
			break;
		}
		case BC_WORD_NAME: {
			int64_t sid = kernel_str(e, w[j]);

			err = sid < 0 ? (int)sid : ar_u32vec_push(&e->cells, (uint32_t)sid);
			break;
		}
		default:
			err = ar_u32vec_push(&e->cells, w[j]);
		}
	}
	if (err)
		return err;
	return ar_intern_rec(e->ar, e->cells.v, (uint32_t)e->cells.n);
}

/*
 * Records type root and, first, every anonymous type it reaches through
 * anonymous types only, depth first. -ELOOP: a loop of anonymous types.
 */
static int encode_from(struct encoder *e, uint32_t root)
{
	struct u32vec stack = { 0 };
	int err = ar_u32vec_push(&stack, root);

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

			if (r < e->btf->start_id)
				continue;	/* void, or a module's base type */
			to = r - e->btf->start_id;
			if (e->kn1[to] || e->state[to] == VISIT_DONE)
				continue;
			if (e->state[to] == VISIT_OPEN) {
				err = -ELOOP;
				break;
			}
			err = ar_u32vec_push(&stack, to);
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
int ar_encode_kernel(struct bc_archive *ar, const struct bc_btf *btf,
			 uint32_t **list)
{
	struct encoder e = { .ar = ar, .btf = btf };
	uint32_t n = btf->nr_types, i, *count = NULL, nr_count = 0;
	int err = ar_load_records(ar);

	err = err ? err : ar_index_pools(ar);
	*list = NULL;
	if (err)
		return err;
	if (btf->base || btf->start_id != 1)
		return -EOPNOTSUPP;
	err = encoder_alloc(&e, n, btf->str_len);
	if (err)
		goto out;
	for (i = 0; i < n && !err; i++) {
		const struct btf_type *t = bc_btf_local(btf, i);
		const char *name = bc_btf_str(btf, t->name_off);
		int64_t sid, kn;

		if (!*name)
			continue;
		sid = kernel_str(&e, t->name_off);
		kn = sid < 0 ? sid : ar_intern_kn(ar, bc_type_kind(t), (uint32_t)sid);
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
	encoder_free(&e);
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

/* A record's info word and kn + 1, from its cells or its head (lazy). */
static inline uint32_t rec_info(const struct bc_archive *ar, uint32_t rec)
{
	return ar->heads ? ar->heads[rec].info : ar->cells[ar->rec_off[rec]];
}

static inline uint32_t rec_kn1(const struct bc_archive *ar, uint32_t rec)
{
	return ar->heads ? ar->heads[rec].kn1 : ar->cells[ar->rec_off[rec] + 1];
}

/*
 * Where a kernel's types are by name: id of (kn, 0) in first[kn], of
 * (kn, k > 0) in the sorted more[], of an anonymous record in anon[rec].
 * Fills ids (first and anon zeroed, as count) from the list; on error the
 * caller cleans up.
 */
static int ids_fill(const struct bc_archive *ar, const uint32_t *list,
		    uint32_t n, struct ar_ids *ids, uint32_t *count)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		uint32_t kn1 = rec_kn1(ar, list[i]);

		if (kn1) {
			uint32_t kn = kn1 - 1, k = count[kn]++;

			if (!k) {
				ids->first[kn] = i + 1;
				continue;
			}
			if (ids->nr_more == ids->cap_more) {
				uint32_t cap = ids->cap_more ? ids->cap_more * 2 : 64;
				struct kn_rank *p = realloc(ids->more, cap * sizeof(*p));

				if (!p)
					return -ENOMEM;
				ids->more = p;
				ids->cap_more = cap;
			}
			ids->more[ids->nr_more++] = (struct kn_rank){ kn, k, i + 1 };
		} else if (ids->anon[list[i]]) {
			return -EINVAL;	/* an anonymous record twice */
		} else {
			ids->anon[list[i]] = i + 1;
		}
	}
	if (ids->nr_more)
		qsort(ids->more, ids->nr_more, sizeof(*ids->more), kn_rank_cmp);
	return 0;
}

int ar_ids_build(const struct bc_archive *ar, const uint32_t *list,
		 uint32_t n, struct ar_ids *ids)
{
	uint32_t *count;
	int err;

	memset(ids, 0, sizeof(*ids));
	ids->first = calloc(ar->nr_kns + 1, sizeof(uint32_t));
	ids->anon = calloc(ar->nr_recs + 1, sizeof(uint32_t));
	count = calloc(ar->nr_kns + 1, sizeof(uint32_t));
	err = ids->first && ids->anon && count ? ids_fill(ar, list, n, ids, count) :
	      -ENOMEM;
	free(count);
	if (err)
		ar_ids_free(ids);
	return err;
}

/*
 * Rebuilding one kernel after another (extract, deps over every kernel)
 * needs the same four arrays over the pools each time: they are kept in
 * the archive, zero between uses, instead of allocated and faulted in
 * afresh per kernel. A kernel sets two thirds of their entries, so they
 * are cleared whole (2 MB of memset for Debian's 118) rather than entry
 * by entry (a second pass over the kernel's records).
 */
static int scratch_ready(struct bc_archive *ar)
{
	struct ar_scratch *sc = &ar->scratch;
	size_t nr;

	if (sc->nr_kns > ar->nr_kns && sc->nr_recs > ar->nr_recs &&
	    sc->nr_strs > ar->nr_strs)
		return 0;
	ar_scratch_free(sc);
	nr = 2 * ((size_t)ar->nr_kns + 1) + ar->nr_recs + 1 + ar->nr_strs + 1;
	/*
	 * calloc: fresh pages come zeroed from the system, each faulted in
	 * when first touched; a memset here faulted in all 7 MB (Debian's four
	 * kernels with their modules) for a module that touches a few pages
	 */
	sc->mem = ar_calloc_big(nr, sizeof(uint32_t));
	if (!sc->mem)
		return -ENOMEM;
	sc->nr_kns = ar->nr_kns + 1;
	sc->nr_recs = ar->nr_recs + 1;
	sc->nr_strs = ar->nr_strs + 1;
	sc->first = sc->mem;
	sc->count = sc->first + sc->nr_kns;
	sc->anon = sc->count + sc->nr_kns;
	sc->placed = sc->anon + sc->nr_recs;
	return 0;
}

static void scratch_clear(struct ar_scratch *sc)
{
	if (sc->mem)
		memset(sc->mem, 0, (2 * (size_t)sc->nr_kns + sc->nr_recs +
				    sc->nr_strs) * sizeof(uint32_t));
}

void ar_scratch_free(struct ar_scratch *sc)
{
	free(sc->mem);
	memset(sc, 0, sizeof(*sc));
}

void ar_ids_free(struct ar_ids *ids)
{
	free(ids->first);
	free(ids->anon);
	free(ids->more);
	memset(ids, 0, sizeof(*ids));
}

/*
 * A view's ids by record. A view is opened per kernel (118 of them for
 * deps over Debian's archive) and asked for a few hundred types, so
 * opening it must not cost a pass over the records (their cells are
 * spread over megabytes) nor fresh arrays over every (kind, name) pair:
 * of_rec[list[i]] = i + 1 reads the list alone, into an array the views
 * reuse. A (kn, k) is then found among the records of kn (two on average
 * in Debian's archive, up to one per kernel and version of the type):
 * those in the kernel, in id order, k-th. Example: struct dup has records
 * 7 and 9 archive-wide; a kernel listing 9 at id 3 and 7 at id 5 has
 * (dup, 0) = 3, (dup, 1) = 5.
 */
int ar_ids_by_rec(const uint32_t *list, uint32_t n, uint32_t *of_rec,
		  const struct ar_views *by_kn, struct ar_ids *ids)
{
	uint32_t i;

	memset(ids, 0, sizeof(*ids));
	for (i = 0; i < n; i++) {
		if (of_rec[list[i]]) {
			ar_ids_by_rec_clear(list, i, of_rec);
			return -EEXIST;
		}
		of_rec[list[i]] = i + 1;
	}
	ids->of_rec = of_rec;
	ids->by_kn = by_kn;
	return 0;
}

void ar_ids_by_rec_clear(const uint32_t *list, uint32_t n, uint32_t *of_rec)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		of_rec[list[i]] = 0;
}

uint32_t ar_ids_named(const struct ar_ids *ids, uint32_t kn, uint32_t *out,
		      uint32_t max)
{
	const struct ar_views *v = ids->by_kn;
	uint32_t nr = 0, i, id;

	if (!ids->of_rec) {
		/* by (kn, k): k = 0, 1, ... are in id order already */
		while ((id = ar_ids_ref(ids, 2 + 2 * kn, nr))) {
			if (nr < max)
				out[nr] = id;
			nr++;
		}
		return nr;
	}
	if (kn >= v->nr_kns)
		return 0;
	for (i = v->kn_start[kn]; i < v->kn_start[kn + 1]; i++) {
		uint32_t at;

		id = ids->of_rec[v->kn_recs[i]];
		if (!id)
			continue;
		/* insert, keeping the max smallest in order */
		at = nr < max ? nr : max;
		for (; at > 0 && out[at - 1] > id; at--)
			if (at < max)
				out[at] = out[at - 1];
		if (at < max)
			out[at] = id;
		nr++;
	}
	return nr;
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static uint32_t by_rec_ref(const struct ar_ids *ids, uint32_t code, uint32_t k)
{
	const struct ar_views *v = ids->by_kn;
	uint32_t small[16], *buf, nr, kn, i, m, id = 0;

	if (code & 1) {
		uint32_t rec = (code - 1) / 2;

		if (rec >= v->nr_recs || ((v->named[rec / 64] >> (rec % 64)) & 1))
			return 0;
		return ids->of_rec[rec];
	}
	kn = code / 2 - 1;
	if (kn >= v->nr_kns)
		return 0;
	if (!k) {
		for (i = v->kn_start[kn]; i < v->kn_start[kn + 1]; i++) {
			uint32_t x = ids->of_rec[v->kn_recs[i]];

			if (x && (!id || x < id))
				id = x;
		}
		return id;
	}
	/* a name the kernel has more than once (rare): the k-th of its ids */
	m = v->kn_start[kn + 1] - v->kn_start[kn];
	if (k >= m)
		return 0;	/* more than kn has records: a forged k */
	buf = m <= 16 ? small : malloc((size_t)m * sizeof(*buf));
	if (!buf)
		return 0;
	for (i = v->kn_start[kn], nr = 0; i < v->kn_start[kn + 1]; i++)
		if (ids->of_rec[v->kn_recs[i]])
			buf[nr++] = ids->of_rec[v->kn_recs[i]];
	if (nr > k) {
		qsort(buf, nr, sizeof(*buf), u32_cmp);
		id = buf[k];
	}
	if (buf != small)
		free(buf);
	return id;
}

/* The kernel's id of the type a reference code names (0: none). */
uint32_t ar_ids_ref(const struct ar_ids *ids, uint32_t code, uint32_t k)
{
	struct kn_rank key, *hit;

	if (!code)
		return 0;
	if (ids->of_rec)
		return by_rec_ref(ids, code, k);
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
	return ar_info_words(ar->cells[ar->rec_off[rec]]);
}

int ar_record_words(const struct bc_archive *ar, const struct ar_ids *ids,
		    uint32_t rec, uint32_t *w)
{
	const uint32_t *c = ar->cells + ar->rec_off[rec];
	uint32_t info = c[0], kind = bc_info_kind(info);
	uint32_t words = ar_info_words(info), j, ci = 2;
	struct ar_word_cursor wc;
	int err = 0;

	w[0] = c[1] ? ar->kns[c[1] - 1].sid : 0;
	w[1] = info;
	ar_word_cursor_init(&wc, kind);
	for (j = 2; j < words; j++) {
		switch (ar_word_next(&wc)) {
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
 * A record's words read as varints from d[*pos .. end), every number
 * checked against what it indexes, into out: as cells (ids NULL), or
 * (ids given) straight as the BTF words after name and info, references
 * turned into the kernel's ids as cells_words() turns them. One body for
 * both, so the lazy rebuild makes one pass over a record's bytes and
 * checks exactly what a whole read checks. Returns the number of words
 * written, or -EINVAL.
 */
static inline __attribute__((always_inline)) int
decode_words(const struct bc_archive *ar, uint32_t nr_recs, uint32_t info,
	     const uint8_t *d, size_t end, size_t *pos, uint32_t *out,
	     const struct ar_ids *ids)
{
	uint32_t words = ar_info_words(info), j, v, k, at = 0;
	struct ar_word_cursor wc;
	size_t p = *pos;

	ar_word_cursor_init(&wc, bc_info_kind(info));
	for (j = 2; j < words; j++) {
		enum bc_word_class cls = ar_word_next(&wc);

		if (!ar_get_u32(d, end, &p, &v))
			return -EINVAL;
		if (cls == BC_WORD_REF && (v & 1)) {
			if (v / 2 >= nr_recs)
				return -EINVAL;
			/* the rebuild's ids are by (kn, k): the common cases inline */
			if (ids && !(v = ids->of_rec ? ar_ids_ref(ids, v, 0) :
					 ids->anon[v / 2]))
				return -EINVAL;
		} else if (cls == BC_WORD_REF && v) {
			if (v / 2 - 1 >= ar->nr_kns || !ar_get_u32(d, end, &p, &k))
				return -EINVAL;
			if (ids) {
				if (!(v = ids->of_rec || k ? ar_ids_ref(ids, v, k) :
					  ids->first[v / 2 - 1]))
					return -EINVAL;
			} else {
				out[at++] = v;
				v = k;
			}
		} else if (cls == BC_WORD_NAME && v >= ar->nr_strs) {
			return -EINVAL;
		}
		out[at++] = v;
	}
	*pos = p;
	return (int)at;
}

int ar_decode_words(const struct bc_archive *ar, uint32_t nr_recs,
		    uint32_t info, const uint8_t *d, size_t end, size_t *pos,
		    uint32_t *cells)
{
	return decode_words(ar, nr_recs, info, d, end, pos, cells, NULL);
}

int ar_load_records(struct bc_archive *ar)
{
	size_t room, at = 0;
	uint32_t *cells, *off, i;
	int err;

	if (!ar->heads)
		return 0;
	err = ar_body_complete(ar);
	if (err)
		return err;
	room = ar->words_len + 2 * (size_t)ar->nr_recs + 1;
	if (room > UINT32_MAX)
		return -EINVAL;
	cells = ar_alloc_big(room * sizeof(*cells));
	off = malloc(((size_t)ar->nr_recs + 2) * sizeof(*off));
	if (!cells || !off) {
		free(cells);
		free(off);
		return -ENOMEM;
	}
	for (i = 0; i < ar->nr_recs; i++) {
		const struct ar_rec_head *h = &ar->heads[i];
		size_t pos = h->pos;
		int n;

		off[i] = (uint32_t)at;
		cells[at] = h->info;
		cells[at + 1] = h->kn1;
		n = ar_decode_words(ar, ar->nr_recs, h->info, ar->words,
				    h[1].pos, &pos, cells + at + 2);
		if (n < 0 || pos != h[1].pos) {
			free(cells);
			free(off);
			return -EINVAL;
		}
		at += 2 + (uint32_t)n;
	}
	off[ar->nr_recs] = (uint32_t)at;
	free(ar->cells);
	free(ar->rec_off);
	ar->cells = cells;
	ar->cap_cells = room;
	ar->nr_cells = at;
	ar->rec_off = off;
	ar->cap_recs = ar->nr_recs + 2;
	free(ar->heads);
	ar->heads = NULL;
	return 0;
}

/*
 * Record rec as BTF words into w (names as string numbers, references as
 * the kernel's ids): from its cells, or (lazy) straight from the body,
 * whose words must fill the record's bytes exactly. 0 or -EINVAL.
 */
static int record_words(const struct bc_archive *ar, const struct ar_ids *ids,
			uint32_t rec, uint32_t *w)
{
	const struct ar_rec_head *h;
	size_t pos;
	int n;

	if (!ar->heads)
		return ar_record_words(ar, ids, rec, w);
	h = &ar->heads[rec];
	pos = h->pos;
	if (ar_body_need(ar, ar->words + h[1].pos))
		return -EINVAL;
	w[0] = h->kn1 ? ar->kns[h->kn1 - 1].sid : 0;
	w[1] = h->info;
	n = decode_words(ar, ar->nr_recs, h->info, ar->words, h[1].pos, &pos,
			 w + 2, ids);
	return n < 0 || pos != h[1].pos ? -EINVAL : 0;
}

/* The 24-byte BTF header at the head of a blob of types and strings. */
static void put_btf_header(uint8_t *blob, size_t type_len, size_t str_len)
{
	struct btf_header *hdr = (struct btf_header *)blob;

	memset(hdr, 0, sizeof(*hdr));
	hdr->magic = 0xeB9F;
	hdr->version = 1;
	hdr->hdr_len = sizeof(*hdr);
	hdr->type_len = (uint32_t)type_len;
	hdr->str_off = (uint32_t)type_len;
	hdr->str_len = (uint32_t)str_len;
}

/*
 * Kernel list[0..n) as BTF bytes: the types in list order, strings in
 * order of first use ("" at 0), then the layout section when there is one.
 * -EINVAL when a reference names no type of the kernel.
 *
 * One buffer: the types' size is known from the list, so the strings go
 * right after the types' room as they are first used, and the buffer is
 * the BTF as it stands, with nothing copied after.
 */
static int build_raw(struct bc_archive *ar, const uint32_t *list,
		     uint32_t n, const struct bc_btf_layout *layout,
		     uint32_t nr_layout, void **raw, size_t *size,
		     uint32_t *keep_placed)
{
	const size_t hdr_len = sizeof(struct btf_header);
	struct ar_ids ids = { 0 };
	struct ar_buf out = { 0 };
	uint32_t *placed, i;
	size_t total = 0, at = hdr_len, str_start;
	int err = scratch_ready(ar);

	*raw = NULL;
	err = err ? err : ar_recs_ready(ar, list, n);	/* format 6 in part */
	if (err)
		return err;
	ids.first = ar->scratch.first;
	ids.anon = ar->scratch.anon;
	placed = ar->scratch.placed;
	err = ids_fill(ar, list, n, &ids, ar->scratch.count);
	if (err)
		goto out;
	for (i = 0; i < n; i++)
		total += ar_info_words(rec_info(ar, list[i])) * 4ull;
	if (total > UINT32_MAX / 2) {	/* BTF's sections have 32-bit lengths */
		err = -EINVAL;
		goto out;
	}
	/* strings take about 3/4 of the types' bytes in a kernel */
	out.cap = hdr_len + 2 * total + 64;
	out.data = ar_alloc_big(out.cap);
	if (!out.data) {
		err = -ENOMEM;
		goto out;
	}
	str_start = out.len = hdr_len + total;
	out.data[out.len++] = 0;
	for (i = 0; i < n && !err; i++) {
		uint32_t info = rec_info(ar, list[i]), j;
		uint32_t kind = bc_info_kind(info), words = ar_info_words(info);
		struct ar_word_cursor wc;

		err = record_words(ar, &ids, list[i], (uint32_t *)(out.data + at));
		ar_word_cursor_init(&wc, kind);
		for (j = 0; j < words && !err; j++) {
			uint32_t *w = (uint32_t *)(out.data + at), sid = w[j];

			if ((j > 1 && ar_word_next(&wc) != BC_WORD_NAME) || j == 1 ||
			    !sid)
				continue;
			if (placed[sid]) {
				w[j] = placed[sid] - 1;
				continue;
			}
			placed[sid] = (uint32_t)(out.len - str_start) + 1;
			/* may move the buffer */
			err = ar_str_ready(ar, sid);
			err = err ? err : ar_buf_put(&out, ar->strs[sid].s,
						     ar->strs[sid].len + 1);
			((uint32_t *)(out.data + at))[j] = placed[sid] - 1;
		}
		at += words * 4;
	}
	if (!err) {
		put_btf_header(out.data, total, out.len - str_start);
		*raw = out.data;
		*size = out.len;
		out.data = NULL;
		if (keep_placed)
			memcpy(keep_placed, placed, ar->nr_strs * sizeof(*placed));
		if (layout)
			err = bc_btf_blob_add_layout(raw, size, layout, nr_layout);
	}
out:
	free(out.data);
	free(ids.more);
	scratch_clear(&ar->scratch);
	return err;
}

int ar_build_raw(struct bc_archive *ar, const uint32_t *list,
		 uint32_t n, const struct bc_btf_layout *layout,
		 uint32_t nr_layout, void **raw, size_t *size)
{
	return build_raw(ar, list, n, layout, nr_layout, raw, size, NULL);
}


/* ---- modules: split BTF over their kernel's base ------------------------ */

/*
 * The problem. A module's BTF is split over its kernel's vmlinux: its
 * type ids continue the base's and its names are offsets into the base's
 * strings or its own. Stored as bytes, a module unchanged between two
 * releases differs in every reference to a base type (the base's ids
 * moved). Taken by name, it does not: a module's record refers to a base
 * type exactly as a kernel's record refers to one of its own types, by
 * (kind, name, k) or, anonymous, by record. So a module is a list of
 * records too, read in the id space of its kernel followed by its own
 * types: a named type's k counts the base's types of its kind and name
 * first (a module's own `struct foo` beside the base's is k 1), an
 * anonymous record stands for the module's type of that content if it has
 * one, else the base's.
 *
 * Invariant: a module rebuilt from its list and its kernel's is
 * byte-identical to its canonical split BTF (`sort --base VMLINUX`, over
 * the kernel's canonical bytes); archive.c checks it when a module is
 * added, and keeps a module that does not come back as its bytes.
 *
 * Cost: the base's names and ranks are taken once per kernel
 * (ar_split_enc_new, ar_base_map_build: a pass over the base's types and
 * a rebuild of its bytes for the string offsets), then each module costs
 * its own types only.
 */
struct ar_split_enc {
	struct bc_archive *ar;
	const struct bc_btf *base;
	const uint32_t *base_list;	/* [base type] its record */
	uint32_t *kn1, *k;		/* [base type] */
	uint32_t *count;		/* [kn] the base's types of kn */
	uint32_t *mcount;		/* [kn] a module's, zero between modules */
	uint32_t nr_count;
	uint32_t *sid_of_off;		/* [base string offset] number + 1 */
};

static int grow_counts(struct ar_split_enc *enc, uint32_t kn)
{
	uint32_t cap = (kn + 1) * 2, *c, *m;

	if (kn < enc->nr_count)
		return 0;
	c = realloc(enc->count, cap * sizeof(*c));
	if (c)
		enc->count = c;
	m = realloc(enc->mcount, cap * sizeof(*m));
	if (m)
		enc->mcount = m;
	if (!c || !m)
		return -ENOMEM;
	memset(enc->count + enc->nr_count, 0, (cap - enc->nr_count) * sizeof(*c));
	memset(enc->mcount + enc->nr_count, 0, (cap - enc->nr_count) * sizeof(*m));
	enc->nr_count = cap;
	return 0;
}

void ar_split_enc_free(struct ar_split_enc *enc)
{
	if (!enc)
		return;
	free(enc->kn1);
	free(enc->k);
	free(enc->count);
	free(enc->mcount);
	free(enc->sid_of_off);
	free(enc);
}

int ar_split_enc_new(struct bc_archive *ar, const struct bc_btf *base,
		     const uint32_t *base_list, struct ar_split_enc **out)
{
	struct ar_split_enc *enc = calloc(1, sizeof(*enc));
	struct encoder e = { .ar = ar, .btf = base };
	uint32_t n = base->nr_types, i;
	int err = enc ? ar_load_records(ar) : -ENOMEM;

	*out = NULL;
	err = err ? err : ar_index_pools(ar);
	if (err) {
		free(enc);
		return err;
	}
	enc->ar = ar;
	enc->base = base;
	enc->base_list = base_list;
	enc->kn1 = calloc(n + 1, sizeof(uint32_t));
	enc->k = calloc(n + 1, sizeof(uint32_t));
	enc->sid_of_off = calloc((size_t)base->str_len + 1, sizeof(uint32_t));
	if (!enc->kn1 || !enc->k || !enc->sid_of_off)
		err = -ENOMEM;
	e.sid_of_off = enc->sid_of_off;
	for (i = 0; i < n && !err; i++) {
		const struct btf_type *t = bc_btf_local(base, i);
		int64_t sid, kn;

		if (!t->name_off || !*bc_btf_str(base, t->name_off))
			continue;
		sid = kernel_str(&e, t->name_off);
		kn = sid < 0 ? sid : ar_intern_kn(ar, bc_type_kind(t), (uint32_t)sid);
		err = kn < 0 ? (int)kn : grow_counts(enc, (uint32_t)kn);
		if (err)
			break;
		enc->kn1[i] = (uint32_t)kn + 1;
		enc->k[i] = enc->count[kn]++;
	}
	if (err) {
		ar_split_enc_free(enc);
		return err;
	}
	*out = enc;
	return 0;
}

int ar_encode_module(struct ar_split_enc *enc, const struct bc_btf *mod,
		     uint32_t **list)
{
	struct encoder e = {
		.ar = enc->ar, .btf = mod,
		.base_kn1 = enc->kn1, .base_k = enc->k,
		.base_rec = enc->base_list,
		.base_sid_of_off = enc->sid_of_off,
		.base_str_len = enc->base->str_len,
	};
	uint32_t n = mod->nr_types, i;
	int err = 0;

	*list = NULL;
	if (mod->base != enc->base || mod->start_id != enc->base->nr_types + 1)
		return -EINVAL;
	err = encoder_alloc(&e, n, mod->str_len);
	if (err)
		goto out;
	for (i = 0; i < n && !err; i++) {
		const struct btf_type *t = bc_btf_local(mod, i);
		int64_t sid, kn;

		if (!*bc_btf_str(mod, t->name_off))
			continue;
		sid = kernel_str(&e, t->name_off);
		kn = sid < 0 ? sid : ar_intern_kn(enc->ar, bc_type_kind(t), (uint32_t)sid);
		err = kn < 0 ? (int)kn : grow_counts(enc, (uint32_t)kn);
		if (err)
			break;
		e.kn1[i] = (uint32_t)kn + 1;
		e.k[i] = enc->count[kn] + enc->mcount[kn]++;
	}
	for (i = 0; i < n; i++)	/* mcount zero again */
		if (e.kn1[i])
			enc->mcount[e.kn1[i] - 1] = 0;
	for (i = 0; i < n && !err; i++)
		if (e.state[i] != VISIT_DONE)
			err = encode_from(&e, i);
	if (!err) {
		*list = e.rec;
		e.rec = NULL;
	}
out:
	encoder_free(&e);
	return err;
}

void ar_base_map_free(struct ar_base_map *map)
{
	ar_ids_free(&map->ids);
	free(map->count);
	free(map->str_off);
	memset(map, 0, sizeof(*map));
}

/*
 * Where each of the base's strings lands in its string section, and the
 * section's size, without rebuilding the base: what a module's rebuild
 * needs when the base's bytes are not wanted (extract of one module).
 *
 * Problem: build_raw() writes the base's every type (its references
 * resolved) and string (4 MB for Debian's 6.1 amd64) to learn the
 * strings' offsets, and a module reads only the offsets. Invariant: the
 * offsets and size are build_raw()'s exactly: the same walk (the list
 * in order; in each record its name, then its name words in order),
 * each string placed at its first use, "" at 0. Each record's words are
 * decoded as cells with every check a read makes (numbers against what
 * they index, the record's bytes filled exactly); the references are
 * not resolved to the base's ids, which no module's bytes depend on.
 * Cost: one pass over the base's records' words, no output buffer.
 */
static const uint32_t *record_cells(const struct bc_archive *ar, uint32_t rec,
				    uint32_t *buf);

static int base_strings(struct bc_archive *ar, const uint32_t *list,
			uint32_t n, struct ar_base_map *map)
{
	uint32_t *cells = NULL, cap = 0, i, len = 1;	/* "" at 0 */
	struct u32vec order = { 0 };	/* the strings in order of first use */
	int err = 0;

	for (i = 0; i < n && !err; i++) {
		uint32_t rec = list[i], info = rec_info(ar, rec), kn1 = rec_kn1(ar, rec);
		uint32_t words = ar_info_words(info), j, ci = 0, sid;
		const uint32_t *c;
		struct ar_word_cursor wc;

		if (ar->heads) {
			uint32_t need = ar->heads[rec + 1].pos - ar->heads[rec].pos;

			if (need > cap) {
				uint32_t *p = realloc(cells, need * sizeof(*p));

				if (!p) {
					err = -ENOMEM;
					break;
				}
				cells = p;
				cap = need;
			}
		}
		c = record_cells(ar, rec, cells);
		if (!c) {
			err = -EINVAL;
			break;
		}
		ar_word_cursor_init(&wc, bc_info_kind(info));
		for (j = 0; j < words && !err; j++) {
			if (j == 0) {
				sid = kn1 ? ar->kns[kn1 - 1].sid : 0;
			} else if (j == 1) {
				continue;
			} else {
				enum bc_word_class cls = ar_word_next(&wc);
				uint32_t v = c[ci++];

				if (cls == BC_WORD_REF && v && !(v & 1))
					ci++;		/* the k of a named reference */
				if (cls != BC_WORD_NAME)
					continue;
				sid = v;
			}
			if (!sid || map->str_off[sid])
				continue;
			map->str_off[sid] = 1;	/* placed below */
			err = ar_u32vec_push(&order, sid);
		}
	}
	free(cells);
	/* format 6 read in part: the lengths read first, all together */
	err = err ? err : ar_strs_ready(ar, order.v, (uint32_t)order.n);
	for (i = 0; i < order.n && !err; i++) {
		uint32_t sid = order.v[i];

		if ((uint64_t)len + ar->strs[sid].len + 1 > UINT32_MAX / 2) {
			err = -EINVAL;
			break;
		}
		map->str_off[sid] = len + 1;
		len += ar->strs[sid].len + 1;
	}
	free(order.v);
	map->str_len = len;
	return err;
}

int ar_base_map_build(struct bc_archive *ar, const uint32_t *list, uint32_t n,
		      const struct bc_btf_layout *layout, uint32_t nr_layout,
		      struct ar_base_map *map, void **raw, size_t *size)
{
	void *bytes = NULL;
	size_t len = 0;
	int err;

	memset(map, 0, sizeof(*map));
	map->nr_count = ar->nr_kns;
	map->nr_anon = ar->nr_recs;
	map->nr_strs = ar->nr_strs;
	map->nr_types = n;
	map->ids.first = ar_calloc_big(ar->nr_kns + 1, sizeof(uint32_t));
	map->ids.anon = ar_calloc_big(ar->nr_recs + 1, sizeof(uint32_t));
	map->count = ar_calloc_big(ar->nr_kns + 1, sizeof(uint32_t));
	map->str_off = ar_calloc_big(ar->nr_strs + 1, sizeof(uint32_t));
	err = map->ids.first && map->ids.anon && map->count && map->str_off ?
	      ar_recs_ready(ar, list, n) : -ENOMEM;	/* format 6 in part */
	err = err ? err : ids_fill(ar, list, n, &map->ids, map->count);
	if (!raw) {
		err = err ? err : base_strings(ar, list, n, map);
		if (err)
			ar_base_map_free(map);
		return err;
	}
	err = err ? err : build_raw(ar, list, n, layout, nr_layout, &bytes, &len,
				    map->str_off);
	if (!err) {
		const struct btf_header *hdr = bytes;

		map->str_len = hdr->str_len;
	}
	if (!err && raw) {
		*raw = bytes;
		*size = len;
		bytes = NULL;
	}
	free(bytes);
	if (err)
		ar_base_map_free(map);
	return err;
}

struct rec_id {
	uint32_t rec, id;
};

static int rec_id_cmp(const void *a, const void *b)
{
	const struct rec_id *x = a, *y = b;

	return (x->rec > y->rec) - (x->rec < y->rec);
}

/* A module's own types by name and record; the base's through map. */
struct module_ids {
	const struct ar_base_map *map;
	struct kn_rank *named;		/* (kn, k less the base's), sorted */
	uint32_t nr_named;
	struct rec_id *anon;		/* sorted by record */
	uint32_t nr_anon;
};

static uint32_t module_ref(const struct module_ids *mi, uint32_t code, uint32_t k)
{
	const struct ar_base_map *map = mi->map;
	uint32_t kn, in_base;

	if (!code)
		return 0;
	if (code & 1) {
		struct rec_id key = { (code - 1) / 2, 0 }, *hit;

		hit = mi->nr_anon ? bsearch(&key, mi->anon, mi->nr_anon,
					    sizeof(key), rec_id_cmp) : NULL;
		if (hit)
			return hit->id;
		return key.rec < map->nr_anon ? map->ids.anon[key.rec] : 0;
	}
	kn = code / 2 - 1;
	in_base = kn < map->nr_count ? map->count[kn] : 0;
	if (k < in_base)
		return ar_ids_ref(&map->ids, code, k);
	{
		struct kn_rank key = { kn, k - in_base, 0 }, *hit;

		hit = mi->nr_named ? bsearch(&key, mi->named, mi->nr_named,
					     sizeof(key), kn_rank_cmp) : NULL;
		return hit ? hit->id : 0;
	}
}

static int kn_rank_by_kn_id(const void *a, const void *b)
{
	const struct kn_rank *x = a, *y = b;

	if (x->kn != y->kn)
		return x->kn < y->kn ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

static int module_ids_fill(const struct bc_archive *ar, const uint32_t *list,
			   uint32_t m, struct module_ids *mi)
{
	uint32_t i, j;

	mi->named = malloc(((size_t)m + 1) * sizeof(*mi->named));
	mi->anon = malloc(((size_t)m + 1) * sizeof(*mi->anon));
	if (!mi->named || !mi->anon)
		return -ENOMEM;
	for (i = 0; i < m; i++) {
		uint32_t kn1 = rec_kn1(ar, list[i]), id = mi->map->nr_types + i + 1;

		if (kn1)
			mi->named[mi->nr_named++] = (struct kn_rank){ kn1 - 1, 0, id };
		else
			mi->anon[mi->nr_anon++] = (struct rec_id){ list[i], id };
	}
	/* k in id order among the module's types of one kn */
	qsort(mi->named, mi->nr_named, sizeof(*mi->named), kn_rank_by_kn_id);
	for (i = 0; i < mi->nr_named; i = j)
		for (j = i; j < mi->nr_named && mi->named[j].kn == mi->named[i].kn; j++)
			mi->named[j].k = j - i;
	qsort(mi->anon, mi->nr_anon, sizeof(*mi->anon), rec_id_cmp);
	for (i = 1; i < mi->nr_anon; i++)
		if (mi->anon[i].rec == mi->anon[i - 1].rec)
			return -EINVAL;	/* an anonymous record twice */
	return 0;
}

/*
 * Record rec's cells after info and kn + 1: in the cells, or (lazy)
 * decoded from the body into buf (room for its bytes). NULL: damaged.
 */
static const uint32_t *record_cells(const struct bc_archive *ar, uint32_t rec,
				    uint32_t *buf)
{
	const struct ar_rec_head *h;
	size_t pos;
	int n;

	if (!ar->heads)
		return ar->cells + ar->rec_off[rec] + 2;
	h = &ar->heads[rec];
	pos = h->pos;
	if (ar_body_need(ar, ar->words + h[1].pos))
		return NULL;
	n = ar_decode_words(ar, ar->nr_recs, h->info, ar->words, h[1].pos,
			    &pos, buf);
	return n < 0 || pos != h[1].pos ? NULL : buf;
}

int ar_build_module(struct bc_archive *ar, const struct ar_base_map *map,
		    const uint32_t *list, uint32_t m,
		    const struct bc_btf_layout *layout, uint32_t nr_layout,
		    void **raw, size_t *size)
{
	const size_t hdr_len = sizeof(struct btf_header);
	struct module_ids mi = { .map = map };
	struct ar_buf out = { 0 };
	struct u32vec cellbuf = { 0 }, own = { 0 };
	uint32_t *placed = NULL, i;
	size_t total = 0, at = hdr_len, str_start;
	int err = scratch_ready(ar);

	*raw = NULL;
	err = err ? err : ar_recs_ready(ar, list, m);	/* format 6 in part */
	err = err ? err : module_ids_fill(ar, list, m, &mi);
	if (err)
		goto out;
	placed = ar->scratch.placed;
	for (i = 0; i < m; i++) {
		uint32_t rec = list[i];

		total += ar_info_words(rec_info(ar, rec)) * 4ull;
		if (ar->heads && ar->heads[rec + 1].pos - ar->heads[rec].pos > cellbuf.cap) {
			uint32_t need = ar->heads[rec + 1].pos - ar->heads[rec].pos;
			uint32_t *p = realloc(cellbuf.v, need * sizeof(*p));

			if (!p) {
				err = -ENOMEM;
				goto out;
			}
			cellbuf.v = p;
			cellbuf.cap = need;
		}
	}
	if (total + map->str_len > UINT32_MAX / 2) {
		err = -EINVAL;
		goto out;
	}
	out.cap = hdr_len + 2 * total + 64;
	out.data = malloc(out.cap);
	if (!out.data) {
		err = -ENOMEM;
		goto out;
	}
	str_start = out.len = hdr_len + total;
	for (i = 0; i < m && !err; i++) {
		uint32_t rec = list[i], info = rec_info(ar, rec), kn1 = rec_kn1(ar, rec);
		uint32_t kind = bc_info_kind(info), words = ar_info_words(info);
		const uint32_t *c = record_cells(ar, rec, cellbuf.v);
		struct ar_word_cursor wc;
		uint32_t j, ci = 0;

		if (!c) {
			err = -EINVAL;
			break;
		}
		ar_word_cursor_init(&wc, kind);
		for (j = 0; j < words && !err; j++) {
			enum bc_word_class cls = j == 0 ? BC_WORD_NAME :
				j == 1 ? BC_WORD_DATA : ar_word_next(&wc);
			uint32_t v, sid;

			if (j == 0) {
				sid = kn1 ? ar->kns[kn1 - 1].sid : 0;
			} else if (j == 1) {
				((uint32_t *)(out.data + at))[1] = info;
				continue;
			} else if (cls == BC_WORD_REF) {
				uint32_t code = c[ci++], k = 0;

				if (code && !(code & 1))
					k = c[ci++];
				v = module_ref(&mi, code, k);
				if (code && !v)
					err = -EINVAL;
				((uint32_t *)(out.data + at))[j] = v;
				continue;
			} else if (cls != BC_WORD_NAME) {
				((uint32_t *)(out.data + at))[j] = c[ci++];
				continue;
			} else {
				sid = c[ci++];
			}
			/* a name: the base's offset, else the module's own */
			if (!sid) {
				v = 0;
			} else if (sid < map->nr_strs && map->str_off[sid]) {
				v = map->str_off[sid] - 1;
			} else if (sid >= ar->nr_strs) {
				err = -EINVAL;
				break;
			} else {
				if (!placed[sid]) {
					placed[sid] = (uint32_t)(out.len - str_start) + 1;
					err = ar_str_ready(ar, sid);
					err = err ? err : ar_u32vec_push(&own, sid);
					err = err ? err : ar_buf_put(&out, ar->strs[sid].s,
								     ar->strs[sid].len + 1);
				}
				v = map->str_len + placed[sid] - 1;
			}
			((uint32_t *)(out.data + at))[j] = v;
		}
		at += words * 4;
	}
	if (!err) {
		put_btf_header(out.data, total, out.len - str_start);
		*raw = out.data;
		*size = out.len;
		out.data = NULL;
		if (layout)
			err = bc_btf_blob_add_layout(raw, size, layout, nr_layout);
	}
out:
	/* placed zero again: the module's own strings only */
	for (i = 0; placed && i < own.n; i++)
		placed[own.v[i]] = 0;
	free(out.data);
	free(cellbuf.v);
	free(own.v);
	free(mi.named);
	free(mi.anon);
	return err;
}
