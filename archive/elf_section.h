/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One ELF section by name, for the readers of BTF in ELF files (btf_file.c:
 * a vmlinux's or object's .BTF and .BTF.base; kernel_set.c: a module's
 * .BTF, which has no ALLOC flag and so is read from the section table).
 */
#ifndef BTFCANON_ELF_SECTION_H
#define BTFCANON_ELF_SECTION_H

#include <gelf.h>

/*
 * The section of elf called name, its header in *shdr; NULL when there is
 * none or the section table cannot be read.
 */
Elf_Scn *bc_elf_section(Elf *elf, const char *name, GElf_Shdr *shdr);

#endif
