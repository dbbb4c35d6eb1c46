// SPDX-License-Identifier: GPL-2.0-only
/*
 * Property tests: canon on random BTF graphs.
 *
 * The generator builds a random, C-like and kernel-valid BTF from a seed:
 * INTs and FLOATs, enums, named and anonymous structs and unions (with
 * bitfields) whose pointers form cycles, FWDs that share a name with a
 * struct, const/volatile chains, typedefs, arrays, function protos and
 * FUNCs, DATASECs with VARs, decl tags. It first builds a model (struct
 * gen: one struct gen_type per id, references by id) and only then emits
 * it with libbpf's btf__add_*() in id order; forward references by id are
 * fine for libbpf, so struct members can point at structs made later.
 *
 * Validity rules the model keeps (the kernel checks them all):
 *   - cycles only through pointers to structs/unions; by-value containment
 *     only of structs already complete, so it forms a DAG;
 *   - every member lies inside its struct, naturally aligned, bitfields
 *     only on plain INTs, union members at offset 0;
 *   - modifier chains (typedef/const/volatile) at most 4 deep;
 *   - a FUNC's proto names all its parameters; linkage static or global;
 *   - DATASEC entries in offset order, each at least its VAR's type size;
 *   - names are C identifiers (sections: ".data" ...).
 *
 * Planted facts the properties check:
 *   - dups: pairs of ids that are structurally identical (bisimilar). A
 *     struct's reachable subgraph is copied with fresh ids; an "unrolled"
 *     copy makes two copies whose references to the root cross over, so a
 *     cycle of length k becomes one of length 2k -- equal as infinite trees,
 *     so canon must merge all three.
 *   - distinct: pairs of VARs equal in content (name, type, linkage) that
 *     sit in different DATASEC entries, so canon must keep them apart.
 *
 * Properties, one TCase each, over many seeds (the loop index is the seed):
 *   permute	canon(permute(x)) == canon(x), both orders, several perms
 *   idempotent	canon(canon(x)) == canon(x), also across orders
 *   merged	planted duplicates share an output id; fewer types out
 *   content	id_map is a functional bisimulation onto the output
 *   var_identity	planted equal VARs stay distinct
 *   split	the same over a random base, base ids untouched
 *   resolve_fwds	with FWD resolution on (encode's mode): permute
 *		invariance, idempotence, a chain the old rule needed three
 *		passes for, and a cycle of FWDs
 *   parallel	canon's parallel steps (the first sort, refinement
 *		rounds) cut into many tasks on several threads give the
 *		bytes of one task on one thread, FWDs resolved or not
 *   libbpf	btf__new()/btf__parse_raw_split() accept every output
 *   kernel	BPF_BTF_LOAD accepts inputs and outputs, FWDs resolved or
 *		not (skips with a message where the syscall is not allowed)
 *   local_order	outputs are in local-key order (bc_order_cmp_local),
 *		also for keys built to differ late and at chunk edges
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>

#include "suites.h"
#include "testutil.h"
#include "../canon/btf_kinds.h"

#define PROPS_TIMEOUT	120	/* seconds per loop iteration, generous for asan */
#define NR_GRAPHS	200
#define NR_SPLIT_GRAPHS	100
#define NR_KERNEL_GRAPHS 40
#define NR_PERMS	4

/* xorshift64*: a small seeded PRNG, state passed explicitly. */
struct prng {
	uint64_t s;
};

static uint64_t prng_next(struct prng *r)
{
	uint64_t x = r->s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	r->s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

static void prng_seed(struct prng *r, uint64_t seed)
{
	r->s = seed * 0x9E3779B97F4A7C15ULL + 0x243F6A8885A308D3ULL;
	if (!r->s)
		r->s = 1;
	for (int i = 0; i < 4; i++)
		prng_next(r);
}

/* Uniform-ish in [0, n); 0 when n is 0. */
static uint32_t pick(struct prng *r, uint32_t n)
{
	return n ? (uint32_t)(prng_next(r) % n) : 0;
}

static bool chance(struct prng *r, uint32_t percent)
{
	return pick(r, 100) < percent;
}

/* The model. */

#define GEN_NAME_LEN 32
#define GEN_MAX_MODIFIER_DEPTH 4
#define GEN_MAX_BY_VALUE_SIZE 512
#define GEN_MAX_CLONE 80

struct gen_entry {
	char name[GEN_NAME_LEN];	/* member, param, enumerator; "" anon */
	uint32_t type;			/* member/param type, DATASEC var */
	uint32_t bit_off;		/* member bit offset; DATASEC offset */
	uint32_t bit_size;		/* bitfield size; DATASEC entry size */
	uint64_t value;			/* enumerator */
};

struct gen_type {
	uint32_t kind;
	char name[GEN_NAME_LEN];
	uint32_t size;		/* INT, FLOAT, ENUM*, STRUCT, UNION, DATASEC */
	uint32_t type;		/* pointee, target, elem, return type, ... */
	uint32_t index_type;	/* ARRAY */
	uint32_t nelems;	/* ARRAY */
	uint32_t encoding;	/* INT */
	uint32_t linkage;	/* FUNC, VAR */
	int component_idx;	/* DECL_TAG */
	bool is_signed;		/* ENUM64 */
	bool fwd_union;		/* FWD */
	bool complete;		/* STRUCT/UNION: members and size known */
	uint32_t depth;		/* modifier chain depth (TYPEDEF/CONST/...) */
	struct gen_entry *entries;
	uint32_t nr_entries, cap_entries;
};

struct id_pair {
	uint32_t a, b;
};

struct pair_list {
	struct id_pair *items;
	uint32_t nr, cap;
};

struct gen {
	struct prng rng;
	struct gen_type *types;	/* [nr]; types[0] is void */
	uint32_t nr, cap;
	uint32_t first;		/* first id of the BTF being generated */
	struct pair_list dups;	/* must merge */
	struct pair_list distinct; /* VARs that must stay apart */
	uint32_t seq;		/* for unique names */
};

static void pair_add(struct pair_list *l, uint32_t a, uint32_t b)
{
	if (l->nr == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 32;
		l->items = realloc(l->items, l->cap * sizeof(*l->items));
		ck_assert_ptr_nonnull(l->items);
	}
	l->items[l->nr++] = (struct id_pair){ a, b };
}

static void gen_init(struct gen *g, uint64_t seed)
{
	memset(g, 0, sizeof(*g));
	prng_seed(&g->rng, seed);
	g->cap = 64;
	g->types = calloc(g->cap, sizeof(*g->types));
	ck_assert_ptr_nonnull(g->types);
	g->nr = 1;		/* void */
	g->first = 1;
}

static void gen_deinit(struct gen *g)
{
	for (uint32_t i = 0; i < g->nr; i++)
		free(g->types[i].entries);
	free(g->types);
	free(g->dups.items);
	free(g->distinct.items);
	memset(g, 0, sizeof(*g));
}

/* Appends a zeroed type of kind; returns its id. */
static uint32_t gen_add(struct gen *g, uint32_t kind, const char *name)
{
	struct gen_type *t;

	if (g->nr == g->cap) {
		g->cap *= 2;
		g->types = realloc(g->types, g->cap * sizeof(*g->types));
		ck_assert_ptr_nonnull(g->types);
	}
	t = &g->types[g->nr];
	memset(t, 0, sizeof(*t));
	t->kind = kind;
	snprintf(t->name, sizeof(t->name), "%s", name ? name : "");
	return g->nr++;
}

static struct gen_entry *gen_add_entry(struct gen *g, uint32_t id)
{
	struct gen_type *t = &g->types[id];

	if (t->nr_entries == t->cap_entries) {
		t->cap_entries = t->cap_entries ? t->cap_entries * 2 : 4;
		t->entries = realloc(t->entries,
				     t->cap_entries * sizeof(*t->entries));
		ck_assert_ptr_nonnull(t->entries);
	}
	memset(&t->entries[t->nr_entries], 0, sizeof(*t->entries));
	return &t->entries[t->nr_entries++];
}

static bool is_modifier(uint32_t kind)
{
	return kind == BTF_KIND_TYPEDEF || kind == BTF_KIND_CONST ||
	       kind == BTF_KIND_VOLATILE || kind == BTF_KIND_RESTRICT;
}

/* Follows typedefs and qualifiers; returns the id they end at. */
static uint32_t gen_resolve(const struct gen *g, uint32_t id)
{
	while (id && is_modifier(g->types[id].kind))
		id = g->types[id].type;
	return id;
}

/* Size of id used by value (member, element, variable), or -1. */
static int64_t gen_sizeof(const struct gen *g, uint32_t id)
{
	const struct gen_type *t;
	int64_t elem;

	id = gen_resolve(g, id);
	if (!id)
		return -1;
	t = &g->types[id];
	switch (t->kind) {
	case BTF_KIND_INT:
	case BTF_KIND_FLOAT:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		return t->size;
	case BTF_KIND_PTR:
		return 8;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return t->complete ? (int64_t)t->size : -1;
	case BTF_KIND_ARRAY:
		elem = gen_sizeof(g, t->type);
		return elem < 0 ? -1 : elem * t->nelems;
	default:
		return -1;
	}
}

/* Natural alignment in bytes of a by-value use of id. */
static uint32_t gen_alignof(const struct gen *g, uint32_t id)
{
	const struct gen_type *t = &g->types[gen_resolve(g, id)];

	switch (t->kind) {
	case BTF_KIND_INT:
	case BTF_KIND_FLOAT:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		return t->size >= 8 ? 8 : t->size;
	case BTF_KIND_PTR:
		return 8;
	default:
		return 1;
	}
}

/* A random existing id among g->types[from, nr) whose kind is in mask. */
static uint32_t gen_pick_kind(struct gen *g, uint32_t kind_mask, uint32_t from)
{
	uint32_t n = g->nr - from, start, i;

	if (!n)
		return 0;
	start = pick(&g->rng, n);
	for (i = 0; i < n; i++) {
		uint32_t id = from + (start + i) % n;

		if (kind_mask & (1u << g->types[id].kind))
			return id;
	}
	return 0;
}

#define KM(k) (1u << BTF_KIND_##k)
#define KM_SCALAR (KM(INT) | KM(FLOAT) | KM(ENUM) | KM(ENUM64))
#define KM_VALUE (KM_SCALAR | KM(PTR) | KM(STRUCT) | KM(UNION) | KM(ARRAY) | \
		  KM(TYPEDEF) | KM(CONST) | KM(VOLATILE))

