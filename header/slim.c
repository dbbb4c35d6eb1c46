// SPDX-License-Identifier: GPL-2.0-only
/*
 * The slim header: the part of a kernel's BTF one BPF program needs.
 *
 * Problem: a program compiled against the slim header must compile to
 * the same object as against the full one (the same instructions, the
 * same types in its BTF, the same CO-RE relocations), while the header holds a few hundred types instead
 * of 120k. Cutting the BTF down to an object's relocations (BTFGen) is
 * not enough: a type named only in sizeof or a cast, an enum constant
 * used as a value, leave no relocation, and a struct cut to the members
 * read changes sizeof and every offset after it.
 *
 * What the program names (struct bc_slim_names, one set of strings):
 *   - every identifier of its C sources and the headers they include
 *     that the compiler finds in the including file's directory or
 *     through the request's include directories (c_names.h),
 *     and the names libbpf's bpf_for_each() pastes together from them;
 *   - of each object's BTF, the names of its structs, unions, enums and
 *     typedefs (clang writes the definitions a program uses in full and
 *     the structs it only points to as FWD, which are not taken), the
 *     enumerators of its anonymous enums, its extern functions (kfuncs);
 *   - for objects, what libbpf's BPF headers take from vmlinux.h
 *     (c_names.h): the object cannot tell whether its sources included
 *     them, and nearly every CO-RE program does;
 *   - of each CO-RE relocation, the root type's name and the names of the
 *     types and members along its access string, each also without a
 *     flavor suffix ("task_struct___o" gives "task_struct" too: libbpf
 *     relocates the flavor against it).
 *
 * Selection from the kernel's BTF: the seeds are the structs, unions,
 * enums, typedefs and FWDs of a name in the set, the enums holding an
 * enumerator of a name in the set, and the kfuncs (FUNCs tagged
 * "bpf_kfunc") of a name in the set with their tags. Every type reachable
 * from a seed is kept, and every struct and union whole (every member, so
 * member order, offsets and sizeof stay the kernel's), except that a
 * named struct or union reached only through a member's pointer becomes
 * a FWD of its name ("struct mm_struct;").
 *
 * That exception is exactly where clang's BTF holds a FWD too (LLVM's
 * BTFDebug: the type of a member is visited with "check pointer" on; past
 * a pointer, through more pointers, typedefs and qualifiers, a named
 * struct or union is left for a fixup that becomes a FWD unless the
 * definition is emitted for another reason; prototypes, arrays and
 * everything outside members are visited without it). Had the slim
 * header only a declaration where clang writes the definition, the
 * object's .BTF would differ from the one built against the full header.
 * So how a type is reached matters (enum reach): through a member, past a
 * member's pointer, or plainly (the seeds, array elements, a prototype's
 * return and parameters); a type is walked once per way it is reached.
 *
 * A program reads members through pointers without naming the pointee's
 * type (BPF_CORE_READ(task, mm, arg_start) names task_struct, mm and
 * arg_start, never mm_struct), so a struct or union reached past the
 * pointer of a member whose name is in the set, and one of whose members
 * (or of its anonymous members) has a name in the set, is kept whole as
 * well. Both names: a member the program never names is a pointer it
 * does not follow by name, and names such as "flags" or "data" are
 * members of nearly every struct (asking only the second made bcc's
 * libbpf-tools' slim headers 5.3% of the full header's lines, the median,
 * instead of 1.2%). That is decided when the struct is reached that way: the set is
 * fixed, so the closure is the fixpoint.
 *
 *	struct task_struct { struct mm_struct *mm; struct list_head tasks;
 *			     struct cred *cred; };
 *	struct mm_struct { unsigned long arg_start; struct file *exe_file; };
 *	program: BPF_CORE_READ(task, mm, arg_start) with a struct task_struct *
 *	-> task_struct whole (named), list_head whole (a member by value),
 *	   mm_struct whole (mm and arg_start are the program's names), file
 *	   and cred FWDs.
 *
 * Types of the same name and namespace (tags: struct, union, enum, FWD;
 * identifiers: typedefs) are kept alike: btf_dump tells them apart with
 * "___2" suffixes in the order dump_c.c gives them (by use, counted in
 * full and passed along: bc_slim_select_from()), and keeping all of them keeps
 * every suffix what the full header has. Structs and unions that share a
 * name are kept whole, since btf_dump writes a FWD without its suffix. Kept types keep their
 * order (ids) in the output, so canonical input gives canonical output.
 *
 * Cost: one pass over full's types probing the set (names and
 * enumerators; a filter on length and first and last character answers
 * most probes without hashing), the closure (each type walked at most once per way it is
 * reached: five), one or two rounds of three passes for the same-name
 * rule, and the copy of the kept types: linear in full, 3-4 ms on
 * 6.12.117's 107k types.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <bpf/btf.h>

#include "../canon/btf_kinds.h"
#include "../canon/strset.h"
#include "../archive/ktypes.h"
#include "../archive/bpf_object.h"
#include "c_names.h"
#include "slim.h"

/*
 * A filter in front of a set of names: one bit per (length, first and
 * last character) a name of the set has. Most of a kernel's 100k names
 * miss it, and are never hashed.
 */
