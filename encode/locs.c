// SPDX-License-Identifier: GPL-2.0-only
/*
 * The first register of a location list, read straight from the section.
 *
 * The problem. pahole's rules on calling conventions (funcs.c) need, for
 * every parameter of every function definition, the register it arrives
 * in: on a 6.12 vmlinux, 113,581 location lists. libdw's
 * dwarf_getlocations() decodes a list entry by entry into Dwarf_Op arrays
 * and keeps each decoded expression in a per-unit search tree until the
 * Dwarf handle ends: about 4% of the encoder's CPU and 10 MB of its peak,
 * to learn one byte per list in most cases.
 *
 * The answer: read the first entry ourselves. Past base address entries,
 * the first entry that has an expression gives the expression's first
 * byte; when that is DW_OP_regN (0x50 + N), every one of pahole's rules
 * names register N (funcs.c, decode_location()), whatever follows. Every
 * other case -- another first operation, an empty list, an entry whose
 * addresses are indexes into .debug_addr, a form we do not read -- goes
 * to libdw as before, so this is a shortcut and never a second opinion.
 *
 *	DW_AT_location DW_FORM_sec_offset 0x1234 (a DWARF 5 unit)
 *	.debug_loclists+0x1234: 06 <addr>        DW_LLE_base_address, skipped
 *	                        04 10 2a 01 55   DW_LLE_offset_pair 0x10 0x2a,
 *	                                         expression of 1 byte: 0x55,
 *	                                         DW_OP_reg5: register 5
 *
 * Invariant: loc_first_reg() says "register N" only where libdw's first
 * expression of the list starts with DW_OP_regN (on well-formed DWARF).
 * Cost: a few bytes read per list, nothing allocated.
 */
#include <dwarf.h>
#include <gelf.h>
#include <stdint.h>
#include <string.h>

#include "elf_syms.h"
#include "leb128.h"
#include "locs.h"

#ifndef SHF_COMPRESSED
#define SHF_COMPRESSED (1 << 11)
#endif
#ifndef DW_FORM_exprloc
#define DW_FORM_exprloc 0x18
#endif
#ifndef DW_FORM_sec_offset
#define DW_FORM_sec_offset 0x17
#endif

void loc_span_init(struct loc_span *span)
{
	span->lo = SIZE_MAX;
	span->hi = 0;
}

void loc_sections_find(Elf *elf, struct loc_sections *s)
{
	GElf_Ehdr ehdr;

	memset(s, 0, sizeof(*s));
	if (!elf || !gelf_getehdr(elf, &ehdr))
		return;
	s->big_endian = ehdr.e_ident[EI_DATA] == ELFDATA2MSB;
	elf_section_bytes(elf, ".debug_loc", &s->loc, &s->loc_len);
	elf_section_bytes(elf, ".debug_loclists", &s->loclists, &s->loclists_len);
}

/* What a DWARF 5 location list entry holds before its expression. */
enum lle_operand {
	LLE_NONE,
	LLE_ULEB,		/* an offset or a length */
	LLE_ADDR,		/* an address of the unit's address size */
};

struct lle_shape {
	bool known;		/* false: ask libdw (it needs .debug_addr) */
	bool has_expr;		/* false: a base address entry */
	enum lle_operand ops[2];
};

/* Indexed by DW_LLE_* (DWARF 5, 7.7.3); DW_LLE_end_of_list is handled apart. */
static const struct lle_shape lle_shapes[] = {
	[DW_LLE_base_addressx]	   = { false, false, { LLE_ULEB, LLE_NONE } },
	[DW_LLE_startx_endx]	   = { false, true, { LLE_ULEB, LLE_ULEB } },
	[DW_LLE_startx_length]	   = { false, true, { LLE_ULEB, LLE_ULEB } },
	[DW_LLE_offset_pair]	   = { true, true, { LLE_ULEB, LLE_ULEB } },
	[DW_LLE_default_location]  = { true, true, { LLE_NONE, LLE_NONE } },
	[DW_LLE_base_address]	   = { true, false, { LLE_ADDR, LLE_NONE } },
	[DW_LLE_start_end]	   = { true, true, { LLE_ADDR, LLE_ADDR } },
	[DW_LLE_start_length]	   = { true, true, { LLE_ADDR, LLE_ULEB } },
};

