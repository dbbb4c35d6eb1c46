// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every input the fuzzers found a bug with, replayed through the same code
 * the fuzz target runs (tests/fuzz/targets.c). Under `make asan` these are
 * the regression tests for the crashes in FUZZING.md; in the plain build
 * they still catch aborts, broken properties and crashes.
 *
 * The inputs live in tests/fuzz/found/<target>/, named after the bug. A
 * new finding: copy the crash file there, add a row below, fix the code.
 */
#include <stdio.h>

#include <check.h>

#include "fuzz/targets.h"
#include "suites.h"
#include "testutil.h"

#define FOUND_DIR "tests/fuzz/found/"

struct finding {
	const char *file;	/* under FOUND_DIR */
	int (*target)(const uint8_t *data, size_t size);
	const char *bug;	/* what it was, as fixed */
};

static const struct finding findings[] = {
	{ "sort/qsort-null-no-candidates", fuzz_sort_one,
	  "canon: qsort(NULL, 0) when no FWD candidates exist" },
	{ "sort/null-candidates-offset", fuzz_sort_one,
	  "canon: binary search over a NULL candidate array" },
	{ "dump/void-member-align-zero", fuzz_dump_one,
	  "dump -f c: SIGFPE in libbpf btf_dump on a struct with a void member" },
	{ "dump/member-past-struct-end", fuzz_dump_one,
	  "dump -f c: 280 MB of padding for a member 333 MB past its struct" },
	{ "dump/member-fwd-align-zero", fuzz_dump_one,
	  "dump -f c: SIGFPE on a FWD member after a misaligned one" },
	{ "dump/struct-contains-itself", fuzz_dump_one,
	  "dump -f c: libbpf's btf__align_of recursed on a by-value cycle" },
	{ "dump/huge-tail-hole", fuzz_dump_one,
	  "dump -f c: 300 MB of padding for a 1.8 GB struct with 3 members" },
	{ "diff/qsort-null-no-entries", fuzz_diff_one,
	  "diff: qsort(NULL, 0) for a type without entries" },
	{ "diff/int-vlen-first-entry-name", fuzz_diff_one,
	  "diff: an INT with vlen read as a struct's first member name" },
	{ "diff/anon-body-blowup", fuzz_diff_one,
	  "diff: anonymous bodies expanded within themselves, 2 GB of text" },
	{ "diff/unaligned-new-blob", fuzz_diff_one,
	  "parser: header and records read in place at an odd address (UBSan)" },
	{ "btf_elf/empty-btf-section", fuzz_btf_elf_one,
	  "reader: memcpy from the NULL buffer of an empty .BTF section" },
	{ "encode/memcpy-null-no-extra", fuzz_encode_one,
	  "encode: memcpy(NULL, 0) appending a type without extra words" },
	{ "encode/memcpy-null-no-types", fuzz_encode_one,
	  "encode: memcpy(NULL, 0) assembling an output without types" },
	{ "encode/atomic-type-loop", fuzz_encode_one,
	  "encode: stack overflow on atomic types that are their own DW_AT_type" },
	{ "encode/type-signature-loop", fuzz_encode_one,
	  "encode: stack overflow on a DW_AT_signature stub naming itself" },
	{ "encode/typedef-loop-enum-type", fuzz_encode_one,
	  "encode: endless loop on an enum whose underlying typedef is its own" },
	{ "encode/abstract-origin-not-subprogram", fuzz_encode_one,
	  "encode: a FUNC whose abstract origin is a struct, invalid BTF out" },
	{ "bpf_object/section-names-leak", fuzz_bpf_object_one,
	  "deps: program section names leaked when a later section was bad" },
	{ "bpf_object/two-license-sections", fuzz_bpf_object_one,
	  "deps: the first of two license sections leaked" },
	{ "bpf_object/misaligned-btf-section", fuzz_bpf_object_one,
	  "deps: .BTF at an odd file offset read through a misaligned header" },
	{ "bpf_object/empty-type-spelling-leak", fuzz_bpf_object_one,
	  "deps: the buffer of an empty prototype spelling leaked" },
	{ "bpf_object/min-memcpy-null-no-types", fuzz_bpf_object_one,
	  "min: memcpy(NULL, 0) writing an object's BTF that keeps no type" },
	{ "bpf_object/min-null-raws", fuzz_bpf_object_one,
	  "min: NULL + 0 recording a match with an empty access path" },
	{ "relocate/memcpy-null-empty-split", fuzz_relocate_one,
	  "canon: memcpy(NULL, 0) for split BTF with no strings of its own" },
	{ "kernel_file/btf-size-wraps", fuzz_kernel_file_one,
	  "deps: a saved kernel file's BTF size of 2^32 - 1 wrapped with its padding" },
	{ "kernel_file/modules-base-resaved", fuzz_kernel_file_one,
	  "deps: a saved kernel's modules written back over the sorted BTF, not their own base" },
	{ "archive/bsearch-null-more", fuzz_archive_one,
	  "archive: bsearch(NULL, 0) for a k > 0 reference in a kernel without such types" },
	{ "archive/kernel-without-name", fuzz_archive_one,
	  "archive: a kernel whose name is empty ended the kernels without an error" },
	{ "archive/view-k-beyond-records", fuzz_archive_one,
	  "archive views: a forged reference with k = 671 M made a view lookup allocate 2.7 GB" },
	{ "kimage/lzma-4gib-dictionary", fuzz_kimage_one,
	  "kimage: a .lzma header asking for a 4 GiB dictionary was allocated" },
};

#define NR_FINDINGS (int)(sizeof(findings) / sizeof(findings[0]))

START_TEST(test_replay)
{
	const struct finding *f = &findings[_i];
	char path[256];
	struct blob input;

	snprintf(path, sizeof(path), FOUND_DIR "%s", f->file);
	input = read_file(path);
	ck_assert_msg(input.data != NULL, "%s: missing", path);
	/* a crash or an abort fails the test in check's child process */
	ck_assert_int_eq(f->target(input.data, input.size), 0);
	blob_free(&input);
}
END_TEST

Suite *fuzzfound_suite(void)
{
	Suite *s = suite_create("fuzzfound");
	TCase *tc = tcase_create("replay");

	tcase_add_loop_test(tc, test_replay, 0, NR_FINDINGS);
	suite_add_tcase(s, tc);
	return s;
}
