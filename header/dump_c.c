// SPDX-License-Identifier: GPL-2.0-only
/*
 * `dump -f c`: a C header (vmlinux.h) whose lines move only where the
 * types really changed, and whose `git diff` between two kernels stays
 * small and readable.
 *
 * bpftool >= 7.5 sorts its header by kind rank and name; btf_dump emits
 * each type after the types it needs by value, and a forward declaration
 * before the first use of a struct through a pointer. Here the same
 * btf_dump writes every definition (so the declarations are bpftool's,
 * byte for byte), with the roots visited in this order:
 *
 *   decls   "struct foo;" for every forward declaration (FWD) and every
 *	     struct or union named inside a prototype's parameter list
 *	     anywhere in the header, by name (see below);
 *   rank 1  named enums by name, then enums nobody refers to (anonymous,
 *	     so their enumerators are the point) by their first enumerator;
 *   rank 2  typedefs of scalars, pointers and function prototypes,
 *	     striped;
 *   rank 3  structs, unions and typedefs that btf_dump would otherwise
 *	     pull forward (see pull_forward()), by name;
 *   rank 4  the other structs, unions and typedefs, striped;
 *   kfuncs  an `extern ... __weak __ksym;` prototype per kfunc, by name,
 *	     as bpftool writes them.
 *
 * btf_dump writes what a definition holds by value (and the typedefs it
 * names) just before it (C needs that), so such a type sits before its
 * first holder, and moves (its lines count twice in a diff) whenever its
 * first holder changes. A type needed only by types of its own stripe or
 * later ones stays in its stripe; one that something before its stripe
 * needs goes to rank 3, ahead of all the stripes, where name order tends
 * to put "foo" before its holders "foo_bar". So no stripe pulls anything
 * out of another (see pull_forward()).
 *
 * Striped means sorted by (stripe, name): the stripe is a hash of the
 * type's family (the name up to its last '_': "tcp_sock" and
 * "tcp_request_sock" are families "tcp" and "tcp_request") modulo
 * NR_STRIPES. Each stripe is in name order, so a family stays together (a
 * struct renamed within its family stays where it was), while a subsystem
 * that grew or changed as a whole is spread over NR_STRIPES places. That
 * matters for git: its diff gives up being minimal where one stretch of
 * the files holds more than a few hundred differing lines (xdiff cuts the
 * Myers search at about the square root of the file's length), and a
 * name-sorted header puts a new subsystem's thousands of lines in one
 * stretch. Between the headers of 6.12.117 and the 6.18 kernel git diff
 * reports 173k changed lines when everything is in name order and 72k
 * with this order, against a lower bound of 56k (BENCH.md).
 *
 * Forward declarations: C gives a struct first named inside a parameter
 * list the scope of that prototype, and one first named anywhere else
 * (a pointer member, a typedef) file scope. So only names that appear in
 * parameter lists need a declaration ahead of them. Declaring every one
 * of those up front, whatever the order, keeps the set a function of the
 * prototypes alone; btf_dump's own forward declarations are dropped.
 *
 * Plain names by use. Types of the same name and namespace get btf_dump's
 * "___2" suffixes in the order they are first named, so every struct,
 * union, FWD and typedef is named once, before anything is written: by
 * name, and among types of one name the one most referenced first (ties
 * in canonical id order). So the plain name goes to the type the rest of
 * the BTF uses most, a function of the type graph alone. Debian's 6.12 has
 *
 *	typedef __u8 u8;		2,839 references (the kernel's)
 *	typedef unsigned char u8;	a few (some drivers')
 *
 * and canonical order puts the second first: naming by id alone gave the
 * kernel's u8 the suffix, u8___2, in thousands of lines, and those lines
 * moved in a diff against 6.1, where there was one u8. By use, u8 is the
 * kernel's, as in its sources and bpftool's header. A caller that writes a
 * cut of a larger BTF (the slim header) passes the larger one's counts
 * (bc_dump_c_opts.uses), so a type is spelled alike in both. The cost is
 * one count of the references, one sort of the roots, one pass of
 * btf_dump and one scan of the text: linear in the types.
 *
 * The text around the types (include guard, the preserve_access_index
 * pragma that BPF_NO_PRESERVE_ACCESS_INDEX turns off, the __ksym, __weak
 * and __bpf_fastcall macros, BPF_NO_KFUNC_PROTOTYPES) is bpftool 7.8's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "../canon/btf_kinds.h"
#include "dump.h"
#include "../canon/types.h"

enum root_rank {
	RANK_ENUM = 1,
	RANK_ANON_ENUM,
	RANK_SIMPLE_TYPEDEF,	/* striped */
	RANK_HELD,		/* by name */
	RANK_UNHELD,		/* striped */
};

#define NR_STRIPES 8

struct root {
	uint32_t id;
	uint32_t rank;
	uint32_t uses;		/* naming order among namesakes (name_aggregates) */
	uint32_t stripe;	/* ranks 2 and 4: hash of the family */
	const char *name;	/* sort name: own name, or first enumerator/member */
};

/* "struct foo;" as btf_dump spells it, and whether foo is only a FWD */
struct fwd_line {
	char *text;
	bool is_fwd_kind;
};

struct c_dump {
	const struct bc_btf *btf;
	struct btf_dump *d;
	const struct bc_dump_c_opts *opts;	/* never NULL */
	struct bc_text *sink;	/* where btf_dump writes now */
	struct fwd_line *fwds;	/* every struct, union and FWD, sorted by text */
	uint32_t nr_fwds;
};

