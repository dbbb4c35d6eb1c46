// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fuzz targets' bodies, one function per input format. Each fuzz_*.c
 * is a libFuzzer entry point calling one of them; the check suite
 * tests/test_fuzzfound.c replays every input the fuzzers found through the
 * same functions, so a crash found once stays a regression test.
 *
 * What they share: a log that swallows messages (a rejection is a normal
 * outcome; only sanitizer reports and aborts are findings) and a way to hand
 * bytes to readers that take a path: an anonymous memory file, named
 * through /proc/self/fd.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <zlib.h>

#include "../../archive/internal.h"
#include "../../archive/kimage.h"
#include "../../archive/package.h"
#include "../../archive/kernel_set.h"
#include "../../canon/canon.h"
#include "../../canon/distill.h"
#include "../../archive/bpf_object.h"
#include "../../deps/core_relo.h"
#include "../../deps/deps.h"
#include "../../deps/min.h"
#include "../../diff/btf_diff.h"
#include "../../header/dump.h"
#include "../../header/slim.h"
#include "../../archive/input.h"
#include "../../encode/encoder.h"
#include "../../archive/btf_file.h"
#include "targets.h"

static void swallow_message(void *ctx, enum bc_log_level level, const char *msg)
{
	(void)ctx;
	(void)level;
	(void)msg;
}

static const struct bc_log fuzz_log = { .fn = swallow_message };

/* A memory file holding data; *path names it. Returns its fd. */
static int memory_file(const uint8_t *data, size_t size, char *path,
			size_t path_size)
{
	int fd = memfd_create("btfcanon-fuzz", MFD_CLOEXEC);
	size_t done = 0;

	if (fd < 0)
		abort();
	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);

		if (n <= 0)
			abort();
		done += (size_t)n;
	}
	snprintf(path, path_size, "/proc/self/fd/%d", fd);
	return fd;
}

/* A finding the sanitizers cannot see: a broken property. */
#define FUZZ_ASSERT(cond)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: property failed: %s\n",	\
				__FILE__, __LINE__, #cond);		\
			abort();					\
		}							\
	} while (0)

/*
 * Raw BTF into sort: bc_btf_parse() then canon_run() in both orders,
 * keeping the input's kind layout section as `btfcanon sort` does.
 *
 * Besides "no crash, no leak", whatever the parser accepts must come out as
 * canonical BTF that the parser accepts again, with the input's layout
 * section, whose plain form libbpf accepts, and sorting that output once
 * more must give the same bytes (sort(sort(x)) == sort(x)).
 */
static void sort_once(const struct bc_btf *in, enum bc_order order,
		      bool resolve_fwds)
{
	struct canon_opts opts = {
		.order = order, .resolve_fwds = resolve_fwds,
		.layout = in->layout, .nr_layout = in->nr_layout,
	};
	struct canon_result res = { 0 }, again = { 0 };
	struct bc_btf *out = NULL;
	struct btf *lbtf;

	if (canon_run(in, &opts, &res, &fuzz_log)) {
		canon_result_deinit(&res);
		return;
	}
	FUZZ_ASSERT(bc_btf_parse(res.raw, res.raw_size, NULL, "sorted",
				 &fuzz_log, &out) == 0);
	FUZZ_ASSERT(out->nr_layout == in->nr_layout);
	FUZZ_ASSERT(!in->nr_layout ||
		    !memcmp(out->layout, in->layout,
			    in->nr_layout * sizeof(*in->layout)));
	lbtf = btf__new(out->data, out->size);
	FUZZ_ASSERT(lbtf != NULL);
	btf__free(lbtf);
	opts.layout = out->layout;
	FUZZ_ASSERT(canon_run(out, &opts, &again, &fuzz_log) == 0);
	FUZZ_ASSERT(again.raw_size == res.raw_size &&
		    !memcmp(again.raw, res.raw, res.raw_size));
	canon_result_deinit(&again);
	canon_result_deinit(&res);
	bc_btf_free(out);
}

