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

#include "../canon/log.h"
#include "../canon/text.h"
#include "hopts.h"

/*
 * Appends the header of the kernels to out. Returns 0, or a negative errno
 * after one message naming the input at fault (-EINVAL: bad input).
 */
int bc_header_write(const struct bc_header_opts *opts, struct bc_text *out,
		    const struct bc_log *log);

#endif
