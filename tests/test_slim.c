// SPDX-License-Identifier: GPL-2.0-only
/*
 * The slim header (header/slim.c, header/c_names.c, `dump -f c --for`), in
 * the diff suite.
 *
 * Cases:
 *	slim_rules	bc_slim_select() on a small BTF built here: what is
 *			kept whole, what becomes a FWD, what is dropped
 *			(pointer-only structs, member names through two
 *			pointer hops and through a member the program does
 *			not name, anonymous pointees, prototypes' pointees,
 *			enumerators, same-name types, kfuncs and other
 *			functions)
 *	slim_names	the identifier reader: comments, literals, numbers,
 *			local includes (relative, in a loop, missing,
 *			vmlinux.h), <bpf/...> includes
 *	slim_compile	tests/fixtures/slim/ *.bpf.c, one per thing a program
 *			can need without leaving it in its object (and what
 *			libbpf's BPF_KPROBE needs), compiled by clang against
 *			the full and the slim header of (0)
 *			tests/data/dummy.btf (6.12.117's dummy.ko types) with
 *			two kfuncs added, (1) Debian's 6.12.117 amd64 and (2)
 *			6.1.192 arm64 packages (skipped when absent): the
 *			same code and data bytes, the same types in .BTF
 *			(canonical order), the same deps --json; the slim
 *			header a small part of the full one (under 5% on the
 *			real kernels)
 *	slim_includes	include directories (-I): "x" beside the including
 *			file first, then in each directory in order, <x> in
 *			each directory only, the first directory that holds a
 *			name wins, <bpf/...> and vmlinux.h under one not read,
 *			a directory that is missing or a file refused;
 *			tests/fixtures/slim/incdirs/prog.bpf.c, whose kernel
 *			names sit in "sub/a.h" and <proj/b.h> found only
 *			through -I: `dump -f c --for` without -I lacks them
 *			(and the program does not compile), with -I (either
 *			spelling) has them and the program compiles
 *	slim_objects	--for an object alone compiles the same object; the
 *			order of the --for files changes no byte
 *	slim_errors	unreadable sources, bad objects: the file named; an
 *			object libbpf 1.1 refuses at open is read
 */
#include <elf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../canon/order.h"
#include "../canon/strset.h"
#include "../archive/bpf_object.h"
#include "../header/c_names.h"
#include "../header/slim.h"
#include "suites.h"
#include "testutil.h"

#define FIXTURES "tests/fixtures/slim"
#define DEBIAN_6_12 \
	"/var/cache/btfcanon-tests/linux-image-6.12.117+deb12-cloud-amd64_6.12.117-1~deb12u1_amd64.deb"
#define DEBIAN_6_1_ARM64 \
	"/var/cache/btfcanon-tests/linux-image-6.1.0-56-cloud-arm64_6.1.192-2_arm64.deb"

static char scratch[64];

static void remove_scratch(void)
{
	char cmd[96];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", scratch);
	if (system(cmd))
		return;
}

/* A path in the scratch directory (made on first use), from a relative name. */
static const char *in_scratch(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static const char *in_scratch(const char *fmt, ...)
{
	static char path[256][256];
	static int next;
	char *p = path[next++ % 256], name[192];
	va_list ap;

	if (!scratch[0]) {
		snprintf(scratch, sizeof(scratch), "/tmp/btfcanon-slim-XXXXXX");
		ck_assert_ptr_nonnull(mkdtemp(scratch));
		atexit(remove_scratch);
	}
	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	/* a name already in the scratch stays as it is */
	if (name[0] == '/')
		snprintf(p, sizeof(path[0]), "%s", name);
	else
		snprintf(p, sizeof(path[0]), "%s/%s", scratch, name);
	return p;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fputs(text, f) >= 0, 1);
	fclose(f);
}

/* The last message a library call logged. */
struct last_msg {
	char text[512];
};

static void keep_last(void *ctx, enum bc_log_level level, const char *msg)
{
	(void)level;
	snprintf(((struct last_msg *)ctx)->text, sizeof(((struct last_msg *)ctx)->text),
		 "%s", msg);
}

/* ---- slim_rules ------------------------------------------------------- */

#define ADD(id, call) ck_assert_int_eq((call), (id))
#define ENTRY(call) ck_assert_int_eq((call), 0)

/* How many types of that name and kind out has. */
static int count_named(const struct btf *out, const char *name, int kind)
{
	uint32_t id;
	int n = 0;

	for (id = 1; id < btf__type_cnt(out); id++) {
		const struct btf_type *t = btf__type_by_id(out, id);

		if (btf_kind(t) == kind &&
		    !strcmp(btf__name_by_offset(out, t->name_off), name))
			n++;
	}
	return n;
}

