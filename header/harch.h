/* SPDX-License-Identifier: GPL-2.0-only */
/* harch.c: one architecture's header text, on a thread of its own (header/, internal). */
#ifndef BTFCANON_HEADER_HARCH_H
#define BTFCANON_HEADER_HARCH_H

#include <stdbool.h>
#include <stdint.h>

#include "../canon/log.h"
#include "../canon/text.h"

struct bc_header_opts;
struct hdr_kernel;

/*
 * The architectures are written on threads of their own (two cores: the
 * time of the larger one). An archive is read by one thread at a time, so
 * each thread but the first reads its kernels through archives of its own,
 * opened again; messages are held and given in architecture order.
 */
struct held_msg {
	enum bc_log_level level;
	char *msg;
};

struct arch_job {
	struct hdr_kernel **kernels;
	uint32_t nr;
	const struct bc_header_opts *opts;
	struct bc_text *text;
	uint32_t readers;		/* threads reading its kernel files */
	struct bc_prefetch_slots *slots; /* files read at once, all jobs */
	bool own_archives;		/* reopen the archives */
	struct held_msg *msgs;
	uint32_t nr_msgs;
	int err;
};

/* pthread start routine: job->text, or job->err and held messages */
void *hdr_run_arch_job(void *arg);

#endif
