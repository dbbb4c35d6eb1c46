/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Function and variable candidates: what the workers collect from the
 * DWARF of one chunk of units, to be decided on after every unit is loaded
 * (select.h). See funcs.c.
 */
#ifndef BTFCANON_FUNCS_H
#define BTFCANON_FUNCS_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stdint.h>

#include "die_reader.h"
#include "elf_syms.h"
#include "locs.h"

struct btf;
struct encode_features;

/* What the DWARF says about one definition of a function. */
enum cand_flag {
	CAND_HAS_CODE		= 1 << 0,	/* an out-of-line copy: has an address */
	CAND_UNNAMED_PARAM	= 1 << 1,	/* a parameter without a name */
	CAND_OPTIMIZED_PARAM	= 1 << 2,	/* a parameter optimized out */
	CAND_UNEXPECTED_REG	= 1 << 3,	/* a parameter outside its register */
	CAND_UNCERTAIN_LOC	= 1 << 4,	/* packed struct by value on the stack */
	CAND_EXTERNAL		= 1 << 5,	/* DW_AT_external */
	CAND_REORDERED		= 1 << 6,	/* parameters in another order */
	CAND_SIG_CHANGED	= 1 << 7,	/* clang: DW_CC_nocall */
};

/* A btf_decl_tag annotation of a candidate: value, and -1 or a parameter. */
struct cand_tag {
	uint32_t value;			/* offset in the list's string pool */
	int32_t component;
};

struct cand {
	uint32_t name;			/* offset in the list's string pool */
	uint32_t index;			/* in its list; part of its marker's name */
	uint32_t flags;			/* enum cand_flag */
	uint64_t addr;			/* low_pc / DW_OP_addr, with CAND_HAS_CODE */
	uint32_t first_tag, nr_tags;	/* in the list's tags */
	uint32_t type;			/* FUNC_PROTO (function) or variable type;
					 * a chunk id until the final dedup */
	uint32_t true_type;		/* true_signature: the FUNC_PROTO of the
					 * code at a clone's address, or 0 */
	uint64_t die;			/* its subprogram DIE's offset */
};

/*
 * The candidates of one chunk, in the order the walk met them (file
 * order), functions and variables apart.
 */
struct sym_memo;

struct cand_list {
	uint32_t chunk;
	struct cand *funcs;
	uint32_t nr_funcs, funcs_cap;
	struct cand *vars;
	uint32_t nr_vars, vars_cap;
	struct cand_tag *tags;
	uint32_t nr_tags, tags_cap;
	char *strs;
	uint32_t strs_len, strs_cap;
	uint32_t funcs_marked, vars_marked;	/* candidates with markers */
	struct loc_span loc_span;	/* location lists its functions read */
	/*
	 * Function symbols by the address of the name's text: the units of a
	 * chunk repeat their headers' inline functions, and a name in
	 * .debug_str is one text. Direct-mapped, NULL until the first lookup.
	 */
	struct sym_memo *sym_memo;
};

void cand_list_init(struct cand_list *l, uint32_t chunk);
void cand_list_deinit(struct cand_list *l);

/* The chunk's walk is over: drops what only the walk's lookups need. */
void cand_list_walked(struct cand_list *l);

static inline const char *cand_str(const struct cand_list *l, uint32_t off)
{
	return l->strs + off;
}

/* Appends a candidate named name; returns it, or NULL without memory. */
struct cand *cand_list_add(struct cand_list *l, bool is_var, const char *name);

/* Adds a decl tag to c (the list's last candidate). Returns 0 or -ENOMEM. */
int cand_list_add_tag(struct cand_list *l, struct cand *c, const char *value,
		      int component);

/*
 * The marker of a candidate: the name of a TYPEDEF the chunk BTF carries
 * to the final dedup, pointing at the candidate's type (funcs.c says why).
 * A marker name starts with CAND_MARKER_PREFIX, which no C name does.
 */
#define CAND_MARKER_PREFIX "\x01" "btfcanon."

/* What a marker points at: a candidate's type, or its true signature. */
enum cand_marker_kind {
	CAND_MARK_FUNC = 'f',		/* a function's declared prototype */
	CAND_MARK_VAR = 'v',		/* a variable's type */
	CAND_MARK_TRUE = 't',		/* a function's true_type */
};

void cand_marker_name(char *buf, size_t size, uint32_t chunk,
		      enum cand_marker_kind kind, uint32_t index);
/* Parses a marker name; false when name is not one. */
bool cand_marker_parse(const char *name, uint32_t *chunk,
		       enum cand_marker_kind *kind, uint32_t *index);

