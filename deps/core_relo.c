// SPDX-License-Identifier: GPL-2.0-only
/*
 * CO-RE relocation, as libbpf 1.1 performs it, computed without libbpf.
 *
 * Problem: tell, for each CO-RE record of an object and each kernel, what
 * libbpf would write into the instruction. The rules are libbpf's
 * (documented in its relo_core.c and libbpf.c; restated here, not copied):
 *
 * 1. The local root type's "essential" name is its name up to the last
 *    "___" that is followed by a character other than '_' (so
 *    task_struct___old looks for task_struct). Candidates are the kernel
 *    types of the same kind (an ENUM and an ENUM64 count as one kind)
 *    whose essential name is equal, in type id order. An anonymous local
 *    root is an error, except for local_type_id, which needs no target.
 * 2. The access string "0:3:1" is parsed against the local type into a
 *    spec: the named members and array indexes it goes through, and the
 *    bit offset it reaches. Anonymous members are walked but not named.
 * 3. Each candidate is matched: named members are found by name (through
 *    anonymous members, depth first), their types must be compatible
 *    (composites with composites, pointers with pointers, enums by
 *    essential name, integers of any size but not old-style bitfield
 *    ints, arrays by element); array indexes must be in bounds unless the
 *    array is the flexible last member. Type kinds use the type
 *    compatibility (or, for type_matches, the stricter match) relation;
 *    enumerator kinds find the enumerator by essential name.
 * 4. All matching candidates must agree on the bit offset and on the
 *    value; otherwise the relocation fails (ambiguity). The cached
 *    candidate list of the root type is narrowed to those that matched.
 * 5. With no match, the *_exists kinds and type kinds give 0; the other
 *    kinds poison the instruction.
 * 6. Patching a load or store whose field changed size is allowed only
 *    for pointers and unsigned integers; otherwise the instruction is
 *    poisoned. An offset above 32767 does not fit and fails.
 *
 * Types are read through struct bc_ktypes (ktypes.h): the object's own
 * BTF, and the kernel's whole or through an archive's view.
 * Invariant: every type id looked at comes from a validated BTF or an
 * archive kernel's list, so a lookup gives a record or void: void (id 0,
 * or a record a view could not decode, which the view reports) is a
 * record of kind 0, as in libbpf.
 * Cost: one lookup of the candidates per distinct root type per kernel
 * (a hash probe in a whole BTF's index; a view's two per kind), then
 * work linear in the members walked per candidate.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../canon/btf_kinds.h"
#include "core_relo.h"
#include "../archive/ktypes.h"

#define SPEC_MAX_LEN 64		/* libbpf's BPF_CORE_SPEC_MAX_LEN */
#define RESOLVE_DEPTH 32	/* libbpf's MAX_RESOLVE_DEPTH */
#define COMPAT_LEVEL 32		/* libbpf's recursion budget */
#define POINTER_SIZE 8		/* BPF and every 64-bit kernel */

enum relo_kind {
	K_BYTE_OFF, K_BYTE_SZ, K_FIELD_EXISTS, K_SIGNED, K_LSHIFT, K_RSHIFT,
	K_LOCAL_ID, K_TARGET_ID, K_TYPE_EXISTS, K_TYPE_SIZE, K_ENUMVAL_EXISTS,
	K_ENUMVAL_VALUE, K_TYPE_MATCHES,
};

enum relo_class { C_FIELD, C_TYPE, C_ENUMVAL };

static const struct {
	const char *name;
	enum relo_class class;
} kinds[BC_CORE_NR_KINDS] = {
	[K_BYTE_OFF]       = { "byte_off", C_FIELD },
	[K_BYTE_SZ]        = { "byte_sz", C_FIELD },
	[K_FIELD_EXISTS]   = { "field_exists", C_FIELD },
	[K_SIGNED]         = { "signed", C_FIELD },
	[K_LSHIFT]         = { "lshift_u64", C_FIELD },
	[K_RSHIFT]         = { "rshift_u64", C_FIELD },
	[K_LOCAL_ID]       = { "local_type_id", C_TYPE },
	[K_TARGET_ID]      = { "target_type_id", C_TYPE },
	[K_TYPE_EXISTS]    = { "type_exists", C_TYPE },
	[K_TYPE_SIZE]      = { "type_size", C_TYPE },
	[K_ENUMVAL_EXISTS] = { "enumval_exists", C_ENUMVAL },
	[K_ENUMVAL_VALUE]  = { "enumval_value", C_ENUMVAL },
	[K_TYPE_MATCHES]   = { "type_matches", C_TYPE },
};

const char *bc_core_kind_name(uint32_t kind)
{
	return kind < BC_CORE_NR_KINDS ? kinds[kind].name : "unknown";
}

/* ---- BTF lookups with libbpf's conventions ---------------------------- */

static const struct btf_type void_type;

static const struct btf_type *type_at(const struct bc_ktypes *kt, uint32_t id)
{
	const struct btf_type *t = bc_ktypes_type(kt, id);

	return t ? t : &void_type;
}

static const char *name_of(const struct bc_ktypes *kt, uint32_t off)
{
	return bc_ktypes_str(kt, off);
}

static uint32_t kind_of(const struct btf_type *t)
{
	return bc_type_kind(t);
}

static bool is_any_enum(const struct btf_type *t)
{
	return kind_of(t) == BTF_KIND_ENUM || kind_of(t) == BTF_KIND_ENUM64;
}

static bool is_composite(const struct btf_type *t)
{
	return kind_of(t) == BTF_KIND_STRUCT || kind_of(t) == BTF_KIND_UNION;
}

static bool kinds_core_compat(const struct btf_type *a, const struct btf_type *b)
{
	return kind_of(a) == kind_of(b) || (is_any_enum(a) && is_any_enum(b));
}

static const struct btf_type *skip_mods_typedefs(const struct bc_ktypes *kt,
						 uint32_t id, uint32_t *res)
{
	const struct btf_type *t;

	*res = id;
	t = bc_ktypes_skip_mods(kt, res);
	return t ? t : &void_type;
}