struct name_filter {
	uint64_t bits[1024];
};

static uint32_t filter_key(const char *name, size_t len)
{
	return (len & 0x3f) << 10 | ((unsigned char)name[0] & 0x1f) << 5 |
	       ((unsigned char)name[len - 1] & 0x1f);
}

static void filter_add(struct name_filter *f, const char *name)
{
	size_t len = strlen(name);
	uint32_t key;

	if (!len)
		return;
	key = filter_key(name, len);
	f->bits[key / 64] |= 1ull << (key % 64);
}

/* name's offset in set (behind filter f), or -1 when set lacks it. */
static int64_t filtered_find(const struct name_filter *f,
			     const struct bc_strset *set, const char *name)
{
	size_t len = name ? strlen(name) : 0;
	uint32_t key;

	if (!len)
		return -1;
	key = filter_key(name, len);
	if (!(f->bits[key / 64] & (1ull << (key % 64))))
		return -1;
	return bc_strset_find_hashed(set, name, len, bc_strset_hash(name, len));
}

struct bc_slim_names {
	struct bc_strset set;
	struct name_filter filter;	/* of set, made once it is complete */
};

/*
 * How a type was reached (see the top of this file). A type keeps the set
 * of ways it was reached (a bit each) and is walked once per way; a
 * struct or union kept whole has them all.
 */
enum reach {
	REACH_MEMBER_PTR,	/* past a member's pointer */
	REACH_NAMED_PTR,	/* past the pointer of a member the program names */
	REACH_MEMBER,		/* a member's type, no pointer yet */
	REACH_NAMED_MEMBER,	/* the type of a member the program names */
	REACH_PLAIN,		/* anything else */
	NR_REACHES,
};

#define REACHED_ALL ((1u << NR_REACHES) - 1)

/* ---- what the program names ------------------------------------------ */

static int add_str(struct bc_slim_names *n, const char *s)
{
	int64_t off;

	if (!*s)
		return 0;
	off = bc_strset_add(&n->set, s);
	return off < 0 ? (int)off : 0;
}

/*
 * s, and s without its flavor suffix when it has one ("foo___v2" ->
 * "foo"), as libbpf cuts it (bc_essential_len()).
 */
static int add_essential(struct bc_slim_names *n, const char *s)
{
	size_t len = bc_essential_len(s);
	char *essential;
	int err = add_str(n, s);

	if (err || !len || !s[len])
		return err;
	essential = strndup(s, len);
	if (!essential)
		return -ENOMEM;
	err = add_str(n, essential);
	free(essential);
	return err;
}

