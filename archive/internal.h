/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The archive's insides, shared by its files: archive.c (the object, its
 * kernels), pool.c (strings, names, records), records.c (BTF to records
 * and back), format.c (the file), view.c (part of a kernel), add_input.c
 * (inputs added). The types here are the ground every one of them stands
 * on; the files call each other downward only (pool <- records <- archive
 * <- format, view <- spec, add_input). Not for users outside archive/
 * (the fuzz target excepted).
 */
#ifndef BTFCANON_ARCHIVE_INTERNAL_H
#define BTFCANON_ARCHIVE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/btf.h>

#include "../canon/btf_kinds.h"
#include "archive.h"

struct ar_buf {
	uint8_t *data;
	size_t len, cap;
};

int ar_buf_reserve(struct ar_buf *b, size_t more);
int ar_buf_put(struct ar_buf *b, const void *data, size_t len);
int ar_buf_varint(struct ar_buf *b, uint64_t v);
int ar_get_varint(const uint8_t *data, size_t end, size_t *pos, uint64_t *v);

/* A varint of at most 32 bits at *pos below end; false past end or wider. */
static inline bool ar_get_u32(const uint8_t *data, size_t end, size_t *pos,
			      uint32_t *v)
{
	uint32_t x = 0;
	unsigned shift;

	if (__builtin_expect(*pos < end && data[*pos] < 0x80, 1)) {
		*v = data[(*pos)++];	/* most are one byte */
		return true;
	}
	for (shift = 0; shift < 35 && *pos < end; shift += 7) {
		uint8_t byte = data[(*pos)++];

		if (shift == 28 && byte > 0x0f)
			return false;
		x |= (uint32_t)(byte & 0x7f) << shift;
		if (!(byte & 0x80)) {
			*v = x;
			return true;
		}
	}
	return false;
}

struct u32vec {
	uint32_t *v;
	size_t n, cap;
};

int ar_u32vec_push(struct u32vec *v, uint32_t x);

/*
 * size bytes (not zeroed) for a buffer of a megabyte or more that is
 * filled right after: 2 MiB-aligned and rounded up to 2 MiB, so all of it
 * can be transparent huge pages (madvise), where malloc's own mapping starts
 * anywhere and leaves up to 2 MiB at either end in 4 KiB pages. On this
 * machine a 4 KiB page costs 0.75 ms a MB to fault in, a huge page 0.1.
 * Smaller sizes are plain malloc. Free with free().
 */
void *ar_alloc_big(size_t size);
/* calloc(n, size), huge pages allowed where it is large (zeroed: fresh). */
void *ar_calloc_big(size_t n, size_t size);

static inline uint64_t ar_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t ar_unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* Word count of a record whose info word is info (kind valid). */
static inline uint32_t ar_info_words(uint32_t info)
{
	struct btf_type t = { .info = info };

	return bc_type_words(&t);
}

/*
 * The classes of a record's words from word 2 on, in order (w[2], the
 * fixed words, then entry after entry), one call a word: what
 * bc_word_class() says, without its per-word arithmetic, for the loops
 * that go over every word of every record (reading the pool, rebuilding
 * a kernel).
 */
struct ar_word_cursor {
	const struct bc_kind_layout *kl;
	uint32_t j;		/* words of the head and fixed part left */
	uint32_t e;		/* position in the entry */
};

static inline void ar_word_cursor_init(struct ar_word_cursor *wc, uint32_t kind)
{
	wc->kl = &bc_kinds[kind];
	wc->j = 0;
	wc->e = 0;
}

static inline enum bc_word_class ar_word_next(struct ar_word_cursor *wc)
{
	const struct bc_kind_layout *kl = wc->kl;
	enum bc_word_class cls;

	if (wc->j <= kl->fixed_words) {
		uint32_t j = wc->j++;

		if (!j)
			return kl->head_ref ? BC_WORD_REF : BC_WORD_DATA;
		return (kl->fixed_ref_mask >> (j - 1)) & 1 ? BC_WORD_REF : BC_WORD_DATA;
	}
	cls = bc_entry_word_class(kl, wc->e);
	if (++wc->e == kl->entry_words)
		wc->e = 0;
	return cls;
}

/* A kernel's flags in the file: bit 0, stored as its bytes. */
#define AR_FLAG_RAW 1u

