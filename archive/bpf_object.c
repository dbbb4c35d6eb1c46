// SPDX-License-Identifier: GPL-2.0-only
/*
 * The BPF ELF object reader.
 *
 * Problem: `deps` needs what libbpf reads from an object at open time
 * (program sections, instructions, symbols, .BTF, the CO-RE records of
 * .BTF.ext), from files that may be truncated or hostile, without libbpf
 * (which prints, and whose internals are not exported).
 * Invariant: every offset and count read from the file is checked against
 * the bytes it points into before use; the struct that comes out holds
 * only valid references (sections, instructions, type ids, strings).
 * Cost: one read of the file and one pass over the section headers, the
 * symbol table and .BTF.ext; .BTF is validated by bc_btf_parse().
 *
 * Only 64-bit little-endian objects for EM_BPF are read, which is what
 * clang -target bpf (bpfel) writes on the machines libbpf runs on.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../canon/btf_kinds.h"
#include "bpf_elf.h"
#include "bpf_object.h"

#ifndef EM_BPF
#define EM_BPF 247
#endif

#define BTF_EXT_MAGIC 0xeB9F

/* The fixed part of the .BTF.ext header, as the UAPI's libbpf defines it. */
struct btf_ext_header_v1 {
	uint16_t magic;
	uint8_t version;
	uint8_t flags;
	uint32_t hdr_len;
	uint32_t func_info_off, func_info_len;
	uint32_t line_info_off, line_info_len;
	uint32_t core_relo_off, core_relo_len;	/* when hdr_len >= 32 */
};

/* One record of .BTF.ext's CO-RE part (struct bpf_core_relo). */
struct core_relo_rec {
	uint32_t insn_off;
	uint32_t type_id;
	uint32_t access_str_off;
	uint32_t kind;
};

static int read_header(const char *path, struct elf_view *v,
		       const struct bc_log *log)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)v->image;
	uint32_t stridx;

	if (v->size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG))
		return bc_log_error(log, -EINVAL, "%s: not an ELF file", path);
	if (eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_ident[EI_DATA] != ELFDATA2LSB)
		return bc_log_error(log, -EINVAL,
				    "%s: not a 64-bit little-endian ELF file (only bpfel objects are read)",
				    path);
	if (eh->e_machine != EM_BPF)
		return bc_log_error(log, -EINVAL,
				    "%s: not a BPF object (ELF machine %u, expected %u: compile with clang -target bpf)",
				    path, eh->e_machine, EM_BPF);
	if (eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff > v->size ||
	    (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > v->size - eh->e_shoff ||
	    eh->e_shoff % 8)
		return bc_log_error(log, -EINVAL,
				    "%s: section header table outside the file",
				    path);
	v->shdrs = (const Elf64_Shdr *)(v->image + eh->e_shoff);
	v->shnum = eh->e_shnum;
	stridx = eh->e_shstrndx;
	if (stridx == 0 || stridx >= v->shnum || !section_data(v, stridx))
		return bc_log_error(log, -EINVAL,
				    "%s: bad section name table index %u", path,
				    stridx);
	v->shstrs = (const char *)section_data(v, stridx);
	v->shstrs_size = v->shdrs[stridx].sh_size;
	return 0;
}

static bool is_program_section(const Elf64_Shdr *sh)
{
	return sh->sh_type == SHT_PROGBITS && (sh->sh_flags & SHF_EXECINSTR) &&
	       sh->sh_size > 0;
}

static int add_sections(const char *path, const struct elf_view *v,
			struct bc_bpf_object *obj, const struct bc_log *log)
{
	uint32_t i;

	obj->sections = calloc(v->shnum ? v->shnum : 1, sizeof(*obj->sections));
	if (!obj->sections)
		return bc_log_error(log, -ENOMEM, "%s: out of memory", path);
	for (i = 1; i < v->shnum; i++) {
		const Elf64_Shdr *sh = &v->shdrs[i];
		struct bc_bpf_section *s;
		const char *name = section_name(v, i);
		const uint8_t *data;

		if (!name)
			return bc_log_error(log, -EINVAL,
					    "%s: section %u has a bad name offset",
					    path, i);
		if (!is_program_section(sh))
			continue;
		data = section_data(v, i);
		if (!data || sh->sh_size % sizeof(struct bpf_insn) ||
		    sh->sh_offset % 8)
			return bc_log_error(log, -EINVAL,
					    "%s: program section '%s' has a size or place that is not whole 8-byte instructions inside the file",
					    path, name);
		/* counted first: on any error, deinit frees what is there */
		s = &obj->sections[obj->nr_sections++];
		s->name = strdup(name);
		if (!s->name)
			return bc_log_error(log, -ENOMEM, "%s: out of memory", path);
		s->elf_index = i;
		s->insns = (const struct bpf_insn *)data;
		s->nr_insns = sh->sh_size / sizeof(struct bpf_insn);
	}
	return 0;
}