/* A plain INT of the model (every graph has some). */
static uint32_t gen_pick_int(struct gen *g)
{
	uint32_t id = gen_pick_kind(g, KM(INT), 1);

	ck_assert_uint_ne(id, 0);
	return id;
}

/* A random type usable by value; arrays may be made on the way. */
static uint32_t gen_value_type(struct gen *g, bool allow_new_array)
{
	for (int tries = 0; tries < 30; tries++) {
		uint32_t id = gen_pick_kind(g, KM_VALUE, 1);
		int64_t size = id ? gen_sizeof(g, id) : -1;

		if (size < 0 || size > GEN_MAX_BY_VALUE_SIZE)
			continue;
		if (allow_new_array && chance(&g->rng, 12)) {
			uint32_t arr = gen_add(g, BTF_KIND_ARRAY, NULL);
			struct gen_type *a = &g->types[arr];

			a->type = id;
			a->index_type = gen_pick_int(g);
			a->nelems = pick(&g->rng, 5);
			return arr;
		}
		return id;
	}
	return gen_pick_int(g);
}

static const char *const struct_names[] = {
	"task", "file", "inode", "page", "sock", "list_head", "rb_node",
	"mutex", "work", "timer", "dentry", "rq",
};
static const char *const member_names[] = {
	"next", "prev", "len", "flags", "data", "lock", "count", "ops",
};
static const char *const typedef_names[] = {
	"u8", "u32", "size_t", "pid_t", "handler_t", "gfp_t",
};
static const char *const var_names[] = {
	"jiffies", "counter", "state", "table", "config",
};
static const char *const sec_names[] = { ".data", ".bss", ".rodata" };

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static void gen_struct_name(struct gen *g, char *buf, size_t size)
{
	const char *base = struct_names[pick(&g->rng, ARRAY_LEN(struct_names))];

	if (chance(&g->rng, 50))
		snprintf(buf, size, "%s", base);
	else
		snprintf(buf, size, "%s%u", base, pick(&g->rng, 4));
}

static void gen_scalars(struct gen *g, uint32_t target)
{
	static const struct {
		const char *name;
		uint32_t size, encoding;
	} ints[] = {
		{ "char", 1, BTF_INT_SIGNED },
		{ "unsigned char", 1, 0 },
		{ "_Bool", 1, BTF_INT_BOOL },
		{ "short", 2, BTF_INT_SIGNED },
		{ "int", 4, BTF_INT_SIGNED },
		{ "unsigned int", 4, 0 },
		{ "long", 8, BTF_INT_SIGNED },
		{ "long unsigned int", 8, 0 },
	};
	static const struct {
		const char *name;
		uint32_t size;
	} floats[] = { { "float", 4 }, { "double", 8 }, { "long double", 16 } };
	uint32_t i, n, id, v;

	n = 3 + pick(&g->rng, 6);
	for (i = 0; i < n; i++) {
		uint32_t k = pick(&g->rng, ARRAY_LEN(ints));

		id = gen_add(g, BTF_KIND_INT, ints[k].name);
		g->types[id].size = ints[k].size;
		g->types[id].encoding = ints[k].encoding;
	}
	n = pick(&g->rng, 3);
	for (i = 0; i < n; i++) {
		uint32_t k = pick(&g->rng, ARRAY_LEN(floats));

		id = gen_add(g, BTF_KIND_FLOAT, floats[k].name);
		g->types[id].size = floats[k].size;
	}
	n = 1 + target / 50;
	for (i = 0; i < n; i++) {
		static const uint32_t sizes[] = { 1, 2, 4, 4, 4, 8 };
		bool e64 = chance(&g->rng, 25);
		char name[GEN_NAME_LEN] = "";
		uint32_t nr_vals = 1 + pick(&g->rng, 4);

		if (chance(&g->rng, 75))
			snprintf(name, sizeof(name), "%s_kind%u",
				 struct_names[pick(&g->rng, ARRAY_LEN(struct_names))],
				 pick(&g->rng, 3));
		id = gen_add(g, e64 ? BTF_KIND_ENUM64 : BTF_KIND_ENUM, name);
		g->types[id].size = e64 ? 8 : sizes[pick(&g->rng, ARRAY_LEN(sizes))];
		g->types[id].is_signed = e64 && chance(&g->rng, 50);
		for (v = 0; v < nr_vals; v++) {
			struct gen_entry *e = gen_add_entry(g, id);

			snprintf(e->name, sizeof(e->name), "E%u_%u",
				 pick(&g->rng, 3), v);
			if (e64)
				e->value = chance(&g->rng, 50) ?
					   pick(&g->rng, 10) :
					   (uint64_t)pick(&g->rng, 7) << 40 | v;
			else
				e->value = (uint64_t)(int64_t)
					   ((int32_t)pick(&g->rng, 20) - 5);
		}
	}
}

/* Struct and union shells: named, sized later by gen_fill(). */
static void gen_shells(struct gen *g, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		char name[GEN_NAME_LEN] = "";
		bool is_union = chance(&g->rng, 20);

		if (chance(&g->rng, 80))
			gen_struct_name(g, name, sizeof(name));
		gen_add(g, is_union ? BTF_KIND_UNION : BTF_KIND_STRUCT, name);
	}
}

static void gen_fwds(struct gen *g, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		uint32_t like = gen_pick_kind(g, KM(STRUCT) | KM(UNION), 1);
		char name[GEN_NAME_LEN];
		bool fwd_union = false;
		uint32_t id;

		if (like && g->types[like].name[0] && chance(&g->rng, 70)) {
			snprintf(name, sizeof(name), "%s", g->types[like].name);
			fwd_union = g->types[like].kind == BTF_KIND_UNION;
		} else {
			gen_struct_name(g, name, sizeof(name));
			fwd_union = chance(&g->rng, 20);
		}
		id = gen_add(g, BTF_KIND_FWD, name);
		g->types[id].fwd_union = fwd_union;
	}
}

/* A pointer to something that exists (or a shell); maybe through a tag. */
static uint32_t gen_ptr(struct gen *g)
{
	uint32_t to = 0, id;

	if (!chance(&g->rng, 8))
		to = gen_pick_kind(g, KM_VALUE | KM(FWD) | KM(FUNC_PROTO), 1);
	if (to && chance(&g->rng, 8) &&
	    (g->types[to].kind == BTF_KIND_STRUCT ||
	     g->types[to].kind == BTF_KIND_INT)) {
		uint32_t tag = gen_add(g, BTF_KIND_TYPE_TAG,
				       chance(&g->rng, 50) ? "user" : "rcu");

		g->types[tag].type = to;
		to = tag;
	}
	id = gen_add(g, BTF_KIND_PTR, NULL);
	g->types[id].type = to;
	return id;
}

static void gen_modifier(struct gen *g)
{
	static const uint32_t kinds[] = {
		BTF_KIND_CONST, BTF_KIND_VOLATILE, BTF_KIND_TYPEDEF,
		BTF_KIND_TYPEDEF,
	};
	uint32_t kind = kinds[pick(&g->rng, ARRAY_LEN(kinds))];
	uint32_t mask = KM_VALUE | (kind == BTF_KIND_TYPEDEF ?
				    KM(FWD) | KM(FUNC_PROTO) : 0);
	uint32_t to = 0, id, depth = 0;
	char name[GEN_NAME_LEN] = "";

	for (int tries = 0; tries < 10; tries++) {
		to = gen_pick_kind(g, mask, 1);
		depth = to ? g->types[to].depth : 0;
		if (depth < GEN_MAX_MODIFIER_DEPTH)
			break;
		to = 0;
	}
	if (!to)
		to = gen_pick_int(g);
	if (kind == BTF_KIND_TYPEDEF)
		snprintf(name, sizeof(name), "%s",
			 typedef_names[pick(&g->rng, ARRAY_LEN(typedef_names))]);
	id = gen_add(g, kind, name);
	g->types[id].type = to;
	g->types[id].depth = depth + 1;
}

/*
 * A FUNC_PROTO: named params for a FUNC, anonymous ones (sometimes) for
 * function pointers; a vararg tail now and then.
 */
static uint32_t gen_proto(struct gen *g, bool named)
{
	uint32_t ret = 0, id, n = pick(&g->rng, 4), i, type;

	if (chance(&g->rng, 70))
		ret = gen_pick_kind(g, KM_SCALAR | KM(PTR) | KM(TYPEDEF), 1);
	if (ret && gen_sizeof(g, ret) < 0)
		ret = 0;
	id = gen_add(g, BTF_KIND_FUNC_PROTO, NULL);
	g->types[id].type = ret;
	for (i = 0; i < n; i++) {
		struct gen_entry *e;

		type = gen_value_type(g, false);
		e = gen_add_entry(g, id);
		e->type = type;
		if (named || chance(&g->rng, 50))
			snprintf(e->name, sizeof(e->name), "%s%u",
				 member_names[pick(&g->rng, ARRAY_LEN(member_names))], i);
	}
	if (n && chance(&g->rng, 10))
		gen_add_entry(g, id);	/* ... */
	return id;
}

/*
 * Lays out the members of a struct or union shell and sizes it.
 *
 * One kernel quirk shapes the layout: in a struct with bitfields (kflag
 * set), btf_enum_check_kflag_member() checks a plain enum member as if it
 * were sizeof(int) bytes wide, so such a struct is made at least 4 bytes
 * longer than the offset of its last enum member.
 */
