/* SPDX-License-Identifier: GPL-2.0-only */
/* hkernels.c: the kernels of `btfcanon header`'s set: reading, architecture, order (header/, internal). */
#ifndef BTFCANON_HEADER_HKERNELS_H
#define BTFCANON_HEADER_HKERNELS_H

#include <stdbool.h>
#include <stdint.h>

#include "../canon/log.h"
#include "hopts.h"

struct bc_archive;
struct btf;
struct btf_type;

/* --module: the globs, and which took a module of some kernel */
struct hdr_modules {
	const char *const *globs;
	uint32_t nr;
	uint8_t *hits;			/* [nr], set atomically */
};

struct hdr_kernel {
	const struct hdr_modules *mods;	/* NULL: vmlinux alone */
	char *label;			/* the argument, or ARCHIVE:NAME */
	char *name;			/* kernel name: version and flavor */
	const char *path;		/* a file, or NULL */
	struct bc_archive *ar;		/* or a kernel of an archive */
	const char *ar_path;		/* the archive's file */
	uint32_t idx;
	int arch;			/* enum bc_header_arch, or -1 */
};

struct hdr_set {
	struct hdr_kernel *k;
	uint32_t nr, cap;
	struct bc_archive **archives;
	char **archive_paths;
	uint32_t nr_archives;
	struct hdr_modules mods;
};

void hdr_set_free(struct hdr_set *s);
/* Adds the kernels of one --kernel argument. */
int hdr_set_add_arg(struct hdr_set *s, const char *arg,
		    const struct bc_log *log);
/*
 * Whether k is a kernel of an archive stored with modules and --module
 * asks for some: it is then read whole, its modules merged in
 * (hdr_load_kernel), never through a view of vmlinux alone.
 */
bool hdr_wants_archived_modules(const struct hdr_kernel *k);
/*
 * Reads one kernel's BTF as libbpf's struct btf, its types in canonical
 * order; with as_read, a kernel file's in the file's order (not sorted:
 * for a reader that orders what it does by content, hsynth.c's older
 * kernels). An archive's and a kernel with modules are canonical.
 */
int hdr_load_kernel(const struct hdr_kernel *k, bool as_read,
		    struct btf **out, const struct bc_log *log);
/* hdr_load_kernel() in canonical order, then hdr_check_arch() */
int hdr_load_checked(const struct hdr_kernel *k, struct btf **btf,
		     const struct bc_log *log);
/* Checks that kernel k's BTF is of the architecture its name says (frees it if not). */
int hdr_check_arch(const struct hdr_kernel *k, struct btf **btf,
		   const struct bc_log *log);
/* The architecture a kernel name's flavor names, or -1. */
int hdr_arch_of_name(const char *name);
/* The architecture of a kernel's BTF, from struct pt_regs, or -1. */
int hdr_arch_of_btf(const struct btf *btf);
/* The version part of a kernel name, malloc'd. */
char *hdr_version_of(const char *name);
/*
 * The architecture of each of all[0 .. nr) whose name does not tell it,
 * from its BTF's struct pt_regs: files read on `jobs` threads
 * (prefetch.h), an archive's kernels on this thread, in name order, so a
 * bad input's message is the first by name's whatever the threads.
 * -EINVAL after a message for a kernel of no known architecture.
 */
int hdr_probe_archs(struct hdr_kernel **all, uint32_t nr, uint32_t jobs,
		    const struct bc_log *log);
/* qsort() of struct hdr_kernel pointers, the newest first */
int hdr_cmp_newest_first(const void *pa, const void *pb);
bool hdr_is_composite(const struct btf_type *t);
/*
 * --layout: the matching kernel (a name or glob) first in each
 * architecture's list, the others in their order; -EINVAL after a message.
 */
int hdr_layout_first(struct hdr_kernel **by_arch[BC_HEADER_NR_ARCHS],
		     const uint32_t nr_arch[BC_HEADER_NR_ARCHS],
		     const char *pattern, const struct bc_log *log);

#endif