/* The first expression of the DWARF 5 list at p: its first byte. */
static bool loclists_first_op(const unsigned char *p, const unsigned char *end,
			      unsigned int addr_size, unsigned char *op)
{
	for (;;) {
		const struct lle_shape *shape;
		uint64_t len;
		unsigned int k;

		if (p >= end || *p == DW_LLE_end_of_list ||
		    *p >= sizeof(lle_shapes) / sizeof(lle_shapes[0]))
			return false;
		shape = &lle_shapes[*p++];
		if (!shape->known)
			return false;
		for (k = 0; k < 2; k++) {
			if (shape->ops[k] == LLE_ULEB && !leb128_read(&p, end, &len))
				return false;
			if (shape->ops[k] == LLE_ADDR) {
				if ((size_t)(end - p) < addr_size)
					return false;
				p += addr_size;
			}
		}
		if (!shape->has_expr)
			continue;
		if (!leb128_read(&p, end, &len) || !len || len > (uint64_t)(end - p))
			return false;
		*op = *p;
		return true;
	}
}

/* The first expression of the DWARF 4 list at p: its first byte. */
static bool loc_first_op(const unsigned char *p, const unsigned char *end,
			 unsigned int addr_size, bool big_endian,
			 unsigned char *op)
{
	for (;;) {
		bool begin_zero = true, begin_ones = true, end_zero = true,
		     end_ones = true;
		unsigned int i, len;

		if ((size_t)(end - p) < 2 * (size_t)addr_size + 2)
			return false;
		for (i = 0; i < addr_size; i++) {
			begin_zero &= p[i] == 0;
			begin_ones &= p[i] == 0xff;
			end_zero &= p[addr_size + i] == 0;
			end_ones &= p[addr_size + i] == 0xff;
		}
		if (begin_zero && end_zero)
			return false;		/* end of list */
		if (begin_ones) {
			if (end_ones)
				return false;	/* not for us to judge */
			p += 2 * addr_size;	/* base address selection */
			continue;
		}
		p += 2 * addr_size;
		len = big_endian ? (p[0] << 8 | p[1]) : (p[1] << 8 | p[0]);
		p += 2;
		if (!len || len > (size_t)(end - p))
			return false;
		*op = *p;
		return true;
	}
}

bool loc_first_reg(const struct loc_sections *s, Dwarf_Attribute *attr,
		   int *reg, struct loc_span *span)
{
	Dwarf_Half version;
	uint8_t unit_type, addr_size;
	unsigned char op;
	Dwarf_Block block;
	Dwarf_Word off;

	switch (dwarf_whatform(attr)) {
	case DW_FORM_exprloc:
	case DW_FORM_block:
	case DW_FORM_block1:
	case DW_FORM_block2:
	case DW_FORM_block4:
		if (dwarf_formblock(attr, &block) || !block.length)
			return false;
		op = block.data[0];
		break;
	case DW_FORM_sec_offset:
		if (dwarf_cu_info(attr->cu, &version, &unit_type, NULL, NULL,
				  NULL, &addr_size, NULL) ||
		    (unit_type != DW_UT_compile && unit_type != DW_UT_partial) ||
		    (addr_size != 4 && addr_size != 8) ||
		    dwarf_formudata(attr, &off))
			return false;
		if (version >= 5) {
			if (!s->loclists || off >= s->loclists_len)
				return false;
			if (span && off < span->lo)
				span->lo = off;
			if (span && off >= span->hi)
				span->hi = off + 1;
			if (!loclists_first_op(s->loclists + off,
					       s->loclists + s->loclists_len,
					       addr_size, &op))
				return false;
		} else {
			if (!s->loc || off >= s->loc_len ||
			    !loc_first_op(s->loc + off, s->loc + s->loc_len,
					  addr_size, s->big_endian, &op))
				return false;
		}
		break;
	default:
		return false;
	}
	if (op < DW_OP_reg0 || op > DW_OP_reg31)
		return false;
	*reg = op - DW_OP_reg0;
	return true;
}
