/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The canonicalization pass: a total order on a BTF type graph that depends
 * on the graph only, merging of structurally identical types, and the final
 * rebuild. See canon.c for the algorithm.
 */
#ifndef BTFCANON_CANON_H
#define BTFCANON_CANON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "btf_data.h"
#include "log.h"
#include "order.h"

struct canon_opts {
	enum bc_order order;
	/*
	 * Replace each forward declaration by the complete type of the same
	 * name and family when there is exactly one (see canon.c); the FWD is
	 * dropped (FWDs in cycles too: the largest consistent set of names,
	 * see canon.c). Off for sort (content is kept as given); on for encode.
	 */
	bool resolve_fwds;
	/*
	 * Write the 2026 header (32 bytes) and this kind layout section of
	 * nr_layout entries between the types and the strings, as pahole
	 * does; NULL: the 24-byte header and no section.
	 */
	const struct bc_btf_layout *layout;
	uint32_t nr_layout;
	/*
	 * [local types] nonzero for a type to leave out of the output, or
	 * NULL: helper types another pass built and needs no more (the
	 * encoder's candidate markers and unchosen prototypes). Left out
	 * types take no part in the order; no kept type may refer to one
	 * (-EINVAL otherwise). This is how passes hand their types to the
	 * one BTF writer, the rebuild, instead of writing BTF themselves.
	 */
	const uint8_t *omit;
	/*
	 * Base BTF only: the output keeps the input's string section as
	 * read, its name words the input's offsets (a name whose text is
	 * empty written 0), instead of the strings laid out anew in order
	 * of first use. The types, their order and their names' text are
	 * those of the canonical output, not its bytes: for a reader that
	 * takes names by their text only (header), which skips the string
	 * rebuild, the costliest part of the rebuild.
	 */
	bool keep_strings;
	/*
	 * Threads for the parallel steps (0 or 1: the caller's only), and
	 * the fewest types a parallel task gets (0: canon.c's default; tests
	 * set it small to cut small graphs into many tasks). Neither changes
	 * a byte of the output.
	 */
	unsigned int jobs;
	uint32_t grain;
};

struct canon_stats {
	uint32_t types_in;		/* not counting the omitted */
	uint32_t types_out;
	uint32_t merged;		/* types_in - types_out */
	uint32_t refine_rounds;		/* rounds of reference refinement */
	uint32_t identity_splits;	/* VAR classes split by their DATASEC */
	uint32_t fwds_resolved;		/* FWDs replaced by their complete type */
	uint32_t fwd_rounds;		/* partitions with FWDs resolved (passes) */
	double rank_sec;		/* initial sort by local key */
	double refine_sec;		/* refinement to the fixpoint */
	double fwd_sec;			/* FWD names and checks (not the partitions) */
	double rebuild_sec;		/* id remap, strings, layout */
	double cpu_sec;			/* the calling thread's CPU in canon_run */
	double critical_sec;		/* CPU on unlimited cores: the serial
					 * steps plus each parallel step's
					 * longest task */
};

struct canon_result {
	void *raw;			/* the canonical BTF blob (malloc'd) */
	size_t raw_size;
	uint32_t *id_map;		/* [local types]: input local index -> output
					 * id; 0 for an omitted type */
	struct canon_stats stats;
};

/*
 * Canonicalizes in (base BTF, or split BTF whose base is base BTF; base ids
 * keep their values). Returns 0 and fills res, or a negative errno.
 */
int canon_run(const struct bc_btf *in, const struct canon_opts *opts,
	      struct canon_result *res, const struct bc_log *log);

/*
 * canon_run() for a caller that wants only the output bytes: *raw (the
 * caller's to free) and *size.
 */
int canon_run_raw(const struct bc_btf *in, const struct canon_opts *opts,
		  void **raw, size_t *size, const struct bc_log *log);

/* Frees what canon_run() put in res; accepts a zeroed res. */
void canon_result_deinit(struct canon_result *res);

#endif
