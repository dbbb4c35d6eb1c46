// SPDX-License-Identifier: GPL-2.0-only
/*
 * Real kernel BTF: the running kernel's /sys/kernel/btf/vmlinux and the
 * .BTF section of Debian's 6.12.117 debug vmlinux, each canonicalized in
 * both orders and held to the properties DESIGN.md promises:
 *
 *	permute		canon(permute(x, seed)) == canon(x), several seeds
 *	idempotent	canon(canon(x)) == canon(x), and nothing left to merge
 *	libbpf		btf__new() and btf__parse() accept the output
 *	bpftool		`bpftool btf dump file OUT [format c]` exits 0
 *	kernel		bpf(BPF_BTF_LOAD) accepts the output when it accepts x
 *	name_sorted	--order=name output is sorted by name, anonymous first
 *	content		counts, merges and the input -> output id map add up
 *	doubled		canon(x followed by a copy of x) == canon(x)
 *
 * Every TCase loops over (input, order); messages name both. The running
 * kernel's BTF may be absent (a container without sysfs BTF): those tests
 * skip with a message. The debug image is a declared dependency (CI and
 * tools/setup-debian.sh install it): when it is missing the tests fail.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE		/* memmem; `make asan` drops the Makefile's -D */
#endif
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "suites.h"
#include "testutil.h"
#include "../canon/btf_kinds.h"
#include "../archive/btf_file.h"

extern char **environ;

#define DEBUG_PKG	"linux-image-6.12.117+deb12-cloud-amd64-dbg"
#define BPFTOOL		"/usr/sbin/bpftool"
#define REAL_TIMEOUT	300

struct real_input {
	const char *label;
	const char *path;
	bool required;		/* missing: fail (else skip) */
};

static const struct real_input real_inputs[] = {
	{
		.label = "running kernel",
		.path = "/sys/kernel/btf/vmlinux",
		.required = false,
	},
	{
		.label = "6.12.117 debug vmlinux",
		.path = "/usr/lib/debug/boot/vmlinux-6.12.117+deb12-cloud-amd64",
		.required = true,
	},
};

#define NR_INPUTS (sizeof(real_inputs) / sizeof(real_inputs[0]))
#define NR_ORDERS 2
#define NR_COMBOS (NR_INPUTS * NR_ORDERS)

/* Loop index -> (input, order): 0 sysfs/kind, 1 sysfs/name, 2 debug/kind... */
static const struct real_input *combo_input(int i)
{
	return &real_inputs[i / NR_ORDERS];
}

static enum bc_order combo_order(int i)
{
	return i % NR_ORDERS ? BC_ORDER_NAME : BC_ORDER_KIND;
}

static void log_to_stderr(void *ctx, enum bc_log_level level, const char *msg)
{
	(void)ctx;
	(void)level;
	fprintf(stderr, "real: %s\n", msg);
}

static const struct bc_log real_log = { .fn = log_to_stderr };

/*
 * Reads the BTF of in into raw. Returns false (after a message) when an
 * optional input is missing; fails the test when a required one is.
 */
static bool load_input(const struct real_input *in, struct blob *raw)
{
	enum bc_file_format format;
	int err;

	raw->data = NULL;
	raw->size = 0;
	if (access(in->path, R_OK)) {
		const char *why = strerror(errno);

		ck_assert_msg(!in->required,
			      "%s: %s is missing (%s); install the package %s "
			      "(apt-get install %s; tools/setup-debian.sh does)",
			      in->label, in->path, why, DEBUG_PKG, DEBUG_PKG);
		fprintf(stderr, "real: SKIP %s: %s not readable (%s): "
			"this kernel exposes no BTF here\n",
			in->label, in->path, why);
		return false;
	}
	err = bc_file_read_btf(in->path, &raw->data, &raw->size, &format,
			       &real_log);
	ck_assert_msg(!err, "%s: bc_file_read_btf(%s) failed: %d (%s)",
		      in->label, in->path, err, strerror(-err));
	ck_assert_msg(format == (in->required ? BC_FILE_ELF : BC_FILE_RAW),
		      "%s: %s read as format %d", in->label, in->path, format);
	return true;
}

