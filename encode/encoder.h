/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The parallel DWARF -> BTF encoder.
 *
 * encode_file() reads the DWARF of an ELF file with N worker threads, each
 * with its own Dwarf handle and its own libbpf BTF, pulling compilation
 * units from one atomic cursor in no particular order. The workers' BTFs
 * are merged and deduplicated; the caller then canonicalizes the result
 * (canon_run with resolve_fwds), which is what makes the bytes independent
 * of thread count and schedule.
 */
#ifndef BTFCANON_ENCODER_H
#define BTFCANON_ENCODER_H

#include <stdbool.h>
#include <stdint.h>

#include "../canon/log.h"

struct btf;

/* What to emit; pahole's --btf_features names in brackets. */
struct encode_features {
	bool floats;		/* FLOAT kind [float]; else float types are skipped */
	bool decl_tags;		/* DECL_TAG from btf_decl_tag annotations [decl_tag] */
	bool type_tags;		/* TYPE_TAG from btf_type_tag annotations [type_tag] */
	bool enum64;		/* ENUM64 for 64-bit enums [enum64]; else ENUM */
};

struct encode_opts {
	unsigned int jobs;		/* worker threads, >= 1 */
	bool skip_rust;			/* --lang_exclude=rust */
	bool shuffle;			/* take CUs in a seeded random order (tests) */
	uint64_t shuffle_seed;
	uint32_t worker_dedup_types;	/* dedup a worker's BTF past this many types */
	struct encode_features features;
};

struct encode_stats {
	uint32_t cus;			/* compile units encoded */
	uint32_t cus_skipped;		/* excluded by language */
	uint64_t dies;			/* DIEs visited */
	uint64_t types_encoded;		/* types emitted before any dedup */
	uint32_t worker_dedups;		/* intermediate dedup passes */
	uint32_t types_merged;		/* types after merging the workers' BTFs */
	uint32_t types_deduped;		/* types after the final btf__dedup */
	double encode_sec, encode_cpu_sec;	/* load + encode, all workers */
	double merge_sec, dedup_sec;
};

/* Sets the defaults: jobs = online CPUs, every feature on. */
void encode_opts_init(struct encode_opts *opts);

/*
 * Encodes path's DWARF. Returns 0 and a deduplicated libbpf BTF in *out
 * (free with btf__free), or a negative errno after one message naming the
 * file (and the CU and DIE where it applies).
 */
int encode_file(const char *path, const struct encode_opts *opts,
		struct btf **out, struct encode_stats *stats,
		const struct bc_log *log);

/* The prefix forward declarations carry while in the encoder; see encoder.c. */
#define ENCODE_FWD_MARK '\x7f'

#endif
