// SPDX-License-Identifier: GPL-2.0-only
/*
 * The parallel driver: CU list, workers, merge, dedup.
 *
 * The main thread lists the compile units (their DIE offsets) and starts N
 * workers. Each worker opens the file again and owns its Dwarf handle
 * (libdw 0.188 is not built thread-safe), its libbpf BTF and its DIE map;
 * the only shared state is an atomic CU cursor and the first-error slot.
 * A worker takes the next CU index from the cursor, encodes that CU into
 * its BTF (cu_encoder.c) and, when its BTF has grown past a bound,
 * deduplicates it in place, which keeps memory proportional to the
 * distinct types rather than to the CUs seen.
 *
 * Which worker took which CU, and in what order, changes the workers'
 * BTFs, and so the merged BTF's ids: nothing here tries to be ordered.
 * Because forward declarations are marked (cu_encoder.c), every dedup
 * merges only identical types, so all schedules yield the same types up to
 * structural identity; canon (with resolve_fwds) then produces the one
 * canonical form. Cost: the DWARF walk and encoding run in parallel; the
 * merge and the final dedup are serial and proportional to the distinct
 * types (about 2 x workers x final size).
 */
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <dwarf.h>
#include <bpf/btf.h>

#include "cu_encoder.h"
#include "encoder.h"

#ifndef DW_LANG_Rust
#define DW_LANG_Rust 0x1c
#endif

struct encoder {
	const char *path;
	const struct encode_opts *opts;
	const struct bc_log *log;
	Dwarf_Off *cu_offs;		/* CU DIE offsets, in file order */
	uint32_t nr_cus;
	uint32_t *take_order;		/* [nr_cus] index into cu_offs */
	atomic_uint cu_cursor;		/* next position in take_order */
	atomic_int first_error;		/* 0, or the error that stops everyone */
	atomic_int error_owner;		/* worker whose message is kept, or -1 */
};

struct worker {
	struct encoder *enc;
	int index;
	pthread_t thread;
	struct cu_encoder cu;
	char message[1024];		/* this worker's first error message */
	uint32_t cus, cus_skipped;
	uint32_t dedups;
	double cpu_sec;
	int err;
};

static double now_sec(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void encode_opts_init(struct encode_opts *opts)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	memset(opts, 0, sizeof(*opts));
	opts->jobs = cpus > 0 ? cpus : 1;
	opts->worker_dedup_types = 600000;
	opts->features.floats = true;
	opts->features.decl_tags = true;
	opts->features.type_tags = true;
	opts->features.enum64 = true;
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
}

/*
 * A Dwarf handle of its own. Through libdwfl, which applies the relocations
 * of relocatable files (.o, .ko): without them every string and cross-unit
 * reference in a module's DWARF reads as offset 0.
 */
struct dwarf_handle {
	Dwfl *dwfl;
	Dwarf *dwarf;
};

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

	h->dwarf = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return bc_log_error(log, -errno, "%s: cannot open: %s", path,
				    strerror(errno));
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

		dwfl_end(h->dwfl);
		h->dwfl = NULL;
		return bc_log_error(log, -ENODATA,
			"%s: no DWARF to encode (%s); is it stripped? build with -g",
			path, dwfl_errmsg(derr));
	}
	return 0;
}