/*
 * Inspects a subprogram DIE fn whose declared prototype is proto (fn
 * itself, or its abstract origin), from a unit clang made or not: its
 * address, whether every parameter has a name, whether the parameters
 * are where the calling convention abi puts them at entry, optimized out
 * or reordered, as pahole judges them (funcs.c). Sets *flags (enum
 * cand_flag) and *addr. Never fails: what cannot be read is not flagged.
 * secs: the file's location list sections, for reading first registers
 * without libdw (locs.h); NULL: libdw reads every location. r: the
 * worker's DIE reader (die_reader.h), NULL: libdw walks the DIEs.
 */
void func_inspect(struct die_reader *r, Dwarf_Die *fn, Dwarf_Die *proto,
		  const struct call_abi *abi,
		  const struct loc_sections *secs, bool clang, uint32_t *flags,
		  uint64_t *addr);

/*
 * Which of fn's own formal parameters (bit i: the i-th) its true
 * signature leaves out, as pahole does: when the parameters are reordered,
 * those optimized out (no location, or none pahole can read); when clang
 * changed the signature, those optimized out.
 */
uint64_t func_true_drop(struct die_reader *r, Dwarf_Die *fn, Dwarf_Die *proto,
			const struct call_abi *abi,
			const struct loc_sections *secs, bool clang,
			uint32_t flags);

/*
 * The address of a variable DIE with a static location (DW_OP_addr or
 * DW_OP_addrx as its whole location, or followed by DW_OP_plus_uconst).
 * Returns false for every other kind of location (registers, stack, TLS,
 * none).
 */
bool var_static_addr(Dwarf_Die *var, uint64_t *addr);

/* What the collection needs to know, shared read-only by the workers. */
struct cand_ctx {
	const struct elf_syms *syms;
	const struct encode_features *features;
	struct call_abi abi;		/* elf_syms_call_abi() */
	struct loc_sections locs;	/* loc_sections_find() */
};

/* The type a new candidate needs encoded into the chunk BTF. */
struct cand_need {
	Dwarf_Die die;			/* the DIE to encode */
	bool proto;			/* die is a subprogram: its FUNC_PROTO */
	/*
	 * true_signature, a function's code at a clone's address: also the
	 * prototype of true_die's own parameter list but those in drop (bit
	 * i: its i-th formal parameter), for cand_set_true_type().
	 */
	bool true_proto;
	Dwarf_Die true_die;
	uint64_t drop;
};

/*
 * Called by the DIE walk (cu_encoder.c) for each subprogram and variable
 * at the unit's top level. Returns 1 when die is a candidate: it was added
 * to l, and *need says which type the walk must encode for it, whose id
 * then goes to cand_set_type(). Returns 0 when it is none, or a negative
 * errno. r: the walk's DIE reader (NULL: libdw). Reads the DWARF and
 * calls nothing back: data flows from the walk to here, never the other
 * way.
 */
int cand_collect_die(const struct cand_ctx *ctx, struct die_reader *r,
		     Dwarf_Die *die, int tag,
		     struct cand_list *l, struct cand_need *need);

/*
 * The id of the last candidate's type (is_var: the last variable's, else
 * the last function's), as the walk encoded it. A variable whose type is
 * 0 (none BTF can hold) is taken back out of the list.
 */
void cand_set_type(struct cand_list *l, bool is_var, uint32_t type);

/* The last function candidate's true_type (cand_need.true_proto). */
void cand_set_true_type(struct cand_list *l, uint32_t type);

/* Why a variable gets no place in a DATASEC (cand_var_place()). */
enum cand_var_verdict {
	CAND_VAR_PLACED,
	CAND_VAR_NO_SYMBOL,		/* no section, or no symbol where needed */
	CAND_VAR_NAME,			/* filtered or invalid name */
	CAND_VAR_TOO_FAR,		/* offset past 4 GiB */
};

/*
 * The rules a variable at addr must pass, whatever its type: a section
 * holding addr (the per-CPU one unless global_vars), a name BTF can hold
 * and nobody filters, an ELF symbol where the section needs one. Sets its
 * section and offset. Read-only: the workers and the selection both ask.
 */
enum cand_var_verdict cand_var_place(const struct elf_syms *syms,
				     bool global_vars, const char *name,
				     uint64_t addr, uint32_t *shndx,
				     uint64_t *offset);

/*
 * After a unit: adds the markers of the candidates collected since the
 * last call to btf. Returns 0 or a negative errno.
 */
int cand_add_markers(struct cand_list *l, struct btf *btf);

#endif
