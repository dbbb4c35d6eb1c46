// SPDX-License-Identifier: GPL-2.0-only
/*
 * Golden listings for every BTF kind.
 *
 * Each case builds a small BTF with libbpf's btf__add_*() calls (the ids
 * in the comments are the input ids, and ADD() checks them), canonicalizes
 * it and compares the listing of the result with a golden text written by
 * hand from the canonical order of DESIGN.md: kind, vlen, name, the rest of
 * the local data, then references by rank (or name first with
 * --order=name). check_output() then holds every output to the properties
 * the project promises: libbpf and the running kernel accept it,
 * canonicalizing it again changes nothing, and permuting the input's ids
 * does not change it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "suites.h"
#include "testutil.h"

/* Adds a type and checks that it got the id its comment announces. */
#define ADD(id, call) ck_assert_int_eq((call), (id))
/* Adds a member, parameter, enumerator or DATASEC entry. */
#define ENTRY(call) ck_assert_int_eq((call), 0)

#define NR_SEEDS 4

/* The raw bytes of a libbpf-built BTF; frees the btf. */
static struct blob take_blob(struct btf *btf)
{
	struct blob b = blob_from_libbpf(btf);

	btf__free(btf);
	return b;
}

static struct btf *new_btf(void)
{
	struct btf *btf = btf__new_empty();

	ck_assert_ptr_nonnull(btf);
	return btf;
}

static void assert_listing(const struct blob *raw, const struct bc_btf *base,
			   const char *golden)
{
	char *got = listing_blob(raw, base);

	if (strcmp(got, golden))
		fprintf(stderr, "--- got:\n%s--- want:\n%s---\n", got, golden);
	ck_assert_msg(!strcmp(got, golden),
		      "listing differs from the golden\n--- got:\n%s--- want:\n%s",
		      got, golden);
	free(got);
}

/* The kernel's verifier accepts raw, or the test says why it cannot ask. */
static void assert_kernel_accepts(const struct blob *raw)
{
	static const size_t log_size = 1 << 16;
	char *log = malloc(log_size);
	int err;

	ck_assert_ptr_nonnull(log);
	err = kernel_load_btf(raw, log, log_size);
	if (err == -EPERM || err == -ENOSYS)
		fprintf(stderr, "kinds: skipping kernel BTF load check: "
			"bpf(BPF_BTF_LOAD) not allowed here (%s)\n",
			strerror(-err));
	else
		ck_assert_msg(!err, "kernel rejected the output: %d (%s)\n%s",
			      err, strerror(-err), log);
	free(log);
}

/*
 * libbpf parses raw. The libbpf 1.1.2 shared library does not export
 * btf__new_split() (its header declares it), so split BTF goes through a
 * file and btf__parse_raw_split().
 */
static void assert_libbpf_accepts(const struct blob *raw, struct btf *base_btf)
{
	char path[] = "/tmp/btfcanon-kinds-XXXXXX";
	struct btf *btf;
	int fd, err;

	if (!base_btf) {
		btf = btf__new(raw->data, raw->size);
		ck_assert_msg(btf != NULL, "libbpf rejected the output: %d",
			      -errno);
		btf__free(btf);
		return;
	}
	fd = mkstemp(path);
	ck_assert_msg(fd >= 0, "mkstemp: %s", strerror(errno));
	ck_assert_int_eq(write(fd, raw->data, raw->size), (ssize_t)raw->size);
	close(fd);
	btf = btf__parse_raw_split(path, base_btf);
	err = btf ? 0 : -errno;
	unlink(path);
	ck_assert_msg(btf != NULL, "libbpf rejected the split output: %d", err);
	btf__free(btf);
}

/*
 * Canonicalizes in (over base, parsed, and base_btf, the same base for
 * libbpf; both NULL for base BTF) and checks the listing against golden,
 * acceptance by libbpf and (base BTF only) the kernel, idempotence, and
 * independence from the input's ids. Returns the output.
 */
static struct blob check_output(const struct blob *in, const struct bc_btf *base,
				struct btf *base_btf, enum bc_order order,
				const char *golden)
{
	struct blob out = canon_blob(in, base, order, NULL), again;
	unsigned int seed;

	assert_listing(&out, base, golden);
	assert_libbpf_accepts(&out, base_btf);
	if (!base)
		assert_kernel_accepts(&out);

	again = canon_blob(&out, base, order, NULL);
	ck_assert_msg(blob_eq(&again, &out), "canon(canon(x)) != canon(x)");
	blob_free(&again);

	for (seed = 1; seed <= NR_SEEDS; seed++) {
		struct blob permuted = permute_blob(in, base, seed);
		struct blob sorted = canon_blob(&permuted, base, order, NULL);

		ck_assert_msg(blob_eq(&sorted, &out),
			      "canon(permute(x, %u)) != canon(x)", seed);
		blob_free(&sorted);
		blob_free(&permuted);
	}
	return out;
}

/* check_output() for base BTF when the output itself is not needed. */
static void check_golden(struct btf *btf, enum bc_order order,
			 const char *golden)
{
	struct blob in = take_blob(btf);
	struct blob out = check_output(&in, NULL, NULL, order, golden);

	blob_free(&out);
	blob_free(&in);
}

/* ---- INT ---------------------------------------------------------------- */

START_TEST(test_int)
{
	struct btf *b = new_btf();

	ADD(1, btf__add_int(b, "int", 4, BTF_INT_SIGNED));
	ADD(2, btf__add_int(b, "unsigned int", 4, 0));
	ADD(3, btf__add_int(b, "_Bool", 1, BTF_INT_BOOL));
	ADD(4, btf__add_int(b, "char", 1, BTF_INT_CHAR));
	ADD(5, btf__add_int(b, "signed char", 1, BTF_INT_SIGNED));
	ADD(6, btf__add_int(b, "__int128", 16, BTF_INT_SIGNED));
	ADD(7, btf__add_int(b, "unsigned __int128", 16, 0));
	ADD(8, btf__add_int(b, "long", 8, BTF_INT_SIGNED));
	ADD(9, btf__add_int(b, "long unsigned int", 8, 0));

	/*
	 * One kind, one vlen: by name, byte-wise ('_' < 'a'). The data word
	 * is encoding << 24 | offset << 16 | bits.
	 */
	check_golden(b, BC_ORDER_KIND,
		"[1] INT '_Bool' vlen=0 kflag=0 1 67108872\n"
		"[2] INT '__int128' vlen=0 kflag=0 16 16777344\n"
		"[3] INT 'char' vlen=0 kflag=0 1 33554440\n"
		"[4] INT 'int' vlen=0 kflag=0 4 16777248\n"
		"[5] INT 'long' vlen=0 kflag=0 8 16777280\n"
		"[6] INT 'long unsigned int' vlen=0 kflag=0 8 64\n"
		"[7] INT 'signed char' vlen=0 kflag=0 1 16777224\n"
		"[8] INT 'unsigned __int128' vlen=0 kflag=0 16 128\n"
		"[9] INT 'unsigned int' vlen=0 kflag=0 4 32\n");
}
END_TEST

/* ---- PTR, ARRAY --------------------------------------------------------- */

