// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernels of `btfcanon header`'s set (pass 1 of header.c's list):
 * the --kernel arguments read into (name, label, file or archive index),
 * each kernel's architecture (its name, else its struct pt_regs), its
 * BTF read through libbpf, and the order the synthesis takes them in.
 *
 * Problem: the header must not depend on the order of the arguments nor
 * on how a kernel is given (a file, an archive). Invariant: kernels are
 * named by their name alone and ordered by it (hdr_cmp_newest_first(),
 * ties broken by label). Cost: nothing is read here but the names; a
 * kernel whose name does not tell its architecture is read once more.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "../archive/archive.h"
#include "../archive/input.h"
#include "../archive/kernel_set.h"
#include "../canon/text.h"
#include "hkernels.h"
#include "hopts.h"
#include "prefetch.h"

static const char *const arch_names[BC_HEADER_NR_ARCHS] = {
	[BC_HEADER_X86] = "x86",
	[BC_HEADER_ARM64] = "arm64",
};

const char *bc_header_arch_name(enum bc_header_arch arch)
{
	return arch < BC_HEADER_NR_ARCHS ? arch_names[arch] : "?";
}

/* ---- the kernels of the set ---- */

void hdr_set_free(struct hdr_set *s)
{
	uint32_t i;

	for (i = 0; i < s->nr; i++) {
		free(s->k[i].label);
		free(s->k[i].name);
	}
	for (i = 0; i < s->nr_archives; i++) {
		bc_archive_free(s->archives[i]);
		free(s->archive_paths[i]);
	}
	free(s->k);
	free(s->archives);
	free(s->archive_paths);
	free(s->mods.hits);
}

static struct hdr_kernel *set_add(struct hdr_set *s)
{
	if (s->nr == s->cap) {
		uint32_t cap = s->cap ? 2 * s->cap : 16;
		struct hdr_kernel *k = realloc(s->k, cap * sizeof(*k));

		if (!k)
			return NULL;
		s->k = k;
		s->cap = cap;
	}
	memset(&s->k[s->nr], 0, sizeof(s->k[0]));
	s->k[s->nr].arch = -1;
	return &s->k[s->nr++];
}

/* The architecture a kernel name's flavor names, or -1. */
int hdr_arch_of_name(const char *name)
{
	const char *flavor = bc_archive_name_flavor(name);

	if (strstr(flavor, "amd64") || strstr(flavor, "x86_64") ||
	    strstr(flavor, "x86"))
		return BC_HEADER_X86;
	if (strstr(flavor, "arm64") || strstr(flavor, "aarch64"))
		return BC_HEADER_ARM64;
	return -1;
}

/* Adds the kernels of one --kernel argument. */
int hdr_set_add_arg(struct hdr_set *s, const char *arg,
		    const struct bc_log *log)
{
	struct bc_archive **ars;
	struct bc_archive_arg a;
	struct hdr_kernel *k;
	char **paths;
	uint32_t i;
	int err;

	err = bc_archive_arg_open(arg, &a, log);
	if (err)
		return err;
	if (!a.ar) {
		if (access(a.file, R_OK)) {
			err = bc_log_error(log, -errno, "%s: %s", arg, strerror(errno));
			goto out;
		}
		k = set_add(s);
		if (!k || !(k->label = strdup(arg))) {
			err = bc_log_error(log, -ENOMEM, "out of memory");
			goto out;
		}
		k->path = a.file;
		if (a.name) {
			k->name = a.name;	/* --kernel NAME=FILE */
			a.name = NULL;
		} else {
			err = bc_archive_input_name(a.file, &k->name, log);
		}
		goto out;
	}
	ars = realloc(s->archives, (s->nr_archives + 1) * sizeof(*ars));
	if (ars)
		s->archives = ars;
	paths = realloc(s->archive_paths, (s->nr_archives + 1) * sizeof(*paths));
	if (paths)
		s->archive_paths = paths;
	if (!ars || !paths) {
		bc_archive_free(a.ar);
		err = bc_log_error(log, -ENOMEM, "out of memory");
		goto out;
	}
	s->archives[s->nr_archives] = a.ar;
	s->archive_paths[s->nr_archives++] = a.path;	/* the set's now */
	for (i = 0; i < a.nr; i++) {
		const char *name = bc_archive_kernel_name(a.ar, a.idx[i]);

		k = set_add(s);
		if (!k) {
			err = bc_log_error(log, -ENOMEM, "out of memory");
			goto out;
		}
		k->ar = a.ar;
		k->ar_path = a.path;
		k->idx = a.idx[i];
		k->name = strdup(a.name ? a.name : name);	/* NAME=: one kernel */
		if (asprintf(&k->label, "%s:%s", a.path, name) < 0)
			k->label = NULL;
		if (!k->label || !k->name) {
			err = bc_log_error(log, -ENOMEM, "out of memory");
			goto out;
		}
	}
out:
	if (s->nr_archives && s->archive_paths[s->nr_archives - 1] == a.path)
		a.path = NULL;	/* owned by the set */
	bc_archive_arg_deinit(&a);
	return err;
}

