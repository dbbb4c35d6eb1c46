// SPDX-License-Identifier: GPL-2.0-only
/*
 * Distilled base BTF, both ways: making a module's .BTF.base and the split
 * BTF over it (bc_distill), and relocating such split BTF onto a full base
 * (bc_relocate), as the kernel does when it loads the module.
 *
 * The problem. A module's split BTF refers to vmlinux's types by id, and
 * ids change whenever vmlinux's BTF changes at all. An out-of-tree module
 * built against one kernel and loaded into another (the same ABI, a
 * rebuilt vmlinux) would then name the wrong types. The distilled base
 * replaces those ids by descriptions that survive a rebuild: a kind, a
 * name, a size. The semantics are libbpf's btf__distill_base (and pahole's
 * `distilled_base` feature, which calls it); the matching is the kernel's
 * btf_relocate. This file is written from their documented rules, not
 * their code.
 *
 * Distilling. Start from the base types the split part refers to, and
 * follow their references in turn, except through a named struct or union
 * (its members stay in the full base and are not needed). Each type so
 * reached goes one of three ways, by kind (distill_roles[]):
 *
 *   kept whole in the distilled base   INT, FLOAT, FWD
 *   a stub in the distilled base       named STRUCT, UNION: same kind,
 *                                      name and size, no members; named
 *                                      ENUM and ENUM64: an ENUM of the
 *                                      same name and size, no enumerators
 *   copied into the split part         PTR, ARRAY, TYPEDEF, CONST,
 *                                      VOLATILE, RESTRICT, TYPE_TAG,
 *                                      FUNC_PROTO, and anonymous STRUCT,
 *                                      UNION, ENUM, ENUM64 (whole, members
 *                                      and all)
 *
 * A FUNC, VAR, DATASEC or DECL_TAG of the base cannot be described this
 * way; split BTF that refers to one is refused, as libbpf refuses it.
 *
 *	full base:  [1] INT 'unsigned int'   [2] STRUCT 'list_head' (16 bytes)
 *	            [3] PTR -> [2]           [4] TYPEDEF 'u32' -> [1]
 *	            [5] INT 'long'
 *	split:      [6] STRUCT 'm' { node: [2]; p: [3]; x: [4]; }
 *
 *	distilled base:  INT 'unsigned int'; STRUCT 'list_head' size 16, no
 *	                 members ('long' is not reached, so not there)
 *	split over it:   STRUCT 'm'; PTR -> the list_head stub; TYPEDEF 'u32'
 *	                 -> the INT
 *
 * Where a distilled struct is held by value in a split struct or union
 * (a member of that type, through typedefs, qualifiers and arrays, not
 * through a pointer), relocation insists on the same size: the split
 * struct's member offsets depend on it. Elsewhere the name is enough,
 * unless the full base has two structs or unions of that name.
 *
 * Ids. libbpf keeps the base's order in the distilled base and appends the
 * copied types after the split's own. Here both parts go through canon
 * (resolve_fwds off: the content was decided before), so the distilled
 * base and the split BTF over it are each in canonical order: a function
 * of the type graph alone, whatever -j or the full base's ids.
 *
 * Relocating (bc_relocate) is the reverse, as kernel/bpf/btf_relocate.c
 * does it. For each distilled type, the candidates are the full base's
 * types of the same name, filtered as the kernel filters them:
 *
 *   INT     an INT of the same size and encoding (signed, char, bool)
 *   FLOAT   a FLOAT of the same size
 *   ENUM    an ENUM or ENUM64 of the same size
 *   FWD     a FWD of the same kflag; a STRUCT whose kflag is 0 or a UNION
 *           whose kflag is 1 (the kernel tests the struct's or union's own
 *           kflag here, the bitfield flag, not the FWD's)
 *   STRUCT, UNION  any candidate of the kinds above (the kernel does not
 *           compare kinds here); of the same size when held by value
 *
 * and, as the kernel's name-and-size search does, a candidate that is an
 * INT, FLOAT, ENUM or ENUM64, or a STRUCT or UNION whose name two or more
 * structs or unions of the full base share, must have the distilled
 * type's size. Exactly one candidate must remain: none is "missing", two
 * or more is "ambiguous", and both are errors, reported per type. The
 * split part's ids are then rewritten (distilled ids to their matches,
 * its own ids past the full base's end) and the result canonicalized.
 *
 * Cost: linear in the split part plus the types it reaches, plus two
 * canon runs on the (small) results; relocation adds a sort of the full
 * base's named types (O(n log n)).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "btf_kinds.h"
#include "canon.h"
#include "distill.h"

enum distill_role {
	ROLE_REFUSED,		/* cannot be described by a distilled base */
	ROLE_WHOLE,		/* kept as it is in the distilled base */
	ROLE_STUB,		/* named: a stub in the base; anonymous: moved */
	ROLE_MOVED,		/* copied whole into the split part */
};

