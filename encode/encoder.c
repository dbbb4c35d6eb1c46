// SPDX-License-Identifier: GPL-2.0-only
/*
 * The parallel driver: CU list, chunks, workers, the reduction (groups,
 * merge, dedup).
 *
 * The main thread lists the compile units (their DIE offsets) and cuts the
 * list into chunks of consecutive units of about equal bytes of DWARF,
 * their number a function of the file (cut_chunks; never of -j), and each
 * chunk into pieces of at most ENCODE_PIECE_BYTES (cut_pieces). N workers
 * then pull piece numbers from one atomic cursor, in no particular order.
 * Each worker owns its Dwarf handle (libdw 0.188 is not built
 * thread-safe) and its DIE map; for a piece it makes a fresh libbpf BTF
 * and encodes the piece's units into it in file order (cu_encoder.c).
 *
 * A chunk's first piece starts with an empty type cache and, when done,
 * leaves a read-only copy of it (the seed); the chunk's later pieces
 * start from the seed, so the header types the first piece met are taken
 * by reference (ids CU_SEED_ID + id) instead of being encoded again.
 * Workers take every first piece before any later one, so a later piece
 * waits at most for a first piece already running. The worker that
 * finishes a chunk's last piece joins the pieces in piece order
 * (merge_pieces: the later pieces' types appended to the first's, their
 * references moved), deduplicates the chunk and leaves it in the chunk's
 * slot (merge.h). Shared mutable state: the cursor, the first-error slot,
 * the seeds (written once, before their flag is set under the lock), each
 * chunk's count of pieces left, and each piece's and chunk's own slot.
 *
 *	chunk 3: piece 12 (empty cache) ─ seed ─┬─ piece 13 ─┐
 *	                                        ├─ piece 14 ─┼─ join 12..15, dedup
 *	                                        └─ piece 15 ─┘
 *
 * A chunk's join is a function of the file (its pieces, in order, each
 * from a fixed seed), whichever worker took which piece; pieces only
 * change how many copies the chunk's dedup removes.
 *
 * The reduction, after the workers: a tree of fixed shape. Groups of
 * ENCODE_GROUP_CHUNKS consecutive chunks are merged and deduplicated, one
 * group per task, the groups in parallel (dedup_groups); then the groups
 * are merged in parallel (merge.c: a string union and a copy per part).
 * Base BTF is deduplicated no further here: canon's partition merges the
 * copies the chunks share, resolving FWDs as libbpf's dedup does
 * (canon.c). Split BTF is deduplicated once more, on one thread
 * (libbpf's dedup is serial), so that a module's FWDs meet its complete
 * types before its types meet the base's.
 * A file of at most ENCODE_GROUP_CHUNKS chunks has one level. Beside all
 * of it, another thread sorts the function candidates (select_plan_funcs),
 * which reads no types. Each task's CPU time is kept, so the stats can
 * give the critical path (encode_critical).
 *
 * Split BTF (a module over vmlinux): everything above runs as for
 * standalone BTF, without the base; the result is then mapped onto the
 * base once (split.c), which only reads the base. libbpf's dedup of split
 * BTF would index every base string and type, per chunk and again at the
 * end; here no worker holds a base and a module's cost follows the module.
 *
 * Why chunks, and why the tree's shape is fixed: libbpf's dedup treats a
 * FWD and a struct of the same name as equivalent, which is what merges
 * the thousands of per-CU copies of the kernel's types when some units
 * only declare what others define. That equivalence is not transitive, so
 * dedup's result depends on the order of its input. Here every dedup sees
 * an input that is a function of the file alone: a chunk's BTF is its
 * pieces in piece order (each its units in file order, from a fixed
 * seed), a group's input its chunks in chunk order, the
 * final input the groups in group order. Which worker took which chunk
 * or group, and when, changes nothing; canon then fixes the ids. Memory
 * stays bounded by the deduplicated size of each chunk.
 */
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <dwarf.h>
#include <bpf/btf.h>

#include "../canon/btf_data.h"
#include "../canon/par.h"
#include "cu_encoder.h"
#include "elf_syms.h"
#include "funcs.h"
#include "merge.h"
#include "select.h"
#include "split.h"
#include "encoder.h"

struct encoder {
	const char *path;
	const struct encode_opts *opts;
	struct encode_features features;	/* opts', flat_arrays from opts->arrays */
	const struct bc_log *log;
	Dwarf_Off *cu_offs;		/* CU DIE offsets, in file order */
	uint32_t nr_cus;
	uint32_t *chunk_first;		/* [nr_chunks + 1] chunk k: units [first, next first) */
	uint32_t nr_chunks;
	uint32_t *chunk_pieces;		/* [nr_chunks + 1] chunk k: pieces [first, next first) */
	uint32_t *piece_first;		/* [nr_pieces + 1] piece p: units [first, next first) */
	uint32_t *piece_chunk;		/* [nr_pieces] the chunk of each piece */
	uint32_t nr_pieces;
	uint32_t *take_order;		/* [nr_pieces] piece numbers */
	struct btf **pieces;		/* [nr_pieces] encoded, awaiting their chunk's join */
	atomic_uint *pieces_left;	/* [nr_chunks] pieces not yet encoded */
	double *piece_sec;		/* [nr_pieces] thread CPU time of each encode */
	/*
	 * A chunk's first piece leaves its type cache in seeds[k]; the
	 * chunk's later pieces wait for it (seed_ready[k], under seed_lock),
	 * then start from it. The workers take every first piece before
	 * any later one, so a wait is for a piece already running.
	 */
	struct type_cache_seed *seeds;	/* [nr_chunks] */
	bool *seed_ready;		/* [nr_chunks] */
	pthread_mutex_t seed_lock;
	pthread_cond_t seed_cond;
	struct chunk_part *parts;	/* [nr_chunks] deduplicated chunk BTFs */
	double *chunk_sec;		/* [nr_chunks] thread CPU time of each join + dedup */
	struct chunk_part *groups;	/* [nr_groups] deduplicated groups of chunks */
	uint32_t nr_groups;
	uint32_t group_chunks;		/* chunks per group */
	struct cand_list *cands;	/* [nr_pieces] function/variable candidates */
	struct elf_syms syms;		/* the ELF's functions, objects, kfuncs */
	struct cand_ctx cand_ctx;
	bool want_cands;
	const struct dwarf_handle *h;	/* the file, for drop_range() */
	atomic_uint cursor;		/* next position in take_order (pieces) */
	/*
	 * Working workers: the first `working` of the -j workers (no more
	 * than the CPUs the process may use, bc_par_cpus()) take pieces; the
	 * others are started, as -j asks, and wait for the working ones to
	 * finish (idle_lock, idle_cond), holding no DWARF handle or cache.
	 * On a machine with fewer CPUs than -j, more working workers would
	 * only share the CPUs, each with its own type cache and DWARF
	 * handle (2 CPUs, -j16: 1.3x the CPU of -j1). Output bytes do not
	 * depend on which worker takes a piece.
	 */
	pthread_mutex_t idle_lock;
	pthread_cond_t idle_cond;
	unsigned int working;		/* workers that take pieces */
	unsigned int working_left;	/* of those, not yet finished */
	atomic_int first_error;		/* 0, or the error that stops everyone */
	atomic_int error_owner;		/* worker whose message is kept, or -1 */
};

