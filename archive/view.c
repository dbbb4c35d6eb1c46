// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading part of one kernel of an archive (archive.h, "Reading part of a
 * kernel"): deps needs a few hundred of a kernel's 110k types, so a view
 * decodes only the kernel's list of records and where each record sits,
 * and turns a record into BTF words when asked.
 *
 * deps opens one view per kernel, 118 for Debian's archive, so what a
 * view costs to open is paid 118 times. It reads the kernel's list once
 * (ar_ids_by_rec(): record -> id, into an array over the records that
 * the archive keeps for the next view, zeroed again on close); the
 * (kind, name) pairs by name and the records of each pair are listed once
 * per archive (views_index()). Lists are freed as views are done with them: a
 * kernel's list decoded for a view goes when no view is open on it and
 * every kernel whose parent it is has been viewed (or has its own list),
 * so a reader going through the kernels in version order keeps a few
 * lists, not all of them (52 MB for Debian's 118), and still decodes
 * each from its parent's.
 *
 * Cost of opening: one pass over the kernel's list (and its parents' the
 * first time); of a lookup, a hash probe and the ids of the records of
 * that (kind, name); of a type, its words.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bytes_form.h"
#include "internal.h"

struct bc_archive_view {
	struct bc_archive *ar;
	uint32_t k;
	const uint32_t *list;
	uint32_t n;
	uint32_t *of_rec;	/* ids.of_rec, borrowed from ar->views */
	uint32_t nr_of_rec;	/* its size */
	struct ar_ids ids;
};

static uint32_t name_hash(uint32_t kind, const char *name, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull ^ kind;	/* FNV-1a */
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (uint8_t)name[i]) * 0x100000001b3ull;
	return (uint32_t)(h ^ (h >> 32));
}

/*
 * The slot of (kind, name) in the table by name: its kn's, or the empty
 * slot where it goes.
 */
static uint64_t *by_name_slot(const struct bc_archive *ar, uint32_t kind,
			      const char *name, size_t len, uint32_t h)
{
	const struct ar_views *v = &ar->views;
	uint32_t i;

	for (i = h & v->by_name_mask;; i = (i + 1) & v->by_name_mask) {
		uint64_t slot = v->by_name[i];
		const struct ar_kn *kn;

		if (!slot)
			return &v->by_name[i];
		kn = &ar->kns[(uint32_t)slot - 1];
		if ((uint32_t)(slot >> 32) == h && kn->kind == kind &&
		    ar->strs[kn->sid].len == len &&
		    !memcmp(ar->strs[kn->sid].s, name, len))
			return &v->by_name[i];
	}
}

/*
 * The (kind, name) pairs by name, the records of each pair, ascending,
 * and which records have a name: one pass over the pairs and one over the
 * records, once per archive (again only if its pools changed). Only the
 * 86k pairs of Debian's archive are hashed, not its 157k strings too.
 */
