/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A growable text buffer for the outputs of diff/: C headers, listings,
 * diff reports. Appending never fails loudly: the first allocation failure
 * is remembered in err and later appends do nothing, so a writer checks
 * once at the end (bc_text_err) instead of after every line.
 */
#ifndef BTFCANON_TEXT_H
#define BTFCANON_TEXT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

struct bc_text {
	char *buf;		/* NUL-terminated when len > 0 */
	size_t len, cap;
	int err;		/* 0 or -ENOMEM */
};

void bc_text_init(struct bc_text *t);
void bc_text_deinit(struct bc_text *t);

/* Makes room for n more bytes plus the NUL. Returns 0 or -ENOMEM. */
int bc_text_reserve(struct bc_text *t, size_t n);

void bc_text_add(struct bc_text *t, const char *s, size_t n);
void bc_text_puts(struct bc_text *t, const char *s);
void bc_text_printf(struct bc_text *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void bc_text_vprintf(struct bc_text *t, const char *fmt, va_list ap);

/* Appends s as a JSON string literal, quotes included. */
void bc_text_json_str(struct bc_text *t, const char *s);

/* Drops everything from offset len on. */
void bc_text_truncate(struct bc_text *t, size_t len);

/* The text so far ("" when empty); valid until the next append. */
static inline const char *bc_text_str(const struct bc_text *t)
{
	return t->len ? t->buf : "";
}

/* C identifiers, in the C locale: [A-Za-z_] then [A-Za-z0-9_]. */
static inline bool bc_is_ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static inline bool bc_is_ident_char(char c)
{
	return bc_is_ident_start(c) || (c >= '0' && c <= '9');
}

/* Hands the buffer to the caller (malloc'd, NUL-terminated) or NULL on error. */
char *bc_text_take(struct bc_text *t);

#endif
