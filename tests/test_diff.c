// SPDX-License-Identifier: GPL-2.0-only
/*
 * The diff and dump views (diff/).
 *
 * Golden tests: each case builds an old and a new BTF with libbpf (ids in
 * the comments, checked by ADD), diffs them and compares the text report
 * with a golden written by hand, one case per kind of change. Identity
 * tests: diff(X, X) and diff(X, sort(permute(X))) report nothing, on a
 * small BTF with every kind of entity and on the running kernel's BTF.
 * Dump tests: the raw listing and the C header of a small BTF.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../diff/btf_diff.h"
#include "../header/dump.h"
#include "../archive/input.h"
#include "suites.h"
#include "testutil.h"

#define ADD(id, call) ck_assert_int_eq((call), (id))
#define ENTRY(call) ck_assert_int_eq((call), 0)

static struct btf *new_btf(void)
{
	struct btf *btf = btf__new_empty();

	ck_assert_ptr_nonnull(btf);
	return btf;
}

static struct bc_btf *take_parsed(struct btf *btf)
{
	struct blob raw = blob_from_libbpf(btf);
	struct bc_btf *parsed = parse_or_fail(&raw, NULL);

	btf__free(btf);
	blob_free(&raw);
	return parsed;
}

/* The text report of diff(old, new), "" when equal. */
static char *diff_parsed(const struct bc_btf *old, const struct bc_btf *new)
{
	struct bc_diff_print_opts opts = { .old_name = "old", .new_name = "new" };
	struct bc_diff diff;
	struct bc_text out;

	bc_text_init(&out);
	ck_assert_int_eq(bc_diff_run(old, new, &diff, NULL), 0);
	ck_assert_int_eq(bc_diff_print_text(&diff, &opts, &out), 0);
	bc_diff_deinit(&diff);
	return out.len ? bc_text_take(&out) : strdup("");
}

static void assert_text(const char *got, const char *golden)
{
	if (strcmp(got, golden))
		fprintf(stderr, "--- got:\n%s--- want:\n%s---\n", got, golden);
	ck_assert_msg(!strcmp(got, golden), "text differs from the golden");
}

static void assert_diff(struct btf *old, struct btf *new, const char *golden)
{
	struct bc_btf *o = take_parsed(old), *n = take_parsed(new);
	char *got = diff_parsed(o, n);

	assert_text(got, golden);
	free(got);
	bc_btf_free(o);
	bc_btf_free(n);
}

/* [1] int, [2] char, [3] long, [4] unsigned int */
static void add_scalars(struct btf *btf)
{
	ADD(1, btf__add_int(btf, "int", 4, BTF_INT_SIGNED));
	ADD(2, btf__add_int(btf, "char", 1, BTF_INT_CHAR | BTF_INT_SIGNED));
	ADD(3, btf__add_int(btf, "long", 8, BTF_INT_SIGNED));
	ADD(4, btf__add_int(btf, "unsigned int", 4, 0));
}

START_TEST(test_members)
{
	struct btf *old = new_btf(), *new = new_btf();

	add_scalars(old);
	/* [5] struct s { int a; char b; unsigned int f:3; int gone; } */
	ADD(5, btf__add_struct(old, "s", 12));
	ENTRY(btf__add_field(old, "a", 1, 0, 0));
	ENTRY(btf__add_field(old, "b", 2, 32, 0));
	ENTRY(btf__add_field(old, "f", 4, 40, 3));
	ENTRY(btf__add_field(old, "gone", 1, 64, 0));

	add_scalars(new);
	/* [5] struct s { long a; char b; unsigned int f:4; int added; } */
	ADD(5, btf__add_struct(new, "s", 16));
	ENTRY(btf__add_field(new, "a", 3, 0, 0));
	ENTRY(btf__add_field(new, "b", 2, 64, 0));
	ENTRY(btf__add_field(new, "f", 4, 72, 4));
	ENTRY(btf__add_field(new, "added", 1, 96, 0));

	assert_diff(old, new,
		"--- old\n+++ new\n"
		"~ struct s\n"
		"    ~ size 12 -> 16\n"
		"    - member gone: type int, offset 8\n"
		"    + member added: type int, offset 12\n"
		"    ~ member a: type int -> long\n"
		"    ~ member b: offset 4 -> 8\n"
		"    ~ member f: offset 5 -> 9, bits 3 -> 4\n");
}
END_TEST

