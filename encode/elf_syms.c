// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ELF side of function and variable selection.
 *
 * Functions. pahole encodes a function only when the symbol table has it
 * as STT_FUNC. Compilers rename the clones they make: foo.isra.0 (scalar
 * replacement of arguments), foo.constprop.0 (constant propagation),
 * foo.cold (the cold half of foo, not a function of its own), foo.part.0
 * (an outlined piece of foo). The first two are foo with another ABI,
 * matched to the DWARF name foo; the last two are dropped. All symbols of
 * one base name form one entry; when they sit at different addresses the
 * name is ambiguous (two static functions foo in two files, or a clone next
 * to the original) and the function is left out later, since a BPF program
 * attached by name could not know which one it gets.
 *
 *	symbols: foo@0x10, foo.isra.0@0x40, bar.cold@0x90, bar@0x80
 *	entries: bar@0x80 (1 symbol); foo@0x10 (2 symbols, ambiguous)
 *
 * Variables. Object symbols are kept by (section, offset) so a DWARF
 * variable at an address can be checked against the symbol table.
 *
 * kfuncs. The kernel lists kfuncs in .BTF_ids "set8"s: a symbol
 * __BTF_ID__set8__NAME marks { u32 cnt; u32 flags; { u32 id; u32 flags; }
 * pairs[cnt]; }, and each pair carries a symbol __BTF_ID__func__FN__N at
 * its address. A set is a kfunc set when its flags have BTF_SET8_KFUNCS
 * (bit 0; kernels from 6.9 set it); every FN inside such a set's range is
 * a kfunc, with the pair's flags (KF_FASTCALL gives bpf_fastcall).
 *
 * Cost: one pass over the symbol table, a hash index of the function
 * names, one sort of the objects.
 */
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "elf_syms.h"

#define BTF_IDS_SECTION ".BTF_ids"
#define BTF_ID_FUNC_PREFIX "__BTF_ID__func__"
#define BTF_ID_SET8_PREFIX "__BTF_ID__set8__"
#define BTF_SET8_KFUNCS (1u << 0)

static bool starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* foo.cold, foo.part.0, foo.cold.12: pieces of foo, not functions. */
static bool is_function_piece(const char *name)
{
	const char *suffix = strchr(name, '.');

	return suffix && (strstr(suffix, ".cold") || strstr(suffix, ".part"));
}

/* foo.isra.0, foo.constprop.1: clones whose arguments the compiler changed. */
static bool is_optimized_clone(const char *name)
{
	const char *suffix = strchr(name, '.');

	return suffix && (strstr(suffix, ".isra") || strstr(suffix, ".constprop"));
}

static int cmp_clone(const void *a, const void *b)
{
	const struct elf_clone *ca = a, *cb = b;

	if (ca->func != cb->func)
		return ca->func < cb->func ? -1 : 1;
	return (ca->order > cb->order) - (ca->order < cb->order);
}

static int cmp_object(const void *a, const void *b)
{
	const struct elf_object *oa = a, *ob = b;

	if (oa->shndx != ob->shndx)
		return oa->shndx < ob->shndx ? -1 : 1;
	if (oa->offset != ob->offset)
		return oa->offset < ob->offset ? -1 : 1;
	return strcmp(oa->name, ob->name);
}

/* Address of a symbol in the DWARF's address space. */
static uint64_t sym_addr(const struct elf_syms *syms, const GElf_Sym *sym)
{
	if (syms->relocatable && sym->st_shndx < syms->nr_sections)
		return syms->sections[sym->st_shndx].addr + sym->st_value;
	return sym->st_value;
}

/* Offset of a symbol within its section. */
static uint64_t sym_offset(const struct elf_syms *syms, const GElf_Sym *sym)
{
	if (syms->relocatable || sym->st_shndx >= syms->nr_sections)
		return sym->st_value;
	return sym->st_value - syms->sections[sym->st_shndx].addr;
}

