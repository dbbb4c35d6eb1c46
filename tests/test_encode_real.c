// SPDX-License-Identifier: GPL-2.0-only
/*
 * The encoder on real kernels: Debian's debug vmlinux images (DWARF 5,
 * GCC), as DESIGN.md lists them.
 *
 *	determinism	the same bytes at -j1, -j2, -j16, -j64 and under five
 *			--shuffle-cus seeds (at -j1, 2, 16, 64), and with the
 *			type cache off; the -j2 bytes made once per run
 *			(test_cached()) and read by peer and consumers too
 *	peer		the part of the type graph reachable from named
 *			structs, unions, enums and typedefs equals, after
 *			canonicalization of both, that of Debian's pahole
 *			1.24 on the same file
 *	funcs		with the kernel build's features and flat arrays, the
 *			FUNC names equal those of the newest pahole (v1.31-38)
 *			on both kernels (tests/golden/pahole-1.31-38), but for
 *			the differences listed, each with its DWARF fact; and
 *			with true_signature added, on 6.12.117
 *	cache_hits	the type cache finds the header copies of 6.12.117 and
 *			of its nf_tables.ko (a relocatable link) as it did
 *	die_reader	encode/die_reader.h answers as libdw for every DIE of
 *			6.12.117 (tag, attributes, values, children, siblings)
 *	consumers	libbpf parses the output, the running kernel's
 *			verifier accepts it (bpf(BPF_BTF_LOAD)), bpftool dumps
 *			it as C and that header compiles with clang -target bpf
 *
 * A missing image or tool is a failure with the package to install: CI
 * installs them all (tools/setup-debian.sh).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <bpf/btf.h>
#include <check.h>

#include "../canon/btf_kinds.h"
#include "../encode/encoder.h"
#include "../encode/features.h"
#include "suites.h"
#include "testutil.h"

#define VMLINUX_612	"/usr/lib/debug/boot/vmlinux-6.12.117+deb12-cloud-amd64"
#define PKG_612		"linux-image-6.12.117+deb12-cloud-amd64-dbg"
#define MOD_NF_TABLES_612 \
	"/usr/lib/debug/lib/modules/6.12.117+deb12-cloud-amd64/kernel/net/netfilter/nf_tables.ko"
#define VMLINUX_61	"/usr/lib/debug/boot/vmlinux-6.1.0-56-cloud-amd64"
#define PKG_61		"linux-image-6.1.0-56-cloud-amd64-dbg"

static void require_file(const char *path, const char *package)
{
	ck_assert_msg(access(path, R_OK) == 0,
		      "%s is missing: apt-get install %s (tools/setup-debian.sh)",
		      path, package);
}

/* Warnings and errors; not the skipped functions (BC_LOG_INFO). */
static void quiet_log(void *ctx, enum bc_log_level level, const char *msg)
{
	(void)ctx;
	if (level < BC_LOG_INFO)
		fprintf(stderr, "%s\n", msg);
}

static const struct bc_log test_log = { .fn = quiet_log };

/* encode + canon, as `btfcanon encode` does; features NULL: the defaults. */
static struct blob encode_blob_with(const char *path, unsigned int jobs,
				    int shuffle_seed, bool no_cache,
				    const char *features, bool flat_arrays)
{
	struct encode_opts eo;
	struct encode_stats es;
	struct encode_result enc;
	struct blob out;
	int err;

	encode_opts_init(&eo);
	eo.jobs = jobs;
	eo.no_type_cache = no_cache;
	if (features)
		ck_assert_int_eq(encode_features_parse(features, true, &eo.features,
						       &test_log), 0);
	eo.features.flat_arrays |= flat_arrays;
	if (shuffle_seed >= 0) {
		eo.shuffle = true;
		eo.shuffle_seed = shuffle_seed;
	}
	err = encode_file(path, &eo, &enc, &es, &test_log);
	ck_assert_msg(!err, "%s: encode -j%u failed: %s", path, jobs,
		      strerror(-err));
	out = canon_encoded(&enc, NULL, BC_ORDER_KIND, true);
	encode_result_deinit(&enc);
	return out;
}

