// SPDX-License-Identifier: GPL-2.0-only
/*
 * The three views of a diff result: text (the default, one line per entity
 * and one per item, coloured on a terminal), JSON (one entry per line) and
 * --stat (counts). All three only read struct bc_diff.
 *
 * Text, for a struct that lost a member and changed another:
 *
 *	~ struct fanotify_info
 *	    - member pad: type u8[3], offset 16
 *	    ~ member name_len: type u8 -> u16, offset 13 -> 14
 *	+ struct io_foo  (size 16, 2 members)
 *
 * Offsets are in bytes, "byte:bit" where a bitfield starts inside a byte.
 */
#include <errno.h>
#include <string.h>

#include "btf_diff.h"
#include "kset_diff.h"

#define COLOR_RED "\033[31m"
#define COLOR_GREEN "\033[32m"
#define COLOR_YELLOW "\033[33m"
#define COLOR_BOLD "\033[1m"
#define COLOR_RESET "\033[m"

static const char op_sign[] = { [BC_DIFF_ADDED] = '+', [BC_DIFF_REMOVED] = '-',
				[BC_DIFF_CHANGED] = '~' };
static const char *const op_word[] = { [BC_DIFF_ADDED] = "added",
				       [BC_DIFF_REMOVED] = "removed",
				       [BC_DIFF_CHANGED] = "changed" };
static const char *const op_color[] = { [BC_DIFF_ADDED] = COLOR_GREEN,
					[BC_DIFF_REMOVED] = COLOR_RED,
					[BC_DIFF_CHANGED] = COLOR_YELLOW };

static void print_field(struct bc_text *out, const struct bc_diff_field *f)
{
	bc_text_printf(out, "%s ", f->what);
	if (f->old_val && f->new_val)
		bc_text_printf(out, "%s -> %s", f->old_val, f->new_val);
	else
		bc_text_puts(out, f->old_val ? f->old_val : f->new_val);
}

static void print_item(struct bc_text *out, const struct bc_diff_item *it,
		       bool color)
{
	uint32_t i;

	bc_text_printf(out, "%s    %c %s", color ? op_color[it->op] : "",
		       op_sign[it->op], it->what);
	if (*it->name)
		bc_text_printf(out, " %s", it->name);
	for (i = 0; i < it->nr_fields; i++) {
		const struct bc_diff_field *f = &it->fields[i];

		bc_text_puts(out, i ? ", " : *it->name ? ": " : " ");
		/* "size 200 -> 192", not "size size 200 -> 192" */
		if (!*it->name && it->nr_fields == 1 && !strcmp(f->what, it->what)) {
			if (f->old_val && f->new_val)
				bc_text_printf(out, "%s -> %s", f->old_val, f->new_val);
			else
				bc_text_puts(out, f->old_val ? f->old_val : f->new_val);
		} else {
			print_field(out, f);
		}
	}
	bc_text_printf(out, "%s\n", color ? COLOR_RESET : "");
}

int bc_diff_print_text(const struct bc_diff *diff,
		       const struct bc_diff_print_opts *opts,
		       struct bc_text *out)
{
	uint32_t i, j;

	if (!diff->nr_entries)
		return 0;
	bc_text_printf(out, "%s--- %s\n+++ %s%s\n", opts->color ? COLOR_BOLD : "",
		       opts->old_name, opts->new_name,
		       opts->color ? COLOR_RESET : "");
	for (i = 0; i < diff->nr_entries; i++) {
		const struct bc_diff_entry *e = &diff->entries[i];

		bc_text_printf(out, "%s%c %s", opts->color ? op_color[e->op] : "",
			       op_sign[e->op], e->path);
		if (e->summary)
			bc_text_printf(out, "  (%s)", e->summary);
		bc_text_printf(out, "%s\n", opts->color ? COLOR_RESET : "");
		for (j = 0; j < e->nr_items; j++)
			print_item(out, &e->items[j], opts->color);
	}
	return out->err;
}

static void json_field(struct bc_text *out, const struct bc_diff_field *f)
{
	bc_text_json_str(out, f->what);
	bc_text_puts(out, ":");
	if (f->old_val && f->new_val) {
		bc_text_puts(out, "{\"old\":");
		bc_text_json_str(out, f->old_val);
		bc_text_puts(out, ",\"new\":");
		bc_text_json_str(out, f->new_val);
		bc_text_puts(out, "}");
	} else {
		bc_text_json_str(out, f->old_val ? f->old_val : f->new_val);
	}
}

static void json_item(struct bc_text *out, const struct bc_diff_item *it)
{
	uint32_t i;

	bc_text_printf(out, "{\"op\":\"%s\",\"what\":", op_word[it->op]);
	bc_text_json_str(out, it->what);
	bc_text_puts(out, ",\"name\":");
	bc_text_json_str(out, it->name);
	bc_text_puts(out, ",\"fields\":{");
	for (i = 0; i < it->nr_fields; i++) {
		if (i)
			bc_text_puts(out, ",");
		json_field(out, &it->fields[i]);
	}
	bc_text_puts(out, "}}");
}

