// SPDX-License-Identifier: GPL-2.0-only
/*
 * Function and variable candidates, collected by the workers.
 *
 * The problem. Whether a function gets a FUNC depends on every definition
 * of it in the whole file: a static function foo defined with two
 * different prototypes in two units is left out, wherever those units are.
 * pahole decides this after loading all units; so do we, and the decision
 * must not depend on which worker saw which unit first. But the workers
 * encode types into per-chunk BTFs whose ids change twice afterwards: at
 * the chunk's own dedup and at the final merge + dedup, and libbpf 1.1.2
 * tells nobody where a type went.
 *
 * The answer: markers. For each candidate (a subprogram at unit level whose
 * name the symbol table has, or a unit-level variable with a static
 * address) the worker encodes its type (the subprogram as a FUNC_PROTO, the
 * variable's type as any other type) and adds a TYPEDEF pointing at it,
 * named CAND_MARKER_PREFIX "<chunk>.<f|v><index>". The name is unique in
 * the whole file, so dedup never merges two markers, and dedup rewrites a
 * marker's target like any other reference. After the final dedup a scan of
 * the TYPEDEFs finds every candidate's type id in the final BTF. The
 * decisions then run over all candidates at once (select.c), and the
 * rebuild that adds the FUNCs, VARs and DATASECs leaves the markers out.
 *
 *	chunk 3, unit a.c: static int foo(int x) {...}  -> [7] FUNC_PROTO,
 *	                   [9] TYPEDEF "\1btfcanon.3.f0" -> [7]
 *	final dedup: [7] becomes [1234]; the marker says foo's candidate 3.f0
 *	has prototype [1234].
 *
 * What is collected is a function of the chunk's units alone (a chunk is
 * fixed consecutive units, encoded in file order), and so is every id
 * after the merge in chunk order: the decisions see the same input
 * whatever the thread count or schedule.
 *
 * The other half of this file reads what the DWARF says about where a
 * function's parameters live, for pahole's rules on calling conventions.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "annot.h"
#include "cu_encoder.h"
#include "elf_syms.h"
#include "encoder.h"
#include "funcs.h"
#include "select.h"

#ifndef DW_OP_addrx
#define DW_OP_addrx 0xa1
#endif
#ifndef DW_OP_GNU_addr_index
#define DW_OP_GNU_addr_index 0xfb
#endif
#ifndef DW_OP_entry_value
#define DW_OP_entry_value 0xa3
#endif
#ifndef DW_OP_GNU_entry_value
#define DW_OP_GNU_entry_value 0xf3
#endif

void cand_list_init(struct cand_list *l, uint32_t chunk)
{
	memset(l, 0, sizeof(*l));
	l->chunk = chunk;
}

void cand_list_deinit(struct cand_list *l)
{
	free(l->funcs);
	free(l->vars);
	free(l->tags);
	free(l->strs);
	memset(l, 0, sizeof(*l));
}

/* Grows *arr (of *cap elements of size bytes) to hold one more. */
static int grow(void **arr, uint32_t *cap, uint32_t used, size_t size)
{
	uint32_t new_cap;
	void *grown;

	if (used < *cap)
		return 0;
	new_cap = *cap ? *cap * 2 : 64;
	grown = realloc(*arr, (size_t)new_cap * size);
	if (!grown)
		return -ENOMEM;
	*arr = grown;
	*cap = new_cap;
	return 0;
}

static int add_str(struct cand_list *l, const char *s, uint32_t *off)
{
	size_t len = strlen(s) + 1;

	while (l->strs_len + len > l->strs_cap) {
		uint32_t cap = l->strs_cap ? l->strs_cap * 2 : 4096;
		char *grown = realloc(l->strs, cap);

		if (!grown)
			return -ENOMEM;
		l->strs = grown;
		l->strs_cap = cap;
	}
	memcpy(l->strs + l->strs_len, s, len);
	*off = l->strs_len;
	l->strs_len += len;
	return 0;
}

struct cand *cand_list_add(struct cand_list *l, bool is_var, const char *name)
{
	struct cand **arr = is_var ? &l->vars : &l->funcs;
	uint32_t *nr = is_var ? &l->nr_vars : &l->nr_funcs;
	uint32_t *cap = is_var ? &l->vars_cap : &l->funcs_cap;
	struct cand *c;
	uint32_t off;