static int read_sections(Elf *elf, struct elf_syms *syms, Elf_Scn **symtab,
			 Elf_Scn **btf_ids, uint32_t *btf_ids_shndx)
{
	size_t nr, shstrndx, i;

	if (elf_getshdrnum(elf, &nr) || elf_getshdrstrndx(elf, &shstrndx))
		return -EINVAL;
	syms->sections = calloc(nr ? nr : 1, sizeof(*syms->sections));
	if (!syms->sections)
		return -ENOMEM;
	syms->nr_sections = nr;
	for (i = 1; i < nr; i++) {
		Elf_Scn *scn = elf_getscn(elf, i);
		struct elf_section *s = &syms->sections[i];
		GElf_Shdr shdr;
		const char *name;

		if (!scn || !gelf_getshdr(scn, &shdr))
			return -EINVAL;
		name = elf_strptr(elf, shstrndx, shdr.sh_name);
		s->name = name ? name : "";
		s->addr = shdr.sh_addr;
		s->size = shdr.sh_size;
		s->type = shdr.sh_type;
		if (shdr.sh_type == SHT_SYMTAB)
			*symtab = scn;
		if (!strcmp(s->name, ELF_PERCPU_SECTION))
			syms->percpu_shndx = i;
		if (!strcmp(s->name, BTF_IDS_SECTION) && shdr.sh_type == SHT_PROGBITS) {
			*btf_ids = scn;
			*btf_ids_shndx = i;
		}
	}
	return 0;
}

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/*
 * Groups the function symbols by base name and indexes the names, in one
 * pass over them in symbol-table order (no sort: the table's order is the
 * file's): a symbol whose base name is already there joins that entry.
 * The workers then look up every top-level subprogram's name, hundreds of
 * thousands on a vmlinux.
 */
static int index_funcs(struct elf_syms *syms)
{
	uint32_t cap = 16, i, out = 0;

	while (cap < syms->nr_funcs * 2)
		cap *= 2;
	syms->func_index = calloc(cap, sizeof(*syms->func_index));
	syms->func_index_hash = calloc(cap, sizeof(*syms->func_index_hash));
	if (!syms->func_index || !syms->func_index_hash)
		return -ENOMEM;
	syms->func_index_mask = cap - 1;
	for (i = 0; i < syms->nr_funcs; i++) {
		struct elf_func *f = &syms->funcs[i], *g = NULL;
		uint32_t h = name_hash(f->name), j;

		for (j = h & syms->func_index_mask; syms->func_index[j];
		     j = (j + 1) & syms->func_index_mask) {
			g = &syms->funcs[syms->func_index[j] - 1];
			if (syms->func_index_hash[j] == h && !strcmp(g->name, f->name))
				break;
			g = NULL;
		}
		if (g) {
			g->nr_syms++;
			if (g->addr != f->addr)
				g->ambiguous = true;
			g->opt_clone |= f->opt_clone;
			if (f->exact && !g->exact) {
				g->exact = true;
				g->addr = f->addr;	/* foo's own address over a clone's */
			}
			free(f->name);
			continue;
		}
		syms->funcs[out] = *f;
		syms->func_index[j] = ++out;
		syms->func_index_hash[j] = h;
	}
	syms->nr_funcs = out;
	return 0;
}

/* Gives each clone its function's index and each function its clones. */
static void link_clones(struct elf_syms *syms)
{
	uint32_t i;

	for (i = 0; i < syms->nr_clones; i++) {
		struct elf_clone *c = &syms->clones[i];
		size_t len = strchr(c->name, '.') - c->name;
		char base[256];
		const struct elf_func *f;

		c->func = UINT32_MAX;
		if (len >= sizeof(base))
			continue;
		memcpy(base, c->name, len);
		base[len] = 0;
		f = elf_syms_find_func(syms, base);
		if (f)
			c->func = f - syms->funcs;
	}
	qsort(syms->clones, syms->nr_clones, sizeof(*syms->clones), cmp_clone);
	for (i = syms->nr_clones; i-- > 0;) {
		struct elf_func *f;

		if (syms->clones[i].func == UINT32_MAX)
			continue;
		f = &syms->funcs[syms->clones[i].func];
		f->first_clone = i;
		f->nr_clones++;
	}
}

