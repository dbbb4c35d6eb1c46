/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The parallel DWARF -> BTF encoder.
 *
 * encode_file() reads the DWARF of an ELF file with N worker threads, each
 * with its own Dwarf handle, pulling chunks of compilation units from one
 * atomic cursor in no particular order; each chunk is encoded into its own
 * libbpf BTF and deduplicated. The chunks' BTFs are merged in chunk order
 * and deduplicated, so the result's content does not depend on thread
 * count or schedule; for split BTF (opts.base) the result is then mapped
 * onto the base once (split.c). The caller canonicalizes it (canon_run,
 * with the result's omit map), which fixes the ids and writes the bytes.
 */
#ifndef BTFCANON_ENCODER_H
#define BTFCANON_ENCODER_H

#include <stdbool.h>
#include <stdint.h>

#include "../canon/log.h"
#include "features.h"
#include "langs.h"
#include "merge.h"
#include "select.h"
#include "split.h"

struct btf;
struct bc_btf;

/* How multi-dimensional arrays are written. */
enum encode_arrays {
	/*
	 * Flat, as pahole writes them; but nested for split BTF over a base
	 * that nests them (one made with --nested-arrays), so that the
	 * module's types match the base's and are not repeated.
	 */
	ENCODE_ARRAYS_AUTO,
	ENCODE_ARRAYS_FLAT,	/* --flat-arrays: flat, whatever the base */
	ENCODE_ARRAYS_NESTED,	/* --nested-arrays: as in C, whatever the base */
};

/*
 * How the units are cut into chunks (cut_chunks in encoder.c), a function
 * of the file alone, so that the output is a function of the input alone
 * (see encoder.c for why chunks exist). At least as many chunks as
 * ENCODE_CHUNKS chunks of ENCODE_CHUNK_CUS_MIN to ENCODE_CHUNK_CUS_MAX
 * units make, and more for a big file: one per ENCODE_CHUNK_BYTES of
 * DWARF (but at least ENCODE_CHUNK_CUS_MIN units each); the cuts then
 * fall at equal shares of the bytes. A small input (most modules have
 * one to ten units) is one chunk: a chunk of one unit repeats every type
 * its headers declare, which the type cache would share within a chunk,
 * and on Debian's nfsv4.ko (25 units) chunks of 8 take 0.27 s of CPU
 * where chunks of 2 take 0.37 s. Smaller chunks cost CPU for the same
 * reason (vmlinux: 521k types encoded in 16 chunks, 700k in 52), and buy
 * a shorter longest chunk: the critical path.
 *
 * A big file (ENCODE_BIG_BYTES of DWARF or more: a vmlinux; the biggest
 * module has 20 MiB) is cut by bytes alone, one chunk per
 * ENCODE_BIG_CHUNK_BYTES (6.12.117: 9 chunks of 22 MiB), and its chunks
 * are encoded in pieces (below), which keep the workers busy: fewer,
 * bigger chunks hand the final dedup, the longest serial step, less to
 * do (6.12.117: 171k types instead of 205k).
 *
 * ENCODE_GROUP_CHUNKS consecutive chunks make a group, merged and
 * deduplicated alone before the final merge and dedup (the reduction's
 * first level); with fewer chunks than that there is no such level.
 */
/*
 * A chunk of more than ENCODE_PIECE_BYTES of DWARF is encoded in pieces:
 * consecutive units, cut at equal shares of the chunk's bytes, as many
 * as it takes to keep each within ENCODE_PIECE_BYTES. Each piece is
 * encoded into a BTF of its own, any worker taking any
 * piece; a chunk's later pieces start from the type cache its first piece
 * ended with (encoder.c), and the chunk's pieces are then joined in piece
 * order and deduplicated as one chunk. The first piece is shorter, its
 * units up to ENCODE_FIRST_PIECE_BYTES: the later pieces wait for it, and
 * it runs with a cold cache. Pieces are what keeps 16 or more threads
 * busy; the chunks above them keep the dedup's input small. A function of
 * the file alone, like the chunks.
 */
#define ENCODE_PIECE_BYTES	(4u << 20)
#define ENCODE_FIRST_PIECE_BYTES	(2u << 20)
#define ENCODE_CHUNKS		16
#define ENCODE_CHUNK_CUS_MIN	8
#define ENCODE_CHUNK_CUS_MAX	256
#define ENCODE_CHUNK_BYTES	(16u << 20)
#define ENCODE_BIG_BYTES	(64ull << 20)
#define ENCODE_BIG_CHUNK_BYTES	(24ull << 20)
#define ENCODE_GROUP_CHUNKS	16

struct encode_opts {
	unsigned int jobs;		/* worker threads, >= 1 */
	struct encode_langs langs;	/* units by language (--lang_exclude=rust) */
	bool shuffle;			/* take CUs in a seeded random order (tests) */
	uint64_t shuffle_seed;
	uint32_t chunk_cus;		/* units per chunk, 0: by ENCODE_CHUNKS */
	uint32_t piece_cus;		/* units per piece (tests), 0: by ENCODE_PIECE_BYTES */
	uint32_t group_chunks;		/* chunks per group (tests), 0: ENCODE_GROUP_CHUNKS */
	bool no_type_cache;		/* encode every unit's copy of a type in full */
	struct encode_features features;
	enum encode_arrays arrays;
	/* split BTF over this (a module over vmlinux), parsed, standalone */
	const struct bc_btf *base;
};

struct encode_stats {
	uint32_t cus;			/* compile units encoded */
	uint32_t cus_skipped;		/* excluded by language */
	uint64_t dies;			/* DIEs visited */
	uint64_t types_encoded;		/* types emitted before any dedup */
	uint32_t chunks;		/* chunks of units, each deduplicated alone */
	uint32_t pieces;		/* pieces of chunks, each encoded alone */
	uint32_t groups;		/* groups of chunks, each deduplicated alone (0: none) */
	uint64_t types_grouped;		/* sum of the groups' types after their dedup */
	uint64_t types_chunked;		/* sum of the chunks' types after their dedup */
	uint64_t cache_hits;		/* type DIEs taken from the chunk's type cache */
	uint32_t types_deduped;		/* types after the final btf__dedup */
	double encode_sec, encode_cpu_sec;	/* load + encode, all workers */
	double workers_start_sec;	/* of encode_sec, before the workers started */
	double workers_spread_sec;	/* from the first worker's stop to the last's */
	double merge_sec, dedup_sec;
	struct merge_stats merge;	/* the parts of merge_sec */
	/*
	 * The critical path of encode_file(): how long it would take on
	 * unlimited cores, as the sum of its serial steps and of the
	 * longest task of each parallel step, all in thread CPU seconds,
	 * so that it depends neither on -j nor on the machine's other
	 * load.
	 */
	struct encode_critical {
		double start;		/* open, list units, symbols, workers' set-up */
		double chunk;		/* the longest chunk: its longest piece, then
					 * the join of its pieces and its dedup */
		/* of the longest chunk: its first piece, its longest later
		 * piece, its join and dedup */
		double first_piece, later_piece, join;
		double groups;		/* the longest group: merge and dedup */
		double merge;		/* groups + offsets + strings + copy + libbpf's reading */
		double dedup;		/* final dedup, or the selection's sort beside it */
		double select;		/* function and variable decisions */
		double attach;		/* split BTF: onto the base */
		double total;
	} critical;
	struct select_stats select;	/* functions and variables */
	double select_sec;
	struct split_attach_stats attach;	/* split BTF: types onto the base */
	double attach_sec;
};

/* Sets the defaults: jobs = online CPUs, every feature on. */
void encode_opts_init(struct encode_opts *opts);

/*
 * What encode_file() hands on to canon: the deduplicated BTF with the
 * chosen FUNCs, VARs and DATASECs added (a libbpf BTF, or for split BTF
 * the raw bytes over opts.base: no libbpf copy of the base is made), and
 * the types canon's rebuild leaves out of it (canon_opts.omit; NULL when
 * there are none), and the selection's decisions on functions (pahole
 * -V's lines are made of them).
 */
struct encode_result {
	struct btf *btf;		/* base BTF; NULL for split BTF */
	void *split_raw;		/* split BTF over opts.base; else NULL */
	uint32_t split_size;
	uint8_t *omit;			/* [own types], by id - first own id */
	struct func_decisions decisions;	/* functions left out or differing */
};

/*
 * The result's raw BTF (btf's, or split_raw), *size bytes, for
 * bc_btf_parse() (over opts.base for split BTF). NULL when out of memory.
 */
const void *encode_result_raw(const struct encode_result *res, uint32_t *size);

/* Frees what encode_file() put in res; accepts a zeroed res. */
void encode_result_deinit(struct encode_result *res);

/*
 * Encodes path's DWARF. Returns 0 and fills *out, or a negative errno
 * after one message naming the file (and the CU and DIE where it
 * applies), with *out zeroed.
 */
int encode_file(const char *path, const struct encode_opts *opts,
		struct encode_result *out, struct encode_stats *stats,
		const struct bc_log *log);

#endif