struct distill_role_info {
	enum distill_role role;
	uint8_t stub_kind;	/* ROLE_STUB: the stub's kind */
};

static const struct distill_role_info distill_roles[BC_NR_KINDS] = {
	[BTF_KIND_INT]		= { ROLE_WHOLE, 0 },
	[BTF_KIND_FLOAT]	= { ROLE_WHOLE, 0 },
	[BTF_KIND_FWD]		= { ROLE_WHOLE, 0 },
	[BTF_KIND_STRUCT]	= { ROLE_STUB, BTF_KIND_STRUCT },
	[BTF_KIND_UNION]	= { ROLE_STUB, BTF_KIND_UNION },
	[BTF_KIND_ENUM]		= { ROLE_STUB, BTF_KIND_ENUM },
	[BTF_KIND_ENUM64]	= { ROLE_STUB, BTF_KIND_ENUM },
	[BTF_KIND_PTR]		= { ROLE_MOVED, 0 },
	[BTF_KIND_ARRAY]	= { ROLE_MOVED, 0 },
	[BTF_KIND_TYPEDEF]	= { ROLE_MOVED, 0 },
	[BTF_KIND_VOLATILE]	= { ROLE_MOVED, 0 },
	[BTF_KIND_CONST]	= { ROLE_MOVED, 0 },
	[BTF_KIND_RESTRICT]	= { ROLE_MOVED, 0 },
	[BTF_KIND_FUNC_PROTO]	= { ROLE_MOVED, 0 },
	[BTF_KIND_TYPE_TAG]	= { ROLE_MOVED, 0 },
	/* FUNC, VAR, DATASEC, DECL_TAG: ROLE_REFUSED */
};

/* Where a type of the given kind and name goes. */
static enum distill_role role_of(const struct btf_type *t)
{
	enum distill_role role = distill_roles[bc_type_kind(t)].role;

	if (role == ROLE_STUB && !t->name_off)
		return ROLE_MOVED;
	return role;
}

/* ---- raw blobs under construction ---- */

/* Type records, appended; the blob's strings are given at the end. */
struct type_buf {
	uint8_t *data;
	size_t len, cap;
};

/* Appends words 32-bit words of rec; returns the copy (valid until the next add). */
static uint32_t *type_buf_add(struct type_buf *b, const void *rec, uint32_t words)
{
	size_t bytes = (size_t)words * 4;

	if (b->len + bytes > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 4096;
		uint8_t *grown;

		while (cap < b->len + bytes)
			cap *= 2;
		grown = realloc(b->data, cap);
		if (!grown)
			return NULL;
		b->data = grown;
		b->cap = cap;
	}
	memcpy(b->data + b->len, rec, bytes);
	b->len += bytes;
	return (uint32_t *)(b->data + b->len - bytes);
}

/*
 * A raw BTF blob: a 24-byte header, the types of b, then the strings
 * s1 and s2 one after the other (s2 may be empty).
 */
static int type_buf_blob(const struct type_buf *b, const char *s1, uint32_t l1,
			 const char *s2, uint32_t l2, void **raw, size_t *size)
{
	struct btf_header hdr = {
		.magic = BTF_MAGIC, .version = BTF_VERSION,
		.hdr_len = sizeof(hdr), .type_off = 0, .type_len = b->len,
		.str_off = b->len, .str_len = l1 + l2,
	};
	uint8_t *out;

	*size = sizeof(hdr) + b->len + l1 + l2;
	out = malloc(*size);
	if (!out)
		return -ENOMEM;
	memcpy(out, &hdr, sizeof(hdr));
	if (b->len)
		memcpy(out + sizeof(hdr), b->data, b->len);
	memcpy(out + sizeof(hdr) + b->len, s1, l1);
	if (l2)
		memcpy(out + sizeof(hdr) + b->len + l1, s2, l2);
	*raw = out;
	return 0;
}

