// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading part of one kernel of an archive (archive.h, "Reading part of a
 * kernel"): deps needs a few hundred of a kernel's 110k types, so a view
 * decodes only the kernel's list of records and where each name sits,
 * and turns a record into BTF words when asked. Cost of opening: one pass
 * over the kernel's list (and its parents' the first time); of a lookup,
 * two hash probes; of a type, its words.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct bc_archive_view {
	struct bc_archive *ar;
	uint32_t k;
	const uint32_t *list;
	uint32_t n;
	struct ar_ids ids;
};

int bc_archive_view_open(struct bc_archive *ar, uint32_t k,
			 struct bc_archive_view **out,
			 const struct bc_log *log)
{
	struct bc_archive_view *v;
	int err;

	*out = NULL;
	if (k >= ar->nr_kernels)
		return -ENOENT;
	if (ar->kernels[k].raw)
		return bc_log_error(log, -EOPNOTSUPP,
			"%s: kernel '%s' is stored as bytes: read it whole (bc_archive_kernel_btf)",
			ar->path, ar->kernels[k].name);
	err = ar_load_records(ar);
	err = err ? err : ar_index_names(ar);
	err = err ? err : ar_decode_list(ar, k);
	if (err)
		return bc_log_error(log, err, "%s: kernel '%s': damaged list of types",
				    ar->path, ar->kernels[k].name);
	v = calloc(1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	v->ar = ar;
	v->k = k;
	v->list = ar->kernels[k].recs;
	v->n = ar->kernels[k].nr_types;
	err = ar_ids_build(ar, v->list, v->n, &v->ids);
	if (err) {
		free(v);
		return bc_log_error(log, err, "%s: kernel '%s': damaged records",
				    ar->path, ar->kernels[k].name);
	}
	*out = v;
	return 0;
}

void bc_archive_view_free(struct bc_archive_view *view)
{
	if (!view)
		return;
	ar_ids_free(&view->ids);
	free(view);
}

uint32_t bc_archive_view_nr_types(const struct bc_archive_view *view)
{
	return view->n;
}

uint32_t bc_archive_view_find(const struct bc_archive_view *view,
			      uint32_t kind, const char *name, uint32_t *ids,
			      uint32_t max)
{
	int64_t kn = ar_find_kn(view->ar, kind, name);
	uint32_t nr = 0, k, id;

	if (kn < 0)
		return 0;
	for (k = 0;; k++) {
		id = ar_ids_ref(&view->ids, 2 + 2 * (uint32_t)kn, k);
		if (!id)
			break;
		if (nr < max)
			ids[nr] = id;
		nr++;
	}
	return nr;
}

int bc_archive_view_type(const struct bc_archive_view *view, uint32_t id,
			 uint32_t *words, uint32_t max)
{
	uint32_t rec, n;

	if (!id || id > view->n)
		return -EINVAL;
	rec = view->list[id - 1];
	n = ar_record_nr_words(view->ar, rec);
	if (n > max)
		return (int)n;
	return ar_record_words(view->ar, &view->ids, rec, words) ? -EINVAL : (int)n;
}

const char *bc_archive_view_str(const struct bc_archive_view *view,
				uint32_t str)
{
	return str < view->ar->nr_strs ? view->ar->strs[str].s : "";
}

uint32_t bc_archive_nr_type_names(const struct bc_archive *ar)
{
	return ar->nr_kns;
}

const char *bc_archive_type_name(const struct bc_archive *ar, uint32_t i,
				 uint32_t *kind)
{
	*kind = ar->kns[i].kind;
	return ar->strs[ar->kns[i].sid].s;
}
