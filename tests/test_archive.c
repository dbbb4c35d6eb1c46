// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel archive (archive/archive.h).
 *
 *	fixtures	small kernels built with libbpf (named and anonymous
 *			types, two types of one kind and name, a loop through
 *			anonymous types, a kind layout section) come back
 *			from an archive byte for byte as sort writes them;
 *			the loop is stored as bytes, the rest as records
 *			(create stores all as bytes when that is smaller)
 *	order		every order of adding gives the same file; add and
 *			remove give the file a create of the result gives;
 *			parse then serialize gives the file back
 *	attachments	named blobs per kernel come back as given
 *	damage		every byte of a small archive flipped in turn, every
 *			truncation and an appended byte: an error naming the
 *			file
 *	killed		an add killed halfway through writing (SIGKILL, by
 *			BTFCANON_FAULT_KILL_WRITE) leaves the old archive
 *	log		`archive log` of a type and of a member across three
 *			kernels: where it appears, where it changes and how
 *	view		lookups by kind and name and single records give
 *			what the kernel's whole BTF says, kernel after kernel
 *			in any order; lists decoded for views are freed when
 *			no view or kernel still to be viewed needs them; a
 *			kernel listing a record twice is read all the same;
 *			the same record in two kernels is known as such
 *	real		Debian's 6.1.192, 6.12.115 and 6.12.117 BTF: round
 *			trips byte-identical to sort, any order of adding
 *	version1	files of format versions 1 (zstd payload) and 2
 *	version2	(LZ4; strings and records interleaved) are read,
 *			whole and lazily, and written back as version 3
 *	lazy		opened lazily (records decoded as a kernel uses
 *			them), every kernel comes back as the whole read
 *			gives it; a forged record refuses its kernel
 *	chain		extracting a kernel keeps its own list only, not its
 *			parents' (decoded through two buffers)
 *	modules		a kernel package's modules (tests/kmod-fixture.sh)
 *			stored with their kernel: each comes back
 *			byte-identical to `sort --base` over the kernel's
 *			bytes, as records in memory, from the records file
 *			(format 5) read whole and lazily, and from the file
 *			create writes; the bad modules in the package said by
 *			name and left out; --merged's BTF read by libbpf and
 *			the running kernel, every module type once; add of
 *			the package to a kernel stored without modules adds
 *			them; an archive without modules stays format 4; a
 *			damaged module's list fails that module alone
 *
 * Writers taking turns (writers, wait, lockkill): test_archive_lock.c.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <lzma.h>

#include "suites.h"
#include "testutil.h"
#include "../archive/add_input.h"
#include "../archive/archive.h"
#include "../archive/internal.h"
#include "../archive/pack.h"
#include "../canon/canon.h"
#include "../archive/btf_file.h"

#define NR_FIX 5

struct captured {
	char text[2048];	/* the first message */
	char last[2048];	/* the last one */
	unsigned int count;
};

static void capture(void *ctx, enum bc_log_level level, const char *msg)
{
	struct captured *cap = ctx;

	(void)level;
	if (!cap->count)
		snprintf(cap->text, sizeof(cap->text), "%s", msg);
	snprintf(cap->last, sizeof(cap->last), "%s", msg);
	cap->count++;
}

/* What `btfcanon sort` writes for raw (its layout section kept). */
static struct blob sorted_of(const struct blob *raw)
{
	struct canon_opts opts = { .order = BC_ORDER_KIND };
	struct canon_result res = { 0 };
	struct bc_btf *btf = parse_or_fail(raw, NULL);
	struct blob out;

	opts.layout = btf->layout;
	opts.nr_layout = btf->nr_layout;
	ck_assert_int_eq(canon_run(btf, &opts, &res, NULL), 0);
	out.data = res.raw;
	out.size = res.raw_size;
	res.raw = NULL;
	canon_result_deinit(&res);
	bc_btf_free(btf);
	return out;
}

/* Fixture kernel i (0 .. NR_FIX-1), sorted. */
static struct blob fixture(int i)
{
	struct btf *b = btf__new_empty();
	struct blob raw, out;
	int in, s, ptr, anon, td, proto;

	ck_assert_ptr_nonnull(b);
	if (i == 4) {		/* pahole's layout-bearing sample */
		btf__free(b);
		raw = read_file("tests/data/dummy.layout.btf");
		ck_assert_msg(raw.size, "tests/data/dummy.layout.btf missing");
		out = sorted_of(&raw);
		blob_free(&raw);
		return out;
	}
	/* libbpf adds fields to the type added last: pointers come after */
	in = btf__add_int(b, "int", 4, BTF_INT_SIGNED);		/* [1] int */
	s = btf__add_struct(b, "s", 16);			/* [2] struct s { */
	ck_assert_int_ge(btf__add_field(b, "a", in, 0, 0), 0);	/*   int a; */
	ck_assert_int_ge(btf__add_field(b, "next", s + 1, 64, 0), 0); /* struct s *next; } */
	ptr = btf__add_ptr(b, s);				/* [3] struct s * */
	ck_assert_int_eq(ptr, s + 1);
	anon = btf__add_struct(b, NULL, 8);			/* [4] struct { */
	ck_assert_int_ge(btf__add_field(b, "x", in, 0, 0), 0);	/*   int x; */
	ck_assert_int_ge(btf__add_field(b, i == 1 ? "y" : "z", in, 32, 0), 0); /* } */
	td = btf__add_typedef(b, "anon_t", anon);		/* [5] typedef anon_t */
	proto = btf__add_func_proto(b, in);			/* [6] int (*)(anon_t *) */
	ck_assert_int_ge(btf__add_func_param(b, "p", proto + 1), 0);
	ck_assert_int_eq(btf__add_ptr(b, td), proto + 1);	/* [7] anon_t * */
	ck_assert_int_ge(btf__add_func(b, "f", BTF_FUNC_GLOBAL, proto), 0);
	ck_assert_int_ge(btf__add_enum(b, "e", 4), 0);		/* enum e { A = i } */
	ck_assert_int_ge(btf__add_enum_value(b, "A", i), 0);
	if (i >= 1) {
		/* two struct dup of different shapes: k 0 and 1 */
		int d1 = btf__add_struct(b, "dup", 4), d2;

		ck_assert_int_ge(btf__add_field(b, "m", in, 0, 0), 0);
		d2 = btf__add_struct(b, "dup", 8);
		ck_assert_int_ge(btf__add_field(b, "m", d2 + 1, 0, 0), 0);
		ck_assert_int_eq(btf__add_ptr(b, d1), d2 + 1);
		ck_assert_int_ge(btf__add_var(b, "v", BTF_VAR_GLOBAL_ALLOCATED, d2), 0);
	}
	if (i == 3) {
		/* a loop through anonymous types only: struct { ... *self; } */
		int a = btf__add_struct(b, NULL, 8);

		ck_assert_int_ge(btf__add_field(b, "self", a + 1, 0, 0), 0);
		ck_assert_int_eq(btf__add_ptr(b, a), a + 1);
	}
	raw = blob_from_libbpf(b);
	btf__free(b);
	out = sorted_of(&raw);
	blob_free(&raw);
	return out;
}

static const char *fix_name(int i)
{
	static const char *const names[NR_FIX] = {
		"6.1.0-44-amd64", "6.1.0-56-amd64", "6.12.100+deb12-amd64",
		"6.1.0-56-cloud-amd64", "dummy",
	};
	return names[i];
}

static struct blob serialize(struct bc_archive *ar)
{
	struct blob out;

	ck_assert_int_eq(bc_archive_serialize(ar, &out.data, &out.size, NULL), 0);
	return out;
}

/*
 * An archive of the fixtures in mask, added in the order of perm, as
 * `archive create` writes it (records, or bytes where smaller: with
 * dummy's 208 KB, bytes) or, quick, with records in zstd (the form the
 * records paths are tested on).
 */
static struct blob archive_of_form(unsigned mask, const int *perm, bool quick)
{
	struct bc_archive *ar;
	struct blob out;
	int i;

	ck_assert_int_eq(bc_archive_new(&ar), 0);
	for (i = 0; i < NR_FIX; i++) {
		int f = perm ? perm[i] : i;
		struct blob k;

		if (!(mask >> f & 1))
			continue;
		k = fixture(f);
		ck_assert_int_eq(bc_archive_add_sorted(ar, fix_name(f), k.data,
						       k.size, NULL), 0);
		blob_free(&k);
	}
	if (quick)
		ck_assert_int_eq(bc_archive_serialize_quick(ar, &out.data,
							    &out.size, NULL), 0);
	else
		out = serialize(ar);
	bc_archive_free(ar);
	return out;
}

static struct blob archive_of(unsigned mask, const int *perm)
{
	return archive_of_form(mask, perm, false);
}

/* The fixtures in mask as records (bc_archive_serialize_quick). */
static struct blob records_of(unsigned mask)
{
	return archive_of_form(mask, NULL, true);
}

static struct bc_archive *parse_ok(const struct blob *file)
{
	struct bc_archive *ar;

	ck_assert_int_eq(bc_archive_parse(file->data, file->size, "t.bca", &ar,
					  NULL), 0);
	return ar;
}

