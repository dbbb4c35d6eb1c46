// SPDX-License-Identifier: GPL-2.0-only
/*
 * What libbpf 1.1 refuses when it opens an object (bpf_object__open).
 *
 * Problem: an object libbpf will not open never loads, on any kernel;
 * `deps` must say so, with libbpf's reason, and not as if it could load.
 * The reader (bpf_object.c) takes far more than libbpf does, so its
 * acceptance says nothing here. A refusal is kept with the object for
 * deps (bc_bpf_object_load_any(): a row "refused at open" with libbpf's
 * reason, its dependencies told as if it opened) or is an error (min).
 * Example: bcc's sigsnoop.bpf.c calls bpf_ksym_exists(), which Debian's
 * libbpf 1.1 headers do not define; clang makes it an implicit extern
 * function with no BTF, and libbpf stops at "failed to find BTF for
 * extern 'bpf_ksym_exists'".
 *
 * The rules, in libbpf 1.1.2's order (libbpf.c, taken as facts):
 *  1. the ELF file: a relocatable object (ET_REL), one symbol table;
 *  2. its sections, ignored ones skipped as libbpf skips them (string
 *     tables, address-significance tables, an empty .text, DWARF and the
 *     relocations of DWARF, .BTF and .BTF.ext): a license section with
 *     bytes, a 4-byte version section, no legacy "maps" section, .BTF and
 *     .BTF.ext of type PROGBITS, no static program outside .text,
 *     relocation sections with Elf64_Rel entries aimed at a section that
 *     exists, a symbol table whose strings exist;
 *  3. externs (undefined global or weak NOTYPE symbols): each has a VAR
 *     or FUNC of its name with extern linkage in .BTF, inside a DATASEC
 *     that is .ksyms or .kconfig; a .kconfig extern is a variable of a
 *     type libbpf fills (bool, char, an integer of 1-8 bytes, the
 *     libbpf_tristate enum, a char array); every entry of those DATASECs
 *     is an extern of the symbol table;
 *  4. DATASECs of data: their size known (from the ELF section of their
 *     name when 0), each global variable in them a global or weak
 *     STT_OBJECT symbol;
 *  5. .maps: its DATASEC exists; each map a named, global, allocated
 *     variable of a struct type whose members are fields libbpf knows,
 *     integer fields spelled as pointers to arrays, key and value as
 *     pointers to a sized type, and a map type;
 *  6. relocations of program instructions: only on calls and 64-bit
 *     loads; calls to .text functions; loads of a map of .maps, of a
 *     global variable of a data section (.data*, .rodata*, .bss*), of an
 *     extern or of a .text function's address.
 * What it leaves out: map-in-map definitions ("values"), struct_ops
 * maps (deps checks those against the kernel), and what libbpf checks at
 * load (unknown program sections, the kernel's answers).
 * Cost: passes over the section headers, the symbol table, the relocations
 * and the object's BTF, each linear but for name lookups (externs by
 * symbol name: objects have tens of them).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <linux/bpf.h>

#include "../canon/btf_kinds.h"
#include "../canon/types.h"
#include "bpf_elf.h"

#ifndef SHT_LLVM_ADDRSIG
#define SHT_LLVM_ADDRSIG 0x6FFF4C03
#endif

struct open_check {
	const char *path;
	const struct elf_view *v;
	const struct bc_bpf_object *obj;
	char why[320];			/* libbpf's reason, once refused */
	uint32_t symtab;		/* section index of the symbol table */
	const Elf64_Sym *syms;
	size_t nr_syms;
	const char *strs;
	size_t strs_size;
	uint32_t text;			/* .text with bytes, or 0 */
	uint32_t maps;			/* .maps, or 0 */
};

/* Keeps libbpf's reason in c->why; returns err. */
static int refuse(struct open_check *c, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int refuse(struct open_check *c, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->why, sizeof(c->why), fmt, ap);
	va_end(ap);
	return err;
}

static const char *sym_name(const struct open_check *c, const Elf64_Sym *s)
{
	if (s->st_name >= c->strs_size ||
	    !memchr(c->strs + s->st_name, '\0', c->strs_size - s->st_name))
		return NULL;
	return c->strs + s->st_name;
}

/* libbpf's sym_is_extern(): undefined, global or weak, no type. */
static bool sym_is_extern(const Elf64_Sym *s)
{
	unsigned char bind = ELF64_ST_BIND(s->st_info);

	return s->st_shndx == SHN_UNDEF &&
	       (bind == STB_GLOBAL || bind == STB_WEAK) &&
	       ELF64_ST_TYPE(s->st_info) == STT_NOTYPE;
}

