// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernel packages through libarchive (loaded at the first package read,
 * libarchive.h), streamed: a .deb's data.tar.* is
 * read as it comes out of the ar archive (a second libarchive reader over
 * the first one's data), an .rpm's payload through libarchive's rpm
 * filter and cpio reader. Reading stops at the kernel's member, which
 * comes early in either (Debian's data.tar.xz lists ./boot first).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libarchive.h"
#include "package.h"

bool bc_package_detect(const uint8_t *d, size_t size)
{
	static const uint8_t rpm_lead[4] = { 0xed, 0xab, 0xee, 0xdb };

	return (size >= 4 && !memcmp(d, rpm_lead, 4)) ||
	       (size >= 8 + 13 && !memcmp(d, "!<arch>\ndebian-binary", 21));
}

/* The member's path without "./" or "/" in front. */
static const char *member_path(const char *name)
{
	while (name[0] == '.' && name[1] == '/')
		name += 2;
	while (name[0] == '/')
		name++;
	return name;
}

/* boot/vmlinuz-V, boot/vmlinux-V, usr/lib/debug/boot/vmlinux-V, [usr/]lib/modules/V/vmlinuz */
static bool is_kernel_member(const char *name)
{
	const char *p = member_path(name), *slash;

	if (!strncmp(p, "usr/lib/debug/", 14))
		p += 14;
	if (!strncmp(p, "boot/vmlinuz-", 13) || !strncmp(p, "boot/vmlinux-", 13))
		return p[13] && !strchr(p + 13, '/');
	if (!strncmp(p, "usr/", 4))
		p += 4;
	if (strncmp(p, "lib/modules/", 12))
		return false;
	p += 12;
	slash = strchr(p, '/');
	return slash && slash > p && !strcmp(slash, "/vmlinuz");
}

bool bc_package_is_kernel_member(const char *member)
{
	return is_kernel_member(member);
}

char *bc_package_kernel_version(const char *member)
{
	const char *p = member_path(member), *base = strrchr(p, '/');

	base = base ? base + 1 : p;
	if (!strncmp(base, "vmlinuz-", 8) || !strncmp(base, "vmlinux-", 8))
		return strdup(base + 8);
	/* lib/modules/V/vmlinuz: the directory */
	if (base > p + 1) {
		const char *dir = base - 1;

		while (dir > p && dir[-1] != '/')
			dir--;
		return strndup(dir, base - 1 - dir);
	}
	return strdup(base);
}

struct kernel_find {
	const struct bc_libarchive *la;
	const char *path;
	size_t max_size;
	bool want_data;
	/* bc_package_walk(): every member it wants, not the kernel alone */
	const struct bc_package_visitor *visitor;
	char *member;
	uint8_t *data;
	size_t size;
	const struct bc_log *log;
};

static int archive_fail(struct kernel_find *f, struct archive *a,
			const char *what)
{
	const char *msg = f->la->archive_error_string(a);

	return bc_log_error(f->log, -EINVAL, "%s: cannot read the package%s: %s",
			    f->path, what, msg ? msg : "unknown error");
}

/* Reads the current member of a (the kernel) into f->data. */
static int read_member(struct kernel_find *f, struct archive *a,
		       struct archive_entry *e, const char *what)
{
	size_t size = f->la->archive_entry_size_is_set(e) ?
		      f->la->archive_entry_size(e) : 0;
	size_t cap = size;
	uint8_t *buf;

	if (cap > f->max_size)
		return bc_log_error(f->log, -EFBIG,
				    "%s: the package's kernel %s is larger than %zu MiB",
				    f->path, f->member, f->max_size >> 20);
	cap = cap ? cap : 1 << 20;
	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	f->size = 0;
	for (;;) {
		la_ssize_t got;

		if (size && f->size == size)
			break;	/* no archive format gives more than that */
		if (f->size == cap) {
			uint8_t *grown;

			if (cap >= f->max_size) {
				free(buf);
				return bc_log_error(f->log, -EFBIG,
						    "%s: the package's member %s is larger than %zu MiB",
						    f->path, f->member, f->max_size >> 20);
			}
			cap = cap > f->max_size / 2 ? f->max_size : cap * 2;
			grown = realloc(buf, cap);
			if (!grown) {
				free(buf);
				return -ENOMEM;
			}
			buf = grown;
		}
		got = f->la->archive_read_data(a, buf + f->size, cap - f->size);
		if (got < 0) {
			free(buf);
			return archive_fail(f, a, what);
		}
		if (!got)
			break;
		f->size += got;
	}
	f->data = buf;
	return 0;
}

/*
 * bc_package_walk()'s step: hands the current member to the visitor when
 * it wants it. Returns 0 or a negative errno (said, or the visitor's).
 */
static int visit_member(struct kernel_find *f, struct archive *a,
			struct archive_entry *e, const char *name,
			const char *what)
{
	const struct bc_package_visitor *v = f->visitor;
	int err;

	if (!v->want(v->ctx, member_path(name)))
		return 0;
	f->member = (char *)name;	/* for read_member's messages */
	err = read_member(f, a, e, what);
	f->member = NULL;
	if (err)
		return err;
	err = v->take(v->ctx, member_path(name), f->data, f->size);
	f->data = NULL;
	return err;
}

/*
 * Walks the members of a to the kernel. Returns 1 when found (f->member,
 * and f->data when wanted), 0 at the end, or a negative errno after a
 * message. what says which archive this is, for messages. With a
 * visitor, walks every member instead and returns 0 at the end.
 */
static int find_kernel(struct kernel_find *f, struct archive *a,
		       const char *what)
{
	struct archive_entry *e;
	int r, err;

	while ((r = f->la->archive_read_next_header(a, &e)) == ARCHIVE_OK ||
	       r == ARCHIVE_WARN) {
		const char *name = f->la->archive_entry_pathname(e);

		if (!name || f->la->archive_entry_filetype(e) != AE_IFREG)
			continue;
		if (f->visitor) {
			err = visit_member(f, a, e, name, what);
			if (err)
				return err;
			continue;
		}
		if (!is_kernel_member(name))
			continue;
		f->member = strdup(name);
		if (!f->member)
			return -ENOMEM;
		if (!f->want_data)
			return 1;
		err = read_member(f, a, e, what);
		return err ? err : 1;
	}
	if (r != ARCHIVE_EOF)
		return archive_fail(f, a, what);
	return 0;
}

/*
 * The compressions dpkg and rpmbuild write (none, gzip, bzip2, xz, lzma,
 * zstd), each through the library libarchive links. Not
 * archive_read_support_filter_all(): for lzop, lrzip, grzip and others it
 * would run an external program on the package's bytes.
 */
static void support_compressions(const struct bc_libarchive *la,
				 struct archive *a)
{
	la->archive_read_support_filter_gzip(a);
	la->archive_read_support_filter_bzip2(a);
	la->archive_read_support_filter_xz(a);
	la->archive_read_support_filter_lzma(a);
	la->archive_read_support_filter_zstd(a);
}

/* The data of the outer archive's current member, for the inner reader. */
struct member_stream {
	const struct bc_libarchive *la;
	struct archive *outer;
	uint8_t buf[1 << 16];
};

static la_ssize_t member_read(struct archive *inner, void *ctx,
			      const void **buf)
{
	struct member_stream *s = ctx;
	la_ssize_t got = s->la->archive_read_data(s->outer, s->buf,
						  sizeof(s->buf));

	if (got < 0) {
		const char *msg = s->la->archive_error_string(s->outer);

		s->la->archive_set_error(inner, EINVAL, "%s",
					 msg ? msg : "read error");
		return -1;
	}
	*buf = s->buf;
	return got;
}

/* A .deb: the ar archive's data.tar.*, read as a tar archive. */
static int deb_find_kernel(struct kernel_find *f, struct archive *outer)
{
	struct archive_entry *e;
	int r;

	while ((r = f->la->archive_read_next_header(outer, &e)) == ARCHIVE_OK ||
	       r == ARCHIVE_WARN) {
		const char *name = f->la->archive_entry_pathname(e);
		struct member_stream *s;
		struct archive *inner;
		int err;

		if (!name || strncmp(name, "data.tar", 8))
			continue;
		s = malloc(sizeof(*s));
		inner = f->la->archive_read_new();
		if (!s || !inner) {
			free(s);
			f->la->archive_read_free(inner);
			return -ENOMEM;
		}
		s->la = f->la;
		s->outer = outer;
		support_compressions(f->la, inner);
		f->la->archive_read_support_format_tar(inner);
		if (f->la->archive_read_open(inner, s, NULL, member_read,
					     NULL) != ARCHIVE_OK)
			err = archive_fail(f, inner, "'s data.tar");
		else
			err = find_kernel(f, inner, "'s data.tar");
		f->la->archive_read_free(inner);
		free(s);
		return err;
	}
	if (r != ARCHIVE_EOF)
		return archive_fail(f, outer, "");
	return bc_log_error(f->log, -EINVAL,
			    "%s: the .deb package has no data.tar member", f->path);
}

/*
 * Opens package path and walks it with f: to its kernel, or (with a
 * visitor) through every member. Returns find_kernel()'s answer.
 */
static int package_walk(struct kernel_find *f)
{
	const struct bc_libarchive *la = f->la;
	const char *path = f->path;
	const struct bc_log *log = f->log;
	struct archive *a;
	uint8_t head[4];
	FILE *file;
	bool rpm;
	int err;

	file = fopen(path, "rb");
	rpm = file && fread(head, 1, 4, file) == 4 && bc_package_detect(head, 4);
	if (file)
		fclose(file);
	if (!la->handle)
		return bc_log_error(log, -ELIBACC,
				    "%s: reading %s needs %s (Debian: libarchive13): %s",
				    path, rpm ? "an .rpm" : "a .deb",
				    BC_LIBARCHIVE_SONAME, la->error);
	a = la->archive_read_new();
	if (!a)
		return -ENOMEM;
	if (rpm) {
		la->archive_read_support_filter_rpm(a);
		support_compressions(la, a);	/* the payload's */
		la->archive_read_support_format_cpio(a);
	} else {
		la->archive_read_support_format_ar(a);
	}
	if (la->archive_read_open_filename(a, path, 1 << 16) != ARCHIVE_OK)
		err = archive_fail(f, a, "");
	else
		err = rpm ? find_kernel(f, a, "") : deb_find_kernel(f, a);
	la->archive_read_free(a);
	return err;
}

int bc_package_walk(const char *path, size_t max_size,
		    const struct bc_package_visitor *visitor,
		    const struct bc_log *log)
{
	struct kernel_find f = {
		.la = bc_libarchive(), .path = path, .max_size = max_size,
		.want_data = true, .visitor = visitor, .log = log,
	};
	int err = package_walk(&f);

	free(f.data);
	return err < 0 ? err : 0;
}

int bc_package_read_kernel_la(const struct bc_libarchive *la,
			      const char *path, size_t max_size, char **member,
			      uint8_t **image, size_t *image_size,
			      const struct bc_log *log)
{
	struct kernel_find f = {
		.la = la, .path = path, .max_size = max_size,
		.want_data = image != NULL, .log = log,
	};
	int err;

	*member = NULL;
	if (image) {
		*image = NULL;
		*image_size = 0;
	}
	err = package_walk(&f);
	if (err == 0)
		err = bc_log_error(log, -ENOENT,
				   "%s: the package holds no kernel (no boot/vmlinuz-* nor lib/modules/*/vmlinuz)",
				   path);
	if (err < 0) {
		free(f.member);
		free(f.data);
		return err;
	}
	*member = f.member;
	if (image) {
		*image = f.data;
		*image_size = f.size;
	}
	return 0;
}

int bc_package_read_kernel(const char *path, size_t max_size, char **member,
			   uint8_t **image, size_t *image_size,
			   const struct bc_log *log)
{
	return bc_package_read_kernel_la(bc_libarchive(), path, max_size,
					 member, image, image_size, log);
}