	if (grow((void **)arr, cap, *nr, sizeof(**arr)) || add_str(l, name, &off))
		return NULL;
	c = &(*arr)[*nr];
	memset(c, 0, sizeof(*c));
	c->name = off;
	c->index = (*nr)++;
	c->first_tag = l->nr_tags;
	return c;
}

int cand_list_add_tag(struct cand_list *l, struct cand *c, const char *value,
		      int component)
{
	struct cand_tag *t;
	uint32_t off;

	if (grow((void **)&l->tags, &l->tags_cap, l->nr_tags, sizeof(*l->tags)) ||
	    add_str(l, value, &off))
		return -ENOMEM;
	t = &l->tags[l->nr_tags++];
	t->value = off;
	t->component = component;
	c->nr_tags++;
	return 0;
}

void cand_marker_name(char *buf, size_t size, uint32_t chunk, bool is_var,
		      uint32_t index)
{
	snprintf(buf, size, CAND_MARKER_PREFIX "%u.%c%u", chunk,
		 is_var ? 'v' : 'f', index);
}

bool cand_marker_parse(const char *name, uint32_t *chunk, bool *is_var,
		       uint32_t *index)
{
	size_t plen = strlen(CAND_MARKER_PREFIX);
	unsigned int k, i;
	char kind;
	int n = 0;

	if (strncmp(name, CAND_MARKER_PREFIX, plen))
		return false;
	if (sscanf(name + plen, "%u.%c%u%n", &k, &kind, &i, &n) != 3 ||
	    name[plen + n] || (kind != 'v' && kind != 'f'))
		return false;
	*chunk = k;
	*is_var = kind == 'v';
	*index = i;
	return true;
}

/* --- where parameters live */

/*
 * The register a parameter's location names, as pahole reads it: the
 * first location's whole expression DW_OP_regN (a trailing
 * DW_OP_stack_value ignored), or DW_OP_entry_value(DW_OP_regN) at any
 * location. Returns the DWARF register number, or -1 when there is none.
 */
static int param_reg(Dwarf_Attribute *loc, int expected)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t offset = 0;
	Dwarf_Op *expr;
	size_t len;
	int n = -1, found = -1;

	while ((offset = dwarf_getlocations(loc, offset, &base, &start, &end,
					    &expr, &len)) > 0) {
		Dwarf_Attribute entry;
		Dwarf_Op *entry_ops;
		size_t entry_len;
		int reg = -1;

		n++;
		if (len > 1 && expr[len - 1].atom == DW_OP_stack_value)
			len--;
		if (len != 1)
			continue;
		if (expr->atom >= DW_OP_reg0 && expr->atom <= DW_OP_reg31) {
			if (n != 0)
				continue;
			reg = expr->atom - DW_OP_reg0;
		} else if (expr->atom == DW_OP_regx) {
			if (n != 0)
				continue;
			reg = expr->number;
		} else if (expr->atom == DW_OP_entry_value ||
			   expr->atom == DW_OP_GNU_entry_value) {
			if (dwarf_getlocation_attr(loc, expr, &entry) ||
			    dwarf_getlocation(&entry, &entry_ops, &entry_len) ||
			    entry_len != 1)
				continue;
			if (entry_ops->atom >= DW_OP_reg0 &&
			    entry_ops->atom <= DW_OP_reg31)
				reg = entry_ops->atom - DW_OP_reg0;
			else if (entry_ops->atom == DW_OP_regx)
				reg = entry_ops->number;
		}
		if (reg < 0)
			continue;
		found = reg;
		if (reg == expected)
			break;
	}
	return found;
}

/* The DIE's DW_AT_type target, following specification/abstract origin. */
static bool die_type(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Attribute mem;

	return dwarf_attr_integrate(die, DW_AT_type, &mem) &&
	       dwarf_formref_die(&mem, type);
}

