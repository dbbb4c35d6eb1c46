/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The `archive` command, called by tools/btfcanon.c with argv starting at
 * "archive". It prints, like the other commands; returns the exit status:
 * 0 success, 1 failure or bad input, 2 bad usage.
 */
#ifndef BTFCANON_ARCHIVE_CMD_H
#define BTFCANON_ARCHIVE_CMD_H

#include "../canon/log.h"

int bc_cmd_archive(int argc, char **argv, const struct bc_log *log);

extern const char bc_archive_usage[];

#endif
