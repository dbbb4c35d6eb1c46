// SPDX-License-Identifier: GPL-2.0-only
/*
 * Minimal BTF for shipping: `btfcanon min`.
 *
 * Problem: a BPF program shipped to kernels without BTF carries, per
 * kernel, the BTF libbpf needs for its CO-RE relocations, and nothing
 * else. bpftool's `gen min_core_btf` (BTFgen) makes it for one kernel:
 * it runs libbpf's relocation and keeps, per relocation, the types of
 * the first matching candidate: for a field, the root and, along the
 * access path, each member and its type (a pointer kept, its target
 * not); for a type, the root and what it reaches through pointers, a
 * struct or union without its members; for an enumerator, the whole
 * enum; for type_matches, every member, composites behind pointers
 * empty. It writes the marked types in id order, structs with only
 * their marked members.
 *
 * This pass keeps what the relocation compares and no more:
 *  - the first matching candidate of each relocation (whose value libbpf
 *    patches in), with what it needs for every relocation it matches,
 *    not only those it is first for: libbpf narrows a root type's
 *    candidates to those that matched, relocation after relocation, and
 *    BTFgen's file, where a candidate lacks the members of a relocation
 *    it was not first for, loses it early and so a later relocation's
 *    value; candidates never first are left out, but for the candidates
 *    of an ambiguity, which must stay one;
 *  - the root of a match as it is (its name finds the candidates);
 *    typedefs and qualifiers below it are passed through (libbpf skips
 *    them everywhere it compares, and a size goes through them), so a
 *    member's type is its resolved type;
 *  - an enum reached as a field's type without its enumerators (libbpf
 *    compares its name and size), an enumerator relocation's enum with
 *    the enumerators asked for;
 *  - a pointer whose target is not kept points to void; a function
 *    prototype's parameters lose their names.
 * type_matches keeps BTFgen's rule and its typedefs: its comparison is
 * of the whole type.
 * Invariant: the result is a subset of the kernel's types, members and
 * enumerators (offsets and sizes kept), so a candidate matches a
 * relocation in it only if it does in the kernel; a kept candidate that
 * matched in the kernel matches in it. Then, relocation by relocation,
 * libbpf's candidates in the file are those in the kernel that are kept,
 * the first matching one is the kernel's first, and libbpf patches the
 * same values (target_type_id's values are ids, of this BTF).
 * A kernel with modules: candidates are looked for as libbpf does on
 * that kernel (vmlinux first, then the modules: core_relo.h), and the
 * marks live on the join of vmlinux and every module (archive/
 * kernel_set.h: bc_kmods_join), a module's candidate at its id there;
 * the output is then one non-split BTF, as btf_custom_path needs, and
 * it holds only the candidates the real rule takes, so libbpf, which
 * looks at every type of that one BTF, finds those and no others.
 * The result goes through canon's rebuild, the one BTF writer: equal
 * types merge (the many `void *`), the order is canonical.
 * Cost: one evaluation of each relocation (core_relo.c) per pass (two
 * when an object has autoload-off programs), marks linear in what they
 * reach, one pass over the kernel's types to write.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../canon/btf_kinds.h"
#include "../canon/canon.h"
#include "../archive/kernel_set.h"
#include "min.h"

#define MARK_DEPTH 256	/* nesting of arrays, prototypes, members followed */

enum {
	MARK_KEEP = 1,		/* in the output */
	MARK_ROOT = 2,		/* kept as it is: a typedef is not passed through */
	MARK_FOLLOWED = 4,	/* marked through pointers too */
	MARK_ALL = 8,		/* every member or enumerator */
	MARK_MATCH = 16,	/* type_matches: members marked */
	MARK_MATCH_PTR = 32,	/* type_matches behind a pointer */
};

/* A candidate that matched a relocation, and its raw access path. */
struct match_event {
	uint32_t kind;
	uint32_t root_id;
	uint32_t relo;		/* which evaluation (a counter over all) */
	uint32_t raw_at;	/* into raws[] */
	uint32_t raw_len;
};

