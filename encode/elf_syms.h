/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the ELF file says about functions and variables: the symbol table
 * (STT_FUNC by base name, STT_OBJECT by section and offset), the section
 * layout, and the kfunc sets of .BTF_ids. Read once, by the main thread,
 * before any worker starts (libelf is not thread-safe); read-only after.
 */
#ifndef BTFCANON_ELF_SYMS_H
#define BTFCANON_ELF_SYMS_H

#include <libelf.h>
#include <stdbool.h>
#include <stdint.h>

#include "../canon/log.h"

#define ELF_PERCPU_SECTION ".data..percpu"

/* kfunc flags in .BTF_ids set8 pairs (the kernel's include/linux/btf.h) */
#define ELF_KF_FASTCALL (1u << 12)
#define ELF_KF_ARENA_RET (1u << 13)
#define ELF_KF_ARENA_ARG1 (1u << 14)
#define ELF_KF_ARENA_ARG2 (1u << 15)

/*
 * One function name: every STT_FUNC symbol whose name is name or starts
 * with name followed by a '.' suffix (foo.isra.0, foo.constprop.0; never
 * .cold or .part, which are pieces of a function, not functions).
 */
struct elf_func {
	char *name;			/* base name, without suffix */
	uint64_t addr;			/* of the symbol named name itself, if any,
					 * else of the first clone */
	uint32_t nr_syms;
	bool exact;			/* a symbol has the base name itself */
	bool ambiguous;			/* symbols at different addresses */
	bool opt_clone;			/* a symbol is an optimized clone: a
					 * .isra or .constprop suffix */
	uint32_t first_clone, nr_clones;	/* its "."-suffixed symbols,
					 * in syms->clones */
	bool kfunc;			/* listed in a .BTF_ids kfunc set */
	uint32_t kfunc_flags;		/* the set8 pair's flags */
};

/* A function symbol with a "." suffix: foo.isra.0 at addr, of funcs[func]. */
struct elf_clone {
	const char *name;		/* the whole name, in the ELF string table */
	uint64_t addr;
	uint32_t func;			/* index in syms->funcs */
	uint32_t order;			/* in the symbol table */
};

/* One STT_OBJECT symbol of nonzero size. */
struct elf_object {
	const char *name;		/* in the ELF string table */
	uint32_t shndx;
	uint64_t offset;		/* from its section's start */
	uint64_t size;
};

struct elf_section {
	const char *name;
	uint64_t addr;			/* sh_addr (laid out, for ET_REL) */
	uint64_t size;
	uint32_t type;			/* SHT_* */
};

struct elf_syms {
	uint16_t machine;		/* EM_* */
	bool relocatable;		/* ET_REL: st_value is section-relative */
	struct elf_section *sections;	/* [nr_sections], by index */
	uint32_t nr_sections;
	uint32_t percpu_shndx;		/* .data..percpu, or 0 */
	struct elf_func *funcs;		/* in symbol-table order */
	uint32_t nr_funcs;
	uint32_t *func_index;		/* hash of names: slot -> index + 1 */
	uint32_t *func_index_hash;	/* slot -> the name's full hash */
	uint32_t func_index_mask;
	struct elf_clone *clones;	/* by function, then symbol-table order */
	uint32_t nr_clones;
	struct elf_object *objects;	/* sorted by (shndx, offset, name) */
	uint32_t nr_objects;
	uint32_t nr_kfuncs;
};

/*
 * Reads the symbol table, sections and kfunc sets of elf (path names it in
 * messages). A file without a symbol table gives empty tables. Returns 0
 * or a negative errno after one message.
 */
int elf_syms_read(Elf *elf, const char *path, struct elf_syms *syms,
		  const struct bc_log *log);

/* Frees what elf_syms_read() allocated; accepts a zeroed syms. */
void elf_syms_free(struct elf_syms *syms);

/* The function entry for a (DWARF) name, or NULL. */
const struct elf_func *elf_syms_find_func(const struct elf_syms *syms,
					  const char *name);

/*
 * The first "."-suffixed symbol of f at addr, in symbol-table order (the
 * name a clone is known by), or NULL.
 */
const struct elf_clone *elf_syms_clone_at(const struct elf_syms *syms,
					  const struct elf_func *f, uint64_t addr);

/*
 * Index of the PROGBITS or NOBITS section holding addr (an address in the
 * DWARF's address space), or 0 when none does.
 */
uint32_t elf_syms_section_of(const struct elf_syms *syms, uint64_t addr);

/* The object symbol named name at (shndx, offset), or NULL. */
const struct elf_object *elf_syms_find_object(const struct elf_syms *syms,
					      uint32_t shndx, uint64_t offset,
					      const char *name);

/*
 * How a machine passes integer arguments: the registers, in order, as
 * DWARF register numbers (x86-64: rdi rsi rdx rcx r8 r9).
 */
struct call_abi {
	const uint8_t *regs;
	unsigned int nr_regs;		/* 0: machine not known, no checks */
};

void elf_syms_call_abi(const struct elf_syms *syms, struct call_abi *abi);

/*
 * Calling-convention registers for the first parameters, as DWARF register
 * numbers (x86-64: rdi rsi rdx rcx r8 r9). Returns how many; 0 when the
 * machine is not known (no register checks then).
 */
unsigned int elf_syms_param_regs(const struct elf_syms *syms,
				 const uint8_t **regs);

/*
 * The bytes of elf's section name as libelf holds them (as libdw reads
 * them: a section libdw decompressed is no longer SHF_COMPRESSED). False
 * when there is none, it is empty or NOBITS, or still compressed. Calls
 * libelf, which is not thread-safe: before any worker starts.
 */
bool elf_section_bytes(Elf *elf, const char *name, const unsigned char **data,
		       size_t *size);

#endif
