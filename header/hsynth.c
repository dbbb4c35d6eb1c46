// SPDX-License-Identifier: GPL-2.0-only
/*
 * The synthetic BTF of one architecture (pass 2 of header.c's list).
 *
 * Problem: one BTF must hold the newest kernel's types and what every
 * older kernel has that the newest lacks or declares differently. A new
 * BTF starts as the newest kernel's types, ids and all. Each older
 * kernel, newest first, is compared with it by name: a named struct,
 * union, enum or typedef the synthetic BTF lacks is copied whole (so it
 * comes from the newest kernel that has it); a member (anonymous members
 * looked through) that the synthetic type lacks or declares differently
 * (C spelling by names, cdecl.h), and an enumerator it lacks, is
 * recorded as a variant (flavors.c names them). Types a copy needs are
 * mapped to the synthetic BTF's by (kind, name), copied when missing.
 * kfuncs of every kernel are counted and the missing ones copied.
 *
 * Invariant: the synthetic BTF is a function of the kernels in their
 * order (with --layout the first is the chosen kernel and "newest",
 * "older" read "first", "later": the code is the same), not of the
 * order of an older kernel's types: one read whole from a file as
 * pahole wrote it, sorted, or through an archive's view gives the same
 * BTF, type for type (hdr_merge_older(), hdr_merge_older_view()).
 * Cost: a kernel's comparison is one pass over its named types, comparing
 * only those whose signature is new (one C spelling per member) with the
 * synthetic type's spellings, kept once.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "../archive/archive.h"
#include "../canon/btf_kinds.h"
#include "cdecl.h"
#include "hkernels.h"
#include "hsynth.h"
#include "kpart.h"
#include "smap.h"

static const struct btf_type *lb_type(const void *src, uint32_t id)
{
	return id ? btf__type_by_id(src, id) : NULL;
}

static const char *lb_str(const void *src, uint32_t off)
{
	return btf__name_by_offset(src, off);
}

/* ---- the synthetic BTF of one architecture ---- */

const char *hdr_make_key(struct synth *y, char tag, const char *name)
{
	bc_text_truncate(&y->key, 0);
	bc_text_add(&y->key, &tag, 1);
	bc_text_add(&y->key, ":", 1);
	bc_text_puts(&y->key, name);
	return bc_text_str(&y->key);
}

/* The map tag of a named type of this kind, or 0 when not mapped by name. */
static char name_tag(const struct btf_type *t)
{
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
		return 'i';
	case BTF_KIND_FLOAT:
		return 'f';
	case BTF_KIND_STRUCT:
		return 's';
	case BTF_KIND_UNION:
		return 'u';
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		return btf_vlen(t) ? 'e' : 'E';	/* 'E': enum N; declared only */
	case BTF_KIND_TYPEDEF:
		return 't';
	case BTF_KIND_FWD:
		return 'w';
	case BTF_KIND_FUNC:
		return 'F';
	default:
		return 0;
	}
}

static bool is_tag_kind(char tag)
{
	return tag == 's' || tag == 'u' || tag == 'e' || tag == 'w' || tag == 'E';
}

static uint32_t uses_of(const struct synth *y, uint32_t id)
{
	return y->uses && id < y->nr_newest ? y->uses[id] : 0;
}

/* key -> id in m, unless m has a type at least as used under key. */
static int put_named(struct synth *y, struct smap *m, const char *key,
		     uint32_t id)
{
	uint32_t old;

	if (hdr_smap_get(m, key, &old))
		return uses_of(y, id) > uses_of(y, old) ?
		       hdr_smap_put(m, key, id, true) : 0;
	return hdr_smap_put(m, key, id, false);
}

/* Registers synthetic type id under its kind and name, and its C identifiers. */
int hdr_note_type(struct synth *y, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(y->s, id);
	const char *name = btf__name_by_offset(y->s, t->name_off);
	char tag = name_tag(t);
	uint32_t j;
	int err = 0;

	if (*name && tag) {
		err = put_named(y, &y->names, hdr_make_key(y, tag, name), id);
		if (!err && is_tag_kind(tag) && tag != 'w' && tag != 'E')
			err = put_named(y, &y->names, hdr_make_key(y, 'T', name), id);
	}
	if (!err && *name && (btf_is_typedef(t) || btf_is_func(t)))
		err = put_named(y, &y->idents, name, id);
	if (btf_is_enum(t) || btf_is_enum64(t)) {
		for (j = 0; !err && j < btf_vlen(t); j++) {
			uint32_t off = btf_is_enum(t) ? btf_enum(t)[j].name_off :
							btf_enum64(t)[j].name_off;

			err = hdr_smap_put(&y->idents, btf__name_by_offset(y->s, off),
					   id, false);
		}
	}
	return err;
}

/*
 * The synthetic type a named source type maps to: same kind and name; a
 * FWD maps to the struct or union it declares when there is one; a
 * struct, union or enum whose tag the synthetic BTF gives to another kind
 * maps to that (C has one tag namespace). 0: none.
 */
static uint32_t find_named(struct synth *y, const struct btf_type *t,
			   const char *name)
{
	char tag = name_tag(t);
	uint32_t id;

	if (btf_is_fwd(t)) {
		if (hdr_smap_get(&y->names, hdr_make_key(y, btf_kflag(t) ? 'u' : 's', name), &id))
			return id;
	}
	if (tag == 'E' && hdr_smap_get(&y->names, hdr_make_key(y, 'e', name), &id))
		return id;
	if (hdr_smap_get(&y->names, hdr_make_key(y, tag, name), &id))
		return id;
	if (is_tag_kind(tag) && hdr_smap_get(&y->names, hdr_make_key(y, 'T', name), &id))
		return id;
	return 0;
}

/* The kth type reference slot of t, or NULL past the last. */
static uint32_t *ref_slot(struct btf_type *t, uint32_t k)
{
	return bc_type_word_of_class((uint32_t *)t, BC_WORD_REF, k);
}

/*
 * Renames the enumerators of a copied enum that are C identifiers already
 * (an enum renamed, its constants kept): ENUMERATOR___ENUMNAME, which
 * CO-RE still matches to ENUMERATOR.
 */
