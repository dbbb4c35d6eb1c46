// SPDX-License-Identifier: GPL-2.0-only
/*
 * A kernel file on disk, image or package: what btf_file.c hands over
 * when a file's first bytes are neither ELF nor BTF. A package's kernel is
 * read out of it (package.c), an image file is mapped; either goes to the
 * image reader (kimage.c), which copies out the BTF. The readers of
 * images and packages call nothing above canon/, so btf_file.c can call
 * them without a loop.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kimage.h"
#include "package.h"

bool bc_kernel_file_detect(const uint8_t *head, size_t len)
{
	return bc_package_detect(head, len) || bc_kimage_detect(head, len);
}

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

/* An image file: mapped (it is read once, front to back), then its BTF. */
static int image_btf(const char *path, int fd, struct bc_blob *blob,
		     const struct bc_log *log)
{
	struct stat st;
	void *mem;
	int err;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (uint64_t)st.st_size > SIZE_MAX)
		return bc_log_error(log, -EINVAL,
				    "%s: a kernel image must be a regular file",
				    path);
	mem = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	if (mem == MAP_FAILED)
		return bc_log_error(log, -errno, "%s: cannot map: %s", path,
				    strerror(errno));
	err = bc_kimage_read_btf(path, mem, st.st_size, BC_KIMAGE_MAX_OUTPUT,
				 blob, log);
	munmap(mem, st.st_size);
	return err;
}

int bc_kernel_file_read_btf(const char *path, int fd, struct bc_blob *blob,
			    const struct bc_log *log)
{
	uint8_t head[BC_KIMAGE_PROBE_LEN];
	ssize_t got = pread(fd, head, sizeof(head), 0);

	memset(blob, 0, sizeof(*blob));
	if (got > 0 && bc_package_detect(head, got))
		return package_btf(path, blob, log);
	return image_btf(path, fd, blob, log);
}
