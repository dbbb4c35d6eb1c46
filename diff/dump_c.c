// SPDX-License-Identifier: GPL-2.0-only
/*
 * `dump -f c`: a C header (vmlinux.h) whose lines move only where the
 * types really changed.
 *
 * bpftool writes the header by asking libbpf's btf_dump for every type id
 * in id order; btf_dump emits each type after the types it needs by value,
 * and a forward declaration before the first use of a struct through a
 * pointer. Id order is the order the encoder happened to produce, so two
 * kernels that differ in one struct give headers that differ in thousands
 * of places. Here the same btf_dump writes every definition (so the
 * declarations are bpftool's, byte for byte), but the roots are visited in
 * an order that depends on names only:
 *
 *   rank 0  a forward declaration of every named struct and union, by name;
 *   rank 1  named enums by name, then enums nobody refers to (anonymous,
 *	     so their enumerators are the point) by their first enumerator;
 *   rank 2  typedefs of scalars, pointers and function prototypes, by name;
 *   rank 3  structs, unions and the other typedefs, by name.
 *
 * btf_dump still pulls in what a definition needs by value just before it
 * (C needs that), so a type sits either at its own place by name or right
 * before its first user by value. Since every struct is declared in rank 0,
 * the forward declarations btf_dump would scatter through the file are
 * dropped from its output. Adding a member to a struct then changes one
 * line; adding a type adds its definition and one declaration.
 *
 * Types of the same name and kind get btf_dump's "___2" suffixes in the
 * order of rank 0, i.e. by name and then canonical id. The cost is one
 * sort of the roots and one pass of btf_dump: linear in the types.
 *
 * The text around the types (include guard, the preserve_access_index
 * pragma that BPF_NO_PRESERVE_ACCESS_INDEX turns off) is bpftool's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "../canon/btf_kinds.h"
#include "dump.h"
#include "types.h"

enum root_rank {
	RANK_ENUM = 1,
	RANK_ANON_ENUM,
	RANK_SIMPLE_TYPEDEF,
	RANK_AGGREGATE,
};

struct root {
	uint32_t id;
	uint32_t rank;
	const char *name;	/* sort name: own name, or first enumerator/member */
};

struct c_dump {
	const struct bc_btf *btf;
	struct btf_dump *d;
	struct bc_text *out;
	char **fwd_lines;	/* "struct foo;" as emitted in rank 0, sorted */
	uint32_t nr_fwds;
};

/*
 * btf_dump's output sink. libbpf 1.1.2 writes a prototype without
 * parameters (vlen 0, C's "(void)") as "()", which in C means "unknown
 * parameters"; bpftool's libbpf writes "(void)", and so does this.
 */
static void append_printf(void *ctx, const char *fmt, va_list args)
{
	struct bc_text *out = ctx;
	size_t mark = out->len;

	bc_text_vprintf(out, fmt, args);
	if (mark && out->len > mark && out->buf[mark - 1] == '(' &&
	    out->buf[mark] == ')') {
		char *rest = strdup(out->buf + mark);

		if (!rest) {
			out->err = -ENOMEM;
			return;
		}
		bc_text_truncate(out, mark);
		bc_text_puts(out, "void");
		bc_text_puts(out, rest);
		free(rest);
	}
}

/* A typedef that needs no struct or union definition before it. */
static bool is_simple_typedef(const struct bc_btf *btf, const struct btf_type *t)
{
	uint32_t id = t->type;
	const struct btf_type *target = bc_skip_mods(btf, &id, true);

	if (!target)
		return true;
	switch (bc_type_kind(target)) {
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_ARRAY:
		return false;
	default:
		return true;
	}
}

static int cmp_root(const void *pa, const void *pb)
{
	const struct root *a = pa, *b = pb;
	int c;

	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	c = strcmp(a->name, b->name);
	if (c)
		return c;
	return a->id < b->id ? -1 : a->id > b->id;
}

/*
 * Picks the roots of ranks 1-3 among btf's own types, and the named
 * structs, unions and forward declarations of rank 0 (rank 0 in *roots).
 */
