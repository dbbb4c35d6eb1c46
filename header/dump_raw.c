// SPDX-License-Identifier: GPL-2.0-only
/*
 * The type listing, as text and as JSON.
 *
 * The text is the format bpftool prints for `btf dump file X` (one header
 * line per type, one tab-indented line per member, enumerator, parameter
 * or DATASEC entry), and the JSON has the field names of `bpftool -j`, so
 * either can be compared with bpftool's output or read by scripts written
 * for it. The JSON puts one type per line so that it diffs well.
 *
 * One printer per kind, in a table indexed by BTF_KIND_*, writes through
 * small field helpers that know both formats; the irregularities of the
 * text format (the comma after a VAR's type_id, quoted entry names) live
 * in the helpers' arguments, not in per-format copies of the printers.
 */
#include <errno.h>
#include <inttypes.h>

#include "../canon/btf_kinds.h"
#include "dump.h"

struct listing {
	const struct bc_btf *btf;
	struct bc_text *out;
	bool json;
	bool in_entry;		/* JSON: inside an entry object */
	bool entry_first;	/* JSON: no field in the entry yet */
};

static const char *name_or_anon(const struct bc_btf *btf, uint32_t off)
{
	const char *name = bc_btf_str(btf, off);

	return *name ? name : "(anon)";
}

/* The separator before a field: a space in text, a comma in JSON. */
static void field_key(struct listing *l, const char *key)
{
	if (!l->json) {
		bc_text_printf(l->out, " %s=", key);
		return;
	}
	if (!(l->in_entry && l->entry_first))
		bc_text_add(l->out, ",", 1);
	l->entry_first = false;
	bc_text_printf(l->out, "\"%s\":", key);
}

static void field_u(struct listing *l, const char *key, uint64_t v)
{
	field_key(l, key);
	bc_text_printf(l->out, "%" PRIu64, v);
}

static void field_s(struct listing *l, const char *key, int64_t v)
{
	field_key(l, key);
	bc_text_printf(l->out, "%" PRId64, v);
}

/* A string field: bare in text (encoding=SIGNED), quoted in JSON. */
static void field_word(struct listing *l, const char *key, const char *v)
{
	field_key(l, key);
	if (l->json)
		bc_text_json_str(l->out, v);
	else
		bc_text_puts(l->out, v);
}

/* Opens the list of entries (JSON: "key":[). */
static void entries_open(struct listing *l, const char *key)
{
	if (l->json)
		bc_text_printf(l->out, ",\"%s\":[", key);
}

static void entries_close(struct listing *l)
{
	if (l->json)
		bc_text_add(l->out, "]", 1);
}

/* Opens entry i; named entries start with their quoted name. */
static void entry_open(struct listing *l, uint32_t i, const char *name)
{
	if (!l->json) {
		bc_text_puts(l->out, "\n\t");
		if (name)
			bc_text_printf(l->out, "'%s'", name);
		return;
	}
	bc_text_puts(l->out, i ? ",{" : "{");
	l->in_entry = true;
	l->entry_first = true;
	if (name)
		field_word(l, "name", name);
}

/* In text the first field after an unnamed entry's start has no space. */
static void entry_first_field(struct listing *l, const char *key, uint64_t v)
{
	if (!l->json) {
		bc_text_printf(l->out, "%s=%" PRIu64, key, v);
		return;
	}
	field_u(l, key, v);
}

static void entry_close(struct listing *l)
{
	if (l->json) {
		bc_text_add(l->out, "}", 1);
		l->in_entry = false;
	}
}

static const char *int_encoding(uint32_t enc)
{
	switch (enc) {
	case 0:
		return "(none)";
	case BTF_INT_SIGNED:
		return "SIGNED";
	case BTF_INT_CHAR:
		return "CHAR";
	case BTF_INT_BOOL:
		return "BOOL";
	default:
		return "UNKN";
	}
}

static void list_int(struct listing *l, const struct btf_type *t)
{
	uint32_t v = *(const uint32_t *)(t + 1);

	field_u(l, "size", t->size);
	field_u(l, "bits_offset", BTF_INT_OFFSET(v));
	field_u(l, "nr_bits", BTF_INT_BITS(v));
	field_word(l, "encoding", int_encoding(BTF_INT_ENCODING(v)));
}

static void list_ref(struct listing *l, const struct btf_type *t)
{
	field_u(l, "type_id", t->type);
}

static void list_array(struct listing *l, const struct btf_type *t)
{
	const struct btf_array *a = (const void *)(t + 1);

	field_u(l, "type_id", a->type);
	field_u(l, "index_type_id", a->index_type);
	field_u(l, "nr_elems", a->nelems);
}