static int find_section(const struct bc_bpf_object *obj, uint32_t elf_index)
{
	uint32_t i;

	for (i = 0; i < obj->nr_sections; i++)
		if (obj->sections[i].elf_index == elf_index)
			return (int)i;
	return -1;
}

static int program_cmp(const void *a, const void *b)
{
	const struct bc_bpf_program *x = a, *y = b;

	if (x->section != y->section)
		return x->section < y->section ? -1 : 1;
	if (x->first_insn != y->first_insn)
		return x->first_insn < y->first_insn ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* STT_FUNC symbols inside program sections: the programs and subprograms. */
static int add_programs(const char *path, const struct elf_view *v,
			struct bc_bpf_object *obj, const struct bc_log *log)
{
	const Elf64_Sym *syms;
	const char *strs;
	size_t nr_syms, strs_size, i;
	uint32_t symtab = 0, k;

	for (k = 1; k < v->shnum; k++)
		if (v->shdrs[k].sh_type == SHT_SYMTAB)
			symtab = k;
	if (!symtab)
		return bc_log_error(log, -EINVAL, "%s: no symbol table", path);
	syms = (const Elf64_Sym *)section_data(v, symtab);
	if (!syms || v->shdrs[symtab].sh_entsize != sizeof(Elf64_Sym) ||
	    v->shdrs[symtab].sh_offset % 8 ||
	    v->shdrs[symtab].sh_link >= v->shnum ||
	    !section_data(v, v->shdrs[symtab].sh_link))
		return bc_log_error(log, -EINVAL,
				    "%s: the symbol table or its strings lie outside the file",
				    path);
	nr_syms = v->shdrs[symtab].sh_size / sizeof(Elf64_Sym);
	strs = (const char *)section_data(v, v->shdrs[symtab].sh_link);
	strs_size = v->shdrs[v->shdrs[symtab].sh_link].sh_size;
	obj->programs = calloc(nr_syms ? nr_syms : 1, sizeof(*obj->programs));
	if (!obj->programs)
		return bc_log_error(log, -ENOMEM, "%s: out of memory", path);
	obj->externs = calloc(nr_syms ? nr_syms : 1, sizeof(*obj->externs));
	if (!obj->externs)
		return bc_log_error(log, -ENOMEM, "%s: out of memory", path);
	for (i = 0; i < nr_syms; i++) {
		const Elf64_Sym *sym = &syms[i];
		unsigned char bind = ELF64_ST_BIND(sym->st_info);
		struct bc_bpf_extern *e;

		if (sym->st_shndx != SHN_UNDEF || sym->st_name == 0 ||
		    (bind != STB_GLOBAL && bind != STB_WEAK))
			continue;
		if (sym->st_name >= strs_size ||
		    !memchr(strs + sym->st_name, '\0', strs_size - sym->st_name))
			return bc_log_error(log, -EINVAL,
					    "%s: symbol %zu has a bad name offset",
					    path, i);
		e = &obj->externs[obj->nr_externs++];
		e->name = strdup(strs + sym->st_name);
		e->weak = bind == STB_WEAK;
		if (!e->name)
			return bc_log_error(log, -ENOMEM, "%s: out of memory", path);
	}
	for (i = 0; i < nr_syms; i++) {
		const Elf64_Sym *sym = &syms[i];
		struct bc_bpf_program *p;
		const struct bc_bpf_section *s;
		int sec;

		if (ELF64_ST_TYPE(sym->st_info) != STT_FUNC)
			continue;
		sec = find_section(obj, sym->st_shndx);
		if (sec < 0)
			continue;
		s = &obj->sections[sec];
		if (sym->st_name >= strs_size ||
		    !memchr(strs + sym->st_name, '\0', strs_size - sym->st_name))
			return bc_log_error(log, -EINVAL,
					    "%s: symbol %zu has a bad name offset",
					    path, i);
		if (sym->st_value % sizeof(struct bpf_insn) ||
		    sym->st_size % sizeof(struct bpf_insn) ||
		    sym->st_value / 8 > s->nr_insns ||
		    sym->st_size / 8 > s->nr_insns - sym->st_value / 8)
			return bc_log_error(log, -EINVAL,
					    "%s: function '%s' lies outside its section '%s'",
					    path, strs + sym->st_name, s->name);
		p = &obj->programs[obj->nr_programs++];
		p->name = strdup(strs + sym->st_name);
		if (!p->name)
			return bc_log_error(log, -ENOMEM, "%s: out of memory", path);
		p->section = sec;
		p->first_insn = sym->st_value / 8;
		p->nr_insns = sym->st_size / 8;
	}
	qsort(obj->programs, obj->nr_programs, sizeof(*obj->programs),
	      program_cmp);
	return 0;
}

static int section_by_name(const struct bc_bpf_object *obj, const char *name)
{
	uint32_t i;

	for (i = 0; i < obj->nr_sections; i++)
		if (!strcmp(obj->sections[i].name, name))
			return (int)i;
	return -1;
}

/* A NUL-terminated string at off of the object's BTF, or NULL. */
static const char *btf_string(const struct bc_btf *btf, uint32_t off)
{
	if (off >= bc_btf_str_end(btf))
		return NULL;
	return bc_btf_str(btf, off);
}

/*
 * The CO-RE part of .BTF.ext: a record size, then per section its name
 * (a .BTF string), a count, and that many records.
 */
static int read_core_relos(const char *path, const uint8_t *data,
			   uint32_t size, struct bc_bpf_object *obj,
			   const struct bc_log *log)
{
	uint32_t rec_size, pos = 4;

	if (size == 0)
		return 0;
	if (size < 4)
		return bc_log_error(log, -EINVAL,
				    "%s: .BTF.ext CO-RE part is %u bytes, too short",
				    path, size);
	memcpy(&rec_size, data, 4);
	if (rec_size < sizeof(struct core_relo_rec) || rec_size % 4)
		return bc_log_error(log, -EINVAL,
				    "%s: .BTF.ext CO-RE record size %u (at least %zu, a multiple of 4)",
				    path, rec_size, sizeof(struct core_relo_rec));
	if (size == 4)
		return bc_log_error(log, -EINVAL,
				    "%s: .BTF.ext CO-RE part has no records: libbpf 1.1 does not read it",
				    path);
	while (pos < size) {
		uint32_t name_off, count, i;
		struct bc_bpf_section *s;
		const char *name;
		int sec;

		if (size - pos < 8)
			return bc_log_error(log, -EINVAL,
					    "%s: .BTF.ext CO-RE section header cut at byte %u",
					    path, pos);
		memcpy(&name_off, data + pos, 4);
		memcpy(&count, data + pos + 4, 4);
		pos += 8;
		name = btf_string(obj->btf, name_off);
		if (!name || !*name)
			return bc_log_error(log, -EINVAL,
					    "%s: .BTF.ext CO-RE section name offset %u is not a string of .BTF",
					    path, name_off);
		if (count == 0 || (uint64_t)count * rec_size > size - pos)
			return bc_log_error(log, -EINVAL,
					    "%s: .BTF.ext CO-RE section '%s': %u records of %u bytes do not fit",
					    path, name, count, rec_size);
		sec = section_by_name(obj, name);
		if (sec < 0)
			return bc_log_error(log, -EINVAL,
					    "%s: .BTF.ext CO-RE records for '%s', which is no program section",
					    path, name);
		s = &obj->sections[sec];
		if (s->relos)
			return bc_log_error(log, -EINVAL,
					    "%s: .BTF.ext lists CO-RE records of '%s' twice",
					    path, name);
		s->relos = calloc(count, sizeof(*s->relos));
		if (!s->relos)
			return bc_log_error(log, -ENOMEM, "%s: out of memory", path);
		s->nr_relos = count;
		for (i = 0; i < count; i++, pos += rec_size) {
			struct core_relo_rec rec;
			struct bc_core_relo *r = &s->relos[i];

			memcpy(&rec, data + pos, sizeof(rec));
			if (rec.insn_off % 8 || rec.insn_off / 8 >= s->nr_insns)
				return bc_log_error(log, -EINVAL,
						    "%s: '%s' CO-RE relo #%u: instruction offset %u outside the section",
						    path, name, i, rec.insn_off);
			if (rec.type_id == 0 ||
			    rec.type_id >= bc_btf_end_id(obj->btf))
				return bc_log_error(log, -EINVAL,
						    "%s: '%s' CO-RE relo #%u: type id %u not in .BTF",
						    path, name, i, rec.type_id);
			if (!btf_string(obj->btf, rec.access_str_off))
				return bc_log_error(log, -EINVAL,
						    "%s: '%s' CO-RE relo #%u: access string offset %u not in .BTF",
						    path, name, i, rec.access_str_off);
			r->insn_off = rec.insn_off;
			r->type_id = rec.type_id;
			r->access_off = rec.access_str_off;
			r->kind = rec.kind;
			r->index = i;
		}
	}
	return 0;
}

/*
 * One part of .BTF.ext as libbpf 1.1's btf_ext__new() reads it (func_info,
 * line_info or core_relo): 4-aligned, inside the section, a record size
 * of at least min_rec and a multiple of 4, at least one section, and each
 * section's records present. Returns NULL, or what is wrong.
 */
static const char *ext_part_problem(const uint8_t *data, uint64_t size,
				    uint32_t hdr_len, uint32_t off,
				    uint32_t len, uint32_t min_rec)
{
	const uint8_t *part = data + hdr_len + off;
	uint32_t rec_size, left, count;

	if (len == 0)
		return NULL;
	if (off % 4)
		return "not aligned to 4 bytes";
	if ((uint64_t)hdr_len + off + len > size)
		return "beyond the end of the section";
	if (len < 4)
		return "no record size";
	memcpy(&rec_size, part, 4);
	if (rec_size < min_rec || rec_size % 4)
		return "an invalid record size";
	left = len - 4;
	part += 4;
	if (!left)
		return "no records";
	while (left) {
		if (left < 8)
			return "a section header cut short";
		memcpy(&count, part + 4, 4);
		if (count == 0 || 8 + (uint64_t)count * rec_size > left)
			return "an incorrect number of records";
		left -= 8 + count * rec_size;
		part += 8 + count * rec_size;
	}
	return NULL;
}

static int read_btf_ext(const char *path, const uint8_t *data, uint64_t size,
			struct bc_bpf_object *obj, const struct bc_log *log)
{
	struct btf_ext_header_v1 h = { 0 };
	const char *problem;

	if (size < 24)
		return bc_log_error(log, -EINVAL,
				    "%s: .BTF.ext is %llu bytes, shorter than its header",
				    path, (unsigned long long)size);
	memcpy(&h, data, 24);
	if (h.magic != BTF_EXT_MAGIC)
		return bc_log_error(log, -EINVAL,
				    "%s: .BTF.ext has magic 0x%x, not 0x%x (big-endian object?)",
				    path, h.magic, BTF_EXT_MAGIC);
	if (h.version != 1)
		return bc_log_error(log, -EINVAL,
				    "%s: .BTF.ext version %u, only 1 is known",
				    path, h.version);
	if (h.hdr_len < 24 || h.hdr_len > size)
		return bc_log_error(log, -EINVAL,
				    "%s: .BTF.ext header length %u out of range",
				    path, h.hdr_len);
	/*
	 * What libbpf 1.1 cannot read it drops (or, when the object has
	 * .maps, refuses the object): either way no CO-RE relocation of
	 * the object would be applied, so deps refuses it.
	 */
	if (h.flags)
		return bc_log_error(log, -EOPNOTSUPP,
				    "%s: .BTF.ext flags 0x%x: libbpf 1.1 knows none and does not read it",
				    path, h.flags);
	if (h.hdr_len == size)
		return bc_log_error(log, -EINVAL,
				    "%s: .BTF.ext has no data: libbpf 1.1 does not read it",
				    path);
	problem = ext_part_problem(data, size, h.hdr_len, h.func_info_off,
				   h.func_info_len, 8);
	if (problem)
		return bc_log_error(log, -EINVAL,
				    "%s: .BTF.ext func_info has %s: libbpf 1.1 does not read it",
				    path, problem);
	problem = ext_part_problem(data, size, h.hdr_len, h.line_info_off,
				   h.line_info_len, 16);
	if (problem)
		return bc_log_error(log, -EINVAL,
				    "%s: .BTF.ext line_info has %s: libbpf 1.1 does not read it",
				    path, problem);
	if (h.hdr_len < 32)
		return 0;	/* no CO-RE part */
	memcpy(&h.core_relo_off, data + 24, 8);
	if ((uint64_t)h.core_relo_off + h.core_relo_len > size - h.hdr_len ||
	    h.core_relo_off % 4)
		return bc_log_error(log, -EINVAL,
				    "%s: .BTF.ext CO-RE part (offset %u, %u bytes) outside the section",
				    path, h.core_relo_off, h.core_relo_len);
	return read_core_relos(path, data + h.hdr_len + h.core_relo_off,
			       h.core_relo_len, obj, log);
}

/*
 * An object's .BTF lists its kfunc externs as FUNCs in the .ksyms DATASEC,
 * which libbpf accepts in objects but bc_btf_parse(), like the kernel,
 * does not (a DATASEC holds VARs). This gives each such entry a VAR of
 * its own, appended after the last type (so no id moves), named as the
 * FUNC and of the FUNC's type: the kfunc stays recognizable (a .ksyms
 * VAR whose type is a FUNC). Returns 1 and a new blob in *out when it
 * changed something, 0 when nothing needed it or the blob is too broken
 * to walk (the parser then says what is wrong), or -ENOMEM.
 */
static int give_kfuncs_vars(const uint8_t *data, size_t size, uint8_t **out,
			    size_t *out_size)
{
	const struct btf_header *h = (const void *)data;
	uint32_t types_len, pos, nr = 0, added = 0, id;
	uint32_t *offs = NULL, *fixes = NULL;
	uint8_t *blob;
	int ret = 0;

	*out = NULL;
	/* data is 4-aligned (the caller's copy); records must be too */
	if (size < sizeof(*h) || h->magic != BTF_MAGIC || h->hdr_len > size ||
	    h->hdr_len % 4 ||
	    (uint64_t)h->hdr_len + h->type_off + h->type_len > size ||
	    (uint64_t)h->hdr_len + h->str_off + h->str_len > size ||
	    h->type_off % 4 || h->type_len % 4 ||
	    h->str_off != h->type_off + h->type_len)
		return 0;
	types_len = h->type_len;
	offs = malloc((types_len / 12 + 2) * sizeof(*offs));
	if (!offs)
		return -ENOMEM;
	/* offsets of every record, ids from 1 */
	for (pos = 0; pos + 12 <= types_len; nr++) {
		const struct btf_type *t = (const void *)(data + h->hdr_len +
							  h->type_off + pos);

		if (!bc_kind_valid(bc_type_kind(t)))
			goto out;
		offs[nr + 1] = pos;
		pos += 4 * bc_type_words(t);
	}
	if (pos != types_len)
		goto out;
	fixes = calloc(nr + 1, sizeof(*fixes));
	if (!fixes)
		goto nomem;
	for (id = 1; id <= nr; id++) {
		const struct btf_type *t = (const void *)(data + h->hdr_len +
							  h->type_off + offs[id]);
		const struct btf_var_secinfo *v = (const void *)(t + 1);
		uint32_t j;

		if (bc_type_kind(t) != BTF_KIND_DATASEC)
			continue;
		for (j = 0; j < bc_type_vlen(t); j++) {
			const struct btf_type *e;

			if (v[j].type == 0 || v[j].type > nr)
				continue;
			e = (const void *)(data + h->hdr_len + h->type_off +
					   offs[v[j].type]);
			if (bc_type_kind(e) == BTF_KIND_FUNC && !fixes[v[j].type])
				fixes[v[j].type] = nr + 1 + added++;
		}
	}
	if (!added)
		goto out;
	*out_size = size + added * 16;
	blob = malloc(*out_size);
	if (!blob)
		goto nomem;
	{
		size_t head = h->hdr_len + h->type_off + types_len;
		struct btf_header *nh = (void *)blob;
		uint8_t *p = blob + head;

		memcpy(blob, data, head);
		for (id = 1; id <= nr; id++) {
			const struct btf_type *f;
			uint32_t rec[4];

			if (!fixes[id])
				continue;
			f = (const void *)(data + h->hdr_len + h->type_off + offs[id]);
			rec[0] = f->name_off;
			rec[1] = BTF_KIND_VAR << 24;
			rec[2] = id;
			rec[3] = BTF_VAR_GLOBAL_EXTERN;
			memcpy(p, rec, sizeof(rec));
			p += sizeof(rec);
		}
		memcpy(p, data + head, size - head);
		nh->type_len += added * 16;
		nh->str_off += added * 16;
		/* point the DATASEC entries at their VARs */
		for (id = 1; id <= nr; id++) {
			struct btf_type *t = (void *)(blob + h->hdr_len +
						      h->type_off + offs[id]);
			struct btf_var_secinfo *v = (void *)(t + 1);
			uint32_t j;

			if (bc_type_kind(t) != BTF_KIND_DATASEC)
				continue;
			for (j = 0; j < bc_type_vlen(t); j++)
				if (v[j].type && v[j].type <= nr && fixes[v[j].type])
					v[j].type = fixes[v[j].type];
		}
		*out = blob;
		ret = 1;
	}
	goto out;
nomem:
	ret = -ENOMEM;
out:
	free(offs);
	free(fixes);
	return ret;
}

/* bc_bpf_object_read() over image, which obj owns from here on. */
static int object_read(uint8_t *image, size_t size, const char *path,
		       struct bc_bpf_object *obj, struct elf_view *view,
		       const struct bc_log *log)
{
	struct elf_view v = { 0 };
	int btf_sec = -1, ext_sec = -1;
	uint32_t i;
	int err;

	memset(obj, 0, sizeof(*obj));
	obj->image = image;
	obj->size = size;
	obj->path = strdup(path);
	if (!obj->path) {
		err = bc_log_error(log, -ENOMEM, "%s: out of memory", path);
		goto fail;
	}
	v.image = obj->image;
	v.size = size;
	err = read_header(path, &v, log);
	if (err)
		goto fail;
	err = add_sections(path, &v, obj, log);
	if (err)
		goto fail;
	for (i = 1; i < v.shnum; i++) {
		const char *name = section_name(&v, i);

		if (!strcmp(name, ".BTF"))
			btf_sec = i;
		else if (!strcmp(name, ".BTF.ext"))
			ext_sec = i;
		else if (!strcmp(name, "license") && !obj->license &&
			 section_data(&v, i) &&
			 v.shdrs[i].sh_size > 0 &&
			 memchr(section_data(&v, i), '\0', v.shdrs[i].sh_size))
			obj->license = strdup((const char *)section_data(&v, i));
	}
	if (btf_sec < 0) {
		err = bc_log_error(log, -EINVAL,
				   "%s: no .BTF section (compile with clang -target bpf -g)",
				   path);
		goto fail;
	}
	if (!section_data(&v, btf_sec)) {
		err = bc_log_error(log, -EINVAL,
				   "%s: .BTF section outside the file", path);
		goto fail;
	}
	{
		size_t raw_size = v.shdrs[btf_sec].sh_size;
		uint8_t *raw = malloc(raw_size ? raw_size : 1);
		uint8_t *fixed = NULL;
		size_t fixed_size = 0;

		/* an aligned copy: the section may sit anywhere in the file */
		if (!raw) {
			err = bc_log_error(log, -ENOMEM, "%s: out of memory", path);
			goto fail;
		}
		memcpy(raw, section_data(&v, btf_sec), raw_size);
		err = give_kfuncs_vars(raw, raw_size, &fixed, &fixed_size);
		if (err < 0) {
			free(raw);
			err = bc_log_error(log, err, "%s: out of memory", path);
			goto fail;
		}
		err = bc_btf_parse(fixed ? fixed : raw, fixed ? fixed_size : raw_size,
				   NULL, path, log, &obj->btf);
		free(fixed);
		free(raw);
	}
	if (err)
		goto fail;
	err = add_programs(path, &v, obj, log);
	if (err)
		goto fail;
	if (ext_sec >= 0) {
		if (!section_data(&v, ext_sec)) {
			err = bc_log_error(log, -EINVAL,
					   "%s: .BTF.ext section outside the file",
					   path);
			goto fail;
		}
		err = read_btf_ext(path, section_data(&v, ext_sec),
				   v.shdrs[ext_sec].sh_size, obj, log);
		if (err)
			goto fail;
	}
	*view = v;
	return 0;
fail:
	bc_bpf_object_deinit(obj);
	return err;
}

int bc_bpf_object_read_file(const char *path, struct bc_bpf_object *obj,
			    struct elf_view *view, const struct bc_log *log)
{
	struct stat st;
	uint8_t *buf;
	size_t done = 0;
	int fd, err;

	memset(obj, 0, sizeof(*obj));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return bc_log_error(log, -errno, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return bc_log_error(log, -EINVAL, "%s: not a regular file", path);
	}
	buf = malloc(st.st_size ? st.st_size : 1);
	if (!buf) {
		close(fd);
		return bc_log_error(log, -ENOMEM, "%s: out of memory", path);
	}
	while (done < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + done, st.st_size - done);

		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			close(fd);
			free(buf);
			return bc_log_error(log, err, "%s: read failed", path);
		}
		done += n;
	}
	close(fd);
	return object_read(buf, done, path, obj, view, log);
}