START_TEST(test_fixtures)
{
	int form, i;

	/* 0: records; 1: as create writes it, every kernel as bytes */
	for (form = 0; form < 2; form++) {
		struct blob file = form ? archive_of((1u << NR_FIX) - 1, NULL) :
				   records_of((1u << NR_FIX) - 1);
		struct bc_archive *ar = parse_ok(&file);

		ck_assert_uint_eq(bc_archive_nr_kernels(ar), NR_FIX);
		for (i = 0; i < NR_FIX; i++) {
			struct blob want = fixture(i), got;
			int k = bc_archive_find_kernel(ar, fix_name(i));

			ck_assert_int_ge(k, 0);
			ck_assert_int_eq(bc_archive_kernel_raw(ar, (uint32_t)k, &got.data,
							       &got.size, NULL), 0);
			ck_assert_msg(blob_eq(&want, &got),
				      "form %d, fixture %d: %zu bytes back, %zu sorted",
				      form, i, got.size, want.size);
			/*
			 * records: only the anonymous loop is kept as bytes;
			 * dummy's records lose to its bytes under xz (63.7
			 * KB against 55.5), so create stores all as bytes
			 */
			ck_assert_int_eq(bc_archive_kernel_stored_as_bytes(ar, (uint32_t)k),
					 form || i == 3);
			blob_free(&want);
			blob_free(&got);
		}
		/* version order: flavor, then version */
		ck_assert_str_eq(bc_archive_kernel_name(ar, 0), "6.1.0-44-amd64");
		ck_assert_str_eq(bc_archive_kernel_name(ar, 1), "6.1.0-56-amd64");
		ck_assert_str_eq(bc_archive_kernel_name(ar, 2), "6.12.100+deb12-amd64");
		bc_archive_free(ar);
		blob_free(&file);
	}
}
END_TEST

START_TEST(test_order)
{
	static const int perms[][NR_FIX] = {
		{ 0, 1, 2, 3, 4 }, { 4, 3, 2, 1, 0 }, { 2, 0, 4, 1, 3 },
		{ 1, 4, 0, 3, 2 }, { 3, 2, 1, 4, 0 },
	};
	struct blob first = archive_of(0x1f, perms[0]);
	struct blob without_1 = archive_of(0x1f & ~2u, NULL);
	struct bc_archive *ar;
	struct blob b, k;
	size_t i;

	for (i = 1; i < sizeof(perms) / sizeof(perms[0]); i++) {
		b = archive_of(0x1f, perms[i]);
		ck_assert_msg(blob_eq(&first, &b), "order %zu gives other bytes", i);
		blob_free(&b);
	}
	/* parse, serialize: the same file */
	ar = parse_ok(&first);
	b = serialize(ar);
	ck_assert(blob_eq(&first, &b));
	blob_free(&b);
	/* remove 1: as if never added */
	ck_assert_int_eq(bc_archive_remove(ar, (uint32_t)bc_archive_find_kernel(ar, fix_name(1))), 0);
	b = serialize(ar);
	ck_assert(blob_eq(&without_1, &b));
	blob_free(&b);
	bc_archive_free(ar);
	/* add 1 to the file without it: the file with it */
	ar = parse_ok(&without_1);
	k = fixture(1);
	ck_assert_int_eq(bc_archive_add_sorted(ar, fix_name(1), k.data, k.size, NULL), 0);
	ck_assert_int_eq(bc_archive_add_sorted(ar, fix_name(1), k.data, k.size, NULL), -EEXIST);
	b = serialize(ar);
	ck_assert(blob_eq(&first, &b));
	blob_free(&b);
	blob_free(&k);
	bc_archive_free(ar);
	blob_free(&first);
	blob_free(&without_1);
}
END_TEST

START_TEST(test_attachments)
{
	struct blob k = fixture(0), file, again;
	struct bc_archive *ar;
	const void *data;
	size_t size;
	uint32_t nr;

	ck_assert_int_eq(bc_archive_new(&ar), 0);
	ck_assert_int_eq(bc_archive_add_sorted(ar, "k", k.data, k.size, NULL), 0);
	ck_assert_int_eq(bc_archive_set_attachment(ar, 0, "kconfig", "CONFIG_BPF=y\n", 13), 0);
	ck_assert_int_eq(bc_archive_set_attachment(ar, 0, "facts", "\0\1\2", 3), 0);
	file = serialize(ar);
	bc_archive_free(ar);
	ar = parse_ok(&file);
	ck_assert_int_eq(bc_archive_attachment(ar, 0, "facts", &data, &size), 0);
	ck_assert_uint_eq(size, 3);
	ck_assert(!memcmp(data, "\0\1\2", 3));
	ck_assert_int_eq(bc_archive_attachment(ar, 0, "kconfig", &data, &size), 0);
	ck_assert_uint_eq(size, 13);
	ck_assert_int_eq(bc_archive_attachment(ar, 0, "modules", &data, &size), -ENOENT);
	ck_assert_str_eq(bc_archive_attachment_names(ar, 0, &nr)[0], "facts");
	ck_assert_uint_eq(nr, 2);
	again = serialize(ar);
	ck_assert(blob_eq(&file, &again));
	bc_archive_free(ar);
	blob_free(&again);
	blob_free(&file);
	blob_free(&k);
}
END_TEST

static void expect_damage(const uint8_t *data, size_t size, const char *what,
			  size_t at)
{
	struct captured cap = { .count = 0 };
	struct bc_log log = { .fn = capture, .ctx = &cap };
	struct bc_archive *ar = NULL;
	int err = bc_archive_parse(data, size, "damaged.bca", &ar, &log);

	ck_assert_msg(err < 0, "%s at %zu: accepted", what, at);
	ck_assert_ptr_null(ar);
	ck_assert_msg(cap.count == 1 && strstr(cap.text, "damaged.bca"),
		      "%s at %zu: message '%s' (%u)", what, at, cap.text, cap.count);
}

START_TEST(test_damage)
{
	struct blob file = archive_of(0x7, NULL);
	uint8_t *copy = malloc(file.size + 1);
	size_t i;

	ck_assert_ptr_nonnull(copy);
	memcpy(copy, file.data, file.size);
	for (i = 0; i < file.size; i++) {
		uint8_t bit;

		for (bit = 1; bit; bit <<= 1) {
			copy[i] ^= bit;
			expect_damage(copy, file.size, "flipped bit", i);
			copy[i] ^= bit;
		}
	}
	for (i = 0; i < file.size; i++)
		expect_damage(copy, i, "truncated", i);
	copy[file.size] = 0;
	expect_damage(copy, file.size + 1, "appended byte", file.size);
	free(copy);
	blob_free(&file);
}
END_TEST

/* Runs $BTFCANON with args, stdout to out (NULL: /dev/null); wait status. */
static int run_cli_to(char *const *args, bool kill_write, const char *out)
{
	pid_t pid = fork();
	int status;

	ck_assert_int_ge(pid, 0);
	if (!pid) {
		if (kill_write)
			setenv("BTFCANON_FAULT_KILL_WRITE", "1", 1);
		else
			unsetenv("BTFCANON_FAULT_KILL_WRITE");
		freopen("/dev/null", "w", stderr);
		freopen(out ? out : "/dev/null", "w", stdout);
		execv(args[0], args);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return status;
}

static int run_cli(char *const *args, bool kill_write)
{
	return run_cli_to(args, kill_write, NULL);
}

static void write_blob(const char *path, const struct blob *b)
{
	FILE *f = fopen(path, "wb");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(b->data, 1, b->size, f), b->size);
	ck_assert_int_eq(fclose(f), 0);
}

START_TEST(test_killed)
{
	const char *cli = getenv("BTFCANON");
	char dir[] = "/tmp/btfcanon-archive-XXXXXX", path[128], input[128];
	struct blob file = archive_of(0x3, NULL), k = fixture(2), after;
	char *args[] = { (char *)cli, "archive", "add", path, input, "--name",
			 "6.12.100+deb12-amd64", NULL };
	int status;

	ck_assert_msg(cli, "BTFCANON names the binary (make check sets it)");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/k.bca", dir);
	snprintf(input, sizeof(input), "%s/in.btf", dir);
	write_blob(path, &file);
	write_blob(input, &k);
	status = run_cli(args, true);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
		      "the add was not killed (status 0x%x)", status);
	after = read_file(path);
	ck_assert_msg(blob_eq(&file, &after), "a killed add changed the archive");
	blob_free(&after);
	/* the same add, not killed, gives the create of the three */
	status = run_cli(args, false);
	ck_assert_msg(WIFEXITED(status) && !WEXITSTATUS(status), "status 0x%x", status);
	after = read_file(path);
	blob_free(&file);
	file = archive_of(0x7, NULL);
	ck_assert(blob_eq(&file, &after));
	blob_free(&after);
	blob_free(&file);
	blob_free(&k);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	ck_assert_int_eq(system(path), 0);
}
END_TEST

/* `archive log` of fixtures 0, 1, 2: what changed, in version order. */
START_TEST(test_log)
{
	const char *cli = getenv("BTFCANON");
	char dir[] = "/tmp/btfcanon-archive-XXXXXX", path[128], out[128];
	struct blob file = archive_of(0x7, NULL), text;
	char *args[] = { (char *)cli, "archive", "log", path, NULL, NULL };
	static const struct {
		const char *what;
		const char *want[4];
	} cases[] = {
		/* enum e { A = i }: 0, then 1, then 2 */
		{ "enum e", { "6.1.0-44-amd64:\n        enum e {",
			      "6.1.0-56-amd64: changed\n      - A = 0,\n      + A = 1,",
			      "6.12.100+deb12-amd64: changed\n      - A = 1,\n      + A = 2,", NULL } },
		/* two struct dup from 6.1.0-56 on: absent, then both */
		{ "struct dup", { "6.1.0-44-amd64: absent",
				  "6.1.0-56-amd64 .. 6.12.100+deb12-amd64 (2 kernels): appears",
				  "struct dup *m; /* bit 0 */", NULL } },
		/* a member of an anonymous struct behind a typedef is not one of
		 * the typedef's: the typedef's line stays */
		{ "typedef anon_t", { "6.1.0-44-amd64 .. 6.12.100+deb12-amd64 (3 kernels):",
				      "typedef struct {...} anon_t;", NULL } },
		{ "struct s.next", { "(3 kernels):\n        struct s *next; /* bit 64 */", NULL } },
		{ "f", { "(3 kernels):\n        int f(anon_t *p)", NULL } },
	};
	size_t i, j;

	ck_assert_msg(cli, "BTFCANON names the binary (make check sets it)");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/k.bca", dir);
	snprintf(out, sizeof(out), "%s/log.txt", dir);
	write_blob(path, &file);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int status;

		args[4] = (char *)cases[i].what;
		status = run_cli_to(args, false, out);
		ck_assert_msg(WIFEXITED(status) && !WEXITSTATUS(status),
			      "log %s: status 0x%x", cases[i].what, status);
		text = read_file(out);
		ck_assert_ptr_nonnull(text.data);
		text.data = realloc(text.data, text.size + 1);
		((char *)text.data)[text.size] = 0;
		for (j = 0; cases[i].want[j]; j++)
			ck_assert_msg(strstr(text.data, cases[i].want[j]),
				      "log %s: no '%s' in:\n%s", cases[i].what,
				      cases[i].want[j], (char *)text.data);
		blob_free(&text);
	}
	blob_free(&file);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	ck_assert_int_eq(system(path), 0);
}
END_TEST

