// SPDX-License-Identifier: GPL-2.0-only
/*
 * Selection: which functions and variables the BTF describes.
 *
 * Input: the deduplicated BTF of the whole file, with a marker TYPEDEF per
 * candidate (funcs.c), the candidates themselves, and the ELF tables
 * (elf_syms.c). Every decision reads only these, and reads candidates in
 * an order fixed by their names and their place in the file (chunk, then
 * index), so the result does not depend on threads.
 *
 * Functions, pahole's rules (its btf_encoder.c, newest version): group the
 * candidates by name. Candidates with an unnamed parameter do not count.
 * The function is left out when
 *  - its name has ELF symbols at different addresses (SKIP_AMBIGUOUS_ADDR);
 *  - a definition has a parameter outside its calling-convention register
 *    (SKIP_UNEXPECTED_REG): callers pass it elsewhere than BTF says. The
 *    registers are counted as the ABI does (funcs.c param_slots): a 16-byte
 *    struct takes two, a bigger one none, a returned big struct the first;
 *  - a definition takes a packed struct by value past the register
 *    parameters (SKIP_UNCERTAIN_LOC): where it lies is not known;
 *  - two definitions' prototypes differ (SKIP_INCONSISTENT): parameter
 *    count, return or parameter types, compared by name through pointers,
 *    arrays and prototypes; const is ignored, a FWD matches its struct.
 * With consistent_func off none of this leaves anything out. Parameters
 * optimized out do not: callers still pass them. Otherwise the FUNC
 * (linkage static, as pahole writes) takes the prototype of the definition
 * at the ELF symbol's address (the strong one of a weak/strong pair), or
 * of the first definition with code, or the first. Its DECL_TAGs are that
 * definition's btf_decl_tag annotations, then "bpf_kfunc" (and
 * "bpf_fastcall") for kfuncs.
 *
 *	a.c: static int f(int);      b.c: static int f(long);  -> no FUNC f
 *	a.c: __weak void g(void) {}  b.c: void g(void) {}      -> g from b.c
 *
 * Variables: the section is the one holding the address; per-CPU
 * variables need an object symbol at their offset (pahole 1.24 matched
 * them by address); any variable at offset 0 needs a symbol of its name
 * (DWARF puts discarded variables there). Compiler-internal names
 * (__UNIQUE_ID..., __tpstrtab_...) and names BTF cannot hold are dropped,
 * and so are zero-sized ones. The same variable seen in several units is
 * one VAR; a DATASEC lists its variables by offset, each once, none
 * overlapping (the kernel refuses overlaps).
 *
 * Output: the rebuild copies every type but the markers, remapping ids
 * (one pass over the raw type section, with the word table of
 * canon/btf_kinds.h), appends the new types and their strings, and
 * parses the result back into a libbpf BTF. Canon orders it afterwards.
 * Cost: linear in the BTF plus a sort of the candidates.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <linux/btf.h>

#include "../canon/btf_kinds.h"
#include "elf_syms.h"
#include "encoder.h"
#include "funcs.h"
#include "select.h"

#define KSYM_NAME_LEN 128

const char *select_skip_reason(enum select_skip why)
{
	static const char *const reasons[SKIP_NR] = {
		/* the words of pahole -V, where it has the rule */
		[SKIP_AMBIGUOUS_ADDR] = "ambiguous address",
		[SKIP_OPTIMIZED] = "optimized parameters",
		[SKIP_REORDERED] = "reordered parameters",
		[SKIP_UNCERTAIN_LOC] = "uncertain parameter location",
		[SKIP_INCONSISTENT] = "inconsistent prototype",
		[SKIP_UNEXPECTED_REG] = "unexpected register usage for parameter",
		[SKIP_UNNAMED_PARAM] = "unnamed parameter",
		[SKIP_VAR_NO_SYMBOL] = "no ELF symbol at its address",
		[SKIP_VAR_NAME] = "filtered or invalid name",
		[SKIP_VAR_SIZE] = "zero-sized type",
		[SKIP_VAR_OVERLAP] = "overlaps another variable",
	};

	return why < SKIP_NR ? reasons[why] : "?";
}

/* A candidate by its place: list (chunk) and index. */
struct cand_ref {
	struct cand_list *list;
	struct cand *cand;
	uint32_t shndx;			/* variables: section */
	uint64_t offset;		/* variables: offset in it */
	uint32_t size;			/* variables: type size */
};

