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
 * Functions, pahole's rules (v1.31-38, its btf_encoder.c): group the
 * candidates by name. Candidates with an unnamed parameter do not count.
 * The function is left out when (the reason given is the last that holds)
 *  - a definition has a parameter outside its calling-convention register
 *    (SKIP_UNEXPECTED_REG): callers pass it elsewhere than BTF says. The
 *    registers are counted as pahole counts them (funcs.c);
 *  - two definitions' prototypes differ (SKIP_INCONSISTENT, only under
 *    consistent_func): parameter count, return or parameter types,
 *    compared by name through pointers, arrays and prototypes; const is
 *    ignored, a FWD matches its struct;
 *  - a definition takes a packed struct by value past the register
 *    parameters (SKIP_UNCERTAIN_LOC): where it lies is not known;
 *  - a definition lists its parameters in another order than declared
 *    (SKIP_REORDERED);
 *  - the definition chosen has parameters optimized out and its ABI
 *    changed: clang said so (DW_CC_nocall), or it is the code of a clone
 *    named foo.isra.N or foo.constprop.N (SKIP_OPTIMIZED). Optimized-out
 *    parameters alone do not: callers still pass them;
 *  - its name has ELF symbols at different addresses (SKIP_AMBIGUOUS_ADDR).
 * Otherwise the FUNC (linkage static, as pahole writes) takes the
 * prototype of the first definition at the symbol's address that needs no
 * optimized skip (the strong one of a weak/strong pair), else of the first
 * at that address, else of the first. Its DECL_TAGs are that definition's
 * btf_decl_tag annotations, then "bpf_kfunc" (and "bpf_fastcall") for
 * kfuncs. With attributes, a kfunc flagged for arena pointers gets a
 * prototype of its own with them tagged (arena_proto()).
 *
 * With true_signature (pahole's feature) a function whose code sits at a
 * clone's address (foo.isra.0) gets, unless a parameter is in an
 * unexpected register or at an uncertain place, a FUNC of the clone's name
 * with the clone's own parameter list (funcs.c func_true_drop() says which
 * parameters it leaves out), and optimized parameters leave nothing out.
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
 * Output: the chosen FUNCs (with their DECL_TAGs), VARs and DATASECs are
 * added to the merged BTF itself, and the types the output does without
 * (the markers, the prototypes of functions that got no FUNC) are handed
 * to canon as a map of types to omit: canon's rebuild is the one writer
 * of BTF. Cost: linear in the BTF plus a sort of the candidates.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <linux/btf.h>

#include "../canon/btf_kinds.h"
#include "../canon/par.h"
#include "elf_syms.h"
#include "features.h"
#include "funcs.h"
#include "select.h"


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
	bool true_sig;			/* functions: the FUNC is the clone's */
	const struct elf_func *sym;	/* functions, chosen: its symbols */
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

/*
 * Where the prototypes a and b (FUNC_PROTOs that types_match() found
 * different) first differ, checked as pahole's funcs__match does: the
 * parameter count, the return type, then each parameter's type (the
 * names are the parameters' own). Fills d's mismatch fields.
 */
static int find_mismatch(const struct btf *btf, uint32_t a, uint32_t b,
			 struct func_decision *d)
{
	const struct btf_type *ta = btf__type_by_id(btf, a);
	const struct btf_type *tb = btf__type_by_id(btf, b);
	const struct btf_param *pa, *pb;
	uint32_t i, n;

	if (!ta || !tb || !btf_is_func_proto(ta) || !btf_is_func_proto(tb))
		return 0;
	n = btf_vlen(ta);
	if (n != btf_vlen(tb)) {
		d->mismatch = MISMATCH_PARAM_COUNT;
		d->a = n;
		d->b = btf_vlen(tb);
		return 0;
	}
	if (!types_match(btf, ta->type, tb->type, 0)) {
		d->mismatch = MISMATCH_RETURN;
		return 0;
	}
	pa = btf_params(ta);
	pb = btf_params(tb);
	for (i = 0; i < n; i++) {
		if (types_match(btf, pa[i].type, pb[i].type, 0))
			continue;
		d->mismatch = MISMATCH_PARAM_TYPE;
		d->a = i + 1;
		d->param_a = strdup(btf__name_by_offset(btf, pa[i].name_off) ?: "");
		d->param_b = strdup(btf__name_by_offset(btf, pb[i].name_off) ?: "");
		return d->param_a && d->param_b ? 0 : -ENOMEM;
	}
	return 0;
}