static void gen_fill(struct gen *g, uint32_t id)
{
	bool is_union = g->types[id].kind == BTF_KIND_UNION, kflag = false;
	uint32_t n = pick(&g->rng, 7), i, size;
	uint64_t bit = 0, end = 0, enum_end = 0;

	for (i = 0; i < n; i++) {
		uint32_t type, bits = 0, member_kind;
		uint64_t off;
		char name[GEN_NAME_LEN];
		struct gen_entry *e;

		snprintf(name, sizeof(name), "%s%u",
			 member_names[pick(&g->rng, ARRAY_LEN(member_names))], i);
		if (chance(&g->rng, 15)) {
			/* a bitfield on a plain int, at any bit */
			type = gen_pick_int(g);
			bits = 1 + pick(&g->rng, g->types[type].size * 8 - 1);
			off = is_union ? 0 : bit;
			bit = off + bits;
			kflag = true;
		} else {
			uint32_t align;

			type = gen_value_type(g, true);
			size = gen_sizeof(g, type);
			align = gen_alignof(g, type);
			off = (bit + 7) / 8;
			off = is_union ? 0 : (off + align - 1) / align * align * 8;
			bit = off + (uint64_t)size * 8;
			member_kind = g->types[gen_resolve(g, type)].kind;
			if (member_kind == BTF_KIND_ENUM ||
			    member_kind == BTF_KIND_ENUM64)
				enum_end = enum_end > off + 32 ? enum_end : off + 32;
			/* anonymous embedded structs and unions */
			if (chance(&g->rng, 30) &&
			    (g->types[type].kind == BTF_KIND_STRUCT ||
			     g->types[type].kind == BTF_KIND_UNION))
				name[0] = '\0';
		}
		end = bit > end ? bit : end;
		e = gen_add_entry(g, id);
		snprintf(e->name, sizeof(e->name), "%s", name);
		e->type = type;
		e->bit_off = off;
		e->bit_size = bits;
		if (is_union)
			bit = 0;
	}
	if (kflag && enum_end > end)
		end = enum_end;
	size = (end + 7) / 8;
	if (chance(&g->rng, 20))
		size += pick(&g->rng, 8);
	g->types[id].size = size;
	g->types[id].complete = true;
}

static uint32_t gen_var(struct gen *g, const char *name, uint32_t type,
			uint32_t linkage)
{
	uint32_t id = gen_add(g, BTF_KIND_VAR, name);

	g->types[id].type = type;
	g->types[id].linkage = linkage;
	return id;
}

/* Adds var to DATASEC sec at the next free, aligned offset. */
static void gen_sec_add(struct gen *g, uint32_t sec, uint32_t var)
{
	uint32_t type = g->types[var].type;
	uint32_t size = gen_sizeof(g, type), align = gen_alignof(g, type);
	uint32_t off = g->types[sec].size;
	struct gen_entry *e;

	off = (off + align - 1) / align * align;
	e = gen_add_entry(g, sec);
	e->type = var;
	e->bit_off = off;
	e->bit_size = size ? size : 1;
	g->types[sec].size = off + e->bit_size;
}

/*
 * Data sections and their variables. Every section gets at least one
 * variable. A few variables get a twin equal in content (name, type,
 * linkage) in another entry: the planted identity pairs.
 */
static void gen_sections(struct gen *g, uint32_t nr_vars)
{
	uint32_t nr_secs = 1 + pick(&g->rng, ARRAY_LEN(sec_names));
	uint32_t secs[ARRAY_LEN(sec_names)], vars[64], i, nr = 0;
	uint32_t twins = 1 + pick(&g->rng, 2);

	if (nr_vars > ARRAY_LEN(vars) - 2 * twins)
		nr_vars = ARRAY_LEN(vars) - 2 * twins;
	if (nr_vars < nr_secs)
		nr_vars = nr_secs;
	/* the variables first (their types may add arrays), then sections */
	for (i = 0; i < nr_vars; i++) {
		char name[GEN_NAME_LEN];

		snprintf(name, sizeof(name), "%s%u",
			 var_names[pick(&g->rng, ARRAY_LEN(var_names))], g->seq++);
		vars[nr++] = gen_var(g, name, gen_value_type(g, true),
				     pick(&g->rng, 2));
	}
	for (i = 0; i < twins; i++) {
		char name[GEN_NAME_LEN];
		uint32_t type = gen_value_type(g, false), link = pick(&g->rng, 2);
		uint32_t a, b;

		snprintf(name, sizeof(name), "twin%u", i);
		a = gen_var(g, name, type, link);
		b = gen_var(g, name, type, link);
		pair_add(&g->distinct, a, b);
		vars[nr++] = a;
		vars[nr++] = b;
	}
	for (i = 0; i < nr_secs; i++)
		secs[i] = gen_add(g, BTF_KIND_DATASEC, sec_names[i]);
	/* each section gets one, then the rest at random */
	for (i = 0; i < nr; i++)
		gen_sec_add(g, secs[i < nr_secs ? i : pick(&g->rng, nr_secs)],
			    vars[i]);
	for (i = 0; i < nr_secs; i++)
		g->types[secs[i]].size = (g->types[secs[i]].size + 7) / 8 * 8;
}

static void gen_decl_tags(struct gen *g, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		uint32_t to = gen_pick_kind(g, KM(STRUCT) | KM(UNION) | KM(FUNC) |
					       KM(VAR) | KM(TYPEDEF), 1);
		const struct gen_type *t;
		const char *value;
		uint32_t vlen = 0, id;
		int idx = -1;

		if (!to)
			return;
		t = &g->types[to];
		if (t->kind == BTF_KIND_STRUCT || t->kind == BTF_KIND_UNION)
			vlen = t->nr_entries;
		else if (t->kind == BTF_KIND_FUNC)
			vlen = g->types[t->type].nr_entries;
		/* a vararg tail has no name: not a tag target */
		if (t->kind == BTF_KIND_FUNC && vlen &&
		    !g->types[t->type].entries[vlen - 1].type)
			vlen--;
		if (vlen && chance(&g->rng, 50))
			idx = pick(&g->rng, vlen);
		value = chance(&g->rng, 50) ? "noinline" : "user";
		id = gen_add(g, BTF_KIND_DECL_TAG, value);
		g->types[id].type = to;
		g->types[id].component_idx = idx;
		if (chance(&g->rng, 15)) {
			/* an exact duplicate tag */
			uint32_t dup = gen_add(g, BTF_KIND_DECL_TAG, value);

			g->types[dup].type = to;
			g->types[dup].component_idx = idx;
			pair_add(&g->dups, id, dup);
		}
	}
}

/* Addresses of every reference field of t. Returns the count. */
static uint32_t gen_ref_slots(struct gen_type *t, uint32_t **slots)
{
	uint32_t n = 0, i;

	switch (t->kind) {
	case BTF_KIND_PTR:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
	case BTF_KIND_FUNC:
	case BTF_KIND_FUNC_PROTO:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
		slots[n++] = &t->type;
		break;
	case BTF_KIND_ARRAY:
		slots[n++] = &t->type;
		slots[n++] = &t->index_type;
		break;
	default:
		break;
	}
	if (t->kind == BTF_KIND_STRUCT || t->kind == BTF_KIND_UNION ||
	    t->kind == BTF_KIND_FUNC_PROTO || t->kind == BTF_KIND_DATASEC)
		for (i = 0; i < t->nr_entries; i++)
			slots[n++] = &t->entries[i].type;
	return n;
}

static uint32_t **gen_slot_buf(const struct gen *g, uint32_t id)
{
	uint32_t **slots = malloc((2 + g->types[id].nr_entries) * sizeof(*slots));

	ck_assert_ptr_nonnull(slots);
	return slots;
}

/*
 * Copies the local subgraph reachable from root with fresh ids and records
 * each (original, copy) pair as a planted duplicate. With unroll, makes
 * two copies whose references to the root cross over to the other copy:
 * every cycle through the root doubles in length, the infinite trees stay
 * the same. Skips subgraphs larger than GEN_MAX_CLONE.
 */
static void gen_clone(struct gen *g, uint32_t root, bool unroll)
{
	uint32_t old_nr = g->nr, *pos = malloc(old_nr * sizeof(uint32_t));
	uint32_t set[GEN_MAX_CLONE], n = 0, head = 0, copies = unroll ? 2 : 1;
	uint32_t copy_id[2][GEN_MAX_CLONE], c, k, i;

	ck_assert_ptr_nonnull(pos);
	if (!root) {
		free(pos);
		return;
	}
	memset(pos, 0xff, old_nr * sizeof(uint32_t));
	pos[root] = n;
	set[n++] = root;
	while (head < n) {
		uint32_t id = set[head++], **slots = gen_slot_buf(g, id);
		uint32_t nr_slots = gen_ref_slots(&g->types[id], slots);

		for (i = 0; i < nr_slots; i++) {
			uint32_t to = *slots[i];

			if (to < g->first || pos[to] != UINT32_MAX)
				continue;
			if (n == GEN_MAX_CLONE) {
				free(slots);
				free(pos);
				return;
			}
			pos[to] = n;
			set[n++] = to;
		}
		free(slots);
	}
	for (c = 0; c < copies; c++) {
		for (k = 0; k < n; k++) {
			uint32_t id = gen_add(g, g->types[set[k]].kind, NULL);
			struct gen_type *t = &g->types[id];

			*t = g->types[set[k]];
			if (t->nr_entries) {
				t->entries = malloc(t->cap_entries * sizeof(*t->entries));
				ck_assert_ptr_nonnull(t->entries);
				memcpy(t->entries, g->types[set[k]].entries,
				       t->nr_entries * sizeof(*t->entries));
			} else {
				t->entries = NULL;
				t->cap_entries = 0;
			}
			copy_id[c][k] = id;
			pair_add(&g->dups, set[k], id);
		}
	}
	for (c = 0; c < copies; c++) {
		for (k = 0; k < n; k++) {
			uint32_t id = copy_id[c][k], **slots = gen_slot_buf(g, id);
			uint32_t nr_slots = gen_ref_slots(&g->types[id], slots);

			for (i = 0; i < nr_slots; i++) {
				uint32_t to = *slots[i];

				if (to < g->first || to >= old_nr ||
				    pos[to] == UINT32_MAX)
					continue;
				*slots[i] = copy_id[unroll && to == root ? 1 - c : c][pos[to]];
			}
			free(slots);
		}
	}
	free(pos);
}

/*
 * Generates about target types into g after what is there (the base, for
 * split BTF: set g->first to g->nr first).
 */
