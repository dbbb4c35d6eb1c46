// SPDX-License-Identifier: GPL-2.0-only
/*
 * Faults and resources: what happens when a part of the work fails.
 *
 *	worker_error	a unit late in the file is corrupt and -j8 workers
 *			run: the encode stops with that unit's error, one
 *			message, no output, no thread left behind, no hang;
 *	alloc_failure	the nth allocation fails, for every n, in the
 *			parser, canon, the file reader, dump (raw and C),
 *			diff and archive views: each returns -ENOMEM or
 *			succeeds, never crashes, and under `make asan` never
 *			leaks;
 *	resources	-j above the number of units, -j0 and negative -j,
 *			and the peak RSS of encoding the 6.12 vmlinux at -j8.
 *
 * Allocation failures are injected without LD_PRELOAD: the test binary is
 * linked with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc (Makefile),
 * so every malloc call in the project's objects goes through
 * __wrap_malloc() below. fail_at counts down the allocations of the code
 * under test; 0 disarms. Calls inside libbpf, libdw and libc (strdup) are
 * not counted.
 */
#include <dirent.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../archive/archive.h"
#include "../diff/btf_diff.h"
#include "../header/dump.h"
#include "../header/slim.h"
#include "../encode/encoder.h"
#include "../encode/merge.h"
#include "../archive/btf_file.h"
#include "suites.h"
#include "testutil.h"

/* --- allocation failure injection --- */

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);

/*
 * Allocations left before the one that fails; 0: never fail. The only
 * mutable file-scope state in the tests, and a test hook by nature: the
 * wrappers cannot be handed a context.
 */
static atomic_long fail_countdown;
static atomic_bool failed_one;

static bool should_fail(void)
{
	long left = atomic_load(&fail_countdown);

	while (left > 0) {
		if (atomic_compare_exchange_weak(&fail_countdown, &left, left - 1)) {
			if (left == 1) {
				atomic_store(&failed_one, true);
				return true;
			}
			return false;
		}
	}
	return false;
}

void *__wrap_malloc(size_t size)
{
	return should_fail() ? NULL : __real_malloc(size);
}

void *__wrap_calloc(size_t n, size_t size)
{
	return should_fail() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t size)
{
	return should_fail() ? NULL : __real_realloc(p, size);
}

static void arm(long n)
{
	atomic_store(&failed_one, false);
	atomic_store(&fail_countdown, n);
}

/* Disarms; true when the armed failure happened. */
static bool disarm(void)
{
	atomic_store(&fail_countdown, 0);
	return atomic_load(&failed_one);
}

static void quiet(void *ctx, enum bc_log_level level, const char *msg)
{
	(void)ctx;
	(void)level;
	(void)msg;
}

static const struct bc_log quiet_log = { .fn = quiet };

/* One pass of the code under test on raw BTF. Returns 0 or negative errno. */
static int parse_canon_dump_diff(const struct blob *raw)
{
	static const struct canon_opts opts = { .resolve_fwds = true };
	struct canon_result res = { 0 };
	struct bc_btf *btf = NULL, *sorted = NULL;
	struct bc_diff diff = { 0 };
	struct bc_text text;
	int err;

	bc_text_init(&text);
	err = bc_btf_parse(raw->data, raw->size, NULL, "alloc.btf", &quiet_log, &btf);
	if (!err)
		err = canon_run(btf, &opts, &res, &quiet_log);
	if (!err)
		err = bc_btf_parse(res.raw, res.raw_size, NULL, "sorted.btf",
				   &quiet_log, &sorted);
	if (!err)
		err = bc_dump_raw(sorted, &text);
	if (!err) {
		struct btf *lbtf = btf__new(res.raw, res.raw_size);

		err = lbtf ? bc_dump_c(sorted, lbtf, &text, &quiet_log) : -errno;
		btf__free(lbtf);
	}
	if (!err)
		err = bc_diff_run(btf, sorted, &diff, &quiet_log);
	bc_diff_deinit(&diff);
	bc_text_deinit(&text);
	canon_result_deinit(&res);
	bc_btf_free(sorted);
	bc_btf_free(btf);
	return err;
}

/* The reader: raw BTF from a file, through bc_file_load_btf(). */
static int load_file(const char *path)
{
	enum bc_file_format format;
	struct bc_btf *btf = NULL;
	int err = bc_file_load_btf(path, NULL, &btf, &format, &quiet_log);

	bc_btf_free(btf);
	return err;
}