START_TEST(test_ptr_array)
{
	struct btf *b = new_btf();

	ADD(1, btf__add_int(b, "int", 4, BTF_INT_SIGNED));
	ADD(2, btf__add_int(b, "__ARRAY_SIZE_TYPE__", 4, 0));
	ADD(3, btf__add_array(b, 2, 1, 3));	/* [3] int [3] */
	ADD(4, btf__add_array(b, 2, 3, 2));	/* [4] int [2][3] */
	ADD(5, btf__add_ptr(b, 1));		/* [5] int * */
	ADD(6, btf__add_ptr(b, 5));		/* [6] int ** */
	ADD(7, btf__add_ptr(b, 0));		/* [7] void * */
	ADD(8, btf__add_array(b, 2, 5, 4));	/* [8] int *[4] */
	ADD(9, btf__add_ptr(b, 4));		/* [9] int (*)[2][3] */
	ADD(10, btf__add_int(b, "char", 1, BTF_INT_CHAR));
	ADD(11, btf__add_array(b, 2, 10, 3));	/* [11] char [3] */

	/*
	 * PTRs share a local key and split by pointee rank: void, int,
	 * int *, then the array. ARRAYs split by nelems first, then by
	 * element rank (char before int).
	 */
	check_golden(b, BC_ORDER_KIND,
		"[1] INT '__ARRAY_SIZE_TYPE__' vlen=0 kflag=0 4 32\n"
		"[2] INT 'char' vlen=0 kflag=0 1 33554440\n"
		"[3] INT 'int' vlen=0 kflag=0 4 16777248\n"
		"[4] PTR '' vlen=0 kflag=0 ->0\n"
		"[5] PTR '' vlen=0 kflag=0 ->3\n"
		"[6] PTR '' vlen=0 kflag=0 ->5\n"
		"[7] PTR '' vlen=0 kflag=0 ->8\n"
		"[8] ARRAY '' vlen=0 kflag=0 0 ->10 ->1 2\n"
		"[9] ARRAY '' vlen=0 kflag=0 0 ->2 ->1 3\n"
		"[10] ARRAY '' vlen=0 kflag=0 0 ->3 ->1 3\n"
		"[11] ARRAY '' vlen=0 kflag=0 0 ->5 ->1 4\n");
}
END_TEST

/* ---- STRUCT, UNION ------------------------------------------------------ */

START_TEST(test_struct_union)
{
	struct btf *b = new_btf();

	ADD(1, btf__add_int(b, "unsigned int", 4, 0));
	ADD(2, btf__add_int(b, "int", 4, BTF_INT_SIGNED));
	ADD(3, btf__add_int(b, "long", 8, BTF_INT_SIGNED));
	ADD(4, btf__add_struct(b, "flags", 8));	/* [4] struct flags { */
	ENTRY(btf__add_field(b, "a", 1, 0, 3));	/*	unsigned int a: 3; */
	ENTRY(btf__add_field(b, "b", 1, 3, 5));	/*	unsigned int b: 5; */
	ENTRY(btf__add_field(b, "c", 2, 32, 0));	/*	int c; } */
	ADD(5, btf__add_union(b, "val", 8));	/* [5] union val { */
	ENTRY(btf__add_field(b, "i", 2, 0, 0));	/*	int i; */
	ENTRY(btf__add_field(b, "u", 1, 0, 0));	/*	unsigned int u; */
	ENTRY(btf__add_field(b, "f", 4, 0, 0));	/*	struct flags f; } */
	ADD(6, btf__add_union(b, NULL, 8));	/* [6] union { */
	ENTRY(btf__add_field(b, "a", 2, 0, 0));	/*	int a; */
	ENTRY(btf__add_field(b, "b", 3, 0, 0));	/*	long b; } */
	ADD(7, btf__add_struct(b, "outer", 16));	/* [7] struct outer { */
	ENTRY(btf__add_field(b, NULL, 6, 0, 0));	/*	union { ... }; */
	ENTRY(btf__add_field(b, "c", 2, 64, 0));	/*	int c; } */
	ADD(8, btf__add_struct(b, "pair", 8));	/* [8] struct pair { */
	ENTRY(btf__add_field(b, "x", 2, 0, 0));	/*	int x; */
	ENTRY(btf__add_field(b, "y", 2, 32, 0));	/*	int y; } */
	ADD(9, btf__add_union(b, "bits", 4));	/* [9] union bits { */
	ENTRY(btf__add_field(b, "lo", 1, 0, 4));	/*	unsigned int lo: 4; */
	ENTRY(btf__add_field(b, "all", 2, 0, 0));	/*	int all; } */

	/*
	 * STRUCT before UNION; within each, vlen then name (anonymous
	 * first). Bitfield members: kflag=1, offset = bits << 24 | offset.
	 */
	check_golden(b, BC_ORDER_KIND,
		"[1] INT 'int' vlen=0 kflag=0 4 16777248\n"
		"[2] INT 'long' vlen=0 kflag=0 8 16777280\n"
		"[3] INT 'unsigned int' vlen=0 kflag=0 4 32\n"
		"[4] STRUCT 'outer' vlen=2 kflag=0 16\n"
		"\t'' ->7 0\n"
		"\t'c' ->1 64\n"
		"[5] STRUCT 'pair' vlen=2 kflag=0 8\n"
		"\t'x' ->1 0\n"
		"\t'y' ->1 32\n"
		"[6] STRUCT 'flags' vlen=3 kflag=1 8\n"
		"\t'a' ->3 50331648\n"
		"\t'b' ->3 83886083\n"
		"\t'c' ->1 32\n"
		"[7] UNION '' vlen=2 kflag=0 8\n"
		"\t'a' ->1 0\n"
		"\t'b' ->2 0\n"
		"[8] UNION 'bits' vlen=2 kflag=1 4\n"
		"\t'lo' ->3 67108864\n"
		"\t'all' ->1 0\n"
		"[9] UNION 'val' vlen=3 kflag=0 8\n"
		"\t'i' ->1 0\n"
		"\t'u' ->3 0\n"
		"\t'f' ->6 0\n");
}
END_TEST

/* ---- ENUM, ENUM64 ------------------------------------------------------- */

START_TEST(test_enum)
{
	struct btf *b = new_btf();

	ADD(1, btf__add_enum(b, "color", 4));	/* [1] enum color { */
	ENTRY(btf__add_enum_value(b, "RED", 0));
	ENTRY(btf__add_enum_value(b, "GREEN", 5));
	ENTRY(btf__add_enum_value(b, "BLUE", 6));	/* } */
	ADD(2, btf__add_enum(b, "delta", 4));	/* [2] enum delta { (signed) */
	ENTRY(btf__add_enum_value(b, "NEG", -1));
	ENTRY(btf__add_enum_value(b, "ZERO", 0));
	ENTRY(btf__add_enum_value(b, "POS", 1));	/* } */
	ADD(3, btf__add_enum64(b, "big", 8, false));	/* [3] enum big { */
	ENTRY(btf__add_enum64_value(b, "BIG", 1ULL << 32));
	ENTRY(btf__add_enum64_value(b, "HUGE", ~0ULL));	/* } */
	ADD(4, btf__add_enum64(b, "sbig", 8, true));	/* [4] enum sbig { */
	ENTRY(btf__add_enum64_value(b, "NEG_BIG", (uint64_t)-(1LL << 32)));
	ENTRY(btf__add_enum64_value(b, "ONE", 1));	/* } */
	ADD(5, btf__add_enum(b, NULL, 4));	/* [5] enum { (signed) */
	ENTRY(btf__add_enum_value(b, "A", 1));
	ENTRY(btf__add_enum_value(b, "B", -1));	/* } */
	ADD(6, btf__add_enum(b, NULL, 4));	/* [6] enum { (signed) */
	ENTRY(btf__add_enum_value(b, "A", -1));
	ENTRY(btf__add_enum_value(b, "B", 0));	/* } */
	ADD(7, btf__add_enum(b, NULL, 4));	/* [7] enum { A = 4294967295 } */
	ENTRY(btf__add_enum_value(b, "A", 4294967295LL));
	ADD(8, btf__add_enum(b, NULL, 4));	/* [8] enum { A = 2 } */
	ENTRY(btf__add_enum_value(b, "A", 2));
	ADD(9, btf__add_fwd(b, "later", BTF_FWD_ENUM));	/* [9] enum later; */

	/*
	 * ENUM before ENUM64; vlen (the declaration 'later' first), name,
	 * kflag (unsigned first), then the values: as unsigned numbers for
	 * kflag=0 (2 < 4294967295), as signed ones for kflag=1 (-1 < 1).
	 * ENUM64 values print as lo32 hi32.
	 */
	check_golden(b, BC_ORDER_KIND,
		"[1] ENUM 'later' vlen=0 kflag=0 4\n"
		"[2] ENUM '' vlen=1 kflag=0 4\n"
		"\t'A' 2\n"
		"[3] ENUM '' vlen=1 kflag=0 4\n"
		"\t'A' 4294967295\n"
		"[4] ENUM '' vlen=2 kflag=1 4\n"
		"\t'A' 4294967295\n"
		"\t'B' 0\n"
		"[5] ENUM '' vlen=2 kflag=1 4\n"
		"\t'A' 1\n"
		"\t'B' 4294967295\n"
		"[6] ENUM 'color' vlen=3 kflag=0 4\n"
		"\t'RED' 0\n"
		"\t'GREEN' 5\n"
		"\t'BLUE' 6\n"
		"[7] ENUM 'delta' vlen=3 kflag=1 4\n"
		"\t'NEG' 4294967295\n"
		"\t'ZERO' 0\n"
		"\t'POS' 1\n"
		"[8] ENUM64 'big' vlen=2 kflag=0 8\n"
		"\t'BIG' 0 1\n"
		"\t'HUGE' 4294967295 4294967295\n"
		"[9] ENUM64 'sbig' vlen=2 kflag=1 8\n"
		"\t'NEG_BIG' 0 4294967295\n"
		"\t'ONE' 1 0\n");
}
END_TEST

