// SPDX-License-Identifier: GPL-2.0-only
/*
 * The 2026 BTF format: the 32-byte header with its kind layout section,
 * and types of kinds btfcanon does not know.
 *
 *	samples		pahole v1.31's two dummy.ko samples (tests/data/) parse;
 *			the layout-bearing one holds the same types and strings
 *	sort		sort keeps the layout section; sort(sort(x)) == sort(x);
 *			sort(permute(x)) == sort(x); with the section stripped
 *			the result is sort of the sample without it; libbpf and
 *			the running kernel take the 24-byte form
 *			split BTF with a section of its own keeps it
 *	vmlinux		the same properties on the running kernel's BTF with
 *			pahole's vmlinux layout section added
 *	cli		sort, dump (-f c, raw, json) and diff of both samples;
 *			encode --features layout writes pahole's section, for
 *			base BTF only; without it the 24-byte header
 *	unknown		a kind (25) the layout section sizes: dump and diff
 *			skip it (the record kept as read under an opaque
 *			placeholder `typedef void __btfcanon_unknown_kind25`,
 *			a warning), sort refuses naming the kind; in split BTF
 *			the base's section sizes it
 *	newer		the inline-site kinds 20-22 after dummy.ko's types
 *			(tests/tools/btf-add-kinds): dump -f raw/json list
 *			them by kind number and bytes, the rest as before;
 *			dump -f c and header compile; diff and deps answer
 *			for the types around them; sort, archive and min
 *			refuse, naming the kind and the first id; without
 *			the layout section every command refuses
 *	bad		a table of broken layout sections and headers, each
 *			refused with one message naming the file and the fault
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "suites.h"
#include "testutil.h"
#include "../canon/btf_kinds.h"

#define DATA_DIR "tests/data/"
#define SAMPLE_LAYOUT DATA_DIR "dummy.layout.btf"
#define SAMPLE_PLAIN DATA_DIR "dummy.btf"
#define VMLINUX_SECTION DATA_DIR "vmlinux-6.12.117.layout-section.bin"
#define BAD_PATH "bad/layout.btf"
#define UNKNOWN_KIND 25

/* Every message logged during one call, newline-separated. */
struct captured_log {
	char text[4096];
	size_t len;
	unsigned int count;
	unsigned int warnings;
};

static void capture(void *ctx, enum bc_log_level level, const char *msg)
{
	struct captured_log *cap = ctx;
	int n;

	n = snprintf(cap->text + cap->len, sizeof(cap->text) - cap->len, "%s\n",
		     msg);
	if (n > 0)
		cap->len += (size_t)n < sizeof(cap->text) - cap->len ?
			    (size_t)n : sizeof(cap->text) - cap->len - 1;
	cap->count++;
	cap->warnings += level == BC_LOG_WARN;
}

static const struct bc_parse_opts skip_unknown = { .skip_unknown_kinds = true };

static struct blob data_file(const char *path)
{
	struct blob b = read_file(path);

	ck_assert_msg(b.size, "%s is missing (run from the top of the tree)", path);
	return b;
}

static const struct btf_header *hdr_of(const struct blob *b)
{
	return b->data;
}

/* The layout words of a header of at least 32 bytes, else zero. */
static void layout_words(const struct blob *b, uint32_t *off, uint32_t *len)
{
	const struct bc_btf_header_layout *lh = b->data;

	*off = *len = 0;
	if (hdr_of(b)->hdr_len >= sizeof(*lh)) {
		*off = lh->layout_off;
		*len = lh->layout_len;
	}
}

/* The kind layout section's bytes (size 0 when there is none). */
static struct blob section_of(const struct blob *b)
{
	struct blob s = { 0 };
	uint32_t off, len;

	layout_words(b, &off, &len);
	if (!len)
		return s;
	s.data = malloc(len);
	ck_assert_ptr_nonnull(s.data);
	memcpy(s.data, (char *)b->data + hdr_of(b)->hdr_len + off, len);
	s.size = len;
	return s;
}

static struct bc_btf *parse_quiet(const struct blob *raw,
				  const struct bc_btf *base,
				  const struct bc_parse_opts *opts,
				  struct captured_log *cap, int *err)
{
	struct bc_log log = { .fn = capture, .ctx = cap };
	struct bc_btf *btf = NULL;

	*err = bc_btf_parse_opts(raw->data, raw->size, base, opts, BAD_PATH,
				 &log, &btf);
	return btf;
}

/* The plain form (24-byte header) the parser holds. */
static struct blob plain_of(const struct blob *raw)
{
	struct captured_log cap = { .len = 0 };
	struct bc_btf *btf;
	struct blob out;
	int err;

	btf = parse_quiet(raw, NULL, NULL, &cap, &err);
	ck_assert_msg(!err, "parse failed: %s", cap.text);
	out.size = btf->size;
	out.data = malloc(out.size);
	ck_assert_ptr_nonnull(out.data);
	memcpy(out.data, btf->data, out.size);
	bc_btf_free(btf);
	return out;
}

/* A copy of the plain blob with a kind layout section added. */
static struct blob with_layout(const struct blob *plain,
			       const struct bc_btf_layout *layout, uint32_t nr)
{
	struct blob out = { malloc(plain->size), plain->size };

	ck_assert_ptr_nonnull(out.data);
	memcpy(out.data, plain->data, plain->size);
	ck_assert_int_eq(bc_btf_blob_add_layout(&out.data, &out.size, layout, nr), 0);
	return out;
}

/* The known kinds' layout: what encode --features layout writes. */
static void known_layout(struct bc_btf_layout layout[BC_NR_KINDS])
{
	uint32_t i;

	for (i = 0; i < BC_NR_KINDS; i++)
		layout[i] = bc_kind_btf_layout(i);
}

/* sort as the CLI does it: canon, keeping the input's layout section. */
static struct blob sort_keep(const struct blob *raw, enum bc_order order)
{
	struct captured_log cap = { .len = 0 };
	struct bc_log log = { .fn = capture, .ctx = &cap };
	struct canon_opts opts = { .order = order };
	struct canon_result res;
	struct bc_btf *btf;
	struct blob out;
	int err;

	btf = parse_quiet(raw, NULL, NULL, &cap, &err);
	ck_assert_msg(!err, "parse failed: %s", cap.text);
	opts.layout = btf->layout;
	opts.nr_layout = btf->nr_layout;
	err = canon_run(btf, &opts, &res, &log);
	ck_assert_msg(!err, "canon_run failed: %s", cap.text);
	out.data = res.raw;
	out.size = res.raw_size;
	res.raw = NULL;
	canon_result_deinit(&res);
	bc_btf_free(btf);
	return out;
}

/* ---- the samples ---------------------------------------------------------- */

START_TEST(test_samples_parse)
{
	struct blob lay = data_file(SAMPLE_LAYOUT), plain = data_file(SAMPLE_PLAIN);
	struct blob vmsec = data_file(VMLINUX_SECTION), sec = section_of(&lay);
	struct captured_log cap = { .len = 0 };
	struct bc_btf_layout known[BC_NR_KINDS];
	struct bc_btf *a, *b;
	uint32_t i;
	int err;

	ck_assert_uint_eq(hdr_of(&lay)->hdr_len, 32);
	ck_assert_uint_eq(hdr_of(&plain)->hdr_len, 32);
	a = parse_quiet(&lay, NULL, NULL, &cap, &err);
	ck_assert_msg(!err, "%s: %s", SAMPLE_LAYOUT, cap.text);
	b = parse_quiet(&plain, NULL, NULL, &cap, &err);
	ck_assert_msg(!err, "%s: %s", SAMPLE_PLAIN, cap.text);
	ck_assert_uint_eq(cap.count, 0);

	/* pahole writes kinds 0-19, each as the table says, flags 0 */
	known_layout(known);
	ck_assert_uint_eq(a->nr_layout, BC_NR_KINDS);
	ck_assert_ptr_null(b->layout);
	for (i = 0; i < BC_NR_KINDS; i++) {
		ck_assert_uint_eq(a->layout[i].info_sz, known[i].info_sz);
		ck_assert_uint_eq(a->layout[i].elem_sz, known[i].elem_sz);
		ck_assert_uint_eq(a->layout[i].flags, 0);
	}
	ck_assert_uint_eq(sec.size, sizeof(known));
	ck_assert(!memcmp(sec.data, known, sizeof(known)));
	/* vmlinux's section is the same 80 bytes as dummy.ko's */
	ck_assert(blob_eq(&sec, &vmsec));
	/* the same types and strings: the plain forms are equal */
	ck_assert_uint_eq(a->size, b->size);
	ck_assert(!memcmp(a->data, b->data, a->size));
	ck_assert_uint_eq(a->hdr->hdr_len, sizeof(struct btf_header));
	ck_assert_uint_gt(a->nr_types, 1000);

	bc_btf_free(a);
	bc_btf_free(b);
	blob_free(&lay);
	blob_free(&plain);
	blob_free(&vmsec);
	blob_free(&sec);
}
END_TEST

