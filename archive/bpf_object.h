/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A BPF ELF object (clang -target bpf -g), read for `btfcanon deps`: its
 * program sections and their instructions, its BTF (.BTF, the program's
 * own types), the CO-RE relocation records of .BTF.ext, and the symbols
 * that name programs and externs.
 *
 * Everything is copied out of the file and checked on the way in: a
 * record that points outside its section, a relocation whose instruction
 * does not exist, a type id or string offset the object's BTF does not
 * hold, all are errors naming the file and the record. A struct
 * bc_bpf_object that loaded can be walked without further checks.
 */
#ifndef BTFCANON_BPF_OBJECT_H
#define BTFCANON_BPF_OBJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/bpf.h>

#include "../canon/btf_data.h"
#include "../canon/log.h"

/* One CO-RE relocation record of .BTF.ext, as libbpf numbers them. */
struct bc_core_relo {
	uint32_t insn_off;	/* byte offset in the section */
	uint32_t type_id;	/* root type, in the object's BTF */
	uint32_t access_off;	/* access string ("0:1:2"), in the object's BTF */
	uint32_t kind;		/* enum bpf_core_relo_kind */
	uint32_t index;		/* position in its section's list ("relo #N") */
};

struct bc_bpf_section {
	char *name;			/* "kprobe/do_sys_open" */
	uint32_t elf_index;		/* section header index */
	const struct bpf_insn *insns;	/* into the object's copy */
	uint32_t nr_insns;
	struct bc_core_relo *relos;	/* CO-RE records of this section */
	uint32_t nr_relos;
};

/* A global function symbol in a program section: one BPF program. */
struct bc_bpf_program {
	char *name;
	uint32_t section;		/* index into sections[] */
	uint32_t first_insn, nr_insns;
	/*
	 * The attach target the loader sets at run time
	 * (bc_bpf_object_set_attach_target), in place of the section's;
	 * NULL: the section's.
	 */
	char *attach_target;
};

/* An undefined symbol: a kfunc, ksym or kconfig extern. */
struct bc_bpf_extern {
	char *name;
	bool weak;
};

struct bc_bpf_object {
	char *path;
	uint8_t *image;			/* owned: the file, then its insns */
	size_t size;
	struct bc_btf *btf;		/* the object's .BTF */
	struct bc_bpf_section *sections;	/* executable sections, file order */
	uint32_t nr_sections;
	struct bc_bpf_program *programs;	/* by section, then offset */
	uint32_t nr_programs;
	struct bc_bpf_extern *externs;	/* symbol table order */
	uint32_t nr_externs;
	char *license;			/* "GPL", or NULL */
	/*
	 * Only from the _any loads below, when libbpf 1.1 refuses the
	 * object at open: libbpf's reason (malloc'd), and what libbpf's open
	 * rules after the refusing one would have looked at (static text:
	 * libbpf stops at its first refusal). NULL when libbpf opens it.
	 */
	char *refused;
	const char *unchecked;
};

/*
 * Reads the object at path (bpf_object.c) and refuses what libbpf 1.1
 * refuses at open (libbpf_open.c, which defines these two). Returns 0,
 * or a negative errno after one message naming the file and what is
 * wrong with it.
 */
int bc_bpf_object_load(const char *path, struct bc_bpf_object *obj,
		       const struct bc_log *log);

/* The same, from bytes in memory (the fuzz target); data is copied. */
int bc_bpf_object_parse(const void *data, size_t size, const char *path,
			struct bc_bpf_object *obj, const struct bc_log *log);

/*
 * The same two, but an object the reader takes and libbpf 1.1 refuses at
 * open is no error: it loads whole, with libbpf's reason in obj->refused
 * (deps reports it and what else it can tell of it). Only what the
 * reader cannot take (not an ELF file, not a BPF object, cut short, no
 * or damaged .BTF or .BTF.ext) fails, as above.
 */
int bc_bpf_object_load_any(const char *path, struct bc_bpf_object *obj,
			   const struct bc_log *log);
int bc_bpf_object_parse_any(const void *data, size_t size, const char *path,
			    struct bc_bpf_object *obj,
			    const struct bc_log *log);

/* Frees what a load filled in; accepts a zeroed object. */
void bc_bpf_object_deinit(struct bc_bpf_object *obj);

/*
 * Sets program prog's attach target to func, as a loader does with
 * libbpf's bpf_program__set_attach_target() (bcc's fsdist attaches its
 * "fentry" program dummy_file_read to each file system's read_iter).
 * Returns 0, -ENOENT when obj has no program prog, or -ENOMEM.
 */
int bc_bpf_object_set_attach_target(struct bc_bpf_object *obj,
				    const char *prog, const char *func);

/* The program holding instruction insn of section sec, or NULL. */
const struct bc_bpf_program *bc_bpf_object_program_at(
	const struct bc_bpf_object *obj, uint32_t sec, uint32_t insn);

#endif
