// SPDX-License-Identifier: GPL-2.0-only
/*
 * A DIE's attributes, read from tables of the unit's abbreviations.
 *
 * The problem: the encoder reads the attributes of millions of DIEs (6.1 M
 * visited on a vmlinux, most of them twice: once for the type cache's
 * fingerprint, once to emit). For each, libdw's dwarf_getattrs() finds
 * the abbreviation in a hash table behind a lock, decodes its list of
 * (name, form) pairs from LEB128, sizes each value through a generic
 * function and calls back per attribute; dwarf_tag(), dwarf_child() and
 * dwarf_siblingof() repeat the lookup and the decoding. Together that was
 * a third of the encoder's instructions.
 *
 * The answer: each abbreviation a unit uses is decoded once into a table
 * (per attribute: name, form, the caller's slot, the value's size when it
 * is fixed), indexed by its code. Reading a DIE is then its code, an array
 * index, and a loop that steps over the values, filling libdw's public
 * Dwarf_Attribute for the names the caller keeps, so that dwarf_form*()
 * read them as before.
 *
 *	DIE at 0x4d: code 4 -> [DW_AT_byte_size implicit_const 8 (slot 2),
 *	                        DW_AT_type ref4, 4 bytes (slot 1)]
 *	attrs: a[2] = {byte_size, implicit_const, <the abbreviation's 8>},
 *	       a[1] = {type, ref4, 0x4e}; have = 0b110; next DIE at 0x52
 *
 * Invariant: every answer is libdw's. The tables come from one of two
 * places. For the units of the file being read (die_reader.home), given
 * its .debug_abbrev as libdw holds it (die_reader.abbrevs), the unit's
 * entries there are parsed in order, as far as the codes its DIEs use;
 * a code met twice, a tag of 0, a children byte other than 0 or 1 are
 * left to libdw. Otherwise a table is built from libdw's own reading of
 * the first DIE that uses the abbreviation (dwarf_tag, dwarf_getattrs,
 * and dwarf_child or dwarf_siblingof for where the DIE ends) and kept
 * only if stepping over the values lands on every position libdw gave.
 * tests/testutil.c die_reader_agrees() compares both ways with libdw on
 * every DIE of the test inputs and of a kernel. What the tables do not
 * cover goes to libdw, whose answer or error stands: DW_FORM_indirect and
 * forms not listed below, a code past 64 Ki, a value or DIE past the
 * unit's end, a unit libdw cannot bound, a big-endian file.
 *
 * Cost: a pointer compare per DIE to find its unit (a hash probe when the
 * unit changes), an array index, a switch per attribute; one pass over a
 * unit's abbreviations. Tables live until die_reader_reset(), which the
 * encoder calls per chunk.
 */
#include <dwarf.h>
#include <errno.h>
#include <gelf.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "die_reader.h"
#include "leb128.h"

#define DR_VARIABLE	0xff	/* the value's size is in the value */
#define DR_MAX_CODE	65536

struct dr_attr {
	uint16_t name;
	uint16_t form;
	int8_t slot;			/* caller's slot, -1: not kept */
	uint8_t size;			/* bytes, or DR_VARIABLE */
	unsigned char *implicit;	/* DW_FORM_implicit_const: libdw's valp */
};

struct dr_abbrev {
	int tag;
	bool has_children;
	bool slow;			/* libdw reads this one */
	int sibling;			/* index of DW_AT_sibling, -1 none */
	uint32_t nattrs;
	struct dr_attr attrs[];
};

struct dr_unit {
	Dwarf_CU *cu;
	bool slow;			/* could not be bounded: libdw reads it */
	bool home_strings;		/* its strp forms index home's .debug_str */
	unsigned char *start;		/* the unit header */
	unsigned char *end;
	uint8_t addr_size, offset_size;
	uint16_t version;
	struct dr_abbrev **codes;	/* by abbreviation code */
	uint32_t ncodes;
	/* the unit's abbreviation table in .debug_abbrev, parsed on demand */
	const unsigned char *abbrev_next;	/* NULL: all parsed, or none */
};

