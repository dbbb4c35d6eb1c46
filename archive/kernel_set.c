// SPDX-License-Identifier: GPL-2.0-only
/*
 * A kernel with its modules (kernel_set.h): the sources found, the module
 * files gathered in one sequential pass, then decompressed and parsed
 * over the base in parallel.
 *
 * Problem: ~1,100 modules per cloud kernel, ~4,000 per generic one, each
 * a compressed ELF file whose .BTF is a few KB of split BTF; reading them
 * one after the other costs xz's time for each. Invariant: task i writes
 * only slot i (its BTF or its held message), so the set, the order of
 * the modules and the warnings are functions of the input, whatever the
 * number of threads. Cost: one pass over the package's data; per module,
 * one decompression, one section lookup and one parse over the base.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../canon/btf_kinds.h"
#include "../canon/canon.h"
#include "../canon/par.h"
#include "archive.h"
#include "decompress.h"
#include "elf_section.h"
#include "kernel_set.h"
#include "kimage.h"
#include "package.h"

static const char *const kmod_suffixes[] = { ".ko", ".ko.xz", ".ko.zst", ".ko.gz" };

/* The file's name up to a module suffix, or 0 when it has none. */
static size_t kmod_stem_len(const char *base)
{
	size_t len = strlen(base), i;

	for (i = 0; i < sizeof(kmod_suffixes) / sizeof(kmod_suffixes[0]); i++) {
		size_t sl = strlen(kmod_suffixes[i]);

		if (len > sl && !strcmp(base + len - sl, kmod_suffixes[i]))
			return len - sl;
	}
	return 0;
}

static char *module_name_of(const char *base, size_t len)
{
	char *name = strndup(base, len), *p;

	for (p = name; p && *p; p++)
		if (*p == '-')
			*p = '_';
	return name;
}

char *bc_kmod_name(const char *file)
{
	const char *base = strrchr(file, '/');
	size_t len;

	base = base ? base + 1 : file;
	len = kmod_stem_len(base);
	return len ? module_name_of(base, len) : NULL;
}

/* ---- one module file's BTF -------------------------------------------- */

/* The .BTF section of the ELF file in memory, copied out. */
static int elf_btf_copy(const uint8_t *data, size_t size, uint8_t **out,
			size_t *out_size, char *err_buf, size_t err_len)
{
	Elf *elf;
	Elf_Scn *scn;
	Elf_Data *d;
	GElf_Shdr shdr;
	int err = 0;

	elf = elf_memory((char *)data, size);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		snprintf(err_buf, err_len, "not a valid ELF file: %s",
			 elf_errmsg(-1));
		err = -EINVAL;
		goto out;
	}
	scn = bc_elf_section(elf, ".BTF", &shdr);
	if (!scn) {
		err = -ENOENT;
		goto out;
	}
	if (shdr.sh_type == SHT_NOBITS ||
	    shdr.sh_offset > size || shdr.sh_size > size - shdr.sh_offset) {
		snprintf(err_buf, err_len, ".BTF section lies outside the file");
		err = -EINVAL;
		goto out;
	}
	if ((shdr.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0) {
		snprintf(err_buf, err_len, "cannot decompress .BTF: %s",
			 elf_errmsg(-1));
		err = -EINVAL;
		goto out;
	}
	d = elf_getdata(scn, NULL);
	if (!d || (!d->d_buf && d->d_size)) {
		snprintf(err_buf, err_len, "cannot read .BTF section: %s",
			 elf_errmsg(-1));
		err = -EINVAL;
		goto out;
	}
	*out = malloc(d->d_size ? d->d_size : 1);
	if (!*out) {
		err = -ENOMEM;
		goto out;
	}
	if (d->d_size)
		memcpy(*out, d->d_buf, d->d_size);
	*out_size = d->d_size;
out:
	elf_end(elf);
	return err;
}

static bool is_elf(const uint8_t *data, size_t size)
{
	return size >= 4 && !memcmp(data, "\x7f" "ELF", 4);
}

static bool is_btf(const uint8_t *data, size_t size)
{
	return size >= 2 && data[0] == 0x9f && data[1] == 0xeb;
}

/*
 * bc_kmod_read_btf() once libelf is set up (elf_version(), which writes
 * libelf's global: called once before the threads, not in each).
 */
