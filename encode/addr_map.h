/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A map from an address (a DIE's bytes, a libdw unit) to a 64-bit value:
 * open addressing, key and value in one slot (one cache miss per probe),
 * at most half full. It keeps the list of the slots in use, so emptying
 * it costs what filling it did, not its size: the encoder's per-unit maps
 * (DIE -> type id, DIE -> fingerprint) are emptied 2,401 times on a
 * vmlinux. The probes are inline: they are on the encoder's hot path.
 */
#ifndef BTFCANON_ADDR_MAP_H
#define BTFCANON_ADDR_MAP_H

#include <stdint.h>

struct addr_map_entry {
	const void *key;		/* NULL = empty */
	uint64_t val;
};

struct addr_map {
	struct addr_map_entry *slots;
	uint32_t cap, used;
	uint32_t *filled;		/* the slots in use, used of them */
};

/* Doubles the table (the first one has 1,024 slots); 0 or -ENOMEM. */
int addr_map_grow(struct addr_map *m);
void addr_map_deinit(struct addr_map *m);

static inline uint32_t addr_hash(const void *key)
{
	uint64_t v = (uintptr_t)key;

	v ^= v >> 33;
	v *= 0xff51afd7ed558ccdULL;
	v ^= v >> 33;
	return (uint32_t)v;
}

/* Room for one more entry: call before addr_map_slot() for a put. */
static inline int addr_map_reserve(struct addr_map *m)
{
	return (m->used + 1) * 2 > m->cap ? addr_map_grow(m) : 0;
}

/* The slot of key, or the empty slot where it goes (m has slots). */
static inline uint32_t addr_map_slot(const struct addr_map *m, const void *key)
{
	uint32_t j;

	for (j = addr_hash(key) & (m->cap - 1);
	     m->slots[j].key && m->slots[j].key != key;
	     j = (j + 1) & (m->cap - 1))
		;
	return j;
}

/* Fills the empty slot addr_map_slot() found after a reserve. */
static inline void addr_map_put(struct addr_map *m, uint32_t slot,
				const void *key, uint64_t val)
{
	m->slots[slot].key = key;
	m->slots[slot].val = val;
	m->filled[m->used++] = slot;
}

/* Empties the map through the list of slots in use. */
static inline void addr_map_clear(struct addr_map *m)
{
	uint32_t i;

	for (i = 0; i < m->used; i++)
		m->slots[m->filled[i]].key = NULL;
	m->used = 0;
}

#endif
