// SPDX-License-Identifier: GPL-2.0-only
/*
 * `btfcanon header`: one vmlinux.h for every kernel and architecture of a
 * set (DESIGN.md, "The header of many kernels").
 *
 * Problem. A CO-RE program compiles against one header but runs on many
 * kernels: it needs the newest layout (sizeof stays true on the newest
 * kernel, new members are there), and what older kernels name differently
 * as CO-RE flavors that bpf_core_field_exists() can test. One header per
 * architecture doubles what a project keeps in git.
 *
 * The passes, per architecture:
 *
 *  1. order: the kernels of the architecture from the newest (greatest in
 *     the archive's version order; among flavors of that release the
 *     generic one, then by flavor name) to the oldest; with --layout,
 *     the chosen kernel first, the others in that order
 *     (hdr_layout_first()), and "newest" below reads "first";
 *  2. synthesis: a new BTF starts as the newest kernel's types, ids and
 *     all. Each older kernel, newest first, is compared with it by name:
 *     a named struct, union, enum or typedef the synthetic BTF lacks is
 *     copied whole (so it comes from the newest kernel that has it); a
 *     member (anonymous members looked through) that the synthetic type
 *     lacks or declares differently (C spelling by names, cdecl.h), and
 *     an enumerator it lacks, is recorded as a variant. Types a copy
 *     needs are mapped to the synthetic BTF's by (kind, name), copied when
 *     missing. kfuncs of every kernel are counted and the missing ones
 *     copied;
 *  3. flavors: each variant becomes `struct NAME___TAG { DECL; }` or
 *     `enum NAME___TAG { ENUMERATOR___NAME = VALUE }`, named by
 *     name_variants() (its content; see there for what can change);
 *  4. the synthetic BTF (or its slim cut, --for) is written by dump_c
 *     with the kfuncs every kernel of the architecture has not __weak.
 *
 * The architectures are written on two threads, then their texts are
 * merged unit by unit.
 *
 * The files, one pass each (each with its .h):
 * hkernels.c the set and its order (1), hsynth.c the synthesis (2),
 * flavors.c the flavors (3), harch.c one architecture's text (1-4 on its
 * thread), hunits.c the merge of the texts, smap.c the name tables;
 * this file reads the set, starts the threads and writes the comment
 * naming the kernels.
 *
 * Invariant: the output is a function of the set of (name, BTF): the
 * kernels are sorted before anything is read, ties broken by name.
 * Cost: each kernel is read once (twice for one whose name does not tell
 * its architecture); an older kernel of an archive only in part, through
 * a view (hdr_merge_older_view()); a kernel's comparison is one pass over its
 * named types, comparing only those whose signature is new (one C
 * spelling per member) with the synthetic type's spellings, kept once.
 * 118 Debian kernels from an archive: BENCH.md, header.
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "../archive/archive.h"
#include "../canon/par.h"
#include "harch.h"
#include "header.h"
#include "hkernels.h"
#include "hunits.h"
#include "prefetch.h"

/* ---- the comment naming the kernels ---- */

struct name_parts {
	const char *name;
	char *prefix;		/* the version up to its number */
	long num;		/* -1: no number */
	const char *suffix;	/* from the number's end to the flavor */
	const char *flavor;
	size_t suffix_len;
};

/*
 * Splits a name as 6.12.{117}+deb12-{cloud-amd64}: the number is the last
 * run of digits before any '+' of the version.
 */
static int name_split(const char *name, struct name_parts *p)
{
	const char *flavor = bc_archive_name_flavor(name);
	size_t vlen = flavor - name, plus, end;

	if (vlen && *flavor && name[vlen - 1] == '-')
		vlen--;
	plus = strcspn(name, "+");
	if (plus > vlen)
		plus = vlen;
	end = plus;
	while (end > 0 && isdigit((unsigned char)name[end - 1]))
		end--;
	p->name = name;
	p->flavor = flavor;
	p->num = end < plus && plus - end < 9 ? strtol(name + end, NULL, 10) : -1;
	p->prefix = strndup(name, p->num < 0 ? vlen : end);
	p->suffix = name + plus;
	p->suffix_len = vlen - plus;
	return p->prefix ? 0 : -ENOMEM;
}

