// SPDX-License-Identifier: GPL-2.0-only
/*
 * The DWARF -> BTF encoder on C fixtures compiled at test time.
 *
 * Each fixture in tests/fixtures/ is compiled with gcc and with clang in
 * every variant below (-O0/-O2, DWARF 4/5, compressed sections), encoded
 * the way `btfcanon encode` does it (encode_file, then canon_run with FWD
 * resolution), and the listing of the result is compared with its golden
 * in tests/golden/encode/ (arrays flat, the default; arrays.nested.* with
 * --nested-arrays). Every variant of a compiler must give the same
 * listing: optimization level, DWARF version and compression change the
 * DWARF, never the C types. The two compilers share one golden
 * (NAME.txt) where their DWARF describes the same types with the same
 * names; NAME.gcc.txt and NAME.clang.txt exist where they legitimately
 * differ, with the reason in the golden's '#' comment lines.
 *
 *	golden		every fixture x compiler x variant against its golden;
 *			on each, every DIE read by encode/die_reader.h gives
 *			libdw's answers
 *	accept		libbpf's btf__parse and the kernel's BPF_BTF_LOAD
 *			take each output
 *	type_units	-fdebug-types-section gives the same listing
 *	determinism	a many-unit object: identical bytes for -j1/2/4/8/16/64
 *			and shuffled unit orders, in-process and through the
 *			CLI; chunks of one unit in groups of four (two levels
 *			of reduction) give the bytes of one chunk
 *	reduction	bc_par_for runs every task once at any -j and reports
 *			the lowest failing task; merge_parts joins chunk BTFs
 *			as btf__add_btf does (same bytes after btf__dedup),
 *			each string once
 *	bad_input	not ELF, no DWARF, truncated DWARF, unknown form and
 *			tag, a reference out of its unit: the CLI exits 1 with
 *			a message naming the file (and CU and DIE), no crash,
 *			no output file
 *	unsupported	C types BTF cannot hold (_Complex long double): a
 *			clean refusal or an output the kernel takes
 *	gnu_annotations	GCC 16's DW_AT_GNU_annotation chains (hand-written
 *			DWARF) give the golden listing and the bytes of
 *			clang's DW_TAG_LLVM_annotation children for the
 *			same source; a chain that loops is refused
 *
 * A missing compiler is a failure, not a skip (CI installs both). The CLI
 * is the one `make check` names in $BTFCANON. Run from the top of the
 * tree. BTFCANON_UPDATE_GOLDEN=1 rewrites the goldens (keeping their
 * comments) from the first variant; check every change by eye against the
 * fixture's C source before committing it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE		/* `make asan` drops the Makefile's -D */
#endif
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <bpf/btf.h>

#include "suites.h"
#include "testutil.h"
#include "../canon/btf_kinds.h"
#include "../canon/par.h"
#include "../encode/encoder.h"
#include "../encode/merge.h"

extern char **environ;

#define FIXTURE_DIR	"tests/fixtures"
#define GOLDEN_DIR	"tests/golden/encode"
#define ENCODE_TIMEOUT	120
#define MAX_SOURCES	4
#define MAX_ARGS	32

enum fixture_link {
	LINK_NONE,		/* one source, an object file (-c) */
	LINK_EXEC,		/* sources linked into an executable */
	LINK_RELOC,		/* sources linked into one relocatable (-r) */
};

struct fixture {
	const char *golden;	/* golden file stem */
	const char *sources[MAX_SOURCES];
	enum fixture_link link;
	enum encode_arrays arrays;	/* AUTO: flat, the default */
};

static const struct fixture fixtures[] = {
	{ "bitfields", { "bitfields.c" }, LINK_NONE, ENCODE_ARRAYS_AUTO },
	{ "packed_aligned", { "packed_aligned.c" }, LINK_NONE, ENCODE_ARRAYS_AUTO },
	{ "arrays", { "arrays.c" }, LINK_NONE, ENCODE_ARRAYS_AUTO },
	{ "arrays.nested", { "arrays.c" }, LINK_NONE, ENCODE_ARRAYS_NESTED },
	{ "anon_members", { "anon_members.c" }, LINK_NONE, ENCODE_ARRAYS_AUTO },
	{ "enums", { "enums.c" }, LINK_NONE, ENCODE_ARRAYS_AUTO },
	{ "forward_decls", { "forward_decls.c" }, LINK_NONE, ENCODE_ARRAYS_AUTO },
	{ "base_types", { "base_types.c" }, LINK_NONE, ENCODE_ARRAYS_AUTO },
	{ "qualifiers", { "qualifiers.c" }, LINK_NONE, ENCODE_ARRAYS_AUTO },
	{ "func_types", { "func_types.c" }, LINK_NONE, ENCODE_ARRAYS_AUTO },
	{ "btf_tags", { "btf_tags.c" }, LINK_NONE, ENCODE_ARRAYS_AUTO },
	{ "local_types", { "local_types.c" }, LINK_NONE, ENCODE_ARRAYS_AUTO },
	{ "multi_cu", { "multi_cu_1.c", "multi_cu_2.c" }, LINK_EXEC,
	  ENCODE_ARRAYS_AUTO },
	{ "multi_cu", { "multi_cu_1.c", "multi_cu_2.c" }, LINK_RELOC,
	  ENCODE_ARRAYS_AUTO },
};

#define NR_FIXTURES (sizeof(fixtures) / sizeof(fixtures[0]))

static const char *const compilers[] = { "gcc", "clang" };

#define NR_COMPILERS 2

/* Compiler flags of a variant; all must give the same listing. */
struct variant {
	const char *flags[4];
	bool compressed;	/* expect SHF_COMPRESSED debug sections */
	bool link_shared;	/* always link into a shared object */
};

static const struct variant variants[] = {
	{ { "-O0", "-gdwarf-5" }, false, false },
	{ { "-O2", "-gdwarf-5" }, false, false },
	{ { "-O0", "-gdwarf-4" }, false, false },
	{ { "-O2", "-gdwarf-4" }, false, false },
	{ { "-O2", "-gdwarf-5", "-gz" }, true, false },
	{ { "-O0", "-gdwarf-4", "-gz" }, true, false },
};

#define NR_VARIANTS (sizeof(variants) / sizeof(variants[0]))

/*
 * Type units: the types move out of the compile units. In a relocatable
 * object GCC puts each type unit in a COMDAT group of its own, which libdw
 * cannot read (the encoder refuses such objects, see bad_input); linked,
 * they are ordinary units of .debug_info (.debug_types for DWARF 4).
 */
static const struct variant type_unit_variants[] = {
	{ { "-O2", "-gdwarf-5", "-fdebug-types-section", "-fPIC" }, false, true },
	{ { "-O0", "-gdwarf-4", "-fdebug-types-section", "-fPIC" }, false, true },
};

#define NR_TYPE_UNIT_VARIANTS \
	(sizeof(type_unit_variants) / sizeof(type_unit_variants[0]))

/* ---- scratch directories and commands ------------------------------------ */

static char *scratch_dir(void)
{
	const char *tmp = getenv("TMPDIR");
	char *dir;

	ck_assert_int_ge(asprintf(&dir, "%s/btfcanon-encode-XXXXXX",
				  tmp && *tmp ? tmp : "/tmp"), 0);
	ck_assert_msg(mkdtemp(dir) != NULL, "mkdtemp %s: %s", dir,
		      strerror(errno));
	return dir;
}

static void scratch_free(char *dir)
{
	remove_tree(dir);
	free(dir);
}

static char *path_join(const char *dir, const char *name)
{
	char *path;

	ck_assert_int_ge(asprintf(&path, "%s/%s", dir, name), 0);
	return path;
}

static bool file_exists(const char *path)
{
	struct stat st;

	return !stat(path, &st);
}

/* A command's outcome: how it ended, and what it wrote to stderr. */
struct cmd_result {
	int status;		/* as waitpid() reports it */
	char *err_text;		/* malloc'd, NUL-terminated */
};

static void cmd_result_deinit(struct cmd_result *r)
{
	free(r->err_text);
	r->err_text = NULL;
}

/*
 * Runs argv (looked up in PATH) with stdout discarded and stderr captured
 * in err_file. A program that cannot be started fails the test: a missing
 * compiler is an error of the machine, not a reason to skip.
 */
static struct cmd_result run_cmd(char *const argv[], const char *err_file)
{
	posix_spawn_file_actions_t fa;
	struct cmd_result r = { 0 };
	struct blob err_blob;
	pid_t pid;
	int rc;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, err_file,
					 O_WRONLY | O_CREAT | O_TRUNC, 0644);
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	ck_assert_msg(!rc, "cannot run %s: %s (gcc and clang are required)",
		      argv[0], strerror(rc));
	ck_assert_int_eq(waitpid(pid, &r.status, 0), pid);

	err_blob = read_file(err_file);
	r.err_text = malloc(err_blob.size + 1);
	ck_assert_ptr_nonnull(r.err_text);
	if (err_blob.size)
		memcpy(r.err_text, err_blob.data, err_blob.size);
	r.err_text[err_blob.size] = '\0';
	blob_free(&err_blob);
	return r;
}