static const unsigned int seeds[] = { 1, 42, 0x5eed1234u };

/*
 * The sort properties on a layout-bearing blob: the section is kept as it
 * was, idempotence, permutation, and stripped equals the plain sort.
 */
static void check_sort_props(const struct blob *lay, enum bc_order order,
			     unsigned int nr_seeds)
{
	struct blob sorted = sort_keep(lay, order), again, plain, want, got;
	struct blob in_sec = section_of(lay), out_sec = section_of(&sorted);
	unsigned int s;

	ck_assert_uint_eq(hdr_of(&sorted)->hdr_len, 32);
	ck_assert_msg(blob_eq(&in_sec, &out_sec),
		      "the sorted output's layout section differs from the input's");
	/* types, layout, strings, in that order, as pahole writes them */
	ck_assert_uint_eq(((struct bc_btf_header_layout *)sorted.data)->layout_off,
			  hdr_of(&sorted)->type_len);

	again = sort_keep(&sorted, order);
	ck_assert_msg(blob_eq(&again, &sorted), "sort(sort(x)) != sort(x)");
	blob_free(&again);

	plain = plain_of(lay);
	for (s = 0; s < nr_seeds; s++) {
		struct blob perm = permute_blob(&plain, NULL, seeds[s]);
		struct blob perm_lay = with_layout(&perm, in_sec.data,
						   in_sec.size / 4);

		ck_assert_msg(!blob_eq(&perm, &plain), "seed %u permuted nothing",
			      seeds[s]);
		got = sort_keep(&perm_lay, order);
		ck_assert_msg(blob_eq(&got, &sorted),
			      "sort(permute(x, %u)) != sort(x)", seeds[s]);
		blob_free(&got);
		blob_free(&perm_lay);
		blob_free(&perm);
	}

	/* stripped of its section, it is sort of the plain form */
	want = canon_blob(&plain, NULL, order, NULL);
	got = plain_of(&sorted);
	ck_assert_msg(blob_eq(&got, &want),
		      "sort(x) without its layout section != sort(x without it)");
	blob_free(&want);
	blob_free(&got);
	blob_free(&plain);
	blob_free(&in_sec);
	blob_free(&out_sec);
	blob_free(&sorted);
}

/* libbpf 1.1 and the running kernel (6.18) take the 24-byte form. */
static void check_accepted(const struct blob *lay, enum bc_order order)
{
	struct blob sorted = sort_keep(lay, order), plain = plain_of(&sorted);
	struct blob in_plain = plain_of(lay);
	struct btf *lib = btf__new(plain.data, plain.size);
	char *log_buf = malloc(1 << 20);
	int in_err, err;

	ck_assert_msg(lib, "libbpf rejects the 24-byte form of sort's output");
	btf__free(lib);
	ck_assert_ptr_nonnull(log_buf);
	in_err = kernel_load_btf(&in_plain, NULL, 0);
	if (in_err == -EPERM || in_err == -ENOSYS) {
		fprintf(stderr, "layout: SKIP kernel verifier: %s\n", strerror(-in_err));
	} else if (!in_err) {
		/* the log only on failure: a whole vmlinux's overflows it */
		err = kernel_load_btf(&plain, NULL, 0);
		if (err) {
			kernel_load_btf(&plain, log_buf, 1 << 20);
			log_buf[(1 << 20) - 1] = '\0';
		}
		ck_assert_msg(!err, "the kernel takes the input but not sort's output: %d\n%.2000s",
			      err, err ? log_buf : "");
	} else {
		fprintf(stderr, "layout: the kernel rejects the input itself (%d): no verdict\n",
			in_err);
	}
	free(log_buf);
	blob_free(&in_plain);
	blob_free(&plain);
	blob_free(&sorted);
}

START_TEST(test_sample_sort)
{
	enum bc_order order = _i ? BC_ORDER_NAME : BC_ORDER_KIND;
	struct blob lay = data_file(SAMPLE_LAYOUT);

	check_sort_props(&lay, order, 3);
	check_accepted(&lay, order);
	blob_free(&lay);
}
END_TEST

/*
 * The running kernel's BTF, given pahole's vmlinux layout section; or the
 * layout-bearing BTF file $BTFCANON_LAYOUT_VMLINUX names (pahole 1.31's
 * 6.12.117 vmlinux sample, too big to keep here).
 */
START_TEST(test_vmlinux_sort)
{
	const char *given = getenv("BTFCANON_LAYOUT_VMLINUX");
	struct blob raw, vmsec, plain, lay;

	if (given) {
		raw = data_file(given);
		lay = section_of(&raw);
		ck_assert_msg(lay.size, "%s has no kind layout section", given);
		blob_free(&lay);
		check_sort_props(&raw, BC_ORDER_KIND, 3);
		check_sort_props(&raw, BC_ORDER_NAME, 1);
		check_accepted(&raw, BC_ORDER_KIND);
		blob_free(&raw);
		return;
	}
	raw = read_file("/sys/kernel/btf/vmlinux");
	if (!raw.size) {
		fprintf(stderr, "layout: SKIP vmlinux: no /sys/kernel/btf/vmlinux\n");
		return;
	}
	vmsec = data_file(VMLINUX_SECTION);
	plain = plain_of(&raw);
	lay = with_layout(&plain, vmsec.data, vmsec.size / 4);
	check_sort_props(&lay, BC_ORDER_KIND, 1);
	check_accepted(&lay, BC_ORDER_KIND);
	blob_free(&lay);
	blob_free(&plain);
	blob_free(&vmsec);
	blob_free(&raw);
}
END_TEST

/* Split BTF with a section of its own keeps it through sort. */
START_TEST(test_split_sort)
{
	struct btf *base = btf__new_empty(), *split;
	struct bc_btf_layout known[BC_NR_KINDS];
	struct blob base_raw, split_raw, split_lay, sorted, sec_in, sec_out, again;
	struct captured_log cap = { .len = 0 };
	struct bc_log log = { .fn = capture, .ctx = &cap };
	struct canon_opts opts = { .order = BC_ORDER_KIND };
	struct canon_result res;
	struct bc_btf *bbtf, *sbtf, *out;
	int err;

	ck_assert_ptr_nonnull(base);
	ck_assert_int_eq(btf__add_int(base, "int", 4, BTF_INT_SIGNED), 1);
	ck_assert_int_eq(btf__add_struct(base, "s", 4), 2);
	ck_assert_int_eq(btf__add_field(base, "a", 1, 0, 0), 0);
	split = btf__new_empty_split(base);
	ck_assert_ptr_nonnull(split);
	ck_assert_int_eq(btf__add_ptr(split, 4), 3);		/* [3] -> [5] */
	ck_assert_int_eq(btf__add_ptr(split, 2), 4);		/* [4] -> s */
	ck_assert_int_eq(btf__add_typedef(split, "t", 3), 5);	/* [5] -> [3] */
	base_raw = blob_from_libbpf(base);
	split_raw = blob_from_libbpf(split);
	known_layout(known);
	split_lay = with_layout(&split_raw, known, BC_NR_KINDS);

	bbtf = parse_or_fail(&base_raw, NULL);
	sbtf = parse_quiet(&split_lay, bbtf, NULL, &cap, &err);
	ck_assert_msg(!err, "%s", cap.text);
	ck_assert_uint_eq(sbtf->nr_layout, BC_NR_KINDS);
	opts.layout = sbtf->layout;
	opts.nr_layout = sbtf->nr_layout;
	ck_assert_int_eq(canon_run(sbtf, &opts, &res, &log), 0);
	sorted.data = res.raw;
	sorted.size = res.raw_size;
	res.raw = NULL;
	canon_result_deinit(&res);
	sec_in = section_of(&split_lay);
	sec_out = section_of(&sorted);
	ck_assert(blob_eq(&sec_in, &sec_out));
	out = parse_quiet(&sorted, bbtf, NULL, &cap, &err);
	ck_assert_msg(!err, "%s", cap.text);
	ck_assert_uint_eq(out->start_id, 3);
	/* and again: the same bytes */
	opts.layout = out->layout;
	ck_assert_int_eq(canon_run(out, &opts, &res, &log), 0);
	again.data = res.raw;
	again.size = res.raw_size;
	res.raw = NULL;
	canon_result_deinit(&res);
	ck_assert(blob_eq(&again, &sorted));

	blob_free(&again);
	bc_btf_free(out);
	bc_btf_free(sbtf);
	bc_btf_free(bbtf);
	blob_free(&sec_in);
	blob_free(&sec_out);
	blob_free(&sorted);
	blob_free(&split_lay);
	blob_free(&split_raw);
	blob_free(&base_raw);
	btf__free(split);
	btf__free(base);
}
END_TEST

