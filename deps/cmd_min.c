// SPDX-License-Identifier: GPL-2.0-only
/*
 * btfcanon min OBJECT... --kernel K [--kernel K]... -o DIR
 *
 * For each kernel, DIR/NAME.btf: the smallest BTF libbpf needs to
 * relocate the objects (min.c), as `bpftool gen min_core_btf` makes for
 * one kernel. An archive counts as all its kernels, ARCHIVE:GLOB as
 * those whose names match (kernel_list.h), NAME being the kernel's name in
 * the archive; for a file, NAME is its name without a "vmlinux-" in
 * front and a ".btf" behind (vmlinux-6.12.117+deb12-cloud-amd64 gives
 * 6.12.117+deb12-cloud-amd64). The objects are read first: a bad one
 * stops the run before any kernel is read. Kernels are read one at a
 * time; each file is written whole or not at all.
 *
 * Exit status: 0 written, 2 bad usage or bad input.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../archive/btf_file.h"
#include "../archive/kimage.h"
#include "../archive/package.h"
#include "commands.h"
#include "deps.h"
#include "kernel_list.h"
#include "min.h"

const char bc_min_usage[] =
"Usage: btfcanon min OBJECT... --kernel K [--kernel K]... -o DIR\n"
"  OBJECT       a BPF ELF object (clang -target bpf -g)\n"
"  --kernel K   raw BTF, an ELF file's .BTF, a debug vmlinux, a saved\n"
"               kernel file, an archive (all its kernels) or\n"
"               ARCHIVE:GLOB (those whose names match); a kernel with\n"
"               its modules (a package, a modules tree, a directory as\n"
"               /sys/kernel/btf): one BTF of vmlinux and module types\n"
"  -o DIR       where DIR/NAME.btf goes, per kernel: NAME is its name in\n"
"               the archive, or K's file name without \"vmlinux-\" and\n"
"               \".btf\"\n"
"Each file holds the types, members and enumerators libbpf needs to\n"
"apply the objects' CO-RE relocations (btf_custom_path), as bpftool gen\n"
"min_core_btf makes. Exit status: 0 written, 2 bad usage or input.\n";

/* Does path start a .deb or an .rpm? */
static bool is_package(const char *path)
{
	uint8_t head[32];
	size_t got = 0;
	FILE *f = fopen(path, "rb");

	if (f) {
		got = fread(head, 1, sizeof(head), f);
		fclose(f);
	}
	return bc_package_detect(head, got);
}

/* The name of a kernel's file in DIR, malloc'd. */
static char *kernel_name(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t len;
	char *name;

	base = base ? base + 1 : path;
	if (!strncmp(base, "vmlinux-", 8) && base[8])
		base += 8;
	len = strlen(base);
	if (len > 4 && !strcmp(base + len - 4, ".btf"))
		len -= 4;
	name = strndup(base, len);
	return name;
}

