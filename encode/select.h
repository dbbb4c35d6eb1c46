/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Function and variable selection: after the final dedup, decide which
 * candidates (funcs.h) become FUNCs and VARs, and build the BTF that has
 * them. See select.c.
 */
#ifndef BTFCANON_SELECT_H
#define BTFCANON_SELECT_H

#include <stdbool.h>
#include <stdint.h>

#include "../canon/log.h"

struct btf;
struct cand_list;
struct cand_ref;
struct elf_func;
struct elf_syms;
struct encode_features;

/* Why a function (or variable) was left out, for --verbose and the stats. */
enum select_skip {
	SKIP_AMBIGUOUS_ADDR,	/* its name has symbols at several addresses */
	SKIP_OPTIMIZED,		/* parameters optimized out of a changed ABI */
	SKIP_REORDERED,		/* parameters reordered by the compiler */
	SKIP_UNCERTAIN_LOC,	/* packed struct passed by value on the stack */
	SKIP_INCONSISTENT,	/* definitions with different prototypes */
	SKIP_UNEXPECTED_REG,	/* a parameter outside its calling-convention register */
	SKIP_UNNAMED_PARAM,	/* every definition has an unnamed parameter */
	SKIP_VAR_NO_SYMBOL,	/* variable: no ELF symbol where it lives */
	SKIP_VAR_NAME,		/* variable: filtered or invalid name */
	SKIP_VAR_SIZE,		/* variable: type of size 0 */
	SKIP_VAR_OVERLAP,	/* variable: overlaps another in its section */
	SKIP_NR,
};

const char *select_skip_reason(enum select_skip why);

/*
 * Where two definitions' prototypes first differ, in pahole's order of
 * checks (its -V prints one line for it).
 */
enum proto_mismatch {
	MISMATCH_NONE,
	MISMATCH_PARAM_COUNT,	/* a, b: the two parameter counts */
	MISMATCH_RETURN,	/* the return types */
	MISMATCH_PARAM_TYPE,	/* a: the parameter, from 1; param_a, param_b: its names */
};

/*
 * One function's decision, for pahole's -V lines: left out (why), or kept
 * though two definitions differ (why is SKIP_NR: without consistent_func a
 * mismatch does not leave a function out). The mismatch compares the
 * first definition (file order) with the first that differs from it.
 */
struct func_decision {
	char *name;
	enum select_skip why;		/* SKIP_NR: the function has its FUNC */
	enum proto_mismatch mismatch;
	uint32_t a, b;
	char *param_a, *param_b;	/* MISMATCH_PARAM_TYPE, else NULL */
};

/* The decisions worth a line, in name order. */
struct func_decisions {
	struct func_decision *entries;
	uint32_t nr, cap;
};

/* Frees the entries and their names; accepts a zeroed d. */
void func_decisions_deinit(struct func_decisions *d);

struct select_stats {
	uint32_t func_cands, var_cands;	/* candidates collected */
	uint32_t funcs;			/* FUNCs emitted */
	uint32_t vars;			/* VARs emitted */
	uint32_t datasecs;
	uint32_t decl_tags;		/* from DWARF annotations */
	uint32_t kfunc_tags;		/* bpf_kfunc and bpf_fastcall */
	uint32_t skipped[SKIP_NR];	/* by reason: functions, then variables */
	double critical_sec;		/* thread CPU: its serial steps and the
					 * longest task of each parallel one */
};

/* select_plan_funcs()'s output: the function candidates by name. */
struct select_group {
	uint32_t end;			/* one past the group's last ref */
	const struct elf_func *sym;	/* its name's symbols, or NULL */
};

struct select_plan {
	struct cand_ref *refs;		/* every function candidate, by name */
	uint32_t nr_refs;
	struct select_group *groups;	/* [nr_refs], set at each group's first */
};

/*
 * Sorts the function candidates of lists[0 .. nr_lists) by name (then
 * chunk and index) and looks up each name's symbols: everything of the
 * selection that reads no types. Reads lists and syms only, so it may run
 * on another thread while the merged BTF is deduplicated. Returns 0 or
 * -ENOMEM.
 */
int select_plan_funcs(struct select_plan *plan, struct cand_list *lists,
		      uint32_t nr_lists, const struct elf_syms *syms);

/* Frees what select_plan_funcs() allocated; accepts a zeroed plan. */
void select_plan_deinit(struct select_plan *plan);

/*
 * Decides over every candidate of lists[0 .. nr_lists) (list k is chunk k;
 * plan is select_plan_funcs() of the same lists and syms) and adds to
 * merged (standalone BTF: a module's selection runs before it is mapped
 * onto its base) the chosen FUNCs with their DECL_TAGs, the VARs and the
 * DATASECs. Sets *omit to a
 * map of merged's own types (index id - first own id; malloc'd) marking
 * those the output leaves out, for canon_opts.omit: the candidates'
 * markers and the prototypes nothing uses. Skipped functions are logged
 * at BC_LOG_INFO, one line each, by name, and every function left out or
 * with definitions that differ is added to decisions (by name; NULL: not
 * kept). Returns 0 or a negative errno after a message.
 */
int select_emit(struct btf *merged, struct cand_list *lists, uint32_t nr_lists,
		struct select_plan *plan, const struct elf_syms *syms,
		const struct encode_features *features, uint8_t **omit,
		struct select_stats *stats, struct func_decisions *decisions,
		unsigned int jobs, const struct bc_log *log);

#endif
