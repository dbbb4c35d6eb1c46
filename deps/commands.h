/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The `deps` and `min` commands, called by tools/btfcanon.c with argv starting at the
 * command name. Like the rest of the front end they print; they return the
 * process exit status: 0 nothing breaks (deps) or written (min), 1 an
 * error or wrong data on some kernel (deps), 2 trouble (bad usage, bad
 * input).
 */
#ifndef BTFCANON_DEPS_COMMANDS_H
#define BTFCANON_DEPS_COMMANDS_H

#include "../canon/log.h"

int bc_cmd_deps(int argc, char **argv, const struct bc_log *log);
int bc_cmd_min(int argc, char **argv, const struct bc_log *log);

/* Their usage lines, for btfcanon --help. */
extern const char bc_deps_usage[];
extern const char bc_min_usage[];

#endif
