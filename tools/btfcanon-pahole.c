// SPDX-License-Identifier: GPL-2.0-only
/*
 * btfcanon-pahole: a drop-in for pahole's BTF encoding (pahole -J, and
 * --btf_encode_detached) in the kernel build (make PAHOLE=btfcanon-pahole)
 * and in scripts written for pahole.
 *
 * It takes pahole's BTF encoding options with pahole's meaning (v1.31-38:
 * pahole.c, btf_encoder.c, man-pages/pahole.1) and encodes in its own
 * process, through the driver `btfcanon encode` runs (encode_job.c). The
 * kernel's command lines, from 6.1, 6.12 and 6.19:
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
 * pahole's meaning, option by option, is taken in command-line order, as
 * pahole's argp parser does:
 *  - without --btf_features, var, decl_tag, type_tag and enum64 are on
 *    (each --skip_encoding_btf_* turns one off) and the others off (each
 *    --btf_gen_* turns one on);
 *  - the first --btf_features (or --btf_features_strict, --btf_gen_all)
 *    turns every feature off, then each list turns its names on
 *    (encode_features_add(): "default", "+X", unknown names); options
 *    after it still apply, those before it are forgotten;
 *  - --btf_encode_detached=FILE is -J with the raw BTF in FILE; without
 *    it, FILE's .BTF section is replaced or added, through $LLVM_OBJCOPY
 *    (the kernel sets it to its objcopy; the first vmlinux of the link may
 *    have a .BTF in the loaded image that must grow);
 *  - no -j is one encoding thread, -j one per online CPU plus 10%, -jN N
 *    (the encoder starts no more than it has chunks of units);
 *  - -V prints the function decisions on stdout in pahole's words, with
 *    the first prototype mismatch of a function before its reason.
 * --version answers v1.31, the newest pahole, so that the kernel's scripts
 * take its --btf_features path. An option of pahole's that this cannot
 * honour is refused by name (exit 2), never ignored.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "../encode/features.h"
#include "encode_job.h"

extern char **environ;

#define PAHOLE_COMPAT_VERSION "v1.31"
#define PAHOLE_COMPAT_NUMERIC "131"
#define PROG "btfcanon-pahole"

struct pahole_args {
	bool encode;			/* -J, or --btf_encode_detached */
	const char *detached;		/* --btf_encode_detached=FILE */
	bool verbose;			/* -V */
	bool features_started;		/* a --btf_features list came */
	struct encode_job job;
};

static void usage(FILE *out)
{
	fprintf(out,
"Usage: " PROG " [-J] [-j[N]] [--btf_encode_detached=FILE] [--btf_base=FILE]\n"
"                       [--btf_features=LIST] [--btf_features_strict=LIST]\n"
"                       [--supported_btf_features] [--lang[_exclude]=LANGS]\n"
"                       [--btf_gen_floats] [--btf_gen_optimized] [--btf_gen_all]\n"
"                       [--skip_encoding_btf_{vars,decl_tag,type_tag,enum64}]\n"
"                       [--skip_encoding_btf_inconsistent_proto] [--btf_encode_force]\n"
"                       [--btf_attributes] [--reproducible_build] [-F dwarf] [-V] FILE\n"
"\n"
"pahole's BTF encoding by btfcanon: pahole's options and meaning, canonical\n"
"bytes. Writes FILE's .BTF section, or the file of --btf_encode_detached.\n"
"--version answers " PAHOLE_COMPAT_VERSION ". See btfcanon(1).\n");
}

/*
 * Library messages: errors on stderr; warnings (such as pahole's
 * "Ignoring unsupported feature") only with -V, as pahole prints them;
 * the encoder's own notes on functions not at all (-V prints pahole's
 * lines from the decisions instead). Feature messages are pahole's words,
 * printed as they are.
 */
struct log_state {
	const bool *verbose;
	bool plain;			/* no program name before the message */
};