/* Natural alignment of a type DIE, as far as it can be told; 1 if not. */
static unsigned int natural_align(Dwarf_Die *type)
{
	Dwarf_Die t = *type;
	Dwarf_Word size;
	int depth;

	for (depth = 0; depth < 16; depth++) {
		switch (dwarf_tag(&t)) {
		case DW_TAG_typedef:
		case DW_TAG_const_type:
		case DW_TAG_volatile_type:
			if (!die_type(&t, &t))
				return 1;
			continue;
		case DW_TAG_base_type:
		case DW_TAG_pointer_type:
		case DW_TAG_enumeration_type:
			if (dwarf_aggregate_size(&t, &size) || !size)
				return 1;
			return size > 8 ? 8 : (unsigned int)size;
		default:
			return 1;
		}
	}
	return 1;
}

/*
 * Is the struct packed? Inferred as pahole does, from its layout: a member
 * off its natural alignment, or a size that is not a multiple of the
 * largest member alignment.
 */
static bool struct_is_packed(Dwarf_Die *st)
{
	unsigned int max_align = 1;
	Dwarf_Word size, off;
	Dwarf_Attribute mem;
	Dwarf_Die child, type;

	if (dwarf_aggregate_size(st, &size) || dwarf_child(st, &child))
		return false;
	do {
		unsigned int align;

		if (dwarf_tag(&child) != DW_TAG_member || !die_type(&child, &type))
			continue;
		if (dwarf_hasattr(&child, DW_AT_bit_size))
			continue;
		align = natural_align(&type);
		if (!dwarf_attr(&child, DW_AT_data_member_location, &mem) ||
		    dwarf_formudata(&mem, &off))
			off = 0;
		if (off % align)
			return true;
		if (align > max_align)
			max_align = align;
	} while (!dwarf_siblingof(&child, &child));
	return size % max_align != 0;
}

/* A named struct passed by value past the registers, and packed. */
static bool param_uncertain(Dwarf_Die *param)
{
	Dwarf_Die type;
	int tag;

	if (!die_type(param, &type))
		return false;
	tag = dwarf_tag(&type);
	if (tag != DW_TAG_structure_type && tag != DW_TAG_class_type)
		return false;
	return dwarf_diename(&type) && struct_is_packed(&type);
}

static bool die_flag(Dwarf_Die *die, unsigned int name)
{
	Dwarf_Attribute mem;
	bool flag = false;

	return dwarf_attr_integrate(die, name, &mem) &&
	       !dwarf_formflag(&mem, &flag) && flag;
}

#define MAX_INSPECT_PARAMS 64

/* Which of proto's parameters a concrete instance's parameter stands for. */
static int param_index(Dwarf_Die *param, const Dwarf_Off *proto_params,
		       unsigned int nr)
{
	Dwarf_Attribute mem;
	Dwarf_Die origin;
	unsigned int i;

	if (!dwarf_attr(param, DW_AT_abstract_origin, &mem) ||
	    !dwarf_formref_die(&mem, &origin))
		return -1;
	for (i = 0; i < nr; i++)
		if (proto_params[i] == dwarf_dieoffset(&origin))
			return i;
	return -1;
}

/*
 * What the calling convention does with a value of type t (a parameter's,
 * or the return type): the integer registers it takes (0: none, in memory
 * or in floating-point registers), and whether it is an aggregate over 16
 * bytes. Integers, pointers and enums up to 8 bytes take one register,
 * 16-byte integers two; floats take none. Aggregates up to 8 bytes take
 * one, up to 16 two; larger ones none, or one where they go by address
 * (AArch64). Aggregates are not classified member by member: one that
 * holds floats is counted as integers (the kernel has none).
 */
static unsigned int value_regs(Dwarf_Die *t, const struct call_abi *abi,
			       bool *big, unsigned int *align)
{
	Dwarf_Word size, enc;
	Dwarf_Attribute mem;
	int depth;

	*big = false;
	*align = 1;
	for (depth = 0; depth < 16; depth++) {
		switch (dwarf_tag(t)) {
		case DW_TAG_typedef:
		case DW_TAG_const_type:
		case DW_TAG_volatile_type:
		case DW_TAG_restrict_type:
		case DW_TAG_atomic_type:
			if (!die_type(t, t))
				return 1;
			continue;
		case DW_TAG_structure_type:
		case DW_TAG_class_type:
		case DW_TAG_union_type:
			if (dwarf_aggregate_size(t, &size))
				return 1;
			*align = natural_align(t);
			if (size > 16) {
				*big = true;
				return abi->big_by_reference ? 1 : 0;
			}
			return (size + 7) / 8;
		case DW_TAG_base_type:
			if (dwarf_attr(t, DW_AT_encoding, &mem) &&
			    !dwarf_formudata(&mem, &enc) &&
			    (enc == DW_ATE_float || enc == DW_ATE_complex_float))
				return 0;
			if (!dwarf_aggregate_size(t, &size) && size > 8) {
				*align = 16;
				return 2;
			}
			return 1;
		default:
			return 1;
		}
	}
	return 1;
}