/* pool numbers by content: slot = hash << 32 | (number + 1) */
struct idtab {
	uint64_t *slots;
	uint32_t nr_slots, nr_used;
};

struct ar_str {
	const char *s;		/* NUL-terminated: in the body or the arena */
	uint32_t len;
};

struct ar_kn {			/* a (kind, name) pair */
	uint32_t kind;
	uint32_t sid;
};

/*
 * A record of a format 3 body not yet turned into cells: its first two
 * cells, and where its words start in the words section (they end where
 * the next record's start: one entry more than records).
 */
struct ar_rec_head {
	uint32_t info;
	uint32_t kn1;
	uint32_t pos;
};

struct ar_attachment {
	char *name;
	uint8_t *data;
	size_t size;
};

/*
 * A kernel's module: split BTF over the kernel's base, as records (its
 * list, written against the module of the same name in the kernel's
 * parent) or, where records do not give its bytes back or the kernel is
 * kept as bytes, as its bytes.
 */
struct ar_module {
	char *name;
	bool name_read;			/* name not its own: in its kernel's
					   mod_names (format 5) or the
					   archive's mod_dir (format 6) */
	bool raw;
	uint8_t *blob;			/* raw: the sorted split BTF */
	size_t blob_size;
	uint32_t *recs;			/* the list, once decoded */
	uint32_t nr_types;
	const uint8_t *script;		/* the list as read, until decoded */
	size_t script_len;
	struct bc_btf_layout *layout;
	uint32_t nr_layout;
	uint32_t group;			/* format 6: its name's group, read in
					   part (deferred.c); else 0 */
};

struct ar_kernel {
	char *name;
	bool raw;			/* stored as its bytes */
	uint8_t *blob;			/* raw: the sorted BTF */
	size_t blob_size;
	uint32_t *recs;			/* the list of records, once decoded */
	uint32_t nr_types;
	const uint8_t *script;		/* the list as read, until decoded */
	size_t script_len;
	int64_t parent;			/* kernel index, -1: none */
	struct bc_btf_layout *layout;
	uint32_t nr_layout;
	struct ar_attachment *att;	/* sorted by name */
	uint32_t nr_att;
	const char **att_names;
	uint32_t nr_views;		/* views open on it (view.c) */
	bool list_for_views;		/* recs decoded for a view: freed after */
	bool viewed;			/* a view was opened on it */
	struct ar_module *mods;		/* by name (strcmp) */
	char *mod_names;		/* format 5: the names of the modules read */
	uint32_t nr_mods, cap_mods;
};

/*
 * Format 6's module names (the directory after the kernel entries): every
 * name a kernel's module has, ascending; name g is group g of the modules
 * section. The names of modules read from format 6 point here.
 */
struct ar_mod_dir {
	char **names;
	char *block;
	uint32_t nr;
};

/*
 * Arrays over the pools for rebuilding kernels, zero between uses (one
 * allocation, mem).
 */
struct ar_scratch {
	uint32_t *mem;
	uint32_t *first, *count;	/* [kn] */
	uint32_t *anon;			/* [record] */
	uint32_t *placed;		/* [string] */
	uint32_t nr_kns, nr_recs, nr_strs;	/* their sizes */
};

void ar_scratch_free(struct ar_scratch *sc);

/*
 * What the views of an archive share (view.c): the (kind, name) pairs by
 * name, the records of each pair, which records are named, and record ->
 * id arrays that views borrow and give back zeroed. view.c builds them;
 * the archive object holds and frees them (archive.c), so calls run one
 * way, view.c -> archive.c.
 */
struct ar_views {
	uint64_t *by_name;		/* hash << 32 | (kn + 1); 0: empty */
	uint32_t by_name_mask;		/* slots - 1 */
	uint32_t *kn_start;		/* [nr_kns + 1]: kn's records at */
	uint32_t *kn_recs;		/* kn_recs[kn_start[kn] ..], ascending */
	uint64_t *named;		/* bit per record: it has a name */
	uint32_t nr_kns, nr_recs;	/* the pools' sizes they cover */
	uint32_t *spare[2];		/* [nr_recs + 1], zero */
	uint32_t nr_spare;
};

/* Frees what the views built (archive.c). */
void ar_views_free(struct ar_views *v);

struct ar_chunk {
	struct ar_chunk *next;
	char bytes[];
};

