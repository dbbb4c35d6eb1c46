// SPDX-License-Identifier: GPL-2.0-only
/*
 * `btfcanon archive log`: one type (or one member) across every kernel
 * of an archive. tools/btfcanon.c routes it here, since the log is a diff
 * across kernels; the rest of the `archive` command is archive/cmd_archive.c.
 *
 * Kernels of a line (a flavor of a distribution: "cloud-amd64", "el
 * x86_64"; archive/names.c) in version order, runs of kernels whose definition
 * reads the same folded into one line, the definition printed in full
 * where it first appears and as removed/added lines where it changes.
 * Definitions are C read through a view (archive/ktypes.h) and spelled by
 * header/cdecl.c, types by name, so a change of a referenced struct does not
 * count as a change of its referrers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../archive/archive.h"
#include "../archive/archive_cmd.h"
#include "../archive/ktypes.h"
#include "../canon/text.h"
#include "../canon/types.h"
#include "../header/cdecl.h"
#include "commands.h"

/*
 * A kernel's types as the log reads them: through a view (archive/ktypes.h:
 * records decoded when first reached, names as the archive's string
 * numbers), spelled by header/cdecl.c, the one C declarator the diff and
 * deps use too.
 */
struct log_kernel {
	struct bc_ktypes kt;
	struct bc_cdecl c;
};

static const char *log_str(const void *kt, uint32_t str)
{
	return bc_ktypes_str(kt, str);
}

static const char *log_name(const struct log_kernel *lk,
			    const struct btf_type *t)
{
	return bc_ktypes_str(&lk->kt, t->name_off);
}

/*
 * The line of member m (of a struct or union at bit base), indent spaces
 * in: its declaration as cdecl spells it ("struct sock *sk"), ":BITS" for
 * a bitfield, then its bit offset in a comment. An anonymous struct or
 * union member opens a block of its own members (depth: blocks opened so
 * far, at most 8).
 */
static void member_text(struct bc_text *t, struct log_kernel *lk,
			const struct btf_member *m, bool kflag, uint32_t base,
			int indent, int depth);

static void members_text(struct bc_text *t, struct log_kernel *lk,
			 const struct btf_type *type, uint32_t base, int indent,
			 int depth)
{
	const struct btf_member *m = (const struct btf_member *)(type + 1);
	uint32_t i;

	for (i = 0; i < bc_type_vlen(type); i++)
		member_text(t, lk, &m[i], bc_info_kflag(type->info), base, indent,
			    depth);
}

static void member_text(struct bc_text *t, struct log_kernel *lk,
			const struct btf_member *m, bool kflag, uint32_t base,
			int indent, int depth)
{
	const struct btf_type *mt = bc_ktypes_type(&lk->kt, m->type);
	uint32_t off = kflag ? BTF_MEMBER_BIT_OFFSET(m->offset) : m->offset;
	uint32_t bits = kflag ? BTF_MEMBER_BITFIELD_SIZE(m->offset) : 0;
	const char *name = bc_ktypes_str(&lk->kt, m->name_off);

	bc_text_printf(t, "%*s", indent, "");
	if (mt && !mt->name_off && depth < 8 &&
	    (bc_type_kind(mt) == BTF_KIND_STRUCT || bc_type_kind(mt) == BTF_KIND_UNION)) {
		bc_text_printf(t, "%s {\n", bc_tag_keyword(mt));
		members_text(t, lk, mt, base + off, indent + 8, depth + 1);
		bc_text_printf(t, "%*s} %s", indent, "", name);
	} else {
		bc_cdecl_type(&lk->c, m->type, name, t);
	}
	if (bits)
		bc_text_printf(t, ":%u", bits);
	bc_text_printf(t, "; /* bit %u */\n", base + off);
}

/*
 * The line of the first member called member of struct or union type,
 * looked for inside its anonymous struct and union members too; false
 * when there is none.
 */
static bool find_member(struct bc_text *t, struct log_kernel *lk,
			const struct btf_type *type, const char *member,
			uint32_t base, int depth)
{
	const struct btf_member *m = (const struct btf_member *)(type + 1);
	bool kflag = bc_info_kflag(type->info);
	uint32_t i;

	for (i = 0; i < bc_type_vlen(type); i++) {
		const struct btf_type *mt = bc_ktypes_type(&lk->kt, m[i].type);
		uint32_t off = kflag ? BTF_MEMBER_BIT_OFFSET(m[i].offset) : m[i].offset;

		if (!strcmp(bc_ktypes_str(&lk->kt, m[i].name_off), member)) {
			member_text(t, lk, &m[i], kflag, base, 0, 8);
			return true;
		}
		if (mt && !mt->name_off && depth < 8 &&
		    (bc_type_kind(mt) == BTF_KIND_STRUCT ||
		     bc_type_kind(mt) == BTF_KIND_UNION) &&
		    find_member(t, lk, mt, member, base + off, depth + 1))
			return true;
	}
	return false;
}

