// SPDX-License-Identifier: GPL-2.0-only
/*
 * Split BTF: a module's types over vmlinux's.
 *
 * The problem. A module's DWARF repeats hundreds of vmlinux's types (every
 * header it includes). Its BTF must name those by their base ids and hold
 * only what the base lacks. libbpf's btf__dedup does this for split BTF,
 * but its price is the base's, not the module's: it indexes every base
 * string (a hash-map entry, malloc'ed, per string) and hashes every base
 * type into its dedup table, about 80% of a small module's encode.
 *
 * The pass here. The module is encoded, deduplicated and selected as
 * standalone BTF (its cost follows the module). split_attach_base() then
 * maps each module type onto an equal base type where there is one:
 *
 *  1. Index the base once, read-only: every type a module type may be
 *     mapped onto (the kinds libbpf's dedup maps: all but VAR, DATASEC;
 *     FUNCs here are the module's own and stay) goes into one
 *     open-addressing table. STRUCT and UNION are keyed by their local
 *     content (kind, vlen, name, size, member names and offsets: no type
 *     ids), every other kind by local content and its referenced ids;
 *     named structs and unions also by name alone. Names are hashed by
 *     content. One pass, no allocation per entry.
 *
 *  2. Map the module's structs and unions, in id order: try the base
 *     types of equal content in id order, checking equivalence
 *     depth-first under a hypothesis (a pair being compared counts as
 *     equal when met again), as cycles through pointers need. The
 *     declaration rules of libbpf's dedup hold inside a check: a FWD and
 *     a struct or union of its name and flavour match, so do an enum
 *     without enumerators and one with. A check that holds proves the
 *     pairs it assumed; those of structs, unions and module declarations
 *     are kept (a module definition that met a base FWD stays the
 *     module's). Two base copies of one type (libbpf's dedup leaves some)
 *     count as one.
 *
 *  3. Map every other type after its references, by looking up (content,
 *     mapped references): a PTR to the module's copy of 'struct sk_buff'
 *     becomes the base's PTR to sk_buff. A type with a reference that has
 *     no base equal has none either. A FWD no check met becomes the
 *     base's definition of its name when the base has exactly one and the
 *     module none (what canon's FWD rule would pick), so that what refers
 *     to it maps too.
 *
 *  4. Write the split BTF: the unmapped module types in module order, ids
 *     remapped (mapped ones to base ids), the module's strings after the
 *     base's (canon's rebuild lays them out again, base strings first).
 *
 * Invariant: a type is mapped only onto a base type equal to it as an
 * infinite tree (modulo FWD -> its definition), so the split BTF means
 * what the standalone one did. Every choice follows from the standalone
 * BTF and the base alone (both functions of the input), in module id
 * order and base id order, so the result is too.
 *
 * Cost: the base index reads each base type and name once (~5 MB on
 * vmlinux, no per-entry allocation); the mapping is linear in the module
 * but for equivalence checks that fail, which revisit a struct's
 * reachable module types once per candidate.
 *
 *	base: [7] PTR -> [9] struct sk_buff { ... }
 *	module (standalone): [1] struct sk_buff { ... } (same content, refs
 *	equal under the hypothesis [1] = [9]), [2] PTR -> [1],
 *	[3] struct priv { [2] *skb; }
 *	map: [1] -> 9, [2] -> 7 (PTR to 9), [3] has no base equal: own.
 *	split: [base_end] struct priv { [7] *skb; }
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

#include "../canon/btf_kinds.h"
#include "../canon/strset.h"
#include "split.h"

#define NO_MATCH UINT32_MAX	/* mapped: no base type equals it */

enum { TODO, VISITING, DONE };

struct base_slot {
	uint32_t hash;
	uint32_t id;		/* 0: empty */
};

struct attach {
	const struct btf *mod, *base;
	uint32_t base_end;		/* first id after the base */
	uint32_t mod_end;
	struct base_slot *slots;	/* base index; power of two */
	uint32_t mask;
	struct base_slot *named;	/* base structs, unions by name; same size */
	struct bc_strset mod_defs;	/* names of the module's structs, unions */
	uint32_t *map;			/* [mod_end] base id or NO_MATCH, once done */
	uint8_t *state;			/* [mod_end] TODO, VISITING, DONE */
	uint32_t *hyp;			/* [mod_end] hypothetical base id, 0: none */
	uint32_t *hyp_list, nr_hyp;	/* module ids with hyp set */
	struct split_attach_stats *stats;
};

