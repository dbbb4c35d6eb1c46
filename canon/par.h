/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Parallel loops over numbered tasks, for the phases after the encoder's
 * workers and for canon.
 *
 * bc_par_for() runs fn(ctx, i) for every i in [0, n) on up to jobs
 * threads (the calling thread is one of them). Threads take task numbers
 * from one atomic cursor; which thread runs which task changes nothing
 * when, as every caller here arranges, task i writes only its own slots.
 * The result therefore depends on n and on the tasks alone, never on jobs.
 *
 * Each task's thread CPU time can be recorded (task_sec[i]), so a caller
 * can say how long the phase would take on unlimited cores: its longest
 * task (bc_par_longest). That is the phase's share of the critical path
 * that --stats prints; it is measured in CPU time so that it does not
 * depend on -j or on other processes sharing the machine.
 */
#ifndef BTFCANON_PAR_H
#define BTFCANON_PAR_H

#include <stdint.h>
#include <time.h>

/* One task: 0, or a negative errno that stops the loop. */
typedef int (*bc_par_fn)(void *ctx, uint32_t i);

/*
 * The CPUs this process may run on (its affinity mask), at least 1: more
 * threads than that only share them, each with its own caches.
 */
unsigned int bc_par_cpus(void);

/*
 * Runs tasks 0 .. n-1 on up to jobs threads (1: all on the caller's),
 * and never more threads than bc_par_cpus().
 * After a failure no new task starts. Returns 0, or the error of the
 * lowest-numbered task that failed (so the message a caller keeps per
 * task does not depend on the schedule); a thread that cannot be
 * started leaves its share to the others.
 */
int bc_par_for(unsigned int jobs, uint32_t n, bc_par_fn fn, void *ctx,
	       double *task_sec);

/* The largest of task_sec[0 .. n), 0 for none. */
double bc_par_longest(const double *task_sec, uint32_t n);

/*
 * Seconds on clock: CLOCK_MONOTONIC for wall time, CLOCK_THREAD_CPUTIME_ID
 * for the calling thread's CPU (what task_sec records),
 * CLOCK_PROCESS_CPUTIME_ID for the process's. The one clock reader of
 * the library's timings.
 */
double bc_clock_sec(clockid_t clock);

#endif