bool hdr_wants_archived_modules(const struct hdr_kernel *k)
{
	return k->ar && k->mods && k->mods->nr &&
	       bc_archive_nr_modules(k->ar, k->idx);
}

/* Reads one kernel's BTF as libbpf's struct btf. */
int hdr_load_kernel(const struct hdr_kernel *k, bool as_read,
		    struct btf **out, const struct bc_log *log)
{
	/* the header takes names by their text: the input's strings do */
	struct bc_input_opts opts = { .canonicalize = !as_read, .for_libbpf = true };
	struct bc_input in;
	struct btf *base = NULL;
	void *raw;
	size_t size;
	int err = 0;

	*out = NULL;
	if (hdr_wants_archived_modules(k)) {
		/* the modules asked for, from the archive's records */
		err = bc_archive_kernel_merged(k->ar, k->idx, k->label,
					       k->mods->globs, k->mods->nr,
					       k->mods->hits, &raw, &size, log);
	} else if (k->ar) {
		err = bc_archive_kernel_raw(k->ar, k->idx, &raw, &size, log);
	}
	if (k->ar) {
		if (err)
			return err;
		*out = btf__new(raw, size);
		err = *out ? 0 : -errno;
		free(raw);
		if (err)
			return bc_log_error(log, err, "%s: libbpf cannot read its BTF: %s",
					    k->label, strerror(-err));
		return 0;
	}
	if (k->mods && k->mods->nr) {
		bool has_modules;

		/* vmlinux and the modules asked for, as one canonical BTF */
		err = bc_kernel_set_merged(k->path, k->mods->globs, k->mods->nr,
					   k->mods->hits, &raw, &size,
					   &has_modules, log);
		if (err)
			return err;
		*out = btf__new(raw, size);
		err = *out ? 0 : -errno;
		free(raw);
		return err ? bc_log_error(log, err, "%s: libbpf cannot read its BTF: %s",
					  k->label, strerror(-err)) : 0;
	}
	err = bc_input_load(k->path, &opts, &in, log);
	if (err)
		return err;
	if (in.base) {
		bc_input_deinit(&in);
		return bc_log_error(log, -EINVAL,
			"%s: split BTF (a module's): header takes a kernel's own BTF",
			k->path);
	}
	err = bc_input_to_libbpf(&in, &base, out, log);
	btf__free(base);
	bc_input_deinit(&in);
	return err;
}

bool hdr_is_composite(const struct btf_type *t)
{
	return t && (btf_is_struct(t) || btf_is_union(t));
}

/* Whether the struct or union id has a member called name, anonymous members looked through. */
static bool has_leaf(const struct btf *btf, uint32_t id, const char *name,
		     int depth)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	uint32_t j;

	if (!hdr_is_composite(t) || depth > 32)
		return false;
	for (j = 0; j < btf_vlen(t); j++) {
		const struct btf_member *m = btf_members(t) + j;
		const char *mname = btf__name_by_offset(btf, m->name_off);

		if (*mname ? !strcmp(mname, name) :
			     has_leaf(btf, m->type, name, depth + 1))
			return true;
	}
	return false;
}

/*
 * The architecture a kernel's BTF is of, from struct pt_regs: x86's has
 * orig_ax, arm64's orig_x0; -1 when neither (or both: two struct pt_regs).
 */
int hdr_arch_of_btf(const struct btf *btf)
{
	uint32_t i, n = btf__type_cnt(btf);
	bool x86 = false, arm64 = false;

	/* every struct pt_regs, so the answer does not depend on the ids' order */
	for (i = 1; i < n; i++) {
		const struct btf_type *t = btf__type_by_id(btf, i);

		if (!btf_is_struct(t) || !t->name_off ||
		    strcmp(btf__name_by_offset(btf, t->name_off), "pt_regs"))
			continue;
		x86 |= has_leaf(btf, i, "orig_ax", 0);
		arm64 |= has_leaf(btf, i, "orig_x0", 0);
	}
	if (x86 != arm64)
		return x86 ? BC_HEADER_X86 : BC_HEADER_ARM64;
	return -1;
}

/* ---- order ---- */