static int views_index(struct bc_archive *ar)
{
	struct ar_views *v = &ar->views;
	uint32_t rec, kn, nr_named = 0, size = 16;

	if (v->kn_start && v->nr_kns == ar->nr_kns && v->nr_recs == ar->nr_recs)
		return 0;
	ar_views_free(v);
	while (size < 2 * ar->nr_kns + 2)	/* at most half full */
		size *= 2;
	v->by_name = calloc(size, sizeof(uint64_t));
	v->by_name_mask = size - 1;
	v->kn_start = calloc((size_t)ar->nr_kns + 2, sizeof(uint32_t));
	v->named = calloc((size_t)ar->nr_recs / 64 + 1, sizeof(uint64_t));
	if (!v->by_name || !v->kn_start || !v->named)
		goto nomem;
	for (kn = 0; kn < ar->nr_kns; kn++) {
		const struct ar_str *name = &ar->strs[ar->kns[kn].sid];
		uint32_t h = name_hash(ar->kns[kn].kind, name->s, name->len);
		uint64_t *slot = by_name_slot(ar, ar->kns[kn].kind, name->s,
					      name->len, h);

		if (!*slot)	/* a pair twice (forged): the first */
			*slot = (uint64_t)h << 32 | (kn + 1);
	}
	for (rec = 0; rec < ar->nr_recs; rec++) {
		uint32_t kn1 = ar->cells[ar->rec_off[rec] + 1];

		if (!kn1)
			continue;
		v->kn_start[kn1]++;	/* kn's count, at kn + 1 */
		v->named[rec / 64] |= 1ull << (rec % 64);
		nr_named++;
	}
	v->kn_recs = malloc(((size_t)nr_named + 1) * sizeof(uint32_t));
	if (!v->kn_recs)
		goto nomem;
	for (kn = 0; kn < ar->nr_kns; kn++)
		v->kn_start[kn + 1] += v->kn_start[kn];
	/* fill through kn_start[kn] as a cursor, then shift it back */
	for (rec = 0; rec < ar->nr_recs; rec++) {
		uint32_t kn1 = ar->cells[ar->rec_off[rec] + 1];

		if (kn1)
			v->kn_recs[v->kn_start[kn1 - 1]++] = rec;
	}
	for (kn = ar->nr_kns; kn > 0; kn--)
		v->kn_start[kn] = v->kn_start[kn - 1];
	v->kn_start[0] = 0;
	v->nr_kns = ar->nr_kns;
	v->nr_recs = ar->nr_recs;
	return 0;
nomem:
	ar_views_free(v);
	return -ENOMEM;
}

/*
 * The view's ids: by record, in an array the archive keeps between views;
 * by (kn, k) when the kernel lists a record twice (two identical named
 * types: canonical BTF has none, a forged archive may).
 */
static int view_ids(struct bc_archive_view *v)
{
	struct ar_views *views = &v->ar->views;
	int err = views_index(v->ar);

	if (err)
		return err;
	v->nr_of_rec = views->nr_recs + 1;
	v->of_rec = views->nr_spare ? views->spare[--views->nr_spare] :
		    calloc(v->nr_of_rec, sizeof(uint32_t));
	if (!v->of_rec)
		return -ENOMEM;
	err = ar_ids_by_rec(v->list, v->n, v->of_rec, views, &v->ids);
	if (err != -EEXIST)
		return err;
	if (views->nr_spare < 2)
		views->spare[views->nr_spare++] = v->of_rec;
	else
		free(v->of_rec);
	v->of_rec = NULL;
	return ar_ids_build(v->ar, v->list, v->n, &v->ids);
}

/*
 * Frees kernel k's list if a view decoded it, none is open on it, and no
 * kernel still to be viewed would decode from it.
 */
static void list_release(struct bc_archive *ar, int64_t k)
{
	struct ar_kernel *kern;
	uint32_t j;

	if (k < 0 || k >= ar->nr_kernels)
		return;
	kern = &ar->kernels[k];
	if (kern->nr_views || !kern->list_for_views || !kern->recs)
		return;
	for (j = 0; j < ar->nr_kernels; j++) {
		const struct ar_kernel *child = &ar->kernels[j];

		if (child->parent == k && !child->raw && !child->recs &&
		    !child->viewed)
			return;
	}
	free(kern->recs);
	kern->recs = NULL;
	kern->list_for_views = false;
}

