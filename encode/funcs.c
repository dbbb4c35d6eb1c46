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
 * decisions then run over all candidates at once (select.c), which adds
 * the FUNCs, VARs and DATASECs, and canon's rebuild leaves the markers
 * out (canon_opts.omit).
 *
 * Data flows one way: the DIE walk (cu_encoder.c) hands each unit-level
 * subprogram and variable to cand_collect_die(), which says whether it is
 * a candidate and which type it needs; the walk encodes that type and
 * hands its id back with cand_set_type(). Nothing here calls the walk or
 * the selection.
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
#include <ctype.h>
#include <dwarf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "annot.h"
#include "elf_syms.h"
#include "features.h"
#include "funcs.h"
#include "locs.h"

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
	loc_span_init(&l->loc_span);
}

void cand_list_deinit(struct cand_list *l)
{
	free(l->funcs);
	free(l->vars);
	free(l->tags);
	free(l->strs);
	free(l->sym_memo);
	memset(l, 0, sizeof(*l));
}

void cand_list_walked(struct cand_list *l)
{
	free(l->sym_memo);
	l->sym_memo = NULL;
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

void cand_marker_name(char *buf, size_t size, uint32_t chunk,
		      enum cand_marker_kind kind, uint32_t index)
{
	snprintf(buf, size, CAND_MARKER_PREFIX "%u.%c%u", chunk, (char)kind, index);
}

bool cand_marker_parse(const char *name, uint32_t *chunk,
		       enum cand_marker_kind *kind, uint32_t *index)
{
	size_t plen = strlen(CAND_MARKER_PREFIX);
	unsigned int k, i;
	char c;
	int n = 0;

	if (strncmp(name, CAND_MARKER_PREFIX, plen))
		return false;
	if (sscanf(name + plen, "%u.%c%u%n", &k, &c, &i, &n) != 3 ||
	    name[plen + n] ||
	    (c != CAND_MARK_FUNC && c != CAND_MARK_VAR && c != CAND_MARK_TRUE))
		return false;
	*chunk = k;
	*kind = (enum cand_marker_kind)c;
	*index = i;
	return true;
}

/* --- where parameters live */

/*
 * pahole's reading of parameter locations (its dwarf_loader.c, v1.31 and
 * later), as facts:
 *  - a parameter's register is the first one found, in this order of
 *    looking: the first location's DW_OP_regN (alone, or first of several
 *    operations for a value of 8 bytes or less), its DW_OP_bregN followed
 *    somewhere by DW_OP_stack_value, DW_OP_entry_value(DW_OP_regN) in any
 *    location, and for a bigger value the first DW_OP_regN among the
 *    pieces of any location. DW_OP_regx counts for nothing;
 *  - a parameter takes ceil(size / 8) registers, one when over 16 bytes
 *    (passed in memory, counted as one all the same), whatever its type:
 *    a double takes an integer register, and a returned big struct takes
 *    none;
 *  - a parameter with a location but no register is optimized out, and so
 *    is one with no location; one in another register than its place
 *    says is in an unexpected register, unless the function has a struct
 *    parameter (its pieces throw the count off). For clang (not a changed
 *    signature) only a register outside the parameter's window counts,
 *    and nothing is optimized out but what has no location.
 */

#define PARAM_NO_REG (-1)

/* What the analysis needs of one formal parameter. */
struct param_fact {
	int reg;			/* DWARF register, or PARAM_NO_REG */
	uint32_t size;			/* bytes of its type; 0: unknown */
	bool has_loc;			/* DW_AT_location */
	bool has_const;			/* DW_AT_const_value */
	Dwarf_Die decl;			/* its declaration: the type's DIE chain */
};

static bool atom_is_reg(unsigned int atom)
{
	return atom >= DW_OP_reg0 && atom <= DW_OP_reg31;
}

static bool atom_is_breg(unsigned int atom)
{
	return atom >= DW_OP_breg0 && atom <= DW_OP_breg31;
}

static void set_reg(struct param_fact *p, int reg)
{
	if (p->reg == PARAM_NO_REG)
		p->reg = reg;
}

/* One location expression of a value of more than one operation. */
static void decode_ops(struct param_fact *p, const Dwarf_Op *expr, size_t len,
		       int n)
{
	size_t i;

	if (p->size <= 8) {
		if (n != 0)
			return;
		if (atom_is_reg(expr[0].atom)) {
			set_reg(p, expr[0].atom - DW_OP_reg0);
			return;
		}
		if (!atom_is_breg(expr[0].atom))
			return;
		for (i = 1; i < len; i++)
			if (expr[i].atom == DW_OP_stack_value) {
				set_reg(p, expr[0].atom - DW_OP_breg0);
				return;
			}
		return;
	}
	/* an aggregate in pieces: the first register named */
	for (i = 0; i < len; i++)
		if (atom_is_reg(expr[i].atom)) {
			set_reg(p, expr[i].atom - DW_OP_reg0);
			return;
		}
}

static void decode_location(struct param_fact *p, Dwarf_Attribute *loc,
			    const struct loc_sections *secs,
			    struct loc_span *span)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t offset = 0;
	Dwarf_Op *expr;
	size_t len;
	int n = -1;

	/*
	 * The first register found is the one: stop there. Most parameters
	 * name theirs as the first operation of the first location, which
	 * locs.c reads from the section without libdw (libdw keeps every
	 * expression it decoded until the end); the rest are decoded here.
	 */
	if (secs && loc_first_reg(secs, loc, &p->reg, span))
		return;
	while (p->reg == PARAM_NO_REG &&
	       (offset = dwarf_getlocations(loc, offset, &base, &start, &end,
					    &expr, &len)) > 0) {
		Dwarf_Attribute entry;
		Dwarf_Op *entry_ops;
		size_t entry_len;
		bool stack;

		n++;
		if (!len)
			continue;
		stack = expr[len - 1].atom == DW_OP_stack_value;
		if (len == 2 && stack)
			len = 1;
		if (len != 1) {
			decode_ops(p, expr, len, n);
			continue;
		}
		if (atom_is_reg(expr->atom)) {
			if (n == 0)
				set_reg(p, expr->atom - DW_OP_reg0);
		} else if (atom_is_breg(expr->atom)) {
			if (n == 0 && stack)
				set_reg(p, expr->atom - DW_OP_breg0);
		} else if ((expr->atom == DW_OP_entry_value ||
			    expr->atom == DW_OP_GNU_entry_value) &&
			   !dwarf_getlocation_attr(loc, expr, &entry) &&
			   !dwarf_getlocation(&entry, &entry_ops, &entry_len) &&
			   entry_len == 1 && atom_is_reg(entry_ops->atom)) {
			set_reg(p, entry_ops->atom - DW_OP_reg0);
		}
	}
}