static void gen_graph(struct gen *g, uint32_t target)
{
	uint32_t nr_shells = 2 + target / 8, first_shell, i, n;

	gen_scalars(g, target);
	first_shell = g->nr;
	gen_shells(g, nr_shells);
	gen_fwds(g, 1 + nr_shells / 4);
	for (i = 0; i < target / 8; i++)
		gen_ptr(g);
	for (i = 0; i < target / 10; i++)
		gen_modifier(g);
	n = 1 + target / 30;
	for (i = 0; i < n; i++) {
		uint32_t proto = gen_proto(g, false), ptr;

		ptr = gen_add(g, BTF_KIND_PTR, NULL);
		g->types[ptr].type = proto;
	}
	for (i = 0; i < target / 20; i++)
		gen_modifier(g);
	for (i = 0; i < nr_shells; i++)
		gen_fill(g, first_shell + i);
	n = target / 25;
	for (i = 0; i < n; i++) {
		uint32_t proto = gen_proto(g, true), func;
		char name[GEN_NAME_LEN];

		snprintf(name, sizeof(name), "do_%s%u",
			 struct_names[pick(&g->rng, ARRAY_LEN(struct_names))],
			 pick(&g->rng, 4));
		func = gen_add(g, BTF_KIND_FUNC, name);
		g->types[func].type = proto;
		g->types[func].linkage = pick(&g->rng, 2);
	}
	n = 1 + pick(&g->rng, 2);
	for (i = 0; i < n; i++)
		gen_clone(g, gen_pick_kind(g, KM(STRUCT) | KM(UNION), g->first),
			  false);
	if (chance(&g->rng, 70))
		gen_clone(g, gen_pick_kind(g, KM(STRUCT), g->first), true);
	gen_sections(g, 2 + target / 15);
	gen_decl_tags(g, 1 + target / 20);
}

/* Emits g->types[g->first, nr) into btf; ids must come out the same. */
static void gen_emit(const struct gen *g, struct btf *btf)
{
	for (uint32_t id = g->first; id < g->nr; id++) {
		const struct gen_type *t = &g->types[id];
		const char *name = t->name;
		uint32_t i;
		int got = -EINVAL, err = 0;

		switch (t->kind) {
		case BTF_KIND_INT:
			got = btf__add_int(btf, name, t->size, t->encoding);
			break;
		case BTF_KIND_FLOAT:
			got = btf__add_float(btf, name, t->size);
			break;
		case BTF_KIND_PTR:
			got = btf__add_ptr(btf, t->type);
			break;
		case BTF_KIND_TYPEDEF:
			got = btf__add_typedef(btf, name, t->type);
			break;
		case BTF_KIND_CONST:
			got = btf__add_const(btf, t->type);
			break;
		case BTF_KIND_VOLATILE:
			got = btf__add_volatile(btf, t->type);
			break;
		case BTF_KIND_RESTRICT:
			got = btf__add_restrict(btf, t->type);
			break;
		case BTF_KIND_TYPE_TAG:
			got = btf__add_type_tag(btf, name, t->type);
			break;
		case BTF_KIND_ARRAY:
			got = btf__add_array(btf, t->index_type, t->type, t->nelems);
			break;
		case BTF_KIND_FWD:
			got = btf__add_fwd(btf, name, t->fwd_union ?
					   BTF_FWD_UNION : BTF_FWD_STRUCT);
			break;
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION:
			got = t->kind == BTF_KIND_STRUCT ?
			      btf__add_struct(btf, name, t->size) :
			      btf__add_union(btf, name, t->size);
			for (i = 0; i < t->nr_entries && !err; i++)
				err = btf__add_field(btf, t->entries[i].name,
						     t->entries[i].type,
						     t->entries[i].bit_off,
						     t->entries[i].bit_size);
			break;
		case BTF_KIND_ENUM:
			got = btf__add_enum(btf, name, t->size);
			for (i = 0; i < t->nr_entries && !err; i++)
				err = btf__add_enum_value(btf, t->entries[i].name,
							  (int64_t)t->entries[i].value);
			break;
		case BTF_KIND_ENUM64:
			got = btf__add_enum64(btf, name, t->size, t->is_signed);
			for (i = 0; i < t->nr_entries && !err; i++)
				err = btf__add_enum64_value(btf, t->entries[i].name,
							    t->entries[i].value);
			break;
		case BTF_KIND_FUNC_PROTO:
			got = btf__add_func_proto(btf, t->type);
			for (i = 0; i < t->nr_entries && !err; i++)
				err = btf__add_func_param(btf, t->entries[i].name,
							  t->entries[i].type);
			break;
		case BTF_KIND_FUNC:
			got = btf__add_func(btf, name, t->linkage, t->type);
			break;
		case BTF_KIND_VAR:
			got = btf__add_var(btf, name, t->linkage, t->type);
			break;
		case BTF_KIND_DATASEC:
			got = btf__add_datasec(btf, name, t->size);
			for (i = 0; i < t->nr_entries && !err; i++)
				err = btf__add_datasec_var_info(btf,
						t->entries[i].type,
						t->entries[i].bit_off,
						t->entries[i].bit_size);
			break;
		case BTF_KIND_DECL_TAG:
			got = btf__add_decl_tag(btf, name, t->type,
						t->component_idx);
			break;
		}
		ck_assert_msg(got == (int)id && !err,
			      "generator: adding [%u] kind %u '%s' gave %d, err %d",
			      id, t->kind, name, got, err);
	}
}

/* One generated BTF: the model, the libbpf object, its raw bytes. */
struct graph {
	struct gen gen;
	struct btf *btf;
	struct blob raw;
	uint64_t seed;
};

static uint64_t case_seed(uint32_t salt, int i)
{
	return (uint64_t)salt << 32 | (uint32_t)i;
}

static void graph_make(struct graph *gr, uint64_t seed, uint32_t min_types,
		       uint32_t max_types)
{
	memset(gr, 0, sizeof(*gr));
	gr->seed = seed;
	gen_init(&gr->gen, seed);
	gen_graph(&gr->gen, min_types + pick(&gr->gen.rng,
					     max_types - min_types + 1));
	gr->btf = btf__new_empty();
	ck_assert_ptr_nonnull(gr->btf);
	gen_emit(&gr->gen, gr->btf);
	gr->raw = blob_from_libbpf(gr->btf);
}

static void graph_free(struct graph *gr)
{
	btf__free(gr->btf);
	blob_free(&gr->raw);
	gen_deinit(&gr->gen);
}

/* A random base and a random split BTF over it, sharing one model. */
struct split_graph {
	struct gen gen;
	struct btf *base_btf, *btf;
	struct blob base_raw, raw;
	struct bc_btf *base;
	uint64_t seed;
};

static void split_make(struct split_graph *sg, uint64_t seed)
{
	memset(sg, 0, sizeof(*sg));
	sg->seed = seed;
	gen_init(&sg->gen, seed);
	gen_graph(&sg->gen, 40 + pick(&sg->gen.rng, 160));
	sg->base_btf = btf__new_empty();
	ck_assert_ptr_nonnull(sg->base_btf);
	gen_emit(&sg->gen, sg->base_btf);
	sg->base_raw = blob_from_libbpf(sg->base_btf);
	sg->base = parse_or_fail(&sg->base_raw, NULL);

	/* the split part: planted pairs are about it only */
	sg->gen.dups.nr = 0;
	sg->gen.distinct.nr = 0;
	sg->gen.first = sg->gen.nr;
	gen_graph(&sg->gen, 50 + pick(&sg->gen.rng, 200));
	sg->btf = btf__new_empty_split(sg->base_btf);
	ck_assert_ptr_nonnull(sg->btf);
	gen_emit(&sg->gen, sg->btf);
	sg->raw = blob_from_libbpf(sg->btf);
}

static void split_free(struct split_graph *sg)
{
	btf__free(sg->btf);
	btf__free(sg->base_btf);
	bc_btf_free(sg->base);
	blob_free(&sg->raw);
	blob_free(&sg->base_raw);
	gen_deinit(&sg->gen);
}

static const enum bc_order orders[] = { BC_ORDER_KIND, BC_ORDER_NAME };

/*
 * Fails unless got and want are the same bytes; the message quotes the
 * first line where their listings differ.
 */
static void assert_same_btf(const struct blob *got, const struct blob *want,
			    const struct bc_btf *base, const char *what,
			    uint64_t seed, enum bc_order order)
{
	char *a, *b, *pa, *pb;
	uint32_t line = 1;

	if (blob_eq(got, want))
		return;
	a = listing_blob(got, base);
	b = listing_blob(want, base);
	for (pa = a, pb = b; *pa && *pa == *pb; pa++, pb++)
		if (*pa == '\n')
			line++;
	while (pa > a && pa[-1] != '\n')
		pa--;
	pb = b + (pa - a);
	ck_abort_msg("%s: seed %#llx, order %s: outputs differ (%zu vs %zu bytes); listing line %u:\n  got:  %.*s\n  want: %.*s",
		     what, (unsigned long long)seed, bc_order_name(order),
		     got->size, want->size, line,
		     (int)strcspn(pa, "\n"), pa, (int)strcspn(pb, "\n"), pb);
	free(a);
	free(b);
}

/*
 * id_map as a functional bisimulation from in onto out: each input type's
 * image has the same kind, vlen, kflag, name and data words, and its
 * references are the images of the input's references (void and base ids
 * map to themselves). Every output type is some input's image.
 */
static void check_bisimulation(const struct blob *in_raw,
			       const struct blob *out_raw,
			       const struct bc_btf *base, const uint32_t *id_map,
			       uint64_t seed, enum bc_order order)
{
	struct bc_btf *in = parse_or_fail(in_raw, base);
	struct bc_btf *out = parse_or_fail(out_raw, base);
	uint32_t start = in->start_id, i, j;
	uint8_t *hit = calloc(out->nr_types + 1, 1);

	ck_assert_ptr_nonnull(hit);
	ck_assert_uint_eq(out->start_id, start);
	for (i = 0; i < in->nr_types; i++) {
		const struct btf_type *a = bc_btf_local(in, i), *b;
		const uint32_t *wa = (const uint32_t *)a, *wb;
		uint32_t m = id_map[i], kind = bc_type_kind(a), words;

		ck_assert_msg(m >= start && m < bc_btf_end_id(out),
			      "seed %#llx %s: [%u] maps to %u, outside the output",
			      (unsigned long long)seed, bc_order_name(order),
			      start + i, m);
		hit[m - start] = 1;
		b = bc_btf_local(out, m - start);
		wb = (const uint32_t *)b;
		ck_assert_msg(bc_type_kind(b) == kind &&
			      bc_type_vlen(b) == bc_type_vlen(a) &&
			      bc_info_kflag(b->info) == bc_info_kflag(a->info),
			      "seed %#llx %s: [%u] %s vlen %u kflag %u maps to [%u] %s vlen %u kflag %u",
			      (unsigned long long)seed, bc_order_name(order),
			      start + i, bc_kind_name(kind), bc_type_vlen(a),
			      bc_info_kflag(a->info), m,
			      bc_kind_name(bc_type_kind(b)), bc_type_vlen(b),
			      bc_info_kflag(b->info));
		words = bc_type_words(a);
		for (j = 0; j < words; j++) {
			uint32_t want;

			switch (bc_word_class(kind, j)) {
			case BC_WORD_NAME:
				ck_assert_msg(!strcmp(bc_btf_str(in, wa[j]),
						      bc_btf_str(out, wb[j])),
					      "seed %#llx %s: [%u] word %u: name '%s' became '%s' in [%u]",
					      (unsigned long long)seed,
					      bc_order_name(order), start + i, j,
					      bc_btf_str(in, wa[j]),
					      bc_btf_str(out, wb[j]), m);
				break;
			case BC_WORD_REF:
				want = wa[j] < start ? wa[j] : id_map[wa[j] - start];
				ck_assert_msg(wb[j] == want,
					      "seed %#llx %s: [%u] %s word %u refers to [%u] -> [%u], but its image [%u] refers to [%u]",
					      (unsigned long long)seed,
					      bc_order_name(order), start + i,
					      bc_kind_name(kind), j, wa[j], want,
					      m, wb[j]);
				break;
			case BC_WORD_INFO:
				break;
			default:
				ck_assert_msg(wa[j] == wb[j],
					      "seed %#llx %s: [%u] %s word %u: %u became %u in [%u]",
					      (unsigned long long)seed,
					      bc_order_name(order), start + i,
					      bc_kind_name(kind), j, wa[j],
					      wb[j], m);
			}
		}
	}
	for (i = 0; i < out->nr_types; i++)
		ck_assert_msg(hit[i], "seed %#llx %s: output type [%u] is no input's image",
			      (unsigned long long)seed, bc_order_name(order),
			      start + i);
	free(hit);
	bc_btf_free(in);
	bc_btf_free(out);
}