START_TEST(test_rules)
{
	const char *src = in_scratch("rules.c");
	const char *const sources[] = { src };
	struct bc_slim_request req = { .sources = sources, .nr_sources = 1 };
	struct btf *full = btf__new_empty(), *out = NULL;
	const struct btf_type *t;

	ck_assert_ptr_nonnull(full);
	ADD(1, btf__add_int(full, "int", 4, BTF_INT_SIGNED));
	/* [2] struct inner { int x; } */
	ADD(2, btf__add_struct(full, "inner", 4));
	ENTRY(btf__add_field(full, "x", 1, 0, 0));
	/* [3] struct pointee { int member_used; struct deep *next; struct other *o; } */
	ADD(3, btf__add_struct(full, "pointee", 24));
	ENTRY(btf__add_field(full, "member_used", 1, 0, 0));
	ENTRY(btf__add_field(full, "next", 21, 64, 0));
	ENTRY(btf__add_field(full, "o", 6, 128, 0));
	/* [4] struct other { int y; } */
	ADD(4, btf__add_struct(full, "other", 4));
	ENTRY(btf__add_field(full, "y", 1, 0, 0));
	ADD(5, btf__add_ptr(full, 3));
	ADD(6, btf__add_ptr(full, 4));
	/* [7] struct outer { struct inner in; struct pointee *p; struct other *o; struct { int z; } *anon; } */
	ADD(7, btf__add_struct(full, "outer", 32));
	ENTRY(btf__add_field(full, "in", 2, 0, 0));
	ENTRY(btf__add_field(full, "p", 5, 64, 0));
	ENTRY(btf__add_field(full, "o", 6, 128, 0));
	ENTRY(btf__add_field(full, "anon", 9, 192, 0));
	/* [8] struct { int z; } */
	ADD(8, btf__add_struct(full, NULL, 4));
	ENTRY(btf__add_field(full, "z", 1, 0, 0));
	ADD(9, btf__add_ptr(full, 8));
	ADD(10, btf__add_typedef(full, "outer_t", 7));
	/* [11] enum e { E_ONE, E_TWO } */
	ADD(11, btf__add_enum(full, "e", 4));
	ENTRY(btf__add_enum_value(full, "E_ONE", 0));
	ENTRY(btf__add_enum_value(full, "E_TWO", 1));
	/* [12] struct unrelated { int q; } */
	ADD(12, btf__add_struct(full, "unrelated", 4));
	ENTRY(btf__add_field(full, "q", 1, 0, 0));
	/* [13], [14]: two struct dup; [15] struct holder { struct dup d; } */
	ADD(13, btf__add_struct(full, "dup", 4));
	ENTRY(btf__add_field(full, "a", 1, 0, 0));
	ADD(14, btf__add_struct(full, "dup", 8));
	ENTRY(btf__add_field(full, "a", 1, 0, 0));
	ENTRY(btf__add_field(full, "b", 1, 32, 0));
	ADD(15, btf__add_struct(full, "holder", 4));
	ENTRY(btf__add_field(full, "d", 13, 0, 0));
	/* [16] int (struct unrelated2 *), [17] FUNC bpf_kf, [18] its tag */
	ADD(16, btf__add_func_proto(full, 1));
	ENTRY(btf__add_func_param(full, "u", 20));
	ADD(17, btf__add_func(full, "bpf_kf", BTF_FUNC_STATIC, 16));
	ADD(18, btf__add_decl_tag(full, "bpf_kfunc", 17, -1));
	/* [19] struct unrelated2 { int r; } */
	ADD(19, btf__add_struct(full, "unrelated2", 4));
	ENTRY(btf__add_field(full, "r", 1, 0, 0));
	ADD(20, btf__add_ptr(full, 19));
	ADD(21, btf__add_ptr(full, 22));
	/* [22] struct deep { int deep_member; } */
	ADD(22, btf__add_struct(full, "deep", 4));
	ENTRY(btf__add_field(full, "deep_member", 1, 0, 0));
	/* [23] a FUNC without the kfunc tag: never kept */
	ADD(23, btf__add_func(full, "not_kfunc", BTF_FUNC_STATIC, 16));
	/*
	 * [24] struct far { int member_used; }, [25] a pointer to it and
	 * [26] struct holder2 { struct far *unnamed_ptr; }: the program
	 * names member_used but never unnamed_ptr, so far stays a FWD
	 */
	ADD(24, btf__add_struct(full, "far", 4));
	ENTRY(btf__add_field(full, "member_used", 1, 0, 0));
	ADD(25, btf__add_ptr(full, 24));
	ADD(26, btf__add_struct(full, "holder2", 8));
	ENTRY(btf__add_field(full, "unnamed_ptr", 25, 0, 0));
	/*
	 * [27] struct bpf_iter_task_vma, [28] FUNC bpf_iter_task_vma_new and
	 * [29] its tag: named by bpf_for_each(task_vma, ...) alone
	 */
	ADD(27, btf__add_struct(full, "bpf_iter_task_vma", 4));
	ENTRY(btf__add_field(full, "x", 1, 0, 0));
	ADD(28, btf__add_func(full, "bpf_iter_task_vma_new", BTF_FUNC_STATIC, 16));
	ADD(29, btf__add_decl_tag(full, "bpf_kfunc", 28, -1));
	/*
	 * [30], [31] two struct twin, pointed to by [34] struct holder3 {
	 * struct twin *t1; struct twin___2 *t2; } only: btf_dump would
	 * write both FWDs "struct twin", so both are whole
	 */
	ADD(30, btf__add_struct(full, "twin", 4));
	ENTRY(btf__add_field(full, "a", 1, 0, 0));
	ADD(31, btf__add_struct(full, "twin", 8));
	ENTRY(btf__add_field(full, "a", 1, 0, 0));
	ENTRY(btf__add_field(full, "b", 1, 32, 0));
	ADD(32, btf__add_ptr(full, 30));
	ADD(33, btf__add_ptr(full, 31));
	ADD(34, btf__add_struct(full, "holder3", 16));
	ENTRY(btf__add_field(full, "t1", 32, 0, 0));
	ENTRY(btf__add_field(full, "t2", 33, 64, 0));

	write_text(src,
		   "/* unrelated, other: in a comment */\n"
		   "outer_t *x; int v = x->p->member_used + x->p->next->deep_member;\n"
		   "int w = E_TWO; struct holder h; int k = bpf_kf(0) + not_kfunc();\n"
		   "struct holder2 h2; struct holder3 h3;\n"
		   "bpf_for_each(task_vma, vma, task, 0) {}\n"
		   "char *s = \"unrelated2 y\"; char c = 'y';\n");
	ck_assert_int_eq(bc_slim_btf(full, &req, &out, NULL), 0);

	/* the names, by value and through pointers whose members it names */
	ck_assert_int_eq(count_named(out, "outer_t", BTF_KIND_TYPEDEF), 1);
	ck_assert_int_eq(count_named(out, "outer", BTF_KIND_STRUCT), 1);
	ck_assert_int_eq(count_named(out, "inner", BTF_KIND_STRUCT), 1);
	ck_assert_int_eq(count_named(out, "pointee", BTF_KIND_STRUCT), 1);
	ck_assert_int_eq(count_named(out, "deep", BTF_KIND_STRUCT), 1);
	/* a member's pointee, none of its members named: a declaration */
	ck_assert_int_eq(count_named(out, "other", BTF_KIND_STRUCT), 0);
	ck_assert_int_eq(count_named(out, "other", BTF_KIND_FWD), 1);
	/* one whose members the program names, through an unnamed member */
	ck_assert_int_eq(count_named(out, "far", BTF_KIND_FWD), 1);
	ck_assert_int_eq(count_named(out, "holder2", BTF_KIND_STRUCT), 1);
	/* a prototype's pointee: the definition, as clang writes it */
	ck_assert_int_eq(count_named(out, "unrelated2", BTF_KIND_FWD), 0);
	ck_assert_int_eq(count_named(out, "unrelated2", BTF_KIND_STRUCT), 1);
	/* the enum of an enumerator; both structs of a name; the kfunc */
	ck_assert_int_eq(count_named(out, "e", BTF_KIND_ENUM), 1);
	ck_assert_int_eq(count_named(out, "dup", BTF_KIND_STRUCT), 2);
	ck_assert_int_eq(count_named(out, "holder", BTF_KIND_STRUCT), 1);
	ck_assert_int_eq(count_named(out, "bpf_kf", BTF_KIND_FUNC), 1);
	ck_assert_int_eq(count_named(out, "bpf_kfunc", BTF_KIND_DECL_TAG), 2);
	/* two structs of a name, pointed to only: whole, to keep ___2 */
	ck_assert_int_eq(count_named(out, "twin", BTF_KIND_STRUCT), 2);
	ck_assert_int_eq(count_named(out, "twin", BTF_KIND_FWD), 0);
	/* what bpf_for_each() pastes together */
	ck_assert_int_eq(count_named(out, "bpf_iter_task_vma", BTF_KIND_STRUCT), 1);
	ck_assert_int_eq(count_named(out, "bpf_iter_task_vma_new", BTF_KIND_FUNC), 1);
	/* never named, or a function that is no kfunc */
	ck_assert_int_eq(count_named(out, "unrelated", BTF_KIND_STRUCT), 0);
	ck_assert_int_eq(count_named(out, "not_kfunc", BTF_KIND_FUNC), 0);
	/* every type but those two (a FWD in place of other) */
	ck_assert_int_eq(btf__type_cnt(out), 34 - 2 + 1);
	/* layouts unchanged; the anonymous pointee kept whole */
	t = btf__type_by_id(out, btf__find_by_name_kind(out, "outer", BTF_KIND_STRUCT));
	ck_assert_int_eq(btf_vlen(t), 4);
	ck_assert_int_eq(t->size, 32);
	ck_assert_int_eq(btf_member_bit_offset(t, 3), 192);
	t = btf__type_by_id(out, btf_members(t)[3].type);
	ck_assert(btf_is_ptr(t));
	t = btf__type_by_id(out, t->type);
	ck_assert(btf_is_struct(t) && !t->name_off && btf_vlen(t) == 1);
	btf__free(out);
	btf__free(full);
}
END_TEST

