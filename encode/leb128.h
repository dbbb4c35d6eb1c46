/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * DWARF's unsigned LEB128, read in place from section bytes (die_reader.c,
 * locs.c).
 */
#ifndef BTFCANON_LEB128_H
#define BTFCANON_LEB128_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Moves *p past an unsigned LEB128 number of at most ten bytes (64 bits),
 * into *v. False when it runs past end or is longer: callers leave such
 * bytes to libdw.
 */
static inline bool leb128_read(const unsigned char **p, const unsigned char *end,
			       uint64_t *v)
{
	unsigned int shift;

	*v = 0;
	for (shift = 0; *p < end && shift < 64; shift += 7) {
		unsigned char byte = *(*p)++;

		*v |= (uint64_t)(byte & 0x7f) << shift;
		if (!(byte & 0x80))
			return true;
	}
	return false;
}

#endif