/* ---- the command line ----------------------------------------------------- */

static char scratch[] = "/tmp/btfcanon-layout-XXXXXX";

static const char *cli(void)
{
	const char *path = getenv("BTFCANON");

	ck_assert_msg(path, "BTFCANON names the binary (make check sets it)");
	return path;
}

static struct blob scratch_file(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", scratch, name);
	return read_file(path);
}

static void write_scratch(const char *name, const struct blob *b)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", scratch, name);
	f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(b->data, 1, b->size, f), b->size);
	ck_assert_int_eq(fclose(f), 0);
}

static void cli_setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(scratch));
}

static void cli_teardown(void)
{
	test_sh("rm -rf %s", scratch);
}

START_TEST(test_cli_sort)
{
	struct blob lay = data_file(SAMPLE_LAYOUT), out, in_sec, out_sec, want;

	ck_assert_int_eq(test_sh("%s sort %s -o %s/sorted.btf", cli(), SAMPLE_LAYOUT,
			    scratch), 0);
	out = scratch_file("sorted.btf");
	in_sec = section_of(&lay);
	out_sec = section_of(&out);
	ck_assert_uint_eq(hdr_of(&out)->hdr_len, 32);
	ck_assert(blob_eq(&in_sec, &out_sec));
	want = sort_keep(&lay, BC_ORDER_KIND);
	ck_assert(blob_eq(&out, &want));
	/* the sample without a section sorts to the 24-byte header */
	ck_assert_int_eq(test_sh("%s sort %s -o %s/sorted-plain.btf", cli(),
			    SAMPLE_PLAIN, scratch), 0);
	blob_free(&out);
	out = scratch_file("sorted-plain.btf");
	ck_assert_uint_eq(hdr_of(&out)->hdr_len, 24);
	blob_free(&out);
	blob_free(&want);
	blob_free(&in_sec);
	blob_free(&out_sec);
	blob_free(&lay);
}
END_TEST

START_TEST(test_cli_dump_diff)
{
	static const char *const formats[] = { "c", "raw", "json" };
	unsigned int i;

	for (i = 0; i < 3; i++) {
		struct blob a, b;

		ck_assert_int_eq(test_sh("%s dump -f %s %s -o %s/a.%s", cli(), formats[i],
				    SAMPLE_LAYOUT, scratch, formats[i]), 0);
		ck_assert_int_eq(test_sh("%s dump -f %s %s -o %s/b.%s", cli(), formats[i],
				    SAMPLE_PLAIN, scratch, formats[i]), 0);
		ck_assert_int_eq(test_sh("%s dump --keep-ids -f %s %s > /dev/null", cli(),
				    formats[i], SAMPLE_LAYOUT), 0);
		{
			char an[16], bn[16];

			snprintf(an, sizeof(an), "a.%s", formats[i]);
			snprintf(bn, sizeof(bn), "b.%s", formats[i]);
			a = scratch_file(an);
			b = scratch_file(bn);
		}
		ck_assert_uint_gt(a.size, 10000);
		ck_assert_msg(blob_eq(&a, &b), "dump -f %s differs between the samples",
			      formats[i]);
		blob_free(&a);
		blob_free(&b);
	}
	/* the same types: no difference, either way */
	ck_assert_int_eq(test_sh("%s diff %s %s > /dev/null", cli(), SAMPLE_PLAIN,
			    SAMPLE_LAYOUT), 0);
	ck_assert_int_eq(test_sh("%s diff %s %s > /dev/null", cli(), SAMPLE_LAYOUT,
			    SAMPLE_PLAIN), 0);
	ck_assert_int_eq(test_sh("%s diff --json %s %s > /dev/null", cli(),
			    SAMPLE_LAYOUT, SAMPLE_LAYOUT), 0);
}
END_TEST

/* encode --features layout: pahole's section for base BTF, none for split. */
START_TEST(test_cli_encode)
{
	struct blob out, sec, vmsec = data_file(VMLINUX_SECTION);

	ck_assert_int_eq(test_sh("gcc -g -O0 -c tests/fixtures/func_types.c -o %s/func_types.o",
			    scratch), 0);
	ck_assert_int_eq(test_sh("%s encode --features default,layout %s/func_types.o -o %s/lay.btf",
			    cli(), scratch, scratch), 0);
	out = scratch_file("lay.btf");
	sec = section_of(&out);
	ck_assert_uint_eq(hdr_of(&out)->hdr_len, 32);
	ck_assert_msg(blob_eq(&sec, &vmsec),
		      "encode's layout section differs from pahole's");
	blob_free(&sec);
	blob_free(&out);

	ck_assert_int_eq(test_sh("%s encode --features default %s/func_types.o -o %s/plain.btf",
			    cli(), scratch, scratch), 0);
	out = scratch_file("plain.btf");
	ck_assert_uint_eq(hdr_of(&out)->hdr_len, 24);
	blob_free(&out);

	/* split BTF over a layout-bearing base: no section, as pahole */
	ck_assert_int_eq(test_sh("%s encode --features default,layout --btf_base %s/lay.btf %s/func_types.o -o %s/split.btf",
			    cli(), scratch, scratch, scratch), 0);
	out = scratch_file("split.btf");
	ck_assert_uint_eq(hdr_of(&out)->hdr_len, 24);
	ck_assert_int_eq(test_sh("%s dump --base %s/lay.btf %s/split.btf > /dev/null",
			    cli(), scratch, scratch), 0);
	blob_free(&out);
	blob_free(&vmsec);
}
END_TEST

/* ---- unknown kinds -------------------------------------------------------- */

/*
 * A base blob with a type of kind 25, which the layout section sizes as
 * 4 bytes after the head and 8 per entry:
 *	[1] INT 'int'
 *	[2] PTR -> [4]
 *	[3] STRUCT 'holder' { 'p' -> [2]; 'n' -> [1] }
 *	[4] kind 25 'mystery' vlen=2 (12 + 4 + 2 * 8 bytes)
 *	[5] TYPEDEF 'after' -> [4]
 * With nr_layout below 26, the section has no entry for kind 25.
 */
static struct blob unknown_kind_blob(uint32_t nr_layout, uint8_t info_sz)
{
	struct btf *btf = btf__new_empty();
	struct bc_btf_layout layout[32] = { 0 };
	struct blob lib, out;
	uint32_t name, words[8], i, type_len, *w;
	uint8_t *p;