static void log_to_stderr(void *ctx, enum bc_log_level level, const char *msg)
{
	const struct log_state *state = ctx;

	if (level == BC_LOG_INFO || level == BC_LOG_DEBUG)
		return;
	if (level == BC_LOG_WARN && !*state->verbose)
		return;
	if (state->plain)
		fprintf(stderr, "%s\n", msg);
	else
		fprintf(stderr, PROG ": %s%s\n",
			level == BC_LOG_ERROR ? "error: " : "warning: ", msg);
}

/* pahole's words for each reason (btf_encoder.c; "inconsistet" [sic]) */
static const char *pahole_reason(enum select_skip why)
{
	switch (why) {
	case SKIP_AMBIGUOUS_ADDR:	return "ambiguous address";
	case SKIP_OPTIMIZED:		return "optimized parameters";
	case SKIP_REORDERED:		return "reordered parameters";
	case SKIP_UNCERTAIN_LOC:	return "uncertain parameter location";
	case SKIP_INCONSISTENT:		return "inconsistet prototype";
	case SKIP_UNEXPECTED_REG:	return "unexpected register usage for parameter";
	default:			return NULL;	/* pahole says nothing */
	}
}

/*
 * -V: pahole's lines on stdout, one function after another in name
 * order: the first prototype mismatch, then the reason it is left out.
 */
static void print_decisions(void *ctx, const struct func_decisions *list)
{
	static const char skipping[] =
		"%s : skipping BTF encoding of function due to ";
	const struct func_decision *d;
	const char *reason;
	uint32_t i;

	(void)ctx;
	for (i = 0; i < list->nr; i++) {
		d = &list->entries[i];
		switch (d->mismatch) {
		case MISMATCH_PARAM_COUNT:
			printf(skipping, d->name);
			printf("param count mismatch; %u params != %u params\n",
			       d->a, d->b);
			break;
		case MISMATCH_RETURN:
			printf(skipping, d->name);
			printf("return type mismatch\n");
			break;
		case MISMATCH_PARAM_TYPE:
			printf(skipping, d->name);
			printf("param type mismatch for param#%u %s != %s\n",
			       d->a, d->param_a, d->param_b);
			break;
		case MISMATCH_NONE:
			break;
		}
		reason = pahole_reason(d->why);
		if (reason) {
			printf(skipping, d->name);
			printf("%s\n", reason);
		}
	}
	fflush(stdout);
}

enum {
	OPT_DETACHED = 256, OPT_BASE, OPT_FEATURES, OPT_STRICT, OPT_SUPPORTED,
	OPT_FLOATS, OPT_OPTIMIZED, OPT_ALL, OPT_FORCE, OPT_SKIP_VARS,
	OPT_SKIP_DECL_TAG, OPT_SKIP_TYPE_TAG, OPT_SKIP_ENUM64,
	OPT_SKIP_INCONSISTENT, OPT_REPRODUCIBLE, OPT_ATTRIBUTES, OPT_LANG,
	OPT_LANG_EXCLUDE, OPT_VERSION, OPT_NUMERIC_VERSION, OPT_HASHBITS,
};