static int kmod_read_btf(const uint8_t *data, size_t size, size_t max_size,
			 uint8_t **out, size_t *out_size, char *err_buf,
			 size_t err_len)
{
	enum bc_comp comp = bc_comp_detect(data, size);
	uint8_t *plain = NULL;
	size_t plain_size;
	int err;

	*out = NULL;
	*out_size = 0;
	err_buf[0] = '\0';
	if (comp == BC_COMP_XZ || comp == BC_COMP_ZSTD || comp == BC_COMP_GZIP) {
		struct bc_comp_error cerr = { 0 };

		err = bc_decompress(comp, data, size, 0, max_size, &plain,
				    &plain_size, &cerr);
		if (err == -ENOMEM)
			return err;
		if (err) {
			snprintf(err_buf, err_len, "%s stream: %s at byte %zu",
				 bc_comp_name(comp), cerr.why ? cerr.why : "corrupt",
				 cerr.at);
			return -EINVAL;
		}
		data = plain;
		size = plain_size;
	}
	if (is_elf(data, size)) {
		err = elf_btf_copy(data, size, out, out_size, err_buf, err_len);
	} else if (is_btf(data, size)) {
		*out = malloc(size);
		err = *out ? 0 : -ENOMEM;
		if (*out) {
			memcpy(*out, data, size);
			*out_size = size;
		}
	} else {
		snprintf(err_buf, err_len,
			 "neither a module's ELF file nor BTF%s",
			 comp == BC_COMP_NONE ? "" : " once decompressed");
		err = -EINVAL;
	}
	free(plain);
	return err;
}

int bc_kmod_read_btf(const uint8_t *data, size_t size, size_t max_size,
		     uint8_t **out, size_t *out_size, char *err_buf,
		     size_t err_len)
{
	elf_version(EV_CURRENT);
	return kmod_read_btf(data, size, max_size, out, out_size, err_buf,
			     err_len);
}

/* ---- one BTF of a kernel and modules ---------------------------------- */

/*
 * Appends module m's type records to out at *at, each type id past the
 * base moved by id_shift, each string offset past the base's strings by
 * str_shift.
 */
static void append_module_types(const struct bc_btf *m, uint32_t base_end,
				uint32_t base_str_end, uint32_t id_shift,
				uint32_t str_shift, uint8_t *out, size_t *at)
{
	uint32_t i, k;

	for (i = 0; i < m->nr_types; i++) {
		const struct btf_type *t = bc_btf_local(m, i);
		size_t bytes = 4 * (size_t)bc_type_words(t);
		uint32_t *w = (uint32_t *)(out + *at), *word;

		memcpy(w, t, bytes);
		for (k = 0; (word = bc_type_word_of_class(w, BC_WORD_REF, k)); k++)
			if (*word >= base_end)
				*word += id_shift;
		for (k = 0; (word = bc_type_word_of_class(w, BC_WORD_NAME, k)); k++)
			if (*word >= base_str_end)
				*word += str_shift;
		*at += bytes;
	}
}

int bc_kmods_join(const struct bc_btf *base, const struct bc_btf *const *mods,
		  uint32_t n, struct bc_btf **whole, uint32_t *id_shift,
		  const struct bc_log *log)
{
	size_t types_len = base->hdr->type_len, strs_len = base->str_len, at;
	uint32_t i, ids = 0, str_shift = 0;
	struct btf_header *hdr;
	uint8_t *blob;
	int err;

	*whole = NULL;
	if (base->base || base->nr_unknown)
		return bc_log_error(log, -EINVAL,
				    "%s: a kernel's BTF must be base BTF of known kinds to join modules to",
				    base->path);
	for (i = 0; i < n; i++) {
		if (mods[i]->base != base || mods[i]->nr_unknown)
			return bc_log_error(log, -EINVAL,
					    "%s: not split BTF over %s (known kinds only)",
					    mods[i]->path, base->path);
		types_len += mods[i]->hdr->type_len;
		strs_len += mods[i]->str_len;
	}
	if (types_len + strs_len > UINT32_MAX - sizeof(*hdr))
		return bc_log_error(log, -E2BIG, "%s: joined BTF past 4 GiB",
				    base->path);
	blob = malloc(sizeof(*hdr) + types_len + strs_len);
	if (!blob)
		return bc_log_error(log, -ENOMEM, "%s: out of memory", base->path);
	hdr = (struct btf_header *)blob;
	*hdr = *base->hdr;
	hdr->hdr_len = sizeof(*hdr);
	hdr->type_off = 0;
	hdr->type_len = types_len;
	hdr->str_off = types_len;
	hdr->str_len = strs_len;
	memcpy(blob + sizeof(*hdr), base->types, base->hdr->type_len);
	at = sizeof(*hdr) + base->hdr->type_len;
	for (i = 0; i < n; i++) {
		id_shift[i] = ids;
		append_module_types(mods[i], bc_btf_end_id(base),
				    bc_btf_str_end(base), ids, str_shift,
				    blob, &at);
		ids += mods[i]->nr_types;
		str_shift += mods[i]->str_len;
	}
	memcpy(blob + at, base->strs, base->str_len);
	at += base->str_len;
	for (i = 0; i < n; i++) {
		memcpy(blob + at, mods[i]->strs, mods[i]->str_len);
		at += mods[i]->str_len;
	}
	err = bc_btf_parse(blob, at, NULL, base->path, log, whole);
	free(blob);
	return err;
}