static bool is_dwarf_name(const char *name)
{
	return !strncmp(name, ".debug_", 7);
}

/* libbpf's ignore_elf_section(). */
static bool ignored_section(const Elf64_Shdr *sh, const char *name)
{
	if (sh->sh_type == SHT_STRTAB || sh->sh_type == SHT_LLVM_ADDRSIG)
		return true;
	if (sh->sh_type == SHT_PROGBITS && sh->sh_size == 0 &&
	    !strcmp(name, ".text"))
		return true;
	if (is_dwarf_name(name))
		return true;
	if (!strncmp(name, ".rel", 4)) {
		name += 4;
		if (is_dwarf_name(name) || !strcmp(name, ".BTF") ||
		    !strcmp(name, ".BTF.ext"))
			return true;
	}
	return false;
}

static bool is_exec_section(const Elf64_Shdr *sh)
{
	return sh->sh_type == SHT_PROGBITS && (sh->sh_flags & SHF_EXECINSTR) &&
	       sh->sh_size > 0;
}

/* .data*, .rodata*, .bss*: the sections libbpf makes global data maps of. */
static bool is_data_section(const Elf64_Shdr *sh, const char *name)
{
	if (sh->sh_type == SHT_PROGBITS && sh->sh_size > 0 &&
	    !(sh->sh_flags & SHF_EXECINSTR))
		return !strcmp(name, ".data") || !strncmp(name, ".data.", 6) ||
		       !strcmp(name, ".rodata") || !strncmp(name, ".rodata.", 8);
	if (sh->sh_type == SHT_NOBITS)
		return !strcmp(name, ".bss") || !strncmp(name, ".bss.", 5);
	return false;
}

/* 1 and 2: the file and its sections (bpf_object__elf_init, elf_collect). */
static int check_sections(struct open_check *c)
{
	const struct elf_view *v = c->v;
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)v->image;
	uint32_t i, nr_symtabs = 0, strtab;

	if (eh->e_type != ET_REL)
		return refuse(c, -EINVAL, "elf: %s is not a valid eBPF object file",
			      c->path);
	for (i = 1; i < v->shnum; i++)
		if (v->shdrs[i].sh_type == SHT_SYMTAB) {
			nr_symtabs++;
			c->symtab = i;
		}
	if (nr_symtabs > 1)
		return refuse(c, -EINVAL, "elf: multiple symbol tables in %s",
			      c->path);
	/* the reader checked the one table and its strings */
	c->syms = (const Elf64_Sym *)section_data(v, c->symtab);
	c->nr_syms = v->shdrs[c->symtab].sh_size / sizeof(Elf64_Sym);
	strtab = v->shdrs[c->symtab].sh_link;
	c->strs = (const char *)section_data(v, strtab);
	c->strs_size = v->shdrs[strtab].sh_size;
	for (i = 1; i < v->shnum; i++) {
		const Elf64_Shdr *sh = &v->shdrs[i];
		const char *name = section_name(v, i);

		if (ignored_section(sh, name))
			continue;
		if (!strcmp(name, "license")) {
			if (sh->sh_type == SHT_NOBITS)
				return refuse(c, -EINVAL,
					      "invalid license section in %s",
					      c->path);
		} else if (!strcmp(name, "version")) {
			if (sh->sh_type == SHT_NOBITS || sh->sh_size != 4)
				return refuse(c, -EINVAL,
					      "invalid kver section in %s",
					      c->path);
		} else if (!strcmp(name, "maps")) {
			return refuse(c, -EOPNOTSUPP,
				      "elf: legacy map definitions in 'maps' section are not supported by libbpf v1.0+");
		} else if (!strcmp(name, ".maps")) {
			c->maps = i;
		} else if (!strcmp(name, ".BTF") || !strcmp(name, ".BTF.ext")) {
			if (sh->sh_type != SHT_PROGBITS)
				return refuse(c, -EINVAL,
					      "section %s is of type %u, not PROGBITS",
					      name, sh->sh_type);
		} else if (is_exec_section(sh)) {
			size_t s;

			if (!strcmp(name, ".text"))
				c->text = i;
			for (s = 0; s < c->nr_syms && strcmp(name, ".text"); s++) {
				const Elf64_Sym *sym = &c->syms[s];
				const char *prog = sym_name(c, sym);

				if (sym->st_shndx != i ||
				    ELF64_ST_TYPE(sym->st_info) != STT_FUNC ||
				    ELF64_ST_BIND(sym->st_info) != STB_LOCAL)
					continue;
				return refuse(c, -EOPNOTSUPP,
					      "sec '%s': program '%s' is static and not supported",
					      name, prog ? prog : "?");
			}
		} else if (sh->sh_type == SHT_REL) {
			if (sh->sh_entsize != sizeof(Elf64_Rel) ||
			    sh->sh_info >= v->shnum)
				return refuse(c, -EINVAL,
					      "relocation section '%s' has entries of %llu bytes (not %zu) or aims at section %u of %u",
					      name, (unsigned long long)sh->sh_entsize,
					      sizeof(Elf64_Rel), sh->sh_info,
					      v->shnum);
		}
	}
	if (strtab == 0 || strtab >= v->shnum)
		return refuse(c, -EINVAL,
			      "elf: symbol strings section missing or invalid in %s",
			      c->path);
	return 0;
}

