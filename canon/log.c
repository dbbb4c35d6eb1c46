// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>

#include "log.h"

static void bc_log_vprintf(const struct bc_log *log, enum bc_log_level level,
			   const char *fmt, va_list ap)
{
	char msg[1024];

	if (!log || !log->fn)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	log->fn(log->ctx, level, msg);
}

void bc_log_printf(const struct bc_log *log, enum bc_log_level level,
		   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	bc_log_vprintf(log, level, fmt, ap);
	va_end(ap);
}

int bc_log_error(const struct bc_log *log, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	bc_log_vprintf(log, BC_LOG_ERROR, fmt, ap);
	va_end(ap);
	return err;
}
