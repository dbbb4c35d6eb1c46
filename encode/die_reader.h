/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A DIE's tag, attributes, first child and next sibling, read from tables
 * of the unit's abbreviations instead of libdw's walk (die_reader.c says
 * why and how it stays equal to libdw's answers).
 *
 * One reader per worker (it shares nothing); die_reader_reset() between
 * chunks keeps its tables to what one chunk's units use.
 */
#ifndef BTFCANON_DIE_READER_H
#define BTFCANON_DIE_READER_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stdint.h>

#include "addr_map.h"

struct dr_unit;
struct dr_abbrev;
struct dr_block;

/*
 * The caller's slots: slot_of(name) is the slot an attribute name fills
 * (0-31), or -1 for a name the caller does not keep.
 */
typedef int (*die_reader_slot_fn)(unsigned int name);

struct die_reader {
	die_reader_slot_fn slot_of;
	/*
	 * The file whose .debug_str die_reader_strp() answers for (set by
	 * the caller); units of other files (a dwz alternate file, split
	 * DWARF objects) have string tables of their own.
	 */
	Dwarf *home;
	/*
	 * home's .debug_abbrev as libdw reads it (elf_section_bytes),
	 * or NULL: then each abbreviation's table comes from libdw's reading
	 * of the first DIE that uses it.
	 */
	const unsigned char *abbrevs;
	size_t abbrevs_size;
	struct addr_map units;		/* Dwarf_CU -> struct dr_unit * */
	struct dr_unit *last;		/* the unit of the previous lookup */
	/* the previous DIE looked up: its table and where its attributes are */
	const void *last_die;
	const struct dr_abbrev *last_abbrev;
	const unsigned char *last_attrs;
	uint64_t fast, slow;		/* DIEs read each way (statistics) */
	/* the tables' memory, in blocks freed together at reset */
	struct dr_block *blocks;
	size_t block_left;
};

void die_reader_init(struct die_reader *r, die_reader_slot_fn slot_of);
void die_reader_reset(struct die_reader *r);
void die_reader_deinit(struct die_reader *r);

/*
 * Fills out[slot] with the first attribute of each kept name, as
 * dwarf_getattrs() gives it (so dwarf_form*() read it), and sets the
 * slot's bit in *have. Returns 0, or -EINVAL when the attributes cannot
 * be decoded.
 */
int die_reader_attrs(struct die_reader *r, Dwarf_Die *die,
		     Dwarf_Attribute *out, uint32_t *have);

/*
 * dwarf_tag(), dwarf_haschildren() and dwarf_hasattr(), same answers.
 * These and die_reader_child/sibling() take a NULL reader: libdw answers.
 */
int die_reader_tag(struct die_reader *r, Dwarf_Die *die);
bool die_reader_haschildren(struct die_reader *r, Dwarf_Die *die);
bool die_reader_hasattr(struct die_reader *r, Dwarf_Die *die,
			unsigned int name);

/* dwarf_child() and dwarf_siblingof(): 0, 1 for none, -1 on error. */
int die_reader_child(struct die_reader *r, Dwarf_Die *die, Dwarf_Die *child);
int die_reader_sibling(struct die_reader *r, Dwarf_Die *die, Dwarf_Die *sib);

/*
 * Values of attributes die_reader_attrs() gave:
 * die_reader_udata() is dwarf_formudata();
 * die_reader_strp() gives a DW_FORM_strp name's offset in home's
 * .debug_str (-ENOENT for another form or another file's unit): two names
 * at one offset are one string;
 * die_reader_ref() gives a unit-local reference's offset from the unit's
 * start (-ENOENT for another form, -EINVAL when it cannot be read).
 */
int die_reader_udata(struct die_reader *r, Dwarf_Attribute *a, uint64_t *v);
int die_reader_strp(struct die_reader *r, Dwarf_Attribute *a, uint64_t *off);
int die_reader_ref(struct die_reader *r, Dwarf_Attribute *a, Dwarf_Off *off);

#endif