/*
 * Fails allocation n = 1, 2, ... of fn(arg) until a run completes with no
 * failure injected; every run must give 0 or -ENOMEM. Returns how many
 * allocations a clean run makes.
 */
static long fail_each_allocation(int (*fn)(const void *arg), const void *arg,
				 const char *what)
{
	long n;

	for (n = 1; ; n++) {
		int err;

		arm(n);
		err = fn(arg);
		if (!disarm()) {
			ck_assert_msg(err == 0, "%s: %d without a failure", what, err);
			return n - 1;
		}
		ck_assert_msg(err == -ENOMEM || err == 0,
			      "%s: allocation %ld failed, got %d, want -ENOMEM",
			      what, n, err);
	}
}

static int run_blob(const void *arg)
{
	return parse_canon_dump_diff(arg);
}

static int run_file(const void *arg)
{
	return load_file(arg);
}

#define SEED_DIR "tests/fuzz/corpus/sort/"

/* _i: which seed BTF (the fixtures' encoder output, gcc and clang). */
static const char *const alloc_inputs[] = {
	"bitfields-gcc.btf", "func_types-clang.btf", "forward_decls-gcc.btf",
	"btf_tags-clang.btf",
};

START_TEST(test_alloc_failure)
{
	char path[256];
	struct blob raw;
	long n;

	snprintf(path, sizeof(path), SEED_DIR "%s", alloc_inputs[_i]);
	raw = read_file(path);
	ck_assert_msg(raw.data, "%s: missing", path);
	n = fail_each_allocation(run_blob, &raw, path);
	ck_assert_msg(n > 10, "%s: only %ld allocations: is the wrapper linked?",
		      path, n);
	fprintf(stderr, "faults: %s: each of %ld allocations failed in turn", path, n);
	n = fail_each_allocation(run_file, path, path);
	fprintf(stderr, ", and %ld of the reader\n", n);
	blob_free(&raw);
}
END_TEST

/* --- the slim header: a source's names, the selection, its dump --- */

struct slim_run {
	const struct blob *raw;
	const char *source;
};

static int slim_select_dump(const void *arg)
{
	const struct slim_run *run = arg;
	const char *const sources[] = { run->source };
	struct bc_slim_request req = { .sources = sources, .nr_sources = 1 };
	struct btf *full = btf__new(run->raw->data, run->raw->size), *slim = NULL;
	struct bc_btf *parsed = NULL;
	struct bc_text text;
	const void *raw;
	uint32_t size;
	int err;

	bc_text_init(&text);
	err = full ? bc_slim_btf(full, &req, &slim, &quiet_log) : -errno;
	if (!err) {
		raw = btf__raw_data(slim, &size);
		err = raw ? bc_btf_parse(raw, size, NULL, "slim.btf", &quiet_log,
					 &parsed) : -ENOMEM;
	}
	if (!err)
		err = bc_dump_c(parsed, slim, &text, &quiet_log);
	bc_text_deinit(&text);
	bc_btf_free(parsed);
	btf__free(slim);
	btf__free(full);
	return err;
}

/*
 * Every allocation of the slim header's path failed in turn, on seeds
 * with pointers and forward declarations, from a source that names every
 * other named type of the seed (so some are whole, some FWDs).
 */
START_TEST(test_slim_alloc_failure)
{
	static const char *const seeds[] = {
		"forward_decls-gcc.btf", "func_types-clang.btf",
	};
	char path[256], source[] = "/tmp/btfcanon-slim-src-XXXXXX";
	struct slim_run run = { .source = source };
	struct blob raw;
	struct btf *btf;
	uint32_t id;
	long n;
	int fd;
	FILE *f;

	snprintf(path, sizeof(path), SEED_DIR "%s", seeds[_i]);
	raw = read_file(path);
	ck_assert_msg(raw.data, "%s: missing", path);
	btf = btf__new(raw.data, raw.size);
	ck_assert_ptr_nonnull(btf);
	fd = mkstemp(source);
	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	for (id = 1; id < btf__type_cnt(btf); id += 2)
		fprintf(f, "%s\n", btf__name_by_offset(btf, btf__type_by_id(btf, id)->name_off));
	fclose(f);
	btf__free(btf);
	run.raw = &raw;
	n = fail_each_allocation(slim_select_dump, &run, path);
	ck_assert_msg(n > 10, "%s: only %ld allocations", path, n);
	fprintf(stderr, "faults: slim header of %s: each of %ld allocations failed in turn\n",
		path, n);
	unlink(source);
	blob_free(&raw);
}
END_TEST

