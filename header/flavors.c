// SPDX-License-Identifier: GPL-2.0-only
/*
 * The flavors of one architecture's synthetic BTF (pass 3 of header.c's
 * list): each variant hsynth.c recorded becomes `struct NAME___TAG { DECL; }`
 * or `enum NAME___TAG { ENUMERATOR___NAME = VALUE }`.
 *
 * Problem: a program names a flavor in its source, so a flavor's name
 * must not change when kernels are added or removed. Invariant: TAG is a
 * function of the variant's declaration alone (hdr_add_flavors(),
 * name_variants(); DESIGN.md, "flavor"), and every declaration a member
 * has in the set gets a flavor (current_variants()).
 * Cost: one sort of the variants; a flavor is one small type.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>
#include "flavors.h"
#include "hsynth.h"
#include "smap.h"


static uint32_t fnv32(const char *s)
{
	uint64_t h = hdr_fnv64(s, strlen(s));

	return (uint32_t)(h ^ (h >> 32));
}

/*
 * Cuts runs of three or more underscores in s to two (libbpf takes the
 * last "___" between two other characters as the flavor separator: the
 * one of NAME___TAG must be the only one).
 */
static void cut_underscores(char *s)
{
	size_t i, o = 0, run = 0;

	for (i = 0; s[i]; i++) {
		run = s[i] == '_' ? run + 1 : 0;
		if (run < 3)
			s[o++] = s[i];
	}
	s[o] = 0;
}

/*
 * The name part of a TAG: member's name without leading or trailing
 * underscores, runs of three or more inside cut to one, "x" when nothing
 * is left.
 */
static char *base_tag(const char *member)
{
	size_t len = strlen(member), i, o = 0;
	char *tag = malloc(len + 2);

	if (!tag)
		return NULL;
	while (*member == '_')
		member++, len--;
	while (len && member[len - 1] == '_')
		len--;
	for (i = 0; i < len; i++) {
		size_t run = 0;

		while (i + run < len && member[i + run] == '_')
			run++;
		if (run >= 3) {
			tag[o++] = '_';
			i += run - 1;
			continue;
		}
		tag[o++] = member[i];
	}
	if (!o)
		tag[o++] = 'x';
	tag[o] = 0;
	return tag;
}

#define SPELLED_TAG_MAX 48	/* longer: the hashed form */

/*
 * The type part of a member's TAG, spelled from its declaration decl (a
 * cdecl.h spelling, ":BITS" after a bitfield) with member's name taken
 * out: the type's words, "p" for each '*', "aN" for "[N]" ("a" for
 * "[]"), "bN" for ":N", joined by '_': "volatile long int state" gives
 * "volatile_long_int", "const char *const argv[4]" gives
 * "const_char_p_const_a4", "u8 flag:1" gives "u8_b1". NULL: not
 * spelled (a function pointer or an anonymous type, whose words do not
 * tell it apart) or no memory (*err).
 */
static char *spell_type(const char *decl, const char *member, int *err)
{
	size_t len = strlen(decl), mlen = strlen(member), i = 0, name_at = len;
	struct bc_text out;
	char *res;

	if (strpbrk(decl, "(){}"))
		return NULL;
	/* the declarator's name: the last identifier that is member */
	for (i = 0; i < len; ) {
		if (bc_is_ident_start(decl[i]) && (!i || !bc_is_ident_char(decl[i - 1]))) {
			size_t n = 1;

			while (bc_is_ident_char(decl[i + n]))
				n++;
			if (n == mlen && !strncmp(decl + i, member, n))
				name_at = i;
			i += n;
			continue;
		}
		i++;
	}
	if (name_at == len)
		return NULL;
	bc_text_init(&out);
	for (i = 0; i < len; ) {
		const char *word = NULL, *pre = "";
		size_t n = 0;

		if (i == name_at) {
			i += mlen;
			continue;
		}
		if (bc_is_ident_char(decl[i])) {
			word = decl + i;
			while (bc_is_ident_char(decl[i + n]))
				n++;
			i += n;
		} else if (decl[i] == '*') {
			word = "p", n = 1, i++;
		} else if (decl[i] == '[' || decl[i] == ':') {
			pre = decl[i] == '[' ? "a" : "b";
			word = decl + ++i;
			while (isdigit((unsigned char)decl[i + n]))
				n++;
			i += n;
		} else {
			i++;	/* blanks and ']' */
			continue;
		}
		bc_text_printf(&out, "%s%s%.*s", out.len ? "_" : "",
			       pre, (int)n, word);
	}
	if (out.err) {
		*err = out.err;
		bc_text_deinit(&out);
		return NULL;
	}
	if (!out.len) {		/* a name alone: nothing to spell */
		bc_text_deinit(&out);
		return NULL;
	}
	res = bc_text_take(&out);
	if (!res)
		*err = -ENOMEM;
	return res;
}

