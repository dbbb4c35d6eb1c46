// SPDX-License-Identifier: GPL-2.0-only
/*
 * btfcanon-pahole: a drop-in for `pahole -J` in the kernel build
 * (make PAHOLE=btfcanon-pahole).
 *
 * It takes the command lines the kernel's scripts give pahole for BTF and
 * runs `btfcanon encode` with the same meaning, found beside this program
 * (or on PATH). The lines, from 6.1, 6.12 and 6.19:
 *
 *   6.1, 6.12: scripts/link-vmlinux.sh  pahole -J $PAHOLE_FLAGS .tmp_vmlinux.btf
 *   scripts/Makefile.modfinal
 *      6.1:   pahole -J $PAHOLE_FLAGS --btf_base vmlinux MOD.ko
 *      6.12:  pahole -J $PAHOLE_FLAGS $MODULE_PAHOLE_FLAGS \
 *                    --btf_base $(objtree)/vmlinux MOD.ko
 *   6.19: scripts/gen-btf.sh, run by link-vmlinux.sh for vmlinux and by
 *         Makefile.modfinal for each module (--btf_base vmlinux), then
 *         resolve_btfids on the detached file:
 *         pahole -J $PAHOLE_FLAGS [--btf_base vmlinux] \
 *                --btf_encode_detached=ELF.BTF.1 ELF
 *   PAHOLE_FLAGS, 6.1 (scripts/pahole-flags.sh, pahole >= 1.25):
 *      --btf_gen_floats -j --lang_exclude=rust \
 *      --skip_encoding_btf_inconsistent_proto --btf_gen_optimized
 *   PAHOLE_FLAGS, 6.12 (scripts/Makefile.btf, pahole >= 1.26):
 *      -j$(JOBS) --btf_features=encode_force,var,float,enum64,decl_tag,
 *      type_tag,optimized_func,consistent_func,decl_tag_kfuncs \
 *      --lang_exclude=rust      (MODULE_PAHOLE_FLAGS, pahole >= 1.28:
 *                                --btf_features=distilled_base, for
 *                                external modules only)
 *   PAHOLE_FLAGS, 6.19 (scripts/Makefile.btf), pahole >= 1.31 as this
 *      answers: the 6.12 line, then --btf_features=attributes (>= 1.30)
 *      --btf_features=layout (>= 1.31) --lang_exclude=rust; external
 *      modules get their base distilled by resolve_btfids --distill_base.
 *
 * --btf_features may come several times: the lists add up, as in pahole.
 * With distilled_base and --btf_base a module gets .BTF.base, a distilled
 * base, and .BTF split over it (canon/distill.c).
 * Without --btf_encode_detached the BTF goes into the input's .BTF
 * section, replaced or added, as pahole does: through $LLVM_OBJCOPY (the
 * kernel sets it to its objcopy), since the first vmlinux of the link may
 * have a .BTF in the loaded image that must grow. --version answers
 * v1.31, the newest pahole, so the scripts take its --btf_features path;
 * the feature names they pass are btfcanon encode's --features names.
 * Options that are not about BTF encoding are refused with a message,
 * never ignored.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <spawn.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

extern char **environ;

#define PAHOLE_COMPAT_VERSION "v1.31"
#define MAX_ARGS 32

struct pahole_args {
	bool encode;			/* -J */
	const char *jobs;		/* -j[N]: "" for all CPUs */
	char features[1024];		/* every --btf_features / _strict list, joined */
	bool strict;
	const char *detached;		/* --btf_encode_detached=FILE */
	const char *base;		/* --btf_base FILE */
	bool skip_rust;
	bool verbose;
	/* the feature switches of pahole before --btf_features */
	bool floats, optimized, consistent, all;
	bool no_vars, no_decl_tag, no_type_tag, no_enum64;
	const char *input;
};

static void usage(FILE *out)
{
	fprintf(out,
"Usage: btfcanon-pahole -J [-j[N]] [--btf_features=LIST] [--btf_features_strict]\n"
"                       [--btf_encode_detached=FILE] [--btf_base FILE]\n"
"                       [--lang_exclude=rust] [--btf_gen_floats] [--btf_gen_optimized]\n"
"                       [--btf_gen_all] [--skip_encoding_btf_*] FILE\n"
"\n"
"pahole's BTF encoding (-J) by btfcanon: the same content, canonical bytes.\n"
"Writes FILE's .BTF section, or FILE of --btf_encode_detached. Several\n"
"--btf_features lists add up. --version answers " PAHOLE_COMPAT_VERSION ".\n");
}

enum {
	OPT_FEATURES = 256, OPT_STRICT, OPT_DETACHED, OPT_BASE, OPT_LANG_EXCLUDE,
	OPT_FLOATS, OPT_OPTIMIZED, OPT_ALL, OPT_FORCE, OPT_SKIP_VARS,
	OPT_SKIP_DECL_TAG, OPT_SKIP_TYPE_TAG, OPT_SKIP_ENUM64,
	OPT_SKIP_INCONSISTENT, OPT_VERSION,
};