static const char *ref_name(const struct cand_ref *r)
{
	return cand_str(r->list, r->cand->name);
}

static int cmp_by_name(const void *pa, const void *pb)
{
	const struct cand_ref *a = pa, *b = pb;
	int c = strcmp(ref_name(a), ref_name(b));

	if (c)
		return c;
	if (a->list->chunk != b->list->chunk)
		return a->list->chunk < b->list->chunk ? -1 : 1;
	return a->cand->index < b->cand->index ? -1 : a->cand->index > b->cand->index;
}

static int cmp_by_place(const void *pa, const void *pb)
{
	const struct cand_ref *a = pa, *b = pb;

	if (a->shndx != b->shndx)
		return a->shndx < b->shndx ? -1 : 1;
	if (a->offset != b->offset)
		return a->offset < b->offset ? -1 : 1;
	return cmp_by_name(pa, pb);
}

/* --- prototype comparison, pahole's types__match */

static int match_kind(const struct btf_type *t)
{
	if (btf_kind(t) == BTF_KIND_FWD)
		return btf_kflag(t) ? BTF_KIND_UNION : BTF_KIND_STRUCT;
	return btf_kind(t);
}

static bool names_match(const struct btf *btf, const struct btf_type *a,
			const struct btf_type *b)
{
	return a->name_off == b->name_off ||
	       !strcmp(btf__name_by_offset(btf, a->name_off),
		       btf__name_by_offset(btf, b->name_off));
}

static bool types_match(const struct btf *btf, uint32_t a, uint32_t b, int depth)
{
	while (depth++ < 64) {
		const struct btf_type *ta, *tb;
		int ka, kb;

		if (a == b)
			return true;
		if (!a || !b)
			return false;
		ta = btf__type_by_id(btf, a);
		tb = btf__type_by_id(btf, b);
		if (!ta || !tb)
			return false;
		ka = match_kind(ta);
		kb = match_kind(tb);
		if (ka != kb) {
			/* const int and int are one parameter type */
			if (ka == BTF_KIND_CONST) {
				a = ta->type;
				continue;
			}
			if (kb == BTF_KIND_CONST) {
				b = tb->type;
				continue;
			}
			return false;
		}
		switch (ka) {
		case BTF_KIND_INT:
			return ta->size == tb->size &&
			       *(const uint32_t *)(ta + 1) == *(const uint32_t *)(tb + 1) &&
			       names_match(btf, ta, tb);
		case BTF_KIND_FLOAT:
			return ta->size == tb->size && names_match(btf, ta, tb);
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION:
		case BTF_KIND_ENUM:
		case BTF_KIND_ENUM64:
			return names_match(btf, ta, tb);
		case BTF_KIND_PTR:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_CONST:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
			a = ta->type;
			b = tb->type;
			continue;
		case BTF_KIND_ARRAY:
			if (btf_array(ta)->nelems != btf_array(tb)->nelems)
				return false;
			a = btf_array(ta)->type;
			b = btf_array(tb)->type;
			continue;
		case BTF_KIND_FUNC_PROTO: {
			const struct btf_param *pa = btf_params(ta), *pb = btf_params(tb);
			uint32_t i, n = btf_vlen(ta);

			if (n != btf_vlen(tb) || !types_match(btf, ta->type, tb->type, depth))
				return false;
			for (i = 0; i < n; i++)
				if (!types_match(btf, pa[i].type, pb[i].type, depth))
					return false;
			return true;
		}
		default:
			return false;
		}
	}
	return false;
}

/* --- the output: raw BTF being assembled */

struct out_btf {
	uint32_t *types;		/* words */
	size_t nr_words, cap_words;
	char *strs;
	size_t str_len, str_cap;
	uint32_t str_base;		/* offset of strs[0] (base strings before) */
	uint32_t next_id;
};

