/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Semantic diff of two BTFs: what changed in the types, functions and
 * variables, independent of type ids and of the order the types came in.
 * See btf_diff.c for how types are matched.
 *
 * The result is a list of entries, one per changed, added or removed
 * entity ("struct sk_buff", "func tcp_v4_rcv", nested anonymous types as
 * "struct sk_buff::<anon union at offset 40>"), each with the items that
 * changed in it (members, enumerators, parameters, the size, ...).
 * Entries come in a fixed order: types by name, then functions, variables
 * and data sections by name, each nested entry after its parent.
 */
#ifndef BTFCANON_BTF_DIFF_H
#define BTFCANON_BTF_DIFF_H

#include <stdbool.h>
#include <stdint.h>

#include "../canon/btf_data.h"
#include "../canon/log.h"
#include "../canon/text.h"

enum bc_diff_op {
	BC_DIFF_ADDED,
	BC_DIFF_REMOVED,
	BC_DIFF_CHANGED,
};

/* One property of an item; old_val or new_val is NULL where it is absent. */
struct bc_diff_field {
	const char *what;	/* "type", "offset", "bits", "value", "size", ... */
	char *old_val;
	char *new_val;
};

#define BC_DIFF_MAX_FIELDS 4

/* A member, enumerator, parameter, or a property of the entity itself. */
struct bc_diff_item {
	enum bc_diff_op op;
	const char *what;	/* "member", "enumerator", "param", "size", ... */
	char *name;		/* "" for the entity's own properties */
	struct bc_diff_field fields[BC_DIFF_MAX_FIELDS];
	uint32_t nr_fields;
};

struct bc_diff_entry {
	enum bc_diff_op op;
	const char *kind;	/* "struct", "union", "enum", "typedef", "int",
				   "float", "func", "var", "datasec" */
	char *path;		/* "struct foo", "struct foo::<anon union at offset 8>" */
	char *summary;		/* added/removed: a one-line description */
	struct bc_diff_item *items;
	uint32_t nr_items, cap_items;
};

struct bc_diff {
	struct bc_diff_entry *entries;
	uint32_t nr_entries, cap_entries;
};

/*
 * Compares old and new. Returns 0 and fills diff (empty when the two are
 * the same), or a negative errno (-ENOMEM) after a message.
 */
int bc_diff_run(const struct bc_btf *old_btf, const struct bc_btf *new_btf,
		struct bc_diff *diff, const struct bc_log *log);

/* Frees what bc_diff_run() filled in; accepts a zeroed diff. */
void bc_diff_deinit(struct bc_diff *diff);

struct bc_diff_print_opts {
	const char *old_name;	/* shown in the --- / +++ lines */
	const char *new_name;
	bool color;		/* ANSI colours */
};

/* The text report. Returns 0 or -ENOMEM. */
int bc_diff_print_text(const struct bc_diff *diff,
		       const struct bc_diff_print_opts *opts,
		       struct bc_text *out);

/* The report as JSON. Returns 0 or -ENOMEM. */
int bc_diff_print_json(const struct bc_diff *diff,
		       const struct bc_diff_print_opts *opts,
		       struct bc_text *out);

/* Counts per kind of entity and of item. Returns 0 or -ENOMEM. */
int bc_diff_print_stat(const struct bc_diff *diff,
		       const struct bc_diff_print_opts *opts,
		       struct bc_text *out);

#endif