int fuzz_sort_one(const uint8_t *data, size_t size)
{
	struct bc_btf *btf = NULL;

	libbpf_set_print(NULL);
	if (bc_btf_parse(data, size, NULL, "fuzz", &fuzz_log, &btf))
		return 0;
	sort_once(btf, BC_ORDER_KIND, false);
	sort_once(btf, BC_ORDER_NAME, true);
	bc_btf_free(btf);
	return 0;
}

/* dump and diff go on past kinds the layout section sizes (archive/input.c). */
static const struct bc_parse_opts skip_unknown = { .skip_unknown_kinds = true };

/*
 * Raw BTF into dump: the raw and JSON listings of whatever the parser
 * accepts (types of unknown kinds read as placeholders), and the C header
 * when libbpf takes the blob too, through archive/input.c's hand-over. The
 * plain form the parser holds must parse, without skipping, to itself.
 */
int fuzz_dump_one(const uint8_t *data, size_t size)
{
	struct bc_btf *btf = NULL, *again = NULL;
	struct btf *lbtf = NULL, *lbase = NULL;
	struct bc_input in = { .path = "fuzz" };
	struct bc_text text;

	libbpf_set_print(NULL);
	if (bc_btf_parse_opts(data, size, NULL, &skip_unknown, "fuzz",
			      &fuzz_log, &btf))
		return 0;
	FUZZ_ASSERT(bc_btf_parse(btf->data, btf->size, NULL, "plain", &fuzz_log,
				 &again) == 0);
	FUZZ_ASSERT(again->size == btf->size &&
		    !memcmp(again->data, btf->data, btf->size));
	bc_btf_free(again);
	bc_text_init(&text);
	bc_dump_raw(btf, &text);
	bc_dump_json(btf, &text);
	in.btf = btf;
	if (!bc_input_to_libbpf(&in, &lbase, &lbtf, &fuzz_log)) {
		bc_dump_c(btf, lbtf, &text, &fuzz_log);
		btf__free(lbtf);
		btf__free(lbase);
	}
	bc_text_deinit(&text);
	bc_btf_free(btf);
	return 0;
}

/*
 * Two raw BTFs into diff. The input is a 4-byte little-endian length, the
 * old blob of that length, and the new blob (the rest). The three reports
 * are rendered, and a BTF compared with itself must give no difference.
 */
static void diff_and_print(const struct bc_btf *a, const struct bc_btf *b)
{
	static const struct bc_diff_print_opts popts = {
		.old_name = "old", .new_name = "new", .color = true,
	};
	struct bc_diff diff = { 0 };
	struct bc_text text;

	if (bc_diff_run(a, b, &diff, &fuzz_log)) {
		bc_diff_deinit(&diff);
		return;
	}
	if (a == b)
		FUZZ_ASSERT(diff.nr_entries == 0);
	bc_text_init(&text);
	bc_diff_print_text(&diff, &popts, &text);
	bc_diff_print_json(&diff, &popts, &text);
	bc_diff_print_stat(&diff, &popts, &text);
	bc_text_deinit(&text);
	bc_diff_deinit(&diff);
}

int fuzz_diff_one(const uint8_t *data, size_t size)
{
	struct bc_btf *old_btf = NULL, *new_btf = NULL;
	uint32_t old_size;

	libbpf_set_print(NULL);
	if (size < 4)
		return 0;
	old_size = data[0] | data[1] << 8 | data[2] << 16 | (uint32_t)data[3] << 24;
	data += 4;
	size -= 4;
	if (old_size > size)
		return 0;
	if (bc_btf_parse_opts(data, old_size, NULL, &skip_unknown, "old",
			      &fuzz_log, &old_btf) ||
	    bc_btf_parse_opts(data + old_size, size - old_size, NULL,
			      &skip_unknown, "new", &fuzz_log, &new_btf))
		goto out;
	diff_and_print(old_btf, new_btf);
	diff_and_print(new_btf, new_btf);
out:
	bc_btf_free(old_btf);
	bc_btf_free(new_btf);
	return 0;
}

/*
 * An ELF file into the .BTF reader (archive/btf_file.c), then the parser.
 */