static int collect_roots(const struct bc_btf *btf, struct root **roots_out,
			 uint32_t *nr_out)
{
	uint32_t i, nr = 0;
	struct root *roots;
	bool *referenced;

	referenced = bc_referenced_types(btf, false);
	roots = calloc(btf->nr_types + 1, sizeof(*roots));
	if (!referenced || !roots) {
		free(referenced);
		free(roots);
		return -ENOMEM;
	}
	for (i = 0; i < btf->nr_types; i++) {
		const struct btf_type *t = bc_btf_local(btf, i);
		const char *name = bc_btf_str(btf, t->name_off);
		uint32_t id = btf->start_id + i, rank;

		switch (bc_type_kind(t)) {
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION:
			/* btf_dump writes anonymous ones only inside others */
			if (!*name)
				continue;
			rank = RANK_AGGREGATE;
			break;
		case BTF_KIND_FWD:
			rank = 0;
			break;
		case BTF_KIND_ENUM:
		case BTF_KIND_ENUM64:
			if (*name) {
				rank = RANK_ENUM;
			} else if (!referenced[id]) {
				rank = RANK_ANON_ENUM;
				name = bc_first_entry_name(btf, t);
			} else {
				continue;
			}
			break;
		case BTF_KIND_TYPEDEF:
			rank = is_simple_typedef(btf, t) ? RANK_SIMPLE_TYPEDEF :
							   RANK_AGGREGATE;
			break;
		default:
			continue;
		}
		roots[nr++] = (struct root){ .id = id, .rank = rank, .name = name };
	}
	free(referenced);
	qsort(roots, nr, sizeof(*roots), cmp_root);
	*roots_out = roots;
	*nr_out = nr;
	return 0;
}

static int cmp_str_ptr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_fwd_root(const void *pa, const void *pb)
{
	const struct root *a = pa, *b = pb;
	int c = strcmp(a->name, b->name);

	if (c)
		return c;
	return a->id < b->id ? -1 : a->id > b->id;
}

/*
 * Rank 0: "struct foo;" for every named struct, union and forward
 * declaration, by name, spelled as btf_dump names them (which also fixes
 * the ___N suffixes in this order).
 */
static int emit_fwd_decls(struct c_dump *c, const struct root *roots,
			  uint32_t nr_roots)
{
	LIBBPF_OPTS(btf_dump_emit_type_decl_opts, opts, .field_name = "");
	struct root *decls;
	uint32_t i, nr = 0;
	int err = 0;

	decls = calloc(nr_roots + 1, sizeof(*decls));
	c->fwd_lines = calloc(nr_roots + 1, sizeof(*c->fwd_lines));
	if (!decls || !c->fwd_lines) {
		free(decls);
		return -ENOMEM;
	}
	for (i = 0; i < nr_roots; i++) {
		const struct btf_type *t = bc_btf_type(c->btf, roots[i].id);
		uint32_t kind = bc_type_kind(t);

		if ((kind == BTF_KIND_STRUCT || kind == BTF_KIND_UNION ||
		     kind == BTF_KIND_FWD) && t->name_off)
			decls[nr++] = roots[i];
	}
	qsort(decls, nr, sizeof(*decls), cmp_fwd_root);
	for (i = 0; i < nr && !err; i++) {
		size_t mark = c->out->len;

		err = btf_dump__emit_type_decl(c->d, decls[i].id, &opts);
		if (err)
			break;
		bc_text_puts(c->out, ";");
		err = c->out->err;
		if (err)
			break;
		c->fwd_lines[c->nr_fwds] = strdup(c->out->buf + mark);
		if (!c->fwd_lines[c->nr_fwds])
			err = -ENOMEM;
		else
			c->nr_fwds++;
		bc_text_puts(c->out, "\n");
	}
	free(decls);
	if (nr)
		bc_text_puts(c->out, "\n");
	qsort(c->fwd_lines, c->nr_fwds, sizeof(*c->fwd_lines), cmp_str_ptr);
	return err ? err : c->out->err;
}

/* A block "struct foo;" that rank 0 already declared. */
static bool is_declared_fwd(const struct c_dump *c, char *block, size_t len)
{
	char *key = block;
	bool found;
	char saved;

	if (len < 2 || block[len - 1] != ';' || memchr(block, '\n', len) ||
	    memchr(block, '{', len))
		return false;
	if (strncmp(block, "struct ", 7) && strncmp(block, "union ", 6))
		return false;
	saved = block[len];
	block[len] = '\0';
	found = bsearch(&key, c->fwd_lines, c->nr_fwds, sizeof(*c->fwd_lines),
			cmp_str_ptr) != NULL;
	block[len] = saved;
	return found;
}

/*
 * Removes from out (from mark on) the forward declarations that rank 0
 * made. btf_dump ends every top-level declaration with ";\n\n" and puts no
 * blank line inside one, so blocks are separated by "\n\n".
 */