static struct blob encode_blob(const char *path, unsigned int jobs,
			       int shuffle_seed, bool no_cache)
{
	return encode_blob_with(path, jobs, shuffle_seed, no_cache, NULL, false);
}

static void make_encoding(const char *path, void *ctx)
{
	struct blob b = encode_blob(ctx, 2, -1, false);

	blob_write_or_fail(&b, path);
	blob_free(&b);
}

/*
 * vmlinux encoded at -j2 with the default features, canonical: made once
 * per run (the run's cache) for the cases that only read it.
 */
static struct blob reference_encoding(const char *vmlinux)
{
	char name[256], *path;
	struct blob b;

	snprintf(name, sizeof(name), "encode_real-%s-j2.btf",
		 strrchr(vmlinux, '/') + 1);
	path = test_cached(name, make_encoding, (void *)vmlinux);
	b = read_file(path);
	ck_assert_msg(b.size, "%s: empty", path);
	free(path);
	return b;
}

static void check_determinism(const char *path, const char *package)
{
	static const unsigned int jobs[] = { 1, 16, 64 };
	static const unsigned int jobs_of[] = { 1, 2, 16, 64 };
	struct blob ref, other;
	unsigned int i;

	require_file(path, package);
	ref = reference_encoding(path);
	ck_assert_uint_gt(ref.size, 1000000);
	for (i = 0; i < sizeof(jobs) / sizeof(jobs[0]); i++) {
		other = encode_blob(path, jobs[i], -1, false);
		ck_assert_msg(blob_eq(&ref, &other),
			      "%s: -j%u differs from -j2 (%zu vs %zu bytes)",
			      path, jobs[i], other.size, ref.size);
		blob_free(&other);
	}
	for (i = 1; i <= 5; i++) {
		other = encode_blob(path, jobs_of[i % 4], i * 7919, false);
		ck_assert_msg(blob_eq(&ref, &other),
			      "%s: --shuffle-cus=%u -j%u differs from -j2",
			      path, i * 7919, jobs_of[i % 4]);
		blob_free(&other);
	}
	/* the type cache changes nothing but the time */
	other = encode_blob(path, 2, -1, true);
	ck_assert_msg(blob_eq(&ref, &other),
		      "%s: --no-type-cache differs from the cached encoding", path);
	blob_free(&other);
	blob_free(&ref);
}

START_TEST(test_determinism_612)
{
	check_determinism(VMLINUX_612, PKG_612);
}
END_TEST

START_TEST(test_determinism_61)
{
	check_determinism(VMLINUX_61, PKG_61);
}
END_TEST

/* ---- FUNCs: the newest pahole's function rules ---- */

/* The kernel build's --btf_features (scripts/Makefile.btf, 6.12). */
#define KERNEL_FEATURES "encode_force,var,float,enum64,decl_tag,type_tag," \
			"optimized_func,consistent_func,decl_tag_kfuncs"
#define PAHOLE_FUNCS "tests/golden/pahole-1.31-38/"

/*
 * Names one side has and the other not, each with the DWARF fact that
 * explains it: "+name" btfcanon writes a FUNC pahole does not, "-name"
 * the other way. Empty today: the sets are equal on both kernels.
 */
static const char *const expected_612[] = { NULL };
static const char *const expected_61[] = { NULL };

struct name_list {
	char **names;
	size_t nr, cap;
};

static void name_list_add(struct name_list *l, const char *name)
{
	if (l->nr == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 1024;
		l->names = realloc(l->names, l->cap * sizeof(*l->names));
		ck_assert_ptr_nonnull(l->names);
	}
	l->names[l->nr] = strdup(name);
	ck_assert_ptr_nonnull(l->names[l->nr]);
	l->nr++;
}

static void name_list_free(struct name_list *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		free(l->names[i]);
	free(l->names);
	memset(l, 0, sizeof(*l));
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The reference list: one name a line, gzip'd. */
static void read_names_gz(const char *path, struct name_list *l)
{
	char cmd[512], line[512];
	FILE *f;

	require_file(path, "the project's tests/golden");
	snprintf(cmd, sizeof(cmd), "gzip -dc %s", path);
	f = popen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (line[0])
			name_list_add(l, line);
	}
	ck_assert_int_eq(pclose(f), 0);
	qsort(l->names, l->nr, sizeof(*l->names), cmp_name);
}