/* ---- slim_names ------------------------------------------------------- */

START_TEST(test_names)
{
	static const char *const present[] = {
		"kept_ident", "M", "macro_member", "from_b", "from_c", "__u32",
		"pt_regs", "after_string", "after_char", "bpf_iter_num",
	};
	static const char *const absent[] = {
		"in_comment", "in_line_comment", "continued_comment",
		"in_string", "x", "ULL", "f", "e5", "from_vmlinux", "bpf_helpers",
		"h", "missing", "bpf_iter_kept_ident",
	};
	struct bc_strset names;
	size_t i;

	ck_assert_int_eq(test_sh("mkdir -p %s", in_scratch("names/sub")), 0);
	write_text(in_scratch("names/a.c"),
		   "#include \"sub/b.h\"\n"
		   "#include \"vmlinux.h\"\n"
		   "#include \"missing.h\"\n"
		   "#include \"/dev/zero\"\n"
		   "#  include <bpf/bpf_helpers.h>\n"
		   "/* in_comment\n in_comment */ int kept_ident;\n"
		   "// in_line_comment \\\n continued_comment\n"
		   "#define M(a) a->macro_member\n"
		   "char *s = \"in_string \\\" in_string\"; int after_string;\n"
		   "char c = 'x'; int after_char;\n"
		   "long n = 0x1fULL + 1e5 + 1.5f;\n");
	write_text(in_scratch("names/sub/b.h"),
		   "#include \"c.h\"\nint from_b;\n");
	/* a loop back to b.h: read once */
	write_text(in_scratch("names/sub/c.h"),
		   "#include \"b.h\"\nint from_c;\n");
	write_text(in_scratch("names/vmlinux.h"), "int from_vmlinux;\n");
	ck_assert_int_eq(bc_strset_init(&names, NULL, 0), 0);
	ck_assert_int_eq(bc_c_names_read(in_scratch("names/a.c"), NULL, 0, &names, NULL), 0);
	/* no bpf_for_each: no iterator names */
	ck_assert_int_eq(bc_c_names_add_iterators(&names), 0);
	for (i = 0; i < sizeof(present) / sizeof(present[0]); i++)
		ck_assert_msg(bc_strset_find(&names, present[i]) >= 0,
			      "'%s' not read", present[i]);
	for (i = 0; i < sizeof(absent) / sizeof(absent[0]); i++)
		ck_assert_msg(bc_strset_find(&names, absent[i]) < 0,
			      "'%s' read", absent[i]);
	ck_assert_int_ge(bc_strset_add(&names, "bpf_for_each"), 0);
	ck_assert_int_eq(bc_c_names_add_iterators(&names), 0);
	ck_assert_int_ge(bc_strset_find(&names, "bpf_iter_kept_ident"), 0);
	ck_assert_int_ge(bc_strset_find(&names, "bpf_iter_kept_ident_destroy"), 0);
	ck_assert_int_lt(bc_strset_find(&names, "bpf_iter_bpf_iter_num"), 0);
	bc_strset_deinit(&names);
}
END_TEST