/*
 * Every type of view v reads as in btf, the kernel's whole BTF: its words
 * (names as strings), and by kind and name, the first of its kind and
 * name for a named type.
 */
static void view_matches(struct bc_archive_view *v, const struct bc_btf *btf)
{
	uint32_t id, words[64], j, ids[8];
	int n;

	ck_assert_uint_eq(bc_archive_view_nr_types(v), btf->nr_types);
	for (id = 1; id <= btf->nr_types; id++) {
		const struct btf_type *t = bc_btf_type(btf, id);
		const uint32_t *w = (const uint32_t *)t;
		const char *name = bc_btf_str(btf, t->name_off);
		uint32_t kind = bc_type_kind(t), nr;

		n = bc_archive_view_type(v, id, words, 64);
		ck_assert_int_eq(n, (int)bc_type_words(t));
		for (j = 0; j < (uint32_t)n; j++) {
			if (j == 0 || (j > 1 && bc_word_class(kind, j) == BC_WORD_NAME))
				ck_assert_str_eq(bc_archive_view_str(v, words[j]),
						 bc_btf_str(btf, w[j]));
			else
				ck_assert_uint_eq(words[j], w[j]);
		}
		if (!*name)
			continue;
		nr = bc_archive_view_find(v, kind, name, ids, 8);
		ck_assert_uint_ge(nr, 1);
		for (j = 0; j < nr && j < 8 && ids[j] != id; j++)
			ck_assert_uint_lt(ids[j], id);
		ck_assert_msg(j < nr, "[%u] %s not found by name", id, name);
	}
}

START_TEST(test_view)
{
	struct blob file = archive_of(0x7, NULL), k = fixture(1);
	struct bc_archive *ar = parse_ok(&file);
	struct bc_btf *btf = parse_or_fail(&k, NULL);
	struct bc_archive_view *v;
	uint32_t ids[4];

	ck_assert_int_eq(bc_archive_view_open(ar, (uint32_t)bc_archive_find_kernel(ar, fix_name(1)),
					      &v, NULL), 0);
	ck_assert_uint_eq(bc_archive_view_nr_types(v), btf->nr_types);
	ck_assert_uint_eq(bc_archive_view_find(v, BTF_KIND_STRUCT, "dup", ids, 4), 2);
	ck_assert_uint_eq(bc_archive_view_find(v, BTF_KIND_STRUCT, "none", ids, 4), 0);
	ck_assert_uint_eq(bc_archive_view_find(v, BTF_KIND_UNION, "dup", ids, 4), 0);
	view_matches(v, btf);
	bc_archive_view_free(v);
	bc_btf_free(btf);
	bc_archive_free(ar);
	blob_free(&k);
	blob_free(&file);
}
END_TEST

/* The id of the one type of kind and name in view v. */
static uint32_t view_id(const struct bc_archive_view *v, uint32_t kind,
			const char *name)
{
	uint32_t id;

	ck_assert_uint_eq(bc_archive_view_find(v, kind, name, &id, 1), 1);
	return id;
}

/* How many kernels of ar have their list decoded. */
static uint32_t lists_kept(const struct bc_archive *ar)
{
	uint32_t k, kept = 0;

	for (k = 0; k < ar->nr_kernels; k++)
		kept += ar->kernels[k].recs != NULL;
	return kept;
}

/*
 * Views over the chain 0 <- 1 <- 2 (test_chain): each reads what the
 * kernel's whole BTF says, and a list decoded for views is freed once no
 * view is open on it and its children have been viewed: 1's when 2 is
 * opened, 2's when closed, 0's when its view, kept open as deps keeps its
 * first kernel, closes last. A list decoded whole (extract) stays.
 */
START_TEST(test_view_lists)
{
	struct blob file = archive_of(0x7, NULL), raw, want[3];
	struct bc_archive *ar = parse_ok(&file);
	struct bc_archive_view *first, *v;
	struct bc_btf *btf[3];
	uint32_t k;

	ck_assert_int_eq(ar->kernels[2].parent, 1);
	ck_assert_int_eq(ar->kernels[1].parent, 0);
	for (k = 0; k < 3; k++) {
		ck_assert_str_eq(ar->kernels[k].name, fix_name((int)k));
		want[k] = fixture((int)k);
		btf[k] = parse_or_fail(&want[k], NULL);
	}
	ck_assert_int_eq(bc_archive_view_open(ar, 0, &first, NULL), 0);
	for (k = 0; k < 3; k++) {
		ck_assert_int_eq(bc_archive_view_open(ar, k, &v, NULL), 0);
		view_matches(v, btf[k]);
		/* int is one record everywhere; anon_t's struct has y in 1 only */
		ck_assert(bc_archive_view_same_record(first, view_id(first, BTF_KIND_INT, "int"),
						      v, view_id(v, BTF_KIND_INT, "int")));
		ck_assert(bc_archive_view_same_record(first, view_id(first, BTF_KIND_TYPEDEF, "anon_t"),
						      v, view_id(v, BTF_KIND_TYPEDEF, "anon_t")) ==
			  (k != 1));
		ck_assert(!bc_archive_view_same_record(first, 0, v, 0));
		if (k == 2)
			ck_assert_msg(!ar->kernels[1].recs,
				      "1's list kept after its only child was viewed");
		bc_archive_view_free(v);
	}
	ck_assert_msg(lists_kept(ar) == 1 && ar->kernels[0].recs,
		      "%u lists kept, 0's view open", lists_kept(ar));
	view_matches(first, btf[0]);
	bc_archive_view_free(first);
	ck_assert_uint_eq(lists_kept(ar), 0);
	/* again, from nothing decoded, in reverse order */
	for (k = 3; k-- > 0;) {
		ck_assert_int_eq(bc_archive_view_open(ar, k, &v, NULL), 0);
		view_matches(v, btf[k]);
		bc_archive_view_free(v);
	}
	/* a list decoded for a whole kernel is the archive's: it stays */
	ck_assert_int_eq(bc_archive_kernel_raw(ar, 2, &raw.data, &raw.size, NULL), 0);
	ck_assert_int_eq(bc_archive_view_open(ar, 2, &v, NULL), 0);
	bc_archive_view_free(v);
	ck_assert(ar->kernels[2].recs);
	blob_free(&raw);
	for (k = 0; k < 3; k++) {
		bc_btf_free(btf[k]);
		blob_free(&want[k]);
	}
	bc_archive_free(ar);
	blob_free(&file);
}
END_TEST

/*
 * A kernel listing one record twice (a forged archive: canonical BTF has
 * no two identical types) is read by (kn, k) instead of by record: two
 * named types of the same record are k 0 and 1; an anonymous record twice
 * is damage.
 */
START_TEST(test_view_repeated)
{
	struct blob file = archive_of(0x7, NULL), raw;
	struct bc_archive *ar = parse_ok(&file);
	struct bc_archive_view *v;
	uint32_t *list, n, i, s_at = 0, anon_at = 0, ids[4];

	ck_assert_int_eq(bc_archive_kernel_raw(ar, 1, &raw.data, &raw.size, NULL), 0);
	blob_free(&raw);
	list = ar->kernels[1].recs;
	n = ar->kernels[1].nr_types;
	for (i = 0; i < n; i++) {
		const uint32_t *c = ar->cells + ar->rec_off[list[i]];

		if (c[1] && bc_info_kind(c[0]) == BTF_KIND_STRUCT &&
		    !strcmp(ar->strs[ar->kns[c[1] - 1].sid].s, "s"))
			s_at = i + 1;
		if (!c[1] && !anon_at)
			anon_at = i + 1;
	}
	ck_assert(s_at && anon_at && s_at != n);
	list[n - 1] = list[s_at - 1];
	ck_assert_int_eq(bc_archive_view_open(ar, 1, &v, NULL), 0);
	ck_assert_uint_eq(bc_archive_view_find(v, BTF_KIND_STRUCT, "s", ids, 4), 2);
	ck_assert_uint_eq(ids[0], s_at);
	ck_assert_uint_eq(ids[1], n);
	bc_archive_view_free(v);
	list[n - 1] = list[anon_at - 1];
	ck_assert_int_eq(bc_archive_view_open(ar, 1, &v, NULL), -EINVAL);
	bc_archive_free(ar);
	blob_free(&file);
}
END_TEST

static const char *const real_kernels[] = {
	"/usr/lib/debug/boot/vmlinux-6.1.0-56-cloud-amd64",
	"/usr/lib/debug/boot/vmlinux-6.12.115+deb12-cloud-amd64",
	"/usr/lib/debug/boot/vmlinux-6.12.117+deb12-cloud-amd64",
};