/*
 * Kinds mapped onto the base: those libbpf's dedup maps, all but VAR and
 * DATASEC, and not FUNC: the FUNCs here are the module's own functions,
 * written by the selection after the dedup, and a base function of the
 * same name and prototype (a static one elsewhere) is not this one.
 */
static bool mappable(uint32_t kind)
{
	return bc_kind_valid(kind) && kind != BTF_KIND_VAR &&
	       kind != BTF_KIND_DATASEC && kind != BTF_KIND_FUNC;
}

static bool keyed_by_content(uint32_t kind)
{
	return kind == BTF_KIND_STRUCT || kind == BTF_KIND_UNION;
}

static inline uint32_t mix(uint32_t h, uint32_t v)
{
	uint64_t x = ((uint64_t)h << 32 | v) * 0x9e3779b97f4a7c15ULL;

	return (uint32_t)(x >> 32) ^ (uint32_t)x;
}

static uint32_t str_hash(const struct btf *btf, uint32_t off)
{
	const char *s = btf__str_by_offset(btf, off);

	return s ? bc_strset_hash(s, strlen(s)) : 0;
}

/*
 * Hash of t's kind, vlen, kflag, name and head word (a size, where it is
 * not a type id), and of its references when refs is given (the ids they
 * would have: base ids). Entries are left out: the hash only picks
 * candidates, which same_content() and equiv() then check, and hashing
 * every member of every base struct would cost the index most of its time.
 */
static uint32_t type_hash(const struct btf *btf, const struct btf_type *t,
			  const uint32_t *refs)
{
	uint32_t kind = bc_type_kind(t), h = mix(0x12345678, t->info), r, n;

	h = mix(h, t->name_off ? str_hash(btf, t->name_off) : 0);
	if (bc_word_class(kind, 2) == BC_WORD_DATA)
		h = mix(h, t->size);
	if (refs)
		for (r = 0, n = bc_type_nr_refs(t); r < n; r++)
			h = mix(h, refs[r]);
	return h;
}

/* Same kind, vlen, names, data; type-id words not compared. */
static bool same_content(const struct btf *a_btf, const struct btf_type *a,
			 const struct btf *b_btf, const struct btf_type *b)
{
	const uint32_t *wa = (const uint32_t *)a, *wb = (const uint32_t *)b;
	uint32_t kind = bc_type_kind(a), words, j;

	if (a->info != b->info)
		return false;
	words = bc_type_words(a);
	for (j = 0; j < words; j++) {
		switch (bc_word_class(kind, j)) {
		case BC_WORD_NAME:
			if (!wa[j] != !wb[j])
				return false;
			if (wa[j] && strcmp(btf__str_by_offset(a_btf, wa[j]),
					    btf__str_by_offset(b_btf, wb[j])))
				return false;
			break;
		case BC_WORD_REF:
			break;
		default:
			if (wa[j] != wb[j])
				return false;
			break;
		}
	}
	return true;
}

static int index_base(struct attach *a)
{
	uint32_t id, nr = 1024, j;

	while (nr < 2 * a->base_end)
		nr *= 2;
	a->slots = calloc(nr, sizeof(*a->slots));
	a->named = calloc(nr, sizeof(*a->named));
	if (!a->slots || !a->named)
		return -ENOMEM;
	a->mask = nr - 1;
	for (id = 1; id < a->base_end; id++) {
		const struct btf_type *t = btf__type_by_id(a->base, id);
		uint32_t kind = bc_type_kind(t), h, refs[1024], nr_refs;

		if (!mappable(kind))
			continue;
		if (keyed_by_content(kind)) {
			h = type_hash(a->base, t, NULL);
			if (t->name_off) {
				uint32_t nh = mix(kind, str_hash(a->base, t->name_off));

				for (j = nh & a->mask; a->named[j].id;
				     j = (j + 1) & a->mask)
					;
				a->named[j].hash = nh;
				a->named[j].id = id;
			}
		} else {
			nr_refs = bc_type_nr_refs(t);
			if (nr_refs > sizeof(refs) / sizeof(refs[0]))
				continue;	/* never the target of a lookup */
			bc_type_refs(t, refs);
			h = type_hash(a->base, t, refs);
		}
		for (j = h & a->mask; a->slots[j].id; j = (j + 1) & a->mask)
			;
		a->slots[j].hash = h;
		a->slots[j].id = id;
	}
	return 0;
}