	ck_assert_ptr_nonnull(btf);
	ck_assert_int_eq(btf__add_int(btf, "int", 4, BTF_INT_SIGNED), 1);
	ck_assert_int_eq(btf__add_ptr(btf, 4), 2);
	ck_assert_int_eq(btf__add_struct(btf, "holder", 16), 3);
	ck_assert_int_eq(btf__add_field(btf, "p", 2, 0, 0), 0);
	ck_assert_int_eq(btf__add_field(btf, "n", 1, 64, 0), 0);
	ck_assert_int_gt((int)(name = btf__add_str(btf, "mystery")), 0);
	ck_assert_int_gt(btf__add_str(btf, "after"), 0);
	lib = blob_from_libbpf(btf);
	/* the kind 25 record goes between [3] and a TYPEDEF [5] */
	words[0] = name;
	words[1] = (uint32_t)UNKNOWN_KIND << 24 | 2;
	for (i = 2; i < 8; i++)
		words[i] = 0x1000 + i;
	type_len = hdr_of(&lib)->type_len;
	out.size = lib.size + sizeof(words) + 12;
	out.data = malloc(out.size);
	ck_assert_ptr_nonnull(out.data);
	p = out.data;
	memcpy(p, lib.data, 24 + type_len);
	memcpy(p + 24 + type_len, words, sizeof(words));
	w = (uint32_t *)(p + 24 + type_len + sizeof(words));
	w[0] = btf__find_str(btf, "after");
	w[1] = (uint32_t)BTF_KIND_TYPEDEF << 24;
	w[2] = 4;
	memcpy(p + 24 + type_len + sizeof(words) + 12,
	       (uint8_t *)lib.data + 24 + type_len, hdr_of(&lib)->str_len);
	((struct btf_header *)p)->type_len = type_len + sizeof(words) + 12;
	((struct btf_header *)p)->str_off = type_len + sizeof(words) + 12;
	btf__free(btf);
	blob_free(&lib);

	known_layout(layout);
	layout[UNKNOWN_KIND].info_sz = info_sz;
	layout[UNKNOWN_KIND].elem_sz = 8;
	lib = with_layout(&out, layout, nr_layout);
	blob_free(&out);
	return lib;
}

START_TEST(test_unknown_refused_by_sort)
{
	struct blob b = unknown_kind_blob(26, 4);
	struct captured_log cap = { .len = 0 };
	struct bc_btf *btf;
	int err;

	btf = parse_quiet(&b, NULL, NULL, &cap, &err);
	ck_assert_int_eq(err, -EOPNOTSUPP);
	ck_assert_ptr_null(btf);
	ck_assert_uint_eq(cap.count, 1);
	ck_assert_msg(strstr(cap.text, BAD_PATH) && strstr(cap.text, "kind 25") &&
		      strstr(cap.text, "type [4]") && strstr(cap.text, "cannot be sorted"),
		      "message: %s", cap.text);
	blob_free(&b);
}
END_TEST

START_TEST(test_unknown_skipped)
{
	struct blob b = unknown_kind_blob(26, 4);
	struct captured_log cap = { .len = 0 };
	const struct btf_type *t;
	struct bc_btf *btf;
	int err;

	btf = parse_quiet(&b, NULL, &skip_unknown, &cap, &err);
	ck_assert_msg(!err, "%s", cap.text);
	ck_assert_uint_eq(btf->nr_types, 5);
	ck_assert_uint_eq(btf->nr_unknown, 1);
	ck_assert_uint_eq(cap.warnings, 1);
	ck_assert_msg(strstr(cap.text, "kind 25") && strstr(cap.text, "[4] 'mystery'"),
		      "warning: %s", cap.text);
	t = bc_btf_type(btf, 4);
	ck_assert_uint_eq(bc_type_kind(t), BTF_KIND_TYPEDEF);
	ck_assert_uint_eq(t->type, 0);
	ck_assert_str_eq(bc_btf_str(btf, t->name_off), "__btfcanon_unknown_kind25");
	ck_assert(bc_is_unknown_placeholder(t, bc_btf_str(btf, t->name_off)));
	/* the record as read: its kind, name, vlen and bytes */
	{
		const struct bc_unknown_type *u = bc_btf_unknown(btf, 4);
		const uint8_t *in = (const uint8_t *)b.data + hdr_of(&b)->hdr_len +
				    hdr_of(&b)->type_len - 32 - 12;

		ck_assert_ptr_nonnull(u);
		ck_assert_uint_eq(u->id, 4);
		ck_assert_uint_eq(u->kind, UNKNOWN_KIND);
		ck_assert_uint_eq(u->vlen, 2);
		ck_assert_uint_eq(u->len, 12 + 4 + 2 * 8);
		ck_assert_str_eq(bc_btf_str(btf, u->name_off), "mystery");
		ck_assert(!memcmp(u->bytes, in, u->len));
		ck_assert_ptr_null(bc_btf_unknown(btf, 3));
		ck_assert_ptr_null(bc_btf_unknown(btf, 5));
	}
	/* the type after it is where it was, by id and content */
	t = bc_btf_type(btf, 5);
	ck_assert_uint_eq(bc_type_kind(t), BTF_KIND_TYPEDEF);
	ck_assert_uint_eq(t->type, 4);
	ck_assert_str_eq(bc_btf_str(btf, t->name_off), "after");
	ck_assert_uint_eq(bc_btf_type(btf, 2)->type, 4);
	/* libbpf 1.1 takes the plain form */
	{
		struct btf *lib = btf__new(btf->data, btf->size);

		ck_assert_ptr_nonnull(lib);
		btf__free(lib);
	}
	bc_btf_free(btf);
	blob_free(&b);
}
END_TEST

START_TEST(test_unknown_without_entry)
{
	struct blob b = unknown_kind_blob(BC_NR_KINDS, 4);
	struct captured_log cap = { .len = 0 };
	int err;

	ck_assert_ptr_null(parse_quiet(&b, NULL, &skip_unknown, &cap, &err));
	ck_assert_int_eq(err, -EINVAL);
	ck_assert_msg(strstr(cap.text, "unknown kind 25") &&
		      strstr(cap.text, "no entry"), "%s", cap.text);
	blob_free(&b);
	b = unknown_kind_blob(26, 6);
	cap.len = 0;
	cap.count = 0;
	ck_assert_ptr_null(parse_quiet(&b, NULL, &skip_unknown, &cap, &err));
	ck_assert_int_eq(err, -EINVAL);
	ck_assert_msg(strstr(cap.text, "not in 4-byte words"), "%s", cap.text);
	blob_free(&b);
}
END_TEST

/* Split BTF with no section of its own is sized by its base's, as libbpf. */
START_TEST(test_unknown_split)
{
	struct blob b = unknown_kind_blob(26, 4), split;
	struct captured_log cap = { .len = 0 };
	struct bc_btf *base, *btf;
	uint32_t *w;
	int err;

	base = parse_quiet(&b, NULL, &skip_unknown, &cap, &err);
	ck_assert_msg(!err, "%s", cap.text);
	/*
	 * 24-byte header, [6] kind 25 vlen 0 (16 bytes), [7] TYPEDEF 'mine'
	 * -> [4], strings "\0mine\0": 'mine' at the base input's string
	 * length + 1, where the base's placeholder name now lies
	 */
	split.size = 24 + 16 + 12 + 6;
	split.data = calloc(1, split.size);
	ck_assert_ptr_nonnull(split.data);
	memcpy(split.data, b.data, 24);
	((struct btf_header *)split.data)->hdr_len = 24;
	((struct btf_header *)split.data)->type_off = 0;
	((struct btf_header *)split.data)->type_len = 28;
	((struct btf_header *)split.data)->str_off = 28;
	((struct btf_header *)split.data)->str_len = 6;
	w = (uint32_t *)((char *)split.data + 24);
	w[1] = (uint32_t)UNKNOWN_KIND << 24;
	w[4] = hdr_of(&b)->str_len + 1;
	w[5] = (uint32_t)BTF_KIND_TYPEDEF << 24;
	w[6] = 4;
	memcpy((char *)split.data + 24 + 28, "\0mine", 6);
	ck_assert_uint_gt(base->str_added, 0);
	btf = parse_quiet(&split, base, &skip_unknown, &cap, &err);
	ck_assert_msg(!err, "%s", cap.text);
	ck_assert_uint_eq(btf->start_id, 6);
	ck_assert_uint_eq(btf->nr_unknown, 1);
	ck_assert_str_eq(bc_btf_str(btf, bc_btf_type(btf, 7)->name_off), "mine");
	ck_assert_str_eq(bc_btf_str(btf, bc_btf_type(btf, 4)->name_off),
			 "__btfcanon_unknown_kind25");
	ck_assert_str_eq(bc_btf_str(btf, bc_btf_type(btf, 6)->name_off),
			 "__btfcanon_unknown_kind25");
	ck_assert_str_eq(bc_btf_str(btf, bc_btf_unknown(btf, 4)->name_off), "mystery");
	bc_btf_free(btf);
	cap.len = 0;
	ck_assert_ptr_null(parse_quiet(&split, base, NULL, &cap, &err));
	ck_assert_int_eq(err, -EOPNOTSUPP);
	ck_assert_msg(strstr(cap.text, "kind 25"), "%s", cap.text);
	bc_btf_free(base);
	blob_free(&split);
	blob_free(&b);
}
END_TEST