/*
 * Rewrites the ids and string offsets of the record w (a copy) in place:
 * each id through map_id(ctx, id), each non-zero string offset plus
 * str_shift.
 */
static void rewrite_record(uint32_t *w, uint32_t (*map_id)(const void *, uint32_t),
			   const void *ctx, uint32_t str_shift)
{
	uint32_t kind = bc_type_kind((const struct btf_type *)w);
	uint32_t words = bc_type_words((const struct btf_type *)w), j;

	for (j = 0; j < words; j++) {
		switch (bc_word_class(kind, j)) {
		case BC_WORD_REF:
			w[j] = map_id(ctx, w[j]);
			break;
		case BC_WORD_NAME:
			if (w[j])
				w[j] += str_shift;
			break;
		default:
			break;
		}
	}
}

/* Parses raw (taking no ownership) over base, then canonicalizes it. */
static int canon_blob(const void *raw, size_t size, const struct bc_btf *base,
		      const char *what, enum bc_order order,
		      struct canon_result *res, const struct bc_log *log)
{
	struct canon_opts co = { .order = order, .resolve_fwds = false };
	struct bc_btf *parsed = NULL;
	int err;

	err = bc_btf_parse(raw, size, base, what, log, &parsed);
	if (!err)
		err = canon_run(parsed, &co, res, log);
	bc_btf_free(parsed);
	return err;
}

/* ---- distilling ---- */

struct distiller {
	const struct bc_btf *split, *base;
	uint32_t base_end;		/* first split id */
	uint8_t *needed;		/* [base_end] */
	uint32_t *d_slot;		/* [base_end] 1 + index in the distilled base, or 0 */
	uint32_t *m_slot;		/* [base_end] index among the moved types */
	const uint32_t *d_ids;		/* distilled base: canon's id of each slot */
	uint32_t d_end;			/* one past the distilled base's last id */
	struct distill_stats *stats;
};

/* A base type's id in the split part's id space, or a split id, after distilling. */
static uint32_t distilled_id(const void *ctx, uint32_t id)
{
	const struct distiller *d = ctx;

	if (!id)
		return 0;
	if (id >= d->base_end)
		return id - d->base_end + d->d_end;
	if (d->d_slot[id])
		return d->d_ids[d->d_slot[id] - 1];
	return d->d_end + d->split->nr_types + d->m_slot[id];
}

/* References of a base id, from the parser's flat list. */
static const uint32_t *base_refs(const struct bc_btf *base, uint32_t id,
				 uint32_t *nr)
{
	uint32_t idx = id - base->start_id;

	*nr = base->ref_start[idx + 1] - base->ref_start[idx];
	return base->refs + base->ref_start[idx];
}

/*
 * Marks the base types the split part reaches (libbpf's rule: through
 * everything but a named struct or union). by names the split type whose
 * reference started the walk, for the message.
 */
static int mark_needed(struct distiller *d, uint32_t *stack, uint32_t root,
		       uint32_t by, const struct bc_log *log)
{
	uint32_t top = 0;

	if (!root || root >= d->base_end || d->needed[root])
		return 0;
	d->needed[root] = 1;
	stack[top++] = root;
	while (top) {
		uint32_t id = stack[--top], nr, k;
		const struct btf_type *t = bc_btf_type(d->base, id);
		const uint32_t *refs;
		uint32_t kind = bc_type_kind(t);

		if (distill_roles[kind].role == ROLE_REFUSED)
			return bc_log_error(log, -EINVAL,
				"%s: type [%u] reaches base type [%u] %s '%s', which a "
				"distilled base cannot describe (it holds only INT, "
				"FLOAT, FWD, STRUCT, UNION, ENUM and the types that "
				"lead to them)", d->split->path, by, id,
				bc_kind_name(kind), bc_btf_str(d->base, t->name_off));
		d->stats->base_types++;
		if ((kind == BTF_KIND_STRUCT || kind == BTF_KIND_UNION) &&
		    t->name_off)
			continue;
		refs = base_refs(d->base, id, &nr);
		for (k = 0; k < nr; k++) {
			uint32_t r = refs[k];

			if (r && !d->needed[r]) {
				d->needed[r] = 1;
				stack[top++] = r;
			}
		}
	}
	return 0;
}

