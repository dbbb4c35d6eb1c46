// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernel names in an archive: the default name of an input (kimage/'s, or
 * NAME for ARCHIVE:NAME), the version order the archive keeps its kernels
 * in, and ARCHIVE:NAME specs.
 *
 * A kernel name is a version and a flavor: 6.1.0-56-cloud-amd64 is version
 * 6.1.0-56 of flavor cloud-amd64, 6.12.117+deb12-rt-arm64 version
 * 6.12.117+deb12 of rt-arm64. The version is the leading run of digits and
 * dots, then either "-N" (Debian's ABI number) or "+TAG"; the flavor is
 * what follows the next '-'. Kernels of one flavor sit together, in
 * version order (strverscmp: 6.1.0-44 < 6.1.0-56 < 6.12.100 < 6.12.117),
 * so `log` reads down one flavor's history at a time and a kernel's
 * neighbour is usually the kernel it shares most with.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../kimage/kimage.h"
#include "archive.h"

/* Length of the version at the start of name (0: none). */
static size_t version_len(const char *name)
{
	size_t i = 0;

	if (!isdigit((unsigned char)name[0]))
		return 0;
	while (isdigit((unsigned char)name[i]) || name[i] == '.')
		i++;
	if (name[i] == '-' && isdigit((unsigned char)name[i + 1])) {
		i++;
		while (isdigit((unsigned char)name[i]))
			i++;
	}
	if (name[i] == '+')
		while (name[i] && name[i] != '-')
			i++;
	return i;
}

const char *bc_archive_name_flavor(const char *name)
{
	size_t v = version_len(name);

	return name + v + (name[v] == '-');
}

int bc_archive_name_cmp(const char *a, const char *b)
{
	size_t va = version_len(a), vb = version_len(b);
	const char *fa = a + va + (a[va] == '-');
	const char *fb = b + vb + (b[vb] == '-');
	char *sa, *sb;
	int c = strcmp(fa, fb);

	if (c)
		return c;
	sa = strndup(a, va);
	sb = strndup(b, vb);
	c = sa && sb ? strverscmp(sa, sb) : 0;
	free(sa);
	free(sb);
	return c ? c : strcmp(a, b);
}

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
	err = bc_archive_open(path, &ar, log);
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
