// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "btf_source.h"
#include "kimage.h"
#include "package.h"

/* The kernel in a package: its image read out, then its BTF. */
static int package_btf(const char *path, struct bc_blob *blob,
		       const struct bc_log *log)
{
	uint8_t *image;
	size_t size;
	char *member, *label;
	int err;

	err = bc_package_read_kernel(path, BC_KIMAGE_MAX_OUTPUT, &member,
				     &image, &size, log);
	if (err)
		return err;
	/* messages name both: "pkg.deb: ./boot/vmlinuz-V: ..." */
	if (asprintf(&label, "%s: %s", path, member) < 0) {
		err = bc_log_error(log, -ENOMEM, "%s: out of memory", path);
	} else {
		err = bc_kimage_read_btf(label, image, size, BC_KIMAGE_MAX_OUTPUT,
					 blob, log);
		free(label);
	}
	free(image);
	free(member);
	return err;
}

/* A kernel image: mapped (it is read once, front to back), then its BTF. */
static int image_btf(const char *path, int fd, struct bc_blob *blob,
		     const struct bc_log *log)
{
	struct bc_blob file = { 0 };
	struct stat st;
	int err;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !st.st_size ||
	    bc_file_map(fd, 0, st.st_size, &file))
		return bc_log_error(log, -EINVAL,
				    "%s: cannot map the kernel image (a regular file is needed)",
				    path);
	err = bc_kimage_read_btf(path, file.data, file.size,
				 BC_KIMAGE_MAX_OUTPUT, blob, log);
	bc_blob_release(&file);
	return err;
}

int bc_source_read_btf_blob(const char *path, struct bc_blob *blob,
			    enum bc_file_format *format,
			    const struct bc_log *log)
{
	uint8_t head[BC_KIMAGE_PROBE_LEN];
	ssize_t got;
	int fd, err;

	memset(blob, 0, sizeof(*blob));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return bc_log_error(log, -errno, "%s: cannot open: %s", path,
				    strerror(errno));
	got = pread(fd, head, sizeof(head), 0);
	if (got > 0 && bc_package_detect(head, got)) {
		close(fd);
		*format = BC_FILE_IMAGE;
		return package_btf(path, blob, log);
	}
	if (got > 0 && bc_kimage_detect(head, got)) {
		*format = BC_FILE_IMAGE;
		err = image_btf(path, fd, blob, log);
		close(fd);
		return err;
	}
	close(fd);
	return bc_file_read_btf_blob(path, blob, format, log);
}

int bc_source_load_btf(const char *path, const struct bc_btf *base,
		       const struct bc_parse_opts *opts, struct bc_btf **btf,
		       enum bc_file_format *format, const struct bc_log *log)
{
	struct bc_blob blob;
	int err;

	*btf = NULL;
	err = bc_source_read_btf_blob(path, &blob, format, log);
	if (err)
		return err;
	return bc_btf_parse_blob(&blob, base, opts, path, log, btf);
}