/* ---- FWD, TYPEDEF, VOLATILE, CONST, RESTRICT, TYPE_TAG ------------------ */

START_TEST(test_fwd_typedef_modifiers)
{
	struct btf *b = new_btf();

	ADD(1, btf__add_int(b, "int", 4, BTF_INT_SIGNED));
	ADD(2, btf__add_fwd(b, "node", BTF_FWD_STRUCT));	/* [2] struct node; */
	ADD(3, btf__add_fwd(b, "node", BTF_FWD_UNION));	/* [3] union node; */
	ADD(4, btf__add_typedef(b, "node_t", 2));	/* [4] typedef struct node node_t */
	ADD(5, btf__add_ptr(b, 4));		/* [5] node_t * */
	ADD(6, btf__add_const(b, 1));		/* [6] const int */
	ADD(7, btf__add_volatile(b, 1));	/* [7] volatile int */
	ADD(8, btf__add_volatile(b, 6));	/* [8] volatile const int */
	ADD(9, btf__add_ptr(b, 1));		/* [9] int * */
	ADD(10, btf__add_restrict(b, 9));	/* [10] int * restrict */
	ADD(11, btf__add_type_tag(b, "user", 1));	/* [11] int __user */
	ADD(12, btf__add_ptr(b, 11));		/* [12] int __user * */
	ADD(13, btf__add_typedef(b, "cvint", 8));	/* [13] typedef ... cvint */
	ADD(14, btf__add_ptr(b, 3));		/* [14] union node * */

	check_golden(b, BC_ORDER_KIND,
		"[1] INT 'int' vlen=0 kflag=0 4 16777248\n"
		"[2] PTR '' vlen=0 kflag=0 ->1\n"
		"[3] PTR '' vlen=0 kflag=0 ->7\n"
		"[4] PTR '' vlen=0 kflag=0 ->9\n"
		"[5] PTR '' vlen=0 kflag=0 ->14\n"
		"[6] FWD 'node' vlen=0 kflag=0 0\n"
		"[7] FWD 'node' vlen=0 kflag=1 0\n"
		"[8] TYPEDEF 'cvint' vlen=0 kflag=0 ->11\n"
		"[9] TYPEDEF 'node_t' vlen=0 kflag=0 ->6\n"
		"[10] VOLATILE '' vlen=0 kflag=0 ->1\n"
		"[11] VOLATILE '' vlen=0 kflag=0 ->12\n"
		"[12] CONST '' vlen=0 kflag=0 ->1\n"
		"[13] RESTRICT '' vlen=0 kflag=0 ->2\n"
		"[14] TYPE_TAG 'user' vlen=0 kflag=0 ->1\n");
}
END_TEST

/* ---- FUNC, FUNC_PROTO --------------------------------------------------- */

START_TEST(test_func)
{
	struct btf *b = new_btf();

	ADD(1, btf__add_int(b, "int", 4, BTF_INT_SIGNED));
	ADD(2, btf__add_int(b, "char", 1, BTF_INT_CHAR));
	ADD(3, btf__add_const(b, 2));		/* [3] const char */
	ADD(4, btf__add_ptr(b, 3));		/* [4] const char * */
	ADD(5, btf__add_func_proto(b, 1));	/* [5] int (int level, */
	ENTRY(btf__add_func_param(b, "level", 1));
	ENTRY(btf__add_func_param(b, "fmt", 4));	/*	const char *fmt, */
	ENTRY(btf__add_func_param(b, NULL, 0));	/*	...) */
	ADD(6, btf__add_func(b, "log_msg", BTF_FUNC_GLOBAL, 5));
	ADD(7, btf__add_func_proto(b, 0));	/* [7] void (void) */
	ADD(8, btf__add_func(b, "reset", BTF_FUNC_STATIC, 7));
	ADD(9, btf__add_func_proto(b, 1));	/* [9] int (int a, int b) */
	ENTRY(btf__add_func_param(b, "a", 1));
	ENTRY(btf__add_func_param(b, "b", 1));
	ADD(10, btf__add_func(b, "add", BTF_FUNC_GLOBAL, 9));
	ADD(11, btf__add_func(b, "sub", BTF_FUNC_STATIC, 9));
	ADD(12, btf__add_ptr(b, 7));		/* [12] void (*)(void) */

	/* FUNC's vlen is its linkage: static (0) sorts before global (1). */
	check_golden(b, BC_ORDER_KIND,
		"[1] INT 'char' vlen=0 kflag=0 1 33554440\n"
		"[2] INT 'int' vlen=0 kflag=0 4 16777248\n"
		"[3] PTR '' vlen=0 kflag=0 ->5\n"
		"[4] PTR '' vlen=0 kflag=0 ->10\n"
		"[5] CONST '' vlen=0 kflag=0 ->1\n"
		"[6] FUNC 'reset' vlen=0 kflag=0 ->10\n"
		"[7] FUNC 'sub' vlen=0 kflag=0 ->11\n"
		"[8] FUNC 'add' vlen=1 kflag=0 ->11\n"
		"[9] FUNC 'log_msg' vlen=1 kflag=0 ->12\n"
		"[10] FUNC_PROTO '' vlen=0 kflag=0 ->0\n"
		"[11] FUNC_PROTO '' vlen=2 kflag=0 ->2\n"
		"\t'a' ->2\n"
		"\t'b' ->2\n"
		"[12] FUNC_PROTO '' vlen=3 kflag=0 ->2\n"
		"\t'level' ->2\n"
		"\t'fmt' ->3\n"
		"\t'' ->0\n");
}
END_TEST

/* ---- omitted types (canon_opts.omit) --------------------------------- */

static void quiet(void *ctx, enum bc_log_level level, const char *msg)
{
	(void)ctx;
	(void)level;
	(void)msg;
}

static struct blob canon_omit(const struct blob *in, const uint8_t *omit,
			      int *err)
{
	static const struct bc_log test_log = { .fn = quiet };
	struct bc_btf *btf = parse_or_fail(in, NULL);
	struct canon_opts opts = { .order = BC_ORDER_KIND, .omit = omit };
	struct canon_result res;
	struct blob out = { 0 };

	*err = canon_run(btf, &opts, &res, &test_log);
	if (!*err) {
		out.data = res.raw;
		out.size = res.raw_size;
		res.raw = NULL;
		canon_result_deinit(&res);
	}
	bc_btf_free(btf);
	return out;
}

/*
 * Types another pass hands canon to leave out vanish, and the rest come
 * out as if they had never been there: the encoder's marker TYPEDEFs and
 * unused prototypes. A kept type that refers to a left-out one is an
 * error, not a dangling id.
 */
