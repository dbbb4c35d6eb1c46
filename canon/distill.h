/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Distilled base BTF: making it for a module's split BTF, and relocating
 * split BTF made over one onto a full base (another vmlinux's BTF).
 *
 * A module's .BTF is split BTF: its type ids continue the ids of vmlinux's
 * BTF and refer to them directly, so it is only good with the exact vmlinux
 * it was made over. With pahole's `distilled_base` feature (libbpf's
 * btf__distill_base) the module carries a second section, .BTF.base: a
 * small base of its own that names, by kind, name and size, the few
 * vmlinux types the module refers to, and .BTF is split BTF over that.
 * When the module is loaded, the kernel (kernel/bpf/btf_relocate.c) finds
 * each distilled type in the running vmlinux's BTF by kind, name and size
 * and rewrites the module's ids. See distill.c for the rules.
 */
#ifndef BTFCANON_DISTILL_H
#define BTFCANON_DISTILL_H

#include <stddef.h>
#include <stdint.h>

#include "btf_data.h"
#include "log.h"
#include "order.h"

/* The ELF section that holds the distilled base. */
#define BC_BTF_BASE_SECTION ".BTF.base"

struct distill_stats {
	uint32_t base_types;		/* types of the full base the split part uses */
	uint32_t kept;			/* base types written to the distilled base */
	uint32_t stubs;			/* of which structs, unions, enums without members */
	uint32_t moved;			/* base types copied into the split part */
};

struct distill_result {
	void *base_raw;			/* the distilled base (.BTF.base), canonical */
	size_t base_size;
	void *split_raw;		/* the split BTF over it (.BTF), canonical */
	size_t split_size;
	struct distill_stats stats;
};

/*
 * Distills split's base: split is split BTF over a full base (a module's
 * BTF over vmlinux's). Both outputs are in the given canonical order, so
 * they are a function of the type graph alone. Returns 0, or a negative
 * errno after one message naming split's file (a base type of a kind a
 * distilled base cannot express, such as a FUNC or VAR, referred to from
 * the split part: -EINVAL).
 */
int bc_distill(const struct bc_btf *split, enum bc_order order,
	       struct distill_result *res, const struct bc_log *log);

/* Frees what bc_distill() put in res; accepts a zeroed res. */
void bc_distill_result_deinit(struct distill_result *res);

struct relocate_stats {
	uint32_t distilled;		/* types in the distilled base */
	uint32_t embedded;		/* of which structs/unions held by value */
	uint32_t split_types;		/* types of the split part */
};

/*
 * Relocates split, split BTF over a distilled base (split->base), onto
 * new_base, a full base BTF. On success *raw (malloc'd, *size bytes) is
 * split BTF over new_base in the given canonical order. Returns 0, or a
 * negative errno: -EINVAL when split->base is not a distilled base; -ENOENT
 * when a distilled type has no match in new_base or more than one, after
 * one message per such type naming both files, the type and the rule.
 */
int bc_relocate(const struct bc_btf *split, const struct bc_btf *new_base,
		enum bc_order order, void **raw, size_t *size,
		struct relocate_stats *stats, const struct bc_log *log);

#endif