START_TEST(test_unknown_cli)
{
	struct blob b = unknown_kind_blob(26, 4), out, err;

	write_scratch("unknown.btf", &b);
	/* sort: refused, naming file and kind, nothing written */
	ck_assert_int_eq(test_sh("%s sort %s/unknown.btf -o %s/u-sorted.btf 2> %s/u.err",
			    cli(), scratch, scratch, scratch), 1);
	err = scratch_file("u.err");
	ck_assert_ptr_nonnull(err.data);
	((char *)err.data)[err.size - 1] = '\0';
	ck_assert_msg(strstr(err.data, "unknown.btf") && strstr(err.data, "kind 25"),
		      "%s", (char *)err.data);
	blob_free(&err);
	out = scratch_file("u-sorted.btf");
	ck_assert_uint_eq(out.size, 0);
	/* dump: the placeholder, and a warning naming the kind */
	ck_assert_int_eq(test_sh("%s dump -f raw --keep-ids %s/unknown.btf -o %s/u.raw 2> %s/u.err",
			    cli(), scratch, scratch, scratch), 0);
	out = scratch_file("u.raw");
	ck_assert_ptr_nonnull(out.data);
	ck_assert_msg(memmem(out.data, out.size,
			     "[4] UNKNOWN_KIND_25 'mystery' kind_number=25 vlen=2 bytes=1000000002000019", 74),
		      "%.*s", (int)out.size, (char *)out.data);
	ck_assert_msg(memmem(out.data, out.size, "[5] TYPEDEF 'after' type_id=4", 29),
		      "%.*s", (int)out.size, (char *)out.data);
	blob_free(&out);
	err = scratch_file("u.err");
	ck_assert_msg(err.size && memmem(err.data, err.size, "kind 25", 7),
		      "no warning naming kind 25");
	blob_free(&err);
	ck_assert_int_eq(test_sh("%s dump -f c %s/unknown.btf -o %s/u.h 2> /dev/null",
			    cli(), scratch, scratch), 0);
	out = scratch_file("u.h");
	ck_assert_msg(memmem(out.data, out.size,
			     "typedef void __btfcanon_unknown_kind25;", 39) &&
		      memmem(out.data, out.size,
			     "typedef __btfcanon_unknown_kind25 after;", 40),
		      "%.*s", (int)out.size, (char *)out.data);
	blob_free(&out);
	ck_assert_int_eq(test_sh("%s dump -f json %s/unknown.btf > /dev/null 2>&1",
			    cli(), scratch), 0);
	/* diff: against itself, nothing; against the sample, differences */
	ck_assert_int_eq(test_sh("%s diff %s/unknown.btf %s/unknown.btf > /dev/null 2>&1",
			    cli(), scratch, scratch), 0);
	ck_assert_int_eq(test_sh("%s diff %s/unknown.btf %s > /dev/null 2>&1",
			    cli(), scratch, SAMPLE_LAYOUT), 1);
	blob_free(&b);
}
END_TEST

/* ---- the inline-site kinds, as tests/tools/btf-add-kinds adds them -------- */

/*
 * dummy.layout.btf with kinds 20-22 (LOC_PARAM, LOC_PROTO, LOCSEC of the
 * 2026 UAPI, which btfcanon does not implement) after its last type [3239],
 * then known types that refer to them (tests/tools/btf-add-kinds.c):
 *	[3240], [3241] kind 20	[3242] kind 21 -> {[3240], [3241]}
 *	[3243] kind 22 '.loc'	[3244] PTR -> [3242]
 *	[3245] STRUCT 'kind_holder' { 'site' -> [3244]; 'count' -> int }
 *	[3246] TYPEDEF 'kind_site_t' -> [3243]
 * In newer/: with the kind layout section (kinds.btf, and as
 * 6.12.117-amd64.btf for header, whose kernels are named by version); in
 * newer/nol/: the same without it.
 */
static char newer[] = "/tmp/btfcanon-kinds-XXXXXX";

static void newer_setup(void)
{
	char tool[4096];
	const char *slash;

	ck_assert_ptr_nonnull(mkdtemp(newer));
	slash = strrchr(cli(), '/');
	snprintf(tool, sizeof(tool), "%.*sbtf-add-kinds",
		 slash ? (int)(slash - cli() + 1) : 0, cli());
	ck_assert_int_eq(test_sh("%s %s %s/kinds.btf && mkdir %s/nol && "
				 "%s --no-layout %s %s/nol/kinds.btf && "
				 "cp %s/kinds.btf %s/6.12.117-amd64.btf && "
				 "cp %s/nol/kinds.btf %s/nol/6.12.117-amd64.btf",
				 tool, SAMPLE_LAYOUT, newer, newer, tool,
				 SAMPLE_LAYOUT, newer, newer, newer, newer,
				 newer), 0);
	ck_assert_int_eq(test_sh("clang -target bpf -O2 -g -I tests/fixtures/deps -c "
				 "tests/fixtures/kinds/holder.bpf.c -o %s/holder.bpf.o",
				 newer), 0);
}

static void newer_teardown(void)
{
	test_sh("rm -rf %s", newer);
}

static struct blob newer_file(const char *name)
{
	char path[256];
	struct blob b;

	snprintf(path, sizeof(path), "%s/%s", newer, name);
	b = read_file(path);
	/* NUL-terminated, for strstr */
	b.data = realloc(b.data, b.size + 1);
	ck_assert_ptr_nonnull(b.data);
	((char *)b.data)[b.size] = '\0';
	return b;
}

static void assert_has(const struct blob *b, const char *what, const char *phrase)
{
	ck_assert_msg(b->data && strstr(b->data, phrase), "%s lacks '%s':\n%s", what,
		      phrase, b->data ? (char *)b->data : "(none)");
}

static void assert_lacks(const struct blob *b, const char *what, const char *phrase)
{
	ck_assert_msg(!strstr(b->data, phrase), "%s holds '%s':\n%s", what, phrase,
		      (char *)b->data);
}

/* The note every reading command gives: each kind, its count, its first. */
static void assert_kinds_noted(const char *err_name)
{
	struct blob err = newer_file(err_name);

	assert_has(&err, err_name, "kinds.btf: 2 type(s) of kind 20, which btfcanon does not know, stepped over by the kind layout section's sizes (first: [3240] '')");
	assert_has(&err, err_name, "1 type(s) of kind 21, which btfcanon does not know, stepped over by the kind layout section's sizes (first: [3242] ''); references to them read as the opaque 'typedef void __btfcanon_unknown_kind21'");
	assert_has(&err, err_name, "1 type(s) of kind 22, which btfcanon does not know, stepped over by the kind layout section's sizes (first: [3243] '.loc')");
	blob_free(&err);
}

static const char newer_tail[] =
	"[3240] UNKNOWN_KIND_20 '(anon)' kind_number=20 vlen=0 bytes=0000000000000014fcffffff0500000000000000\n"
	"[3241] UNKNOWN_KIND_20 '(anon)' kind_number=20 vlen=0 bytes=0000000000000094080000002a00000000000000\n"
	"[3242] UNKNOWN_KIND_21 '(anon)' kind_number=21 vlen=2 bytes=000000000200001529000000a80c0000a90c0000\n"
	"[3243] UNKNOWN_KIND_22 '.loc' kind_number=22 vlen=1 bytes=483c010001000016000000003e3c010029000000aa0c000040000000\n"
	"[3244] PTR '(anon)' type_id=3242\n"
	"[3245] STRUCT 'kind_holder' size=16 vlen=2\n"
	"\t'site' type_id=3244 bits_offset=0\n"
	"\t'count' type_id=20 bits_offset=64\n"
	"[3246] TYPEDEF 'kind_site_t' type_id=3243\n";