/*
 * The object's BTF as libbpf reads it: bpf_object.c gave each kfunc of
 * .ksyms a VAR of its own (named as the FUNC, of the FUNC's type), which
 * libbpf does not have. Such a VAR stands for its FUNC.
 */
static bool is_kfunc_stand_in(const struct bc_btf *btf,
			      const struct btf_type *t)
{
	const struct btf_type *f;

	if (bc_type_kind(t) != BTF_KIND_VAR)
		return false;
	f = bc_btf_type(btf, t->type);
	return f && bc_type_kind(f) == BTF_KIND_FUNC;
}

/* libbpf's find_extern_btf_id(): >0 the id, <0 its error. */
static int extern_btf_id(const struct bc_btf *btf, const char *name)
{
	uint32_t id, end = bc_btf_end_id(btf);

	for (id = 1; id < end; id++) {
		const struct btf_type *t = bc_btf_type(btf, id);
		uint32_t kind = bc_type_kind(t);

		if ((kind != BTF_KIND_VAR && kind != BTF_KIND_FUNC) ||
		    is_kfunc_stand_in(btf, t))
			continue;
		if (strcmp(bc_btf_str(btf, t->name_off), name))
			continue;
		if (kind == BTF_KIND_VAR &&
		    ((const struct btf_var *)(t + 1))->linkage !=
			    BTF_VAR_GLOBAL_EXTERN)
			return -EINVAL;
		if (kind == BTF_KIND_FUNC &&
		    bc_type_vlen(t) != BTF_FUNC_EXTERN)
			return -EINVAL;
		return (int)id;
	}
	return -ENOENT;
}

/* libbpf's find_extern_sec_btf_id(): the DATASEC that lists id, or 0. */
static uint32_t extern_datasec(const struct bc_btf *btf, uint32_t id)
{
	uint32_t sec, end = bc_btf_end_id(btf), j;

	for (sec = 1; sec < end; sec++) {
		const struct btf_type *t = bc_btf_type(btf, sec);
		const struct btf_var_secinfo *vs = (const void *)(t + 1);

		if (bc_type_kind(t) != BTF_KIND_DATASEC)
			continue;
		for (j = 0; j < bc_type_vlen(t); j++) {
			const struct btf_type *e = bc_btf_type(btf, vs[j].type);

			if (vs[j].type == id ||
			    (e && is_kfunc_stand_in(btf, e) && e->type == id))
				return sec;
		}
	}
	return 0;
}

/* libbpf's find_kcfg_type() != KCFG_UNKNOWN. */
static bool kcfg_type_ok(const struct bc_btf *btf, uint32_t id, bool want_char)
{
	const struct btf_type *t = bc_skip_mods(btf, &id, true);
	const char *name;
	uint32_t enc;

	if (!t)
		return false;
	name = bc_btf_str(btf, t->name_off);
	switch (bc_type_kind(t)) {
	case BTF_KIND_INT:
		enc = BTF_INT_ENCODING(*(const uint32_t *)(t + 1));
		if (enc & BTF_INT_BOOL)
			return !want_char && t->size == 1;
		if (t->size == 1)
			return true;
		return !want_char && t->size >= 1 && t->size <= 8 &&
		       !(t->size & (t->size - 1));
	case BTF_KIND_ENUM:
		return !want_char && t->size == 4 &&
		       !strcmp(name, "libbpf_tristate");
	case BTF_KIND_ENUM64:
		return !want_char && !strcmp(name, "libbpf_tristate");
	case BTF_KIND_ARRAY: {
		const struct btf_array *a = (const void *)(t + 1);

		return !want_char && a->nelems && kcfg_type_ok(btf, a->type, true);
	}
	default:
		return false;
	}
}