static int rename_taken_enumerators(struct synth *y, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(y->s, id);
	char *enum_name = strdup(btf__name_by_offset(y->s, t->name_off));
	uint32_t j, vlen = btf_vlen(t), dummy;
	int err = enum_name ? 0 : -ENOMEM;

	for (j = 0; !err && j < vlen; j++) {
		struct btf_type *mt = (struct btf_type *)btf__type_by_id(y->s, id);
		uint32_t *off = btf_is_enum(mt) ? &btf_enum(mt)[j].name_off :
						  &btf_enum64(mt)[j].name_off;
		char *renamed;
		int str;

		if (!hdr_smap_get(&y->idents, btf__name_by_offset(y->s, *off), &dummy))
			continue;
		if (asprintf(&renamed, "%s___%s", btf__name_by_offset(y->s, *off),
			     *enum_name ? enum_name : "anon") < 0)
			return free(enum_name), -ENOMEM;
		str = btf__add_str(y->s, renamed);
		free(renamed);
		if (str < 0) {
			err = str;
			break;
		}
		mt = (struct btf_type *)btf__type_by_id(y->s, id);
		off = btf_is_enum(mt) ? &btf_enum(mt)[j].name_off :
					&btf_enum64(mt)[j].name_off;
		*off = str;
	}
	free(enum_name);
	return err;
}

/*
 * The synthetic id for source type id: the synthetic type of the same
 * kind and name when there is one, else a copy, registered before its
 * references are copied (so loops through pointers end). Returns the id
 * (0 for void) or a negative errno.
 */
static int copy_type(struct synth *y, struct copy_src *src, uint32_t id)
{
	const struct btf_type *t;
	const char *name;
	uint32_t k, found;
	int nid, err;

	if (!id)
		return 0;
	if (src->memo[id])
		return src->memo[id];
	t = btf__type_by_id(src->btf, id);
	if (!t)
		return -EINVAL;
	name = btf__name_by_offset(src->btf, t->name_off);
	if (*name && name_tag(t) && (found = find_named(y, t, name))) {
		src->memo[id] = found;
		return found;
	}
	if (*name && btf_is_typedef(t) && hdr_smap_get(&y->idents, name, &found)) {
		/* the name is an enumerator or function here: use its target */
		err = copy_type(y, src, t->type);
		if (err >= 0)
			src->memo[id] = err;
		return err;
	}
	nid = btf__add_type(y->s, src->btf, t);
	if (nid < 0)
		return nid;
	src->memo[id] = nid;
	if (btf_is_enum(t) || btf_is_enum64(t)) {
		err = rename_taken_enumerators(y, nid);
		if (err)
			return err;
	}
	err = hdr_note_type(y, nid);
	if (err)
		return err;
	for (k = 0;; k++) {
		struct btf_type *nt = (struct btf_type *)btf__type_by_id(y->s, nid);
		uint32_t *slot = ref_slot(nt, k);
		int ref;

		if (!slot)
			break;
		ref = copy_type(y, src, *slot);
		if (ref < 0)
			return ref;
		nt = (struct btf_type *)btf__type_by_id(y->s, nid);
		*ref_slot(nt, k) = ref;
	}
	return nid;
}

/*
 * btf__resolve_size() without libbpf's warning for what has no size (a
 * FWD, void, a function): -1 for those.
 */
int hdr_sized(const struct btf *btf, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	int depth = 0;

	while (t && depth++ < 64 && (btf_is_typedef(t) || btf_is_mod(t) ||
				     btf_is_type_tag(t) || btf_is_array(t))) {
		id = btf_is_array(t) ? btf_array(t)->type : t->type;
		t = btf__type_by_id(btf, id);
	}
	if (!t || !id || btf_is_fwd(t) || btf_is_func(t) ||
	    btf_is_func_proto(t) || depth >= 64)
		return -1;
	return 0;
}

static void leaves_free(struct leaves *l)
{
	uint32_t i;

	if (!l)
		return;
	for (i = 0; i < l->nr; i++) {
		free(l->v[i].name);
		free(l->v[i].decl);
	}
	free(l->v);
	free(l);
}

static int cmp_leaf(const void *pa, const void *pb)
{
	const struct leaf *a = pa, *b = pb;
	int c = strcmp(a->name, b->name);

	return c ? c : strcmp(a->decl, b->decl);
}

/* Appends the named members of struct or union id, anonymous members looked through. */
static int flatten(const struct btf *btf, uint32_t id, struct leaves *out,
		   struct bc_text *scratch, int depth)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	uint32_t j;
	int err;

	if (depth > 32)
		return 0;
	for (j = 0; j < btf_vlen(t); j++) {
		const struct btf_member *m = btf_members(t) + j;
		const char *name = btf__name_by_offset(btf, m->name_off);
		struct bc_cdecl c = { .type_of = lb_type, .str_of = lb_str,
				      .src = btf };
		struct leaf *l;

		if (!*name) {
			if (hdr_is_composite(btf__type_by_id(btf, m->type))) {
				err = flatten(btf, m->type, out, scratch, depth + 1);
				if (err)
					return err;
			}
			continue;
		}
		if (out->nr == out->cap) {
			uint32_t cap = out->cap ? 2 * out->cap : 16;
			struct leaf *v = realloc(out->v, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			out->v = v;
			out->cap = cap;
		}
		l = &out->v[out->nr];
		l->name = strdup(name);
		l->type = m->type;
		l->bits = btf_member_bitfield_size(t, j);
		bc_text_truncate(scratch, 0);
		bc_cdecl_type(&c, m->type, name, scratch);
		if (l->bits)
			bc_text_printf(scratch, ":%u", l->bits);
		if (scratch->err)
			return scratch->err;
		l->decl = strdup(bc_text_str(scratch));
		if (!l->decl || !l->name) {
			free(l->decl);
			free(l->name);
			return -ENOMEM;
		}
		out->nr++;
	}
	return 0;
}

/* The synthetic struct or union id's members, sorted by name (kept). */
struct leaves *hdr_synth_leaves(struct synth *y, uint32_t id, int *err)
{
	struct leaves *l;

