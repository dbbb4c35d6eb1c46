// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "btf_data.h"
#include "btf_kinds.h"

#define BTF_MAGIC_NATIVE 0xeB9F
#define BTF_MAGIC_SWAPPED 0x9FeB

void bc_btf_free(struct bc_btf *btf)
{
	if (!btf)
		return;
	free(btf->path);
	bc_blob_release(&btf->own);
	free(btf->type_off);
	free(btf->kinds);
	free(btf->ref_start);
	free(btf->refs);
	free(btf->layout);
	free(btf->unknown);
	free(btf->unknown_bytes);
	free(btf);
}

/* MAP_POPULATE: one call instead of a fault per page. */
int bc_blob_map(int fd, off_t off, size_t len, struct bc_blob *blob)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t lead = off % page;
	void *mem;

	if (!len || page <= 0)
		return -1;
	mem = mmap(NULL, lead + len, PROT_READ, MAP_PRIVATE | MAP_POPULATE,
		   fd, off - lead);
	if (mem == MAP_FAILED)
		return -1;
	blob->mem = mem;
	blob->mem_len = lead + len;
	blob->mapped = true;
	blob->data = (const uint8_t *)mem + lead;
	blob->size = len;
	return 0;
}

void bc_blob_release(struct bc_blob *blob)
{
	if (blob->mapped)
		munmap(blob->mem, blob->mem_len);
	else
		free(blob->mem);
	memset(blob, 0, sizeof(*blob));
}

const struct btf_type *bc_btf_type(const struct bc_btf *btf, uint32_t id)
{
	while (btf && id < btf->start_id)
		btf = btf->base;
	if (!btf || id == 0)
		return NULL;
	return bc_btf_local(btf, id - btf->start_id);
}

uint32_t bc_btf_kind(const struct bc_btf *btf, uint32_t id)
{
	while (btf && id < btf->start_id)
		btf = btf->base;
	if (!btf || id == 0)
		return BTF_KIND_UNKN;
	return btf->kinds[id - btf->start_id];
}

