// SPDX-License-Identifier: GPL-2.0-only
/*
 * btfcanon deps [--json] [--all] [--color[=WHEN]] OBJECT...
 *               --kernel K [--kconfig CONFIG]...
 *
 * Every object is read, then the kernels one at a time (beside the first,
 * which prototypes are compared with), every object checked against each.
 * An archive gives every kernel in it, ARCHIVE:GLOB those whose names
 * match; they are read out of the archive opened once. The text view is a matrix: rows are the dependencies not ok on
 * some kernel (every one with --all), columns the kernels; then a count
 * of the dependencies ok everywhere, and the details of the cells that
 * have one. --json writes one document per object, one a line.
 *
 * An object libbpf 1.1 refuses at open is a report like the others,
 * status "refused at open" with libbpf's reason and what libbpf's later
 * open rules were not checked for, then its dependencies as if it opened
 * (the reader took it whole: every CO-RE relocation, hook, extern,
 * helper, map and program type); its externs without BTF are rows
 * unknown everywhere. It fails the run (exit status 1) as a dependency
 * that breaks does, and the other objects are reported in full.
 *
 * Exit status: 0 nothing breaks; 1 some object is refused at open, or
 * some dependency gives an error or wrong data on some kernel; 2 bad
 * usage or bad input: a file that is no BPF object the reader can read
 * (not ELF, another machine, cut short, no .BTF). Every input is read
 * and checked before a report is written: bad input prints no report.
 */
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../canon/text.h"
#include "../archive/btf_file.h"
#include "commands.h"
#include "core_relo.h"
#include "deps.h"
#include "kernel_list.h"

const char bc_deps_usage[] =
"Usage: btfcanon deps [--json] [--all] [--color[=auto|always|never]]\n"
"                     [--attach PROG=FUNC]... OBJECT... --kernel K\n"
"                     [--kconfig CONFIG]...\n"
"       btfcanon deps --kernel K [--kconfig CONFIG] --save FILE\n"
"  OBJECT       a BPF ELF object (clang -target bpf -g)\n"
"  --kernel K   raw BTF, an ELF file's .BTF, a debug vmlinux (its\n"
"               symbol table checks kprobe targets; DWARF-only files are\n"
"               encoded first), a saved kernel file; a kernel with its\n"
"               modules: a package (.deb, .rpm), a modules tree\n"
"               (/lib/modules/VERSION, an unpacked package) beside its\n"
"               kernel, a directory as /sys/kernel/btf (vmlinux and\n"
"               modules' split BTF); an\n"
"               archive (every kernel in it) or ARCHIVE:GLOB (those\n"
"               whose names match; keyed ARCHIVE:NAME); prototypes\n"
"               compare with the first kernel; NAME=FILE names FILE's\n"
"               kernel NAME\n"
"  --kconfig C  the config (.config, /boot/config-VERSION) of the --kernel\n"
"               just before it, for the object's kconfig externs\n"
"  --attach P=F program P attaches to F, as the loader sets it\n"
"               (bpf_program__set_attach_target), in place of its section's\n"
"               target; a bare SEC(\"fentry\") program needs one\n"
"  --json       one JSON document per object, one a line\n"
"  --all        list every dependency, not only those not ok somewhere\n"
"  --save FILE  write kernel K (BTF, symbols, inlined functions, config,\n"
"               modules) to FILE, a saved kernel file (an archive of one\n"
"               kernel) that --kernel takes and reads fast; K may be\n"
"               ARCHIVE:NAME, one kernel of an archive\n"
"An object libbpf 1.1 refuses at open is reported \"refused at open\" with\n"
"libbpf's reason, then what else it tells; a file that is no BPF object\n"
"(not ELF, another machine, cut short) is bad input.\n"
"Exit status: 0 nothing breaks, 1 an object refused at open or an error or\n"
"wrong data on some kernel, 2 bad usage or input.\n";

struct deps_args {
	char **objects;
	int nr_objects;
	char **kernels;
	char **kconfigs;		/* by kernel; NULL: none given */
	int nr_kernels;
	bool json, all;
	int color;
	const char *save;
	char **attach;		/* PROG=FUNC */
	int nr_attach;
};