	if (id >= y->nr_s_leaves) {
		uint32_t nr = btf__type_cnt(y->s) + 1024;
		struct leaves **grown = realloc(y->s_leaves, nr * sizeof(*grown));

		if (!grown) {
			*err = -ENOMEM;
			return NULL;
		}
		memset(grown + y->nr_s_leaves, 0,
		       (nr - y->nr_s_leaves) * sizeof(*grown));
		y->s_leaves = grown;
		y->nr_s_leaves = nr;
	}
	if (y->s_leaves[id])
		return y->s_leaves[id];
	l = calloc(1, sizeof(*l));
	if (!l) {
		*err = -ENOMEM;
		return NULL;
	}
	*err = flatten(y->s, id, l, &y->key, 0);
	if (*err) {
		leaves_free(l);
		return NULL;
	}
	if (l->nr)
		qsort(l->v, l->nr, sizeof(*l->v), cmp_leaf);
	y->s_leaves[id] = l;
	return l;
}

const struct leaf *hdr_find_leaf(const struct leaves *l, const char *name)
{
	uint32_t lo = 0, hi = l->nr;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = strcmp(l->v[mid].name, name);

		if (!c)
			return &l->v[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int push_touched(struct synth *y, uint32_t what)
{
	if (y->nr_touched == y->cap_touched) {
		uint32_t cap = y->cap_touched ? 2 * y->cap_touched : 1024;
		uint32_t *grown = realloc(y->touched, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		y->touched = grown;
		y->cap_touched = cap;
	}
	y->touched[y->nr_touched++] = what;
	return 0;
}

struct variant *hdr_add_variant(struct synth *y, const char *key,
				uint32_t order, bool *fresh, int *err)
{
	uint32_t idx;
	struct variant *v;

	*fresh = false;
	if (hdr_smap_get(&y->variant_idx, key, &idx)) {
		v = &y->variants[idx - 1];
		if (order > v->oldest)
			v->oldest = order;
		*err = push_touched(y, idx - 1);
		return *err ? NULL : v;
	}
	if (y->nr_variants == y->cap_variants) {
		uint32_t cap = y->cap_variants ? 2 * y->cap_variants : 256;
		struct variant *grown = realloc(y->variants, cap * sizeof(*grown));

		if (!grown) {
			*err = -ENOMEM;
			return NULL;
		}
		y->variants = grown;
		y->cap_variants = cap;
	}
	*err = hdr_smap_put(&y->variant_idx, key, y->nr_variants + 1, false);
	if (!*err)
		*err = push_touched(y, y->nr_variants);
	if (*err)
		return NULL;
	v = &y->variants[y->nr_variants++];
	memset(v, 0, sizeof(*v));
	v->oldest = order;
	*fresh = true;
	return v;
}

/* Marks the oldest kernel seen declaring a member as the synthetic type does. */
static int note_current(struct synth *y, const char *key, uint32_t order)
{
	uint32_t idx;
	int err;

	if (!hdr_smap_get(&y->cur_idx, key, &idx)) {
		if (y->nr_cur == y->cap_cur) {
			uint32_t cap = y->cap_cur ? 2 * y->cap_cur : 4096;
			uint32_t *grown = realloc(y->cur_oldest, cap * sizeof(*grown));

			if (!grown)
				return -ENOMEM;
			y->cur_oldest = grown;
			y->cap_cur = cap;
		}
		idx = y->nr_cur++;
		y->cur_oldest[idx] = 0;
		err = hdr_smap_put(&y->cur_idx, key, idx, false);
		if (err)
			return err;
	}
	if (order > y->cur_oldest[idx])
		y->cur_oldest[idx] = order;
	return push_touched(y, idx | CURRENT);
}

/* Marks what a signature's comparison touched as seen in kernel order too. */
static void touch_again(struct synth *y, uint32_t start, uint32_t count,
			uint32_t order)
{
	uint32_t k;

	for (k = 0; k < count; k++) {
		uint32_t what = y->touched[start + k];
		uint32_t *oldest = what & CURRENT ? &y->cur_oldest[what & ~CURRENT] :
						    &y->variants[what].oldest;

		if (order > *oldest)
			*oldest = order;
	}
}

/* "T|TYPE|MEMBER" into key (printf's cost, without its parsing: a key per member compared). */
static void member_key(struct bc_text *key, char tag, const char *type,
		       const char *member)
{
	char head[2] = { tag, '|' };

	bc_text_truncate(key, 0);
	bc_text_add(key, head, 2);
	bc_text_puts(key, type);
	bc_text_add(key, "|", 1);
	bc_text_puts(key, member);
}

/* Records the members of source struct or union id that the synthetic one lacks. */
static int compare_composite(struct synth *y, struct copy_src *src,
			     uint32_t id, uint32_t sid, const char *name,
			     uint32_t order)
{
	struct leaves old = { 0 }, *cur;
	struct bc_text scratch;
	uint32_t i;
	int err;

	cur = hdr_synth_leaves(y, sid, &err);
	if (!cur)
		return err;
	bc_text_init(&scratch);
	err = flatten(src->btf, id, &old, &scratch, 0);
	for (i = 0; !err && i < old.nr; i++) {
		const struct leaf *l = &old.v[i], *now = hdr_find_leaf(cur, l->name);
		uint32_t kind = btf_kind(btf__type_by_id(src->btf, id));
		struct variant *v;
		bool fresh;
		int type;

		if (now && !strcmp(now->decl, l->decl)) {
			member_key(&scratch, kind == BTF_KIND_UNION ? 'u' : 's',
				   name, l->name);
			err = scratch.err ? scratch.err :
			      note_current(y, bc_text_str(&scratch), order);
			continue;
		}
		bc_text_truncate(&scratch, 0);
		bc_text_printf(&scratch, "%c|%s|%s|%s",
			       kind == BTF_KIND_UNION ? 'u' : 's', name, l->name,
			       l->decl);
		if (scratch.err) {
			err = scratch.err;
			break;
		}
		v = hdr_add_variant(y, bc_text_str(&scratch), order, &fresh, &err);
		if (!v || !fresh)
			continue;
		type = copy_type(y, src, l->type);
		if (type < 0) {
			err = type;
			break;
		}
		v->kind = kind;
		v->type_name = strdup(name);
		v->member = strdup(l->name);
		v->decl = strdup(l->decl);
		v->type = type;
		v->bits = l->bits;
		if (!v->type_name || !v->member || !v->decl)
			err = -ENOMEM;
	}
	/* the synthetic type's members this kernel lacks (first: the youngest) */
	if (!err && old.nr)
		qsort(old.v, old.nr, sizeof(*old.v), cmp_leaf);
	for (i = 0; !err && i < cur->nr; i++) {
		uint32_t kind = btf_kind(btf__type_by_id(src->btf, id));

		if (hdr_find_leaf(&old, cur->v[i].name))
			continue;
		member_key(&scratch, kind == BTF_KIND_UNION ? 'u' : 's', name,
			   cur->v[i].name);
		err = scratch.err ? scratch.err :
		      hdr_smap_put(&y->absent, bc_text_str(&scratch), order, false);
	}
	for (i = 0; i < old.nr; i++) {
		free(old.v[i].name);
		free(old.v[i].decl);
	}
	free(old.v);
	bc_text_deinit(&scratch);
	return err;
}

/* Records the enumerators of source enum id that the synthetic one lacks. */
static int compare_enum(struct synth *y, struct copy_src *src, uint32_t id,
			uint32_t sid, const char *name, uint32_t order)
{
	const struct btf_type *t = btf__type_by_id(src->btf, id);
	const struct btf_type *st = btf__type_by_id(y->s, sid);
	struct bc_text key;
	uint32_t j, k;
	int err = 0;

	if (!btf_is_enum(st) && !btf_is_enum64(st))
		return 0;
	bc_text_init(&key);
	for (j = 0; !err && j < btf_vlen(t); j++) {
		const char *e = btf__name_by_offset(src->btf, btf_is_enum(t) ?
			btf_enum(t)[j].name_off : btf_enum64(t)[j].name_off);
		struct variant *v;
		bool found = false, fresh;

		/* by essential name: a copied enum's may carry ___ENUMNAME */
		for (k = 0; k < btf_vlen(st) && !found; k++) {
			const char *now = btf__name_by_offset(y->s, btf_is_enum(st) ?
				btf_enum(st)[k].name_off : btf_enum64(st)[k].name_off);
			size_t len = strlen(e);

			found = !strncmp(now, e, len) &&
				(!now[len] || !strncmp(now + len, "___", 3));
		}
		bc_text_truncate(&key, 0);
		bc_text_printf(&key, "e|%s|%s", name, e);
		if (key.err) {
			err = key.err;
			break;
		}
		if (found) {
			err = note_current(y, bc_text_str(&key), order);
			continue;
		}
		v = hdr_add_variant(y, bc_text_str(&key), order, &fresh, &err);
		if (!v || !fresh)
			continue;
		v->kind = BTF_KIND_ENUM;
		v->type_name = strdup(name);
		v->member = strdup(e);
		v->decl = strdup(e);	/* tells apart enumerators of one tag */
		v->enum_size = t->size;
		v->enum_signed = btf_kflag(t);
		v->value = btf_is_enum(t) ?
			(btf_kflag(t) ? (int64_t)(int32_t)btf_enum(t)[j].val :
					(int64_t)btf_enum(t)[j].val) :
			(int64_t)btf_enum64_value(btf_enum64(t) + j);
		if (!v->type_name || !v->member || !v->decl)
			err = -ENOMEM;
	}
	/* the synthetic enum's enumerators this kernel lacks (as for members) */
	for (k = 0; !err && k < btf_vlen(st); k++) {
		const char *now = btf__name_by_offset(y->s, btf_is_enum(st) ?
			btf_enum(st)[k].name_off : btf_enum64(st)[k].name_off);
		const char *sep = strstr(now, "___");
		size_t len = sep ? (size_t)(sep - now) : strlen(now);
		bool found = false;

		for (j = 0; j < btf_vlen(t) && !found; j++) {
			const char *e = btf__name_by_offset(src->btf, btf_is_enum(t) ?
				btf_enum(t)[j].name_off : btf_enum64(t)[j].name_off);

			found = strlen(e) == len && !strncmp(e, now, len);
		}
		if (found)
			continue;
		bc_text_truncate(&key, 0);
		bc_text_printf(&key, "e|%s|%.*s", name, (int)len, now);
		err = key.err ? key.err : hdr_smap_put(&y->absent, bc_text_str(&key), order, false);
	}
	bc_text_deinit(&key);
	return err;
}

/* The FUNC a DECL_TAG "bpf_kfunc" on the function itself marks, or 0. */
static uint32_t kfunc_of_tag(const struct btf *btf, const struct btf_type *t,
			     const char *what)
{
	const struct btf_type *f;

	if (!btf_is_decl_tag(t) || btf_decl_tag(t)->component_idx != -1 ||
	    strcmp(btf__name_by_offset(btf, t->name_off), what))
		return 0;
	f = btf__type_by_id(btf, t->type);
	return f && btf_is_func(f) ? t->type : 0;
}

/* Whether synthetic FUNC id carries the tag what. */
static bool synth_has_tag(const struct synth *y, uint32_t func, const char *what)
{
	uint32_t i, n = btf__type_cnt(y->s);

	for (i = 1; i < n; i++) {
		if (kfunc_of_tag(y->s, btf__type_by_id(y->s, i), what) == func)
			return true;
	}
	return false;
}

/* A function a DECL_TAG marks, for hdr_add_kfuncs()'s order. */
struct kfunc_ref {
	const char *name;
	uint32_t func;
};

static int cmp_kfunc_ref(const void *pa, const void *pb)
{
	const struct kfunc_ref *a = pa, *b = pb;
	int c = strcmp(a->name, b->name);

	return c ? c : (a->func > b->func) - (a->func < b->func);
}

/*
 * The functions the DECL_TAGs "what" of btf mark, by the function's name
 * (a content order: the same whether the kernel's types are in the
 * file's order, canonical or a view's part). Returns the count or a
 * negative errno; *out: free().
 */
static int kfuncs_by_name(const struct btf *btf, const char *what,
			  struct kfunc_ref **out)
{
	uint32_t i, n = btf__type_cnt(btf), nr = 0, cap = 0;
	struct kfunc_ref *v = NULL;

	for (i = 1; i < n; i++) {
		uint32_t func = kfunc_of_tag(btf, btf__type_by_id(btf, i), what);

		if (!func)
			continue;
		if (nr == cap) {
			struct kfunc_ref *grown;

			cap = cap ? 2 * cap : 256;
			grown = realloc(v, cap * sizeof(*grown));
			if (!grown)
				return free(v), -ENOMEM;
			v = grown;
		}
		v[nr].func = func;
		v[nr++].name = btf__name_by_offset(btf, btf__type_by_id(btf, func)->name_off);
	}
	if (nr)
		qsort(v, nr, sizeof(*v), cmp_kfunc_ref);
	*out = v;
	return nr;
}

/*
 * Counts the kfuncs of a kernel; one the synthetic BTF has no kfunc of
 * that name is copied with its tags. The kfuncs go by name (then id:
 * two functions of one name, both kfuncs, are not seen in kernels), so
 * the copies' order, and their synthetic ids, do not depend on the
 * order of the kernel's types.
 */
int hdr_add_kfuncs(struct synth *y, struct copy_src *src, bool copy)
{
	struct kfunc_ref *v = NULL;
	int nr, i, err = 0;

	nr = kfuncs_by_name(src->btf, "bpf_kfunc", &v);
	if (nr < 0)
		return nr;
	for (i = 0; !err && i < nr; i++) {
		uint32_t count = 0;
		const char *name = v[i].name;
		int sid;

		hdr_smap_get(&y->kfunc_count, name, &count);
		err = hdr_smap_put(&y->kfunc_count, name, count + 1, true);
		if (err || !copy || count)
			continue;
		/* new: the first kernel (newest first) that has it */
		sid = copy_type(y, src, v[i].func);
		if (sid < 0) {
			err = sid;
			break;
		}
		if (!synth_has_tag(y, sid, "bpf_kfunc")) {
			int tag = btf__add_decl_tag(y->s, "bpf_kfunc", sid, -1);

			if (tag < 0)
				err = tag;
		}
	}
	free(v);
	v = NULL;
	nr = err || !copy ? 0 : kfuncs_by_name(src->btf, "bpf_fastcall", &v);
	if (nr < 0)
		return nr;
	for (i = 0; !err && i < nr; i++) {
		uint32_t func = v[i].func;
		int tag;

		if (!src->memo[func] || src->memo[func] < y->nr_newest ||
		    synth_has_tag(y, src->memo[func], "bpf_fastcall"))
			continue;
		tag = btf__add_decl_tag(y->s, "bpf_fastcall", src->memo[func], -1);
		if (tag < 0)
			err = tag;
	}
	free(v);
	return err;
}

/*
 * Signatures: most types of an older kernel are the same as in the kernel
 * compared before it (kernels of one series differ in a few hundred
 * types), so a type whose content was seen already is not compared
 * again; the variants it gave are only marked as seen in this kernel
 * too. A type's signature hashes its record with names for string
 * offsets and, for references, the referenced type's kind and name (a
 * named type) or its signature (an anonymous one): what the member
 * spellings and copies depend on. 64-bit FNV-1a; a collision would lose a
 * variant, at odds of about 2^-40 over a header of 118 kernels. A kernel
 * read from an archive has its signatures for free: the number of each
 * type's record in the archive's pool, which is the same exactly when the
 * record is (references taken by name, anonymous types by content).
 */
struct sig_src {
	const struct btf *btf;
	uint64_t *memo;
	uint64_t *named;	/* ref_sig() of named types, 0: not yet */
	uint8_t *state;		/* 0 new, 1 in progress, 2 done */
};

static uint64_t mix(uint64_t h, uint64_t v)
{
	h = (h ^ v) * 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 29);
}

uint64_t hdr_mix_str(uint64_t h, const char *s)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return mix(h, 0xff);
}

static uint64_t body_sig(struct sig_src *g, uint32_t id);

/* What a reference to id contributes: the kind and name of a named type, else its body. */
static uint64_t ref_sig(struct sig_src *g, uint32_t id)
{
	const struct btf_type *t;
	const char *name;

	if (!id)
		return 1;
	t = btf__type_by_id(g->btf, id);
	name = btf__name_by_offset(g->btf, t->name_off);
	if (*name && name_tag(t)) {
		if (!g->named[id])
			g->named[id] = hdr_mix_str(mix(14695981039346656037ULL,
						   name_tag(t)), name) | 1;
		return g->named[id];
	}
	return body_sig(g, id);
}

static uint64_t body_sig(struct sig_src *g, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(g->btf, id);
	uint64_t h = 14695981039346656037ULL;
	uint32_t j, vlen = btf_vlen(t);

	if (g->state[id] == 2)
		return g->memo[id];
	if (g->state[id] == 1)
		return 7;	/* a loop through anonymous types */
	g->state[id] = 1;
	h = mix(h, t->info);
	h = hdr_mix_str(h, btf__name_by_offset(g->btf, t->name_off));
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
		h = mix(h, t->size);
		h = mix(h, *(const uint32_t *)(t + 1));
		break;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		h = mix(h, t->size);
		for (j = 0; j < vlen; j++) {
			const struct btf_member *m = btf_members(t) + j;

			h = hdr_mix_str(h, btf__name_by_offset(g->btf, m->name_off));
			h = mix(h, m->offset);
			h = mix(h, ref_sig(g, m->type));
		}
		break;
	case BTF_KIND_ENUM:
		h = mix(h, t->size);
		for (j = 0; j < vlen; j++) {
			h = hdr_mix_str(h, btf__name_by_offset(g->btf, btf_enum(t)[j].name_off));
			h = mix(h, btf_enum(t)[j].val);
		}
		break;
	case BTF_KIND_ENUM64:
		h = mix(h, t->size);
		for (j = 0; j < vlen; j++) {
			h = hdr_mix_str(h, btf__name_by_offset(g->btf, btf_enum64(t)[j].name_off));
			h = mix(h, btf_enum64_value(btf_enum64(t) + j));
		}
		break;
	case BTF_KIND_ARRAY:
		h = mix(h, btf_array(t)->nelems);
		h = mix(h, ref_sig(g, btf_array(t)->type));
		h = mix(h, ref_sig(g, btf_array(t)->index_type));
		break;
	case BTF_KIND_FUNC_PROTO:
		h = mix(h, ref_sig(g, t->type));
		for (j = 0; j < vlen; j++) {
			h = hdr_mix_str(h, btf__name_by_offset(g->btf, btf_params(t)[j].name_off));
			h = mix(h, ref_sig(g, btf_params(t)[j].type));
		}
		break;
	case BTF_KIND_FWD:
	case BTF_KIND_FLOAT:
		h = mix(h, t->size);
		break;
	default:
		/* one reference or none: pointers, qualifiers, typedefs, tags */
		if (ref_slot((struct btf_type *)t, 0))
			h = mix(h, ref_sig(g, t->type));
		break;
	}
	g->memo[id] = h;
	g->state[id] = 2;
	return h;
}

