// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-CU encoding: DWARF type DIEs to BTF types, with no intermediate
 * representation of the unit.
 *
 * The problem: BTF ids are assigned in the order types are added, but a
 * type may refer to one not added yet, or to itself through a pointer
 * (struct list { struct list *next; }). The answer is to reserve before
 * emitting. The first time a DIE is needed as a type it gets the next free
 * id (or ids: a 3-dimensional array becomes 3 ARRAYs, a tagged pointer a
 * PTR followed by its TYPE_TAGs) and joins a FIFO queue; the queue is then
 * drained strictly in reservation order, so the ids libbpf hands out match
 * the reserved ones. Emitting a DIE only needs the ids of what it refers
 * to, never their content, so cycles cost nothing.
 *
 *	struct s { struct s *next; int v; };
 *	walk: s reserved as [1]; drain [1]: member next needs DIE ptr -> [2],
 *	member v needs int -> [3]; STRUCT [1] emitted; drain [2]: PTR -> [1];
 *	drain [3]: INT.
 *
 * DECL_TAGs are referred to by nothing, so they are collected on the way
 * and appended after the queue drains.
 *
 * The walk visits the unit's top level, subprograms and lexical blocks
 * (where local types live), not variables, parameters, call sites or
 * inlined instances. Types reached only through references are encoded on
 * demand, wherever they live (type units, other CUs via DW_FORM_ref_addr).
 * Top-level subprograms and variables also go to funcs.c
 * (cand_collect_die), which keeps the function and variable candidates
 * and says which type each needs; the walk encodes it (collect_candidate).
 *
 * Forward declarations keep their names: libbpf's dedup then treats a FWD
 * and a struct or union of the same name as equivalent, as pahole relies
 * on. That equivalence is not transitive (one FWD, two different
 * definitions), so its result depends on the order of the types; the
 * driver (encoder.c) makes that order a function of the input alone.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

#include "annot.h"
#include "cu_encoder.h"
#include "funcs.h"

#ifndef DW_TAG_atomic_type
#define DW_TAG_atomic_type 0x47
#endif
#ifndef DW_TAG_immutable_type
#define DW_TAG_immutable_type 0x4b
#endif

/* --- DIE -> type id map (addr_map.h), keyed by the DIE's address */

/* --- reservation queue */

enum queue_what {
	QUEUE_DIE,		/* a type DIE */
	QUEUE_ARRAY_INDEX,	/* the arrays' index type, an int */
};

struct cu_queue_entry {
	enum queue_what what;
	uint32_t id;		/* first reserved id */
	Dwarf_Die die;
};

struct pending_decl_tag {
	char *value;
	uint32_t target;
	int component;		/* -1: the type itself */
};

static Dwarf_Off die_off(Dwarf_Die *die)
{
	return dwarf_dieoffset(die);
}

static int die_error(struct cu_encoder *e, Dwarf_Die *die, int err,
		     const char *what)
{
	int derr = dwarf_errno();

	return bc_log_error(e->log, err,
		"%s: CU at 0x%llx, DIE at 0x%llx: %s%s%s", e->path,
		(unsigned long long)e->cu_off,
		(unsigned long long)(die ? die_off(die) : 0), what,
		derr ? ": " : "", derr ? dwarf_errmsg(derr) : "");
}

static int btf_error(struct cu_encoder *e, Dwarf_Die *die, int err)
{
	char what[96];

	snprintf(what, sizeof(what), "cannot add BTF type (tag 0x%x): %s",
		 die ? dwarf_tag(die) : 0, strerror(err < 0 ? -err : err));
	return bc_log_error(e->log, err < 0 ? err : -err,
		"%s: CU at 0x%llx, DIE at 0x%llx: %s", e->path,
		(unsigned long long)e->cu_off,
		(unsigned long long)(die ? die_off(die) : 0), what);
}

static int die_udata(Dwarf_Die *die, unsigned int name, Dwarf_Word *value)
{
	Dwarf_Attribute mem;

	if (!dwarf_attr_integrate(die, name, &mem))
		return -ENOENT;
	return dwarf_formudata(&mem, value) ? -EINVAL : 0;
}

/*
 * The attributes the encoder reads, collected in one scan of the DIE
 * (die_reader_attrs) instead of one scan per dwarf_attr call; a member DIE
 * used to cost a dozen scans, most of them misses.
 */
enum die_attr_slot {
	DA_NAME, DA_TYPE, DA_BYTE_SIZE, DA_ENCODING, DA_DECLARATION,
	DA_EXTERNAL, DA_BIT_SIZE, DA_DATA_BIT_OFFSET, DA_BIT_OFFSET,
	DA_MEMBER_LOCATION, DA_COUNT, DA_UPPER_BOUND, DA_LOWER_BOUND,
	DA_CONST_VALUE, DA_INDIRECT, DA_DECL_LINE, DA_DECL_COLUMN, DA_SIBLING, DA_DECL_FILE,
	DA_GNU_ANNOTATION, DA_NR,
};

struct die_attrs {
	Dwarf_Die *die;
	uint32_t have;			/* bit per slot */
	Dwarf_Attribute a[DA_NR];
};

static int da_slot(unsigned int name)
{
	switch (name) {
	case DW_AT_name:			return DA_NAME;
	case DW_AT_type:			return DA_TYPE;
	case DW_AT_byte_size:			return DA_BYTE_SIZE;
	case DW_AT_encoding:			return DA_ENCODING;
	case DW_AT_declaration:			return DA_DECLARATION;
	case DW_AT_external:			return DA_EXTERNAL;
	case DW_AT_bit_size:			return DA_BIT_SIZE;
	case DW_AT_data_bit_offset:		return DA_DATA_BIT_OFFSET;
	case DW_AT_bit_offset:			return DA_BIT_OFFSET;
	case DW_AT_data_member_location:	return DA_MEMBER_LOCATION;
	case DW_AT_count:			return DA_COUNT;
	case DW_AT_upper_bound:			return DA_UPPER_BOUND;
	case DW_AT_lower_bound:			return DA_LOWER_BOUND;
	case DW_AT_const_value:			return DA_CONST_VALUE;
	case DW_AT_specification:
	case DW_AT_abstract_origin:		return DA_INDIRECT;
	case DW_AT_decl_line:			return DA_DECL_LINE;
	case DW_AT_decl_column:			return DA_DECL_COLUMN;
	case DW_AT_sibling:			return DA_SIBLING;
	case DW_AT_decl_file:			return DA_DECL_FILE;
	case DW_AT_GNU_annotation:		return DA_GNU_ANNOTATION;
	default:				return -1;
	}
}

/* libdw's tag, child and sibling, read through the worker's tables */
static int die_tag(struct cu_encoder *e, Dwarf_Die *die)
{
	return die_reader_tag(&e->reader, die);
}

static bool die_haschildren(struct cu_encoder *e, Dwarf_Die *die)
{
	return die_reader_haschildren(&e->reader, die);
}

/*
 * Can die carry BTF annotations: clang's annotation children or a GCC
 * DW_AT_GNU_annotation chain? The abbreviation says; most DIEs say no.
 */
static bool may_be_annotated(struct cu_encoder *e, Dwarf_Die *die)
{
	return die_haschildren(e, die) ||
	       die_reader_hasattr(&e->reader, die, DW_AT_GNU_annotation);
}

static int die_child(struct cu_encoder *e, Dwarf_Die *die, Dwarf_Die *child)
{
	return die_reader_child(&e->reader, die, child);
}

static int die_sibling(struct cu_encoder *e, Dwarf_Die *die, Dwarf_Die *sib)
{
	return die_reader_sibling(&e->reader, die, sib);
}

/* Returns 0, or -EINVAL when libdw cannot decode the attributes. */
static int da_read(struct cu_encoder *e, struct die_attrs *da, Dwarf_Die *die)
{
	da->die = die;
	return die_reader_attrs(&e->reader, die, da->a, &da->have);
}

/* da_read, with a message naming the DIE when it fails. */
static int da_load(struct cu_encoder *e, struct die_attrs *da, Dwarf_Die *die)
{
	if (!da_read(e, da, die))
		return 0;
	return die_error(e, die, -EINVAL, "cannot decode its attributes");
}

