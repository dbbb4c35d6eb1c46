// SPDX-License-Identifier: GPL-2.0-only
/*
 * Adding inputs to an archive: any BTF input read through btf_file.h
 * (raw BTF, ELF .BTF, kernel images, ARCHIVE:NAME) or its DWARF encoded
 * through input.h, sorted by canon, then handed to
 * bc_archive_add_sorted(); a kernel package, a modules tree or a
 * directory of BTF read through kernel_set.h, the kernel sorted and each
 * module moved onto the sorted kernel and sorted there, then handed to
 * bc_archive_add_sorted() and bc_archive_add_modules(). This file sits
 * above the archive object: the archive's reading core never calls back
 * up into the readers of inputs.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../canon/canon.h"
#include "../canon/par.h"
#include "input.h"
#include "btf_file.h"
#include "add_input.h"
#include "internal.h"
#include "kernel_set.h"
#include "kimage.h"
#include "package.h"

/* A kernel sorted with its modules, ready for the archive. */
struct sorted_kernel {
	void *raw;			/* the kernel's sorted bytes */
	size_t size;
	bool has_modules;		/* read from a form that holds them */
	struct bc_archive_module_in *mods;	/* names and bytes malloc'd */
	uint32_t nr_mods;
};

static void sorted_kernel_deinit(struct sorted_kernel *sk)
{
	uint32_t i;

	for (i = 0; i < sk->nr_mods; i++) {
		free((char *)sk->mods[i].name);
		free((void *)sk->mods[i].sorted);
	}
	free(sk->mods);
	free(sk->raw);
	memset(sk, 0, sizeof(*sk));
}

/*
 * The bytes `btfcanon sort` writes for path: its BTF through the common
 * readers, or its DWARF encoded when it is ELF without .BTF.
 */
static int sorted_bytes(const char *path, void **raw, size_t *size,
			const struct bc_log *log)
{
	struct canon_opts copts = { .order = BC_ORDER_KIND };
	struct bc_btf *btf = NULL;
	enum bc_file_format format = BC_FILE_RAW;
	struct bc_input in = { 0 };
	struct bc_input_opts iopts = { .canonicalize = false };
	int err;

	err = bc_file_load_btf(path, NULL, &btf, &format, NULL);
	if (err == -ENOENT && format == BC_FILE_ELF) {
		err = bc_input_load(path, &iopts, &in, log);
		if (err)
			return err;
		btf = in.btf;
		in.btf = NULL;
		bc_input_deinit(&in);
	} else if (err) {
		/* again, for the message */
		return bc_file_load_btf(path, NULL, &btf, &format, log);
	}
	if (btf->base) {
		bc_btf_free(btf);
		return bc_log_error(log, -EOPNOTSUPP,
				    "%s: split BTF cannot go into an archive",
				    path);
	}
	copts.layout = btf->layout;
	copts.nr_layout = btf->nr_layout;
	err = canon_run_raw(btf, &copts, raw, size, log);
	bc_btf_free(btf);
	return err;
}

/* ---- a kernel with its modules (archive/kernel_set.h) ------------------ */

/* Whether path holds modules: a directory, or a kernel package. */
static bool holds_modules(const char *path)
{
	uint8_t head[BC_KIMAGE_PROBE_LEN];
	struct stat st;
	ssize_t got = 0;
	int fd;

	if (stat(path, &st))
		return false;
	if (S_ISDIR(st.st_mode))
		return true;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	got = pread(fd, head, sizeof(head), 0);
	close(fd);
	return got > 0 && bc_package_detect(head, (size_t)got);
}

/*
 * Module mod (split BTF over old_base) moved over new_base, the same
 * types sorted by canon (id_map: old_base's local index -> new id): base
 * references through id_map, the module's own ids shifted to follow
 * new_base, every name copied into the module's own strings (canon's
 * rebuild gives a name the base holds the base's offset again). The
 * split BTF bytes into *raw (malloc'd).
 */
