/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libarchive, loaded when a package is first read rather than linked.
 *
 * Linked, libarchive.so.13 brings libxml2, ICU (libicuuc and its 30 MB
 * libicudata), libstdc++, nettle and libacl into every btfcanon and
 * btfcanon-pahole process, and the dynamic loader maps and relocates them
 * all before main(): about 3 ms of wall time and CPU at every start (the
 * lead's do-nothing program: 5.5 ms with btfcanon's libraries, 3.0 ms
 * without libarchive's chain). A kernel build starts btfcanon-pahole once
 * per module. Only package.c needs libarchive, for .deb and .rpm inputs:
 * it calls through a struct bc_libarchive, one pointer per function it
 * uses, filled by dlopen() and dlsym() at the first package read.
 *
 * The build still compiles against <archive.h>: each pointer's type is
 * __typeof__ of libarchive's own prototype, so a call through it is
 * checked as a direct call would be. The binaries do not link
 * -larchive, so a direct call left in package.c fails the link.
 */
#ifndef BTFCANON_LIBARCHIVE_H
#define BTFCANON_LIBARCHIVE_H

#include <archive.h>
#include <archive_entry.h>

/* What dlopen() asks for: libarchive's ABI since 3.0 (Debian: libarchive13). */
#define BC_LIBARCHIVE_SONAME "libarchive.so.13"

/* X(name) for each libarchive function package.c calls. */
#define BC_LIBARCHIVE_FUNCTIONS(X)		\
	X(archive_read_new)			\
	X(archive_read_free)			\
	X(archive_read_support_format_ar)	\
	X(archive_read_support_format_tar)	\
	X(archive_read_support_format_cpio)	\
	X(archive_read_support_filter_rpm)	\
	X(archive_read_support_filter_gzip)	\
	X(archive_read_support_filter_bzip2)	\
	X(archive_read_support_filter_xz)	\
	X(archive_read_support_filter_lzma)	\
	X(archive_read_support_filter_zstd)	\
	X(archive_read_open)			\
	X(archive_read_open_filename)		\
	X(archive_read_next_header)		\
	X(archive_read_data)			\
	X(archive_error_string)			\
	X(archive_set_error)			\
	X(archive_entry_pathname)		\
	X(archive_entry_filetype)		\
	X(archive_entry_size)			\
	X(archive_entry_size_is_set)

/*
 * libarchive's functions, called as la->archive_read_new(). handle is
 * NULL when the library could not be loaded; error then says why
 * (dlerror()'s text: the soname and the loader's reason, or the missing
 * function).
 */
struct bc_libarchive {
	void *handle;
	char error[512];
#define BC_LIBARCHIVE_POINTER(name) __typeof__(name) *name;
	BC_LIBARCHIVE_FUNCTIONS(BC_LIBARCHIVE_POINTER)
#undef BC_LIBARCHIVE_POINTER
};

/*
 * Loads soname into *la (RTLD_LAZY | RTLD_LOCAL) and looks up every
 * function. Returns 0, or -ELIBACC with la->handle NULL and la->error
 * set; a library that lacks a function is closed again.
 */
int bc_libarchive_open(struct bc_libarchive *la, const char *soname);

/* Closes what bc_libarchive_open() loaded; accepts a failed load. */
void bc_libarchive_close(struct bc_libarchive *la);

/*
 * The process's libarchive: BC_LIBARCHIVE_SONAME, loaded by the first
 * call from any thread, kept until exit. Never NULL; check ->handle.
 */
const struct bc_libarchive *bc_libarchive(void);

#endif
