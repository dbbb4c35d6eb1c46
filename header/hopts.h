/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The options of `btfcanon header` and its architectures: what header.h's
 * callers give and the header's parts (harch.c, hkernels.c, hunits.c)
 * read, apart from header.h so that those parts include no more than
 * they use.
 */
#ifndef BTFCANON_HEADER_HOPTS_H
#define BTFCANON_HEADER_HOPTS_H

#include <stdbool.h>
#include <stdint.h>

#include "../canon/log.h"

struct btf;

enum bc_header_arch {
	BC_HEADER_X86,
	BC_HEADER_ARM64,
	BC_HEADER_NR_ARCHS,
};

/*
 * Cuts one architecture's synthetic BTF down to what a program needs
 * (--for): the hook through which header calls the slim builder. full is
 * the synthetic BTF; *out gets a new BTF and *from, over its ids, the id
 * in full each type was cut from (both freed by the caller). Returns 0 or
 * a negative errno after a message.
 */
typedef int (*bc_header_slim_fn)(const struct btf *full, const void *req,
				 struct btf **out, uint32_t **from,
				 const struct bc_log *log);

/*
 * Calls fn(ctx, name) on every name the program of req names (what the
 * slim hook selects by), until fn returns nonzero; returns that, or 0.
 * With it, --for compares only the types whose flavors the program can
 * name (hsynth.c, hdr_merge_older()); without it, every type.
 */
typedef int (*bc_header_names_fn)(const void *req,
				  int (*fn)(void *ctx, const char *name),
				  void *ctx);

struct bc_header_opts {
	const char *const *kernels;	/* --kernel arguments */
	uint32_t nr_kernels;
	bc_header_slim_fn slim;		/* NULL: the full header */
	const void *slim_req;
	bc_header_names_fn slim_names;	/* NULL: compare every type */
	/*
	 * Read every older kernel whole, not an archive's through a view
	 * (kpart.h): the same header, slower; for tests comparing the two.
	 */
	bool whole_kernels;
	/*
	 * --layout: the kernel (a name or glob of the set's names) whose
	 * layout the plain types are, every other kernel's differences
	 * flavors (hkernels.c, hdr_layout_first()); NULL: the newest.
	 */
	const char *layout;
	/*
	 * Threads that read kernel files ahead of their merge
	 * (0: one per CPU; 1: none, each read where it is merged). The
	 * header does not depend on it.
	 */
	uint32_t jobs;
	/*
	 * --module: globs of module names whose types join each kernel's
	 * vmlinux types (archive/kernel_set.h), for every kernel of the set
	 * given with its modules (a package, a modules tree, a directory as
	 * /sys/kernel/btf) that has such a module. Each must name a module
	 * of some kernel.
	 */
	const char *const *modules;
	uint32_t nr_modules;
};

/* "x86", "arm64" */
const char *bc_header_arch_name(enum bc_header_arch arch);

#endif