static int out_words(struct out_btf *o, const uint32_t *w, size_t n)
{
	if (o->nr_words + n > o->cap_words) {
		size_t cap = o->cap_words ? o->cap_words * 2 : 1 << 16;
		uint32_t *grown;

		while (cap < o->nr_words + n)
			cap *= 2;
		grown = realloc(o->types, cap * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		o->types = grown;
		o->cap_words = cap;
	}
	if (n)	/* w may be NULL for no words */
		memcpy(o->types + o->nr_words, w, n * sizeof(*w));
	o->nr_words += n;
	return 0;
}

/* Appends a string; returns its offset in the output, or 0 on ENOMEM. */
static uint32_t out_str(struct out_btf *o, const char *s)
{
	size_t len = strlen(s) + 1;
	uint32_t off;

	if (o->str_len + len > o->str_cap) {
		size_t cap = o->str_cap ? o->str_cap * 2 : 1 << 16;
		char *grown;

		while (cap < o->str_len + len)
			cap *= 2;
		grown = realloc(o->strs, cap);
		if (!grown)
			return 0;
		o->strs = grown;
		o->str_cap = cap;
	}
	off = o->str_base + o->str_len;
	memcpy(o->strs + o->str_len, s, len);
	o->str_len += len;
	return off;
}

/* Adds a type of three words plus extra; returns its id, or 0 on ENOMEM. */
static uint32_t out_type(struct out_btf *o, const char *name, uint32_t info,
			 uint32_t size_or_type, const uint32_t *extra,
			 size_t nr_extra)
{
	uint32_t w[3] = { name ? out_str(o, name) : 0, info, size_or_type };

	if ((name && !w[0]) || out_words(o, w, 3) || out_words(o, extra, nr_extra))
		return 0;
	return o->next_id++;
}

static uint32_t out_decl_tag(struct out_btf *o, const char *value,
			     uint32_t target, int component)
{
	uint32_t comp = (uint32_t)component;

	return out_type(o, value, BTF_KIND_DECL_TAG << 24, target, &comp, 1);
}

/* --- the selection */

struct selection {
	struct btf *merged;
	const struct elf_syms *syms;
	const struct encode_features *features;
	const struct bc_log *log;
	struct select_stats *stats;
	uint32_t start_id;		/* first id of merged's own types */
	uint32_t end_id;		/* one past its last */
	uint8_t *drop;			/* [own types]: a marker, or a proto nobody uses */
	uint32_t *new_id;		/* [own types]: output id */
	struct cand_ref *funcs;		/* chosen: one definition per function */
	uint32_t nr_funcs;
	struct cand_ref *vars;		/* chosen: by section and offset */
	uint32_t nr_vars;
	struct out_btf out;
};

static bool usable(const struct cand *c)
{
	return !(c->flags & CAND_UNNAMED_PARAM);
}

static void log_skip(struct selection *s, const char *name, enum select_skip why)
{
	s->stats->skipped[why]++;
	bc_log_printf(s->log, BC_LOG_INFO, "function %s skipped: %s", name,
		      select_skip_reason(why));
}

static uint32_t map_id(const struct selection *s, uint32_t id)
{
	return id < s->start_id ? id : s->new_id[id - s->start_id];
}

/*
 * Does pahole leave a function out for c's optimized parameters? Only when
 * the ABI changed: clang said so (DW_CC_nocall), or c is the code of a
 * clone the symbol table names foo.isra.N or foo.constprop.N.
 */
static bool optimized_skip(const struct elf_func *sym, const struct cand *c)
{
	if (!(c->flags & CAND_OPTIMIZED_PARAM))
		return false;
	if (c->flags & CAND_SIG_CHANGED)
		return true;
	return sym->opt_clone && (c->flags & CAND_HAS_CODE) && c->addr == sym->addr;
}

/* Is c the code at one of sym's addresses? */
static bool at_symbol(const struct selection *s, const struct elf_func *sym,
		      const struct cand *c)
{
	return (c->flags & CAND_HAS_CODE) &&
	       (c->addr == sym->addr || elf_syms_clone_at(s->syms, sym, c->addr));
}

/*
 * Decides one function: refs[0 .. n) are its candidates, in order.
 * Returns the definition whose prototype the FUNC takes, or NULL.
 *
 * pahole's order of reasons, the last that applies being the one given:
 * unexpected register, inconsistent prototype, uncertain location,
 * reordered, optimized, ambiguous address. The flags of all definitions
 * count, but a prototype is compared with the first only while none of
 * the definitions seen so far has an unexpected register or reordered
 * parameters (pahole compares no further then). The FUNC takes the
 * prototype of the first definition at the symbol's address that needs
 * no optimized skip, else the first at that address, else the first.
 */
static struct cand_ref *decide_function(struct selection *s,
					struct cand_ref *refs, uint32_t n)
{
	const char *name = ref_name(&refs[0]);
	const struct elf_func *sym = elf_syms_find_func(s->syms, name);
	struct cand_ref *first = NULL, *win = NULL, *at_sym = NULL;
	bool inconsistent = false;
	enum select_skip why = SKIP_NR;
	uint32_t flags = 0, i;
	struct cand *c;

	if (!sym)
		return NULL;
	for (i = 0; i < n; i++) {
		c = refs[i].cand;
		if (!usable(c))
			continue;
		flags |= c->flags;
		if (!first)
			first = &refs[i];
		else if (!inconsistent &&
			 !(flags & (CAND_UNEXPECTED_REG | CAND_REORDERED)) &&
			 !types_match(s->merged, first->cand->type, c->type, 0))
			inconsistent = true;
		if (!at_symbol(s, sym, c))
			continue;
		if (!at_sym)
			at_sym = &refs[i];
		if (!win && !optimized_skip(sym, c))
			win = &refs[i];
	}
	if (!first) {
		log_skip(s, name, SKIP_UNNAMED_PARAM);
		return NULL;
	}
	if (!win)
		win = at_sym ? at_sym : first;
	if (flags & CAND_UNEXPECTED_REG)
		why = SKIP_UNEXPECTED_REG;
	if (inconsistent && s->features->consistent_funcs)
		why = SKIP_INCONSISTENT;
	if (flags & CAND_UNCERTAIN_LOC)
		why = SKIP_UNCERTAIN_LOC;
	if (flags & CAND_REORDERED)
		why = SKIP_REORDERED;
	if (optimized_skip(sym, win->cand))
		why = SKIP_OPTIMIZED;
	if (sym->ambiguous)
		why = SKIP_AMBIGUOUS_ADDR;
	if (why != SKIP_NR) {
		log_skip(s, name, why);
		return NULL;
	}
	return win;
}

static int decide_functions(struct selection *s, struct cand_list *lists,
			    uint32_t nr_lists)
{
	struct cand_ref *refs;
	uint32_t n = 0, k, i, j;

	for (k = 0; k < nr_lists; k++)
		n += lists[k].nr_funcs;
	s->stats->func_cands = n;
	refs = calloc(n ? n : 1, sizeof(*refs));
	s->funcs = calloc(n ? n : 1, sizeof(*s->funcs));
	if (!refs || !s->funcs) {
		free(refs);
		return -ENOMEM;
	}
	n = 0;
	for (k = 0; k < nr_lists; k++)
		for (i = 0; i < lists[k].nr_funcs; i++) {
			refs[n].list = &lists[k];
			refs[n++].cand = &lists[k].funcs[i];
		}
	qsort(refs, n, sizeof(*refs), cmp_by_name);
	for (i = 0; i < n; i = j) {
		struct cand_ref *win;

		for (j = i + 1; j < n && !strcmp(ref_name(&refs[i]), ref_name(&refs[j])); j++)
			;
		win = decide_function(s, refs + i, j - i);
		if (win)
			s->funcs[s->nr_funcs++] = *win;
	}
	free(refs);
	return 0;
}

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

bool select_var_wanted(const struct elf_syms *syms, bool global_vars,
		       const char *name, uint64_t addr, uint32_t *shndx,
		       uint64_t *offset, enum select_skip *why)
{
	*shndx = elf_syms_section_of(syms, addr);
	if (!*shndx || (!global_vars && *shndx != syms->percpu_shndx))
		return *why = SKIP_VAR_NO_SYMBOL, false;
	*offset = addr - syms->sections[*shndx].addr;
	if (filtered_var_name(name) || !btf_name_valid(name))
		return *why = SKIP_VAR_NAME, false;
	if (*shndx == syms->percpu_shndx &&
	    !elf_syms_find_object(syms, *shndx, *offset, NULL))
		return *why = SKIP_VAR_NO_SYMBOL, false;
	if (*offset == 0 && !elf_syms_find_object(syms, *shndx, 0, name))
		return *why = SKIP_VAR_NO_SYMBOL, false;
	if (*offset > UINT32_MAX)
		return *why = SKIP_VAR_SIZE, false;
	return true;
}

/* Places a variable; false (with a reason) when it gets no VAR. */
static bool place_variable(struct selection *s, struct cand_ref *r,
			   enum select_skip *why)
{
	__s64 size;

	if (!select_var_wanted(s->syms, s->features->global_vars, ref_name(r),
			       r->cand->addr, &r->shndx, &r->offset, why))
		return false;
	size = btf__resolve_size(s->merged, r->cand->type);
	if (size <= 0 || size > UINT32_MAX)
		return *why = SKIP_VAR_SIZE, false;
	r->size = size;
	return true;
}

/*
 * Places every variable candidate and keeps, per section and offset, the
 * first of each name; a variable overlapping the one before is dropped.
 */
static int decide_variables(struct selection *s, struct cand_list *lists,
			    uint32_t nr_lists)
{
	uint32_t n = 0, k, i, kept = 0;
	struct cand_ref *refs;
	uint64_t end = 0;

	for (k = 0; k < nr_lists; k++)
		n += lists[k].nr_vars;
	s->stats->var_cands = n;
	refs = calloc(n ? n : 1, sizeof(*refs));
	if (!refs)
		return -ENOMEM;
	n = 0;
	for (k = 0; k < nr_lists; k++)
		for (i = 0; i < lists[k].nr_vars; i++) {
			enum select_skip why;

			refs[n].list = &lists[k];
			refs[n].cand = &lists[k].vars[i];
			if (place_variable(s, &refs[n], &why))
				n++;
			else
				s->stats->skipped[why]++;
		}
	qsort(refs, n, sizeof(*refs), cmp_by_place);
	for (i = 0; i < n; i++) {
		struct cand_ref *r = &refs[i];

		if (!kept || refs[kept - 1].shndx != r->shndx)
			end = 0;
		else if (refs[kept - 1].offset == r->offset &&
			 !strcmp(ref_name(&refs[kept - 1]), ref_name(r)))
			continue;	/* the same variable, from another unit */
		if (r->offset < end) {
			s->stats->skipped[SKIP_VAR_OVERLAP]++;
			continue;
		}
		end = r->offset + r->size;
		refs[kept++] = *r;
	}
	s->vars = refs;
	s->nr_vars = kept;
	return 0;
}

/*
 * Finds the markers among merged's types and gives each candidate its
 * type's id. Markers are dropped from the output; so are the prototypes
 * of candidates that got no FUNC, when nothing else refers to them.
 */
static int resolve_markers(struct selection *s, struct cand_list *lists,
			   uint32_t nr_lists)
{
	uint32_t id;

	s->drop = calloc(s->end_id - s->start_id + 1, 1);
	s->new_id = calloc(s->end_id - s->start_id + 1, sizeof(*s->new_id));
	if (!s->drop || !s->new_id)
		return -ENOMEM;
	for (id = s->start_id; id < s->end_id; id++) {
		const struct btf_type *t = btf__type_by_id(s->merged, id);
		uint32_t chunk, index;
		bool is_var;

		if (btf_kind(t) != BTF_KIND_TYPEDEF ||
		    !cand_marker_parse(btf__name_by_offset(s->merged, t->name_off),
				       &chunk, &is_var, &index) ||
		    chunk >= nr_lists ||
		    index >= (is_var ? lists[chunk].nr_vars : lists[chunk].nr_funcs))
			continue;
		(is_var ? lists[chunk].vars : lists[chunk].funcs)[index].type = t->type;
		s->drop[id - s->start_id] = 1;
	}
	return 0;
}

/* Drops unused candidate prototypes; numbers the types that stay. */
static int number_types(struct selection *s, const uint8_t *types, uint32_t len)
{
	uint32_t off = 0, id = s->start_id, next = s->start_id, i;
	uint8_t *used = calloc(s->end_id - s->start_id + 1, 1);

	if (!used)
		return -ENOMEM;
	/* referred to by a type that stays, or by a chosen FUNC or VAR */
	while (off < len) {
		const struct btf_type *t = (const void *)(types + off);
		uint32_t kind = bc_type_kind(t), words = bc_type_words(t), j;

		if (!s->drop[id - s->start_id])
			for (j = 2; j < words; j++) {
				uint32_t ref = ((const uint32_t *)t)[j];

				if (bc_word_class(kind, j) == BC_WORD_REF &&
				    ref >= s->start_id && ref < s->end_id)
					used[ref - s->start_id] = 1;
			}
		off += words * 4;
		id++;
	}
	for (i = 0; i < s->nr_funcs; i++)
		if (s->funcs[i].cand->type >= s->start_id)
			used[s->funcs[i].cand->type - s->start_id] = 1;
	for (i = 0; i < s->nr_vars; i++)
		if (s->vars[i].cand->type >= s->start_id)
			used[s->vars[i].cand->type - s->start_id] = 1;
	for (id = s->start_id; id < s->end_id; id++) {
		const struct btf_type *t = btf__type_by_id(s->merged, id);

		if (btf_kind(t) == BTF_KIND_FUNC_PROTO && !used[id - s->start_id])
			s->drop[id - s->start_id] = 1;
		if (!s->drop[id - s->start_id])
			s->new_id[id - s->start_id] = next++;
	}
	s->out.next_id = next;
	free(used);
	return 0;
}

/* Copies merged's types but the dropped ones, ids remapped. */
static int copy_types(struct selection *s, const uint8_t *types, uint32_t len)
{
	uint32_t off = 0, id = s->start_id;

	while (off < len) {
		const struct btf_type *t = (const void *)(types + off);
		uint32_t kind = bc_type_kind(t), words, j, base;

		if (!bc_kind_valid(kind))
			return -EINVAL;
		words = bc_type_words(t);
		if (!s->drop[id - s->start_id]) {
			base = s->out.nr_words;
			if (out_words(&s->out, (const uint32_t *)t, words))
				return -ENOMEM;
			for (j = 2; j < words; j++)
				if (bc_word_class(kind, j) == BC_WORD_REF)
					s->out.types[base + j] =
						map_id(s, s->out.types[base + j]);
		}
		off += words * 4;
		id++;
	}
	return 0;
}

/* A candidate's decl tags, on the output type id. */
static int emit_tags(struct selection *s, const struct cand_ref *r, uint32_t id)
{
	uint32_t i;

	for (i = 0; i < r->cand->nr_tags; i++) {
		const struct cand_tag *t = &r->list->tags[r->cand->first_tag + i];

		if (!out_decl_tag(&s->out, cand_str(r->list, t->value), id,
				  t->component))
			return -ENOMEM;
		s->stats->decl_tags++;
	}
	return 0;
}

static int emit_functions(struct selection *s)
{
	bool kfunc_tags = s->features->kfunc_tags && s->features->decl_tags;
	uint32_t i, id;

	for (i = 0; i < s->nr_funcs; i++) {
		const struct cand_ref *r = &s->funcs[i];
		const char *name = ref_name(r);
		const struct elf_func *sym = elf_syms_find_func(s->syms, name);

		id = out_type(&s->out, name, BTF_KIND_FUNC << 24 | BTF_FUNC_STATIC,
			      map_id(s, r->cand->type), NULL, 0);
		if (!id || emit_tags(s, r, id))
			return -ENOMEM;
		s->stats->funcs++;
		if (!kfunc_tags || !sym->kfunc)
			continue;
		if (!out_decl_tag(&s->out, "bpf_kfunc", id, -1))
			return -ENOMEM;
		s->stats->kfunc_tags++;
		if (!(sym->kfunc_flags & ELF_KF_FASTCALL))
			continue;
		if (!out_decl_tag(&s->out, "bpf_fastcall", id, -1))
			return -ENOMEM;
		s->stats->kfunc_tags++;
	}
	return 0;
}

/* VARs, and a DATASEC for each section's run of them. */
static int emit_variables(struct selection *s)
{
	uint32_t i, first = 0, *entries;

	entries = calloc(3 * (size_t)s->nr_vars + 1, sizeof(*entries));
	if (!entries)
		return -ENOMEM;
	for (i = 0; i < s->nr_vars; i++) {
		const struct cand_ref *r = &s->vars[i];
		uint32_t linkage = r->cand->flags & CAND_EXTERNAL ?
				   BTF_VAR_GLOBAL_ALLOCATED : BTF_VAR_STATIC;
		uint32_t id = out_type(&s->out, ref_name(r), BTF_KIND_VAR << 24,
				       map_id(s, r->cand->type), &linkage, 1);

		if (!id || emit_tags(s, r, id))
			goto nomem;
		s->stats->vars++;
		entries[3 * i] = id;
		entries[3 * i + 1] = r->offset;
		entries[3 * i + 2] = r->size;
		if (i + 1 < s->nr_vars && s->vars[i + 1].shndx == r->shndx)
			continue;
		/* the section's last variable: its DATASEC */
		if (!out_type(&s->out, s->syms->sections[r->shndx].name,
			      BTF_KIND_DATASEC << 24 | (i + 1 - first),
			      r->offset + r->size, entries + 3 * first,
			      3 * (i + 1 - first)))
			goto nomem;
		s->stats->datasecs++;
		first = i + 1;
	}
	free(entries);
	return 0;
nomem:
	free(entries);
	return -ENOMEM;
}

/*
 * A libbpf BTF from raw bytes. libbpf 1.1.2 exports no btf__new_split:
 * split BTF goes through btf__parse_raw_split on an in-memory file.
 */
static struct btf *btf_from_raw(const void *raw, size_t size, struct btf *base)
{
	struct btf *btf = NULL;
	char path[64];
	int fd;

	if (!base)
		return btf__new(raw, size);
	fd = memfd_create("btfcanon-split", MFD_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (write(fd, raw, size) == (ssize_t)size) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		btf = btf__parse_raw_split(path, base);
	}
	close(fd);
	return btf;
}

static struct btf *out_finish(struct selection *s, struct btf *base,
			      const struct btf_header *in_hdr)
{
	struct btf_header hdr = *in_hdr;
	size_t types_len = s->out.nr_words * 4;
	struct btf *btf;
	uint8_t *raw;

	hdr.hdr_len = sizeof(hdr);
	hdr.type_off = 0;
	hdr.type_len = types_len;
	hdr.str_off = types_len;
	hdr.str_len = s->out.str_len;
	raw = malloc(sizeof(hdr) + types_len + s->out.str_len);
	if (!raw)
		return NULL;
	memcpy(raw, &hdr, sizeof(hdr));
	if (types_len)	/* no types: s->out.types is NULL */
		memcpy(raw + sizeof(hdr), s->out.types, types_len);
	if (s->out.str_len)
		memcpy(raw + sizeof(hdr) + types_len, s->out.strs, s->out.str_len);
	btf = btf_from_raw(raw, sizeof(hdr) + types_len + s->out.str_len, base);
	free(raw);
	return btf;	/* libbpf 1.x: NULL on error */
}

int select_emit(struct btf *merged, struct btf *base, struct cand_list *lists,
		uint32_t nr_lists, const struct elf_syms *syms,
		const struct encode_features *features, struct btf **out,
		struct select_stats *stats, const struct bc_log *log)
{
	struct selection s = {
		.merged = merged, .syms = syms, .features = features,
		.log = log, .stats = stats,
	};
	const struct btf_header *hdr;
	const uint8_t *raw, *types;
	uint32_t raw_size, base_str_len = 0;
	int err;

	*out = NULL;
	memset(stats, 0, sizeof(*stats));
	raw = btf__raw_data(merged, &raw_size);
	if (!raw)
		return bc_log_error(log, -ENOMEM, "out of memory");
	hdr = (const void *)raw;
	types = raw + hdr->hdr_len + hdr->type_off;
	if (base) {
		const struct btf_header *bhdr;
		uint32_t bsize;

		bhdr = btf__raw_data(base, &bsize);
		if (!bhdr)
			return bc_log_error(log, -ENOMEM, "out of memory");
		base_str_len = bhdr->str_len;
	}
	s.start_id = base ? btf__type_cnt(base) : 1;
	s.end_id = btf__type_cnt(merged);
	/* the output's strings: merged's own, then what the new types add */
	s.out.str_base = base_str_len;
	s.out.str_cap = hdr->str_len + 4096;
	s.out.strs = malloc(s.out.str_cap);
	if (!s.out.strs) {
		err = -ENOMEM;
		goto out;
	}
	memcpy(s.out.strs, raw + hdr->hdr_len + hdr->str_off, hdr->str_len);
	s.out.str_len = hdr->str_len;
	err = resolve_markers(&s, lists, nr_lists);
	if (!err && features->funcs)
		err = decide_functions(&s, lists, nr_lists);
	if (!err && (features->vars || features->global_vars))
		err = decide_variables(&s, lists, nr_lists);
	if (!err)
		err = number_types(&s, types, hdr->type_len);
	if (!err)
		err = copy_types(&s, types, hdr->type_len);
	if (!err)
		err = emit_functions(&s);
	if (!err)
		err = emit_variables(&s);
	if (err) {
		bc_log_error(log, err, "function and variable selection failed: %s",
			     strerror(-err));
		goto out;
	}
	*out = out_finish(&s, base, hdr);
	if (!*out)
		err = bc_log_error(log, -EINVAL,
			"internal error: the BTF with functions and variables does not parse");
out:
	free(s.drop);
	free(s.new_id);
	free(s.funcs);
	free(s.vars);
	free(s.out.types);
	free(s.out.strs);
	return err;
}
