// SPDX-License-Identifier: GPL-2.0-only
/*
 * The `archive` command: create, add, list, extract, remove. Like the
 * other commands it prints; the archive itself is archive.h's. `archive
 * log`, a diff across kernels, is diff/cmd_log.c's: tools/btfcanon.c
 * routes it there.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "btf_file.h"
#include "add_input.h"
#include "archive.h"
#include "archive_cmd.h"

const char bc_archive_usage[] =
"Usage: btfcanon archive create OUT INPUT... [--name NAME]... [-j N] [--wait S]\n"
"       btfcanon archive add ARCHIVE INPUT... [--name NAME]... [-j N] [--wait S]\n"
"       btfcanon archive list ARCHIVE\n"
"       btfcanon archive extract ARCHIVE NAME[/MODULE] -o FILE\n"
"       btfcanon archive extract --merged ARCHIVE NAME [MODULE...] -o FILE\n"
"       btfcanon archive remove ARCHIVE NAME... [--wait S]\n"
"       btfcanon archive log ARCHIVE TYPE[.MEMBER]\n"
"\n"
"Many kernels' BTF in one file, each under a name. An INPUT is anything\n"
"sort reads (raw BTF, ELF .BTF, a kernel image, ARCHIVE:NAME), or a kernel\n"
"with its modules: a kernel package (.deb, .rpm), a modules tree, a\n"
"directory of BTF (DIR/vmlinux and the modules' split BTF, as\n"
"/sys/kernel/btf); its name comes from the file unless --name gives one\n"
"(vmlinuz-6.1.0-56-cloud-amd64 -> 6.1.0-56-cloud-amd64, X.btf.tar.xz -> X).\n"
"add of a kernel stored without modules adds its modules.\n"
"Kernels are listed in version order, with their module counts. extract\n"
"writes the bytes btfcanon sort writes for the input; NAME/MODULE a\n"
"module's split BTF over the kernel extract writes (sort --base); --merged\n"
"the kernel and the MODULEs (all when none is named) as one BTF, every\n"
"type once, for libbpf's btf_custom_path. ARCHIVE:NAME (NAME may be a\n"
"glob matching one kernel) is an input of sort, dump and diff too. log\n"
"TYPE is 'struct NAME', 'union NAME', 'enum NAME', 'typedef NAME', 'func\n"
"NAME' or a bare NAME of any kind; .MEMBER follows one member.\n"
"\n"
"Options:\n"
"  --name NAME  the i-th --name names the i-th INPUT\n"
"  --merged     extract: the kernel and its modules as one BTF\n"
"  -j N         inputs read and sorted on N threads (default: one per CPU,\n"
"               up to 8; the bytes do not depend on it)\n"
"  --wait S     writers (create over a file, add, remove) take turns: wait\n"
"               at most S seconds (default 60) for another writer, else\n"
"               exit 2 changing nothing\n";

/* ---- create, add, list, extract, remove ---------------------------------- */

/* Readers of inputs for create and add: one per CPU, at most 8. */
static uint32_t online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > 8 ? 8 : (uint32_t)n;
}

/*
 * --wait SECONDS: how long a writer waits for the writers' lock (a
 * decimal number, 0 to a day). Returns 0 or -EINVAL after a message.
 */
static int parse_wait(const char *cmd, const char *arg, uint32_t *wait_ms)
{
	char *end;
	double s = strtod(arg, &end);

	if (end == arg || *end || !isfinite(s) || s < 0 || s > 86400) {
		fprintf(stderr,
			"btfcanon archive %s: --wait '%s': seconds, 0 to 86400\n",
			cmd, arg);
		return -EINVAL;
	}
	*wait_ms = (uint32_t)(s * 1000 + 0.5);
	return 0;
}

/* A writer's exit status: 2 when it timed out waiting for the lock. */
static int writer_status(int err)
{
	return err == -ETIMEDOUT ? 2 : err ? 1 : 0;
}

struct add_args {
	const char *archive;
	const char **inputs;
	const char **names;	/* [nr_inputs], NULL past the last --name */
	int nr_inputs, nr_names;
	uint32_t jobs;
	uint32_t wait_ms;
};