/* canon_run() with its statistics and id map kept. */
struct canon_out {
	struct blob raw;
	uint32_t *id_map;
	struct canon_stats stats;
};

static void canon_full(const struct blob *in, enum bc_order order,
		       struct canon_out *out)
{
	struct bc_btf *btf = parse_or_fail(in, NULL);
	struct canon_opts opts = { .order = order };
	struct canon_result res = { 0 };
	int err = canon_run(btf, &opts, &res, &real_log);

	ck_assert_msg(!err, "canon_run (order %s) failed: %d",
		      bc_order_name(order), err);
	out->raw.data = res.raw;
	out->raw.size = res.raw_size;
	out->id_map = res.id_map;
	out->stats = res.stats;
	res.raw = NULL;
	res.id_map = NULL;
	canon_result_deinit(&res);
	bc_btf_free(btf);
}

static void canon_out_free(struct canon_out *out)
{
	blob_free(&out->raw);
	free(out->id_map);
	out->id_map = NULL;
}

/* Fails with the first differing byte when a != b. */
static void assert_same_bytes(const struct blob *a, const struct blob *b,
			      const char *what, const struct real_input *in,
			      enum bc_order order)
{
	size_t off = 0, min = a->size < b->size ? a->size : b->size;

	if (blob_eq(a, b))
		return;
	while (off < min && ((uint8_t *)a->data)[off] == ((uint8_t *)b->data)[off])
		off++;
	ck_abort_msg("%s, order %s: %s: outputs differ: sizes %zu and %zu, "
		     "first difference at byte %zu (type section starts at %zu)",
		     in->label, bc_order_name(order), what, a->size, b->size,
		     off, sizeof(struct btf_header));
}

/* ---- permutation invariance ---- */

static const unsigned int permute_seeds[] = { 1, 42, 0x5eed1234u };

START_TEST(test_permute)
{
	const struct real_input *in = combo_input(_i);
	enum bc_order order = combo_order(_i);
	struct blob raw, ref;
	size_t s;

	if (!load_input(in, &raw))
		return;
	ref = canon_blob(&raw, NULL, order, NULL);
	for (s = 0; s < sizeof(permute_seeds) / sizeof(permute_seeds[0]); s++) {
		struct blob perm = permute_blob(&raw, NULL, permute_seeds[s]);
		struct blob got;
		char what[64];

		ck_assert_msg(!blob_eq(&perm, &raw),
			      "%s: seed %u permuted nothing", in->label,
			      permute_seeds[s]);
		got = canon_blob(&perm, NULL, order, NULL);
		snprintf(what, sizeof(what), "canon(permute(x, %u)) vs canon(x)",
			 permute_seeds[s]);
		assert_same_bytes(&got, &ref, what, in, order);
		blob_free(&got);
		blob_free(&perm);
	}
	blob_free(&ref);
	blob_free(&raw);
}
END_TEST

/* ---- idempotence ---- */

START_TEST(test_idempotent)
{
	const struct real_input *in = combo_input(_i);
	enum bc_order order = combo_order(_i);
	struct canon_out once, twice;
	struct blob raw;
	uint32_t i;

	if (!load_input(in, &raw))
		return;
	canon_full(&raw, order, &once);
	canon_full(&once.raw, order, &twice);
	assert_same_bytes(&twice.raw, &once.raw, "canon(canon(x)) vs canon(x)",
			  in, order);
	/* a canonical blob has nothing left to merge and keeps every id */
	ck_assert_msg(twice.stats.merged == 0,
		      "%s, order %s: second canon merged %u more types",
		      in->label, bc_order_name(order), twice.stats.merged);
	for (i = 0; i < twice.stats.types_in; i++)
		ck_assert_msg(twice.id_map[i] == i + 1,
			      "%s, order %s: second canon moved type %u to %u",
			      in->label, bc_order_name(order), i + 1,
			      twice.id_map[i]);
	canon_out_free(&twice);
	canon_out_free(&once);
	blob_free(&raw);
}
END_TEST

