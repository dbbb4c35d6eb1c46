/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One encode, from an input file to its output: what `btfcanon encode`
 * and btfcanon-pahole both run, in their own process. They differ only in
 * their command lines and in how they report.
 */
#ifndef BTFCANON_TOOLS_ENCODE_JOB_H
#define BTFCANON_TOOLS_ENCODE_JOB_H

#include <stdbool.h>

#include "../canon/canon.h"
#include "../canon/log.h"
#include "../encode/encoder.h"

struct encode_job {
	const char *input;
	const char *output;		/* NULL: nothing written (--stats alone) */
	bool elf;			/* output: a copy of input with the BTF in .BTF */
	bool stats;			/* counts and times per phase on stderr */
	const char *base;		/* split BTF over this file's BTF */
	/*
	 * With base and raw output: split BTF over a distilled base, that
	 * base written here (as distilled_base does for ELF output: .BTF.base)
	 */
	const char *distilled_out;
	bool none_if_empty;		/* no unit encoded (all filtered): write nothing */
	struct encode_opts encode;
	struct canon_opts canon;
	/* when set, called with the encoder's decisions on functions */
	void (*on_decisions)(void *ctx, const struct func_decisions *decisions);
	void *ctx;
};

/*
 * Encodes job->input and writes the output (atomically: nothing is left
 * on failure). Returns 0, or a negative errno after a message through
 * log.
 */
int encode_job_run(const struct encode_job *job, const struct bc_log *log);

#endif
