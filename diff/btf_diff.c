// SPDX-License-Identifier: GPL-2.0-only
/*
 * The semantic diff.
 *
 * Problem: two BTFs of related builds describe mostly the same types under
 * unrelated ids, in unrelated orders, sometimes with duplicates that one
 * dedup merged and the other did not. The diff must say what changed for
 * a reader of the C types, and nothing else: diff(X, X) and
 * diff(X, sort(permute(X))) are empty.
 *
 * 1. Entities. Every named struct, union, enum, typedef, int and float,
 *    every function (FUNC), variable (VAR) and data section is an entity,
 *    but for the placeholders of types of kinds btfcanon does not know
 *    (canon/btf_data.h: a reference to one reads as its kind's opaque
 *    typedef, so a moved or changed unknown type changes nothing here),
 *    keyed by class, name and C keyword: "struct sk_buff", "func kfree".
 *    Anonymous enums that no other type refers to are entities too (the
 *    kernel's "enum { FOO = 1 };" constants), keyed by keyword alone. A
 *    forward declaration counts only where its side has no definition of
 *    that name. Decl tags belong to the entity they tag. Other anonymous
 *    types are compared inside their named parent (below); anonymous
 *    structs and unions that nothing refers to (types of variables BTF
 *    does not describe) are reachable by no name and left out, as C
 *    headers leave them out.
 *
 * 2. Fingerprints. Each entity gets a 64-bit hash of its complete C text:
 *    the body with named types by name and anonymous types expanded in
 *    full (cdecl.h). Named references do not recurse, so a change in
 *    struct page shows in struct page alone, not in its thousands of users
 *    -- what a header diff shows too. Ids never enter the text, so equal
 *    entities hash equal in any two BTFs.
 *
 * 3. Matching. Both entity lists are sorted by key; walking them together
 *    gives groups of equal keys. In a group, entities with equal
 *    fingerprints pair off as unchanged; of the rest, one old and one new
 *    are the same entity changed; several (duplicate names, anonymous
 *    enums) pair by the most entry names in common -- for an anonymous
 *    enum its enumerators, which C makes unique -- and what is left over
 *    was removed or added.
 *
 * 4. Details. A changed pair is compared item by item: members by name
 *    (type, offset, bitfield size), anonymous members by the names inside
 *    them, then by position; enumerators by name; prototypes as a whole;
 *    sizes, linkage, tags. A member whose type is an anonymous struct,
 *    union or enum (directly or through pointers and arrays) is compared
 *    recursively as its own entry, named by its path from the named
 *    parent: "struct sk_buff::<anon union at offset 40>".
 *
 * Cost: one linear pass per side to render and hash, two sorts, and
 * detailed work only for the entities whose fingerprints differ.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../canon/btf_kinds.h"
#include "btf_diff.h"
#include "../header/cdecl.h"
#include "../canon/types.h"

enum entity_class {
	CLASS_TYPE,
	CLASS_FUNC,
	CLASS_VAR,
	CLASS_DATASEC,
};

struct entity {
	uint32_t id;
	uint32_t cls;
	const char *keyword;	/* "struct", "func", ... */
	const char *name;	/* "" for anonymous */
	uint64_t hash;
	bool is_fwd;
	bool paired;
	bool skip;		/* a FWD shadowed by a definition */
};

/* A DECL_TAG, indexed by the id it tags. */
struct decl_tag {
	uint32_t target;
	int32_t component;
	const char *name;
};

struct side {
	const struct bc_btf *btf;
	struct entity *ents;
	uint32_t nr_ents;
	struct decl_tag *tags;
	uint32_t nr_tags;
	struct bc_cdecl cdecl;	/* names only: "struct {...}" */
	struct bc_cdecl full;	/* anonymous bodies expanded */
};

struct differ {
	struct side old, new;
	struct bc_diff *diff;
	struct bc_text scratch;
	int err;
};

/* --- building the result ------------------------------------------- */

static char *dup_or_flag(struct differ *d, const char *s)
{
	char *copy = strdup(s ? s : "");

	if (!copy)
		d->err = -ENOMEM;
	return copy;
}

/* Appends an entry; returns its index or -1 (d->err set). */
static int64_t add_entry(struct differ *d, enum bc_diff_op op,
			 const char *kind, const char *path)
{
	struct bc_diff *diff = d->diff;
	struct bc_diff_entry *e;

	if (d->err)
		return -1;
	if (diff->nr_entries == diff->cap_entries) {
		uint32_t cap = diff->cap_entries ? diff->cap_entries * 2 : 64;
		void *grown = realloc(diff->entries, cap * sizeof(*e));

		if (!grown) {
			d->err = -ENOMEM;
			return -1;
		}
		diff->entries = grown;
		diff->cap_entries = cap;
	}
	e = &diff->entries[diff->nr_entries];
	memset(e, 0, sizeof(*e));
	e->op = op;
	e->kind = kind;
	e->path = dup_or_flag(d, path);
	return diff->nr_entries++;
}

static struct bc_diff_item *add_item(struct differ *d, int64_t entry,
				     enum bc_diff_op op, const char *what,
				     const char *name)
{
	struct bc_diff_entry *e;
	struct bc_diff_item *it;

	if (d->err || entry < 0)
		return NULL;
	e = &d->diff->entries[entry];
	if (e->nr_items == e->cap_items) {
		uint32_t cap = e->cap_items ? e->cap_items * 2 : 8;
		void *grown = realloc(e->items, cap * sizeof(*it));

		if (!grown) {
			d->err = -ENOMEM;
			return NULL;
		}
		e->items = grown;
		e->cap_items = cap;
	}
	it = &e->items[e->nr_items++];
	memset(it, 0, sizeof(*it));
	it->op = op;
	it->what = what;
	it->name = dup_or_flag(d, name);
	return it;
}

/* Adds a field; old_val/new_val NULL where absent. */
static void add_field(struct differ *d, struct bc_diff_item *it,
		      const char *what, const char *old_val,
		      const char *new_val)
{
	struct bc_diff_field *f;

	if (!it || it->nr_fields == BC_DIFF_MAX_FIELDS)
		return;
	f = &it->fields[it->nr_fields++];
	f->what = what;
	f->old_val = old_val ? dup_or_flag(d, old_val) : NULL;
	f->new_val = new_val ? dup_or_flag(d, new_val) : NULL;
}