START_TEST(test_real)
{
	struct blob sorted[3], full, part, b;
	struct bc_archive *ar;
	int i;

	for (i = 0; i < 3; i++) {
		struct blob raw;
		enum bc_file_format format;

		if (access(real_kernels[i], R_OK)) {
			fprintf(stderr, "archive real: %s absent: skipped\n",
				real_kernels[i]);
			return;
		}
		ck_assert_int_eq(bc_file_read_btf(real_kernels[i], &raw.data,
						  &raw.size, &format, NULL), 0);
		sorted[i] = sorted_of(&raw);
		blob_free(&raw);
	}
	/* 2, 0, 1 */
	ck_assert_int_eq(bc_archive_new(&ar), 0);
	for (i = 2; i < 5; i++) {
		char *name;

		ck_assert_int_eq(bc_archive_input_name(real_kernels[i % 3], &name, NULL), 0);
		ck_assert_int_eq(bc_archive_add_sorted(ar, name, sorted[i % 3].data,
						       sorted[i % 3].size, NULL), 0);
		free(name);
	}
	full = serialize(ar);
	bc_archive_free(ar);
	ar = parse_ok(&full);
	for (i = 0; i < 3; i++) {
		struct bc_archive *lazy;

		ck_assert_int_eq(bc_archive_kernel_raw(ar, (uint32_t)i, &b.data,
						       &b.size, NULL), 0);
		ck_assert_msg(blob_eq(&b, &sorted[i]), "%s: other bytes back",
			      real_kernels[i]);
		ck_assert(!bc_archive_kernel_stored_as_bytes(ar, (uint32_t)i));
		blob_free(&b);
		/* lazily, this kernel alone */
		ck_assert_int_eq(ar_parse(full.data, full.size, "t.bca", true,
					  &lazy, NULL), 0);
		ck_assert_int_eq(bc_archive_kernel_raw(lazy, (uint32_t)i, &b.data,
						       &b.size, NULL), 0);
		ck_assert_msg(blob_eq(&b, &sorted[i]), "%s: other bytes back lazily",
			      real_kernels[i]);
		blob_free(&b);
		bc_archive_free(lazy);
	}
	/* a megabyte or more: its checksum on a second thread, refused as well */
	ck_assert_uint_gt(full.size, 1u << 20);
	for (i = 0; i < 3; i++) {
		size_t at = i == 0 ? 8 : i == 1 ? full.size / 2 : full.size - 1;

		((uint8_t *)full.data)[at] ^= 0x10;
		expect_damage(full.data, full.size, "real, flipped bit", at);
		((uint8_t *)full.data)[at] ^= 0x10;
	}
	/* remove 6.12.115, add it back: the same file as created */
	ck_assert_int_eq(bc_archive_remove(ar, 1), 0);
	part = serialize(ar);
	bc_archive_free(ar);
	ar = parse_ok(&part);
	ck_assert_int_eq(bc_archive_add_sorted(ar, "6.12.115+deb12-cloud-amd64",
					       sorted[1].data, sorted[1].size, NULL), 0);
	b = serialize(ar);
	ck_assert_msg(blob_eq(&b, &full), "add after remove: other bytes");
	blob_free(&b);
	bc_archive_free(ar);
	blob_free(&part);
	blob_free(&full);
	for (i = 0; i < 3; i++)
		blob_free(&sorted[i]);
}
END_TEST

static void write_all(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "wb");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(data, 1, size, f), size);
	ck_assert_int_eq(fclose(f), 0);
}

START_TEST(test_jobs)
{
	static const uint32_t jobs[] = { 0, 1, 2, 3, 8 };
	struct blob want = archive_of((1u << NR_FIX) - 1, NULL);
	char dir[] = "/tmp/btfcanon-jobs.XXXXXX", *paths[NR_FIX];
	const char *order[NR_FIX];
	size_t j, rev;
	int i;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	for (i = 0; i < NR_FIX; i++) {
		struct blob k = fixture(i);

		if (i == 1) {
			/* an arm64 Image: its BTF found by the scan */
			uint8_t *image = calloc(1, 64 + k.size + 4096);

			ck_assert_ptr_nonnull(image);
			memcpy(image + 56, "ARM\x64", 4);
			memcpy(image + 64, k.data, k.size);
			ck_assert_int_ge(asprintf(&paths[i], "%s/vmlinuz-%s", dir,
						  fix_name(i)), 0);
			write_all(paths[i], image, 64 + k.size + 4096);
			free(image);
		} else {
			ck_assert_int_ge(asprintf(&paths[i], "%s/%s.btf", dir,
						  fix_name(i)), 0);
			write_all(paths[i], k.data, k.size);
		}
		blob_free(&k);
	}
	for (rev = 0; rev < 2; rev++) {
		for (i = 0; i < NR_FIX; i++)
			order[i] = paths[rev ? NR_FIX - 1 - i : i];
		for (j = 0; j < sizeof(jobs) / sizeof(jobs[0]); j++) {
			struct bc_archive *ar;
			struct blob got;

			ck_assert_int_eq(bc_archive_new(&ar), 0);
			ck_assert_int_eq(bc_archive_add_files(ar, order, NULL, NR_FIX,
							      jobs[j], NULL), 0);
			got = serialize(ar);
			ck_assert_msg(blob_eq(&want, &got),
				      "-j%u, %s order: other bytes", jobs[j],
				      rev ? "reversed" : "input");
			blob_free(&got);
			bc_archive_free(ar);
		}
	}
	for (i = 0; i < NR_FIX; i++) {
		unlink(paths[i]);
		free(paths[i]);
	}
	rmdir(dir);
	blob_free(&want);
}
END_TEST

/*
 * The version order of names of several distributions (names.c): the
 * table is in that order, and every pair of it compares so (the old
 * order put 4.18.0-147.5.1.el8_1 before 4.18.0-80.el8, its "flavor" being
 * ".5.1.el8_1.aarch64"); the flavor and line of some.
 */
START_TEST(test_names)
{
	static const char *const order[] = {
		/* no flavor: Ubuntu's package versions; '~' before the end */
		"5.15.0-1034.38~20.04.1", "5.15.0-1034.38",
		/* RPM: flavor the arch, then the distribution, el before oe */
		"4.18.0-80.el8.aarch64", "4.18.0-147.el8_1.aarch64",
		"4.18.0-147.5.1.el8_1.aarch64", "4.18.0-193.el8_2.aarch64",
		"4.19.90-2003.4.0.0036.oe1.aarch64",
		/* Debian: backports (0.bpo.N, 0.debN.M) before the ABI numbers */
		"4.19.0-21-amd64", "5.10.0-0.bpo.9-amd64", "5.10.0-9-amd64",
		"5.10.0-10-amd64", "6.1.0-0.deb11.17-amd64", "6.1.0-44-amd64",
		"6.1.0-56-amd64", "6.12.100+deb12-amd64", "6.12.117+deb12-amd64",
		/* Ubuntu */
		"5.4.0-1029-aws", "5.4.0-1100-aws", "5.15.0-1034-aws",
		"6.1.0-44-cloud-amd64", "6.12.9+deb12-cloud-amd64",
		"6.12.10+deb12-cloud-amd64", "6.12.117+deb12-cloud-amd64",
		/* SUSE */
		"5.3.18-150300.59.43-default", "5.14.21-150400.24.46-default",
		"dummy",
		"5.4.0-26-generic", "5.15.0-91-generic",
		"6.12.117+deb12-rt-amd64",
		/* x86_64: amzn, el (Oracle's el8uek too), fc, oe */
		"4.14.352-268.568.amzn2.x86_64", "5.10.223-212.873.amzn2.x86_64",
		"3.10.0-957.el7.x86_64", "3.10.0-1160.el7.x86_64",
		"4.18.0-80.el8.x86_64", "4.18.0-147.5.1.el8_1.x86_64",
		"4.18.0-305.el8.x86_64", "4.18.0-305.3.1.el8_4.x86_64",
		"5.4.17-2136.300.7.el8uek.x86_64", "5.14.0-284.11.1.el9_2.x86_64",
		"6.5.6-300.fc39.x86_64", "6.8.5-301.fc40.x86_64",
		"4.19.90-2003.4.0.0036.oe1.x86_64",
		"5.10.0-60.18.0.50.oe2203.x86_64",
		"5.14.0-70.13.1.el9_0.x86_64+debug",
	};
	static const struct { const char *name, *flavor, *line; } parts[] = {
		{ "6.12.117+deb12-rt-arm64", "rt-arm64", "rt-arm64" },
		{ "6.1.0-56-cloud-amd64", "cloud-amd64", "cloud-amd64" },
		{ "5.10.0-0.bpo.9-amd64", "amd64", "amd64" },
		{ "5.4.0-1029-aws", "aws", "aws" },
		{ "4.18.0-147.5.1.el8_1.aarch64", "aarch64", "el aarch64" },
		{ "4.19.90-2003.4.0.0036.oe1.x86_64", "x86_64", "oe x86_64" },
		{ "5.4.17-2136.300.7.el8uek.x86_64", "x86_64", "el x86_64" },
		{ "5.14.0-70.13.1.el9_0.x86_64+debug", "x86_64+debug",
		  "el x86_64+debug" },
		{ "4.18.0-147.el8", "", "el" },
		{ "5.15.0-1034.38~20.04.1", "", "" },
		{ "5.15.0-generic", "generic", "generic" },
		{ "dummy", "dummy", "dummy" },
	};
	size_t n = sizeof(order) / sizeof(order[0]), i, j;
	char *name, line[256];

	/* the default names themselves are kimage's (kimage suite) */
	ck_assert_int_eq(bc_archive_input_name("/boot/vmlinuz-6.1.0-56-cloud-amd64",
					       &name, NULL), 0);
	ck_assert_str_eq(name, "6.1.0-56-cloud-amd64");
	free(name);
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			int c = bc_archive_name_cmp(order[i], order[j]);

			ck_assert_msg(i < j ? c < 0 : i > j ? c > 0 : !c,
				      "%s against %s: %d", order[i], order[j], c);
		}
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		ck_assert_str_eq(bc_archive_name_flavor(parts[i].name),
				 parts[i].flavor);
		bc_archive_name_line(parts[i].name, line, sizeof(line));
		ck_assert_str_eq(line, parts[i].line);
	}
}
END_TEST

