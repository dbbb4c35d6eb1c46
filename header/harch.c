// SPDX-License-Identifier: GPL-2.0-only
/*
 * The header text of one architecture: its kernels, newest first (or the
 * --layout kernel first, hkernels.c), merged into the synthetic BTF
 * (hsynth.c), flavors added (flavors.c), then the synthetic BTF (or its
 * slim cut, --for) written by dump_c with the kfuncs every kernel of the
 * architecture has not __weak (pass 4 of header.c's list). Each
 * architecture runs on a thread of its own.
 *
 * Problem: --for needs only the flavors a program can name; comparing
 * every type costs the whole set's time. Invariant: the text with --for
 * is the slim cut of the full synthetic BTF, byte for byte (write_arch()).
 * Cost: each kernel is read once; an older kernel of an archive only in
 * part, through a view.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "../archive/archive.h"
#include "../canon/btf_kinds.h"
#include "dump.h"
#include "flavors.h"
#include "harch.h"
#include "hkernels.h"
#include "hopts.h"
#include "hsynth.h"
#include "prefetch.h"
#include "smap.h"

static int cmp_str_ptr(const void *pa, const void *pb)
{
	return strcmp(*(const char *const *)pa, *(const char *const *)pb);
}

/* Whether the tags struct, union, enum and FWD share a name space in C. */
static bool is_tag_type(uint32_t kind)
{
	return kind == BTF_KIND_STRUCT || kind == BTF_KIND_UNION ||
	       kind == BTF_KIND_ENUM || kind == BTF_KIND_ENUM64 ||
	       kind == BTF_KIND_FWD;
}

/*
 * Whether a struct, union, enum or FWD of btf is named NAME___X with NAME
 * not in flavored (a type whose flavor could be its twin was maybe not
 * compared).
 */
static bool twin_unflavored(const struct btf *btf, const struct smap *flavored)
{
	uint32_t i, n = btf__type_cnt(btf), dummy;

	for (i = 1; i < n; i++) {
		const struct btf_type *t = btf__type_by_id(btf, i);
		const char *name = btf__name_by_offset(btf, t->name_off), *at;

		if (!is_tag_type(btf_kind(t)))
			continue;
		for (at = strstr(name, "___"); at; at = strstr(at + 1, "___")) {
			char *prefix = strndup(name, at - name);
			bool known = prefix && hdr_smap_get(flavored, prefix, &dummy);

			free(prefix);
			if (!known)
				return true;
		}
	}
	return false;
}

/*
 * The kernel files of one architecture's synthesis, read ahead on
 * `readers` threads (prefetch.h) while the kernels before them are
 * merged: files[j] is the j-th kernel of the list read from a file, in
 * the list's order, which is the order write_arch_once() takes them in.
 * The first kernel (the synthetic BTF's start) is read in canonical
 * order; an older one as the file has it, not sorted, with its types'
 * signatures (hdr_content_sigs()): hdr_merge_older() acts on it in an
 * order of its content, so the sort, most of a file's cost, is left out.
 * An archive's kernels are read where they are merged, as before
 * (through a view, mostly). The merge, and so the header, is the same
 * whatever the number of readers: only the thread a file is read on
 * changes.
 */
struct file_reads {
	struct hdr_kernel **kernels;
	uint32_t *files, nr_files, next;
};

/* A kernel read: its BTF and, for an older kernel's file, its signatures. */
struct kernel_read {
	struct btf *btf;
	uint64_t *sigs;
};

static void drop_read(void *item)
{
	struct kernel_read *r = item;

	if (!r)
		return;
	btf__free(r->btf);
	free(r->sigs);
	free(r);
}

/* Kernel k's BTF, checked, canonical (first) or as read with signatures. */
static int read_kernel(const struct hdr_kernel *k, bool first,
		       struct kernel_read **out, const struct bc_log *log)
{
	struct kernel_read *r = calloc(1, sizeof(*r));
	int err;

	*out = NULL;
	if (!r)
		return bc_log_error(log, -ENOMEM, "out of memory");
	if (first || k->ar) {
		err = hdr_load_checked(k, &r->btf, log);
	} else {
		err = hdr_load_kernel(k, true, &r->btf, log);
		if (!err)
			err = hdr_check_arch(k, &r->btf, log);
		if (!err && !(r->sigs = hdr_content_sigs(r->btf)))
			err = bc_log_error(log, -ENOMEM, "out of memory");
	}
	if (err) {
		drop_read(r);
		return err;
	}
	*out = r;
	return 0;
}

