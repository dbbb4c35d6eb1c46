// SPDX-License-Identifier: GPL-2.0-only
/*
 * btfcanon dump [-f c|raw|json] [--base FILE] [--keep-ids] [-o OUTPUT] INPUT
 * btfcanon dump -f c --check HEADER INPUT
 * btfcanon dump [-f c] [-I DIR]... --for FILE [--for FILE]... INPUT
 *
 * The whole output is built in memory and written at the end (atomically
 * with -o), so a bad input writes nothing. --check compares the header
 * that would be written with a checked-in one and shows the difference
 * with diff -u: the CI test for projects that keep vmlinux.h in git.
 * --for makes it the slim header of one program (slim.h): the input's
 * sub-BTF that the program's sources and objects select.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "../archive/archive.h"
#include "../archive/btf_file.h"
#include "../archive/kernel_set.h"
#include "commands.h"
#include "dump.h"
#include "../archive/input.h"
#include "slim.h"

const char bc_dump_usage[] =
"Usage: btfcanon dump [-f c|raw|json] [--base FILE] [--keep-ids] [-o OUTPUT] INPUT\n"
"       btfcanon dump -f c --check HEADER [--base FILE] INPUT\n"
"       btfcanon dump -f c [-I DIR]... --for FILE [--for FILE]... INPUT\n"
"       btfcanon dump [-f c|raw|json] --module NAME [--module NAME]... KERNEL\n"
"  -f c       C header (vmlinux.h) ordered by name, for stable diffs\n"
"  -f raw     listing of every type with its id, as bpftool prints it (default)\n"
"  -f json    the same as JSON, one type per line\n"
"  --base F   base BTF of a split INPUT\n"
"  --keep-ids list the input's own ids instead of the canonical order\n"
"  -o F       write to F (atomically) instead of standard output\n"
"  --check H  exit 1 and show the difference when H is not what -f c writes\n"
"  --for F    only what the program needs: F is one of its C sources or\n"
"             headers, or a BPF object (ELF); repeat for each file\n"
"  -I DIR     look the --for sources' includes up in DIR too, as cc -I\n"
"             does (repeat, in cc's order); -IDIR too\n"
"  --module M add the types of KERNEL's modules named M (a glob; repeat):\n"
"             KERNEL is a package (.deb, .rpm), a modules tree or a\n"
"             directory as /sys/kernel/btf; one BTF of vmlinux and them\n"
"Exit status: 0 written (or up to date), 1 stale (--check), 2 error.\n";

enum dump_format {
	DUMP_RAW,
	DUMP_JSON,
	DUMP_C,
};

struct dump_args {
	const char *input;
	const char *output;
	const char *check;
	enum dump_format format;
	struct bc_input_opts input_opts;
	/* --for: argv's strings, sources and objects apart */
	const char **sources, **objects;
	size_t nr_sources, nr_objects;
	const char **dirs;	/* -I, in order */
	size_t nr_dirs;
	const char **modules;	/* --module globs */
	size_t nr_modules;
};

/* An ELF file (a BPF object) or, else, a C source. */
static bool is_elf_file(const char *path)
{
	unsigned char magic[4] = { 0 };
	FILE *f = fopen(path, "rb");

	if (!f)
		return false;	/* the source reader says why */
	if (fread(magic, 1, sizeof(magic), f) != sizeof(magic))
		magic[0] = 0;
	fclose(f);
	return !memcmp(magic, "\177ELF", 4);
}

static void free_dump_args(struct dump_args *args)
{
	free(args->sources);
	free(args->objects);
	free(args->dirs);
	free(args->modules);
}

/*
 * bc_kernel_set_merged() of INPUT, or, for a kernel of an archive
 * (ARCHIVE:NAME, or an archive of one kernel), of its modules as the
 * archive keeps them (bc_archive_kernel_merged()). 1: not an archive's
 * kernel, 0 done, <0 an error (said).
 */
static int archived_merged(const struct dump_args *args, uint8_t *hits,
			   void **raw, size_t *size, bool *has_modules,
			   const struct bc_log *log)
{
	struct bc_archive_arg a;
	int err;

	if (!strchr(args->input, ':') && !bc_archive_is_archive(args->input))
		return 1;
	err = bc_archive_arg_open(args->input, &a, log);
	if (err)
		return err;
	if (!a.ar) {
		err = 1;
	} else if (a.nr != 1) {
		err = bc_log_error(log, -EINVAL, "%s: %u kernels: --module takes one (ARCHIVE:NAME)",
				   args->input, a.nr);
	} else {
		*has_modules = bc_archive_nr_modules(a.ar, a.idx[0]) > 0;
		err = bc_archive_kernel_merged(a.ar, a.idx[0], args->input,
					       args->modules, args->nr_modules,
					       hits, raw, size, log);
	}
	bc_archive_free(a.ar);
	bc_archive_arg_deinit(&a);
	return err;
}

