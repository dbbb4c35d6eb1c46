// SPDX-License-Identifier: GPL-2.0-only
/*
 * A kernel and some of its modules as one non-split BTF, for a loader
 * that takes one blob (libbpf's btf_custom_path uses it alone, no module
 * BTF beside it). archive.h's bc_archive_merge_modules is the contract.
 *
 * Problem: modules' BTF is split over the kernel's, and modules repeat
 * each other's types (a driver family's shared headers, a module's own
 * copy of a type the kernel has too); one blob must hold every type once
 * and stay canonical, so that the same kernel and modules always give the
 * same bytes. Method: the kernel's types, then each module's own types in
 * module order, concatenated into one base BTF (references to a module's
 * own types and its own strings moved past what comes before), then
 * canon's pass, which merges every set of structurally identical types
 * into one and writes them in canonical order (what bpftool does with
 * btf__add_btf and btf__dedup, by the project's own dedup).
 *
 * Cost: linear in the types concatenated, then one canon run over them
 * (its parallel steps on jobs threads).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../canon/canon.h"
#include "archive.h"
#include "internal.h"

int bc_archive_merge_modules(const void *base_raw, size_t base_size,
			     void *const *mods, const size_t *sizes, uint32_t nr,
			     unsigned int jobs, void **out, size_t *out_size,
			     const char *what, const struct bc_log *log)
{
	const size_t hdr_len = sizeof(struct btf_header);
	struct canon_opts copts = { .order = BC_ORDER_KIND, .jobs = jobs };
	struct bc_btf *base = NULL, *all = NULL, **split;
	struct ar_buf types = { 0 }, strs = { 0 };
	struct btf_header hdr = { .magic = 0xeB9F, .version = 1,
				  .hdr_len = sizeof(hdr) };
	uint32_t i, j, m, next_id;
	int err;

	*out = NULL;
	split = calloc(nr + 1, sizeof(*split));
	if (!split)
		return bc_log_error(log, -ENOMEM, "%s: out of memory", what);
	err = bc_btf_parse(base_raw, base_size, NULL, what, log, &base);
	for (m = 0; m < nr && !err; m++)
		err = bc_btf_parse(mods[m], sizes[m], base, what, log, &split[m]);
	if (err)
		goto out;
	err = ar_buf_put(&types, &hdr, hdr_len);
	err = err ? err : ar_buf_put(&types, base->types, base->hdr->type_len);
	err = err ? err : ar_buf_put(&strs, base->strs, base->str_len);
	next_id = base->nr_types + 1;
	for (m = 0; m < nr && !err; m++) {
		const struct bc_btf *mod = split[m];
		uint32_t str_at = (uint32_t)strs.len;

		for (i = 0; i < mod->nr_types && !err; i++) {
			const struct btf_type *t = bc_btf_local(mod, i);
			uint32_t kind = bc_type_kind(t), words = bc_type_words(t);
			const uint32_t *w = (const uint32_t *)t;

			for (j = 0; j < words && !err; j++) {
				uint32_t v = w[j];

				switch (bc_word_class(kind, j)) {
				case BC_WORD_REF:
					if (v >= mod->start_id)
						v = v - mod->start_id + next_id;
					break;
				case BC_WORD_NAME:
					if (v >= mod->start_str_off)
						v = v - mod->start_str_off + str_at;
					break;
				default:
					break;
				}
				err = ar_buf_put(&types, &v, 4);
			}
		}
		err = err ? err : ar_buf_put(&strs, mod->strs, mod->str_len);
		next_id += mod->nr_types;
	}
	if (!err && (types.len - hdr_len > UINT32_MAX / 2 || strs.len > UINT32_MAX / 2))
		err = -E2BIG;
	if (!err) {
		hdr.type_len = (uint32_t)(types.len - hdr_len);
		hdr.str_off = hdr.type_len;
		hdr.str_len = (uint32_t)strs.len;
		memcpy(types.data, &hdr, hdr_len);
		err = ar_buf_put(&types, strs.data, strs.len);
	}
	err = err ? err : bc_btf_parse(types.data, types.len, NULL, what, log, &all);
	if (!err) {
		copts.layout = base->layout;
		copts.nr_layout = base->nr_layout;
		err = canon_run_raw(all, &copts, out, out_size, log);
	}
	if (err == -ENOMEM || err == -E2BIG)
		bc_log_error(log, err, "%s: %s", what,
			     err == -E2BIG ? "too large for one BTF" : "out of memory");
out:
	for (m = 0; m < nr; m++)
		bc_btf_free(split[m]);
	free(split);
	bc_btf_free(all);
	bc_btf_free(base);
	free(types.data);
	free(strs.data);
	return err;
}