static void hyp_clear(struct attach *a)
{
	while (a->nr_hyp)
		a->hyp[a->hyp_list[--a->nr_hyp]] = 0;
}

/*
 * Are base types x and y the same type? Yes when they are one id, or
 * when they have the same content and their references are the same,
 * to a small depth: a base made by libbpf's dedup can hold two copies of
 * a type (a PTR to a struct, say, once per copy of a FUNC_PROTO), and a
 * module type equal to one is equal to both.
 */
#define BASE_SAME_DEPTH 4

static bool base_same(const struct attach *a, uint32_t x, uint32_t y,
		      int depth)
{
	const struct btf_type *tx, *ty;
	const uint32_t *wx, *wy;
	uint32_t kind, words, j;

	if (x == y)
		return true;
	if (!x || !y || x >= a->base_end || y >= a->base_end || !depth)
		return false;
	tx = btf__type_by_id(a->base, x);
	ty = btf__type_by_id(a->base, y);
	if (!same_content(a->base, tx, a->base, ty))
		return false;
	kind = bc_type_kind(tx);
	wx = (const uint32_t *)tx;
	wy = (const uint32_t *)ty;
	words = bc_type_words(tx);
	for (j = 2; j < words; j++)
		if (bc_word_class(kind, j) == BC_WORD_REF &&
		    !base_same(a, wx[j], wy[j], depth - 1))
			return false;
	return true;
}

/* An enum without enumerators (a declaration) against one with, same name and size? */
static bool enum_decl_vs_def(const struct attach *a, const struct btf_type *tm,
			     const struct btf_type *tb)
{
	uint32_t kind = bc_type_kind(tm);

	if ((kind != BTF_KIND_ENUM && kind != BTF_KIND_ENUM64) ||
	    bc_type_kind(tb) != kind || !bc_type_vlen(tm) == !bc_type_vlen(tb) ||
	    tm->size != tb->size || !tm->name_off || !tb->name_off)
		return false;
	return !strcmp(btf__str_by_offset(a->mod, tm->name_off),
		       btf__str_by_offset(a->base, tb->name_off));
}

/*
 * Is module type m equal to base type b, given the hypotheses made so
 * far? Adds (m, b) and the pairs below it as hypotheses.
 */