/* The attribute in slot (name), following specification/abstract origin. */
static Dwarf_Attribute *da_get(struct die_attrs *da, int slot, unsigned int name)
{
	if (da->have & (1u << slot))
		return &da->a[slot];
	/* rare (C++ out-of-line definitions): let libdw follow the chain */
	if ((da->have & (1u << DA_INDIRECT)) &&
	    dwarf_attr_integrate(da->die, name, &da->a[slot])) {
		da->have |= 1u << slot;
		return &da->a[slot];
	}
	return NULL;
}

static bool da_flag(struct die_attrs *da, int slot, unsigned int name)
{
	Dwarf_Attribute *a = da_get(da, slot, name);
	bool flag = false;

	return a && !dwarf_formflag(a, &flag) && flag;
}

static int da_udata(struct die_attrs *da, int slot, unsigned int name,
		    Dwarf_Word *value)
{
	Dwarf_Attribute *a = da_get(da, slot, name);

	if (!a)
		return -ENOENT;
	return dwarf_formudata(a, value) ? -EINVAL : 0;
}

static const char *da_name(struct die_attrs *da)
{
	Dwarf_Attribute *a = da_get(da, DA_NAME, DW_AT_name);
	const char *name = a ? dwarf_formstring(a) : NULL;

	return name ? name : "";
}

static bool is_float_encoding(Dwarf_Word enc)
{
	return enc == DW_ATE_float || enc == DW_ATE_complex_float ||
	       enc == DW_ATE_imaginary_float || enc == DW_ATE_decimal_float;
}

/* How many BTF types the DIE becomes (0: none, it maps to void). */
static uint32_t die_type_count(struct cu_encoder *e, Dwarf_Die *die)
{
	Dwarf_Die child;
	uint32_t n = 0;

	switch (die_tag(e, die)) {
	case DW_TAG_base_type:
		return 1;
	case DW_TAG_array_type:
		if (e->features->flat_arrays)
			return 1;
		if (!die_child(e, die, &child)) {
			do {
				if (die_tag(e, &child) == DW_TAG_subrange_type)
					n++;
			} while (!die_sibling(e, &child, &child));
		}
		return n ? n : 1;
	case DW_TAG_pointer_type: {
		/* a loop in a GCC chain: no tags here, emit_pointer refuses it */
		int tags = e->features->type_tags && may_be_annotated(e, die) ?
			   annot_type_tags(die, NULL, 0) : 0;

		return 1 + (tags > 0 ? tags : 0);
	}
	default:
		return 1;
	}
}

static bool is_type_tag(int tag)
{
	switch (tag) {
	case DW_TAG_base_type:
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_typedef:
	case DW_TAG_array_type:
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
	case DW_TAG_subroutine_type:
		return true;
	default:
		return false;
	}
}

static int queue_push(struct cu_encoder *e, enum queue_what what, uint32_t id,
		      Dwarf_Die *die)
{
	struct cu_queue_entry *q;

	if (e->q_len == e->q_cap) {
		uint32_t cap = e->q_cap ? e->q_cap * 2 : 1024;

		q = realloc(e->queue, cap * sizeof(*q));
		if (!q)
			return -ENOMEM;
		e->queue = q;
		e->q_cap = cap;
	}
	q = &e->queue[e->q_len++];
	q->what = what;
	q->id = id;
	if (die)
		q->die = *die;
	return 0;
}

static int type_id_of(struct cu_encoder *e, Dwarf_Die *die, uint32_t *id);

/*
 * --- the chunk's type cache
 *
 * A chunk's units include the same headers over and over: on a vmlinux,
 * nine in ten types a unit defines are copies of one an earlier unit of
 * the chunk already encoded, which dedup would throw away. The cache maps
 * the fingerprint of a type DIE to the id it was encoded under, and a
 * later unit's copy takes that id without being read further.
 *
 * A definition's fingerprint covers its name, size, declaration line and
 * column, the encoded size of its DIE subtree, and each member's name,
 * offset, bit size and type. A member's type is taken in full down to the
 * next named type, which is taken by name, size, declaration line and
 * column and subtree size (a declaration: by name). So two copies share an
 * id when they are the same source text with the same layout and the same
 * types around them. (Only the name and place: the compat ELF loader
 * includes binfmt_elf.c with its types renamed by macros, and the struct
 * it defines there at the same line, of the same size, is another type.)
 * Anything with BTF annotations (clang's DW_TAG_LLVM_annotation children,
 * GCC's DW_AT_GNU_annotation) is not cached.
 *
 * Fingerprints of the types members use are memoized per unit.
 */
struct type_cache_entry {
	uint64_t key;			/* fingerprint, 0 = empty */
	uint32_t id;
};

struct type_cache {
	struct type_cache_entry *slots;
	uint32_t cap, used;
	/* DIE address -> fingerprint as a member's type, per unit */
	struct addr_map memo;
};

/* names' text hashes by .debug_str offset + 1 (0: empty), direct-mapped */
struct name_hash {
	uint64_t key;
	uint64_t hash;
};

#define NAME_HASHES	32768

#define FP_MAX_DEPTH 24
#define FP_UNCACHEABLE 1	/* memoized "cannot be fingerprinted" */

static uint64_t fp_mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 29);
}

static uint64_t fp_text(const char *str)
{
	uint64_t v = 0xcbf29ce484222325ULL;

	for (; str && *str; str++)
		v = (v ^ (unsigned char)*str) * 0x100000001b3ULL;
	return v;
}

static uint64_t fp_str(uint64_t h, const char *str)
{
	return fp_mix(h, fp_text(str));
}

/* An attribute's constant: udata, or a DW_OP_plus_uconst location. */
static bool fp_value(struct cu_encoder *e, Dwarf_Attribute *a, Dwarf_Word *v)
{
	Dwarf_Op *ops;
	size_t nops;

	if (!die_reader_udata(&e->reader, a, v))
		return true;
	/* member locations may be DW_OP_plus_uconst expressions */
	if (dwarf_getlocation(a, &ops, &nops) || nops != 1 ||
	    ops[0].atom != DW_OP_plus_uconst)
		return false;
	*v = ops[0].number;
	return true;
}

/* Mixes in an attribute's constant value (or its absence). */
static bool fp_const(struct cu_encoder *e, uint64_t *h, struct die_attrs *da,
		     int slot, unsigned int name)
{
	Dwarf_Attribute *a = da_get(da, slot, name);
	Dwarf_Word v;

	if (!a) {
		*h = fp_mix(*h, 0xa0 + slot);
		return true;
	}
	if (!fp_value(e, a, &v))
		return false;
	*h = fp_mix(fp_mix(*h, 0xb0 + slot), v);
	return true;
}

/*
 * A member's (or parameter's) place and size: which of these constants
 * it has, in one mix, then their values. Through specification or
 * abstract origin (C++) one by one, as libdw follows them.
 */
static const struct {
	int slot;
	unsigned int name;
} fp_member_attrs[] = {
	{ DA_MEMBER_LOCATION, DW_AT_data_member_location },
	{ DA_DATA_BIT_OFFSET, DW_AT_data_bit_offset },
	{ DA_BIT_SIZE, DW_AT_bit_size },
	{ DA_BIT_OFFSET, DW_AT_bit_offset },
	{ DA_BYTE_SIZE, DW_AT_byte_size },
	{ DA_EXTERNAL, DW_AT_external },
	{ DA_DECLARATION, DW_AT_declaration },
};

#define FP_MEMBER_NR (sizeof(fp_member_attrs) / sizeof(fp_member_attrs[0]))

static bool fp_member_consts(struct cu_encoder *e, uint64_t *h,
			     struct die_attrs *da)
{
	uint32_t i, mask = 0;
	Dwarf_Word v;

