// SPDX-License-Identifier: GPL-2.0-only
/*
 * The inlined functions of a kernel, from its DWARF.
 *
 * Problem: a kprobe attaches to a symbol; the calls the compiler inlined
 * have none. The symbol table alone cannot tell "never existed" from
 * "inlined everywhere", nor see the inlined calls next to an out-of-line
 * copy. DWARF can: every inlined call is a DW_TAG_inlined_subroutine whose
 * DW_AT_abstract_origin leads to the function's name.
 * Invariant: the set holds a name exactly when some inlined_subroutine of
 * some unit resolves to it (through abstract origins and specifications).
 * Cost: one walk over every DIE of .debug_info, reading one attribute of
 * the inlined_subroutine DIEs only; a hash set of names. On Debian's
 * 6.12 vmlinux this is a few seconds, well under an encode.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inline_facts.h"

struct bc_inline_facts {
	const char **slots;	/* open addressing, NULL = empty */
	size_t cap, nr;
	bool borrowed;		/* names are the caller's, not copies */
};

static uint64_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static int set_add(struct bc_inline_facts *f, const char *name)
{
	size_t i;

	if ((f->nr + 1) * 2 > f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 1024, k;
		const char **slots = calloc(cap, sizeof(*slots));

		if (!slots)
			return -ENOMEM;
		for (k = 0; k < f->cap; k++) {
			if (!f->slots[k])
				continue;
			i = name_hash(f->slots[k]) & (cap - 1);
			while (slots[i])
				i = (i + 1) & (cap - 1);
			slots[i] = f->slots[k];
		}
		free(f->slots);
		f->slots = slots;
		f->cap = cap;
	}
	i = name_hash(name) & (f->cap - 1);
	while (f->slots[i]) {
		if (!strcmp(f->slots[i], name))
			return 0;
		i = (i + 1) & (f->cap - 1);
	}
	f->slots[i] = f->borrowed ? name : strdup(name);
	if (!f->slots[i])
		return -ENOMEM;
	f->nr++;
	return 0;
}

bool bc_inline_facts_has(const struct bc_inline_facts *f, const char *name)
{
	size_t i;

	if (!f || !f->cap)
		return false;
	i = name_hash(name) & (f->cap - 1);
	while (f->slots[i]) {
		if (!strcmp(f->slots[i], name))
			return true;
		i = (i + 1) & (f->cap - 1);
	}
	return false;
}

size_t bc_inline_facts_count(const struct bc_inline_facts *f)
{
	return f ? f->nr : 0;
}

void bc_inline_facts_free(struct bc_inline_facts *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->cap && !f->borrowed; i++)
		free((char *)f->slots[i]);
	free(f->slots);
	free(f);
}

struct bc_inline_facts *bc_inline_facts_new(void)
{
	return calloc(1, sizeof(struct bc_inline_facts));
}

struct bc_inline_facts *bc_inline_facts_new_borrowing(size_t expected)
{
	struct bc_inline_facts *f = calloc(1, sizeof(*f));
	size_t cap = 1024;

	if (!f)
		return NULL;
	while (cap < expected * 2 + 2)
		cap *= 2;
	f->slots = calloc(cap, sizeof(*f->slots));
	if (!f->slots) {
		free(f);
		return NULL;
	}
	f->cap = cap;
	f->borrowed = true;
	return f;
}

int bc_inline_facts_add(struct bc_inline_facts *f, const char *name)
{
	return set_add(f, name);
}

static int str_ptr_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

const char **bc_inline_facts_sorted(const struct bc_inline_facts *f, size_t *n)
{
	const char **names;
	size_t i, k = 0;

	*n = 0;
	if (!f || !f->nr)
		return NULL;
	names = malloc(f->nr * sizeof(*names));
	if (!names)
		return NULL;
	for (i = 0; i < f->cap; i++)
		if (f->slots[i])
			names[k++] = f->slots[i];
	qsort(names, k, sizeof(*names), str_ptr_cmp);
	*n = k;
	return names;
}

