// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/bpf.h>

#include <bpf/btf.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include "testutil.h"
#include "../canon/btf_kinds.h"
#include "../encode/die_reader.h"
#include "../encode/elf_syms.h"
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
	uint32_t size;
	int err;

	raw.data = (void *)encode_result_raw(enc, &size);
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

/* ---- die_reader against libdw ------------------------------------------- */

/*
 * ck_assert records every call it makes (a write per call); millions of
 * DIEs need an assertion that costs nothing until it fails.
 */
#define reader_check(cond, ...) \
	do { \
		if (!(cond)) \
			ck_abort_msg(__VA_ARGS__); \
	} while (0)

/* The attributes the check keeps, one slot each. */
static const unsigned int reader_check_names[] = {
	DW_AT_name, DW_AT_type, DW_AT_byte_size, DW_AT_encoding,
	DW_AT_declaration, DW_AT_external, DW_AT_bit_size,
	DW_AT_data_bit_offset, DW_AT_bit_offset, DW_AT_data_member_location,
	DW_AT_count, DW_AT_upper_bound, DW_AT_lower_bound, DW_AT_const_value,
	DW_AT_specification, DW_AT_abstract_origin, DW_AT_decl_line,
	DW_AT_decl_column, DW_AT_sibling, DW_AT_decl_file, 0x2137,
	DW_AT_low_pc, DW_AT_high_pc, DW_AT_location, DW_AT_frame_base,
	DW_AT_producer, DW_AT_language, DW_AT_stmt_list, DW_AT_prototyped,
	DW_AT_inline, DW_AT_signature, DW_AT_call_all_calls,
};

#define READER_CHECK_SLOTS \
	(sizeof(reader_check_names) / sizeof(reader_check_names[0]))

static int reader_check_slot(unsigned int name)
{
	size_t i;

	for (i = 0; i < READER_CHECK_SLOTS; i++)
		if (reader_check_names[i] == name)
			return i;
	return -1;
}

struct reader_check_want {
	Dwarf_Attribute a[READER_CHECK_SLOTS];
	uint32_t have;
};

static int reader_check_collect(Dwarf_Attribute *attr, void *arg)
{
	struct reader_check_want *w = arg;
	int slot = reader_check_slot(dwarf_whatattr(attr));

	if (slot >= 0 && !(w->have & (1u << slot))) {
		w->a[slot] = *attr;
		w->have |= 1u << slot;
	}
	return DWARF_CB_OK;
}

static bool is_unit_ref(unsigned int form)
{
	return form == DW_FORM_ref1 || form == DW_FORM_ref2 ||
	       form == DW_FORM_ref4 || form == DW_FORM_ref8 ||
	       form == DW_FORM_ref_udata;
}

