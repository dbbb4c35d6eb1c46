/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The view of a BPF ELF object that its reader (bpf_object.c) and the
 * check of libbpf's refusals at open (libbpf_open.c) share: the image,
 * its section headers and their names, all checked to lie inside the
 * image by the reader before the check runs.
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
 * What libbpf 1.1's bpf_object__open() refuses in an object the reader
 * took (v over obj's image, obj filled in): 0, or libbpf's negative errno
 * after one message naming the file and giving libbpf's reason.
 */
int bc_bpf_object_check_open(const char *path, const struct elf_view *v,
			     const struct bc_bpf_object *obj,
			     const struct bc_log *log);

#endif