/* One line of argv, for messages. */
static char *argv_text(char *const argv[])
{
	size_t len = 1, i;
	char *text;

	for (i = 0; argv[i]; i++)
		len += strlen(argv[i]) + 1;
	text = calloc(1, len);
	ck_assert_ptr_nonnull(text);
	for (i = 0; argv[i]; i++) {
		if (i)
			strcat(text, " ");
		strcat(text, argv[i]);
	}
	return text;
}

/* Runs argv and fails the test, with its stderr, unless it exits 0. */
static void run_ok(char *const argv[], const char *dir)
{
	char *err_file = path_join(dir, "cmd.err");
	struct cmd_result r = run_cmd(argv, err_file);

	if (!WIFEXITED(r.status) || WEXITSTATUS(r.status)) {
		char *cmd = argv_text(argv);

		ck_abort_msg("`%s` failed (status 0x%x):\n%s", cmd, r.status,
			     r.err_text);
	}
	cmd_result_deinit(&r);
	free(err_file);
}

/* ---- compiling fixtures -------------------------------------------------- */

/* Appends a variant's flags to argv at *n. */
static void add_flags(char **argv, int *n, const struct variant *v)
{
	int i;

	for (i = 0; i < 4 && v->flags[i]; i++)
		argv[(*n)++] = (char *)v->flags[i];
}

/*
 * Compiles (and links) fixture f with cc and variant v into dir. Returns
 * the path of the result (malloc'd).
 */
static char *build_fixture(const struct fixture *f, const char *cc,
			   const struct variant *v, const char *dir)
{
	char *objs[MAX_SOURCES] = { 0 }, *out, *argv[MAX_ARGS];
	int i, n;

	for (i = 0; i < MAX_SOURCES && f->sources[i]; i++) {
		char *src, name[64];

		ck_assert_int_ge(asprintf(&src, "%s/%s", FIXTURE_DIR,
					  f->sources[i]), 0);
		ck_assert_msg(file_exists(src),
			      "%s not found: run the tests from the top of the tree",
			      src);
		snprintf(name, sizeof(name), "%s.%d.o", cc, i);
		objs[i] = path_join(dir, name);
		n = 0;
		argv[n++] = (char *)cc;
		add_flags(argv, &n, v);
		argv[n++] = "-c";
		argv[n++] = src;
		argv[n++] = "-o";
		argv[n++] = objs[i];
		argv[n] = NULL;
		run_ok(argv, dir);
		free(src);
	}
	if (f->link == LINK_NONE && !v->link_shared)
		return objs[0];

	out = path_join(dir, v->link_shared ? "linked.so" :
			     f->link == LINK_EXEC ? "linked" : "linked.o");
	n = 0;
	argv[n++] = (char *)cc;
	add_flags(argv, &n, v);
	if (v->link_shared) {
		argv[n++] = "-shared";
		argv[n++] = "-nostdlib";
	} else if (f->link == LINK_RELOC) {
		argv[n++] = "-r";
	}
	for (i = 0; i < MAX_SOURCES && objs[i]; i++)
		argv[n++] = objs[i];
	argv[n++] = "-o";
	argv[n++] = out;
	argv[n] = NULL;
	run_ok(argv, dir);
	for (i = 0; i < MAX_SOURCES; i++)
		free(objs[i]);
	return out;
}

/* ---- ELF sections, read and patched by hand ------------------------------ */

struct elf_section {
	uint64_t offset;	/* in the file */
	uint64_t size;
	uint64_t flags;
	uint64_t hdr_offset;	/* of its Elf64_Shdr, for patching */
};

/* Finds section name in an ELF64 file's bytes; false when absent. */
static bool find_section(const struct blob *file, const char *name,
			 struct elf_section *sec)
{
	const Elf64_Ehdr *eh = file->data;
	const Elf64_Shdr *sh, *strtab;
	uint32_t i;

	ck_assert_uint_ge(file->size, sizeof(*eh));
	ck_assert_msg(!memcmp(eh->e_ident, ELFMAG, SELFMAG) &&
		      eh->e_ident[EI_CLASS] == ELFCLASS64, "not an ELF64 file");
	ck_assert_uint_le(eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(*sh),
			  file->size);
	sh = (const Elf64_Shdr *)((const char *)file->data + eh->e_shoff);
	strtab = &sh[eh->e_shstrndx];
	for (i = 0; i < eh->e_shnum; i++) {
		const char *s = (const char *)file->data + strtab->sh_offset +
				sh[i].sh_name;

		if (strcmp(s, name))
			continue;
		sec->offset = sh[i].sh_offset;
		sec->size = sh[i].sh_size;
		sec->flags = sh[i].sh_flags;
		sec->hdr_offset = eh->e_shoff + (uint64_t)i * sizeof(*sh);
		return true;
	}
	return false;
}

static void write_blob(const char *path, const struct blob *b)
{
	FILE *f = fopen(path, "wb");

	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	ck_assert_uint_eq(fwrite(b->data, 1, b->size, f), b->size);
	ck_assert_int_eq(fclose(f), 0);
}

/* ---- encoding, as cmd_encode does it ------------------------------------- */

/* The encoder's messages, kept for the failure report. */
struct log_text {
	char buf[4096];
	size_t len;
};

static void log_collect(void *ctx, enum bc_log_level level, const char *msg)
{
	struct log_text *t = ctx;
	int n;

	if (level > BC_LOG_WARN || t->len >= sizeof(t->buf) - 1)
		return;
	n = snprintf(t->buf + t->len, sizeof(t->buf) - t->len, "%s\n", msg);
	if (n > 0)
		t->len += (size_t)n < sizeof(t->buf) - t->len ?
			  (size_t)n : sizeof(t->buf) - t->len - 1;
}

struct encode_run {
	unsigned int jobs;
	bool shuffle;
	uint64_t seed;
	uint32_t chunk_cus;	/* 0: the default */
	uint32_t piece_cus;	/* 0: the default */
	uint32_t group_chunks;	/* 0: the default */
	enum encode_arrays arrays;
};

/*
 * encode_file() + canon_run() with FWD resolution: cmd_encode's bytes.
 * With bc_base: split BTF over it.
 */
static struct blob encode_canon_over(const char *path, const struct encode_run *run,
				     const struct bc_btf *bc_base)
{
	struct log_text text = { .len = 0 };
	struct bc_log log = { .fn = log_collect, .ctx = &text };
	struct encode_result enc;
	struct encode_stats stats;
	struct encode_opts opts;
	struct blob out;
	int err;

	text.buf[0] = '\0';
	encode_opts_init(&opts);
	opts.jobs = run->jobs;
	opts.shuffle = run->shuffle;
	opts.shuffle_seed = run->seed;
	if (run->chunk_cus)
		opts.chunk_cus = run->chunk_cus;
	opts.piece_cus = run->piece_cus;
	opts.group_chunks = run->group_chunks;
	opts.arrays = run->arrays;
	opts.base = bc_base;
	err = encode_file(path, &opts, &enc, &stats, &log);
	ck_assert_msg(!err, "encode_file(%s) failed: %d\n%s", path, err, text.buf);
	out = canon_encoded(&enc, bc_base, BC_ORDER_KIND, true);
	encode_result_deinit(&enc);
	return out;
}

static struct blob encode_canon(const char *path, const struct encode_run *run)
{
	return encode_canon_over(path, run, NULL);
}

static const struct encode_run default_run = { .jobs = 2 };

/* ---- goldens ------------------------------------------------------------- */

static bool update_goldens(void)
{
	const char *v = getenv("BTFCANON_UPDATE_GOLDEN");

	return v && *v && strcmp(v, "0");
}

/*
 * The golden for fixture f and compiler cc: per-compiler, else shared.
 * When neither exists, update mode starts per-compiler ones (merge them
 * into one by hand when they agree).
 */
static char *golden_path(const struct fixture *f, const char *cc)
{
	char *own, *shared;

	ck_assert_int_ge(asprintf(&own, "%s/%s.%s.txt", GOLDEN_DIR, f->golden,
				  cc), 0);
	ck_assert_int_ge(asprintf(&shared, "%s/%s.txt", GOLDEN_DIR, f->golden), 0);
	if (file_exists(own) || (!file_exists(shared) && update_goldens())) {
		free(shared);
		return own;
	}
	free(own);
	return shared;
}