static void drop_declared_fwds(struct c_dump *c, size_t mark)
{
	char *buf = c->out->buf, *end = buf + c->out->len;
	char *src = buf + mark, *dst = src;

	while (src < end) {
		char *sep = strstr(src, "\n\n");
		size_t block_len = sep ? (size_t)(sep - src) : (size_t)(end - src);
		size_t take = sep ? block_len + 2 : block_len;

		if (!is_declared_fwd(c, src, block_len)) {
			memmove(dst, src, take);
			dst += take;
		}
		src += take;
	}
	bc_text_truncate(c->out, dst - buf);
}

static const char c_prologue[] =
	"#ifndef __VMLINUX_H__\n"
	"#define __VMLINUX_H__\n"
	"\n"
	"#ifndef BPF_NO_PRESERVE_ACCESS_INDEX\n"
	"#pragma clang attribute push (__attribute__((preserve_access_index)), apply_to = record)\n"
	"#endif\n"
	"\n";

static const char c_epilogue[] =
	"#ifndef BPF_NO_PRESERVE_ACCESS_INDEX\n"
	"#pragma clang attribute pop\n"
	"#endif\n"
	"\n"
	"#endif /* __VMLINUX_H__ */\n";

/*
 * Structs and unions btf_dump cannot write, refused before it sees them
 * (both found by tests/fuzz/fuzz_dump):
 *
 *   - btf_dump divides by the alignment of each member's type, which
 *     btf__align_of() gives as 0 or less for void, an INT or ENUM of size
 *     0, a FWD or a function: valid BTF to the parser, no C type, and a
 *     SIGFPE inside libbpf 1.1;
 *   - a member that lies past the end of its struct (the kernel rejects
 *     that too) makes btf_dump write one padding line per 64 bits of the
 *     gap: an 800-byte input gave a 280 MB header. Holes between members
 *     and at the end are padded the same way, so a hole is bounded by
 *     MAX_HOLE_BYTES; real structs pad to a cache line or a page.
 *
 * Returns 0 or -EINVAL after a message.
 */
/*
 * The kth type t holds by value, or 0 when it has no more: members of
 * structs and unions, array elements, what modifiers and typedefs name.
 * Pointers and prototypes hold nothing by value.
 */
static uint32_t by_value_ref(const struct btf_type *t, uint32_t k)
{
	switch (btf_kind(t)) {
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return k < btf_vlen(t) ? btf_members(t)[k].type : 0;
	case BTF_KIND_ARRAY:
		return k ? 0 : btf_array(t)->type;
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		return k ? 0 : t->type;
	default:
		return 0;
	}
}

/*
 * A struct that contains itself by value (through members, arrays,
 * typedefs) has no size: libbpf's btf__align_of() recurses on it until the
 * stack overflows (found by tests/fuzz/fuzz_dump). The parser lets loops
 * through structs pass, as pointers make them legal; this finds the ones
 * without a pointer, by a depth-first walk over by-value references with
 * the types on the current path marked. Linear in types and members.
 * Returns 0, -ENOMEM, or -EINVAL after a message.
 */
static int check_by_value_cycles(const struct bc_btf *btf,
				 const struct bc_log *log)
{
	enum { UNSEEN, ON_PATH, DONE };
	struct frame { uint32_t idx, next; } *path;
	uint8_t *state = calloc(btf->nr_types ? btf->nr_types : 1, 1);
	uint32_t root, depth;
	int err = 0;

	path = malloc((btf->nr_types ? btf->nr_types : 1) * sizeof(*path));
	if (!state || !path) {
		err = -ENOMEM;
		goto out;
	}
	for (root = 0; root < btf->nr_types && !err; root++) {
		if (state[root] != UNSEEN)
			continue;
		state[root] = ON_PATH;
		path[0] = (struct frame){ root, 0 };
		depth = 1;
		while (depth && !err) {
			struct frame *f = &path[depth - 1];
			uint32_t id = by_value_ref(bc_btf_local(btf, f->idx), f->next++);
			uint32_t idx = id - btf->start_id;

			if (!id) {
				/* 0: a void member, or past the last entry */
				if (f->next <= btf_vlen(bc_btf_local(btf, f->idx)))
					continue;
				state[f->idx] = DONE;
				depth--;
				continue;
			}
			if (id < btf->start_id || state[idx] == DONE)
				continue;
			if (state[idx] == ON_PATH) {
				const struct btf_type *t = bc_btf_local(btf, idx);

				err = bc_log_error(log, -EINVAL,
					"%s: type [%u] %s '%s' contains itself by value (no pointer on the way): it has no size and no C declaration",
					btf->path, id, bc_kinds[btf_kind(t)].name,
					bc_btf_str(btf, t->name_off));
				break;
			}
			state[idx] = ON_PATH;
			path[depth++] = (struct frame){ idx, 0 };
		}
	}
out:
	free(path);
	free(state);
	return err;
}