/* The definition of type id as lines of text (member: that member only). */
static void definition(struct bc_text *t, struct log_kernel *lk, uint32_t id,
		       const char *member)
{
	const struct btf_type *type = bc_ktypes_type(&lk->kt, id);
	const uint32_t *w = (const uint32_t *)type;
	const char *name;
	uint32_t i, kind;

	if (!type) {
		bc_text_printf(t, "(unreadable)\n");
		return;
	}
	kind = bc_type_kind(type);
	name = log_name(lk, type);
	if (member) {
		if (kind == BTF_KIND_STRUCT || kind == BTF_KIND_UNION)
			find_member(t, lk, type, member, 0, 0);
		return;
	}
	switch (kind) {
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		bc_text_printf(t, "%s %s { /* %u bytes */\n", bc_tag_keyword(type),
			       name, type->size);
		members_text(t, lk, type, 0, 8, 0);
		bc_text_printf(t, "};\n");
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		bc_text_printf(t, "enum %s { /* %u bytes */\n", name, type->size);
		for (i = 0; i < bc_type_vlen(type); i++) {
			const uint32_t *e = w + 3 + (kind == BTF_KIND_ENUM ? 2 : 3) * i;

			bc_text_printf(t, "        %s = ", bc_ktypes_str(&lk->kt, e[0]));
			if (kind == BTF_KIND_ENUM)
				bc_text_printf(t, "%d,\n", (int)e[1]);
			else
				bc_text_printf(t, "%llu,\n", (unsigned long long)e[1] |
					       (unsigned long long)e[2] << 32);
		}
		bc_text_printf(t, "};\n");
		break;
	case BTF_KIND_FUNC:
		bc_text_printf(t, "%s", bc_type_vlen(type) == BTF_FUNC_STATIC ? "static " :
			       bc_type_vlen(type) == BTF_FUNC_EXTERN ? "extern " : "");
		bc_cdecl_func(&lk->c, type->type, name, t);
		bc_text_printf(t, "\n");
		break;
	case BTF_KIND_TYPEDEF:
		bc_text_printf(t, "typedef ");
		bc_cdecl_type(&lk->c, type->type, name, t);
		bc_text_printf(t, ";\n");
		break;
	case BTF_KIND_VAR:
		bc_cdecl_type(&lk->c, type->type, name, t);
		bc_text_printf(t, ";\n");
		break;
	case BTF_KIND_INT:
		bc_text_printf(t, "%s: %u bytes, encoding 0x%x\n", name, type->size, w[3]);
		break;
	default:
		bc_text_printf(t, "%s %s\n", bc_kind_name(kind), name);
	}
}

struct wanted {
	uint32_t kinds[12];
	uint32_t nr_kinds;
	char name[512];
	const char *member;
};

static int parse_wanted(const char *spec, struct wanted *w)
{
	static const struct { const char *prefix; uint32_t kind, kind2; } tags[] = {
		{ "struct ", BTF_KIND_STRUCT, 0 },
		{ "union ", BTF_KIND_UNION, 0 },
		{ "enum ", BTF_KIND_ENUM, BTF_KIND_ENUM64 },
		{ "typedef ", BTF_KIND_TYPEDEF, 0 },
		{ "func ", BTF_KIND_FUNC, 0 },
		{ "var ", BTF_KIND_VAR, 0 },
	};
	static const uint32_t any[] = {
		BTF_KIND_STRUCT, BTF_KIND_UNION, BTF_KIND_ENUM, BTF_KIND_ENUM64,
		BTF_KIND_TYPEDEF, BTF_KIND_FUNC, BTF_KIND_VAR, BTF_KIND_INT,
		BTF_KIND_FLOAT, BTF_KIND_DATASEC,
	};
	const char *name = spec, *dot;
	size_t i;

	memset(w, 0, sizeof(*w));
	for (i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
		if (!strncmp(spec, tags[i].prefix, strlen(tags[i].prefix))) {
			name = spec + strlen(tags[i].prefix);
			w->kinds[w->nr_kinds++] = tags[i].kind;
			if (tags[i].kind2)
				w->kinds[w->nr_kinds++] = tags[i].kind2;
		}
	}
	if (!w->nr_kinds) {
		memcpy(w->kinds, any, sizeof(any));
		w->nr_kinds = sizeof(any) / sizeof(any[0]);
	}
	dot = *name ? strchr(name + 1, '.') : NULL;
	if (strlen(name) >= sizeof(w->name) || !*name)
		return -EINVAL;
	snprintf(w->name, sizeof(w->name), "%.*s",
		 (int)(dot ? (size_t)(dot - name) : strlen(name)), name);
	w->member = dot ? dot + 1 : NULL;
	return *w->name && (!dot || *w->member) ? 0 : -EINVAL;
}

