// SPDX-License-Identifier: GPL-2.0-only
/*
 * btfcanon header --kernel K [--kernel K]... [--layout KERNEL] [-I DIR]...
 *                 [--for FILE...] [-o FILE | --check FILE]
 *
 * One vmlinux.h for every kernel and architecture given (header/header.h).
 * The whole header is built in memory and written at the end (atomically
 * with -o), so a bad input writes nothing; --check compares it with a
 * checked-in header as `dump --check` does.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../archive/btf_file.h"
#include "commands.h"
#include "header.h"
#include "slim.h"

const char bc_header_usage[] =
"Usage: btfcanon header --kernel K [--kernel K]... [--module M]...\n"
"                       [--layout KERNEL] [-I DIR]... [--for FILE...] [-j N]\n"
"                       [-o OUTPUT | --check HEADER]\n"
"  --kernel K  a kernel: raw BTF, an ELF file's .BTF, a kernel image or\n"
"              package, ARCHIVE:NAME, ARCHIVE:GLOB, or a whole archive;\n"
"              x86 and arm64 kernels together; with its modules: a\n"
"              package, a modules tree, a directory as /sys/kernel/btf;\n"
"              NAME=FILE names FILE's kernel NAME (running.btf:\n"
"              --kernel 6.18.44-amd64=running.btf)\n"
"  --module M  add the types of the modules named M (a glob; repeat) of\n"
"              every kernel given with its modules that has one\n"
"  --layout KERNEL  the plain types in this kernel's layout (a name or\n"
"              glob of the set's kernels, e.g. the oldest), every other\n"
"              kernel's differences as flavors; default: the newest\n"
"  --for FILE  only what these BPF sources (.c, .h) and objects (.bpf.o)\n"
"              need (the slim header)\n"
"  -I DIR      look the sources' includes up in DIR too, as cc -I does\n"
"              (repeat, in cc's order); -IDIR too\n"
"  -j N        read the kernel files on N threads (default: one\n"
"              per CPU); the header does not depend on it\n"
"  -o F        write to F (atomically) instead of standard output\n"
"  --check H   exit 1 and show the difference when H is not what would be\n"
"              written\n"
"Exit status: 0 written (or up to date), 1 stale (--check), 2 error.\n";

struct header_args {
	const char **kernels;
	uint32_t nr_kernels;
	const char **fors;
	uint32_t nr_fors;
	const char **sources, **objects;	/* the fors, apart */
	const char **dirs;			/* -I, in order */
	uint32_t nr_dirs;
	const char *output;
	const char *check;
	uint32_t jobs;				/* -j; 0: one per CPU */
	const char *layout;
	const char **modules;			/* --module globs */
	uint32_t nr_modules;
};