static int parse_add_args(const char *cmd, int argc, char **argv,
			  struct add_args *args)
{
	static const struct option opts[] = {
		{ "name", required_argument, NULL, 'n' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "wait", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(args, 0, sizeof(*args));
	args->inputs = calloc(argc + 1, sizeof(char *));
	args->names = calloc(argc + 1, sizeof(char *));
	if (!args->inputs || !args->names)
		return -ENOMEM;
	optind = 1;
	args->jobs = online_cpus();
	args->wait_ms = BC_ARCHIVE_WAIT_MS;
	while ((c = getopt_long(argc, argv, "-n:j:h", opts, NULL)) != -1) {
		switch (c) {
		case 1:
			if (!args->archive)
				args->archive = optarg;
			else
				args->inputs[args->nr_inputs++] = optarg;
			break;
		case 'n':
			args->names[args->nr_names++] = optarg;
			break;
		case 'j':
			args->jobs = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 'w':
			if (parse_wait(cmd, optarg, &args->wait_ms))
				return -EINVAL;
			break;
		case 'h':
			fputs(bc_archive_usage, stdout);
			exit(0);
		default:
			return -EINVAL;
		}
	}
	if (!args->archive || (!args->nr_inputs && !strcmp(cmd, "create") && 0)) {
		fprintf(stderr, "btfcanon archive %s: expected ARCHIVE INPUT...\n%s",
			cmd, bc_archive_usage);
		return -EINVAL;
	}
	if (!args->nr_inputs && strcmp(cmd, "create")) {
		fprintf(stderr, "btfcanon archive %s: expected ARCHIVE INPUT...\n%s",
			cmd, bc_archive_usage);
		return -EINVAL;
	}
	if (args->nr_names > args->nr_inputs) {
		fprintf(stderr,
			"btfcanon archive %s: %d --name for %d inputs\n", cmd,
			args->nr_names, args->nr_inputs);
		return -EINVAL;
	}
	return 0;
}

/*
 * create builds the archive from its inputs, then takes the lock of the
 * file it replaces, if any, for the write alone (it reads nothing of it);
 * add holds the lock from reading the archive to renaming the new one.
 */
static int cmd_create_add(const char *cmd, int argc, char **argv,
			  const struct bc_log *log)
{
	struct bc_archive *ar = NULL;
	struct add_args args;
	bool create = !strcmp(cmd, "create");
	int err = parse_add_args(cmd, argc, argv, &args);

	if (err) {
		free(args.inputs);
		free(args.names);
		return 2;
	}
	if (create)
		err = bc_archive_new(&ar);
	else
		err = bc_archive_open_locked(args.archive, args.wait_ms, &ar, log);
	if (!err)
		err = bc_archive_add_files(ar, args.inputs, args.names,
					   (uint32_t)args.nr_inputs, args.jobs,
					   log);
	if (!err && create)
		err = bc_archive_lock(ar, args.archive, args.wait_ms, log);
	if (!err)
		err = bc_archive_write(ar, args.archive, log);
	bc_archive_free(ar);
	free(args.inputs);
	free(args.names);
	return writer_status(err);
}

static int cmd_list(int argc, char **argv, const struct bc_log *log)
{
	struct bc_archive *ar;
	uint32_t k, nr, i;

	if (argc != 2) {
		fprintf(stderr, "btfcanon archive list: expected ARCHIVE\n%s",
			bc_archive_usage);
		return 2;
	}
	/* names and attachments only: no record is decoded */
	if (bc_archive_open_partial(argv[1], &ar, log))
		return 1;
	if (bc_archive_read_modules(ar, -1, log)) {
		bc_archive_free(ar);
		return 1;
	}
	for (k = 0; k < bc_archive_nr_kernels(ar); k++) {
		const char *const *att = bc_archive_attachment_names(ar, k, &nr);

		uint32_t nr_mods = bc_archive_nr_modules(ar, k), as_bytes = 0;

		for (i = 0; i < nr_mods; i++)
			as_bytes += bc_archive_module_stored_as_bytes(ar, k, i);
		printf("%s", bc_archive_kernel_name(ar, k));
		if (nr_mods)
			printf(" (%u module%s", nr_mods, nr_mods == 1 ? "" : "s");
		if (nr_mods && as_bytes && !bc_archive_kernel_stored_as_bytes(ar, k))
			printf(", %u stored as bytes", as_bytes);
		if (nr_mods)
			printf(")");
		if (bc_archive_kernel_stored_as_bytes(ar, k))
			printf(" (stored as bytes)");
		for (i = 0; i < nr; i++)
			printf("%s%s", i ? "," : " +", att[i]);
		printf("\n");
	}
	bc_archive_free(ar);
	return 0;
}

/* The one kernel spec names in ar (a name or a glob); negative: none. */
static int one_kernel(const struct bc_archive *ar, const char *path,
		      const char *spec, const struct bc_log *log)
{
	uint32_t *idx, nr;
	int k = bc_archive_find_kernel(ar, spec);

	if (k >= 0)
		return k;
	if (bc_archive_match(ar, spec, &idx, &nr))
		return -ENOMEM;
	k = nr == 1 ? (int)idx[0] : -ENOENT;
	free(idx);
	if (k < 0 && nr)
		bc_log_error(log, k, "%s: '%s' names %u kernels, not one", path,
			     spec, nr);
	else if (k < 0)
		bc_log_error(log, k, "%s: no kernel '%s'", path, spec);
	return k;
}

/* Module spec of kernel k in ar, or -ENOENT after a message. */
static int one_module(const struct bc_archive *ar, const char *path,
		      uint32_t k, const char *name, const struct bc_log *log)
{
	int i = bc_archive_find_module(ar, k, name);

	if (i < 0)
		bc_log_error(log, -ENOENT, "%s: kernel '%s' has no module '%s'%s",
			     path, bc_archive_kernel_name(ar, k), name,
			     bc_archive_nr_modules(ar, k) ? "" :
			     " (it was stored without modules)");
	return i;
}

/*
 * extract NAME/MODULE: the module's split BTF over the kernel's bytes
 * (the kernel rebuilt for its string offsets, not written).
 */
static int extract_module(struct bc_archive *ar, const char *path, int k,
			  const char *module, void **raw, size_t *size,
			  const struct bc_log *log)
{
	struct bc_archive_kmods *km = NULL;
	/* the module's name group only: its kernel's and parents' entries */
	int i = bc_archive_read_module(ar, (uint32_t)k, module, log), err;

	if (i == -ENOENT)
		i = one_module(ar, path, (uint32_t)k, module, log);
	if (i < 0)
		return i;
	err = bc_archive_kmods_open(ar, (uint32_t)k, &km, NULL, NULL, log);
	err = err ? err : bc_archive_kmods_module(km, (uint32_t)i, raw, size, log);
	bc_archive_kmods_free(km);
	return err;
}

/*
 * extract --merged NAME [MODULE...]: the kernel and the modules (all when
 * none is named) as one BTF. A module that cannot be rebuilt is said and
 * left out; the others are merged.
 */
static int extract_merged(struct bc_archive *ar, const char *path, int k,
			  char **names, int nr_names, void **raw, size_t *size,
			  const struct bc_log *log)
{
	uint32_t nr = nr_names ? (uint32_t)nr_names : bc_archive_nr_modules(ar, (uint32_t)k);
	struct bc_archive_kmods *km = NULL;
	void *base = NULL, **mods = calloc(nr + 1, sizeof(void *));
	size_t base_size = 0, *sizes = calloc(nr + 1, sizeof(size_t));
	uint32_t i, got = 0;
	char *what = NULL;
	int err = mods && sizes ? 0 : -ENOMEM;

	for (i = 0; i < (uint32_t)nr_names && !err; i++)
		if (one_module(ar, path, (uint32_t)k, names[i], log) < 0)
			err = -ENOENT;
	err = err ? err : bc_archive_kmods_open(ar, (uint32_t)k, &km, &base,
						&base_size, log);
	for (i = 0; i < nr && !err; i++) {
		uint32_t at = nr_names ? (uint32_t)bc_archive_find_module(ar, (uint32_t)k, names[i]) : i;
		int e = bc_archive_kmods_module(km, at, &mods[got], &sizes[got], log);

		if (e == -ENOMEM)
			err = e;
		else if (!e)
			got++;
		else
			bc_log_printf(log, BC_LOG_WARN, "%s: module '%s' left out",
				      path, bc_archive_module_name(ar, (uint32_t)k, at));
	}
	if (!err && asprintf(&what, "%s:%s", path, bc_archive_kernel_name(ar, (uint32_t)k)) < 0)
		err = -ENOMEM;
	if (!err)
		err = bc_archive_merge_modules(base, base_size, mods, sizes, got,
					       online_cpus(), raw, size, what, log);
	else if (err == -ENOMEM)
		bc_log_error(log, err, "%s: out of memory", path);
	for (i = 0; i < got; i++)
		free(mods[i]);
	free(mods);
	free(sizes);
	free(base);
	free(what);
	bc_archive_kmods_free(km);
	return err;
}

static int cmd_extract(int argc, char **argv, const struct bc_log *log)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "merged", no_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	const char *output = NULL, *path;
	struct bc_archive *ar;
	bool merged = false;
	char *spec = NULL, *module = NULL;
	void *raw = NULL;
	size_t size = 0;
	int c, k, err, nr_args;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		if (c == 'm')
			merged = true;
		else if (c == 'o')
			output = optarg;
		else
			return 2;
	}
	nr_args = argc - optind;
	if (!output || (merged ? nr_args < 2 : nr_args != 2)) {
		fprintf(stderr, merged ?
			"btfcanon archive extract: expected --merged ARCHIVE NAME [MODULE...] -o FILE\n%s" :
			"btfcanon archive extract: expected ARCHIVE NAME[/MODULE] -o FILE\n%s",
			bc_archive_usage);
		return 2;
	}
	path = argv[optind];
	spec = strdup(argv[optind + 1]);
	if (!spec)
		return 1;
	if (!merged && strchr(spec, '/')) {	/* kernel names have no '/' */
		module = strrchr(spec, '/');
		*module++ = 0;
	}
	/* --merged reads the kernel whole and every module: no part to skip */
	if ((merged ? bc_archive_open_lazy : bc_archive_open_partial)(path, &ar, log)) {
		free(spec);
		return 1;
	}
	k = one_kernel(ar, path, spec, log);
	if (k < 0)
		err = k;
	else if (merged)
		err = extract_merged(ar, path, k, argv + optind + 2, nr_args - 2,
				     &raw, &size, log);
	else if (module)
		err = extract_module(ar, path, k, module, &raw, &size, log);
	else
		err = bc_archive_kernel_raw(ar, (uint32_t)k, &raw, &size, log);
	if (!err)
		err = bc_file_write_atomic(output, raw, size, log);
	free(raw);
	free(spec);
	bc_archive_free(ar);
	return err ? 1 : 0;
}

