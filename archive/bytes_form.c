// SPDX-License-Identifier: GPL-2.0-only
/*
 * An archive of a kernel or two written with every kernel stored as its
 * sorted bytes, when that makes the smaller file (format.c's
 * bc_archive_serialize() writes both forms and keeps the smaller one).
 *
 * Problem: records pay where kernels share them. One kernel alone shares
 * nothing; its records, coded as varints in six streams, compress to
 * 0.97-0.98 of `xz -9e` of the kernel's own file (Debian's 6.1 amd64,
 * 6.12 arm64-16k; 6.18), while its sorted BTF, in canonical order, comes
 * to 0.93 of it under the same xz (pahole's order scatters what sort puts
 * together). So for a small body (up to AR_PACK_SMALL_BODY: xz is what
 * compresses it, and what is saved by bytes is what makes the archive
 * never larger than `xz -9e` of the files it replaces) the archive is
 * also written as bytes and the smaller file is kept. However small: a
 * module's BTF (dummy.ko's, 208 KB) is 63.6 KB as records, 55.2 as
 * bytes, 58.1 under `tar | xz -9e`; a 2 KB cut of a kernel 862 bytes as
 * bytes in one stream (pack.c), 928 under tar and xz, and 1,177 as the
 * records in six streams written before.
 *
 * Invariant (determinism): the choice depends on the set of kernels
 * only. A kernel read as bytes is turned back into records before the
 * archive is written again (ar_unraw_kernels(), the test add runs: its
 * records rebuilt must give its bytes back), so an `add` to an archive
 * written as bytes writes what a `create` of the new set writes; a
 * kernel that records cannot give back (a loop of anonymous types) stays
 * bytes, as when it was added.
 *
 * Cost: a small body is compressed twice (0.14 s for dummy.ko's, 0.03
 * as records alone); turning kernels back into records costs what adding
 * them cost, for the kernels stored as bytes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../canon/btf_data.h"
#include "bytes_form.h"
#include "internal.h"
#include "pack.h"

static int put_bytes(struct ar_buf *out, const void *data, size_t len)
{
	int err = ar_buf_varint(out, len);

	return err ? err : ar_buf_put(out, data, len);
}

/* Kernel k's modules' bytes into raw[base + i], sizes[base + i]. */
static int module_bytes(struct bc_archive *ar, uint32_t k, void **raw,
			size_t *sizes)
{
	const struct ar_kernel *kern = &ar->kernels[k];
	struct bc_archive_kmods *km = NULL;
	uint32_t i;
	int err = kern->nr_mods ? bc_archive_kmods_open(ar, k, &km, NULL, NULL,
							NULL) : 0;

	for (i = 0; i < kern->nr_mods && !err; i++)
		err = bc_archive_kmods_module(km, i, &raw[i], &sizes[i], NULL);
	bc_archive_kmods_free(km);
	return err;
}

/*
 * Every module as format 6 writes them (format.c, write_module_groups()),
 * every one as its bytes: the names after the kernel entries, then a group
 * a name; (*at)[g] where group g starts, (*at)[*nr_names] the end.
 */
static int put_module_groups(struct bc_archive *ar, struct ar_buf *body,
			     size_t **at, uint32_t *nr_names)
{
	struct ar_mod_ref *all = NULL;
	size_t nr = 0, a, b, *first = NULL, *sizes = NULL;
	void **raw = NULL;
	uint32_t k, g;
	int err = ar_modules_by_name(ar, &all, &nr, nr_names);

	if (!err) {
		first = calloc((size_t)ar->nr_kernels + 1, sizeof(*first));
		raw = calloc(nr + 1, sizeof(*raw));
		sizes = calloc(nr + 1, sizeof(*sizes));
		*at = malloc(((size_t)*nr_names + 1) * sizeof(**at));
		err = first && raw && sizes && *at ? 0 : -ENOMEM;
	}
	for (k = 0; k < ar->nr_kernels && !err; k++) {
		first[k + 1] = first[k] + ar->kernels[k].nr_mods;
		err = module_bytes(ar, k, raw + first[k], sizes + first[k]);
	}
	err = err ? err : ar_buf_varint(body, *nr_names);
	for (a = 0; a < nr && !err; a++)
		if (!a || strcmp(all[a - 1].name, all[a].name))
			err = put_bytes(body, all[a].name, strlen(all[a].name));
	for (a = 0, g = 0; a < nr && !err; a = b, g++) {
		for (b = a + 1; b < nr && !strcmp(all[a].name, all[b].name); b++)
			;
		(*at)[g] = body->len;
		err = ar_buf_varint(body, b - a);
		for (size_t e = a; e < b && !err; e++) {
			size_t at_e = first[all[e].k] + all[e].i;

			err = ar_buf_varint(body, e == a ? all[e].k :
					    all[e].k - all[e - 1].k - 1);
			err = err ? err : ar_buf_varint(body, AR_FLAG_RAW);
			err = err ? err : put_bytes(body, raw[at_e], sizes[at_e]);
			err = err ? err : put_bytes(body, NULL, 0);
		}
	}
	if (!err)
		(*at)[*nr_names] = body->len;
	for (a = 0; raw && a < nr; a++)
		free(raw[a]);
	free(raw);
	free(sizes);
	free(first);
	free(all);
	return err;
}

