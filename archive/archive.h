/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel archive: many kernels' BTF in one file, each under a name.
 * This comment is the contract between the archive and its users (the
 * `archive` command, the readers of ARCHIVE:NAME inputs, deps).
 *
 * What a kernel is. A kernel is its BTF in canonical order, exactly the
 * bytes `btfcanon sort` writes for the input (default order, the input's
 * kind layout section kept), plus named attachment blobs ("facts",
 * "kconfig", ...) that the archive stores and hands back untouched.
 * bc_archive_kernel_raw() gives those bytes back, byte for byte. A kernel
 * may hold modules, each its split BTF over the kernel's bytes (below,
 * "Modules").
 *
 * How it is stored (DESIGN.md, "The kernel archive"). Every type record is
 * rewritten with its references taken by name: a reference to a named type
 * is (kind, name, k), k telling apart types of one kind and name in one
 * kernel by their canonical order; a reference to an anonymous type is the
 * anonymous type's own record, so anonymous types are addressed by their
 * content. Records equal in that form are stored once, in a pool shared by
 * all kernels; a kernel is the list of its records' numbers in canonical
 * order, written as copies from a parent kernel and literals. A kernel
 * whose records cannot be taken by name (a loop through anonymous types
 * only, two identical anonymous types) is stored as its bytes instead.
 * The whole is compressed (LZ4; zstd in the files of version 1, still
 * read) and checksummed (CRC-32 over every byte).
 *
 * Determinism. The file is a function of the set of (name, kernel,
 * attachments): kernels are kept in version order (bc_archive_name_cmp),
 * every pool is numbered by first use in that order, parents are chosen
 * from that order only. add and remove write the same bytes a create of
 * the resulting set writes.
 *
 * Kernel indices run 0 .. bc_archive_nr_kernels()-1 in version order; they
 * change when kernels are added or removed.
 *
 * Threads: an archive is used by one thread at a time (lists are decoded
 * on first use and kept, or for views freed when no longer needed;
 * rebuilding and views reuse arrays kept in the archive); separate
 * archives are independent. bc_archive_add_files()
 * (archive/add_input.h) runs its own reader threads.
 *
 * Cost of reading: opening decompresses the body and reads every record
 * of the pool (tens of ms for 118 kernels; bc_archive_open_lazy() reads
 * a record when a kernel rebuilt uses it); a kernel rebuilt whole costs
 * about 10 ms per 100k types, a view under 1 ms (its list decoded and
 * read once); lists decoded for one kernel serve its descendants too.
 *
 * Errors: negative errno, after one message on the log naming the file.
 */
#ifndef BTFCANON_ARCHIVE_H
#define BTFCANON_ARCHIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../canon/btf_data.h"
#include "../canon/log.h"

/* The first 8 bytes of every archive file. */
#define BC_ARCHIVE_MAGIC "BTFCARC1"
#define BC_ARCHIVE_MAGIC_LEN 8

struct bc_archive;

/* An empty archive (for create). Returns 0 or -ENOMEM. */
int bc_archive_new(struct bc_archive **ar);

/*
 * Reads and checks the archive file path (size, checksum, every count and
 * number inside). Returns 0, or a negative errno after a message naming
 * the file (-EINVAL for a damaged or foreign file).
 */
int bc_archive_open(const char *path, struct bc_archive **ar,
		    const struct bc_log *log);

/*
 * As bc_archive_open(), for taking a kernel or a few out of the file
 * (extract, list, ARCHIVE:NAME inputs): a record is decoded and checked
 * when a kernel rebuilt uses it, not all of them at open, so a damaged
 * record shows when a kernel that uses it is read. Whatever needs every
 * record (views, add, remove, writing) reads the rest on first use. Files
 * of format 1 and 2 are read whole.
 */
int bc_archive_open_lazy(const char *path, struct bc_archive **ar,
			 const struct bc_log *log);

/*
 * bc_archive_open_lazy() for a reader of one kernel or module (extract,
 * list): in a file of format 4 or 5 cut as the writer cuts it, the string
 * bytes and record words (two thirds of the body) stay packed and are
 * unpacked as far as the kernel read needs them, each string checked
 * where it is used; whatever needs the rest (views, add, remove, writing)
 * unpacks and checks it on first use. Any other file is read as
 * bc_archive_open_lazy() reads it.
 */
int bc_archive_open_partial(const char *path, struct bc_archive **ar,
			    const struct bc_log *log);