/* struct outer { int x; union { int u1; ... }; struct { char c; } named; } */
static void add_outer(struct btf *btf, bool changed)
{
	add_scalars(btf);
	/* [5] union { int u1; long u2; [long u3;] } */
	ADD(5, btf__add_union(btf, NULL, 8));
	ENTRY(btf__add_field(btf, "u1", 1, 0, 0));
	ENTRY(btf__add_field(btf, "u2", 3, 0, 0));
	if (changed)
		ENTRY(btf__add_field(btf, "u3", 3, 0, 0));
	/* [6] struct { char c; } or { int c; } */
	ADD(6, btf__add_struct(btf, NULL, changed ? 4 : 1));
	ENTRY(btf__add_field(btf, "c", changed ? 1 : 2, 0, 0));
	/* [7] struct outer */
	ADD(7, btf__add_struct(btf, "outer", 24));
	ENTRY(btf__add_field(btf, "x", 1, 0, 0));
	ENTRY(btf__add_field(btf, NULL, 5, 64, 0));
	ENTRY(btf__add_field(btf, "named", 6, 128, 0));
}

START_TEST(test_anonymous_members)
{
	struct btf *old = new_btf(), *new = new_btf();

	add_outer(old, false);
	add_outer(new, true);
	assert_diff(old, new,
		"--- old\n+++ new\n"
		"~ struct outer::<anon union at offset 8>\n"
		"    + member u3: type long, offset 0\n"
		"~ struct outer::named\n"
		"    ~ size 1 -> 4\n"
		"    ~ member c: type char -> int\n");
}
END_TEST

START_TEST(test_enums)
{
	struct btf *old = new_btf(), *new = new_btf();

	/* [1] enum e { A = 0, B = 1, C = 2 }, [2] enum { X_1, X_2 } */
	ADD(1, btf__add_enum(old, "e", 4));
	ENTRY(btf__add_enum_value(old, "A", 0));
	ENTRY(btf__add_enum_value(old, "B", 1));
	ENTRY(btf__add_enum_value(old, "C", 2));
	ADD(2, btf__add_enum(old, NULL, 4));
	ENTRY(btf__add_enum_value(old, "X_1", 1));
	ENTRY(btf__add_enum_value(old, "X_2", 2));

	/* [1] enum { X_0, X_1, X_2 }, [2] enum e { A = 0, B = 5, D = 3 } */
	ADD(1, btf__add_enum(new, NULL, 4));
	ENTRY(btf__add_enum_value(new, "X_0", 0));
	ENTRY(btf__add_enum_value(new, "X_1", 1));
	ENTRY(btf__add_enum_value(new, "X_2", 2));
	ADD(2, btf__add_enum(new, "e", 4));
	ENTRY(btf__add_enum_value(new, "A", 0));
	ENTRY(btf__add_enum_value(new, "B", 5));
	ENTRY(btf__add_enum_value(new, "D", 3));

	assert_diff(old, new,
		"--- old\n+++ new\n"
		"~ enum <anon X_0>\n"
		"    + enumerator X_0: value 0\n"
		"~ enum e\n"
		"    ~ enumerator B: value 1 -> 5\n"
		"    - enumerator C: value 2\n"
		"    + enumerator D: value 3\n");
}
END_TEST

/* int f(int a[, long b]); int v or long v; typedef int t or long t */
static void add_func_var(struct btf *btf, bool changed)
{
	add_scalars(btf);
	/* [5] int (int a[, long b]) */
	ADD(5, btf__add_func_proto(btf, 1));
	ENTRY(btf__add_func_param(btf, "a", 1));
	if (changed)
		ENTRY(btf__add_func_param(btf, "b", 3));
	/* [6] int f(...) */
	ADD(6, btf__add_func(btf, "f", changed ? BTF_FUNC_STATIC : BTF_FUNC_GLOBAL, 5));
	/* [7] v */
	ADD(7, btf__add_var(btf, "v", BTF_VAR_GLOBAL_ALLOCATED, changed ? 3 : 1));
	/* [8] typedef t */
	ADD(8, btf__add_typedef(btf, "t", changed ? 3 : 1));
	/* [9] DECL_TAG on f, only when changed */
	if (changed)
		ADD(9, btf__add_decl_tag(btf, "bpf_kfunc", 6, -1));
}

START_TEST(test_funcs_vars_typedefs)
{
	struct btf *old = new_btf(), *new = new_btf();

	add_func_var(old, false);
	add_func_var(new, true);
	assert_diff(old, new,
		"--- old\n+++ new\n"
		"~ typedef t\n"
		"    ~ type int -> long\n"
		"~ func f\n"
		"    ~ linkage global -> static\n"
		"    ~ prototype int f(int a) -> int f(int a, long b)\n"
		"    + tag bpf_kfunc\n"
		"~ var v\n"
		"    ~ type int v -> long v\n");
}
END_TEST