/*
 * The TAG of a variant, from its own content alone: an enumerator's is
 * its name (base_tag()); a member's is its name, '_', and its type
 * spelled (spell_type()): "state_volatile_long_int". The hashed form,
 * name '_' and eight hex digits of the FNV-1a of the declaration, where
 * the type is not spelled or the TAG would be longer than
 * SPELLED_TAG_MAX (libbpf and the kernel take long names, but a reader
 * does not).
 */
static char *variant_tag(const struct variant *v, bool hashed, int *err)
{
	char *name = base_tag(v->member), *type = NULL, *tag = NULL;

	if (!name) {
		*err = -ENOMEM;
		return NULL;
	}
	if (v->kind == BTF_KIND_ENUM)
		return name;
	if (!hashed)
		type = spell_type(v->decl, v->member, err);
	if (*err)
		goto out;
	if (type && asprintf(&tag, "%s_%s", name, type) < 0)
		tag = NULL, *err = -ENOMEM;
	if (tag)
		cut_underscores(tag);
	if (!*err && (!tag || strlen(tag) > SPELLED_TAG_MAX)) {
		free(tag);
		if (asprintf(&tag, "%s_%08x", name, fnv32(v->decl)) < 0)
			tag = NULL, *err = -ENOMEM;
	}
out:
	free(name);
	free(type);
	return tag;
}

static int cmp_variant_group(const void *pa, const void *pb)
{
	const struct variant *a = pa, *b = pb;
	int c;

	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	c = strcmp(a->type_name, b->type_name);
	if (c)
		return c;
	c = strcmp(a->tag, b->tag);
	if (c)
		return c;
	c = strcmp(a->decl, b->decl);
	return c ? c : strcmp(a->member, b->member);
}

static bool same_flavor(const struct variant *a, const struct variant *b)
{
	return a->kind == b->kind && !strcmp(a->type_name, b->type_name) &&
	       !strcmp(a->tag, b->tag);
}

/*
 * Names every variant NAME___TAG (DESIGN.md, "The header of many
 * kernels"), TAG a function of the variant alone (variant_tag()), so
 * that adding or removing kernels never renames a flavor: a flavor is
 * there while some kernel of the set has its declaration, under the same
 * name. Two variants of one NAME whose TAGs still agree (declarations
 * that spell alike, differing only in where underscores split words;
 * none in Debian's 118 and 6.18) both take the hashed form.
 */
static int name_variants(struct synth *y)
{
	uint32_t i, j;
	int err = 0;

	for (i = 0; i < y->nr_variants; i++) {
		y->variants[i].tag = variant_tag(&y->variants[i], false, &err);
		if (!y->variants[i].tag)
			return err ? err : -ENOMEM;
	}
	if (y->nr_variants)
		qsort(y->variants, y->nr_variants, sizeof(*y->variants),
		      cmp_variant_group);
	for (i = 0; i < y->nr_variants; i = j) {
		for (j = i + 1; j < y->nr_variants &&
				same_flavor(&y->variants[i], &y->variants[j]); j++)
			;
		for (uint32_t k = i; j - i > 1 && k < j; k++) {
			char *tag = variant_tag(&y->variants[k], true, &err);

			if (!tag)
				return err ? err : -ENOMEM;
			free(y->variants[k].tag);
			y->variants[k].tag = tag;
		}
	}
	for (i = 0; i < y->nr_variants; i++) {
		struct variant *v = &y->variants[i];

		if (asprintf(&v->flavor, "%s___%s", v->type_name, v->tag) < 0) {
			v->flavor = NULL;
			return -ENOMEM;
		}
	}
	return 0;
}