static bool equiv(struct attach *a, uint32_t m, uint32_t b)
{
	const struct btf_type *tm, *tb;
	const uint32_t *wm, *wb;
	uint32_t kind, words, j;

	if (!m || !b)
		return m == b;
	if (m >= a->mod_end)
		return false;
	/*
	 * A type found to have no equal on its own may have one here: a
	 * PTR to a FWD is no base PTR, but it is the PTR to the struct it
	 * declares. So only a found equal is final.
	 */
	if (a->state[m] == DONE && a->map[m] != NO_MATCH)
		return base_same(a, a->map[m], b, BASE_SAME_DEPTH);
	if (a->hyp[m])
		return base_same(a, a->hyp[m], b, BASE_SAME_DEPTH);
	tm = btf__type_by_id(a->mod, m);
	tb = btf__type_by_id(a->base, b);
	kind = bc_type_kind(tm);
	if (!mappable(kind))
		return false;
	if ((kind == BTF_KIND_FWD) != (bc_type_kind(tb) == BTF_KIND_FWD)) {
		/*
		 * A declaration is the definition of its name and flavour.
		 * A module FWD met against a base definition becomes it; a
		 * module definition met against a base FWD stays the
		 * module's own, but does not make its referrers differ.
		 */
		const struct btf_type *fwd = kind == BTF_KIND_FWD ? tm : tb;
		uint32_t real = kind == BTF_KIND_FWD ? bc_type_kind(tb) : kind;

		if (real != (bc_info_kflag(fwd->info) ? BTF_KIND_UNION :
							BTF_KIND_STRUCT) ||
		    !tm->name_off || !tb->name_off ||
		    strcmp(btf__str_by_offset(a->mod, tm->name_off),
			   btf__str_by_offset(a->base, tb->name_off)))
			return false;
		if (kind == BTF_KIND_FWD) {
			a->hyp[m] = b;
			a->hyp_list[a->nr_hyp++] = m;
		}
		return true;
	}
	if (enum_decl_vs_def(a, tm, tb)) {
		/* the same rule for an enum declared without enumerators */
		if (!bc_type_vlen(tm)) {
			a->hyp[m] = b;
			a->hyp_list[a->nr_hyp++] = m;
		}
		return true;
	}
	if (!same_content(a->mod, tm, a->base, tb))
		return false;
	a->hyp[m] = b;
	a->hyp_list[a->nr_hyp++] = m;
	wm = (const uint32_t *)tm;
	wb = (const uint32_t *)tb;
	words = bc_type_words(tm);
	for (j = 2; j < words; j++)
		if (bc_word_class(kind, j) == BC_WORD_REF &&
		    !equiv(a, wm[j], wb[j]))
			return false;
	return true;
}

/*
 * Makes the hypotheses about structs, unions and FWDs facts. The other
 * kinds are mapped by map_type() from their references, as libbpf's
 * dedup maps them after the structs: a PTR to a module-only struct that
 * a base FWD stood for in the check stays the module's.
 */
static void hyp_commit(struct attach *a)
{
	uint32_t i;

	for (i = 0; i < a->nr_hyp; i++) {
		uint32_t m = a->hyp_list[i];
		uint32_t kind = bc_type_kind(btf__type_by_id(a->mod, m));

		if (keyed_by_content(kind) || kind == BTF_KIND_FWD ||
		    ((kind == BTF_KIND_ENUM || kind == BTF_KIND_ENUM64) &&
		     !bc_type_vlen(btf__type_by_id(a->mod, m)))) {
			a->map[m] = a->hyp[m];
			a->state[m] = DONE;
		}
		a->hyp[m] = 0;
	}
	a->nr_hyp = 0;
}

/*
 * A module FWD that no check met: the base's definition of its name and
 * flavour when the base has exactly one and the module none (canon's FWD
 * rule would pick it too), so that what refers to the FWD maps as well.
 * A base FWD equal to it is left to the lookup. Returns true when mapped.
 */
static bool map_fwd(struct attach *a, uint32_t m, const struct btf_type *t)
{
	uint32_t kind = bc_info_kflag(t->info) ? BTF_KIND_UNION : BTF_KIND_STRUCT;
	const char *name = btf__str_by_offset(a->mod, t->name_off);
	uint32_t nh, j, found = 0;

	if (!t->name_off || !name || bc_strset_find(&a->mod_defs, name) >= 0)
		return false;
	nh = mix(kind, bc_strset_hash(name, strlen(name)));
	for (j = nh & a->mask; a->named[j].id; j = (j + 1) & a->mask) {
		const struct btf_type *bt;

		if (a->named[j].hash != nh)
			continue;
		bt = btf__type_by_id(a->base, a->named[j].id);
		if (bc_type_kind(bt) != kind ||
		    strcmp(btf__str_by_offset(a->base, bt->name_off), name))
			continue;
		if (found)
			return false;	/* two: which one is meant is unknown */
		found = a->named[j].id;
	}
	if (!found)
		return false;
	a->map[m] = found;
	return true;
}