/* As bc_archive_open() from size bytes at data (copied); path names it. */
int bc_archive_parse(const void *data, size_t size, const char *path,
		     struct bc_archive **ar, const struct bc_log *log);

/* Frees ar; accepts NULL. */
void bc_archive_free(struct bc_archive *ar);

/* True when the file at path starts with the archive magic. */
bool bc_archive_is_archive(const char *path);

uint32_t bc_archive_nr_kernels(const struct bc_archive *ar);

const char *bc_archive_kernel_name(const struct bc_archive *ar, uint32_t k);

/* The index of the kernel called name, or -ENOENT. */
int bc_archive_find_kernel(const struct bc_archive *ar, const char *name);

/*
 * The indices of the kernels whose names match the fnmatch(3) pattern
 * glob, in version order, into *idx (malloc'd; free it), their count in
 * *nr. Returns 0 (with *nr possibly 0) or -ENOMEM.
 */
int bc_archive_match(const struct bc_archive *ar, const char *glob,
		     uint32_t **idx, uint32_t *nr);

/*
 * Kernel k's BTF, the bytes `btfcanon sort` wrote for it, into *raw
 * (malloc'd). Returns 0 or a negative errno (a damaged archive).
 */
int bc_archive_kernel_raw(struct bc_archive *ar, uint32_t k, void **raw,
			  size_t *size, const struct bc_log *log);

/* Kernel k's BTF parsed (canon/btf_data.h); free with bc_btf_free(). */
int bc_archive_kernel_btf(struct bc_archive *ar, uint32_t k,
			  struct bc_btf **btf, const struct bc_log *log);

/*
 * True when kernel k is kept as its bytes, not as records (its types
 * could not be taken by name: see DESIGN.md); views cannot read it.
 */
bool bc_archive_kernel_stored_as_bytes(const struct bc_archive *ar, uint32_t k);

/*
 * Adds the kernel sorted (canonical BTF as `btfcanon sort` writes it;
 * checked) under name. -EEXIST when the archive has a kernel of that name.
 */
int bc_archive_add_sorted(struct bc_archive *ar, const char *name,
			  const void *sorted, size_t size,
			  const struct bc_log *log);

/*
 * Modules. A kernel may hold modules: each one's BTF split over the
 * kernel's, in canonical form (what `btfcanon sort --base VMLINUX MODULE`
 * writes over the kernel's bytes), under the module's name ("xfs",
 * "nf_conntrack"), kept in name order (strcmp). A module is stored as
 * records whose references to the kernel's types are by name, as the
 * kernel's own are, so that a module that did not change between two
 * kernels costs next to nothing, although every base id in its bytes
 * moved; one that records do not give back is kept as its bytes (as are
 * the modules of a kernel kept as bytes).
 */
uint32_t bc_archive_nr_modules(const struct bc_archive *ar, uint32_t k);
/*
 * An archive opened partially (bc_archive_open_partial) of format 6 reads
 * the modules when asked: bc_archive_read_modules every kernel's (k, a
 * kernel's or negative, is checked only: the modules are stored by name,
 * so a kernel's are in every name's group), before the calls above see
 * them; 0 at once otherwise; else a negative errno after a message.
 * bc_archive_read_module reads the group of one name (every kernel's
 * module of that name: kernel k's and its parents') and returns the
 * index of kernel k's, or -ENOENT without a message when it has none
 * (then every kernel's modules are read, so bc_archive_nr_modules says
 * whether it has any); other errors after a message. Until every module
 * is read, kernels list the modules of the names read only.
 */
int bc_archive_read_modules(struct bc_archive *ar, int64_t k,
			    const struct bc_log *log);
int bc_archive_read_module(struct bc_archive *ar, uint32_t k,
			   const char *name, const struct bc_log *log);
const char *bc_archive_module_name(const struct bc_archive *ar, uint32_t k,
				   uint32_t i);
/* The index of kernel k's module called name, or -ENOENT. */
int bc_archive_find_module(const struct bc_archive *ar, uint32_t k,
			   const char *name);
bool bc_archive_module_stored_as_bytes(const struct bc_archive *ar, uint32_t k,
				       uint32_t i);

struct bc_archive_module_in {
	const char *name;
	const void *sorted;	/* canonical split BTF over kernel k's bytes */
	size_t size;
};

