/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A kernel with its modules: the vmlinux BTF (the base) and, for each
 * module, its split BTF over that base, read in one go from whatever
 * holds them:
 *
 *   a kernel package   .deb or .rpm: the kernel image and every module
 *                      under [usr/]lib/modules/ (.ko, .ko.xz, .ko.zst,
 *                      .ko.gz), one pass through the package
 *   a modules tree     /lib/modules/VERSION, or an unpacked package's
 *                      root (lib/modules/VERSION under it): the .ko files
 *                      of the tree, and the kernel beside it (VERSION/
 *                      vmlinux or vmlinuz, ROOT/usr/lib/debug/boot/
 *                      vmlinux-VERSION, ROOT/boot/vmlinux-VERSION,
 *                      ROOT/boot/vmlinuz-VERSION: the first there)
 *   a directory of BTF /sys/kernel/btf, or any directory laid out so:
 *                      DIR/vmlinux, and every other regular file a
 *                      module's split BTF (raw, or a module's ELF file)
 *   any other file     what bc_input_load() reads: vmlinux alone
 *                      (has_modules false: a bare vmlinux, a BTFHub
 *                      file, an image without its modules)
 *
 * A module is named as the kernel names it: the file's name up to ".ko"
 * (or the whole name in a directory of BTF, less a ".btf"), with '-' as
 * '_' (snd-hda-core.ko is snd_hda_core). The modules are kept in name
 * order; of two files with one name the first path in byte order wins.
 *
 * A .ko is ET_REL and its .BTF section has no ALLOC flag: it is read
 * from the ELF file's section table with libelf, never from a segment.
 *
 * One bad module never stops the others: a module whose file cannot be
 * decompressed, is not ELF, has BTF that does not parse over the base, is
 * left out with one warning naming it (the package, its member and what
 * is wrong), in module order; nr_skipped counts them. A module without a
 * .BTF section (built without BTF) is left out silently, counted in
 * nr_no_btf. The base is different: a kernel whose vmlinux cannot be read
 * is an error.
 *
 * Cost: the package is read once, sequentially (libarchive undoes the
 * data.tar's compression); a plain .ko keeps only its .BTF from then on,
 * a compressed one its compressed bytes. Then the modules are
 * decompressed and parsed over the base on opts->jobs threads, each task
 * writing only its own module's slot and holding back its message until
 * all are done, so the set and the messages depend on the input alone.
 */
#ifndef BTFCANON_KERNEL_SET_H
#define BTFCANON_KERNEL_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../canon/btf_data.h"
#include "../canon/log.h"
#include "input.h"

struct bc_kmod {
	char *name;		/* "xfs", "nf_conntrack", "snd_hda_core" */
	char *origin;		/* the file, or "PACKAGE: MEMBER" */
	struct bc_btf *btf;	/* split BTF over the set's base */
};

enum bc_kset_source {
	BC_KSET_FILE,		/* one file: vmlinux alone */
	BC_KSET_BTF_DIR,	/* DIR/vmlinux and split BTF files */
	BC_KSET_TREE,		/* a modules tree and the kernel beside it */
	BC_KSET_PACKAGE,	/* a .deb or .rpm */
};

struct bc_kernel_set {
	const char *path;		/* as given; not owned */
	enum bc_kset_source source;
	/* the kernel's BTF as read (not canonicalized): input.btf */
	struct bc_input input;
	/*
	 * The file vmlinux was read from (its symbols, its DWARF), or
	 * NULL (a package: the image inside it).
	 */
	char *vmlinux_path;
	/* the input is of a form that holds modules (even none) */
	bool has_modules;
	struct bc_kmod *mods;		/* in name order */
	uint32_t nr_mods;
	uint32_t nr_skipped;		/* bad modules, each said */
	uint32_t nr_no_btf;		/* modules without .BTF */
};

struct bc_kernel_set_opts {
	unsigned int jobs;	/* threads for the modules; 0: bc_par_cpus() */
	bool no_modules;	/* vmlinux alone, whatever holds it */
};

/* The most a module file may decompress to (256 MiB). */
#define BC_KMOD_MAX_SIZE ((size_t)256 << 20)

/*
 * Reads the kernel and modules that path holds (opts may be NULL).
 * Returns 0 (bad modules left out, warned) or a negative errno after one
 * message naming path and what is wrong; ks is then zeroed.
 */
int bc_kernel_set_read(const char *path, const struct bc_kernel_set_opts *opts,
		       struct bc_kernel_set *ks, const struct bc_log *log);

/* Frees what bc_kernel_set_read() filled in; accepts a zeroed set. */
void bc_kernel_set_deinit(struct bc_kernel_set *ks);

/*
 * Takes module i's BTF out of ks (the caller frees it; ks keeps NULL).
 */
struct bc_btf *bc_kernel_set_take_module(struct bc_kernel_set *ks, uint32_t i);

/*
 * The join under bc_kmods_merge(), before canon: base's types under their
 * ids, then module i's types, its id X (past base's) at X + id_shift[i];
 * *whole parsed (free with bc_btf_free). For min, which maps the
 * candidates found in a module into the join. Returns 0 or a negative
 * errno after a message.
 */
int bc_kmods_join(const struct bc_btf *base, const struct bc_btf *const *mods,
		  uint32_t n, struct bc_btf **whole, uint32_t *id_shift,
		  const struct bc_log *log);

/*
 * One non-split BTF of base (a kernel's BTF) and the modules mods[0 .. n)
 * split over it, for libbpf's btf_custom_path, which takes one BTF and
 * looks into no module: base's types keep their ids, then each module's
 * types follow those before it, its ids and string offsets moved; the
 * whole then canonicalized (canon/), so the types several modules define
 * alike are one. *raw is malloc'd. Returns 0 or a negative errno (-EINVAL:
 * a module not split over base) after a message.
 */
int bc_kmods_merge(const struct bc_btf *base, const struct bc_btf *const *mods,
		   uint32_t n, void **raw, size_t *size,
		   const struct bc_log *log);

/*
 * Reads path (as bc_kernel_set_read) and gives one BTF of its vmlinux and
 * the modules whose names match any of globs[0 .. nr_globs) (fnmatch;
 * "xfs", "nf_*"), canonical (bc_kmods_merge), for `dump -f c --module`
 * and `header --module`. hits[g] (may be NULL) is set to 1 when glob g
 * took a module (an atomic store: kernels may be read on several
 * threads); *has_modules says whether path could hold modules at all
 * (false: vmlinux alone). *raw is malloc'd. Returns 0 or a negative errno
 * after a message.
 */
int bc_kernel_set_merged(const char *path, const char *const *globs,
			 uint32_t nr_globs, uint8_t *hits, void **raw,
			 size_t *size, bool *has_modules,
			 const struct bc_log *log);

/*
 * bc_kernel_set_merged() of kernel k of ar, its modules read from the
 * archive's records (archive.h, "Modules"): the kernel's bytes and the
 * modules matching globs, each split over them, merged by
 * bc_kmods_merge(), so the bytes are those bc_kernel_set_merged() gives
 * for the kernel's package or directory (canon makes them one). label
 * names the kernel in messages; a module that cannot be rebuilt is left
 * out with a warning naming it. Returns 0 or a negative errno after a
 * message.
 */
struct bc_archive;
int bc_archive_kernel_merged(struct bc_archive *ar, uint32_t k,
			     const char *label, const char *const *globs,
			     uint32_t nr_globs, uint8_t *hits, void **raw,
			     size_t *size, const struct bc_log *log);

/*
 * The BTF blob of one module file's bytes data[0..size): decompressed
 * when xz, zstd or gzip, then the .BTF section of the ELF file, or the
 * bytes themselves when they are raw BTF. *out is malloc'd. Returns 0;
 * -ENOENT for an ELF file without .BTF; -EINVAL with *why (a fixed
 * text, or err_buf filled) for anything else wrong; -ENOMEM. Prints
 * nothing. For the fuzz target and the readers above.
 */
int bc_kmod_read_btf(const uint8_t *data, size_t size, size_t max_size,
		     uint8_t **out, size_t *out_size, char *err_buf,
		     size_t err_len);

/*
 * The module name of a file name (a path's last component is used):
 * "nf_conntrack.ko.xz" -> "nf_conntrack", "snd-hda-core.ko" ->
 * "snd_hda_core"; NULL when it is not a module file (.ko, .ko.xz,
 * .ko.zst, .ko.gz) or out of memory. malloc'd.
 */
char *bc_kmod_name(const char *file);

#endif
