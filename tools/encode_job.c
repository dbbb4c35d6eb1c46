// SPDX-License-Identifier: GPL-2.0-only
/*
 * The encode driver: base BTF in, encode_file(), canon, then the output
 * (raw, an ELF copy, or split over a distilled base), with --stats.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "../canon/distill.h"
#include "../canon/par.h"
#include "../archive/btf_file.h"
#include "encode_job.h"
#include "../canon/measure.h"

static void print_select_stats(const struct encode_stats *es)
{
	const struct select_stats *s = &es->select;
	int why;

	fprintf(stderr,
		"  functions, variables %6.3f s: %u FUNCs of %u candidates, %u VARs of %u, %u DATASECs, %u decl tags, %u kfunc tags\n",
		es->select_sec, s->funcs, s->func_cands, s->vars, s->var_cands,
		s->datasecs, s->decl_tags, s->kfunc_tags);
	for (why = 0; why < SKIP_NR; why++)
		if (s->skipped[why])
			fprintf(stderr, "    skipped: %u, %s\n", s->skipped[why],
				select_skip_reason(why));
}

/*
 * Split BTF over a distilled base: res (split over the full base of
 * parsed) distilled, then written as .BTF and .BTF.base of an ELF copy,
 * or as two raw files (output and distilled_out).
 */
static int write_distilled(const struct encode_job *job,
			   const struct bc_btf *parsed,
			   const struct canon_result *res,
			   const struct bc_log *log)
{
	struct distill_result dr = { 0 };
	struct bc_btf *split = NULL;
	int err;

	err = bc_btf_parse(res->raw, res->raw_size, parsed->base, job->input,
			   log, &split);
	if (!err)
		err = bc_distill(split, job->canon.order, &dr, log);
	if (err)
		goto out;
	if (job->elf)
		err = bc_file_write_elf_with_btf_base(job->input, job->output,
						      dr.split_raw, dr.split_size,
						      dr.base_raw, dr.base_size,
						      log);
	else if (!(err = bc_file_write_atomic(job->distilled_out, dr.base_raw,
					      dr.base_size, log)) &&
		 (err = bc_file_write_atomic(job->output, dr.split_raw,
					     dr.split_size, log)))
		unlink(job->distilled_out);	/* one without the other is no use */
	if (!err && job->stats)
		fprintf(stderr,
			"  distilled base: %u of the base's types reached, %u kept "
			"(%u as stubs), %u copied into the split part; %zu + %zu bytes\n",
			dr.stats.base_types, dr.stats.kept, dr.stats.stubs,
			dr.stats.moved, dr.base_size, dr.split_size);
out:
	bc_distill_result_deinit(&dr);
	bc_btf_free(split);
	return err;
}

/*
 * The encoder's libbpf BTF is done with once canon has its copy, and
 * freeing it is slow: libbpf releases its string index entry by entry,
 * 20-40 ms for a vmlinux (1-3% of the whole encode). A thread of its
 * own frees it while canon runs.
 */
static void *release_btf_main(void *btf)
{
	btf__free(btf);
	return NULL;
}

/*
 * The critical path: the run on unlimited cores (encode_critical), then
 * canon and the write, serial so far; thread CPU seconds.
 */
static void print_critical_path(const struct encode_stats *es,
				double canon_sec, double write_sec)
{
	const struct encode_critical *c = &es->critical;

	fprintf(stderr,
		"  critical path      %8.3f s: start %.3f, longest chunk %.3f (first piece %.3f, later piece %.3f, join %.3f), merge %.3f (groups %.3f, offsets %.3f, strings %.3f, types %.3f, read %.3f), dedup %.3f, functions %.3f, onto the base %.3f, canon %.3f, write %.3f\n",
		c->total + canon_sec + write_sec, c->start, c->chunk,
		c->first_piece, c->later_piece, c->join,
		c->merge,
		c->groups,
		es->merge.plan_sec, es->merge.strings_sec,
		es->merge.copy_longest_sec,
		es->merge.parse_sec, c->dedup, c->select, c->attach,
		canon_sec, write_sec);
}