/*
 * --module: INPUT's vmlinux and the modules the globs name, as one BTF
 * (archive/kernel_set.h) in in->btf. Every glob must name a module.
 */
static int load_with_modules(const struct dump_args *args, struct bc_input *in,
			     const struct bc_log *log)
{
	uint8_t *hits = calloc(args->nr_modules, 1);
	bool has_modules = false;
	size_t size, i;
	void *raw = NULL;
	int err;

	memset(in, 0, sizeof(*in));
	in->path = args->input;
	if (!hits)
		return bc_log_error(log, -ENOMEM, "out of memory");
	err = archived_merged(args, hits, &raw, &size, &has_modules, log);
	if (err == 1)
		err = bc_kernel_set_merged(args->input, args->modules,
					   args->nr_modules, hits, &raw, &size,
					   &has_modules, log);
	if (!err && !has_modules)
		err = bc_log_error(log, -EINVAL,
				   "%s: a kernel without its modules (a bare vmlinux, an archive's kernel stored without them): --module needs a package, a modules tree, a directory as /sys/kernel/btf or an archive's kernel stored with its modules",
				   args->input);
	for (i = 0; !err && i < args->nr_modules; i++)
		if (!hits[i])
			err = bc_log_error(log, -ENOENT, "%s: no module %s in it",
					   args->input, args->modules[i]);
	if (!err)
		err = bc_btf_parse(raw, size, NULL, args->input, log, &in->btf);
	free(raw);
	free(hits);
	return err;
}

static int parse_dump_args(int argc, char **argv, struct dump_args *args)
{
	enum { OPT_BASE = 256, OPT_KEEP_IDS, OPT_CHECK, OPT_FOR, OPT_MODULE };
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "base", required_argument, NULL, OPT_BASE },
		{ "keep-ids", no_argument, NULL, OPT_KEEP_IDS },
		{ "output", required_argument, NULL, 'o' },
		{ "check", required_argument, NULL, OPT_CHECK },
		{ "for", required_argument, NULL, OPT_FOR },
		{ "module", required_argument, NULL, OPT_MODULE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(args, 0, sizeof(*args));
	args->input_opts.canonicalize = true;
	args->sources = calloc(argc + 1, sizeof(*args->sources));
	args->objects = calloc(argc + 1, sizeof(*args->objects));
	args->dirs = calloc(argc + 1, sizeof(*args->dirs));
	args->modules = calloc(argc + 1, sizeof(*args->modules));
	if (!args->sources || !args->objects || !args->dirs || !args->modules) {
		fprintf(stderr, "btfcanon dump: out of memory\n");
		return -ENOMEM;
	}
	optind = 1;
	while ((c = getopt_long(argc, argv, "f:o:hI:", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!strcmp(optarg, "raw")) {
				args->format = DUMP_RAW;
			} else if (!strcmp(optarg, "json")) {
				args->format = DUMP_JSON;
			} else if (!strcmp(optarg, "c")) {
				args->format = DUMP_C;
			} else {
				fprintf(stderr,
					"btfcanon dump: unknown format '%s' (c, raw or json)\n",
					optarg);
				return -EINVAL;
			}
			break;
		case OPT_BASE:
			args->input_opts.base_path = optarg;
			break;
		case OPT_KEEP_IDS:
			args->input_opts.canonicalize = false;
			break;
		case 'o':
			args->output = optarg;
			break;
		case OPT_CHECK:
			args->check = optarg;
			break;
		case OPT_FOR:
			if (is_elf_file(optarg))
				args->objects[args->nr_objects++] = optarg;
			else
				args->sources[args->nr_sources++] = optarg;
			break;
		case 'I':
			args->dirs[args->nr_dirs++] = optarg;
			break;
		case OPT_MODULE:
			args->modules[args->nr_modules++] = optarg;
			break;
		case 'h':
			fputs(bc_dump_usage, stdout);
			exit(0);
		default:
			fputs(bc_dump_usage, stderr);
			return -EINVAL;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "btfcanon dump: expected one INPUT\n%s", bc_dump_usage);
		return -EINVAL;
	}
	args->input = argv[optind];
	if (args->check && args->format != DUMP_C) {
		fprintf(stderr, "btfcanon dump: --check needs -f c\n");
		return -EINVAL;
	}
	if (args->nr_modules && (args->input_opts.base_path ||
				 !args->input_opts.canonicalize)) {
		fprintf(stderr, "btfcanon dump: --module takes a kernel with its modules, without --base and --keep-ids\n");
		return -EINVAL;
	}
	if (args->check && args->output) {
		fprintf(stderr, "btfcanon dump: --check and -o exclude each other\n");
		return -EINVAL;
	}
	if (args->nr_dirs && !args->nr_sources && !args->nr_objects) {
		fprintf(stderr, "btfcanon dump: -I %s without --for: the include directories are for --for's sources\n",
			args->dirs[0]);
		return -EINVAL;
	}
	return 0;
}