static int read_file_kernel(void *ctx, uint32_t j, void **item,
			    const struct bc_log *log)
{
	struct file_reads *r = ctx;
	struct kernel_read *got = NULL;
	int err = read_kernel(r->kernels[r->files[j]], r->files[j] == 0, &got, log);

	*item = got;
	return err;
}

/* readers 0: each file read when it is merged, on this thread. */
static int file_reads_start(struct file_reads *r, uint32_t nr, uint32_t readers,
			    struct bc_prefetch_slots *slots, struct bc_prefetch **pf)
{
	uint32_t i;

	r->files = calloc(nr ? nr : 1, sizeof(*r->files));
	if (!r->files)
		return -ENOMEM;
	for (i = 0; i < nr; i++)
		if (!r->kernels[i]->ar)
			r->files[r->nr_files++] = i;
	/*
	 * one kernel a reader ahead, and one more (some MB each): a
	 * reader finishing waits only when all of them are done and untaken
	 */
	return bc_prefetch_new(r->nr_files, readers, readers + 1, slots,
			       read_file_kernel, drop_read, r, pf);
}

/* Kernel i's BTF (and signatures), checked: the next file's from the readers, or read here. */
static int load_next(struct file_reads *r, struct bc_prefetch *pf, uint32_t i,
		     struct kernel_read **got, const struct bc_log *log)
{
	void *item;
	int err;

	if (r->kernels[i]->ar)
		return read_kernel(r->kernels[i], i == 0, got, log);
	err = bc_prefetch_take(pf, r->next++, &item, log);
	*got = item;
	return err;
}

/*
 * write_arch() with the types it compares limited to flavored's, or
 * every type (NULL); -EAGAIN (nothing said) when a limit cannot hold.
 */