	if (da->have & (1u << DA_INDIRECT)) {
		for (i = 0; i < FP_MEMBER_NR; i++)
			if (!fp_const(e, h, da, fp_member_attrs[i].slot,
				      fp_member_attrs[i].name))
				return false;
		return true;
	}
	for (i = 0; i < FP_MEMBER_NR; i++)
		mask |= da->have & (1u << fp_member_attrs[i].slot);
	*h = fp_mix(*h, 0x6d656d00 ^ mask);
	for (i = 0; i < FP_MEMBER_NR; i++) {
		if (!(mask & (1u << fp_member_attrs[i].slot)))
			continue;
		if (!fp_value(e, &da->a[fp_member_attrs[i].slot], &v))
			return false;
		*h = fp_mix(*h, v);
	}
	return true;
}

/*
 * The encoded size of a DIE's subtree, up to its DW_AT_sibling (GCC emits
 * it on DIEs with children; clang does not: then the size is left out).
 */
static void fp_subtree(struct cu_encoder *e, struct die_attrs *da, uint64_t *h)
{
	Dwarf_Attribute *a = da_get(da, DA_SIBLING, DW_AT_sibling);
	Dwarf_Off ref;
	Dwarf_Die sib;
	int err;

	if (!a)
		return;
	/* a reference within the unit: offsets from the unit's start */
	err = die_reader_ref(&e->reader, a, &ref);
	if (!err)
		*h = fp_mix(fp_mix(*h, 0x5349424c), ref - dwarf_cuoffset(da->die));
	else if (err == -ENOENT && dwarf_formref_die(a, &sib))
		*h = fp_mix(fp_mix(*h, 0x5349424c),
			    dwarf_dieoffset(&sib) - dwarf_dieoffset(da->die));
}


static bool header_definition(struct die_attrs *da);

/*
 * A name, by its characters. The hash of a DW_FORM_strp name is kept by
 * its .debug_str offset (one text per offset; not one offset per text: a
 * relocatable link such as a module keeps each object's strings), so the
 * characters of a name met again are not read again.
 */
static uint64_t fp_name(struct cu_encoder *e, uint64_t h, struct die_attrs *da)
{
	Dwarf_Attribute *a = da_get(da, DA_NAME, DW_AT_name);
	struct name_hash *n;
	uint64_t off, k;

	if (!a || !e->names || die_reader_strp(&e->reader, a, &off))
		return fp_str(h, da_name(da));
	k = off * 0x9e3779b97f4a7c15ULL;
	n = &e->names[(k >> 40) & (NAME_HASHES - 1)];
	if (n->key != off + 1) {
		n->key = off + 1;
		n->hash = fp_text(da_name(da));
	}
	return fp_mix(h, n->hash);
}

/*
 * A named type as others see it: which one, not what is in it. Only a
 * declaration or a header's definition can be named that way; a type
 * that refers to a definition in the unit's own source file is not
 * cached (it is that unit's alone, as a rule; see header_definition).
 */
static bool fp_named(struct cu_encoder *e, struct die_attrs *da, uint64_t *h)
{
	*h = fp_name(e, *h, da);
	if (da_flag(da, DA_DECLARATION, DW_AT_declaration)) {
		*h = fp_mix(*h, 0xdec1);
		return true;
	}
	if (!header_definition(da))
		return false;
	fp_subtree(e, da, h);
	return fp_const(e, h, da, DA_BYTE_SIZE, DW_AT_byte_size) &&
	       fp_const(e, h, da, DA_DECL_LINE, DW_AT_decl_line) &&
	       fp_const(e, h, da, DA_DECL_COLUMN, DW_AT_decl_column);
}

static bool fp_type(struct cu_encoder *e, Dwarf_Die *die, int depth,
		    uint64_t *h);
static uint32_t subrange_count(struct cu_encoder *e, Dwarf_Die *sub);

static bool fp_ref(struct cu_encoder *e, struct die_attrs *da, int depth,
		   uint64_t *h)
{
	Dwarf_Attribute *a = da_get(da, DA_TYPE, DW_AT_type);
	Dwarf_Die target;

	if (!a) {
		*h = fp_mix(*h, 0x766f6964);	/* void */
		return true;
	}
	if (!dwarf_formref_die(a, &target))
		return false;
	return fp_type(e, &target, depth + 1, h);
}

/* The members (or enumerators, parameters, subranges) of die. */
static bool fp_children(struct cu_encoder *e, Dwarf_Die *die, int depth,
			uint64_t *h)
{
	struct die_attrs da;
	Dwarf_Die child;

	if (die_child(e, die, &child))
		return true;
	do {
		int tag = die_tag(e, &child);
		Dwarf_Attribute *a;
		Dwarf_Word v;

		*h = fp_mix(*h, tag);
		switch (tag) {
		case DW_TAG_member:
		case DW_TAG_formal_parameter:
			if (die_haschildren(e, &child))
				return false;	/* annotations */
			if (da_read(e, &da, &child) ||
			    (da.have & (1u << DA_GNU_ANNOTATION)))
				return false;
			*h = fp_name(e, *h, &da);
			if (!fp_member_consts(e, h, &da) ||
			    !fp_ref(e, &da, depth, h))
				return false;
			break;
		case DW_TAG_enumerator:
			if (da_read(e, &da, &child))
				return false;
			*h = fp_name(e, *h, &da);
			a = da_get(&da, DA_CONST_VALUE, DW_AT_const_value);
			if (!a || die_reader_udata(&e->reader, a, &v))
				return false;
			*h = fp_mix(fp_mix(*h, dwarf_whatform(a)), v);
			break;
		case DW_TAG_subrange_type:
			*h = fp_mix(*h, subrange_count(e, &child));
			break;
		case DW_TAG_unspecified_parameters:
			break;
		case DW_TAG_LLVM_annotation:
		case DW_TAG_GNU_annotation:
			return false;
		default:
			/* nested definitions and the like: reached by reference */
			break;
		}
	} while (!die_sibling(e, &child, &child));
	return true;
}

/* A type as a member (or pointer, typedef...) sees it; uncached. */
static bool fp_type_compute(struct cu_encoder *e, Dwarf_Die *die, int depth,
			    uint64_t *h)
{
	int tag = die_tag(e, die);
	struct die_attrs da;

	if (depth > FP_MAX_DEPTH)
		return false;
	if (da_read(e, &da, die) || (da.have & (1u << DA_GNU_ANNOTATION)))
		return false;
	*h = fp_mix(*h, tag);
	switch (tag) {
	case DW_TAG_base_type:
		*h = fp_name(e, *h, &da);
		return fp_const(e, h, &da, DA_ENCODING, DW_AT_encoding) &&
		       fp_const(e, h, &da, DA_BYTE_SIZE, DW_AT_byte_size);
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
	case DW_TAG_immutable_type:
		if (die_haschildren(e, die))
			return false;	/* type tags */
		return fp_ref(e, &da, depth, h);
	case DW_TAG_unspecified_type:
		return true;
	case DW_TAG_typedef:
		if (die_haschildren(e, die))
			return false;
		return fp_named(e, &da, h) && fp_ref(e, &da, depth, h);
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
		if (da_get(&da, DA_NAME, DW_AT_name))
			return fp_named(e, &da, h);
		/* anonymous: in full (it cannot refer to itself) */
		return fp_const(e, h, &da, DA_DECLARATION, DW_AT_declaration) &&
		       fp_const(e, h, &da, DA_BYTE_SIZE, DW_AT_byte_size) &&
		       (tag != DW_TAG_enumeration_type ||
			fp_ref(e, &da, depth, h)) &&
		       fp_children(e, die, depth, h);
	case DW_TAG_array_type:
	case DW_TAG_subroutine_type:
		return fp_ref(e, &da, depth, h) &&
		       fp_children(e, die, depth, h);
	default:
		return false;
	}
}

static bool fp_type(struct cu_encoder *e, Dwarf_Die *die, int depth,
		    uint64_t *h)
{
	struct type_cache *c = e->cache;
	uint64_t v = 0x74797065;
	uint32_t slot;

	if (addr_map_reserve(&c->memo))
		return false;
	slot = addr_map_slot(&c->memo, die->addr);
	if (c->memo.slots[slot].key) {
		v = c->memo.slots[slot].val;
	} else {
		if (!fp_type_compute(e, die, depth, &v) || v == 0)
			v = FP_UNCACHEABLE;
		/* the computation may have grown the table */
		slot = addr_map_slot(&c->memo, die->addr);
		addr_map_put(&c->memo, slot, die->addr, v);
	}
	if (v == FP_UNCACHEABLE)
		return false;
	*h = fp_mix(*h, v);
	return true;
}

