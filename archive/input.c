// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "../canon/canon.h"
#include "../encode/encoder.h"
#include "btf_file.h"
#include "input.h"

/*
 * Holds back the first message of a read, so that "ELF file has no .BTF
 * section" can turn into an on-the-fly encode instead of an error.
 */
struct held_log {
	char msg[1024];
	enum bc_log_level level;
	bool held;
};

static void hold_message(void *ctx, enum bc_log_level level, const char *msg)
{
	struct held_log *h = ctx;

	if (h->held)
		return;
	snprintf(h->msg, sizeof(h->msg), "%s", msg);
	h->level = level;
	h->held = true;
}

static void release_message(const struct held_log *h, const struct bc_log *log)
{
	if (h->held)
		bc_log_printf(log, h->level, "%s", h->msg);
}

/* Canonicalizes *btf (over base) and replaces it with the result. */
static int canonicalize(struct bc_btf **btf, const struct bc_btf *base,
			const struct canon_opts *copts, const char *path,
			const struct bc_log *log)
{
	struct canon_result res = { 0 };
	struct bc_btf *sorted = NULL;
	int err;

	err = canon_run(*btf, copts, &res, log);
	if (!err)
		err = bc_btf_parse(res.raw, res.raw_size, base, path, log,
				   &sorted);
	canon_result_deinit(&res);
	if (err)
		return err;
	bc_btf_free(*btf);
	*btf = sorted;
	return 0;
}

/*
 * Encodes path's DWARF, over the base (in->base, already loaded) when
 * there is one: a module's split BTF, as `btfcanon encode --btf_base`.
 */
static int encode_dwarf(const char *path, const struct bc_input_opts *opts,
			struct bc_input *in, const struct bc_log *log)
{
	struct canon_opts copts = { .order = opts->order, .resolve_fwds = true };
	struct encode_opts eopts;
	struct encode_stats stats;
	struct encode_result encoded = { 0 };
	const void *raw;
	uint32_t raw_size;
	int err;

	encode_opts_init(&eopts);
	eopts.base = in->base;
	err = encode_file(path, &eopts, &encoded, &stats, log);
	if (err)
		goto out;
	copts.omit = encoded.omit;	/* the encoder's helper types */
	raw = encode_result_raw(&encoded, &raw_size);
	if (!raw)
		err = bc_log_error(log, -ENOMEM, "%s: out of memory", path);
	else
		err = bc_btf_parse(raw, raw_size, in->base, path, log, &in->btf);
	if (!err)
		err = canonicalize(&in->btf, in->base, &copts, path, log);
	in->encoded = true;
out:
	encode_result_deinit(&encoded);
	return err;
}

/*
 * dump, diff, deps and header go on past types of kinds they do not know,
 * as long as a kind layout section sizes them: such a type reads as an
 * opaque placeholder, `typedef void __btfcanon_unknown_kind<K>`
 * (references to it stay valid), and the parser warns. Such an input is
 * not put in canonical order: the ids inside the records it does not know
 * cannot be renumbered, so every id stays the input's.
 */
static const struct bc_parse_opts skip_unknown = { .skip_unknown_kinds = true };

int bc_input_load(const char *path, const struct bc_input_opts *opts,
		  struct bc_input *in, const struct bc_log *log)
{
	struct canon_opts copts = { .order = opts->order };
	struct held_log held = { .held = false };
	struct bc_log hold = { .fn = hold_message, .ctx = &held };
	enum bc_file_format format;
	struct bc_blob blob;
	int err;

