// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel archive object: its kernels in version order, adding sorted
 * BTF (turned into records and checked to come back byte for byte),
 * removing kernels, their attachments, and getting them back. records.c
 * turns BTF into records and back, pool.c keeps the pools, format.c
 * writes and reads the file, add_input.c reads and sorts inputs to add
 * (archive.h is the contract; DESIGN.md "The kernel archive" the design).
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../canon/canon.h"
#include "internal.h"

/* ---- archive object ---------------------------------------------------- */

static void kernel_deinit(struct ar_kernel *k)
{
	uint32_t i;

	ar_kernel_modules_free(k);
	free(k->name);
	free(k->blob);
	free(k->recs);
	free(k->layout);
	for (i = 0; i < k->nr_att; i++) {
		free(k->att[i].name);
		free(k->att[i].data);
	}
	free(k->att);
	free(k->att_names);
	memset(k, 0, sizeof(*k));
}

void ar_views_free(struct ar_views *v)
{
	while (v->nr_spare)
		free(v->spare[--v->nr_spare]);
	free(v->by_name);
	free(v->kn_start);
	free(v->kn_recs);
	free(v->named);
	memset(v, 0, sizeof(*v));
}

int bc_archive_new(struct bc_archive **out)
{
	struct bc_archive *ar = calloc(1, sizeof(*ar));

	*out = NULL;
	if (!ar)
		return -ENOMEM;
	ar->lock_fd = -1;
	if (ar_push_str(ar, "", 0)) {
		free(ar);
		return -ENOMEM;
	}
	ar->path = strdup("archive");
	if (!ar->path) {
		bc_archive_free(ar);
		return -ENOMEM;
	}
	*out = ar;
	return 0;
}

/*
 * The writer's lock (lock.c takes it) is the flock on lock_fd: closing the
 * descriptor releases it. Here, with the object that owns the descriptor,
 * so that freeing an archive and writing one (format.c) need not call up
 * into lock.c.
 */
void ar_unlock(struct bc_archive *ar)
{
	if (ar->lock_fd >= 0)
		close(ar->lock_fd);	/* the flock goes with it */
	ar->lock_fd = -1;
}

void bc_archive_free(struct bc_archive *ar)
{
	uint32_t i;

	if (!ar)
		return;
	ar_unlock(ar);
	for (i = 0; i < ar->nr_kernels; i++)
		kernel_deinit(&ar->kernels[i]);
	free(ar->kernels);
	ar_mod_dir_free(&ar->mod_dir);	/* after the modules named from it */
	while (ar->arena) {
		struct ar_chunk *next = ar->arena->next;

		free(ar->arena);
		ar->arena = next;
	}
	ar_idtab_free(&ar->str_tab);
	ar_idtab_free(&ar->kn_tab);
	ar_idtab_free(&ar->rec_tab);
	ar_scratch_free(&ar->scratch);
	ar_views_free(&ar->views);
	free(ar->strs);
	free(ar->kns);
	free(ar->cells);
	free(ar->rec_off);
	free(ar->heads);
	ar_body_release(ar);
	free(ar->body);
	free(ar->path);
	free(ar);
}

uint32_t bc_archive_nr_kernels(const struct bc_archive *ar)
{
	return ar->nr_kernels;
}

const char *bc_archive_kernel_name(const struct bc_archive *ar, uint32_t k)
{
	return k < ar->nr_kernels ? ar->kernels[k].name : NULL;
}

int bc_archive_find_kernel(const struct bc_archive *ar, const char *name)
{
	uint32_t lo = 0, hi = ar->nr_kernels;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = bc_archive_name_cmp(ar->kernels[mid].name, name);

		if (!c)
			return (int)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -ENOENT;
}

int bc_archive_match(const struct bc_archive *ar, const char *glob,
		     uint32_t **idx, uint32_t *nr)
{
	uint32_t i;

	*nr = 0;
	*idx = malloc((ar->nr_kernels + 1) * sizeof(**idx));
	if (!*idx)
		return -ENOMEM;
	for (i = 0; i < ar->nr_kernels; i++)
		if (!fnmatch(glob, ar->kernels[i].name, 0))
			(*idx)[(*nr)++] = i;
	return 0;
}

/* ---- a kernel's list of records ---------------------------------------- */