static const struct btf_member *members(const struct btf_type *t)
{
	return (const struct btf_member *)(t + 1);
}

static const struct btf_array *array_of(const struct btf_type *t)
{
	return (const struct btf_array *)(t + 1);
}

static uint32_t member_bit_offset(const struct btf_type *t, uint32_t i)
{
	uint32_t off = members(t)[i].offset;

	return bc_info_kflag(t->info) ? BTF_MEMBER_BIT_OFFSET(off) : off;
}

static uint32_t member_bitfield_size(const struct btf_type *t, uint32_t i)
{
	uint32_t off = members(t)[i].offset;

	return bc_info_kflag(t->info) ? BTF_MEMBER_BITFIELD_SIZE(off) : 0;
}

static uint32_t int_word(const struct btf_type *t)
{
	return *(const uint32_t *)(t + 1);
}

static uint32_t enum_name_off(const struct btf_type *t, uint32_t i)
{
	if (kind_of(t) == BTF_KIND_ENUM)
		return ((const struct btf_enum *)(t + 1))[i].name_off;
	return ((const struct btf_enum64 *)(t + 1))[i].name_off;
}

static uint64_t enum_value(const struct btf_type *t, uint32_t i)
{
	const struct btf_enum64 *e;

	if (kind_of(t) == BTF_KIND_ENUM)
		return (uint64_t)(int64_t)((const struct btf_enum *)(t + 1))[i].val;
	e = (const struct btf_enum64 *)(t + 1) + i;
	return ((uint64_t)e->val_hi32 << 32) | e->val_lo32;
}

/*
 * The word after a type's header: an INT's encoding. libbpf's SIGNED
 * relocation reads it whatever the kind, so this does too (ktypes.h; 0
 * for void).
 */
static uint32_t word_after(const struct bc_ktypes *kt, const struct btf_type *t)
{
	return t == &void_type ? 0 : bc_ktypes_word_after(kt, t);
}

/* btf__resolve_size(): bytes of a type, or a negative errno. */
static int64_t resolve_size(const struct bc_ktypes *kt, uint32_t id)
{
	const struct btf_type *t = type_at(kt, id);
	uint32_t nelems = 1;
	int64_t size = -1;
	int i;

	for (i = 0; i < RESOLVE_DEPTH && t != &void_type; i++) {
		switch (kind_of(t)) {
		case BTF_KIND_INT:
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION:
		case BTF_KIND_ENUM:
		case BTF_KIND_ENUM64:
		case BTF_KIND_DATASEC:
		case BTF_KIND_FLOAT:
			size = t->size;
			goto done;
		case BTF_KIND_PTR:
			size = POINTER_SIZE;
			goto done;
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_CONST:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_VAR:
		case BTF_KIND_DECL_TAG:
		case BTF_KIND_TYPE_TAG:
			id = t->type;
			break;
		case BTF_KIND_ARRAY:
			if (nelems && array_of(t)->nelems > UINT32_MAX / nelems)
				return -E2BIG;
			nelems *= array_of(t)->nelems;
			id = array_of(t)->type;
			break;
		default:
			return -EINVAL;
		}
		t = type_at(kt, id);
	}
done:
	if (size < 0)
		return -EINVAL;
	if (nelems && size > UINT32_MAX / nelems)
		return -E2BIG;
	return nelems * size;
}

static bool essential_eq(const char *a, const char *b)
{
	size_t la = bc_essential_len(a), lb = bc_essential_len(b);

	return la == lb && !strncmp(a, b, la);
}

/* Candidates: a type id and the BTF it is in (the kernel's, a module's). */
struct bc_core_cands {
	uint32_t *ids;
	const struct bc_ktypes **srcs;
	uint32_t len;
};

static void cands_free(struct bc_core_cands *c)
{
	if (!c)
		return;
	free(c->ids);
	free(c->srcs);
	free(c);
}

/*
 * Adds the candidates of kt for local type lt: its types of lt's kind (an
 * ENUM and an ENUM64 count as one) whose essential name is name[0 .. len).
 */
static int add_cands(struct bc_core_cands *c, const struct bc_ktypes *kt,
		     const struct btf_type *lt, const char *name, size_t len)
{
	uint32_t kinds = is_any_enum(lt) ?
			 1u << BTF_KIND_ENUM | 1u << BTF_KIND_ENUM64 :
			 1u << kind_of(lt);
	uint32_t room = 8, n, i;

	for (;;) {
		uint32_t *ids = realloc(c->ids, (c->len + room) * sizeof(*ids));

		if (!ids)
			return -ENOMEM;
		c->ids = ids;
		n = bc_ktypes_cands(kt, kinds, name, len, c->ids + c->len, room);
		if (n <= room)
			break;
		room = n;
	}
	if (!n)
		return 0;
	{
		const struct bc_ktypes **srcs = realloc(c->srcs, (c->len + n) *
							sizeof(*srcs));

		if (!srcs)
			return -ENOMEM;
		c->srcs = srcs;
	}
	for (i = 0; i < n; i++)
		c->srcs[c->len++] = kt;
	return 0;
}

/* The modules of ctx: given, or asked for (get_modules). */
static void ctx_modules(const struct bc_core_ctx *ctx,
			const struct bc_core_module **mods, uint32_t *nr)
{
	*mods = ctx->modules;
	*nr = ctx->nr_modules;
	if (ctx->get_modules)
		ctx->get_modules(ctx->get_modules_arg, mods, nr);
}

/*
 * The kernel's candidates for local type local_id, in id order; when the
 * kernel has none and modules were given, those of every module, in
 * module order (libbpf's bpf_core_find_cands(): modules are searched only when
 * vmlinux has no candidate, and never under btf_custom_path).
 */
