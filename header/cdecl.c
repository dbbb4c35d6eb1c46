// SPDX-License-Identifier: GPL-2.0-only
/*
 * C declarators from BTF.
 *
 * A C declaration reads inside out: in "int (*fn[2])(char)" the name sits
 * in the middle, the array and call suffixes on its right, the pointer and
 * the base type on its left. So a declaration is printed in two walks of
 * the same type chain, from the declared object towards the base type:
 * prefix() writes what goes left of the name (base type first, since it
 * recurses before writing), suffix() what goes right. A pointer to an
 * array or to a function needs parentheses around its "*", so that
 * "(*" / ")" pair is what PTR contributes in that case.
 *
 * Qualifiers follow C: "const int x" for a qualified base type, and
 * "char *const p" for a qualified pointer.
 */
#include <inttypes.h>
#include <string.h>

#include "../canon/btf_kinds.h"
#include "cdecl.h"
#include "../canon/types.h"

/*
 * Whether to expand the anonymous body t here. Bounded three ways, since
 * BTF from outside is not C (all found by tests/fuzz/fuzz_diff): no body
 * inside itself (an anonymous struct reached again through a pointer), at
 * most BC_CDECL_MAX_DEPTH levels, and at most BC_CDECL_MAX_BODIES bodies
 * per declaration (32 levels of anonymous structs with two members of the
 * next one each are 2^32 bodies, without a cycle).
 */
static bool may_expand(const struct bc_cdecl *c, const struct btf_type *t)
{
	uint32_t i;

	if (!c->expand || bc_type_kind(t) == BTF_KIND_FWD ||
	    c->depth >= BC_CDECL_MAX_DEPTH || c->bodies >= BC_CDECL_MAX_BODIES)
		return false;
	for (i = 0; i < c->depth; i++) {
		if (c->expanding[i] == t)
			return false;
	}
	return true;
}

static bool last_char_is(const struct bc_text *out, const char *set)
{
	return out->len && strchr(set, out->buf[out->len - 1]);
}

/* Appends s after a space, unless the text ends where no space belongs. */
static void spaced(struct bc_text *out, const char *s)
{
	if (out->len && !last_char_is(out, " *("))
		bc_text_add(out, " ", 1);
	bc_text_puts(out, s);
}

static const struct btf_type *type_of(const struct bc_cdecl *c, uint32_t id)
{
	return c->type_of ? c->type_of(c->src, id) : bc_btf_type(c->btf, id);
}

static const char *str_of(const struct bc_cdecl *c, uint32_t str)
{
	return c->str_of ? c->str_of(c->src, str) : bc_btf_str(c->btf, str);
}

/* The type behind qualifiers and type tags (typedefs kept), *id following. */
static const struct btf_type *skip_qualifiers(const struct bc_cdecl *c,
					      uint32_t *id)
{
	return c->type_of ? bc_skip_mods_read(c->type_of, c->src, id, false) :
	       bc_skip_mods(c->btf, id, false);
}

static bool needs_parens(const struct bc_cdecl *c, uint32_t pointee)
{
	const struct btf_type *t = skip_qualifiers(c, &pointee);
	uint32_t kind = t ? bc_type_kind(t) : 0;

	return kind == BTF_KIND_ARRAY || kind == BTF_KIND_FUNC_PROTO;
}

static void base_name(struct bc_cdecl *c, const struct btf_type *t,
		      struct bc_text *out)
{
	const char *keyword = bc_tag_keyword(t);
	const char *name = str_of(c, t->name_off);

	if (!keyword) {
		spaced(out, name);
		return;
	}
	spaced(out, keyword);
	if (*name) {
		bc_text_printf(out, " %s", name);
	} else if (may_expand(c, t)) {
		bc_text_add(out, " ", 1);
		bc_cdecl_body(c, t, out);
	} else {
		bc_text_puts(out, " {...}");
	}
}

static void qualifier_name(const struct bc_cdecl *c, const struct btf_type *t,
			   struct bc_text *out)
{
	switch (bc_type_kind(t)) {
	case BTF_KIND_CONST:
		spaced(out, "const");
		break;
	case BTF_KIND_VOLATILE:
		spaced(out, "volatile");
		break;
	case BTF_KIND_RESTRICT:
		spaced(out, "restrict");
		break;
	default:
		spaced(out, "__tag(");
		bc_text_puts(out, str_of(c, t->name_off));
		bc_text_puts(out, ")");
	}
}

static void prefix(struct bc_cdecl *c, uint32_t id, struct bc_text *out)
{
	const struct btf_type *t = type_of(c, id);
	uint32_t target;

	if (!t) {
		spaced(out, "void");
		return;
	}
	switch (bc_type_kind(t)) {
	case BTF_KIND_PTR:
		prefix(c, t->type, out);
		spaced(out, needs_parens(c, t->type) ? "(*" : "*");
		break;
	case BTF_KIND_ARRAY:
		prefix(c, ((const struct btf_array *)(t + 1))->type, out);
		break;
	case BTF_KIND_FUNC_PROTO:
		prefix(c, t->type, out);
		break;
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		target = t->type;
		skip_qualifiers(c, &target);
		if (type_of(c, target) &&
		    bc_type_kind(type_of(c, target)) == BTF_KIND_PTR) {
			/* a qualified pointer: "char *const" */
			prefix(c, t->type, out);
			qualifier_name(c, t, out);
		} else {
			qualifier_name(c, t, out);
			prefix(c, t->type, out);
		}
		break;
	default:
		base_name(c, t, out);
	}
}