/* An item whose only field changed from old_val to new_val. */
static void add_change(struct differ *d, int64_t entry, const char *what,
		       const char *name, const char *old_val,
		       const char *new_val)
{
	add_field(d, add_item(d, entry, BC_DIFF_CHANGED, what, name), what,
		  old_val, new_val);
}

static void add_change_u(struct differ *d, int64_t entry, const char *what,
			 uint64_t old_val, uint64_t new_val)
{
	char o[32], n[32];

	snprintf(o, sizeof(o), "%" PRIu64, old_val);
	snprintf(n, sizeof(n), "%" PRIu64, new_val);
	add_change(d, entry, what, "", o, n);
}

/* --- text of one side ----------------------------------------------- */

/*
 * Renders into d->scratch from offset 0 and returns the text, valid until
 * the next render. Two renders that must both live use render_dup().
 */
static void scratch_reset(struct differ *d)
{
	bc_text_truncate(&d->scratch, 0);
	bc_text_reserve(&d->scratch, 0);
	if (d->scratch.buf)
		d->scratch.buf[0] = '\0';
}

static char *type_text(struct differ *d, struct side *s, uint32_t id,
		       const char *name)
{
	scratch_reset(d);
	bc_cdecl_type(&s->cdecl, id, name, &d->scratch);
	if (d->scratch.err)
		d->err = d->scratch.err;
	return dup_or_flag(d, bc_text_str(&d->scratch));
}

static void format_offset(char *buf, size_t size, uint32_t bits)
{
	if (bits % 8)
		snprintf(buf, size, "%u:%u", bits / 8, bits % 8);
	else
		snprintf(buf, size, "%u", bits / 8);
}

/* --- decl tags -------------------------------------------------------- */

static int cmp_tag(const void *pa, const void *pb)
{
	const struct decl_tag *a = pa, *b = pb;
	int c;

	if (a->target != b->target)
		return a->target < b->target ? -1 : 1;
	if (a->component != b->component)
		return a->component < b->component ? -1 : 1;
	c = strcmp(a->name, b->name);
	return c;
}

static int collect_tags(struct side *s)
{
	const struct bc_btf *btf = s->btf;
	uint32_t i;

	s->tags = calloc(btf->nr_types + 1, sizeof(*s->tags));
	if (!s->tags)
		return -ENOMEM;
	for (i = 0; i < btf->nr_types; i++) {
		const struct btf_type *t = bc_btf_local(btf, i);

		if (bc_type_kind(t) != BTF_KIND_DECL_TAG)
			continue;
		s->tags[s->nr_tags++] = (struct decl_tag){
			.target = t->type,
			.component = ((const struct btf_decl_tag *)(t + 1))->component_idx,
			.name = bc_btf_str(btf, t->name_off),
		};
	}
	qsort(s->tags, s->nr_tags, sizeof(*s->tags), cmp_tag);
	return 0;
}

