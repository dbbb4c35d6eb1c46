// SPDX-License-Identifier: GPL-2.0-only
/*
 * Adding inputs to an archive: any BTF input read through btf_file.h
 * (raw BTF, ELF .BTF, kernel images and packages, ARCHIVE:NAME) or its
 * DWARF encoded through input.h, sorted by canon, then handed to
 * bc_archive_add_sorted(). This file sits above the archive object: the
 * archive's reading core never calls back up into the readers of inputs.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../canon/canon.h"
#include "input.h"
#include "btf_file.h"
#include "add_input.h"
#include "internal.h"

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

int bc_archive_add_file(struct bc_archive *ar, const char *path,
			const char *name, const struct bc_log *log)
{
	char *dflt = NULL;
	void *raw = NULL;
	size_t size = 0;
	int err;

	if (!name) {
		err = bc_archive_input_name(path, &dflt, log);
		if (err)
			return err;
		name = dflt;
	}
	if (bc_archive_find_kernel(ar, name) >= 0) {
		err = bc_log_error(log, -EEXIST,
				   "%s: already holds a kernel '%s' (from %s; --name gives another)",
				   ar->path, name, path);
		goto out;
	}
	err = sorted_bytes(path, &raw, &size, log);
	if (!err)
		err = bc_archive_add_sorted(ar, name, raw, size, log);
out:
	free(raw);
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
	void *raw;
	size_t size;
	int err;
	bool done;
};

struct add_queue {
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct add_job *jobs;
	uint32_t nr, next, consumed, window;
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
			job->err = sorted_bytes(job->path, &job->raw,
						&job->size, q->log);
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
		if (q.jobs[i].name && bc_archive_find_kernel(ar, q.jobs[i].name) >= 0)
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
		if (!err && bc_archive_find_kernel(ar, job->name) >= 0)
			err = bc_log_error(log, -EEXIST,
				"%s: already holds a kernel '%s' (from %s; --name gives another)",
				ar->path, job->name, job->path);
		if (!err)
			err = bc_archive_add_sorted(ar, job->name, job->raw,
						    job->size, log);
		free(job->raw);
		job->raw = NULL;
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
		free(q.jobs[i].raw);
		free(q.jobs[i].dflt);
	}
	free(q.jobs);
	free(threads);
	return err;
}