static int find_cands(const struct bc_core_ctx *ctx, uint32_t local_id,
		      struct bc_core_cands **out)
{
	const struct btf_type *lt = type_at(&ctx->local, local_id);
	const char *name = name_of(&ctx->local, lt->name_off);
	size_t len = bc_essential_len(name);
	const struct bc_core_module *mods;
	struct bc_core_cands *c;
	uint32_t m, nr;
	int err;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	err = add_cands(c, ctx->target, lt, name, len);
	if (!err && !c->len) {
		ctx_modules(ctx, &mods, &nr);
		for (m = 0; !err && m < nr; m++)
			err = add_cands(c, &mods[m].types, lt, name, len);
	}
	if (err) {
		cands_free(c);
		return err;
	}
	*out = c;
	return 0;
}

int bc_core_ctx_init(struct bc_core_ctx *ctx, const struct bc_btf *local,
		     const struct bc_ktypes *target)
{
	bc_ktypes_init_btf(&ctx->local, local, false);
	ctx->target = target;
	ctx->modules = NULL;
	ctx->nr_modules = 0;
	ctx->get_modules = NULL;
	ctx->get_modules_arg = NULL;
	ctx->on_match = NULL;
	ctx->on_match_arg = NULL;
	ctx->specs = NULL;
	ctx->cands = calloc(bc_btf_end_id(local), sizeof(*ctx->cands));
	return ctx->cands ? 0 : -ENOMEM;
}

void bc_core_ctx_deinit(struct bc_core_ctx *ctx)
{
	uint32_t i;

	if (!ctx->cands)
		return;
	for (i = 0; i < bc_btf_end_id(ctx->local.btf); i++)
		cands_free(ctx->cands[i]);
	free(ctx->cands);
	ctx->cands = NULL;
	free(ctx->specs);
	ctx->specs = NULL;
}

/* ---- specs ----------------------------------------------------------- */

struct accessor {
	uint32_t type_id;
	uint32_t idx;
	const char *name;	/* NULL for an array index */
};

struct spec {
	const struct bc_ktypes *kt;
	uint32_t root_id;
	uint32_t kind;
	struct accessor acc[SPEC_MAX_LEN];
	uint32_t len;
	int raw[SPEC_MAX_LEN];
	uint32_t raw_len;
	uint32_t bit_offset;
};

/*
 * A relocation's local, candidate and target specs (1.3 KB each): one
 * set per context, not three mallocs per relocation evaluated.
 */
struct core_specs {
	struct spec local, cand, targ;
};

static bool is_flex_array(const struct bc_ktypes *kt, const struct accessor *acc,
			  const struct btf_array *arr)
{
	if (!acc->name || arr->nelems > 0)
		return false;
	return acc->idx == bc_type_vlen(type_at(kt, acc->type_id)) - 1;
}

/* bpf_core_parse_spec(): 0 or a negative errno. */
static int parse_spec(const struct bc_ktypes *kt, const struct bc_core_relo *relo,
		      struct spec *spec)
{
	const char *s = name_of(kt, relo->access_off);
	const struct btf_type *t;
	struct accessor *acc;
	uint32_t id, i;
	int64_t sz;

	if (!*s || *s == ':')
		return -EINVAL;
	memset(spec, 0, sizeof(*spec));
	spec->kt = kt;
	spec->root_id = relo->type_id;
	spec->kind = relo->kind;
	if (kinds[relo->kind].class == C_TYPE)
		return strcmp(s, "0") ? -EINVAL : 0;
	while (*s) {
		char *end;
		long v;

		if (*s == ':')
			s++;
		/* libbpf's sscanf("%d%n"): what strtol() takes, cut to an int */
		v = strtol(s, &end, 10);
		if (end == s)
			return -EINVAL;
		if (spec->raw_len == SPEC_MAX_LEN)
			return -E2BIG;
		s = end;
		spec->raw[spec->raw_len++] = (int)v;
	}
	if (!spec->raw_len)
		return -EINVAL;
	t = skip_mods_typedefs(kt, relo->type_id, &id);
	acc = &spec->acc[0];
	acc->type_id = id;
	acc->idx = spec->raw[0];
	spec->len++;
	if (kinds[relo->kind].class == C_ENUMVAL) {
		if (!is_any_enum(t) || spec->raw_len > 1 ||
		    (uint32_t)spec->raw[0] >= bc_type_vlen(t))
			return -EINVAL;
		acc->name = name_of(kt, enum_name_off(t, spec->raw[0]));
		return 0;
	}
	sz = resolve_size(kt, id);
	if (sz < 0)
		return (int)sz;
	spec->bit_offset = (uint32_t)(spec->raw[0] * sz * 8);
	for (i = 1; i < spec->raw_len; i++) {
		uint32_t a = spec->raw[i];

		t = skip_mods_typedefs(kt, id, &id);
		acc = &spec->acc[spec->len];
		if (is_composite(t)) {
			const struct btf_member *m;

			if (a >= bc_type_vlen(t))
				return -EINVAL;
			spec->bit_offset += member_bit_offset(t, a);
			m = members(t) + a;
			if (m->name_off) {
				const char *name = name_of(kt, m->name_off);

				if (!*name)
					return -EINVAL;
				acc->type_id = id;
				acc->idx = a;
				acc->name = name;
				spec->len++;
			}
			id = m->type;
		} else if (kind_of(t) == BTF_KIND_ARRAY) {
			const struct btf_array *arr = array_of(t);
			bool flex;

			skip_mods_typedefs(kt, arr->type, &id);
			flex = is_flex_array(kt, acc - 1, arr);
			if (!flex && a >= arr->nelems)
				return -EINVAL;
			acc->type_id = id;
			acc->idx = a;
			acc->name = NULL;
			spec->len++;
			sz = resolve_size(kt, id);
			if (sz < 0)
				return (int)sz;
			spec->bit_offset += (uint32_t)(a * sz * 8);
		} else {
			return -EINVAL;
		}
	}
	return 0;
}

/* ---- compatibility relations ------------------------------------------ */