/* Splits a golden into its '#' comment lines and the listing proper. */
static void golden_split(const struct blob *file, char **comments,
			 char **body)
{
	const char *p = file->data, *end = p + file->size;
	size_t clen = 0, blen = 0;

	*comments = calloc(1, file->size + 1);
	*body = calloc(1, file->size + 1);
	ck_assert(*comments && *body);
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t len = (nl ? nl + 1 : end) - p;

		if (*p == '#') {
			memcpy(*comments + clen, p, len);
			clen += len;
		} else {
			memcpy(*body + blen, p, len);
			blen += len;
		}
		p += len;
	}
}

static void golden_write(const char *path, const char *comments,
			 const char *body)
{
	FILE *f = fopen(path, "w");

	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	fputs(comments, f);
	fputs(body, f);
	ck_assert_int_eq(fclose(f), 0);
}

/*
 * Checks got (a listing) against the golden of f for cc; what names the
 * variant in the message. In update mode writes the golden instead.
 */
static void check_golden(const struct fixture *f, const char *cc,
			 const char *got, const char *what)
{
	/* in update mode, the first variant writes and the others compare */
	static char written[256];
	char *path = golden_path(f, cc), *comments, *want;
	struct blob file = read_file(path);

	golden_split(&file, &comments, &want);
	if (update_goldens() && strcmp(got, want) && strcmp(written, path)) {
		golden_write(path, comments, got);
		snprintf(written, sizeof(written), "%s", path);
		fprintf(stderr, "encode: wrote %s (%s): review it by eye\n",
			path, what);
	} else {
		ck_assert_msg(file.data != NULL,
			      "%s missing (BTFCANON_UPDATE_GOLDEN=1 writes it)",
			      path);
		if (strcmp(got, want))
			fprintf(stderr, "--- %s, %s:\n--- got:\n%s--- want:\n%s---\n",
				path, what, got, want);
		ck_assert_msg(!strcmp(got, want), "%s: listing differs (%s)",
			      path, what);
	}
	free(comments);
	free(want);
	blob_free(&file);
	free(path);
}

/* Human-readable variant, for messages. */
static void variant_text(const char *cc, const struct variant *v, char *buf,
			 size_t size)
{
	int i, n = snprintf(buf, size, "%s", cc);

	for (i = 0; i < 4 && v->flags[i] && n > 0 && (size_t)n < size; i++)
		n += snprintf(buf + n, size - n, " %s", v->flags[i]);
}

/* Every debug section of path is SHF_COMPRESSED (-gz did its work). */
static void assert_compressed(const char *path)
{
	struct blob file = read_file(path);
	struct elf_section sec;

	ck_assert_msg(find_section(&file, ".debug_info", &sec),
		      "%s: no .debug_info", path);
	ck_assert_msg(sec.flags & SHF_COMPRESSED,
		      "%s: -gz left .debug_info uncompressed", path);
	blob_free(&file);
}

/* Builds and encodes f with cc in every variant of vs; all must match. */
static void check_variants(const struct fixture *f, const char *cc,
			   const struct variant *vs, size_t nr)
{
	struct encode_run run = default_run;
	char *dir = scratch_dir(), what[128];
	size_t i;

	run.arrays = f->arrays;
	for (i = 0; i < nr; i++) {
		char *bin = build_fixture(f, cc, &vs[i], dir), *got;
		struct blob out;

		variant_text(cc, &vs[i], what, sizeof(what));
		if (vs[i].compressed)
			assert_compressed(bin);
		die_reader_agrees(bin, 1, true);
		die_reader_agrees(bin, 1, false);
		out = encode_canon(bin, &run);
		got = listing_blob(&out, NULL);
		check_golden(f, cc, got, what);
		free(got);
		blob_free(&out);
		remove(bin);
		free(bin);
	}
	scratch_free(dir);
}

/* _i: fixture * NR_COMPILERS + compiler */
START_TEST(test_golden)
{
	const struct fixture *f = &fixtures[_i / NR_COMPILERS];

	check_variants(f, compilers[_i % NR_COMPILERS], variants, NR_VARIANTS);
}
END_TEST

/*
 * Type units (-fdebug-types-section): the types live in units of their
 * own, referred to by signature, and must still all be encoded.
 */
START_TEST(test_type_units)
{
	const struct fixture *f = &fixtures[_i / NR_COMPILERS];

	check_variants(f, compilers[_i % NR_COMPILERS], type_unit_variants,
		       NR_TYPE_UNIT_VARIANTS);
}
END_TEST

/* ---- acceptance by libbpf and the kernel --------------------------------- */

START_TEST(test_accept)
{
	const struct fixture *f = &fixtures[_i / NR_COMPILERS];
	const char *cc = compilers[_i % NR_COMPILERS];
	static const size_t log_size = 1 << 16;
	char *dir = scratch_dir(), *bin, *raw_path, *log;
	struct encode_run run = default_run;
	struct blob out;
	struct btf *btf;
	int err;

	run.arrays = f->arrays;
	bin = build_fixture(f, cc, &variants[1], dir);
	out = encode_canon(bin, &run);
	raw_path = path_join(dir, "out.btf");
	write_blob(raw_path, &out);

	btf = btf__parse(raw_path, NULL);
	err = btf ? 0 : -errno;
	ck_assert_msg(btf != NULL, "%s (%s): libbpf btf__parse rejected it: %d",
		      f->golden, cc, err);
	btf__free(btf);

	log = malloc(log_size);
	ck_assert_ptr_nonnull(log);
	err = kernel_load_btf(&out, log, log_size);
	if (err == -EPERM || err == -ENOSYS)
		fprintf(stderr, "encode: SKIP kernel BTF load of %s (%s): "
			"bpf(BPF_BTF_LOAD) not allowed here (%s)\n",
			f->golden, cc, strerror(-err));
	else
		ck_assert_msg(!err, "%s (%s): the kernel rejected it: %s\n%s",
			      f->golden, cc, strerror(-err), log);
	free(log);
	free(raw_path);
	free(bin);
	blob_free(&out);
	scratch_free(dir);
}
END_TEST

/* ---- determinism --------------------------------------------------------- */

/*
 * Many units in one file: every fixture, plus a third definition of
 * mc_declared (multi_cu_3.c) that makes the FWD in multi_cu_1.c
 * ambiguous, the case where dedup's result depends on its input order.
 */
static const struct fixture many_units = {
	"many_units",
	{ "multi_cu_1.c", "multi_cu_2.c", "multi_cu_3.c", "bitfields.c" },
	LINK_RELOC,
	ENCODE_ARRAYS_AUTO,
};

static const char *const more_units[] = {
	"packed_aligned.c", "arrays.c", "anon_members.c", "enums.c",
	"forward_decls.c", "base_types.c", "qualifiers.c", "func_types.c",
	"btf_tags.c", "local_types.c",
};

/* Links many_units and more_units into one relocatable object. */
static char *build_many_units(const char *cc, const char *dir)
{
	char *first = build_fixture(&many_units, cc, &variants[1], dir);
	char *objs[16], *out = path_join(dir, "many.o"), *argv[MAX_ARGS];
	size_t i, nr = sizeof(more_units) / sizeof(more_units[0]);
	int n = 0;

	argv[n++] = (char *)cc;
	argv[n++] = "-r";
	argv[n++] = first;
	for (i = 0; i < nr; i++) {
		struct fixture one = { "one", { more_units[i] }, LINK_NONE,
				       ENCODE_ARRAYS_AUTO };
		char sub[32], *subdir;

		snprintf(sub, sizeof(sub), "u%zu", i);
		subdir = path_join(dir, sub);
		ck_assert_int_eq(mkdir(subdir, 0755), 0);
		objs[i] = build_fixture(&one, cc, &variants[1], subdir);
		argv[n++] = objs[i];
		free(subdir);
	}
	argv[n++] = "-o";
	argv[n++] = out;
	argv[n] = NULL;
	run_ok(argv, dir);
	for (i = 0; i < nr; i++)
		free(objs[i]);
	free(first);
	return out;
}

/* Runs the CLI: btfcanon encode ARGS... INPUT -o OUT. */
static struct cmd_result run_cli(const char *const *args, const char *input,
				 const char *out, const char *dir)
{
	const char *cli = getenv("BTFCANON");
	char *argv[MAX_ARGS], *err_file = path_join(dir, "cli.err");
	struct cmd_result r;
	int n = 0;

	ck_assert_msg(cli && *cli,
		      "BTFCANON is not set: point it at the built btfcanon (make check does)");
	argv[n++] = (char *)cli;
	argv[n++] = "encode";
	while (args && *args)
		argv[n++] = (char *)*args++;
	argv[n++] = "-o";
	argv[n++] = (char *)out;
	argv[n++] = (char *)input;
	argv[n] = NULL;
	r = run_cmd(argv, err_file);
	free(err_file);
	return r;
}

/* up to 64 threads: more than the fixtures' chunks and groups */
static const unsigned int job_counts[] = { 1, 2, 4, 8, 16, 64 };
static const unsigned int shuffle_jobs[] = { 1, 2, 16, 64 };
static const uint64_t seeds[] = { 1, 2, 3, 42, 0xdeadbeef };

