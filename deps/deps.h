/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a BPF object needs from a kernel, checked against several kernels:
 * its CO-RE relocations, its hooks (attach targets), its kfunc, ksym and
 * kconfig externs (against a config given with the kernel), the helpers
 * it calls, its map types and its program types. Each dependency gets,
 * per kernel, a status, and each status one consequence: an error at
 * load or attach, wrong data read, missed calls, or none. What a kernel's inputs cannot tell is `unknown`, never guessed.
 */
#ifndef BTFCANON_DEPS_H
#define BTFCANON_DEPS_H

#include <stdbool.h>
#include <stdint.h>

#include "../archive/archive.h"
#include "../canon/log.h"
#include "../archive/input.h"
#include "../canon/text.h"
#include "../archive/bpf_object.h"
#include "kconfig.h"
#include "../archive/ktypes.h"

enum bc_dep_status {
	BC_DEP_OK,
	BC_DEP_MISSING,		/* absent, and the object copes: *_exists 0, weak extern */
	BC_DEP_NO_MATCH,	/* type_matches gives 0 */
	BC_DEP_RESIZED,		/* field read with the object's size, kernel's differs */
	BC_DEP_POISONED,	/* CO-RE: no target, instruction made invalid */
	BC_DEP_AMBIGUOUS,	/* CO-RE: candidates disagree */
	BC_DEP_FAILED,		/* CO-RE: any other relocation error */
	BC_DEP_ABSENT,
	BC_DEP_FULLY_INLINED,
	BC_DEP_SEL_INLINED,
	BC_DEP_TRANSFORMED,	/* only a .isra/.constprop/.part clone has a symbol */
	BC_DEP_DUPLICATE,	/* several local symbols of the name */
	BC_DEP_PROTO_CHANGED,	/* against the first kernel */
	BC_DEP_INCOMPATIBLE,	/* kfunc/ksym type libbpf refuses */
	BC_DEP_UNKNOWN,		/* the kernel's inputs cannot tell */
	BC_DEP_USER,		/* user space: not checked */
	BC_DEP_AUTOLOAD_OFF,	/* SEC("?..."): libbpf loads it only when enabled */
	BC_DEP_NR_STATUS,
};

enum bc_dep_consequence {
	BC_CONS_NONE,
	BC_CONS_ERROR,		/* error at load or attach */
	BC_CONS_WRONG_DATA,
	BC_CONS_MISSED_CALLS,
	BC_CONS_UNKNOWN,
};

/* "ok", "poisoned", "fully-inlined", ... */
const char *bc_dep_status_name(enum bc_dep_status s);
enum bc_dep_consequence bc_dep_status_consequence(enum bc_dep_status s);
/* "none", "error", "wrong-data", "missed-calls", "unknown" */
const char *bc_dep_consequence_name(enum bc_dep_consequence c);

enum bc_dep_class {
	BC_DEP_RELO,
	BC_DEP_HOOK,
	BC_DEP_EXTERN,
	BC_DEP_HELPER,
	BC_DEP_MAP,
	BC_DEP_PROG_TYPE,
};

struct bc_dep_cell {
	enum bc_dep_status status;
	bool has_value;		/* relocations: value patched */
	uint64_t value;
	char *detail;		/* malloc'd or NULL: the clone, the change, ... */
	char *config_value;	/* kconfig externs: the value as the config has it */
	/*
	 * BC_DEP_AUTOLOAD_OFF: what the dependency gets if its program is
	 * enabled (bpf_program__set_autoload), malloc'd; NULL otherwise.
	 */
	struct bc_dep_cell *if_loaded;
};

struct bc_dep {
	enum bc_dep_class class;
	char *section;		/* program section, or NULL */
	uint32_t index;		/* relocations: position in the section's list */
	uint32_t insn_off;	/* relocations: byte offset of the instruction */
	char *kind;		/* "byte_off", "fentry", "kfunc", "helper", ... */
	char *type;		/* relocations: "struct task_struct" */
	char *name;		/* access path, target, extern, helper name */
	int64_t id;		/* helper id, map type value; -1 if none */
	bool weak;		/* externs */
	/*
	 * Relocations, hooks, program types, helpers: only in programs of
	 * "?" sections, which libbpf neither loads nor relocates unless
	 * enabled; every cell is then BC_DEP_AUTOLOAD_OFF.
	 */
	bool autoload_off;
	struct bc_dep_cell *cells;	/* one per kernel */
};

/*
 * A kernel as deps reads it: its types and, for an ELF file, its symbols
 * and (when asked: it costs a walk of the DWARF) its inlined functions;
 * for a kernel with its modules (a package, a modules tree, a directory
 * of BTF: archive/kernel_set.h), its modules' BTF too. Its types are a whole
 * BTF (input.btf, indexed), or, for a kernel of an archive read through
 * a view, only the records the checks reach (input.btf NULL).
 */
struct bc_deps_kernel {
	const char *arg;		/* as given on the command line */
	const char *name;		/* NAME of --kernel NAME=FILE, or NULL */
	struct bc_input input;
	struct bc_ktypes types;
	struct bc_ksyms *syms;		/* NULL when the file has no symtab */
	struct bc_inline_facts *inlines;	/* NULL without DWARF */
	struct bc_kconfig *kconfig;	/* its config; NULL: not known */
	/*
	 * Its modules (archive/kernel_set.h: a package, a modules tree, a
	 * directory of BTF such as /sys/kernel/btf), each a split BTF over
	 * the kernel's, in name order. libbpf looks into
	 * the modules as with the running kernel: for CO-RE candidates when
	 * vmlinux has none, for attach targets, kfuncs and typed ksyms that
	 * vmlinux lacks.
	 */
	struct bc_core_module *modules;
	uint32_t nr_modules;
	char *vmlinux_path;		/* the file vmlinux came from, or NULL */
	/*
	 * Its input could hold modules (a package, a modules tree, a
	 * directory of BTF, a saved kernel that had them): false for a bare
	 * vmlinux, where module types cannot be checked.
	 */
	bool has_modules;
	/* read from an archive that keeps no modules of it */
	bool from_archive;
	/* a saved kernel's modules: the BTF they are split over, or NULL */
	struct bc_btf *modules_base;
	/* a saved kernel file, owned: its symbols and inlined names point in */
	struct bc_archive *archive;
	/*
	 * A kernel of an archive read through a view, stored with modules:
	 * its modules, read from the archive the first time a check needs
	 * one (a name vmlinux lacks), in place of modules above; or NULL.
	 */
	struct bc_deps_lazy_modules *lazy;
};

