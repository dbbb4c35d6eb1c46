/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The identifiers a BPF program's C sources name, for the slim header
 * (slim.h): every identifier of a .c or .h file and of the local headers
 * it includes, outside comments and string and character literals.
 *
 * There is no preprocessor: no macro is expanded, no #if evaluated, so
 * the set holds every identifier any configuration of the file could use
 * (conservative: a name too many costs a few lines of header, one too few
 * a compile error). Includes are followed as the compiler finds the
 * program's own headers, given its include directories (-I DIR) and
 * none of the system's: `#include "x.h"` in the including file's
 * directory, then in each include directory in order; `#include <x.h>`
 * in each include directory in order; the first regular file found is
 * read. A name found nowhere (generated, a system header, a device) is
 * not read and is no error. `#include <bpf/...>` is never read, wherever
 * it is: libbpf's BPF-side headers would add the names of every helper's
 * prototype, so what they take from vmlinux.h is added instead
 * (bc_c_names_add_libbpf()); a project's own headers under a bpf/
 * directory reached that way (Cilium's bpf/include/bpf/) are not read
 * either. Headers named vmlinux*.h are never read: they are the header
 * being made, whose every name would select everything.
 */
#ifndef BTFCANON_C_NAMES_H
#define BTFCANON_C_NAMES_H

#include "../canon/log.h"
#include "../canon/strset.h"

/*
 * Adds to names (a set made with bc_strset_init(names, NULL, 0)) every
 * identifier of the C file at path and of the local headers it includes,
 * looked up in the nr_dirs include directories dirs (in order) as above,
 * each file read once. An include directory that does not exist is one
 * where nothing is found: the caller checks them (slim.c does). Returns
 * 0, or a negative errno after a message naming the file that cannot be
 * read.
 */
int bc_c_names_read(const char *path, const char *const *dirs, size_t nr_dirs,
		    struct bc_strset *names, const struct bc_log *log);

/*
 * Adds the names libbpf's BPF-side headers (<bpf/bpf_helpers.h> and the
 * rest) take from vmlinux.h; bc_c_names_read() adds them when a file
 * includes one. 0 or -ENOMEM.
 */
int bc_c_names_add_libbpf(struct bc_strset *names);

/*
 * Adds the names libbpf's iterator macro makes by pasting tokens (libbpf
 * 1.4's bpf_helpers.h): bpf_for_each(T, ...) declares a struct
 * bpf_iter_T and calls the kfuncs bpf_iter_T_new, _next and _destroy,
 * none of which the program's text spells. When names holds
 * "bpf_for_each", each name N of the set adds the four for T = N. Call it
 * once every source is read, so that the result does not depend on their
 * order. 0 or -ENOMEM.
 */
int bc_c_names_add_iterators(struct bc_strset *names);

#endif