/*
 * btf_dump's output sink. libbpf 1.1.2 writes a prototype without
 * parameters (vlen 0, C's "(void)") as "()", which in C means "unknown
 * parameters"; bpftool's libbpf writes "(void)", and so does this.
 */
static void append_printf(void *ctx, const char *fmt, va_list args)
{
	struct bc_text *out = ((struct c_dump *)ctx)->sink;
	size_t mark = out->len;

	bc_text_vprintf(out, fmt, args);
	if (mark && out->len > mark && out->buf[mark - 1] == '(' &&
	    out->buf[mark] == ')') {
		char *rest = strdup(out->buf + mark);

		if (!rest) {
			out->err = -ENOMEM;
			return;
		}
		bc_text_truncate(out, mark);
		bc_text_puts(out, "void");
		bc_text_puts(out, rest);
		free(rest);
	}
}

/* A typedef that needs no struct or union definition before it. */
static bool is_simple_typedef(const struct bc_btf *btf, const struct btf_type *t)
{
	uint32_t id = t->type;
	const struct btf_type *target = bc_skip_mods(btf, &id, true);

	if (!target)
		return true;
	switch (bc_type_kind(target)) {
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_ARRAY:
		return false;
	default:
		return true;
	}
}

/*
 * The kth type t holds by value, or 0 when it has no more: members of
 * structs and unions, array elements, what modifiers and typedefs name.
 * Pointers and prototypes hold nothing by value.
 */
static uint32_t by_value_ref(const struct btf_type *t, uint32_t k)
{
	switch (btf_kind(t)) {
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return k < btf_vlen(t) ? btf_members(t)[k].type : 0;
	case BTF_KIND_ARRAY:
		return k ? 0 : btf_array(t)->type;
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		return k ? 0 : t->type;
	default:
		return 0;
	}
}

/*
 * The stripe of a striped type: FNV-1a of its family, the name
 * up to its last '_' (the whole name when it has none past its first
 * character), modulo NR_STRIPES.
 */
static uint32_t family_stripe(const char *name)
{
	const char *last = strrchr(name, '_');
	size_t len = last && last != name ? (size_t)(last - name) : strlen(name);
	uint64_t hash = 14695981039346656037ULL;
	size_t i;

	for (i = 0; i < len; i++) {
		hash ^= (unsigned char)name[i];
		hash *= 1099511628211ULL;
	}
	return hash % NR_STRIPES;
}

static int cmp_root(const void *pa, const void *pb)
{
	const struct root *a = pa, *b = pb;
	int c;

	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	if (a->stripe != b->stripe)
		return a->stripe < b->stripe ? -1 : 1;
	c = strcmp(a->name, b->name);
	if (c)
		return c;
	return a->id < b->id ? -1 : a->id > b->id;
}

/*
 * Which structs, unions and typedefs go to rank 3 instead of their
 * stripe: those that btf_dump would otherwise write somewhere other than
 * at their own place.
 *
 * Before writing a definition, btf_dump writes what the definition needs
 * first: the named structs and unions it holds by value (through arrays,
 * qualifiers and anonymous structs and unions, whose members count for
 * the definition around them), and every typedef it names, even behind a
 * pointer or in a prototype (C needs a typedef name declared before it is
 * used). A typedef needs its target as a struct definition would.
 *
 * A type is pulled (rank 3) when something written before its stripe
 * needs it: a rank 2 typedef, a pulled type, or a type of an earlier
 * stripe. A type of its own stripe that needs it pulls it forward within
 * the stripe, where btf_dump writes it just before that type. Invariant:
 * every striped type is written inside its stripe, at its place unless a
 * type of the same stripe before it needs it. So a type leaves its stripe
 * only when a type before the stripe starts needing it, not whenever it
 * gets a holder: in 6.12.113, struct ring_buffer_per_cpu (stripe 2) began
 * to hold struct buffer_data_read_page (stripe 1), which stays where it
 * was. Moves inside a stripe count as moves in a diff too, but keep the
 * type in the stretch of the file its family is in, which is what keeps
 * git's diff near the minimal one (see the top of this file); pulling
 * those to rank 3 as well gave 4% more changed lines summed over the
 * BENCH.md pairs against 6.18.
 *
 * First every striped type's needs are compared with it, then the pulled
 * set is closed under needs with a work stack (it only grows, and a type
 * is pushed once). Cost: each type's needs are walked at most twice,
 * linear in the members; an anonymous type or prototype is walked once
 * per walk (walk stamps), so crafted loops through pointers end.
 */
struct pull {
	const struct bc_btf *btf;
	struct root *roots;
	uint32_t *root_of;	/* id -> index in roots + 1, striped types only */
	uint32_t *seen;		/* id -> stamp of the walk that visited it */
	uint32_t stamp;
	uint32_t *stack;	/* pulled types whose needs are not yet walked */
	uint32_t nr_stack;
	const struct root *needer;	/* NULL: written before every stripe */
};

static void pull_need(struct pull *p, uint32_t id)
{
	uint32_t k = p->root_of[id];
	struct root *r = k ? &p->roots[k - 1] : NULL;

	if (!r || r->rank != RANK_UNHELD)
		return;
	if (p->needer && p->needer->rank == RANK_UNHELD &&
	    p->needer->stripe >= r->stripe)
		return;
	r->rank = RANK_HELD;
	p->stack[p->nr_stack++] = k - 1;
}