START_TEST(test_omit)
{
	struct btf *b = new_btf(), *c = new_btf();
	/* local indices 0..5 = ids 1..6 */
	static const uint8_t omit[] = { 0, 0, 1, 0, 1, 0 };
	static const uint8_t omit_used[] = { 1, 0, 0, 0, 0, 0 };
	struct blob in, without, out, plain;
	int err;

	ADD(1, btf__add_int(b, "int", 4, BTF_INT_SIGNED));
	ADD(2, btf__add_func_proto(b, 1));	/* [2] int (int x) */
	ENTRY(btf__add_func_param(b, "x", 1));
	ADD(3, btf__add_typedef(b, "\x01marker.f0", 2));	/* omitted */
	ADD(4, btf__add_func(b, "f", BTF_FUNC_STATIC, 2));
	ADD(5, btf__add_func_proto(b, 1));	/* [5] int (void), omitted */
	ADD(6, btf__add_ptr(b, 1));
	in = take_blob(b);

	ADD(1, btf__add_int(c, "int", 4, BTF_INT_SIGNED));
	ADD(2, btf__add_func_proto(c, 1));
	ENTRY(btf__add_func_param(c, "x", 1));
	ADD(3, btf__add_func(c, "f", BTF_FUNC_STATIC, 2));
	ADD(4, btf__add_ptr(c, 1));
	without = take_blob(c);

	out = canon_omit(&in, omit, &err);
	ck_assert_int_eq(err, 0);
	plain = canon_blob(&without, NULL, BC_ORDER_KIND, NULL);
	ck_assert_msg(blob_eq(&out, &plain),
		      "canon with types omitted differs from canon without them");
	blob_free(&out);
	blob_free(&plain);

	out = canon_omit(&in, omit_used, &err);
	ck_assert_int_eq(err, -EINVAL);
	blob_free(&out);
	blob_free(&without);
	blob_free(&in);
}
END_TEST

/* ---- VAR, DATASEC ------------------------------------------------------- */

START_TEST(test_var_datasec)
{
	struct btf *b = new_btf();

	ADD(1, btf__add_int(b, "int", 4, BTF_INT_SIGNED));
	ADD(2, btf__add_int(b, "long", 8, BTF_INT_SIGNED));
	ADD(3, btf__add_var(b, "counter", BTF_VAR_GLOBAL_ALLOCATED, 1));
	ADD(4, btf__add_var(b, "limit", BTF_VAR_STATIC, 2));
	ADD(5, btf__add_var(b, "hits", BTF_VAR_GLOBAL_ALLOCATED, 1));
	ADD(6, btf__add_datasec(b, ".data", 16));	/* [6] SEC .data { */
	ENTRY(btf__add_datasec_var_info(b, 3, 0, 4));	/*	counter */
	ENTRY(btf__add_datasec_var_info(b, 4, 8, 8));	/*	limit } */
	ADD(7, btf__add_datasec(b, ".bss", 4));	/* [7] SEC .bss { */
	ENTRY(btf__add_datasec_var_info(b, 5, 0, 4));	/*	hits } */

	check_golden(b, BC_ORDER_KIND,
		"[1] INT 'int' vlen=0 kflag=0 4 16777248\n"
		"[2] INT 'long' vlen=0 kflag=0 8 16777280\n"
		"[3] VAR 'counter' vlen=0 kflag=0 ->1 1\n"
		"[4] VAR 'hits' vlen=0 kflag=0 ->1 1\n"
		"[5] VAR 'limit' vlen=0 kflag=0 ->2 0\n"
		"[6] DATASEC '.bss' vlen=1 kflag=0 4\n"
		"\t ->4 0 4\n"
		"[7] DATASEC '.data' vlen=2 kflag=0 16\n"
		"\t ->3 0 4\n"
		"\t ->5 8 8\n");
}
END_TEST

/* ---- FLOAT -------------------------------------------------------------- */

START_TEST(test_float)
{
	struct btf *b = new_btf();

	ADD(1, btf__add_float(b, "float", 4));
	ADD(2, btf__add_float(b, "double", 8));
	ADD(3, btf__add_float(b, "long double", 16));

	check_golden(b, BC_ORDER_KIND,
		"[1] FLOAT 'double' vlen=0 kflag=0 8\n"
		"[2] FLOAT 'float' vlen=0 kflag=0 4\n"
		"[3] FLOAT 'long double' vlen=0 kflag=0 16\n");
}
END_TEST

/* ---- DECL_TAG ----------------------------------------------------------- */

START_TEST(test_decl_tag)
{
	struct btf *b = new_btf();

	ADD(1, btf__add_int(b, "int", 4, BTF_INT_SIGNED));
	ADD(2, btf__add_struct(b, "s", 8));	/* [2] struct s { */
	ENTRY(btf__add_field(b, "a", 1, 0, 0));	/*	int a; */
	ENTRY(btf__add_field(b, "b", 1, 32, 0));	/*	int b; } */
	ADD(3, btf__add_decl_tag(b, "packed_s", 2, -1));
	ADD(4, btf__add_decl_tag(b, "member_b", 2, 1));
	ADD(5, btf__add_func_proto(b, 1));	/* [5] int (int x) */
	ENTRY(btf__add_func_param(b, "x", 1));
	ADD(6, btf__add_func(b, "f", BTF_FUNC_GLOBAL, 5));
	ADD(7, btf__add_decl_tag(b, "nonnull", 6, 0));	/* on f's x */
	ADD(8, btf__add_decl_tag(b, "ctx", 6, -1));	/* on f */
	ADD(9, btf__add_var(b, "v", BTF_VAR_GLOBAL_ALLOCATED, 1));
	ADD(10, btf__add_datasec(b, ".data", 4));	/* [10] SEC .data { */
	ENTRY(btf__add_datasec_var_info(b, 9, 0, 4));	/*	v } */
	ADD(11, btf__add_decl_tag(b, "ctx", 9, -1));	/* on v */
	ADD(12, btf__add_typedef(b, "t", 1));
	ADD(13, btf__add_decl_tag(b, "ctx", 12, -1));	/* on t */
	ADD(14, btf__add_decl_tag(b, "ctx", 2, 0));	/* on s.a */

	/*
	 * By tag value, then component index (as an unsigned word: -1
	 * after every member index), then target rank.
	 */
	check_golden(b, BC_ORDER_KIND,
		"[1] INT 'int' vlen=0 kflag=0 4 16777248\n"
		"[2] STRUCT 's' vlen=2 kflag=0 8\n"
		"\t'a' ->1 0\n"
		"\t'b' ->1 32\n"
		"[3] TYPEDEF 't' vlen=0 kflag=0 ->1\n"
		"[4] FUNC 'f' vlen=1 kflag=0 ->5\n"
		"[5] FUNC_PROTO '' vlen=1 kflag=0 ->1\n"
		"\t'x' ->1\n"
		"[6] VAR 'v' vlen=0 kflag=0 ->1 1\n"
		"[7] DATASEC '.data' vlen=1 kflag=0 4\n"
		"\t ->6 0 4\n"
		"[8] DECL_TAG 'ctx' vlen=0 kflag=0 ->2 0\n"
		"[9] DECL_TAG 'ctx' vlen=0 kflag=0 ->3 4294967295\n"
		"[10] DECL_TAG 'ctx' vlen=0 kflag=0 ->4 4294967295\n"
		"[11] DECL_TAG 'ctx' vlen=0 kflag=0 ->6 4294967295\n"
		"[12] DECL_TAG 'member_b' vlen=0 kflag=0 ->2 1\n"
		"[13] DECL_TAG 'nonnull' vlen=0 kflag=0 ->4 0\n"
		"[14] DECL_TAG 'packed_s' vlen=0 kflag=0 ->2 4294967295\n");
}
END_TEST

/* ---- TYPE_TAG ----------------------------------------------------------- */