/*
 * Decodes kernel k's script against its parent's list plist[0..np) into
 * list (room for k->nr_types). Every copy must lie inside the parent's
 * list, every literal name a record.
 */
static int decode_script(const struct bc_archive *ar, const uint8_t *script,
			 size_t script_len, uint32_t nr_types,
			 const uint32_t *plist, uint64_t np, uint32_t *list)
{
	uint64_t expect = 0, last = 0, i = 0;
	size_t pos = 0;

	if (nr_types > np + script_len)
		return -EINVAL;
	while (pos < script_len) {
		uint64_t op, len, v, j;
		int64_t d;

		if (ar_get_varint(script, script_len, &pos, &op))
			return -EINVAL;
		len = op >> 1;
		if (!len || len > nr_types - i)
			return -EINVAL;
		if (op & 1) {
			if (ar_get_varint(script, script_len, &pos, &v))
				return -EINVAL;
			d = ar_unzigzag(v);
			if ((d < 0 && (uint64_t)-d > expect) ||
			    expect + d > np || len > np - (expect + d))
				return -EINVAL;
			memcpy(list + i, plist + expect + d, len * 4);
			expect += d + len;
			i += len;
			continue;
		}
		for (j = 0; j < len; j++) {
			if (ar_get_varint(script, script_len, &pos, &v))
				return -EINVAL;
			d = ar_unzigzag(v);
			if ((d < 0 && (uint64_t)-d > last) ||
			    last + d >= ar->nr_recs)
				return -EINVAL;
			list[i++] = (uint32_t)(last + d);
			last += d + 1;
		}
	}
	return i == nr_types ? 0 : -EINVAL;
}

static int decode_one(const struct bc_archive *ar, const struct ar_kernel *k,
		      const uint32_t *plist, uint64_t np, uint32_t *list)
{
	return decode_script(ar, k->script, k->script_len, k->nr_types, plist,
			     np, list);
}

/*
 * Kernel idx's list, decoded down its chain of parents from the nearest
 * one already decoded (or the root). Only idx's own list is kept: the
 * ancestors between are decoded into two buffers in turn, so a chain 18
 * deep costs two lists of memory, not 18 (a reader going through kernels
 * in version order finds each parent kept, having read it before).
 */
static int decode_list(struct bc_archive *ar, uint32_t idx)
{
	struct u32vec chain = { 0 };
	uint32_t *buf[2] = { NULL, NULL }, *list, max = 0, turn = 0;
	const uint32_t *plist = NULL;
	uint64_t np = 0;
	int64_t at = idx;
	int err = 0;

	if (ar->kernels[idx].raw || ar->kernels[idx].recs)
		return 0;
	while (at >= 0 && !ar->kernels[at].recs) {
		err = ar_u32vec_push(&chain, (uint32_t)at);
		if (err)
			goto out;
		if (ar->kernels[at].nr_types > max)
			max = ar->kernels[at].nr_types;
		at = ar->kernels[at].parent;
	}
	if (at >= 0) {
		plist = ar->kernels[at].recs;
		np = ar->kernels[at].nr_types;
	}
	list = malloc(((size_t)ar->kernels[idx].nr_types + 1) * sizeof(*list));
	if (chain.n > 1) {
		buf[0] = malloc(((size_t)max + 1) * sizeof(uint32_t));
		buf[1] = malloc(((size_t)max + 1) * sizeof(uint32_t));
	}
	if (!list || (chain.n > 1 && (!buf[0] || !buf[1]))) {
		free(list);
		err = -ENOMEM;
		goto out;
	}
	while (chain.n > 1 && !err) {
		const struct ar_kernel *k = &ar->kernels[chain.v[--chain.n]];

		err = decode_one(ar, k, plist, np, buf[turn]);
		plist = buf[turn];
		np = k->nr_types;
		turn ^= 1;
	}
	err = err ? err : decode_one(ar, &ar->kernels[idx], plist, np, list);
	if (err)
		free(list);
	else
		ar->kernels[idx].recs = list;
out:
	free(buf[0]);
	free(buf[1]);
	free(chain.v);
	return err;
}

int ar_decode_list(struct bc_archive *ar, uint32_t k)
{
	return decode_list(ar, k);
}

