// SPDX-License-Identifier: GPL-2.0-only
/*
 * The identifiers of C sources (c_names.h): a tokenizer that knows just
 * enough C to tell identifiers from everything else.
 *
 * Problem: the slim header must keep every type, enumerator and kfunc a
 * program names, and the program's text is the only place that says so
 * for what the compiler leaves no trace of (sizeof, casts, enum constants
 * used as values). Invariant: every identifier token the compiler could
 * see in any configuration of the file is in the set; comments, string
 * and character literals and the digits and suffixes of numbers (the
 * "ULL" of 1ULL) are not identifiers. Directives are read as text (a
 * macro body's names count), except that an include names a file.
 *
 * Cost: one pass over each file's bytes, one hash probe per identifier
 * token; a file included twice (or in a loop) is read once, keyed by its
 * real path.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../canon/text.h"
#include "c_names.h"

/*
 * What libbpf's BPF-side headers (bpf_helpers.h, bpf_helper_defs.h,
 * bpf_tracing.h, bpf_core_read.h, bpf_endian.h, usdt.bpf.h, included as
 * <bpf/...>) take from vmlinux.h without declaring it: the fixed-width
 * typedefs of their prototypes, the registers BPF_KPROBE() and the
 * PT_REGS_*() macros read (pt_regs; user_pt_regs on arm64, s390 and
 * others; user_regs_struct for i386), the iterator bpf_for() and
 * bpf_repeat() declare (libbpf 1.2), and the map types of usdt.bpf.h's
 * maps. Added when a file includes <bpf/...>: the program's own text
 * never names them (BPF_KPROBE expands to a struct pt_regs parameter).
 */
static const char *const libbpf_header_names[] = {
	"__u8", "__u16", "__u32", "__u64", "__s8", "__s16", "__s32", "__s64",
	"__be16", "__be32", "__wsum", "bool", "u32", "u64",
	"pt_regs", "user_pt_regs", "user_regs_struct",
	"bpf_iter_num",	/* bpf_for() and bpf_repeat() hold one by value */
	"BPF_MAP_TYPE_ARRAY", "BPF_MAP_TYPE_HASH",
};

/* Files still to read (malloc'd paths), and the real paths of all seen. */
struct c_reader {
	struct bc_strset *names;
	struct bc_strset seen;
	char **todo;
	size_t nr_todo, cap_todo;
	bool libbpf_headers;	/* some file includes <bpf/...> */
	const char *const *dirs;	/* the include directories (-I), in order */
	size_t nr_dirs;
	const struct bc_log *log;
};

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Reads all of path into a NUL-terminated buffer. 0 or a negative errno. */
static int read_whole(const char *path, char **text, size_t *len)
{
	size_t cap = 65536, got = 0, n;
	char *buf = malloc(cap + 1);
	FILE *f = fopen(path, "r");
	int err = f ? 0 : -errno;

	if (err || !buf) {
		err = err ? err : -ENOMEM;
		goto out;
	}
	errno = 0;
	while ((n = fread(buf + got, 1, cap - got, f)) > 0) {
		got += n;
		if (got == cap) {
			char *grown = realloc(buf, 2 * cap + 1);

			if (!grown) {
				err = -ENOMEM;
				goto out;
			}
			buf = grown;
			cap *= 2;
		}
	}
	if (ferror(f))
		err = errno ? -errno : -EIO;	/* EISDIR for a directory */
out:
	if (f)
		fclose(f);
	if (err) {
		free(buf);
		return err;
	}
	buf[got] = '\0';
	*text = buf;
	*len = got;
	return 0;
}

/* Queues path (taken over) unless its file was queued before. */
static int queue_file(struct c_reader *r, char *path)
{
	char real[PATH_MAX];
	int64_t off;

	/* a file that does not resolve is queued as is: its read says why */
	if (realpath(path, real)) {
		if (bc_strset_find(&r->seen, real) >= 0) {
			free(path);
			return 0;
		}
		off = bc_strset_add(&r->seen, real);
		if (off < 0) {
			free(path);
			return (int)off;
		}
	}
	if (r->nr_todo == r->cap_todo) {
		size_t cap = r->cap_todo ? 2 * r->cap_todo : 16;
		char **grown = realloc(r->todo, cap * sizeof(*grown));

		if (!grown) {
			free(path);
			return -ENOMEM;
		}
		r->todo = grown;
		r->cap_todo = cap;
	}
	r->todo[r->nr_todo++] = path;
	return 0;
}