/*
 * dump -f raw: the input's ids kept (with a note), every type before the
 * new kinds listed as in dummy.layout.btf, each type of a new kind as its
 * kind number and bytes, the known types after them as they are.
 */
START_TEST(test_newer_dump_raw)
{
	struct blob raw, before, err, json;

	ck_assert_int_eq(test_sh("%s dump -f raw %s/kinds.btf -o %s/raw.txt 2> %s/raw.err",
			    cli(), newer, newer, newer), 0);
	ck_assert_int_eq(test_sh("%s dump -f raw --keep-ids %s -o %s/before.txt",
			    cli(), SAMPLE_LAYOUT, newer), 0);
	raw = newer_file("raw.txt");
	before = newer_file("before.txt");
	ck_assert_uint_eq(raw.size, before.size + strlen(newer_tail));
	ck_assert_msg(!memcmp(raw.data, before.data, before.size),
		      "the types before the new kinds are not listed as in %s",
		      SAMPLE_LAYOUT);
	ck_assert_str_eq((char *)raw.data + before.size, newer_tail);
	assert_kinds_noted("raw.err");
	err = newer_file("raw.err");
	assert_has(&err, "raw.err", "kinds.btf: types keep the input's ids, not the canonical order");
	blob_free(&err);
	/* JSON: the same, one type a line */
	ck_assert_int_eq(test_sh("%s dump -f json %s/kinds.btf -o %s/raw.json 2> /dev/null",
			    cli(), newer, newer), 0);
	json = newer_file("raw.json");
	assert_has(&json, "raw.json", ",\n{\"id\":3242,\"kind\":\"UNKNOWN_KIND_21\",\"name\":\"(anon)\",\"kind_number\":21,\"vlen\":2,\"bytes\":\"000000000200001529000000a80c0000a90c0000\"},\n{\"id\":3243,");
	assert_has(&json, "raw.json", "{\"id\":3246,\"kind\":\"TYPEDEF\",\"name\":\"kind_site_t\",\"type_id\":3243}\n]}\n");
	blob_free(&json);
	blob_free(&before);
	blob_free(&raw);
}
END_TEST

/* A program that names the types around the new kinds compiles with h. */
static void assert_compiles(const char *h)
{
	ck_assert_int_eq(test_sh("printf '#include \"%s\"\\n"
				 "int f(struct kind_holder *h, kind_site_t *s, struct net_device *d)"
				 " { return h->count + (h->site != 0) + (s != 0) + d->mtu; }\\n'"
				 " > %s/use.c && clang -target bpf -fsyntax-only -I %s %s/use.c",
				 h, newer, newer, newer), 0);
}

/*
 * dump -f c and header: a reference to a type of a new kind is to its
 * kind's opaque placeholder, declared once; no placeholder nothing refers
 * to (kind 20); the C compiles.
 */
START_TEST(test_newer_c)
{
	static const char *const files[] = { "k.h", "hdr.h" };
	struct blob h;
	int i;

	ck_assert_int_eq(test_sh("%s dump -f c %s/kinds.btf -o %s/k.h 2> %s/c.err",
			    cli(), newer, newer, newer), 0);
	assert_kinds_noted("c.err");
	ck_assert_int_eq(test_sh("%s header --kernel %s/6.12.117-amd64.btf -o %s/hdr.h 2> /dev/null",
			    cli(), newer, newer), 0);
	for (i = 0; i < 2; i++) {
		h = newer_file(files[i]);
		assert_has(&h, files[i], "\ntypedef void __btfcanon_unknown_kind21;\n");
		assert_has(&h, files[i], "\ntypedef void __btfcanon_unknown_kind22;\n");
		assert_has(&h, files[i], "\ntypedef __btfcanon_unknown_kind22 kind_site_t;\n");
		assert_has(&h, files[i], "struct kind_holder {\n\t__btfcanon_unknown_kind21 *site;\n\tint count;\n};\n");
		assert_lacks(&h, files[i], "kind20");
		assert_lacks(&h, files[i], "___2");
		assert_compiles(files[i]);
		blob_free(&h);
	}
}
END_TEST

/*
 * diff: the types added around the new kinds, and nothing for the types
 * of new kinds themselves (no C text to compare); against itself nothing.
 */
START_TEST(test_newer_diff)
{
	struct blob d;
	char want[1024];

	ck_assert_int_eq(test_sh("%s diff %s %s/kinds.btf > %s/d.txt 2> %s/d.err",
			    cli(), SAMPLE_LAYOUT, newer, newer, newer), 1);
	d = newer_file("d.txt");
	snprintf(want, sizeof(want),
		 "--- %s\n+++ %s/kinds.btf\n"
		 "+ struct kind_holder  (size 16, 2 members)\n"
		 "+ typedef kind_site_t  (__btfcanon_unknown_kind22 kind_site_t)\n",
		 SAMPLE_LAYOUT, newer);
	ck_assert_str_eq(d.data, want);
	blob_free(&d);
	assert_kinds_noted("d.err");
	ck_assert_int_eq(test_sh("%s diff %s/kinds.btf %s/kinds.btf > %s/d.txt 2> /dev/null",
			    cli(), newer, newer, newer), 0);
	d = newer_file("d.txt");
	ck_assert_uint_eq(d.size, 0);
	blob_free(&d);
}
END_TEST

/*
 * deps: the reads of the types around the new kinds (and dummy.ko's own
 * net_device) answer; --save, which writes an archive, refuses.
 */
START_TEST(test_newer_deps)
{
	struct blob out;

	ck_assert_int_eq(test_sh("%s deps --json --all %s/holder.bpf.o --kernel %s/kinds.btf > %s/deps.json 2> %s/deps.err",
			    cli(), newer, newer, newer, newer), 0);
	out = newer_file("deps.json");
	assert_has(&out, "deps.json", "\"type\":\"struct kind_holder\",\"access\":\"count\",\"autoload\":true,\"kernels\":{\"");
	assert_has(&out, "deps.json", "/kinds.btf\":{\"value\":8,\"status\":\"ok\"");
	assert_has(&out, "deps.json", "\"access\":\"site\",\"autoload\":true,\"kernels\":{\"");
	assert_has(&out, "deps.json", "/kinds.btf\":{\"value\":0,\"status\":\"ok\"");
	assert_has(&out, "deps.json", "/kinds.btf\":{\"value\":56,\"status\":\"ok\"");
	blob_free(&out);
	assert_kinds_noted("deps.err");
	ck_assert_int_eq(test_sh("%s deps --kernel %s/kinds.btf --save %s/saved.bca 2> %s/save.err",
			    cli(), newer, newer, newer), 2);
	out = newer_file("save.err");
	assert_has(&out, "save.err", "kinds.btf: type [3240] has kind 20, which btfcanon does not know");
	blob_free(&out);
	ck_assert_int_ne(test_sh("test -e %s/saved.bca", newer), 0);
}
END_TEST

/*
 * A module's split BTF over kinds.btf: its own names lie after the base's
 * strings, where the base's placeholder names now are, and still read as
 * its own; a reference into the base's new kinds reads as the placeholder.
 * deps over a directory of vmlinux and a module with a new kind of its own
 * steps over both.
 *	[3247] TYPEDEF 'mine' -> [3245] struct kind_holder
 *	[3248] PTR -> [3242] (kind 21)	[3249] TYPEDEF 'ptrloc' -> [3248]
 */