struct bc_archive {
	char *path;			/* names the file in messages */
	uint8_t *body;			/* the decompressed body, when read */
	size_t body_size;
	struct ar_str *strs;		/* string 0 is "" */
	uint32_t nr_strs, cap_strs;
	struct ar_kn *kns;
	uint32_t nr_kns, cap_kns;
	uint32_t *cells;		/* every record's cells (records.c) */
	size_t nr_cells, cap_cells;
	uint32_t *rec_off;		/* [nr_recs + 1] record -> first cell */
	uint32_t nr_recs, cap_recs;
	/*
	 * Opened lazily (bc_archive_open_lazy): the records still in the
	 * body, cells NULL, a record decoded when a rebuilt kernel uses it;
	 * ar_load_records() turns them all into cells, and heads is then
	 * NULL. Every reader of cells goes through ar_load_records() first,
	 * except the rebuild (ar_build_raw), which reads either.
	 */
	struct ar_rec_head *heads;	/* [nr_recs + 1] */
	const uint8_t *words;		/* the words section, in body */
	size_t words_len;
	bool names_indexed;		/* str_tab and kn_tab are built */
	bool indexed;			/* and rec_tab */
	struct idtab str_tab, kn_tab, rec_tab;
	struct ar_chunk *arena;		/* strings added since reading */
	size_t arena_used, arena_cap;
	struct ar_scratch scratch;	/* records.c, ar_build_raw() */
	struct ar_views views;		/* view.c */
	bool views_unrawed;		/* kernels stored as bytes turned into
					   records before the first view */
	struct ar_kernel *kernels;	/* version order */
	uint32_t nr_kernels, cap_kernels;
	struct ar_mod_dir mod_dir;	/* format 6 read: the module names */
	size_t module_cut_bytes;	/* tests: format 6's modules cut every
					   so many bytes (0: format.c's) */
	int lock_fd;			/* lock.c: the writers' lock held, or -1 */
	/*
	 * Opened partially (bc_archive_open_partial): the string bytes and
	 * the record words still packed in file (format.c, pack.h), unpacked
	 * as far as ar_body_need() asks; ar_body_complete() unpacks and
	 * checks the rest (NULL deferred after).
	 */
	struct ar_deferred *deferred;
	/*
	 * Or, format 6, every stream still packed: parsed stream by stream
	 * as the rebuild asks (deferred.c: ar_str_ready, ar_recs_ready,
	 * ar_modules_ready); ar_body_complete() reads the rest.
	 */
	struct ar_parts *parts;
	struct bc_blob file;
};

/*
 * A partially opened archive's packed sections (deferred.c). ar_body_need:
 * the body up to end (a pointer into ar->body) unpacked; ar_str_ready:
 * string sid unpacked and checked a C string of its length. Both 0 at
 * once for an archive read otherwise; -EINVAL: damaged.
 * ar_body_complete: the whole body unpacked and checked as a lazy read
 * checks it, the file let go. ar_body_release: the packed rest dropped.
 */
int ar_body_need(const struct bc_archive *ar, const void *end);
/*
 * Format 6 read in part (deferred.c): ar_parts_open() takes the payload's
 * streams (pack.h), reads the counts and leaves every item unread;
 * ar_recs_ready() reads the heads (and unpacks the words) of the records
 * of list[0 .. n); ar_modules_ready() kernel k's modules (every group:
 * a kernel has modules in each). Each 0 at once for an archive read otherwise; -EINVAL: damaged.
 * ar_parts_unpacked(): the body bytes unpacked so far (tests).
 */
struct ar_chunks;
int ar_parts_open(struct bc_archive *ar, struct ar_chunks *c);
struct ar_reader;
/* *r over the kernels' stream, unpacked. */
int ar_parts_kernels(struct bc_archive *ar, struct ar_reader *r);
/* The kernels read from it (file order), before they are put in order. */
void ar_parts_kernels_read(struct bc_archive *ar);
int ar_recs_ready(struct bc_archive *ar, const uint32_t *list, uint32_t n);
int ar_modules_ready(struct bc_archive *ar, uint32_t k);
/*
 * Format 6 read in part: the group of module name (every kernel's module
 * of that name, so a kernel's parents' too) read, nothing else of the
 * modules; -ENOENT where no kernel has one. 0 at once otherwise.
 */
int ar_module_group_ready(struct bc_archive *ar, const char *name);
/* ar_str_ready() of each of sids[0 .. n), their streams unpacked together. */
int ar_strs_ready(struct bc_archive *ar, const uint32_t *sids, uint32_t n);
int ar_modules_all(struct bc_archive *ar);
size_t ar_parts_unpacked(const struct bc_archive *ar);

