/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernels of a deps or min run, from their --kernel arguments, with
 * archives expanded: a file is one kernel; an archive is each of its
 * kernels, ARCHIVE:GLOB those whose names match (fnmatch), each labelled
 * ARCHIVE:NAME; a saved kernel file (an archive of one kernel) given as a
 * file keeps its argument as its label; NAME=FILE (archive.h,
 * bc_kernel_arg_split()) is FILE's one kernel labelled NAME. Archives are
 * opened once and kept until the list is freed; kernels are read when
 * asked, one at a time if the caller wishes.
 */
#ifndef BTFCANON_DEPS_KERNEL_LIST_H
#define BTFCANON_DEPS_KERNEL_LIST_H

#include <stdbool.h>
#include <stdint.h>

#include "../archive/archive.h"
#include "../canon/log.h"
#include "deps.h"

struct bc_kernel_src {
	char *label;			/* the report's name for it */
	char *name;			/* NAME of --kernel NAME=FILE, or NULL */
	const char *path;		/* a file, or NULL */
	struct bc_archive *ar;		/* or a kernel of an archive */
	uint32_t idx;
	const struct bc_ktypes_flavors *flavors;	/* ar's */
	const char *kconfig;
};

struct bc_kernel_list {
	struct bc_kernel_src *srcs;
	uint32_t nr, cap;
	struct bc_archive **archives;	/* opened, owned */
	struct bc_ktypes_flavors **flavors;	/* of each archive, owned */
	uint32_t nr_archives;
};

/*
 * Adds the kernels of one --kernel argument; kconfig (or NULL) goes with
 * them, and may go with one kernel only. Returns 0 or a negative errno
 * after a message.
 */
int bc_kernel_list_add(struct bc_kernel_list *l, const char *arg,
		       const char *kconfig, const struct bc_log *log);

/* Frees the labels and closes the archives; accepts a zeroed list. */
void bc_kernel_list_deinit(struct bc_kernel_list *l);

/*
 * Reads one kernel of the list (its config too). A kernel of an archive
 * is read through a view (a record when first reached) unless whole is
 * set (min, which copies types out of it). Returns 0 or a negative errno
 * after a message naming it.
 */
int bc_kernel_src_load(const struct bc_kernel_src *src, bool want_inlines,
		       bool whole, struct bc_deps_kernel *k,
		       const struct bc_log *log);

#endif