/* The version part of a kernel name, malloc'd. */
char *hdr_version_of(const char *name)
{
	const char *flavor = bc_archive_name_flavor(name);
	size_t len = flavor - name;

	if (len && *flavor && name[len - 1] == '-')
		len--;
	return strndup(name, len);
}

static int cmp_version(const char *a, const char *b)
{
	char *va = hdr_version_of(a), *vb = hdr_version_of(b);
	int c = va && vb ? bc_archive_name_cmp(va, vb) : 0;

	free(va);
	free(vb);
	return c;
}

static int cmp_str(const void *pa, const void *pb)
{
	return strcmp(*(const char *const *)pa, *(const char *const *)pb);
}

/* A generic flavor: the architecture's own name, or none. */
static bool is_generic_flavor(const char *name)
{
	const char *f = bc_archive_name_flavor(name);

	return !*f || !strcmp(f, "amd64") || !strcmp(f, "arm64") ||
	       !strcmp(f, "x86_64") || !strcmp(f, "aarch64");
}

/*
 * Newest first: by version (the archive's order, flavor aside), then the
 * generic flavor before the others, then by flavor name, then by label.
 */
int hdr_cmp_newest_first(const void *pa, const void *pb)
{
	const struct hdr_kernel *a = *(struct hdr_kernel *const *)pa;
	const struct hdr_kernel *b = *(struct hdr_kernel *const *)pb;
	int c = cmp_version(b->name, a->name);

	if (c)
		return c;
	c = (int)is_generic_flavor(b->name) - (int)is_generic_flavor(a->name);
	if (c)
		return c;
	c = strcmp(bc_archive_name_flavor(a->name), bc_archive_name_flavor(b->name));
	if (c)
		return c;
	c = strcmp(a->name, b->name);
	return c ? c : strcmp(a->label, b->label);
}

/*
 * The set's names for an error message: those that contain what was
 * given (a hint), else all of them, at most 16, sorted.
 */
static void put_names_hint(struct hdr_kernel **const by_arch[BC_HEADER_NR_ARCHS],
			   const uint32_t nr_arch[BC_HEADER_NR_ARCHS],
			   const char *given, struct bc_text *t)
{
	const char **names;
	uint32_t a, i, nr = 0, nr_near = 0, shown = 0, all = 0;
	bool near;

	for (a = 0; a < BC_HEADER_NR_ARCHS; a++)
		all += nr_arch[a];
	names = calloc(all + 1, sizeof(*names));
	if (!names)
		return;
	for (a = 0; a < BC_HEADER_NR_ARCHS; a++) {
		for (i = 0; i < nr_arch[a]; i++)
			nr_near += strstr(by_arch[a][i]->name, given) != NULL;
	}
	near = nr_near > 0;
	for (a = 0; a < BC_HEADER_NR_ARCHS; a++) {
		for (i = 0; i < nr_arch[a]; i++) {
			if (!near || strstr(by_arch[a][i]->name, given))
				names[nr++] = by_arch[a][i]->name;
		}
	}
	qsort(names, nr, sizeof(*names), cmp_str);
	bc_text_puts(t, near ? "; did you mean " : "; the set's kernels: ");
	for (i = 0; i < nr && shown < 16; i++, shown++)
		bc_text_printf(t, "%s%s", i ? ", " : "", names[i]);
	if (nr > shown)
		bc_text_printf(t, " (and %u more)", nr - shown);
	free(names);
}

/*
 * --layout: puts first in each architecture's list (newest first) the
 * kernel whose layout the plain types take, the others keeping their
 * order, so that the synthesis starts from it and every other kernel's
 * differences, newer and older, become flavors.
 *
 * The pattern is matched against the set's kernel names as ARCHIVE:GLOB
 * is (fnmatch: a name, or a glob such as '6.1.0-56-*'), at most one
 * kernel per architecture. An architecture none of whose kernels match
 * (--layout 6.1.0-56-amd64 on a set with arm64 kernels too) takes its
 * newest kernel not newer than the one matched, by version, else its
 * oldest. Returns 0, or -EINVAL after a message naming the pattern.
 */
