/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The `sort` command, called by tools/btfcanon.c with argv starting at
 * "sort". Like the rest of the front end it prints; it returns the process
 * exit status: 0 success, 1 failure or bad input, 2 bad usage. usage
 * prints the front end's usage, for sort -h.
 */
#ifndef BTFCANON_SORT_CMD_SORT_H
#define BTFCANON_SORT_CMD_SORT_H

#include <stdio.h>

#include "../canon/log.h"

int bc_cmd_sort(int argc, char **argv, const struct bc_log *log,
		void (*usage)(FILE *out));

#endif
