/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The first register of a location, read from the DWARF sections directly
 * (locs.c), without libdw's decoding: libdw keeps every expression it
 * decoded until its Dwarf handle ends, and a vmlinux has 113,581 parameter
 * locations worth asking for one register each.
 */
#ifndef BTFCANON_LOCS_H
#define BTFCANON_LOCS_H

#include <elfutils/libdw.h>
#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>

/* The location list sections of one file, read-only. */
struct loc_sections {
	const unsigned char *loc;	/* .debug_loc (DWARF 4), or NULL */
	size_t loc_len;
	const unsigned char *loclists;	/* .debug_loclists (DWARF 5), or NULL */
	size_t loclists_len;
	bool big_endian;		/* the file's byte order (.debug_loc's lengths) */
};

/*
 * The part of .debug_loclists whose lists were read (offsets lo..hi-1 hold
 * the start of each), for giving its pages back: lo > hi when none was.
 */
struct loc_span {
	size_t lo, hi;
};

void loc_span_init(struct loc_span *span);

/*
 * Finds elf's location list sections (none when compressed or absent).
 * libelf is not thread-safe: call it before the workers run, after the
 * Dwarf handle over elf was opened (libdw decompresses and libdwfl
 * relocates in place). Never fails: what is not found stays NULL.
 */
void loc_sections_find(Elf *elf, struct loc_sections *s);

/*
 * Is the first operation of attr's first location DW_OP_regN? Then sets
 * *reg to N and returns true: the location is one expression (an exprloc
 * or block form), or a DW_FORM_sec_offset into s's .debug_loclists
 * (DWARF 5; the first entry that has an expression, past base address
 * entries) or .debug_loc (DWARF 4). False in every other case, which
 * the caller asks libdw about: other operations, an empty list, entries
 * that need .debug_addr, DW_FORM_loclistx, split units, bad offsets.
 * A list in .debug_loclists is added to *span (unless span is NULL),
 * whichever the answer: libdw reads the same list.
 */
bool loc_first_reg(const struct loc_sections *s, Dwarf_Attribute *attr,
		   int *reg, struct loc_span *span);

#endif