/* ---- files in a private temporary directory ---- */

struct tmp_dir {
	char path[64];
	char file[96];		/* path/out.btf */
};

static void tmp_dir_create(struct tmp_dir *d, const struct blob *raw)
{
	FILE *f;
	size_t put;

	snprintf(d->path, sizeof(d->path), "/tmp/btfcanon-real-XXXXXX");
	ck_assert_msg(mkdtemp(d->path), "mkdtemp: %s", strerror(errno));
	snprintf(d->file, sizeof(d->file), "%s/out.btf", d->path);
	f = fopen(d->file, "wb");
	ck_assert_msg(f, "%s: %s", d->file, strerror(errno));
	put = fwrite(raw->data, 1, raw->size, f);
	ck_assert_msg(!fclose(f) && put == raw->size, "%s: write failed",
		      d->file);
}

/* Removes the file and the directory; safe before any assertion. */
static void tmp_dir_remove(struct tmp_dir *d)
{
	unlink(d->file);
	rmdir(d->path);
}

/* ---- libbpf ---- */

START_TEST(test_libbpf)
{
	const struct real_input *in = combo_input(_i);
	enum bc_order order = combo_order(_i);
	const char *on = bc_order_name(order);
	struct canon_out out;
	struct tmp_dir dir;
	struct btf *btf, *parsed;
	const void *bytes;
	struct blob raw;
	__u32 size;
	long err;
	int id;

	if (!load_input(in, &raw))
		return;
	canon_full(&raw, order, &out);

	btf = btf__new(out.raw.data, out.raw.size);
	err = libbpf_get_error(btf);
	ck_assert_msg(!err, "%s, order %s: btf__new rejected the output: %ld",
		      in->label, on, err);
	ck_assert_msg(btf__type_cnt(btf) - 1 == out.stats.types_out,
		      "%s, order %s: libbpf sees %u types, canon reported %u",
		      in->label, on, btf__type_cnt(btf) - 1,
		      out.stats.types_out);
	/* libbpf rewrites nothing: the layout is the standard one */
	bytes = btf__raw_data(btf, &size);
	ck_assert_ptr_nonnull(bytes);
	ck_assert_msg(size == out.raw.size && !memcmp(bytes, out.raw.data, size),
		      "%s, order %s: libbpf's raw data differs from canon's",
		      in->label, on);
	id = btf__find_by_name_kind(btf, "task_struct", BTF_KIND_STRUCT);
	ck_assert_msg(id > 0, "%s, order %s: no struct task_struct: %d",
		      in->label, on, id);
	btf__free(btf);

	tmp_dir_create(&dir, &out.raw);
	parsed = btf__parse(dir.file, NULL);
	err = libbpf_get_error(parsed);
	tmp_dir_remove(&dir);
	ck_assert_msg(!err, "%s, order %s: btf__parse rejected the file: %ld",
		      in->label, on, err);
	ck_assert_msg(btf__type_cnt(parsed) - 1 == out.stats.types_out,
		      "%s, order %s: btf__parse sees %u types, canon reported %u",
		      in->label, on, btf__type_cnt(parsed) - 1,
		      out.stats.types_out);
	btf__free(parsed);
	canon_out_free(&out);
	blob_free(&raw);
}
END_TEST

/* ---- bpftool ---- */

struct tool_run {
	int status;		/* waitpid status; -1: could not spawn */
	struct blob out;	/* everything on stdout */
	char err_tail[1024];	/* the end of stderr */
};

/* Runs argv with stdout captured and stderr in errfile; fills run. */
static void tool_run(char *const argv[], const char *errfile,
		     struct tool_run *run)
{
	posix_spawn_file_actions_t fa;
	size_t cap = 1 << 20;
	struct blob err;
	int pipefd[2];
	pid_t pid;

