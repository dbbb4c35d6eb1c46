// SPDX-License-Identifier: GPL-2.0-only
/*
 * Inputs that name an archive's kernel: ARCHIVE:NAME specs (split, and
 * read into the kernel's sorted BTF for btf_file.c's common reader),
 * and the default name of the kernel an input holds (NAME for
 * ARCHIVE:NAME, else kimage.c's); the one reading of a --kernel
 * argument (NAME=FILE, a file, an archive, ARCHIVE:GLOB). Above the
 * archive object and its file format, which it opens; nothing of the
 * archive calls back into it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "archive.h"
#include "kimage.h"

int bc_archive_input_name(const char *path, char **name,
			  const struct bc_log *log)
{
	const char *pattern;
	char *archive;
	int err = bc_archive_split_spec(path, &archive, &pattern);

	*name = NULL;
	if (err < 0)
		return bc_log_error(log, err, "%s: out of memory", path);
	if (err) {
		free(archive);
		*name = strdup(pattern);
		return *name ? 0 : bc_log_error(log, -ENOMEM, "%s: out of memory",
						path);
	}
	return bc_kernel_default_name(path, name, log);
}

char *bc_archive_default_name(const char *path)
{
	char *name;

	return bc_archive_input_name(path, &name, NULL) ? NULL : name;
}

bool bc_archive_is_archive(const char *path)
{
	char magic[BC_ARCHIVE_MAGIC_LEN];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool is;

	if (fd < 0)
		return false;
	is = read(fd, magic, sizeof(magic)) == (ssize_t)sizeof(magic) &&
	     !memcmp(magic, BC_ARCHIVE_MAGIC, sizeof(magic));
	close(fd);
	return is;
}

int bc_archive_split_spec(const char *spec, char **archive,
			  const char **pattern)
{
	const char *colon = strrchr(spec, ':');

	*archive = NULL;
	*pattern = NULL;
	if (!colon || colon == spec || access(spec, F_OK) == 0)
		return 0;
	*archive = strndup(spec, colon - spec);
	if (!*archive)
		return -ENOMEM;
	if (!bc_archive_is_archive(*archive)) {
		free(*archive);
		*archive = NULL;
		return 0;
	}
	*pattern = colon + 1;
	return 1;
}

int bc_kernel_arg_split(const char *arg, char **name, const char **file)
{
	const char *eq = strchr(arg, '=');

	*name = NULL;
	*file = arg;
	if (!eq || eq == arg || memchr(arg, '/', eq - arg) ||
	    access(arg, F_OK) == 0)
		return 0;
	*name = strndup(arg, eq - arg);
	if (!*name)
		return -ENOMEM;
	*file = eq + 1;
	return 1;
}

int bc_archive_arg_open(const char *arg, struct bc_archive_arg *a,
			const struct bc_log *log)
{
	const char *pattern = "*", *file;
	int err, spec = 0;

	memset(a, 0, sizeof(*a));
	err = bc_kernel_arg_split(arg, &a->name, &a->file);
	if (err < 0)
		return bc_log_error(log, err, "out of memory");
	file = a->file;
	if (!bc_archive_is_archive(file)) {
		spec = bc_archive_split_spec(file, &a->path, &pattern);
		if (spec < 0) {
			err = bc_log_error(log, spec, "out of memory");
			goto fail;
		}
		if (!spec) {
			/* a file */
			if (a->name && access(file, F_OK)) {
				err = bc_log_error(log, -ENOENT,
					"--kernel %s: NAME=FILE, and FILE %s: %s",
					arg, file, strerror(errno));
				goto fail;
			}
			return 0;
		}
	} else if (!(a->path = strdup(file))) {
		err = bc_log_error(log, -ENOMEM, "out of memory");
		goto fail;
	}
	a->spec = spec;
	err = bc_archive_open(a->path, &a->ar, log);
	if (!err && bc_archive_match(a->ar, pattern, &a->idx, &a->nr))
		err = bc_log_error(log, -ENOMEM, "out of memory");
	if (!err && !a->nr)
		err = bc_log_error(log, -ENOENT,
				   "%s: no kernel of the archive matches", arg);
	if (!err && a->name && a->nr != 1)
		err = bc_log_error(log, -EINVAL,
				   "--kernel %s: NAME=FILE names one kernel, and %s holds %u (ARCHIVE:NAME gives one)",
				   arg, file, a->nr);
	if (!err)
		return 0;
	bc_archive_free(a->ar);
fail:
	bc_archive_arg_deinit(a);
	memset(a, 0, sizeof(*a));
	return err;
}

void bc_archive_arg_deinit(struct bc_archive_arg *a)
{
	free(a->path);
	free(a->idx);
	free(a->name);
	a->path = NULL;
	a->idx = NULL;
	a->name = NULL;
}

int bc_archive_read_spec(const char *spec, void **raw, size_t *size,
			 const struct bc_log *log)
{
	struct bc_archive *ar = NULL;
	const char *pattern;
	char *path;
	uint32_t *idx = NULL, nr = 0, i;
	int err = bc_archive_split_spec(spec, &path, &pattern);

	if (err <= 0)
		return err ? err : bc_log_error(log, -EINVAL,
						"%s: not ARCHIVE:NAME", spec);
	err = bc_archive_open_lazy(path, &ar, log);
	if (!err)
		err = bc_archive_match(ar, pattern, &idx, &nr);
	if (!err && nr != 1) {
		char list[512] = "";
		size_t used = 0;

		for (i = 0; i < nr && used + 2 < sizeof(list); i++)
			used += snprintf(list + used, sizeof(list) - used,
					 "%s%s", i ? " " : "",
					 bc_archive_kernel_name(ar, idx[i]));
		if (nr)
			err = bc_log_error(log, -ENOENT,
				"%s: '%s' names %u kernels (%s); one is needed here",
				spec, pattern, nr, list);
		else
			err = bc_log_error(log, -ENOENT,
				"%s: no kernel '%s' in the archive", spec,
				pattern);
	}
	if (!err)
		err = bc_archive_kernel_raw(ar, idx[0], raw, size, log);
	free(idx);
	bc_archive_free(ar);
	free(path);
	return err;
}