struct bc_min {
	const struct bc_btf *btf;	/* the kernel's, or the join */
	const struct bc_ktypes *types;	/* the kernel's, indexed */
	/* a kernel with modules: theirs, the join (owned), their shifts */
	const struct bc_core_module *mods;
	uint32_t nr_mods;
	struct bc_btf *join;
	uint32_t *shifts;
	uint32_t end;
	uint8_t *marks;		/* [end] MARK_* */
	uint8_t **entries;	/* [end] per member or enumerator, lazily */
	uint8_t *kept_cand;	/* [end] a candidate the output keeps */
	struct match_event *events;
	uint32_t nr_events, cap_events;
	int *raws;
	uint32_t nr_raws, cap_raws;
	uint32_t relo;		/* the evaluation under way */
	uint32_t no_cands;	/* relocations without any candidate */
	uint32_t relo_events;	/* its first event */
};

static int min_alloc(struct bc_min *m, struct bc_min **out)
{
	m->end = bc_btf_end_id(m->btf);
	m->marks = calloc(m->end, 1);
	m->entries = calloc(m->end, sizeof(*m->entries));
	m->kept_cand = calloc(m->end, 1);
	if (!m->marks || !m->entries || !m->kept_cand) {
		bc_min_free(m);
		return -ENOMEM;
	}
	*out = m;
	return 0;
}

int bc_min_new(const struct bc_ktypes *kernel, struct bc_min **out)
{
	struct bc_min *m;

	*out = NULL;
	if (!kernel->btf)
		return -EINVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->btf = kernel->btf;
	m->types = kernel;
	return min_alloc(m, out);
}

int bc_min_new_modules(const struct bc_ktypes *kernel,
		       const struct bc_core_module *mods, uint32_t nr_mods,
		       struct bc_min **out, const struct bc_log *log)
{
	const struct bc_btf **btfs;
	struct bc_min *m;
	uint32_t i;
	int err;

	*out = NULL;
	if (!kernel->btf)
		return -EINVAL;
	m = calloc(1, sizeof(*m));
	btfs = calloc(nr_mods ? nr_mods : 1, sizeof(*btfs));
	if (m)
		m->shifts = calloc(nr_mods ? nr_mods : 1, sizeof(*m->shifts));
	if (!m || !btfs || !m->shifts) {
		free(btfs);
		bc_min_free(m);
		return -ENOMEM;
	}
	for (i = 0; i < nr_mods; i++)
		btfs[i] = mods[i].btf;
	err = bc_kmods_join(kernel->btf, btfs, nr_mods, &m->join, m->shifts,
			    log);
	free(btfs);
	if (err) {
		bc_min_free(m);
		return err;
	}
	m->btf = m->join;
	m->types = kernel;
	m->mods = mods;
	m->nr_mods = nr_mods;
	return min_alloc(m, out);
}

void bc_min_free(struct bc_min *m)
{
	uint32_t id;

	if (!m)
		return;
	if (m->entries)
		for (id = 0; id < m->end; id++)
			free(m->entries[id]);
	free(m->entries);
	free(m->marks);
	free(m->kept_cand);
	free(m->events);
	free(m->raws);
	free(m->shifts);
	bc_btf_free(m->join);
	free(m);
}

static bool is_mod_or_typedef(uint32_t kind)
{
	return kind == BTF_KIND_TYPEDEF || kind == BTF_KIND_CONST ||
	       kind == BTF_KIND_VOLATILE || kind == BTF_KIND_RESTRICT ||
	       kind == BTF_KIND_TYPE_TAG;
}

static bool has_entries_kept(uint32_t kind)
{
	return kind == BTF_KIND_STRUCT || kind == BTF_KIND_UNION ||
	       kind == BTF_KIND_ENUM || kind == BTF_KIND_ENUM64;
}

static int mark_entry(struct bc_min *m, uint32_t id, uint32_t idx)
{
	const struct btf_type *t = bc_btf_type(m->btf, id);

	if (idx >= bc_type_vlen(t))
		return 0;
	if (!m->entries[id]) {
		m->entries[id] = calloc(bc_type_vlen(t), 1);
		if (!m->entries[id])
			return -ENOMEM;
	}
	m->entries[id][idx] = 1;
	return 0;
}

/*
 * A type needed for its shape (kind, size, element, what a pointer or
 * prototype refers to when follow is set): structs, unions and enums
 * without their entries.
 */