struct worker {
	struct encoder *enc;
	int index;
	pthread_t thread;
	struct cu_encoder cu;
	Dwarf *dwarf;			/* its own handle over the shared Elf */
	char message[1024];		/* this worker's first error message */
	uint32_t cus, cus_skipped, chunks;
	uint64_t types_chunked;		/* types in its chunks after their dedup */
	double cpu_sec;
	double end_sec;			/* CLOCK_MONOTONIC when it stopped */
	int err;
};

void encode_opts_init(struct encode_opts *opts)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	memset(opts, 0, sizeof(*opts));
	opts->jobs = cpus > 0 ? cpus : 1;
	opts->features.floats = true;
	opts->features.decl_tags = true;
	opts->features.type_tags = true;
	opts->features.enum64 = true;
	opts->features.funcs = true;
	opts->features.vars = true;
	opts->features.kfunc_tags = true;
	opts->features.optimized_funcs = true;
	opts->features.consistent_funcs = true;
}

/* A worker's log: keeps its first message, to be reported by the main thread. */
static void worker_log(void *ctx, enum bc_log_level level, const char *msg)
{
	struct worker *w = ctx;

	if (level == BC_LOG_ERROR && !w->message[0])
		snprintf(w->message, sizeof(w->message), "%s", msg);
}

static void set_first_error(struct worker *w, int err)
{
	int expected = 0, owner = -1;

	w->err = err;
	if (atomic_compare_exchange_strong(&w->enc->first_error, &expected, err))
		atomic_compare_exchange_strong(&w->enc->error_owner, &owner,
					       w->index);
	/* a worker waiting for a seed that will not come stops too */
	pthread_mutex_lock(&w->enc->seed_lock);
	pthread_cond_broadcast(&w->enc->seed_cond);
	pthread_mutex_unlock(&w->enc->seed_lock);
}

/*
 * A Dwarf handle of its own. Through libdwfl, which applies the relocations
 * of relocatable files (.o, .ko): without them every string and cross-unit
 * reference in a module's DWARF reads as offset 0.
 */
struct dwarf_handle {
	Dwfl *dwfl;			/* ET_REL, or DWARF found elsewhere */
	Dwarf *dwarf;
	Elf *elf;			/* our own mapping's Elf, else NULL */
	void *map;			/* the file, mapped privately */
	size_t map_size;
	const char *info;		/* .debug_info inside map, or NULL */
	size_t info_size;
};

/*
 * Executables and shared objects with their DWARF inside (a vmlinux): map
 * the file ourselves and hand libelf the memory. Then we know .debug_info
 * lies in our mapping, unmodified (nothing is relocated), and a finished
 * chunk's part of it can be dropped from the resident set (drop_range()).
 * Returns 1 when this does not apply and libdwfl should open the file.
 */
static int open_mapped(int fd, struct dwarf_handle *h)
{
	const unsigned char *info;
	size_t shstrndx, info_size;
	GElf_Ehdr ehdr;
	struct stat st;

	if (fstat(fd, &st) || st.st_size < (off_t)sizeof(Elf64_Ehdr))
		return 1;
	h->map = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE,
		      fd, 0);
	if (h->map == MAP_FAILED) {
		h->map = NULL;
		return 1;
	}
	h->map_size = st.st_size;
	h->elf = elf_memory(h->map, h->map_size);
	if (!h->elf || elf_kind(h->elf) != ELF_K_ELF || !gelf_getehdr(h->elf, &ehdr) ||
	    (ehdr.e_type != ET_EXEC && ehdr.e_type != ET_DYN) ||
	    elf_getshdrstrndx(h->elf, &shstrndx))
		return 1;
	h->dwarf = dwarf_begin_elf(h->elf, DWARF_C_READ, NULL);
	if (!h->dwarf)
		return 1;
	/* .debug_info is ours to drop only when it lies in our mapping */
	if (elf_section_bytes(h->elf, ".debug_info", &info, &info_size) &&
	    (const char *)info >= (const char *)h->map &&
	    (const char *)info + info_size <= (const char *)h->map + h->map_size) {
		h->info = (const char *)info;
		h->info_size = info_size;
	}
	return 0;
}

static void drop_mapped(struct dwarf_handle *h)
{
	if (h->dwarf)
		dwarf_end(h->dwarf);
	if (h->elf)
		elf_end(h->elf);
	if (h->map)
		munmap(h->map, h->map_size);
	memset(h, 0, sizeof(*h));
}

/*
 * Drops [lo, hi) of .debug_info (offsets; rounded inwards to pages) from
 * the resident set. The pages are clean file pages: if anything reads
 * them again they come back from the page cache.
 */
static void drop_range(const struct dwarf_handle *h, size_t lo, size_t hi)
{
	uintptr_t page = sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)h->info + lo, b = (uintptr_t)h->info + hi;

	if (!h->info || hi > h->info_size || lo >= hi)
		return;
	a = (a + page - 1) & ~(page - 1);
	b &= ~(page - 1);
	if (b > a)
		madvise((void *)a, b - a, MADV_DONTNEED);
}

/*
 * The same for the location lists a chunk's functions read (span, in
 * .debug_loclists), when the section lies in our mapping: chunks are
 * consecutive units, and their lists follow in the same order.
 */
static void drop_loc_span(const struct dwarf_handle *h,
			  const struct loc_sections *secs,
			  const struct loc_span *span)
{
	uintptr_t page = sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)secs->loclists + span->lo,
		  b = (uintptr_t)secs->loclists + span->hi;

	if (!h->map || !secs->loclists || span->lo >= span->hi ||
	    span->hi > secs->loclists_len ||
	    secs->loclists < (const unsigned char *)h->map ||
	    secs->loclists + secs->loclists_len >
	    (const unsigned char *)h->map + h->map_size)
		return;
	a = (a + page - 1) & ~(page - 1);
	b &= ~(page - 1);
	if (b > a)
		madvise((void *)a, b - a, MADV_DONTNEED);
}

/* A unit's offset with this bit set lives in .debug_types (DWARF 4). */
#define UNIT_IN_TYPES (1ULL << 63)

static Dwarf_Die *unit_die(Dwarf *dwarf, Dwarf_Off off, Dwarf_Die *die)
{
	if (off & UNIT_IN_TYPES)
		return dwarf_offdie_types(dwarf, off & ~UNIT_IN_TYPES, die);
	return dwarf_offdie(dwarf, off, die);
}

/* The next section after scn called name, or NULL. */
static Elf_Scn *next_section_named(Elf *elf, Elf_Scn *scn, const char *name)
{
	size_t shstrndx;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		const char *sname;

		if (gelf_getshdr(scn, &shdr) &&
		    (sname = elf_strptr(elf, shstrndx, shdr.sh_name)) &&
		    !strcmp(sname, name))
			return scn;
	}
	return NULL;
}

/* Size of the (decompressed) section name, 0 when there is none. */
static size_t section_size(Elf *elf, const char *name)
{
	Elf_Scn *scn = next_section_named(elf, NULL, name);
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;

	return data ? data->d_size : 0;
}

static unsigned int count_sections(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;
	unsigned int n = 0;

	while ((scn = next_section_named(elf, scn, name)))
		n++;
	return n;
}

/*
 * GCC puts each type unit of a relocatable object in a COMDAT group of
 * its own: several sections called .debug_info (or .debug_types). libdw
 * reads one of them, so the types would be lost without a word.
 */
static int check_grouped_units(struct encoder *enc, Elf *elf)
{
	if (count_sections(elf, ".debug_info") <= 1 &&
	    count_sections(elf, ".debug_types") <= 1)
		return 0;
	return bc_log_error(enc->log, -ENOTSUP,
		"%s: type units in section groups (-fdebug-types-section in a "
		"relocatable object) are not supported: link the object first",
		enc->path);
}