/* vmlinux.h, vmlinux_x86.h ...: the header being made (see c_names.h). */
static bool is_vmlinux_header(const char *name, size_t len)
{
	const char *base = name;
	size_t i;

	for (i = 0; i < len; i++)
		if (name[i] == '/')
			base = name + i + 1;
	len -= base - name;
	return len >= 9 && !strncmp(base, "vmlinux", 7) &&
	       !strncmp(base + len - 2, ".h", 2);
}

/*
 * Sets *found to dir (dir_len bytes, "" for the current directory) joined
 * with the name of name_len bytes at name when that is a regular file one
 * can read, else to NULL. 0 or -ENOMEM.
 */
static int find_in(const char *dir, size_t dir_len, const char *name,
		   size_t name_len, char **found)
{
	bool slash = dir_len && dir[dir_len - 1] != '/';
	struct stat st;
	char *path = malloc(dir_len + slash + name_len + 1);

	*found = NULL;
	if (!path)
		return -ENOMEM;
	memcpy(path, dir, dir_len);
	if (slash)
		path[dir_len] = '/';
	memcpy(path + dir_len + slash, name, name_len);
	path[dir_len + slash + name_len] = '\0';
	/* a device or FIFO (#include "/dev/zero") is no header */
	if (stat(path, &st) || !S_ISREG(st.st_mode) || access(path, R_OK))
		free(path);
	else
		*found = path;
	return 0;
}

/*
 * After "#include", at s: queues the file the compiler would read, given
 * the include directories and no system ones: "x.h" in the directory of
 * from, then in each include directory in order; <x.h> in each include
 * directory in order; an absolute name as it is. A name found nowhere is
 * not an error, <bpf/...> is libbpf's and vmlinux*.h the header being
 * made (see c_names.h).
 */
static int follow_include(struct c_reader *r, const char *from, const char *s)
{
	const char *end, *slash;
	char close, *path = NULL;
	size_t name_len, i;
	int err = 0;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!strncmp(s, "<bpf/", 5)) {
		r->libbpf_headers = true;
		return 0;
	}
	if (*s != '"' && *s != '<')
		return 0;
	close = *s == '"' ? '"' : '>';
	s++;
	end = s;
	while (*end && *end != close && *end != '\n')
		end++;
	if (*end != close || end == s)
		return 0;
	name_len = end - s;
	if (is_vmlinux_header(s, name_len))
		return 0;
	if (*s == '/') {
		err = find_in("", 0, s, name_len, &path);
	} else {
		if (close == '"') {
			slash = strrchr(from, '/');
			err = find_in(from, slash ? (size_t)(slash - from) + 1 : 0,
				      s, name_len, &path);
		}
		for (i = 0; !err && !path && i < r->nr_dirs; i++)
			err = find_in(r->dirs[i], strlen(r->dirs[i]), s,
				      name_len, &path);
	}
	if (err || !path)
		return err;
	return queue_file(r, path);
}

/* Adds the identifier of len bytes at s. 0 or -ENOMEM. */
static int add_name(struct c_reader *r, const char *s, size_t len)
{
	char stack_buf[256], *copy = stack_buf;
	int64_t off;

	if (bc_strset_find_hashed(r->names, s, len, bc_strset_hash(s, len)) >= 0)
		return 0;
	if (len >= sizeof(stack_buf) && !(copy = malloc(len + 1)))
		return -ENOMEM;
	memcpy(copy, s, len);
	copy[len] = '\0';
	off = bc_strset_add(r->names, copy);
	if (copy != stack_buf)
		free(copy);
	return off < 0 ? (int)off : 0;
}

/* The end of the literal opened by the quote at s (past its closing quote). */
static const char *skip_literal(const char *s)
{
	char quote = *s++;

	while (*s && *s != quote && *s != '\n') {
		if (*s == '\\' && s[1])
			s++;
		s++;
	}
	return *s == quote ? s + 1 : s;
}