START_TEST(test_newer_split)
{
	struct blob base = newer_file("kinds.btf"), split, out;
	uint32_t str_len = hdr_of(&base)->str_len, *w;
	char path[256];

	split.size = 24 + 36 + 13;
	split.data = calloc(1, split.size);
	ck_assert_ptr_nonnull(split.data);
	memcpy(split.data, base.data, 24);
	((struct btf_header *)split.data)->hdr_len = 24;
	((struct btf_header *)split.data)->type_len = 36;
	((struct btf_header *)split.data)->str_off = 36;
	((struct btf_header *)split.data)->str_len = 13;
	w = (uint32_t *)((char *)split.data + 24);
	w[0] = str_len + 1, w[1] = BTF_KIND_TYPEDEF << 24, w[2] = 3245;
	w[3] = 0, w[4] = BTF_KIND_PTR << 24, w[5] = 3242;
	w[6] = str_len + 6, w[7] = BTF_KIND_TYPEDEF << 24, w[8] = 3248;
	memcpy(w + 9, "\0mine\0ptrloc", 13);
	snprintf(path, sizeof(path), "%s/mod.btf", newer);
	blob_write_or_fail(&split, path);
	ck_assert_int_eq(test_sh("%s dump -f raw --base %s/kinds.btf %s -o %s/mod.txt 2> /dev/null",
			    cli(), newer, path, newer), 0);
	out = newer_file("mod.txt");
	ck_assert_str_eq(out.data, "[3247] TYPEDEF 'mine' type_id=3245\n"
				   "[3248] PTR '(anon)' type_id=3242\n"
				   "[3249] TYPEDEF 'ptrloc' type_id=3248\n");
	blob_free(&out);
	ck_assert_int_eq(test_sh("%s dump -f c --base %s/kinds.btf %s -o %s/mod.h 2> /dev/null",
			    cli(), newer, path, newer), 0);
	out = newer_file("mod.h");
	assert_has(&out, "mod.h", "\ntypedef void __btfcanon_unknown_kind21;\n");
	assert_has(&out, "mod.h", "\ntypedef __btfcanon_unknown_kind21 *ptrloc;\n");
	assert_has(&out, "mod.h", "\ntypedef struct kind_holder mine;\n");
	blob_free(&out);
	/*
	 * deps over a directory as /sys/kernel/btf: vmlinux, and a module
	 * whose [3248] is of kind 21 too (vlen 1: -> [3240]), stepped over
	 */
	w[3] = 0, w[4] = 21u << 24 | 1, w[5] = 3240;
	split.size = 24 + 28 + 6;
	((struct btf_header *)split.data)->type_len = 28;
	((struct btf_header *)split.data)->str_off = 28;
	((struct btf_header *)split.data)->str_len = 6;
	memcpy(w + 7, "\0mine", 6);
	ck_assert_int_eq(test_sh("mkdir %s/sys && cp %s/kinds.btf %s/sys/vmlinux",
			    newer, newer, newer), 0);
	snprintf(path, sizeof(path), "%s/sys/mod", newer);
	blob_write_or_fail(&split, path);
	ck_assert_int_eq(test_sh("%s deps --json %s/holder.bpf.o --kernel %s/sys > %s/sys.json 2> %s/sys.err",
			    cli(), newer, newer, newer, newer), 0);
	out = newer_file("sys.json");
	assert_has(&out, "sys.json", "/sys\":{\"value\":8,\"status\":\"ok\"");
	blob_free(&out);
	out = newer_file("sys.err");
	assert_has(&out, "sys.err", "sys/mod: 1 type(s) of kind 21, which btfcanon does not know, stepped over by the kind layout section's sizes (first: [3248] '')");
	blob_free(&out);
	blob_free(&split);
	blob_free(&base);
}
END_TEST

/*
 * The commands that renumber ids refuse, naming the file, the kind and the
 * first type of it, and write nothing: sort, archive create and add, min.
 */
START_TEST(test_newer_renumber_refused)
{
	static const char *const cmds[] = {
		"sort %s/kinds.btf -o %s/out.btf",
		"archive create %s/a.bca %s/kinds.btf",
		"archive add %s/b.bca %s/kinds.btf",
		"min tests/fuzz/corpus/bpf_object/fix.bpf.o --kernel %s/kinds.btf -o %s/min",
	};
	struct blob err, before, after;
	char cmd[1024];
	int i;

	ck_assert_int_eq(test_sh("%s archive create %s/b.bca %s --name dummy",
			    cli(), newer, SAMPLE_LAYOUT), 0);
	before = newer_file("b.bca");
	for (i = 0; i < 4; i++) {
		snprintf(cmd, sizeof(cmd), cmds[i], newer, newer);
		ck_assert_int_ne(test_sh("%s %s 2> %s/r.err", cli(), cmd, newer), 0);
		err = newer_file("r.err");
		assert_has(&err, cmd, "kinds.btf: type [3240] has kind 20, which btfcanon does not know: the kind layout section gives its size, but not which of its words are type ids");
		assert_has(&err, cmd, "renumber");
		blob_free(&err);
	}
	ck_assert_int_ne(test_sh("test -e %s/out.btf || test -e %s/a.bca || "
				 "test -e %s/min/kinds.btf", newer, newer, newer), 0);
	after = newer_file("b.bca");
	ck_assert(blob_eq(&before, &after));
	blob_free(&before);
	blob_free(&after);
}
END_TEST

/* Without the layout section every command refuses, naming the kind. */
START_TEST(test_newer_no_layout)
{
	static const char *const cmds[] = {
		"sort %s/nol/kinds.btf -o %s/nol/out.btf",
		"dump -f raw %s/nol/kinds.btf -o %s/nol/out.txt",
		"dump -f c %s/nol/kinds.btf -o %s/nol/out.h",
		"dump -f json %s/nol/kinds.btf -o %s/nol/out.json",
		"diff %s/kinds.btf %s/nol/kinds.btf",
		"deps tests/fuzz/corpus/bpf_object/fix.bpf.o --kernel %s/nol/kinds.btf --kernel %s/kinds.btf",
		"deps --kernel %s/nol/kinds.btf --save %s/nol/saved.bca",
		"header --kernel %s/nol/6.12.117-amd64.btf -o %s/nol/out.h",
		"archive create %s/nol/a.bca %s/nol/kinds.btf",
		"min tests/fuzz/corpus/bpf_object/fix.bpf.o --kernel %s/nol/kinds.btf -o %s/nol/min",
	};
	struct blob err;
	char cmd[1024];
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		snprintf(cmd, sizeof(cmd), cmds[i], newer, newer);
		ck_assert_int_ne(test_sh("%s %s > /dev/null 2> %s/nol/r.err", cli(),
				    cmd, newer), 0);
		err = newer_file("nol/r.err");
		assert_has(&err, cmd, ".btf: type [3240] has unknown kind 20, a kind newer than btfcanon, and the BTF has no kind layout section to say how long its record is");
		blob_free(&err);
	}
	ck_assert_int_eq(test_sh("ls %s/nol | grep -v -x -e kinds.btf -e 6.12.117-amd64.btf -e r.err -e min",
			    newer), 1);
}
END_TEST

/* ---- bad layout sections and headers -------------------------------------- */

/*
 * The starting blob: [1] INT, [2] PTR -> [3], [3] STRUCT 'node' with two
 * members (64 bytes of types), then pahole's 20-entry layout section.
 */
static struct blob good_layout_blob(void)
{
	struct btf *btf = btf__new_empty();
	struct bc_btf_layout known[BC_NR_KINDS];
	struct blob lib, out;

	ck_assert_ptr_nonnull(btf);
	ck_assert_int_eq(btf__add_int(btf, "int", 4, BTF_INT_SIGNED), 1);
	ck_assert_int_eq(btf__add_ptr(btf, 3), 2);
	ck_assert_int_eq(btf__add_struct(btf, "node", 16), 3);
	ck_assert_int_eq(btf__add_field(btf, "val", 1, 0, 0), 0);
	ck_assert_int_eq(btf__add_field(btf, "next", 2, 64, 0), 0);
	lib = blob_from_libbpf(btf);
	btf__free(btf);
	known_layout(known);
	out = with_layout(&lib, known, BC_NR_KINDS);
	blob_free(&lib);
	return out;
}

/* Byte offsets in good_layout_blob(). */
enum {
	L_HDR_LEN = 4, L_TYPE_LEN = 12, L_STR_OFF = 16, L_LAYOUT_OFF = 24,
	L_LAYOUT_LEN = 28, L_STRUCT_INFO = 32 + 16 + 12 + 4,
	L_LAYOUT = 32 + 64,
};

struct bad_layout_row {
	const char *what;
	size_t off;		/* where to patch */
	uint32_t value;
	size_t width;		/* bytes of value to write */
	size_t off2;		/* a second 4-byte patch, if not 0 */
	uint32_t value2;
	int err;
	const char *phrase;
};