int bc_cmd_min(int argc, char **argv, const struct bc_log *log)
{
	static const struct option opts[] = {
		{ "kernel", required_argument, NULL, 'k' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bc_bpf_object *objs = NULL;
	struct bc_kernel_list kl = { 0 };
	char **kernels = NULL, **names = NULL, *path = NULL;
	const char *dir = NULL;
	int c, i, k, nr_kernels = 0, nr_objs = 0, status = 2;

	kernels = calloc(argc, sizeof(*kernels));
	objs = calloc(argc, sizeof(*objs));
	if (!kernels || !objs) {
		bc_log_error(log, -ENOMEM, "out of memory");
		goto out;
	}
	optind = 1;
	while ((c = getopt_long(argc, argv, "hk:o:", opts, NULL)) != -1) {
		switch (c) {
		case 'k':
			kernels[nr_kernels++] = optarg;
			break;
		case 'o':
			dir = optarg;
			break;
		case 'h':
			fputs(bc_min_usage, stdout);
			status = 0;
			goto out;
		default:
			fputs(bc_min_usage, stderr);
			goto out;
		}
	}
	if (optind == argc || !nr_kernels || !dir) {
		fprintf(stderr, "btfcanon min: expected OBJECT..., --kernel K and -o DIR\n%s",
			bc_min_usage);
		goto out;
	}
	for (i = optind; i < argc; i++, nr_objs++)
		if (bc_bpf_object_load(argv[i], &objs[nr_objs], log))
			goto out;
	for (k = 0; k < nr_kernels; k++)
		if (bc_kernel_list_add(&kl, kernels[k], NULL, log))
			goto out;
	names = calloc(kl.nr, sizeof(*names));
	if (!names) {
		bc_log_error(log, -ENOMEM, "out of memory");
		goto out;
	}
	for (k = 0; k < (int)kl.nr; k++) {
		const struct bc_kernel_src *src = &kl.srcs[k];

		if (src->ar)
			names[k] = strdup(bc_archive_kernel_name(src->ar, src->idx));
		else if (is_package(src->path)) {
			/* a package: its kernel's name, as archive names it */
			if (bc_kernel_default_name(src->path, &names[k], log))
				goto out;
		} else
			names[k] = kernel_name(src->path);
		if (!names[k] || !*names[k]) {
			bc_log_error(log, -EINVAL, "%s: no name for its file in %s",
				     src->label, dir);
			goto out;
		}
		for (i = 0; i < k; i++)
			if (!strcmp(names[i], names[k])) {
				bc_log_error(log, -EINVAL,
					     "%s and %s would both be %s/%s.btf",
					     kl.srcs[i].label, src->label, dir,
					     names[k]);
				goto out;
			}
	}
	if (mkdir(dir, 0777) && errno != EEXIST) {
		bc_log_error(log, -errno, "%s: %s", dir, strerror(errno));
		goto out;
	}
	for (k = 0; k < (int)kl.nr; k++) {
		struct bc_deps_kernel kernel;
		struct bc_min *m = NULL;
		void *raw = NULL;
		size_t size = 0;
		int err;

		if (bc_kernel_src_load(&kl.srcs[k], false, true, &kernel, log))
			goto out;
		if (!kernel.types.btf) {
			bc_log_error(log, -EINVAL, "%s: its BTF could not be read whole",
				     kl.srcs[k].label);
			bc_deps_kernel_deinit(&kernel);
			goto out;
		}
		/* with modules: one BTF of vmlinux and module types */
		err = kernel.nr_modules ?
		      bc_min_new_modules(&kernel.types, kernel.modules,
					 kernel.nr_modules, &m, log) :
		      bc_min_new(&kernel.types, &m);
		for (i = 0; i < nr_objs && !err; i++)
			err = bc_min_add_object(m, &objs[i]);
		if (err)
			bc_log_error(log, err, "%s: %s", kl.srcs[k].label,
				     err == -ENOMEM ? "out of memory" :
				     "a relocation's path does not fit its types");
		else
			err = bc_min_write(m, &raw, &size, log);
		if (!err && !kernel.has_modules && bc_min_nr_without_candidates(m))
			bc_log_printf(log, BC_LOG_WARN,
				      "%s: %u relocations found no type of their name in vmlinux, and %s, so a module's could not be taken",
				      kl.srcs[k].label, bc_min_nr_without_candidates(m),
				      kernel.from_archive ? "the archive holds no modules" :
				      "no modules were given with the kernel");
		bc_min_free(m);
		bc_deps_kernel_deinit(&kernel);
		free(path);
		path = NULL;
		if (!err && asprintf(&path, "%s/%s.btf", dir, names[k]) < 0) {
			path = NULL;
			err = bc_log_error(log, -ENOMEM, "out of memory");
		}
		if (!err)
			err = bc_file_write_atomic(path, raw, size, log);
		free(raw);
		if (err)
			goto out;
	}
	status = 0;
out:
	for (i = 0; i < nr_objs; i++)
		bc_bpf_object_deinit(&objs[i]);
	if (names)
		for (k = 0; k < (int)kl.nr; k++)
			free(names[k]);
	free(names);
	bc_kernel_list_deinit(&kl);
	free(path);
	free(objs);
	free(kernels);
	return status;
}
