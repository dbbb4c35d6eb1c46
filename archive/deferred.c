// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sections a partial read left packed (bc_archive_open_partial,
 * format.c; the streams in pack.c): asked for by the rebuild before it
 * reads them, unpacked and checked whole by whatever needs everything.
 *
 * Problem: extract and list read one kernel's part of a body whose string
 * bytes and record words (two thirds of it) are packed apart. Invariant:
 * no byte of those sections is read before ar_body_need() or
 * ar_str_ready() has unpacked it; a string is checked, where it is used,
 * as a C string of its length, what the lazy read checks of every string
 * at open; ar_body_complete() checks them all as the lazy read does.
 * Cost: a comparison a record or string where the archive was read
 * otherwise (deferred NULL); else what pack.c unpacks.
 * Format 6 (every stream left packed, read stream by stream as asked:
 * "format 6" below) and the body's readers that format.c shares (records'
 * heads, a kernel's modules of format 5, format 6's module names and
 * groups) live here too.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../canon/btf_data.h"

#include "internal.h"
#include "pack.h"

/* ---- the body's readers (format.c too) ---------------------------------- */

uint64_t ar_rd_varint(struct ar_reader *r, uint64_t max)
{
	uint64_t v = 0;

	if (r->bad || ar_get_varint(r->data, r->len, &r->pos, &v) || v > max) {
		r->bad = true;
		return 0;
	}
	return v;
}

const uint8_t *ar_rd_bytes(struct ar_reader *r, size_t *len)
{
	const uint8_t *p;

	*len = ar_rd_varint(r, r->len);
	if (r->bad || *len > r->len - r->pos) {
		r->bad = true;
		*len = 0;
		return NULL;
	}
	p = r->data + r->pos;
	r->pos += *len;
	return p;
}

/*
 * A record's head (kind | kflag << 7, vlen, kn + 1) into its info word
 * and kn + 1, checked: a valid kind, the pair's kind the record's.
 */
bool ar_read_head(const struct bc_archive *ar, const uint8_t *d,
		  size_t end, size_t *pos, uint32_t *info, uint32_t *kn1)
{
	uint32_t kind, vlen;

	if (!ar_get_u32(d, end, pos, &kind) || kind > 0xff ||
	    !ar_get_u32(d, end, pos, &vlen) || vlen > 0xffffff ||
	    !ar_get_u32(d, end, pos, kn1) || *kn1 > ar->nr_kns ||
	    !bc_kind_valid(kind & 0x7f) ||
	    (*kn1 && ar->kns[*kn1 - 1].kind != (kind & 0x7f)))
		return false;
	*info = (kind & 0x7f) << 24 | (kind >> 7) << 31 | vlen;
	return true;
}

/*
 * A module name (length, bytes) copied to at and NUL-terminated: valid
 * (ar_name_ok()) and after prev (strcmp) when there is one. Returns its
 * length, or 0 with r marked bad.
 */
static size_t take_name(struct ar_reader *r, char *at, const char *prev)
{
	size_t len;
	const uint8_t *p = ar_rd_bytes(r, &len);

	if (r->bad || !len || memchr(p, 0, len))
		goto bad;
	memcpy(at, p, len);
	at[len] = 0;
	if (!ar_name_ok(at) || (prev && strcmp(prev, at) >= 0))
		goto bad;
	return len;
bad:
	r->bad = true;
	return 0;
}

/*
 * A module entry after its name (formats 5 and 6): flags (bit 0: bytes),
 * bytes or type count and script, layout entries. Records under a kernel
 * kept as bytes, or layout bytes that are no whole entries, mark r bad.
 * Returns 0 or -ENOMEM.
 */
static int read_module_entry(const struct ar_kernel *kern, struct ar_module *m,
			     struct ar_reader *r)
{
	const uint8_t *p;
	size_t len;