/* Steps 2 and 3 for one type; the result is a->map[m] (a base id or NO_MATCH). */
static void map_type(struct attach *a, uint32_t m)
{
	const struct btf_type *t = btf__type_by_id(a->mod, m);
	uint32_t kind = bc_type_kind(t), h, j, refs[1024], nr_refs, r;

	if (a->state[m] != TODO)
		return;		/* done, or a loop (only through structs) */
	a->state[m] = VISITING;
	a->map[m] = NO_MATCH;
	if (!mappable(kind))
		goto done;
	if (keyed_by_content(kind)) {
		h = type_hash(a->mod, t, NULL);
		for (j = h & a->mask; a->slots[j].id; j = (j + 1) & a->mask) {
			/* a hash collision with another kind is no candidate */
			if (a->slots[j].hash != h ||
			    btf__type_by_id(a->base, a->slots[j].id)->info != t->info)
				continue;
			if (equiv(a, m, a->slots[j].id)) {
				hyp_commit(a);	/* m's among them */
				return;
			}
			hyp_clear(a);
		}
		goto done;
	}
	nr_refs = bc_type_nr_refs(t);
	if (nr_refs > sizeof(refs) / sizeof(refs[0]))
		goto done;
	bc_type_refs(t, refs);
	for (r = 0; r < nr_refs; r++) {
		if (!refs[r])
			continue;
		if (refs[r] >= a->mod_end)
			goto done;
		map_type(a, refs[r]);
		if (a->state[refs[r]] != DONE || a->map[refs[r]] == NO_MATCH)
			goto done;
		refs[r] = a->map[refs[r]];
	}
	/* a check below may have proved m equal to something meanwhile */
	if (a->state[m] == DONE)
		return;
	if (kind == BTF_KIND_FWD && map_fwd(a, m, t))
		goto done;
	h = type_hash(a->mod, t, refs);
	for (j = h & a->mask; a->slots[j].id; j = (j + 1) & a->mask) {
		const struct btf_type *bt;
		uint32_t b = a->slots[j].id, brefs[1024];

		if (a->slots[j].hash != h)
			continue;
		bt = btf__type_by_id(a->base, b);
		if (!same_content(a->mod, t, a->base, bt))
			continue;
		bc_type_refs(bt, brefs);
		if (memcmp(refs, brefs, nr_refs * sizeof(*refs)))
			continue;
		a->map[m] = b;
		break;
	}
done:
	a->state[m] = DONE;	/* unless a check above has made it so */
}

/* Step 4: the unmapped types, over the base, as raw split BTF. */
static int write_split(struct attach *a, void **raw_out, size_t *size_out,
		       uint8_t **omit)
{
	const struct btf_header *mhdr;
	const char *mstrs;
	uint32_t raw_size, m, nr_own = 0, type_len = 0, *new_id, base_str_len;
	const struct btf_header *bhdr;
	struct btf_header *hdr;
	uint8_t *out, *p;
	__u32 bsize;

	mhdr = btf__raw_data((struct btf *)a->mod, &raw_size);
	bhdr = btf__raw_data((struct btf *)a->base, &bsize);
	if (!mhdr || !bhdr)
		return -ENOMEM;
	base_str_len = bhdr->str_len;
	mstrs = (const char *)mhdr + mhdr->hdr_len + mhdr->str_off;
	new_id = calloc(a->mod_end, sizeof(*new_id));
	if (!new_id)
		return -ENOMEM;
	for (m = 1; m < a->mod_end; m++) {
		if (a->map[m] != NO_MATCH)
			continue;
		new_id[m] = a->base_end + nr_own++;
		type_len += bc_type_words(btf__type_by_id(a->mod, m)) * 4;
	}
	out = malloc(sizeof(*hdr) + type_len + mhdr->str_len);
	if (!out) {
		free(new_id);
		return -ENOMEM;
	}
	if (*omit) {
		/* own types keep their order: the map moves to their new ids */
		uint8_t *own_omit = calloc(nr_own + 1, 1);

		if (!own_omit) {
			free(new_id);
			free(out);
			return -ENOMEM;
		}
		for (m = 1; m < a->mod_end; m++)
			if (a->map[m] == NO_MATCH)
				own_omit[new_id[m] - a->base_end] = (*omit)[m - 1];
		free(*omit);
		*omit = own_omit;
	}
	p = out + sizeof(*hdr);
	for (m = 1; m < a->mod_end; m++) {
		const struct btf_type *t = btf__type_by_id(a->mod, m);
		uint32_t kind = bc_type_kind(t), words, j, *w;

		if (a->map[m] != NO_MATCH)
			continue;
		words = bc_type_words(t);
		w = (uint32_t *)p;
		memcpy(w, t, words * 4);
		for (j = 0; j < words; j++) {
			switch (bc_word_class(kind, j)) {
			case BC_WORD_NAME:
				if (w[j])
					w[j] += base_str_len;
				break;
			case BC_WORD_REF:
				if (w[j])
					w[j] = a->map[w[j]] != NO_MATCH ?
					       a->map[w[j]] : new_id[w[j]];
				break;
			default:
				break;
			}
		}
		p += words * 4;
	}
	memcpy(p, mstrs, mhdr->str_len);
	hdr = (struct btf_header *)out;
	memset(hdr, 0, sizeof(*hdr));
	hdr->magic = 0xeB9F;
	hdr->version = 1;
	hdr->hdr_len = sizeof(*hdr);
	hdr->type_len = type_len;
	hdr->str_off = type_len;
	hdr->str_len = mhdr->str_len;
	a->stats->own = nr_own;
	a->stats->mapped = a->mod_end - 1 - nr_own;
	free(new_id);
	*raw_out = out;
	*size_out = sizeof(*hdr) + type_len + mhdr->str_len;
	return 0;
}

