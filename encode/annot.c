// SPDX-License-Identifier: GPL-2.0-only
/*
 * BTF annotations in DWARF, clang's and GCC's (see annot.h).
 *
 * The problem: one annotation has two encodings, children (clang) and an
 * attribute chain (GCC), and the callers (types in cu_encoder.c,
 * functions and variables in funcs.c) must not care which. The walks here
 * only read the DIEs; a GCC chain is followed at most ANNOT_CHAIN_MAX
 * links, so a reference loop in broken DWARF ends with -ELOOP. Cost: one
 * pass over the DIE's children and one attribute lookup per link.
 */
#include <errno.h>
#include <string.h>
#include <dwarf.h>

#include "annot.h"

static const char *annot_name(Dwarf_Die *annot)
{
	const char *name = dwarf_diename(annot);

	return name ? name : "";
}

static const char *annot_value(Dwarf_Die *annot)
{
	Dwarf_Attribute mem;

	if (!dwarf_attr(annot, DW_AT_const_value, &mem))
		return NULL;
	return dwarf_formstring(&mem);
}

/*
 * The next link of a GCC chain from die (the annotated DIE or a link).
 * dwarf_hasattr reads only the abbreviation: most DIEs say no there,
 * without a scan of their attributes.
 */
static bool chain_next(Dwarf_Die *die, Dwarf_Die *next)
{
	Dwarf_Attribute mem;

	return dwarf_hasattr(die, DW_AT_GNU_annotation) &&
	       dwarf_attr(die, DW_AT_GNU_annotation, &mem) &&
	       dwarf_formref_die(&mem, next) &&
	       dwarf_tag(next) == DW_TAG_GNU_annotation;
}

int annot_decl_tags(Dwarf_Die *die, annot_fn fn, void *ctx)
{
	Dwarf_Die child, link, *at = die;
	uint32_t steps = 0;
	int err;

	if (dwarf_haschildren(die) && !dwarf_child(die, &child)) {
		do {
			if (!annot_is_tag(dwarf_tag(&child)) ||
			    strcmp(annot_name(&child), "btf_decl_tag"))
				continue;
			err = fn(ctx, &child, annot_value(&child));
			if (err)
				return err;
		} while (!dwarf_siblingof(&child, &child));
	}
	while (chain_next(at, &link)) {
		if (++steps > ANNOT_CHAIN_MAX)
			return -ELOOP;
		if (!strcmp(annot_name(&link), "btf_decl_tag")) {
			err = fn(ctx, &link, annot_value(&link));
			if (err)
				return err;
		}
		child = link;
		at = &child;
	}
	return 0;
}

int annot_type_tags(Dwarf_Die *die, const char **values, uint32_t cap)
{
	Dwarf_Die child, link, *at = die;
	uint32_t n = 0, i;

	if (dwarf_haschildren(die) && !dwarf_child(die, &child)) {
		do {
			if (!annot_is_tag(dwarf_tag(&child)) ||
			    strcmp(annot_name(&child), "btf_type_tag"))
				continue;
			if (n < cap)
				values[n] = annot_value(&child);
			n++;
		} while (!dwarf_siblingof(&child, &child));
	}
	if (n) {
		/* source order to BTF order */
		for (i = 0; n <= cap && i < n / 2; i++) {
			const char *v = values[i];

			values[i] = values[n - 1 - i];
			values[n - 1 - i] = v;
		}
		return n;
	}
	while (chain_next(at, &link)) {
		if (n >= ANNOT_CHAIN_MAX)
			return -ELOOP;
		if (strcmp(annot_name(&link), "btf_type_tag"))
			break;
		if (n < cap)
			values[n] = annot_value(&link);
		n++;
		child = link;
		at = &child;
	}
	return n;
}