/*
 * _i: compiler * 2 + (chunk of one unit?). With one unit per chunk the
 * shuffle really changes which unit each worker sees first; the default
 * chunk holds the whole file. Each setting must be stable on its own.
 */
START_TEST(test_determinism)
{
	const char *cc = compilers[_i / 2];
	uint32_t chunk_cus = _i % 2 ? 1 : 0;
	char *dir = scratch_dir(), *bin = build_many_units(cc, dir);
	struct encode_run run = { .jobs = 1, .chunk_cus = chunk_cus,
				  .group_chunks = chunk_cus ? 4 : 0 };
	struct blob ref = encode_canon(bin, &run), cli_out;
	char *out_path = path_join(dir, "cli.btf"), chunk_arg[32];
	const char *args[4] = { "-j2", NULL, NULL, NULL };
	struct cmd_result r;
	size_t i;

	for (i = 0; i < sizeof(job_counts) / sizeof(job_counts[0]); i++) {
		struct blob out;

		run.jobs = job_counts[i];
		out = encode_canon(bin, &run);
		ck_assert_msg(blob_eq(&out, &ref),
			      "%s, chunk %u: -j%u differs from -j1", cc,
			      chunk_cus, job_counts[i]);
		blob_free(&out);
	}
	run.shuffle = true;
	for (i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		struct blob out;

		run.jobs = shuffle_jobs[i % 4];
		run.seed = seeds[i];
		out = encode_canon(bin, &run);
		ck_assert_msg(blob_eq(&out, &ref),
			      "%s, chunk %u: --shuffle-cus=%llu -j%u differs",
			      cc, chunk_cus, (unsigned long long)seeds[i], run.jobs);
		blob_free(&out);
	}

	/*
	 * Chunks of one unit in groups of 4: fourteen chunks, four groups,
	 * two levels of reduction; in groups of 16: one level; the
	 * default: one chunk. The tree's shape changes nothing.
	 */
	if (chunk_cus) {
		struct encode_run one = { .jobs = 2 };
		struct encode_run flat = { .jobs = 16, .chunk_cus = 1 };
		struct blob out = encode_canon(bin, &one);

		ck_assert_msg(blob_eq(&out, &ref),
			      "%s: chunks of one unit differ from one chunk", cc);
		blob_free(&out);
		out = encode_canon(bin, &flat);
		ck_assert_msg(blob_eq(&out, &ref),
			      "%s: one level of reduction differs from two", cc);
		blob_free(&out);
	}

	/*
	 * Chunks of four units encoded in pieces of one: each chunk's
	 * later pieces start from the type cache of its first, any
	 * worker taking any piece, and the chunk joins its pieces. The
	 * same bytes at every -j and order.
	 */
	if (chunk_cus) {
		struct encode_run pieces = { .chunk_cus = 4, .piece_cus = 1 };

		for (i = 0; i < sizeof(shuffle_jobs) / sizeof(shuffle_jobs[0]); i++) {
			struct blob out;

			pieces.jobs = shuffle_jobs[i];
			pieces.shuffle = i % 2;
			pieces.seed = seeds[i];
			out = encode_canon(bin, &pieces);
			ck_assert_msg(blob_eq(&out, &ref),
				      "%s: pieces of one unit in chunks of four, -j%u%s, differ",
				      cc, pieces.jobs, pieces.shuffle ? " shuffled" : "");
			blob_free(&out);
		}
	}

	/* the CLI writes the same bytes as encode_file + canon_run here */
	if (chunk_cus) {
		snprintf(chunk_arg, sizeof(chunk_arg), "--chunk-cus=%u", chunk_cus);
		args[1] = chunk_arg;
	}
	args[args[1] ? 2 : 1] = "--shuffle-cus=7";
	r = run_cli(args, bin, out_path, dir);
	ck_assert_msg(WIFEXITED(r.status) && !WEXITSTATUS(r.status),
		      "btfcanon encode failed (0x%x):\n%s", r.status, r.err_text);
	cli_out = read_file(out_path);
	ck_assert_msg(blob_eq(&cli_out, &ref),
		      "%s, chunk %u: the CLI's output differs from encode_file's",
		      cc, chunk_cus);
	blob_free(&cli_out);
	cmd_result_deinit(&r);
	blob_free(&ref);
	free(out_path);
	free(bin);
	scratch_free(dir);
}
END_TEST

/* ---- split BTF: a module over a base ---------------------------------------- */

/* Does the base have a type of this kind and name? */
static bool base_has(const struct bc_btf *base, uint32_t kind, const char *name)
{
	uint32_t i;

	for (i = 0; i < base->nr_types; i++) {
		const struct btf_type *t = bc_btf_local(base, i);

		if (bc_type_kind(t) == kind && t->name_off &&
		    !strcmp(bc_btf_str(base, t->name_off), name))
			return true;
	}
	return false;
}

/*
 * A module over a base, as the kernel build encodes one: the base is the
 * standalone BTF of the first four units, the module all fourteen linked
 * into one relocatable object (like a .ko). Its split BTF must be the
 * same bytes at -j1, 2, 4, 8, with shuffled unit order and with chunks of
 * one unit (_i odd: several chunks whose types meet the base only after
 * their merge); libbpf must read it over the base; and the types the
 * module shares with the base must be the base's: no struct, union, enum
 * or typedef of the split part has the name of a base type of its kind
 * (both were built from the same headers).
 */
START_TEST(test_split_over_base)
{
	const char *cc = compilers[_i / 2];
	uint32_t chunk_cus = _i % 2 ? 1 : 0;
	char *dir = scratch_dir(), *bin = build_many_units(cc, dir);
	char *first = path_join(dir, "linked.o"), *split_path;
	struct encode_run run = { .jobs = 1, .chunk_cus = chunk_cus,
				  .group_chunks = chunk_cus ? 4 : 0 };
	struct blob base_raw = encode_canon(first, &default_run), ref, alone;
	struct btf *base = btf__new(base_raw.data, base_raw.size), *reread;
	struct bc_btf *bc_base = parse_or_fail(&base_raw, NULL), *split;
	uint32_t i, shared = 0;
	FILE *f;

	ck_assert_msg(base != NULL, "%s: libbpf cannot read the base", cc);
	ref = encode_canon_over(bin, &run, bc_base);
	for (i = 0; i < sizeof(job_counts) / sizeof(job_counts[0]); i++) {
		struct blob out;

		run.jobs = job_counts[i];
		out = encode_canon_over(bin, &run, bc_base);
		ck_assert_msg(blob_eq(&out, &ref),
			      "%s, chunk %u: split BTF at -j%u differs from -j1",
			      cc, chunk_cus, job_counts[i]);
		blob_free(&out);
	}
	run.shuffle = true;
	for (i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		struct blob out;

		run.jobs = shuffle_jobs[i % 4];
		run.seed = seeds[i];
		out = encode_canon_over(bin, &run, bc_base);
		ck_assert_msg(blob_eq(&out, &ref),
			      "%s, chunk %u: split BTF with --shuffle-cus=%llu -j%u differs",
			      cc, chunk_cus, (unsigned long long)seeds[i], run.jobs);
		blob_free(&out);
	}

	split_path = path_join(dir, "split.btf");
	f = fopen(split_path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fwrite(ref.data, 1, ref.size, f), ref.size);
	fclose(f);
	reread = btf__parse_raw_split(split_path, base);
	ck_assert_msg(reread != NULL, "%s: libbpf cannot read the split BTF", cc);
	btf__free(reread);

	split = parse_or_fail(&ref, bc_base);
	for (i = 0; i < split->nr_types; i++) {
		const struct btf_type *t = bc_btf_local(split, i);
		uint32_t kind = bc_type_kind(t);

		if ((kind != BTF_KIND_STRUCT && kind != BTF_KIND_UNION &&
		     kind != BTF_KIND_ENUM && kind != BTF_KIND_TYPEDEF) ||
		    !t->name_off)
			continue;
		ck_assert_msg(!base_has(bc_base, kind, bc_btf_str(split, t->name_off)),
			      "%s, chunk %u: split type [%u] %s '%s' repeats the base's",
			      cc, chunk_cus, split->start_id + i,
			      bc_kinds[kind].name, bc_btf_str(split, t->name_off));
	}
	/* the base took something: the module alone has more types */
	alone = encode_canon(bin, &default_run);
	{
		struct bc_btf *a = parse_or_fail(&alone, NULL);

		for (i = 0; i < a->nr_types; i++) {
			const struct btf_type *t = bc_btf_local(a, i);

			shared += bc_type_kind(t) == BTF_KIND_STRUCT && t->name_off &&
				  base_has(bc_base, BTF_KIND_STRUCT,
					   bc_btf_str(a, t->name_off));
		}
		ck_assert_msg(shared > 0 && split->nr_types < a->nr_types,
			      "%s: the split BTF (%u types) took nothing from the base (module alone: %u, %u structs shared)",
			      cc, split->nr_types, a->nr_types, shared);
		bc_btf_free(a);
	}
	bc_btf_free(split);
	bc_btf_free(bc_base);
	btf__free(base);
	blob_free(&alone);
	blob_free(&ref);
	blob_free(&base_raw);
	free(split_path);
	free(first);
	free(bin);
	scratch_free(dir);
}
END_TEST

