// SPDX-License-Identifier: GPL-2.0-only
/*
 * btfcanon diff [--json|--stat] [--color[=WHEN]] [--base F] [--old-base F]
 *		 [--new-base F] OLD NEW
 *
 * Exit status as diff(1): 0 equal, 1 different, 2 trouble. The report is
 * built in memory, so an error in NEW prints no half report about OLD.
 *
 * OLD and NEW are kernels with their modules where they hold them (a
 * package, a modules tree, a directory of BTF: archive/kernel_set.h): the
 * vmlinux report, then a section per module that changed, was added or
 * was removed (kset_diff.h). --no-modules, --base and a kernel without
 * modules on either side compare vmlinux (or the files) alone.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../archive/btf_file.h"
#include "btf_diff.h"
#include "commands.h"
#include "../archive/input.h"
#include "../archive/kernel_set.h"
#include "kset_diff.h"

const char bc_diff_usage[] =
"Usage: btfcanon diff [--json|--stat] [--color[=auto|always|never]]\n"
"                     [--base F | --old-base F --new-base F] [--no-modules]\n"
"                     [-j N] OLD NEW\n"
"  OLD, NEW     raw BTF, an ELF file's .BTF, an ELF file with only DWARF, a\n"
"               kernel image, or a kernel with its modules: a package\n"
"               (.deb, .rpm), a modules tree, a directory of BTF\n"
"               (/sys/kernel/btf): then a section per module that differs\n"
"  --no-modules compare vmlinux alone, whatever holds modules\n"
"  -j N         threads for the modules (default: every CPU)\n"
"  --json       the report as JSON, one entry per line\n"
"  --stat       counts of changed, added and removed types and items\n"
"  --color      colour the text report (default: auto, on a terminal)\n"
"  --base F     base BTF of split OLD and NEW (--old-base/--new-base apart)\n"
"Exit status: 0 equal, 1 different, 2 error.\n";

enum diff_view {
	VIEW_TEXT,
	VIEW_JSON,
	VIEW_STAT,
};

struct diff_args {
	const char *old_path, *new_path;
	const char *old_base, *new_base;
	enum diff_view view;
	int color;		/* -1 auto, 0 never, 1 always */
	bool no_modules;
	unsigned int jobs;	/* 0: every CPU */
};

static int parse_diff_args(int argc, char **argv, struct diff_args *args)
{
	enum { OPT_JSON = 256, OPT_STAT, OPT_COLOR, OPT_BASE, OPT_OLD_BASE,
	       OPT_NEW_BASE, OPT_NO_MODULES };
	static const struct option opts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "stat", no_argument, NULL, OPT_STAT },
		{ "color", optional_argument, NULL, OPT_COLOR },
		{ "colour", optional_argument, NULL, OPT_COLOR },
		{ "base", required_argument, NULL, OPT_BASE },
		{ "old-base", required_argument, NULL, OPT_OLD_BASE },
		{ "new-base", required_argument, NULL, OPT_NEW_BASE },
		{ "no-modules", no_argument, NULL, OPT_NO_MODULES },
		{ "jobs", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(args, 0, sizeof(*args));
	args->color = -1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "hj:", opts, NULL)) != -1) {
		switch (c) {
		case OPT_JSON:
			args->view = VIEW_JSON;
			break;
		case OPT_STAT:
			args->view = VIEW_STAT;
			break;
		case OPT_COLOR:
			if (!optarg || !strcmp(optarg, "always")) {
				args->color = 1;
			} else if (!strcmp(optarg, "never")) {
				args->color = 0;
			} else if (!strcmp(optarg, "auto")) {
				args->color = -1;
			} else {
				fprintf(stderr,
					"btfcanon diff: --color is auto, always or never\n");
				return -EINVAL;
			}
			break;
		case OPT_BASE:
			args->old_base = args->new_base = optarg;
			break;
		case OPT_OLD_BASE:
			args->old_base = optarg;
			break;
		case OPT_NEW_BASE:
			args->new_base = optarg;
			break;
		case OPT_NO_MODULES:
			args->no_modules = true;
			break;
		case 'j': {
			char *end;
			unsigned long n = strtoul(optarg, &end, 10);

			if (!*optarg || *end || !n || n > 1024) {
				fprintf(stderr, "btfcanon diff: -j takes a number of threads (1-1024), not \"%s\"\n",
					optarg);
				return -EINVAL;
			}
			args->jobs = n;
			break;
		}
		case 'h':
			fputs(bc_diff_usage, stdout);
			exit(0);
		default:
			fputs(bc_diff_usage, stderr);
			return -EINVAL;
		}
	}
	if (optind != argc - 2) {
		fprintf(stderr, "btfcanon diff: expected OLD and NEW\n%s",
			bc_diff_usage);
		return -EINVAL;
	}
	args->old_path = argv[optind];
	args->new_path = argv[optind + 1];
	if (args->color < 0)
		args->color = args->view == VIEW_TEXT && isatty(STDOUT_FILENO);
	return 0;
}