static void mark_shape(struct bc_min *m, uint32_t id, bool follow,
		       uint32_t depth)
{
	/* a kernel's types nest a few levels; a hostile chain stops here */
	if (depth > MARK_DEPTH)
		return;
	while (id) {
		const struct btf_type *t = bc_btf_type(m->btf, id);
		uint32_t kind = bc_type_kind(t), i;

		if ((m->marks[id] & MARK_KEEP) &&
		    (!follow || (m->marks[id] & MARK_FOLLOWED)))
			return;
		m->marks[id] |= MARK_KEEP | (follow ? MARK_FOLLOWED : 0);
		switch (kind) {
		case BTF_KIND_PTR:
			if (!follow)
				return;
			id = t->type;
			break;
		case BTF_KIND_ARRAY: {
			const struct btf_array *a = (const void *)(t + 1);

			mark_shape(m, a->index_type, follow, depth + 1);
			id = a->type;
			break;
		}
		case BTF_KIND_FUNC_PROTO: {
			const struct btf_param *p = (const void *)(t + 1);

			for (i = 0; i < bc_type_vlen(t); i++)
				mark_shape(m, p[i].type, follow, depth + 1);
			id = t->type;
			break;
		}
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION:
		case BTF_KIND_ENUM:
		case BTF_KIND_ENUM64:
		case BTF_KIND_INT:
		case BTF_KIND_FLOAT:
		case BTF_KIND_FWD:
			return;
		default:
			/* DATASEC, DECL_TAG: no relocation reaches them */
			if (!is_mod_or_typedef(kind) && kind != BTF_KIND_FUNC &&
			    kind != BTF_KIND_VAR)
				return;
			id = t->type;
			break;
		}
	}
}

/* BTFgen's rule for type_matches: whole types, composites behind pointers empty. */
static int mark_match(struct bc_min *m, uint32_t id, bool behind_ptr,
		      uint32_t depth)
{
	if (depth > MARK_DEPTH)
		return 0;
	while (id) {
		const struct btf_type *t = bc_btf_type(m->btf, id);
		uint32_t kind = bc_type_kind(t), i;
		uint8_t flag = behind_ptr ? MARK_MATCH_PTR : MARK_MATCH;
		int err;

		if (m->marks[id] & (MARK_MATCH | flag))
			return 0;
		m->marks[id] |= MARK_KEEP | MARK_ROOT | flag;
		switch (kind) {
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION: {
			const struct btf_member *mb = (const void *)(t + 1);

			if (behind_ptr)
				return 0;
			m->marks[id] |= MARK_ALL;
			for (i = 0; i < bc_type_vlen(t); i++) {
				err = mark_match(m, mb[i].type, false, depth + 1);
				if (err)
					return err;
			}
			return 0;
		}
		case BTF_KIND_ENUM:
		case BTF_KIND_ENUM64:
			m->marks[id] |= MARK_ALL;
			return 0;
		case BTF_KIND_PTR:
			behind_ptr = true;
			id = t->type;
			break;
		case BTF_KIND_ARRAY: {
			const struct btf_array *a = (const void *)(t + 1);

			err = mark_match(m, a->index_type, false, depth + 1);
			if (err)
				return err;
			behind_ptr = false;
			id = a->type;
			break;
		}
		case BTF_KIND_FUNC_PROTO: {
			const struct btf_param *p = (const void *)(t + 1);

			for (i = 0; i < bc_type_vlen(t); i++) {
				err = mark_match(m, p[i].type, false, depth + 1);
				if (err)
					return err;
			}
			behind_ptr = false;
			id = t->type;
			break;
		}
		default:
			if (is_mod_or_typedef(kind) || kind == BTF_KIND_FWD) {
				id = kind == BTF_KIND_FWD ? 0 : t->type;
				break;
			}
			return 0;
		}
	}
	return 0;
}

/* Skips qualifiers and typedefs, marking them needed for their shape. */
static uint32_t skip_mods(struct bc_min *m, uint32_t id)
{
	const struct btf_type *t;

	while (id && (t = bc_btf_type(m->btf, id)) &&
	       is_mod_or_typedef(bc_type_kind(t))) {
		m->marks[id] |= MARK_KEEP;
		id = t->type;
	}
	return id;
}