/* Past modifiers and typedefs (adding the typedefs' names), at most depth deep. */
static const struct btf_type *skip_named_mods(struct bc_slim_names *n,
					      const struct bc_btf *btf,
					      uint32_t *id, int *err)
{
	const struct btf_type *t = bc_btf_type(btf, *id);
	int depth = 0;

	while (t && depth++ < 64) {
		switch (btf_kind(t)) {
		case BTF_KIND_TYPEDEF:
			if (!*err)
				*err = add_essential(n, bc_btf_str(btf, t->name_off));
			/* fall through */
		case BTF_KIND_CONST:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
			*id = t->type;
			t = bc_btf_type(btf, *id);
			continue;
		default:
			return t;
		}
	}
	return t;
}

/*
 * The names along a relocation: its root type, then for a field
 * relocation ("0:1:2": an index into the root, then member or element
 * indexes) each member and type the access goes through, and for an
 * enumerator relocation the enumerator. The object's reader checked
 * ids and offsets, not the access string: a bad step ends the walk.
 */
static int add_relo_names(struct bc_slim_names *n, const struct bc_btf *btf,
			  const struct bc_core_relo *relo)
{
	const char *access = bc_btf_str(btf, relo->access_off);
	uint32_t id = relo->type_id, step = 0;
	const struct btf_type *t;
	int err = 0;

	t = skip_named_mods(n, btf, &id, &err);
	if (!t || err)
		return err;
	err = add_essential(n, bc_btf_str(btf, t->name_off));
	while (!err && *access) {
		char *end;
		unsigned long idx = strtoul(access, &end, 10);

		if (end == access)
			break;
		access = *end == ':' ? end + 1 : end;
		if (relo->kind == BPF_CORE_ENUMVAL_EXISTS ||
		    relo->kind == BPF_CORE_ENUMVAL_VALUE) {
			if (btf_kind(t) == BTF_KIND_ENUM && idx < btf_vlen(t))
				err = add_str(n, bc_btf_str(btf, btf_enum(t)[idx].name_off));
			else if (btf_kind(t) == BTF_KIND_ENUM64 && idx < btf_vlen(t))
				err = add_str(n, bc_btf_str(btf, btf_enum64(t)[idx].name_off));
			break;
		}
		if (relo->kind > BPF_CORE_FIELD_RSHIFT_U64)
			break;
		if (step++ == 0)	/* the index into the root itself */
			continue;
		if (btf_kind(t) == BTF_KIND_STRUCT || btf_kind(t) == BTF_KIND_UNION) {
			if (idx >= btf_vlen(t))
				break;
			err = add_str(n, bc_btf_str(btf, btf_members(t)[idx].name_off));
			id = btf_members(t)[idx].type;
		} else if (btf_kind(t) == BTF_KIND_ARRAY) {
			id = btf_array(t)->type;
		} else {
			break;
		}
		t = skip_named_mods(n, btf, &id, &err);
		if (!t || err)
			break;
		if (!err)
			err = add_essential(n, bc_btf_str(btf, t->name_off));
	}
	return err;
}

/* The names an object's BTF and relocations give (see the top). */
static int add_object_names(struct bc_slim_names *n,
			    const struct bc_bpf_object *obj)
{
	const struct bc_btf *btf = obj->btf;
	uint32_t i, j;
	int err = 0;

	for (i = 0; i < btf->nr_types && !err; i++) {
		const struct btf_type *t = bc_btf_local(btf, i);
		const char *name = bc_btf_str(btf, t->name_off);

		switch (btf_kind(t)) {
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION:
		case BTF_KIND_TYPEDEF:
			err = add_str(n, name);
			break;
		case BTF_KIND_ENUM:
		case BTF_KIND_ENUM64:
			err = add_str(n, name);
			for (j = 0; !*name && !err && j < btf_vlen(t); j++)
				err = add_str(n, bc_btf_str(btf, btf_kind(t) == BTF_KIND_ENUM ?
						  btf_enum(t)[j].name_off :
						  btf_enum64(t)[j].name_off));
			break;
		case BTF_KIND_FUNC:
			if (btf_vlen(t) == BTF_FUNC_EXTERN)	/* vlen: linkage */
				err = add_str(n, name);
			break;
		default:
			break;
		}
	}
	for (i = 0; i < obj->nr_sections && !err; i++)
		for (j = 0; j < obj->sections[i].nr_relos && !err; j++)
			err = add_relo_names(n, btf, &obj->sections[i].relos[j]);
	return err;
}

