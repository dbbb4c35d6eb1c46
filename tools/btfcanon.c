// SPDX-License-Identifier: GPL-2.0-only
/*
 * btfcanon: the command-line front end. The only code that prints.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "../archive/archive_cmd.h"
#include "../canon/canon.h"
#include "../canon/distill.h"
#include "../deps/commands.h"
#include "../diff/commands.h"
#include "../header/commands.h"
#include "../encode/encoder.h"
#include "../encode/features.h"
#include "../sort/cmd_sort.h"
#include "../archive/btf_file.h"
#include "../canon/order.h"
#include "encode_job.h"

#ifndef BTFCANON_VERSION
#define BTFCANON_VERSION "0.1.0"
#endif

static void log_to_stderr(void *ctx, enum bc_log_level level, const char *msg)
{
	int verbosity = ctx ? *(int *)ctx : 0;

	if (level == BC_LOG_INFO && verbosity < 1)
		return;
	if (level == BC_LOG_DEBUG && verbosity < 2)
		return;
	fprintf(stderr, "btfcanon: %s%s\n",
		level == BC_LOG_ERROR ? "error: " :
		level == BC_LOG_WARN ? "warning: " : "", msg);
}

static void usage(FILE *out)
{
	fprintf(out,
"Usage: btfcanon COMMAND [OPTIONS]\n"
"\n"
"Commands:\n"
"  sort [--order=kind|name] [--base FILE] INPUT [-o OUTPUT | --in-place] [--stats]\n"
"      Put the BTF of INPUT (raw BTF, or an ELF file's .BTF section) in\n"
"      canonical order, merging structurally identical types.\n"
"  encode [-j N] [-o OUTPUT] [--format raw|elf] [--features LIST] INPUT\n"
"      Encode the DWARF of INPUT (vmlinux, a module, any ELF with -g) as\n"
"      canonical BTF, in parallel; the bytes do not depend on -j.\n"
"  dump [-f c|raw|json] [--base FILE] [-o OUTPUT] [--check HEADER] INPUT\n"
"      Print INPUT as a C header ordered for stable diffs (-f c), or list\n"
"      its types in canonical order (raw, json); see btfcanon dump --help.\n"
"  header --kernel K [--kernel K]... [--for FILE...] [-o OUTPUT | --check H]\n"
"      One vmlinux.h for every kernel and architecture given: the newest\n"
"      kernel's types, CO-RE flavors for older ones, #if per architecture;\n"
"      see btfcanon header --help.\n"
"  diff [--json|--stat] [--base FILE] OLD NEW\n"
"      Semantic diff of two BTFs: types, members, enumerators, functions,\n"
"      variables. Exit 0 equal, 1 different, 2 error, like diff(1).\n"
"  deps [--json] [--all] OBJECT... --kernel K [--kernel K]...\n"
"      What BPF objects need (CO-RE relocations, hooks, kfuncs, helpers,\n"
"      map and program types), checked against each kernel; exit 1 when\n"
"      something fails or reads wrong data on some kernel.\n"
"  min OBJECT... --kernel K [--kernel K]... -o DIR\n"
"      Per kernel, DIR/NAME.btf: the smallest BTF libbpf needs for the\n"
"      objects' CO-RE relocations (as bpftool gen min_core_btf).\n"
"  archive create|add|list|extract|remove|log ...\n"
"      Many kernels' BTF in one file, each under a name; ARCHIVE:NAME is\n"
"      an input of sort, dump and diff; see btfcanon archive --help.\n"
"  relocate --base NEWBASE [--distilled-base FILE] MODULE -o OUTPUT\n"
"      Move MODULE's split BTF, made over a distilled base (.BTF.base),\n"
"      onto NEWBASE as the kernel does at load time; raw split BTF out.\n"
"\n"
"Options of sort:\n"
"  --order=kind    kind, vlen, name, members, then references (default)\n"
"  --order=name    name first (anonymous first), for binary-search lookups\n"
"  --base FILE     base BTF of a split INPUT (vmlinux BTF for a module)\n"
"  -o, --output F  write raw BTF to F (- for standard output)\n"
"  --in-place      rewrite INPUT's .BTF section (ELF input)\n"
"  --stats         print types in and out, merges, rounds, time per phase\n"
"\n"
"Options of encode:\n"
"  -j, --jobs N    worker threads (default: online CPUs)\n"
"  -o, --output F  output file (required; - for standard output)\n"
"  --format raw    raw BTF (default); elf: a copy of INPUT with .BTF\n"
"  --features L    pahole --btf_features names (default: all type kinds)\n"
"  --features-strict  unknown feature names are an error\n"
"  --lang_exclude=L  skip compile units in these languages (rust, c11, ...)\n"
"  --btf_base FILE  encode split BTF over FILE's (a module over vmlinux)\n"
"  --nested-arrays int a[2][3] as an ARRAY of 2 ARRAYs of 3, as in C (the\n"
"                  default is one ARRAY of 6, as pahole writes it; nested by\n"
"                  itself over a --btf_base that nests them)\n"
"  --flat-arrays   one ARRAY of 6 even over a base that nests them\n"
"  --verbose       list the functions left out, with the rule, one a line\n"
"  --distilled-base F  with --btf_base and raw output: write split BTF over a\n"
"                  distilled base, and that base to F (as --features\n"
"                  distilled_base does for --format elf: .BTF.base)\n"
"  --order=kind|name, --stats  as for sort\n"
"\n"
"  -h, --help      this text\n"
"  -V, --version   version\n"
"\n"
"Exit status: 0 on success, 1 on bad input or failure, 2 on bad usage.\n");
}

struct encode_args {
	bool verbose;
	struct encode_job job;
};

static int parse_encode_args(int argc, char **argv, struct encode_args *args,
			     const struct bc_log *log)
{
	enum { OPT_FORMAT = 256, OPT_FEATURES, OPT_STRICT, OPT_LANG_EXCLUDE,
	       OPT_STATS, OPT_SHUFFLE, OPT_ORDER, OPT_CHUNK, OPT_NO_CACHE,
	       OPT_FLAT_ARRAYS, OPT_NESTED_ARRAYS,
	       OPT_VERBOSE, OPT_BASE, OPT_DISTILLED };
	static const struct option opts[] = {
		{ "jobs", required_argument, NULL, 'j' },
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "features", required_argument, NULL, OPT_FEATURES },
		{ "features-strict", no_argument, NULL, OPT_STRICT },
		{ "lang_exclude", required_argument, NULL, OPT_LANG_EXCLUDE },
		{ "stats", no_argument, NULL, OPT_STATS },
		{ "shuffle-cus", required_argument, NULL, OPT_SHUFFLE },
		{ "chunk-cus", required_argument, NULL, OPT_CHUNK },
		{ "no-type-cache", no_argument, NULL, OPT_NO_CACHE },
		{ "flat-arrays", no_argument, NULL, OPT_FLAT_ARRAYS },
		{ "nested-arrays", no_argument, NULL, OPT_NESTED_ARRAYS },
		{ "order", required_argument, NULL, OPT_ORDER },
		{ "verbose", no_argument, NULL, OPT_VERBOSE },
		{ "btf_base", required_argument, NULL, OPT_BASE },
		{ "base", required_argument, NULL, OPT_BASE },
		{ "distilled-base", required_argument, NULL, OPT_DISTILLED },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct encode_job *job = &args->job;
	const char *features = NULL;
	bool strict = false;
	char *end;
	int c;

	memset(args, 0, sizeof(*args));
	encode_opts_init(&job->encode);
	job->canon.resolve_fwds = true;
	optind = 1;
	while ((c = getopt_long(argc, argv, "j:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': {
			/* strtol: strtoul would take "-1" as a huge number */
			long jobs = strtol(optarg, &end, 10);

			if (end == optarg || *end || jobs < 1 || jobs > 1024) {
				fprintf(stderr,
					"btfcanon encode: -j '%s': the number of worker threads must be from 1 to 1024\n",
					optarg);
				return -EINVAL;
			}
			job->encode.jobs = jobs;
			break;
		}
		case 'o':
			job->output = optarg;
			break;
		case OPT_FORMAT:
			if (strcmp(optarg, "raw") && strcmp(optarg, "elf")) {
				fprintf(stderr, "btfcanon encode: --format is raw or elf\n");
				return -EINVAL;
			}
			job->elf = !strcmp(optarg, "elf");
			break;
		case OPT_FEATURES:
			features = optarg;
			break;
		case OPT_STRICT:
			strict = true;
			break;
		case OPT_LANG_EXCLUDE:
			if (encode_langs_parse(&job->encode.langs, optarg, true, log))
				return -EINVAL;
			break;
		case OPT_STATS:
			job->stats = true;
			break;
		case OPT_VERBOSE:
			args->verbose = true;
			break;
		case OPT_BASE:
			job->base = optarg;
			break;
		case OPT_DISTILLED:
			job->distilled_out = optarg;
			break;
		case OPT_SHUFFLE:
			job->encode.shuffle = true;
			job->encode.shuffle_seed = strtoull(optarg, NULL, 0);
			break;
		case OPT_CHUNK:
			/* hidden, for benchmarks: changes what dedup sees */
			job->encode.chunk_cus = strtoul(optarg, &end, 10);
			if (*end || !job->encode.chunk_cus) {
				fprintf(stderr, "btfcanon encode: bad --chunk-cus '%s'\n",
					optarg);
				return -EINVAL;
			}
			break;
		case OPT_FLAT_ARRAYS:
		case OPT_NESTED_ARRAYS:
			if (job->encode.arrays &&
			    job->encode.arrays != (c == OPT_FLAT_ARRAYS ?
						    ENCODE_ARRAYS_FLAT :
						    ENCODE_ARRAYS_NESTED)) {
				fprintf(stderr,
					"btfcanon encode: --flat-arrays and --nested-arrays exclude each other\n");
				return -EINVAL;
			}
			job->encode.arrays = c == OPT_FLAT_ARRAYS ?
					      ENCODE_ARRAYS_FLAT : ENCODE_ARRAYS_NESTED;
			break;
		case OPT_NO_CACHE:
			job->encode.no_type_cache = true;
			break;
		case OPT_ORDER:
			if (bc_order_parse(optarg, &job->canon.order)) {
				fprintf(stderr,
					"btfcanon encode: unknown order '%s' (kind or name)\n",
					optarg);
				return -EINVAL;
			}
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			return -EINVAL;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "btfcanon encode: expected one INPUT\n");
		return -EINVAL;
	}
	job->input = argv[optind];
	if (!job->output && !job->stats) {
		fprintf(stderr, "btfcanon encode: give -o OUTPUT (or --stats only)\n");
		return -EINVAL;
	}
	if (job->elf && job->output && !strcmp(job->output, "-")) {
		fprintf(stderr, "btfcanon encode: --format elf needs a file, not -\n");
		return -EINVAL;
	}
	if (features &&
	    encode_features_parse(features, strict, &job->encode.features, log))
		return -EINVAL;
	if (job->distilled_out) {
		if (job->elf || !job->base || !job->output) {
			fprintf(stderr,
				"btfcanon encode: --distilled-base needs --btf_base, -o and raw output\n");
			return -EINVAL;
		}
		job->encode.features.distilled_base = true;
	}
	return 0;
}