/* A field relocation's path: each member on it and its type. */
static int mark_field_path(struct bc_min *m, uint32_t id, const int *raw,
			   uint32_t raw_len)
{
	uint32_t i;
	int err;

	mark_shape(m, id, false, 0);
	for (i = 1; i < raw_len; i++) {
		const struct btf_type *t;
		uint32_t kind;

		id = skip_mods(m, id);
		t = bc_btf_type(m->btf, id);
		kind = t ? bc_type_kind(t) : 0;
		if (kind == BTF_KIND_STRUCT || kind == BTF_KIND_UNION) {
			const struct btf_member *mb = (const void *)(t + 1);

			if ((uint32_t)raw[i] >= bc_type_vlen(t))
				return -EINVAL;
			err = mark_entry(m, id, raw[i]);
			if (err)
				return err;
			id = mb[raw[i]].type;
			mark_shape(m, id, false, 0);
		} else if (kind == BTF_KIND_ARRAY) {
			id = ((const struct btf_array *)(t + 1))->type;
		} else {
			return -EINVAL;
		}
	}
	return 0;
}

/* What one matching candidate needs kept for one relocation. */
static int mark_match_event(struct bc_min *m, uint32_t kind, uint32_t root_id,
			    const int *raw, uint32_t raw_len)
{
	uint32_t id;

	m->marks[root_id] |= MARK_KEEP | MARK_ROOT;
	switch (kind) {
	case 0: case 1: case 2: case 3: case 4: case 5:	/* fields */
		return mark_field_path(m, root_id, raw, raw_len);
	case 7: case 8: case 9:		/* target_type_id, type_exists, type_size */
		mark_shape(m, root_id, true, 0);
		return 0;
	case 10: case 11:		/* enumval_exists, enumval_value */
		mark_shape(m, root_id, false, 0);
		id = skip_mods(m, root_id);
		return raw_len ? mark_entry(m, id, raw[0]) : 0;
	case 12:			/* type_matches */
		return mark_match(m, root_id, false, 0);
	default:
		return 0;
	}
}

/*
 * core_relo.c's on_match: recorded, and decided on at the end (which
 * candidates the output keeps is known only after every relocation).
 * The first event of a relocation is its first matching candidate.
 */