static int module_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ar_module *)a)->name,
		      ((const struct ar_module *)b)->name);
}

static int find_module(const struct ar_kernel *kern, const char *name)
{
	uint32_t at;

	return ar_module_index(kern, name, &at) ? (int)at : -ENOENT;
}

const struct ar_module *ar_module_parent(const struct bc_archive *ar,
					 uint32_t k, uint32_t i, int64_t *pk,
					 uint32_t *pi)
{
	const struct ar_kernel *kern = &ar->kernels[k], *p;
	int at;

	if (kern->raw || kern->parent < 0)
		return NULL;
	p = &ar->kernels[kern->parent];
	at = find_module(p, kern->mods[i].name);
	if (at < 0 || p->mods[at].raw)
		return NULL;
	*pk = kern->parent;
	*pi = (uint32_t)at;
	return &p->mods[at];
}

/*
 * Module i of kernel k decoded against the module of its name in the
 * kernel's parent (decoded first, down the kernels' chain of parents).
 * The lists of the modules on the way are kept: a module's list is a few
 * thousand records at most.
 */
int ar_decode_module(struct bc_archive *ar, uint32_t k, uint32_t i)
{
	struct ar_module *m = &ar->kernels[k].mods[i];
	const struct ar_module *pm;
	int64_t pk = -1;
	uint32_t pi = 0, *list;
	int err;

	if (m->raw || m->recs)
		return 0;
	pm = ar_module_parent(ar, k, i, &pk, &pi);
	if (pm) {
		err = ar_decode_module(ar, (uint32_t)pk, pi);
		if (err)
			return err;
	}
	list = malloc(((size_t)m->nr_types + 1) * sizeof(*list));
	if (!list)
		return -ENOMEM;
	err = decode_script(ar, m->script, m->script_len, m->nr_types,
			    pm ? pm->recs : NULL, pm ? pm->nr_types : 0, list);
	if (err)
		free(list);
	else
		m->recs = list;
	return err;
}

static int mod_ref_cmp(const void *a, const void *b)
{
	const struct ar_mod_ref *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : x->k < y->k ? -1 : x->k > y->k;
}

int ar_modules_by_name(const struct bc_archive *ar, struct ar_mod_ref **out,
		       size_t *nr, uint32_t *nr_names)
{
	struct ar_mod_ref *all;
	size_t n = 0, a;
	uint32_t k, m;

	for (k = 0; k < ar->nr_kernels; k++)
		n += ar->kernels[k].nr_mods;
	*out = all = malloc((n ? n : 1) * sizeof(*all));
	if (!all)
		return -ENOMEM;
	n = 0;
	for (k = 0; k < ar->nr_kernels; k++)
		for (m = 0; m < ar->kernels[k].nr_mods; m++)
			all[n++] = (struct ar_mod_ref){ ar->kernels[k].mods[m].name, k, m };
	qsort(all, n, sizeof(*all), mod_ref_cmp);
	*nr = n;
	*nr_names = 0;
	for (a = 0; a < n; a++)
		*nr_names += !a || strcmp(all[a - 1].name, all[a].name);
	return 0;
}

bool ar_has_modules(const struct bc_archive *ar)
{
	uint32_t k;

	for (k = 0; k < ar->nr_kernels; k++)
		if (ar->kernels[k].nr_mods)
			return true;
	return false;
}

int ar_decode_all(struct bc_archive *ar, const struct bc_log *log)
{
	uint32_t i, j;
	int err = ar_load_records(ar);

	if (err == -ENOMEM)
		return bc_log_error(log, err, "%s: out of memory", ar->path);
	if (err)
		return bc_log_error(log, err, "%s: damaged archive: bad records",
				    ar->path);
	for (i = 0; i < ar->nr_kernels; i++) {
		int err = decode_list(ar, i);

		if (err)
			return bc_log_error(log, err,
				"%s: kernel '%s': damaged list of types",
				ar->path, ar->kernels[i].name);
		for (j = 0; j < ar->kernels[i].nr_mods; j++) {
			err = ar_decode_module(ar, i, j);
			if (err)
				return bc_log_error(log, err,
					"%s: kernel '%s', module '%s': damaged list of types",
					ar->path, ar->kernels[i].name,
					ar->kernels[i].mods[j].name);
		}
	}
	return 0;
}