/* Has a type a size libbpf's btf__resolve_size() finds (> 0)? */
static bool has_size(const struct bc_btf *btf, uint32_t id)
{
	const struct btf_type *t = bc_skip_mods(btf, &id, true);

	if (!t)
		return false;
	switch (bc_type_kind(t)) {
	case BTF_KIND_INT:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_FLOAT:
		return t->size > 0;
	case BTF_KIND_PTR:
		return true;
	case BTF_KIND_ARRAY: {
		const struct btf_array *a = (const void *)(t + 1);

		return a->nelems > 0 && has_size(btf, a->type);
	}
	default:
		return false;
	}
}

static bool is_extern_name(const struct open_check *c, const char *name)
{
	size_t s;

	for (s = 0; s < c->nr_syms; s++) {
		const char *n;

		if (!sym_is_extern(&c->syms[s]))
			continue;
		n = sym_name(c, &c->syms[s]);
		if (n && !strcmp(n, name))
			return true;
	}
	return false;
}

/* Every entry of an extern DATASEC is an extern of the symbol table. */
static int check_extern_datasec(struct open_check *c, uint32_t sec)
{
	const struct bc_btf *btf = c->obj->btf;
	const struct btf_type *t = bc_btf_type(btf, sec);
	const struct btf_var_secinfo *vs = (const void *)(t + 1);
	bool ksyms = !strcmp(bc_btf_str(btf, t->name_off), ".ksyms");
	uint32_t j;

	for (j = 0; j < bc_type_vlen(t); j++) {
		const struct btf_type *e = bc_btf_type(btf, vs[j].type);
		const char *name = bc_btf_str(btf, e->name_off);

		if (is_extern_name(c, name))
			continue;
		if (ksyms)
			return refuse(c, -ESRCH,
				      "failed to find extern definition for BTF %s '%s'",
				      is_kfunc_stand_in(btf, e) ? "func" : "var",
				      name);
		return refuse(c, -ESRCH,
			      "failed to find extern definition for BTF var '%s'",
			      name);
	}
	return 0;
}

/* 3: bpf_object__collect_externs(). */
static int check_externs(struct open_check *c)
{
	const struct bc_btf *btf = c->obj->btf;
	uint32_t ksyms = 0, kconfig = 0;
	size_t s;
	int err;

	for (s = 0; s < c->nr_syms; s++) {
		const Elf64_Sym *sym = &c->syms[s];
		const struct btf_type *t, *sec;
		const char *name, *sec_name;
		uint32_t sec_id;
		int id;

		if (!sym_is_extern(sym))
			continue;
		name = sym_name(c, sym);
		if (!name || !*name)
			continue;
		id = extern_btf_id(btf, name);
		if (id <= 0)
			return refuse(c, id, "failed to find BTF for extern '%s': %d",
				      name, id);
		sec_id = extern_datasec(btf, id);
		if (!sec_id)
			return refuse(c, -ENOENT,
				      "failed to find BTF for extern '%s' [%d] section: %d",
				      name, id, -ENOENT);
		t = bc_btf_type(btf, id);
		sec = bc_btf_type(btf, sec_id);
		sec_name = bc_btf_str(btf, sec->name_off);
		if (!strcmp(sec_name, ".kconfig")) {
			kconfig = sec_id;
			if (bc_type_kind(t) == BTF_KIND_FUNC)
				return refuse(c, -EOPNOTSUPP,
					      "extern function %s is unsupported under .kconfig section",
					      name);
			if (!has_size(btf, t->type))
				return refuse(c, -EINVAL,
					      "failed to resolve size of extern (kcfg) '%s'",
					      name);
			if (!kcfg_type_ok(btf, t->type, false))
				return refuse(c, -EOPNOTSUPP,
					      "extern (kcfg) '%s': type is unsupported",
					      name);
		} else if (!strcmp(sec_name, ".ksyms")) {
			ksyms = sec_id;
		} else {
			return refuse(c, -EOPNOTSUPP,
				      "unrecognized extern section '%s'",
				      sec_name);
		}
	}
	if (ksyms && (err = check_extern_datasec(c, ksyms)))
		return err;
	if (kconfig && (err = check_extern_datasec(c, kconfig)))
		return err;
	return 0;
}