int fuzz_btf_elf_one(const uint8_t *data, size_t size)
{
	enum bc_file_format format;
	struct bc_btf *btf = NULL;
	char path[64];
	int fd = memory_file(data, size, path, sizeof(path));

	if (!bc_file_load_btf(path, NULL, &btf, &format, &fuzz_log))
		bc_btf_free(btf);
	close(fd);
	return 0;
}

/*
 * An ELF file with DWARF into the encoder (one worker, every feature), and
 * whatever it encodes into the canonicalization encode runs before writing.
 */
static void canonicalize(const struct encode_result *enc)
{
	struct canon_opts opts = { .resolve_fwds = true, .omit = enc->omit };
	struct canon_result res = { 0 };
	struct bc_btf *parsed = NULL;
	const void *raw;
	uint32_t raw_size;

	raw = btf__raw_data(enc->btf, &raw_size);
	FUZZ_ASSERT(raw != NULL);
	/* the encoder's output must be valid BTF */
	FUZZ_ASSERT(bc_btf_parse(raw, raw_size, NULL, "encoded", &fuzz_log,
				 &parsed) == 0);
	canon_run(parsed, &opts, &res, &fuzz_log);
	canon_result_deinit(&res);
	bc_btf_free(parsed);
}

int fuzz_encode_one(const uint8_t *data, size_t size)
{
	struct encode_opts opts;
	struct encode_stats stats;
	struct encode_result enc;
	char path[64];
	int fd;

	libbpf_set_print(NULL);
	fd = memory_file(data, size, path, sizeof(path));
	encode_opts_init(&opts);
	opts.jobs = 1;
	if (!encode_file(path, &opts, &enc, &stats, &fuzz_log)) {
		canonicalize(&enc);
		encode_result_deinit(&enc);
	}
	close(fd);
	return 0;
}

/*
 * A BPF object into deps: the ELF reader, .BTF (with the kfunc fix-up of
 * bpf_object.c) and .BTF.ext, libbpf's open rules (an object they refuse
 * goes on, as deps reports it); then, whatever it accepts, the whole check
 * against the object's own BTF taken as a kernel's (every relocation
 * evaluated and described, hooks, externs, helpers, maps, program types).
 * Property: the report holds one relocation per CO-RE record.
 */
int fuzz_bpf_object_one(const uint8_t *data, size_t size)
{
	struct bc_deps_kernel kernel;
	struct bc_deps_report report;
	struct bc_bpf_object obj;
	uint32_t i, relos = 0, reported = 0;

	if (bc_bpf_object_parse_any(data, size, "fuzz.o", &obj, &fuzz_log))
		return 0;
	memset(&kernel, 0, sizeof(kernel));
	kernel.arg = "self";
	kernel.input.btf = obj.btf;
	if (bc_ktypes_init_btf(&kernel.types, obj.btf, true)) {
		bc_bpf_object_deinit(&obj);
		return 0;
	}
	for (i = 0; i < obj.nr_sections; i++)
		relos += obj.sections[i].nr_relos;
	if (!bc_deps_check(&obj, &kernel, 1, &report, &fuzz_log)) {
		for (i = 0; i < report.nr_deps; i++)
			reported += report.deps[i].class == BC_DEP_RELO;
		FUZZ_ASSERT(reported == relos);
		bc_deps_report_deinit(&report);
	}
	/* min of the object against its own BTF: valid BTF, or an error */
	{
		struct bc_min *m = NULL;
		struct bc_btf *out = NULL;
		void *raw = NULL;
		size_t size = 0;

		if (!bc_min_new(&kernel.types, &m) &&
		    !bc_min_add_object(m, &obj) &&
		    !bc_min_write(m, &raw, &size, &fuzz_log)) {
			FUZZ_ASSERT(!bc_btf_parse(raw, size, NULL, "min", &fuzz_log,
						  &out));
			bc_btf_free(out);
		}
		free(raw);
		bc_min_free(m);
	}
	bc_ktypes_deinit(&kernel.types);
	bc_bpf_object_deinit(&obj);
	return 0;
}

/*
 * A saved kernel file (deps --save: an archive of one kernel) into its
 * reader: the archive, then the kernel's BTF and its attachments:
 * function and data symbols, inlined names, a config (kconfig.c's
 * parser) and modules' split BTF. Property: what it accepts, written
 * back and read again, writes back the same bytes (the writer's order is
 * a fixpoint). An input without the archive magic is a body, wrapped
 * with a fresh checksum first, so mutations reach the attachments.
 */
