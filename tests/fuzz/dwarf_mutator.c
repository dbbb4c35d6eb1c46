// SPDX-License-Identifier: GPL-2.0-only
/*
 * A structure-aware mutator for fuzz_encode: mutate the DWARF, not the ELF.
 *
 * Problem: libFuzzer's byte mutations of a whole object file mostly break
 * its ELF header or section table, and libelf refuses the file before the
 * encoder's DWARF code (encode/cu_encoder.c, encode/funcs.c) runs.
 *
 * What this does instead, for an ELF64 little-endian input (every seed):
 *   - find the DWARF sections the encoder reads (debug_sections[]) in the
 *     section table;
 *   - most of the time, pick one and let LLVMFuzzerMutate() change that
 *     section's bytes only, at the same size;
 *   - one time in four, make one structured edit in .debug_abbrev that
 *     keeps the table parseable but changes how .debug_info reads: a form
 *     to another valid form (often of the same class, data1 -> data2,
 *     ref4 -> ref_udata, strp -> strx1), an attribute code, a tag, or
 *     DW_CHILDREN flipped;
 *   - cross-over copies a run of bytes of a section of another input into
 *     the same section of this one.
 *
 * Invariant: the ELF header, the section table, every other section (the
 * .rela.debug_* that libdwfl applies among them) and every section's size
 * and offset are left as they were. Abbreviation edits rewrite a ULEB128 in
 * the bytes it had (padded with 0x80 continuation bytes when the new value
 * is shorter), so nothing after it moves. Inputs that are not such an ELF
 * file (a hand-made finding) get LLVMFuzzerMutate() over all their bytes.
 *
 * Deterministic given libFuzzer's seed: every choice here comes from the
 * Seed argument; LLVMFuzzerMutate() uses libFuzzer's own seeded generator.
 * Cost: one walk over the section table, and over .debug_abbrev for an
 * abbreviation edit; both a few KB for the seeds.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
			       unsigned int seed);
size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1,
				 const uint8_t *data2, size_t size2,
				 uint8_t *out, size_t max_out_size,
				 unsigned int seed);

static const char *const debug_sections[] = {
	".debug_info", ".debug_abbrev", ".debug_str", ".debug_line_str",
	".debug_loclists", ".debug_rnglists", ".debug_addr",
	".debug_str_offsets",
};

#define NR_DEBUG_SECTIONS (sizeof(debug_sections) / sizeof(debug_sections[0]))

struct dwarf_section {
	const char *name;
	size_t offset;		/* in the file */
	size_t size;
};

/* The DWARF sections of an ELF file present with bytes in the file. */
struct dwarf_sections {
	struct dwarf_section sec[NR_DEBUG_SECTIONS];
	unsigned int nr;
};

/* xorshift32 over the Seed libFuzzer gives each call */
struct mutation_rng {
	uint32_t state;
};

static uint32_t rng_below(struct mutation_rng *rng, uint32_t bound)
{
	uint32_t x = rng->state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	rng->state = x;
	return bound ? x % bound : 0;
}

static void rng_init(struct mutation_rng *rng, unsigned int seed)
{
	rng->state = seed * 2654435761u;
	if (!rng->state)	/* 0 is xorshift's fixed point */
		rng->state = 1;
}

static uint64_t read_le(const uint8_t *p, unsigned int bytes)
{
	uint64_t v = 0;

	while (bytes--)
		v = v << 8 | p[bytes];
	return v;
}

/*
 * The ELF64 little-endian header fields this needs, bounds-checked against
 * the buffer. Returns false for anything else, or a section table or
 * section-name table outside the buffer.
 */
static bool find_dwarf_sections(const uint8_t *data, size_t size,
				struct dwarf_sections *out)
{
	uint64_t shoff, str_off, str_size;
	unsigned int shnum, shentsize, shstrndx, i, j;
	const uint8_t *shstr;

	out->nr = 0;
	if (size < 64 || memcmp(data, "\177ELF\2\1", 6))
		return false;
	shoff = read_le(data + 0x28, 8);
	shentsize = read_le(data + 0x3a, 2);
	shnum = read_le(data + 0x3c, 2);
	shstrndx = read_le(data + 0x3e, 2);
	if (shentsize != 64 || shnum == 0 || shstrndx >= shnum ||
	    shoff > size || (size - shoff) / 64 < shnum)
		return false;
	shstr = data + shoff + (uint64_t)shstrndx * 64;
	str_off = read_le(shstr + 0x18, 8);
	str_size = read_le(shstr + 0x20, 8);
	if (str_off > size || str_size > size - str_off)
		return false;
	for (i = 0; i < shnum; i++) {
		const uint8_t *sh = data + shoff + (uint64_t)i * 64;
		uint64_t name = read_le(sh, 4);
		uint32_t type = read_le(sh + 4, 4);
		uint64_t flags = read_le(sh + 8, 8);
		uint64_t off = read_le(sh + 0x18, 8);
		uint64_t sec_size = read_le(sh + 0x20, 8);

		/* SHT_NOBITS has no bytes; SHF_COMPRESSED ones are zlib */
		if (type == 8 || (flags & 0x800) || sec_size == 0 ||
		    off > size || sec_size > size - off || name >= str_size)
			continue;
		for (j = 0; j < NR_DEBUG_SECTIONS; j++) {
			const char *want = debug_sections[j];
			size_t len = strlen(want) + 1;

			if (len <= str_size - name &&
			    !memcmp(data + str_off + name, want, len)) {
				out->sec[out->nr++] = (struct dwarf_section) {
					.name = want, .offset = off,
					.size = sec_size,
				};
				break;
			}
		}
		if (out->nr == NR_DEBUG_SECTIONS)
			break;
	}
	return out->nr > 0;
}

