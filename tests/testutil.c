// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>

#include <bpf/btf.h>

#include "testutil.h"
#include "../canon/btf_kinds.h"
#include "../encode/encoder.h"

void blob_free(struct blob *b)
{
	free(b->data);
	b->data = NULL;
	b->size = 0;
}

bool blob_eq(const struct blob *a, const struct blob *b)
{
	return a->size == b->size && !memcmp(a->data, b->data, a->size);
}

struct blob blob_from_libbpf(const struct btf *btf)
{
	struct blob b = { 0 };
	__u32 size;
	const void *raw = btf__raw_data(btf, &size);

	ck_assert_ptr_nonnull(raw);
	b.data = malloc(size);
	ck_assert_ptr_nonnull(b.data);
	memcpy(b.data, raw, size);
	b.size = size;
	return b;
}

static void log_to_stderr(void *ctx, enum bc_log_level level, const char *msg)
{
	(void)ctx;
	(void)level;
	fprintf(stderr, "test: %s\n", msg);
}

static const struct bc_log test_log = { .fn = log_to_stderr };

struct bc_btf *parse_or_fail(const struct blob *raw, const struct bc_btf *base)
{
	struct bc_btf *btf;
	int err = bc_btf_parse(raw->data, raw->size, base, "<test>", &test_log,
			       &btf);

	ck_assert_msg(!err, "bc_btf_parse failed: %d", err);
	return btf;
}

struct blob canon_blob(const struct blob *raw, const struct bc_btf *base,
		       enum bc_order order, uint32_t **id_map)
{
	struct bc_btf *btf = parse_or_fail(raw, base);
	struct canon_opts opts = { .order = order };
	struct canon_result res;
	struct blob out;
	int err = canon_run(btf, &opts, &res, &test_log);

	ck_assert_msg(!err, "canon_run failed: %d", err);
	out.data = res.raw;
	out.size = res.raw_size;
	res.raw = NULL;
	if (id_map) {
		*id_map = res.id_map;
		res.id_map = NULL;
	}
	canon_result_deinit(&res);
	bc_btf_free(btf);
	return out;
}

struct blob canon_encoded(const struct encode_result *enc,
			  const struct bc_btf *base, enum bc_order order,
			  bool resolve_fwds)
{
	struct canon_opts opts = {
		.order = order, .resolve_fwds = resolve_fwds, .omit = enc->omit,
	};
	struct canon_result res;
	struct bc_btf *btf;
	struct blob raw, out;
	__u32 size;
	int err;

	raw.data = (void *)btf__raw_data(enc->btf, &size);
	raw.size = size;
	ck_assert_ptr_nonnull(raw.data);
	btf = parse_or_fail(&raw, base);
	err = canon_run(btf, &opts, &res, &test_log);
	ck_assert_msg(!err, "canon_run of the encoder's result failed: %d", err);
	out.data = res.raw;
	out.size = res.raw_size;
	res.raw = NULL;
	canon_result_deinit(&res);
	bc_btf_free(btf);
	return out;
}

struct blob permute_blob(const struct blob *raw, const struct bc_btf *base,
			 unsigned int seed)
{
	struct bc_btf *btf = parse_or_fail(raw, base);
	uint32_t n = btf->nr_types, i, j, *perm, *new_id;
	const struct btf_header *hdr = btf->hdr;
	struct blob out;
	uint8_t *p;

	perm = malloc((n + 1) * sizeof(*perm));
	new_id = malloc((n + 1) * sizeof(*new_id));
	ck_assert(perm && new_id);
	for (i = 0; i < n; i++)
		perm[i] = i;
	srandom(seed);
	for (i = n; i > 1; i--) {
		uint32_t k = random() % i, t = perm[i - 1];

		perm[i - 1] = perm[k];
		perm[k] = t;
	}
	for (i = 0; i < n; i++)
		new_id[perm[i]] = btf->start_id + i;

	out.size = sizeof(*hdr) + hdr->type_len + hdr->str_len;
	out.data = malloc(out.size);
	ck_assert_ptr_nonnull(out.data);
	memcpy(out.data, hdr, sizeof(*hdr));
	((struct btf_header *)out.data)->hdr_len = sizeof(*hdr);
	((struct btf_header *)out.data)->type_off = 0;
	((struct btf_header *)out.data)->str_off = hdr->type_len;
	p = (uint8_t *)out.data + sizeof(*hdr);
	for (i = 0; i < n; i++) {
		const struct btf_type *t = bc_btf_local(btf, perm[i]);
		uint32_t words = bc_type_words(t), kind = bc_type_kind(t);
		uint32_t *w = (uint32_t *)p;

		memcpy(w, t, words * 4);
		for (j = 0; j < words; j++)
			if (bc_word_class(kind, j) == BC_WORD_REF &&
			    w[j] >= btf->start_id)
				w[j] = new_id[w[j] - btf->start_id];
		p += words * 4;
	}
	memcpy(p, btf->strs, btf->str_len);
	free(perm);
	free(new_id);
	bc_btf_free(btf);
	return out;
}