static bool is_object_symbol(const struct open_check *c, const char *name)
{
	size_t s;

	for (s = 0; s < c->nr_syms; s++) {
		const Elf64_Sym *sym = &c->syms[s];
		unsigned char bind = ELF64_ST_BIND(sym->st_info);
		const char *n;

		if (ELF64_ST_TYPE(sym->st_info) != STT_OBJECT ||
		    (bind != STB_GLOBAL && bind != STB_WEAK))
			continue;
		n = sym_name(c, sym);
		if (n && !strcmp(n, name))
			return true;
	}
	return false;
}

/* The size of the first ELF section named name, or 0. */
static uint64_t elf_section_size(const struct open_check *c, const char *name)
{
	uint32_t i;

	for (i = 1; i < c->v->shnum; i++)
		if (!strcmp(section_name(c->v, i), name))
			return c->v->shdrs[i].sh_size;
	return 0;
}

/* 4: bpf_object_fixup_btf(), the DATASECs of data. */
static int check_datasecs(struct open_check *c)
{
	const struct bc_btf *btf = c->obj->btf;
	uint32_t id, end = bc_btf_end_id(btf), j;

	for (id = 1; id < end; id++) {
		const struct btf_type *t = bc_btf_type(btf, id);
		const struct btf_var_secinfo *vs = (const void *)(t + 1);
		const char *sec;

		if (bc_type_kind(t) != BTF_KIND_DATASEC)
			continue;
		sec = bc_btf_str(btf, t->name_off);
		if (!strcmp(sec, ".kconfig") || !strcmp(sec, ".ksyms"))
			continue;
		if (t->size == 0 && elf_section_size(c, sec) == 0)
			return refuse(c, -ENOENT,
				      "sec '%s': failed to determine size from ELF",
				      sec);
		for (j = 0; j < bc_type_vlen(t); j++) {
			const struct btf_type *var = bc_btf_type(btf, vs[j].type);
			uint32_t linkage = ((const struct btf_var *)(var + 1))->linkage;
			const char *name = bc_btf_str(btf, var->name_off);

			if (linkage == BTF_VAR_STATIC ||
			    linkage == BTF_VAR_GLOBAL_EXTERN)
				continue;
			if (!is_object_symbol(c, name))
				return refuse(c, -ENOENT,
					      "sec '%s': failed to find ELF symbol for VAR '%s'",
					      sec, name);
		}
	}
	return 0;
}

/* libbpf's get_map_field_int(): a pointer to an array. */
static int check_map_int_field(struct open_check *c, const char *map,
			       const struct btf_member *m, const char *field)
{
	const struct bc_btf *btf = c->obj->btf;
	uint32_t id = m->type;
	const struct btf_type *t = bc_skip_mods(btf, &id, true);
	const struct btf_type *a;

	if (!t || bc_type_kind(t) != BTF_KIND_PTR)
		return refuse(c, -EINVAL, "map '%s': attr '%s': expected PTR, got %s",
			      map, field, t ? bc_kind_name(bc_type_kind(t)) : "void");
	a = bc_btf_type(btf, t->type);
	if (!a || bc_type_kind(a) != BTF_KIND_ARRAY)
		return refuse(c, -EINVAL, "map '%s': attr '%s': expected ARRAY, got %s",
			      map, field, a ? bc_kind_name(bc_type_kind(a)) : "void");
	return 0;
}

/* The nelems of an int field already checked, for the map type and pinning. */
static uint32_t map_int_value(const struct bc_btf *btf,
			      const struct btf_member *m)
{
	uint32_t id = m->type;
	const struct btf_type *t = bc_skip_mods(btf, &id, true);

	return ((const struct btf_array *)(bc_btf_type(btf, t->type) + 1))->nelems;
}

