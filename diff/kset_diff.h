/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The diff of two kernels with their modules (kernel_set.h): the vmlinux
 * diff, then, in module name order, one diff per module both kernels have
 * that changed, and the modules one kernel has and the other not.
 *
 * A module's diff compares its own types (the split BTF over each
 * kernel's vmlinux), by name as bc_diff_run() does, so a module whose
 * types are unchanged has no entries even though every id moved with the
 * vmlinux under it; what changed in vmlinux is said once, in its section.
 */
#ifndef BTFCANON_KSET_DIFF_H
#define BTFCANON_KSET_DIFF_H

#include <stdbool.h>
#include <stdint.h>

#include "../archive/kernel_set.h"
#include "btf_diff.h"

struct bc_module_diff {
	const char *name;		/* the kernel_set's module name */
	enum bc_diff_op op;		/* added, removed or changed */
	uint32_t nr_types;		/* added, removed: the module's types */
	struct bc_diff diff;		/* changed: its entries */
};

struct bc_kset_diff {
	struct bc_diff vmlinux;
	/* both kernels held modules (a package, a tree, a BTF directory) */
	bool modules_compared;
	struct bc_module_diff *mods;	/* only those that differ, by name */
	uint32_t nr_mods;
};

/*
 * Compares old and new, their modules on up to jobs threads (0: every
 * CPU); the result does not depend on jobs. Returns 0 and fills out, or
 * a negative errno (-ENOMEM) after a message.
 */
int bc_kset_diff_run(const struct bc_kernel_set *old_ks,
		     const struct bc_kernel_set *new_ks, unsigned int jobs,
		     struct bc_kset_diff *out, const struct bc_log *log);

/* Frees what bc_kset_diff_run() filled in; accepts a zeroed diff. */
void bc_kset_diff_deinit(struct bc_kset_diff *kd);

/* true when nothing differs: vmlinux nor any module */
bool bc_kset_diff_empty(const struct bc_kset_diff *kd);

/*
 * The three views (btf_diff.h's, with a section per module): text, JSON
 * (the vmlinux report, and "modules": one object per module that
 * differs), --stat. Return 0 or -ENOMEM.
 */
int bc_kset_diff_print_text(const struct bc_kset_diff *kd,
			    const struct bc_diff_print_opts *opts,
			    struct bc_text *out);
int bc_kset_diff_print_json(const struct bc_kset_diff *kd,
			    const struct bc_diff_print_opts *opts,
			    struct bc_text *out);
int bc_kset_diff_print_stat(const struct bc_kset_diff *kd,
			    const struct bc_diff_print_opts *opts,
			    struct bc_text *out);

#endif