/* Appends printf output to a growing string. */
struct text {
	char *buf;
	size_t len, cap;
};

static void __attribute__((format(printf, 2, 3)))
text_printf(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
		va_end(ap);
		if (t->len + n < t->cap)
			break;
		t->cap = (t->cap + n + 1) * 2;
		t->buf = realloc(t->buf, t->cap);
		ck_assert_ptr_nonnull(t->buf);
	}
	t->len += n;
}

char *listing(const struct bc_btf *btf)
{
	struct text t = { .buf = malloc(256), .cap = 256 };
	uint32_t i, j;

	ck_assert_ptr_nonnull(t.buf);
	t.buf[0] = '\0';
	for (i = 0; i < btf->nr_types; i++) {
		const struct btf_type *type = bc_btf_local(btf, i);
		const uint32_t *w = (const uint32_t *)type;
		uint32_t kind = bc_type_kind(type), words = bc_type_words(type);
		const struct bc_kind_layout *k = &bc_kinds[kind];
		uint32_t head = 3 + k->fixed_words;

		text_printf(&t, "[%u] %s '%s' vlen=%u kflag=%u",
			    btf->start_id + i, k->name,
			    bc_btf_str(btf, type->name_off), bc_type_vlen(type),
			    bc_info_kflag(type->info));
		for (j = 2; j < head; j++)
			text_printf(&t, bc_word_class(kind, j) == BC_WORD_REF ?
				    " ->%u" : " %u", w[j]);
		text_printf(&t, "\n");
		for (j = head; j < words; j++) {
			uint32_t e = (j - head) % k->entry_words;

			if (e == 0)
				text_printf(&t, "\t");
			switch (bc_word_class(kind, j)) {
			case BC_WORD_NAME:
				text_printf(&t, "'%s'", bc_btf_str(btf, w[j]));
				break;
			case BC_WORD_REF:
				text_printf(&t, " ->%u", w[j]);
				break;
			default:
				text_printf(&t, " %u", w[j]);
			}
			if (e == k->entry_words - 1u)
				text_printf(&t, "\n");
		}
	}
	return t.buf;
}

char *listing_blob(const struct blob *raw, const struct bc_btf *base)
{
	struct bc_btf *btf = parse_or_fail(raw, base);
	char *text = listing(btf);

	bc_btf_free(btf);
	return text;
}

struct blob read_file(const char *path)
{
	struct blob b = { 0 };
	size_t cap = 1 << 20;
	FILE *f = fopen(path, "rb");

	if (!f)
		return b;
	b.data = malloc(cap);
	ck_assert_ptr_nonnull(b.data);
	for (;;) {
		size_t got = fread((char *)b.data + b.size, 1, cap - b.size, f);

		b.size += got;
		if (b.size < cap)
			break;
		cap *= 2;
		b.data = realloc(b.data, cap);
		ck_assert_ptr_nonnull(b.data);
	}
	fclose(f);
	return b;
}

int kernel_load_btf(const struct blob *raw, char *log_buf, size_t log_size)
{
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.btf = (uintptr_t)raw->data;
	attr.btf_size = raw->size;
	attr.btf_log_buf = (uintptr_t)log_buf;
	attr.btf_log_size = log_size;
	attr.btf_log_level = log_buf ? 1 : 0;
	if (log_buf && log_size)
		log_buf[0] = '\0';
	fd = syscall(__NR_bpf, BPF_BTF_LOAD, &attr, sizeof(attr));
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}