START_TEST(test_type_tag)
{
	struct btf *b = new_btf();

	ADD(1, btf__add_int(b, "int", 4, BTF_INT_SIGNED));
	ADD(2, btf__add_type_tag(b, "user", 1));	/* [2] int __user */
	ADD(3, btf__add_ptr(b, 2));		/* [3] int __user * */
	ADD(4, btf__add_type_tag(b, "rcu", 1));	/* [4] int __rcu */
	ADD(5, btf__add_ptr(b, 4));		/* [5] int __rcu * */
	ADD(6, btf__add_type_tag(b, "percpu", 7));	/* [6] -> [7] */
	ADD(7, btf__add_type_tag(b, "user", 8));	/* [7] -> [8] */
	ADD(8, btf__add_const(b, 1));		/* [8] const int */
	ADD(9, btf__add_ptr(b, 6));	/* [9] const int __user __percpu * */

	check_golden(b, BC_ORDER_KIND,
		"[1] INT 'int' vlen=0 kflag=0 4 16777248\n"
		"[2] PTR '' vlen=0 kflag=0 ->6\n"
		"[3] PTR '' vlen=0 kflag=0 ->7\n"
		"[4] PTR '' vlen=0 kflag=0 ->8\n"
		"[5] CONST '' vlen=0 kflag=0 ->1\n"
		"[6] TYPE_TAG 'percpu' vlen=0 kflag=0 ->9\n"
		"[7] TYPE_TAG 'rcu' vlen=0 kflag=0 ->1\n"
		"[8] TYPE_TAG 'user' vlen=0 kflag=0 ->1\n"
		"[9] TYPE_TAG 'user' vlen=0 kflag=0 ->5\n");
}
END_TEST

/* ---- one of every kind, in both orders ---------------------------------- */

static struct btf *mixed_btf(void)
{
	struct btf *b = new_btf();

	ADD(1, btf__add_int(b, "int", 4, BTF_INT_SIGNED));
	ADD(2, btf__add_ptr(b, 3));		/* [2] struct task * */
	ADD(3, btf__add_struct(b, "task", 24));	/* [3] struct task { */
	ENTRY(btf__add_field(b, "next", 2, 0, 0));	/*	struct task *next; */
	ENTRY(btf__add_field(b, "pid", 8, 64, 0));	/*	pid_t pid; */
	ENTRY(btf__add_field(b, "state", 20, 96, 0));	/*	state state; */
	ENTRY(btf__add_field(b, "prio", 4, 128, 0));	/*	int prio[2]; } */
	ADD(4, btf__add_array(b, 1, 1, 2));	/* [4] int [2] */
	ADD(5, btf__add_union(b, "word", 4));	/* [5] union word { */
	ENTRY(btf__add_field(b, "i", 1, 0, 0));	/*	int i; */
	ENTRY(btf__add_field(b, "f", 16, 0, 0));	/*	float f; } */
	ADD(6, btf__add_enum(b, "state", 4));	/* [6] enum state { */
	ENTRY(btf__add_enum_value(b, "RUNNING", 0));
	ENTRY(btf__add_enum_value(b, "STOPPED", 1));	/* } */
	ADD(7, btf__add_fwd(b, "file", BTF_FWD_STRUCT));	/* [7] struct file; */
	ADD(8, btf__add_typedef(b, "pid_t", 1));
	ADD(9, btf__add_volatile(b, 1));	/* [9] volatile int */
	ADD(10, btf__add_const(b, 9));		/* [10] const volatile int */
	ADD(11, btf__add_restrict(b, 2));	/* [11] struct task * restrict */
	ADD(12, btf__add_func_proto(b, 1));	/* [12] int (struct task *t) */
	ENTRY(btf__add_func_param(b, "t", 2));
	ADD(13, btf__add_func(b, "task_pid", BTF_FUNC_GLOBAL, 12));
	ADD(14, btf__add_var(b, "init_task", BTF_VAR_GLOBAL_ALLOCATED, 3));
	ADD(15, btf__add_datasec(b, ".data", 24));	/* [15] SEC .data { */
	ENTRY(btf__add_datasec_var_info(b, 14, 0, 24));	/*	init_task } */
	ADD(16, btf__add_float(b, "float", 4));
	ADD(17, btf__add_decl_tag(b, "kfunc", 13, -1));
	ADD(18, btf__add_type_tag(b, "percpu", 1));	/* [18] int __percpu */
	ADD(19, btf__add_ptr(b, 18));		/* [19] int __percpu * */
	ADD(20, btf__add_typedef(b, "state", 6));	/* typedef enum state state */
	ADD(21, btf__add_enum64(b, "mask", 8, false));	/* [21] enum mask { */
	ENTRY(btf__add_enum64_value(b, "ALL", ~0ULL));	/* } */
	ADD(22, btf__add_ptr(b, 7));		/* [22] struct file * */
	ADD(23, btf__add_ptr(b, 10));		/* [23] const volatile int * */
	return b;
}

START_TEST(test_mixed_kind_order)
{
	check_golden(mixed_btf(), BC_ORDER_KIND,
		"[1] INT 'int' vlen=0 kflag=0 4 16777248\n"
		"[2] PTR '' vlen=0 kflag=0 ->7\n"
		"[3] PTR '' vlen=0 kflag=0 ->10\n"
		"[4] PTR '' vlen=0 kflag=0 ->14\n"
		"[5] PTR '' vlen=0 kflag=0 ->22\n"
		"[6] ARRAY '' vlen=0 kflag=0 0 ->1 ->1 2\n"
		"[7] STRUCT 'task' vlen=4 kflag=0 24\n"
		"\t'next' ->2 0\n"
		"\t'pid' ->11 64\n"
		"\t'state' ->12 96\n"
		"\t'prio' ->6 128\n"
		"[8] UNION 'word' vlen=2 kflag=0 4\n"
		"\t'i' ->1 0\n"
		"\t'f' ->20 0\n"
		"[9] ENUM 'state' vlen=2 kflag=0 4\n"
		"\t'RUNNING' 0\n"
		"\t'STOPPED' 1\n"
		"[10] FWD 'file' vlen=0 kflag=0 0\n"
		"[11] TYPEDEF 'pid_t' vlen=0 kflag=0 ->1\n"
		"[12] TYPEDEF 'state' vlen=0 kflag=0 ->9\n"
		"[13] VOLATILE '' vlen=0 kflag=0 ->1\n"
		"[14] CONST '' vlen=0 kflag=0 ->13\n"
		"[15] RESTRICT '' vlen=0 kflag=0 ->2\n"
		"[16] FUNC 'task_pid' vlen=1 kflag=0 ->17\n"
		"[17] FUNC_PROTO '' vlen=1 kflag=0 ->1\n"
		"\t't' ->2\n"
		"[18] VAR 'init_task' vlen=0 kflag=0 ->7 1\n"
		"[19] DATASEC '.data' vlen=1 kflag=0 24\n"
		"\t ->18 0 24\n"
		"[20] FLOAT 'float' vlen=0 kflag=0 4\n"
		"[21] DECL_TAG 'kfunc' vlen=0 kflag=0 ->16 4294967295\n"
		"[22] TYPE_TAG 'percpu' vlen=0 kflag=0 ->1\n"
		"[23] ENUM64 'mask' vlen=1 kflag=0 8\n"
		"\t'ALL' 4294967295 4294967295\n");
}
END_TEST