int fuzz_kernel_file_one(const uint8_t *data, size_t size)
{
	struct bc_deps_kernel k, again;
	void *one = NULL, *two = NULL, *file = NULL;
	size_t one_size, two_size, file_size = 0;
	int err;

	/* a body (not a whole file) gets a fresh checksum, as fuzz_archive's */
	if (size < BC_ARCHIVE_MAGIC_LEN ||
	    memcmp(data, BC_ARCHIVE_MAGIC, BC_ARCHIVE_MAGIC_LEN)) {
		if (ar_wrap_body(data, size, 1, &file, &file_size))
			return 0;
		data = file;
		size = file_size;
	}
	err = bc_deps_kernel_parse(data, size, "fuzz.saved", &k, &fuzz_log);
	free(file);
	if (err)
		return 0;
	if (bc_deps_kernel_serialize(&k, bc_archive_kernel_name(k.archive, 0),
				     &one, &one_size, &fuzz_log)) {
		bc_deps_kernel_deinit(&k);
		return 0;
	}
	FUZZ_ASSERT(!bc_deps_kernel_parse(one, one_size, "fuzz.saved",
					  &again, &fuzz_log));
	FUZZ_ASSERT(!bc_deps_kernel_serialize(&again,
					      bc_archive_kernel_name(again.archive, 0),
					      &two, &two_size, &fuzz_log));
	FUZZ_ASSERT(two_size == one_size && !memcmp(two, one, one_size));
	free(two);
	bc_deps_kernel_deinit(&again);
	free(one);
	bc_deps_kernel_deinit(&k);
	return 0;
}

/*
 * Two raw BTFs into the distilled-base code (canon/distill.c): a u32
 * length L (little-endian), L bytes of base BTF B, then split BTF S over
 * B. S is relocated onto B, taking B as the distilled base of S (what a
 * module's .BTF.base and .BTF are), and S over B is distilled (B as the
 * full base). Properties: whatever either produces parses (over B for a
 * relocation, over the distilled base for a distillation), and a
 * distilled module relocates back onto B, or is refused with -ENOENT (B
 * has two types relocation cannot tell apart) or -EINVAL (B has an
 * anonymous INT, FLOAT or FWD, which libbpf's rules keep in the distilled
 * base and the kernel's refuse there).
 */
int fuzz_relocate_one(const uint8_t *data, size_t size)
{
	struct bc_btf *base = NULL, *split = NULL, *out = NULL, *dist = NULL;
	struct distill_result dr = { 0 };
	struct relocate_stats stats;
	uint32_t len;
	void *raw = NULL;
	size_t raw_size;
	int err;

	libbpf_set_print(NULL);
	if (size < 4)
		return 0;
	memcpy(&len, data, 4);
	if (len > size - 4)
		return 0;
	if (bc_btf_parse(data + 4, len, NULL, "fuzz-base", &fuzz_log, &base))
		return 0;
	if (bc_btf_parse(data + 4 + len, size - 4 - len, base, "fuzz-split",
			 &fuzz_log, &split))
		goto out;
	if (!bc_relocate(split, base, BC_ORDER_KIND, &raw, &raw_size, &stats,
			 &fuzz_log)) {
		FUZZ_ASSERT(bc_btf_parse(raw, raw_size, base, "relocated",
					 &fuzz_log, &out) == 0);
		bc_btf_free(out);
		out = NULL;
	}
	free(raw);
	raw = NULL;
	if (bc_distill(split, BC_ORDER_KIND, &dr, &fuzz_log))
		goto out;
	FUZZ_ASSERT(bc_btf_parse(dr.base_raw, dr.base_size, NULL, "distilled",
				 &fuzz_log, &dist) == 0);
	FUZZ_ASSERT(bc_btf_parse(dr.split_raw, dr.split_size, dist, "split",
				 &fuzz_log, &out) == 0);
	err = bc_relocate(out, base, BC_ORDER_KIND, &raw, &raw_size, &stats,
			  &fuzz_log);
	FUZZ_ASSERT(err == 0 || err == -ENOENT || err == -EINVAL);
	free(raw);
out:
	bc_distill_result_deinit(&dr);
	bc_btf_free(out);
	bc_btf_free(dist);
	bc_btf_free(split);
	bc_btf_free(base);
	return 0;
}