/* Swaps the names a and b (of one length) in an archive's body. */
static void swap_names(struct ar_buf *body, const char *a, const char *b)
{
	size_t len = strlen(a);
	uint8_t *pa = memmem(body->data, body->len, a, len);
	uint8_t *pb = memmem(body->data, body->len, b, len);

	ck_assert_uint_eq(strlen(b), len);
	ck_assert(pa && pb);
	ck_assert(!memmem(pa + 1, body->len - (size_t)(pa + 1 - body->data), a, len));
	memcpy(pa, b, len);
	memcpy(pb, a, len);
}

/*
 * An archive written in the old order (flavor, then strverscmp: the
 * el8_2 kernel, "flavor" .1.2.el8_2.x86_64, before the el8_1 one) is read
 * in the new order, parents following their kernels, whole and lazily,
 * and written back as a create of its kernels writes them. A name twice
 * is refused.
 */
START_TEST(test_old_order)
{
	static const char a[] = "4.18.0-147.5.1.el8_1.x86_64";
	static const char b[] = "4.18.0-193.1.2.el8_2.x86_64";
	struct blob k0 = fixture(0), k1 = fixture(1), want, again;
	struct bc_archive *ar;
	struct ar_buf body = { 0 };
	void *file, *raw;
	size_t size, raw_size;
	int pass;

	ck_assert_int_gt(bc_archive_name_cmp(b, a), 0);
	/* a holds fixture 0, b fixture 1 (b's parent a); then swap names */
	ck_assert_int_eq(bc_archive_new(&ar), 0);
	ck_assert_int_eq(bc_archive_add_sorted(ar, a, k0.data, k0.size, NULL), 0);
	ck_assert_int_eq(bc_archive_add_sorted(ar, b, k1.data, k1.size, NULL), 0);
	ck_assert_int_eq(ar_serialize_body(ar, &body), 0);
	bc_archive_free(ar);
	swap_names(&body, a, b);
	ck_assert_int_eq(ar_wrap_body(body.data, body.len, 0, &file, &size), 0);
	/* what a create of a = fixture 1, b = fixture 0 writes */
	ck_assert_int_eq(bc_archive_new(&ar), 0);
	ck_assert_int_eq(bc_archive_add_sorted(ar, a, k1.data, k1.size, NULL), 0);
	ck_assert_int_eq(bc_archive_add_sorted(ar, b, k0.data, k0.size, NULL), 0);
	want = serialize(ar);
	bc_archive_free(ar);
	for (pass = 0; pass < 2; pass++) {
		ck_assert_int_eq(ar_parse(file, size, "old.bca", pass, &ar, NULL), 0);
		ck_assert_str_eq(bc_archive_kernel_name(ar, 0), a);
		ck_assert_str_eq(bc_archive_kernel_name(ar, 1), b);
		ck_assert_int_eq(ar->kernels[0].parent, 1);
		ck_assert_int_eq(ar->kernels[1].parent, -1);
		ck_assert_int_eq(bc_archive_find_kernel(ar, b), 1);
		ck_assert_int_eq(bc_archive_kernel_raw(ar, 0, &raw, &raw_size, NULL), 0);
		ck_assert(raw_size == k1.size && !memcmp(raw, k1.data, k1.size));
		free(raw);
		ck_assert_int_eq(bc_archive_kernel_raw(ar, 1, &raw, &raw_size, NULL), 0);
		ck_assert(raw_size == k0.size && !memcmp(raw, k0.data, k0.size));
		free(raw);
		again = serialize(ar);
		ck_assert_msg(blob_eq(&again, &want), "pass %d: not written in the new order",
			      pass);
		blob_free(&again);
		bc_archive_free(ar);
	}
	free(file);
	/* one name twice: refused */
	memcpy(memmem(body.data, body.len, b, strlen(b)), a, strlen(a));
	ck_assert_int_eq(ar_wrap_body(body.data, body.len, 0, &file, &size), 0);
	expect_damage(file, size, "a name twice", 0);
	free(file);
	free(body.data);
	blob_free(&want);
	blob_free(&k0);
	blob_free(&k1);
}
END_TEST

/*
 * tests/data/archive-v1.bca and archive-v2.bca: fixtures 0-3 as formats 1
 * (zstd payload) and 2 (LZ4 payload; strings and records interleaved)
 * wrote them, at bb0c15a; archive-v3.bca as format 3 (one LZ4 frame of
 * the body format 4 cuts into streams) wrote them, at 7df117c. Each is
 * read (whole and lazily), gives every fixture back, and is written back
 * as format 4: the bytes a create of the four gives. A flipped byte of
 * its payload is refused.
 */
static void check_old_version(const char *path, int version)
{
	struct blob old = read_file(path), now = archive_of(0xf, NULL), again;
	struct bc_archive *ar, *lazy;
	int i;

	ck_assert_msg(old.size, "%s missing", path);
	ck_assert_uint_eq(((uint8_t *)old.data)[8], version);
	ck_assert_uint_eq(((uint8_t *)now.data)[8], 4);
	ar = parse_ok(&old);
	ck_assert_int_eq(ar_parse(old.data, old.size, path, true, &lazy, NULL), 0);
	for (i = 0; i < 4; i++) {
		struct blob want = fixture(i), got, got_lazy;

		ck_assert_int_eq(bc_archive_kernel_raw(ar, (uint32_t)bc_archive_find_kernel(ar, fix_name(i)),
						       &got.data, &got.size, NULL), 0);
		ck_assert_int_eq(bc_archive_kernel_raw(lazy, (uint32_t)bc_archive_find_kernel(lazy, fix_name(i)),
						       &got_lazy.data, &got_lazy.size, NULL), 0);
		ck_assert_msg(blob_eq(&want, &got), "%s: fixture %d", path, i);
		ck_assert_msg(blob_eq(&want, &got_lazy), "%s: fixture %d (lazy)", path, i);
		blob_free(&want);
		blob_free(&got);
		blob_free(&got_lazy);
	}
	again = serialize(ar);
	ck_assert_msg(blob_eq(&again, &now), "%s not written back as version 4", path);
	blob_free(&again);
	again = serialize(lazy);
	ck_assert_msg(blob_eq(&again, &now), "%s not written back as version 4 (lazy)", path);
	/* damaged: a flipped byte of its payload */
	((uint8_t *)old.data)[40] ^= 1;
	expect_damage(old.data, old.size, "old version, flipped bit", 40);
	bc_archive_free(ar);
	bc_archive_free(lazy);
	blob_free(&again);
	blob_free(&old);
	blob_free(&now);
}

START_TEST(test_version1)
{
	check_old_version("tests/data/archive-v1.bca", 1);
}
END_TEST

START_TEST(test_version2)
{
	check_old_version("tests/data/archive-v2.bca", 2);
}
END_TEST

START_TEST(test_version3)
{
	check_old_version("tests/data/archive-v3.bca", 3);
}
END_TEST

/*
 * Issue 27: an archive is never larger than `xz -9e` of the BTF files it
 * replaces, one kernel alone included (the case records help least: the
 * archive then holds the kernel's sorted bytes when that is smaller).
 * Debian's 6.1.0-56 cloud-amd64 alone: the archive against liblzma's
 * preset 9e of the kernel's own BTF; it gives the sorted bytes back.
 */
START_TEST(test_real_smaller)
{
	struct blob raw, sorted, file, back;
	struct bc_archive *ar;
	enum bc_file_format format;
	size_t xz_size = 0, bound;
	uint8_t *xz;

	if (access(real_kernels[0], R_OK)) {
		fprintf(stderr, "archive real: %s absent: skipped\n", real_kernels[0]);
		return;
	}
	ck_assert_int_eq(bc_file_read_btf(real_kernels[0], &raw.data, &raw.size,
					  &format, NULL), 0);
	bound = lzma_stream_buffer_bound(raw.size);
	xz = malloc(bound);
	ck_assert_ptr_nonnull(xz);
	ck_assert_int_eq(lzma_easy_buffer_encode(9 | LZMA_PRESET_EXTREME,
						 LZMA_CHECK_CRC64, NULL, raw.data,
						 raw.size, xz, &xz_size, bound), LZMA_OK);
	free(xz);
	sorted = sorted_of(&raw);
	ck_assert_int_eq(bc_archive_new(&ar), 0);
	ck_assert_int_eq(bc_archive_add_sorted(ar, "6.1.0-56-cloud-amd64",
					       sorted.data, sorted.size, NULL), 0);
	file = serialize(ar);
	bc_archive_free(ar);
	ck_assert_msg(file.size <= xz_size, "archive %zu bytes, xz -9e %zu",
		      file.size, xz_size);
	ar = parse_ok(&file);
	ck_assert_int_eq(bc_archive_kernel_raw(ar, 0, &back.data, &back.size,
					       NULL), 0);
	ck_assert_msg(blob_eq(&back, &sorted), "other bytes back");
	bc_archive_free(ar);
	blob_free(&back);
	blob_free(&file);
	blob_free(&sorted);
	blob_free(&raw);
}
END_TEST

/*
 * Format 4's payload (archive/pack.c): a body laid out as the writer lays
 * it out is cut into its six sections, any other bytes are one stream;
 * both efforts give back the body exactly, and the same bytes on every
 * call. A tiny stream is stored, and stored neighbours are one stream (an
 * archive of no kernel); a small body is one stream where that is smaller. A stream table that does not add up to
 * the body and the payload, an unknown codec or a stream that does not
 * decode to its size is refused (-EINVAL).
 */