/* The distilled base, in base id order, not yet canonical. */
static int build_distilled_base(struct distiller *d, void **raw, size_t *size)
{
	struct type_buf tb = { 0 };
	uint32_t id, nr = 0, moved = 0;
	int err = 0;

	for (id = 1; id < d->base_end && !err; id++) {
		const struct btf_type *t;
		uint32_t stub[3];

		if (!d->needed[id])
			continue;
		t = bc_btf_type(d->base, id);
		switch (role_of(t)) {
		case ROLE_WHOLE:
			if (!type_buf_add(&tb, t, bc_type_words(t)))
				err = -ENOMEM;
			d->d_slot[id] = ++nr;
			break;
		case ROLE_STUB:
			stub[0] = t->name_off;
			stub[1] = (uint32_t)distill_roles[bc_type_kind(t)].stub_kind << 24;
			stub[2] = t->size;
			if (!type_buf_add(&tb, stub, 3))
				err = -ENOMEM;
			d->d_slot[id] = ++nr;
			d->stats->stubs++;
			break;
		default:
			d->m_slot[id] = moved++;
			break;
		}
	}
	d->stats->kept = nr;
	d->stats->moved = moved;
	if (!err)	/* the full base's strings, whole: canon keeps those used */
		err = type_buf_blob(&tb, d->base->strs, d->base->str_len, NULL, 0,
				    raw, size);
	free(tb.data);
	return err;
}

/*
 * The split part over the distilled base dist: its own types, then the
 * moved base types in base id order, every id and string offset rewritten.
 * Strings: the full base's, then the split's own, as one section after
 * dist's, so an offset x of the old id space is dist's string end + x.
 */
static int build_split(struct distiller *d, const struct bc_btf *dist,
		       void **raw, size_t *size)
{
	const struct bc_btf *split = d->split;
	uint32_t shift = dist->str_len, idx, id;
	struct type_buf tb = { 0 };
	int err = 0;

	for (idx = 0; idx < split->nr_types && !err; idx++) {
		const struct btf_type *t = bc_btf_local(split, idx);
		uint32_t *w = type_buf_add(&tb, t, bc_type_words(t));

		if (!w)
			err = -ENOMEM;
		else
			rewrite_record(w, distilled_id, d, shift);
	}
	for (id = 1; id < d->base_end && !err; id++) {
		const struct btf_type *t;
		uint32_t *w;

		if (!d->needed[id] || d->d_slot[id])
			continue;
		t = bc_btf_type(d->base, id);
		w = type_buf_add(&tb, t, bc_type_words(t));
		if (!w)
			err = -ENOMEM;
		else
			rewrite_record(w, distilled_id, d, shift);
	}
	if (!err)
		err = type_buf_blob(&tb, d->base->strs, d->base->str_len,
				    split->strs, split->str_len, raw, size);
	free(tb.data);
	return err;
}

int bc_distill(const struct bc_btf *split, enum bc_order order,
	       struct distill_result *res, const struct bc_log *log)
{
	struct distiller d = { .split = split, .base = split->base };
	struct canon_result base_res = { 0 }, split_res = { 0 };
	struct bc_btf *dist = NULL;
	uint32_t *stack = NULL, idx, k;
	void *raw = NULL;
	size_t size;
	int err;

