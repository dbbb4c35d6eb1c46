/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Which compile units to encode, by their DW_AT_language: pahole's --lang
 * and --lang_exclude (and its PAHOLE_LANG_EXCLUDE), with pahole's names.
 */
#ifndef BTFCANON_LANGS_H
#define BTFCANON_LANGS_H

#include <stdbool.h>
#include <stdint.h>

#include "../canon/log.h"

#define ENCODE_LANGS_MAX 64

struct encode_langs {
	int ids[ENCODE_LANGS_MAX];	/* DW_LANG_* codes */
	uint32_t nr;			/* 0: every unit is encoded */
	bool exclude;			/* skip these; else encode only these */
};

/*
 * Parses a comma-separated list of pahole's language names (c89, c11,
 * c++, rust, asm, ...; any case) into l. Returns 0, or -EINVAL after a
 * message naming the first unknown name.
 */
int encode_langs_parse(struct encode_langs *l, const char *list, bool exclude,
		       const struct bc_log *log);

/* Is a unit of language lang (DW_LANG_*, or -1: none) left out? */
bool encode_langs_skip(const struct encode_langs *l, int lang);

#endif