/* Does the file have a section called name? (For messages.) */
static bool file_has_section(const char *path, const char *name)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf;
	bool has;

	if (fd < 0)
		return false;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	has = elf && count_sections(elf, name) > 0;
	elf_end(elf);
	close(fd);
	return has;
}

/*
 * For messages: the file is shorter than its ELF header says (the section
 * header table ends past the end of the file). *need and *have in bytes.
 */
static bool file_truncated(const char *path, uint64_t *need, uint64_t *have)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	GElf_Ehdr ehdr;
	bool cut = false;
	Elf *elf;

	if (fd < 0)
		return false;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && !fstat(fd, &st) && gelf_getehdr(elf, &ehdr)) {
		*need = ehdr.e_shoff + (uint64_t)ehdr.e_shnum * ehdr.e_shentsize;
		*have = st.st_size;
		cut = *need > *have;
	}
	elf_end(elf);
	close(fd);
	return cut;
}

static int open_dwarf(const char *path, struct dwarf_handle *h,
		      const struct bc_log *log)
{
	static const Dwfl_Callbacks callbacks = {
		.find_debuginfo = dwfl_standard_find_debuginfo,
		.section_address = dwfl_offline_section_address,
	};
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	int fd;

	memset(h, 0, sizeof(*h));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return bc_log_error(log, -errno, "%s: cannot open: %s", path,
				    strerror(errno));
	if (!open_mapped(fd, h)) {
		close(fd);	/* the mapping stays */
		return 0;
	}
	drop_mapped(h);
	h->dwfl = dwfl_begin(&callbacks);
	if (!h->dwfl) {
		close(fd);
		return -ENOMEM;
	}
	/* dwfl owns fd from here */
	mod = dwfl_report_offline(h->dwfl, path, path, fd);
	if (!mod || dwfl_report_end(h->dwfl, NULL, NULL)) {
		int derr = dwfl_errno();

		dwfl_end(h->dwfl);
		h->dwfl = NULL;
		return bc_log_error(log, -EINVAL, "%s: not an ELF file with DWARF: %s",
				    path, dwfl_errmsg(derr));
	}
	h->dwarf = dwfl_module_getdwarf(mod, &bias);
	if (!h->dwarf) {
		int derr = dwfl_errno();
		uint64_t need, have;

		dwfl_end(h->dwfl);
		h->dwfl = NULL;
		if (file_truncated(path, &need, &have))
			return bc_log_error(log, -EINVAL,
				"%s: truncated: its section headers end at byte %llu, the file has %llu bytes",
				path, (unsigned long long)need,
				(unsigned long long)have);
		if (file_has_section(path, ".debug_info"))
			return bc_log_error(log, -EINVAL,
				"%s: cannot read its DWARF (%s): .debug_info is "
				"there but truncated or corrupt", path,
				dwfl_errmsg(derr));
		return bc_log_error(log, -ENODATA,
			"%s: no DWARF to encode (%s); is it stripped? build with -g",
			path, dwfl_errmsg(derr));
	}
	return 0;
}

static void close_dwarf(struct dwarf_handle *h)
{
	if (h->dwfl) {
		dwfl_end(h->dwfl);
		memset(h, 0, sizeof(*h));
		return;
	}
	drop_mapped(h);
}

/* .debug_info bytes a worker's finished units may hold before it drops them */
#define DROP_BYTES	(2u << 20)

/*
 * Encodes piece p's units, in file order, into a fresh BTF (*out), the
 * type cache started from seed (NULL: empty).
 */
static int encode_piece(struct worker *w, Dwarf *dwarf, uint32_t p,
			const struct type_cache_seed *seed, struct btf **out)
{
	struct encoder *enc = w->enc;
	uint32_t first = enc->piece_first[p], end = enc->piece_first[p + 1], i;
	uint64_t dropped_to = enc->cu_offs[first];
	struct btf *btf = btf__new_empty();
	int err;

	if (!btf)
		return -ENOMEM;
	err = cu_encoder_start_seeded(&w->cu, btf, seed);
	w->cu.cand_ctx = enc->want_cands ? &enc->cand_ctx : NULL;
	w->cu.cands = &enc->cands[p];
	for (i = first; i < end && !err; i++) {
		Dwarf_Die cu_die;

		if (atomic_load(&enc->first_error))
			break;
		if (!unit_die(dwarf, enc->cu_offs[i], &cu_die)) {
			err = bc_log_error(w->cu.log, -EINVAL,
				"%s: unit at 0x%llx: cannot read its DIE: %s",
				enc->path,
				(unsigned long long)(enc->cu_offs[i] & ~UNIT_IN_TYPES),
				dwarf_errmsg(-1));
			break;
		}
		if (encode_langs_skip(&enc->opts->langs, dwarf_srclang(&cu_die))) {
			w->cus_skipped++;
			continue;
		}
		err = cu_encoder_encode(&w->cu, &cu_die);
		/* the unit's candidates were collected by its walk */
		if (!err && enc->want_cands)
			err = cand_add_markers(&enc->cands[p], btf);
		w->cus++;
		/*
		 * The finished units' pages go back every DROP_BYTES, not
		 * at the piece's end: pieces of equal size end together,
		 * and at -j16 all sixteen would hold theirs to the end (a
		 * later unit that reads one again gets it from the page
		 * cache).
		 */
		if (!err && i + 1 < end && !(enc->cu_offs[i + 1] & UNIT_IN_TYPES) &&
		    !(enc->cu_offs[first] & UNIT_IN_TYPES) &&
		    enc->cu_offs[i + 1] - dropped_to >= DROP_BYTES) {
			drop_range(enc->h, dropped_to, enc->cu_offs[i + 1] - 64);
			dropped_to = enc->cu_offs[i + 1] - 64;
		}
	}
	w->cu.btf = NULL;
	if (err) {
		btf__free(btf);
		return err;
	}
	/* the piece's units are done: let the kernel have their pages back */
	if (!(enc->cu_offs[first] & UNIT_IN_TYPES))
		drop_range(enc->h, dropped_to,
			   end < enc->nr_cus && !(enc->cu_offs[end] & UNIT_IN_TYPES) ?
			   enc->cu_offs[end] - 64 : enc->h->info_size);
	if (enc->want_cands) {
		drop_loc_span(enc->h, &enc->cand_ctx.locs, &enc->cands[p].loc_span);
		cand_list_walked(&enc->cands[p]);
	}
	*out = btf;
	return 0;
}

/*
 * Chunk k, once all its pieces are encoded: the later pieces appended to
 * the first in piece order (merge_pieces), deduplicated, and left in the
 * chunk's slot. The join's input is a function of the file, whichever
 * worker encoded which piece and whichever finished last.
 */