static void close_dwarf(struct dwarf_handle *h)
{
	if (h->dwfl)
		dwfl_end(h->dwfl);
	h->dwfl = NULL;
	h->dwarf = NULL;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct encoder *enc = w->enc;
	struct bc_log log = { .fn = worker_log, .ctx = w };
	double cpu0 = now_sec(CLOCK_THREAD_CPUTIME_ID);
	struct dwarf_handle h;
	Dwarf *dwarf;
	int err;

	w->cu.log = &log;
	err = open_dwarf(enc->path, &h, &log);
	dwarf = h.dwarf;
	while (!err && !atomic_load(&enc->first_error)) {
		unsigned int pos = atomic_fetch_add(&enc->cu_cursor, 1);
		Dwarf_Die cu_die;

		if (pos >= enc->nr_cus)
			break;
		if (!dwarf_offdie(dwarf, enc->cu_offs[enc->take_order[pos]], &cu_die)) {
			err = bc_log_error(&log, -EINVAL,
				"%s: CU at 0x%llx: cannot read its DIE: %s",
				enc->path,
				(unsigned long long)enc->cu_offs[enc->take_order[pos]],
				dwarf_errmsg(-1));
			break;
		}
		if (enc->opts->skip_rust && dwarf_srclang(&cu_die) == DW_LANG_Rust) {
			w->cus_skipped++;
			continue;
		}
		err = cu_encoder_encode(&w->cu, &cu_die);
		w->cus++;
		if (!err && btf__type_cnt(w->cu.btf) > enc->opts->worker_dedup_types) {
			err = cu_encoder_dedup(&w->cu);
			w->dedups++;
		}
	}
	if (err)
		set_first_error(w, err);
	close_dwarf(&h);
	w->cu.log = NULL;
	w->cpu_sec = now_sec(CLOCK_THREAD_CPUTIME_ID) - cpu0;
	return NULL;
}

/* Lists the compile units; type units and partial units are reached by reference. */
static int list_cus(struct encoder *enc)
{
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Half version;
	uint8_t unit_type;
	Dwarf_Die cu_die;
	uint32_t cap = 0;
	struct dwarf_handle h;
	Dwarf *dwarf;
	int err, ret;

	err = open_dwarf(enc->path, &h, enc->log);
	if (err)
		return err;
	dwarf = h.dwarf;
	while ((ret = dwarf_get_units(dwarf, cu, &next, &version, &unit_type,
				      &cu_die, NULL)) == 0) {
		cu = next;
		if (unit_type != DW_UT_compile)
			continue;
		if (enc->nr_cus == cap) {
			Dwarf_Off *grown;

			cap = cap ? cap * 2 : 1024;
			grown = realloc(enc->cu_offs, cap * sizeof(*grown));
			if (!grown) {
				err = -ENOMEM;
				goto out;
			}
			enc->cu_offs = grown;
		}
		enc->cu_offs[enc->nr_cus++] = dwarf_dieoffset(&cu_die);
	}
	if (ret < 0)
		err = bc_log_error(enc->log, -EINVAL,
			"%s: corrupt DWARF after %u compile units: %s",
			enc->path, enc->nr_cus, dwarf_errmsg(-1));
	else if (!enc->nr_cus)
		err = bc_log_error(enc->log, -ENODATA,
			"%s: DWARF has no compile units", enc->path);
out:
	close_dwarf(&h);
	return err;
}

/* The order workers take CUs in: file order, or a seeded shuffle for tests. */
static int plan_take_order(struct encoder *enc)
{
	uint64_t state = enc->opts->shuffle_seed * 0x9e3779b97f4a7c15ULL + 1;
	uint32_t i;

	enc->take_order = malloc((enc->nr_cus ? enc->nr_cus : 1) * sizeof(uint32_t));
	if (!enc->take_order)
		return -ENOMEM;
	for (i = 0; i < enc->nr_cus; i++)
		enc->take_order[i] = i;
	if (!enc->opts->shuffle)
		return 0;
	for (i = enc->nr_cus; i > 1; i--) {
		uint32_t j, t;

		state ^= state << 13;
		state ^= state >> 7;
		state ^= state << 17;
		j = state % i;
		t = enc->take_order[i - 1];
		enc->take_order[i - 1] = enc->take_order[j];
		enc->take_order[j] = t;
	}
	return 0;
}

/* Drops ENCODE_FWD_MARK from declaration names once dedup is done. */
static int unmark_fwds(struct btf *btf)
{
	uint32_t id, n = btf__type_cnt(btf);

	for (id = 1; id < n; id++) {
		struct btf_type *t = (struct btf_type *)btf__type_by_id(btf, id);
		uint32_t kind = btf_kind(t);
		const char *name;
		int off;

		if (kind != BTF_KIND_FWD && kind != BTF_KIND_ENUM &&
		    kind != BTF_KIND_ENUM64)
			continue;
		name = btf__name_by_offset(btf, t->name_off);
		if (!name || name[0] != ENCODE_FWD_MARK)
			continue;
		off = btf__add_str(btf, name + 1);
		if (off < 0)
			return off;
		/* btf__add_str may move strings, never types */
		t->name_off = off;
	}
	return 0;
}