int bc_slim_names_each(const struct bc_slim_names *names,
		       int (*fn)(void *ctx, const char *name), void *ctx)
{
	uint32_t off = 0;
	int ret;

	while (off < names->set.len) {
		const char *s = names->set.buf + off;

		off += strlen(s) + 1;
		if (*s && (ret = fn(ctx, s)))
			return ret;
	}
	return 0;
}

void bc_slim_names_free(struct bc_slim_names *names)
{
	if (!names)
		return;
	bc_strset_deinit(&names->set);
	free(names);
}

/* An include directory (-I): one that exists, or an error naming it. */
static int check_include_dir(const char *dir, const struct bc_log *log)
{
	struct stat st;
	int err;

	if (stat(dir, &st)) {
		err = errno;
		return bc_log_error(log, -err, "%s: include directory (-I): %s",
				    dir, strerror(err));
	}
	if (!S_ISDIR(st.st_mode))
		return bc_log_error(log, -ENOTDIR,
				    "%s: include directory (-I) is not a directory",
				    dir);
	return 0;
}

int bc_slim_names_read(const struct bc_slim_request *req,
		       struct bc_slim_names **out, const struct bc_log *log)
{
	struct bc_slim_names *n = calloc(1, sizeof(*n));
	uint32_t off;
	size_t i;
	int err;

	if (!n)
		return bc_log_error(log, -ENOMEM, "slim header: out of memory");
	err = bc_strset_init(&n->set, NULL, 0);
	if (err) {
		bc_strset_deinit(&n->set);	/* what a failed init holds */
		free(n);
		return bc_log_error(log, err, "slim header: out of memory");
	}
	for (i = 0; i < req->nr_include_dirs && !err; i++)
		err = check_include_dir(req->include_dirs[i], log);
	for (i = 0; i < req->nr_sources && !err; i++)
		err = bc_c_names_read(req->sources[i], req->include_dirs,
				      req->nr_include_dirs, &n->set, log);
	if (!err && (err = bc_c_names_add_iterators(&n->set)))
		bc_log_error(log, err, "slim header: out of memory");
	for (i = 0; i < req->nr_objects && !err; i++) {
		struct bc_bpf_object obj = { 0 };

		/* one libbpf 1.1 refuses at open still names its types */
		err = bc_bpf_object_load_any(req->objects[i], &obj, log);
		if (!err && !obj.btf)
			err = bc_log_error(log, -EINVAL,
					   "%s: no .BTF section (compile with clang -g)",
					   req->objects[i]);
		else if (!err && ((err = add_object_names(n, &obj)) ||
				  (err = bc_c_names_add_libbpf(&n->set))))
			bc_log_error(log, err, "%s: out of memory", req->objects[i]);
		bc_bpf_object_deinit(&obj);
	}
	if (err) {
		bc_slim_names_free(n);
		return err;
	}
	for (off = 0; off < n->set.len; off += strlen(n->set.buf + off) + 1)
		filter_add(&n->filter, n->set.buf + off);
	*out = n;
	return 0;
}

/* ---- selection ---------------------------------------------------------- */

struct pending {
	uint32_t id;
	uint8_t reach;
};

struct slim {
	const struct btf *full;
	const struct bc_slim_names *names;
	uint32_t nr_ids;		/* btf__type_cnt(full) */
	uint8_t *reached;		/* [nr_ids] bit 1 << enum reach */
	struct pending *stack;
	size_t nr_stack, cap_stack;
	uint32_t *func_tags;		/* DECL_TAGs of FUNCs (component -1) */
	size_t nr_func_tags, cap_func_tags;
	int err;
};

