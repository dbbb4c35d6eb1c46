/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The string section of a rebuilt base BTF: every input string offset the
 * rebuild meets is mapped to an output offset, each distinct string stored
 * once, in order of first use, the empty string at 0.
 *
 * A string is met many times (a member name, a parameter name used all
 * over) and placed once, so most lookups are answered by the input offset
 * alone: the input's string starts are numbered (a bitmap of starts with a
 * running count per 64 bytes), and the output offset of each input string
 * is kept by its number. What a first meeting does depends on the mode:
 *
 *  - not by content (the first try): strings of different numbers are
 *    taken as different texts, so a new number is simply appended, and
 *    its hash noted; bc_strmap_check_unique() then confirms that no two
 *    appended strings are the same text (hashes bucketed, neighbours
 *    compared). Producers (libbpf, pahole, the kernel) write each string
 *    once, so this is the usual outcome. An offset inside a longer string
 *    has no number and ends the try (-EAGAIN);
 *  - by content: a table keyed by the bytes (hashes kept, so growing never
 *    reads a string again) finds a string met before under another offset
 *    (the same text twice in the input, a name inside a longer string).
 *
 * Invariant: where both modes complete, they write the same bytes. Cost:
 * one pass over the input's strings to number them; per name met, a bit
 * count and an array read; per string placed, a copy and a hash (first
 * try) or a table probe (by content). Memory: 0.25 bytes per input byte
 * for the numbering, 4 bytes per input string for the kept offsets, 8 per
 * placed string for the hashes (or per slot of the content table), against
 * 4 bytes per input byte for a map indexed by offset. The output strings
 * are written into a buffer that starts with room the caller reserved (the
 * header and the types), so the rebuilt blob is assembled without another
 * copy.
 */
#ifndef BTFCANON_STRMAP_H
#define BTFCANON_STRMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strset.h"

struct bc_strmap_block {
	uint64_t starts;	/* bit i: an input string starts at 64k + i */
	uint32_t before;	/* input strings starting in earlier blocks */
	uint32_t pad;
};

struct bc_strmap {
	const char *in;			/* the input's string section */
	uint32_t in_len;
	struct bc_strmap_block *blocks;	/* [in_len / 64 + 1] */
	uint32_t nr_strings;		/* numbered input strings */
	uint32_t *placed;		/* [input string number]: out offset + 1 */
	bool by_content;		/* else trusted distinct by number */
	uint64_t *fresh;		/* not by_content: hash << 32 | out offset */
	uint32_t nr_fresh;		/* of every string placed */
	struct bc_strset_slot *slots;	/* by content; power of two */
	uint32_t nr_slots, nr_used;
	uint8_t *buf;			/* reserved room, then the strings */
	size_t reserved;		/* bytes before the strings */
	uint32_t len;			/* output string bytes */
	size_t cap;			/* bytes of buf */
};

/*
 * in/in_len: the input's string section (NUL-terminated, in[0] == 0).
 * reserve: bytes to leave at the start of the buffer for the caller.
 * by_content: look every new string up by its bytes; false: take input
 * strings of different numbers as different (a string met under an
 * offset inside another is then -EAGAIN), and confirm it at the end with
 * bc_strmap_check_unique(). Returns 0 or -ENOMEM.
 */
int bc_strmap_init(struct bc_strmap *m, const char *in, uint32_t in_len,
		   size_t reserve, bool by_content);

/* Frees everything, the buffer too unless taken; accepts a zeroed map. */
void bc_strmap_deinit(struct bc_strmap *m);

/*
 * The output offset of the input string at in_off (< in_len), placing it
 * when it is new. May move m->buf. Returns the offset, -ENOMEM, or
 * -EAGAIN (not by_content: in_off lies inside another string).
 */
int64_t bc_strmap_map(struct bc_strmap *m, uint32_t in_off);

/*
 * After the last bc_strmap_map() of a map not by_content: 0 when the
 * output strings are all different (what a map by content would have
 * written, byte for byte), -EAGAIN when two are the same text (map again
 * by content), or -ENOMEM.
 */
int bc_strmap_check_unique(struct bc_strmap *m);

#endif