int bc_kmods_merge(const struct bc_btf *base, const struct bc_btf *const *mods,
		   uint32_t n, void **raw, size_t *size,
		   const struct bc_log *log)
{
	struct canon_opts copts = { .order = BC_ORDER_KIND };
	struct bc_btf *whole;
	uint32_t *shifts = calloc(n ? n : 1, sizeof(*shifts));
	int err;

	if (!shifts)
		return bc_log_error(log, -ENOMEM, "%s: out of memory", base->path);
	err = bc_kmods_join(base, mods, n, &whole, shifts, log);
	free(shifts);
	if (!err)
		err = canon_run_raw(whole, &copts, raw, size, log);
	bc_btf_free(whole);
	return err;
}

int bc_kernel_set_merged(const char *path, const char *const *globs,
			 uint32_t nr_globs, uint8_t *hits, void **raw,
			 size_t *size, bool *has_modules,
			 const struct bc_log *log)
{
	const struct bc_btf **take;
	struct bc_kernel_set ks;
	uint32_t i, g, n = 0;
	int err;

	err = bc_kernel_set_read(path, NULL, &ks, log);
	if (err)
		return err;
	*has_modules = ks.has_modules;
	take = calloc(ks.nr_mods ? ks.nr_mods : 1, sizeof(*take));
	if (!take) {
		bc_kernel_set_deinit(&ks);
		return bc_log_error(log, -ENOMEM, "%s: out of memory", path);
	}
	for (i = 0; i < ks.nr_mods; i++) {
		bool want = false;

		for (g = 0; g < nr_globs; g++)
			if (!fnmatch(globs[g], ks.mods[i].name, 0)) {
				want = true;
				if (hits)
					__atomic_store_n(&hits[g], 1, __ATOMIC_RELAXED);
			}
		if (want)
			take[n++] = ks.mods[i].btf;
	}
	err = bc_kmods_merge(ks.input.btf, take, n, raw, size, log);
	free(take);
	bc_kernel_set_deinit(&ks);
	return err;
}

int bc_archive_kernel_merged(struct bc_archive *ar, uint32_t k,
			     const char *label, const char *const *globs,
			     uint32_t nr_globs, uint8_t *hits, void **raw,
			     size_t *size, const struct bc_log *log)
{
	uint32_t nr = bc_archive_nr_modules(ar, k), i, g, n = 0;
	struct bc_archive_kmods *km = NULL;
	struct bc_btf *base = NULL, **mods = NULL;
	void *base_raw = NULL;
	size_t base_size = 0;
	int err;

	*raw = NULL;
	*size = 0;
	err = bc_archive_kmods_open(ar, k, &km, &base_raw, &base_size, log);
	if (err)
		return err;
	err = bc_btf_parse(base_raw, base_size, NULL, label, log, &base);
	free(base_raw);
	mods = calloc(nr ? nr : 1, sizeof(*mods));
	if (!err && !mods)
		err = bc_log_error(log, -ENOMEM, "%s: out of memory", label);
	for (i = 0; !err && i < nr; i++) {
		const char *name = bc_archive_module_name(ar, k, i);
		void *mraw = NULL;
		size_t msize = 0;
		bool want = false;
		int e;

		for (g = 0; g < nr_globs; g++)
			if (!fnmatch(globs[g], name, 0)) {
				want = true;
				if (hits)
					__atomic_store_n(&hits[g], 1, __ATOMIC_RELAXED);
			}
		if (!want)
			continue;
		e = bc_archive_kmods_module(km, i, &mraw, &msize, log);
		if (!e)
			e = bc_btf_parse(mraw, msize, base, label, log, &mods[n]);
		free(mraw);
		if (e == -ENOMEM)
			err = e;
		else if (e)
			bc_log_printf(log, BC_LOG_WARN, "%s: module %s left out",
				      label, name);
		else
			n++;
	}
	if (!err)
		err = bc_kmods_merge(base, (const struct bc_btf *const *)mods, n,
				     raw, size, log);
	for (i = 0; i < n; i++)
		bc_btf_free(mods[i]);
	free(mods);
	bc_btf_free(base);
	bc_archive_kmods_free(km);
	return err;
}