static const struct dwarf_section *section_named(const struct dwarf_sections *s,
						 const char *name)
{
	for (unsigned int i = 0; i < s->nr; i++)
		if (!strcmp(s->sec[i].name, name))
			return &s->sec[i];
	return NULL;
}

/* Reads a ULEB128 at *pos; false past end. Sets *len to its bytes. */
static bool read_uleb(const uint8_t *p, size_t end, size_t *pos,
		      uint64_t *value, size_t *len)
{
	size_t start = *pos;
	unsigned int shift = 0;

	*value = 0;
	while (*pos < end) {
		uint8_t b = p[(*pos)++];

		if (shift < 64)
			*value |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			*len = *pos - start;
			return true;
		}
	}
	return false;
}

/* Writes value as a ULEB128 of exactly len bytes, if it fits in them. */
static bool write_uleb_padded(uint8_t *p, size_t len, uint64_t value)
{
	if (len < 10 && value >> (7 * len))
		return false;
	for (size_t i = 0; i < len; i++) {
		p[i] = (value & 0x7f) | (i + 1 < len ? 0x80 : 0);
		value >>= 7;
	}
	return true;
}

/*
 * Valid forms by class: an edit picks a form of the same class half of
 * the time, so the DIE still reads but through another path of the
 * encoder (constant sizes, reference kinds, string indirections).
 * DW_FORM_implicit_const (0x21) is left out, never changed from or to:
 * it carries its value in .debug_abbrev, so it would move what follows.
 */
static const uint8_t form_classes[][8] = {
	{ 0x0b, 0x05, 0x06, 0x07, 0x0d, 0x0f, 0x1e },	/* data1..16, s/udata */
	{ 0x11, 0x12, 0x13, 0x14, 0x15, 0x10, 0x20 },	/* ref1..8, udata, addr, sig8 */
	{ 0x08, 0x0e, 0x1f, 0x1a, 0x25, 0x26, 0x27, 0x28 }, /* string, strp, strx* */
	{ 0x01, 0x1b, 0x29, 0x2a, 0x2b, 0x2c },		/* addr, addrx* */
	{ 0x0a, 0x03, 0x04, 0x09, 0x18 },		/* block1..4, exprloc */
	{ 0x0c, 0x19, 0x17, 0x22, 0x23 },		/* flag, sec_offset, lists */
};

#define NR_FORM_CLASSES (sizeof(form_classes) / sizeof(form_classes[0]))

static uint64_t new_form(struct mutation_rng *rng, uint64_t old)
{
	uint64_t form;

	if (old < 0x80 && rng_below(rng, 2)) {
		for (unsigned int c = 0; c < NR_FORM_CLASSES; c++) {
			const uint8_t *cls = form_classes[c];
			unsigned int n = 0;

			while (n < sizeof(form_classes[0]) && cls[n])
				n++;
			if (memchr(cls, (int)old, n))
				return cls[rng_below(rng, n)];
		}
	}
	/* any of DW_FORM_addr (0x01) .. DW_FORM_addrx4 (0x2c) but 0x02, 0x21 */
	do
		form = 1 + rng_below(rng, 0x2c);
	while (form == 0x02 || form == 0x21);
	return form;
}

/*
 * The attributes and tags encode/ asks for by name (DW_AT_type,
 * DW_TAG_structure_type, ..., DW_TAG_LLVM_annotation), so that three
 * code changes in four give the encoder something it handles.
 */
static const uint16_t encoder_attrs[] = {
	0x49, 0x3c, 0x0b, 0x3e, 0x01, 0x03, 0x3f, 0x1c, 0x38, 0x0d, 0x31,
	0x69, 0x02, 0x6b, 0x0c, 0x2f, 0x47, 0x22, 0x3b, 0x3a, 0x39, 0x37,
	0x34, 0x11, 0x12, 0x6e,
};

static const uint16_t encoder_tags[] = {
	0x01, 0x47, 0x24, 0x02, 0x11, 0x26, 0x04, 0x28, 0x05, 0x4b, 0x0b,
	0x0d, 0x39, 0x3c, 0x0f, 0x10, 0x37, 0x42, 0x13, 0x2e, 0x21, 0x15,
	0x16, 0x17, 0x18, 0x3b, 0x34, 0x35, 0x6000,
};

enum abbrev_field { ABBREV_TAG, ABBREV_CHILDREN, ABBREV_ATTR, ABBREV_FORM };

struct abbrev_site {
	size_t pos, len;	/* within .debug_abbrev */
	uint64_t value;
};