static int parse_deps_args(int argc, char **argv, struct deps_args *a)
{
	enum { OPT_JSON = 256, OPT_ALL, OPT_KERNEL, OPT_COLOR, OPT_SAVE,
	       OPT_KCONFIG, OPT_ATTACH };
	static const struct option opts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "all", no_argument, NULL, OPT_ALL },
		{ "kernel", required_argument, NULL, OPT_KERNEL },
		{ "save", required_argument, NULL, OPT_SAVE },
		{ "kconfig", required_argument, NULL, OPT_KCONFIG },
		{ "attach", required_argument, NULL, OPT_ATTACH },
		{ "color", optional_argument, NULL, OPT_COLOR },
		{ "colour", optional_argument, NULL, OPT_COLOR },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(a, 0, sizeof(*a));
	a->color = -1;
	a->kernels = calloc(argc, sizeof(*a->kernels));
	a->objects = calloc(argc, sizeof(*a->objects));
	a->kconfigs = calloc(argc, sizeof(*a->kconfigs));
	a->attach = calloc(argc, sizeof(*a->attach));
	if (!a->kernels || !a->objects || !a->kconfigs || !a->attach)
		return -ENOMEM;
	optind = 1;
	while ((c = getopt_long(argc, argv, "hk:", opts, NULL)) != -1) {
		switch (c) {
		case OPT_JSON:
			a->json = true;
			break;
		case OPT_ALL:
			a->all = true;
			break;
		case OPT_SAVE:
			a->save = optarg;
			break;
		case 'k':
		case OPT_KERNEL:
			a->kernels[a->nr_kernels++] = optarg;
			break;
		case OPT_ATTACH: {
			const char *eq = strchr(optarg, '=');

			if (!eq || eq == optarg || !eq[1]) {
				fprintf(stderr, "btfcanon deps: --attach %s: give PROG=FUNC\n",
					optarg);
				return -EINVAL;
			}
			a->attach[a->nr_attach++] = optarg;
			break;
		}
		case OPT_KCONFIG:
			/* the config of the --kernel just before it */
			if (!a->nr_kernels || a->kconfigs[a->nr_kernels - 1]) {
				fprintf(stderr, "btfcanon deps: --kconfig %s: %s\n", optarg,
					a->nr_kernels ? "a second config for the same --kernel" :
					"give it after the --kernel it belongs to");
				return -EINVAL;
			}
			a->kconfigs[a->nr_kernels - 1] = optarg;
			break;
		case OPT_COLOR:
			if (!optarg || !strcmp(optarg, "always"))
				a->color = 1;
			else if (!strcmp(optarg, "never"))
				a->color = 0;
			else if (!strcmp(optarg, "auto"))
				a->color = -1;
			else {
				fprintf(stderr, "btfcanon deps: --color is auto, always or never\n");
				return -EINVAL;
			}
			break;
		case 'h':
			fputs(bc_deps_usage, stdout);
			exit(0);
		default:
			fputs(bc_deps_usage, stderr);
			return -EINVAL;
		}
	}
	while (optind < argc)
		a->objects[a->nr_objects++] = argv[optind++];
	if (a->save && (a->nr_objects || a->nr_kernels != 1)) {
		fprintf(stderr, "btfcanon deps: --save takes one --kernel and no OBJECT\n%s",
			bc_deps_usage);
		return -EINVAL;
	}
	if (a->save)
		return 0;
	if (!a->nr_objects || !a->nr_kernels) {
		fprintf(stderr, "btfcanon deps: expected OBJECT... and --kernel K\n%s",
			bc_deps_usage);
		return -EINVAL;
	}
	if (a->color < 0)
		a->color = !a->json && isatty(STDOUT_FILENO);
	return 0;
}

/*
 * --attach PROG=FUNC: each object's program PROG gets FUNC as its target;
 * a PROG no object has is bad usage. Returns 0 or a negative errno after
 * a message.
 */
static int set_attach_targets(const struct deps_args *a,
			      struct bc_bpf_object *objs, int nr_objs,
			      const struct bc_log *log)
{
	int i, o;

	for (i = 0; i < a->nr_attach; i++) {
		const char *eq = strchr(a->attach[i], '=');
		char *prog = strndup(a->attach[i], eq - a->attach[i]);
		bool found = false;
		int err = 0;

		if (!prog)
			return bc_log_error(log, -ENOMEM, "out of memory");
		for (o = 0; o < nr_objs && !err; o++) {
			err = bc_bpf_object_set_attach_target(&objs[o], prog, eq + 1);
			found |= !err;
			if (err == -ENOENT)
				err = 0;
		}
		if (!err && !found)
			err = bc_log_error(log, -EINVAL,
					   "--attach %s: no object has a program %s",
					   a->attach[i], prog);
		else if (err)
			bc_log_error(log, err, "out of memory");
		free(prog);
		if (err)
			return err;
	}
	return 0;
}