/* The identifiers of one file's text. */
static int scan_text(struct c_reader *r, const char *path, const char *s)
{
	bool line_start = true;
	int err = 0;

	while (*s && !err) {
		const char *start = s;

		if (*s == '\n') {
			line_start = true;
			s++;
			continue;
		}
		if (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\f' ||
		    *s == '\v' || (*s == '\\' && s[1] == '\n')) {
			s += *s == '\\' ? 2 : 1;
			continue;
		}
		if (s[0] == '/' && s[1] == '/') {
			/* a comment goes on past a backslash-newline */
			while (*s && (*s != '\n' || s[-1] == '\\'))
				s++;
			continue;
		}
		if (s[0] == '/' && s[1] == '*') {
			const char *end = strstr(s + 2, "*/");

			s = end ? end + 2 : s + strlen(s);
			continue;
		}
		if (*s == '#' && line_start) {
			s++;
			while (*s == ' ' || *s == '\t')
				s++;
			if (!strncmp(s, "include", 7) && !bc_is_ident_char(s[7])) {
				err = follow_include(r, path, s + 7);
				/* <bpf/bpf_helpers.h> names a file, not "bpf" and "h" */
				while (*s && *s != '\n')
					s++;
			}
			line_start = false;
			continue;
		}
		line_start = false;
		if (*s == '"' || *s == '\'') {
			s = skip_literal(s);
		} else if (bc_is_ident_start(*s)) {
			while (bc_is_ident_char(*s))
				s++;
			err = add_name(r, start, s - start);
		} else if (is_digit(*s) || (*s == '.' && is_digit(s[1]))) {
			/* a preprocessing number: 0x1fULL, 1e+5, 1.5f */
			while (bc_is_ident_char(*s) || *s == '.' ||
			       ((*s == '+' || *s == '-') &&
				(s[-1] == 'e' || s[-1] == 'E' || s[-1] == 'p' ||
				 s[-1] == 'P')))
				s++;
		} else {
			s++;
		}
	}
	return err;
}

int bc_c_names_add_libbpf(struct bc_strset *names)
{
	size_t i;

	for (i = 0; i < sizeof(libbpf_header_names) / sizeof(libbpf_header_names[0]); i++)
		if (bc_strset_add(names, libbpf_header_names[i]) < 0)
			return -ENOMEM;
	return 0;
}

int bc_c_names_add_iterators(struct bc_strset *names)
{
	static const char *const suffixes[] = { "", "_new", "_next", "_destroy" };
	uint32_t off, end = names->len;
	char name[256], buf[512];
	size_t i, len;

	if (bc_strset_find(names, "bpf_for_each") < 0)
		return 0;
	/* the strings present now; those added on the way are not names */
	for (off = 0; off < end; off += len + 1) {
		len = strlen(names->buf + off);
		/* a copy: adding may move the set's strings */
		if (!len || len >= sizeof(name) ||
		    !strncmp(names->buf + off, "bpf_iter_", 9))
			continue;
		memcpy(name, names->buf + off, len + 1);
		for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
			snprintf(buf, sizeof(buf), "bpf_iter_%s%s", name, suffixes[i]);
			if (bc_strset_add(names, buf) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

int bc_c_names_read(const char *path, const char *const *dirs, size_t nr_dirs,
		    struct bc_strset *names, const struct bc_log *log)
{
	struct c_reader r = { .names = names, .dirs = dirs, .nr_dirs = nr_dirs,
			      .log = log };
	char *first = strdup(path);
	int err;

	if (!first)
		return bc_log_error(log, -ENOMEM, "%s: out of memory", path);
	err = bc_strset_init(&r.seen, NULL, 0);
	if (err) {
		bc_strset_deinit(&r.seen);	/* what a failed init holds */
		free(first);
		return bc_log_error(log, err, "%s: out of memory", path);
	}
	err = queue_file(&r, first);
	while (!err && r.nr_todo) {
		char *file = r.todo[--r.nr_todo];
		char *text = NULL;
		size_t len;

		err = read_whole(file, &text, &len);
		if (err)
			bc_log_error(log, err, "%s: cannot read: %s", file,
				     strerror(-err));
		else if (memchr(text, '\0', len))
			err = bc_log_error(log, -EINVAL,
					   "%s: not a C source (a NUL byte at offset %zu)",
					   file, (size_t)((char *)memchr(text, '\0', len) - text));
		else if ((err = scan_text(&r, file, text)))
			bc_log_error(log, err, "%s: out of memory", file);
		free(text);
		free(file);
	}
	if (r.libbpf_headers && !err && bc_c_names_add_libbpf(names))
		err = bc_log_error(log, -ENOMEM, "%s: out of memory", path);
	while (r.nr_todo)
		free(r.todo[--r.nr_todo]);
	free(r.todo);
	bc_strset_deinit(&r.seen);
	return err;
}