/*
 * The kernels of ar and of lazy (the same file read whole and lazily):
 * each rebuilt by both, with the same outcome and the same bytes.
 */
/*
 * may_refuse: lazy is a partial read of format 6, which refuses a kernel
 * whose streams are not cut between items (a whole read only fills the
 * body from them); what it gives is still the whole read's.
 */
static void archive_same_lazily(struct bc_archive *ar, struct bc_archive *lazy,
				bool may_refuse)
{
	uint32_t k;

	FUZZ_ASSERT(bc_archive_nr_kernels(lazy) == bc_archive_nr_kernels(ar));
	for (k = 0; k < bc_archive_nr_kernels(ar); k++) {
		void *one = NULL, *two = NULL;
		size_t one_size = 0, two_size = 0;
		int err_one = bc_archive_kernel_raw(ar, k, &one, &one_size, &fuzz_log);
		int err_two = bc_archive_kernel_raw(lazy, k, &two, &two_size, &fuzz_log);

		FUZZ_ASSERT(!err_one == !err_two || (may_refuse && err_two));
		FUZZ_ASSERT(err_two || (one_size == two_size &&
					(!one_size || !memcmp(one, two, one_size))));
		free(one);
		free(two);
	}
}

/*
 * One archive file into the reader: read lazily and partially, each
 * kernel rebuilt (whatever the whole read says: a lazy or partial read
 * fails only at what it uses); then read whole, and what it accepts the
 * lazy and partial reads accept with the same kernels; every kernel rebuilt (and parsed), a view of
 * each opened and walked, and the archive written back. Property: the
 * body written back, read and written once more, is the same bytes
 * (serialization is a fixpoint).
 */
static void archive_file_one(const uint8_t *file, size_t size)
{
	struct bc_archive *ar = NULL, *again = NULL, *lazy = NULL;
	struct ar_buf one = { 0 }, two = { 0 };
	void *file2 = NULL, *raw;
	size_t file2_size, raw_size;
	uint32_t k, id;
	bool v6;
	int mode;

	/* lazily, then partially (the string bytes and words left packed) */
	for (mode = AR_READ_LAZY; mode <= AR_READ_PARTIAL; mode++) {
		if (ar_parse_as(file, size, "fuzz.bca", (enum ar_read_mode)mode,
				&lazy, &fuzz_log))
			continue;
		for (k = 0; k < bc_archive_nr_kernels(lazy); k++) {
			struct bc_archive_kmods *km;
			uint32_t i;

			if (!bc_archive_kernel_raw(lazy, k, &raw, &raw_size, &fuzz_log))
				free(raw);
			/* format 6 in part: one name's group, its module */
			if (lazy->mod_dir.nr) {
				const char *name = lazy->mod_dir.names[k % lazy->mod_dir.nr];
				int at = bc_archive_read_module(lazy, k, name, &fuzz_log);

				if (at >= 0 && !bc_archive_kmods_open(lazy, k, &km, NULL,
								      NULL, &fuzz_log)) {
					if (!bc_archive_kmods_module(km, (uint32_t)at, &raw,
								     &raw_size, &fuzz_log))
						free(raw);
					bc_archive_kmods_free(km);
				}
			}
			/* its modules (formats 5, 6), each on its own */
			if (bc_archive_read_modules(lazy, k, &fuzz_log) ||
			    bc_archive_kmods_open(lazy, k, &km, NULL, NULL, &fuzz_log))
				continue;
			for (i = 0; i < bc_archive_nr_modules(lazy, k); i++)
				if (!bc_archive_kmods_module(km, i, &raw, &raw_size,
							     &fuzz_log))
					free(raw);
			bc_archive_kmods_free(km);
		}
		bc_archive_free(lazy);
		lazy = NULL;
	}
	if (bc_archive_parse(file, size, "fuzz.bca", &ar, &fuzz_log))
		return;
	FUZZ_ASSERT(!ar_parse(file, size, "fuzz.bca", true, &lazy, &fuzz_log));
	archive_same_lazily(ar, lazy, false);
	bc_archive_free(lazy);
	lazy = NULL;
	v6 = size > 8 && file[8] == 6;
	FUZZ_ASSERT(!ar_parse_as(file, size, "fuzz.bca", AR_READ_PARTIAL, &lazy,
				 &fuzz_log) || v6);
	if (lazy)
		archive_same_lazily(ar, lazy, v6);
	bc_archive_free(lazy);
	for (k = 0; k < bc_archive_nr_kernels(ar); k++) {
		struct bc_archive_view *v;
		struct bc_btf *btf;
		uint32_t words[64], ids[4];

		if (!bc_archive_kernel_btf(ar, k, &btf, &fuzz_log))
			bc_btf_free(btf);
		if (bc_archive_view_open(ar, k, &v, &fuzz_log))
			continue;
		for (id = 1; id <= bc_archive_view_nr_types(v) && id < 4096; id++) {
			int n = bc_archive_view_type(v, id, words, 64);

			if (n > 0 && n <= 64)
				(void)bc_archive_view_str(v, words[0]);
		}
		(void)bc_archive_view_find(v, BTF_KIND_STRUCT, "s", ids, 4);
		bc_archive_view_free(v);
	}
	if (!ar_serialize_body(ar, &one) &&
	    !ar_wrap_body_version(one.data, one.len, 1,
				  ar_has_modules(ar) ? 6 : 4, &file2,
				  &file2_size)) {
		FUZZ_ASSERT(!bc_archive_parse(file2, file2_size, "again.bca",
					      &again, &fuzz_log));
		FUZZ_ASSERT(!ar_serialize_body(again, &two));
		FUZZ_ASSERT(two.len == one.len &&
			    !memcmp(two.data, one.data, one.len));
	}
	free(one.data);
	free(two.data);
	free(file2);
	bc_archive_free(again);
	bc_archive_free(ar);
}