/* ---- gathering the module files ---------------------------------------- */

/*
 * A module before it is parsed: its bytes as found (a compressed file,
 * the .BTF of a plain .ko, or NULL with path set: a file to read).
 */
struct kmod_file {
	char *name;
	char *origin;
	char *path;		/* read from disk, or NULL */
	uint8_t *data;
	size_t size;
	bool btf_only;		/* data is already the .BTF */
	/* the task's outcome */
	struct bc_btf *btf;
	int err;		/* 0, -ENOENT (no .BTF), or an error held */
	char msg[512];
	char *warnings;		/* the parser's warnings, a line each; or NULL */
};

struct kmod_list {
	struct kmod_file *files;
	uint32_t nr, cap;
};

static void kmod_list_free(struct kmod_list *l)
{
	uint32_t i;

	for (i = 0; i < l->nr; i++) {
		free(l->files[i].name);
		free(l->files[i].origin);
		free(l->files[i].path);
		free(l->files[i].data);
		free(l->files[i].warnings);
		bc_btf_free(l->files[i].btf);
	}
	free(l->files);
	memset(l, 0, sizeof(*l));
}

/* Appends a module file; takes name and origin (freed on failure). */
static struct kmod_file *kmod_list_add(struct kmod_list *l, char *name,
				       char *origin)
{
	struct kmod_file *f;

	if (!name || !origin)
		goto fail;
	if (l->nr == l->cap) {
		uint32_t cap = l->cap ? l->cap * 2 : 256;

		f = realloc(l->files, cap * sizeof(*f));
		if (!f)
			goto fail;
		l->files = f;
		l->cap = cap;
	}
	f = &l->files[l->nr++];
	memset(f, 0, sizeof(*f));
	f->name = name;
	f->origin = origin;
	return f;
fail:
	free(name);
	free(origin);
	return NULL;
}

static int kmod_file_cmp(const void *a, const void *b)
{
	const struct kmod_file *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : strcmp(x->origin, y->origin);
}

/* Reads a whole file (sysfs files too, whose st_size may be wrong). */
static int read_whole(const char *path, uint8_t **data, size_t *size)
{
	size_t cap = 1 << 16, len = 0;
	uint8_t *buf = NULL;
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0)
		cap = st.st_size + 1;
	for (;;) {
		ssize_t got;

		if (len == cap || !buf) {
			uint8_t *grown = realloc(buf, buf ? cap * 2 : cap);

			if (!grown) {
				err = -ENOMEM;
				break;
			}
			cap = buf ? cap * 2 : cap;
			buf = grown;
		}
		got = read(fd, buf + len, cap - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			err = -errno;
			break;
		}
		if (!got)
			break;
		len += got;
	}
	close(fd);
	if (err) {
		free(buf);
		return err;
	}
	*data = buf;
	*size = len;
	return 0;
}

/* ---- the parallel step ------------------------------------------------ */

struct parse_ctx {
	struct kmod_list *list;
	const struct bc_btf *base;
};

/*
 * A task's log: the first error held for the module's message, warnings
 * (kinds stepped over) kept to be said in module order once all are done.
 */
static void hold_first(void *ctx, enum bc_log_level level, const char *msg)
{
	struct kmod_file *f = ctx;
	char *grown;

	if (level == BC_LOG_ERROR) {
		if (!f->msg[0])
			snprintf(f->msg, sizeof(f->msg), "%s", msg);
		return;
	}
	if (level != BC_LOG_WARN)
		return;
	if (asprintf(&grown, "%s%s\n", f->warnings ? f->warnings : "", msg) < 0)
		return;
	free(f->warnings);
	f->warnings = grown;
}