/* The row label of a dependency in the text view. */
static void row_label(const struct bc_dep *d, struct bc_text *t)
{
	switch (d->class) {
	case BC_DEP_RELO:
		bc_text_printf(t, "relo %s #%u %s %s%s%s", d->section, d->index,
			       d->kind, d->type, *d->name ? "." : "", d->name);
		break;
	case BC_DEP_HOOK:
		bc_text_printf(t, "hook %s %s", d->kind, d->name);
		break;
	case BC_DEP_EXTERN:
		bc_text_printf(t, "%s %s%s", d->kind, d->name,
			       d->weak ? " (weak)" : "");
		break;
	case BC_DEP_HELPER:
		bc_text_printf(t, "helper %lld %s", (long long)d->id, d->name);
		break;
	case BC_DEP_MAP:
		bc_text_printf(t, "map %s type %lld", d->name, (long long)d->id);
		break;
	case BC_DEP_PROG_TYPE:
		bc_text_printf(t, "prog %s %s", d->section,
			       *d->name ? d->name : "?");
		break;
	}
}

static void cell_text(const struct bc_dep *d, const struct bc_dep_cell *c,
		      struct bc_text *t)
{
	if (c->config_value && c->status == BC_DEP_OK) {
		bc_text_puts(t, c->config_value);	/* kconfig: its value */
	} else if (c->if_loaded) {
		/* off(what it gets if enabled) */
		bc_text_puts(t, "off(");
		cell_text(d, c->if_loaded, t);
		bc_text_puts(t, ")");
	} else if (d->class == BC_DEP_RELO && c->has_value && c->status == BC_DEP_OK)
		bc_text_printf(t, "%llu", (unsigned long long)c->value);
	else if (d->class == BC_DEP_RELO && c->has_value)
		bc_text_printf(t, "%s %llu", bc_dep_status_name(c->status),
			       (unsigned long long)c->value);
	else
		bc_text_puts(t, bc_dep_status_name(c->status));
	/* found in a module: "312 [xfs]", "ok [nf_conntrack]" */
	if (!c->if_loaded && c->status == BC_DEP_OK && c->detail &&
	    !strncmp(c->detail, "in module ", 10))
		bc_text_printf(t, " [%s]", c->detail + 10);
}

static const char *colour_of(enum bc_dep_consequence c)
{
	switch (c) {
	case BC_CONS_ERROR:
		return "\033[31m";
	case BC_CONS_WRONG_DATA:
	case BC_CONS_MISSED_CALLS:
		return "\033[33m";
	case BC_CONS_UNKNOWN:
		return "\033[2m";
	default:
		return "";
	}
}

/* Ok on every kernel; an autoload-off row when ok if enabled. */
static bool dep_all_ok(const struct bc_dep *d, uint32_t nr)
{
	uint32_t k;

	for (k = 0; k < nr; k++) {
		const struct bc_dep_cell *c = d->cells[k].if_loaded ?
					      d->cells[k].if_loaded : &d->cells[k];

		if (c->status != BC_DEP_OK)
			return false;
	}
	return true;
}

static size_t text_width(const char *s)
{
	return strlen(s);
}

static void print_text(const struct bc_deps_report *r,
		       const struct bc_bpf_object *obj, char **kernels,
		       char **kconfigs, bool all, bool color,
		       struct bc_text *out)
{
	uint32_t i, k, nr = r->nr_kernels, shown = 0, ok = 0, off_shown = 0;
	size_t label_w = 10, *col_w;
	struct bc_text t;

