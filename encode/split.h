/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Split BTF (a module's types over vmlinux's) in the encoder: the module's
 * standalone BTF mapped onto the base (see split.c).
 */
#ifndef BTFCANON_SPLIT_H
#define BTFCANON_SPLIT_H

#include <stdint.h>

struct btf;
struct bc_btf;

struct split_attach_stats {
	uint32_t mapped;	/* module types replaced by base types */
	uint32_t own;		/* module types kept: the split part */
};

/*
 * Makes *raw (*size bytes, malloc'd), raw split BTF over base holding the
 * types of mod (standalone BTF) that no base type equals; references to
 * the others name base ids, string offsets start after the base's
 * strings. base (parsed, standalone) is only read. *omit, when not NULL,
 * is the selection's map of mod's types to leave out ([id - 1]); it is
 * replaced by the same map over the split types ([id - first split id]).
 * Returns 0 or a negative errno (-ENOMEM; -EINVAL when mod or base is
 * itself split or mod holds a type of unknown kind).
 */
int split_attach_base(const struct btf *mod, const struct bc_btf *base,
		      uint8_t **omit, void **raw, uint32_t *size,
		      struct split_attach_stats *stats);

#endif