static int join_chunk(struct worker *w, uint32_t k)
{
	struct encoder *enc = w->enc;
	uint32_t first = enc->chunk_pieces[k];
	uint32_t n = enc->chunk_pieces[k + 1] - first;
	struct btf *btf = enc->pieces[first];
	int err;

	enc->pieces[first] = NULL;
	cu_encoder_seed_free(&enc->seeds[k]);
	err = merge_pieces(btf, enc->pieces + first + 1, n - 1, CU_SEED_ID);
	if (err) {
		btf__free(btf);
		return bc_log_error(w->cu.log, err,
			"%s: joining the pieces of units %u-%u failed: %s",
			enc->path, enc->chunk_first[k],
			enc->chunk_first[k + 1] - 1, strerror(-err));
	}
	err = btf__dedup(btf, NULL);
	if (err) {
		btf__free(btf);
		return bc_log_error(w->cu.log, err,
			"%s: BTF dedup of units %u-%u failed: %s",
			enc->path, enc->chunk_first[k],
			enc->chunk_first[k + 1] - 1, strerror(-err));
	}
	w->chunks++;
	w->types_chunked += btf__type_cnt(btf) - 1;
	return chunk_part_take(&enc->parts[k], btf);
}

/* Waits for chunk k's seed; false when the run stopped instead. */
static bool wait_seed(struct encoder *enc, uint32_t k)
{
	bool ready;

	pthread_mutex_lock(&enc->seed_lock);
	while (!(ready = enc->seed_ready[k]) && !atomic_load(&enc->first_error))
		pthread_cond_wait(&enc->seed_cond, &enc->seed_lock);
	pthread_mutex_unlock(&enc->seed_lock);
	return ready;
}

/* Chunk k's first piece is done: its type cache becomes the chunk's seed. */
static int publish_seed(struct worker *w, uint32_t k)
{
	struct encoder *enc = w->enc;
	int err = cu_encoder_seed_take(&w->cu, &enc->seeds[k]);

	pthread_mutex_lock(&enc->seed_lock);
	enc->seed_ready[k] = !err;
	pthread_cond_broadcast(&enc->seed_cond);
	pthread_mutex_unlock(&enc->seed_lock);
	return err;
}

/*
 * Piece p: encoded (a chunk's later piece from the seed its first piece
 * left); then, when it is the last of its chunk's pieces to be done (the
 * pieces_left count, which orders the other pieces' BTFs before this
 * thread's reads), the chunk's join and dedup.
 */
static int do_piece(struct worker *w, uint32_t p)
{
	struct encoder *enc = w->enc;
	uint32_t k = enc->piece_chunk[p];
	bool lone = enc->chunk_pieces[k + 1] - enc->chunk_pieces[k] == 1;
	bool first = p == enc->chunk_pieces[k];
	double t0, t1;
	struct btf *btf = NULL;
	int err;

	if (!first && !wait_seed(enc, k))
		return 0;
	t0 = bc_clock_sec(CLOCK_THREAD_CPUTIME_ID);
	err = encode_piece(w, w->dwarf, p, first ? NULL : &enc->seeds[k], &btf);
	if (!err && first && !lone)
		err = publish_seed(w, k);
	t1 = bc_clock_sec(CLOCK_THREAD_CPUTIME_ID);
	enc->piece_sec[p] = t1 - t0;
	if (err) {
		btf__free(btf);
		return err;
	}
	enc->pieces[p] = btf;
	if (!lone && (atomic_fetch_sub(&enc->pieces_left[k], 1) != 1 ||
		      atomic_load(&enc->first_error)))
		return 0;
	err = join_chunk(w, k);
	enc->chunk_sec[k] = bc_clock_sec(CLOCK_THREAD_CPUTIME_ID) - t1;
	return err;
}

/* A worker beyond the working ones: waits for them to finish. */
static void wait_working(struct encoder *enc)
{
	pthread_mutex_lock(&enc->idle_lock);
	while (enc->working_left)
		pthread_cond_wait(&enc->idle_cond, &enc->idle_lock);
	pthread_mutex_unlock(&enc->idle_lock);
}

/* A working worker is done (or failed): the last one wakes the idle ones. */
static void working_done(struct encoder *enc)
{
	pthread_mutex_lock(&enc->idle_lock);
	if (!--enc->working_left)
		pthread_cond_broadcast(&enc->idle_cond);
	pthread_mutex_unlock(&enc->idle_lock);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct encoder *enc = w->enc;
	struct bc_log log = { .fn = worker_log, .ctx = w };
	double cpu0 = bc_clock_sec(CLOCK_THREAD_CPUTIME_ID);
	int err = 0;

	w->cu.log = &log;
	if ((unsigned int)w->index >= enc->working) {
		wait_working(enc);
		goto out;
	}
	while (!err && !atomic_load(&enc->first_error)) {
		unsigned int pos = atomic_fetch_add(&enc->cursor, 1);

		if (pos >= enc->nr_pieces)
			break;
		err = do_piece(w, enc->take_order[pos]);
	}
	if (err)
		set_first_error(w, err);
	working_done(enc);
out:
	w->cu.log = NULL;
	/* its own handle (worker 0's is the main thread's): freed while others work */
	if (w->index) {
		dwarf_end(w->dwarf);
		w->dwarf = NULL;
	}
	w->cpu_sec = bc_clock_sec(CLOCK_THREAD_CPUTIME_ID) - cpu0;
	w->end_sec = bc_clock_sec(CLOCK_MONOTONIC);
	return NULL;
}

/* Lists the compile units; type units and partial units are reached by reference. */
/*
 * Checks that the units of .debug_info tile the section: a unit whose
 * length runs past the end is otherwise dropped without a word by libdw.
 */
static int check_unit_chain(struct encoder *enc, Dwarf *dwarf)
{
	size_t size = section_size(dwarf_getelf(dwarf), ".debug_info");
	Dwarf_Off off = 0, next;
	size_t hsize;
	int ret;

	while ((ret = dwarf_next_unit(dwarf, off, &next, &hsize, NULL, NULL,
				      NULL, NULL, NULL, NULL)) == 0 &&
	       next <= size)
		off = next;
	if (ret < 0 || (ret == 0 && next > size))
		return bc_log_error(enc->log, -EINVAL,
			"%s: .debug_info: the unit at 0x%llx runs past the end of "
			"the section (%zu bytes): truncated or corrupt DWARF",
			enc->path, (unsigned long long)off, size);
	return 0;
}

/*
 * Lists the compile units and the type units (-fdebug-types-section; in
 * .debug_types for DWARF 4, flagged UNIT_IN_TYPES). Partial units are
 * reached by reference.
 */
static int list_cus(struct encoder *enc, Dwarf *dwarf)
{
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Half version;
	uint8_t unit_type;
	Dwarf_Die cu_die;
	uint32_t cap = 0;
	int err, ret;

	err = check_grouped_units(enc, dwarf_getelf(dwarf));
	if (!err)
		err = check_unit_chain(enc, dwarf);
	if (err)
		return err;
	while ((ret = dwarf_get_units(dwarf, cu, &next, &version, &unit_type,
				      &cu_die, NULL)) == 0) {
		cu = next;
		if (unit_type != DW_UT_compile && unit_type != DW_UT_type)
			continue;
		if (enc->nr_cus == cap) {
			Dwarf_Off *grown;

			cap = cap ? cap * 2 : 1024;
			grown = realloc(enc->cu_offs, cap * sizeof(*grown));
			if (!grown)
				return -ENOMEM;
			enc->cu_offs = grown;
		}
		enc->cu_offs[enc->nr_cus++] = dwarf_dieoffset(&cu_die) |
			(unit_type == DW_UT_type && version < 5 ? UNIT_IN_TYPES : 0);
	}
	if (ret < 0)
		err = bc_log_error(enc->log, -EINVAL,
			"%s: corrupt DWARF after %u compile units: %s",
			enc->path, enc->nr_cus, dwarf_errmsg(-1));
	else if (!enc->nr_cus)
		err = bc_log_error(enc->log, -ENODATA,
			"%s: DWARF has no compile units", enc->path);
	return err;
}