/*
 * Adds a --btf_features list to the ones before it: the kernel's
 * Makefile.btf gives several (--btf_features=encode_force,...
 * --btf_features=attributes --btf_features=layout), and pahole takes
 * every one.
 */
static int add_features(struct pahole_args *a, const char *list)
{
	size_t used = strlen(a->features), len = strlen(list);

	if (!len)
		return 0;
	if (used + 1 + len >= sizeof(a->features)) {
		fprintf(stderr, "btfcanon-pahole: --btf_features lists too long\n");
		return -EINVAL;
	}
	if (used)
		a->features[used++] = ',';
	memcpy(a->features + used, list, len + 1);
	return 0;
}

static int parse(int argc, char **argv, struct pahole_args *a)
{
	static const struct option opts[] = {
		{ "btf_encode", no_argument, NULL, 'J' },
		{ "jobs", optional_argument, NULL, 'j' },
		{ "btf_features", required_argument, NULL, OPT_FEATURES },
		{ "btf_features_strict", optional_argument, NULL, OPT_STRICT },
		{ "btf_encode_detached", required_argument, NULL, OPT_DETACHED },
		{ "btf_base", required_argument, NULL, OPT_BASE },
		{ "lang_exclude", required_argument, NULL, OPT_LANG_EXCLUDE },
		{ "btf_gen_floats", no_argument, NULL, OPT_FLOATS },
		{ "btf_gen_optimized", no_argument, NULL, OPT_OPTIMIZED },
		{ "btf_gen_all", no_argument, NULL, OPT_ALL },
		{ "btf_encode_force", no_argument, NULL, OPT_FORCE },
		{ "skip_encoding_btf_vars", no_argument, NULL, OPT_SKIP_VARS },
		{ "skip_encoding_btf_decl_tag", no_argument, NULL, OPT_SKIP_DECL_TAG },
		{ "skip_encoding_btf_type_tag", no_argument, NULL, OPT_SKIP_TYPE_TAG },
		{ "skip_encoding_btf_enum64", no_argument, NULL, OPT_SKIP_ENUM64 },
		{ "skip_encoding_btf_inconsistent_proto", no_argument, NULL,
		  OPT_SKIP_INCONSISTENT },
		{ "verbose", no_argument, NULL, 'V' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(a, 0, sizeof(*a));
	opterr = 0;
	while ((c = getopt_long(argc, argv, "Jj::Vh", opts, NULL)) != -1) {
		switch (c) {
		case 'J':
			a->encode = true;
			break;
		case 'j':
			a->jobs = optarg ? optarg : "";
			break;
		case OPT_FEATURES:
			if (add_features(a, optarg))
				return -EINVAL;
			break;
		case OPT_STRICT:
			a->strict = true;
			if (optarg && add_features(a, optarg))
				return -EINVAL;
			break;
		case OPT_DETACHED:
			a->detached = optarg;
			break;
		case OPT_BASE:
			a->base = optarg;
			break;
		case OPT_LANG_EXCLUDE:
			if (strcmp(optarg, "rust")) {
				fprintf(stderr,
					"btfcanon-pahole: --lang_exclude=%s is not supported (only rust)\n",
					optarg);
				return -EINVAL;
			}
			a->skip_rust = true;
			break;
		case OPT_FLOATS:
			a->floats = true;
			break;
		case OPT_OPTIMIZED:
			a->optimized = true;
			break;
		case OPT_ALL:
			a->all = true;
			break;
		case OPT_FORCE:		/* btfcanon always skips what BTF cannot hold */
			break;
		case OPT_SKIP_VARS:
			a->no_vars = true;
			break;
		case OPT_SKIP_DECL_TAG:
			a->no_decl_tag = true;
			break;
		case OPT_SKIP_TYPE_TAG:
			a->no_type_tag = true;
			break;
		case OPT_SKIP_ENUM64:
			a->no_enum64 = true;
			break;
		case OPT_SKIP_INCONSISTENT:
			a->consistent = true;
			break;
		case 'V':
			a->verbose = true;
			break;
		case OPT_VERSION:
			printf("%s\n", PAHOLE_COMPAT_VERSION);
			exit(0);
		case 'h':
			usage(stdout);
			exit(0);
		default:
			fprintf(stderr,
				"btfcanon-pahole: option '%s' is not supported: only BTF encoding (-J) is\n",
				argv[optind - 1]);
			return -EINVAL;
		}
	}
	if (!a->encode) {
		fprintf(stderr,
			"btfcanon-pahole: only BTF encoding (-J) is supported\n");
		return -EINVAL;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "btfcanon-pahole: expected one input file\n");
		return -EINVAL;
	}
	a->input = argv[optind];
	return 0;
}

/*
 * The --features list for btfcanon: --btf_features as given, else what
 * pahole's older switches meant (var, decl_tag, type_tag and enum64 on
 * unless skipped; float, optimized_func, consistent_func when asked).
 */
static void features_of(const struct pahole_args *a, char *buf, size_t size)
{
	if (*a->features) {
		snprintf(buf, size, "%s", a->features);
		return;
	}
	if (a->all) {
		snprintf(buf, size, "default");
		return;
	}
	snprintf(buf, size, "%s%s%s%s%s%s%s", a->no_vars ? "" : "var,",
		 a->no_decl_tag ? "" : "decl_tag,", a->no_type_tag ? "" : "type_tag,",
		 a->no_enum64 ? "" : "enum64,", a->floats ? "float," : "",
		 a->optimized ? "optimized_func," : "",
		 a->consistent ? "consistent_func," : "");
	if (!*buf)
		snprintf(buf, size, "encode_force");
	else
		buf[strlen(buf) - 1] = 0;
}

/* btfcanon beside this program, else from PATH. */
static const char *find_btfcanon(char *buf, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);
	char *slash;

	if (n > 0) {
		buf[n] = 0;
		slash = strrchr(buf, '/');
		if (slash && (size_t)(slash - buf) + sizeof("/btfcanon") <= size) {
			strcpy(slash, "/btfcanon");
			if (!access(buf, X_OK))
				return buf;
		}
	}
	return "btfcanon";
}