/*
 * in's slim sub-BTF for the --for files, as *btf (parsed) and *lbtf
 * (libbpf's view, the same ids), with the uses of its types counted in
 * the whole BTF (*uses over *lbtf's ids: the C names are the full
 * header's). Returns 0 or a negative errno after a message.
 */
static int slim_input(const struct dump_args *args, const struct bc_input *in,
		      struct bc_btf **btf, struct btf **lbtf, uint32_t **uses,
		      const struct bc_log *log)
{
	struct bc_slim_request req = {
		.sources = args->sources, .nr_sources = args->nr_sources,
		.objects = args->objects, .nr_objects = args->nr_objects,
		.include_dirs = args->dirs, .nr_include_dirs = args->nr_dirs,
	};
	struct btf *lbase = NULL, *lfull = NULL;
	struct bc_slim_names *names = NULL;
	uint32_t *full_uses = NULL, *from = NULL;
	const void *raw;
	uint32_t size;
	int err;

	err = bc_input_to_libbpf(in, &lbase, &lfull, log);
	if (!err)
		err = bc_slim_names_read(&req, &names, log);
	if (!err)
		err = bc_slim_select_from(lfull, names, lbtf, &from, log);
	if (!err) {
		/* referrers as in the full header: in's own types */
		full_uses = bc_dump_c_uses(lfull, lbase ? btf__type_cnt(lbase) : 1,
					   btf__type_cnt(lfull));
		*uses = full_uses ? bc_dump_c_cut_uses(full_uses, btf__type_cnt(lfull),
						       from, btf__type_cnt(*lbtf)) : NULL;
		if (!*uses) {
			btf__free(*lbtf);
			*lbtf = NULL;
			err = bc_log_error(log, -ENOMEM, "%s: out of memory", args->input);
		}
	}
	free(full_uses);
	free(from);
	bc_slim_names_free(names);
	btf__free(lfull);
	btf__free(lbase);
	if (err)
		return err;
	raw = btf__raw_data(*lbtf, &size);
	if (!raw)
		err = bc_log_error(log, -ENOMEM, "%s: out of memory", args->input);
	else
		err = bc_btf_parse(raw, size, NULL, in->btf->path, log, btf);
	if (err) {
		btf__free(*lbtf);
		*lbtf = NULL;
		free(*uses);
		*uses = NULL;
	}
	return err;
}

static int render(const struct dump_args *args, const struct bc_input *in,
		  struct bc_text *out, const struct bc_log *log)
{
	struct btf *lbase = NULL, *lbtf = NULL;
	struct bc_btf *slim = NULL;
	uint32_t *uses = NULL;
	int err;

	if (args->nr_sources || args->nr_objects) {
		struct bc_dump_c_opts dopts = { 0 };

		err = slim_input(args, in, &slim, &lbtf, &uses, log);
		if (err)
			return err;
		dopts.uses = uses;
		dopts.nr_uses = btf__type_cnt(lbtf);
		if (args->format == DUMP_C)
			err = bc_dump_c_with(slim, lbtf, &dopts, out, log);
		else if (args->format == DUMP_JSON)
			err = bc_dump_json(slim, out);
		else
			err = bc_dump_raw(slim, out);
		if (err && args->format != DUMP_C)
			bc_log_error(log, err, "%s: out of memory", args->input);
		bc_btf_free(slim);
		btf__free(lbtf);
		free(uses);
		return err;
	}
	switch (args->format) {
	case DUMP_RAW:
		err = bc_dump_raw(in->btf, out);
		break;
	case DUMP_JSON:
		err = bc_dump_json(in->btf, out);
		break;
	default:
		err = bc_input_to_libbpf(in, &lbase, &lbtf, log);
		if (!err)
			err = bc_dump_c(in->btf, lbtf, out, log);
		btf__free(lbtf);
		btf__free(lbase);
		return err;
	}
	if (err)
		bc_log_error(log, err, "%s: out of memory", args->input);
	return err;
}