/* A u64 -> (start, count) map of the signatures seen, into y->touched. */
struct sig_entry {
	uint64_t sig;		/* 0: empty */
	uint32_t start, count;
};

static struct sig_entry *sig_find(struct synth *y, uint64_t sig, bool *found)
{
	uint32_t i;

	if (!sig)
		sig = 1;
	if (2 * (y->nr_sigs + 1) > y->cap_sigs) {
		uint32_t cap = y->cap_sigs ? 2 * y->cap_sigs : 65536, k;
		struct sig_entry *n = calloc(cap, sizeof(*n));

		if (!n)
			return NULL;
		for (k = 0; k < y->cap_sigs; k++) {
			if (!y->sigs[k].sig)
				continue;
			i = y->sigs[k].sig & (cap - 1);
			while (n[i].sig)
				i = (i + 1) & (cap - 1);
			n[i] = y->sigs[k];
		}
		free(y->sigs);
		y->sigs = n;
		y->cap_sigs = cap;
	}
	i = sig & (y->cap_sigs - 1);
	while (y->sigs[i].sig && y->sigs[i].sig != sig)
		i = (i + 1) & (y->cap_sigs - 1);
	*found = y->sigs[i].sig == sig;
	if (!*found) {
		y->sigs[i] = (struct sig_entry){ .sig = sig, .start = y->nr_touched };
		y->nr_sigs++;
	}
	return &y->sigs[i];
}