bool bc_archive_kernel_stored_as_bytes(const struct bc_archive *ar, uint32_t k)
{
	return k < ar->nr_kernels && ar->kernels[k].raw;
}

int bc_archive_kernel_raw(struct bc_archive *ar, uint32_t k, void **raw,
			  size_t *size, const struct bc_log *log)
{
	struct ar_kernel *kern;
	int err;

	*raw = NULL;
	*size = 0;
	if (k >= ar->nr_kernels)
		return -ENOENT;
	kern = &ar->kernels[k];
	if (kern->raw) {
		*raw = malloc(kern->blob_size ? kern->blob_size : 1);
		if (!*raw)
			return -ENOMEM;
		memcpy(*raw, kern->blob, kern->blob_size);
		*size = kern->blob_size;
		return 0;
	}
	err = decode_list(ar, k);
	if (!err)
		err = ar_build_raw(ar, kern->recs, kern->nr_types, kern->layout,
				kern->nr_layout, raw, size);
	if (err == -ENOMEM)
		return bc_log_error(log, err, "%s: out of memory", ar->path);
	if (err)
		return bc_log_error(log, err, "%s: kernel '%s': damaged records",
				    ar->path, kern->name);
	return 0;
}

int bc_archive_kernel_btf(struct bc_archive *ar, uint32_t k,
			  struct bc_btf **btf, const struct bc_log *log)
{
	struct bc_blob blob = { 0 };
	char *what;
	void *raw;
	size_t size;
	int err = bc_archive_kernel_raw(ar, k, &raw, &size, log);

	*btf = NULL;
	if (err)
		return err;
	if (asprintf(&what, "%s:%s", ar->path, ar->kernels[k].name) < 0) {
		free(raw);
		return -ENOMEM;
	}
	blob.mem = raw;
	blob.mem_len = size;
	blob.data = raw;
	blob.size = size;
	err = bc_btf_parse_blob(&blob, NULL, NULL, what, log, btf);
	free(what);
	return err;
}

/* ---- the kernels' order -------------------------------------------------- */

static int kernel_name_cmp(const void *a, const void *b)
{
	const struct ar_kernel *const *x = a, *const *y = b;

	return bc_archive_name_cmp((*x)->name, (*y)->name);
}

/*
 * Puts the kernels just read into version order, their parents following
 * them. An archive keeps its kernels in version order, but one written
 * before that order changed (names.c) holds them in the old one: it is
 * read in the new order, and written in it by add and remove. Cost: one
 * pass when in order (every archive written since); else a sort.
 */