/* A program's names read through include directories (c_names.c's -I). */
static int slim_names_with_dirs(const void *arg)
{
	static const char *const sources[] = { "tests/fixtures/slim/incdirs/prog.bpf.c" };
	static const char *const dirs[] = {
		"tests/fixtures/slim/incdirs/include", "tests/fixtures/slim/incdirs/common",
	};
	struct bc_slim_request req = {
		.sources = sources, .nr_sources = 1,
		.include_dirs = dirs, .nr_include_dirs = 2,
	};
	struct bc_slim_names *names = NULL;
	int err;

	(void)arg;
	err = bc_slim_names_read(&req, &names, &quiet_log);
	bc_slim_names_free(names);
	return err;
}

/* Every allocation of reading headers found through -I failed in turn. */
START_TEST(test_slim_include_dirs_alloc_failure)
{
	long n = fail_each_allocation(slim_names_with_dirs, NULL, "-I names");

	ck_assert_msg(n > 5, "only %ld allocations", n);
	fprintf(stderr, "faults: names through -I: each of %ld allocations failed in turn\n", n);
}
END_TEST

/* --- a corrupt unit late in the file, many workers --- */

static char scratch[] = "/tmp/btfcanon-faults-XXXXXX";

#define NR_UNITS 40

static int sh(const char *cmd)
{
	int status = system(cmd);

	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/*
 * scratch/units.o: NR_UNITS compile units (ld -r of as many objects),
 * each with its own struct; scratch/late-bad.o the same with the type
 * reference of unit NR_UNITS - 3 aimed 2 GB away. *bad_cu gets that unit's
 * offset.
 */
static void make_units(uint64_t *bad_cu)
{
	char cmd[1024];
	uint64_t off = 0, next, ref = 0;
	size_t hsize;
	struct blob obj;
	int fd, i;
	Dwarf *dw;

	strcpy(scratch, "/tmp/btfcanon-faults-XXXXXX");	/* once per test case */
	ck_assert_ptr_nonnull(mkdtemp(scratch));
	for (i = 0; i < NR_UNITS; i++) {
		snprintf(cmd, sizeof(cmd),
			 "printf 'struct s%d { int a; struct s%d *next; };\\n"
			 "typedef struct s%d s%d_t;\\ns%d_t *use%d(s%d_t *p) { return p->next; }\\n'"
			 " > %s/u%d.c && gcc -g -O0 -c %s/u%d.c -o %s/u%d.o",
			 i, i, i, i, i, i, i, scratch, i, scratch, i, scratch, i);
		ck_assert_int_eq(sh(cmd), 0);
	}
	snprintf(cmd, sizeof(cmd), "ld -r -o %s/units.o %s/u*.o", scratch, scratch);
	ck_assert_int_eq(sh(cmd), 0);

	snprintf(cmd, sizeof(cmd), "%s/units.o", scratch);
	fd = open(cmd, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	dw = dwarf_begin(fd, DWARF_C_READ);
	ck_assert_ptr_nonnull(dw);
	for (i = 0; dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0;
	     i++, off = next) {
		Dwarf_Die cu, die;
		Dwarf_Attribute attr;

		if (i != NR_UNITS - 3)
			continue;
		*bad_cu = off + hsize;	/* the encoder names a unit by its DIE */
		ck_assert_ptr_nonnull(dwarf_offdie(dw, off + hsize, &cu));
		ck_assert_int_eq(dwarf_child(&cu, &die), 0);
		do {
			if (dwarf_attr(&die, DW_AT_type, &attr) &&
			    dwarf_whatform(&attr) == DW_FORM_ref4) {
				ref = off + hsize +
				      ((const char *)attr.valp - (const char *)cu.addr);
				break;
			}
		} while (!dwarf_siblingof(&die, &die));
	}
	ck_assert_int_eq(i, NR_UNITS);
	ck_assert_msg(ref, "no ref4 type in unit %d", NR_UNITS - 3);
	dwarf_end(dw);
	close(fd);

	/* patch the copy: .debug_info's file offset from readelf */
	obj = read_file(cmd);
	{
		char line[256];
		unsigned long long sec_off = 0;
		FILE *p;

		snprintf(cmd, sizeof(cmd),
			 "readelf -W -S %s/units.o | sed -n 's/.*\\] \\.debug_info *[A-Z]* *[0-9a-f]* \\([0-9a-f]*\\).*/\\1/p'",
			 scratch);
		p = popen(cmd, "r");
		ck_assert_ptr_nonnull(p);
		ck_assert_ptr_nonnull(fgets(line, sizeof(line), p));
		pclose(p);
		sec_off = strtoull(line, NULL, 16);
		ck_assert_uint_gt(sec_off, 0);
		memcpy((char *)obj.data + sec_off + ref, &(uint32_t){ 0x7ffffff0 }, 4);
	}
	snprintf(cmd, sizeof(cmd), "%s/late-bad.o", scratch);
	fd = open(cmd, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, obj.data, obj.size), (ssize_t)obj.size);
	close(fd);
	blob_free(&obj);
}

static uint64_t bad_cu_off;

static void units_setup(void)
{
	make_units(&bad_cu_off);
}

static void units_teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", scratch);
	sh(cmd);
}