static bool wanted_kind(const struct wanted *want, uint32_t kind)
{
	uint32_t i;

	for (i = 0; i < want->nr_kinds; i++)
		if (want->kinds[i] == kind)
			return true;
	return false;
}

/*
 * What kernel k's modules say of a type its vmlinux lacks (a module type
 * such as struct xfs_inode), into out: "in module M" and the definition,
 * of the first module in name order that has the type (libbpf too looks
 * into the modules only where vmlinux has none), and which others have
 * one of the name too (the first three named, then a count): their
 * definitions may differ, which `archive extract K/MODULE` shows.
 * Each module is rebuilt from the archive's records and parsed over the
 * kernel's bytes, then its own types scanned for the name: a module that
 * cannot be read is skipped (its reader said why). Cost: the kernel's
 * modules read once (about 0.1 s for a cloud kernel's 1,100).
 */
static void modules_say(struct bc_archive *ar, uint32_t k,
			const struct wanted *want, struct bc_text *out,
			const struct bc_log *log)
{
	uint32_t nr = bc_archive_nr_modules(ar, k), i, id, more = 0;
	struct bc_text others;
	struct bc_archive_kmods *km = NULL;
	struct bc_btf *base = NULL;
	const char *first = NULL;
	struct bc_text def;
	void *base_raw = NULL;
	size_t base_size = 0;

	bc_text_init(&def);
	bc_text_init(&others);
	if (bc_archive_kmods_open(ar, k, &km, &base_raw, &base_size, log) ||
	    bc_btf_parse(base_raw, base_size, NULL, bc_archive_kernel_name(ar, k),
			 log, &base)) {
		bc_text_printf(out, "(unreadable)\n");
		goto out;
	}
	for (i = 0; i < nr; i++) {
		struct log_kernel lk = { .c = { .type_of = bc_ktypes_type_of,
						.str_of = log_str } };
		struct bc_btf *mod = NULL;
		void *raw = NULL;
		size_t size = 0;
		bool has = false;

		if (!bc_archive_kmods_module(km, i, &raw, &size, log))
			bc_btf_parse(raw, size, base, bc_archive_module_name(ar, k, i),
				     log, &mod);
		free(raw);
		if (!mod)
			continue;
		if (first) {
			for (id = mod->start_id; !has && id < bc_btf_end_id(mod); id++) {
				const struct btf_type *t = bc_btf_type(mod, id);

				has = wanted_kind(want, BTF_INFO_KIND(t->info)) &&
				      !strcmp(bc_btf_str(mod, t->name_off), want->name);
			}
			if (has && ++more <= 3)
				bc_text_printf(&others, "%s%s", more > 1 ? ", " : "",
					       bc_archive_module_name(ar, k, i));
			bc_btf_free(mod);
			continue;
		}
		if (bc_ktypes_init_btf(&lk.kt, mod, false)) {
			bc_btf_free(mod);
			continue;
		}
		lk.c.src = &lk.kt;
		for (id = mod->start_id; id < bc_btf_end_id(mod); id++) {
			const struct btf_type *t = bc_btf_type(mod, id);

			if (wanted_kind(want, BTF_INFO_KIND(t->info)) &&
			    !strcmp(bc_btf_str(mod, t->name_off), want->name))
				definition(&def, &lk, id, want->member);
		}
		bc_ktypes_deinit(&lk.kt);
		bc_btf_free(mod);
		if (def.len)
			first = bc_archive_module_name(ar, k, i);
	}
	if (first && more > 3)
		bc_text_printf(out, "in module %s (also in %s and %u more):\n",
			       first, others.buf, more - 3);
	else if (first && more)
		bc_text_printf(out, "in module %s (also in %s):\n", first,
			       others.buf);
	else if (first)
		bc_text_printf(out, "in module %s:\n", first);
	if (def.len)
		bc_text_add(out, def.buf, def.len);
out:
	free(base_raw);
	bc_text_deinit(&def);
	bc_text_deinit(&others);
	bc_btf_free(base);
	bc_archive_kmods_free(km);
}

