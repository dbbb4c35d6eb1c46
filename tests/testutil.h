/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers shared by the test suites: raw blobs from libbpf-built BTF,
 * canonicalization in one call, id permutations, and a text listing.
 */
#ifndef BTFCANON_TESTUTIL_H
#define BTFCANON_TESTUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <bpf/btf.h>
#include <check.h>

#include "../canon/btf_data.h"
#include "../canon/canon.h"

/* A malloc'd byte buffer. */
struct blob {
	void *data;
	size_t size;
};

void blob_free(struct blob *b);
bool blob_eq(const struct blob *a, const struct blob *b);

/* The raw bytes of a libbpf btf (copied). */
struct blob blob_from_libbpf(const struct btf *btf);

/* Parses raw BTF over base (may be NULL); fails the test on error. */
struct bc_btf *parse_or_fail(const struct blob *raw, const struct bc_btf *base);

/*
 * Canonicalizes raw (over base, may be NULL) with the given order; fails
 * the test on error. id_map, when not NULL, receives canon's map (malloc'd).
 */
struct blob canon_blob(const struct blob *raw, const struct bc_btf *base,
		       enum bc_order order, uint32_t **id_map);

struct encode_result;

/*
 * Canonicalizes what encode_file() returned (over base, may be NULL), its
 * helper types omitted as `btfcanon encode` omits them, FWDs resolved when
 * resolve_fwds; fails the test on error.
 */
struct blob canon_encoded(const struct encode_result *enc,
			  const struct bc_btf *base, enum bc_order order,
			  bool resolve_fwds);

/*
 * Writes the types of raw in a random order (seeded), ids remapped, the
 * string section unchanged. With base, only the split part moves.
 */
struct blob permute_blob(const struct blob *raw, const struct bc_btf *base,
			 unsigned int seed);

/*
 * A text listing of every local type, one line per type plus one per
 * entry, as "[id] KIND 'name' key=value ...". Returns a malloc'd string.
 */
char *listing(const struct bc_btf *btf);

/* Same, for a raw blob. */
char *listing_blob(const struct blob *raw, const struct bc_btf *base);

/* Reads a whole file; size 0 and NULL data when it does not exist. */
struct blob read_file(const char *path);

/*
 * Loads raw into the running kernel with bpf(BPF_BTF_LOAD). Returns 0 when
 * the kernel accepted it, -EPERM/-ENOSYS when the syscall is not allowed
 * here (callers skip), or another negative errno with the kernel's verifier
 * log in log_buf.
 */
int kernel_load_btf(const struct blob *raw, char *log_buf, size_t log_size);

/*
 * Walks every DIE of every unit of the ELF file at path (one unit in
 * unit_stride, 1 for all; type units of .debug_types too) with libdw and
 * fails the test unless encode/die_reader.h gives the same answers for
 * each: tag, children, the attributes (code, form, value pointer), their
 * unsigned values, .debug_str offsets and unit references, first child
 * and next sibling. Fails too when the reader answered (nearly) nothing
 * itself. section_abbrevs: the reader parses .debug_abbrev itself, as the
 * encoder has it do; else it builds its tables from libdw's reading.
 * Returns the number of DIEs compared.
 */
uint64_t die_reader_agrees(const char *path, uint32_t unit_stride,
			   bool section_abbrevs);

/*
 * Defined in test_deps.c, for test_header.c: libbpf's relocation of
 * object against kernel (btf_custom_path) agrees with btfcanon deps',
 * relocation by relocation (0 when libbpf cannot get to relocation here:
 * no bpf()); and the value deps gives one relocation (kind "byte_sz",
 * type "struct fd", name "flags"), *patched false when it is poisoned or
 * missing. Both fail the test on error.
 */
uint32_t deps_agree_with_libbpf(const char *object, const char *kernel);
bool deps_relo_value(const char *object, const char *kernel, const char *kind,
		     const char *type, const char *name, bool *patched,
		     unsigned long long *value);

/*
 * The run's cache: an artefact several cases need (a fixture compiled, a
 * real kernel encoded) made once per run of the tests instead of once per
 * case. Each case runs in a process of its own (CK_FORK), so a static in
 * the test's file does not outlive it; the cache is the directory
 * BTFCANON_TEST_CACHE, which tests/check_main.c makes (and removes) when it
 * is not set and `make check` empties at its start, shared by its parts.
 *
 * name is a file or directory in it. The first process to ask makes it,
 * holding name.lock: make(path, ctx) writes a temporary name that is
 * renamed into place, so no one sees half of it; the others wait on the
 * lock and reuse it. An artefact is a function of its name and of the
 * run's binaries and inputs (deterministic), so a reuse sees the bytes a
 * case of its own would have made, and nothing survives the run to go
 * stale. Cases read it, never write it: a file is made read-only (copy a
 * directory before changing what is in it). A make() that fails the test
 * leaves nothing behind; the next case to ask makes it again.
 * Returns the artefact's path (malloc'd).
 */
typedef void (*test_cache_make_fn)(const char *path, void *ctx);
char *test_cached(const char *name, test_cache_make_fn make, void *ctx);

/*
 * The directory of tests/kmod-fixture.sh's files (a small kernel with its
 * modules: package, tree, BTF directory), made once per run through
 * test_cached(); the caller frees the path.
 */
char *test_kmod_fixture(void);

/* rm -rf path (nftw, symlinks not followed); absent is fine. */
void remove_tree(const char *path);

/* A blob as a cache artefact's make(): writes the file path. */
void blob_write_or_fail(const struct blob *b, const char *path);

/*
 * Runs the printf-formatted shell command line (system(3)); returns its
 * exit status, 128 + the signal for one killed.
 */
int test_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