static int rebase_module(const struct bc_btf *mod, const struct bc_btf *old_base,
			 const uint32_t *id_map, const struct bc_btf *new_base,
			 void **raw, size_t *size)
{
	const size_t hdr_len = sizeof(struct btf_header);
	uint32_t str_base = bc_btf_str_end(new_base), i, j;
	size_t type_len = 0;
	struct ar_buf types = { 0 }, strs = { 0 };
	struct btf_header hdr = { .magic = 0xeB9F, .version = 1,
				  .hdr_len = sizeof(hdr) };
	int err = 0;

	*raw = NULL;
	for (i = 0; i < mod->nr_types; i++)
		type_len += bc_type_words(bc_btf_local(mod, i)) * 4ull;
	err = ar_buf_reserve(&types, type_len + hdr_len);
	err = err ? err : ar_buf_put(&types, &hdr, hdr_len);
	for (i = 0; i < mod->nr_types && !err; i++) {
		const struct btf_type *t = bc_btf_local(mod, i);
		uint32_t kind = bc_type_kind(t), words = bc_type_words(t);
		const uint32_t *w = (const uint32_t *)t;

		for (j = 0; j < words && !err; j++) {
			uint32_t v = w[j];

			switch (bc_word_class(kind, j)) {
			case BC_WORD_REF:
				if (v && v < mod->start_id)
					v = v - 1 < old_base->nr_types ? id_map[v - 1] : 0;
				else if (v)
					v = v - mod->start_id + new_base->nr_types + 1;
				break;
			case BC_WORD_NAME:
				if (v) {
					const char *name = bc_btf_str(mod, v);

					v = str_base + (uint32_t)strs.len;
					err = ar_buf_put(&strs, name, strlen(name) + 1);
				}
				break;
			default:
				break;
			}
			err = err ? err : ar_buf_put(&types, &v, 4);
		}
	}
	if (!err) {
		hdr.type_len = (uint32_t)type_len;
		hdr.str_off = (uint32_t)type_len;
		hdr.str_len = (uint32_t)strs.len;
		memcpy(types.data, &hdr, hdr_len);
		err = ar_buf_put(&types, strs.data, strs.len);
	}
	free(strs.data);
	if (err) {
		free(types.data);
		return err;
	}
	*raw = types.data;
	*size = types.len;
	return 0;
}

struct module_sort {
	struct bc_kernel_set *ks;
	const uint32_t *id_map;
	const struct bc_btf *base;	/* the kernel sorted */
	struct bc_archive_module_in *out;	/* [ks->nr_mods] */
	char (*msg)[256];		/* [ks->nr_mods] held messages */
};

static void hold_message(void *ctx, enum bc_log_level level, const char *msg)
{
	char *buf = ctx;

	if (level == BC_LOG_ERROR && !buf[0])
		snprintf(buf, 256, "%s", msg);
}

/* Task i: module i sorted over the sorted kernel, or its message held. */
static int sort_module(void *arg, uint32_t i)
{
	struct module_sort *ms = arg;
	struct bc_kmod *km = &ms->ks->mods[i];
	struct bc_log hold = { .fn = hold_message, .ctx = ms->msg[i] };
	struct canon_opts copts = { .order = BC_ORDER_KIND };
	struct bc_btf *btf = NULL;
	void *moved = NULL, *raw = NULL;
	size_t moved_size = 0, size = 0;
	int err;

	err = rebase_module(km->btf, ms->ks->input.btf, ms->id_map, ms->base,
			    &moved, &moved_size);
	err = err ? err : bc_btf_parse(moved, moved_size, ms->base, km->origin,
				       &hold, &btf);
	free(moved);
	if (!err) {
		copts.layout = km->btf->layout;
		copts.nr_layout = km->btf->nr_layout;
		err = canon_run_raw(btf, &copts, &raw, &size, &hold);
	}
	bc_btf_free(btf);
	if (err == -ENOMEM)
		return err;
	if (err) {
		if (!ms->msg[i][0])
			snprintf(ms->msg[i], 256, "%s: cannot be sorted", km->origin);
		return 0;
	}
	ms->out[i].sorted = raw;
	ms->out[i].size = size;
	return 0;
}

/*
 * The kernel and modules path holds, sorted: the kernel as `sort` sorts
 * it, each module as `sort --base` sorts it over the sorted kernel. A
 * module that cannot be read or sorted is left out with a warning naming
 * it; the others are kept.
 */
static int sorted_set(const char *path, unsigned int jobs,
		      struct sorted_kernel *sk, const struct bc_log *log)
{
	struct bc_kernel_set_opts kopts = { .jobs = jobs };
	struct canon_opts copts = { .order = BC_ORDER_KIND };
	struct canon_result res = { 0 };
	struct module_sort ms = { 0 };
	struct bc_kernel_set ks;
	struct bc_btf *base = NULL;
	uint32_t i;
	int err;