/* The tags of id: *first and the count. */
static uint32_t tags_of(const struct side *s, uint32_t id, uint32_t *first)
{
	uint32_t lo = 0, hi = s->nr_tags, n = 0;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (s->tags[mid].target < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = lo;
	while (lo + n < s->nr_tags && s->tags[lo + n].target == id)
		n++;
	return n;
}

/* "bpf_kfunc", or "user on param 2" / "on member 3". */
static void tag_text(const struct decl_tag *tag, const struct btf_type *target,
		     char *buf, size_t size)
{
	const char *where = bc_type_kind(target) == BTF_KIND_FUNC ? "param" : "member";

	if (tag->component < 0)
		snprintf(buf, size, "%s", tag->name);
	else
		snprintf(buf, size, "%s on %s %d", tag->name, where,
			 tag->component);
}

/* --- entities and fingerprints --------------------------------------- */

static const char *int_encoding_word(uint32_t enc)
{
	if (enc & BTF_INT_BOOL)
		return "bool";
	if (enc & BTF_INT_CHAR)
		return enc & BTF_INT_SIGNED ? "signed char" : "char";
	return enc & BTF_INT_SIGNED ? "signed" : "unsigned";
}

static const char *linkage_word(uint32_t kind, uint32_t linkage)
{
	if (kind == BTF_KIND_FUNC)
		return linkage == BTF_FUNC_STATIC ? "static" :
		       linkage == BTF_FUNC_GLOBAL ? "global" :
		       linkage == BTF_FUNC_EXTERN ? "extern" : "unknown";
	return linkage == BTF_VAR_STATIC ? "static" :
	       linkage == BTF_VAR_GLOBAL_ALLOCATED ? "global" :
	       linkage == BTF_VAR_GLOBAL_EXTERN ? "extern" : "unknown";
}

/* The complete text of an entity, into out: what its fingerprint hashes. */
static void entity_text(struct side *s, const struct entity *e,
			struct bc_text *out)
{
	const struct btf_type *t = bc_btf_type(s->btf, e->id);
	uint32_t kind = bc_type_kind(t), first, n, i;
	const char *name = bc_btf_str(s->btf, t->name_off);

	switch (kind) {
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		bc_cdecl_body(&s->full, t, out);
		break;
	case BTF_KIND_FWD:
		bc_text_puts(out, "fwd");
		break;
	case BTF_KIND_TYPEDEF:
		bc_cdecl_type(&s->full, t->type, "", out);
		break;
	case BTF_KIND_INT:
		bc_text_printf(out, "%u %u", t->size, *(const uint32_t *)(t + 1));
		break;
	case BTF_KIND_FLOAT:
		bc_text_printf(out, "%u", t->size);
		break;
	case BTF_KIND_FUNC:
		bc_text_printf(out, "%s ", linkage_word(kind, bc_type_vlen(t)));
		bc_cdecl_func(&s->full, t->type, name, out);
		break;
	case BTF_KIND_VAR:
		bc_text_printf(out, "%s ", linkage_word(kind,
				((const struct btf_var *)(t + 1))->linkage));
		bc_cdecl_type(&s->full, t->type, name, out);
		break;
	case BTF_KIND_DATASEC:
		bc_text_printf(out, "%u", t->size);
		break;
	}
	n = tags_of(s, e->id, &first);
	for (i = 0; i < n; i++)
		bc_text_printf(out, " tag(%s,%d)", s->tags[first + i].name,
			       s->tags[first + i].component);
}

static uint64_t hash_text(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a */
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static int cmp_entity(const void *pa, const void *pb)
{
	const struct entity *a = pa, *b = pb;
	int c;

	if (a->cls != b->cls)
		return a->cls < b->cls ? -1 : 1;
	c = strcmp(a->name, b->name);
	if (c)
		return c;
	c = strcmp(a->keyword, b->keyword);
	if (c)
		return c;
	if (a->is_fwd != b->is_fwd)
		return a->is_fwd ? 1 : -1;
	if (a->hash != b->hash)
		return a->hash < b->hash ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

static bool same_key(const struct entity *a, const struct entity *b)
{
	return a->cls == b->cls && !strcmp(a->name, b->name) &&
	       !strcmp(a->keyword, b->keyword);
}

/* Decides whether local type i is an entity, and fills e when it is. */
static bool make_entity(const struct side *s, const bool *referenced,
			uint32_t i, struct entity *e)
{
	const struct bc_btf *btf = s->btf;
	const struct btf_type *t = bc_btf_local(btf, i);
	uint32_t id = btf->start_id + i, kind = bc_type_kind(t);
	const char *name = bc_btf_str(btf, t->name_off);

	memset(e, 0, sizeof(*e));
	e->id = id;
	e->name = name;
	e->cls = CLASS_TYPE;
	switch (kind) {
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		if (!*name)
			return false;
		e->keyword = bc_tag_keyword(t);
		return true;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		if (!*name && referenced[id])
			return false;
		e->keyword = bc_tag_keyword(t);
		return true;
	case BTF_KIND_FWD:
		e->keyword = bc_tag_keyword(t);
		e->is_fwd = true;
		return true;
	case BTF_KIND_TYPEDEF:
		/*
		 * a type of a kind btfcanon does not know has no C text to
		 * compare: only the references to it are (by its kind)
		 */
		if (bc_is_unknown_placeholder(t, name))
			return false;
		e->keyword = "typedef";
		return true;
	case BTF_KIND_INT:
		e->keyword = "int";
		return true;
	case BTF_KIND_FLOAT:
		e->keyword = "float";
		return true;
	case BTF_KIND_FUNC:
		e->keyword = "func";
		e->cls = CLASS_FUNC;
		return true;
	case BTF_KIND_VAR:
		e->keyword = "var";
		e->cls = CLASS_VAR;
		return true;
	case BTF_KIND_DATASEC:
		e->keyword = "datasec";
		e->cls = CLASS_DATASEC;
		return true;
	default:
		return false;
	}
}

static int collect_entities(struct differ *d, struct side *s)
{
	const struct bc_btf *btf = s->btf;
	uint32_t i, j;
	bool *referenced;
	int err;

	err = collect_tags(s);
	if (err)
		return err;
	referenced = bc_referenced_types(btf, true);
	s->ents = calloc(btf->nr_types + 1, sizeof(*s->ents));
	if (!referenced || !s->ents) {
		free(referenced);
		return -ENOMEM;
	}
	for (i = 0; i < btf->nr_types; i++) {
		struct entity *e = &s->ents[s->nr_ents];

		if (!make_entity(s, referenced, i, e))
			continue;
		scratch_reset(d);
		entity_text(s, e, &d->scratch);
		if (d->scratch.err) {
			free(referenced);
			return d->scratch.err;
		}
		e->hash = hash_text(bc_text_str(&d->scratch), d->scratch.len);
		s->nr_ents++;
	}
	free(referenced);
	qsort(s->ents, s->nr_ents, sizeof(*s->ents), cmp_entity);
	/*
	 * Equal key and text: the same C type twice (a duplicate dedup left);
	 * count it once. A forward declaration means nothing next to a
	 * definition.
	 */
	for (i = 1; i < s->nr_ents; i++)
		s->ents[i].skip = same_key(&s->ents[i - 1], &s->ents[i]) &&
				  s->ents[i - 1].hash == s->ents[i].hash;
	for (i = 0; i < s->nr_ents; i = j) {
		bool defined = false;

		for (j = i; j < s->nr_ents && same_key(&s->ents[i], &s->ents[j]); j++)
			defined |= !s->ents[j].is_fwd;
		if (defined)
			for (j = i; j < s->nr_ents && same_key(&s->ents[i], &s->ents[j]); j++)
				s->ents[j].skip |= s->ents[j].is_fwd;
	}
	return 0;
}

/* --- entry names ------------------------------------------------------ */

/* "struct foo", "enum <anon FOO_A>", "func bar". */
static void entity_path(const struct side *s, const struct entity *e,
			char *buf, size_t size)
{
	if (*e->name)
		snprintf(buf, size, "%s %s", e->keyword, e->name);
	else
		snprintf(buf, size, "%s <anon %s>", e->keyword,
			 bc_first_entry_name(s->btf, bc_btf_type(s->btf, e->id)));
}

static void entity_summary(struct differ *d, struct side *s,
			   const struct entity *e, int64_t entry)
{
	const struct btf_type *t = bc_btf_type(s->btf, e->id);
	uint32_t kind = bc_type_kind(t), vlen = bc_type_vlen(t);
	struct bc_text *out = &d->scratch;

	scratch_reset(d);
	switch (kind) {
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		bc_text_printf(out, "size %u, %u member%s", t->size, vlen,
			       vlen == 1 ? "" : "s");
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		bc_text_printf(out, "size %u, %u enumerator%s", t->size, vlen,
			       vlen == 1 ? "" : "s");
		break;
	case BTF_KIND_FWD:
		bc_text_puts(out, "declaration only");
		break;
	case BTF_KIND_TYPEDEF:
		bc_cdecl_type(&s->cdecl, t->type, e->name, out);
		break;
	case BTF_KIND_INT:
	case BTF_KIND_FLOAT:
		bc_text_printf(out, "size %u", t->size);
		break;
	case BTF_KIND_FUNC:
		if (vlen == BTF_FUNC_STATIC)
			bc_text_puts(out, "static ");
		bc_cdecl_func(&s->cdecl, t->type, e->name, out);
		break;
	case BTF_KIND_VAR:
		if (((const struct btf_var *)(t + 1))->linkage == BTF_VAR_STATIC)
			bc_text_puts(out, "static ");
		bc_cdecl_type(&s->cdecl, t->type, e->name, out);
		break;
	case BTF_KIND_DATASEC:
		bc_text_printf(out, "size %u, %u variable%s", t->size, vlen,
			       vlen == 1 ? "" : "s");
		break;
	}
	if (d->scratch.err)
		d->err = d->scratch.err;
	if (!d->err && entry >= 0)
		d->diff->entries[entry].summary = dup_or_flag(d, bc_text_str(out));
}

static void report_lone(struct differ *d, struct side *s,
			const struct entity *e, enum bc_diff_op op)
{
	char path[512];
	int64_t entry;

	entity_path(s, e, path, sizeof(path));
	entry = add_entry(d, op, e->keyword, path);
	entity_summary(d, s, e, entry);
}

/* --- comparing a changed pair ---------------------------------------- */

static void compare_tags(struct differ *d, int64_t entry, uint32_t old_id,
			 uint32_t new_id)
{
	const struct btf_type *ot = bc_btf_type(d->old.btf, old_id);
	const struct btf_type *nt = bc_btf_type(d->new.btf, new_id);
	uint32_t of, nf, on = tags_of(&d->old, old_id, &of);
	uint32_t nn = tags_of(&d->new, new_id, &nf), i = 0, j = 0;
	char a[256], b[256];

	while (i < on || j < nn) {
		int c;

		if (i < on)
			tag_text(&d->old.tags[of + i], ot, a, sizeof(a));
		if (j < nn)
			tag_text(&d->new.tags[nf + j], nt, b, sizeof(b));
		c = i == on ? 1 : j == nn ? -1 : strcmp(a, b);
		if (c < 0) {
			add_item(d, entry, BC_DIFF_REMOVED, "tag", a);
			i++;
		} else if (c > 0) {
			add_item(d, entry, BC_DIFF_ADDED, "tag", b);
			j++;
		} else {
			i++;
			j++;
		}
	}
}

static bool is_enum_kind(uint32_t kind)
{
	return kind == BTF_KIND_ENUM || kind == BTF_KIND_ENUM64;
}

static uint64_t enum_value(const struct btf_type *t, const uint32_t *e)
{
	if (bc_type_kind(t) == BTF_KIND_ENUM64)
		return (uint64_t)e[2] << 32 | e[1];
	if (bc_info_kflag(t->info))
		return (uint64_t)(int64_t)(int32_t)e[1];
	return e[1];
}

static void format_enum_value(const struct btf_type *t, uint64_t v,
			      char *buf, size_t size)
{
	if (bc_info_kflag(t->info))
		snprintf(buf, size, "%" PRId64, (int64_t)v);
	else
		snprintf(buf, size, "%" PRIu64, v);
}

static uint32_t entry_words(const struct btf_type *t)
{
	return bc_kinds[bc_type_kind(t)].entry_words;
}

static const uint32_t *entry_at(const struct btf_type *t, uint32_t i)
{
	return (const uint32_t *)(t + 1) + i * entry_words(t);
}

struct name_sort_ctx {
	const struct bc_btf *btf;
	const struct btf_type *t;
};

static int cmp_entry_name(const void *pa, const void *pb, void *arg)
{
	const struct name_sort_ctx *ctx = arg;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	int c = strcmp(bc_btf_str(ctx->btf, entry_at(ctx->t, a)[0]),
		       bc_btf_str(ctx->btf, entry_at(ctx->t, b)[0]));

	return c ? c : (a > b) - (a < b);
}

/*
 * Pairs the named entries (members, enumerators) of ot and nt by name:
 * match[i] = index in nt of old entry i, or UINT32_MAX. Anonymous
 * entries stay unmatched. Returns 0 or -ENOMEM.
 */
static int match_by_name(struct differ *d, const struct btf_type *ot,
			 const struct btf_type *nt, uint32_t *match)
{
	uint32_t on = bc_type_vlen(ot), nn = bc_type_vlen(nt), i, j;
	struct name_sort_ctx octx = { d->old.btf, ot }, nctx = { d->new.btf, nt };
	uint32_t *oi = malloc((on + 1) * sizeof(*oi));
	uint32_t *ni = malloc((nn + 1) * sizeof(*ni));

	if (!oi || !ni) {
		free(oi);
		free(ni);
		return -ENOMEM;
	}
	for (i = 0; i < on; i++) {
		oi[i] = i;
		match[i] = UINT32_MAX;
	}
	for (j = 0; j < nn; j++)
		ni[j] = j;
	qsort_r(oi, on, sizeof(*oi), cmp_entry_name, &octx);
	qsort_r(ni, nn, sizeof(*ni), cmp_entry_name, &nctx);
	for (i = 0, j = 0; i < on && j < nn;) {
		const char *a = bc_btf_str(d->old.btf, entry_at(ot, oi[i])[0]);
		const char *b = bc_btf_str(d->new.btf, entry_at(nt, ni[j])[0]);
		int c = strcmp(a, b);

		if (c < 0 || !*a) {
			i++;
		} else if (c > 0 || !*b) {
			j++;
		} else {
			match[oi[i++]] = ni[j++];
		}
	}
	free(oi);
	free(ni);
	return 0;
}

static void compare_enum(struct differ *d, int64_t entry,
			 const struct btf_type *ot, const struct btf_type *nt)
{
	uint32_t on = bc_type_vlen(ot), nn = bc_type_vlen(nt), i, j;
	uint32_t *match = malloc((on + 1) * sizeof(*match));
	bool *matched = calloc(nn + 1, sizeof(*matched));
	char a[32], b[32];

	if (!match || !matched || match_by_name(d, ot, nt, match)) {
		d->err = -ENOMEM;
		goto out;
	}
	if (ot->size != nt->size)
		add_change_u(d, entry, "size", ot->size, nt->size);
	if (bc_info_kflag(ot->info) != bc_info_kflag(nt->info))
		add_change(d, entry, "signedness", "",
			   bc_info_kflag(ot->info) ? "signed" : "unsigned",
			   bc_info_kflag(nt->info) ? "signed" : "unsigned");
	for (i = 0; i < on; i++) {
		const uint32_t *oe = entry_at(ot, i);
		uint64_t ov = enum_value(ot, oe);

		format_enum_value(ot, ov, a, sizeof(a));
		if (match[i] == UINT32_MAX) {
			add_field(d, add_item(d, entry, BC_DIFF_REMOVED, "enumerator",
					      bc_btf_str(d->old.btf, oe[0])),
				  "value", a, NULL);
			continue;
		}
		matched[match[i]] = true;
		if (ov != enum_value(nt, entry_at(nt, match[i]))) {
			format_enum_value(nt, enum_value(nt, entry_at(nt, match[i])),
					  b, sizeof(b));
			add_field(d, add_item(d, entry, BC_DIFF_CHANGED, "enumerator",
					      bc_btf_str(d->old.btf, oe[0])),
				  "value", a, b);
		}
	}
	for (j = 0; j < nn; j++) {
		const uint32_t *ne = entry_at(nt, j);

		if (matched[j])
			continue;
		format_enum_value(nt, enum_value(nt, ne), b, sizeof(b));
		add_field(d, add_item(d, entry, BC_DIFF_ADDED, "enumerator",
				      bc_btf_str(d->new.btf, ne[0])),
			  "value", NULL, b);
	}
out:
	free(match);
	free(matched);
}

static void compare_composite(struct differ *d, int64_t entry, const char *path,
			      const struct btf_type *ot, const struct btf_type *nt);

/*
 * The anonymous struct, union or enum at the end of a member's type chain
 * (through pointers, arrays and qualifiers), or NULL.
 */
static const struct btf_type *anon_target(const struct bc_btf *btf, uint32_t id)
{
	const struct btf_type *t;

	for (;;) {
		t = bc_skip_mods(btf, &id, false);
		if (!t)
			return NULL;
		switch (bc_type_kind(t)) {
		case BTF_KIND_PTR:
			id = t->type;
			break;
		case BTF_KIND_ARRAY:
			id = ((const struct btf_array *)(t + 1))->type;
			break;
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION:
		case BTF_KIND_ENUM:
		case BTF_KIND_ENUM64:
			return t->name_off ? NULL : t;
		default:
			return NULL;
		}
	}
}

/* Compares two anonymous types found at the same place, as entry path. */
static void compare_nested(struct differ *d, const char *path,
			   const struct btf_type *ot, const struct btf_type *nt)
{
	int64_t entry;

	if (bc_type_kind(ot) != bc_type_kind(nt))
		return;		/* the member's type change says it */
	entry = add_entry(d, BC_DIFF_CHANGED, bc_tag_keyword(nt), path);
	if (entry < 0)
		return;
	if (is_enum_kind(bc_type_kind(nt)))
		compare_enum(d, entry, ot, nt);
	else
		compare_composite(d, entry, path, ot, nt);
}

struct member_view {
	const char *name;
	uint32_t type;
	uint32_t bits;
	uint32_t bitfield;
};

static struct member_view member_at(const struct bc_btf *btf,
				    const struct btf_type *t, uint32_t i)
{
	const struct btf_member *m = (const struct btf_member *)(t + 1) + i;
	bool kflag = bc_info_kflag(t->info);

	return (struct member_view){
		.name = bc_btf_str(btf, m->name_off),
		.type = m->type,
		.bits = kflag ? BTF_MEMBER_BIT_OFFSET(m->offset) : m->offset,
		.bitfield = kflag ? BTF_MEMBER_BITFIELD_SIZE(m->offset) : 0,
	};
}

/* Adds a hash of every name inside anonymous member type id to names. */
static uint32_t inner_names(const struct bc_btf *btf, uint32_t id,
			    uint64_t *names, uint32_t nr, uint32_t cap,
			    uint32_t depth)
{
	const struct btf_type *t = anon_target(btf, id);
	uint32_t i, vlen;

	if (!t || depth > 8)
		return nr;
	vlen = bc_type_vlen(t);
	for (i = 0; i < vlen && nr < cap; i++) {
		const uint32_t *e = entry_at(t, i);
		const char *name = bc_btf_str(btf, e[0]);

		if (*name)
			names[nr++] = hash_text(name, strlen(name));
		else if (!is_enum_kind(bc_type_kind(t)))
			nr = inner_names(btf, e[1], names, nr, cap, depth + 1);
	}
	return nr;
}

#define MAX_INNER_NAMES 64

/* How many names two anonymous members share. */
static uint32_t shared_names(struct differ *d, uint32_t old_type,
			     uint32_t new_type)
{
	uint64_t a[MAX_INNER_NAMES], b[MAX_INNER_NAMES];
	uint32_t na = inner_names(d->old.btf, old_type, a, 0, MAX_INNER_NAMES, 0);
	uint32_t nb = inner_names(d->new.btf, new_type, b, 0, MAX_INNER_NAMES, 0);
	uint32_t i, j, shared = 0;

	for (i = 0; i < na; i++)
		for (j = 0; j < nb; j++)
			if (a[i] == b[j]) {
				shared++;
				break;
			}
	return shared;
}

/*
 * Pairs the anonymous members left unmatched: each old one with the new
 * one sharing the most inner names, then the rest in order of position.
 */
static void match_anonymous(struct differ *d, const struct btf_type *ot,
			    const struct btf_type *nt, uint32_t *match,
			    bool *matched)
{
	uint32_t on = bc_type_vlen(ot), nn = bc_type_vlen(nt), i, j;

	for (i = 0; i < on; i++) {
		struct member_view om = member_at(d->old.btf, ot, i);
		uint32_t best = UINT32_MAX, best_score = 0;

		if (*om.name || match[i] != UINT32_MAX)
			continue;
		for (j = 0; j < nn; j++) {
			struct member_view nm = member_at(d->new.btf, nt, j);
			uint32_t score;

			if (*nm.name || matched[j])
				continue;
			score = shared_names(d, om.type, nm.type);
			if (score > best_score) {
				best = j;
				best_score = score;
			}
		}
		if (best != UINT32_MAX) {
			match[i] = best;
			matched[best] = true;
		}
	}
	for (i = 0, j = 0; i < on; i++) {
		if (*member_at(d->old.btf, ot, i).name || match[i] != UINT32_MAX)
			continue;
		while (j < nn && (*member_at(d->new.btf, nt, j).name || matched[j]))
			j++;
		if (j == nn)
			break;
		match[i] = j;
		matched[j++] = true;
	}
}

/* "<anon union at offset 40>" for an unnamed member, else its name. */
static void member_label(const struct bc_btf *btf, const struct member_view *m,
			 char *buf, size_t size)
{
	const struct btf_type *t = anon_target(btf, m->type);
	char off[32];

	if (*m->name) {
		snprintf(buf, size, "%s", m->name);
		return;
	}
	format_offset(off, sizeof(off), m->bits);
	snprintf(buf, size, "<anon %s at offset %s>",
		 t ? bc_tag_keyword(t) : "member", off);
}

static void member_fields(struct differ *d, struct bc_diff_item *it,
			  struct side *s, const struct member_view *m, bool old)
{
	char off[32], bits[16];
	char *type = type_text(d, s, m->type, "");

	format_offset(off, sizeof(off), m->bits);
	add_field(d, it, "type", old ? type : NULL, old ? NULL : type);
	add_field(d, it, "offset", old ? off : NULL, old ? NULL : off);
	if (m->bitfield) {
		snprintf(bits, sizeof(bits), "%u", m->bitfield);
		add_field(d, it, "bits", old ? bits : NULL, old ? NULL : bits);
	}
	free(type);
}

static void compare_member(struct differ *d, int64_t entry, const char *path,
			   const struct member_view *om,
			   const struct member_view *nm)
{
	const struct btf_type *oa = anon_target(d->old.btf, om->type);
	const struct btf_type *na = anon_target(d->new.btf, nm->type);
	char label[256], nested[1024], a[32], b[32];
	char *ot = type_text(d, &d->old, om->type, "");
	char *nt = type_text(d, &d->new, nm->type, "");
	struct bc_diff_item *it = NULL;

	member_label(d->new.btf, nm, label, sizeof(label));
	if (ot && nt && strcmp(ot, nt)) {
		it = add_item(d, entry, BC_DIFF_CHANGED, "member", label);
		add_field(d, it, "type", ot, nt);
	}
	if (om->bits != nm->bits) {
		if (!it)
			it = add_item(d, entry, BC_DIFF_CHANGED, "member", label);
		format_offset(a, sizeof(a), om->bits);
		format_offset(b, sizeof(b), nm->bits);
		add_field(d, it, "offset", a, b);
	}
	if (om->bitfield != nm->bitfield) {
		if (!it)
			it = add_item(d, entry, BC_DIFF_CHANGED, "member", label);
		snprintf(a, sizeof(a), "%u", om->bitfield);
		snprintf(b, sizeof(b), "%u", nm->bitfield);
		add_field(d, it, "bits", a, b);
	}
	free(ot);
	free(nt);
	if (oa && na) {
		snprintf(nested, sizeof(nested), "%s::%s", path, label);
		compare_nested(d, nested, oa, na);
	}
}

static void compare_composite(struct differ *d, int64_t entry, const char *path,
			      const struct btf_type *ot, const struct btf_type *nt)
{
	uint32_t on = bc_type_vlen(ot), nn = bc_type_vlen(nt), i, j;
	uint32_t *match = malloc((on + 1) * sizeof(*match));
	bool *matched = calloc(nn + 1, sizeof(*matched));
	char label[256];

	if (!match || !matched || match_by_name(d, ot, nt, match)) {
		d->err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < on; i++)
		if (match[i] != UINT32_MAX)
			matched[match[i]] = true;
	match_anonymous(d, ot, nt, match, matched);
	if (ot->size != nt->size)
		add_change_u(d, entry, "size", ot->size, nt->size);
	for (i = 0; i < on; i++) {
		struct member_view om = member_at(d->old.btf, ot, i);

		if (match[i] != UINT32_MAX)
			continue;
		member_label(d->old.btf, &om, label, sizeof(label));
		member_fields(d, add_item(d, entry, BC_DIFF_REMOVED, "member", label),
			      &d->old, &om, true);
	}
	for (j = 0; j < nn; j++) {
		struct member_view nm = member_at(d->new.btf, nt, j);

		if (matched[j])
			continue;
		member_label(d->new.btf, &nm, label, sizeof(label));
		member_fields(d, add_item(d, entry, BC_DIFF_ADDED, "member", label),
			      &d->new, &nm, false);
	}
	for (i = 0; i < on && !d->err; i++) {
		struct member_view om = member_at(d->old.btf, ot, i), nm;

		if (match[i] == UINT32_MAX)
			continue;
		nm = member_at(d->new.btf, nt, match[i]);
		compare_member(d, entry, path, &om, &nm);
	}
out:
	free(match);
	free(matched);
}

/* Compares a changed typedef, func, var, int, float, datasec or fwd. */
static void compare_simple(struct differ *d, int64_t entry,
			   const struct entity *oe, const struct entity *ne)
{
	const struct btf_type *ot = bc_btf_type(d->old.btf, oe->id);
	const struct btf_type *nt = bc_btf_type(d->new.btf, ne->id);
	uint32_t kind = bc_type_kind(nt);
	char *a = NULL, *b = NULL;

	switch (kind) {
	case BTF_KIND_TYPEDEF:
		a = type_text(d, &d->old, ot->type, "");
		b = type_text(d, &d->new, nt->type, "");
		if (a && b && strcmp(a, b))
			add_change(d, entry, "type", "", a, b);
		else if (anon_target(d->old.btf, ot->type) &&
			 anon_target(d->new.btf, nt->type)) {
			const struct btf_type *oa = anon_target(d->old.btf, ot->type);
			const struct btf_type *na = anon_target(d->new.btf, nt->type);

			if (bc_type_kind(oa) != bc_type_kind(na))
				break;
			if (is_enum_kind(bc_type_kind(na)))
				compare_enum(d, entry, oa, na);
			else
				compare_composite(d, entry, d->diff->entries[entry].path,
						  oa, na);
		}
		break;
	case BTF_KIND_FUNC:
	case BTF_KIND_VAR:
		if (kind == BTF_KIND_FUNC && bc_type_vlen(ot) != bc_type_vlen(nt))
			add_change(d, entry, "linkage", "",
				   linkage_word(kind, bc_type_vlen(ot)),
				   linkage_word(kind, bc_type_vlen(nt)));
		if (kind == BTF_KIND_VAR &&
		    ((const struct btf_var *)(ot + 1))->linkage !=
		    ((const struct btf_var *)(nt + 1))->linkage)
			add_change(d, entry, "linkage", "",
				   linkage_word(kind, ((const struct btf_var *)(ot + 1))->linkage),
				   linkage_word(kind, ((const struct btf_var *)(nt + 1))->linkage));
		scratch_reset(d);
		if (kind == BTF_KIND_FUNC)
			bc_cdecl_func(&d->old.cdecl, ot->type, oe->name, &d->scratch);
		else
			bc_cdecl_type(&d->old.cdecl, ot->type, oe->name, &d->scratch);
		a = dup_or_flag(d, bc_text_str(&d->scratch));
		scratch_reset(d);
		if (kind == BTF_KIND_FUNC)
			bc_cdecl_func(&d->new.cdecl, nt->type, ne->name, &d->scratch);
		else
			bc_cdecl_type(&d->new.cdecl, nt->type, ne->name, &d->scratch);
		b = dup_or_flag(d, bc_text_str(&d->scratch));
		if (a && b && strcmp(a, b))
			add_change(d, entry, kind == BTF_KIND_FUNC ? "prototype" :
				   "type", "", a, b);
		break;
	case BTF_KIND_INT:
		if (ot->size != nt->size)
			add_change_u(d, entry, "size", ot->size, nt->size);
		if (BTF_INT_ENCODING(*(const uint32_t *)(ot + 1)) !=
		    BTF_INT_ENCODING(*(const uint32_t *)(nt + 1)))
			add_change(d, entry, "encoding", "",
				   int_encoding_word(BTF_INT_ENCODING(*(const uint32_t *)(ot + 1))),
				   int_encoding_word(BTF_INT_ENCODING(*(const uint32_t *)(nt + 1))));
		if (BTF_INT_BITS(*(const uint32_t *)(ot + 1)) !=
		    BTF_INT_BITS(*(const uint32_t *)(nt + 1)))
			add_change_u(d, entry, "bits",
				     BTF_INT_BITS(*(const uint32_t *)(ot + 1)),
				     BTF_INT_BITS(*(const uint32_t *)(nt + 1)));
		if (BTF_INT_OFFSET(*(const uint32_t *)(ot + 1)) !=
		    BTF_INT_OFFSET(*(const uint32_t *)(nt + 1)))
			add_change_u(d, entry, "bit offset",
				     BTF_INT_OFFSET(*(const uint32_t *)(ot + 1)),
				     BTF_INT_OFFSET(*(const uint32_t *)(nt + 1)));
		break;
	case BTF_KIND_FLOAT:
	case BTF_KIND_DATASEC:
		if (ot->size != nt->size)
			add_change_u(d, entry, "size", ot->size, nt->size);
		break;
	}
	free(a);
	free(b);
}

/* Compares an old and a new entity of the same key whose texts differ. */
static void compare_pair(struct differ *d, const struct entity *oe,
			 const struct entity *ne)
{
	const struct btf_type *ot = bc_btf_type(d->old.btf, oe->id);
	const struct btf_type *nt = bc_btf_type(d->new.btf, ne->id);
	uint32_t okind = bc_type_kind(ot), nkind = bc_type_kind(nt);
	char path[512];
	int64_t entry;

	entity_path(&d->new, ne, path, sizeof(path));
	entry = add_entry(d, BC_DIFF_CHANGED, ne->keyword, path);
	if (entry < 0)
		return;
	if (oe->is_fwd != ne->is_fwd) {
		add_change(d, entry, "definition", "",
			   oe->is_fwd ? "declaration only" : "defined",
			   ne->is_fwd ? "declaration only" : "defined");
	} else if (is_enum_kind(okind) && is_enum_kind(nkind)) {
		compare_enum(d, entry, ot, nt);
	} else if (okind == nkind &&
		   (okind == BTF_KIND_STRUCT || okind == BTF_KIND_UNION)) {
		compare_composite(d, entry, path, ot, nt);
	} else {
		compare_simple(d, entry, oe, ne);
	}
	compare_tags(d, entry, oe->id, ne->id);
	/*
	 * The fingerprints differ, so something does: if no item caught it,
	 * say so rather than report nothing.
	 */
	if (!d->err && !d->diff->entries[entry].nr_items &&
	    (uint32_t)entry + 1 == d->diff->nr_entries) {
		char *a, *b;

		scratch_reset(d);
		entity_text(&d->old, oe, &d->scratch);
		a = dup_or_flag(d, bc_text_str(&d->scratch));
		scratch_reset(d);
		entity_text(&d->new, ne, &d->scratch);
		b = dup_or_flag(d, bc_text_str(&d->scratch));
		add_change(d, entry, "definition", "", a, b);
		free(a);
		free(b);
	}
}

/* --- matching groups ------------------------------------------------- */

/* Names of the entries (members, enumerators) of t, hashed and sorted. */
static uint32_t entry_name_hashes(const struct bc_btf *btf,
				  const struct btf_type *t, uint64_t **out)
{
	uint32_t i, n = 0, vlen = bc_type_vlen(t), kind = bc_type_kind(t);

	*out = NULL;
	if (kind != BTF_KIND_STRUCT && kind != BTF_KIND_UNION && !is_enum_kind(kind))
		return 0;
	*out = malloc((vlen + 1) * sizeof(**out));
	if (!*out)
		return 0;
	for (i = 0; i < vlen; i++) {
		const char *name = bc_btf_str(btf, entry_at(t, i)[0]);

		if (*name)
			(*out)[n++] = hash_text(name, strlen(name));
	}
	return n;
}

static int cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return (a > b) - (a < b);
}

static uint32_t sorted_overlap(const uint64_t *a, uint32_t na,
			       const uint64_t *b, uint32_t nb)
{
	uint32_t i = 0, j = 0, n = 0;

	while (i < na && j < nb) {
		if (a[i] < b[j])
			i++;
		else if (a[i] > b[j])
			j++;
		else
			n++, i++, j++;
	}
	return n;
}

/*
 * Pairs the unpaired old and new entities of one key group (several on a
 * side): most entry names in common first; named leftovers in order.
 */
static void pair_by_names(struct differ *d, struct entity *o, uint32_t on,
			  struct entity *n, uint32_t nn)
{
	uint64_t **nh = calloc(nn + 1, sizeof(*nh));
	uint32_t *nc = calloc(nn + 1, sizeof(*nc));
	uint32_t i, j;

	if (!nh || !nc) {
		d->err = -ENOMEM;
		goto out;
	}
	for (j = 0; j < nn; j++) {
		if (n[j].paired || n[j].skip)
			continue;
		nc[j] = entry_name_hashes(d->new.btf, bc_btf_type(d->new.btf, n[j].id),
					  &nh[j]);
		if (nc[j])	/* nh[j] is NULL for no entries */
			qsort(nh[j], nc[j], sizeof(uint64_t), cmp_u64);
	}
	for (i = 0; i < on; i++) {
		uint32_t best = UINT32_MAX, best_score = 0, oc;
		uint64_t *oh;

		if (o[i].paired || o[i].skip)
			continue;
		oc = entry_name_hashes(d->old.btf, bc_btf_type(d->old.btf, o[i].id), &oh);
		if (oc)
			qsort(oh, oc, sizeof(uint64_t), cmp_u64);
		for (j = 0; j < nn; j++) {
			uint32_t score;

			if (n[j].paired || n[j].skip)
				continue;
			score = sorted_overlap(oh, oc, nh[j], nc[j]);
			if (score > best_score) {
				best = j;
				best_score = score;
			}
		}
		free(oh);
		if (best == UINT32_MAX)
			continue;
		o[i].paired = n[best].paired = true;
		compare_pair(d, &o[i], &n[best]);
	}
	/* named duplicates with nothing in common: in order */
	for (i = 0, j = 0; i < on && *o[0].name; i++) {
		if (o[i].paired || o[i].skip)
			continue;
		while (j < nn && (n[j].paired || n[j].skip))
			j++;
		if (j == nn)
			break;
		o[i].paired = n[j].paired = true;
		compare_pair(d, &o[i], &n[j]);
	}
out:
	for (j = 0; nh && j < nn; j++)
		free(nh[j]);
	free(nh);
	free(nc);
}

static uint32_t count_open(const struct entity *e, uint32_t n,
			   struct entity **last)
{
	uint32_t i, open = 0;

	for (i = 0; i < n; i++)
		if (!e[i].paired && !e[i].skip) {
			open++;
			*last = (struct entity *)&e[i];
		}
	return open;
}

static void diff_group(struct differ *d, struct entity *o, uint32_t on,
		       struct entity *n, uint32_t nn)
{
	struct entity *lo = NULL, *ln = NULL;
	uint32_t i, j, oo, no;

	/* equal fingerprints: unchanged (both runs are sorted by hash) */
	for (i = 0, j = 0; i < on && j < nn;) {
		if (o[i].skip || o[i].hash < n[j].hash) {
			i++;
		} else if (n[j].skip || o[i].hash > n[j].hash) {
			j++;
		} else {
			o[i++].paired = true;
			n[j++].paired = true;
		}
	}
	oo = count_open(o, on, &lo);
	no = count_open(n, nn, &ln);
	if (oo == 1 && no == 1) {
		lo->paired = ln->paired = true;
		compare_pair(d, lo, ln);
	} else if (oo && no) {
		pair_by_names(d, o, on, n, nn);
	}
	for (i = 0; i < on; i++)
		if (!o[i].paired && !o[i].skip)
			report_lone(d, &d->old, &o[i], BC_DIFF_REMOVED);
	for (j = 0; j < nn; j++)
		if (!n[j].paired && !n[j].skip)
			report_lone(d, &d->new, &n[j], BC_DIFF_ADDED);
}

/* Drops changed entries that ended up with no items (their nested ones
 * carry the news). */
static void drop_empty_entries(struct bc_diff *diff)
{
	uint32_t i, n = 0;

	for (i = 0; i < diff->nr_entries; i++) {
		struct bc_diff_entry *e = &diff->entries[i];

		if (e->op == BC_DIFF_CHANGED && !e->nr_items) {
			free(e->path);
			free(e->summary);
			free(e->items);
			continue;
		}
		diff->entries[n++] = *e;
	}
	diff->nr_entries = n;
}

static void side_init(struct side *s, const struct bc_btf *btf)
{
	memset(s, 0, sizeof(*s));
	s->btf = btf;
	s->cdecl.btf = btf;
	s->full.btf = btf;
	s->full.expand = true;
}

static void side_deinit(struct side *s)
{
	free(s->ents);
	free(s->tags);
}

int bc_diff_run(const struct bc_btf *old_btf, const struct bc_btf *new_btf,
		struct bc_diff *diff, const struct bc_log *log)
{
	struct differ d = { .diff = diff };
	uint32_t i = 0, j = 0;
	int err;

	memset(diff, 0, sizeof(*diff));
	side_init(&d.old, old_btf);
	side_init(&d.new, new_btf);
	bc_text_init(&d.scratch);
	err = collect_entities(&d, &d.old);
	if (!err)
		err = collect_entities(&d, &d.new);
	while (!err && !d.err && (i < d.old.nr_ents || j < d.new.nr_ents)) {
		struct entity *o = &d.old.ents[i], *n = &d.new.ents[j];
		uint32_t oi = i, nj = j;
		int c;

		if (i == d.old.nr_ents)
			c = 1;
		else if (j == d.new.nr_ents)
			c = -1;
		else if (same_key(o, n))
			c = 0;
		else
			c = cmp_entity(o, n);
		if (c <= 0)
			while (i < d.old.nr_ents && same_key(o, &d.old.ents[i]))
				i++;
		if (c >= 0)
			while (j < d.new.nr_ents && same_key(n, &d.new.ents[j]))
				j++;
		diff_group(&d, o, i - oi, n, j - nj);
	}
	if (!err)
		err = d.err;
	side_deinit(&d.old);
	side_deinit(&d.new);
	bc_text_deinit(&d.scratch);
	if (err) {
		bc_diff_deinit(diff);
		return bc_log_error(log, err, "%s, %s: cannot compare: %s",
				    old_btf->path, new_btf->path, strerror(-err));
	}
	drop_empty_entries(diff);
	return 0;
}

void bc_diff_deinit(struct bc_diff *diff)
{
	uint32_t i, j, k;

	for (i = 0; i < diff->nr_entries; i++) {
		struct bc_diff_entry *e = &diff->entries[i];

		for (j = 0; j < e->nr_items; j++) {
			free(e->items[j].name);
			for (k = 0; k < e->items[j].nr_fields; k++) {
				free(e->items[j].fields[k].old_val);
				free(e->items[j].fields[k].new_val);
			}
		}
		free(e->items);
		free(e->path);
		free(e->summary);
	}
	free(diff->entries);
	memset(diff, 0, sizeof(*diff));
}