	memset(res, 0, sizeof(*res));
	d.stats = &res->stats;
	if (!d.base)
		return bc_log_error(log, -EINVAL,
			"%s: a distilled base is made for split BTF (a module's, "
			"over vmlinux's); this is base BTF", split->path);
	if (d.base->base)
		return bc_log_error(log, -ENOTSUP,
			"%s: its base is itself split BTF: not supported",
			split->path);
	d.base_end = bc_btf_end_id(d.base);
	d.needed = calloc(d.base_end, 1);
	d.d_slot = calloc(d.base_end, sizeof(uint32_t));
	d.m_slot = calloc(d.base_end, sizeof(uint32_t));
	stack = malloc(d.base_end * sizeof(uint32_t));
	if (!d.needed || !d.d_slot || !d.m_slot || !stack) {
		err = -ENOMEM;
		goto out;
	}
	for (idx = 0, err = 0; idx < split->nr_types && !err; idx++)
		for (k = split->ref_start[idx]; k < split->ref_start[idx + 1] && !err; k++)
			err = mark_needed(&d, stack, split->refs[k],
					  split->start_id + idx, log);
	if (err)
		goto out;

	err = build_distilled_base(&d, &raw, &size);
	if (!err)
		err = canon_blob(raw, size, NULL, split->path, order, &base_res, log);
	free(raw);
	raw = NULL;
	if (err)
		goto out;
	err = bc_btf_parse(base_res.raw, base_res.raw_size, NULL, split->path,
			   log, &dist);
	if (err)
		goto out;
	d.d_ids = base_res.id_map;
	d.d_end = bc_btf_end_id(dist);

	err = build_split(&d, dist, &raw, &size);
	if (!err)
		err = canon_blob(raw, size, dist, split->path, order, &split_res, log);
	if (err)
		goto out;
	res->base_raw = base_res.raw;
	res->base_size = base_res.raw_size;
	base_res.raw = NULL;
	res->split_raw = split_res.raw;
	res->split_size = split_res.raw_size;
	split_res.raw = NULL;
out:
	free(raw);
	bc_btf_free(dist);
	canon_result_deinit(&base_res);
	canon_result_deinit(&split_res);
	free(stack);
	free(d.needed);
	free(d.d_slot);
	free(d.m_slot);
	return err;
}

void bc_distill_result_deinit(struct distill_result *res)
{
	free(res->base_raw);
	free(res->split_raw);
	memset(res, 0, sizeof(*res));
}

/* ---- relocating ---- */

/* A named type of the full base that a distilled type may match. */
struct base_name {
	const char *name;
	uint32_t id;
};

static int cmp_base_name(const void *pa, const void *pb)
{
	const struct base_name *a = pa, *b = pb;
	int c = strcmp(a->name, b->name);

	return c ? c : (a->id > b->id) - (a->id < b->id);
}

/* The kinds of the full base the kernel considers: those a distilled type can be. */
static bool base_candidate_kind(uint32_t kind)
{
	switch (kind) {
	case BTF_KIND_INT:
	case BTF_KIND_FLOAT:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
	case BTF_KIND_FWD:
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return true;
	default:
		return false;
	}
}

static bool is_composite(uint32_t kind)
{
	return kind == BTF_KIND_STRUCT || kind == BTF_KIND_UNION;
}

static uint32_t int_encoding(const struct btf_type *t)
{
	return BTF_INT_ENCODING(*(const uint32_t *)(t + 1));
}

/*
 * Does base type b match distilled type d? shared: b's name is shared by
 * two or more structs/unions of the full base; embedded: d is held by
 * value in a split struct or union. The rules of the comment at the top.
 */
static bool relocation_match(const struct btf_type *d, const struct btf_type *b,
			     bool shared, bool embedded)
{
	uint32_t dk = bc_type_kind(d), bk = bc_type_kind(b);
	bool sized = bk == BTF_KIND_INT || bk == BTF_KIND_FLOAT ||
		     bk == BTF_KIND_ENUM || bk == BTF_KIND_ENUM64 ||
		     (is_composite(bk) && shared);

	if (sized && d->size != b->size)
		return false;
	switch (dk) {
	case BTF_KIND_FWD:
		if (bk == BTF_KIND_FWD)
			return bc_info_kflag(d->info) == bc_info_kflag(b->info);
		if (bk == BTF_KIND_STRUCT)
			return !bc_info_kflag(b->info);
		if (bk == BTF_KIND_UNION)
			return bc_info_kflag(b->info);
		return false;
	case BTF_KIND_INT:
		return bk == BTF_KIND_INT && int_encoding(b) == int_encoding(d);
	case BTF_KIND_FLOAT:
		return bk == BTF_KIND_FLOAT;
	case BTF_KIND_ENUM:
		return bk == BTF_KIND_ENUM || bk == BTF_KIND_ENUM64;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return !embedded || d->size == b->size;
	default:
		return false;
	}
}

