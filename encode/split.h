/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Split BTF (a module's types over vmlinux's) in the encoder.
 */
#ifndef BTFCANON_SPLIT_H
#define BTFCANON_SPLIT_H

struct btf;

/*
 * Appends src's own types to dst, both split over the same base: ids into
 * the base stay, src's own ids move past dst's. libbpf 1.1.2's
 * btf__add_btf() does not take split BTF. Returns 0 or a negative errno.
 */
int split_btf_append(struct btf *dst, const struct btf *src);

#endif