/* ---- slim_compile ----------------------------------------------------- */

static const struct program {
	const char *name;	/* tests/fixtures/slim/NAME.bpf.c */
	bool relocates;		/* has CO-RE relocations */
} programs[] = {
	{ "chain", true },
	{ "enumval", false },
	{ "sizeof", true },
	{ "typedef", false },
	{ "kfunc", false },
	{ "kprobe", true },
};

struct kernel_case {
	const char *name;	/* directory in the scratch */
	const char *path;	/* NULL: the committed fixture, built here */
	const char *arch;	/* __TARGET_ARCH_ARCH */
	bool kfuncs;		/* declares bpf_cgroup_from_id and _release */
	unsigned int max_percent;	/* slim lines, of the full header's */
};

static const struct kernel_case kernels[] = {
	{ "dummy", NULL, "x86", true, 20 },
	{ "debian-6.12.117", DEBIAN_6_12, "x86", false, 5 },
	{ "debian-6.1.192-arm64", DEBIAN_6_1_ARM64, "arm64", false, 5 },
};

/*
 * tests/data/dummy.btf with the kfuncs kfunc.bpf.c calls, as a kernel
 * built with decl_tag_kfuncs has them:
 *	struct cgroup *bpf_cgroup_from_id(u64 cgid);
 *	void bpf_cgroup_release(struct cgroup *cgrp);
 */
static const char *dummy_with_kfuncs(void)
{
	const char *path = in_scratch("dummy-kfuncs.btf");
	struct btf *btf;
	struct blob raw;
	int u64, cgroup, ptr, proto, func;

	if (!access(path, R_OK))
		return path;
	btf = btf__parse_raw("tests/data/dummy.btf");
	ck_assert_ptr_nonnull(btf);
	u64 = btf__find_by_name_kind(btf, "u64", BTF_KIND_TYPEDEF);
	cgroup = btf__find_by_name_kind(btf, "cgroup", BTF_KIND_STRUCT);
	if (cgroup < 0)
		cgroup = btf__add_fwd(btf, "cgroup", BTF_FWD_STRUCT);
	ck_assert_int_gt(u64, 0);
	ck_assert_int_gt(cgroup, 0);
	ptr = btf__add_ptr(btf, cgroup);
	proto = btf__add_func_proto(btf, ptr);
	ENTRY(btf__add_func_param(btf, "cgid", u64));
	func = btf__add_func(btf, "bpf_cgroup_from_id", BTF_FUNC_STATIC, proto);
	ck_assert_int_gt(btf__add_decl_tag(btf, "bpf_kfunc", func, -1), 0);
	proto = btf__add_func_proto(btf, 0);
	ENTRY(btf__add_func_param(btf, "cgrp", ptr));
	func = btf__add_func(btf, "bpf_cgroup_release", BTF_FUNC_STATIC, proto);
	ck_assert_int_gt(btf__add_decl_tag(btf, "bpf_kfunc", func, -1), 0);
	raw = blob_from_libbpf(btf);
	blob_write_or_fail(&raw, path);
	blob_free(&raw);
	btf__free(btf);
	return path;
}

static size_t count_lines(const char *path)
{
	struct blob text = read_file(path);
	size_t n = 0, i;

	ck_assert_msg(text.data, "%s missing", path);
	for (i = 0; i < text.size; i++)
		n += ((const char *)text.data)[i] == '\n';
	blob_free(&text);
	return n;
}

/* The binary, as an absolute path (make check gives a relative one). */
static const char *cli(void)
{
	static char abs_path[4096];
	const char *path = getenv("BTFCANON");

	ck_assert_msg(path, "BTFCANON names the binary (make check sets it)");
	if (!abs_path[0])
		ck_assert_ptr_nonnull(realpath(path, abs_path));
	return abs_path;
}

/* The ELF section headers of file, checked to lie inside it. */
static const Elf64_Shdr *section_headers(const struct blob *file, uint32_t *nr,
					 const char **names)
{
	const Elf64_Ehdr *eh = file->data;
	const Elf64_Shdr *sh;

	ck_assert_uint_ge(file->size, sizeof(*eh));
	ck_assert_uint_le(eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(*sh), file->size);
	sh = (const void *)((const char *)file->data + eh->e_shoff);
	*names = (const char *)file->data + sh[eh->e_shstrndx].sh_offset;
	*nr = eh->e_shnum;
	return sh;
}

/*
 * The two objects hold the same bytes in every section but the BTF and
 * the DWARF (which names the header's lines) and the symbol and string
 * tables that go with it: the code, maps, license, strings. Returns how
 * many sections it compared.
 */