static void params(struct bc_cdecl *c, const struct btf_type *proto,
		   bool with_names, struct bc_text *out)
{
	const struct btf_param *p = (const void *)(proto + 1);
	uint32_t i, vlen = bc_type_vlen(proto);

	bc_text_add(out, "(", 1);
	if (!vlen)
		bc_text_puts(out, "void");
	for (i = 0; i < vlen; i++, p++) {
		if (i)
			bc_text_puts(out, ", ");
		if (i == vlen - 1 && !p->type)
			bc_text_puts(out, "...");
		else
			bc_cdecl_type(c, p->type,
				      with_names ? str_of(c, p->name_off) : "",
				      out);
	}
	bc_text_add(out, ")", 1);
}

static void suffix(struct bc_cdecl *c, uint32_t id, struct bc_text *out)
{
	const struct btf_type *t = type_of(c, id);
	const struct btf_array *a;

	if (!t)
		return;
	switch (bc_type_kind(t)) {
	case BTF_KIND_PTR:
		if (needs_parens(c, t->type))
			bc_text_add(out, ")", 1);
		suffix(c, t->type, out);
		break;
	case BTF_KIND_ARRAY:
		a = (const void *)(t + 1);
		bc_text_printf(out, "[%u]", a->nelems);
		suffix(c, a->type, out);
		break;
	case BTF_KIND_FUNC_PROTO:
		params(c, t, false, out);
		suffix(c, t->type, out);
		break;
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		suffix(c, t->type, out);
		break;
	default:
		break;
	}
}

void bc_cdecl_type(struct bc_cdecl *c, uint32_t id, const char *name,
		   struct bc_text *out)
{
	size_t start = out->len;

	if (!c->depth)
		c->bodies = 0;	/* a new declaration */
	prefix(c, id, out);
	if (*name) {
		if (out->len > start && !last_char_is(out, " *("))
			bc_text_add(out, " ", 1);
		bc_text_puts(out, name);
	}
	suffix(c, id, out);
}

void bc_cdecl_func(struct bc_cdecl *c, uint32_t proto_id, const char *name,
		   struct bc_text *out)
{
	const struct btf_type *proto = type_of(c, proto_id);
	size_t start = out->len;

	if (!c->depth)
		c->bodies = 0;
	if (!proto || bc_type_kind(proto) != BTF_KIND_FUNC_PROTO) {
		bc_cdecl_type(c, proto_id, name, out);
		return;
	}
	/* the return type's declarator wraps "name(params)" */
	prefix(c, proto->type, out);
	if (out->len > start && !last_char_is(out, " *("))
		bc_text_add(out, " ", 1);
	bc_text_puts(out, name);
	params(c, proto, true, out);
	suffix(c, proto->type, out);
}

static void enum_body(struct bc_cdecl *c, const struct btf_type *t,
		      struct bc_text *out)
{
	bool is64 = bc_type_kind(t) == BTF_KIND_ENUM64;
	bool is_signed = bc_info_kflag(t->info);
	const uint32_t *e = (const uint32_t *)(t + 1);
	uint32_t i, vlen = bc_type_vlen(t);

	bc_text_printf(out, "/* size %u%s */ {", t->size,
		       is_signed ? ", signed" : "");
	for (i = 0; i < vlen; i++, e += is64 ? 3 : 2) {
		uint64_t v = is64 ? (uint64_t)e[2] << 32 | e[1] : e[1];

		bc_text_printf(out, " %s = ", str_of(c, e[0]));
		if (!is_signed)
			bc_text_printf(out, "%" PRIu64 ",", v);
		else if (is64)
			bc_text_printf(out, "%" PRId64 ",", (int64_t)v);
		else
			bc_text_printf(out, "%d,", (int32_t)v);
	}
	bc_text_puts(out, " }");
}

void bc_cdecl_body(struct bc_cdecl *c, const struct btf_type *t,
		   struct bc_text *out)
{
	const struct btf_member *m = (const void *)(t + 1);
	uint32_t i, vlen = bc_type_vlen(t);
	bool kflag = bc_info_kflag(t->info);

	if (bc_type_kind(t) == BTF_KIND_ENUM || bc_type_kind(t) == BTF_KIND_ENUM64) {
		enum_body(c, t, out);
		return;
	}
	if (!c->depth)
		c->bodies = 0;
	if (c->depth >= BC_CDECL_MAX_DEPTH) {
		bc_text_puts(out, "{...}");
		return;
	}
	c->expanding[c->depth++] = t;
	c->bodies++;
	bc_text_printf(out, "/* size %u */ {", t->size);
	for (i = 0; i < vlen; i++, m++) {
		uint32_t bits = kflag ? BTF_MEMBER_BIT_OFFSET(m->offset) : m->offset;
		uint32_t bitfield = kflag ? BTF_MEMBER_BITFIELD_SIZE(m->offset) : 0;

		bc_text_add(out, " ", 1);
		bc_cdecl_type(c, m->type, str_of(c, m->name_off), out);
		if (bitfield)
			bc_text_printf(out, ": %u", bitfield);
		bc_text_printf(out, " @%u;", bits);
	}
	bc_text_puts(out, " }");
	c->depth--;
}