/*
 * Walks .debug_abbrev (code, tag, children, then attribute-form pairs up
 * to 0, 0; a 0 code ends one unit's table) and picks one field of kind
 * `field` at random (reservoir sampling). False if there is none, or the
 * table is malformed before the first one.
 */
static bool pick_abbrev_site(const uint8_t *p, size_t end,
			     enum abbrev_field field, struct mutation_rng *rng,
			     struct abbrev_site *site)
{
	unsigned int seen = 0;
	size_t pos = 0;

#define CONSIDER(kind, start, length, val)				\
	do {								\
		if (field == (kind) && rng_below(rng, ++seen) == 0)	\
			*site = (struct abbrev_site) {			\
				.pos = (start), .len = (length),	\
				.value = (val),				\
			};						\
	} while (0)

	while (pos < end) {
		uint64_t code, tag, attr, form, ignored;
		size_t len, attr_pos, attr_len;

		if (!read_uleb(p, end, &pos, &code, &len))
			break;
		if (code == 0)
			continue;
		if (!read_uleb(p, end, &pos, &tag, &len) || pos >= end)
			break;
		CONSIDER(ABBREV_TAG, pos - len, len, tag);
		CONSIDER(ABBREV_CHILDREN, pos, 1, p[pos]);
		pos++;
		for (;;) {
			attr_pos = pos;
			if (!read_uleb(p, end, &pos, &attr, &attr_len) ||
			    !read_uleb(p, end, &pos, &form, &len))
				goto out;
			if (attr == 0 && form == 0)
				break;
			CONSIDER(ABBREV_ATTR, attr_pos, attr_len, attr);
			if (form == 0x21) {	/* implicit_const's SLEB128 */
				if (!read_uleb(p, end, &pos, &ignored, &len))
					goto out;
				continue;
			}
			CONSIDER(ABBREV_FORM, pos - len, len, form);
		}
	}
out:
#undef CONSIDER
	return seen > 0;
}

/* One structured edit of .debug_abbrev; false if none was possible. */
static bool mutate_abbrev(uint8_t *p, size_t size, struct mutation_rng *rng)
{
	enum abbrev_field field = rng_below(rng, 4);
	struct abbrev_site site;
	uint64_t value;

	if (!pick_abbrev_site(p, size, field, rng, &site))
		return false;
	switch (field) {
	case ABBREV_TAG:
		value = rng_below(rng, 4) ? encoder_tags[rng_below(rng,
				sizeof(encoder_tags) / sizeof(encoder_tags[0]))]
					  : 1 + rng_below(rng, 0x4b);
		break;
	case ABBREV_CHILDREN:
		value = !site.value;
		break;
	case ABBREV_ATTR:
		value = rng_below(rng, 4) ? encoder_attrs[rng_below(rng,
				sizeof(encoder_attrs) / sizeof(encoder_attrs[0]))]
					  : 1 + rng_below(rng, 0x8c);
		break;
	default:
		value = new_form(rng, site.value);
		break;
	}
	return write_uleb_padded(p + site.pos, site.len, value);
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
			       unsigned int seed)
{
	const struct dwarf_section *sec, *abbrev;
	struct dwarf_sections secs;
	struct mutation_rng rng;

	rng_init(&rng, seed);
	if (!find_dwarf_sections(data, size, &secs))
		return LLVMFuzzerMutate(data, size, max_size);
	abbrev = section_named(&secs, ".debug_abbrev");
	if (abbrev && rng_below(&rng, 4) == 0 &&
	    mutate_abbrev(data + abbrev->offset, abbrev->size, &rng))
		return size;
	sec = &secs.sec[rng_below(&rng, secs.nr)];
	/*
	 * A mutation that shrinks (erases bytes) leaves the section's tail
	 * as it was; the section keeps its size either way.
	 */
	LLVMFuzzerMutate(data + sec->offset, sec->size, sec->size);
	return size;
}

/*
 * Cross-over: data1 with a run of bytes of one of its DWARF sections
 * replaced by bytes of the same section of data2, at a random place in
 * each. Both must be ELF files with that section; otherwise no output.
 */
size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1,
				 const uint8_t *data2, size_t size2,
				 uint8_t *out, size_t max_out_size,
				 unsigned int seed)
{
	struct dwarf_sections secs1, secs2;
	const struct dwarf_section *a, *b;
	struct mutation_rng rng;
	size_t len, from, to;

	rng_init(&rng, seed);
	if (size1 > max_out_size || !find_dwarf_sections(data1, size1, &secs1) ||
	    !find_dwarf_sections(data2, size2, &secs2))
		return 0;
	a = &secs1.sec[rng_below(&rng, secs1.nr)];
	b = section_named(&secs2, a->name);
	if (!b)
		return 0;
	len = 1 + rng_below(&rng, a->size < b->size ? a->size : b->size);
	from = b->offset + rng_below(&rng, b->size - len + 1);
	to = a->offset + rng_below(&rng, a->size - len + 1);
	memcpy(out, data1, size1);
	memcpy(out + to, data2 + from, len);
	return size1;
}
