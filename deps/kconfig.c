// SPDX-License-Identifier: GPL-2.0-only
/*
 * A kernel's configuration, read for the kconfig externs of BPF objects.
 *
 * Problem: libbpf fills `extern T CONFIG_X __kconfig` from the running
 * kernel's config at load time; deps checks an object against kernels
 * that do not run here, so the config comes from a file the user names.
 * libbpf's rules, as facts (libbpf 1.1, bpf_object__process_kconfig_line
 * and set_kcfg_value_*):
 *	- a line counts when it starts with CONFIG_; it must hold '=' and a
 *	  value after it; the first line of a name wins;
 *	- the value's first character decides: y, n, m is a tristate letter
 *	  (a bool extern takes y and n, a tristate all three, a char the
 *	  letter itself); '"' a string (a char array, which must be closed
 *	  by '"'; a longer one is truncated); anything else an integer
 *	  (strtoull, base 0, all of it) for an int or char extern, which
 *	  must fit the extern's size (signed or unsigned);
 *	- the extern's type: bool (1-byte INT with the BOOL encoding), char
 *	  (1-byte INT), int (2, 4, 8 bytes), enum libbpf_tristate, char[N];
 *	  any other type libbpf refuses.
 * Invariant: entries sorted by name, one per name (the first), so that
 * a lookup is a binary search and a saved copy's bytes depend on the
 * config only.
 * Cost: one pass over the text and one sort of its CONFIG_ lines.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../canon/btf_kinds.h"
#include "../canon/types.h"
#include "kconfig.h"

struct line_entry {
	struct bc_kconfig_entry e;
	size_t line;		/* for first-wins among equal names */
};

static int entry_cmp(const void *a, const void *b)
{
	const struct line_entry *x = a, *y = b;
	int c = strcmp(x->e.name, y->e.name);

	if (c)
		return c;
	return x->line < y->line ? -1 : x->line > y->line;
}

int bc_kconfig_parse(const char *data, size_t size, const char *path,
		     struct bc_kconfig **out, const struct bc_log *log)
{
	struct line_entry *lines = NULL;
	struct bc_kconfig *kc;
	size_t nr = 0, cap = 0, lineno = 0, i;
	char *p, *end;
	int err = 0;

	*out = NULL;
	if (size >= 2 && (uint8_t)data[0] == 0x1f && (uint8_t)data[1] == 0x8b)
		return bc_log_error(log, -EINVAL,
				    "%s: a gzip file: give the config uncompressed (zcat)",
				    path);
	if (memchr(data, '\0', size))
		return bc_log_error(log, -EINVAL,
				    "%s: not a kernel config (a NUL byte)", path);
	kc = calloc(1, sizeof(*kc));
	if (!kc || !(kc->text = malloc(size + 1))) {
		free(kc);
		return bc_log_error(log, -ENOMEM, "%s: out of memory", path);
	}
	memcpy(kc->text, data, size);
	kc->text[size] = '\0';
	for (p = kc->text; *p; p = end) {
		char *nl = strchr(p, '\n'), *eq;

		/* only '\n' ends a line, as for libbpf ("\r" stays in a value) */
		end = nl ? nl + 1 : p + strlen(p);
		if (nl)
			*nl = '\0';
		lineno++;
		if (strncmp(p, "CONFIG_", 7))
			continue;
		eq = strchr(p, '=');
		if (!eq || !eq[1]) {
			err = bc_log_error(log, -EINVAL,
					   "%s:%zu: '%s': %s (libbpf refuses it)",
					   path, lineno, p,
					   eq ? "no value" : "no '='");
			goto fail;
		}
		*eq = '\0';
		if (nr == cap) {
			struct line_entry *grown;

			cap = cap ? cap * 2 : 256;
			grown = realloc(lines, cap * sizeof(*lines));
			if (!grown)
				goto nomem;
			lines = grown;
		}
		lines[nr].e.name = p;
		lines[nr].e.value = eq + 1;
		lines[nr].line = lineno;
		nr++;
	}
	if (nr)
		qsort(lines, nr, sizeof(*lines), entry_cmp);
	kc->entries = malloc((nr ? nr : 1) * sizeof(*kc->entries));
	if (!kc->entries)
		goto nomem;
	for (i = 0; i < nr; i++)
		if (!i || strcmp(lines[i - 1].e.name, lines[i].e.name))
			kc->entries[kc->nr++] = lines[i].e;
	free(lines);
	*out = kc;
	return 0;
nomem:
	err = bc_log_error(log, -ENOMEM, "%s: out of memory", path);
fail:
	free(lines);
	bc_kconfig_free(kc);
	return err;
}

int bc_kconfig_load(const char *path, struct bc_kconfig **out,
		    const struct bc_log *log)
{
	FILE *f = fopen(path, "rb");
	char *data = NULL;
	size_t size = 0, cap = 0, n;
	int err;

	*out = NULL;
	if (!f)
		return bc_log_error(log, -errno, "%s: %s", path, strerror(errno));
	do {
		if (cap - size < 65536) {
			char *grown = realloc(data, cap = cap * 2 + 65536);

			if (!grown) {
				free(data);
				fclose(f);
				return bc_log_error(log, -ENOMEM, "%s: out of memory",
						    path);
			}
			data = grown;
		}
		n = fread(data + size, 1, cap - size, f);
		size += n;
	} while (n);
	if (ferror(f)) {
		err = bc_log_error(log, -EIO, "%s: cannot read", path);
		fclose(f);
		free(data);
		return err;
	}
	fclose(f);
	err = bc_kconfig_parse(data, size, path, out, log);
	free(data);
	return err;
}