static bool same_series(const struct name_parts *a, const struct name_parts *b)
{
	return a->num >= 0 && b->num >= 0 && !strcmp(a->prefix, b->prefix) &&
	       a->suffix_len == b->suffix_len &&
	       !strncmp(a->suffix, b->suffix, a->suffix_len) &&
	       !strcmp(a->flavor, b->flavor);
}

static int cmp_name_ptr(const void *pa, const void *pb)
{
	return bc_archive_name_cmp(*(const char *const *)pa,
				   *(const char *const *)pb);
}

/*
 * One line per series of kernel names (one flavor, one version but for
 * its last number): 6.1.0-{44..56}-amd64, 6.12.{100..101,107}+deb12-arm64.
 */
static int put_kernel_names(const char **names, uint32_t nr,
			    struct bc_text *out)
{
	struct name_parts *p = calloc(nr + 1, sizeof(*p));
	uint32_t i, j, k;
	int err = 0;

	if (!p)
		return -ENOMEM;
	qsort(names, nr, sizeof(*names), cmp_name_ptr);
	for (i = 0; !err && i < nr; i++)
		err = name_split(names[i], &p[i]);
	for (i = 0; !err && i < nr; i = j) {
		for (j = i + 1; j < nr && same_series(&p[i], &p[j]); j++)
			;
		if (j == i + 1) {
			bc_text_printf(out, " *     %s\n", names[i]);
			continue;
		}
		bc_text_printf(out, " *     %s{", p[i].prefix);
		for (k = i; k < j;) {
			uint32_t e = k;

			while (e + 1 < j && p[e + 1].num == p[e].num + 1)
				e++;
			bc_text_printf(out, "%s%ld", k > i ? "," : "", p[k].num);
			if (e > k)
				bc_text_printf(out, "..%ld", p[e].num);
			k = e + 1;
		}
		bc_text_printf(out, "}%.*s%s%s\n", (int)p[i].suffix_len, p[i].suffix,
			       *p[i].flavor ? "-" : "", p[i].flavor);
	}
	for (i = 0; i < nr; i++)
		free(p[i].prefix);
	free(p);
	return err ? err : out->err;
}

/* ---- the command's library entry ---- */

static int cmp_kernel_name(const void *pa, const void *pb)
{
	const struct hdr_kernel *a = *(struct hdr_kernel *const *)pa;
	const struct hdr_kernel *b = *(struct hdr_kernel *const *)pb;
	int c = strcmp(a->name, b->name);

	return c ? c : strcmp(a->label, b->label);
}

/*
 * The -j readers of kernel files: each architecture that has files gets
 * -j of them, and -j slots shared by all (bc_prefetch_slots) bound the
 * files read at once to -j, so that when the architecture with fewer
 * files is done (arm64's 30 of Debian's 132), the other's readers have
 * every core: with readers shared in proportion to the files, x86's one
 * reader of two read its 100 files alone once arm64's were read. -j 1:
 * each architecture's thread reads its own files (no reader thread).
 */
static void share_readers(uint32_t jobs, struct hdr_kernel **by_arch[],
			  const uint32_t nr_arch[], uint32_t readers[])
{
	uint32_t a, i;

	for (a = 0; a < BC_HEADER_NR_ARCHS; a++) {
		readers[a] = 0;
		for (i = 0; jobs > 1 && i < nr_arch[a]; i++)
			if (!by_arch[a][i]->ar)
				readers[a] = jobs;
	}
}