	memset(in, 0, sizeof(*in));
	in->path = path;
	if (opts->base_path) {
		err = bc_file_load_btf_opts(opts->base_path, NULL, &skip_unknown,
					    &in->base, &format, log);
		if (err)
			goto fail;
	}
	err = bc_file_read_btf_blob(path, &blob, &format, &hold);
	if (err == -ENOENT && format == BC_FILE_ELF) {
		/* an ELF file without .BTF: its DWARF then */
		err = encode_dwarf(path, opts, in, log);
		if (err)
			goto fail;
		return 0;
	}
	release_message(&held, log);
	if (err)
		goto fail;
	err = bc_btf_parse_blob(&blob, in->base, &skip_unknown, path, log,
				&in->btf);
	if (!err && opts->canonicalize && bc_btf_has_unknown(in->btf))
		/*
		 * the ids inside those records would go stale; over a base
		 * with such records, the plain form's string offsets are no
		 * longer the input's, which canon's output would be read as
		 */
		bc_log_printf(log, BC_LOG_WARN,
			      "%s: types keep the input's ids, not the canonical order: types of a kind btfcanon does not know cannot be renumbered",
			      path);
	else if (!err && opts->canonicalize && opts->for_libbpf && !in->base) {
		copts.keep_strings = true;
		err = canon_run_raw(in->btf, &copts, &in->raw, &in->raw_size, log);
	} else if (!err && opts->canonicalize)
		err = canonicalize(&in->btf, in->base, &copts, path, log);
	if (err)
		goto fail;
	return 0;
fail:
	bc_input_deinit(in);
	return err;
}

void bc_input_deinit(struct bc_input *in)
{
	bc_btf_free(in->btf);
	bc_btf_free(in->base);
	free(in->raw);
	in->btf = NULL;
	in->base = NULL;
	in->raw = NULL;
}

/*
 * libbpf 1.1 exports no btf__new_split(); btf__parse_raw_split() reads a
 * file, so the split blob goes through an anonymous memory file. Returns
 * NULL with errno set on failure, as libbpf does.
 */
static struct btf *libbpf_split(const struct bc_btf *btf, struct btf *base)
{
	char path[64];
	struct btf *out;
	ssize_t put;
	int fd, err;

	fd = memfd_create("btfcanon-split", MFD_CLOEXEC);
	if (fd < 0)
		return NULL;
	put = write(fd, btf->data, btf->size);
	if (put < 0 || (size_t)put != btf->size) {
		err = put < 0 ? errno : EIO;
		close(fd);
		errno = err;
		return NULL;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	out = btf__parse_raw_split(path, base);
	err = errno;
	close(fd);
	errno = err;
	return out;
}

/*
 * libbpf 1.1 reads vlen from bits 0-15 of the info word; a type with more
 * entries (possible since 2026) would be misread.
 */
static int check_libbpf_vlen(const struct bc_btf *btf, const struct bc_log *log)
{
	uint32_t i;

	for (i = 0; i < btf->nr_types; i++) {
		const struct btf_type *t = bc_btf_local(btf, i);

		if (bc_type_vlen(t) > 0xffff)
			return bc_log_error(log, -EOPNOTSUPP,
				"%s: type [%u] %s has %u entries, more than libbpf 1.1 reads (65535): -f raw and -f json can list it, -f c cannot",
				btf->path, btf->start_id + i,
				bc_kind_name(bc_type_kind(t)), bc_type_vlen(t));
	}
	return 0;
}

int bc_input_to_libbpf(const struct bc_input *in, struct btf **base,
		       struct btf **btf, const struct bc_log *log)
{
	int err;

	*base = NULL;
	*btf = NULL;
	/* the data of a bc_btf is in the plain form (24-byte header) */
	err = in->base ? check_libbpf_vlen(in->base, log) : 0;
	if (!err)
		err = check_libbpf_vlen(in->btf, log);
	if (err)
		return err;
	if (in->base) {
		*base = btf__new(in->base->data, in->base->size);
		if (!*base) {
			err = -errno;
			*base = NULL;
			return bc_log_error(log, err, "%s: libbpf rejects the base BTF: %s",
					    in->base->path, strerror(-err));
		}
		*btf = libbpf_split(in->btf, *base);
	} else if (in->raw) {
		*btf = btf__new(in->raw, in->raw_size);	/* for_libbpf */
	} else {
		*btf = btf__new(in->btf->data, in->btf->size);
	}
	if (!*btf) {
		err = -errno;
		*btf = NULL;
		btf__free(*base);
		*base = NULL;
		return bc_log_error(log, err, "%s: libbpf rejects the BTF: %s",
				    in->path, strerror(-err));
	}
	return 0;
}