static bool is_expected(const char *const *expected, char sign, const char *name)
{
	for (; *expected; expected++)
		if ((*expected)[0] == sign && !strcmp(*expected + 1, name))
			return true;
	return false;
}

static void check_funcs(const char *path, const char *package,
			const char *reference, const char *const *expected,
			const char *features)
{
	struct name_list ours = { 0 }, theirs = { 0 };
	struct blob out;
	struct btf *btf;
	uint32_t id, n;
	size_t i = 0, j = 0, differ = 0;

	require_file(path, package);
	read_names_gz(reference, &theirs);
	out = encode_blob_with(path, 2, -1, false, features, true);
	btf = btf__new(out.data, out.size);
	ck_assert_ptr_nonnull(btf);
	n = btf__type_cnt(btf);
	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (btf_is_func(t))
			name_list_add(&ours, btf__name_by_offset(btf, t->name_off));
	}
	qsort(ours.names, ours.nr, sizeof(*ours.names), cmp_name);
	while (i < ours.nr || j < theirs.nr) {
		int c = i == ours.nr ? 1 : j == theirs.nr ? -1 :
			strcmp(ours.names[i], theirs.names[j]);

		if (c < 0 && !is_expected(expected, '+', ours.names[i])) {
			fprintf(stderr, "funcs: %s: FUNC %s, which pahole leaves out\n",
				path, ours.names[i]);
			differ++;
		} else if (c > 0 && !is_expected(expected, '-', theirs.names[j])) {
			fprintf(stderr, "funcs: %s: no FUNC %s, which pahole writes\n",
				path, theirs.names[j]);
			differ++;
		}
		i += c <= 0;
		j += c >= 0;
	}
	ck_assert_msg(!differ,
		      "%s: %zu FUNC names differ from pahole v1.31-38's beyond the expected (%zu vs %zu FUNCs)",
		      path, differ, ours.nr, theirs.nr);
	btf__free(btf);
	blob_free(&out);
	name_list_free(&ours);
	name_list_free(&theirs);
}

START_TEST(test_funcs_612)
{
	check_funcs(VMLINUX_612, PKG_612, PAHOLE_FUNCS "6.12.117.funcs.gz",
		    expected_612, KERNEL_FEATURES);
}
END_TEST

/* true_signature: 499 clones get a FUNC of their own name (foo.isra.0). */
START_TEST(test_true_signature_612)
{
	check_funcs(VMLINUX_612, PKG_612,
		    PAHOLE_FUNCS "6.12.117.true_signature.funcs.gz", expected_612,
		    KERNEL_FEATURES ",true_signature");
}
END_TEST

START_TEST(test_funcs_61)
{
	check_funcs(VMLINUX_61, PKG_61, PAHOLE_FUNCS "6.1.192.funcs.gz",
		    expected_61, KERNEL_FEATURES);
}
END_TEST

/* ---- the peer: Debian's pahole 1.24 ---- */

