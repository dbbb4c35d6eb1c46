/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One function per fuzz target (targets.c): takes any bytes, returns 0,
 * and aborts only on a finding (a sanitizer report or a broken property).
 */
#ifndef BTFCANON_FUZZ_TARGETS_H
#define BTFCANON_FUZZ_TARGETS_H

#include <stddef.h>
#include <stdint.h>

int fuzz_sort_one(const uint8_t *data, size_t size);	/* raw BTF into sort */
int fuzz_dump_one(const uint8_t *data, size_t size);	/* raw BTF into dump */
int fuzz_diff_one(const uint8_t *data, size_t size);	/* two raw BTFs into diff */
int fuzz_btf_elf_one(const uint8_t *data, size_t size);	/* ELF into the .BTF reader */
int fuzz_encode_one(const uint8_t *data, size_t size);	/* ELF+DWARF into encode */
int fuzz_bpf_object_one(const uint8_t *data, size_t size); /* BPF object into deps */
int fuzz_relocate_one(const uint8_t *data, size_t size);	/* base + split into distill, relocate */
int fuzz_kernel_file_one(const uint8_t *data, size_t size);	/* saved kernel file into deps */
int fuzz_kimage_one(const uint8_t *data, size_t size);	/* kernel image into its BTF reader */
int fuzz_package_one(const uint8_t *data, size_t size);	/* .deb/.rpm into the package reader */
int fuzz_kmod_one(const uint8_t *data, size_t size);	/* base + module file into the module reader */

int fuzz_archive_one(const uint8_t *data, size_t size);	/* archive file or body into the archive reader */
int fuzz_slim_one(const uint8_t *data, size_t size);	/* BTF + C source into the slim header */

#endif
