// SPDX-License-Identifier: GPL-2.0-only
/*
 * Merging split BTFs. A module's chunks are each split over the base
 * (vmlinux), so their ids below the base's end name base types and the
 * rest their own. Appending chunk B to chunk A: every own type of B is
 * copied (libbpf's btf__add_type re-interns its strings), then its type
 * ids are rewritten: base ids as they are, own ids shifted by the number
 * of A's own types. The word table of canon/btf_kinds.h says which words
 * are ids. Linear in B.
 *
 *	base: [1..100]; A own [101..150]; B own [101..120], B[105] -> [7], [103]
 *	after: [151..170]; [155] -> [7], [153]
 */
#include <errno.h>
#include <bpf/btf.h>

#include "../canon/btf_kinds.h"
#include "split.h"

int split_btf_append(struct btf *dst, const struct btf *src)
{
	const struct btf *base = btf__base_btf(src);
	uint32_t base_end = base ? btf__type_cnt(base) : 1;
	uint32_t shift = btf__type_cnt(dst) - base_end;
	uint32_t id, end = btf__type_cnt(src);

	for (id = base_end; id < end; id++) {
		const struct btf_type *t = btf__type_by_id(src, id);
		uint32_t kind = bc_type_kind(t), words, j, *w;
		int got;

		if (!bc_kind_valid(kind))
			return -EINVAL;
		got = btf__add_type(dst, src, t);
		if (got < 0)
			return got;
		/* the copy is dst's own, writable memory */
		w = (uint32_t *)btf__type_by_id(dst, got);
		words = bc_type_words(t);
		for (j = 2; j < words; j++)
			if (bc_word_class(kind, j) == BC_WORD_REF && w[j] >= base_end)
				w[j] += shift;
	}
	return 0;
}