/* The entry of a signature seen already, or NULL (nothing added). */
static const struct sig_entry *sig_peek(const struct synth *y, uint64_t sig)
{
	uint32_t i;

	if (!sig)
		sig = 1;
	if (!y->cap_sigs)
		return NULL;
	i = sig & (y->cap_sigs - 1);
	while (y->sigs[i].sig && y->sigs[i].sig != sig)
		i = (i + 1) & (y->cap_sigs - 1);
	return y->sigs[i].sig == sig ? &y->sigs[i] : NULL;
}

/*
 * Whether copying the types of source type id's members (what
 * compare_composite() copies for a new declaration) can only make
 * anonymous types other than enums: every named type on the way is
 * one the synthetic BTF maps by name (copy_type() stops there). Such
 * copies are referenced by the member's flavor alone; an anonymous
 * enum (its enumerators become identifiers, a seed of slim's by
 * enumerator) or a named type copied (a FWD, an int: later copies map
 * to it by name) could change more. false when unsure (depth).
 */
static bool copies_nothing_named(struct synth *y, const struct btf *btf,
				 uint32_t id, int depth)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const char *name;
	uint32_t j;

	if (!id)
		return true;
	if (!t || depth > 32)
		return false;
	name = btf__name_by_offset(btf, t->name_off);
	if (*name && depth)
		return name_tag(t) && find_named(y, t, name);
	switch (btf_kind(t)) {
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		for (j = 0; j < btf_vlen(t); j++) {
			if (!copies_nothing_named(y, btf, btf_members(t)[j].type,
						  depth + 1))
				return false;
		}
		return true;
	case BTF_KIND_PTR:
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		return copies_nothing_named(y, btf, t->type, depth + 1);
	case BTF_KIND_ARRAY:
		return copies_nothing_named(y, btf, btf_array(t)->type, depth + 1) &&
		       copies_nothing_named(y, btf, btf_array(t)->index_type, depth + 1);
	case BTF_KIND_FUNC_PROTO:
		if (!copies_nothing_named(y, btf, t->type, depth + 1))
			return false;
		for (j = 0; j < btf_vlen(t); j++) {
			if (!copies_nothing_named(y, btf, btf_params(t)[j].type,
						  depth + 1))
				return false;
		}
		return true;
	default:
		return false;
	}
}