static void push(struct slim *s, uint32_t id, enum reach reach)
{
	if (!id || (s->reached[id] & (1u << reach)) || s->err)
		return;
	if (s->nr_stack == s->cap_stack) {
		size_t cap = s->cap_stack ? 2 * s->cap_stack : 1024;
		struct pending *grown = realloc(s->stack, cap * sizeof(*grown));

		if (!grown) {
			s->err = -ENOMEM;
			return;
		}
		s->stack = grown;
		s->cap_stack = cap;
	}
	s->stack[s->nr_stack++] = (struct pending){ id, reach };
}

static bool named(const struct slim *s, uint32_t name_off)
{
	return filtered_find(&s->names->filter, &s->names->set,
			     btf__name_by_offset(s->full, name_off)) >= 0;
}

/*
 * Whether a member of struct or union t, or of its anonymous members,
 * has a name of the program. depth bounds crafted anonymous nesting.
 */
static bool has_named_member(const struct slim *s, const struct btf_type *t,
			     int depth)
{
	const struct btf_member *m = btf_members(t);
	uint32_t j;

	for (j = 0; j < btf_vlen(t); j++, m++) {
		const struct btf_type *mt;

		if (m->name_off) {
			if (named(s, m->name_off))
				return true;
			continue;
		}
		mt = btf__type_by_id(s->full, m->type);
		while (mt && (btf_is_mod(mt) || btf_is_typedef(mt)))
			mt = btf__type_by_id(s->full, mt->type);
		if (mt && btf_is_composite(mt) && depth < 32 &&
		    has_named_member(s, mt, depth + 1))
			return true;
	}
	return false;
}

/* What lies past a pointer reached as reach. */
static enum reach past_pointer(enum reach reach)
{
	switch (reach) {
	case REACH_MEMBER:
		return REACH_MEMBER_PTR;
	case REACH_NAMED_MEMBER:
		return REACH_NAMED_PTR;
	default:
		return reach;
	}
}

/* Takes the closure of what is pending (see the top of this file). */
static void close_needs(struct slim *s)
{
	while (s->nr_stack && !s->err) {
		struct pending p = s->stack[--s->nr_stack];
		const struct btf_type *t = btf__type_by_id(s->full, p.id);
		uint8_t *reached = &s->reached[p.id];
		uint32_t j;

		if (*reached & (1u << p.reach))
			continue;
		switch (btf_kind(t)) {
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION:
			if (t->name_off &&
			    (p.reach == REACH_MEMBER_PTR ||
			     (p.reach == REACH_NAMED_PTR && !has_named_member(s, t, 0)))) {
				*reached |= 1u << p.reach;	/* a FWD, so far */
				break;
			}
			/* the definition: no other way to reach it matters */
			*reached = REACHED_ALL;
			for (j = 0; j < btf_vlen(t); j++) {
				const struct btf_member *m = btf_members(t) + j;

				push(s, m->type, named(s, m->name_off) ?
					 REACH_NAMED_MEMBER : REACH_MEMBER);
			}
			break;
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_CONST:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
			*reached |= 1u << p.reach;
			push(s, t->type, p.reach);
			break;
		case BTF_KIND_PTR:
			*reached |= 1u << p.reach;
			push(s, t->type, past_pointer(p.reach));
			break;
		case BTF_KIND_ARRAY:
			*reached = REACHED_ALL;
			push(s, btf_array(t)->type, REACH_PLAIN);
			push(s, btf_array(t)->index_type, REACH_PLAIN);
			break;
		case BTF_KIND_FUNC_PROTO:
			*reached = REACHED_ALL;
			push(s, t->type, REACH_PLAIN);
			for (j = 0; j < btf_vlen(t); j++)
				push(s, btf_params(t)[j].type, REACH_PLAIN);
			break;
		case BTF_KIND_FUNC:
		case BTF_KIND_VAR:
		case BTF_KIND_DECL_TAG:
			*reached = REACHED_ALL;
			push(s, t->type, REACH_PLAIN);
			break;
		case BTF_KIND_DATASEC:
			*reached = REACHED_ALL;
			for (j = 0; j < btf_vlen(t); j++)
				push(s, btf_var_secinfos(t)[j].type, REACH_PLAIN);
			break;
		default:	/* INT, FLOAT, ENUM, ENUM64, FWD: no references */
			*reached = REACHED_ALL;
			break;
		}
	}
}