/* __bpf_core_types_are_compat(): 1, 0 or a negative errno. */
static int types_are_compat(const struct bc_ktypes *lb, uint32_t lid,
			    const struct bc_ktypes *tb, uint32_t tid, int level)
{
	const struct btf_type *lt = type_at(lb, lid), *tt = type_at(tb, tid);
	int depth = 32;

	if (!kinds_core_compat(lt, tt))
		return 0;
	for (;;) {
		if (--depth < 0)
			return -EINVAL;
		lt = skip_mods_typedefs(lb, lid, &lid);
		tt = skip_mods_typedefs(tb, tid, &tid);
		if (!kinds_core_compat(lt, tt))
			return 0;
		switch (kind_of(lt)) {
		case BTF_KIND_UNKN:
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION:
		case BTF_KIND_ENUM:
		case BTF_KIND_FWD:
		case BTF_KIND_ENUM64:
			return 1;
		case BTF_KIND_INT:
			return BTF_INT_OFFSET(int_word(lt)) == 0 &&
			       BTF_INT_OFFSET(int_word(tt)) == 0;
		case BTF_KIND_PTR:
			lid = lt->type;
			tid = tt->type;
			break;
		case BTF_KIND_ARRAY:
			lid = array_of(lt)->type;
			tid = array_of(tt)->type;
			break;
		case BTF_KIND_FUNC_PROTO: {
			const struct btf_param *lp = (const void *)(lt + 1);
			const struct btf_param *tp = (const void *)(tt + 1);
			uint32_t i, n = bc_type_vlen(lt);
			int err;

			if (n != bc_type_vlen(tt))
				return 0;
			for (i = 0; i < n; i++) {
				uint32_t a, b;

				if (level <= 0)
					return -EINVAL;
				skip_mods_typedefs(lb, lp[i].type, &a);
				skip_mods_typedefs(tb, tp[i].type, &b);
				err = types_are_compat(lb, a, tb, b, level - 1);
				if (err <= 0)
					return err;
			}
			skip_mods_typedefs(lb, lt->type, &lid);
			skip_mods_typedefs(tb, tt->type, &tid);
			break;
		}
		default:
			return 0;
		}
	}
}

int bc_core_types_compat(const struct bc_btf *local, uint32_t local_id,
			 const struct bc_ktypes *target, uint32_t target_id)
{
	struct bc_ktypes lt;

	bc_ktypes_init_btf(&lt, local, false);
	return types_are_compat(&lt, local_id, target, target_id,
				COMPAT_LEVEL);
}

/* bpf_core_fields_are_compat(). */
static int fields_are_compat(const struct bc_ktypes *lb, uint32_t lid,
			     const struct bc_ktypes *tb, uint32_t tid)
{
	for (;;) {
		const struct btf_type *lt = skip_mods_typedefs(lb, lid, &lid);
		const struct btf_type *tt = skip_mods_typedefs(tb, tid, &tid);

		if (is_composite(lt) && is_composite(tt))
			return 1;
		if (!kinds_core_compat(lt, tt))
			return 0;
		switch (kind_of(lt)) {
		case BTF_KIND_PTR:
		case BTF_KIND_FLOAT:
			return 1;
		case BTF_KIND_FWD:
		case BTF_KIND_ENUM:
		case BTF_KIND_ENUM64: {
			const char *ln = name_of(lb, lt->name_off);
			const char *tn = name_of(tb, tt->name_off);

			return !bc_essential_len(ln) || !bc_essential_len(tn) ||
			       essential_eq(ln, tn);
		}
		case BTF_KIND_INT:
			return BTF_INT_OFFSET(int_word(lt)) == 0 &&
			       BTF_INT_OFFSET(int_word(tt)) == 0;
		case BTF_KIND_ARRAY:
			lid = array_of(lt)->type;
			tid = array_of(tt)->type;
			break;
		default:
			return 0;
		}
	}
}

/* bpf_core_names_match(): an anonymous target matches an anonymous local. */
static bool names_match(const struct bc_ktypes *lb, uint32_t loff,
			const struct bc_ktypes *tb, uint32_t toff)
{
	const char *ln = name_of(lb, loff), *tn = name_of(tb, toff);

	if (!*tn)
		return !*ln;
	return essential_eq(ln, tn);
}

static int types_match(const struct bc_ktypes *lb, uint32_t lid,
		       const struct bc_ktypes *tb, uint32_t tid, bool behind_ptr,
		       int level);

static int enums_match(const struct bc_ktypes *lb, const struct btf_type *lt,
		       const struct bc_ktypes *tb, const struct btf_type *tt)
{
	uint32_t i, j, ln = bc_type_vlen(lt), tn = bc_type_vlen(tt);

	if (lt->size != tt->size || ln > tn)
		return 0;
	for (i = 0; i < ln; i++) {
		for (j = 0; j < tn; j++)
			if (names_match(lb, enum_name_off(lt, i), tb,
					enum_name_off(tt, j)))
				break;
		if (j == tn)
			return 0;
	}
	return 1;
}

static int composites_match(const struct bc_ktypes *lb, const struct btf_type *lt,
			    const struct bc_ktypes *tb, const struct btf_type *tt,
			    bool behind_ptr, int level)
{
	uint32_t i, j, ln = bc_type_vlen(lt), tn = bc_type_vlen(tt);
	int err;

	if (ln > tn)
		return 0;
	for (i = 0; i < ln; i++) {
		const struct btf_member *lm = members(lt) + i;
		bool matched = false;

		for (j = 0; j < tn && !matched; j++) {
			const struct btf_member *tm = members(tt) + j;

			if (!names_match(lb, lm->name_off, tb, tm->name_off))
				continue;
			err = types_match(lb, lm->type, tb, tm->type, behind_ptr,
					  level - 1);
			if (err < 0)
				return err;
			matched = err > 0;
		}
		if (!matched)
			return 0;
	}
	return 1;
}