	memset(sk, 0, sizeof(*sk));
	err = bc_kernel_set_read(path, &kopts, &ks, log);
	if (err)
		return err;
	sk->has_modules = ks.has_modules;
	copts.layout = ks.input.btf->layout;
	copts.nr_layout = ks.input.btf->nr_layout;
	if (ks.input.btf->base) {
		err = bc_log_error(log, -EOPNOTSUPP,
				   "%s: split BTF cannot go into an archive as a kernel",
				   path);
		goto out;
	}
	err = canon_run(ks.input.btf, &copts, &res, log);
	err = err ? err : bc_btf_parse(res.raw, res.raw_size, NULL, path, log, &base);
	if (err || !ks.nr_mods)
		goto out;
	ms.ks = &ks;
	ms.id_map = res.id_map;
	ms.base = base;
	ms.out = calloc(ks.nr_mods, sizeof(*ms.out));
	ms.msg = calloc(ks.nr_mods, sizeof(*ms.msg));
	if (!ms.out || !ms.msg) {
		err = bc_log_error(log, -ENOMEM, "%s: out of memory", path);
		goto out;
	}
	err = bc_par_for(jobs ? jobs : 1, ks.nr_mods, sort_module, &ms, NULL);
	if (err) {
		err = bc_log_error(log, err, "%s: out of memory", path);
		goto out;
	}
	sk->mods = calloc(ks.nr_mods, sizeof(*sk->mods));
	if (!sk->mods) {
		err = bc_log_error(log, -ENOMEM, "%s: out of memory", path);
		goto out;
	}
	for (i = 0; i < ks.nr_mods; i++) {
		if (!ms.out[i].sorted) {
			bc_log_printf(log, BC_LOG_WARN, "%s; module %s left out",
				      ms.msg[i], ks.mods[i].name);
			continue;
		}
		sk->mods[sk->nr_mods].name = ks.mods[i].name;
		ks.mods[i].name = NULL;	/* taken */
		sk->mods[sk->nr_mods].sorted = ms.out[i].sorted;
		sk->mods[sk->nr_mods++].size = ms.out[i].size;
		ms.out[i].sorted = NULL;
	}
out:
	if (!err) {
		sk->raw = res.raw;
		sk->size = res.raw_size;
		res.raw = NULL;
	}
	for (i = 0; ms.out && i < ks.nr_mods; i++)
		free((void *)ms.out[i].sorted);
	free(ms.out);
	free(ms.msg);
	bc_btf_free(base);
	canon_result_deinit(&res);
	bc_kernel_set_deinit(&ks);
	if (err)
		sorted_kernel_deinit(sk);
	return err;
}

/*
 * What path holds, sorted: a directory or a package through the kernel
 * set (the kernel and its modules), anything else as `sort` reads it.
 */
static int sorted_input(const char *path, unsigned int jobs,
			struct sorted_kernel *sk, const struct bc_log *log)
{
	memset(sk, 0, sizeof(*sk));
	if (holds_modules(path))
		return sorted_set(path, jobs, sk, log);
	return sorted_bytes(path, &sk->raw, &sk->size, log);
}

/*
 * Adds sk under name: the kernel and its modules; or, where the archive
 * holds a kernel of that name without modules and sk has some, its
 * modules to that kernel. -EEXIST (after a message) for a kernel there
 * already in any other case.
 */
static int add_sorted_kernel(struct bc_archive *ar, const char *name,
			     const char *path, struct sorted_kernel *sk,
			     const struct bc_log *log)
{
	int k = bc_archive_find_kernel(ar, name);
	uint32_t added = 0;
	int err = 0;

	if (k >= 0 && (!sk->nr_mods || bc_archive_nr_modules(ar, (uint32_t)k)))
		return bc_log_error(log, -EEXIST,
			"%s: already holds a kernel '%s' (from %s; --name gives another)",
			ar->path, name, path);
	if (k < 0) {
		err = bc_archive_add_sorted(ar, name, sk->raw, sk->size, log);
		k = err ? err : bc_archive_find_kernel(ar, name);
	} else {
		/* the kernel must be the one stored */
		void *have = NULL;
		size_t have_size = 0;

		err = bc_archive_kernel_raw(ar, (uint32_t)k, &have, &have_size, log);
		if (!err && (have_size != sk->size || memcmp(have, sk->raw, have_size)))
			err = bc_log_error(log, -EEXIST,
				"%s: already holds a kernel '%s', not the one in %s (--name gives another)",
				ar->path, name, path);
		free(have);
	}
	if (!err && sk->nr_mods)
		err = bc_archive_add_modules(ar, (uint32_t)k, sk->mods, sk->nr_mods,
					     &added, log);
	return err;
}

int bc_archive_add_file(struct bc_archive *ar, const char *path,
			const char *name, const struct bc_log *log)
{
	struct sorted_kernel sk;
	char *dflt = NULL;
	int err;

	if (!name) {
		err = bc_archive_input_name(path, &dflt, log);
		if (err)
			return err;
		name = dflt;
	}
	err = sorted_input(path, 1, &sk, log);
	if (!err)
		err = add_sorted_kernel(ar, name, path, &sk, log);
	sorted_kernel_deinit(&sk);
	free(dflt);
	return err;
}