/* Remembers a function's own DECL_TAG, kept if its FUNC is. */
static void add_func_tag(struct slim *s, uint32_t id)
{
	if (s->nr_func_tags == s->cap_func_tags) {
		size_t cap = s->cap_func_tags ? 2 * s->cap_func_tags : 256;
		uint32_t *grown = realloc(s->func_tags, cap * sizeof(*grown));

		if (!grown) {
			s->err = -ENOMEM;
			return;
		}
		s->func_tags = grown;
		s->cap_func_tags = cap;
	}
	s->func_tags[s->nr_func_tags++] = id;
}

/* The seeds: what the program names (see the top of this file). */
static void push_seeds(struct slim *s)
{
	uint32_t id, j;

	for (id = 1; id < s->nr_ids; id++) {
		const struct btf_type *t = btf__type_by_id(s->full, id);

		switch (btf_kind(t)) {
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION:
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_FWD:
			if (named(s, t->name_off))
				push(s, id, REACH_PLAIN);
			break;
		case BTF_KIND_ENUM:
			if (named(s, t->name_off))
				push(s, id, REACH_PLAIN);
			for (j = 0; j < btf_vlen(t); j++)
				if (named(s, btf_enum(t)[j].name_off)) {
					push(s, id, REACH_PLAIN);
					break;
				}
			break;
		case BTF_KIND_ENUM64:
			if (named(s, t->name_off))
				push(s, id, REACH_PLAIN);
			for (j = 0; j < btf_vlen(t); j++)
				if (named(s, btf_enum64(t)[j].name_off)) {
					push(s, id, REACH_PLAIN);
					break;
				}
			break;
		case BTF_KIND_DECL_TAG:
			if (btf_decl_tag(t)->component_idx != -1 ||
			    !btf_is_func(btf__type_by_id(s->full, t->type)))
				break;
			/* a kfunc: its FUNC carries "bpf_kfunc" */
			if (!strcmp(btf__name_by_offset(s->full, t->name_off), "bpf_kfunc") &&
			    named(s, btf__type_by_id(s->full, t->type)->name_off))
				push(s, t->type, REACH_PLAIN);
			add_func_tag(s, id);
			break;
		default:
			break;
		}
	}
}

/* 0: no namespace; 1: tags (struct, union, enum, FWD); 2: typedefs. */
static int name_space(const struct btf_type *t)
{
	if (!t->name_off)
		return 0;
	switch (btf_kind(t)) {
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
	case BTF_KIND_FWD:
		return 1;
	case BTF_KIND_TYPEDEF:
		return 2;
	default:
		return 0;
	}
}

/* A type whose name is kept: ns, and the name's offset in its set. */
struct name_match {
	uint32_t id;
	int ns;
	int64_t off;
};

/* In a level: more than one struct, union or FWD has the name. */
#define SHARED_TAG (1u << NR_REACHES)

/*
 * Gives every type the ways of being reached that any type of its name
 * and namespace has (see the top of this file); when several structs,
 * unions or FWDs share a name, all of them whole: btf_dump writes a FWD
 * without the ___N suffix it gives the definitions, so a FWD of the
 * second "struct foo" would be spelled foo, not foo___2. Returns true
 * when it raised one (the closure must run again).
 */