/* "[" every entry, one a line, "]" */
static void json_entries(const struct bc_diff *diff, struct bc_text *out)
{
	uint32_t i, j;

	bc_text_puts(out, "[");
	for (i = 0; i < diff->nr_entries; i++) {
		const struct bc_diff_entry *e = &diff->entries[i];

		bc_text_printf(out, "%s\n{\"op\":\"%s\",\"kind\":", i ? "," : "",
			       op_word[e->op]);
		bc_text_json_str(out, e->kind);
		bc_text_puts(out, ",\"path\":");
		bc_text_json_str(out, e->path);
		if (e->summary) {
			bc_text_puts(out, ",\"summary\":");
			bc_text_json_str(out, e->summary);
		}
		bc_text_puts(out, ",\"items\":[");
		for (j = 0; j < e->nr_items; j++) {
			if (j)
				bc_text_puts(out, ",");
			json_item(out, &e->items[j]);
		}
		bc_text_puts(out, "]}");
	}
	bc_text_puts(out, diff->nr_entries ? "\n]" : "]");
}

int bc_diff_print_json(const struct bc_diff *diff,
		       const struct bc_diff_print_opts *opts,
		       struct bc_text *out)
{
	bc_text_puts(out, "{\"old\":");
	bc_text_json_str(out, opts->old_name);
	bc_text_puts(out, ",\"new\":");
	bc_text_json_str(out, opts->new_name);
	bc_text_puts(out, ",\"entries\":");
	json_entries(diff, out);
	bc_text_puts(out, "}\n");
	return out->err;
}

/* Counts by name: entity kinds and item kinds each get a row. */
struct stat_row {
	const char *name;
	uint32_t n[3];		/* by enum bc_diff_op */
};

#define MAX_STAT_ROWS 32

static void count(struct stat_row *rows, uint32_t *nr, const char *name,
		  enum bc_diff_op op)
{
	uint32_t i;

	for (i = 0; i < *nr; i++)
		if (!strcmp(rows[i].name, name))
			break;
	if (i == *nr) {
		if (*nr == MAX_STAT_ROWS)
			return;
		rows[(*nr)++] = (struct stat_row){ .name = name };
	}
	rows[i].n[op]++;
}

static void print_rows(struct bc_text *out, const struct stat_row *rows,
		       uint32_t nr, const char *suffix)
{
	uint32_t i;

	for (i = 0; i < nr; i++)
		bc_text_printf(out, " %6u changed %6u added %6u removed  %s%s\n",
			       rows[i].n[BC_DIFF_CHANGED], rows[i].n[BC_DIFF_ADDED],
			       rows[i].n[BC_DIFF_REMOVED], rows[i].name, suffix);
}

/* Entities changed, added, removed, by op (nested anonymous ones not). */
static void count_entities(const struct bc_diff *diff, uint32_t total[3])
{
	uint32_t i;

	for (i = 0; i < diff->nr_entries; i++)
		if (!strstr(diff->entries[i].path, "::"))
			total[diff->entries[i].op]++;
}

int bc_diff_print_stat(const struct bc_diff *diff,
		       const struct bc_diff_print_opts *opts,
		       struct bc_text *out)
{
	struct stat_row kinds[MAX_STAT_ROWS], items[MAX_STAT_ROWS];
	uint32_t nr_kinds = 0, nr_items = 0, i, j, total[3] = { 0 };

	for (i = 0; i < diff->nr_entries; i++) {
		const struct bc_diff_entry *e = &diff->entries[i];

		/* nested anonymous types are counted with their items only */
		if (!strstr(e->path, "::")) {
			count(kinds, &nr_kinds, e->kind, e->op);
			total[e->op]++;
		}
		for (j = 0; j < e->nr_items; j++)
			count(items, &nr_items, e->items[j].what, e->items[j].op);
	}
	bc_text_printf(out, "%s -> %s\n", opts->old_name, opts->new_name);
	print_rows(out, kinds, nr_kinds, "");
	print_rows(out, items, nr_items, " (items)");
	bc_text_printf(out, " %u changed, %u added, %u removed\n",
		       total[BC_DIFF_CHANGED], total[BC_DIFF_ADDED],
		       total[BC_DIFF_REMOVED]);
	return out->err;
}

/*
 * A kernel with its modules. Text: the vmlinux report, then each changed
 * module's under "--- OLD [MODULE]", then the modules only one side has:
 *
 *	--- old.deb [modules]
 *	+++ new.deb [modules]
 *	+ module nf_foo  (12 types)
 *	- module bar  (40 types)
 */