static void check_pack(const uint8_t *body, size_t len, unsigned streams)
{
	enum ar_pack_effort effort;

	for (effort = AR_PACK_BEST; effort <= AR_PACK_FAST; effort++) {
		struct ar_buf one = { 0 }, two = { 0 };
		uint8_t *back = malloc(len + 1);

		ck_assert_ptr_nonnull(back);
		ck_assert_int_eq(ar_pack(body, len, effort, &one), 0);
		ck_assert_int_eq(ar_pack(body, len, effort, &two), 0);
		ck_assert_msg(one.len == two.len && !memcmp(one.data, two.data, one.len),
			      "effort %d: other bytes the second time", effort);
		ck_assert_uint_eq(one.data[0], streams);
		ck_assert_int_eq(ar_unpack(one.data, one.len, back, len), 0);
		ck_assert_msg(!memcmp(back, body, len), "effort %d: other body", effort);
		/* one byte more or less of body or payload */
		ck_assert_int_eq(ar_unpack(one.data, one.len - 1, back, len), -EINVAL);
		if (len)
			ck_assert_int_eq(ar_unpack(one.data, one.len, back, len - 1), -EINVAL);
		free(back);
		free(one.data);
		free(two.data);
	}
}

START_TEST(test_pack)
{
	struct blob file = records_of((1u << NR_FIX) - 1);
	struct bc_archive *ar = parse_ok(&file);
	struct ar_buf body = { 0 }, packed = { 0 }, small = { 0 };
	struct bc_archive *none;
	struct blob tiny;
	uint8_t text[4096], *back;
	size_t i;

	ck_assert_int_eq(ar_serialize_body(ar, &body), 0);
	check_pack(body.data, body.len, 6);
	for (i = 0; i < sizeof(text); i++)	/* no count fits: one stream */
		text[i] = (uint8_t)(0xff - i % 7);
	check_pack(text, sizeof(text), 1);
	check_pack(text, 0, 1);
	/* no kernel: the sections' few bytes stored as one stream */
	ck_assert_int_eq(bc_archive_new(&none), 0);
	ck_assert_int_eq(ar_serialize_body(none, &small), 0);
	check_pack(small.data, small.len, 1);
	ck_assert_int_eq(ar_pack(small.data, small.len, AR_PACK_BEST, &packed), 0);
	ck_assert_uint_eq(packed.len, 1 + 17 + small.len);
	ck_assert_uint_eq(packed.data[1], 0);
	packed.len = 0;
	small.len = 0;
	bc_archive_free(none);
	/* three tiny kernels' records: smaller as one stream than as six */
	tiny = records_of(0x7);
	none = parse_ok(&tiny);
	ck_assert_int_eq(ar_serialize_body(none, &small), 0);
	ck_assert_int_eq(ar_pack(small.data, small.len, AR_PACK_BEST, &packed), 0);
	ck_assert_uint_eq(packed.data[0], 1);
	back = malloc(small.len);
	ck_assert_ptr_nonnull(back);
	ck_assert_int_eq(ar_unpack(packed.data, packed.len, back, small.len), 0);
	ck_assert(!memcmp(back, small.data, small.len));
	free(back);
	packed.len = 0;
	bc_archive_free(none);
	blob_free(&tiny);
	free(small.data);
	/* stored: codec 0, as long as the body */
	ck_assert_int_eq(ar_pack(text, 10, AR_PACK_BEST, &packed), 0);
	ck_assert_uint_eq(packed.len, 1 + 17 + 10);
	ck_assert_uint_eq(packed.data[1], 0);
	packed.len = 0;
	/* damaged tables */
	ck_assert_int_eq(ar_pack(body.data, body.len, AR_PACK_BEST, &packed), 0);
	back = malloc(body.len);
	ck_assert_ptr_nonnull(back);
	for (i = 0; i < 6; i++) {
		uint8_t *entry = packed.data + 1 + 17 * i, codec = entry[0];

		entry[0] = 4;	/* no such codec */
		ck_assert_int_eq(ar_unpack(packed.data, packed.len, back, body.len), -EINVAL);
		entry[0] = codec == 0 ? 2 : 0;	/* another codec */
		ck_assert_int_eq(ar_unpack(packed.data, packed.len, back, body.len), -EINVAL);
		entry[0] = codec;
	}
	packed.data[0] = 0;
	ck_assert_int_eq(ar_unpack(packed.data, packed.len, back, body.len), -EINVAL);
	packed.data[0] = 9;
	ck_assert_int_eq(ar_unpack(packed.data, packed.len, back, body.len), -EINVAL);
	packed.data[0] = 6;
	packed.data[1 + 1] ^= 1;	/* stream 0's body bytes */
	ck_assert_int_eq(ar_unpack(packed.data, packed.len, back, body.len), -EINVAL);
	packed.data[1 + 1] ^= 1;
	ck_assert_int_eq(ar_unpack(packed.data, packed.len, back, body.len), 0);
	free(back);
	free(packed.data);
	free(body.data);
	bc_archive_free(ar);
	blob_free(&file);
}
END_TEST

/*
 * An archive opened lazily (records decoded as a rebuilt kernel uses
 * them) gives every kernel the bytes the whole read gives, in any order
 * of extracting, and writes back the same file; so do Debian's three
 * kernels in test_real.
 */
START_TEST(test_lazy)
{
	struct blob file = records_of((1u << NR_FIX) - 1), again;
	struct bc_archive *ar = parse_ok(&file), *lazy;
	int i, k;

	for (i = 0; i < 2 * NR_FIX; i++) {
		struct blob want, got;

		/* forwards, then backwards: lists kept or decoded afresh */
		k = i < NR_FIX ? i : 2 * NR_FIX - 1 - i;
		if (i == 0 || i == NR_FIX)
			ck_assert_int_eq(ar_parse(file.data, file.size, "t.bca", true,
						  &lazy, NULL), 0);
		ck_assert_ptr_nonnull(lazy->heads);
		ck_assert_int_eq(bc_archive_kernel_raw(ar, (uint32_t)k, &want.data,
						       &want.size, NULL), 0);
		ck_assert_int_eq(bc_archive_kernel_raw(lazy, (uint32_t)k, &got.data,
						       &got.size, NULL), 0);
		ck_assert_msg(blob_eq(&want, &got), "kernel %d: lazy read differs", k);
		blob_free(&want);
		blob_free(&got);
		if (i == NR_FIX - 1 || i == 2 * NR_FIX - 1) {
			ck_assert_int_eq(bc_archive_serialize_quick(lazy, &again.data,
								    &again.size, NULL), 0);
			ck_assert(blob_eq(&again, &file));
			ck_assert_ptr_null(lazy->heads);	/* loaded to write */
			blob_free(&again);
			bc_archive_free(lazy);
		}
	}
	bc_archive_free(ar);
	blob_free(&file);
}
END_TEST

/*
 * An archive opened partially (extract, list): the string bytes and the
 * record words stay packed until a kernel read needs them, and then only
 * as far as it needs them (in steps of 64 KB packed: all of these small
 * fixtures' words at the first step); every kernel comes
 * back as the whole read gives it, and the rest is unpacked and checked
 * for whatever needs every record (a write gives the same file).
 */
START_TEST(test_partial)
{
	struct blob file = records_of((1u << NR_FIX) - 1), again;
	struct bc_archive *ar = parse_ok(&file), *part;
	bool read_words = false;
	size_t at, len;
	int k;

	for (k = 0; k < NR_FIX; k++) {
		struct blob want, got;

		ck_assert_int_eq(ar_parse_as(file.data, file.size, "t.bca",
					     AR_READ_PARTIAL, &part, NULL), 0);
		ck_assert_ptr_nonnull(part->deferred);
		ar_deferred_range(part->deferred, 1, &at, &len);
		ck_assert_uint_eq(ar_deferred_done(part->deferred, 1), 0);
		ck_assert_int_eq(bc_archive_kernel_raw(ar, (uint32_t)k, &want.data,
						       &want.size, NULL), 0);
		ck_assert_int_eq(bc_archive_kernel_raw(part, (uint32_t)k, &got.data,
						       &got.size, NULL), 0);
		ck_assert_msg(blob_eq(&want, &got), "kernel %d: partial read differs", k);
		if (!bc_archive_kernel_stored_as_bytes(part, (uint32_t)k))
			ck_assert_uint_gt(ar_deferred_done(part->deferred, 1), 0);
		ck_assert_uint_le(ar_deferred_done(part->deferred, 1), len);
		read_words |= ar_deferred_done(part->deferred, 1) > 0;
		blob_free(&want);
		blob_free(&got);
		if (k == NR_FIX - 1) {
			ck_assert_int_eq(bc_archive_serialize_quick(part, &again.data,
								    &again.size, NULL), 0);
			ck_assert(blob_eq(&again, &file));
			ck_assert_ptr_null(part->deferred);	/* unpacked to write */
			blob_free(&again);
		}
		bc_archive_free(part);
	}
	ck_assert(read_words);
	bc_archive_free(ar);
	blob_free(&file);
}
END_TEST

/*
 * A lazily opened archive whose record is forged (with a fresh checksum):
 * opening succeeds, the kernel that uses the record is refused with a
 * message naming the file, and so is loading every record.
 */
START_TEST(test_lazy_damage)
{
	struct blob file = archive_of(0x1, NULL);
	struct bc_archive *ar = parse_ok(&file), *lazy;
	struct ar_buf body = { 0 };
	struct captured cap = { .count = 0 };
	struct bc_log log = { .fn = capture, .ctx = &cap };
	uint8_t *words;
	void *forged, *raw;
	size_t size, forged_size;

	ck_assert_int_eq(ar_serialize_body(ar, &body), 0);
	bc_archive_free(ar);
	ck_assert_int_eq(ar_parse(file.data, file.size, "t.bca", true, &lazy, NULL), 0);
	/* the last record's last varint runs on past the record's bytes */
	words = body.data + (lazy->words - lazy->body) + lazy->words_len - 1;
	ck_assert_uint_lt(*words, 0x80);
	*words |= 0x80;
	bc_archive_free(lazy);
	ck_assert_int_eq(ar_wrap_body(body.data, body.len, 0, &forged, &forged_size), 0);
	ck_assert_int_eq(ar_parse(forged, forged_size, "forged.bca", true, &lazy, &log), 0);
	ck_assert_int_lt(bc_archive_kernel_raw(lazy, 0, &raw, &size, &log), 0);
	ck_assert_msg(cap.count == 1 && strstr(cap.text, "forged.bca"), "%s", cap.text);
	ck_assert_int_lt(ar_decode_all(lazy, NULL), 0);
	bc_archive_free(lazy);
	expect_damage(forged, forged_size, "forged record", 0);
	free(forged);
	free(body.data);
	blob_free(&file);
}
END_TEST

