/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel packages, read with libarchive: a .deb (an ar archive whose
 * data.tar.* member, compressed or not, holds the files) or an .rpm (a
 * cpio payload). The kernel is the first regular file named
 * boot/vmlinuz-*, boot/vmlinux-* or (as Fedora's kernel-core keeps it)
 * [usr/]lib/modules/VERSION/vmlinuz. Nothing is unpacked to disk.
 */
#ifndef BTFCANON_PACKAGE_H
#define BTFCANON_PACKAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../canon/log.h"

struct bc_libarchive;

/* Does data (a file's first bytes) start a .deb or an .rpm? */
bool bc_package_detect(const uint8_t *data, size_t size);

/*
 * Finds the kernel in package path. *member gets its path in the package
 * (malloc'd, "./boot/vmlinuz-6.1.0-56-cloud-amd64"); with image non-NULL
 * its bytes too (*image malloc'd, *image_size; at most max_size bytes).
 * Returns 0 or a negative errno after one message naming path (-ELIBACC:
 * libarchive, loaded at the first call, could not be).
 */
int bc_package_read_kernel(const char *path, size_t max_size, char **member,
			   uint8_t **image, size_t *image_size,
			   const struct bc_log *log);

/*
 * As bc_package_read_kernel() through la (libarchive.h), which that
 * passes the process's libarchive; a test passes one that failed to load
 * for the message: "PATH: reading a .deb needs libarchive.so.13 ...".
 */
int bc_package_read_kernel_la(const struct bc_libarchive *la,
			      const char *path, size_t max_size, char **member,
			      uint8_t **image, size_t *image_size,
			      const struct bc_log *log);

/*
 * Is member (a path in a package, without "./") the kernel image that
 * bc_package_read_kernel() would take?
 */
bool bc_package_is_kernel_member(const char *member);

/*
 * What bc_package_walk() does with each regular member: want() says
 * whether its bytes are needed (member without "./"); take() gets them,
 * malloc'd and its to free (also on error), and returns 0 or a negative
 * errno that ends the walk.
 */
struct bc_package_visitor {
	bool (*want)(void *ctx, const char *member);
	int (*take)(void *ctx, const char *member, uint8_t *data, size_t size);
	void *ctx;
};

/*
 * Walks every member of package path in its order, one pass, handing
 * each one visitor wants to it (at most max_size bytes each). Returns 0
 * or a negative errno after one message naming path (or the visitor's).
 */
int bc_package_walk(const char *path, size_t max_size,
		    const struct bc_package_visitor *visitor,
		    const struct bc_log *log);

/*
 * The kernel's version from its member's path: "vmlinuz-VERSION" of
 * boot/, or the VERSION directory of lib/modules/VERSION/vmlinuz.
 * malloc'd; NULL when out of memory.
 */
char *bc_package_kernel_version(const char *member);

#endif