	col_w = calloc(nr, sizeof(*col_w));
	if (!col_w) {
		out->err = -ENOMEM;
		return;
	}
	bc_text_init(&t);
	for (k = 0; k < nr; k++)
		col_w[k] = 3 + (k >= 9) + (k >= 99);
	for (i = 0; i < r->nr_deps; i++) {
		const struct bc_dep *d = &r->deps[i];

		if (dep_all_ok(d, nr)) {
			ok++;
			if (!all)
				continue;
		}
		shown++;
		off_shown += d->autoload_off;
		bc_text_truncate(&t, 0);
		row_label(d, &t);
		if (text_width(bc_text_str(&t)) > label_w)
			label_w = text_width(bc_text_str(&t));
		for (k = 0; k < nr; k++) {
			bc_text_truncate(&t, 0);
			cell_text(d, &d->cells[k], &t);
			if (t.len > col_w[k])
				col_w[k] = t.len;
		}
	}
	if (obj->refused) {
		const char *on = color ? colour_of(BC_CONS_ERROR) : "";

		bc_text_printf(out, "%s: %srefused at open%s by libbpf 1.1 (loads on no kernel): %s\n"
			       "  not told: whether libbpf's later open rules refuse it too (%s)\n"
			       "  if it opened: %u dependencies, %u not ok on some kernel\n",
			       r->object, on, *on ? "\033[0m" : "", obj->refused,
			       obj->unchecked, r->nr_deps, r->nr_deps - ok);
	} else {
		bc_text_printf(out, "%s: %u dependencies, %u not ok on some kernel\n",
			       r->object, r->nr_deps, r->nr_deps - ok);
	}
	for (k = 0; k < nr; k++)
		bc_text_printf(out, "  [%u] %s%s%s\n", k + 1, kernels[k],
			       kconfigs[k] ? "  config: " : "",
			       kconfigs[k] ? kconfigs[k] : "");
	if (shown) {
		bc_text_printf(out, "  %-*s", (int)label_w, "dependency");
		for (k = 0; k < nr; k++) {
			char head[16];

			snprintf(head, sizeof(head), "[%u]", k + 1);
			bc_text_printf(out, "  %-*s", (int)col_w[k], head);
		}
		bc_text_puts(out, "\n");
	}
	for (i = 0; i < r->nr_deps; i++) {
		const struct bc_dep *d = &r->deps[i];

		if (!all && dep_all_ok(d, nr))
			continue;
		bc_text_truncate(&t, 0);
		row_label(d, &t);
		bc_text_printf(out, "  %-*s", (int)label_w, bc_text_str(&t));
		for (k = 0; k < nr; k++) {
			const struct bc_dep_cell *c = &d->cells[k];
			const char *on = color ?
				colour_of(bc_dep_status_consequence(c->status)) : "";

			bc_text_truncate(&t, 0);
			cell_text(d, c, &t);
			bc_text_printf(out, "  %s%-*s%s", on, (int)col_w[k],
				       bc_text_str(&t), *on ? "\033[0m" : "");
		}
		bc_text_puts(out, "\n");
	}
	bc_text_printf(out, "  %u ok on every kernel%s\n", ok,
		       all || !ok ? "" : " (--all lists them)");
	if (off_shown)
		bc_text_puts(out, "  off(...): only in programs of SEC(\"?...\"), autoload off: libbpf\n"
			     "  neither loads nor relocates them unless enabled; in parentheses,\n"
			     "  what they get when enabled\n");
	/* the details of the cells that have one */
	for (i = 0; i < r->nr_deps; i++) {
		const struct bc_dep *d = &r->deps[i];

		for (k = 0; k < nr; k++) {
			const struct bc_dep_cell *c = &d->cells[k];
			const char *when = "";

			if (c->if_loaded) {
				c = c->if_loaded;
				when = "if enabled: ";
			}
			if (!c->detail || c->status == BC_DEP_OK)
				continue;
			bc_text_truncate(&t, 0);
			row_label(d, &t);
			bc_text_printf(out, "  [%u] %s: %s%s (%s): %s\n", k + 1,
				       bc_text_str(&t), when,
				       bc_dep_status_name(c->status),
				       bc_dep_consequence_name(
					       bc_dep_status_consequence(c->status)),
				       c->detail);
		}
	}
	bc_text_deinit(&t);
	free(col_w);
}