static unsigned int count_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	unsigned int n = 0;
	struct dirent *e;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

struct captured {
	char first[1024];
	unsigned int errors;
};

static void capture(void *ctx, enum bc_log_level level, const char *msg)
{
	struct captured *c = ctx;

	if (level != BC_LOG_ERROR)
		return;
	if (!c->errors++)
		snprintf(c->first, sizeof(c->first), "%s", msg);
}

/* _i: 0 file order, 1 and 2 shuffled unit orders; -j8, a unit per chunk. */
START_TEST(test_worker_error)
{
	struct captured cap = { 0 };
	struct bc_log log = { .fn = capture, .ctx = &cap };
	struct encode_opts opts;
	struct encode_stats stats;
	struct encode_result out;
	char path[128], cu_at[64];
	unsigned int threads;
	int err;

	encode_opts_init(&opts);
	opts.jobs = 8;
	opts.chunk_cus = 1;
	opts.shuffle = _i > 0;
	opts.shuffle_seed = _i;
	/*
	 * The baseline thread count after a good run: a sanitizer's own
	 * background thread starts with the first pthread_create.
	 */
	snprintf(path, sizeof(path), "%s/units.o", scratch);
	ck_assert_int_eq(encode_file(path, &opts, &out, &stats, &quiet_log), 0);
	encode_result_deinit(&out);
	threads = count_threads();

	snprintf(path, sizeof(path), "%s/late-bad.o", scratch);
	snprintf(cu_at, sizeof(cu_at), "CU at 0x%llx", (unsigned long long)bad_cu_off);
	memset(&out, 0xff, sizeof(out));
	err = encode_file(path, &opts, &out, &stats, &log);
	ck_assert_int_eq(err, -EINVAL);
	ck_assert_ptr_null(out.btf);
	ck_assert_ptr_null(out.omit);
	ck_assert_uint_eq(cap.errors, 1);
	ck_assert_msg(strstr(cap.first, path) && strstr(cap.first, cu_at),
		      "message names neither the file nor %s: %s", cu_at, cap.first);
	ck_assert_uint_eq(count_threads(), threads);
}
END_TEST

/* Through the CLI: status 1, the unit named, nothing written. */
START_TEST(test_worker_error_cli)
{
	const char *cli = getenv("BTFCANON");
	char cmd[1024];
	struct blob err;

	ck_assert_ptr_nonnull(cli);
	snprintf(cmd, sizeof(cmd),
		 "timeout 120 %s encode -j8 --chunk-cus 1 %s/late-bad.o -o %s/out.btf 2> %s/stderr",
		 cli, scratch, scratch, scratch);
	ck_assert_int_eq(sh(cmd), 1);
	snprintf(cmd, sizeof(cmd), "%s/stderr", scratch);
	err = read_file(cmd);
	ck_assert_ptr_nonnull(err.data);
	ck_assert_msg(memmem(err.data, err.size, "bad DW_AT_type reference", 24),
		      "%.*s", (int)err.size, (char *)err.data);
	blob_free(&err);
	snprintf(cmd, sizeof(cmd), "ls %s | grep -q out.btf", scratch);
	ck_assert_int_ne(sh(cmd), 0);
}
END_TEST

/* --- resources --- */