static uint32_t assert_same_sections(const char *a_path, const char *b_path)
{
	struct blob a = read_file(a_path), b = read_file(b_path);
	const char *a_names, *b_names;
	const Elf64_Shdr *a_sh, *b_sh;
	uint32_t a_nr, b_nr, i, j, compared = 0;

	ck_assert_msg(a.data && b.data, "%s or %s missing", a_path, b_path);
	a_sh = section_headers(&a, &a_nr, &a_names);
	b_sh = section_headers(&b, &b_nr, &b_names);
	for (i = 0; i < a_nr; i++) {
		const char *name = a_names + a_sh[i].sh_name;

		if (a_sh[i].sh_type == SHT_NOBITS || a_sh[i].sh_type == SHT_NULL ||
		    a_sh[i].sh_type == SHT_SYMTAB || a_sh[i].sh_type == SHT_STRTAB ||
		    strstr(name, ".debug_") || strstr(name, ".BTF") ||
		    !strcmp(name, ".llvm_addrsig"))
			continue;
		for (j = 0; j < b_nr; j++)
			if (!strcmp(b_names + b_sh[j].sh_name, name))
				break;
		ck_assert_msg(j < b_nr, "%s has no section %s", b_path, name);
		ck_assert_msg(a_sh[i].sh_size == b_sh[j].sh_size &&
			      !memcmp((const char *)a.data + a_sh[i].sh_offset,
				      (const char *)b.data + b_sh[j].sh_offset,
				      a_sh[i].sh_size),
			      "section %s differs between %s and %s", name,
			      a_path, b_path);
		compared++;
	}
	blob_free(&a);
	blob_free(&b);
	return compared;
}

/*
 * The listing of an object's .BTF in canonical order, as the object
 * reader has it (its kfunc externs in .ksyms, as FUNCs, made acceptable
 * to the parser). Returns a malloc'd string.
 */
static char *canonical_listing(const char *path)
{
	struct bc_bpf_object obj = { 0 };
	struct blob raw, canon;
	char *text;

	ck_assert_msg(!bc_bpf_object_load(path, &obj, NULL), "%s does not load", path);
	raw.data = (void *)obj.btf->data;
	raw.size = obj.btf->size;
	canon = canon_blob(&raw, NULL, BC_ORDER_KIND, NULL);
	text = listing_blob(&canon, NULL);
	blob_free(&canon);
	bc_bpf_object_deinit(&obj);
	return text;
}

/*
 * The objects dir/full/obj.o and dir/slim/obj.o are the same program:
 * the same code and data (assert_same_sections()); the same types in
 * their .BTF, whose order may differ where the slim header declares a
 * struct the full one defines (LLVM appends the FWDs it makes of the
 * latter, and writes the former where it meets them), so compared in
 * canonical order; and `deps --json` against kernel
 * gives the same report, every relocation the same on the same root
 * type and access path, with the same value.
 */
/*
 * The kernel deps reads: for a package, its vmlinux alone, sorted into the
 * scratch directory once (deps would read the package's thousand modules
 * at every call, and the objects here need none of them).
 */
static const char *deps_kernel(const char *kernel)
{
	const char *dot = strrchr(kernel, '.'), *base = strrchr(kernel, '/');
	const char *vmlinux;

	if (!dot || (strcmp(dot, ".deb") && strcmp(dot, ".rpm")))
		return kernel;
	vmlinux = in_scratch("%s.vmlinux.btf", base ? base + 1 : kernel);
	if (access(vmlinux, R_OK))
		ck_assert_int_eq(test_sh("%s sort %s -o %s", cli(), kernel, vmlinux), 0);
	return vmlinux;
}

static void assert_same_objects(const char *dir, const char *kernel,
				bool relocates)
{
	static const char *const sides[] = { "full", "slim" };
	size_t i;

	kernel = strdup(deps_kernel(kernel));
	ck_assert_ptr_nonnull(kernel);

	ck_assert_uint_ge(assert_same_sections(in_scratch("%s/full/obj.o", dir),
					       in_scratch("%s/slim/obj.o", dir)), 3);
	char *btf[2];

	for (i = 0; i < 2; i++) {
		btf[i] = canonical_listing(in_scratch("%s/%s/obj.o", dir, sides[i]));
		ck_assert_int_lt(test_sh("cd %s/%s && %s deps --json obj.o --kernel %s > deps.json",
				    dir, sides[i], cli(), kernel), 2);
	}
	ck_assert_msg(!strcmp(btf[0], btf[1]), "%s: the objects' BTF differs", dir);
	free(btf[0]);
	free(btf[1]);
	ck_assert_msg(!test_sh("cmp -s %s/full/deps.json %s/slim/deps.json", dir, dir),
		      "%s: deps --json differs", dir);
	if (relocates)
		ck_assert_msg(!test_sh("grep -qF '\"relocations\":[{' %s/full/deps.json", dir),
			      "%s: no relocation in deps --json", dir);
	free((char *)kernel);
}

/* clang -target bpf of fixture program for arch against the vmlinux.h in dir. */
static void compile(const char *program, const char *arch, const char *dir,
		    const char *object)
{
	ck_assert_msg(!test_sh("clang -target bpf -D__TARGET_ARCH_%s -O2 -g "
			  "-Werror=implicit-function-declaration -I%s -c -o %s "
			  FIXTURES "/%s.bpf.c", arch, dir, object, program),
		      "%s.bpf.c does not compile against %s/vmlinux.h", program, dir);
}

/*
 * Compiles program against the headers kdir/full/vmlinux.h and
 * pdir/slim/vmlinux.h into pdir/full/obj.o and pdir/slim/obj.o.
 */
static void compile_both(const char *program, const char *arch, const char *kdir,
			 const char *pdir)
{
	ck_assert_int_eq(test_sh("mkdir -p %s/full %s/slim", pdir, pdir), 0);
	compile(program, arch, in_scratch("%s/full", kdir),
		in_scratch("%s/full/obj.o", pdir));
	compile(program, arch, in_scratch("%s/slim", pdir),
		in_scratch("%s/slim/obj.o", pdir));
}