/* The signature of named type id of g's BTF (hdr_content_sigs()). */
static uint64_t content_sig(struct sig_src *g, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(g->btf, id);

	return mix(hdr_mix_str(body_sig(g, id), btf__name_by_offset(g->btf, t->name_off)),
		   name_tag(t)) | 1;
}

/* Whether the merge acts on type t by its signature: a named struct, union, enum, typedef. */
static bool is_merged(const struct btf *btf, const struct btf_type *t)
{
	return t->name_off && (btf_is_composite(t) || btf_is_any_enum(t) ||
			       btf_is_typedef(t)) &&
	       *btf__name_by_offset(btf, t->name_off);
}

uint64_t *hdr_content_sigs(const struct btf *btf)
{
	struct sig_src g = { .btf = btf };
	uint32_t i, n = btf__type_cnt(btf);
	uint64_t *sigs = calloc(n, sizeof(*sigs));

	g.memo = calloc(n, sizeof(*g.memo));
	g.state = calloc(n, 1);
	g.named = calloc(n, sizeof(*g.named));
	for (i = 1; sigs && g.memo && g.state && g.named && i < n; i++) {
		if (is_merged(btf, btf__type_by_id(btf, i)))
			sigs[i] = content_sig(&g, i);
	}
	if (!g.memo || !g.state || !g.named) {
		free(sigs);
		sigs = NULL;
	}
	free(g.memo);
	free(g.state);
	free(g.named);
	return sigs;
}

/*
 * A type of an older kernel the merge acts on: a named struct, union,
 * enum or typedef whose signature no kernel before had.
 */
struct seed {
	const char *name;
	uint64_t sig;		/* what sig_find() keys: the view's or content_sig() */
	uint64_t key;		/* content_sig(): the order's last word but the id */
	uint32_t id;
	uint32_t kind;
};

static int cmp_seed(const void *pa, const void *pb)
{
	const struct seed *a = pa, *b = pb;
	int c;

	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	c = strcmp(a->name, b->name);
	if (c)
		return c;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return (a->id > b->id) - (a->id < b->id);
}

