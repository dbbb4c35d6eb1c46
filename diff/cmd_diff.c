// SPDX-License-Identifier: GPL-2.0-only
/*
 * btfcanon diff [--json|--stat] [--color[=WHEN]] [--base F] [--old-base F]
 *		 [--new-base F] OLD NEW
 *
 * Exit status as diff(1): 0 equal, 1 different, 2 trouble. The report is
 * built in memory, so an error in NEW prints no half report about OLD.
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

const char bc_diff_usage[] =
"Usage: btfcanon diff [--json|--stat] [--color[=auto|always|never]]\n"
"                     [--base F | --old-base F --new-base F] OLD NEW\n"
"  OLD, NEW     raw BTF, an ELF file's .BTF, or an ELF file with only DWARF\n"
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
};

static int parse_diff_args(int argc, char **argv, struct diff_args *args)
{
	enum { OPT_JSON = 256, OPT_STAT, OPT_COLOR, OPT_BASE, OPT_OLD_BASE,
	       OPT_NEW_BASE };
	static const struct option opts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "stat", no_argument, NULL, OPT_STAT },
		{ "color", optional_argument, NULL, OPT_COLOR },
		{ "colour", optional_argument, NULL, OPT_COLOR },
		{ "base", required_argument, NULL, OPT_BASE },
		{ "old-base", required_argument, NULL, OPT_OLD_BASE },
		{ "new-base", required_argument, NULL, OPT_NEW_BASE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(args, 0, sizeof(*args));
	args->color = -1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
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

int bc_cmd_diff(int argc, char **argv, const struct bc_log *log)
{
	struct bc_input old_in = { 0 }, new_in = { 0 };
	struct bc_input_opts old_opts = { 0 }, new_opts = { 0 };
	struct bc_diff diff = { 0 };
	struct bc_diff_print_opts popts;
	struct diff_args args;
	struct bc_text out;
	int err, status = 2;

	if (parse_diff_args(argc, argv, &args))
		return 2;
	bc_text_init(&out);
	old_opts.base_path = args.old_base;
	new_opts.base_path = args.new_base;
	err = bc_input_load(args.old_path, &old_opts, &old_in, log);
	if (!err)
		err = bc_input_load(args.new_path, &new_opts, &new_in, log);
	if (!err)
		err = bc_diff_run(old_in.btf, new_in.btf, &diff, log);
	if (err)
		goto out;
	popts = (struct bc_diff_print_opts){
		.old_name = args.old_path,
		.new_name = args.new_path,
		.color = args.color,
	};
	if (args.view == VIEW_JSON)
		err = bc_diff_print_json(&diff, &popts, &out);
	else if (args.view == VIEW_STAT)
		err = bc_diff_print_stat(&diff, &popts, &out);
	else
		err = bc_diff_print_text(&diff, &popts, &out);
	if (err) {
		bc_log_error(log, err, "out of memory");
		goto out;
	}
	if (bc_file_write_atomic("-", bc_text_str(&out), out.len, log))
		goto out;
	status = diff.nr_entries ? 1 : 0;
out:
	bc_diff_deinit(&diff);
	bc_input_deinit(&old_in);
	bc_input_deinit(&new_in);
	bc_text_deinit(&out);
	return status;
}