START_TEST(test_added_removed)
{
	struct btf *old = new_btf(), *new = new_btf();

	add_scalars(old);
	/* [5] struct gone { int a; }, [6] struct later (declaration) */
	ADD(5, btf__add_struct(old, "gone", 4));
	ENTRY(btf__add_field(old, "a", 1, 0, 0));
	ADD(6, btf__add_fwd(old, "later", BTF_FWD_STRUCT));

	add_scalars(new);
	/* [5] struct later { long x; }, [6] union fresh { int a; char b; } */
	ADD(5, btf__add_struct(new, "later", 8));
	ENTRY(btf__add_field(new, "x", 3, 0, 0));
	ADD(6, btf__add_union(new, "fresh", 4));
	ENTRY(btf__add_field(new, "a", 1, 0, 0));
	ENTRY(btf__add_field(new, "b", 2, 0, 0));

	assert_diff(old, new,
		"--- old\n+++ new\n"
		"+ union fresh  (size 4, 2 members)\n"
		"- struct gone  (size 4, 1 member)\n"
		"~ struct later\n"
		"    ~ definition declaration only -> defined\n");
}
END_TEST

/* One of everything, for the identity tests. */
static struct blob rich_blob(void)
{
	struct btf *btf = new_btf();
	struct blob raw;

	add_outer(btf, false);
	/* [8] int (int a) */
	ADD(8, btf__add_func_proto(btf, 1));
	ENTRY(btf__add_func_param(btf, "a", 1));
	ADD(9, btf__add_func(btf, "f", BTF_FUNC_GLOBAL, 8));
	ADD(10, btf__add_var(btf, "v", BTF_VAR_GLOBAL_ALLOCATED, 7));
	ADD(11, btf__add_datasec(btf, ".data..percpu", 24));
	ENTRY(btf__add_datasec_var_info(btf, 10, 0, 24));
	ADD(12, btf__add_enum(btf, NULL, 4));
	ENTRY(btf__add_enum_value(btf, "K_A", 1));
	ADD(13, btf__add_typedef(btf, "outer_t", 7));
	ADD(14, btf__add_ptr(btf, 13));
	ADD(15, btf__add_const(btf, 14));
	ADD(16, btf__add_decl_tag(btf, "tag", 9, 0));
	ADD(17, btf__add_float(btf, "double", 8));
	ADD(18, btf__add_fwd(btf, "opaque", BTF_FWD_UNION));
	/* [19] struct outer again, identical: sort merges it */
	ADD(19, btf__add_struct(btf, "outer", 24));
	ENTRY(btf__add_field(btf, "x", 1, 0, 0));
	ENTRY(btf__add_field(btf, NULL, 5, 64, 0));
	ENTRY(btf__add_field(btf, "named", 6, 128, 0));
	raw = blob_from_libbpf(btf);
	btf__free(btf);
	return raw;
}

static void assert_no_diff_under_permutation(const struct blob *raw)
{
	struct bc_btf *x = parse_or_fail(raw, NULL);
	char *got = diff_parsed(x, x);
	unsigned int seed;

	ck_assert_msg(!*got, "diff(X, X) is not empty:\n%s", got);
	free(got);
	for (seed = 1; seed <= 3; seed++) {
		struct blob permuted = permute_blob(raw, NULL, seed);
		struct blob sorted = canon_blob(&permuted, NULL, BC_ORDER_KIND, NULL);
		struct bc_btf *y = parse_or_fail(&sorted, NULL);

		got = diff_parsed(x, y);
		ck_assert_msg(!*got, "diff(X, sort(permute(X, %u))) is not empty:\n%s",
			      seed, got);
		free(got);
		bc_btf_free(y);
		blob_free(&sorted);
		blob_free(&permuted);
	}
	bc_btf_free(x);
}

START_TEST(test_identity_small)
{
	struct blob raw = rich_blob();

	assert_no_diff_under_permutation(&raw);
	blob_free(&raw);
}
END_TEST

START_TEST(test_identity_vmlinux)
{
	const char *path = getenv("BTFCANON_VMLINUX");
	struct blob raw = read_file(path ? path : "/sys/kernel/btf/vmlinux");

	if (!raw.size) {
		fprintf(stderr, "diff: skipping the vmlinux identity test: no %s\n",
			path ? path : "/sys/kernel/btf/vmlinux");
		return;
	}
	assert_no_diff_under_permutation(&raw);
	blob_free(&raw);
}
END_TEST