/*
 * Is this a definition outside the unit's own source file (file 0 or 1 of
 * the line table: GCC numbers the primary file 1, DWARF 5 also 0)? Then
 * its name, place and subtree size identify it, and with GCC (which gives
 * the subtree size through DW_AT_sibling) its members need not be read.
 * Definitions in the unit's source file are never cached: that is where
 * "the same source text under other macros" lives, as when
 * fs/compat_binfmt_elf.c includes fs/binfmt_elf.c, and such types belong
 * to one unit anyway.
 */
static bool header_definition(struct die_attrs *da)
{
	Dwarf_Word file;

	return !da_udata(da, DA_DECL_FILE, DW_AT_decl_file, &file) && file > 1;
}

/*
 * Fingerprint of a type DIE to look up in the cache, or 0 when it is not
 * to be cached (declarations and base types: cheap to encode again).
 */
static uint64_t fingerprint(struct cu_encoder *e, Dwarf_Die *die, int tag)
{
	struct die_attrs da;
	uint64_t h = 0x62746663616e6f6eULL;

	switch (tag) {
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
		if (da_read(e, &da, die))
			return 0;
		if ((da.have & ((1u << DA_INDIRECT) | (1u << DA_GNU_ANNOTATION))) ||
		    da_flag(&da, DA_DECLARATION, DW_AT_declaration))
			return 0;
		if (!da_get(&da, DA_NAME, DW_AT_name))
			break;	/* anonymous: as a member sees it, in full */
		/* named: which one, and what is in it */
		h = fp_mix(h, tag);
		if (!fp_named(e, &da, &h) ||
		    (tag == DW_TAG_enumeration_type && !fp_ref(e, &da, 0, &h)))
			return 0;
		/* no subtree size (clang): the members, one by one */
		if (!da_get(&da, DA_SIBLING, DW_AT_sibling) &&
		    !fp_children(e, die, 0, &h))
			return 0;
		return h ? h : 2;
	case DW_TAG_typedef:
	case DW_TAG_pointer_type:
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_array_type:
	case DW_TAG_subroutine_type:
		break;
	default:
		return 0;
	}
	if (!fp_type(e, die, 0, &h))
		return 0;
	return h ? h : 2;
}

static int type_cache_grow(struct type_cache *c)
{
	uint32_t old_cap = c->cap, cap = old_cap ? old_cap * 2 : 4096, i;
	struct type_cache_entry *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < old_cap; i++) {
		uint32_t j;

		if (!c->slots[i].key)
			continue;
		for (j = c->slots[i].key & (cap - 1); slots[j].key;
		     j = (j + 1) & (cap - 1))
			;
		slots[j] = c->slots[i];
	}
	free(c->slots);
	c->slots = slots;
	c->cap = cap;
	return 0;
}

/* Slot of key, or the empty slot where it goes. */
static uint32_t type_cache_slot(const struct type_cache *c, uint64_t key)
{
	uint32_t j;

	for (j = key & (c->cap - 1); c->slots[j].key && c->slots[j].key != key;
	     j = (j + 1) & (c->cap - 1))
		;
	return j;
}

/* Id of the type the DIE's DW_AT_type names; void (0) when there is none. */
static int da_type_id(struct cu_encoder *e, struct die_attrs *da, uint32_t *id)
{
	Dwarf_Attribute *a = da_get(da, DA_TYPE, DW_AT_type);
	Dwarf_Die target;

	*id = 0;
	if (!a)
		return 0;
	if (!dwarf_formref_die(a, &target))
		return die_error(e, da->die, -EINVAL, "bad DW_AT_type reference");
	return type_id_of(e, &target, id);
}

static int ref_type_id(struct cu_encoder *e, Dwarf_Die *die, uint32_t *id)
{
	struct die_attrs da;

	if (da_load(e, &da, die))
		return -EINVAL;
	return da_type_id(e, &da, id);
}

/*
 * Atomic and immutable types (no BTF kind) and type-unit stubs (a
 * DW_AT_signature) stand for another DIE, whose id type_id_of() finds by
 * recursing into it (through ref_type_id() when target is NULL). Real
 * DWARF chains these a few deep at most; a longer chain is a loop, as in
 * an atomic type that is its own DW_AT_type, and is refused before it
 * overflows the stack.
 */
#define MAX_STAND_IN_DEPTH 32

static int stand_in_type_id(struct cu_encoder *e, Dwarf_Die *die,
			    Dwarf_Die *target, uint32_t *id)
{
	int err;

	if (e->stand_in_depth >= MAX_STAND_IN_DEPTH) {
		dwarf_errno();	/* an earlier libdw error is not the cause */
		return die_error(e, die, -ELOOP,
			"atomic, immutable or type-unit stub types that refer to each other in a loop");
	}
	e->stand_in_depth++;
	err = target ? type_id_of(e, target, id) : ref_type_id(e, die, id);
	e->stand_in_depth--;
	return err;
}

/* Id of a type DIE, reserving it (and queueing it) on first use. */
static int type_id_of(struct cu_encoder *e, Dwarf_Die *die, uint32_t *id)
{
	uint32_t slot, count, fp_slot = 0;
	uint64_t fp;
	int tag, err;

	/* before dwarf_tag: a fresh DIE's abbrev lookup takes a lock */
	if (addr_map_reserve(&e->map))
		return -ENOMEM;
	slot = addr_map_slot(&e->map, die->addr);
	if (e->map.slots[slot].key) {
		*id = e->map.slots[slot].val;
		return 0;
	}
	tag = die_tag(e, die);
	switch (tag) {
	case DW_TAG_atomic_type:
	case DW_TAG_immutable_type:
		/* no BTF kind: stands for its underlying type */
		return stand_in_type_id(e, die, NULL, id);
	case DW_TAG_unspecified_type:
		*id = 0;
		return 0;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
		/*
		 * With type units a unit holds only a stub of the type, with
		 * DW_AT_signature naming the type unit's definition.
		 */
		if (die_reader_hasattr(&e->reader, die, DW_AT_signature)) {
			Dwarf_Attribute sig;
			Dwarf_Die def;

			if (!dwarf_attr(die, DW_AT_signature, &sig) ||
			    !dwarf_formref_die(&sig, &def))
				return die_error(e, die, -EINVAL,
					"type unit signature that names no type unit");
			return stand_in_type_id(e, die, &def, id);
		}
		break;
	default:
		if (!is_type_tag(tag)) {
			char what[80];

			snprintf(what, sizeof(what),
				 "referenced as a type, but its tag 0x%x is not a type",
				 tag);
			return die_error(e, die, -EINVAL, what);
		}
	}
	fp = e->use_cache ? fingerprint(e, die, tag) : 0;
	if (fp) {
		if ((e->cache->used + 1) * 2 > e->cache->cap &&
		    type_cache_grow(e->cache))
			return -ENOMEM;
		fp_slot = type_cache_slot(e->cache, fp);
		if (e->cache->slots[fp_slot].key) {
			/* a copy of a type an earlier unit encoded */
			*id = e->cache->slots[fp_slot].id;
			addr_map_put(&e->map, slot, die->addr, *id);
			e->cache_hits++;
			return 0;
		}
	}
	count = die_type_count(e, die);
	*id = count ? e->next_id : 0;
	addr_map_put(&e->map, slot, die->addr, *id);
	if (fp && count) {
		e->cache->slots[fp_slot].key = fp;
		e->cache->slots[fp_slot].id = *id;
		e->cache->used++;
	}
	if (!count)
		return 0;
	err = queue_push(e, QUEUE_DIE, e->next_id, die);
	e->next_id += count;
	return err;
}

static int array_index_id(struct cu_encoder *e, uint32_t *id)
{
	int err = 0;

	if (!e->array_index_id) {
		e->array_index_id = e->next_id++;
		err = queue_push(e, QUEUE_ARRAY_INDEX, e->array_index_id, NULL);
	}
	*id = e->array_index_id;
	return err;
}