const struct elf_clone *elf_syms_clone_at(const struct elf_syms *syms,
					  const struct elf_func *f, uint64_t addr)
{
	uint32_t i;

	for (i = 0; i < f->nr_clones; i++)
		if (syms->clones[f->first_clone + i].addr == addr)
			return &syms->clones[f->first_clone + i];
	return NULL;
}

struct kfunc_set {
	uint64_t start, end;		/* offsets in .BTF_ids */
};

/* Marks the functions named by the kfunc sets of .BTF_ids. */
static int read_kfuncs(struct elf_syms *syms, Elf *elf, Elf_Data *symdata,
		       size_t nr_syms, uint32_t strtab, Elf_Scn *btf_ids,
		       uint32_t btf_ids_shndx)
{
	struct kfunc_set *sets = NULL;
	uint32_t nr_sets = 0, cap = 0;
	GElf_Shdr shdr;
	Elf_Data *data;
	size_t i;
	int err = 0;

	if (!gelf_getshdr(btf_ids, &shdr))
		return -EINVAL;
	/* u32 words: let libelf convert them from the file's byte order */
	data = elf_getdata_rawchunk(elf, shdr.sh_offset, shdr.sh_size, ELF_T_WORD);
	if (!data)
		return 0;
	for (i = 0; i < nr_syms; i++) {
		GElf_Sym sym;
		const char *name;
		uint64_t off;
		uint32_t flags;

		if (!gelf_getsym(symdata, i, &sym) || sym.st_shndx != btf_ids_shndx)
			continue;
		name = elf_strptr(elf, strtab, sym.st_name);
		if (!name || !starts_with(name, BTF_ID_SET8_PREFIX))
			continue;
		off = sym_offset(syms, &sym);
		if (off + 8 > data->d_size)
			continue;
		memcpy(&flags, (const char *)data->d_buf + off + 4, 4);
		if (!(flags & BTF_SET8_KFUNCS))
			continue;
		if (nr_sets == cap) {
			struct kfunc_set *grown;

			cap = cap ? cap * 2 : 32;
			grown = realloc(sets, cap * sizeof(*sets));
			if (!grown) {
				free(sets);
				return -ENOMEM;
			}
			sets = grown;
		}
		sets[nr_sets].start = off;
		sets[nr_sets++].end = off + sym.st_size;
	}
	for (i = 0; nr_sets && i < nr_syms; i++) {
		struct elf_func *f;
		GElf_Sym sym;
		const char *name, *end;
		char fname[256];
		uint64_t off;
		uint32_t j, flags;
		size_t len;

		if (!gelf_getsym(symdata, i, &sym) || sym.st_shndx != btf_ids_shndx)
			continue;
		name = elf_strptr(elf, strtab, sym.st_name);
		if (!name || !starts_with(name, BTF_ID_FUNC_PREFIX))
			continue;
		/* __BTF_ID__func__vfs_close__1 -> vfs_close */
		name += strlen(BTF_ID_FUNC_PREFIX);
		end = strrchr(name, '_');
		if (!end || end - name < 2 || end[-1] != '_')
			continue;
		len = end - 1 - name;
		if (len >= sizeof(fname))
			continue;
		memcpy(fname, name, len);
		fname[len] = 0;
		off = sym_offset(syms, &sym);
		for (j = 0; j < nr_sets; j++)
			if (sets[j].start <= off && off < sets[j].end)
				break;
		if (j == nr_sets || off + 8 > data->d_size)
			continue;
		memcpy(&flags, (const char *)data->d_buf + off + 4, 4);
		f = (struct elf_func *)elf_syms_find_func(syms, fname);
		if (f && !f->kfunc) {
			f->kfunc = true;
			f->kfunc_flags = flags;
			syms->nr_kfuncs++;
		}
	}
	free(sets);
	return err;
}

