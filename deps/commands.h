/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The `deps` command, called by tools/btfcanon.c with argv starting at the
 * command name. Like the rest of the front end it prints; it returns the
 * process exit status: 0 nothing breaks, 1 an error or wrong data on some
 * kernel, 2 trouble (bad usage, bad input).
 */
#ifndef BTFCANON_DEPS_COMMANDS_H
#define BTFCANON_DEPS_COMMANDS_H

#include "../canon/log.h"

int bc_cmd_deps(int argc, char **argv, const struct bc_log *log);

/* Its usage lines, for btfcanon --help. */
extern const char bc_deps_usage[];

#endif