static const struct bad_layout_row bad_rows[] = {
	{ "section past the end", L_LAYOUT_LEN, 0x1000, 4, 0, 0, -EINVAL,
	  "runs past the end" },
	{ "offset past the end", L_LAYOUT_OFF, 0xfffffff0u, 4, 0, 0, -EINVAL,
	  "runs past the end" },
	{ "misaligned", L_LAYOUT_OFF, 64 + 2, 4, 0, 0, -EINVAL, "not 4-byte aligned" },
	{ "length not whole entries", L_LAYOUT_LEN, 78, 4, 0, 0, -EINVAL,
	  "not a multiple of 4" },
	{ "overlaps the types", L_LAYOUT_OFF, 60, 4, 0, 0, -EINVAL,
	  "overlaps the type section" },
	{ "overlaps the strings", L_LAYOUT_LEN, 84, 4, 0, 0, -EINVAL,
	  "overlaps the string section" },
	{ "a gap before it", L_LAYOUT_OFF, 68, 4, L_LAYOUT_LEN, 76, -EINVAL,
	  "expected the types at 0, the layout section right after them" },
	{ "wrong elem_sz for STRUCT", L_LAYOUT + 4 * BTF_KIND_STRUCT + 1, 16, 1, 0, 0,
	  -EINVAL, "entry 4 (STRUCT) says 0 bytes after the type and 16 per entry; STRUCT has 0 and 12" },
	{ "wrong info_sz for INT", L_LAYOUT + 4 * BTF_KIND_INT, 8, 1, 0, 0, -EINVAL,
	  "entry 1 (INT) says 8" },
	{ "an entry for FUNC's linkage", L_LAYOUT + 4 * BTF_KIND_FUNC + 1, 4, 1, 0, 0,
	  -EINVAL, "entry 12 (FUNC)" },
	{ "hdr_len between the two headers", L_HDR_LEN, 28, 4, 0, 0, -EINVAL,
	  "header length 28: neither" },
	{ "hdr_len past the data", L_HDR_LEN, 0x10000, 4, 0, 0, -EINVAL,
	  "header length 65536 out of range" },
	{ "kind bits 29-30 set", L_STRUCT_INFO, 0x60u << 24 | BTF_KIND_STRUCT << 24 | 2, 4, 0, 0,
	  -EINVAL, "unknown kind 100" },
	{ "vlen bits 16-23 count now", L_STRUCT_INFO, BTF_KIND_STRUCT << 24 | 0x10002, 4, 0, 0,
	  -EINVAL, "with vlen 65538 needs" },
};

#define NR_BAD_ROWS (int)(sizeof(bad_rows) / sizeof(bad_rows[0]))

static void expect_refused(const struct blob *b, int want_err,
			   const char *what, const char *phrase)
{
	struct captured_log cap = { .len = 0 };
	struct bc_btf *btf;
	int err;

	btf = parse_quiet(b, NULL, &skip_unknown, &cap, &err);
	ck_assert_msg(err == want_err, "%s: error %d, want %d; log: %s", what, err,
		      want_err, cap.text);
	ck_assert_ptr_null(btf);
	ck_assert_msg(cap.count == 1, "%s: %u messages: %s", what, cap.count, cap.text);
	ck_assert_msg(strstr(cap.text, BAD_PATH), "%s: file not named: %s", what,
		      cap.text);
	ck_assert_msg(strstr(cap.text, phrase), "%s: message lacks '%s': %s", what,
		      phrase, cap.text);
}

START_TEST(test_bad_layout)
{
	const struct bad_layout_row *row = &bad_rows[_i];
	struct blob b = good_layout_blob();

	if (_i == 0) {	/* the start is valid, else no row proves anything */
		struct captured_log cap = { .len = 0 };
		struct bc_btf *btf;
		int err;

		btf = parse_quiet(&b, NULL, NULL, &cap, &err);
		ck_assert_msg(!err, "%s", cap.text);
		ck_assert_uint_eq(btf->nr_layout, BC_NR_KINDS);
		ck_assert_uint_eq(hdr_of(&b)->type_len, 64);
		bc_btf_free(btf);
	}
	memcpy((uint8_t *)b.data + row->off, &row->value, row->width);
	if (row->off2)
		memcpy((uint8_t *)b.data + row->off2, &row->value2, 4);
	expect_refused(&b, row->err, row->what, row->phrase);
	blob_free(&b);
}
END_TEST

/* A 40-byte header: zero past byte 32 is fine, anything else is not. */
START_TEST(test_longer_header)
{
	struct blob good = good_layout_blob(), b;
	struct captured_log cap = { .len = 0 };
	struct bc_btf *btf;
	int err;

	b.size = good.size + 8;
	b.data = calloc(1, b.size);
	ck_assert_ptr_nonnull(b.data);
	memcpy(b.data, good.data, 32);
	memcpy((uint8_t *)b.data + 40, (uint8_t *)good.data + 32, good.size - 32);
	((struct btf_header *)b.data)->hdr_len = 40;
	btf = parse_quiet(&b, NULL, NULL, &cap, &err);
	ck_assert_msg(!err, "%s", cap.text);
	ck_assert_uint_eq(btf->nr_layout, BC_NR_KINDS);
	bc_btf_free(btf);
	((uint8_t *)b.data)[36] = 1;
	expect_refused(&b, -EINVAL, "byte 36 set", "non-zero header field at byte 36");
	/* a 32-byte header without a section: as the 24-byte one */
	blob_free(&b);
	b = data_file(SAMPLE_PLAIN);
	btf = parse_quiet(&b, NULL, NULL, &cap, &err);
	ck_assert_msg(!err, "%s", cap.text);
	ck_assert_ptr_null(btf->layout);
	bc_btf_free(btf);
	blob_free(&b);
	blob_free(&good);
}
END_TEST

/* bc_btf_blob_add_layout() takes only the plain form. */
START_TEST(test_add_layout_plain_only)
{
	struct blob lay = good_layout_blob();
	struct bc_btf_layout known[BC_NR_KINDS];

	known_layout(known);
	ck_assert_int_eq(bc_btf_blob_add_layout(&lay.data, &lay.size, known,
						BC_NR_KINDS), -EINVAL);
	blob_free(&lay);
}
END_TEST

Suite *layout_suite(void)
{
	Suite *s = suite_create("layout");
	TCase *tc;

	tc = tcase_create("samples");
	tcase_add_test(tc, test_samples_parse);
	tcase_add_loop_test(tc, test_sample_sort, 0, 2);
	tcase_add_test(tc, test_split_sort);
	suite_add_tcase(s, tc);

	tc = tcase_create("vmlinux");
	tcase_add_test(tc, test_vmlinux_sort);
	suite_add_tcase(s, tc);

	tc = tcase_create("cli");
	tcase_add_unchecked_fixture(tc, cli_setup, cli_teardown);
	tcase_add_test(tc, test_cli_sort);
	tcase_add_test(tc, test_cli_dump_diff);
	tcase_add_test(tc, test_cli_encode);
	tcase_add_test(tc, test_unknown_cli);
	suite_add_tcase(s, tc);

	tc = tcase_create("unknown");
	tcase_add_test(tc, test_unknown_refused_by_sort);
	tcase_add_test(tc, test_unknown_skipped);
	tcase_add_test(tc, test_unknown_without_entry);
	tcase_add_test(tc, test_unknown_split);
	suite_add_tcase(s, tc);

	tc = tcase_create("newer");
	tcase_add_unchecked_fixture(tc, newer_setup, newer_teardown);
	tcase_add_test(tc, test_newer_dump_raw);
	tcase_add_test(tc, test_newer_c);
	tcase_add_test(tc, test_newer_diff);
	tcase_add_test(tc, test_newer_deps);
	tcase_add_test(tc, test_newer_split);
	tcase_add_test(tc, test_newer_renumber_refused);
	tcase_add_test(tc, test_newer_no_layout);
	suite_add_tcase(s, tc);

	tc = tcase_create("bad");
	tcase_add_loop_test(tc, test_bad_layout, 0, NR_BAD_ROWS);
	tcase_add_test(tc, test_longer_header);
	tcase_add_test(tc, test_add_layout_plain_only);
	suite_add_tcase(s, tc);
	return s;
}