START_TEST(test_mixed_name_order)
{
	/* Name first (anonymous first), then kind, vlen and the rest. */
	check_golden(mixed_btf(), BC_ORDER_NAME,
		"[1] PTR '' vlen=0 kflag=0 ->7\n"
		"[2] PTR '' vlen=0 kflag=0 ->11\n"
		"[3] PTR '' vlen=0 kflag=0 ->17\n"
		"[4] PTR '' vlen=0 kflag=0 ->21\n"
		"[5] ARRAY '' vlen=0 kflag=0 0 ->14 ->14 2\n"
		"[6] VOLATILE '' vlen=0 kflag=0 ->14\n"
		"[7] CONST '' vlen=0 kflag=0 ->6\n"
		"[8] RESTRICT '' vlen=0 kflag=0 ->4\n"
		"[9] FUNC_PROTO '' vlen=1 kflag=0 ->14\n"
		"\t't' ->4\n"
		"[10] DATASEC '.data' vlen=1 kflag=0 24\n"
		"\t ->13 0 24\n"
		"[11] FWD 'file' vlen=0 kflag=0 0\n"
		"[12] FLOAT 'float' vlen=0 kflag=0 4\n"
		"[13] VAR 'init_task' vlen=0 kflag=0 ->21 1\n"
		"[14] INT 'int' vlen=0 kflag=0 4 16777248\n"
		"[15] DECL_TAG 'kfunc' vlen=0 kflag=0 ->22 4294967295\n"
		"[16] ENUM64 'mask' vlen=1 kflag=0 8\n"
		"\t'ALL' 4294967295 4294967295\n"
		"[17] TYPE_TAG 'percpu' vlen=0 kflag=0 ->14\n"
		"[18] TYPEDEF 'pid_t' vlen=0 kflag=0 ->14\n"
		"[19] ENUM 'state' vlen=2 kflag=0 4\n"
		"\t'RUNNING' 0\n"
		"\t'STOPPED' 1\n"
		"[20] TYPEDEF 'state' vlen=0 kflag=0 ->19\n"
		"[21] STRUCT 'task' vlen=4 kflag=0 24\n"
		"\t'next' ->4 0\n"
		"\t'pid' ->18 64\n"
		"\t'state' ->20 96\n"
		"\t'prio' ->5 128\n"
		"[22] FUNC 'task_pid' vlen=1 kflag=0 ->9\n"
		"[23] UNION 'word' vlen=2 kflag=0 4\n"
		"\t'i' ->14 0\n"
		"\t'f' ->12 0\n");
}
END_TEST

/* ---- merging ------------------------------------------------------------ */

START_TEST(test_merge_identical_subgraphs)
{
	struct btf *b = new_btf();
	struct blob in, out;
	uint32_t *id_map;

	ADD(1, btf__add_int(b, "int", 4, BTF_INT_SIGNED));
	ADD(2, btf__add_struct(b, "list", 16));	/* [2] struct list { */
	ENTRY(btf__add_field(b, "next", 3, 0, 0));	/*	struct list *next; */
	ENTRY(btf__add_field(b, "v", 1, 64, 0));	/*	int v; } */
	ADD(3, btf__add_ptr(b, 2));		/* [3] struct list * */
	ADD(4, btf__add_int(b, "int", 4, BTF_INT_SIGNED));
	ADD(5, btf__add_struct(b, "list", 16));	/* [5] struct list { */
	ENTRY(btf__add_field(b, "next", 6, 0, 0));	/*	struct list *next; */
	ENTRY(btf__add_field(b, "v", 4, 64, 0));	/*	int v; } */
	ADD(6, btf__add_ptr(b, 5));		/* [6] struct list * */

	in = take_blob(b);
	out = check_output(&in, NULL, NULL, BC_ORDER_KIND,
		"[1] INT 'int' vlen=0 kflag=0 4 16777248\n"
		"[2] PTR '' vlen=0 kflag=0 ->3\n"
		"[3] STRUCT 'list' vlen=2 kflag=0 16\n"
		"\t'next' ->2 0\n"
		"\t'v' ->1 64\n");
	blob_free(&out);

	/* Both copies map to the one that is kept. */
	out = canon_blob(&in, NULL, BC_ORDER_KIND, &id_map);
	ck_assert_uint_eq(id_map[0], id_map[3]);
	ck_assert_uint_eq(id_map[1], id_map[4]);
	ck_assert_uint_eq(id_map[2], id_map[5]);
	free(id_map);
	blob_free(&out);
	blob_free(&in);
}
END_TEST

START_TEST(test_struct_and_fwd_not_merged)
{
	struct btf *b = new_btf();

	ADD(1, btf__add_int(b, "int", 4, BTF_INT_SIGNED));
	ADD(2, btf__add_fwd(b, "s", BTF_FWD_STRUCT));	/* [2] struct s; */
	ADD(3, btf__add_ptr(b, 2));		/* [3] struct s * (declared) */
	ADD(4, btf__add_struct(b, "s", 4));	/* [4] struct s { */
	ENTRY(btf__add_field(b, "x", 1, 0, 0));	/*	int x; } */
	ADD(5, btf__add_ptr(b, 4));		/* [5] struct s * (complete) */

	/* canon_blob() does not resolve FWDs: the two stay apart. */
	check_golden(b, BC_ORDER_KIND,
		"[1] INT 'int' vlen=0 kflag=0 4 16777248\n"
		"[2] PTR '' vlen=0 kflag=0 ->4\n"
		"[3] PTR '' vlen=0 kflag=0 ->5\n"
		"[4] STRUCT 's' vlen=1 kflag=0 4\n"
		"\t'x' ->1 0\n"
		"[5] FWD 's' vlen=0 kflag=0 0\n");
}
END_TEST

START_TEST(test_vars_keep_identity)
{
	struct btf *b = new_btf();

	ADD(1, btf__add_int(b, "int", 4, BTF_INT_SIGNED));
	ADD(2, btf__add_var(b, "x", BTF_VAR_STATIC, 1));	/* [2] x in .data */
	ADD(3, btf__add_var(b, "x", BTF_VAR_STATIC, 1));	/* [3] x in .bss */
	ADD(4, btf__add_datasec(b, ".data", 4));	/* [4] SEC .data { */
	ENTRY(btf__add_datasec_var_info(b, 2, 0, 4));	/*	x } */
	ADD(5, btf__add_datasec(b, ".bss", 4));	/* [5] SEC .bss { */
	ENTRY(btf__add_datasec_var_info(b, 3, 0, 4));	/*	x } */
	ADD(6, btf__add_decl_tag(b, "in_data", 2, -1));
	ADD(7, btf__add_decl_tag(b, "in_bss", 3, -1));
	ADD(8, btf__add_var(b, "y", BTF_VAR_STATIC, 1));	/* [8] y, no section */
	ADD(9, btf__add_var(b, "y", BTF_VAR_STATIC, 1));	/* [9] y, no section */

	/*
	 * The x's are equal as trees but are two variables. The one named
	 * by .bss comes first, since .bss sorts before .data, and each
	 * keeps its tag. The y's, named by no DATASEC, are only their
	 * content, and merge.
	 */
	check_golden(b, BC_ORDER_KIND,
		"[1] INT 'int' vlen=0 kflag=0 4 16777248\n"
		"[2] VAR 'x' vlen=0 kflag=0 ->1 0\n"
		"[3] VAR 'x' vlen=0 kflag=0 ->1 0\n"
		"[4] VAR 'y' vlen=0 kflag=0 ->1 0\n"
		"[5] DATASEC '.bss' vlen=1 kflag=0 4\n"
		"\t ->2 0 4\n"
		"[6] DATASEC '.data' vlen=1 kflag=0 4\n"
		"\t ->3 0 4\n"
		"[7] DECL_TAG 'in_bss' vlen=0 kflag=0 ->2 4294967295\n"
		"[8] DECL_TAG 'in_data' vlen=0 kflag=0 ->3 4294967295\n");
}
END_TEST

START_TEST(test_vars_in_one_section)
{
	struct btf *b = new_btf();

	ADD(1, btf__add_int(b, "int", 4, BTF_INT_SIGNED));
	ADD(2, btf__add_var(b, "x", BTF_VAR_STATIC, 1));	/* [2] a.c's x */
	ADD(3, btf__add_var(b, "x", BTF_VAR_STATIC, 1));	/* [3] b.c's x */
	ADD(4, btf__add_datasec(b, ".bss", 8));	/* [4] SEC .bss { */
	ENTRY(btf__add_datasec_var_info(b, 3, 0, 4));	/*	b.c's x */
	ENTRY(btf__add_datasec_var_info(b, 2, 4, 4));	/*	a.c's x } */
	ADD(5, btf__add_decl_tag(b, "a_c", 2, -1));
	ADD(6, btf__add_decl_tag(b, "b_c", 3, -1));

	/* Entry order decides: the x at offset 0 (b.c's) comes first. */
	check_golden(b, BC_ORDER_KIND,
		"[1] INT 'int' vlen=0 kflag=0 4 16777248\n"
		"[2] VAR 'x' vlen=0 kflag=0 ->1 0\n"
		"[3] VAR 'x' vlen=0 kflag=0 ->1 0\n"
		"[4] DATASEC '.bss' vlen=2 kflag=0 8\n"
		"\t ->2 0 4\n"
		"\t ->3 4 4\n"
		"[5] DECL_TAG 'a_c' vlen=0 kflag=0 ->3 4294967295\n"
		"[6] DECL_TAG 'b_c' vlen=0 kflag=0 ->2 4294967295\n");
}
END_TEST