static char *dump_text(const struct blob *raw, int format)
{
	struct blob sorted = canon_blob(raw, NULL, BC_ORDER_KIND, NULL);
	struct bc_input in = { .path = "test" };
	struct btf *lbase, *lbtf;
	struct bc_text out;

	in.btf = parse_or_fail(&sorted, NULL);
	bc_text_init(&out);
	if (format == 'r') {
		ck_assert_int_eq(bc_dump_raw(in.btf, &out), 0);
	} else if (format == 'j') {
		ck_assert_int_eq(bc_dump_json(in.btf, &out), 0);
	} else {
		ck_assert_int_eq(bc_input_to_libbpf(&in, &lbase, &lbtf, NULL), 0);
		ck_assert_int_eq(bc_dump_c(in.btf, lbtf, &out, NULL), 0);
		btf__free(lbtf);
	}
	bc_input_deinit(&in);
	blob_free(&sorted);
	return bc_text_take(&out);
}

/* The text of every header around the types: bpftool 7.8's. */
#define C_PROLOGUE \
		"#ifndef __VMLINUX_H__\n" \
		"#define __VMLINUX_H__\n" \
		"\n" \
		"#ifndef BPF_NO_PRESERVE_ACCESS_INDEX\n" \
		"#pragma clang attribute push (__attribute__((preserve_access_index)), apply_to = record)\n" \
		"#endif\n" \
		"\n" \
		"#ifndef __ksym\n" \
		"#define __ksym __attribute__((section(\".ksyms\")))\n" \
		"#endif\n" \
		"\n" \
		"#ifndef __weak\n" \
		"#define __weak __attribute__((weak))\n" \
		"#endif\n" \
		"\n" \
		"#ifndef __bpf_fastcall\n" \
		"#if __has_attribute(bpf_fastcall)\n" \
		"#define __bpf_fastcall __attribute__((bpf_fastcall))\n" \
		"#else\n" \
		"#define __bpf_fastcall\n" \
		"#endif\n" \
		"#endif\n" \
		"\n"
#define C_EPILOGUE \
		"#ifndef BPF_NO_PRESERVE_ACCESS_INDEX\n" \
		"#pragma clang attribute pop\n" \
		"#endif\n" \
		"\n" \
		"#endif /* __VMLINUX_H__ */\n"

/*
 * The order of dump -f c: [2] struct dep is held by value by [5] struct
 * zz_leaf (through [4] typedef dep_t), so both come first, by name; the
 * types nobody holds follow by stripe, then name: [15] tcp_stats (family
 * "tcp", stripe 0), [6] a_leaf ("a", 4), then [5] zz_leaf and [7]
 * zz_other (both "zz", 5). [14] typedef void (*cb_t)(struct opaque_arg *)
 * is a typedef of a pointer, written before the structs, and names struct
 * opaque_arg in a parameter list: that one is declared up front. [12] is
 * an "address_space(1)" type tag with kflag set, an attribute, written as
 * bpftool 7.8 writes it.
 */
static struct blob order_blob(void)
{
	struct btf *btf = new_btf();
	struct btf_type *tag;
	struct blob raw;

	ADD(1, btf__add_int(btf, "int", 4, BTF_INT_SIGNED));
	ADD(2, btf__add_struct(btf, "dep", 4));		/* [2] struct dep { */
	ENTRY(btf__add_field(btf, "x", 1, 0, 0));
	ADD(3, btf__add_ptr(btf, 2));
	ADD(4, btf__add_typedef(btf, "dep_t", 2));
	ADD(5, btf__add_struct(btf, "zz_leaf", 16));	/* [5] struct zz_leaf { */
	ENTRY(btf__add_field(btf, "d", 4, 0, 0));
	ENTRY(btf__add_field(btf, "p", 13, 64, 0));
	ADD(6, btf__add_struct(btf, "a_leaf", 8));	/* [6] struct a_leaf { */
	ENTRY(btf__add_field(btf, "d", 3, 0, 0));
	ADD(7, btf__add_struct(btf, "zz_other", 4));	/* [7] struct zz_other { */
	ENTRY(btf__add_field(btf, "y", 1, 0, 0));
	ADD(8, btf__add_fwd(btf, "opaque_arg", BTF_FWD_STRUCT));
	ADD(9, btf__add_ptr(btf, 8));
	ADD(10, btf__add_func_proto(btf, 0));		/* [10] void (struct opaque_arg *) */
	ENTRY(btf__add_func_param(btf, "", 9));
	ADD(11, btf__add_ptr(btf, 10));
	ADD(12, btf__add_type_tag(btf, "address_space(1)", 1));
	ADD(13, btf__add_ptr(btf, 12));
	ADD(14, btf__add_typedef(btf, "cb_t", 11));
	ADD(15, btf__add_struct(btf, "tcp_stats", 4));	/* [15] struct tcp_stats { */
	ENTRY(btf__add_field(btf, "n", 1, 0, 0));
	/* libbpf 1.1.2 cannot add an attribute: set the kflag by hand */
	tag = (struct btf_type *)btf__type_by_id(btf, 12);
	tag->info |= 1u << 31;
	raw = blob_from_libbpf(btf);
	btf__free(btf);
	return raw;
}