/*
 * A header (version 4, or 6 after "BTFCPAY6"), the payload and a fresh
 * checksum: the file.
 */
#define FUZZ_PAYLOAD_MAGIC "BTFCPAY"

static void archive_payload_one(const uint8_t *data, size_t size)
{
	size_t body_len = (size_t)data[8] | (size_t)data[9] << 8 |
			  (size_t)data[10] << 16, payload = size - 12, k;
	uint8_t *file = malloc(32 + payload + 4);
	uint32_t crc;

	if (!file)
		return;
	memcpy(file, BC_ARCHIVE_MAGIC, BC_ARCHIVE_MAGIC_LEN);
	memset(file + 8, 0, 24);
	file[8] = data[7] == '6' ? 6 : 4;
	for (k = 0; k < 8; k++) {
		file[16 + k] = (uint8_t)((uint64_t)body_len >> (8 * k));
		file[24 + k] = (uint8_t)((uint64_t)payload >> (8 * k));
	}
	memcpy(file + 32, data + 12, payload);
	crc = (uint32_t)crc32(crc32(0L, Z_NULL, 0), file, (uInt)(32 + payload));
	for (k = 0; k < 4; k++)
		file[32 + payload + k] = (uint8_t)(crc >> (8 * k));
	archive_file_one(file, 32 + payload + 4);
	free(file);
}

/*
 * An archive (archive/archive.h) into its reader. An input that starts
 * with the archive magic is a whole file (header, sizes and checksum
 * checks). One that starts with "BTFCPAY4" and a le24 body size is a
 * format 4 payload (archive/pack.c: the stream table, each stream's
 * codec), given a header and a fresh checksum, so mutations reach the
 * stream table and the zstd and xz streams. Any other is taken as a
 * body and wrapped into a file with the right checksum first, so
 * mutations reach the body's parser: as format 4 (its streams in LZ4),
 * as format 5 (kernels with their modules), as format 3 and as format 2
 * (strings and records laid out otherwise; still read).
 */
