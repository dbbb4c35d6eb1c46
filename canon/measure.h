/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Clocks and memory for the commands' --stats lines.
 */
#ifndef BTFCANON_CANON_MEASURE_H
#define BTFCANON_CANON_MEASURE_H

#include <sys/resource.h>
#include <time.h>

static inline double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static inline double cpu_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static inline long peak_rss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

#endif