START_TEST(test_compile)
{
	const struct kernel_case *k = &kernels[_i];
	const char *kernel = k->path ? k->path : strdup(dummy_with_kfuncs());
	size_t full_lines, i;

	if (access(kernel, R_OK)) {
		fprintf(stderr, "slim: %s absent, skipped\n", kernel);
		return;
	}
	ck_assert_int_eq(test_sh("mkdir -p %s", in_scratch("%s/full", k->name)), 0);
	ck_assert_int_eq(test_sh("%s dump -f c %s -o %s", cli(), kernel,
			    in_scratch("%s/full/vmlinux.h", k->name)), 0);
	full_lines = count_lines(in_scratch("%s/full/vmlinux.h", k->name));
	for (i = 0; i < sizeof(programs) / sizeof(programs[0]); i++) {
		const char *p = programs[i].name;
		char *pdir = strdup(in_scratch("%s/%s", k->name, p));
		size_t slim_lines;

		if (!strcmp(p, "kfunc") && !k->kfuncs) {
			free(pdir);
			continue;
		}
		ck_assert_int_eq(test_sh("mkdir -p %s/slim", pdir), 0);
		ck_assert_int_eq(test_sh("%s dump -f c --for " FIXTURES "/%s.bpf.c %s -o %s/slim/vmlinux.h",
				    cli(), p, kernel, pdir), 0);
		compile_both(p, k->arch, k->name, pdir);
		assert_same_objects(pdir, kernel, programs[i].relocates);
		slim_lines = count_lines(in_scratch("%s/slim/vmlinux.h", pdir));
		fprintf(stderr, "slim: %s %s.bpf.c: %zu of %zu lines (%.2f%%)\n",
			k->name, p, slim_lines, full_lines,
			100.0 * slim_lines / full_lines);
		ck_assert_msg(slim_lines * 100 < full_lines * k->max_percent,
			      "%s: the slim header of %s has %zu of %zu lines",
			      k->name, p, slim_lines, full_lines);
		free(pdir);
	}
	if (!k->path)
		free((char *)kernel);
}
END_TEST

/* ---- slim_includes ---------------------------------------------------- */

/* The names of inc/prog.c read with the nr include directories dirs. */
static void read_with_dirs(const char *const *dirs, size_t nr,
			   struct bc_strset *names)
{
	ck_assert_int_eq(bc_strset_init(names, NULL, 0), 0);
	ck_assert_int_eq(bc_c_names_read(in_scratch("inc/src/prog.c"), dirs, nr,
					 names, NULL), 0);
}

static void assert_has(const struct bc_strset *names, const char *name, bool has)
{
	ck_assert_msg((bc_strset_find(names, name) >= 0) == has, "'%s' %s", name,
		      has ? "not read" : "read");
}

START_TEST(test_include_dirs)
{
	const char *one = in_scratch("inc/one"), *two = in_scratch("inc/two");
	const char *const dirs[] = { one, two }, *const reversed[] = { two, one };
	struct bc_strset names;

	ck_assert_int_eq(test_sh("mkdir -p %s %s/sub %s/bpf %s/proj",
			    in_scratch("inc/src"), one, one, two), 0);
	write_text(in_scratch("inc/src/prog.c"),
		   "#include \"sub/a.h\"\n"	/* only in one/ */
		   "#include <proj/b.h>\n"	/* only in two/ */
		   "#include \"local.h\"\n"	/* beside prog.c and in one/ */
		   "#include <beside.h>\n"	/* beside prog.c only */
		   "#include \"both.h\"\n"	/* in one/ and two/ */
		   "#include <bpf/bpf_helpers.h>\n"	/* in one/ */
		   "#include <vmlinux.h>\n"	/* in one/ */
		   "int from_prog;\n");
	write_text(in_scratch("inc/one/sub/a.h"),
		   "#include \"a_next.h\"\nint from_a;\n");
	/* beside a.h, which was found through a directory */
	write_text(in_scratch("inc/one/sub/a_next.h"), "int from_a_next;\n");
	write_text(in_scratch("inc/two/proj/b.h"), "int from_b;\n");
	write_text(in_scratch("inc/src/local.h"), "int local_beside;\n");
	write_text(in_scratch("inc/one/local.h"), "int local_in_one;\n");
	write_text(in_scratch("inc/src/beside.h"), "int angle_beside;\n");
	write_text(in_scratch("inc/one/both.h"), "int both_in_one;\n");
	write_text(in_scratch("inc/two/both.h"), "int both_in_two;\n");
	write_text(in_scratch("inc/one/bpf/bpf_helpers.h"), "int libbpf_copy;\n");
	write_text(in_scratch("inc/one/vmlinux.h"), "int from_vmlinux;\n");

	/* without directories: what the compiler finds without -I */
	read_with_dirs(NULL, 0, &names);
	assert_has(&names, "from_prog", true);
	assert_has(&names, "local_beside", true);
	assert_has(&names, "from_a", false);
	assert_has(&names, "from_b", false);
	assert_has(&names, "both_in_one", false);
	assert_has(&names, "angle_beside", false);
	bc_strset_deinit(&names);

	read_with_dirs(dirs, 2, &names);
	assert_has(&names, "from_a", true);
	assert_has(&names, "from_a_next", true);
	assert_has(&names, "from_b", true);
	assert_has(&names, "local_beside", true);	/* beside comes first */
	assert_has(&names, "local_in_one", false);
	assert_has(&names, "angle_beside", false);	/* <> never looks beside */
	assert_has(&names, "both_in_one", true);	/* the first directory wins */
	assert_has(&names, "both_in_two", false);
	assert_has(&names, "libbpf_copy", false);	/* <bpf/...>: libbpf's */
	assert_has(&names, "pt_regs", true);		/* ... summed up instead */
	assert_has(&names, "from_vmlinux", false);
	bc_strset_deinit(&names);

	read_with_dirs(reversed, 2, &names);
	assert_has(&names, "both_in_two", true);
	assert_has(&names, "both_in_one", false);
	assert_has(&names, "from_a", true);
	assert_has(&names, "from_b", true);
	bc_strset_deinit(&names);
}
END_TEST