static uint32_t blob_nr_types(const struct blob *raw, const struct bc_btf *base)
{
	struct bc_btf *btf = parse_or_fail(raw, base);
	uint32_t n = btf->nr_types;

	bc_btf_free(btf);
	return n;
}

/* Planted pairs merged, planted twins apart, fewer types out. */
static void check_planted(const struct gen *g, const struct blob *in,
			  const struct blob *out, const struct bc_btf *base,
			  const uint32_t *id_map, enum bc_order order,
			  uint64_t seed)
{
	uint32_t start = g->first, i;

	for (i = 0; i < g->dups.nr; i++) {
		uint32_t a = g->dups.items[i].a, b = g->dups.items[i].b;

		ck_assert_msg(id_map[a - start] == id_map[b - start],
			      "seed %#llx %s: planted duplicates [%u] and [%u] (kind %u '%s') not merged: [%u] vs [%u]",
			      (unsigned long long)seed, bc_order_name(order),
			      a, b, g->types[a].kind, g->types[a].name,
			      id_map[a - start], id_map[b - start]);
	}
	for (i = 0; i < g->distinct.nr; i++) {
		uint32_t a = g->distinct.items[i].a, b = g->distinct.items[i].b;

		ck_assert_msg(id_map[a - start] != id_map[b - start],
			      "seed %#llx %s: VARs [%u] and [%u] '%s' in different DATASEC entries merged into [%u]",
			      (unsigned long long)seed, bc_order_name(order),
			      a, b, g->types[a].name, id_map[a - start]);
	}
	if (g->dups.nr)
		ck_assert_msg(blob_nr_types(out, base) < blob_nr_types(in, base),
			      "seed %#llx %s: %u planted duplicates, but no fewer types out",
			      (unsigned long long)seed, bc_order_name(order),
			      g->dups.nr);
}

/* Property 1: canon(permute(x)) == canon(x). */
START_TEST(test_permute)
{
	struct graph gr;

	graph_make(&gr, case_seed(1, _i), 40, 320);
	for (size_t o = 0; o < ARRAY_LEN(orders); o++) {
		struct blob want = canon_blob(&gr.raw, NULL, orders[o], NULL);

		for (unsigned int p = 0; p < NR_PERMS; p++) {
			struct blob perm = permute_blob(&gr.raw, NULL,
							_i * 131 + p * 7 + 1);
			struct blob got = canon_blob(&perm, NULL, orders[o], NULL);

			assert_same_btf(&got, &want, NULL, "permute", gr.seed,
					orders[o]);
			blob_free(&perm);
			blob_free(&got);
		}
		blob_free(&want);
	}
	graph_free(&gr);
}
END_TEST

/*
 * Property 2: canon(canon(x)) == canon(x); and since canon(x) is x with
 * its classes merged, canon under either order of the other order's
 * output is canon(x) too.
 */
START_TEST(test_idempotent)
{
	struct graph gr;
	struct blob once[2], twice;

	graph_make(&gr, case_seed(2, _i), 40, 320);
	for (size_t o = 0; o < ARRAY_LEN(orders); o++)
		once[o] = canon_blob(&gr.raw, NULL, orders[o], NULL);
	for (size_t o = 0; o < ARRAY_LEN(orders); o++) {
		twice = canon_blob(&once[o], NULL, orders[o], NULL);
		assert_same_btf(&twice, &once[o], NULL, "idempotent", gr.seed,
				orders[o]);
		blob_free(&twice);
		twice = canon_blob(&once[1 - o], NULL, orders[o], NULL);
		assert_same_btf(&twice, &once[o], NULL,
				"canon of the other order's output", gr.seed,
				orders[o]);
		blob_free(&twice);
	}
	blob_free(&once[0]);
	blob_free(&once[1]);
	graph_free(&gr);
}
END_TEST

/* Property 3: planted duplicates merge. */
START_TEST(test_merged)
{
	struct graph gr;

	graph_make(&gr, case_seed(3, _i), 40, 320);
	for (size_t o = 0; o < ARRAY_LEN(orders); o++) {
		uint32_t *id_map;
		struct blob out = canon_blob(&gr.raw, NULL, orders[o], &id_map);

		check_planted(&gr.gen, &gr.raw, &out, NULL, id_map, orders[o],
			      gr.seed);
		free(id_map);
		blob_free(&out);
	}
	graph_free(&gr);
}
END_TEST

/* Property 4: content kept, nothing invented (id_map is a bisimulation). */
START_TEST(test_content)
{
	struct graph gr;

	graph_make(&gr, case_seed(4, _i), 40, 320);
	for (size_t o = 0; o < ARRAY_LEN(orders); o++) {
		uint32_t *id_map;
		struct blob out = canon_blob(&gr.raw, NULL, orders[o], &id_map);

		check_bisimulation(&gr.raw, &out, NULL, id_map, gr.seed,
				   orders[o]);
		free(id_map);
		blob_free(&out);
	}
	graph_free(&gr);
}
END_TEST

/* Property 5 on random graphs: equal VARs in different entries stay. */
START_TEST(test_var_identity)
{
	struct graph gr;

	graph_make(&gr, case_seed(5, _i), 50, 200);
	ck_assert_uint_ne(gr.gen.distinct.nr, 0);
	for (size_t o = 0; o < ARRAY_LEN(orders); o++) {
		uint32_t *id_map;
		struct blob out = canon_blob(&gr.raw, NULL, orders[o], &id_map);

		for (uint32_t i = 0; i < gr.gen.distinct.nr; i++) {
			uint32_t a = gr.gen.distinct.items[i].a;
			uint32_t b = gr.gen.distinct.items[i].b;

			ck_assert_msg(id_map[a - 1] != id_map[b - 1],
				      "seed %#llx %s: VARs [%u] and [%u] '%s' merged",
				      (unsigned long long)gr.seed,
				      bc_order_name(orders[o]), a, b,
				      gr.gen.types[a].name);
		}
		free(id_map);
		blob_free(&out);
	}
	graph_free(&gr);
}
END_TEST

/*
 * Property 5, by hand: the same 'int x' in .data and in .bss, and twice
 * in .data at different offsets, each with an equal decl tag: four VARs
 * and four tags out, whatever the order of the input.
 */
START_TEST(test_var_identity_small)
{
	struct btf *btf = btf__new_empty();
	struct blob raw, out, perm, out2;
	uint32_t *id_map;
	struct bc_btf *parsed;
	uint32_t nr_vars = 0, nr_tags = 0, i;

	ck_assert_ptr_nonnull(btf);
	ck_assert_int_eq(btf__add_int(btf, "int", 4, BTF_INT_SIGNED), 1); /* [1] int */
	ck_assert_int_eq(btf__add_var(btf, "x", BTF_VAR_GLOBAL_ALLOCATED, 1), 2); /* [2] int x (.data +0) */
	ck_assert_int_eq(btf__add_var(btf, "x", BTF_VAR_GLOBAL_ALLOCATED, 1), 3); /* [3] int x (.data +4) */
	ck_assert_int_eq(btf__add_var(btf, "x", BTF_VAR_GLOBAL_ALLOCATED, 1), 4); /* [4] int x (.bss +0) */
	ck_assert_int_eq(btf__add_var(btf, "x", BTF_VAR_GLOBAL_ALLOCATED, 1), 5); /* [5] int x (.bss +4) */
	ck_assert_int_eq(btf__add_datasec(btf, ".data", 8), 6);	/* [6] .data { */
	ck_assert_int_eq(btf__add_datasec_var_info(btf, 2, 0, 4), 0);
	ck_assert_int_eq(btf__add_datasec_var_info(btf, 3, 4, 4), 0);
	ck_assert_int_eq(btf__add_datasec(btf, ".bss", 8), 7);	/* [7] .bss { */
	ck_assert_int_eq(btf__add_datasec_var_info(btf, 4, 0, 4), 0);
	ck_assert_int_eq(btf__add_datasec_var_info(btf, 5, 4, 4), 0);
	for (i = 2; i <= 5; i++)				/* [8..11] tags */
		ck_assert_int_eq(btf__add_decl_tag(btf, "percpu", i, -1),
				 (int)i + 6);
	raw = blob_from_libbpf(btf);

	for (size_t o = 0; o < ARRAY_LEN(orders); o++) {
		out = canon_blob(&raw, NULL, orders[o], &id_map);
		for (i = 1; i < 4; i++)
			for (uint32_t j = 0; j < i; j++)
				ck_assert_msg(id_map[i] != id_map[j],
					      "%s: VARs [%u] and [%u] merged",
					      bc_order_name(orders[o]), i + 1, j + 1);
		parsed = parse_or_fail(&out, NULL);
		nr_vars = nr_tags = 0;
		for (i = 0; i < parsed->nr_types; i++) {
			uint32_t kind = bc_type_kind(bc_btf_local(parsed, i));

			nr_vars += kind == BTF_KIND_VAR;
			nr_tags += kind == BTF_KIND_DECL_TAG;
		}
		ck_assert_uint_eq(nr_vars, 4);
		ck_assert_uint_eq(nr_tags, 4);
		ck_assert_uint_eq(parsed->nr_types, 11);
		bc_btf_free(parsed);
		for (unsigned int p = 0; p < 8; p++) {
			perm = permute_blob(&raw, NULL, p + 1);
			out2 = canon_blob(&perm, NULL, orders[o], NULL);
			assert_same_btf(&out2, &out, NULL, "var identity permute",
					p, orders[o]);
			blob_free(&perm);
			blob_free(&out2);
		}
		free(id_map);
		blob_free(&out);
	}
	blob_free(&raw);
	btf__free(btf);
}
END_TEST