/* The name an inlined_subroutine stands for, or NULL. */
static const char *inlined_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	Dwarf_Die origin;
	const char *name;

	if (!dwarf_attr(die, DW_AT_abstract_origin, &attr) ||
	    !dwarf_formref_die(&attr, &origin))
		return NULL;
	/* follows abstract_origin and specification to the name */
	name = dwarf_formstring(dwarf_attr_integrate(&origin, DW_AT_name, &attr));
	return name;
}

/* Every DIE under die, iteratively (depth is unbounded in hostile input). */
static int walk_unit(Dwarf_Die *cu, struct bc_inline_facts *f)
{
	Dwarf_Die stack[256];
	int depth = 0, err;

	if (dwarf_child(cu, &stack[0]) != 0)
		return 0;
	for (;;) {
		Dwarf_Die *die = &stack[depth];

		if (dwarf_tag(die) == DW_TAG_inlined_subroutine) {
			const char *name = inlined_name(die);

			if (name) {
				err = set_add(f, name);
				if (err)
					return err;
			}
		}
		if (dwarf_haschildren(die) && depth + 1 < 256 &&
		    dwarf_child(die, &stack[depth + 1]) == 0) {
			depth++;
			continue;
		}
		while (dwarf_siblingof(&stack[depth], &stack[depth]) != 0) {
			if (depth == 0)
				return 0;
			depth--;
		}
	}
}

/* True for a relocatable object, whose DWARF needs its relocations. */
static bool is_relocatable(int fd)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	GElf_Ehdr eh;
	bool rel = elf && gelf_getehdr(elf, &eh) && eh.e_type == ET_REL;

	if (elf)
		elf_end(elf);
	return rel;
}

int bc_inline_facts_load(const char *path, struct bc_inline_facts **out,
			 const struct bc_log *log)
{
	static const Dwfl_Callbacks callbacks = {
		.find_debuginfo = dwfl_standard_find_debuginfo,
		.section_address = dwfl_offline_section_address,
	};
	struct bc_inline_facts *f;
	Dwarf_Off off = 0, next;
	Dwfl *dwfl = NULL;
	Dwarf_Addr bias;
	size_t hsize;
	Dwarf *dw;
	int fd, err = 0;

	*out = NULL;
	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return bc_log_error(log, -errno, "%s: %s", path, strerror(errno));
	if (is_relocatable(fd)) {
		/* libdwfl applies the relocations (string offsets, refs) */
		Dwfl_Module *mod;

		dwfl = dwfl_begin(&callbacks);
		if (!dwfl) {
			close(fd);
			return bc_log_error(log, -ENOMEM, "%s: out of memory", path);
		}
		mod = dwfl_report_offline(dwfl, path, path, fd);	/* owns fd */
		dw = mod && !dwfl_report_end(dwfl, NULL, NULL) ?
		     dwfl_module_getdwarf(mod, &bias) : NULL;
		fd = -1;
	} else {
		dw = dwarf_begin(fd, DWARF_C_READ);
	}
	if (!dw) {
		if (dwfl)
			dwfl_end(dwfl);
		if (fd >= 0)
			close(fd);
		return 0;	/* no DWARF: nothing known */
	}
	f = calloc(1, sizeof(*f));
	if (!f) {
		err = bc_log_error(log, -ENOMEM, "%s: out of memory", path);
		goto out;
	}
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(dw, off + hsize, &cu)) {
			err = walk_unit(&cu, f);
			if (err) {
				err = bc_log_error(log, err, "%s: out of memory", path);
				goto out;
			}
		}
		off = next;
	}
	*out = f;
	f = NULL;
out:
	bc_inline_facts_free(f);
	if (dwfl) {
		dwfl_end(dwfl);
	} else {
		dwarf_end(dw);
		close(fd);
	}
	return err;
}