static void reader_check_die(struct die_reader *r, Dwarf *dbg, Dwarf_Die *d,
			     const char *path)
{
	Dwarf_Die copy = { .addr = d->addr, .cu = d->cu }, got, want;
	struct reader_check_want w = { .have = 0 };
	Dwarf_Attribute out[READER_CHECK_SLOTS];
	Dwarf_Off off = dwarf_dieoffset(d);
	uint32_t have = 0, i;
	int rw, rg;

	reader_check(die_reader_tag(r, &copy) == dwarf_tag(d),
		      "%s: DIE 0x%llx: tag", path, (unsigned long long)off);
	reader_check(die_reader_haschildren(r, &copy) ==
		      (dwarf_haschildren(d) > 0),
		      "%s: DIE 0x%llx: children", path, (unsigned long long)off);
	reader_check(die_reader_hasattr(r, &copy, DW_AT_name) ==
		      dwarf_hasattr(d, DW_AT_name),
		      "%s: DIE 0x%llx: hasattr", path, (unsigned long long)off);
	rw = dwarf_getattrs(d, reader_check_collect, &w, 0) == 1 ? 0 : -EINVAL;
	rg = die_reader_attrs(r, &copy, out, &have);
	reader_check(rg == rw && (rw || have == w.have),
		      "%s: DIE 0x%llx: attributes %d/%d, have 0x%x/0x%x", path,
		      (unsigned long long)off, rg, rw, have, w.have);
	for (i = 0; !rw && i < READER_CHECK_SLOTS; i++) {
		Dwarf_Attribute *a = &out[i], *b = &w.a[i];
		Dwarf_Word ua, ub;
		uint64_t str;
		Dwarf_Off ref;
		Dwarf_Die target;

		if (!(have & (1u << i)))
			continue;
		reader_check(a->code == b->code && a->form == b->form &&
			      a->valp == b->valp && a->cu == b->cu,
			      "%s: DIE 0x%llx: attribute 0x%x differs", path,
			      (unsigned long long)off, b->code);
		if (!dwarf_formudata(b, &ub))
			reader_check(!die_reader_udata(r, a, &ua) && ua == ub,
				      "%s: DIE 0x%llx: value of 0x%x", path,
				      (unsigned long long)off, b->code);
		if (!die_reader_strp(r, a, &str))
			reader_check(b->form == DW_FORM_strp &&
				      !strcmp(dwarf_getstring(dbg, str, NULL),
					      dwarf_formstring(b)),
				      "%s: DIE 0x%llx: string of 0x%x", path,
				      (unsigned long long)off, b->code);
		if (is_unit_ref(b->form) && dwarf_formref_die(b, &target))
			reader_check(!die_reader_ref(r, a, &ref) &&
				      ref == dwarf_cuoffset(&target),
				      "%s: DIE 0x%llx: reference of 0x%x", path,
				      (unsigned long long)off, b->code);
	}
	rw = dwarf_child(d, &want);
	rg = die_reader_child(r, &copy, &got);
	reader_check(rg == rw && (rw || got.addr == want.addr),
		      "%s: DIE 0x%llx: first child", path,
		      (unsigned long long)off);
	rw = dwarf_siblingof(d, &want);
	rg = die_reader_sibling(r, &copy, &got);
	reader_check(rg == rw && (rw || got.addr == want.addr),
		      "%s: DIE 0x%llx: next sibling", path,
		      (unsigned long long)off);
}

uint64_t die_reader_agrees(const char *path, uint32_t unit_stride,
			   bool section_abbrevs)
{
	static const Dwfl_Callbacks callbacks = {
		.find_debuginfo = dwfl_standard_find_debuginfo,
		.section_address = dwfl_offline_section_address,
	};
	int fd = open(path, O_RDONLY);
	Dwfl *dwfl = dwfl_begin(&callbacks);
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	Dwarf *dbg;
	struct die_reader r;
	uint64_t dies = 0, nth = 0;
	int types;

	/* as the encoder reads a file libdw cannot map: relocated by libdwfl */
	ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
	ck_assert(dwfl != NULL);
	mod = dwfl_report_offline(dwfl, path, path, fd);	/* owns fd */
	ck_assert_msg(mod && !dwfl_report_end(dwfl, NULL, NULL),
		      "%s: libdwfl: %s", path, dwfl_errmsg(-1));
	dbg = dwfl_module_getdwarf(mod, &bias);
	ck_assert_msg(dbg != NULL, "%s: libdw: %s", path, dwfl_errmsg(-1));
	die_reader_init(&r, reader_check_slot);
	r.home = dbg;
	if (section_abbrevs) {
		ck_assert_msg(elf_section_bytes(dwarf_getelf(dbg), ".debug_abbrev",
					&r.abbrevs, &r.abbrevs_size),
			      "%s: no .debug_abbrev", path);
	}
	for (types = 0; types < 2; types++) {
		Dwarf_Off o = 0, next;
		size_t hsize;
		uint64_t sig;
		Dwarf_Off type_off;

		while (!dwarf_next_unit(dbg, o, &next, &hsize, NULL, NULL, NULL,
					NULL, types ? &sig : NULL,
					types ? &type_off : NULL)) {
			Dwarf_Die stack[128], unit;
			int depth = 0;

			if (nth++ % unit_stride ||
			    !(types ? dwarf_offdie_types(dbg, o + hsize, &unit) :
				      dwarf_offdie(dbg, o + hsize, &unit))) {
				o = next;
				continue;
			}
			stack[0] = unit;
			for (;;) {
				reader_check_die(&r, dbg, &stack[depth], path);
				dies++;
				if (depth + 1 < 128 &&
				    !dwarf_child(&stack[depth], &stack[depth + 1])) {
					depth++;
					continue;
				}
				while (dwarf_siblingof(&stack[depth], &stack[depth]))
					if (depth-- == 0)
						break;
				if (depth < 0)
					break;
			}
			o = next;
		}
	}
	ck_assert_msg(dies > 0, "%s: no DIE compared", path);
	ck_assert_msg(r.fast > 0 && r.slow * 20 < r.fast,
		      "%s: the reader's tables answered %llu times, libdw %llu",
		      path, (unsigned long long)r.fast,
		      (unsigned long long)r.slow);
	die_reader_deinit(&r);
	dwfl_end(dwfl);
	return dies;
}