static const struct bc_parse_opts skip_unknown = { .skip_unknown_kinds = true };

/* Task i: module i's bytes to its split BTF, or its message held. */
static int parse_module(void *arg, uint32_t i)
{
	struct parse_ctx *ctx = arg;
	struct kmod_file *f = &ctx->list->files[i];
	struct bc_log hold = { .fn = hold_first, .ctx = f };
	char why[256];
	uint8_t *btf = NULL;
	size_t btf_size = 0;
	int err = 0;

	if (f->path) {
		err = read_whole(f->path, &f->data, &f->size);
		if (err == -ENOMEM)
			return err;
		if (err) {
			snprintf(f->msg, sizeof(f->msg), "%s: %s", f->origin,
				 strerror(-err));
			f->err = -EINVAL;
			return 0;
		}
	}
	if (f->btf_only) {
		btf = f->data;
		btf_size = f->size;
		f->data = NULL;
	} else {
		err = kmod_read_btf(f->data, f->size, BC_KMOD_MAX_SIZE, &btf,
				    &btf_size, why, sizeof(why));
		free(f->data);
		f->data = NULL;
		if (err == -ENOMEM)
			return err;
		if (err == -ENOENT) {
			f->err = err;
			return 0;
		}
		if (err) {
			snprintf(f->msg, sizeof(f->msg), "%s: %s", f->origin, why);
			f->err = -EINVAL;
			return 0;
		}
	}
	err = bc_btf_parse_opts(btf, btf_size, ctx->base, &skip_unknown,
				f->origin, &hold, &f->btf);
	free(btf);
	if (err == -ENOMEM)
		return err;
	if (err) {
		if (!f->msg[0])
			snprintf(f->msg, sizeof(f->msg), "%s: bad BTF", f->origin);
		f->err = -EINVAL;
	}
	return 0;
}

/*
 * Parses every gathered module over the base, then keeps the good ones
 * in ks in name order (the first of a name), warning about each bad one.
 */
static int parse_modules(struct kmod_list *l, struct bc_kernel_set *ks,
			 unsigned int jobs, const struct bc_log *log)
{
	struct parse_ctx ctx = { .list = l, .base = ks->input.btf };
	uint32_t i;
	int err;

	if (l->nr)
		qsort(l->files, l->nr, sizeof(l->files[0]), kmod_file_cmp);
	elf_version(EV_CURRENT);	/* libelf's global, before the threads */
	err = bc_par_for(jobs ? jobs : bc_par_cpus(), l->nr, parse_module, &ctx,
			 NULL);
	if (err)
		return bc_log_error(log, err, "%s: out of memory", ks->path);
	ks->mods = calloc(l->nr ? l->nr : 1, sizeof(*ks->mods));
	if (!ks->mods)
		return bc_log_error(log, -ENOMEM, "%s: out of memory", ks->path);
	for (i = 0; i < l->nr; i++) {
		struct kmod_file *f = &l->files[i];
		struct bc_kmod *m;

		if (f->err == -ENOENT) {
			ks->nr_no_btf++;
			continue;
		}
		if (f->err) {
			ks->nr_skipped++;
			bc_log_printf(log, BC_LOG_WARN, "%s; module %s left out",
				      f->msg, f->name);
			continue;
		}
		if (ks->nr_mods && !strcmp(ks->mods[ks->nr_mods - 1].name, f->name)) {
			bc_log_printf(log, BC_LOG_WARN,
				      "%s: a second module %s; %s is taken",
				      f->origin, f->name,
				      ks->mods[ks->nr_mods - 1].origin);
			continue;
		}
		if (f->warnings) {
			char *line = f->warnings, *end;

			for (; (end = strchr(line, '\n')); line = end + 1)
				bc_log_printf(log, BC_LOG_WARN, "%.*s",
					      (int)(end - line), line);
		}
		m = &ks->mods[ks->nr_mods++];
		m->name = f->name;
		m->origin = f->origin;
		m->btf = f->btf;
		f->name = f->origin = NULL;
		f->btf = NULL;
	}
	return 0;
}

/* ---- the sources ------------------------------------------------------ */