	memset(run, 0, sizeof(*run));
	run->status = -1;
	ck_assert(!pipe(pipefd));
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addclose(&fa, pipefd[0]);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDOUT_FILENO);
	posix_spawn_file_actions_addclose(&fa, pipefd[1]);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, errfile,
					 O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (posix_spawn(&pid, argv[0], &fa, NULL, argv, environ)) {
		posix_spawn_file_actions_destroy(&fa);
		close(pipefd[0]);
		close(pipefd[1]);
		return;
	}
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	run->out.data = malloc(cap);
	ck_assert_ptr_nonnull(run->out.data);
	for (;;) {
		ssize_t got;

		if (run->out.size == cap) {
			cap *= 2;
			run->out.data = realloc(run->out.data, cap);
			ck_assert_ptr_nonnull(run->out.data);
		}
		got = read(pipefd[0], (char *)run->out.data + run->out.size,
			   cap - run->out.size);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		run->out.size += got;
	}
	close(pipefd[0]);
	while (waitpid(pid, &run->status, 0) < 0 && errno == EINTR)
		;
	err = read_file(errfile);
	if (err.size) {
		size_t n = err.size < sizeof(run->err_tail) - 1 ?
			   err.size : sizeof(run->err_tail) - 1;

		memcpy(run->err_tail, (char *)err.data + err.size - n, n);
	}
	blob_free(&err);
	unlink(errfile);
}

static bool tool_ok(const struct tool_run *run)
{
	return run->status != -1 && WIFEXITED(run->status) &&
	       WEXITSTATUS(run->status) == 0;
}

/* Lines of a raw dump that start a type: "[id] KIND ...". */
static uint32_t count_type_lines(const struct blob *text, uint32_t *last_id)
{
	const char *p = text->data, *end = p + text->size;
	uint32_t n = 0;

	*last_id = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);

		if (*p == '[') {
			n++;
			*last_id = strtoul(p + 1, NULL, 10);
		}
		p = nl ? nl + 1 : end;
	}
	return n;
}

START_TEST(test_bpftool)
{
	const struct real_input *in = combo_input(_i);
	enum bc_order order = combo_order(_i);
	const char *on = bc_order_name(order);
	static const char header[] = "#ifndef __VMLINUX_H__\n"
				     "#define __VMLINUX_H__\n";
	struct tool_run c_run, raw_run;
	uint32_t lines, last_id;
	struct canon_out out;
	struct tmp_dir dir;
	char errfile[128];
	struct blob raw;

	ck_assert_msg(!access(BPFTOOL, X_OK),
		      "%s is missing: install the package bpftool "
		      "(tools/setup-debian.sh does; CI installs it)", BPFTOOL);
	if (!load_input(in, &raw))
		return;
	canon_full(&raw, order, &out);
	tmp_dir_create(&dir, &out.raw);
	snprintf(errfile, sizeof(errfile), "%s/stderr", dir.path);
	{
		char *c_argv[] = { BPFTOOL, "btf", "dump", "file", dir.file,
				   "format", "c", NULL };
		char *raw_argv[] = { BPFTOOL, "btf", "dump", "file", dir.file,
				     NULL };

		tool_run(c_argv, errfile, &c_run);
		tool_run(raw_argv, errfile, &raw_run);
	}
	tmp_dir_remove(&dir);

	ck_assert_msg(tool_ok(&c_run),
		      "%s, order %s: bpftool btf dump format c: status 0x%x: %s",
		      in->label, on, c_run.status, c_run.err_tail);
	ck_assert_msg(c_run.out.size >= sizeof(header) - 1 &&
		      !memcmp(c_run.out.data, header, sizeof(header) - 1),
		      "%s, order %s: bpftool's C dump (%zu bytes) lacks the "
		      "vmlinux.h header", in->label, on, c_run.out.size);
	ck_assert_msg(memmem(c_run.out.data, c_run.out.size,
			     "\nstruct task_struct {\n", 22),
		      "%s, order %s: bpftool's C dump lacks struct task_struct",
		      in->label, on);
	ck_assert_msg(tool_ok(&raw_run),
		      "%s, order %s: bpftool btf dump (raw): status 0x%x: %s",
		      in->label, on, raw_run.status, raw_run.err_tail);
	lines = count_type_lines(&raw_run.out, &last_id);
	ck_assert_msg(lines == out.stats.types_out &&
		      last_id == out.stats.types_out,
		      "%s, order %s: bpftool dumped %u types (last [%u]), "
		      "canon reported %u", in->label, on, lines, last_id,
		      out.stats.types_out);
	blob_free(&c_run.out);
	blob_free(&raw_run.out);
	canon_out_free(&out);
	blob_free(&raw);
}
END_TEST