static int run(const char *cmd)
{
	int status = system(cmd);

	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * An array of arrays as one array, the way pahole writes a C array with
 * several dimensions (`u64 m[2][5]` is one ARRAY of 10): btfcanon keeps
 * the dimensions, as DESIGN.md asks. Returns the innermost element and
 * multiplies *nelems.
 */
static uint32_t flat_elem(const struct bc_btf *b, uint32_t id, uint32_t *nelems)
{
	const struct btf_type *t = bc_btf_type(b, id);
	const uint32_t *w = (const uint32_t *)t;
	uint32_t elem = w[3];

	*nelems = w[5];
	while (elem && bc_type_kind(bc_btf_type(b, elem)) == BTF_KIND_ARRAY) {
		const uint32_t *inner = (const uint32_t *)bc_btf_type(b, elem);

		*nelems *= inner[5];
		elem = inner[3];
	}
	return elem;
}

/*
 * The subgraph reachable from named STRUCT, UNION, ENUM, ENUM64 and
 * TYPEDEF types, as a raw BTF of its own (ids renumbered in the original
 * order, the string section kept whole: canon lays strings out anew),
 * with multi-dimensional arrays flattened as pahole does (flat_elem).
 */
static struct blob closure_blob(const struct bc_btf *b)
{
	uint32_t n = b->nr_types, i, k, top = 0, *stack, *new_id;
	const struct btf_header *hdr = b->hdr;
	struct btf_header out_hdr;
	size_t types_size = 0, pos;
	bool *keep;
	uint8_t *data;
	struct blob out;

	keep = calloc(n + 1, sizeof(*keep));
	stack = malloc((n + 1) * sizeof(*stack));
	new_id = calloc(n + 1, sizeof(*new_id));
	ck_assert(keep && stack && new_id);
	for (i = 1; i <= n; i++) {
		const struct btf_type *t = bc_btf_type(b, i);
		uint32_t kind = bc_type_kind(t);

		if ((kind == BTF_KIND_STRUCT || kind == BTF_KIND_UNION ||
		     kind == BTF_KIND_ENUM || kind == BTF_KIND_ENUM64 ||
		     kind == BTF_KIND_TYPEDEF) && t->name_off &&
		    *bc_btf_str(b, t->name_off)) {
			keep[i] = true;
			stack[top++] = i;
		}
	}
	while (top) {
		i = stack[--top];
		if (bc_type_kind(bc_btf_type(b, i)) == BTF_KIND_ARRAY) {
			const uint32_t *w = (const uint32_t *)bc_btf_type(b, i);
			uint32_t nelems, refs[2] = { flat_elem(b, i, &nelems), w[4] };

			for (k = 0; k < 2; k++) {
				if (refs[k] && !keep[refs[k]]) {
					keep[refs[k]] = true;
					stack[top++] = refs[k];
				}
			}
			continue;
		}
		for (k = b->ref_start[i - 1]; k < b->ref_start[i]; k++) {
			uint32_t r = b->refs[k];

			if (r && !keep[r]) {
				keep[r] = true;
				stack[top++] = r;
			}
		}
	}
	for (i = 1, k = 0; i <= n; i++) {
		if (keep[i]) {
			new_id[i] = ++k;
			types_size += 4 * bc_type_words(bc_btf_type(b, i));
		}
	}
	out_hdr = *hdr;
	out_hdr.hdr_len = sizeof(out_hdr);
	out_hdr.type_off = 0;
	out_hdr.type_len = types_size;
	out_hdr.str_off = types_size;
	data = malloc(sizeof(out_hdr) + types_size + hdr->str_len);
	ck_assert_ptr_nonnull(data);
	memcpy(data, &out_hdr, sizeof(out_hdr));
	pos = sizeof(out_hdr);
	for (i = 1; i <= n; i++) {
		const struct btf_type *t = bc_btf_type(b, i);
		const struct bc_kind_layout *lay = &bc_kinds[bc_type_kind(t)];
		uint32_t words = bc_type_words(t), w, *dst;

		if (!keep[i])
			continue;
		dst = (uint32_t *)(data + pos);
		memcpy(dst, t, 4 * words);
		if (bc_type_kind(t) == BTF_KIND_ARRAY)
			dst[3] = flat_elem(b, i, &dst[5]);
		if (lay->head_ref)
			dst[2] = new_id[dst[2]];
		for (w = 0; w < lay->fixed_words; w++)
			if (lay->fixed_ref_mask & (1u << w))
				dst[3 + w] = new_id[dst[3 + w]];
		for (k = 0; lay->entry_words && k < bc_type_entries(t); k++)
			for (w = 0; w < lay->entry_words; w++)
				if (lay->entry_ref_mask & (1u << w)) {
					uint32_t *p = &dst[3 + lay->fixed_words +
							   k * lay->entry_words + w];
					*p = new_id[*p];
				}
		pos += 4 * words;
	}
	memcpy(data + pos, b->strs, hdr->str_len);
	out.data = data;
	out.size = pos + hdr->str_len;
	free(keep);
	free(stack);
	free(new_id);
	return out;
}

/* Types per kind, as "STRUCT 9398 ..." */
static void kind_counts(const struct bc_btf *b, char *buf, size_t size)
{
	uint32_t counts[BC_NR_KINDS] = { 0 }, i;
	size_t len = 0;

	for (i = 1; i <= b->nr_types; i++)
		counts[bc_type_kind(bc_btf_type(b, i))]++;
	buf[0] = '\0';
	for (i = 1; i < BC_NR_KINDS && len < size; i++)
		if (counts[i])
			len += snprintf(buf + len, size - len, " %s %u",
					bc_kinds[i].name, counts[i]);
}

/* The type cache's hits on path (default features, -j2). */
static uint64_t cache_hits(const char *path)
{
	struct encode_opts eo;
	struct encode_stats es;
	struct encode_result enc;
	int err;

	encode_opts_init(&eo);
	eo.jobs = 2;
	err = encode_file(path, &eo, &enc, &es, &test_log);
	ck_assert_msg(!err, "%s: encode failed: %s", path, strerror(-err));
	encode_result_deinit(&enc);
	return es.cache_hits;
}

/*
 * The type cache finds the copies of header types across units, in a
 * vmlinux and in a module (a relocatable link, where one name has many
 * .debug_str offsets: a cache keyed by offsets missed 96% there). The
 * counts are a function of the file and the chunking; fewer hits cost
 * time, not bytes, so only this test sees them. 3,771,135 on 6.12.117
 * since a big file is cut in chunks of 24 MiB (9), encoded in pieces with
 * a first piece of 2 MiB (issue 22: a later piece starts from its chunk's
 * first piece's cache, and misses what the pieces between met first;
 * 3,786,859 with pieces of equal shares, 3,749,774 in 16 chunks of
 * pieces), 3,775,432 with 16 whole chunks cut at equal shares of
 * the DWARF's bytes, 3,787,063 with the earlier chunks of equal unit
 * counts; 71,161 on its nf_tables.ko (chunks of under 4 MiB: one piece
 * each), 71,264 with chunks of equal unit counts, 2,874 with offset keys.
 */
START_TEST(test_cache_hits)
{
	require_file(VMLINUX_612, PKG_612);
	require_file(MOD_NF_TABLES_612, PKG_612);
	ck_assert_uint_ge(cache_hits(VMLINUX_612), 3771135);
	ck_assert_uint_ge(cache_hits(MOD_NF_TABLES_612), 71161);
}
END_TEST

START_TEST(test_die_reader_612)
{
	require_file(VMLINUX_612, PKG_612);
	ck_assert_uint_gt(die_reader_agrees(VMLINUX_612, 1, true), 10000000);
}
END_TEST

START_TEST(test_peer_pahole)
{
	char tmpl[] = "/tmp/btfcanon-peer-XXXXXX", cmd[512];
	struct blob ours, theirs, c_ours, c_theirs, t;
	struct bc_btf *p_ours, *p_theirs;
	int fd;

	require_file(VMLINUX_612, PKG_612);
	ck_assert_msg(access("/usr/bin/pahole", X_OK) == 0,
		      "pahole is missing: apt-get install dwarves");
	fd = mkstemp(tmpl);
	ck_assert_int_ge(fd, 0);
	close(fd);
	snprintf(cmd, sizeof(cmd),
		 "pahole -J --btf_gen_floats -j1 --btf_encode_detached=%s %s",
		 tmpl, VMLINUX_612);
	ck_assert_msg(run(cmd) == 0, "%s failed", cmd);
	t = read_file(tmpl);
	unlink(tmpl);
	theirs = canon_blob(&t, NULL, BC_ORDER_KIND, NULL);
	blob_free(&t);
	ours = reference_encoding(VMLINUX_612);

	p_ours = parse_or_fail(&ours, NULL);
	p_theirs = parse_or_fail(&theirs, NULL);
	t = closure_blob(p_ours);
	c_ours = canon_blob(&t, NULL, BC_ORDER_KIND, NULL);
	blob_free(&t);
	t = closure_blob(p_theirs);
	c_theirs = canon_blob(&t, NULL, BC_ORDER_KIND, NULL);
	blob_free(&t);
	if (!blob_eq(&c_ours, &c_theirs)) {
		struct bc_btf *a = parse_or_fail(&c_ours, NULL);
		struct bc_btf *b = parse_or_fail(&c_theirs, NULL);
		char ka[512], kb[512];

		kind_counts(a, ka, sizeof(ka));
		kind_counts(b, kb, sizeof(kb));
		ck_abort_msg("named-type closure differs from pahole 1.24's "
			     "(%zu vs %zu bytes); ours:%s; pahole's:%s",
			     c_ours.size, c_theirs.size, ka, kb);
	}
	bc_btf_free(p_ours);
	bc_btf_free(p_theirs);
	blob_free(&ours);
	blob_free(&theirs);
	blob_free(&c_ours);
	blob_free(&c_theirs);
}
END_TEST

/* ---- consumers ---- */

START_TEST(test_consumers)
{
	char dir[] = "/tmp/btfcanon-consumers-XXXXXX", cmd[1024], path[256];
	char log_buf[1 << 16];
	struct blob raw;
	struct btf *btf;
	FILE *f;
	int err;

	require_file(VMLINUX_612, PKG_612);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	raw = reference_encoding(VMLINUX_612);

	btf = btf__new(raw.data, raw.size);
	ck_assert_msg(btf, "libbpf rejects the encoded vmlinux BTF");
	ck_assert_int_gt(btf__find_by_name_kind(btf, "task_struct",
						BTF_KIND_STRUCT), 0);
	btf__free(btf);

	/* no log: at level 1 the kernel logs every type, and a full log is -ENOSPC */
	err = kernel_load_btf(&raw, NULL, 0);
	if (err == -EPERM || err == -ENOSYS) {
		fprintf(stderr, "consumers: bpf(BPF_BTF_LOAD) not permitted "
			"here (%s): kernel check skipped\n", strerror(-err));
	} else if (err) {
		size_t len;

		kernel_load_btf(&raw, log_buf, sizeof(log_buf));
		len = strlen(log_buf);
		ck_abort_msg("the kernel rejects the encoded BTF: %s; log ends: %s",
			     strerror(-err), log_buf + (len > 300 ? len - 300 : 0));
	}

	snprintf(path, sizeof(path), "%s/vmlinux.btf", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(raw.data, 1, raw.size, f), raw.size);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "bpftool btf dump file %s/vmlinux.btf format c > %s/vmlinux.h && "
		 "printf '#include \"vmlinux.h\"\\nint sz = sizeof(struct task_struct);\\n' "
		 "> %s/prog.c && "
		 "clang -target bpf -O2 -g -c -o %s/prog.o %s/prog.c",
		 dir, dir, dir, dir, dir);
	ck_assert_msg(run(cmd) == 0,
		      "bpftool's C dump of the encoded BTF does not compile "
		      "with clang -target bpf (kept in %s)", dir);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	run(cmd);
	blob_free(&raw);
}
END_TEST

/*
 * Each case a TCase tagged with its own name: tests/check_main.c runs the
 * long ones as parts of their own and the suite's part without them.
 */
static void add_case(Suite *s, const char *name, const TTest *test,
		     int timeout)
{
	TCase *tc = tcase_create(name);

	tcase_set_tags(tc, name);
	if (timeout)
		tcase_set_timeout(tc, timeout);
	tcase_add_test(tc, test);
	suite_add_tcase(s, tc);
}

Suite *encode_real_suite(void)
{
	Suite *s = suite_create("encode_real");

	add_case(s, "determinism_612", test_determinism_612, 0);
	add_case(s, "determinism_61", test_determinism_61, 0);
	add_case(s, "funcs_612", test_funcs_612, 0);
	add_case(s, "true_signature_612", test_true_signature_612, 0);
	add_case(s, "funcs_61", test_funcs_61, 0);
	add_case(s, "peer_pahole", test_peer_pahole, 0);
	add_case(s, "consumers", test_consumers, 0);
	add_case(s, "cache_hits", test_cache_hits, 300);
	add_case(s, "die_reader_612", test_die_reader_612, 300);
	return s;
}
