/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The canonical order's local keys.
 *
 * A type's local key is everything about it that names no other type:
 * kind, vlen, name, kflag, sizes, encodings, offsets, enumerator values,
 * member and parameter names, linkage, DATASEC entry offsets and sizes,
 * decl-tag component index. Two orders are defined on it:
 *
 *   BC_ORDER_KIND (default): kind, vlen, name, then the rest in record order;
 *   BC_ORDER_NAME: name, kind, vlen, then the rest. Anonymous types sort
 *	first (the empty string is the smallest name), which is the order the
 *	kernel and libbpf detect to look types up by binary search.
 *
 * Names compare byte-wise. Enumerator values compare as the numbers they
 * are (signed when the enum's kflag says so). References are not part of
 * the local key: canon orders them by rank (canon/canon.h).
 */
#ifndef BTFCANON_ORDER_H
#define BTFCANON_ORDER_H

#include "btf_data.h"

enum bc_order {
	BC_ORDER_KIND,
	BC_ORDER_NAME,
};

/* "kind" or "name" -> order. Returns 0 or -EINVAL. */
int bc_order_parse(const char *text, enum bc_order *order);

const char *bc_order_name(enum bc_order order);

/*
 * Compares the local keys of a and b, records of btf (or of its base).
 * Returns <0, 0, >0. Equal keys imply equal kind, vlen and record length.
 */
int bc_order_cmp_local(enum bc_order order, const struct bc_btf *btf,
		       const struct btf_type *a, const struct btf_type *b);

#endif