/*
 * Reads the kernel path names: a file (raw BTF, ELF, image, a saved
 * kernel file), or a kernel with its modules (a package, a modules tree,
 * a directory of BTF: archive/kernel_set.h; a bad module is left out
 * with a warning). Returns 0 or a negative errno after a message naming
 * path.
 */
int bc_deps_kernel_load(const char *path, bool want_inlines,
			struct bc_deps_kernel *k, const struct bc_log *log);

/*
 * Gives k the config read from path (a .config), in place of the one a
 * saved kernel file may hold. Returns 0 or a negative errno after a
 * message naming the file.
 */
int bc_deps_kernel_set_kconfig(struct bc_deps_kernel *k, const char *path,
			       const struct bc_log *log);

/*
 * Kernel idx of the archive ar, with what its attachments tell (symbols,
 * inlined names, config, modules: see deps.c); label names it in
 * messages and is kept as k->arg. With flavors (ar's,
 * bc_ktypes_flavors_new()), its types are read through a view, a record
 * when first reached; without, or for a kernel stored as bytes, whole
 * (input.btf). The attachments' names are used in place: ar must outlive
 * k and not change. Returns 0 or a negative errno after a message naming
 * label.
 */
int bc_deps_kernel_load_archived(struct bc_archive *ar, uint32_t idx,
				 const struct bc_ktypes_flavors *flavors,
				 const char *label, struct bc_deps_kernel *k,
				 const struct bc_log *log);

/*
 * Writes k (its BTF, symbols, inlined names, config, modules) to path as
 * a saved kernel file: an archive of one kernel named after k's file,
 * with checksums, which bc_deps_kernel_load() takes like any kernel; the
 * bytes depend on the kernel only. A file already at path is replaced
 * under the archive writers' lock (archive.h: bc_archive_lock_file), so
 * the save waits for an `archive add` or `remove` rewriting it (at most
 * BC_ARCHIVE_WAIT_MS, then -ETIMEDOUT). Returns 0 or a negative errno.
 */
int bc_deps_kernel_save(const struct bc_deps_kernel *k, const char *path,
			const struct bc_log *log);

/*
 * The saved kernel file's bytes of k, its kernel called name, into *out
 * (malloc'd). Returns 0 or a negative errno (-EINVAL for split BTF)
 * after a message.
 */
int bc_deps_kernel_serialize(const struct bc_deps_kernel *k, const char *name,
			     void **out, size_t *size, const struct bc_log *log);

/*
 * Reads a saved kernel file from memory (copied), as
 * bc_deps_kernel_load() reads one from disk. Returns 0 or a negative
 * errno after a message naming path.
 */
int bc_deps_kernel_parse(const void *data, size_t size, const char *path,
			 struct bc_deps_kernel *k, const struct bc_log *log);

/* True when obj has a hook that the kernel's inlining decides (kprobes). */
bool bc_deps_wants_inlines(const struct bc_bpf_object *obj);
void bc_deps_kernel_deinit(struct bc_deps_kernel *k);

struct bc_deps_memo;

struct bc_deps_report {
	const char *object;		/* as given */
	uint32_t nr_kernels;
	struct bc_dep *deps;
	uint32_t nr_deps;
	struct bc_deps_memo *memo;	/* deps.c's, shared by the columns */
};

/*
 * Checks obj against kernels[0 .. nr-1]; prototypes are compared with
 * kernels[0]. Returns 0 or a negative errno (out of memory).
 */
int bc_deps_check(const struct bc_bpf_object *obj,
		  const struct bc_deps_kernel *kernels, uint32_t nr,
		  struct bc_deps_report *report, const struct bc_log *log);

/*
 * Checks obj against kernel beside first into column of report, a report
 * of obj from bc_deps_check() widened to hold the column
 * (bc_deps_report_widen()): the cells bc_deps_check() of (first, kernel)
 * gives kernel, prototypes compared with first's, helpers named as first
 * names them, without first's own column nor the rows made again. deps
 * checks kernel after kernel so against one reference kernel. Returns 0,
 * or a negative errno after a message (-EINVAL: obj's rows are not the
 * report's); the column may then be partly filled.
 */
int bc_deps_check_column(const struct bc_bpf_object *obj,
			 const struct bc_deps_kernel *first,
			 const struct bc_deps_kernel *kernel,
			 struct bc_deps_report *report, uint32_t column,
			 const struct bc_log *log);
void bc_deps_report_deinit(struct bc_deps_report *report);

/*
 * Gives every dependency of report nr cells (new ones zeroed), for
 * columns bc_deps_check_column() fills, and report what they share (the
 * reference kernel's prototypes, spelled once). Returns 0 or -ENOMEM.
 */
int bc_deps_report_widen(struct bc_deps_report *report, uint32_t nr);

/* The worst consequence of dep over all kernels. */
enum bc_dep_consequence bc_dep_worst(const struct bc_dep *dep, uint32_t nr);

#endif