struct relocator {
	const struct bc_btf *split, *dist, *base;
	uint32_t dist_end, base_end;
	uint32_t *map;			/* [dist_end] distilled id -> base id */
};

static uint32_t relocated_id(const void *ctx, uint32_t id)
{
	const struct relocator *r = ctx;

	if (id < r->dist_end)
		return r->map[id];	/* map[0] == 0 */
	return id - r->dist_end + r->base_end;
}

/* A distilled base holds only named INT, FLOAT, ENUM, STRUCT, UNION, FWD. */
static int check_distilled(const struct relocator *r, const struct bc_log *log)
{
	uint32_t id;

	for (id = 1; id < r->dist_end; id++) {
		const struct btf_type *t = bc_btf_type(r->dist, id);
		uint32_t kind = bc_type_kind(t);

		switch (kind) {
		case BTF_KIND_INT:
		case BTF_KIND_FLOAT:
		case BTF_KIND_ENUM:
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION:
		case BTF_KIND_FWD:
			if (t->name_off)
				continue;
			return bc_log_error(log, -EINVAL,
				"%s: not a distilled base: type [%u] %s is anonymous",
				r->dist->path, id, bc_kind_name(kind));
		default:
			return bc_log_error(log, -EINVAL,
				"%s: not a distilled base: type [%u] is a %s (only "
				"INT, FLOAT, ENUM, STRUCT, UNION and FWD may be)",
				r->dist->path, id, bc_kind_name(kind));
		}
	}
	return 0;
}

/*
 * Marks the distilled structs and unions that a split struct or union
 * holds by value: a member's type, through typedefs, qualifiers, type
 * tags and array elements, but not through a pointer. The parser has
 * refused loops that pass no struct or union, so each walk ends.
 */
static uint32_t mark_embedded(const struct relocator *r, uint8_t *embedded)
{
	const struct bc_btf *s = r->split;
	uint32_t idx, k, count = 0;

	for (idx = 0; idx < s->nr_types; idx++) {
		const struct btf_type *t = bc_btf_local(s, idx);

		if (!is_composite(bc_type_kind(t)))
			continue;
		for (k = s->ref_start[idx]; k < s->ref_start[idx + 1]; k++) {
			uint32_t id = s->refs[k];

			while (id) {
				const struct btf_type *m = bc_btf_type(s, id);

				switch (bc_type_kind(m)) {
				case BTF_KIND_CONST:
				case BTF_KIND_VOLATILE:
				case BTF_KIND_RESTRICT:
				case BTF_KIND_TYPEDEF:
				case BTF_KIND_TYPE_TAG:
					id = m->type;
					break;
				case BTF_KIND_ARRAY:
					id = ((const struct btf_array *)(m + 1))->type;
					break;
				case BTF_KIND_STRUCT:
				case BTF_KIND_UNION:
					if (id < r->dist_end && !embedded[id]) {
						embedded[id] = 1;
						count++;
					}
					id = 0;
					break;
				default:
					id = 0;
					break;
				}
			}
		}
	}
	return count;
}

