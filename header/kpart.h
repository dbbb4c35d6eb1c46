/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Part of an archive's kernel as a libbpf BTF (hsynth.c's older kernels):
 * the types a pass acts on and what they reach, read through a view
 * (archive.h) instead of rebuilding the kernel's 110k types.
 */
#ifndef BTFCANON_KPART_H
#define BTFCANON_KPART_H

#include <stdbool.h>
#include <stdint.h>

#include "../canon/log.h"

struct btf;
struct btf_type;
struct bc_archive_view;

/*
 * Whether the references of a named struct, union or typedef reached
 * (not a seed) are of no use to the caller: it is then written with none
 * (a struct or union with no members, its size kept; a typedef of void),
 * its kind and name intact.
 */
typedef bool (*bc_kpart_stop_fn)(void *ctx, const struct btf_type *t,
				 const char *name);

/*
 * The types seeds[0..nr) of view (ids of the view's kernel, any order,
 * repeats allowed) and every type they reach, except past a type stop
 * says so of, as a new base BTF whose types keep the kernel's id order
 * and records (names as strings). (*orig)[i] is type i's id in the
 * kernel ((*orig)[0] = 0; free()). Returns 0, or a negative errno after a
 * message naming label.
 */
int bc_kpart_btf(const struct bc_archive_view *view, const uint32_t *seeds,
		 uint32_t nr, bc_kpart_stop_fn stop, void *ctx,
		 const char *label, struct btf **out, uint32_t **orig,
		 const struct bc_log *log);

#endif