/* ---- the running kernel's BTF verifier ---- */

#define VERIFIER_LOG_SIZE (16u << 20)
#define LOG_TAIL 2048

/* Loads raw again with a log; returns the log's last LOG_TAIL bytes. */
static const char *verifier_log_tail(const struct blob *raw, char *log_buf,
				     int *err)
{
	size_t len;

	*err = kernel_load_btf(raw, log_buf, VERIFIER_LOG_SIZE);
	log_buf[VERIFIER_LOG_SIZE - 1] = '\0';
	len = strlen(log_buf);
	return len > LOG_TAIL ? log_buf + len - LOG_TAIL : log_buf;
}

START_TEST(test_kernel)
{
	const struct real_input *in = combo_input(_i);
	enum bc_order order = combo_order(_i);
	const char *on = bc_order_name(order);
	struct canon_out out;
	int in_err, out_err, log_err;
	struct blob raw;
	char *log_buf;

	if (!load_input(in, &raw))
		return;
	in_err = kernel_load_btf(&raw, NULL, 0);
	if (in_err == -EPERM || in_err == -ENOSYS) {
		fprintf(stderr, "real: SKIP kernel verifier (%s, order %s): "
			"bpf(BPF_BTF_LOAD) not allowed here: %s\n",
			in->label, on, strerror(-in_err));
		blob_free(&raw);
		return;
	}
	canon_full(&raw, order, &out);
	out_err = kernel_load_btf(&out.raw, NULL, 0);
	log_buf = malloc(VERIFIER_LOG_SIZE);
	ck_assert_ptr_nonnull(log_buf);

	if (in_err) {
		/*
		 * The kernel rejects the input itself (older BTF with
		 * something this kernel no longer takes): then the property
		 * "input accepted => output accepted" says nothing, and the
		 * output may be rejected for the same reason.
		 */
		const char *tail = verifier_log_tail(&raw, log_buf, &log_err);

		fprintf(stderr, "real: NOTE %s: the running kernel rejects the "
			"input itself (%s); output (order %s): %s. Input's "
			"verifier log ends:\n%s\n", in->label,
			strerror(-in_err), on,
			out_err ? strerror(-out_err) : "accepted", tail);
	} else if (out_err) {
		const char *tail = verifier_log_tail(&out.raw, log_buf,
						     &log_err);

		ck_abort_msg("%s, order %s: the kernel accepts the input but "
			     "rejects canon's output: %s (with log: %d); "
			     "verifier log ends:\n%s", in->label, on,
			     strerror(-out_err), log_err, tail);
	}
	free(log_buf);
	canon_out_free(&out);
	blob_free(&raw);
}
END_TEST

/* ---- --order=name sortedness ---- */