/* __bpf_core_types_match(). */
static int types_match(const struct bc_ktypes *lb, uint32_t lid,
		       const struct bc_ktypes *tb, uint32_t tid, bool behind_ptr,
		       int level)
{
	const struct btf_type *lt, *tt;
	uint32_t lk, tk;
	int depth = 32;

	if (level <= 0)
		return -EINVAL;
	for (;;) {
		if (--depth < 0)
			return -EINVAL;
		lt = skip_mods_typedefs(lb, lid, &lid);
		tt = skip_mods_typedefs(tb, tid, &tid);
		if (!names_match(lb, lt->name_off, tb, tt->name_off))
			return 0;
		lk = kind_of(lt);
		tk = kind_of(tt);
		switch (lk) {
		case BTF_KIND_UNKN:
			return lk == tk;
		case BTF_KIND_FWD: {
			bool lf = bc_info_kflag(lt->info);

			if (behind_ptr) {
				if (lk == tk)
					return lf == bc_info_kflag(tt->info);
				return (tk == BTF_KIND_STRUCT && !lf) ||
				       (tk == BTF_KIND_UNION && lf);
			}
			return lk == tk && lf == bc_info_kflag(tt->info);
		}
		case BTF_KIND_ENUM:
		case BTF_KIND_ENUM64:
			if (!is_any_enum(tt))
				return 0;
			return enums_match(lb, lt, tb, tt);
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION:
			if (behind_ptr) {
				if (lk == tk)
					return 1;
				if (tk != BTF_KIND_FWD)
					return 0;
				return (lk == BTF_KIND_UNION) ==
				       (bool)bc_info_kflag(tt->info);
			}
			if (lk != tk)
				return 0;
			return composites_match(lb, lt, tb, tt, behind_ptr, level);
		case BTF_KIND_INT:
			if (lk != tk)
				return 0;
			return lt->size == tt->size &&
			       (BTF_INT_ENCODING(int_word(lt)) & BTF_INT_SIGNED) ==
			       (BTF_INT_ENCODING(int_word(tt)) & BTF_INT_SIGNED);
		case BTF_KIND_PTR:
			if (lk != tk)
				return 0;
			behind_ptr = true;
			lid = lt->type;
			tid = tt->type;
			break;
		case BTF_KIND_ARRAY:
			if (lk != tk ||
			    array_of(lt)->nelems != array_of(tt)->nelems)
				return 0;
			lid = array_of(lt)->type;
			tid = array_of(tt)->type;
			break;
		case BTF_KIND_FUNC_PROTO: {
			const struct btf_param *lp = (const void *)(lt + 1);
			const struct btf_param *tp = (const void *)(tt + 1);
			uint32_t i, n = bc_type_vlen(lt);
			int err;

			if (lk != tk || n != bc_type_vlen(tt))
				return 0;
			for (i = 0; i < n; i++) {
				err = types_match(lb, lp[i].type, tb, tp[i].type,
						  behind_ptr, level - 1);
				if (err <= 0)
					return err;
			}
			lid = lt->type;
			tid = tt->type;
			break;
		}
		default:
			return 0;
		}
	}
}

/* ---- matching a candidate -------------------------------------------- */

/* bpf_core_match_member(): 1 found, 0 not, <0 error. */
static int match_member(const struct spec *local, const struct accessor *lacc,
			const struct bc_ktypes *tb, uint32_t tid,
			struct spec *spec, uint32_t *next_id)
{
	const struct btf_type *tt = skip_mods_typedefs(tb, tid, &tid);
	const struct btf_type *lt = type_at(local->kt, lacc->type_id);
	const struct btf_member *lm = members(lt) + lacc->idx;
	const char *lname = name_of(local->kt, lm->name_off);
	uint32_t i, n;
	int found;

	if (!is_composite(tt))
		return 0;
	n = bc_type_vlen(tt);
	for (i = 0; i < n; i++) {
		const struct btf_member *m = members(tt) + i;
		uint32_t bit_offset = member_bit_offset(tt, i);
		const char *tname = name_of(tb, m->name_off);

		if (spec->raw_len == SPEC_MAX_LEN)
			return -E2BIG;
		spec->bit_offset += bit_offset;
		spec->raw[spec->raw_len++] = i;
		if (!*tname) {
			found = match_member(local, lacc, tb, m->type, spec,
					     next_id);
			if (found)
				return found;
		} else if (!strcmp(lname, tname)) {
			struct accessor *acc = &spec->acc[spec->len++];

			acc->type_id = tid;
			acc->idx = i;
			acc->name = tname;
			*next_id = m->type;
			found = fields_are_compat(local->kt, lm->type, tb,
						  m->type);
			if (!found)
				spec->len--;
			return found;
		}
		spec->bit_offset -= bit_offset;
		spec->raw_len--;
	}
	return 0;
}

/* bpf_core_spec_match(): 1 match, 0 not, <0 error. */
static int spec_match(const struct spec *local, const struct bc_ktypes *tb,
		      uint32_t tid, struct spec *ts)
{
	const struct accessor *lacc = local->acc;
	struct accessor *tacc = ts->acc;
	const struct btf_type *tt;
	uint32_t i;

	memset(ts, 0, sizeof(*ts));
	ts->kt = tb;
	ts->root_id = tid;
	ts->kind = local->kind;
	if (kinds[local->kind].class == C_TYPE) {
		if (local->kind == K_TYPE_MATCHES)
			return types_match(local->kt, local->root_id, tb, tid,
					   false, COMPAT_LEVEL);
		return types_are_compat(local->kt, local->root_id, tb, tid,
					COMPAT_LEVEL);
	}
	if (kinds[local->kind].class == C_ENUMVAL) {
		tt = skip_mods_typedefs(tb, tid, &tid);
		if (!is_any_enum(tt))
			return 0;
		for (i = 0; i < bc_type_vlen(tt); i++) {
			const char *n = name_of(tb, enum_name_off(tt, i));

			if (essential_eq(lacc->name, n)) {
				tacc->type_id = tid;
				tacc->idx = i;
				tacc->name = n;
				ts->len = 1;
				ts->raw[ts->raw_len++] = i;
				return 1;
			}
		}
		return 0;
	}
	for (i = 0; i < local->len; i++, lacc++, tacc++) {
		int64_t sz;

		tt = skip_mods_typedefs(tb, tid, &tid);
		if (lacc->name) {
			int m = match_member(local, lacc, tb, tid, ts, &tid);

			if (m <= 0)
				return m;
			continue;
		}
		if (i > 0) {
			const struct btf_array *a;

			if (kind_of(tt) != BTF_KIND_ARRAY)
				return 0;
			a = array_of(tt);
			if (!is_flex_array(tb, tacc - 1, a) &&
			    lacc->idx >= a->nelems)
				return 0;
			skip_mods_typedefs(tb, a->type, &tid);
		}
		if (ts->raw_len == SPEC_MAX_LEN)
			return -E2BIG;
		tacc->type_id = tid;
		tacc->idx = lacc->idx;
		tacc->name = NULL;
		ts->len++;
		ts->raw[ts->raw_len++] = lacc->idx;
		sz = resolve_size(tb, tid);
		if (sz < 0)
			return (int)sz;
		ts->bit_offset += (uint32_t)(lacc->idx * sz * 8);
	}
	return 1;
}