/* bc_slim_names_read() with the include directory dir refuses it. */
static void assert_dir_refused(const char *dir, int want)
{
	const char *const sources[] = { in_scratch("inc/src/prog.c") };
	const char *const dirs[] = { dir };
	struct bc_slim_request req = {
		.sources = sources, .nr_sources = 1,
		.include_dirs = dirs, .nr_include_dirs = 1,
	};
	struct last_msg msg = { "" };
	struct bc_log log = { keep_last, &msg };
	struct bc_slim_names *names = NULL;

	ck_assert_int_eq(bc_slim_names_read(&req, &names, &log), want);
	ck_assert_ptr_null(names);
	ck_assert_msg(strstr(msg.text, dir) && strstr(msg.text, "-I"),
		      "message '%s' does not name %s", msg.text, dir);
}

START_TEST(test_include_dirs_refused)
{
	ck_assert_int_eq(test_sh("mkdir -p %s", in_scratch("inc/src")), 0);
	write_text(in_scratch("inc/src/prog.c"), "int x;\n");
	assert_dir_refused(in_scratch("inc/missing"), -ENOENT);
	assert_dir_refused(in_scratch("inc/src/prog.c"), -ENOTDIR);
}
END_TEST

#define INCDIRS FIXTURES "/incdirs"

/*
 * `dump -f c [dirs] --for prog.bpf.c` of the dummy kernel into dir, and
 * whether prog.bpf.c compiles against it (with -I include -I common, as
 * its build would).
 */
static bool incdirs_compiles(const char *kernel, const char *dirs, const char *dir)
{
	ck_assert_int_eq(test_sh("mkdir -p %s && %s dump -f c %s --for " INCDIRS
			    "/prog.bpf.c %s -o %s/vmlinux.h",
			    dir, cli(), dirs, kernel, dir), 0);
	return !test_sh("clang -target bpf -D__TARGET_ARCH_x86 -O2 -g -I%s -I" INCDIRS
			"/include -I" INCDIRS "/common -c -o %s/obj.o " INCDIRS
			"/prog.bpf.c 2> %s/clang.err", dir, dir, dir);
}

START_TEST(test_include_dirs_compile)
{
	char *kernel = strdup(dummy_with_kfuncs());
	const char *without = in_scratch("incdirs/none"), *with = in_scratch("incdirs/dirs");
	const char *joined = in_scratch("incdirs/joined");

	ck_assert_msg(!incdirs_compiles(kernel, "", without),
		      "prog.bpf.c compiles against a header made without -I");
	ck_assert_int_ne(test_sh("grep -q 'PIDTYPE_TGID' %s/vmlinux.h", without), 0);
	ck_assert_int_ne(test_sh("grep -q '^struct file {' %s/vmlinux.h", without), 0);
	ck_assert_msg(incdirs_compiles(kernel, "-I " INCDIRS "/include -I " INCDIRS "/common",
				       with),
		      "prog.bpf.c does not compile against its slim header with -I");
	ck_assert_int_eq(test_sh("grep -q 'PIDTYPE_TGID' %s/vmlinux.h", with), 0);
	ck_assert_int_eq(test_sh("grep -q '^struct file {' %s/vmlinux.h", with), 0);
	/* cc's joined spelling, after --for's file: the same header */
	ck_assert_int_eq(test_sh("mkdir -p %s && %s dump -f c --for " INCDIRS "/prog.bpf.c "
			    "-I" INCDIRS "/include -I" INCDIRS "/common %s -o %s/vmlinux.h",
			    joined, cli(), kernel, joined), 0);
	ck_assert_int_eq(test_sh("cmp -s %s/vmlinux.h %s/vmlinux.h", with, joined), 0);
	/* --check prints the command that writes it, -I included */
	ck_assert_int_eq(test_sh("%s dump -f c -I " INCDIRS "/include --for " INCDIRS
			    "/prog.bpf.c --check %s/vmlinux.h %s > %s/check.out",
			    cli(), with, kernel, with), 1);
	ck_assert_int_eq(test_sh("grep -qF '`btfcanon dump -f c -I " INCDIRS "/include --for "
			    INCDIRS "/prog.bpf.c %s` writes' %s/check.out", kernel, with), 0);
	free(kernel);
}
END_TEST

/* ---- slim_objects ----------------------------------------------------- */