static bool level_same_names(struct slim *s)
{
	struct bc_strset kept[2] = { { 0 }, { 0 } };
	struct name_filter *filter = calloc(2, sizeof(*filter));
	uint8_t *level[2] = { NULL, NULL }, *shared = NULL;
	struct name_match *matches = NULL;
	size_t nr_matches = 0, cap_matches = 0, i;
	bool raised = false;
	uint32_t id;
	int ns, pass, r;

	for (ns = 0; ns < 2; ns++)
		if (bc_strset_init(&kept[ns], NULL, 0) || !filter)
			s->err = -ENOMEM;
	/* pass 0: the names kept; pass 1: how each is reached */
	for (pass = 0; pass < 2 && !s->err; pass++) {
		for (id = 1; id < s->nr_ids && !s->err; id++) {
			const struct btf_type *t;
			const char *name;
			int64_t off;

			if (!s->reached[id])
				continue;
			t = btf__type_by_id(s->full, id);
			ns = name_space(t) - 1;
			if (ns < 0)
				continue;
			name = btf__name_by_offset(s->full, t->name_off);
			if (!pass) {
				if (bc_strset_add(&kept[ns], name) < 0)
					s->err = -ENOMEM;
				filter_add(&filter[ns], name);
				continue;
			}
			off = bc_strset_find(&kept[ns], name);
			level[ns][off] |= s->reached[id];
		}
		for (ns = 0; !pass && ns < 2 && !s->err; ns++)
			if (!(level[ns] = calloc(kept[ns].len + 1, 1)))
				s->err = -ENOMEM;
		if (!pass && !s->err && !(shared = calloc(kept[0].len + 1, 1)))
			s->err = -ENOMEM;
	}
	/* pass 2: every type of a kept name, and how many share each tag */
	for (id = 1; id < s->nr_ids && !s->err; id++) {
		const struct btf_type *t = btf__type_by_id(s->full, id);
		int64_t off;

		ns = name_space(t) - 1;
		if (ns < 0)
			continue;
		off = filtered_find(&filter[ns], &kept[ns],
				    btf__name_by_offset(s->full, t->name_off));
		if (off < 0)
			continue;
		if (nr_matches == cap_matches) {
			size_t cap = cap_matches ? 2 * cap_matches : 256;
			struct name_match *grown = realloc(matches, cap * sizeof(*grown));

			if (!grown) {
				s->err = -ENOMEM;
				break;
			}
			matches = grown;
			cap_matches = cap;
		}
		matches[nr_matches++] = (struct name_match){ id, ns, off };
		if (!ns && level[ns][off] != REACHED_ALL && ++shared[off] > 1)
			level[ns][off] |= SHARED_TAG;
	}
	for (i = 0; i < nr_matches && !s->err; i++) {
		const struct name_match *m = &matches[i];
		uint8_t want = level[m->ns][m->off];

		/* FWDs are not told apart by ___N: keep such a name whole */
		if (want & SHARED_TAG) {
			if (s->reached[m->id] != REACHED_ALL) {
				push(s, m->id, REACH_PLAIN);
				raised = true;
			}
			continue;
		}
		for (r = 0; r < NR_REACHES; r++)
			if ((want & ~s->reached[m->id]) & (1u << r)) {
				push(s, m->id, r);
				raised = true;
			}
	}
	for (ns = 0; ns < 2; ns++) {
		bc_strset_deinit(&kept[ns]);
		free(level[ns]);
	}
	free(shared);
	free(matches);
	free(filter);
	return raised && !s->err;
}

/*
 * Copies the kept types into *out in full's order: a struct or union
 * reached only past a member's pointer as a FWD, every other type as it is, its references
 * renumbered. Returns 0, -ENOMEM, or -EINVAL for a reference to a type
 * not kept (a bug in the closure, said in a message).
 */