/* Where add_decl_tag() puts what it finds. */
struct decl_tag_sink {
	struct cu_encoder *e;
	uint32_t target;
	int component;
};

static int add_decl_tag(void *ctx, Dwarf_Die *annot, const char *value)
{
	struct decl_tag_sink *sink = ctx;
	struct cu_encoder *e = sink->e;
	struct pending_decl_tag *t;

	if (!value)
		return die_error(e, annot, -EINVAL,
				 "btf_decl_tag annotation without a value");
	if (e->nr_tags == e->tags_cap) {
		uint32_t cap = e->tags_cap ? e->tags_cap * 2 : 64;

		t = realloc(e->tags, cap * sizeof(*t));
		if (!t)
			return -ENOMEM;
		e->tags = t;
		e->tags_cap = cap;
	}
	t = &e->tags[e->nr_tags];
	t->value = strdup(value);
	if (!t->value)
		return -ENOMEM;
	t->target = sink->target;
	t->component = sink->component;
	e->nr_tags++;
	return 0;
}

/* The btf_decl_tag annotations of die, clang's or GCC's, on target. */
static int add_decl_tags(struct cu_encoder *e, Dwarf_Die *die, uint32_t target,
			 int component)
{
	struct decl_tag_sink sink = { e, target, component };
	int err;

	if (!e->features->decl_tags || !may_be_annotated(e, die))
		return 0;
	err = annot_decl_tags(die, add_decl_tag, &sink);
	if (err == -ELOOP)
		return die_error(e, die, err,
				 "DW_AT_GNU_annotation chain that loops");
	return err;
}

/* Checks libbpf handed out the reserved id. */
static int expect_id(struct cu_encoder *e, Dwarf_Die *die, int got,
		     uint32_t want)
{
	if (got < 0)
		return btf_error(e, die, got);
	if ((uint32_t)got != want)
		return die_error(e, die, -EPROTO,
				 "internal error: BTF id out of step with reservation");
	e->types++;
	return 0;
}

static int emit_base_type(struct cu_encoder *e, Dwarf_Die *die, uint32_t id)
{
	Dwarf_Word enc = 0, size = 0;
	struct die_attrs da;
	int encoding = 0;

	if (da_load(e, &da, die))
		return -EINVAL;
	da_udata(&da, DA_ENCODING, DW_AT_encoding, &enc);
	if (da_udata(&da, DA_BYTE_SIZE, DW_AT_byte_size, &size))
		return die_error(e, die, -EINVAL, "base type without DW_AT_byte_size");
	if (is_float_encoding(enc) && !e->features->floats) {
		/*
		 * Without the float feature, as pahole: an INT of the size,
		 * no encoding bits (double is INT 'double' size=8), and
		 * __SANITIZED_FAKE_INT__ of 4 bytes for a size INT cannot
		 * take (long double of 12).
		 */
		if (!size || (size & (size - 1)) || size > 16)
			return expect_id(e, die, btf__add_int(e->btf,
					 "__SANITIZED_FAKE_INT__", 4, 0), id);
		return expect_id(e, die, btf__add_int(e->btf, da_name(&da), size, 0), id);
	}
	if (is_float_encoding(enc)) {
		/* BTF FLOAT: 2, 4, 8, 12 or 16 bytes; nothing for the rest */
		if (size != 2 && size != 4 && size != 8 && size != 12 && size != 16) {
			char what[160];

			snprintf(what, sizeof(what),
				 "%s type '%s' of %llu bytes has no BTF encoding "
				 "(FLOAT takes 2, 4, 8, 12 or 16 bytes)",
				 enc == DW_ATE_complex_float ? "complex floating-point" :
				 "floating-point", da_name(&da),
				 (unsigned long long)size);
			return die_error(e, die, -EINVAL, what);
		}
		return expect_id(e, die, btf__add_float(e->btf, da_name(&da), size), id);
	}
	if (enc == DW_ATE_signed || enc == DW_ATE_signed_char)
		encoding = BTF_INT_SIGNED;
	else if (enc == DW_ATE_boolean)
		encoding = BTF_INT_BOOL;
	return expect_id(e, die, btf__add_int(e->btf, da_name(&da), size, encoding), id);
}

/*
 * A pointer with btf_type_tag annotations: PTR -> TYPE_TAG ... -> pointee.
 * The tag written last in the source comes right after the PTR, as
 * clang's own BPF output and pahole have it: `int __tag("a") __tag("b")
 * *p` is PTR -> "b" -> "a" -> int (annot_type_tags gives that order, for
 * clang's annotations and GCC's).
 */
static int emit_pointer(struct cu_encoder *e, Dwarf_Die *die, uint32_t id)
{
	uint32_t n_tags = die_type_count(e, die) - 1, pointee, i;
	const char **values;
	int err, n;

	err = ref_type_id(e, die, &pointee);
	if (err)
		return err;
	err = expect_id(e, die, btf__add_ptr(e->btf, n_tags ? id + 1 : pointee), id);
	if (err)
		return err;
	if (!n_tags) {
		if (e->features->type_tags && may_be_annotated(e, die) &&
		    annot_type_tags(die, NULL, 0) < 0)
			return die_error(e, die, -ELOOP,
					 "DW_AT_GNU_annotation chain that loops");
		return 0;
	}
	values = calloc(n_tags, sizeof(*values));
	if (!values)
		return -ENOMEM;
	n = annot_type_tags(die, values, n_tags);
	/* ids id+1 .. id+n_tags, from the tag next to the pointer on */
	for (i = 0; i < n_tags && !err; i++) {
		const char *value = (uint32_t)n == n_tags ? values[i] : NULL;

		err = expect_id(e, die,
			btf__add_type_tag(e->btf, value ? value : "",
					  i + 1 < n_tags ? id + 2 + i : pointee),
			id + 1 + i);
	}
	free(values);
	return err;
}

static int emit_modifier(struct cu_encoder *e, Dwarf_Die *die, uint32_t id)
{
	uint32_t target;
	int err = ref_type_id(e, die, &target), got;

	if (err)
		return err;
	switch (die_tag(e, die)) {
	case DW_TAG_const_type:
		got = btf__add_const(e->btf, target);
		break;
	case DW_TAG_volatile_type:
		got = btf__add_volatile(e->btf, target);
		break;
	case DW_TAG_restrict_type:
		got = btf__add_restrict(e->btf, target);
		break;
	default: /* C++ references: as pointers, like pahole */
		got = btf__add_ptr(e->btf, target);
		break;
	}
	return expect_id(e, die, got, id);
}

static int emit_typedef(struct cu_encoder *e, Dwarf_Die *die, uint32_t id)
{
	struct die_attrs da;
	uint32_t target;
	int err;

	if (da_load(e, &da, die))
		return -EINVAL;
	err = da_type_id(e, &da, &target);
	if (!err)
		err = expect_id(e, die, btf__add_typedef(e->btf, da_name(&da), target), id);
	if (!err)
		err = add_decl_tags(e, die, id, -1);
	return err;
}

/* Number of elements of a subrange; 0 for flexible or variable length. */
static uint32_t subrange_count(struct cu_encoder *e, Dwarf_Die *sub)
{
	Dwarf_Sword lower = 0, upper;
	Dwarf_Attribute *a;
	struct die_attrs da;
	Dwarf_Word count;

	da_read(e, &da, sub);
	if (!da_udata(&da, DA_COUNT, DW_AT_count, &count))
		return count;
	a = da_get(&da, DA_UPPER_BOUND, DW_AT_upper_bound);
	if (!a || dwarf_whatform(a) == DW_FORM_exprloc ||
	    dwarf_whatform(a) == DW_FORM_ref4)
		return 0;
	/*
	 * data1/2/4 carry no sign and libdw's formsdata sign-extends them:
	 * char[256] has upper bound 0xff in data1, which is not -1.
	 */
	if (dwarf_whatform(a) == DW_FORM_sdata ||
	    dwarf_whatform(a) == DW_FORM_implicit_const) {
		if (dwarf_formsdata(a, &upper))
			return 0;
	} else {
		Dwarf_Word u;

		if (dwarf_formudata(a, &u))
			return 0;
		upper = u;
	}
	a = da_get(&da, DA_LOWER_BOUND, DW_AT_lower_bound);
	if (a)
		dwarf_formsdata(a, &lower);
	return upper >= lower ? upper - lower + 1 : 0;
}