/* ---- values ---------------------------------------------------------- */

struct relo_value {
	uint64_t val;
	uint32_t field_sz;	/* load/store size (byte_off, non-bitfield) */
	uint32_t type_id;	/* the field's type (for the size rule) */
	uint32_t bytes;		/* the field's size, for reports */
	bool bitfield;
	bool composite;		/* a struct, union or array: not read whole */
	bool poison;
};

/* bpf_core_calc_field_relo() for a field kind other than exists; v zeroed. */
static int field_value(uint32_t kind, const struct spec *spec,
		       struct relo_value *v)
{
	const struct accessor *acc;
	const struct btf_type *t, *mt;
	uint32_t byte_off, byte_sz, bit_off, bit_sz, ftid;
	int64_t sz;

	acc = &spec->acc[spec->len - 1];
	t = type_at(spec->kt, acc->type_id);
	if (!acc->name) {
		const struct btf_type *et = type_at(spec->kt, acc->type_id);

		sz = resolve_size(spec->kt, acc->type_id);
		if (sz < 0)
			return -EINVAL;
		v->bytes = sz;
		v->composite = is_composite(et) || kind_of(et) == BTF_KIND_ARRAY;
		if (kind == K_BYTE_OFF) {
			v->val = spec->bit_offset / 8;
			v->field_sz = sz;
			v->type_id = acc->type_id;
		} else if (kind == K_BYTE_SZ) {
			v->val = sz;
		} else {
			return -EINVAL;	/* "can't be applied to array access" */
		}
		return 0;
	}
	mt = skip_mods_typedefs(spec->kt, members(t)[acc->idx].type, &ftid);
	bit_off = spec->bit_offset;
	bit_sz = member_bitfield_size(t, acc->idx);
	v->composite = is_composite(mt) || kind_of(mt) == BTF_KIND_ARRAY;
	v->bitfield = bit_sz > 0;
	if (v->bitfield) {
		byte_sz = mt->size;
		if (!byte_sz)
			return -EINVAL;
		byte_off = bit_off / 8 / byte_sz * byte_sz;
		while (bit_off + bit_sz - byte_off * 8 > byte_sz * 8) {
			if (byte_sz >= 8)
				return -E2BIG;	/* not readable with one load */
			byte_sz *= 2;
			byte_off = bit_off / 8 / byte_sz * byte_sz;
		}
	} else {
		sz = resolve_size(spec->kt, ftid);
		if (sz < 0)
			return -EINVAL;
		byte_sz = sz;
		byte_off = spec->bit_offset / 8;
		bit_sz = byte_sz * 8;
	}
	v->bytes = v->bitfield ? bit_sz : byte_sz;
	switch (kind) {
	case K_BYTE_OFF:
		v->val = byte_off;
		if (!v->bitfield) {
			v->field_sz = byte_sz;
			v->type_id = ftid;
		}
		break;
	case K_BYTE_SZ:
		v->val = byte_sz;
		break;
	case K_SIGNED:
		v->val = (is_any_enum(mt) && bc_info_kflag(mt->info)) ||
			 (BTF_INT_ENCODING(word_after(spec->kt, mt)) &
			  BTF_INT_SIGNED);
		break;
	case K_LSHIFT:
		v->val = 64 - (bit_off + bit_sz - byte_off * 8);
		break;
	case K_RSHIFT:
		v->val = 64 - bit_sz;
		break;
	default:
		return -EOPNOTSUPP;
	}
	return 0;
}


/*
 * bpf_core_calc_field_relo(), bpf_core_calc_type_relo() and
 * bpf_core_calc_enumval_relo(): the value of kind for spec, NULL when no
 * candidate matched. The *_exists and type_matches kinds tell whether
 * one did; without one the other type kinds give 0 and the field and
 * enumerator kinds poison the instruction.
 */
static int calc_value(uint32_t kind, const struct spec *spec,
		      struct relo_value *v)
{
	int64_t sz;

	memset(v, 0, sizeof(*v));
	switch (kind) {
	case K_FIELD_EXISTS:
	case K_TYPE_EXISTS:
	case K_TYPE_MATCHES:
	case K_ENUMVAL_EXISTS:
		v->val = spec != NULL;
		return 0;
	}
	if (!spec) {
		v->poison = kinds[kind].class != C_TYPE;
		return 0;
	}
	switch (kind) {
	case K_LOCAL_ID:
		return -EOPNOTSUPP;
	case K_TARGET_ID:
		v->val = spec->root_id;
		return 0;
	case K_TYPE_SIZE:
		sz = resolve_size(spec->kt, spec->root_id);
		if (sz < 0)
			return -EINVAL;
		v->val = sz;
		return 0;
	case K_ENUMVAL_VALUE:
		v->val = enum_value(type_at(spec->kt, spec->acc[0].type_id),
				    spec->acc[0].idx);
		return 0;
	default:
		return field_value(kind, spec, v);
	}
}