/* ---- split BTF ---------------------------------------------------------- */

/*
 * Base: deliberately not in canonical order, to show its ids stay.
 * Split: a struct using base types, a duplicate pointer that merges.
 */
static struct btf *split_base(void)
{
	struct btf *base = new_btf();

	ADD(1, btf__add_struct(base, "task", 4));	/* [1] struct task { */
	ENTRY(btf__add_field(base, "pid", 2, 0, 0));	/*	int pid; } */
	ADD(2, btf__add_int(base, "int", 4, BTF_INT_SIGNED));
	ADD(3, btf__add_ptr(base, 1));		/* [3] struct task * */
	return base;
}

static struct btf *split_over(struct btf *base)
{
	struct btf *b = btf__new_empty_split(base);

	ck_assert_ptr_nonnull(b);
	ADD(4, btf__add_struct(b, "module", 16));	/* [4] struct module { */
	ENTRY(btf__add_field(b, "owner", 3, 0, 0));	/*	struct task *owner; */
	ENTRY(btf__add_field(b, "pid", 2, 64, 0));	/*	int pid; */
	ENTRY(btf__add_field(b, "refs", 6, 96, 0));	/*	unsigned int refs; } */
	ADD(5, btf__add_ptr(b, 4));		/* [5] struct module * */
	ADD(6, btf__add_int(b, "unsigned int", 4, 0));
	ADD(7, btf__add_typedef(b, "module_t", 4));
	ADD(8, btf__add_ptr(b, 4));		/* [8] struct module *, again */
	return b;
}

/* Own strings the split output needs: 'pid' and '' come from the base. */
static const char split_own_strs[] = "unsigned int\0module\0owner\0refs\0module_t";

static const char split_golden[] =
	"[4] INT 'unsigned int' vlen=0 kflag=0 4 32\n"
	"[5] PTR '' vlen=0 kflag=0 ->6\n"
	"[6] STRUCT 'module' vlen=3 kflag=0 16\n"
	"\t'owner' ->3 0\n"
	"\t'pid' ->2 64\n"
	"\t'refs' ->4 96\n"
	"[7] TYPEDEF 'module_t' vlen=0 kflag=0 ->6\n";

START_TEST(test_split)
{
	struct btf *base_btf = split_base();
	struct blob base_raw = blob_from_libbpf(base_btf);
	struct bc_btf *base = parse_or_fail(&base_raw, NULL);
	struct blob in = take_blob(split_over(base_btf));
	struct blob out = check_output(&in, base, base_btf, BC_ORDER_KIND,
				       split_golden);
	const struct btf_header *hdr = out.data;

	/* Strings the base holds are not repeated in the split's section. */
	ck_assert_uint_eq(hdr->str_len, sizeof(split_own_strs));
	ck_assert(!memcmp((const char *)out.data + hdr->hdr_len + hdr->str_off,
			  split_own_strs, sizeof(split_own_strs)));

	blob_free(&out);
	blob_free(&in);
	bc_btf_free(base);
	blob_free(&base_raw);
	btf__free(base_btf);
}
END_TEST

/*
 * The same split BTF, but with 'pid' stored again in the split's own
 * strings and struct module's member pointing there (libbpf never writes
 * that, other producers may): canon still uses the base's 'pid'.
 */
START_TEST(test_split_reuses_base_strings)
{
	struct btf *base_btf = split_base();
	struct blob base_raw = blob_from_libbpf(base_btf);
	struct bc_btf *base = parse_or_fail(&base_raw, NULL);
	struct blob lib = take_blob(split_over(base_btf));
	const struct btf_header *lhdr = lib.data;
	const struct btf_header *bhdr = base_raw.data;
	struct btf_header *hdr;
	struct blob in, out;
	uint32_t *member1_name;

	/* append "pid\0" to the split's strings */
	in.size = lib.size + 4;
	in.data = malloc(in.size);
	ck_assert_ptr_nonnull(in.data);
	memcpy(in.data, lib.data, lib.size);
	memcpy((char *)in.data + lib.size, "pid", 4);
	hdr = in.data;
	ck_assert_uint_eq(hdr->str_off + hdr->str_len + hdr->hdr_len, lib.size);
	hdr->str_len += 4;
	/* [4] struct module: name, info, size, then member 0, member 1 */
	member1_name = (uint32_t *)((char *)in.data + hdr->hdr_len +
				    hdr->type_off) + 3 + 3;
	ck_assert_str_eq(btf__name_by_offset(base_btf, *member1_name), "pid");
	*member1_name = bhdr->str_len + lhdr->str_len;

	out = check_output(&in, base, base_btf, BC_ORDER_KIND, split_golden);
	hdr = out.data;
	ck_assert_uint_eq(hdr->str_len, sizeof(split_own_strs));

	blob_free(&out);
	blob_free(&in);
	blob_free(&lib);
	bc_btf_free(base);
	blob_free(&base_raw);
	btf__free(base_btf);
}
END_TEST

/* The base itself canonicalizes as base BTF. */
START_TEST(test_split_base_alone)
{
	check_golden(split_base(), BC_ORDER_KIND,
		"[1] INT 'int' vlen=0 kflag=0 4 16777248\n"
		"[2] PTR '' vlen=0 kflag=0 ->3\n"
		"[3] STRUCT 'task' vlen=1 kflag=0 4\n"
		"\t'pid' ->1 0\n");
}
END_TEST

/* ---- the string section of base BTF -------------------------------------- */

/* A raw blob of the 24-byte header, nr_words type words and str_len bytes. */
static struct blob raw_btf(const uint32_t *words, uint32_t nr_words,
			   const char *strs, uint32_t str_len)
{
	struct blob b = { .size = sizeof(struct btf_header) + nr_words * 4 + str_len };
	struct btf_header *hdr;

	b.data = calloc(1, b.size);
	ck_assert_ptr_nonnull(b.data);
	hdr = b.data;
	hdr->magic = 0xeB9F;
	hdr->version = 1;
	hdr->hdr_len = sizeof(*hdr);
	hdr->type_len = nr_words * 4;
	hdr->str_off = hdr->type_len;
	hdr->str_len = str_len;
	memcpy(hdr + 1, words, nr_words * 4);
	memcpy((char *)(hdr + 1) + hdr->type_len, strs, str_len);
	return b;
}

/* The output's string section is exactly want (want_len bytes). */
static void assert_strings(const struct blob *out, const char *want,
			   uint32_t want_len)
{
	const struct btf_header *hdr = out->data;

	ck_assert_uint_eq(hdr->str_len, want_len);
	ck_assert(!memcmp((const char *)out->data + hdr->hdr_len + hdr->str_off,
			  want, want_len));
}

/* canon(x) is canon(canon(x)) and canon(permute(x)); returns canon(x). */
static struct blob canon_stable(const struct blob *in)
{
	struct blob out = canon_blob(in, NULL, BC_ORDER_KIND, NULL), again;
	unsigned int seed;

	again = canon_blob(&out, NULL, BC_ORDER_KIND, NULL);
	ck_assert_msg(blob_eq(&again, &out), "canon(canon(x)) != canon(x)");
	blob_free(&again);
	for (seed = 1; seed <= NR_SEEDS; seed++) {
		struct blob permuted = permute_blob(in, NULL, seed);
		struct blob sorted = canon_blob(&permuted, NULL, BC_ORDER_KIND, NULL);

		ck_assert_msg(blob_eq(&sorted, &out),
			      "canon(permute(x, %u)) != canon(x)", seed);
		blob_free(&sorted);
		blob_free(&permuted);
	}
	return out;
}

#define INFO(kind, vlen) ((uint32_t)(kind) << 24 | (vlen))