/*
 * Adds nr modules to kernel k; *added counts those added. A module whose
 * name kernel k has already, or whose bytes are no split BTF over the
 * kernel, is left out with a warning naming it; the others are added.
 * Returns 0, or a negative errno (out of memory, a damaged archive).
 */
int bc_archive_add_modules(struct bc_archive *ar, uint32_t k,
			   const struct bc_archive_module_in *in, uint32_t nr,
			   uint32_t *added, const struct bc_log *log);

/*
 * Reading modules: bc_archive_kmods_open prepares kernel k for rebuilding
 * its modules (its bytes into *base_raw unless base_raw is NULL), then
 * bc_archive_kmods_module gives module i's bytes (malloc'd), each on its
 * own: a damaged module is an error of that module alone, after a message
 * naming it.
 */
struct bc_archive_kmods;

int bc_archive_kmods_open(struct bc_archive *ar, uint32_t k,
			  struct bc_archive_kmods **km, void **base_raw,
			  size_t *base_size, const struct bc_log *log);
int bc_archive_kmods_module(struct bc_archive_kmods *km, uint32_t i,
			    void **raw, size_t *size, const struct bc_log *log);
void bc_archive_kmods_free(struct bc_archive_kmods *km);

/*
 * A kernel's bytes base_raw and nr of its modules' (split over it) as one
 * non-split BTF, every type once, in canonical order (archive/merged.c):
 * for libbpf's btf_custom_path, which reads one blob. jobs: canon's
 * threads (the bytes do not depend on it). what names it in messages.
 */
int bc_archive_merge_modules(const void *base_raw, size_t base_size,
			     void *const *mods, const size_t *sizes, uint32_t nr,
			     unsigned int jobs, void **out, size_t *out_size,
			     const char *what, const struct bc_log *log);

/* Removes kernel k and its attachments. */
int bc_archive_remove(struct bc_archive *ar, uint32_t k);

/*
 * Attachments: named blobs of a kernel, kept as given ("facts", "kconfig",
 * "modules", ...). set replaces a blob of the same name; data is copied.
 * get returns 0 with a pointer into the archive (valid until the archive
 * changes or is freed), or -ENOENT.
 */
int bc_archive_set_attachment(struct bc_archive *ar, uint32_t k,
			      const char *what, const void *data, size_t size);
int bc_archive_attachment(const struct bc_archive *ar, uint32_t k,
			  const char *what, const void **data, size_t *size);

/* Names of kernel k's attachments, sorted; *nr of them. */
const char *const *bc_archive_attachment_names(const struct bc_archive *ar,
					       uint32_t k, uint32_t *nr);

/* The archive file's bytes into *out (malloc'd). */
int bc_archive_serialize(struct bc_archive *ar, void **out, size_t *size,
			 const struct bc_log *log);

/*
 * bc_archive_serialize() for a file written often and read at once (deps
 * --save): the kernels as records, every stream in zstd (no xz, no
 * kernel as bytes: 0.1 s for a kernel instead of 1.5).
 */
int bc_archive_serialize_quick(struct bc_archive *ar, void **out,
			       size_t *size, const struct bc_log *log);

/*
 * Writes the archive to path whole or not at all (temporary file in the
 * same directory, fsync, rename). The environment variable
 * BTFCANON_FAULT_KILL_WRITE=1 kills the process with SIGKILL halfway
 * through the temporary file: the tests' stand-in for a killed run.
 */
int bc_archive_write(struct bc_archive *ar, const char *path,
		     const struct bc_log *log);

/*
 * Writers take turns (archive/lock.c; DESIGN.md "Writers take turns").
 * A writer of an existing file (add, remove, create over it, deps --save
 * over it) holds flock(LOCK_EX) on the file path names from before it
 * reads it until its rename, so that writers run one after another and
 * none loses another's change; readers take no lock (the rename gives
 * them the old file or the new one). A killed writer's lock goes with its
 * process; no lock file is made.
 *
 * bc_archive_lock_file: takes that lock, waiting at most wait_ms for the
 * writer holding it; *fd holds it (close it to let go). When path does
 * not exist: -ENOENT if must_exist, else 0 with *fd -1 (nothing to lock;
 * so too, unless must_exist, for a file that may not be read or is no
 * regular file: a device or FIFO, written in place).
 * -ETIMEDOUT when another writer held it all that time, after the message
 * "PATH: locked by another writer for N s; nothing changed".
 *
 * bc_archive_open_locked: bc_archive_open() for a writer: the lock taken
 * as above, then the archive read through the locked descriptor. ar holds
 * the lock until bc_archive_write() has renamed the new file over path, or
 * until bc_archive_free().
 *
 * bc_archive_lock: for a writer that does not read the file (create): ar
 * takes the lock of the file at path, if one is there, as above.
 */