static void list_composite(struct listing *l, const struct btf_type *t)
{
	const struct btf_member *m = (const void *)(t + 1);
	uint32_t i, vlen = bc_type_vlen(t);
	bool kflag = bc_info_kflag(t->info);

	field_u(l, "size", t->size);
	field_u(l, "vlen", vlen);
	entries_open(l, "members");
	for (i = 0; i < vlen; i++, m++) {
		uint32_t bits = kflag ? BTF_MEMBER_BIT_OFFSET(m->offset) : m->offset;
		uint32_t bitfield = kflag ? BTF_MEMBER_BITFIELD_SIZE(m->offset) : 0;

		entry_open(l, i, name_or_anon(l->btf, m->name_off));
		field_u(l, "type_id", m->type);
		field_u(l, "bits_offset", bits);
		if (bitfield)
			field_u(l, "bitfield_size", bitfield);
		entry_close(l);
	}
	entries_close(l);
}

static void list_enum(struct listing *l, const struct btf_type *t)
{
	bool is_signed = bc_info_kflag(t->info);
	bool is64 = bc_type_kind(t) == BTF_KIND_ENUM64;
	const uint32_t *e = (const uint32_t *)(t + 1);
	uint32_t i, vlen = bc_type_vlen(t);

	field_word(l, "encoding", is_signed ? "SIGNED" : "UNSIGNED");
	field_u(l, "size", t->size);
	field_u(l, "vlen", vlen);
	entries_open(l, "values");
	for (i = 0; i < vlen; i++, e += is64 ? 3 : 2) {
		uint64_t v = is64 ? (uint64_t)e[2] << 32 | e[1] : e[1];

		entry_open(l, i, name_or_anon(l->btf, e[0]));
		if (!is_signed)
			field_u(l, "val", v);
		else if (is64)
			field_s(l, "val", (int64_t)v);
		else
			field_s(l, "val", (int32_t)v);
		entry_close(l);
	}
	entries_close(l);
}

static void list_fwd(struct listing *l, const struct btf_type *t)
{
	field_word(l, "fwd_kind", bc_info_kflag(t->info) ? "union" : "struct");
}

static const char *func_linkage(uint32_t linkage)
{
	switch (linkage) {
	case BTF_FUNC_STATIC:
		return "static";
	case BTF_FUNC_GLOBAL:
		return "global";
	case BTF_FUNC_EXTERN:
		return "extern";
	default:
		return "(unknown)";
	}
}

static void list_func(struct listing *l, const struct btf_type *t)
{
	field_u(l, "type_id", t->type);
	field_word(l, "linkage", func_linkage(bc_type_vlen(t)));
}

static void list_func_proto(struct listing *l, const struct btf_type *t)
{
	const struct btf_param *p = (const void *)(t + 1);
	uint32_t i, vlen = bc_type_vlen(t);

	field_u(l, "ret_type_id", t->type);
	field_u(l, "vlen", vlen);
	entries_open(l, "params");
	for (i = 0; i < vlen; i++, p++) {
		entry_open(l, i, name_or_anon(l->btf, p->name_off));
		field_u(l, "type_id", p->type);
		entry_close(l);
	}
	entries_close(l);
}

static const char *var_linkage(uint32_t linkage)
{
	switch (linkage) {
	case BTF_VAR_STATIC:
		return "static";
	case BTF_VAR_GLOBAL_ALLOCATED:
		return "global";
	case BTF_VAR_GLOBAL_EXTERN:
		return "extern";
	default:
		return "(unknown)";
	}
}

static void list_var(struct listing *l, const struct btf_type *t)
{
	const struct btf_var *v = (const void *)(t + 1);

	field_u(l, "type_id", t->type);
	if (!l->json)
		bc_text_add(l->out, ",", 1);	/* bpftool's "type_id=N, linkage=" */
	field_word(l, "linkage", var_linkage(v->linkage));
}

static void list_datasec(struct listing *l, const struct btf_type *t)
{
	const struct btf_var_secinfo *s = (const void *)(t + 1);
	uint32_t i, vlen = bc_type_vlen(t);

	field_u(l, "size", t->size);
	field_u(l, "vlen", vlen);
	entries_open(l, "vars");
	for (i = 0; i < vlen; i++, s++) {
		const struct btf_type *var = bc_btf_type(l->btf, s->type);

		entry_open(l, i, NULL);
		entry_first_field(l, "type_id", s->type);
		field_u(l, "offset", s->offset);
		field_u(l, "size", s->size);
		if (!l->json && var)
			bc_text_printf(l->out, " (%s '%s')",
				       bc_kind_name(bc_type_kind(var)),
				       name_or_anon(l->btf, var->name_off));
		entry_close(l);
	}
	entries_close(l);
}