/*
 * A load or store of a field whose size changed may be resized only for
 * pointers and unsigned integers (libbpf: "fail_memsz_adjust").
 */
static bool resize_allowed(const struct bc_ktypes *lb, const struct relo_value *l,
			   const struct bc_ktypes *tb, const struct relo_value *t)
{
	const struct btf_type *lt = type_at(lb, l->type_id);
	const struct btf_type *tt = type_at(tb, t->type_id);

	if (l->field_sz == t->field_sz)
		return true;
	if (kind_of(lt) == BTF_KIND_PTR && kind_of(tt) == BTF_KIND_PTR)
		return true;
	return kind_of(lt) == BTF_KIND_INT && kind_of(tt) == BTF_KIND_INT &&
	       BTF_INT_ENCODING(int_word(lt)) != BTF_INT_SIGNED &&
	       BTF_INT_ENCODING(int_word(tt)) != BTF_INT_SIGNED;
}

static void set_why(struct bc_relo_result *res, enum bc_relo_outcome outcome,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void set_why(struct bc_relo_result *res, enum bc_relo_outcome outcome,
		    const char *fmt, ...)
{
	va_list ap;

	res->outcome = outcome;
	va_start(ap, fmt);
	vsnprintf(res->why, sizeof(res->why), fmt, ap);
	va_end(ap);
}

/* The instruction's current value of what the relocation patches. */
static int insn_value(const struct bpf_insn *insn, uint32_t left,
		      uint64_t *val, bool *mem)
{
	uint8_t class = BPF_CLASS(insn->code);

	*mem = false;
	switch (class) {
	case BPF_ALU:
	case BPF_ALU64:
		if (BPF_SRC(insn->code) != BPF_K)
			return -EINVAL;
		*val = (uint64_t)(int64_t)insn->imm;
		return 0;
	case BPF_LDX:
	case BPF_ST:
	case BPF_STX:
		*mem = true;
		*val = (uint64_t)(int64_t)insn->off;
		return 0;
	case BPF_LD:
		if (insn->code != (BPF_LD | BPF_IMM | BPF_DW) || left < 2 ||
		    insn[0].src_reg || insn[0].off || insn[1].code ||
		    insn[1].dst_reg || insn[1].src_reg || insn[1].off)
			return -EINVAL;
		*val = (uint32_t)insn[0].imm | ((uint64_t)(uint32_t)insn[1].imm << 32);
		return 0;
	default:
		return -EINVAL;
	}
}

static int cands_of(struct bc_core_ctx *ctx, uint32_t id,
		    struct bc_core_cands **out)
{
	int err;

	if (!ctx->cands[id]) {
		err = find_cands(ctx, id, &ctx->cands[id]);
		if (err)
			return err;
	}
	*out = ctx->cands[id];
	return 0;
}

/*
 * bpf_core_calc_relo_insn() and the checks of bpf_core_patch_insn(),
 * giving the outcome instead of logging it.
 */
/* " in module NAME" for a module's BTF, "" for the kernel's. */
static const char *module_label(const struct bc_core_ctx *ctx,
				const struct bc_ktypes *kt)
{
	static const char *const none = "";
	const struct bc_core_module *mods;
	uint32_t m, nr;

	if (kt == ctx->target)
		return none;	/* the modules not asked for */
	ctx_modules(ctx, &mods, &nr);
	for (m = 0; m < nr; m++)
		if (&mods[m].types == kt)
			return mods[m].label;
	return none;
}

int bc_core_relo_eval(struct bc_core_ctx *ctx, const struct bc_core_relo *relo,
		      const struct bpf_insn *insn, uint32_t insns_left,
		      struct bc_relo_result *res)
{
	struct spec *local = NULL, *cand = NULL, *targ = NULL;
	const struct btf_type *lt = type_at(&ctx->local, relo->type_id);
	const char *lname = name_of(&ctx->local, lt->name_off);
	struct relo_value lv = { 0 }, tv = { 0 }, cv;
	struct bc_core_cands *cands = NULL;
	uint64_t cur;
	uint32_t i, j = 0;
	bool validate = false;
	int err = 0;

	memset(res, 0, sizeof(*res));
	if (relo->kind >= BC_CORE_NR_KINDS) {
		set_why(res, BC_RELO_FAILED, "unknown relocation kind %u",
			relo->kind);
		return 0;
	}
	if (relo->kind != K_LOCAL_ID) {
		if (!*lname) {
			set_why(res, BC_RELO_FAILED,
				"anonymous type [%u]: libbpf finds no candidates for it",
				relo->type_id);
			return 0;
		}
		err = cands_of(ctx, relo->type_id, &cands);
		if (err)
			return err;
	}
	if (!ctx->specs)
		ctx->specs = malloc(sizeof(*ctx->specs));
	if (!ctx->specs) {
		err = -ENOMEM;
		goto out;
	}
	local = &ctx->specs->local;
	cand = &ctx->specs->cand;
	targ = &ctx->specs->targ;
	if (parse_spec(&ctx->local, relo, local)) {
		set_why(res, BC_RELO_FAILED, "bad access string '%s' for [%u]",
			name_of(&ctx->local, relo->access_off), relo->type_id);
		goto out;
	}
	if (relo->kind == K_LOCAL_ID) {
		res->outcome = BC_RELO_PATCHED;
		res->value = res->local_value = relo->type_id;
		goto check_insn_form;
	}
	if (calc_value(relo->kind, local, &lv)) {
		set_why(res, BC_RELO_FAILED,
			"relocation does not apply to the local field");
		goto out;
	}
	/* the compiler's value is checked against the instruction */
	validate = !(kinds[relo->kind].class == C_FIELD && lv.bitfield &&
		     relo->kind != K_SIGNED && relo->kind != K_RSHIFT) &&
		   relo->kind != K_TARGET_ID;
	res->local_value = lv.val;
	res->local_size = lv.bytes;
	res->bitfield = lv.bitfield;
	res->composite = lv.composite;
	/* libbpf never narrows a cache to nothing: empty is none at all */
	res->no_candidates = cands->len == 0;
	for (i = 0; i < cands->len; i++) {
		int m = spec_match(local, cands->srcs[i], cands->ids[i], cand);

		if (m < 0) {
			set_why(res, BC_RELO_FAILED,
				"error matching candidate [%u]", cands->ids[i]);
			goto out;
		}
		if (m == 0)
			continue;
		if (calc_value(relo->kind, cand, &cv)) {
			set_why(res, BC_RELO_FAILED,
				"field of candidate [%u] cannot be read (bitfield wider than 64 bits?)",
				cands->ids[i]);
			goto out;
		}
		if (ctx->on_match) {
			err = ctx->on_match(ctx->on_match_arg, relo->kind,
					    cand->kt, cand->root_id, cand->raw,
					    cand->raw_len);
			if (err)
				goto out;
		}
		if (j == 0) {
			tv = cv;
			*targ = *cand;
		} else if (cand->bit_offset != targ->bit_offset) {
			set_why(res, BC_RELO_AMBIGUOUS,
				"field offset ambiguity: [%u]%s at bit %u, [%u]%s at bit %u",
				targ->root_id, module_label(ctx, targ->kt),
				targ->bit_offset, cand->root_id,
				module_label(ctx, cand->kt), cand->bit_offset);
			goto out;
		} else if (cv.poison != tv.poison || cv.val != tv.val) {
			set_why(res, BC_RELO_AMBIGUOUS,
				"relocation decision ambiguity: [%u]%s gives %llu, [%u]%s gives %llu",
				targ->root_id, module_label(ctx, targ->kt),
				(unsigned long long)tv.val, cand->root_id,
				module_label(ctx, cand->kt),
				(unsigned long long)cv.val);
			goto out;
		}
		cands->srcs[j] = cands->srcs[i];
		cands->ids[j++] = cands->ids[i];
	}
	if (j > 0) {
		cands->len = j;
		res->target_id = targ->root_id;
		res->target_types = targ->kt;
	} else {
		calc_value(relo->kind, NULL, &tv);
	}
	res->target_size = tv.bytes;
	if (tv.poison) {
		/* a poisoned instruction is replaced whatever its form */
		set_why(res, BC_RELO_POISONED, "no %s in the kernel",
			kinds[relo->kind].class == C_ENUMVAL ? "such enumerator" :
			"matching field");
		goto out;
	}
	res->outcome = BC_RELO_PATCHED;
	res->value = tv.val;
check_insn_form:
	if (insn_value(insn, insns_left, &cur, &res->mem_access)) {
		set_why(res, BC_RELO_FAILED,
			"instruction of unexpected form (code 0x%02x)",
			insn->code);
		goto out;
	}
	if (res->outcome != BC_RELO_PATCHED || relo->kind == K_LOCAL_ID)
		goto out;
	if (validate && cur != lv.val) {
		set_why(res, BC_RELO_FAILED,
			"instruction holds %llu, the object's BTF says %llu",
			(unsigned long long)cur, (unsigned long long)lv.val);
		goto out;
	}
	if (res->mem_access && kinds[relo->kind].class == C_FIELD) {
		if (tv.val > SHRT_MAX) {
			set_why(res, BC_RELO_FAILED,
				"offset %llu does not fit a load or store",
				(unsigned long long)tv.val);
			goto out;
		}
		if (!resize_allowed(&ctx->local, &lv, j ? targ->kt : ctx->target,
				    &tv)) {
			set_why(res, BC_RELO_POISONED,
				"load of %u bytes, the kernel's field has %u and is neither a pointer nor unsigned",
				lv.field_sz, tv.field_sz);
			goto out;
		}
	}
out:
	return err;
}

void bc_core_relo_describe(const struct bc_btf *local_btf,
			   const struct bc_core_relo *relo, char *type,
			   size_t type_size, char *access, size_t access_size)
{
	struct bc_ktypes local_types, *local = &local_types;
	const struct btf_type *t;
	const char *name;
	static const char *const keyword[BC_NR_KINDS] = {
		[BTF_KIND_STRUCT] = "struct ", [BTF_KIND_UNION] = "union ",
		[BTF_KIND_ENUM] = "enum ", [BTF_KIND_ENUM64] = "enum ",
		[BTF_KIND_FWD] = "struct ",
	};
	struct spec *spec;
	size_t len = 0;
	uint32_t i;

	bc_ktypes_init_btf(local, local_btf, false);
	t = type_at(local, relo->type_id);
	name = name_of(local, t->name_off);
	snprintf(type, type_size, "%s%s",
		 keyword[kind_of(t)] ? keyword[kind_of(t)] : "",
		 *name ? name : "(anon)");
	access[0] = '\0';
	if (relo->kind >= BC_CORE_NR_KINDS)
		return;
	spec = malloc(sizeof(*spec));
	if (!spec)
		return;
	if (parse_spec(local, relo, spec)) {
		snprintf(access, access_size, "%s", name_of(local, relo->access_off));
		free(spec);
		return;
	}
	if (kinds[relo->kind].class == C_ENUMVAL) {
		snprintf(access, access_size, "%s", spec->acc[0].name);
	} else if (kinds[relo->kind].class == C_FIELD) {
		for (i = 0; i < spec->len && len < access_size; i++) {
			const struct accessor *a = &spec->acc[i];
			int n;

			if (a->name)
				n = snprintf(access + len, access_size - len, "%s%s",
					     len ? "." : "", a->name);
			else if (i > 0 || a->idx > 0)
				n = snprintf(access + len, access_size - len,
					     "[%u]", a->idx);
			else
				n = 0;
			if (n > 0)
				len += n;
		}
	}
	free(spec);
}