START_TEST(test_dump_c_order)
{
	struct blob raw = order_blob();
	char *got = dump_text(&raw, 'c');

	assert_text(got,
		C_PROLOGUE
		"struct opaque_arg;\n"
		"\n"
		"typedef void (*cb_t)(struct opaque_arg *);\n"
		"\n"
		"struct dep {\n"
		"\tint x;\n"
		"};\n"
		"\n"
		"typedef struct dep dep_t;\n"
		"\n"
		"struct tcp_stats {\n"
		"\tint n;\n"
		"};\n"
		"\n"
		"struct a_leaf {\n"
		"\tstruct dep *d;\n"
		"};\n"
		"\n"
		"struct zz_leaf {\n"
		"\tdep_t d;\n"
		"\tint __attribute__((address_space(1))) *p;\n"
		"};\n"
		"\n"
		"struct zz_other {\n"
		"\tint y;\n"
		"};\n"
		"\n"
		"\n"
		"/* BPF kfuncs */\n"
		"#ifndef BPF_NO_KFUNC_PROTOTYPES\n"
		"#endif\n"
		"\n"
		C_EPILOGUE);
	free(got);
	blob_free(&raw);
}
END_TEST

/*
 * Which types leave their stripe: only those something before their place
 * needs. [3] struct zz_holder (family "zz", stripe 5) holds [2] struct
 * late_x ("late", 1) by value, but comes after it: late_x stays in its
 * stripe. [5] struct early_x ("early", 4) holds [4] struct mid_x ("mid",
 * 5), which would be pulled forward: it goes to the group before the
 * stripes. [9] struct cfg ("cfg", 1) names [7] typedef ops_t ("ops", 3)
 * behind a pointer, which btf_dump writes before cfg: ops_t goes to that
 * group too, with its [6] struct ops. [10] struct b ("b", 5) holds
 * zz_holder, of its own stripe: zz_holder moves only within the stripe,
 * just before b.
 */
static struct blob pull_blob(void)
{
	struct btf *btf = new_btf();
	struct blob raw;

	ADD(1, btf__add_int(btf, "int", 4, BTF_INT_SIGNED));
	ADD(2, btf__add_struct(btf, "late_x", 4));	/* [2] struct late_x { */
	ENTRY(btf__add_field(btf, "v", 1, 0, 0));
	ADD(3, btf__add_struct(btf, "zz_holder", 4));	/* [3] struct zz_holder { */
	ENTRY(btf__add_field(btf, "l", 2, 0, 0));
	ADD(4, btf__add_struct(btf, "mid_x", 4));	/* [4] struct mid_x { */
	ENTRY(btf__add_field(btf, "v", 1, 0, 0));
	ADD(5, btf__add_struct(btf, "early_x", 4));	/* [5] struct early_x { */
	ENTRY(btf__add_field(btf, "m", 4, 0, 0));
	ADD(6, btf__add_struct(btf, "ops", 4));		/* [6] struct ops { */
	ENTRY(btf__add_field(btf, "v", 1, 0, 0));
	ADD(7, btf__add_typedef(btf, "ops_t", 6));
	ADD(8, btf__add_ptr(btf, 7));
	ADD(9, btf__add_struct(btf, "cfg", 8));		/* [9] struct cfg { */
	ENTRY(btf__add_field(btf, "o", 8, 0, 0));
	ADD(10, btf__add_struct(btf, "b", 4));		/* [10] struct b { */
	ENTRY(btf__add_field(btf, "h", 3, 0, 0));
	raw = blob_from_libbpf(btf);
	btf__free(btf);
	return raw;
}

START_TEST(test_dump_c_pull)
{
	struct blob raw = pull_blob();
	char *got = dump_text(&raw, 'c');

	assert_text(got,
		C_PROLOGUE
		"struct mid_x {\n"
		"\tint v;\n"
		"};\n"
		"\n"
		"struct ops {\n"
		"\tint v;\n"
		"};\n"
		"\n"
		"typedef struct ops ops_t;\n"
		"\n"
		"struct cfg {\n"
		"\tops_t *o;\n"
		"};\n"
		"\n"
		"struct late_x {\n"
		"\tint v;\n"
		"};\n"
		"\n"
		"struct early_x {\n"
		"\tstruct mid_x m;\n"
		"};\n"
		"\n"
		"struct zz_holder {\n"
		"\tstruct late_x l;\n"
		"};\n"
		"\n"
		"struct b {\n"
		"\tstruct zz_holder h;\n"
		"};\n"
		"\n"
		"\n"
		"/* BPF kfuncs */\n"
		"#ifndef BPF_NO_KFUNC_PROTOTYPES\n"
		"#endif\n"
		"\n"
		C_EPILOGUE);
	free(got);
	blob_free(&raw);
}
END_TEST

