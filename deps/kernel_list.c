// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernels of a run (kernel_list.h): --kernel arguments expanded,
 * archives opened once.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_list.h"

void bc_kernel_list_deinit(struct bc_kernel_list *l)
{
	uint32_t i;

	for (i = 0; i < l->nr; i++) {
		free(l->srcs[i].label);
		free(l->srcs[i].name);
	}
	for (i = 0; i < l->nr_archives; i++) {
		bc_ktypes_flavors_free(l->flavors[i]);
		bc_archive_free(l->archives[i]);
	}
	free(l->srcs);
	free(l->archives);
	free(l->flavors);
}

static struct bc_kernel_src *kernel_list_add(struct bc_kernel_list *l)
{
	if (l->nr == l->cap) {
		uint32_t cap = l->cap ? l->cap * 2 : 16;
		struct bc_kernel_src *n = realloc(l->srcs, cap * sizeof(*n));

		if (!n)
			return NULL;
		l->srcs = n;
		l->cap = cap;
	}
	memset(&l->srcs[l->nr], 0, sizeof(l->srcs[0]));
	return &l->srcs[l->nr++];
}

/* Adds the kernels of one --kernel argument. Returns 0 or -errno (said). */
int bc_kernel_list_add(struct bc_kernel_list *l, const char *arg,
		       const char *kconfig, const struct bc_log *log)
{
	struct bc_ktypes_flavors *fl = NULL, **fls;
	struct bc_archive **ars;
	struct bc_archive_arg a;
	struct bc_kernel_src *src;
	uint32_t i;
	int err;

	err = bc_archive_arg_open(arg, &a, log);
	if (err)
		return err;
	if (!a.ar) {
		src = kernel_list_add(l);
		if (!src || !(src->label = strdup(a.name ? a.name : arg))) {
			err = bc_log_error(log, -ENOMEM, "out of memory");
			goto out;
		}
		src->path = a.file;
		src->kconfig = kconfig;
		src->name = a.name;
		a.name = NULL;
		goto out;
	}
	ars = realloc(l->archives, (l->nr_archives + 1) * sizeof(*ars));
	if (ars)
		l->archives = ars;
	fls = realloc(l->flavors, (l->nr_archives + 1) * sizeof(*fls));
	if (fls)
		l->flavors = fls;
	if (!ars || !fls || bc_ktypes_flavors_new(a.ar, &fl)) {
		bc_archive_free(a.ar);
		err = bc_log_error(log, -ENOMEM, "out of memory");
		goto out;
	}
	l->archives[l->nr_archives] = a.ar;
	l->flavors[l->nr_archives++] = fl;
	if (kconfig && a.nr > 1) {
		err = bc_log_error(log, -EINVAL,
				   "--kconfig %s: %s is %u kernels; a config goes with one",
				   kconfig, arg, a.nr);
		goto out;
	}
	for (i = 0; i < a.nr; i++) {
		src = kernel_list_add(l);
		if (!src) {
			err = bc_log_error(log, -ENOMEM, "out of memory");
			goto out;
		}
		src->ar = a.ar;
		src->idx = a.idx[i];
		src->flavors = fl;
		src->kconfig = kconfig;
		/* a saved kernel file keeps its argument as its name */
		if (a.name)
			src->label = strdup(a.name);
		else if (!a.spec && bc_archive_nr_kernels(a.ar) == 1)
			src->label = strdup(arg);
		else if (asprintf(&src->label, "%s:%s", a.path,
				  bc_archive_kernel_name(a.ar, a.idx[i])) < 0)
			src->label = NULL;
		if (!src->label ||
		    (a.name && !(src->name = strdup(a.name)))) {
			err = bc_log_error(log, -ENOMEM, "out of memory");
			goto out;
		}
	}
out:
	bc_archive_arg_deinit(&a);
	return err;
}

int bc_kernel_src_load(const struct bc_kernel_src *src, bool want_inlines,
		       bool whole, struct bc_deps_kernel *k,
		       const struct bc_log *log)
{
	int err;

	if (src->ar)
		err = bc_deps_kernel_load_archived(src->ar, src->idx,
						   whole ? NULL : src->flavors,
						   src->label, k, log);
	else
		err = bc_deps_kernel_load(src->path, want_inlines, k, log);
	if (err)
		return err;
	if (src->kconfig && bc_deps_kernel_set_kconfig(k, src->kconfig, log)) {
		bc_deps_kernel_deinit(k);
		return -EINVAL;
	}
	return 0;
}

