/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The chunks' deduplicated BTFs joined into one, in chunk order, in
 * parallel (see merge.c).
 */
#ifndef BTFCANON_MERGE_H
#define BTFCANON_MERGE_H

#include <stdint.h>

struct btf;

/* A chunk's deduplicated BTF, and where it goes in the join. */
struct chunk_part {
	struct btf *btf;		/* owned */
	const void *raw;		/* btf's raw bytes, while merging */
	uint32_t raw_size;
	uint32_t nr_types;
	uint32_t first_id;		/* its type 1 in the join */
	uint32_t types_at, strs_at;	/* its sections' offsets in the join */
};

/*
 * Takes a finished chunk's BTF into part (merge_parts reads its raw bytes
 * and frees it, on the thread of its copy: libbpf frees its string index
 * entry by entry). Returns 0.
 */
int chunk_part_take(struct chunk_part *part, struct btf *btf);

/* Frees part's BTF; accepts a freed or zeroed part. */
void chunk_part_free(struct chunk_part *part);

/* Thread CPU seconds: the parts of the merge's critical path. */
struct merge_stats {
	double plan_sec;		/* the serial part: offsets, buffer */
	double raw_longest_sec;		/* the longest part's raw bytes (libbpf) */
	double strings_sec;		/* the string union's steps, longest tasks */
	double copy_longest_sec;	/* the longest copy of a part's types */
	double parse_sec;		/* libbpf's reading of the join */
	uint64_t strs_size;		/* bytes of strings in the join */
};

/*
 * Joins parts[0 .. n) in that order into one BTF, on up to jobs threads:
 * the types of part k follow those of part k-1, their ids and string
 * offsets moved accordingly; each distinct string once, at its first
 * occurrence in part order. Frees every part's BTF. Returns 0 and *out, or a negative
 * errno (-ENOMEM; -E2BIG past BTF's limits; -EINVAL for a part that is
 * not BTF as libbpf writes it).
 */
int merge_parts(struct chunk_part *parts, uint32_t n, unsigned int jobs,
		struct btf **out, struct merge_stats *stats);

/*
 * A chunk's pieces joined (encoder.c): the types of later[0 .. n), in
 * that order, appended to first, a BTF libbpf built from scratch (so its
 * dedup need not rebuild the strings). A later piece's ids below ext_base
 * are its own, moved past the types before it; from ext_base on they name
 * first's types (ext_base + id). Frees the later pieces. Returns 0, or a
 * negative errno (-EINVAL for a reference past first's types).
 */
int merge_pieces(struct btf *first, struct btf **later, uint32_t n,
		 uint32_t ext_base);

#endif