static int cmd_encode(int argc, char **argv, const struct bc_log *log)
{
	struct encode_args args;

	if (parse_encode_args(argc, argv, &args, log))
		return 2;
	if (args.verbose && log->ctx)	/* skipped functions, one line each */
		*(int *)log->ctx = 1;
	return encode_job_run(&args.job, log) ? 1 : 0;
}

static int cmd_relocate(int argc, char **argv, const struct bc_log *log)
{
	enum { OPT_BASE = 256, OPT_DISTILLED, OPT_ORDER };
	static const struct option opts[] = {
		{ "base", required_argument, NULL, OPT_BASE },
		{ "btf_base", required_argument, NULL, OPT_BASE },
		{ "distilled-base", required_argument, NULL, OPT_DISTILLED },
		{ "order", required_argument, NULL, OPT_ORDER },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *base_path = NULL, *distilled_path = NULL, *output = NULL;
	struct bc_btf *base = NULL, *dist = NULL, *split = NULL;
	enum bc_order order = BC_ORDER_KIND;
	enum bc_file_format format;
	struct relocate_stats stats;
	void *data = NULL, *raw = NULL;
	size_t size, raw_size;
	int c, err;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_BASE:
			base_path = optarg;
			break;
		case OPT_DISTILLED:
			distilled_path = optarg;
			break;
		case OPT_ORDER:
			if (bc_order_parse(optarg, &order)) {
				fprintf(stderr,
					"btfcanon relocate: unknown order '%s' (kind or name)\n",
					optarg);
				return 2;
			}
			break;
		case 'o':
			output = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			return 2;
		}
	}
	if (optind != argc - 1 || !base_path || !output) {
		fprintf(stderr,
			"btfcanon relocate: usage: relocate --base NEWBASE [--distilled-base FILE] MODULE -o OUTPUT\n");
		return 2;
	}
	err = bc_file_load_btf(base_path, NULL, &base, &format, log);
	if (err)
		goto out;
	if (distilled_path) {
		err = bc_file_load_btf(distilled_path, NULL, &dist, &format, log);
	} else {
		err = bc_file_read_btf_base(argv[optind], &data, &size, log);
		if (!err && !data)
			err = bc_log_error(log, -ENOENT,
				"%s: no .BTF.base section: its BTF is not split over a "
				"distilled base (encode with --features ...,distilled_base "
				"and --format elf), or give the base with --distilled-base",
				argv[optind]);
		if (!err)
			err = bc_btf_parse(data, size, NULL, argv[optind], log, &dist);
	}
	if (!err)
		err = bc_file_load_btf(argv[optind], dist, &split, &format, log);
	if (!err)
		err = bc_relocate(split, base, order, &raw, &raw_size, &stats, log);
	if (!err)
		err = bc_file_write_atomic(output, raw, raw_size, log);