/* The elements of all of a multi-dimensional array's dimensions, for flat_arrays. */
static uint32_t flat_count(struct cu_encoder *e, Dwarf_Die *die)
{
	uint64_t n = 1;
	Dwarf_Die child;

	if (die_child(e, die, &child))
		return 0;
	do {
		if (die_tag(e, &child) == DW_TAG_subrange_type)
			n *= subrange_count(e, &child);
		if (n > UINT32_MAX)
			n = UINT32_MAX;
	} while (!die_sibling(e, &child, &child));
	return n;
}

static int emit_array(struct cu_encoder *e, Dwarf_Die *die, uint32_t id)
{
	uint32_t dims = die_type_count(e, die), elem, index, i = 0;
	Dwarf_Die child;
	bool has_child;
	int err;

	err = ref_type_id(e, die, &elem);
	if (!err)
		err = array_index_id(e, &index);
	if (err)
		return err;
	if (e->features->flat_arrays)
		return expect_id(e, die, btf__add_array(e->btf, index, elem,
							flat_count(e, die)), id);
	has_child = !die_child(e, die, &child);
	if (has_child) {
		do {
			if (die_tag(e, &child) != DW_TAG_subrange_type)
				continue;
			i++;
			err = expect_id(e, die,
				btf__add_array(e->btf, index,
					       i < dims ? id + i : elem,
					       subrange_count(e, &child)),
				id + i - 1);
			if (err)
				return err;
		} while (!die_sibling(e, &child, &child));
	}
	if (!i) /* no subrange at all: an array of unknown size */
		err = expect_id(e, die, btf__add_array(e->btf, index, elem, 0), id);
	return err;
}

/* Bit offset of a member within its struct, and its bitfield size. */
static int member_offset(struct cu_encoder *e, struct die_attrs *da,
			 uint32_t *bit_off, uint32_t *bit_size)
{
	Dwarf_Die *m = da->die;
	Dwarf_Attribute *loc, mem;
	Dwarf_Word v, storage;
	uint64_t off = 0;

	*bit_size = 0;
	if (!da_udata(da, DA_BIT_SIZE, DW_AT_bit_size, &v))
		*bit_size = v;
	if (!da_udata(da, DA_DATA_BIT_OFFSET, DW_AT_data_bit_offset, &v)) {
		off = v;
	} else {
		loc = da_get(da, DA_MEMBER_LOCATION, DW_AT_data_member_location);
		if (loc) {
			Dwarf_Op *ops;
			size_t nops;

			if (!dwarf_formudata(loc, &v)) {
				off = v * 8;
			} else if (!dwarf_getlocation(loc, &ops, &nops) &&
				   nops == 1 && ops[0].atom == DW_OP_plus_uconst) {
				off = ops[0].number * 8;
			} else {
				return die_error(e, m, -EINVAL,
					"member location is not a constant");
			}
		}
		/* DWARF 2-4 bitfields count bits from the storage unit's top */
		if (*bit_size && !da_udata(da, DA_BIT_OFFSET, DW_AT_bit_offset, &v)) {
			if (da_udata(da, DA_BYTE_SIZE, DW_AT_byte_size, &storage)) {
				Dwarf_Die type;

				if (!dwarf_attr_integrate(m, DW_AT_type, &mem) ||
				    !dwarf_formref_die(&mem, &type) ||
				    dwarf_aggregate_size(&type, &storage))
					return die_error(e, m, -EINVAL,
						"bitfield without a storage size");
			}
			off += storage * 8 - v - *bit_size;
		}
	}
	if (off > UINT32_MAX)
		return die_error(e, m, -E2BIG, "member offset too large");
	*bit_off = off;
	return 0;
}

static int emit_fwd(struct cu_encoder *e, struct die_attrs *da, uint32_t id,
		    enum btf_fwd_kind kind)
{
	return expect_id(e, da->die, btf__add_fwd(e->btf, da_name(da), kind), id);
}

static int emit_struct(struct cu_encoder *e, Dwarf_Die *die, uint32_t id)
{
	bool is_union = die_tag(e, die) == DW_TAG_union_type;
	struct die_attrs da, mda;
	Dwarf_Word size = 0;
	Dwarf_Die child;
	int err, member = 0;

	if (da_load(e, &da, die))
		return -EINVAL;
	if (da_flag(&da, DA_DECLARATION, DW_AT_declaration))
		return emit_fwd(e, &da, id, is_union ? BTF_FWD_UNION : BTF_FWD_STRUCT);
	da_udata(&da, DA_BYTE_SIZE, DW_AT_byte_size, &size);
	err = expect_id(e, die, is_union ?
			btf__add_union(e->btf, da_name(&da), size) :
			btf__add_struct(e->btf, da_name(&da), size), id);
	if (err)
		return err;
	err = add_decl_tags(e, die, id, -1);
	if (err || die_child(e, die, &child))
		return err;
	do {
		uint32_t type, bit_off = 0, bit_size = 0;

		if (die_tag(e, &child) != DW_TAG_member)
			continue;
		if (da_load(e, &mda, &child))
			return -EINVAL;
		if (da_flag(&mda, DA_EXTERNAL, DW_AT_external) ||
		    da_flag(&mda, DA_DECLARATION, DW_AT_declaration))
			continue;
		err = da_type_id(e, &mda, &type);
		if (!err)
			err = member_offset(e, &mda, &bit_off, &bit_size);
		if (err)
			return err;
		err = btf__add_field(e->btf, da_name(&mda), type, bit_off, bit_size);
		if (err)
			return btf_error(e, &child, err);
		err = add_decl_tags(e, &child, id, member++);
		if (err)
			return err;
	} while (!die_sibling(e, &child, &child));
	return 0;
}

/*
 * Is the enum's underlying type unsigned? (DWARF 3+ names it.) Follows
 * typedefs and const types to the base type, at most MAX_STAND_IN_DEPTH
 * of them: more is a loop (a typedef of itself). Returns 0 and sets
 * *is_unsigned (false when nothing says so), or a negative errno after a
 * message naming the enum.
 */
static int enum_is_unsigned(struct cu_encoder *e, struct die_attrs *da,
			    bool *is_unsigned)
{
	Dwarf_Attribute mem, *a = da_get(da, DA_TYPE, DW_AT_type);
	unsigned int hops = 0;
	Dwarf_Die type;
	Dwarf_Word enc;

	*is_unsigned = false;
	if (!a || !dwarf_formref_die(a, &type))
		return 0;
	while (die_tag(e, &type) == DW_TAG_typedef ||
	       die_tag(e, &type) == DW_TAG_const_type) {
		if (++hops > MAX_STAND_IN_DEPTH) {
			dwarf_errno();	/* an earlier libdw error is not the cause */
			return die_error(e, da->die, -ELOOP,
				"its underlying type's typedefs or const types refer to each other in a loop");
		}
		if (!dwarf_attr(&type, DW_AT_type, &mem) ||
		    !dwarf_formref_die(&mem, &type))
			return 0;
	}
	*is_unsigned = !die_udata(&type, DW_AT_encoding, &enc) &&
		       (enc == DW_ATE_unsigned || enc == DW_ATE_unsigned_char ||
			enc == DW_ATE_boolean);
	return 0;
}

