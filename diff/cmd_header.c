// SPDX-License-Identifier: GPL-2.0-only
/*
 * btfcanon header --kernel K [--kernel K]... [--for FILE...]
 *                 [-o FILE | --check FILE]
 *
 * One vmlinux.h for every kernel and architecture given (diff/header.h).
 * The whole header is built in memory and written at the end (atomically
 * with -o), so a bad input writes nothing; --check compares it with a
 * checked-in header as `dump --check` does.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../archive/btf_file.h"
#include "commands.h"
#include "header.h"

const char bc_header_usage[] =
"Usage: btfcanon header --kernel K [--kernel K]... [--for FILE...]\n"
"                       [-o OUTPUT | --check HEADER]\n"
"  --kernel K  a kernel: raw BTF, an ELF file's .BTF, a kernel image or\n"
"              package, ARCHIVE:NAME, ARCHIVE:GLOB, or a whole archive;\n"
"              x86 and arm64 kernels together\n"
"  --for FILE  only what these BPF sources (.c, .h) and objects (.bpf.o)\n"
"              need (the slim header)\n"
"  -o F        write to F (atomically) instead of standard output\n"
"  --check H   exit 1 and show the difference when H is not what would be\n"
"              written\n"
"Exit status: 0 written (or up to date), 1 stale (--check), 2 error.\n";

struct header_args {
	const char **kernels;
	uint32_t nr_kernels;
	const char **fors;
	uint32_t nr_fors;
	const char *output;
	const char *check;
};

static int parse_header_args(int argc, char **argv, struct header_args *a)
{
	enum { OPT_KERNEL = 256, OPT_FOR, OPT_CHECK };
	static const struct option opts[] = {
		{ "kernel", required_argument, NULL, OPT_KERNEL },
		{ "for", required_argument, NULL, OPT_FOR },
		{ "output", required_argument, NULL, 'o' },
		{ "check", required_argument, NULL, OPT_CHECK },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool in_for = false;
	int c;

	memset(a, 0, sizeof(*a));
	a->kernels = calloc(argc, sizeof(*a->kernels));
	a->fors = calloc(argc, sizeof(*a->fors));
	if (!a->kernels || !a->fors)
		return -ENOMEM;
	optind = 1;
	/* "-": FILEs after --for come back as non-options, in order */
	while ((c = getopt_long(argc, argv, "-k:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 1:
			if (!in_for) {
				fprintf(stderr,
					"btfcanon header: unexpected argument '%s' (kernels go after --kernel, programs after --for)\n%s",
					optarg, bc_header_usage);
				return -EINVAL;
			}
			a->fors[a->nr_fors++] = optarg;
			continue;
		case 'k':
		case OPT_KERNEL:
			a->kernels[a->nr_kernels++] = optarg;
			break;
		case OPT_FOR:
			a->fors[a->nr_fors++] = optarg;
			in_for = true;
			continue;
		case 'o':
			a->output = optarg;
			break;
		case OPT_CHECK:
			a->check = optarg;
			break;
		case 'h':
			fputs(bc_header_usage, stdout);
			exit(0);
		default:
			fputs(bc_header_usage, stderr);
			return -EINVAL;
		}
		in_for = false;
	}
	if (!a->nr_kernels) {
		fprintf(stderr, "btfcanon header: expected --kernel K\n%s",
			bc_header_usage);
		return -EINVAL;
	}
	if (a->check && a->output) {
		fprintf(stderr, "btfcanon header: --check and -o exclude each other\n");
		return -EINVAL;
	}
	return 0;
}

/* The command line that writes the header, for --check's messages. */
static void producer_text(const struct header_args *a, struct bc_text *t)
{
	uint32_t i;

	bc_text_puts(t, "btfcanon header");
	for (i = 0; i < a->nr_kernels; i++)
		bc_text_printf(t, " --kernel %s", a->kernels[i]);
	if (a->nr_fors)
		bc_text_puts(t, " --for");
	for (i = 0; i < a->nr_fors; i++)
		bc_text_printf(t, " %s", a->fors[i]);
}

int bc_cmd_header(int argc, char **argv, const struct bc_log *log)
{
	struct bc_header_opts opts = { 0 };
	struct header_args args;
	struct bc_text out;
	int err, status = 2;

	bc_text_init(&out);
	if (parse_header_args(argc, argv, &args))
		goto out;
	opts.kernels = args.kernels;
	opts.nr_kernels = args.nr_kernels;
	if (args.nr_fors) {
		bc_log_error(log, -EOPNOTSUPP,
			     "--for %s: the slim header is not built into this btfcanon yet",
			     args.fors[0]);
		goto out;
	}
	err = bc_header_write(&opts, &out, log);
	if (err)
		goto out;
	if (args.check) {
		struct bc_text producer;

		bc_text_init(&producer);
		producer_text(&args, &producer);
		status = producer.err ? 2 :
			 bc_check_header(args.check, bc_text_str(&producer), &out, log);
		bc_text_deinit(&producer);
	} else {
		status = bc_file_write_atomic(args.output ? args.output : "-",
					      bc_text_str(&out), out.len, log) ? 2 : 0;
	}
out:
	free(args.kernels);
	free(args.fors);
	bc_text_deinit(&out);
	return status;
}