/* libbpf's parse_btf_map_def() of a map of .maps, strict. */
static int check_map_def(struct open_check *c, const char *map,
			 const struct btf_type *def)
{
	static const char *const int_fields[] = {
		"type", "max_entries", "map_flags", "numa_node", "key_size",
		"value_size", "pinning", "map_extra",
	};
	const struct bc_btf *btf = c->obj->btf;
	const struct btf_member *m = (const void *)(def + 1);
	uint32_t i, k, map_type = 0;
	int err;

	for (i = 0; i < bc_type_vlen(def); i++, m++) {
		const char *field = bc_btf_str(btf, m->name_off);
		bool known = false;

		for (k = 0; k < sizeof(int_fields) / sizeof(int_fields[0]); k++)
			if (!strcmp(field, int_fields[k])) {
				err = check_map_int_field(c, map, m, field);
				if (err)
					return err;
				known = true;
			}
		if (!strcmp(field, "type"))
			map_type = map_int_value(btf, m);
		if (!strcmp(field, "pinning") && map_int_value(btf, m) > 1)
			return refuse(c, -EINVAL, "map '%s': invalid pinning value %u",
				      map, map_int_value(btf, m));
		if (!strcmp(field, "key") || !strcmp(field, "value")) {
			uint32_t id = m->type;
			const struct btf_type *t = bc_skip_mods(btf, &id, true);

			if (!t || bc_type_kind(t) != BTF_KIND_PTR)
				return refuse(c, -EINVAL, "map '%s': %s spec is not PTR: %s",
					      map, field,
					      t ? bc_kind_name(bc_type_kind(t)) : "void");
			if (!has_size(btf, t->type))
				return refuse(c, -EINVAL,
					      "map '%s': can't determine %s size for type [%u]",
					      map, field, t->type);
			known = true;
		}
		if (!strcmp(field, "values"))
			known = true;	/* map-in-map, prog arrays: not checked */
		if (!known)
			return refuse(c, -EOPNOTSUPP, "map '%s': unknown field '%s'",
				      map, field);
	}
	if (map_type == 0)
		return refuse(c, -EINVAL, "map '%s': map type isn't specified",
			      map);
	return 0;
}

/* 5: bpf_object__init_user_btf_maps(), strict. */
static int check_maps(struct open_check *c)
{
	static const char *const linkages[] = { "static", "global", "extern" };
	const struct bc_btf *btf = c->obj->btf;
	const struct btf_type *sec = NULL;
	const struct btf_var_secinfo *vs;
	uint32_t id, end = bc_btf_end_id(btf), j;
	uint64_t sec_size;
	int err;

	if (!c->maps)
		return 0;
	for (id = 1; id < end && !sec; id++) {
		const struct btf_type *t = bc_btf_type(btf, id);

		if (bc_type_kind(t) == BTF_KIND_DATASEC &&
		    !strcmp(bc_btf_str(btf, t->name_off), ".maps"))
			sec = t;
	}
	if (!sec)
		return refuse(c, -ENOENT, "DATASEC '.maps' not found");
	sec_size = c->v->shdrs[c->maps].sh_size;
	vs = (const void *)(sec + 1);
	for (j = 0; j < bc_type_vlen(sec); j++) {
		const struct btf_type *var = bc_btf_type(btf, vs[j].type);
		const char *map = bc_btf_str(btf, var->name_off);
		uint32_t linkage = ((const struct btf_var *)(var + 1))->linkage;
		uint32_t def_id = var->type;
		const struct btf_type *def;

		if (!*map)
			return refuse(c, -EINVAL, "map #%u: empty name", j);
		if ((uint64_t)vs[j].offset + vs[j].size > sec_size)
			return refuse(c, -EINVAL, "map '%s' BTF data is corrupted",
				      map);
		if (linkage != BTF_VAR_GLOBAL_ALLOCATED)
			return refuse(c, -EOPNOTSUPP,
				      "map '%s': unsupported map linkage %s", map,
				      linkage < 3 ? linkages[linkage] : "unknown");
		def = bc_skip_mods(btf, &def_id, true);
		if (!def || bc_type_kind(def) != BTF_KIND_STRUCT)
			return refuse(c, -EINVAL, "map '%s': unexpected def kind %s",
				      map, def ? bc_kind_name(bc_type_kind(def)) : "void");
		if (def->size > vs[j].size)
			return refuse(c, -EINVAL, "map '%s': invalid def size", map);
		err = check_map_def(c, map, def);
		if (err)
			return err;
	}
	return 0;
}

static bool is_call(const struct bpf_insn *insn)
{
	return insn->code == (BPF_JMP | BPF_CALL);
}

static bool is_ldimm64(const struct bpf_insn *insn)
{
	return insn->code == (BPF_LD | BPF_IMM | BPF_DW);
}

