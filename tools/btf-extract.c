// SPDX-License-Identifier: GPL-2.0-only
/*
 * btf-extract: the BTF of any input btfcanon reads, as it is stored there
 * (not sorted): raw BTF, an ELF file's .BTF, a kernel image or package
 * (archive/btf_file.h). For tools/bench-archive.sh, whose baselines
 * (xz per kernel as BTFHub keeps them, solid tar.xz and zstd) compress the
 * kernels' own BTF. Not installed.
 *
 *   btf-extract INPUT OUTPUT
 */
#include <stdio.h>

#include "../archive/btf_file.h"

static void print_message(void *ctx, enum bc_log_level level, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "btf-extract: %s: %s\n",
		level == BC_LOG_ERROR ? "error" : "warning", msg);
}

int main(int argc, char **argv)
{
	struct bc_log log = { .fn = print_message };
	enum bc_file_format format;
	struct bc_blob blob;
	int err;

	if (argc != 3) {
		fprintf(stderr, "usage: btf-extract INPUT OUTPUT\n");
		return 2;
	}
	err = bc_file_read_btf_blob(argv[1], &blob, &format, &log);
	if (err)
		return 1;
	err = bc_file_write_atomic(argv[2], blob.data, blob.size, &log);
	bc_blob_release(&blob);
	return err ? 1 : 0;
}