/* The body's varints, read with every number bounded (format.c, deferred.c). */
struct ar_reader {
	const uint8_t *data;
	size_t len, pos;
	bool bad;
};

uint64_t ar_rd_varint(struct ar_reader *r, uint64_t max);
const uint8_t *ar_rd_bytes(struct ar_reader *r, size_t *len);
/*
 * A record's head (kind | kflag << 7, vlen, kn + 1) into its info word and
 * kn + 1, checked: a valid kind, the pair's kind the record's.
 */
bool ar_read_head(const struct bc_archive *ar, const uint8_t *d, size_t end,
		  size_t *pos, uint32_t *info, uint32_t *kn1);
/* A kernel's modules (format 5), checked. */
int ar_read_modules(struct ar_kernel *kern, struct ar_reader *r);
/*
 * Format 6: the module names' directory (count, then each name ascending)
 * into ar->mod_dir; group g of the modules section (its entries: count,
 * then each kernel's, file order: index delta, flags, bytes or type count
 * and script, layout) into the kernels' modules, each kernel's kept in
 * name order. Both checked; r->bad on a bad number.
 */
int ar_read_module_names(struct bc_archive *ar, struct ar_reader *r);
int ar_read_module_group(struct bc_archive *ar, uint32_t g,
			 struct ar_reader *r);
void ar_mod_dir_free(struct ar_mod_dir *d);
/*
 * Module name's place among kern's modules (name order): true with *at
 * its index, or false with *at where it would go.
 */
bool ar_module_index(const struct ar_kernel *kern, const char *name,
		     uint32_t *at);
int ar_str_ready(struct bc_archive *ar, uint32_t sid);
int ar_body_complete(struct bc_archive *ar);
void ar_body_release(struct bc_archive *ar);
/* Zero bytes among n at p. */
size_t ar_count_nuls(const uint8_t *p, size_t n);

/*
 * The pools (pool.c). push appends; intern finds by content or appends
 * (ar_index_pools() first, with the records loaded as cells:
 * ar_load_records()); each returns the number or a negative errno.
 */
void ar_idtab_free(struct idtab *t);
int ar_push_str(struct bc_archive *ar, const char *s, uint32_t len);
int ar_push_kn(struct bc_archive *ar, uint32_t kind, uint32_t sid);
int ar_push_rec(struct bc_archive *ar, const uint32_t *cells, uint32_t n);
int ar_index_pools(struct bc_archive *ar);
int64_t ar_intern_str(struct bc_archive *ar, const char *s);
int64_t ar_intern_kn(struct bc_archive *ar, uint32_t kind, uint32_t sid);
int64_t ar_intern_rec(struct bc_archive *ar, const uint32_t *cells, uint32_t n);

/* The archive object (archive.c). ar_decode_all loads the records too. */
int ar_decode_all(struct bc_archive *ar, const struct bc_log *log);
bool ar_name_ok(const char *name);
/* The kernels read into version order (0; -EINVAL: a name twice; -ENOMEM). */
int ar_sort_kernels(struct bc_archive *ar);
int ar_refresh_att_names(struct ar_kernel *k);

/*
 * Records (records.c): kernel btf (canonical base BTF) as a list of
 * records into *list (malloc'd, btf->nr_types of them); and a list back
 * into BTF bytes, the layout section added when there is one.
 */
int ar_encode_kernel(struct bc_archive *ar, const struct bc_btf *btf,
		     uint32_t **list);
int ar_build_raw(struct bc_archive *ar, const uint32_t *list,
		 uint32_t n, const struct bc_btf_layout *layout,
		 uint32_t nr_layout, void **raw, size_t *size);

/*
 * The words of a record whose info word is info, read as varints from
 * d[*pos .. end) into cells (from cells[0]: the cells after info and
 * kn + 1), every number checked against what it indexes: an anonymous
 * record's against nr_recs, a pair's and a string's against the pools.
 * One cell per varint read, so end - *pos cells are room enough.
 * Returns the number of cells, or -EINVAL (*pos then undefined).
 */
int ar_decode_words(const struct bc_archive *ar, uint32_t nr_recs,
		    uint32_t info, const uint8_t *d, size_t end, size_t *pos,
		    uint32_t *cells);

