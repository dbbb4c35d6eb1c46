// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdlib.h>

#include "addr_map.h"

int addr_map_grow(struct addr_map *m)
{
	uint32_t cap = m->cap ? m->cap * 2 : 1024, i, n = 0;
	struct addr_map_entry *slots = calloc(cap, sizeof(*slots));
	/* as many as slots: a caller may put a few past the half it reserved */
	uint32_t *filled = malloc(cap * sizeof(*filled));

	if (!slots || !filled) {
		free(slots);
		free(filled);
		return -ENOMEM;
	}
	for (i = 0; i < m->cap; i++) {
		uint32_t j;

		if (!m->slots[i].key)
			continue;
		for (j = addr_hash(m->slots[i].key) & (cap - 1); slots[j].key;
		     j = (j + 1) & (cap - 1))
			;
		slots[j] = m->slots[i];
		filled[n++] = j;
	}
	free(m->slots);
	free(m->filled);
	m->slots = slots;
	m->filled = filled;
	m->cap = cap;
	return 0;
}

void addr_map_deinit(struct addr_map *m)
{
	free(m->slots);
	free(m->filled);
	m->slots = NULL;
	m->filled = NULL;
	m->cap = m->used = 0;
}