int ar_sort_kernels(struct bc_archive *ar)
{
	uint32_t n = ar->nr_kernels, i;
	struct ar_kernel **by_name, *sorted;
	int64_t *at;

	for (i = 1; i < n; i++)
		if (bc_archive_name_cmp(ar->kernels[i - 1].name,
					ar->kernels[i].name) >= 0)
			break;
	if (i >= n)
		return 0;
	by_name = malloc(n * sizeof(*by_name));
	at = malloc(n * sizeof(*at));
	sorted = calloc(ar->cap_kernels, sizeof(*sorted));
	if (!by_name || !at || !sorted) {
		free(by_name);
		free(at);
		free(sorted);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		by_name[i] = &ar->kernels[i];
	qsort(by_name, n, sizeof(*by_name), kernel_name_cmp);
	for (i = 0; i < n; i++) {
		sorted[i] = *by_name[i];
		at[by_name[i] - ar->kernels] = i;
	}
	for (i = 0; i < n; i++)
		if (sorted[i].parent >= 0)
			sorted[i].parent = at[sorted[i].parent];
	free(by_name);
	free(at);
	free(ar->kernels);
	ar->kernels = sorted;
	for (i = 1; i < n; i++)	/* a name twice */
		if (!bc_archive_name_cmp(sorted[i - 1].name, sorted[i].name))
			return -EINVAL;
	return 0;
}

/* ---- adding and removing kernels --------------------------------------- */

static int insert_kernel(struct bc_archive *ar, const char *name,
			 struct ar_kernel **out)
{
	uint32_t at = 0;

	while (at < ar->nr_kernels &&
	       bc_archive_name_cmp(ar->kernels[at].name, name) < 0)
		at++;
	if (ar->nr_kernels == ar->cap_kernels) {
		uint32_t cap = ar->cap_kernels ? ar->cap_kernels * 2 : 16;
		struct ar_kernel *p = realloc(ar->kernels, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		ar->kernels = p;
		ar->cap_kernels = cap;
	}
	memmove(ar->kernels + at + 1, ar->kernels + at,
		(ar->nr_kernels - at) * sizeof(*ar->kernels));
	memset(&ar->kernels[at], 0, sizeof(ar->kernels[at]));
	ar->nr_kernels++;
	ar->kernels[at].parent = -1;
	ar->kernels[at].name = strdup(name);
	*out = &ar->kernels[at];
	return ar->kernels[at].name ? 0 : -ENOMEM;
}

int bc_archive_add_sorted(struct bc_archive *ar, const char *name,
			  const void *sorted, size_t size,
			  const struct bc_log *log)
{
	struct bc_btf *btf = NULL;
	struct ar_kernel *k;
	uint32_t *list = NULL;
	void *back = NULL;
	size_t back_size = 0;
	int err;

	if (!ar_name_ok(name))
		return bc_log_error(log, -EINVAL,
			"'%s': a kernel's name is 1-255 bytes without '/' or ':'",
			name);
	if (bc_archive_find_kernel(ar, name) >= 0)
		return bc_log_error(log, -EEXIST,
				    "%s: already holds a kernel '%s'", ar->path,
				    name);
	err = ar_decode_all(ar, log);
	if (err)
		return err;
	err = bc_btf_parse(sorted, size, NULL, name, log, &btf);
	if (err)
		return err;
	err = ar_encode_kernel(ar, btf, &list);
	if (!err)
		err = ar_build_raw(ar, list, btf->nr_types, btf->layout,
				btf->nr_layout, &back, &back_size);
	if (err == -ENOMEM)
		goto out;
	err = insert_kernel(ar, name, &k);
	if (err)
		goto out;
	if (back && back_size == size && !memcmp(back, sorted, size)) {
		k->recs = list;
		k->nr_types = btf->nr_types;
		list = NULL;
		if (btf->nr_layout) {
			k->layout = malloc(btf->nr_layout * sizeof(*k->layout));
			if (!k->layout) {
				err = -ENOMEM;
				goto out;
			}
			memcpy(k->layout, btf->layout,
			       btf->nr_layout * sizeof(*k->layout));
			k->nr_layout = btf->nr_layout;
		}
	} else {
		/* not by name (a loop of anonymous types ...): as bytes */
		k->raw = true;
		k->blob = malloc(size ? size : 1);
		if (!k->blob) {
			err = -ENOMEM;
			goto out;
		}
		memcpy(k->blob, sorted, size);
		k->blob_size = size;
	}
	err = 0;
out:
	if (err == -ENOMEM)
		bc_log_error(log, err, "%s: out of memory", name);
	free(back);
	free(list);
	bc_btf_free(btf);
	return err;
}

int bc_archive_remove(struct bc_archive *ar, uint32_t k)
{
	int err;

	if (k >= ar->nr_kernels)
		return -ENOENT;
	err = ar_decode_all(ar, NULL);
	if (err)
		return err;
	kernel_deinit(&ar->kernels[k]);
	memmove(ar->kernels + k, ar->kernels + k + 1,
		(ar->nr_kernels - k - 1) * sizeof(*ar->kernels));
	ar->nr_kernels--;
	return 0;
}

static int att_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ar_attachment *)a)->name,
		      ((const struct ar_attachment *)b)->name);
}

int ar_refresh_att_names(struct ar_kernel *k)
{
	uint32_t i;
	const char **names = realloc(k->att_names, (k->nr_att + 1) * sizeof(*names));

	if (!names)
		return -ENOMEM;
	for (i = 0; i < k->nr_att; i++)
		names[i] = k->att[i].name;
	names[i] = NULL;
	k->att_names = names;
	return 0;
}