static int on_match(void *arg, uint32_t kind, const struct bc_ktypes *types,
		    uint32_t root_id, const int *raw, uint32_t raw_len)
{
	struct bc_min *m = arg;
	struct match_event *e;
	uint32_t i;

	if (types != m->types) {
		/* a module's candidate: at its id in the join, if joined */
		for (i = 0; i < m->nr_mods && types != &m->mods[i].types; i++)
			;
		if (i == m->nr_mods || root_id < bc_btf_end_id(m->types->btf))
			return 0;
		root_id += m->shifts[i];
	}
	if (root_id == 0 || root_id >= m->end)
		return 0;
	if (m->nr_events == m->cap_events) {
		uint32_t cap = m->cap_events ? m->cap_events * 2 : 256;
		struct match_event *n = realloc(m->events, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		m->events = n;
		m->cap_events = cap;
	}
	if (m->nr_raws + raw_len > m->cap_raws) {
		uint32_t cap = (m->nr_raws + raw_len) * 2 + 256;
		int *n = realloc(m->raws, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		m->raws = n;
		m->cap_raws = cap;
	}
	if (m->nr_events == m->relo_events)
		m->kept_cand[root_id] = 1;	/* the first: libbpf's value */
	e = &m->events[m->nr_events++];
	e->kind = kind;
	e->root_id = root_id;
	e->relo = m->relo;
	e->raw_at = m->nr_raws;
	e->raw_len = raw_len;
	if (raw_len)	/* raws stays NULL until a path has a length */
		memcpy(m->raws + m->nr_raws, raw, raw_len * sizeof(*raw));
	m->nr_raws += raw_len;
	return 0;
}

static bool autoload_off(const char *section)
{
	return section[0] == '?';
}

/* One pass of libbpf's relocation over obj (all: every program enabled). */
static int relocate(struct bc_min *m, const struct bc_bpf_object *obj,
		    bool all)
{
	struct bc_core_ctx ctx;
	uint32_t s, i, j;
	int err;

	err = bc_core_ctx_init(&ctx, obj->btf, m->types);
	if (err)
		return err;
	ctx.on_match = on_match;
	ctx.on_match_arg = m;
	ctx.modules = m->mods;
	ctx.nr_modules = m->nr_mods;
	for (s = 0; s < obj->nr_sections && !err; s++) {
		const struct bc_bpf_section *sec = &obj->sections[s];

		if (autoload_off(sec->name) && !all)
			continue;
		for (i = 0; i < sec->nr_relos && !err; i++) {
			const struct bc_core_relo *r = &sec->relos[i];
			uint32_t insn = r->insn_off / 8;
			struct bc_relo_result res;

			m->relo++;
			m->relo_events = m->nr_events;
			err = bc_core_relo_eval(&ctx, r, sec->insns + insn,
						sec->nr_insns - insn, &res);
			if (!err && res.no_candidates &&
			    res.outcome == BC_RELO_POISONED)
				m->no_cands++;
			/* an ambiguity stays one: every candidate it saw */
			if (!err && res.outcome == BC_RELO_AMBIGUOUS)
				for (j = m->relo_events; j < m->nr_events; j++)
					m->kept_cand[m->events[j].root_id] = 1;
		}
	}
	bc_core_ctx_deinit(&ctx);
	return err;
}

uint32_t bc_min_nr_without_candidates(const struct bc_min *m)
{
	return m->no_cands;
}

int bc_min_add_object(struct bc_min *m, const struct bc_bpf_object *obj)
{
	uint32_t s;
	int err = relocate(m, obj, false);

	for (s = 0; s < obj->nr_sections && !err; s++)
		if (autoload_off(obj->sections[s].name) &&
		    obj->sections[s].nr_relos) {
			err = relocate(m, obj, true);
			break;
		}
	return err;
}

/* ---- writing ---------------------------------------------------------- */

struct words {
	uint32_t *w;
	size_t len, cap;
	int err;
};

static void put(struct words *b, uint32_t v)
{
	if (b->len == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 4096;
		uint32_t *w = realloc(b->w, cap * sizeof(*w));

		if (!w) {
			b->err = -ENOMEM;
			return;
		}
		b->w = w;
		b->cap = cap;
	}
	b->w[b->len++] = v;
}

struct strings {
	char *s;
	size_t len, cap;
	int err;
};

/* The offset of a copy of str ("" is offset 0); no merging: canon does it. */
static uint32_t intern(struct strings *st, const char *str)
{
	size_t n = strlen(str) + 1;

	if (n == 1)
		return 0;
	if (st->len + n > st->cap) {
		size_t cap = (st->len + n) * 2;
		char *s = realloc(st->s, cap);

		if (!s) {
			st->err = -ENOMEM;
			return 0;
		}
		st->s = s;
		st->cap = cap;
	}
	memcpy(st->s + st->len, str, n);
	st->len += n;
	return st->len - n;
}

/* Passes through typedefs and qualifiers that are not roots. */
static uint32_t through(const struct bc_min *m, uint32_t id)
{
	const struct btf_type *t;

	while (id && (m->marks[id] & (MARK_KEEP | MARK_ROOT)) == MARK_KEEP &&
	       (t = bc_btf_type(m->btf, id)) &&
	       is_mod_or_typedef(bc_type_kind(t)))
		id = t->type;
	return id;
}

static bool written(const struct bc_min *m, uint32_t id)
{
	const struct btf_type *t = bc_btf_type(m->btf, id);

	if (!(m->marks[id] & MARK_KEEP))
		return false;
	return (m->marks[id] & MARK_ROOT) || !is_mod_or_typedef(bc_type_kind(t));
}

static bool entry_kept(const struct bc_min *m, uint32_t id, uint32_t i)
{
	return (m->marks[id] & MARK_ALL) ||
	       (m->entries[id] && m->entries[id][i]);
}

/*
 * Writes the kept types, in id order, as a raw blob: references through
 * new_id[] (0 for a type not written), entries filtered.
 */
static int build_blob(const struct bc_min *m, const uint32_t *new_id,
		      void **raw, size_t *size)
{
	struct words types = { 0 };
	struct strings strs = { 0 };
	struct btf_header h = { 0 };
	uint32_t id;
	uint8_t *blob;

	strs.s = calloc(1, 64);		/* offset 0: "" */
	strs.cap = 64;
	strs.len = 1;
	strs.err = strs.s ? 0 : -ENOMEM;
	for (id = 1; id < m->end && !types.err && !strs.err; id++) {
		const struct btf_type *t = bc_btf_type(m->btf, id);
		const struct bc_kind_layout *k;
		uint32_t kind = bc_type_kind(t), n = bc_type_entries(t), i, j;
		const uint32_t *w = (const void *)t;
		uint32_t vlen = 0, info_at;

		if (!written(m, id))
			continue;
		k = &bc_kinds[kind];
		put(&types, intern(&strs, bc_btf_str(m->btf, t->name_off)));
		info_at = types.len;
		put(&types, t->info);
		put(&types, k->head_ref ? new_id[through(m, t->type)] : t->size);
		for (j = 0; j < k->fixed_words; j++)
			put(&types, (k->fixed_ref_mask >> j) & 1 ?
				    new_id[through(m, w[3 + j])] : w[3 + j]);
		for (i = 0; i < n; i++) {
			const uint32_t *e = w + 3 + k->fixed_words +
					    i * k->entry_words;

			if (has_entries_kept(kind) && !entry_kept(m, id, i))
				continue;
			vlen++;
			for (j = 0; j < k->entry_words; j++) {
				enum bc_word_class c = bc_entry_word_class(k, j);

				if (c == BC_WORD_REF)
					put(&types, new_id[through(m, e[j])]);
				else if (c == BC_WORD_NAME)
					put(&types, kind == BTF_KIND_FUNC_PROTO ? 0 :
						    intern(&strs, bc_btf_str(m->btf, e[j])));
				else
					put(&types, e[j]);
			}
		}
		if (!types.err && n)
			types.w[info_at] = (t->info & ~0xffffffu) | vlen;
	}
	if (types.err || strs.err) {
		free(types.w);
		free(strs.s);
		return -ENOMEM;
	}
	h.magic = BTF_MAGIC;
	h.version = BTF_VERSION;
	h.hdr_len = sizeof(h);
	h.type_len = types.len * 4;
	h.str_off = h.type_len;
	h.str_len = strs.len;
	*size = sizeof(h) + h.type_len + h.str_len;
	blob = malloc(*size);
	if (blob) {
		memcpy(blob, &h, sizeof(h));
		if (h.type_len)	/* an object without CO-RE records keeps none */
			memcpy(blob + sizeof(h), types.w, h.type_len);
		memcpy(blob + sizeof(h) + h.type_len, strs.s, strs.len);
	}
	free(types.w);
	free(strs.s);
	*raw = blob;
	return blob ? 0 : -ENOMEM;
}

/*
 * The marks of every kept candidate, for every relocation it matched:
 * the first matching candidate of each relocation, and those of an
 * ambiguity (see the opening comment).
 */
static int mark_kept(struct bc_min *m)
{
	uint32_t i;
	int err;

	for (i = 0; i < m->nr_events; i++) {
		const struct match_event *e = &m->events[i];

		if (!m->kept_cand[e->root_id])
			continue;
		err = mark_match_event(m, e->kind, e->root_id,
				       e->raw_len ? m->raws + e->raw_at : NULL,
				       e->raw_len);
		if (err)
			return err;
	}
	return 0;
}

int bc_min_write(struct bc_min *m, void **raw, size_t *size,
		 const struct bc_log *log)
{
	struct canon_opts opts = { .order = BC_ORDER_KIND };
	struct bc_btf *btf = NULL;
	uint32_t *new_id, id, next = 1;
	void *blob = NULL;
	size_t blob_size;
	int err;

	err = mark_kept(m);
	if (err)
		return bc_log_error(log, err, err == -ENOMEM ? "min: out of memory" :
				    "min: a relocation's path does not fit its types");
	new_id = calloc(m->end, sizeof(*new_id));
	if (!new_id)
		return bc_log_error(log, -ENOMEM, "min: out of memory");
	for (id = 1; id < m->end; id++)
		if (written(m, id))
			new_id[id] = next++;
	err = build_blob(m, new_id, &blob, &blob_size);
	free(new_id);
	if (err)
		return bc_log_error(log, err, "min: out of memory");
	err = bc_btf_parse(blob, blob_size, NULL, "minimal BTF", log, &btf);
	free(blob);
	if (err)
		return err;
	err = canon_run_raw(btf, &opts, raw, size, log);
	bc_btf_free(btf);
	return err;
}