/*
 * The variant of enumerator member of synthetic enum sid (key
 * "e|TYPE|MEMBER"), its value the synthetic enum's: an enumerator removed
 * and back keeps its flavor (see current_variants()).
 */
static int current_enumerator(struct synth *y, const char *key, uint32_t sid,
			      const char *type_name, const char *member)
{
	const struct btf_type *st = btf__type_by_id(y->s, sid);
	size_t len = strlen(member);
	struct variant *v;
	uint32_t k, idx;
	bool fresh;
	int err = 0;

	if (!btf_is_enum(st) && !btf_is_enum64(st))
		return 0;
	for (k = 0; k < btf_vlen(st); k++) {
		const char *now = btf__name_by_offset(y->s, btf_is_enum(st) ?
			btf_enum(st)[k].name_off : btf_enum64(st)[k].name_off);

		if (!strncmp(now, member, len) && (!now[len] || !strncmp(now + len, "___", 3)))
			break;
	}
	if (k == btf_vlen(st))
		return 0;
	v = hdr_add_variant(y, key, hdr_smap_get(&y->cur_idx, key, &idx) ? y->cur_oldest[idx] : 0,
			    &fresh, &err);
	if (!v || !fresh)
		return err;
	st = btf__type_by_id(y->s, sid);
	v->kind = BTF_KIND_ENUM;
	v->type_name = strdup(type_name);
	v->member = strdup(member);
	v->decl = strdup(member);
	v->enum_size = st->size;
	v->enum_signed = btf_kflag(st);
	v->value = btf_is_enum(st) ?
		(btf_kflag(st) ? (int64_t)(int32_t)btf_enum(st)[k].val :
				 (int64_t)btf_enum(st)[k].val) :
		(int64_t)btf_enum64_value(btf_enum64(st) + k);
	return v->type_name && v->member && v->decl ? 0 : -ENOMEM;
}

/*
 * A member with variants also gets one for the synthetic type's own
 * declaration, as old as the oldest kernel that declares it so: the
 * flavors of a member are then every declaration of it in the set, so a
 * kernel newer than all the others never takes a flavor away, nor its
 * name (name_variants()) from another, even when it declares the member
 * as an older kernel did.
 */