/*
 * libbpf's reading of raw split BTF over base. The installed libbpf (1.1)
 * exports no btf__new_split(), so this goes through a file and
 * btf__parse_raw_split(). NULL with errno set on rejection.
 */
static struct btf *parse_split_with_libbpf(const struct blob *raw,
					   struct btf *base)
{
	char path[] = "/tmp/btfcanon-props-XXXXXX";
	int fd = mkstemp(path), err;
	struct btf *btf;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, raw->data, raw->size), (ssize_t)raw->size);
	close(fd);
	btf = btf__parse_raw_split(path, base);
	err = errno;
	unlink(path);
	errno = err;
	return btf;
}

/* Property 6: split BTF over a random base. */
START_TEST(test_split)
{
	struct split_graph sg;

	split_make(&sg, case_seed(6, _i));
	for (size_t o = 0; o < ARRAY_LEN(orders); o++) {
		uint32_t *id_map;
		struct blob want = canon_blob(&sg.raw, sg.base, orders[o], &id_map);
		struct blob twice;
		struct btf *check;

		for (unsigned int p = 0; p < NR_PERMS; p++) {
			struct blob perm = permute_blob(&sg.raw, sg.base,
							_i * 71 + p * 13 + 3);
			struct blob got = canon_blob(&perm, sg.base, orders[o],
						     NULL);

			assert_same_btf(&got, &want, sg.base, "split permute",
					sg.seed, orders[o]);
			blob_free(&perm);
			blob_free(&got);
		}
		twice = canon_blob(&want, sg.base, orders[o], NULL);
		assert_same_btf(&twice, &want, sg.base, "split idempotent",
				sg.seed, orders[o]);
		blob_free(&twice);
		/* base ids untouched, content kept, planted facts hold */
		check_bisimulation(&sg.raw, &want, sg.base, id_map, sg.seed,
				   orders[o]);
		check_planted(&sg.gen, &sg.raw, &want, sg.base, id_map,
			      orders[o], sg.seed);
		check = parse_split_with_libbpf(&want, sg.base_btf);
		ck_assert_msg(check, "seed %#llx %s: libbpf rejects the split output: %s",
			      (unsigned long long)sg.seed,
			      bc_order_name(orders[o]), strerror(errno));
		ck_assert_uint_eq(btf__type_cnt(check), sg.gen.first +
				  blob_nr_types(&want, sg.base));
		btf__free(check);
		free(id_map);
		blob_free(&want);
	}
	split_free(&sg);
}
END_TEST

/*
 * canon_blob() with FWD resolution on (what encode uses); fails the test
 * on error.
 */
static void log_to_stderr(void *ctx, enum bc_log_level level, const char *msg)
{
	(void)ctx;
	(void)level;
	fprintf(stderr, "props: %s\n", msg);
}

static struct blob canon_blob_opts(const struct blob *raw,
				   const struct canon_opts *opts)
{
	static const struct bc_log log = { .fn = log_to_stderr };
	struct bc_btf *btf = parse_or_fail(raw, NULL);
	struct canon_result res;
	struct blob out;
	int err = canon_run(btf, opts, &res, &log);

	ck_assert_msg(!err, "canon_run (resolve_fwds %d, jobs %u, grain %u) failed: %d",
		      opts->resolve_fwds, opts->jobs, opts->grain, err);
	out.data = res.raw;
	out.size = res.raw_size;
	res.raw = NULL;
	canon_result_deinit(&res);
	bc_btf_free(btf);
	return out;
}

static struct blob canon_blob_resolving(const struct blob *raw,
					enum bc_order order)
{
	struct canon_opts opts = { .order = order, .resolve_fwds = true };

	return canon_blob_opts(raw, &opts);
}

/*
 * With FWD resolution on (encode's mode): permutations give the same
 * output, and libbpf accepts it.
 */
START_TEST(test_resolve_fwds)
{
	struct graph gr;

	graph_make(&gr, case_seed(9, _i), 40, 320);
	for (size_t o = 0; o < ARRAY_LEN(orders); o++) {
		struct blob want = canon_blob_resolving(&gr.raw, orders[o]);
		struct btf *check;

		for (unsigned int p = 0; p < NR_PERMS; p++) {
			struct blob perm = permute_blob(&gr.raw, NULL,
							_i * 37 + p * 11 + 5);
			struct blob got = canon_blob_resolving(&perm, orders[o]);

			assert_same_btf(&got, &want, NULL, "resolve_fwds permute",
					gr.seed, orders[o]);
			blob_free(&perm);
			blob_free(&got);
		}
		check = btf__new(want.data, want.size);
		ck_assert_msg(check, "seed %#llx %s: libbpf rejects the output: %s",
			      (unsigned long long)gr.seed,
			      bc_order_name(orders[o]), strerror(errno));
		btf__free(check);
		blob_free(&want);
	}
	graph_free(&gr);
}
END_TEST

/*
 * FWD resolution reaches its fixpoint: resolving one FWD merges structs,
 * which makes the next name unique, three times in a row. A single pass
 * of the rule that resolves a name only once its complete types are one
 * class resolves only 'struct b' and leaves two 'struct c's and FWDs of a
 * and c behind, so canonicalizing its output again changes it; taking
 * every name as resolved first and giving up the split ones (canon.c)
 * resolves all three in one pass.
 */
static struct blob fwd_chain_blob(void)
{
	struct btf *b = btf__new_empty();
	struct blob raw;

	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(btf__add_int(b, "int", 4, BTF_INT_SIGNED), 1);
	ck_assert_int_eq(btf__add_struct(b, "b", 4), 2);	/* [2] struct b { */
	ck_assert_int_eq(btf__add_field(b, "x", 1, 0, 0), 0);	/*	int x; } */
	ck_assert_int_eq(btf__add_fwd(b, "b", BTF_FWD_STRUCT), 3); /* [3] struct b; */
	ck_assert_int_eq(btf__add_ptr(b, 3), 4);		/* [4] declared b * */
	ck_assert_int_eq(btf__add_ptr(b, 2), 5);		/* [5] complete b * */
	ck_assert_int_eq(btf__add_struct(b, "a", 8), 6);	/* [6] struct a { */
	ck_assert_int_eq(btf__add_field(b, "p", 4, 0, 0), 0);	/*	[4] p; } */
	ck_assert_int_eq(btf__add_struct(b, "a", 8), 7);	/* [7] struct a { */
	ck_assert_int_eq(btf__add_field(b, "p", 5, 0, 0), 0);	/*	[5] p; } */
	ck_assert_int_eq(btf__add_fwd(b, "a", BTF_FWD_STRUCT), 8); /* [8] struct a; */
	ck_assert_int_eq(btf__add_ptr(b, 8), 9);		/* [9] declared a * */
	ck_assert_int_eq(btf__add_ptr(b, 7), 10);		/* [10] complete a * */
	ck_assert_int_eq(btf__add_struct(b, "c", 8), 11);	/* [11] struct c { */
	ck_assert_int_eq(btf__add_field(b, "p", 9, 0, 0), 0);	/*	[9] p; } */
	ck_assert_int_eq(btf__add_struct(b, "c", 8), 12);	/* [12] struct c { */
	ck_assert_int_eq(btf__add_field(b, "p", 10, 0, 0), 0);	/*	[10] p; } */
	ck_assert_int_eq(btf__add_fwd(b, "c", BTF_FWD_STRUCT), 13); /* [13] struct c; */
	ck_assert_int_eq(btf__add_ptr(b, 13), 14);		/* [14] declared c * */
	ck_assert_int_eq(btf__add_struct(b, "user", 8), 15);	/* [15] struct user { */
	ck_assert_int_eq(btf__add_field(b, "p", 14, 0, 0), 0);	/*	[14] p; } */
	raw = blob_from_libbpf(b);
	btf__free(b);
	return raw;
}

START_TEST(test_resolve_fwds_rounds)
{
	static const struct bc_log log = { .fn = log_to_stderr };
	struct canon_opts opts = { .order = BC_ORDER_KIND, .resolve_fwds = true };
	struct blob raw = fwd_chain_blob(), out, again;
	struct bc_btf *btf = parse_or_fail(&raw, NULL);
	struct canon_result res;
	char *text;

	ck_assert_int_eq(canon_run(btf, &opts, &res, &log), 0);
	/* b, a and c taken at once, none given up: one pass */
	ck_assert_uint_eq(res.stats.fwds_resolved, 3);
	ck_assert_uint_eq(res.stats.fwd_rounds, 1);
	ck_assert_uint_eq(res.stats.types_out, 8);
	out.data = res.raw;
	out.size = res.raw_size;
	res.raw = NULL;
	canon_result_deinit(&res);
	bc_btf_free(btf);

	text = listing_blob(&out, NULL);
	ck_assert_str_eq(text,
		"[1] INT 'int' vlen=0 kflag=0 4 16777248\n"
		"[2] PTR '' vlen=0 kflag=0 ->5\n"
		"[3] PTR '' vlen=0 kflag=0 ->6\n"
		"[4] PTR '' vlen=0 kflag=0 ->7\n"
		"[5] STRUCT 'a' vlen=1 kflag=0 8\n"
		"\t'p' ->3 0\n"
		"[6] STRUCT 'b' vlen=1 kflag=0 4\n"
		"\t'x' ->1 0\n"
		"[7] STRUCT 'c' vlen=1 kflag=0 8\n"
		"\t'p' ->2 0\n"
		"[8] STRUCT 'user' vlen=1 kflag=0 8\n"
		"\t'p' ->4 0\n");
	free(text);

	again = canon_blob_resolving(&out, BC_ORDER_KIND);
	ck_assert_msg(blob_eq(&again, &out),
		      "canon(canon(x)) != canon(x) with FWD resolution");
	blob_free(&again);
	for (unsigned int p = 0; p < NR_PERMS; p++) {
		struct blob perm = permute_blob(&raw, NULL, 100 + p);
		struct blob got = canon_blob_resolving(&perm, BC_ORDER_KIND);

		ck_assert_msg(blob_eq(&got, &out),
			      "permutation %u changes the resolved output", p);
		blob_free(&perm);
		blob_free(&got);
	}
	blob_free(&out);
	blob_free(&raw);
}
END_TEST

