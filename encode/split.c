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
 *  1. Index the base once, read-only (the parsed bc_btf the caller hands
 *     canon too: no copy), and only what the module can match, since a
 *     kernel build pays this once per module. Of the kinds a module type
 *     may be mapped onto (those libbpf's dedup maps: all but VAR,
 *     DATASEC; FUNCs here are the module's own and stay), a named base
 *     type is listed under its name when some module type has that name;
 *     an anonymous one goes into a table by local content (kind, vlen,
 *     size; STRUCT and UNION without their referenced ids, other kinds
 *     with them) when every type it refers to is void, a named type of
 *     a module name or another such anonymous type, since an equal of a
 *     module type has the module's names. A list or a table slot holds
 *     its types in id order.
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
 * Cost: the base index reads each base type once and hashes the names of
 * the named ones of mappable kinds (12k of vmlinux's 107k); its table
 * holds the anonymous types a module's names reach (8k-16k of vmlinux's
 * 47k for a small module, under 32k for mlx5_core, xfs or nfsv4). The
 * mapping is linear in the module but for equivalence checks that fail,
 * which revisit a struct's reachable module types once per candidate.
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
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

#include "../canon/btf_data.h"
#include "../canon/btf_kinds.h"
#include "../canon/strset.h"
#include "split.h"

#define NO_MATCH UINT32_MAX	/* mapped: no base type equals it */
#define MAX_REFS 1024		/* a type with more is never looked up */

enum { TODO, VISITING, DONE };

/* The anonymous base types of one hash: anon[head - 1], then anon_next. */
struct base_slot {
	uint32_t hash;
	uint32_t head;		/* 0: empty */
};

struct attach {
	const struct btf *mod;
	const struct bc_btf *base;
	const char *mod_strs, *base_strs;	/* string sections, offset 0 */
	uint32_t base_end;		/* first id after the base */
	uint32_t mod_end;
	/*
	 * Anonymous base types by content: one slot per hash (a power of
	 * two of them), its types listed in id order, as many share one
	 * (anonymous unions of a size, say): anon[] holds their ids,
	 * anon_next[i] the index + 1 of the next one of anon[i]'s hash.
	 */
	struct base_slot *slots;
	uint32_t mask;
	uint32_t *anon, *anon_next;
	/*
	 * Named base types by name: the base ids whose name the module's
	 * mappable types have, name k's in id order at
	 * name_ids[name_start[k] .. name_start[k + 1]); k numbers the names
	 * of mod_names in order of addition (name_of_off: a name's offset
	 * there -> k).
	 */
	struct bc_strset mod_names;
	uint32_t nr_names;
	uint32_t *name_of_off;		/* mod_names offset -> k */
	uint32_t *name_start, *name_ids;
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

/* Looked up by its references too (see index_base): never with too many. */
static bool indexable(const struct btf_type *t)
{
	uint32_t kind = bc_type_kind(t);

	if (!mappable(kind))
		return false;
	/* only entries can make too many */
	return !bc_kinds[kind].entry_ref_mask || keyed_by_content(kind) ||
	       bc_type_nr_refs(t) <= MAX_REFS;
}

static inline uint32_t mix(uint32_t h, uint32_t v)
{
	uint64_t x = ((uint64_t)h << 32 | v) * 0x9e3779b97f4a7c15ULL;

	return (uint32_t)(x >> 32) ^ (uint32_t)x;
}

static const struct btf_type *base_type(const struct attach *a, uint32_t id)
{
	return bc_btf_local(a->base, id - 1);
}

/*
 * Hash of an anonymous t's kind, vlen, kflag and head word (a size,
 * where it is not a type id), and of its references when refs is given
 * (the ids they would have: base ids). Entries are left out: the hash
 * only picks candidates, which same_content() and equiv() then check.
 */
static uint32_t anon_hash(const struct btf_type *t, const uint32_t *refs)
{
	uint32_t kind = bc_type_kind(t), h = mix(0x12345678, t->info), r, n;

	if (bc_word_class(kind, 2) == BC_WORD_DATA)
		h = mix(h, t->size);
	if (refs)
		for (r = 0, n = bc_type_nr_refs(t); r < n; r++)
			h = mix(h, refs[r]);
	return h;
}

/* Same kind, vlen, names, data; type-id words not compared. */
static bool same_content(const char *a_strs, const struct btf_type *a,
			 const char *b_strs, const struct btf_type *b)
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
			if (wa[j] && strcmp(a_strs + wa[j], b_strs + wb[j]))
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

/*
 * The module's names first: every mappable named module type's, so that
 * a base type whose name is not among them is passed over (index_base).
 */
static int collect_mod_names(struct attach *a)
{
	uint32_t m, k;

	for (m = 1; m < a->mod_end; m++) {
		const struct btf_type *t = btf__type_by_id(a->mod, m);
		uint32_t kind = bc_type_kind(t);

		if (!bc_kind_valid(kind))
			return -EINVAL;
		if (keyed_by_content(kind) && t->name_off &&
		    bc_strset_add(&a->mod_defs, a->mod_strs + t->name_off) < 0)
			return -ENOMEM;
		if (!t->name_off || !mappable(kind))
			continue;
		if (bc_strset_add(&a->mod_names, a->mod_strs + t->name_off) < 0)
			return -ENOMEM;
	}
	a->nr_names = a->mod_names.nr_used;
	a->name_start = calloc(a->nr_names + 2, sizeof(*a->name_start));
	a->name_of_off = malloc((a->mod_names.len + 1) * sizeof(*a->name_of_off));
	if (!a->name_start || !a->name_of_off)
		return -ENOMEM;
	for (m = 0, k = 0; m < a->mod_names.len; k++) {
		a->name_of_off[m] = k;
		m += strlen(a->mod_names.buf + m) + 1;
	}
	return 0;
}

/* Index k of a module name (in mod_names), or -1. */
static int64_t name_index(const struct attach *a, const char *name)
{
	int64_t off = bc_strset_find(&a->mod_names, name);

	return off < 0 ? -1 : (int64_t)a->name_of_off[off];
}

/* What index_base() knows of a base type: can it be a module type's equal? */
enum { REL_UNKNOWN, REL_VISITING, REL_YES, REL_NO };

struct rel_frame {
	uint32_t id, next;	/* the type, and its next ref in base->refs */
};

/*
 * Decides rel[] for the anonymous base type root and every undecided one
 * it reaches: REL_YES when each of its references is void, a named type
 * of a name the module has, or an anonymous type of REL_YES. Only such
 * a type can equal a module type (an equal's names are the module's), so
 * only those go into the table. A loop of anonymous types (no C type
 * makes one) counts as REL_YES: the set may be too big, never too small.
 * Depth-first with an explicit stack, over the parser's list of each
 * base type's references.
 */
static int decide_anon(struct attach *a, uint8_t *rel, uint32_t root,
		       struct rel_frame **stack, uint32_t *cap)
{
	const struct bc_btf *base = a->base;
	uint32_t sp = 0, r = 0;

	rel[root] = REL_VISITING;
	(*stack)[sp++] = (struct rel_frame){ root, base->ref_start[root - 1] };
	while (sp) {
		struct rel_frame *f = &(*stack)[sp - 1];
		uint32_t end = base->ref_start[f->id];	/* [id - 1 + 1] */
		uint8_t verdict = REL_YES;

		for (; f->next < end; f->next++) {
			if (!(r = base->refs[f->next]))
				continue;
			if (rel[r] == REL_NO) {
				verdict = REL_NO;
				break;
			}
			if (rel[r] == REL_UNKNOWN)
				break;	/* looked at again once r is decided */
		}
		if (f->next < end && verdict == REL_YES) {
			if (sp == *cap) {
				struct rel_frame *grown =
					realloc(*stack, 2 * *cap * sizeof(**stack));

				if (!grown)
					return -ENOMEM;
				*stack = grown;
				*cap *= 2;
			}
			rel[r] = REL_VISITING;
			(*stack)[sp++] = (struct rel_frame){ r, base->ref_start[r - 1] };
			continue;
		}
		rel[f->id] = verdict;
		sp--;
	}
	return 0;
}

/*
 * Step 1: one pass over the base, which it only reads. Named types go
 * to their name's list when the module has a type of that name; the
 * anonymous ones that can equal a module type (decide_anon) to the list
 * of their anon_hash(), their references included (structs and unions:
 * without). On vmlinux, 60k of the 107k types are of kinds a module type
 * maps onto and 47k of those are anonymous; a small module's names leave
 * 8k-16k of them.
 */
static int index_base(struct attach *a)
{
	uint32_t id, nr, i, j, nr_anon = 0, nr_named = 0, cap = 64;
	struct { uint32_t k, id; } *named = NULL;
	struct rel_frame *stack = malloc(cap * sizeof(*stack));
	uint8_t *rel = calloc(a->base_end, 1);
	int err = -ENOMEM;

	/* the anonymous mappable types, to decide below: then those kept */
	a->anon = malloc(a->base_end * sizeof(*a->anon));
	if (!stack || !rel || !a->anon)
		goto out;
	rel[0] = REL_YES;	/* void */
	for (id = 1; id < a->base_end; id++) {
		const struct btf_type *t;
		int64_t k;

		/* the kind from a byte: a FUNC's record (44% of them) is not read */
		if (!mappable(a->base->kinds[id - 1])) {
			rel[id] = REL_NO;
			continue;
		}
		t = base_type(a, id);
		if (!t->name_off) {
			a->anon[nr_anon++] = id;
			continue;
		}
		k = a->nr_names ? name_index(a, a->base_strs + t->name_off) : -1;
		rel[id] = k >= 0 ? REL_YES : REL_NO;
		if (k < 0 || !indexable(t))
			continue;
		if (!(nr_named & (nr_named + 1))) {
			void *grown = realloc(named, (2 * nr_named + 1) *
						     sizeof(*named));

			if (!grown)
				goto out;
			named = grown;
		}
		named[nr_named].k = k;
		named[nr_named++].id = id;
		a->name_start[k + 2]++;
	}
	/* name_start[k + 1] counts name k's base types, then places them */
	a->name_ids = malloc((nr_named ? nr_named : 1) * sizeof(*a->name_ids));
	if (!a->name_ids)
		goto out;
	for (j = 2; j < a->nr_names + 2; j++)
		a->name_start[j] += a->name_start[j - 1];
	for (j = 0; j < nr_named; j++)
		a->name_ids[a->name_start[named[j].k + 1]++] = named[j].id;
	for (i = 0; i < nr_anon; i++)
		if (rel[a->anon[i]] == REL_UNKNOWN &&
		    (err = decide_anon(a, rel, a->anon[i], &stack, &cap)))
			goto out;
	err = -ENOMEM;
	for (i = 0, j = 0; i < nr_anon; i++)
		if (rel[a->anon[i]] == REL_YES &&
		    indexable(base_type(a, a->anon[i])))
			a->anon[j++] = a->anon[i];
	nr_anon = j;
	a->anon_next = malloc((nr_anon ? nr_anon : 1) * sizeof(*a->anon_next));
	for (nr = 1; nr < 2 * nr_anon; nr *= 2)
		;
	a->slots = calloc(nr, sizeof(*a->slots));
	if (!a->anon_next || !a->slots)
		goto out;
	a->mask = nr - 1;
	/* last id first: each list is then in id order */
	for (i = nr_anon; i-- > 0;) {
		const struct btf_type *t = base_type(a, a->anon[i]);
		uint32_t h;

		/* the parser laid out the references, in bc_type_refs() order */
		h = anon_hash(t, keyed_by_content(bc_type_kind(t)) ? NULL :
				 a->base->refs + a->base->ref_start[a->anon[i] - 1]);
		for (j = h & a->mask; a->slots[j].head && a->slots[j].hash != h;
		     j = (j + 1) & a->mask)
			;
		a->anon_next[i] = a->slots[j].head;
		a->slots[j].hash = h;
		a->slots[j].head = i + 1;
	}
	err = 0;
out:
	free(named);
	free(stack);
	free(rel);
	return err;
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
	tx = base_type(a, x);
	ty = base_type(a, y);
	if (!same_content(a->base_strs, tx, a->base_strs, ty))
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

/* Do module type tm and base type tb have one name? */
static bool same_name(const struct attach *a, const struct btf_type *tm,
		      const struct btf_type *tb)
{
	return tm->name_off && tb->name_off &&
	       !strcmp(a->mod_strs + tm->name_off, a->base_strs + tb->name_off);
}

/* An enum without enumerators (a declaration) against one with, same name and size? */
static bool enum_decl_vs_def(const struct attach *a, const struct btf_type *tm,
			     const struct btf_type *tb)
{
	uint32_t kind = bc_type_kind(tm);

	if ((kind != BTF_KIND_ENUM && kind != BTF_KIND_ENUM64) ||
	    bc_type_kind(tb) != kind || !bc_type_vlen(tm) == !bc_type_vlen(tb) ||
	    tm->size != tb->size)
		return false;
	return same_name(a, tm, tb);
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
	if (m >= a->mod_end || b >= a->base_end)
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
	tb = base_type(a, b);
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
		    !same_name(a, tm, tb))
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
	if (!same_content(a->mod_strs, tm, a->base_strs, tb))
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
		const struct btf_type *t = btf__type_by_id(a->mod, m);
		uint32_t kind = bc_type_kind(t);

		if (keyed_by_content(kind) || kind == BTF_KIND_FWD ||
		    ((kind == BTF_KIND_ENUM || kind == BTF_KIND_ENUM64) &&
		     !bc_type_vlen(t))) {
			a->map[m] = a->hyp[m];
			a->state[m] = DONE;
		}
		a->hyp[m] = 0;
	}
	a->nr_hyp = 0;
}

/*
 * The base types that may equal module type t, in base id order: for a
 * named t, the base types of its name (name_ids[i .. end)), for an
 * anonymous one those of its hash (anon[i - 1], then anon_next).
 * next_candidate() steps.
 */
struct candidates {
	const struct attach *a;
	bool named;
	uint32_t i, end;
};

static void candidates_init(struct candidates *c, const struct attach *a,
			    const struct btf_type *t, uint32_t hash)
{
	uint32_t j;
	int64_t k;

	c->a = a;
	c->named = t->name_off;
	c->i = c->end = 0;
	if (c->named) {
		k = name_index(a, a->mod_strs + t->name_off);
		if (k >= 0) {
			c->i = a->name_start[k];
			c->end = a->name_start[k + 1];
		}
		return;
	}
	for (j = hash & a->mask; a->slots[j].head; j = (j + 1) & a->mask)
		if (a->slots[j].hash == hash) {
			c->i = a->slots[j].head;
			return;
		}
}

/* The next candidate's base id, or 0 when there is none. */
static uint32_t next_candidate(struct candidates *c)
{
	const struct attach *a = c->a;
	uint32_t id;

	if (c->named)
		return c->i < c->end ? a->name_ids[c->i++] : 0;
	if (!c->i)
		return 0;
	id = a->anon[c->i - 1];
	c->i = a->anon_next[c->i - 1];
	return id;
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
	struct candidates c;
	uint32_t b, found = 0;

	if (!t->name_off ||
	    bc_strset_find(&a->mod_defs, a->mod_strs + t->name_off) >= 0)
		return false;
	candidates_init(&c, a, t, 0);
	while ((b = next_candidate(&c))) {
		if (bc_type_kind(base_type(a, b)) != kind)
			continue;
		if (found)
			return false;	/* two: which one is meant is unknown */
		found = b;
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
	uint32_t kind = bc_type_kind(t), refs[MAX_REFS], nr_refs, r, b;
	struct candidates c;

	if (a->state[m] != TODO)
		return;		/* done, or a loop (only through structs) */
	a->state[m] = VISITING;
	a->map[m] = NO_MATCH;
	if (!mappable(kind))
		goto done;
	if (keyed_by_content(kind)) {
		candidates_init(&c, a, t, anon_hash(t, NULL));
		while ((b = next_candidate(&c))) {
			/* another kind, or a struct of another size */
			if (base_type(a, b)->info != t->info)
				continue;
			if (equiv(a, m, b)) {
				hyp_commit(a);	/* m's among them */
				return;
			}
			hyp_clear(a);
		}
		goto done;
	}
	nr_refs = bc_type_nr_refs(t);
	if (nr_refs > MAX_REFS)
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
	candidates_init(&c, a, t, anon_hash(t, refs));
	while ((b = next_candidate(&c))) {
		const struct btf_type *bt = base_type(a, b);

		/* same content: as many references, laid out by the parser */
		if (!same_content(a->mod_strs, t, a->base_strs, bt) ||
		    memcmp(refs, a->base->refs + a->base->ref_start[b - 1],
			   nr_refs * sizeof(*refs)))
			continue;
		a->map[m] = b;
		break;
	}
done:
	a->state[m] = DONE;	/* unless a check above has made it so */
}

/* Step 4: the unmapped types, over the base, as raw split BTF. */
static int write_split(struct attach *a, void **raw_out, uint32_t *size_out,
		       uint8_t **omit)
{
	const struct btf_header *mhdr;
	const char *mstrs;
	uint32_t raw_size, m, nr_own = 0, type_len = 0, *new_id;
	uint32_t base_str_len = a->base->str_len;
	struct btf_header *hdr;
	uint8_t *out, *p;

	mhdr = btf__raw_data((struct btf *)a->mod, &raw_size);
	if (!mhdr)
		return -ENOMEM;
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

int split_attach_base(const struct btf *mod, const struct bc_btf *base,
		      uint8_t **omit, void **raw, uint32_t *size,
		      struct split_attach_stats *stats)
{
	struct attach a = {
		.mod = mod, .base = base,
		.base_end = bc_btf_end_id(base), .mod_end = btf__type_cnt(mod),
		.stats = stats,
	};
	uint32_t m;
	int err;

	*raw = NULL;
	*size = 0;
	memset(stats, 0, sizeof(*stats));
	if (btf__base_btf(mod) || base->base)
		return -EINVAL;
	a.mod_strs = btf__str_by_offset(mod, 0);
	a.base_strs = base->strs;
	a.map = calloc(a.mod_end, sizeof(*a.map));
	a.hyp = calloc(a.mod_end, sizeof(*a.hyp));
	a.hyp_list = malloc(a.mod_end * sizeof(*a.hyp_list));
	a.state = calloc(a.mod_end, 1);
	err = bc_strset_init_over(&a.mod_defs, 0);
	if (!err)
		err = bc_strset_init_over(&a.mod_names, 0);
	if (!err && (!a.map || !a.hyp || !a.hyp_list || !a.state || !a.mod_strs))
		err = -ENOMEM;
	if (!err)
		err = collect_mod_names(&a);
	if (!err)
		err = index_base(&a);
	if (err)
		goto out;
	/* structs and unions first: the other kinds are mapped after them */
	for (m = 1; m < a.mod_end; m++)
		if (keyed_by_content(bc_type_kind(btf__type_by_id(mod, m))))
			map_type(&a, m);
	for (m = 1; m < a.mod_end; m++)
		map_type(&a, m);
	err = write_split(&a, raw, size, omit);
out:
	bc_strset_deinit(&a.mod_defs);
	bc_strset_deinit(&a.mod_names);
	free(a.name_of_off);
	free(a.name_start);
	free(a.name_ids);
	free(a.slots);
	free(a.anon);
	free(a.anon_next);
	free(a.map);
	free(a.hyp);
	free(a.hyp_list);
	free(a.state);
	return err;
}
