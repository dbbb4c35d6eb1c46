/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The smallest BTF of a kernel that libbpf needs to relocate a set of BPF
 * objects (what `bpftool gen min_core_btf` makes): `btfcanon min`.
 *
 *	bc_min_new(kernel) -> bc_min_add_object() per object -> bc_min_write()
 *
 * libbpf relocating each object against the result (btf_custom_path)
 * patches the same value into every instruction as against the whole
 * kernel, but for target_type_id, whose value is an id of the BTF used.
 */
#ifndef BTFCANON_MIN_H
#define BTFCANON_MIN_H

#include <stddef.h>

#include "../canon/btf_data.h"
#include "../canon/log.h"
#include "../archive/bpf_object.h"
#include "core_relo.h"

struct bc_min;

/*
 * Starts the minimal BTF of kernel (a whole base BTF, indexed: see
 * archive/ktypes.h), kept by the caller until bc_min_free(). Returns 0, -EINVAL
 * for types read through a view, or -ENOMEM.
 */
int bc_min_new(const struct bc_ktypes *kernel, struct bc_min **out);

/*
 * As bc_min_new(), for a kernel with its modules (split over kernel's
 * BTF): relocations find candidates as libbpf does on that kernel
 * (vmlinux first, the modules where vmlinux has none), and the result is
 * one non-split BTF holding the vmlinux and module types they took, for
 * btf_custom_path. mods must outlive *out. Returns 0, -EINVAL (a view,
 * or modules not split over kernel: said on log) or -ENOMEM.
 */
int bc_min_new_modules(const struct bc_ktypes *kernel,
		       const struct bc_core_module *mods, uint32_t nr_mods,
		       struct bc_min **out, const struct bc_log *log);

/*
 * Records what the CO-RE relocations of obj take from the kernel, as
 * libbpf relocates them by default and with every program enabled.
 * Returns 0 or a negative errno.
 */
int bc_min_add_object(struct bc_min *m, const struct bc_bpf_object *obj);

/*
 * The minimal BTF of what was recorded, canonical (canon's rebuild), in
 * *raw (malloc'd) and *size. Returns 0 or a negative errno after a
 * message on log.
 */
int bc_min_write(struct bc_min *m, void **raw, size_t *size,
		 const struct bc_log *log);

/*
 * How many relocations recorded so far found no type of their root's
 * name at all (in vmlinux, nor in the modules given): what a module the
 * kernel was given without might have had.
 */
uint32_t bc_min_nr_without_candidates(const struct bc_min *m);

/* Accepts NULL. */
void bc_min_free(struct bc_min *m);

#endif
