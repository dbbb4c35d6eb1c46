/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Which functions of a kernel the compiler inlined somewhere, from its
 * DWARF: the names that some DW_TAG_inlined_subroutine stands for. With
 * the symbol table this tells a kprobe target's fate: no symbol and
 * inlined is "fully inlined", a symbol and inlined calls as well is
 * "selectively inlined" (a probe misses the inlined calls).
 */
#ifndef BTFCANON_INLINE_FACTS_H
#define BTFCANON_INLINE_FACTS_H

#include <stdbool.h>
#include <stddef.h>

#include "../canon/log.h"

struct bc_inline_facts;

/*
 * Walks path's .debug_info. *out is NULL when the file has no DWARF.
 * Returns 0 or a negative errno after a message naming the file.
 */
int bc_inline_facts_load(const char *path, struct bc_inline_facts **out,
			 const struct bc_log *log);

/* True when some call of name was inlined. */
bool bc_inline_facts_has(const struct bc_inline_facts *f, const char *name);

/* Number of distinct inlined function names. */
size_t bc_inline_facts_count(const struct bc_inline_facts *f);

void bc_inline_facts_free(struct bc_inline_facts *f);

/* An empty set, and adding to it (saved kernel files). NULL / -ENOMEM. */
struct bc_inline_facts *bc_inline_facts_new(void);
/*
 * An empty set sized for expected names, which keeps the names added as
 * given (they must outlive it) instead of copies.
 */
struct bc_inline_facts *bc_inline_facts_new_borrowing(size_t expected);
int bc_inline_facts_add(struct bc_inline_facts *f, const char *name);

/*
 * The names in strcmp order, as a malloc'd array of pointers into f
 * (*n of them); NULL with *n = 0 when empty or out of memory.
 */
const char **bc_inline_facts_sorted(const struct bc_inline_facts *f, size_t *n);

#endif
