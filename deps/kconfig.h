/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A kernel's configuration (a .config, /boot/config-VERSION) as libbpf
 * reads it for a BPF object's kconfig externs (extern T CONFIG_X
 * __kconfig): every line that starts with CONFIG_ is NAME=VALUE, the
 * first line of a name wins, anything else ("# CONFIG_X is not set",
 * blank lines) is skipped. And libbpf 1.1's rules (taken as facts from
 * its libbpf.c) for giving such a value to an extern of a C type.
 */
#ifndef BTFCANON_KCONFIG_H
#define BTFCANON_KCONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "../canon/btf_data.h"
#include "../canon/log.h"

struct bc_kconfig_entry {
	const char *name;	/* "CONFIG_BPF_SYSCALL" */
	const char *value;	/* "y", "0x10", "\"str\"", as written */
};

/* The entries, sorted by name, one per name. */
struct bc_kconfig {
	struct bc_kconfig_entry *entries;
	size_t nr;
	char *text;		/* owns the strings */
};

/*
 * Parses a config's text (size bytes, copied; need not end in NUL).
 * path names it in messages: a CONFIG_ line with no '=' or no value is
 * an error naming the file and the line, as libbpf refuses it. Returns
 * 0 or a negative errno.
 */
int bc_kconfig_parse(const char *data, size_t size, const char *path,
		     struct bc_kconfig **out, const struct bc_log *log);

/* Reads and parses the file at path. */
int bc_kconfig_load(const char *path, struct bc_kconfig **out,
		    const struct bc_log *log);

void bc_kconfig_free(struct bc_kconfig *kc);

/* The value of name, or NULL when the config does not set it. */
const char *bc_kconfig_get(const struct bc_kconfig *kc, const char *name);

/*
 * Whether libbpf 1.1 accepts value for an extern of type type_id in
 * btf (the VAR's type): 0 yes, else -EINVAL with *why saying what
 * libbpf refuses ("value 'm' implies tristate or char type"). A string
 * longer than the array is accepted, truncated: *why says so and 0 is
 * returned.
 */
int bc_kconfig_check_value(const struct bc_btf *btf, uint32_t type_id,
			   const char *value, char *why, size_t why_size);

#endif
