/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * BTF annotations in DWARF: btf_decl_tag and btf_type_tag, as the two
 * compilers that write them record them.
 *
 * clang: DW_TAG_LLVM_annotation (0x6000) children of the annotated DIE,
 * in source order. GCC (16 and later): the annotated DIE has a
 * DW_AT_GNU_annotation (0x2139) reference to a DW_TAG_GNU_annotation
 * (0x6001) DIE elsewhere in the unit, which may refer on to the next one
 * through the same attribute; for a pointer's type tags that chain starts
 * at the tag next to the pointer, BTF's own order. Either kind of DIE has
 * DW_AT_name "btf_decl_tag" or "btf_type_tag" and the tag's string in
 * DW_AT_const_value. pahole reads both (its dwarf_loader.c, newest
 * version); so does btfcanon, on every DIE it reads annotations of.
 */
#ifndef BTFCANON_ANNOT_H
#define BTFCANON_ANNOT_H

#include <stdbool.h>
#include <stdint.h>
#include <elfutils/libdw.h>

#ifndef DW_TAG_LLVM_annotation
#define DW_TAG_LLVM_annotation 0x6000
#endif
#ifndef DW_TAG_GNU_annotation
#define DW_TAG_GNU_annotation 0x6001
#endif
#ifndef DW_AT_GNU_annotation
#define DW_AT_GNU_annotation 0x2139
#endif

/* A GCC chain longer than this is a loop in broken DWARF. */
#define ANNOT_CHAIN_MAX 256

static inline bool annot_is_tag(int tag)
{
	return tag == DW_TAG_LLVM_annotation || tag == DW_TAG_GNU_annotation;
}

/*
 * Called for each annotation: the annotation's DIE and its value (NULL
 * when it has none). A non-zero return stops the walk and is returned.
 */
typedef int (*annot_fn)(void *ctx, Dwarf_Die *annot, const char *value);

/*
 * Calls fn for each btf_decl_tag annotation of die: its annotation
 * children in order, then its DW_AT_GNU_annotation chain in order.
 * Returns 0, fn's non-zero return, or -ELOOP for a chain longer than
 * ANNOT_CHAIN_MAX.
 */
int annot_decl_tags(Dwarf_Die *die, annot_fn fn, void *ctx);

/*
 * The btf_type_tag values of a pointer DIE in BTF's order, the one next
 * to the pointer first: `int __tag("a") __tag("b") *p` is PTR -> "b" ->
 * "a" -> int. clang's children are in source order, so they are taken
 * last to first; without any, the DW_AT_GNU_annotation chain as it is,
 * up to the first annotation that is not a type tag (as pahole does).
 * Returns n, the number of tags, and when n <= cap fills values[0 .. n)
 * (NULL for an annotation without a value); or -ELOOP for a chain longer
 * than ANNOT_CHAIN_MAX. values may be NULL with cap 0, to count.
 */
int annot_type_tags(Dwarf_Die *die, const char **values, uint32_t cap);

#endif