/*
 * Plain names by use (header/dump_c.c): among same-named types the one
 * most used is spelled plainly. Canonical order puts [4] typedef u8 of
 * unsigned char before [3] typedef u8 of __u8 (an INT ranks before a
 * TYPEDEF), yet [3] is used three times ([6] twice, once through the
 * pointer [5]) and [4] once ([7]): [3] is u8, [4] u8___2, as in the
 * kernel's BTF and bpftool's header. Likewise of the two struct console:
 * [9] { char a; } comes first in canonical order but is held once, [8]
 * { int z; } is pointed to twice ([10] through [11]).
 */
START_TEST(test_dump_c_plain_by_use)
{
	struct btf *btf = new_btf();
	struct blob raw;
	char *got;

	ADD(1, btf__add_int(btf, "unsigned char", 1, 0));
	ADD(2, btf__add_typedef(btf, "__u8", 1));
	ADD(3, btf__add_typedef(btf, "u8", 2));		/* the kernel's */
	ADD(4, btf__add_typedef(btf, "u8", 1));		/* some drivers' */
	ADD(5, btf__add_ptr(btf, 3));
	ADD(6, btf__add_struct(btf, "kern", 16));	/* [6] struct kern { */
	ENTRY(btf__add_field(btf, "a", 3, 0, 0));
	ENTRY(btf__add_field(btf, "b", 3, 8, 0));
	ENTRY(btf__add_field(btf, "p", 5, 64, 0));
	ADD(7, btf__add_struct(btf, "drv", 1));		/* [7] struct drv { */
	ENTRY(btf__add_field(btf, "c", 4, 0, 0));
	ADD(8, btf__add_struct(btf, "console", 4));	/* [8] struct console { */
	ENTRY(btf__add_field(btf, "z", 12, 0, 0));
	ADD(9, btf__add_struct(btf, "console", 4));	/* [9] struct console { */
	ENTRY(btf__add_field(btf, "a", 1, 0, 0));
	ADD(10, btf__add_ptr(btf, 8));
	ADD(11, btf__add_struct(btf, "users", 24));	/* [11] struct users { */
	ENTRY(btf__add_field(btf, "c1", 10, 0, 0));
	ENTRY(btf__add_field(btf, "c2", 10, 64, 0));
	ENTRY(btf__add_field(btf, "other", 9, 128, 0));
	ADD(12, btf__add_int(btf, "int", 4, BTF_INT_SIGNED));
	raw = blob_from_libbpf(btf);
	btf__free(btf);
	got = dump_text(&raw, 'c');
	ck_assert_msg(strstr(got, "\ntypedef __u8 u8;\n") &&
		      strstr(got, "\ntypedef unsigned char u8___2;\n") &&
		      strstr(got, "\tu8 a;\n\tu8 b;\n\tu8 *p;\n") &&
		      strstr(got, "\tu8___2 c;\n"),
		      "the most used u8 is not the plain one:\n%s", got);
	ck_assert_msg(strstr(got, "struct console {\n\tint z;\n") &&
		      strstr(got, "struct console___2 {\n\tunsigned char a;\n"),
		      "the most used struct console is not the plain one:\n%s", got);
	free(got);
	blob_free(&raw);
}
END_TEST

/*
 * [2] an anonymous struct holding [3] a pointer to itself, held through
 * that pointer by [4] struct holder: C cannot write it (an anonymous
 * struct is written inline, forever). The walk for the order ends (each
 * anonymous type is visited once a walk) and btf_dump refuses the loop:
 * an error, not a hang.
 */
START_TEST(test_dump_c_anon_loop)
{
	struct btf *btf = new_btf();
	struct bc_input in = { .path = "test" };
	struct btf *lbase, *lbtf;
	struct blob raw, sorted;
	struct bc_text out;

	ADD(1, btf__add_int(btf, "int", 4, BTF_INT_SIGNED));
	ADD(2, btf__add_struct(btf, NULL, 8));		/* [2] struct { */
	ENTRY(btf__add_field(btf, "p", 3, 0, 0));
	ADD(3, btf__add_ptr(btf, 2));
	ADD(4, btf__add_struct(btf, "holder", 8));	/* [4] struct holder { */
	ENTRY(btf__add_field(btf, "a", 3, 0, 0));
	raw = blob_from_libbpf(btf);
	btf__free(btf);
	sorted = canon_blob(&raw, NULL, BC_ORDER_KIND, NULL);
	in.btf = parse_or_fail(&sorted, NULL);
	bc_text_init(&out);
	ck_assert_int_eq(bc_input_to_libbpf(&in, &lbase, &lbtf, NULL), 0);
	ck_assert_int_lt(bc_dump_c(in.btf, lbtf, &out, NULL), 0);
	btf__free(lbtf);
	bc_text_deinit(&out);
	bc_input_deinit(&in);
	blob_free(&sorted);
	blob_free(&raw);
}
END_TEST