static int parse_header_args(int argc, char **argv, struct header_args *a)
{
	enum { OPT_KERNEL = 256, OPT_FOR, OPT_CHECK, OPT_LAYOUT, OPT_MODULE };
	static const struct option opts[] = {
		{ "kernel", required_argument, NULL, OPT_KERNEL },
		{ "for", required_argument, NULL, OPT_FOR },
		{ "output", required_argument, NULL, 'o' },
		{ "check", required_argument, NULL, OPT_CHECK },
		{ "jobs", required_argument, NULL, 'j' },
		{ "layout", required_argument, NULL, OPT_LAYOUT },
		{ "module", required_argument, NULL, OPT_MODULE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool in_for = false;
	int c;

	memset(a, 0, sizeof(*a));
	a->kernels = calloc(argc, sizeof(*a->kernels));
	a->fors = calloc(argc, sizeof(*a->fors));
	a->sources = calloc(argc, sizeof(*a->sources));
	a->objects = calloc(argc, sizeof(*a->objects));
	a->dirs = calloc(argc, sizeof(*a->dirs));
	a->modules = calloc(argc, sizeof(*a->modules));
	if (!a->kernels || !a->fors || !a->sources || !a->objects || !a->dirs ||
	    !a->modules)
		return -ENOMEM;
	optind = 1;
	/*
	 * "-": FILEs after --for come back as non-options, in order, until
	 * the next option (-I too)
	 */
	while ((c = getopt_long(argc, argv, "-k:o:hI:j:", opts, NULL)) != -1) {
		char *end;
		long n;

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
		case OPT_LAYOUT:
			a->layout = optarg;
			break;
		case OPT_MODULE:
			a->modules[a->nr_modules++] = optarg;
			break;
		case 'I':
			a->dirs[a->nr_dirs++] = optarg;
			break;
		case 'j':
			n = strtol(optarg, &end, 10);
			if (end == optarg || *end || n < 1 || n > 1024) {
				fprintf(stderr, "btfcanon header: -j '%s': a number of threads, 1 to 1024\n",
					optarg);
				return -EINVAL;
			}
			a->jobs = (uint32_t)n;
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
	if (a->nr_dirs && !a->nr_fors) {
		fprintf(stderr, "btfcanon header: -I %s without --for: the include directories are for --for's sources\n",
			a->dirs[0]);
		return -EINVAL;
	}
	return 0;
}

/* An ELF file (a BPF object) as opposed to a C source or header. */
static bool is_elf_file(const char *path)
{
	unsigned char magic[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool elf;

	if (fd < 0)
		return false;
	elf = read(fd, magic, 4) == 4 && !memcmp(magic, "\177ELF", 4);
	close(fd);
	return elf;
}

/* header's hook for one architecture's synthetic BTF: slim.h's selection. */
static int slim_select(const struct btf *full, const void *names,
		       struct btf **out, uint32_t **from,
		       const struct bc_log *log)
{
	return bc_slim_select_from(full, names, out, from, log);
}

/* header's names hook: slim.h's names of the program. */
static int slim_each_name(const void *names, int (*fn)(void *ctx, const char *name),
			  void *ctx)
{
	return bc_slim_names_each(names, fn, ctx);
}

/* The command line that writes the header, for --check's messages. */
static void producer_text(const struct header_args *a, struct bc_text *t)
{
	uint32_t i;

	bc_text_puts(t, "btfcanon header");
	for (i = 0; i < a->nr_kernels; i++)
		bc_text_printf(t, " --kernel %s", a->kernels[i]);
	if (a->layout)
		bc_text_printf(t, " --layout %s", a->layout);
	for (i = 0; i < a->nr_modules; i++)
		bc_text_printf(t, " --module %s", a->modules[i]);
	for (i = 0; i < a->nr_dirs; i++)
		bc_text_printf(t, " -I %s", a->dirs[i]);
	if (a->nr_fors)
		bc_text_puts(t, " --for");
	for (i = 0; i < a->nr_fors; i++)
		bc_text_printf(t, " %s", a->fors[i]);
}

int bc_cmd_header(int argc, char **argv, const struct bc_log *log)
{
	struct bc_header_opts opts = { 0 };
	struct bc_slim_names *names = NULL;
	struct header_args args;
	struct bc_text out;
	int err, status = 2;

	bc_text_init(&out);
	if (parse_header_args(argc, argv, &args))
		goto out;
	opts.kernels = args.kernels;
	opts.nr_kernels = args.nr_kernels;
	opts.jobs = args.jobs;
	opts.layout = args.layout;
	opts.modules = args.modules;
	opts.nr_modules = args.nr_modules;
	if (args.nr_fors) {
		struct bc_slim_request req = {
			.sources = args.sources, .objects = args.objects,
			.include_dirs = args.dirs, .nr_include_dirs = args.nr_dirs,
		};
		uint32_t i;

		for (i = 0; i < args.nr_fors; i++) {
			if (is_elf_file(args.fors[i]))
				args.objects[req.nr_objects++] = args.fors[i];
			else
				args.sources[req.nr_sources++] = args.fors[i];
		}
		if (bc_slim_names_read(&req, &names, log))
			goto out;
		opts.slim = slim_select;
		opts.slim_req = names;
		opts.slim_names = slim_each_name;
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
	bc_slim_names_free(names);
	free(args.kernels);
	free(args.fors);
	free(args.sources);
	free(args.objects);
	free(args.dirs);
	free(args.modules);
	bc_text_deinit(&out);
	return status;
}