/* One cell's members: value (relocations), status, consequence, detail. */
static void json_cell(const struct bc_dep *d, const struct bc_dep_cell *c,
		      struct bc_text *out)
{
	if (d->class == BC_DEP_EXTERN && !strcmp(d->kind, "kconfig")) {
		bc_text_puts(out, "\"value\":");
		if (c->config_value)
			bc_text_json_str(out, c->config_value);
		else
			bc_text_puts(out, "null");
		bc_text_puts(out, ",");
	} else if (d->class == BC_DEP_RELO) {
		if (c->has_value)
			bc_text_printf(out, "\"value\":%llu,",
				       (unsigned long long)c->value);
		else
			bc_text_puts(out, "\"value\":null,");
	}
	/* plain words ("proto-changed", "wrong-data"): nothing to escape */
	bc_text_puts(out, "\"status\":\"");
	bc_text_puts(out, bc_dep_status_name(c->status));
	bc_text_puts(out, "\",\"consequence\":\"");
	bc_text_puts(out, bc_dep_consequence_name(
				  bc_dep_status_consequence(c->status)));
	bc_text_puts(out, "\"");
	if (c->detail) {
		bc_text_puts(out, ",\"detail\":");
		bc_text_json_str(out, c->detail);
	}
	if (c->if_loaded) {
		bc_text_puts(out, ",\"if_loaded\":{");
		json_cell(d, c->if_loaded, out);
		bc_text_puts(out, "}");
	}
}

/* keys: the kernels' names as JSON strings, quoted and escaped once */
static void json_cells(const struct bc_dep *d, char **keys, uint32_t nr,
		       struct bc_text *out)
{
	uint32_t k;

	bc_text_puts(out, "\"kernels\":{");
	for (k = 0; k < nr; k++) {
		bc_text_puts(out, k ? "," : "");
		bc_text_puts(out, keys[k]);
		bc_text_puts(out, ":{");
		json_cell(d, &d->cells[k], out);
		bc_text_puts(out, "}");
	}
	bc_text_puts(out, "}");
}

static void json_list(const struct bc_deps_report *r, enum bc_dep_class class,
		      const char *key, char **keys, struct bc_text *out)
{
	uint32_t i, n = 0;

	bc_text_printf(out, ",\"%s\":[", key);
	for (i = 0; i < r->nr_deps; i++) {
		const struct bc_dep *d = &r->deps[i];

		if (d->class != class)
			continue;
		bc_text_puts(out, n++ ? ",{" : "{");
		switch (class) {
		case BC_DEP_RELO:
			bc_text_puts(out, "\"section\":");
			bc_text_json_str(out, d->section);
			bc_text_printf(out, ",\"index\":%u,\"insn_off\":%u,\"kind\":",
				       d->index, d->insn_off);
			bc_text_json_str(out, d->kind);
			bc_text_puts(out, ",\"type\":");
			bc_text_json_str(out, d->type);
			bc_text_puts(out, ",\"access\":");
			bc_text_json_str(out, d->name);
			break;
		case BC_DEP_HOOK:
			bc_text_puts(out, "\"section\":");
			bc_text_json_str(out, d->section);
			bc_text_puts(out, ",\"type\":");
			bc_text_json_str(out, d->kind);
			bc_text_puts(out, ",\"target\":");
			bc_text_json_str(out, d->name);
			break;
		case BC_DEP_EXTERN:
			bc_text_puts(out, "\"kind\":");
			bc_text_json_str(out, d->kind);
			bc_text_puts(out, ",\"name\":");
			bc_text_json_str(out, d->name);
			bc_text_printf(out, ",\"weak\":%s", d->weak ? "true" : "false");
			break;
		case BC_DEP_HELPER:
		case BC_DEP_MAP:
			bc_text_printf(out, "\"id\":%lld,\"name\":", (long long)d->id);
			bc_text_json_str(out, d->name);
			break;
		case BC_DEP_PROG_TYPE:
			bc_text_puts(out, "\"section\":");
			bc_text_json_str(out, d->section);
			bc_text_puts(out, ",\"type\":");
			bc_text_json_str(out, d->name);
			break;
		}
		if (class != BC_DEP_EXTERN && class != BC_DEP_MAP)
			bc_text_printf(out, ",\"autoload\":%s",
				       d->autoload_off ? "false" : "true");
		bc_text_puts(out, ",");
		json_cells(d, keys, r->nr_kernels, out);
		bc_text_puts(out, "}");
	}
	bc_text_puts(out, "]");
}

static void print_json(const struct bc_deps_report *r,
		       const struct bc_bpf_object *obj, char **kernels,
		       struct bc_text *out)
{
	char **keys = calloc(r->nr_kernels ? r->nr_kernels : 1, sizeof(*keys));
	uint32_t k;