static int copy_kept(struct slim *s, struct btf **out, uint32_t **from,
		     const struct bc_log *log)
{
	uint32_t *new_id = calloc(s->nr_ids, sizeof(*new_id));
	struct btf *slim = btf__new_empty();
	uint32_t id, j;
	int err = 0;

	if (!new_id || !slim) {
		err = -ENOMEM;
		goto out;
	}
	for (id = 1; id < s->nr_ids && !err; id++) {
		const struct btf_type *t;
		int got;

		if (!s->reached[id])
			continue;
		t = btf__type_by_id(s->full, id);
		if (btf_is_composite(t) && s->reached[id] != REACHED_ALL)
			got = btf__add_fwd(slim, btf__name_by_offset(s->full, t->name_off),
					   btf_is_union(t) ? BTF_FWD_UNION : BTF_FWD_STRUCT);
		else
			got = btf__add_type(slim, s->full, t);
		if (got < 0)
			err = got;
		else
			new_id[id] = got;
	}
	for (id = 1; id < s->nr_ids && !err; id++) {
		struct btf_type *t;
		uint32_t *words, kind;

		if (!new_id[id])
			continue;
		/* the new BTF is writable; libbpf hands out const pointers */
		t = (struct btf_type *)btf__type_by_id(slim, new_id[id]);
		kind = btf_kind(t);
		if (!bc_kind_valid(kind))
			continue;
		words = (uint32_t *)t;
		for (j = 0; j < bc_type_words(t); j++) {
			if (bc_word_class(kind, j) != BC_WORD_REF || !words[j])
				continue;
			if (words[j] >= s->nr_ids || !new_id[words[j]]) {
				err = bc_log_error(log, -EINVAL,
						   "slim header: type [%u] refers to [%u], which was not kept",
						   id, words[j]);
				break;
			}
			words[j] = new_id[words[j]];
		}
	}
	if (!err && from) {
		*from = calloc(btf__type_cnt(slim), sizeof(**from));
		for (id = 1; *from && id < s->nr_ids; id++)
			if (new_id[id])
				(*from)[new_id[id]] = id;
		if (!*from)
			err = -ENOMEM;
	}
out:
	free(new_id);
	if (err) {
		btf__free(slim);
		return err;
	}
	*out = slim;
	return 0;
}

int bc_slim_select(const struct btf *full, const struct bc_slim_names *names,
		   struct btf **out, const struct bc_log *log)
{
	return bc_slim_select_from(full, names, out, NULL, log);
}

int bc_slim_select_from(const struct btf *full,
			const struct bc_slim_names *names, struct btf **out,
			uint32_t **from, const struct bc_log *log)
{
	struct slim s = {
		.full = full,
		.names = names,
		.nr_ids = btf__type_cnt(full),
	};
	size_t i;
	int err;

	s.reached = calloc(s.nr_ids, 1);
	if (!s.reached)
		return bc_log_error(log, -ENOMEM, "slim header: out of memory");
	push_seeds(&s);
	close_needs(&s);
	while (!s.err && level_same_names(&s))
		close_needs(&s);
	/* the tags of the kfuncs kept: "bpf_kfunc", "bpf_fastcall", ... */
	for (i = 0; i < s.nr_func_tags && !s.err; i++) {
		uint32_t tag = s.func_tags[i];

		if (s.reached[btf__type_by_id(full, tag)->type])
			push(&s, tag, REACH_PLAIN);
	}
	close_needs(&s);
	err = s.err;
	if (!err)
		err = copy_kept(&s, out, from, log);
	if (err && err != -EINVAL)
		bc_log_error(log, err, "slim header: cannot make the sub-BTF: %s",
			     strerror(-err));
	free(s.reached);
	free(s.stack);
	free(s.func_tags);
	return err;
}

int bc_slim_btf(const struct btf *full, const struct bc_slim_request *req,
		struct btf **out, const struct bc_log *log)
{
	struct bc_slim_names *names = NULL;
	int err = bc_slim_names_read(req, &names, log);

	if (!err)
		err = bc_slim_select(full, names, out, log);
	bc_slim_names_free(names);
	return err;
}