/*
 * Walks what a definition needs of type id, reached through a pointer or
 * not: as btf_dump orders types, a prototype passes on how it was reached
 * (a typedef of a function type needs the structs its parameters take by
 * value; one of a pointer to it does not).
 */
static void walk_needs(struct pull *p, uint32_t id, bool through_ptr)
{
	const struct btf_type *t;
	uint32_t j;

	for (;;) {
		t = bc_btf_type(p->btf, id);
		if (!t)
			return;
		switch (btf_kind(t)) {
		case BTF_KIND_TYPEDEF:
			pull_need(p, id);
			return;
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION:
			if (t->name_off) {
				if (!through_ptr)
					pull_need(p, id);
				return;
			}
			if (p->seen[id] == p->stamp)
				return;
			p->seen[id] = p->stamp;
			for (j = 0; j < btf_vlen(t); j++)
				walk_needs(p, btf_members(t)[j].type, false);
			return;
		case BTF_KIND_FUNC_PROTO:
			if (p->seen[id] == p->stamp)
				return;
			p->seen[id] = p->stamp;
			walk_needs(p, t->type, through_ptr);
			for (j = 0; j < btf_vlen(t); j++)
				walk_needs(p, btf_params(t)[j].type, through_ptr);
			return;
		case BTF_KIND_PTR:
			through_ptr = true;
			id = t->type;
			break;
		case BTF_KIND_ARRAY:
			id = btf_array(t)->type;
			break;
		case BTF_KIND_CONST:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
			id = t->type;
			break;
		default:
			return;
		}
	}
}

/* Pulls what r needs from the types it is written before. */
static void pull_needs_of(struct pull *p, const struct root *r)
{
	const struct btf_type *t = bc_btf_type(p->btf, r->id);
	uint32_t j;

	p->needer = r->rank == RANK_UNHELD ? r : NULL;
	p->stamp++;
	if (btf_kind(t) == BTF_KIND_TYPEDEF) {
		walk_needs(p, t->type, false);
		return;
	}
	for (j = 0; j < btf_vlen(t); j++)
		walk_needs(p, btf_members(t)[j].type, false);
}

/* Moves to RANK_HELD the striped types btf_dump would pull out of their stripe. */
static int pull_forward(const struct bc_btf *btf, struct root *roots, uint32_t nr)
{
	struct pull p = { .btf = btf, .roots = roots };
	uint32_t i;

	p.root_of = calloc(bc_btf_end_id(btf), sizeof(*p.root_of));
	p.seen = calloc(bc_btf_end_id(btf), sizeof(*p.seen));
	p.stack = calloc(nr + 1, sizeof(*p.stack));
	if (!p.root_of || !p.seen || !p.stack) {
		free(p.root_of);
		free(p.seen);
		free(p.stack);
		return -ENOMEM;
	}
	for (i = 0; i < nr; i++) {
		if (roots[i].rank == RANK_UNHELD)
			p.root_of[roots[i].id] = i + 1;
	}
	for (i = 0; i < nr; i++) {
		if (roots[i].rank == RANK_SIMPLE_TYPEDEF ||
		    roots[i].rank == RANK_UNHELD)
			pull_needs_of(&p, &roots[i]);
	}
	while (p.nr_stack)
		pull_needs_of(&p, &roots[p.stack[--p.nr_stack]]);
	for (i = 0; i < nr; i++) {
		if (roots[i].rank == RANK_HELD)
			roots[i].stripe = 0;
	}
	free(p.root_of);
	free(p.seen);
	free(p.stack);
	return 0;
}

/*
 * Picks the roots of ranks 1-4 among btf's own types, and the named
 * structs, unions and forward declarations to name first (rank 0 in
 * *roots).
 */
static int collect_roots(const struct bc_btf *btf, struct root **roots_out,
			 uint32_t *nr_out)
{
	uint32_t i, nr = 0;
	struct root *roots;
	bool *referenced;
	int err;

	referenced = bc_referenced_types(btf, false);
	roots = calloc(btf->nr_types + 1, sizeof(*roots));
	if (!referenced || !roots) {
		free(referenced);
		free(roots);
		return -ENOMEM;
	}
	for (i = 0; i < btf->nr_types; i++) {
		const struct btf_type *t = bc_btf_local(btf, i);
		const char *name = bc_btf_str(btf, t->name_off);
		uint32_t id = btf->start_id + i, rank;

		switch (bc_type_kind(t)) {
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION:
			/* btf_dump writes anonymous ones only inside others */
			if (!*name)
				continue;
			rank = RANK_UNHELD;
			break;
		case BTF_KIND_FWD:
			rank = 0;
			break;
		case BTF_KIND_ENUM:
		case BTF_KIND_ENUM64:
			if (*name) {
				rank = RANK_ENUM;
			} else if (!referenced[id]) {
				rank = RANK_ANON_ENUM;
				name = bc_first_entry_name(btf, t);
			} else {
				continue;
			}
			break;
		case BTF_KIND_TYPEDEF:
			/*
			 * the placeholder of a type of unknown kind is written
			 * only where a type written refers to it
			 */
			if (bc_is_unknown_placeholder(t, name))
				continue;
			if (is_simple_typedef(btf, t))
				rank = RANK_SIMPLE_TYPEDEF;
			else
				rank = RANK_UNHELD;
			break;
		default:
			continue;
		}
		roots[nr++] = (struct root){
			.id = id, .rank = rank, .name = name,
			.stripe = rank == RANK_SIMPLE_TYPEDEF || rank == RANK_UNHELD ?
				  family_stripe(name) : 0,
		};
	}
	free(referenced);
	err = pull_forward(btf, roots, nr);
	if (err) {
		free(roots);
		return err;
	}
	qsort(roots, nr, sizeof(*roots), cmp_root);
	*roots_out = roots;
	*nr_out = nr;
	return 0;
}