int bc_archive_set_attachment(struct bc_archive *ar, uint32_t k,
			      const char *what, const void *data, size_t size)
{
	struct ar_kernel *kern;
	struct ar_attachment *a = NULL, *p;
	uint8_t *copy;
	uint32_t i;

	if (k >= ar->nr_kernels || !*what)
		return -EINVAL;
	kern = &ar->kernels[k];
	copy = malloc(size ? size : 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, data, size);
	for (i = 0; i < kern->nr_att; i++)
		if (!strcmp(kern->att[i].name, what))
			a = &kern->att[i];
	if (!a) {
		p = realloc(kern->att, (kern->nr_att + 1) * sizeof(*p));
		if (!p) {
			free(copy);
			return -ENOMEM;
		}
		kern->att = p;
		a = &kern->att[kern->nr_att];
		a->name = strdup(what);
		a->data = NULL;
		if (!a->name) {
			free(copy);
			return -ENOMEM;
		}
		kern->nr_att++;
	}
	free(a->data);
	a->data = copy;
	a->size = size;
	qsort(kern->att, kern->nr_att, sizeof(*kern->att), att_cmp);
	return ar_refresh_att_names(kern);
}

int bc_archive_attachment(const struct bc_archive *ar, uint32_t k,
			  const char *what, const void **data, size_t *size)
{
	uint32_t i;

	if (k >= ar->nr_kernels)
		return -ENOENT;
	for (i = 0; i < ar->kernels[k].nr_att; i++) {
		const struct ar_attachment *a = &ar->kernels[k].att[i];

		if (!strcmp(a->name, what)) {
			*data = a->data;
			*size = a->size;
			return 0;
		}
	}
	return -ENOENT;
}

const char *const *bc_archive_attachment_names(const struct bc_archive *ar,
					       uint32_t k, uint32_t *nr)
{
	*nr = k < ar->nr_kernels ? ar->kernels[k].nr_att : 0;
	return *nr ? (const char *const *)ar->kernels[k].att_names : NULL;
}


/* ---- modules ------------------------------------------------------------- */

int bc_archive_read_modules(struct bc_archive *ar, int64_t k,
			    const struct bc_log *log)
{
	int err;

	if (k >= (int64_t)ar->nr_kernels)
		return -ENOENT;
	err = k < 0 ? ar_modules_all(ar) : ar_modules_ready(ar, (uint32_t)k);
	if (err == -ENOMEM)
		return bc_log_error(log, err, "%s: out of memory", ar->path);
	if (err)
		return bc_log_error(log, err, "%s: damaged archive: bad modules",
				    ar->path);
	return 0;
}

int bc_archive_read_module(struct bc_archive *ar, uint32_t k,
			   const char *name, const struct bc_log *log)
{
	int err;

	if (k >= ar->nr_kernels)
		return -ENOENT;
	err = ar_module_group_ready(ar, name);
	if (!err && find_module(&ar->kernels[k], name) < 0)
		err = -ENOENT;
	if (err == -ENOENT)	/* none: every module read, for the message */
		err = ar_modules_all(ar);
	if (err)
		return bc_log_error(log, err, "%s: %s", ar->path, err == -ENOMEM ?
				    "out of memory" : "damaged archive: bad modules");
	return find_module(&ar->kernels[k], name);
}

uint32_t bc_archive_nr_modules(const struct bc_archive *ar, uint32_t k)
{
	return k < ar->nr_kernels ? ar->kernels[k].nr_mods : 0;
}

const char *bc_archive_module_name(const struct bc_archive *ar, uint32_t k,
				   uint32_t i)
{
	return k < ar->nr_kernels && i < ar->kernels[k].nr_mods ?
	       ar->kernels[k].mods[i].name : NULL;
}

int bc_archive_find_module(const struct bc_archive *ar, uint32_t k,
			   const char *name)
{
	return k < ar->nr_kernels ? find_module(&ar->kernels[k], name) : -ENOENT;
}

bool bc_archive_module_stored_as_bytes(const struct bc_archive *ar, uint32_t k,
				       uint32_t i)
{
	return k < ar->nr_kernels && i < ar->kernels[k].nr_mods &&
	       ar->kernels[k].mods[i].raw;
}

static int keep_as_bytes(struct ar_module *m, const void *sorted, size_t size)
{
	m->raw = true;
	m->blob = malloc(size ? size : 1);
	if (!m->blob)
		return -ENOMEM;
	memcpy(m->blob, sorted, size);
	m->blob_size = size;
	return 0;
}