void func_decisions_deinit(struct func_decisions *d)
{
	uint32_t i;

	if (!d)
		return;
	for (i = 0; i < d->nr; i++) {
		free(d->entries[i].name);
		free(d->entries[i].param_a);
		free(d->entries[i].param_b);
	}
	free(d->entries);
	memset(d, 0, sizeof(*d));
}

/* Keeps d (its strings now the list's) for name. Returns 0 or -ENOMEM. */
static int decisions_add(struct func_decisions *list, const char *name,
			 struct func_decision *d)
{
	if (list->nr == list->cap) {
		uint32_t cap = list->cap ? 2 * list->cap : 256;
		struct func_decision *e = realloc(list->entries, cap * sizeof(*e));

		if (!e)
			return -ENOMEM;
		list->entries = e;
		list->cap = cap;
	}
	d->name = strdup(name);
	if (!d->name)
		return -ENOMEM;
	list->entries[list->nr++] = *d;
	memset(d, 0, sizeof(*d));
	return 0;
}

/* --- the selection */

struct selection {
	struct btf *merged;
	const struct elf_syms *syms;
	const struct encode_features *features;
	const struct bc_log *log;
	struct select_stats *stats;
	uint32_t start_id;		/* first id of merged's own types: 1 (standalone) */
	uint32_t end_id;		/* one past its last, before the new types */
	uint8_t *omit;			/* [own types]: a marker, or a proto nobody uses */
	struct cand_ref *funcs;		/* chosen: one definition per function */
	uint32_t nr_funcs;
	struct cand_ref *vars;		/* chosen: by section and offset */
	uint32_t nr_vars;
	struct func_decisions *decisions;	/* or NULL */
	unsigned int jobs;		/* threads for the parallel steps */
	double par_main_sec;		/* this thread's CPU inside them */
	double par_longest_sec;		/* their longest tasks, summed */
};

/*
 * The decisions on functions are made in parallel: the plan's groups
 * (one name each, in name order) are cut into SELECT_TASKS ranges by
 * their place in the plan, a function of the candidates alone; a task
 * decides its groups into lists of its own, and the lists are joined in
 * range order, so the FUNCs, the decision lines and the log come out in
 * name order, the same as on one thread. Markers are found in parallel
 * too, over ranges of type ids (each marker writes its own candidate).
 */
#define SELECT_TASKS	64

struct skip_note {
	const char *name;
	enum select_skip why;
};