/* ---- bad input ----------------------------------------------------------- */

/*
 * Runs the CLI on input and checks it failed cleanly: exit status 1 (not a
 * signal), no output file, and a message containing input and each of
 * the strings in want, and none of those in unwanted (NULL-terminated
 * lists, or NULL). BTFCANON_TEST_VERBOSE=1 shows the messages.
 */
static void assert_rejected(const char *input, const char *dir,
			    const char *const *want,
			    const char *const *unwanted)
{
	char *out_path = path_join(dir, "out.btf");
	struct cmd_result r = run_cli(NULL, input, out_path, dir);
	const char *verbose = getenv("BTFCANON_TEST_VERBOSE");

	if (verbose && *verbose)
		fprintf(stderr, "encode: %s: exit 0x%x: %s", input, r.status,
			r.err_text);

	ck_assert_msg(!WIFSIGNALED(r.status),
		      "%s: btfcanon encode died of signal %d:\n%s", input,
		      WTERMSIG(r.status), r.err_text);
	ck_assert_msg(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 1,
		      "%s: btfcanon encode exited 0x%x, want 1:\n%s", input,
		      r.status, r.err_text);
	ck_assert_msg(!file_exists(out_path),
		      "%s: a failed encode left %s behind", input, out_path);
	ck_assert_msg(strstr(r.err_text, input) != NULL,
		      "%s: the message does not name the file:\n%s", input,
		      r.err_text);
	while (want && *want) {
		ck_assert_msg(strstr(r.err_text, *want) != NULL,
			      "%s: the message lacks \"%s\":\n%s", input, *want,
			      r.err_text);
		want++;
	}
	while (unwanted && *unwanted) {
		ck_assert_msg(strstr(r.err_text, *unwanted) == NULL,
			      "%s: the message should not say \"%s\":\n%s",
			      input, *unwanted, r.err_text);
		unwanted++;
	}
	cmd_result_deinit(&r);
	free(out_path);
}

/* An object with plain (uncompressed) DWARF 5 from gcc, to be damaged. */
static char *build_plain(const char *source, const char *dir)
{
	struct fixture f = { "bad", { source }, LINK_NONE, ENCODE_ARRAYS_AUTO };

	return build_fixture(&f, "gcc", &variants[0], dir);
}

START_TEST(test_not_elf)
{
	char *dir = scratch_dir(), *path = path_join(dir, "text.o");
	struct blob text = { .data = "this is not an ELF file\n", .size = 24 };
	struct blob empty = { .data = "", .size = 0 };

	write_blob(path, &text);
	assert_rejected(path, dir, NULL, NULL);
	write_blob(path, &empty);
	assert_rejected(path, dir, NULL, NULL);
	free(path);
	scratch_free(dir);
}
END_TEST

START_TEST(test_stripped)
{
	char *dir = scratch_dir(), *obj = build_plain("bitfields.c", dir);
	char *stripped = path_join(dir, "stripped.o");
	char *argv[] = { "strip", "--strip-debug", obj, "-o", stripped, NULL };
	const char *const want[] = { "DWARF", NULL };

	run_ok(argv, dir);
	assert_rejected(stripped, dir, want, NULL);
	free(stripped);
	free(obj);
	scratch_free(dir);
}
END_TEST

/*
 * A relocatable object with type units: each sits in a COMDAT group of its
 * own, one more section called .debug_info, which libdw does not read.
 * Refused with a message rather than encoded without those types.
 */
START_TEST(test_grouped_type_units)
{
	static const struct variant tu = {
		{ "-O2", "-gdwarf-5", "-fdebug-types-section" }, false, false
	};
	static const struct fixture f = { "bad", { "qualifiers.c" }, LINK_NONE,
					  ENCODE_ARRAYS_AUTO };
	const char *const want[] = { "type units", "link the object first", NULL };
	char *dir = scratch_dir(), *obj = build_fixture(&f, "gcc", &tu, dir);

	assert_rejected(obj, dir, want, NULL);
	free(obj);
	scratch_free(dir);
}
END_TEST

/* Reads obj, lets patch() change its bytes, writes the result to name. */
static char *patched_copy(const char *obj, const char *dir, const char *name,
			  void (*patch)(struct blob *file, void *arg), void *arg)
{
	struct blob file = read_file(obj);
	char *path = path_join(dir, name);

	ck_assert_msg(file.data != NULL, "cannot read %s", obj);
	patch(&file, arg);
	write_blob(path, &file);
	blob_free(&file);
	return path;
}

/* The first CU claims to be longer than .debug_info. */
static void patch_unit_length(struct blob *file, void *arg)
{
	struct elf_section info;
	uint32_t len;

	(void)arg;
	ck_assert(find_section(file, ".debug_info", &info));
	len = info.size + 64;
	memcpy((char *)file->data + info.offset, &len, sizeof(len));
}

/* .debug_info's section header says half its real size. */
static void patch_section_size(struct blob *file, void *arg)
{
	struct elf_section info;
	Elf64_Shdr *sh;

	(void)arg;
	ck_assert(find_section(file, ".debug_info", &info));
	sh = (Elf64_Shdr *)((char *)file->data + info.hdr_offset);
	sh->sh_size = info.size / 2;
}

/*
 * Truncated DWARF, _i 0: a unit whose length runs past the end of
 * .debug_info; 1: .debug_info cut in half, which is corrupt, not stripped
 * (no advice to build with -g).
 */
START_TEST(test_truncated)
{
	static const char *const not_stripped[] = { "stripped", NULL };
	static void (*const patches[])(struct blob *, void *) = {
		patch_unit_length, patch_section_size,
	};
	char *dir = scratch_dir(), *obj = build_plain("packed_aligned.c", dir);
	char *bad = patched_copy(obj, dir, "truncated.o", patches[_i], NULL);

	assert_rejected(bad, dir, NULL, _i ? not_stripped : NULL);
	free(bad);
	free(obj);
	scratch_free(dir);
}
END_TEST