/*
 * The integer register each declared parameter starts in, by the calling
 * convention: slot[i] is an index into abi->regs, or -1 for a parameter in
 * memory or in floating-point registers; width[i] the registers it takes.
 * A returned aggregate over 16 bytes takes the first register on x86-64
 * (its address); a pair that does not fit goes to memory.
 */
static void param_slots(Dwarf_Die *proto, const struct call_abi *abi,
			int *slot, uint8_t *width, unsigned int max)
{
	unsigned int next = 0, n = 0, regs, align;
	Dwarf_Die child, type;
	bool big;

	if (abi->sret_in_first_reg && die_type(proto, &type) &&
	    value_regs(&type, abi, &big, &align) == 0 && big)
		next = 1;
	if (dwarf_child(proto, &child))
		return;
	do {
		if (dwarf_tag(&child) != DW_TAG_formal_parameter)
			continue;
		if (n >= max)
			break;
		regs = die_type(&child, &type) ? value_regs(&type, abi, &big, &align) : 1;
		slot[n] = -1;
		width[n] = regs;
		if (regs == 2 && abi->pair_even && align >= 16)
			next += next & 1;
		if (regs && next + regs <= abi->nr_regs) {
			slot[n] = next;
			next += regs;
		} else if (regs && abi->pair_spill_ends) {
			next = abi->nr_regs;
		}
		n++;
	} while (!dwarf_siblingof(&child, &child));
}

void func_inspect(Dwarf_Die *fn, Dwarf_Die *proto, const struct call_abi *abi,
		  uint32_t *flags, uint64_t *addr)
{
	Dwarf_Off params[MAX_INSPECT_PARAMS];
	int slot[MAX_INSPECT_PARAMS];
	uint8_t width[MAX_INSPECT_PARAMS];
	uint64_t seen = 0;
	unsigned int nr = 0;
	bool uncertain = false;
	Dwarf_Addr pc;
	Dwarf_Die child;

	*flags = 0;
	*addr = 0;
	if (!dwarf_lowpc(fn, &pc) || !dwarf_entrypc(fn, &pc)) {
		*flags |= CAND_HAS_CODE;
		*addr = pc;
	}
	if (die_flag(fn, DW_AT_external))
		*flags |= CAND_EXTERNAL;
	for (nr = 0; nr < MAX_INSPECT_PARAMS; nr++)
		slot[nr] = -1;
	if (abi->nr_regs)
		param_slots(proto, abi, slot, width, MAX_INSPECT_PARAMS);
	/* the declared parameters: names, and packed structs on the stack */
	nr = 0;
	if (!dwarf_child(proto, &child)) {
		do {
			Dwarf_Attribute mem;

			if (dwarf_tag(&child) != DW_TAG_formal_parameter)
				continue;
			if (!dwarf_attr_integrate(&child, DW_AT_name, &mem))
				*flags |= CAND_UNNAMED_PARAM;
			/* pahole's rule: by position, past the registers */
			if (abi->nr_regs && nr >= abi->nr_regs)
				uncertain |= param_uncertain(&child);
			if (nr < MAX_INSPECT_PARAMS)
				params[nr] = dwarf_dieoffset(&child);
			nr++;
		} while (!dwarf_siblingof(&child, &child));
	}
	if (uncertain)
		*flags |= CAND_UNCERTAIN_LOC;
	if (nr > MAX_INSPECT_PARAMS)
		nr = MAX_INSPECT_PARAMS;
	/*
	 * Where the code keeps them, checked as pahole does only in a concrete
	 * instance (an out-of-line copy of a function also inlined, or a
	 * clone): its parameters name their declaration by abstract origin,
	 * GCC sometimes lists one twice (the first counts), and what the
	 * compiler changed shows. Only parameters in one register are checked:
	 * a pair's location is made of pieces.
	 */
	if (!(*flags & CAND_HAS_CODE) ||
	    dwarf_dieoffset(proto) == dwarf_dieoffset(fn) || dwarf_child(fn, &child))
		return;
	do {
		Dwarf_Attribute loc;
		int idx, reg, expected;

		if (dwarf_tag(&child) != DW_TAG_formal_parameter)
			continue;
		idx = param_index(&child, params, nr);
		if (idx < 0 || (seen >> idx) & 1)
			continue;
		seen |= 1ULL << idx;
		if (!dwarf_attr(&child, DW_AT_location, &loc)) {
			*flags |= CAND_OPTIMIZED_PARAM;
			continue;
		}
		if (slot[idx] < 0 || width[idx] != 1)
			continue;
		expected = abi->regs[slot[idx]];
		reg = param_reg(&loc, expected);
		if (reg < 0)
			*flags |= CAND_OPTIMIZED_PARAM;
		else if (reg != expected)
			*flags |= CAND_UNEXPECTED_REG;
	} while (!dwarf_siblingof(&child, &child));
}

