/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Text views of a BTF: the listing (`dump -f raw`, the format of
 * `bpftool btf dump file X`), the same as JSON (`dump -f json`, the fields
 * of `bpftool -j`), and a C header ordered for diffs (`dump -f c`).
 *
 * The listing and JSON show the input's own types with their ids; given
 * canonical input (bc_input_load with canonicalize) the ids, and so the
 * whole text, depend on the content only.
 */
#ifndef BTFCANON_DUMP_H
#define BTFCANON_DUMP_H

#include "../canon/btf_data.h"
#include "../canon/log.h"
#include "../canon/text.h"

struct btf;

/* Appends the listing of btf's own types to out. Returns 0 or -ENOMEM. */
int bc_dump_raw(const struct bc_btf *btf, struct bc_text *out);

/* Appends {"types":[...]} with one type per line. Returns 0 or -ENOMEM. */
int bc_dump_json(const struct bc_btf *btf, struct bc_text *out);

/*
 * Appends a C header for btf, whose libbpf view (same ids) is lbtf; see
 * dump_c.c for the order. Returns 0 or a negative errno after a message.
 */
int bc_dump_c(const struct bc_btf *btf, const struct btf *lbtf,
	      struct bc_text *out, const struct bc_log *log);

struct bc_dump_c_opts {
	/*
	 * kfuncs written without __weak ("extern DECL __ksym;"): those every
	 * kernel of a header's set has. Names sorted by strcmp; the others
	 * stay "__weak __ksym" as bpftool writes every one.
	 */
	const char *const *strong_kfuncs;
	uint32_t nr_strong_kfuncs;
	/*
	 * The weight of each type in the choice of the plain name among
	 * same-named types (dump_c.c, "Plain names by use"): over ids
	 * 0 .. nr_uses-1 of btf, how many references the type has in the BTF
	 * the caller counts in (a slim cut passes its full BTF's counts, so
	 * both spell alike). NULL: counted in btf itself. An id past nr_uses
	 * weighs 0.
	 */
	const uint32_t *uses;
	uint32_t nr_uses;
};

/*
 * The uses of lbtf's types (bc_use_counts_read(), canon/types.h), counted
 * in the slots of the types first .. end-1, as bc_dump_c_opts.uses: a
 * malloc'd array over lbtf's ids, or NULL when out of memory.
 */
uint32_t *bc_dump_c_uses(const struct btf *lbtf, uint32_t first, uint32_t end);

/*
 * The uses of a cut of a BTF (the slim header) from the uses of the whole
 * (nr_full ids): over the cut's nr_cut ids, the whole's count of the type
 * each was cut from (from[], slim.h). NULL when out of memory.
 */
uint32_t *bc_dump_c_cut_uses(const uint32_t *full_uses, uint32_t nr_full,
			     const uint32_t *from, uint32_t nr_cut);

/* bc_dump_c() with options (NULL: bc_dump_c()'s text). */
int bc_dump_c_with(const struct bc_btf *btf, const struct btf *lbtf,
		   const struct bc_dump_c_opts *opts, struct bc_text *out,
		   const struct bc_log *log);

#endif