	/* every cell is keyed by its kernel's name: escaped once here */
	for (k = 0; keys && k < r->nr_kernels; k++) {
		struct bc_text key;

		bc_text_init(&key);
		bc_text_json_str(&key, kernels[k]);
		keys[k] = key.err ? NULL : bc_text_take(&key);
		if (!keys[k])
			break;
	}
	if (!keys || k < r->nr_kernels) {
		out->err = -ENOMEM;
		goto out;
	}
	bc_text_puts(out, "{\"object\":");
	bc_text_json_str(out, r->object);
	if (obj->refused) {
		/* the dependencies below: as if libbpf opened it */
		bc_text_puts(out, ",\"status\":\"refused at open\",\"consequence\":\"error\",\"reason\":");
		bc_text_json_str(out, obj->refused);
		bc_text_puts(out, ",\"not_checked\":");
		bc_text_json_str(out, obj->unchecked);
	} else {
		bc_text_puts(out, ",\"status\":\"opens\"");
	}
	bc_text_puts(out, ",\"kernels\":[");
	for (k = 0; k < r->nr_kernels; k++) {
		bc_text_puts(out, k ? "," : "");
		bc_text_puts(out, keys[k]);
	}
	bc_text_puts(out, "]");
	json_list(r, BC_DEP_RELO, "relocations", keys, out);
	json_list(r, BC_DEP_HOOK, "hooks", keys, out);
	json_list(r, BC_DEP_EXTERN, "externs", keys, out);
	json_list(r, BC_DEP_HELPER, "helpers", keys, out);
	json_list(r, BC_DEP_MAP, "maps", keys, out);
	json_list(r, BC_DEP_PROG_TYPE, "program_types", keys, out);
	bc_text_puts(out, "}\n");
out:
	for (k = 0; keys && k < r->nr_kernels; k++)
		free(keys[k]);
	free(keys);
}

/*
 * Every object against the kernels, one kernel in memory at a time
 * beside the first (prototypes are compared with the first kernel's):
 * kernel k's column of each report is filled by checking the object
 * against k beside the first (bc_deps_check_column()).
 */
static int check_all(const struct bc_bpf_object *objs, int nr_objs,
		     const struct bc_kernel_list *kl, bool want_inlines,
		     struct bc_deps_report *reports, const struct bc_log *log)
{
	struct bc_deps_kernel pair[2];
	uint32_t k;
	int i, err;

	err = bc_kernel_src_load(&kl->srcs[0], want_inlines, false, &pair[0], log);
	if (err)
		return err;
	for (k = 0; k < kl->nr && !err; k++) {
		if (k) {
			err = bc_kernel_src_load(&kl->srcs[k], want_inlines, false,
						 &pair[1], log);
			if (err)
				break;
		}
		for (i = 0; i < nr_objs && !err; i++) {
			if (k) {
				err = bc_deps_check_column(&objs[i], &pair[0],
							   &pair[1], &reports[i],
							   k, log);
				continue;
			}
			err = bc_deps_check(&objs[i], pair, 1, &reports[i], log);
			if (!err && bc_deps_report_widen(&reports[i], kl->nr))
				err = bc_log_error(log, -ENOMEM, "%s: out of memory",
						   objs[i].path);
		}
		if (k)
			bc_deps_kernel_deinit(&pair[1]);
	}
	bc_deps_kernel_deinit(&pair[0]);
	return err;
}

/*
 * --save: the one kernel of --kernel written as a saved kernel file. A
 * file is read with everything it can tell (symbols, inlined functions);
 * ARCHIVE:NAME (or an archive of one kernel) is read whole from the
 * archive, its attachments and modules with it, and keeps its name.
 */
static int save_kernel(const struct deps_args *a, const struct bc_log *log)
{
	struct bc_kernel_list kl = { 0 };
	struct bc_deps_kernel kernel;
	const struct bc_kernel_src *src;
	int err = bc_kernel_list_add(&kl, a->kernels[0], a->kconfigs[0], log);

	if (!err && kl.nr != 1)
		err = bc_log_error(log, -EINVAL,
				   "--save %s: %s is %u kernels; --save writes one (ARCHIVE:NAME)",
				   a->save, a->kernels[0], kl.nr);
	if (err)
		goto out;
	src = &kl.srcs[0];
	err = bc_kernel_src_load(src, true, true, &kernel, log);
	if (err)
		goto out;
	kernel.name = src->name ? src->name :
		      src->ar ? bc_archive_kernel_name(src->ar, src->idx) : NULL;
	err = bc_deps_kernel_save(&kernel, a->save, log);
	bc_deps_kernel_deinit(&kernel);
out:
	bc_kernel_list_deinit(&kl);
	return err;
}