/*
 * Compares one older kernel with the synthetic BTF (pass 2 of the top).
 *
 * Problem: the result must be a function of the kernel's content, not
 * of its ids, so that a kernel gives the same synthetic BTF as a file in
 * pahole's order, as a canonical file (`btfcanon sort`, an archive's
 * kernel read whole) and through an archive's view (a part in the
 * canonical id order, hdr_merge_older_view()); and the kernel read from
 * a file need not be sorted (its canonical sort was most of its cost).
 * Invariant: what the merge does in order (copies, which take the next
 * synthetic ids and the C identifiers, and the first of several types of
 * one name) goes in content order: the types acted on (seeds: the named
 * structs, unions, enums and typedefs whose signature no older kernel
 * before had) sorted by (kind, name, content_sig), then the kfuncs by
 * name (hdr_add_kfuncs()). A seen type is only marked (touch_again():
 * maxima, in any order). Two seeds tie only when their content is the
 * same by names (content_sig equal): the first in id order is acted on
 * and the second is seen; they differ at most in which namesake a named
 * reference is to, which only shows where a copy reaches a named type
 * the synthetic BTF lacks (not seen in Debian's 131 kernels).
 * Cost: a signature per named type (content_sig(), done on a reader
 * thread for a file: sigs; or the view's record number), a sort of the
 * seeds, a comparison per seed.
 */
int hdr_merge_older(struct synth *y, const struct btf *old,
		    const struct bc_archive_view *view, uint64_t view_seed,
		    const uint32_t *orig, const uint64_t *sigs,
		    const char *label, uint32_t order)
{
	struct copy_src src = { .btf = old };
	uint32_t i, n = btf__type_cnt(old), nr = 0, cap = 0;
	uint64_t *own_sigs = NULL;
	struct seed *seeds = NULL;
	int err = 0;

	src.memo = calloc(n, sizeof(*src.memo));
	if (!sigs)	/* content signatures: computed here */
		sigs = own_sigs = hdr_content_sigs(old);
	if (!src.memo || !sigs) {
		err = -ENOMEM;
		goto out;
	}
	/* the seen types marked, the others the seeds */
	for (i = 1; !err && i < n; i++) {
		const struct btf_type *t = btf__type_by_id(old, i);
		const struct sig_entry *e;
		uint64_t sig;

		if (!sigs[i])
			continue;
		/* an archive's record number is its content, and free */
		if (view)
			sig = mix(view_seed, bc_archive_view_record(view,
							orig ? orig[i] : i)) | 1;
		else
			sig = sigs[i];
		e = sig_peek(y, sig);
		if (e) {
			touch_again(y, e->start, e->count, order);
			continue;
		}
		if (nr == cap) {
			struct seed *grown;

			cap = cap ? 2 * cap : 256;
			grown = realloc(seeds, cap * sizeof(*grown));
			if (!grown) {
				err = -ENOMEM;
				break;
			}
			seeds = grown;
		}
		seeds[nr++] = (struct seed){
			.name = btf__name_by_offset(old, t->name_off),
			.sig = sig, .id = i, .kind = btf_kind(t),
			.key = sigs[i],
		};
	}
	if (!err && nr)
		qsort(seeds, nr, sizeof(*seeds), cmp_seed);
	/*
	 * The named types it has and the synthetic BTF lacks, whole; a seed
	 * whose signature an earlier seed has is seen (sig 0: not compared).
	 */
	for (i = 0; !err && i < nr; i++) {
		const struct btf_type *t = btf__type_by_id(old, seeds[i].id);
		struct sig_entry *e;
		bool seen;
		int id;

		e = sig_find(y, seeds[i].sig, &seen);
		if (!e) {
			err = -ENOMEM;
			break;
		}
		if (seen) {
			seeds[i].sig = 0;
			continue;
		}
		if (find_named(y, t, seeds[i].name))
			continue;
		id = copy_type(y, &src, seeds[i].id);
		if (id < 0)
			err = id;
	}
	for (i = 0; !err && i < nr; i++) {
		const struct btf_type *t = btf__type_by_id(old, seeds[i].id);
		const char *name = seeds[i].name;
		uint32_t sid, start = y->nr_touched, dummy, id = seeds[i].id;
		struct sig_entry *e;
		bool seen;

		if (!seeds[i].sig || !(btf_is_composite(t) || btf_is_any_enum(t)))
			continue;
		/*
		 * A type copied from this kernel is compared with its copy
		 * too: nothing differs, but its members count as declared
		 * so in this kernel (and in those with the same signature).
		 */
		sid = find_named(y, t, name);
		if (!sid)
			continue;
		if (y->flavored && !hdr_smap_get(y->flavored, name, &dummy) &&
		    (btf_is_any_enum(t) || copies_nothing_named(y, old, id, 0)))
			y->skipped = true;	/* no flavor of it can be selected */
		else if (btf_is_composite(t) && hdr_is_composite(btf__type_by_id(y->s, sid)))
			err = compare_composite(y, &src, id, sid, name, order);
		else if (btf_is_any_enum(t))
			err = compare_enum(y, &src, id, sid, name, order);
		e = err ? NULL : sig_find(y, seeds[i].sig, &seen);
		if (e) {
			e->start = start;
			e->count = y->nr_touched - start;
		}
	}
	if (!err)
		err = hdr_add_kfuncs(y, &src, true);
out:
	free(src.memo);
	free(own_sigs);
	free(seeds);
	if (err)
		bc_log_error(y->log, err, "%s: cannot merge its types: %s", label,
			     strerror(-err));
	return err;
}

/*
 * A struct or union copied from an older kernel holds types of the
 * synthetic BTF, which may be larger than that kernel's: its size grows
 * to hold its last member (C has it so: the header is for CO-RE, which
 * takes offsets from the running kernel). A copy may hold another copy
 * that grows after it in id order (6.18's nd_dax holds its nd_pfn, which
 * holds 6.1's larger struct device under --layout), so the pass repeats
 * until no size changes: one more round per level of such nesting. A
 * struct whose members all fit is never touched, so a set that needed
 * one round gets the same sizes.
 */