out:
	free(raw);
	free(data);
	bc_btf_free(split);
	bc_btf_free(dist);
	bc_btf_free(base);
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	int verbosity = 0;
	struct bc_log log = { .fn = log_to_stderr, .ctx = &verbosity };

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("btfcanon %s\n", BTFCANON_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "sort"))
		return bc_cmd_sort(argc - 1, argv + 1, &log, usage);
	if (!strcmp(argv[1], "encode"))
		return cmd_encode(argc - 1, argv + 1, &log);
	if (!strcmp(argv[1], "dump"))
		return bc_cmd_dump(argc - 1, argv + 1, &log);
	if (!strcmp(argv[1], "diff"))
		return bc_cmd_diff(argc - 1, argv + 1, &log);
	if (!strcmp(argv[1], "header"))
		return bc_cmd_header(argc - 1, argv + 1, &log);
	if (!strcmp(argv[1], "deps"))
		return bc_cmd_deps(argc - 1, argv + 1, &log);
	if (!strcmp(argv[1], "min"))
		return bc_cmd_min(argc - 1, argv + 1, &log);
	if (!strcmp(argv[1], "archive") && argc > 2 && !strcmp(argv[2], "log"))
		return bc_cmd_archive_log(argc - 2, argv + 2, &log);
	if (!strcmp(argv[1], "archive"))
		return bc_cmd_archive(argc - 1, argv + 1, &log);
	if (!strcmp(argv[1], "relocate"))
		return cmd_relocate(argc - 1, argv + 1, &log);
	fprintf(stderr, "btfcanon: unknown command '%s'; see btfcanon --help\n",
		argv[1]);
	return 2;
}