int bc_bpf_object_read(const void *data, size_t size, const char *path,
		       struct bc_bpf_object *obj, struct elf_view *view,
		       const struct bc_log *log)
{
	uint8_t *image = malloc(size ? size : 1);

	memset(obj, 0, sizeof(*obj));
	if (!image)
		return bc_log_error(log, -ENOMEM, "%s: out of memory", path);
	memcpy(image, data, size);
	return object_read(image, size, path, obj, view, log);
}

/*
 * Once read and checked, an object needs only its program sections'
 * instructions of the file: the rest is mostly DWARF and its relocations
 * (bcc's objects: 17 KB of .BTF and a few KB of instructions in 800 KB).
 * 55 objects kept whole held 30 MB through a deps run.
 */
int bc_bpf_object_keep_insns(struct bc_bpf_object *obj)
{
	size_t total = 0, at = 0;
	uint8_t *insns;
	uint32_t i;

	for (i = 0; i < obj->nr_sections; i++)
		total += obj->sections[i].nr_insns * sizeof(struct bpf_insn);
	insns = malloc(total ? total : 1);
	if (!insns)
		return -ENOMEM;
	for (i = 0; i < obj->nr_sections; i++) {
		struct bc_bpf_section *s = &obj->sections[i];
		size_t n = s->nr_insns * sizeof(struct bpf_insn);

		memcpy(insns + at, s->insns, n);
		s->insns = (const struct bpf_insn *)(insns + at);
		at += n;
	}
	free(obj->image);
	obj->image = insns;
	obj->size = total;
	return 0;
}