static int current_variants(struct synth *y)
{
	uint32_t i, n = y->nr_variants, dummy;
	struct smap done = { 0 };
	struct bc_text key;
	int err = 0;

	bc_text_init(&key);
	for (i = 0; !err && i < n; i++) {
		const struct variant *v = &y->variants[i];
		char tag = v->kind == BTF_KIND_UNION ? 'u' : 's';
		const struct leaf *now;
		struct leaves *cur;
		struct variant *nv;
		uint32_t sid, idx, oldest = 0;
		bool fresh;

		if (v->kind == BTF_KIND_ENUM)
			continue;
		bc_text_truncate(&key, 0);
		bc_text_printf(&key, "%c|%s|%s", tag, v->type_name, v->member);
		if (key.err || hdr_smap_get(&done, bc_text_str(&key), &dummy)) {
			err = key.err;
			continue;
		}
		err = hdr_smap_put(&done, bc_text_str(&key), 1, false);
		if (hdr_smap_get(&y->cur_idx, bc_text_str(&key), &idx))
			oldest = y->cur_oldest[idx];
		if (err || !hdr_smap_get(&y->names, hdr_make_key(y, tag, v->type_name), &sid))
			continue;
		cur = hdr_synth_leaves(y, sid, &err);
		now = cur ? hdr_find_leaf(cur, v->member) : NULL;
		if (!now)
			continue;
		bc_text_printf(&key, "|%s", now->decl);
		nv = key.err ? NULL : hdr_add_variant(y, bc_text_str(&key), oldest, &fresh, &err);
		if (!nv || !fresh)
			continue;
		v = &y->variants[i];	/* hdr_add_variant may move them */
		nv->kind = v->kind;
		nv->type_name = strdup(v->type_name);
		nv->member = strdup(v->member);
		nv->decl = strdup(now->decl);
		nv->type = now->type;
		nv->bits = now->bits;
		if (!nv->type_name || !nv->member || !nv->decl)
			err = -ENOMEM;
	}
	/*
	 * A member some older kernel lacks while a kernel older still has it
	 * (removed, then back): its flavor stays once the newest has it again.
	 */
	for (i = 0; !err && i < y->absent.cap; i++) {
		const char *k = y->absent.keys[i], *type_name, *member;
		uint32_t youngest_lacking, idx, sid, having = 0;
		const struct leaf *now;
		struct leaves *cur;
		struct variant *nv;
		char *copy, tag;
		bool fresh;

		if (!k || hdr_smap_get(&done, k, &idx))
			continue;
		youngest_lacking = y->absent.vals[i];
		if (hdr_smap_get(&y->cur_idx, k, &idx))
			having = y->cur_oldest[idx];
		copy = strdup(k);
		if (!copy) {
			err = -ENOMEM;
			break;
		}
		tag = copy[0];
		type_name = copy + 2;
		member = strchr(type_name, '|');
		*(char *)member++ = 0;
		/* (members with other declarations were done above) */
		if (having <= youngest_lacking ||
		    !hdr_smap_get(&y->names, hdr_make_key(y, tag, type_name), &sid)) {
			free(copy);
			continue;
		}
		if (tag == 'e') {
			err = current_enumerator(y, k, sid, type_name, member);
			free(copy);
			continue;
		}
		cur = hdr_synth_leaves(y, sid, &err);
		now = cur ? hdr_find_leaf(cur, member) : NULL;
		bc_text_truncate(&key, 0);
		bc_text_printf(&key, "%s|%s", k, now ? now->decl : "");
		nv = !now || key.err ? NULL :
		     hdr_add_variant(y, bc_text_str(&key),
				     hdr_smap_get(&y->cur_idx, k, &idx) ? y->cur_oldest[idx] : 0,
				     &fresh, &err);
		if (nv && fresh) {
			nv->kind = tag == 'u' ? BTF_KIND_UNION : BTF_KIND_STRUCT;
			nv->type_name = strdup(type_name);
			nv->member = strdup(member);
			nv->decl = strdup(now->decl);
			nv->type = now->type;
			nv->bits = now->bits;
			if (!nv->type_name || !nv->member || !nv->decl)
				err = -ENOMEM;
		}
		free(copy);
	}
	hdr_smap_free(&done);
	bc_text_deinit(&key);
	return err;
}

/* Adds the flavor of every variant (unless its name is taken). */
int hdr_add_flavors(struct synth *y)
{
	uint32_t i, taken;
	int err = current_variants(y);

	if (!err)
		err = name_variants(y);

	for (i = 0; !err && i < y->nr_variants; i++) {
		const struct variant *v = &y->variants[i];
		char *enumerator;
		int id, size;

		if (hdr_smap_get(&y->names, hdr_make_key(y, 'T', v->flavor), &taken))
			continue;
		if (v->kind != BTF_KIND_ENUM) {
			size = hdr_sized(y->s, v->type) ? -1 :
			       btf__resolve_size(y->s, v->type);
			if (size < 0) {
				bc_log_printf(y->log, BC_LOG_DEBUG,
					      "%s: no size for its member, no flavor",
					      v->flavor);
				continue;
			}
			id = v->kind == BTF_KIND_UNION ?
				btf__add_union(y->s, v->flavor, size) :
				btf__add_struct(y->s, v->flavor, size);
			if (id > 0)
				err = btf__add_field(y->s, v->member, v->type, 0,
						     v->bits);
			else
				err = id;
			if (!err)
				err = hdr_note_type(y, id);
			continue;
		}
		if (asprintf(&enumerator, "%s___%s", v->member, v->type_name) < 0)
			return -ENOMEM;
		if (v->enum_size <= 4 && v->value >= INT32_MIN &&
		    v->value <= (v->enum_signed ? INT32_MAX : (int64_t)UINT32_MAX)) {
			id = btf__add_enum(y->s, v->flavor, v->enum_size);
			if (id > 0)
				err = btf__add_enum_value(y->s, enumerator, v->value);
		} else {
			id = btf__add_enum64(y->s, v->flavor, v->enum_size,
					     v->enum_signed);
			if (id > 0)
				err = btf__add_enum64_value(y->s, enumerator,
							    (uint64_t)v->value);
		}
		free(enumerator);
		if (id < 0)
			err = id;
		if (!err)
			err = hdr_note_type(y, id);
	}
	return err;
}