/* Files a and b of the scratch directory are the same, and not empty. */
static void assert_same_outputs(const char *a, const char *b)
{
	char path[256];
	struct blob one, many;

	snprintf(path, sizeof(path), "%s/%s", scratch, a);
	one = read_file(path);
	snprintf(path, sizeof(path), "%s/%s", scratch, b);
	many = read_file(path);
	ck_assert_msg(one.size > 0 && blob_eq(&one, &many), "%s and %s differ", a, b);
	blob_free(&one);
	blob_free(&many);
}

/* -j far above the number of units gives the bytes -j1 gives. */
START_TEST(test_jobs_above_units)
{
	const char *cli = getenv("BTFCANON");
	char cmd[1024];

	ck_assert_ptr_nonnull(cli);
	snprintf(cmd, sizeof(cmd),
		 "%s encode -j1 %s/units.o -o %s/j1.btf && %s encode -j64 %s/u0.o -o %s/j64-one.btf && "
		 "%s encode -j1 %s/u0.o -o %s/j1-one.btf && %s encode -j1000 %s/units.o -o %s/j1000.btf",
		 cli, scratch, scratch, cli, scratch, scratch, cli, scratch,
		 scratch, cli, scratch, scratch);
	ck_assert_int_eq(sh(cmd), 0);
	assert_same_outputs("j1.btf", "j1000.btf");
	assert_same_outputs("j1-one.btf", "j64-one.btf");
}
END_TEST

/* -j0, negative, huge and non-numbers: usage error, a message saying so. */
static const char *const bad_jobs[] = { "0", "-1", "-8", "-4294967295", "1025", "x", "" };

START_TEST(test_bad_jobs)
{
	const char *cli = getenv("BTFCANON");
	char cmd[1024];
	struct blob err;

	ck_assert_ptr_nonnull(cli);
	snprintf(cmd, sizeof(cmd), "%s encode -j '%s' %s/u0.o -o %s/bad-j.btf 2> %s/stderr",
		 cli, bad_jobs[_i], scratch, scratch, scratch);
	ck_assert_int_eq(sh(cmd), 2);
	snprintf(cmd, sizeof(cmd), "%s/stderr", scratch);
	err = read_file(cmd);
	ck_assert_ptr_nonnull(err.data);
	ck_assert_msg(memmem(err.data, err.size, "worker threads must be from 1 to", 32),
		      "-j '%s': %.*s", bad_jobs[_i], (int)err.size, (char *)err.data);
	blob_free(&err);
	snprintf(cmd, sizeof(cmd), "%s/bad-j.btf", scratch);
	ck_assert_int_ne(access(cmd, F_OK), 0);
}
END_TEST

#define VMLINUX "/usr/lib/debug/boot/vmlinux-6.12.117+deb12-cloud-amd64"
#define RSS_LIMIT_MB 400

/*
 * The encoder's memory target: the 6.12 vmlinux at -j8 (2401 units) stays
 * under RSS_LIMIT_MB of peak RSS, measured by wait4() on the CLI. Skipped
 * under sanitizers (BTFCANON_SANITIZED), whose shadow memory is not ours.
 */
START_TEST(test_peak_rss)
{
	const char *cli = getenv("BTFCANON");
	struct rusage ru;
	int status;
	pid_t pid;

	ck_assert_ptr_nonnull(cli);
	if (access(VMLINUX, R_OK) || getenv("BTFCANON_SANITIZED")) {
		fprintf(stderr, "faults: peak RSS skipped: %s\n",
			getenv("BTFCANON_SANITIZED") ? "sanitizer build" :
			VMLINUX " not installed");
		return;
	}
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		execl(cli, cli, "encode", "-j8", VMLINUX, "-o", "/dev/null",
		      (char *)NULL);
		_exit(127);
	}
	ck_assert_int_eq(wait4(pid, &status, 0, &ru), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_msg(ru.ru_maxrss < RSS_LIMIT_MB * 1024,
		      "peak RSS %ld MB at -j8, limit %d MB", ru.ru_maxrss / 1024,
		      RSS_LIMIT_MB);
	fprintf(stderr, "faults: vmlinux -j8 peak RSS %ld MB\n", ru.ru_maxrss / 1024);
}
END_TEST

/*
 * merge_parts() with allocation n = 1, 2, ... failed: 0 or -ENOMEM, and
 * (under ASan) nothing leaked; the parts' bytes are freed either way.
 * One thread, so that the nth allocation is the same one each run.
 */