/*
 * Fixtures 0, 1, 2 (6.1.0-44, 6.1.0-56, 6.12.100, one flavor) chain: 2's
 * parent is 1, 1's is 0. Extracting 2 decodes 0 and 1 on the way and
 * keeps neither; extracting 1 then decodes from 0 again.
 */
START_TEST(test_chain)
{
	struct blob file = archive_of(0x7, NULL), got;
	struct bc_archive *ar = parse_ok(&file);
	uint32_t k, kept;

	ck_assert_int_eq(ar->kernels[2].parent, 1);
	ck_assert_int_eq(ar->kernels[1].parent, 0);
	ck_assert_int_eq(bc_archive_kernel_raw(ar, 2, &got.data, &got.size, NULL), 0);
	blob_free(&got);
	for (k = kept = 0; k < ar->nr_kernels; k++)
		kept += ar->kernels[k].recs != NULL;
	ck_assert_msg(kept == 1 && ar->kernels[2].recs,
		      "%u lists kept after extracting one kernel", kept);
	ck_assert_int_eq(bc_archive_kernel_raw(ar, 1, &got.data, &got.size, NULL), 0);
	blob_free(&got);
	ck_assert(ar->kernels[1].recs && !ar->kernels[0].recs);
	bc_archive_free(ar);
	blob_free(&file);
}
END_TEST

/* ---- kernels with their modules ---------------------------------------- */

/* `btfcanon sort --base BASE FILE` of the fixture's module file. */
static struct blob sort_module_over(const struct blob *base_raw,
				    const char *dir, const char *file)
{
	struct canon_opts opts = { .order = BC_ORDER_KIND };
	struct bc_btf *base = parse_or_fail(base_raw, NULL), *mod;
	char path[512];
	struct blob raw, out;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	raw = read_file(path);
	mod = parse_or_fail(&raw, base);
	ck_assert_int_eq(canon_run_raw(mod, &opts, &out.data, &out.size, NULL), 0);
	bc_btf_free(mod);
	bc_btf_free(base);
	blob_free(&raw);
	return out;
}

/* The package's four good modules and the files their BTF came from. */
static const char *const kmod_names[] = { "mod_a", "mod_b", "mod_g", "mod_z" };
static const char *const kmod_files[] = { "mod_a.btf", "mod_b.btf",
					  "mod_b.btf", "mod_a.btf" };

/* Kernel 9.9.9-test of ar has the four modules, each as sort --base. */
static void assert_kmods(struct bc_archive *ar, const char *dir)
{
	struct bc_archive_kmods *km;
	struct blob base;
	int k = bc_archive_find_kernel(ar, "9.9.9-test");
	uint32_t i;

	ck_assert_int_ge(k, 0);
	ck_assert_uint_eq(bc_archive_nr_modules(ar, (uint32_t)k), 4);
	ck_assert_int_eq(bc_archive_kmods_open(ar, (uint32_t)k, &km, &base.data,
					       &base.size, NULL), 0);
	for (i = 0; i < 4; i++) {
		struct blob got, want = sort_module_over(&base, dir, kmod_files[i]);

		ck_assert_str_eq(bc_archive_module_name(ar, (uint32_t)k, i),
				 kmod_names[i]);
		ck_assert_int_eq(bc_archive_find_module(ar, (uint32_t)k,
							kmod_names[i]), (int)i);
		ck_assert_int_eq(bc_archive_kmods_module(km, i, &got.data,
							 &got.size, NULL), 0);
		ck_assert_msg(got.size == want.size &&
			      !memcmp(got.data, want.data, want.size),
			      "module %s: not the bytes sort --base writes",
			      kmod_names[i]);
		blob_free(&got);
		blob_free(&want);
	}
	bc_archive_kmods_free(km);
	blob_free(&base);
}

static struct bc_archive *kmod_archive(const char *dir, struct captured *cap)
{
	struct bc_log log = { .fn = capture, .ctx = cap };
	struct bc_archive *ar;
	char path[512];

	snprintf(path, sizeof(path), "%s/k.deb", dir);
	ck_assert_int_eq(bc_archive_new(&ar), 0);
	ck_assert_int_eq(bc_archive_add_file(ar, path, NULL, &log), 0);
	return ar;
}

/*
 * Format 6 read in part: three kernels with the fixture's modules; one
 * module of the last kernel comes back as the whole read gives it while
 * the reader unpacks only part of the body and reads the entries of that
 * module's name only (its parents' other modules unread), then every
 * module; a write of the partly read archive gives the same file.
 */
START_TEST(test_modules_partial)
{
	static const char *const names[] = { "9.9.9-a", "9.9.9-b", "9.9.9-c" };
	char *dir = test_kmod_fixture(), path[512];
	struct bc_archive *ar, *part;
	struct bc_archive_kmods *km = NULL;
	struct blob file, want, got, again;
	size_t one;
	uint32_t i;

	snprintf(path, sizeof(path), "%s/k.deb", dir);
	ck_assert_int_eq(bc_archive_new(&ar), 0);
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(bc_archive_add_file(ar, path, names[i], NULL), 0);
	ar->module_cut_bytes = 1;	/* a stream a module name, as xfs's is */
	/* as records (a full write keeps these tiny kernels as bytes) */
	ck_assert_int_eq(bc_archive_serialize_quick(ar, &file.data, &file.size,
						    NULL), 0);
	ck_assert_uint_eq(((uint8_t *)file.data)[8], 6);
	ck_assert_int_eq(bc_archive_kmods_open(ar, 0, &km, NULL, NULL, NULL), 0);
	ck_assert_int_eq(bc_archive_kmods_module(km, 1, &want.data, &want.size,
						 NULL), 0);
	bc_archive_kmods_free(km);
	ck_assert_int_eq(ar_parse_as(file.data, file.size, "t.bca",
				     AR_READ_PARTIAL, &part, NULL), 0);
	ck_assert_ptr_nonnull(part->parts);
	ck_assert_uint_eq(bc_archive_nr_modules(part, 0), 0);	/* not read yet */
	/* the last kernel's mod_b: its name's group, nothing of the others */
	ck_assert_int_eq(bc_archive_read_module(part, 2, "mod_b", NULL), 0);
	for (i = 0; i < 3; i++) {
		ck_assert_uint_eq(bc_archive_nr_modules(part, i), 1);
		ck_assert_str_eq(bc_archive_module_name(part, i, 0), "mod_b");
	}
	ck_assert_int_eq(bc_archive_kmods_open(part, 2, &km, NULL, NULL, NULL), 0);
	ck_assert_int_eq(bc_archive_kmods_module(km, 0, &got.data, &got.size,
						 NULL), 0);
	bc_archive_kmods_free(km);
	ck_assert(blob_eq(&want, &got));
	one = ar_parts_unpacked(part);
	ck_assert_uint_gt(one, 0);
	ck_assert_uint_lt(one, part->body_size);
	blob_free(&got);
	/* a name no kernel has: every module read, so the count says so */
	ck_assert_int_eq(bc_archive_read_module(part, 0, "mod_q", NULL), -ENOENT);
	ck_assert_uint_eq(bc_archive_nr_modules(part, 0), 4);
	ck_assert_int_eq(bc_archive_read_module(part, 0, "mod_z", NULL), 3);
	/* the other names' entries were still packed after mod_b's read */
	ck_assert_uint_gt(ar_parts_unpacked(part), one);
	/* every kernel's, read whole: the first kernel's as before */
	ck_assert_int_eq(bc_archive_read_modules(part, -1, NULL), 0);
	ck_assert_uint_eq(bc_archive_nr_modules(part, 2), 4);
	ck_assert_int_eq(bc_archive_kmods_open(part, 0, &km, NULL, NULL, NULL), 0);
	ck_assert_int_eq(bc_archive_kmods_module(km, 1, &got.data, &got.size,
						 NULL), 0);
	bc_archive_kmods_free(km);
	ck_assert(blob_eq(&want, &got));
	part->module_cut_bytes = 1;
	ck_assert_int_eq(bc_archive_serialize_quick(part, &again.data,
						    &again.size, NULL), 0);
	ck_assert(blob_eq(&again, &file));
	ck_assert_ptr_null(part->parts);	/* read whole to write */
	blob_free(&again);
	blob_free(&want);
	blob_free(&got);
	bc_archive_free(part);
	bc_archive_free(ar);
	blob_free(&file);
	free(dir);
}
END_TEST

START_TEST(test_modules)
{
	char *dir = test_kmod_fixture();
	struct captured cap = { 0 };
	struct bc_archive *ar = kmod_archive(dir, &cap), *back;
	struct blob quick, file;
	uint32_t i;

	/* bad.ko.xz (cut short) and badbtf.ko (.BTF cut short): said, left out */
	ck_assert_uint_eq(cap.count, 2);
	ck_assert_msg(strstr(cap.text, "bad.ko.xz") && strstr(cap.text, "module bad left out"),
		      "%s", cap.text);
	for (i = 0; i < 4; i++)
		ck_assert(!bc_archive_module_stored_as_bytes(ar, 0, i));
	assert_kmods(ar, dir);
	/* the records file: format 5, read whole and lazily */
	ck_assert_int_eq(bc_archive_serialize_quick(ar, &quick.data, &quick.size,
						    NULL), 0);
	ck_assert_uint_eq(((uint8_t *)quick.data)[8], 6);
	back = parse_ok(&quick);
	ck_assert(!bc_archive_module_stored_as_bytes(back, 0, 0));
	assert_kmods(back, dir);
	bc_archive_free(back);
	ck_assert_int_eq(ar_parse(quick.data, quick.size, "t.bca", true, &back,
				  NULL), 0);
	assert_kmods(back, dir);
	bc_archive_free(back);
	/* as create writes it (a kernel this small: bytes), and back */
	file = serialize(ar);
	back = parse_ok(&file);
	assert_kmods(back, dir);
	{
		/* written again from what was read: the same bytes */
		struct blob again = serialize(back);

		ck_assert(again.size == file.size &&
			  !memcmp(again.data, file.data, file.size));
		blob_free(&again);
	}
	bc_archive_free(back);
	blob_free(&file);
	blob_free(&quick);
	bc_archive_free(ar);
	free(dir);
}
END_TEST