int bc_header_write(const struct bc_header_opts *opts, struct bc_text *out,
		    const struct bc_log *log)
{
	struct hdr_set set = { 0 };
	struct hdr_kernel **all = NULL, **by_arch[BC_HEADER_NR_ARCHS] = { 0 };
	uint32_t nr_arch[BC_HEADER_NR_ARCHS] = { 0 }, i, nr = 0, a, nr_present = 0;
	struct bc_text texts[BC_HEADER_NR_ARCHS];
	struct arch_job jobs[BC_HEADER_NR_ARCHS];
	pthread_t threads[BC_HEADER_NR_ARCHS];
	bool started[BC_HEADER_NR_ARCHS] = { false };
	uint32_t readers[BC_HEADER_NR_ARCHS];
	struct bc_prefetch_slots slots;
	int err = 0;

	for (a = 0; a < BC_HEADER_NR_ARCHS; a++)
		bc_text_init(&texts[a]);
	for (i = 0; !err && i < opts->nr_kernels; i++)
		err = hdr_set_add_arg(&set, opts->kernels[i], log);
	if (err)
		goto out;
	if (opts->nr_modules) {
		set.mods.globs = opts->modules;
		set.mods.nr = opts->nr_modules;
		set.mods.hits = calloc(opts->nr_modules, 1);
		if (!set.mods.hits) {
			err = bc_log_error(log, -ENOMEM, "out of memory");
			goto out;
		}
		for (i = 0; i < set.nr; i++)
			set.k[i].mods = &set.mods;
		for (i = 0; i < set.nr; i++)
			if (set.k[i].ar &&
			    !bc_archive_nr_modules(set.k[i].ar, set.k[i].idx))
				bc_log_printf(log, BC_LOG_WARN,
					      "%s: stored without modules: --module adds nothing to it",
					      set.k[i].label);
	}
	if (!set.nr) {
		err = bc_log_error(log, -EINVAL, "no kernel given (--kernel K)");
		goto out;
	}
	all = calloc(set.nr, sizeof(*all));
	for (a = 0; a < BC_HEADER_NR_ARCHS; a++)
		by_arch[a] = calloc(set.nr, sizeof(*by_arch[a]));
	if (!all || !by_arch[0] || !by_arch[1]) {
		err = bc_log_error(log, -ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < set.nr; i++)
		all[i] = &set.k[i];
	qsort(all, set.nr, sizeof(*all), cmp_kernel_name);
	/* one kernel per name: the first by label (an archive and a file of it) */
	for (i = 0; i < set.nr; i++) {
		struct hdr_kernel *k = all[i];
		char *version;

		if (nr && !strcmp(all[nr - 1]->name, k->name))
			continue;
		version = hdr_version_of(k->name);
		if (!version || !*version || !isdigit((unsigned char)*version)) {
			free(version);
			err = bc_log_error(log, -EINVAL,
				"%s: the kernel name '%s' has no version to order it by (name the file VERSION-FLAVOR.btf, e.g. 6.12.117-amd64.btf, or give --kernel 6.12.117-amd64=FILE)",
				k->label, k->name);
			goto out;
		}
		free(version);
		k->arch = hdr_arch_of_name(k->name);
		all[nr++] = k;
	}
	err = hdr_probe_archs(all, nr, opts->jobs ? opts->jobs : bc_par_cpus(), log);
	if (err)
		goto out;
	for (i = 0; i < nr; i++)
		by_arch[all[i]->arch][nr_arch[all[i]->arch]++] = all[i];
	for (a = 0; a < BC_HEADER_NR_ARCHS; a++)
		qsort(by_arch[a], nr_arch[a], sizeof(*by_arch[a]), hdr_cmp_newest_first);
	if (opts->layout) {
		err = hdr_layout_first(by_arch, nr_arch, opts->layout, log);
		if (err)
			goto out;
	}
	share_readers(opts->jobs ? opts->jobs : bc_par_cpus(), by_arch, nr_arch,
		      readers);
	bc_prefetch_slots_init(&slots, opts->jobs ? opts->jobs : bc_par_cpus());
	for (a = 0; a < BC_HEADER_NR_ARCHS; a++) {
		jobs[a] = (struct arch_job){ .kernels = by_arch[a], .nr = nr_arch[a],
					     .opts = opts, .text = &texts[a],
					     .readers = readers[a], .slots = &slots };
		if (!nr_arch[a])
			continue;
		jobs[a].own_archives = nr_present++ > 0;
		if (jobs[a].own_archives ||
		    pthread_create(&threads[a], NULL, hdr_run_arch_job, &jobs[a]))
			hdr_run_arch_job(&jobs[a]);
		else
			started[a] = true;
	}
	for (a = 0; a < BC_HEADER_NR_ARCHS; a++) {
		uint32_t m;

		if (started[a])
			pthread_join(threads[a], NULL);
		for (m = 0; m < jobs[a].nr_msgs; m++) {
			bc_log_printf(log, jobs[a].msgs[m].level, "%s", jobs[a].msgs[m].msg);
			free(jobs[a].msgs[m].msg);
		}
		free(jobs[a].msgs);
		if (!err)
			err = jobs[a].err;
	}
	bc_prefetch_slots_deinit(&slots);
	if (err)
		goto out;
	for (i = 0; i < set.mods.nr; i++)
		if (!set.mods.hits[i]) {
			err = bc_log_error(log, -ENOENT,
					   "--module %s: no kernel of the set has such a module",
					   set.mods.globs[i]);
			goto out;
		}

	bc_text_printf(out, "/*\n * vmlinux.h of %u kernel%s, written by `btfcanon header`:\n",
		       nr, nr == 1 ? "" : "s");
	for (a = 0; !err && a < BC_HEADER_NR_ARCHS; a++) {
		const char **names;

		if (!nr_arch[a])
			continue;
		names = calloc(nr_arch[a], sizeof(*names));
		if (!names) {
			err = -ENOMEM;
			break;
		}
		for (i = 0; i < nr_arch[a]; i++)
			names[i] = by_arch[a][i]->name;
		bc_text_printf(out, " *   %s, the types of %s%s:\n", bc_header_arch_name(a),
			       by_arch[a][0]->name, opts->layout ? " (--layout)" : "");
		err = put_kernel_names(names, nr_arch[a], out);
		free(names);
	}
	if (set.mods.nr) {
		bc_text_puts(out, " *   with the types of the modules");
		for (i = 0; i < set.mods.nr; i++)
			bc_text_printf(out, "%s %s", i ? "," : "", set.mods.globs[i]);
		bc_text_puts(out, " of each kernel that has them\n");
	}
	bc_text_puts(out, opts->layout ?
		" * What the other kernels, newer and older, have otherwise comes as\n"
		" * CO-RE flavors: struct NAME___MEMBER_TYPE { the member; }, enum\n"
		" * NAME___ENUMERATOR.\n"
		" */\n" :
		" * What only older kernels have comes as CO-RE flavors: struct\n"
		" * NAME___MEMBER { the old member; }, enum NAME___ENUMERATOR.\n"
		" */\n");
	if (nr_present > 1) {
		bc_text_printf(out,
			"#if !defined(__TARGET_ARCH_%s) && !defined(__TARGET_ARCH_%s)\n"
			"#error \"this vmlinux.h covers %s and %s: define __TARGET_ARCH_%s or __TARGET_ARCH_%s (clang -D__TARGET_ARCH_%s)\"\n"
			"#endif\n",
			bc_header_arch_name(0), bc_header_arch_name(1),
			bc_header_arch_name(0), bc_header_arch_name(1),
			bc_header_arch_name(0), bc_header_arch_name(1),
			bc_header_arch_name(0));
		if (!err)
			err = hdr_merge_texts(&texts[0], &texts[1], out);
	} else {
		for (a = 0; a < BC_HEADER_NR_ARCHS; a++)
			bc_text_add(out, bc_text_str(&texts[a]), texts[a].len);
	}
	if (!err)
		err = out->err;
	if (err)
		bc_log_error(log, err, "cannot write the header: %s", strerror(-err));
out:
	for (a = 0; a < BC_HEADER_NR_ARCHS; a++) {
		bc_text_deinit(&texts[a]);
		free(by_arch[a]);
	}
	free(all);
	hdr_set_free(&set);
	return err;
}
