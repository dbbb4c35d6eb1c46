// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernel names in an archive: the version order the archive keeps its
 * kernels in (the default name of an input and ARCHIVE:NAME specs are
 * spec.c's).
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
#include <stdlib.h>
#include <string.h>

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
