/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * C spellings of BTF types, for the diff: "struct sk_buff *",
 * "int (*)(struct sock *, int)", "const char *const name[4]".
 *
 * Named types print by name, so a declaration is the same text in two
 * BTFs exactly when it names the same types the same way; what a named
 * type contains is compared where that type itself is compared. Anonymous
 * structs, unions and enums have no name to print: they print as
 * "struct {...}", or, with expand set, with their whole body (members,
 * offsets, sizes), which makes the text a complete fingerprint of the
 * declaration.
 */
#ifndef BTFCANON_CDECL_H
#define BTFCANON_CDECL_H

#include <stdbool.h>
#include <stdint.h>

#include "../canon/btf_data.h"
#include "../canon/text.h"
#include "../canon/types.h"

#define BC_CDECL_MAX_DEPTH 32	/* nesting of expanded bodies */
#define BC_CDECL_MAX_BODIES 256	/* expanded bodies in one declaration */

struct bc_cdecl {
	const struct bc_btf *btf;
	/*
	 * When set, types and strings are read through these instead of
	 * from btf: a source that decodes records on demand (deps reading
	 * an archive's kernel through a view). type_of gives NULL for void.
	 */
	bc_type_reader type_of;
	const char *(*str_of)(const void *src, uint32_t str);
	const void *src;
	bool expand;		/* print anonymous bodies in full */
	uint32_t depth;		/* nesting of expanded bodies (bounded) */
	/* the bodies being expanded, outermost first: a cycle prints {...} */
	const struct btf_type *expanding[BC_CDECL_MAX_DEPTH];
	uint32_t bodies;	/* expanded so far in this declaration */
};

/* Appends the declaration of name (may be "") as type id. */
void bc_cdecl_type(struct bc_cdecl *c, uint32_t id, const char *name,
		   struct bc_text *out);

/*
 * Appends the prototype of FUNC_PROTO proto_id as a function called name,
 * parameter names included: "int foo(struct sk_buff *skb, int len)".
 */
void bc_cdecl_func(struct bc_cdecl *c, uint32_t proto_id, const char *name,
		   struct bc_text *out);

/*
 * Appends the body of struct, union or enum t: members with bit offsets
 * and bitfield sizes, or enumerators with values; anonymous member types
 * expanded the same way.
 */
void bc_cdecl_body(struct bc_cdecl *c, const struct btf_type *t,
		   struct bc_text *out);

#endif