/*
 * The records of a lazily opened archive into cells, all checked (a
 * no-op when they are). 0, -EINVAL (a damaged record) or -ENOMEM.
 */
int ar_load_records(struct bc_archive *ar);

/*
 * Where one kernel's types are by name (records.c), in one of two forms:
 * - by (kn, k) and by anonymous record, arrays over the pools
 *   (ar_ids_build(), and ar_build_raw() on the archive's scratch);
 * - by record (ar_ids_by_rec(), for views): of_rec[rec] is the id of the
 *   kernel's type whose record is rec, and a (kn, k) is found among the
 *   records of kn (struct ar_views). Filling it reads the list only, not
 *   the records; it needs every record of the kernel to be distinct.
 */
struct kn_rank;
struct ar_ids {
	uint32_t *first;		/* [kn] id of its k = 0 type, 0: none */
	uint32_t *anon;			/* [rec] id of the anonymous type */
	struct kn_rank *more;		/* k > 0, sorted by (kn, k) */
	uint32_t nr_more, cap_more;
	uint32_t *of_rec;		/* or [rec]: id of the type, 0: none */
	const struct ar_views *by_kn;	/* with of_rec: records of a kn */
};

int ar_ids_build(const struct bc_archive *ar, const uint32_t *list,
		 uint32_t n, struct ar_ids *ids);
void ar_ids_free(struct ar_ids *ids);
uint32_t ar_ids_ref(const struct ar_ids *ids, uint32_t code, uint32_t k);

/*
 * list[0..n) by record into ids, in of_rec (zero, [ar->nr_recs + 1],
 * the caller's) with by_kn (built over ar's pools). -EEXIST when a record
 * is in the list twice (of_rec is zero again then): use ar_ids_build().
 * ar_ids_by_rec_clear() zeroes of_rec after use (the list is the same).
 */
int ar_ids_by_rec(const uint32_t *list, uint32_t n, uint32_t *of_rec,
		  const struct ar_views *by_kn, struct ar_ids *ids);
void ar_ids_by_rec_clear(const uint32_t *list, uint32_t n, uint32_t *of_rec);

/*
 * The ids of kn's types in the kernel, ascending, up to max of them into
 * out; returns how many there are (may exceed max).
 */
uint32_t ar_ids_named(const struct ar_ids *ids, uint32_t kn, uint32_t *out,
		      uint32_t max);

/* Words of record rec (name words: string numbers; ids as in ids). */
uint32_t ar_record_nr_words(const struct bc_archive *ar, uint32_t rec);
int ar_record_words(const struct bc_archive *ar, const struct ar_ids *ids,
		    uint32_t rec, uint32_t *w);

/*
 * Modules (records.c): split BTF over a kernel's base, as records whose
 * references to base types are by name as a kernel's own are.
 *
 * ar_split_enc_new: the base (canonical, as stored: base_list its records)
 * by name, once per kernel; ar_encode_module: a module's BTF (canonical
 * split BTF over base) as a list of records into *list (malloc'd,
 * mod->nr_types of them).
 */
struct ar_split_enc;
int ar_split_enc_new(struct bc_archive *ar, const struct bc_btf *base,
		     const uint32_t *base_list, struct ar_split_enc **enc);
int ar_encode_module(struct ar_split_enc *enc, const struct bc_btf *mod,
		     uint32_t **list);
void ar_split_enc_free(struct ar_split_enc *enc);

/*
 * A kernel's base as its modules' rebuild needs it: its types by name and
 * record, the count of each (kind, name), and where each string is in the
 * base's string section (the base's bytes rebuilt once, into *raw when
 * raw is not NULL). Over the pools' sizes when built.
 */
struct ar_base_map {
	struct ar_ids ids;
	uint32_t *count;		/* [nr_count] the base's types of kn */
	uint32_t *str_off;		/* [nr_strs] offset + 1, 0: not there */
	uint32_t nr_count, nr_anon, nr_strs;
	uint32_t nr_types, str_len;
};

int ar_base_map_build(struct bc_archive *ar, const uint32_t *list, uint32_t n,
		      const struct bc_btf_layout *layout, uint32_t nr_layout,
		      struct ar_base_map *map, void **raw, size_t *size);
void ar_base_map_free(struct ar_base_map *map);