static int write_arch_once(struct hdr_kernel **kernels, uint32_t nr,
			   const struct bc_header_opts *opts, uint32_t readers,
			   struct bc_prefetch_slots *slots, const struct smap *flavored, struct bc_text *out,
			   const struct bc_log *log)
{
	struct file_reads reads = { .kernels = kernels };
	struct bc_prefetch *pf = NULL;
	struct synth y = { .log = log, .flavored = flavored };
	struct kernel_read *newest = NULL;
	struct btf *cut = NULL;
	const struct btf *final;
	struct bc_btf *parsed = NULL;
	struct bc_dump_c_opts dopts = { 0 };
	uint32_t *uses = NULL, *cut_uses = NULL, *from = NULL;
	const char **strong = NULL;
	const void *raw;
	uint32_t i, size, nr_strong = 0;
	int err;

	bc_text_init(&y.key);
	err = file_reads_start(&reads, nr, readers, slots, &pf);
	if (err)
		goto out;
	err = load_next(&reads, pf, 0, &newest, log);
	if (err)
		goto out;
	y.s = newest->btf;	/* libbpf's parse of it, now the synthetic BTF */
	newest->btf = NULL;
	y.nr_newest = btf__type_cnt(y.s);
	/*
	 * The plain C names go by use (dump_c.c), counted in the first
	 * kernel's own types: adding an older kernel to the set, with its
	 * flavors, renames nothing of the first.
	 */
	uses = bc_dump_c_uses(y.s, 1, y.nr_newest);
	if (!uses) {
		err = -ENOMEM;
		goto out;
	}
	y.uses = uses;
	/* about two names a type and an identifier every other (enumerators) */
	if (hdr_smap_reserve(&y.names, 2 * y.nr_newest) ||
	    hdr_smap_reserve(&y.idents, y.nr_newest)) {
		err = bc_log_error(log, -ENOMEM, "out of memory");
		goto out;
	}
	for (i = 1; !err && i < y.nr_newest; i++)
		err = hdr_note_type(&y, i);
	if (!err) {
		struct copy_src self = { .btf = y.s };

		err = hdr_add_kfuncs(&y, &self, false);
	}
	for (i = 1; !err && i < nr; i++) {
		struct kernel_read *old;
		struct bc_archive_view *view = NULL;
		uint64_t seed = 0;

		if (kernels[i]->ar && !opts->whole_kernels &&
		    !hdr_wants_archived_modules(kernels[i]) &&
		    !bc_archive_kernel_stored_as_bytes(kernels[i]->ar, kernels[i]->idx) &&
		    !bc_archive_view_open(kernels[i]->ar, kernels[i]->idx, &view, log)) {
			seed = hdr_mix_str(0x5ca1ab1e, kernels[i]->ar_path);
			err = hdr_merge_older_view(&y, kernels[i], view, seed, i, log);
			bc_archive_view_free(view);
			if (err)
				goto out;
			continue;
		}
		err = load_next(&reads, pf, i, &old, log);
		if (err)
			goto out;
		err = hdr_merge_older(&y, old->btf, NULL, 0, NULL, old->sigs,
				      kernels[i]->label, i);
		drop_read(old);
	}
	if (!err && y.skipped && twin_unflavored(y.s, flavored))
		err = -EAGAIN;	/* a type some flavor left out could twin */
	if (!err)
		err = hdr_add_flavors(&y);
	if (err)
		goto out;
	hdr_fit_copied_sizes(&y);
	final = y.s;
	dopts.uses = uses;
	dopts.nr_uses = y.nr_newest;
	if (opts->slim) {
		err = opts->slim(y.s, opts->slim_req, &cut, &from, log);
		if (err)
			goto out;
		final = cut;
		cut_uses = bc_dump_c_cut_uses(uses, y.nr_newest, from,
					      btf__type_cnt(cut));
		if (!cut_uses) {
			err = -ENOMEM;
			goto out;
		}
		dopts.uses = cut_uses;
		dopts.nr_uses = btf__type_cnt(cut);
	}
	strong = calloc(y.kfunc_count.nr + 1, sizeof(*strong));
	if (!strong) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < y.kfunc_count.cap; i++) {
		if (y.kfunc_count.keys[i] && y.kfunc_count.vals[i] == nr)
			strong[nr_strong++] = y.kfunc_count.keys[i];
	}
	qsort(strong, nr_strong, sizeof(*strong), cmp_str_ptr);
	dopts.strong_kfuncs = strong;
	dopts.nr_strong_kfuncs = nr_strong;
	raw = btf__raw_data(final, &size);
	if (!raw) {
		err = -ENOMEM;
		goto out;
	}
	err = bc_btf_parse(raw, size, NULL, kernels[0]->label, log, &parsed);
	if (!err)
		err = bc_dump_c_with(parsed, final, &dopts, out, log);
out:
	if (err == -ENOMEM)
		bc_log_error(log, err, "out of memory");
	free(uses);
	free(cut_uses);
	free(from);
	free(strong);
	bc_btf_free(parsed);
	btf__free(cut);
	drop_read(newest);
	hdr_synth_deinit(&y);
	bc_prefetch_free(pf);
	free(reads.files);
	return err;
}

static int add_flavored(void *ctx, const char *name)
{
	struct smap *set = ctx;
	const char *at;
	int err = 0;

	for (at = strstr(name, "___"); !err && at; at = strstr(at + 1, "___")) {
		char *prefix = strndup(name, at - name);

		err = prefix ? hdr_smap_put(set, prefix, 1, false) : -ENOMEM;
		free(prefix);
		if (!err)
			err = hdr_smap_put(set, at + 3, 1, false);
	}
	return err;
}

/*
 * The header text of one architecture: kernels[0] the newest (or the
 * --layout kernel), the rest in order.
 *
 * --for (opts->slim_names): the slim cut keeps a flavor NAME___TAG (a
 * struct, union or enum ENUMERATOR___NAME) only when the program names
 * it: a seed of the selection by name or enumerator, since no type
 * refers to a flavor. So only the types whose names the program can
 * name flavors of are compared: the prefixes and suffixes around each
 * "___" of the program's names (flavored). A comparison left out loses
 * that type's variants, so its flavors, and the copies its new member
 * declarations would make, which copies_nothing_named() limits to
 * anonymous types referenced by those flavors only (else the type is
 * compared anyway). Everything else of the synthetic BTF is as without
 * --for, the types keep their order, so the selection keeps the same
 * types and the cut is the same BTF. One more way a flavor is kept: a
 * struct, union, enum or FWD of its very name that the selection keeps
 * (slim keeps types of one name together): a kernel type NAME___X
 * (nf_conn___init) makes NAME flavored, from the archives' name tables;
 * a kernel read from a file that has one the archives did not name has
 * the architecture synthesized again, comparing everything. Checked byte
 * for byte against comparing everything: BENCH.md, header.
 */