/* ---- the run's cache ---------------------------------------------------- */

static int remove_one(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void remove_tree(const char *path)
{
	nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

char *test_cached(const char *name, test_cache_make_fn make, void *ctx)
{
	const char *dir = getenv("BTFCANON_TEST_CACHE");
	char *path, *lock_path, *tmp_path;
	struct flock whole = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	struct stat st;
	int lock;

	ck_assert_msg(dir && *dir, "BTFCANON_TEST_CACHE is not set "
		      "(tests/check_main.c sets it)");
	ck_assert_int_ge(asprintf(&path, "%s/%s", dir, name), 0);
	ck_assert_int_ge(asprintf(&lock_path, "%s.lock", path), 0);
	ck_assert_int_ge(asprintf(&tmp_path, "%s.tmp", path), 0);
	/*
	 * A record lock, not flock(): it belongs to the process, so a case
	 * that failed inside make() under CK_FORK=no (the lock's descriptor
	 * lost in the longjmp) does not lock out the cases after it.
	 */
	lock = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	ck_assert_msg(lock >= 0, "%s: %s", lock_path, strerror(errno));
	ck_assert_msg(!fcntl(lock, F_SETLKW, &whole),
		      "lock %s: %s", lock_path, strerror(errno));
	if (stat(path, &st)) {
		/* what a failed make() left: it died holding the lock */
		remove_tree(tmp_path);
		make(tmp_path, ctx);
		ck_assert_msg(!stat(tmp_path, &st), "%s: not made", tmp_path);
		if (S_ISREG(st.st_mode))
			ck_assert_msg(!chmod(tmp_path, 0444), "chmod %s: %s",
				      tmp_path, strerror(errno));
		ck_assert_msg(!rename(tmp_path, path), "rename %s: %s",
			      tmp_path, strerror(errno));
	}
	close(lock);	/* releases the lock */
	free(lock_path);
	free(tmp_path);
	return path;
}

void blob_write_or_fail(const struct blob *b, const char *path)
{
	FILE *f = fopen(path, "wb");

	ck_assert_msg(f, "%s: %s", path, strerror(errno));
	ck_assert_msg(fwrite(b->data, 1, b->size, f) == b->size &&
		      !fclose(f), "%s: cannot write: %s", path, strerror(errno));
}

int test_sh(const char *fmt, ...)
{
	char *cmd;
	va_list ap;
	int status;

	va_start(ap, fmt);
	ck_assert_int_gt(vasprintf(&cmd, fmt, ap), 0);
	va_end(ap);
	status = system(cmd);
	free(cmd);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void make_kmod_fixture(const char *dir, void *ctx)
{
	const char *cli = getenv("BTFCANON");

	(void)ctx;
	ck_assert_msg(cli, "BTFCANON names the binary (make check sets it)");
	ck_assert_int_eq(test_sh("tests/kmod-fixture.sh %s tests/fixtures/deps %s",
				 cli, dir), 0);
}

char *test_kmod_fixture(void)
{
	return test_cached("kmod-fixture", make_kmod_fixture, NULL);
}