/*
 * FWDs in a cycle (canon.c's example): three units' types, where struct a
 * and struct b are complete in one unit and each declared only in one
 * other. Neither name has one class until the other is resolved, so a
 * rule that waits for that resolves nothing; libbpf's btf__dedup merges
 * them, and so does canon: two structs and two pointers, whatever the
 * ids. A third, different struct b makes b's name ambiguous: its FWD
 * stays, and then nothing resolves.
 */
static struct blob fwd_cycle_blob(bool third_b)
{
	struct btf *b = btf__new_empty();
	struct blob raw;

	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(btf__add_struct(b, "a", 8), 1);	/* [1] struct a { */
	ck_assert_int_eq(btf__add_field(b, "p", 3, 0, 0), 0);	/*	[3] p; } */
	ck_assert_int_eq(btf__add_struct(b, "b", 8), 2);	/* [2] struct b { */
	ck_assert_int_eq(btf__add_field(b, "q", 4, 0, 0), 0);	/*	[4] q; } */
	ck_assert_int_eq(btf__add_ptr(b, 2), 3);		/* [3] struct b * */
	ck_assert_int_eq(btf__add_ptr(b, 1), 4);		/* [4] struct a * */
	ck_assert_int_eq(btf__add_struct(b, "a", 8), 5);	/* [5] struct a { */
	ck_assert_int_eq(btf__add_field(b, "p", 6, 0, 0), 0);	/*	[6] p; } */
	ck_assert_int_eq(btf__add_ptr(b, 7), 6);		/* [6] declared b * */
	ck_assert_int_eq(btf__add_fwd(b, "b", BTF_FWD_STRUCT), 7); /* [7] struct b; */
	ck_assert_int_eq(btf__add_struct(b, "b", 8), 8);	/* [8] struct b { */
	ck_assert_int_eq(btf__add_field(b, "q", 9, 0, 0), 0);	/*	[9] q; } */
	ck_assert_int_eq(btf__add_ptr(b, 10), 9);		/* [9] declared a * */
	ck_assert_int_eq(btf__add_fwd(b, "a", BTF_FWD_STRUCT), 10); /* [10] struct a; */
	if (third_b) {
		ck_assert_int_eq(btf__add_int(b, "int", 4, BTF_INT_SIGNED), 11);
		ck_assert_int_eq(btf__add_struct(b, "b", 4), 12);	/* [12] struct b { */
		ck_assert_int_eq(btf__add_field(b, "x", 11, 0, 0), 0);	/*	int x; } */
	}
	raw = blob_from_libbpf(b);
	btf__free(b);
	return raw;
}

START_TEST(test_resolve_fwds_cycle)
{
	static const struct bc_log log = { .fn = log_to_stderr };
	struct canon_opts opts = { .order = BC_ORDER_KIND, .resolve_fwds = true };
	static const char *const want[2] = {
		"[1] PTR '' vlen=0 kflag=0 ->3\n"
		"[2] PTR '' vlen=0 kflag=0 ->4\n"
		"[3] STRUCT 'a' vlen=1 kflag=0 8\n"
		"\t'p' ->2 0\n"
		"[4] STRUCT 'b' vlen=1 kflag=0 8\n"
		"\t'q' ->1 0\n",
		/*
		 * b ambiguous: its FWD stays, so the two struct a's differ
		 * (one points to a struct b, one to the FWD) and a's FWD
		 * stays too. libbpf's dedup would take FWD b for the first
		 * struct b it compares it with (an order-dependent choice).
		 */
		"[1] INT 'int' vlen=0 kflag=0 4 16777248\n"
		"[2] PTR '' vlen=0 kflag=0 ->6\n"
		"[3] PTR '' vlen=0 kflag=0 ->9\n"
		"[4] PTR '' vlen=0 kflag=0 ->11\n"
		"[5] PTR '' vlen=0 kflag=0 ->12\n"
		"[6] STRUCT 'a' vlen=1 kflag=0 8\n"
		"\t'p' ->3 0\n"
		"[7] STRUCT 'a' vlen=1 kflag=0 8\n"
		"\t'p' ->5 0\n"
		"[8] STRUCT 'b' vlen=1 kflag=0 4\n"
		"\t'x' ->1 0\n"
		"[9] STRUCT 'b' vlen=1 kflag=0 8\n"
		"\t'q' ->2 0\n"
		"[10] STRUCT 'b' vlen=1 kflag=0 8\n"
		"\t'q' ->4 0\n"
		"[11] FWD 'a' vlen=0 kflag=0 0\n"
		"[12] FWD 'b' vlen=0 kflag=0 0\n",
	};

	for (int third = 0; third < 2; third++) {
		struct blob raw = fwd_cycle_blob(third), out, again;
		struct bc_btf *btf = parse_or_fail(&raw, NULL);
		struct canon_result res;
		char *text;

		ck_assert_int_eq(canon_run(btf, &opts, &res, &log), 0);
		out.data = res.raw;
		out.size = res.raw_size;
		res.raw = NULL;
		canon_result_deinit(&res);
		bc_btf_free(btf);
		text = listing_blob(&out, NULL);
		ck_assert_str_eq(text, want[third]);
		free(text);
		again = canon_blob_resolving(&out, BC_ORDER_KIND);
		ck_assert_msg(blob_eq(&again, &out),
			      "canon(canon(x)) != canon(x), FWD cycle %d", third);
		blob_free(&again);
		for (unsigned int p = 0; p < NR_PERMS; p++) {
			struct blob perm = permute_blob(&raw, NULL, 200 + p);
			struct blob got = canon_blob_resolving(&perm, BC_ORDER_KIND);

			ck_assert_msg(blob_eq(&got, &out),
				      "permutation %u changes the output, FWD cycle %d",
				      p, third);
			blob_free(&perm);
			blob_free(&got);
		}
		blob_free(&out);
		blob_free(&raw);
	}
}
END_TEST

/*
 * Idempotence with FWD resolution on, on random graphs: one more run on
 * the output resolves nothing new and changes nothing.
 */
START_TEST(test_resolve_fwds_idempotent)
{
	struct graph gr;

	graph_make(&gr, case_seed(10, _i), 40, 320);
	for (size_t o = 0; o < ARRAY_LEN(orders); o++) {
		struct blob once = canon_blob_resolving(&gr.raw, orders[o]);
		struct blob twice = canon_blob_resolving(&once, orders[o]);

		assert_same_btf(&twice, &once, NULL, "resolve_fwds idempotent",
				gr.seed, orders[o]);
		blob_free(&once);
		blob_free(&twice);
	}
	graph_free(&gr);
}
END_TEST

/*
 * Parallel canon: a grain of 1 to 3 types cuts these graphs into dozens
 * of tasks (the default, 4096, leaves them whole), run on 1 to 4
 * threads; the bytes must be those of one task, for the graph and for a
 * permutation of it. Under ThreadSanitizer (make tsan-check) this is the
 * race check of the first sort and of the refinement rounds.
 */
START_TEST(test_parallel)
{
	static const struct { unsigned int jobs; uint32_t grain; } runs[] = {
		{ 1, 1 }, { 4, 1 }, { 2, 2 }, { 3, 3 },
	};
	struct graph gr;

	graph_make(&gr, case_seed(12, _i), 40, 320);
	for (size_t o = 0; o < ARRAY_LEN(orders); o++) {
		for (int resolve = 0; resolve < 2; resolve++) {
			struct canon_opts one = { .order = orders[o],
						  .resolve_fwds = resolve };
			struct blob want = canon_blob_opts(&gr.raw, &one);
			struct blob perm = permute_blob(&gr.raw, NULL, _i * 13 + 7);

			for (size_t r = 0; r < ARRAY_LEN(runs); r++) {
				struct canon_opts par = one;
				struct blob got;

				par.jobs = runs[r].jobs;
				par.grain = runs[r].grain;
				got = canon_blob_opts(r % 2 ? &perm : &gr.raw, &par);
				assert_same_btf(&got, &want, NULL,
						resolve ? "parallel, FWDs resolved" :
						"parallel", gr.seed, orders[o]);
				blob_free(&got);
			}
			blob_free(&perm);
			blob_free(&want);
		}
	}
	graph_free(&gr);
}
END_TEST

/* Property 7a: libbpf accepts every output. */
START_TEST(test_libbpf)
{
	struct graph gr;

	graph_make(&gr, case_seed(7, _i), 40, 320);
	for (size_t o = 0; o < ARRAY_LEN(orders); o++) {
		struct blob out = canon_blob(&gr.raw, NULL, orders[o], NULL);
		struct btf *check = btf__new(out.data, out.size);

		ck_assert_msg(check, "seed %#llx %s: libbpf rejects the output: %s",
			      (unsigned long long)gr.seed,
			      bc_order_name(orders[o]), strerror(errno));
		ck_assert_uint_eq(btf__type_cnt(check),
				  1 + blob_nr_types(&out, NULL));
		btf__free(check);
		blob_free(&out);
	}
	graph_free(&gr);
}
END_TEST

/*
 * Loads raw into the kernel: true when loaded, false when the kernel
 * cannot be asked here (after a message); fails on a rejection.
 */
static bool kernel_accepts(const struct blob *raw, const char *what,
			   uint64_t seed)
{
	static char log[1 << 16];
	int err = kernel_load_btf(raw, log, sizeof(log));

	if (err == -EPERM || err == -ENOSYS) {
		fprintf(stderr, "props: kernel BTF load not allowed here (%s): skipping the kernel check\n",
			strerror(-err));
		return false;
	}
	if (err)
		fprintf(stderr, "props: kernel rejects %s (seed %#llx): %s\n%s\n",
			what, (unsigned long long)seed, strerror(-err), log);
	ck_assert_msg(!err, "seed %#llx: the kernel rejects %s: %s (log on stderr)",
		      (unsigned long long)seed, what, strerror(-err));
	return true;
}