int ar_serialize_bytes_form(struct bc_archive *ar, struct ar_buf *body,
			    size_t **group_at, uint32_t *nr_groups)
{
	bool modules = ar_has_modules(ar);
	uint32_t k, i;
	int err;

	/* strings: one, ""; no (kind, name) pairs; no records */
	err = ar_buf_varint(body, 1);
	err = err ? err : ar_buf_varint(body, 0);
	err = err ? err : ar_buf_put(body, "", 1);
	err = err ? err : ar_buf_varint(body, 0);
	err = err ? err : ar_buf_varint(body, 0);
	err = err ? err : ar_buf_varint(body, ar->nr_kernels);
	for (k = 0; k < ar->nr_kernels && !err; k++) {
		const struct ar_kernel *kern = &ar->kernels[k];
		void *raw = NULL;
		size_t size = 0;

		err = bc_archive_kernel_raw(ar, k, &raw, &size, NULL);
		err = err ? err : put_bytes(body, kern->name, strlen(kern->name));
		err = err ? err : ar_buf_varint(body, AR_FLAG_RAW);
		err = err ? err : put_bytes(body, raw, size);
		free(raw);
		/* the bytes hold the layout section, if any */
		err = err ? err : put_bytes(body, NULL, 0);
		err = err ? err : ar_buf_varint(body, kern->nr_att);
		for (i = 0; i < kern->nr_att && !err; i++) {
			err = put_bytes(body, kern->att[i].name,
					strlen(kern->att[i].name));
			err = err ? err : put_bytes(body, kern->att[i].data,
						    kern->att[i].size);
		}
	}
	*group_at = NULL;
	*nr_groups = 0;
	/* format 6: the module names, then the modules by name */
	if (modules && !err)
		err = put_module_groups(ar, body, group_at, nr_groups);
	return err;
}

/*
 * The modules of a kernel just turned into records, each as records if
 * they give its bytes back (a module stored as bytes keeps the layout
 * section in its bytes). 0 or -ENOMEM.
 */
static int unraw_modules(struct bc_archive *ar, struct ar_kernel *kern,
			 const struct bc_btf *base)
{
	struct ar_split_enc *enc = NULL;
	struct ar_base_map map;
	uint32_t i;
	int err;

	if (!kern->nr_mods)
		return 0;
	err = ar_split_enc_new(ar, base, kern->recs, &enc);
	err = err ? err : ar_base_map_build(ar, kern->recs, kern->nr_types,
					    kern->layout, kern->nr_layout, &map,
					    NULL, NULL);
	if (err) {
		ar_split_enc_free(enc);
		return err == -ENOMEM ? err : 0;
	}
	for (i = 0; i < kern->nr_mods && !err; i++) {
		struct ar_module *m = &kern->mods[i],
				  back = { .name = m->name, .name_read = m->name_read };

		if (!m->raw)
			continue;
		err = ar_store_module(ar, base, enc, &map, m->blob, m->blob_size,
				      &back);
		if (!err && !back.raw) {
			free(m->blob);
			*m = back;
		} else {
			back.name = NULL;
			ar_module_deinit(&back);
		}
		if (err != -ENOMEM)
			err = 0;
	}
	ar_base_map_free(&map);
	ar_split_enc_free(enc);
	return err;
}

/* Kernel k, stored as bytes, as records if they give its bytes back. */
static int unraw_kernel(struct bc_archive *ar, struct ar_kernel *kern)
{
	struct bc_btf *btf = NULL;
	struct bc_btf_layout *layout = NULL;
	uint32_t *list = NULL;
	void *back = NULL;
	size_t back_size = 0;
	int err;

	if (bc_btf_parse(kern->blob, kern->blob_size, NULL, kern->name, NULL,
			 &btf))
		return 0;	/* stays bytes: sort's own output, or forged */
	err = ar_encode_kernel(ar, btf, &list);
	err = err ? err : ar_build_raw(ar, list, btf->nr_types, btf->layout,
				       btf->nr_layout, &back, &back_size);
	if (!err && back_size == kern->blob_size &&
	    !memcmp(back, kern->blob, back_size) && !kern->nr_layout) {
		if (btf->nr_layout) {
			layout = malloc(btf->nr_layout * sizeof(*layout));
			if (!layout) {
				err = -ENOMEM;
				goto out;
			}
			memcpy(layout, btf->layout, btf->nr_layout * sizeof(*layout));
		}
		free(kern->blob);
		kern->blob = NULL;
		kern->blob_size = 0;
		kern->raw = false;
		kern->recs = list;
		kern->nr_types = btf->nr_types;
		kern->layout = layout;
		kern->nr_layout = btf->nr_layout;
		list = NULL;
		err = unraw_modules(ar, kern, btf);
	}
	if (err != -ENOMEM)
		err = 0;	/* not by name: stays bytes */
out:
	free(back);
	free(list);
	bc_btf_free(btf);
	return err;
}

int ar_unraw_kernels(struct bc_archive *ar)
{
	uint32_t k;
	int err = 0;

	for (k = 0; k < ar->nr_kernels && !err; k++)
		if (ar->kernels[k].raw)
			err = unraw_kernel(ar, &ar->kernels[k]);
	return err;
}

bool ar_bytes_form_tried(const struct bc_archive *ar, size_t body_len)
{
	uint32_t k;

	if (body_len > AR_PACK_SMALL_BODY)
		return false;
	for (k = 0; k < ar->nr_kernels; k++) {
		const struct ar_kernel *kern = &ar->kernels[k];
		uint32_t i;

		if (!kern->raw)
			return true;
		for (i = 0; i < kern->nr_mods; i++)
			if (!kern->mods[i].raw)
				return true;
	}
	return false;	/* already all bytes */
}