/* Shows "diff -u HEADER <what producer writes>". */
static void show_difference(const char *header, const char *producer,
			    const struct bc_text *fresh)
{
	char tmp[] = "/tmp/btfcanon-check.XXXXXX";
	char label[4096];
	pid_t pid;
	int fd, status;
	FILE *f;

	fd = mkstemp(tmp);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		fprintf(stderr, "btfcanon: cannot show the difference: %s\n",
			strerror(errno));
		return;
	}
	fwrite(bc_text_str(fresh), 1, fresh->len, f);
	fclose(f);
	snprintf(label, sizeof(label), "%s", producer);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execlp("diff", "diff", "-u", "--label", header, "--label", label,
		       header, tmp, (char *)NULL);
		fprintf(stderr, "btfcanon: cannot run diff: %s\n",
			strerror(errno));
		_exit(2);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
	unlink(tmp);
}

/* Reads all of path into text. Returns 0 or a negative errno. */
static int read_text_file(const char *path, struct bc_text *text)
{
	char chunk[65536];
	size_t got;
	FILE *f;
	int err = 0;

	f = fopen(path, "r");
	if (!f)
		return -errno;
	while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0)
		bc_text_add(text, chunk, got);
	if (ferror(f))
		err = -EIO;
	fclose(f);
	return err ? err : text->err;
}

int bc_check_header(const char *header, const char *producer,
		    const struct bc_text *fresh, const struct bc_log *log)
{
	struct bc_text old;
	bool stale;
	int err;

	bc_text_init(&old);
	err = read_text_file(header, &old);
	if (err) {
		bc_log_error(log, err, "%s: cannot read: %s", header,
			     strerror(-err));
		bc_text_deinit(&old);
		return 2;
	}
	stale = old.len != fresh->len ||
		memcmp(bc_text_str(&old), bc_text_str(fresh), old.len);
	bc_text_deinit(&old);
	if (!stale)
		return 0;
	printf("%s is stale: it differs from what `%s` writes\n", header,
	       producer);
	show_difference(header, producer, fresh);
	return 1;
}

/*
 * The command that writes the header, for --check's message: "btfcanon
 * dump -f c [-I DIR]... [--for FILE]... INPUT" (the -I and --for
 * arguments left out when they do not fit).
 */
static void for_label(const struct dump_args *args, char *label, size_t size)
{
	size_t i, len;

	len = snprintf(label, size, "btfcanon dump -f c ");
	for (i = 0; i < args->nr_dirs && len < size; i++)
		len += snprintf(label + len, size - len, "-I %s ", args->dirs[i]);
	for (i = 0; i < args->nr_sources + args->nr_objects && len < size; i++) {
		const char *file = i < args->nr_sources ? args->sources[i] :
				   args->objects[i - args->nr_sources];

		len += snprintf(label + len, size - len, "--for %s ", file);
	}
	if (len >= size)
		len = snprintf(label, size, "btfcanon dump -f c ");
	snprintf(label + len, size - len, "%s", args->input);
}

int bc_cmd_dump(int argc, char **argv, const struct bc_log *log)
{
	struct bc_input in = { 0 };
	struct dump_args args;
	struct bc_text out;
	int err, status;

	if (parse_dump_args(argc, argv, &args)) {
		free_dump_args(&args);
		return 2;
	}
	bc_text_init(&out);
	err = args.nr_modules ? load_with_modules(&args, &in, log) :
	      bc_input_load(args.input, &args.input_opts, &in, log);
	if (!err)
		err = render(&args, &in, &out, log);
	if (err)
		status = 2;
	else if (args.check) {
		char producer[4096];

		for_label(&args, producer, sizeof(producer));
		status = bc_check_header(args.check, producer, &out, log);
	}
	else
		status = bc_file_write_atomic(args.output ? args.output : "-",
					      bc_text_str(&out), out.len, log) ? 2 : 0;
	free_dump_args(&args);
	bc_input_deinit(&in);
	bc_text_deinit(&out);
	return status;
}
