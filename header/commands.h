/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The `dump` and `header` commands, called by tools/btfcanon.c with argv
 * starting at the command name. Like the rest of the front end they
 * print; they return the process exit status: 0 success (or fresh, for
 * --check), 1 stale, 2 trouble (bad usage, bad input).
 */
#ifndef BTFCANON_HEADER_COMMANDS_H
#define BTFCANON_HEADER_COMMANDS_H

#include "../canon/log.h"

int bc_cmd_dump(int argc, char **argv, const struct bc_log *log);
int bc_cmd_header(int argc, char **argv, const struct bc_log *log);

/*
 * --check of dump and header: 0 when the file header holds exactly fresh;
 * 1 when not, after "HEADER is stale" and diff -u against what producer
 * (the command line, for the label) writes; 2 when header cannot be read.
 */
struct bc_text;
int bc_check_header(const char *header, const char *producer,
		    const struct bc_text *fresh, const struct bc_log *log);

/* Usage lines of both commands, for btfcanon --help. */
extern const char bc_dump_usage[];
extern const char bc_header_usage[];

#endif