START_TEST(test_name_sorted)
{
	const struct real_input *in = &real_inputs[_i];
	struct bc_btf *btf;
	struct blob raw, out;
	uint32_t i, anon = 0;

	if (!load_input(in, &raw))
		return;
	out = canon_blob(&raw, NULL, BC_ORDER_NAME, NULL);
	btf = parse_or_fail(&out, NULL);
	for (i = 0; i < btf->nr_types; i++) {
		const char *name = bc_btf_str(btf, bc_btf_local(btf, i)->name_off);

		if (!*name)
			anon++;
		if (i + 1 < btf->nr_types) {
			const char *next = bc_btf_str(btf,
					bc_btf_local(btf, i + 1)->name_off);

			ck_assert_msg(strcmp(name, next) <= 0,
				      "%s, order name: [%u] '%s' before [%u] '%s'",
				      in->label, btf->start_id + i, name,
				      btf->start_id + i + 1, next);
		}
	}
	/* anonymous types are exactly the first anon ones */
	for (i = 0; i < btf->nr_types; i++)
		ck_assert_msg(!*bc_btf_str(btf, bc_btf_local(btf, i)->name_off)
			      == (i < anon),
			      "%s, order name: [%u] breaks the anonymous prefix "
			      "of %u types", in->label, btf->start_id + i, anon);
	bc_btf_free(btf);
	blob_free(&out);
	blob_free(&raw);
}
END_TEST

/* ---- content sanity ---- */

/* May input type t (kind from) be represented by out type u (kind to)? */
static bool kind_may_map(const struct btf_type *t, const struct btf_type *u)
{
	uint32_t from = bc_type_kind(t), to = bc_type_kind(u);

	if (from == to)
		return true;
	/* a resolved forward declaration: FWD or an enumerator-less ENUM */
	if (from == BTF_KIND_FWD)
		return to == (bc_info_kflag(t->info) ? BTF_KIND_UNION :
						       BTF_KIND_STRUCT);
	return (from == BTF_KIND_ENUM || from == BTF_KIND_ENUM64) &&
	       !bc_type_vlen(t) &&
	       (to == BTF_KIND_ENUM || to == BTF_KIND_ENUM64);
}

/*
 * Checks canon's output for raw against the input: counts, the reported
 * merges, and the id map. Every input type maps to an output type of the
 * same name and kind (or, for a resolved forward declaration, the full
 * type); every output type is the image of an input type of its own kind.
 * An input type counts as a merge when its output type already has an
 * earlier preimage, or has another kind (a resolved FWD). Fills merges[]
 * (per input kind) and in_count[]; hands canon's output to keep, when not
 * NULL.
 */
static void check_content(const struct blob *raw, enum bc_order order,
			  const char *label, uint32_t merges[BC_NR_KINDS],
			  uint32_t in_count[BC_NR_KINDS],
			  struct canon_out *keep)
{
	const char *on = bc_order_name(order);
	uint32_t out_count[BC_NR_KINDS] = { 0 }, total_merges = 0, i, k;
	struct bc_btf *src, *dst;
	struct canon_out out;
	uint8_t *seen;

	memset(merges, 0, BC_NR_KINDS * sizeof(*merges));
	memset(in_count, 0, BC_NR_KINDS * sizeof(*in_count));
	canon_full(raw, order, &out);
	src = parse_or_fail(raw, NULL);
	dst = parse_or_fail(&out.raw, NULL);

	ck_assert_msg(out.stats.types_in == src->nr_types,
		      "%s, order %s: canon reports %u types in, input has %u",
		      label, on, out.stats.types_in, src->nr_types);
	ck_assert_msg(out.stats.types_out == dst->nr_types,
		      "%s, order %s: canon reports %u types out, output has %u",
		      label, on, out.stats.types_out, dst->nr_types);
	ck_assert_msg(dst->nr_types <= src->nr_types,
		      "%s, order %s: %u types out > %u in", label, on,
		      dst->nr_types, src->nr_types);
	ck_assert_msg(out.stats.merged == src->nr_types - dst->nr_types,
		      "%s, order %s: canon reports %u merged, %u in - %u out",
		      label, on, out.stats.merged, src->nr_types,
		      dst->nr_types);