START_TEST(test_dump_raw)
{
	struct btf *btf = new_btf();
	struct blob raw;
	char *got;

	add_func_var(btf, true);
	raw = blob_from_libbpf(btf);
	btf__free(btf);
	got = dump_text(&raw, 'r');
	assert_text(got,
		"[1] INT 'char' size=1 bits_offset=0 nr_bits=8 encoding=UNKN\n"
		"[2] INT 'int' size=4 bits_offset=0 nr_bits=32 encoding=SIGNED\n"
		"[3] INT 'long' size=8 bits_offset=0 nr_bits=64 encoding=SIGNED\n"
		"[4] INT 'unsigned int' size=4 bits_offset=0 nr_bits=32 encoding=(none)\n"
		"[5] TYPEDEF 't' type_id=3\n"
		"[6] FUNC 'f' type_id=7 linkage=static\n"
		"[7] FUNC_PROTO '(anon)' ret_type_id=2 vlen=2\n"
		"\t'a' type_id=2\n"
		"\t'b' type_id=3\n"
		"[8] VAR 'v' type_id=3, linkage=global\n"
		"[9] DECL_TAG 'bpf_kfunc' type_id=6 component_idx=-1\n");
	free(got);
	got = dump_text(&raw, 'j');
	assert_text(got,
		"{\"types\":[\n"
		"{\"id\":1,\"kind\":\"INT\",\"name\":\"char\",\"size\":1,\"bits_offset\":0,\"nr_bits\":8,\"encoding\":\"UNKN\"},\n"
		"{\"id\":2,\"kind\":\"INT\",\"name\":\"int\",\"size\":4,\"bits_offset\":0,\"nr_bits\":32,\"encoding\":\"SIGNED\"},\n"
		"{\"id\":3,\"kind\":\"INT\",\"name\":\"long\",\"size\":8,\"bits_offset\":0,\"nr_bits\":64,\"encoding\":\"SIGNED\"},\n"
		"{\"id\":4,\"kind\":\"INT\",\"name\":\"unsigned int\",\"size\":4,\"bits_offset\":0,\"nr_bits\":32,\"encoding\":\"(none)\"},\n"
		"{\"id\":5,\"kind\":\"TYPEDEF\",\"name\":\"t\",\"type_id\":3},\n"
		"{\"id\":6,\"kind\":\"FUNC\",\"name\":\"f\",\"type_id\":7,\"linkage\":\"static\"},\n"
		"{\"id\":7,\"kind\":\"FUNC_PROTO\",\"name\":\"(anon)\",\"ret_type_id\":2,\"vlen\":2,\"params\":[{\"name\":\"a\",\"type_id\":2},{\"name\":\"b\",\"type_id\":3}]},\n"
		"{\"id\":8,\"kind\":\"VAR\",\"name\":\"v\",\"type_id\":3,\"linkage\":\"global\"},\n"
		"{\"id\":9,\"kind\":\"DECL_TAG\",\"name\":\"bpf_kfunc\",\"type_id\":6,\"component_idx\":-1}\n"
		"]}\n");
	free(got);
	blob_free(&raw);
}
END_TEST

/*
 * kfuncs: [4] int bpf_task_get(struct task *t, int pid), [7] void
 * bpf_nop(void) (also bpf_fastcall), [11] void bpf_zz(struct hidden *h)
 * with struct hidden only a FWD, and [14] not_kfunc whose "bpf_kfunc" tag
 * sits on a parameter.
 */
static struct blob kfunc_blob(void)
{
	struct btf *btf = new_btf();
	struct blob raw;