/* libbpf's sym_is_subprog(): a .text function, or .text itself. */
static bool sym_is_subprog(const Elf64_Sym *sym, uint32_t text)
{
	unsigned char bind = ELF64_ST_BIND(sym->st_info);
	unsigned char type = ELF64_ST_TYPE(sym->st_info);

	if (sym->st_shndx != text)
		return false;
	if (bind == STB_LOCAL && type == STT_SECTION)
		return true;
	return bind == STB_GLOBAL && type == STT_FUNC;
}

/* One relocation of a program's instruction (bpf_program__record_reloc). */
static int check_reloc(struct open_check *c,
		       const struct bc_bpf_program *prog,
		       const struct bpf_insn *insn, uint32_t insn_idx,
		       const Elf64_Sym *sym, const char *name)
{
	const struct elf_view *v = c->v;
	uint32_t shndx = sym->st_shndx;
	const char *sec;

	if (!is_call(insn) && !is_ldimm64(insn))
		return refuse(c, -EINVAL,
			      "prog '%s': invalid relo against '%s' for insns[%u].code 0x%x",
			      prog->name, name, insn_idx, insn->code);
	if (sym_is_extern(sym))
		return 0;	/* its extern was checked */
	if (is_call(insn)) {
		if (insn->src_reg != BPF_PSEUDO_CALL)
			return refuse(c, -EINVAL,
				      "prog '%s': incorrect bpf_call opcode",
				      prog->name);
		if (!shndx || shndx != c->text)
			return refuse(c, -EINVAL,
				      "prog '%s': bad call relo against '%s' in section '%s'",
				      prog->name, name,
				      shndx && shndx < v->shnum ?
				      section_name(v, shndx) : "(null)");
		return 0;
	}
	if (!shndx || shndx >= SHN_LORESERVE)
		return refuse(c, -EINVAL,
			      "prog '%s': invalid relo against '%s' in special section 0x%x; forgot to initialize global var?..",
			      prog->name, name, shndx);
	if (c->text && sym_is_subprog(sym, c->text))
		return 0;
	sec = section_name(v, shndx);
	if (is_data_section(&v->shdrs[shndx], sec))
		return 0;
	if (shndx != c->maps || !c->maps)
		return refuse(c, -EINVAL,
			      "prog '%s': bad map relo against '%s' in section '%s'",
			      prog->name, name, sec);
	return 0;
}

/* 6: bpf_object__collect_prog_relos() for every program section. */
static int check_relocations(struct open_check *c)
{
	const struct elf_view *v = c->v;
	uint32_t i, s;

	for (i = 1; i < v->shnum; i++) {
		const Elf64_Shdr *sh = &v->shdrs[i];
		const char *name = section_name(v, i);
		const Elf64_Rel *rels;
		const struct bc_bpf_section *target = NULL;
		size_t r, nr;

		if (sh->sh_type != SHT_REL || ignored_section(sh, name))
			continue;
		for (s = 0; s < c->obj->nr_sections; s++)
			if (c->obj->sections[s].elf_index == sh->sh_info)
				target = &c->obj->sections[s];
		if (!target)
			continue;	/* .rel.maps, .rel.struct_ops, others */
		rels = (const Elf64_Rel *)section_data(v, i);
		if (!rels || sh->sh_offset % 8)
			return refuse(c, -EINVAL,
				      "sec '%s': failed to get relocations", name);
		nr = sh->sh_size / sizeof(*rels);
		for (r = 0; r < nr; r++) {
			size_t sym_idx = ELF64_R_SYM(rels[r].r_info);
			const struct bc_bpf_program *prog;
			const Elf64_Sym *sym;
			const char *sym_nm;
			uint32_t insn_idx;
			int err;

			if (sym_idx >= c->nr_syms)
				return refuse(c, -EINVAL,
					      "sec '%s': symbol #%zu not found for relo #%zu",
					      name, sym_idx, r);
			sym = &c->syms[sym_idx];
			if (sym->st_shndx >= v->shnum)
				return refuse(c, -EINVAL,
					      "sec '%s': corrupted symbol #%zu pointing to invalid section #%u for relo #%zu",
					      name, sym_idx, sym->st_shndx, r);
			if (rels[r].r_offset % 8 ||
			    rels[r].r_offset / 8 >= target->nr_insns)
				return refuse(c, -EINVAL,
					      "sec '%s': invalid offset 0x%llx for relo #%zu",
					      name,
					      (unsigned long long)rels[r].r_offset, r);
			insn_idx = rels[r].r_offset / 8;
			prog = bc_bpf_object_program_at(c->obj,
							target - c->obj->sections,
							insn_idx);
			if (!prog)
				continue;	/* libbpf skips it too */
			if (ELF64_ST_TYPE(sym->st_info) == STT_SECTION &&
			    sym->st_name == 0)
				sym_nm = section_name(v, sym->st_shndx);
			else
				sym_nm = sym_name(c, sym);
			err = check_reloc(c, prog, &target->insns[insn_idx],
					  insn_idx - prog->first_insn,
					  sym, sym_nm ? sym_nm : "<?");
			if (err)
				return err;
		}
	}
	return 0;
}