	seen = calloc(dst->nr_types + 1, 1);
	ck_assert_ptr_nonnull(seen);
	for (i = 0; i < src->nr_types; i++) {
		const struct btf_type *t = bc_btf_local(src, i);
		uint32_t to = out.id_map[i];
		const struct btf_type *u;

		in_count[bc_type_kind(t)]++;
		ck_assert_msg(to >= 1 && to <= dst->nr_types,
			      "%s, order %s: type [%u] maps to [%u] of %u",
			      label, on, i + 1, to, dst->nr_types);
		u = bc_btf_type(dst, to);
		ck_assert_msg(!strcmp(bc_btf_str(src, t->name_off),
				      bc_btf_str(dst, u->name_off)),
			      "%s, order %s: [%u] '%s' maps to [%u] '%s'",
			      label, on, i + 1, bc_btf_str(src, t->name_off),
			      to, bc_btf_str(dst, u->name_off));
		ck_assert_msg(kind_may_map(t, u),
			      "%s, order %s: [%u] %s '%s' maps to [%u] %s",
			      label, on, i + 1, bc_kind_name(bc_type_kind(t)),
			      bc_btf_str(src, t->name_off), to,
			      bc_kind_name(bc_type_kind(u)));
		if (bc_type_kind(t) != bc_type_kind(u) || seen[to])
			merges[bc_type_kind(t)]++;
		else
			seen[to] = 1;
	}
	for (i = 1; i <= dst->nr_types; i++) {
		out_count[bc_type_kind(bc_btf_type(dst, i))]++;
		ck_assert_msg(seen[i], "%s, order %s: output [%u] %s has no "
			      "input type of its kind", label, on, i,
			      bc_kind_name(bc_type_kind(bc_btf_type(dst, i))));
	}
	free(seen);

	for (k = 0; k < BC_NR_KINDS; k++) {
		ck_assert_msg(out_count[k] == in_count[k] - merges[k],
			      "%s, order %s: %s: %u out != %u in - %u merged",
			      label, on, bc_kind_name(k), out_count[k],
			      in_count[k], merges[k]);
		total_merges += merges[k];
	}
	ck_assert_msg(total_merges == out.stats.merged,
		      "%s, order %s: merges by kind add up to %u, canon "
		      "reports %u", label, on, total_merges, out.stats.merged);
	bc_btf_free(dst);
	bc_btf_free(src);
	if (keep)
		*keep = out;
	else
		canon_out_free(&out);
}

START_TEST(test_content)
{
	const struct real_input *in = combo_input(_i);
	enum bc_order order = combo_order(_i);
	uint32_t merges[BC_NR_KINDS], in_count[BC_NR_KINDS], k, total = 0;
	struct blob raw;

	if (!load_input(in, &raw))
		return;
	check_content(&raw, order, in->label, merges, in_count, NULL);
	for (k = 0; k < BC_NR_KINDS; k++)
		total += merges[k];
	if (total) {
		fprintf(stderr, "real: %s, order %s: %u types merged; by kind:",
			in->label, bc_order_name(order), total);
		for (k = 0; k < BC_NR_KINDS; k++)
			if (merges[k])
				fprintf(stderr, " %s %u", bc_kind_name(k),
					merges[k]);
		fprintf(stderr, "\n");
	}
	blob_free(&raw);
}
END_TEST

/* ---- a doubled input: every type twice ---- */

/*
 * x's types followed by a second copy of them (ids shifted by n, strings
 * shared): every type of the copy is structurally its original's twin, so
 * canon must merge exactly n types and give canon(x) byte for byte.
 */
static struct blob double_blob(const struct blob *raw)
{
	struct bc_btf *btf = parse_or_fail(raw, NULL);
	const struct btf_header *hdr = btf->hdr;
	uint32_t n = btf->nr_types, i, j, copy;
	struct btf_header *out_hdr;
	struct blob out;
	uint8_t *p;