static const struct option options[] = {
	{ "btf_encode", no_argument, NULL, 'J' },
	{ "btf_encode_detached", required_argument, NULL, OPT_DETACHED },
	{ "jobs", optional_argument, NULL, 'j' },
	{ "btf_base", required_argument, NULL, OPT_BASE },
	{ "btf_features", required_argument, NULL, OPT_FEATURES },
	{ "btf_features_strict", required_argument, NULL, OPT_STRICT },
	{ "supported_btf_features", no_argument, NULL, OPT_SUPPORTED },
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
	{ "reproducible_build", no_argument, NULL, OPT_REPRODUCIBLE },
	{ "btf_attributes", no_argument, NULL, OPT_ATTRIBUTES },
	{ "format_path", required_argument, NULL, 'F' },
	{ "hashbits", required_argument, NULL, OPT_HASHBITS },
	{ "lang", required_argument, NULL, OPT_LANG },
	{ "lang_exclude", required_argument, NULL, OPT_LANG_EXCLUDE },
	{ "verbose", no_argument, NULL, 'V' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "numeric_version", no_argument, NULL, OPT_NUMERIC_VERSION },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/*
 * pahole's -j: none, one thread; alone, the online CPUs plus 10%
 * (rounded down, as pahole does); N, N threads (less than one is one).
 */
static unsigned int jobs_of(const char *arg)
{
	long n;

	if (!arg) {
		n = sysconf(_SC_NPROCESSORS_ONLN) * 1.1;
	} else {
		n = atol(arg);
		if (n > 1024)
			n = 1024;
	}
	return n > 0 ? n : 1;
}

/* The first feature list: everything off, as pahole's init_btf_features. */
static void features_start(struct pahole_args *a)
{
	if (a->features_started)
		return;
	memset(&a->job.encode.features, 0, sizeof(a->job.encode.features));
	a->job.encode.features.funcs = true;
	a->features_started = true;
}

/*
 * Parses argv into a. Returns 0, -EINVAL for a usage error (exit 2), or
 * -ENOTSUP after a message that was pahole's own failure (exit 1).
 */
static int parse(int argc, char **argv, struct pahole_args *a,
		 const struct bc_log *features_log, const struct bc_log *log)
{
	struct encode_features *f = &a->job.encode.features;
	const char *langs = NULL;
	bool langs_exclude = false;
	int c;

	memset(a, 0, sizeof(*a));
	encode_opts_init(&a->job.encode);
	a->job.encode.jobs = 1;
	a->job.canon.resolve_fwds = true;
	/* pahole's defaults without --btf_features */
	memset(f, 0, sizeof(*f));
	f->funcs = f->vars = f->decl_tags = f->type_tags = f->enum64 = true;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":Jj::VhF:", options, NULL)) != -1) {
		switch (c) {
		case OPT_DETACHED:
			a->detached = optarg;
			/* -J, with the BTF in a file */
			/* fall through */
		case 'J':
			a->encode = true;
			break;
		case 'j':
			a->job.encode.jobs = jobs_of(optarg);
			break;
		case OPT_BASE:
			a->job.base = optarg;
			break;
		case OPT_ALL:		/* pahole: parse_btf_features("all") */
			optarg = "all";
			/* fall through */
		case OPT_FEATURES:
		case OPT_STRICT:
			features_start(a);
			if (encode_features_add(f, optarg, c == OPT_STRICT,
						features_log))
				return -ENOTSUP;	/* pahole exits 1 */
			break;
		case OPT_SUPPORTED: {
			char names[FEATURE_NAMES_MAX];

			encode_features_names(names, sizeof(names));
			printf("%s\n", names);
			exit(0);
		}
		case OPT_FLOATS:
			f->floats = true;
			break;
		case OPT_OPTIMIZED:
			f->optimized_funcs = true;
			break;
		case OPT_FORCE:		/* btfcanon always skips what BTF cannot hold */
		case OPT_REPRODUCIBLE:	/* btfcanon's output always is */
			break;
		case OPT_SKIP_VARS:
			f->vars = false;
			break;
		case OPT_SKIP_DECL_TAG:
			f->decl_tags = false;
			break;
		case OPT_SKIP_TYPE_TAG:
			f->type_tags = false;
			break;
		case OPT_SKIP_ENUM64:
			f->enum64 = false;
			break;
		case OPT_SKIP_INCONSISTENT:
			f->consistent_funcs = true;
			break;
		case OPT_ATTRIBUTES:
			f->attributes = true;
			break;
		case OPT_LANG_EXCLUDE:
			langs_exclude = true;
			/* fall through */
		case OPT_LANG:
			/* as pahole: the last list counts, excluding once asked */
			langs = optarg;
			break;
		case 'F':
			/* BTF is encoded from DWARF: a path that tries it first */
			if (strncmp(optarg, "dwarf", 5) ||
			    (optarg[5] && optarg[5] != ',')) {
				fprintf(stderr,
					PROG ": -F %s is not supported: BTF is encoded from DWARF (-F dwarf)\n",
					optarg);
				return -EINVAL;
			}
			break;
		case OPT_HASHBITS:	/* the size of pahole's own tables */
			break;
		case 'V':
			a->verbose = true;
			break;
		case OPT_VERSION:
			printf("%s\n", PAHOLE_COMPAT_VERSION);
			exit(0);
		case OPT_NUMERIC_VERSION:
			printf("%s\n", PAHOLE_COMPAT_NUMERIC);
			exit(0);
		case 'h':
			usage(stdout);
			exit(0);
		case ':':
			fprintf(stderr, PROG ": option '%s' needs an argument\n",
				argv[optind - 1]);
			return -EINVAL;
		default:
			if (!strncmp(argv[optind - 1], "--", 2))
				fprintf(stderr,
					PROG ": option '%s' is not supported: only pahole's BTF encoding options are\n",
					argv[optind - 1]);
			else
				fprintf(stderr,
					PROG ": option '-%c' is not supported: only pahole's BTF encoding options are\n",
					optopt);
			return -EINVAL;
		}
	}
	if (!langs && (langs = getenv("PAHOLE_LANG_EXCLUDE")))
		langs_exclude = true;
	if (langs && encode_langs_parse(&a->job.encode.langs, langs,
					langs_exclude, log))
		return -ENOTSUP;	/* pahole exits 1 */
	if (!a->encode) {
		fprintf(stderr,
			PROG ": only BTF encoding is supported: give -J or --btf_encode_detached=FILE\n");
		return -EINVAL;
	}
	if (optind != argc - 1) {
		fprintf(stderr, PROG ": expected one input file\n");
		return -EINVAL;
	}
	a->job.input = argv[optind];
	return 0;
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
		fprintf(stderr, PROG ": cannot run %s: %s\n", argv[0],
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
	fprintf(stderr, PROG ": %s could not write %s into %s\n", argv[0], name,
		elf);
	return -1;
}