/* Property 7b: the kernel accepts the inputs (sanity) and the outputs. */
START_TEST(test_kernel)
{
	struct graph gr;

	graph_make(&gr, case_seed(8, _i), 40, 320);
	if (kernel_accepts(&gr.raw, "the generated input", gr.seed)) {
		for (size_t o = 0; o < ARRAY_LEN(orders); o++) {
			struct blob out = canon_blob(&gr.raw, NULL, orders[o],
						     NULL);

			kernel_accepts(&out, orders[o] == BC_ORDER_NAME ?
				       "the name-order output" :
				       "the kind-order output", gr.seed);
			blob_free(&out);
			out = canon_blob_resolving(&gr.raw, orders[o]);
			kernel_accepts(&out, orders[o] == BC_ORDER_NAME ?
				       "the name-order output, FWDs resolved" :
				       "the kind-order output, FWDs resolved",
				       gr.seed);
			blob_free(&out);
		}
	}
	graph_free(&gr);
}
END_TEST

/*
 * Property 11 (keep_strings, header's mode): the output keeps the input's
 * string section byte for byte, and is the canonical output but for the
 * offsets of the names: canon of it is canon(x), for every permutation.
 */
START_TEST(test_keep_strings)
{
	struct graph gr;

	graph_make(&gr, case_seed(11, _i), 40, 320);
	for (size_t o = 0; o < ARRAY_LEN(orders); o++) {
		struct canon_opts kopts = { .order = orders[o], .keep_strings = true };
		struct blob want = canon_blob(&gr.raw, NULL, orders[o], NULL);

		for (unsigned int p = 0; p < NR_PERMS; p++) {
			struct blob perm = permute_blob(&gr.raw, NULL,
							_i * 131 + p * 7 + 1);
			struct blob kept = canon_blob_opts(&perm, &kopts);
			struct blob got = canon_blob(&kept, NULL, orders[o], NULL);
			const struct btf_header *hp = perm.data, *hk = kept.data;

			ck_assert_uint_eq(hk->str_len, hp->str_len);
			ck_assert_msg(!memcmp((const uint8_t *)kept.data + hk->hdr_len + hk->str_off,
					      (const uint8_t *)perm.data + hp->hdr_len + hp->str_off,
					      hp->str_len),
				      "seed %#llx: keep_strings changed the string section",
				      (unsigned long long)gr.seed);
			assert_same_btf(&got, &want, NULL, "keep_strings", gr.seed,
					orders[o]);
			blob_free(&perm);
			blob_free(&kept);
			blob_free(&got);
		}
		blob_free(&want);
	}
	graph_free(&gr);
}
END_TEST

static TCase *props_tcase(const char *name)
{
	TCase *tc = tcase_create(name);

	tcase_set_timeout(tc, PROPS_TIMEOUT);
	return tc;
}

/*
 * Property 10: the output is in local-key order. canon ranks by a packed
 * prefix of each key and compares whole keys only on ties
 * (bc_order_cmp_local); a prefix that ordered any pair differently from
 * the key would show as two neighbours out of order here.
 */
static void assert_local_order(const struct blob *out, enum bc_order order,
			       uint64_t seed)
{
	struct bc_btf *btf = parse_or_fail(out, NULL);
	uint32_t i;

	for (i = 1; i < btf->nr_types; i++)
		ck_assert_msg(bc_order_cmp_local(order, btf,
						 bc_btf_local(btf, i - 1),
						 bc_btf_local(btf, i)) <= 0,
			      "seed %llu, order %s: [%u] and [%u] out of local-key order",
			      (unsigned long long)seed, bc_order_name(order),
			      btf->start_id + i - 1, btf->start_id + i);
	bc_btf_free(btf);
}

START_TEST(test_local_order)
{
	struct graph gr;

	graph_make(&gr, case_seed(10, _i), 40, 320);
	for (size_t o = 0; o < ARRAY_LEN(orders); o++) {
		struct blob out = canon_blob(&gr.raw, NULL, orders[o], NULL);

		assert_local_order(&out, orders[o], gr.seed);
		blob_free(&out);
	}
	graph_free(&gr);
}
END_TEST

/*
 * A name of 'a's whose last letter may be a 'b', of a length at or next
 * to a 4-byte chunk edge: few names, so keys tie on them and differ in
 * what follows, or differ at the edges.
 */
static void key_stress_name(struct prng *r, char *buf)
{
	static const uint32_t lens[] = { 0, 1, 3, 4, 5, 8, 9, 19, 20, 21, 24, 25 };
	uint32_t len = lens[prng_next(r) % ARRAY_LEN(lens)];

	memset(buf, 'a', len);
	if (len && prng_next(r) % 2)
		buf[len - 1] = 'b';
	buf[len] = '\0';
}

/*
 * Keys that differ late or at chunk edges: INTs, signed and unsigned
 * ENUMs and ENUM64s with values near the sign bit and high words,
 * FUNC_PROTOs and STRUCTs of several entries, all named from a two-letter
 * alphabet, so that names agree for 4, 8, 20 or 24 bytes and differ after.
 */
START_TEST(test_local_order_keys)
{
	struct btf *b = btf__new_empty();
	struct prng r;
	struct blob in;
	char name[32];
	uint32_t i, e, n;
	int id;

	prng_seed(&r, case_seed(11, _i));
	ck_assert_ptr_nonnull(b);
	id = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	ck_assert_int_gt(id, 0);
	for (i = 0; i < 120; i++) {
		uint64_t v = prng_next(&r);
		bool is_signed = v & 1;

		key_stress_name(&r, name);
		n = 1 + prng_next(&r) % 4;
		switch (prng_next(&r) % 5) {
		case 0:
			if (!name[0])
				strcpy(name, "a");
			id = btf__add_int(b, name, 1 << (prng_next(&r) % 4), 0);
			break;
		case 1:
			id = btf__add_enum(b, name, 4);
			for (e = 0; id > 0 && e < n; e++) {
				key_stress_name(&r, name);
				if (!name[0])
					strcpy(name, "b");
				ck_assert_int_eq(btf__add_enum_value(b, name,
					is_signed ? (int64_t)(int32_t)(prng_next(&r) % 5 + 0x7ffffffe) :
					(int64_t)(prng_next(&r) % 5 + 0x7ffffffe)), 0);
			}
			break;
		case 2:
			id = btf__add_enum64(b, name, 8, is_signed);
			for (e = 0; id > 0 && e < n; e++) {
				key_stress_name(&r, name);
				if (!name[0])
					strcpy(name, "b");
				ck_assert_int_eq(btf__add_enum64_value(b, name,
					(prng_next(&r) % 3) << 63 | (prng_next(&r) % 3) << 31 |
					prng_next(&r) % 3), 0);
			}
			break;
		case 3:
			id = btf__add_func_proto(b, 1);
			for (e = 0; id > 0 && e < n; e++) {
				key_stress_name(&r, name);
				ck_assert_int_eq(btf__add_func_param(b, name, 1), 0);
			}
			break;
		default:
			id = btf__add_struct(b, name, 4 * n);
			for (e = 0; id > 0 && e < n; e++) {
				key_stress_name(&r, name);
				ck_assert_int_eq(btf__add_field(b, name, 1,
					32 * (prng_next(&r) % n), 0), 0);
			}
		}
		ck_assert_int_gt(id, 0);
	}
	in = blob_from_libbpf(b);
	for (size_t o = 0; o < ARRAY_LEN(orders); o++) {
		struct blob out = canon_blob(&in, NULL, orders[o], NULL);
		struct blob perm = permute_blob(&in, NULL, _i + 1);
		struct blob again = canon_blob(&perm, NULL, orders[o], NULL);

		assert_local_order(&out, orders[o], r.s);
		ck_assert_msg(blob_eq(&again, &out),
			      "canon(permute(x)) != canon(x) (order %s)",
			      bc_order_name(orders[o]));
		blob_free(&again);
		blob_free(&perm);
		blob_free(&out);
	}
	blob_free(&in);
	btf__free(b);
}
END_TEST

Suite *props_suite(void)
{
	Suite *s = suite_create("props");
	TCase *tc;

	tc = props_tcase("permute");
	tcase_add_loop_test(tc, test_permute, 0, NR_GRAPHS);
	suite_add_tcase(s, tc);

	tc = props_tcase("keep_strings");
	tcase_add_loop_test(tc, test_keep_strings, 0, NR_GRAPHS);
	suite_add_tcase(s, tc);

	tc = props_tcase("idempotent");
	tcase_add_loop_test(tc, test_idempotent, 0, NR_GRAPHS);
	suite_add_tcase(s, tc);

	tc = props_tcase("merged");
	tcase_add_loop_test(tc, test_merged, 0, NR_GRAPHS);
	suite_add_tcase(s, tc);

	tc = props_tcase("content");
	tcase_add_loop_test(tc, test_content, 0, NR_GRAPHS);
	suite_add_tcase(s, tc);

	tc = props_tcase("var_identity");
	tcase_add_test(tc, test_var_identity_small);
	tcase_add_loop_test(tc, test_var_identity, 0, NR_GRAPHS);
	suite_add_tcase(s, tc);

	tc = props_tcase("split");
	tcase_add_loop_test(tc, test_split, 0, NR_SPLIT_GRAPHS);
	suite_add_tcase(s, tc);

	tc = props_tcase("libbpf");
	tcase_add_loop_test(tc, test_libbpf, 0, NR_GRAPHS);
	suite_add_tcase(s, tc);

	tc = props_tcase("resolve_fwds");
	tcase_add_loop_test(tc, test_resolve_fwds, 0, NR_GRAPHS);
	tcase_add_test(tc, test_resolve_fwds_rounds);
	tcase_add_test(tc, test_resolve_fwds_cycle);
	tcase_add_loop_test(tc, test_resolve_fwds_idempotent, 0, NR_GRAPHS);
	suite_add_tcase(s, tc);

	tc = props_tcase("parallel");
	tcase_add_loop_test(tc, test_parallel, 0, NR_GRAPHS);
	suite_add_tcase(s, tc);

	tc = props_tcase("local_order");
	tcase_add_loop_test(tc, test_local_order, 0, NR_GRAPHS);
	tcase_add_loop_test(tc, test_local_order_keys, 0, NR_GRAPHS);
	suite_add_tcase(s, tc);

	tc = props_tcase("kernel");
	tcase_add_loop_test(tc, test_kernel, 0, NR_KERNEL_GRAPHS);
	suite_add_tcase(s, tc);

	return s;
}
