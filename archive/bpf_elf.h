/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The view of a BPF ELF object that its reader (bpf_object.c) and the
 * check of libbpf's refusals at open (libbpf_open.c) share: the image,
 * its section headers and their names, all checked to lie inside the
 * image by the reader before the check runs. The calls run one way:
 * libbpf_open.c's bc_bpf_object_load(), bc_bpf_object_parse() and their
 * _any forms (the entry points bpf_object.h declares) run the reader,
 * then the check.
 */
#ifndef BTFCANON_BPF_ELF_H
#define BTFCANON_BPF_ELF_H

#include <elf.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../canon/log.h"
#include "bpf_object.h"

struct elf_view {
	const uint8_t *image;
	size_t size;
	const Elf64_Shdr *shdrs;
	uint32_t shnum;
	const char *shstrs;
	size_t shstrs_size;
};

/* The name of section i, or NULL when its offset is bad. */
static inline const char *section_name(const struct elf_view *v, uint32_t i)
{
	uint32_t off = v->shdrs[i].sh_name;

	if (off >= v->shstrs_size)
		return NULL;
	if (!memchr(v->shstrs + off, '\0', v->shstrs_size - off))
		return NULL;
	return v->shstrs + off;
}

/* The bytes of section i, or NULL when they lie outside the file. */
static inline const uint8_t *section_data(const struct elf_view *v,
					  uint32_t i)
{
	const Elf64_Shdr *sh = &v->shdrs[i];

	if (sh->sh_type == SHT_NOBITS)
		return NULL;
	if (sh->sh_offset > v->size || sh->sh_size > v->size - sh->sh_offset)
		return NULL;
	return v->image + sh->sh_offset;
}

/*
 * The reader (bpf_object.c): obj from size bytes at data (copied), or
 * from the file at path, and *view over obj's image (valid while obj
 * is). Takes more than libbpf does: libbpf_open.c checks the rest.
 * Returns 0, or a negative errno after one message naming the file (obj
 * is then released).
 */
int bc_bpf_object_read(const void *data, size_t size, const char *path,
		       struct bc_bpf_object *obj, struct elf_view *view,
		       const struct bc_log *log);
int bc_bpf_object_read_file(const char *path, struct bc_bpf_object *obj,
			    struct elf_view *view, const struct bc_log *log);

/*
 * After the checks: obj's image becomes its program sections'
 * instructions alone (views over the file are then invalid). 0 or
 * -ENOMEM (obj unchanged).
 */
int bc_bpf_object_keep_insns(struct bc_bpf_object *obj);

#endif