/*
 * libbpf 1.1.2 exports no btf__new_split: the bytes go through
 * btf__parse_raw_split on an in-memory file.
 */
static struct btf *split_from_raw(const void *raw, size_t size,
				  struct btf *base)
{
	struct btf *btf = NULL;
	char path[64];
	int fd = memfd_create("btfcanon-split", MFD_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (write(fd, raw, size) == (ssize_t)size) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		btf = btf__parse_raw_split(path, base);
	}
	close(fd);
	return btf;
}

int split_attach_base(const struct btf *mod, struct btf *base, uint8_t **omit,
		      struct btf **out, struct split_attach_stats *stats)
{
	struct attach a = {
		.mod = mod, .base = base,
		.base_end = btf__type_cnt(base), .mod_end = btf__type_cnt(mod),
		.stats = stats,
	};
	void *raw = NULL;
	size_t size = 0;
	uint32_t m;
	int err;

	*out = NULL;
	memset(stats, 0, sizeof(*stats));
	if (btf__base_btf(mod))
		return -EINVAL;
	a.map = calloc(a.mod_end, sizeof(*a.map));
	a.hyp = calloc(a.mod_end, sizeof(*a.hyp));
	a.hyp_list = malloc(a.mod_end * sizeof(*a.hyp_list));
	a.state = calloc(a.mod_end, 1);
	err = bc_strset_init_over(&a.mod_defs, 0);
	if (err)
		goto out;
	err = a.map && a.hyp && a.hyp_list && a.state ? index_base(&a) : -ENOMEM;
	for (m = 1; m < a.mod_end && !err; m++) {
		const struct btf_type *t = btf__type_by_id(mod, m);

		if (!t || !bc_kind_valid(bc_type_kind(t)))
			err = -EINVAL;
		else if (keyed_by_content(bc_type_kind(t)) && t->name_off &&
			 bc_strset_add(&a.mod_defs,
				       btf__str_by_offset(mod, t->name_off)) < 0)
			err = -ENOMEM;
	}
	if (err)
		goto out;
	/* structs and unions first: the other kinds are mapped after them */
	for (m = 1; m < a.mod_end; m++)
		if (keyed_by_content(bc_type_kind(btf__type_by_id(mod, m))))
			map_type(&a, m);
	for (m = 1; m < a.mod_end; m++)
		map_type(&a, m);
	err = write_split(&a, &raw, &size, omit);
	if (err)
		goto out;
	*out = split_from_raw(raw, size, base);
	if (!*out)
		err = errno ? -errno : -EINVAL;
out:
	free(raw);
	bc_strset_deinit(&a.mod_defs);
	free(a.named);
	free(a.slots);
	free(a.map);
	free(a.hyp);
	free(a.hyp_list);
	free(a.state);
	return err;
}