/*
 * A unit's weight for cutting chunks: its bytes up to the next unit of
 * its section (the encoder's time follows them, 20-25 ms a MB on
 * vmlinux).
 */
static uint64_t unit_bytes(const struct encoder *enc, uint32_t i,
			   uint64_t info_size, uint64_t types_size)
{
	uint64_t in_types = enc->cu_offs[i] & UNIT_IN_TYPES, end, j;

	end = in_types ? types_size : info_size;
	for (j = i + 1; j < enc->nr_cus; j++)
		if ((enc->cu_offs[j] & UNIT_IN_TYPES) == in_types) {
			end = enc->cu_offs[j] & ~UNIT_IN_TYPES;
			break;
		}
	end = end > (enc->cu_offs[i] & ~UNIT_IN_TYPES) ?
	      end - (enc->cu_offs[i] & ~UNIT_IN_TYPES) : 1;
	return end;
}

/*
 * Cuts the units into chunks. With --chunk-cus N (tests): N units each.
 * Otherwise: as many chunks as ENCODE_CHUNKS' rule gives, or more, one
 * per ENCODE_CHUNK_BYTES of DWARF; for a big file (ENCODE_BIG_BYTES), one
 * per ENCODE_BIG_CHUNK_BYTES, whatever the units; each of at least
 * ENCODE_CHUNK_CUS_MIN units. Then the cuts fall where the bytes so far
 * pass k / nr_chunks of the total, so that chunks take about the same
 * time. All of it a function of the file alone (bytes[i]: unit i's,
 * total: their sum).
 */
static int cut_chunks(struct encoder *enc, const uint64_t *bytes,
		      uint64_t total)
{
	uint64_t sum = 0, by_bytes;
	uint32_t per_chunk, i, k;

	if (enc->opts->chunk_cus) {
		enc->nr_chunks = (enc->nr_cus + enc->opts->chunk_cus - 1) /
				 enc->opts->chunk_cus;
		enc->chunk_first = malloc((enc->nr_chunks + 1) * sizeof(uint32_t));
		if (!enc->chunk_first)
			return -ENOMEM;
		for (k = 0; k < enc->nr_chunks; k++)
			enc->chunk_first[k] = k * enc->opts->chunk_cus;
		enc->chunk_first[k] = enc->nr_cus;
		return 0;
	}
	per_chunk = (enc->nr_cus + ENCODE_CHUNKS - 1) / ENCODE_CHUNKS;
	if (per_chunk > ENCODE_CHUNK_CUS_MAX)
		per_chunk = ENCODE_CHUNK_CUS_MAX;
	if (per_chunk < ENCODE_CHUNK_CUS_MIN)
		per_chunk = ENCODE_CHUNK_CUS_MIN;
	enc->nr_chunks = (enc->nr_cus + per_chunk - 1) / per_chunk;
	enc->chunk_first = malloc((enc->nr_cus + 1) * sizeof(uint32_t));
	if (!enc->chunk_first)
		return -ENOMEM;
	by_bytes = total / ENCODE_CHUNK_BYTES;
	if (total >= ENCODE_BIG_BYTES) {
		/* a big file: chunks by bytes alone, pieces keep workers busy */
		by_bytes = (total + ENCODE_BIG_CHUNK_BYTES - 1) /
			   ENCODE_BIG_CHUNK_BYTES;
		enc->nr_chunks = 1;
	}
	if (by_bytes > enc->nr_cus / ENCODE_CHUNK_CUS_MIN)
		by_bytes = enc->nr_cus / ENCODE_CHUNK_CUS_MIN;
	if (by_bytes > enc->nr_chunks)
		enc->nr_chunks = by_bytes;
	/* chunk k ends at the first unit whose end passes (k + 1) / n of the total */
	enc->chunk_first[0] = 0;
	for (i = 0, k = 1; i < enc->nr_cus && k < enc->nr_chunks; i++) {
		sum += bytes[i];
		if (sum * enc->nr_chunks >= total * k &&
		    enc->nr_cus - (i + 1) >= enc->nr_chunks - k)
			enc->chunk_first[k++] = i + 1;
	}
	enc->nr_chunks = k;
	enc->chunk_first[k] = enc->nr_cus;
	return 0;
}

/*
 * Appends pieces starting at units [from, end): n of them (at most one per
 * unit), cut where the bytes so far pass j / n of the range's; or, with
 * per, one every per units. Returns the next piece number.
 */
static uint32_t cut_range(struct encoder *enc, const uint64_t *bytes,
			  uint32_t from, uint32_t end, uint32_t n, uint32_t per,
			  uint32_t k, uint32_t p)
{
	uint64_t total = 0, sum = 0;
	uint32_t i, j;

	for (i = from; i < end; i++)
		total += bytes[i];
	if (per)
		n = (end - from + per - 1) / per;
	if (n > end - from)
		n = end - from;
	if (n < 1)
		n = 1;
	enc->piece_first[p] = from;
	enc->piece_chunk[p++] = k;
	/* piece j ends at the first unit whose end passes (j + 1) / n */
	for (i = from, j = 1; i < end && j < n; i++) {
		sum += bytes[i];
		if (per ? (i + 1 - from) % per != 0 :
		    sum * n < total * j || end - (i + 1) < n - j)
			continue;
		enc->piece_first[p] = i + 1;
		enc->piece_chunk[p++] = k;
		j++;
	}
	return p;
}

/*
 * Cuts each chunk into pieces, the units the workers take. With
 * --piece-cus N (tests): N units each. Otherwise a chunk of more than
 * ENCODE_PIECE_BYTES has a short first piece (its units up to
 * ENCODE_FIRST_PIECE_BYTES: it runs before the others, with a cold type
 * cache), then as few pieces as keep each within ENCODE_PIECE_BYTES, cut
 * at equal shares of the rest (6.12.117: 9 chunks of about 22 MiB, eight
 * pieces each). A function of the file alone, never of -j.
 */
static int cut_pieces(struct encoder *enc, const uint64_t *bytes)
{
	const uint64_t first_bytes = ENCODE_FIRST_PIECE_BYTES;
	const uint64_t piece_bytes = ENCODE_PIECE_BYTES;
	uint32_t k, i, p = 0;

	enc->chunk_pieces = malloc((enc->nr_chunks + 1) * sizeof(uint32_t));
	enc->piece_first = malloc((enc->nr_cus + 1) * sizeof(uint32_t));
	enc->piece_chunk = malloc(enc->nr_cus * sizeof(uint32_t));
	if (!enc->chunk_pieces || !enc->piece_first || !enc->piece_chunk)
		return -ENOMEM;
	for (k = 0; k < enc->nr_chunks; k++) {
		uint32_t first = enc->chunk_first[k], end = enc->chunk_first[k + 1];
		uint32_t per = enc->opts->piece_cus, head = first;
		uint64_t total = 0, head_bytes = 0;

		enc->chunk_pieces[k] = p;
		for (i = first; i < end; i++)
			total += bytes[i];
		if (per || total <= piece_bytes) {
			p = cut_range(enc, bytes, first, end, 1, per, k, p);
			continue;
		}
		while (head < end - 1 && head_bytes < first_bytes)
			head_bytes += bytes[head++];
		p = cut_range(enc, bytes, first, head, 1, 0, k, p);
		p = cut_range(enc, bytes, head, end,
			      (uint32_t)((total - head_bytes + piece_bytes - 1) /
					 piece_bytes), 0, k, p);
	}
	enc->chunk_pieces[k] = p;
	enc->piece_first[p] = enc->nr_cus;
	enc->nr_pieces = p;
	return 0;
}

