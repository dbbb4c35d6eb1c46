/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Diagnostics for library code.
 *
 * Library code (canon/, encode/, diff/, archive/) never prints and never exits.
 * A fallible function returns a negative errno and, when it has something to
 * say, says it once through the caller's bc_log. The front end in tools/
 * decides where the text goes. A NULL log, or a log with a NULL callback,
 * drops messages silently.
 */
#ifndef BTFCANON_LOG_H
#define BTFCANON_LOG_H

#include <stdarg.h>

enum bc_log_level {
	BC_LOG_ERROR,
	BC_LOG_WARN,
	BC_LOG_INFO,
	BC_LOG_DEBUG,
};

struct bc_log {
	void (*fn)(void *ctx, enum bc_log_level level, const char *msg);
	void *ctx;
};

/* Formats a message and hands it to log->fn. Returns nothing; never fails. */
void bc_log_printf(const struct bc_log *log, enum bc_log_level level,
		   const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/*
 * Reports an error and returns err, so a caller can write
 *	return bc_log_error(log, -EINVAL, "%s: bad magic 0x%x", path, magic);
 */
int bc_log_error(const struct bc_log *log, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