static int write_arch(struct hdr_kernel **kernels, uint32_t nr,
		      const struct bc_header_opts *opts, uint32_t readers,
		      struct bc_prefetch_slots *slots, struct bc_text *out,
		      const struct bc_log *log)
{
	struct smap flavored = { 0 };
	size_t len = out->len;
	uint32_t i, j, k;
	int err;

	if (!opts->slim || !opts->slim_names)
		return write_arch_once(kernels, nr, opts, readers, slots, NULL, out, log);
	err = opts->slim_names(opts->slim_req, add_flavored, &flavored);
	/* the NAME of a struct, union, enum or FWD NAME___X of any kernel */
	for (i = 0; !err && i < nr; i++) {
		for (j = 0; j < i && kernels[j]->ar != kernels[i]->ar; j++)
			;
		if (!kernels[i]->ar || j < i)
			continue;
		for (k = 0; !err && k < bc_archive_nr_type_names(kernels[i]->ar); k++) {
			uint32_t kind;
			const char *name = bc_archive_type_name(kernels[i]->ar, k, &kind);

			if (is_tag_type(kind) && strstr(name, "___"))
				err = add_flavored(&flavored, name);
		}
	}
	if (err) {
		hdr_smap_free(&flavored);
		return bc_log_error(log, err, "out of memory");
	}
	err = write_arch_once(kernels, nr, opts, readers, slots, &flavored, out, log);
	hdr_smap_free(&flavored);
	if (err != -EAGAIN)
		return err;
	bc_text_truncate(out, len);
	bc_log_printf(log, BC_LOG_DEBUG, "%s: a type name has ___: every type compared",
		      kernels[0]->label);
	return write_arch_once(kernels, nr, opts, readers, slots, NULL, out, log);
}

static void hold_msg(void *ctx, enum bc_log_level level, const char *msg)
{
	struct arch_job *job = ctx;
	struct held_msg *grown = realloc(job->msgs, (job->nr_msgs + 1) * sizeof(*grown));

	if (!grown)
		return;
	job->msgs = grown;
	job->msgs[job->nr_msgs].level = level;
	job->msgs[job->nr_msgs].msg = strdup(msg);
	if (job->msgs[job->nr_msgs].msg)
		job->nr_msgs++;
}

void *hdr_run_arch_job(void *arg)
{
	struct arch_job *job = arg;
	struct bc_log log = { .fn = hold_msg, .ctx = job };
	struct hdr_kernel *copies = NULL, **kernels = job->kernels;
	struct bc_archive **opened = NULL;
	uint32_t i, j, nr_opened = 0;

	if (job->own_archives) {
		copies = calloc(job->nr, sizeof(*copies));
		kernels = calloc(job->nr, sizeof(*kernels));
		opened = calloc(job->nr, sizeof(*opened));
		if (!copies || !kernels || !opened) {
			job->err = bc_log_error(&log, -ENOMEM, "out of memory");
			goto out;
		}
		for (i = 0; i < job->nr && !job->err; i++) {
			copies[i] = *job->kernels[i];
			kernels[i] = &copies[i];
			if (!copies[i].ar)
				continue;
			/* the archive opened again for this thread, once per original */
			for (j = 0; j < i; j++) {
				if (job->kernels[j]->ar == job->kernels[i]->ar) {
					copies[i].ar = copies[j].ar;
					break;
				}
			}
			if (j < i)
				continue;
			job->err = bc_archive_open(copies[i].ar_path, &copies[i].ar, &log);
			if (!job->err)
				opened[nr_opened++] = copies[i].ar;
		}
	}
	if (!job->err)
		job->err = write_arch(kernels, job->nr, job->opts, job->readers,
				      job->slots, job->text, &log);
out:
	for (i = 0; i < nr_opened; i++)
		bc_archive_free(opened[i]);
	free(opened);
	free(copies);
	if (kernels != job->kernels)
		free(kernels);
	return NULL;
}
