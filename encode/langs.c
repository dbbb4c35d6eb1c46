// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "langs.h"

/*
 * pahole's names for the DWARF language codes (dwarves.c), the codes from
 * the DWARF 5 standard (dwarf.h may lack the newest): "asm" is
 * DW_LANG_Mips_Assembler, as in pahole.
 */
static const struct { const char *name; int id; } languages[] = {
	{ "c89", 0x01 }, { "c", 0x02 }, { "ada83", 0x03 }, { "c++", 0x04 },
	{ "cobol74", 0x05 }, { "cobol85", 0x06 }, { "fortran77", 0x07 },
	{ "fortran90", 0x08 }, { "pascal83", 0x09 }, { "modula2", 0x0a },
	{ "java", 0x0b }, { "c99", 0x0c }, { "ada95", 0x0d },
	{ "fortran95", 0x0e }, { "pli", 0x0f }, { "objc", 0x10 },
	{ "objc++", 0x11 }, { "upc", 0x12 }, { "d", 0x13 }, { "python", 0x14 },
	{ "opencl", 0x15 }, { "go", 0x16 }, { "modula3", 0x17 },
	{ "haskell", 0x18 }, { "c++03", 0x19 }, { "c++11", 0x1a },
	{ "ocaml", 0x1b }, { "rust", 0x1c }, { "c11", 0x1d }, { "swift", 0x1e },
	{ "julia", 0x1f }, { "dylan", 0x20 }, { "c++14", 0x21 },
	{ "fortran03", 0x22 }, { "fortran08", 0x23 }, { "renderscript", 0x24 },
	{ "bliss", 0x25 }, { "asm", 0x8001 },
};

static int lang_id(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(languages) / sizeof(languages[0]); i++)
		if (strlen(languages[i].name) == len &&
		    !strncasecmp(languages[i].name, name, len))
			return languages[i].id;
	return -1;
}

int encode_langs_parse(struct encode_langs *l, const char *list, bool exclude,
		       const struct bc_log *log)
{
	const char *name = list, *comma;
	size_t len;
	int id;

	memset(l, 0, sizeof(*l));
	l->exclude = exclude;
	for (;;) {
		comma = strchr(name, ',');
		len = comma ? (size_t)(comma - name) : strlen(name);
		id = lang_id(name, len);
		if (id < 0)
			return bc_log_error(log, -EINVAL, "unknown language \"%.*s\"",
					    (int)len, name);
		if (l->nr == ENCODE_LANGS_MAX)
			return bc_log_error(log, -EINVAL,
					    "more than %d languages in \"%s\"",
					    ENCODE_LANGS_MAX, list);
		l->ids[l->nr++] = id;
		if (!comma)
			return 0;
		name = comma + 1;
	}
}

bool encode_langs_skip(const struct encode_langs *l, int lang)
{
	bool listed = false;
	uint32_t i;

	if (!l->nr)
		return false;
	for (i = 0; i < l->nr; i++)
		listed |= l->ids[i] == lang;
	return listed == l->exclude;
}