/* The DIE's DW_AT_type target, following specification/abstract origin. */
static bool die_type(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Attribute mem;

	return dwarf_attr_integrate(die, DW_AT_type, &mem) &&
	       dwarf_formref_die(&mem, type);
}

/*
 * The size of a parameter's type as pahole takes it: a pointer is 8
 * bytes, anything else its DW_AT_byte_size, or, without one (typedef,
 * const), its own type's.
 */
static uint32_t param_size(Dwarf_Die *param)
{
	Dwarf_Attribute mem;
	Dwarf_Word size;
	Dwarf_Die t;
	int depth;

	if (!die_type(param, &t))
		return 0;
	for (depth = 0; depth < 16; depth++) {
		if (dwarf_tag(&t) == DW_TAG_pointer_type)
			return 8;
		if (dwarf_attr(&t, DW_AT_byte_size, &mem) &&
		    !dwarf_formudata(&mem, &size) && size)
			return size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
		if (!die_type(&t, &t))
			return 0;
	}
	return 0;
}

/* A struct, through typedefs and const (not a union, not volatile). */
static bool param_is_struct(Dwarf_Die *param)
{
	Dwarf_Die t;
	int depth;

	if (!die_type(param, &t))
		return false;
	for (depth = 0; depth < 16; depth++) {
		switch (dwarf_tag(&t)) {
		case DW_TAG_structure_type:
			return true;
		case DW_TAG_typedef:
		case DW_TAG_const_type:
			if (!die_type(&t, &t))
				return false;
			continue;
		default:
			return false;
		}
	}
	return false;
}