int encode_file(const char *path, const struct encode_opts *opts,
		struct btf **out, struct encode_stats *stats,
		const struct bc_log *log)
{
	struct encoder enc = { .path = path, .opts = opts, .log = log };
	unsigned int jobs = opts->jobs ? opts->jobs : 1, i, started = 0;
	struct worker *workers = NULL;
	struct btf *merged = NULL;
	double t0, cpu0;
	int err;

	*out = NULL;
	memset(stats, 0, sizeof(*stats));
	atomic_init(&enc.cu_cursor, 0);
	atomic_init(&enc.first_error, 0);
	atomic_init(&enc.error_owner, -1);
	elf_version(EV_CURRENT);

	t0 = now_sec(CLOCK_MONOTONIC);
	cpu0 = now_sec(CLOCK_PROCESS_CPUTIME_ID);
	err = list_cus(&enc);
	if (!err)
		err = plan_take_order(&enc);
	if (err)
		goto out;
	if (jobs > enc.nr_cus)
		jobs = enc.nr_cus;
	workers = calloc(jobs, sizeof(*workers));
	if (!workers) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < jobs; i++) {
		workers[i].enc = &enc;
		workers[i].index = i;
		err = cu_encoder_init(&workers[i].cu, path, &opts->features, NULL);
		if (err)
			goto join;
	}
	for (i = 0; i < jobs; i++) {
		err = -pthread_create(&workers[i].thread, NULL, worker_main, &workers[i]);
		if (err) {
			bc_log_error(log, err, "%s: cannot start worker thread", path);
			atomic_store(&enc.first_error, err);
			break;
		}
		started++;
	}
join:
	for (i = 0; i < started; i++)
		pthread_join(workers[i].thread, NULL);
	if (err)
		goto out;
	stats->encode_sec = now_sec(CLOCK_MONOTONIC) - t0;
	stats->encode_cpu_sec = now_sec(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
	for (i = 0; i < jobs; i++) {
		stats->cus += workers[i].cus;
		stats->cus_skipped += workers[i].cus_skipped;
		stats->dies += workers[i].cu.dies;
		stats->types_encoded += workers[i].cu.types;
		stats->worker_dedups += workers[i].dedups;
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

	/* merge: worker 0's BTF takes in the others' */
	t0 = now_sec(CLOCK_MONOTONIC);
	merged = workers[0].cu.btf;
	workers[0].cu.btf = NULL;
	for (i = 1; i < jobs && !err; i++) {
		int ret = btf__add_btf(merged, workers[i].cu.btf);

		err = ret < 0 ? ret : 0;
		btf__free(workers[i].cu.btf);
		workers[i].cu.btf = NULL;
	}
	if (err) {
		bc_log_error(log, err, "%s: merging worker BTFs failed: %s", path,
			     strerror(-err));
		goto out;
	}
	stats->types_merged = btf__type_cnt(merged) - 1;
	stats->merge_sec = now_sec(CLOCK_MONOTONIC) - t0;

	t0 = now_sec(CLOCK_MONOTONIC);
	err = btf__dedup(merged, NULL);
	if (!err)
		err = unmark_fwds(merged);
	if (err) {
		bc_log_error(log, err, "%s: BTF dedup failed: %s", path,
			     strerror(-err));
		goto out;
	}
	stats->types_deduped = btf__type_cnt(merged) - 1;
	stats->dedup_sec = now_sec(CLOCK_MONOTONIC) - t0;
	*out = merged;
	merged = NULL;
out:
	btf__free(merged);
	for (i = 0; workers && i < jobs; i++)
		cu_encoder_deinit(&workers[i].cu);
	free(workers);
	free(enc.cu_offs);
	free(enc.take_order);
	return err;
}
