// SPDX-License-Identifier: GPL-2.0-only
/*
 * btf-extract: the BTF of any input btfcanon reads, as it is stored there
 * (not sorted): raw BTF, an ELF file's .BTF, a kernel image or package
 * (archive/btf_file.h). For tools/bench-archive.sh, whose baselines
 * (xz per kernel as BTFHub keeps them, solid tar.xz and zstd) compress the
 * kernels' own BTF. Not installed.
 *
 *   btf-extract INPUT OUTPUT
 *   btf-extract --modules INPUT OUTDIR
 *
 * --modules: a kernel with its modules (archive/kernel_set.h: a package,
 * a modules tree, a directory of BTF) as OUTDIR/vmlinux and one
 * OUTDIR/MODULE.btf per module, each module's BTF split over vmlinux as
 * the module file holds it: the files a shipper of module BTF would tar
 * (tools/bench-archive.sh's baselines with modules).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../archive/btf_file.h"
#include "../archive/kernel_set.h"

static void print_message(void *ctx, enum bc_log_level level, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "btf-extract: %s: %s\n",
		level == BC_LOG_ERROR ? "error" : "warning", msg);
}

static int extract_modules(const char *input, const char *dir,
			   const struct bc_log *log)
{
	struct bc_kernel_set ks;
	char path[4096];
	uint32_t i;
	int err;

	if (mkdir(dir, 0755) && errno != EEXIST) {
		perror(dir);
		return 1;
	}
	err = bc_kernel_set_read(input, NULL, &ks, log);
	if (err)
		return 1;
	snprintf(path, sizeof(path), "%s/vmlinux", dir);
	err = bc_file_write_atomic(path, ks.input.btf->data, ks.input.btf->size, log);
	for (i = 0; i < ks.nr_mods && !err; i++) {
		snprintf(path, sizeof(path), "%s/%s.btf", dir, ks.mods[i].name);
		err = bc_file_write_atomic(path, ks.mods[i].btf->data,
					   ks.mods[i].btf->size, log);
	}
	bc_kernel_set_deinit(&ks);
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct bc_log log = { .fn = print_message };
	enum bc_file_format format;
	struct bc_blob blob;
	int err;

	if (argc == 4 && !strcmp(argv[1], "--modules"))
		return extract_modules(argv[2], argv[3], &log);
	if (argc != 3) {
		fprintf(stderr, "usage: btf-extract INPUT OUTPUT\n"
			"       btf-extract --modules INPUT OUTDIR\n");
		return 2;
	}
	err = bc_file_read_btf_blob(argv[1], &blob, &format, &log);
	if (err)
		return 1;
	err = bc_file_write_atomic(argv[2], blob.data, blob.size, &log);
	bc_blob_release(&blob);
	return err ? 1 : 0;
}