int elf_syms_read(Elf *elf, const char *path, struct elf_syms *syms,
		  const struct bc_log *log)
{
	Elf_Scn *symtab = NULL, *btf_ids = NULL;
	uint32_t btf_ids_shndx = 0, strtab;
	Elf_Data *symdata;
	GElf_Ehdr ehdr;
	GElf_Shdr shdr;
	size_t nr_syms, i;
	int err;

	memset(syms, 0, sizeof(*syms));
	if (!gelf_getehdr(elf, &ehdr))
		return bc_log_error(log, -EINVAL, "%s: cannot read the ELF header: %s",
				    path, elf_errmsg(-1));
	syms->machine = ehdr.e_machine;
	syms->relocatable = ehdr.e_type == ET_REL;
	err = read_sections(elf, syms, &symtab, &btf_ids, &btf_ids_shndx);
	if (err)
		goto fail;
	if (!symtab)
		return 0;
	if (!gelf_getshdr(symtab, &shdr) || !(symdata = elf_getdata(symtab, NULL)) ||
	    !shdr.sh_entsize) {
		err = -EINVAL;
		goto fail;
	}
	strtab = shdr.sh_link;
	nr_syms = shdr.sh_size / shdr.sh_entsize;
	syms->funcs = calloc(nr_syms ? nr_syms : 1, sizeof(*syms->funcs));
	syms->objects = calloc(nr_syms ? nr_syms : 1, sizeof(*syms->objects));
	syms->clones = calloc(nr_syms ? nr_syms : 1, sizeof(*syms->clones));
	if (!syms->funcs || !syms->objects || !syms->clones) {
		err = -ENOMEM;
		goto fail;
	}
	for (i = 1; i < nr_syms; i++) {
		const char *name, *dot;
		GElf_Sym sym;
		int type;

		if (!gelf_getsym(symdata, i, &sym))
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if (type != STT_FUNC && type != STT_OBJECT)
			continue;
		name = elf_strptr(elf, strtab, sym.st_name);
		if (!name || !*name)
			continue;
		if (type == STT_OBJECT) {
			struct elf_object *o;

			if (!sym.st_size || sym.st_shndx == SHN_UNDEF ||
			    sym.st_shndx >= syms->nr_sections)
				continue;
			o = &syms->objects[syms->nr_objects++];
			o->name = name;
			o->shndx = sym.st_shndx;
			o->offset = sym_offset(syms, &sym);
			o->size = sym.st_size;
			continue;
		}
		/* __pfx_foo: the padding before foo (kernels from 6.2), not code */
		if (sym.st_shndx == SHN_UNDEF || is_function_piece(name) ||
		    starts_with(name, "__pfx_"))
			continue;
		dot = strchr(name, '.');
		syms->funcs[syms->nr_funcs].name = dot ? strndup(name, dot - name) :
							 strdup(name);
		if (!syms->funcs[syms->nr_funcs].name) {
			err = -ENOMEM;
			goto fail;
		}
		syms->funcs[syms->nr_funcs].addr = sym_addr(syms, &sym);
		syms->funcs[syms->nr_funcs].exact = !dot;
		syms->funcs[syms->nr_funcs].opt_clone = is_optimized_clone(name);
		if (dot) {
			struct elf_clone *c = &syms->clones[syms->nr_clones];

			c->name = name;
			c->addr = sym_addr(syms, &sym);
			c->order = syms->nr_clones++;
		}
		syms->funcs[syms->nr_funcs++].nr_syms = 1;
	}
	err = index_funcs(syms);
	if (err)
		goto fail;
	link_clones(syms);
	qsort(syms->objects, syms->nr_objects, sizeof(*syms->objects), cmp_object);
	if (btf_ids) {
		err = read_kfuncs(syms, elf, symdata, nr_syms, strtab, btf_ids,
				  btf_ids_shndx);
		if (err)
			goto fail;
	}
	return 0;
fail:
	elf_syms_free(syms);
	return bc_log_error(log, err, "%s: cannot read the ELF symbol table: %s",
			    path, err == -ENOMEM ? strerror(ENOMEM) : elf_errmsg(-1));
}