/* The one table that stands for "libdw reads every DIE of this code". */
static struct dr_abbrev dr_slow_abbrev = { .slow = true, .sibling = -1 };

void die_reader_init(struct die_reader *r, die_reader_slot_fn slot_of)
{
	memset(r, 0, sizeof(*r));
	r->slot_of = slot_of;
}

struct dr_block {
	struct dr_block *next;
	size_t used;
	max_align_t data[];
};

#define DR_BLOCK_SIZE	(256 * 1024)

/* Zeroed memory that lives until die_reader_reset(); NULL without. */
static void *dr_alloc(struct die_reader *r, size_t size)
{
	struct dr_block *b = r->blocks;
	void *p;

	size = (size + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
	if (!b || size > r->block_left) {
		size_t cap = size > DR_BLOCK_SIZE ? size : DR_BLOCK_SIZE;

		b = calloc(1, sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->next = r->blocks;
		r->blocks = b;
		r->block_left = cap;
	}
	p = (char *)b->data + b->used;
	b->used += size;
	r->block_left -= size;
	return p;
}

static void dr_unit_free(struct dr_unit *u)
{
	if (!u)
		return;
	free(u->codes);
	free(u);
}

void die_reader_reset(struct die_reader *r)
{
	uint32_t i;

	for (i = 0; i < r->units.used; i++)
		dr_unit_free((struct dr_unit *)(uintptr_t)
			     r->units.slots[r->units.filled[i]].val);
	addr_map_clear(&r->units);
	while (r->blocks) {
		struct dr_block *b = r->blocks;

		r->blocks = b->next;
		free(b);
	}
	r->block_left = 0;
	r->last = NULL;
	r->last_die = NULL;
}

void die_reader_deinit(struct die_reader *r)
{
	die_reader_reset(r);
	addr_map_deinit(&r->units);
}

/* Bytes of an unsigned LEB128 at p, or 0 where leb128_read() fails. */
static size_t leb_len(const unsigned char *p, const unsigned char *end)
{
	const unsigned char *q = p;
	uint64_t v;

	return leb128_read(&q, end, &v) ? (size_t)(q - p) : 0;
}

/* The fixed size of a form's values in unit u, DR_VARIABLE, or -1. */
static int form_size(const struct dr_unit *u, unsigned int form)
{
	switch (form) {
	case DW_FORM_flag_present:
	case DW_FORM_implicit_const:	return 0;
	case DW_FORM_data1:
	case DW_FORM_ref1:
	case DW_FORM_flag:
	case DW_FORM_strx1:
	case DW_FORM_addrx1:		return 1;
	case DW_FORM_data2:
	case DW_FORM_ref2:
	case DW_FORM_strx2:
	case DW_FORM_addrx2:		return 2;
	case DW_FORM_strx3:
	case DW_FORM_addrx3:		return 3;
	case DW_FORM_data4:
	case DW_FORM_ref4:
	case DW_FORM_ref_sup4:
	case DW_FORM_strx4:
	case DW_FORM_addrx4:		return 4;
	case DW_FORM_data8:
	case DW_FORM_ref8:
	case DW_FORM_ref_sig8:
	case DW_FORM_ref_sup8:		return 8;
	case DW_FORM_data16:		return 16;
	case DW_FORM_addr:		return u->addr_size;
	case DW_FORM_ref_addr:
		return u->version == 2 ? u->addr_size : u->offset_size;
	case DW_FORM_strp:
	case DW_FORM_line_strp:
	case DW_FORM_sec_offset:
	case DW_FORM_strp_sup:
	case DW_FORM_GNU_ref_alt:
	case DW_FORM_GNU_strp_alt:	return u->offset_size;
	case DW_FORM_udata:
	case DW_FORM_sdata:
	case DW_FORM_ref_udata:
	case DW_FORM_strx:
	case DW_FORM_addrx:
	case DW_FORM_loclistx:
	case DW_FORM_rnglistx:
	case DW_FORM_GNU_addr_index:
	case DW_FORM_GNU_str_index:
	case DW_FORM_string:
	case DW_FORM_block1:
	case DW_FORM_block2:
	case DW_FORM_block4:
	case DW_FORM_block:
	case DW_FORM_exprloc:		return DR_VARIABLE;
	default:			return -1;	/* DW_FORM_indirect... */
	}
}

/* Bytes of a variable-sized value at p, or 0 when it runs past end. */
static size_t value_len(unsigned int form, const unsigned char *p,
			const unsigned char *end)
{
	const unsigned char *q = p;
	uint64_t n;
	size_t len;

	switch (form) {
	case DW_FORM_string:
		q = memchr(p, 0, end - p);
		return q ? (size_t)(q - p) + 1 : 0;
	case DW_FORM_block1:
		if (end - p < 1)
			return 0;
		n = p[0];
		len = 1;
		break;
	case DW_FORM_block2:
		if (end - p < 2)
			return 0;
		n = (uint64_t)p[0] | (uint64_t)p[1] << 8;
		len = 2;
		break;
	case DW_FORM_block4:
		if (end - p < 4)
			return 0;
		n = (uint64_t)p[0] | (uint64_t)p[1] << 8 |
		    (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24;
		len = 4;
		break;
	case DW_FORM_block:
	case DW_FORM_exprloc:
		if (!leb128_read(&q, end, &n))
			return 0;
		len = q - p;
		break;
	default:
		return leb_len(p, end);
	}
	if (n > (uint64_t)(end - p) - len)
		return 0;
	return len + n;
}

/*
 * Steps over the attributes of a DIE whose code ended at p; returns where
 * the DIE's children (or its next sibling) begin, NULL if past the end.
 * Fills out/have when out is not NULL; *sib gets the DW_AT_sibling value's
 * position when asked for.
 */
static const unsigned char *walk_attrs(const struct dr_unit *u,
				       const struct dr_abbrev *ab,
				       Dwarf_Die *die, const unsigned char *p,
				       Dwarf_Attribute *out, uint32_t *have,
				       const unsigned char **sib)
{
	uint32_t i;

	for (i = 0; i < ab->nattrs; i++) {
		const struct dr_attr *a = &ab->attrs[i];
		unsigned char *valp = (unsigned char *)p;
		size_t len = a->size;

		if (a->form == DW_FORM_implicit_const) {
			valp = a->implicit;
		} else if (len == DR_VARIABLE) {
			len = value_len(a->form, p, u->end);
			if (!len)
				return NULL;
		} else if (len > (size_t)(u->end - p)) {
			return NULL;
		}
		if (sib && (int)i == ab->sibling)
			*sib = p;
		if (out && a->slot >= 0 && !(*have & (1u << a->slot))) {
			out[a->slot] = (Dwarf_Attribute){
				.code = a->name, .form = a->form,
				.valp = valp, .cu = die->cu,
			};
			*have |= 1u << a->slot;
		}
		p += len;
	}
	return p;
}

/* --- building the tables from libdw's reading */

static struct dr_unit *unit_new(struct die_reader *r, Dwarf_CU *cu)
{
	struct dr_unit *u = calloc(1, sizeof(*u));
	Dwarf_Die cudie;
	Dwarf_Half version;
	uint8_t unit_type, addr_size, offset_size;
	Dwarf_Off die_off, start_off, next_off, abbrev_off;
	Elf *elf = dwarf_getelf(dwarf_cu_getdwarf(cu));
	const char *ident;
	uint64_t sig;

	if (!u)
		return NULL;
	u->cu = cu;
	u->slow = true;
	if (dwarf_cu_info(cu, &version, &unit_type, &cudie, NULL, NULL,
			  &addr_size, &offset_size))
		return u;
	die_off = dwarf_dieoffset(&cudie);
	start_off = die_off - dwarf_cuoffset(&cudie);
	/* DWARF 4 type units live in .debug_types, read by another call */
	if (dwarf_next_unit(dwarf_cu_getdwarf(cu), start_off, &next_off, NULL,
			    NULL, NULL, NULL, NULL,
			    version < 5 && unit_type == DW_UT_type ? &sig : NULL,
			    NULL))
		return u;
	/* the value readers below are little-endian */
	if (!elf || !(ident = elf_getident(elf, NULL)) ||
	    ident[EI_DATA] != ELFDATA2LSB)
		return u;
	if (next_off <= die_off || (addr_size != 4 && addr_size != 8) ||
	    (offset_size != 4 && offset_size != 8))
		return u;
	u->start = (unsigned char *)cudie.addr - (die_off - start_off);
	u->end = (unsigned char *)cudie.addr + (next_off - die_off);
	u->addr_size = addr_size;
	u->offset_size = offset_size;
	u->version = version;
	u->slow = false;
	u->home_strings = r->home && dwarf_cu_getdwarf(cu) == r->home &&
			  (unit_type == DW_UT_compile || unit_type == DW_UT_type ||
			   unit_type == DW_UT_partial);
	if (r->abbrevs && r->home && dwarf_cu_getdwarf(cu) == r->home &&
	    dwarf_cu_die(cu, &cudie, NULL, &abbrev_off, NULL, NULL, NULL,
			 NULL) && abbrev_off < r->abbrevs_size)
		u->abbrev_next = r->abbrevs + abbrev_off;
	return u;
}

/* The unit's tables; NULL only when out of memory. */
static struct dr_unit *unit_of(struct die_reader *r, Dwarf_CU *cu)
{
	struct dr_unit *u;
	uint32_t j;

	if (r->last && r->last->cu == cu)
		return r->last;
	if (addr_map_reserve(&r->units))
		return NULL;
	j = addr_map_slot(&r->units, cu);
	if (r->units.slots[j].key) {
		u = (struct dr_unit *)(uintptr_t)r->units.slots[j].val;
	} else {
		u = unit_new(r, cu);
		if (!u)
			return NULL;
		addr_map_put(&r->units, j, cu, (uintptr_t)u);
	}
	r->last = u;
	return u;
}

struct dr_record {
	Dwarf_Attribute attrs[64];
	uint32_t n;
	bool overflow;
};

static int record_attr(Dwarf_Attribute *attr, void *arg)
{
	struct dr_record *rec = arg;

	if (rec->n == sizeof(rec->attrs) / sizeof(rec->attrs[0])) {
		rec->overflow = true;
		return DWARF_CB_ABORT;
	}
	rec->attrs[rec->n++] = *attr;
	return DWARF_CB_OK;
}

/*
 * The table of die's abbreviation (code ends at p), from libdw's reading
 * of die; &dr_slow_abbrev when it cannot be used, NULL without memory.
 */
static struct dr_abbrev *abbrev_build(struct die_reader *r,
				      const struct dr_unit *u, Dwarf_Die *die,
				      const unsigned char *p)
{
	Dwarf_Die probe = { .addr = die->addr, .cu = die->cu };
	Dwarf_Die next;
	struct dr_record rec = { .n = 0 };
	struct dr_abbrev *ab;
	const unsigned char *end;
	int tag, has_children, ret;
	uint32_t i;

	tag = dwarf_tag(&probe);
	has_children = dwarf_haschildren(&probe);
	if (tag == DW_TAG_invalid || has_children < 0 ||
	    dwarf_getattrs(&probe, record_attr, &rec, 0) != 1 || rec.overflow)
		return &dr_slow_abbrev;
	ab = dr_alloc(r, sizeof(*ab) + rec.n * sizeof(ab->attrs[0]));
	if (!ab)
		return NULL;
	ab->tag = tag;
	ab->has_children = has_children;
	ab->sibling = -1;
	ab->nattrs = rec.n;
	for (i = 0; i < rec.n; i++) {
		struct dr_attr *a = &ab->attrs[i];
		int size = form_size(u, rec.attrs[i].form);

		if (size < 0 || rec.attrs[i].code > UINT16_MAX ||
		    rec.attrs[i].form > UINT16_MAX)
			goto slow;
		a->name = rec.attrs[i].code;
		a->form = rec.attrs[i].form;
		a->slot = r->slot_of(a->name);
		a->size = size;
		if (a->form == DW_FORM_implicit_const)
			a->implicit = rec.attrs[i].valp;
		else if (rec.attrs[i].valp != p)
			goto slow;	/* not where libdw has it */
		if (a->name == DW_AT_sibling && ab->sibling < 0)
			ab->sibling = i;
		if (a->form != DW_FORM_implicit_const) {
			size_t len = size == DR_VARIABLE ?
				value_len(a->form, p, u->end) : (size_t)size;

			if ((size == DR_VARIABLE && !len) ||
			    len > (size_t)(u->end - p))
				goto slow;
			p += len;
		}
	}
	/* where the attributes end: the first child, or the next DIE */
	end = p;
	if (has_children)
		ret = dwarf_child(&probe, &next);
	else
		ret = ab->sibling < 0 ? dwarf_siblingof(&probe, &next) : 1;
	if (ret < 0 || (ret == 0 && next.addr != end))
		goto slow;
	return ab;
slow:
	return &dr_slow_abbrev;	/* ab stays in the block until reset */
}

/* Makes u->codes[code] exist (NULL when new); -ENOMEM without memory. */
static int codes_grow(struct dr_unit *u, uint64_t code)
{
	uint32_t n = u->ncodes ? u->ncodes : 256;
	struct dr_abbrev **codes;

	if (code < u->ncodes)
		return 0;
	while (n <= code)
		n *= 2;
	codes = realloc(u->codes, n * sizeof(*codes));
	if (!codes)
		return -ENOMEM;
	memset(codes + u->ncodes, 0, (n - u->ncodes) * sizeof(*codes));
	u->codes = codes;
	u->ncodes = n;
	return 0;
}

/*
 * One entry of an abbreviation table at *pp (end: the section's end) into
 * a table, or &dr_slow_abbrev for one libdw must read (a form this reader
 * does not size, a tag or children flag libdw would not take as such).
 * Sets *code (0: the table's end) and moves *pp past the entry; returns
 * NULL at the end, on bytes that are no entry, or without memory.
 */
static struct dr_abbrev *abbrev_parse_entry(struct die_reader *r,
					    const struct dr_unit *u,
					    const unsigned char **pp,
					    const unsigned char *end,
					    uint64_t *code)
{
	const unsigned char *p = *pp, *attrs;
	uint64_t tag, name, form, v;
	struct dr_abbrev *ab;
	uint32_t n = 0, i;
	bool slow = false;
	unsigned char children;

	if (!leb128_read(&p, end, code) || !*code || !leb128_read(&p, end, &tag) ||
	    p >= end)
		return NULL;
	children = *p++;
	attrs = p;
	for (;;) {
		if (!leb128_read(&p, end, &name) || !leb128_read(&p, end, &form))
			return NULL;
		if (!name && !form)
			break;
		if (form == DW_FORM_implicit_const && !leb128_read(&p, end, &v))
			return NULL;	/* (signed; only its length matters) */
		if (++n > 1024)
			return NULL;
	}
	*pp = p;
	if (!tag || tag > INT32_MAX || children > DW_CHILDREN_yes)
		return &dr_slow_abbrev;
	ab = dr_alloc(r, sizeof(*ab) + n * sizeof(ab->attrs[0]));
	if (!ab)
		return NULL;
	ab->tag = tag;
	ab->has_children = children == DW_CHILDREN_yes;
	ab->sibling = -1;
	ab->nattrs = n;
	for (i = 0, p = attrs; i < n; i++) {
		struct dr_attr *a = &ab->attrs[i];
		int size;

		leb128_read(&p, end, &name);
		leb128_read(&p, end, &form);
		a->implicit = (unsigned char *)p;
		if (form == DW_FORM_implicit_const)
			leb128_read(&p, end, &v);
		size = form_size(u, form);
		if (size < 0 || name > UINT16_MAX || form > UINT16_MAX) {
			slow = true;
			continue;
		}
		a->name = name;
		a->form = form;
		a->slot = r->slot_of(name);
		a->size = size;
		if (name == DW_AT_sibling && ab->sibling < 0)
			ab->sibling = i;
	}
	return slow ? &dr_slow_abbrev : ab;
}

/*
 * Parses u's abbreviation table on from where it stopped, up to and
 * including code want (or to its end). A code met twice is left to libdw.
 */
static void abbrev_parse(struct die_reader *r, struct dr_unit *u,
			 uint64_t want)
{
	const unsigned char *end = r->abbrevs + r->abbrevs_size;

	while (u->abbrev_next) {
		uint64_t code;
		struct dr_abbrev *ab = abbrev_parse_entry(r, u, &u->abbrev_next,
							  end, &code);

		if (!ab) {
			u->abbrev_next = NULL;
			return;
		}
		if (code >= DR_MAX_CODE)
			continue;
		if (codes_grow(u, code)) {
			u->abbrev_next = NULL;
			return;
		}
		u->codes[code] = u->codes[code] ? &dr_slow_abbrev : ab;
		if (code == want)
			return;
	}
}

/*
 * The table for die and where its attributes begin; NULL when libdw must
 * read it (or memory ran out: libdw then says so itself, or manages).
 */
static const struct dr_abbrev *abbrev_of(struct die_reader *r, Dwarf_Die *die,
					 const struct dr_unit **unit,
					 const unsigned char **attrs)
{
	struct dr_unit *u;
	const unsigned char *p = die->addr;
	uint64_t code;

	if (!r)
		return NULL;
	if (r->last_die == die->addr && r->last->cu == die->cu) {
		*unit = r->last;
		*attrs = r->last_attrs;
		return r->last_abbrev;
	}
	u = r->last && r->last->cu == die->cu ? r->last : unit_of(r, die->cu);
	if (!u || u->slow || p < u->start || p >= u->end)
		return NULL;
	if (!leb128_read(&p, u->end, &code) || code == 0 || code >= DR_MAX_CODE)
		return NULL;
	if ((code >= u->ncodes || !u->codes[code]) && u->abbrev_next)
		abbrev_parse(r, u, code);
	if (code >= u->ncodes && codes_grow(u, code))
		return NULL;
	if (!u->codes[code]) {
		u->codes[code] = abbrev_build(r, u, die, p);
		if (!u->codes[code])
			return NULL;
	}
	if (u->codes[code]->slow)
		return NULL;
	r->last_die = die->addr;
	r->last_abbrev = u->codes[code];
	r->last_attrs = p;
	*unit = u;
	*attrs = p;
	return u->codes[code];
}

/* --- the readers */

struct dr_collect {
	die_reader_slot_fn slot_of;
	Dwarf_Attribute *out;
	uint32_t *have;
};

static int collect_attr(Dwarf_Attribute *attr, void *arg)
{
	struct dr_collect *c = arg;
	int slot = c->slot_of(dwarf_whatattr(attr));

	if (slot >= 0 && !(*c->have & (1u << slot))) {
		c->out[slot] = *attr;
		*c->have |= 1u << slot;
	}
	return DWARF_CB_OK;
}

int die_reader_attrs(struct die_reader *r, Dwarf_Die *die,
		     Dwarf_Attribute *out, uint32_t *have)
{
	const struct dr_unit *u;
	const unsigned char *p;
	const struct dr_abbrev *ab = abbrev_of(r, die, &u, &p);
	struct dr_collect c = { r->slot_of, out, have };

	*have = 0;
	if (ab && walk_attrs(u, ab, die, p, out, have, NULL)) {
		r->fast++;
		return 0;
	}
	r->slow++;
	*have = 0;
	return dwarf_getattrs(die, collect_attr, &c, 0) == 1 ? 0 : -EINVAL;
}

int die_reader_tag(struct die_reader *r, Dwarf_Die *die)
{
	const struct dr_unit *u;
	const unsigned char *p;
	const struct dr_abbrev *ab = abbrev_of(r, die, &u, &p);

	return ab ? ab->tag : dwarf_tag(die);
}

bool die_reader_haschildren(struct die_reader *r, Dwarf_Die *die)
{
	const struct dr_unit *u;
	const unsigned char *p;
	const struct dr_abbrev *ab = abbrev_of(r, die, &u, &p);

	return ab ? ab->has_children : dwarf_haschildren(die) > 0;
}

bool die_reader_hasattr(struct die_reader *r, Dwarf_Die *die,
			unsigned int name)
{
	const struct dr_unit *u;
	const unsigned char *p;
	const struct dr_abbrev *ab = abbrev_of(r, die, &u, &p);
	uint32_t i;

	if (!ab)
		return dwarf_hasattr(die, name);
	for (i = 0; i < ab->nattrs; i++)
		if (ab->attrs[i].name == name)
			return true;
	return false;
}

int die_reader_child(struct die_reader *r, Dwarf_Die *die, Dwarf_Die *child)
{
	const struct dr_unit *u;
	const unsigned char *p, *q;
	const struct dr_abbrev *ab = abbrev_of(r, die, &u, &p);

	if (!ab)
		return dwarf_child(die, child);
	if (!ab->has_children)
		return 1;
	p = walk_attrs(u, ab, die, p, NULL, NULL, NULL);
	if (!p)
		return dwarf_child(die, child);
	/* a null entry first (even as 0x80 0x00) means no children */
	for (q = p; q < u->end && *q == 0x80; q++)
		;
	if (q >= u->end || *q == 0)
		return 1;
	*child = (Dwarf_Die){ .addr = (void *)p, .cu = u->cu };
	return 0;
}

/* A sibling reference's unit offset; false for forms libdw should judge. */
static bool sibling_offset(unsigned int form, const unsigned char *p,
			   Dwarf_Off *off)
{
	switch (form) {
	case DW_FORM_ref1:
		*off = p[0];
		return true;
	case DW_FORM_ref2:
		*off = (Dwarf_Off)p[0] | (Dwarf_Off)p[1] << 8;
		return true;
	case DW_FORM_ref4:
		*off = (Dwarf_Off)p[0] | (Dwarf_Off)p[1] << 8 |
		       (Dwarf_Off)p[2] << 16 | (Dwarf_Off)p[3] << 24;
		return true;
	default:
		return false;
	}
}

/*
 * dwarf_siblingof(): past die's subtree, by its DW_AT_sibling or by
 * stepping over its children; the null entries that close a level are
 * skipped, one more than there are levels means no sibling.
 */
int die_reader_sibling(struct die_reader *r, Dwarf_Die *die, Dwarf_Die *sib)
{
	Dwarf_Die cur = { .addr = die->addr, .cu = die->cu };
	const struct dr_unit *u = NULL;
	const unsigned char *p;
	unsigned int level = 0;

	do {
		const unsigned char *sibp = NULL;
		const struct dr_abbrev *ab = abbrev_of(r, &cur, &u, &p);

		if (!ab)
			return dwarf_siblingof(die, sib);
		p = walk_attrs(u, ab, &cur, p, NULL, NULL, &sibp);
		if (!p)
			return dwarf_siblingof(die, sib);
		if (sibp) {
			Dwarf_Off off;
			size_t die_off = (const unsigned char *)cur.addr -
					 u->start;

			if (!sibling_offset(ab->attrs[ab->sibling].form, sibp,
					    &off) ||
			    off >= (size_t)(u->end - u->start) ||
			    off <= die_off)
				return dwarf_siblingof(die, sib);
			p = u->start + off;
		} else if (ab->has_children) {
			level++;
		}
		for (;;) {
			if (p >= u->end)
				return 1;
			if (*p != 0)
				break;
			if (level-- == 0) {
				if (sib != die)
					sib->addr = (void *)p;
				return 1;
			}
			p++;
		}
		cur = (Dwarf_Die){ .addr = (void *)p, .cu = u->cu };
	} while (level > 0);
	*sib = (Dwarf_Die){ .addr = (void *)p, .cu = u->cu };
	return 0;
}

/* --- values */

static uint64_t read_le(const unsigned char *p, unsigned int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/* The unit of an attribute, when its values can be read here. */
static const struct dr_unit *attr_unit(struct die_reader *r,
				       const Dwarf_Attribute *a)
{
	const struct dr_unit *u = r->last && r->last->cu == a->cu ?
				  r->last : unit_of(r, a->cu);

	return u && !u->slow ? u : NULL;
}

/*
 * DW_FORM_data4 and data8 go to libdw: in DWARF 3 they may be offsets into
 * other sections, which libdw checks.
 */
int die_reader_udata(struct die_reader *r, Dwarf_Attribute *a, uint64_t *v)
{
	const struct dr_unit *u;
	const unsigned char *p = a->valp;
	unsigned int shift = 0;
	unsigned char b;

	switch (a->form) {
	case DW_FORM_data1:
		*v = p[0];
		return 0;
	case DW_FORM_data2:
		*v = read_le(p, 2);
		return 0;
	case DW_FORM_implicit_const:
		/* a signed LEB128 in the abbreviation, taken as unsigned */
		*v = 0;
		do {
			b = *p++;
			if (shift < 64)
				*v |= (uint64_t)(b & 0x7f) << shift;
			shift += 7;
		} while ((b & 0x80) && shift < 70);
		if (b & 0x80)
			break;
		if (shift < 64 && (b & 0x40))
			*v |= ~(uint64_t)0 << shift;
		return 0;
	case DW_FORM_udata:
		u = attr_unit(r, a);
		if (u && p >= u->start && p < u->end &&
		    leb128_read(&p, u->end, v))
			return 0;
		break;
	default:
		break;
	}
	return dwarf_formudata(a, v) ? -EINVAL : 0;
}

int die_reader_strp(struct die_reader *r, Dwarf_Attribute *a, uint64_t *off)
{
	const struct dr_unit *u;

	if (a->form != DW_FORM_strp || !(u = attr_unit(r, a)) ||
	    !u->home_strings)
		return -ENOENT;
	*off = read_le(a->valp, u->offset_size);
	return 0;
}

int die_reader_ref(struct die_reader *r, Dwarf_Attribute *a, Dwarf_Off *off)
{
	const struct dr_unit *u;
	const unsigned char *p = a->valp;

	switch (a->form) {
	case DW_FORM_ref1:
		*off = p[0];
		return 0;
	case DW_FORM_ref2:
		*off = read_le(p, 2);
		return 0;
	case DW_FORM_ref4:
		*off = read_le(p, 4);
		return 0;
	case DW_FORM_ref8:
		*off = read_le(p, 8);
		return 0;
	case DW_FORM_ref_udata:
		u = attr_unit(r, a);
		if (u && p >= u->start && p < u->end &&
		    leb128_read(&p, u->end, off))
			return 0;
		return -EINVAL;
	default:
		return -ENOENT;
	}
}