static int cmd_remove(int argc, char **argv, const struct bc_log *log)
{
	static const struct option opts[] = {
		{ "wait", required_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 },
	};
	uint32_t wait_ms = BC_ARCHIVE_WAIT_MS;
	const char *path = NULL;
	struct bc_archive *ar;
	char **names;
	int c, i, k, nr = 0, err = 0;

	names = calloc(argc + 1, sizeof(*names));
	if (!names)
		return 1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "-", opts, NULL)) != -1) {
		if (c == 1 && !path) {
			path = optarg;
		} else if (c == 1) {
			names[nr++] = optarg;
		} else if (c != 'w' || parse_wait("remove", optarg, &wait_ms)) {
			free(names);
			return 2;
		}
	}
	if (!nr) {
		fprintf(stderr, "btfcanon archive remove: expected ARCHIVE NAME...\n%s",
			bc_archive_usage);
		free(names);
		return 2;
	}
	err = bc_archive_open_locked(path, wait_ms, &ar, log);
	if (err) {
		free(names);
		return writer_status(err);
	}
	for (i = 0; i < nr && !err; i++) {
		k = bc_archive_find_kernel(ar, names[i]);
		if (k < 0)
			err = bc_log_error(log, k, "%s: no kernel '%s'", path,
					   names[i]);
		else
			err = bc_archive_remove(ar, (uint32_t)k);
	}
	if (!err)
		err = bc_archive_write(ar, path, log);
	bc_archive_free(ar);
	free(names);
	return writer_status(err);
}

int bc_cmd_archive(int argc, char **argv, const struct bc_log *log)
{
	const char *sub = argc > 1 ? argv[1] : NULL;

	if (!sub || !strcmp(sub, "-h") || !strcmp(sub, "--help")) {
		fputs(bc_archive_usage, sub ? stdout : stderr);
		return sub ? 0 : 2;
	}
	if (!strcmp(sub, "create") || !strcmp(sub, "add"))
		return cmd_create_add(sub, argc - 1, argv + 1, log);
	if (!strcmp(sub, "list"))
		return cmd_list(argc - 1, argv + 1, log);
	if (!strcmp(sub, "extract"))
		return cmd_extract(argc - 1, argv + 1, log);
	if (!strcmp(sub, "remove"))
		return cmd_remove(argc - 1, argv + 1, log);
	fprintf(stderr, "btfcanon archive: unknown command '%s'\n%s", sub,
		bc_archive_usage);
	return 2;
}