/* The report of a (vmlinux, modules) diff in the chosen view. */
static int print_report(const struct diff_args *args,
			const struct bc_kset_diff *kd, struct bc_text *out)
{
	struct bc_diff_print_opts popts = {
		.old_name = args->old_path,
		.new_name = args->new_path,
		.color = args->color,
	};

	if (args->view == VIEW_JSON)
		return kd->modules_compared ?
		       bc_kset_diff_print_json(kd, &popts, out) :
		       bc_diff_print_json(&kd->vmlinux, &popts, out);
	if (args->view == VIEW_STAT)
		return bc_kset_diff_print_stat(kd, &popts, out);
	return bc_kset_diff_print_text(kd, &popts, out);
}

/*
 * Reads OLD and NEW: with --base, as files over their bases; else as
 * kernels with whatever modules they hold.
 */
static int read_sides(const struct diff_args *args, struct bc_kernel_set *old_ks,
		      struct bc_kernel_set *new_ks, const struct bc_log *log)
{
	struct bc_kernel_set_opts kopts = {
		.jobs = args->jobs,
		.no_modules = args->no_modules,
	};
	struct bc_input_opts old_opts = { .base_path = args->old_base };
	struct bc_input_opts new_opts = { .base_path = args->new_base };
	int err;

	if (!args->old_base && !args->new_base) {
		err = bc_kernel_set_read(args->old_path, &kopts, old_ks, log);
		if (!err)
			err = bc_kernel_set_read(args->new_path, &kopts, new_ks, log);
		if (!err && old_ks->has_modules != new_ks->has_modules)
			bc_log_printf(log, BC_LOG_WARN,
				      "%s holds no modules: comparing vmlinux alone",
				      old_ks->has_modules ? args->new_path : args->old_path);
		return err;
	}
	memset(old_ks, 0, sizeof(*old_ks));
	memset(new_ks, 0, sizeof(*new_ks));
	err = bc_input_load(args->old_path, &old_opts, &old_ks->input, log);
	if (!err)
		err = bc_input_load(args->new_path, &new_opts, &new_ks->input, log);
	return err;
}

int bc_cmd_diff(int argc, char **argv, const struct bc_log *log)
{
	struct bc_kernel_set old_ks = { 0 }, new_ks = { 0 };
	struct bc_kset_diff kd = { 0 };
	struct diff_args args;
	struct bc_text out;
	int err, status = 2;

	if (parse_diff_args(argc, argv, &args))
		return 2;
	bc_text_init(&out);
	err = read_sides(&args, &old_ks, &new_ks, log);
	if (!err)
		err = bc_kset_diff_run(&old_ks, &new_ks, args.jobs, &kd, log);
	if (err)
		goto out;
	if (print_report(&args, &kd, &out)) {
		bc_log_error(log, -ENOMEM, "out of memory");
		goto out;
	}
	if (bc_file_write_atomic("-", bc_text_str(&out), out.len, log))
		goto out;
	status = bc_kset_diff_empty(&kd) ? 0 : 1;
out:
	bc_kset_diff_deinit(&kd);
	bc_kernel_set_deinit(&old_ks);
	bc_kernel_set_deinit(&new_ks);
	bc_text_deinit(&out);
	return status;
}