/*
 * Runs argv, stderr to /dev/null when quiet. Returns its exit status, or
 * -1 when it could not run.
 */
static int run(const char *const *argv, bool quiet)
{
	posix_spawn_file_actions_t actions;
	int status, err;
	pid_t pid;

	posix_spawn_file_actions_init(&actions);
	if (quiet)
		posix_spawn_file_actions_addopen(&actions, STDERR_FILENO,
						 "/dev/null", O_WRONLY, 0);
	err = posix_spawnp(&pid, argv[0], &actions, NULL, (char *const *)argv,
			   environ);
	posix_spawn_file_actions_destroy(&actions);
	if (err) {
		fprintf(stderr, "btfcanon-pahole: cannot run %s: %s\n", argv[0],
			strerror(err));
		return -1;
	}
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Puts the raw BTF in btf into elf's section name, replacing or adding it. */
static int write_section(const char *elf, const char *name, const char *btf)
{
	const char *objcopy = getenv("LLVM_OBJCOPY");
	char section[PATH_MAX + 8];
	const char *argv[] = { objcopy && *objcopy ? objcopy : "objcopy",
			       "--update-section", section, elf, NULL };

	snprintf(section, sizeof(section), "%s=%s", name, btf);
	/* objcopy warns when later sections' load addresses move: not ours */
	if (!run(argv, true))
		return 0;
	argv[1] = "--add-section";
	if (!run(argv, false))
		return 0;
	fprintf(stderr, "btfcanon-pahole: %s could not write %s into %s\n",
		argv[0], name, elf);
	return -1;
}

int main(int argc, char **argv)
{
	char features[1024], jobs[32], self[PATH_MAX], tmp[PATH_MAX];
	char tmp_base[PATH_MAX];
	bool distill;
	const char *args[MAX_ARGS];
	struct pahole_args a;
	int n = 0, status;

	if (parse(argc, argv, &a))
		return 2;
	features_of(&a, features, sizeof(features));
	args[n++] = find_btfcanon(self, sizeof(self));
	args[n++] = "encode";
	if (a.jobs && *a.jobs) {
		snprintf(jobs, sizeof(jobs), "-j%s", a.jobs);
		args[n++] = jobs;
	}
	args[n++] = "--features";
	args[n++] = features;
	if (a.strict)
		args[n++] = "--features-strict";
	if (a.skip_rust)
		args[n++] = "--lang_exclude=rust";
	if (a.base) {
		args[n++] = "--btf_base";
		args[n++] = a.base;
	}
	if (a.verbose)
		args[n++] = "--verbose";
	/* as pahole: .BTF.base for a module's ELF, not for a detached file */
	distill = a.base && !a.detached && strstr(features, "distilled_base");
	if (distill) {
		snprintf(tmp_base, sizeof(tmp_base), "%s.btfcanon.base.btf", a.input);
		args[n++] = "--distilled-base";
		args[n++] = tmp_base;
	}
	args[n++] = "-o";
	if (a.detached) {
		args[n++] = a.detached;
	} else {
		snprintf(tmp, sizeof(tmp), "%s.btfcanon.btf", a.input);
		args[n++] = tmp;
	}
	args[n++] = a.input;
	args[n] = NULL;
	status = run(args, false);
	if (status || a.detached)
		return status ? 1 : 0;
	status = write_section(a.input, ".BTF", tmp);
	if (!status && distill)
		status = write_section(a.input, ".BTF.base", tmp_base);
	unlink(tmp);
	if (distill)
		unlink(tmp_base);
	return status ? 1 : 0;
}