/*
 * The location facts of param (its own DIE); type facts from decl, whose
 * size is decl_fact's when it was read already (else NULL).
 */
static void param_fact_read(struct die_reader *r, struct param_fact *p,
			    Dwarf_Die *param,
			    Dwarf_Die *decl, const struct param_fact *decl_fact,
			    const struct loc_sections *secs,
			    struct loc_span *span)
{
	Dwarf_Attribute loc;

	memset(p, 0, sizeof(*p));
	p->reg = PARAM_NO_REG;
	p->size = decl_fact ? decl_fact->size : param_size(decl);
	p->decl = *decl;
	p->has_const = die_reader_hasattr(r, param, DW_AT_const_value);
	p->has_loc = dwarf_attr(param, DW_AT_location, &loc) != NULL;
	if (p->has_loc)
		decode_location(p, &loc, secs, span);
}

/* Registers a parameter takes in pahole's count (see above). */
static unsigned int param_slots(const struct param_fact *p)
{
	if (p->size <= 8)
		return 1;
	if (p->size > 16)
		return 1;
	return (p->size + 7) / 8;
}

/*
 * pahole's verdict on one parameter list in the order given: sets
 * *optimized and *unexpected (never clears them).
 */
static void analyze_params(const struct param_fact *p, unsigned int n,
			   const struct call_abi *abi, bool clang,
			   bool sig_changed, bool *optimized, bool *unexpected,
			   uint64_t *opt_mask)
{
	unsigned int i, reg_idx = 0;
	bool any_unexpected = false;
	uint64_t mask = 0;

	for (i = 0; i < n; i++) {
		unsigned int slots = param_slots(&p[i]);

		if (!p[i].has_loc)
			mask |= 1ULL << i;
		if (clang && !sig_changed) {
			unsigned int k;
			bool in_window = false;

			if (p[i].size > 16 || reg_idx >= abi->nr_regs)
				continue;
			for (k = reg_idx; k < reg_idx + slots && k < abi->nr_regs; k++)
				in_window |= p[i].reg == abi->regs[k];
			if (p[i].reg != PARAM_NO_REG && !in_window)
				any_unexpected = true;
			reg_idx += slots;
			continue;
		}
		if (p[i].has_loc) {
			if (reg_idx >= abi->nr_regs)
				continue;	/* on the stack: nothing to check */
			if (p[i].reg == PARAM_NO_REG)
				mask |= 1ULL << i;
			else if (p[i].reg != abi->regs[reg_idx])
				any_unexpected = true;
		} else if (p[i].has_const && !clang) {
			mask |= 1ULL << i;
		}
		reg_idx += slots;
	}
	if (mask)
		*optimized = true;
	if (opt_mask)
		*opt_mask = mask;
	/* a struct parameter excuses it (rare: looked up only then) */
	for (i = 0; any_unexpected && i < n; i++)
		any_unexpected = !param_is_struct((Dwarf_Die *)&p[i].decl);
	if (any_unexpected)
		*unexpected = true;
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
 * Did clang change the function's signature? It says so with
 * DW_AT_calling_convention DW_CC_nocall on the subprogram (the abstract
 * origin's, for a concrete instance); an inline instance never has.
 */
static bool signature_changed(Dwarf_Die *fn, Dwarf_Die *proto)
{
	Dwarf_Attribute mem;
	Dwarf_Word cc;

	if (dwarf_hasattr(fn, DW_AT_inline))
		return false;
	return dwarf_attr(proto, DW_AT_calling_convention, &mem) &&
	       !dwarf_formudata(&mem, &cc) && cc == DW_CC_nocall;
}

/* A prototype's formal parameters, as func_inspect() found them. */
struct proto_params {
	Dwarf_Die dies[MAX_INSPECT_PARAMS];
	unsigned int nr;		/* all of them: past MAX_INSPECT_PARAMS,
					 * dies[] holds only the first */
};

/*
 * decl_unexpected: where the verdict on a concrete instance's abstract
 * instance (its declared list, with the locations the instance gave it)
 * goes; NULL: into *flags, with the instance's own.
 */
static void inspect(struct die_reader *r, Dwarf_Die *fn, Dwarf_Die *proto,
		    const struct call_abi *abi, const struct loc_sections *secs,
		    bool clang, uint32_t *flags, uint64_t *addr,
		    struct proto_params *pp, struct loc_span *span,
		    bool *decl_unexpected)
{
	struct param_fact decl[MAX_INSPECT_PARAMS], own[MAX_INSPECT_PARAMS];
	Dwarf_Off params[MAX_INSPECT_PARAMS];
	Dwarf_Die *decl_die = pp->dies;
	unsigned int nr = 0, nr_own = 0;
	bool uncertain = false, optimized = false, unexpected = false, ignored;
	bool abstract_unexpected = false;
	bool sig_changed, concrete = dwarf_dieoffset(proto) != dwarf_dieoffset(fn);
	Dwarf_Addr pc;
	Dwarf_Die child;

	*flags = 0;
	*addr = 0;
	/*
	 * Its code's address, as pahole takes it: DW_AT_low_pc. A function
	 * split in hot and cold parts has DW_AT_ranges instead, and counts
	 * as one without an address (not at its symbol).
	 */
	if (!dwarf_lowpc(fn, &pc) || !dwarf_entrypc(fn, &pc)) {
		*flags |= CAND_HAS_CODE;
		*addr = pc;
	}
	if (die_flag(fn, DW_AT_external))
		*flags |= CAND_EXTERNAL;
	sig_changed = clang && signature_changed(fn, proto);
	if (sig_changed)
		*flags |= CAND_SIG_CHANGED;
	/* the declared parameters: names, types, packed structs on the stack */
	if (!die_reader_child(r, proto, &child)) {
		do {
			Dwarf_Attribute mem;

			if (die_reader_tag(r, &child) != DW_TAG_formal_parameter)
				continue;
			if (!dwarf_attr_integrate(&child, DW_AT_name, &mem))
				*flags |= CAND_UNNAMED_PARAM;
			/* pahole's rule: by position, past the registers */
			if (abi->nr_regs && nr >= abi->nr_regs)
				uncertain |= param_uncertain(&child);
			if (nr < MAX_INSPECT_PARAMS) {
				params[nr] = dwarf_dieoffset(&child);
				decl_die[nr] = child;
				param_fact_read(r, &decl[nr], &child, &child, NULL,
						secs, span);
			}
			nr++;
		} while (!die_reader_sibling(r, &child, &child));
	}
	pp->nr = nr;
	if (uncertain)
		*flags |= CAND_UNCERTAIN_LOC;
	if (nr > MAX_INSPECT_PARAMS)
		nr = MAX_INSPECT_PARAMS;
	if (!abi->nr_regs)
		return;
	if (!concrete) {
		/* a plain definition: its own parameters, in their order */
		analyze_params(decl, nr, abi, clang, sig_changed, &optimized,
			       &unexpected, NULL);
		goto out;
	}
	/*
	 * A concrete instance (an out-of-line copy, or a clone): its
	 * parameters name their declaration by abstract origin, in an order
	 * of their own. A parameter in another place than its declaration's
	 * means the compiler reordered them. pahole judges the instance by
	 * its own list, and the abstract instance by the declared list with
	 * the locations the instance gave it; both count for the function.
	 */
	if (die_reader_child(r, fn, &child))
		goto out;
	do {
		int idx;

		if (die_reader_tag(r, &child) != DW_TAG_formal_parameter)
			continue;
		idx = param_index(&child, params, nr);
		if (idx >= 0 && (unsigned int)idx != nr_own)
			*flags |= CAND_REORDERED;
		if (nr_own >= MAX_INSPECT_PARAMS)
			break;
		param_fact_read(r, &own[nr_own], &child,
				idx >= 0 ? &decl_die[idx] : &child,
				idx >= 0 ? &decl[idx] : NULL, secs, span);
		if (idx >= 0) {
			decl[idx].has_loc |= own[nr_own].has_loc;
			decl[idx].has_const |= own[nr_own].has_const;
			if (own[nr_own].reg != PARAM_NO_REG)
				decl[idx].reg = own[nr_own].reg;
		}
		nr_own++;
	} while (!die_reader_sibling(r, &child, &child));
	analyze_params(own, nr_own, abi, clang, sig_changed, &optimized,
		       &unexpected, NULL);
	ignored = false;
	analyze_params(decl, nr, abi, clang, false, &ignored,
		       &abstract_unexpected, NULL);
	if (decl_unexpected)
		*decl_unexpected = abstract_unexpected;
	else
		unexpected |= abstract_unexpected;
out:
	if (optimized)
		*flags |= CAND_OPTIMIZED_PARAM;
	if (unexpected)
		*flags |= CAND_UNEXPECTED_REG;
}

void func_inspect(struct die_reader *r, Dwarf_Die *fn, Dwarf_Die *proto, const struct call_abi *abi,
		  const struct loc_sections *secs, bool clang, uint32_t *flags,
		  uint64_t *addr)
{
	struct proto_params pp;

	inspect(r, fn, proto, abi, secs, clang, flags, addr, &pp, NULL, NULL);
}

uint64_t func_true_drop(struct die_reader *r, Dwarf_Die *fn, Dwarf_Die *proto,
			const struct call_abi *abi,
			const struct loc_sections *secs, bool clang,
			uint32_t flags)
{
	struct param_fact own[MAX_INSPECT_PARAMS];
	Dwarf_Off params[MAX_INSPECT_PARAMS];
	Dwarf_Die decl_die[MAX_INSPECT_PARAMS], child;
	unsigned int nr = 0, nr_own = 0;
	bool optimized = false, unexpected = false;
	uint64_t mask = 0;

	if (!(flags & (CAND_REORDERED | CAND_SIG_CHANGED)) || !abi->nr_regs)
		return 0;
	if (!die_reader_child(r, proto, &child)) {
		do {
			if (die_reader_tag(r, &child) != DW_TAG_formal_parameter)
				continue;
			if (nr == MAX_INSPECT_PARAMS)
				break;
			params[nr] = dwarf_dieoffset(&child);
			decl_die[nr++] = child;
		} while (!die_reader_sibling(r, &child, &child));
	}
	if (die_reader_child(r, fn, &child))
		return 0;
	do {
		int idx;

		if (die_reader_tag(r, &child) != DW_TAG_formal_parameter)
			continue;
		if (nr_own == MAX_INSPECT_PARAMS)
			break;
		idx = param_index(&child, params, nr);
		param_fact_read(r, &own[nr_own++], &child,
				idx >= 0 ? &decl_die[idx] : &child, NULL, secs,
				NULL);
	} while (!die_reader_sibling(r, &child, &child));
	analyze_params(own, nr_own, abi, clang, flags & CAND_SIG_CHANGED,
		       &optimized, &unexpected, &mask);
	return mask;
}

bool var_static_addr(Dwarf_Die *var, uint64_t *addr)
{
	Dwarf_Attribute loc, result;
	Dwarf_Addr a;
	Dwarf_Op *ops;
	size_t n;

	if (!dwarf_attr(var, DW_AT_location, &loc) ||
	    dwarf_getlocation(&loc, &ops, &n) || n < 1 || n > 2)
		return false;
	/*
	 * An address, and optionally DW_OP_plus_uconst: LLVM's GlobalMerge
	 * (on by default for RISC-V and PowerPC since LLVM 20) addresses
	 * merged variables as the group's address plus an offset.
	 */
	if (n == 2 && ops[1].atom != DW_OP_plus_uconst)
		return false;
	if (ops[0].atom == DW_OP_addr)
		a = ops[0].number;
	else if ((ops[0].atom == DW_OP_addrx || ops[0].atom == DW_OP_GNU_addr_index) &&
		 !dwarf_getlocation_attr(&loc, ops, &result) &&
		 !dwarf_formaddr(&result, &a))
		;
	else
		return false;
	*addr = a + (n == 2 ? ops[1].number : 0);
	return true;
}

/* --- where variables live */

#define KSYM_NAME_LEN 128

static bool btf_name_valid(const char *p)
{
	const char *start = p;

	if (!(*p == '_' || *p == '.' || isalpha((unsigned char)*p)))
		return false;
	for (p++; *p; p++)
		if (!(*p == '_' || *p == '.' || isalnum((unsigned char)*p)) ||
		    p - start >= KSYM_NAME_LEN)
			return false;
	return true;
}

/* Names with no use to anyone (pahole's filter_variable_name). */
static bool filtered_var_name(const char *name)
{
	static const char *const prefixes[] = {
		"__UNIQUE_ID", "__tpstrtab_", "__exitcall_",
		"__gendwarfksyms_ptr_", "__func_stack_frame_non_standard_",
	};
	size_t i;

	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

enum cand_var_verdict cand_var_place(const struct elf_syms *syms,
				     bool global_vars, const char *name,
				     uint64_t addr, uint32_t *shndx,
				     uint64_t *offset)
{
	*shndx = elf_syms_section_of(syms, addr);
	if (!*shndx || (!global_vars && *shndx != syms->percpu_shndx))
		return CAND_VAR_NO_SYMBOL;
	*offset = addr - syms->sections[*shndx].addr;
	if (filtered_var_name(name) || !btf_name_valid(name))
		return CAND_VAR_NAME;
	if (*shndx == syms->percpu_shndx &&
	    !elf_syms_find_object(syms, *shndx, *offset, NULL))
		return CAND_VAR_NO_SYMBOL;
	if (*offset == 0 && !elf_syms_find_object(syms, *shndx, 0, name))
		return CAND_VAR_NO_SYMBOL;
	if (*offset > UINT32_MAX)
		return CAND_VAR_TOO_FAR;
	return CAND_VAR_PLACED;
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

/*
 * Function decl tags: on the function (-1) and on parameter i (i). pp:
 * the formal parameters of proto, when proto is where the tags are (its
 * children are not walked again).
 */
static int collect_func_tags(struct die_reader *r, struct cand_list *l,
			     struct cand *c, Dwarf_Die *fn, Dwarf_Die *proto,
			     struct proto_params *pp)
{
	Dwarf_Die mem, *src = origin_of(fn, &mem), child;
	int err = collect_tags(l, c, src, -1), i = 0;
	unsigned int k;

	if (!err && pp->nr <= MAX_INSPECT_PARAMS &&
	    dwarf_dieoffset(src) == dwarf_dieoffset(proto)) {
		for (k = 0; !err && k < pp->nr; k++)
			err = collect_tags(l, c, &pp->dies[k], k);
		return err;
	}
	if (err || die_reader_child(r, src, &child))
		return err;
	do {
		if (die_reader_tag(r, &child) != DW_TAG_formal_parameter)
			continue;
		err = collect_tags(l, c, &child, i++);
	} while (!err && !die_reader_sibling(r, &child, &child));
	return err;
}

static bool own_flag(Dwarf_Die *die, unsigned int name)
{
	Dwarf_Attribute mem;
	bool flag = false;

	return dwarf_attr(die, name, &mem) && !dwarf_formflag(&mem, &flag) && flag;
}

/* Did clang make the unit of die? (pahole: "clang" in DW_AT_producer) */
static bool unit_is_clang(Dwarf_Die *die)
{
	Dwarf_Attribute mem;
	const char *producer;
	Dwarf_Die cu;

	return dwarf_diecu(die, &cu, NULL, NULL) &&
	       dwarf_attr(&cu, DW_AT_producer, &mem) &&
	       (producer = dwarf_formstring(&mem)) && strstr(producer, "clang");
}

struct sym_memo {
	const char *name;		/* NULL: empty */
	const struct elf_func *sym;	/* NULL: no such function symbol */
};

#define SYM_MEMO_SIZE 8192

/* elf_syms_find_func(), remembered by the name's address for the chunk. */
static const struct elf_func *find_func(const struct cand_ctx *ctx,
					struct cand_list *l, const char *name)
{
	uint64_t h = (uintptr_t)name;
	struct sym_memo *m;

	if (!l->sym_memo) {
		l->sym_memo = calloc(SYM_MEMO_SIZE, sizeof(*l->sym_memo));
		if (!l->sym_memo)
			return elf_syms_find_func(ctx->syms, name);
	}
	h = (h ^ (h >> 29)) * 0xbf58476d1ce4e5b9ULL;
	m = &l->sym_memo[(h >> 40) & (SYM_MEMO_SIZE - 1)];
	if (m->name != name) {
		m->name = name;
		m->sym = elf_syms_find_func(ctx->syms, name);
	}
	return m->sym;
}

/* The candidate of the unit being walked whose DIE is at off, or NULL. */
static struct cand *unit_cand_at(struct cand_list *l, Dwarf_Off off)
{
	uint32_t i;

	for (i = l->nr_funcs; i > l->funcs_marked; i--)
		if (l->funcs[i - 1].die == off)
			return &l->funcs[i - 1];
	return NULL;
}

static int collect_function(const struct cand_ctx *ctx,
			    struct die_reader *r, Dwarf_Die *fn,
			    struct cand_list *l, struct cand_need *need)
{
	const struct elf_func *sym;
	struct proto_params pp;
	Dwarf_Attribute mem;
	const char *name;
	struct cand *c;
	bool clang, abstract_unexpected = false;
	uint32_t flags;
	uint64_t addr;
	int err;

	if (own_flag(fn, DW_AT_declaration))
		return 0;
	name = dwarf_diename(fn);	/* follows abstract origin */
	if (!name || !*name || !(sym = find_func(ctx, l, name)))
		return 0;
	if (!sym->exact && !ctx->features->optimized_funcs)
		return 0;
	/* the prototype as declared: a concrete instance's parameter list
	 * can hold repeats and leave out what was optimized away */
	if (!dwarf_attr(fn, DW_AT_abstract_origin, &mem) ||
	    !dwarf_formref_die(&mem, &need->die))
		need->die = *fn;
	need->proto = true;
	clang = unit_is_clang(fn);
	inspect(r, fn, &need->die, &ctx->abi, &ctx->locs, clang, &flags, &addr,
		&pp, &l->loc_span, &abstract_unexpected);
	/*
	 * pahole gives the abstract instance the locations of its concrete
	 * instances in the unit (dwarf_loader.c, ftype__recode_dwarf_types)
	 * and judges it with them: a parameter that lands outside its
	 * register flags the abstract instance, not the instance. So when
	 * the abstract instance is this unit's candidate already, the flag
	 * is its own (which decides, as in pahole, whether later
	 * definitions are compared at all); else the instance carries it.
	 */
	if (abstract_unexpected) {
		struct cand *abstract = unit_cand_at(l, dwarf_dieoffset(&need->die));

		if (abstract)
			abstract->flags |= CAND_UNEXPECTED_REG;
		else
			flags |= CAND_UNEXPECTED_REG;
	}
	/* true_signature: the code at a clone's address, as it really is */
	need->true_proto = ctx->features->true_signature &&
			   (flags & CAND_HAS_CODE) &&
			   elf_syms_clone_at(ctx->syms, sym, addr);
	if (need->true_proto) {
		need->true_die = *fn;
		need->drop = func_true_drop(r, fn, &need->die, &ctx->abi,
					    &ctx->locs, clang, flags);
	}
	c = cand_list_add(l, false, name);
	if (!c)
		return -ENOMEM;
	c->flags = flags;
	c->addr = addr;
	c->die = dwarf_dieoffset(fn);
	err = ctx->features->decl_tags ?
	      collect_func_tags(r, l, c, fn, &need->die, &pp) : 0;
	return err ? err : 1;
}

static int collect_variable(const struct cand_ctx *ctx, Dwarf_Die *var,
			    struct cand_list *l, struct cand_need *need)
{
	Dwarf_Attribute mem;
	Dwarf_Die spec, *src;
	const char *name;
	enum cand_var_verdict why;
	struct cand *c;
	uint32_t shndx;
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
	    (why = cand_var_place(ctx->syms, ctx->features->global_vars, name,
				  addr, &shndx, &offset)) != CAND_VAR_PLACED ||
	    !dwarf_attr_integrate(var, DW_AT_type, &mem) ||
	    !dwarf_formref_die(&mem, &need->die))
		return 0;
	need->proto = false;
	need->true_proto = false;
	c = cand_list_add(l, true, name);
	if (!c)
		return -ENOMEM;
	c->addr = addr;
	c->flags = CAND_HAS_CODE;
	if (dwarf_attr_integrate(var, DW_AT_external, &mem)) {
		bool flag = false;

		if (!dwarf_formflag(&mem, &flag) && flag)
			c->flags |= CAND_EXTERNAL;
	}
	if (!ctx->features->decl_tags)
		return 1;
	err = collect_tags(l, c, var, -1);
	src = origin_of(var, &spec);
	if (!err && src != var)
		err = collect_tags(l, c, src, -1);
	return err ? err : 1;
}

void cand_set_type(struct cand_list *l, bool is_var, uint32_t type)
{
	struct cand *c = is_var ? &l->vars[l->nr_vars - 1] :
				  &l->funcs[l->nr_funcs - 1];

	c->type = type;
	if (type || !is_var)
		return;
	/* a variable of no type BTF can hold: it was never a candidate */
	l->nr_tags = c->first_tag;
	l->strs_len = c->name;
	l->nr_vars--;
}

void cand_set_true_type(struct cand_list *l, uint32_t type)
{
	l->funcs[l->nr_funcs - 1].true_type = type;
}

int cand_add_markers(struct cand_list *l, struct btf *btf)
{
	char name[64];
	int id;

	for (; l->funcs_marked < l->nr_funcs; l->funcs_marked++) {
		const struct cand *c = &l->funcs[l->funcs_marked];

		cand_marker_name(name, sizeof(name), l->chunk, CAND_MARK_FUNC,
				 l->funcs_marked);
		id = btf__add_typedef(btf, name, c->type);
		if (id < 0)
			return id;
		if (!c->true_type)
			continue;
		cand_marker_name(name, sizeof(name), l->chunk, CAND_MARK_TRUE,
				 l->funcs_marked);
		id = btf__add_typedef(btf, name, c->true_type);
		if (id < 0)
			return id;
	}
	for (; l->vars_marked < l->nr_vars; l->vars_marked++) {
		cand_marker_name(name, sizeof(name), l->chunk, CAND_MARK_VAR,
				 l->vars_marked);
		id = btf__add_typedef(btf, name, l->vars[l->vars_marked].type);
		if (id < 0)
			return id;
	}
	return 0;
}

int cand_collect_die(const struct cand_ctx *ctx, struct die_reader *r,
		     Dwarf_Die *die, int tag,
		     struct cand_list *l, struct cand_need *need)
{
	/* most top-level DIEs are declarations: the abbreviation says so */
	if (die_reader_hasattr(r, die, DW_AT_declaration))
		return 0;
	if (tag == DW_TAG_subprogram)
		return ctx->features->funcs ? collect_function(ctx, r, die, l, need) : 0;
	if (!ctx->features->vars && !ctx->features->global_vars)
		return 0;
	return die_reader_hasattr(r, die, DW_AT_location) ?
	       collect_variable(ctx, die, l, need) : 0;
}