static void shuffle(uint32_t *a, uint32_t n, uint64_t *state)
{
	uint32_t i, j, t;

	for (i = n; i > 1; i--) {
		*state ^= *state << 13;
		*state ^= *state >> 7;
		*state ^= *state << 17;
		j = *state % i;
		t = a[i - 1];
		a[i - 1] = a[j];
		a[j] = t;
	}
}

/*
 * The chunks and their pieces; the order workers take pieces in: file
 * order, or a seeded shuffle for tests (first pieces first, always).
 */
static int plan_chunks(struct encoder *enc, Dwarf *dwarf)
{
	uint64_t state = enc->opts->shuffle_seed * 0x9e3779b97f4a7c15ULL + 1;
	uint64_t info_size = section_size(dwarf_getelf(dwarf), ".debug_info");
	uint64_t types_size = section_size(dwarf_getelf(dwarf), ".debug_types");
	uint64_t *bytes = malloc(enc->nr_cus * sizeof(*bytes)), total = 0;
	uint32_t i, k, n;
	int err;

	if (!bytes)
		return -ENOMEM;
	for (i = 0; i < enc->nr_cus; i++) {
		bytes[i] = unit_bytes(enc, i, info_size, types_size);
		total += bytes[i];
	}
	err = cut_chunks(enc, bytes, total);
	if (!err)
		err = cut_pieces(enc, bytes);
	free(bytes);
	if (err)
		return err;
	enc->take_order = malloc(enc->nr_pieces * sizeof(uint32_t));
	enc->pieces = calloc(enc->nr_pieces, sizeof(*enc->pieces));
	enc->piece_sec = calloc(enc->nr_pieces, sizeof(*enc->piece_sec));
	enc->cands = calloc(enc->nr_pieces, sizeof(*enc->cands));
	enc->pieces_left = calloc(enc->nr_chunks, sizeof(*enc->pieces_left));
	enc->parts = calloc(enc->nr_chunks, sizeof(*enc->parts));
	enc->chunk_sec = calloc(enc->nr_chunks, sizeof(*enc->chunk_sec));
	enc->seeds = calloc(enc->nr_chunks, sizeof(*enc->seeds));
	enc->seed_ready = calloc(enc->nr_chunks, sizeof(*enc->seed_ready));
	if (!enc->take_order || !enc->pieces || !enc->piece_sec ||
	    !enc->cands || !enc->pieces_left || !enc->parts ||
	    !enc->chunk_sec || !enc->seeds || !enc->seed_ready)
		return -ENOMEM;
	for (k = 0; k < enc->nr_chunks; k++)
		atomic_init(&enc->pieces_left[k],
			    enc->chunk_pieces[k + 1] - enc->chunk_pieces[k]);
	for (i = 0; i < enc->nr_pieces; i++)
		cand_list_init(&enc->cands[i], i);
	/* every chunk's first piece, then the later ones: see seeds */
	for (k = 0; k < enc->nr_chunks; k++)
		enc->take_order[k] = enc->chunk_pieces[k];
	for (i = 0, n = k; i < enc->nr_pieces; i++)
		if (i != enc->chunk_pieces[enc->piece_chunk[i]])
			enc->take_order[n++] = i;
	if (enc->opts->shuffle) {
		shuffle(enc->take_order, enc->nr_chunks, &state);
		shuffle(enc->take_order + enc->nr_chunks,
			enc->nr_pieces - enc->nr_chunks, &state);
	}
	return 0;
}

/*
 * Whether base nests multi-dimensional arrays: it has an ARRAY of an
 * ARRAY, which pahole never writes (it flattens them, and a C array of a
 * typedef'd array is an ARRAY of a TYPEDEF). A base made by btfcanon with
 * --nested-arrays has them wherever the kernel has a multi-dimensional
 * array (struct kvm_vcpu_arch, struct xa_node).
 */
static bool base_arrays_nested(const struct bc_btf *base)
{
	const struct btf_type *t, *elem;
	uint32_t i;

	for (i = 0; i < base->nr_types; i++) {
		t = bc_btf_local(base, i);
		if (!btf_is_array(t))
			continue;
		elem = bc_btf_type(base, btf_array(t)->type);
		if (elem && btf_is_array(elem))
			return true;
	}
	return false;
}

/* The array shape of opts: flat unless asked, or the base nests them. */
static bool arrays_flat(const struct encode_opts *opts)
{
	switch (opts->arrays) {
	case ENCODE_ARRAYS_FLAT:
		return true;
	case ENCODE_ARRAYS_NESTED:
		return false;
	default:
		return !(opts->base && base_arrays_nested(opts->base));
	}
}

/*
 * Group g: chunks [g * group_chunks, ...) merged and deduplicated
 * into enc->groups[g] (a lone chunk is taken as it is).
 */
static int dedup_group(void *ctx, uint32_t g)
{
	struct encoder *enc = ctx;
	uint32_t first = g * enc->group_chunks, n = enc->nr_chunks - first;
	struct merge_stats ms;
	struct btf *btf;
	int err;

	if (n > enc->group_chunks)
		n = enc->group_chunks;
	if (n == 1) {
		enc->groups[g] = enc->parts[first];
		enc->parts[first].btf = NULL;
		return 0;
	}
	err = merge_parts(enc->parts + first, n, 1, &btf, &ms);
	if (err)
		return err;
	err = btf__dedup(btf, NULL);
	if (err) {
		btf__free(btf);
		return err;
	}
	return chunk_part_take(&enc->groups[g], btf);
}

/*
 * The first level of the reduction: groups of ENCODE_GROUP_CHUNKS (or
 * opts->group_chunks) consecutive chunks, each merged and deduplicated on one thread, the
 * groups in parallel. Its longest group goes to the critical path.
 */
static int dedup_groups(struct encoder *enc, unsigned int jobs,
			struct encode_stats *stats)
{
	double *group_sec;
	uint32_t g;
	int err;

	enc->group_chunks = enc->opts->group_chunks ? enc->opts->group_chunks :
			    ENCODE_GROUP_CHUNKS;
	enc->nr_groups = (enc->nr_chunks + enc->group_chunks - 1) /
			 enc->group_chunks;
	if (enc->nr_groups <= 1) {
		/* one level is enough: the chunks themselves are the groups */
		enc->nr_groups = enc->nr_chunks;
		enc->groups = enc->parts;
		enc->parts = NULL;
		return 0;
	}
	enc->groups = calloc(enc->nr_groups, sizeof(*enc->groups));
	group_sec = calloc(enc->nr_groups, sizeof(*group_sec));
	if (!enc->groups || !group_sec) {
		free(group_sec);
		return -ENOMEM;
	}
	err = bc_par_for(jobs, enc->nr_groups, dedup_group, enc, group_sec);
	stats->critical.groups = bc_par_longest(group_sec, enc->nr_groups);
	stats->groups = enc->nr_groups;
	for (g = 0; !err && g < enc->nr_groups; g++)
		stats->types_grouped += enc->groups[g].nr_types;
	free(group_sec);
	return err;
}

/*
 * The encode's share of the critical path: on unlimited cores chunk k is
 * done after its first piece, then the longest of its later pieces (all
 * at once), then its join and dedup; the longest such chunk.
 */
static void critical_chunk(const struct encoder *enc,
			   struct encode_critical *c)
{
	uint32_t k;