void elf_syms_free(struct elf_syms *syms)
{
	uint32_t i;

	for (i = 0; syms->funcs && i < syms->nr_funcs; i++)
		free(syms->funcs[i].name);
	free(syms->funcs);
	free(syms->func_index);
	free(syms->func_index_hash);
	free(syms->objects);
	free(syms->clones);
	free(syms->sections);
	memset(syms, 0, sizeof(*syms));
}

const struct elf_func *elf_syms_find_func(const struct elf_syms *syms,
					  const char *name)
{
	uint32_t h, j;

	if (!syms->func_index)
		return NULL;
	h = name_hash(name);
	for (j = h & syms->func_index_mask; syms->func_index[j];
	     j = (j + 1) & syms->func_index_mask) {
		const struct elf_func *f = &syms->funcs[syms->func_index[j] - 1];

		if (syms->func_index_hash[j] == h && !strcmp(f->name, name))
			return f;
	}
	return NULL;
}

uint32_t elf_syms_section_of(const struct elf_syms *syms, uint64_t addr)
{
	uint32_t i;

	for (i = 1; i < syms->nr_sections; i++) {
		const struct elf_section *s = &syms->sections[i];

		if ((s->type == SHT_PROGBITS || s->type == SHT_NOBITS) &&
		    s->addr <= addr && addr - s->addr < s->size)
			return i;
	}
	return 0;
}

const struct elf_object *elf_syms_find_object(const struct elf_syms *syms,
					      uint32_t shndx, uint64_t offset,
					      const char *name)
{
	uint32_t lo = 0, hi = syms->nr_objects;

	/* first object at (shndx, offset) */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const struct elf_object *o = &syms->objects[mid];

		if (o->shndx < shndx || (o->shndx == shndx && o->offset < offset))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < syms->nr_objects; lo++) {
		const struct elf_object *o = &syms->objects[lo];

		if (o->shndx != shndx || o->offset != offset)
			break;
		if (!name || !strcmp(o->name, name))
			return o;
	}
	return NULL;
}

void elf_syms_call_abi(const struct elf_syms *syms, struct call_abi *abi)
{
	memset(abi, 0, sizeof(*abi));
	abi->nr_regs = elf_syms_param_regs(syms, &abi->regs);
}

unsigned int elf_syms_param_regs(const struct elf_syms *syms,
				 const uint8_t **regs)
{
	static const uint8_t x86_64[] = { 5, 4, 1, 2, 8, 9 };
	static const uint8_t aarch64[] = { 0, 1, 2, 3, 4, 5, 6, 7 };

	switch (syms->machine) {
	case EM_X86_64:
		*regs = x86_64;
		return sizeof(x86_64);
	case EM_AARCH64:
		*regs = aarch64;
		return sizeof(aarch64);
	default:
		*regs = NULL;
		return 0;
	}
}

bool elf_section_bytes(Elf *elf, const char *name, const unsigned char **data,
		       size_t *size)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	*data = NULL;
	*size = 0;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *sname;
		Elf_Data *d;
		GElf_Shdr shdr;

		if (!gelf_getshdr(scn, &shdr) ||
		    !(sname = elf_strptr(elf, shstrndx, shdr.sh_name)) ||
		    strcmp(sname, name))
			continue;
		if (shdr.sh_type == SHT_NOBITS || (shdr.sh_flags & SHF_COMPRESSED))
			return false;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			return false;
		*data = d->d_buf;
		*size = d->d_size;
		return true;
	}
	return false;
}