/* Finds each distilled type's match; one message per type without exactly one. */
static int map_distilled(struct relocator *r, const uint8_t *embedded,
			 const struct bc_log *log)
{
	struct base_name *names;
	uint32_t nr = 0, id, problems = 0;

	names = malloc((r->base_end ? r->base_end : 1) * sizeof(*names));
	if (!names)
		return -ENOMEM;
	for (id = 1; id < r->base_end; id++) {
		const struct btf_type *t = bc_btf_type(r->base, id);

		if (t->name_off && base_candidate_kind(bc_type_kind(t)))
			names[nr++] = (struct base_name){
				bc_btf_str(r->base, t->name_off), id };
	}
	qsort(names, nr, sizeof(*names), cmp_base_name);

	for (id = 1; id < r->dist_end; id++) {
		const struct btf_type *d = bc_btf_type(r->dist, id);
		const char *name = bc_btf_str(r->dist, d->name_off);
		uint32_t lo = 0, hi = nr, i, composites = 0, matches = 0;
		uint32_t first = 0, second = 0;

		while (lo < hi) {	/* the first entry named name */
			uint32_t mid = lo + (hi - lo) / 2;

			if (strcmp(names[mid].name, name) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (i = lo; i < nr && !strcmp(names[i].name, name); i++)
			composites += is_composite(bc_type_kind(
				bc_btf_type(r->base, names[i].id)));
		for (i = lo; i < nr && !strcmp(names[i].name, name); i++) {
			const struct btf_type *b = bc_btf_type(r->base, names[i].id);

			if (!relocation_match(d, b, composites > 1, embedded[id]))
				continue;
			if (!matches++)
				first = names[i].id;
			else if (matches == 2)
				second = names[i].id;
		}
		if (matches == 1) {
			r->map[id] = first;
			continue;
		}
		problems++;
		if (!matches)
			bc_log_printf(log, BC_LOG_ERROR,
				"%s: distilled base type [%u] %s '%s' (size %u%s) has no match in %s",
				r->dist->path, id, bc_kind_name(bc_type_kind(d)), name,
				d->size, embedded[id] ?
				", held by value, so the size must match" : "",
				r->base->path);
		else
			bc_log_printf(log, BC_LOG_ERROR,
				"%s: distilled base type [%u] %s '%s' (size %u) is ambiguous in %s: %u types match, [%u] and [%u]%s",
				r->dist->path, id, bc_kind_name(bc_type_kind(d)), name,
				d->size, r->base->path, matches, first, second,
				matches > 2 ? " and more" : "");
	}
	free(names);
	return problems ? -ENOENT : 0;
}

int bc_relocate(const struct bc_btf *split, const struct bc_btf *new_base,
		enum bc_order order, void **raw, size_t *size,
		struct relocate_stats *stats, const struct bc_log *log)
{
	struct relocator r = { .split = split, .dist = split->base, .base = new_base };
	struct canon_result res = { 0 };
	struct type_buf tb = { 0 };
	uint8_t *embedded = NULL;
	void *blob = NULL;
	size_t blob_size;
	uint32_t idx;
	int err;

	*raw = NULL;
	*size = 0;
	memset(stats, 0, sizeof(*stats));
	if (!r.dist || r.dist->base)
		return bc_log_error(log, -EINVAL,
			"%s: relocation needs split BTF over a distilled base",
			split->path);
	if (new_base->base)
		return bc_log_error(log, -EINVAL,
			"%s: the new base must be base BTF, not split BTF",
			new_base->path);
	r.dist_end = bc_btf_end_id(r.dist);
	r.base_end = bc_btf_end_id(new_base);
	stats->distilled = r.dist_end - 1;
	stats->split_types = split->nr_types;
	err = check_distilled(&r, log);
	if (err)
		return err;
	r.map = calloc(r.dist_end, sizeof(uint32_t));
	embedded = calloc(r.dist_end, 1);
	if (!r.map || !embedded) {
		err = -ENOMEM;
		goto out;
	}
	stats->embedded = mark_embedded(&r, embedded);
	err = map_distilled(&r, embedded, log);
	if (err)
		goto out;

	/* strings: the distilled base's, then the split's own, after new_base's */
	for (idx = 0; idx < split->nr_types && !err; idx++) {
		const struct btf_type *t = bc_btf_local(split, idx);
		uint32_t *w = type_buf_add(&tb, t, bc_type_words(t));

		if (!w)
			err = -ENOMEM;
		else
			rewrite_record(w, relocated_id, &r, new_base->str_len);
	}
	if (!err)
		err = type_buf_blob(&tb, r.dist->strs, r.dist->str_len, split->strs,
				    split->str_len, &blob, &blob_size);
	if (!err)
		err = canon_blob(blob, blob_size, new_base, split->path, order,
				 &res, log);
	if (err)
		goto out;
	*raw = res.raw;
	*size = res.raw_size;
	res.raw = NULL;
out:
	canon_result_deinit(&res);
	free(blob);
	free(tb.data);
	free(embedded);
	free(r.map);
	return err;
}