static int cmp_fwd_line(const void *pa, const void *pb)
{
	return strcmp(((const struct fwd_line *)pa)->text,
		      ((const struct fwd_line *)pb)->text);
}

/* By name; among namesakes the most used first, then by id. */
static int cmp_fwd_root(const void *pa, const void *pb)
{
	const struct root *a = pa, *b = pb;
	int c = strcmp(a->name, b->name);

	if (c)
		return c;
	if (a->uses != b->uses)
		return a->uses > b->uses ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

/*
 * Asks btf_dump for "struct foo;" of every named struct, union and forward
 * declaration, by name and then by use (see the top of this file), into a
 * scratch text: this fixes the ___N suffixes in that order, and keeps each
 * spelling (c->fwds, sorted by text) to
 * recognize btf_dump's own forward declarations later. Typedefs are named
 * the same way (their spelling is not kept): two typedefs of one name
 * ("typedef __u8 u8" and "typedef unsigned char u8") would otherwise get
 * their suffixes in the order btf_dump first writes them, which any type
 * written before them can change, and which differs between a header and
 * the slim header of the same BTF (slim.h).
 */
static int name_aggregates(struct c_dump *c, const struct root *roots,
			   uint32_t nr_roots)
{
	LIBBPF_OPTS(btf_dump_emit_type_decl_opts, opts, .field_name = "");
	const uint32_t *uses = c->opts->uses;
	uint32_t i, nr = 0, nr_uses = c->opts->nr_uses;
	uint32_t *counted = NULL;
	struct bc_text scratch;
	struct root *decls;
	int err = 0;

	if (!uses) {
		uses = counted = bc_use_counts(c->btf);
		nr_uses = bc_btf_end_id(c->btf);
	}
	decls = calloc(nr_roots + 1, sizeof(*decls));
	c->fwds = calloc(nr_roots + 1, sizeof(*c->fwds));
	if (!decls || !c->fwds || !uses) {
		free(decls);
		free(counted);
		return -ENOMEM;
	}
	for (i = 0; i < nr_roots; i++) {
		const struct btf_type *t = bc_btf_type(c->btf, roots[i].id);
		uint32_t kind = bc_type_kind(t);

		if ((kind == BTF_KIND_STRUCT || kind == BTF_KIND_UNION ||
		     kind == BTF_KIND_FWD || kind == BTF_KIND_TYPEDEF) &&
		    t->name_off) {
			decls[nr] = roots[i];
			decls[nr++].uses = roots[i].id < nr_uses ?
					   uses[roots[i].id] : 0;
		}
	}
	free(counted);
	qsort(decls, nr, sizeof(*decls), cmp_fwd_root);
	bc_text_init(&scratch);
	c->sink = &scratch;
	for (i = 0; i < nr && !err; i++) {
		struct fwd_line *line = &c->fwds[c->nr_fwds];
		uint32_t kind = bc_type_kind(bc_btf_type(c->btf, decls[i].id));

		bc_text_truncate(&scratch, 0);
		err = btf_dump__emit_type_decl(c->d, decls[i].id, &opts);
		bc_text_puts(&scratch, ";");
		if (!err)
			err = scratch.err;
		if (err)
			break;
		if (kind == BTF_KIND_TYPEDEF)
			continue;
		line->text = strdup(bc_text_str(&scratch));
		line->is_fwd_kind = kind == BTF_KIND_FWD;
		if (!line->text)
			err = -ENOMEM;
		else
			c->nr_fwds++;
	}
	bc_text_deinit(&scratch);
	free(decls);
	qsort(c->fwds, c->nr_fwds, sizeof(*c->fwds), cmp_fwd_line);
	return err;
}

/* The entry of c->fwds whose text is the len bytes at s, or NULL. */
static const struct fwd_line *find_fwd(const struct c_dump *c, const char *s,
				       size_t len)
{
	uint32_t lo = 0, hi = c->nr_fwds;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const char *text = c->fwds[mid].text;
		int cmp = strncmp(text, s, len);

		if (!cmp)
			cmp = text[len] ? 1 : 0;
		if (!cmp)
			return &c->fwds[mid];
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* A block that is btf_dump's forward declaration of a struct or union. */
static bool is_fwd_block(const struct c_dump *c, const char *block, size_t len)
{
	if (len < 2 || block[len - 1] != ';' || memchr(block, '\n', len) ||
	    memchr(block, '{', len))
		return false;
	if (strncmp(block, "struct ", 7) && strncmp(block, "union ", 6))
		return false;
	return find_fwd(c, block, len) != NULL;
}

/*
 * Removes from c->sink (from mark on) the forward declarations btf_dump
 * wrote. btf_dump ends every top-level declaration with ";\n\n" and puts
 * no blank line inside one, so blocks are separated by "\n\n".
 */
static void drop_fwd_blocks(struct c_dump *c, size_t mark)
{
	char *buf = c->sink->buf, *end = buf + c->sink->len;
	char *src = buf + mark, *dst = src;

	while (src < end) {
		char *sep = strstr(src, "\n\n");
		size_t block_len = sep ? (size_t)(sep - src) : (size_t)(end - src);
		size_t take = sep ? block_len + 2 : block_len;

		if (!is_fwd_block(c, src, block_len)) {
			memmove(dst, src, take);
			dst += take;
		}
		src += take;
	}
	bc_text_truncate(c->sink, dst - buf);
}

/*
 * Marks (in *needed, indexed like c->fwds) every struct and union that
 * the text names inside parentheses: in a parameter list, where C would
 * give an undeclared one the prototype's scope. Parentheses in btf_dump's
 * output are parameter lists, the "(*name)" of a declarator (which names
 * no struct) and attributes (which name none either). A definition
 * "struct foo {" inside a parameter list does not occur. Linear in the
 * text.
 */
static void mark_prototype_names(const struct c_dump *c, const char *text,
				 size_t len, bool *needed)
{
	size_t i = 0;
	int depth = 0;

	while (i < len) {
		size_t kw, start, end;
		const struct fwd_line *line;
		char decl[512];

		if (text[i] == '(') {
			depth++;
			i++;
			continue;
		}
		if (text[i] == ')') {
			depth -= depth > 0;
			i++;
			continue;
		}
		if (!bc_is_ident_char(text[i])) {
			i++;
			continue;
		}
		start = i;
		while (i < len && bc_is_ident_char(text[i]))
			i++;
		if (!depth)
			continue;
		kw = i - start;
		if (!((kw == 6 && !memcmp(text + start, "struct", 6)) ||
		      (kw == 5 && !memcmp(text + start, "union", 5))) ||
		    i >= len || text[i] != ' ')
			continue;
		end = i + 1;
		while (end < len && bc_is_ident_char(text[end]))
			end++;
		if (end == i + 1 || end - start + 1 >= sizeof(decl))
			continue;
		memcpy(decl, text + start, end - start);
		decl[end - start] = ';';
		line = find_fwd(c, decl, end - start + 1);
		if (line)
			needed[line - c->fwds] = true;
		i = end;
	}
}

static int cmp_decl_name(const void *pa, const void *pb)
{
	const char *a = *(const char *const *)pa, *b = *(const char *const *)pb;
	int c = strcmp(strchr(a, ' ') + 1, strchr(b, ' ') + 1);

	return c ? c : strcmp(a, b);
}

/*
 * Appends to out the forward declarations the body needs (see the top of
 * this file), sorted by name, then a blank line. Returns 0 or -ENOMEM.
 */
static int emit_needed_fwds(const struct c_dump *c, const struct bc_text *body,
			    struct bc_text *out)
{
	bool *needed = calloc(c->nr_fwds + 1, sizeof(*needed));
	const char **decls = calloc(c->nr_fwds + 1, sizeof(*decls));
	uint32_t i, nr = 0;

	if (!needed || !decls) {
		free(needed);
		free(decls);
		return -ENOMEM;
	}
	mark_prototype_names(c, bc_text_str(body), body->len, needed);
	for (i = 0; i < c->nr_fwds; i++) {
		if (needed[i] || c->fwds[i].is_fwd_kind)
			decls[nr++] = c->fwds[i].text;
	}
	qsort(decls, nr, sizeof(*decls), cmp_decl_name);
	for (i = 0; i < nr; i++) {
		bc_text_puts(out, decls[i]);
		bc_text_puts(out, "\n");
	}
	if (nr)
		bc_text_puts(out, "\n");
	free(needed);
	free(decls);
	return out->err;
}

struct kfunc {
	uint32_t func_id;
	const char *name;
	bool fastcall;
};

static int cmp_kfunc(const void *pa, const void *pb)
{
	const struct kfunc *a = pa, *b = pb;
	int c = strcmp(a->name, b->name);

	if (c)
		return c;
	return a->func_id < b->func_id ? -1 : a->func_id > b->func_id;
}

/*
 * The kfuncs: FUNCs with a DECL_TAG "bpf_kfunc" on the function itself
 * (component_idx -1), "bpf_fastcall" likewise marking the fastcall ones.
 * One per FUNC, by name. Returns the count or -ENOMEM.
 */
static int collect_kfuncs(const struct bc_btf *btf, struct kfunc **out)
{
	struct kfunc *kfuncs = NULL;
	uint32_t i, j, nr = 0, cap = 0;
	bool *fastcall = calloc(bc_btf_end_id(btf), sizeof(*fastcall));

	if (!fastcall)
		return -ENOMEM;
	for (i = 0; i < btf->nr_types; i++) {
		const struct btf_type *t = bc_btf_local(btf, i);
		const struct btf_type *func;

		/* t->type is a reference (checked by the parser) only in tags */
		if (bc_type_kind(t) != BTF_KIND_DECL_TAG ||
		    btf_decl_tag(t)->component_idx != -1)
			continue;
		func = bc_btf_type(btf, t->type);
		if (!func || bc_type_kind(func) != BTF_KIND_FUNC)
			continue;
		if (!strcmp(bc_btf_str(btf, t->name_off), "bpf_fastcall"))
			fastcall[t->type] = true;
		if (strcmp(bc_btf_str(btf, t->name_off), "bpf_kfunc"))
			continue;
		if (nr == cap) {
			struct kfunc *grown;

			cap = cap ? 2 * cap : 64;
			grown = realloc(kfuncs, cap * sizeof(*kfuncs));
			if (!grown) {
				free(kfuncs);
				free(fastcall);
				return -ENOMEM;
			}
			kfuncs = grown;
		}
		kfuncs[nr++] = (struct kfunc){
			.func_id = t->type,
			.name = bc_btf_str(btf, func->name_off),
		};
	}
	if (nr)
		qsort(kfuncs, nr, sizeof(*kfuncs), cmp_kfunc);
	/* a FUNC tagged twice is one prototype */
	for (i = 0, j = 0; i < nr; i++) {
		if (j && kfuncs[j - 1].func_id == kfuncs[i].func_id)
			continue;
		kfuncs[j] = kfuncs[i];
		kfuncs[j++].fastcall = fastcall[kfuncs[i].func_id];
	}
	free(fastcall);
	*out = kfuncs;
	return j;
}

/* Whether opts lists kfunc name as present in every kernel (not __weak). */
static bool is_strong(const struct bc_dump_c_opts *opts, const char *name)
{
	uint32_t lo = 0, hi = opts->nr_strong_kfuncs;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = strcmp(opts->strong_kfuncs[mid], name);

		if (!c)
			return true;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/*
 * The kfunc prototypes, as bpftool >= 7.5 writes them after the types:
 * "extern [__bpf_fastcall ]DECL __weak __ksym;" inside
 * #ifndef BPF_NO_KFUNC_PROTOTYPES, by name; the section is there (empty)
 * when the BTF has no kfuncs. Returns 0 or a negative errno.
 */
static int emit_kfuncs(struct c_dump *c)
{
	LIBBPF_OPTS(btf_dump_emit_type_decl_opts, opts);
	struct kfunc *kfuncs = NULL;
	int nr = collect_kfuncs(c->btf, &kfuncs), i, err = 0;

	if (nr < 0)
		return nr;
	bc_text_puts(c->sink, "\n/* BPF kfuncs */\n#ifndef BPF_NO_KFUNC_PROTOTYPES\n");
	for (i = 0; i < nr && !err; i++) {
		const struct btf_type *func = bc_btf_type(c->btf, kfuncs[i].func_id);

		bc_text_puts(c->sink, kfuncs[i].fastcall ? "extern __bpf_fastcall " :
							  "extern ");
		opts.field_name = kfuncs[i].name;
		err = btf_dump__emit_type_decl(c->d, func->type, &opts);
		bc_text_puts(c->sink, is_strong(c->opts, kfuncs[i].name) ?
				      " __ksym;\n" : " __weak __ksym;\n");
	}
	bc_text_puts(c->sink, "#endif\n\n");
	free(kfuncs);
	return err ? err : c->sink->err;
}

/*
 * A TYPE_TAG with kflag set (pahole's "attributes", 2026) is a C
 * attribute, not a BTF tag: libbpf >= 1.6 writes it as
 * "__attribute__((NAME))", where Debian's libbpf 1.1.2 writes
 * "__attribute__((btf_type_tag("NAME")))" for every type tag. The kernel
 * uses it for "address_space(1)" on BPF arena pointers. This rewrites the
 * second spelling into the first for every name that only kflag tags
 * carry (a name both kinds carry keeps libbpf 1.1.2's spelling). Linear
 * in the text per such name; there are one or two.
 */
struct type_tag {
	const char *name;
	bool kflag;
};

static int cmp_type_tag(const void *pa, const void *pb)
{
	return strcmp(((const struct type_tag *)pa)->name,
		      ((const struct type_tag *)pb)->name);
}

/* Replaces every "__attribute__((btf_type_tag("NAME")))" in body. */
static int rewrite_tag(struct bc_text *body, const char *name)
{
	struct bc_text from, rewritten;
	const char *at, *text = bc_text_str(body);
	int err;

	bc_text_init(&from);
	bc_text_init(&rewritten);
	bc_text_printf(&from, "__attribute__((btf_type_tag(\"%s\")))", name);
	while ((at = strstr(text, bc_text_str(&from)))) {
		bc_text_add(&rewritten, text, at - text);
		bc_text_printf(&rewritten, "__attribute__((%s))", name);
		text = at + from.len;
	}
	bc_text_puts(&rewritten, text);
	err = from.err ? from.err : rewritten.err;
	if (!err) {
		bc_text_truncate(body, 0);
		bc_text_add(body, bc_text_str(&rewritten), rewritten.len);
		err = body->err;
	}
	bc_text_deinit(&from);
	bc_text_deinit(&rewritten);
	return err;
}

static int rewrite_attribute_tags(const struct bc_btf *btf, struct bc_text *body)
{
	struct type_tag *tags = calloc(btf->nr_types + 1, sizeof(*tags));
	uint32_t i, j, nr = 0;
	int err = 0;

	if (!tags)
		return -ENOMEM;
	for (i = 0; i < btf->nr_types; i++) {
		const struct btf_type *t = bc_btf_local(btf, i);

		if (bc_type_kind(t) == BTF_KIND_TYPE_TAG)
			tags[nr++] = (struct type_tag){
				.name = bc_btf_str(btf, t->name_off),
				.kflag = bc_info_kflag(t->info),
			};
	}
	qsort(tags, nr, sizeof(*tags), cmp_type_tag);
	for (i = 0; i < nr && !err; i = j) {
		bool all_kflag = true;

		for (j = i; j < nr && !strcmp(tags[j].name, tags[i].name); j++)
			all_kflag &= tags[j].kflag;
		if (all_kflag)
			err = rewrite_tag(body, tags[i].name);
	}
	free(tags);
	return err;
}

static const char c_prologue[] =
	"#ifndef __VMLINUX_H__\n"
	"#define __VMLINUX_H__\n"
	"\n"
	"#ifndef BPF_NO_PRESERVE_ACCESS_INDEX\n"
	"#pragma clang attribute push (__attribute__((preserve_access_index)), apply_to = record)\n"
	"#endif\n"
	"\n"
	"#ifndef __ksym\n"
	"#define __ksym __attribute__((section(\".ksyms\")))\n"
	"#endif\n"
	"\n"
	"#ifndef __weak\n"
	"#define __weak __attribute__((weak))\n"
	"#endif\n"
	"\n"
	"#ifndef __bpf_fastcall\n"
	"#if __has_attribute(bpf_fastcall)\n"
	"#define __bpf_fastcall __attribute__((bpf_fastcall))\n"
	"#else\n"
	"#define __bpf_fastcall\n"
	"#endif\n"
	"#endif\n"
	"\n";

static const char c_epilogue[] =
	"#ifndef BPF_NO_PRESERVE_ACCESS_INDEX\n"
	"#pragma clang attribute pop\n"
	"#endif\n"
	"\n"
	"#endif /* __VMLINUX_H__ */\n";

/*
 * Structs and unions btf_dump cannot write, refused before it sees them
 * (both found by tests/fuzz/fuzz_dump):
 *
 *   - btf_dump divides by the alignment of each member's type, which
 *     btf__align_of() gives as 0 or less for void, an INT or ENUM of size
 *     0, a FWD or a function: valid BTF to the parser, no C type, and a
 *     SIGFPE inside libbpf 1.1;
 *   - a member that lies past the end of its struct (the kernel rejects
 *     that too) makes btf_dump write one padding line per 64 bits of the
 *     gap: an 800-byte input gave a 280 MB header. Holes between members
 *     and at the end are padded the same way, so a hole is bounded by
 *     MAX_HOLE_BYTES; real structs pad to a cache line or a page.
 *
 * Returns 0 or -EINVAL after a message.
 */
/*
 * A struct that contains itself by value (through members, arrays,
 * typedefs) has no size: libbpf's btf__align_of() recurses on it until the
 * stack overflows (found by tests/fuzz/fuzz_dump). The parser lets loops
 * through structs pass, as pointers make them legal; this finds the ones
 * without a pointer, by a depth-first walk over by-value references with
 * the types on the current path marked. Linear in types and members.
 * Returns 0, -ENOMEM, or -EINVAL after a message.
 */
static int check_by_value_cycles(const struct bc_btf *btf,
				 const struct bc_log *log)
{
	enum { UNSEEN, ON_PATH, DONE };
	struct frame { uint32_t idx, next; } *path;
	uint8_t *state = calloc(btf->nr_types ? btf->nr_types : 1, 1);
	uint32_t root, depth;
	int err = 0;

	path = malloc((btf->nr_types ? btf->nr_types : 1) * sizeof(*path));
	if (!state || !path) {
		err = -ENOMEM;
		goto out;
	}
	for (root = 0; root < btf->nr_types && !err; root++) {
		if (state[root] != UNSEEN)
			continue;
		state[root] = ON_PATH;
		path[0] = (struct frame){ root, 0 };
		depth = 1;
		while (depth && !err) {
			struct frame *f = &path[depth - 1];
			uint32_t id = by_value_ref(bc_btf_local(btf, f->idx), f->next++);
			uint32_t idx = id - btf->start_id;

			if (!id) {
				/* 0: a void member, or past the last entry */
				if (f->next <= btf_vlen(bc_btf_local(btf, f->idx)))
					continue;
				state[f->idx] = DONE;
				depth--;
				continue;
			}
			if (id < btf->start_id || state[idx] == DONE)
				continue;
			if (state[idx] == ON_PATH) {
				const struct btf_type *t = bc_btf_local(btf, idx);

				err = bc_log_error(log, -EINVAL,
					"%s: type [%u] %s '%s' contains itself by value (no pointer on the way): it has no size and no C declaration",
					btf->path, id, bc_kinds[btf_kind(t)].name,
					bc_btf_str(btf, t->name_off));
				break;
			}
			state[idx] = ON_PATH;
			path[depth++] = (struct frame){ idx, 0 };
		}
	}
out:
	free(path);
	free(state);
	return err;
}

#define MAX_HOLE_BYTES (64 * 1024)

static int check_layout(const struct bc_btf *btf, const struct btf *lbtf,
			const struct bc_log *log)
{
	uint32_t i;
	int err = check_by_value_cycles(btf, log);

	if (err)
		return err;

	for (i = 0; i < btf->nr_types; i++) {
		const struct btf_type *t = bc_btf_local(btf, i);
		uint32_t id = btf->start_id + i;

		const char *kind = btf_kind(t) == BTF_KIND_STRUCT ? "struct" : "union";
		uint64_t end = 0;	/* bits: the furthest member end so far */
		uint32_t j;

		if (btf_kind(t) != BTF_KIND_STRUCT && btf_kind(t) != BTF_KIND_UNION)
			continue;
		for (j = 0; j < btf_vlen(t); j++) {
			const struct btf_member *m = btf_members(t) + j;
			uint64_t bits = btf_member_bitfield_size(t, j);

			uint64_t at = btf_member_bit_offset(t, j);

			/*
			 * Each member, not only the struct: btf__align_of()
			 * calls a struct packed (1) at its first misaligned
			 * member without looking at the rest.
			 */
			if (btf__align_of(lbtf, m->type) <= 0)
				return bc_log_error(log, -EINVAL,
					"%s: type [%u] %s '%s': member '%s' has a type without size or alignment (void, a declaration, a function); no C declaration for it",
					btf->path, id, kind, bc_btf_str(btf, t->name_off),
					bc_btf_str(btf, m->name_off));
			if (!bits)
				bits = 8 * (uint64_t)btf__resolve_size(lbtf, m->type);
			if (at + bits > 8 * (uint64_t)t->size)
				return bc_log_error(log, -EINVAL,
					"%s: type [%u] %s '%s': member '%s' at bit %llu lies past the end of its %u bytes",
					btf->path, id, kind, bc_btf_str(btf, t->name_off),
					bc_btf_str(btf, m->name_off),
					(unsigned long long)at, t->size);
			if (at > end + 8 * MAX_HOLE_BYTES)
				return bc_log_error(log, -EINVAL,
					"%s: type [%u] %s '%s': a hole of %llu bytes before member '%s' (more than %u): the header would pad it line by line",
					btf->path, id, kind, bc_btf_str(btf, t->name_off),
					(unsigned long long)(at - end) / 8,
					bc_btf_str(btf, m->name_off), MAX_HOLE_BYTES);
			if (at + bits > end)
				end = at + bits;
		}
		if (8 * (uint64_t)t->size > end + 8 * MAX_HOLE_BYTES)
			return bc_log_error(log, -EINVAL,
				"%s: type [%u] %s '%s': a hole of %llu bytes at its end (more than %u): the header would pad it line by line",
				btf->path, id, kind, bc_btf_str(btf, t->name_off),
				(unsigned long long)(8 * (uint64_t)t->size - end) / 8,
				MAX_HOLE_BYTES);
	}
	return 0;
}

int bc_dump_c(const struct bc_btf *btf, const struct btf *lbtf,
	      struct bc_text *out, const struct bc_log *log)
{
	return bc_dump_c_with(btf, lbtf, NULL, out, log);
}

static const struct btf_type *read_lbtf(const void *lbtf, uint32_t id)
{
	return btf__type_by_id(lbtf, id);
}

uint32_t *bc_dump_c_uses(const struct btf *lbtf, uint32_t first, uint32_t end)
{
	return bc_use_counts_read(read_lbtf, lbtf, btf__type_cnt(lbtf), first,
				  end);
}

uint32_t *bc_dump_c_cut_uses(const uint32_t *full_uses, uint32_t nr_full,
			     const uint32_t *from, uint32_t nr_cut)
{
	uint32_t *uses = calloc(nr_cut ? nr_cut : 1, sizeof(*uses));
	uint32_t i;

	for (i = 0; uses && i < nr_cut; i++)
		uses[i] = from[i] < nr_full ? full_uses[from[i]] : 0;
	return uses;
}

int bc_dump_c_with(const struct bc_btf *btf, const struct btf *lbtf,
		   const struct bc_dump_c_opts *opts, struct bc_text *out,
		   const struct bc_log *log)
{
	static const struct bc_dump_c_opts no_opts;
	struct c_dump c = { .btf = btf, .opts = opts ? opts : &no_opts };
	struct root *roots = NULL;
	uint32_t i, nr_roots = 0;
	struct bc_text body;
	int err;

	err = check_layout(btf, lbtf, log);
	if (err)
		return err;
	bc_text_init(&body);
	err = collect_roots(btf, &roots, &nr_roots);
	if (err)
		goto out;
	c.d = btf_dump__new(lbtf, append_printf, &c, NULL);
	if (!c.d) {
		err = -errno;
		goto out;
	}
	err = name_aggregates(&c, roots, nr_roots);
	c.sink = &body;
	for (i = 0; !err && i < nr_roots; i++) {
		size_t mark = body.len;

		if (!roots[i].rank)
			continue;
		err = btf_dump__dump_type(c.d, roots[i].id);
		if (!err)
			err = body.err;
		if (!err)
			drop_fwd_blocks(&c, mark);
	}
	if (!err)
		err = emit_kfuncs(&c);
	if (!err)
		err = rewrite_attribute_tags(btf, &body);
	if (!err) {
		bc_text_puts(out, c_prologue);
		err = emit_needed_fwds(&c, &body, out);
	}
	if (!err) {
		bc_text_add(out, bc_text_str(&body), body.len);
		bc_text_puts(out, c_epilogue);
		err = out->err;
	}
out:
	if (err)
		bc_log_error(log, err, "%s: cannot write the C header: %s",
			     btf->path, strerror(-err));
	btf_dump__free(c.d);
	for (i = 0; i < c.nr_fwds; i++)
		free(c.fwds[i].text);
	free(c.fwds);
	free(roots);
	bc_text_deinit(&body);
	return err;
}