const struct bc_unknown_type *bc_btf_unknown(const struct bc_btf *btf,
					     uint32_t id)
{
	uint32_t lo = 0, hi;

	while (btf && id < btf->start_id)
		btf = btf->base;
	if (!btf || id == 0 || id >= bc_btf_end_id(btf))
		return NULL;
	hi = btf->nr_unknown;
	while (lo < hi) {	/* by id: unknown[] is in id order */
		uint32_t mid = lo + (hi - lo) / 2;

		if (btf->unknown[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < btf->nr_unknown && btf->unknown[lo].id == id ?
	       &btf->unknown[lo] : NULL;
}

bool bc_btf_has_unknown(const struct bc_btf *btf)
{
	for (; btf; btf = btf->base)
		if (btf->nr_unknown)
			return true;
	return false;
}

int bc_btf_refuse_unknown(const struct bc_btf *btf, bool with_base,
			  const char *what, const struct bc_log *log)
{
	for (; btf; btf = with_base ? btf->base : NULL) {
		const struct bc_unknown_type *u = btf->unknown;

		if (!btf->nr_unknown)
			continue;
		return bc_log_error(log, -EOPNOTSUPP,
			"%s: type [%u] has kind %u, which btfcanon does not know: the kind layout section gives its size, but not which of its words are type ids, so %s cannot renumber the ids around it (dump, diff, deps and header step over it)",
			btf->path, u->id, u->kind, what);
	}
	return 0;
}

const char *bc_btf_str(const struct bc_btf *btf, uint32_t off)
{
	while (btf->base && off < btf->start_str_off)
		btf = btf->base;
	return btf->strs + (off - btf->start_str_off);
}

/* Where the sections of the blob being parsed lie (the caller's bytes). */
struct raw_view {
	const uint8_t *types;
	uint32_t type_len;
	const char *strs;
	uint32_t str_len;
};

/* Reports a bad layout section: what is wrong, then where things are. */
static int bad_layout(const struct bc_btf *btf, const struct btf_header *hdr,
		      uint32_t off, uint32_t len, uint64_t body,
		      const struct bc_log *log, const char *what)
{
	return bc_log_error(log, -EINVAL,
		"%s: bad kind layout section: %s (types %u+%u, layout %u+%u, strings %u+%u, %llu bytes after the header)",
		btf->path, what, hdr->type_off, hdr->type_len, off, len,
		hdr->str_off, hdr->str_len, (unsigned long long)body);
}

/* Do [a, a+alen) and [b, b+blen) share a byte? */
static bool overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return alen && blen && a < b + blen && b < a + alen;
}

/*
 * The kind layout section of a 32-byte header: checked for bounds,
 * alignment and overlap, placed between the types and the strings (where
 * pahole and libbpf put it), every entry of a kind btfcanon knows equal to
 * that kind's real sizes; then copied into btf->layout.
 */
static int parse_layout(struct bc_btf *btf, const uint8_t *data,
			uint64_t body, const struct bc_log *log)
{
	const struct bc_btf_header_layout *lh = (const void *)data;
	const struct btf_header *hdr = &lh->base;
	uint32_t off = lh->layout_off, len = lh->layout_len, i;
	uint64_t end = (uint64_t)off + len;

	if (!len)
		return 0;	/* as libbpf: no section, whatever the offset */
	if (end > body)
		return bad_layout(btf, hdr, off, len, body, log,
				  "it runs past the end of the data (truncated?)");
	if ((hdr->hdr_len + off) % 4)
		return bad_layout(btf, hdr, off, len, body, log,
				  "it is not 4-byte aligned");
	if (len % sizeof(struct bc_btf_layout))
		return bad_layout(btf, hdr, off, len, body, log,
				  "its length is not a multiple of 4 (one 4-byte entry per kind)");
	if (overlaps(off, len, hdr->type_off, hdr->type_len))
		return bad_layout(btf, hdr, off, len, body, log,
				  "it overlaps the type section");
	if (overlaps(off, len, hdr->str_off, hdr->str_len))
		return bad_layout(btf, hdr, off, len, body, log,
				  "it overlaps the string section");
	if (hdr->type_off != 0 || off != hdr->type_len ||
	    hdr->str_off != end || (uint64_t)hdr->str_off + hdr->str_len != body)
		return bad_layout(btf, hdr, off, len, body, log,
				  "expected the types at 0, the layout section right after them and the strings right after it up to the end");
	btf->nr_layout = len / sizeof(struct bc_btf_layout);
	btf->layout = malloc(len);
	if (!btf->layout)
		return -ENOMEM;
	memcpy(btf->layout, data + hdr->hdr_len + off, len);
	for (i = 1; i < btf->nr_layout && i < BC_NR_KINDS; i++) {
		struct bc_btf_layout want = bc_kind_btf_layout(i);
		const struct bc_btf_layout *got = &btf->layout[i];

		if (got->info_sz != want.info_sz || got->elem_sz != want.elem_sz)
			return bc_log_error(log, -EINVAL,
				"%s: bad kind layout section: entry %u (%s) says %u bytes after the type and %u per entry; %s has %u and %u",
				btf->path, i, bc_kinds[i].name, got->info_sz,
				got->elem_sz, bc_kinds[i].name, want.info_sz,
				want.elem_sz);
	}
	return 0;
}

/*
 * Checks the header of the size bytes at data (the caller's) and finds the
 * sections in *view. A header is 24 bytes, or 32 with the kind layout
 * section (any bytes past 32 must be zero, as libbpf demands of a longer
 * header than it knows).
 */
static int parse_header(struct bc_btf *btf, const uint8_t *data, size_t size,
			struct raw_view *view, const struct bc_log *log)
{
	const struct btf_header *hdr = (const void *)data;
	const char *path = btf->path;
	uint64_t body, type_end, str_end;
	size_t i, known_len = sizeof(*hdr);
	int err;

	if (size == 0)
		return bc_log_error(log, -EINVAL,
			"%s: empty file: no BTF header", path);
	/* the magic first: a short text file is not BTF, not truncated BTF */
	if (size >= sizeof(hdr->magic)) {
		uint16_t magic;

		memcpy(&magic, data, sizeof(magic));
		if (magic == BTF_MAGIC_SWAPPED)
			return bc_log_error(log, -EOPNOTSUPP,
				"%s: BTF of the other byte order is not supported",
				path);
		if (magic != BTF_MAGIC_NATIVE)
			return bc_log_error(log, -EINVAL,
				"%s: bad magic 0x%04x: not BTF (0xeb9f) and not ELF",
				path, magic);
	}
	if (size < sizeof(*hdr))
		return bc_log_error(log, -EINVAL,
			"%s: truncated: %zu bytes, a BTF header needs %zu",
			path, size, sizeof(*hdr));
	if (hdr->version != 1)
		return bc_log_error(log, -EINVAL,
			"%s: unsupported BTF version %u (expected 1)", path,
			hdr->version);
	if (hdr->flags)
		return bc_log_error(log, -EINVAL,
			"%s: unsupported header flags 0x%x", path, hdr->flags);
	if (hdr->hdr_len < sizeof(*hdr) || hdr->hdr_len > size)
		return bc_log_error(log, -EINVAL,
			"%s: header length %u out of range (%zu..%zu)", path,
			hdr->hdr_len, sizeof(*hdr), size);
	if (hdr->hdr_len > sizeof(*hdr) &&
	    hdr->hdr_len < sizeof(struct bc_btf_header_layout))
		return bc_log_error(log, -EINVAL,
			"%s: header length %u: neither the 24-byte header nor the 32-byte one with a kind layout section",
			path, hdr->hdr_len);
	if (hdr->hdr_len >= sizeof(struct bc_btf_header_layout))
		known_len = sizeof(struct bc_btf_header_layout);
	for (i = known_len; i < hdr->hdr_len; i++)
		if (data[i])
			return bc_log_error(log, -EINVAL,
				"%s: unknown non-zero header field at byte %zu",
				path, i);
	body = size - hdr->hdr_len;
	type_end = (uint64_t)hdr->type_off + hdr->type_len;
	str_end = (uint64_t)hdr->str_off + hdr->str_len;
	if (type_end > body || str_end > body)
		return bc_log_error(log, -EINVAL,
			"%s: header lengths do not add up or the file is truncated: types %u+%u, strings %u+%u need %llu bytes after the header, but only %llu follow",
			path, hdr->type_off, hdr->type_len, hdr->str_off,
			hdr->str_len,
			(unsigned long long)(type_end > str_end ? type_end : str_end),
			(unsigned long long)body);
	if (known_len > sizeof(*hdr) &&
	    ((const struct bc_btf_header_layout *)hdr)->layout_len) {
		err = parse_layout(btf, data, body, log);
		if (err)
			return err;
	} else if (hdr->type_off != 0 || hdr->str_off != hdr->type_len ||
		   str_end != body) {
		return bc_log_error(log, -EINVAL,
			"%s: header lengths do not add up: expected types at 0 and strings right after them up to the end (%llu), got types %u+%u, strings %u+%u",
			path, (unsigned long long)body, hdr->type_off,
			hdr->type_len, hdr->str_off, hdr->str_len);
	}
	if ((hdr->hdr_len + hdr->type_off) % 4 || hdr->type_len % 4)
		return bc_log_error(log, -EINVAL,
			"%s: type section is not 4-byte aligned", path);
	view->types = data + hdr->hdr_len + hdr->type_off;
	view->type_len = hdr->type_len;
	view->strs = (const char *)data + hdr->hdr_len + hdr->str_off;
	view->str_len = hdr->str_len;
	return 0;
}

static int parse_strings(struct bc_btf *btf, const struct bc_log *log)
{
	const char *path = btf->path;

	if (!btf->base) {
		if (btf->str_len == 0 || btf->strs[0] != '\0')
			return bc_log_error(log, -EINVAL,
				"%s: string section does not start with an empty string: this looks like split BTF; give its base with --base",
				path);
	}
	if (btf->str_len && btf->strs[btf->str_len - 1] != '\0')
		return bc_log_error(log, -EINVAL,
			"%s: string section is not NUL-terminated", path);
	return 0;
}

/* The layout section that sizes btf's types: its own, else its base's. */
static const struct bc_btf *layout_owner(const struct bc_btf *btf)
{
	while (btf && !btf->layout)
		btf = btf->base;
	return btf;
}

/*
 * Bytes of the record of unknown kind at t, from the layout section, or a
 * negative errno after a message. Without a layout entry for the kind
 * nothing after the record can be found; without skip_unknown the kind is
 * refused, naming it and the first type of it (the first refused).
 */
static int64_t unknown_kind_size(const struct bc_btf *btf, uint32_t id,
				 const struct btf_type *t,
				 const struct bc_parse_opts *opts,
				 const struct bc_log *log)
{
	const struct bc_btf *owner = layout_owner(btf);
	uint32_t kind = bc_type_kind(t);
	const struct bc_btf_layout *l;

	if (kind == BTF_KIND_UNKN)
		return bc_log_error(log, -EINVAL,
			"%s: type [%u] has unknown kind 0", btf->path, id);
	if (!owner)
		return bc_log_error(log, -EINVAL,
			"%s: type [%u] has unknown kind %u, a kind newer than btfcanon, and the BTF has no kind layout section to say how long its record is: nothing from it on can be read",
			btf->path, id, kind);
	if (kind >= owner->nr_layout)
		return bc_log_error(log, -EINVAL,
			"%s: type [%u] has unknown kind %u (the kind layout section has no entry for it: nothing from it on can be read)",
			btf->path, id, kind);
	if (!opts->skip_unknown_kinds)
		return bc_log_error(log, -EOPNOTSUPP,
			"%s: type [%u] has kind %u, which btfcanon does not know: the kind layout section gives its size, but not which of its words are type ids, so it cannot be sorted nor its ids renumbered (sort, archive and min refuse it; dump, diff, deps and header step over it)",
			btf->path, id, kind);
	l = &owner->layout[kind];
	if (l->info_sz % 4 || l->elem_sz % 4)
		return bc_log_error(log, -EINVAL,
			"%s: type [%u] has kind %u, whose kind layout entry (%u bytes after the type, %u per entry) is not in 4-byte words",
			btf->path, id, kind, l->info_sz, l->elem_sz);
	return sizeof(*t) + l->info_sz +
	       (uint64_t)bc_type_vlen(t) * l->elem_sz;
}

/*
 * Walks the type section once: record bounds, kinds, offsets of types in
 * the plain form (where a placeholder of 12 bytes replaces a record of an
 * unknown kind). Returns the plain type section's length, or a negative
 * errno after a message.
 */
static int64_t index_types(struct bc_btf *btf, const struct raw_view *view,
			   const struct bc_parse_opts *opts,
			   const struct bc_log *log)
{
	uint32_t off = 0, cap = 1024, n = 0, len = view->type_len;
	uint64_t out_off = 0;
	const char *path = btf->path;

	btf->type_off = malloc(cap * sizeof(*btf->type_off));
	btf->kinds = malloc(cap);
	if (!btf->type_off || !btf->kinds)
		return -ENOMEM;
	while (off < len) {
		const struct btf_type *t = (const void *)(view->types + off);
		uint64_t bytes, out_bytes;
		uint32_t kind;

		if (len - off < sizeof(*t))
			return bc_log_error(log, -EINVAL,
				"%s: type [%u] at byte %u of the type section is truncated",
				path, btf->start_id + n, off);
		kind = bc_type_kind(t);
		if (!bc_kind_valid(kind)) {
			int64_t size = unknown_kind_size(btf, btf->start_id + n,
							 t, opts, log);

			if (size < 0)
				return size;
			if ((uint64_t)size > len - off)
				return bc_log_error(log, -EINVAL,
					"%s: type [%u] of unknown kind %u with vlen %u needs %llu bytes by the kind layout section but only %u remain",
					path, btf->start_id + n, kind,
					bc_type_vlen(t), (unsigned long long)size,
					len - off);
			bytes = size;
			out_bytes = sizeof(*t);
			btf->nr_unknown++;
			kind = BTF_KIND_TYPEDEF;	/* the placeholder's */
			goto record;
		}
		/*
		 * vlen of a kind without entries must be 0 (a FUNC's is its
		 * linkage, at most extern), as the kernel demands: downstream
		 * code takes a nonzero vlen for entries (found by fuzz_diff).
		 */
		if (!bc_kinds[kind].vlen_entries &&
		    bc_type_vlen(t) > (kind == BTF_KIND_FUNC ? BTF_FUNC_EXTERN : 0))
			return bc_log_error(log, -EINVAL,
				"%s: type [%u] %s has vlen %u; %s",
				path, btf->start_id + n, bc_kinds[kind].name,
				bc_type_vlen(t), kind == BTF_KIND_FUNC ?
				"a FUNC's linkage is 0 (static), 1 (global) or 2 (extern)" :
				"this kind has no entries and needs vlen 0");
		bytes = (uint64_t)bc_type_words(t) * 4;
		if (bytes > len - off)
			return bc_log_error(log, -EINVAL,
				"%s: type [%u] %s with vlen %u needs %llu bytes but only %u remain: the record runs past the end of the type section (truncated, or a wrong vlen)",
				path, btf->start_id + n, bc_kinds[kind].name,
				bc_type_vlen(t), (unsigned long long)bytes,
				len - off);
		out_bytes = bytes;
record:
		if (n == cap) {
			uint32_t *grown;
			uint8_t *grown_kinds;

			cap *= 2;
			grown = realloc(btf->type_off, cap * sizeof(*grown));
			if (!grown)
				return -ENOMEM;
			btf->type_off = grown;
			grown_kinds = realloc(btf->kinds, cap);
			if (!grown_kinds)
				return -ENOMEM;
			btf->kinds = grown_kinds;
		}
		btf->kinds[n] = kind;
		btf->type_off[n++] = out_off;
		off += bytes;
		out_off += out_bytes;
	}
	if (btf->base && (uint64_t)btf->start_id + n > UINT32_MAX)
		return bc_log_error(log, -E2BIG, "%s: too many types", path);
	btf->nr_types = n;
	return out_off;
}

/* Bytes of placeholder names the bases' plain forms appended. */
static uint32_t base_str_added(const struct bc_btf *btf)
{
	uint32_t added = 0;

	for (btf = btf->base; btf; btf = btf->base)
		added += btf->str_added;
	return added;
}

/* The placeholder name of the unknown type u, at buf (NULL: its length). */
static int placeholder_name(const struct bc_unknown_type *u, char *buf,
			    size_t size)
{
	return snprintf(buf, size, BC_UNKNOWN_PREFIX "%u", u->kind);
}

/* Bytes of the record at t, of any kind the layout section owner sizes. */
static uint32_t record_bytes(const struct bc_btf *owner, const struct btf_type *t)
{
	uint32_t kind = bc_type_kind(t);

	if (bc_kind_valid(kind))
		return bc_type_words(t) * 4;
	return sizeof(*t) + owner->layout[kind].info_sz +
	       bc_type_vlen(t) * owner->layout[kind].elem_sz;
}

/*
 * Records every type of unknown kind in btf->unknown, in id order, its
 * bytes copied into btf->unknown_bytes, and adds up the bytes of their
 * placeholder names. Two walks of the input's types: sizes, then copies.
 */
static int collect_unknown(struct bc_btf *btf, const struct raw_view *view,
			   uint32_t *names_len)
{
	const struct bc_btf *owner = layout_owner(btf);
	uint32_t i, off, n = 0, at = 0, bytes_len = 0;

	*names_len = 0;
	for (i = 0, off = 0; i < btf->nr_types; i++) {
		const struct btf_type *t = (const void *)(view->types + off);

		if (!bc_kind_valid(bc_type_kind(t)))
			bytes_len += record_bytes(owner, t);
		off += record_bytes(owner, t);
	}
	btf->unknown = calloc(btf->nr_unknown, sizeof(*btf->unknown));
	btf->unknown_bytes = malloc(bytes_len ? bytes_len : 1);
	if (!btf->unknown || !btf->unknown_bytes)
		return -ENOMEM;
	for (i = 0, off = 0; i < btf->nr_types; i++) {
		const struct btf_type *t = (const void *)(view->types + off);
		uint32_t bytes = record_bytes(owner, t);
		struct bc_unknown_type *u;

		off += bytes;
		if (bc_kind_valid(bc_type_kind(t)))
			continue;
		u = &btf->unknown[n++];
		u->id = btf->start_id + i;
		u->kind = bc_type_kind(t);
		u->name_off = t->name_off;
		u->vlen = bc_type_vlen(t);
		u->len = bytes;
		u->bytes = btf->unknown_bytes + at;
		memcpy(btf->unknown_bytes + at, t, bytes);
		at += bytes;
		*names_len += placeholder_name(u, NULL, 0) + 1;
	}
	return 0;
}

/*
 * Moves the string offsets of a split BTF's own strings in the record at
 * w up by shift bytes: the placeholder names its bases' plain forms
 * appended lie where its input's own strings began. raw_start is where
 * they began in the input.
 */
static void shift_own_names(uint32_t *w, uint32_t raw_start, uint32_t shift)
{
	uint32_t *name, k;

	for (k = 0; (name = bc_type_word_of_class(w, BC_WORD_NAME, k)); k++)
		if (*name >= raw_start)
			*name += shift;
}

/*
 * Puts the plain form of the parsed blob into btf->data: a 24-byte header,
 * the types (each record of an unknown kind replaced by its placeholder,
 * `typedef void __btfcanon_unknown_kind<K>`), the strings, then the
 * placeholders' names. Over a base that appended names, this blob's own
 * string offsets move up by as much (shift_own_names).
 */
static int build_plain(struct bc_btf *btf, const struct raw_view *view,
		       uint32_t plain_type_len)
{
	uint32_t shift = base_str_added(btf), names_len = 0, i;
	uint32_t raw_start = btf->start_str_off - shift;
	struct btf_header *hdr;
	uint8_t *types;
	char *names;
	int err;

	if (btf->nr_unknown) {
		err = collect_unknown(btf, view, &names_len);
		if (err)
			return err;
		if ((uint64_t)names_len + view->str_len + plain_type_len +
		    sizeof(*hdr) > UINT32_MAX)
			return -E2BIG;
		/* the input's own names move up as its base's did */
		for (i = 0; i < btf->nr_unknown; i++)
			if (btf->unknown[i].name_off >= raw_start)
				btf->unknown[i].name_off += shift;
	}
	btf->size = sizeof(*hdr) + (size_t)plain_type_len + view->str_len +
		    names_len;
	btf->own.mem = malloc(btf->size);
	if (!btf->own.mem)
		return -ENOMEM;
	btf->own.data = btf->data = btf->own.mem;
	btf->own.size = btf->size;
	hdr = btf->own.mem;
	memset(hdr, 0, sizeof(*hdr));
	hdr->magic = BTF_MAGIC_NATIVE;
	hdr->version = 1;
	hdr->hdr_len = sizeof(*hdr);
	hdr->type_len = plain_type_len;
	hdr->str_off = plain_type_len;
	hdr->str_len = view->str_len + names_len;
	types = (uint8_t *)(hdr + 1);
	names = (char *)types + plain_type_len + view->str_len;
	if (!btf->nr_unknown) {
		memcpy(types, view->types, plain_type_len);
	} else {
		uint32_t in_off = 0, u = 0, name_at = view->str_len;

		for (i = 0; i < btf->nr_types; i++) {
			const struct btf_type *t = (const void *)(view->types + in_off);
			uint32_t kind = bc_type_kind(t), bytes;
			struct btf_type *out = (void *)(types + btf->type_off[i]);

			if (bc_kind_valid(kind)) {
				bytes = bc_type_words(t) * 4;
				memcpy(out, t, bytes);
			} else {
				const struct bc_unknown_type *ut = &btf->unknown[u++];
				int len = placeholder_name(ut, names, names_len);

				bytes = ut->len;
				out->name_off = btf->start_str_off + name_at;
				out->info = (uint32_t)BTF_KIND_TYPEDEF << 24;
				out->type = 0;
				names += len + 1;
				names_len -= len + 1;
				name_at += len + 1;
			}
			in_off += bytes;
		}
		btf->str_added = name_at - view->str_len;
	}
	if (shift) {
		for (i = 0; i < btf->nr_types; i++)
			if (btf->kinds[i] != BTF_KIND_TYPEDEF ||
			    !bc_btf_unknown(btf, btf->start_id + i))
				shift_own_names((uint32_t *)(types + btf->type_off[i]),
						raw_start, shift);
	}
	memcpy(types + plain_type_len, view->strs, view->str_len);
	btf->hdr = hdr;
	btf->types = types;
	btf->strs = (const char *)types + plain_type_len;
	btf->str_len = view->str_len + btf->str_added;
	return 0;
}

/*
 * One warning per unknown kind read as a placeholder, after the checks:
 * how many, the first by id and name, what references to them read as.
 */
static void warn_unknown_kinds(const struct bc_btf *btf, const struct bc_log *log)
{
	uint32_t first[128] = { 0 }, count[128] = { 0 }, i, kind;

	for (i = btf->nr_unknown; i-- > 0;) {
		kind = btf->unknown[i].kind;
		count[kind]++;
		first[kind] = i;
	}
	for (kind = 0; kind < 128; kind++) {
		const struct bc_unknown_type *u = &btf->unknown[first[kind]];
		char name[64];

		if (!count[kind])
			continue;
		placeholder_name(u, name, sizeof(name));
		bc_log_printf(log, BC_LOG_WARN,
			"%s: %u type(s) of kind %u, which btfcanon does not know, stepped over by the kind layout section's sizes (first: [%u] '%s'); references to them read as the opaque 'typedef void %s'",
			btf->path, count[kind], kind, u->id,
			bc_btf_str(btf, u->name_off), name);
	}
}

/*
 * The own names of the types of unknown kinds, which listings print: the
 * only words of such a record known to be string offsets.
 */
static int check_unknown_names(const struct bc_btf *btf, const struct bc_log *log)
{
	uint32_t i;

	for (i = 0; i < btf->nr_unknown; i++)
		if (btf->unknown[i].name_off >= bc_btf_str_end(btf) - btf->str_added)
			return bc_log_error(log, -EINVAL,
				"%s: type [%u] of unknown kind %u: name: string offset %u out of range (string section ends at %u)",
				btf->path, btf->unknown[i].id, btf->unknown[i].kind,
				btf->unknown[i].name_off,
				bc_btf_str_end(btf) - btf->str_added);
	return 0;
}

/* Said after an out-of-range id or string offset in split BTF. */
static const char *base_hint(const struct bc_btf *btf)
{
	return btf->base ? " (split BTF: is the base the one it was built on?)" : "";
}

/* Reports the string offset in word j of t, which is out of range. */
static int bad_string_off(const struct bc_btf *btf, uint32_t id,
			  const struct btf_type *t, uint32_t j,
			  const struct bc_log *log)
{
	const struct bc_kind_layout *k = &bc_kinds[bc_type_kind(t)];
	const uint32_t *w = (const uint32_t *)t;
	uint32_t str_end = bc_btf_str_end(btf), entry;

	if (j == 0)
		return bc_log_error(log, -EINVAL,
			"%s: type [%u] %s: name: string offset %u out of range (string section ends at %u)%s",
			btf->path, id, k->name, w[0], str_end, base_hint(btf));
	/* w[0] was checked first, so the type's own name can be printed */
	entry = (j - 3 - k->fixed_words) / k->entry_words;
	return bc_log_error(log, -EINVAL,
		"%s: type [%u] %s '%s': %s %u name: string offset %u out of range (string section ends at %u)%s",
		btf->path, id, k->name, bc_btf_str(btf, w[0]), k->entry_what,
		entry, w[j], str_end, base_hint(btf));
}

/* Does kind k's entry hold at most one name word and one type-id word? */
static bool entry_words_single(const struct bc_kind_layout *k)
{
	return !(k->entry_name_mask & (k->entry_name_mask - 1)) &&
	       !(k->entry_ref_mask & (k->entry_ref_mask - 1));
}

/* The index of the one bit set in mask (0 for none). */
static uint32_t entry_word_of(uint8_t mask)
{
	return mask ? (uint32_t)__builtin_ctz(mask) : 0;
}

/*
 * Range-checks every string offset and type id; lays out the refs. The
 * refs array is sized by the type section's words, which it cannot
 * outgrow, and trimmed after: one pass, and only the pages the refs
 * fill are ever touched.
 */
static int check_types(struct bc_btf *btf, const struct bc_log *log)
{
	uint32_t i, j, nr_refs = 0, end_id = bc_btf_end_id(btf);
	uint32_t str_end = bc_btf_str_end(btf);
	size_t max_refs = btf->hdr->type_len / 4 + 1;
	const char *path = btf->path;
	uint32_t *trimmed;

	btf->ref_start = malloc((btf->nr_types + 1) * sizeof(uint32_t));
	btf->refs = malloc(max_refs * sizeof(uint32_t));
	if (!btf->ref_start || !btf->refs)
		return -ENOMEM;

	for (i = 0; i < btf->nr_types; i++) {
		const struct btf_type *t = bc_btf_local(btf, i);
		const uint32_t *w = (const uint32_t *)t;
		uint32_t kind = bc_type_kind(t), words = bc_type_words(t);
		const struct bc_kind_layout *k = &bc_kinds[kind];
		uint32_t id = btf->start_id + i, *refs;

		/* names: w[0], then entry words (the head holds no other) */
		if (w[0] >= str_end)
			return bad_string_off(btf, id, t, 0, log);
		btf->ref_start[i] = nr_refs;
		refs = btf->refs + nr_refs;
		if (entry_words_single(k)) {
			/* one pass over the entries: their names, their refs */
			uint32_t nw = entry_word_of(k->entry_name_mask);
			uint32_t rw = entry_word_of(k->entry_ref_mask), n = 0;

			if (k->head_ref)
				refs[n++] = w[2];
			for (j = 0; j < k->fixed_words; j++)
				if ((k->fixed_ref_mask >> j) & 1)
					refs[n++] = w[3 + j];
			for (j = 3 + k->fixed_words; k->entry_words && j < words;
			     j += k->entry_words) {
				if (k->entry_name_mask && w[j + nw] >= str_end)
					return bad_string_off(btf, id, t, j + nw, log);
				if (k->entry_ref_mask)
					refs[n++] = w[j + rw];
			}
			nr_refs += n;
		} else {
			for (j = 3 + k->fixed_words;
			     k->entry_name_mask && j < words;
			     j += k->entry_words) {
				uint32_t e;

				for (e = 0; e < k->entry_words; e++)
					if (bc_entry_word_class(k, e) == BC_WORD_NAME &&
					    w[j + e] >= str_end)
						return bad_string_off(btf, id, t, j + e, log);
			}
			nr_refs += bc_type_refs(t, refs);
		}
		btf->ref_start[i + 1] = nr_refs;
		for (j = btf->ref_start[i]; j < nr_refs; j++) {
			if (btf->refs[j] >= end_id)
				return bc_log_error(log, -EINVAL,
					"%s: type [%u] %s '%s' refers to type id %u, which does not exist (last id is %u)%s",
					path, id, bc_kinds[kind].name,
					bc_btf_str(btf, t->name_off),
					btf->refs[j], end_id - 1,
					base_hint(btf));
		}
		if (kind == BTF_KIND_FUNC) {
			if (bc_btf_kind(btf, refs[0]) != BTF_KIND_FUNC_PROTO)
				return bc_log_error(log, -EINVAL,
					"%s: type [%u] FUNC '%s' refers to [%u], which is not a FUNC_PROTO",
					path, id, bc_btf_str(btf, t->name_off),
					refs[0]);
		}
		if (kind == BTF_KIND_DATASEC) {
			for (j = 0; j < bc_type_vlen(t); j++) {
				const struct btf_type *var =
					bc_btf_type(btf, refs[j]);

				if (!var || bc_type_kind(var) != BTF_KIND_VAR)
					return bc_log_error(log, -EINVAL,
						"%s: type [%u] DATASEC '%s': entry %u refers to [%u], which is not a VAR",
						path, id,
						bc_btf_str(btf, t->name_off), j,
						refs[j]);
			}
		}
	}
	btf->ref_start[i] = nr_refs;
	trimmed = realloc(btf->refs, (nr_refs ? nr_refs : 1) * sizeof(uint32_t));
	if (trimmed)
		btf->refs = trimmed;
	return 0;
}

static bool breaks_loops(uint32_t kind)
{
	return kind == BTF_KIND_STRUCT || kind == BTF_KIND_UNION;
}

/*
 * Finds a reference cycle made only of kinds other than STRUCT and UNION
 * (a pointer to itself, a typedef of itself, ...). Such a cycle has no C
 * meaning. Iterative DFS with three colours over local types; references
 * into the base cannot come back (the base was checked on its own). The
 * stack holds each open type with its next reference: no per-type array
 * but the colours.
 *
 * A cycle has an edge from a type to itself or to a later id, and a walk
 * from the types with such an edge (on vmlinux, 2.7k of 107k) finds any
 * cycle there is; only when it finds one does the walk from every type in
 * id order run, which names the type it always named.
 */
enum { WHITE, GREY, BLACK };

struct loop_frame {
	uint32_t v, next;	/* local index; index of its next ref in refs */
};

struct loop_walk {
	uint8_t *colour;	/* [nr_types] */
	struct loop_frame *stack;
	uint32_t cap;
};

/*
 * Walks from local type root (WHITE). Returns 0, 1 with *at the local
 * index of a type on a cycle, or -ENOMEM.
 */
static int loop_walk_from(const struct bc_btf *btf, struct loop_walk *w,
			  uint32_t root, uint32_t *at)
{
	uint32_t sp = 0;

	w->stack[sp++] = (struct loop_frame){ root, btf->ref_start[root] };
	w->colour[root] = GREY;
	while (sp) {
		struct loop_frame *f = &w->stack[sp - 1];
		uint32_t to;

		if (f->next == btf->ref_start[f->v + 1]) {
			w->colour[f->v] = BLACK;
			sp--;
			continue;
		}
		to = btf->refs[f->next++];
		if (to < btf->start_id)
			continue;
		to -= btf->start_id;
		if (w->colour[to] == BLACK)
			continue;
		if (w->colour[to] == GREY) {
			*at = to;
			return 1;
		}
		if (sp == w->cap) {
			struct loop_frame *grown =
				realloc(w->stack, 2 * w->cap * sizeof(*grown));

			if (!grown)
				return -ENOMEM;
			w->stack = grown;
			w->cap *= 2;
		}
		w->colour[to] = GREY;
		w->stack[sp++] = (struct loop_frame){ to, btf->ref_start[to] };
	}
	return 0;
}

/* Structs and unions BLACK (a walk never enters them), the rest WHITE. */
static void loop_colours_init(const struct bc_btf *btf, uint8_t *colour)
{
	uint32_t i;

	for (i = 0; i < btf->nr_types; i++)
		colour[i] = breaks_loops(btf->kinds[i]) ? BLACK : WHITE;
}

/* Does local type i refer to itself or to a later local type that is not a struct or union? */
static bool refers_forward(const struct bc_btf *btf, const uint8_t *colour,
			   uint32_t i)
{
	uint32_t j, to;

	for (j = btf->ref_start[i]; j < btf->ref_start[i + 1]; j++) {
		to = btf->refs[j];
		if (to >= btf->start_id + i && colour[to - btf->start_id] != BLACK)
			return true;
	}
	return false;
}

static int check_loops(struct bc_btf *btf, const struct bc_log *log)
{
	uint32_t n = btf->nr_types, root, at = 0;
	struct loop_walk w = {
		.colour = malloc(n ? n : 1),
		.cap = 64,
	};
	int found = 0;

	w.stack = malloc(w.cap * sizeof(*w.stack));
	if (!w.colour || !w.stack) {
		found = -ENOMEM;
		goto out;
	}
	loop_colours_init(btf, w.colour);
	for (root = 0; root < n && !found; root++)
		if (w.colour[root] == WHITE && refers_forward(btf, w.colour, root))
			found = loop_walk_from(btf, &w, root, &at);
	if (found <= 0)
		goto out;
	loop_colours_init(btf, w.colour);
	for (root = 0, found = 0; root < n && !found; root++)
		if (w.colour[root] == WHITE)
			found = loop_walk_from(btf, &w, root, &at);
	if (found > 0) {
		const struct btf_type *t = bc_btf_local(btf, at);

		found = bc_log_error(log, -ELOOP,
			"%s: reference loop with no struct or union in it through type [%u] %s '%s'",
			btf->path, btf->start_id + at,
			bc_kinds[bc_type_kind(t)].name,
			bc_btf_str(btf, t->name_off));
	}
out:
	free(w.colour);
	free(w.stack);
	return found;
}

/*
 * Takes blob (when not NULL) over as the parsed BTF's data when data is
 * blob's own bytes in the plain form: a 24-byte header, types at 0,
 * strings right after them to the end, no record of an unknown kind
 * (with in_place, any header and layout section).
 */
static bool keep_in_place(struct bc_btf *btf, const uint8_t *data,
			  size_t size, const struct raw_view *view,
			  struct bc_blob *blob, bool in_place)
{
	const struct btf_header *hdr = (const void *)data;

	if (!blob || data != blob->data || btf->nr_unknown ||
	    base_str_added(btf) ||
	    (hdr->hdr_len != sizeof(*hdr) && !in_place))
		return false;
	btf->own = *blob;
	memset(blob, 0, sizeof(*blob));
	btf->data = data;
	btf->size = size;
	btf->hdr = hdr;
	btf->types = view->types;
	btf->strs = view->strs;
	btf->str_len = view->str_len;
	return true;
}

/* bc_btf_parse_opts(), keeping blob in place when it can (blob may be NULL). */
static int parse(const void *data, size_t size, struct bc_blob *blob,
		 const struct bc_btf *base, const struct bc_parse_opts *opts,
		 const char *path, const struct bc_log *log,
		 struct bc_btf **out)
{
	static const struct bc_parse_opts no_opts;
	struct bc_btf *btf = calloc(1, sizeof(*btf));
	struct raw_view view = { 0 };
	int64_t plain_type_len;
	void *aligned = NULL;
	int err = -ENOMEM;

	*out = NULL;
	if (!btf)
		return -ENOMEM;
	/* records are read in place: 4-byte words need 4-byte alignment */
	if ((uintptr_t)data % 4) {
		aligned = malloc(size ? size : 1);
		if (!aligned)
			goto fail;
		memcpy(aligned, data, size);
		data = aligned;
	}
	if (!opts)
		opts = &no_opts;
	btf->path = strdup(path ? path : "<memory>");
	if (!btf->path)
		goto fail;
	btf->base = base;
	btf->start_id = base ? bc_btf_end_id(base) : 1;
	btf->start_str_off = base ? bc_btf_str_end(base) : 0;

	err = parse_header(btf, data, size, &view, log);
	if (err)
		goto fail;
	btf->strs = view.strs;		/* the caller's, until build_plain */
	btf->str_len = view.str_len;
	err = parse_strings(btf, log);
	if (err)
		goto fail;
	plain_type_len = index_types(btf, &view, opts, log);
	err = plain_type_len < 0 ? (int)plain_type_len : 0;
	if (!err && (uint64_t)plain_type_len > UINT32_MAX - sizeof(struct btf_header))
		err = -E2BIG;
	if (!err && !keep_in_place(btf, data, size, &view, blob,
				   opts->in_place))
		err = build_plain(btf, &view, plain_type_len);
	if (!err)
		err = check_types(btf, log);
	if (!err)
		err = check_unknown_names(btf, log);
	if (!err)
		err = check_loops(btf, log);
	if (err)
		goto fail;
	if (btf->nr_unknown)
		warn_unknown_kinds(btf, log);
	free(aligned);
	*out = btf;
	return 0;
fail:
	if (err == -ENOMEM)
		bc_log_error(log, err, "%s: out of memory", btf->path ? btf->path : "");
	free(aligned);
	bc_btf_free(btf);
	return err;
}

int bc_btf_parse_opts(const void *data, size_t size, const struct bc_btf *base,
		      const struct bc_parse_opts *opts, const char *path,
		      const struct bc_log *log, struct bc_btf **out)
{
	return parse(data, size, NULL, base, opts, path, log, out);
}

int bc_btf_parse_blob(struct bc_blob *blob, const struct bc_btf *base,
		      const struct bc_parse_opts *opts, const char *path,
		      const struct bc_log *log, struct bc_btf **out)
{
	int err = parse(blob->data, blob->size, blob, base, opts, path, log,
			out);

	bc_blob_release(blob);	/* a no-op when the BTF kept it */
	return err;
}

int bc_btf_parse(const void *data, size_t size, const struct bc_btf *base,
		 const char *path, const struct bc_log *log, struct bc_btf **out)
{
	return bc_btf_parse_opts(data, size, base, NULL, path, log, out);
}

int bc_btf_blob_add_layout(void **raw, size_t *size,
			   const struct bc_btf_layout *layout, uint32_t nr)
{
	struct btf_header hdr;
	struct bc_btf_header_layout *lh;
	size_t layout_len = (size_t)nr * sizeof(*layout);
	size_t grow = sizeof(*lh) - sizeof(hdr) + layout_len;
	uint8_t *p;

	if (*size < sizeof(hdr))
		return -EINVAL;
	memcpy(&hdr, *raw, sizeof(hdr));
	if (hdr.hdr_len != sizeof(hdr) || hdr.type_off != 0 ||
	    hdr.str_off != hdr.type_len ||
	    sizeof(hdr) + (uint64_t)hdr.type_len + hdr.str_len != *size ||
	    layout_len > UINT32_MAX - (uint64_t)hdr.type_len - hdr.str_len)
		return -EINVAL;
	p = realloc(*raw, *size + grow);
	if (!p)
		return -ENOMEM;
	/* strings to the end first, then the types to after the new header */
	memmove(p + sizeof(*lh) + hdr.type_len + layout_len,
		p + sizeof(hdr) + hdr.type_len, hdr.str_len);
	memmove(p + sizeof(*lh), p + sizeof(hdr), hdr.type_len);
	memcpy(p + sizeof(*lh) + hdr.type_len, layout, layout_len);
	lh = (struct bc_btf_header_layout *)p;
	lh->base = hdr;
	lh->base.hdr_len = sizeof(*lh);
	lh->base.str_off = hdr.type_len + layout_len;
	lh->layout_off = hdr.type_len;
	lh->layout_len = layout_len;
	*raw = p;
	*size += grow;
	return 0;
}