/* A module's list[0..m) as its split BTF bytes over map's kernel. */
int ar_build_module(struct bc_archive *ar, const struct ar_base_map *map,
		    const uint32_t *list, uint32_t m,
		    const struct bc_btf_layout *layout, uint32_t nr_layout,
		    void **raw, size_t *size);

/* Kernel k's list of records decoded; 0 or a negative errno. */
int ar_decode_list(struct bc_archive *ar, uint32_t k);

/* Module i of kernel k: its list decoded (its parents' first). */
int ar_decode_module(struct bc_archive *ar, uint32_t k, uint32_t i);

/*
 * Every kernel's modules by name, then kernel (format 6 writes them so:
 * a group a name): *out malloc'd, *nr of them, *nr_names names.
 */
struct ar_mod_ref {
	const char *name;
	uint32_t k, i;		/* kernel, its module */
};
int ar_modules_by_name(const struct bc_archive *ar, struct ar_mod_ref **out,
		       size_t *nr, uint32_t *nr_names);
/* The module of kernel k's parent that module i's list is written against. */
const struct ar_module *ar_module_parent(const struct bc_archive *ar,
					 uint32_t k, uint32_t i, int64_t *pk,
					 uint32_t *pi);

/* Whether any kernel has modules: the file is then of format 5. */
bool ar_has_modules(const struct bc_archive *ar);

/*
 * Module sorted[0..size) (canonical split BTF over kernel k's bytes) put
 * into m (zeroed; name set): as records when they give its bytes back,
 * else as bytes. base is kernel k's BTF parsed, enc and map its base for
 * records (NULL when the kernel is kept as bytes). 0 or -ENOMEM.
 */
int ar_store_module(struct bc_archive *ar, const struct bc_btf *base,
		    struct ar_split_enc *enc, const struct ar_base_map *map,
		    const void *sorted, size_t size, struct ar_module *m);
void ar_module_deinit(struct ar_module *m);
/* A kernel's modules let go (none after). */
void ar_kernel_modules_free(struct ar_kernel *k);

/* The string and (kind, name) tables for lookups by name. */
int ar_index_names(struct bc_archive *ar);

/*
 * The body of the archive file (lists decoded first), and a body wrapped
 * as a file of format 4: header, ar_pack()'s payload (effort: enum
 * ar_pack_effort, pack.h; 0 the smallest, 1 LZ4 only), checksum. For the fuzz targets,
 * which feed bodies without having to forge checksums.
 */
int ar_serialize_body(struct bc_archive *ar, struct ar_buf *body);

/* bc_archive_parse(), or (lazy) as bc_archive_open_lazy() reads. */
int ar_parse(const void *data, size_t size, const char *path, bool lazy,
	     struct bc_archive **ar, const struct bc_log *log);
int ar_wrap_body(const void *body, size_t len, int effort, void **out,
		 size_t *size);
/* ar_wrap_body() as a file of the given version: 4, or 5 (with modules). */
int ar_wrap_body_version(const void *body, size_t len, int effort,
			 uint32_t version, void **out, size_t *size);
/*
 * ar_wrap_body_version() of a body of format 6 cut at cuts[0 .. nr) (pack.h;
 * none: mixed, read whole).
 */
struct ar_cut;
int ar_wrap_body_cut(const void *body, size_t len, int effort,
		     uint32_t version, const struct ar_cut *cuts,
		     uint32_t nr_cuts, void **out, size_t *size);
/* A body wrapped as format 3 or 2 (version): one LZ4 frame. */
int ar_wrap_body_lz4(const void *body, size_t len, uint32_t version,
		     void **out, size_t *size);

/*
 * The archive read from fd, open on the file path names (format.c);
 * fd stays open. As bc_archive_open() or, lazy, bc_archive_open_lazy().
 */
enum ar_read_mode { AR_READ_WHOLE, AR_READ_LAZY, AR_READ_PARTIAL };
/*
 * ar_parse() in any mode; a partial read (bc_archive_open_partial) keeps
 * pointers into data, which must then outlive the archive.
 */
int ar_parse_as(const void *data, size_t size, const char *path,
		enum ar_read_mode mode, struct bc_archive **out,
		const struct bc_log *log);
int ar_read_fd(int fd, const char *path, enum ar_read_mode mode,
	       struct bc_archive **ar,
	       const struct bc_log *log);

/* Lets go of the writers' lock ar holds, if any (archive.c). */
void ar_unlock(struct bc_archive *ar);

#endif