/*
 * libbpf's open rules in its order; after a refusal it checks nothing
 * more, so neither does deps. unchecked: what the rules after each one
 * would have looked at (said of a refused object as what deps cannot
 * tell).
 */
static const struct {
	int (*check)(struct open_check *c);
	const char *unchecked;
} open_rules[] = {
	{ check_sections,
	  "the rest of its sections, its externs, data sections, .maps and the relocations of its programs" },
	{ check_externs,
	  "the rest of its externs, its data sections, .maps and the relocations of its programs" },
	{ check_datasecs,
	  "the rest of its data sections, its .maps and the relocations of its programs" },
	{ check_maps, "the rest of its .maps and the relocations of its programs" },
	{ check_relocations, "the rest of the relocations of its programs" },
};

/*
 * What libbpf 1.1's bpf_object__open() refuses in an object the reader
 * took (v over obj's image, obj filled in): 0, or libbpf's negative errno
 * with libbpf's reason in c->why and *unchecked set (open_rules).
 */
static int check_open(struct open_check *c, const char **unchecked)
{
	size_t r;
	int err;

	for (r = 0; r < sizeof(open_rules) / sizeof(open_rules[0]); r++) {
		err = open_rules[r].check(c);
		if (err) {
			*unchecked = open_rules[r].unchecked;
			return err;
		}
	}
	return 0;
}

/*
 * Opening an object as libbpf does (bpf_object.h): the reader, then what
 * libbpf refuses at open; an object libbpf will not open never loads
 * anywhere. A refusal is an error, or with keep_refused the object loads
 * with libbpf's reason in obj->refused (deps reports what else it can
 * tell of it). Then the file's bytes go but for the instructions.
 */
static int open_checked(const char *path, struct bc_bpf_object *obj,
			const struct elf_view *v, bool keep_refused,
			const struct bc_log *log)
{
	struct open_check c = { .path = path, .v = v, .obj = obj };
	const char *unchecked = NULL;
	int err = check_open(&c, &unchecked);

	if (err && !keep_refused) {
		bc_log_error(log, err, "%s: libbpf 1.1 refuses it at open: %s",
			     path, c.why);
	} else if (err) {
		obj->refused = strdup(c.why);
		obj->unchecked = unchecked;
		err = obj->refused ? 0 :
		      bc_log_error(log, -ENOMEM, "%s: out of memory", path);
	}
	if (!err && bc_bpf_object_keep_insns(obj))
		err = bc_log_error(log, -ENOMEM, "%s: out of memory", path);
	if (err)
		bc_bpf_object_deinit(obj);
	return err;
}

int bc_bpf_object_load(const char *path, struct bc_bpf_object *obj,
		       const struct bc_log *log)
{
	struct elf_view v;
	int err = bc_bpf_object_read_file(path, obj, &v, log);

	return err ? err : open_checked(path, obj, &v, false, log);
}

int bc_bpf_object_parse(const void *data, size_t size, const char *path,
			struct bc_bpf_object *obj, const struct bc_log *log)
{
	struct elf_view v;
	int err = bc_bpf_object_read(data, size, path, obj, &v, log);

	return err ? err : open_checked(path, obj, &v, false, log);
}

int bc_bpf_object_load_any(const char *path, struct bc_bpf_object *obj,
			   const struct bc_log *log)
{
	struct elf_view v;
	int err = bc_bpf_object_read_file(path, obj, &v, log);

	return err ? err : open_checked(path, obj, &v, true, log);
}

int bc_bpf_object_parse_any(const void *data, size_t size, const char *path,
			    struct bc_bpf_object *obj,
			    const struct bc_log *log)
{
	struct elf_view v;
	int err = bc_bpf_object_read(data, size, path, obj, &v, log);

	return err ? err : open_checked(path, obj, &v, true, log);
}