int ar_store_module(struct bc_archive *ar, const struct bc_btf *base,
		    struct ar_split_enc *enc, const struct ar_base_map *map,
		    const void *sorted, size_t size, struct ar_module *m)
{
	struct bc_btf *btf = NULL;
	uint32_t *list = NULL;
	void *back = NULL;
	size_t back_size = 0;
	int err = bc_btf_parse(sorted, size, base, m->name, NULL, &btf);

	if (err)
		return err == -ENOMEM ? err : -EINVAL;
	if (enc && map) {
		err = ar_encode_module(enc, btf, &list);
		if (!err)
			err = ar_build_module(ar, map, list, btf->nr_types,
					      btf->layout, btf->nr_layout,
					      &back, &back_size);
	}
	if (err == -ENOMEM)
		goto out;
	if (back && back_size == size && !memcmp(back, sorted, size)) {
		m->recs = list;
		m->nr_types = btf->nr_types;
		list = NULL;
		err = 0;
		if (btf->nr_layout) {
			m->layout = malloc(btf->nr_layout * sizeof(*m->layout));
			if (!m->layout) {
				err = -ENOMEM;
				goto out;
			}
			memcpy(m->layout, btf->layout,
			       btf->nr_layout * sizeof(*m->layout));
			m->nr_layout = btf->nr_layout;
		}
	} else {
		/* not by name (a loop of anonymous types ...): as bytes */
		err = keep_as_bytes(m, sorted, size);
	}
out:
	free(back);
	free(list);
	bc_btf_free(btf);
	return err;
}

/* Kernel k's base as its modules see it: parsed, and by name (records). */
struct kernel_base {
	struct bc_btf *btf;
	struct ar_split_enc *enc;
	struct ar_base_map map;
	bool records;
};

static void kernel_base_deinit(struct kernel_base *kb)
{
	ar_split_enc_free(kb->enc);
	if (kb->records)
		ar_base_map_free(&kb->map);
	bc_btf_free(kb->btf);
	memset(kb, 0, sizeof(*kb));
}

static int kernel_base_init(struct bc_archive *ar, uint32_t k,
			    struct kernel_base *kb, const struct bc_log *log)
{
	struct ar_kernel *kern = &ar->kernels[k];
	int err;

	memset(kb, 0, sizeof(*kb));
	err = bc_archive_kernel_btf(ar, k, &kb->btf, log);
	if (err)
		return err;
	if (kern->raw)
		return 0;
	err = ar_split_enc_new(ar, kb->btf, kern->recs, &kb->enc);
	err = err ? err : ar_base_map_build(ar, kern->recs, kern->nr_types,
					    kern->layout, kern->nr_layout,
					    &kb->map, NULL, NULL);
	kb->records = !err;
	if (err) {
		kernel_base_deinit(kb);
		return bc_log_error(log, err, "%s: kernel '%s': %s", ar->path,
				    kern->name, err == -ENOMEM ? "out of memory" :
				    "damaged records");
	}
	return 0;
}