	c->chunk = 0;
	for (k = 0; k < enc->nr_chunks; k++) {
		uint32_t first = enc->chunk_pieces[k];
		double later = bc_par_longest(enc->piece_sec + first + 1,
					      enc->chunk_pieces[k + 1] - first - 1);
		double sec = enc->piece_sec[first] + later + enc->chunk_sec[k];

		if (sec <= c->chunk)
			continue;
		c->chunk = sec;
		c->first_piece = enc->piece_sec[first];
		c->later_piece = later;
		c->join = enc->chunk_sec[k];
	}
}

/*
 * The selection's plan (select_plan_funcs), which reads no types, made on
 * a thread of its own while the main thread deduplicates. (The ELF stays
 * open until the selection is done: the symbol table's names point into
 * it.)
 */
struct plan_job {
	struct encoder *enc;
	pthread_t thread;
	struct select_plan plan;
	double cpu_sec;			/* the sort's thread CPU time */
	int err;
};

static void *plan_main(void *arg)
{
	struct plan_job *job = arg;
	double t0 = bc_clock_sec(CLOCK_THREAD_CPUTIME_ID);

	job->err = select_plan_funcs(&job->plan, job->enc->cands,
				     job->enc->nr_pieces, &job->enc->syms);
	job->cpu_sec = bc_clock_sec(CLOCK_THREAD_CPUTIME_ID) - t0;
	return NULL;
}

const void *encode_result_raw(const struct encode_result *res, uint32_t *size)
{
	if (res->split_raw) {
		*size = res->split_size;
		return res->split_raw;
	}
	return btf__raw_data(res->btf, size);
}

void encode_result_deinit(struct encode_result *res)
{
	if (!res)
		return;
	btf__free(res->btf);
	free(res->split_raw);
	free(res->omit);
	func_decisions_deinit(&res->decisions);
	memset(res, 0, sizeof(*res));
}