	out.size = sizeof(*hdr) + 2 * (size_t)hdr->type_len + hdr->str_len;
	out.data = malloc(out.size);
	ck_assert_ptr_nonnull(out.data);
	out_hdr = out.data;
	memcpy(out_hdr, hdr, sizeof(*hdr));
	out_hdr->hdr_len = sizeof(*hdr);
	out_hdr->type_off = 0;
	out_hdr->type_len = 2 * hdr->type_len;
	out_hdr->str_off = out_hdr->type_len;
	p = (uint8_t *)out.data + sizeof(*hdr);
	for (copy = 0; copy < 2; copy++) {
		for (i = 0; i < n; i++) {
			const struct btf_type *t = bc_btf_local(btf, i);
			uint32_t words = bc_type_words(t), kind = bc_type_kind(t);
			uint32_t *w = (uint32_t *)p;

			memcpy(w, t, words * 4);
			for (j = 0; copy && j < words; j++)
				if (bc_word_class(kind, j) == BC_WORD_REF && w[j])
					w[j] += n;
			p += words * 4;
		}
	}
	memcpy(p, btf->strs, btf->str_len);
	bc_btf_free(btf);
	return out;
}

START_TEST(test_doubled)
{
	const struct real_input *in = combo_input(_i);
	enum bc_order order = combo_order(_i);
	const char *on = bc_order_name(order);
	uint32_t merges[BC_NR_KINDS], in_count[BC_NR_KINDS], i, k;
	uint32_t single_count[BC_NR_KINDS] = { 0 };
	struct canon_out once, twin;
	struct blob raw, doubled;
	struct bc_btf *btf;

	if (!load_input(in, &raw))
		return;
	canon_full(&raw, order, &once);
	btf = parse_or_fail(&raw, NULL);
	for (i = 0; i < btf->nr_types; i++)
		single_count[bc_type_kind(bc_btf_local(btf, i))]++;
	bc_btf_free(btf);
	doubled = double_blob(&raw);
	check_content(&doubled, order, "doubled input", merges, in_count,
		      &twin);
	assert_same_bytes(&twin.raw, &once.raw, "canon(x twice) vs canon(x)",
			  in, order);
	/* the same output: every kind lost exactly its second copy */
	ck_assert_msg(twin.stats.merged == once.stats.merged +
					   once.stats.types_in,
		      "%s, order %s: doubled input: %u merged; single: %u in, "
		      "%u merged", in->label, on, twin.stats.merged,
		      once.stats.types_in, once.stats.merged);
	for (k = 0; k < BC_NR_KINDS; k++)
		ck_assert_msg(in_count[k] == 2 * single_count[k] &&
			      merges[k] >= single_count[k],
			      "%s, order %s: doubled input: %s: %u in, %u "
			      "merged; single input has %u", in->label, on,
			      bc_kind_name(k), in_count[k], merges[k],
			      single_count[k]);
	canon_out_free(&twin);
	canon_out_free(&once);
	blob_free(&doubled);
	blob_free(&raw);
}
END_TEST

static TCase *real_tcase(const char *name, const TTest *test, int loops)
{
	TCase *tc = tcase_create(name);

	tcase_set_timeout(tc, REAL_TIMEOUT);
	tcase_add_loop_test(tc, test, 0, loops);
	return tc;
}

Suite *real_suite(void)
{
	Suite *s = suite_create("real");

	suite_add_tcase(s, real_tcase("permute", test_permute, NR_COMBOS));
	suite_add_tcase(s, real_tcase("idempotent", test_idempotent, NR_COMBOS));
	suite_add_tcase(s, real_tcase("libbpf", test_libbpf, NR_COMBOS));
	suite_add_tcase(s, real_tcase("bpftool", test_bpftool, NR_COMBOS));
	suite_add_tcase(s, real_tcase("kernel", test_kernel, NR_COMBOS));
	suite_add_tcase(s, real_tcase("name_sorted", test_name_sorted,
				      NR_INPUTS));
	suite_add_tcase(s, real_tcase("content", test_content, NR_COMBOS));
	suite_add_tcase(s, real_tcase("doubled", test_doubled, NR_COMBOS));
	return s;
}