void bc_kconfig_free(struct bc_kconfig *kc)
{
	if (!kc)
		return;
	free(kc->entries);
	free(kc->text);
	free(kc);
}

const char *bc_kconfig_get(const struct bc_kconfig *kc, const char *name)
{
	size_t lo = 0, hi = kc->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(kc->entries[mid].name, name);

		if (!c)
			return kc->entries[mid].value;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* ---- libbpf's extern types and values ---------------------------------- */

enum kcfg_type {
	KCFG_UNKNOWN,
	KCFG_CHAR,
	KCFG_BOOL,
	KCFG_INT,
	KCFG_TRISTATE,
	KCFG_CHAR_ARR,
};

struct kcfg_desc {
	enum kcfg_type type;
	uint32_t size;
	bool is_signed;
};

static struct kcfg_desc kcfg_type_of(const struct bc_btf *btf, uint32_t id)
{
	struct kcfg_desc d = { KCFG_UNKNOWN, 0, false };
	const struct btf_type *t = bc_skip_mods(btf, &id, true);
	const char *name;

	if (!t)
		return d;
	name = bc_btf_str(btf, t->name_off);
	switch (bc_type_kind(t)) {
	case BTF_KIND_INT: {
		uint32_t enc = BTF_INT_ENCODING(*(const uint32_t *)(t + 1));

		d.size = t->size;
		if (enc & BTF_INT_BOOL) {
			d.type = t->size == 1 ? KCFG_BOOL : KCFG_UNKNOWN;
			return d;
		}
		d.is_signed = enc & BTF_INT_SIGNED;
		if (t->size == 1)
			d.type = KCFG_CHAR;
		else if (t->size == 2 || t->size == 4 || t->size == 8)
			d.type = KCFG_INT;
		return d;
	}
	case BTF_KIND_ENUM:
		if (t->size == 4 && !strcmp(name, "libbpf_tristate"))
			d.type = KCFG_TRISTATE;
		d.size = t->size;
		return d;
	case BTF_KIND_ENUM64:
		if (!strcmp(name, "libbpf_tristate"))
			d.type = KCFG_TRISTATE;
		d.size = t->size;
		return d;
	case BTF_KIND_ARRAY: {
		const struct btf_array *a = (const void *)(t + 1);

		if (a->nelems && kcfg_type_of(btf, a->type).type == KCFG_CHAR) {
			d.type = KCFG_CHAR_ARR;
			d.size = a->nelems;
		}
		return d;
	}
	default:
		return d;
	}
}

/* libbpf's is_kcfg_value_in_range(). */
static bool in_range(const struct kcfg_desc *d, uint64_t v)
{
	uint32_t bits = d->size * 8;

	if (d->size == 8)
		return true;
	if (d->is_signed)
		return v + (1ULL << (bits - 1)) < (1ULL << bits);
	return (v >> bits) == 0;
}

int bc_kconfig_check_value(const struct bc_btf *btf, uint32_t type_id,
			   const char *value, char *why, size_t why_size)
{
	struct kcfg_desc d = kcfg_type_of(btf, type_id);
	unsigned long long num;
	char *num_end;
	size_t len;

	why[0] = '\0';
	if (d.type == KCFG_UNKNOWN) {
		snprintf(why, why_size, "the extern's type is not one libbpf supports");
		return -EINVAL;
	}
	switch (value[0]) {
	case 'y':
	case 'n':
	case 'm':
		if (d.type == KCFG_BOOL && value[0] == 'm') {
			snprintf(why, why_size, "value 'm' implies tristate or char type");
			return -EINVAL;
		}
		if (d.type != KCFG_BOOL && d.type != KCFG_TRISTATE &&
		    d.type != KCFG_CHAR) {
			snprintf(why, why_size, "value '%c' implies bool, tristate, or char type",
				 value[0]);
			return -EINVAL;
		}
		return 0;
	case '"':
		len = strlen(value);
		if (d.type != KCFG_CHAR_ARR) {
			snprintf(why, why_size, "value %s implies char array type", value);
			return -EINVAL;
		}
		if (len < 2 || value[len - 1] != '"') {
			snprintf(why, why_size, "invalid string config %s", value);
			return -EINVAL;
		}
		if (len - 2 >= d.size)
			snprintf(why, why_size, "string of %zu bytes truncated to %u",
				 len - 2, d.size - 1);
		return 0;
	default:
		errno = 0;
		num = strtoull(value, &num_end, 0);
		if (errno || *num_end) {
			snprintf(why, why_size, "value '%s' isn't a valid integer", value);
			return -EINVAL;
		}
		if (d.type != KCFG_INT && d.type != KCFG_CHAR) {
			snprintf(why, why_size, "value '%s' implies integer type", value);
			return -EINVAL;
		}
		if (!in_range(&d, num)) {
			snprintf(why, why_size, "value '%s' doesn't fit in %u bytes",
				 value, d.size);
			return -EINVAL;
		}
		return 0;
	}
}
