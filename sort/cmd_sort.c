// SPDX-License-Identifier: GPL-2.0-only
/*
 * The `sort` command: an existing BTF (raw, ELF .BTF, a kernel image or
 * package, ARCHIVE:NAME) read through archive/btf_file.h, put in canonical
 * order by canon, written raw, or back into the ELF file in place.
 */
#include <errno.h>
#include <getopt.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../archive/btf_file.h"
#include "../canon/canon.h"
#include "../canon/measure.h"
#include "../canon/order.h"
#include "cmd_sort.h"

struct sort_args {
	const char *input;
	const char *output;
	const char *base;
	bool in_place;
	bool stats;
	struct canon_opts canon;
};

static int parse_sort_args(int argc, char **argv, struct sort_args *args,
			   void (*usage)(FILE *out))
{
	enum { OPT_ORDER = 256, OPT_BASE, OPT_IN_PLACE, OPT_STATS };
	static const struct option opts[] = {
		{ "order", required_argument, NULL, OPT_ORDER },
		{ "base", required_argument, NULL, OPT_BASE },
		{ "btf_base", required_argument, NULL, OPT_BASE },
		{ "output", required_argument, NULL, 'o' },
		{ "in-place", no_argument, NULL, OPT_IN_PLACE },
		{ "stats", no_argument, NULL, OPT_STATS },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(args, 0, sizeof(*args));
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_ORDER:
			if (bc_order_parse(optarg, &args->canon.order)) {
				fprintf(stderr,
					"btfcanon sort: unknown order '%s' (kind or name)\n",
					optarg);
				return -EINVAL;
			}
			break;
		case OPT_BASE:
			args->base = optarg;
			break;
		case 'o':
			args->output = optarg;
			break;
		case OPT_IN_PLACE:
			args->in_place = true;
			break;
		case OPT_STATS:
			args->stats = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			return -EINVAL;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "btfcanon sort: expected one INPUT\n");
		return -EINVAL;
	}
	args->input = argv[optind];
	if (args->in_place && args->output) {
		fprintf(stderr, "btfcanon sort: --in-place and -o exclude each other\n");
		return -EINVAL;
	}
	if (!args->in_place && !args->output && !args->stats) {
		fprintf(stderr,
			"btfcanon sort: nothing to do: give -o OUTPUT, --in-place or --stats\n");
		return -EINVAL;
	}
	return 0;
}

int bc_cmd_sort(int argc, char **argv, const struct bc_log *log,
		void (*usage)(FILE *out))
{
	struct bc_btf *base = NULL, *btf = NULL;
	struct canon_result res = { 0 };
	enum bc_file_format format, base_format;
	double t0, t_read, t_canon, t_write, cpu0;
	struct sort_args args;
	int err;

	if (parse_sort_args(argc, argv, &args, usage))
		return 2;
#ifdef __GLIBC__
	/*
	 * A sort is one pass through a dozen arrays of up to a few MB: keep
	 * them all on the heap and the heap whole, so that what the parse and
	 * the ranking free is reused by the rebuild instead of being unmapped
	 * and faulted in afresh (about 1,400 of 5,100 page faults on a
	 * 127k-type vmlinux).
	 */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
	t0 = now_sec();
	cpu0 = cpu_sec();
	if (args.base) {
		err = bc_file_load_btf(args.base, NULL, &base, &base_format, log);
		if (err)
			goto out;
	}
	err = bc_file_load_btf(args.input, base, &btf, &format, log);
	if (err)
		goto out;
	if (args.in_place && format != BC_FILE_ELF) {
		err = bc_log_error(log, -EINVAL,
			"%s: --in-place needs an ELF file; for raw BTF use -o",
			args.input);
		goto out;
	}
	t_read = now_sec();
	/* a layout-bearing input keeps its kind layout section */
	args.canon.layout = btf->layout;
	args.canon.nr_layout = btf->nr_layout;
	err = canon_run(btf, &args.canon, &res, log);
	if (err)
		goto out;
	t_canon = now_sec();
	if (args.in_place)
		err = bc_file_replace_elf_btf(args.input, res.raw, res.raw_size, log);
	else if (args.output)
		err = bc_file_write_atomic(args.output, res.raw, res.raw_size, log);
	if (err)
		goto out;
	t_write = now_sec();
	if (args.stats) {
		const struct canon_stats *s = &res.stats;

		fprintf(stderr,
			"%s: %s BTF, %u types in, %u out (%u duplicates merged), order=%s\n"
			"  refinement rounds  %u (VAR identity splits %u)\n"
			"  read+validate      %8.3f s\n"
			"  rank (local keys)  %8.3f s\n"
			"  refine             %8.3f s\n"
			"  rebuild            %8.3f s\n"
			"  write              %8.3f s\n"
			"  total              %8.3f s wall, %.3f s CPU, peak RSS %ld MB\n"
			"  output             %zu bytes%s%s\n",
			args.input, base ? "split" : "base", s->types_in,
			s->types_out, s->merged, bc_order_name(args.canon.order),
			s->refine_rounds, s->identity_splits, t_read - t0,
			s->rank_sec, s->refine_sec, s->rebuild_sec,
			t_write - t_canon, t_write - t0, cpu_sec() - cpu0,
			peak_rss_kb() / 1024, res.raw_size,
			args.output || args.in_place ? " -> " : " (not written)",
			args.output ? args.output : args.in_place ? args.input : "");
	}
out:
	canon_result_deinit(&res);
	bc_btf_free(btf);
	bc_btf_free(base);
	return err ? 1 : 0;
}
