/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The inputs of dump and diff: anything `sort` reads (raw BTF, an ELF
 * file's .BTF section, split BTF over a base) and, for an ELF file that
 * has DWARF but no .BTF, BTF encoded on the fly (encode/encoder.h).
 *
 * An input is loaded once into a validated struct bc_btf (canon/), in
 * canonical order when asked, so that ids and every output derived from
 * them depend on the content only. Encoded inputs are always canonical.
 * An input with types of kinds btfcanon does not know (stepped over by its
 * kind layout section, read as placeholders: canon/btf_data.h) keeps its
 * own ids, with a warning: the ids inside those records cannot be told
 * from numbers, so nothing renumbers them.
 */
#ifndef BTFCANON_INPUT_H
#define BTFCANON_INPUT_H

#include <stdbool.h>

#include "../canon/btf_data.h"
#include "../canon/log.h"
#include "../canon/order.h"

struct btf;

struct bc_input_opts {
	const char *base_path;	/* base BTF of a split input, or NULL */
	bool canonicalize;	/* put the types in canonical order */
	enum bc_order order;	/* which canonical order */
	/*
	 * With canonicalize, for a caller that reads the input only through
	 * bc_input_to_libbpf() and takes names by their text, never by
	 * their offsets (header): base BTF keeps its string section as read
	 * (canon_opts.keep_strings) and the sorted blob goes to libbpf as
	 * canon wrote it (in->raw), not parsed again; in->btf stays the
	 * input as read. The same types, order and names as without it.
	 */
	bool for_libbpf;
};

struct bc_input {
	const char *path;	/* as given; not owned */
	struct bc_btf *base;	/* the base, NULL for base BTF */
	struct bc_btf *btf;	/* the input's own types */
	bool encoded;		/* came from DWARF */
	void *raw;		/* for_libbpf: the sorted blob, else NULL */
	size_t raw_size;
};

/*
 * Loads path. Returns 0 and fills in, or a negative errno after one message
 * naming the file and what was wrong with it.
 */
int bc_input_load(const char *path, const struct bc_input_opts *opts,
		  struct bc_input *in, const struct bc_log *log);

/* Frees what bc_input_load() filled in; accepts a zeroed input. */
void bc_input_deinit(struct bc_input *in);

/*
 * libbpf's view of a loaded input, for btf_dump: *btf holds the same types
 * under the same ids; for split input *base is its base (else NULL). Free
 * both with btf__free(). Returns 0 or a negative errno.
 */
int bc_input_to_libbpf(const struct bc_input *in, struct btf **base,
		       struct btf **btf, const struct bc_log *log);

#endif