bool var_static_addr(Dwarf_Die *var, uint64_t *addr)
{
	Dwarf_Attribute loc, result;
	Dwarf_Op *ops;
	size_t n;

	if (!dwarf_attr(var, DW_AT_location, &loc) ||
	    dwarf_getlocation(&loc, &ops, &n) || n != 1)
		return false;
	if (ops[0].atom == DW_OP_addr) {
		*addr = ops[0].number;
		return true;
	}
	if ((ops[0].atom == DW_OP_addrx || ops[0].atom == DW_OP_GNU_addr_index) &&
	    !dwarf_getlocation_attr(&loc, ops, &result)) {
		Dwarf_Addr a;

		if (!dwarf_formaddr(&result, &a)) {
			*addr = a;
			return true;
		}
	}
	return false;
}

/* --- collection */

/* Where add_tag() puts what it finds. */
struct tag_sink {
	struct cand_list *l;
	struct cand *c;
	int component;
};

static int add_tag(void *ctx, Dwarf_Die *annot, const char *value)
{
	struct tag_sink *sink = ctx;

	(void)annot;
	return value ? cand_list_add_tag(sink->l, sink->c, value,
					 sink->component) : 0;
}

/* die's btf_decl_tag annotations (clang's or GCC's), as component. */
static int collect_tags(struct cand_list *l, struct cand *c, Dwarf_Die *die,
			int component)
{
	struct tag_sink sink = { l, c, component };
	int err = annot_decl_tags(die, add_tag, &sink);

	/* a chain that loops in broken DWARF: the tags up to there */
	return err == -ELOOP ? 0 : err;
}

/* The DIE an out-of-line instance or a definition completes, or itself. */
static Dwarf_Die *origin_of(Dwarf_Die *die, Dwarf_Die *mem)
{
	Dwarf_Attribute a;

	if ((dwarf_attr(die, DW_AT_abstract_origin, &a) ||
	     dwarf_attr(die, DW_AT_specification, &a)) &&
	    dwarf_formref_die(&a, mem))
		return mem;
	return die;
}

/* Function decl tags: on the function (-1) and on parameter i (i). */
static int collect_func_tags(struct cand_list *l, struct cand *c, Dwarf_Die *fn)
{
	Dwarf_Die mem, *src = origin_of(fn, &mem), child;
	int err = collect_tags(l, c, src, -1), i = 0;

	if (err || dwarf_child(src, &child))
		return err;
	do {
		if (dwarf_tag(&child) != DW_TAG_formal_parameter)
			continue;
		err = collect_tags(l, c, &child, i++);
	} while (!err && !dwarf_siblingof(&child, &child));
	return err;
}

static bool own_flag(Dwarf_Die *die, unsigned int name)
{
	Dwarf_Attribute mem;
	bool flag = false;

	return dwarf_attr(die, name, &mem) && !dwarf_formflag(&mem, &flag) && flag;
}