int hdr_layout_first(struct hdr_kernel **by_arch[BC_HEADER_NR_ARCHS],
		     const uint32_t nr_arch[BC_HEADER_NR_ARCHS],
		     const char *pattern, const struct bc_log *log)
{
	const struct hdr_kernel *ref = NULL;
	uint32_t at[BC_HEADER_NR_ARCHS], a, i;
	bool found[BC_HEADER_NR_ARCHS] = { false };
	struct hdr_kernel *k;
	struct bc_text msg;
	int err;

	for (a = 0; a < BC_HEADER_NR_ARCHS; a++) {
		for (i = 0; i < nr_arch[a]; i++) {
			k = by_arch[a][i];
			if (fnmatch(pattern, k->name, 0))
				continue;
			if (found[a])
				return bc_log_error(log, -EINVAL,
					"--layout %s: names %s and %s, two kernels of %s: one per architecture",
					pattern, by_arch[a][at[a]]->name, k->name,
					bc_header_arch_name(a));
			found[a] = true;
			at[a] = i;
			ref = k;
		}
	}
	if (!ref) {
		bc_text_init(&msg);
		put_names_hint(by_arch, nr_arch, pattern, &msg);
		err = bc_log_error(log, -EINVAL,
			"--layout %s: no kernel of the set is named so%s", pattern,
			msg.err ? "" : bc_text_str(&msg));
		bc_text_deinit(&msg);
		return err;
	}
	for (a = 0; a < BC_HEADER_NR_ARCHS; a++) {
		if (!nr_arch[a])
			continue;
		if (!found[a]) {
			for (at[a] = 0; at[a] + 1 < nr_arch[a] &&
			     cmp_version(by_arch[a][at[a]]->name, ref->name) > 0; at[a]++)
				;
		}
		k = by_arch[a][at[a]];
		memmove(by_arch[a] + 1, by_arch[a], at[a] * sizeof(*by_arch[a]));
		by_arch[a][0] = k;
	}
	return 0;
}

/* Checks that kernel k's BTF is of the architecture its name says (frees it if not). */
int hdr_check_arch(const struct hdr_kernel *k, struct btf **btf,
		   const struct bc_log *log)
{
	int arch = hdr_arch_of_btf(*btf);

	if (arch >= 0 && arch != k->arch) {
		btf__free(*btf);
		*btf = NULL;
		return bc_log_error(log, -EINVAL,
			"%s: its name (%s) says %s, its BTF (struct pt_regs) says %s",
			k->label, k->name, bc_header_arch_name(k->arch),
			bc_header_arch_name(arch));
	}
	return 0;
}

/* Reads kernel k and checks that its BTF is of the architecture its name says. */
int hdr_load_checked(const struct hdr_kernel *k, struct btf **btf,
		     const struct bc_log *log)
{
	int err = hdr_load_kernel(k, false, btf, log);

	return err ? err : hdr_check_arch(k, btf, log);
}

/* The architecture probe of hdr_probe_archs(): the files to probe, by name. */
struct arch_probes {
	struct hdr_kernel **files;
	uint32_t nr_files;
};

static int probe_arch(struct hdr_kernel *k, const struct bc_log *log)
{
	struct btf *btf;
	int err = hdr_load_kernel(k, true, &btf, log);	/* pt_regs: any order */

	if (err)
		return err;
	k->arch = hdr_arch_of_btf(btf);	/* k's own: no other task writes it */
	btf__free(btf);
	return 0;
}

static int probe_file_arch(void *ctx, uint32_t j, void **item,
			   const struct bc_log *log)
{
	struct arch_probes *p = ctx;

	*item = NULL;
	return probe_arch(p->files[j], log);
}

int hdr_probe_archs(struct hdr_kernel **all, uint32_t nr, uint32_t jobs,
		    const struct bc_log *log)
{
	struct arch_probes p = { 0 };
	struct bc_prefetch *pf = NULL;
	uint32_t i, j = 0;
	int err = 0;

	p.files = calloc(nr ? nr : 1, sizeof(*p.files));
	if (!p.files)
		return bc_log_error(log, -ENOMEM, "out of memory");
	for (i = 0; i < nr; i++)
		if (all[i]->arch < 0 && !all[i]->ar)
			p.files[p.nr_files++] = all[i];
	if (bc_prefetch_new(p.nr_files, jobs > 1 ? jobs : 0, jobs, NULL,
			    probe_file_arch, NULL, &p, &pf)) {
		free(p.files);
		return bc_log_error(log, -ENOMEM, "out of memory");
	}
	for (i = 0; !err && i < nr; i++) {
		struct hdr_kernel *k = all[i];
		void *item;

		/* by the name, not k->arch: a reader may be writing that */
		if (hdr_arch_of_name(k->name) >= 0)
			continue;
		err = k->ar ? probe_arch(k, log) :
			      bc_prefetch_take(pf, j++, &item, log);
		if (!err && k->arch < 0)
			err = bc_log_error(log, -EINVAL,
				"%s: cannot tell its architecture: neither its name (%s) nor its struct pt_regs is x86's or arm64's",
				k->label, k->name);
	}
	bc_prefetch_free(pf);
	free(p.files);
	return err;
}