	m->raw = ar_rd_varint(r, AR_FLAG_RAW) & AR_FLAG_RAW;
	if (m->raw) {
		p = ar_rd_bytes(r, &len);
		m->blob = malloc(len ? len : 1);
		if (!m->blob)
			return -ENOMEM;
		if (p)
			memcpy(m->blob, p, len);
		m->blob_size = len;
	} else {
		m->nr_types = (uint32_t)ar_rd_varint(r, 0x7fffffff);
		m->script = ar_rd_bytes(r, &m->script_len);
		if (kern->raw)
			r->bad = true;	/* records over no records */
	}
	p = ar_rd_bytes(r, &len);
	if (r->bad || len % sizeof(struct bc_btf_layout)) {
		r->bad = true;
		return 0;
	}
	if (len) {
		m->layout = malloc(len);
		if (!m->layout)
			return -ENOMEM;
		memcpy(m->layout, p, len);
		m->nr_layout = (uint32_t)(len / sizeof(struct bc_btf_layout));
	}
	return 0;
}

/*
 * A kernel's modules (format 5, after its attachments), checked: names
 * valid and ascending, no records under a kernel kept as bytes.
 */
int ar_read_modules(struct ar_kernel *kern, struct ar_reader *r)
{
	uint64_t nr = ar_rd_varint(r, (r->len - r->pos) / 4), i;
	char *names;

	if (r->bad || !nr)
		return 0;
	/*
	 * the names in one block (a reader of one module reads the modules
	 * of its kernel's parents too: 4,000 names each), NUL-terminated;
	 * they take fewer bytes than the rest
	 */
	kern->mods = calloc(nr, sizeof(*kern->mods));
	kern->cap_mods = (uint32_t)nr;
	kern->mod_names = names = malloc(r->len - r->pos + nr);
	if (!kern->mods || !names)
		return -ENOMEM;
	for (i = 0; i < nr && !r->bad; i++) {
		struct ar_module *m = &kern->mods[i];
		size_t len = take_name(r, names, i ? kern->mods[i - 1].name : NULL);
		int err;

		if (!len)
			break;
		m->name = names;
		m->name_read = true;
		kern->nr_mods++;
		names += len + 1;
		err = read_module_entry(kern, m, r);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Format 6's module names: count, then each name (length, bytes), valid
 * (what ar_name_ok() checks) and strictly ascending (strcmp), in one
 * block, NUL-terminated.
 */
int ar_read_module_names(struct bc_archive *ar, struct ar_reader *r)
{
	struct ar_mod_dir *d = &ar->mod_dir;
	uint64_t nr = ar_rd_varint(r, (r->len - r->pos) / 2), i;
	char *names;

	if (r->bad)
		return 0;
	ar_mod_dir_free(d);
	d->names = malloc((nr ? nr : 1) * sizeof(*d->names));
	d->block = names = malloc(r->len - r->pos + 1);
	if (!d->names || !names)
		return -ENOMEM;
	for (i = 0; i < nr && !r->bad; i++) {
		size_t len = take_name(r, names, i ? d->names[i - 1] : NULL);

		if (!len)
			break;
		d->names[d->nr++] = names;
		names += len + 1;
	}
	return 0;
}

void ar_mod_dir_free(struct ar_mod_dir *d)
{
	free(d->names);
	free(d->block);
	memset(d, 0, sizeof(*d));
}

/* Where module name goes among kern's (kept in name order); -1: there. */
bool ar_module_index(const struct ar_kernel *kern, const char *name,
		     uint32_t *at)
{
	uint32_t lo = 0, hi = kern->nr_mods;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = strcmp(kern->mods[mid].name, name);

		if (!c) {
			*at = mid;
			return true;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*at = lo;
	return false;
}

static int64_t module_slot(const struct ar_kernel *kern, const char *name)
{
	uint32_t n = kern->nr_mods, at;

	if (!n || strcmp(kern->mods[n - 1].name, name) < 0)
		return n;	/* the usual case: groups read in order */
	return ar_module_index(kern, name, &at) ? -1 : (int64_t)at;
}

/* A free slot at position at among kern's modules, zeroed. */
static struct ar_module *module_insert(struct ar_kernel *kern, uint32_t at)
{
	if (kern->nr_mods == kern->cap_mods) {
		uint32_t cap = kern->cap_mods ? kern->cap_mods * 2 : 16;
		struct ar_module *v = realloc(kern->mods, cap * sizeof(*v));

		if (!v)
			return NULL;
		kern->mods = v;
		kern->cap_mods = cap;
	}
	memmove(&kern->mods[at + 1], &kern->mods[at],
		(kern->nr_mods - at) * sizeof(*kern->mods));
	kern->nr_mods++;
	memset(&kern->mods[at], 0, sizeof(*kern->mods));
	return &kern->mods[at];
}

/*
 * Group g of format 6's modules section: count (one kernel at least), then
 * each kernel's module of name g, kernels ascending (file order): the
 * index's distance from the one before + 1 (the first: the index), flags
 * (bit 0: bytes), bytes or type count and script, layout entries.
 */
int ar_read_module_group(struct bc_archive *ar, uint32_t g,
			 struct ar_reader *r)
{
	uint64_t nr = ar_rd_varint(r, ar->nr_kernels), i, k = 0;
	const char *name = g < ar->mod_dir.nr ? ar->mod_dir.names[g] : NULL;

	if (!r->bad && (!nr || !name))
		r->bad = true;
	for (i = 0; i < nr && !r->bad; i++) {
		uint64_t step = ar_rd_varint(r, ar->nr_kernels);
		struct ar_kernel *kern;
		struct ar_module *m;
		int64_t at;
		int err;

		k += step + (i ? 1 : 0);
		if (r->bad || k >= ar->nr_kernels) {
			r->bad = true;
			break;
		}
		kern = &ar->kernels[k];
		at = module_slot(kern, name);
		if (at < 0) {
			r->bad = true;	/* a name twice: never written */
			break;
		}
		m = module_insert(kern, (uint32_t)at);
		if (!m)
			return -ENOMEM;
		m->name = (char *)name;
		m->name_read = true;
		m->group = g;
		err = read_module_entry(kern, m, r);
		if (err)
			return err;
	}
	return 0;
}

/* The modules of groups [first, end) let go from every kernel. */
static void module_groups_drop(struct bc_archive *ar, uint32_t first,
			       uint32_t end)
{
	uint32_t k, i, n;

	for (k = 0; k < ar->nr_kernels; k++) {
		struct ar_kernel *kern = &ar->kernels[k];

		for (i = 0, n = 0; i < kern->nr_mods; i++) {
			struct ar_module *m = &kern->mods[i];

			if (m->group >= first && m->group < end)
				ar_module_deinit(m);
			else
				kern->mods[n++] = *m;
		}
		kern->nr_mods = n;
	}
}

void ar_module_deinit(struct ar_module *m)
{
	if (!m->name_read)
		free(m->name);
	free(m->blob);
	free(m->recs);
	free(m->layout);
	memset(m, 0, sizeof(*m));
}

void ar_kernel_modules_free(struct ar_kernel *k)
{
	uint32_t i;

	for (i = 0; i < k->nr_mods; i++)
		ar_module_deinit(&k->mods[i]);
	free(k->mods);
	free(k->mod_names);
	k->mods = NULL;
	k->mod_names = NULL;
	k->nr_mods = 0;
	k->cap_mods = 0;
}

/* Zero bytes among n at p, eight at a time. */
size_t ar_count_nuls(const uint8_t *p, size_t n)
{
	const uint64_t low7 = 0x7f7f7f7f7f7f7f7full;
	size_t count = 0, i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t v, t;

		memcpy(&v, p + i, 8);
		t = ~(((v & low7) + low7) | v | low7);	/* 0x80 where a byte is 0 */
		/* the eight 0/1 bytes of t >> 7 summed into the top byte */
		count += (size_t)(((t >> 7) * 0x0101010101010101ull) >> 56);
	}
	for (; i < n; i++)
		count += !p[i];
	return count;
}

static void parts_free(struct ar_parts *p);
static int parts_complete(struct bc_archive *ar);
static int parts_str_ready(struct bc_archive *ar, uint32_t sid);

int ar_body_need(const struct bc_archive *ar, const void *end)
{
	if (!ar->deferred)	/* format 6: words unpacked with their heads */
		return 0;
	return ar_deferred_need(ar->deferred,
				(size_t)((const uint8_t *)end - ar->body));
}

int ar_str_ready(struct bc_archive *ar, uint32_t sid)
{
	const struct ar_str *str = &ar->strs[sid];
	int err;

	if (ar->parts)	/* read: s is set */
		return str->s ? 0 : parts_str_ready(ar, sid);
	if (!ar->deferred)
		return 0;
	err = ar_body_need(ar, str->s + str->len + 1);
	/* what read_strings_v3() checks of all at once: a C string of len */
	if (!err && (str->s[str->len] || memchr(str->s, 0, str->len)))
		err = -EINVAL;
	return err;
}

int ar_body_complete(struct bc_archive *ar)
{
	size_t at, total;
	int err;

	if (ar->parts) {
		err = parts_complete(ar);
		if (!err)
			ar_body_release(ar);
		return err;
	}
	if (!ar->deferred)
		return 0;
	err = ar_deferred_finish(ar->deferred);
	ar_deferred_range(ar->deferred, 0, &at, &total);
	/* the string bytes: every string followed by a NUL, no other NUL */
	if (!err && ar_count_nuls(ar->body + at, total) != ar->nr_strs)
		err = -EINVAL;
	for (uint32_t i = 0; i < ar->nr_strs && !err; i++)
		if (ar->strs[i].s[ar->strs[i].len])
			err = -EINVAL;
	if (!err)
		ar_body_release(ar);
	return err;
}

void ar_body_release(struct bc_archive *ar)
{
	ar_deferred_free(ar->deferred);
	ar->deferred = NULL;
	parts_free(ar->parts);
	ar->parts = NULL;
	bc_blob_release(&ar->file);
}

/* ---- format 6: stream by stream ------------------------------------------ */

/*
 * Problem: a reader of one kernel or module of an archive with every
 * module (format 6) should unpack and parse only the regions its lists
 * use. Invariant: an item (string, pair, record head, module name's
 * group) is read only once its stream is parsed, and a stream is parsed whole
 * with every number checked as the whole read checks it: strings C
 * strings of their lengths that fill their bytes stream exactly, pairs of
 * a valid kind and string, heads of a valid kind whose pair has that kind
 * and whose words fill the words stream cut at the same record exactly.
 * Cost: per stream used, its unpacking and one pass; a binary search over
 * the streams per record of a list.
 */
struct ar_parts {
	struct ar_chunks *c;
	bool *ready[AR_NR_SECTIONS];	/* [stream of the section] parsed */
	uint32_t count[AR_NR_SECTIONS];	/* items: strings, pairs, records,
					   module names */
	uint32_t nr_kernels;		/* in file order, as the streams say */
};

/* The item after stream i of section sec: the next stream's first, or all. */
static uint32_t chunk_end(const struct ar_parts *p, unsigned sec, uint32_t i)
{
	uint8_t *at;
	size_t len;
	uint32_t first;

	if (i + 1 >= ar_chunks_count(p->c, sec))
		return p->count[sec];	/* modules: the kernels, ar_parts_kernels() */
	ar_chunks_info(p->c, sec, i + 1, &at, &len, &first);
	return first;
}

/* Stream i of sec unpacked: where it is, its bytes, its first item. */
static int chunk_get(struct ar_parts *p, unsigned sec, uint32_t i,
		     uint8_t **at, size_t *len, uint32_t *first)
{
	ar_chunks_info(p->c, sec, i, at, len, first);
	return ar_chunks_unpack(p->c, sec, i);
}

/* The strings of stream i: lengths, then their bytes, checked. */
static int strings_chunk_read(struct bc_archive *ar, uint32_t i)
{
	struct ar_parts *p = ar->parts;
	uint8_t *lens, *bytes;
	size_t lens_len, bytes_len, pos = 0, total = 0;
	uint32_t first, first_b, end, s, len;
	uint64_t skip;
	int err;

	if (p->ready[AR_SEC_STRING_LENGTHS][i])
		return 0;
	err = chunk_get(p, AR_SEC_STRING_LENGTHS, i, &lens, &lens_len, &first);
	err = err ? err : chunk_get(p, AR_SEC_STRING_BYTES, i, &bytes,
				    &bytes_len, &first_b);
	if (err)
		return err;
	end = chunk_end(p, AR_SEC_STRING_LENGTHS, i);
	if (first_b != first || first > end ||
	    (!i && ar_get_varint(lens, lens_len, &pos, &skip)))
		return -EINVAL;
	for (s = first; s < end; s++) {
		if (!ar_get_u32(lens, lens_len, &pos, &len) || (s == 0) != (len == 0) ||
		    len >= bytes_len - total)
			return -EINVAL;
		ar->strs[s].s = (const char *)bytes + total;
		ar->strs[s].len = len;
		total += len + 1ull;
		if (bytes[total - 1])
			return -EINVAL;
	}
	/* each a C string of its length: the NULs are the terminators */
	if (pos != lens_len || total != bytes_len ||
	    ar_count_nuls(bytes, total) != end - first)
		return -EINVAL;
	p->ready[AR_SEC_STRING_LENGTHS][i] = true;
	return 0;
}

/* strings_chunk_read(), or on failure the stream's items unread again. */
static int strings_chunk(struct bc_archive *ar, uint32_t i)
{
	struct ar_parts *p = ar->parts;
	uint8_t *at;
	size_t len;
	uint32_t first, end;
	int err = strings_chunk_read(ar, i);

	if (err) {
		ar_chunks_info(p->c, AR_SEC_STRING_LENGTHS, i, &at, &len, &first);
		end = chunk_end(p, AR_SEC_STRING_LENGTHS, i);
		if (first < end)
			memset(&ar->strs[first], 0, (end - first) * sizeof(*ar->strs));
	}
	return err;
}

static int parts_str_ready(struct bc_archive *ar, uint32_t sid)
{
	return strings_chunk(ar, ar_chunks_find(ar->parts->c,
						AR_SEC_STRING_LENGTHS, sid));
}

static int pairs_chunk_read(struct bc_archive *ar, uint32_t i)
{
	struct ar_parts *p = ar->parts;
	uint8_t *d;
	size_t len, pos = 0;
	uint32_t first, end, kn, kind, sid;
	uint64_t skip;
	int err;

	if (p->ready[AR_SEC_PAIRS][i])
		return 0;
	err = chunk_get(p, AR_SEC_PAIRS, i, &d, &len, &first);
	if (err)
		return err;
	end = chunk_end(p, AR_SEC_PAIRS, i);
	if (first > end || (!i && ar_get_varint(d, len, &pos, &skip)))
		return -EINVAL;
	for (kn = first; kn < end; kn++) {
		if (!ar_get_u32(d, len, &pos, &kind) || !bc_kind_valid(kind) ||
		    kind > 0x7f || !ar_get_u32(d, len, &pos, &sid) || !sid ||
		    sid >= ar->nr_strs)
			return -EINVAL;
		ar->kns[kn].kind = kind;
		ar->kns[kn].sid = sid;
	}
	if (pos != len)
		return -EINVAL;
	p->ready[AR_SEC_PAIRS][i] = true;
	return 0;
}

/* pairs_chunk_read(), or on failure the stream's items unread again. */
static int pairs_chunk(struct bc_archive *ar, uint32_t i)
{
	struct ar_parts *p = ar->parts;
	uint8_t *at;
	size_t len;
	uint32_t first, end;
	int err = pairs_chunk_read(ar, i);

	if (err) {
		ar_chunks_info(p->c, AR_SEC_PAIRS, i, &at, &len, &first);
		end = chunk_end(p, AR_SEC_PAIRS, i);
		if (first < end)
			memset(&ar->kns[first], 0, (end - first) * sizeof(*ar->kns));
	}
	return err;
}

/* The heads of stream i, their pairs read first; their words unpacked. */
static int heads_chunk_read(struct bc_archive *ar, uint32_t i)
{
	struct ar_parts *p = ar->parts;
	struct ar_rec_head *h = ar->heads;
	uint8_t *d, *w;
	size_t len, w_len, pos = 0, words = 0, base;
	uint32_t first, first_w, end, rec;
	uint64_t skip;
	int err;

	if (p->ready[AR_SEC_HEADS][i])
		return 0;
	err = chunk_get(p, AR_SEC_HEADS, i, &d, &len, &first);
	err = err ? err : chunk_get(p, AR_SEC_WORDS, i, &w, &w_len, &first_w);
	if (err)
		return err;
	end = chunk_end(p, AR_SEC_HEADS, i);
	base = (size_t)(w - ar->words);
	if (first_w != first || first > end ||
	    (!i && ar_get_varint(d, len, &pos, &skip)))
		return -EINVAL;
	for (rec = first; rec < end; rec++) {
		uint32_t kind, vlen, kn1, nr_words, wl;
		size_t at = pos;

		if (!ar_get_u32(d, len, &pos, &kind) ||
		    !ar_get_u32(d, len, &pos, &vlen) ||
		    !ar_get_u32(d, len, &pos, &kn1) || kn1 > ar->nr_kns)
			return -EINVAL;
		if (kn1 && !ar->kns[kn1 - 1].kind) {	/* not read yet */
			err = pairs_chunk(ar, ar_chunks_find(p->c, AR_SEC_PAIRS,
							     kn1 - 1));
			if (err)
				return err;
		}
		pos = at;
		if (!ar_read_head(ar, d, len, &pos, &h[rec].info, &h[rec].kn1) ||
		    !ar_get_u32(d, len, &pos, &wl))
			return -EINVAL;
		nr_words = ar_info_words(h[rec].info) - 2;
		if (wl < nr_words || wl > 10ull * nr_words || wl > w_len - words)
			return -EINVAL;
		h[rec].pos = (uint32_t)(base + words);
		words += wl;
	}
	if (pos != len || words != w_len)
		return -EINVAL;
	h[end].pos = (uint32_t)(base + words);
	p->ready[AR_SEC_HEADS][i] = true;
	return 0;
}

/* heads_chunk_read(), or on failure the stream's items unread again. */
static int heads_chunk(struct bc_archive *ar, uint32_t i)
{
	struct ar_parts *p = ar->parts;
	uint8_t *at;
	size_t len;
	uint32_t first, end;
	int err = heads_chunk_read(ar, i);

	if (err) {	/* pos kept: the stream before ends where this starts */
		ar_chunks_info(p->c, AR_SEC_HEADS, i, &at, &len, &first);
		end = chunk_end(p, AR_SEC_HEADS, i);
		for (; first < end; first++)
			ar->heads[first].info = ar->heads[first].kn1 = 0;
	}
	return err;
}

/* The module groups of stream i (names ascending; kernels in file order). */
static int modules_chunk(struct bc_archive *ar, uint32_t i)
{
	struct ar_parts *p = ar->parts;
	struct ar_reader r = { 0 };
	uint8_t *d;
	uint32_t first, end, g;
	int err;

	if (p->ready[AR_SEC_MODULES][i])
		return 0;
	err = chunk_get(p, AR_SEC_MODULES, i, &d, &r.len, &first);
	if (err)
		return err;
	r.data = d;
	end = chunk_end(p, AR_SEC_MODULES, i);
	if (first > end || end > ar->mod_dir.nr)
		return -EINVAL;
	for (g = first; g < end && !r.bad && !err; g++)
		err = ar_read_module_group(ar, g, &r);
	if (!err && (r.bad || r.pos != r.len))
		err = -EINVAL;
	if (err) {	/* what was read let go: a second ask reads afresh */
		module_groups_drop(ar, first, end);
		return err;
	}
	p->ready[AR_SEC_MODULES][i] = true;
	return 0;
}

/* Stream 0 of sec's leading count, at most max. */
static int chunk_count(struct ar_parts *p, unsigned sec, uint64_t max,
		       uint32_t *out)
{
	uint8_t *d;
	size_t len, pos = 0;
	uint32_t first;
	uint64_t v;
	int err = chunk_get(p, sec, 0, &d, &len, &first);

	if (err)
		return err;
	if (ar_get_varint(d, len, &pos, &v) || v > max || v > UINT32_MAX - 2)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

int ar_parts_open(struct bc_archive *ar, struct ar_chunks *c)
{
	static const unsigned counted[] = {
		AR_SEC_STRING_LENGTHS, AR_SEC_PAIRS, AR_SEC_HEADS,
	};
	struct ar_parts *p = calloc(1, sizeof(*p));
	uint8_t *at;
	size_t len;
	uint32_t first;
	unsigned s;
	int err = p ? 0 : -ENOMEM;

	if (err) {
		ar_chunks_free(c);
		return err;
	}
	p->c = c;
	ar->parts = p;
	for (s = 0; s < AR_NR_SECTIONS; s++) {
		p->ready[s] = calloc(ar_chunks_count(c, s) + 1, sizeof(bool));
		if (!p->ready[s])
			return -ENOMEM;
		if (!ar_chunks_count(c, s))
			return -EINVAL;
	}
	/* strings and bytes, heads and words: cut at the same items */
	if (ar_chunks_count(c, AR_SEC_STRING_LENGTHS) !=
	    ar_chunks_count(c, AR_SEC_STRING_BYTES) ||
	    ar_chunks_count(c, AR_SEC_HEADS) != ar_chunks_count(c, AR_SEC_WORDS) ||
	    ar_chunks_count(c, AR_SEC_KERNELS) != 1)
		return -EINVAL;
	for (s = 0; s < 3 && !err; s++)
		err = chunk_count(p, counted[s], ar->body_size, &p->count[counted[s]]);
	if (err)
		return err;
	p->count[AR_SEC_STRING_BYTES] = p->count[AR_SEC_STRING_LENGTHS];
	p->count[AR_SEC_WORDS] = p->count[AR_SEC_HEADS];
	if (!p->count[AR_SEC_STRING_LENGTHS])
		return -EINVAL;	/* string 0 is "" */
	for (s = 0; s < AR_SEC_KERNELS; s++) {
		uint32_t n = ar_chunks_count(c, s);

		ar_chunks_info(c, s, n - 1, &at, &len, &first);
		if (first > p->count[s])
			return -EINVAL;
	}
	free(ar->strs);
	ar->strs = ar_calloc_big(p->count[AR_SEC_STRING_LENGTHS], sizeof(*ar->strs));
	free(ar->kns);
	ar->kns = ar_calloc_big((size_t)p->count[AR_SEC_PAIRS] + 1, sizeof(*ar->kns));
	free(ar->heads);
	ar->heads = ar_calloc_big((size_t)p->count[AR_SEC_HEADS] + 1,
				  sizeof(*ar->heads));
	if (!ar->strs || !ar->kns || !ar->heads)
		return -ENOMEM;
	ar->nr_strs = ar->cap_strs = p->count[AR_SEC_STRING_LENGTHS];
	ar->nr_kns = p->count[AR_SEC_PAIRS];
	ar->cap_kns = ar->nr_kns + 1;
	ar->nr_recs = p->count[AR_SEC_HEADS];
	ar_chunks_info(c, AR_SEC_WORDS, 0, &at, &len, &first);
	ar->words = at;
	ar_chunks_info(c, AR_SEC_WORDS, ar_chunks_count(c, AR_SEC_WORDS) - 1,
		       &at, &len, &first);
	ar->words_len = (size_t)(at + len - ar->words);
	if (ar->words_len > UINT32_MAX)
		return -EINVAL;
	return strings_chunk(ar, 0);	/* "" */
}

int ar_parts_kernels(struct bc_archive *ar, struct ar_reader *r)
{
	uint8_t *at;
	uint32_t first;
	int err = chunk_get(ar->parts, AR_SEC_KERNELS, 0, &at, &r->len, &first);

	r->data = at;
	r->pos = 0;
	r->bad = false;
	return err;
}

void ar_parts_kernels_read(struct bc_archive *ar)
{
	if (ar->parts)	/* the modules' streams: a group a module name */
		ar->parts->count[AR_SEC_MODULES] = ar->mod_dir.nr;
}

int ar_recs_ready(struct bc_archive *ar, const uint32_t *list, uint32_t n)
{
	struct ar_parts *p = ar->parts;
	uint32_t i, lo = 1, hi = 0;	/* the last stream read: [lo, hi) */
	uint32_t nr = p ? ar_chunks_count(p->c, AR_SEC_HEADS) : 0;
	bool *want;
	int err = 0;

	if (!p)
		return 0;
	/* the streams the list needs, unpacked together on two threads */
	want = calloc(nr, sizeof(*want));
	if (!want)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		uint32_t rec = list[i];

		uint32_t c;
		uint8_t *at;
		size_t len;

		if (rec >= ar->nr_recs || (rec >= lo && rec < hi) ||
		    ar->heads[rec].info)
			continue;
		/* a list's records run in streams: one search a run */
		c = ar_chunks_find(p->c, AR_SEC_HEADS, rec);
		want[c] = true;
		ar_chunks_info(p->c, AR_SEC_HEADS, c, &at, &len, &lo);
		hi = chunk_end(p, AR_SEC_HEADS, c);
	}
	lo = 1;
	hi = 0;
	err = ar_chunks_unpack_some(p->c, want, nr,
				    (const unsigned[]){ AR_SEC_HEADS, AR_SEC_WORDS }, 2);
	free(want);
	for (i = 0; i < n && !err; i++) {
		uint32_t rec = list[i], c;

		if (rec >= ar->nr_recs || (rec >= lo && rec < hi) ||
		    ar->heads[rec].info)	/* read: a valid kind is not 0 */
			continue;	/* a bad number: the rebuild says so */
		c = ar_chunks_find(p->c, AR_SEC_HEADS, rec);
		err = heads_chunk(ar, c);
		if (!err) {
			uint8_t *at;
			size_t len;

			ar_chunks_info(p->c, AR_SEC_HEADS, c, &at, &len, &lo);
			hi = chunk_end(p, AR_SEC_HEADS, c);
		}
	}
	return err;
}

int ar_modules_ready(struct bc_archive *ar, uint32_t k)
{
	(void)k;	/* a kernel's modules are in every group */
	return ar_modules_all(ar);
}

int ar_module_group_ready(struct bc_archive *ar, const char *name)
{
	const struct ar_mod_dir *d = &ar->mod_dir;
	uint32_t lo = 0, hi = d->nr;

	if (!ar->parts)
		return 0;
	while (lo < hi) {	/* the name's group: its number in the names */
		uint32_t mid = lo + (hi - lo) / 2;
		int c = strcmp(d->names[mid], name);

		if (!c)
			return modules_chunk(ar, ar_chunks_find(ar->parts->c,
							       AR_SEC_MODULES, mid));
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -ENOENT;
}

int ar_strs_ready(struct bc_archive *ar, const uint32_t *sids, uint32_t n)
{
	struct ar_parts *p = ar->parts;
	uint32_t i, nr;
	bool *want;
	int err = 0;

	if (!p)
		return 0;
	nr = ar_chunks_count(p->c, AR_SEC_STRING_LENGTHS);
	want = calloc(nr, sizeof(*want));
	if (!want)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (sids[i] < ar->nr_strs && !ar->strs[sids[i]].s)
			want[ar_chunks_find(p->c, AR_SEC_STRING_LENGTHS, sids[i])] = true;
	err = ar_chunks_unpack_some(p->c, want, nr,
				    (const unsigned[]){ AR_SEC_STRING_LENGTHS,
							AR_SEC_STRING_BYTES }, 2);
	for (i = 0; i < nr && !err; i++)
		if (want[i])
			err = strings_chunk(ar, i);
	free(want);
	return err;
}

int ar_modules_all(struct bc_archive *ar)
{
	struct ar_parts *p = ar->parts;
	uint32_t i, nr = p ? ar_chunks_count(p->c, AR_SEC_MODULES) : 0;
	bool *want;
	int err;

	if (!p)
		return 0;
	want = malloc((nr ? nr : 1) * sizeof(*want));
	if (!want)
		return -ENOMEM;
	for (i = 0; i < nr; i++)
		want[i] = !p->ready[AR_SEC_MODULES][i];
	/* unpacked together on two threads, then read in name order */
	err = ar_chunks_unpack_some(p->c, want, nr,
				    (const unsigned[]){ AR_SEC_MODULES }, 1);
	for (i = 0; i < nr && !err; i++)
		err = modules_chunk(ar, i);
	free(want);
	return err;
}

size_t ar_parts_unpacked(const struct bc_archive *ar)
{
	return ar->parts ? ar_chunks_unpacked(ar->parts->c) : 0;
}

/* Every stream parsed (ar_body_complete). */
static int parts_complete(struct bc_archive *ar)
{
	struct ar_parts *p = ar->parts;
	uint32_t i;
	int err = ar_chunks_finish(p->c);

	for (i = 0; i < ar_chunks_count(p->c, AR_SEC_STRING_LENGTHS) && !err; i++)
		err = strings_chunk(ar, i);
	for (i = 0; i < ar_chunks_count(p->c, AR_SEC_PAIRS) && !err; i++)
		err = pairs_chunk(ar, i);
	for (i = 0; i < ar_chunks_count(p->c, AR_SEC_HEADS) && !err; i++)
		err = heads_chunk(ar, i);
	return err ? err : ar_modules_all(ar);
}

static void parts_free(struct ar_parts *p)
{
	unsigned s;

	if (!p)
		return;
	ar_chunks_free(p->c);
	for (s = 0; s < AR_NR_SECTIONS; s++)
		free(p->ready[s]);
	free(p);
}