void bc_bpf_object_deinit(struct bc_bpf_object *obj)
{
	uint32_t i;

	if (obj->sections)
		for (i = 0; i < obj->nr_sections; i++) {
			free(obj->sections[i].name);
			free(obj->sections[i].relos);
		}
	if (obj->programs)
		for (i = 0; i < obj->nr_programs; i++) {
			free(obj->programs[i].name);
			free(obj->programs[i].attach_target);
		}
	if (obj->externs)
		for (i = 0; i < obj->nr_externs; i++)
			free(obj->externs[i].name);
	free(obj->externs);
	free(obj->sections);
	free(obj->programs);
	free(obj->license);
	free(obj->refused);
	bc_btf_free(obj->btf);
	free(obj->image);
	free(obj->path);
	memset(obj, 0, sizeof(*obj));
}

int bc_bpf_object_set_attach_target(struct bc_bpf_object *obj,
				    const char *prog, const char *func)
{
	uint32_t i;

	for (i = 0; i < obj->nr_programs; i++) {
		struct bc_bpf_program *p = &obj->programs[i];
		char *copy;

		if (strcmp(p->name, prog))
			continue;
		copy = strdup(func);
		if (!copy)
			return -ENOMEM;
		free(p->attach_target);
		p->attach_target = copy;
		return 0;
	}
	return -ENOENT;
}

const struct bc_bpf_program *bc_bpf_object_program_at(
	const struct bc_bpf_object *obj, uint32_t sec, uint32_t insn)
{
	uint32_t i;

	for (i = 0; i < obj->nr_programs; i++) {
		const struct bc_bpf_program *p = &obj->programs[i];

		if (p->section == sec && insn >= p->first_insn &&
		    insn < p->first_insn + p->nr_insns)
			return p;
	}
	return NULL;
}