static const char *module_label(struct bc_text *t, const char *kernel,
				const char *module)
{
	bc_text_truncate(t, 0);
	bc_text_printf(t, "%s [%s]", kernel, module);
	return bc_text_str(t);
}

int bc_kset_diff_print_text(const struct bc_kset_diff *kd,
			    const struct bc_diff_print_opts *opts,
			    struct bc_text *out)
{
	struct bc_text old_label, new_label;
	bool header = false;
	uint32_t i;

	if (bc_diff_print_text(&kd->vmlinux, opts, out))
		return out->err;
	bc_text_init(&old_label);
	bc_text_init(&new_label);
	for (i = 0; i < kd->nr_mods; i++) {
		const struct bc_module_diff *m = &kd->mods[i];
		struct bc_diff_print_opts mopts = *opts;

		if (m->op != BC_DIFF_CHANGED)
			continue;
		mopts.old_name = module_label(&old_label, opts->old_name, m->name);
		mopts.new_name = module_label(&new_label, opts->new_name, m->name);
		if (old_label.err || new_label.err)
			out->err = -ENOMEM;
		else
			bc_diff_print_text(&m->diff, &mopts, out);
	}
	for (i = 0; i < kd->nr_mods; i++) {
		const struct bc_module_diff *m = &kd->mods[i];

		if (m->op == BC_DIFF_CHANGED)
			continue;
		if (!header)
			bc_text_printf(out, "%s--- %s [modules]\n+++ %s [modules]%s\n",
				       opts->color ? COLOR_BOLD : "",
				       opts->old_name, opts->new_name,
				       opts->color ? COLOR_RESET : "");
		header = true;
		bc_text_printf(out, "%s%c module %s  (%u types)%s\n",
			       opts->color ? op_color[m->op] : "",
			       op_sign[m->op], m->name, m->nr_types,
			       opts->color ? COLOR_RESET : "");
	}
	bc_text_deinit(&old_label);
	bc_text_deinit(&new_label);
	return out->err;
}

/* JSON: bc_diff_print_json()'s object and "modules":[{...}, ...]. */
int bc_kset_diff_print_json(const struct bc_kset_diff *kd,
			    const struct bc_diff_print_opts *opts,
			    struct bc_text *out)
{
	uint32_t i;

	bc_text_puts(out, "{\"old\":");
	bc_text_json_str(out, opts->old_name);
	bc_text_puts(out, ",\"new\":");
	bc_text_json_str(out, opts->new_name);
	bc_text_puts(out, ",\"entries\":");
	json_entries(&kd->vmlinux, out);
	if (kd->modules_compared) {
		bc_text_puts(out, ",\"modules\":[");
		for (i = 0; i < kd->nr_mods; i++) {
			const struct bc_module_diff *m = &kd->mods[i];

			bc_text_printf(out, "%s\n{\"op\":\"%s\",\"module\":",
				       i ? "," : "", op_word[m->op]);
			bc_text_json_str(out, m->name);
			if (m->op == BC_DIFF_CHANGED) {
				bc_text_puts(out, ",\"entries\":");
				json_entries(&m->diff, out);
			} else {
				bc_text_printf(out, ",\"types\":%u", m->nr_types);
			}
			bc_text_puts(out, "}");
		}
		bc_text_puts(out, kd->nr_mods ? "\n]" : "]");
	}
	bc_text_puts(out, "}\n");
	return out->err;
}

/*
 * --stat: the vmlinux counts, then the modules': how many changed, were
 * added, were removed, and a line per changed module.
 */
int bc_kset_diff_print_stat(const struct bc_kset_diff *kd,
			    const struct bc_diff_print_opts *opts,
			    struct bc_text *out)
{
	uint32_t i, by_op[3] = { 0 };

	if (bc_diff_print_stat(&kd->vmlinux, opts, out) || !kd->modules_compared)
		return out->err;
	for (i = 0; i < kd->nr_mods; i++)
		by_op[kd->mods[i].op]++;
	bc_text_printf(out, " modules: %u changed, %u added, %u removed\n",
		       by_op[BC_DIFF_CHANGED], by_op[BC_DIFF_ADDED],
		       by_op[BC_DIFF_REMOVED]);
	for (i = 0; i < kd->nr_mods; i++) {
		const struct bc_module_diff *m = &kd->mods[i];
		uint32_t total[3] = { 0 };

		if (m->op != BC_DIFF_CHANGED)
			continue;
		count_entities(&m->diff, total);
		bc_text_printf(out, "  %s: %u changed, %u added, %u removed\n",
			       m->name, total[BC_DIFF_CHANGED],
			       total[BC_DIFF_ADDED], total[BC_DIFF_REMOVED]);
	}
	return out->err;
}