int fuzz_archive_one(const uint8_t *data, size_t size)
{
	void *file = NULL;
	size_t file_size = 0;
	uint32_t version;

	if (size >= BC_ARCHIVE_MAGIC_LEN &&
	    !memcmp(data, BC_ARCHIVE_MAGIC, BC_ARCHIVE_MAGIC_LEN)) {
		archive_file_one(data, size);
		return 0;
	}
	if (size >= 12 && !memcmp(data, FUZZ_PAYLOAD_MAGIC, 7) &&
	    (data[7] == '4' || data[7] == '6')) {
		archive_payload_one(data, size);
		return 0;
	}
	if (ar_wrap_body(data, size, 1, &file, &file_size))
		return 0;
	archive_file_one(file, file_size);
	free(file);
	/* as format 5: each kernel's modules after its attachments */
	if (ar_wrap_body_version(data, size, 1, 5, &file, &file_size))
		return 0;
	archive_file_one(file, file_size);
	free(file);
	/* as format 6: every kernel's modules after the kernels */
	if (ar_wrap_body_version(data, size, 1, 6, &file, &file_size))
		return 0;
	archive_file_one(file, file_size);
	free(file);
	for (version = 3; version >= 2; version--) {
		if (ar_wrap_body_lz4(data, size, version, &file, &file_size))
			return 0;
		archive_file_one(file, file_size);
		free(file);
	}
	return 0;
}

/*
 * Kernel images (archive/kimage.c): a bzImage, an arm64 Image, an EFI
 * zboot image or a compressed file, decompressed with at most 16 MiB of
 * output (a small stream may expand a thousandfold), its BTF found and
 * parsed. Property: what the reader returns lies inside the output it
 * made (ASan checks the copy) and is no larger than the limit.
 */
#define FUZZ_IMAGE_MAX ((size_t)16 << 20)

int fuzz_kimage_one(const uint8_t *data, size_t size)
{
	struct bc_blob blob;
	struct bc_btf *btf = NULL;

	if (bc_kimage_read_btf("fuzz", data, size, FUZZ_IMAGE_MAX, &blob,
			       &fuzz_log))
		return 0;
	FUZZ_ASSERT(blob.size <= FUZZ_IMAGE_MAX);
	if (!bc_btf_parse_blob(&blob, NULL, NULL, "fuzz", &fuzz_log, &btf))
		bc_btf_free(btf);
	return 0;
}

/*
 * Kernel packages (archive/package.c): a .deb or an .rpm through
 * libarchive to its kernel member (at most 16 MiB), then that through the
 * image reader. Property: the member's name is one the reader looks for,
 * and the version taken from it is not empty.
 */
static void kernel_set_property(const char *path);

int fuzz_package_one(const uint8_t *data, size_t size)
{
	char path[64], *member, *version;
	uint8_t *image;
	size_t image_size;
	struct bc_blob blob;
	int fd = memory_file(data, size, path, sizeof(path));

	if (!bc_package_read_kernel(path, FUZZ_IMAGE_MAX, &member, &image,
				    &image_size, &fuzz_log)) {
		version = bc_package_kernel_version(member);
		FUZZ_ASSERT(version && *version);
		FUZZ_ASSERT(strstr(member, "vmlinu") != NULL);
		if (!bc_kimage_read_btf(path, image, image_size, FUZZ_IMAGE_MAX,
					&blob, &fuzz_log))
			bc_blob_release(&blob);
		free(version);
		free(member);
		free(image);
	}
	kernel_set_property(path);
	close(fd);
	return 0;
}

/*
 * A package read as a kernel with its modules (archive/kernel_set.c):
 * whatever the bad modules, the set holds modules with names, in strict
 * name order, each split over the kernel's BTF.
 */
static void kernel_set_property(const char *path)
{
	struct bc_kernel_set_opts opts = { .jobs = 1 };
	struct bc_kernel_set ks;
	uint32_t i;

	if (bc_kernel_set_read(path, &opts, &ks, &fuzz_log))
		return;
	for (i = 0; i < ks.nr_mods; i++) {
		FUZZ_ASSERT(ks.mods[i].name && ks.mods[i].btf);
		FUZZ_ASSERT(ks.mods[i].btf->start_id ==
			    bc_btf_end_id(ks.input.btf));
		FUZZ_ASSERT(!i || strcmp(ks.mods[i - 1].name, ks.mods[i].name) < 0);
	}
	bc_kernel_set_deinit(&ks);
}

