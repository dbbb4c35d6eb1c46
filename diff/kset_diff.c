// SPDX-License-Identifier: GPL-2.0-only
/*
 * The diff of two kernels with their modules (kset_diff.h).
 *
 * Problem: a distribution kernel is its vmlinux and a thousand modules,
 * each module's BTF split over that kernel's vmlinux. Between two
 * releases every module file differs (the base's ids moved), while most
 * modules' types are the same; a user asks which modules changed and how.
 *
 * Pass: the modules of both kernels are in name order (kernel_set.h), so
 * one merge walk pairs them: a name on one side only is a module added or
 * removed; a name on both is diffed with bc_diff_run(), which matches
 * types by name and spells references by name, through each side's own
 * vmlinux, so ids never show. The pairs are diffed on up to jobs threads,
 * each task writing only its own slot; then the modules with no entries
 * are dropped, keeping name order. The result depends on the two inputs
 * alone.
 *
 * Cost: the vmlinux diff, plus one diff per module pair, linear in the
 * module's types (6.12 cloud: 1,138 modules, about 10 MB of BTF a side).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../canon/par.h"
#include "kset_diff.h"

struct pair_task {
	const struct bc_kernel_set *old_ks, *new_ks;
	struct bc_module_diff *mods;
	uint32_t *old_idx, *new_idx;	/* per slot: the module on each side */
};

static int diff_pair(void *ctx, uint32_t i)
{
	struct pair_task *pt = ctx;
	struct bc_module_diff *m = &pt->mods[i];

	if (m->op != BC_DIFF_CHANGED)
		return 0;
	return bc_diff_run(pt->old_ks->mods[pt->old_idx[i]].btf,
			   pt->new_ks->mods[pt->new_idx[i]].btf, &m->diff, NULL);
}

int bc_kset_diff_run(const struct bc_kernel_set *old_ks,
		     const struct bc_kernel_set *new_ks, unsigned int jobs,
		     struct bc_kset_diff *out, const struct bc_log *log)
{
	uint32_t cap = old_ks->nr_mods + new_ks->nr_mods, n = 0, i = 0, j = 0,
		 kept = 0;
	struct pair_task pt = { .old_ks = old_ks, .new_ks = new_ks };
	int err;

	memset(out, 0, sizeof(*out));
	err = bc_diff_run(old_ks->input.btf, new_ks->input.btf, &out->vmlinux, log);
	if (err)
		return err;
	out->modules_compared = old_ks->has_modules && new_ks->has_modules;
	if (!out->modules_compared || !cap)
		return 0;
	pt.mods = calloc(cap, sizeof(*pt.mods));
	pt.old_idx = calloc(cap, sizeof(*pt.old_idx));
	pt.new_idx = calloc(cap, sizeof(*pt.new_idx));
	if (!pt.mods || !pt.old_idx || !pt.new_idx) {
		err = -ENOMEM;
		goto out;
	}
	while (i < old_ks->nr_mods || j < new_ks->nr_mods) {
		const struct bc_kmod *o = i < old_ks->nr_mods ? &old_ks->mods[i] : NULL;
		const struct bc_kmod *nw = j < new_ks->nr_mods ? &new_ks->mods[j] : NULL;
		int c = !o ? 1 : !nw ? -1 : strcmp(o->name, nw->name);
		struct bc_module_diff *m = &pt.mods[n];

		if (c < 0) {
			*m = (struct bc_module_diff){ .name = o->name,
				.op = BC_DIFF_REMOVED, .nr_types = o->btf->nr_types };
			i++;
		} else if (c > 0) {
			*m = (struct bc_module_diff){ .name = nw->name,
				.op = BC_DIFF_ADDED, .nr_types = nw->btf->nr_types };
			j++;
		} else {
			*m = (struct bc_module_diff){ .name = nw->name,
				.op = BC_DIFF_CHANGED };
			pt.old_idx[n] = i++;
			pt.new_idx[n] = j++;
		}
		n++;
	}
	err = bc_par_for(jobs ? jobs : bc_par_cpus(), n, diff_pair, &pt, NULL);
	/* keep the modules that differ, in name order */
	for (i = 0; i < n; i++) {
		struct bc_module_diff *m = &pt.mods[i];

		if (!err && (m->op != BC_DIFF_CHANGED || m->diff.nr_entries))
			pt.mods[kept++] = *m;
		else
			bc_diff_deinit(&m->diff);
	}
	out->mods = pt.mods;
	out->nr_mods = kept;
	pt.mods = NULL;
out:
	free(pt.mods);
	free(pt.old_idx);
	free(pt.new_idx);
	if (err) {
		bc_kset_diff_deinit(out);
		return bc_log_error(log, err, "cannot compare the modules: %s",
				    strerror(-err));
	}
	return 0;
}

void bc_kset_diff_deinit(struct bc_kset_diff *kd)
{
	uint32_t i;

	if (!kd)
		return;
	bc_diff_deinit(&kd->vmlinux);
	for (i = 0; i < kd->nr_mods; i++)
		bc_diff_deinit(&kd->mods[i].diff);
	free(kd->mods);
	memset(kd, 0, sizeof(*kd));
}

bool bc_kset_diff_empty(const struct bc_kset_diff *kd)
{
	return !kd->vmlinux.nr_entries && !kd->nr_mods;
}