int bc_cmd_deps(int argc, char **argv, const struct bc_log *log)
{
	struct bc_deps_report *reports = NULL;
	struct bc_bpf_object *objs = NULL;
	struct bc_kernel_list kl = { 0 };
	char **labels = NULL, **kconfigs = NULL;
	struct deps_args a;
	struct bc_text out;
	int i, k, nr_objs = 0, status = 2;
	bool breaks = false, want_inlines = false;

	bc_text_init(&out);
	/*
	 * Kernels come and go one at a time, each in buffers of megabytes:
	 * keep them in the heap for the next one instead of unmapping and
	 * faulting them in again (0.77x the CPU over 118 kernels).
	 */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
	if (parse_deps_args(argc, argv, &a))
		goto out;
	if (a.save) {
		if (!save_kernel(&a, log))
			status = 0;
		goto out;
	}
	objs = calloc(a.nr_objects, sizeof(*objs));
	reports = calloc(a.nr_objects, sizeof(*reports));
	if (!objs || !reports) {
		bc_log_error(log, -ENOMEM, "out of memory");
		goto out;
	}
	/*
	 * Objects first: one that is no BPF object stops the run before any
	 * kernel is read; one libbpf refuses at open is reported (refused).
	 */
	for (i = 0; i < a.nr_objects; i++, nr_objs++) {
		if (bc_bpf_object_load_any(a.objects[i], &objs[i], log))
			goto out;
	}
	if (set_attach_targets(&a, objs, nr_objs, log))
		goto out;
	for (i = 0; i < nr_objs; i++)
		want_inlines |= bc_deps_wants_inlines(&objs[i]);
	for (k = 0; k < a.nr_kernels; k++)
		if (bc_kernel_list_add(&kl, a.kernels[k], a.kconfigs[k], log))
			goto out;
	labels = calloc(kl.nr, sizeof(*labels));
	kconfigs = calloc(kl.nr, sizeof(*kconfigs));
	if (!labels || !kconfigs) {
		bc_log_error(log, -ENOMEM, "out of memory");
		goto out;
	}
	for (k = 0; k < (int)kl.nr; k++) {
		labels[k] = kl.srcs[k].label;
		kconfigs[k] = (char *)kl.srcs[k].kconfig;
	}
	if (check_all(objs, nr_objs, &kl, want_inlines, reports, log))
		goto out;
	/*
	 * Every input was read and checked above, so what is left can only
	 * fail for want of memory or of a working stdout: each object's
	 * report is written as it is made rather than all of them held (22
	 * MB of JSON for 55 objects x 118 kernels).
	 */
	for (i = 0; i < nr_objs; i++) {
		struct bc_deps_report *r = &reports[i];
		uint32_t d;

		r->object = a.objects[i];
		if (objs[i].refused)
			breaks = true;
		for (d = 0; d < r->nr_deps; d++) {
			enum bc_dep_consequence c = bc_dep_worst(&r->deps[d],
								 r->nr_kernels);

			if (c == BC_CONS_ERROR || c == BC_CONS_WRONG_DATA)
				breaks = true;
		}
		if (a.json)
			print_json(r, &objs[i], labels, &out);
		else
			print_text(r, &objs[i], labels, kconfigs, a.all, a.color,
				   &out);
		if (out.err) {
			bc_log_error(log, out.err, "out of memory");
			goto out;
		}
		if (bc_file_write_atomic("-", bc_text_str(&out), out.len, log))
			goto out;
		bc_text_truncate(&out, 0);
	}
	status = breaks ? 1 : 0;
out:
	if (reports)
		for (i = 0; i < nr_objs; i++)
			bc_deps_report_deinit(&reports[i]);
	for (i = 0; i < nr_objs; i++)
		bc_bpf_object_deinit(&objs[i]);
	free(reports);
	free(objs);
	free(labels);
	free(kconfigs);
	bc_kernel_list_deinit(&kl);
	free(a.kernels);
	free(a.kconfigs);
	free(a.objects);
	free(a.attach);
	bc_text_deinit(&out);
	return status;
}