/*
 * Strings are stored once by content whatever offsets name them: the same
 * text twice in the input ("abc" at 12 and 16), an offset into the middle
 * of a longer string ("bar" and "ar" inside "foobar", "" at its NUL). The
 * input is written by hand: libbpf would have deduplicated it.
 */
START_TEST(test_strings_by_content)
{
	/* 0 "", 1 "foobar", 8 "bar", 12 "abc", 16 "abc", 20 "x" */
	static const char strs[] = "\0foobar\0bar\0abc\0abc\0x";
	const uint32_t words[] = {
		1, INFO(BTF_KIND_INT, 0), 4, 32,	/* [1] INT 'foobar' */
		4, INFO(BTF_KIND_TYPEDEF, 0), 1,	/* [2] 'bar' (middle) -> 1 */
		8, INFO(BTF_KIND_TYPEDEF, 0), 1,	/* [3] 'bar' -> 1, as [2] */
		16, INFO(BTF_KIND_TYPEDEF, 0), 1,	/* [4] 'abc' -> 1 */
		12, INFO(BTF_KIND_TYPEDEF, 0), 3,	/* [5] 'abc' -> 3 */
		5, INFO(BTF_KIND_TYPEDEF, 0), 1,	/* [6] 'ar' (middle) -> 1 */
		7, INFO(BTF_KIND_PTR, 0), 1,		/* [7] '' at 7 -> 1 */
	};
	struct blob in = raw_btf(words, sizeof(words) / 4, strs, sizeof(strs));
	struct blob out = canon_stable(&in);

	/* [2] and [3] merge: the strings move down over the room left */
	assert_listing(&out, NULL,
		"[1] INT 'foobar' vlen=0 kflag=0 4 32\n"
		"[2] PTR '' vlen=0 kflag=0 ->1\n"
		"[3] TYPEDEF 'abc' vlen=0 kflag=0 ->1\n"
		"[4] TYPEDEF 'abc' vlen=0 kflag=0 ->6\n"
		"[5] TYPEDEF 'ar' vlen=0 kflag=0 ->1\n"
		"[6] TYPEDEF 'bar' vlen=0 kflag=0 ->1\n");
	/* first use: INT, PTR (the empty string, 0), the typedefs in order */
	assert_strings(&out, "\0foobar\0abc\0ar\0bar", 19);
	blob_free(&out);
	blob_free(&in);
}
END_TEST

/*
 * The same text twice and no offset inside a string: the rebuild first
 * takes the input's strings as distinct, finds the twins at its check and
 * maps again by content.
 */
START_TEST(test_strings_twice)
{
	/* 0 "", 1 "int", 5 "abc", 9 "int", 13 "abc" */
	static const char strs[] = "\0int\0abc\0int\0abc";
	const uint32_t words[] = {
		9, INFO(BTF_KIND_INT, 0), 4, 32,	/* [1] INT 'int' */
		13, INFO(BTF_KIND_TYPEDEF, 0), 1,	/* [2] 'abc' -> 1 */
		5, INFO(BTF_KIND_TYPEDEF, 0), 2,	/* [3] 'abc' -> 2 */
		1, INFO(BTF_KIND_TYPEDEF, 0), 3,	/* [4] 'int' -> 3 */
	};
	struct blob in = raw_btf(words, sizeof(words) / 4, strs, sizeof(strs));
	struct blob out = canon_stable(&in);

	assert_listing(&out, NULL,
		"[1] INT 'int' vlen=0 kflag=0 4 32\n"
		"[2] TYPEDEF 'abc' vlen=0 kflag=0 ->1\n"
		"[3] TYPEDEF 'abc' vlen=0 kflag=0 ->2\n"
		"[4] TYPEDEF 'int' vlen=0 kflag=0 ->3\n");
	assert_strings(&out, "\0int\0abc", 9);
	assert_libbpf_accepts(&out, NULL);
	blob_free(&out);
	blob_free(&in);
}
END_TEST

/*
 * Offsets into one string can name more text than the input holds: the 16
 * suffixes of "abcdefghijklmnop" take 152 bytes after the empty string,
 * against the input's 18 in all.
 */
START_TEST(test_strings_outgrow_input)
{
	static const char strs[] = "\0abcdefghijklmnop";
	uint32_t words[3 + 2 * 16], e;
	char want[1 + 152], *at = want + 1;
	char golden[1024], *g = golden;
	struct blob in, out;

	words[0] = 1;
	words[1] = INFO(BTF_KIND_ENUM, 16);
	words[2] = 4;
	want[0] = '\0';
	g += sprintf(g, "[1] ENUM 'abcdefghijklmnop' vlen=16 kflag=0 4\n");
	for (e = 0; e < 16; e++) {
		words[3 + 2 * e] = 1 + e;	/* the suffix from byte e */
		words[4 + 2 * e] = e;
		g += sprintf(g, "\t'%s' %u\n", strs + 1 + e, e);
		if (e) {	/* the whole string is the enum's own name */
			strcpy(at, strs + 1 + e);
			at += strlen(at) + 1;
		} else {
			strcpy(at, strs + 1);
			at += 17;
		}
	}
	ck_assert_uint_eq(at - want, sizeof(want));
	in = raw_btf(words, sizeof(words) / 4, strs, sizeof(strs));
	out = canon_stable(&in);
	assert_listing(&out, NULL, golden);
	assert_strings(&out, want, sizeof(want));
	assert_libbpf_accepts(&out, NULL);
	blob_free(&out);
	blob_free(&in);
}
END_TEST

Suite *kinds_suite(void)
{
	Suite *s = suite_create("kinds");
	TCase *tc;

	tc = tcase_create("int");
	tcase_add_test(tc, test_int);
	suite_add_tcase(s, tc);

	tc = tcase_create("strings");
	tcase_add_test(tc, test_strings_by_content);
	tcase_add_test(tc, test_strings_twice);
	tcase_add_test(tc, test_strings_outgrow_input);
	suite_add_tcase(s, tc);

	tc = tcase_create("ptr_array");
	tcase_add_test(tc, test_ptr_array);
	suite_add_tcase(s, tc);

	tc = tcase_create("struct_union");
	tcase_add_test(tc, test_struct_union);
	suite_add_tcase(s, tc);

	tc = tcase_create("enum");
	tcase_add_test(tc, test_enum);
	suite_add_tcase(s, tc);

	tc = tcase_create("fwd_typedef_modifiers");
	tcase_add_test(tc, test_fwd_typedef_modifiers);
	suite_add_tcase(s, tc);

	tc = tcase_create("func");
	tcase_add_test(tc, test_func);
	suite_add_tcase(s, tc);

	tc = tcase_create("var_datasec");
	tcase_add_test(tc, test_var_datasec);
	suite_add_tcase(s, tc);

	tc = tcase_create("float");
	tcase_add_test(tc, test_float);
	suite_add_tcase(s, tc);

	tc = tcase_create("decl_tag");
	tcase_add_test(tc, test_decl_tag);
	suite_add_tcase(s, tc);

	tc = tcase_create("type_tag");
	tcase_add_test(tc, test_type_tag);
	suite_add_tcase(s, tc);

	tc = tcase_create("orders");
	tcase_add_test(tc, test_mixed_kind_order);
	tcase_add_test(tc, test_mixed_name_order);
	suite_add_tcase(s, tc);

	tc = tcase_create("merge");
	tcase_add_test(tc, test_merge_identical_subgraphs);
	tcase_add_test(tc, test_struct_and_fwd_not_merged);
	tcase_add_test(tc, test_vars_keep_identity);
	tcase_add_test(tc, test_vars_in_one_section);
	suite_add_tcase(s, tc);

	tc = tcase_create("omit");
	tcase_add_test(tc, test_omit);
	suite_add_tcase(s, tc);

	tc = tcase_create("split");
	tcase_add_test(tc, test_split);
	tcase_add_test(tc, test_split_reuses_base_strings);
	tcase_add_test(tc, test_split_base_alone);
	suite_add_tcase(s, tc);

	return s;
}