/* Reads a ULEB128 at *p, advancing it; 1-byte values are all these need. */
static uint64_t read_uleb(const uint8_t **p, const uint8_t *end)
{
	uint64_t v = 0;
	int shift = 0;

	while (*p < end) {
		uint8_t b = *(*p)++;

		v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	return v;
}

/* What to change in .debug_abbrev. */
struct abbrev_patch {
	unsigned int tag;	/* the first abbrev with this tag */
	unsigned int attr;	/* 0: change the tag; else this attribute's form */
	uint8_t new_value;	/* a one-byte tag or form no DWARF version defines */
};

/* Applies an abbrev_patch; the patched code must be one byte long. */
static void patch_abbrev(struct blob *file, void *arg)
{
	const struct abbrev_patch *ap = arg;
	const uint8_t *p, *end;
	struct elf_section sec;
	uint8_t *base;

	ck_assert(find_section(file, ".debug_abbrev", &sec));
	base = (uint8_t *)file->data + sec.offset;
	p = base;
	end = base + sec.size;
	while (p < end) {
		const uint8_t *tag_at;
		uint64_t tag;

		if (!read_uleb(&p, end))	/* end of a unit's abbrevs */
			continue;
		tag_at = p;
		tag = read_uleb(&p, end);
		p++;				/* DW_CHILDREN_* */
		if (tag == ap->tag && !ap->attr) {
			ck_assert_int_eq(p - tag_at, 2);
			base[tag_at - base] = ap->new_value;
			return;
		}
		for (;;) {
			const uint8_t *form_at;
			uint64_t attr = read_uleb(&p, end), form;

			form_at = p;
			form = read_uleb(&p, end);
			if (!attr && !form)
				break;
			if (form == DW_FORM_implicit_const)
				read_uleb(&p, end);	/* an SLEB: same length rule */
			if (tag == ap->tag && attr == ap->attr) {
				ck_assert_int_eq(p - form_at, 1);
				base[form_at - base] = ap->new_value;
				return;
			}
		}
	}
	ck_abort_msg("no abbrev with tag 0x%x%s", ap->tag,
		     ap->attr ? " and that attribute" : "");
}

/*
 * .debug_abbrev patched to a tag or form no DWARF version defines (0x7e).
 * The message must be about the DWARF (the CU, the DIE), not a libbpf
 * failure downstream of a silently lost attribute.
 */
static const char *const dwarf_error[] = { "CU at 0x", "DIE at 0x", NULL };
static const char *const tag_error[] = { "CU at 0x", "DIE at 0x", "0x7e", NULL };
static const char *const libbpf_error[] = { "cannot add BTF type", NULL };

static const struct {
	struct abbrev_patch patch;
	const char *const *want, *const *unwanted;
} bad_abbrevs[] = {
	/* the members' DW_AT_type form */
	{ { DW_TAG_member, DW_AT_type, 0x7e }, dwarf_error, libbpf_error },
	/* the base types' DW_AT_name form */
	{ { DW_TAG_base_type, DW_AT_name, 0x7e }, dwarf_error, libbpf_error },
	/* the base types' tag; members still refer to them */
	{ { DW_TAG_base_type, 0, 0x7e }, tag_error, libbpf_error },
};

START_TEST(test_bad_abbrev)
{
	char *dir = scratch_dir(), *obj = build_plain("bitfields.c", dir), *bad;
	struct abbrev_patch ap = bad_abbrevs[_i].patch;

	bad = patched_copy(obj, dir, "abbrev.o", patch_abbrev, &ap);
	assert_rejected(bad, dir, bad_abbrevs[_i].want, bad_abbrevs[_i].unwanted);
	free(bad);
	free(obj);
	scratch_free(dir);
}
END_TEST

/* Where to aim the first member's DW_AT_type, and what was found. */
struct ref_patch {
	uint32_t new_ref;	/* unit-relative; UINT32_MAX: just past the unit */
	uint64_t die_off;	/* out: the member DIE's offset */
	uint64_t ref_off;	/* out: the ref4's offset in .debug_info */
	uint64_t unit_end;	/* out: the first unit's end, unit-relative */
};

/* Finds the first member DIE with a DW_FORM_ref4 type, through libdw. */
static void find_member_ref(const char *obj, struct ref_patch *rp)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	int fd = open(obj, O_RDONLY);
	Dwarf *dw;

	ck_assert_int_ge(fd, 0);
	dw = dwarf_begin(fd, DWARF_C_READ);
	ck_assert_ptr_nonnull(dw);
	ck_assert_int_eq(dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL), 0);
	rp->unit_end = next - off;
	{
		Dwarf_Die cu, die, child;
		Dwarf_Attribute attr;

		ck_assert_ptr_nonnull(dwarf_offdie(dw, off + hsize, &cu));
		ck_assert_int_eq(dwarf_child(&cu, &die), 0);
		do {
			if (dwarf_tag(&die) != DW_TAG_structure_type ||
			    dwarf_child(&die, &child))
				continue;
			ck_assert_int_eq(dwarf_tag(&child), DW_TAG_member);
			ck_assert_ptr_nonnull(dwarf_attr(&child, DW_AT_type, &attr));
			ck_assert_int_eq(dwarf_whatform(&attr), DW_FORM_ref4);
			rp->die_off = dwarf_dieoffset(&child);
			rp->ref_off = rp->die_off +
				      ((const char *)attr.valp - (const char *)child.addr);
			break;
		} while (!dwarf_siblingof(&die, &die));
	}
	ck_assert_msg(rp->ref_off, "%s: no struct member found", obj);
	dwarf_end(dw);
	close(fd);
}

static void patch_member_ref(struct blob *file, void *arg)
{
	struct ref_patch *rp = arg;
	struct elf_section info;
	uint32_t ref = rp->new_ref == UINT32_MAX ? rp->unit_end : rp->new_ref;

	ck_assert(find_section(file, ".debug_info", &info));
	ck_assert_uint_lt(rp->ref_off + 4, info.size);
	memcpy((char *)file->data + info.offset + rp->ref_off, &ref, 4);
}

START_TEST(test_ref_outside_unit)
{
	/* _i 0: far past the section; 1: just past the unit, into the next */
	char *dir = scratch_dir(), *obj, *bad, die_at[64];
	struct ref_patch rp = { .new_ref = _i ? UINT32_MAX : 0x7ffffff0 };
	const char *const want[] = { "CU at 0x", die_at, NULL };

	if (_i) {
		/* two units in one relocatable object */
		obj = build_fixture(&fixtures[NR_FIXTURES - 1], "gcc",
				    &variants[0], dir);
	} else {
		obj = build_plain("packed_aligned.c", dir);
	}
	find_member_ref(obj, &rp);
	snprintf(die_at, sizeof(die_at), "DIE at 0x%llx",
		 (unsigned long long)rp.die_off);
	bad = patched_copy(obj, dir, "ref.o", patch_member_ref, &rp);
	assert_rejected(bad, dir, want, NULL);
	free(bad);
	free(obj);
	scratch_free(dir);
}
END_TEST

/*
 * _Complex long double (tests/fixtures/complex.c), _i: compiler. Either the
 * encoder takes the file and the kernel takes the output, or it refuses
 * cleanly with a message about the complex type (gcc names it "complex
 * long double", clang "complex") and where it is, not a bare libbpf error.
 */
START_TEST(test_complex)
{
	static const struct fixture f = { "complex", { "complex.c" }, LINK_NONE,
					  ENCODE_ARRAYS_AUTO };
	static const char *const want[] = { "DIE at 0x", "complex", NULL };
	static const char *const unwanted[] = { "cannot add BTF type", NULL };
	const char *cc = compilers[_i];
	char *dir = scratch_dir(), *bin = build_fixture(&f, cc, &variants[0], dir);
	char *out_path = path_join(dir, "probe.btf");
	struct cmd_result r = run_cli(NULL, bin, out_path, dir);

	if (WIFEXITED(r.status) && !WEXITSTATUS(r.status)) {
		struct blob out = read_file(out_path);
		struct btf *btf = btf__parse(out_path, NULL);
		int err;

		ck_assert_msg(btf != NULL, "%s: libbpf rejected the output", cc);
		btf__free(btf);
		err = kernel_load_btf(&out, NULL, 0);
		ck_assert_msg(!err || err == -EPERM || err == -ENOSYS,
			      "%s: the kernel rejected the output: %s", cc,
			      strerror(-err));
		blob_free(&out);
	} else {
		ck_assert_msg(!file_exists(out_path), "%s: a failed encode left %s",
			      cc, out_path);
		assert_rejected(bin, dir, want, unwanted);
	}
	cmd_result_deinit(&r);
	free(out_path);
	free(bin);
	scratch_free(dir);
}
END_TEST

/* ---- GCC's annotations (DW_TAG_GNU_annotation) ---------------------------- */

/*
 * GCC 16 writes btf_decl_tag and btf_type_tag as DW_AT_GNU_annotation
 * chains of DW_TAG_GNU_annotation DIEs; Debian 12's GCC writes none, so
 * tests/fixtures/gnu_annotations.s has them by hand, for the C source in
 * gnu_annotations.c. Assembled (defsym: extra -Wa,--defsym option or
 * NULL), it is an object of one unit.
 */
static char *build_gnu_annotations(const char *dir, const char *defsym)
{
	char *obj = path_join(dir, "gnu_annotations.o");
	char *argv[] = { "gcc", "-c", FIXTURE_DIR "/gnu_annotations.s", "-o",
			 obj, (char *)defsym, NULL };

	ck_assert_msg(file_exists(FIXTURE_DIR "/gnu_annotations.s"),
		      "%s/gnu_annotations.s not found: run the tests from the top of the tree",
		      FIXTURE_DIR);
	run_ok(argv, dir);
	return obj;
}

/*
 * GCC's shape gives the golden listing, the same bytes as clang's
 * DW_TAG_LLVM_annotation children for the same C source (in every
 * variant), and BTF libbpf and the kernel take.
 */
START_TEST(test_gnu_annotations)
{
	static const struct fixture gnu = { "gnu_annotations",
					    { "gnu_annotations.c" }, LINK_NONE,
					    ENCODE_ARRAYS_AUTO };
	static const size_t log_size = 1 << 16;
	char *dir = scratch_dir(), *obj = build_gnu_annotations(dir, NULL);
	char *raw_path = path_join(dir, "out.btf"), *got, *log, what[128];
	struct blob out = encode_canon(obj, &default_run), twin;
	struct btf *btf;
	size_t i;
	int err;

	got = listing_blob(&out, NULL);
	check_golden(&gnu, "as", got, "gnu_annotations.s");
	free(got);

	for (i = 0; i < NR_VARIANTS; i++) {
		char *bin = build_fixture(&gnu, "clang", &variants[i], dir);

		variant_text("clang", &variants[i], what, sizeof(what));
		twin = encode_canon(bin, &default_run);
		ck_assert_msg(blob_eq(&twin, &out),
			      "gnu_annotations.c (%s, DW_TAG_LLVM_annotation) and gnu_annotations.s (DW_TAG_GNU_annotation) give different BTF",
			      what);
		blob_free(&twin);
		free(bin);
	}

	write_blob(raw_path, &out);
	btf = btf__parse(raw_path, NULL);
	ck_assert_msg(btf != NULL, "gnu_annotations: libbpf btf__parse rejected it: %d",
		      -errno);
	btf__free(btf);
	log = malloc(log_size);
	ck_assert_ptr_nonnull(log);
	err = kernel_load_btf(&out, log, log_size);
	if (err == -EPERM || err == -ENOSYS)
		fprintf(stderr, "encode: gnu_annotations: kernel BTF load skipped: %s\n",
			strerror(-err));
	else
		ck_assert_msg(!err, "gnu_annotations: the kernel rejected it: %s\n%s",
			      strerror(-err), log);
	free(log);
	free(raw_path);
	blob_free(&out);
	free(obj);
	scratch_free(dir);
}
END_TEST

