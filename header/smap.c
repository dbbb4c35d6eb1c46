// SPDX-License-Identifier: GPL-2.0-only
/*
 * The name tables of `btfcanon header`'s passes: a string -> u32 map.
 *
 * Problem: a pass maps 300k names per architecture (types by kind and
 * name, C identifiers, variants, kfuncs) and walks some maps' keys in
 * slot order. Invariant: the slot order is a function of the keys put
 * and their order (the same hash, probing and growth at every run).
 * Cost: one hash per lookup, strings compared only when hashes agree.
 *
 * Keys are copied into chunks of the map's own (one free per chunk, not
 * per key: the maps hold 300k keys per architecture), and each slot keeps
 * its key's hash, so that a probe compares strings only when the hashes
 * agree. Slots are those of the plain table (the same hash, probing and
 * growth), so walking keys[] gives the same order as before.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "smap.h"


#define SMAP_CHUNK 65536

uint64_t hdr_fnv64(const char *s, size_t n)
{
	uint64_t h = 14695981039346656037ULL;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ULL;
	}
	return h;
}

void hdr_smap_free(struct smap *m)
{
	uint32_t i;

	for (i = 0; i < m->nr_chunks; i++)
		free(m->chunks[i]);
	free(m->chunks);
	free(m->keys);
	free(m->vals);
	free(m->hashes);
	memset(m, 0, sizeof(*m));
}

/* The slot of key (hash h): its own, or the empty one where it goes. */
static uint32_t smap_slot(const struct smap *m, const char *key, uint64_t h)
{
	uint32_t i = h & (m->cap - 1);

	while (m->keys[i] && (m->hashes[i] != (uint32_t)h ||
			      strcmp(m->keys[i], key)))
		i = (i + 1) & (m->cap - 1);
	return i;
}

bool hdr_smap_get(const struct smap *m, const char *key, uint32_t *val)
{
	uint32_t i;

	if (!m->cap)
		return false;
	i = smap_slot(m, key, hdr_fnv64(key, strlen(key)));
	if (!m->keys[i])
		return false;
	*val = m->vals[i];
	return true;
}

static int smap_grow(struct smap *m)
{
	struct smap n = { .cap = m->cap ? m->cap * 2 : 1024 };
	uint32_t i;

	if (m->cap >= 1u << 31)
		return -ENOMEM;

	n.keys = calloc(n.cap, sizeof(*n.keys));
	n.vals = calloc(n.cap, sizeof(*n.vals));
	n.hashes = calloc(n.cap, sizeof(*n.hashes));
	if (!n.keys || !n.vals || !n.hashes) {
		free(n.keys);
		free(n.vals);
		free(n.hashes);
		return -ENOMEM;
	}
	for (i = 0; i < m->cap; i++) {
		uint32_t j;

		if (!m->keys[i])
			continue;
		/* a slot is the hash's low bits: the kept 32 are enough */
		j = m->hashes[i] & (n.cap - 1);
		while (n.keys[j])
			j = (j + 1) & (n.cap - 1);
		n.keys[j] = m->keys[i];
		n.vals[j] = m->vals[i];
		n.hashes[j] = m->hashes[i];
	}
	free(m->keys);
	free(m->vals);
	free(m->hashes);
	m->keys = n.keys;
	m->vals = n.vals;
	m->hashes = n.hashes;
	m->cap = n.cap;
	return 0;
}

/* A copy of key (len bytes and a NUL) in the map's chunks, or NULL. */
static char *smap_store(struct smap *m, const char *key, size_t len)
{
	char *at;

	if (len + 1 > SMAP_CHUNK) {
		/* a chunk of its own, before the current one */
		char **grown = realloc(m->chunks, (m->nr_chunks + 1) * sizeof(*grown));

		if (!grown)
			return NULL;
		m->chunks = grown;
		at = malloc(len + 1);
		if (!at)
			return NULL;
		if (m->nr_chunks) {
			m->chunks[m->nr_chunks] = m->chunks[m->nr_chunks - 1];
			m->chunks[m->nr_chunks - 1] = at;
		} else {
			m->chunks[0] = at;
			m->used = SMAP_CHUNK;	/* no room: the next key opens one */
		}
		m->nr_chunks++;
		memcpy(at, key, len + 1);
		return at;
	}
	if (!m->nr_chunks || m->used + len + 1 > SMAP_CHUNK) {
		char **grown = realloc(m->chunks, (m->nr_chunks + 1) * sizeof(*grown));

		if (!grown)
			return NULL;
		m->chunks = grown;
		m->chunks[m->nr_chunks] = malloc(SMAP_CHUNK);
		if (!m->chunks[m->nr_chunks])
			return NULL;
		m->nr_chunks++;
		m->used = 0;
	}
	at = m->chunks[m->nr_chunks - 1] + m->used;
	memcpy(at, key, len + 1);
	m->used += len + 1;
	return at;
}

/* Room for n keys without growing (for maps never walked: it moves slots). */
int hdr_smap_reserve(struct smap *m, uint32_t n)
{
	while (2 * (uint64_t)n > m->cap) {
		if (smap_grow(m))
			return -ENOMEM;
	}
	return 0;
}

/* Sets key to val; an existing key keeps its value unless replace. */
int hdr_smap_put(struct smap *m, const char *key, uint32_t val, bool replace)
{
	size_t len = strlen(key);
	uint64_t h = hdr_fnv64(key, len);
	uint32_t i;

	if (2 * (m->nr + 1) > m->cap && smap_grow(m))
		return -ENOMEM;
	i = smap_slot(m, key, h);
	if (m->keys[i]) {
		if (replace)
			m->vals[i] = val;
		return 0;
	}
	m->keys[i] = smap_store(m, key, len);
	if (!m->keys[i])
		return -ENOMEM;
	m->hashes[i] = (uint32_t)h;
	m->vals[i] = val;
	m->nr++;
	return 0;
}
