/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Encoding one compilation unit's types straight from libdw into a libbpf
 * BTF. One cu_encoder per worker thread; it keeps its BTF across CUs.
 */
#ifndef BTFCANON_CU_ENCODER_H
#define BTFCANON_CU_ENCODER_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stdint.h>

#include "addr_map.h"
#include "die_reader.h"
#include "features.h"

struct btf;
struct type_cache;
struct type_cache_entry;
struct name_hash;
struct cu_queue_entry;
struct pending_decl_tag;
struct cand_ctx;
struct cand_list;

struct cu_encoder {
	struct btf *btf;			/* the chunk's BTF (not owned) */
	const struct encode_features *features;
	const struct bc_log *log;
	const char *path;			/* the input, for messages */
	struct addr_map map;			/* DIE -> type id, within one unit */
	struct type_cache *cache;		/* fingerprint -> type id, same */
	struct die_reader reader;		/* tag, attributes, children */
	struct name_hash *names;		/* names' hashes by string offset */
	bool use_cache;				/* set by the driver */
	uint64_t cache_hits;			/* definitions taken from it */
	struct cu_queue_entry *queue;		/* reserved, not yet emitted */
	uint32_t q_head, q_len, q_cap;
	struct pending_decl_tag *tags;		/* emitted after the queue drains */
	uint32_t nr_tags, tags_cap;
	uint32_t next_id;			/* next id to reserve */
	uint32_t array_index_id;		/* arrays' index int, 0 until needed */
	uint32_t stand_in_depth;		/* type_id_of()'s recursion, see there */
	Dwarf_Off cu_off;			/* the CU being encoded */
	uint64_t dies;				/* DIEs visited */
	uint64_t types;				/* types emitted */
	/* function/variable candidates of the unit's top level (funcs.h) */
	const struct cand_ctx *cand_ctx;	/* NULL: none wanted */
	struct cand_list *cands;		/* the chunk's, set by the driver */
};

int cu_encoder_init(struct cu_encoder *e, const char *path,
		    const struct encode_features *features,
		    const struct bc_log *log);
void cu_encoder_deinit(struct cu_encoder *e);

/*
 * Encodes every type of the unit whose DIE is cu_die. Returns 0 or a
 * negative errno after a message naming the file, CU and DIE.
 */
int cu_encoder_encode(struct cu_encoder *e, Dwarf_Die *cu_die);

/*
 * Makes btf (owned by the caller) the BTF the next units are appended to,
 * and forgets the DIE map, whose ids belonged to the previous BTF.
 */
/*
 * The id of a type DIE, or of a subprogram's prototype as a FUNC_PROTO,
 * in the current BTF, encoding it and whatever it needs now (the walk
 * does this for the function and variable candidates). Returns 0 or a
 * negative errno after a message.
 */
int cu_encoder_type_id(struct cu_encoder *e, Dwarf_Die *die, uint32_t *id);
int cu_encoder_proto_id(struct cu_encoder *e, Dwarf_Die *fn, uint32_t *id);
/*
 * The FUNC_PROTO of fn's own parameter list (a clone's code: its formal
 * parameters in its order, names and types through their abstract
 * origins), but the i-th formal parameter where bit i of drop is set.
 * Always a new type (dedup merges copies). Returns 0 or a negative errno.
 */
int cu_encoder_true_proto_id(struct cu_encoder *e, Dwarf_Die *fn,
			     uint64_t drop, uint32_t *id);

void cu_encoder_start(struct cu_encoder *e, struct btf *btf);

/*
 * A chunk's later pieces start from the type cache its first piece ended
 * with (encoder.c): a read-only copy, whose ids name the first piece's
 * types as CU_SEED_ID + id. A piece started from it takes those types
 * without encoding them again, and refers to them by these ids, which
 * the chunk's join (merge.c) moves onto the first piece's.
 */
#define CU_SEED_ID	0x40000000u

struct type_cache_seed {
	struct type_cache_entry *slots;	/* [cap] */
	uint32_t cap, used;
};

/* Copies e's type cache into seed. Returns 0 or -ENOMEM. */
int cu_encoder_seed_take(const struct cu_encoder *e, struct type_cache_seed *seed);

/* Frees seed's copy; accepts a zeroed seed. */
void cu_encoder_seed_free(struct type_cache_seed *seed);

/*
 * cu_encoder_start(), with the type cache a copy of seed (NULL: empty).
 * Returns 0 or -ENOMEM.
 */
int cu_encoder_start_seeded(struct cu_encoder *e, struct btf *btf,
			    const struct type_cache_seed *seed);

#endif