#define MAX_HOLE_BYTES (64 * 1024)

static int check_layout(const struct bc_btf *btf, const struct btf *lbtf,
			const struct bc_log *log)
{
	uint32_t i;
	int err = check_by_value_cycles(btf, log);

	if (err)
		return err;

	for (i = 0; i < btf->nr_types; i++) {
		const struct btf_type *t = bc_btf_local(btf, i);
		uint32_t id = btf->start_id + i;

		const char *kind = btf_kind(t) == BTF_KIND_STRUCT ? "struct" : "union";
		uint64_t end = 0;	/* bits: the furthest member end so far */
		uint32_t j;

		if (btf_kind(t) != BTF_KIND_STRUCT && btf_kind(t) != BTF_KIND_UNION)
			continue;
		for (j = 0; j < btf_vlen(t); j++) {
			const struct btf_member *m = btf_members(t) + j;
			uint64_t bits = btf_member_bitfield_size(t, j);

			uint64_t at = btf_member_bit_offset(t, j);

			/*
			 * Each member, not only the struct: btf__align_of()
			 * calls a struct packed (1) at its first misaligned
			 * member without looking at the rest.
			 */
			if (btf__align_of(lbtf, m->type) <= 0)
				return bc_log_error(log, -EINVAL,
					"%s: type [%u] %s '%s': member '%s' has a type without size or alignment (void, a declaration, a function); no C declaration for it",
					btf->path, id, kind, bc_btf_str(btf, t->name_off),
					bc_btf_str(btf, m->name_off));
			if (!bits)
				bits = 8 * (uint64_t)btf__resolve_size(lbtf, m->type);
			if (at + bits > 8 * (uint64_t)t->size)
				return bc_log_error(log, -EINVAL,
					"%s: type [%u] %s '%s': member '%s' at bit %llu lies past the end of its %u bytes",
					btf->path, id, kind, bc_btf_str(btf, t->name_off),
					bc_btf_str(btf, m->name_off),
					(unsigned long long)at, t->size);
			if (at > end + 8 * MAX_HOLE_BYTES)
				return bc_log_error(log, -EINVAL,
					"%s: type [%u] %s '%s': a hole of %llu bytes before member '%s' (more than %u): the header would pad it line by line",
					btf->path, id, kind, bc_btf_str(btf, t->name_off),
					(unsigned long long)(at - end) / 8,
					bc_btf_str(btf, m->name_off), MAX_HOLE_BYTES);
			if (at + bits > end)
				end = at + bits;
		}
		if (8 * (uint64_t)t->size > end + 8 * MAX_HOLE_BYTES)
			return bc_log_error(log, -EINVAL,
				"%s: type [%u] %s '%s': a hole of %llu bytes at its end (more than %u): the header would pad it line by line",
				btf->path, id, kind, bc_btf_str(btf, t->name_off),
				(unsigned long long)(8 * (uint64_t)t->size - end) / 8,
				MAX_HOLE_BYTES);
	}
	return 0;
}

int bc_dump_c(const struct bc_btf *btf, const struct btf *lbtf,
	      struct bc_text *out, const struct bc_log *log)
{
	struct c_dump c = { .btf = btf, .out = out };
	struct root *roots = NULL;
	uint32_t i, nr_roots = 0;
	int err;

	err = check_layout(btf, lbtf, log);
	if (err)
		return err;
	err = collect_roots(btf, &roots, &nr_roots);
	if (err)
		goto out;
	c.d = btf_dump__new(lbtf, append_printf, out, NULL);
	if (!c.d) {
		err = -errno;
		goto out;
	}
	bc_text_puts(out, c_prologue);
	err = emit_fwd_decls(&c, roots, nr_roots);
	for (i = 0; !err && i < nr_roots; i++) {
		size_t mark = out->len;

		if (!roots[i].rank)
			continue;
		err = btf_dump__dump_type(c.d, roots[i].id);
		if (!err)
			err = out->err;
		if (!err)
			drop_declared_fwds(&c, mark);
	}
	if (!err)
		bc_text_puts(out, c_epilogue);
	if (!err)
		err = out->err;
out:
	if (err)
		bc_log_error(log, err, "%s: cannot write the C header: %s",
			     btf->path, strerror(-err));
	btf_dump__free(c.d);
	for (i = 0; i < c.nr_fwds; i++)
		free(c.fwd_lines[i]);
	free(c.fwd_lines);
	free(roots);
	return err;
}