/* A package: the kernel image and the modules in one pass. */
struct package_walk {
	const char *path;
	struct kmod_list *list;
	char *kernel_member;
	uint8_t *image;
	size_t image_size;
	bool want_modules;
};

static bool is_modules_member(const char *member)
{
	if (!strncmp(member, "usr/", 4))
		member += 4;
	return !strncmp(member, "lib/modules/", 12);
}

static bool package_want(void *arg, const char *member)
{
	struct package_walk *w = arg;

	if (!w->kernel_member && bc_package_is_kernel_member(member))
		return true;
	return w->want_modules && is_modules_member(member) &&
	       kmod_stem_len(strrchr(member, '/') + 1);
}

static int package_take(void *arg, const char *member, uint8_t *data,
			size_t size)
{
	struct package_walk *w = arg;
	struct kmod_file *f;
	char *origin;

	if (!w->kernel_member && bc_package_is_kernel_member(member)) {
		w->kernel_member = strdup(member);
		w->image = data;
		w->image_size = size;
		return w->kernel_member ? 0 : -ENOMEM;
	}
	if (asprintf(&origin, "%s: %s", w->path, member) < 0)
		origin = NULL;
	f = kmod_list_add(w->list, bc_kmod_name(member), origin);
	if (!f) {
		free(data);
		return -ENOMEM;
	}
	f->data = data;
	f->size = size;
	if (is_elf(data, size)) {
		/* a plain .ko: keep its .BTF only (4,000 of them are 400 MB) */
		char why[256];
		uint8_t *btf;
		size_t btf_size;
		int err = bc_kmod_read_btf(data, size, size, &btf, &btf_size,
					   why, sizeof(why));

		if (err == -ENOMEM)
			return err;
		if (!err) {
			free(f->data);
			f->data = btf;
			f->size = btf_size;
			f->btf_only = true;
		}
		/* else the task finds the same fault and says it */
	}
	return 0;
}

static int read_package(struct bc_kernel_set *ks, struct kmod_list *list,
			bool want_modules, const struct bc_log *log)
{
	struct bc_package_visitor v = { package_want, package_take, NULL };
	struct package_walk w = {
		.path = ks->path, .list = list, .want_modules = want_modules,
	};
	struct bc_blob blob;
	char *label;
	int err;

	v.ctx = &w;
	err = bc_package_walk(ks->path, BC_KIMAGE_MAX_OUTPUT, &v, log);
	if (err == -ENOMEM)
		bc_log_error(log, err, "%s: out of memory", ks->path);
	if (!err && !w.kernel_member)
		err = bc_log_error(log, -ENOENT,
				   "%s: the package holds no kernel (no boot/vmlinuz-* nor lib/modules/*/vmlinuz)",
				   ks->path);
	if (err)
		goto out;
	if (asprintf(&label, "%s: %s", ks->path, w.kernel_member) < 0) {
		err = bc_log_error(log, -ENOMEM, "%s: out of memory", ks->path);
		goto out;
	}
	err = bc_kimage_read_btf(label, w.image, w.image_size,
				 BC_KIMAGE_MAX_OUTPUT, &blob, log);
	free(label);
	if (!err) {
		ks->input.path = ks->path;
		err = bc_btf_parse_blob(&blob, NULL, &skip_unknown, ks->path, log,
					&ks->input.btf);
	}
out:
	free(w.kernel_member);
	free(w.image);
	return err;
}