/*
 * Several inputs: reading and sorting them (most of the time: a kernel
 * image's decompression, canon) runs on worker threads, each input
 * independently; the main thread adds the sorted kernels in input order.
 * The file does not depend on that order anyway, but the first error
 * reported does, so it is the first input's that fails. Workers stay at
 * most `window` inputs ahead of the main thread, so few sorted kernels
 * wait in memory at once: 4 per worker (about 5 MB each for Debian's
 * kernels). Inputs take from 0.3 s (a zstd bzImage) to 1.2 s (an xz one),
 * and a worker that has run a window ahead of one slow input waits for
 * it: with one per worker (and one more), the two workers of -j2 stood
 * idle 3.5% of the time over 40 of Debian's packages.
 */
struct add_job {
	const char *path;
	const char *name;	/* as given, or dflt */
	char *dflt;
	struct sorted_kernel sk;
	int err;
	bool done;
};

struct add_queue {
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct add_job *jobs;
	uint32_t nr, next, consumed, window;
	unsigned int mod_jobs;	/* threads for one input's modules */
	bool stop;
	const struct bc_log *log;
};

static void *add_worker(void *arg)
{
	struct add_queue *q = arg;

	pthread_mutex_lock(&q->lock);
	for (;;) {
		struct add_job *job;
		uint32_t i;

		while (!q->stop && q->next < q->nr &&
		       q->next >= q->consumed + q->window)
			pthread_cond_wait(&q->changed, &q->lock);
		if (q->stop || q->next >= q->nr)
			break;
		i = q->next++;
		job = &q->jobs[i];
		pthread_mutex_unlock(&q->lock);
		job->err = 0;
		if (!job->name) {
			/* a package is named by its kernel member: read it */
			job->err = bc_archive_input_name(job->path, &job->dflt,
							 q->log);
			job->name = job->dflt;
		}
		if (!job->err)
			job->err = sorted_input(job->path, q->mod_jobs, &job->sk,
						q->log);
		pthread_mutex_lock(&q->lock);
		job->done = true;
		pthread_cond_broadcast(&q->changed);
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

int bc_archive_add_files(struct bc_archive *ar, const char *const *paths,
			 const char *const *names, uint32_t nr, uint32_t jobs,
			 const struct bc_log *log)
{
	struct add_queue q = { .nr = nr, .window = 4 * jobs + 1, .log = log };

	/* fewer inputs than threads: the rest go to each input's modules */
	q.mod_jobs = nr && nr < jobs ? (jobs + nr - 1) / nr : 1;
	pthread_t *threads = NULL;
	uint32_t i, started = 0;
	int err = 0;

	q.jobs = calloc(nr + 1, sizeof(*q.jobs));
	threads = calloc(jobs + 1, sizeof(*threads));
	if (!q.jobs || !threads) {
		err = bc_log_error(log, -ENOMEM, "%s: out of memory", ar->path);
		goto out;
	}
	for (i = 0; i < nr && !err; i++) {
		q.jobs[i].path = paths[i];
		q.jobs[i].name = names ? names[i] : NULL;
		if (q.jobs[i].name && bc_archive_find_kernel(ar, q.jobs[i].name) >= 0 &&
		    !holds_modules(paths[i]))
			err = bc_log_error(log, -EEXIST,
				"%s: already holds a kernel '%s' (from %s; --name gives another)",
				ar->path, q.jobs[i].name, paths[i]);
	}
	if (err)
		goto out;
	pthread_mutex_init(&q.lock, NULL);
	pthread_cond_init(&q.changed, NULL);
	for (started = 0; started < (jobs ? jobs : 1); started++)
		if (pthread_create(&threads[started], NULL, add_worker, &q))
			break;
	if (!started) {
		/* no thread: the main thread reads them itself */
		q.window = nr + 1;
		add_worker(&q);
	}
	for (i = 0; i < nr; i++) {
		struct add_job *job = &q.jobs[i];

		pthread_mutex_lock(&q.lock);
		while (!job->done)
			pthread_cond_wait(&q.changed, &q.lock);
		pthread_mutex_unlock(&q.lock);
		if (!err)
			err = job->err;
		if (!err)
			err = add_sorted_kernel(ar, job->name, job->path,
						&job->sk, log);
		sorted_kernel_deinit(&job->sk);
		pthread_mutex_lock(&q.lock);
		q.consumed = i + 1;
		if (err)
			q.stop = true;
		pthread_cond_broadcast(&q.changed);
		pthread_mutex_unlock(&q.lock);
		if (err)
			break;
	}
	pthread_mutex_lock(&q.lock);
	q.stop = true;
	pthread_cond_broadcast(&q.changed);
	pthread_mutex_unlock(&q.lock);
	while (started)
		pthread_join(threads[--started], NULL);
	pthread_cond_destroy(&q.changed);
	pthread_mutex_destroy(&q.lock);
out:
	for (i = 0; q.jobs && i < nr; i++) {
		sorted_kernel_deinit(&q.jobs[i].sk);
		free(q.jobs[i].dflt);
	}
	free(q.jobs);
	free(threads);
	return err;
}