START_TEST(test_modules_merged)
{
	char *dir = test_kmod_fixture();
	struct captured cap = { 0 };
	struct bc_archive *ar = kmod_archive(dir, &cap);
	struct bc_archive_kmods *km;
	struct blob base, merged, mods[4];
	void *datas[4];
	size_t sizes[4];
	struct btf *btf;
	char log[4096];
	uint32_t i, n, nr_modstat = 0, nr_modamb = 0;
	int err;

	ck_assert_int_eq(bc_archive_kmods_open(ar, 0, &km, &base.data, &base.size,
					       NULL), 0);
	for (i = 0; i < 4; i++) {
		ck_assert_int_eq(bc_archive_kmods_module(km, i, &mods[i].data,
							 &mods[i].size, NULL), 0);
		datas[i] = mods[i].data;
		sizes[i] = mods[i].size;
	}
	ck_assert_int_eq(bc_archive_merge_modules(base.data, base.size, datas,
						  sizes, 4, 2, &merged.data,
						  &merged.size, "t", NULL), 0);
	/* libbpf reads it as one non-split BTF */
	btf = btf__new(merged.data, merged.size);
	ck_assert_ptr_nonnull(btf);
	ck_assert_ptr_null(btf__base_btf(btf));
	n = btf__type_cnt(btf);
	for (i = 1; i < n; i++) {
		const struct btf_type *t = btf__type_by_id(btf, i);
		const char *name = btf__name_by_offset(btf, t->name_off);

		if (btf_is_struct(t) && !strcmp(name, "dep_modstat"))
			nr_modstat++;
		if (btf_is_struct(t) && !strcmp(name, "dep_modamb"))
			nr_modamb++;
	}
	/* mod_a and mod_z hold one struct: once; mod_b's differs: twice */
	ck_assert_uint_eq(nr_modstat, 1);
	ck_assert_uint_eq(nr_modamb, 2);
	ck_assert_int_gt(btf__find_by_name_kind(btf, "dep_mod_func", BTF_KIND_FUNC), 0);
	btf__free(btf);
	/* canonical: sort gives the same bytes */
	{
		struct blob again = sorted_of(&merged);

		ck_assert(again.size == merged.size &&
			  !memcmp(again.data, merged.data, merged.size));
		blob_free(&again);
	}
	err = kernel_load_btf(&merged, NULL, 0);
	if (err && err != -EPERM && err != -ENOSYS && err != -EACCES)
		kernel_load_btf(&merged, log, sizeof(log));	/* why */
	if (err == -EPERM || err == -ENOSYS || err == -EACCES)
		fprintf(stderr, "archive modules: skipping the kernel's check of --merged: "
			"bpf(BPF_BTF_LOAD) not allowed here (%s)\n", strerror(-err));
	else
		ck_assert_msg(!err, "the kernel refuses --merged's BTF: %s\n%.800s",
			      strerror(-err), log + (strlen(log) > 800 ? strlen(log) - 800 : 0));
	for (i = 0; i < 4; i++)
		blob_free(&mods[i]);
	blob_free(&merged);
	blob_free(&base);
	bc_archive_kmods_free(km);
	bc_archive_free(ar);
	free(dir);
}
END_TEST

START_TEST(test_modules_add)
{
	char *dir = test_kmod_fixture();
	struct captured cap = { 0 };
	struct bc_log log = { .fn = capture, .ctx = &cap };
	struct bc_archive *ar, *back;
	struct blob plain, file;
	char path[512];

	/* the kernel alone: no modules, a file of format 4 */
	snprintf(path, sizeof(path), "%s/a.btf", dir);
	ck_assert_int_eq(bc_archive_new(&ar), 0);
	ck_assert_int_eq(bc_archive_add_file(ar, path, "9.9.9-test", NULL), 0);
	ck_assert_uint_eq(bc_archive_nr_modules(ar, 0), 0);
	plain = serialize(ar);
	ck_assert_uint_eq(((uint8_t *)plain.data)[8], 4);
	/* the package again: its modules join the kernel stored without */
	snprintf(path, sizeof(path), "%s/k.deb", dir);
	ck_assert_int_eq(bc_archive_add_file(ar, path, NULL, &log), 0);
	assert_kmods(ar, dir);
	/* a second time: the kernel has its modules */
	memset(&cap, 0, sizeof(cap));
	ck_assert_int_eq(bc_archive_add_file(ar, path, NULL, &log), -EEXIST);
	ck_assert_uint_eq(cap.count, 3);	/* bad, badbtf, then the kernel */
	ck_assert_msg(strstr(cap.last, "already holds a kernel '9.9.9-test'"),
		      "%s", cap.last);
	file = serialize(ar);
	ck_assert_uint_eq(((uint8_t *)file.data)[8], 6);
	back = parse_ok(&file);
	assert_kmods(back, dir);
	bc_archive_free(back);
	blob_free(&file);
	blob_free(&plain);
	bc_archive_free(ar);
	free(dir);
}
END_TEST

START_TEST(test_modules_damage)
{
	char *dir = test_kmod_fixture();
	struct captured cap = { 0 };
	struct bc_log log = { .fn = capture, .ctx = &cap };
	struct bc_archive *ar = kmod_archive(dir, &cap), *back;
	struct bc_archive_kmods *km;
	struct blob quick, raw;

	ck_assert_int_eq(bc_archive_serialize_quick(ar, &quick.data, &quick.size,
						    NULL), 0);
	ck_assert_int_eq(ar_parse(quick.data, quick.size, "t.bca", true, &back,
				  NULL), 0);
	/* mod_b's list says one type more than its script holds */
	back->kernels[0].mods[1].nr_types++;
	ck_assert_int_eq(bc_archive_kmods_open(back, 0, &km, NULL, NULL, &log), 0);
	cap.count = 0;
	ck_assert_int_eq(bc_archive_kmods_module(km, 1, &raw.data, &raw.size, &log),
			 -EINVAL);
	ck_assert_uint_eq(cap.count, 1);
	ck_assert_msg(strstr(cap.text, "module 'mod_b': damaged"), "%s", cap.text);
	/* the others read as ever */
	ck_assert_int_eq(bc_archive_kmods_module(km, 0, &raw.data, &raw.size, &log), 0);
	blob_free(&raw);
	ck_assert_int_eq(bc_archive_kmods_module(km, 2, &raw.data, &raw.size, &log), 0);
	blob_free(&raw);
	bc_archive_kmods_free(km);
	bc_archive_free(back);
	blob_free(&quick);
	bc_archive_free(ar);
	free(dir);
}
END_TEST

Suite *archive_suite(void)
{
	Suite *s = suite_create("archive");
	TCase *tc;

	tc = tcase_create("fixtures");
	tcase_add_test(tc, test_fixtures);
	suite_add_tcase(s, tc);
	tc = tcase_create("order");
	tcase_add_test(tc, test_order);
	suite_add_tcase(s, tc);
	tc = tcase_create("attachments");
	tcase_add_test(tc, test_attachments);
	suite_add_tcase(s, tc);
	tc = tcase_create("damage");
	tcase_add_test(tc, test_damage);
	suite_add_tcase(s, tc);
	tc = tcase_create("killed");
	tcase_add_test(tc, test_killed);
	suite_add_tcase(s, tc);
	tc = tcase_create("log");
	tcase_add_test(tc, test_log);
	suite_add_tcase(s, tc);
	tc = tcase_create("view");
	tcase_add_test(tc, test_view);
	tcase_add_test(tc, test_view_lists);
	tcase_add_test(tc, test_view_repeated);
	suite_add_tcase(s, tc);
	tc = tcase_create("jobs");
	tcase_add_test(tc, test_jobs);
	suite_add_tcase(s, tc);
	tc = tcase_create("names");
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_old_order);
	suite_add_tcase(s, tc);
	tc = tcase_create("version1");
	tcase_add_test(tc, test_version1);
	suite_add_tcase(s, tc);
	tc = tcase_create("version2");
	tcase_add_test(tc, test_version2);
	suite_add_tcase(s, tc);
	tc = tcase_create("version3");
	tcase_add_test(tc, test_version3);
	suite_add_tcase(s, tc);
	tc = tcase_create("pack");
	tcase_add_test(tc, test_pack);
	suite_add_tcase(s, tc);
	tc = tcase_create("lazy");
	tcase_add_test(tc, test_partial);
	tcase_add_test(tc, test_lazy);
	tcase_add_test(tc, test_lazy_damage);
	suite_add_tcase(s, tc);
	tc = tcase_create("chain");
	tcase_add_test(tc, test_chain);
	suite_add_tcase(s, tc);
	tc = tcase_create("modules");
	tcase_add_test(tc, test_modules);
	tcase_add_test(tc, test_modules_partial);
	tcase_add_test(tc, test_modules_merged);
	tcase_add_test(tc, test_modules_add);
	tcase_add_test(tc, test_modules_damage);
	suite_add_tcase(s, tc);
	archive_lock_cases(s);
	tc = tcase_create("real");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_real);
	tcase_add_test(tc, test_real_smaller);
	suite_add_tcase(s, tc);
	return s;
}