static int dirent_cmp(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

static bool is_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

/*
 * The module files under dir, recursively (symbolic links not followed:
 * /lib/modules/V/build points into the sources). Returns 0 or -errno.
 */
static int gather_tree(const char *dir, struct kmod_list *list, int depth)
{
	struct dirent **names = NULL;
	int n, i, err = 0;

	if (depth > 16)
		return 0;
	n = scandir(dir, &names, NULL, dirent_cmp);
	if (n < 0)
		return -errno;
	for (i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		struct kmod_file *f;
		struct stat st;
		char *path;

		if (err || name[0] == '.')
			continue;
		if (asprintf(&path, "%s/%s", dir, name) < 0) {
			err = -ENOMEM;
			continue;
		}
		if (lstat(path, &st)) {
			free(path);
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			err = gather_tree(path, list, depth + 1);
			free(path);
			continue;
		}
		if (!S_ISREG(st.st_mode) || !kmod_stem_len(name)) {
			free(path);
			continue;
		}
		f = kmod_list_add(list, bc_kmod_name(name), strdup(path));
		if (!f) {
			free(path);
			err = -ENOMEM;
			continue;
		}
		f->path = path;
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return err;
}

/* A directory of BTF: every regular file but vmlinux is a module. */
static int gather_btf_dir(const char *dir, struct kmod_list *list)
{
	struct dirent **names = NULL;
	int n, i, err = 0;

	n = scandir(dir, &names, NULL, dirent_cmp);
	if (n < 0)
		return -errno;
	for (i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		size_t len = strlen(name), stem;
		struct kmod_file *f;
		char *path;

		if (err || name[0] == '.' || !strcmp(name, "vmlinux"))
			continue;
		if (asprintf(&path, "%s/%s", dir, name) < 0) {
			err = -ENOMEM;
			continue;
		}
		if (!is_file(path)) {
			free(path);
			continue;
		}
		stem = kmod_stem_len(name);
		if (!stem)
			stem = len > 4 && !strcmp(name + len - 4, ".btf") ?
			       len - 4 : len;
		f = kmod_list_add(list, module_name_of(name, stem), strdup(path));
		if (!f) {
			free(path);
			err = -ENOMEM;
			continue;
		}
		f->path = path;
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return err;
}

static bool is_modules_tree(const char *dir)
{
	static const char *const marks[] = { "modules.order", "modules.dep", "kernel" };
	char path[4096];
	size_t i;

	for (i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, marks[i]);
		if (!access(path, F_OK))
			return true;
	}
	return false;
}

/*
 * ROOT/[usr/]lib/modules/V when it holds one version only: the modules
 * tree of an unpacked package. malloc'd, or NULL.
 */
static char *tree_under_root(const char *root)
{
	static const char *const bases[] = { "lib/modules", "usr/lib/modules" };
	char *found = NULL;
	size_t b;

	for (b = 0; b < 2 && !found; b++) {
		struct dirent **names = NULL;
		char *dir;
		int n, i, versions = 0;

		if (asprintf(&dir, "%s/%s", root, bases[b]) < 0)
			return NULL;
		n = scandir(dir, &names, NULL, dirent_cmp);
		for (i = 0; i < n; i++) {
			char *sub;

			if (names[i]->d_name[0] != '.' &&
			    asprintf(&sub, "%s/%s", dir, names[i]->d_name) >= 0) {
				if (is_dir(sub) && !versions++)
					found = sub;
				else
					free(sub);
			}
			free(names[i]);
		}
		free(names);
		free(dir);
		if (versions > 1) {
			free(found);
			found = NULL;
		}
	}
	return found;
}

/*
 * The kernel beside the modules tree tree (.../[usr/]lib/modules/V):
 * the first of V/vmlinux, ROOT/usr/lib/debug/boot/vmlinux-V,
 * ROOT/boot/vmlinux-V, V/vmlinuz, ROOT/boot/vmlinuz-V. malloc'd, NULL
 * when none is there (or out of memory).
 */
static char *kernel_beside(const char *tree)
{
	const char *version = strrchr(tree, '/');
	char *root, *cut, *path = NULL;
	int i;

	version = version ? version + 1 : tree;
	root = strdup(tree);
	if (!root)
		return NULL;
	cut = strstr(root, "/lib/modules/");
	if (cut) {
		if (cut >= root + 4 && !strncmp(cut - 4, "/usr", 4))
			cut -= 4;
		*cut = '\0';
	}
	for (i = 0; i < 5; i++) {
		int r = -1;

		switch (i) {
		case 0: r = asprintf(&path, "%s/vmlinux", tree); break;
		case 1: r = cut ? asprintf(&path, "%s/usr/lib/debug/boot/vmlinux-%s", root, version) : -1; break;
		case 2: r = cut ? asprintf(&path, "%s/boot/vmlinux-%s", root, version) : -1; break;
		case 3: r = asprintf(&path, "%s/vmlinuz", tree); break;
		case 4: r = cut ? asprintf(&path, "%s/boot/vmlinuz-%s", root, version) : -1; break;
		}
		if (r < 0) {
			path = NULL;
			continue;
		}
		if (is_file(path))
			break;
		free(path);
		path = NULL;
	}
	free(root);
	return path;
}

static int load_vmlinux(struct bc_kernel_set *ks, const char *file,
			const struct bc_log *log)
{
	struct bc_input_opts opts = { 0 };
	int err;

	ks->vmlinux_path = strdup(file);
	if (!ks->vmlinux_path)
		return bc_log_error(log, -ENOMEM, "%s: out of memory", ks->path);
	err = bc_input_load(ks->vmlinux_path, &opts, &ks->input, log);
	ks->input.path = ks->path;
	return err;
}

/* A directory: of BTF, a modules tree, or an unpacked package's root. */
static int read_dir(struct bc_kernel_set *ks, struct kmod_list *list,
		    bool want_modules, const struct bc_log *log)
{
	char *tree = NULL, *vmlinux = NULL;
	int err;

	if (is_modules_tree(ks->path)) {
		tree = strdup(ks->path);
		if (!tree)
			return bc_log_error(log, -ENOMEM, "%s: out of memory", ks->path);
	} else {
		if (asprintf(&vmlinux, "%s/vmlinux", ks->path) < 0)
			return bc_log_error(log, -ENOMEM, "%s: out of memory", ks->path);
		if (!is_file(vmlinux))
			tree = tree_under_root(ks->path);
	}
	if (!tree && !is_file(vmlinux)) {
		free(vmlinux);
		return bc_log_error(log, -ENOENT,
				    "%s: a directory of BTF needs the kernel's as vmlinux (as /sys/kernel/btf), a modules tree its modules.dep, kernel/ or a kernel beside it",
				    ks->path);
	}
	if (tree) {
		free(vmlinux);
		vmlinux = kernel_beside(tree);
		if (!vmlinux) {
			err = bc_log_error(log, -ENOENT,
					   "%s: a modules tree without its kernel (none of vmlinux, vmlinuz in it, nor boot/vmlinu[xz]-VERSION, usr/lib/debug/boot/vmlinux-VERSION beside it)",
					   tree);
			free(tree);
			return err;
		}
		ks->source = BC_KSET_TREE;
	} else {
		ks->source = BC_KSET_BTF_DIR;
	}
	err = load_vmlinux(ks, vmlinux, log);
	free(vmlinux);
	if (!err && want_modules) {
		err = tree ? gather_tree(tree, list, 0) :
			     gather_btf_dir(ks->path, list);
		if (err)
			err = bc_log_error(log, err, "%s: %s", tree ? tree : ks->path,
					   strerror(-err));
	}
	free(tree);
	return err;
}

int bc_kernel_set_read(const char *path, const struct bc_kernel_set_opts *opts,
		       struct bc_kernel_set *ks, const struct bc_log *log)
{
	static const struct bc_kernel_set_opts defaults = { 0 };
	struct kmod_list list = { 0 };
	uint8_t head[BC_KIMAGE_PROBE_LEN];
	ssize_t got = 0;
	int fd, err;

	if (!opts)
		opts = &defaults;
	memset(ks, 0, sizeof(*ks));
	ks->path = path;
	if (is_dir(path)) {
		err = read_dir(ks, &list, !opts->no_modules, log);
		ks->has_modules = !opts->no_modules;
	} else {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			got = pread(fd, head, sizeof(head), 0);
			close(fd);
		}
		if (got > 0 && bc_package_detect(head, got)) {
			ks->source = BC_KSET_PACKAGE;
			ks->has_modules = !opts->no_modules;
			err = read_package(ks, &list, !opts->no_modules, log);
		} else {
			ks->source = BC_KSET_FILE;
			err = load_vmlinux(ks, path, log);
		}
	}
	if (!err && ks->has_modules)
		err = parse_modules(&list, ks, opts->jobs, log);
	kmod_list_free(&list);
	if (err)
		bc_kernel_set_deinit(ks);
	return err;
}

struct bc_btf *bc_kernel_set_take_module(struct bc_kernel_set *ks, uint32_t i)
{
	struct bc_btf *btf = ks->mods[i].btf;

	ks->mods[i].btf = NULL;
	return btf;
}

void bc_kernel_set_deinit(struct bc_kernel_set *ks)
{
	uint32_t i;

	for (i = 0; i < ks->nr_mods; i++) {
		free(ks->mods[i].name);
		free(ks->mods[i].origin);
		bc_btf_free(ks->mods[i].btf);
	}
	free(ks->mods);
	free(ks->vmlinux_path);
	bc_input_deinit(&ks->input);
	memset(ks, 0, sizeof(*ks));
}