struct decide_task {
	uint32_t range;			/* of SELECT_TASKS, where its groups start */
	uint32_t first, end;		/* refs [first, end): whole groups */
	struct cand_ref *funcs;		/* chosen, in order */
	uint32_t nr_funcs;
	struct func_decisions decisions;
	struct skip_note *skips;	/* functions left out, in order */
	uint32_t nr_skips, skips_cap;
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

/* A function left out, noted by its task to be logged in order. */
static int note_skip(struct decide_task *t, const char *name,
		     enum select_skip why)
{
	if (t->nr_skips == t->skips_cap) {
		uint32_t cap = t->skips_cap ? 2 * t->skips_cap : 64;
		struct skip_note *n = realloc(t->skips, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		t->skips = n;
		t->skips_cap = cap;
	}
	t->skips[t->nr_skips].name = name;
	t->skips[t->nr_skips++].why = why;
	return 0;
}

/*
 * Does pahole leave a function out for c's optimized parameters? Only when
 * the ABI changed: clang said so (DW_CC_nocall), or c is the code of a
 * clone the symbol table names foo.isra.N or foo.constprop.N.
 */
static bool optimized_skip(const struct selection *s,
			   const struct elf_func *sym, const struct cand *c)
{
	if (s->features->true_signature || !(c->flags & CAND_OPTIMIZED_PARAM))
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
 * Sets *chosen to the definition whose prototype the FUNC takes, or NULL,
 * and notes the decision (s->decisions). Returns 0 or -ENOMEM.
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
/*
 * true_signature: the first definition that is the code at a clone's
 * address (its true_type was made), unless it or one before it has a
 * parameter in an unexpected register or at an uncertain place (the first
 * counting every definition's flags, as pahole shares them): a FUNC named
 * as the clone (foo.isra.0), with the signature the code really has.
 */
static struct cand_ref *true_signature(struct cand_ref *refs, uint32_t n)
{
	uint32_t prefix = 0, all = 0, seen = 0, i;

	for (i = 0; i < n; i++)
		if (usable(refs[i].cand))
			all |= refs[i].cand->flags;
	for (i = 0; i < n; i++) {
		const struct cand *c = refs[i].cand;

		if (!usable(c))
			continue;
		/* the first sees everyone's flags, the others those up to them */
		prefix |= c->flags;
		if (c->true_type &&
		    !((seen ? prefix : all) & (CAND_UNEXPECTED_REG | CAND_UNCERTAIN_LOC))) {
			refs[i].true_sig = true;
			return &refs[i];
		}
		seen = 1;
	}
	return NULL;
}

static int decide_function(const struct selection *s, struct decide_task *t,
			   const struct elf_func *sym,
			   struct cand_ref *refs, uint32_t n,
			   struct cand_ref **chosen)
{
	const char *name = ref_name(&refs[0]);
	struct cand_ref *first = NULL, *win = NULL, *at_sym = NULL;
	struct func_decision d = { .why = SKIP_NR };
	bool inconsistent = false;
	uint32_t flags = 0, i;
	struct cand *c;
	int err = 0;

	*chosen = NULL;
	if (!sym)
		return 0;
	if (s->features->true_signature && (*chosen = true_signature(refs, n)))
		return 0;
	for (i = 0; i < n; i++) {
		c = refs[i].cand;
		if (!usable(c))
			continue;
		flags |= c->flags;
		if (!first) {
			first = &refs[i];
		} else if (!inconsistent &&
			   !(flags & (CAND_UNEXPECTED_REG | CAND_REORDERED)) &&
			   !types_match(s->merged, first->cand->type, c->type, 0)) {
			inconsistent = true;
			if (s->decisions)
				err = find_mismatch(s->merged, first->cand->type,
						    c->type, &d);
		}
		if (!at_symbol(s, sym, c))
			continue;
		if (!at_sym)
			at_sym = &refs[i];
		if (!win && !optimized_skip(s, sym, c))
			win = &refs[i];
	}
	if (!first) {
		d.why = SKIP_UNNAMED_PARAM;
	} else {
		if (!win)
			win = at_sym ? at_sym : first;
		if (flags & CAND_UNEXPECTED_REG)
			d.why = SKIP_UNEXPECTED_REG;
		if (inconsistent && s->features->consistent_funcs)
			d.why = SKIP_INCONSISTENT;
		if (flags & CAND_UNCERTAIN_LOC)
			d.why = SKIP_UNCERTAIN_LOC;
		if (flags & CAND_REORDERED)
			d.why = SKIP_REORDERED;
		if (optimized_skip(s, sym, win->cand))
			d.why = SKIP_OPTIMIZED;
		if (sym->ambiguous)
			d.why = SKIP_AMBIGUOUS_ADDR;
	}
	if (d.why != SKIP_NR) {
		if (!err)
			err = note_skip(t, name, d.why);
	} else {
		*chosen = win;
	}
	if (!err && s->decisions && (d.why != SKIP_NR || d.mismatch != MISMATCH_NONE))
		err = decisions_add(&t->decisions, name, &d);
	free(d.param_a);
	free(d.param_b);
	return err;
}

/*
 * The part of the selection that reads no types: every function
 * candidate, sorted by name, then chunk and index, in groups of one name,
 * each with its symbol. A function of the candidates and the symbol
 * table alone, so it can run on another thread while the merged BTF is
 * deduplicated (encoder.c). Cost: one sort of the candidates (13 ms for
 * vmlinux's 58k) and one symbol lookup per name.
 */
int select_plan_funcs(struct select_plan *plan, struct cand_list *lists,
		      uint32_t nr_lists, const struct elf_syms *syms)
{
	struct cand_ref *refs;
	uint32_t n = 0, k, i, j;

	memset(plan, 0, sizeof(*plan));
	for (k = 0; k < nr_lists; k++)
		n += lists[k].nr_funcs;
	refs = calloc(n ? n : 1, sizeof(*refs));
	plan->groups = calloc(n ? n : 1, sizeof(*plan->groups));
	if (!refs || !plan->groups) {
		free(refs);
		free(plan->groups);
		plan->groups = NULL;
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
		for (j = i + 1; j < n && !strcmp(ref_name(&refs[i]), ref_name(&refs[j])); j++)
			;
		plan->groups[i].end = j;
		plan->groups[i].sym = elf_syms_find_func(syms, ref_name(&refs[i]));
	}
	plan->refs = refs;
	plan->nr_refs = n;
	return 0;
}

void select_plan_deinit(struct select_plan *plan)
{
	if (!plan)
		return;
	free(plan->refs);
	free(plan->groups);
	memset(plan, 0, sizeof(*plan));
}

struct decide_job {
	const struct selection *s;
	struct select_plan *plan;
	struct decide_task *tasks;
};

/* Task i: the groups that start in its range of the plan. */
static int decide_range(void *ctx, uint32_t i)
{
	struct decide_job *job = ctx;
	struct decide_task *t = &job->tasks[i];
	struct select_plan *plan = job->plan;
	uint32_t g, j;
	int err = 0;

	t->funcs = calloc(t->end - t->first + 1, sizeof(*t->funcs));
	if (!t->funcs)
		return -ENOMEM;
	for (g = t->first; g < t->end && !err; g = j) {
		struct cand_ref *win;

		j = plan->groups[g].end;
		err = decide_function(job->s, t, plan->groups[g].sym,
				      plan->refs + g, j - g, &win);
		if (err || !win)
			continue;
		t->funcs[t->nr_funcs] = *win;
		t->funcs[t->nr_funcs++].sym = plan->groups[g].sym;
	}
	return err;
}

/* One parallel step of the selection, its cost noted for the critical path. */
static int select_par(struct selection *s, uint32_t n, bc_par_fn fn, void *ctx)
{
	double *task_sec = calloc(n ? n : 1, sizeof(*task_sec));
	double t0 = bc_clock_sec(CLOCK_THREAD_CPUTIME_ID);
	int err;

	if (!task_sec)
		return -ENOMEM;
	err = bc_par_for(s->jobs, n, fn, ctx, task_sec);
	s->par_main_sec += bc_clock_sec(CLOCK_THREAD_CPUTIME_ID) - t0;
	s->par_longest_sec += bc_par_longest(task_sec, n);
	free(task_sec);
	return err;
}

static int decide_functions(struct selection *s, struct select_plan *plan)
{
	uint32_t n = plan->nr_refs, nr_tasks = 0, i, k;
	struct decide_job job = { .s = s, .plan = plan };
	int err = 0;

	s->stats->func_cands = n;
	s->funcs = calloc(n ? n : 1, sizeof(*s->funcs));
	job.tasks = calloc(SELECT_TASKS, sizeof(*job.tasks));
	if (!s->funcs || !job.tasks) {
		free(job.tasks);
		return -ENOMEM;
	}
	/* task k: the groups starting in [k n / T, (k + 1) n / T) */
	for (i = 0; i < n; i = plan->groups[i].end) {
		k = (uint32_t)((uint64_t)i * SELECT_TASKS / n);
		if (!nr_tasks || job.tasks[nr_tasks - 1].range != k) {
			job.tasks[nr_tasks].range = k;
			job.tasks[nr_tasks++].first = i;
		}
		job.tasks[nr_tasks - 1].end = plan->groups[i].end;
	}
	err = select_par(s, nr_tasks, decide_range, &job);
	/* joined in range order: as one thread would have made them */
	for (k = 0; k < nr_tasks; k++) {
		struct decide_task *t = &job.tasks[k];

		for (i = 0; !err && i < t->nr_skips; i++)
			log_skip(s, t->skips[i].name, t->skips[i].why);
		if (!err) {
			memcpy(s->funcs + s->nr_funcs, t->funcs,
			       t->nr_funcs * sizeof(*t->funcs));
			s->nr_funcs += t->nr_funcs;
		}
		if (!err && s->decisions && t->decisions.nr) {
			struct func_decisions *d = s->decisions;

			if (d->nr + t->decisions.nr > d->cap) {
				uint32_t cap = d->nr + t->decisions.nr;
				struct func_decision *e = realloc(d->entries,
								  cap * sizeof(*e));

				if (!e)
					err = -ENOMEM;
				else {
					d->entries = e;
					d->cap = cap;
				}
			}
			if (!err) {
				memcpy(d->entries + d->nr, t->decisions.entries,
				       t->decisions.nr * sizeof(*d->entries));
				d->nr += t->decisions.nr;
				t->decisions.nr = 0;	/* the strings are d's now */
			}
		}
		func_decisions_deinit(&t->decisions);
		free(t->funcs);
		free(t->skips);
	}
	free(job.tasks);
	return err;
}

/* Places a variable; false (with a reason) when it gets no VAR. */
static bool place_variable(struct selection *s, struct cand_ref *r,
			   enum select_skip *why)
{
	__s64 size;

	static const enum select_skip skip_of[] = {
		[CAND_VAR_NO_SYMBOL] = SKIP_VAR_NO_SYMBOL,
		[CAND_VAR_NAME] = SKIP_VAR_NAME,
		[CAND_VAR_TOO_FAR] = SKIP_VAR_SIZE,
	};
	enum cand_var_verdict verdict;

	verdict = cand_var_place(s->syms, s->features->global_vars, ref_name(r),
				 r->cand->addr, &r->shndx, &r->offset);
	if (verdict != CAND_VAR_PLACED)
		return *why = skip_of[verdict], false;
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
 * type's id. The markers are left out of the output (s->omit).
 */
struct marker_job {
	struct selection *s;
	struct cand_list *lists;
	uint32_t nr_lists;
};

/* Task i: the markers among types [start + i n / T, start + (i + 1) n / T). */
static int resolve_range(void *ctx, uint32_t i)
{
	struct marker_job *job = ctx;
	struct selection *s = job->s;
	struct cand_list *lists = job->lists;
	uint64_t n = s->end_id - s->start_id;
	uint32_t id = s->start_id + (uint32_t)(n * i / SELECT_TASKS);
	uint32_t end = s->start_id + (uint32_t)(n * (i + 1) / SELECT_TASKS);

	for (; id < end; id++) {
		const struct btf_type *t = btf__type_by_id(s->merged, id);
		enum cand_marker_kind kind;
		uint32_t chunk, index;
		bool is_var;

		if (btf_kind(t) != BTF_KIND_TYPEDEF ||
		    !cand_marker_parse(btf__name_by_offset(s->merged, t->name_off),
				       &chunk, &kind, &index) ||
		    chunk >= job->nr_lists)
			continue;
		is_var = kind == CAND_MARK_VAR;
		if (index >= (is_var ? lists[chunk].nr_vars : lists[chunk].nr_funcs))
			continue;
		if (kind == CAND_MARK_TRUE)
			lists[chunk].funcs[index].true_type = t->type;
		else
			(is_var ? lists[chunk].vars : lists[chunk].funcs)[index].type = t->type;
		s->omit[id - s->start_id] = 1;
	}
	return 0;
}

static int resolve_markers(struct selection *s, struct cand_list *lists,
			   uint32_t nr_lists)
{
	struct marker_job job = { .s = s, .lists = lists, .nr_lists = nr_lists };

	return select_par(s, SELECT_TASKS, resolve_range, &job);
}

/*
 * Leaves out the candidates' prototypes that nothing kept refers to: not
 * a FUNC (the function got none), not a pointer. Runs after the new
 * types were added, so their references count.
 */
static int omit_unused_protos(struct selection *s)
{
	uint32_t end = btf__type_cnt(s->merged), id, j;
	uint8_t *used = calloc(s->end_id - s->start_id + 1, 1);

	if (!used)
		return -ENOMEM;
	for (id = s->start_id; id < end; id++) {
		const struct btf_type *t = btf__type_by_id(s->merged, id);
		uint32_t kind = bc_type_kind(t), words = bc_type_words(t);

		if (id < s->end_id && s->omit[id - s->start_id])
			continue;
		for (j = 2; j < words; j++) {
			uint32_t ref = ((const uint32_t *)t)[j];

			if (bc_word_class(kind, j) == BC_WORD_REF &&
			    ref >= s->start_id && ref < s->end_id)
				used[ref - s->start_id] = 1;
		}
	}
	for (id = s->start_id; id < s->end_id; id++)
		if (btf_kind(btf__type_by_id(s->merged, id)) == BTF_KIND_FUNC_PROTO &&
		    !used[id - s->start_id])
			s->omit[id - s->start_id] = 1;
	free(used);
	return 0;
}

/* A candidate's decl tags, on type id. */
static int emit_tags(struct selection *s, const struct cand_ref *r, int id)
{
	uint32_t i;
	int err;

	for (i = 0; i < r->cand->nr_tags; i++) {
		const struct cand_tag *t = &r->list->tags[r->cand->first_tag + i];

		err = btf__add_decl_tag(s->merged, cand_str(r->list, t->value), id,
					t->component);
		if (err < 0)
			return err;
		s->stats->decl_tags++;
	}
	return 0;
}

/*
 * [attributes] An arena kfunc's pointers into the arena: the kernel flags a
 * kfunc KF_ARENA_RET, KF_ARENA_ARG1 or KF_ARENA_ARG2 in its .BTF_ids set8
 * pair, and pahole (1.30 on, with decl_tag_kfuncs) then gives the function
 * its own FUNC_PROTO in which the return type, first or second parameter
 * PTR -> T becomes PTR -> TYPE_TAG "address_space(1)" (kflag 1, an
 * attribute) -> T. What is flagged must be a PTR itself (not a typedef or
 * a qualifier of one), and the parameter must exist; else pahole fails the
 * encode, and so does this (-EINVAL, the function named). Invariant: the
 * other parts of the prototype are the original's ids; the original stays
 * for whoever else uses it. Cost: three types per tagged pointer and one
 * prototype per arena kfunc; canon's rebuild merges the copies.
 */
#define ARENA_ATTR "address_space(1)"

static const struct {
	uint32_t flag;
	int param;		/* -1: the return type */
	const char *what;
} arena_flags[] = {
	{ ELF_KF_ARENA_RET, -1, "return type" },
	{ ELF_KF_ARENA_ARG1, 0, "first parameter" },
	{ ELF_KF_ARENA_ARG2, 1, "second parameter" },
};
#define NR_ARENA_FLAGS (sizeof(arena_flags) / sizeof(arena_flags[0]))

/* PTR -> TYPE_TAG(kflag) ARENA_ATTR -> what ptr_id points to; its id. */
static int arena_ptr(struct btf *btf, uint32_t ptr_id)
{
	const struct btf_type *ptr = btf__type_by_id(btf, ptr_id);
	struct btf_type *tag;
	int id;

	if (!ptr || !btf_is_ptr(ptr))
		return -EINVAL;
	id = btf__add_type_tag(btf, ARENA_ATTR, ptr->type);
	if (id < 0)
		return id;
	/* libbpf before 1.6 has no btf__add_type_attr: set the flag here */
	tag = (struct btf_type *)btf__type_by_id(btf, id);
	tag->info |= 1u << 31;
	return btf__add_ptr(btf, id);
}

/*
 * The prototype of kfunc name (flags) with its arena pointers tagged: a
 * new FUNC_PROTO's id, proto itself when no flag asks, or a negative errno
 * after a message.
 */
static int arena_proto(struct selection *s, const char *name, uint32_t flags,
		       uint32_t proto)
{
	const struct btf_type *t = btf__type_by_id(s->merged, proto);
	uint32_t ret = t->type, vlen = btf_vlen(t), i, *types;
	int err = 0, id = 0;
	char **names;

	if (!(flags & (ELF_KF_ARENA_RET | ELF_KF_ARENA_ARG1 | ELF_KF_ARENA_ARG2)))
		return proto;
	types = calloc(vlen + 1, sizeof(*types));
	names = calloc(vlen + 1, sizeof(*names));
	if (!types || !names)
		err = -ENOMEM;
	/* copied: adding strings may move merged's string data */
	for (i = 0; i < vlen && !err; i++) {
		const struct btf_param *p = btf_params(t) + i;

		types[i] = p->type;
		names[i] = strdup(btf__name_by_offset(s->merged, p->name_off));
		if (!names[i])
			err = -ENOMEM;
	}
	for (i = 0; i < NR_ARENA_FLAGS && !err; i++) {
		uint32_t *slot = arena_flags[i].param < 0 ? &ret :
				 &types[arena_flags[i].param];

		if (!(flags & arena_flags[i].flag))
			continue;
		if (arena_flags[i].param >= (int)vlen) {
			err = bc_log_error(s->log, -EINVAL,
					   "kfunc %s is flagged for its arena %s, which it does not have",
					   name, arena_flags[i].what);
			break;
		}
		id = arena_ptr(s->merged, *slot);
		if (id == -EINVAL)
			err = bc_log_error(s->log, id,
					   "kfunc %s is flagged for its arena %s, which is not a pointer",
					   name, arena_flags[i].what);
		else if (id < 0)
			err = id;
		else
			*slot = id;
	}
	if (!err)
		err = id = btf__add_func_proto(s->merged, ret);
	for (i = 0; i < vlen && err >= 0; i++)
		err = btf__add_func_param(s->merged, names[i], types[i]);
	for (i = 0; names && i < vlen; i++)
		free(names[i]);
	free(names);
	free(types);
	return err < 0 ? err : id;
}

static int emit_functions(struct selection *s)
{
	bool kfunc_tags = s->features->kfunc_tags && s->features->decl_tags;
	bool arena = s->features->kfunc_tags && s->features->attributes;
	uint32_t i;
	int id, err;

	for (i = 0; i < s->nr_funcs; i++) {
		const struct cand_ref *r = &s->funcs[i];
		const char *name = ref_name(r);
		const struct elf_func *sym = r->sym;

		if (r->true_sig)	/* the clone's name, its own prototype */
			id = btf__add_func(s->merged,
					   elf_syms_clone_at(s->syms, sym, r->cand->addr)->name,
					   BTF_FUNC_STATIC, r->cand->true_type);
		else {
			id = r->cand->type;
			/* pahole tags kfuncs by their own name only */
			if (arena && sym->kfunc)
				id = arena_proto(s, name, sym->kfunc_flags, id);
			if (id >= 0)
				id = btf__add_func(s->merged, name,
						   BTF_FUNC_STATIC, id);
		}
		if (id < 0)
			return id;
		err = emit_tags(s, r, id);
		if (err)
			return err;
		s->stats->funcs++;
		/* pahole tags kfuncs by their own name only */
		if (!kfunc_tags || !sym->kfunc || r->true_sig)
			continue;
		err = btf__add_decl_tag(s->merged, "bpf_kfunc", id, -1);
		if (err < 0)
			return err;
		s->stats->kfunc_tags++;
		if (!(sym->kfunc_flags & ELF_KF_FASTCALL))
			continue;
		err = btf__add_decl_tag(s->merged, "bpf_fastcall", id, -1);
		if (err < 0)
			return err;
		s->stats->kfunc_tags++;
	}
	return 0;
}

/* VARs, and a DATASEC for each section's run of them. */
static int emit_variables(struct selection *s)
{
	uint32_t i, k, first = 0;
	int *ids, id, err = 0;

	ids = calloc(s->nr_vars + 1, sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	for (i = 0; i < s->nr_vars && !err; i++) {
		const struct cand_ref *r = &s->vars[i];
		int linkage = r->cand->flags & CAND_EXTERNAL ?
			      BTF_VAR_GLOBAL_ALLOCATED : BTF_VAR_STATIC;

		id = btf__add_var(s->merged, ref_name(r), linkage, r->cand->type);
		err = id < 0 ? id : emit_tags(s, r, id);
		if (err)
			break;
		s->stats->vars++;
		ids[i] = id;
		if (i + 1 < s->nr_vars && s->vars[i + 1].shndx == r->shndx)
			continue;
		/* the section's last variable: its DATASEC */
		err = btf__add_datasec(s->merged, s->syms->sections[r->shndx].name,
				       r->offset + r->size);
		for (k = first; err >= 0 && k <= i; k++)
			err = btf__add_datasec_var_info(s->merged, ids[k],
							s->vars[k].offset,
							s->vars[k].size);
		err = err < 0 ? err : 0;
		s->stats->datasecs++;
		first = i + 1;
	}
	free(ids);
	return err;
}

int select_emit(struct btf *merged, struct cand_list *lists, uint32_t nr_lists,
		struct select_plan *plan, const struct elf_syms *syms,
		const struct encode_features *features, uint8_t **omit,
		struct select_stats *stats, struct func_decisions *decisions,
		unsigned int jobs, const struct bc_log *log)
{
	struct selection s = {
		.merged = merged, .syms = syms, .features = features,
		.log = log, .stats = stats, .decisions = decisions,
		.jobs = jobs ? jobs : 1,
	};
	double t0 = bc_clock_sec(CLOCK_THREAD_CPUTIME_ID);
	uint8_t *all;
	int err;

	*omit = NULL;
	memset(stats, 0, sizeof(*stats));
	s.start_id = 1;
	s.end_id = btf__type_cnt(merged);
	s.omit = calloc(s.end_id - s.start_id + 1, 1);
	if (!s.omit)
		return bc_log_error(log, -ENOMEM, "out of memory");
	err = resolve_markers(&s, lists, nr_lists);
	if (!err && features->funcs)
		err = decide_functions(&s, plan);
	if (!err && (features->vars || features->global_vars))
		err = decide_variables(&s, lists, nr_lists);
	if (!err)
		err = emit_functions(&s);
	if (!err)
		err = emit_variables(&s);
	if (!err)
		err = omit_unused_protos(&s);
	if (err) {
		bc_log_error(log, err, "function and variable selection failed: %s",
			     strerror(-err));
		goto out;
	}
	/* the new types are all kept: the omit map covers them as zeros */
	all = realloc(s.omit, btf__type_cnt(merged) - s.start_id + 1);
	if (!all) {
		err = bc_log_error(log, -ENOMEM, "out of memory");
		goto out;
	}
	memset(all + (s.end_id - s.start_id), 0,
	       btf__type_cnt(merged) - s.end_id + 1);
	*omit = all;
	s.omit = NULL;
	stats->critical_sec = bc_clock_sec(CLOCK_THREAD_CPUTIME_ID) - t0 -
			      s.par_main_sec + s.par_longest_sec;
out:
	free(s.omit);
	free(s.funcs);
	free(s.vars);
	return err;
}
