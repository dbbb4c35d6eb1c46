/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `btfcanon header`: one vmlinux.h for a set of kernels of several
 * architectures (DESIGN.md, "The header of many kernels").
 *
 * Per architecture (x86, arm64) the kernels of the set are merged into one
 * synthetic BTF: the newest kernel's types as they are, CO-RE flavors
 * (struct NAME___TAG) for what only older kernels have, types only older
 * kernels have under their own names, and the kfuncs of every kernel.
 * Each is written with dump_c's canonical order; the texts are merged
 * block by block, what differs wrapped in #if defined(__TARGET_ARCH_...).
 *
 * The text is a function of the set of (kernel name, BTF) only: the order
 * of the arguments does not matter.
 */
#ifndef BTFCANON_HEADER_H
#define BTFCANON_HEADER_H

#include <stdbool.h>
#include <stdint.h>

#include "../canon/log.h"
#include "../canon/text.h"

struct btf;

enum bc_header_arch {
	BC_HEADER_X86,
	BC_HEADER_ARM64,
	BC_HEADER_NR_ARCHS,
};

/*
 * Cuts one architecture's synthetic BTF down to what a program needs
 * (--for): the hook through which header calls the slim builder. full is
 * the synthetic BTF; *out gets a new BTF (freed by the caller). Returns 0
 * or a negative errno after a message.
 */
typedef int (*bc_header_slim_fn)(const struct btf *full, const void *req,
				 struct btf **out, const struct bc_log *log);

/*
 * Calls fn(ctx, name) on every name the program of req names (what the
 * slim hook selects by), until fn returns nonzero; returns that, or 0.
 * With it, --for compares only the types whose flavors the program can
 * name (header.c, merge_older()); without it, every type.
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
	 * --module: globs of module names whose types join each kernel's
	 * vmlinux types (archive/kernel_set.h), for every kernel of the set
	 * given with its modules (a package, a modules tree, a directory as
	 * /sys/kernel/btf) that has such a module. Each must name a module
	 * of some kernel.
	 */
	const char *const *modules;
	uint32_t nr_modules;
};

/*
 * Appends the header of the kernels to out. Returns 0, or a negative errno
 * after one message naming the input at fault (-EINVAL: bad input).
 */
int bc_header_write(const struct bc_header_opts *opts, struct bc_text *out,
		    const struct bc_log *log);

/* "x86", "arm64" */
const char *bc_header_arch_name(enum bc_header_arch arch);

#endif