static int collect_function(const struct cand_ctx *ctx, struct cu_encoder *e,
			    Dwarf_Die *fn, struct cand_list *l)
{
	const struct elf_func *sym;
	Dwarf_Attribute mem;
	Dwarf_Die origin;
	const char *name;
	struct cand *c;
	uint32_t flags, proto;
	uint64_t addr;
	int err;

	if (own_flag(fn, DW_AT_declaration))
		return 0;
	name = dwarf_diename(fn);	/* follows abstract origin */
	if (!name || !*name || !(sym = elf_syms_find_func(ctx->syms, name)))
		return 0;
	if (!sym->exact && !ctx->features->optimized_funcs)
		return 0;
	/* the prototype as declared: a concrete instance's parameter list
	 * can hold repeats and leave out what was optimized away */
	if (!dwarf_attr(fn, DW_AT_abstract_origin, &mem) ||
	    !dwarf_formref_die(&mem, &origin))
		origin = *fn;
	func_inspect(fn, &origin, &ctx->abi, &flags, &addr);
	err = cu_encoder_proto_id(e, &origin, &proto);
	if (err)
		return err;
	c = cand_list_add(l, false, name);
	if (!c)
		return -ENOMEM;
	c->flags = flags;
	c->addr = addr;
	c->type = proto;
	return ctx->features->decl_tags ? collect_func_tags(l, c, fn) : 0;
}

static int collect_variable(const struct cand_ctx *ctx, struct cu_encoder *e,
			    Dwarf_Die *var, struct cand_list *l)
{
	Dwarf_Attribute mem;
	Dwarf_Die type, spec, *src;
	const char *name;
	enum select_skip why;
	struct cand *c;
	uint32_t shndx, type_id;
	uint64_t addr, offset;
	int err;

	if (own_flag(var, DW_AT_declaration) || own_flag(var, DW_AT_artificial) ||
	    !var_static_addr(var, &addr))
		return 0;
	/* quick no for the common case: not a per-CPU variable */
	if (!ctx->features->global_vars &&
	    elf_syms_section_of(ctx->syms, addr) != ctx->syms->percpu_shndx)
		return 0;
	name = dwarf_diename(var);	/* follows specification */
	if (!name || !*name ||
	    !select_var_wanted(ctx->syms, ctx->features->global_vars, name, addr,
			       &shndx, &offset, &why) ||
	    !dwarf_attr_integrate(var, DW_AT_type, &mem) ||
	    !dwarf_formref_die(&mem, &type))
		return 0;
	err = cu_encoder_type_id(e, &type, &type_id);
	if (err)
		return err;
	if (!type_id)
		return 0;
	c = cand_list_add(l, true, name);
	if (!c)
		return -ENOMEM;
	c->addr = addr;
	c->type = type_id;
	c->flags = CAND_HAS_CODE;
	if (dwarf_attr_integrate(var, DW_AT_external, &mem)) {
		bool flag = false;

		if (!dwarf_formflag(&mem, &flag) && flag)
			c->flags |= CAND_EXTERNAL;
	}
	if (!ctx->features->decl_tags)
		return 0;
	err = collect_tags(l, c, var, -1);
	src = origin_of(var, &spec);
	if (!err && src != var)
		err = collect_tags(l, c, src, -1);
	return err;
}

int cand_add_markers(struct cand_list *l, struct btf *btf)
{
	char name[64];
	int id;

	for (; l->funcs_marked < l->nr_funcs; l->funcs_marked++) {
		cand_marker_name(name, sizeof(name), l->chunk, false, l->funcs_marked);
		id = btf__add_typedef(btf, name, l->funcs[l->funcs_marked].type);
		if (id < 0)
			return id;
	}
	for (; l->vars_marked < l->nr_vars; l->vars_marked++) {
		cand_marker_name(name, sizeof(name), l->chunk, true, l->vars_marked);
		id = btf__add_typedef(btf, name, l->vars[l->vars_marked].type);
		if (id < 0)
			return id;
	}
	return 0;
}

int cand_collect_die(const struct cand_ctx *ctx, struct cu_encoder *e,
		     Dwarf_Die *die, int tag, struct cand_list *l)
{
	/* most top-level DIEs are declarations: the abbreviation says so */
	if (dwarf_hasattr(die, DW_AT_declaration))
		return 0;
	if (tag == DW_TAG_subprogram)
		return ctx->features->funcs ? collect_function(ctx, e, die, l) : 0;
	if (!ctx->features->vars && !ctx->features->global_vars)
		return 0;
	return dwarf_hasattr(die, DW_AT_location) ? collect_variable(ctx, e, die, l) : 0;
}