	ADD(1, btf__add_int(btf, "int", 4, BTF_INT_SIGNED));
	ADD(2, btf__add_struct(btf, "task", 4));	/* [2] struct task { */
	ENTRY(btf__add_field(btf, "pid", 1, 0, 0));
	ADD(3, btf__add_ptr(btf, 2));
	ADD(4, btf__add_func_proto(btf, 1));		/* [4] int (struct task *, int) */
	ENTRY(btf__add_func_param(btf, "t", 3));
	ENTRY(btf__add_func_param(btf, "pid", 1));
	ADD(5, btf__add_func(btf, "bpf_task_get", BTF_FUNC_GLOBAL, 4));
	ADD(6, btf__add_decl_tag(btf, "bpf_kfunc", 5, -1));
	ADD(7, btf__add_func_proto(btf, 0));		/* [7] void (void) */
	ADD(8, btf__add_func(btf, "bpf_nop", BTF_FUNC_GLOBAL, 7));
	ADD(9, btf__add_decl_tag(btf, "bpf_kfunc", 8, -1));
	ADD(10, btf__add_decl_tag(btf, "bpf_fastcall", 8, -1));
	ADD(11, btf__add_fwd(btf, "hidden", BTF_FWD_STRUCT));
	ADD(12, btf__add_ptr(btf, 11));
	ADD(13, btf__add_func_proto(btf, 0));		/* [13] void (struct hidden *) */
	ENTRY(btf__add_func_param(btf, "h", 12));
	ADD(14, btf__add_func(btf, "bpf_zz", BTF_FUNC_GLOBAL, 13));
	ADD(15, btf__add_decl_tag(btf, "bpf_kfunc", 14, -1));
	ADD(16, btf__add_func(btf, "not_kfunc", BTF_FUNC_GLOBAL, 4));
	ADD(17, btf__add_decl_tag(btf, "bpf_kfunc", 16, 0));
	/* [18] struct holder { struct task *t; }: no declaration needed */
	ADD(18, btf__add_struct(btf, "holder", 8));
	ENTRY(btf__add_field(btf, "t", 3, 0, 0));
	raw = blob_from_libbpf(btf);
	btf__free(btf);
	return raw;
}

/*
 * The prototypes are bpftool 7.8's lines for the same BTF; struct hidden
 * and struct task are named in parameter lists, so they are declared up
 * front; struct holder's pointer member needs no declaration.
 */
START_TEST(test_dump_c_kfuncs)
{
	struct blob raw = kfunc_blob();
	char *got = dump_text(&raw, 'c');

	assert_text(got,
		C_PROLOGUE
		"struct hidden;\n"
		"struct task;\n"
		"\n"
		"struct task {\n"
		"\tint pid;\n"
		"};\n"
		"\n"
		"struct holder {\n"
		"\tstruct task *t;\n"
		"};\n"
		"\n"
		"\n"
		"/* BPF kfuncs */\n"
		"#ifndef BPF_NO_KFUNC_PROTOTYPES\n"
		"extern __bpf_fastcall void bpf_nop(void) __weak __ksym;\n"
		"extern int bpf_task_get(struct task *t, int pid) __weak __ksym;\n"
		"extern void bpf_zz(struct hidden *h) __weak __ksym;\n"
		"#endif\n"
		"\n"
		C_EPILOGUE);
	free(got);
	blob_free(&raw);
}
END_TEST

START_TEST(test_dump_c)
{
	struct blob raw = rich_blob();
	char *got = dump_text(&raw, 'c');

	assert_text(got,
		C_PROLOGUE
		"union opaque;\n"
		"\n"
		"enum {\n"
		"\tK_A = 1,\n"
		"};\n"
		"\n"
		"struct outer {\n"
		"\tint x;\n"
		"\tunion {\n"
		"\t\tint u1;\n"
		"\t\tlong u2;\n"
		"\t};\n"
		"\tstruct {\n"
		"\t\tchar c;\n"
		"\t} named;\n"
		"};\n"
		"\n"
		"typedef struct outer outer_t;\n"
		"\n"
		"\n"
		"/* BPF kfuncs */\n"
		"#ifndef BPF_NO_KFUNC_PROTOTYPES\n"
		"#endif\n"
		"\n"
		C_EPILOGUE);
	free(got);
	blob_free(&raw);
}
END_TEST

Suite *diff_suite(void)
{
	Suite *s = suite_create("diff");
	TCase *tc;

	tc = tcase_create("golden");
	tcase_add_test(tc, test_members);
	tcase_add_test(tc, test_anonymous_members);
	tcase_add_test(tc, test_enums);
	tcase_add_test(tc, test_funcs_vars_typedefs);
	tcase_add_test(tc, test_added_removed);
	suite_add_tcase(s, tc);

	tc = tcase_create("identity");
	tcase_add_test(tc, test_identity_small);
	tcase_add_test(tc, test_identity_vmlinux);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);

	tc = tcase_create("dump");
	tcase_add_test(tc, test_dump_raw);
	tcase_add_test(tc, test_dump_c);
	tcase_add_test(tc, test_dump_c_kfuncs);
	tcase_add_test(tc, test_dump_c_order);
	tcase_add_test(tc, test_dump_c_pull);
	tcase_add_test(tc, test_dump_c_plain_by_use);
	tcase_add_test(tc, test_dump_c_anon_loop);
	suite_add_tcase(s, tc);
	slim_add_cases(s);
	return s;
}
