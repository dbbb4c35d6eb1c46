/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * CO-RE relocations evaluated against a kernel's BTF, by libbpf 1.1's
 * rules (its relo_core.c and libbpf.c, taken as facts): what value libbpf
 * would patch into the instruction, or that it poisons the instruction,
 * or that relocation fails (ambiguous candidates, bad record).
 *
 * libbpf keeps, per object, one candidate list per local root type and
 * narrows it to the candidates that matched each relocation in turn. The
 * outcome of a relocation can therefore depend on the ones before it in
 * the object; struct bc_core_ctx holds that list for one object and one
 * kernel, and relocations must be evaluated in .BTF.ext order.
 */
#ifndef BTFCANON_CORE_RELO_H
#define BTFCANON_CORE_RELO_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/bpf.h>

#include "../canon/btf_data.h"
#include "../archive/bpf_object.h"
#include "../archive/ktypes.h"

#define BC_CORE_NR_KINDS 13

/* libbpf's names of the kinds ("byte_off", ..., "enumval_value"). */
const char *bc_core_kind_name(uint32_t kind);

/*
 * libbpf's bpf_core_types_are_compat() (also what it checks kfunc
 * prototypes and typed ksyms with): 1 compatible, 0 not, <0 error.
 */
int bc_core_types_compat(const struct bc_btf *local, uint32_t local_id,
			 const struct bc_ktypes *target, uint32_t target_id);

/*
 * A kernel module: its split BTF over the kernel's, and its own types
 * indexed (owned by whoever filled it in).
 */
struct bc_core_module {
	char *name;
	char *label;		/* " in module NAME", for messages */
	struct bc_btf *btf;
	struct bc_ktypes types;
};

/* One object against one kernel: libbpf's candidate cache. */
struct bc_core_ctx {
	struct bc_ktypes local;		/* the object's BTF */
	const struct bc_ktypes *target;	/* the kernel's types, indexed */
	/*
	 * The kernel's modules, searched when the kernel has no candidate,
	 * as libbpf does with the running kernel's BTF (none under
	 * btf_custom_path). Set after bc_core_ctx_init(); not owned.
	 */
	const struct bc_core_module *modules;
	uint32_t nr_modules;
	/*
	 * Or, when set, what gives the modules the first time they are
	 * needed (a name vmlinux lacks): deps reads an archived kernel's
	 * modules only then. Not called for a kernel that has the name.
	 */
	void (*get_modules)(const void *arg, const struct bc_core_module **mods,
			    uint32_t *nr);
	const void *get_modules_arg;
	struct bc_core_cands **cands;	/* by local type id, lazily */
	struct core_specs *specs;	/* bc_core_relo_eval()'s, lazily */
	/*
	 * Called, when set, for every candidate a relocation matches (before
	 * the candidates are compared with each other): the kind, the
	 * candidate's types (the kernel's or a module's) and root type, and its raw access path (the
	 * member, enumerator or array indexes from the root, anonymous
	 * members included; raw[0] indexes the root itself). A nonzero
	 * return ends the evaluation with that error. For `min`.
	 */
	int (*on_match)(void *arg, uint32_t kind, const struct bc_ktypes *types,
			uint32_t root_id, const int *raw, uint32_t raw_len);
	void *on_match_arg;
};

int bc_core_ctx_init(struct bc_core_ctx *ctx, const struct bc_btf *local,
		     const struct bc_ktypes *target);
void bc_core_ctx_deinit(struct bc_core_ctx *ctx);

enum bc_relo_outcome {
	BC_RELO_PATCHED,	/* value is what libbpf writes */
	BC_RELO_POISONED,	/* no target: the instruction is made invalid */
	BC_RELO_AMBIGUOUS,	/* candidates disagree: the load fails */
	BC_RELO_FAILED,		/* any other libbpf error: the load fails */
};

struct bc_relo_result {
	enum bc_relo_outcome outcome;
	uint64_t value;		/* patched value (PATCHED) */
	uint64_t local_value;	/* the value the compiler wrote */
	uint32_t target_id;	/* root type of the first matching candidate */
	const struct bc_ktypes *target_types;	/* where it is (a module's?) */
	uint32_t local_size;	/* field size in the object (field kinds) */
	uint32_t target_size;	/* field size in the kernel (field kinds) */
	bool bitfield;
	bool composite;		/* the field is a struct, union or array */
	bool mem_access;	/* the instruction is a load or store */
	/*
	 * The kernel (and its modules) hold no type of the root's essential
	 * name and kind: no candidate at all, rather than candidates whose
	 * fields do not match.
	 */
	bool no_candidates;
	char why[160];		/* POISONED, AMBIGUOUS, FAILED: the reason */
};

/*
 * Evaluates relo on insn (the instruction it patches; for an ldimm64 the
 * next one must follow) in the context's kernel. Never fails: outcomes
 * libbpf reports as errors are results here. Returns 0, or -ENOMEM.
 */
int bc_core_relo_eval(struct bc_core_ctx *ctx, const struct bc_core_relo *relo,
		      const struct bpf_insn *insn, uint32_t insns_left,
		      struct bc_relo_result *res);

/*
 * The relocation's subject in C words, from the object's BTF alone:
 * *type "struct task_struct", *access "mm->..."-free field path such as
 * "comm[3]" or "flags", an enumerator "DEP_GONE", "" for type kinds.
 * Writes into the buffers given.
 */
void bc_core_relo_describe(const struct bc_btf *local,
			   const struct bc_core_relo *relo, char *type,
			   size_t type_size, char *access, size_t access_size);

#endif
