/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The slim header (`dump -f c --for`, `header --for`): a sub-BTF of one
 * kernel's BTF with only what a BPF program needs to compile exactly as
 * it does against the kernel's full header, for bc_dump_c() to write.
 *
 * What the program names is read once (struct bc_slim_names: identifiers
 * of its C sources and local headers, the types, externs and CO-RE
 * relocations of its compiled objects) and can select from any number of
 * BTFs; bc_slim_btf() does both for one BTF. See slim.c for the rules.
 */
#ifndef BTFCANON_SLIM_H
#define BTFCANON_SLIM_H

#include <stddef.h>

#include "../canon/log.h"

struct btf;

struct bc_slim_request {
	const char *const *sources;	/* .c/.h files of the program */
	size_t nr_sources;
	const char *const *objects;	/* its compiled BPF objects (.bpf.o) */
	size_t nr_objects;
	/* where the sources' includes are looked up, as by cc -I (c_names.h) */
	const char *const *include_dirs;
	size_t nr_include_dirs;
};

/* What a program names; opaque. */
struct bc_slim_names;

/*
 * Reads every source and object of req. The result does not depend on
 * the order of either list. Returns 0 and sets *out, or a negative errno
 * after one message naming the file and what is wrong with it; an
 * include directory that is not one is an error too (-ENOENT, -ENOTDIR),
 * checked before any file is read.
 */
int bc_slim_names_read(const struct bc_slim_request *req,
		       struct bc_slim_names **out, const struct bc_log *log);

/*
 * Calls fn(ctx, name) on each name of names (not the empty one), in no
 * particular order, until fn returns nonzero; returns that, or 0.
 */
int bc_slim_names_each(const struct bc_slim_names *names,
		       int (*fn)(void *ctx, const char *name), void *ctx);

/* Frees names; accepts NULL. */
void bc_slim_names_free(struct bc_slim_names *names);

/*
 * The sub-BTF of full (base BTF, or split BTF with its base: the result
 * is base BTF either way) that names selects, as a new BTF whose types
 * keep full's order, names and layouts; structs and unions the program
 * only points to become forward declarations of the same name. Returns 0
 * and sets *out (free with btf__free()), or -ENOMEM, or -EINVAL when full
 * holds a reference slim cannot follow (after a message).
 */
int bc_slim_select(const struct btf *full, const struct bc_slim_names *names,
		   struct btf **out, const struct bc_log *log);

/*
 * bc_slim_select(), and, when from is not NULL, *from: a malloc'd array
 * over *out's ids giving the id in full each type was cut from (0 for
 * void), so that what was counted in full (the uses that choose the
 * plain C names, dump.h) carries over to the cut.
 */
int bc_slim_select_from(const struct btf *full,
			const struct bc_slim_names *names, struct btf **out,
			uint32_t **from, const struct bc_log *log);

/* bc_slim_names_read(), then bc_slim_select() on full. */
int bc_slim_btf(const struct btf *full, const struct bc_slim_request *req,
		struct btf **out, const struct bc_log *log);

#endif