int bc_archive_add_modules(struct bc_archive *ar, uint32_t k,
			   const struct bc_archive_module_in *in, uint32_t nr,
			   uint32_t *added, const struct bc_log *log)
{
	struct kernel_base kb;
	struct ar_kernel *kern;
	struct ar_module *mods;
	uint32_t i, n;
	int err;

	*added = 0;
	if (k >= ar->nr_kernels)
		return -ENOENT;
	err = ar_decode_all(ar, log);
	if (err)
		return err;
	kern = &ar->kernels[k];
	mods = realloc(kern->mods, ((size_t)kern->nr_mods + nr + 1) * sizeof(*mods));
	if (!mods)
		return bc_log_error(log, -ENOMEM, "%s: out of memory", ar->path);
	kern->mods = mods;
	kern->cap_mods = kern->nr_mods + nr + 1;
	err = kernel_base_init(ar, k, &kb, log);
	if (err)
		return err;
	n = kern->nr_mods;
	for (i = 0; i < nr && !err; i++) {
		struct ar_module *m = &kern->mods[n];
		int e;

		if (!ar_name_ok(in[i].name) || find_module(kern, in[i].name) >= 0) {
			bc_log_printf(log, BC_LOG_WARN,
				      "%s: kernel '%s': module '%s' %s; left out",
				      ar->path, kern->name, in[i].name,
				      ar_name_ok(in[i].name) ? "already there" :
				      "is no name");
			continue;
		}
		memset(m, 0, sizeof(*m));
		m->name = strdup(in[i].name);
		if (!m->name) {
			err = -ENOMEM;
			break;
		}
		e = ar_store_module(ar, kb.btf, kb.enc, kb.records ? &kb.map : NULL,
				    in[i].sorted, in[i].size, m);
		if (e == -ENOMEM) {
			ar_module_deinit(m);
			err = e;
			break;
		}
		if (e) {
			bc_log_printf(log, BC_LOG_WARN,
				      "%s: kernel '%s': module '%s' is no split BTF over the kernel; left out",
				      ar->path, kern->name, in[i].name);
			ar_module_deinit(m);
			continue;
		}
		/* kept by name: inputs come in name order, so rarely sorted */
		kern->nr_mods = ++n;
		if (n > 1 && strcmp(kern->mods[n - 2].name, kern->mods[n - 1].name) > 0)
			qsort(kern->mods, n, sizeof(*kern->mods), module_cmp);
		(*added)++;
	}
	kernel_base_deinit(&kb);
	if (err == -ENOMEM)
		return bc_log_error(log, err, "%s: out of memory", ar->path);
	return err;
}

struct bc_archive_kmods {
	struct bc_archive *ar;
	uint32_t k;
	struct ar_base_map map;
	bool records;
};

int bc_archive_kmods_open(struct bc_archive *ar, uint32_t k,
			  struct bc_archive_kmods **out, void **base_raw,
			  size_t *base_size, const struct bc_log *log)
{
	struct bc_archive_kmods *km;
	struct ar_kernel *kern;
	int err = 0;

	*out = NULL;
	if (k >= ar->nr_kernels)
		return -ENOENT;
	kern = &ar->kernels[k];
	km = calloc(1, sizeof(*km));
	if (!km)
		return bc_log_error(log, -ENOMEM, "%s: out of memory", ar->path);
	km->ar = ar;
	km->k = k;
	if (kern->raw) {
		if (base_raw)
			err = bc_archive_kernel_raw(ar, k, base_raw, base_size, log);
	} else {
		err = ar_decode_list(ar, k);
		err = err ? err : ar_base_map_build(ar, kern->recs, kern->nr_types,
						    kern->layout, kern->nr_layout,
						    &km->map, base_raw, base_size);
		km->records = !err;
		if (err == -ENOMEM)
			bc_log_error(log, err, "%s: out of memory", ar->path);
		else if (err)
			bc_log_error(log, err, "%s: kernel '%s': damaged records",
				     ar->path, kern->name);
	}
	if (err) {
		free(km);
		return err;
	}
	*out = km;
	return 0;
}

int bc_archive_kmods_module(struct bc_archive_kmods *km, uint32_t i,
			    void **raw, size_t *size, const struct bc_log *log)
{
	struct bc_archive *ar = km->ar;
	struct ar_kernel *kern = &ar->kernels[km->k];
	struct ar_module *m;
	int err;

	*raw = NULL;
	*size = 0;
	if (i >= kern->nr_mods)
		return -ENOENT;
	m = &kern->mods[i];
	if (m->raw) {
		*raw = malloc(m->blob_size ? m->blob_size : 1);
		if (!*raw)
			return bc_log_error(log, -ENOMEM, "%s: out of memory",
					    ar->path);
		memcpy(*raw, m->blob, m->blob_size);
		*size = m->blob_size;
		return 0;
	}
	err = km->records ? ar_decode_module(ar, km->k, i) : -EINVAL;
	err = err ? err : ar_build_module(ar, &km->map, m->recs, m->nr_types,
					  m->layout, m->nr_layout, raw, size);
	if (err == -ENOMEM)
		return bc_log_error(log, err, "%s: out of memory", ar->path);
	if (err)
		return bc_log_error(log, err,
				    "%s: kernel '%s', module '%s': damaged records",
				    ar->path, kern->name, m->name);
	return 0;
}

void bc_archive_kmods_free(struct bc_archive_kmods *km)
{
	if (!km)
		return;
	if (km->records)
		ar_base_map_free(&km->map);
	free(km);
}
