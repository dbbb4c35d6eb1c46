// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernel names in an archive: the version order the archive keeps its
 * kernels in (the default name of an input and ARCHIVE:NAME specs are
 * spec.c's and kimage.c's).
 *
 * The problem. An archive holds kernels of any distribution under their
 * `uname -r`, and the order is part of its bytes (records are numbered,
 * and parents chosen, walking the kernels in it), so it must be total and
 * deterministic, and a distribution's kernels must sit in the order its
 * release engineers built them: 4.18.0-80.el8 before 4.18.0-147.5.1.el8_1
 * before 4.18.0-193.el8_2 (strverscmp of the whole name puts 147.5.1
 * first; the previous order, flavor then strverscmp of a Debian-shaped
 * version, took ".5.1.el8_1.aarch64" for a flavor).
 *
 * A name is cut into four parts (parse()):
 *	VERSION	the leading run of digits and dots: the upstream kernel
 *		(6.1.0, 4.18.0, 6.12.117);
 *	RELEASE	the distribution's build of it: after "-" when a digit
 *		follows (Debian's ABI number 56, Debian's 0.bpo.9 and
 *		0.deb11.17, Ubuntu's 1029 and 1034.38~20.04.1, RPM's
 *		147.5.1), or after "+" (Debian's +deb12), up to the next "-";
 *	FLAVOR	what follows that "-" (cloud-amd64, rt-arm64, aws,
 *		generic); with no "-" after an RPM-style release, its last
 *		".ARCH" (x86_64, aarch64, ... with a "+debug" kept) is the
 *		flavor instead (VERSION-RELEASE.DIST.ARCH);
 *	DIST	in a release with no "-" flavor, its last "."-segment when
 *		it starts with a letter (el8_1, el9_2, fc39, oe1, amzn2,
 *		el8uek), taken out of the release.
 * A name that does not start with a digit is all flavor.
 *
 * The order: flavor (bytes), then distribution (DIST's leading letters:
 * el, fc, oe, amzn; none for Debian, Ubuntu and SUSE names), then
 * VERSION, RELEASE and DIST by vercmp(), then the name's bytes. So a
 * line, one flavor of one distribution, sits together in version order
 * (`archive log` reads down a line; a kernel's parent is usually its
 * predecessor in it), lines by their names. vercmp() is rpmvercmp's
 * segment comparison with Debian's tilde: runs of digits compare as
 * numbers, runs of letters as bytes, a number is newer than letters,
 * other characters only separate; '~' sorts before anything, the end of
 * the string included (1034.38~20.04.1 < 1034.38); with all equal, the
 * one with segments left is newer (147.5.1 > 147).
 *
 * Debian's names (VERSION-ABI-FLAVOR, VERSION+debN-FLAVOR) keep the order
 * the archive gave them before (flavor, then strverscmp of the version):
 * archives of them are byte for byte what they were. Names whose order
 * changed: backports (5.10.0-0.bpo.9-amd64 was flavor ".bpo.9-amd64"), and
 * RPM and Ubuntu-package names (4.18.0-147.5.1.el8_1.aarch64 was version
 * 4.18.0-147, flavor ".5.1.el8_1.aarch64"); an archive written in the old
 * order is still read (archive.c sorts what it reads).
 *
 * Cost: a comparison parses both names (one pass each), no allocation.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "archive.h"

/* A kernel name cut into its parts; each a span of the name. */
struct name_parts {
	const char *ver, *rel, *dist, *flavor;
	size_t ver_len, rel_len, dist_len, distro_len;
};

/* The architectures an RPM release ends with (".x86_64"). */
static bool is_arch(const char *s, size_t len)
{
	static const char *const arches[] = {
		"x86_64", "aarch64", "i386", "i586", "i686", "ppc64le", "ppc64",
		"s390x", "armv7hl", "armv7l", "riscv64", "loongarch64", "noarch",
	};
	size_t i;

	for (i = 0; i < sizeof(arches) / sizeof(arches[0]); i++)
		if (strlen(arches[i]) == len && !memcmp(s, arches[i], len))
			return true;
	return false;
}

/* Takes ".ARCH[+VARIANT]" then ".DIST" off the end of an RPM release. */
static void split_rpm(struct name_parts *p)
{
	const char *dot = memrchr(p->rel, '.', p->rel_len);
	size_t n;

	if (dot) {
		const char *end = p->rel + p->rel_len;
		const char *plus = memchr(dot, '+', (size_t)(end - dot));

		if (is_arch(dot + 1, (size_t)((plus ? plus : end) - dot - 1))) {
			p->flavor = dot + 1;
			p->rel_len = (size_t)(dot - p->rel);
		}
	}
	dot = memrchr(p->rel, '.', p->rel_len);
	if (!dot || !isalpha((unsigned char)dot[1]))
		return;
	p->dist = dot + 1;
	p->dist_len = p->rel_len - (size_t)(p->dist - p->rel);
	p->rel_len = (size_t)(dot - p->rel);
	for (n = 0; n < p->dist_len && isalpha((unsigned char)p->dist[n]); n++)
		;
	p->distro_len = n;
}

static void parse(const char *name, struct name_parts *p)
{
	size_t v = 0, r, e;

	memset(p, 0, sizeof(*p));
	p->ver = p->rel = p->dist = name;
	p->flavor = name;
	if (!isdigit((unsigned char)name[0]))
		return;
	while (isdigit((unsigned char)name[v]) || name[v] == '.')
		v++;
	p->ver_len = v;
	if ((name[v] == '-' && isdigit((unsigned char)name[v + 1])) ||
	    name[v] == '+') {
		r = v + 1;
	} else {
		p->flavor = name + v + (name[v] == '-');
		return;
	}
	for (e = r; name[e] && name[e] != '-'; e++)
		;
	p->rel = name + r;
	p->rel_len = e - r;
	p->flavor = name + e + (name[e] == '-');
	if (!name[e])
		split_rpm(p);
}

static bool is_sep(char c)
{
	return !isalnum((unsigned char)c) && c != '~';
}

/* rpmvercmp's segments with Debian's '~' (see the top of the file). */
static int vercmp(const char *a, size_t an, const char *b, size_t bn)
{
	size_t i = 0, j = 0;

	for (;;) {
		bool ta, tb, num;
		size_t si, sj;
		int c;

		while (i < an && is_sep(a[i]))
			i++;
		while (j < bn && is_sep(b[j]))
			j++;
		ta = i < an && a[i] == '~';
		tb = j < bn && b[j] == '~';
		if (ta || tb) {
			if (!ta || !tb)
				return ta ? -1 : 1;
			i++;
			j++;
			continue;
		}
		if (i == an || j == bn)
			return (i < an) - (j < bn);
		num = isdigit((unsigned char)a[i]);
		if (num != !!isdigit((unsigned char)b[j]))
			return num ? 1 : -1;
		if (num) {
			while (i < an && a[i] == '0')
				i++;
			while (j < bn && b[j] == '0')
				j++;
		}
		for (si = i; si < an && (num ? isdigit((unsigned char)a[si]) :
					 isalpha((unsigned char)a[si])); si++)
			;
		for (sj = j; sj < bn && (num ? isdigit((unsigned char)b[sj]) :
					 isalpha((unsigned char)b[sj])); sj++)
			;
		if (num && si - i != sj - j)
			return si - i < sj - j ? -1 : 1;
		c = memcmp(a + i, b + j, si - i < sj - j ? si - i : sj - j);
		if (c)
			return c < 0 ? -1 : 1;
		if (si - i != sj - j)
			return si - i < sj - j ? -1 : 1;
		i = si;
		j = sj;
	}
}

/* Bytes, a prefix first. */
static int span_cmp(const char *a, size_t an, const char *b, size_t bn)
{
	int c = memcmp(a, b, an < bn ? an : bn);

	if (c)
		return c;
	return an < bn ? -1 : an > bn;
}

const char *bc_archive_name_flavor(const char *name)
{
	struct name_parts p;

	parse(name, &p);
	return p.flavor;
}

int bc_archive_name_line(const char *name, char *buf, size_t size)
{
	struct name_parts p;

	parse(name, &p);
	return snprintf(buf, size, "%.*s%s%s", (int)p.distro_len, p.dist,
			p.distro_len && *p.flavor ? " " : "", p.flavor);
}

int bc_archive_name_cmp(const char *a, const char *b)
{
	struct name_parts pa, pb;
	int c;

	parse(a, &pa);
	parse(b, &pb);
	c = strcmp(pa.flavor, pb.flavor);
	c = c ? c : span_cmp(pa.dist, pa.distro_len, pb.dist, pb.distro_len);
	c = c ? c : vercmp(pa.ver, pa.ver_len, pb.ver, pb.ver_len);
	c = c ? c : vercmp(pa.rel, pa.rel_len, pb.rel, pb.rel_len);
	c = c ? c : vercmp(pa.dist, pa.dist_len, pb.dist, pb.dist_len);
	return c ? c : strcmp(a, b);
}