static int enumerator_value(struct die_attrs *en, bool is_unsigned,
			    Dwarf_Word size, int64_t *value)
{
	Dwarf_Attribute *a = da_get(en, DA_CONST_VALUE, DW_AT_const_value);
	Dwarf_Sword s;
	Dwarf_Word u;
	unsigned int form;

	if (!a)
		return -EINVAL;
	form = dwarf_whatform(a);
	if (form == DW_FORM_sdata || form == DW_FORM_implicit_const) {
		if (dwarf_formsdata(a, &s))
			return -EINVAL;
		*value = s;
		return 0;
	}
	if (dwarf_formudata(a, &u))
		return -EINVAL;
	/*
	 * data1/2/4/8 carry no sign. GCC writes negative enumerators as sdata
	 * and picks the smallest dataN for the others, so a data1 0x80 in an
	 * int-sized enum is 128 (CPUHP_AP_RISCV_TIMER_STARTING), not -128.
	 * Only a constant as wide as a signed enum itself can be negative.
	 */
	if (!is_unsigned && form != DW_FORM_udata) {
		unsigned int bits = form == DW_FORM_data1 ? 8 :
				    form == DW_FORM_data2 ? 16 :
				    form == DW_FORM_data4 ? 32 : 64;

		if (bits < 64 && bits >= size * 8 && (u >> (bits - 1)) & 1)
			u |= ~0ULL << bits;
	}
	*value = (int64_t)u;
	return 0;
}

static int emit_enum(struct cu_encoder *e, Dwarf_Die *die, uint32_t id)
{
	struct die_attrs da, en;
	bool is_unsigned, wide;
	Dwarf_Word size = 4;
	Dwarf_Die child;
	int err, got;

	if (da_load(e, &da, die))
		return -EINVAL;
	err = enum_is_unsigned(e, &da, &is_unsigned);
	if (err)
		return err;
	da_udata(&da, DA_BYTE_SIZE, DW_AT_byte_size, &size);
	wide = size > 4 && e->features->enum64;
	if (da_flag(&da, DA_DECLARATION, DW_AT_declaration) ||
	    die_child(e, die, &child)) {
		/* a declaration: an enum without enumerators (dedup's enum FWD) */
		got = btf__add_enum(e->btf, da_name(&da), size);
		return expect_id(e, die, got, id);
	}
	got = wide ? btf__add_enum64(e->btf, da_name(&da), size, !is_unsigned) :
		     btf__add_enum(e->btf, da_name(&da), size);
	err = expect_id(e, die, got, id);
	if (err)
		return err;
	do {
		int64_t value;

		if (die_tag(e, &child) != DW_TAG_enumerator)
			continue;
		if (da_load(e, &en, &child))
			return -EINVAL;
		if (enumerator_value(&en, is_unsigned, size, &value))
			return die_error(e, &child, -EINVAL,
					 "enumerator without a constant value");
		if (wide)
			err = btf__add_enum64_value(e->btf, da_name(&en), value);
		else
			err = btf__add_enum_value(e->btf, da_name(&en),
				is_unsigned ? (int64_t)(uint32_t)value :
					      (int64_t)(int32_t)value);
		if (err)
			return btf_error(e, &child, err);
	} while (!die_sibling(e, &child, &child));
	return 0;
}

static int emit_func_proto(struct cu_encoder *e, Dwarf_Die *die, uint32_t id)
{
	struct die_attrs pda;
	uint32_t ret, type;
	Dwarf_Die child;
	int err;

	err = ref_type_id(e, die, &ret);
	if (!err)
		err = expect_id(e, die, btf__add_func_proto(e->btf, ret), id);
	if (err || die_child(e, die, &child))
		return err;
	do {
		switch (die_tag(e, &child)) {
		case DW_TAG_formal_parameter:
			if (da_load(e, &pda, &child))
				return -EINVAL;
			err = da_type_id(e, &pda, &type);
			if (!err)
				err = btf__add_func_param(e->btf, da_name(&pda), type);
			break;
		case DW_TAG_unspecified_parameters:
			err = btf__add_func_param(e->btf, "", 0);
			break;
		default:
			continue;
		}
		if (err)
			return err < 0 && err != -ENOMEM && err != -EINVAL ?
			       err : btf_error(e, &child, err);
	} while (!die_sibling(e, &child, &child));
	return 0;
}

static int emit_array_index(struct cu_encoder *e, uint32_t id)
{
	/*
	 * pahole indexes arrays with the unit's own "int" (and makes up an
	 * __ARRAY_SIZE_TYPE__ only for a unit that has none): the same INT
	 * as C's int, which dedup merges with the unit's.
	 */
	return expect_id(e, NULL, btf__add_int(e->btf, "int", 4, BTF_INT_SIGNED), id);
}

static int emit(struct cu_encoder *e, struct cu_queue_entry *q)
{
	Dwarf_Die *die = &q->die;

	if (q->what == QUEUE_ARRAY_INDEX)
		return emit_array_index(e, q->id);
	switch (die_tag(e, die)) {
	case DW_TAG_base_type:
		return emit_base_type(e, die, q->id);
	case DW_TAG_pointer_type:
		return emit_pointer(e, die, q->id);
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		return emit_modifier(e, die, q->id);
	case DW_TAG_typedef:
		return emit_typedef(e, die, q->id);
	case DW_TAG_array_type:
		return emit_array(e, die, q->id);
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
		return emit_struct(e, die, q->id);
	case DW_TAG_enumeration_type:
		return emit_enum(e, die, q->id);
	case DW_TAG_subroutine_type:
	case DW_TAG_subprogram:		/* a function candidate's prototype */
		return emit_func_proto(e, die, q->id);
	default:
		return die_error(e, die, -EINVAL, "internal error: queued a non-type");
	}
}

static int drain(struct cu_encoder *e)
{
	int err = 0;

	while (!err && e->q_head < e->q_len) {
		/* emit() may grow the queue: copy the entry out first */
		struct cu_queue_entry q = e->queue[e->q_head++];

		err = emit(e, &q);
	}
	return err;
}

static int flush_decl_tags(struct cu_encoder *e)
{
	uint32_t i;
	int err = 0;

	for (i = 0; i < e->nr_tags; i++) {
		struct pending_decl_tag *t = &e->tags[i];
		int got;

		if (!err) {
			got = btf__add_decl_tag(e->btf, t->value, t->target,
						t->component);
			if (got < 0)
				err = btf_error(e, NULL, got);
			else
				e->types++;
		}
		free(t->value);
	}
	e->nr_tags = 0;
	if (!err)
		e->next_id = btf__type_cnt(e->btf);
	return err;
}

/* Which DIEs may contain type definitions worth visiting. */
static bool walk_into(int tag)
{
	switch (tag) {
	case DW_TAG_compile_unit:
	case DW_TAG_partial_unit:
	case DW_TAG_subprogram:
	case DW_TAG_lexical_block:
	case DW_TAG_namespace:
		return true;
	default:
		return false;
	}
}

/*
 * A unit-level function or variable: funcs.c decides whether it is a
 * candidate and which type it needs; that type is encoded here.
 */
static int collect_candidate(struct cu_encoder *e, Dwarf_Die *die, int tag)
{
	struct cand_need need;
	uint32_t id;
	int ret = cand_collect_die(e->cand_ctx, &e->reader, die, tag, e->cands,
				   &need);

	if (ret <= 0)
		return ret;
	ret = need.proto ? cu_encoder_proto_id(e, &need.die, &id) :
			   cu_encoder_type_id(e, &need.die, &id);
	if (!ret)
		cand_set_type(e->cands, !need.proto, id);
	if (!ret && need.true_proto) {
		ret = cu_encoder_true_proto_id(e, &need.true_die, need.drop, &id);
		if (!ret)
			cand_set_true_type(e->cands, id);
	}
	return ret;
}