static void merge_fault_parts(struct chunk_part *parts, int n)
{
	int k;

	for (k = 0; k < n; k++) {
		struct btf *btf = btf__new_empty();

		ck_assert_ptr_nonnull(btf);
		btf__add_int(btf, "int", 4, BTF_INT_SIGNED);		/* [1] */
		btf__add_struct(btf, k % 2 ? "a" : "b", 4);		/* [2] */
		btf__add_field(btf, "x", 1, 0, 0);
		btf__add_ptr(btf, 2);					/* [3] */
		ck_assert_int_eq(chunk_part_take(&parts[k], btf), 0);
	}
}

START_TEST(test_merge_alloc_failure)
{
	struct chunk_part parts[3];
	struct merge_stats ms;
	struct btf *join;
	long n;
	int err;

	for (n = 1; ; n++) {
		merge_fault_parts(parts, 3);
		arm(n);
		err = merge_parts(parts, 3, 1, &join, &ms);
		if (!disarm()) {
			ck_assert_int_eq(err, 0);
			ck_assert_uint_eq(btf__type_cnt(join), 10);
			btf__free(join);
			break;
		}
		ck_assert_msg(err == -ENOMEM, "allocation %ld failed, got %d", n, err);
		ck_assert_ptr_null(join);
	}
	ck_assert_msg(n > 5, "only %ld allocations: is the wrapper linked?", n);
}
END_TEST

/*
 * Views over every kernel of a small archive, in version order with the
 * first kept open as deps keeps it (the archive's shared view tables,
 * record -> id arrays handed on, lists freed), each read by name and by
 * id.
 */
static int open_views(const void *arg)
{
	const struct blob *file = arg;
	struct bc_archive_view *first = NULL, *v;
	struct bc_archive *ar = NULL;
	uint32_t k, ids[4], words[64];
	int err = bc_archive_parse(file->data, file->size, "alloc.bca", &ar,
				   &quiet_log);

	for (k = 0; !err && k < bc_archive_nr_kernels(ar); k++) {
		err = bc_archive_view_open(ar, k, &v, &quiet_log);
		if (err)
			break;
		(void)bc_archive_view_find(v, BTF_KIND_STRUCT, "s", ids, 4);
		(void)bc_archive_view_type(v, bc_archive_view_nr_types(v), words, 64);
		if (first)
			bc_archive_view_free(v);
		else
			first = v;
	}
	bc_archive_view_free(first);
	bc_archive_free(ar);
	return err;
}

START_TEST(test_views_alloc_failure)
{
	struct blob file = read_file("tests/fuzz/corpus/archive/a.bca");
	long n;

	ck_assert_msg(file.data, "tests/fuzz/corpus/archive/a.bca: missing");
	n = fail_each_allocation(open_views, &file, "views");
	ck_assert_msg(n > 10, "only %ld allocations: is the wrapper linked?", n);
	fprintf(stderr, "faults: archive views: each of %ld allocations failed in turn\n", n);
	blob_free(&file);
}
END_TEST

Suite *faults_suite(void)
{
	Suite *s = suite_create("faults");
	TCase *tc = tcase_create("worker_error");

	tcase_add_unchecked_fixture(tc, units_setup, units_teardown);
	tcase_add_loop_test(tc, test_worker_error, 0, 3);
	tcase_add_test(tc, test_worker_error_cli);
	suite_add_tcase(s, tc);

	tc = tcase_create("alloc_failure");
	tcase_add_loop_test(tc, test_alloc_failure, 0,
			    sizeof(alloc_inputs) / sizeof(alloc_inputs[0]));
	tcase_add_test(tc, test_merge_alloc_failure);
	tcase_add_test(tc, test_views_alloc_failure);
	tcase_add_loop_test(tc, test_slim_alloc_failure, 0, 2);
	tcase_add_test(tc, test_slim_include_dirs_alloc_failure);
	suite_add_tcase(s, tc);

	tc = tcase_create("resources");
	tcase_add_unchecked_fixture(tc, units_setup, units_teardown);
	tcase_add_test(tc, test_jobs_above_units);
	tcase_add_loop_test(tc, test_bad_jobs, 0,
			    sizeof(bad_jobs) / sizeof(bad_jobs[0]));
	tcase_add_test(tc, test_peak_rss);
	suite_add_tcase(s, tc);
	return s;
}