/* A chain of GCC annotations that loops: refused, naming the DIE. */
START_TEST(test_gnu_annotation_loop)
{
	static const char *const want[] = { "DIE at 0x", "chain that loops", NULL };
	char *dir = scratch_dir();
	char *obj = build_gnu_annotations(dir, "-Wa,--defsym,GNU_ANNOT_LOOP=1");

	assert_rejected(obj, dir, want, NULL);
	free(obj);
	scratch_free(dir);
}
END_TEST

/* ---- the suite ----------------------------------------------------------- */

static TCase *encode_tcase(const char *name)
{
	TCase *tc = tcase_create(name);

	tcase_set_timeout(tc, ENCODE_TIMEOUT);
	return tc;
}

/* ---- options: --format elf, --lang_exclude=rust -------------------------- */

static const struct fixture multi_exec = {
	"multi_cu", { "multi_cu_1.c", "multi_cu_2.c" }, LINK_EXEC,
	ENCODE_ARRAYS_AUTO,
};

/* Does the raw BTF in path have a type of this kind and name? */
static bool has_type(const char *path, const char *name, int kind)
{
	struct btf *btf = btf__parse(path, NULL);
	bool found;

	ck_assert_msg(btf != NULL, "%s: libbpf cannot parse it", path);
	found = btf__find_by_name_kind(btf, name, kind) > 0;
	btf__free(btf);
	return found;
}

/*
 * --format elf: a copy of the input with the BTF in a .BTF section; the
 * program still runs, and the section holds the same canonical bytes as
 * the raw output (sort is idempotent on it).
 */
START_TEST(test_format_elf)
{
	const char *const elf_args[] = { "--format", "elf", NULL };
	char *dir = scratch_dir(), *exe, *raw = NULL, *elf = NULL, *again = NULL;
	char *run_err, *run_argv[2], *sort_argv[6];
	struct cmd_result r;
	struct blob a, b;

	exe = build_fixture(&multi_exec, "gcc", &variants[1], dir);
	raw = path_join(dir, "out.btf");
	elf = path_join(dir, "out.elf");
	again = path_join(dir, "again.btf");
	r = run_cli(NULL, exe, raw, dir);
	ck_assert_msg(WIFEXITED(r.status) && !WEXITSTATUS(r.status),
		      "encode failed: %s", r.err_text);
	cmd_result_deinit(&r);
	r = run_cli(elf_args, exe, elf, dir);
	ck_assert_msg(WIFEXITED(r.status) && !WEXITSTATUS(r.status),
		      "encode --format elf failed: %s", r.err_text);
	cmd_result_deinit(&r);

	run_argv[0] = elf;
	run_argv[1] = NULL;
	chmod(elf, 0755);
	run_err = path_join(dir, "run.err");
	r = run_cmd(run_argv, run_err);
	free(run_err);
	ck_assert_msg(WIFEXITED(r.status),
		      "the ELF written by --format elf does not run (status 0x%x)",
		      r.status);
	cmd_result_deinit(&r);

	sort_argv[0] = getenv("BTFCANON");
	sort_argv[1] = "sort";
	sort_argv[2] = elf;
	sort_argv[3] = "-o";
	sort_argv[4] = again;
	sort_argv[5] = NULL;
	run_ok(sort_argv, dir);
	a = read_file(raw);
	b = read_file(again);
	ck_assert_msg(blob_eq(&a, &b),
		      "the .BTF of --format elf differs from the raw output");
	blob_free(&a);
	blob_free(&b);
	free(exe);
	free(raw);
	free(elf);
	free(again);
	scratch_free(dir);
}
END_TEST

/* Sets DW_AT_language of the unit named *unit_suffix in path to Rust. */
static void make_unit_rust(const char *path, const char *unit_suffix)
{
	int fd = open(path, O_RDWR);
	Dwarf *dw = fd >= 0 ? dwarf_begin(fd, DWARF_C_READ) : NULL;
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Die die;
	bool done = false;

	ck_assert_msg(dw != NULL, "%s: cannot read its DWARF", path);
	while (!done && !dwarf_get_units(dw, cu, &next, NULL, NULL, &die, NULL)) {
		const char *name = dwarf_diename(&die);
		size_t n = name ? strlen(name) : 0, m = strlen(unit_suffix);
		Elf *elf = dwarf_getelf(dw);
		Elf_Scn *scn = NULL;
		Dwarf_Attribute lang;
		size_t shstrndx;

		cu = next;
		if (n < m || strcmp(name + n - m, unit_suffix))
			continue;
		ck_assert(dwarf_attr(&die, DW_AT_language, &lang));
		ck_assert_int_eq(dwarf_whatform(&lang), DW_FORM_data1);
		ck_assert(!elf_getshdrstrndx(elf, &shstrndx));
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr shdr;
			Elf_Data *data;
			unsigned char rust = 0x1c;	/* DW_LANG_Rust */
			off_t at;

			gelf_getshdr(scn, &shdr);
			if (strcmp(elf_strptr(elf, shstrndx, shdr.sh_name),
				   ".debug_info"))
				continue;
			data = elf_getdata(scn, NULL);
			at = shdr.sh_offset +
			     ((const unsigned char *)lang.valp -
			      (const unsigned char *)data->d_buf);
			ck_assert_int_eq(pwrite(fd, &rust, 1, at), 1);
			done = true;
			break;
		}
	}
	ck_assert_msg(done, "%s: no unit named *%s", path, unit_suffix);
	dwarf_end(dw);
	close(fd);
}

/*
 * --lang_exclude=rust leaves out the units whose DW_AT_language is Rust
 * (here multi_cu_2.c, relabelled), and only with the option.
 */
START_TEST(test_lang_exclude)
{
	const char *const exclude[] = { "--lang_exclude=rust", NULL };
	char *dir = scratch_dir(), *exe, *with, *without;
	struct cmd_result r;

	exe = build_fixture(&multi_exec, "gcc", &variants[1], dir);
	make_unit_rust(exe, "multi_cu_2.c");
	with = path_join(dir, "with.btf");
	without = path_join(dir, "without.btf");
	r = run_cli(NULL, exe, with, dir);
	ck_assert_msg(WIFEXITED(r.status) && !WEXITSTATUS(r.status),
		      "encode failed: %s", r.err_text);
	cmd_result_deinit(&r);
	r = run_cli(exclude, exe, without, dir);
	ck_assert_msg(WIFEXITED(r.status) && !WEXITSTATUS(r.status),
		      "encode --lang_exclude=rust failed: %s", r.err_text);
	cmd_result_deinit(&r);
	ck_assert(has_type(with, "mc_user2", BTF_KIND_STRUCT));
	ck_assert_msg(!has_type(without, "mc_user2", BTF_KIND_STRUCT),
		      "--lang_exclude=rust kept the Rust unit's struct mc_user2");
	ck_assert(has_type(without, "mc_shared", BTF_KIND_STRUCT));
	free(exe);
	free(with);
	free(without);
	scratch_free(dir);
}
END_TEST

/* ---- the reduction: parallel loops and the merge --------------------------- */

struct count_tasks {
	int runs[1000];
	uint32_t fail_a, fail_b;	/* tasks that fail, or >= n */
};

static int count_task(void *ctx, uint32_t i)
{
	struct count_tasks *c = ctx;

	c->runs[i]++;
	if (i == c->fail_a)
		return -EIO;
	if (i == c->fail_b)
		return -EINVAL;
	return 0;
}

