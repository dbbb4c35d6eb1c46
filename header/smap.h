/* SPDX-License-Identifier: GPL-2.0-only */
/* smap.c: a string -> u32 map, the name tables of header's passes (header/, internal). */
#ifndef BTFCANON_HEADER_SMAP_H
#define BTFCANON_HEADER_SMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct smap {
	char **keys;
	uint32_t *vals;
	uint32_t *hashes;
	uint32_t cap, nr;
	char **chunks;			/* the keys' storage */
	uint32_t nr_chunks;
	size_t used;			/* in the last chunk */
};

uint64_t hdr_fnv64(const char *s, size_t n);
void hdr_smap_free(struct smap *m);
bool hdr_smap_get(const struct smap *m, const char *key, uint32_t *val);
int hdr_smap_reserve(struct smap *m, uint32_t n);
/* Sets key to val; an existing key keeps its value unless replace. */
int hdr_smap_put(struct smap *m, const char *key, uint32_t val, bool replace);

#endif