int encode_file(const char *path, const struct encode_opts *opts,
		struct encode_result *out, struct encode_stats *stats,
		const struct bc_log *log)
{
	struct encoder enc = { .path = path, .opts = opts, .log = log };
	unsigned int jobs = opts->jobs ? opts->jobs : 1, i, started = 0;
	struct worker *workers = NULL;
	struct btf *merged = NULL;
	struct dwarf_handle h = { 0 };
	struct plan_job plan = { 0 };
	const unsigned char *abbrevs;
	size_t abbrevs_size;
	bool plan_started = false;
	double t0, cpu0, encode_end, first_end, workers_start = 0, tc0;
	int err;

	memset(out, 0, sizeof(*out));
	memset(stats, 0, sizeof(*stats));
	atomic_init(&enc.cursor, 0);
	atomic_init(&enc.first_error, 0);
	atomic_init(&enc.error_owner, -1);
	pthread_mutex_init(&enc.seed_lock, NULL);
	pthread_cond_init(&enc.seed_cond, NULL);
	pthread_mutex_init(&enc.idle_lock, NULL);
	pthread_cond_init(&enc.idle_cond, NULL);
	elf_version(EV_CURRENT);
	enc.features = opts->features;
	enc.features.flat_arrays = arrays_flat(opts);

	t0 = bc_clock_sec(CLOCK_MONOTONIC);
	tc0 = bc_clock_sec(CLOCK_THREAD_CPUTIME_ID);
	cpu0 = bc_clock_sec(CLOCK_PROCESS_CPUTIME_ID);
	err = open_dwarf(path, &h, log);
	enc.h = &h;
	if (!err)
		err = list_cus(&enc, h.dwarf);
	if (!err)
		err = plan_chunks(&enc, h.dwarf);
	enc.want_cands = opts->features.funcs || opts->features.vars ||
			 opts->features.global_vars;
	if (!err && enc.want_cands) {
		/* libelf is not thread-safe: the symbol table is read before the workers run */
		err = elf_syms_read(dwarf_getelf(h.dwarf), path, &enc.syms, log);
		enc.cand_ctx.syms = &enc.syms;
		enc.cand_ctx.features = &enc.features;
		elf_syms_call_abi(&enc.syms, &enc.cand_ctx.abi);
		loc_sections_find(dwarf_getelf(h.dwarf), &enc.cand_ctx.locs);
	}
	if (err)
		goto out;
	if (jobs > enc.nr_pieces)
		jobs = enc.nr_pieces;
	enc.working = jobs < bc_par_cpus() ? jobs : bc_par_cpus();
	enc.working_left = enc.working;
	workers = calloc(jobs, sizeof(*workers));
	if (!workers) {
		err = -ENOMEM;
		goto out;
	}
	/* libelf again: the abbreviations' section, found here for all */
	elf_section_bytes(dwarf_getelf(h.dwarf), ".debug_abbrev", &abbrevs,
			  &abbrevs_size);
	for (i = 0; i < jobs; i++) {
		workers[i].enc = &enc;
		workers[i].index = i;
		err = cu_encoder_init(&workers[i].cu, path, &enc.features, NULL);
		if (err)
			goto join;
		workers[i].cu.use_cache = !opts->no_type_cache;
		workers[i].cu.reader.abbrevs = abbrevs;
		workers[i].cu.reader.abbrevs_size = abbrevs_size;
		/*
		 * One Dwarf per worker, all over the one Elf (one mapping of the
		 * file, relocated once for ET_REL). dwarf_begin_elf reads and
		 * decompresses sections through libelf, which is not
		 * thread-safe: it runs here, before any worker starts; the
		 * walks afterwards only read the section data.
		 */
		if (i >= enc.working)
			continue;	/* waits, takes no piece */
		workers[i].dwarf = i ? dwarf_begin_elf(dwarf_getelf(h.dwarf),
						       DWARF_C_READ, NULL) : h.dwarf;
		if (!workers[i].dwarf) {
			err = bc_log_error(log, -ENOMEM,
				"%s: cannot open DWARF for worker %u: %s",
				path, i, dwarf_errmsg(-1));
			goto join;
		}
	}
	workers_start = bc_clock_sec(CLOCK_MONOTONIC);
	stats->critical.start = bc_clock_sec(CLOCK_THREAD_CPUTIME_ID) - tc0;
	for (i = 0; i < jobs; i++) {
		err = -pthread_create(&workers[i].thread, NULL, worker_main, &workers[i]);
		if (err) {
			bc_log_error(log, err, "%s: cannot start worker thread", path);
			atomic_store(&enc.first_error, err);
			break;
		}
		started++;
	}
	/* working workers never started count as done, or the idle ones would wait for them */
	for (i = started; i < enc.working; i++)
		working_done(&enc);
join:
	for (i = 0; i < started; i++)
		pthread_join(workers[i].thread, NULL);
	if (err)
		goto out;
	encode_end = t0;
	first_end = started ? workers[0].end_sec : t0;
	for (i = 0; i < started; i++) {
		if (workers[i].end_sec > encode_end)
			encode_end = workers[i].end_sec;
		if (workers[i].end_sec < first_end)
			first_end = workers[i].end_sec;
	}
	stats->encode_sec = encode_end - t0;
	stats->workers_start_sec = workers_start - t0;
	stats->workers_spread_sec = encode_end - first_end;
	stats->encode_cpu_sec = bc_clock_sec(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
	stats->chunks = enc.nr_chunks;
	stats->pieces = enc.nr_pieces;
	critical_chunk(&enc, &stats->critical);
	for (i = 0; i < jobs; i++) {
		stats->cus += workers[i].cus;
		stats->cus_skipped += workers[i].cus_skipped;
		stats->dies += workers[i].cu.dies;
		stats->types_encoded += workers[i].cu.types;
		stats->types_chunked += workers[i].types_chunked;
		stats->cache_hits += workers[i].cu.cache_hits;
	}
	err = atomic_load(&enc.first_error);
	if (err) {
		int owner = atomic_load(&enc.error_owner);

		if (owner >= 0 && workers[owner].message[0])
			bc_log_error(log, err, "%s", workers[owner].message);
		else
			bc_log_error(log, err, "%s: encoding failed: %s", path,
				     strerror(-err));
		goto out;
	}

	/* the selection's sort reads no types: it runs beside the dedups */
	if (enc.want_cands) {
		plan.enc = &enc;
		plan_started = !pthread_create(&plan.thread, NULL, plan_main, &plan);
		if (!plan_started)
			plan_main(&plan);
	}
	/*
	 * The chunks' BTFs deduplicated in groups of consecutive chunks,
	 * the groups in parallel; then the groups merged and deduplicated
	 * once more. Always in chunk order: the order is part of dedup's
	 * input. The chunks know nothing of a base, nor do the merges,
	 * their dedups or the selection: a module's types meet the base
	 * after them, once (split_attach_base).
	 */
	t0 = bc_clock_sec(CLOCK_MONOTONIC);
	err = dedup_groups(&enc, opts->jobs ? opts->jobs : 1, stats);
	if (!err)
		err = merge_parts(enc.groups, enc.nr_groups,
				  opts->jobs ? opts->jobs : 1, &merged,
				  &stats->merge);
	if (err) {
		if (plan_started)
			pthread_join(plan.thread, NULL);
		plan_started = false;
		bc_log_error(log, err, "%s: merging chunk BTFs failed: %s", path,
			     strerror(-err));
		goto out;
	}
	stats->merge_sec = bc_clock_sec(CLOCK_MONOTONIC) - t0;
	stats->critical.merge = stats->critical.groups +
				stats->merge.raw_longest_sec + stats->merge.plan_sec +
				stats->merge.strings_sec +
				stats->merge.copy_longest_sec +
				stats->merge.parse_sec;

	/*
	 * Base BTF is not deduplicated across the chunks here: canon's
	 * partition merges the chunks' copies, its FWDs resolved as libbpf's
	 * dedup resolves them (canon.c): the same bytes on every kernel
	 * tried (DESIGN.md). Split BTF is: a module's FWDs must meet its
	 * complete types before split_attach_base maps them onto the base's.
	 * In the dedup's place, while the candidates' sort may still run,
	 * libbpf indexes merged's strings (btf__find_str builds the index),
	 * which the selection needs to add its FUNCs and VARs.
	 */
	t0 = bc_clock_sec(CLOCK_MONOTONIC);
	tc0 = bc_clock_sec(CLOCK_THREAD_CPUTIME_ID);
	if (opts->base)
		err = btf__dedup(merged, NULL);
	else if (enc.want_cands)
		err = btf__find_str(merged, "") < 0 ? -ENOMEM : 0;
	if (plan_started)
		pthread_join(plan.thread, NULL);
	if (err) {
		bc_log_error(log, err, "%s: BTF dedup failed: %s", path,
			     strerror(-err));
		goto out;
	}
	stats->types_deduped = btf__type_cnt(merged) - 1;
	stats->dedup_sec = bc_clock_sec(CLOCK_MONOTONIC) - t0;
	tc0 = bc_clock_sec(CLOCK_THREAD_CPUTIME_ID) - tc0;
	/* the plan ran beside the groups, the merge and the dedup */
	stats->critical.dedup = plan.cpu_sec > stats->critical.merge + tc0 ?
				plan.cpu_sec - stats->critical.merge : tc0;
	if (enc.want_cands) {
		t0 = bc_clock_sec(CLOCK_MONOTONIC);
		err = plan.err;
		if (err)
			bc_log_error(log, err, "%s: function selection failed: %s",
				     path, strerror(-err));
		else
			err = select_emit(merged, enc.cands, enc.nr_pieces,
					  &plan.plan, &enc.syms, &enc.features,
					  &out->omit, &stats->select,
					  &out->decisions,
					  opts->jobs ? opts->jobs : 1, log);
		if (err)
			goto out;
		stats->select_sec = bc_clock_sec(CLOCK_MONOTONIC) - t0;
		/* its serial steps and its parallel steps' longest tasks */
		stats->critical.select = stats->select.critical_sec;
	}
	/*
	 * Split BTF: the module's types, selected as standalone BTF (adding
	 * to split BTF would make libbpf index the whole base's strings), are
	 * mapped onto the base once; the omit map follows them.
	 */
	if (opts->base) {
		t0 = bc_clock_sec(CLOCK_MONOTONIC);
		tc0 = bc_clock_sec(CLOCK_THREAD_CPUTIME_ID);
		err = split_attach_base(merged, opts->base, &out->omit,
					&out->split_raw, &out->split_size,
					&stats->attach);
		if (err) {
			bc_log_error(log, err,
				"%s: mapping its types onto the base BTF failed: %s",
				path, strerror(-err));
			goto out;
		}
		btf__free(merged);
		merged = NULL;
		stats->attach_sec = bc_clock_sec(CLOCK_MONOTONIC) - t0;
		stats->critical.attach = bc_clock_sec(CLOCK_THREAD_CPUTIME_ID) - tc0;
	}
	stats->critical.total = stats->critical.start + stats->critical.chunk +
				stats->critical.merge + stats->critical.dedup +
				stats->critical.select + stats->critical.attach;
	out->btf = merged;
	merged = NULL;
out:
	if (err)
		encode_result_deinit(out);
	select_plan_deinit(&plan.plan);
	btf__free(merged);
	for (i = 0; enc.parts && i < enc.nr_chunks; i++)
		chunk_part_free(&enc.parts[i]);
	for (i = 0; enc.pieces && i < enc.nr_pieces; i++)
		btf__free(enc.pieces[i]);
	for (i = 0; enc.seeds && i < enc.nr_chunks; i++)
		cu_encoder_seed_free(&enc.seeds[i]);
	free(enc.seeds);
	free(enc.seed_ready);
	pthread_mutex_destroy(&enc.seed_lock);
	pthread_cond_destroy(&enc.seed_cond);
	pthread_mutex_destroy(&enc.idle_lock);
	pthread_cond_destroy(&enc.idle_cond);
	for (i = 0; enc.groups && i < enc.nr_groups; i++)
		chunk_part_free(&enc.groups[i]);
	free(enc.groups);
	for (i = 0; workers && i < jobs; i++) {
		cu_encoder_deinit(&workers[i].cu);
		if (i && workers[i].dwarf)
			dwarf_end(workers[i].dwarf);
	}
	close_dwarf(&h);
	elf_syms_free(&enc.syms);
	for (i = 0; enc.cands && i < enc.nr_pieces; i++)
		cand_list_deinit(&enc.cands[i]);
	free(enc.cands);
	free(workers);
	free(enc.parts);
	free(enc.chunk_sec);
	free(enc.cu_offs);
	free(enc.chunk_first);
	free(enc.chunk_pieces);
	free(enc.piece_first);
	free(enc.piece_chunk);
	free(enc.pieces);
	free(enc.pieces_left);
	free(enc.piece_sec);
	free(enc.take_order);
	return err;
}
