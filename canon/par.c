// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "par.h"

struct par_loop {
	bc_par_fn fn;
	void *ctx;
	uint32_t n;
	double *task_sec;
	atomic_uint cursor;		/* next task number */
	atomic_uint failed_at;		/* lowest failing task, or n */
	int *errs;			/* [n]: each task's own result */
};

double bc_clock_sec(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *par_thread(void *arg)
{
	struct par_loop *loop = arg;

	for (;;) {
		uint32_t i = atomic_fetch_add(&loop->cursor, 1);
		uint32_t failed = atomic_load(&loop->failed_at);
		double t0;
		int err;

		if (i >= loop->n || failed < loop->n)
			break;
		t0 = loop->task_sec ? bc_clock_sec(CLOCK_THREAD_CPUTIME_ID) : 0;
		err = loop->fn(loop->ctx, i);
		if (loop->task_sec)
			loop->task_sec[i] = bc_clock_sec(CLOCK_THREAD_CPUTIME_ID) - t0;
		loop->errs[i] = err;
		if (err) {
			/* keep the lowest failing number */
			while (i < failed &&
			       !atomic_compare_exchange_weak(&loop->failed_at,
							     &failed, i))
				;
		}
	}
	return NULL;
}

unsigned int bc_par_cpus(void)
{
	cpu_set_t set;
	int n;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 1;
	n = CPU_COUNT(&set);
	return n > 0 ? (unsigned int)n : 1;
}

int bc_par_for(unsigned int jobs, uint32_t n, bc_par_fn fn, void *ctx,
	       double *task_sec)
{
	struct par_loop loop = { .fn = fn, .ctx = ctx, .n = n,
				 .task_sec = task_sec };
	pthread_t *threads = NULL;
	unsigned int started = 0, t;
	uint32_t i;
	int err = 0;

	if (!n)
		return 0;
	loop.errs = calloc(n, sizeof(*loop.errs));
	if (!loop.errs)
		return -ENOMEM;
	atomic_init(&loop.cursor, 0);
	atomic_init(&loop.failed_at, n);
	if (jobs > n)
		jobs = n;
	if (jobs > bc_par_cpus())
		jobs = bc_par_cpus();
	if (jobs > 1)
		threads = calloc(jobs - 1, sizeof(*threads));
	for (t = 0; threads && t + 1 < jobs; t++)
		if (!pthread_create(&threads[t], NULL, par_thread, &loop))
			started++;
	par_thread(&loop);
	for (t = 0; t < started; t++)
		pthread_join(threads[t], NULL);
	/*
	 * The lowest failing task, looked up again after the join: a task
	 * below it may have failed after another thread's failure stopped
	 * the loop's new starts, and tasks never started report nothing.
	 */
	for (i = 0; i < n && !err; i++)
		err = loop.errs[i];
	free(threads);
	free(loop.errs);
	return err;
}

double bc_par_longest(const double *task_sec, uint32_t n)
{
	double longest = 0;
	uint32_t i;

	for (i = 0; i < n; i++)
		if (task_sec[i] > longest)
			longest = task_sec[i];
	return longest;
}