int cu_encoder_encode(struct cu_encoder *e, Dwarf_Die *cu_die)
{
	Dwarf_Die stack[64];
	int depth = 0, err = 0, ret;

	e->cu_off = die_off(cu_die);
	e->reader.home = dwarf_cu_getdwarf(cu_die->cu);
	e->array_index_id = 0;
	e->q_head = e->q_len = 0;
	e->next_id = btf__type_cnt(e->btf);
	/*
	 * The DIE maps live for one unit (small, so they stay in cache);
	 * copies across units are found by the type cache, and the rare
	 * reference into another unit is encoded again, for dedup to merge.
	 */
	addr_map_clear(&e->map);
	addr_map_clear(&e->cache->memo);

	/*
	 * Iterative pre-order walk: stack[depth] is the current sibling.
	 * dwarf_child and dwarf_siblingof return 1 for "none" and -1 when
	 * the DIE cannot be read (a broken abbrev table): that is an error,
	 * not the end of the unit.
	 */
	ret = die_child(e, cu_die, &stack[0]);
	if (ret < 0)
		return die_error(e, cu_die, -EINVAL, "cannot read the unit's DIEs");
	if (ret > 0)
		return 0;
	for (;;) {
		Dwarf_Die *die = &stack[depth];
		int tag = die_tag(e, die);
		uint32_t id;

		e->dies++;
		if (is_type_tag(tag)) {
			err = type_id_of(e, die, &id);
			if (!err)
				err = drain(e);
			if (err)
				break;
		} else if (depth == 0 && e->cand_ctx &&
			   (tag == DW_TAG_subprogram || tag == DW_TAG_variable)) {
			err = collect_candidate(e, die, tag);
			if (err)
				break;
		}
		if (walk_into(tag) && depth + 1 < (int)(sizeof(stack) / sizeof(stack[0]))) {
			ret = die_child(e, die, &stack[depth + 1]);
			if (ret < 0) {
				err = die_error(e, die, -EINVAL, "cannot read its children");
				break;
			}
			if (!ret) {
				depth++;
				continue;
			}
		}
		while ((ret = die_sibling(e, &stack[depth], &stack[depth]))) {
			if (ret < 0) {
				err = die_error(e, &stack[depth], -EINVAL,
						"cannot read the DIE after it");
				goto done;
			}
			if (depth-- == 0)
				goto done;
		}
	}
done:
	if (!err)
		err = drain(e);
	if (!err)
		err = flush_decl_tags(e);
	else
		flush_decl_tags(e);
	return err;
}

void cu_encoder_start(struct cu_encoder *e, struct btf *btf)
{
	e->btf = btf;
	if (e->cache->slots)
		memset(e->cache->slots, 0,
		       e->cache->cap * sizeof(*e->cache->slots));
	e->cache->used = 0;
	die_reader_reset(&e->reader);

	e->next_id = btf__type_cnt(btf);
}

int cu_encoder_seed_take(const struct cu_encoder *e, struct type_cache_seed *seed)
{
	const struct type_cache *c = e->cache;
	uint32_t i;

	memset(seed, 0, sizeof(*seed));
	seed->slots = malloc((size_t)c->cap * sizeof(*seed->slots));
	if (!seed->slots)
		return -ENOMEM;
	for (i = 0; i < c->cap; i++) {
		seed->slots[i].key = c->slots[i].key;
		seed->slots[i].id = c->slots[i].key ? CU_SEED_ID + c->slots[i].id : 0;
	}
	seed->cap = c->cap;
	seed->used = c->used;
	return 0;
}

void cu_encoder_seed_free(struct type_cache_seed *seed)
{
	free(seed->slots);
	memset(seed, 0, sizeof(*seed));
}

int cu_encoder_start_seeded(struct cu_encoder *e, struct btf *btf,
			    const struct type_cache_seed *seed)
{
	struct type_cache *c = e->cache;

	cu_encoder_start(e, btf);
	if (!seed || !seed->cap)
		return 0;
	if (c->cap != seed->cap) {
		struct type_cache_entry *slots = malloc((size_t)seed->cap *
							sizeof(*slots));

		if (!slots)
			return -ENOMEM;
		free(c->slots);
		c->slots = slots;
		c->cap = seed->cap;
	}
	memcpy(c->slots, seed->slots, (size_t)seed->cap * sizeof(*c->slots));
	c->used = seed->used;
	return 0;
}

int cu_encoder_init(struct cu_encoder *e, const char *path,
		    const struct encode_features *features,
		    const struct bc_log *log)
{
	memset(e, 0, sizeof(*e));
	e->path = path;
	e->features = features;
	e->log = log;
	die_reader_init(&e->reader, da_slot);
	e->names = calloc(NAME_HASHES, sizeof(*e->names));

	e->cache = calloc(1, sizeof(*e->cache));
	if (!e->names || !e->cache || addr_map_grow(&e->map) ||
	    type_cache_grow(e->cache) || addr_map_grow(&e->cache->memo)) {
		cu_encoder_deinit(e);
		return -ENOMEM;
	}
	return 0;
}

void cu_encoder_deinit(struct cu_encoder *e)
{
	uint32_t i;

	addr_map_deinit(&e->map);
	if (e->cache) {
		free(e->cache->slots);
		addr_map_deinit(&e->cache->memo);
		free(e->cache);
	}
	free(e->queue);
	for (i = 0; i < e->nr_tags; i++)
		free(e->tags[i].value);
	free(e->tags);
	free(e->names);
	die_reader_deinit(&e->reader);
	memset(e, 0, sizeof(*e));
}

/* Emits what the queue holds and the pending decl tags. */
static int settle(struct cu_encoder *e)
{
	int err = drain(e);

	if (!err)
		err = flush_decl_tags(e);
	else
		flush_decl_tags(e);
	return err;
}

int cu_encoder_type_id(struct cu_encoder *e, Dwarf_Die *die, uint32_t *id)
{
	int err = type_id_of(e, die, id);

	return err ? err : settle(e);
}

int cu_encoder_true_proto_id(struct cu_encoder *e, Dwarf_Die *fn,
			     uint64_t drop, uint32_t *id)
{
	struct { const char *name; uint32_t type; } params[64];
	unsigned int nr = 0, k = 0, i;
	Dwarf_Attribute mem;
	Dwarf_Die child, type;
	uint32_t ret = 0;
	int err = 0;

	/* the types first: each is encoded and settled, the queue empty */
	if (dwarf_attr_integrate(fn, DW_AT_type, &mem) &&
	    dwarf_formref_die(&mem, &type))
		err = cu_encoder_type_id(e, &type, &ret);
	if (!err && !die_child(e, fn, &child)) {
		do {
			int tag = die_tag(e, &child);

			if (tag == DW_TAG_unspecified_parameters && nr < 64) {
				params[nr].name = "";
				params[nr++].type = 0;
				continue;
			}
			if (tag != DW_TAG_formal_parameter)
				continue;
			if (k < 64 && (drop >> k) & 1) {
				k++;
				continue;
			}
			k++;
			if (nr == 64)
				break;
			params[nr].name = dwarf_diename(&child);	/* through the origin */
			params[nr].type = 0;
			if (dwarf_attr_integrate(&child, DW_AT_type, &mem) &&
			    dwarf_formref_die(&mem, &type))
				err = cu_encoder_type_id(e, &type, &params[nr].type);
			nr++;
		} while (!err && !die_sibling(e, &child, &child));
	}
	if (err)
		return err;
	err = btf__add_func_proto(e->btf, ret);
	if (err < 0)
		return btf_error(e, fn, err);
	*id = err;
	for (i = 0; i < nr; i++) {
		err = btf__add_func_param(e->btf, params[i].name ? params[i].name : "",
					  params[i].type);
		if (err < 0)
			return btf_error(e, fn, err);
	}
	e->next_id = btf__type_cnt(e->btf);
	e->types++;
	return 0;
}

int cu_encoder_proto_id(struct cu_encoder *e, Dwarf_Die *fn, uint32_t *id)
{
	uint32_t slot;
	int err, tag = die_tag(e, fn);

	/* funcs.c passes a function's DW_AT_abstract_origin, when it has one */
	if (tag != DW_TAG_subprogram) {
		char what[96];

		snprintf(what, sizeof(what),
			 "named as a function's abstract origin, but its tag 0x%x is not a subprogram",
			 tag);
		dwarf_errno();	/* an earlier libdw error is not the cause */
		return die_error(e, fn, -EINVAL, what);
	}
	if (addr_map_reserve(&e->map))
		return -ENOMEM;
	slot = addr_map_slot(&e->map, fn->addr);
	if (e->map.slots[slot].key) {
		*id = e->map.slots[slot].val;
		return 0;
	}
	*id = e->next_id++;
	addr_map_put(&e->map, slot, fn->addr, *id);
	err = queue_push(e, QUEUE_DIE, *id, fn);
	return err ? err : settle(e);
}
