// SPDX-License-Identifier: GPL-2.0-only
/*
 * btfcanon-pahole: a drop-in for `pahole -J` in the kernel build
 * (make PAHOLE=btfcanon-pahole).
 *
 * It takes the command lines the kernel's scripts give pahole for BTF and
 * runs `btfcanon encode` with the same meaning, found beside this program
 * (or on PATH). The lines, from 6.1 and 6.12:
 *
 *   scripts/link-vmlinux.sh  pahole -J $PAHOLE_FLAGS .tmp_vmlinux.btf
 *   scripts/Makefile.modfinal
 *      6.1:   pahole -J $PAHOLE_FLAGS --btf_base vmlinux MOD.ko
 *      6.12:  pahole -J $PAHOLE_FLAGS $MODULE_PAHOLE_FLAGS \
 *                    --btf_base $(objtree)/vmlinux MOD.ko
 *   PAHOLE_FLAGS, 6.1 (scripts/pahole-flags.sh, pahole >= 1.25):
 *      --btf_gen_floats -j --lang_exclude=rust \
 *      --skip_encoding_btf_inconsistent_proto --btf_gen_optimized
 *   PAHOLE_FLAGS, 6.12 (scripts/Makefile.btf, pahole >= 1.26):
 *      -j$(JOBS) --btf_features=encode_force,var,float,enum64,decl_tag,
 *      type_tag,optimized_func,consistent_func,decl_tag_kfuncs \
 *      --lang_exclude=rust      (MODULE_PAHOLE_FLAGS: distilled_base,
 *                                for external modules only)
 *   (each --btf_features adds to the earlier ones, as in pahole; with
 *   distilled_base a module gets .BTF.base and .BTF over it)
 *
 * Without --btf_encode_detached the BTF goes into the input's .BTF
 * section, replaced or added, as pahole does: through $LLVM_OBJCOPY (the
 * kernel sets it to its objcopy), since the first vmlinux of the link may
 * have a .BTF in the loaded image that must grow. --version answers v1.27,
 * the pahole whose feature set this matches, so the scripts take their
 * --btf_features path. Options that are not about BTF encoding are
 * refused with a message, never ignored.
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

#define PAHOLE_COMPAT_VERSION "v1.27"
#define MAX_ARGS 32

struct pahole_args {
	bool encode;			/* -J */
	const char *jobs;		/* -j[N]: "" for all CPUs */
	const char *features;		/* --btf_features / _strict */
	char features_buf[512];		/* several of them, joined */
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
"Writes FILE's .BTF section, or FILE of --btf_encode_detached.\n");
}

enum {
	OPT_FEATURES = 256, OPT_STRICT, OPT_DETACHED, OPT_BASE, OPT_LANG_EXCLUDE,
	OPT_FLOATS, OPT_OPTIMIZED, OPT_ALL, OPT_FORCE, OPT_SKIP_VARS,
	OPT_SKIP_DECL_TAG, OPT_SKIP_TYPE_TAG, OPT_SKIP_ENUM64,
	OPT_SKIP_INCONSISTENT, OPT_VERSION,
};

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
			/* pahole enables every feature of every --btf_features */
			if (a->features && strlen(a->features) + strlen(optarg) + 2 <=
					   sizeof(a->features_buf)) {
				if (a->features != a->features_buf)
					snprintf(a->features_buf,
						 sizeof(a->features_buf), "%s",
						 a->features);
				strcat(a->features_buf, ",");
				strcat(a->features_buf, optarg);
				a->features = a->features_buf;
			} else if (!a->features) {
				a->features = optarg;
			} else {
				fprintf(stderr, "btfcanon-pahole: --btf_features lists too long\n");
				return -EINVAL;
			}
			break;
		case OPT_STRICT:
			a->strict = true;
			if (optarg)
				a->features = optarg;
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
	if (a->features) {
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
	char features[512], jobs[32], self[PATH_MAX], tmp[PATH_MAX];
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
