/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The `diff` command, called by tools/btfcanon.c with argv starting at
 * the command name, and `archive log`, with argv starting at "log". Like
 * the rest of the front end they print; they return the process exit
 * status: 0 equal, 1 different, 2 trouble (bad usage, bad input).
 */
#ifndef BTFCANON_DIFF_COMMANDS_H
#define BTFCANON_DIFF_COMMANDS_H

#include "../canon/log.h"

int bc_cmd_diff(int argc, char **argv, const struct bc_log *log);
int bc_cmd_archive_log(int argc, char **argv, const struct bc_log *log);

/* Usage lines of diff, for btfcanon --help. */
extern const char bc_diff_usage[];

#endif