void hdr_fit_copied_sizes(struct synth *y)
{
	uint32_t id, n = btf__type_cnt(y->s), round;
	bool grown = true;

	for (round = 0; grown && round < 64; round++) {
		grown = false;
		for (id = y->nr_newest; id < n; id++) {
			struct btf_type *t = (struct btf_type *)btf__type_by_id(y->s, id);
			uint64_t end = 0;
			uint32_t j;
			int align;

			if (!btf_is_composite(t))
				continue;
			for (j = 0; j < btf_vlen(t); j++) {
				uint32_t bits = btf_member_bitfield_size(t, j);
				uint32_t mtype = btf_members(t)[j].type;
				int size = hdr_sized(y->s, mtype) ? -1 :
					   btf__resolve_size(y->s, mtype);
				uint64_t at = btf_member_bit_offset(t, j);

				if (!bits && size > 0)
					bits = 8 * size;
				if (at + bits > end)
					end = at + bits;
			}
			if (end <= 8 * (uint64_t)t->size)
				continue;
			align = btf__align_of(y->s, id);
			if (align <= 0)
				align = 1;
			t = (struct btf_type *)btf__type_by_id(y->s, id);
			t->size = ((end + 7) / 8 + align - 1) / align * align;
			grown = true;
		}
	}
}

void hdr_synth_deinit(struct synth *y)
{
	uint32_t i;

	for (i = 0; i < y->nr_variants; i++) {
		free(y->variants[i].type_name);
		free(y->variants[i].member);
		free(y->variants[i].decl);
		free(y->variants[i].tag);
		free(y->variants[i].flavor);
	}
	free(y->variants);
	free(y->sigs);
	free(y->touched);
	free(y->cur_oldest);
	hdr_smap_free(&y->cur_idx);
	hdr_smap_free(&y->absent);
	for (i = 0; i < y->nr_s_leaves; i++)
		leaves_free(y->s_leaves[i]);
	free(y->s_leaves);
	hdr_smap_free(&y->names);
	hdr_smap_free(&y->idents);
	hdr_smap_free(&y->variant_idx);
	hdr_smap_free(&y->kfunc_count);
	bc_text_deinit(&y->key);
	btf__free(y->s);
}

/* kpart's stop: a named type copy_type() would map by name, not copy. */
static bool mapped_by_name(void *ctx, const struct btf_type *t, const char *name)
{
	return name_tag(t) && find_named(ctx, t, name);
}

static int push_id(uint32_t **v, uint32_t *nr, uint32_t *cap, uint32_t id)
{
	if (*nr == *cap) {
		uint32_t n = *cap ? 2 * *cap : 1024;
		uint32_t *grown = realloc(*v, n * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		*v = grown;
		*cap = n;
	}
	(*v)[(*nr)++] = id;
	return 0;
}

/*
 * hdr_merge_older() on an archive's kernel, through its view: only the part
 * of the kernel hdr_merge_older() acts on is built (kpart.h), not its 110k
 * types. The same result, type for type, as hdr_merge_older() on the whole
 * kernel:
 *
 *  - the named structs, unions, enums and typedefs whose signature (the
 *    record's number, from the view: the same as on the whole kernel)
 *    was seen already are marked as seen here (touch_again()) and
 *    skipped, as hdr_merge_older() does: those marks only raise "oldest"
 *    values (a maximum), so their order among the other steps does not
 *    matter;
 *  - the others, the kfunc tags (hdr_add_kfuncs() walks every "bpf_kfunc"
 *    and "bpf_fastcall" DECL_TAG) and struct pt_regs (hdr_check_arch()) are
 *    the part's seeds, whole, with everything they reach: what copy_type()
 *    copies, flatten() looks through and cdecl spells. Past a named type
 *    that the synthetic BTF has already (mapped_by_name(): copy_type()
 *    maps it by name and goes no further, cdecl spells it by name), its
 *    references are not read. The synthetic BTF only grows during the
 *    merge, so a type mapped when the part is built is mapped when
 *    copy_type() meets it, to the same synthetic type (find_named()
 *    depends on the synthetic BTF and the type's kind and name alone);
 *  - hdr_merge_older() acts on the seeds in an order of their content
 *    (kind, name, content_sig(), which it computes on the part: a seed is
 *    whole there, and a named type it references counts by its kind and
 *    name only), not of their ids, and on the kfuncs by name: so copies
 *    happen in the same order as on the whole kernel, or on the kernel's
 *    file in pahole's order, giving the same synthetic ids.
 *
 * tests/test_header.c (case view) compares both ways on the test
 * kernels' archive, case file_order a file in two orders, sorted and
 * archived; BENCH.md has the bcc tools' headers byte for byte and the
 * header of Debian's 132 files against their archive's.
 */
int hdr_merge_older_view(struct synth *y, const struct hdr_kernel *k,
			 const struct bc_archive_view *view, uint64_t seed,
			 uint32_t order, const struct bc_log *log)
{
	uint32_t id, n = bc_archive_view_nr_types(view), kind;
	uint32_t *seeds = NULL, nr = 0, cap = 0, *orig = NULL;
	struct btf *part = NULL;
	int err = 0;

	for (id = 1; !err && id <= n; id++) {
		const char *name = bc_archive_view_name(view, id, &kind);
		const struct sig_entry *e;

		if (!name || !*name)
			continue;
		switch (kind) {
		case BTF_KIND_STRUCT:
			if (!strcmp(name, "pt_regs")) {
				err = push_id(&seeds, &nr, &cap, id);
				break;
			}
			/* fall through */
		case BTF_KIND_UNION:
		case BTF_KIND_ENUM:
		case BTF_KIND_ENUM64:
		case BTF_KIND_TYPEDEF:
			e = sig_peek(y, mix(seed, bc_archive_view_record(view, id)) | 1);
			if (e)
				touch_again(y, e->start, e->count, order);
			else
				err = push_id(&seeds, &nr, &cap, id);
			break;
		case BTF_KIND_DECL_TAG:
			if (!strcmp(name, "bpf_kfunc") || !strcmp(name, "bpf_fastcall"))
				err = push_id(&seeds, &nr, &cap, id);
			break;
		default:
			break;
		}
	}
	if (err) {
		free(seeds);
		return bc_log_error(log, err, "out of memory");
	}
	err = bc_kpart_btf(view, seeds, nr, mapped_by_name, y, k->label,
			   &part, &orig, log);
	free(seeds);
	if (!err)
		err = hdr_check_arch(k, &part, log);
	if (!err)
		err = hdr_merge_older(y, part, view, seed, orig, NULL, k->label, order);
	btf__free(part);
	free(orig);
	return err;
}