int encode_job_run(const struct encode_job *job, const struct bc_log *log)
{
	struct encode_opts opts = job->encode;
	struct canon_opts canon = job->canon;
	struct encode_stats es;
	struct canon_result res = { 0 };
	struct bc_btf *parsed = NULL, *base = NULL;
	struct encode_result enc = { 0 };
	struct bc_btf_layout layout[BC_NR_KINDS];
	uint32_t i;
	enum bc_file_format base_format;
	double t0, cpu0, t_canon0, t_canon, t_write, c_canon0, c_canon, c_write;
	pthread_t releaser;
	bool releasing = false;
	const void *raw;
	__u32 raw_size;
	int err;

	t0 = now_sec();
	cpu0 = cpu_sec();
	if (job->distilled_out)
		opts.features.distilled_base = true;
	if (job->base) {
		/* parsed once, read by the encoder and canon alike, in place */
		static const struct bc_parse_opts read_only = { .in_place = true };

		err = bc_file_load_btf_opts(job->base, NULL, &read_only, &base,
					    &base_format, log);
		if (err)
			goto out;
		opts.base = base;
	}
	err = encode_file(job->input, &opts, &enc, &es, log);
	if (err)
		goto out;
	if (job->none_if_empty && !es.cus)
		goto out;	/* as pahole: no unit, no encoder, nothing written */
	if (job->on_decisions)
		job->on_decisions(job->ctx, &enc.decisions);
	t_canon0 = now_sec();
	c_canon0 = bc_clock_sec(CLOCK_THREAD_CPUTIME_ID);
	raw = encode_result_raw(&enc, &raw_size);
	if (!raw) {
		err = bc_log_error(log, -ENOMEM, "%s: out of memory", job->input);
		goto out;
	}
	if (opts.features.layout && !base) {
		/* as pahole: a layout section for base BTF only */
		for (i = 0; i < BC_NR_KINDS; i++)
			layout[i] = bc_kind_btf_layout(i);
		canon.layout = layout;
		canon.nr_layout = BC_NR_KINDS;
	}
	err = bc_btf_parse(raw, raw_size, base, job->input, log, &parsed);
	if (!err && enc.btf &&
	    !pthread_create(&releaser, NULL, release_btf_main, enc.btf)) {
		enc.btf = NULL;		/* parsed holds a copy */
		releasing = true;
	}
	canon.omit = enc.omit;	/* the encoder's helper types */
	canon.jobs = opts.jobs;
	if (!err)
		err = canon_run(parsed, &canon, &res, log);
	if (err)
		goto out;
	t_canon = now_sec();
	c_canon = bc_clock_sec(CLOCK_THREAD_CPUTIME_ID);
	/* as pahole: distilled for an ELF output (or a named base file) only */
	if (base && opts.features.distilled_base &&
	    ((job->elf && job->output) || job->distilled_out))
		err = write_distilled(job, parsed, &res, log);
	else if (job->output && job->elf)
		err = bc_file_write_elf_with_btf(job->input, job->output, res.raw,
						 res.raw_size, log);
	else if (job->output)
		err = bc_file_write_atomic(job->output, res.raw, res.raw_size, log);
	if (err)
		goto out;
	t_write = now_sec();
	c_write = bc_clock_sec(CLOCK_THREAD_CPUTIME_ID);
	if (job->stats) {
		char attach[128] = "";

		if (job->base)
			snprintf(attach, sizeof(attach),
				 "  onto the base      %8.3f s (%u types are the base's, %u the module's)\n",
				 es.attach_sec, es.attach.mapped, es.attach.own);
		fprintf(stderr,
			"%s: %u CUs encoded (%u skipped), %llu DIEs visited, %u threads\n"
			"  types: %llu encoded (%llu copies from the type cache), %llu in %u deduplicated chunks (encoded in %u pieces), %u after dedup, %u canonical (%u FWDs resolved in %u passes, %u merged)\n"
			"  load+encode        %8.3f s wall, %.3f s CPU (workers from %.3f s, the last stopped %.3f s after the first)\n"
			"  merge              %8.3f s\n"
			"  dedup              %8.3f s\n"
			"%s"
			"  canon              %8.3f s (rank %.3f, refine %.3f, fwd %.3f, rebuild %.3f)\n"
			"  write              %8.3f s\n"
			"  total              %8.3f s wall, %.3f s CPU, peak RSS %ld MB\n",
			job->input, es.cus, es.cus_skipped,
			(unsigned long long)es.dies, opts.jobs,
			(unsigned long long)es.types_encoded,
			(unsigned long long)es.cache_hits,
			(unsigned long long)es.types_chunked, es.chunks, es.pieces,
			es.types_deduped, res.stats.types_out,
			res.stats.fwds_resolved, res.stats.fwd_rounds,
			res.stats.merged,
			es.encode_sec, es.encode_cpu_sec, es.workers_start_sec,
			es.workers_spread_sec, es.merge_sec,
			es.dedup_sec, attach, t_canon - t_canon0, res.stats.rank_sec,
			res.stats.refine_sec, res.stats.fwd_sec,
			res.stats.rebuild_sec,
			t_write - t_canon, t_write - t0, cpu_sec() - cpu0,
			peak_rss_kb() / 1024);
		if (es.groups)
			fprintf(stderr, "  groups: %llu types in %u groups of chunks, each deduplicated\n",
				(unsigned long long)es.types_grouped, es.groups);
		/* canon's parallel steps count by their longest task */
		print_critical_path(&es, c_canon - c_canon0 - res.stats.cpu_sec +
				    res.stats.critical_sec, c_write - c_canon);
		print_select_stats(&es);
	}
out:
	if (releasing)
		pthread_join(releaser, NULL);
	canon_result_deinit(&res);
	bc_btf_free(parsed);
	encode_result_deinit(&enc);
	bc_btf_free(base);
	return err;
}