/* Every task once, at any -j; a failure reports the lowest failing task. */
START_TEST(test_par_for)
{
	static const unsigned int jobs[] = { 1, 2, 16, 64 };
	static const uint32_t sizes[] = { 0, 1, 5, 1000 };
	static struct count_tasks c;
	double task_sec[1000];
	size_t j, k;
	uint32_t i;
	int err;

	for (j = 0; j < sizeof(jobs) / sizeof(jobs[0]); j++) {
		for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			memset(&c, 0, sizeof(c));
			c.fail_a = c.fail_b = 1000;
			err = bc_par_for(jobs[j], sizes[k], count_task, &c, task_sec);
			ck_assert_int_eq(err, 0);
			for (i = 0; i < 1000; i++)
				ck_assert_msg(c.runs[i] == (i < sizes[k]),
					      "-j%u, %u tasks: task %u ran %d times",
					      jobs[j], sizes[k], i, c.runs[i]);
			ck_assert(bc_par_longest(task_sec, sizes[k]) >= 0);
		}
		memset(&c, 0, sizeof(c));
		c.fail_a = 7;
		c.fail_b = 500;
		err = bc_par_for(jobs[j], 1000, count_task, &c, NULL);
		ck_assert_msg(err == -EIO, "-j%u: %d, not task 7's -EIO", jobs[j], err);
		for (i = 0; i <= 7; i++)
			ck_assert_int_eq(c.runs[i], 1);
	}
}
END_TEST

/* Part k of the merge test: overlapping names, references across kinds. */
static struct btf *merge_test_part(int k)
{
	struct btf *btf = btf__new_empty();
	int id;

	ck_assert_ptr_nonnull(btf);
	switch (k) {
	case 0:
		btf__add_int(btf, "int", 4, BTF_INT_SIGNED);	/* [1] */
		id = btf__add_struct(btf, "s", 8);		/* [2] struct s { */
		btf__add_field(btf, "a", 1, 0, 0);		/*	int a; */
		btf__add_field(btf, "next", 3, 32, 0);		/*	struct s *next; } */
		btf__add_ptr(btf, id);				/* [3] struct s * */
		break;
	case 1:
		btf__add_int(btf, "long", 8, BTF_INT_SIGNED);	/* [1] */
		btf__add_int(btf, "int", 4, BTF_INT_SIGNED);	/* [2] */
		btf__add_typedef(btf, "t", 2);			/* [3] typedef int t */
		btf__add_func_proto(btf, 1);			/* [4] long (t x, int) */
		btf__add_func_param(btf, "x", 3);
		btf__add_func_param(btf, "", 2);
		btf__add_enum(btf, "e", 4);			/* [5] enum e { */
		btf__add_enum_value(btf, "E_A", 1);		/*	E_A = 1 } */
		break;
	case 2:						/* empty */
		break;
	default:
		btf__add_int(btf, "int", 4, BTF_INT_SIGNED);	/* [1] */
		btf__add_array(btf, 1, 1, 3);			/* [2] int[3] */
		btf__add_var(btf, "E_A", BTF_VAR_GLOBAL_ALLOCATED, 2);	/* [3] */
		btf__add_datasec(btf, ".data", 12);		/* [4] */
		btf__add_datasec_var_info(btf, 3, 0, 12);
		break;
	}
	return btf;
}

/*
 * merge_parts() at -j1, 2, 64 joins the parts as btf__add_btf did: the
 * same types in the same order, each string once; after btf__dedup the
 * bytes equal those of btf__add_btf's join after btf__dedup.
 */
START_TEST(test_merge_parts)
{
	static const unsigned int jobs[] = { 1, 2, 64 };
	enum { NR_PARTS = 4 };
	struct btf *ref = merge_test_part(0), *join;
	const void *ref_raw, *raw;
	uint32_t ref_size, size, n, k, off, len;
	struct chunk_part parts[NR_PARTS];
	struct merge_stats ms;
	const struct btf_header *hdr;
	const char *strs;
	size_t j;

	for (k = 1; k < NR_PARTS; k++) {
		struct btf *p = merge_test_part(k);

		ck_assert_int_ge(btf__add_btf(ref, p), 0);
		btf__free(p);
	}
	n = btf__type_cnt(ref);
	ck_assert_int_eq(btf__dedup(ref, NULL), 0);
	ref_raw = btf__raw_data(ref, &ref_size);
	ck_assert_ptr_nonnull(ref_raw);
	for (j = 0; j < sizeof(jobs) / sizeof(jobs[0]); j++) {
		for (k = 0; k < NR_PARTS; k++)
			ck_assert_int_eq(chunk_part_take(&parts[k], merge_test_part(k)), 0);
		ck_assert_int_eq(merge_parts(parts, NR_PARTS, jobs[j], &join, &ms), 0);
		ck_assert_uint_eq(btf__type_cnt(join), n);
		/* [4] is part 1's [1]; its typedef [6] names part 1's int [5] */
		ck_assert_str_eq(btf__name_by_offset(join, btf__type_by_id(join, 4)->name_off),
				 "long");
		ck_assert_uint_eq(btf__type_by_id(join, 6)->type, 5);
		/* part 2 is empty: part 3's array [10] holds its int [9] */
		ck_assert_uint_eq(btf_array(btf__type_by_id(join, 10))->type, 9);
		/* each text once in the join's strings */
		raw = btf__raw_data(join, &size);
		hdr = raw;
		strs = (const char *)raw + hdr->hdr_len + hdr->str_off;
		for (off = 0; off < hdr->str_len; off += len + 1) {
			uint32_t other;

			len = strlen(strs + off);
			for (other = off + len + 1; other < hdr->str_len;
			     other += strlen(strs + other) + 1)
				ck_assert_msg(strcmp(strs + off, strs + other),
					      "-j%u: '%s' twice in the join", jobs[j],
					      strs + off);
		}
		ck_assert_int_eq(btf__dedup(join, NULL), 0);
		raw = btf__raw_data(join, &size);
		ck_assert_msg(size == ref_size && !memcmp(raw, ref_raw, size),
			      "-j%u: dedup of the join differs from btf__add_btf's",
			      jobs[j]);
		btf__free(join);
	}
	btf__free(ref);
}
END_TEST

/* A part that is not BTF: -EINVAL, everything freed. */
START_TEST(test_merge_bad_part)
{
	struct chunk_part parts[2];
	struct merge_stats ms;
	struct btf *join;
	const void *raw;
	uint32_t size;

	ck_assert_int_eq(chunk_part_take(&parts[0], merge_test_part(0)), 0);
	ck_assert_int_eq(chunk_part_take(&parts[1], merge_test_part(1)), 0);
	/* libbpf keeps the raw bytes it wrote: the merge reads these */
	raw = btf__raw_data(parts[1].btf, &size);
	ck_assert_ptr_nonnull(raw);
	((uint32_t *)raw)[0] = 0;	/* the magic */
	ck_assert_int_eq(merge_parts(parts, 2, 2, &join, &ms), -EINVAL);
	ck_assert_ptr_null(join);
	chunk_part_free(&parts[0]);
	chunk_part_free(&parts[1]);
}
END_TEST

Suite *encode_suite(void)
{
	Suite *s = suite_create("encode");
	TCase *tc;

	tc = encode_tcase("golden");
	tcase_add_loop_test(tc, test_golden, 0, NR_FIXTURES * NR_COMPILERS);
	suite_add_tcase(s, tc);

	tc = encode_tcase("accept");
	tcase_add_loop_test(tc, test_accept, 0, NR_FIXTURES * NR_COMPILERS);
	suite_add_tcase(s, tc);

	tc = encode_tcase("type_units");
	tcase_add_loop_test(tc, test_type_units, 0, NR_FIXTURES * NR_COMPILERS);
	suite_add_tcase(s, tc);

	tc = encode_tcase("determinism");
	tcase_add_loop_test(tc, test_determinism, 0, NR_COMPILERS * 2);
	suite_add_tcase(s, tc);

	tc = encode_tcase("reduction");
	tcase_add_test(tc, test_par_for);
	tcase_add_test(tc, test_merge_parts);
	tcase_add_test(tc, test_merge_bad_part);
	suite_add_tcase(s, tc);

	tc = encode_tcase("split");
	tcase_add_loop_test(tc, test_split_over_base, 0, NR_COMPILERS * 2);
	suite_add_tcase(s, tc);

	tc = encode_tcase("bad_input");
	tcase_add_test(tc, test_not_elf);
	tcase_add_test(tc, test_stripped);
	tcase_add_test(tc, test_grouped_type_units);
	tcase_add_loop_test(tc, test_truncated, 0, 2);
	tcase_add_loop_test(tc, test_bad_abbrev, 0,
			    sizeof(bad_abbrevs) / sizeof(bad_abbrevs[0]));
	tcase_add_loop_test(tc, test_ref_outside_unit, 0, 2);
	suite_add_tcase(s, tc);

	tc = encode_tcase("gnu_annotations");
	tcase_add_test(tc, test_gnu_annotations);
	tcase_add_test(tc, test_gnu_annotation_loop);
	suite_add_tcase(s, tc);

	tc = encode_tcase("unsupported");
	tcase_add_loop_test(tc, test_complex, 0, NR_COMPILERS);
	suite_add_tcase(s, tc);

	tc = encode_tcase("options");
	tcase_add_test(tc, test_format_elf);
	tcase_add_test(tc, test_lang_exclude);
	suite_add_tcase(s, tc);
	return s;
}