START_TEST(test_objects)
{
	char *kernel = strdup(dummy_with_kfuncs());
	size_t i;

	ck_assert_int_eq(test_sh("mkdir -p %s", in_scratch("obj/full")), 0);
	ck_assert_int_eq(test_sh("%s dump -f c %s -o %s", cli(), kernel,
			    in_scratch("obj/full/vmlinux.h")), 0);
	/* the object alone: its BTF and relocations name what it reads */
	for (i = 0; i < 2; i++) {
		const char *p = i ? "kfunc" : "chain";
		char *pdir = strdup(in_scratch("obj/%s", p));

		ck_assert_int_eq(test_sh("mkdir -p %s/full %s/slim", pdir, pdir), 0);
		compile(p, "x86", in_scratch("obj/full"), in_scratch("%s/full/obj.o", pdir));
		ck_assert_int_eq(test_sh("%s dump -f c --for %s/full/obj.o %s -o %s/slim/vmlinux.h",
				    cli(), pdir, kernel, pdir), 0);
		compile(p, "x86", in_scratch("%s/slim", pdir), in_scratch("%s/slim/obj.o", pdir));
		assert_same_objects(pdir, kernel, !i);
		free(pdir);
	}
	/* sources and an object, in two orders: the same bytes */
	ck_assert_int_eq(test_sh("mkdir -p %s %s", in_scratch("obj/a/slim"),
			    in_scratch("obj/b/slim")), 0);
	ck_assert_int_eq(test_sh("%s dump -f c --for " FIXTURES "/typedef.bpf.c --for %s "
			    "--for " FIXTURES "/enumval.bpf.c %s -o %s",
			    cli(), in_scratch("obj/chain/full/obj.o"), kernel,
			    in_scratch("obj/a/slim/vmlinux.h")), 0);
	ck_assert_int_eq(test_sh("%s dump -f c --for " FIXTURES "/enumval.bpf.c --for "
			    FIXTURES "/typedef.bpf.c --for %s %s -o %s",
			    cli(), in_scratch("obj/chain/full/obj.o"), kernel,
			    in_scratch("obj/b/slim/vmlinux.h")), 0);
	ck_assert_int_eq(test_sh("cmp -s %s %s", in_scratch("obj/a/slim/vmlinux.h"),
			    in_scratch("obj/b/slim/vmlinux.h")), 0);
	/* and that header builds all three as the full one does */
	for (i = 0; i < 3; i++) {
		static const char *const both[] = { "typedef", "enumval", "chain" };
		char *pdir = strdup(in_scratch("obj/both-%s", both[i]));

		ck_assert_int_eq(test_sh("mkdir -p %s/full %s/slim", pdir, pdir), 0);
		compile(both[i], "x86", in_scratch("obj/full"), in_scratch("%s/full/obj.o", pdir));
		compile(both[i], "x86", in_scratch("obj/a/slim"), in_scratch("%s/slim/obj.o", pdir));
		assert_same_objects(pdir, kernel, i == 2);
		free(pdir);
	}
	free(kernel);
}
END_TEST

/* ---- slim_errors ------------------------------------------------------ */

/* want: the errno, or 0 for any. */
static void assert_refused(const char *source, const char *object, int want,
			   const char *named)
{
	const char *const sources[] = { source }, *const objects[] = { object };
	struct bc_slim_request req = {
		.sources = sources, .nr_sources = source != NULL,
		.objects = objects, .nr_objects = object != NULL,
	};
	struct last_msg msg = { "" };
	struct bc_log log = { keep_last, &msg };
	struct bc_slim_names *names = NULL;

	if (want)
		ck_assert_int_eq(bc_slim_names_read(&req, &names, &log), want);
	else
		ck_assert_int_lt(bc_slim_names_read(&req, &names, &log), 0);
	ck_assert_ptr_null(names);
	ck_assert_msg(strstr(msg.text, named), "message '%s' does not name %s",
		      msg.text, named);
}

START_TEST(test_errors)
{
	const char *text = in_scratch("not-an-object.o");
	const char *host = in_scratch("host.o");

	assert_refused(in_scratch("missing.c"), NULL, -ENOENT, "missing.c");
	ck_assert_int_eq(test_sh("printf 'int\\0b;' > %s", in_scratch("nul.c")), 0);
	assert_refused(in_scratch("nul.c"), NULL, -EINVAL, "nul.c");
	write_text(text, "\177ELF but nothing more");
	assert_refused(NULL, text, 0, "not-an-object.o");
	/* an x86 object: no BPF */
	write_text(in_scratch("host.c"), "int host(void) { return 1; }\n");
	ck_assert_int_eq(test_sh("cc -g -c -o %s %s", host, in_scratch("host.c")), 0);
	assert_refused(NULL, host, 0, "host.o");
	assert_refused(NULL, in_scratch("missing.o"), -ENOENT, "missing.o");
	/* an object libbpf 1.1 refuses at open still names its types */
	{
		const char *noopen = in_scratch("noopen.bpf.o");
		struct bc_slim_request req = { .objects = &noopen, .nr_objects = 1 };
		struct bc_slim_names *names = NULL;

		ck_assert_int_eq(test_sh("clang -target bpf -O2 -g -Wno-implicit-function-declaration "
				    "-c -o %s tests/fixtures/deps/noopen.bpf.c", noopen), 0);
		ck_assert_int_eq(bc_slim_names_read(&req, &names, NULL), 0);
		bc_slim_names_free(names);
	}
	/* a directory given as a source */
	ck_assert_int_eq(test_sh("mkdir -p %s", in_scratch("adir.c")), 0);
	assert_refused(in_scratch("adir.c"), NULL, -EISDIR, "adir.c");
}
END_TEST

void slim_add_cases(Suite *s)
{
	TCase *tc;

	tc = tcase_create("slim_rules");
	tcase_add_test(tc, test_rules);
	suite_add_tcase(s, tc);

	tc = tcase_create("slim_names");
	tcase_add_test(tc, test_names);
	suite_add_tcase(s, tc);

	tc = tcase_create("slim_compile");
	tcase_add_loop_test(tc, test_compile, 0, sizeof(kernels) / sizeof(kernels[0]));
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);

	tc = tcase_create("slim_includes");
	tcase_add_test(tc, test_include_dirs);
	tcase_add_test(tc, test_include_dirs_refused);
	tcase_add_test(tc, test_include_dirs_compile);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);

	tc = tcase_create("slim_objects");
	tcase_add_test(tc, test_objects);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);

	tc = tcase_create("slim_errors");
	tcase_add_test(tc, test_errors);
	suite_add_tcase(s, tc);
}
