// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "btf_data.h"
#include "btf_kinds.h"

#define BTF_MAGIC_NATIVE 0xeB9F
#define BTF_MAGIC_SWAPPED 0x9FeB

void bc_btf_free(struct bc_btf *btf)
{
	if (!btf)
		return;
	free(btf->path);
	free(btf->data);
	free(btf->type_off);
	free(btf->ref_start);
	free(btf->refs);
	free(btf);
}

const struct btf_type *bc_btf_type(const struct bc_btf *btf, uint32_t id)
{
	while (btf && id < btf->start_id)
		btf = btf->base;
	if (!btf || id == 0)
		return NULL;
	return bc_btf_local(btf, id - btf->start_id);
}

const char *bc_btf_str(const struct bc_btf *btf, uint32_t off)
{
	while (btf->base && off < btf->start_str_off)
		btf = btf->base;
	return btf->strs + (off - btf->start_str_off);
}

static int parse_header(struct bc_btf *btf, const struct bc_log *log)
{
	const struct btf_header *hdr = (const void *)btf->data;
	const char *path = btf->path;
	uint64_t body, type_end, str_end;
	size_t i;

	if (btf->size == 0)
		return bc_log_error(log, -EINVAL,
			"%s: empty file: no BTF header", path);
	/* the magic first: a short text file is not BTF, not truncated BTF */
	if (btf->size >= sizeof(hdr->magic)) {
		uint16_t magic;

		memcpy(&magic, btf->data, sizeof(magic));
		if (magic == BTF_MAGIC_SWAPPED)
			return bc_log_error(log, -EOPNOTSUPP,
				"%s: BTF of the other byte order is not supported",
				path);
		if (magic != BTF_MAGIC_NATIVE)
			return bc_log_error(log, -EINVAL,
				"%s: bad magic 0x%04x: not BTF (0xeb9f) and not ELF",
				path, magic);
	}
	if (btf->size < sizeof(*hdr))
		return bc_log_error(log, -EINVAL,
			"%s: truncated: %zu bytes, a BTF header needs %zu",
			path, btf->size, sizeof(*hdr));
	if (hdr->version != 1)
		return bc_log_error(log, -EINVAL,
			"%s: unsupported BTF version %u (expected 1)", path,
			hdr->version);
	if (hdr->flags)
		return bc_log_error(log, -EINVAL,
			"%s: unsupported header flags 0x%x", path, hdr->flags);
	if (hdr->hdr_len < sizeof(*hdr) || hdr->hdr_len > btf->size)
		return bc_log_error(log, -EINVAL,
			"%s: header length %u out of range (%zu..%zu)", path,
			hdr->hdr_len, sizeof(*hdr), btf->size);
	for (i = sizeof(*hdr); i < hdr->hdr_len; i++)
		if (btf->data[i])
			return bc_log_error(log, -EINVAL,
				"%s: unknown non-zero header field at byte %zu",
				path, i);
	body = btf->size - hdr->hdr_len;
	type_end = (uint64_t)hdr->type_off + hdr->type_len;
	str_end = (uint64_t)hdr->str_off + hdr->str_len;
	if (type_end > body || str_end > body)
		return bc_log_error(log, -EINVAL,
			"%s: header lengths do not add up or the file is truncated: types %u+%u, strings %u+%u need %llu bytes after the header, but only %llu follow",
			path, hdr->type_off, hdr->type_len, hdr->str_off,
			hdr->str_len,
			(unsigned long long)(type_end > str_end ? type_end : str_end),
			(unsigned long long)body);
	if (hdr->type_off != 0 || hdr->str_off != hdr->type_len ||
	    str_end != body)
		return bc_log_error(log, -EINVAL,
			"%s: header lengths do not add up: expected types at 0 and strings right after them up to the end (%llu), got types %u+%u, strings %u+%u",
			path, (unsigned long long)body, hdr->type_off,
			hdr->type_len, hdr->str_off, hdr->str_len);
	if ((hdr->hdr_len + hdr->type_off) % 4 || hdr->type_len % 4)
		return bc_log_error(log, -EINVAL,
			"%s: type section is not 4-byte aligned", path);
	btf->hdr = hdr;
	btf->types = btf->data + hdr->hdr_len + hdr->type_off;
	btf->strs = (const char *)btf->data + hdr->hdr_len + hdr->str_off;
	btf->str_len = hdr->str_len;
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

/* Walks the type section once: record bounds, kinds, offsets of types. */
static int index_types(struct bc_btf *btf, const struct bc_log *log)
{
	uint32_t off = 0, cap = 1024, n = 0, len = btf->hdr->type_len;
	const char *path = btf->path;

	btf->type_off = malloc(cap * sizeof(*btf->type_off));
	if (!btf->type_off)
		return -ENOMEM;
	while (off < len) {
		const struct btf_type *t = (const void *)(btf->types + off);
		uint64_t words;
		uint32_t kind;

		if (len - off < sizeof(*t))
			return bc_log_error(log, -EINVAL,
				"%s: type [%u] at byte %u of the type section is truncated",
				path, btf->start_id + n, off);
		kind = bc_type_kind(t);
		if (!bc_kind_valid(kind))
			return bc_log_error(log, -EINVAL,
				"%s: type [%u] has unknown kind %u", path,
				btf->start_id + n, kind);
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
		words = bc_type_words(t);
		if (words * 4 > len - off)
			return bc_log_error(log, -EINVAL,
				"%s: type [%u] %s with vlen %u needs %llu bytes but only %u remain: the record runs past the end of the type section (truncated, or a wrong vlen)",
				path, btf->start_id + n, bc_kinds[kind].name,
				bc_type_vlen(t), (unsigned long long)words * 4,
				len - off);
		if (n == cap) {
			uint32_t *grown;

			cap *= 2;
			grown = realloc(btf->type_off, cap * sizeof(*grown));
			if (!grown)
				return -ENOMEM;
			btf->type_off = grown;
		}
		btf->type_off[n++] = off;
		off += words * 4;
	}
	if (btf->base && (uint64_t)btf->start_id + n > UINT32_MAX)
		return bc_log_error(log, -E2BIG, "%s: too many types", path);
	btf->nr_types = n;
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

/* Range-checks every string offset and type id; lays out the refs. */
static int check_types(struct bc_btf *btf, const struct bc_log *log)
{
	uint32_t i, j, nr_refs = 0, end_id = bc_btf_end_id(btf);
	uint32_t str_end = bc_btf_str_end(btf);
	const char *path = btf->path;

	btf->ref_start = malloc((btf->nr_types + 1) * sizeof(uint32_t));
	if (!btf->ref_start)
		return -ENOMEM;
	for (i = 0; i < btf->nr_types; i++) {
		btf->ref_start[i] = nr_refs;
		nr_refs += bc_type_nr_refs(bc_btf_local(btf, i));
	}
	btf->ref_start[i] = nr_refs;
	btf->refs = malloc((nr_refs ? nr_refs : 1) * sizeof(uint32_t));
	if (!btf->refs)
		return -ENOMEM;

	for (i = 0; i < btf->nr_types; i++) {
		const struct btf_type *t = bc_btf_local(btf, i);
		const uint32_t *w = (const uint32_t *)t;
		uint32_t kind = bc_type_kind(t), words = bc_type_words(t);
		uint32_t id = btf->start_id + i, *refs;

		for (j = 0; j < words; j++) {
			if (bc_word_class(kind, j) != BC_WORD_NAME)
				continue;
			if (w[j] >= str_end)
				return bad_string_off(btf, id, t, j, log);
		}
		refs = btf->refs + btf->ref_start[i];
		bc_type_refs(t, refs);
		for (j = btf->ref_start[i]; j < btf->ref_start[i + 1]; j++) {
			if (btf->refs[j] >= end_id)
				return bc_log_error(log, -EINVAL,
					"%s: type [%u] %s '%s' refers to type id %u, which does not exist (last id is %u)%s",
					path, id, bc_kinds[kind].name,
					bc_btf_str(btf, t->name_off),
					btf->refs[j], end_id - 1,
					base_hint(btf));
		}
		if (kind == BTF_KIND_FUNC) {
			const struct btf_type *proto = bc_btf_type(btf, refs[0]);

			if (!proto || bc_type_kind(proto) != BTF_KIND_FUNC_PROTO)
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
	return 0;
}

static bool breaks_loops(const struct btf_type *t)
{
	uint32_t kind = bc_type_kind(t);

	return kind == BTF_KIND_STRUCT || kind == BTF_KIND_UNION;
}

/*
 * Finds a reference cycle made only of kinds other than STRUCT and UNION
 * (a pointer to itself, a typedef of itself, ...). Such a cycle has no C
 * meaning. Iterative DFS with three colours over local types; references
 * into the base cannot come back (the base was checked on its own).
 */
static int check_loops(struct bc_btf *btf, const struct bc_log *log)
{
	enum { WHITE, GREY, BLACK };
	uint32_t n = btf->nr_types, root, sp;
	uint8_t *colour = calloc(n ? n : 1, 1);
	uint32_t *stack = malloc((n ? n : 1) * sizeof(uint32_t));
	uint32_t *next = malloc((n ? n : 1) * sizeof(uint32_t));
	int err = 0;

	if (!colour || !stack || !next) {
		err = -ENOMEM;
		goto out;
	}
	for (root = 0; root < n && !err; root++) {
		if (colour[root] != WHITE ||
		    breaks_loops(bc_btf_local(btf, root)))
			continue;
		sp = 0;
		stack[sp++] = root;
		colour[root] = GREY;
		next[root] = btf->ref_start[root];
		while (sp) {
			uint32_t v = stack[sp - 1], to;

			if (next[v] == btf->ref_start[v + 1]) {
				colour[v] = BLACK;
				sp--;
				continue;
			}
			to = btf->refs[next[v]++];
			if (to < btf->start_id)
				continue;
			to -= btf->start_id;
			if (breaks_loops(bc_btf_local(btf, to)) ||
			    colour[to] == BLACK)
				continue;
			if (colour[to] == GREY) {
				const struct btf_type *t = bc_btf_local(btf, to);

				err = bc_log_error(log, -ELOOP,
					"%s: reference loop with no struct or union in it through type [%u] %s '%s'",
					btf->path, btf->start_id + to,
					bc_kinds[bc_type_kind(t)].name,
					bc_btf_str(btf, t->name_off));
				break;
			}
			colour[to] = GREY;
			next[to] = btf->ref_start[to];
			stack[sp++] = to;
		}
	}
out:
	free(colour);
	free(stack);
	free(next);
	return err;
}

int bc_btf_parse(const void *data, size_t size, const struct bc_btf *base,
		 const char *path, const struct bc_log *log, struct bc_btf **out)
{
	struct bc_btf *btf = calloc(1, sizeof(*btf));
	int err = -ENOMEM;

	*out = NULL;
	if (!btf)
		return -ENOMEM;
	btf->path = strdup(path ? path : "<memory>");
	btf->data = malloc(size ? size : 1);
	if (!btf->path || !btf->data)
		goto fail;
	memcpy(btf->data, data, size);
	btf->size = size;
	btf->base = base;
	btf->start_id = base ? bc_btf_end_id(base) : 1;
	btf->start_str_off = base ? bc_btf_str_end(base) : 0;

	err = parse_header(btf, log);
	if (!err)
		err = parse_strings(btf, log);
	if (!err)
		err = index_types(btf, log);
	if (!err)
		err = check_types(btf, log);
	if (!err)
		err = check_loops(btf, log);
	if (err)
		goto fail;
	*out = btf;
	return 0;
fail:
	if (err == -ENOMEM)
		bc_log_error(log, err, "%s: out of memory", btf->path ? btf->path : "");
	bc_btf_free(btf);
	return err;
}