#define BC_ARCHIVE_WAIT_MS 60000	/* the writers' default bound */

int bc_archive_lock_file(const char *path, uint32_t wait_ms, bool must_exist,
			 int *fd, const struct bc_log *log);
int bc_archive_open_locked(const char *path, uint32_t wait_ms,
			   struct bc_archive **ar, const struct bc_log *log);
int bc_archive_lock(struct bc_archive *ar, const char *path, uint32_t wait_ms,
		    const struct bc_log *log);

/*
 * Reading part of a kernel: a view looks types up by kind and name and
 * decodes single records, without building the kernel's whole BTF. Ids are
 * the kernel's own (those of bc_archive_kernel_raw()). A view stays valid
 * until the archive changes or is freed, and is freed before the archive.
 * Views opened kernel after kernel in version order keep only the lists
 * still needed: a kernel's list decoded for a view is freed once no view
 * is open on it and every kernel whose parent it is has been viewed.
 */
struct bc_archive_view;

int bc_archive_view_open(struct bc_archive *ar, uint32_t k,
			 struct bc_archive_view **view,
			 const struct bc_log *log);
void bc_archive_view_free(struct bc_archive_view *view);

uint32_t bc_archive_view_nr_types(const struct bc_archive_view *view);

/*
 * The ids of the types of kind (BTF_KIND_*) and name, ascending, up to max
 * of them into ids; returns how many there are (may exceed max).
 */
uint32_t bc_archive_view_find(const struct bc_archive_view *view,
			      uint32_t kind, const char *name, uint32_t *ids,
			      uint32_t max);

/*
 * Type id's record as BTF words with the kernel's ids in references, into
 * words[] (room for max words); name words hold string numbers that
 * bc_archive_view_str() resolves. Returns the record's word count (may
 * exceed max: call again with more room), or -EINVAL for a bad id.
 */
int bc_archive_view_type(const struct bc_archive_view *view, uint32_t id,
			 uint32_t *words, uint32_t max);

const char *bc_archive_view_str(const struct bc_archive_view *view,
				uint32_t str);

/*
 * Whether type a_id of view a and type b_id of view b are one record of
 * one archive: the same words, with references to the same names, so
 * that everything reached from them through anonymous types is the same
 * too (what the named types hold may differ).
 */
bool bc_archive_view_same_record(const struct bc_archive_view *a,
				 uint32_t a_id,
				 const struct bc_archive_view *b,
				 uint32_t b_id);

/*
 * The number (+1) of type id's record in the archive's pool, 0 for a bad
 * id: two types of one archive with the same number are the same record
 * (as bc_archive_view_same_record() says), whatever their kernels.
 */
uint32_t bc_archive_view_record(const struct bc_archive_view *view, uint32_t id);

/*
 * Type id's name and kind (*kind, BTF_KIND_*) when it is named, without
 * decoding its record; NULL for an anonymous type or a bad id. A pass
 * over every id of a kernel costs a table read per type.
 */
const char *bc_archive_view_name(const struct bc_archive_view *view,
				 uint32_t id, uint32_t *kind);

/*
 * The archive's (kind, name) pairs: every kind and name that a type of
 * some kernel has, nr of them; pair i's name, its kind in *kind. For
 * indexes over names that a reader builds once per archive rather than
 * once per kernel (deps: the names with a flavor suffix).
 */
uint32_t bc_archive_nr_type_names(const struct bc_archive *ar);
const char *bc_archive_type_name(const struct bc_archive *ar, uint32_t i,
				 uint32_t *kind);

/*
 * Names (archive/names.c: the version order; archive/spec.c: inputs'
 * default names and ARCHIVE:NAME specs).
 *
 * bc_archive_input_name: the default name of the kernel an input holds:
 * NAME for ARCHIVE:NAME, else kimage.h's bc_kernel_default_name()
 * (vmlinuz-6.1.0-56-cloud-amd64, linux-image-6.1.0-56-cloud-amd64_6.1.192-2_amd64.deb
 * and 6.1.0-56-cloud-amd64.btf all give 6.1.0-56-cloud-amd64; a package is
 * named by its kernel member). *name is malloc'd. Returns 0 or a negative
 * errno after a message.
 */