int bc_archive_view_open(struct bc_archive *ar, uint32_t k,
			 struct bc_archive_view **out,
			 const struct bc_log *log)
{
	struct bc_archive_view *v;
	struct ar_kernel *kern;
	bool had_list;
	int err;

	*out = NULL;
	if (k >= ar->nr_kernels)
		return -ENOENT;
	err = ar_body_complete(ar);	/* a partial read: the rest */
	if (err)
		return bc_log_error(log, err, "%s: damaged archive: bad contents",
				    ar->path);
	/*
	 * An archive of a kernel or two may store its kernels as bytes (the
	 * smaller file: bytes_form.c). A view reads records, so before the
	 * first view, while none is open to see the pools grow, such kernels
	 * are turned into records in memory, as a write does: log, deps and
	 * header then read them like any other. One that records cannot give
	 * back (a loop of anonymous types) stays bytes.
	 */
	if (!ar->views_unrawed) {
		ar->views_unrawed = true;
		for (uint32_t i = 0; i < ar->nr_kernels; i++) {
			if (!ar->kernels[i].raw)
				continue;
			err = ar_load_records(ar);
			err = err ? err : ar_unraw_kernels(ar);
			if (err)
				return bc_log_error(log, err, "%s: out of memory",
						    ar->path);
			break;
		}
	}
	kern = &ar->kernels[k];
	if (kern->raw)
		return bc_log_error(log, -EOPNOTSUPP,
			"%s: kernel '%s' is stored as bytes: read it whole (bc_archive_kernel_btf)",
			ar->path, kern->name);
	had_list = kern->recs != NULL;
	err = ar_load_records(ar);
	err = err ? err : ar_decode_list(ar, k);
	if (err)
		return bc_log_error(log, err, "%s: kernel '%s': damaged list of types",
				    ar->path, kern->name);
	kern->list_for_views |= !had_list;
	kern->viewed = true;
	kern->nr_views++;
	v = calloc(1, sizeof(*v));
	if (!v) {
		kern->nr_views--;
		list_release(ar, k);
		return -ENOMEM;
	}
	v->ar = ar;
	v->k = k;
	v->list = kern->recs;
	v->n = kern->nr_types;
	err = view_ids(v);
	if (err) {
		bc_archive_view_free(v);
		if (err == -ENOMEM)
			return bc_log_error(log, err, "%s: out of memory", ar->path);
		return bc_log_error(log, err, "%s: kernel '%s': damaged records",
				    ar->path, kern->name);
	}
	list_release(ar, kern->parent);
	*out = v;
	return 0;
}

void bc_archive_view_free(struct bc_archive_view *view)
{
	struct ar_views *views;

	if (!view)
		return;
	views = &view->ar->views;
	if (view->of_rec) {
		ar_ids_by_rec_clear(view->list, view->n, view->of_rec);
		if (views->nr_spare < 2 && view->nr_of_rec == views->nr_recs + 1)
			views->spare[views->nr_spare++] = view->of_rec;
		else
			free(view->of_rec);
		view->ids.of_rec = NULL;
	}
	ar_ids_free(&view->ids);
	view->ar->kernels[view->k].nr_views--;
	list_release(view->ar, view->k);
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
	const struct bc_archive *ar = view->ar;
	size_t len = strlen(name);
	uint64_t slot;

	if (!ar->views.by_name)
		return 0;
	slot = *by_name_slot(ar, kind, name, len, name_hash(kind, name, len));
	return slot ? ar_ids_named(&view->ids, (uint32_t)slot - 1, ids, max) : 0;
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

bool bc_archive_view_same_record(const struct bc_archive_view *a,
				 uint32_t a_id,
				 const struct bc_archive_view *b,
				 uint32_t b_id)
{
	return a->ar == b->ar && a_id && a_id <= a->n && b_id && b_id <= b->n &&
	       a->list[a_id - 1] == b->list[b_id - 1];
}

uint32_t bc_archive_view_record(const struct bc_archive_view *view, uint32_t id)
{
	return id && id <= view->n ? view->list[id - 1] + 1 : 0;
}

const char *bc_archive_view_name(const struct bc_archive_view *view,
				 uint32_t id, uint32_t *kind)
{
	const struct bc_archive *ar = view->ar;
	uint32_t kn1;

	if (!id || id > view->n)
		return NULL;
	kn1 = ar->cells[ar->rec_off[view->list[id - 1]] + 1];
	if (!kn1)
		return NULL;
	*kind = ar->kns[kn1 - 1].kind;
	return ar->strs[ar->kns[kn1 - 1].sid].s;
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