/*
 * One module file (archive/kernel_set.c's reader): the input is a le32
 * length N, N bytes of the kernel's BTF, then the module's file (.ko,
 * or .ko compressed with xz, zstd or gzip), its .BTF read with libelf and
 * parsed over the kernel's. Property: the .BTF handed back is no larger
 * than the decompression limit.
 */
int fuzz_kmod_one(const uint8_t *data, size_t size)
{
	struct bc_btf *base = NULL, *mod = NULL;
	uint8_t *btf;
	size_t btf_size;
	char why[256];
	uint32_t n;

	if (size < 4)
		return 0;
	memcpy(&n, data, 4);
	if (n > size - 4)
		return 0;
	if (bc_btf_parse(data + 4, n, NULL, "fuzz-base", &fuzz_log, &base))
		return 0;
	if (!bc_kmod_read_btf(data + 4 + n, size - 4 - n, FUZZ_IMAGE_MAX, &btf,
			      &btf_size, why, sizeof(why))) {
		FUZZ_ASSERT(btf_size <= FUZZ_IMAGE_MAX);
		if (!bc_btf_parse(btf, btf_size, base, "fuzz", &fuzz_log, &mod))
			bc_btf_free(mod);
		free(btf);
	}
	bc_btf_free(base);
	return 0;
}

/*
 * The slim header (`dump -f c --for`): the input is a 32-bit length N,
 * N bytes of raw BTF, and a C source (the rest). The source is written
 * as prog.c in a directory of its own (so that its includes resolve
 * there). Besides "no crash, no leak": when the parser accepts the BTF,
 * the sub-BTF bc_slim_btf() makes of it is BTF the parser accepts, with
 * no more types; bc_dump_c() then writes it or refuses it with a
 * message, as it would the whole.
 */
static char slim_dir[] = "/tmp/btfcanon-fuzz-slim-XXXXXX";
static char slim_source[64];

static void remove_slim_dir(void)
{
	unlink(slim_source);
	rmdir(slim_dir);
}

int fuzz_slim_one(const uint8_t *data, size_t size)
{
	char *dir = slim_dir, *source = slim_source;
	const char *const sources[] = { slim_source };
	struct bc_slim_request req = { .sources = sources, .nr_sources = 1 };
	struct bc_btf *parsed = NULL, *slim_parsed = NULL;
	struct btf *full = NULL, *slim = NULL;
	struct bc_text text;
	uint32_t btf_size, slim_size;
	const void *raw;
	FILE *f;

	if (size < 4)
		return 0;
	memcpy(&btf_size, data, 4);
	data += 4;
	size -= 4;
	if (btf_size > size)
		btf_size = size;
	if (!source[0]) {
		if (!mkdtemp(dir))
			abort();
		snprintf(source, sizeof(slim_source), "%s/prog.c", dir);
		atexit(remove_slim_dir);
	}
	f = fopen(source, "w");
	if (!f)
		abort();
	if (size > btf_size)
		fwrite(data + btf_size, 1, size - btf_size, f);
	fclose(f);
	if (bc_btf_parse(data, btf_size, NULL, "fuzz.btf", &fuzz_log, &parsed))
		return 0;
	full = btf__new(data, btf_size);
	if (full && !bc_slim_btf(full, &req, &slim, &fuzz_log)) {
		FUZZ_ASSERT(btf__type_cnt(slim) <= btf__type_cnt(full));
		raw = btf__raw_data(slim, &slim_size);
		FUZZ_ASSERT(raw);
		FUZZ_ASSERT(!bc_btf_parse(raw, slim_size, NULL, "slim.btf", &fuzz_log,
					  &slim_parsed));
		bc_text_init(&text);
		bc_dump_c(slim_parsed, slim, &text, &fuzz_log);
		bc_text_deinit(&text);
	}
	bc_btf_free(slim_parsed);
	btf__free(slim);
	btf__free(full);
	bc_btf_free(parsed);
	return 0;
}