int main(int argc, char **argv)
{
	struct pahole_args a;
	struct log_state log_state = { .verbose = &a.verbose };
	struct log_state plain_state = { .verbose = &a.verbose, .plain = true };
	const struct bc_log log = { .fn = log_to_stderr, .ctx = &log_state };
	const struct bc_log features_log = { .fn = log_to_stderr,
					     .ctx = &plain_state };
	char tmp[PATH_MAX], tmp_base[PATH_MAX];
	bool distill;
	int err;

	err = parse(argc, argv, &a, &features_log, &log);
	if (err)
		return err == -ENOTSUP ? 1 : 2;
	if (a.verbose)
		a.job.on_decisions = print_decisions;
	a.job.none_if_empty = true;
	if (a.detached) {
		a.job.output = a.detached;
		return encode_job_run(&a.job, &log) ? 1 : 0;
	}
	/* as pahole: .BTF.base beside .BTF for a module's ELF */
	distill = a.job.base && a.job.encode.features.distilled_base;
	snprintf(tmp, sizeof(tmp), "%s.btfcanon.btf", a.job.input);
	snprintf(tmp_base, sizeof(tmp_base), "%s.btfcanon.base.btf", a.job.input);
	a.job.output = tmp;
	if (distill)
		a.job.distilled_out = tmp_base;
	unlink(tmp);	/* one of an earlier run would pass for ours */
	err = encode_job_run(&a.job, &log);
	if (!err && access(tmp, F_OK))
		return 0;	/* every unit filtered out: the ELF stays as it was */
	if (!err)
		err = write_section(a.job.input, ".BTF", tmp);
	if (!err && distill)
		err = write_section(a.job.input, ".BTF.base", tmp_base);
	unlink(tmp);
	if (distill)
		unlink(tmp_base);
	return err ? 1 : 0;
}