/* What kernel k says of the wanted type or member (NULL: absent). */
static char *kernel_says(struct bc_archive *ar, uint32_t k,
			 const struct wanted *want, const struct bc_log *log)
{
	struct log_kernel lk = { .c = { .type_of = bc_ktypes_type_of,
					.str_of = log_str } };
	struct bc_text out;
	uint32_t ids[16], i, j, nr;

	if (bc_ktypes_init_view(&lk.kt, ar, k, NULL, log))
		return strdup("(unreadable)\n");
	lk.c.src = &lk.kt;
	bc_text_init(&out);
	for (i = 0; i < want->nr_kinds; i++) {
		nr = bc_archive_view_find(lk.kt.view, want->kinds[i], want->name,
					  ids, 16);
		for (j = 0; j < nr && j < 16; j++)
			definition(&out, &lk, ids[j], want->member);
	}
	if (bc_ktypes_error(&lk.kt))
		bc_text_printf(&out, "(unreadable)\n");
	bc_ktypes_deinit(&lk.kt);
	/* not in vmlinux: in a module, as libbpf would look */
	if (!out.len && !out.err && bc_archive_nr_modules(ar, k))
		modules_say(ar, k, want, &out, log);
	if (!out.len && !out.err) {
		bc_text_deinit(&out);
		return NULL;
	}
	return out.err ? (bc_text_deinit(&out), strdup("(out of memory)\n")) :
	       bc_text_take(&out);
}

static bool has_line(const char *text, const char *line, size_t len)
{
	const char *p = text;

	while (p && *p) {
		const char *end = strchr(p, '\n');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (n == len && !memcmp(p, line, len))
			return true;
		p = end ? end + 1 : NULL;
	}
	return false;
}

/* Lines of a not in b, each prefixed. */
static void print_missing(const char *a, const char *b, char prefix)
{
	const char *p = a;

	while (p && *p) {
		const char *end = strchr(p, '\n');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (!has_line(b, p, n)) {
			size_t lead = 0;

			while (lead < n && p[lead] == ' ')
				lead++;
			printf("      %c %.*s\n", prefix, (int)(n - lead), p + lead);
		}
		p = end ? end + 1 : NULL;
	}
}

static void print_indented(const char *text)
{
	const char *p = text;

	while (p && *p) {
		const char *end = strchr(p, '\n');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		printf("        %.*s\n", (int)n, p);
		p = end ? end + 1 : NULL;
	}
}

/* Kernel names a and b are of one line (flavor and distribution). */
static bool same_line(const char *a, const char *b)
{
	char la[512], lb[512];

	bc_archive_name_line(a, la, sizeof(la));
	bc_archive_name_line(b, lb, sizeof(lb));
	return !strcmp(la, lb);
}

static bool same_text(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

int bc_cmd_archive_log(int argc, char **argv, const struct bc_log *log)
{
	struct bc_archive *ar;
	struct wanted want;
	uint32_t nr, k, start;
	char **says;

	if (argc != 3 || parse_wanted(argv[2], &want)) {
		fprintf(stderr, "btfcanon archive log: expected ARCHIVE TYPE[.MEMBER]\n%s",
			bc_archive_usage);
		return 2;
	}
	if (bc_archive_open(argv[1], &ar, log))
		return 1;
	nr = bc_archive_nr_kernels(ar);
	says = calloc(nr + 1, sizeof(*says));
	if (!says) {
		bc_archive_free(ar);
		return 1;
	}
	for (k = 0; k < nr; k++)
		says[k] = kernel_says(ar, k, &want, log);
	printf("%s\n", argv[2]);
	for (start = 0; start < nr;) {
		const char *first = bc_archive_kernel_name(ar, start);
		const char *prev = NULL;
		uint32_t end = start;
		char line[512];

		while (end < nr && same_line(first, bc_archive_kernel_name(ar, end)))
			end++;
		bc_archive_name_line(first, line, sizeof(line));
		printf("%s:\n", *line ? line : "(no flavor)");
		for (k = start; k < end;) {
			uint32_t run = k;

			while (run < end && same_text(says[run], says[k]))
				run++;
			if (run - k == 1)
				printf("  %s", bc_archive_kernel_name(ar, k));
			else
				printf("  %s .. %s (%u kernels)",
				       bc_archive_kernel_name(ar, k),
				       bc_archive_kernel_name(ar, run - 1), run - k);
			if (!says[k]) {
				printf(": absent\n");
			} else if (!prev) {
				printf(k == start ? ":\n" : ": appears\n");
				print_indented(says[k]);
			} else {
				printf(": changed\n");
				print_missing(prev, says[k], '-');
				print_missing(says[k], prev, '+');
			}
			if (says[k])
				prev = says[k];
			k = run;
		}
		start = end;
	}
	for (k = 0; k < nr; k++)
		free(says[k]);
	free(says);
	bc_archive_free(ar);
	return 0;
}