static void list_float(struct listing *l, const struct btf_type *t)
{
	field_u(l, "size", t->size);
}

static void list_decl_tag(struct listing *l, const struct btf_type *t)
{
	const struct btf_decl_tag *tag = (const void *)(t + 1);

	field_u(l, "type_id", t->type);
	field_s(l, "component_idx", tag->component_idx);
}

typedef void (*list_fn)(struct listing *l, const struct btf_type *t);

static const list_fn list_kind[BC_NR_KINDS] = {
	[BTF_KIND_INT]		= list_int,
	[BTF_KIND_PTR]		= list_ref,
	[BTF_KIND_ARRAY]	= list_array,
	[BTF_KIND_STRUCT]	= list_composite,
	[BTF_KIND_UNION]	= list_composite,
	[BTF_KIND_ENUM]		= list_enum,
	[BTF_KIND_FWD]		= list_fwd,
	[BTF_KIND_TYPEDEF]	= list_ref,
	[BTF_KIND_VOLATILE]	= list_ref,
	[BTF_KIND_CONST]	= list_ref,
	[BTF_KIND_RESTRICT]	= list_ref,
	[BTF_KIND_FUNC]		= list_func,
	[BTF_KIND_FUNC_PROTO]	= list_func_proto,
	[BTF_KIND_VAR]		= list_var,
	[BTF_KIND_DATASEC]	= list_datasec,
	[BTF_KIND_FLOAT]	= list_float,
	[BTF_KIND_DECL_TAG]	= list_decl_tag,
	[BTF_KIND_TYPE_TAG]	= list_ref,
	[BTF_KIND_ENUM64]	= list_enum,
};

/*
 * A type of a kind btfcanon does not know (canon/btf_data.h), as read:
 * `[ID] UNKNOWN_KIND_<K> 'NAME' vlen=V bytes=HEX`, the record's bytes in
 * file order, head included (JSON: "kind":"UNKNOWN_KIND_<K>", "kind_number",
 * "vlen", "bytes"). Its words are not interpreted: which are type ids is
 * what btfcanon does not know.
 */
static void list_unknown(struct listing *l, const struct bc_unknown_type *u,
			 bool first)
{
	const char *name = name_or_anon(l->btf, u->name_off);
	uint32_t i;

	if (l->json) {
		bc_text_printf(l->out, "%s\n{\"id\":%u,\"kind\":\"UNKNOWN_KIND_%u\",\"name\":",
			       first ? "" : ",", u->id, u->kind);
		bc_text_json_str(l->out, name);
	} else {
		bc_text_printf(l->out, "[%u] UNKNOWN_KIND_%u '%s'", u->id,
			       u->kind, name);
	}
	field_u(l, "kind_number", u->kind);
	field_u(l, "vlen", u->vlen);
	field_key(l, "bytes");
	bc_text_puts(l->out, l->json ? "\"" : "");
	for (i = 0; i < u->len; i++)
		bc_text_printf(l->out, "%02x", u->bytes[i]);
	bc_text_puts(l->out, l->json ? "\"}" : "\n");
}

static int list_types(const struct bc_btf *btf, struct bc_text *out, bool json)
{
	struct listing l = { .btf = btf, .out = out, .json = json };
	uint32_t i, u = 0;

	if (json)
		bc_text_puts(out, "{\"types\":[");
	for (i = 0; i < btf->nr_types && !out->err; i++) {
		const struct btf_type *t = bc_btf_local(btf, i);
		uint32_t kind = bc_type_kind(t);
		const char *name = name_or_anon(btf, t->name_off);

		if (u < btf->nr_unknown &&
		    btf->unknown[u].id == btf->start_id + i) {
			list_unknown(&l, &btf->unknown[u++], !i);
			continue;
		}
		if (json) {
			bc_text_printf(out, "%s\n{\"id\":%u,\"kind\":\"%s\",\"name\":",
				       i ? "," : "", btf->start_id + i,
				       bc_kind_name(kind));
			bc_text_json_str(out, name);
		} else {
			bc_text_printf(out, "[%u] %s '%s'", btf->start_id + i,
				       bc_kind_name(kind), name);
		}
		list_kind[kind](&l, t);
		bc_text_puts(out, json ? "}" : "\n");
	}
	if (json)
		bc_text_puts(out, "\n]}\n");
	return out->err;
}

int bc_dump_raw(const struct bc_btf *btf, struct bc_text *out)
{
	return list_types(btf, out, false);
}

int bc_dump_json(const struct bc_btf *btf, struct bc_text *out)
{
	return list_types(btf, out, true);
}