int bc_archive_input_name(const char *path, char **name,
			  const struct bc_log *log);

/* bc_archive_input_name() without a log: the name, or NULL on error. */
char *bc_archive_default_name(const char *path);

/*
 * The version order of kernel names (names.c has the rule): by line
 * (flavor, then distribution), then upstream version, release and
 * distribution tag as rpm and dpkg compare versions, then byte-wise:
 * 6.1.0-44-amd64 < 6.1.0-56-amd64 < 6.12.117+deb12-amd64;
 * 3.10.0-1160.el7.x86_64 < 4.18.0-147.5.1.el8_1.x86_64
 * < 4.18.0-193.el8_2.x86_64 < 5.14.0-284.11.1.el9_2.x86_64.
 */
int bc_archive_name_cmp(const char *a, const char *b);

/*
 * The flavor part of a kernel name: "cloud-amd64" of 6.1.0-56-cloud-amd64,
 * "aarch64" of 4.18.0-147.5.1.el8_1.aarch64; "" when none.
 */
const char *bc_archive_name_flavor(const char *name);

/*
 * The line of a kernel name into buf, as snprintf: its distribution and
 * flavor ("el aarch64" for 4.18.0-147.5.1.el8_1.aarch64, "cloud-amd64" for
 * 6.1.0-56-cloud-amd64). Kernels of a line sit together in version order.
 */
int bc_archive_name_line(const char *name, char *buf, size_t size);

/*
 * Splits "ARCHIVE:PATTERN" when the part before the last ':' is an
 * archive file: *archive (malloc'd) and *pattern (pointing into spec).
 * Returns 1 when it is such a spec, 0 when not, -ENOMEM.
 */
int bc_archive_split_spec(const char *spec, char **archive,
			  const char **pattern);

/*
 * --kernel NAME=FILE: the kernel in FILE named NAME, for a file whose
 * name tells no version (running.btf, a copy of /sys/kernel/btf/vmlinux).
 * The rule, the same for every --kernel: an argument that exists as a
 * path is that path, '=' and all; else, when the part before its first
 * '=' is not empty and has no '/', it is NAME=FILE (FILE any --kernel
 * input of one kernel: a file, ARCHIVE:NAME, a saved kernel file); else
 * it is a path. So "dir/a=b.btf" is always a path, and a file named
 * "a=b.btf" in the current directory is "./a=b.btf" when it does not
 * exist yet. Sets *name (malloc'd) and *file (into arg; arg itself when
 * no name). Returns 1 for NAME=FILE, 0 for a path, -ENOMEM.
 */
int bc_kernel_arg_split(const char *arg, char **name, const char **file);

/*
 * One --kernel argument of the commands that read many kernels (deps,
 * min, header): a file that is no archive (ar NULL), or an archive whole
 * or as ARCHIVE:GLOB, opened, with the indices of the kernels that match
 * in version order, each given NAME=FILE's name when it has one (then one
 * kernel). A kernel's label is "PATH:NAME".
 */
struct bc_archive_arg {
	struct bc_archive *ar;	/* the archive, the caller's to free */
	char *path;		/* its file (malloc'd) */
	uint32_t *idx, nr;	/* the matching kernels (malloc'd), nr > 0 */
	bool spec;		/* ARCHIVE:GLOB, not the whole archive */
	char *name;		/* NAME of NAME=FILE (malloc'd), or NULL */
	const char *file;	/* the argument without "NAME=" */
};

/*
 * Fills *a from arg. Returns 0 or a negative errno after a message
 * (-ENOENT when no kernel of the archive matches or NAME=FILE's FILE
 * does not exist; -EINVAL when NAME=FILE's FILE holds several kernels),
 * with nothing to free.
 */
int bc_archive_arg_open(const char *arg, struct bc_archive_arg *a,
			const struct bc_log *log);

/* Frees a's path and indices (not its archive); accepts a zeroed one. */
void bc_archive_arg_deinit(struct bc_archive_arg *a);

/*
 * Reads the kernel spec "ARCHIVE:NAME" (NAME may be a glob matching
 * exactly one kernel) into a blob of its sorted BTF bytes, as
 * btf_file.h's readers do for files. Returns 0 or a negative errno
 * after a message naming the spec.
 */
int bc_archive_read_spec(const char *spec, void **raw, size_t *size,
			 const struct bc_log *log);

#endif
